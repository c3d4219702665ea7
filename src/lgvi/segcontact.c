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
    int stick; /* contact.rods_friction: its anchor in the list, −1 none */
} seg_pair;

/* contact.rods_friction: a pair's stick anchor, the material points in contact when it stuck (arc
 * lengths in the rods of segments a and b, and the levers from the centrelines to the contact point in
 * the nodes' frames), the mixed rod's (mixed/assembly_contact.c, rr_stick) */
typedef struct seg_stick {
    int a, b;
    double sa, sb;
    double ra[3], rb[3];
    int sliding;
} seg_stick;

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
    /* contact.rods_friction (mu_s = 0: none): the nodes' rotations gathered (9 per global node), the
     * anchors sorted by (a, b) and a scratch list */
    double mu_s, mu_k;
    double *R;
    seg_stick *stick, *nstick;
    int stick_count, stick_cap, nstick_cap;
};

void cr_lgvi_segs_destroy(cr_lgvi_segs *c)
{
    if (!c) return;
    free(c->node0), free(c->seg_node), free(c->rod_of), free(c->radius), free(c->s), free(c->eps);
    free(c->link), free(c->X), free(c->lo), free(c->hi), free(c->cand), free(c->x0), free(c->vcand), free(c->pair);
    free(c->R), free(c->stick), free(c->nstick);
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
    if (c->R)
        for (int q = 0; q < c->rods; ++q)
            for (int i = 0; i < r[q]->nodes; ++i) {
                const cr_mat3 Ri = cr_lgvi_rotation(r[q]->k, i);
                memcpy(c->R + 9 * (size_t)(c->node0[q] + i), Ri.m, sizeof Ri.m);
            }
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
        c->pair[c->pair_count++] = (seg_pair){ka, kb, cp, -1};
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
    /* (μ_s, μ_k only with contact.rods_friction: the frictionless hash stays as it was) */
    const double v[4] = {c->self, c->between, c->mu_s, c->mu_k};
    const double *arrays[3] = {v, c->eps, c->radius};
    const int counts[3] = {c->mu_s > 0 ? 4 : 2, c->rods, c->nodes};
    for (int a = 0; a < 3; ++a)
        for (int k = 0; k < counts[a]; ++k) {
            uint64_t bits;
            memcpy(&bits, &arrays[a][k], sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
    return h;
}

/* ---- contact.rods_friction: the mixed rod's law (mixed/assembly_contact.c, docs/lgvi.md "Friction
 * between rods") as explicit forces at x^k ---- */

int cr_lgvi_segs_set_friction(cr_lgvi_segs *c, double mu_s, double mu_k)
{
    if (!(mu_s > 0)) return 0;
    c->mu_s = mu_s, c->mu_k = mu_k;
    c->R = malloc((size_t)c->nodes * 9 * sizeof *c->R);
    return c->R ? 0 : -1;
}

int cr_lgvi_segs_frictional(const cr_lgvi_segs *c) { return c && c->mu_s > 0; }

static cr_mat3 R_at(const cr_lgvi_segs *c, int g)
{
    cr_mat3 R;
    memcpy(R.m, c->R + 9 * (size_t)g, sizeof R.m);
    return R;
}
static double seg_len0(const cr_lgvi_segs *c, int k) { return c->s[c->seg_node[k] + 1] - c->s[c->seg_node[k]]; }

static int stick_cmp(const void *pa, const void *pb)
{
    const seg_stick *a = pa, *b = pb;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* the anchor of pair (ka, kb): its own, else that of a pair of neighbouring segments of the same rods
 * (a contact point that crossed a node within the step keeps its anchor); −1 */
static int stick_of(const cr_lgvi_segs *c, int ka, int kb)
{
    static const int da[9] = {0, -1, 1, 0, 0, -1, -1, 1, 1}, db[9] = {0, 0, 0, -1, 1, -1, 1, -1, 1};
    for (int q = 0; q < 9 && c->stick_count; ++q) {
        const int a = ka + da[q], b = kb + db[q];
        if (a < 0 || b < 0 || a >= c->segs || b >= c->segs || a >= b) continue;
        if (rod_of_seg(c, a) != rod_of_seg(c, ka) || rod_of_seg(c, b) != rod_of_seg(c, kb)) continue;
        const seg_stick key = {.a = a, .b = b};
        const seg_stick *m = bsearch(&key, c->stick, (size_t)c->stick_count, sizeof key, stick_cmp);
        if (m) return (int)(m - c->stick);
    }
    return -1;
}

/* M⁻¹ v for a 3 × 3 M (Cramer) */
static cr_vec3 m3_solve(cr_mat3 M, cr_vec3 v)
{
    const cr_vec3 c0 = {M.m[0][0], M.m[1][0], M.m[2][0]}, c1 = {M.m[0][1], M.m[1][1], M.m[2][1]},
                  c2 = {M.m[0][2], M.m[1][2], M.m[2][2]};
    const double d = cr_v3_dot(c0, cr_v3_cross(c1, c2));
    return cr_v3_scale(
        cr_v3(cr_v3_dot(v, cr_v3_cross(c1, c2)), cr_v3_dot(c0, cr_v3_cross(v, c2)), cr_v3_dot(c0, cr_v3_cross(c1, v))),
        1.0 / d);
}

/* the rotation interpolated at parameter w along segment k (as the mixed rod's levers: the point
 * between the nodes takes its section's frame between theirs) */
static cr_mat3 seg_frame(const cr_lgvi_segs *c, int k, double w)
{
    const cr_mat3 R0 = R_at(c, c->seg_node[k]), R1 = R_at(c, c->seg_node[k] + 1);
    cr_mat3 M;
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) M.m[r][q] = (1 - w) * R0.m[r][q] + w * R1.m[r][q];
    return M;
}

/* The tangential spring of pair p on its anchor st: t = −ε P u, u the anchored surface point of a
 * relative to b's (each its material point of the centreline, Δs e_a, Δt e_b from the closest points,
 * and its lever rotated by the section's frame); *gT = P u */
static cr_vec3 spring(const cr_lgvi_segs *c, const seg_pair *p, const seg_stick *st, cr_vec3 *gT)
{
    const cr_seg_closest *cp = &p->cp;
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    const double Ds = (st->sa - c->s[a]) / seg_len0(c, p->a) - cp->s,
                 Dt = (st->sb - c->s[b]) / seg_len0(c, p->b) - cp->t;
    const cr_vec3 ea = cr_v3_sub(X_at(c, a + 1), X_at(c, a)), eb = cr_v3_sub(X_at(c, b + 1), X_at(c, b));
    const cr_vec3 d = cr_v3_sub(cp->pa, cp->pb), n = cr_v3_scale(d, 1.0 / cp->dist);
    const cr_vec3 la = cr_m3_mulv(seg_frame(c, p->a, cp->s), cr_v3_load(st->ra)),
                  lb = cr_m3_mulv(seg_frame(c, p->b, cp->t), cr_v3_load(st->rb));
    cr_vec3 u = cr_v3_add(d, cr_v3_sub(cr_v3_scale(ea, Ds), cr_v3_scale(eb, Dt)));
    u = cr_v3_add(u, cr_v3_sub(la, lb));
    *gT = cr_v3_madd(u, -cr_v3_dot(n, u), n);
    return cr_v3_scale(*gT, -pair_eps(c, p->a, p->b));
}

/* Anchors pair p where its surface points are now, displaced so that the tangential slip is U (0: a
 * fresh anchor; μ_k N/ε along t: a sliding pair's trailing anchor): the levers to the contact point
 * (at a_a/(a_a + a_b) of the way from a's centreline to b's) in the sections' frames, the material
 * points' parameters on the two segments by least squares in the tangent plane (the mixed rod's) */
static void anchor(const cr_lgvi_segs *c, const seg_pair *p, cr_vec3 U, seg_stick *st)
{
    const cr_seg_closest *cp = &p->cp;
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    const double alpha = seg_radius(c, p->a) / (seg_radius(c, p->a) + seg_radius(c, p->b));
    const cr_vec3 d = cr_v3_sub(cp->pa, cp->pb);
    cr_v3_store(m3_solve(seg_frame(c, p->a, cp->s), cr_v3_scale(d, -alpha)), st->ra);
    cr_v3_store(m3_solve(seg_frame(c, p->b, cp->t), cr_v3_scale(d, 1 - alpha)), st->rb);
    const cr_vec3 n = cp->dist > 0 ? cr_v3_scale(d, 1 / cp->dist) : cr_v3(0, 0, 0);
    cr_vec3 A1 = cr_v3_sub(X_at(c, a + 1), X_at(c, a)), A2 = cr_v3_sub(X_at(c, b), X_at(c, b + 1));
    A1 = cr_v3_madd(A1, -cr_v3_dot(n, A1), n), A2 = cr_v3_madd(A2, -cr_v3_dot(n, A2), n);
    const double a11 = cr_v3_dot(A1, A1), a12 = cr_v3_dot(A1, A2), a22 = cr_v3_dot(A2, A2), det = a11 * a22 - a12 * a12;
    const double b1 = cr_v3_dot(A1, U), b2 = cr_v3_dot(A2, U);
    double x = 0, y = 0;
    if (det > 1e-12 * a11 * a22)
        x = (a22 * b1 - a12 * b2) / det, y = (a11 * b2 - a12 * b1) / det;
    else if (a11 > 0)
        x = b1 / a11;
    st->a = p->a, st->b = p->b;
    st->sa = c->s[a] + (cp->s + x) * seg_len0(c, p->a), st->sb = c->s[b] + (cp->t + y) * seg_len0(c, p->b);
}

static int grow(seg_stick **v, int *cap, int n)
{
    if (n <= *cap) return 0;
    seg_stick *m = realloc(*v, (size_t)n * sizeof *m);
    if (!m) return -1;
    *v = m, *cap = n;
    return 0;
}

static double pair_N(const cr_lgvi_segs *c, const seg_pair *p)
{
    return -pair_eps(c, p->a, p->b) * (p->cp.dist - seg_radius(c, p->a) - seg_radius(c, p->b));
}

int cr_lgvi_segs_friction(cr_lgvi_segs *c, cr_vec3 *F, cr_vec3 *C, int *sliding)
{
    memset(F, 0, (size_t)c->nodes * sizeof *F), memset(C, 0, (size_t)c->nodes * sizeof *C);
    if (sliding) *sliding = 0;
    if (!(c->mu_s > 0)) return 0;
    if (grow(&c->nstick, &c->nstick_cap, c->pair_count) < 0) return -1;
    /* the anchors updated at x^k, as the mixed rod's after each accepted step (its
     * cr_asm_contact_dynamic_step): a pair touching anew is anchored where it is (no force yet); a
     * sticking pair whose spring exceeds μ_s N slides, its anchors trailing the contact so that
     * |t| = μ_k N; a sliding pair below μ_k N sticks again; an opened pair is released */
    int n = 0;
    for (int k = 0; k < c->pair_count; ++k) {
        seg_pair *p = &c->pair[k];
        const double N = pair_N(c, p);
        const int old = p->cp.dist > 0 ? stick_of(c, p->a, p->b) : -1;
        seg_stick *st = &c->nstick[n];
        p->stick = n++;
        if (old < 0) {
            anchor(c, p, cr_v3(0, 0, 0), st);
            st->sliding = 0;
            continue;
        }
        *st = c->stick[old];
        st->a = p->a, st->b = p->b;
        cr_vec3 gT;
        const double tn = cr_v3_norm(spring(c, p, st, &gT));
        if (!st->sliding && tn > c->mu_s * N)
            st->sliding = 1;
        else if (st->sliding && tn < c->mu_k * N) {
            st->sliding = 0;
            continue;
        }
        if (st->sliding && tn > 0) anchor(c, p, cr_v3_scale(gT, c->mu_k * N / tn), st);
    }
    seg_stick *t = c->stick; /* (c->pair is sorted by (a, b): so is the new list) */
    const int cap = c->stick_cap;
    c->stick = c->nstick, c->stick_cap = c->nstick_cap, c->stick_count = n;
    c->nstick = t, c->nstick_cap = cap;
    /* the forces: t = −ε P u held while |t| ≤ μ N (μ_k for a sliding pair, μ_s else), μ N t/|t| beyond;
     * fa on a at the contact point c = p_a − α d, −fa on b: each shared by its segment's nodes with the
     * closest points' weights, with the moments of the levers from the centreline points to c,
     * −α d × fa on a and −(1 − α) d × fa on b (the pair's forces and moments sum to zero about any
     * point: the momenta are exact) */
    for (int k = 0; k < c->pair_count; ++k) {
        const seg_pair *p = &c->pair[k];
        const seg_stick *st = &c->stick[p->stick];
        const double N = pair_N(c, p);
        if (!(N > 0) || !(p->cp.dist > 0)) continue;
        cr_vec3 gT, fa = spring(c, p, st, &gT);
        const double tn = cr_v3_norm(fa), L = (st->sliding ? c->mu_k : c->mu_s) * N;
        if (tn > L) fa = cr_v3_scale(fa, L / tn);
        if (sliding) *sliding += st->sliding;
        const int a = c->seg_node[p->a], b = c->seg_node[p->b];
        const double alpha = seg_radius(c, p->a) / (seg_radius(c, p->a) + seg_radius(c, p->b));
        const cr_vec3 m = cr_v3_cross(cr_v3_sub(p->cp.pa, p->cp.pb), fa);
        const int nd[4] = {a, a + 1, b, b + 1};
        const double w[4] = {1 - p->cp.s, p->cp.s, -(1 - p->cp.t), -p->cp.t},
                     share[4] = {-alpha * (1 - p->cp.s), -alpha * p->cp.s, -(1 - alpha) * (1 - p->cp.t),
                                 -(1 - alpha) * p->cp.t};
        for (int q = 0; q < 4; ++q)
            F[nd[q]] = cr_v3_madd(F[nd[q]], w[q], fa), C[nd[q]] = cr_v3_madd(C[nd[q]], share[q], m);
    }
    return 0;
}

/* checkpoints: the anchors' count, then SEG_STICK_DOUBLES per anchor (segments.h: the mixed rod's layout) */
enum { SEG_STICK_DOUBLES = CR_SEG_ANCHOR_DOUBLES };

int cr_lgvi_segs_packed_size(const cr_lgvi_segs *c)
{
    return c && c->mu_s > 0 ? 1 + SEG_STICK_DOUBLES * c->stick_count : 0;
}

void cr_lgvi_segs_pack(const cr_lgvi_segs *c, double *out)
{
    if (!(c && c->mu_s > 0)) return;
    *out++ = c->stick_count;
    for (int k = 0; k < c->stick_count; ++k, out += SEG_STICK_DOUBLES) {
        const seg_stick *st = &c->stick[k];
        const double v[SEG_STICK_DOUBLES] = {st->a,     st->b,     st->sa,    st->sb,    st->ra[0],  st->ra[1],
                                             st->ra[2], st->rb[0], st->rb[1], st->rb[2], st->sliding};
        memcpy(out, v, sizeof v);
    }
}

long cr_lgvi_segs_unpacked_size(const cr_lgvi_segs *c, const double *in, long n)
{
    return c && c->mu_s > 0 ? cr_seg_anchors_unpacked_size(in, n, c->segs) : 0;
}

int cr_lgvi_segs_unpack(cr_lgvi_segs *c, const double *in)
{
    if (!(c && c->mu_s > 0)) return 0;
    const int n = (int)*in++;
    if (grow(&c->stick, &c->stick_cap, n) < 0) return c->stick_count = 0, -1;
    for (int k = 0; k < n; ++k, in += SEG_STICK_DOUBLES) {
        seg_stick *st = &c->stick[k];
        st->a = (int)in[0], st->b = (int)in[1], st->sa = in[2], st->sb = in[3];
        for (int r = 0; r < 3; ++r) st->ra[r] = in[4 + r], st->rb[r] = in[7 + r];
        st->sliding = in[10] != 0;
    }
    c->stick_count = n;
    return 0;
}
