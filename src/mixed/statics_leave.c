/* Leaving an unstable equilibrium at the end of a static stage (docs/theory.md, "Leaving an
 * unstable equilibrium"; issue 9's estimate finds it, this finds where a real rod goes).
 *
 * A load path that nothing pushed off its symmetric branch (a perfect column above its
 * buckling load, a shaft twisted beyond Greenhill's critical twist) converges on an
 * equilibrium with a mode of negative stiffness, ω² < 0. Newton from a state pushed along
 * that mode converges back to it (it is a root like any other), so the push is followed by
 * pseudo-transient continuation (Kelley & Keyes, SIAM J. Numer. Anal. 35 (1998) 508-523):
 * implicit Euler steps of the gradient-like flow D ẋ = F(x),
 *
 *     F(x_{k+1}) − D (x_{k+1} − x_k)/Δτ_k = 0   (Newton, Jacobian J − D/Δτ_k),
 *
 * D the lumped masses of the stability estimate (so its ω² are the flow's rates: the
 * unstable mode grows as 1/(1 + Δτ ω²) per step, which stays above 1 for Δτ < 1/|ω²|),
 * Δτ by switched evolution relaxation (Δτ_{k+1} = Δτ_k |F_{k−1}|/|F_k|, bounded below by
 * the start value Δτ₀ = ½/|ω²|: the mode doubles per step while the state is near the
 * equilibrium left, where |F| grows and SER alone would stall the departure). As the flow
 * settles, |F| falls, Δτ grows, and the step becomes Newton's: the iteration converges to
 * an equilibrium the flow is attracted to, i.e. a stable one for a conservative rod. D/Δτ
 * adds only to the diagonal blocks of the block-tridiagonal tangent. The state reached is
 * converged by the stage's own Newton solve (the same tests as a load step) and estimated
 * again; a state still unstable is pushed along its own mode. Only a real unstable mode (a
 * divergence) is left (statics.c decides): flutter and complex unstable modes under follower
 * loads grow while oscillating, the first-order flow is attracted back to such a state or
 * leaves it by 0.3 % a step, and no static state is what a real rod reaches then (it
 * oscillates): those are kept with the warning. */
#include "contact/rodcontact.h"
#include "linalg/lowrank.h"
#include "mixed.h"
#include "supports.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The push: largest node displacement, in rod lengths (rotation in rad for a rotational
 * mode). Small enough to be in the linear regime of the mode, large enough that the flow
 * leaves in a few steps (the mode doubles per step: 0.2 L of a buckled column in ~5). */
#define LEAVE_PUSH 1e-2
/* Pushes per stage: the first, and two more from states that came out unstable again
 * (or, when the first fell back to the equilibrium left, the opposite push). */
#define LEAVE_ATTEMPTS 3
/* Pseudo-time steps per push: a column settles in ~30, Greenhill's snap in ~100. */
#define LEAVE_STEPS 2000
/* The flow hands over to Newton once its residual is this far below its largest value
 * (deep in the basin of the equilibrium it approaches; the flow cannot come back to the
 * equilibrium it left, whose energy is higher), or 1e-3 of it with the last step moving no
 * node by more than LEAVE_STILL rod lengths (the residual may be at the round-off floor of a
 * stiff rod, 6e-8 N for the column with EA = 1e8 N; a buckled column still turning slowly
 * about its chord towards an imperfection has a small residual but is not there yet) */
#define LEAVE_SETTLED 1e-6
#define LEAVE_STILL 1e-6
/* Largest change per pseudo-time step: a node's rotation (rad) and displacement (rod
 * lengths); the linearization says little beyond (as MAX_ROTATION_PER_UPDATE, statics.c) */
#define LEAVE_MAX_ROTATION 0.25
#define LEAVE_MAX_DISPLACEMENT 0.05
/* Newton iterations of one implicit pseudo-time step, and its tolerance relative to the
 * residual at the step's start (the flow needs no more accuracy than that) */
#define LEAVE_INNER 8
#define LEAVE_INNER_TOL 1e-3
/* The escape: Δτ stays Δτ₀ until a node is this many pushes from the equilibrium left */
#define LEAVE_ESCAPE 5.0
/* SER ratio per step, bounded */
#define LEAVE_GROWTH 4.0

/* The flow's diagonal metric D (6 per node): the stability estimate's lumped masses (eq. 1
 * and the welded bodies; ρA = 1 kg/m for a rod without mass), zero on nodes a support holds
 * (their free directions are then quasi-static, held by the stiffness of their elements: the
 * support rows need no mapping of D) and on the rotations of the twist gauge's node (its
 * gauge row replaces a moment row). Without mass the estimate condenses the rotations; here
 * they get the inertia of the node's length of rod about its transverse axes, m L_i²/12, so
 * that a mode that turns the nodes without moving them is not solved quasi-statically
 * (Newton would take it straight back); a larger D only slows the unstable mode (Δτ₀ ω² stays
 * below ½). */
static void pseudo_mass(const cr_model *m, const cr_supports_at *at, double *D)
{
    double total = 0;
    for (int i = 0; i < m->nodes; ++i) total += m->node_mass[i];
    const int unit = !(total > 0);
    for (int i = 0; i < m->nodes; ++i) {
        double *o = D + (size_t)i * 6, mi = unit ? m->lumped_length[i] : m->node_mass[i];
        double li = m->lumped_length[i], ir = mi * li * li / 12.0;
        o[0] = o[1] = o[2] = mi;
        o[3] = unit ? ir : m->node_inertia[i].x, o[4] = unit ? ir : m->node_inertia[i].y;
        o[5] = unit ? ir : m->node_inertia[i].z;
    }
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        double *o = D + (size_t)b->node * 6;
        for (int a = 0; a < 3; ++a) o[a] += b->mass, o[3 + a] += b->inertia.m[a][a];
    }
    for (int i = 0; i < m->nodes; ++i)
        if (cr_model_support_at(m, at->stage, i) >= 0) memset(D + (size_t)i * 6, 0, 6 * sizeof *D);
    if (at->gauge) memset(D + (size_t)at->gauge_node * 6 + 3, 0, 3 * sizeof *D);
}

/* x += α ξ: positions along δr, orientations turned by α δθ in the node basis */
static void push(const cr_model *m, double *x, const double *xi, double alpha)
{
    for (int i = 0; i < m->nodes; ++i) {
        double *xi_ = x + (size_t)i * m->block;
        const double *d = xi + (size_t)i * 6;
        for (int k = 0; k < 3; ++k) xi_[k] += alpha * d[k];
        cr_vec3 th = cr_v3_scale(cr_v3(d[3], d[4], d[5]), alpha);
        double a = cr_v3_norm(th);
        if (!(a > 0)) continue;
        cr_quat q = cr_q_axis_angle(cr_v3_scale(th, 1.0 / a), a);
        cr_q_store(cr_q_normalize(cr_q_mul(cr_q_normalize(cr_q_load(xi_ + 3)), q)), xi_ + 3);
    }
}

static double rms(const double *v, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; ++k) s += v[k] * v[k];
    return sqrt(s / (double)n);
}

/* The largest α in (0, 1] that keeps the update dx at x within the step bounds */
static double step_limit(const cr_model *m, const double *x, const double *dx)
{
    const double L = m->length > 0 ? m->length : 1.0;
    /* self-contact is seen only at the steps' ends (a penalty, no sweep): a step moving a node
     * by more than half a contact radius could carry one strand through another (a loop
     * snapping shut at 1.01 times Greenhill's twist passed through itself and ended straight,
     * its linking number two turns lower) */
    double disp_max = LEAVE_MAX_DISPLACEMENT;
    if (m->selfcontact)
        for (int i = 0; i < m->nodes; ++i) disp_max = fmin(disp_max, 0.5 * m->selfcontact->radius[i] / L);
    double rot = 0, disp = 0;
    for (int i = 0; i < m->nodes; ++i) {
        const double *p = x + (size_t)i * m->block + 3, *d = dx + (size_t)i * m->block;
        double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
        double pd = p[0] * d[3] + p[1] * d[4] + p[2] * d[5] + p[3] * d[6], nn = 0;
        for (int k = 0; k < 4; ++k) {
            double t = d[3 + k] - pd / pp * p[k];
            nn += t * t;
        }
        rot = fmax(rot, 2.0 * sqrt(nn / pp));
        disp = fmax(disp, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / L);
    }
    if (!isfinite(rot) || !isfinite(disp)) return 0.0;
    return fmin(
        1.0, fmin(rot > LEAVE_MAX_ROTATION ? LEAVE_MAX_ROTATION / rot : 1.0, disp > disp_max ? disp_max / disp : 1.0));
}

/* One relaxation from x (pushed): pseudo-transient continuation until the residual has
 * fallen LEAVE_SETTLED below its largest value. CR_OK, or why not in `why`. */
/* Scratch of the relaxation */
typedef struct relax_work {
    double *F, *dx, *x_prev; /* nodes × block */
    double *Fr;              /* nodes × 3 */
    cr_blocktri *Jr;         /* the force rows' position Jacobian (NULL with rigid components) */
} relax_work;

/* The linearized step moves the positions along the tangents of the rotation, which
 * stretches each element by O(Δθ²): with EA L²/EI ~ 10⁸ (the column) the next residual is
 * 10⁴ N and the flow oscillates between that and the removal of it (correct_positions,
 * statics.c, for the same artefact in Newton's updates). So, as there, the positions are
 * re-solved at the new orientations from the force rows of the pseudo-time step itself,
 * F_r(x) − D_r (r − r_k)/Δτ = 0 (linear in r at fixed orientations, tendons aside). */
cr_status cr_mixed_pseudotime_correct(const cr_model *m, const cr_supports_at *at, const double *scale, const double *D,
                                      double dtau, const double *x_prev, double *x, double *Fr, cr_blocktri *Jr)
{
    /* self-contact: the force rows have no contact forces, and the correction would move the
     * positions back through the contact (statics.c's Newton goes without it for that too) */
    if (!Jr || m->selfcontact) return CR_OK;
    const int B = m->block;
    cr_status st = cr_mixed_force_residual(m, at, scale, x, Fr, Jr);
    if (st != CR_OK) return st;
    for (int i = 0; i < m->nodes; ++i) {
        double *Ji = cr_blocktri_D(Jr, i);
        for (int a = 0; a < 3; ++a) {
            const double d = D[(size_t)i * 6 + a] / dtau;
            Fr[(size_t)i * 3 + a] -= d * (x[(size_t)i * B + a] - x_prev[(size_t)i * B + a]);
            Ji[a * 3 + a] -= d;
        }
    }
    st = cr_blocktri_factor_solve(Jr, Fr, NULL);
    if (st != CR_OK) return st;
    for (int i = 0; i < m->nodes; ++i)
        for (int a = 0; a < 3; ++a) x[(size_t)i * B + a] -= Fr[(size_t)i * 3 + a];
    return CR_OK;
}

/* Largest node displacement between two states (m) */
static double distance(const cr_model *m, const double *a, const double *b)
{
    double d = 0;
    for (int i = 0; i < m->nodes; ++i) {
        const double *u = a + (size_t)i * m->block, *v = b + (size_t)i * m->block;
        d = fmax(d,
                 sqrt((u[0] - v[0]) * (u[0] - v[0]) + (u[1] - v[1]) * (u[1] - v[1]) + (u[2] - v[2]) * (u[2] - v[2])));
    }
    return d;
}

/* G(x) = F(x) − D (x − x_k)/Δτ into G, its Jacobian into J (when non-NULL) from p's eval:
 * translations on the force rows; on the moment rows (in the node basis) D δθ/Δτ with
 * δθ = dExp(p_k)(p − p_k), linear in p (D is only the flow's metric: any smooth measure of
 * the turn will do, and this one has a constant Jacobian) */
static cr_status g_eval(const cr_model *m, const cr_nonlinear_problem *p, const double *D, double dtau,
                        const double *xk, const double *x, double *G, cr_blocktri *J)
{
    cr_status st = p->eval(p->ctx, 1.0, x, G, J);
    if (st != CR_OK) return st;
    const int B = m->block;
    for (int i = 0; i < m->nodes; ++i) {
        const double *d = D + (size_t)i * 6, *xi = x + (size_t)i * B, *ki = xk + (size_t)i * B;
        double *g = G + (size_t)i * B, *Ji = J ? cr_blocktri_D(J, i) : NULL;
        for (int a = 0; a < 3; ++a) {
            g[a] -= d[a] / dtau * (xi[a] - ki[a]);
            if (Ji) Ji[a * B + a] -= d[a] / dtau;
        }
        if (d[3] == 0 && d[4] == 0 && d[5] == 0) continue;
        double de[3][4];
        cr_q_dexp_matrix(cr_q_load(ki + 3), de);
        for (int a = 0; a < 3; ++a) {
            double th = 0;
            for (int c = 0; c < 4; ++c) th += de[a][c] * (xi[3 + c] - ki[3 + c]);
            g[3 + a] -= d[3 + a] / dtau * th;
            if (Ji)
                for (int c = 0; c < 4; ++c) Ji[(3 + a) * B + 3 + c] -= d[3 + a] / dtau * de[a][c];
        }
    }
    return CR_OK;
}

/* A⁻¹ v with p->J factored (the low-rank correction's solve) */
static void solve_J(void *J, double *v) { cr_blocktri_solve(J, v); }

/* One implicit Euler step of D ẋ = F(x) from x_k (x on entry, F and J of x_k's in w->F and
 * p->J): Newton on G(x) = 0, each update followed by the position correction, until |G| is
 * LEAVE_INNER_TOL of |F(x_k)| or the update is at round-off. CR_OK with x the step's end;
 * otherwise x is x_k again. */
static cr_status pseudo_step(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at,
                             const double *scale, const double *D, double dtau, double r_k, double *x, relax_work *w)
{
    const size_t dim = (size_t)m->nodes * m->block;
    const double L = m->length > 0 ? m->length : 1.0;
    double *xk = w->x_prev, *G = w->F, *dx = w->dx;
    memcpy(xk, x, dim * sizeof *x);
    cr_status st = g_eval(m, p, D, dtau, xk, x, G, p->J); /* G = F(x_k), J − D/Δτ */
    for (int it = 0; st == CR_OK && it < LEAVE_INNER; ++it) {
        for (size_t j = 0; j < dim; ++j) dx[j] = -G[j];
        st = cr_blocktri_factor_solve(p->J, dx, NULL);
        /* self-contact couples far nodes: its low-rank term on top of the block-tridiagonal
         * solve (Woodbury, as Newton's); without it each step undoes the contact, and the loop
         * a twisted shaft snaps into presses through itself until the steps fail */
        cr_lowrank *lr = p->coupling ? p->coupling(p->ctx) : NULL;
        if (st == CR_OK && lr && lr->m > 0) st = cr_lowrank_correct(lr, solve_J, p->J, dx);
        if (st != CR_OK) break;
        const double alpha = step_limit(m, x, dx);
        if (!(alpha > 0)) {
            st = CR_NONFINITE;
            break;
        }
        double big = 0;
        for (size_t j = 0; j < dim; ++j) x[j] += alpha * dx[j], big = fmax(big, fabs(alpha * dx[j]));
        if (p->project) p->project(p->ctx, x);
        if ((st = cr_mixed_pseudotime_correct(m, at, scale, D, dtau, xk, x, w->Fr, w->Jr)) != CR_OK) break;
        if ((st = g_eval(m, p, D, dtau, xk, x, G, p->J)) != CR_OK) break;
        const double g = rms(G, dim);
        if (!isfinite(g)) {
            st = CR_NONFINITE;
            break;
        }
        if (alpha == 1.0 && (g <= LEAVE_INNER_TOL * r_k || big < 1e3 * DBL_EPSILON * L)) return CR_OK;
    }
    memcpy(x, xk, dim * sizeof *x);
    return st == CR_OK ? CR_NOT_CONVERGED : st;
}

/* One relaxation from x (pushed): pseudo-transient continuation until the residual has
 * settled (LEAVE_SETTLED). CR_OK, or why not in `why`. */
static cr_status relax(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at, const double *scale,
                       const double *D, double dtau0, const double *x_left, double r_accept, double *peak, double *x,
                       relax_work *w, int *steps, char *why, size_t size)
{
    const size_t dim = (size_t)m->nodes * m->block;
    const double L = m->length > 0 ? m->length : 1.0;
    /* *peak > 0: a strict second run from a settled state, Newton having stalled there: only
     * the residual tests, against the first run's largest residual */
    const int strict = *peak > 0;
    double dtau = dtau0, floor_ = dtau0, r_prev = -1, r_peak = *peak, r = 0, moved = INFINITY;
    int escaped = strict, stagnant = 0, cycling = 0;
    for (int k = 0; k < LEAVE_STEPS; ++k) {
        cr_status st = p->eval(p->ctx, 1.0, x, w->F, NULL);
        r = st == CR_OK ? rms(w->F, dim) : NAN;
        if (!isfinite(r)) {
            snprintf(why, size, "the relaxation's residual became non-finite in pseudo-time step %d", k + 1);
            return st == CR_OK ? CR_NONFINITE : st;
        }
        /* the pushed state's residual is no measure: the push along the linearized mode
         * stretches the elements to second order (EA θ²/2), which the first step removes */
        if (k > 0) r_peak = fmax(r_peak, r);
        /* strict: a residual that no longer halves, 10⁻⁴ of the largest, is at its round-off
         * floor (the perfect column at 80 elements: 1.8e-7 N against 3.3e-3 N) */
        stagnant = strict && r_prev > 0 && r > 0.5 * r_prev && r <= 1e-4 * r_peak ? stagnant + 1 : 0;
        /* self-contact: the flow may cycle between two states a few 1e-4 of the rod apart at a
         * fixed residual, as a contact's closest points cross a node (the segments' distance
         * has a kink there); once it has fallen 1e-3 below its largest and stopped falling,
         * Newton (on the contact's penalty) finishes */
        cycling = m->selfcontact && !strict && r_prev > 0 && r > 0.99 * r_prev && r <= 1e-3 * r_peak ? cycling + 1 : 0;
        if (k > 1 && (r <= LEAVE_SETTLED * r_peak || (!strict && r <= 1e-3 * r_peak && moved < LEAVE_STILL * L) ||
                      (r <= r_accept && moved < LEAVE_STILL * L) || stagnant >= 10 || cycling >= 20)) {
            *peak = r_peak;
            return CR_OK;
        }
        /* switched evolution relaxation, never below the start value; and not at all until
         * the state is LEAVE_ESCAPE pushes away from the equilibrium left: the residual first
         * falls as the first steps remove the push's second-order stretch (with rigid shear,
         * where no position correction takes it out, from 3e3 to 7e-4 N in two steps), and
         * SER would grow Δτ to where the step is Newton's, back to that equilibrium */
        escaped = escaped || distance(m, x, x_left) > LEAVE_ESCAPE * LEAVE_PUSH * L;
        if (r_prev > 0 && escaped) dtau = fmax(floor_, dtau * fmin(LEAVE_GROWTH, fmax(1.0 / LEAVE_GROWTH, r_prev / r)));
        r_prev = r;
        while ((st = pseudo_step(m, p, at, scale, D, dtau, r, x, w)) != CR_OK) {
            if (st == CR_NO_MEMORY || dtau < 1e-6 * dtau0) {
                snprintf(why, size,
                         "pseudo-time step %d failed at every step size down to %.3g s (residual %.3g, largest %.3g)",
                         k + 1, dtau, r, r_peak);
                return st;
            }
            dtau *= 0.25, floor_ = fmin(floor_, dtau);
        }
        moved = distance(m, x, w->x_prev);
        ++*steps;
    }
    snprintf(why, size, "the relaxation did not settle in %d pseudo-time steps (residual %.3g, largest %.3g)",
             LEAVE_STEPS, r, r_peak);
    return CR_NOT_CONVERGED;
}

cr_status cr_mixed_static_leave(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at,
                                const double *scale, const cr_static_options *o, const cr_static_tangent *tangent,
                                double *x, double *mode, cr_stability_report *report, cr_error *err)
{
    const size_t dim = (size_t)m->nodes * m->block, n6 = (size_t)m->nodes * 6;
    const double L = m->length > 0 ? m->length : 1.0;
    double *x0 = malloc(dim * sizeof *x0), *F = malloc(dim * sizeof *F), *dx = malloc(dim * sizeof *dx);
    double *x_prev = malloc(dim * sizeof *x_prev), *D = malloc(n6 * sizeof *D), *mode0 = malloc(n6 * sizeof *mode0);
    double *x_relaxed = malloc(dim * sizeof *x_relaxed);
    relax_work w = {.F = F,
                    .dx = dx,
                    .x_prev = malloc(dim * sizeof(double)),
                    .Fr = malloc((size_t)m->nodes * 3 * sizeof(double)),
                    .Jr = m->rigid_count > 0 ? NULL : cr_blocktri_create(m->nodes, 3)};
    cr_status st = CR_OK;
    if (!x0 || !F || !dx || !x_prev || !D || !mode0 || !x_relaxed || !w.x_prev || !w.Fr ||
        (m->rigid_count == 0 && !w.Jr)) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory leaving an unstable equilibrium");
        goto done;
    }
    memcpy(x0, x, dim * sizeof *x);
    pseudo_mass(m, at, D);
    /* the residual the load steps accepted the equilibrium left with */
    st = p->eval(p->ctx, 1.0, x, F, NULL);
    const double r_accept = st == CR_OK ? rms(F, dim) : 0.0;
    st = CR_OK;
    /* Newton's finish: one load step at load factor 1 (nothing reported per step) */
    cr_nonlinear_problem q = *p;
    q.on_step = NULL, q.lu_valid = NULL;
    q.correct = NULL; /* the position correction's matrices are gone (statics.c) and not needed this close */
    cr_static_options qo = *o;
    qo.load_steps = 1, qo.adaptive = 0, qo.max_halvings = 0;
    const cr_stability_report first = *report;
    cr_stability_report now = first;
    int steps = 0, iterations = 0, attempt = 0;
    double sign = 1.0;
    char why[400] = "";
    for (attempt = 1; attempt <= LEAVE_ATTEMPTS; ++attempt) {
        const double w2 = now.omega2[0], dtau0 = 0.5 / fabs(w2);
        memcpy(x_prev, x, dim * sizeof *x); /* the equilibrium this push leaves, and its mode */
        memcpy(mode0, mode, n6 * sizeof *mode);
        push(m, x, mode, sign * LEAVE_PUSH * L);
        if (p->project) p->project(p->ctx, x);
        char rwhy[300] = "";
        double peak = 0;
        st = relax(m, p, at, scale, D, dtau0, x_prev, r_accept, &peak, x, &w, &steps, rwhy, sizeof rwhy);
        if (st != CR_OK) {
            snprintf(why, sizeof why, "%s", rwhy);
            break;
        }
        double one = 1.0;
        cr_static_report qr = {0};
        cr_error qerr = {0};
        memcpy(x_relaxed, x, dim * sizeof *x);
        st = cr_load_stepping_solve(&q, &one, x, &qo, &qr, &qerr);
        iterations += qr.total_iterations;
        cr_static_report_free(&qr);
        /* Newton may stall where the flow has settled: a buckled circular column is neutral
         * in its turn about the chord, and the increments along that near-null mode need not
         * shrink below rtol |x| while the residual is at its floor (the perfect column at 80
         * elements). The flow, whose D/Δτ holds that mode, then goes on from the relaxed state
         * until its residual is LEAVE_SETTLED of its largest or no larger than that of the
         * equilibrium left, which the stage's load steps accepted */
        if (st != CR_OK) {
            memcpy(x, x_relaxed, dim * sizeof *x);
            st = relax(m, p, at, scale, D, dtau0, x_prev, r_accept, &peak, x, &w, &steps, rwhy, sizeof rwhy);
            if (st != CR_OK) snprintf(qerr.message, sizeof qerr.message, "%s", rwhy);
        }
        if (st != CR_OK) {
            snprintf(why, sizeof why, "Newton did not converge from the relaxed state: %.300s", qerr.message);
            break;
        }
        /* the estimate again, its scales those of load factor 1 (eval set them) */
        p->eval(p->ctx, 1.0, x, F, NULL);
        cr_stability_report est;
        int divergence = 0;
        st = cr_mixed_static_stability_mode(m, at, scale, x, o->stability_modes, tangent, &est, mode, &divergence);
        if (st != CR_OK) {
            snprintf(why, sizeof why, "the stability estimate of the state reached failed");
            break;
        }
        if (est.unknown) {
            snprintf(why, sizeof why, "the stability of the state reached is unknown: %s", est.unknown_reason);
            st = CR_NOT_CONVERGED;
            break;
        }
        if (est.unstable_modes == 0 || !divergence) { /* stable, or unstable by flutter alone or by complex
                                                       * modes (follower loads): kept with the warning */
            now = est;
            break;
        }
        /* unstable again: from the same equilibrium (Newton fell back), the other way; else
         * along the new state's own mode */
        st = CR_NOT_CONVERGED;
        snprintf(why, sizeof why,
                 "each state reached was unstable as well (the last: ω² = %.4g 1/s², %d mode%s with negative "
                 "stiffness)",
                 est.omega2[0], est.unstable_modes, est.unstable_modes > 1 ? "s" : "");
        if (distance(m, x, x_prev) < 0.1 * LEAVE_PUSH * L) {
            sign = -sign;
            memcpy(x, x_prev, dim * sizeof *x);
            memcpy(mode, mode0, n6 * sizeof *mode);
        } else {
            now = est;
        }
    }
    if (st == CR_OK) {
        *report = now;
        report->left = 1;
        report->left_from_omega2 = first.omega2[0];
        report->left_from_unstable_modes = first.unstable_modes;
        report->left_push = LEAVE_PUSH * L;
        report->left_steps = steps;
        report->left_iterations = iterations;
        report->left_attempts = attempt;
    } else {
        memcpy(x, x0, dim * sizeof *x);
        st = cr_error_set(err, st == CR_NO_MEMORY ? CR_NO_MEMORY : CR_NOT_CONVERGED,
                          "the static stage ended on an unstable equilibrium (ω² = %.4g 1/s², %d mode%s with negative "
                          "stiffness) and no stable one was found from it after %d push%s along its unstable mode: %s; "
                          "the unstable equilibrium is kept (\"stability\": \"keep\" keeps it without this error)",
                          first.omega2[0], first.unstable_modes, first.unstable_modes > 1 ? "s" : "",
                          attempt > LEAVE_ATTEMPTS ? LEAVE_ATTEMPTS : attempt, attempt > 1 ? "es" : "", why);
    }
done:
    free(x0);
    free(F);
    free(dx);
    free(x_prev);
    free(D);
    free(mode0);
    free(x_relaxed);
    free(w.x_prev);
    free(w.Fr);
    cr_blocktri_destroy(w.Jr);
    return st;
}
