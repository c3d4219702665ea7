/* Mixed discrete Cosserat rod: the static residual and its analytic Jacobian.
 *
 * Unknown layout per node block i (size m->block): r_i (3), p_i (4), then the
 * multipliers of the rigid strain components of element i (between nodes i and
 * i+1). Residual rows of block i: the 6 equilibrium equations of node i (force in
 * I, moment in B_i; eq. 22), the unit-norm equation |p_i|² - 1 (eq. 24), then the
 * rigid-component rows of element i's compliance law (eq. 23 with zero
 * compliance: l_k(q) = 0). Flexible stresses are condensed element by element,
 * λ_i = K_{c,i} l_i(q), so the Jacobian is block-tridiagonal (spec §3, §4). */
#ifndef COSSERAT_MIXED_H
#define COSSERAT_MIXED_H

#include "cosserat/dynamics.h"
#include "cosserat/statics.h"
#include "linalg/blocktri.h"
#include "linalg/blocktri_partitioned.h"
#include "linalg/pool.h"
#include "mixed/model_internal.h"
#include "solvers/newton.h"

/* F = residual with load k scaled by scale[k] and the supports where `at` says
 * (supports.c); J (optional) = dF/dx. Held coordinates of supported nodes replace
 * balance rows; every node's balance residual before that (the negative reaction
 * at a supported node) goes to `node_equilibrium` (optional, nodes × 6). */
cr_status cr_mixed_static_residual(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                   double *F, cr_blocktri *J, double *node_equilibrium);
/* The same with the element pass over node ranges on a pool's threads (NULL: serial);
 * bit-identical results. */
cr_status cr_mixed_static_residual_par(const cr_model *m, const cr_supports_at *at, const double *scale,
                                       const double *x, double *F, cr_blocktri *J, double *node_equilibrium,
                                       cr_pool *pool);

/* The force-equilibrium rows alone (3 per node) and their Jacobian with respect to
 * the positions (3×3 blocks), at fixed orientations: used to re-solve the
 * positions after a Newton update (no rigid components). */
cr_status cr_mixed_force_residual(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                  double *F, cr_blocktri *J);
/* The same with the element pass over node ranges on a pool's threads (bit-identical). */
cr_status cr_mixed_force_residual_par(const cr_model *m, const cr_supports_at *at, const double *scale,
                                      const double *x, double *F, cr_blocktri *J, cr_pool *pool);

/* cr_static_solve_to for stage state->stage, coming from `previous_stage`: the
 * supports that start in this stage move their node from where it is. */
cr_status cr_static_solve_stage(const cr_model *model, cr_state *state, int previous_stage, const double *target,
                                const cr_static_options *options, cr_static_step_fn on_step, void *user,
                                cr_static_report *report, cr_error *err);

/* Arc-length continuation of a static problem from (*param, x) (statics_arclength.c):
 * options' arc_* fields; weights (block_size of them) weigh the unknowns of a block in
 * the step's length; max_dparam > 0 bounds the load-factor increment of one step. The
 * report and the status as cr_load_stepping_solve's. */
struct cr_nonlinear_problem;
cr_status cr_arc_length_solve(const struct cr_nonlinear_problem *p, const double *weights, double max_dparam,
                              double *param, double *x, const cr_static_options *o, cr_static_report *r, cr_error *err);

/* The static tangent's storage that a caller lends (all optional): J of the static
 * layout (banded with rigid components); factored: J already holds the LU (part's when
 * part is given) of the tangent at x or at a state one converged Newton update from x;
 * part: factor and solve with that partitioned LU (on pool's threads, or on the caller
 * when pool is NULL), the estimate's block of vectors together; pool: also assemble the
 * tangent, map the vectors and run the passes over the block on its threads. */
typedef struct cr_static_tangent {
    cr_blocktri *J;
    cr_blocktri_part *part;
    cr_pool *pool;
    int factored;
    double *work; /* optional scratch of work_size doubles (the Newton solve's, done with) */
    size_t work_size;
} cr_static_tangent;

/* Stability of the equilibrium x (statics_stability.c): the `modes` lowest ω² of the
 * linearized dynamics about it, with loads and supports as for the residual. The
 * report is filled on CR_OK (checked = 1); CR_SINGULAR when the tangent is.
 * tangent (optional): a factored one saves an assembly and a factorization; its
 * eigenvalues differ from those at x by about the last update's relative size (the
 * caller's to judge: statics.c reuses Newton's LU only without rigid components);
 * its scratch, when large enough, holds the block of vectors of the solves (and C V of
 * the subspace iteration). */
cr_status cr_mixed_static_stability(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                    int modes, const cr_static_tangent *tangent, cr_stability_report *report);
/* The same, and the lowest mode ξ (6 per node: δr in I, δθ in the node basis) in `mode` (the
 * caller's nodes × 6 doubles; NULL: not wanted), scaled to a largest node displacement of 1 m
 * (for a rotational mode, softest_rotational, a largest rotation of 1 rad / the rod's length);
 * its sign is arbitrary. Written when the report is checked and has modes > 0. `divergence`
 * (optional): 1 when that mode is converged, real (|Im ω²| <= 1e-3 |ω²|) and unstable (a
 * divergence, which a push along it makes grow without oscillating), else 0. */
cr_status cr_mixed_static_stability_mode(const cr_model *m, const cr_supports_at *at, const double *scale,
                                         const double *x, int modes, const cr_static_tangent *tangent,
                                         cr_stability_report *report, double *mode, int *divergence);

/* A pseudo-time step's positions re-solved at its new orientations from its own force rows,
 * F_r(x) − D_r (r − r_prev)/Δτ = 0 (linear in r at fixed orientations, tendons aside; D the
 * lumped masses, 6 per node): the flow's linearized step stretches each element by O(Δθ²)
 * (statics_leave.c says why). Fr (nodes × 3) and Jr (the force rows' position Jacobian) are
 * scratch; Jr NULL (rigid components) or self-contact: nothing done. For statics_leave.c and
 * statics_landing.c. */
cr_status cr_mixed_pseudotime_correct(const cr_model *m, const cr_supports_at *at, const double *scale, const double *D,
                                      double dtau, const double *x_prev, double *x, double *Fr, cr_blocktri *Jr);

/* Leaves the unstable equilibrium x of a static stage (statics_leave.c, docs/theory.md "Leaving an
 * unstable equilibrium"): pushed along `mode` (cr_mixed_static_stability_mode's), relaxed by
 * pseudo-transient continuation on p's residual at load factor 1 to an equilibrium, converged there
 * by cr_load_stepping_solve, and estimated again (with at, scale, as for x); a state unstable again
 * is pushed along its own mode, up to a few times. On CR_OK x is a stable (or flutter-only
 * unstable) equilibrium and report says so (left = 1 and how); otherwise x and report are as
 * they came and err says why no stable state was found. `mode` is scratch for the later modes. */
cr_status cr_mixed_static_leave(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at,
                                const double *scale, const cr_static_options *o, const cr_static_tangent *tangent,
                                double *x, double *mode, cr_stability_report *report, cr_error *err);

/* Lands a rod that no support holds on its obstacles (statics_landing.c, docs/theory.md "A rod
 * held by obstacles alone"): pseudo-transient continuation of the damped flow D ẋ = F(x) on p's
 * residual at load factor 1 (with at, scale as there), D the lumped masses, from x until it rests
 * with the contact's multiplier updates converged. On CR_OK x is that equilibrium; otherwise x is
 * as it came (the contact's pairs are not: the caller keeps them) and `why` says why. */
typedef struct cr_mixed_landing {
    int steps, iterations; /* pseudo-time steps, Newton updates */
    double fell;           /* largest node displacement from the start (m) */
    double residual;       /* RMS residual at the end */
} cr_mixed_landing;
cr_status cr_mixed_static_land(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at,
                               const double *scale, double *x, cr_mixed_landing *report, char *why, size_t size);

/* When the static tangent at x is singular: 1, with a sentence saying which motion
 * (twist, a rotation, a translation) at which nodes nothing holds and what to hold, in
 * out; else 0. For the message of a failed solve (cheap: two solves). */
int cr_mixed_static_null_mode(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                              char *out, size_t size);

/* The support active at `node` in `stage`, or -1. */
int cr_model_support_at(const cr_model *m, int stage, int node);

/* ---- dynamics (eqs. 12–17) ----
 * Unknowns per node block: r (3), p (4), v (3, in I), Ω (3, in B), then the six
 * stresses (n, m) of the element to the node's right. Rows: r' = v, p' = dExp⁺(p) Ω,
 * momentum (force in I, moment in B), stress rows λ_k/k_k - Δstrain_k (eq. 14). */
#define CR_DYN_V 7
#define CR_DYN_W 10
#define CR_DYN_LAM 13
#define CR_DYN_BLOCK 19

/* Diagonal of the integrator's mass matrix (nodes × 19). */
void cr_mixed_dynamic_mass(const cr_model *m, int stage, double *mass);

/* CR_BAD_INPUT, naming the key (rod.sections.K.rhoA or rod.material.rho), when a node of
 * the rod def would have no mass: a dynamic stage cannot run then (its `check`). */
cr_status cr_mixed_check_node_masses(const cr_rod_def *def, int stage, cr_error *err);
/* F(y) with load k scaled by scale[k] and the supports where `at` says; J = dF/dy when non-NULL. */
cr_status cr_mixed_dynamic_residual(const cr_model *m, const cr_supports_at *at, const double *scale, const double *y,
                                    double *F, cr_blocktri *J);
/* cr_dynamic_solve_memory with the load inputs (state->load_input) honoured: read at
 * the stage start, and, when `segmented`, after every output time (the runner's Python
 * hook may change them there): each output interval is then integrated on its own and
 * the integrator restarts where an input changed (see dynamics_solve.c). */
cr_status cr_mixed_dynamic_solve(const cr_model *m, cr_state *state, int stage, double t_stage_start, double h0,
                                 double work_external, const cr_dynamic_options *o, cr_dynamic_output_fn on_output,
                                 cr_dynamic_step_fn on_step, void *user, double *memory, int segmented,
                                 cr_dynamic_report *report, cr_error *err);
/* Reaction (force in I, moment in the node basis) of the support at `node` in a
 * dynamic state: M a − R along the held directions. */
cr_status cr_mixed_dynamic_reaction(const cr_model *m, const cr_state *s, int node, cr_vec3 *force, cr_vec3 *moment);
/* Kinetic, elastic (complementary, ½ λᵀ K_c⁻¹ λ) and gravitational potential energy. */
void cr_mixed_dynamic_energies(const cr_model *m, const double *y, cr_vec3 gravity, double *kinetic,
                               double *elastic, double *potential);

/* ---- damping (damping.c): Kelvin–Voigt stress rows and viscous drag ----
 * Sets the model's damping from the definition (after the elements): CR_NO_MEMORY or CR_OK. */
cr_status cr_mixed_damping_init(cr_model *m, const cr_damping_def *d);
void cr_mixed_damping_free(cr_model *m);
/* Hash of the damping coefficients into h (FNV-1a step, unchanged when undamped). */
unsigned long long cr_mixed_damping_hash(const cr_model *m, unsigned long long h);
/* Adds to F (and J) of the dynamic residual: -τ_k dε_k/dt on every element's stress
 * rows, the drag force and moment on every node's momentum rows (held nodes' rows
 * are overwritten by the caller afterwards). */
void cr_mixed_damping_terms(const cr_model *m, const double *y, double *F, cr_blocktri *J);
/* Dissipation power (W) at y: Σ_e L_e Σ_k K_k τ_k (dε_k/dt)² + drag power of the free nodes. */
double cr_mixed_damping_power(const cr_model *m, const double *y);
/* Stored elastic energy ½ Σ_e L_e Δεᵀ K Δε from the poses (with Kelvin–Voigt damping the
 * stresses λ also hold the viscous part, so ½ λᵀ K⁻¹ λ is not the stored energy). */
double cr_mixed_damping_elastic_energy(const cr_model *m, const double *y);
/* Adds K_k τ_k dε_k/dt to the element stresses of y (consistent initial values). */
void cr_mixed_damping_consistent_stress(const cr_model *m, double *y);

/* Total linear momentum and angular momentum about the origin (nodes and welded bodies). */
void cr_mixed_dynamic_momenta(const cr_model *m, const double *y, cr_vec3 *momentum, cr_vec3 *angular);
/* The energies and momenta of one output row in one pass over the nodes (one rotation
 * matrix per node): the same quantities as cr_mixed_dynamic_energies and
 * cr_mixed_dynamic_momenta. ucoef (6 per element, may be NULL) holds L_e/(2 k_k), so the
 * elastic energy Σ ucoef λ² needs no division. */
void cr_mixed_dynamic_observables(const cr_model *m, const double *y, cr_vec3 gravity, const double *ucoef,
                                  double *kinetic, double *elastic, double *potential, cr_vec3 *momentum,
                                  cr_vec3 *angular);

#endif
