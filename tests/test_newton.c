/* The generic load-stepping Newton solver (src/solvers/newton.c) on small problems
 * with known answers: a step is accepted only when its residual meets the tolerance
 * or sits at the round-off floor of a solve that did not diverge, never with a
 * non-finite state; otherwise the solve fails and keeps the last accepted step. */
#include "check.h"
#include "solvers/newton.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

enum { BLOCKS = 3, BSIZE = 2, DIM = BLOCKS * BSIZE };

/* ---- F_k = atan(x_k) - λ a: root x_k = tan(λ a); Newton diverges from |x| > 1.39 ---- */

typedef struct atan_ctx {
    double a;
    int jacobians;          /* evaluations with J */
    int corrections;        /* calls of the (no-op) correct hook */
    int poison;             /* project() writes a NaN */
} atan_ctx;

static cr_status atan_eval(void *ctx, double lf, const double *x, double *F, cr_blocktri *J)
{
    atan_ctx *c = ctx;
    if (J) cr_blocktri_zero(J), c->jacobians++;
    for (int k = 0; k < DIM; ++k) {
        F[k] = atan(x[k]) - lf * c->a;
        if (J) cr_blocktri_D(J, k / BSIZE)[(k % BSIZE) * BSIZE + k % BSIZE] = 1.0 / (1.0 + x[k] * x[k]);
    }
    return CR_OK;
}

/* leaves x alone, as the static position correction does with rigid strain components */
static cr_status noop_correct(void *ctx, double lf, double *x)
{
    ((atan_ctx *)ctx)->corrections++;
    return CR_OK;
}

static void poison_project(void *ctx, double *x)
{
    if (((atan_ctx *)ctx)->poison) x[DIM - 1] = NAN;
}

static cr_nonlinear_problem atan_problem(atan_ctx *c)
{
    return (cr_nonlinear_problem){.blocks = BLOCKS, .block_size = BSIZE, .ctx = c, .eval = atan_eval,
                                  .correct = noop_correct, .project = poison_project};
}

/* Newton on atan from beyond its basin: from x = 5 the predictor (slope a(1 + x²))
 * goes to 7.6 and the iterates overshoot to ever larger |x| while the residual stays
 * below π/2. Before the fix the no-op correction made every increment zero and this
 * was "converged" after two iterations with a residual ~1.6; now the step must fail
 * and the starting state be kept. From x = 1 the same solver converges. */
static void test_diverging_newton_is_not_accepted(void)
{
    atan_ctx c = {.a = 0.1};
    cr_nonlinear_problem p = atan_problem(&c);
    cr_static_options o = cr_static_default_options();
    o.load_steps = 1;
    o.max_halvings = 3;
    double x[DIM], lf = 0;
    for (int k = 0; k < DIM; ++k) x[k] = 5.0;
    cr_static_report r;
    cr_error err = {0};
    cr_status st = cr_load_stepping_solve(&p, &lf, x, &o, &r, &err);
    printf("  from x = 5: status %d: %s\n", st, err.message);
    CHECK(st == CR_NOT_CONVERGED || st == CR_NONFINITE || st == CR_SINGULAR); /* any failure */
    CHECK(!r.converged);
    CHECK(r.step_count == 0);
    CHECK(lf == 0.0);
    for (int k = 0; k < DIM; ++k) CHECK(x[k] == 5.0); /* the last accepted state */
    CHECK_NEAR(r.final_residual, atan(5.0), 1e-15);    /* of that state, at load factor 0 */
    CHECK(c.corrections > 0);                          /* the no-op hook was in the loop */
    CHECK(strstr(err.message, "load step 1") != NULL);
    cr_static_report_free(&r);

    for (int k = 0; k < DIM; ++k) x[k] = 1.0;
    lf = 0;
    st = cr_load_stepping_solve(&p, &lf, x, &o, &r, &err);
    CHECK(st == CR_OK);
    CHECK(r.converged && lf == 1.0);
    for (int k = 0; k < DIM; ++k) CHECK_NEAR(x[k], tan(0.1), 1e-12);
    cr_static_report_free(&r);
}

/* project() corrupting the state: the step must be refused, not recorded. */
static void test_nonfinite_state_is_not_accepted(void)
{
    atan_ctx c = {.a = 0.1, .poison = 1};
    cr_nonlinear_problem p = atan_problem(&c);
    cr_static_options o = cr_static_default_options();
    o.load_steps = 2;
    o.max_halvings = 2;
    double x[DIM] = {0}, lf = 0;
    cr_static_report r;
    cr_error err = {0};
    cr_status st = cr_load_stepping_solve(&p, &lf, x, &o, &r, &err);
    printf("  status %d: %s\n", st, err.message);
    CHECK(st == CR_NONFINITE);
    CHECK(!r.converged && r.step_count == 0 && lf == 0.0);
    for (int k = 0; k < DIM; ++k) CHECK(x[k] == 0.0);
    CHECK(strstr(err.message, "non-finite") != NULL);
    cr_static_report_free(&r);
}

/* ---- F = x - x_ref - λ b plus noise of relative size `noise`·eps: a residual whose
 * round-off floor is known. |x| ~ 1e6 while the load moves x by 1e-3, so the
 * relative tolerance rtol·err₀ ~ 1e-13 lies below the floor ~ eps·1e6 ~ 2e-10. ---- */

typedef struct noisy_ctx {
    double noise;
    uint64_t seed;
} noisy_ctx;

static double uniform(uint64_t *s) /* xorshift64*, in [-1, 1) */
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

static cr_status noisy_eval(void *ctx, double lf, const double *x, double *F, cr_blocktri *J)
{
    noisy_ctx *c = ctx;
    if (J) cr_blocktri_zero(J);
    for (int k = 0; k < DIM; ++k) {
        double ref = 1e6 * (1 + k);
        F[k] = x[k] - ref - lf * 1e-3 + c->noise * DBL_EPSILON * ref * uniform(&c->seed);
        if (J) cr_blocktri_D(J, k / BSIZE)[(k % BSIZE) * BSIZE + k % BSIZE] = 1.0;
    }
    return CR_OK;
}

static void noisy_solve(double noise, cr_status *st, double *x, double *lf, cr_static_report *r)
{
    noisy_ctx c = {.noise = noise, .seed = 88172645463325252ULL};
    cr_nonlinear_problem p = {.blocks = BLOCKS, .block_size = BSIZE, .ctx = &c, .eval = noisy_eval};
    cr_static_options o = cr_static_default_options();
    o.load_steps = 2;
    o.max_halvings = 1;
    o.atol = 1e-300;
    o.rtol = 1e-10;
    for (int k = 0; k < DIM; ++k) x[k] = 1e6 * (1 + k);
    *lf = 0;
    cr_error err = {0};
    *st = cr_load_stepping_solve(&p, lf, x, &o, r, &err);
    printf("  noise %g eps: status %d, final residual %.3e %s\n", noise, *st, r->final_residual, err.message);
}

static void test_roundoff_floor(void)
{
    /* noise of a few eps of the terms: the floor is reached and accepted */
    cr_status st;
    double x[DIM], lf;
    cr_static_report r;
    noisy_solve(4.0, &st, x, &lf, &r);
    CHECK(st == CR_OK && r.converged && lf == 1.0);
    for (int k = 0; k < DIM; ++k) CHECK_NEAR(x[k], 1e6 * (1 + k) + 1e-3, 1e-8);
    CHECK(r.final_residual > 1e-13); /* the tolerance alone would not have been met */
    cr_static_report_free(&r);

    /* noise 10⁵ eps (a residual that cannot converge, ~1e-5 RMS): not a floor; refused */
    noisy_solve(1e5, &st, x, &lf, &r);
    CHECK(st == CR_NOT_CONVERGED);
    CHECK(!r.converged && r.step_count == 0 && lf == 0.0);
    for (int k = 0; k < DIM; ++k) CHECK(x[k] == 1e6 * (1 + k));
    cr_static_report_free(&r);
}

/* ---- the same with one nearly singular row (J_kk = 1e-9): the residual sits at its
 * round-off floor but the noise, amplified by J⁻¹, keeps the increments above
 * rtol·|x| for ever (as in a 1e6-element steel wire). The solve must stop early,
 * saying so, instead of iterating max_iterations times through every halving. ---- */
static cr_status ill_eval(void *ctx, double lf, const double *x, double *F, cr_blocktri *J)
{
    noisy_ctx *c = ctx;
    if (J) cr_blocktri_zero(J);
    for (int k = 0; k < DIM; ++k) {
        double ref = 1e6 * (1 + k), d = k == DIM / 2 ? 1e-9 : 1.0;
        F[k] = d * (x[k] - ref - lf * 1e-3) + c->noise * DBL_EPSILON * ref * uniform(&c->seed);
        if (J) cr_blocktri_D(J, k / BSIZE)[(k % BSIZE) * BSIZE + k % BSIZE] = d;
    }
    return CR_OK;
}

static void test_stall_at_floor_fails_fast(void)
{
    noisy_ctx c = {.noise = 4.0, .seed = 88172645463325252ULL};
    cr_nonlinear_problem p = {.blocks = BLOCKS, .block_size = BSIZE, .ctx = &c, .eval = ill_eval};
    cr_static_options o = cr_static_default_options();
    o.load_steps = 2;
    o.atol = 1e-300;
    o.rtol = 1e-10;
    double x[DIM], lf = 0;
    for (int k = 0; k < DIM; ++k) x[k] = 1e6 * (1 + k);
    cr_static_report r;
    cr_error err = {0};
    cr_status st = cr_load_stepping_solve(&p, &lf, x, &o, &r, &err);
    printf("  ill-conditioned: status %d after %d iterations in %d failed attempts: %s\n", st, r.total_iterations,
           r.failed_attempts, err.message);
    CHECK(st == CR_NOT_CONVERGED && !r.converged && lf == 0.0);
    CHECK(strstr(err.message, "stalled 3 times in a row") != NULL);
    /* 3 attempts of at most 8 iterations at the floor (+ the first), not 11 × 25 */
    CHECK(r.failed_attempts == 3 && r.total_iterations <= 3 * 9);
    for (int k = 0; k < DIM; ++k) CHECK(x[k] == 1e6 * (1 + k)); /* the last converged state */
    cr_static_report_free(&r);
}

/* A load step's last update confirmed with the previous LU (newton.c): on atan(x) = λ a
 * the steps that needed a full iteration to confirm their last update no longer do, and
 * the state is as exact as the confirmation promises (rtol^1.5 |x|, here far better). */
static void test_chord_confirmation(void)
{
    const double a[2] = {0.5, 1.2};
    for (int t = 0; t < 2; ++t) {
        atan_ctx c = {.a = a[t]};
        cr_nonlinear_problem p = atan_problem(&c);
        cr_static_options o = cr_static_default_options(); /* rtol 1e-6 */
        o.load_steps = 10;
        o.atol = 1e-300; /* the residual test relative to the step's first residual */
        double x[DIM] = {0}, lf = 0, worst = 0;
        cr_static_report r;
        cr_error err = {0};
        CHECK(cr_load_stepping_solve(&p, &lf, x, &o, &r, &err) == CR_OK && lf == 1.0);
        for (int k = 0; k < DIM; ++k) worst = fmax(worst, fabs(x[k] / tan(a[t]) - 1));
        printf("  chord confirmation, a = %.1f: %d iterations, %d Jacobians in %d steps, |x/x* - 1| = %.1e\n", a[t],
               r.total_iterations, c.jacobians, r.step_count, worst);
        CHECK(r.step_count == 10);
        /* a = 1.2: 23 iterations; 29 when every step ends with a full iteration (chord off) */
        if (t == 1) CHECK(r.total_iterations <= 24);
        CHECK(c.jacobians <= r.total_iterations + 1); /* + the first tangent's */
        CHECK(worst < 1e-9);                         /* rtol^1.5 */
        cr_static_report_free(&r);
    }
}

CHECK_MAIN(CASE(test_diverging_newton_is_not_accepted), CASE(test_nonfinite_state_is_not_accepted),
           CASE(test_roundoff_floor), CASE(test_stall_at_floor_fails_fast), CASE(test_chord_confirmation))
