/* Port-Hamiltonian director Cosserat rod (Kinon, Eugster, Betsch; notes in
 * shared/spec/port-hamiltonian-rod.md, cited as "spec §n").
 *
 * Mixed finite elements: positions and directors q = (phi, d1, d2, d3) with continuous
 * quadratic Lagrange elements (2 n_e + 1 nodes), stresses sigma = (N, M) linear and
 * discontinuous per element (stored at the 2 Gauss points of each element, which is
 * the same space, spec §5), orthonormality multipliers lambda collocated at the nodes.
 * Time stepping: the energy-momentum consistent midpoint rule (spec §6).
 *
 * Conventions: director d3 is the rod axis; R = [d1 d2 d3] maps body to spatial
 * components. Stress and stiffness order (N1, N2, N3 | M1, M2, M3) = (shear 1,
 * shear 2, extension | bend 1, bend 2, torsion). Loads are spatial and dead.
 *
 * Internal header, included as "ph/ph.h". The first part is the API used by the
 * scenario adapter; the second part (the struct and ph_* functions) exists for the
 * tests and must not be used elsewhere.
 */
#ifndef COSSERAT_PH_H
#define COSSERAT_PH_H

#include "cosserat/base.h"
#include "cosserat/contact.h"
#include "cosserat/math.h"

#include <stddef.h>
#include <string.h>

enum { CR_PH_MAX_BRANCHES = 8 };

typedef struct cr_ph_params {
    int elements;      /* n_e >= 1; FE nodes 2 n_e + 1 (quadratic Lagrange) */
    double length;     /* L > 0 */
    double rhoA, M11, M22; /* inertia per length >= 0 (all 0 = quasistatic, spec §6 "Quasistatic use");
                              M11 multiplies d1, M22 d2; d3 carries no inertia (spec §3) */
    double stiffness[6];   /* ks1, ks2, ke, kb1, kb2, kt (> 0 unless the component is rigid) */
    unsigned rigid;        /* bit i: component i has zero compliance (a constraint; e.g. 0x7 = Kirchhoff
                              C_N = 0). Its stiffness and all viscous branches are ignored for it; its
                              stress is a multiplier, stored and reported at t_{n+1/2} of the last step. */
    int branch_count;      /* generalized-Maxwell branches (spec §7), 0..CR_PH_MAX_BRANCHES; 0 = elastic */
    double branch_tau[CR_PH_MAX_BRANCHES]; /* relaxation time per branch (s) > 0 */
    /* Stiffness fraction per branch, > 0. A Maxwell branch has spring stiffness fraction*k and
       viscosity tau*fraction*k; the elastic branch keeps 1 - (sum over Maxwell branches) >= 0. */
    double branch_fraction[CR_PH_MAX_BRANCHES];
    /* 1: Kelvin-Voigt branch (C^(i) = 0, sigma = V eps_dot with V = tau*fraction*k). Its spring is
       rigid, so its fraction is NOT taken from the elastic branch (it only sets the viscosity).
       Its stress is reported at t_{n+1/2} of the last step. */
    int branch_rigid_spring[CR_PH_MAX_BRANCHES];
    int clamp_start, clamp_end; /* node s = 0 / s = L held (all 12 q, and its 6 lambdas dropped) */
    double h;                   /* default time step > 0 (cr_ph_step takes its own h) */
    double newton_atol; /* residual tolerance (paper: 1e-11 / 1e-12); the increment test of spec §6
                           (|dX| <= 1e-8 (1 + |X|), then one more update) also converges */
    int max_iterations; /* Newton iterations per step, >= 1 */
    /* Threads of the Newton iterations' element pass and solve (ph_direct.c, the two-sided pass: the rod's
       halves from its two ends at once, results equal to the one-sided pass to round-off). 0 (default):
       automatic, as the mixed rod's statics (COSSERAT_THREADS, else OMP_NUM_THREADS, else the online
       CPUs) from CR_PH_PARALLEL_MIN_ELEMENTS elements on; >= 1: exactly that many (at most 2 are used).
       Rods with rigid components clamped at both ends run on one thread (with one clamped end, the half
       from the clamp delays the pivots it cannot take). */
    int threads;
} cr_ph_params;

enum { CR_PH_PARALLEL_MIN_ELEMENTS = 10000 };
/* a front's solution (ph_direct.c block_solution_any): m (1 + nt) doubles with m + nt <= 32 */
enum { PH_TS_ZMAX = 16 * 17 };

/* The flying spaghetti of spec §9.1 (Table 1), free-free, elastic. */
cr_ph_params cr_ph_default_params(void);

typedef struct cr_ph_loads {       /* sampled by the caller at t_{n+1/2}; spatial, dead */
    const cr_vec3 *node_force;     /* 2n_e+1 entries or NULL */
    const cr_vec3 *node_moment;    /* 2n_e+1 entries or NULL (enters via T(d_{n+1/2}) mu, spec §6) */
    cr_vec3 force_density, moment_density; /* uniform per unit length (gravity = rhoA g goes here) */
    /* 6 values or NULL: uniform actuation stress sigma_act (material frame, same order as the
       stresses) added to the internal stress in the momentum equations (spec §8). Sign: the rod
       behaves as if its elastic stress had to balance -sigma_act, so at equilibrium of an otherwise
       unloaded free rod sigma_el = -sigma_act and the strain is eps - eps0 = -C sigma_act.
       A pneumatic chamber of force p A at section offset r (material (x, y, 0)) gives
       sigma_act = -p A (e3, r x e3): it lengthens the rod and bends it away from the chamber.
       A tendon of tension tau at offset r gives sigma_act = +tau (e3, r x e3): it shortens the rod
       and bends it toward the tendon. See cr_ph_actuation_chamber / cr_ph_actuation_tendon. */
    const double *actuation;
} cr_ph_loads;

/* Actuation stress (spec §8, straight routing) of a pressurized chamber (force p A > 0 pushes)
   at material offset (rx, ry) in the (d1, d2) plane: adds -pA (e3, r x e3) to sigma_act[6]. */
void cr_ph_actuation_chamber(double pA, double rx, double ry, double sigma_act[6]);
/* Same for a tendon of tension T > 0 at material offset (rx, ry): adds +T (e3, r x e3). */
void cr_ph_actuation_tendon(double T, double rx, double ry, double sigma_act[6]);

typedef struct cr_ph cr_ph; /* model + state */

/* initial = reference (stress-free) configuration at the 2n_e+1 FE nodes: positions and rotations
   (columns = directors). Reference strains eps_0 at the Gauss points are computed from it. At rest.
   Returns NULL with err set (CR_BAD_INPUT naming the field, or CR_NO_MEMORY). */
cr_ph *cr_ph_create(const cr_ph_params *p, const cr_vec3 *x0, const cr_mat3 *R0, cr_error *err);
void cr_ph_destroy(cr_ph *s);

/* One midpoint step t_n -> t_n + h (spec §6). On failure (CR_NOT_CONVERGED, CR_SINGULAR, CR_NONFINITE)
   the state is unchanged and err names the time and the last residual; the caller may retry with a
   smaller step. `iterations` (may be NULL) receives the Newton updates made, counting the final one
   made after the residual or increment test passed (spec §6 convergence test). loads may be NULL. */
cr_status cr_ph_step(cr_ph *s, double h, const cr_ph_loads *loads, int *iterations, cr_error *err);

/* Static equilibrium under `loads` (no inertia; sigma from the end-point strains, elastic branch only:
   Maxwell and Kelvin-Voigt stresses have relaxed), Newton from the current state; the caller ramps the
   loads. On success velocities and viscous stresses are zeroed, time is unchanged. On failure the state
   is unchanged. Needs at least one clamped end (a free rod has rigid-body modes). */
cr_status cr_ph_solve_static(cr_ph *s, const cr_ph_loads *loads, int *iterations, double *residual,
                             cr_error *err);

/* Predictor of the next cr_ph_solve_static: the state plus `ratio` times the last static solve's change
   (q and the rigid stresses), e.g. the ratio of the next load increment to the last one when the caller
   ramps the loads; 0 (the default) starts from the state. Used once; forgotten after a midpoint step or
   an unpack, and ignored when the last call was not a static solve. Only the initial guess: the
   equilibrium found does not depend on it. */
void cr_ph_static_predictor(cr_ph *s, double ratio);

double cr_ph_time(const cr_ph *s);
int cr_ph_node_count(const cr_ph *s); /* 2 n_e + 1 */
double cr_ph_node_s(const cr_ph *s, int node);
cr_vec3 cr_ph_position(const cr_ph *s, int node);
cr_mat3 cr_ph_directors(const cr_ph *s, int node); /* columns d1 d2 d3 as stored (not orthonormalized) */
cr_vec3 cr_ph_velocity(const cr_ph *s, int node);  /* v_phi at t_n (v_{n+1} = 2 v_{n+1/2} - v_n) */
int cr_ph_sample_count(const cr_ph *s);            /* 2 n_e Gauss points */
double cr_ph_sample_s(const cr_ph *s, int g);
/* at Gauss point g: strains Gamma - Gamma0, K - K0 and the total stresses N, M (material frame): elastic
   plus viscous branches (rigid components: the multiplier at t_{n+1/2} of the last step). The actuation
   stress sigma_act is a load and is not included. */
void cr_ph_sample(const cr_ph *s, int g, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *N, cr_vec3 *M);

/* Contact of the nodes with obstacles (docs/port-hamiltonian.md "Contact"; ph_contact.c): planes
   (infinite or finite), spheres, cylinders, capsules, boxes, fixed or translating (velocity,
   acceleration: their work on the rod is in the balance's W). The penalty potential
   V_c = sum_I sum_obstacles 1/2 k_I min(0, g)^2 with g = phi(phi_I - c(t)) - a_I, phi the obstacle's signed
   distance (cr_obstacle_distance) and c(t) its translation. It enters the midpoint rule through a
   discrete gradient (ph_contact_force), so the energy balance stays exact; V_c is part of H. stiffness
   and radius: nn values (k_I >= 0, a_I >= 0); the obstacles are copied. Replaces any earlier contact
   (and its friction); count = 0 removes it. */
cr_status cr_ph_set_obstacles(cr_ph *s, int count, const cr_obstacle_def *obstacles, const double *radius,
                              const double *stiffness, cr_error *err);
/* The same with fixed infinite planes: g = n . phi_I - n . p - a_I (n the unit normal, pointing to the
   free side; p a point of the plane). */
cr_status cr_ph_set_contact(cr_ph *s, int planes, const cr_vec3 *normal, const cr_vec3 *point, const double *radius,
                            const double *stiffness, cr_error *err);
/* Coulomb friction of the obstacles of cr_ph_set_obstacles (docs/port-hamiltonian.md "Friction"), per obstacle
   mu_static >= mu_kinetic >= 0 (0: frictionless), regularized below the speed stick_speed > 0 (m/s). In
   a midpoint step a node touching obstacle p (its normal force N > 0 from the discrete gradient of V_c)
   carries F = -mu N v_t / max(|v_t|, stick_speed) at its contact point r - a n (its moment in the
   directors' rows, ph_contact_force), v_t the tangential part (at the normal of the step's midpoint) of
   the contact point's midpoint velocity relative to the obstacle. mu = mu_kinetic when the node's previous step slid
   (|v_t| of the last midpoint velocity above stick_speed), else mu_static. F . (phi_{n+1} - phi_n) <= 0: friction is a
   dissipation D_n >= 0 in the energy balance. Statics are frictionless. Call after cr_ph_set_obstacles
   (which removes the friction); mu may be NULL (frictionless). */
cr_status cr_ph_set_friction(cr_ph *s, const double *mu_static, const double *mu_kinetic, double stick_speed,
                             cr_error *err);
/* the contact state of node I against all obstacles: its force (spatial: the springs' at t_n plus the
   friction of the last step), the sum of the springs' normal forces (N), its deepest gap (m; +INFINITY
   without obstacles or off a finite plane), and 0 (none touched, g >= 0), 1 (touching, sticking or
   frictionless) or 2 (touching one with friction and sliding: its last step's tangential speed relative
   to it above stick_speed).
   Any pointer may be NULL. */
int cr_ph_contact_node(const cr_ph *s, int node, cr_vec3 *force, double *normal, double *gap);

/* The reaction of the clamp at `end` (0: s = 0, 1: s = L) on the rod, of the last converged step (the
   momentum balance of the clamped node's rows with their inertia, over the step: h (f_ext + R) = the
   change of its momentum less h times the internal forces at t_{n+1/2}) or equilibrium: the force
   (spatial) and its moment about the node (spatial, m = sum_k d_k x R_dk of the director rows, which
   the orthonormality constraints' forces do not change). 0 when that end is not clamped or before
   the first step or equilibrium (after an unpack). */
int cr_ph_clamp_reaction(const cr_ph *s, int end, cr_vec3 *force, cr_vec3 *moment);

typedef struct cr_ph_diag {
    double kinetic, elastic, total;     /* H = kinetic + elastic + contact (spec §10, same quadrature) */
    double contact;                     /* the contact springs' energy V_c (cr_ph_set_obstacles) */
    double work_external;               /* cumulative W^ext (+ actuation work) */
    double dissipated;                  /* cumulative D >= 0 */
    double energy_balance;              /* last step's Delta E_n = H_{n+1} - H_n - W_n + D_n (spec §10) */
    /* a bound on the rounding error of work_external: eps sum |f_k| (|q_k| + |q1_k|) over the steps
     * since the create (checkpointed) */
    double work_roundoff;
    cr_vec3 momentum, angular_momentum; /* spec §10 definitions (2-point Gauss mass) */
    cr_vec3 center_of_mass;             /* int rhoA phi / int rhoA (phi averaged if rhoA = 0) */
    double constraint_violation;        /* max over nodes |g(d)| */
} cr_ph_diag;
void cr_ph_diagnostics(const cr_ph *s, cr_ph_diag *out);

int cr_ph_packed_size(const cr_ph *s); /* for checkpoints */
void cr_ph_pack(const cr_ph *s, double *out);
void cr_ph_unpack(cr_ph *s, const double *in);

/* ------------------------------------------------------------------------------------------------
 * Internal: the model struct and the assembly, exposed for tests only.
 * ---------------------------------------------------------------------------------------------- */

enum { PH_DYNAMIC = 0, PH_STATIC = 1 };

struct cr_ph {
    cr_ph_params p;
    int ne, nn, ng, nb;       /* elements, nodes, Gauss points, viscous branches */
    double le, w;             /* element length, Gauss weight l_e / 2 */
    double N[2][3], dN[2][3]; /* shape values and s-derivatives at the two Gauss points */
    double mass[4];           /* rhoA, M11, M22, 0 per field phi, d1, d2, d3 */
    int nr;                   /* rigid components */
    int rigid_comp[6];        /* their indices */
    int rigid_slot[6];        /* component -> slot among the rigid ones, or -1 */
    double k_el[6];           /* elastic-branch stiffness per component (0 for rigid) */
    double k_br[CR_PH_MAX_BRANCHES][6], eta_br[CR_PH_MAX_BRANCHES][6];
    int kv[CR_PH_MAX_BRANCHES];

    /* state at t_n */
    double t;
    double *q, *v;       /* nn * 12 */
    double *lam;         /* nn * 6: last lambda_{n+1/2} (Newton guess) */
    double *vmid;        /* nn * 12: last v_{n+1/2} = (q_n - q_{n-1}) / h (Newton predictor) */
    double *sig_el;      /* ng * 6: elastic branch; rigid components hold the multiplier */
    double *sig_br;      /* ng * nb * 6: viscous branches (Kelvin-Voigt: value at t_{n+1/2}) */
    double *eps0;        /* ng * 6 reference strains */
    double work_ext, dissipated, energy_balance, work_roundoff;

    /* unknowns X = (q_{n+1}, lambda) of the free nodes and the rigid stresses, node-major */
    int nx;
    int *node_off;       /* nn: offset of node I's 12 q (lambda at +12), -1 when clamped */
    int *sig_off;        /* ne: offset of element e's 2 nr rigid stresses */
    double *X, *dX, *r;

    /* Jacobian of the last assembly, in blocks (ph_assemble.c):
       Ke  ne * 36 * 36  q-q couplings of the element's 3 nodes (mass, material, geometric, loads)
       Bc  ne * 36 * 2nr momentum rows x rigid stresses;  Br  ne * 2nr * 36 rigid rows x q
       Kn  nn * 9 * 9    director-director terms of the node (lambda, point moment)
       Gm, G1  nn * 6 * 9  G_d(d_{n+1/2}) (lambda columns, times fac) and G_d(d_{n+1}) (constraint rows)
       They, ph_linear.c's factors (Pm, Pn, gramm, gram1, rband, ripiv) and the band LU's arrays (ripiv, rlast,
       ustore at its band size) are NULL until a path needs them (ph_reference_arrays; ref_have: the
       PH_REF_* groups allocated): the one-pass Newton of ph_direct.c's fronts never reads them. */
    double fac;
    double *Ke, *Bc, *Br, *Kn, *Gm, *G1;
    int ref_have;
    /* reduced Newton system (ph_linear.c): per free node (dphi, dtheta) with the director increments
       in the null space of the constraints, the rigid stresses; LAPACK band storage */
    int nred, rkl, rku, rldab;
    int *node_roff, *sig_roff;
    double *rband, *rrhs, *dqp, *kdq;
    double *dq_static, *dsig_static; /* nn * 12, ng * nr: the last static solve's change (predictor) */
    int have_static;                 /* they belong to the state (the last call was a static solve) */
    double static_ratio;             /* cr_ph_static_predictor */
    /* nn * 3: the rotation increment dtheta of each free node's directors in the last
       ph_direct_iteration (newton completes the update to second order in it) */
    double *theta;
    double dturn; /* the largest |dX| of the directors in the last ph_direct_iteration (Newton's turn limit) */
    /* Newton's update fused into ph_direct_iteration's increments (newton sets fuse_update for its calls): X +=
       dX with the directors' second-order term, while the increments are in the cache (a pass of its own over X,
       dX, q1 and theta was ~8 % of the memory traffic per iteration at 10^5 elements, and serial between the two
       threads' phases). upd: the update's largest position, director and rigid-stress increments and rigid
       stress (newton's scaled_increment), upd_finite: the updated X is finite. The iterate before the update
       stays in q1, lam1, sig1 (newton restores X from them to shorten the update or keep the iterate). */
    int fuse_update, upd_finite;
    double upd[4];
    double rsq; /* |r|^2 of the last successful ph_direct_iteration or ph_direct_residual (its rows' squares
                   summed as the pass finishes them: Newton's norm without a pass of its own over r) */
    int *ripiv;
    /* ph_direct.c's frontal LU: the active columns in a ring of rW (a power of 2) band columns, the
       finished columns' U parts (rows from their first nonzero to the diagonal) in ustore at uoff; the
       node-block fronts keep their block's solution there instead (ph_front_stride per element) */
    int rW;
    double *ring, *ustore;
    size_t *uoff;
    int *rlast;            /* nred: last row (= column) a reduced unknown is coupled to (its element block's
                              end + the next end node), the sparsity the frontal LU of ph_direct.c follows */
    double *Pm, *Pn;       /* nn * 27: null-space bases P(d_{n+1/2}), P(d_{n+1}) of the factored Jacobian */
    double *gramm, *gram1; /* nn * 36: Cholesky factors of G G^T for G_d(d_{n+1/2}), G_d(d_{n+1}) */
    int fact_ok;           /* the factors above belong to the Jacobian blocks stored (ph_linear_factor) */
    long jacobians, factorizations, iterations; /* counters since creation (bench, reports) */
    /* the two-sided pass (ph_direct.c): the node where the halves meet (0: one-sided) and the threads */
    int split;
    struct cr_pool *pool;
    /* its fronts from a clamped end of a rod with rigid components (ph_direct.c block_eliminate_delay; NULL
       otherwise): per element the columns eliminated, the front's size and its columns' reduced indices
       (32 + 2 ints), the offset of its solution in tsz (PH_TS_ZMAX doubles per element at most) */
    int *tsinfo;
    size_t *tsoff;
    double *tsz;    /* the delaying half's fronts only: its element count times PH_TS_ZMAX */
    long two_sided; /* ph_direct_iteration's passes that the two-sided pass made (read-only: tests) */

    /* per-step work */
    double h;            /* step in progress */
    double *q1, *lam1, *sig1;  /* unpacked iterate: nn*12, nn*6, ng*nr */
    double *eps_n;       /* eps(q_n) at Gauss points (ng*6) */
    /* What a step reuses from the step before (ph_step_finish makes them, ph_state_changed forgets them):
       have_eps: eps_n is eps(q) of the state (the finish's eps(q_{n+1}), which ph_begin would recompute);
       have_H: H is ph_energy of the state (the finish's H_{n+1}, the next step's H_n); have_pred: X holds
       ph_begin's dynamic predictor of the state for a step of pred_h (the finish writes it while the nodes
       are in the cache); have_sigmax likewise. Every write to q, v, vmid, lam, sig_el, sig_br, t or the obstacles that
       is not a step's must call ph_state_changed, or the next step starts from the old state's values. */
    int have_eps, have_H, have_pred;
    double H, pred_h;
    int have_sigmax; /* sig_max: Newton's largest |sig_el| of the state (the finish's, as sig_el_max) */
    double sig_max;
    double *g0;          /* g(d_0) at the nodes (nn*6), the constraint values kept (spec §6 (G)) */
    double *fext;        /* nn * 12 generalized external forces of the last assembly (no h) */

    /* contact with obstacles (cr_ph_set_obstacles, ph_contact.c): their definitions, and for the
       infinite planes (cplane) the gap g_I = n . y - o - a_I in closed form */
    int ncp;
    cr_obstacle_def *cob;  /* ncp obstacles */
    int *cplane, *cmoving; /* ncp each: an infinite plane; a translating obstacle (velocity, acceleration) */
    int any_moving;        /* some obstacle translates */
    struct cr_obstacle_path *cpath; /* ncp: their motions (src/contact/motion.h; ph_contact_free_paths) */
    double *cp;            /* ncp * 4: a plane's unit normal n, offset o (other shapes: their axis, unused) */
    double *ck, *ca; /* nn: spring k_I and contact radius a_I of each node */
    /* friction (cr_ph_set_friction): ncp * 2 coefficients mu_s, mu_k per plane (NULL: frictionless),
       the regularization speed, and nn * 3 each node's friction force of the last step (output) */
    double *cmu, stick_speed, *cf;
    /* the clamps' reactions (ph_clamp_reactions): the generalized force on the clamped end node's 12
       coordinates (start, end) that its dropped rows would need, of the last converged step or
       equilibrium (have_react: 0 before the first; packed with the state) */
    double react[2][12];
    int have_react;
    /* static friction (ph_contact.c, docs/port-hamiltonian.md "Friction"): per node and obstacle
       (node-major, nn * ncp) the stick anchor (in the obstacle's frame) and tangential multiplier of
       the augmented Lagrangian (src/contact/contact.h's pair; NULL without friction), and the
       tolerance within which an anchored node counts as touching (contact.tolerance) */
    struct cr_contact_pair *cpair;
    double *cpc; /* nn * ncp * 3: the anchored contact point's material coordinates c_k (ph_contact_coeffs) */
    int friction_centre; /* friction at the nodes' centres (c_k = 0), not the contact points: 1 by
                            default (cr_ph_create) and for an assembly's rods; 0 (the scenario adapter with
                            contact.rolling) puts it at the contact points */
    double ctol;
};

/* Prepares a step (mode PH_DYNAMIC, step h) or a static solve: strains and constraints of the
   current state, and X = the initial guess. */
void ph_begin(cr_ph *s, int mode, double h);
/* The arrays of the paths other than ph_direct.c's fronts, allocated on their first use (cr_ph_create
   allocates what the fronts need): PH_REF_BLOCKS the Jacobian blocks of ph_assemble (Ke, Bc, Br, Kn, Gm, G1;
   16.9 kB per element for a Kirchhoff rod, Ke alone 10.4 kB), PH_REF_FACTOR ph_linear_factor's (Pm, Pn,
   gramm, gram1, rband, ripiv), PH_REF_BAND the band LU of ph_direct.c (ripiv, rlast, ustore grown to the
   band's U columns). what: a combination; groups already there are kept. CR_NO_MEMORY when one cannot
   be allocated (the ones that could are kept, and freed by cr_ph_destroy). */
enum { PH_REF_BLOCKS = 1, PH_REF_FACTOR = 2, PH_REF_BAND = 4 };
cr_status ph_reference_arrays(cr_ph *s, int what);
/* Residual r(X) and (if want_jacobian) its Jacobian blocks (CR_NO_MEMORY when their arrays cannot be
   allocated, ph_reference_arrays: r is then not computed). The residual alone needs none of them. */
cr_status ph_assemble(cr_ph *s, int mode, const cr_ph_loads *loads, const double *X, double *r, int want_jacobian);
/* The Jacobian of the last assembly as a dense nx * nx row-major matrix (tests; zero before any). */
void ph_jacobian_dense(const cr_ph *s, double *J);
/* Solves J dX = -r with the Jacobian of the last assembly at s->q1 (null-space reduction per node,
   banded LU of the reduced system). CR_SINGULAR when the reduced matrix is singular, CR_NO_MEMORY when the
   factors' arrays cannot be allocated (ph_reference_arrays). */
cr_status ph_linear_solve(cr_ph *s, const double *r, double *dX, int *bad);
/* ph_linear_solve in two parts: factor the Jacobian of the last assembly (sets fact_ok), then solve
   with it for any residual (modified Newton reuses one factorization for several residuals). */
cr_status ph_linear_factor(cr_ph *s, int *bad);
void ph_linear_apply(cr_ph *s, const double *r, double *dX);
/* doubles kept per element by ph_direct.c's node-block fronts for the back substitution (block_solution: per
   eliminated row, at most 12 + 2 nr, its solution's constant and its 6 coefficients on the tail node) */
static inline size_t ph_front_stride(const cr_ph *s) { return (size_t)(12 + 2 * s->nr) * 7; }
/* One Newton iteration in one pass (ph_direct.c): sets the multipliers in X to the least-squares
   solution of the director rows at X, returns the residual r at that X and the increment dX of q and
   the rigid stresses (zero in lambda) of the Newton system there. CR_SINGULAR with *bad the unknown;
   CR_NO_MEMORY when the band LU it falls back to cannot allocate its arrays (ph_reference_arrays). */
cr_status ph_direct_iteration(cr_ph *s, int mode, const cr_ph_loads *loads, double *X, double *r, double *dX, int *bad);
/* The parts of cr_ph_step and cr_ph_solve_static after Newton converged (with s->X unpacked and the
 * external forces of the converged iterate in s->fext), shared with the assemblies (ph_assembly.c):
 * stresses, velocities, energy account (H0 = ph_energy before the step) / the static state. */
void ph_step_finish(cr_ph *s, double h, const cr_ph_loads *loads, double H0);
void ph_static_finish(cr_ph *s);
/* The clamps' reactions of the converged iterate (s->react), before ph_step_finish or ph_static_finish
   moves the state: the clamped nodes' rows of ph_assemble (internal forces, inertia, loads) */
void ph_clamp_reactions(cr_ph *s, int mode, const cr_ph_loads *loads);
double ph_energy(const cr_ph *s); /* H = kinetic + elastic + contact of the state at t_n */
/* H of the state at t_n (ph_energy), the last step's H_{n+1} when the state is still that step's */
double ph_step_energy(cr_ph *s);
/* The single entry point for every write to the state at t_n that bypasses a step (checkpoint resume,
   a static solve, obstacles or friction set, the tests' direct writes to q, v, vmid, lam, the stresses, t):
   forgets what the next step would reuse (cr_ph.have_eps, have_H, have_pred, have_sigmax): it recomputes. */
void ph_state_changed(cr_ph *s);
/* The same pass without the Jacobian: the multipliers in X to the least-squares solution of the
   director rows at X and the residual r there (ph_assemble + the multipliers' refresh in one pass).
   CR_SINGULAR when a node's constraint Gram matrix is (its directors are degenerate). */
cr_status ph_direct_residual(cr_ph *s, int mode, const cr_ph_loads *loads, double *X, double *r);
/* pieces shared by ph_assemble.c, ph_linear.c and ph_direct.c */
void ph_unpack(cr_ph *s, const double *X);
/* B_a = d eps / d q_a (6 x 12, row-major) at the point (q, q_s) for a node with shape value n
 * and derivative ns (spec §1 strain rates). Inline: the
 * one-pass iteration's AVX2 clone (ph_direct.c) inlines it. Row Gamma_k: phi block ns d_k, d_k block n phi_s.
 * Row K_i with (i, j, k) cyclic, K_i = 1/2 (d_k . d_j,s - d_j . d_k,s):
 *   d_j block 1/2 (ns d_k - n d_k,s), d_k block 1/2 (n d_j,s - ns d_j). */
static inline void ph_strain_jacobian(const double *q, const double *qs, double n, double ns, double B[6][12])
{
    memset(B, 0, sizeof(double) * 72);
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) {
            B[k][c] = ns * q[3 + 3 * k + c];
            B[k][3 + 3 * k + c] = n * qs[c];
        }
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        for (int c = 0; c < 3; ++c) {
            B[3 + i][3 + 3 * j + c] = 0.5 * (ns * q[3 + 3 * k + c] - n * qs[3 + 3 * k + c]);
            B[3 + i][3 + 3 * k + c] = 0.5 * (n * qs[3 + 3 * j + c] - ns * q[3 + 3 * j + c]);
        }
    }
}
extern const int ph_row_field[6][2];
void ph_stress_coupling(const double sig[6], double c[4][4]);
void ph_constraint_jacobian(const double *d, double G[6][9]);
int ph_gram_factor(const double *G, double Lc[36]);
void ph_gram_apply(const double Lc[36], double b[6]);
/* orthonormality constraints g(d) of spec §1, d = (d1, d2, d3) */
void ph_constraint(const double *d, double g[6]);
/* eps = (Gamma, K) of spec §1 from q and q_s at a point (bilinear). */
void ph_strain(const double *q, const double *qs, double eps[6]);
/* 1/2 int sigma^T C sigma of the given stresses, 1/2 v^T M v (spec §10, 2-point Gauss). */
double ph_elastic_energy(const cr_ph *s, const double *sig_el, const double *sig_br);
double ph_kinetic_energy(const cr_ph *s, const double *v);

/* Midpoint stress of the non-rigid component j at Gauss point gp for the strain increment de,
 * and its derivative kappa = d sigma_{n+1/2} / d de (spec §7, discrete):
 *   elastic:  sigma_{n+1} = sigma_n + k de
 *   Maxwell:  C (sigma_{n+1} - sigma_n) = de - h V^-1 sigma_{n+1/2}, V = tau k
 *             => sigma_{n+1} = (sigma_n (1 - a) + k de) / (1 + a), a = h / (2 tau)
 *   Kelvin-Voigt: 0 = de - h V^-1 sigma_{n+1/2} => sigma_{n+1/2} = eta de / h.
 * Inline: the one-pass iteration (ph_direct.c) calls it per strain component and Gauss point. */
static inline double ph_mid_stress(const cr_ph *s, int gp, int j, double de, double h, double *kappa)
{
    double sm = s->sig_el[6 * gp + j] + 0.5 * s->k_el[j] * de, kap = 0.5 * s->k_el[j];
    for (int i = 0; i < s->nb; ++i) {
        double sn = s->sig_br[(gp * s->nb + i) * 6 + j];
        if (s->kv[i]) {
            sm += s->eta_br[i][j] * de / h;
            kap += s->eta_br[i][j] / h;
        } else {
            double a = 0.5 * h * s->k_br[i][j] / s->eta_br[i][j];
            double sn1 = (sn * (1 - a) + s->k_br[i][j] * de) / (1 + a);
            sm += 0.5 * (sn + sn1);
            kap += 0.5 * s->k_br[i][j] / (1 + a);
        }
    }
    *kappa = kap;
    return sm;
}

/* The coordinates at Gauss point g of element e (2-point Gauss, quadratic shape functions): q1,
 * q1s = q_{n+1} and its s-derivative; in dynamics (dyn) also q0, q0s = q_n, v0 = v_n and the
 * midpoint values qm, qms (spec §6); in statics qm, qms = q1, q1s and q0, q0s, v0 are zero.
 * Shared by the assembly (ph_assemble.c) and the one-pass iteration (ph_direct.c). */
static inline void ph_gauss_point(const cr_ph *s, int e, int g, int dyn, double q1[12], double q1s[12],
                                  double q0[12], double q0s[12], double v0[12], double qm[12], double qms[12])
{
    for (int k = 0; k < 12; ++k) q1[k] = q1s[k] = q0[k] = q0s[k] = v0[k] = 0.0;
    for (int a = 0; a < 3; ++a) {
        const double *qa = s->q1 + 12 * (2 * e + a), *pa = s->q + 12 * (2 * e + a), *va = s->v + 12 * (2 * e + a);
        double n = s->N[g][a], ns = s->dN[g][a];
        for (int k = 0; k < 12; ++k) {
            q1[k] += n * qa[k], q1s[k] += ns * qa[k];
            if (dyn) q0[k] += n * pa[k], q0s[k] += ns * pa[k], v0[k] += n * va[k];
        }
    }
    for (int k = 0; k < 12; ++k) {
        qm[k] = dyn ? 0.5 * (q0[k] + q1[k]) : q1[k];
        qms[k] = dyn ? 0.5 * (q0s[k] + q1s[k]) : q1s[k];
    }
}

/* The contact force term of node I (cr_ph_set_obstacles; ph_contact.c) for the momentum rows: dg[3] = the
 * discrete gradient of V_c between phi_n and phi_{n+1} (dyn) or its gradient at phi_{n+1} (statics), and
 * Kc = d dg / d phi_{n+1} (3 x 3, node-local). Per obstacle V = psi(g), g the gap relative to the
 * obstacle's placement; the discrete gradient is D(g_n, g_{n+1}) G with D the exact discrete derivative
 * of the piecewise quadratic psi and G Gonzalez's discrete gradient of g (Gonzalez 1996), so its product
 * with the step's displacement relative to the obstacle is V_{n+1} - V_n exactly. For a plane G = n and
 * this is (V(g1) - V(g0)) / (g1 - g0) n, in closed form without cancellation.
 *
 * dg and Kc are the node's 12 rows (position, d1, d2, d3) and its 12 x 12 block (row-major). With friction
 * (cr_ph_set_friction) dg also holds -F, the friction force of the step, on the position rows and
 * -c_k F on d_k's (F acts at the contact point r + sum_k c_k d_k, ph_contact_coeffs: its moment
 * (c - r) x F; dg is then no gradient), and ff (may be NULL) receives F alone. Dynamics: F = -mu N b t
 * with N = -D, t = P sl (sl = d + sum_k c_k dd_k the step's slip of the contact point relative to the
 * obstacle, c_k frozen at t_n, P = I - n n^T at the midpoint's normal) and b = 1 / max(|t| / h, eps) / h:
 * a function of the node's q_{n+1} alone, so its Jacobian is node-local (not symmetric: the LU pivots).
 * Statics: the stick anchors' spring at the contact point. *diss (may be NULL) receives -F . sl >= 0,
 * the friction's dissipation, and *wob (may be NULL) the work of the contact forces over the obstacles'
 * own displacement in the step (moving obstacles; 0 for fixed ones): the rod's balance is
 * H_{n+1} - H_n = W - D with W including *wob. Returns 0 when the node touches no obstacle at either
 * end of the step (dg and Kc zero). */
/* Static friction's stick anchors and multipliers (ph_contact.c; the mixed rod's augmented Lagrangian,
   docs/theory.md "Contact with obstacles"). begin: anchors the pairs of frictional obstacles touching
   (gap <= tol) at the state that are not anchored yet (the start of a static stage; tol is kept as
   ctol). update: one Uzawa update at the equilibrium in s->q (lambda_T <- the friction force, a
   sliding pair's anchor moved to the node, opened pairs released, new contacts anchored); returns 1
   when it was already converged (no contact opened or closed, every stick drift at most ctol: then
   nothing changes), *drift the largest. The friction forces at the state go to cf either way.
   release: forgets every anchor (a dynamic stage: its friction is the regularized force). state:
   obstacle p's frictional pairs touching at the state, those at the Coulomb limit and the largest
   |t|/(mu_s N). begin returns the anchored pairs (0: nothing rough touches the rod). */
int ph_static_friction_begin(cr_ph *s, double tol);
int ph_static_friction_update(cr_ph *s, double *drift);
void ph_static_friction_release(cr_ph *s);
void ph_static_friction_state(const cr_ph *s, int p, int *touching, int *sliding, double *ratio);
/* Newton's initial positions X (ph_begin's) of a static solve: each node sticking to one obstacle moved
   back by its stick drift, to its anchor (a no-op but after a multiplier update) */
void ph_static_friction_predictor(const cr_ph *s, double *X);
int ph_contact_force(const cr_ph *s, int I, int dyn, double dg[12], double Kc[144], double ff[3], double *diss,
                     double *wob);
/* The contact point of node I with obstacle p, c = r - a n = r + sum_k c_k d_k: its material coordinates
   c_k = -a n . d_k at the node's 12 values q at time t (0 and c = 0 off a finite plane), and the offset
   sum_k c_k d_k of the directors in q, in the obstacle's frame at t. */
int ph_contact_coeffs(const cr_ph *s, int I, int p, double t, const double *q, double c[3]);
cr_vec3 ph_contact_offset(const cr_ph *s, int p, double t, const double c[3], const double *q);
/* The gap g = phi(y) - a of obstacle p at y (relative to its placement at time 0: y = x - shift(t)), its
 * gradient n (unit normal) and Hessian H = dn/dy (3 x 3 row-major), both optional. Returns 0 where g is
 * undefined (off a finite plane's rectangle). */
int ph_contact_gap(const cr_ph *s, int p, cr_vec3 y, double a, double *g, double n[3], double H[9]);
/* Newton's safeguard for friction (ph_solve.c): an update dX that turned a touching node's tangential
 * midpoint velocity around, both outside the regularization ramp, is replaced in X by the one that stops
 * it on the ramp. Returns whether it changed X (then the update is no Newton update: no convergence test
 * on it). The one-rod Newton and the assemblies' coupled one (ph_assembly.c) call it. */
int ph_friction_reversals(cr_ph *s, double *X, const double *dX);
/* A point x (I) in obstacle p's own frame at time t (the obstacle as given: translated back, and
 * turned back by Rᵀ about its centre; x − shift for one that only translates, x if it does not move),
 * where its gap, normal and Hessian (ph_contact_gap) are measured */
cr_vec3 ph_obstacle_local(const cr_ph *s, int p, double t, cr_vec3 x);
/* its rotation at t (the identity unless it turns): a vector of its frame to I */
cr_mat3 ph_obstacle_rotation(const cr_ph *s, int p, double t);
/* 1 when obstacle p turns (an angular velocity, or a table or time function with rotations) */
int ph_obstacle_turns(const cr_ph *s, int p);
/* the velocity (I) of its material point at x: v + ω × (x − its centre) */
cr_vec3 ph_obstacle_surface_velocity(const cr_ph *s, int p, double t, cr_vec3 x);
/* frees the obstacles' motions (the model's destruction) */
void ph_contact_free_paths(cr_ph *s);
/* V_c at positions q (nn * 12) */
double ph_contact_energy(const cr_ph *s, const double *q);
/* whether a node touches an obstacle (g < 0) at t_n or at the last pass's iterate q1: where the equations
   have kinks (Newton's floor test, ph_solve.c) */
int ph_contact_touching(const cr_ph *s);

#endif
