/* cosserat — scenario files, the "obstacles" and "contact" sections (cosserat/contact.h,
 * docs/scenario.md). Geometry is checked here, each problem named by its key: radii and
 * lengths positive, directions non-zero, friction finite, non-negative, kinetic <= static.
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const OBSTACLE_TYPE_CHOICES[] = {"plane", "sphere", "cylinder", "capsule", "box", NULL};

/* Orthonormal axes with column 2 along the unit vector a, column 0 along the part of `hint`
 * normal to a (or any normal when hint is parallel to a or absent). */
static cr_mat3 axes_about(cr_vec3 a, const double *hint)
{
    cr_vec3 u = hint ? cr_v3(hint[0], hint[1], hint[2]) : cr_v3(0, 0, 0);
    u = cr_v3_madd(u, -cr_v3_dot(u, a), a);
    if (!(cr_v3_norm(u) > 1e-9)) { /* the basis vector least aligned with a */
        cr_vec3 e = fabs(a.x) < 0.9 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
        u = cr_v3_madd(e, -cr_v3_dot(e, a), a);
    }
    u = cr_v3_normalize(u);
    return cr_m3_columns(u, cr_v3_cross(a, u), a);
}

static cr_status parse_coulomb(const cJSON *o, const char *parent, const char *key, double *mu_s, double *mu_k,
                               cr_error *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!f) return CR_OK; /* frictionless */
    char path[PATH_SIZE];
    path_key(path, parent, key);
    cr_status s;
    if ((s = expect_object(f, path, err))) return s;
    if ((s = check_keys(f, path, K_FRICTION, err))) return s;
    if ((s = get_number(f, path, "static", 1, 0, NONNEGATIVE, mu_s, err))) return s;
    if ((s = get_number(f, path, "kinetic", 0, *mu_s, NONNEGATIVE, mu_k, err))) return s;
    if (*mu_k > *mu_s)
        return fail(err, "%s.kinetic: %g is above the static coefficient %g (sliding cannot hold more than sticking)",
                    path, *mu_k, *mu_s);
    return CR_OK;
}

static cr_status parse_friction(const cJSON *o, const char *parent, cr_obstacle_def *ob, cr_error *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "friction");
    if (!f) return CR_OK; /* frictionless */
    char path[PATH_SIZE];
    path_key(path, parent, "friction");
    cr_status s;
    if ((s = expect_object(f, path, err))) return s;
    if ((s = check_keys(f, path, K_FRICTION, err))) return s;
    if ((s = get_number(f, path, "static", 1, 0, NONNEGATIVE, &ob->mu_static, err))) return s;
    if ((s = get_number(f, path, "kinetic", 0, ob->mu_static, NONNEGATIVE, &ob->mu_kinetic, err))) return s;
    if (ob->mu_kinetic > ob->mu_static)
        return fail(err, "%s.kinetic: %g is above the static coefficient %g (sliding cannot hold more than sticking)",
                    path, ob->mu_kinetic, ob->mu_static);
    return CR_OK;
}

/* The keys that move an obstacle at constant rates; a driven one ("motion", "time") takes none. */
static const char *const RATE_KEYS[] = {"velocity", "acceleration", "angular_velocity", NULL};

/* "motion": a table of poses, rows [t, x, y, z] or [t, x, y, z, rx, ry, rz] as a support's (the
 * centre's position in I, the rotation vector in I from the obstacle given), t increasing; or
 * "position" (where the centre goes) and "rotation" (a rotation vector) scaled by the time
 * function "time", as a support's target and motion factor. */
static cr_status parse_drive(const cJSON *o, const char *path, cr_obstacle_def *ob, scenario_storage *st, int index,
                             cr_error *err)
{
    char mpath[PATH_SIZE], item[PATH_SIZE], got[VALUE_TEXT_SIZE], prev[32];
    const cJSON *rows, *time = cJSON_GetObjectItemCaseSensitive(o, "time"),
                       *position = cJSON_GetObjectItemCaseSensitive(o, "position"),
                       *rotation = cJSON_GetObjectItemCaseSensitive(o, "rotation");
    cr_status s;
    if ((s = get_array(o, path, "motion", 0, &rows, err))) return s;
    if (!rows && !time && !position && !rotation) return CR_OK;
    const char *what = rows ? "motion" : "time";
    path_key(mpath, path, what);
    if (!rows && !time)
        return fail(err,
                    "%s.%s: moves the obstacle with a time function: give \"time\" (a driven obstacle: "
                    "\"position\" and \"rotation\" scaled by f(t), or a table of poses \"motion\")",
                    path, position ? "position" : "rotation");
    for (int k = 0; RATE_KEYS[k]; ++k)
        if (cJSON_GetObjectItemCaseSensitive(o, RATE_KEYS[k]))
            return fail(err, "%s: a driven obstacle moves by its %s alone; give either %s or %s", mpath,
                        rows ? "table of poses" : "time function", what, RATE_KEYS[k]);
    if (!rows) {
        if (!position && !rotation)
            return fail(err,
                        "%s: moves nothing: give \"position\" (where the centre goes at f = 1) and/or "
                        "\"rotation\" (a rotation vector at f = 1)",
                        mpath);
        if ((s = parse_time(o, path, &st->obstacle_times[index], &st->obstacle_time_tables[index], err))) return s;
        ob->time = &st->obstacle_times[index];
        double v[3];
        if (position) {
            if ((s = get_vector(o, path, "position", 3, NULL, v, err))) return s;
            ob->displacement = cr_v3_sub(cr_v3_load(v), ob->center);
        }
        if (rotation) {
            char rp[PATH_SIZE];
            path_key(rp, path, "rotation");
            if ((s = get_vector(o, path, "rotation", 3, NULL, v, err))) return s;
            for (int c = 0; c < 3; ++c)
                if (!(fabs(v[c]) <= 1e6)) return fail(err, "%s.%d: must be within +-1e6 rad, got %g", rp, c, v[c]);
            ob->rotation = cr_v3_load(v);
        }
        return CR_OK;
    }
    static const char *const replaced[] = {"position", "rotation", "time", NULL};
    for (int k = 0; replaced[k]; ++k)
        if (cJSON_GetObjectItemCaseSensitive(o, replaced[k]))
            return fail(err, "%s: a table of poses replaces %s; give either", mpath, replaced[k]);
    const int n = cJSON_GetArraySize(rows);
    if (n < 2) {
        describe(rows, got, sizeof got);
        return fail(err, "%s: expected at least 2 rows [t, x, y, z(, rx, ry, rz)], got %s", mpath, got);
    }
    cr_bc_motion_point *table = calloc((size_t)n, sizeof *table);
    if (!table) return no_memory(err);
    st->obstacle_motions[index] = table;
    int i = 0;
    for (const cJSON *r = rows->child; r; r = r->next, ++i) {
        double v[7] = {0, 0, 0, 0, 0, 0, 0};
        path_index(item, mpath, i);
        const int len = cJSON_IsArray(r) ? cJSON_GetArraySize(r) : 0;
        if (len != 4 && len != 7) {
            describe(r, got, sizeof got);
            return fail(err, "%s: expected [t, x, y, z] or [t, x, y, z, rx, ry, rz], got %s", item, got);
        }
        if ((s = read_vector(r, item, len, v, err))) return s;
        if (i > 0 && !(v[0] > table[i - 1].t)) {
            format_number(table[i - 1].t, prev, sizeof prev);
            describe(r->child, got, sizeof got);
            return fail(err, "%s.0: t must be > %s (the previous row's), got %s", item, prev, got);
        }
        for (int c = 4; c < len; ++c)
            if (!(fabs(v[c]) <= 1e6)) return fail(err, "%s.%d: must be within +-1e6 rad, got %g", item, c, v[c]);
        table[i] = (cr_bc_motion_point){v[0], cr_v3(v[1], v[2], v[3]), cr_v3(v[4], v[5], v[6])};
    }
    ob->motion = table, ob->motion_count = n;
    return CR_OK;
}

static cr_status parse_obstacle(const cJSON *o, const char *path, int index, cr_obstacle_def *ob, scenario_storage *st,
                                cr_error *err)
{
    cr_status s;
    int type = 0;
    if ((s = expect_object(o, path, err))) return s;
    if ((s = check_keys(o, path, K_OBSTACLE, err))) return s;
    char tp[PATH_SIZE];
    path_key(tp, path, "type");
    if (!cJSON_GetObjectItemCaseSensitive(o, "type")) return fail(err, "%s: missing", tp);
    if ((s = get_enum(o, path, "type", OBSTACLE_TYPE_CHOICES, 0, &type, err))) return s;
    memset(ob, 0, sizeof *ob);
    ob->type = (cr_obstacle_type)type;
    const char *name = NULL;
    if ((s = get_string(o, path, "name", NULL, &name, err))) return s;
    if (name && (!*name || strlen(name) >= sizeof ob->name))
        return fail(err, "%s.name: must have 1 to %d characters", path, (int)sizeof ob->name - 1);
    if (name)
        snprintf(ob->name, sizeof ob->name, "%s", name);
    else
        snprintf(ob->name, sizeof ob->name, "obstacle%d", index);
    double v[3], hint[3];
    const double zero[3] = {0, 0, 0};
    ob->length = INFINITY;
    ob->half_extents = cr_v3(INFINITY, INFINITY, INFINITY);
    ob->axes = cr_m3_identity();
    char p[PATH_SIZE];
    switch (ob->type) {
    case CR_OBSTACLE_PLANE: {
        if ((s = get_vector(o, path, "point", 3, zero, v, err))) return s;
        ob->center = cr_v3_load(v);
        path_key(p, path, "normal");
        if ((s = get_vector(o, path, "normal", 3, NULL, v, err))) return s;
        if ((s = normalize(v, 3, p, cJSON_GetObjectItemCaseSensitive(o, "normal"), err))) return s;
        const int has_hint = cJSON_GetObjectItemCaseSensitive(o, "e_x") != NULL;
        if (has_hint) {
            path_key(p, path, "e_x");
            if ((s = get_vector(o, path, "e_x", 3, NULL, hint, err))) return s;
            cr_vec3 h = cr_v3_load(hint), n = cr_v3_load(v);
            if (!(cr_v3_norm(cr_v3_cross(h, n)) > 1e-9 * cr_v3_norm(h)))
                return fail(err, "%s: must not be parallel to the normal", p);
        }
        ob->axes = axes_about(cr_v3_load(v), has_hint ? hint : NULL);
        if (cJSON_GetObjectItemCaseSensitive(o, "half_extents")) {
            path_key(p, path, "half_extents");
            double h[2];
            if ((s = read_vector_rule(cJSON_GetObjectItemCaseSensitive(o, "half_extents"), p, 2, POSITIVE, h, err)))
                return s;
            ob->half_extents = cr_v3(h[0], h[1], 0);
        }
        break;
    }
    case CR_OBSTACLE_SPHERE:
        if ((s = get_vector(o, path, "center", 3, NULL, v, err))) return s;
        ob->center = cr_v3_load(v);
        if ((s = get_number(o, path, "radius", 1, 0, POSITIVE, &ob->radius, err))) return s;
        break;
    case CR_OBSTACLE_CYLINDER:
    case CR_OBSTACLE_CAPSULE:
        if ((s = get_vector(o, path, "center", 3, NULL, v, err))) return s;
        ob->center = cr_v3_load(v);
        path_key(p, path, "axis");
        if ((s = get_vector(o, path, "axis", 3, NULL, v, err))) return s;
        if ((s = normalize(v, 3, p, cJSON_GetObjectItemCaseSensitive(o, "axis"), err))) return s;
        ob->axes = axes_about(cr_v3_load(v), NULL);
        if ((s = get_number(o, path, "radius", 1, 0, POSITIVE, &ob->radius, err))) return s;
        if ((s = get_number(o, path, "length", ob->type == CR_OBSTACLE_CAPSULE, INFINITY, POSITIVE, &ob->length, err)))
            return s;
        break;
    case CR_OBSTACLE_BOX: {
        if ((s = get_vector(o, path, "center", 3, NULL, v, err))) return s;
        ob->center = cr_v3_load(v);
        path_key(p, path, "half_extents");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "half_extents");
        if (!h) return fail(err, "%s: missing", p);
        if ((s = read_vector_rule(h, p, 3, POSITIVE, v, err))) return s;
        ob->half_extents = cr_v3_load(v);
        if (cJSON_GetObjectItemCaseSensitive(o, "quaternion")) {
            cr_quat q;
            if ((s = get_unit_quat(o, path, "quaternion", &q, err))) return s;
            ob->axes = cr_q_exp(q);
        }
        break;
    }
    }
    /* a driven obstacle: a table of poses, or a position and rotation scaled by a time function */
    if ((s = parse_drive(o, path, ob, st, index, err))) return s;
    /* a moving obstacle: v t + a t²/2 at the run's time */
    if ((s = get_vector(o, path, "velocity", 3, zero, v, err))) return s;
    ob->velocity = cr_v3_load(v);
    if ((s = get_vector(o, path, "acceleration", 3, zero, v, err))) return s;
    ob->acceleration = cr_v3_load(v);
    /* a turning one: Exp(ω t) about its centre (a plane: its point) */
    if ((s = get_vector(o, path, "angular_velocity", 3, zero, v, err))) return s;
    ob->angular_velocity = cr_v3_load(v);
    return parse_friction(o, path, ob, err);
}

cr_status parse_obstacles(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    cr_status s;
    if ((s = get_array(root, "", "obstacles", 0, &list, err))) return s;
    const int n = list ? cJSON_GetArraySize(list) : 0;
    if (n > 0) {
        st->obstacles = calloc((size_t)n, sizeof *st->obstacles);
        st->obstacle_motions = calloc((size_t)n, sizeof *st->obstacle_motions);
        st->obstacle_times = calloc((size_t)n, sizeof *st->obstacle_times);
        st->obstacle_time_tables = calloc((size_t)n, sizeof *st->obstacle_time_tables);
        if (!st->obstacles || !st->obstacle_motions || !st->obstacle_times || !st->obstacle_time_tables)
            return no_memory(err);
        st->obstacle_alloc = n;
        char path[PATH_SIZE];
        int i = 0;
        for (const cJSON *o = list->child; o; o = o->next, ++i) {
            path_index(path, "obstacles", i);
            if ((s = parse_obstacle(o, path, i, &st->obstacles[i], st, err))) return s;
            for (int j = 0; j < i; ++j)
                if (!strcmp(st->obstacles[j].name, st->obstacles[i].name))
                    return fail(err, "%s.name: \"%s\" is also the name of obstacles.%d", path, st->obstacles[i].name,
                                j);
        }
        def->obstacles = st->obstacles, def->obstacle_count = n;
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "contact");
    if (!c) return CR_OK;
    if ((s = expect_object(c, "contact", err))) return s;
    if ((s = check_keys(c, "contact", K_CONTACT, err))) return s;
    const cJSON *self = cJSON_GetObjectItemCaseSensitive(c, "self");
    if (self && !cJSON_IsBool(self)) return fail(err, "contact.self: must be true or false");
    def->contact.self = cJSON_IsTrue(self);
    /* contact between the rods of an assembly (assembly_contact.c) */
    const cJSON *rods = cJSON_GetObjectItemCaseSensitive(c, "rods");
    if (rods && !cJSON_IsBool(rods)) return fail(err, "contact.rods: must be true or false");
    def->contact.rods = cJSON_IsTrue(rods);
    const cJSON *rolling = cJSON_GetObjectItemCaseSensitive(c, "rolling");
    if (rolling && !cJSON_IsBool(rolling)) return fail(err, "contact.rolling: must be true or false");
    def->contact.rolling = cJSON_IsTrue(rolling);
    if (n == 0 && !def->contact.self && !def->contact.rods)
        return fail(err, "contact: given without obstacles and without \"self\" or \"rods\": true (there is "
                         "nothing to touch)");
    cr_contact_def *cd = &def->contact;
    if ((s = get_number(c, "contact", "radius", 0, 0, POSITIVE, &cd->radius, err))) return s;
    if ((s = get_number(c, "contact", "tolerance", 0, 0, POSITIVE, &cd->tolerance, err))) return s;
    if ((s = get_number(c, "contact", "stiffness", 0, 0, POSITIVE, &cd->stiffness, err))) return s;
    if ((s = get_int(c, "contact", "max_updates", 0, 0, 1, &cd->max_updates, err))) return s;
    if ((s = get_number(c, "contact", "stick_speed", 0, 0, POSITIVE, &cd->stick_speed, err))) return s;
    /* friction between the rods of an assembly (assembly_contact.c) */
    return parse_coulomb(c, "contact", "rods_friction", &cd->rods_mu_static, &cd->rods_mu_kinetic, err);
}
