/* Shared parts of the fixed-step formulations' adapters (fixed_step.h). */
#define _POSIX_C_SOURCE 199309L
#include "model/fixed_step.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double cr_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

cr_status cr_rod_uniform_section(const cr_rod_def *def, const char *model, cr_section_resultants *out,
                                 cr_error *err)
{
    cr_section_resultants r0, r;
    cr_section_resultants_eval(def, 0.5 / def->elements, &r0);
    for (int e = 1; e < def->elements; ++e) {
        cr_section_resultants_eval(def, (e + 0.5) / def->elements, &r);
        const double a[9] = {r0.EA, r0.GA_y, r0.GA_z, r0.GJ, r0.EI_y, r0.EI_z, r0.rhoA, r0.rhoI_y, r0.rhoI_z};
        const double b[9] = {r.EA, r.GA_y, r.GA_z, r.GJ, r.EI_y, r.EI_z, r.rhoA, r.rhoI_y, r.rhoI_z};
        for (int q = 0; q < 9; ++q)
            if (fabs(a[q] - b[q]) > 1e-12 * fabs(a[q]))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "rod.sections: the %s model needs a uniform section (element %d differs from "
                                    "element 0); use the mixed_discrete model for tapered or piecewise rods",
                                    model, e);
    }
    *out = r0;
    return CR_OK;
}

cr_status cr_rod_end_clamps(const cr_rod_def *def, const char *model, int *start, int *end, cr_error *err)
{
    *start = *end = 0;
    for (int k = 0; k < def->bc_count; ++k) {
        int node = def->bcs[k].node < 0 ? def->bcs[k].node + def->elements + 1 : def->bcs[k].node;
        const cr_bc_def *b = &def->bcs[k];
        if (b->type != CR_BC_CLAMP)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.type: the %s model supports clamps only (pins, supports and "
                                "prescribed poses: mixed_discrete)",
                                k, model);
        const char *key = b->has_position ? "position" : b->rotation_kind != CR_BC_ROTATION_NONE ? "rotation"
                          : b->time.type != CR_TIME_CONSTANT                             ? "time"
                          : b->stages != 0                                               ? "stages"
                                                                                         : NULL;
        if (key)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.%s: the %s model clamps in the reference pose in every stage "
                                "(moving and staged supports: mixed_discrete)",
                                k, key, model);
        if (node != 0 && node != def->elements)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.node: the %s model clamps the end nodes only (0 or -1), got "
                                "node %d",
                                k, model, node);
        if (node == 0) *start = 1;
        else *end = 1;
    }
    return CR_OK;
}

/* A fixed step samples a load's time function once per step (the port-Hamiltonian midpoint
 * at t_{n+1/2}, the LGVI rectangle rule at t_n) and the scheme sees nothing in between: a
 * pulse of a time table narrower than a step can fall between two samples and be stepped over
 * entirely (the flying spaghetti with a 15 s step samples its 0-5 s load table at 7.5 s only,
 * where it is 0, and the rod never moves), and a sine sampled less than twice a period aliases.
 * Either is an answer that looks converged. A table row inside the stage that lies outside
 * the range of the two samples around it by more than a quarter of the table's range is such
 * a skipped pulse (a finely tabulated smooth function, or a steep monotone ramp, stays within
 * its samples' range: delayed by at most a step, not lost). `offset` places the samples: t_n +
 * offset h. Returns the row, or -1; *excess is its distance from the samples' range. */
static int table_skipped_row(const cr_time_function *f, double ta, double tb, double h, double offset, double *excess)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < f->point_count; ++i) lo = fmin(lo, f->points[i].value), hi = fmax(hi, f->points[i].value);
    for (int i = 0; i < f->point_count; ++i) {
        double t = f->points[i].t;
        if (!(t > ta && t < tb)) continue;
        double n = floor((t - ta) / h - offset);
        double s0 = ta + (n + offset) * h, s1 = s0 + h;
        double v0 = cr_time_function_eval(f, fmax(s0, ta)), v1 = cr_time_function_eval(f, fmin(s1, tb));
        double v = f->points[i].value, d = fmax(v - fmax(v0, v1), fmin(v0, v1) - v);
        if (d > 0.25 * (hi - lo)) {
            *excess = d;
            return i;
        }
    }
    return -1;
}

/* ∫_{t_0}^{t} f of a table (t_0 its first row; constant outside its rows) */
static double table_integral(const cr_time_function *f, double t)
{
    const cr_time_point *p = f->points;
    int n = f->point_count;
    if (t <= p[0].t) return p[0].value * (t - p[0].t);
    int lo = 0, hi = n - 1; /* the last row at or before t */
    if (t >= p[hi].t)
        lo = hi;
    else
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (p[mid].t <= t)
                lo = mid;
            else
                hi = mid;
        }
    double cum = 0;
    /* the rows before lo (a sum per call: the tables are short next to the steps, and this
     * runs once per stage at check) */
    for (int i = 0; i < lo; ++i) cum += 0.5 * (p[i].value + p[i + 1].value) * (p[i + 1].t - p[i].t);
    if (lo == n - 1) return cum + p[lo].value * (t - p[lo].t);
    double v = cr_time_function_eval(f, t);
    return cum + 0.5 * (p[lo].value + v) * (t - p[lo].t);
}

/* The impulse the samples give a table's load over the stage against the table's own, both
 * over the steps that overlap its rows: a step that samples a pulse at its peak (the flying
 * spaghetti with a 5 s step: 200 over the whole 0-5 s pulse, twice its impulse) or off it
 * is wrong by a large fraction. Returns the relative error. */
static double table_impulse_error(const cr_time_function *f, double ta, double tb, double h, double offset)
{
    const cr_time_point *p = f->points;
    double t0 = fmax(ta, p[0].t), t1 = fmin(tb, p[f->point_count - 1].t);
    if (!(t1 > t0)) return 0;
    long n0 = (long)floor((t0 - ta) / h), n1 = (long)ceil((t1 - ta) / h), total = lround((tb - ta) / h);
    if (n1 > total) n1 = total;
    double sampled = 0, exact = 0, scale = 0;
    for (long n = n0; n < n1; ++n) {
        double s0 = ta + n * h;
        sampled += h * cr_time_function_eval(f, s0 + offset * h);
        exact += table_integral(f, s0 + h) - table_integral(f, s0);
    }
    for (int i = 0; i + 1 < f->point_count; ++i) {
        double u0 = fmax(p[i].t, t0), u1 = fmin(p[i + 1].t, t1);
        if (u1 > u0) scale += 0.5 * (fabs(p[i].value) + fabs(p[i + 1].value)) * (u1 - u0);
    }
    return scale > 0 ? fabs(sampled - exact) / scale : 0;
}

static cr_status load_time_check(const cr_scenario *sc, int k, const char *model, cr_error *err)
{
    double ta = 0; /* time is measured from the start of the first dynamic stage */
    for (int j = 0; j < k; ++j)
        if (sc->stages[j].type == CR_STAGE_DYNAMIC) ta += sc->stages[j].dynamics.t_end;
    const cr_dynamic_options *o = &sc->stages[k].dynamics;
    double h = o->time_step, tb = ta + o->t_end;
    double offset = strcmp(model, "port_hamiltonian") == 0 ? 0.5 : 0.0;
    for (int i = 0; i < sc->rod.load_count; ++i) {
        const cr_load_def *l = &sc->rod.loads[i];
        const cr_time_function *f = &l->time;
        if (l->stages && !(k < 32 && (l->stages & (1u << k)))) continue;
        double excess = 0;
        int row = f->type == CR_TIME_TABLE ? table_skipped_row(f, ta, tb, h, offset, &excess) : -1;
        if (row >= 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s steps over loads.%d.time.points.%d (t = %g s, value %g): "
                                "the %s model samples the load once per step and its samples around that row miss "
                                "it by %g; use a step no longer than the table's rows are apart there",
                                k, h, i, row, f->points[row].t, f->points[row].value, model, excess);
        double impulse = f->type == CR_TIME_TABLE ? table_impulse_error(f, ta, tb, h, offset) : 0;
        if (impulse > 0.25)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s is too coarse for loads.%d.time: the %s model samples the "
                                "load once per step, and its samples give the load's table an impulse %.0f %% off; "
                                "use a step no longer than the table's rows are apart",
                                k, h, i, model, 100 * impulse);
        if (f->type == CR_TIME_SINE && f->amplitude != 0 && f->frequency > 0 && h > 0.5 / f->frequency &&
            (!(f->t1 > f->t0) || (f->t1 > ta && f->t0 < tb)))
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s is longer than half the period of loads.%d.time (a sine "
                                "of %g Hz: %g s); the %s model samples the load once per step and would alias it: "
                                "use a step of at most %g s",
                                k, h, i, f->frequency, 0.5 / f->frequency, model, 0.5 / f->frequency);
    }
    return CR_OK;
}

cr_status cr_fixed_step_stage_check(const cr_scenario *sc, int k, const char *model, cr_error *err)
{
    const cr_dynamic_options *o = &sc->stages[k].dynamics;
    if (!(o->time_step > 0))
        return cr_error_set(err, CR_BAD_INPUT,
                            "stages.%d.time_step: required by the %s model (a fixed step, s): give one, or use the "
                            "mixed_discrete model (adaptive steps)",
                            k, model);
    double n = o->t_end / o->time_step;
    if (fabs(n - nearbyint(n)) > 1e-6 * fmax(1.0, n) || nearbyint(n) < 1)
        return cr_error_set(err, CR_BAD_INPUT,
                            "stages.%d.t_end: %g s is not a whole number of time steps of %g s (%s steps are fixed)",
                            k, o->t_end, o->time_step, model);
    /* the steps are known in advance: a stage that cannot end within max_steps is refused
     * here, not after max_steps of work */
    if (nearbyint(n) > o->max_steps)
        return cr_error_set(err, CR_BAD_INPUT,
                            "stages.%d.max_steps: t_end / time_step = %.0f steps of the %s model, more than max_steps "
                            "= %ld",
                            k, nearbyint(n), model, (long)o->max_steps);
    return load_time_check(sc, k, model, err);
}

void cr_loads_free(cr_load_def *loads, int count)
{
    for (int k = 0; loads && k < count; ++k) free((void *)loads[k].time.points);
    free(loads);
}

cr_load_def *cr_loads_copy(const cr_rod_def *def, cr_error *err)
{
    cr_load_def *l = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *l);
    for (int k = 0; l && k < def->load_count; ++k) {
        l[k] = def->loads[k];
        l[k].time.points = NULL;
        if (def->loads[k].time.type == CR_TIME_TABLE && def->loads[k].time.point_count > 0) {
            size_t n = (size_t)def->loads[k].time.point_count * sizeof(cr_time_point);
            cr_time_point *pts = malloc(n);
            if (!pts) {
                cr_loads_free(l, k);
                l = NULL;
                break;
            }
            memcpy(pts, def->loads[k].time.points, n);
            l[k].time.points = pts;
        }
    }
    if (!l) cr_error_set(err, CR_NO_MEMORY, "out of memory copying the loads");
    return l;
}

/* The energy balance of a conservative fixed-step scheme, watched at the output times. The
 * port-Hamiltonian midpoint rule keeps stored - supplied constant to the Newton tolerance, the
 * LGVI schemes within a bounded band; a drift beyond its band is an answer gone wrong (an
 * unconverged step, a step beyond the stability limit, a model outside its range), not a result.
 * The reference scale is the energy that has entered the rod: stored at the watch's start plus
 * the largest |supplied| since, so that a blow-up cannot widen its own band. */
typedef struct energy_watch {
    double band;       /* 0: not watched */
    double base;       /* stored - supplied at the start */
    double stored0, supplied0, entered, roundoff0;
    double t_good;     /* time of the last row within the band, whose state `good` holds */
    double *good;
    int good_size; /* the doubles `good` holds room for */
} energy_watch;

static void watch_start(cr_sim *sim, const cr_fixed_step_ops *ops, const cr_dynamic_sample *row, energy_watch *w)
{
    memset(w, 0, sizeof *w);
    if (!ops->energy) return;
    double stored, supplied;
    w->band = ops->energy(sim, row, &stored, &supplied, &w->roundoff0);
    w->base = stored - supplied;
    w->stored0 = stored, w->supplied0 = supplied;
    w->t_good = row->t;
    /* without memory for the last good state the watch still stops the run, keeping the current one */
    w->good_size = sim->f->packed_size(sim->impl);
    w->good = malloc(sizeof(double) * (size_t)w->good_size);
    if (w->good) sim->f->pack(sim->impl, w->good);
}

/* 1 when the row is within the band (the state is then kept as the last good one) */
static int watch_row(cr_sim *sim, const cr_fixed_step_ops *ops, const cr_dynamic_sample *row, energy_watch *w,
                     int stage, cr_error *err)
{
    if (!(w->band > 0)) return 1;
    double stored, supplied, roundoff;
    ops->energy(sim, row, &stored, &supplied, &roundoff);
    w->entered = fmax(w->entered, fabs(supplied - w->supplied0));
    double scale = fabs(w->stored0) + w->entered, drift = stored - supplied - w->base;
    /* the balance is a difference of sums: its round-off is relative to the terms' size */
    double floor = 1e-12 * (fabs(stored) + fabs(supplied) + fabs(w->base)) + (roundoff - w->roundoff0);
    if (fabs(drift) <= w->band * scale + floor) {
        w->t_good = row->t;
        const int n = sim->f->packed_size(sim->impl); /* (contact anchors: it may have grown) */
        if (w->good && n > w->good_size) {
            double *g = realloc(w->good, sizeof(double) * (size_t)n);
            if (g)
                w->good = g, w->good_size = n;
            else
                free(w->good), w->good = NULL; /* (the watch then keeps the current state) */
        }
        if (w->good) sim->f->pack(sim->impl, w->good);
        return 1;
    }
    char why[256] = "";
    if (ops->explain) ops->explain(sim, why, sizeof why);
    cr_error_set(err, CR_NOT_CONVERGED,
                 "stages.%d: the %s model's energy balance left its band at t = %.6g s: stored - supplied energy "
                 "drifted by %.3g J, %.3g times the energy that entered the rod (%.3g J; allowed %.3g); the state "
                 "at t = %.6g s is kept. %s",
                 stage, sim->f->name, row->t, drift, scale > 0 ? fabs(drift) / scale : INFINITY, scale, w->band,
                 w->good ? w->t_good : row->t, why);
    if (w->good) sim->f->unpack(sim->impl, w->good);
    return 0;
}

cr_status cr_fixed_step_stage(cr_sim *sim, const cr_fixed_step_ops *ops, int stage, double t_stage_start,
                              const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                              cr_error *err)
{
    double h = o->time_step, wall0 = cr_wall_seconds();
    memset(report, 0, sizeof *report);
    report->t_start = t_stage_start;
    if (!(h > 0))
        return cr_error_set(err, CR_BAD_INPUT, "stages.%d.time_step: required by the %s model", stage, sim->f->name);
    cr_status st = ops->begin(sim, stage, h, err);
    if (st != CR_OK) return st;
    long total = lround(o->t_end / h);
    long done = lround((sim->f->time(sim->impl) - t_stage_start) / h); /* > 0 when resuming inside the stage */
    report->steps = done; /* a resumed stage counts the steps taken before the interruption too */
    /* (an output_dt beyond the stage is one row at its end; lround of it could overflow) */
    double every_d = o->output_dt / h;
    long every = every_d >= (double)total ? total : lround(every_d);
    if (every < 1) every = 1;
    cr_dynamic_sample smp;
    /* a resumed stage watches its balance from the resumed state on */
    ops->sample(sim, &smp);
    energy_watch watch;
    watch_start(sim, ops, &smp, &watch);
    if (done == 0 && cb->on_output && cb->on_output(sim, &smp, cb->user)) {
        free(watch.good);
        return CR_INTERRUPTED;
    }
    for (long n = done; n < total; ++n) {
        /* (the stage check refuses t_end / time_step > max_steps; a caller's options may not
         * have been checked) */
        if (n >= o->max_steps) {
            st = cr_error_set(err, CR_NOT_CONVERGED, "stages.%d.max_steps: %ld steps reached at t = %.6g s", stage,
                              (long)o->max_steps, sim->f->time(sim->impl));
            break;
        }
        if ((st = ops->step(sim, h, report, err)) != CR_OK) break;
        report->steps++;
        int stop = 0;
        if ((n + 1) % every == 0 || n + 1 == total) {
            ops->sample(sim, &smp);
            if (!watch_row(sim, ops, &smp, &watch, stage, err)) {
                st = CR_NOT_CONVERGED;
                break;
            }
            if (cb->on_output) stop = cb->on_output(sim, &smp, cb->user);
        }
        if (cb->on_step) stop |= cb->on_step(sim, h, report->steps, 0.0, cb->user);
        if (stop) {
            st = CR_INTERRUPTED;
            break;
        }
    }
    free(watch.good);
    report->t_end = sim->f->time(sim->impl);
    report->h_last = h;
    report->wall_time_s = cr_wall_seconds() - wall0;
    return st;
}
