/* Rod–obstacle contact of the mixed discrete rod: the node-local contact force with its exact
 * Jacobian, and the augmented-Lagrangian multiplier updates of the static solve
 * (docs/theory.md "Contact with obstacles"). Internal. */
#ifndef COSSERAT_CONTACT_INTERNAL_H
#define COSSERAT_CONTACT_INTERNAL_H

#include "contact/motion.h"
#include "cosserat/base.h"
#include "cosserat/contact.h"

/* The working state of one (node, obstacle) pair. */
typedef struct cr_contact_pair {
    double lambda_n;  /* normal multiplier (N, >= 0) */
    cr_vec3 lambda_t; /* tangential multiplier (N, in I) */
    cr_vec3 anchor;   /* stick anchor (I): where the node stuck, moved along when it slides */
    int anchored;     /* in contact since the last update: friction is measured from the anchor */
    int sliding;      /* dynamics: sliding since the last accepted step (limit μ_k N instead of μ_s N) */
    /* friction at the contact point (cr_contact.quat_offset): the rod's material surface point that
     * touched is the node plus `body` (its offset in the node's body basis, −a n when anchored or
     * re-based); `offset` is that offset then, in the obstacle's frame. The stick spring measures
     * r + A body − offset − anchor, which is r − anchor right after a re-base (0 vectors without
     * rolling: the centre law) */
    cr_vec3 body, offset;
} cr_contact_pair;

typedef struct cr_contact {
    int obstacle_count;
    cr_obstacle_def *obstacles;
    int nodes;
    double *radius; /* contact radius per node */
    double *weight; /* the node's share of ε: its lumped length over the mean element length */
    double eps;     /* augmentation parameter ε (N/m) */
    double tol;     /* penetration and drift tolerance (m) */
    int max_updates;
    cr_contact_pair *pair;  /* nodes × obstacle_count */
    int dynamic;            /* 1 inside a dynamic stage (cr_contact_dynamic_begin/_end) */
    double *damping;        /* dynamics: the normal dashpot per node, 2 sqrt(ε_i m_i) (NULL: none) */
    double time;            /* the time the moving obstacles are at (s) */
    cr_obstacle_path *path; /* per obstacle: its motion (motion.h) */
    cr_obstacle_pose *pose; /* ... and its pose at `time` (cr_contact_set_time) */
    /* friction acts at the contact point c = r − a n (a moment on the node, and the slip of the
     * rod's surface point there): the node's orientation quaternion is `quat_offset` doubles after
     * its position in the states the updates below read (the mixed rod: 3); −1: friction at the
     * node's centre (cr_contact_node_force's law) */
    int quat_offset;
} cr_contact;

/* The contact wrench of node i (friction at the contact point, docs/theory.md "Contact with
 * obstacles"): force f (I), moment m in the node's body basis, and their derivatives with respect
 * to the node's position r, orientation quaternion p (3×4) and velocity v. */
typedef struct cr_contact_wrench {
    cr_vec3 f, m;
    cr_mat3 f_r, m_r, f_v, m_v;
    double f_p[3][4], m_p[3][4];
} cr_contact_wrench;

/* What one node's contacts do at a position. */
typedef struct cr_contact_info {
    int active;    /* obstacles pressing on the node */
    int slipping;  /* ... of them at the Coulomb limit */
    double gap;    /* smallest gap φ − a over the obstacles (m; negative: penetration) */
    double normal; /* sum of the normal forces (N) */
    double ratio;  /* largest |f_t| / (μ_s N) of the frictional ones (0 without) */
} cr_contact_info;

/* Creates the contact of a rod with `radius[i]` and `weight[i]` (NULL: 1) per node (copied); NULL
 * when out of memory. */
cr_contact *cr_contact_create(int nodes, const double *radius, const double *weight, int obstacle_count,
                              const cr_obstacle_def *obstacles, double eps, double tol, int max_updates);
void cr_contact_destroy(cr_contact *c);

/* A rod must not start inside an obstacle: the deepest node (its contact radius included) deeper
 * than the tolerance is refused, naming obstacles.K, the node, its arc length s[i] and the depth.
 * position(user, i) gives node i's position. */
cr_status cr_contact_check_start(const cr_contact *c, cr_vec3 (*position)(const void *user, int node), const void *user,
                                 const double *s, cr_error *err);

/* Places the moving obstacles at time t (the forces and updates below use it). Anchors are kept
 * in each obstacle's own frame: they move with it, so a node sticking to a moving obstacle is
 * carried along. */
void cr_contact_set_time(cr_contact *c, double t);
/* A point r (I) in obstacle k's own frame at the contact's time (its pose there: a table's, a time
 * function's or the constant rates'), where gaps, normals and stick anchors are measured. */
cr_vec3 cr_contact_local(const cr_contact *c, int k, cr_vec3 r);

/* The contact force f (I) on node i at position r, and K = ∂f/∂r (optional); info optional. */
void cr_contact_node_force(const cr_contact *c, int i, cr_vec3 r, cr_vec3 *f, cr_mat3 *K, cr_contact_info *info);

/* The same with the node's velocity v (dynamics: the normal dashpot acts; NULL: none) and
 * Kv = ∂f/∂v (optional). */
void cr_contact_node_force_v(const cr_contact *c, int i, cr_vec3 r, const cr_vec3 *v, cr_vec3 *f, cr_mat3 *K,
                             cr_mat3 *Kv, cr_contact_info *info);

/* The wrench of node i at position r, orientation p (a quaternion, not necessarily unit) and
 * velocity v (NULL: statics, no dashpot): the law of cr_contact_node_force_v with the friction
 * force f_T acting at the contact point c = r − a n (moment (c − r) × f_T = −a n × f_T) and the
 * stick spring measuring the slip of the rod's material surface point at c. The derivatives are
 * filled when `jacobian` is nonzero; info optional. */
void cr_contact_node_wrench(const cr_contact *c, int i, cr_vec3 r, cr_quat p, const cr_vec3 *v, cr_contact_wrench *w,
                            int jacobian, cr_contact_info *info);

/* The tangential (friction) force of one anchored pair in statics for a caller with its own
 * normal force (the law of cr_contact_node_force, docs/theory.md "Contact with obstacles"): at
 * the normal n, the obstacle's Hessian H (NULL: a plane's, 0), the stick stiffness eps, the
 * node's offset d = r − X from its anchor and the multiplier lambda_t,
 *   t = P lambda_t − eps P d,  P = E − n nᵀ;  f = t while |t| <= limit, else limit t/|t|,
 * limit = μ N with dlimit = ∂limit/∂r. K (optional) = ∂f/∂r, exact on either branch; t_out
 * (optional) the trial force t. Returns 1 when the pair slips (|t| > limit). */
int cr_contact_stick_force(cr_vec3 n, const cr_mat3 *H, double eps, double limit, cr_vec3 dlimit, cr_vec3 d,
                           cr_vec3 lambda_t, cr_vec3 *f, cr_mat3 *K, cr_vec3 *t_out);

/* Anchors the pairs touching (gap <= tol) at the positions r (3 doubles every `stride`) that are
 * not anchored yet: the start of a static stage. */
void cr_contact_begin(cr_contact *c, const double *x, int stride);

/* One multiplier update at an equilibrium x (Uzawa): λ_N ← N, λ_T ← f_t, anchors of sliding
 * pairs moved to the node, pairs that opened released, new contacts anchored. Returns 1 when
 * the state was already converged: no new or released contact, every penetration and every
 * tangential drift from the anchors at most tol. *penetration and *drift (optional): the largest. */
int cr_contact_update(cr_contact *c, const double *x, int stride, double *penetration, double *drift);

/* Dynamics (docs/theory.md "Contact with obstacles", dynamics): the start of a dynamic stage at
 * the state y (positions every `stride` doubles): λ_N ← 0 (a penalty), the tangential
 * multipliers moved into the anchors (the same force at y), touching pairs anchored; the anchors
 * and the sliding flags a dynamic stage before left are kept (a stage boundary is no physical
 * event: docs/scenario.md "Multi-stage runs"). After each
 * accepted step: releases opened pairs, anchors new ones, and moves the anchors of sliding pairs
 * (stick → slide when |t| > μ_s N, slide → stick when |t| < μ_k N). The end: statics again. */
void cr_contact_dynamic_begin(cr_contact *c, const double *y, int stride);
void cr_contact_dynamic_step(cr_contact *c, const double *y, int stride);
void cr_contact_dynamic_end(cr_contact *c);

/* A dynamic stage continued from a checkpoint: the pairs were restored as they were after the
 * last accepted step (cr_contact_unpack), so they are taken as they are (no re-anchoring). */
void cr_contact_dynamic_resume(cr_contact *c);

/* The depth below an obstacle's surface at which the nearest surface point jumps to the far
 * side (its medial surface): a sphere's or capsule's radius, a box's smallest half edge; a plane
 * is a half-space (INFINITY). A node carried past it in one step is pushed out of the wrong side. */
double cr_obstacle_thickness(const cr_obstacle_def *o);

/* The longest time step from time t and the state y (positions every `stride` doubles,
 * velocities `v_offset` doubles after them) in which no node, moving at its velocity relative
 * to an obstacle, travels more than half its distance to that obstacle's medial surface
 * (φ + thickness): no node is carried through a thin obstacle between two steps (tunnelling),
 * and the approach is resolved in a few steps (conservative advancement). INFINITY when no
 * node moves towards anything thin. */
double cr_contact_step_limit(const cr_contact *c, double t, const double *y, int stride, int v_offset);

/* Checkpoints: the pairs' multipliers, anchors and stick/slide states, which the next static
 * update or dynamic step depends on (0 doubles for NULL). */
int cr_contact_packed_size(const cr_contact *c);
void cr_contact_pack(const cr_contact *c, double *out);
void cr_contact_unpack(cr_contact *c, const double *in);

/* Folds the obstacles and the contact options into the FNV-1a hash h (a checkpoint fits one
 * set of obstacles). */
unsigned long long cr_contact_hash(const cr_contact *c, unsigned long long h);

/* Totals at x: active contacts, slipping ones, largest penetration (m, >= 0), total normal
 * force (N), and the node range of the slipping ones (first > last: none). */
typedef struct cr_contact_totals {
    int active, slipping, first_slip, last_slip;
    double penetration, normal, worst_ratio;
    int worst_node; /* node of the largest penetration */
} cr_contact_totals;
void cr_contact_totals_at(const cr_contact *c, const double *x, int stride, cr_contact_totals *t);

#endif
