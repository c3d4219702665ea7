#define _POSIX_C_SOURCE 199309L
#include "newton.h"
#include "linalg/blocktri_partitioned.h"

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

/* Four partial sums: one sum in order is a chain of dependent additions (4 cycles an
 * element; 8757 unknowns of the tendon manipulator took ~10 µs a norm, three or four norms
 * an iteration), and the compiler may not reorder it itself. */
static double sum_squares(const double *v, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += v[i] * v[i];
        s1 += v[i + 1] * v[i + 1];
        s2 += v[i + 2] * v[i + 2];
        s3 += v[i + 3] * v[i + 3];
    }
    for (; i < n; ++i) s0 += v[i] * v[i];
    return (s0 + s2) + (s1 + s3);
}

static double norm2(const double *v, size_t n) { return sqrt(sum_squares(v, n)); }

cr_static_options cr_static_default_options(void)
{
    return (cr_static_options){.load_steps = 10,
                               .max_iterations = 25,
                               .atol = 1e-10,
                               .rtol = 1e-6,
                               .max_halvings = 10,
                               .max_history = 64,
                               .stability = CR_STABILITY_LEAVE,
                               .stability_modes = 4,
                               .arc_steps = 100,
                               .arc_initial = 0.05,
                               .arc_max_load_factor = 1.0};
}

void cr_static_report_free(cr_static_report *r)
{
    if (!r) return;
    for (int i = 0; i < r->step_count; ++i) free(r->steps[i].residual_history);
    free(r->steps);
    memset(r, 0, sizeof *r);
}

typedef struct newton_work {
    const cr_nonlinear_problem *p;
    double *F, *dx;
    cr_blocktri *J;
    cr_blocktri_part *part; /* partitioned LU of J on p->pool (NULL: serial) */
    cr_pool *pool;
    double *history;
    double *tangent, *tangent_prev, *F1, *F2; /* dx/dλ; F at (x, λ) and (x, λ + dl) from tangent() */
    double dl;
    int history_count, history_capacity;
    int iterations;
    int factor_valid; /* w->J holds a factorization at the current load factor */
    int lu_current;   /* ... of the state the last solve returned, or one tiny update from it */
    double final_err;
    double t_assembly, t_solve;
    int bad_block;
    int limited;            /* Newton updates the trust region damped (this load stepping) */
    int skipped_predictors; /* predictors beyond the trust region, not used */
    int at_floor; /* the last solve stopped at the round-off floor, not at the tolerance */
    /* the last solve stalled at the round-off floor with increments above rtol: the
     * relative increment it kept making, and the residual's round-off scale */
    int stalled;
    double stall_increment, stall_scale;
    /* residual_scale (0: none yet) and |x| when it was computed. It is a pass over every
     * entry of J, as costly as the LU, and only matters for a residual near the floor,
     * where a factor of 2 does not: J changes by O(1) factors in one load stepping, so
     * one estimate serves its steps until |x| has changed by more than SCALE_X_CHANGE. */
    double scale_est, scale_x;
} newton_work;

/* Scale of the round-off in the residual: RMS over the rows of Σ_c |J_rc| |x_c|, the
 * size of the terms summed into each row (e.g. EA|r|/L for a force formed from a strain
 * that is a difference of absolute positions). A row evaluated in floating point
 * carries an error of a few eps times that sum, and a Newton update computed in
 * floating point cannot push it lower. Called on J before it is factored. */
static double residual_scale_sum(const cr_blocktri *J, const double *x, int first, int end)
{
    const int n = J->n, b = J->b;
    const size_t bb = (size_t)b * b;
    double s = 0;
    for (int i = first; i < end; ++i)
        for (int r = 0; r < b; ++r) {
            double row = 0;
            for (int j = -1; j <= 1; ++j) {
                if (i + j < 0 || i + j >= n) continue;
                const double *blk = (j < 0 ? J->lower : j == 0 ? J->diag : J->upper) + i * bb + (size_t)r * b;
                const double *xc = x + (size_t)(i + j) * b;
                for (int c = 0; c < b; ++c) row += fabs(blk[c]) * fabs(xc[c]);
            }
            s += row * row;
        }
    return s;
}

typedef struct scale_job {
    const cr_blocktri *J;
    const double *x;
    double part[CR_MAX_THREADS];
    int ranges;
} scale_job;

static void scale_range(void *arg, int k)
{
    scale_job *j = arg;
    const int n = j->J->n;
    j->part[k] = residual_scale_sum(j->J, j->x, (int)((long long)n * k / j->ranges),
                                    (int)((long long)n * (k + 1) / j->ranges));
}

/* on the pool's threads, the range sums added in range order */
static double residual_scale(const cr_blocktri *J, const double *x, cr_pool *pool)
{
    scale_job job = {.J = J, .x = x, .ranges = cr_pool_threads(pool)};
    cr_pool_run(pool, job.ranges, scale_range, &job);
    double s = 0;
    for (int k = 0; k < job.ranges; ++k) s += job.part[k];
    return sqrt(s / ((double)J->n * J->b));
}

static cr_status factor_J(newton_work *w)
{
    return w->part ? cr_blocktri_part_factor(w->part, w->J, w->pool, &w->bad_block)
                   : cr_blocktri_factor(w->J, &w->bad_block);
}

static void solve_bt(void *ctx, double *x)
{
    newton_work *w = ctx;
    if (w->part) cr_blocktri_part_solve(w->part, w->J, w->pool, x);
    else cr_blocktri_solve(w->J, x);
}

/* the problem's low-rank term (contact between far nodes) on top of J's solve: Woodbury */
static cr_status couple_J(newton_work *w, double *x)
{
    cr_lowrank *lr = w->p && w->p->coupling ? w->p->coupling(w->p->ctx) : NULL;
    if (!lr || lr->m == 0) return CR_OK;
    cr_status st = cr_lowrank_correct(lr, solve_bt, w, x);
    if (st != CR_OK) /* no update: the callers' finiteness tests stop the solve */
        for (size_t k = 0; k < (size_t)w->J->n * w->J->b; ++k) x[k] = NAN;
    return st;
}

static void solve_J(newton_work *w, double *x)
{
    solve_bt(w, x);
    couple_J(w, x);
}

/* factor_J, then solve_J on x: serially in one pass (cr_blocktri_factor_solve) */
static cr_status factor_solve_J(newton_work *w, double *x)
{
    cr_status st = w->part ? factor_J(w) : cr_blocktri_factor_solve(w->J, x, &w->bad_block);
    if (st == CR_OK && w->part) solve_bt(w, x);
    if (st == CR_OK) st = couple_J(w, x);
    return st;
}

static int all_finite(const double *v, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* A residual within this many eps of its round-off scale counts as at the floor:
 * a handful of terms per row, each rounded, plus the rounding of x itself. */
#define ROUNDOFF_FLOOR_EPS 1000.0

/* Iterations with the residual at the round-off floor but the increment test failing
 * after which a solve is given up (see newton()), and consecutive such attempts (with
 * halved load steps in between) after which the stage fails. Accepted solves of a
 * 4e5-element steel wire spend up to 5 iterations at the floor before an increment
 * passes the test; a quadratically converging solve spends 1–3. */
#define STALL_ITERATIONS 8
#define STALL_ATTEMPTS 3

/* newton_work.scale_est is recomputed when |x| has grown or shrunk by this factor */
#define SCALE_X_CHANGE 2.0

/* Adaptive load stepping: iteration counts of an easy and of a hard load step. */
#define ADAPT_EASY_ITERATIONS 4
#define ADAPT_HARD_ITERATIONS 8

/* One Newton solve at fixed load factor. Convergence as spec §7.6: RMS residual
 * err = |F|/√dim below atol or below rtol·err₀, and |Δx| < rtol (|x| + 1e-12).
 * A tolerance below what floating point can reach is met by the round-off floor
 * instead: the increment test passes, the residual is within ROUNDOFF_FLOOR_EPS·eps
 * of the round-off scale of its terms (residual_scale), and it is no larger than
 * at the start of the step. Nothing else is accepted: a stagnating or growing
 * residual is a failure, whatever the size of the increment. */
static cr_status newton(const cr_nonlinear_problem *p, double param, double *x, const cr_static_options *o,
                        double err0, newton_work *w)
{
    size_t dim = (size_t)p->blocks * p->block_size;
    /* x_norm: the size increments are measured against (the problem's, e.g. positions
     * relative to the rod's own origin); x_abs: the plain norm, which sets the round-off */
    double dx_norm = INFINITY, x_abs = norm2(x, dim), err_start = 0, scale = INFINITY;
    double x_norm = p->size ? p->size(p->ctx, x) : x_abs;
    w->history_count = 0;
    w->iterations = 0;
    w->factor_valid = 0;
    w->lu_current = 0;
    w->at_floor = 0;
    w->stalled = 0;
    int stall = 0;
    for (int it = 0;; ++it) {
        /* When the increment test already passes, look at the residual alone first:
         * the Jacobian of a converged state is not needed. So too when the last update
         * was below √rtol |x| (quadratic convergence then makes the next one ~rtol or
         * less): if the residual test passes, the last LU's update, J_old⁻¹F, is the
         * error estimate the increment test needs (J_old is one update, below √rtol
         * relative, from J). Each load step of the tendon manipulator thus ends after 2
         * Newton iterations instead of 3: the third only confirmed an update of
         * 10⁻⁵–10⁻⁴ |x| with a residual already at the round-off floor. (Not decided on
         * the residual: at the round-off floor it is noise, and so was the choice.) */
        /* An increment at the round-off of the coordinates themselves is as small as one can
         * be: a rod 10⁹ m from the origin has its positions to 1e-7 m, and the updates of a
         * converged solve jitter by that much, more than rtol of the rod's own size. */
        const double dx_floor = ROUNDOFF_FLOOR_EPS * DBL_EPSILON * x_abs;
        int increment_ok = it > 0 && (dx_norm < o->rtol * (x_norm + 1e-12) || dx_norm < dx_floor);
        int chord = it > 0 && !increment_ok && w->factor_valid && dx_norm < sqrt(o->rtol) * (x_norm + 1e-12);
        double t0 = now();
        cr_status st = p->eval(p->ctx, param, x, w->F, increment_ok || chord ? NULL : w->J);
        w->t_assembly += now() - t0;
        if (st != CR_OK) return st;
        double err = norm2(w->F, dim) / sqrt((double)dim);
        if (!isfinite(err)) return CR_NONFINITE;
        if (w->history_count < w->history_capacity) w->history[w->history_count++] = err;
        w->final_err = err;
        if (it == 0) err_start = err;
        if (err0 <= 0 && it == 0) err0 = err;
        /* the scale is that of an earlier iterate of this load stepping (recomputed when |x|
         * has changed by SCALE_X_CHANGE): round-off scales change little between them */
        const int small = err < o->atol || err < o->rtol * err0; /* the residual tests */
        const int at_floor = !small && err <= ROUNDOFF_FLOOR_EPS * DBL_EPSILON * scale && err <= fmax(err_start, err0);
        if (chord && (small || at_floor) && all_finite(x, dim)) { /* the last LU's update as the increment */
            t0 = now();
            for (size_t k = 0; k < dim; ++k) w->dx[k] = -w->F[k];
            solve_J(w, w->dx);
            w->t_solve += now() - t0;
            /* The chord update's error is its size times J_old's relative error, which near
             * a nearly singular tangent (a column near buckling) is O(1), not √rtol: so the
             * test is rtol^1.5, not rtol, and the state is then within rtol^1.5 |x| of the
             * solution in every case. (At rtol it accepted an imperfect column at 1.1 P_cr
             * 6e-7 from its equilibrium, whose softest mode then came out at ω² = -3.7 instead
             * of +0.079: tests/test_stability.c.) */
            increment_ok = norm2(w->dx, dim) < o->rtol * sqrt(o->rtol) * (x_norm + 1e-12);
            /* accepted: with the update, so that the state is as exact as after a full
             * iteration (the tendon manipulator's nodes agree with 3 iterations a step to
             * 4e-14 m) */
            if (increment_ok && (small || at_floor)) {
                for (size_t k = 0; k < dim; ++k) x[k] += w->dx[k];
                if (p->project) p->project(p->ctx, x);
            }
        }
        if (increment_ok && all_finite(x, dim)) {
            if (small) return CR_OK;
            if (at_floor) {
                w->at_floor = 1;
                return CR_OK;
            }
        }
        /* At the round-off floor the residual is noise, and the update J⁻¹F is computed
         * with a relative error of about eps·cond(J): with an ill-conditioned tangent (a
         * stiff rod with many elements: axial stiffness EA·n/L against bending, the
         * condition grows as n²) the updates can stay above rtol·|x| for ever while the
         * residual no longer falls. More iterations cannot help: stop this attempt. */
        if (it > 0 && !increment_ok && err <= ROUNDOFF_FLOOR_EPS * DBL_EPSILON * scale) ++stall;
        if (stall >= STALL_ITERATIONS) {
            w->stalled = 1;
            w->stall_increment = dx_norm / (x_norm + 1e-12);
            w->stall_scale = scale;
            return CR_NOT_CONVERGED;
        }
        if (it >= o->max_iterations) return CR_NOT_CONVERGED;
        if (it > 0 && err > 1e8 * (err0 + o->atol)) return CR_NOT_CONVERGED; /* diverging */
        if (increment_ok || chord) { /* not converged after all: the Jacobian is needed */
            t0 = now();
            st = p->eval(p->ctx, param, x, w->F, w->J);
            w->t_assembly += now() - t0;
            if (st != CR_OK) return st;
        }
        t0 = now();
        if (w->scale_est == 0 || x_abs > SCALE_X_CHANGE * w->scale_x || w->scale_x > SCALE_X_CHANGE * x_abs) {
            w->scale_est = residual_scale(w->J, x, w->pool);
            w->scale_x = x_abs;
        }
        scale = w->scale_est;
        w->factor_valid = 0;
        for (size_t k = 0; k < dim; ++k) w->dx[k] = -w->F[k];
        st = factor_solve_J(w, w->dx);
        w->factor_valid = st == CR_OK;
        w->lu_current = 0;
        w->t_solve += now() - t0;
        if (st != CR_OK) return st;
        /* the trust region: a damped update keeps Newton's direction */
        double alpha = p->limit ? p->limit(p->ctx, x, w->dx) : 1.0;
        if (alpha < 1.0) {
            for (size_t k = 0; k < dim; ++k) w->dx[k] *= alpha;
            w->limited++;
        }
        for (size_t k = 0; k < dim; ++k) x[k] += w->dx[k];
        if (p->correct || p->project) {
            /* dx becomes the total change of this iteration, the Newton update plus the
             * projection and the correction: dx - x_updated + x_corrected. (Measuring the
             * correction alone made the increment vanish whenever the hook leaves x
             * unchanged, e.g. with rigid strain components, and a diverging iteration passed
             * the increment test.) A failed correction leaves x as the update made it. */
            for (size_t k = 0; k < dim; ++k) w->dx[k] -= x[k];
            t0 = now();
            if (p->project) p->project(p->ctx, x);
            if (p->correct) p->correct(p->ctx, param, x);
            w->t_assembly += now() - t0;
            for (size_t k = 0; k < dim; ++k) w->dx[k] += x[k];
        }
        dx_norm = norm2(w->dx, dim);
        x_abs = norm2(x, dim);
        x_norm = p->size ? p->size(p->ctx, x) : x_abs;
        /* a damped update is not small, whatever its size: not converged */
        if (alpha < 1.0) dx_norm = fmax(dx_norm, o->rtol * (x_norm + 1e-12) / sqrt(o->rtol));
        w->lu_current = dx_norm < o->rtol * (x_norm + 1e-12); /* the LU one tiny update away */
        w->iterations++;
    }
}

/* Path tangent dx/dλ = -J⁻¹ ∂F/∂λ at a converged state; ∂F/∂λ by a forward
 * difference in λ, exact up to round-off for loads and prescribed motions that are
 * linear in the load factor (all of them here). */
static cr_status tangent(const cr_nonlinear_problem *p, double param, const double *x, newton_work *w)
{
    size_t dim = (size_t)p->blocks * p->block_size;
    double t0 = now(), dl = w->dl;
    /* The factorization of the last Newton iteration (at this load factor, one update
     * away from x) is a good enough tangent operator for a predictor. */
    cr_status st = CR_OK;
    if (w->factor_valid && p->dparam) {
        /* after a converged step: F(x, λ) is the last residual Newton evaluated (before
         * the projection, which changes it only at round-off), ∂F/∂λ is analytic */
        memcpy(w->F1, w->F, dim * sizeof(double));
        st = p->dparam(p->ctx, param, x, w->F2);
        for (size_t k = 0; st == CR_OK && k < dim; ++k) w->F2[k] = w->F1[k] + dl * w->F2[k];
    } else {
        st = p->eval(p->ctx, param, x, w->F1, w->factor_valid ? NULL : w->J);
        if (st == CR_OK) st = p->eval(p->ctx, param + dl, x, w->F2, NULL);
    }
    w->t_assembly += now() - t0;
    if (st != CR_OK) return st;
    t0 = now();
    if (!w->factor_valid) st = factor_J(w);
    w->factor_valid = st == CR_OK;
    if (st == CR_OK) {
        for (size_t k = 0; k < dim; ++k) w->tangent[k] = -(w->F2[k] - w->F1[k]) / dl;
        solve_J(w, w->tangent);
        for (size_t k = 0; k < dim; ++k)
            if (!isfinite(w->tangent[k])) st = CR_NONFINITE;
    }
    w->t_solve += now() - t0;
    return st;
}

cr_status cr_static_report_append(cr_static_report *r, double load_factor, int iterations, const double *history,
                                  int history_count)
{
    if (r->step_count == r->step_capacity) {
        int cap = r->step_capacity ? 2 * r->step_capacity : 16;
        cr_load_step_report *s = realloc(r->steps, cap * sizeof *s);
        if (!s) return CR_NO_MEMORY;
        r->steps = s;
        r->step_capacity = cap;
    }
    cr_load_step_report *s = &r->steps[r->step_count];
    s->load_factor = load_factor;
    s->iterations = iterations;
    s->history_count = history_count;
    s->residual_history = malloc((history_count ? history_count : 1) * sizeof(double));
    if (!s->residual_history) return CR_NO_MEMORY;
    memcpy(s->residual_history, history, history_count * sizeof(double));
    r->step_count++;
    return CR_OK;
}

static cr_status record_step(cr_static_report *r, double param, const newton_work *w)
{
    return cr_static_report_append(r, param, w->iterations, w->history, w->history_count);
}

cr_status cr_load_stepping_solve(const cr_nonlinear_problem *p, double *param, double *x, const cr_static_options *o,
                                 cr_static_report *r, cr_error *err)
{
    double t_start = now();
    size_t dim = (size_t)p->blocks * p->block_size;
    memset(r, 0, sizeof *r);
    newton_work w = {0};
    w.p = p;
    w.dl = 1e-3;
    double *own = p->work ? NULL : malloc(CR_NEWTON_WORK_VECTORS * dim * sizeof(double));
    double *work = p->work ? p->work : own, *x_saved = NULL;
    if (work) {
        w.F = work, w.dx = work + dim, w.tangent = work + 2 * dim, w.tangent_prev = work + 3 * dim;
        w.F1 = work + 4 * dim, w.F2 = work + 5 * dim, x_saved = work + 6 * dim;
    }
    w.history_capacity = o->max_history > 0 ? o->max_history : 64;
    w.history = malloc(w.history_capacity * sizeof(double));
    if (p->lu_valid) *p->lu_valid = 0;
    w.J = p->J                ? p->J
          : p->banded ? cr_blocktri_create_banded(p->blocks, p->block_size)
                      : cr_blocktri_create(p->blocks, p->block_size);
    if (p->pool && !p->banded && w.J) { /* one chunk per thread; too small a system stays serial */
        w.pool = p->pool;
        w.part = p->part ? p->part : cr_blocktri_part_create(p->blocks, p->block_size, cr_pool_threads(p->pool), NULL);
    }
    cr_status status = CR_OK;
    if (!w.F || !w.dx || !w.tangent || !w.tangent_prev || !w.F1 || !w.F2 || !x_saved || !w.history || !w.J) {
        status = cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
        goto done;
    }
    if (o->load_steps < 1 || o->max_iterations < 1 || !(o->atol > 0) || !(o->rtol > 0) || o->max_halvings < 0) {
        status = cr_error_set(err, CR_BAD_INPUT, "static options: need load_steps >= 1, max_iterations >= 1, "
                                                 "atol > 0, rtol > 0, max_halvings >= 0");
        goto done;
    }
    double nominal = (1.0 - *param) / o->load_steps, h = nominal;
    const double h_max = o->adaptive && o->max_increment > 0 ? fmin(o->max_increment, 1.0) : 1.0;
    int halvings = 0, have_tangent = 0, have_previous = 0, stalls = 0;
    double prev_dl = 1.0;
    while (*param < 1.0 - 1e-14 || r->step_count == 0) {
        double next = *param + h;
        if (next > 1.0 - 1e-12 || nominal <= 0) next = 1.0;
        /* adaptive: no sliver of a last step, take the rest now if it is within h/2 more */
        if (o->adaptive && 1.0 - next < 0.5 * h && (1.0 - *param) <= h_max) next = 1.0;
        memcpy(x_saved, x, dim * sizeof(double));
        if (!have_tangent) have_tangent = tangent(p, *param, x, &w) == CR_OK;
        /* Reference residual of the step: the previous state under the new load,
         * F(x, next) = F(x, λ) + (next - λ) ∂F/∂λ from the tangent's evaluations
         * (exact for loads linear in λ). */
        double err0 = 0;
        if (have_tangent) {
            double s = 0, f = (next - *param) / w.dl;
            for (size_t k = 0; k < dim; ++k) {
                double v = w.F1[k] + f * (w.F2[k] - w.F1[k]);
                s += v * v;
            }
            err0 = sqrt(s / (double)dim);
        } else if (p->eval(p->ctx, next, x, w.F, NULL) == CR_OK) {
            err0 = norm2(w.F, dim) / sqrt((double)dim);
        }
        if (have_tangent) {
            /* predictor along the equilibrium path: Euler, plus the curvature of the path
             * from the change of the tangent since the previous step when there is one */
            double dl = next - *param;
            int second = have_previous;
            for (size_t k = 0; k < dim; ++k)
                w.dx[k] =
                    dl * w.tangent[k] + (second ? 0.5 * dl * dl * (w.tangent[k] - w.tangent_prev[k]) / prev_dl : 0.0);
            /* beyond the trust region the linearization says nothing (a tangent singular in a
             * mode the loads' geometric stiffness will hold, not yet there): start from the
             * last state instead, which `correct` then loads at fixed orientations */
            if (!p->limit || p->limit(p->ctx, x, w.dx) >= 1.0)
                for (size_t k = 0; k < dim; ++k) x[k] += w.dx[k];
            else
                w.skipped_predictors++;
        }
        if (p->project) p->project(p->ctx, x);
        if (p->correct) p->correct(p->ctx, next, x);
        cr_status st = newton(p, next, x, o, err0, &w);
        r->total_iterations += w.iterations;
        if (st == CR_OK && p->project) p->project(p->ctx, x);
        if (st == CR_OK && !all_finite(x, dim)) st = CR_NONFINITE; /* never accept a non-finite state */
        if (st == CR_NO_MEMORY || st == CR_BAD_INPUT) {
            memcpy(x, x_saved, dim * sizeof(double)); /* keep the last converged step */
            status = st;
            goto done;
        }
        stalls = st != CR_OK && w.stalled ? stalls + 1 : 0;
        if (stalls >= STALL_ATTEMPTS) {
            memcpy(x, x_saved, dim * sizeof(double));
            r->failed_attempts++;
            status = cr_error_set(err, CR_NOT_CONVERGED,
                                  "load step %d (load factor %.6g -> %.6g): Newton stalled %d times in a row with the "
                                  "residual within %g eps of the size of its terms (RMS %.3e against %.3e), its "
                                  "round-off floor, and increments of %.2g of |x|, above rtol = %g: the tangent is too "
                                  "ill-conditioned "
                                  "for its linear solves at %zu unknowns (its condition grows with the element count), "
                                  "and halving the load step did not help; use fewer elements; the "
                                  "state at load factor %.6g is kept",
                                  r->step_count + 1, *param, next, stalls, ROUNDOFF_FLOOR_EPS, w.final_err, w.stall_scale,
                                  w.stall_increment, o->rtol, dim, *param);
            goto done;
        }
        if (st != CR_OK) {
            /* the last attempt's residual, where it is largest (before x goes back) */
            char place[320] = "";
            if (halvings + 1 > o->max_halvings && p->describe && st != CR_NONFINITE && all_finite(w.F, dim))
                p->describe(p->ctx, next, x, w.F, place, sizeof place);
            memcpy(x, x_saved, dim * sizeof(double));
            r->failed_attempts++;
            if (++halvings > o->max_halvings) {
                const char *why = st == CR_SINGULAR ? "singular tangent" : st == CR_NONFINITE ? "non-finite residual or state"
                                                                                              : "Newton did not converge";
                char where[64] = "", floor_note[96] = "";
                if (st == CR_SINGULAR) snprintf(where, sizeof where, " at node block %d", w.bad_block);
                if (w.scale_est > 0)
                    snprintf(floor_note, sizeof floor_note, ", its round-off floor about %.1e",
                             ROUNDOFF_FLOOR_EPS * DBL_EPSILON * w.scale_est);
                /* Every increment from this state failed, down to 2^-halvings of the nominal one: the
                 * path does not go on from here at any step size (a limit point, where the load
                 * cannot grow further along the path, or a singular tangent), not a step too long. */
                const int underflow = next - *param < 1e-9 * (nominal > 0 ? nominal : 1.0);
                status = cr_error_set(
                    err, st,
                    "load step %d (load factor %.6g -> %.6g, an increment of %.3g after %d halvings) "
                    "failed: %s%s (last residual %.3e%s)%s%s%s; the state at load factor %.6g is kept",
                    r->step_count + 1, *param, next, next - *param, o->max_halvings, why, where, w.final_err,
                    floor_note, place[0] ? "; " : "", place,
                    underflow ? "; the increments shrank to nothing: the path does not go on from this state (a limit "
                                "point or a singular tangent)"
                              : "",
                    *param);
                goto done;
            }
            h *= 0.5;
            continue;
        }
        if (have_tangent) {
            memcpy(w.tangent_prev, w.tangent, dim * sizeof(double));
            prev_dl = next - *param;
            have_previous = 1;
        }
        *param = next;
        halvings = 0;
        have_tangent = 0;
        if (record_step(r, next, &w) != CR_OK) {
            status = cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
            goto done;
        }
        if (p->on_step && p->on_step(p->ctx, next, x, &r->steps[r->step_count - 1], r->step_count - 1)) {
            status = cr_error_set(err, CR_INTERRUPTED, "stopped after load step %d at load factor %.6g",
                                  r->step_count, next);
            goto done;
        }
        if (o->adaptive) {
            /* Newton's iteration count measures how far the predictor landed from the
             * equilibrium: a step of 3 or fewer iterations could have been twice as long
             * (the predictor's error grows as the square of the increment), one of 8 or
             * more was near the edge of Newton's basin. */
            if (w.iterations <= ADAPT_EASY_ITERATIONS) nominal = fmin(2 * nominal, h_max);
            else if (w.iterations >= ADAPT_HARD_ITERATIONS) nominal *= 0.5;
        }
        h = fmin(2 * h, nominal); /* back towards the nominal increment after a halving */
        if (next >= 1.0) break;
    }
    r->converged = 1;
    /* one the caller can use: of the state returned or one tiny update from it (not after a
     * chord-confirmed step, whose LU is one ~√rtol update away) */
    if (p->lu_valid) *p->lu_valid = w.factor_valid && w.lu_current && (!w.part || w.part == p->part);
done:
    /* final residual of the kept state */
    if (w.F && w.J && status != CR_NO_MEMORY && status != CR_BAD_INPUT) {
        if (p->eval(p->ctx, *param, x, w.F, NULL) == CR_OK) r->final_residual = norm2(w.F, dim) / sqrt((double)dim);
    }
    r->load_factor = *param;
    r->assembly_time_s = w.t_assembly;
    r->solve_time_s = w.t_solve;
    r->wall_time_s = now() - t_start;
    free(own);
    free(w.history);
    if (w.J != p->J) cr_blocktri_destroy(w.J);
    if (w.part != p->part) cr_blocktri_part_destroy(w.part);
    return status;
}
