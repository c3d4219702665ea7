/* cosserat — dynamics of the mixed discrete rod: the index-1 DAE (12)–(14)
 * integrated by adaptive Radau IIA (3 stages, order 5), O(n) per step. */
#ifndef COSSERAT_DYNAMICS_H
#define COSSERAT_DYNAMICS_H

#include "cosserat/mixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dynamic stage: integrate from the state the previous stage left (a static
 * stage leaves it at rest) with the loads active in the stage × their time functions. */
typedef struct cr_dynamic_options {
    double t_end;               /* duration of the stage (s), > 0 */
    double rtol, atol;          /* integrator tolerances (defaults 1e-3, 1e-6) */
    double output_dt;           /* interval of series.csv rows (s), > 0 */
    double snapshot_dt;         /* interval of .vtp snapshots (s); 0 = output_dt */
    double h_init;              /* first step (s); 0 = automatic */
    double h_max;               /* largest step (s); 0 = no limit */
    long max_steps;             /* default 10000000 */
    double checkpoint_interval; /* wall-clock seconds between checkpoints (default 30; 0 = none) */
    double time_step;           /* fixed-step formulations (lgvi): the step h (s), > 0; 0 = not given.
                                   The mixed rod steps adaptively and rejects it. */
    /* Threads of a mixed assembly's rods (each rod's residual, Jacobian, factorizations and
     * solves a task; results bit-identical for any count). 0 (default): automatic, as the
     * statics' (cr_static_options.threads: COSSERAT_THREADS, else OMP_NUM_THREADS, else the
     * online CPUs, from CR_STATIC_PARALLEL_MIN_NODES nodes in all); >= 1: exactly that many
     * (at most one per rod). One rod's dynamics run on one thread. */
    int threads;
} cr_dynamic_options;

cr_dynamic_options cr_dynamic_default_options(void);

/* Integrator statistics of one dynamic stage. */
typedef struct cr_dynamic_report {
    long steps, rejected, newton_iterations, rhs_evals, jacobians, lu_real, lu_complex;
    double t_start, t_end, h_last;
    double wall_time_s;
} cr_dynamic_report;

/* A sample at an output time: the state (positions, orientations, velocities,
 * stresses, time) and its energies. */
enum { CR_SAMPLE_EXTRA_MAX = 12 };
typedef struct cr_dynamic_sample {
    double t;
    double kinetic, elastic, gravity; /* energies (J); gravity = -Σ m g·r */
    double work_external;             /* ∫ power of the non-gravity loads dt since the stage start */
    cr_vec3 momentum;                 /* total linear momentum (kg m/s), I */
    cr_vec3 angular_momentum;         /* total angular momentum about the origin of I (kg m²/s) */
    /* formulation-specific series columns (names from the formulation, in this order) */
    int extra_count;
    double extra[CR_SAMPLE_EXTRA_MAX];
} cr_dynamic_sample;

typedef int (*cr_dynamic_output_fn)(const cr_model *model, const cr_state *state, const cr_dynamic_sample *sample,
                                    void *user);
/* After every accepted step: return nonzero to stop (CR_INTERRUPTED). The state
 * is the accepted one; `h` the next step size and `work_external` the external
 * work up to the state's time (both for checkpoints). */
typedef int (*cr_dynamic_step_fn)(const cr_model *model, const cr_state *state, double h, long steps,
                                  double work_external, void *user);

/* Integrates stage `stage` (selects the active loads) from state->time to
 * t_stage_start + options->t_end, where t_stage_start is given (resume: the
 * stage started earlier than state->time). `h0` > 0 restarts with that step
 * (checkpoints), else options->h_init. Output times are t_stage_start + k·output_dt
 * after state->time (and state->time itself when it equals t_stage_start).
 * On return state holds the last accepted step. */
cr_status cr_dynamic_solve(const cr_model *model, cr_state *state, int stage, double t_stage_start, double h0,
                           double work_external, const cr_dynamic_options *options, cr_dynamic_output_fn on_output,
                           cr_dynamic_step_fn on_step, void *user, cr_dynamic_report *report, cr_error *err);

/* The integrator's memory, for checkpoints that resume bit-for-bit where the
 * uninterrupted run would have gone: a flat array of cr_dynamic_memory_size(model)
 * doubles holding the stage it belongs to, the time of its state, the stage's
 * statistics so far and the Radau controller memory with the collocation polynomial
 * of the last step (cr_radau_memory, radau.h). The caller allocates it zeroed
 * (= empty) and keeps it with the state (cr_state_pack) in a checkpoint. */
int cr_dynamic_memory_size(const cr_model *model);

/* cr_dynamic_solve that also keeps `memory` (NULL: none) up to date: after every
 * accepted step, before on_step is called, it describes that step, so a checkpoint
 * written from on_step (or after the return) holds it. On entry, a memory of the
 * same stage and t_stage_start taken at state->time (a resumed stage) restarts the
 * integrator with its controller state, Newton starting values and the state's
 * stresses (instead of h0 and stresses recomputed from the configuration), and the
 * report's counters and wall time then include those of the run before. */
cr_status cr_dynamic_solve_memory(const cr_model *model, cr_state *state, int stage, double t_stage_start, double h0,
                                  double work_external, const cr_dynamic_options *options,
                                  cr_dynamic_output_fn on_output, cr_dynamic_step_fn on_step, void *user,
                                  double *memory, cr_dynamic_report *report, cr_error *err);

/* Time of a state (s) and its velocities: v_i in I, Ω_i in the nodal basis. */
double cr_state_time(const cr_state *state);
cr_vec3 cr_state_velocity(const cr_state *state, int node);
cr_vec3 cr_state_angular_velocity(const cr_state *state, int node);
/* Sets node i's velocities (v in I, Ω in the nodal basis). */
void cr_state_set_velocity(cr_state *state, int node, cr_vec3 v, cr_vec3 omega);
/* Pose of rigid body j (centre in I, body axes) in a state. */
int cr_model_body_count(const cr_model *model);
const char *cr_model_body_name(const cr_model *model, int body);
void cr_state_body_pose(const cr_model *model, const cr_state *state, int body, cr_vec3 *center, cr_mat3 *axes);
/* Full-state access for checkpoints: a flat copy of everything a resumed run
 * needs (count doubles). */
int cr_state_packed_size(const cr_model *model);
void cr_state_pack(const cr_state *state, double *out);
void cr_state_unpack(cr_state *state, const double *in);

#ifdef __cplusplus
}
#endif
#endif
