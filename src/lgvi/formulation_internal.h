/* The LGVI rod's scenario adapter (formulation.c) as its assemblies (assembly.c) use it:
 * one rod's discretization, loads and series row. */
#ifndef COSSERAT_LGVI_FORMULATION_INTERNAL_H
#define COSSERAT_LGVI_FORMULATION_INTERNAL_H

#include "lgvi/lgvi.h"
#include "model/formulation.h"

#include <stdint.h>

struct cr_contact;
struct cr_obstacle_pose;

typedef struct lgvi_sim {
    cr_lgvi *k;
    cr_lgvi_params p;
    int nodes;
    double *s;                /* node arc lengths */
    double *s_mid;            /* element midpoints */
    cr_vec3 *gamma0, *kappa0; /* reference strains in the library's components (x axial) */
    double *lumped;           /* lumped length per node (half of each adjacent element) */
    int load_count;
    cr_load_def *loads;   /* copies (time tables owned) */
    cr_vec3 *f, *c;       /* per-step nodal loads (spatial) */
    double *stage_factor; /* per load: 1 if active in the running stage */
    double *input;        /* per load: actuator input (default 1), a factor on its magnitude */
    /* obstacles (NULL without): frictionless penalty springs, their forces at t_k passed to the
     * kernel with the loads (explicit, as every force of the scheme) */
    struct cr_contact *contact;
    cr_vec3 *fc;                            /* contact forces of the step (spatial) */
    double contact_energy;                  /* ½ Σ k_i min(0, g)² at the energies' level t_k */
    double contact_work, contact_work_last; /* the kernel's discrete work of fc, Σ w_j and w_k */
    /* Coulomb friction (an obstacle with friction; NULL without): per node whether its last step
     * slid */
    unsigned char *sliding;
    int rolling;            /* contact.rolling: the friction at the contact point (else the centre) */
    double *fr_N;           /* scratch of cr_lgvi_sim_friction: per obstacle the normal force (N) */
    cr_vec3 *fr_n;          /* and its normal */
    double step_V, step_wc; /* the step's V_c at t_k and its work's first half (contact_loads) */
    /* moving obstacles (docs/lgvi.md "Moving obstacles"; 0 / NULL when every obstacle is fixed): the
     * springs at the obstacles' poses of t_k; their work on the rod, the power P_k = Σ f_i·u_i (u the
     * obstacle's surface velocity at x_i, t_k) times h per step, booked as the loads' (Σ w_j, w_k);
     * the poses at t_k + h (cr_lgvi_sim_friction), where a sticking node's material point goes; the
     * friction's scratch of the surface's velocity over the step per obstacle */
    int moving_obstacles;
    double step_P;
    double obstacle_work, obstacle_work_last;
    struct cr_obstacle_pose *pose1;
    cr_vec3 *fr_u;
    /* contact.self (NULL without): the segment pairs' penalty forces (contact/rodcontact.h), at t_k
     * with the obstacles' into fc, their energy and work with the obstacles' (docs/lgvi.md
     * "Self-contact"); xs the node positions as its flat array (3 a node) */
    struct cr_rodcontact *self;
    double *xs;
    /* clamps moved to a `position` by a `time` factor (docs/lgvi.md "Damping and moving clamps"):
     * the kernel's external nodes, their pose prescribed at every step; the clamps' work (their
     * reaction's discrete work, Σ w_j and w_k) */
    int moving_count;
    int moving_node[2];
    cr_vec3 moving_ref[2], moving_target[2];
    /* their reactions of the last step (force spatial, moment in the kernel's body basis) */
    cr_vec3 moving_rf[2], moving_rm[2];
    int moving_have;
    cr_time_function moving_time[2]; /* table points owned */
    double clamp_work, clamp_work_last;
    /* rod.damping's drag and rotational_drag (kernel body components; 0: none) */
    cr_vec3 drag, rotational_drag;
} lgvi_sim;

/* the nodal loads s->f, s->c at time t (the running stage's factors and the inputs) */
void cr_lgvi_sim_sample_loads(lgvi_sim *s, double t);
/* the series row of the rod's current state */
void cr_lgvi_sim_fill_sample(const lgvi_sim *s, cr_dynamic_sample *smp);

/* The obstacles' (and contact.self's) forces of the step from t_k at x^k into s->fc, added to the
 * step's loads s->f; their energy and the first half of their work kept for cr_lgvi_sim_contact_done.
 * Only with s->fc. */
void cr_lgvi_sim_contact_loads(lgvi_sim *s);
/* after the step succeeded: the contact's energy at t_k and its discrete work */
void cr_lgvi_sim_contact_done(lgvi_sim *s, double h);
/* Coulomb friction on the nodes the kernel updates (after cr_lgvi_step_begin; not the clamped nor
 * the external nodes: an assembly's shared nodes take theirs from cr_lgvi_coulomb on the group),
 * at the contact point c = r − a n (docs/lgvi.md "Friction"; at the centre on a node whose rotation
 * a joint updates). Only with s->sliding. CR_NOT_CONVERGED if a rotation solve failed (the step is
 * then discarded). */
cr_status cr_lgvi_sim_friction(lgvi_sim *s, double h);
/* Node i at r touching the obstacles with friction: per obstacle k its spring's normal force added
 * to N[k], the normal in n[k] and, with u, the velocity of the obstacle's material point at r over
 * the step from t_k to t_k + h in u[k] (0 for a fixed obstacle; the poses of cr_lgvi_sim_friction);
 * left alone where it does not touch. */
void cr_lgvi_sim_touch(const lgvi_sim *s, int i, cr_vec3 r, double *N, cr_vec3 *n, cr_vec3 *u, double h);
/* The Coulomb friction on a point of mass m and trial momentum p^k (the step's, before the friction)
 * under the normal forces N[k] along n[k] (N[k] = 0: not touching obstacle k), the obstacle's
 * surface moving at u[k] (NULL: all fixed): per obstacle in turn, on the momentum relative to the
 * surface q = p^k − m u[k], a stick force −q_t/h when |q_t| <= h mu_s N, else −mu_k N q_t/|q_t|. Per
 * obstacle into each[k] (may be NULL), the sum returned; *sliding 1 if some obstacle let it slide. */
cr_vec3 cr_lgvi_coulomb(const struct cr_contact *c, const double *N, const cr_vec3 *n, const cr_vec3 *u, double m,
                        cr_vec3 trial, double h, cr_vec3 *each, int *sliding);

/* The contact radius of each node (contact.radius, else the section's larger half extent), the rod's
 * contact stiffness (contact.stiffness, else one element's min(EA/l, 12 EI/l³)) and the start check's
 * tolerance (contact.tolerance, else 1e-4 a): the obstacles' and the segments' (create_contact). */
cr_status cr_lgvi_sim_contact_params(const lgvi_sim *s, const cr_rod_def *def, double *radius, double *eps, double *tol,
                                     cr_error *err);
/* The stable step of the rod def with its obstacles' springs and, with `segments`, the segment
 * contact's penalty 4 ε/(ρA l) (lgvi.c, cr_lgvi_stable_step), times 1 + a² ρA/ρJ_min with
 * `segments` = 2 (contact.rods_friction: the tangential spring's lever a turns the sections), at the
 * step h (for its estimate); its
 * contact stiffness in *k (0 without). CR_OK or the kernel parameters' refusal. */
cr_status cr_lgvi_def_stable_step(const cr_rod_def *def, const cr_model_options *o, double h, int segments,
                                  double *hmax, double *k, cr_error *err);

/* Contact between the segments of an assembly's rods and of each rod with itself (segcontact.c):
 * contact.rods (`between`) and contact.self (`self`), the penalty max(0, −ε g) of the single rod's
 * self-contact on every pair of segments that may touch; a pair of two rods joined by a joint (the
 * global node pairs `link`, 2 ints each) is excluded near the joint. nodes[r], s[r] (arc lengths),
 * radius (per global node), eps (per rod: a pair takes the smaller). NULL when out of memory. */
typedef struct cr_lgvi_segs cr_lgvi_segs;
cr_lgvi_segs *cr_lgvi_segs_create(int rods, const int *nodes, const double *const *s, const double *radius,
                                  const double *eps, int self, int between, int links, const int *link);
void cr_lgvi_segs_destroy(cr_lgvi_segs *c);
/* the rods' current positions gathered (every function below uses them) */
void cr_lgvi_segs_gather(cr_lgvi_segs *c, lgvi_sim *const *r);
/* the pressing pairs (their number; −1 out of memory) */
int cr_lgvi_segs_find(cr_lgvi_segs *c);
int cr_lgvi_segs_pairs(const cr_lgvi_segs *c);
/* The pairs' forces at the gathered positions into F (per global node, zeroed first; may be NULL),
 * their sum of normal forces into *normal (may be NULL); returns the penalty energy Σ ½ ε g² (NAN
 * when out of memory). */
double cr_lgvi_segs_forces(cr_lgvi_segs *c, cr_vec3 *F, double *normal);
/* the smallest gap over the pairs that may touch within reach (INFINITY: none), and its segments */
double cr_lgvi_segs_min_gap(cr_lgvi_segs *c, int *seg_a, int *seg_b);
/* segment k's rod and its first node there */
void cr_lgvi_segs_segment(const cr_lgvi_segs *c, int k, int *rod, int *node);
uint64_t cr_lgvi_segs_hash(const cr_lgvi_segs *c, uint64_t h);
/* contact.rods_friction (mu_s > 0; else nothing): the nodes' rotations gathered too, the pairs' stick
 * anchors kept (0, or −1 out of memory) */
int cr_lgvi_segs_set_friction(cr_lgvi_segs *c, double mu_s, double mu_k);
int cr_lgvi_segs_frictional(const cr_lgvi_segs *c);
/* After cr_lgvi_segs_forces (its pairs at the gathered state x^k): the anchors updated at x^k (the
 * mixed rod's rules after an accepted step), then the friction forces F and moments C (spatial, per
 * global node, zeroed first) of the pairs' tangential springs capped at μ N (docs/lgvi.md "Friction
 * between rods"); *sliding (may be NULL): the pairs sliding. 0, or −1 out of memory. */
int cr_lgvi_segs_friction(cr_lgvi_segs *c, cr_vec3 *F, cr_vec3 *C, int *sliding);
/* the anchors in checkpoints (their number varies): size, pack, the size a pack of n doubles holds
 * (−1: not this assembly's), unpack (0, or −1 out of memory) */
int cr_lgvi_segs_packed_size(const cr_lgvi_segs *c);
void cr_lgvi_segs_pack(const cr_lgvi_segs *c, double *out);
long cr_lgvi_segs_unpacked_size(const cr_lgvi_segs *c, const double *in, long n);
int cr_lgvi_segs_unpack(cr_lgvi_segs *c, const double *in);

/* several LGVI rods joined by shared joint nodes (assembly.c) */
extern const cr_formulation cr_lgvi_assembly_formulation;

#endif
