/* cosserat — scenario files, the "loads" section, with tendon/chamber offsets and the time
 * functions (which supports share).
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* enum choices; index = the C enum value */
static const char *const LOAD_CHOICES[] = {"force",   "moment", "force_density", "moment_density",
                                           "gravity", "tendon", "chamber",       NULL};
static const char *const FRAME_CHOICES[] = {"inertial", "body", NULL};
static const char *const TIME_CHOICES[] = {"constant", "ramp", "table", "sine", "smooth_step", NULL};

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
cr_status parse_time(const cJSON *load, const char *parent, cr_time_function *f, cr_time_point **table, cr_error *err)
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

cr_status parse_loads(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
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
    if (!(st->load_rod = calloc((size_t)n, sizeof *st->load_rod))) return no_memory(err);
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
        /* a distributed load's rod: "rod" (required with several rods but for gravity, which
         * without it acts on every rod) */
        if (type != CR_LOAD_FORCE && type != CR_LOAD_MOMENT) {
            int dflt = st->multi ? (type == CR_LOAD_GRAVITY ? -1 : -2) : 0;
            if ((s = get_rod_name(c, path, st, dflt, &st->load_rod[i], err))) return s;
            if (st->load_rod[i] == -2)
                return fail(err, "%s.rod: missing (the name of the rod this load acts on)", path);
        }
        const cr_rod_def *on = st->load_rod[i] >= 0 ? rod_def_of(def, st, st->load_rod[i]) : def;
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
                st->load_rod[i] = st->body_rod ? st->body_rod[ld->body] : 0;
                if (st->load_rod[i] == -1) st->load_rod[i] = -3; /* a free body's (finish_rods) */
            } else {
                node_ref ref;
                if ((s = get_rod_node(c, path, "node", def, st, &ref, err))) return s;
                ld->node = ref.node;
                st->load_rod[i] = ref.rod;
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
            for (int r = 0; r < (st->load_rod[i] < 0 ? st->rod_count : 1); ++r) {
                const cr_rod_def *g = st->load_rod[i] < 0 ? rod_def_of(def, st, r) : on;
                cr_section_resultants sr;
                cr_section_resultants_eval(g, 0.5, &sr);
                if (!(sr.rhoA > 0)) {
                    format_number(g->material.rho, got, sizeof got);
                    if (g->material.rho > 0) /* the area underflows (e.g. a radius of 5e-324) */
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
