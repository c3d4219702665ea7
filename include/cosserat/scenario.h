/* cosserat — scenario files (JSON, parsed with cJSON). See docs/scenario.md. */
#ifndef COSSERAT_SCENARIO_H
#define COSSERAT_SCENARIO_H

#include "cosserat/model.h"
#include "cosserat/statics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_stage_type { CR_STAGE_STATIC = 0, CR_STAGE_DYNAMIC = 1 } cr_stage_type;

/* A dynamic stage: integrate the DAE (12)–(14) with adaptive Radau IIA from the
 * state the previous stage left (at rest after a static stage). */
typedef struct cr_dynamic_options {
    double t_end;               /* duration of the stage (s), > 0 */
    double rtol, atol;          /* integrator tolerances (defaults 1e-3, 1e-6) */
    double output_dt;           /* interval of series.csv rows and snapshots (s), > 0 */
    double snapshot_dt;         /* interval of .vtp snapshots (s); 0 = output_dt */
    double h_init;              /* first step (s); 0 = automatic */
    double h_max;               /* largest step (s); 0 = no limit */
    long max_steps;             /* default 10000000 */
    double checkpoint_interval; /* wall-clock seconds between checkpoints (default 30; 0 = none) */
} cr_dynamic_options;

cr_dynamic_options cr_dynamic_default_options(void);

typedef struct cr_stage_def {
    cr_stage_type type;
    cr_static_options statics;   /* CR_STAGE_STATIC */
    cr_dynamic_options dynamics; /* CR_STAGE_DYNAMIC */
} cr_stage_def;

typedef struct cr_output_def {
    char directory[1024]; /* default "out/<name>" */
    int vtk;              /* write rod.pvd + .vtp files (default 1) */
} cr_output_def;

/* A parsed, validated scenario. Owns every array its rod definition points to. */
typedef struct cr_scenario {
    char name[256];
    char model[64];       /* formulation: "mixed_discrete" */
    cr_rod_def rod;
    int stage_count;
    cr_stage_def *stages;
    cr_output_def output;
    void *internal;       /* parser-owned storage */
} cr_scenario;

/* Parses a scenario from a file or a string. `overrides` are `PATH=VALUE`
 * strings (PATH dotted, array elements by index: "rod.elements=250",
 * "loads.0.value.2=-1"); VALUE is JSON when it parses as JSON, else a string.
 * Unknown keys, unknown override paths, wrong types, missing keys and
 * non-finite or non-physical values give CR_BAD_INPUT with a message naming the
 * JSON path and the value. On success *out must be freed with cr_scenario_destroy. */
cr_status cr_scenario_load_file(const char *path, const char *const *overrides, int override_count,
                                cr_scenario **out, cr_error *err);
cr_status cr_scenario_load_string(const char *json, const char *const *overrides, int override_count,
                                  cr_scenario **out, cr_error *err);
void cr_scenario_destroy(cr_scenario *scenario);

#ifdef __cplusplus
}
#endif
#endif
