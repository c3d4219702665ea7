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

cr_status cr_fixed_step_stage_check(const cr_scenario *sc, int k, const char *model, cr_error *err)
{
    const cr_dynamic_options *o = &sc->stages[k].dynamics;
    if (!(o->time_step > 0))
        return cr_error_set(err, CR_BAD_INPUT, "stages.%d.time_step: required by the %s model (a fixed step, s)", k,
                            model);
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
    return CR_OK;
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
    w->good = malloc(sizeof(double) * (size_t)sim->f->packed_size(sim->impl));
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
