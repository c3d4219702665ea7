/* cosserat — scenario parser internals (not installed): what the files of the parser share.
 *
 * The parser is split by section of the scenario tree: scenario.c (root, overrides, entry
 * points), scenario_common.c (messages, JSON paths, typed readers), scenario_schema.c (the
 * allowed keys of every object and the key check), and one file per section: scenario_model.c,
 * scenario_rod.c, scenario_supports.c, scenario_bodies.c, scenario_loads.c (with offsets and
 * time functions), scenario_stages.c (with the stage masks), scenario_output.c.
 *
 * The functions below have hidden visibility: they are not part of the library's ABI. */
#ifndef COSSERAT_IO_SCENARIO_INTERNAL_H
#define COSSERAT_IO_SCENARIO_INTERNAL_H

#include "cosserat/scenario.h"

#include <cjson/cJSON.h>

#include <stddef.h>

#define PATH_SIZE 256
#define VALUE_TEXT_SIZE 96

/* ------------------------------------------------------------------------ */
/* Storage owned by a scenario (rod definition arrays point into it).        */

typedef struct scenario_storage {
    cr_section_segment *sections;
    cr_bc_def *bcs;
    cr_load_def *loads;
    cr_offset_point **tables; /* one per load (NULL unless a tendon uses a table) */
    int table_count;
    cr_vec3 *positions;
    cr_quat *orientations;
    cr_rigid_body_def *bodies;
    cr_time_point **time_tables; /* one per load (NULL unless its time function is a table) */
    int time_table_count;
    cr_time_point **bc_time_tables; /* one per boundary condition (idem) */
    int bc_time_table_count;
    cr_bc_motion_point **bc_motions; /* one per boundary condition (NULL without a table of poses) */
    /* an assembly ("rods", scenario_rods.c): the rods, each with its own storage (sections,
     * reference nodes); the rod of each entry of the top-level lists (loads: -1 = every rod);
     * the lists split rod by rod; the joints (scenario_joints.c) */
    int multi; /* 1: the scenario gives "rods" (node references must name the rod) */
    int rod_count;
    cr_assembly_rod_def *rods;
    struct scenario_storage *rod_storage;
    int *bc_rod, *load_rod, *body_rod;
    cr_bc_def *rod_bcs;
    cr_load_def *rod_loads;
    cr_rigid_body_def *rod_bodies;
    cr_joint_def *joints;
    cr_time_point **joint_time_tables; /* one per joint: its drive's time table (or NULL) */
    int joint_count_alloc;
    cr_obstacle_def *obstacles;
    /* per obstacle (obstacle_alloc): its table of poses, its time function and that one's table
     * (NULL / unused when not driven; scenario_obstacles.c) */
    cr_bc_motion_point **obstacle_motions;
    cr_time_function *obstacle_times;
    cr_time_point **obstacle_time_tables;
    int obstacle_alloc;
    /* free bodies (body_rod −1; their loads' load_rod −3), split out by finish_rods */
    cr_rigid_body_def *free_bodies, *welded_bodies;
    cr_load_def *free_loads, *kept_loads;
} scenario_storage;

/* The kinds of object in the tree (the schema, scenario_schema.c). */
typedef enum node_kind {
    K_LEAF = 0, /* a value, or a container whose entries are not keyed (vectors) */
    K_ROOT,
    K_MODEL,
    K_BRANCH_LIST,
    K_BRANCH,
    K_ROD,
    K_MATERIAL,
    K_DAMPING,
    K_REFERENCE,
    K_FRAME,
    K_SECTION_LIST,
    K_SECTION,
    K_BC_LIST,
    K_BC,
    K_LOAD_LIST,
    K_LOAD,
    K_OFFSET,
    K_TIME,
    K_BODY_LIST,
    K_BODY,
    K_STAGE_LIST,
    K_STAGE,
    K_OUTPUT,
    K_TRACK_LIST,
    K_TRACK,
    K_ROD_LIST,
    K_ROD_ITEM,
    K_JOINT_LIST,
    K_JOINT,
    K_OBSTACLE_LIST,
    K_OBSTACLE,
    K_FRICTION,
    K_CONTACT,
    K_JOINT_DRIVE
} node_kind;

/* The sign rule of a number read by the typed readers. */
typedef enum num_rule { ANY = 0, POSITIVE, NONNEGATIVE, TOLERANCE /* positive, not subnormal */ } num_rule;

#pragma GCC visibility push(hidden)

/* ---- scenario_common.c: messages, paths, typed readers ---- */
cr_status fail(cr_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
cr_status no_memory(cr_error *err);
void format_number(double v, char *buf, size_t n);
void describe(const cJSON *v, char *buf, size_t n);
void path_key(char *out, const char *parent, const char *key);
void path_index(char *out, const char *parent, int index);
cr_status expect_object(const cJSON *v, const char *path, cr_error *err);
cr_status expect_array(const cJSON *v, const char *path, cr_error *err);
cr_status read_number(const cJSON *v, const char *path, num_rule rule, double *out, cr_error *err);
cr_status get_number(const cJSON *obj, const char *parent, const char *key, int required, double def, num_rule rule,
                     double *out, cr_error *err);
cr_status read_int(const cJSON *v, const char *path, int min, int *out, cr_error *err);
cr_status get_int(const cJSON *obj, const char *parent, const char *key, int required, int def, int min, int *out,
                  cr_error *err);
cr_status get_string(const cJSON *obj, const char *parent, const char *key, const char *def, const char **out,
                     cr_error *err);
cr_status read_enum(const cJSON *v, const char *path, const char *const *choices, int *out, cr_error *err);
cr_status get_enum(const cJSON *obj, const char *parent, const char *key, const char *const *choices, int def, int *out,
                   cr_error *err);
cr_status read_vector_rule(const cJSON *v, const char *path, int n, num_rule rule, double *out, cr_error *err);
cr_status read_vector(const cJSON *v, const char *path, int n, double *out, cr_error *err);
cr_status get_vector(const cJSON *obj, const char *parent, const char *key, int n, const double *def, double *out,
                     cr_error *err);
cr_status normalize(double *v, int n, const char *path, const cJSON *src, cr_error *err);
cr_status read_unit_quat(const cJSON *v, const char *path, cr_quat *out, cr_error *err);
cr_status get_unit_quat(const cJSON *obj, const char *parent, const char *key, cr_quat *out, cr_error *err);
cr_status get_array(const cJSON *obj, const char *parent, const char *key, int required, const cJSON **out,
                    cr_error *err);
cr_status get_node(const cJSON *obj, const char *parent, int elements, int *out, cr_error *err);

/* ---- scenario_schema.c: the schema ---- */
int list_index(const char *const *list, const char *s);
void list_join(const char *const *list, char *buf, size_t n);
const char *type_string(const cJSON *obj, const char *key);
int type_is(const char *t, const char *name);
const char *const *allowed_keys(node_kind k, const cJSON *obj, const char **what);
node_kind child_kind(node_kind k, const char *key);
cr_status check_keys(const cJSON *obj, const char *path, node_kind k, cr_error *err);

/* ---- the sections (each file parses one part of the tree) ---- */
/* scenario_model.c */
cr_status parse_model(const cJSON *root, cr_model_options *m, cr_error *err);

/* scenario_rod.c */
cr_status parse_rod(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err);

cr_status parse_rod_object(const cJSON *rod, const char *path, cr_rod_def *def, scenario_storage *st, cr_error *err);

/* scenario_rods.c: "rods", node references naming the rod, the split of the lists rod by rod */
typedef struct node_ref {
    int rod;  /* index into the scenario's rods (0 for one rod) */
    int node; /* node of that rod; negative counts from the end */
    int by_s; /* 1: given as {"rod", "s"}: `node` is the node nearest to `s` */
    double s;
} node_ref;
void storage_free(scenario_storage *st);
cr_status parse_rods(const cJSON *root, cr_scenario *sc, scenario_storage *st, cr_error *err);
/* The rod definition of rod `rod` while parsing (the scenario's `rod` for one rod). */
const cr_rod_def *rod_def_of(const cr_rod_def *def, const scenario_storage *st, int rod);
/* obj[key] as a node reference (docs/scenario.md "Node references"); a missing key is an error. */
cr_status get_rod_node(const cJSON *obj, const char *parent, const char *key, const cr_rod_def *def,
                       const scenario_storage *st, node_ref *out, cr_error *err);
/* obj["rod"]: the name of a rod, as its index; *out = dflt when absent. */
cr_status get_rod_name(const cJSON *obj, const char *parent, const scenario_storage *st, int dflt, int *out,
                       cr_error *err);
cr_status finish_rods(cr_scenario *sc, scenario_storage *st, cr_error *err);

/* scenario_joints.c */
cr_status parse_joints(const cJSON *root, cr_scenario *sc, scenario_storage *st, cr_error *err);

/* scenario_supports.c */
cr_status parse_bcs(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err);

/* scenario_bodies.c */
cr_status parse_rigid_bodies(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err);

/* scenario_loads.c */
cr_status parse_time(const cJSON *load, const char *parent, cr_time_function *f, cr_time_point **table, cr_error *err);
cr_status parse_loads(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err);

/* scenario_stages.c */
cr_status parse_stages(const cJSON *root, cr_scenario *sc, cr_error *err);
cr_status parse_stage_masks(const cJSON *root, const cr_scenario *sc, scenario_storage *st, cr_error *err);
/* obj's "stages" (a list of stage indices, after parse_stages) as a mask; 0 when absent. */
cr_status parse_stage_mask(const cJSON *obj, const char *parent, const cr_scenario *sc, unsigned *out, cr_error *err);

/* scenario_output.c */
cr_status parse_output(const cJSON *root, cr_scenario *sc, cr_error *err);

/* scenario_obstacles.c: "obstacles" and "contact" */
cr_status parse_obstacles(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err);

#pragma GCC visibility pop

#endif
