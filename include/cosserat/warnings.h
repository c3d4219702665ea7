/* cosserat — sanity warnings: inputs that look like a unit slip, and results
 * beyond the range the rod model is meant for (docs/scenario.md, "Warnings").
 *
 * A warning never changes a run's status or outputs; it is advice, computed
 * deterministically from the scenario and the formulation-neutral cr_sim
 * accessors. Each has a fixed `code`, the scenario `key` it concerns (a dotted
 * path such as "rod.sections.0.radius" or "stages.1") and a message naming the
 * key and the values and suggesting the likely fix. Thresholds are SI numbers
 * (docs/scenario.md explains each one). */
#ifndef COSSERAT_WARNINGS_H
#define COSSERAT_WARNINGS_H

#include "cosserat/base.h"
#include "cosserat/scenario.h"
#include "cosserat/sim.h"
#include "cosserat/statics.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CR_WARNING_CODE_SIZE = 32, CR_WARNING_KEY_SIZE = 96 };

typedef struct cr_warning {
    char code[CR_WARNING_CODE_SIZE]; /* e.g. "slender_thick", "strain_large" */
    char key[CR_WARNING_KEY_SIZE];   /* scenario path, e.g. "rod.material.E" */
    char message[CR_ERROR_MESSAGE_SIZE];
} cr_warning;

/* A growable list; zero-initialize, free with cr_warning_list_free. */
typedef struct cr_warning_list {
    int count, capacity;
    cr_warning *items; /* owned */
} cr_warning_list;

void cr_warning_list_free(cr_warning_list *list);

/* Checks of the scenario alone (slenderness, material constants, gravity): appends
 * one warning per finding to `out`. CR_OK, or CR_NO_MEMORY (the list keeps what fit). */
cr_status cr_scenario_warnings(const cr_scenario *scenario, cr_warning_list *out);

/* Checks of a state of `sim` at the end of stage `stage` against the state it was
 * created in (reference: 6 values γ, κ per sample point, then 3 per node, as
 * cr_sim_reference_values fills them): the strain change |Δγ| > 0.2, the surface
 * bending/torsion strain |Δκ|·ρ(s) > 0.5 (ρ: the largest half extent of a shape
 * section; given resultants are not judged) and, for a supported rod, a nodal
 * displacement over 10 rod lengths. At most one warning per check. */
cr_status cr_sim_result_warnings(const cr_scenario *scenario, const cr_sim *sim, const double *reference, int stage,
                                 cr_warning_list *out);
/* The energy balance of a dynamic stage's series rows (`rows` rows of `columns` values,
 * row-major, named by `names` as series.csv's columns: energy_kinetic, energy_elastic,
 * energy_gravity, work_external and, when there, energy_dissipated): an "energy_drift"
 * warning (key "stages.K") when kinetic + elastic + gravity - work + dissipated moves from
 * its value in the first row by more than 0.05 of the energy in motion (the largest kinetic
 * energy plus the largest |work| and dissipated energy since the first row). An adaptive
 * integrator's numerical damping shows here (docs/scenario.md, "Warnings"). Fewer than two
 * rows, columns missing, a non-finite row or a support moved in the stage (its work is in no
 * column) give none. */
cr_status cr_series_energy_warnings(const cr_scenario *scenario, const char *const *names, const double *rows,
                                    int columns, long rows_count, int stage, cr_warning_list *out);
/* The stability estimate of a static stage's end state (report->stability, statics.h):
 * an "unstable_equilibrium" warning (key "stages.K") when it found modes with ω² < 0,
 * naming the stage, the load factor, the count and the softest mode. Nothing when not
 * estimated or stable. CR_OK or CR_NO_MEMORY. */
cr_status cr_static_stability_warnings(const cr_sim *sim, const cr_static_report *report, int stage,
                                       cr_warning_list *out);
/* Number of doubles cr_sim_reference_values writes: 6 per sample point + 3 per node. */
long cr_sim_reference_size(const cr_sim *sim);
/* The strains at every sample point and the node positions of the sim's current state. */
void cr_sim_reference_values(const cr_sim *sim, double *out);

#ifdef __cplusplus
}
#endif
#endif
