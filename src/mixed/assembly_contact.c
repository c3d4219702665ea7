/* Contact between the rods of an assembly of mixed rods (contact.rods; docs/theory.md §12):
 * segment–segment closest points of segments of different rods, frictionless, the normal force
 * N = max(0, λ − ε g) of the augmented Lagrangian (segments.h), found through the broad phase
 * over all the rods' segments (O(n log n), not n²). The pairs couple nodes of different rods:
 * the static solve takes their stiffness as a low-rank term of the coupled system
 * (assembly_statics.c). */
#include "contact/rodcontact.h"
#include "contact/segments.h"
#include "mixed/assembly_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cr_asm_contact {
    int rods, nodes, segs;
    int *node0;     /* rods + 1: the rods' first global node */
    int *seg_node;  /* segs: a segment's first global node (its rod's segments are consecutive) */
    int *rod_of;    /* nodes: the rod of a global node */
    double *radius; /* nodes */
    double *eps;    /* per rod: its ε (a pair takes the softer of its two rods') */
    double tol;
    int max_updates;
    double *X; /* 3 per global node: the positions gathered */
    double *Q; /* 4 per global node: the orientations gathered (quaternions) */
    double *lo, *hi;
    int *cand, cand_cap;
    cr_asm_rodpair *pair;
    int pair_count, pair_cap;
    cr_asm_rodpair *mult; /* the multipliers kept between the updates (sorted by a, b) */
    int mult_count, mult_cap;
    double *s; /* nodes: the reference arc length in its rod */
    int *link; /* 2 global nodes per joint between two rods' nodes */
    int links;
    /* friction (dynamic stages): μ_s, μ_k; the stick anchors, sorted by (a, b), and a scratch list */
    double mu_s, mu_k;
    int dynamic;
    int statics;  /* static friction on (a static stage): μ_s for stick and slide, the multipliers λ_T */
    int updating; /* statics: the update's evaluation (the trial decides stick or slip) */
    int self;    /* contact.self: segments of one rod touch */
    int between; /* contact.rods: segments of different rods touch */
    struct rr_stick *stick, *nstick, *saved;
    int stick_count, stick_cap, nstick_cap, saved_count, saved_cap;
};

/* A pair's stick anchor: the material points in contact when it stuck (arc lengths in the
 * rods of segments a and b), kept after each accepted step with the pair's segments */
typedef struct rr_stick {
    int a, b;
    double sa, sb;
    double ra[3], rb[3]; /* the levers from the centrelines to the contact point, in the sections' frames */
    double lt[3];        /* statics: the tangential multiplier λ_T (in I; 0 in dynamics) */
    int sliding;
} rr_stick;

void cr_asm_contact_destroy(cr_asm_contact *c)
{
    if (!c) return;
    free(c->node0), free(c->seg_node), free(c->rod_of), free(c->radius), free(c->eps), free(c->X), free(c->Q);
    free(c->lo), free(c->hi), free(c->cand), free(c->pair), free(c->mult);
    free(c->s), free(c->link);
    free(c->stick), free(c->nstick), free(c->saved);
    free(c);
}

cr_status cr_asm_contact_create(cr_assembly *a, const cr_assembly_def *def, cr_error *err)
{
    cr_asm_contact *c = calloc(1, sizeof *c);
    if (!c) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
    a->contact = c;
    c->rods = a->rod_count;
    c->node0 = calloc((size_t)a->rod_count + 1, sizeof *c->node0);
    c->eps = calloc((size_t)a->rod_count, sizeof *c->eps);
    if (!c->node0 || !c->eps) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
    for (int r = 0; r < a->rod_count; ++r) c->node0[r + 1] = c->node0[r] + a->models[r]->nodes;
    c->nodes = c->node0[a->rod_count], c->segs = c->nodes - a->rod_count;
    c->seg_node = malloc((size_t)c->segs * sizeof *c->seg_node);
    c->rod_of = malloc((size_t)c->nodes * sizeof *c->rod_of);
    c->radius = malloc((size_t)c->nodes * sizeof *c->radius);
    c->X = malloc((size_t)c->nodes * 3 * sizeof *c->X);
    c->Q = malloc((size_t)c->nodes * 4 * sizeof *c->Q);
    if (!c->Q) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
    c->lo = malloc((size_t)c->segs * 3 * sizeof *c->lo);
    c->hi = malloc((size_t)c->segs * 3 * sizeof *c->hi);
    if (!c->seg_node || !c->rod_of || !c->radius || !c->X || !c->lo || !c->hi)
        return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
    c->s = malloc((size_t)c->nodes * sizeof *c->s);
    c->link = malloc((size_t)2 * (a->joint_count > 0 ? a->joint_count : 1) * sizeof *c->link);
    if (!c->s || !c->link) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
    for (int r = 0; r < a->rod_count; ++r)
        memcpy(c->s + c->node0[r], a->models[r]->s, (size_t)a->models[r]->nodes * sizeof *c->s);
    for (int k = 0; k < a->joint_count; ++k) { /* joints between rod nodes (not free bodies) */
        const cr_asm_iface *ia = &a->iface[a->joints[k].iface[0]], *ib = &a->iface[a->joints[k].iface[1]];
        if (ia->rod < 0 || ib->rod < 0) continue;
        c->link[2 * c->links] = c->node0[ia->rod] + ia->node, c->link[2 * c->links + 1] = c->node0[ib->rod] + ib->node;
        ++c->links;
    }
    c->tol = INFINITY;
    c->self = def->rods[0].rod.contact.self, c->between = def->rods[0].rod.contact.rods;
    c->mu_s = def->rods[0].rod.contact.rods_mu_static, c->mu_k = def->rods[0].rod.contact.rods_mu_kinetic;
    c->max_updates = def->rods[0].rod.contact.max_updates > 0 ? def->rods[0].rod.contact.max_updates : 50;
    for (int r = 0, k = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        double tol;
        cr_status st = cr_mixed_contact_params(m, &def->rods[r].rod, "give the contact radius for contact.rods",
                                               c->radius + c->node0[r], &c->eps[r], &tol, err);
        if (st != CR_OK) return st;
        c->tol = fmin(c->tol, tol);
        for (int i = 0; i < m->nodes; ++i) c->rod_of[c->node0[r] + i] = r;
        for (int i = 0; i + 1 < m->nodes; ++i) c->seg_node[k++] = c->node0[r] + i;
    }
    return CR_OK;
}

int cr_asm_contact_nodes(const cr_asm_contact *c) { return c->nodes; }
int cr_asm_contact_rod_of(const cr_asm_contact *c, int node, int *local)
{
    const int r = c->rod_of[node];
    if (local) *local = node - c->node0[r];
    return r;
}
double cr_asm_contact_tolerance(const cr_asm_contact *c) { return c->tol; }

static uint64_t hash_doubles(uint64_t h, const double *v, int n)
{
    for (int k = 0; k < n; ++k) {
        uint64_t bits;
        memcpy(&bits, &v[k], sizeof bits);
        h = (h ^ bits) * 1099511628211ULL; /* FNV-1a over the values' bits, as the fingerprints */
    }
    return h;
}

uint64_t cr_asm_contact_hash(const cr_asm_contact *c, uint64_t h)
{
    const double v[] = {c->tol, c->self, c->between, c->mu_s, c->mu_k};
    h = hash_doubles(h, v, (int)(sizeof v / sizeof v[0]));
    h = hash_doubles(h, c->eps, c->rods);
    return hash_doubles(h, c->radius, c->nodes);
}
int cr_asm_contact_max_updates(const cr_asm_contact *c) { return c->max_updates; }

void cr_asm_contact_gather(cr_asm_contact *c, const cr_assembly *a, const cr_assembly_state *s)
{
    for (int r = 0; r < a->rod_count; ++r)
        for (int i = 0; i < a->models[r]->nodes; ++i) {
            cr_v3_store(cr_state_position(s->rods[r], i), c->X + 3 * (size_t)(c->node0[r] + i));
            cr_q_store(cr_state_orientation(s->rods[r], i), c->Q + 4 * (size_t)(c->node0[r] + i));
        }
}

void cr_asm_contact_gather_y(cr_asm_contact *c, const double *y, int stride)
{
    for (int g = 0; g < c->nodes; ++g) {
        memcpy(c->X + 3 * (size_t)g, y + (size_t)g * stride, 3 * sizeof(double));
        memcpy(c->Q + 4 * (size_t)g, y + (size_t)g * stride + 3, 4 * sizeof(double));
    }
}

static cr_vec3 X_at(const cr_asm_contact *c, int g) { return cr_v3_load(c->X + 3 * (size_t)g); }
static double seg_radius(const cr_asm_contact *c, int k)
{
    return 0.5 * (c->radius[c->seg_node[k]] + c->radius[c->seg_node[k] + 1]);
}
static int first_seg(const cr_asm_contact *c, int k) { return k == 0 || c->seg_node[k - 1] + 1 != c->seg_node[k]; }
static int last_seg(const cr_asm_contact *c, int k)
{
    return k == c->segs - 1 || c->seg_node[k + 1] != c->seg_node[k] + 1;
}
static double pair_eps(const cr_asm_contact *c, int ka, int kb)
{
    return fmin(c->eps[c->rod_of[c->seg_node[ka]]], c->eps[c->rod_of[c->seg_node[kb]]]);
}

/* the segments as the shared rules read them (rodcontact.h: a joint's rods are neighbours through
 * it, as a rod's own segments are through its material) */
static cr_rod_segments view(const cr_asm_contact *c)
{
    return (cr_rod_segments){c->seg_node, c->rod_of, c->link, c->s, c->radius, c->links, c->self, c->between};
}

/* A closest point at a segment's end node is also its neighbour's (in the same rod): the pair
 * is kept once, as for one rod's self-contact (rodcontact.c): at the start node the segment
 * before holds it; at the end node it is dropped when the distance decreases onto the next
 * segment (whose interior then holds the closest point). */
static int rod_of_seg(const cr_asm_contact *c, int k) { return c->rod_of[c->seg_node[k]]; }

/* Whether segments ka and kb may touch: of different rods unless joined near there; of one rod
 * (contact.self) as one rod's self-contact decides (rodcontact.h: not neighbours, and at least
 * π (r_a + r_b)/2 apart along the rod) */
static int touchable(const cr_asm_contact *c, int ka, int kb)
{
    const cr_rod_segments g = view(c);
    return cr_rod_segments_touchable(&g, ka, kb);
}

/* The neighbour (ka + i, kb + j) of a pair for cr_segpair_counted_once (segments.h): its closest
 * points, 0 when a segment has no neighbour there in its rod or the pair cannot touch */
typedef struct neighbour_ctx {
    const cr_asm_contact *c;
    int ka, kb;
} neighbour_ctx;

static int neighbour(void *ctx, int i, int j, cr_seg_closest *q)
{
    const neighbour_ctx *n = ctx;
    const cr_asm_contact *c = n->c;
    const int qa = n->ka + i, qb = n->kb + j;
    if ((i < 0 && first_seg(c, n->ka)) || (i > 0 && last_seg(c, n->ka)) || (j < 0 && first_seg(c, n->kb)) ||
        (j > 0 && last_seg(c, n->kb)) || qa == qb || !touchable(c, qa, qb))
        return 0;
    cr_segment_closest(X_at(c, c->seg_node[qa]), X_at(c, c->seg_node[qa] + 1), X_at(c, c->seg_node[qb]),
                       X_at(c, c->seg_node[qb] + 1), q);
    return 1;
}

/* each contact point counted once, as for one rod's self-contact (rodcontact.c) */
static int counted_once(const cr_asm_contact *c, int ka, int kb, const cr_seg_closest *cp)
{
    neighbour_ctx n = {c, ka, kb};
    return cr_segpair_counted_once(cp, neighbour, &n);
}

static int candidates(cr_asm_contact *c, double reach)
{
    for (int k = 0; k < c->segs; ++k) {
        const double *p = c->X + 3 * (size_t)c->seg_node[k], *q = p + 3, w = seg_radius(c, k) + 0.5 * reach;
        for (int j = 0; j < 3; ++j) c->lo[3 * k + j] = fmin(p[j], q[j]) - w, c->hi[3 * k + j] = fmax(p[j], q[j]) + w;
    }
    return cr_broad_phase(c->segs, c->lo, c->hi, &c->cand, &c->cand_cap);
}

static int pair_cmp(const void *pa, const void *pb)
{
    const cr_asm_rodpair *a = pa, *b = pb;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static int pair_cmp_stick(const void *pa, const void *pb)
{
    const rr_stick *a = pa, *b = pb;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static double mult_of(const cr_asm_contact *c, int a, int b)
{
    const cr_asm_rodpair key = {.a = a, .b = b};
    const cr_asm_rodpair *m =
        c->mult_count ? bsearch(&key, c->mult, (size_t)c->mult_count, sizeof key, pair_cmp) : NULL; /* (NULL: none) */
    return m ? m->lambda : 0.0;
}

static void closest(const cr_asm_contact *c, int ka, int kb, cr_seg_closest *cp)
{
    const int a = c->seg_node[ka], b = c->seg_node[kb];
    cr_segment_closest(X_at(c, a), X_at(c, a + 1), X_at(c, b), X_at(c, b + 1), cp);
}

/* The stick anchor of pair (ka, kb): its own, else that of a pair of neighbouring segments of
 * the same rods (a contact point that crossed a node within the step keeps its anchor); −1 */
static int stick_of(const cr_asm_contact *c, int ka, int kb)
{
    static const int da[9] = {0, -1, 1, 0, 0, -1, -1, 1, 1}, db[9] = {0, 0, 0, -1, 1, -1, 1, -1, 1};
    for (int q = 0; q < 9 && c->stick_count; ++q) {
        const int a = ka + da[q], b = kb + db[q];
        if (a < 0 || b < 0 || a >= c->segs || b >= c->segs || a >= b) continue;
        if (rod_of_seg(c, a) != rod_of_seg(c, ka) || rod_of_seg(c, b) != rod_of_seg(c, kb)) continue;
        const rr_stick key = {.a = a, .b = b};
        const rr_stick *m = bsearch(&key, c->stick, (size_t)c->stick_count, sizeof key, pair_cmp_stick);
        if (m) return (int)(m - c->stick);
    }
    return -1;
}

int cr_asm_contact_find(cr_asm_contact *c, const cr_asm_rodpair **pairs)
{
    double lmax = 0, emin = INFINITY;
    for (int k = 0; k < c->mult_count; ++k) lmax = fmax(lmax, c->mult[k].lambda);
    for (int r = 0; r < c->rods; ++r) emin = fmin(emin, c->eps[r]);
    const int n = candidates(c, lmax / emin + c->tol);
    if (n < 0) return -1;
    c->pair_count = 0;
    for (int k = 0; k < n; ++k) {
        int ka = c->cand[2 * k], kb = c->cand[2 * k + 1];
        if (!touchable(c, ka, kb)) continue;
        if (ka > kb) {
            const int t = ka;
            ka = kb, kb = t;
        }
        cr_seg_closest cp;
        closest(c, ka, kb, &cp);
        const double lambda = mult_of(c, ka, kb), g = cp.dist - seg_radius(c, ka) - seg_radius(c, kb);
        if (!(lambda - pair_eps(c, ka, kb) * g > 0) || !counted_once(c, ka, kb, &cp)) continue;
        if (c->pair_count == c->pair_cap) {
            const int nc = c->pair_cap ? 2 * c->pair_cap : 16;
            cr_asm_rodpair *p = realloc(c->pair, (size_t)nc * sizeof *p);
            if (!p) return -1;
            c->pair = p, c->pair_cap = nc;
        }
        c->pair[c->pair_count++] = (cr_asm_rodpair){ka, kb, lambda, cp, -1};
    }
    if (c->pair_count) /* sums independent of the hash's order */
        qsort(c->pair, (size_t)c->pair_count, sizeof *c->pair, pair_cmp);
    if (c->dynamic || c->statics)
        for (int k = 0; k < c->pair_count; ++k) c->pair[k].stick = stick_of(c, c->pair[k].a, c->pair[k].b);
    if (pairs) *pairs = c->pair;
    return c->pair_count;
}

void cr_asm_contact_pair_force(const cr_asm_contact *c, int k, int nodes[4], double *f, double *K)
{
    const cr_asm_rodpair *p = &c->pair[k];
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    nodes[0] = a, nodes[1] = a + 1, nodes[2] = b, nodes[3] = b + 1;
    const cr_vec3 X[4] = {X_at(c, a), X_at(c, a + 1), X_at(c, b), X_at(c, b + 1)};
    cr_segpair_force(X, seg_radius(c, p->a) + seg_radius(c, p->b), p->lambda, pair_eps(c, p->a, p->b), &p->cp, f, K);
}

double cr_asm_contact_min_gap(cr_asm_contact *c, int *node_a, int *node_b)
{
    double rmax = 0;
    for (int i = 0; i < c->nodes; ++i) rmax = fmax(rmax, c->radius[i]);
    const int n = candidates(c, 2 * rmax);
    double best = INFINITY;
    for (int k = 0; k < n; ++k) {
        const int ka = c->cand[2 * k], kb = c->cand[2 * k + 1];
        if (!touchable(c, ka, kb)) continue;
        cr_seg_closest cp;
        closest(c, ka, kb, &cp);
        const double g = cp.dist - seg_radius(c, ka) - seg_radius(c, kb);
        if (g < best) {
            best = g;
            if (node_a) *node_a = c->seg_node[ka];
            if (node_b) *node_b = c->seg_node[kb];
        }
    }
    return fmin(best, 2 * rmax); /* none within reach: the reach */
}

void cr_asm_contact_reset(cr_asm_contact *c) { c->mult_count = 0; }

int cr_asm_contact_update(cr_asm_contact *c, double *penetration)
{
    const int old_count = c->mult_count;
    if (cr_asm_contact_find(c, NULL) < 0) return -1;
    int opened = 0, fresh = 0;
    for (int k = 0; k < old_count; ++k) /* a pair that carried a multiplier and no longer presses */
        opened += c->mult[k].lambda > 0 &&
                  (!c->pair_count || !bsearch(&c->mult[k], c->pair, (size_t)c->pair_count, sizeof *c->pair, pair_cmp));
    if (c->pair_count > c->mult_cap) {
        cr_asm_rodpair *m = realloc(c->mult, (size_t)c->pair_count * sizeof *m);
        if (!m) return -1;
        c->mult = m, c->mult_cap = c->pair_count;
    }
    double pen = 0;
    for (int k = 0; k < c->pair_count; ++k) {
        const cr_asm_rodpair *p = &c->pair[k];
        const double g = p->cp.dist - seg_radius(c, p->a) - seg_radius(c, p->b);
        pen = fmax(pen, -g);
        fresh += p->lambda == 0;
        c->mult[k] = *p;
        c->mult[k].lambda = p->lambda - pair_eps(c, p->a, p->b) * g;
    }
    c->mult_count = c->pair_count;
    if (penetration) *penetration = pen;
    return pen <= c->tol && !opened && !fresh;
}

/* ---- friction between the rods (dynamic stages) ---- */

int cr_asm_contact_frictional(const cr_asm_contact *c) { return c->mu_s > 0; }

static double seg_len0(const cr_asm_contact *c, int k) { return c->s[c->seg_node[k] + 1] - c->s[c->seg_node[k]]; }

/* The friction of pair p pressing with N (its gradient −ε ∇d with ∇d = gD): the force fa on rod
 * a's closest point (−fa on b's), with f (12) += its shares on the four nodes, K (12 × 12,
 * optional) += their exact derivative, mom (12, optional) = the moments about the nodes.
 * *trial: |t|; *gT_out: the tangential gap. Jw (24 × 28, optional, with K): += the derivatives
 * of the force rows by the nodes' quaternions and of the moments' rows (in each node's body basis,
 * as the static residual's) by the positions and quaternions (rows 6 per node: force, moment;
 * columns 7 per node: r, p). Returns 1 at the Coulomb limit (μ = μ_k for a pair sliding since the last step, else μ_s).
 */
static int friction(const cr_asm_contact *c, const cr_asm_rodpair *p, const cr_vec3 X[4], double N, double *f,
                    double *K, double *mom, double *trial, double *gT_out, double *Jw)
{
    *trial = 0;
    if (mom)
        for (int k = 0; k < 12; ++k) mom[k] = 0;
    if (!(c->dynamic || c->statics) || !(c->mu_s > 0) || p->stick < 0 || !(N > 0) || !(p->cp.dist > 0)) return 0;
    const rr_stick *st = &c->stick[p->stick];
    const cr_seg_closest *cp = &p->cp;
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    /* (statics has no sliding speed: μ_s for the test and the sliding force, as the obstacles') */
    const double eps = pair_eps(c, p->a, p->b), mu = st->sliding && !c->statics ? c->mu_k : c->mu_s;
    const double Ds = (st->sa - c->s[a]) / seg_len0(c, p->a) - cp->s,
                 Dt = (st->sb - c->s[b]) / seg_len0(c, p->b) - cp->t;
    const double w[4] = {1 - cp->s, cp->s, -(1 - cp->t), -cp->t};
    const cr_vec3 ea = cr_v3_sub(X[1], X[0]), eb = cr_v3_sub(X[3], X[2]), d = cr_v3_sub(cp->pa, cp->pb);
    const double D = cp->dist, E[2][3] = {{ea.x, ea.y, ea.z}, {eb.x, eb.y, eb.z}};
    const double n[3] = {d.x / D, d.y / D, d.z / D}, dv[3] = {d.x, d.y, d.z};
    /* u: the anchored surface point of a relative to b's, each its material point of the
     * centreline (Δs e_a, Δt e_b from the closest points) and its lever in the section's frame
     * (interpolated between the nodes' rotations as the point between the nodes) */
    const cr_mat3 Ra0 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)a)), Ra1 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)a + 4)),
                  Rb0 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)b)), Rb1 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)b + 4));
    const cr_vec3 ra = cr_v3_load(st->ra), rb = cr_v3_load(st->rb);
    const cr_vec3 la = cr_v3_add(cr_v3_scale(cr_m3_mulv(Ra0, ra), 1 - cp->s), cr_v3_scale(cr_m3_mulv(Ra1, ra), cp->s)),
                  lb = cr_v3_add(cr_v3_scale(cr_m3_mulv(Rb0, rb), 1 - cp->t), cr_v3_scale(cr_m3_mulv(Rb1, rb), cp->t));
    const cr_vec3 dla = cr_v3_sub(cr_m3_mulv(Ra1, ra), cr_m3_mulv(Ra0, ra)), /* ∂/∂s, ∂/∂t */
        dlb = cr_v3_sub(cr_m3_mulv(Rb1, rb), cr_m3_mulv(Rb0, rb));
    const double LA[3] = {la.x, la.y, la.z}, LB[3] = {lb.x, lb.y, lb.z}, DLA[3] = {dla.x, dla.y, dla.z},
                 DLB[3] = {dlb.x, dlb.y, dlb.z};
    /* t = P λ_T − ε P u (Alart–Curnier, as the obstacles' in statics; λ_T = 0 in dynamics) */
    double u[3], nu = 0, gT[3], t[3], tn = 0, nl = 0;
    for (int r = 0; r < 3; ++r) u[r] = dv[r] + Ds * E[0][r] - Dt * E[1][r] + LA[r] - LB[r], nu += n[r] * u[r];
    for (int r = 0; r < 3; ++r) nl += n[r] * st->lt[r];
    for (int r = 0; r < 3; ++r) gT[r] = u[r] - nu * n[r], t[r] = st->lt[r] - nl * n[r] - eps * gT[r], tn += t[r] * t[r];
    tn = sqrt(tn);
    *trial = tn;
    for (int r = 0; r < 3; ++r) gT_out[r] = gT[r];
    const double L = mu * N;
    /* statics: within a solve each pair keeps the branch its last update gave it (a trial over
     * the limit at a solve's start is the multipliers' overshoot, which the solve takes back:
     * on the slip branch a body that friction alone holds would have no tangent); the update
     * decides by the trial at the equilibrium */
    const int slip = c->statics && !c->updating ? st->sliding : tn > L;
    double fa[3], th[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r) th[r] = tn > 0 ? t[r] / tn : 0, fa[r] = slip ? L * th[r] : t[r];
    for (int k = 0; k < 4; ++k)
        for (int r = 0; r < 3; ++r) f[3 * k + r] += w[k] * fa[r];
    if (mom) { /* −α d × fa on a, −(1 − α) d × fa on b: they cancel the force pair's moment d × fa */
        const double alpha = seg_radius(c, p->a) / (seg_radius(c, p->a) + seg_radius(c, p->b));
        const cr_vec3 m = cr_v3_cross(d, cr_v3_load(fa));
        const double share[4] = {-alpha * (1 - cp->s), -alpha * cp->s, -(1 - alpha) * (1 - cp->t),
                                 -(1 - alpha) * cp->t};
        for (int k = 0; k < 4; ++k) cr_v3_store(cr_v3_scale(m, share[k]), mom + 3 * k);
    }
    if (!K) return slip;
    /* the closest points' parameters θ = (s, t) where free: ∇θ = −A⁻¹ G (as in cr_segpair_force:
     * the implicit derivative of the optimality (p_a − p_b)·∂(p_a − p_b)/∂θ_j = 0) */
    double G[2][12], av[2][3], gs[12] = {0}, gt[12] = {0};
    int nf = 0, which[2];
    if (cp->s_free) {
        for (int r = 0; r < 3; ++r) av[nf][r] = E[0][r];
        for (int k = 0; k < 4; ++k)
            for (int r = 0; r < 3; ++r) G[nf][3 * k + r] = w[k] * av[nf][r];
        for (int r = 0; r < 3; ++r) G[nf][r] -= dv[r], G[nf][3 + r] += dv[r];
        which[nf++] = 0;
    }
    if (cp->t_free) {
        for (int r = 0; r < 3; ++r) av[nf][r] = -E[1][r];
        for (int k = 0; k < 4; ++k)
            for (int r = 0; r < 3; ++r) G[nf][3 * k + r] = w[k] * av[nf][r];
        for (int r = 0; r < 3; ++r) G[nf][6 + r] += dv[r], G[nf][9 + r] -= dv[r];
        which[nf++] = 1;
    }
    double Ai[2][2] = {{0, 0}, {0, 0}};
    if (nf == 1) {
        const double A = av[0][0] * av[0][0] + av[0][1] * av[0][1] + av[0][2] * av[0][2];
        Ai[0][0] = A > 0 ? 1 / A : 0;
    } else if (nf == 2) {
        double A00 = 0, A01 = 0, A11 = 0;
        for (int r = 0; r < 3; ++r) A00 += av[0][r] * av[0][r], A01 += av[0][r] * av[1][r], A11 += av[1][r] * av[1][r];
        const double det = A00 * A11 - A01 * A01;
        if (det > 0) Ai[0][0] = A11 / det, Ai[0][1] = Ai[1][0] = -A01 / det, Ai[1][1] = A00 / det;
    }
    for (int i = 0; i < nf; ++i) {
        double *g = which[i] == 0 ? gs : gt;
        for (int j = 0; j < nf; ++j)
            for (int q = 0; q < 12; ++q) g[q] -= Ai[i][j] * G[j][q];
    }
    /* ∂d = W + e_a ∇sᵀ − e_b ∇tᵀ, ∂n = P ∂d / D, ∂u = ∂d + Δs ∂e_a − Δt ∂e_b − e_a ∇sᵀ + e_b ∇tᵀ
     * + (R_a1 − R_a0) ρ_a ∇sᵀ − (R_b1 − R_b0) ρ_b ∇tᵀ (the rotations' columns are not formed) */
    double Dd[3][12], Dn[3][12], Du[3][12], Dt3[3][12], gN[12];
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 12; ++q) {
            const int k = q / 3, cc = q % 3, dl = r == cc;
            Dd[r][q] = w[k] * dl + E[0][r] * gs[q] - E[1][r] * gt[q];
            const double ka = k == 1 ? 1.0 : k == 0 ? -1.0 : 0.0, kb = k == 3 ? 1.0 : k == 2 ? -1.0 : 0.0;
            Du[r][q] = Dd[r][q] + Ds * dl * ka - Dt * dl * kb - E[0][r] * gs[q] + E[1][r] * gt[q] + DLA[r] * gs[q] -
                       DLB[r] * gt[q];
        }
    for (int q = 0; q < 12; ++q) {
        double nd = 0;
        for (int r = 0; r < 3; ++r) nd += n[r] * Dd[r][q];
        for (int r = 0; r < 3; ++r) Dn[r][q] = (Dd[r][q] - n[r] * nd) / D;
        gN[q] = -eps * w[q / 3] * n[q % 3]; /* ∂N = −ε ∂d (the envelope theorem) */
    }
    /* ∂t = −ε (∂u − n (nᵀ∂u) − (n uᵀ + (n·u) I) ∂n) − (n λ_Tᵀ + (n·λ_T) I) ∂n */
    for (int q = 0; q < 12; ++q) {
        double ndu = 0, udn = 0, ldn = 0;
        for (int r = 0; r < 3; ++r) ndu += n[r] * Du[r][q], udn += u[r] * Dn[r][q], ldn += st->lt[r] * Dn[r][q];
        for (int r = 0; r < 3; ++r)
            Dt3[r][q] = -eps * (Du[r][q] - n[r] * ndu - n[r] * udn - nu * Dn[r][q]) - n[r] * ldn - nl * Dn[r][q];
    }
    double Df[3][12];
    for (int q = 0; q < 12; ++q) {
        double tdt = 0;
        for (int r = 0; r < 3; ++r) tdt += th[r] * Dt3[r][q];
        for (int r = 0; r < 3; ++r)
            Df[r][q] = slip ? mu * th[r] * gN[q] + (L / tn) * (Dt3[r][q] - th[r] * tdt) : Dt3[r][q];
    }
    for (int k = 0; k < 4; ++k) {
        const double *dw = k == 0 ? gs : k == 1 ? gs : gt, sg = k == 0 || k == 3 ? -1.0 : 1.0;
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 12; ++q) K[(3 * k + r) * 12 + q] += w[k] * Df[r][q] + fa[r] * sg * dw[q];
    }
    if (!Jw) return slip;
    /* the quaternions' columns: u depends on them through the levers l_a = Σ w R(p) ρ_a (the
     * closest points, n and N do not): ∂u/∂p_j = ±w_j ∂(R(p_j) ρ)/∂p_j, ∂t = −ε P ∂u */
    const cr_quat qn[4] = {cr_q_load(c->Q + 4 * (size_t)a), cr_q_load(c->Q + 4 * (size_t)a + 4),
                           cr_q_load(c->Q + 4 * (size_t)b), cr_q_load(c->Q + 4 * (size_t)b + 4)};
    double Du_p[3][16], Df_p[3][16];
    for (int j = 0; j < 4; ++j) {
        double Dp[3][4];
        cr_q_exp_mulv_dp(qn[j], j < 2 ? ra : rb, Dp);
        for (int r = 0; r < 3; ++r)
            for (int e = 0; e < 4; ++e) Du_p[r][4 * j + e] = w[j] * Dp[r][e]; /* (w_b < 0: −l_b) */
    }
    for (int q = 0; q < 16; ++q) {
        double ndu = 0, tdt = 0, dt3[3];
        for (int r = 0; r < 3; ++r) ndu += n[r] * Du_p[r][q];
        for (int r = 0; r < 3; ++r) dt3[r] = -eps * (Du_p[r][q] - n[r] * ndu), tdt += th[r] * dt3[r];
        for (int r = 0; r < 3; ++r) Df_p[r][q] = slip ? (L / tn) * (dt3[r] - th[r] * tdt) : dt3[r];
    }
    /* the moments m_k = σ_k d × f_a (σ: the shares above, through s and t functions of the
     * positions), in node k's basis A_kᵀ m_k */
    const double alpha = seg_radius(c, p->a) / (seg_radius(c, p->a) + seg_radius(c, p->b));
    const double share[4] = {-alpha * (1 - cp->s), -alpha * cp->s, -(1 - alpha) * (1 - cp->t), -(1 - alpha) * cp->t};
    const cr_mat3 Rn[4] = {Ra0, Ra1, Rb0, Rb1};
    const cr_vec3 dxf = cr_v3_cross(d, cr_v3_load(fa));
    for (int k = 0; k < 4; ++k) {
        const double *dsh = k < 2 ? gs : gt, ssg = k == 0 ? alpha : k == 1 ? -alpha : k == 2 ? 1 - alpha : alpha - 1;
        double Mx[3][12], Mp[3][16];
        for (int q = 0; q < 12; ++q) {
            const cr_vec3 v = cr_v3_add(cr_v3_cross(cr_v3(Dd[0][q], Dd[1][q], Dd[2][q]), cr_v3_load(fa)),
                                        cr_v3_cross(d, cr_v3(Df[0][q], Df[1][q], Df[2][q])));
            for (int r = 0; r < 3; ++r) Mx[r][q] = ssg * dsh[q] * cr_v3_get(dxf, r) + share[k] * cr_v3_get(v, r);
        }
        for (int q = 0; q < 16; ++q) {
            const cr_vec3 v = cr_v3_cross(d, cr_v3(Df_p[0][q], Df_p[1][q], Df_p[2][q]));
            for (int r = 0; r < 3; ++r) Mp[r][q] = share[k] * cr_v3_get(v, r);
        }
        double T[3][4]; /* ∂(A_kᵀ m)/∂p_k at fixed m */
        cr_q_exp_tmulv_dp(qn[k], cr_v3_scale(dxf, share[k]), T);
        const cr_mat3 A = Rn[k];
        for (int r = 0; r < 3; ++r) {
            double *row = Jw + (size_t)(6 * k + 3 + r) * 28, *frow = Jw + (size_t)(6 * k + r) * 28;
            for (int j = 0; j < 4; ++j) {
                for (int e = 0; e < 3; ++e)
                    row[7 * j + e] +=
                        A.m[0][r] * Mx[0][3 * j + e] + A.m[1][r] * Mx[1][3 * j + e] + A.m[2][r] * Mx[2][3 * j + e];
                for (int e = 0; e < 4; ++e) {
                    row[7 * j + 3 + e] += A.m[0][r] * Mp[0][4 * j + e] + A.m[1][r] * Mp[1][4 * j + e] +
                                          A.m[2][r] * Mp[2][4 * j + e] + (j == k ? T[r][e] : 0.0);
                    frow[7 * j + 3 + e] += w[k] * Df_p[r][4 * j + e];
                }
            }
        }
    }
    return slip;
}

void cr_asm_contact_pair_force_friction(const cr_asm_contact *c, int k, int nodes[4], double *f, double *K, double *mom,
                                        int *sliding)
{
    const cr_asm_rodpair *p = &c->pair[k];
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    nodes[0] = a, nodes[1] = a + 1, nodes[2] = b, nodes[3] = b + 1;
    const cr_vec3 X[4] = {X_at(c, a), X_at(c, a + 1), X_at(c, b), X_at(c, b + 1)};
    const double N = cr_segpair_force(X, seg_radius(c, p->a) + seg_radius(c, p->b), p->lambda, pair_eps(c, p->a, p->b),
                                      &p->cp, f, K);
    double tn, gT[3];
    const int slip = friction(c, p, X, N, f, K, mom, &tn, gT, NULL);
    if (sliding) *sliding = slip || (p->stick >= 0 && c->stick[p->stick].sliding);
}

void cr_asm_contact_pair_wrench(const cr_asm_contact *c, int k, int nodes[4], double *f, double *J)
{
    const cr_asm_rodpair *p = &c->pair[k];
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    nodes[0] = a, nodes[1] = a + 1, nodes[2] = b, nodes[3] = b + 1;
    const cr_vec3 X[4] = {X_at(c, a), X_at(c, a + 1), X_at(c, b), X_at(c, b + 1)};
    double f12[12] = {0}, K12[144] = {0}, mom[12], tn, gT[3];
    if (J) memset(J, 0, 24 * 28 * sizeof *J);
    const double N = cr_segpair_force(X, seg_radius(c, p->a) + seg_radius(c, p->b), p->lambda, pair_eps(c, p->a, p->b),
                                      &p->cp, f12, J ? K12 : NULL);
    friction(c, p, X, N, f12, J ? K12 : NULL, mom, &tn, gT, J);
    for (int q = 0; q < 4; ++q) {
        const cr_vec3 mb = cr_m3_tmulv(cr_q_exp(cr_q_load(c->Q + 4 * (size_t)nodes[q])), cr_v3_load(mom + 3 * q));
        for (int r = 0; r < 3; ++r) f[6 * q + r] = f12[3 * q + r];
        f[6 * q + 3] = mb.x, f[6 * q + 4] = mb.y, f[6 * q + 5] = mb.z;
        if (!J) continue;
        for (int r = 0; r < 3; ++r)
            for (int j = 0; j < 4; ++j)
                for (int e = 0; e < 3; ++e) J[(6 * q + r) * 28 + 7 * j + e] = K12[(3 * q + r) * 12 + 3 * j + e];
    }
}

static int grow_nstick(cr_asm_contact *c, int n)
{
    if (n <= c->nstick_cap) return 0;
    rr_stick *m = realloc(c->nstick, (size_t)n * sizeof *m);
    if (!m) return -1;
    c->nstick = m, c->nstick_cap = n;
    return 0;
}

/* M⁻¹ v for a 3 × 3 M (cofactors) */
static cr_vec3 m3_solve(cr_mat3 M, cr_vec3 v)
{
    const double(*m)[3] = M.m;
    const double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1], c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2],
                 c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    const double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    const double x[3] = {v.x, v.y, v.z};
    double r[3];
    const double inv[3][3] = {{c00, m[0][2] * m[2][1] - m[0][1] * m[2][2], m[0][1] * m[1][2] - m[0][2] * m[1][1]},
                              {c01, m[0][0] * m[2][2] - m[0][2] * m[2][0], m[0][2] * m[1][0] - m[0][0] * m[1][2]},
                              {c02, m[0][1] * m[2][0] - m[0][0] * m[2][1], m[0][0] * m[1][1] - m[0][1] * m[1][0]}};
    for (int i = 0; i < 3; ++i) r[i] = (inv[i][0] * x[0] + inv[i][1] * x[1] + inv[i][2] * x[2]) / det;
    return cr_v3(r[0], r[1], r[2]);
}

/* Anchors pair p where its surface points are now, displaced so that the tangential slip is U
 * (0: a fresh anchor; μ_k N/ε along t: a sliding pair's trailing anchor): the levers to the
 * contact point (at a_a/(a_a + a_b) of the way from a's centreline to b's) in the sections'
 * frames, and the material points' parameters on the two segments by least squares in the
 * tangent plane (exact unless the segments are parallel) */
static void anchor(const cr_asm_contact *c, const cr_asm_rodpair *p, const cr_vec3 X[4], const double U[3],
                   rr_stick *st)
{
    const cr_seg_closest *cp = &p->cp;
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    const double alpha = seg_radius(c, p->a) / (seg_radius(c, p->a) + seg_radius(c, p->b));
    const cr_vec3 d = cr_v3_sub(cp->pa, cp->pb);
    cr_mat3 Ma = cr_m3_zero(), Mb = cr_m3_zero();
    const cr_mat3 Ra0 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)a)), Ra1 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)a + 4)),
                  Rb0 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)b)), Rb1 = cr_q_exp(cr_q_load(c->Q + 4 * (size_t)b + 4));
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
            Ma.m[r][k] = (1 - cp->s) * Ra0.m[r][k] + cp->s * Ra1.m[r][k],
            Mb.m[r][k] = (1 - cp->t) * Rb0.m[r][k] + cp->t * Rb1.m[r][k];
    cr_v3_store(m3_solve(Ma, cr_v3_scale(d, -alpha)), st->ra);
    cr_v3_store(m3_solve(Mb, cr_v3_scale(d, 1 - alpha)), st->rb);
    const cr_vec3 n = cp->dist > 0 ? cr_v3_scale(d, 1 / cp->dist) : cr_v3(0, 0, 0), u = cr_v3_load(U);
    cr_vec3 A1 = cr_v3_sub(X[1], X[0]), A2 = cr_v3_sub(X[2], X[3]);
    A1 = cr_v3_madd(A1, -cr_v3_dot(n, A1), n), A2 = cr_v3_madd(A2, -cr_v3_dot(n, A2), n);
    const double a11 = cr_v3_dot(A1, A1), a12 = cr_v3_dot(A1, A2), a22 = cr_v3_dot(A2, A2), det = a11 * a22 - a12 * a12;
    const double b1 = cr_v3_dot(A1, u), b2 = cr_v3_dot(A2, u);
    double x = 0, y = 0;
    if (det > 1e-12 * a11 * a22)
        x = (a22 * b1 - a12 * b2) / det, y = (a11 * b2 - a12 * b1) / det;
    else if (a11 > 0)
        x = b1 / a11;
    st->a = p->a, st->b = p->b;
    st->sa = c->s[a] + (cp->s + x) * seg_len0(c, p->a), st->sb = c->s[b] + (cp->t + y) * seg_len0(c, p->b);
    st->lt[0] = st->lt[1] = st->lt[2] = 0.0;
}

/* Pair p's segments' nodes X and its normal force N (the augmented Lagrangian's, or the penalty's) */
static double pair_normal(const cr_asm_contact *c, const cr_asm_rodpair *p, cr_vec3 X[4])
{
    const int a = c->seg_node[p->a], b = c->seg_node[p->b];
    X[0] = X_at(c, a), X[1] = X_at(c, a + 1), X[2] = X_at(c, b), X[3] = X_at(c, b + 1);
    return cr_segpair_force(X, seg_radius(c, p->a) + seg_radius(c, p->b), p->lambda, pair_eps(c, p->a, p->b), &p->cp,
                            NULL, NULL);
}

/* The scratch list's first n anchors become the list (the old one the scratch) */
static void take_new_sticks(cr_asm_contact *c, int n)
{
    rr_stick *t = c->stick;
    const int cap = c->stick_cap;
    c->stick = c->nstick, c->stick_cap = c->nstick_cap, c->stick_count = n;
    c->nstick = t, c->nstick_cap = cap;
}

int cr_asm_contact_dynamic_step(cr_asm_contact *c)
{
    if (!c->dynamic || !(c->mu_s > 0)) return 0;
    const int np = cr_asm_contact_find(c, NULL);
    if (np < 0 || grow_nstick(c, np) < 0) return -1;
    int n = 0;
    for (int k = 0; k < np; ++k) {
        const cr_asm_rodpair *p = &c->pair[k];
        cr_vec3 X[4];
        const double N = pair_normal(c, p, X);
        double f[12] = {0}, tn, gT[3] = {0, 0, 0}, U[3] = {0, 0, 0};
        friction(c, p, X, N, f, NULL, NULL, &tn, gT, NULL);
        rr_stick *st = &c->nstick[n++];
        if (p->stick < 0) { /* touched in this step: sticks from here (a continuous force: 0) */
            anchor(c, p, X, U, st);
            st->sliding = 0;
            continue;
        }
        /* stick → slide above μ_s N, slide → stick below μ_k N (contact.c) */
        *st = c->stick[p->stick];
        st->a = p->a, st->b = p->b;
        if (!st->sliding && tn > c->mu_s * N)
            st->sliding = 1;
        else if (st->sliding && tn < c->mu_k * N) {
            st->sliding = 0;
            continue;
        }
        if (st->sliding && tn > 0) { /* the anchors trail the contact: |t| = μ_k N along t */
            const double q = c->mu_k * N / tn;
            for (int r = 0; r < 3; ++r) U[r] = q * gT[r];
            anchor(c, p, X, U, st);
        }
    }
    /* c->pair is sorted by (a, b): so is the new list; the pairs are distinct */
    take_new_sticks(c, n);
    return 0;
}

/* The anchors a new stage takes over from the one before (a stage boundary is a change of loads,
 * supports or step, not a physical event: a pair that sticks goes on sticking to the same
 * material points, docs/scenario.md "Multi-stage runs"): after a static stage each pair's
 * multiplier moves into its anchors, U = g_T − P λ_T/ε, so that the spring −ε P U carries the same
 * force at the same state (as contact.c's cr_contact_dynamic_begin does for the obstacles'); after
 * a dynamic stage they are taken as they are, the sliding pairs sliding on. Before, the pairs were
 * anchored afresh where they stood: the springs' stretch was lost, and the slider of
 * tests/stage_anchors.sh, held by 0.3 m g at T/(2ε) = 2.25e-4 m, swung to 6.1e-4 m (past μ_s N/ε =
 * 3.0e-4: it slipped) within 0.02 s of the boundary, 3.8e-4 m off the lgvi rod's run. */
static void carry_sticks(cr_asm_contact *c, int after_statics)
{
    if (!after_statics) return; /* (a dynamic stage's anchors as they are, lt already 0) */
    const int np = cr_asm_contact_find(c, NULL);
    if (np < 0 || grow_nstick(c, np) < 0) { /* (out of memory: anchored afresh) */
        c->stick_count = 0;
        return;
    }
    /* a new list, one record per pair that has one, with the pair's segments (as dynamic_step builds it: a
       pair's record may be a neighbouring segment pair's, stick_of, and c->pair is sorted by (a, b)) */
    int n = 0;
    for (int k = 0; k < np; ++k) {
        const cr_asm_rodpair *p = &c->pair[k];
        if (p->stick < 0) continue;
        rr_stick *st = &c->nstick[n++];
        *st = c->stick[p->stick];
        st->a = p->a, st->b = p->b;
        cr_vec3 X[4];
        const double N = pair_normal(c, p, X);
        double f[12] = {0}, tn, gT[3] = {0, 0, 0}, U[3];
        if (N > 0 && p->cp.dist > 0) {
            (void)friction(c, p, X, N, f, NULL, NULL, &tn, gT, NULL);
            const cr_vec3 d = cr_v3_sub(p->cp.pa, p->cp.pb), nv = cr_v3_scale(d, 1 / p->cp.dist);
            const cr_vec3 lt = cr_v3_load(st->lt), Plt = cr_v3_madd(lt, -cr_v3_dot(nv, lt), nv);
            const double eps = pair_eps(c, p->a, p->b);
            for (int r = 0; r < 3; ++r) U[r] = gT[r] - (r == 0 ? Plt.x : r == 1 ? Plt.y : Plt.z) / eps;
            anchor(c, p, X, U, st); /* (λ_T = 0 in it: dynamics) */
            st->sliding = 0;        /* at rest after statics: a pair at the limit breaks loose by its trial */
        }
        st->lt[0] = st->lt[1] = st->lt[2] = 0.0; /* (no static multiplier: 0 in dynamics) */
    }
    take_new_sticks(c, n);
}

void cr_asm_contact_dynamic_begin(cr_asm_contact *c, int keep)
{
    const int after_statics = c->statics;
    c->dynamic = 1, c->statics = 0;
    if (keep && c->stick_count > 0) { /* a continued stage: the anchors it had (kept in memory, or unpacked) */
        for (int k = 0; k < c->stick_count; ++k) /* (no static multiplier: 0 in dynamics) */
            c->stick[k].lt[0] = c->stick[k].lt[1] = c->stick[k].lt[2] = 0.0;
        return;
    }
    if (!(c->mu_s > 0)) return;
    /* a new stage: the anchors of the stage before carried over (none before the first), the
     * pressing pairs without one anchored where they are */
    if (c->stick_count > 0) {
        c->statics = after_statics; /* (friction() reads the static multipliers: λ_T) */
        carry_sticks(c, after_statics);
        c->statics = 0;
    }
    cr_asm_contact_dynamic_step(c);
}

/* (the anchors stay: a stage continued after an interruption, or the next stage, takes them up again) */
void cr_asm_contact_dynamic_end(cr_asm_contact *c) { c->dynamic = 0; }

/* ---- friction in static stages ---- */

void cr_asm_contact_static_begin(cr_asm_contact *c)
{
    /* after a dynamic stage the anchors are kept (the obstacles' rule, contact.c's
     * cr_contact_begin): a pair sticking at the stage's end is held at the material points it
     * stuck to (its spring's stretch, at most μ_s N/ε, taken back by the multiplier updates; anchored
     * afresh before, a static stage left the slider of tests/stage_anchors.sh 6.1e-4 m from where it
     * stuck), every pair on the stick branch (the updates decide by the trial force). After a static
     * stage, whose equilibrium holds every sticking pair at its anchor, the pairs are anchored
     * afresh where they stand, their multipliers reset: no node moves, and the share of a load
     * between two sticking pairs (statically indeterminate) follows their springs from there, as
     * tests/contact_rods_static_friction.sh's even split of the rails needs. */
    if (c->statics || !(c->mu_s > 0)) c->stick_count = 0;
    for (int k = 0; k < c->stick_count; ++k) c->stick[k].sliding = 0;
    c->dynamic = 0;
    c->statics = c->mu_s > 0;
    /* the pressing pairs without an anchor anchored where they are (one multiplier update) */
    if (c->statics) cr_asm_contact_static_update(c, NULL, NULL);
}

int cr_asm_contact_anchored(const cr_asm_contact *c) { return c->stick_count; }

int cr_asm_contact_static_save(cr_asm_contact *c)
{
    if (c->stick_count > c->saved_cap) {
        rr_stick *m = realloc(c->saved, (size_t)c->stick_count * sizeof *m);
        if (!m) return -1;
        c->saved = m, c->saved_cap = c->stick_count;
    }
    if (c->stick_count) memcpy(c->saved, c->stick, (size_t)c->stick_count * sizeof *c->saved);
    c->saved_count = c->stick_count;
    return 0;
}

void cr_asm_contact_static_restore(cr_asm_contact *c)
{
    /* the saved list and the current one trade places (the updates swap the current list with
     * the scratch one, whose capacity is the last update's pair count: fewer than saved) */
    rr_stick *t = c->stick;
    const int cap = c->stick_cap;
    c->stick = c->saved, c->stick_cap = c->saved_cap, c->stick_count = c->saved_count;
    c->saved = t, c->saved_cap = cap, c->saved_count = 0;
}

int cr_asm_contact_static_update(cr_asm_contact *c, double *drift, int *slipped)
{
    if (drift) *drift = 0;
    if (slipped) *slipped = 0;
    if (!c->statics) return 1;
    const int old = c->stick_count;
    const int np = cr_asm_contact_find(c, NULL);
    if (np < 0 || grow_nstick(c, np) < 0) return -1;
    int n = 0, settled = 1, kept = 0;
    for (int k = 0; k < np; ++k) {
        const cr_asm_rodpair *p = &c->pair[k];
        cr_vec3 X[4];
        const double N = pair_normal(c, p, X);
        double f[12] = {0}, tn, gT[3] = {0, 0, 0}, U[3] = {0, 0, 0};
        rr_stick *st = &c->nstick[n++];
        if (p->stick < 0 || !(N > 0)) { /* touched at this equilibrium: anchored here, no friction yet */
            anchor(c, p, X, U, st);
            st->sliding = 0;
            settled = 0;
            continue;
        }
        ++kept;
        c->updating = 1;
        const int slip = friction(c, p, X, N, f, NULL, NULL, &tn, gT, NULL);
        c->updating = 0;
        *st = c->stick[p->stick];
        st->a = p->a, st->b = p->b;
        /* λ_T ← the friction force on a at the equilibrium (f holds w_0 f_a on a's first node) */
        const double w0 = 1 - p->cp.s;
        double fa[3];
        if (w0 > 0.5)
            for (int r = 0; r < 3; ++r) fa[r] = f[r] / w0;
        else
            for (int r = 0; r < 3; ++r) fa[r] = f[3 + r] / p->cp.s;
        /* the drift: a sticking pair's tangential gap, a sliding one's slip in this update */
        const double g = sqrt(gT[0] * gT[0] + gT[1] * gT[1] + gT[2] * gT[2]);
        if (drift && g > *drift) *drift = g;
        if (slipped && slip && !st->sliding) ++*slipped;
        st->sliding = slip;
        /* the anchors re-based at the surface points in contact now (as contact.rolling's, contact.c):
         * a sliding pair's with no slip left (the incremental slip), a sticking one's with its
         * tangential gap carried over (its force unchanged); without it a rod rolling by φ would
         * keep the material point that touched first, a chord a (φ − sin φ) off the contact */
        anchor(c, p, X, slip ? U : gT, st);
        for (int r = 0; r < 3; ++r) st->lt[r] = fa[r];
    }
    settled &= kept == old; /* (no pair opened: every old anchor found its pair) */
    take_new_sticks(c, n);
    return settled;
}

/* ---- the anchors in checkpoints: a count, then STICK_DOUBLES per anchor ---- */

enum { STICK_DOUBLES = CR_SEG_ANCHOR_DOUBLES }; /* (segments.h: the layout the lgvi rod shares) */

int cr_asm_contact_packed_size(const cr_asm_contact *c)
{
    return c && c->mu_s > 0 ? 1 + STICK_DOUBLES * c->stick_count : 0;
}

void cr_asm_contact_pack(const cr_asm_contact *c, double *out)
{
    if (!(c && c->mu_s > 0)) return;
    *out++ = c->stick_count;
    for (int k = 0; k < c->stick_count; ++k, out += STICK_DOUBLES) {
        const rr_stick *st = &c->stick[k];
        const double v[STICK_DOUBLES] = {st->a,     st->b,     st->sa,    st->sb,    st->ra[0],  st->ra[1],
                                         st->ra[2], st->rb[0], st->rb[1], st->rb[2], st->sliding};
        memcpy(out, v, sizeof v);
    }
}

int cr_asm_contact_unpacked_size(const cr_asm_contact *c, const double *in, long n)
{
    return c && c->mu_s > 0 ? (int)cr_seg_anchors_unpacked_size(in, n, c->segs) : 0;
}

int cr_asm_contact_unpack(cr_asm_contact *c, const double *in)
{
    if (!(c && c->mu_s > 0)) return 0;
    const int n = (int)*in++;
    if (grow_nstick(c, n) < 0) return c->stick_count = 0, -1;
    for (int k = 0; k < n; ++k, in += STICK_DOUBLES) { /* into the scratch list, then swapped in */
        rr_stick *st = &c->nstick[k];
        st->a = (int)in[0], st->b = (int)in[1], st->sa = in[2], st->sb = in[3];
        for (int r = 0; r < 3; ++r) st->ra[r] = in[4 + r], st->rb[r] = in[7 + r], st->lt[r] = 0.0; /* (dynamics) */
        st->sliding = in[10] != 0;
    }
    take_new_sticks(c, n);
    return 0;
}

/* ---- the step limit against tunnelling ---- */

double cr_asm_contact_step_limit(cr_asm_contact *c, const double *y, int stride, int v_offset)
{
    double vmax = 0, lmax = 0;
    for (int g = 0; g < c->nodes; ++g) vmax = fmax(vmax, cr_v3_norm(cr_v3_load(y + (size_t)g * stride + v_offset)));
    if (!(vmax > 0)) return INFINITY;
    cr_asm_contact_gather_y(c, y, stride);
    for (int k = 0; k < c->segs; ++k)
        lmax = fmax(lmax, cr_v3_norm(cr_v3_sub(X_at(c, c->seg_node[k] + 1), X_at(c, c->seg_node[k]))));
    /* pairs not within lmax of each other close at most at 2 vmax */
    double limit = 0.25 * lmax / vmax;
    const int n = candidates(c, lmax);
    for (int k = 0; k < n; ++k) {
        const int ka = c->cand[2 * k], kb = c->cand[2 * k + 1];
        if (!touchable(c, ka, kb)) continue;
        cr_seg_closest cp;
        closest(c, ka, kb, &cp);
        /* the points of the two segments move relative to each other at most as fast as the
         * fastest pair of their nodes (velocities interpolate linearly along a segment) */
        double v = 0;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const double *va = y + (size_t)(c->seg_node[ka] + i) * stride + v_offset,
                             *vb = y + (size_t)(c->seg_node[kb] + j) * stride + v_offset;
                v = fmax(v, cr_v3_norm(cr_v3_sub(cr_v3_load(va), cr_v3_load(vb))));
            }
        if (v * limit > 0.5 * cp.dist) limit = 0.5 * cp.dist / v;
    }
    return limit;
}
