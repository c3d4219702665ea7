/* Contact between the segments of an LGVI assembly's rods (contact.rods) and of each of its rods with
 * itself (contact.self): the single rod's self-contact law (docs/lgvi.md "Self-contact") over the
 * segments of all the rods: closest points of two segments, the penalty N = max(0, −ε g) on the gap
 * g = d − (a₁ + a₂), frictionless, each contact point counted once, found through the broad phase
 * over all the segments (contact/segments.h) and a Verlet list. A pair of one rod is excluded as the
 * single rod's (neighbours, or closer than π (a₁ + a₂)/2 along the rod); a pair of two rods joined by
 * a joint when their arcs to the joint's nodes sum to less than that (they meet at the joint through
 * its material, not as a contact), as the mixed rod's assemblies do (mixed/assembly_contact.c). The
 * forces are explicit, at x^k with the loads: the penalty ½ ε g² joins the discrete Lagrangian. */
#include "contact/rodcontact.h"
#include "contact/segments.h"
#include "lgvi/formulation_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct seg_pair {
    int a, b; /* segments, a < b */
    cr_seg_closest cp;
} seg_pair;

struct cr_lgvi_segs {
    int rods, nodes, segs;
    int *node0;     /* rods + 1: the rods' first global node */
    int *seg_node;  /* segs: a segment's first global node */
    int *rod_of;    /* nodes: the rod of a global node */
    double *radius; /* nodes: contact radius */
    double *s;      /* nodes: reference arc length in its rod */
    double *eps;    /* per rod: its ε (a pair takes the softer of its two rods') */
    int self, between;
    int *link, links; /* pairs of global nodes held together by a joint */
    double *X;        /* 3 per global node: the positions gathered */
    double *lo, *hi;
    int *cand, cand_cap;
    /* the Verlet list: the candidates whose boxes, widened by `skin` each, overlapped at x0; reused
     * while no node coordinate moved more than the skin from x0 */
    double *x0, skin;
    int *vcand, vcand_cap, vcand_count, vvalid;
    seg_pair *pair;
    int pair_count, pair_cap;
};

void cr_lgvi_segs_destroy(cr_lgvi_segs *c)
{
    if (!c) return;
    free(c->node0), free(c->seg_node), free(c->rod_of), free(c->radius), free(c->s), free(c->eps);
    free(c->link), free(c->X), free(c->lo), free(c->hi), free(c->cand), free(c->x0), free(c->vcand), free(c->pair);
    free(c);
}

cr_lgvi_segs *cr_lgvi_segs_create(int rods, const int *nodes, const double *const *s, const double *radius,
                                  const double *eps, int self, int between, int links, const int *link)
{
    cr_lgvi_segs *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->rods = rods, c->self = self, c->between = between, c->links = links;
    c->node0 = calloc((size_t)rods + 1, sizeof *c->node0);
    c->eps = malloc((size_t)rods * sizeof *c->eps);
    if (!c->node0 || !c->eps) goto oom;
    for (int r = 0; r < rods; ++r) c->node0[r + 1] = c->node0[r] + nodes[r], c->eps[r] = eps[r];
    c->nodes = c->node0[rods], c->segs = c->nodes - rods;
    c->seg_node = malloc((size_t)(c->segs > 0 ? c->segs : 1) * sizeof *c->seg_node);
    c->rod_of = malloc((size_t)c->nodes * sizeof *c->rod_of);
    c->radius = malloc((size_t)c->nodes * sizeof *c->radius);
    c->s = malloc((size_t)c->nodes * sizeof *c->s);
    c->X = malloc((size_t)c->nodes * 3 * sizeof *c->X);
    c->x0 = malloc((size_t)c->nodes * 3 * sizeof *c->x0);
    c->lo = malloc((size_t)(c->segs > 0 ? c->segs : 1) * 3 * sizeof *c->lo);
    c->hi = malloc((size_t)(c->segs > 0 ? c->segs : 1) * 3 * sizeof *c->hi);
    c->link = malloc((size_t)2 * (links > 0 ? links : 1) * sizeof *c->link);
    if (!c->seg_node || !c->rod_of || !c->radius || !c->s || !c->X || !c->x0 || !c->lo || !c->hi || !c->link) goto oom;
    if (links > 0) memcpy(c->link, link, (size_t)2 * links * sizeof *link);
    for (int r = 0, k = 0; r < rods; ++r)
        for (int i = 0; i < nodes[r]; ++i) {
            const int g = c->node0[r] + i;
            c->rod_of[g] = r, c->radius[g] = radius[g], c->s[g] = s[r][i];
            c->skin = fmax(c->skin, radius[g]);
            if (i + 1 < nodes[r]) c->seg_node[k++] = g;
        }
    return c;
oom:
    cr_lgvi_segs_destroy(c);
    return NULL;
}

static cr_vec3 X_at(const cr_lgvi_segs *c, int g) { return cr_v3_load(c->X + 3 * (size_t)g); }
static double seg_radius(const cr_lgvi_segs *c, int k)
{
    return 0.5 * (c->radius[c->seg_node[k]] + c->radius[c->seg_node[k] + 1]);
}
static int rod_of_seg(const cr_lgvi_segs *c, int k) { return c->rod_of[c->seg_node[k]]; }
static int first_seg(const cr_lgvi_segs *c, int k) { return k == 0 || c->seg_node[k - 1] + 1 != c->seg_node[k]; }
static int last_seg(const cr_lgvi_segs *c, int k)
{
    return k == c->segs - 1 || c->seg_node[k + 1] != c->seg_node[k] + 1;
}
static double pair_eps(const cr_lgvi_segs *c, int ka, int kb)
{
    return fmin(c->eps[rod_of_seg(c, ka)], c->eps[rod_of_seg(c, kb)]);
}

/* the segments as the shared rules read them (rodcontact.h) */
static cr_rod_segments view(const cr_lgvi_segs *c)
{
    return (cr_rod_segments){c->seg_node, c->rod_of, c->link, c->s, c->radius, c->links, c->self, c->between};
}

/* whether segments ka and kb may touch: of two rods with contact.rods unless joined there; of one rod
 * with contact.self as the single rod's self-contact decides (rodcontact.h) */
static int touchable(const cr_lgvi_segs *c, int ka, int kb)
{
    const cr_rod_segments g = view(c);
    return cr_rod_segments_touchable(&g, ka, kb);
}

static void closest(const cr_lgvi_segs *c, int ka, int kb, cr_seg_closest *cp)
{
    const int a = c->seg_node[ka], b = c->seg_node[kb];
    cr_segment_closest(X_at(c, a), X_at(c, a + 1), X_at(c, b), X_at(c, b + 1), cp);
}

/* a candidate pair put in order (ka < kb): 0 when it cannot touch, else its closest points and gap */
static int candidate_gap(const cr_lgvi_segs *c, int *ka, int *kb, cr_seg_closest *cp, double *g)
{
    if (*ka > *kb) {
        const int t = *ka;
        *ka = *kb, *kb = t;
    }
    if (!touchable(c, *ka, *kb)) return 0;
    closest(c, *ka, *kb, cp);
    *g = cp->dist - seg_radius(c, *ka) - seg_radius(c, *kb);
    return 1;
}

typedef struct neighbour_ctx {
    const cr_lgvi_segs *c;
    int ka, kb;
} neighbour_ctx;

/* the neighbour (ka + i, kb + j) for cr_segpair_counted_once: 0 past a rod's end or untouchable */
static int neighbour(void *ctx, int i, int j, cr_seg_closest *q)
{
    const neighbour_ctx *n = ctx;
    const cr_lgvi_segs *c = n->c;
    const int qa = n->ka + i, qb = n->kb + j;
    if ((i < 0 && first_seg(c, n->ka)) || (i > 0 && last_seg(c, n->ka)) || (j < 0 && first_seg(c, n->kb)) ||
        (j > 0 && last_seg(c, n->kb)) || qa == qb || !touchable(c, qa, qb))
        return 0;
    closest(c, qa, qb, q);
    return 1;
}

static int candidates_into(cr_lgvi_segs *c, double widen, int **cand, int *cap)
{
    for (int k = 0; k < c->segs; ++k) {
        const double *p = c->X + 3 * (size_t)c->seg_node[k], *q = p + 3, w = seg_radius(c, k) + widen;
        for (int j = 0; j < 3; ++j) c->lo[3 * k + j] = fmin(p[j], q[j]) - w, c->hi[3 * k + j] = fmax(p[j], q[j]) + w;
    }
    return cr_broad_phase(c->segs, c->lo, c->hi, cand, cap);
}

/* the Verlet list (as rodcontact.c's): anew when a node moved more than the skin since it was found */
static int verlet(cr_lgvi_segs *c)
{
    int fresh = !c->vvalid;
    for (int g = 0; g < 3 * c->nodes && !fresh; ++g) fresh = !(fabs(c->X[g] - c->x0[g]) <= c->skin);
    if (!fresh) return c->vcand_count;
    c->vvalid = 0;
    int n = candidates_into(c, c->skin, &c->vcand, &c->vcand_cap);
    if (n < 0) return -1;
    /* the pairs that may never touch (a rod's neighbours, joined rods' segments at their joint)
     * leave the list once, not at every step: touchability depends on the rods' data alone */
    int kept = 0;
    for (int k = 0; k < n; ++k) {
        const int ka = c->vcand[2 * k], kb = c->vcand[2 * k + 1];
        if (touchable(c, ka < kb ? ka : kb, ka < kb ? kb : ka))
            c->vcand[2 * kept] = ka, c->vcand[2 * kept + 1] = kb, ++kept;
    }
    n = kept;
    memcpy(c->x0, c->X, (size_t)3 * c->nodes * sizeof *c->x0);
    c->vcand_count = n, c->vvalid = 1;
    return n;
}

void cr_lgvi_segs_gather(cr_lgvi_segs *c, lgvi_sim *const *r)
{
    for (int q = 0; q < c->rods; ++q)
        for (int i = 0; i < r[q]->nodes; ++i)
            cr_v3_store(cr_lgvi_position(r[q]->k, i), c->X + 3 * (size_t)(c->node0[q] + i));
}

static int pair_cmp(const void *pa, const void *pb)
{
    const seg_pair *a = pa, *b = pb;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* the box gap of segments ka and kb (cr_segment_box_gap) */
static double box_gap(const cr_lgvi_segs *c, int ka, int kb)
{
    const double *p = c->X + 3 * (size_t)c->seg_node[ka], *u = c->X + 3 * (size_t)c->seg_node[kb];
    return cr_segment_box_gap(p, p + 3, u, u + 3);
}

int cr_lgvi_segs_find(cr_lgvi_segs *c)
{
    const int n = verlet(c);
    if (n < 0) return -1;
    c->pair_count = 0;
    for (int k = 0; k < n; ++k) {
        int ka = c->vcand[2 * k], kb = c->vcand[2 * k + 1];
        /* a pair presses when g = d − R < 0; d is at least the boxes' gap along any axis, so a gap
         * beyond R (with a margin far above the rounding of d) decides it without the closest
         * points, as the single rod's search (contact/rodcontact.c) */
        if (box_gap(c, ka, kb) > (seg_radius(c, ka) + seg_radius(c, kb)) * (1 + 1e-9)) continue;
        cr_seg_closest cp;
        double g;
        if (!candidate_gap(c, &ka, &kb, &cp, &g)) continue;
        neighbour_ctx nc = {c, ka, kb};
        if (!(g < 0) || !cr_segpair_counted_once(&cp, neighbour, &nc)) continue;
        if (c->pair_count == c->pair_cap) {
            const int cap = c->pair_cap ? 2 * c->pair_cap : 16;
            seg_pair *p = realloc(c->pair, (size_t)cap * sizeof *p);
            if (!p) return -1;
            c->pair = p, c->pair_cap = cap;
        }
        c->pair[c->pair_count++] = (seg_pair){ka, kb, cp};
    }
    /* in segment order: the sums do not depend on the hash's cell order */
    if (c->pair_count > 1) qsort(c->pair, (size_t)c->pair_count, sizeof *c->pair, pair_cmp);
    return c->pair_count;
}

double cr_lgvi_segs_forces(cr_lgvi_segs *c, cr_vec3 *F, double *normal)
{
    if (F) memset(F, 0, (size_t)c->nodes * sizeof *F);
    if (normal) *normal = 0;
    if (cr_lgvi_segs_find(c) < 0) return NAN;
    double V = 0;
    for (int k = 0; k < c->pair_count; ++k) {
        const seg_pair *p = &c->pair[k];
        const int a = c->seg_node[p->a], b = c->seg_node[p->b];
        const double eps = pair_eps(c, p->a, p->b), R = seg_radius(c, p->a) + seg_radius(c, p->b), g = p->cp.dist - R;
        V += 0.5 * eps * g * g;
        if (normal) *normal += -eps * g;
        if (!F) continue;
        /* N n shared by the four nodes with the closest points' weights: −∂(½ ε g²)/∂x (the closest
         * points are stationary); the forces sum to zero, and so do their moments */
        const cr_vec3 X[4] = {X_at(c, a), X_at(c, a + 1), X_at(c, b), X_at(c, b + 1)};
        double f[12];
        cr_segpair_force(X, R, 0.0, eps, &p->cp, f, NULL);
        const int nd[4] = {a, a + 1, b, b + 1};
        for (int q = 0; q < 4; ++q) F[nd[q]] = cr_v3_add(F[nd[q]], cr_v3_load(f + 3 * q));
    }
    return V;
}

double cr_lgvi_segs_min_gap(cr_lgvi_segs *c, int *seg_a, int *seg_b)
{
    double rmax = 0, best = INFINITY;
    for (int g = 0; g < c->nodes; ++g) rmax = fmax(rmax, c->radius[g]);
    const int n = candidates_into(c, rmax, &c->cand, &c->cand_cap);
    for (int k = 0; k < n; ++k) {
        int ka = c->cand[2 * k], kb = c->cand[2 * k + 1];
        cr_seg_closest cp;
        double g;
        if (!candidate_gap(c, &ka, &kb, &cp, &g)) continue;
        if (g < best) {
            best = g;
            if (seg_a) *seg_a = ka;
            if (seg_b) *seg_b = kb;
        }
    }
    return best;
}

int cr_lgvi_segs_pairs(const cr_lgvi_segs *c) { return c->pair_count; }

void cr_lgvi_segs_segment(const cr_lgvi_segs *c, int k, int *rod, int *node)
{
    *rod = rod_of_seg(c, k), *node = c->seg_node[k] - c->node0[*rod];
}

uint64_t cr_lgvi_segs_hash(const cr_lgvi_segs *c, uint64_t h)
{
    const double v[2] = {c->self, c->between};
    const double *arrays[3] = {v, c->eps, c->radius};
    const int counts[3] = {2, c->rods, c->nodes};
    for (int a = 0; a < 3; ++a)
        for (int k = 0; k < counts[a]; ++k) {
            uint64_t bits;
            memcpy(&bits, &arrays[a][k], sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
    return h;
}
