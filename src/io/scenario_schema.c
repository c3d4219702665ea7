/* cosserat — scenario files, the schema: which keys are allowed in which object, and the
 * unknown/duplicate key check. The unknown-key check and the override "may this missing key
 * be added" check (scenario.c) both use allowed_keys(), so they cannot drift apart;
 * docs/scenario.md lists the same keys (tests/doc_keys.sh).
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const ROOT_KEYS[] = {"name",         "description", "model",  "rod",    "boundary_conditions",
                                        "rigid_bodies", "loads",       "stages", "output", "rods",
                                        "joints",       "obstacles",   "contact", NULL};
static const char *const MODEL_MIXED_KEYS[] = {"type", NULL};
static const char *const MODEL_LGVI_KEYS[] = {"type", "dilatation", "chart", "strains", NULL};
static const char *const MODEL_PH_KEYS[] = {"type", "viscoelastic", "newton_atol", NULL};
static const char *const MODEL_ANY_KEYS[] = {"type",         "dilatation",  "chart", "strains",
                                             "viscoelastic", "newton_atol", NULL};
static const char *const BRANCH_KEYS[] = {"tau", "fraction", "kelvin_voigt", NULL};
static const char *const ROD_KEYS[] = {"length",   "elements",      "material", "reference",
                                       "sections", "rigid_strains", "damping",  NULL};
/* an entry of "rods": a rod and its name */
static const char *const ROD_ITEM_KEYS[] = {"name",     "length",        "elements", "material", "reference",
                                            "sections", "rigid_strains", "damping",  NULL};
static const char *const JOINT_KEYS[] = {"type",
                                         "name",
                                         "a",
                                         "b",
                                         "axis",
                                         "rotation",
                                         "axis_b",
                                         "drive",
                                         "stiffness",
                                         "damping",
                                         "slide_stiffness",
                                         "slide_damping",
                                         "stages",
                                         "rest",
                                         "slide_rest",
                                         "limit",
                                         "slide_limit",
                                         "limit_stiffness",
                                         "slide_limit_stiffness",
                                         NULL};
static const char *const JOINT_DRIVE_KEYS[] = {"angle", "time", "position", NULL};
static const char *const MATERIAL_KEYS[] = {"E", "G", "rho", "nu", NULL};
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
/* "time" and "stages" are common to every load type */
static const char *const LOAD_POINT_KEYS[] = {"type", "node", "body", "value", "frame", "time", "stages", NULL};
static const char *const LOAD_DENSITY_KEYS[] = {"type", "value", "frame", "time", "stages", "rod", NULL};
static const char *const LOAD_GRAVITY_KEYS[] = {"type", "value", "time", "stages", "rod", NULL};
static const char *const LOAD_TENDON_KEYS[] = {"type", "tension", "offset", "xi_start", "xi_end",
                                               "time", "stages",  "rod",    NULL};
static const char *const LOAD_CHAMBER_KEYS[] = {"type", "pressure", "area", "offset", "time", "stages", "rod", NULL};
static const char *const LOAD_ANY_KEYS[] = {"type",    "node",     "body",     "value",  "frame",
                                            "tension", "offset",   "xi_start", "xi_end", "time",
                                            "stages",  "pressure", "area",     "rod",    NULL};
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
static const char *const STAGE_DYNAMIC_KEYS[] = {"type",   "t_end", "rtol",      "atol",
                                                 "output_dt", "snapshot_dt", "h_init", "h_max",
                                                 "max_steps", "checkpoint_interval", "time_step", NULL};
static const char *const STAGE_ANY_KEYS[] = {
    "type",      "load_steps",  "max_iterations", "atol",  "rtol",      "max_halvings",        "t_end",
    "output_dt", "snapshot_dt", "h_init",         "h_max", "max_steps", "checkpoint_interval", "time_step",
    "stability", "path",        "arc_length",     NULL};
static const char *const OUTPUT_KEYS[] = {"directory", "vtk", "vtk_format", "track", NULL};
static const char *const TRACK_KEYS[] = {"name", "node", "s", "rod", NULL};
/* obstacles (scenario_obstacles.c) */
static const char *const OBST_PLANE_KEYS[] = {
    "type",         "name",     "point",    "normal",       "e_x",
    "half_extents", "friction", "velocity", "acceleration", "angular_velocity",
    "motion",       "position", "rotation", "time",         NULL};
static const char *const OBST_SPHERE_KEYS[] = {
    "type",   "name",     "center",   "radius", "friction", "velocity", "acceleration", "angular_velocity",
    "motion", "position", "rotation", "time",   NULL};
static const char *const OBST_CYLINDER_KEYS[] = {"type",   "name",     "center",   "axis",         "radius",
                                                 "length", "friction", "velocity", "acceleration", "angular_velocity",
                                                 "motion", "position", "rotation", "time",         NULL};
static const char *const OBST_BOX_KEYS[] = {
    "type",         "name",     "center",         "half_extents",     "quaternion", "friction", "velocity",
    "acceleration", "angular_velocity", "motion", "position", "rotation", "time", NULL};
static const char *const OBST_ANY_KEYS[] = {"type",       "name",     "point",    "normal",       "e_x",
                                            "center",     "radius",   "axis",     "length",       "half_extents",
                                            "quaternion", "friction", "velocity", "acceleration", "angular_velocity",
                                            "motion",     "position", "rotation", "time",         NULL};
static const char *const FRICTION_KEYS[] = {"static", "kinetic", NULL};
static const char *const CONTACT_KEYS[] = {"radius", "tolerance", "stiffness",   "max_updates",
                                           "self",   "rods",      "stick_speed", "rods_friction", "rolling", NULL};

int list_index(const char *const *list, const char *s)
{
    for (int i = 0; list[i]; ++i)
        if (strcmp(list[i], s) == 0) return i;
    return -1;
}

void list_join(const char *const *list, char *buf, size_t n)
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
const char *type_string(const cJSON *obj, const char *key)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(t) ? t->valuestring : NULL;
}

int type_is(const char *t, const char *name) { return t && strcmp(t, name) == 0; }

/* Keys allowed in an object of kind k. For objects whose keys depend on a type
 * field, the type present in `obj` decides; with no recognizable type, the
 * union of all variants (validation reports the bad type first anyway). `what`
 * names the variant for messages ("a helix reference"), or NULL. */
const char *const *allowed_keys(node_kind k, const cJSON *obj, const char **what)
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
    case K_ROD_ITEM:
        return ROD_ITEM_KEYS;
    case K_JOINT:
        return JOINT_KEYS;
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
    case K_OBSTACLE:
        t = type_string(obj, "type");
        if (type_is(t, "plane")) {
            *what = "a plane obstacle";
            return OBST_PLANE_KEYS;
        }
        if (type_is(t, "sphere")) {
            *what = "a sphere obstacle";
            return OBST_SPHERE_KEYS;
        }
        if (type_is(t, "cylinder") || type_is(t, "capsule")) {
            *what = type_is(t, "cylinder") ? "a cylinder obstacle" : "a capsule obstacle";
            return OBST_CYLINDER_KEYS;
        }
        if (type_is(t, "box")) {
            *what = "a box obstacle";
            return OBST_BOX_KEYS;
        }
        return OBST_ANY_KEYS;
    case K_FRICTION: return FRICTION_KEYS;
    case K_CONTACT: return CONTACT_KEYS;
    case K_JOINT_DRIVE: return JOINT_DRIVE_KEYS;
    default: return NULL; /* lists and leaves have no keys */
    }
}

/* The kind of the entry `key` of a container of kind k (key NULL: array element). */
node_kind child_kind(node_kind k, const char *key)
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
        if (!strcmp(key, "rods")) return K_ROD_LIST;
        if (!strcmp(key, "joints")) return K_JOINT_LIST;
        if (!strcmp(key, "obstacles")) return K_OBSTACLE_LIST;
        if (!strcmp(key, "contact")) return K_CONTACT;
        return K_LEAF;
    case K_ROD_ITEM:
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
    case K_ROD_LIST:
        return key ? K_LEAF : K_ROD_ITEM;
    case K_JOINT_LIST:
        return key ? K_LEAF : K_JOINT;
    case K_JOINT: return key && !strcmp(key, "drive") ? K_JOINT_DRIVE : K_LEAF;
    case K_JOINT_DRIVE: return key && !strcmp(key, "time") ? K_TIME : K_LEAF;
    case K_OBSTACLE_LIST: return key ? K_LEAF : K_OBSTACLE;
    case K_OBSTACLE:
        if (key && !strcmp(key, "time")) return K_TIME;
        return key && !strcmp(key, "friction") ? K_FRICTION : K_LEAF;
    case K_CONTACT: return key && !strcmp(key, "rods_friction") ? K_FRICTION : K_LEAF;
    default: return K_LEAF;
    }
}

/* Rejects keys not allowed in obj and duplicated keys (cJSON keeps both copies
 * of a duplicate and lookups see only the first, so the second would be
 * silently ignored). */
cr_status check_keys(const cJSON *obj, const char *path, node_kind k, cr_error *err)
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
