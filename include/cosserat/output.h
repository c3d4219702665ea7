/* cosserat — running a scenario and writing its results.
 *
 * Files written into the output directory (see docs/outputs in README):
 *   summary.json   run summary (convergence, iterations, residual history, tip pose, reactions)
 *   nodes.csv      s,x,y,z,p0,p1,p2,p3 — one row per node of the final (or last converged) state
 *   elements.csv   s,gamma_*,kappa_*,n_*,m_* — one row per element, element basis
 *   rod.pvd        ParaView collection of rod_NNNN.vtp, one per accepted load step and one
 *                  per snapshot time of dynamic stages
 *   series.csv     dynamic stages: t, energies, external work, per recorded point NAME
 *                  of output.track (default: "tip", the free end) NAME_x,y,z (position,
 *                  I) and NAME_p0..p3 (unit quaternion of the body basis), momenta, the
 *                  formulation's columns and, per rigid body NAME, NAME_x,y,z (centre)
 *                  and NAME_yaw,pitch,roll (degrees, yaw unwrapped) at every output time;
 *                  summary.json also has the recorded points at every stage's end
 *   checkpoint.bin dynamic stages: the full state, for `cosserat run --resume`
 */
#ifndef COSSERAT_OUTPUT_H
#define COSSERAT_OUTPUT_H

#include "cosserat/dynamics.h"
#include "cosserat/model.h"
#include "cosserat/scenario.h"
#include "cosserat/sim.h"
#include "cosserat/statics.h"
#include "cosserat/warnings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Individual writers. Each returns CR_IO with the path in err on failure. */
cr_status cr_write_nodes_csv(const char *path, const cr_sim *sim, cr_error *err);
/* One row per strain/stress sample point (element midpoints or Gauss points). */
cr_status cr_write_elements_csv(const char *path, const cr_sim *sim, cr_error *err);
/* One VTK PolyData file: nodes as points, a line cell between consecutive nodes
 * carrying the strains and stresses of its sample point. */
cr_status cr_write_vtp(const char *path, const cr_sim *sim, cr_error *err);
/* ParaView collection of `count` files (names relative to the .pvd) at the given times. */
cr_status cr_write_pvd(const char *path, const char *const *files, const double *times, int count, cr_error *err);

/* Atomic output files: cr_output_open writes PATH.tmp; cr_output_close flushes
 * it and renames it over PATH (the error names the system's reason). */
#include <stdio.h>
FILE *cr_output_open(const char *path, cr_error *err);
cr_status cr_output_close(FILE *f, const char *path, cr_error *err);

/* Creates a directory and its parents (like mkdir -p). */
cr_status cr_make_directory(const char *path, cr_error *err);

/* Statistics of one static stage (summary.json "stages"); zero for dynamic stages. */
typedef struct cr_static_stage_stats {
    int load_steps;        /* accepted */
    int failed_load_steps; /* halved */
    int newton_iterations; /* all, failed attempts included */
    double load_factor;    /* reached (1 on success) */
    double final_residual; /* RMS residual of the kept state */
    double wall_time_s;
} cr_static_stage_stats;

/* Result of cr_scenario_run; free with cr_run_result_free. */
typedef struct cr_run_result {
    cr_sim *sim;              /* the discretized rod with its final or last good state, owned */
    cr_static_report report;  /* of the last static stage */
    int stage_count;
    cr_dynamic_report *dynamics; /* per stage (zero for static stages), owned */
    int last_stage;           /* index of the last stage that ran */
    /* the rows of series.csv (dynamic stages), also when no files are written */
    int series_columns;
    long series_rows, series_capacity;
    double *series;           /* series_rows × series_columns, row-major, owned */
    char **series_names;      /* series_columns names, owned */
    int resumed;              /* 1 when the run continued from a checkpoint */
    cr_status status;         /* CR_OK, or why the solve stopped */
    char message[CR_ERROR_MESSAGE_SIZE];
    double wall_time_s;
    /* per stage, static stages' statistics (zero for dynamic stages and stages that did
     * not run); a resumed run has those of the stages before the interruption too */
    cr_static_stage_stats *statics; /* stage_count entries, owned */
    /* sanity warnings (warnings.h): the scenario's, then each stage's results' */
    int warning_count;
    cr_warning *warnings;           /* owned */
} cr_run_result;

/* Progress of a dynamic stage: simulated time, its end, accepted steps, wall time. */
typedef void (*cr_progress_fn)(double t, double t_end, long steps, double wall_s, void *user);

/* After each accepted load step of a static stage; nonzero stops the run. */
typedef int (*cr_run_step_fn)(const cr_sim *sim, const cr_load_step_report *step, int index, void *user);

typedef struct cr_run_options {
    const char *output_directory; /* NULL: scenario->output.directory; "" writes nothing */
    cr_run_step_fn on_step;       /* optional progress callback, after each accepted load step */
    cr_progress_fn on_progress;   /* optional, at most every 0.2 s wall time in dynamic stages */
    void *user;
    /* When *stop becomes nonzero (e.g. set by a SIGINT handler) the run ends at the
     * next step with CR_INTERRUPTED, after writing every output and a checkpoint. */
    const volatile int *stop;
    /* Continue an interrupted run from <output_directory>/checkpoint.bin. */
    int resume;
} cr_run_options;

cr_run_options cr_run_default_options(void);

/* Builds the model, solves every stage and writes the outputs. Bad input gives
 * CR_BAD_INPUT (nothing written); a solver failure still writes the last
 * converged state and a summary with "converged": false, then returns the
 * solver's status. `result` is filled in either case (may be NULL). */
cr_status cr_scenario_run(const cr_scenario *scenario, const cr_run_options *options, cr_run_result *result,
                          cr_error *err);
void cr_run_result_free(cr_run_result *result);

/* What `cosserat check` does: the formulation's own checks of the scenario
 * (rejecting, with the key named, what it cannot represent) and a trial
 * discretization. CR_OK or CR_BAD_INPUT with the message in err. */
cr_status cr_scenario_check(const cr_scenario *scenario, cr_error *err);

/* Heap-allocated results and accessors, for bindings that avoid struct layouts
 * (the Python package uses these through ctypes). */
cr_run_result *cr_run_result_create(void);           /* zeroed; NULL when out of memory */
void cr_run_result_destroy(cr_run_result *result);   /* cr_run_result_free + free */
const cr_sim *cr_run_result_sim(const cr_run_result *result);
/* The mixed rod's model and state (NULL for other formulations). */
const cr_model *cr_run_result_model(const cr_run_result *result);
const cr_state *cr_run_result_state(const cr_run_result *result);
int cr_run_result_step_count(const cr_run_result *result);
int cr_run_result_step_iterations(const cr_run_result *result, int step);
double cr_run_result_step_load_factor(const cr_run_result *result, int step);
/* Of the last static stage: RMS residual of the kept state, and how many load steps were halved. */
double cr_run_result_final_residual(const cr_run_result *result);
int cr_run_result_failed_load_steps(const cr_run_result *result);
/* The time series of dynamic stages (the columns of series.csv). */
int cr_run_result_series_columns(const cr_run_result *result);
long cr_run_result_series_rows(const cr_run_result *result);
const char *cr_run_result_series_name(const cr_run_result *result, int column);
const double *cr_run_result_series_data(const cr_run_result *result);
/* residual history of a load step; *count receives its length */
const double *cr_run_result_step_history(const cr_run_result *result, int step, int *count);
/* Sanity warnings of the run (summary.json "warnings"): their number, and warning k's
 * code (returned), scenario key and message (each output pointer may be NULL); the
 * strings are owned by the result. NULL when k is out of range. */
int cr_run_result_warning_count(const cr_run_result *result);
const char *cr_run_result_warning(const cr_run_result *result, int k, const char **key, const char **message);

#ifdef __cplusplus
}
#endif
#endif
