/* cosserat — the mixed discrete rod (first formulation): its discretized model
 * and state. Quaternion nodes, condensed element stresses (spec §1–§7).
 * Scenario runs use this formulation through the formulation-neutral cr_sim
 * (sim.h); C programs may also drive it directly with cr_static_solve
 * (statics.h) and cr_dynamic_solve (dynamics.h). */
#ifndef COSSERAT_MIXED_ROD_H
#define COSSERAT_MIXED_ROD_H

#include "cosserat/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the discretized model ---- */
typedef struct cr_model cr_model;

/* Validates `def` and discretizes it. Returns NULL and fills err on bad input. */
cr_model *cr_model_create(const cr_rod_def *def, cr_error *err);
void cr_model_destroy(cr_model *model);

int cr_model_node_count(const cr_model *model);    /* n + 1 */
int cr_model_element_count(const cr_model *model); /* n */
double cr_model_length(const cr_model *model);
/* arc length of node i (reference arc length for curved references) */
double cr_model_node_s(const cr_model *model, int node);
/* midpoint arc length of element i (0-based: between nodes i and i+1) */
double cr_model_element_s(const cr_model *model, int element);
/* reference pose of node i */
cr_vec3 cr_model_reference_position(const cr_model *model, int node);
cr_quat cr_model_reference_orientation(const cr_model *model, int node);

/* A 64-bit hash of everything the model computes from its definition (geometry,
 * material, sections, loads, bodies, boundary conditions): checkpoints use it to
 * refuse a resume into a different problem. */
unsigned long long cr_model_fingerprint(const cr_model *model);

/* Number of loads, and the magnitude factors (1 active, 0 inactive) of the loads
 * in stage `stage` (cr_load_def.stages). `out` holds cr_model_load_count values. */
int cr_model_load_count(const cr_model *model);
void cr_model_stage_load_factors(const cr_model *model, int stage, double *out);

/* ---- state ---- */
/* The mutable state of one rod: nodal poses (r_i, p_i), the multipliers of rigid
 * strain components, and the load factor reached. Owned by the caller. */
typedef struct cr_state cr_state;

/* A state in the reference configuration (load factor 0). */
cr_state *cr_state_create(const cr_model *model);
void cr_state_destroy(cr_state *state);
/* Copies src into dst (same model). */
void cr_state_copy(cr_state *dst, const cr_state *src);
double cr_state_load_factor(const cr_state *state);
cr_vec3 cr_state_position(const cr_state *state, int node);
cr_quat cr_state_orientation(const cr_state *state, int node);
/* Sets node i's pose (the quaternion is stored as given). */
void cr_state_set_pose(cr_state *state, int node, cr_vec3 position, cr_quat orientation);

/* Strains and stress resultants of element i (0-based) in the element basis:
 * gamma, kappa (eq. 7) and n, m (eq. 9, or the constraint multipliers for rigid
 * components). Any output pointer may be NULL. */
void cr_state_element(const cr_model *model, const cr_state *state, int element, cr_vec3 *gamma,
                      cr_vec3 *kappa, cr_vec3 *n, cr_vec3 *m);

/* Bulk copies for language bindings: positions (nodes × 3), orientations
 * (nodes × 4), arc lengths of nodes / element midpoints, and per element the 12
 * values (gamma, kappa, n, m) of cr_state_element. `out` is caller-allocated. */
void cr_state_get_positions(const cr_state *state, double *out);
void cr_state_get_orientations(const cr_state *state, double *out);
void cr_state_get_elements(const cr_model *model, const cr_state *state, double *out);
void cr_model_get_node_s(const cr_model *model, double *out);
void cr_model_get_element_s(const cr_model *model, double *out);

/* Reaction at a constrained node (clamp or prescribed pose) in the last solved
 * state: force in I, moment in the nodal body basis. Returns CR_BAD_INPUT when
 * the node carries no boundary condition. */
cr_status cr_state_reaction(const cr_model *model, const cr_state *state, int node, cr_vec3 *force,
                            cr_vec3 *moment);

/* The mixed rod's model and state inside a cr_sim (sim.h) of this formulation,
 * for programs that want its specific API; NULL for other formulations. */
struct cr_sim;
const cr_model *cr_sim_mixed_model(const struct cr_sim *sim);
cr_state *cr_sim_mixed_state(struct cr_sim *sim);

#ifdef __cplusplus
}
#endif
#endif
