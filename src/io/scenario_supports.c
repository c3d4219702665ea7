/* cosserat — scenario files, the "boundary_conditions" section (clamps, poses, pins, supports;
 * their target rotations and tables of poses).
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* enum choices; index = the C enum value */
static const char *const BC_CHOICES[] = {"clamp", "pose", "pin", "support", NULL};
static const char *const BC_FRAME_CHOICES[] = {"inertial", "reference", NULL};
static const char *const HOLD_NAMES[] = {"x", "y", "z", "rx", "ry", "rz", NULL};

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

cr_status parse_bcs(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
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
    if (!(st->bc_rod = calloc((size_t)n, sizeof *st->bc_rod))) return no_memory(err);
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
        node_ref ref;
        if ((s = get_rod_node(c, path, "node", def, st, &ref, err))) return s;
        bc->node = ref.node;
        st->bc_rod[i] = ref.rod;
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
