/* What the fixed-step formulations (lgvi, port_hamiltonian) share in their adapters:
 * checks of the scenario against what a uniform, end-clamped chain can represent, copies
 * of the loads, and the driver of a dynamic stage with a fixed step (outputs every
 * output_dt, progress/checkpoint/stop callbacks, resume inside a stage). */
#ifndef COSSERAT_FIXED_STEP_H
#define COSSERAT_FIXED_STEP_H

#include "model/formulation.h"

#include <stddef.h>

/* The section resultants, which must be the same on every element (the kernels take one set). */
cr_status cr_rod_uniform_section(const cr_rod_def *def, const char *model, cr_section_resultants *out,
                                 cr_error *err);
/* Supports: clamps at the end nodes only; *start / *end set when node 0 / the last node is clamped. */
cr_status cr_rod_end_clamps(const cr_rod_def *def, const char *model, int *start, int *end, cr_error *err);
/* A dynamic stage k: time_step given, t_end a whole number of steps. */
cr_status cr_fixed_step_stage_check(const cr_scenario *sc, int k, const char *model, cr_error *err);

/* Deep copies of the definition's loads (time tables owned); NULL and err on no memory. */
cr_load_def *cr_loads_copy(const cr_rod_def *def, cr_error *err);
void cr_loads_free(cr_load_def *loads, int count);

double cr_wall_seconds(void);

typedef struct cr_fixed_step_ops {
    /* before the first step of a stage (set the step, the stage's load mask) */
    cr_status (*begin)(cr_sim *sim, int stage, double h, cr_error *err);
    /* one step of h from the current time; on failure the state is unchanged */
    cr_status (*step)(cr_sim *sim, double h, cr_dynamic_report *report, cr_error *err);
    /* the series row of the current state */
    void (*sample)(const cr_sim *sim, cr_dynamic_sample *out);
    /* Optional: the energy account the driver watches at every output time. From a series row,
     * *stored = the energy the rod holds (kinetic + elastic) and *supplied = the net energy the
     * loads brought in (their work minus what was dissipated); returns the band, the largest
     * drift of stored - supplied allowed, as a fraction of the energy that has entered the rod
     * (the energy stored at the stage's start plus the largest |supplied| so far). *roundoff: a
     * bound on supplied's accumulated rounding error (J, cumulative; its growth since the start
     * is allowed on top of the band). */
    double (*energy)(const cr_sim *sim, const cr_dynamic_sample *row, double *stored, double *supplied,
                     double *roundoff);
    /* Optional: where and why, in words, when the balance leaves its band (ends the message). */
    void (*explain)(const cr_sim *sim, char *text, size_t size);
} cr_fixed_step_ops;

/* A dynamic stage from the current time (> t_stage_start when resuming) to t_stage_start +
 * t_end: a row every output_dt (rounded to whole steps) and at the end, on_step after every
 * step. The kernels keep their work and dissipation in their (checkpointed) state.
 * With ops->energy, a row whose energy balance has left its band ends the stage with
 * CR_NOT_CONVERGED (the row is not reported) and the state of the last row within the band
 * restored. */
cr_status cr_fixed_step_stage(cr_sim *sim, const cr_fixed_step_ops *ops, int stage, double t_stage_start,
                              const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                              cr_error *err);

#endif
