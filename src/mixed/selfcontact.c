/* Contact of the mixed rod with itself (selfcontact.h). */
#include "selfcontact.h"

#include "contact/rodcontact.h"
#include "linalg/lowrank.h"
#include "supports.h"

#include <math.h>
#include <stdlib.h>

cr_status cr_mixed_selfcontact_create(cr_model *m, const cr_rod_def *def, cr_error *err)
{
    double *radius = malloc((size_t)m->nodes * sizeof *radius);
    if (!radius) return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    /* radius, ε and tolerance as the obstacles' (model.c) */
    double eps, tol;
    cr_status st = cr_mixed_contact_params(m, def, "give the contact radius for contact.self", radius, &eps, &tol, err);
    if (st != CR_OK) {
        free(radius);
        return st;
    }
    m->selfcontact = cr_rodcontact_create(m->nodes, radius, m->s, eps, tol);
    m->couple = cr_lowrank_create(m->nodes, m->block, 0, 0);
    m->couple_dyn = cr_lowrank_create(m->nodes, CR_DYN_BLOCK, CR_DYN_V, 0);
    free(radius);
    if (!m->selfcontact || !m->couple || !m->couple_dyn)
        return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    return CR_OK;
}

void cr_mixed_selfcontact_destroy(cr_model *m)
{
    cr_rodcontact_destroy(m->selfcontact);
    cr_lowrank_destroy(m->couple);
    cr_lowrank_destroy(m->couple_dyn);
    m->selfcontact = NULL, m->couple = NULL, m->couple_dyn = NULL;
}

void cr_mixed_selfcontact_rows(const cr_model *m, const double *x, double *F, cr_blocktri *J)
{
    cr_rodcontact *c = m->selfcontact;
    const int B = m->block;
    int np = cr_rodcontact_find(c, x, B);
    if (J) cr_lowrank_clear(m->couple);
    if (np < 0) { /* out of memory: a residual that is not finite stops the solve */
        F[0] = NAN;
        return;
    }
    for (int k = 0; k < np; ++k) {
        const cr_rodpair *p = &c->pair[k];
        const int nodes[4] = {p->a, p->a + 1, p->b, p->b + 1};
        double f[12], K[144];
        cr_rodcontact_pair_force(c, k, x, B, f, J ? K : NULL);
        for (int q = 0; q < 4; ++q)
            for (int r = 0; r < 3; ++r) F[(size_t)nodes[q] * B + r] += f[3 * q + r];
        if (J && cr_lowrank_add(m->couple, nodes, 4, K) != CR_OK) F[0] = NAN;
    }
}

void cr_mixed_selfcontact_supports(const cr_model *m, const cr_supports_at *at)
{
    cr_lowrank *lr = m->couple;
    const size_t ld = 3 * (size_t)lr->cap;
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        const unsigned h = sp->hold & CR_HOLD_TRANSLATION;
        if (!h || !cr_support_active(sp, at->stage) || lr->slot[sp->node] < 0) continue;
        double *row = lr->C + 3 * (size_t)lr->slot[sp->node] * ld; /* the node's three rows */
        const int k3 = 3 * lr->m;
        if (h != CR_HOLD_TRANSLATION) /* rows a = d_aᵀ (rows), the support's axes d_a */
            for (int c = 0; c < k3; ++c) {
                double v[3] = {row[c], row[ld + c], row[2 * ld + c]};
                for (int a = 0; a < 3; ++a)
                    row[a * ld + c] = sp->axes.m[0][a] * v[0] + sp->axes.m[1][a] * v[1] + sp->axes.m[2][a] * v[2];
            }
        for (int a = 0; a < 3; ++a) /* a held coordinate's row is its constraint, J's alone */
            if (h & (1u << a))
                for (int c = 0; c < k3; ++c) row[a * ld + c] = 0;
    }
}

cr_status cr_mixed_selfcontact_check_start(const cr_model *m, cr_error *err)
{
    const int B = m->block;
    double *x = calloc((size_t)m->nodes * B, sizeof *x);
    if (!x) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    for (int i = 0; i < m->nodes; ++i) cr_v3_store(m->ref_r[i], x + (size_t)i * B);
    int a = -1, b = -1;
    const double g = cr_rodcontact_min_gap(m->selfcontact, x, B, &a, &b);
    free(x);
    if (g < -m->selfcontact->tol)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.self: the rod starts inside itself: the segment of nodes %d–%d and that of nodes "
                            "%d–%d overlap by %.3g m (more than the tolerance %.3g m)",
                            a, a + 1, b, b + 1, -g, m->selfcontact->tol);
    return CR_OK;
}

void cr_mixed_selfcontact_dynamic_rows(const cr_model *m, const cr_supports_at *at, const double *y, double *F,
                                       cr_blocktri *J)
{
    cr_rodcontact *c = m->selfcontact;
    const int B = CR_DYN_BLOCK;
    cr_lowrank *lr = m->couple_dyn;
    int np = cr_rodcontact_find(c, y, B);
    if (J) cr_lowrank_clear(lr);
    if (np < 0) {
        F[CR_DYN_V] = NAN;
        return;
    }
    for (int k = 0; k < np; ++k) {
        const cr_rodpair *p = &c->pair[k];
        const int nodes[4] = {p->a, p->a + 1, p->b, p->b + 1};
        double f[12], K[144];
        cr_rodcontact_pair_force(c, k, y, B, f, J ? K : NULL);
        for (int q = 0; q < 4; ++q)
            for (int r = 0; r < 3; ++r) F[(size_t)nodes[q] * B + CR_DYN_V + r] += f[3 * q + r];
        if (J && cr_lowrank_add(lr, nodes, 4, K) != CR_OK) F[CR_DYN_V] = NAN;
    }
    if (!J) return;
    const size_t ld = 3 * (size_t)lr->cap;
    for (int k = 0; k < m->support_count; ++k) { /* held velocities: their rows are the supports' */
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, at->stage) || lr->slot[sp->node] < 0) continue;
        int rows[13];
        cr_supports_dynamic_held(m, sp, at, k, rows);
        double *row = lr->C + 3 * (size_t)lr->slot[sp->node] * ld;
        for (int a = 0; a < 3; ++a)
            if (rows[CR_DYN_V + a])
                for (int q = 0; q < 3 * lr->m; ++q) row[a * ld + q] = 0;
    }
}

/* Radau's shifted solves with the coupling: the real and the complex system each keep their own
 * prepared correction (Radau alternates between them), both of the last Jacobian's C. */
typedef struct selfcontact_linsys {
    cr_radau_linsys inner;
    const cr_model *m;
    cr_lowrank *real_, *complex_; /* copies of m->couple_dyn at the last Jacobian */
    int use_real, use_complex;    /* the correction is prepared for the current factorization */
} selfcontact_linsys;

/* Whether the coupling matters against the shifted matrix s M − J at |s|² = s2. In the
 * velocities (the positions condensed, x = v/s) a pair's stiffness K enters as K/s against the
 * node's s m: the coupling is the fraction |K|/(|s|² m) of the matrix, and simplified Newton's
 * contraction grows by about that much when it is left out of the solves. Below 0.1 of every
 * coupled node's |s|² m_i (the row sums of |C|), it is left out: the dynamic stage already
 * keeps a Jacobian while the contraction stays below 0.1 (jac_reuse_theta, dynamics_solve.c),
 * and the correction costs 3m solves and a dense LU per factorization and one more solve per
 * solve. The rope pile's steps (1-3·10⁻⁴ s) keep it below 0.1 throughout: 1.5 % more Newton
 * iterations, 1.3-1.7x less CPU time (bench/README.md); larger steps bring it back. */
#define WEAK_COUPLING 0.1
static int coupling_matters(const selfcontact_linsys *w, const cr_lowrank *lr, double s2)
{
    const size_t ld = 3 * (size_t)lr->cap;
    const int k = 3 * lr->m;
    for (int r = 0; r < k; ++r) {
        double sum = 0;
        for (int c = 0; c < k; ++c) sum += fabs(lr->C[r * ld + c]);
        if (sum > WEAK_COUPLING * s2 * w->m->node_mass[lr->node[r / 3]]) return 1;
    }
    return 0;
}

static cr_status sl_jacobian(double t, const double *y, const double *fy, void *ctx)
{
    selfcontact_linsys *w = ctx;
    cr_status st = w->inner.jacobian(t, y, fy, w->inner.ctx); /* rebuilds m->couple_dyn */
    if (st == CR_OK) st = cr_lowrank_copy(w->real_, w->m->couple_dyn);
    if (st == CR_OK) st = cr_lowrank_copy(w->complex_, w->m->couple_dyn);
    return st;
}

static void sl_inner_real(void *ctx, double *v)
{
    selfcontact_linsys *w = ctx;
    w->inner.solve_real(v, w->inner.ctx);
}

static void sl_inner_complex(void *ctx, double *re, double *im)
{
    selfcontact_linsys *w = ctx;
    w->inner.solve_complex(re, im, w->inner.ctx);
}

/* shift·M − (J + U C Vᵀ): σ = −1 */
static cr_status sl_factor_real(double shift, void *ctx)
{
    selfcontact_linsys *w = ctx;
    cr_status st = w->inner.factor_real(shift, w->inner.ctx);
    w->use_real = st == CR_OK && coupling_matters(w, w->real_, shift * shift);
    if (w->use_real) st = cr_lowrank_prepare(w->real_, -1.0, sl_inner_real, w);
    return st;
}

static cr_status sl_solve_real(double *b, void *ctx)
{
    selfcontact_linsys *w = ctx;
    cr_status st = w->inner.solve_real(b, w->inner.ctx);
    if (st == CR_OK && w->use_real) cr_lowrank_apply(w->real_, b);
    return st;
}

static cr_status sl_factor_complex(double re, double im, void *ctx)
{
    selfcontact_linsys *w = ctx;
    cr_status st = w->inner.factor_complex(re, im, w->inner.ctx);
    w->use_complex = st == CR_OK && coupling_matters(w, w->complex_, re * re + im * im);
    if (w->use_complex) st = cr_lowrank_prepare_complex(w->complex_, -1.0, sl_inner_complex, w);
    return st;
}

static cr_status sl_solve_complex(double *re, double *im, void *ctx)
{
    selfcontact_linsys *w = ctx;
    cr_status st = w->inner.solve_complex(re, im, w->inner.ctx);
    if (st == CR_OK && w->use_complex) cr_lowrank_apply_complex(w->complex_, re, im);
    return st;
}

cr_status cr_mixed_selfcontact_linsys(const cr_model *m, cr_radau_linsys inner, cr_radau_linsys *out, void **owned)
{
    selfcontact_linsys *w = calloc(1, sizeof *w);
    if (!w) return CR_NO_MEMORY;
    w->inner = inner, w->m = m;
    w->real_ = cr_lowrank_create(m->nodes, CR_DYN_BLOCK, CR_DYN_V, 0);
    w->complex_ = cr_lowrank_create(m->nodes, CR_DYN_BLOCK, CR_DYN_V, 0);
    if (!w->real_ || !w->complex_) {
        cr_lowrank_destroy(w->real_), cr_lowrank_destroy(w->complex_);
        free(w);
        return CR_NO_MEMORY;
    }
    *out = (cr_radau_linsys){.jacobian = sl_jacobian,
                             .factor_real = sl_factor_real,
                             .solve_real = sl_solve_real,
                             .factor_complex = sl_factor_complex,
                             .solve_complex = sl_solve_complex,
                             .ctx = w};
    *owned = w;
    return CR_OK;
}

void cr_mixed_selfcontact_linsys_free(void *owned)
{
    selfcontact_linsys *w = owned;
    if (!w) return;
    cr_lowrank_destroy(w->real_);
    cr_lowrank_destroy(w->complex_);
    free(w);
}
