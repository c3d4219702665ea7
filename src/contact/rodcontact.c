/* Contact between the segments of a rod (rodcontact.h). */
#include "rodcontact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cr_rodcontact *cr_rodcontact_create(int nodes, const double *radius, const double *s, double eps, double tol)
{
    cr_rodcontact *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->nodes = nodes, c->eps = eps, c->tol = tol;
    c->radius = malloc((size_t)nodes * sizeof *c->radius);
    c->s = malloc((size_t)nodes * sizeof *c->s);
    c->lo = malloc((size_t)nodes * 3 * sizeof *c->lo);
    c->hi = malloc((size_t)nodes * 3 * sizeof *c->hi);
    c->x0 = malloc((size_t)nodes * 3 * sizeof *c->x0);
    if (!c->radius || !c->s || !c->lo || !c->hi || !c->x0) {
        cr_rodcontact_destroy(c);
        return NULL;
    }
    memcpy(c->radius, radius, (size_t)nodes * sizeof *radius);
    memcpy(c->s, s, (size_t)nodes * sizeof *s);
    /* the Verlet list's skin: the rod's thickness, a small move against a step's */
    for (int i = 0; i < nodes; ++i) c->skin = fmax(c->skin, radius[i]);
    return c;
}

void cr_rodcontact_destroy(cr_rodcontact *c)
{
    if (!c) return;
    free(c->radius), free(c->s), free(c->lo), free(c->hi), free(c->cand), free(c->pair), free(c->mult);
    free(c->x0), free(c->vcand);
    free(c);
}

static double seg_radius(const cr_rodcontact *c, int a) { return 0.5 * (c->radius[a] + c->radius[a + 1]); }

int cr_rodcontact_excluded(const cr_rodcontact *c, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b, b = t;
    }
    if (b <= a + 1) return 1;
    const double arc = c->s[b] - c->s[a + 1];
    return arc < 0.5 * M_PI * (seg_radius(c, a) + seg_radius(c, b));
}

static cr_vec3 node_at(const double *x, int stride, int i) { return cr_v3_load(x + (size_t)i * stride); }

static double mult_of(const cr_rodcontact *c, int a, int b)
{
    int lo = 0, hi = c->mult_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const cr_rodmult *m = &c->mult[mid];
        if (m->a == a && m->b == b) return m->lambda;
        if (m->a < a || (m->a == a && m->b < b))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

/* The neighbour (a + i, b + j) of the pair (a, b) for cr_segpair_counted_once: its closest points
 * into *q, 0 when it is past the rod's ends or excluded (it holds nothing) */
typedef struct neighbour_ctx {
    const cr_rodcontact *c;
    const double *x;
    int stride, a, b;
} neighbour_ctx;

static int neighbour(void *ctx, int i, int j, cr_seg_closest *q)
{
    const neighbour_ctx *n = ctx;
    const int qa = n->a + i, qb = n->b + j, last = n->c->nodes - 2;
    if (qa < 0 || qb < 0 || qa > last || qb > last || cr_rodcontact_excluded(n->c, qa, qb)) return 0;
    cr_segment_closest(node_at(n->x, n->stride, qa), node_at(n->x, n->stride, qa + 1), node_at(n->x, n->stride, qb),
                       node_at(n->x, n->stride, qb + 1), q);
    return 1;
}

/* each contact point counted once (cr_segpair_counted_once, segments.h) */
static int counted_once(const cr_rodcontact *c, int a, int b, const cr_seg_closest *cp, const double *x, int stride)
{
    neighbour_ctx n = {c, x, stride, a, b};
    return cr_segpair_counted_once(cp, neighbour, &n);
}

/* candidate pairs whose boxes, each widened by its radius + reach/2, overlap (into *cand) */
static int candidates_into(cr_rodcontact *c, const double *x, int stride, double reach, int **cand, int *cap)
{
    const int segs = c->nodes - 1;
    for (int a = 0; a < segs; ++a) {
        const double *p = x + (size_t)a * stride, *q = p + stride, w = seg_radius(c, a) + 0.5 * reach;
        for (int k = 0; k < 3; ++k) c->lo[3 * a + k] = fmin(p[k], q[k]) - w, c->hi[3 * a + k] = fmax(p[k], q[k]) + w;
    }
    return cr_broad_phase(segs, c->lo, c->hi, cand, cap);
}

static int candidates(cr_rodcontact *c, const double *x, int stride, double reach)
{
    return candidates_into(c, x, stride, reach, &c->cand, &c->cand_cap);
}

/* cr_rodcontact_find's candidates for the reach: the Verlet list, found anew when a node moved
 * more than the skin from where it was last found (a pair's boxes then overlap at x only if
 * they overlapped at x0 widened by the skin each) or the reach grew; −1 out of memory */
static int verlet_candidates(cr_rodcontact *c, const double *x, int stride, double reach)
{
    int fresh = !c->vvalid || reach > c->vreach;
    for (int i = 0; i < c->nodes && !fresh; ++i) {
        const double *p = x + (size_t)i * stride, *q = c->x0 + 3 * (size_t)i;
        fresh = !(fabs(p[0] - q[0]) <= c->skin && fabs(p[1] - q[1]) <= c->skin && fabs(p[2] - q[2]) <= c->skin);
    }
    if (!fresh) return c->vcand_count;
    c->vvalid = 0;
    int n = candidates_into(c, x, stride, reach + 2 * c->skin, &c->vcand, &c->vcand_cap);
    if (n < 0) return -1;
    /* the pairs that may never touch (neighbours along the rod) leave the list once, not at every
     * step (which pairs are excluded depends on s and the radii alone) */
    int kept = 0;
    for (int k = 0; k < n; ++k)
        if (!cr_rodcontact_excluded(c, c->vcand[2 * k], c->vcand[2 * k + 1]))
            c->vcand[2 * kept] = c->vcand[2 * k], c->vcand[2 * kept + 1] = c->vcand[2 * k + 1], ++kept;
    n = kept;
    for (int i = 0; i < c->nodes; ++i)
        for (int k = 0; k < 3; ++k) c->x0[3 * (size_t)i + k] = x[(size_t)i * stride + k];
    c->vreach = reach, c->vcand_count = n, c->vvalid = 1;
    return n;
}

static int push(cr_rodcontact *c, int a, int b, double lambda, const cr_seg_closest *cp)
{
    if (c->pair_count == c->pair_cap) {
        int nc = c->pair_cap ? 2 * c->pair_cap : 16;
        cr_rodpair *p = realloc(c->pair, (size_t)nc * sizeof *p);
        if (!p) return -1;
        c->pair = p, c->pair_cap = nc;
    }
    c->pair[c->pair_count++] = (cr_rodpair){a, b, lambda, *cp};
    return 0;
}

static int pair_cmp(const void *pa, const void *pb)
{
    const cr_rodpair *a = pa, *b = pb;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

double cr_segment_box_gap(const double *p, const double *q, const double *u, const double *v)
{
    double gap = -INFINITY;
    for (int k = 0; k < 3; ++k) { /* comparisons, not fmin/fmax calls (a NaN fails the step elsewhere) */
        const double loa = p[k] < q[k] ? p[k] : q[k], hia = p[k] < q[k] ? q[k] : p[k];
        const double lob = u[k] < v[k] ? u[k] : v[k], hib = u[k] < v[k] ? v[k] : u[k];
        const double d = lob - hia > loa - hib ? lob - hia : loa - hib;
        if (d > gap) gap = d;
    }
    return gap;
}

/* the box gap of segments a and b (nodes a, a + 1 and b, b + 1) */
static double box_gap(const double *x, int stride, int a, int b)
{
    const double *p = x + (size_t)a * stride, *u = x + (size_t)b * stride;
    return cr_segment_box_gap(p, p + stride, u, u + stride);
}

int cr_rodcontact_find(cr_rodcontact *c, const double *x, int stride)
{
    double lmax = 0;
    for (int k = 0; k < c->mult_count; ++k) lmax = fmax(lmax, c->mult[k].lambda);
    const int n = verlet_candidates(c, x, stride, lmax / c->eps + c->tol);
    if (n < 0) return -1;
    c->pair_count = 0;
    for (int k = 0; k < n; ++k) {
        const int a = c->vcand[2 * k], b = c->vcand[2 * k + 1]; /* not excluded (verlet_candidates) */
        const double lambda = mult_of(c, a, b), R = seg_radius(c, a) + seg_radius(c, b);
        /* the pair presses when λ − ε g > 0, g = d − R; d is at least the gap between the segments'
         * boxes along any axis, so a gap beyond R + λ/ε (with a margin far above the rounding of d)
         * decides it without the closest points: most of a pile's candidates at most steps */
        if (box_gap(x, stride, a, b) > (R + lambda / c->eps) * (1 + 1e-9)) continue;
        cr_seg_closest cp;
        cr_segment_closest(node_at(x, stride, a), node_at(x, stride, a + 1), node_at(x, stride, b),
                           node_at(x, stride, b + 1), &cp);
        const double g = cp.dist - seg_radius(c, a) - seg_radius(c, b);
        if (!(lambda - c->eps * g > 0) || !counted_once(c, a, b, &cp, x, stride)) continue;
        if (push(c, a, b, lambda, &cp)) return -1;
    }
    /* in segment order: the sums over pairs do not depend on the hash's cell order */
    if (c->pair_count > 1) qsort(c->pair, (size_t)c->pair_count, sizeof *c->pair, pair_cmp); /* pair may be NULL */
    return c->pair_count;
}

void cr_rodcontact_pair_force(const cr_rodcontact *c, int k, const double *x, int stride, double *f, double *K)
{
    const cr_rodpair *p = &c->pair[k];
    const cr_vec3 X[4] = {node_at(x, stride, p->a), node_at(x, stride, p->a + 1), node_at(x, stride, p->b),
                          node_at(x, stride, p->b + 1)};
    cr_segpair_force(X, seg_radius(c, p->a) + seg_radius(c, p->b), p->lambda, c->eps, &p->cp, f, K);
}

double cr_rodcontact_min_gap(cr_rodcontact *c, const double *x, int stride, int *seg_a, int *seg_b)
{
    double rmax = 0;
    for (int i = 0; i < c->nodes; ++i) rmax = fmax(rmax, c->radius[i]);
    const int n = candidates(c, x, stride, 2 * rmax);
    double best = INFINITY;
    for (int k = 0; k < n; ++k) {
        const int a = c->cand[2 * k], b = c->cand[2 * k + 1];
        if (cr_rodcontact_excluded(c, a, b)) continue;
        cr_seg_closest cp;
        cr_segment_closest(node_at(x, stride, a), node_at(x, stride, a + 1), node_at(x, stride, b),
                           node_at(x, stride, b + 1), &cp);
        const double g = cp.dist - seg_radius(c, a) - seg_radius(c, b);
        if (g < best) {
            best = g;
            if (seg_a) *seg_a = a;
            if (seg_b) *seg_b = b;
        }
    }
    return best;
}

void cr_rodcontact_reset(cr_rodcontact *c) { c->mult_count = 0; }

int cr_rodcontact_update(cr_rodcontact *c, const double *x, int stride, double *penetration)
{
    const int old_count = c->mult_count;
    if (cr_rodcontact_find(c, x, stride) < 0) return -1;
    double pen = 0;
    int opened = 0;
    for (int k = 0; k < old_count; ++k) { /* a pair that carried a multiplier and no longer presses */
        const cr_rodpair key = {.a = c->mult[k].a, .b = c->mult[k].b};
        opened += c->mult[k].lambda > 0 &&
                  (!c->pair_count || !bsearch(&key, c->pair, (size_t)c->pair_count, sizeof key, pair_cmp));
    }
    if (c->pair_count > c->mult_cap) {
        cr_rodmult *m = realloc(c->mult, (size_t)c->pair_count * sizeof *m);
        if (!m) return -1;
        c->mult = m, c->mult_cap = c->pair_count;
    }
    int fresh = 0;
    for (int k = 0; k < c->pair_count; ++k) {
        const cr_rodpair *p = &c->pair[k];
        const double g = p->cp.dist - seg_radius(c, p->a) - seg_radius(c, p->b);
        pen = fmax(pen, -g);
        fresh += p->lambda == 0;
        c->mult[k] = (cr_rodmult){p->a, p->b, p->lambda - c->eps * g};
    }
    c->mult_count = c->pair_count; /* sorted: c->pair is */
    if (penetration) *penetration = pen;
    return pen <= c->tol && !opened && !fresh;
}

static double segs_radius(const cr_rod_segments *g, int k)
{
    return 0.5 * (g->radius[g->seg_node[k]] + g->radius[g->seg_node[k] + 1]);
}

/* the arc from segment k to a global node of its rod (0 at its own nodes; INFINITY in another rod) */
static double segs_arc_to(const cr_rod_segments *g, int k, int node)
{
    const int i = g->seg_node[k];
    if (g->rod_of[node] != g->rod_of[i]) return INFINITY;
    if (node == i || node == i + 1) return 0.0;
    return fmin(fabs(g->s[node] - g->s[i]), fabs(g->s[node] - g->s[i + 1]));
}

int cr_rod_segments_joined(const cr_rod_segments *g, int ka, int kb)
{
    const double reach = 0.5 * M_PI * (segs_radius(g, ka) + segs_radius(g, kb));
    for (int j = 0; j < g->links; ++j) {
        const int na = g->link[2 * j], nb = g->link[2 * j + 1];
        if (segs_arc_to(g, ka, na) + segs_arc_to(g, kb, nb) < reach ||
            segs_arc_to(g, ka, nb) + segs_arc_to(g, kb, na) < reach)
            return 1;
    }
    return 0;
}

int cr_rod_segments_touchable(const cr_rod_segments *g, int ka, int kb)
{
    if (g->rod_of[g->seg_node[ka]] != g->rod_of[g->seg_node[kb]])
        return g->between && !cr_rod_segments_joined(g, ka, kb);
    if (!g->self) return 0;
    if (ka > kb) {
        const int t = ka;
        ka = kb, kb = t;
    }
    if (kb <= ka + 1) return 0;
    const double arc = g->s[g->seg_node[kb]] - g->s[g->seg_node[ka] + 1];
    return !(arc < 0.5 * M_PI * (segs_radius(g, ka) + segs_radius(g, kb)));
}
