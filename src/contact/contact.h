/* Rod–obstacle contact of the mixed discrete rod: the node-local contact force with its exact
 * Jacobian, and the augmented-Lagrangian multiplier updates of the static solve
 * (docs/theory.md "Contact with obstacles"). Internal. */
#ifndef COSSERAT_CONTACT_INTERNAL_H
#define COSSERAT_CONTACT_INTERNAL_H

#include "cosserat/base.h"
#include "cosserat/contact.h"

/* The working state of one (node, obstacle) pair. */
typedef struct cr_contact_pair {
    double lambda_n;  /* normal multiplier (N, >= 0) */
    cr_vec3 lambda_t; /* tangential multiplier (N, in I) */
    cr_vec3 anchor;   /* stick anchor (I): where the node stuck, moved along when it slides */
    int anchored;     /* in contact since the last update: friction is measured from the anchor */
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
    cr_contact_pair *pair; /* nodes × obstacle_count */
} cr_contact;

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

/* The contact force f (I) on node i at position r, and K = ∂f/∂r (optional); info optional. */
void cr_contact_node_force(const cr_contact *c, int i, cr_vec3 r, cr_vec3 *f, cr_mat3 *K, cr_contact_info *info);

/* Anchors the pairs touching (gap <= tol) at the positions r (3 doubles every `stride`) that are
 * not anchored yet: the start of a static stage. */
void cr_contact_begin(cr_contact *c, const double *x, int stride);

/* One multiplier update at an equilibrium x (Uzawa): λ_N ← N, λ_T ← f_t, anchors of sliding
 * pairs moved to the node, pairs that opened released, new contacts anchored. Returns 1 when
 * the state was already converged: no new or released contact, every penetration and every
 * tangential drift from the anchors at most tol. *penetration and *drift (optional): the largest. */
int cr_contact_update(cr_contact *c, const double *x, int stride, double *penetration, double *drift);

/* Totals at x: active contacts, slipping ones, largest penetration (m, >= 0), total normal
 * force (N), and the node range of the slipping ones (first > last: none). */
typedef struct cr_contact_totals {
    int active, slipping, first_slip, last_slip;
    double penetration, normal, worst_ratio;
    int worst_node; /* node of the largest penetration */
} cr_contact_totals;
void cr_contact_totals_at(const cr_contact *c, const double *x, int stride, cr_contact_totals *t);

#endif
