/* Arc-length continuation of a static stage (docs/theory.md, "Arc-length continuation"):
 * the load factor λ joins the unknowns and a constraint on the length of each step
 * replaces the prescribed load increment, so that the path goes on through limit points
 * (snap-through: λ has a maximum; snap-back: a displacement does), where load stepping
 * stops. Crisfield's spherical constraint (Crisfield 1981, Comput. Struct. 13, 55–62)
 *
 *     ‖Δx‖² / ψ² + Δλ² = Δs²,   Δx = x − x₀, Δλ = λ − λ₀ from the last converged point,
 *
 * with ‖·‖ a weighted norm of the node unknowns (positions over the rod's length,
 * quaternions as they are, multipliers not at all) and ψ the norm of the path tangent
 * dx/dλ at the start, so that λ and the state weigh equally there and Δs is a load-factor
 * increment at the first step. Each corrector iteration solves the bordered system
 *
 *     [ J      ∂F/∂λ ] [δx]   [ −F ]
 *     [ 2Δxᵀ/ψ²  2Δλ ] [δλ] = [ ... ]
 *
 * by the bordering algorithm: one LU of J, two solves (a = −J⁻¹F, b = −J⁻¹ ∂F/∂λ),
 * δx = a + δλ b with δλ a root of the constraint's quadratic: O(n) as load stepping. */
#include "mixed.h"
#include "solvers/newton.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Iterations a step should take: the next arc length is scaled by √(DESIRED / taken)
 * (Crisfield 1981), by at most GROWTH either way, and never above MAX_GROWTH times the
 * first one (resolution of the path near its limit points). */
#define DESIRED_ITERATIONS 5.0
#define GROWTH 2.0
#define MAX_GROWTH 4.0

/* An update below this many eps of |x| is at the round-off of the coordinates. */
#define ROUNDOFF_EPS 1000.0

typedef struct arc_work {
    const cr_nonlinear_problem *p;
    const double *weights; /* block_size of them */
    size_t dim;
    double *F, *q, *a, *b, *x0, *dxp, *tmp;
    cr_blocktri *J;
    cr_blocktri_part *part;
    double psi2inv; /* 1/ψ² */
    int iterations, history_count, history_capacity, bad_block;
    double *history, final_err;
} arc_work;

static double dot_w(const arc_work *w, const double *u, const double *v)
{
    const int B = w->p->block_size;
    double s = 0;
    for (size_t k = 0; k < w->dim; ++k) s += w->weights[k % B] * u[k] * v[k];
    return s;
}

static double rms(const double *v, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; ++k) s += v[k] * v[k];
    return sqrt(s / (double)n);
}

static int finite_all(const double *v, size_t n)
{
    for (size_t k = 0; k < n; ++k)
        if (!isfinite(v[k])) return 0;
    return 1;
}

/* ∂F/∂λ at (λ, x) into w->q: the problem's, else a central difference (prescribed
 * motions: rotations ramp inside a quaternion, not linearly in the residual) */
static cr_status dF_dparam(arc_work *w, double lf, const double *x)
{
    const cr_nonlinear_problem *p = w->p;
    if (p->dparam) return p->dparam(p->ctx, lf, x, w->q);
    const double h = 1e-6 * fmax(1.0, fabs(lf));
    cr_status st = p->eval(p->ctx, lf + h, x, w->q, NULL);
    if (st == CR_OK) st = p->eval(p->ctx, lf - h, x, w->tmp, NULL);
    for (size_t k = 0; st == CR_OK && k < w->dim; ++k) w->q[k] = (w->q[k] - w->tmp[k]) / (2 * h);
    return st;
}

/* F and J at (λ, x), ∂F/∂λ, J factored, a = −J⁻¹F, b = −J⁻¹ ∂F/∂λ */
static cr_status bordered_solves(arc_work *w, double lf, const double *x, double *err_out)
{
    const cr_nonlinear_problem *p = w->p;
    cr_status st = dF_dparam(w, lf, x);
    if (st == CR_OK) st = p->eval(p->ctx, lf, x, w->F, w->J);
    if (st != CR_OK) return st;
    *err_out = rms(w->F, w->dim);
    if (!isfinite(*err_out)) return CR_NONFINITE;
    st = w->part ? cr_blocktri_part_factor(w->part, w->J, p->pool, &w->bad_block)
                 : cr_blocktri_factor(w->J, &w->bad_block);
    if (st != CR_OK) return st;
    for (size_t k = 0; k < w->dim; ++k) w->a[k] = -w->F[k], w->b[k] = -w->q[k];
    if (w->part) {
        cr_blocktri_part_solve(w->part, w->J, p->pool, w->a);
        cr_blocktri_part_solve(w->part, w->J, p->pool, w->b);
    } else {
        cr_blocktri_solve(w->J, w->a);
        cr_blocktri_solve(w->J, w->b);
    }
    return finite_all(w->a, w->dim) && finite_all(w->b, w->dim) ? CR_OK : CR_NONFINITE;
}

/* One arc-length step's corrector from the predicted (*lf, x), the last converged point
 * (w->x0, lf0): on the sphere of radius ds, or at fixed λ when fixed is set (landing on
 * the end of the path). err_ref: the residual the step's load increment puts on the
 * last state, which the relative tolerance is measured against. */
static cr_status corrector(arc_work *w, double lf0, double *lf, double *x, double ds, int fixed, double err_ref,
                           const cr_static_options *o)
{
    const cr_nonlinear_problem *p = w->p;
    const size_t dim = w->dim;
    double dx_norm = INFINITY, dl = INFINITY;
    w->iterations = 0;
    w->history_count = 0;
    for (int it = 0;; ++it) {
        double err;
        cr_status st = bordered_solves(w, *lf, x, &err);
        if (st != CR_OK) return st;
        if (w->history_count < w->history_capacity) w->history[w->history_count++] = err;
        w->final_err = err;
        if (it == 0) err_ref = fmax(err_ref, err);
        const double xs = p->size ? p->size(p->ctx, x) : sqrt(dot_w(w, x, x));
        /* converged: a small residual after a small update of both x and λ (an update at
         * the round-off of the coordinates counts as small) */
        const int small_update = it > 0 && dx_norm < o->rtol * (xs + 1e-12) && fabs(dl) < o->rtol * (fabs(*lf) + ds);
        if (small_update && (err < o->atol || err < o->rtol * err_ref)) return CR_OK;
        /* the round-off floor: a full update that no longer moves x or λ beyond the
         * rounding of their own digits leaves the residual where it is (noise of the terms
         * summed into each row, EA |r|/L for a stiff rod far from the origin), and more
         * iterations cannot lower it; accepted when no larger than the step's reference */
        double x_abs = 0;
        for (size_t k = 0; k < dim; ++k) x_abs += x[k] * x[k];
        if (it > 0 && dx_norm < ROUNDOFF_EPS * DBL_EPSILON * sqrt(x_abs) &&
            fabs(dl) < ROUNDOFF_EPS * DBL_EPSILON * (fabs(*lf) + ds) && err <= err_ref)
            return CR_OK;
        if (it >= o->max_iterations) return CR_NOT_CONVERGED;
        if (it > 0 && err > 1e8 * (err_ref + o->atol)) return CR_NOT_CONVERGED;
        double d_lf = 0;
        if (!fixed) {
            /* ‖Δx + a + δλ b‖²/ψ² + (Δλ + δλ)² = ds²: A δλ² + B δλ + C = 0 */
            for (size_t k = 0; k < dim; ++k) w->tmp[k] = x[k] - w->x0[k] + w->a[k];
            const double Dl = *lf - lf0, s = w->psi2inv;
            const double A = s * dot_w(w, w->b, w->b) + 1.0, B = 2.0 * (s * dot_w(w, w->tmp, w->b) + Dl),
                         C = s * dot_w(w, w->tmp, w->tmp) + Dl * Dl - ds * ds;
            const double disc = B * B - 4 * A * C;
            if (disc >= 0) {
                /* of the two roots, the one whose increment turns least from the current one
                 * (Crisfield): the other goes back along the path */
                const double r = sqrt(disc), q = -0.5 * (B + (B >= 0 ? r : -r));
                const double r1 = q / A, r2 = q != 0 ? C / q : r1;
                double best = -INFINITY;
                for (int k = 0; k < 2; ++k) {
                    const double root = k ? r2 : r1;
                    /* (Δx + a + root b)·Δx/ψ² + (Δλ + root) Δλ, Δx = x − x0 */
                    double c = 0;
                    const int B_ = p->block_size;
                    for (size_t i = 0; i < dim; ++i) {
                        double d = x[i] - w->x0[i];
                        c += w->weights[i % B_] * (w->tmp[i] + root * w->b[i]) * d;
                    }
                    c = c * s + (Dl + root) * Dl;
                    if (c > best) best = c, d_lf = root;
                }
            } else {
                d_lf = -B / (2 * A); /* no intersection: the line's point closest to the sphere */
            }
        }
        for (size_t k = 0; k < dim; ++k) w->a[k] += d_lf * w->b[k];
        const double alpha = p->limit ? p->limit(p->ctx, x, w->a) : 1.0;
        if (!(alpha > 0)) return CR_NONFINITE;
        for (size_t k = 0; k < dim; ++k) w->tmp[k] = x[k], x[k] += alpha * w->a[k];
        *lf += alpha * d_lf;
        if (p->project) p->project(p->ctx, x);
        if (p->correct) p->correct(p->ctx, *lf, x);
        double s2 = 0;
        for (size_t k = 0; k < dim; ++k) s2 += (x[k] - w->tmp[k]) * (x[k] - w->tmp[k]);
        dx_norm = alpha < 1.0 ? INFINITY : sqrt(s2); /* a damped update is not small */
        dl = alpha * d_lf;
        w->iterations++;
    }
}

static cr_status record(cr_static_report *r, double lf, const arc_work *w)
{
    return cr_static_report_append(r, lf, w->iterations, w->history, w->history_count);
}

cr_status cr_arc_length_solve(const struct cr_nonlinear_problem *p, const double *weights, double max_dparam,
                              double *param, double *x, const cr_static_options *o, cr_static_report *r, cr_error *err)
{
    memset(r, 0, sizeof *r);
    if (o->arc_steps < 1 || !(o->arc_initial > 0) || !(o->arc_max_load_factor > *param) || o->max_iterations < 1 ||
        !(o->atol > 0) || !(o->rtol > 0) || o->max_halvings < 0)
        return cr_error_set(err, CR_BAD_INPUT,
                            "arc_length: need steps >= 1, initial > 0, max_load_factor > %g, "
                            "max_iterations >= 1, atol > 0, rtol > 0, max_halvings >= 0",
                            *param);
    arc_work w = {.p = p, .weights = weights, .dim = (size_t)p->blocks * p->block_size};
    const size_t dim = w.dim;
    double *mem = malloc(8 * dim * sizeof(double));
    w.history_capacity = o->max_history > 0 ? o->max_history : 64;
    w.history = malloc(w.history_capacity * sizeof(double));
    w.J = p->J        ? p->J
          : p->banded ? cr_blocktri_create_banded(p->blocks, p->block_size)
                      : cr_blocktri_create(p->blocks, p->block_size);
    if (p->pool && !p->banded && w.J) w.part = p->part;
    cr_status status = CR_OK;
    if (!mem || !w.history || !w.J) {
        status = cr_error_set(err, CR_NO_MEMORY, "out of memory in the arc-length solver");
        goto done;
    }
    w.F = mem, w.q = mem + dim, w.a = mem + 2 * dim, w.b = mem + 3 * dim, w.x0 = mem + 4 * dim;
    w.dxp = mem + 5 * dim, w.tmp = mem + 6 * dim;
    double *x_try = mem + 7 * dim;
    const double lf_end = o->arc_max_load_factor;
    double ds = o->arc_initial, dlp = 0; /* the previous step's Δλ (its Δx in w.dxp) */
    const double ds_max = MAX_GROWTH * o->arc_initial;
    int have_previous = 0, halvings = 0, done_path = 0, have_tangent = 0;
    w.psi2inv = 0;
    while (!done_path && r->step_count < o->arc_steps) {
        const double lf0 = *param;
        memcpy(w.x0, x, dim * sizeof *x);
        /* the path tangent at the last point: t = b = dx/dλ */
        double err0;
        cr_status st = have_tangent ? CR_OK : bordered_solves(&w, lf0, x, &err0);
        have_tangent = 0;
        if (st == CR_OK && w.psi2inv == 0) { /* ψ: the first tangent's norm */
            const double t2 = dot_w(&w, w.b, w.b);
            w.psi2inv = t2 > 0 && isfinite(t2) ? 1.0 / t2 : 1.0;
        }
        double dl = 0;
        if (st == CR_OK) {
            /* predictor: along the tangent, the way the previous step went (its increment's
             * projection on the tangent), so that the path passes limit points, where λ
             * turns back, instead of retracing itself */
            dl = ds / sqrt(w.psi2inv * dot_w(&w, w.b, w.b) + 1.0);
            if (have_previous && w.psi2inv * dot_w(&w, w.b, w.dxp) + dlp < 0) dl = -dl;
            double ds_step = ds; /* a turning support's steps stay below max_dparam */
            if (max_dparam > 0 && fabs(dl) > max_dparam)
                ds_step *= max_dparam / fabs(dl), dl = copysign(max_dparam, dl);
            for (size_t k = 0; k < dim; ++k) w.tmp[k] = dl * w.b[k], x[k] = w.x0[k] + w.tmp[k];
            double lf = lf0 + dl;
            /* beyond a mechanism's trust region the linearization says nothing (statics.c) */
            if (p->limit && p->limit(p->ctx, w.x0, w.tmp) < 1.0) memcpy(x, w.x0, dim * sizeof *x);
            if (p->project) p->project(p->ctx, x);
            if (p->correct) p->correct(p->ctx, lf, x);
            /* the residual the load increment puts on the last state: |dl ∂F/∂λ| */
            const double err_ref = fabs(dl) * rms(w.q, dim);
            st = corrector(&w, lf0, &lf, x, ds_step, 0, err_ref, o);
            r->total_iterations += w.iterations;
            if (st == CR_OK && !finite_all(x, dim)) st = CR_NONFINITE;
            if (st == CR_OK && have_previous) {
                /* The sphere meets the path behind as well as ahead: where the path turns
                 * sharply within a step, the corrector can land on the point it came from
                 * and the path would be retraced (the deep arch on 160 elements did, at a
                 * sharp bend past its limit point). A step that turns back from the
                 * previous one, by more than a right angle, is retried shorter. */
                for (size_t k = 0; k < dim; ++k) w.tmp[k] = x[k] - w.x0[k];
                if (w.psi2inv * dot_w(&w, w.tmp, w.dxp) + (lf - lf0) * dlp <= 0) st = CR_NOT_CONVERGED;
            }
            if (st == CR_OK && lf >= lf_end && lf0 < lf_end) {
                /* crossed the end of the path: land on it, at fixed λ from the point between */
                const double f = (lf_end - lf0) / (lf - lf0);
                for (size_t k = 0; k < dim; ++k) x_try[k] = w.x0[k] + f * (x[k] - w.x0[k]);
                double lfe = lf_end;
                if (p->project) p->project(p->ctx, x_try);
                st = corrector(&w, lf0, &lfe, x_try, ds_step, 1, fabs(lf_end - lf0) * rms(w.q, dim), o);
                r->total_iterations += w.iterations;
                if (st == CR_OK) memcpy(x, x_try, dim * sizeof *x), lf = lf_end, done_path = 1;
            }
            if (st == CR_OK) {
                for (size_t k = 0; k < dim; ++k) w.dxp[k] = x[k] - w.x0[k];
                dlp = lf - lf0;
                have_previous = 1;
                have_tangent = 1; /* the corrector's last solves were at the converged state */
                *param = lf;
                halvings = 0;
                if (record(r, lf, &w) != CR_OK) {
                    status = cr_error_set(err, CR_NO_MEMORY, "out of memory in the arc-length solver");
                    goto done;
                }
                if (p->on_step && p->on_step(p->ctx, lf, x, &r->steps[r->step_count - 1], r->step_count - 1)) {
                    status = cr_error_set(err, CR_INTERRUPTED, "stopped after arc-length step %d at load factor %.6g",
                                          r->step_count, lf);
                    goto done;
                }
                const double grow = sqrt(DESIRED_ITERATIONS / fmax(w.iterations, 1));
                ds = fmin(ds * fmin(fmax(grow, 1.0 / GROWTH), GROWTH), ds_max);
                continue;
            }
        }
        if (st == CR_NO_MEMORY || st == CR_BAD_INPUT) {
            memcpy(x, w.x0, dim * sizeof *x);
            status = cr_error_set(err, st, "arc-length step %d: %s", r->step_count + 1, cr_status_string(st));
            goto done;
        }
        memcpy(x, w.x0, dim * sizeof *x);
        r->failed_attempts++;
        if (++halvings > o->max_halvings) {
            status = cr_error_set(err,
                                  st == CR_SINGULAR    ? CR_SINGULAR
                                  : st == CR_NONFINITE ? CR_NONFINITE
                                                       : CR_NOT_CONVERGED,
                                  "arc-length step %d from load factor %.6g failed after %d halvings of its arc "
                                  "length (to %.3g): %s (last residual %.3e); the state at load factor %.6g is kept",
                                  r->step_count + 1, lf0, o->max_halvings, ds,
                                  st == CR_SINGULAR    ? "singular tangent"
                                  : st == CR_NONFINITE ? "non-finite residual or state"
                                                       : "Newton did not converge",
                                  w.final_err, lf0);
            goto done;
        }
        ds *= 0.5;
    }
    r->converged = 1;
done:
    if (mem && w.J && status != CR_NO_MEMORY && p->eval(p->ctx, *param, x, w.F, NULL) == CR_OK)
        r->final_residual = rms(w.F, dim);
    r->load_factor = *param;
    if (p->lu_valid) *p->lu_valid = 0;
    free(mem);
    free(w.history);
    if (w.J != p->J) cr_blocktri_destroy(w.J);
    return status;
}
