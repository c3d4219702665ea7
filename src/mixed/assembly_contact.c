/* Contact between the rods of an assembly of mixed rods (contact.rods; docs/theory.md §12):
 * segment–segment closest points of segments of different rods, frictionless, the normal force
 * N = max(0, λ − ε g) of the augmented Lagrangian (segments.h), found through the broad phase
 * over all the rods' segments (O(n log n), not n²). The pairs couple nodes of different rods:
 * the static solve takes their stiffness as a low-rank term of the coupled system
 * (assembly_statics.c). */
#include "contact/segments.h"
#include "mixed/assembly_internal.h"

#include <math.h>
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
    double *lo, *hi;
    int *cand, cand_cap;
    cr_asm_rodpair *pair;
    int pair_count, pair_cap;
    cr_asm_rodpair *mult; /* the multipliers kept between the updates (sorted by a, b) */
    int mult_count, mult_cap;
    double *s; /* nodes: the reference arc length in its rod */
    int *link; /* 2 global nodes per joint between two rods' nodes */
    int links;
};

void cr_asm_contact_destroy(cr_asm_contact *c)
{
    if (!c) return;
    free(c->node0), free(c->seg_node), free(c->rod_of), free(c->radius), free(c->eps), free(c->X);
    free(c->lo), free(c->hi), free(c->cand), free(c->pair), free(c->mult);
    free(c->s), free(c->link);
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
int cr_asm_contact_max_updates(const cr_asm_contact *c) { return c->max_updates; }

void cr_asm_contact_gather(cr_asm_contact *c, const cr_assembly *a, const cr_assembly_state *s)
{
    for (int r = 0; r < a->rod_count; ++r)
        for (int i = 0; i < a->models[r]->nodes; ++i)
            cr_v3_store(cr_state_position(s->rods[r], i), c->X + 3 * (size_t)(c->node0[r] + i));
}

void cr_asm_contact_gather_y(cr_asm_contact *c, const double *y, int stride)
{
    for (int g = 0; g < c->nodes; ++g) memcpy(c->X + 3 * (size_t)g, y + (size_t)g * stride, 3 * sizeof(double));
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

/* Rods joined by a joint are neighbours through it, as a rod's own segments are through its
 * material (rodcontact.h): two segments whose arc to the joint's nodes, summed over the two
 * rods, is below π (r_a + r_b)/2 never touch (a joint's two rods would otherwise press on each
 * other at the joint itself). */
static double arc_to(const cr_asm_contact *c, int k, int node)
{
    const int i = c->seg_node[k];
    if (c->rod_of[node] != c->rod_of[i]) return INFINITY;
    if (node == i || node == i + 1) return 0.0;
    return fmin(fabs(c->s[node] - c->s[i]), fabs(c->s[node] - c->s[i + 1]));
}

static int joined(const cr_asm_contact *c, int ka, int kb)
{
    const double reach = 0.5 * M_PI * (seg_radius(c, ka) + seg_radius(c, kb));
    for (int j = 0; j < c->links; ++j) {
        const int na = c->link[2 * j], nb = c->link[2 * j + 1];
        if (arc_to(c, ka, na) + arc_to(c, kb, nb) < reach || arc_to(c, ka, nb) + arc_to(c, kb, na) < reach) return 1;
    }
    return 0;
}

/* A closest point at a segment's end node is also its neighbour's (in the same rod): the pair
 * is kept once, as for one rod's self-contact (rodcontact.c): at the start node the segment
 * before holds it; at the end node it is dropped when the distance decreases onto the next
 * segment (whose interior then holds the closest point). */
static int counted_once(const cr_asm_contact *c, int ka, int kb, const cr_seg_closest *cp)
{
    const cr_vec3 d = cr_v3_sub(cp->pa, cp->pb);
    const int a1 = c->seg_node[ka] + 1, b1 = c->seg_node[kb] + 1;
    if (cp->parallel && ((cp->s <= 0 && !first_seg(c, ka)) || (cp->s >= 1 && !last_seg(c, ka)) ||
                         (cp->t <= 0 && !first_seg(c, kb)) || (cp->t >= 1 && !last_seg(c, kb))))
        return 0;
    if (!cp->s_free && cp->s <= 0 && !first_seg(c, ka)) return 0;
    if (!cp->t_free && cp->t <= 0 && !first_seg(c, kb)) return 0;
    if (!cp->s_free && cp->s >= 1 && !last_seg(c, ka) && cr_v3_dot(d, cr_v3_sub(X_at(c, a1 + 1), X_at(c, a1))) < 0)
        return 0;
    if (!cp->t_free && cp->t >= 1 && !last_seg(c, kb) && cr_v3_dot(d, cr_v3_sub(X_at(c, b1 + 1), X_at(c, b1))) > 0)
        return 0;
    return 1;
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
        if (c->rod_of[c->seg_node[ka]] == c->rod_of[c->seg_node[kb]]) continue; /* the rods' pairs only */
        if (joined(c, ka, kb)) continue;
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
        c->pair[c->pair_count++] = (cr_asm_rodpair){ka, kb, lambda, cp};
    }
    if (c->pair_count) /* sums independent of the hash's order */
        qsort(c->pair, (size_t)c->pair_count, sizeof *c->pair, pair_cmp);
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
        if (c->rod_of[c->seg_node[ka]] == c->rod_of[c->seg_node[kb]] || joined(c, ka, kb)) continue;
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
