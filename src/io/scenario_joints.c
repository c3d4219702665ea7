/* cosserat — scenario files, the "joints" section: ideal joints (weld, ball, hinge, prismatic,
 * cylindrical, universal) between two
 * rod nodes, given by node references (docs/scenario.md "joints"). The assembly's own checks
 * (coincident points, redundant joints and supports on joint nodes) are the library's
 * (cr_assembly_validate), run once the lists are split rod by rod.
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* enum choices; index = the C enum value */
static const char *const JOINT_TYPE_CHOICES[] = {"weld",        "ball",      "hinge", "prismatic",
                                                 "cylindrical", "universal", NULL}; /* = cr_joint_type */

/* A joint's end on a free body: {"body": NAME, "point": [x, y, z]} (point in the body's
 * coordinates, default its centre); *body = the index in rigid_bodies + 1 (finish_rods
 * renumbers it among the free bodies). */
static cr_status joint_body(const cJSON *v, const char *path, const cr_scenario *sc, const scenario_storage *st,
                            int *body, cr_vec3 *point, cr_error *err)
{
    char sub[PATH_SIZE], got[VALUE_TEXT_SIZE];
    cr_status s;
    for (const cJSON *c = v->child; c; c = c->next)
        if (strcmp(c->string, "body") && strcmp(c->string, "point")) {
            path_key(sub, path, c->string);
            return fail(err, "%s: unknown key for a point of a body (expected one of body, point)", sub);
        }
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "body");
    path_key(sub, path, "body");
    describe(b, got, sizeof got);
    if (!cJSON_IsString(b)) return fail(err, "%s: expected the name of a rigid body (a string), got %s", sub, got);
    int k = 0;
    while (k < sc->rod.rigid_body_count && strcmp(sc->rod.rigid_bodies[k].name, b->valuestring)) ++k;
    if (k == sc->rod.rigid_body_count) return fail(err, "%s: unknown rigid body %s", sub, got);
    if (st->body_rod[k] != -1)
        return fail(err,
                    "%s: rigid body %s is welded to a node (rigid_bodies.%d.node); a joint holds a free body (one "
                    "without node)",
                    sub, got, k);
    double x[3] = {0, 0, 0};
    if ((s = get_vector(v, path, "point", 3, x, x, err))) return s;
    *body = k + 1;
    *point = cr_v3_load(x);
    return CR_OK;
}

static cr_status joint_node(const cJSON *c, const char *path, const char *key, const cr_scenario *sc,
                            const scenario_storage *st, cr_rod_node *out, cr_error *err)
{
    node_ref ref;
    cr_status s = get_rod_node(c, path, key, &sc->rod, st, &ref, err);
    out->rod = ref.rod;
    out->node = ref.node;
    return s;
}

/* A joint's drive: hinge {angle, time}, prismatic {position, time}, cylindrical either. */
static cr_status parse_joint_drive(const cJSON *drive, const char *key, int type, cr_joint_def *j,
                                   cr_time_point **table, cr_error *err)
{
    cr_status s;
    if ((s = expect_object(drive, key, err))) return s;
    if ((s = check_keys(drive, key, K_JOINT_DRIVE, err))) return s;
    const int has_angle = cJSON_GetObjectItemCaseSensitive(drive, "angle") != NULL;
    const int has_position = cJSON_GetObjectItemCaseSensitive(drive, "position") != NULL;
    char sub[PATH_SIZE];
    if (has_angle && has_position)
        return fail(err, "%s: give angle (a rotation about the axis) or position (a slide along it), not both", key);
    if (type == CR_JOINT_HINGE && has_position) {
        path_key(sub, key, "position");
        return fail(err, "%s: a hinge does not slide; its drive has an angle (rad)", sub);
    }
    if (type == CR_JOINT_PRISMATIC && has_angle) {
        path_key(sub, key, "angle");
        return fail(err, "%s: a prismatic joint does not turn; its drive has a position (m)", sub);
    }
    j->drive_slide = type == CR_JOINT_PRISMATIC || (type == CR_JOINT_CYLINDRICAL && has_position);
    if (j->drive_slide) {
        if ((s = get_number(drive, key, "position", 1, 0, ANY, &j->drive_position, err))) return s;
    } else if ((s = get_number(drive, key, "angle", 1, 0, ANY, &j->drive_angle, err))) {
        return s;
    }
    if ((s = parse_time(drive, key, &j->drive_time, table, err))) return s;
    j->has_drive = 1;
    return CR_OK;
}

/* A joint's spring and damper along its free directions. */
static cr_status parse_joint_spring(const cJSON *c, const char *path, int type, cr_joint_def *j, cr_error *err)
{
    static const char *const names[6] = {"stiffness",     "damping", "slide_stiffness",
                                         "slide_damping", "rest",    "slide_rest"};
    double *out[6] = {&j->stiffness, &j->damping, &j->slide_stiffness, &j->slide_damping, &j->rest, &j->slide_rest};
    char key[PATH_SIZE];
    cr_status s;
    for (int q = 0; q < 6; ++q) {
        if (!cJSON_GetObjectItemCaseSensitive(c, names[q])) continue;
        path_key(key, path, names[q]);
        if (type == CR_JOINT_WELD)
            return fail(err,
                        "%s: a weld has no free direction for a spring or damper (use a hinge, prismatic, "
                        "cylindrical, ball or universal joint)",
                        key);
        if ((q == 2 || q == 3 || q == 5) && type != CR_JOINT_CYLINDRICAL)
            return fail(err, "%s: only a cylindrical joint has %s (a %s joint's is `%s`)", key, names[q],
                        JOINT_TYPE_CHOICES[type], q == 5 ? "rest" : names[q - 2]);
        if (q == 4 && (type == CR_JOINT_BALL || type == CR_JOINT_UNIVERSAL))
            return fail(err, "%s: a %s joint's spring rests at the reference (no rest rotation in this version)", key,
                        JOINT_TYPE_CHOICES[type]);
        if ((s = get_number(c, path, names[q], 0, 0, q >= 4 ? ANY : NONNEGATIVE, out[q], err))) return s;
    }
    return CR_OK;
}

/* A joint's limits: `limit` [lo, hi] (a hinge's or cylindrical joint's rotation, rad; a
 * prismatic joint's slide, m), `slide_limit` (a cylindrical joint's slide, m) and their
 * `limit_stiffness`, `slide_limit_stiffness`. */
static cr_status parse_joint_limits(const cJSON *c, const char *path, int type, cr_joint_def *j, cr_error *err)
{
    static const char *const names[2] = {"limit", "slide_limit"}, *const kn[2] = {"limit_stiffness",
                                                                                  "slide_limit_stiffness"};
    char key[PATH_SIZE];
    cr_status s;
    for (int q = 0; q < 2; ++q) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, names[q]);
        const int has_k = cJSON_GetObjectItemCaseSensitive(c, kn[q]) != NULL;
        if (!v && !has_k) continue;
        path_key(key, path, v ? names[q] : kn[q]);
        if (!v) return fail(err, "%s: given without %s (a stop's range)", key, names[q]);
        const int ok = q == 0 ? type == CR_JOINT_HINGE || type == CR_JOINT_CYLINDRICAL || type == CR_JOINT_PRISMATIC
                              : type == CR_JOINT_CYLINDRICAL;
        if (!ok)
            return fail(err,
                        q == 0 ? "%s: a %s joint has no free direction to limit (limit: a hinge's or cylindrical "
                                 "joint's rotation, a prismatic joint's slide)"
                               : "%s: only a cylindrical joint has a slide_limit (a %s joint's is `limit`)",
                        key, JOINT_TYPE_CHOICES[type]);
        double lim[2];
        if ((s = read_vector(v, key, 2, lim, err))) return s;
        if (!(lim[0] <= lim[1]))
            return fail(err, "%s: expected [lo, hi] with lo <= hi, got [%g, %g]", key, lim[0], lim[1]);
        double kl = 0;
        if ((s = get_number(c, path, kn[q], 0, 0, POSITIVE, &kl, err))) return s;
        if (q) {
            j->has_slide_limit = 1, j->slide_limit[0] = lim[0], j->slide_limit[1] = lim[1];
            j->slide_limit_stiffness = kl;
        } else {
            j->has_limit = 1, j->limit[0] = lim[0], j->limit[1] = lim[1], j->limit_stiffness = kl;
        }
    }
    return CR_OK;
}

cr_status parse_joints(const cJSON *root, cr_scenario *sc, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    cr_status s;
    sc->joint_count = 0;
    sc->joints = NULL;
    if ((s = get_array(root, "", "joints", 0, &list, err)) || !list) return s;
    int n = cJSON_GetArraySize(list);
    if (n == 0) return CR_OK;
    if (!(st->joints = calloc((size_t)n, sizeof *st->joints))) return no_memory(err);
    if (!(st->joint_time_tables = calloc((size_t)n, sizeof *st->joint_time_tables))) return no_memory(err);
    st->joint_count_alloc = n;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        char path[PATH_SIZE], key[PATH_SIZE], got[VALUE_TEXT_SIZE];
        cr_joint_def *j = &st->joints[i];
        int type;
        const char *name;
        *j = cr_joint_default_def();
        path_index(path, "joints", i);
        if ((s = expect_object(c, path, err))) return s;
        if ((s = get_enum(c, path, "type", JOINT_TYPE_CHOICES, -1, &type, err))) return s;
        if ((s = check_keys(c, path, K_JOINT, err))) return s;
        j->type = (cr_joint_type)type;
        if ((s = get_string(c, path, "name", "", &name, err))) return s;
        path_key(key, path, "name");
        if (strlen(name) >= sizeof j->name)
            return fail(err, "%s: longer than %d characters", key, (int)sizeof j->name - 1);
        for (int k = 0; *name && k < i; ++k)
            if (!strcmp(st->joints[k].name, name))
                return fail(err, "%s: \"%s\" is already the name of joints.%d", key, name, k);
        memcpy(j->name, name, strlen(name) + 1);
        for (int e = 0; e < 2; ++e) { /* a rod node, or {"body": NAME, "point": [x, y, z]} */
            const char *ek = e ? "b" : "a";
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, ek);
            path_key(key, path, ek);
            if (cJSON_IsObject(v) && cJSON_GetObjectItemCaseSensitive(v, "body"))
                s = joint_body(v, key, sc, st, e ? &j->body_b : &j->body_a, e ? &j->point_b : &j->point_a, err);
            else
                s = joint_node(c, path, ek, sc, st, e ? &j->b : &j->a, err);
            if (s) return s;
        }
        const cJSON *axis = cJSON_GetObjectItemCaseSensitive(c, "axis");
        path_key(key, path, "axis");
        if (type != CR_JOINT_WELD && type != CR_JOINT_BALL) {
            double v[3];
            if (!axis)
                return fail(err, "%s: missing (a %s joint has an axis, in a's reference body frame)", key,
                            JOINT_TYPE_CHOICES[type]);
            if ((s = read_vector(axis, key, 3, v, err))) return s;
            if ((s = normalize(v, 3, key, axis, err))) return s;
            j->axis = cr_v3_load(v);
        } else if (axis) {
            return fail(err, "%s: only a hinge, prismatic, cylindrical or universal joint has an axis", key);
        }
        const cJSON *axis_b = cJSON_GetObjectItemCaseSensitive(c, "axis_b");
        path_key(key, path, "axis_b");
        if (type == CR_JOINT_UNIVERSAL) {
            double v[3];
            if (!axis_b)
                return fail(err,
                            "%s: missing (a universal joint's axis fixed to b, in a's reference body frame, "
                            "perpendicular to axis)",
                            key);
            if ((s = read_vector(axis_b, key, 3, v, err))) return s;
            if ((s = normalize(v, 3, key, axis_b, err))) return s;
            j->axis_b = cr_v3_load(v);
            if (!(fabs(cr_v3_dot(j->axis, j->axis_b)) <= 1e-6))
                return fail(err,
                            "%s: must be perpendicular to axis (the two axes of a universal joint stay "
                            "perpendicular)",
                            key);
        } else if (axis_b) {
            return fail(err, "%s: only a universal joint has an axis_b", key);
        }
        const cJSON *rot = cJSON_GetObjectItemCaseSensitive(c, "rotation");
        path_key(key, path, "rotation");
        if (rot && type != CR_JOINT_WELD) return fail(err, "%s: only a weld has a rotation", key);
        if (rot) {
            /* a rotation vector (rad, a's body frame) or a unit quaternion */
            int len = cJSON_IsArray(rot) ? cJSON_GetArraySize(rot) : 0;
            if (len == 4) {
                if ((s = read_unit_quat(rot, key, &j->rotation, err))) return s;
            } else {
                double v[3];
                if (len != 3) {
                    describe(rot, got, sizeof got);
                    return fail(err,
                                "%s: expected a rotation vector [rx, ry, rz] (rad) or a unit quaternion [p0, "
                                "p1, p2, p3], got %s",
                                key, got);
                }
                if ((s = read_vector(rot, key, 3, v, err))) return s;
                cr_vec3 w = cr_v3_load(v);
                double angle = cr_v3_norm(w);
                j->rotation = angle > 0 ? cr_q_axis_angle(cr_v3_scale(w, 1.0 / angle), angle) : cr_q_identity();
            }
            j->has_rotation = 1;
        }
        /* a drive: the relative rotation about the axis at angle · f (hinge, cylindrical) or
         * the slide along it at position · f (prismatic, cylindrical), f the load factor in
         * statics and `time` in dynamic stages (as a support's motion) */
        const cJSON *drive = cJSON_GetObjectItemCaseSensitive(c, "drive");
        path_key(key, path, "drive");
        if (drive) {
            if (type != CR_JOINT_HINGE && type != CR_JOINT_PRISMATIC && type != CR_JOINT_CYLINDRICAL)
                return fail(err, "%s: only a hinge, prismatic or cylindrical joint has a drive (this joint is a %s)",
                            key, JOINT_TYPE_CHOICES[type]);
            if ((s = parse_joint_drive(drive, key, type, j, &st->joint_time_tables[i], err))) return s;
        }
        if ((s = parse_joint_spring(c, path, type, j, err))) return s;
        if ((s = parse_joint_limits(c, path, type, j, err))) return s;
        if ((s = parse_stage_mask(c, path, sc, &j->stages, err))) return s;
    }
    sc->joint_count = n;
    sc->joints = st->joints;
    return CR_OK;
}
