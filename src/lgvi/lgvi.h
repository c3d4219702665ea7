/* Lie-group variational integrator (LGVI) for the Cosserat rod with cross-sectional
 * dilatation: Demoures et al. (2015) discretisation, modified by Siddharth, Natarajan
 * & Banavar (arXiv 2602.10963) with a frozen local dilatation factor e.
 * The discrete model is ../shared/spec/lgvi-dilatation-rod.md (cited as "spec §").
 *
 * Conventions (spec §1): the rod axis is the body E3 axis; R maps body components to
 * spatial components (x_I = R x_B). Units are SI throughout. Node q = 0..K, element q
 * joins nodes q and q+1, l = L/K.
 *
 * Time levels: after n calls of cr_lgvi_step the positions and rotations are at
 * t_n = n h; velocities, momenta and the rotation increment F belong to the last
 * interval [t_{n-1}, t_n] (the momenta p^{n-1}, μ^{n-1} of spec §2.3).
 *
 * Internally rotations are stored as unit quaternions (renormalised every step, so R
 * stays in SO(3) to round-off); all formulas are those of the spec written with R. */
#ifndef COSSERAT_LGVI_H
#define COSSERAT_LGVI_H

#include "cosserat/base.h"
#include "cosserat/math.h"

#define CR_LGVI_CHART_EXP 0    /* τ = exp: Ω = log(Λ)/l, F = exp(f^) */
#define CR_LGVI_CHART_CAYLEY 1 /* τ = cay: Ω = 2(Λ-Λ^T)^∨/((1+trΛ) l), F = cay(f) */

/* Frame of the element's translational strain Γ = R_*^T (x_{q+1} - x_q)/l - E3:
 * LEFT: R_* = R_q, the left node's frame (Demoures, spec §2.1): a one-sided difference,
 *       first order in l; the paper's numbers are computed with it.
 * MIDPOINT: R_* = R_q exp(½ log Λ_q), the geodesic midpoint of R_q and R_{q+1}: the strain
 *       sits where Ω does, a centred difference, second order in l (docs/lgvi.md). */
#define CR_LGVI_STRAINS_LEFT 0
#define CR_LGVI_STRAINS_MIDPOINT 1

/* Spec convention: the rod axis is the body E3 axis; R maps body to spatial. */
typedef struct cr_lgvi_params {
    int elements;               /* K >= 1 */
    double length;              /* L (reference length) [m] */
    double rhoA;                /* mass per reference length [kg/m] */
    cr_vec3 rhoJ;               /* diagonal of rho*J0 per reference length (E1, E2, E3=axis) [kg m] */
    cr_vec3 C1;                 /* diag(GA1, GA2, EA) [N] */
    cr_vec3 C2;                 /* diag(EI1, EI2, GJ) [N m^2] */
    int dilatation;             /* 1: modified model (frozen-e, spec §2.3), 0: standard (e = 1) */
    int chart;                  /* CR_LGVI_CHART_EXP or CR_LGVI_CHART_CAYLEY */
    int strains;                /* CR_LGVI_STRAINS_LEFT (0, default) or CR_LGVI_STRAINS_MIDPOINT */
    int clamp_start, clamp_end; /* node 0 / node K held at its initial pose */
    double h;                   /* time step > 0 [s] */
    /* penalty stiffness of the obstacles' contact springs per element length l (N/m; a node's
     * spring is this times its mass share, so ω_c² = k_c/(ρA l) at every node); 0: no contact.
     * The kernel does not apply the contact (the caller passes its forces as loads); only
     * cr_lgvi_stable_step reads it. */
    double contact_stiffness;
    /* penalty stiffness ε of the self-contact's segment pairs (N/m per pair; contact.self); 0:
     * none. Applied by the caller like the obstacles'; only cr_lgvi_stable_step reads it. */
    double self_contact_stiffness;
} cr_lgvi_params;

typedef struct cr_lgvi cr_lgvi; /* model + state, opaque */

/* Reference (stress-free) configuration = initial configuration: K+1 node positions and
 * rotations (copied; R0 must be proper rotations to 1e-6, they are re-orthonormalised).
 * Reference strains Gamma_ref, Omega_ref per element are computed from it and subtracted
 * (so a curved stress-free reference works; for a straight one they are 0). The
 * dilatation of element q is e_q = |x_{q+1} - x_q| / |x0_{q+1} - x0_q| (= |Δx|/l of spec
 * §2.1 when the reference nodes are equally spaced at l), so e = 1 in the reference.
 * Initial velocities 0. Returns NULL with CR_BAD_INPUT (message naming the parameter) or
 * CR_NO_MEMORY in err. The caller owns the result (cr_lgvi_destroy). */
cr_lgvi *cr_lgvi_create(const cr_lgvi_params *p, const cr_vec3 *x0, const cr_mat3 *R0, cr_error *err);
void cr_lgvi_destroy(cr_lgvi *s);

/* Initial velocity of a node: v spatial [m/s], omega_body in the node's body frame
 * [rad/s] (spec §2.3 "Initial conditions": p^{-1} = m v, μ^{-1} = (c/ε^0) J0 ω).
 * Meant for before the first step; ignored for clamped nodes and bad node indices. */
void cr_lgvi_set_velocity(cr_lgvi *s, int node, cr_vec3 v, cr_vec3 omega_body);

/* One step t_k -> t_{k+1}: f_ext, c_ext are spatial nodal forces [N] / moments [N m] at
 * t_k (rectangle rule, spec §2.3), arrays of K+1 (NULL = none; entries at clamped nodes
 * are ignored). Returns CR_OK, or CR_NONFINITE / CR_NOT_CONVERGED with err naming the
 * time, the node and the quantity; on failure the state is left at t_k (unchanged).
 * Accumulates the external work (see cr_lgvi_diag.work_external). */
cr_status cr_lgvi_step(cr_lgvi *s, const cr_vec3 *f_ext, const cr_vec3 *c_ext, cr_error *err);

/* Threads of a step. The node updates are independent within a step and the energy sums
 * are taken over fixed chunks of 256 nodes added in a fixed order, so the results are
 * bit-identical for any thread count. threads = 0 (the default): automatic, i.e. the
 * environment variable COSSERAT_THREADS, else OMP_NUM_THREADS, else the online CPUs, but
 * only for rods of >= 8192 nodes (below, a step is too short to pay for waking a thread);
 * threads >= 1: exactly that many whatever the size (capped by the number of chunks).
 * Worker threads are created on the first parallel step and live until cr_lgvi_destroy;
 * if they cannot be created the step runs serially. */
void cr_lgvi_set_threads(cr_lgvi *s, int threads);
int cr_lgvi_threads(const cr_lgvi *s); /* threads the next step uses */

double cr_lgvi_time(const cr_lgvi *s); /* Σ of the steps taken (k h for a constant step) */
/* Changes the step for the following steps (a new stage); CR_BAD_INPUT unless h > 0. */
cr_status cr_lgvi_set_step(cr_lgvi *s, double h);
long cr_lgvi_steps(const cr_lgvi *s);
int cr_lgvi_node_count(const cr_lgvi *s); /* K+1 */
const cr_lgvi_params *cr_lgvi_get_params(const cr_lgvi *s);
cr_vec3 cr_lgvi_position(const cr_lgvi *s, int node);
cr_mat3 cr_lgvi_rotation(const cr_lgvi *s, int node);
cr_vec3 cr_lgvi_velocity(const cr_lgvi *s, int node);         /* p/m on the last interval [m/s] */
cr_vec3 cr_lgvi_angular_velocity(const cr_lgvi *s, int node); /* body frame, log(F)/h on the last interval */
/* Per-step loops of the scenario adapter over all the nodes, with the arithmetic of the
 * accessors above (the same bits) but without a call per node: w + Σ_i f_i·v_i (added in node order), and
 * the drag's loads f_i −= ℓ_i R_i diag(drag) R_iᵀ v_i, c_i −= ℓ_i R_i diag(rotational_drag) ω_i
 * (ℓ the nodes' lumped lengths; formulation.c's drag_forces). */
double cr_lgvi_power(const cr_lgvi *s, const cr_vec3 *f, double w);
void cr_lgvi_add_drag(const cr_lgvi *s, cr_vec3 drag, cr_vec3 rotational_drag, const double *lumped, cr_vec3 *f,
                      cr_vec3 *c);
double cr_lgvi_node_mass(const cr_lgvi *s, int node);         /* m_q = w_q rhoA l */

/* Element q at the current time: strains Gamma (minus reference), Omega (minus
 * reference), body-frame stresses n = C1 Γ/e, m = C2 Ω/e³ (spec §2.3; e = 1 in the
 * standard model), and the geometric stretch e = |Δx_q|/|Δx0_q| (reported for both
 * models; the standard model does not use it in its constitutive law). Any output may
 * be NULL. */
void cr_lgvi_element(const cr_lgvi *s, int q, cr_vec3 *gamma, cr_vec3 *omega, cr_vec3 *n, cr_vec3 *m, double *e);

typedef struct cr_lgvi_diag {
    /* Energies (spec §2.4) at the level t_k = energy_time = time - h (the last level whose
     * two adjacent intervals are both known): elastic = U_d^k, kinetic = ½(T^{k-1} + T^k)
     * (the interval kinetic energies averaged, which makes H O(h²)-accurate). Before the
     * first step: t_0, U^0 and the initial kinetic energy. */
    double kinetic, elastic, total, work_external;
    /* the discrete conserved (Noether) quantities, about the origin, on the last interval:
     * Σ p_q and Σ (x_q × p_q + R_q μ_q) (exactly conserved by the free unloaded rod,
     * for both models) */
    cr_vec3 momentum, angular_momentum;
    /* at the current time: Σ|Δx_q| [m]; min/max geometric stretch e_q; max_q |V_q/V_q^0 - 1|
     * (modified: V = (A0/e)|Δx|, standard: V = A0|Δx|); max_q max_ij |R^T R - I|_ij */
    double length, dilatation_min, dilatation_max, volume_drift, rotation_drift;
    /* added: the time t_k the energies refer to, and T^k alone (kinetic energy of the last
     * interval, spec §2.4 "evaluated on [k, k+1]"): H^k = kinetic_interval + elastic is the
     * paper's §5.2 energy. work_external is W(t_k) = Σ_{j<k} w_j + ½ w_k with
     * w_j = f_j·(x^{j+1} - x^{j-1})/2 + (R_j^T c_j)·(f^{j-1} + f^j)/2 the discrete work of the
     * loads of t_j: total - work_external stays O(h²) (standard model), loaded or not. */
    double energy_time, kinetic_interval;
} cr_lgvi_diag;
void cr_lgvi_diagnostics(const cr_lgvi *s, cr_lgvi_diag *out);
/* O(1) subset of the diagnostics: T^k (last interval), ½(T^{k-1}+T^k) and U^k, k = steps-1
 * (all at t = 0 before the first step). Any pointer may be NULL. */
void cr_lgvi_energies(const cr_lgvi *s, double *kinetic_interval, double *kinetic, double *elastic);

/* CFL-type largest stable step estimate [s] (0 for invalid parameters). It is
 * safety * 2/ω_max with ω_max a Gershgorin bound of the lumped chain (axial, shear,
 * bending and twist, with the shear-rotation coupling, plus the contact springs'
 * ω_c² = contact_stiffness/(ρA l)), see lgvi.c for the factor. */
double cr_lgvi_stable_step(const cr_lgvi_params *p);

/* state (de)serialization for checkpoints: flat doubles (the unpacked state continues
 * bit-identically). cr_lgvi_unpack expects data packed from a model with the same
 * parameters. */
int cr_lgvi_packed_size(const cr_lgvi *s);
void cr_lgvi_pack(const cr_lgvi *s, double *out);
void cr_lgvi_unpack(cr_lgvi *s, const double *in);

/* ---- nodes updated by the caller: the shared nodes of an assembly's joints ----
 * A joint that shares a node's degrees of freedom between rods (src/lgvi/assembly.c) makes
 * that node's update a sum over the rods: the step is split so the caller can do it.
 * cr_lgvi_step_begin computes every other node's new state (nothing visible changes, so a
 * failure anywhere leaves every rod at t_k), leaves the level-k force and torque sums of
 * the external nodes for the caller (cr_lgvi_external_loads), the caller gives their new
 * state (cr_lgvi_external_set_*), and cr_lgvi_step_end makes the new level current. An
 * external part that the caller does not set stays where it was. cr_lgvi_step is begin +
 * end. */
#define CR_LGVI_EXTERNAL_TRANSLATION 1 /* position and linear momentum */
#define CR_LGVI_EXTERNAL_ROTATION 2    /* rotation and angular momentum */
/* flags: 0 (the kernel's own update again) or a combination of the two; CR_BAD_INPUT for a
 * bad node or flags, CR_NO_MEMORY. Meant for before the first step, on unclamped nodes. */
cr_status cr_lgvi_set_external(cr_lgvi *s, int node, int flags);
cr_status cr_lgvi_step_begin(cr_lgvi *s, const cr_vec3 *f_ext, const cr_vec3 *c_ext, cr_error *err);
/* After a successful begin, at an external node: the internal plus external force at t_k
 * (spatial) [N], the internal torque plus R^T c_ext (the node's kernel body frame) [N m],
 * and the node's ε (the dilatation factor dividing its rotational inertia; 1 standard). */
void cr_lgvi_external_loads(const cr_lgvi *s, int node, cr_vec3 *force, cr_vec3 *torque, double *eps);
/* The CR_LGVI_EXTERNAL_* flags of a node (0: the kernel updates it; also for a bad node). */
int cr_lgvi_external_flags(const cr_lgvi *s, int node);
/* After a successful begin, before cr_lgvi_external_set_translation, at an external translation node:
 * a force g (spatial) added to the node's force at t_k as a load of it (its work with the loads'),
 * e.g. the Coulomb friction of an assembly's shared node, which depends on the summed trial momentum. */
void cr_lgvi_external_add_force(cr_lgvi *s, int node, cr_vec3 g);
/* After a successful begin, before the caller's rotation update, at an external rotation node: a
 * moment c (spatial) added to its torque at t_k as a load of it (its work with the loads'), e.g. the
 * moment of an assembly's shared node's friction at its contact point. */
void cr_lgvi_external_add_torque(cr_lgvi *s, int node, cr_vec3 c);
/* The new position x^{k+1} and linear momentum p^k (= m v of this node's mass share). */
void cr_lgvi_external_set_translation(cr_lgvi *s, int node, cr_vec3 x, cr_vec3 p);
/* The rotation increment f = τ^{-1}(F^k) in the node's body frame: R^{k+1} = R^k τ(f), and
 * this node's share of the angular momentum from F^k (its own inertia and ε), μ^k (body
 * frame of R^k), which it returns. */
cr_vec3 cr_lgvi_external_set_rotation(cr_lgvi *s, int node, cr_vec3 f);
void cr_lgvi_step_end(cr_lgvi *s);
/* Between a successful cr_lgvi_step_begin and cr_lgvi_step_end, on a node the kernel updated: its
 * new linear momentum p^k = p^{k−1} + h (f_int + f_ext), and a force g (spatial) added to the step
 * after the fact as if it had been in f_ext (f_node, the node's f_ext of the step, for the loads'
 * work): p^k += h g, x^{k+1} += h² g/m, the pending kinetic energy and work with them. A force that
 * depends on p^k (Coulomb friction's stick) costs no second internal-force evaluation this way. */
cr_vec3 cr_lgvi_pending_momentum(const cr_lgvi *s, int node);
void cr_lgvi_pending_add_force(cr_lgvi *s, int node, cr_vec3 f_node, cr_vec3 g);
/* Impulses at a material point of a node the kernel updated (both its translation and rotation), in
 * the pending step (friction at the contact point, docs/lgvi.md "Friction"). X is the point's offset
 * from the node at t_k (spatial), e.g. −a n for the contact point of a section of radius a.
 * The velocity of that material point over the step, (x^{k+1} + R^{k+1} X_b − x^k − X)/h with
 * X_b = (R^k)ᵀ X: */
cr_vec3 cr_lgvi_pending_point_velocity(const cr_lgvi *s, int node, cr_vec3 X);
/* The impulse j ⊥ nrm (unit) that changes the point's tangential velocity by dv's tangential part,
 * with the node's effective mass at the point (the rotation solve linearised at F = I):
 * (P W P + n nᵀ) j = P dv, W = I/m + [X]ˣᵀ I⁻¹ [X]ˣ, I = (c/ε) R J Rᵀ, P = I − n nᵀ. */
cr_vec3 cr_lgvi_point_tangent_impulse(const cr_lgvi *s, int node, cr_vec3 X, cr_vec3 nrm, cr_vec3 dv);
/* The impulse j (spatial, N s) at the point X added to the pending step as the force j/h at the
 * node and the moment X × j/h (spec §2.3's f^ext, c^ext), the rotation solved again from the
 * pending F; f_node, c_node the node's force and moment loads of the step before it (spatial, for
 * the loads' work). CR_NOT_CONVERGED if the rotation solve fails (the node then keeps the linear
 * part: a failed step is discarded by the caller). */
cr_status cr_lgvi_pending_add_impulse(cr_lgvi *s, int node, cr_vec3 f_node, cr_vec3 c_node, cr_vec3 X, cr_vec3 j);
/* The current level's linear momentum p, transported angular momentum ν (body, see the node
 * state in lgvi.c) and last rotation increment f of a node; its rotation as a unit
 * quaternion (kernel frames); its lumped rotational inertia c_q ρJ (diagonal, body). */
void cr_lgvi_node_momenta(const cr_lgvi *s, int node, cr_vec3 *p, cr_vec3 *nu, cr_vec3 *f);
/* The reaction of the fixed clamp at `end` (0: node 0, 1: node K) in the last step: the force
 * (spatial) and moment (body) that hold the node, minus the level-k force and torque its update
 * would apply (packed with the state). 0 when that end has no fixed clamp or before the first step. */
int cr_lgvi_clamp_reaction(const cr_lgvi *s, int end, cr_vec3 *force, cr_vec3 *moment);
cr_quat cr_lgvi_node_quat(const cr_lgvi *s, int node);
cr_vec3 cr_lgvi_node_inertia(const cr_lgvi *s, int node);

/* ---- internals exposed for tests ---- */

/* Overwrites the pose of a node (no validation; R is projected onto SO(3)). Used to put
 * the rod into an arbitrary deformed configuration for finite-difference checks. */
void cr_lgvi_set_pose(cr_lgvi *s, int node, cr_vec3 x, cr_mat3 R);

/* Internal nodal forces f (spatial) and torques M (body frame of the node) at the current
 * configuration (spec §2.3; no external loads), for all K+1 nodes including clamped ones,
 * and the strain energy U_d (spec §2.2) as return value. With dilatation the factors e
 * are those of the current configuration; the forces are -∂U/∂x and the left-trivialised
 * -∂U/∂R at frozen e (spec §2.3 "Frozen-e assumption"). */
double cr_lgvi_internal_forces(const cr_lgvi *s, cr_vec3 *f, cr_vec3 *M);

/* Solves F J_d - J_d F^T = g^ for F = τ(f) (spec §2.3, Lee-Leok-McClamroch) by Newton
 * from the guess *f. J = diagonal of J0. residuals (optional, room for 32) receives
 * |G(f_i)|₁ before every Newton update and after the last one; *iters the number of
 * updates. Returns CR_OK, CR_NONFINITE or CR_NOT_CONVERGED. */
cr_status cr_lgvi_rotation_solve(int chart, cr_vec3 J, cr_vec3 g, cr_vec3 *f, double *residuals, int *iters);

#endif
