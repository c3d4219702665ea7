/* cosserat — running a scenario and writing its results.
 *
 * Files written into the output directory (see docs/outputs in README):
 *   summary.json   run summary (convergence, iterations, residual history, tip pose, reactions)
 *   nodes.csv      s,x,y,z,p0,p1,p2,p3 — one row per node of the final (or last converged) state
 *                  (CSV numbers here and in elements.csv: the shortest text that reads back as
 *                  exactly the same double)
 *   elements.csv   s,gamma_*,kappa_*,n_*,m_* — one row per element, element basis
 *   rod.pvd        ParaView collection of rod_NNNN.vtp (and bodies_NNNN.vtp, part 1, when the
 *                  rod has rigid bodies), one per accepted load step and one per snapshot
 *                  time of dynamic stages (times: docs/scenario.md, "Output files")
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
/* ParaView snapshots (VTK XML PolyData; docs/scenario.md, "Output files"), in the encoding
 * `format` for the *_format writers and binary for the others: CR_VTK_BINARY stores every
 * array as Float64 (Int32 for cells) in a raw <AppendedData> section (VTK file format 1.0,
 * header_type UInt64: what ParaView reads natively), exact; CR_VTK_COMPRESSED the same in
 * zlib-compressed blocks (compressor vtkZLibDataCompressor); CR_VTK_ASCII writes the numbers
 * as text with 12 significant digits. Every .vtp has field
 * data `time` (s, cr_sim_time), `load_factor` (cr_sim_load_factor) and, when stage >= 0,
 * `stage` (the scenario's stage index).
 *
 * cr_write_rod_vtp: the nodes as points, in order, and one VTK_POLY_LINE cell through all of
 * them (a Tube filter draws the rod without seams). Point data: s (reference arc length, m),
 * radius (m; only when `rod` is given: cr_section_vtk_radius at s/L), quaternion (p0..p3 of
 * the body basis), d1, d2, d3 (body axes in I), velocity (m/s, I), angular_velocity (rad/s,
 * in I — the formulation's body-basis value rotated by the node's basis), and gamma, kappa,
 * force, moment (the strains and stress resultants of the sample points, body basis,
 * interpolated linearly in s to the nodes, constant beyond the first and last sample). The
 * sample points' own values are field data: sample_s (m) and sample_gamma, sample_kappa,
 * sample_force, sample_moment, one tuple per sample point (element midpoints or Gauss points).
 * `rod` is the scenario's rod definition (may be NULL). */
cr_status cr_write_rod_vtp_format(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage,
                                  cr_vtk_format format, cr_error *err);
cr_status cr_write_rod_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage, cr_error *err);
/* cr_write_rod_vtp without radius and stage (kept for callers of the former writer). */
cr_status cr_write_vtp(const char *path, const cr_sim *sim, cr_error *err);
/* The rigid bodies: one point (vertex cell) per body at its centre (I), in the scenario's
 * order, with point data body (index), mass (kg; only when `rod` is given), quaternion and
 * d1, d2, d3 (the body axes in I). */
cr_status cr_write_bodies_vtp_format(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage,
                                     cr_vtk_format format, cr_error *err);
cr_status cr_write_bodies_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage, cr_error *err);
/* Radius drawn for the section at ξ in [0, 1] (clamped), m: a circle's radius; half the larger
 * extent of a rectangle (the tube encloses the section); for given resultants the solid circle
 * with the same EI/EA, r = 2 sqrt(max(EI_y, EI_z) / EA). 0 when ξ has no section. */
double cr_section_vtk_radius(const cr_rod_def *rod, double xi);
/* Snapshot `index` into `dir`: rod_NNNN.vtp and, when the rod has rigid bodies, bodies_NNNN.vtp. */
cr_status cr_write_snapshot_format(const char *dir, int index, const cr_sim *sim, const cr_rod_def *rod, int stage,
                                   cr_vtk_format format, cr_error *err);
cr_status cr_write_snapshot(const char *dir, int index, const cr_sim *sim, const cr_rod_def *rod, int stage,
                            cr_error *err);
/* The same for an assembly (cr_sim_rod_count > 1): `rods` (NULL, or the cr_sim_rod_count
 * rods' definitions, in order) give the radii and masses. The .vtp has one VTK_POLY_LINE per
 * rod (its nodes, in order) and the cell data `rod` (the rod's index); nodes.csv and
 * elements.csv of an assembly start with a column `rod` (its name). */
cr_status cr_write_snapshot_rods(const char *dir, int index, const cr_sim *sim, const cr_rod_def *rod,
                                 const cr_assembly_rod_def *rods, int stage, cr_vtk_format format, cr_error *err);

/* One DataSet of a ParaView collection: the time value, the part (datasets of the same
 * timestep with different parts are shown together), the file (relative to the .pvd) and an
 * optional block name (NULL: none). */
typedef struct cr_pvd_entry {
    double timestep;
    int part;
    const char *file;
    const char *name;
} cr_pvd_entry;
cr_status cr_write_pvd_entries(const char *path, const cr_pvd_entry *entries, int count, cr_error *err);
/* ParaView collection of `count` files (names relative to the .pvd) at the given times, part 0. */
cr_status cr_write_pvd(const char *path, const char *const *files, const double *times, int count, cr_error *err);
/* The collection of `count` snapshots written by cr_write_snapshot: rod_NNNN.vtp as part 0
 * and, when `bodies` is nonzero, bodies_NNNN.vtp as part 1 at the same timestep times[k]. */
cr_status cr_write_snapshot_pvd(const char *path, const double *times, int count, int bodies, cr_error *err);

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
    cr_stability_report stability; /* of the stage's end state (statics.h) */
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
    /* 1 when a resumed run found its output directory complete (summary.json of this scenario
     * with status ok): nothing ran and no file was written; message says so, and sim holds the
     * reference state, not the run's (its results are in the directory) */
    int complete;
} cr_run_result;

/* Progress of a dynamic stage: simulated time, its end, accepted steps, wall time. */
typedef void (*cr_progress_fn)(double t, double t_end, long steps, double wall_s, void *user);

/* After each accepted load step of a static stage; nonzero stops the run. */
typedef int (*cr_run_step_fn)(const cr_sim *sim, const cr_load_step_report *step, int index, void *user);

/* At every output time of a dynamic stage (after its series row is recorded), with the
 * sim holding the state at that time: the place for a controller, which may set the
 * load inputs for the next output interval (cr_sim_set_load_input). Nonzero stops the
 * run at this output time (CR_INTERRUPTED, outputs and a checkpoint written). */
typedef int (*cr_run_output_fn)(cr_sim *sim, const cr_dynamic_sample *sample, void *user);

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
    /* optional, at every output time of dynamic stages; when set, the mixed rod integrates
     * output interval by interval so that inputs set here hold from that time on */
    cr_run_output_fn on_output;
    /* 1: on_output only observes (sets no inputs), and the mixed rod steps as without it */
    int output_passive;
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
int cr_run_result_stage_count(const cr_run_result *result);
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
/* The node of `sim` (0 .. cr_sim_node_count - 1) that summaries call the tip: the
 * output.track point named "tip" when there is one, else the free end (the last node,
 * unless it is held by a support and the first one is not: a rod clamped at its last
 * node, like the Wilberforce spring, has its tip at node 0). */
int cr_scenario_tip_node(const cr_scenario *scenario, const cr_sim *sim);
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
