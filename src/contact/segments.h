/* Segment–segment contact geometry of rods (rod–rod and self-contact): closest points of two
 * segments, a broad phase over the segments' bounding boxes, the filter that drops pairs of one
 * rod too close along its arc to touch, and the frictionless normal force of one pair with its
 * exact 12×12 Jacobian (docs/theory.md "Contact between rods"). Internal. */
#ifndef COSSERAT_CONTACT_SEGMENTS_H
#define COSSERAT_CONTACT_SEGMENTS_H

#include "cosserat/math.h"

/* The closest points p_a = a0 + s (a1 − a0), p_b = b0 + t (b1 − b0) of two segments, s, t in
 * [0, 1]; s_free (t_free) is 1 when s (t) lies strictly inside and the closest point varies
 * smoothly with the nodes there, 0 when it sits at an end or the segments are parallel (then
 * the closest points are not unique and s is taken in the middle of the overlap). */
typedef struct cr_seg_closest {
    double s, t;
    int s_free, t_free;
    int parallel; /* the segments are parallel (closest pairs form an interval) */
    cr_vec3 pa, pb;
    double dist; /* |p_a − p_b| (m) */
} cr_seg_closest;

void cr_segment_closest(cr_vec3 a0, cr_vec3 a1, cr_vec3 b0, cr_vec3 b1, cr_seg_closest *out);

/* Whether the pair (a, b) whose closest points are *cp counts them (each contact point counted
 * once, docs/theory.md "Contact of a rod with itself"): a point on an edge of the pair's square
 * [0, 1]² (s or t within 1e-9 of 0 or 1: a node) is dropped when the neighbouring pair across
 * that edge (or corner) holds it or a nearer point, and kept by one of the pairs holding it
 * (the smaller distance, then the smaller (a, b)). neighbour(ctx, i, j, q) gives the closest
 * points of the pair (a + i, b + j), i, j in {−1, 0, 1}, with the segments in that order, and
 * returns 0 when that pair does not exist or cannot touch. At most three neighbours are asked. */
int cr_segpair_counted_once(const cr_seg_closest *cp, int (*neighbour)(void *ctx, int i, int j, cr_seg_closest *q),
                            void *ctx);

/* Broad phase: the pairs (a < b) of the `count` axis-aligned boxes [lo, hi] (3 doubles a box)
 * that overlap, by a uniform spatial hash whose cell is the largest box extent: each box meets
 * at most 8 cells, the (cell, box) entries are radix-sorted by cell (O(n)) and a pair is reported
 * once, in the cell holding the lower corner of the two boxes' intersection. *pairs (2 ints a pair)
 * grows as needed (realloc; *cap its capacity in pairs). Returns the number of pairs, or −1
 * when out of memory. */
int cr_broad_phase(int count, const double *lo, const double *hi, int **pairs, int *cap);

/* The friction anchors of segment pairs in a checkpoint (contact.rods_friction, the mixed and the
 * lgvi rods' common layout): a count, then CR_SEG_ANCHOR_DOUBLES per anchor: its segments a < b,
 * their arc lengths, the two levers (3 each) and the sliding flag. The number of doubles the
 * anchors take from in[0 .. n): −1 unless the count is a whole number the rest holds, every anchor
 * is on a pair of the `segs` segments with finite entries, and the pairs are sorted and distinct
 * (as the lists are kept, for bsearch): else it is not this assembly's checkpoint. */
enum { CR_SEG_ANCHOR_DOUBLES = 11 };
long cr_seg_anchors_unpacked_size(const double *in, long n, int segs);

/* The normal force of a pair of segments (nodes x[0], x[1] of segment a, x[2], x[3] of b) with
 * contact radii summing to R: gap g = d − R, d the distance of the closest points, normal force
 * N = max(0, λ − ε g) (a penalty for λ = 0; the augmented Lagrangian's multiplier otherwise),
 * acting along n = (p_a − p_b)/d, shared by the four nodes as the closest points' weights
 * ((1 − s), s, (1 − t), t). f (12, optional): the forces on the four nodes; K (12×12 row-major,
 * optional): ∂f/∂x exactly, the closest points' motion included (cr_seg_closest.s_free);
 * returns N (0: open). */
double cr_segpair_force(const cr_vec3 x[4], double R, double lambda, double eps, const cr_seg_closest *cp, double *f,
                        double *K);

#endif
