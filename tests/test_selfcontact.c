/* Self-contact of the mixed rod (docs/theory.md "Contact between rods"): the static residual's
 * Jacobian, block-tridiagonal part plus the low-rank far-node coupling, against central
 * differences; the Woodbury solve against a dense solve of the same matrix; Radau's shifted
 * solve with the coupling, corrected where it matters and left out where it does not. */
#include "check.h"
#include "contact/rodcontact.h"
#include "linalg/blocktri_shifted.h"
#include "linalg/lowrank.h"
#include "mixed/mixed.h"
#include "mixed/model_internal.h"
#include "mixed/selfcontact.h"

#include <stdlib.h>
#include <string.h>

static cr_section_segment sec;
static cr_bc_def bcs[2];

/* A rod of n elements (radius 0.01, length 1) with self-contact, clamped at node 0 and held along
 * inertial x and z at its last node (a partial support: its rows are rotated and replaced). */
static cr_model *looped_rod(int n)
{
    sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.01;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.0, d.elements = n, d.material = (cr_material){1e7, 0.4e7, 1000};
    d.sections = &sec, d.section_count = 1;
    d.contact.self = 1;
    bcs[0] = cr_bc_default_def(), bcs[0].type = CR_BC_CLAMP, bcs[0].node = 0;
    bcs[1] = cr_bc_default_def(), bcs[1].type = CR_BC_SUPPORT, bcs[1].node = -1, bcs[1].hold = CR_HOLD_X | CR_HOLD_Z;
    d.bcs = bcs, d.bc_count = 2;
    return cr_model_create(&d, NULL);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* The rod laid on 1.15 turns of a circle rising by less than its diameter a turn: its two ends
 * overlap over 0.15 turn, pressed 2 mm into each other, then every coordinate perturbed. */
static void looped_state(const cr_model *m, double *x)
{
    const int n = m->nodes - 1;
    const double turns = 1.15, R = 1.0 / (2 * M_PI * turns), rise = 0.018 * turns;
    memset(x, 0, (size_t)m->nodes * m->block * sizeof *x);
    for (int i = 0; i <= n; ++i) {
        double th = 2 * M_PI * turns * i / n;
        double *xi = x + (size_t)i * m->block;
        xi[0] = R * cos(th) + 1e-4 * urand(), xi[1] = R * sin(th) + 1e-4 * urand();
        xi[2] = rise * i / n + 1e-4 * urand();
        cr_q_store(cr_q_normalize(cr_q(1 + 0.05 * urand(), 0.05 * urand(), 0.05 * urand(), 0.05 * urand())), xi + 3);
    }
}

static void residual(const cr_model *m, const double *x, double *F, cr_blocktri *J)
{
    double scale[4] = {1, 1, 1, 1};
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_mixed_static_residual(m, &at, scale, x, F, J, NULL);
}

/* (J + U C Uᵀ) v */
static void full_apply(const cr_model *m, const cr_blocktri *J, const double *v, double *out)
{
    cr_blocktri_matvec(J, v, out);
    const cr_lowrank *lr = m->couple;
    const size_t ld = 3 * (size_t)lr->cap;
    for (int r = 0; r < 3 * lr->m; ++r) {
        double s = 0;
        for (int c = 0; c < 3 * lr->m; ++c) s += lr->C[r * ld + c] * v[(size_t)lr->node[c / 3] * lr->b + c % 3];
        out[(size_t)lr->node[r / 3] * lr->b + r % 3] += s;
    }
}

/* Directional derivatives of the whole residual (elements, supports and contact) along random
 * directions and along each coupled coordinate, against the Jacobian with its low-rank part; with
 * multipliers from one Uzawa update and without (a penalty). */
static void test_residual_jacobian_fd(void)
{
    cr_model *m = looped_rod(60);
    const int B = m->block, N = m->nodes * B;
    double *x = malloc(N * sizeof *x), *F = malloc(N * sizeof *F), *Fp = malloc(N * sizeof *F),
           *Fm = malloc(N * sizeof *F), *v = malloc(N * sizeof *v), *Jv = malloc(N * sizeof *v),
           *xp = malloc(N * sizeof *x);
    cr_blocktri *J = cr_blocktri_create(m->nodes, B);
    for (int round = 0; round < 2; ++round) {
        looped_state(m, x);
        if (round == 1) cr_rodcontact_update(m->selfcontact, x, B, NULL); /* λ ← N */
        residual(m, x, F, J);
        const int pairs = m->selfcontact->pair_count;
        CHECK(pairs >= 3 && m->couple->m >= 6);
        double worst = 0;
        const int dirs = 12 + 3 * m->couple->m;
        for (int d = 0; d < dirs; ++d) {
            for (int k = 0; k < N; ++k) v[k] = d < 12 ? urand() : 0;
            if (d >= 12) v[(size_t)m->couple->node[(d - 12) / 3] * B + (d - 12) % 3] = 1;
            const double h = 1e-7;
            for (int k = 0; k < N; ++k) xp[k] = x[k] + h * v[k];
            residual(m, xp, Fp, NULL);
            for (int k = 0; k < N; ++k) xp[k] = x[k] - h * v[k];
            residual(m, xp, Fm, NULL);
            residual(m, x, F, J); /* the coupling of x again */
            full_apply(m, J, v, Jv);
            double emax = 0, jmax = 0;
            for (int k = 0; k < N; ++k) {
                emax = fmax(emax, fabs((Fp[k] - Fm[k]) / (2 * h) - Jv[k]));
                jmax = fmax(jmax, fabs(Jv[k]));
            }
            worst = fmax(worst, emax / jmax);
        }
        CHECK(worst < 1e-5);
        fprintf(stderr, "self-contact residual Jacobian (%s, %d pairs, %d coupled nodes): worst relative error %.3g\n",
                round ? "multipliers" : "penalty", pairs, m->couple->m, worst);
    }
    free(x), free(F), free(Fp), free(Fm), free(v), free(Jv), free(xp);
    cr_blocktri_destroy(J);
    cr_model_destroy(m);
}

static void solve_cb(void *ctx, double *v) { cr_blocktri_solve(ctx, v); }

/* The Woodbury solve (J + U C Uᵀ)⁻¹ r against the residual of the same system applied densely. */
static void test_woodbury_solve(void)
{
    cr_model *m = looped_rod(60);
    const int B = m->block, N = m->nodes * B;
    double *x = malloc(N * sizeof *x), *F = malloc(N * sizeof *F), *r = malloc(N * sizeof *r),
           *y = malloc(N * sizeof *r), *Ay = malloc(N * sizeof *r);
    cr_blocktri *J = cr_blocktri_create(m->nodes, B), *LU = cr_blocktri_create(m->nodes, B);
    looped_state(m, x);
    residual(m, x, F, J);
    residual(m, x, F, LU);
    for (int k = 0; k < N; ++k) r[k] = y[k] = urand();
    CHECK(cr_blocktri_factor(LU, NULL) == CR_OK);
    cr_blocktri_solve(LU, y);
    CHECK(cr_lowrank_correct(m->couple, solve_cb, LU, y) == CR_OK);
    full_apply(m, J, y, Ay);
    double e = 0, rn = 0, ec = 0, yn = 0;
    for (int k = 0; k < N; ++k) e = fmax(e, fabs(Ay[k] - r[k])), rn = fmax(rn, fabs(r[k])), yn = fmax(yn, fabs(y[k]));
    /* the round-off scale: |A| |y|, |A| the largest row sum of the whole matrix */
    double an = 0;
    for (int k = 0; k < N; ++k) {
        memset(Ay, 0, N * sizeof *Ay);
        double *col = calloc(N, sizeof *col);
        col[k] = 1;
        full_apply(m, J, col, Ay);
        for (int q = 0; q < N; ++q) an = fmax(an, fabs(Ay[q]));
        free(col);
    }
    /* and the coupling matters: without the correction the residual is far off */
    for (int k = 0; k < N; ++k) y[k] = r[k];
    cr_blocktri_solve(LU, y);
    full_apply(m, J, y, Ay);
    for (int k = 0; k < N; ++k) ec = fmax(ec, fabs(Ay[k] - r[k]));
    CHECK(e < 1e-12 * an * yn);
    CHECK(ec > 1e-3 * rn);
    fprintf(stderr, "Woodbury solve: residual %.3g (without the correction %.3g) of |r| %.3g, |A||y| %.3g\n", e, ec, rn,
            an * yn);
    free(x), free(F), free(r), free(y), free(Ay);
    cr_blocktri_destroy(J), cr_blocktri_destroy(LU);
    cr_model_destroy(m);
}

/* The dynamic residual (a penalty on the momentum rows) against central differences, with the
 * low-rank part (momentum rows × position columns), velocities and stresses random. */
static void test_dynamic_jacobian_fd(void)
{
    cr_model *m = looped_rod(60);
    const int B = CR_DYN_BLOCK, N = m->nodes * B, Bs = m->block;
    double *xs = malloc((size_t)m->nodes * Bs * sizeof *xs), *y = malloc(N * sizeof *y), *F = malloc(N * sizeof *F),
           *Fp = malloc(N * sizeof *F), *Fm = malloc(N * sizeof *F), *v = malloc(N * sizeof *v),
           *Jv = malloc(N * sizeof *v), *yp = malloc(N * sizeof *y);
    looped_state(m, xs);
    for (int i = 0; i < m->nodes; ++i) {
        for (int k = 0; k < 7; ++k) y[(size_t)i * B + k] = xs[(size_t)i * Bs + k];
        for (int k = 7; k < B; ++k) y[(size_t)i * B + k] = 0.01 * urand();
    }
    double scale[4] = {1, 1, 1, 1};
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_blocktri *J = cr_blocktri_create(m->nodes, B);
    cr_mixed_dynamic_residual(m, &at, scale, y, F, J);
    const cr_lowrank *lr = m->couple_dyn;
    CHECK(m->selfcontact->pair_count >= 3 && lr->m >= 6);
    double worst = 0;
    for (int d = 0; d < 12 + 3 * lr->m; ++d) {
        for (int k = 0; k < N; ++k) v[k] = d < 12 ? urand() : 0;
        if (d >= 12) v[(size_t)lr->node[(d - 12) / 3] * B + (d - 12) % 3] = 1;
        const double h = 1e-7;
        for (int k = 0; k < N; ++k) yp[k] = y[k] + h * v[k];
        cr_mixed_dynamic_residual(m, &at, scale, yp, Fp, NULL);
        for (int k = 0; k < N; ++k) yp[k] = y[k] - h * v[k];
        cr_mixed_dynamic_residual(m, &at, scale, yp, Fm, NULL);
        cr_blocktri_matvec(J, v, Jv);
        const size_t ld = 3 * (size_t)lr->cap;
        for (int r = 0; r < 3 * lr->m; ++r) {
            double sum = 0;
            for (int c = 0; c < 3 * lr->m; ++c)
                sum += lr->C[r * ld + c] * v[(size_t)lr->node[c / 3] * B + lr->coff + c % 3];
            Jv[(size_t)lr->node[r / 3] * B + lr->roff + r % 3] += sum;
        }
        double emax = 0, jmax = 0;
        for (int k = 0; k < N; ++k) {
            emax = fmax(emax, fabs((Fp[k] - Fm[k]) / (2 * h) - Jv[k]));
            jmax = fmax(jmax, fabs(Jv[k]));
        }
        worst = fmax(worst, emax / jmax);
    }
    CHECK(worst < 1e-5);
    fprintf(stderr, "self-contact dynamic residual Jacobian (%d pairs): worst relative error %.3g\n",
            m->selfcontact->pair_count, worst);
    free(xs), free(y), free(F), free(Fp), free(Fm), free(v), free(Jv), free(yp);
    cr_blocktri_destroy(J);
    cr_model_destroy(m);
}

typedef struct dyn_jac_ctx {
    const cr_model *m;
} dyn_jac_ctx;

static cr_status dyn_jac(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    (void)t, (void)fy;
    const dyn_jac_ctx *c = user;
    double scale[4] = {1, 1, 1, 1}, *F = malloc((size_t)c->m->nodes * CR_DYN_BLOCK * sizeof *F);
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_status st = cr_mixed_dynamic_residual(c->m, &at, scale, y, F, J);
    free(F);
    return st;
}

/* Radau's real shifted solve with the self-contact (s M − J − U C Vᵀ) x = r, through the dynamic
 * stage's wrapper, against the residual of that matrix applied in full. At a small shift (large
 * steps: the pairs' stiffness |C| far above 0.1 s² m_i) the Woodbury correction is applied and the
 * solve is exact to round-off; at a large shift (|C| below 10⁻³ s² m_i) it is left out, and the
 * residual is the neglected coupling's: for a load on the momentum rows, v ≈ r/(s m), the
 * positions v/s, and C times them is about that fraction of |r|. */
static void test_dynamic_shifted_solve(void)
{
    cr_model *m = looped_rod(60);
    const int B = CR_DYN_BLOCK, N = m->nodes * B, Bs = m->block;
    double *xs = malloc((size_t)m->nodes * Bs * sizeof *xs), *y = malloc(N * sizeof *y), *F = malloc(N * sizeof *F),
           *mass = malloc(N * sizeof *mass), *r = malloc(N * sizeof *r), *x = malloc(N * sizeof *x),
           *Jx = malloc(N * sizeof *Jx);
    looped_state(m, xs);
    for (int i = 0; i < m->nodes; ++i) {
        for (int k = 0; k < 7; ++k) y[(size_t)i * B + k] = xs[(size_t)i * Bs + k];
        for (int k = 7; k < B; ++k) y[(size_t)i * B + k] = 0.01 * urand();
    }
    cr_mixed_dynamic_mass(m, 0, mass);
    dyn_jac_ctx jc = {m};
    cr_blocktri_radau *lin = cr_blocktri_radau_create(m->nodes, B, mass, 0, dyn_jac, &jc, NULL);
    CHECK(lin != NULL);
    cr_radau_linsys ls;
    void *owned = NULL;
    CHECK(cr_mixed_selfcontact_linsys(m, cr_blocktri_radau_linsys(lin), &ls, &owned) == CR_OK);
    CHECK(ls.jacobian(0.0, y, F, ls.ctx) == CR_OK);
    const cr_lowrank *lr = m->couple_dyn;
    const size_t ld = 3 * (size_t)lr->cap;
    double cmax = 0, mmin = INFINITY; /* the coupling's largest row sum, the coupled nodes' smallest mass */
    for (int q = 0; q < 3 * lr->m; ++q) {
        double sum = 0;
        for (int c = 0; c < 3 * lr->m; ++c) sum += fabs(lr->C[q * ld + c]);
        cmax = fmax(cmax, sum);
        mmin = fmin(mmin, m->node_mass[lr->node[q / 3]]);
    }
    CHECK(lr->m >= 6 && cmax > 0);
    const double shifts[2] = {sqrt(cmax / mmin), sqrt(1e3 * cmax / mmin)}; /* |C| = s² m, 10⁻³ s² m */
    double res[2];
    for (int t = 0; t < 2; ++t) {
        const double s = shifts[t];
        CHECK(ls.factor_real(s, ls.ctx) == CR_OK);
        double rn = 0;
        for (int k = 0; k < N; ++k) /* forces and moments: the momentum rows */
            r[k] = x[k] = (k % B >= CR_DYN_V && k % B < CR_DYN_LAM) ? urand() : 0, rn = fmax(rn, fabs(r[k]));
        CHECK(ls.solve_real(x, ls.ctx) == CR_OK);
        cr_blocktri_matvec(lin->J, x, Jx);
        for (int q = 0; q < 3 * lr->m; ++q) {
            double sum = 0;
            for (int c = 0; c < 3 * lr->m; ++c)
                sum += lr->C[q * ld + c] * x[(size_t)lr->node[c / 3] * B + lr->coff + c % 3];
            Jx[(size_t)lr->node[q / 3] * B + lr->roff + q % 3] += sum;
        }
        double e = 0;
        for (int k = 0; k < N; ++k) e = fmax(e, fabs(s * mass[k] * x[k] - Jx[k] - r[k]));
        res[t] = e / rn;
    }
    fprintf(stderr,
            "dynamic shifted solve with self-contact: relative residual %.3g (|C| = s² m, corrected), "
            "%.3g (|C| = 1e-3 s² m, left out)\n",
            res[0], res[1]);
    CHECK(res[0] < 1e-9);
    CHECK(res[1] > 1e-6 && res[1] < 2e-3);
    cr_mixed_selfcontact_linsys_free(owned);
    cr_blocktri_radau_destroy(lin);
    free(xs), free(y), free(F), free(mass), free(r), free(x), free(Jx);
    cr_model_destroy(m);
}

CHECK_MAIN(CASE(test_residual_jacobian_fd), CASE(test_woodbury_solve), CASE(test_dynamic_jacobian_fd),
           CASE(test_dynamic_shifted_solve))
