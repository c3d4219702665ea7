/* Tests of the Radau IIA integrator (include/cosserat/radau.h), each against an
 * independent exact reference: closed-form coefficients, matrix-exponential
 * and closed-form solutions. Run with a substring of a case name to filter;
 * set RADAU_VERBOSE=1 to print the measured numbers. */
#include "cosserat/radau.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbose(void)
{
    const char *v = getenv("RADAU_VERBOSE");
    return v && v[0] && v[0] != '0';
}

/* ------------------------------------------------------------------------ */
/* Harness: a problem with a dense Jacobian, an exact solution, and error    */
/* tracking at every accepted step.                                         */
/* ------------------------------------------------------------------------ */

typedef struct harness harness;
struct harness {
    int n;
    void (*exact)(double t, double *y, const harness *hs);
    double L;             /* problem parameter (stiffness) */
    double rtol, atol;    /* for scaled errors */
    double max_abs_err;   /* over accepted steps, max-norm */
    double max_scaled;    /* max |err_i| / (atol + rtol |y_i|) */
    double max_abs_alg;   /* algebraic components only (DAE test) */
    const double *mass;
    int stop_after;       /* step callback returns 1 after this many steps (0 = never) */
    int steps_seen;
    double stop_t;
    double stop_y[8];
    int renormalize;      /* step callback normalizes (y0, y1) */
    int fail_budget;      /* rhs returns CR_NONFINITE this many times for t > 1e-3 */
    double nan_after;     /* rhs returns NaN for t > nan_after (0 = never) */
    /* dense output */
    int n_out;
    double out_t[256];
    double out_err[256];
    double out_max_err;
};

static void track_error(harness *hs, double t, const double *y)
{
    double ex[8];
    hs->exact(t, ex, hs);
    for (int i = 0; i < hs->n; ++i) {
        double e = fabs(y[i] - ex[i]);
        hs->max_abs_err = fmax(hs->max_abs_err, e);
        hs->max_scaled = fmax(hs->max_scaled, e / (hs->atol + hs->rtol * fabs(ex[i])));
        if (hs->mass && hs->mass[i] == 0.0) hs->max_abs_alg = fmax(hs->max_abs_alg, e);
    }
}

static int step_cb(double t, double *y, void *user)
{
    harness *hs = user;
    if (hs->renormalize) {
        double r = sqrt(y[0] * y[0] + y[1] * y[1]);
        y[0] /= r;
        y[1] /= r;
    }
    track_error(hs, t, y);
    hs->steps_seen++;
    if (hs->stop_after > 0 && hs->steps_seen >= hs->stop_after) {
        hs->stop_t = t;
        for (int i = 0; i < hs->n; ++i) hs->stop_y[i] = y[i];
        return 1;
    }
    return 0;
}

static int output_cb(double t, const double *y, void *user)
{
    harness *hs = user;
    double ex[8], e = 0.0;
    hs->exact(t, ex, hs);
    for (int i = 0; i < hs->n; ++i) e = fmax(e, fabs(y[i] - ex[i]));
    if (hs->n_out < 256) {
        hs->out_t[hs->n_out] = t;
        hs->out_err[hs->n_out] = e;
    }
    hs->n_out++;
    hs->out_max_err = fmax(hs->out_max_err, e);
    return 0;
}

/* Creates the dense linear algebra and the integrator; both freed by the caller. */
static cr_radau *make_solver(harness *hs, cr_radau_rhs_fn rhs, cr_radau_dense_jac_fn jac,
                             const double *mass, cr_radau_options opt, double t0,
                             const double *y0, cr_radau_dense_solver **dense)
{
    cr_error err = {CR_OK, ""};
    hs->mass = mass;
    hs->rtol = opt.rtol;
    hs->atol = opt.atol;
    *dense = cr_radau_dense_solver_create(hs->n, mass, jac, rhs, hs, &err);
    CHECK(*dense != NULL);
    if (!*dense) return NULL;
    cr_radau_problem p;
    p.n = hs->n;
    p.mass = mass;
    p.rhs = rhs;
    p.linsys = cr_radau_dense_solver_linsys(*dense);
    p.user = hs;
    if (!opt.step_callback) opt.step_callback = step_cb;
    cr_radau *s = cr_radau_create(&p, &opt, t0, y0, &err);
    if (!s) fprintf(stderr, "create failed: %s\n", err.message);
    CHECK(s != NULL);
    return s;
}

static void print_stats(const char *label, const cr_radau *s)
{
    if (!verbose()) return;
    cr_radau_stats st = cr_radau_get_stats(s);
    printf("    %s: steps %ld, rejected %ld, newton fails %ld, newton its %ld, F %ld, J %ld, "
           "LU %ld+%ld, h_last %.3g\n",
           label, st.steps, st.rejected, st.newton_failures, st.newton_iterations, st.rhs_evals,
           st.jac_evals, st.lu_real, st.lu_complex, st.h_last);
}

/* ------------------------------------------------------------------------ */
/* 1. Linear stiff system, eigenvalues −1 and −1e4:                          */
/*    y' = A y, A = V diag(−1, −L) V^{-1}, V = [[1, 1], [1, 2]],              */
/*    y(t) = V diag(e^{−t}, e^{−Lt}) V^{-1} y0 (the matrix exponential).      */
/* ------------------------------------------------------------------------ */

static void lin_matrix(double L, double A[2][2])
{
    /* V^{-1} = [[2, −1], [−1, 1]] (det V = 1) */
    const double V[2][2] = {{1, 1}, {1, 2}}, Vi[2][2] = {{2, -1}, {-1, 1}};
    const double d[2] = {-1.0, -L};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) A[i][j] = V[i][0] * d[0] * Vi[0][j] + V[i][1] * d[1] * Vi[1][j];
}

static void lin_exact(double t, double *y, const harness *hs)
{
    /* y0 = (1, 0): V^{-1} y0 = (2, −1) */
    double a = 2.0 * exp(-t), b = -exp(-hs->L * t);
    y[0] = a + b;
    y[1] = a + 2.0 * b;
}

static cr_status lin_rhs(double t, const double *y, double *f, void *user)
{
    const harness *hs = user;
    double A[2][2];
    lin_matrix(hs->L, A);
    f[0] = A[0][0] * y[0] + A[0][1] * y[1];
    f[1] = A[1][0] * y[0] + A[1][1] * y[1];
    return CR_OK;
}

static cr_status lin_jac(double t, const double *y, double *J, void *user)
{
    const harness *hs = user;
    double A[2][2];
    lin_matrix(hs->L, A);
    J[0] = A[0][0];
    J[1] = A[1][0];
    J[2] = A[0][1];
    J[3] = A[1][1];
    return CR_OK;
}

static void test_linear_stiff(void)
{
    const double tols[3] = {1e-4, 1e-6, 1e-8};
    double errs[3] = {0};
    for (int k = 0; k < 3; ++k) {
        harness hs;
        memset(&hs, 0, sizeof hs);
        hs.n = 2;
        hs.exact = lin_exact;
        hs.L = 1e4;
        cr_radau_options o = cr_radau_default_options();
        o.rtol = tols[k];
        o.atol = tols[k];
        const double y0[2] = {1.0, 0.0};
        cr_radau_dense_solver *d = NULL;
        cr_radau *s = make_solver(&hs, lin_rhs, lin_jac, NULL, o, 0.0, y0, &d);
        if (!s) { cr_radau_dense_solver_destroy(d); return; }
        cr_error err = {CR_OK, ""};
        cr_status st = cr_radau_integrate(s, 10.0, &err);
        CHECK(st == CR_OK);
        CHECK(cr_radau_t(s) == 10.0);
        double ex[2];
        lin_exact(10.0, ex, &hs);
        CHECK_NEAR(cr_radau_y(s)[0], ex[0], 10.0 * tols[k]);
        /* global error measured against the tolerance, at every step */
        CHECK(hs.max_scaled < 5.0);
        errs[k] = hs.max_abs_err;
        cr_radau_stats sts = cr_radau_get_stats(s);
        CHECK(sts.steps < 2000); /* stiffness must not dictate h */
        if (verbose()) printf("    tol %.0e: max |err| %.3g, max scaled %.3g\n", tols[k], hs.max_abs_err, hs.max_scaled);
        print_stats("linear stiff", s);
        cr_radau_destroy(s);
        cr_radau_dense_solver_destroy(d);
    }
    /* tolerance proportionality: tighter tolerance, smaller error */
    CHECK(errs[1] < 0.1 * errs[0]);
    CHECK(errs[2] < 0.1 * errs[1]);
}

/* ------------------------------------------------------------------------ */
/* 2. Prothero–Robinson y' = −L(y − g) + g', g = sin t + cos 2t; exact y = g. */
/* ------------------------------------------------------------------------ */

static double pr_g(double t) { return sin(t) + cos(2.0 * t); }
static double pr_gp(double t) { return cos(t) - 2.0 * sin(2.0 * t); }

static void pr_exact(double t, double *y, const harness *hs) { y[0] = pr_g(t); }

static cr_status pr_rhs(double t, const double *y, double *f, void *user)
{
    const harness *hs = user;
    f[0] = -hs->L * (y[0] - pr_g(t)) + pr_gp(t);
    return CR_OK;
}

static cr_status pr_jac(double t, const double *y, double *J, void *user)
{
    const harness *hs = user;
    J[0] = -hs->L;
    return CR_OK;
}

static void test_prothero_robinson(void)
{
    const double Ls[5] = {1.0, 1e2, 1e4, 1e6, 1e8};
    const double tol = 1e-6;
    double adapt_err[5], fixed_err[5];
    long adapt_steps[5];
    for (int k = 0; k < 5; ++k) {
        for (int fixed = 0; fixed < 2; ++fixed) {
            harness hs;
            memset(&hs, 0, sizeof hs);
            hs.n = 1;
            hs.exact = pr_exact;
            hs.L = Ls[k];
            cr_radau_options o = cr_radau_default_options();
            /* local meaning of the tolerance (no RADAU5 transformation), so
             * that the bound below is stated in the tolerance itself */
            o.rtol = tol;
            o.atol = tol;
            o.transform_tolerances = 0;
            if (fixed) {
                o.fixed_step = 1;
                o.h_init = 0.1;
            }
            double y0 = pr_g(0.0);
            cr_radau_dense_solver *d = NULL;
            cr_radau *s = make_solver(&hs, pr_rhs, pr_jac, NULL, o, 0.0, &y0, &d);
            if (!s) { cr_radau_dense_solver_destroy(d); return; }
            cr_status st = cr_radau_integrate(s, 10.0, NULL);
            CHECK(st == CR_OK);
            if (fixed) {
                fixed_err[k] = hs.max_abs_err;
            } else {
                adapt_err[k] = hs.max_abs_err;
                adapt_steps[k] = cr_radau_get_stats(s).steps;
            }
            if (verbose())
                printf("    L = %.0e %s: max |err| %.3g, steps %ld\n", Ls[k],
                       fixed ? "fixed h=0.1" : "adaptive   ", hs.max_abs_err,
                       cr_radau_get_stats(s).steps);
            cr_radau_destroy(s);
            cr_radau_dense_solver_destroy(d);
        }
    }
    for (int k = 0; k < 5; ++k) {
        /* the adaptive run meets the tolerance for every stiffness (order
         * reduction at intermediate hL costs a small factor, not a blow-up) */
        CHECK(adapt_err[k] < 10.0 * tol);
        /* and the stiffness does not dictate the step size */
        CHECK(adapt_steps[k] <= adapt_steps[0] + 10);
        /* fixed h: bounded uniformly in L */
        CHECK(fixed_err[k] < 1e-6);
    }
    /* stiff accuracy (y1 = Y3): with fixed h the error decays as L -> inf */
    for (int k = 2; k < 5; ++k) CHECK(fixed_err[k] < 0.1 * fixed_err[k - 1]);
    CHECK(fixed_err[4] < 1e-3 * fixed_err[0]);
    CHECK(adapt_err[4] < adapt_err[1]);
}

/* ------------------------------------------------------------------------ */
/* 3. Index-1 DAE, M = diag(1, 1, 0, 1, 0):                                  */
/*    y1' = −y3 y2,  y2' = y3 y1,  0 = y3 − (1 + t)(y1² + y2²),              */
/*    y4' = −y5,     0 = y5 − y4²;                                          */
/*    exact: θ = t + t²/2, y1 = cos θ, y2 = sin θ, y3 = 1 + t,               */
/*    y4 = 1/(1 + t), y5 = 1/(1 + t)².                                      */
/* ------------------------------------------------------------------------ */

static const double dae_mass[5] = {1, 1, 0, 1, 0};

static void dae_exact(double t, double *y, const harness *hs)
{
    double th = t + 0.5 * t * t;
    y[0] = cos(th);
    y[1] = sin(th);
    y[2] = 1.0 + t;
    y[3] = 1.0 / (1.0 + t);
    y[4] = y[3] * y[3];
}

static cr_status dae_rhs(double t, const double *y, double *f, void *user)
{
    harness *hs = user;
    if (hs->fail_budget > 0 && t > 1e-3) {
        hs->fail_budget--;
        return CR_NONFINITE;
    }
    f[0] = -y[2] * y[1];
    f[1] = y[2] * y[0];
    f[2] = y[2] - (1.0 + t) * (y[0] * y[0] + y[1] * y[1]);
    f[3] = -y[4];
    f[4] = y[4] - y[3] * y[3];
    return CR_OK;
}

static cr_status dae_jac(double t, const double *y, double *J, void *user)
{
    const int n = 5;
#define JX(i, j) J[(i) + (j) * n]
    JX(0, 1) = -y[2];
    JX(0, 2) = -y[1];
    JX(1, 0) = y[2];
    JX(1, 2) = y[0];
    JX(2, 0) = -2.0 * (1.0 + t) * y[0];
    JX(2, 1) = -2.0 * (1.0 + t) * y[1];
    JX(2, 2) = 1.0;
    JX(3, 4) = -1.0;
    JX(4, 3) = -2.0 * y[3];
    JX(4, 4) = 1.0;
#undef JX
    return CR_OK;
}

static void test_dae_index1(void)
{
    for (int variant = 0; variant < 3; ++variant) {
        /* 0: analytic J; 1: finite-difference J; 2: per-component atol vector
         * and an rhs that fails a few times (the integrator must cut h) */
        harness hs;
        memset(&hs, 0, sizeof hs);
        hs.n = 5;
        hs.exact = dae_exact;
        cr_radau_options o = cr_radau_default_options();
        o.rtol = 1e-7;
        o.atol = 1e-7;
        const double atolv[5] = {1e-7, 1e-7, 1e-6, 1e-7, 1e-7};
        if (variant == 2) {
            o.atol_vec = atolv;
            hs.fail_budget = 3;
        }
        double y0[5];
        dae_exact(0.0, y0, &hs);
        cr_radau_dense_solver *d = NULL;
        cr_radau *s = make_solver(&hs, dae_rhs, variant == 1 ? NULL : dae_jac, dae_mass, o, 0.0,
                                  y0, &d);
        if (!s) { cr_radau_dense_solver_destroy(d); return; }
        cr_error err = {CR_OK, ""};
        cr_status st = cr_radau_integrate(s, 3.0, &err);
        if (st != CR_OK) fprintf(stderr, "dae: %s\n", err.message);
        CHECK(st == CR_OK);
        double ex[5];
        dae_exact(3.0, ex, &hs);
        const double *y = cr_radau_y(s);
        double ediff = fmax(fmax(fabs(y[0] - ex[0]), fabs(y[1] - ex[1])), fabs(y[3] - ex[3]));
        double ealg = fmax(fabs(y[2] - ex[2]), fabs(y[4] - ex[4]));
        CHECK(ediff < 2e-6);
        CHECK(ealg < 2e-6 * 4.0); /* y3 = (1 + t) r², |y3| = 4 at t = 3 */
        CHECK(hs.max_abs_alg < 1e-5);
        CHECK(hs.max_scaled < 10.0);
        cr_radau_stats sts = cr_radau_get_stats(s);
        if (variant == 2) CHECK(sts.newton_failures >= 1);
        if (verbose())
            printf("    variant %d: end |err| diff %.3g alg %.3g; max over steps %.3g (alg %.3g), scaled %.3g\n",
                   variant, ediff, ealg, hs.max_abs_err, hs.max_abs_alg, hs.max_scaled);
        print_stats("dae", s);
        cr_radau_destroy(s);
        cr_radau_dense_solver_destroy(d);
    }
}

/* ------------------------------------------------------------------------ */
/* 4. Observed order with fixed steps on a smooth nonstiff problem:          */
/*    y1' = y1 cos t (y1 = e^{sin t}), y2' = −y2² (y2 = 1/(1 + t)),          */
/*    y3' = y4, y4' = −y3 (y3 = cos t, y4 = −sin t).                        */
/* ------------------------------------------------------------------------ */

static void smooth_exact(double t, double *y, const harness *hs)
{
    y[0] = exp(sin(t));
    y[1] = 1.0 / (1.0 + t);
    y[2] = cos(t);
    y[3] = -sin(t);
}

static cr_status smooth_rhs(double t, const double *y, double *f, void *user)
{
    f[0] = y[0] * cos(t);
    f[1] = -y[1] * y[1];
    f[2] = y[3];
    f[3] = -y[2];
    return CR_OK;
}

static cr_status smooth_jac(double t, const double *y, double *J, void *user)
{
    J[0 + 0 * 4] = cos(t);
    J[1 + 1 * 4] = -2.0 * y[1];
    J[2 + 3 * 4] = 1.0;
    J[3 + 2 * 4] = -1.0;
    return CR_OK;
}

static double smooth_fixed_error(double h, double T)
{
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 4;
    hs.exact = smooth_exact;
    cr_radau_options o = cr_radau_default_options();
    o.fixed_step = 1;
    o.h_init = h;
    /* Newton converged to ~1e-15 so that only the truncation error is seen:
     * tight scaling tolerance and enough iterations to reach it */
    o.rtol = 1e-12;
    o.atol = 1e-12;
    o.transform_tolerances = 0;
    o.max_newton = 20;
    double y0[4];
    smooth_exact(0.0, y0, &hs);
    cr_radau_dense_solver *d = NULL;
    cr_radau *s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return NAN; }
    cr_status st = cr_radau_integrate(s, T, NULL);
    CHECK(st == CR_OK);
    long steps = cr_radau_get_stats(s).steps;
    CHECK(steps == (long)llround(T / h));
    double ex[4], e = 0.0;
    smooth_exact(T, ex, &hs);
    for (int i = 0; i < 4; ++i) e = fmax(e, fabs(cr_radau_y(s)[i] - ex[i]));
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
    return e;
}

static void test_order_fixed_step(void)
{
    const double T = 4.0;
    double hs_[4] = {0.4, 0.2, 0.1, 0.05}, e[4];
    for (int k = 0; k < 4; ++k) e[k] = smooth_fixed_error(hs_[k], T);
    for (int k = 0; k + 1 < 4; ++k) {
        double p = log2(e[k] / e[k + 1]);
        if (verbose()) printf("    h = %.3f: err %.3e, h/2: err %.3e, observed order %.3f\n", hs_[k], e[k], e[k + 1], p);
        CHECK(p > 4.7 && p < 5.3);
    }
}

/* ------------------------------------------------------------------------ */
/* 5a. Tableau: closed forms and the block form of T^{-1} A^{-1} T.          */
/* ------------------------------------------------------------------------ */

static void test_tableau(void)
{
    cr_radau_tableau tb;
    cr_error err = {CR_OK, ""};
    CHECK(cr_radau_tableau_compute(&tb, &err) == CR_OK);
    const double s6 = sqrt(6.0);
    /* nodes and coefficients in closed form (spec section 9, HW IV.5 Table 5.6) */
    CHECK_NEAR(tb.c[0], (4.0 - s6) / 10.0, 1e-15);
    CHECK_NEAR(tb.c[1], (4.0 + s6) / 10.0, 1e-15);
    CHECK_NEAR(tb.c[2], 1.0, 0.0);
    const double A[3][3] = {
        {(88.0 - 7.0 * s6) / 360.0, (296.0 - 169.0 * s6) / 1800.0, (-2.0 + 3.0 * s6) / 225.0},
        {(296.0 + 169.0 * s6) / 1800.0, (88.0 + 7.0 * s6) / 360.0, (-2.0 - 3.0 * s6) / 225.0},
        {(16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK_NEAR(tb.a[i][j], A[i][j], 1e-15);
    /* order conditions B(5): Σ b_i c_i^{k−1} = 1/k */
    for (int k = 1; k <= 5; ++k) {
        double sum = 0.0;
        for (int i = 0; i < 3; ++i) sum += tb.b[i] * pow(tb.c[i], k - 1);
        CHECK_NEAR(sum, 1.0 / k, 1e-15);
    }
    /* characteristic polynomial of A^{-1}: the Padé (2,3) denominator
     * 1 − 3z/5 + 3z²/20 − z³/60 of the stability function gives
     * det(λI − A^{-1}) = λ³ − 9λ² + 36λ − 60 */
    double tr = tb.ainv[0][0] + tb.ainv[1][1] + tb.ainv[2][2];
    CHECK_NEAR(tr, 9.0, 1e-12);
    CHECK_NEAR(tb.gamma + 2.0 * tb.alpha, 9.0, 1e-12);
    CHECK_NEAR(tb.gamma * (tb.alpha * tb.alpha + tb.beta * tb.beta), 60.0, 1e-11);
    CHECK_NEAR(2.0 * tb.gamma * tb.alpha + tb.alpha * tb.alpha + tb.beta * tb.beta, 36.0, 1e-11);
    CHECK_NEAR(tb.gamma, 3.0 + cbrt(9.0) - cbrt(3.0), 1e-14);
    CHECK_NEAR(tb.alpha, 2.681083, 1e-6);
    CHECK_NEAR(tb.beta, 3.050430, 1e-6);
    /* T^{-1} A^{-1} T = [[γ̂,0,0],[0,α̂,−β̂],[0,β̂,α̂]], recomputed here */
    double tmp[3][3], blk[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            tmp[i][j] = 0.0;
            for (int k = 0; k < 3; ++k) tmp[i][j] += tb.ainv[i][k] * tb.t[k][j];
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            blk[i][j] = 0.0;
            for (int k = 0; k < 3; ++k) blk[i][j] += tb.tinv[i][k] * tmp[k][j];
        }
    const double want[3][3] = {{tb.gamma, 0, 0}, {0, tb.alpha, -tb.beta}, {0, tb.beta, tb.alpha}};
    double worst = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) worst = fmax(worst, fabs(blk[i][j] - want[i][j]));
    CHECK(worst < 1e-13);
    CHECK(tb.residual < 1e-13);
    /* A·A^{-1} = I */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double sum = 0.0;
            for (int k = 0; k < 3; ++k) sum += tb.a[i][k] * tb.ainv[k][j];
            CHECK_NEAR(sum, i == j ? 1.0 : 0.0, 1e-13);
        }
    /* error weights in the (γ̂/h M − J) form, closed form from spec section 9 */
    CHECK_NEAR(tb.e[0], (-13.0 - 7.0 * s6) / 3.0, 1e-12);
    CHECK_NEAR(tb.e[1], (-13.0 + 7.0 * s6) / 3.0, 1e-12);
    CHECK_NEAR(tb.e[2], -1.0 / 3.0, 1e-12);
    /* the embedded formula has order 3: 1/γ̂ + Σ b̂ = 1, Σ b̂ c = 1/2, Σ b̂ c² = 1/3,
     * and not 4 */
    double s0 = 1.0 / tb.gamma, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int i = 0; i < 3; ++i) {
        s0 += tb.bhat[i];
        s1 += tb.bhat[i] * tb.c[i];
        s2 += tb.bhat[i] * tb.c[i] * tb.c[i];
        s3 += tb.bhat[i] * pow(tb.c[i], 3);
    }
    CHECK_NEAR(s0, 1.0, 1e-14);
    CHECK_NEAR(s1, 0.5, 1e-14);
    CHECK_NEAR(s2, 1.0 / 3.0, 1e-14);
    CHECK(fabs(s3 - 0.25) > 1e-3);
    if (verbose())
        printf("    gamma %.15f alpha %.15f beta %.15f, block residual %.2e, self-check %.2e\n",
               tb.gamma, tb.alpha, tb.beta, worst, tb.residual);
}

/* ------------------------------------------------------------------------ */
/* 5b. Statistics on a long smooth run; Jacobian reuse.                      */
/* ------------------------------------------------------------------------ */

static void test_statistics(void)
{
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 4;
    hs.exact = smooth_exact;
    cr_radau_options o = cr_radau_default_options();
    o.rtol = 1e-6;
    o.atol = 1e-6;
    double y0[4];
    smooth_exact(0.0, y0, &hs);
    cr_radau_dense_solver *d = NULL;
    cr_radau *s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 50.0, NULL) == CR_OK);
    cr_radau_stats st = cr_radau_get_stats(s);
    print_stats("smooth [0,50]", s);
    CHECK(st.steps > 20);
    CHECK(st.jac_evals < st.steps);          /* J reused across steps */
    CHECK(st.lu_real == st.lu_complex);
    CHECK(st.lu_real <= st.steps + st.rejected + st.newton_failures + 1);
    CHECK(st.newton_iterations >= st.steps);
    CHECK(st.newton_iterations <= 7 * (st.steps + st.rejected + st.newton_failures));
    /* 3 F per iteration + 1 per step start + filter evaluations + 1 for h0 */
    CHECK(st.rhs_evals >= 3 * st.newton_iterations + st.steps);
    CHECK(st.rhs_evals <= 3 * st.newton_iterations + 2 * (st.steps + st.rejected) + 4);
    CHECK(st.solves_real >= st.newton_iterations + st.steps);
    CHECK(st.solves_complex == st.newton_iterations);
    CHECK(st.h_last > 0.0 && st.h_next > 0.0);
    /* global error over ~8 periods, with rtol' = 0.1·rtol^{2/3} = 1e-5 used
     * internally (RADAU5 transformation) */
    CHECK(hs.max_scaled < 10.0);
    if (verbose()) printf("    max |err| %.3g, scaled %.3g\n", hs.max_abs_err, hs.max_scaled);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);

    /* with the looser reuse threshold RADAU5 recommends for expensive
     * Jacobians (θ <= 0.1), J and both factorizations are kept over many
     * steps, at the same accuracy */
    long steps_default = st.steps;
    memset(&hs, 0, sizeof hs);
    hs.n = 4;
    hs.exact = smooth_exact;
    o.jac_reuse_theta = 0.1;
    s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 50.0, NULL) == CR_OK);
    st = cr_radau_get_stats(s);
    print_stats("smooth [0,50], theta 0.1", s);
    CHECK(st.jac_evals < st.steps / 4);
    CHECK(st.lu_real < st.steps);
    CHECK(st.lu_real == st.lu_complex);
    CHECK(st.steps < 2 * steps_default);
    CHECK(hs.max_scaled < 10.0);
    if (verbose()) printf("    max |err| %.3g, scaled %.3g\n", hs.max_abs_err, hs.max_scaled);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);

    /* growth limited by the Newton contraction: the same accuracy, no more Newton failures,
     * at most a few more steps; out-of-range values are refused */
    cr_radau_stats st_free = st;
    memset(&hs, 0, sizeof hs);
    hs.n = 4;
    hs.exact = smooth_exact;
    o.newton_growth_theta = 0.05;
    s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 50.0, NULL) == CR_OK);
    st = cr_radau_get_stats(s);
    print_stats("smooth [0,50], theta 0.1, growth theta 0.05", s);
    CHECK(st.newton_failures <= st_free.newton_failures);
    CHECK(st.steps < 2 * st_free.steps);
    CHECK(hs.max_scaled < 10.0);
    cr_radau_destroy(s);
    for (int k = 0; k < 2; ++k) {
        o.newton_growth_theta = k ? 1.0 : -0.1;
        cr_error e = {0};
        cr_radau_problem pb = {.n = 4, .rhs = smooth_rhs, .linsys = cr_radau_dense_solver_linsys(d), .user = &hs};
        CHECK(cr_radau_create(&pb, &o, 0.0, y0, &e) == NULL && e.status == CR_BAD_INPUT);
    }
    cr_radau_dense_solver_destroy(d);
    o.newton_growth_theta = 0.0;
    o.jac_reuse_theta = 0.001;

    /* a linear problem: J constant, θ tiny, so one Jacobian for the whole run */
    memset(&hs, 0, sizeof hs);
    hs.n = 2;
    hs.exact = lin_exact;
    hs.L = 1e4;
    const double yl[2] = {1.0, 0.0};
    s = make_solver(&hs, lin_rhs, lin_jac, NULL, o, 0.0, yl, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 10.0, NULL) == CR_OK);
    st = cr_radau_get_stats(s);
    print_stats("linear [0,10]", s);
    CHECK(st.jac_evals <= 3);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* 5c. The step callback stops the run; the state is the last accepted step; */
/*     the run can be continued.                                           */
/* ------------------------------------------------------------------------ */

static int stop_output_cb(double t, const double *y, void *user)
{
    harness *hs = user;
    output_cb(t, y, user);
    return hs->n_out == 3;
}

static void test_callback_stop(void)
{
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 4;
    hs.exact = smooth_exact;
    hs.stop_after = 5;
    cr_radau_options o = cr_radau_default_options();
    double y0[4];
    smooth_exact(0.0, y0, &hs);
    cr_radau_dense_solver *d = NULL;
    cr_radau *s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    cr_error err = {CR_OK, ""};
    cr_status st = cr_radau_integrate(s, 10.0, &err);
    CHECK(st == CR_INTERRUPTED);
    CHECK(err.status == CR_INTERRUPTED && strstr(err.message, "step callback") != NULL);
    CHECK(cr_radau_get_stats(s).steps == 5);
    CHECK(cr_radau_t(s) == hs.stop_t);
    CHECK(hs.stop_t > 0.0 && hs.stop_t < 10.0);
    for (int i = 0; i < 4; ++i) CHECK(cr_radau_y(s)[i] == hs.stop_y[i]);
    /* continue to the end */
    hs.stop_after = 0;
    CHECK(cr_radau_integrate(s, 10.0, NULL) == CR_OK);
    CHECK(cr_radau_t(s) == 10.0);
    CHECK(hs.max_scaled < 5.0);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);

    /* the output callback can stop too: third output at t = 2 (grid 0, 1, 2) */
    memset(&hs, 0, sizeof hs);
    hs.n = 4;
    hs.exact = smooth_exact;
    o.output = stop_output_cb;
    o.output_interval = 1.0;
    s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    err.status = CR_OK;
    CHECK(cr_radau_integrate(s, 10.0, &err) == CR_INTERRUPTED);
    CHECK(strstr(err.message, "output callback") != NULL);
    CHECK(hs.n_out == 3);
    CHECK(cr_radau_t(s) >= 2.0 && cr_radau_t(s) < 10.0);
    CHECK(hs.steps_seen == cr_radau_get_stats(s).steps - 1); /* step callback not run for it */
    /* continuing reports the rest of the grid, each output once, accurately */
    CHECK(cr_radau_integrate(s, 10.0, NULL) == CR_OK);
    CHECK(hs.n_out == 11);
    for (int i = 0; i < 11 && i < hs.n_out; ++i) CHECK_NEAR(hs.out_t[i], (double)i, 1e-13);
    CHECK(hs.out_max_err < 1e-4);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* 5d. Dense output against the exact solution at output times.             */
/* ------------------------------------------------------------------------ */

static void test_dense_output(void)
{
    for (int mode = 0; mode < 2; ++mode) {
        harness hs;
        memset(&hs, 0, sizeof hs);
        hs.n = 4;
        hs.exact = smooth_exact;
        cr_radau_options o = cr_radau_default_options();
        o.rtol = 1e-8;
        o.atol = 1e-8;
        o.output = output_cb;
        double times[7] = {0.0, 0.123, 1.0, 2.5, 2.5000001, 6.0, 8.0};
        if (mode == 0)
            o.output_interval = 0.1;
        else {
            o.output_times = times;
            o.n_output_times = 7;
        }
        double y0[4];
        smooth_exact(0.0, y0, &hs);
        cr_radau_dense_solver *d = NULL;
        cr_radau *s = make_solver(&hs, smooth_rhs, smooth_jac, NULL, o, 0.0, y0, &d);
        if (!s) { cr_radau_dense_solver_destroy(d); return; }
        /* two calls: outputs continue across them */
        CHECK(cr_radau_integrate(s, 3.0, NULL) == CR_OK);
        CHECK(cr_radau_integrate(s, 8.0, NULL) == CR_OK);
        int want = mode == 0 ? 81 : 7;
        CHECK(hs.n_out == want);
        int ordered = 1;
        for (int i = 1; i < hs.n_out && i < 256; ++i)
            if (!(hs.out_t[i] > hs.out_t[i - 1])) ordered = 0;
        CHECK(ordered);
        if (mode == 0) {
            CHECK_NEAR(hs.out_t[0], 0.0, 0.0);
            CHECK_NEAR(hs.out_t[80], 8.0, 1e-14);
        }
        /* the collocation polynomial is accurate to O(h^4) between the step
         * ends (stage order 3): require a few times the tolerance */
        CHECK(hs.out_max_err < 1e-6);
        /* interpolating at the step end reproduces the state */
        double yi[4];
        CHECK(cr_radau_interpolate(s, cr_radau_t(s), yi, NULL) == CR_OK);
        for (int i = 0; i < 4; ++i) CHECK_NEAR(yi[i], cr_radau_y(s)[i], 1e-15);
        if (verbose())
            printf("    %s: %d outputs, max |err| %.3g (step-end max %.3g)\n",
                   mode == 0 ? "interval 0.1" : "explicit times", hs.n_out, hs.out_max_err, hs.max_abs_err);
        print_stats("dense", s);
        cr_radau_destroy(s);
        cr_radau_dense_solver_destroy(d);
    }
}

/* ------------------------------------------------------------------------ */
/* 5e. The step callback modifies y (renormalization on a circle).           */
/*     y1' = −ω y2, y2' = ω y1, ω = 2; exact (cos ωt, sin ωt).              */
/* ------------------------------------------------------------------------ */

static void circle_exact(double t, double *y, const harness *hs)
{
    y[0] = cos(2.0 * t);
    y[1] = sin(2.0 * t);
}

static cr_status circle_rhs(double t, const double *y, double *f, void *user)
{
    f[0] = -2.0 * y[1];
    f[1] = 2.0 * y[0];
    return CR_OK;
}

static cr_status circle_jac(double t, const double *y, double *J, void *user)
{
    J[2] = -2.0; /* ∂f0/∂y1 */
    J[1] = 2.0;  /* ∂f1/∂y0 */
    return CR_OK;
}

static void test_callback_modifies_state(void)
{
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 2;
    hs.exact = circle_exact;
    hs.renormalize = 1;
    cr_radau_options o = cr_radau_default_options();
    o.rtol = 1e-6;
    o.atol = 1e-6;
    const double y0[2] = {1.0, 0.0};
    cr_radau_dense_solver *d = NULL;
    cr_radau *s = make_solver(&hs, circle_rhs, circle_jac, NULL, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 20.0, NULL) == CR_OK);
    const double *y = cr_radau_y(s);
    CHECK_NEAR(y[0] * y[0] + y[1] * y[1], 1.0, 4e-16);
    double ex[2];
    circle_exact(20.0, ex, &hs);
    CHECK_NEAR(y[0], ex[0], 1e-5);
    CHECK_NEAR(y[1], ex[1], 1e-5);
    if (verbose()) printf("    |y|^2 - 1 = %.2e, end err %.3g\n", y[0] * y[0] + y[1] * y[1] - 1.0,
                          fmax(fabs(y[0] - ex[0]), fabs(y[1] - ex[1])));
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* 5f. Checkpoint (t, y, h) and restart in a fresh integrator.               */
/* ------------------------------------------------------------------------ */

static void test_checkpoint_restart(void)
{
    cr_radau_options o = cr_radau_default_options();
    o.rtol = 1e-7;
    o.atol = 1e-7;
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 5;
    hs.exact = dae_exact;
    double y0[5];
    dae_exact(0.0, y0, &hs);
    /* uninterrupted */
    cr_radau_dense_solver *d = NULL;
    cr_radau *s = make_solver(&hs, dae_rhs, dae_jac, dae_mass, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 3.0, NULL) == CR_OK);
    double yfull[5];
    memcpy(yfull, cr_radau_y(s), sizeof yfull);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
    /* to 1.5, checkpoint, destroy */
    s = make_solver(&hs, dae_rhs, dae_jac, dae_mass, o, 0.0, y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 1.5, NULL) == CR_OK);
    double ck_t = cr_radau_t(s), ck_h = cr_radau_h(s), ck_y[5];
    memcpy(ck_y, cr_radau_y(s), sizeof ck_y);
    CHECK(ck_t == 1.5 && ck_h > 0.0);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
    /* restart from the checkpoint */
    o.h_init = ck_h;
    s = make_solver(&hs, dae_rhs, dae_jac, dae_mass, o, ck_t, ck_y, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    CHECK(cr_radau_integrate(s, 3.0, NULL) == CR_OK);
    double ex[5];
    dae_exact(3.0, ex, &hs);
    double dmax = 0.0, emax = 0.0;
    for (int i = 0; i < 5; ++i) {
        dmax = fmax(dmax, fabs(cr_radau_y(s)[i] - yfull[i]));
        emax = fmax(emax, fabs(cr_radau_y(s)[i] - ex[i]));
    }
    CHECK(emax < 1e-5);
    CHECK(dmax < 1e-5);
    /* reinit in place reproduces the restart exactly (same state machine) */
    double yr[5];
    memcpy(yr, cr_radau_y(s), sizeof yr);
    CHECK(cr_radau_reinit(s, ck_t, ck_y, ck_h, NULL) == CR_OK);
    CHECK(cr_radau_integrate(s, 3.0, NULL) == CR_OK);
    for (int i = 0; i < 5; ++i) CHECK(cr_radau_y(s)[i] == yr[i]);
    if (verbose()) printf("    restart vs uninterrupted %.3g, vs exact %.3g\n", dmax, emax);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* 5g. Bad input and failure paths return codes with messages.              */
/* ------------------------------------------------------------------------ */

static cr_status singular_factor(double shift, void *ctx) { return CR_SINGULAR; }
static cr_status singular_factor_c(double a, double b, void *ctx) { return CR_SINGULAR; }

static cr_status nan_rhs(double t, const double *y, double *f, void *user)
{
    const harness *hs = user;
    f[0] = -y[0];
    if (t > hs->nan_after) f[0] = NAN;
    return CR_OK;
}

static cr_status nan_jac(double t, const double *y, double *J, void *user)
{
    J[0] = -1.0;
    return CR_OK;
}

static void test_errors(void)
{
    cr_error err = {CR_OK, ""};
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 1;
    hs.L = 1.0;
    hs.exact = pr_exact;
    cr_radau_dense_solver *d = cr_radau_dense_solver_create(1, NULL, pr_jac, pr_rhs, &hs, &err);
    CHECK(d != NULL);
    if (!d) return;
    cr_radau_problem p;
    p.n = 1;
    p.mass = NULL;
    p.rhs = pr_rhs;
    p.linsys = cr_radau_dense_solver_linsys(d);
    p.user = &hs;
    cr_radau_options o = cr_radau_default_options();
    double y0 = 1.0;

    p.n = 0;
    CHECK(cr_radau_create(&p, &o, 0.0, &y0, &err) == NULL);
    CHECK(err.status == CR_BAD_INPUT && err.message[0] != '\0');
    p.n = 1;
    o.fixed_step = 1; /* without h_init */
    err.status = CR_OK;
    CHECK(cr_radau_create(&p, &o, 0.0, &y0, &err) == NULL);
    CHECK(err.status == CR_BAD_INPUT);
    o = cr_radau_default_options();
    o.atol = 0.0;
    CHECK(cr_radau_create(&p, &o, 0.0, &y0, &err) == NULL);
    o = cr_radau_default_options();
    double bad_times[2] = {1.0, 0.5};
    o.output_times = bad_times;
    o.n_output_times = 2;
    CHECK(cr_radau_create(&p, &o, 0.0, &y0, &err) == NULL);
    o = cr_radau_default_options();
    double ynan = NAN;
    CHECK(cr_radau_create(&p, &o, 0.0, &ynan, &err) == NULL);

    /* backward integration is refused */
    cr_radau *s = cr_radau_create(&p, &o, 0.0, &y0, &err);
    CHECK(s != NULL);
    if (s) {
        err.status = CR_OK;
        CHECK(cr_radau_integrate(s, -1.0, &err) == CR_BAD_INPUT);
        CHECK(err.status == CR_BAD_INPUT);
        CHECK(cr_radau_interpolate(s, 0.0, &y0, NULL) == CR_BAD_INPUT); /* no step yet */
        /* max_steps */
        cr_radau_destroy(s);
    }
    o.max_steps = 3;
    s = cr_radau_create(&p, &o, 0.0, &y0, &err);
    if (s) {
        CHECK(cr_radau_integrate(s, 100.0, &err) == CR_NOT_CONVERGED);
        CHECK(strstr(err.message, "max_steps") != NULL);
        cr_radau_destroy(s);
    }
    o = cr_radau_default_options();

    /* singular shifted matrices, every time */
    cr_radau_problem ps = p;
    ps.linsys.factor_real = singular_factor;
    ps.linsys.factor_complex = singular_factor_c;
    s = cr_radau_create(&ps, &o, 0.0, &y0, &err);
    CHECK(s != NULL);
    if (s) {
        CHECK(cr_radau_integrate(s, 1.0, &err) == CR_SINGULAR);
        CHECK(cr_radau_t(s) == 0.0);
        CHECK(cr_radau_get_stats(s).lu_real == 5);
        cr_radau_destroy(s);
    }
    cr_radau_dense_solver_destroy(d);

    /* F becomes NaN past t = 0.5: the run stops with CR_NONFINITE at the last
     * good accepted state */
    hs.nan_after = 0.5;
    d = cr_radau_dense_solver_create(1, NULL, nan_jac, nan_rhs, &hs, &err);
    if (!d) return;
    p.rhs = nan_rhs;
    p.linsys = cr_radau_dense_solver_linsys(d);
    s = cr_radau_create(&p, &o, 0.0, &y0, &err);
    CHECK(s != NULL);
    if (s) {
        cr_status st = cr_radau_integrate(s, 1.0, &err);
        CHECK(st == CR_NONFINITE);
        CHECK(cr_radau_t(s) <= 0.5);
        CHECK(isfinite(cr_radau_y(s)[0]));
        CHECK_NEAR(cr_radau_y(s)[0], exp(-cr_radau_t(s)), 1e-5);
        if (verbose()) printf("    NaN rhs: %s (stopped at t = %.6f)\n", err.message, cr_radau_t(s));
        cr_radau_destroy(s);
    }
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* 5h. Step-size floor: a collapsing step ends the call promptly.           */
/* ------------------------------------------------------------------------ */

/* y' = y², y(0) = 1: y = 1/(1 − t), a finite-time singularity at t = 1. */
static void blowup_exact(double t, double *y, const harness *hs) { y[0] = 1.0 / (1.0 - t); }
static cr_status blowup_rhs(double t, const double *y, double *f, void *user)
{
    f[0] = y[0] * y[0];
    return CR_OK;
}
static cr_status blowup_jac(double t, const double *y, double *J, void *user)
{
    J[0] = 2.0 * y[0];
    return CR_OK;
}

/* A chirp: y1' = ω y2, y2' = −ω y1 with ω(t) = e^{60 t}, y = (sin Φ, cos Φ),
 * Φ = (e^{60 t} − 1)/60. The steps must shrink like 1/ω: without a floor the
 * integration creeps on (Φ(1) / 2π ≈ 3e24 periods) until max_steps. */
static double chirp_phase(double t) { return expm1(60.0 * t) / 60.0; }
static void chirp_exact(double t, double *y, const harness *hs)
{
    y[0] = sin(chirp_phase(t));
    y[1] = cos(chirp_phase(t));
}
static cr_status chirp_rhs(double t, const double *y, double *f, void *user)
{
    double w = exp(60.0 * t);
    f[0] = w * y[1];
    f[1] = -w * y[0];
    return CR_OK;
}
static cr_status chirp_jac(double t, const double *y, double *J, void *user)
{
    double w = exp(60.0 * t);
    J[0] = 0.0, J[1] = -w, J[2] = w, J[3] = 0.0; /* column-major */
    return CR_OK;
}

static void test_step_size_floor(void)
{
    /* the blow-up: stopped near t = 1 where h < 1e-6 t, on an accurate state */
    harness hs;
    memset(&hs, 0, sizeof hs);
    hs.n = 1;
    hs.exact = blowup_exact;
    cr_radau_options o = cr_radau_default_options();
    o.rtol = 1e-8;
    o.atol = 1e-8;
    o.max_steps = 1000000000; /* as the dynamics driver: only the floor can end it */
    double y0 = 1.0;
    cr_radau_dense_solver *d = NULL;
    cr_radau *s = make_solver(&hs, blowup_rhs, blowup_jac, NULL, o, 0.0, &y0, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    cr_error err = {CR_OK, ""};
    cr_status st = cr_radau_integrate(s, 2.0, &err);
    cr_radau_stats rs = cr_radau_get_stats(s);
    double t = cr_radau_t(s), y = cr_radau_y(s)[0];
    if (verbose())
        printf("    blow-up: %s; %ld steps, %ld rejected, 1 - t = %.3g, y = %.6g (exact %.6g)\n", err.message,
               rs.steps, rs.rejected, 1.0 - t, y, 1.0 / (1.0 - t));
    CHECK(st == CR_NOT_CONVERGED);
    CHECK(err.status == CR_NOT_CONVERGED && strstr(err.message, "step size too small (h = ") != NULL);
    CHECK(strstr(err.message, "at t = ") != NULL);
    CHECK(rs.h_next < 1e-6 * t); /* stopped by the relative floor ... */
    CHECK(t > 0.999 && 1.0 - t > 1e-9); /* ... close to the singularity, long before ε-sized steps */
    CHECK(rs.steps + rs.rejected + rs.newton_failures < 2000);
    /* the last accepted state is accurate (relative 1e-2: the blow-up amplifies the
     * local errors like y itself) */
    CHECK_NEAR(y * (1.0 - t), 1.0, 1e-2);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);

    /* the chirp: without the floor this call would run for ~1e9 attempted steps */
    memset(&hs, 0, sizeof hs);
    hs.n = 2;
    hs.exact = chirp_exact;
    o = cr_radau_default_options();
    o.rtol = 1e-6; /* looser, and the L-stable method damps the unresolved oscillation instead */
    o.atol = 1e-6;
    o.max_steps = 1000000000;
    double yc[2];
    chirp_exact(0.0, yc, &hs);
    s = make_solver(&hs, chirp_rhs, chirp_jac, NULL, o, 0.0, yc, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    err.status = CR_OK;
    st = cr_radau_integrate(s, 1.0, &err);
    rs = cr_radau_get_stats(s);
    t = cr_radau_t(s);
    if (verbose())
        printf("    chirp: %s; %ld steps, %ld rejected, omega(t) = %.3g, max error %.3g\n", err.message, rs.steps,
               rs.rejected, exp(60 * t), hs.max_abs_err);
    CHECK(st == CR_NOT_CONVERGED);
    CHECK(strstr(err.message, "step size too small (h = ") != NULL);
    CHECK(t > 0.1 && t < 1.0);
    CHECK(rs.steps + rs.rejected + rs.newton_failures < 1000000); /* vs ~1e9 without the floor */
    CHECK(hs.max_abs_err < 0.05); /* accurate to the end: a phase error after ~10⁵ periods */

    /* h_min_rel = 0 and an absolute floor: stops at the absolute floor instead */
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d); /* make_solver creates a new one */
    o.h_min_rel = 0.0;
    o.h_min = 1e-5;
    memset(&hs, 0, sizeof hs);
    hs.n = 2;
    hs.exact = chirp_exact;
    s = make_solver(&hs, chirp_rhs, chirp_jac, NULL, o, 0.0, yc, &d);
    if (!s) { cr_radau_dense_solver_destroy(d); return; }
    st = cr_radau_integrate(s, 1.0, &err);
    CHECK(st == CR_NOT_CONVERGED && strstr(err.message, "step size too small") != NULL);
    CHECK(cr_radau_get_stats(s).h_next < 1e-5);
    CHECK(cr_radau_get_stats(s).h_last >= 1e-5 || cr_radau_get_stats(s).steps == 0);
    cr_radau_destroy(s);
    cr_radau_dense_solver_destroy(d);

    /* bad floors are refused */
    o = cr_radau_default_options();
    o.h_min_rel = 1.0;
    cr_radau_problem p = {.n = 1, .rhs = blowup_rhs};
    d = cr_radau_dense_solver_create(1, NULL, blowup_jac, blowup_rhs, &hs, &err);
    p.linsys = cr_radau_dense_solver_linsys(d);
    CHECK(cr_radau_create(&p, &o, 0.0, &y0, &err) == NULL && err.status == CR_BAD_INPUT);
    o.h_min_rel = 0.0;
    o.h_min = -1.0;
    CHECK(cr_radau_create(&p, &o, 0.0, &y0, &err) == NULL && err.status == CR_BAD_INPUT);
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* 5i. Controller memory: a run stopped after step k and restarted from      */
/*     (t, y, memory) takes the steps of the uninterrupted run.              */
/* ------------------------------------------------------------------------ */

/* Van der Pol in Hairer's scaling, ε = 1e-6: y1' = y2, ε y2' = (1 − y1²) y2 − y1,
 * y(0) = (2, −0.66), to t = 2 (stiff, with a fast transition near t = 0.81). No
 * closed form: the reference is the uninterrupted run, whose accuracy is checked
 * against a run with 1000× tighter tolerances. */
static cr_status vdp_rhs(double t, const double *y, double *f, void *user)
{
    const double eps = 1e-6;
    f[0] = y[1];
    f[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / eps;
    return CR_OK;
}
static cr_status vdp_jac(double t, const double *y, double *J, void *user)
{
    const double eps = 1e-6;
    J[0] = 0.0, J[1] = (-2.0 * y[0] * y[1] - 1.0) / eps;
    J[2] = 1.0, J[3] = (1.0 - y[0] * y[0]) / eps;
    return CR_OK;
}

typedef struct vdp_run {
    long stop_after; /* step callback stops after this many accepted steps (0: never) */
    long seen;
    cr_radau *solver;
    cr_radau_memory memory; /* taken in the step callback of the last step */
    double polynomial[6];   /* and the collocation polynomial (3n) */
    double times[1024];     /* accepted step ends */
} vdp_run;

static int vdp_step(double t, double *y, void *user)
{
    vdp_run *r = user;
    if (r->seen < 1024) r->times[r->seen] = t;
    r->seen++;
    if (r->stop_after > 0 && r->seen >= r->stop_after) {
        cr_radau_get_memory(r->solver, &r->memory, r->polynomial); /* describes the next step already */
        return 1;
    }
    return 0;
}

static cr_radau *vdp_solver(vdp_run *r, double rtol, double t0, const double *y0, cr_radau_dense_solver **d)
{
    cr_error err = {CR_OK, ""};
    *d = cr_radau_dense_solver_create(2, NULL, vdp_jac, vdp_rhs, r, &err);
    cr_radau_problem p = {.n = 2, .rhs = vdp_rhs, .linsys = cr_radau_dense_solver_linsys(*d), .user = r};
    cr_radau_options o = cr_radau_default_options();
    o.rtol = rtol;
    o.atol = rtol;
    o.step_callback = vdp_step;
    o.h_min_rel = 0.0; /* the transition needs h/t ~ 1e-9 */
    r->solver = cr_radau_create(&p, &o, t0, y0, &err);
    CHECK(r->solver != NULL);
    return r->solver;
}

static void test_checkpoint_memory(void)
{
    const double y0[2] = {2.0, -0.66}, T = 2.0, rtol = 1e-6;
    /* uninterrupted, and a 1000× tighter reference */
    vdp_run full = {0}, ref = {0};
    cr_radau_dense_solver *d = NULL, *dr = NULL;
    if (!vdp_solver(&full, rtol, 0.0, y0, &d) || !vdp_solver(&ref, 1e-3 * rtol, 0.0, y0, &dr)) return;
    CHECK(cr_radau_integrate(full.solver, T, NULL) == CR_OK);
    CHECK(cr_radau_integrate(ref.solver, T, NULL) == CR_OK);
    const long n_full = cr_radau_get_stats(full.solver).steps;
    static double t_full[1024];
    memcpy(t_full, full.times, sizeof t_full);
    double y_full[2] = {cr_radau_y(full.solver)[0], cr_radau_y(full.solver)[1]};
    double acc = fmax(fabs(y_full[0] - cr_radau_y(ref.solver)[0]), fabs(y_full[1] - cr_radau_y(ref.solver)[1]) * 1e-3);
    CHECK(acc < 1e-3); /* the uninterrupted run is a sound reference */
    cr_radau_destroy(full.solver);
    cr_radau_destroy(ref.solver);
    cr_radau_dense_solver_destroy(dr);

    const long stops[4] = {1, n_full / 7, n_full / 3, (3 * n_full) / 4};
    long worst_mem = 0, worst_h = 0;
    double sum_dh_mem = 0, sum_dh_h = 0;
    for (int k = 0; k < 4; ++k) {
        /* run to step stops[k], keep (t, y, memory, h), destroy */
        vdp_run a = {.stop_after = stops[k]};
        cr_radau_dense_solver_destroy(d);
        if (!vdp_solver(&a, rtol, 0.0, y0, &d)) return;
        CHECK(cr_radau_integrate(a.solver, T, NULL) == CR_INTERRUPTED);
        double t_k = cr_radau_t(a.solver), y_k[2] = {cr_radau_y(a.solver)[0], cr_radau_y(a.solver)[1]};
        double h_k = cr_radau_h(a.solver);
        CHECK(a.memory.t == t_k && a.memory.h == h_k && a.memory.accepted == (double)stops[k]);
        cr_radau_destroy(a.solver);
        /* resume in a fresh integrator from (t, y, memory) */
        vdp_run b = {0};
        cr_radau_dense_solver *db = NULL;
        if (!vdp_solver(&b, rtol, t_k, y_k, &db)) return;
        cr_error err = {CR_OK, ""};
        CHECK(a.memory.polynomial == 1.0);
        CHECK(cr_radau_reinit_memory(b.solver, t_k, y_k, &a.memory, a.polynomial, &err) == CR_OK);
        cr_radau_memory back;
        double pback[6];
        cr_radau_get_memory(b.solver, &back, pback);
        CHECK(memcmp(pback, a.polynomial, sizeof pback) == 0);
        CHECK(memcmp(&back, &a.memory, sizeof back) == 0); /* every entry restored */
        CHECK(cr_radau_integrate(b.solver, T, NULL) == CR_OK);
        long n_mem = stops[k] + cr_radau_get_stats(b.solver).steps;
        /* the next steps: sizes of the uninterrupted run */
        double dh_mem = 0;
        for (int j = 0; j < 8 && stops[k] + j < n_full; ++j) {
            double h_u = t_full[stops[k] + j] - t_full[stops[k] + j - 1];
            double h_r = b.times[j] - (j ? b.times[j - 1] : t_k);
            dh_mem = fmax(dh_mem, fabs(h_r / h_u - 1.0));
        }
        b.seen = 0;
        double dmem = fmax(fabs(cr_radau_y(b.solver)[0] - y_full[0]), 1e-3 * fabs(cr_radau_y(b.solver)[1] - y_full[1]));
        /* resume from (t, y, h) alone, as before */
        CHECK(cr_radau_reinit(b.solver, t_k, y_k, h_k, NULL) == CR_OK);
        long before = cr_radau_get_stats(b.solver).steps;
        CHECK(cr_radau_integrate(b.solver, T, NULL) == CR_OK);
        long n_h = stops[k] + cr_radau_get_stats(b.solver).steps - before;
        double dh_h = 0;
        for (int j = 0; j < 8 && stops[k] + j < n_full; ++j) {
            double h_u = t_full[stops[k] + j] - t_full[stops[k] + j - 1];
            double h_r = b.times[j] - (j ? b.times[j - 1] : t_k);
            dh_h = fmax(dh_h, fabs(h_r / h_u - 1.0));
        }
        if (verbose())
            printf("    stop after %ld of %ld steps (t = %.6g): resumed with memory %ld steps (|dy| %.2g, next 8 "
                   "step sizes within %.2g), with h only %ld (within %.2g)\n",
                   stops[k], n_full, t_k, n_mem, dmem, dh_mem, n_h, dh_h);
        CHECK(labs(n_mem - n_full) <= 3);
        CHECK(dh_mem < 0.02);
        sum_dh_mem += dh_mem, sum_dh_h += dh_h;
        CHECK(dmem < 1e-3); /* the same solution to the tolerance */
        worst_mem = labs(n_mem - n_full) > worst_mem ? labs(n_mem - n_full) : worst_mem;
        worst_h = labs(n_h - n_full) > worst_h ? labs(n_h - n_full) : worst_h;
        /* a memory of another t is refused */
        cr_radau_memory wrong = a.memory;
        wrong.t += 1.0;
        CHECK(cr_radau_reinit_memory(b.solver, t_k, y_k, &wrong, NULL, &err) == CR_BAD_INPUT);
        CHECK(strstr(err.message, "controller memory of t") != NULL);
        wrong = a.memory;
        wrong.version = 99;
        CHECK(cr_radau_reinit_memory(b.solver, t_k, y_k, &wrong, NULL, &err) == CR_BAD_INPUT);
        cr_radau_destroy(b.solver);
        cr_radau_dense_solver_destroy(db);
    }
    CHECK(CR_RADAU_MEMORY_DOUBLES == 13);
    CHECK(sum_dh_mem < 0.5 * sum_dh_h); /* the memory is what keeps the step sizes */
    if (verbose()) printf("    worst step-count difference: memory %ld, h only %ld\n", worst_mem, worst_h);
    cr_radau_dense_solver_destroy(d);
}

/* ------------------------------------------------------------------------ */
/* The vector work in chunks, through the parallel hook                      */
/* ------------------------------------------------------------------------ */

/* n decoupled rows above CR_RADAU_PARALLEL_MIN: y_i' = −k_i y_i (k_i from 1 to 100) and,
 * every 1000th row, the algebraic 0 = e^{−t} − y_i; exact y_i(0) e^{−k_i t} and e^{−t}. The
 * hook runs the chunks backwards (any order must give the same numbers): the run with it
 * and the one without agree to the last bit, states, outputs and counters alike. */
typedef struct chunked {
    int n;
    double *k, *mass;
    double sr, si; /* the current shifts */
    int hook_calls;
    int outputs;
    double out_sum; /* Σ over outputs of the first and last entries */
} chunked;

static double chunk_k(int i) { return 1.0 + 99.0 * (double)(i % 97) / 96.0; }

static cr_status chunked_rhs(double t, const double *y, double *f, void *user)
{
    const chunked *c = user;
    for (int i = 0; i < c->n; ++i) f[i] = c->mass[i] != 0.0 ? -c->k[i] * y[i] : exp(-t) - y[i];
    return CR_OK;
}
static cr_status chunked_jac(double t, const double *y, const double *fy, void *ctx)
{
    (void)t, (void)y, (void)fy, (void)ctx;
    return CR_OK;
}
/* −J_ii: k_i, or 1 on an algebraic row */
static cr_status chunked_factor_real(double shift, void *ctx)
{
    ((chunked *)ctx)->sr = shift;
    return CR_OK;
}
static cr_status chunked_solve_real(double *b, void *ctx)
{
    const chunked *c = ctx;
    for (int i = 0; i < c->n; ++i) b[i] /= c->sr * c->mass[i] + (c->mass[i] != 0.0 ? c->k[i] : 1.0);
    return CR_OK;
}
static cr_status chunked_factor_complex(double sr, double si, void *ctx)
{
    chunked *c = ctx;
    c->sr = sr, c->si = si;
    return CR_OK;
}
static cr_status chunked_solve_complex(double *re, double *im, void *ctx)
{
    const chunked *c = ctx;
    for (int i = 0; i < c->n; ++i) {
        const double ar = c->sr * c->mass[i] + (c->mass[i] != 0.0 ? c->k[i] : 1.0), ai = c->si * c->mass[i];
        const double d = ar * ar + ai * ai, xr = (re[i] * ar + im[i] * ai) / d, xi = (im[i] * ar - re[i] * ai) / d;
        re[i] = xr, im[i] = xi;
    }
    return CR_OK;
}
static int chunked_output(double t, const double *y, void *user)
{
    (void)t;
    chunked *c = user;
    c->outputs++;
    c->out_sum += y[0] + y[c->n - 1];
    return 0;
}
static void backwards(int tasks, void (*task)(void *, int), void *arg, void *ctx)
{
    ((chunked *)ctx)->hook_calls++;
    for (int k = tasks - 1; k >= 0; --k) task(arg, k);
}

static void test_parallel_chunks(void)
{
    const int n = 4 * CR_RADAU_CHUNK + 123;
    const double T = 0.3;
    CHECK(n >= CR_RADAU_PARALLEL_MIN);
    chunked c[2];
    double *y[2], *mid[2];
    cr_radau_stats st[2];
    for (int pass = 0; pass < 2; ++pass) {
        chunked *cp = &c[pass];
        memset(cp, 0, sizeof *cp);
        cp->n = n;
        cp->k = malloc(sizeof(double) * (size_t)n), cp->mass = malloc(sizeof(double) * (size_t)n);
        double *y0 = malloc(sizeof(double) * (size_t)n);
        y[pass] = malloc(sizeof(double) * (size_t)n), mid[pass] = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; ++i) {
            cp->k[i] = chunk_k(i), cp->mass[i] = i % 1000 == 500 ? 0.0 : 1.0;
            y0[i] = cp->mass[i] != 0.0 ? 1.0 + 0.5 * sin(i) : 1.0;
        }
        cr_radau_problem p = {.n = n,
                              .mass = cp->mass,
                              .rhs = chunked_rhs,
                              .linsys = {chunked_jac, chunked_factor_real, chunked_solve_real, chunked_factor_complex,
                                         chunked_solve_complex, cp},
                              .user = cp};
        cr_radau_options o = cr_radau_default_options();
        o.rtol = 1e-5, o.atol = 1e-7, o.output = chunked_output, o.output_interval = 0.05;
        if (pass) o.parallel = backwards, o.parallel_ctx = cp;
        cr_error err = {0};
        cr_radau *s = cr_radau_create(&p, &o, 0.0, y0, &err);
        CHECK(s != NULL);
        if (!s) return;
        CHECK(cr_radau_integrate(s, T, &err) == CR_OK);
        memcpy(y[pass], cr_radau_y(s), sizeof(double) * (size_t)n);
        CHECK(cr_radau_interpolate(s, T - 0.5 * cr_radau_get_stats(s).h_last, mid[pass], NULL) == CR_OK);
        st[pass] = cr_radau_get_stats(s);
        /* against the exact solution (rtol bounds the global error roughly) */
        double worst = 0;
        for (int i = 0; i < n; ++i) {
            const double ex = cp->mass[i] != 0.0 ? y0[i] * exp(-cp->k[i] * T) : exp(-T);
            worst = fmax(worst, fabs(y[pass][i] - ex) / (1e-7 + 1e-5 * fabs(ex)));
        }
        if (verbose())
            printf("chunks (%s): %ld steps, worst scaled error %.3g, %d hook calls\n", pass ? "hook" : "serial",
                   st[pass].steps, worst, cp->hook_calls);
        CHECK(worst < 10.0);
        cr_radau_destroy(s);
        free(y0);
    }
    CHECK(c[0].hook_calls == 0 && c[1].hook_calls > 10 * st[1].steps); /* every loop went through it */
    CHECK(memcmp(y[0], y[1], sizeof(double) * (size_t)n) == 0);
    CHECK(memcmp(mid[0], mid[1], sizeof(double) * (size_t)n) == 0);
    CHECK(c[0].outputs == 7 && c[1].outputs == 7 && c[0].out_sum == c[1].out_sum);
    CHECK(st[0].steps == st[1].steps && st[0].rejected == st[1].rejected &&
          st[0].newton_iterations == st[1].newton_iterations && st[0].h_next == st[1].h_next);
    for (int pass = 0; pass < 2; ++pass) free(c[pass].k), free(c[pass].mass), free(y[pass]), free(mid[pass]);
}

CHECK_MAIN(CASE(test_tableau), CASE(test_linear_stiff), CASE(test_prothero_robinson), CASE(test_dae_index1),
           CASE(test_order_fixed_step), CASE(test_statistics), CASE(test_callback_stop), CASE(test_dense_output),
           CASE(test_callback_modifies_state), CASE(test_checkpoint_restart), CASE(test_errors),
           CASE(test_step_size_floor), CASE(test_checkpoint_memory), CASE(test_parallel_chunks))
