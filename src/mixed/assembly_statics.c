/* Statics of an assembly of mixed discrete rods (docs/theory.md, "Assemblies").
 *
 * Why substructuring with the joint nodes' poses as unknowns, and not the rods' own
 * tangents bordered by the joints' multipliers: a rod held only through joints (the
 * second half of a welded cantilever, a finger on a palm) has rigid-body modes, so its
 * tangent alone is singular and cannot be factored to build a Schur complement on the
 * multipliers. Here every node that a joint touches (an interface node) is held by its
 * rod like a clamp at a pose y_i that is an unknown of the coupled system; a rod's
 * tangent with its interface nodes held is regular whenever the rod is held somewhere
 * (cr_assembly_validate refuses a rod held by nothing). Per Newton iteration:
 *
 *   1. each rod assembles its residual F_r and block-tridiagonal tangent K_r with the
 *      interface nodes' rows replaced by identity rows (held), keeping the released
 *      balance rows E_i (6 per interface node) and their Jacobian rows Ê_i;
 *   2. each rod factors K_r once and solves it for 1 + 6 m_r right sides (m_r of its
 *      nodes at joints): u_r = K_r⁻¹F_r and V_r = K_r⁻¹(P Ξ), the response of the rod to
 *      moving each interface node along each of its six increments: O(n_r m_r);
 *   3. the small dense system on the interface increments δy (6 per interface node) and
 *      the joints' multipliers λ (their constraint rows C, k in all):
 *          [ Ê V + H   Cᵀ ] [ δy ]     [ E − Ê u ]
 *          [ C         0  ] [ λ  ] = − [ g       ]
 *      (H = ∂(Cᵀλ)/∂y, the joints' geometric stiffness), solved by LU (assembly_linsys.c):
 *      with free bodies, each rod's interface unknowns and joint rows eliminated onto the
 *      bodies' unknowns (the hub, cr_asm_sys_hub) block by block, O(m + k), at any size
 *      (many rods on one body make the system an arrowhead); otherwise, or where that does
 *      not decide, dense (dgesv, O((6 m + k)³) with m, k the interface nodes and joint rows)
 *      when small, KLU when large;
 *   4. x_r ← x_r − u_r + V_r δy_r, interface nodes by the exponential map.
 *
 * This is Newton's method on the whole system (rods, interface equilibrium E_i + C_iᵀλ =
 * 0, constraints g = 0) with its exact Jacobian, eliminated in O(Σ n_r m_r + (6m + k)³).
 * A redundant set of joints (rows of C dependent: a loop closed by joints alone) makes
 * the dense matrix singular; it is named before the solve (cr_asm_check_redundant). A
 * compliant row (a joint's spring, or any row of a joint not acting in the stage) is
 * k g + λ = 0 instead of g = 0: its row of the dense system is [k C, 1 in λ's column]. */
#define _POSIX_C_SOURCE 199309L
#include "contact/contact.h"
#include "linalg/pool.h"
#include "math/fpmode.h"
#include "mixed/assembly_internal.h"
#include "mixed/assembly_linsys.h"
#include "mixed/mixed.h"
#include "solvers/newton.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct rod_work {
    cr_blocktri *J;
    double *F, *eq, *X, *x_saved, *x_back; /* the state at the step's start, before a chord */
    double *tan, *tan_prev;                /* the path's tangents dx/dlf at this step's start and the last */
    double *from, *to, *scale;             /* load magnitudes: at the solve's start, the stage's, the current ones */
    double bc_from;
    double *erow; /* per interface node of the rod: its 6 released balance rows, 3 blocks of 6 × B */
    /* the position correction's: force rows (3 per node), their position Jacobian, the
     * right sides (1 + 3m) and the interface nodes' released rows (3 blocks of 3 × 3) */
    cr_blocktri *Jf;
    double *Ff, *Xf, *erowf;
    int ncols, m;
    /* the rod's one interface node is its last node and the LU is block Thomas: V is needed
     * only at the last two block rows (see tail_view), the update takes one more solve */
    int tail;
    double Vt[6 * 2 * CR_MAX_BLOCK];
    double Vtf[3 * 2 * 3];                   /* the same for the position correction (3 columns of 3 × 3 blocks) */
    double Yt[2 * CR_MAX_BLOCK], Ytf[2 * 3]; /* the residual column's last two block rows (tail_residual) */
    /* the coupled system's block of the rod's interface nodes (Ê V, 6m × 6m column-major; the
     * position correction's, 3m × 3m): written by the rod's task, added in the rods' order */
    double *EV, *EVf;
    size_t dim;
    double *Wc; /* contact.rods: K⁻¹ U for every contact column (dim × 3 cm; zero for other rods') */
    size_t wc_cap;
    /* a task's results (evaluate_rod, update_rod): status, sums of squares, singular node */
    cr_status st;
    double sum, scale_sum;
    size_t cnt, scale_count;
    int bad;
} rod_work;

/* The last two block rows of a factored block-tridiagonal J as a 2-block matrix of its
 * own: a right side that is zero above the last block row stays zero through the forward
 * sweep of the block LU (each row's y depends only on the rows above), so solving the view
 * gives the solution's last two block rows exactly, in O(1) instead of O(n). */
static int last_rows_view(const cr_blocktri *J, int k, cr_blocktri *v)
{
    if (J->banded || J->n < 2 || !J->factored) return 0;
    *v = *J;
    const size_t o = (size_t)(J->n - k) * J->b * J->b;
    v->n = k, v->diag += o, v->lower += o, v->upper += o, v->pivot += (size_t)(J->n - k) * J->b;
    return 1;
}
static int tail_view(const cr_blocktri *J, cr_blocktri *v) { return last_rows_view(J, 2, v); }

/* The tail path's residual column and step (update_rod and update; correct_rod and
 * correct_positions): the residual's forward sweep y = forward(u) is kept and only the
 * last two block rows are swept back (all that Ê needs: yt); the step K⁻¹ (u − P δ) then
 * takes the forward sweep of P δ, which is on the last block row only (its D̃⁻¹ P δ), off
 * y's last row and one backward sweep: one solve for the step instead of two. */
static void tail_residual(const cr_blocktri *J, const cr_blocktri *view, double *y, double *yt)
{
    const size_t b = (size_t)J->b;
    cr_blocktri_solve_forward(J, y);
    memcpy(yt, y + (size_t)(J->n - 2) * b, 2 * b * sizeof *yt);
    cr_blocktri_solve_backward(view, yt);
}
/* y (tail_residual's) becomes K⁻¹ (u − P δ); pd: P δ on the last block row (overwritten) */
static void tail_step(const cr_blocktri *J, double *y, double *pd)
{
    const size_t b = (size_t)J->b;
    cr_blocktri last;
    last_rows_view(J, 1, &last);
    cr_blocktri_solve_forward(&last, pd);
    double *yl = y + (size_t)(J->n - 1) * b;
    for (size_t c = 0; c < b; ++c) yl[c] -= pd[c];
    cr_blocktri_solve_backward(J, y);
}

typedef struct asm_work {
    const cr_assembly *a;
    cr_assembly_state *s;
    rod_work *rw;
    double *E;         /* released balance rows of the interface nodes (6 each) */
    double *g, *C, *H; /* per joint: rows, rows × 12, 12 × 12 (at the joint's offsets) */
    /* per support on a joint node (cr_asm_support): its rows' g (at row0 − a->rows), C (6 per
     * row), H (36 per support); nl: the multipliers (joints' and supports' rows) */
    double *gs, *Cs, *Hs;
    int nl;
    double *rhs, *lambda_saved, *lambda_tan, *lambda_tan_prev;
    cr_asm_sys *sys, *sysc; /* the coupled system (update) and the position correction's */
    int N;
    double joint_from, joint_f;
    /* round-off scale of the residual: RMS over the rods' rows of Σ_c |J_rc| |x_c| (as
     * newton.c's residual_scale), from the first evaluation of a solve; 0 = not yet */
    double roundoff_scale;
    double t_assembly, t_solve;
    int stage; /* the rods' loads and supports of this stage */
    /* free bodies (assembly_bodies.c): their loads' factors (at the solve's start, the
     * stage's, the current ones), the Jacobians of their wrenches (36 per body), their states
     * before the step and at the two converged steps before (13 per body) */
    double *bfrom, *bto, *bscale, *dEb, *body_saved, *body_tan, *body_tan_prev;
    /* chord: update() with the rods' last factorizations (not factored again); lu_converged:
     * they are those of the last converged step's last update (tangent_predict) */
    int chord, lu_converged;
    double *lambda_back, *body_back; /* the state before a chord (save_state) */
    /* contact.rods (assembly_contact.c): the nodes the pressing pairs touch (cm, their global
     * numbers cgl, slots cslot per global node), the pairs' forces (3 per node, I), their
     * stiffness C (3cm × 3cm, row-major) coupling the nodes' positions across the rods, the
     * row map Pn (3 × 3 per node: the rows of its rod the force enters, a support's free
     * directions) and the node's interface (−1: none); the dense system grows by the 3cm
     * force increments w = C δx (capacity ncap unknowns). With friction between the rods
     * (contact.rods_friction) it acts at the contact points: rq = 6 rows a node (the force, then
     * the moment in the node's basis, entering its moment rows through Pm: 3 × 3 a node, 0 where
     * a support holds a rotation) and cq = 7 columns (r, p); else rq = cq = 3 as described */
    int cm, cm_cap, ncap, rq, cq;
    int *cgl, *cslot, *ciface;
    double *Cc, *fc, *Pn, *Pm, *crow; /* crow: a row of C W (contact_dense_rows) */
    /* the nodes' own blocks of C moved into their rod's tangent (rq × cq per node; 0 where not
     * moved): a rod that only the contact holds in some direction (a slider lying on rails) has
     * a singular tangent without them, and K_r⁻¹ U is then round-off's */
    double *Cself;
    cr_pool *pool; /* the rods' threads (NULL: one): step 1 and 2 rod by rod */
} asm_work;

static void free_work(asm_work *w)
{
    cr_pool_destroy(w->pool);
    w->pool = NULL;
    if (w->rw)
        for (int r = 0; r < w->a->rod_count; ++r) {
            rod_work *rw = &w->rw[r];
            cr_blocktri_destroy(rw->J);
            free(rw->F), free(rw->eq), free(rw->X), free(rw->x_saved), free(rw->x_back), free(rw->tan),
                free(rw->tan_prev), free(rw->from), free(rw->to), free(rw->scale);
            free(rw->erow);
            cr_blocktri_destroy(rw->Jf);
            free(rw->Ff), free(rw->Xf), free(rw->erowf);
            free(rw->Wc);
            free(rw->EV), free(rw->EVf);
        }
    free(w->rw);
    free(w->bfrom), free(w->bto), free(w->bscale), free(w->dEb), free(w->body_saved), free(w->body_tan),
        free(w->body_tan_prev);
    free(w->gs), free(w->Cs), free(w->Hs);
    free(w->E), free(w->g), free(w->C), free(w->H), free(w->rhs), free(w->lambda_saved), free(w->lambda_tan),
        free(w->lambda_tan_prev), free(w->lambda_back), free(w->body_back);
    cr_asm_sys_destroy(w->sys), cr_asm_sys_destroy(w->sysc);
    w->sys = w->sysc = NULL;
    free(w->cgl), free(w->cslot), free(w->ciface), free(w->Cc), free(w->fc), free(w->Pn), free(w->Pm), free(w->crow),
        free(w->Cself);
}

static int alloc_work(asm_work *w)
{
    const cr_assembly *a = w->a;
    w->rw = calloc(a->rod_count, sizeof *w->rw);
    w->nl = a->rows + a->support_rows;
    int ni = a->iface_count, nj = a->joint_count > 0 ? a->joint_count : 1, rows = w->nl > 0 ? w->nl : 1;
    w->N = 6 * ni + w->nl;
    w->gs = calloc(a->support_rows > 0 ? (size_t)a->support_rows : 1, sizeof *w->gs);
    w->Cs = calloc(a->support_rows > 0 ? (size_t)a->support_rows * 6 : 1, sizeof *w->Cs);
    w->Hs = calloc(a->support_count > 0 ? (size_t)a->support_count * 36 : 1, sizeof *w->Hs);
    if (!w->gs || !w->Cs || !w->Hs) return 0;
    int N = w->N > 0 ? w->N : 1;
    w->ncap = N;
    if (a->contact) {
        w->cslot = malloc((size_t)cr_asm_contact_nodes(a->contact) * sizeof *w->cslot);
        if (!w->cslot) return 0;
        for (int i = 0; i < cr_asm_contact_nodes(a->contact); ++i) w->cslot[i] = -1;
    }
    w->E = calloc((size_t)6 * (ni > 0 ? ni : 1), sizeof *w->E);
    w->g = calloc(rows, sizeof *w->g);
    w->C = calloc((size_t)rows * 12, sizeof *w->C);
    w->H = calloc((size_t)nj * 144, sizeof *w->H);
    w->sys = cr_asm_sys_create(), w->sysc = cr_asm_sys_create();
    w->rhs = calloc(N, sizeof *w->rhs);
    w->lambda_saved = calloc(rows, sizeof *w->lambda_saved);
    w->lambda_tan = calloc(rows, sizeof *w->lambda_tan);
    w->lambda_tan_prev = calloc(rows, sizeof *w->lambda_tan_prev);
    w->lambda_back = calloc(rows, sizeof *w->lambda_back);
    if (!w->rw || !w->E || !w->g || !w->C || !w->H || !w->sys || !w->sysc || !w->rhs || !w->lambda_saved ||
        !w->lambda_tan || !w->lambda_tan_prev || !w->lambda_back)
        return 0;
    {
        const size_t nbl = a->body_load_count > 0 ? (size_t)a->body_load_count : 1,
                     nb = a->body_count > 0 ? (size_t)a->body_count : 1;
        w->bfrom = calloc(nbl, sizeof(double)), w->bto = calloc(nbl, sizeof(double));
        w->bscale = calloc(nbl, sizeof(double)), w->dEb = calloc(36 * nb, sizeof(double));
        w->body_saved = calloc(CR_ASM_BODY_DOF * nb, sizeof(double));
        w->body_tan = calloc(CR_ASM_BODY_DOF * nb, sizeof(double));
        w->body_tan_prev = calloc(CR_ASM_BODY_DOF * nb, sizeof(double));
        w->body_back = calloc(CR_ASM_BODY_DOF * nb, sizeof(double));
        if (!w->bfrom || !w->bto || !w->bscale || !w->dEb || !w->body_saved || !w->body_tan || !w->body_tan_prev ||
            !w->body_back)
            return 0;
    }
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        rod_work *rw = &w->rw[r];
        int nl = m->load_count > 0 ? m->load_count : 1;
        rw->m = a->rod_iface_start[r + 1] - a->rod_iface_start[r];
        rw->ncols = 1 + 6 * rw->m;
        /* (contact.rods: the contact columns need V at the contact nodes too) */
        rw->tail = rw->m == 1 && m->rigid_count == 0 && m->nodes >= 2 && !a->contact &&
                   a->iface[a->rod_iface[a->rod_iface_start[r]]].node == m->nodes - 1;
        if (rw->tail) rw->ncols = 2; /* u, then the update's right side */
        rw->dim = (size_t)m->nodes * m->block;
        rw->J =
            m->rigid_count > 0 ? cr_blocktri_create_banded(m->nodes, m->block) : cr_blocktri_create(m->nodes, m->block);
        rw->F = malloc(rw->dim * sizeof *rw->F);
        rw->eq = malloc((size_t)m->nodes * 6 * sizeof *rw->eq);
        rw->X = malloc(rw->dim * rw->ncols * sizeof *rw->X);
        rw->x_saved = malloc(rw->dim * sizeof *rw->x_saved);
        rw->tan = calloc(rw->dim, sizeof *rw->tan);
        rw->x_back = malloc(rw->dim * sizeof *rw->x_back);
        rw->tan_prev = calloc(rw->dim, sizeof *rw->tan_prev);
        rw->from = malloc(nl * sizeof *rw->from);
        rw->to = malloc(nl * sizeof *rw->to);
        rw->scale = malloc(nl * sizeof *rw->scale);
        rw->erow = calloc((size_t)(rw->m > 0 ? rw->m : 1) * 3 * 6 * m->block, sizeof *rw->erow);
        rw->Jf = cr_blocktri_create(m->nodes, 3);
        rw->Ff = malloc((size_t)m->nodes * 3 * sizeof *rw->Ff);
        rw->Xf = malloc((size_t)m->nodes * 3 * (1 + 3 * rw->m) * sizeof *rw->Xf);
        rw->erowf = calloc((size_t)(rw->m > 0 ? rw->m : 1) * 27, sizeof *rw->erowf);
        rw->EV = malloc((size_t)(rw->m > 0 ? (size_t)36 * rw->m * rw->m : 1) * sizeof *rw->EV);
        rw->EVf = malloc((size_t)(rw->m > 0 ? (size_t)9 * rw->m * rw->m : 1) * sizeof *rw->EVf);
        if (!rw->Jf || !rw->Ff || !rw->Xf || !rw->erowf || !rw->EV || !rw->EVf) return 0;
        if (!rw->J || !rw->F || !rw->eq || !rw->X || !rw->x_saved || !rw->x_back || !rw->tan || !rw->tan_prev ||
            !rw->from || !rw->to || !rw->scale || !rw->erow)
            return 0;
    }
    return 1;
}

/* the pose of interface node i (a free body's: its centre and frame) */
static cr_vec3 iface_r(const asm_work *w, int i)
{
    cr_vec3 r;
    cr_quat p;
    cr_asm_iface_pose(w->a, w->s, i, &r, &p);
    return r;
}
static cr_quat iface_p(const asm_work *w, int i)
{
    cr_vec3 r;
    cr_quat p;
    cr_asm_iface_pose(w->a, w->s, i, &r, &p);
    return p;
}

/* the bodies' size of their state (13 each) */
static size_t body_bytes(const cr_assembly *a) { return (size_t)CR_ASM_BODY_DOF * a->body_count * sizeof(double); }

static double sq(double v) { return v * v; }

/* Row r of joint j's equation at the last evaluation: g, or a compliant row's k g + λ (a
 * spring's, statics: no rates; a joint not acting in the stage: λ). */
static double joint_row_residual(const asm_work *w, const cr_asm_joint *j, int r)
{
    double k, gk;
    if (cr_asm_row_law(j, w->s, w->stage, r, w->g[j->row0 + r], &k, NULL, &gk, NULL))
        return k * gk + w->s->lambda[j->row0 + r];
    return w->g[j->row0 + r];
}

/* contact.rods: the pairs pressing at the state, their forces and stiffness gathered on the
 * nodes they touch (asm_work's contact fields); the dense system's capacity grown to hold the
 * contact unknowns. CR_NO_MEMORY. */
static cr_status contact_eval(asm_work *w)
{
    const cr_assembly *a = w->a;
    cr_asm_contact *c = a->contact;
    for (int q = 0; q < w->cm; ++q) w->cslot[w->cgl[q]] = -1;
    w->cm = 0;
    if (!c) return CR_OK;
    cr_asm_contact_gather(c, a, w->s);
    const int np = cr_asm_contact_find(c, NULL);
    if (np < 0) return CR_NO_MEMORY;
    const int fric = cr_asm_contact_frictional(c), RQ = fric ? 6 : 3, CQ = fric ? 7 : 3;
    w->rq = RQ, w->cq = CQ;
    if (4 * np > w->cm_cap) { /* (sized for rq = 6, cq = 7) */
        const int cap = 4 * np;
        int *cgl = realloc(w->cgl, (size_t)cap * sizeof *cgl), *cif = realloc(w->ciface, (size_t)cap * sizeof *cif);
        if (cgl) w->cgl = cgl;
        if (cif) w->ciface = cif;
        double *Cc = realloc(w->Cc, (size_t)42 * cap * cap * sizeof *Cc),
               *fc = realloc(w->fc, (size_t)6 * cap * sizeof *fc), *Pn = realloc(w->Pn, (size_t)9 * cap * sizeof *Pn),
               *Pm = realloc(w->Pm, (size_t)9 * cap * sizeof *Pm),
               *crow = realloc(w->crow, (size_t)6 * cap * sizeof *crow),
               *Cself = realloc(w->Cself, (size_t)42 * cap * sizeof *Cself);
        if (Cself) w->Cself = Cself;
        if (Cc) w->Cc = Cc;
        if (fc) w->fc = fc;
        if (Pn) w->Pn = Pn;
        if (Pm) w->Pm = Pm;
        if (crow) w->crow = crow;
        if (!cgl || !cif || !Cc || !fc || !Pn || !Pm || !crow || !Cself) return CR_NO_MEMORY;
        w->cm_cap = cap;
    }
    int nodes[4];
    for (int k = 0; k < np; ++k) { /* the slots first: C's leading dimension is 3 cm */
        cr_asm_contact_pair_force(c, k, nodes, NULL, NULL);
        for (int q = 0; q < 4; ++q)
            if (w->cslot[nodes[q]] < 0) w->cslot[nodes[q]] = w->cm, w->cgl[w->cm++] = nodes[q];
    }
    const int kr = RQ * w->cm, kc = CQ * w->cm;
    memset(w->Cc, 0, (size_t)kr * kc * sizeof *w->Cc);
    memset(w->fc, 0, (size_t)kr * sizeof *w->fc);
    for (int k = 0; k < np; ++k) {
        double f[24], K[24 * 28]; /* (frictionless: 12 and 12 × 12) */
        if (fric)
            cr_asm_contact_pair_wrench(c, k, nodes, f, K); /* at the contact points, with the moments */
        else
            cr_asm_contact_pair_force(c, k, nodes, f, K);
        const int fr = fric ? 6 : 3, fcols = fric ? 28 : 12;
        for (int q = 0; q < 4; ++q) {
            const int sq = w->cslot[nodes[q]];
            for (int r = 0; r < RQ; ++r) {
                w->fc[RQ * sq + r] += f[fr * q + r];
                for (int p = 0; p < 4; ++p)
                    for (int e = 0; e < CQ; ++e)
                        w->Cc[(size_t)(RQ * sq + r) * kc + CQ * w->cslot[nodes[p]] + e] +=
                            K[(fr * q + r) * fcols + CQ * p + e];
            }
        }
    }
    /* a node's row map: identity; a support's held directions drop out (their rows are the
     * constraint's), its free ones are the rows d_aᵀ (statics_residual.c, the supports' rows);
     * an interface node's force goes to its released balance rows instead (ciface) */
    for (int q = 0; q < w->cm; ++q) {
        int n;
        const int r = cr_asm_contact_rod_of(c, w->cgl[q], &n);
        const cr_model *m = a->models[r];
        double *P = w->Pn + 9 * q, *Pm = w->Pm + 9 * q;
        for (int e = 0; e < 9; ++e) P[e] = Pm[e] = e % 4 == 0 ? 1.0 : 0.0;
        w->ciface[q] = -1;
        for (int j = a->rod_iface_start[r]; j < a->rod_iface_start[r + 1]; ++j)
            if (a->iface[a->rod_iface[j]].node == n) w->ciface[q] = a->rod_iface[j];
        for (int k = 0; k < m->support_count; ++k) {
            const cr_support *sp = &m->supports[k];
            const unsigned h = sp->hold & CR_HOLD_TRANSLATION;
            if (sp->node != n || !cr_support_active(sp, w->stage)) continue;
            /* a held rotation: the moment rows are the support's (its reaction takes the
             * friction's moment; exact when all three are held) */
            if (sp->hold & CR_HOLD_ROTATION)
                for (int e = 0; e < 9; ++e) Pm[e] = 0.0;
            if (!h) continue;
            for (int row = 0; row < 3; ++row)
                for (int e = 0; e < 3; ++e) P[3 * row + e] = h & (1u << row) ? 0.0 : sp->axes.m[e][row];
        }
        /* a node whose force enters its own rows as it is (no support's map, no interface):
         * its own block of C goes into its rod's tangent (evaluate_rod), the rest stays here */
        int plain = w->ciface[q] < 0;
        for (int e = 0; e < 9; ++e) plain &= P[e] == (e % 4 == 0 ? 1.0 : 0.0) && (RQ == 3 || Pm[e] == P[e]);
        for (int row = 0; row < RQ; ++row)
            for (int e = 0; e < CQ; ++e) {
                double *cb = w->Cc + (size_t)(RQ * q + row) * kc + CQ * q + e;
                w->Cself[RQ * CQ * q + CQ * row + e] = plain ? *cb : 0.0;
                if (plain) *cb = 0.0;
            }
    }
    const int need = w->N + kr;
    if (need > w->ncap) { /* the right side with the contact unknowns */
        free(w->rhs);
        w->rhs = calloc((size_t)need, sizeof *w->rhs);
        if (!w->rhs) return CR_NO_MEMORY;
        w->ncap = need;
    }
    for (int r = 0; r < a->rod_count; ++r) {
        rod_work *rw = &w->rw[r];
        const size_t size = rw->dim * (size_t)(kr > 0 ? kr : 1);
        if (size > rw->wc_cap) {
            free(rw->Wc);
            if (!(rw->Wc = malloc(size * sizeof *rw->Wc))) return CR_NO_MEMORY;
            rw->wc_cap = size;
        }
    }
    return CR_OK;
}

/* contact.rods: the contact forces on rod r's rows F (through the row map) and its balance
 * rows eq (an interface node's released rows, the reactions' rows) */
static void contact_rows(const asm_work *w, int r, double *F, double *eq)
{
    const int B = w->a->models[r]->block;
    for (int q = 0; q < w->cm; ++q) {
        int n;
        if (cr_asm_contact_rod_of(w->a->contact, w->cgl[q], &n) != r) continue;
        for (int part = 0; part < w->rq / 3; ++part) { /* the force, then the moment (friction) */
            const double *f = w->fc + w->rq * q + 3 * part, *P = (part ? w->Pm : w->Pn) + 9 * q;
            for (int row = 0; row < 3; ++row) {
                eq[(size_t)6 * n + 3 * part + row] += f[row];
                F[(size_t)n * B + 3 * part + row] += P[3 * row] * f[0] + P[3 * row + 1] * f[1] + P[3 * row + 2] * f[2];
            }
        }
    }
}

/* A task of the rods' pool (evaluate_rod, correct_rod): the work, the load factor, and the
 * task's flag (evaluate_rod: with the tangent; correct_rod: the dense system's size) */
typedef struct rod_task {
    asm_work *w;
    double lf;
    int flag;
} rod_task;

/* Rod r's loads at load factor lf (into rw->scale) and its supports' ramp */
static cr_supports_at rod_loads_at(asm_work *w, int r, double lf)
{
    const cr_model *m = w->a->models[r];
    rod_work *rw = &w->rw[r];
    for (int k = 0; k < m->load_count; ++k) rw->scale[k] = rw->from[k] + lf * (rw->to[k] - rw->from[k]);
    return (cr_supports_at){.stage = w->stage,
                            .ramp = rw->bc_from + lf * (1.0 - rw->bc_from),
                            .t = w->s->rods[r]->time,
                            .from = NULL,
                            .from_blend = 1.0};
}

/* Support sp's target at load factor lf (its rod's supports' ramp, the state's time); 0 when
 * it does not act in the stage. */
static int support_target(asm_work *w, const cr_asm_support *sp, double lf, cr_vec3 *rt, cr_quat *pt)
{
    const cr_model *m = w->a->models[sp->rod];
    if (!cr_support_active(&m->supports[sp->k], w->stage)) return 0;
    if (!rt) return 1;
    const rod_work *rw = &w->rw[sp->rod];
    const cr_supports_at at = {.stage = w->stage,
                               .ramp = rw->bc_from + lf * (1.0 - rw->bc_from),
                               .t = w->s->rods[sp->rod]->time,
                               .from = NULL,
                               .from_blend = 1.0};
    cr_support_target(m, sp->k, &at, rt, pt, NULL, NULL, NULL, NULL);
    return 1;
}

/* Support sp's rows at the state: g, C (rows × 6) and, with `jacobian`, H at its multipliers */
static void support_eval(asm_work *w, const cr_asm_support *sp, double lf, int jacobian, double *g, double *C,
                         double *H)
{
    cr_vec3 rt;
    cr_quat pt;
    support_target(w, sp, lf, &rt, &pt);
    cr_asm_support_eval(w->a, sp, iface_r(w, sp->iface), iface_p(w, sp->iface), rt, pt, w->s->lambda + sp->row0, g, C,
                        jacobian ? H : NULL);
}

/* Step 1 for rod r (a task of the rods' pool: it writes its own rod_work and the released
 * rows E of its own interface nodes): residual, tangent (with `jacobian`), interface rows
 * held; its sums of squares in rw->sum and rw->scale_sum, its status in rw->st. */
static void evaluate_rod(void *arg, int r)
{
    const rod_task *et = arg;
    asm_work *w = et->w;
    const double lf = et->lf;
    const int jacobian = et->flag;
    const cr_assembly *a = w->a;
    const cr_model *m = a->models[r];
    rod_work *rw = &w->rw[r];
    const int B = m->block;
    const cr_state *st = w->s->rods[r];
    const cr_supports_at at = rod_loads_at(w, r, lf);
    rw->sum = rw->scale_sum = 0, rw->cnt = rw->scale_count = 0;
    /* without the supports on its joint nodes (their rows are the coupled system's) */
    rw->st = cr_mixed_static_residual(a->smodels[r], &at, rw->scale, st->x, rw->F, jacobian ? rw->J : NULL, rw->eq);
    if (rw->st != CR_OK) return;
    if (w->cm > 0) contact_rows(w, r, rw->F, rw->eq);
    for (int q = 0; q < w->cm && jacobian; ++q) { /* the contact nodes' own stiffness (contact_eval) */
        int n;
        if (cr_asm_contact_rod_of(a->contact, w->cgl[q], &n) != r) continue;
        double *D = cr_blocktri_D(rw->J, n);
        for (int row = 0; row < w->rq; ++row)
            for (int e = 0; e < w->cq; ++e) D[row * B + e] += w->Cself[w->rq * w->cq * q + w->cq * row + e];
    }
    if (jacobian && w->roundoff_scale == 0) /* a pass over J, as costly as its LU: once per solve */
        for (int i = 0; i < m->nodes; ++i)
            for (int row = 0; row < B; ++row) {
                double t = 0;
                for (int b = 0; b < 3; ++b) {
                    int nb = i - 1 + b;
                    if (nb < 0 || nb >= m->nodes) continue;
                    const double *M = (b == 0   ? cr_blocktri_L(rw->J, i)
                                       : b == 1 ? cr_blocktri_D(rw->J, i)
                                                : cr_blocktri_U(rw->J, i)) +
                                      (size_t)row * B;
                    for (int c = 0; c < B; ++c) t += fabs(M[c]) * fabs(st->x[(size_t)nb * B + c]);
                }
                rw->scale_sum += t * t, ++rw->scale_count;
            }
    for (int q = 0; q < rw->m; ++q) {
        int i = a->rod_iface[a->rod_iface_start[r] + q], n = a->iface[i].node;
        memcpy(w->E + 6 * i, rw->eq + (size_t)6 * n, 6 * sizeof(double));
        /* keep the released rows 0..5 (their Jacobian: the interface equilibrium's), then
         * hold the node: identity rows 0..6 (r and p are the interface unknowns) */
        double *er = rw->erow + (size_t)q * 3 * 6 * B;
        for (int b = 0; b < 3 && jacobian; ++b) {
            int nb = n - 1 + b;
            if (nb < 0 || nb >= m->nodes) continue;
            double *blk = b == 0 ? cr_blocktri_L(rw->J, n) : b == 1 ? cr_blocktri_D(rw->J, n) : cr_blocktri_U(rw->J, n);
            memcpy(er + (size_t)b * 6 * B, blk, (size_t)6 * B * sizeof(double));
        }
        if (jacobian) cr_blocktri_reset_rows(rw->J, n, CR_NODE_DOF, 1);
        for (int c = 0; c < CR_NODE_DOF; ++c) rw->F[(size_t)n * B + c] = 0.0;
    }
    for (size_t k = 0; k < rw->dim; ++k) rw->sum += rw->F[k] * rw->F[k];
    rw->cnt = rw->dim - (size_t)CR_NODE_DOF * rw->m;
}

/* Residuals and tangents at load factor lf (step 1 and the joints' rows); returns the sum
 * of squares of the whole residual (rods, interface equilibrium, constraints) in *ss. */
static cr_status evaluate(asm_work *w, double lf, int jacobian, double *ss, size_t *count)
{
    const cr_assembly *a = w->a;
    double t0 = now(), sum = 0, scale_sum = 0;
    size_t cnt = 0, scale_count = 0;
    if (contact_eval(w) != CR_OK) return CR_NO_MEMORY;
    rod_task et = {w, lf, jacobian};
    cr_pool_run(w->pool, a->rod_count, evaluate_rod, &et);
    for (int r = 0; r < a->rod_count; ++r) { /* in the rods' order: the sums do not depend on the threads */
        const rod_work *rw = &w->rw[r];
        if (rw->st != CR_OK) return rw->st;
        sum += rw->sum, cnt += rw->cnt, scale_sum += rw->scale_sum, scale_count += rw->scale_count;
    }
    /* free bodies: their loads' wrench and its Jacobian are their interface rows */
    for (int k = 0; k < a->body_load_count; ++k) w->bscale[k] = w->bfrom[k] + lf * (w->bto[k] - w->bfrom[k]);
    for (int b = 0; b < a->body_count; ++b)
        cr_asm_body_wrench(a, b, w->s->body + (size_t)CR_ASM_BODY_DOF * b, w->bscale, w->E + 6 * a->bodies[b].iface,
                           w->dEb + 36 * b);
    /* joints: g, C, H; interface equilibrium E_i + (Cᵀλ)_i */
    double R[6 * 64], *Rv = a->iface_count <= 64 ? R : calloc((size_t)6 * a->iface_count, sizeof *Rv);
    if (!Rv) return CR_NO_MEMORY;
    memcpy(Rv, w->E, (size_t)6 * a->iface_count * sizeof *Rv);
    for (int k = 0; k < a->joint_count; ++k) {
        const cr_asm_joint *j = &a->joints[k];
        double *C = w->C + (size_t)j->row0 * 12, *l = w->s->lambda + j->row0;
        cr_asm_joint_eval_iface(j, w->joint_f, NULL, iface_r(w, j->iface[0]), iface_p(w, j->iface[0]),
                                iface_r(w, j->iface[1]), iface_p(w, j->iface[1]), l, w->g + j->row0, C,
                                jacobian ? w->H + (size_t)k * 144 : NULL); /* H: the tangent's only */
        for (int e = 0; e < 2; ++e)
            for (int c = 0; c < 6; ++c)
                for (int r = 0; r < j->rows; ++r) Rv[6 * j->iface[e] + c] += C[r * 12 + 6 * e + c] * l[r];
        for (int r = 0; r < j->rows; ++r) sum += sq(joint_row_residual(w, j, r));
        cnt += j->rows;
    }
    for (int k = 0; k < a->support_count; ++k) { /* supports on joint nodes: their rows and reactions */
        const cr_asm_support *sp = &a->supports[k];
        const int q0 = sp->row0 - a->rows;
        double *l = w->s->lambda + sp->row0;
        if (!support_target(w, sp, lf, NULL, NULL)) { /* not in this stage: λ = 0 */
            for (int r = 0; r < sp->rows; ++r) sum += sq(l[r]);
            cnt += sp->rows;
            continue;
        }
        support_eval(w, sp, lf, jacobian, w->gs + q0, w->Cs + (size_t)6 * q0, w->Hs + (size_t)36 * k);
        for (int r = 0; r < sp->rows; ++r) {
            for (int c = 0; c < 6; ++c) Rv[6 * sp->iface + c] += w->Cs[(size_t)6 * (q0 + r) + c] * l[r];
            sum += sq(w->gs[q0 + r]);
        }
        cnt += sp->rows;
    }
    for (int k = 0; k < 6 * a->iface_count; ++k) sum += Rv[k] * Rv[k];
    cnt += (size_t)6 * a->iface_count;
    if (Rv != R) free(Rv);
    if (w->roundoff_scale == 0 && scale_count > 0)
        w->roundoff_scale = fmax(sqrt(scale_sum / (double)scale_count), DBL_MIN);
    w->t_assembly += now() - t0;
    *ss = sum, *count = cnt;
    return isfinite(sum) ? CR_OK : CR_NONFINITE;
}

/* Ξ(p) = ½ [−p_vᵀ; p0 E + p_v~]: δp = Ξ δθ for p ← p ⊗ exp(δθ/2) */
static void xi_matrix(cr_quat p, double Xi[4][3])
{
    const double v[4][3] = {{-p.x, -p.y, -p.z}, {p.w, -p.z, p.y}, {p.z, p.w, -p.x}, {-p.y, p.x, p.w}};
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 3; ++c) Xi[r][c] = 0.5 * v[r][c];
}

/* contact.rods, in step 2 and 3: the columns W = K_r⁻¹ U of rod r (U: a unit force on a
 * contact node's rows, through its row map; zero at an interface node, whose force goes to its
 * released rows) and their part in the interface rows, −Ê W + U (the force increments w = C δx
 * are unknowns of the coupled system, after the joints' multipliers) */
static void contact_columns(asm_work *w, int r)
{
    const cr_assembly *a = w->a;
    const cr_model *m = a->models[r];
    rod_work *rw = &w->rw[r];
    const int B = m->block, RQ = w->rq, k3 = RQ * w->cm;
    memset(rw->Wc, 0, rw->dim * k3 * sizeof *rw->Wc);
    for (int q = 0; q < w->cm; ++q) {
        int n;
        if (cr_asm_contact_rod_of(a->contact, w->cgl[q], &n) != r || w->ciface[q] >= 0) continue;
        for (int c = 0; c < RQ; ++c) { /* a unit force (c < 3) or moment through its row map */
            double *col = rw->Wc + rw->dim * (RQ * q + c);
            const double *P = (c < 3 ? w->Pn : w->Pm) + 9 * q;
            for (int row = 0; row < 3; ++row) col[(size_t)n * B + 3 * (c / 3) + row] = P[3 * row + c % 3];
            cr_blocktri_solve(rw->J, col);
        }
    }
    for (int qq = 0; qq < rw->m; ++qq) {
        const int i = a->rod_iface[a->rod_iface_start[r] + qq], n = a->iface[i].node;
        const double *er = rw->erow + (size_t)qq * 3 * 6 * B;
        for (int j = 0; j < k3; ++j) {
            const double *xc = rw->Wc + rw->dim * j;
            for (int b = 0; b < 3; ++b) {
                const int nb = n - 1 + b;
                if (nb < 0 || nb >= m->nodes) continue;
                for (int row = 0; row < 6; ++row) {
                    const double *e = er + ((size_t)b * 6 + row) * B;
                    double v = 0;
                    for (int c = 0; c < B; ++c) v += e[c] * xc[(size_t)nb * B + c];
                    cr_asm_sys_add(w->sys, 6 * i + row, w->N + j, -v);
                }
            }
        }
    }
    for (int q = 0; q < w->cm; ++q)
        if (w->ciface[q] >= 0 && a->iface[w->ciface[q]].rod == r)
            for (int c = 0; c < RQ; ++c) cr_asm_sys_add(w->sys, 6 * w->ciface[q] + c, w->N + RQ * q + c, 1.0);
}

/* contact.rods, the contact rows of the dense system: w = C δx at the contact nodes with
 * δx = −u + V δy − W w (step 4), i.e. (E + C W) w − C V δy = −C u */
static void contact_dense_rows(asm_work *w, double *rhs)
{
    const cr_assembly *a = w->a;
    const int k3 = w->rq * w->cm, ncol = w->cq * w->cm;
    for (int j = 0; j < k3; ++j) {
        const int R = w->N + j;
        cr_asm_sys_add(w->sys, R, R, 1.0);
        rhs[R] = 0.0;
        /* row j of C W summed first, then entered once per column (not once per C entry: with
         * the friction's 6 × 7 blocks that was 42 % of a static stage's instructions) */
        memset(w->crow, 0, (size_t)k3 * sizeof *w->crow);
        for (int l = 0; l < ncol; ++l) {
            const double cjl = w->Cc[(size_t)j * ncol + l];
            if (cjl == 0.0) continue;
            int n;
            const int r = cr_asm_contact_rod_of(a->contact, w->cgl[l / w->cq], &n);
            const rod_work *rw = &w->rw[r];
            const size_t k = (size_t)n * a->models[r]->block + l % w->cq;
            rhs[R] -= cjl * rw->X[k];
            for (int jj = 0; jj < k3; ++jj) w->crow[jj] += cjl * rw->Wc[rw->dim * jj + k];
            for (int qq = 0; qq < rw->m; ++qq) {
                const int i = a->rod_iface[a->rod_iface_start[r] + qq];
                for (int kc = 0; kc < 6; ++kc)
                    cr_asm_sys_add(w->sys, R, 6 * i + kc, -cjl * rw->X[rw->dim * (1 + 6 * qq + kc) + k]);
            }
        }
        for (int jj = 0; jj < k3; ++jj) cr_asm_sys_add(w->sys, R, w->N + jj, w->crow[jj]);
    }
}

/* contact.rods, step 4: rod r's share −W w of the update of its unknown k */
static double contact_step(const asm_work *w, int r, size_t k)
{
    double d = 0;
    const rod_work *rw = &w->rw[r];
    for (int j = 0; j < w->rq * w->cm; ++j) d += rw->Wc[rw->dim * j + k] * w->rhs[w->N + j];
    return d;
}

/* Steps 2 and 3 for rod r (a task of the rods' pool: it writes only its own rod_work and the
 * right side's rows of its own interface nodes): factor, solve for the residual and the
 * interface nodes' unit increments, and Ê_i times every column (into rw->EV). rw->bad >= 0:
 * singular there. */
static void update_rod(asm_work *w, int r)
{
    const cr_assembly *a = w->a;
    const cr_model *m = a->models[r];
    rod_work *rw = &w->rw[r];
    const int B = m->block;
    rw->bad = -1;
    if (!w->chord && cr_blocktri_factor(rw->J, &rw->bad) != CR_OK) { /* a chord: the last LU */
        if (rw->bad < 0) rw->bad = 0;
        return;
    }
    if (!rw->tail) memset(rw->X, 0, rw->dim * rw->ncols * sizeof *rw->X);
    memcpy(rw->X, rw->F, rw->dim * sizeof *rw->X);
    cr_blocktri view;
    const int tail = rw->tail && tail_view(rw->J, &view);
    if (tail) memset(rw->Vt, 0, (size_t)6 * 2 * B * sizeof(double));
    for (int q = 0; q < rw->m; ++q) {
        int i = a->rod_iface[a->rod_iface_start[r] + q], n = a->iface[i].node;
        double Xi[4][3];
        xi_matrix(iface_p(w, i), Xi);
        for (int k = 0; k < 6; ++k) {
            double *col = tail ? rw->Vt + (size_t)2 * B * k + B : rw->X + rw->dim * (1 + 6 * q + k) + (size_t)n * B;
            if (k < 3)
                col[k] = 1.0;
            else
                for (int c = 0; c < 4; ++c) col[3 + c] = Xi[c][k - 3];
        }
    }
    /* one column, then six per interface node: the 7 × 6 kernel of solve_many (on the
     * last two block rows only when that is where the interface node is) */
    if (tail) {
        tail_residual(rw->J, &view, rw->X, rw->Yt);
        cr_blocktri_solve_many(&view, rw->Vt, 6);
    } else {
        cr_blocktri_solve(rw->J, rw->X);
        for (int q = 0; q < rw->m; ++q) cr_blocktri_solve_many(rw->J, rw->X + rw->dim * (1 + 6 * q), 6);
    }
    /* Ê_i times every column: the interface rows of the dense system */
    const int ncols = 1 + 6 * rw->m;
    for (int q = 0; q < rw->m; ++q) {
        int i = a->rod_iface[a->rod_iface_start[r] + q], n = a->iface[i].node;
        const double *er = rw->erow + (size_t)q * 3 * 6 * B;
        for (int col = 0; col < ncols; ++col) {
            /* column col's block rows: X's, or the view's (its rows n-1 and n) */
            const double *xc = !tail ? rw->X + rw->dim * col : col == 0 ? rw->Yt : rw->Vt + (size_t)2 * B * (col - 1);
            const int shift = !tail ? 0 : m->nodes - 2;
            double v[6] = {0};
            for (int b = 0; b < 3; ++b) {
                int nb = n - 1 + b;
                if (nb < 0 || nb >= m->nodes) continue;
                for (int row = 0; row < 6; ++row) {
                    const double *e = er + ((size_t)b * 6 + row) * B;
                    double sacc = 0;
                    for (int c = 0; c < B; ++c) sacc += e[c] * xc[(size_t)(nb - shift) * B + c];
                    v[row] += sacc;
                }
            }
            if (col == 0)
                for (int row = 0; row < 6; ++row) w->rhs[6 * i + row] = -(w->E[6 * i + row] - v[row]);
            else
                for (int row = 0; row < 6; ++row) rw->EV[(size_t)(col - 1) * 6 * rw->m + 6 * q + row] = v[row];
        }
    }
}

static void update_rod_task(void *arg, int r) { update_rod(arg, r); }

/* Steps 2–4: the Newton update; *dx2, *x2: squared norms of the update and of the state. */
static cr_status update(asm_work *w, double *dx2, double *x2, cr_error *err)
{
    const cr_assembly *a = w->a;
    const int N = w->N + w->rq * w->cm; /* contact.rods: the force increments after the multipliers */
    double t0 = now();
    if (!cr_asm_sys_begin(w->sys, N)) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    for (int b = 0; b < a->body_count; ++b) /* the hub of the sparse system's block elimination */
        for (int c = 0; c < 6; ++c) cr_asm_sys_hub(w->sys, 6 * a->bodies[b].iface + c);
    cr_pool_run(w->pool, a->rod_count, update_rod_task, w);
    for (int r = 0; r < a->rod_count; ++r)
        if (w->rw[r].bad >= 0)
            return cr_error_set(err, CR_SINGULAR,
                                "rods.%d ('%s'): singular tangent at node %d: the rod, held at its supports and "
                                "joint nodes, has a free motion",
                                r, a->names[r], w->rw[r].bad);
    for (int r = 0; r < a->rod_count; ++r) { /* the rods' blocks Ê V, in the rods' order */
        const rod_work *rw = &w->rw[r];
        const int *ri = a->rod_iface + a->rod_iface_start[r];
        for (int qc = 0; qc < rw->m; ++qc)
            for (int kc = 0; kc < 6; ++kc)
                for (int q = 0; q < rw->m; ++q)
                    for (int row = 0; row < 6; ++row)
                        cr_asm_sys_add(w->sys, 6 * ri[q] + row, 6 * ri[qc] + kc,
                                       rw->EV[(size_t)(6 * qc + kc) * 6 * rw->m + 6 * q + row]);
    }
    for (int r = 0; r < a->rod_count && w->cm > 0; ++r) contact_columns(w, r);
    const int off = 6 * a->iface_count;
    for (int b = 0; b < a->body_count; ++b) { /* a body's rows: E_b + ∂E_b/∂y δy (no rod behind it) */
        const int i = a->bodies[b].iface;
        for (int rr = 0; rr < 6; ++rr) {
            w->rhs[6 * i + rr] = -w->E[6 * i + rr];
            for (int cc = 0; cc < 6; ++cc) cr_asm_sys_add(w->sys, 6 * i + rr, 6 * i + cc, w->dEb[36 * b + 6 * rr + cc]);
        }
    }
    for (int k = 0; k < a->joint_count; ++k) {
        const cr_asm_joint *j = &a->joints[k];
        const double *C = w->C + (size_t)j->row0 * 12, *H = w->H + (size_t)k * 144;
        for (int e = 0; e < 2; ++e) {
            int ie = j->iface[e];
            /* exact zeros (a weld's H: all of it) are left out here as by the sparse system
             * itself, without the call */
            for (int f = 0; f < 2; ++f)
                for (int rr = 0; rr < 6; ++rr)
                    for (int cc = 0; cc < 6; ++cc) {
                        const double h = H[(6 * e + rr) * 12 + 6 * f + cc];
                        if (h != 0.0) cr_asm_sys_add(w->sys, 6 * ie + rr, 6 * j->iface[f] + cc, h);
                    }
            for (int r = 0; r < j->rows; ++r) {
                /* a compliant row k g + λ = 0: k C δy + λ = −k g (λ is the unknown itself) */
                double kr;
                if (!cr_asm_row_law(j, w->s, w->stage, r, w->g[j->row0 + r], &kr, NULL, NULL, NULL))
                    kr = 1.0;
                else if (!cr_asm_joint_active(j, w->stage))
                    continue;
                for (int c = 0; c < 6; ++c) {
                    const double cv = C[r * 12 + 6 * e + c];
                    if (cv == 0.0) continue;
                    cr_asm_sys_add(w->sys, 6 * ie + c, off + j->row0 + r, cv);      /* Cᵀ */
                    cr_asm_sys_add(w->sys, off + j->row0 + r, 6 * ie + c, kr * cv); /* C */
                }
            }
        }
        for (int r = 0; r < j->rows; ++r) {
            double kr, gk;
            const int comp = cr_asm_row_law(j, w->s, w->stage, r, w->g[j->row0 + r], &kr, NULL, &gk, NULL);
            if (comp) cr_asm_sys_add(w->sys, off + j->row0 + r, off + j->row0 + r, 1.0);
            w->rhs[off + j->row0 + r] = -(comp ? kr : 1.0) * gk;
        }
    }
    for (int k = 0; k < a->support_count; ++k) { /* supports on joint nodes: [H, Cᵀ; C, 0] at the node */
        const cr_asm_support *sp = &a->supports[k];
        const int q0 = sp->row0 - a->rows, ie = sp->iface;
        if (!support_target(w, sp, 0.0, NULL, NULL)) {
            for (int r = 0; r < sp->rows; ++r) {
                cr_asm_sys_add(w->sys, off + sp->row0 + r, off + sp->row0 + r, 1.0);
                w->rhs[off + sp->row0 + r] = 0.0;
            }
            continue;
        }
        const double *H = w->Hs + (size_t)36 * k;
        for (int rr = 3; rr < 6; ++rr)
            for (int cc = 3; cc < 6; ++cc)
                if (H[rr * 6 + cc] != 0.0) cr_asm_sys_add(w->sys, 6 * ie + rr, 6 * ie + cc, H[rr * 6 + cc]);
        for (int r = 0; r < sp->rows; ++r) {
            for (int c = 0; c < 6; ++c) {
                const double cv = w->Cs[(size_t)6 * (q0 + r) + c];
                if (cv == 0.0) continue;
                cr_asm_sys_add(w->sys, 6 * ie + c, off + sp->row0 + r, cv);
                cr_asm_sys_add(w->sys, off + sp->row0 + r, 6 * ie + c, cv);
            }
            w->rhs[off + sp->row0 + r] = -w->gs[q0 + r];
        }
    }
    if (w->cm > 0) contact_dense_rows(w, w->rhs);
    const int bad = cr_asm_sys_solve(w->sys, w->rhs);
    if (bad == -2) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    if (bad == -3) /* beyond the dense diagnosis' size: no unknown to name */
        return cr_error_set(err, CR_UNSUPPORTED,
                            "the joints' coupled system (%d unknowns) could not be factored: the sparse LU (KLU) "
                            "refused it (KLU status %d), without finding a singular unknown",
                            N, cr_asm_sys_klu_status(w->sys));
    if (bad >= 0) {
        cr_status st = cr_asm_check_redundant(a, w->s, w->joint_f, err);
        if (st != CR_OK) return st;
        if (bad < off) {
            static const char *what[6] = {"translation along x",       "translation along y",
                                          "translation along z",       "rotation about its body x",
                                          "rotation about its body y", "rotation about its body z"};
            const cr_asm_iface *f = &a->iface[bad / 6];
            if (f->rod < 0)
                return cr_error_set(err, CR_SINGULAR,
                                    "the assembly is a mechanism: nothing holds the %s of body '%s' (its joints let it "
                                    "move), or only in combination with others",
                                    what[bad % 6], a->bodies[f->node].name);
            return cr_error_set(err, CR_SINGULAR,
                                "the assembly is a mechanism: nothing holds the %s of node %d of rod '%s' (a joint "
                                "node; its rod turns or slides about its joints), or only in combination with "
                                "others",
                                what[bad % 6], f->node, a->names[f->rod]);
        }
        return cr_error_set(err, CR_SINGULAR,
                            "the joints' coupled system is singular: the assembly is a mechanism (a rod or group "
                            "of rods turns or slides about its joints with nothing to hold it)");
    }
    /* step 4 */
    double d2 = 0, n2 = 0;
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        rod_work *rw = &w->rw[r];
        double *x = w->s->rods[r]->x;
        if (rw->tail) { /* K⁻¹ (u − P Ξ δy) = X₀ − V δy (tail_step) */
            double pd[CR_MAX_BLOCK] = {0}, Xi[4][3];
            int i = a->rod_iface[a->rod_iface_start[r]];
            const double *dy = w->rhs + 6 * i;
            xi_matrix(iface_p(w, i), Xi);
            for (int c = 0; c < 3; ++c) pd[c] = dy[c];
            for (int c = 0; c < 4; ++c) pd[3 + c] = Xi[c][0] * dy[3] + Xi[c][1] * dy[4] + Xi[c][2] * dy[5];
            tail_step(rw->J, rw->X, pd);
            for (size_t k = 0; k < rw->dim; ++k) {
                double d = -rw->X[k];
                x[k] += d;
                d2 += d * d;
            }
        } else
            for (size_t k = 0; k < rw->dim; ++k) {
                double d = -rw->X[k];
                for (int q = 0; q < rw->m; ++q) {
                    int i = a->rod_iface[a->rod_iface_start[r] + q];
                    for (int c = 0; c < 6; ++c) d += rw->X[rw->dim * (1 + 6 * q + c) + k] * w->rhs[6 * i + c];
                }
                if (w->cm > 0) d -= contact_step(w, r, k);
                x[k] += d;
                d2 += d * d;
            }
        /* interface nodes moved by (δr, Ξ δθ) like the rest (the held rows of X), then
         * every quaternion normalized: p ⊗ exp(δθ/2) to second order */
        for (int i = 0; i < m->nodes; ++i) {
            double *p = x + (size_t)i * m->block + 3, s = 0;
            for (int c = 0; c < 4; ++c) s += p[c] * p[c];
            s = 1.0 / sqrt(s);
            for (int c = 0; c < 4; ++c) p[c] *= s;
        }
        for (size_t k = 0; k < rw->dim; ++k) n2 += x[k] * x[k];
    }
    for (int b = 0; b < a->body_count; ++b) { /* r += δr, p ← p ⊗ exp(δθ/2) */
        double *y = w->s->body + (size_t)CR_ASM_BODY_DOF * b;
        const double *dy = w->rhs + 6 * a->bodies[b].iface;
        cr_vec3 th = cr_v3_load(dy + 3);
        double ang = cr_v3_norm(th);
        cr_quat p = cr_q_load(y + 3), e = ang > 0 ? cr_q_axis_angle(cr_v3_scale(th, 1.0 / ang), ang) : cr_q_identity();
        for (int c = 0; c < 3; ++c) y[c] += dy[c];
        cr_q_store(cr_q_normalize(cr_q_mul(p, e)), y + 3);
        /* as a node's entries: positions, and the quaternion's change |δp| = |δθ|/2 */
        for (int c = 0; c < 6; ++c) d2 += dy[c] * dy[c] * (c < 3 ? 1.0 : 0.25);
        for (int c = 0; c < 7; ++c) n2 += y[c] * y[c];
    }
    memcpy(w->s->lambda, w->rhs + off, (size_t)w->nl * sizeof(double));
    w->t_solve += now() - t0;
    *dx2 = d2, *x2 = n2;
    return CR_OK;
}

/* The position correction of cr_static_solve (statics.c, correct_positions) for the
 * assembly: a linearized Newton update moves positions along the tangents of the
 * rotations and stretches every element by O(Δθ²), an axial residual (EA L²/EI ~ 1e4 times
 * the bending one) that the iteration then has to undo. With the orientations fixed, the
 * force rows of every rod and the joints' position rows (r_b − r_a, a slider's (A_a u)·(r_b −
 * r_a)) are linear in the
 * positions (tendons aside), so they are solved for the positions after each update: the
 * same substructuring with three unknowns per interface node and the joints' position
 * multipliers (the dot rows do not depend on positions and give no forces). Skipped with
 * rigid strain components, as in statics.c. */
/* The rows of joint j that are linear in the positions at fixed orientations: the position
 * rows, a slider's drive and spring rows (none when the joint does not act in the stage);
 * their indices into which[] (optional). */
static int position_rows(const cr_asm_joint *j, int stage, int *which)
{
    if (!cr_asm_joint_active(j, stage)) return 0;
    int n = 0;
    for (int r = 0; r < j->rows; ++r) {
        const int spring = r >= j->rows - j->springs;
        const int slide = r < j->pos_rows || (j->slide_drive && r == j->rows - j->springs - 1) ||
                          (spring && (j->spring_kind[r - (j->rows - j->springs)] == CR_SPRING_SLIDE ||
                                      j->spring_kind[r - (j->rows - j->springs)] == CR_SPRING_LIMIT_SLIDE));
        if (!slide) continue;
        if (which) which[n] = r;
        ++n;
    }
    return n;
}

/* A support's rows that are linear in the positions: its held translations (first among its
 * rows; none when it does not act in the stage) */
static int support_position_rows(asm_work *w, const cr_asm_support *sp)
{
    if (!support_target(w, sp, 0.0, NULL, NULL)) return 0;
    const unsigned h = w->a->models[sp->rod]->supports[sp->k].hold;
    return (h & 1u) + (h >> 1 & 1u) + (h >> 2 & 1u);
}
static int support_rows_total(asm_work *w)
{
    int n = 0;
    for (int k = 0; k < w->a->support_count; ++k) n += support_position_rows(w, w->a->supports + k);
    return n;
}

/* The position correction's rows of rod r (a task of the rods' pool: its own rod_work and the
 * dense system's rows of its own interface nodes); its status in rw->st. */
static void correct_rod(void *arg, int r)
{
    const rod_task *ct = arg;
    asm_work *w = ct->w;
    const double lf = ct->lf;
    const cr_assembly *a = w->a;
    const cr_model *m = a->models[r];
    rod_work *rw = &w->rw[r];
    const cr_state *st = w->s->rods[r];
    const cr_supports_at at = rod_loads_at(w, r, lf);
    rw->st = cr_mixed_force_residual(a->smodels[r], &at, rw->scale, st->x, rw->Ff, rw->Jf);
    if (rw->st != CR_OK) return;
    const size_t dim = (size_t)m->nodes * 3;
    const int nc = 1 + 3 * rw->m;
    for (int q = 0; q < rw->m; ++q) {
        int i = a->rod_iface[a->rod_iface_start[r] + q], n = a->iface[i].node;
        double *er = rw->erowf + (size_t)q * 27;
        for (int b = 0; b < 3; ++b) {
            int nb = n - 1 + b;
            if (nb < 0 || nb >= m->nodes) continue;
            memcpy(er + 9 * b,
                   b == 0   ? cr_blocktri_L(rw->Jf, n)
                   : b == 1 ? cr_blocktri_D(rw->Jf, n)
                            : cr_blocktri_U(rw->Jf, n),
                   9 * sizeof(double));
        }
        for (int c = 0; c < 3; ++c) w->rhs[3 * i + c] = rw->Ff[3 * n + c]; /* E^f, for now */
        cr_blocktri_reset_rows(rw->Jf, n, 3, 1);
        for (int c = 0; c < 3; ++c) rw->Ff[3 * n + c] = 0.0;
    }
    /* the unit columns on the last two block rows only when the interface node is the rod's
     * end (tail_view, as update_rod): the correction's step then takes one more solve */
    const int tail = rw->tail;
    memset(rw->Xf, 0, dim * (tail ? 1 : nc) * sizeof *rw->Xf);
    memcpy(rw->Xf, rw->Ff, dim * sizeof *rw->Xf);
    if (tail) {
        memset(rw->Vtf, 0, sizeof rw->Vtf);
        for (int c = 0; c < 3; ++c) rw->Vtf[6 * c + 3 + c] = 1.0;
    } else
        for (int q = 0; q < rw->m; ++q) {
            int n = a->iface[a->rod_iface[a->rod_iface_start[r] + q]].node;
            for (int c = 0; c < 3; ++c) rw->Xf[dim * (1 + 3 * q + c) + (size_t)3 * n + c] = 1.0;
        }
    rw->st = cr_blocktri_factor(rw->Jf, NULL);
    if (rw->st != CR_OK) return;
    cr_blocktri view;
    if (tail && !tail_view(rw->Jf, &view)) {
        rw->st = CR_SINGULAR; /* not reached: rw->tail has two nodes or more and Jf is not banded */
        return;
    }
    if (tail)
        tail_residual(rw->Jf, &view, rw->Xf, rw->Ytf);
    else
        cr_blocktri_solve(rw->Jf, rw->Xf); /* the 3 × 3 kernel */
    for (int col = 1; col < nc; ++col)
        if (tail)
            cr_blocktri_solve(&view, rw->Vtf + 6 * (col - 1));
        else
            cr_blocktri_solve(rw->Jf, rw->Xf + dim * col);
    for (int q = 0; q < rw->m; ++q) {
        int i = a->rod_iface[a->rod_iface_start[r] + q], n = a->iface[i].node;
        const double *er = rw->erowf + (size_t)q * 27;
        for (int col = 0; col < nc; ++col) {
            /* column col's block rows: Xf's, or the view's (its rows n − 1 and n) */
            const double *xc = !tail ? rw->Xf + dim * col : col == 0 ? rw->Ytf : rw->Vtf + 6 * (col - 1);
            const int shift = !tail ? 0 : m->nodes - 2;
            double v[3] = {0, 0, 0};
            for (int b = 0; b < 3; ++b) {
                int nb = n - 1 + b;
                if (nb < 0 || nb >= m->nodes) continue;
                for (int row = 0; row < 3; ++row)
                    for (int c = 0; c < 3; ++c) v[row] += er[9 * b + 3 * row + c] * xc[3 * (nb - shift) + c];
            }
            if (col == 0)
                for (int row = 0; row < 3; ++row) w->rhs[3 * i + row] = -(w->rhs[3 * i + row] - v[row]);
            else
                for (int row = 0; row < 3; ++row) rw->EVf[(size_t)(col - 1) * 3 * rw->m + 3 * q + row] = v[row];
        }
    }
}

static cr_status correct_positions(asm_work *w, double lf)
{
    const cr_assembly *a = w->a;
    /* contact between the rods couples their positions: the correction's solve would drop it
     * (and undo the contact each update, as for one rod's self-contact); Newton goes without */
    if (a->contact) return CR_OK;
    for (int r = 0; r < a->rod_count; ++r)
        if (a->models[r]->rigid_count > 0) return CR_OK;
    int np = 0;
    for (int k = 0; k < a->joint_count; ++k) np += position_rows(a->joints + k, w->stage, NULL);
    for (int k = 0; k < a->support_count; ++k) np += support_position_rows(w, a->supports + k);
    const int ni = a->iface_count, N = 3 * ni + np;
    double t0 = now();
    if (!cr_asm_sys_begin(w->sysc, N)) return CR_NO_MEMORY;
    for (int b = 0; b < a->body_count; ++b)
        for (int c = 0; c < 3; ++c) cr_asm_sys_hub(w->sysc, 3 * a->bodies[b].iface + c);
    rod_task ct = {w, lf, N};
    cr_pool_run(w->pool, a->rod_count, correct_rod, &ct);
    for (int r = 0; r < a->rod_count; ++r)
        if (w->rw[r].st != CR_OK) return w->rw[r].st;
    for (int r = 0; r < a->rod_count; ++r) { /* the rods' blocks, in the rods' order */
        const rod_work *rw = &w->rw[r];
        const int *ri = a->rod_iface + a->rod_iface_start[r];
        for (int qc = 0; qc < rw->m; ++qc)
            for (int kc = 0; kc < 3; ++kc)
                for (int q = 0; q < rw->m; ++q)
                    for (int row = 0; row < 3; ++row)
                        cr_asm_sys_add(w->sysc, 3 * ri[q] + row, 3 * ri[qc] + kc,
                                       rw->EVf[(size_t)(3 * qc + kc) * 3 * rw->m + 3 * q + row]);
    }
    for (int b = 0; b < a->body_count; ++b) { /* a body's force rows: its loads', independent of its position */
        const int i = a->bodies[b].iface;
        double wr[6];
        for (int k = 0; k < a->body_load_count; ++k) w->bscale[k] = w->bfrom[k] + lf * (w->bto[k] - w->bfrom[k]);
        cr_asm_body_wrench(a, b, w->s->body + (size_t)CR_ASM_BODY_DOF * b, w->bscale, wr, NULL);
        for (int c = 0; c < 3; ++c) w->rhs[3 * i + c] = -wr[c];
    }
    for (int k = 0, row = 3 * ni; k < a->joint_count; ++k) { /* position rows: C = [−n, 0, n, 0] at fixed A_a */
        const cr_asm_joint *j = &a->joints[k];
        double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
        int which[CR_ASM_MAX_ROWS];
        const int nw = position_rows(j, w->stage, which);
        if (nw == 0) continue;
        cr_asm_joint_eval_iface(j, w->joint_f, NULL, iface_r(w, j->iface[0]), iface_p(w, j->iface[0]),
                                iface_r(w, j->iface[1]), iface_p(w, j->iface[1]), NULL, g, C, NULL);
        for (int q = 0; q < nw; ++q, ++row) {
            const int r = which[q];
            double kr, gk; /* a slider's spring row k g + λ = 0: k n·(δr_b − δr_a) + λ = −k g */
            const int comp = cr_asm_row_law(j, w->s, w->stage, r, g[r], &kr, NULL, &gk, NULL);
            if (!comp) kr = 1.0;
            for (int c = 0; c < 3; ++c) {
                const double n = C[r * 12 + 6 + c];
                cr_asm_sys_add(w->sysc, 3 * j->iface[0] + c, row, -n);
                cr_asm_sys_add(w->sysc, 3 * j->iface[1] + c, row, n);
                cr_asm_sys_add(w->sysc, row, 3 * j->iface[0] + c, -kr * n);
                cr_asm_sys_add(w->sysc, row, 3 * j->iface[1] + c, kr * n);
            }
            if (comp) cr_asm_sys_add(w->sysc, row, row, 1.0);
            w->rhs[row] = -kr * gk;
        }
    }
    for (int k = 0, row = 3 * ni + np - support_rows_total(w); k < a->support_count; ++k) {
        /* a support's held translations d·(r − r_t), linear in the position */
        const cr_asm_support *sp = a->supports + k;
        const int nw = support_position_rows(w, sp);
        if (nw == 0) continue;
        double g[6], C[36];
        cr_vec3 rt;
        cr_quat pt;
        support_target(w, sp, lf, &rt, &pt);
        cr_asm_support_eval(a, sp, iface_r(w, sp->iface), iface_p(w, sp->iface), rt, pt, NULL, g, C, NULL);
        for (int q = 0; q < nw; ++q, ++row) {
            for (int c = 0; c < 3; ++c) {
                const double n = C[q * 6 + c];
                if (n == 0.0) continue;
                cr_asm_sys_add(w->sysc, 3 * sp->iface + c, row, n);
                cr_asm_sys_add(w->sysc, row, 3 * sp->iface + c, n);
            }
            w->rhs[row] = -g[q];
        }
    }
    const int bad = cr_asm_sys_solve(w->sysc, w->rhs);
    if (bad == -2) return CR_NO_MEMORY;
    if (bad == -3) return CR_UNSUPPORTED;
    if (bad >= 0) return CR_SINGULAR; /* the full update's solve names the cause */
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        rod_work *rw = &w->rw[r];
        const size_t dim = (size_t)m->nodes * 3;
        double *x = w->s->rods[r]->x;
        if (rw->tail) { /* K⁻¹ (u − P δy) = X₀ − V δy (tail_step) */
            const int ii = a->rod_iface[a->rod_iface_start[r]];
            double pd[3] = {w->rhs[3 * ii], w->rhs[3 * ii + 1], w->rhs[3 * ii + 2]};
            tail_step(rw->Jf, rw->Xf, pd);
            for (int i = 0; i < m->nodes; ++i)
                for (int c = 0; c < 3; ++c) x[(size_t)i * m->block + c] -= rw->Xf[3 * i + c];
            continue;
        }
        for (int i = 0; i < m->nodes; ++i)
            for (int c = 0; c < 3; ++c) {
                size_t k = (size_t)3 * i + c;
                double d = -rw->Xf[k];
                for (int q = 0; q < rw->m; ++q) {
                    int ii = a->rod_iface[a->rod_iface_start[r] + q];
                    for (int e = 0; e < 3; ++e) d += rw->Xf[dim * (1 + 3 * q + e) + k] * w->rhs[3 * ii + e];
                }
                x[(size_t)i * m->block + c] += d;
            }
    }
    for (int b = 0; b < a->body_count; ++b)
        for (int c = 0; c < 3; ++c) w->s->body[(size_t)CR_ASM_BODY_DOF * b + c] += w->rhs[3 * a->bodies[b].iface + c];
    for (int k = 0, row = 3 * ni; k < a->joint_count; ++k) { /* the position multipliers that go with the positions */
        int which[CR_ASM_MAX_ROWS];
        const int nw = position_rows(a->joints + k, w->stage, which);
        for (int q = 0; q < nw; ++q) w->s->lambda[a->joints[k].row0 + which[q]] = w->rhs[row++];
    }
    for (int k = 0, row = 3 * ni + np - support_rows_total(w); k < a->support_count; ++k) /* the supports' too */
        for (int q = 0; q < support_position_rows(w, a->supports + k); ++q)
            w->s->lambda[a->supports[k].row0 + q] = w->rhs[row++];
    w->t_solve += now() - t0;
    return CR_OK;
}

/* The state before a chord update (newton), and back to it when the chord is not accepted */
static void save_state(asm_work *w)
{
    for (int r = 0; r < w->a->rod_count; ++r) memcpy(w->rw[r].x_back, w->s->rods[r]->x, w->rw[r].dim * sizeof(double));
    memcpy(w->lambda_back, w->s->lambda, (size_t)w->nl * sizeof(double));
    memcpy(w->body_back, w->s->body, body_bytes(w->a));
}

static void restore_state(asm_work *w)
{
    for (int r = 0; r < w->a->rod_count; ++r) memcpy(w->s->rods[r]->x, w->rw[r].x_back, w->rw[r].dim * sizeof(double));
    memcpy(w->s->lambda, w->lambda_back, (size_t)w->nl * sizeof(double));
    memcpy(w->s->body, w->body_back, body_bytes(w->a));
}

/* Newton at load factor lf from the state in w->s (in place); CR_NOT_CONVERGED after
 * max_iterations. Convergence as cr_static_solve's (spec §7.6): RMS residual below atol
 * or rtol times the step's first one, and an update below rtol |x|; or such an update with
 * the residual at its round-off floor. */
static cr_status newton(asm_work *w, double lf, double err0, const cr_static_options *o, int *iterations,
                        double *history, int *history_count, double *final_err, cr_error *err)
{
    w->joint_f = w->joint_from + lf * (1.0 - w->joint_from);
    double e_prev = INFINITY, dx2 = INFINITY, x2 = 0;
    *history_count = 0;
    for (int it = 0;; ++it) {
        double ss;
        size_t cnt;
        /* an update already below rtol |x| may have converged: the residual alone decides,
         * and the tangent is assembled only when another update is needed (bench_assembly
         * --brush: the residual and tangent were assembled about three times per load step) */
        const double dx = sqrt(dx2), xn = sqrt(x2);
        const int maybe_done = it > 0 && dx <= o->rtol * (xn + 1e-12);
        /* an update below √rtol |x|: the next is ~rtol |x| or less (quadratic convergence), so
         * when the residual passes, the last factorization's update (a chord) is the error
         * estimate the increment test needs, as in cr_static_solve (newton.c): a load step
         * then ends after one full update instead of two */
        const int chord = it > 0 && !maybe_done && dx < sqrt(o->rtol) * (xn + 1e-12);
        cr_status st = evaluate(w, lf, !maybe_done && !chord, &ss, &cnt);
        if (st != CR_OK) return cr_error_set(err, st, "the residual is not finite at load factor %g", lf);
        double e = sqrt(ss / (double)(cnt > 0 ? cnt : 1));
        if (it == 0) err0 = fmax(err0, e);
        if (*history_count < o->max_history) history[(*history_count)++] = e;
        *final_err = e;
        /* at the residual's round-off floor (stiff rods: EA ε |x| per row) the residual stops
         * falling while the updates are already below rtol: nothing left to gain. Only within
         * 1000 ε of the round-off scale of its terms: a residual that stagnates above it is
         * not an equilibrium, whatever the size of the updates */
        int floor = e <= 1e3 * DBL_EPSILON * w->roundoff_scale && (dx <= 1e-13 * xn || (it > 1 && e >= 0.5 * e_prev));
        e_prev = e;
        if (it > 0 && (e <= o->atol || e <= o->rtol * err0 || floor) && dx <= o->rtol * (xn + 1e-12)) {
            *iterations = it;
            return CR_OK;
        }
        if (it >= o->max_iterations) {
            *iterations = it;
            return cr_error_set(err, CR_NOT_CONVERGED,
                                "Newton did not converge in %d iterations at load factor %g (RMS residual %.3g)",
                                o->max_iterations, lf, e);
        }
        if (chord && (e <= o->atol || e <= o->rtol * err0 || e <= 1e3 * DBL_EPSILON * w->roundoff_scale)) {
            /* the chord's error is its size times the old LU's relative error: accepted, with its
             * update, when below rtol |x| and 1 % of the full update before it (the iteration
             * contracts as Newton's: the old LU is accurate; near a nearly singular tangent it
             * would not be, newton.c). Otherwise undone, and a full update follows. */
            save_state(w);
            w->chord = 1;
            double c2 = 0, cx2 = 0;
            st = update(w, &c2, &cx2, err);
            w->chord = 0;
            if (st == CR_OK && sqrt(c2) <= o->rtol * (sqrt(cx2) + 1e-12) && sqrt(c2) <= 1e-2 * dx) {
                *iterations = it;
                return CR_OK;
            }
            restore_state(w);
        }
        if ((maybe_done || chord) && (st = evaluate(w, lf, 1, &ss, &cnt)) != CR_OK) /* not converged: the tangent */
            return cr_error_set(err, st, "the residual is not finite at load factor %g", lf);
        st = update(w, &dx2, &x2, err);
        if (st == CR_OK && (st = correct_positions(w, lf)) != CR_OK)
            cr_error_set(err, st, "the position correction failed at load factor %g (%s)", lf, cr_status_string(st));
        if (st != CR_OK) {
            *iterations = it + 1;
            return st;
        }
    }
}

/* The tangent predictor of a load step from lf0 to lf (as cr_static_solve's, newton.c): from
 * the converged state x at lf0, the update with the rods' factorizations of that step's last
 * Newton update at the new loads, x − K⁻¹F(x, lf) = x + (lf − lf0) dx/dlf (F(x, lf0) = 0; the
 * loads, supports' ramps and welds' closing are linear in lf): Euler along the equilibrium
 * path, rods, joints' multipliers and free bodies alike, without a factorization; plus the
 * path's curvature from the change of the tangent since the step before, ½ Δ² (t − t_prev) /
 * Δ_prev. The tangent goes into tan (rods), lambda_tan, body_tan. Returns the update's status; on failure the state is
 * the converged one again. */
static cr_status tangent_predict(asm_work *w, double lf, double lf0, int have_prev, double dl_prev, int evaluated,
                                 cr_error *err)
{
    const cr_assembly *a = w->a;
    double ss, dx2, x2;
    size_t cnt;
    const double dl = lf - lf0, c = have_prev ? 0.5 * dl * dl / dl_prev : 0.0;
    w->joint_f = w->joint_from + lf * (1.0 - w->joint_from);
    /* evaluated: the caller's reference residual was this one (the converged state under the
     * new loads, residual only): the rods' F, the interface rows E and the joints' g, C are
     * already those; a second evaluation gave the same bits (a quarter of the residual
     * evaluations of a load step that converges in one Newton iteration) */
    cr_status st = evaluated ? CR_OK : evaluate(w, lf, 0, &ss, &cnt);
    if (st == CR_OK) {
        w->chord = 1;
        st = update(w, &dx2, &x2, err);
        w->chord = 0;
    }
    if (st != CR_OK) {
        for (int r = 0; r < a->rod_count; ++r)
            memcpy(w->s->rods[r]->x, w->rw[r].x_saved, w->rw[r].dim * sizeof(double));
        memcpy(w->s->lambda, w->lambda_saved, (size_t)w->nl * sizeof(double));
        memcpy(w->s->body, w->body_saved, body_bytes(a));
        return st;
    }
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        rod_work *rw = &w->rw[r];
        double *x = w->s->rods[r]->x;
        for (size_t k = 0; k < rw->dim; ++k) {
            rw->tan[k] = (x[k] - rw->x_saved[k]) / dl;
            if (have_prev) x[k] += c * (rw->tan[k] - rw->tan_prev[k]);
        }
        for (int i = 0; i < m->nodes && c != 0.0; ++i) {
            double *p = x + (size_t)i * m->block + 3, n = 0;
            for (int k = 0; k < 4; ++k) n += p[k] * p[k];
            n = 1.0 / sqrt(n);
            for (int k = 0; k < 4; ++k) p[k] *= n;
        }
    }
    for (int k = 0; k < w->nl; ++k) {
        w->lambda_tan[k] = (w->s->lambda[k] - w->lambda_saved[k]) / dl;
        w->s->lambda[k] += c * (w->lambda_tan[k] - w->lambda_tan_prev[k]);
    }
    for (int b = 0; b < a->body_count; ++b) {
        double *y = w->s->body + (size_t)CR_ASM_BODY_DOF * b, *t = w->body_tan + (size_t)CR_ASM_BODY_DOF * b;
        const double *y0 = w->body_saved + (size_t)CR_ASM_BODY_DOF * b,
                     *tp = w->body_tan_prev + (size_t)CR_ASM_BODY_DOF * b;
        for (int q = 0; q < 7; ++q) {
            t[q] = (y[q] - y0[q]) / dl;
            y[q] += c * (t[q] - tp[q]);
        }
        cr_q_store(cr_q_normalize(cr_q_load(y + 3)), y + 3);
    }
    return CR_OK;
}

/* Obstacles (docs/theory.md "Contact with obstacles"): the rods' contact forces are
 * node-local, so they are in each rod's residual and tangent (statics_residual.c) and the
 * substructuring above carries them unchanged. What the assembly adds is the stage's
 * start (moving obstacles placed, touching pairs anchored) ... */
static void contact_begin(const cr_assembly *a, cr_assembly_state *s)
{
    /* between the rods: the multipliers of the last static stage's equilibrium kept (reset, a
     * second stage that changed nothing diverged: the pairs' forces dropped to the penalty's and
     * the rods fell through their contact), else a penalty through the load steps (a dynamic
     * stage leaves none); their friction anchored */
    if (a->contact) {
        cr_asm_contact_gather(a->contact, a, s);
        cr_asm_contact_static_begin(a->contact);
    }
    for (int r = 0; r < a->rod_count; ++r) {
        cr_contact *c = a->models[r]->contact;
        if (!c) continue;
        cr_contact_set_time(c, s->rods[r]->time);
        cr_contact_begin(c, s->rods[r]->x, a->models[r]->block);
    }
}

/* ... and the augmented Lagrangian's multiplier updates after the load steps, as one rod's
 * (statics.c, contact_updates): every rod's multipliers updated, then Newton again at the
 * full loads (the loads, supports and welds held at the stage's target), until no rod's
 * contact opens or closes and every penetration and stick drift is within its tolerance. */
static cr_status contact_updates(asm_work *w, const cr_static_options *o, cr_static_report *rep, double *history,
                                 cr_error *err)
{
    const cr_assembly *a = w->a;
    int any = a->contact != NULL, max_updates = a->contact ? cr_asm_contact_max_updates(a->contact) : 0, worst = 0;
    for (int r = 0; r < a->rod_count; ++r)
        if (a->models[r]->contact) {
            any = 1;
            if (a->models[r]->contact->max_updates > max_updates) max_updates = a->models[r]->contact->max_updates;
        }
    if (!any) return CR_OK;
    double pen = 0, drift = 0, rods_pen = 0, rods_drift = 0;
    for (int k = 0;; ++k) {
        int done = 1;
        pen = 0, drift = 0;
        if (a->contact) { /* between the rods: their multipliers alongside the obstacles' (friction's first) */
            cr_asm_contact_gather(a->contact, a, w->s);
            const int fr = cr_asm_contact_static_update(a->contact, &rods_drift, NULL);
            const int dr = fr < 0 ? -1 : cr_asm_contact_update(a->contact, &rods_pen);
            if (dr < 0) return cr_error_set(err, CR_NO_MEMORY, "out of memory in the contact between the rods");
            done &= dr && fr && rods_drift <= cr_asm_contact_tolerance(a->contact);
        }
        for (int r = 0; r < a->rod_count; ++r) {
            cr_contact *c = a->models[r]->contact;
            if (!c) continue;
            double pr = 0, dr = 0;
            done &= cr_contact_update(c, w->s->rods[r]->x, a->models[r]->block, &pr, &dr);
            if (pr > pen || dr > drift) worst = r;
            pen = fmax(pen, pr), drift = fmax(drift, dr);
        }
        if (done) return CR_OK;
        if (k == max_updates) break;
        /* the stage's target held: factor 1 of everything, a solve that moves nothing */
        for (int r = 0; r < a->rod_count; ++r) {
            rod_work *rw = &w->rw[r];
            for (int j = 0; j < a->models[r]->load_count; ++j) rw->from[j] = rw->to[j];
            rw->bc_from = 1.0;
        }
        for (int j = 0; j < a->body_load_count; ++j) w->bfrom[j] = w->bto[j];
        w->joint_from = 1.0;
        double ss, err0 = 0;
        size_t cnt;
        w->joint_f = 1.0;
        if (evaluate(w, 1.0, 0, &ss, &cnt) == CR_OK) err0 = sqrt(ss / (double)(cnt > 0 ? cnt : 1));
        int iters = 0, hc = 0;
        double fe = 0;
        cr_status sn = newton(w, 1.0, err0, o, &iters, history, &hc, &fe, err);
        rep->total_iterations += iters;
        if (sn != CR_OK) return sn;
        if (cr_static_report_append(rep, 1.0, iters, history, hc) != CR_OK)
            return cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's static solver");
        rep->final_residual = fe;
    }
    const cr_contact *c = a->models[worst]->contact;
    if (a->contact && rods_pen > cr_asm_contact_tolerance(a->contact))
        return cr_error_set(err, CR_NOT_CONVERGED,
                            "contact.rods: %d multiplier updates left a penetration of %.3g m between the rods above "
                            "contact.tolerance = %.3g m (raise contact.max_updates or contact.stiffness)",
                            max_updates, rods_pen, cr_asm_contact_tolerance(a->contact));
    if (a->contact && rods_drift > cr_asm_contact_tolerance(a->contact))
        return cr_error_set(err, CR_NOT_CONVERGED,
                            "contact.rods_friction: %d multiplier updates left a stick drift (or a slip per update) "
                            "of %.3g m between the rods above contact.tolerance = %.3g m (a load the friction "
                            "cannot hold has no equilibrium; else raise contact.max_updates or contact.stiffness)",
                            max_updates, rods_drift, cr_asm_contact_tolerance(a->contact));
    if (!c) /* between the rods only: a pair that keeps opening and closing */
        return cr_error_set(err, CR_NOT_CONVERGED,
                            "contact.rods: %d multiplier updates did not settle which pairs of segments touch "
                            "(raise contact.max_updates or contact.stiffness)",
                            max_updates);
    return cr_error_set(err, CR_NOT_CONVERGED,
                        "contact: %d multiplier updates left a penetration of %.3g m and a stick drift of %.3g m "
                        "above contact.tolerance = %.3g m (rods.%d ('%s') the worst; raise contact.max_updates or "
                        "contact.stiffness)",
                        max_updates, pen, drift, c->tol, worst, a->names[worst]);
}

/* The joint limits' multiplier updates (the augmented Lagrangian of the obstacles' contact,
 * docs/theory.md "Contact with obstacles"): after the load steps, λ̂ ← the limits' forces and
 * Newton again at the full loads, until no limit engaged or released and every penetration is
 * within its tolerance (cr_asm_limit_tol). A free direction pressed against its stop (a hinge
 * held by nothing but the stop and gravity) settles in one update: the force is the load's
 * whatever ε is. The update solves are reported as load steps at factor 1. */
static cr_status limit_updates(asm_work *w, const cr_static_options *o, double *history, cr_static_report *rep,
                               cr_error *err)
{
    const cr_assembly *a = w->a;
    cr_assembly_state *s = w->s;
    enum { MAX_UPDATES = 50 };
    int worst_joint = -1, worst_q = 0;
    double worst = 0, worst_tol = 0;
    for (int it = 0;; ++it) {
        /* the test at the equilibrium, then the update λ̂ ← λ */
        int done = 1;
        worst = 0, worst_joint = -1;
        for (int jk = 0; jk < a->joint_count; ++jk) {
            const cr_asm_joint *j = &a->joints[jk];
            if (!cr_asm_joint_active(j, w->stage)) continue;
            for (int q = 0; q < j->springs; ++q) {
                if (!cr_asm_is_limit_kind(j->spring_kind[q])) continue;
                const int r = j->rows - j->springs + q, row = j->row0 + r;
                double k, ph;
                cr_asm_row_law(j, s, w->stage, r, w->g[row], &k, NULL, NULL, &ph);
                const double pen = fmax(j->lo[q] - ph, ph - j->hi[q]), tol = cr_asm_limit_tol(a, j, q);
                /* the pressing branch's force: a lower stop pushes φ up (λ > 0), an upper one down */
                const double lh = !(k > 0)                           ? 0.0
                                  : ph < 0.5 * (j->lo[q] + j->hi[q]) ? fmax(s->lambda[row], 0.0)
                                                                     : fmin(s->lambda[row], 0.0);
                if ((lh == 0) != (s->limit_hat[row] == 0)) done = 0; /* engaged or released */
                if (pen > tol) done = 0;
                if (pen / tol > worst / (worst_tol > 0 ? worst_tol : 1))
                    worst = pen, worst_tol = tol, worst_joint = jk, worst_q = q;
                s->limit_hat[row] = lh;
            }
        }
        if (done) return CR_OK;
        if (it == MAX_UPDATES) break;
        int iters = 0, hc = 0;
        double fe = 0, ss, err0 = 0;
        size_t cnt;
        cr_error e = {0};
        if (evaluate(w, 1.0, 0, &ss, &cnt) == CR_OK) err0 = sqrt(ss / (double)(cnt > 0 ? cnt : 1));
        cr_status sn = newton(w, 1.0, err0, o, &iters, history, &hc, &fe, &e);
        rep->total_iterations += iters;
        if (sn != CR_OK) return cr_error_set(err, sn, "%s (a joint limit's multiplier update)", e.message);
        cr_asm_limits_accept(a, s, 0);
        if (cr_static_report_append(rep, 1.0, iters, history, hc) != CR_OK)
            return cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's static solver");
        rep->final_residual = fe;
    }
    const cr_asm_joint *j = &a->joints[worst_joint >= 0 ? worst_joint : 0];
    const char *key =
        j->type == CR_JOINT_CYLINDRICAL && j->spring_kind[worst_q] == CR_SPRING_LIMIT_SLIDE ? "slide_limit" : "limit";
    return cr_error_set(err, CR_NOT_CONVERGED,
                        "%s.%s: %d multiplier updates left a penetration of %.3g %s beyond the limit, above its "
                        "tolerance %.3g (raise %s.%s_stiffness)",
                        j->label, key, MAX_UPDATES, worst,
                        j->spring_kind[worst_q] == CR_SPRING_LIMIT_SLIDE ? "m" : "rad", worst_tol, j->label, key);
}

cr_status cr_assembly_static_solve(const cr_assembly *a, cr_assembly_state *s, const cr_static_options *options,
                                   cr_static_report *report, cr_error *err)
{
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    cr_status st = cr_asm_static_solve_stage(a, s, 0, options, NULL, NULL, report, err);
    cr_fpmode_restore(fp);
    return st;
}

cr_status cr_asm_static_solve_stage(const cr_assembly *a, cr_assembly_state *s, int stage,
                                    const cr_static_options *options, cr_asm_step_fn on_step, void *user,
                                    cr_static_report *report, cr_error *err)
{
    cr_static_options o = options ? *options : cr_static_default_options();
    if (o.load_steps < 1) o.load_steps = 1;
    if (o.max_history < 1) o.max_history = 1;
    cr_static_report local = {0};
    cr_static_report *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    double t_start = now();
    asm_work w = {.a = a, .s = s, .joint_from = s->joint_factor, .stage = stage};
    double *history = malloc((size_t)o.max_history * sizeof *history);
    /* the rods' threads: as one rod's solver decides (o.threads, else the default count from
     * CR_STATIC_PARALLEL_MIN_NODES nodes in all), at most one per rod */
    int nodes = 0;
    for (int r = 0; r < a->rod_count; ++r) nodes += a->models[r]->nodes;
    int threads = o.threads > 0 ? o.threads : (nodes >= CR_STATIC_PARALLEL_MIN_NODES ? cr_threads_default() : 1);
    if (threads > a->rod_count) threads = a->rod_count;
    w.pool = threads > 1 ? cr_pool_create(threads) : NULL;
    if (!history || !alloc_work(&w)) {
        free(history);
        free_work(&w);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's static solver");
    }
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        cr_state *st = s->rods[r];
        st->stage = stage, st->dynamic = 0;
        memcpy(w.rw[r].from, st->load_scale, (m->load_count > 0 ? m->load_count : 1) * sizeof(double));
        if (m->load_count > 0) cr_model_stage_load_factors(m, stage, w.rw[r].to);
        w.rw[r].bc_from = st->bc_factor;
    }
    memcpy(w.bfrom, s->body_load_scale, (size_t)a->body_load_count * sizeof(double));
    cr_asm_body_stage_factors(a, stage, w.bto);
    s->stage = stage;
    for (int k = 0; k < a->joint_count; ++k) /* a joint that does not act in the stage carries nothing */
        if (!cr_asm_joint_active(a->joints + k, stage))
            for (int r = 0; r < a->joints[k].rows; ++r) s->lambda[a->joints[k].row0 + r] = 0.0;
    cr_status st = cr_asm_check_redundant(a, s, s->joint_factor, err);
    if (st == CR_OK) contact_begin(a, s);
    double lf = 0.0, dl = 1.0 / o.load_steps, dl_prev = 0.0;
    int halvings = 0, have_tan = 0; /* have_tan: tan_prev is the tangent at the last step's start */
    int friction_failed = 0;        /* the last failed step's pairs that began to slide in it */
    while (st == CR_OK && lf < 1.0) {
        double target = lf + dl > 1.0 - 1e-12 ? 1.0 : lf + dl;
        for (int r = 0; r < a->rod_count; ++r) memcpy(w.rw[r].x_saved, s->rods[r]->x, w.rw[r].dim * sizeof(double));
        memcpy(w.lambda_saved, s->lambda, (size_t)w.nl * sizeof(double));
        memcpy(w.body_saved, s->body, body_bytes(a));
        /* the step's reference residual, as cr_static_solve's: the last state under the new
         * loads (the predictor's residual would make rtol stricter than for one rod) */
        double ss, err0 = 0;
        size_t cnt;
        w.joint_f = w.joint_from + target * (1.0 - w.joint_from);
        const int evaluated = evaluate(&w, target, 0, &ss, &cnt) == CR_OK;
        if (evaluated) err0 = sqrt(ss / (double)(cnt > 0 ? cnt : 1));
        /* the tangent predictor from the last converged step (its factorizations): not on the
         * first step (nothing factored yet) nor after a failed attempt (the factorizations are
         * the failed iterates') */
        int predicted = 0;
        if (w.lu_converged) {
            cr_error pe = {0};
            predicted = tangent_predict(&w, target, lf, have_tan, dl_prev, evaluated, &pe) == CR_OK;
        }
        w.lu_converged = 0;
        correct_positions(&w, target); /* a failure here shows in the Newton solve */
        int iters = 0, hc = 0;
        double fe = 0;
        cr_error e = {0};
        cr_status sn = newton(&w, target, err0, &o, &iters, history, &hc, &fe, &e);
        rep->total_iterations += iters;
        /* the rods' friction follows the load path: at the step's equilibrium the anchors and
         * λ_T updated and the step solved with them, again while a pair began to slide (its
         * sticking equilibrium broke Coulomb's law); a step that fails puts them back */
        const int friction = a->contact && cr_asm_contact_frictional(a->contact);
        int slid = 0, saved = 0; /* slid: the most pairs that began to slide in one update */
        if (sn == CR_OK && friction) {
            saved = cr_asm_contact_static_save(a->contact) == 0;
            if (!saved) sn = cr_error_set(&e, CR_NO_MEMORY, "out of memory in the friction between the rods");
        }
        for (int k = 0; sn == CR_OK && friction; ++k) {
            int slipped = 0, it2 = 0;
            cr_asm_contact_gather(a->contact, a, s);
            if (cr_asm_contact_static_update(a->contact, NULL, &slipped) < 0) {
                sn = cr_error_set(&e, CR_NO_MEMORY, "out of memory in the friction between the rods");
                break;
            }
            if (slipped > slid) slid = slipped;
            if (k == 8 && slipped) { /* (pairs that keep beginning to slide: no equilibrium at this load) */
                sn = cr_error_set(&e, CR_NOT_CONVERGED, "pairs kept beginning to slide at load factor %g", target);
                break;
            }
            sn = newton(&w, target, err0, &o, &it2, history, &hc, &fe, &e);
            rep->total_iterations += it2, iters += it2;
            if (!slipped) break;
        }
        if (sn != CR_OK && saved) cr_asm_contact_static_restore(a->contact);
        if (sn != CR_OK) friction_failed = slid; /* (the last failed step's: 0 when nothing slid in it) */
        if (sn == CR_OK) {
            cr_asm_limits_accept(a, s, 0);
            if (predicted) { /* this step's tangent is the next one's previous */
                for (int r = 0; r < a->rod_count; ++r)
                    memcpy(w.rw[r].tan_prev, w.rw[r].tan, w.rw[r].dim * sizeof(double));
                memcpy(w.lambda_tan_prev, w.lambda_tan, (size_t)w.nl * sizeof(double));
                memcpy(w.body_tan_prev, w.body_tan, body_bytes(a));
                dl_prev = target - lf;
            }
            have_tan = predicted;
            w.lu_converged = 1;
            lf = target;
            if (cr_static_report_append(rep, lf, iters, history, hc) != CR_OK) {
                st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's static solver");
                break;
            }
            rep->final_residual = fe;
            if (on_step) { /* the state at lf as the end of the solve leaves it: loads, supports, welds */
                for (int r = 0; r < a->rod_count; ++r) {
                    cr_state *rs = s->rods[r];
                    for (int k = 0; k < a->models[r]->load_count; ++k)
                        rs->load_scale[k] = w.rw[r].from[k] + lf * (w.rw[r].to[k] - w.rw[r].from[k]);
                    rs->load_factor = lf;
                }
                s->load_factor = lf;
                for (int k = 0; k < a->body_load_count; ++k)
                    s->body_load_scale[k] = w.bfrom[k] + lf * (w.bto[k] - w.bfrom[k]);
                if (on_step(a, s, &rep->steps[rep->step_count - 1], rep->step_count - 1, user)) {
                    st = cr_error_set(err, CR_INTERRUPTED, "interrupted at load factor %.6g", lf);
                    break;
                }
            }
            continue;
        }
        /* restore the last converged state; a bad definition or no memory ends the solve */
        for (int r = 0; r < a->rod_count; ++r) memcpy(s->rods[r]->x, w.rw[r].x_saved, w.rw[r].dim * sizeof(double));
        memcpy(s->lambda, w.lambda_saved, (size_t)w.nl * sizeof(double));
        memcpy(s->body, w.body_saved, body_bytes(a));
        if (sn < 0 || halvings >= o.max_halvings) {
            if (friction_failed > 0) /* the likely cause: friction at its limit (statics has no sliding speed) */
                st = cr_error_set(err, sn,
                                  "contact.rods_friction: %d pair%s of segments began to slide at the friction's limit "
                                  "(mu_s N): no equilibrium beyond load factor %.6g, a load the friction between the "
                                  "rods cannot hold (%s); the state at load factor %.6g is kept",
                                  friction_failed, friction_failed == 1 ? "" : "s", lf, e.message, lf);
            else if (a->contact && cr_asm_contact_frictional(a->contact) && cr_asm_contact_anchored(a->contact) > 0)
                /* nothing slid, yet no equilibrium while pairs stick: with the friction at the
                 * contact points a rod's rolling is a free motion of the tangent, which only
                 * loads balanced about the rods' axes leave at rest (docs/theory.md "Friction
                 * between the rods in static stages") */
                st = cr_error_set(err, sn,
                                  "contact.rods_friction: no equilibrium beyond load factor %.6g while %d pair%s of "
                                  "segments stick: a load the friction between the rods cannot hold (friction acts "
                                  "at the contact points: a rod whose torque about its axis the friction's moment "
                                  "does not balance rolls) (%s); the state at load factor %.6g is kept",
                                  lf, cr_asm_contact_anchored(a->contact),
                                  cr_asm_contact_anchored(a->contact) == 1 ? "" : "s", e.message, lf);
            else
                st = cr_error_set(err, sn, "%s; the state at load factor %.6g is kept", e.message, lf);
            break;
        }
        ++halvings, ++rep->failed_attempts;
        dl *= 0.5;
    }
    /* the joint limits' and the obstacles' multiplier updates, each until settled, again
     * while the other's moved the state (a stop and a contact that press on each other) */
    for (int pass = 0, settled = 0; st == CR_OK && lf >= 1.0 && !settled; ++pass) {
        if (pass == 4) { /* each settles alone, and each moves the other again: no equilibrium found */
            st = cr_error_set(err, CR_NOT_CONVERGED,
                              "joints' limits and contact: 4 rounds of their multiplier updates, each settling "
                              "in turn, kept moving each other (raise the limits' or contact.stiffness)");
            break;
        }
        const int before = rep->total_iterations;
        if (cr_asm_has_limits(a)) st = limit_updates(&w, &o, history, rep, err);
        if (st == CR_OK) st = contact_updates(&w, &o, rep, history, err);
        settled = rep->total_iterations == before;
    }
    /* the state's loads, supports and welds where the last accepted step left them */
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        cr_state *sr = s->rods[r];
        for (int k = 0; k < m->load_count; ++k)
            sr->load_scale[k] = w.rw[r].from[k] + lf * (w.rw[r].to[k] - w.rw[r].from[k]);
        sr->bc_factor = w.rw[r].bc_from + lf * (1.0 - w.rw[r].bc_from);
        sr->load_factor = lf;
    }
    s->joint_factor = w.joint_from + lf * (1.0 - w.joint_from);
    s->load_factor = lf;
    for (int k = 0; k < a->body_load_count; ++k) s->body_load_scale[k] = w.bfrom[k] + lf * (w.bto[k] - w.bfrom[k]);
    for (int b = 0; b < a->body_count; ++b) /* at rest */
        for (int c = 7; c < CR_ASM_BODY_DOF; ++c) s->body[(size_t)CR_ASM_BODY_DOF * b + c] = 0.0;
    rep->load_factor = lf;
    rep->converged = st == CR_OK;
    rep->assembly_time_s = w.t_assembly;
    rep->solve_time_s = w.t_solve;
    rep->wall_time_s = now() - t_start;
    free(history);
    free_work(&w);
    if (!report) cr_static_report_free(&local);
    return st;
}
