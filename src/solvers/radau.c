/* Adaptive Radau IIA (3 stages, order 5) for M y' = F(t, y), M diagonal.
 *
 * The algorithm follows Hairer & Wanner, Solving ODEs II, section IV.8, and
 * the design of their code RADAU5; subsections of IV.8 are cited by name.
 * Notation: stage increments Z_k = Y_k − y0 (k = 0, 1, 2 here, 1..3 in the
 * book), transformed increments W = (T^{-1} ⊗ I) Z, γ̂, α̂ ± iβ̂ the eigenvalues
 * of A^{-1}. Everything the method needs is computed in
 * cr_radau_tableau_compute; no coefficient is typed in.
 */
#include "cosserat/radau.h"
#include "math/finite.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

/* ======================================================================== */
/* Tableau                                                                  */
/* ======================================================================== */

/* 3×3 matrices are passed as pointers to the whole array, double (*)[3][3], and
 * called with &M. A parameter declared double a[3][3] is a pointer to its first
 * row: gcc (12, -O2 and up) then sizes the argument as that row, 24 bytes, while
 * the declared bound says 72 are read, and reports -Wstringop-overflow; indexing
 * past the first row through a row pointer is also outside what C guarantees.
 * A pointer to the 3×3 array covers all of it. */

/* 3×3 inverse by Gauss–Jordan with partial pivoting; returns 0 on success. */
static int inv3(const double (*a)[3][3], double (*out)[3][3])
{
    double m[3][6];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            m[i][j] = (*a)[i][j];
            m[i][j + 3] = (i == j) ? 1.0 : 0.0;
        }
    for (int col = 0; col < 3; ++col) {
        int p = col;
        for (int r = col + 1; r < 3; ++r)
            if (fabs(m[r][col]) > fabs(m[p][col])) p = r;
        if (m[p][col] == 0.0) return 1;
        if (p != col)
            for (int j = 0; j < 6; ++j) {
                double tmp = m[p][j];
                m[p][j] = m[col][j];
                m[col][j] = tmp;
            }
        double piv = m[col][col];
        for (int j = 0; j < 6; ++j) m[col][j] /= piv;
        for (int r = 0; r < 3; ++r) {
            if (r == col) continue;
            double f = m[r][col];
            for (int j = 0; j < 6; ++j) m[r][j] -= f * m[col][j];
        }
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) (*out)[i][j] = m[i][j + 3];
    return 0;
}

static void mul3(const double (*a)[3][3], const double (*b)[3][3], double (*out)[3][3])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k) s += (*a)[i][k] * (*b)[k][j];
            (*out)[i][j] = s;
        }
}

/* Null vector of a rank-2 3×3 complex matrix: the cross product of the two
 * rows whose cross product is largest (r·(r×q) = 0 holds bilinearly, without
 * conjugation, so this is exact for complex rows too). */
static void null3(double complex m[3][3], double complex v[3])
{
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    double best = -1.0;
    for (int p = 0; p < 3; ++p) {
        const double complex *r = m[pairs[p][0]], *q = m[pairs[p][1]];
        double complex x[3] = {r[1] * q[2] - r[2] * q[1], r[2] * q[0] - r[0] * q[2],
                               r[0] * q[1] - r[1] * q[0]};
        double nrm = cabs(x[0]) + cabs(x[1]) + cabs(x[2]);
        if (nrm > best) {
            best = nrm;
            for (int k = 0; k < 3; ++k) v[k] = x[k];
        }
    }
}

cr_status cr_radau_tableau_compute(cr_radau_tableau *tab, cr_error *err)
{
    if (!tab) return cr_error_set(err, CR_BAD_INPUT, "radau: tableau pointer is NULL");
    memset(tab, 0, sizeof *tab);

    /* Nodes: Radau IIA nodes are the zeros of d^{s−1}/dx^{s−1}[x^{s−1}(x−1)^s]
     * (HW IV.5). For s = 3 expand x²(x−1)³, differentiate twice, divide out the
     * root x = 1 and solve the remaining quadratic. */
    double p5[6] = {0}; /* coefficients of x^k */
    {
        static const double binom3[4] = {1, 3, 3, 1};
        for (int k = 0; k <= 3; ++k) /* (x−1)^3 = Σ C(3,k) x^k (−1)^{3−k} */
            p5[k + 2] = binom3[k] * (((3 - k) % 2) ? -1.0 : 1.0);
    }
    double q3[4]; /* second derivative, degree 3 */
    for (int k = 0; k <= 3; ++k) q3[k] = p5[k + 2] * (k + 2) * (k + 1);
    /* synthetic division by (x − 1): q3 = (x − 1)(r2 x² + r1 x + r0) */
    double r2 = q3[3], r1 = q3[2] + r2, r0 = q3[1] + r1;
    double disc = r1 * r1 - 4.0 * r2 * r0;
    if (disc <= 0.0 || fabs(q3[0] + r0) > 1e-12 * fabs(r0))
        return cr_error_set(err, CR_NOT_CONVERGED, "radau: Radau polynomial has no real roots");
    tab->c[0] = (-r1 - sqrt(disc)) / (2.0 * r2);
    tab->c[1] = (-r1 + sqrt(disc)) / (2.0 * r2);
    tab->c[2] = 1.0;

    /* A from the simplifying assumption C(3) (collocation): Σ_j a_ij c_j^{k−1}
     * = c_i^k / k, k = 1..3, i.e. A P = Q with P_jk = c_j^{k−1}. */
    double P[3][3], Q[3][3], Pinv[3][3];
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) P[j][k] = pow(tab->c[j], k);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) Q[i][k] = pow(tab->c[i], k + 1) / (k + 1);
    if (inv3((const double (*)[3][3])&P, &Pinv)) return cr_error_set(err, CR_NOT_CONVERGED, "radau: singular Vandermonde");
    mul3((const double (*)[3][3])&Q, (const double (*)[3][3])&Pinv, &tab->a);
    for (int j = 0; j < 3; ++j) tab->b[j] = tab->a[2][j]; /* stiffly accurate: c_3 = 1 */
    if (inv3((const double (*)[3][3])&tab->a, &tab->ainv)) return cr_error_set(err, CR_NOT_CONVERGED, "radau: A singular");

    /* Eigenvalues of A^{-1}: characteristic polynomial λ³ + a2 λ² + a1 λ + a0,
     * one real root by Cardano (the discriminant is positive), then deflation
     * to the quadratic whose roots are α̂ ± iβ̂. */
    const double (*Ai)[3] = (const double (*)[3])tab->ainv;
    double tr = Ai[0][0] + Ai[1][1] + Ai[2][2];
    double m2 = Ai[0][0] * Ai[1][1] - Ai[0][1] * Ai[1][0] + Ai[0][0] * Ai[2][2] -
                Ai[0][2] * Ai[2][0] + Ai[1][1] * Ai[2][2] - Ai[1][2] * Ai[2][1];
    double det = Ai[0][0] * (Ai[1][1] * Ai[2][2] - Ai[1][2] * Ai[2][1]) -
                 Ai[0][1] * (Ai[1][0] * Ai[2][2] - Ai[1][2] * Ai[2][0]) +
                 Ai[0][2] * (Ai[1][0] * Ai[2][1] - Ai[1][1] * Ai[2][0]);
    double a2 = -tr, a1 = m2, a0 = -det;
    double pp = a1 - a2 * a2 / 3.0;
    double qq = 2.0 * a2 * a2 * a2 / 27.0 - a2 * a1 / 3.0 + a0;
    double dd = qq * qq / 4.0 + pp * pp * pp / 27.0;
    if (dd <= 0.0)
        return cr_error_set(err, CR_NOT_CONVERGED, "radau: A^{-1} has no complex eigenvalue pair");
    double g = cbrt(-qq / 2.0 + sqrt(dd)) + cbrt(-qq / 2.0 - sqrt(dd)) - a2 / 3.0;
    for (int it = 0; it < 3; ++it) { /* polish the Cardano root */
        double f = ((g + a2) * g + a1) * g + a0, df = (3.0 * g + 2.0 * a2) * g + a1;
        g -= f / df;
    }
    double u = a2 + g, v = -a0 / g; /* λ³ + a2λ² + a1λ + a0 = (λ − γ̂)(λ² + uλ + v) */
    if (v - u * u / 4.0 <= 0.0)
        return cr_error_set(err, CR_NOT_CONVERGED, "radau: deflated quadratic has real roots");
    tab->gamma = g;
    tab->alpha = -u / 2.0;
    tab->beta = sqrt(v - u * u / 4.0);

    /* T: real eigenvector w of γ̂ (unit length, last entry > 0) and the real and
     * imaginary parts of the eigenvector v of α̂ + iβ̂ (scaled so v_3 = 1).
     * With A^{-1}(Re v + i Im v) = (α̂ + iβ̂)(Re v + i Im v), the columns
     * (Re v, −Im v) give the block [[α̂, −β̂], [β̂, α̂]]. */
    double complex mc[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) mc[i][j] = Ai[i][j] - (i == j ? g : 0.0);
    double complex wv[3];
    null3(mc, wv);
    double wn = sqrt(creal(wv[0]) * creal(wv[0]) + creal(wv[1]) * creal(wv[1]) +
                     creal(wv[2]) * creal(wv[2]));
    if (creal(wv[2]) < 0.0) wn = -wn;
    double complex lam = tab->alpha + I * tab->beta;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) mc[i][j] = Ai[i][j] - (i == j ? lam : 0.0);
    double complex cv[3];
    null3(mc, cv);
    double complex scale = cv[2];
    for (int i = 0; i < 3; ++i) {
        cv[i] /= scale;
        tab->t[i][0] = creal(wv[i]) / wn;
        tab->t[i][1] = creal(cv[i]);
        tab->t[i][2] = -cimag(cv[i]);
    }
    if (inv3((const double (*)[3][3])&tab->t, &tab->tinv)) return cr_error_set(err, CR_NOT_CONVERGED, "radau: T singular");

    /* Self-check: T^{-1} A^{-1} T against the block form, A A^{-1}, T T^{-1}. */
    double tmp[3][3], blk[3][3], id[3][3];
    mul3((const double (*)[3][3])&tab->ainv, (const double (*)[3][3])&tab->t, &tmp);
    mul3((const double (*)[3][3])&tab->tinv, (const double (*)[3][3])&tmp, &blk);
    const double want[3][3] = {{tab->gamma, 0, 0}, {0, tab->alpha, -tab->beta},
                               {0, tab->beta, tab->alpha}};
    double r_blk = 0.0, r_a = 0.0, r_t = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r_blk = fmax(r_blk, fabs(blk[i][j] - want[i][j]));
    mul3((const double (*)[3][3])&tab->a, (const double (*)[3][3])&tab->ainv, &id);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r_a = fmax(r_a, fabs(id[i][j] - (i == j)));
    mul3((const double (*)[3][3])&tab->t, (const double (*)[3][3])&tab->tinv, &id);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r_t = fmax(r_t, fabs(id[i][j] - (i == j)));
    tab->residual = r_blk + r_a + r_t;

    /* Embedded order-3 formula (HW IV.8, "Step Size Selection"):
     * ŷ1 = y0 + h(γ0 F(t0,y0) + Σ b̂_i F(Y_i)) with γ0 = 1/γ̂; b̂ from the order
     * conditions Σ b̂_i c_i^{k−1} = 1/k − γ0 δ_k1, k = 1..3. Then
     * M(ŷ1 − y1) = hγ0 F0 + Σ_j [(b̂ − b)^T A^{-1}]_j M Z_j, and multiplying
     * (M − hγ0 J)^{-1} through by γ̂/h gives the weights e_j = γ̂[(b̂−b)^T A^{-1}]_j
     * of the (γ̂/h M − J) form used in estimate_error. */
    double V[3][3], Vinv[3][3];
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) V[k][i] = pow(tab->c[i], k);
    if (inv3((const double (*)[3][3])&V, &Vinv)) return cr_error_set(err, CR_NOT_CONVERGED, "radau: singular Vandermonde");
    const double rhs[3] = {1.0 - 1.0 / g, 0.5, 1.0 / 3.0};
    for (int i = 0; i < 3; ++i) {
        tab->bhat[i] = 0.0;
        for (int k = 0; k < 3; ++k) tab->bhat[i] += Vinv[i][k] * rhs[k];
    }
    for (int j = 0; j < 3; ++j) {
        double s = 0.0;
        for (int i = 0; i < 3; ++i) s += (tab->bhat[i] - tab->b[i]) * Ai[i][j];
        tab->e[j] = g * s;
    }

    /* Dense output / Newton starting values: the collocation polynomial of a
     * step, in s = (t − t1)/h, interpolates y1 at s = 0, Y_2 at c2 − 1, Y_1 at
     * c1 − 1 and y0 at −1 (HW IV.8, "Simplified Newton Iterations"). */
    tab->dense_x[0] = 0.0;
    tab->dense_x[1] = tab->c[1] - 1.0;
    tab->dense_x[2] = tab->c[0] - 1.0;
    tab->dense_x[3] = -1.0;

    if (!(tab->residual <= 1e-12))
        return cr_error_set(err, CR_NOT_CONVERGED,
                            "radau: tableau self-check failed (residual %.3g)", tab->residual);
    return CR_OK;
}

/* ======================================================================== */
/* Integrator state                                                         */
/* ======================================================================== */

struct cr_radau {
    int n;
    cr_radau_problem prob;
    cr_radau_options opt;
    cr_radau_tableau tab;

    /* owned copies */
    double *mass;   /* diagonal of M */
    double *atol;   /* per component, after the tolerance transformation */
    int *index;     /* per component differential index (1, 2, 3) or NULL */
    double rtol;    /* after the transformation */
    double fnewt;   /* Newton stopping tolerance in the scaled norm */
    double *out_times;
    int n_out;

    /* state */
    double t, h;     /* current time; step size to try next */
    double *y;       /* current state y0 */
    double *f0;      /* F(t, y) when have_f0 */
    double *scal;    /* atol + rtol|y0|: Newton norm weights */
    double *rscal;   /* 1/scal for the Newton norm (a multiplication per entry and iteration, not a division) */
    double *z[3], *w[3], *f[3];
    double *cont[4]; /* collocation polynomial of the last accepted step */
    double *ytmp, *err, *etmp;
    int chunks;            /* of CR_RADAU_CHUNK unknowns: the vector loops' tasks (see for_chunks) */
    double *part;          /* a norm's partial sums, one per chunk */
    double h_last, t_last; /* last accepted step: size and end time */
    double t_start;        /* t at create/reinit: the step-size floor grows with t - t_start */
    int have_f0, have_cont, first, reject;
    int need_jac, need_lu, jac_current;
    double h_lu;     /* h of the current factorizations */
    double faccon, theta;
    double hacc, erracc;
    long naccept_run; /* accepted steps since create/reinit (predictive ctrl) */

    /* dense output bookkeeping */
    int start_pending;
    int out_idx;      /* next index into out_times */
    long out_k;       /* next grid index */
    double out_anchor;

    cr_radau_stats st;
};

cr_radau_options cr_radau_default_options(void)
{
    cr_radau_options o;
    memset(&o, 0, sizeof o);
    o.rtol = 1e-6;
    o.atol = 1e-6;
    o.atol_vec = NULL;
    o.error_index = NULL;
    o.transform_tolerances = 1;
    o.h_init = 0.0;
    o.h_max = 0.0;
    o.h_min = 0.0;
    o.h_min_rel = 1e-7;
    o.max_steps = 100000;
    o.safety = 0.9;
    o.facmin = 0.2;
    o.facmax = 8.0;
    o.predictive = 1;
    o.fixed_step = 0;
    o.max_newton = 7;
    o.newton_tol = 0.0;
    o.jac_reuse_theta = 0.001;
    o.newton_growth_theta = 0.0;
    o.keep_h_min = 1.0;
    o.keep_h_max = 1.2;
    o.output = NULL;
    o.output_times = NULL;
    o.n_output_times = 0;
    o.output_interval = 0.0;
    o.step_callback = NULL;
    o.step_limit = NULL;
    o.parallel = NULL;
    o.parallel_ctx = NULL;
    return o;
}


/* Output-time tolerance: an output time this close beyond a step end counts
 * as inside the step (so that t_end itself is never missed by rounding). */
static double out_slack(double t, double h) { return 16.0 * EPS * fmax(fabs(t), fabs(h)); }

/* Next output time, or +inf. */
static double next_output(const cr_radau *s)
{
    if (!s->opt.output) return INFINITY;
    if (s->out_times) return s->out_idx < s->n_out ? s->out_times[s->out_idx] : INFINITY;
    if (s->opt.output_interval > 0.0) return s->out_anchor + (double)s->out_k * s->opt.output_interval;
    return INFINITY;
}

static void advance_output(cr_radau *s)
{
    if (s->out_times)
        s->out_idx++;
    else
        s->out_k++;
}

/* Skips output times before t (beyond the slack). */
static void skip_outputs_before(cr_radau *s, double t)
{
    double sl = out_slack(t, 0.0);
    if (s->out_times) {
        while (s->out_idx < s->n_out && s->out_times[s->out_idx] < t - sl) s->out_idx++;
    } else if (s->opt.output_interval > 0.0) {
        double k = ceil((t - sl - s->out_anchor) / s->opt.output_interval);
        s->out_k = k > 0.0 ? (long)k : 0;
        while (next_output(s) < t - sl) s->out_k++;
    }
}

cr_radau *cr_radau_create(const cr_radau_problem *problem, const cr_radau_options *options,
                          double t0, const double *y0, cr_error *err)
{
    if (err) {
        err->status = CR_OK;
        err->message[0] = '\0';
    }
    if (!problem || !options || !y0) {
        cr_error_set(err, CR_BAD_INPUT, "radau: problem, options and y0 must be non-NULL");
        return NULL;
    }
    const cr_radau_problem *p = problem;
    const cr_radau_options *o = options;
    int n = p->n;
    if (n < 1) {
        cr_error_set(err, CR_BAD_INPUT, "radau: n = %d, need n >= 1", n);
        return NULL;
    }
    if (!p->rhs || !p->linsys.jacobian || !p->linsys.factor_real || !p->linsys.solve_real ||
        !p->linsys.factor_complex || !p->linsys.solve_complex) {
        cr_error_set(err, CR_BAD_INPUT, "radau: rhs and all five linsys hooks are required");
        return NULL;
    }
    if (!isfinite(t0) || !cr_all_finite(y0, n)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: t0 and y0 must be finite");
        return NULL;
    }
    if (p->mass && !cr_all_finite(p->mass, n)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: mass must be finite");
        return NULL;
    }
    if (!(o->rtol > 10.0 * EPS) || !isfinite(o->rtol)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: rtol = %g, need rtol > %g", o->rtol, 10.0 * EPS);
        return NULL;
    }
    if (o->atol_vec) {
        for (int i = 0; i < n; ++i)
            if (!(o->atol_vec[i] > 0.0) || !isfinite(o->atol_vec[i])) {
                cr_error_set(err, CR_BAD_INPUT, "radau: atol_vec[%d] = %g, need > 0", i,
                             o->atol_vec[i]);
                return NULL;
            }
    } else if (!(o->atol > 0.0) || !isfinite(o->atol)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: atol = %g, need atol > 0", o->atol);
        return NULL;
    }
    if (!(o->safety > 0.0 && o->safety <= 1.0) || !(o->facmin > 0.0 && o->facmin <= 1.0) ||
        !(o->facmax >= 1.0) || !isfinite(o->facmax)) {
        cr_error_set(err, CR_BAD_INPUT,
                     "radau: need 0 < safety <= 1, 0 < facmin <= 1 <= facmax (got %g, %g, %g)",
                     o->safety, o->facmin, o->facmax);
        return NULL;
    }
    if (o->max_newton < 1 || o->max_steps < 1) {
        cr_error_set(err, CR_BAD_INPUT, "radau: max_newton and max_steps must be >= 1");
        return NULL;
    }
    if (!(o->h_init >= 0.0) || !(o->h_max >= 0.0) || !isfinite(o->h_init) ||
        !isfinite(o->h_max) || !(o->newton_tol >= 0.0) || !isfinite(o->newton_tol)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: h_init, h_max and newton_tol must be >= 0");
        return NULL;
    }
    if (!(o->h_min >= 0.0) || !isfinite(o->h_min) || !(o->h_min_rel >= 0.0 && o->h_min_rel < 1.0)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: h_min = %g, h_min_rel = %g: need h_min >= 0, 0 <= h_min_rel < 1",
                     o->h_min, o->h_min_rel);
        return NULL;
    }
    if (o->fixed_step && !(o->h_init > 0.0)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: fixed_step needs h_init > 0");
        return NULL;
    }
    if (!(o->keep_h_min <= 1.0 && o->keep_h_min > 0.0) || !(o->keep_h_max >= 1.0) ||
        !isfinite(o->jac_reuse_theta)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: need 0 < keep_h_min <= 1 <= keep_h_max");
        return NULL;
    }
    if (!(o->newton_growth_theta >= 0.0 && o->newton_growth_theta < 1.0)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: newton_growth_theta = %g, need 0 <= newton_growth_theta < 1",
                     o->newton_growth_theta);
        return NULL;
    }
    if (o->n_output_times < 0 || (o->n_output_times > 0 && !o->output_times) ||
        !(o->output_interval >= 0.0) || !isfinite(o->output_interval)) {
        cr_error_set(err, CR_BAD_INPUT, "radau: bad output_times/output_interval");
        return NULL;
    }
    for (int i = 0; i < o->n_output_times; ++i)
        if (!isfinite(o->output_times[i]) || (i > 0 && o->output_times[i] < o->output_times[i - 1])) {
            cr_error_set(err, CR_BAD_INPUT, "radau: output_times must be finite and increasing");
            return NULL;
        }
    if ((size_t)n > SIZE_MAX / (sizeof(double) * 21)) {
        cr_error_set(err, CR_NO_MEMORY, "radau: n = %d too large", n);
        return NULL;
    }

    cr_radau *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_NO_MEMORY, "radau: out of memory");
        return NULL;
    }
    cr_status ts = cr_radau_tableau_compute(&s->tab, err);
    if (ts != CR_OK) {
        free(s);
        return NULL;
    }
    s->n = n;
    s->prob = *p;
    s->opt = *o;
    /* one block for all n-vectors: mass, atol, y, f0, scal, rscal, z×3, w×3, f×3,
     * cont×4, ytmp, err, etmp = 22 vectors */
    double *blk = malloc(sizeof(double) * (size_t)n * 22);
    if (o->n_output_times > 0) s->out_times = malloc(sizeof(double) * (size_t)o->n_output_times);
    s->chunks = (n - 1) / CR_RADAU_CHUNK + 1;
    s->part = malloc(sizeof(double) * (size_t)s->chunks);
    if (!blk || (o->n_output_times > 0 && !s->out_times) || !s->part) {
        free(blk);
        free(s->out_times);
        free(s->part);
        free(s);
        cr_error_set(err, CR_NO_MEMORY, "radau: out of memory");
        return NULL;
    }
    double *q = blk;
    s->mass = q; q += n;
    s->atol = q; q += n;
    s->y = q; q += n;
    s->f0 = q; q += n;
    s->scal = q; q += n;
    s->rscal = q;
    q += n;
    for (int k = 0; k < 3; ++k) { s->z[k] = q; q += n; }
    for (int k = 0; k < 3; ++k) { s->w[k] = q; q += n; }
    for (int k = 0; k < 3; ++k) { s->f[k] = q; q += n; }
    for (int k = 0; k < 4; ++k) { s->cont[k] = q; q += n; }
    s->ytmp = q; q += n;
    s->err = q; q += n;
    s->etmp = q; q += n;
    memset(blk, 0, sizeof(double) * (size_t)n * 22);

    for (int i = 0; i < n; ++i) s->mass[i] = p->mass ? p->mass[i] : 1.0;
    s->prob.mass = s->mass;
    /* Tolerance transformation (RADAU5): the estimate is O(h^4) while the
     * global error of the order-5 method is much smaller; 0.1·rtol^{2/3} makes
     * the requested rtol roughly the achieved global accuracy. */
    double rt = o->rtol;
    double fac = 1.0;
    if (o->transform_tolerances) {
        double rt2 = 0.1 * pow(rt, 2.0 / 3.0);
        fac = rt2 / rt;
        rt = rt2;
    }
    s->rtol = rt;
    for (int i = 0; i < n; ++i) s->atol[i] = (o->atol_vec ? o->atol_vec[i] : o->atol) * fac;
    s->opt.atol_vec = NULL; /* not kept: the caller's array may go away */
    if (o->error_index) {
        s->index = malloc((size_t)n * sizeof *s->index);
        if (!s->index) {
            cr_radau_destroy(s);
            cr_error_set(err, CR_NO_MEMORY, "radau: out of memory");
            return NULL;
        }
        memcpy(s->index, o->error_index, (size_t)n * sizeof *s->index);
    }
    s->opt.error_index = NULL;
    s->fnewt = o->newton_tol > 0.0 ? o->newton_tol
                                   : fmax(10.0 * EPS / rt, fmin(0.03, sqrt(rt)));
    if (s->out_times) {
        memcpy(s->out_times, o->output_times, sizeof(double) * (size_t)o->n_output_times);
        s->n_out = o->n_output_times;
    }
    s->opt.output_times = NULL;

    s->out_anchor = t0;
    cr_radau_reinit(s, t0, y0, o->h_init, NULL);
    return s;
}

void cr_radau_destroy(cr_radau *s)
{
    if (!s) return;
    free(s->mass); /* the block starts at mass */
    free(s->out_times);
    free(s->index);
    free(s->part);
    free(s);
}

cr_status cr_radau_reinit(cr_radau *s, double t, const double *y, double h, cr_error *err)
{
    if (!s || !y) return cr_error_set(err, CR_BAD_INPUT, "radau: reinit with NULL argument");
    if (!isfinite(t) || !cr_all_finite(y, s->n) || !(h >= 0.0) || !isfinite(h))
        return cr_error_set(err, CR_BAD_INPUT, "radau: reinit needs finite t, y and h >= 0");
    s->t = t;
    memcpy(s->y, y, sizeof(double) * (size_t)s->n);
    s->h = s->opt.fixed_step ? (h > 0.0 ? h : s->opt.h_init) : h;
    s->have_f0 = 0;
    s->have_cont = 0;
    s->first = 1;
    s->reject = 0;
    s->need_jac = 1;
    s->need_lu = 1;
    s->jac_current = 0;
    s->h_lu = 0.0;
    s->faccon = 1.0;
    s->theta = fabs(s->opt.jac_reuse_theta);
    s->hacc = 0.0;
    s->erracc = 1e-2;
    s->naccept_run = 0;
    s->h_last = 0.0;
    s->t_last = t;
    s->t_start = t;
    s->start_pending = 1;
    skip_outputs_before(s, t);
    return CR_OK;
}

void cr_radau_get_memory(const cr_radau *s, cr_radau_memory *mem, double *poly)
{
    if (!s || !mem) return;
    *mem = (cr_radau_memory){.version = CR_RADAU_MEMORY_VERSION, .t = s->t, .t_start = s->t_start, .h = s->h,
                             .h_last = s->h_last, .h_acc = s->hacc, .err_acc = s->erracc,
                             .accepted = (double)s->naccept_run, .first = s->first, .reject = s->reject,
                             .faccon = s->faccon, .theta = s->theta};
    /* the polynomial only describes the step that ended at t (not after a reinit) */
    if (poly && s->have_cont && s->t_last == s->t) {
        for (int k = 0; k < 3; ++k) memcpy(poly + (size_t)k * s->n, s->cont[k + 1], sizeof(double) * (size_t)s->n);
        mem->polynomial = 1.0;
    }
}

cr_status cr_radau_reinit_memory(cr_radau *s, double t, const double *y, const cr_radau_memory *m,
                                 const double *poly, cr_error *err)
{
    if (!s || !y || !m) return cr_error_set(err, CR_BAD_INPUT, "radau: reinit_memory with NULL argument");
    if (m->version != CR_RADAU_MEMORY_VERSION)
        return cr_error_set(err, CR_BAD_INPUT, "radau: controller memory version %g, this build reads %g", m->version,
                            CR_RADAU_MEMORY_VERSION);
    const double *v = &m->version;
    for (int k = 0; k < CR_RADAU_MEMORY_DOUBLES; ++k)
        if (!isfinite(v[k])) return cr_error_set(err, CR_BAD_INPUT, "radau: controller memory entry %d is %g", k, v[k]);
    if (fabs(m->t - t) > 16.0 * EPS * fmax(fabs(t), m->h))
        return cr_error_set(err, CR_BAD_INPUT, "radau: controller memory of t = %.17g given for t = %.17g", m->t, t);
    if (!(m->h > 0.0) || m->h_last < 0.0 || m->h_acc < 0.0 || !(m->err_acc > 0.0) || m->accepted < 0.0 ||
        !(m->faccon > 0.0) || m->theta < 0.0 || m->t_start > t)
        return cr_error_set(err, CR_BAD_INPUT,
                            "radau: controller memory out of range (h = %g, h_last = %g, err_acc = %g, faccon = %g, "
                            "t_start = %g)",
                            m->h, m->h_last, m->err_acc, m->faccon, m->t_start);
    if (poly && m->polynomial != 0.0 && (!(m->h_last > 0.0) || !cr_all_finite(poly, 3 * s->n)))
        return cr_error_set(err, CR_BAD_INPUT, "radau: collocation polynomial non-finite or without a last step");
    cr_status st = cr_radau_reinit(s, t, y, m->h, err);
    if (st != CR_OK) return st;
    /* reinit made it a first step with a new Jacobian; restore the controller */
    s->t_start = m->t_start;
    s->h_last = m->h_last;
    s->hacc = m->h_acc;
    s->erracc = m->err_acc;
    s->naccept_run = (long)m->accepted;
    s->first = m->first != 0.0;
    s->reject = m->reject != 0.0;
    s->faccon = m->faccon;
    s->theta = m->theta;
    if (poly && m->polynomial != 0.0) { /* Newton starting values of the next step */
        memcpy(s->cont[0], y, sizeof(double) * (size_t)s->n);
        for (int k = 0; k < 3; ++k) memcpy(s->cont[k + 1], poly + (size_t)k * s->n, sizeof(double) * (size_t)s->n);
        s->have_cont = 1;
        s->t_last = t;
    }
    return CR_OK;
}

double cr_radau_t(const cr_radau *s) { return s ? s->t : 0.0; }
const double *cr_radau_y(const cr_radau *s) { return s ? s->y : NULL; }
double cr_radau_h(const cr_radau *s) { return s ? s->h : 0.0; }
int cr_radau_n(const cr_radau *s) { return s ? s->n : 0; }
const cr_radau_tableau *cr_radau_get_tableau(const cr_radau *s) { return s ? &s->tab : NULL; }

cr_radau_stats cr_radau_get_stats(const cr_radau *s)
{
    cr_radau_stats st;
    memset(&st, 0, sizeof st);
    if (!s) return st;
    st = s->st;
    st.h_last = s->h_last;
    st.h_next = s->h;
    return st;
}

/* ======================================================================== */
/* Vector work in chunks                                                    */
/* ======================================================================== */

/* Every loop over the state runs chunk by chunk (CR_RADAU_CHUNK unknowns), on the
 * caller or through cr_radau_options.parallel on a large state. A norm's chunks leave
 * their partial sums in s->part, added in the chunks' order afterwards: the chunks are
 * fixed by n alone, so the sums (and every step size) are the same whichever thread ran
 * which chunk, and with one chunk (n <= CR_RADAU_CHUNK) they are the plain loop's. */
typedef struct vjob {
    const cr_radau *cs; /* the integrator, read-only (dense output) */
    cr_radau *s;        /* the same, written */
    double h;           /* the step size */
    double a[3];        /* the loop's coefficients */
    const double *x;    /* the loop's input vector */
    double *out;        /* the loop's output vector */
} vjob;

static void chunk_of(const cr_radau *s, int c, int *lo, int *hi)
{
    *lo = c * CR_RADAU_CHUNK;
    *hi = s->n - *lo < CR_RADAU_CHUNK ? s->n : *lo + CR_RADAU_CHUNK;
}

static void for_chunks(const cr_radau *s, void (*fn)(void *, int), vjob *job)
{
    if (s->opt.parallel && s->n >= CR_RADAU_PARALLEL_MIN)
        s->opt.parallel(s->chunks, fn, job, s->opt.parallel_ctx);
    else
        for (int c = 0; c < s->chunks; ++c) fn(job, c);
}

static double sum_parts(const cr_radau *s)
{
    double sum = 0.0;
    for (int c = 0; c < s->chunks; ++c) sum += s->part[c];
    return sum;
}

/* Index-2 and index-3 components (HW IV.8, RADAU5's NIND2/NIND3): their error is
 * measured h resp. h² times smaller, i.e. scal / h^(index - 1). */
static void scale_by_index(cr_radau *s, double h, int lo, int hi)
{
    if (!s->index) return;
    for (int i = lo; i < hi; ++i)
        if (s->index[i] == 2)
            s->scal[i] /= h;
        else if (s->index[i] == 3)
            s->scal[i] /= h * h;
}

/* y(t) from the collocation polynomial of the last accepted step, written as
 * a Newton divided-difference form in s = (t − t1)/h about the nodes
 * dense_x = (0, c2−1, c1−1, −1): y1 + s(d1 + (s − x1)(d2 + (s − x2) d3)). */
static void eval_cont_chunk(void *arg, int c)
{
    const vjob *j = arg;
    const cr_radau *s = j->cs;
    const double sig = j->a[0], x1 = s->tab.dense_x[1], x2 = s->tab.dense_x[2];
    const double *c0 = s->cont[0], *c1 = s->cont[1], *c2 = s->cont[2], *c3 = s->cont[3];
    double *out = j->out;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    for (int i = lo; i < hi; ++i) out[i] = c0[i] + sig * (c1[i] + (sig - x1) * (c2[i] + (sig - x2) * c3[i]));
}

static void eval_cont(const cr_radau *s, double sig, double *out)
{
    vjob job = {.cs = s, .a = {sig}, .out = out};
    for_chunks(s, eval_cont_chunk, &job);
}

/* the Newton weights atol + rtol·|y0| (scaled by the index) and their reciprocals */
static void weights_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    for (int i = lo; i < hi; ++i) s->scal[i] = s->atol[i] + s->rtol * fabs(s->y[i]);
    scale_by_index(s, j->h, lo, hi);
    for (int i = lo; i < hi; ++i) s->rscal[i] = 1.0 / s->scal[i];
}

/* part[c] = 1 when the chunk of x holds a non-finite entry */
static void finite_chunk(void *arg, int c)
{
    const vjob *j = arg;
    int lo, hi;
    chunk_of(j->s, c, &lo, &hi);
    j->s->part[c] = cr_all_finite(j->x + lo, (size_t)(hi - lo)) ? 0.0 : 1.0;
}

/* out = y0 + x (a stage value) */
static void stage_chunk(void *arg, int c)
{
    const vjob *j = arg;
    const double *y = j->s->y, *x = j->x;
    double *out = j->out;
    int lo, hi;
    chunk_of(j->s, c, &lo, &hi);
    for (int i = lo; i < hi; ++i) out[i] = y[i] + x[i];
}

cr_status cr_radau_interpolate(const cr_radau *s, double t, double *y_out, cr_error *err)
{
    if (!s || !y_out) return cr_error_set(err, CR_BAD_INPUT, "radau: interpolate with NULL");
    if (!s->have_cont)
        return cr_error_set(err, CR_BAD_INPUT, "radau: no accepted step to interpolate");
    eval_cont(s, (t - s->t_last) / s->h_last, y_out);
    return CR_OK;
}

/* ======================================================================== */
/* One step                                                                 */
/* ======================================================================== */

static cr_status call_rhs(cr_radau *s, double t, const double *y, double *f)
{
    s->st.rhs_evals++;
    cr_status st = s->prob.rhs(t, y, f, s->prob.user);
    if (st == CR_OK) {
        vjob job = {.s = s, .x = f};
        for_chunks(s, finite_chunk, &job);
        if (sum_parts(s) != 0.0) st = CR_NONFINITE;
    }
    return st;
}

/* Starting step size when h_init = 0: the estimate of HW I, II.4 ("Starting
 * step size"), applied to the differential rows (y'_i = F_i / M_i; algebraic
 * rows carry no derivative), with the order-3 error estimate's exponent 1/4. */
static double initial_step(cr_radau *s, double span)
{
    int n = s->n, nd = 0;
    double d0 = 0.0, d1 = 0.0, d2 = 0.0;
    for (int i = 0; i < n; ++i) {
        if (s->mass[i] == 0.0) continue;
        double sc = s->atol[i] + s->rtol * fabs(s->y[i]);
        double yp = s->f0[i] / s->mass[i];
        d0 += (s->y[i] / sc) * (s->y[i] / sc);
        d1 += (yp / sc) * (yp / sc);
        ++nd;
    }
    double cap = span;
    if (s->opt.h_max > 0.0) cap = fmin(cap, s->opt.h_max);
    if (nd == 0) return fmin(1e-6, cap);
    d0 = sqrt(d0 / nd);
    d1 = sqrt(d1 / nd);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = fmin(h0, cap);
    for (int i = 0; i < n; ++i)
        s->ytmp[i] = s->y[i] + (s->mass[i] != 0.0 ? h0 * s->f0[i] / s->mass[i] : 0.0);
    if (call_rhs(s, s->t + h0, s->ytmp, s->etmp) != CR_OK) return fmin(1e-6, cap);
    for (int i = 0; i < n; ++i) {
        if (s->mass[i] == 0.0) continue;
        double sc = s->atol[i] + s->rtol * fabs(s->y[i]);
        double dyp = (s->etmp[i] - s->f0[i]) / s->mass[i];
        d2 += (dyp / sc) * (dyp / sc);
    }
    d2 = sqrt(d2 / nd) / h0;
    double dm = fmax(d1, d2);
    double h1 = dm <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / dm, 0.25);
    return fmin(fmin(100.0 * h0, h1), cap);
}

enum { NEWTON_OK = 0, NEWTON_FAIL = 1, NEWTON_FATAL = 2 };

/* Newton's starting values Z and W = (T^{-1} ⊗ I) Z: zero (job->x NULL), or the last
 * collocation polynomial's increments at s = a[k] (without y1). */
static void start_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    const cr_radau_tableau *tb = &s->tab;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    if (!j->x) {
        for (int k = 0; k < 3; ++k) {
            memset(s->z[k] + lo, 0, sizeof(double) * (size_t)(hi - lo));
            memset(s->w[k] + lo, 0, sizeof(double) * (size_t)(hi - lo));
        }
        return;
    }
    const double x1 = tb->dense_x[1], x2 = tb->dense_x[2];
    const double *c1 = s->cont[1], *c2 = s->cont[2], *c3 = s->cont[3];
    for (int i = lo; i < hi; ++i) {
        double zz[3];
        for (int k = 0; k < 3; ++k) {
            const double sig = j->a[k];
            zz[k] = s->z[k][i] = sig * (c1[i] + (sig - x1) * (c2[i] + (sig - x2) * c3[i]));
        }
        for (int k = 0; k < 3; ++k)
            s->w[k][i] = tb->tinv[k][0] * zz[0] + tb->tinv[k][1] * zz[1] + tb->tinv[k][2] * zz[2];
    }
}

/* Newton's right sides G − (Λ/h ⊗ M) W, in place of F(Y) (a = γ̂/h, α̂/h, β̂/h; see newton) */
static void newton_rhs_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    const cr_radau_tableau *tb = &s->tab;
    const double fac1 = j->a[0], alphn = j->a[1], betan = j->a[2];
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    for (int i = lo; i < hi; ++i) {
        double a0 = s->f[0][i], a1 = s->f[1][i], a2 = s->f[2][i];
        double g0 = tb->tinv[0][0] * a0 + tb->tinv[0][1] * a1 + tb->tinv[0][2] * a2;
        double g1 = tb->tinv[1][0] * a0 + tb->tinv[1][1] * a1 + tb->tinv[1][2] * a2;
        double g2 = tb->tinv[2][0] * a0 + tb->tinv[2][1] * a1 + tb->tinv[2][2] * a2;
        double m = s->mass[i];
        s->f[0][i] = g0 - fac1 * m * s->w[0][i];
        s->f[1][i] = g1 - alphn * m * s->w[1][i] + betan * m * s->w[2][i];
        s->f[2][i] = g2 - betan * m * s->w[1][i] - alphn * m * s->w[2][i];
    }
}

/* The increment's scaled norm (part[c]: the chunk's sum of squares) and the update
 * W += ΔW, Z = (T ⊗ I) W, in one pass over ΔW. The update is done even when the
 * norm then fails the iteration: every new attempt overwrites W and Z (zero or
 * extrapolated starting values) before reading them. */
static void newton_update_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    const cr_radau_tableau *tb = &s->tab;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    double sum = 0.0;
    for (int k = 0; k < 3; ++k)
        for (int i = lo; i < hi; ++i) {
            double q = s->f[k][i] * s->rscal[i];
            sum += q * q;
        }
    s->part[c] = sum;
    for (int i = lo; i < hi; ++i) {
        double w0 = (s->w[0][i] += s->f[0][i]);
        double w1 = (s->w[1][i] += s->f[1][i]);
        double w2 = (s->w[2][i] += s->f[2][i]);
        for (int k = 0; k < 3; ++k) s->z[k][i] = tb->t[k][0] * w0 + tb->t[k][1] * w1 + tb->t[k][2] * w2;
    }
}

/* Simplified Newton on the transformed stage system (HW IV.8, "Reformulation
 * of the Nonlinear System", "Simplified Newton Iterations", "The Linear
 * System"). With G = (T^{-1} ⊗ I) F(Y) and Λ = T^{-1} A^{-1} T, one iteration
 * solves (Λ/h ⊗ M − I ⊗ J) ΔW = G − (Λ/h ⊗ M) W, which splits into
 *   (γ̂/h M − J) ΔW1 = G1 − γ̂/h M W1,
 *   ((α̂ + iβ̂)/h M − J)(ΔW2 + iΔW3) = (G2 − α̂/h M W2 + β̂/h M W3)
 *                                    + i(G3 − β̂/h M W2 − α̂/h M W3).
 * On failure *hfac is the factor to shrink h by; *fatal holds a negative
 * status from a callback. */
static int newton(cr_radau *s, double h, int *newt_out, double *hfac, int *nonfinite,
                  cr_status *fatal)
{
    const int n = s->n, nit = s->opt.max_newton;
    const cr_radau_tableau *tb = &s->tab;
    const double fac1 = tb->gamma / h, alphn = tb->alpha / h, betan = tb->beta / h;
    const cr_radau_linsys *ls = &s->prob.linsys;
    double dynold = 1.0, thqold = 1.0;
    int newt = 0;
    *nonfinite = 0;
    *hfac = 0.5;
    /* carried-over contraction estimate, used for the stopping test until
     * this step has its own θ (RADAU5) */
    s->faccon = pow(fmax(s->faccon, EPS), 0.8);
    s->theta = fabs(s->opt.jac_reuse_theta);
    for (;;) {
        if (newt >= nit) return NEWTON_FAIL;
        for (int k = 0; k < 3; ++k) {
            vjob stage = {.s = s, .x = s->z[k], .out = s->ytmp};
            for_chunks(s, stage_chunk, &stage);
            cr_status st = call_rhs(s, s->t + tb->c[k] * h, s->ytmp, s->f[k]);
            if (st < 0) { *fatal = st; return NEWTON_FATAL; }
            if (st > 0) { *nonfinite = (st == CR_NONFINITE); return NEWTON_FAIL; }
        }
        vjob job = {.s = s, .a = {fac1, alphn, betan}};
        for_chunks(s, newton_rhs_chunk, &job);
        cr_status st = ls->solve_real(s->f[0], ls->ctx);
        s->st.solves_real++;
        if (st == CR_OK) {
            st = ls->solve_complex(s->f[1], s->f[2], ls->ctx);
            s->st.solves_complex++;
        }
        if (st < 0) { *fatal = st; return NEWTON_FATAL; }
        if (st > 0) return NEWTON_FAIL;
        newt++;
        s->st.newton_iterations++;
        for_chunks(s, newton_update_chunk, &job);
        double dyno = sqrt(sum_parts(s) / (3.0 * n));
        if (!isfinite(dyno)) { *nonfinite = 1; return NEWTON_FAIL; }
        /* Convergence rate θ_k = ‖ΔW_k‖/‖ΔW_{k−1}‖ (geometric mean of the last
         * two from k = 3 on); if the predicted error after the remaining
         * iterations, θ^{nit−k}/(1−θ)·‖ΔW_k‖, still exceeds κ·tol, give up now
         * and shrink h according to the predicted shortfall (RADAU5). */
        if (newt > 1 && newt < nit) {
            double thq = dyno / dynold;
            s->theta = (newt == 2) ? thq : sqrt(thq * thqold);
            thqold = thq;
            if (s->theta < 0.99) {
                s->faccon = s->theta / (1.0 - s->theta);
                double dyth = s->faccon * dyno * pow(s->theta, nit - 1 - newt) / s->fnewt;
                if (dyth >= 1.0) {
                    double qnewt = fmax(1e-4, fmin(20.0, dyth));
                    *hfac = 0.8 * pow(qnewt, -1.0 / (4.0 + nit - 1 - newt));
                    return NEWTON_FAIL;
                }
            } else {
                return NEWTON_FAIL; /* diverging */
            }
        }
        dynold = fmax(dyno, EPS);
        /* stopping criterion θ/(1−θ)·‖ΔW‖ <= κ·tol */
        if (s->faccon * dyno <= s->fnewt) break;
    }
    *newt_out = newt;
    return NEWTON_OK;
}

/* the error estimate's right side F(t0, y0) + M Σ e_j Z_j / h (the sum kept in etmp)
 * and its weights atol + rtol·max(|y0|, |y1|) (a = e_j / h) */
static void error_rhs_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    const double e0 = j->a[0], e1 = j->a[1], e2 = j->a[2];
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    for (int i = lo; i < hi; ++i) {
        s->etmp[i] = s->mass[i] * (e0 * s->z[0][i] + e1 * s->z[1][i] + e2 * s->z[2][i]);
        s->err[i] = s->f0[i] + s->etmp[i];
        double y1 = s->y[i] + s->z[2][i];
        s->scal[i] = s->atol[i] + s->rtol * fmax(fabs(s->y[i]), fabs(y1));
    }
    scale_by_index(s, j->h, lo, hi);
}

/* the filtered estimate's right side F(t0, y0 + err) + etmp */
static void error_refilter_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    for (int i = lo; i < hi; ++i) s->err[i] = s->f[0][i] + s->etmp[i];
}

/* part[c]: the chunk's Σ (err/scal)² */
static void error_norm_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    double sum = 0.0;
    for (int i = lo; i < hi; ++i) sum += (s->err[i] / s->scal[i]) * (s->err[i] / s->scal[i]);
    s->part[c] = sum;
}

/* Embedded error estimate (HW IV.8, "Step Size Selection"):
 * err = (γ̂/h M − J)^{-1}[F(t0, y0) + M Σ e_j Z_j / h]; the solve with the
 * already factored E1 damps the stiff components (the raw difference ŷ1 − y1
 * would be O(1) for them). On a first step or after a rejection, and only if
 * the estimate fails, one more solve with F(t0, y0 + err) in place of F(t0, y0)
 * filters the estimate further, as the first one can be grossly pessimistic
 * for very stiff problems. Algebraic rows (M_i = 0) are weighted like the
 * others: index-1 components need no h-scaling. Returns the RMS norm with
 * weights atol + rtol·max(|y0|, |y1|), or +inf on a failure of F. */
static double estimate_error(cr_radau *s, double h, cr_status *fatal)
{
    const int n = s->n;
    const cr_radau_tableau *tb = &s->tab;
    const cr_radau_linsys *ls = &s->prob.linsys;
    vjob job = {.s = s, .h = h, .a = {tb->e[0] / h, tb->e[1] / h, tb->e[2] / h}};
    for_chunks(s, error_rhs_chunk, &job);
    cr_status st = ls->solve_real(s->err, ls->ctx);
    s->st.solves_real++;
    if (st < 0) { *fatal = st; return INFINITY; }
    if (st > 0) return INFINITY;
    for_chunks(s, error_norm_chunk, &job);
    double e = fmax(sqrt(sum_parts(s) / n), 1e-10);
    if (e >= 1.0 && (s->first || s->reject)) {
        vjob stage = {.s = s, .x = s->err, .out = s->ytmp};
        for_chunks(s, stage_chunk, &stage);
        st = call_rhs(s, s->t, s->ytmp, s->f[0]);
        if (st < 0) { *fatal = st; return INFINITY; }
        if (st > 0) return INFINITY;
        for_chunks(s, error_refilter_chunk, &job);
        st = ls->solve_real(s->err, ls->ctx);
        s->st.solves_real++;
        if (st < 0) { *fatal = st; return INFINITY; }
        if (st > 0) return INFINITY;
        for_chunks(s, error_norm_chunk, &job);
        e = fmax(sqrt(sum_parts(s) / n), 1e-10);
    }
    return isfinite(e) ? e : INFINITY;
}

/* Stores the collocation polynomial of the step just accepted (Newton
 * divided differences of the increments at the nodes dense_x) and advances
 * y0 to y1 = y0 + Z_3. */
static void accept_chunk(void *arg, int c)
{
    const vjob *j = arg;
    cr_radau *s = j->s;
    int lo, hi;
    chunk_of(s, c, &lo, &hi);
    const double x1 = s->tab.dense_x[1], x2 = s->tab.dense_x[2], x3 = s->tab.dense_x[3];
    /* the node spacings' reciprocals: multiplications in the loop, not divisions */
    const double r1 = 1.0 / x1, r21 = 1.0 / (x2 - x1), r32 = 1.0 / (x3 - x2), r2 = 1.0 / x2, r31 = 1.0 / (x3 - x1),
                 r3 = 1.0 / x3;
    for (int i = lo; i < hi; ++i) {
        double z0 = s->z[0][i], z1 = s->z[1][i], z2 = s->z[2][i];
        double v1 = z1 - z2, v2 = z0 - z2, v3 = -z2; /* values at x1, x2, x3; 0 at x0 = 0 */
        double d01 = v1 * r1;
        double d12 = (v2 - v1) * r21;
        double d23 = (v3 - v2) * r32;
        double d012 = (d12 - d01) * r2;
        double d123 = (d23 - d12) * r31;
        s->cont[0][i] = s->y[i] + z2;
        s->cont[1][i] = d01;
        s->cont[2][i] = d012;
        s->cont[3][i] = (d123 - d012) * r3;
        s->y[i] += z2;
    }
}

/* Emits the output times in (…, t_hi] (within the slack); with use_cont the
 * values come from the collocation polynomial, otherwise y itself. Returns
 * nonzero when the output callback asked to stop. */
static int emit_outputs(cr_radau *s, double t_hi, int use_cont)
{
    double sl = out_slack(t_hi, s->h_last);
    for (;;) {
        double to = next_output(s);
        if (!(to <= t_hi + sl)) return 0;
        const double *yo = s->y;
        if (use_cont) {
            eval_cont(s, (to - s->t_last) / s->h_last, s->ytmp);
            yo = s->ytmp;
        }
        advance_output(s);
        if (s->opt.output(to, yo, s->prob.user)) return 1;
    }
}

/* step attempts per window of the step-collapse test in cr_radau_integrate */
#define COLLAPSE_WINDOW 1000

cr_status cr_radau_integrate(cr_radau *s, double t_end, cr_error *err)
{
    if (!s) return cr_error_set(err, CR_BAD_INPUT, "radau: integrate with NULL solver");
    if (!isfinite(t_end) || t_end < s->t)
        return cr_error_set(err, CR_BAD_INPUT, "radau: t_end = %.17g is before t = %.17g (forward only)", t_end, s->t);
    const cr_radau_options *o = &s->opt;
    const cr_radau_linsys *ls = &s->prob.linsys;
    const cr_radau_tableau *tb = &s->tab;
    const int nit = o->max_newton;
    const double thet = o->jac_reuse_theta;

    if (s->start_pending) {
        s->start_pending = 0;
        if (o->output && emit_outputs(s, s->t, 0))
            return cr_error_set(err, CR_INTERRUPTED, "radau: stopped by the output callback at t = %.17g", s->t);
    } else if (o->output && s->have_cont && emit_outputs(s, s->t, 1)) {
        /* outputs of the last step left over when a callback stopped the
         * previous call, from that step's polynomial */
        return cr_error_set(err, CR_INTERRUPTED, "radau: stopped by the output callback at t = %.17g", s->t);
    }

    long nstep = 0;
    /* t at the start of the current window of COLLAPSE_WINDOW step attempts (below) */
    double t_window = s->t;
    long n_window = 0;
    int nsing = 0, nonfinite_fails = 0, last_fail_nonfinite = 0;
    /* why the step size last went down, for the "step size too small" message */
    const char *last_cut = "";
    for (;;) {
        double hmin = 10.0 * EPS * fmax(fabs(s->t), fabs(t_end));
        double rem = t_end - s->t;
        if (rem <= hmin) { /* reached (up to rounding) */
            s->t = t_end;
            return CR_OK;
        }
        /* Step-size floor (cr_radau_options.h_min, h_min_rel). Relative to the time
         * integrated since create/reinit, not to the whole interval: the initial
         * transient of a stage may need steps many orders below its length, a
         * collapse after a stretch of normal steps is what the floor catches. */
        double h_floor = fmax(o->h_min, 10.0 * hmin);
        if (!o->fixed_step) h_floor = fmax(h_floor, o->h_min_rel * (s->t - s->t_start));
        if (!s->have_f0) {
            cr_status st = call_rhs(s, s->t, s->y, s->f0);
            if (st != CR_OK)
                return cr_error_set(err, st < 0 ? st : CR_NONFINITE,
                                    "radau: F failed (%s) at the accepted state t = %.17g",
                                    cr_status_string(st), s->t);
            s->have_f0 = 1;
        }
        if (!(s->h > 0.0)) {
            s->h = initial_step(s, rem);
            if (s->h < h_floor) s->h = h_floor; /* a heuristic guess, not a demand of the error test */
        }
        if (s->first && !s->reject && s->h < h_floor) s->h = h_floor; /* a given h_init below h_min */
        if (o->h_max > 0.0 && s->h > o->h_max && !o->fixed_step) s->h = o->h_max;
        if (o->step_limit && !o->fixed_step) {
            double hl = o->step_limit(s->t, s->y, s->prob.user);
            if (hl > 0.0 && s->h > hl) {
                s->h = hl;
                last_cut = " (the problem's step limit)";
            }
        }
        if (nstep >= o->max_steps)
            return cr_error_set(err, CR_NOT_CONVERGED,
                                "radau: max_steps = %ld reached at t = %.17g", o->max_steps, s->t);
        /* A collapsed step size: when neither the current step nor the mean step of the
         * last COLLAPSE_WINDOW attempts could reach t_end within 10 times the steps
         * max_steps still allows, the interval would end at max_steps anyway, only hours
         * later (a 1e12 N load on the shaken cantilever: 2e-11 s steps, 5e10 steps to go).
         * Both sizes must be that small, so a step cut by an event, or a stiff transient
         * whose steps grow geometrically (the current h dominates), is never stopped. */
        if (nstep - n_window >= COLLAPSE_WINDOW && !o->fixed_step) {
            double mean = (s->t - t_window) / (double)(nstep - n_window),
                   budget = 10.0 * (double)(o->max_steps - nstep);
            t_window = s->t;
            n_window = nstep;
            if (rem > budget * fmax(mean, s->h))
                return cr_error_set(err, CR_NOT_CONVERGED,
                                    "radau: step size collapsed at t = %.17g: h = %.3g, the mean of the last %d "
                                    "steps %.3g; the remaining interval %.3g would take more than 10 x the %.3g steps "
                                    "max_steps leaves; the state is the last accepted step",
                                    s->t, s->h, COLLAPSE_WINDOW, mean, rem, (double)(o->max_steps - nstep));
        }
        if (s->h < h_floor || s->h < 1e-300) {
            cr_status code = last_fail_nonfinite ? CR_NONFINITE : CR_NOT_CONVERGED;
            return cr_error_set(err, code,
                                "radau: step size too small (h = %.3g, floor %.3g) at t = %.17g%s; the state is "
                                "the last accepted step",
                                s->h, h_floor, s->t, last_fail_nonfinite ? " after non-finite values" : last_cut);
        }
        if (nonfinite_fails > 50)
            return cr_error_set(err, CR_NONFINITE, "radau: repeated non-finite values at t = %.17g", s->t);

        /* Land on t_end exactly; the 1e-4 margin avoids a last step of a few
         * ulps. The unclamped h is remembered for the next call. */
        double h = s->h, h_prop = s->h;
        int last = 0;
        if (h * (1.0 + 1e-4) >= rem) {
            h = rem;
            last = 1;
        }

        /* Newton weights */
        vjob wjob = {.s = s, .h = h};
        for_chunks(s, weights_chunk, &wjob);

        /* Jacobian and factorizations, reused while allowed */
        if (s->need_jac) {
            s->st.jac_evals++;
            cr_status st = ls->jacobian(s->t, s->y, s->f0, ls->ctx);
            /* J depends on (t, y) only, so a smaller h would not help */
            if (st != CR_OK)
                return cr_error_set(err, st, "radau: jacobian hook failed (%s) at t = %.17g",
                                    cr_status_string(st), s->t);
            s->need_jac = 0;
            s->jac_current = 1;
            s->need_lu = 1;
        }
        if (s->need_lu || h != s->h_lu) {
            s->st.lu_real++;
            cr_status st = ls->factor_real(tb->gamma / h, ls->ctx);
            if (st == CR_OK) {
                s->st.lu_complex++;
                st = ls->factor_complex(tb->alpha / h, tb->beta / h, ls->ctx);
            }
            if (st < 0) return cr_error_set(err, st, "radau: factorization hook failed (%s)", cr_status_string(st));
            if (st > 0) {
                /* singular (or otherwise failed) shifted matrix: a smaller h
                 * moves the shift away from the spectrum of J (RADAU5) */
                s->h_lu = 0.0;
                s->need_lu = 1;
                if (++nsing >= 5)
                    return cr_error_set(err, CR_SINGULAR,
                                        "radau: shifted matrix singular 5 times in a row at t = %.17g", s->t);
                if (o->fixed_step)
                    return cr_error_set(err, CR_SINGULAR, "radau: shifted matrix singular at t = %.17g (fixed step)", s->t);
                s->h = 0.5 * h;
                s->reject = 1;
                last_cut = " after a singular shifted matrix";
                continue;
            }
            s->h_lu = h;
            s->need_lu = 0;
        }
        nstep++;

        /* Starting values: extrapolate the last collocation polynomial (HW
         * IV.8, "Simplified Newton Iterations"), zero on a first step, and
         * zero when h outgrew the last step by more than the controller ever
         * allows (e.g. after a short step that landed on a previous t_end),
         * where the extrapolation would be meaningless. */
        vjob sjob = {.s = s, .x = NULL};
        if (!(s->first || !s->have_cont || h > o->facmax * s->h_last)) {
            for (int k = 0; k < 3; ++k) sjob.a[k] = tb->c[k] * h / s->h_last;
            sjob.x = s->cont[1]; /* non-NULL: extrapolate */
        }
        for_chunks(s, start_chunk, &sjob);

        int newt = 0, nonfin = 0;
        double hfac = 0.5;
        cr_status fatal = CR_OK;
        int nr = newton(s, h, &newt, &hfac, &nonfin, &fatal);
        if (nr == NEWTON_FATAL)
            return cr_error_set(err, fatal, "radau: callback failed (%s) at t = %.17g",
                                cr_status_string(fatal), s->t);
        if (nr == NEWTON_FAIL) {
            s->st.newton_failures++;
            last_fail_nonfinite = nonfin;
            nonfinite_fails += nonfin;
            if (o->fixed_step)
                return cr_error_set(err, CR_NOT_CONVERGED,
                                    "radau: Newton failed with fixed step h = %.3g at t = %.17g", h, s->t);
            s->h = hfac * h;
            s->reject = 1;
            last_cut = " after Newton failed to converge";
            if (!s->jac_current) s->need_jac = 1;
            s->need_lu = 1;
            continue;
        }
        last_fail_nonfinite = 0;

        double errn = 0.0, hnew = h;
        if (!o->fixed_step) {
            errn = estimate_error(s, h, &fatal);
            if (fatal != CR_OK)
                return cr_error_set(err, fatal, "radau: callback failed (%s) at t = %.17g",
                                    cr_status_string(fatal), s->t);
            /* h_new = h·min(facmax, max(facmin, fac·err^{-1/4})); the safety
             * factor shrinks when Newton needed many iterations (RADAU5). */
            double cfac = o->safety * (1 + 2 * nit);
            double fac = fmin(o->safety, cfac / (newt + 2 * nit));
            double quot = fmax(1.0 / o->facmax, fmin(1.0 / o->facmin, pow(errn, 0.25) / fac));
            hnew = h / quot;
        }

        if (errn < 1.0) {
            /* accepted */
            if (!o->fixed_step && o->predictive && s->naccept_run >= 1) {
                /* Gustafsson's predictive controller: uses the error ratio of
                 * the last two accepted steps; take the more cautious h. */
                double facgus = (s->hacc / h) * pow(errn * errn / s->erracc, 0.25) / o->safety;
                facgus = fmax(1.0 / o->facmax, fmin(1.0 / o->facmin, facgus));
                double quot = fmax(h / hnew, facgus);
                hnew = h / quot;
            }
            /* Growth limited by the Newton contraction (newton_growth_theta): θ grows
             * roughly like h² or faster, so h·√(θ_g/θ) keeps the next θ near θ_g
             * instead of trying a step that Newton will not converge on. θ was
             * measured in this step when it took two iterations or more. */
            if (!o->fixed_step && o->newton_growth_theta > 0.0 && newt >= 2 && s->theta > 0.0)
                hnew = fmin(hnew, h * fmax(1.0, sqrt(o->newton_growth_theta / s->theta)));
            s->hacc = h;
            s->erracc = fmax(1e-2, errn);
            vjob acc = {.s = s};
            for_chunks(s, accept_chunk, &acc);
            s->t_last = last ? t_end : s->t + h;
            s->t = s->t_last;
            s->h_last = h;
            s->have_cont = 1;
            s->have_f0 = 0;
            s->jac_current = 0;
            s->first = 0;
            s->naccept_run++;
            s->st.steps++;
            nsing = 0;
            nonfinite_fails = 0;
            if (o->h_max > 0.0) hnew = fmin(hnew, o->h_max);
            if (s->reject) hnew = fmin(hnew, h); /* no growth right after a rejection */
            s->reject = 0;
            if (o->fixed_step) hnew = s->h;

            /* next step: keep h and both factorizations when θ is small and
             * the proposed change is minor; keep J while θ is small */
            double h_next;
            if (last) {
                h_next = o->fixed_step ? s->h : fmax(hnew, h_prop);
            } else {
                double qt = hnew / h;
                if (s->theta <= thet && qt >= o->keep_h_min && qt <= o->keep_h_max)
                    h_next = h;
                else
                    h_next = hnew;
            }
            s->h = h_next;
            last_cut = " (the error test asks for it)";
            if (s->theta > thet) s->need_jac = 1;

            if (o->output && emit_outputs(s, s->t, 1))
                return cr_error_set(err, CR_INTERRUPTED,
                                    "radau: stopped by the output callback at t = %.17g", s->t);
            if (o->step_callback && o->step_callback(s->t, s->y, s->prob.user))
                return cr_error_set(err, CR_INTERRUPTED,
                                    "radau: stopped by the step callback at t = %.17g", s->t);
            if (last) return CR_OK;
        } else {
            /* rejected by the error test */
            s->st.rejected++;
            s->h = s->first ? 0.1 * h : hnew;
            s->reject = 1;
            last_cut = " (the error test rejected the step)";
            if (!s->jac_current) s->need_jac = 1;
            s->need_lu = 1;
        }
    }
}

/* ======================================================================== */
/* Dense LAPACK hooks                                                       */
/* ======================================================================== */

/* Fortran LAPACK (column-major). COMPLEX*16 arrays are passed as interleaved
 * (re, im) double pairs. The trailing size_t is gfortran's hidden length of
 * the CHARACTER argument. */
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
                    const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                    size_t trans_len);
extern void zgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void zgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
                    const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                    size_t trans_len);

struct cr_radau_dense_solver {
    int n;
    double *mass;
    cr_radau_dense_jac_fn jac;
    cr_radau_rhs_fn rhs;
    void *user;
    double *J;   /* n×n column-major */
    double *lu;  /* n×n */
    double *zlu; /* n×n complex, interleaved */
    double *zb;  /* n complex */
    double *ytmp, *ftmp;
    int *ipiv, *zipiv;
    int have_real, have_complex;
};

void cr_radau_dense_solver_destroy(cr_radau_dense_solver *d)
{
    if (!d) return;
    free(d->mass);
    free(d->J);
    free(d->lu);
    free(d->zlu);
    free(d->zb);
    free(d->ytmp);
    free(d->ftmp);
    free(d->ipiv);
    free(d->zipiv);
    free(d);
}

cr_radau_dense_solver *cr_radau_dense_solver_create(int n, const double *mass,
                                                    cr_radau_dense_jac_fn jac,
                                                    cr_radau_rhs_fn rhs, void *user,
                                                    cr_error *err)
{
    if (n < 1) {
        cr_error_set(err, CR_BAD_INPUT, "radau dense: n = %d, need n >= 1", n);
        return NULL;
    }
    if (!jac && !rhs) {
        cr_error_set(err, CR_BAD_INPUT, "radau dense: need a Jacobian or rhs for differences");
        return NULL;
    }
    if ((size_t)n > 46340 / 2) { /* n² must fit LAPACK's int indexing, 2n² doubles */
        cr_error_set(err, CR_UNSUPPORTED, "radau dense: n = %d too large for dense storage", n);
        return NULL;
    }
    cr_radau_dense_solver *d = calloc(1, sizeof *d);
    if (!d) {
        cr_error_set(err, CR_NO_MEMORY, "radau dense: out of memory");
        return NULL;
    }
    size_t nn = (size_t)n * (size_t)n;
    d->n = n;
    d->jac = jac;
    d->rhs = rhs;
    d->user = user;
    d->mass = malloc(sizeof(double) * (size_t)n);
    d->J = calloc(nn, sizeof(double));
    d->lu = malloc(sizeof(double) * nn);
    d->zlu = malloc(sizeof(double) * 2 * nn);
    d->zb = malloc(sizeof(double) * 2 * (size_t)n);
    d->ytmp = malloc(sizeof(double) * (size_t)n);
    d->ftmp = malloc(sizeof(double) * (size_t)n);
    d->ipiv = malloc(sizeof(int) * (size_t)n);
    d->zipiv = malloc(sizeof(int) * (size_t)n);
    if (!d->mass || !d->J || !d->lu || !d->zlu || !d->zb || !d->ytmp || !d->ftmp || !d->ipiv ||
        !d->zipiv) {
        cr_radau_dense_solver_destroy(d);
        cr_error_set(err, CR_NO_MEMORY, "radau dense: out of memory");
        return NULL;
    }
    for (int i = 0; i < n; ++i) d->mass[i] = mass ? mass[i] : 1.0;
    return d;
}

static cr_status dense_jacobian(double t, const double *y, const double *fy, void *ctx)
{
    cr_radau_dense_solver *d = ctx;
    const int n = d->n;
    size_t nn = (size_t)n * (size_t)n;
    memset(d->J, 0, sizeof(double) * nn);
    d->have_real = d->have_complex = 0;
    if (d->jac) {
        cr_status st = d->jac(t, y, d->J, d->user);
        if (st != CR_OK) return st;
    } else {
        /* forward differences, increment √(ε·max(1e-5, |y_j|)) (RADAU5) */
        memcpy(d->ytmp, y, sizeof(double) * (size_t)n);
        for (int j = 0; j < n; ++j) {
            double delt = sqrt(EPS * fmax(1e-5, fabs(y[j])));
            d->ytmp[j] = y[j] + delt;
            delt = d->ytmp[j] - y[j]; /* the increment actually representable */
            cr_status st = d->rhs(t, d->ytmp, d->ftmp, d->user);
            d->ytmp[j] = y[j];
            if (st != CR_OK) return st;
            for (int i = 0; i < n; ++i) d->J[i + (size_t)j * n] = (d->ftmp[i] - fy[i]) / delt;
        }
    }
    for (size_t k = 0; k < nn; ++k)
        if (!isfinite(d->J[k])) return CR_NONFINITE;
    return CR_OK;
}

static cr_status dense_factor_real(double shift, void *ctx)
{
    cr_radau_dense_solver *d = ctx;
    const int n = d->n;
    size_t nn = (size_t)n * (size_t)n;
    for (size_t k = 0; k < nn; ++k) d->lu[k] = -d->J[k];
    for (int i = 0; i < n; ++i) d->lu[i + (size_t)i * n] += shift * d->mass[i];
    int info = 0;
    dgetrf_(&n, &n, d->lu, &n, d->ipiv, &info);
    d->have_real = (info == 0);
    if (info > 0) return CR_SINGULAR;
    if (info < 0) return CR_BAD_INPUT;
    return CR_OK;
}

static cr_status dense_solve_real(double *b, void *ctx)
{
    cr_radau_dense_solver *d = ctx;
    if (!d->have_real) return CR_BAD_INPUT;
    const int n = d->n, one = 1;
    int info = 0;
    dgetrs_("N", &n, &one, d->lu, &n, d->ipiv, b, &n, &info, 1);
    return info == 0 ? CR_OK : CR_BAD_INPUT;
}

static cr_status dense_factor_complex(double sr, double si, void *ctx)
{
    cr_radau_dense_solver *d = ctx;
    const int n = d->n;
    size_t nn = (size_t)n * (size_t)n;
    for (size_t k = 0; k < nn; ++k) {
        d->zlu[2 * k] = -d->J[k];
        d->zlu[2 * k + 1] = 0.0;
    }
    for (int i = 0; i < n; ++i) {
        size_t k = i + (size_t)i * n;
        d->zlu[2 * k] += sr * d->mass[i];
        d->zlu[2 * k + 1] += si * d->mass[i];
    }
    int info = 0;
    zgetrf_(&n, &n, d->zlu, &n, d->zipiv, &info);
    d->have_complex = (info == 0);
    if (info > 0) return CR_SINGULAR;
    if (info < 0) return CR_BAD_INPUT;
    return CR_OK;
}

static cr_status dense_solve_complex(double *bre, double *bim, void *ctx)
{
    cr_radau_dense_solver *d = ctx;
    if (!d->have_complex) return CR_BAD_INPUT;
    const int n = d->n, one = 1;
    for (int i = 0; i < n; ++i) {
        d->zb[2 * i] = bre[i];
        d->zb[2 * i + 1] = bim[i];
    }
    int info = 0;
    zgetrs_("N", &n, &one, d->zlu, &n, d->zipiv, d->zb, &n, &info, 1);
    for (int i = 0; i < n; ++i) {
        bre[i] = d->zb[2 * i];
        bim[i] = d->zb[2 * i + 1];
    }
    return info == 0 ? CR_OK : CR_BAD_INPUT;
}

cr_radau_linsys cr_radau_dense_solver_linsys(cr_radau_dense_solver *d)
{
    cr_radau_linsys ls;
    ls.jacobian = dense_jacobian;
    ls.factor_real = dense_factor_real;
    ls.solve_real = dense_solve_real;
    ls.factor_complex = dense_factor_complex;
    ls.solve_complex = dense_solve_complex;
    ls.ctx = d;
    return ls;
}
