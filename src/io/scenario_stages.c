/* cosserat — scenario files, the "stages" section, and the "stages" masks of loads and supports
 * (which need the stage count).
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "load_steps": "auto" starts with a quarter of the way (spec §4: the examples' 8–10 equal
 * steps converge in 3 iterations each, a sign they could be longer) */
#define AUTO_FIRST_LOAD_STEPS 4

static const char *const STAGE_CHOICES[] = {"static", "dynamic", NULL};
static const char *const PATH_CHOICES[] = {"load_steps", "arc_length", NULL}; /* = cr_static_options.arc_length */
static const char *const ARC_LENGTH_KEYS[] = {"steps", "initial", "max_load_factor", NULL};

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
    if ((s = get_number(c, path, "rtol", 0, 1e-3, TOLERANCE, &d->rtol, err))) return s;
    if ((s = get_number(c, path, "atol", 0, 1e-6, TOLERANCE, &d->atol, err))) return s;
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

cr_status parse_stages(const cJSON *root, cr_scenario *sc, cr_error *err)
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
        if ((s = get_number(c, path, "atol", 0, 1e-10, TOLERANCE, &o->atol, err))) return s;
        if ((s = get_number(c, path, "rtol", 0, 1e-6, TOLERANCE, &o->rtol, err))) return s;
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
cr_status parse_stage_mask(const cJSON *obj, const char *parent, const cr_scenario *sc, unsigned *out, cr_error *err)
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
cr_status parse_stage_masks(const cJSON *root, const cr_scenario *sc, scenario_storage *st, cr_error *err)
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
    for (const cJSON *c = list && sc->rod.bc_count > 0 ? list->child : NULL; c; c = c->next, ++i) {
        path_index(path, "boundary_conditions", i);
        if ((s = parse_stage_mask(c, path, sc, &st->bcs[i].stages, err))) return s;
        /* with several rods, supports of one rod (st->bc_rod) */
        const int rod = st->multi ? st->bc_rod[i] : 0, nodes = rod_def_of(&sc->rod, st, rod)->elements + 1;
        int node = st->bcs[i].node < 0 ? st->bcs[i].node + nodes : st->bcs[i].node;
        for (int j = 0; j < i; ++j) {
            if (st->multi && st->bc_rod[j] != rod) continue;
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
