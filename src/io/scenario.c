/* cosserat — scenario files: JSON (cJSON) → validated cr_scenario.
 *
 * The steps, in order: parse the text into a cJSON tree, apply `PATH=VALUE`
 * overrides to the tree, then walk the tree once, validating every value while
 * filling the definition structs. Overrides act on the tree (not on the parsed
 * structs) so an overridden value goes through exactly the checks a value from
 * the file would, and one error message format covers both.
 *
 * Which keys are allowed where is written down once (allowed_keys()); the
 * unknown-key check and the override "may this missing key be added" check both
 * use it, so they cannot drift apart. docs/scenario.md lists the same keys.
 *
 * Every failure is CR_BAD_INPUT (CR_IO for unreadable files, CR_NO_MEMORY for
 * allocation failures) with a message that starts with the JSON path.
 */
#include "cosserat/scenario.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_SIZE 256
#define VALUE_TEXT_SIZE 96
/* "load_steps": "auto" starts with a quarter of the way (spec §4: the examples' 8–10 equal
 * steps converge in 3 iterations each, a sign they could be longer) */
#define AUTO_FIRST_LOAD_STEPS 4

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
} scenario_storage;

void cr_scenario_destroy(cr_scenario *scenario)
{
    if (!scenario) return;
    scenario_storage *st = scenario->internal;
    if (st) {
        free(st->sections);
        free(st->bcs);
        free(st->loads);
        for (int i = 0; i < st->table_count; ++i) free(st->tables[i]);
        free(st->tables);
        free(st->positions);
        free(st->orientations);
        free(st->bodies);
        for (int i = 0; i < st->time_table_count; ++i) free(st->time_tables[i]);
        free(st->time_tables);
        for (int i = 0; i < st->bc_time_table_count; ++i) free(st->bc_time_tables[i]);
        free(st->bc_time_tables);
        for (int i = 0; st->bc_motions && i < st->bc_time_table_count; ++i) free(st->bc_motions[i]);
        free(st->bc_motions);
        free(st);
    }
    free(scenario->stages);
    free(scenario->output.track);
    free(scenario);
}

/* ------------------------------------------------------------------------ */
/* Messages.                                                                  */

static cr_status fail(cr_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static cr_status fail(cr_error *err, const char *fmt, ...)
{
    char buf[CR_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return cr_error_set(err, CR_BAD_INPUT, "%s", buf);
}

static cr_status no_memory(cr_error *err)
{
    return cr_error_set(err, CR_NO_MEMORY, "out of memory while reading the scenario");
}

/* Shortest text that reads back as the same double, so messages show the
 * value the user wrote ("0.1", not "0.10000000000000001"). */
static void format_number(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
        return;
    }
    for (int p = 15; p <= 17; ++p) {
        snprintf(buf, n, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* Appends byte c to buf[*k] (capacity n, room for the final NUL kept), a control
 * byte as its JSON escape (\n, \t, \r, \u001b): a key or value with control
 * characters is shown as written, and cannot corrupt the terminal or the line. */
static void put_escaped(char *buf, size_t *k, size_t n, unsigned char c)
{
    char esc[8];
    if (c >= 0x20 && c != 0x7f) esc[0] = (char)c, esc[1] = '\0';
    else if (c == '\n') strcpy(esc, "\\n");
    else if (c == '\t') strcpy(esc, "\\t");
    else if (c == '\r') strcpy(esc, "\\r");
    else snprintf(esc, sizeof esc, "\\u%04x", c);
    size_t len = strlen(esc);
    if (*k + len + 1 > n) return;
    memcpy(buf + *k, esc, len);
    *k += len;
}

/* A short description of a JSON value for "got ..." in messages. */
static void describe(const cJSON *v, char *buf, size_t n)
{
    if (!v) {
        snprintf(buf, n, "nothing");
    } else if (cJSON_IsNumber(v)) {
        format_number(v->valuedouble, buf, n);
    } else if (cJSON_IsTrue(v)) {
        snprintf(buf, n, "true");
    } else if (cJSON_IsFalse(v)) {
        snprintf(buf, n, "false");
    } else if (cJSON_IsNull(v)) {
        snprintf(buf, n, "null");
    } else {
        char *text = NULL;
        const char *s;
        if (cJSON_IsString(v)) {
            s = v->valuestring;
        } else {
            text = cJSON_PrintUnformatted(v);
            s = text ? text : (cJSON_IsArray(v) ? "an array" : "an object");
        }
        /* Keep messages to one readable line: truncate and escape control bytes. */
        size_t max = n > 8 ? n - 8 : 0, len = strlen(s), k = 0;
        int quote = cJSON_IsString(v);
        if (quote && k + 1 < n) buf[k++] = '"';
        size_t i = 0;
        for (; i < len && k < max; ++i) put_escaped(buf, &k, max + 1, (unsigned char)s[i]);
        if (i < len && k + 3 < n) {
            memcpy(buf + k, "...", 3);
            k += 3;
        }
        if (quote && k + 1 < n) buf[k++] = '"';
        buf[k < n ? k : n - 1] = '\0';
        cJSON_free(text);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON paths ("rod.sections.1.radius").                                      */

/* out = parent + "." + key (just key at the top level), truncated to
 * PATH_SIZE - 1 characters: a truncated path is still a useful hint. Written by
 * hand rather than with snprintf so out may alias parent. */
static void path_key(char *out, const char *parent, const char *key)
{
    char buf[PATH_SIZE];
    size_t k = 0;
    for (const char *p = parent; *p && k + 1 < sizeof buf; ++p) buf[k++] = *p;
    if (*parent && k + 1 < sizeof buf) buf[k++] = '.';
    for (const char *p = key; *p && k + 1 < sizeof buf; ++p) put_escaped(buf, &k, sizeof buf, (unsigned char)*p);
    buf[k] = '\0';
    memcpy(out, buf, k + 1);
}

static void path_index(char *out, const char *parent, int index)
{
    char digits[16];
    snprintf(digits, sizeof digits, "%d", index);
    path_key(out, parent, digits);
}

/* ------------------------------------------------------------------------ */
/* The schema: which keys are allowed in which object.                        */

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
    K_TRACK
} node_kind;

static const char *const ROOT_KEYS[] = {"name",         "description", "model",  "rod", "boundary_conditions",
                                        "rigid_bodies", "loads",       "stages", "output", NULL};
static const char *const MODEL_MIXED_KEYS[] = {"type", NULL};
static const char *const MODEL_LGVI_KEYS[] = {"type", "dilatation", "chart", "strains", NULL};
static const char *const MODEL_PH_KEYS[] = {"type", "viscoelastic", "newton_atol", NULL};
static const char *const MODEL_ANY_KEYS[] = {"type",         "dilatation",  "chart", "strains",
                                             "viscoelastic", "newton_atol", NULL};
static const char *const BRANCH_KEYS[] = {"tau", "fraction", "kelvin_voigt", NULL};
static const char *const ROD_KEYS[] = {"length",   "elements",      "material", "reference",
                                       "sections", "rigid_strains", "damping",  NULL};
static const char *const MATERIAL_KEYS[] = {"E", "G", "rho", NULL};
static const char *const DAMPING_KEYS[] = {"relaxation_time", "coefficients", "drag", "rotational_drag", NULL};
static const char *const REF_STRAIGHT_KEYS[] = {"type", "origin", "frame", "quaternion", NULL};
static const char *const REF_HELIX_KEYS[] = {"type", "origin", "radius", "pitch", NULL};
static const char *const REF_NODES_KEYS[] = {"type", "positions", "quaternions", NULL};
static const char *const REF_ANY_KEYS[] = {"type",   "origin", "frame",     "quaternion", "radius",
                                           "pitch", "positions", "quaternions", NULL};
static const char *const FRAME_KEYS[] = {"e_x", "e_y", NULL};
static const char *const SECTION_CIRCLE_KEYS[] = {"shape", "end", "radius", "shear_coefficient", NULL};
static const char *const SECTION_RECT_KEYS[] = {"shape", "end", "width", "height", "shear_coefficient", NULL};
static const char *const SECTION_RESULTANT_KEYS[] = {"shape", "end", "EA",   "GA_y",   "GA_z",  "GJ",
                                                     "EI_y",  "EI_z", "rhoA", "rhoI_y", "rhoI_z", NULL};
static const char *const SECTION_ANY_KEYS[] = {"shear_coefficient",
                                               "shape", "end",  "radius", "width", "height", "EA",     "GA_y",
                                               "GA_z",  "GJ",   "EI_y",   "EI_z",  "rhoA",   "rhoI_y", "rhoI_z", NULL};
/* supports: what they hold, where their target is, when they act */
static const char *const BC_CLAMP_KEYS[] = {"type",  "node",  "frame", "position", "quaternion", "rotation", "axis",
                                            "angle", "turns", "time",  "stages",   "motion",     NULL};
static const char *const BC_SUPPORT_KEYS[] = {"type",  "node",  "hold", "frame",  "position", "quaternion", "rotation",
                                              "axis",  "angle", "turns", "time",  "stages",   "motion",     NULL};
static const char *const BC_PIN_KEYS[] = {"type", "node", "position", "time", "stages", "motion", NULL};
static const char *const BC_POSE_KEYS[] = {"type", "node", "position", "quaternion", "time", "stages", NULL};
static const char *const BC_FRAME_CHOICES[] = {"inertial", "reference", NULL};
static const char *const HOLD_NAMES[] = {"x", "y", "z", "rx", "ry", "rz", NULL};
/* "time" and "stages" are common to every load type */
static const char *const LOAD_POINT_KEYS[] = {"type", "node", "body", "value", "frame", "time", "stages", NULL};
static const char *const LOAD_DENSITY_KEYS[] = {"type", "value", "frame", "time", "stages", NULL};
static const char *const LOAD_GRAVITY_KEYS[] = {"type", "value", "time", "stages", NULL};
static const char *const LOAD_TENDON_KEYS[] = {"type",   "tension", "offset", "xi_start",
                                               "xi_end", "time",    "stages", NULL};
static const char *const LOAD_CHAMBER_KEYS[] = {"type", "pressure", "area", "offset", "time", "stages", NULL};
static const char *const LOAD_ANY_KEYS[] = {"type",     "node",   "body",     "value",  "frame",
                                            "tension",  "offset", "xi_start", "xi_end", "time",
                                            "stages",   "pressure", "area",   NULL};
static const char *const OFFSET_KEYS[] = {"y", "z", "radius_fraction", "angle_deg", "table", NULL};
static const char *const TIME_CONSTANT_KEYS[] = {"type", NULL};
static const char *const TIME_STEP_KEYS[] = {"type", "t0", "t1", NULL}; /* ramp, smooth_step */
static const char *const TIME_SINE_KEYS[] = {"type", "amplitude", "frequency", "phase", "offset", "t0", "t1", NULL};
static const char *const TIME_TABLE_KEYS[] = {"type", "points", NULL};
static const char *const TIME_ANY_KEYS[] = {"type",  "t0",     "t1",     "amplitude", "frequency",
                                            "phase", "offset", "points", NULL};
static const char *const BODY_KEYS[] = {"name",           "node",        "mass", "center", "inertia",
                                        "inertia_tensor", "orientation", NULL};
static const char *const STAGE_STATIC_KEYS[] = {"type",         "load_steps", "max_iterations", "atol",       "rtol",
                                                "max_halvings", "stability",  "path",           "arc_length", NULL};
static const char *const PATH_CHOICES[] = {"load_steps", "arc_length", NULL}; /* = cr_static_options.arc_length */
static const char *const ARC_LENGTH_KEYS[] = {"steps", "initial", "max_load_factor", NULL};
static const char *const STAGE_DYNAMIC_KEYS[] = {"type",   "t_end", "rtol",      "atol",
                                                 "output_dt", "snapshot_dt", "h_init", "h_max",
                                                 "max_steps", "checkpoint_interval", "time_step", NULL};
static const char *const STAGE_ANY_KEYS[] = {
    "type",      "load_steps",  "max_iterations", "atol",  "rtol",      "max_halvings",        "t_end",
    "output_dt", "snapshot_dt", "h_init",         "h_max", "max_steps", "checkpoint_interval", "time_step",
    "stability", "path",        "arc_length",     NULL};
static const char *const OUTPUT_KEYS[] = {"directory", "vtk", "vtk_format", "track", NULL};
static const char *const VTK_FORMAT_CHOICES[] = {"binary", "ascii", "compressed", NULL}; /* cr_vtk_format order */
static const char *const TRACK_KEYS[] = {"name", "node", "s", NULL};

/* enum choices; index = the C enum value */
static const char *const MODEL_CHOICES[] = {"mixed_discrete", "lgvi", "port_hamiltonian", NULL};
static const char *const CHART_CHOICES[] = {"exp", "cayley", NULL};
static const char *const STRAINS_CHOICES[] = {"left", "midpoint", NULL}; /* = CR_LGVI_STRAINS_* */
static const char *const REF_CHOICES[] = {"straight", "helix", "nodes", NULL};
static const char *const SHAPE_CHOICES[] = {"circle", "rectangle", "resultants", NULL};
static const char *const BC_CHOICES[] = {"clamp", "pose", "pin", "support", NULL};
static const char *const LOAD_CHOICES[] = {"force",   "moment", "force_density", "moment_density",
                                           "gravity", "tendon", "chamber",       NULL};
static const char *const FRAME_CHOICES[] = {"inertial", "body", NULL};
static const char *const STAGE_CHOICES[] = {"static", "dynamic", NULL};
static const char *const TIME_CHOICES[] = {"constant", "ramp", "table", "sine", "smooth_step", NULL};
static const char *const RIGID_CHOICES[] = {"gamma_x", "gamma_y", "gamma_z", "kappa_x", "kappa_y", "kappa_z", NULL};

static int list_index(const char *const *list, const char *s)
{
    for (int i = 0; list[i]; ++i)
        if (strcmp(list[i], s) == 0) return i;
    return -1;
}

static void list_join(const char *const *list, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; list[i] && k + 1 < n; ++i) {
        int w = snprintf(buf + k, n - k, "%s%s", i ? ", " : "", list[i]);
        if (w < 0) break;
        k += (size_t)w;
    }
}

/* The "type" (or "shape") string of an object, or NULL. */
static const char *type_string(const cJSON *obj, const char *key)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(t) ? t->valuestring : NULL;
}

static int type_is(const char *t, const char *name) { return t && strcmp(t, name) == 0; }

/* Keys allowed in an object of kind k. For objects whose keys depend on a type
 * field, the type present in `obj` decides; with no recognizable type, the
 * union of all variants (validation reports the bad type first anyway). `what`
 * names the variant for messages ("a helix reference"), or NULL. */
static const char *const *allowed_keys(node_kind k, const cJSON *obj, const char **what)
{
    const char *t;
    *what = NULL;
    switch (k) {
    case K_ROOT: return ROOT_KEYS;
    case K_MODEL:
        t = type_string(obj, "type");
        if (type_is(t, "mixed_discrete")) {
            *what = "the mixed_discrete model";
            return MODEL_MIXED_KEYS;
        }
        if (type_is(t, "lgvi")) {
            *what = "the lgvi model";
            return MODEL_LGVI_KEYS;
        }
        if (type_is(t, "port_hamiltonian")) {
            *what = "the port_hamiltonian model";
            return MODEL_PH_KEYS;
        }
        return MODEL_ANY_KEYS;
    case K_BRANCH: return BRANCH_KEYS;
    case K_ROD: return ROD_KEYS;
    case K_MATERIAL: return MATERIAL_KEYS;
    case K_DAMPING: return DAMPING_KEYS;
    case K_FRAME: return FRAME_KEYS;
    case K_OFFSET: return OFFSET_KEYS;
    case K_OUTPUT: return OUTPUT_KEYS;
    case K_TRACK: return TRACK_KEYS;
    case K_BODY: return BODY_KEYS;
    case K_REFERENCE:
        t = type_string(obj, "type");
        if (!cJSON_GetObjectItemCaseSensitive(obj, "type") || type_is(t, "straight")) {
            *what = "a straight reference";
            return REF_STRAIGHT_KEYS;
        }
        if (type_is(t, "helix")) {
            *what = "a helix reference";
            return REF_HELIX_KEYS;
        }
        if (type_is(t, "nodes")) {
            *what = "a nodes reference";
            return REF_NODES_KEYS;
        }
        return REF_ANY_KEYS;
    case K_SECTION:
        t = type_string(obj, "shape");
        if (type_is(t, "circle")) {
            *what = "a circle section";
            return SECTION_CIRCLE_KEYS;
        }
        if (type_is(t, "rectangle")) {
            *what = "a rectangle section";
            return SECTION_RECT_KEYS;
        }
        if (type_is(t, "resultants")) {
            *what = "a resultants section";
            return SECTION_RESULTANT_KEYS;
        }
        return SECTION_ANY_KEYS;
    case K_BC:
        t = type_string(obj, "type");
        if (type_is(t, "clamp")) {
            *what = "a clamp";
            return BC_CLAMP_KEYS;
        }
        if (type_is(t, "pose")) {
            *what = "a pose boundary condition";
            return BC_POSE_KEYS;
        }
        if (type_is(t, "pin")) {
            *what = "a pin";
            return BC_PIN_KEYS;
        }
        if (type_is(t, "support")) {
            *what = "a support";
            return BC_SUPPORT_KEYS;
        }
        return BC_SUPPORT_KEYS;
    case K_LOAD:
        t = type_string(obj, "type");
        if (type_is(t, "force") || type_is(t, "moment")) {
            *what = type_is(t, "force") ? "a force load" : "a moment load";
            return LOAD_POINT_KEYS;
        }
        if (type_is(t, "force_density") || type_is(t, "moment_density")) {
            *what = type_is(t, "force_density") ? "a force_density load" : "a moment_density load";
            return LOAD_DENSITY_KEYS;
        }
        if (type_is(t, "gravity")) {
            *what = "a gravity load";
            return LOAD_GRAVITY_KEYS;
        }
        if (type_is(t, "tendon")) {
            *what = "a tendon load";
            return LOAD_TENDON_KEYS;
        }
        if (type_is(t, "chamber")) {
            *what = "a chamber load";
            return LOAD_CHAMBER_KEYS;
        }
        return LOAD_ANY_KEYS;
    case K_STAGE:
        t = type_string(obj, "type");
        if (!cJSON_GetObjectItemCaseSensitive(obj, "type") || type_is(t, "static")) {
            *what = "a static stage";
            return STAGE_STATIC_KEYS;
        }
        if (type_is(t, "dynamic")) {
            *what = "a dynamic stage";
            return STAGE_DYNAMIC_KEYS;
        }
        return STAGE_ANY_KEYS;
    case K_TIME:
        t = type_string(obj, "type");
        if (type_is(t, "constant")) {
            *what = "a constant time function";
            return TIME_CONSTANT_KEYS;
        }
        if (type_is(t, "ramp") || type_is(t, "smooth_step")) {
            *what = type_is(t, "ramp") ? "a ramp time function" : "a smooth_step time function";
            return TIME_STEP_KEYS;
        }
        if (type_is(t, "sine")) {
            *what = "a sine time function";
            return TIME_SINE_KEYS;
        }
        if (type_is(t, "table")) {
            *what = "a table time function";
            return TIME_TABLE_KEYS;
        }
        return TIME_ANY_KEYS;
    default: return NULL; /* lists and leaves have no keys */
    }
}

/* The kind of the entry `key` of a container of kind k (key NULL: array element). */
static node_kind child_kind(node_kind k, const char *key)
{
    switch (k) {
    case K_ROOT:
        if (!strcmp(key, "model")) return K_MODEL;
        if (!strcmp(key, "rod")) return K_ROD;
        if (!strcmp(key, "boundary_conditions")) return K_BC_LIST;
        if (!strcmp(key, "rigid_bodies")) return K_BODY_LIST;
        if (!strcmp(key, "loads")) return K_LOAD_LIST;
        if (!strcmp(key, "stages")) return K_STAGE_LIST;
        if (!strcmp(key, "output")) return K_OUTPUT;
        return K_LEAF;
    case K_ROD:
        if (!strcmp(key, "material")) return K_MATERIAL;
        if (!strcmp(key, "damping")) return K_DAMPING;
        if (!strcmp(key, "reference")) return K_REFERENCE;
        if (!strcmp(key, "sections")) return K_SECTION_LIST;
        return K_LEAF;
    case K_REFERENCE: return key && !strcmp(key, "frame") ? K_FRAME : K_LEAF;
    case K_LOAD:
        if (key && !strcmp(key, "offset")) return K_OFFSET;
        if (key && !strcmp(key, "time")) return K_TIME;
        return K_LEAF;
    case K_BC: return key && !strcmp(key, "time") ? K_TIME : K_LEAF;
    case K_MODEL: return key && !strcmp(key, "viscoelastic") ? K_BRANCH_LIST : K_LEAF;
    case K_BRANCH_LIST: return key ? K_LEAF : K_BRANCH;
    case K_SECTION_LIST: return key ? K_LEAF : K_SECTION;
    case K_BC_LIST: return key ? K_LEAF : K_BC;
    case K_LOAD_LIST: return key ? K_LEAF : K_LOAD;
    case K_BODY_LIST: return key ? K_LEAF : K_BODY;
    case K_STAGE_LIST: return key ? K_LEAF : K_STAGE;
    case K_OUTPUT: return key && !strcmp(key, "track") ? K_TRACK_LIST : K_LEAF;
    case K_TRACK_LIST: return key ? K_LEAF : K_TRACK;
    default: return K_LEAF;
    }
}

/* Rejects keys not allowed in obj and duplicated keys (cJSON keeps both copies
 * of a duplicate and lookups see only the first, so the second would be
 * silently ignored). */
static cr_status check_keys(const cJSON *obj, const char *path, node_kind k, cr_error *err)
{
    const char *what;
    const char *const *allowed = allowed_keys(k, obj, &what);
    char child[PATH_SIZE], list[256];
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *key = c->string ? c->string : "";
        path_key(child, path, key);
        if (list_index(allowed, key) < 0) {
            list_join(allowed, list, sizeof list);
            return fail(err, "%s: unknown key%s%s (expected one of %s)", child, what ? " for " : "",
                        what ? what : "", list);
        }
        for (const cJSON *d = obj->child; d != c; d = d->next)
            if (d->string && strcmp(d->string, key) == 0) return fail(err, "%s: duplicate key", child);
    }
    return CR_OK;
}

/* ------------------------------------------------------------------------ */
/* Typed readers. `obj` is the parent object, `parent` its path.              */

typedef enum num_rule { ANY = 0, POSITIVE, NONNEGATIVE } num_rule;

static cr_status expect_object(const cJSON *v, const char *path, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    if (cJSON_IsObject(v)) return CR_OK;
    describe(v, got, sizeof got);
    return fail(err, "%s: expected an object, got %s", path, got);
}

static cr_status expect_array(const cJSON *v, const char *path, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    if (cJSON_IsArray(v)) return CR_OK;
    describe(v, got, sizeof got);
    return fail(err, "%s: expected an array, got %s", path, got);
}

static cr_status read_number(const cJSON *v, const char *path, num_rule rule, double *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    describe(v, got, sizeof got);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: expected a number, got %s", path, got);
    double d = v->valuedouble;
    /* JSON has no inf/nan literals, but 1e999 overflows to inf in strtod. */
    if (!isfinite(d)) return fail(err, "%s: must be finite, got %s (the number overflows a double)", path, got);
    if (rule == POSITIVE && !(d > 0)) return fail(err, "%s: must be > 0, got %s", path, got);
    if (rule == NONNEGATIVE && !(d >= 0)) return fail(err, "%s: must be >= 0, got %s", path, got);
    *out = d;
    return CR_OK;
}

static cr_status get_number(const cJSON *obj, const char *parent, const char *key, int required, double def,
                            num_rule rule, double *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) return fail(err, "%s: missing", path);
        *out = def;
        return CR_OK;
    }
    return read_number(v, path, rule, out, err);
}

static cr_status read_int(const cJSON *v, const char *path, int min, int *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    describe(v, got, sizeof got);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: expected an integer, got %s", path, got);
    double d = v->valuedouble;
    if (!isfinite(d)) return fail(err, "%s: must be finite, got %s (the number overflows a double)", path, got);
    if (d != floor(d)) return fail(err, "%s: expected an integer, got %s", path, got);
    if (d < min) return fail(err, "%s: must be >= %d, got %s", path, min, got);
    /* INT_MAX - 1 so that node counts (elements + 1) stay representable */
    if (d > INT_MAX - 1) return fail(err, "%s: must be <= %d, got %s", path, INT_MAX - 1, got);
    *out = (int)d;
    return CR_OK;
}

static cr_status get_int(const cJSON *obj, const char *parent, const char *key, int required, int def, int min,
                         int *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) return fail(err, "%s: missing", path);
        *out = def;
        return CR_OK;
    }
    return read_int(v, path, min, out, err);
}

static cr_status get_string(const cJSON *obj, const char *parent, const char *key, const char *def,
                            const char **out, cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        *out = def;
        return CR_OK;
    }
    if (!cJSON_IsString(v)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a string, got %s", path, got);
    }
    *out = v->valuestring;
    return CR_OK;
}

static cr_status read_enum(const cJSON *v, const char *path, const char *const *choices, int *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE], list[256];
    int i = cJSON_IsString(v) ? list_index(choices, v->valuestring) : -1;
    if (i >= 0) {
        *out = i;
        return CR_OK;
    }
    describe(v, got, sizeof got);
    list_join(choices, list, sizeof list);
    return fail(err, "%s: expected one of %s, got %s", path, list, got);
}

/* def < 0: required */
static cr_status get_enum(const cJSON *obj, const char *parent, const char *key, const char *const *choices, int def,
                          int *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (def < 0) return fail(err, "%s: missing", path);
        *out = def;
        return CR_OK;
    }
    return read_enum(v, path, choices, out, err);
}

/* An array of exactly n finite numbers, each obeying `rule`. */
static cr_status read_vector_rule(const cJSON *v, const char *path, int n, num_rule rule, double *out,
                                  cr_error *err)
{
    char got[VALUE_TEXT_SIZE], item[PATH_SIZE];
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected an array of %d numbers, got %s", path, n, got);
    }
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, ++i) {
        path_index(item, path, i);
        cr_status s = read_number(c, item, rule, &out[i], err);
        if (s) return s;
    }
    return CR_OK;
}

static cr_status read_vector(const cJSON *v, const char *path, int n, double *out, cr_error *err)
{
    return read_vector_rule(v, path, n, ANY, out, err);
}

/* def NULL: required */
static cr_status get_vector(const cJSON *obj, const char *parent, const char *key, int n, const double *def,
                            double *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!def) return fail(err, "%s: missing", path);
        memcpy(out, def, (size_t)n * sizeof *out);
        return CR_OK;
    }
    return read_vector(v, path, n, out, err);
}

/* Scales v (n entries) to unit length. Dividing by the largest entry first
 * keeps the squared norm from overflowing (1e200) or underflowing (1e-200). */
static cr_status normalize(double *v, int n, const char *path, const cJSON *src, cr_error *err)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(v[i]));
    if (m == 0) {
        char got[VALUE_TEXT_SIZE];
        describe(src, got, sizeof got);
        return fail(err, "%s: must be nonzero, got %s", path, got);
    }
    for (int i = 0; i < n; ++i) {
        v[i] /= m;
        s += v[i] * v[i];
    }
    s = sqrt(s);
    for (int i = 0; i < n; ++i) v[i] /= s;
    return CR_OK;
}

static cr_status read_unit_quat(const cJSON *v, const char *path, cr_quat *out, cr_error *err)
{
    double q[4];
    cr_status s = read_vector(v, path, 4, q, err);
    if (!s) s = normalize(q, 4, path, v, err);
    if (!s) *out = cr_q_load(q);
    return s;
}

static cr_status get_unit_quat(const cJSON *obj, const char *parent, const char *key, cr_quat *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return fail(err, "%s: missing", path);
    return read_unit_quat(v, path, out, err);
}

/* The array at obj[key] (NULL when absent and not required). */
static cr_status get_array(const cJSON *obj, const char *parent, const char *key, int required, const cJSON **out,
                           cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = v;
    if (!v) return required ? fail(err, "%s: missing", path) : CR_OK;
    return expect_array(v, path, err);
}

/* A node reference: "start" → 0, "end" → -1, or an index in [-(n+1), n]
 * (negative counts from the end, as cr_bc_def/cr_load_def expect). */
static cr_status get_node(const cJSON *obj, const char *parent, int elements, int *out, cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, "node");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "node");
    if (!v) return fail(err, "%s: missing", path);
    describe(v, got, sizeof got);
    if (cJSON_IsString(v)) {
        if (!strcmp(v->valuestring, "start")) {
            *out = 0;
            return CR_OK;
        }
        if (!strcmp(v->valuestring, "end")) {
            *out = -1;
            return CR_OK;
        }
    } else if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble)) {
        double d = v->valuedouble;
        if (d >= -(double)elements - 1 && d <= elements) {
            *out = (int)d;
            return CR_OK;
        }
        return fail(err, "%s: node index must be in [%d, %d] (the rod has %d nodes), got %s", path, -elements - 1,
                    elements, elements + 1, got);
    }
    return fail(err, "%s: expected \"start\", \"end\" or an integer node index in [%d, %d], got %s", path,
                -elements - 1, elements, got);
}

/* ------------------------------------------------------------------------ */
/* The sections of the tree.                                                  */

/* Every section gives its stiffness and inertia resultants: no material is needed. */
static int sections_all_resultants(const cJSON *rod)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(rod, "sections");
    if (!cJSON_IsArray(list) || !list->child) return 0;
    for (const cJSON *c = list->child; c; c = c->next)
        if (!type_is(type_string(c, "shape"), "resultants")) return 0;
    return 1;
}

static cr_status parse_material(const cJSON *rod, cr_material *m, cr_error *err)
{
    const char *path = "rod.material";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rod, "material");
    cr_status s;
    if (!v && sections_all_resultants(rod)) return CR_OK;
    if (!v) return fail(err, "%s: missing (or give every section as shape \"resultants\")", path);
    if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_MATERIAL, err))) return s;
    if ((s = get_number(v, path, "E", 1, 0, POSITIVE, &m->E, err))) return s;
    if ((s = get_number(v, path, "G", 1, 0, POSITIVE, &m->G, err))) return s;
    return get_number(v, path, "rho", 0, 0.0, NONNEGATIVE, &m->rho, err);
}

static cr_status parse_frame(const cJSON *ref, const char *parent, cr_quat *out, cr_error *err)
{
    char path[PATH_SIZE], px[PATH_SIZE], py[PATH_SIZE], dot_text[32];
    path_key(path, parent, "frame");
    path_key(px, path, "e_x");
    path_key(py, path, "e_y");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(ref, "frame");
    double ex[3], ey[3];
    cr_status s;
    if ((s = expect_object(f, path, err)) || (s = check_keys(f, path, K_FRAME, err))) return s;
    if ((s = get_vector(f, path, "e_x", 3, NULL, ex, err))) return s;
    if ((s = get_vector(f, path, "e_y", 3, NULL, ey, err))) return s;
    if ((s = normalize(ex, 3, px, cJSON_GetObjectItemCaseSensitive(f, "e_x"), err))) return s;
    if ((s = normalize(ey, 3, py, cJSON_GetObjectItemCaseSensitive(f, "e_y"), err))) return s;
    cr_vec3 a = cr_v3_load(ex), b = cr_v3_load(ey);
    double d = cr_v3_dot(a, b);
    if (fabs(d) > 1e-6) {
        format_number(d, dot_text, sizeof dot_text);
        return fail(err, "%s: e_x and e_y must be orthogonal, but e_x . e_y = %s after normalization", path,
                    dot_text);
    }
    /* Remove the tolerated residual from e_y (not e_x: the first column is the
     * rod tangent, which the user specified and expects back exactly) so the
     * matrix handed to cr_q_from_matrix is a rotation to rounding. */
    b = cr_v3_normalize(cr_v3_madd(b, -d, a));
    *out = cr_q_from_matrix(cr_m3_columns(a, b, cr_v3_cross(a, b)));
    return CR_OK;
}

static cr_status parse_reference(const cJSON *rod, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    static const double zero3[3] = {0, 0, 0};
    const char *path = "rod.reference";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rod, "reference");
    cr_reference_def *ref = &def->reference;
    double o[3];
    int type;
    cr_status s;

    ref->type = CR_REFERENCE_STRAIGHT;
    ref->origin = cr_v3(0, 0, 0);
    ref->orientation = cr_q_identity();
    ref->helix_radius = 0;
    ref->helix_pitch = 0;
    ref->node_count = 0;
    ref->node_positions = NULL;
    ref->node_orientations = NULL;
    if (!v) return CR_OK;

    if ((s = expect_object(v, path, err))) return s;
    if ((s = get_enum(v, path, "type", REF_CHOICES, CR_REFERENCE_STRAIGHT, &type, err))) return s;
    if ((s = check_keys(v, path, K_REFERENCE, err))) return s;
    ref->type = (cr_reference_type)type;

    if (type == CR_REFERENCE_STRAIGHT) {
        const cJSON *frame = cJSON_GetObjectItemCaseSensitive(v, "frame");
        const cJSON *quat = cJSON_GetObjectItemCaseSensitive(v, "quaternion");
        if ((s = get_vector(v, path, "origin", 3, zero3, o, err))) return s;
        ref->origin = cr_v3_load(o);
        if (frame && quat)
            return fail(err, "%s: give the orientation either as frame or as quaternion, not both", path);
        if (frame) return parse_frame(v, path, &ref->orientation, err);
        if (quat) return read_unit_quat(quat, "rod.reference.quaternion", &ref->orientation, err);
        return CR_OK;
    }
    if (type == CR_REFERENCE_HELIX) {
        if ((s = get_vector(v, path, "origin", 3, zero3, o, err))) return s;
        ref->origin = cr_v3_load(o);
        if ((s = get_number(v, path, "radius", 1, 0, POSITIVE, &ref->helix_radius, err))) return s;
        return get_number(v, path, "pitch", 0, 0.0, ANY, &ref->helix_pitch, err);
    }

    /* nodes: one pose per node */
    const cJSON *pos, *quats;
    char item[PATH_SIZE], prev[PATH_SIZE];
    int n = def->elements + 1;
    if ((s = get_array(v, path, "positions", 1, &pos, err))) return s;
    if ((s = get_array(v, path, "quaternions", 1, &quats, err))) return s;
    if (cJSON_GetArraySize(pos) != n)
        return fail(err, "rod.reference.positions: expected %d entries (rod.elements + 1), got %d", n,
                    cJSON_GetArraySize(pos));
    if (cJSON_GetArraySize(quats) != n)
        return fail(err, "rod.reference.quaternions: expected %d entries (rod.elements + 1), got %d", n,
                    cJSON_GetArraySize(quats));
    st->positions = malloc((size_t)n * sizeof *st->positions);
    st->orientations = malloc((size_t)n * sizeof *st->orientations);
    if (!st->positions || !st->orientations) return no_memory(err);
    int i = 0;
    for (const cJSON *c = pos->child; c; c = c->next, ++i) {
        path_index(item, "rod.reference.positions", i);
        if ((s = read_vector(c, item, 3, o, err))) return s;
        st->positions[i] = cr_v3_load(o);
        if (i > 0 && cr_v3_norm(cr_v3_sub(st->positions[i], st->positions[i - 1])) == 0) {
            path_index(prev, "rod.reference.positions", i - 1);
            return fail(err, "%s: coincides with %s (a zero-length element)", item, prev);
        }
    }
    i = 0;
    for (const cJSON *c = quats->child; c; c = c->next, ++i) {
        path_index(item, "rod.reference.quaternions", i);
        if ((s = read_unit_quat(c, item, &st->orientations[i], err))) return s;
    }
    ref->node_count = n;
    ref->node_positions = st->positions;
    ref->node_orientations = st->orientations;
    return CR_OK;
}

/* A section dimension: a number (constant) or a [start, end] pair (taper). */
/* A positive value, constant or tapered ([start, end]); optional ones (required = 0)
 * default to 0 and may be 0 (rule NONNEGATIVE). */
static cr_status get_profile(const cJSON *obj, const char *parent, const char *key, int required, num_rule rule,
                             double out[2], cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE], item[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_status s;
    if (!v && !required) {
        out[0] = out[1] = 0;
        return CR_OK;
    }
    if (!v) return fail(err, "%s: missing", path);
    if (cJSON_IsNumber(v)) {
        if ((s = read_number(v, path, rule, &out[0], err))) return s;
        out[1] = out[0];
        return CR_OK;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a number or a [start, end] pair, got %s", path, got);
    }
    for (int i = 0; i < 2; ++i) {
        path_index(item, path, i);
        if ((s = read_number(cJSON_GetArrayItem(v, i), item, rule, &out[i], err))) return s;
    }
    return CR_OK;
}

static cr_status get_dimension(const cJSON *obj, const char *parent, const char *key, double out[2], cr_error *err)
{
    return get_profile(obj, parent, key, 1, POSITIVE, out, err);
}

/* rod.sections[*].shear_coefficient: k in (0, 2] or "timoshenko" (Cowper's k from the
 * shape and ν = E/(2G) - 1); absent: 0 (= k 1). Not for resultants sections. */
static cr_status parse_shear_coefficient(const cJSON *c, const char *parent, int shape, double *out, cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, "shear_coefficient");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "shear_coefficient");
    *out = 0;
    if (!v) return CR_OK;
    if (shape == CR_SECTION_RESULTANTS)
        return fail(err, "%s: not for a resultants section (GA_y and GA_z are given directly; scale them instead)",
                    path);
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "timoshenko")) {
        *out = CR_SHEAR_TIMOSHENKO;
        return CR_OK;
    }
    describe(v, got, sizeof got);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: expected a number in (0, 2] or \"timoshenko\", got %s", path, got);
    cr_status s = read_number(v, path, POSITIVE, out, err);
    if (s) return s;
    if (*out > 2) return fail(err, "%s: must be <= 2, got %s", path, got);
    return CR_OK;
}

/* A number (the same for all n components) or an array of n numbers, each >= 0. */
static cr_status get_components(const cJSON *obj, const char *parent, const char *key, int n, double *out,
                                cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    for (int k = 0; k < n; ++k) out[k] = 0;
    if (!v) return CR_OK;
    if (cJSON_IsNumber(v)) {
        cr_status s = read_number(v, path, NONNEGATIVE, &out[0], err);
        for (int k = 1; k < n; ++k) out[k] = out[0];
        return s;
    }
    if (!cJSON_IsArray(v)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a number or an array of %d numbers, got %s", path, n, got);
    }
    return read_vector_rule(v, path, n, NONNEGATIVE, out, err);
}

/* rod.damping (docs/scenario.md "Damping"): Kelvin–Voigt relaxation times or viscous
 * coefficients of the six strain components, and drag per unit length. */
static cr_status parse_damping(const cJSON *rod, cr_damping_def *d, cr_error *err)
{
    const char *path = "rod.damping";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rod, "damping");
    cr_status s;
    memset(d, 0, sizeof *d);
    if (!v) return CR_OK;
    if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_DAMPING, err))) return s;
    if (cJSON_GetObjectItemCaseSensitive(v, "relaxation_time") && cJSON_GetObjectItemCaseSensitive(v, "coefficients"))
        return fail(err, "rod.damping.coefficients: give either rod.damping.relaxation_time or "
                         "rod.damping.coefficients, not both");
    const cJSON *coef = cJSON_GetObjectItemCaseSensitive(v, "coefficients");
    if (coef && !cJSON_IsArray(coef)) {
        char got[VALUE_TEXT_SIZE];
        describe(coef, got, sizeof got);
        return fail(err, "rod.damping.coefficients: expected an array of 6 numbers (N s for the forces, N m^2 s for "
                         "the moments), got %s", got);
    }
    double drag[3], rot[3];
    if ((s = get_components(v, path, "relaxation_time", 6, d->relaxation_time, err)) ||
        (s = get_components(v, path, "coefficients", 6, d->coefficients, err)) ||
        (s = get_components(v, path, "drag", 3, drag, err)) ||
        (s = get_components(v, path, "rotational_drag", 3, rot, err)))
        return s;
    d->drag = cr_v3(drag[0], drag[1], drag[2]);
    d->rotational_drag = cr_v3(rot[0], rot[1], rot[2]);
    return CR_OK;
}

static cr_status parse_sections(const cJSON *rod, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE], end_path[PATH_SIZE], got[VALUE_TEXT_SIZE], prev_text[32];
    cr_status s;
    if ((s = get_array(rod, "rod", "sections", 1, &list, err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n < 1) return fail(err, "rod.sections: expected at least 1 section, got []");
    st->sections = calloc((size_t)n, sizeof *st->sections);
    if (!st->sections) return no_memory(err);
    double prev = 0;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_section_segment *seg = &st->sections[i];
        int shape, last = (i == n - 1);
        path_index(path, "rod.sections", i);
        if ((s = expect_object(c, path, err))) return s;
        if ((s = get_enum(c, path, "shape", SHAPE_CHOICES, -1, &shape, err))) return s;
        if ((s = parse_shear_coefficient(c, path, shape, &seg->shear_coefficient, err))) return s;
        if ((s = check_keys(c, path, K_SECTION, err))) return s;
        seg->shape = (cr_section_shape)shape;
        /* Only the last end has a natural default (the rod's end); an omitted
         * inner end would be a guess. */
        if ((s = get_number(c, path, "end", !last, 1.0, ANY, &seg->xi_end, err))) return s;
        path_key(end_path, path, "end");
        format_number(seg->xi_end, got, sizeof got);
        if (!(seg->xi_end > prev)) {
            if (i == 0) return fail(err, "%s: must be > 0, got %s", end_path, got);
            format_number(prev, prev_text, sizeof prev_text);
            return fail(err, "%s: must be > rod.sections.%d.end = %s (ends strictly increase), got %s", end_path,
                        i - 1, prev_text, got);
        }
        if (seg->xi_end > 1) return fail(err, "%s: must be <= 1, got %s", end_path, got);
        if (last && seg->xi_end != 1)
            return fail(err, "%s: the last section must end at 1 (the rod's end), got %s", end_path, got);
        prev = seg->xi_end;
        seg->radius[0] = seg->radius[1] = 0;
        seg->width[0] = seg->width[1] = 0;
        seg->height[0] = seg->height[1] = 0;
        if (shape == CR_SECTION_CIRCLE) {
            if ((s = get_dimension(c, path, "radius", seg->radius, err))) return s;
        } else if (shape == CR_SECTION_RESULTANTS) {
            /* stiffnesses required and > 0; inertias optional (0: statics only) */
            double *req[6] = {seg->EA, seg->GA_y, seg->GA_z, seg->GJ, seg->EI_y, seg->EI_z};
            static const char *req_names[6] = {"EA", "GA_y", "GA_z", "GJ", "EI_y", "EI_z"};
            double *opt[3] = {seg->rhoA, seg->rhoI_y, seg->rhoI_z};
            static const char *opt_names[3] = {"rhoA", "rhoI_y", "rhoI_z"};
            for (int q = 0; q < 6; ++q)
                if ((s = get_profile(c, path, req_names[q], 1, POSITIVE, req[q], err))) return s;
            for (int q = 0; q < 3; ++q)
                if ((s = get_profile(c, path, opt_names[q], 0, NONNEGATIVE, opt[q], err))) return s;
        } else {
            if ((s = get_dimension(c, path, "width", seg->width, err))) return s;
            if ((s = get_dimension(c, path, "height", seg->height, err))) return s;
        }
    }
    def->section_count = n;
    def->sections = st->sections;
    return CR_OK;
}

static cr_status parse_rigid(const cJSON *rod, unsigned *mask, cr_error *err)
{
    const cJSON *list;
    char item[PATH_SIZE], prev[PATH_SIZE];
    cr_status s;
    *mask = 0;
    if ((s = get_array(rod, "rod", "rigid_strains", 0, &list, err)) || !list) return s;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        int k = 0;
        path_index(item, "rod.rigid_strains", i);
        if ((s = read_enum(c, item, RIGID_CHOICES, &k, err))) return s;
        if (*mask & (1u << k)) {
            int j = 0;
            for (const cJSON *d = list->child; d != c; d = d->next, ++j)
                if (!strcmp(d->valuestring, c->valuestring)) break;
            path_index(prev, "rod.rigid_strains", j);
            return fail(err, "%s: duplicate \"%s\" (already given as %s)", item, c->valuestring, prev);
        }
        *mask |= 1u << k;
    }
    return CR_OK;
}

static cr_status parse_rod(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const char *path = "rod";
    const cJSON *rod = cJSON_GetObjectItemCaseSensitive(root, "rod");
    cr_status s;
    if (!rod) return fail(err, "rod: missing");
    if ((s = expect_object(rod, path, err)) || (s = check_keys(rod, path, K_ROD, err))) return s;
    if ((s = get_int(rod, path, "elements", 1, 0, 1, &def->elements, err))) return s;
    if ((s = parse_material(rod, &def->material, err))) return s;
    if ((s = parse_reference(rod, def, st, err))) return s;

    if (def->reference.type != CR_REFERENCE_NODES) {
        if ((s = get_number(rod, path, "length", 1, 0, POSITIVE, &def->length, err))) return s;
    } else {
        /* The chord sum is the length (model.h); a length given as well must
         * agree, since silently ignoring it would hide a mistake. */
        double chords = 0, given;
        for (int i = 0; i < def->elements; ++i)
            chords += cr_v3_norm(cr_v3_sub(st->positions[i + 1], st->positions[i]));
        if ((s = get_number(rod, path, "length", 0, chords, POSITIVE, &given, err))) return s;
        if (fabs(given - chords) > 1e-9 * chords) {
            char a[32], b[32];
            format_number(given, a, sizeof a);
            format_number(chords, b, sizeof b);
            return fail(err, "rod.length: %s disagrees with the chord length %s of rod.reference.positions "
                             "(omit rod.length for a nodes reference)", a, b);
        }
        def->length = chords;
    }
    if ((s = parse_sections(rod, def, st, err))) return s;
    if ((s = parse_damping(rod, &def->damping, err))) return s;
    return parse_rigid(rod, &def->rigid_strains, err);
}

static cr_status parse_time(const cJSON *load, const char *parent, cr_time_function *f, cr_time_point **table,
                            cr_error *err);

/* The target rotation of a support: a quaternion (shortest arc), a rotation
 * vector, or an axis with an angle or a number of turns (any size). */
static cr_status parse_bc_rotation(const cJSON *c, const char *path, cr_bc_def *bc, cr_error *err)
{
    const char *given[4] = {NULL, NULL, NULL, NULL};
    int n = 0;
    static const char *const forms[4] = {"quaternion", "rotation", "axis", NULL};
    for (int k = 0; forms[k]; ++k)
        if (cJSON_GetObjectItemCaseSensitive(c, forms[k])) given[n++] = forms[k];
    int has_angle = cJSON_GetObjectItemCaseSensitive(c, "angle") != NULL;
    int has_turns = cJSON_GetObjectItemCaseSensitive(c, "turns") != NULL;
    cr_status s;
    if (n > 1) return fail(err, "%s: give one of quaternion, rotation, axis (+ angle or turns), not %s and %s", path,
                           given[0], given[1]);
    if ((has_angle || has_turns) && !(n == 1 && !strcmp(given[0], "axis")))
        return fail(err, "%s.%s: needs an axis", path, has_angle ? "angle" : "turns");
    if (has_angle && has_turns) return fail(err, "%s: give angle (rad) or turns, not both", path);
    if (n == 0) return CR_OK;
    if (!strcmp(given[0], "quaternion")) {
        bc->rotation_kind = CR_BC_ROTATION_QUATERNION;
        return get_unit_quat(c, path, "quaternion", &bc->orientation, err);
    }
    double v[3];
    if (!strcmp(given[0], "rotation")) {
        if ((s = get_vector(c, path, "rotation", 3, NULL, v, err))) return s;
        bc->rotation_kind = CR_BC_ROTATION_VECTOR;
        bc->rotation = cr_v3_load(v);
        return CR_OK;
    }
    char apath[PATH_SIZE];
    path_key(apath, path, "axis");
    if ((s = get_vector(c, path, "axis", 3, NULL, v, err))) return s;
    if ((s = normalize(v, 3, apath, cJSON_GetObjectItemCaseSensitive(c, "axis"), err))) return s;
    if (!has_angle && !has_turns) return fail(err, "%s.angle: missing (an axis needs angle in rad, or turns)", path);
    double angle;
    if (has_angle) {
        if ((s = get_number(c, path, "angle", 1, 0, ANY, &angle, err))) return s;
    } else {
        if ((s = get_number(c, path, "turns", 1, 0, ANY, &angle, err))) return s;
        angle *= 2 * M_PI;
    }
    bc->rotation_kind = CR_BC_ROTATION_VECTOR;
    bc->rotation = cr_v3_scale(cr_v3_load(v), angle);
    return CR_OK;
}

/* "motion": a table of poses, rows [t, x, y, z] or [t, x, y, z, rx, ry, rz]
 * (rotation vector in frame components). It replaces position, rotation and time. */
static cr_status parse_bc_motion(const cJSON *c, const char *path, cr_bc_def *bc, cr_bc_motion_point **table,
                                 cr_error *err)
{
    char mpath[PATH_SIZE], item[PATH_SIZE], got[VALUE_TEXT_SIZE], prev[32];
    const cJSON *rows;
    cr_status s;
    if ((s = get_array(c, path, "motion", 0, &rows, err)) || !rows) return s;
    path_key(mpath, path, "motion");
    static const char *const replaced[] = {"position", "rotation", "quaternion", "axis", "time", NULL};
    for (int k = 0; replaced[k]; ++k)
        if (cJSON_GetObjectItemCaseSensitive(c, replaced[k]))
            return fail(err, "%s: a table of poses replaces %s; give either", mpath, replaced[k]);
    int n = cJSON_GetArraySize(rows);
    if (n < 2) {
        describe(rows, got, sizeof got);
        return fail(err, "%s: expected at least 2 rows [t, x, y, z(, rx, ry, rz)], got %s", mpath, got);
    }
    *table = calloc((size_t)n, sizeof **table);
    if (!*table) return no_memory(err);
    unsigned hold = cr_bc_hold(bc);
    int i = 0;
    for (const cJSON *r = rows->child; r; r = r->next, ++i) {
        double v[7] = {0, 0, 0, 0, 0, 0, 0};
        path_index(item, mpath, i);
        int len = cJSON_IsArray(r) ? cJSON_GetArraySize(r) : 0;
        if (len != 4 && len != 7) {
            describe(r, got, sizeof got);
            return fail(err, "%s: expected [t, x, y, z] or [t, x, y, z, rx, ry, rz], got %s", item, got);
        }
        if ((s = read_vector(r, item, len, v, err))) return s;
        if (i > 0 && !(v[0] > (*table)[i - 1].t)) {
            format_number((*table)[i - 1].t, prev, sizeof prev);
            describe(r->child, got, sizeof got);
            return fail(err, "%s.0: t must be > %s (the previous row's), got %s", item, prev, got);
        }
        if (len == 7 && (v[4] != 0 || v[5] != 0 || v[6] != 0) && (hold & CR_HOLD_ROTATION) == 0)
            return fail(err, "%s: a rotation needs held rotations (this support holds none)", item);
        (*table)[i] = (cr_bc_motion_point){v[0], cr_v3(v[1], v[2], v[3]), cr_v3(v[4], v[5], v[6])};
    }
    if ((hold & CR_HOLD_TRANSLATION) == 0)
        return fail(err, "%s: this support holds no translation; a table of poses needs one", mpath);
    bc->motion = *table;
    bc->motion_count = n;
    return CR_OK;
}

static cr_status parse_bcs(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE], item[PATH_SIZE], got[VALUE_TEXT_SIZE];
    cr_status s;
    def->bc_count = 0;
    def->bcs = NULL;
    if ((s = get_array(root, "", "boundary_conditions", 0, &list, err)) || !list) return s;
    int n = cJSON_GetArraySize(list);
    if (n == 0) return CR_OK;
    st->bcs = calloc((size_t)n, sizeof *st->bcs);
    st->bc_time_tables = calloc((size_t)n, sizeof *st->bc_time_tables);
    st->bc_motions = calloc((size_t)n, sizeof *st->bc_motions);
    if (!st->bcs || !st->bc_time_tables || !st->bc_motions) return no_memory(err);
    st->bc_time_table_count = n;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_bc_def *bc = &st->bcs[i];
        int type, frame;
        *bc = cr_bc_default_def();
        path_index(path, "boundary_conditions", i);
        if ((s = expect_object(c, path, err))) return s;
        if ((s = get_enum(c, path, "type", BC_CHOICES, -1, &type, err))) return s;
        if ((s = check_keys(c, path, K_BC, err))) return s;
        bc->type = (cr_bc_type)type;
        if ((s = get_node(c, path, def->elements, &bc->node, err))) return s;
        if ((s = get_enum(c, path, "frame", BC_FRAME_CHOICES, 0, &frame, err))) return s;
        bc->frame = frame ? CR_FRAME_BODY : CR_FRAME_INERTIAL;
        if (type == CR_BC_SUPPORT) {
            const cJSON *hold;
            if ((s = get_array(c, path, "hold", 1, &hold, err))) return s;
            path_key(item, path, "hold");
            if (cJSON_GetArraySize(hold) == 0)
                return fail(err, "%s: expected at least one of x, y, z, rx, ry, rz, got [] (a free node needs no "
                                 "support)", item);
            int j = 0;
            for (const cJSON *h = hold->child; h; h = h->next, ++j) {
                char hp[PATH_SIZE];
                int which;
                path_index(hp, item, j);
                if ((s = read_enum(h, hp, HOLD_NAMES, &which, err))) return s;
                if (bc->hold & (1u << which)) {
                    describe(h, got, sizeof got);
                    return fail(err, "%s: %s is already held", hp, got);
                }
                bc->hold |= 1u << which;
            }
        }
        if (type == CR_BC_POSE) {
            double p[3];
            if ((s = get_vector(c, path, "position", 3, NULL, p, err))) return s;
            bc->position = cr_v3_load(p);
            bc->has_position = 1;
            if ((s = get_unit_quat(c, path, "quaternion", &bc->orientation, err))) return s;
            bc->rotation_kind = CR_BC_ROTATION_QUATERNION;
        } else {
            if (cJSON_GetObjectItemCaseSensitive(c, "position")) {
                double p[3];
                if ((s = get_vector(c, path, "position", 3, NULL, p, err))) return s;
                bc->position = cr_v3_load(p);
                bc->has_position = 1;
                if ((cr_bc_hold(bc) & CR_HOLD_TRANSLATION) == 0)
                    return fail(err, "%s.position: this support holds no translation (hold has none of x, y, z)",
                                path);
            }
            if ((s = parse_bc_rotation(c, path, bc, err))) return s;
            unsigned rot = cr_bc_hold(bc) & CR_HOLD_ROTATION;
            if (bc->rotation_kind != CR_BC_ROTATION_NONE && rot == 0)
                return fail(err, "%s: a target rotation needs held rotations (hold has none of rx, ry, rz)", path);
        }
        if ((s = parse_time(c, path, &bc->time, &st->bc_time_tables[i], err))) return s;
        if ((s = parse_bc_motion(c, path, bc, &st->bc_motions[i], err))) return s;
        bc->stages = 0; /* set by parse_stage_masks() once the stages are known */
    }
    def->bc_count = n;
    def->bcs = st->bcs;
    return CR_OK;
}

/* ---- rigid bodies ---- */

/* Principal moments of a symmetric 3x3 tensor, ascending: the closed-form
 * eigenvalues of a symmetric 3x3 matrix (O. K. Smith, CACM 4(4), 1961). Exact
 * enough for the plausibility check below, which tolerates 1e-12 relative. */
static void sym3_eigenvalues(const double a[3][3], double ev[3])
{
    double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    double q = (a[0][0] + a[1][1] + a[2][2]) / 3;
    if (p1 == 0) {
        ev[0] = a[0][0];
        ev[1] = a[1][1];
        ev[2] = a[2][2];
    } else {
        double d0 = a[0][0] - q, d1 = a[1][1] - q, d2 = a[2][2] - q;
        double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2 * p1) / 6);
        /* r = det((A - qI)/p) / 2, clamped against rounding */
        double b01 = a[0][1] / p, b02 = a[0][2] / p, b12 = a[1][2] / p;
        double b00 = d0 / p, b11 = d1 / p, b22 = d2 / p;
        double r = (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02)) / 2;
        r = r < -1 ? -1 : (r > 1 ? 1 : r);
        double phi = acos(r) / 3;
        ev[2] = q + 2 * p * cos(phi);
        ev[0] = q + 2 * p * cos(phi + 2 * M_PI / 3);
        ev[1] = 3 * q - ev[0] - ev[2];
    }
    /* sort (the diagonal case is unordered) */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (ev[j] < ev[i]) {
                double t = ev[i];
                ev[i] = ev[j];
                ev[j] = t;
            }
}

/* Cholesky factorization succeeds exactly when a symmetric matrix is positive definite. */
static int positive_definite(const double a[3][3])
{
    double l[3][3] = {{0}};
    for (int j = 0; j < 3; ++j) {
        double d = a[j][j];
        for (int k = 0; k < j; ++k) d -= l[j][k] * l[j][k];
        if (!(d > 0)) return 0;
        l[j][j] = sqrt(d);
        for (int i = j + 1; i < 3; ++i) {
            double v = a[i][j];
            for (int k = 0; k < j; ++k) v -= l[i][k] * l[j][k];
            l[i][j] = v / l[j][j];
        }
    }
    return 1;
}

/* Principal moments must satisfy I_a <= I_b + I_c (a body's second moments of
 * mass are >= 0); returns the index of a violating moment, or -1. The 1e-12
 * relative slack admits flat bodies (I_z = I_x + I_y) computed with rounding. */
static int triangle_violation(const double m[3])
{
    double sum = m[0] + m[1] + m[2];
    for (int a = 0; a < 3; ++a)
        if (m[a] - (m[(a + 1) % 3] + m[(a + 2) % 3]) > 1e-12 * sum) return a;
    return -1;
}

static cr_status parse_inertia_tensor(const cJSON *v, const char *path, double t[3][3], cr_error *err)
{
    char got[VALUE_TEXT_SIZE], row[PATH_SIZE], a[32], b[32];
    cr_status s;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a 3x3 array [[Ixx, Ixy, Ixz], [Iyx, Iyy, Iyz], [Izx, Izy, Izz]], got %s",
                    path, got);
    }
    for (int i = 0; i < 3; ++i) {
        path_index(row, path, i);
        if ((s = read_vector(cJSON_GetArrayItem(v, i), row, 3, t[i], err))) return s;
    }
    double scale = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) scale = fmax(scale, fabs(t[i][j]));
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (fabs(t[i][j] - t[j][i]) > 1e-12 * scale) {
                format_number(t[i][j], a, sizeof a);
                format_number(t[j][i], b, sizeof b);
                return fail(err, "%s: must be symmetric (relative tolerance 1e-12), but entry %d.%d = %s and entry "
                                 "%d.%d = %s",
                            path, i, j, a, j, i, b);
            }
    /* store the exactly symmetric part */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) t[i][j] = t[j][i] = 0.5 * (t[i][j] + t[j][i]);
    if (!positive_definite(t)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: must be positive definite, got %s", path, got);
    }
    double ev[3];
    sym3_eigenvalues(t, ev);
    if (triangle_violation(ev) >= 0) {
        /* computed values: 12 digits hide the rounding of the eigenvalue formula */
        char c[32];
        snprintf(a, sizeof a, "%.12g", ev[0]);
        snprintf(b, sizeof b, "%.12g", ev[1]);
        snprintf(c, sizeof c, "%.12g", ev[2]);
        return fail(err, "%s: the principal moments %s, %s, %s violate the triangle inequality (the largest must "
                         "be <= the sum of the other two for a physical body)",
                    path, a, b, c);
    }
    return CR_OK;
}

static cr_status parse_rigid_bodies(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE], key[PATH_SIZE], other[PATH_SIZE], got[VALUE_TEXT_SIZE];
    cr_status s;
    def->rigid_body_count = 0;
    def->rigid_bodies = NULL;
    if ((s = get_array(root, "", "rigid_bodies", 0, &list, err)) || !list) return s;
    int n = cJSON_GetArraySize(list);
    if (n == 0) return CR_OK;
    st->bodies = calloc((size_t)n, sizeof *st->bodies);
    if (!st->bodies) return no_memory(err);
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_rigid_body_def *b = &st->bodies[i];
        const char *name = "";
        double v[3];
        path_index(path, "rigid_bodies", i);
        if ((s = expect_object(c, path, err)) || (s = check_keys(c, path, K_BODY, err))) return s;
        /* every field explicitly, so nothing depends on cr_rigid_body_default_def() */
        memset(b->name, 0, sizeof b->name);
        b->node = 0;
        b->mass = 0;
        b->center = cr_v3(0, 0, 0);
        b->inertia = cr_m3_zero();
        b->orientation = cr_q_identity();

        path_key(key, path, "name");
        if (!cJSON_GetObjectItemCaseSensitive(c, "name")) return fail(err, "%s: missing", key);
        if ((s = get_string(c, path, "name", "", &name, err))) return s;
        if (!*name) return fail(err, "%s: must not be empty", key);
        if (strlen(name) >= sizeof b->name) {
            describe(cJSON_GetObjectItemCaseSensitive(c, "name"), got, sizeof got);
            return fail(err, "%s: longer than %d characters, got %s", key, (int)sizeof b->name - 1, got);
        }
        for (int j = 0; j < i; ++j)
            if (!strcmp(st->bodies[j].name, name)) {
                path_index(other, "rigid_bodies", j);
                return fail(err, "%s: duplicate name \"%s\" (already used by %s)", key, name, other);
            }
        memcpy(b->name, name, strlen(name) + 1);

        if ((s = get_node(c, path, def->elements, &b->node, err))) return s;
        if ((s = get_number(c, path, "mass", 1, 0, POSITIVE, &b->mass, err))) return s;
        if ((s = get_vector(c, path, "center", 3, NULL, v, err))) return s;
        b->center = cr_v3_load(v);
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(c, "orientation");
        if (q) {
            path_key(key, path, "orientation");
            if ((s = read_unit_quat(q, key, &b->orientation, err))) return s;
        }

        const cJSON *principal = cJSON_GetObjectItemCaseSensitive(c, "inertia");
        const cJSON *tensor = cJSON_GetObjectItemCaseSensitive(c, "inertia_tensor");
        if (principal && tensor)
            return fail(err, "%s: give the inertia either as inertia (principal moments) or as inertia_tensor, "
                             "not both",
                        path);
        if (!principal && !tensor) {
            path_key(key, path, "inertia");
            return fail(err, "%s: missing (give inertia [Ixx, Iyy, Izz] or inertia_tensor [[...], [...], [...]])",
                        key);
        }
        if (tensor) {
            path_key(key, path, "inertia_tensor");
            if ((s = parse_inertia_tensor(tensor, key, b->inertia.m, err))) return s;
            continue;
        }
        double m[3];
        path_key(key, path, "inertia");
        if ((s = read_vector_rule(principal, key, 3, POSITIVE, m, err))) return s;
        int a = triangle_violation(m);
        if (a >= 0) {
            char x[32], y[32], z[32];
            format_number(m[a], x, sizeof x);
            format_number(m[(a + 1) % 3], y, sizeof y);
            format_number(m[(a + 2) % 3], z, sizeof z);
            return fail(err, "%s.%d: principal moment %s exceeds the sum %s + %s of the other two (the triangle "
                             "inequality of a physical body)",
                        key, a, x, y, z);
        }
        /* inertial components of the body-axis tensor: R diag(m) R^T, R = Exp(orientation),
         * built from one triangle so the result is exactly symmetric */
        cr_mat3 r = cr_q_exp(b->orientation);
        for (int j = 0; j < 3; ++j)
            for (int k = j; k < 3; ++k) {
                double t = 0;
                for (int l = 0; l < 3; ++l) t += r.m[j][l] * m[l] * r.m[k][l];
                b->inertia.m[j][k] = b->inertia.m[k][j] = t;
            }
    }
    def->rigid_body_count = n;
    def->rigid_bodies = st->bodies;
    return CR_OK;
}

static cr_status parse_offset(const cJSON *load, const char *parent, cr_load_def *ld, cr_offset_point **table,
                              cr_error *err)
{
    char path[PATH_SIZE], item[PATH_SIZE], got[VALUE_TEXT_SIZE], a[32], b[32], c1[32], d1[32];
    path_key(path, parent, "offset");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(load, "offset");
    cr_tendon_offset *off = &ld->offset;
    cr_status s;
    if (!v) return fail(err, "%s: missing", path);
    if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_OFFSET, err))) return s;
#define HAS(k) (cJSON_GetObjectItemCaseSensitive(v, k) != NULL)
    int constant = HAS("y") || HAS("z"), fraction = HAS("radius_fraction") || HAS("angle_deg"), tab = HAS("table");
#undef HAS
    if (constant + fraction + tab != 1) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected exactly one of the forms {y, z}, {radius_fraction, angle_deg} or {table}, got %s",
                    path, got);
    }
    if (constant) {
        off->type = CR_OFFSET_CONSTANT;
        if ((s = get_number(v, path, "y", 0, 0.0, ANY, &off->y, err))) return s;
        return get_number(v, path, "z", 0, 0.0, ANY, &off->z, err);
    }
    if (fraction) {
        double deg = 0;
        off->type = CR_OFFSET_RADIUS_FRACTION;
        if ((s = get_number(v, path, "radius_fraction", 0, 1.0, POSITIVE, &off->fraction, err))) return s;
        if ((s = get_number(v, path, "angle_deg", 0, 0.0, ANY, &deg, err))) return s;
        off->angle = deg * (3.14159265358979323846 / 180.0);
        return CR_OK;
    }
    const cJSON *rows;
    off->type = CR_OFFSET_TABLE;
    if ((s = get_array(v, path, "table", 1, &rows, err))) return s;
    path_key(path, path, "table");
    int n = cJSON_GetArraySize(rows);
    if (n < 2) {
        describe(rows, got, sizeof got);
        return fail(err, "%s: expected at least 2 rows [xi, y, z], got %s", path, got);
    }
    *table = malloc((size_t)n * sizeof **table);
    if (!*table) return no_memory(err);
    int i = 0;
    for (const cJSON *c = rows->child; c; c = c->next, ++i) {
        double r[3];
        path_index(item, path, i);
        if ((s = read_vector(c, item, 3, r, err))) return s;
        format_number(r[0], got, sizeof got);
        if (r[0] < 0 || r[0] > 1) return fail(err, "%s.0: xi must be in [0, 1], got %s", item, got);
        if (i > 0 && !(r[0] > (*table)[i - 1].xi)) {
            format_number((*table)[i - 1].xi, a, sizeof a);
            return fail(err, "%s.0: xi must be > %s (the previous row's; xi strictly increases), got %s", item, a,
                        got);
        }
        (*table)[i] = (cr_offset_point){r[0], r[1], r[2]};
    }
    if ((*table)[0].xi > ld->xi_start || (*table)[n - 1].xi < ld->xi_end) {
        format_number(ld->xi_start, a, sizeof a);
        format_number(ld->xi_end, b, sizeof b);
        format_number((*table)[0].xi, c1, sizeof c1);
        format_number((*table)[n - 1].xi, d1, sizeof d1);
        return fail(err, "%s: must cover [xi_start, xi_end] = [%s, %s], but spans [%s, %s]", path, a, b, c1, d1);
    }
    off->point_count = n;
    off->points = *table;
    return CR_OK;
}

/* The load's "time" object → a time function (constant 1 when absent). */
static cr_status parse_time(const cJSON *load, const char *parent, cr_time_function *f, cr_time_point **table,
                            cr_error *err)
{
    char path[PATH_SIZE], item[PATH_SIZE], got[32], prev[32];
    path_key(path, parent, "time");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(load, "time");
    int type;
    cr_status s;
    /* every field explicitly; the ones a type does not use stay 0 */
    f->type = CR_TIME_CONSTANT;
    f->t0 = f->t1 = 0;
    f->amplitude = f->frequency = f->phase = f->offset = 0;
    f->point_count = 0;
    f->points = NULL;
    if (!v) return CR_OK;
    if ((s = expect_object(v, path, err))) return s;
    if ((s = get_enum(v, path, "type", TIME_CHOICES, -1, &type, err))) return s;
    if ((s = check_keys(v, path, K_TIME, err))) return s;
    f->type = (cr_time_function_type)type;
    switch (type) {
    case CR_TIME_RAMP:
    case CR_TIME_SMOOTH_STEP:
        if ((s = get_number(v, path, "t0", 1, 0, ANY, &f->t0, err))) return s;
        if ((s = get_number(v, path, "t1", 1, 0, ANY, &f->t1, err))) return s;
        if (!(f->t1 > f->t0)) {
            format_number(f->t0, prev, sizeof prev);
            format_number(f->t1, got, sizeof got);
            return fail(err, "%s.t1: must be > t0 = %s, got %s", path, prev, got);
        }
        return CR_OK;
    case CR_TIME_SINE:
        if ((s = get_number(v, path, "amplitude", 0, 1.0, ANY, &f->amplitude, err))) return s;
        if ((s = get_number(v, path, "frequency", 1, 0, NONNEGATIVE, &f->frequency, err))) return s;
        if ((s = get_number(v, path, "phase", 0, 0.0, ANY, &f->phase, err))) return s;
        if ((s = get_number(v, path, "offset", 0, 0.0, ANY, &f->offset, err))) return s;
        /* optional window [t0, t1]: 0 outside (a pulse), the whole time axis when absent */
        if ((s = get_number(v, path, "t0", 0, 0.0, ANY, &f->t0, err))) return s;
        if ((s = get_number(v, path, "t1", 0, 0.0, ANY, &f->t1, err))) return s;
        if (cJSON_GetObjectItemCaseSensitive(v, "t1") && !(f->t1 > f->t0)) {
            format_number(f->t0, prev, sizeof prev);
            format_number(f->t1, got, sizeof got);
            return fail(err, "%s.t1: must be > t0 = %s, got %s", path, prev, got);
        }
        return CR_OK;
    case CR_TIME_TABLE: {
        const cJSON *rows;
        if ((s = get_array(v, path, "points", 1, &rows, err))) return s;
        path_key(path, path, "points");
        int n = cJSON_GetArraySize(rows);
        if (n < 2) {
            char text[VALUE_TEXT_SIZE];
            describe(rows, text, sizeof text);
            return fail(err, "%s: expected at least 2 rows [t, value], got %s", path, text);
        }
        *table = malloc((size_t)n * sizeof **table);
        if (!*table) return no_memory(err);
        int i = 0;
        for (const cJSON *c = rows->child; c; c = c->next, ++i) {
            double r[2];
            path_index(item, path, i);
            if ((s = read_vector(c, item, 2, r, err))) return s;
            if (i > 0 && !(r[0] > (*table)[i - 1].t)) {
                format_number((*table)[i - 1].t, prev, sizeof prev);
                format_number(r[0], got, sizeof got);
                return fail(err, "%s.0: t must be > %s (the previous row's; t strictly increases), got %s", item,
                            prev, got);
            }
            (*table)[i] = (cr_time_point){r[0], r[1]};
        }
        f->point_count = n;
        f->points = *table;
        return CR_OK;
    }
    default: /* CR_TIME_CONSTANT */
        return CR_OK;
    }
}

/* The rigid body named by a point load's "body". */
static cr_status get_body(const cJSON *load, const char *parent, const cr_rod_def *def, int *out, cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE], names[256];
    path_key(path, parent, "body");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(load, "body");
    describe(v, got, sizeof got);
    if (!cJSON_IsString(v)) return fail(err, "%s: expected the name of a rigid body (a string), got %s", path, got);
    for (int j = 0; j < def->rigid_body_count; ++j)
        if (!strcmp(def->rigid_bodies[j].name, v->valuestring)) {
            *out = j;
            return CR_OK;
        }
    if (def->rigid_body_count == 0) return fail(err, "%s: unknown rigid body %s (rigid_bodies is empty)", path, got);
    size_t k = 0;
    names[0] = '\0';
    for (int j = 0; j < def->rigid_body_count && k + 1 < sizeof names; ++j) {
        int w = snprintf(names + k, sizeof names - k, "%s%s", j ? ", " : "", def->rigid_bodies[j].name);
        if (w < 0) break;
        k += (size_t)w;
    }
    if (k >= sizeof names) memcpy(names + sizeof names - 4, "...", 4);
    return fail(err, "%s: unknown rigid body %s (expected one of %s)", path, got, names);
}

static cr_status parse_loads(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE], got[32], other[32];
    cr_status s;
    def->load_count = 0;
    def->loads = NULL;
    if ((s = get_array(root, "", "loads", 0, &list, err)) || !list) return s;
    int n = cJSON_GetArraySize(list);
    if (n == 0) return CR_OK;
    st->loads = calloc((size_t)n, sizeof *st->loads);
    st->tables = calloc((size_t)n, sizeof *st->tables);
    st->time_tables = calloc((size_t)n, sizeof *st->time_tables);
    if (!st->loads || !st->tables || !st->time_tables) return no_memory(err);
    st->table_count = n;
    st->time_table_count = n;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_load_def *ld = &st->loads[i];
        int type, frame = CR_FRAME_INERTIAL;
        double val[3] = {0, 0, 0};
        path_index(path, "loads", i);
        if ((s = expect_object(c, path, err))) return s;
        if ((s = get_enum(c, path, "type", LOAD_CHOICES, -1, &type, err))) return s;
        if ((s = check_keys(c, path, K_LOAD, err))) return s;
        /* every field explicitly, so nothing depends on cr_load_default_def() */
        ld->type = (cr_load_type)type;
        ld->node = 0;
        ld->body = -1;
        ld->stages = 0; /* set by parse_stage_masks() once the stages are known */
        ld->frame = CR_FRAME_INERTIAL;
        ld->value = cr_v3(0, 0, 0);
        ld->tension = 0;
        ld->offset = (cr_tendon_offset){CR_OFFSET_CONSTANT, 0, 0, 0, 0, 0, NULL};
        ld->xi_start = 0;
        ld->xi_end = 1;
        switch (type) {
        case CR_LOAD_FORCE:
        case CR_LOAD_MOMENT: {
            int has_node = cJSON_GetObjectItemCaseSensitive(c, "node") != NULL;
            int has_body = cJSON_GetObjectItemCaseSensitive(c, "body") != NULL;
            if (has_node && has_body)
                return fail(err, "%s: give either node (a load on the rod) or body (a load on a rigid body), not both",
                            path);
            if (!has_node && !has_body)
                return fail(err, "%s.node: missing (give node, or body: the name of a rigid body)", path);
            if (has_body) {
                if ((s = get_body(c, path, def, &ld->body, err))) return s;
            } else {
                if ((s = get_node(c, path, def->elements, &ld->node, err))) return s;
            }
        }
            /* fall through - a point load also has a value and a frame */
        case CR_LOAD_FORCE_DENSITY:
        case CR_LOAD_MOMENT_DENSITY:
            if ((s = get_vector(c, path, "value", 3, NULL, val, err))) return s;
            if ((s = get_enum(c, path, "frame", FRAME_CHOICES, CR_FRAME_INERTIAL, &frame, err))) return s;
            ld->value = cr_v3_load(val);
            ld->frame = (cr_frame)frame;
            break;
        case CR_LOAD_GRAVITY:
            if ((s = get_vector(c, path, "value", 3, NULL, val, err))) return s;
            ld->value = cr_v3_load(val);
            {
                cr_section_resultants sr;
                cr_section_resultants_eval(def, 0.5, &sr);
                if (!(sr.rhoA > 0)) {
                    format_number(def->material.rho, got, sizeof got);
                    if (def->material.rho > 0) /* the area underflows (e.g. a radius of 5e-324) */
                        return fail(err, "%s: a gravity load needs a mass per length, but rod.material.rho = %s "
                                         "and the section at xi = 0.5 give rhoA = %g (check the dimensions in "
                                         "rod.sections)", path, got, sr.rhoA);
                    return fail(err, "%s: a gravity load needs a mass per length: rod.material.rho > 0 (got %s) "
                                     "or rhoA in rod.sections", path, got);
                }
            }
            break;
        case CR_LOAD_CHAMBER:
            if ((s = get_number(c, path, "pressure", 1, 0, NONNEGATIVE, &ld->pressure, err))) return s;
            if ((s = get_number(c, path, "area", 1, 0, POSITIVE, &ld->area, err))) return s;
            if ((s = parse_offset(c, path, ld, &st->tables[i], err))) return s;
            break;
        default: /* CR_LOAD_TENDON */
            if ((s = get_number(c, path, "tension", 1, 0, NONNEGATIVE, &ld->tension, err))) return s;
            if ((s = get_number(c, path, "xi_start", 0, 0.0, ANY, &ld->xi_start, err))) return s;
            if ((s = get_number(c, path, "xi_end", 0, 1.0, ANY, &ld->xi_end, err))) return s;
            format_number(ld->xi_start, got, sizeof got);
            if (ld->xi_start < 0 || ld->xi_start >= 1)
                return fail(err, "%s.xi_start: must be in [0, 1), got %s", path, got);
            format_number(ld->xi_end, other, sizeof other);
            if (ld->xi_end > 1) return fail(err, "%s.xi_end: must be <= 1, got %s", path, other);
            if (!(ld->xi_end > ld->xi_start))
                return fail(err, "%s.xi_end: must be > xi_start = %s, got %s", path, got, other);
            if ((s = parse_offset(c, path, ld, &st->tables[i], err))) return s;
            break;
        }
        if ((s = parse_time(c, path, &ld->time, &st->time_tables[i], err))) return s;
    }
    def->load_count = n;
    def->loads = st->loads;
    return CR_OK;
}

/* A static stage's "path" and its "arc_length" object (docs/scenario.md). */
static cr_status parse_arc_length(const cJSON *c, const char *path, cr_static_options *o, cr_error *err)
{
    cr_status s;
    char where[PATH_SIZE], list[256];
    if ((s = get_enum(c, path, "path", PATH_CHOICES, 0, &o->arc_length, err))) return s;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arc_length");
    path_key(where, path, "arc_length");
    if (a && !o->arc_length) return fail(err, "%s: given, but the stage's path is not \"arc_length\"", where);
    if (o->arc_length && cJSON_GetObjectItemCaseSensitive(c, "load_steps"))
        return fail(err, "%s.load_steps: not used on an arc-length path (its steps are arc_length.steps)", path);
    if (!a) return CR_OK;
    if ((s = expect_object(a, where, err))) return s;
    for (const cJSON *k = a->child; k; k = k->next)
        if (list_index(ARC_LENGTH_KEYS, k->string ? k->string : "") < 0) {
            list_join(ARC_LENGTH_KEYS, list, sizeof list);
            return fail(err, "%s.%s: unknown key (expected one of %s)", where, k->string ? k->string : "", list);
        }
    if ((s = get_int(a, where, "steps", 0, 100, 1, &o->arc_steps, err))) return s;
    if ((s = get_number(a, where, "initial", 0, 0.05, POSITIVE, &o->arc_initial, err))) return s;
    return get_number(a, where, "max_load_factor", 0, 1.0, POSITIVE, &o->arc_max_load_factor, err);
}

/* Both option sets are filled for every stage, so the struct is fully defined
 * whatever its type. t_end and output_dt have no default (a dynamic stage must
 * give them); they stay 0 in static stages. */
static void default_stage(cr_stage_def *stage)
{
    stage->type = CR_STAGE_STATIC;
    stage->statics.load_steps = AUTO_FIRST_LOAD_STEPS; /* "auto" */
    stage->statics.adaptive = 1;
    stage->statics.max_iterations = 25;
    stage->statics.atol = 1e-10;
    stage->statics.rtol = 1e-6;
    stage->statics.max_halvings = 10;
    stage->statics.max_history = 64;
    stage->statics.stability = CR_STABILITY_LEAVE;
    stage->statics.stability_modes = 4;
    stage->statics.arc_steps = 100;
    stage->statics.arc_initial = 0.05;
    stage->statics.arc_max_load_factor = 1.0;
    stage->dynamics.t_end = 0;
    stage->dynamics.rtol = 1e-3;
    stage->dynamics.atol = 1e-6;
    stage->dynamics.output_dt = 0;
    stage->dynamics.snapshot_dt = 0;
    stage->dynamics.h_init = 0;
    stage->dynamics.h_max = 0;
    stage->dynamics.max_steps = 10000000;
    stage->dynamics.checkpoint_interval = 30;
}

static cr_status parse_dynamic_stage(const cJSON *c, const char *path, cr_dynamic_options *d, cr_error *err)
{
    cr_status s;
    int max_steps;
    if ((s = get_number(c, path, "t_end", 1, 0, POSITIVE, &d->t_end, err))) return s;
    if ((s = get_number(c, path, "rtol", 0, 1e-3, POSITIVE, &d->rtol, err))) return s;
    if ((s = get_number(c, path, "atol", 0, 1e-6, POSITIVE, &d->atol, err))) return s;
    if ((s = get_number(c, path, "output_dt", 1, 0, POSITIVE, &d->output_dt, err))) return s;
    if ((s = get_number(c, path, "snapshot_dt", 0, 0.0, NONNEGATIVE, &d->snapshot_dt, err))) return s;
    if ((s = get_number(c, path, "h_init", 0, 0.0, NONNEGATIVE, &d->h_init, err))) return s;
    if ((s = get_number(c, path, "h_max", 0, 0.0, NONNEGATIVE, &d->h_max, err))) return s;
    if ((s = get_int(c, path, "max_steps", 0, 10000000, 1, &max_steps, err))) return s;
    d->max_steps = max_steps;
    if ((s = get_number(c, path, "checkpoint_interval", 0, 30.0, NONNEGATIVE, &d->checkpoint_interval, err)))
        return s;
    if ((s = get_number(c, path, "time_step", 0, 0.0, POSITIVE, &d->time_step, err))) return s;
    /* a first step above the step limit contradicts itself (0 means automatic / no limit) */
    if (d->h_max > 0 && d->h_init > d->h_max) {
        char a[32], b[32];
        format_number(d->h_max, a, sizeof a);
        format_number(d->h_init, b, sizeof b);
        return fail(err, "%s.h_init: must be <= h_max = %s, got %s", path, a, b);
    }
    return CR_OK;
}

/* The output counts of a dynamic stage ending at time t_stop (docs/scenario.md, "dynamic"):
 * rows and snapshots are bounded, and their interval is far above the resolution of the
 * times, so that no output loop can run (near) forever: a snapshot_dt of 1e-30 looped at
 * t = 0 without end, an output_dt of 1e-308 asked for 9e308 rows. */
#define MAX_OUTPUTS_PER_STAGE 1e8
#define MIN_OUTPUT_DT_REL 1e-12
static cr_status check_output_counts(const cr_dynamic_options *d, const char *path, double t_stop, cr_error *err)
{
    char a[32], b[32];
    if (!isfinite(t_stop)) return fail(err, "%s.t_end: the dynamic stages end at t = inf (their sum overflows)", path);
    const char *keys[2] = {"output_dt", "snapshot_dt"};
    const double dt[2] = {d->output_dt, d->snapshot_dt};
    for (int k = 0; k < 2; ++k) {
        if (k == 1 && dt[k] == 0) continue; /* the default: every output, at most 500 */
        format_number(dt[k], a, sizeof a);
        format_number(d->t_end, b, sizeof b);
        double count = d->t_end / dt[k];
        if (!(count <= MAX_OUTPUTS_PER_STAGE))
            return fail(err, "%s.%s: %s s gives %.3g %s over t_end = %s s, more than %g per stage", path, keys[k], a,
                        count, k ? "snapshots" : "rows of series.csv", b, MAX_OUTPUTS_PER_STAGE);
        if (!(dt[k] >= MIN_OUTPUT_DT_REL * t_stop)) {
            format_number(t_stop, b, sizeof b);
            return fail(err,
                        "%s.%s: %s s is below %g times the stage's end time t = %s s: the output times could not "
                        "be told apart",
                        path, keys[k], a, MIN_OUTPUT_DT_REL, b);
        }
    }
    return CR_OK;
}

static cr_status parse_stages(const cJSON *root, cr_scenario *sc, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE];
    cr_status s;
    if ((s = get_array(root, "", "stages", 0, &list, err))) return s;
    int n = list ? cJSON_GetArraySize(list) : 1;
    if (n == 0) return fail(err, "stages: expected at least 1 stage, got []");
    sc->stages = calloc((size_t)n, sizeof *sc->stages);
    if (!sc->stages) return no_memory(err);
    sc->stage_count = n;
    if (!list) {
        default_stage(&sc->stages[0]);
        return CR_OK;
    }
    int i = 0;
    double t_now = 0; /* the time dynamic stages have reached (static stages do not advance it) */
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_stage_def *stage = &sc->stages[i];
        cr_static_options *o = &stage->statics;
        int type;
        default_stage(stage);
        path_index(path, "stages", i);
        if ((s = expect_object(c, path, err))) return s;
        if ((s = get_enum(c, path, "type", STAGE_CHOICES, CR_STAGE_STATIC, &type, err))) return s;
        if ((s = check_keys(c, path, K_STAGE, err))) return s;
        stage->type = (cr_stage_type)type;
        if (type == CR_STAGE_DYNAMIC) {
            if ((s = parse_dynamic_stage(c, path, &stage->dynamics, err))) return s;
            t_now += stage->dynamics.t_end;
            if ((s = check_output_counts(&stage->dynamics, path, t_now, err))) return s;
            continue;
        }
        const cJSON *ls = cJSON_GetObjectItemCaseSensitive(c, "load_steps");
        if (!ls || (cJSON_IsString(ls) && strcmp(ls->valuestring, "auto") == 0)) {
            /* adaptive: a first quarter of the way, then growing after easy steps (newton.c) */
            o->adaptive = 1;
            o->load_steps = AUTO_FIRST_LOAD_STEPS;
        } else if (cJSON_IsString(ls)) {
            char where[PATH_SIZE], got[VALUE_TEXT_SIZE];
            path_key(where, path, "load_steps");
            describe(ls, got, sizeof got);
            return fail(err, "%s: expected a whole number >= 1 or \"auto\", got %s", where, got);
        } else {
            o->adaptive = 0;
            if ((s = get_int(c, path, "load_steps", 0, 10, 1, &o->load_steps, err))) return s;
        }
        if ((s = get_int(c, path, "max_iterations", 0, 25, 1, &o->max_iterations, err))) return s;
        if ((s = get_number(c, path, "atol", 0, 1e-10, POSITIVE, &o->atol, err))) return s;
        if ((s = get_number(c, path, "rtol", 0, 1e-6, POSITIVE, &o->rtol, err))) return s;
        if ((s = get_int(c, path, "max_halvings", 0, 10, 0, &o->max_halvings, err))) return s;
        const cJSON *stab = cJSON_GetObjectItemCaseSensitive(c, "stability");
        if (stab) { /* the stability estimate of the end state (docs/scenario.md) */
            char got[VALUE_TEXT_SIZE];
            if (cJSON_IsString(stab) && !strcmp(stab->valuestring, "keep")) {
                o->stability = CR_STABILITY_KEEP; /* estimated, and an unstable end state kept */
            } else if (!cJSON_IsBool(stab)) {
                describe(stab, got, sizeof got);
                return fail(err, "%s.stability: expected true, false or \"keep\", got %s", path, got);
            } else {
                o->stability = cJSON_IsTrue(stab) ? CR_STABILITY_LEAVE : CR_STABILITY_OFF;
            }
        }
        if ((s = parse_arc_length(c, path, o, err))) return s;
    }
    return CR_OK;
}

/* loads.k.stages → bit masks; needs the stage count, so it runs after parse_stages(). */
/* The "stages" array of obj at path → a bit mask (absent: 0 = every stage). */
static cr_status parse_stage_mask(const cJSON *obj, const char *parent, const cr_scenario *sc, unsigned *out,
                                  cr_error *err)
{
    char path[PATH_SIZE], item[PATH_SIZE], prev[PATH_SIZE], got[VALUE_TEXT_SIZE];
    const int bits = (int)(sizeof(unsigned) * CHAR_BIT);
    cr_status s;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "stages");
    unsigned mask = 0;
    *out = 0;
    if (!v) return CR_OK;
    path_key(path, parent, "stages");
    if ((s = expect_array(v, path, err))) return s;
    /* [] would read as mask 0 = every stage, the opposite of what it says */
    if (cJSON_GetArraySize(v) == 0)
        return fail(err, "%s: expected at least 1 stage index, got [] (omit the key for every stage)", path);
    int j = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++j) {
        int k;
        path_index(item, path, j);
        if ((s = read_int(e, item, 0, &k, err))) return s;
        describe(e, got, sizeof got);
        if (k >= sc->stage_count)
            return fail(err, "%s: no such stage: must be <= %d (the scenario has %d stage%s), got %s", item,
                        sc->stage_count - 1, sc->stage_count, sc->stage_count == 1 ? "" : "s", got);
        if (k >= bits) return fail(err, "%s: must be < %d (the stage mask has %d bits), got %s", item, bits, bits, got);
        if (mask & (1u << k)) {
            int d = 0;
            for (const cJSON *e2 = v->child; e2 != e; e2 = e2->next, ++d)
                if (e2->valuedouble == e->valuedouble) break;
            path_index(prev, path, d);
            return fail(err, "%s: duplicate stage %d (already given as %s)", item, k, prev);
        }
        mask |= 1u << k;
    }
    *out = mask;
    return CR_OK;
}

/* Stage masks of loads and supports (they need the stage count), and supports
 * sharing a node in a common stage. */
static cr_status parse_stage_masks(const cJSON *root, const cr_scenario *sc, scenario_storage *st, cr_error *err)
{
    char path[PATH_SIZE], other[PATH_SIZE];
    cr_status s;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "loads"); /* validated by parse_loads() */
    int i = 0;
    for (const cJSON *c = list && sc->rod.load_count > 0 ? list->child : NULL; c; c = c->next, ++i) {
        path_index(path, "loads", i);
        if ((s = parse_stage_mask(c, path, sc, &st->loads[i].stages, err))) return s;
    }
    list = cJSON_GetObjectItemCaseSensitive(root, "boundary_conditions");
    i = 0;
    const int nodes = sc->rod.elements + 1;
    for (const cJSON *c = list && sc->rod.bc_count > 0 ? list->child : NULL; c; c = c->next, ++i) {
        path_index(path, "boundary_conditions", i);
        if ((s = parse_stage_mask(c, path, sc, &st->bcs[i].stages, err))) return s;
        int node = st->bcs[i].node < 0 ? st->bcs[i].node + nodes : st->bcs[i].node;
        for (int j = 0; j < i; ++j) {
            int other_node = st->bcs[j].node < 0 ? st->bcs[j].node + nodes : st->bcs[j].node;
            unsigned a = st->bcs[j].stages, b = st->bcs[i].stages;
            if (other_node == node && (a == 0 || b == 0 || (a & b))) {
                path_index(other, "boundary_conditions", j);
                return fail(err, "%s.node: node %d already has a boundary condition (%s) in the same stage; give "
                                 "them disjoint stages", path, node, other);
            }
        }
    }
    return CR_OK;
}

/* output.track: the recorded points. Which formulation node a point is, and whether its
 * columns clash with other series.csv columns, is checked by the runner (run.c), which
 * knows the formulation's nodes and columns. */
static cr_status parse_track(const cJSON *output, cr_scenario *sc, cr_error *err)
{
    const char *path = "output.track";
    const cJSON *list = output ? cJSON_GetObjectItemCaseSensitive(output, "track") : NULL;
    const cr_rod_def *rod = &sc->rod;
    cr_status s;
    if (!list) {
        /* the free end: the last node, unless it is held and the first one is not */
        int held_first = 0, held_last = 0;
        for (int k = 0; k < rod->bc_count; ++k) {
            int node = rod->bcs[k].node < 0 ? rod->bcs[k].node + rod->elements + 1 : rod->bcs[k].node;
            held_first |= node == 0;
            held_last |= node == rod->elements;
        }
        /* named "tip" (the columns tip_x, tip_y, tip_z series.csv always had), or "rod_tip"
         * when a rigid body called "tip" has those columns */
        int body_tip = 0;
        for (int k = 0; k < rod->rigid_body_count; ++k) body_tip |= !strcmp(rod->rigid_bodies[k].name, "tip");
        if (!(sc->output.track = calloc(1, sizeof *sc->output.track))) return no_memory(err);
        sc->output.track_count = 1;
        snprintf(sc->output.track[0].name, CR_TRACK_NAME_SIZE, "%s", body_tip ? "rod_tip" : "tip");
        sc->output.track[0].node = held_last && !held_first ? 0 : -1;
        return CR_OK;
    }
    if ((s = expect_array(list, path, err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n > CR_TRACK_MAX) return fail(err, "%s: at most %d points, got %d", path, CR_TRACK_MAX, n);
    if (n > 0 && !(sc->output.track = calloc((size_t)n, sizeof *sc->output.track))) return no_memory(err);
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        char item[PATH_SIZE], key[PATH_SIZE], got[VALUE_TEXT_SIZE];
        cr_track_def *t = &sc->output.track[i];
        path_index(item, path, i);
        if ((s = expect_object(c, item, err)) || (s = check_keys(c, item, K_TRACK, err))) return s;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
        path_key(key, item, "name");
        if (!name) return fail(err, "%s: missing", key);
        describe(name, got, sizeof got);
        if (!cJSON_IsString(name)) return fail(err, "%s: expected a string, got %s", key, got);
        size_t len = strlen(name->valuestring);
        if (len < 1 || len >= CR_TRACK_NAME_SIZE || strspn(name->valuestring,
                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                           "0123456789_") != len)
            return fail(err, "%s: expected 1-%d characters of A-Z, a-z, 0-9 and _ (it names series.csv columns), "
                             "got %s", key, CR_TRACK_NAME_SIZE - 1, got);
        for (int j = 0; j < i; ++j)
            if (!strcmp(sc->output.track[j].name, name->valuestring))
                return fail(err, "%s: %s is already the name of output.track.%d", key, got, j);
        memcpy(t->name, name->valuestring, len + 1);
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(c, "node"), *sv = cJSON_GetObjectItemCaseSensitive(c, "s");
        if (node && sv) return fail(err, "%s: give either node or s, not both", item);
        if (!node && !sv) return fail(err, "%s: missing node or s (a node reference, or an arc length in m)", item);
        if (node) {
            if ((s = get_node(c, item, rod->elements, &t->node, err))) return s;
            continue;
        }
        path_key(key, item, "s");
        if ((s = read_number(sv, key, NONNEGATIVE, &t->s, err))) return s;
        if (t->s > rod->length) {
            char len_text[32];
            format_number(rod->length, len_text, sizeof len_text);
            describe(sv, got, sizeof got);
            return fail(err, "%s: must be in [0, %s] (rod.length), got %s", key, len_text, got);
        }
        t->by_s = 1;
    }
    sc->output.track_count = n;
    return CR_OK;
}

static cr_status parse_output(const cJSON *root, cr_scenario *sc, cr_error *err)
{
    const char *path = "output";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "output");
    const char *dir = NULL;
    cr_status s;
    sc->output.vtk = 1;
    sc->output.vtk_format = CR_VTK_BINARY;
    if (v) {
        if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_OUTPUT, err))) return s;
        if ((s = get_string(v, path, "directory", NULL, &dir, err))) return s;
        const cJSON *vtk = cJSON_GetObjectItemCaseSensitive(v, "vtk");
        if (vtk) {
            char got[VALUE_TEXT_SIZE];
            if (!cJSON_IsBool(vtk)) {
                describe(vtk, got, sizeof got);
                return fail(err, "output.vtk: expected true or false, got %s", got);
            }
            sc->output.vtk = cJSON_IsTrue(vtk);
        }
        const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(v, "vtk_format");
        int k;
        if (fmt) {
            if ((s = read_enum(fmt, "output.vtk_format", VTK_FORMAT_CHOICES, &k, err))) return s;
            sc->output.vtk_format = (cr_vtk_format)k;
        }
    }
    if ((s = parse_track(v, sc, err))) return s;
    if (dir) {
        if (!*dir) return fail(err, "output.directory: must not be empty");
        if (strlen(dir) >= sizeof sc->output.directory)
            return fail(err, "output.directory: longer than %d characters", (int)sizeof sc->output.directory - 1);
        memcpy(sc->output.directory, dir, strlen(dir) + 1);
    } else {
        int w = snprintf(sc->output.directory, sizeof sc->output.directory, "out/%s", sc->name);
        (void)w; /* name < 256 characters always fits */
    }
    return CR_OK;
}

/* "model": a formulation name, or an object {"type": name, options...}; the
 * plain string means the formulation's defaults. */
static cr_status parse_model(const cJSON *root, cr_model_options *m, cr_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *obj = cJSON_IsObject(v) ? v : NULL;
    const char *path = obj ? "model.type" : "model";
    const cJSON *type = obj ? cJSON_GetObjectItemCaseSensitive(obj, "type") : v;
    cr_status s;
    *m = cr_model_default_options();
    if (v && !obj && !cJSON_IsString(v)) {
        char got[VALUE_TEXT_SIZE];
        describe(v, got, sizeof got);
        return fail(err, "model: expected a formulation name or an object {\"type\": ...}, got %s", got);
    }
    if (obj && !type) return fail(err, "model.type: missing");
    if (type) {
        int k;
        if ((s = read_enum(type, path, MODEL_CHOICES, &k, err))) return s;
        snprintf(m->type, sizeof m->type, "%s", MODEL_CHOICES[k]);
    }
    if (!obj) return CR_OK;
    if ((s = check_keys(obj, "model", K_MODEL, err))) return s;
    const cJSON *dil = cJSON_GetObjectItemCaseSensitive(obj, "dilatation");
    if (dil && !cJSON_IsBool(dil)) {
        char got[VALUE_TEXT_SIZE];
        describe(dil, got, sizeof got);
        return fail(err, "model.dilatation: expected true or false, got %s", got);
    }
    if (dil) m->dilatation = cJSON_IsTrue(dil);
    if ((s = get_enum(obj, "model", "chart", CHART_CHOICES, 0, &m->chart, err))) return s;
    if ((s = get_enum(obj, "model", "strains", STRAINS_CHOICES, 0, &m->strains, err))) return s;
    if ((s = get_number(obj, "model", "newton_atol", 0, 1e-10, POSITIVE, &m->newton_atol, err))) return s;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, "viscoelastic");
    if (!list) return CR_OK;
    if ((s = expect_array(list, "model.viscoelastic", err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n > 8) return fail(err, "model.viscoelastic: at most 8 branches, got %d", n);
    int i = 0;
    double total = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        char bpath[PATH_SIZE];
        path_index(bpath, "model.viscoelastic", i);
        if ((s = expect_object(c, bpath, err)) || (s = check_keys(c, bpath, K_BRANCH, err))) return s;
        if ((s = get_number(c, bpath, "tau", 1, 0, POSITIVE, &m->branch_tau[i], err))) return s;
        if ((s = get_number(c, bpath, "fraction", 1, 0, POSITIVE, &m->branch_fraction[i], err))) return s;
        const cJSON *kv = cJSON_GetObjectItemCaseSensitive(c, "kelvin_voigt");
        if (kv && !cJSON_IsBool(kv)) {
            char got[VALUE_TEXT_SIZE];
            describe(kv, got, sizeof got);
            return fail(err, "%s.kelvin_voigt: expected true or false, got %s", bpath, got);
        }
        m->branch_kelvin_voigt[i] = kv && cJSON_IsTrue(kv);
        /* a Maxwell branch takes its stiffness from the elastic one; a dashpot does not */
        if (!m->branch_kelvin_voigt[i]) total += m->branch_fraction[i];
    }
    if (total > 1 + 1e-12) {
        char got[32];
        format_number(total, got, sizeof got);
        return fail(err, "model.viscoelastic: the Maxwell branches' fractions must sum to <= 1 (the rest is the "
                         "elastic branch), got %s", got);
    }
    m->branch_count = n;
    return CR_OK;
}

static cr_status parse_root(const cJSON *root, const char *default_name, cr_scenario *sc, scenario_storage *st,
                            cr_error *err)
{
    const char *name = "", *desc = "";
    cr_status s;
    if ((s = check_keys(root, "", K_ROOT, err))) return s;
    if ((s = get_string(root, "", "name", default_name, &name, err))) return s;
    if (!*name) return fail(err, "name: must not be empty");
    if (strlen(name) >= sizeof sc->name)
        return fail(err, "name: longer than %d characters", (int)sizeof sc->name - 1);
    memcpy(sc->name, name, strlen(name) + 1);
    if ((s = get_string(root, "", "description", "", &desc, err))) return s;
    if ((s = parse_model(root, &sc->model, err))) return s;
    if ((s = parse_rod(root, &sc->rod, st, err))) return s;
    if ((s = parse_bcs(root, &sc->rod, st, err))) return s;
    if ((s = parse_rigid_bodies(root, &sc->rod, st, err))) return s;
    if ((s = parse_loads(root, &sc->rod, st, err))) return s;
    if ((s = parse_stages(root, sc, err))) return s;
    if ((s = parse_stage_masks(root, sc, st, err))) return s;
    return parse_output(root, sc, err);
}

/* ------------------------------------------------------------------------ */
/* Overrides.                                                                 */

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    return "a value";
}

/* Applies one "PATH=VALUE" to the tree. Every PATH component but the last must
 * exist; the last may be missing only when the schema allows that key there,
 * so a typo is reported instead of silently adding an ignored key. */
/* cJSON reads a number as the longest run of [0-9+-.eE] and hands it to strtod, so it also
 * takes 0125, 125., -.5 and 1.e5, which JSON (RFC 8259) refuses: a strict parser must, or a
 * file that other tools reject (or read as octal) would pass `check`. Returns the start of
 * the first number outside strings that is not -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * or NULL; *length gets the length of its run. */
static const char *bad_json_number(const char *json, size_t *length)
{
    const char *p = json;
    while (*p) {
        if (*p == '"') { /* skip a string, escapes included */
            for (++p; *p && *p != '"'; ++p)
                if (*p == '\\' && p[1]) ++p;
            if (*p) ++p;
            continue;
        }
        if (isalpha((unsigned char)*p)) { /* true, false, null (or a syntax error cJSON reported) */
            while (isalnum((unsigned char)*p)) ++p;
            continue;
        }
        if (*p != '-' && !isdigit((unsigned char)*p)) {
            ++p;
            continue;
        }
        const char *start = p, *q = p;
        size_t n = strspn(p, "0123456789+-.eE");
        if (*q == '-') ++q;
        int ok = 1;
        if (*q == '0')
            ++q;
        else if (isdigit((unsigned char)*q))
            while (isdigit((unsigned char)*q)) ++q;
        else
            ok = 0;
        if (ok && *q == '.') {
            ++q;
            if (!isdigit((unsigned char)*q)) ok = 0;
            while (isdigit((unsigned char)*q)) ++q;
        }
        if (ok && (*q == 'e' || *q == 'E')) {
            ++q;
            if (*q == '+' || *q == '-') ++q;
            if (!isdigit((unsigned char)*q)) ok = 0;
            while (isdigit((unsigned char)*q)) ++q;
        }
        if (!ok || q != start + n) {
            *length = n;
            return start;
        }
        p = start + n;
    }
    return NULL;
}

static cr_status apply_override(cJSON *root, const char *text, cr_error *err)
{
    char path[PATH_SIZE], walked[PATH_SIZE], here[PATH_SIZE], list[256];
    const char *eq = strchr(text, '=');
    if (!eq) return fail(err, "override \"%s\": expected PATH=VALUE", text);
    size_t plen = (size_t)(eq - text);
    if (plen == 0) return fail(err, "override \"%s\": empty PATH", text);
    if (plen >= sizeof path) return fail(err, "override \"%s\": PATH longer than %d characters", text, PATH_SIZE - 1);
    memcpy(path, text, plen);
    path[plen] = '\0';
    const char *value = eq + 1;

    cJSON *node = root;
    node_kind kind = K_ROOT;
    walked[0] = '\0';
    char *comp = path;
    for (;;) {
        char *dot = strchr(comp, '.');
        int last = dot == NULL;
        if (dot) *dot = '\0';
        path_key(here, walked, comp);
        if (!*comp) return fail(err, "override \"%s\": empty component in PATH", text);

        cJSON *child = NULL;
        int index = -1;
        if (cJSON_IsObject(node)) {
            child = cJSON_GetObjectItemCaseSensitive(node, comp);
            if (!child) {
                const char *what;
                const char *const *allowed = allowed_keys(kind, node, &what);
                if (!last || !allowed || list_index(allowed, comp) < 0) {
                    if (!last && allowed && list_index(allowed, comp) >= 0)
                        return fail(err, "override \"%s\": %s does not exist in the scenario (set the whole "
                                         "value instead, e.g. %s={...})", text, here, here);
                    if (allowed) {
                        list_join(allowed, list, sizeof list);
                        return fail(err, "override \"%s\": %s: unknown key%s%s (expected one of %s)", text, here,
                                    what ? " for " : "", what ? what : "", list);
                    }
                    return fail(err, "override \"%s\": %s: unknown key", text, here);
                }
            }
        } else if (cJSON_IsArray(node)) {
            int size = cJSON_GetArraySize(node);
            size_t digits = strspn(comp, "0123456789");
            if (digits != strlen(comp)) {
                if (size == 0)
                    return fail(err, "override \"%s\": %s: %s is an empty array", text, here, walked);
                return fail(err, "override \"%s\": %s: %s is an array, expected an index in [0, %d]", text, here,
                            walked, size - 1);
            }
            /* more than 9 digits cannot be an index of a parsed array (and would overflow) */
            long k = digits <= 9 ? strtol(comp, NULL, 10) : LONG_MAX;
            if (k >= size)
                return fail(err, "override \"%s\": %s: index past the end of %s (which has %d %s)", text, here,
                            walked, size, size == 1 ? "entry" : "entries");
            index = (int)k;
            child = cJSON_GetArrayItem(node, index);
        } else {
            return fail(err, "override \"%s\": %s: %s is %s, not an object or array", text, here, walked,
                        json_type_name(node));
        }

        if (last) {
            /* `PATH=null` removes an object key, so one file serves formulations whose
             * keys differ (e.g. a fixed-step formulation's time_step for the mixed rod) */
            if (!strcmp(value, "null") && index < 0) {
                if (child) cJSON_DeleteItemFromObjectCaseSensitive(node, comp);
                return CR_OK;
            }
            /* VALUE is JSON when it parses (numbers, booleans, arrays, quoted
             * strings), else the raw text, so `name=foo` needs no quotes. */
            size_t bad_length;
            cJSON *v = bad_json_number(value, &bad_length) ? NULL : cJSON_ParseWithOpts(value, NULL, 1);
            if (!v) v = cJSON_CreateString(value);
            if (!v) return no_memory(err);
            cJSON_bool ok;
            if (index >= 0)
                ok = cJSON_ReplaceItemInArray(node, index, v);
            else if (child) /* (not ReplaceItemViaPointer: that leaves the new item without its key) */
                ok = cJSON_ReplaceItemInObjectCaseSensitive(node, comp, v);
            else
                ok = cJSON_AddItemToObject(node, comp, v);
            if (!ok) {
                cJSON_Delete(v);
                return no_memory(err);
            }
            return CR_OK;
        }
        kind = child_kind(kind, index >= 0 ? NULL : comp);
        node = child;
        memcpy(walked, here, sizeof walked);
        comp = dot + 1;
    }
}

/* ------------------------------------------------------------------------ */
/* Entry points.                                                              */

/* Line and column (from 1) of offset off in text. */
static void line_column(const char *text, size_t off, int *line, int *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < off && text[i]; ++i) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static cr_status load(const char *json, const char *source, const char *default_name, const char *const *overrides,
                      int override_count, cr_scenario **out, cr_error *err)
{
    cr_status s;
    if (!out) return fail(err, "cr_scenario_load: out is NULL");
    *out = NULL;
    if (!json) return fail(err, "cr_scenario_load: the scenario text is NULL");
    if (override_count < 0 || (override_count > 0 && !overrides))
        return fail(err, "cr_scenario_load: bad override list (count %d)", override_count);

    /* return_parse_end rather than cJSON_GetErrorPtr(): same position, but not
     * a global shared between threads. */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
    if (!root) {
        size_t off = end ? (size_t)(end - json) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < off && json[i]; ++i) {
            if (json[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        /* cJSON stops at CJSON_NESTING_LIMIT levels: say so rather than "syntax error" */
        int depth = 0, max_depth = 0, in_string = 0;
        for (size_t i = 0; i < off && json[i]; ++i) {
            char ch = json[i];
            if (in_string) {
                if (ch == '\\' && json[i + 1]) ++i;
                else if (ch == '"') in_string = 0;
            } else if (ch == '"') {
                in_string = 1;
            } else if (ch == '[' || ch == '{') {
                if (++depth > max_depth) max_depth = depth;
            } else if (ch == ']' || ch == '}') {
                --depth;
            }
        }
        if (max_depth >= CJSON_NESTING_LIMIT)
            return fail(err, "%s: JSON nesting deeper than %d levels at line %d, column %d (arrays and objects "
                             "nested in each other)", source, (int)CJSON_NESTING_LIMIT, line, col);
        char near[32];
        size_t k = 0;
        for (const char *p = json + off; *p && *p != '\n' && k < 20; ++p)
            near[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
        near[k] = '\0';
        if (k)
            return fail(err, "%s: JSON syntax error at line %d, column %d (near \"%s\")", source, line, col, near);
        return fail(err, "%s: JSON syntax error at line %d, column %d (at the end of the input)", source, line, col);
    }
    size_t bad_length = 0;
    const char *bad = bad_json_number(json, &bad_length);
    if (bad) {
        int line, col;
        line_column(json, (size_t)(bad - json), &line, &col);
        cJSON_Delete(root);
        return fail(err,
                    "%s: JSON syntax error at line %d, column %d: \"%.*s\" is not a JSON number (no leading "
                    "zeros, digits on both sides of the decimal point)",
                    source, line, col, (int)(bad_length < 24 ? bad_length : 24), bad);
    }
    if (!cJSON_IsObject(root)) {
        char got[VALUE_TEXT_SIZE];
        describe(root, got, sizeof got);
        cJSON_Delete(root);
        return fail(err, "%s: expected a JSON object at the top level, got %s", source, got);
    }
    for (int i = 0; i < override_count; ++i) {
        if (!overrides[i]) {
            cJSON_Delete(root);
            return fail(err, "override %d is NULL", i);
        }
        if ((s = apply_override(root, overrides[i], err))) {
            cJSON_Delete(root);
            return s;
        }
    }

    cr_scenario *sc = calloc(1, sizeof *sc);
    scenario_storage *st = calloc(1, sizeof *st);
    if (!sc || !st) {
        free(sc);
        free(st);
        cJSON_Delete(root);
        return no_memory(err);
    }
    sc->internal = st;
    s = parse_root(root, default_name, sc, st, err);
    cJSON_Delete(root);
    if (s) {
        cr_scenario_destroy(sc);
        return s;
    }
    *out = sc;
    if (err) {
        err->status = CR_OK;
        err->message[0] = '\0';
    }
    return CR_OK;
}

cr_status cr_scenario_load_string(const char *json, const char *const *overrides, int override_count,
                                  cr_scenario **out, cr_error *err)
{
    return load(json, "scenario", "scenario", overrides, override_count, out, err);
}

cr_status cr_scenario_load_file(const char *path, const char *const *overrides, int override_count,
                                cr_scenario **out, cr_error *err)
{
    if (out) *out = NULL;
    if (!path) return fail(err, "cr_scenario_load_file: path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f) return cr_error_set(err, CR_IO, "%s: cannot open scenario file: %s", path, strerror(errno));
    /* Read in chunks rather than trusting ftell, so pipes and /dev/stdin work. */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        char *grown = realloc(buf, 2 * cap + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f), saved = errno;
    fclose(f);
    if (!buf) return no_memory(err);
    if (failed) {
        free(buf);
        return cr_error_set(err, CR_IO, "%s: cannot read scenario file: %s", path, strerror(saved));
    }
    buf[len] = '\0';
    /* cJSON stops at a NUL; text after it would be silently dropped. */
    if (memchr(buf, '\0', len)) {
        size_t at = (size_t)((char *)memchr(buf, '\0', len) - buf);
        free(buf);
        return fail(err, "%s: not a text file (NUL byte at offset %zu)", path, at);
    }

    /* default name: the file name without directories and extension */
    char name[256];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(name, sizeof name, "%s", base);
    char *ext = strrchr(name, '.');
    if (ext && ext != name) *ext = '\0';
    if (!*name) snprintf(name, sizeof name, "scenario");

    cr_status s = load(buf, path, name, overrides, override_count, out, err);
    free(buf);
    return s;
}
