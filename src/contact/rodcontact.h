/* Contact between the segments of rods (self-contact of one rod; docs/theory.md "Contact
 * between rods"): the active pairs at a configuration (broad phase, closest points, the pairs of
 * one rod too close along its arc excluded, each contact point counted once), their normal
 * forces with the augmented Lagrangian's multipliers in statics (a penalty in dynamics), and the
 * coupling of far nodes they add to the Jacobian as a low-rank term (linalg/lowrank.h).
 * Internal. */
#ifndef COSSERAT_CONTACT_RODCONTACT_H
#define COSSERAT_CONTACT_RODCONTACT_H

#include "contact/segments.h"

typedef struct cr_rodpair {
    int a, b;      /* segments (a < b): nodes a, a + 1 and b, b + 1 */
    double lambda; /* the multiplier it was evaluated with (N) */
    cr_seg_closest cp;
} cr_rodpair;

typedef struct cr_rodmult { /* a statics multiplier, kept between the updates */
    int a, b;
    double lambda;
} cr_rodmult;

typedef struct cr_rodcontact {
    int nodes;       /* one rod: segments i = 0 .. nodes − 2 */
    double *radius;  /* per node (m); a segment's is its nodes' mean */
    double *s;       /* reference arc length per node (m) */
    double eps, tol; /* penalty / augmentation ε (N/m), penetration tolerance (m) */
    /* working storage of cr_rodcontact_find */
    double *lo, *hi;
    int *cand, cand_cap;
    cr_rodpair *pair;
    int pair_count, pair_cap;
    cr_rodmult *mult;
    int mult_count, mult_cap;
    /* cr_rodcontact_find's candidates (a Verlet list): the pairs whose boxes, widened by `skin`
     * more, overlapped at x0 (3 doubles a node) for multipliers reaching vreach, without the
     * excluded pairs (cr_rodcontact_excluded); reused while no node coordinate is more than `skin`
     * from x0 and the reach has not grown */
    double *x0, skin, vreach;
    int *vcand, vcand_cap, vcand_count, vvalid;
} cr_rodcontact;

/* The segments of several rods numbered as one list (contact between the rods of an assembly:
 * src/mixed/assembly_contact.c, src/lgvi/segcontact.c): segment k runs from global node
 * seg_node[k] to the next; per global node its rod, its reference arc length in the rod and its
 * contact radius; the joints' node pairs link[2 j], link[2 j + 1]. */
typedef struct cr_rod_segments {
    const int *seg_node, *rod_of, *link;
    const double *s, *radius;
    int links;
    int self, between; /* contact.self: one rod's segments touch; contact.rods: different rods' do */
} cr_rod_segments;

/* Segments ka, kb of two rods joined near a joint: their arcs to the joint's two nodes, summed over
 * the two rods, below π (r_a + r_b)/2, r a segment's mean radius (the single rod's exclusion,
 * cr_rodcontact_excluded, continued across the joint: a joint's two rods would otherwise press on
 * each other at the joint itself). */
int cr_rod_segments_joined(const cr_rod_segments *g, int ka, int kb);

/* Whether segments ka and kb may touch: of two rods with `between` unless joined there; of one rod
 * with `self` as the single rod's self-contact decides (not neighbours, and an arc between them of
 * at least π (r_a + r_b)/2, cr_rodcontact_excluded). */
int cr_rod_segments_touchable(const cr_rod_segments *g, int ka, int kb);

cr_rodcontact *cr_rodcontact_create(int nodes, const double *radius, const double *s, double eps, double tol);
void cr_rodcontact_destroy(cr_rodcontact *c);

/* The largest gap along an axis between the boxes of the segments pq and uv (3 doubles each): a
 * lower bound of their distance (<= 0 when the boxes overlap), which decides a candidate pair without
 * its closest points when it exceeds the contact distance. */
double cr_segment_box_gap(const double *p, const double *q, const double *u, const double *v);

/* Segments a < b of one rod are never in contact when the arc between them is shorter than
 * π (r_a + r_b)/2: a rod folded back onto itself needs at least a half turn about a radius of
 * its own thickness, so closer pairs are neighbours through the rod's material, not contacts
 * (adjacent segments share a node and are always excluded). */
int cr_rodcontact_excluded(const cr_rodcontact *c, int a, int b);

/* Finds the pairs pressing at the node positions x (3 doubles every `stride`): those with
 * N = max(0, λ − ε g) > 0, λ the stored multiplier. Returns their number (c->pair), −1 when
 * out of memory. The broad phase runs only when a node has moved by more than the largest
 * contact radius (per coordinate) since it last ran: the candidates it found then, with boxes
 * widened by that much, hold every pair that can press now (the same pairs as a fresh broad
 * phase). */
int cr_rodcontact_find(cr_rodcontact *c, const double *x, int stride);

/* The pair k's forces f[12] on nodes (a, a+1, b, b+1) and K = ∂f/∂x (12×12, optional). */
void cr_rodcontact_pair_force(const cr_rodcontact *c, int k, const double *x, int stride, double *f, double *K);

/* Smallest gap d − (r_a + r_b) over the non-excluded pairs within reach at x (m; +INFINITY when
 * none), and the segments of it (optional). */
double cr_rodcontact_min_gap(cr_rodcontact *c, const double *x, int stride, int *seg_a, int *seg_b);

/* Statics: starts a stage with no multipliers (λ = 0). */
void cr_rodcontact_reset(cr_rodcontact *c);

/* One Uzawa update at an equilibrium x: λ ← N for the pressing pairs. Returns 1 (nothing
 * changed that matters) when every pressing pair's penetration is within tol and no pair
 * that carried a multiplier opened; −1 out of memory; *penetration the largest. */
int cr_rodcontact_update(cr_rodcontact *c, const double *x, int stride, double *penetration);

#endif
