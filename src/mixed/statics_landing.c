/* Landing a rod that no support holds (docs/theory.md, "A rod held by obstacles alone").
 *
 * A rod held by obstacles alone has no equilibrium path from a state that does not touch them:
 * at its start every rigid motion is free (the static tangent is singular), and a load step
 * that moves it onto an obstacle meets the contact frictionless (its friction is anchored only
 * by the multiplier updates after the load steps), so it slides off or stalls. A real rod falls
 * until it lands, and a damped one comes to rest where it landed. The landing follows that
 * motion by pseudo-transient continuation (Kelley & Keyes, SIAM J. Numer. Anal. 35 (1998)
 * 508-523), implicit Euler steps of the heavily damped flow D ẋ = F(x):
 *
 *     F(x_{k+1}) − D (x_{k+1} − x_k)/Δτ_k = 0   (Newton, Jacobian J − D/Δτ_k),
 *
 * D the rod's lumped masses and rotational inertias (eq. 1; for a rod without mass its
 * length and a stiffness-free substitute, as in statics_leave.c), at the stage's full loads.
 * Before each step the contacts that the step's free motion (Δτ D⁻¹ F per node) would close
 * are anchored where that motion meets the obstacle, so a node that lands sticks where it
 * lands, as the dynamics has it (a frictionless obstacle lets it slide, as it would); after
 * each step the contact's multipliers are updated (λ ← the contact forces), which releases
 * the anchors of nodes that did not land. Δτ grows by switched evolution relaxation
 * (Δτ_{k+1} = Δτ_k |F_{k−1}|/|F_k|, at least doubled while the steps are easy: a free fall
 * keeps |F| at the weight), so once the rod rests the steps become Newton's and the
 * equilibrium is exact; what a frictionless obstacle leaves free (the slide along it) stays
 * a gauge of D, which no force drives. */
#include "contact/contact.h"
#include "mixed.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pseudo-time steps of one landing */
#define LAND_STEPS 1000
/* Newton iterations of one step, and its tolerance relative to the residual at its start */
#define LAND_INNER 10
#define LAND_INNER_TOL 1e-3
/* The first step's free motion: this fraction of the shortest element (m), and at most
 * LAND_FIRST_TURN rad of a node's turn */
#define LAND_FIRST 0.2
#define LAND_FIRST_TURN 0.05
/* Largest change in one Newton update: a node's rotation (rad) and displacement (rod lengths) */
#define LAND_MAX_ROTATION 0.25
#define LAND_MAX_DISPLACEMENT 0.05
/* Δτ's growth per step, bounded */
#define LAND_GROWTH 4.0
/* The rest: the residual this far below its largest value (its round-off floor: a residual
 * that stops halving below LAND_FLOOR of it counts too) */
#define LAND_SETTLED 1e-12
#define LAND_FLOOR 1e-8
/* A rod that falls this many rod lengths without touching anything meets no obstacle */
#define LAND_FAR 100.0

static double rms(const double *v, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; ++k) s += v[k] * v[k];
    return sqrt(s / (double)n);
}

/* D, 6 per node: masses and rotational inertias (eq. 1, welded bodies added); a rod without
 * mass gets ρA = 1 kg/m and the inertia of its node's length about its transverse axes, as
 * statics_leave.c's metric. The twist gauge's node has no inertia about its own axis (its
 * gauge row replaces that moment row). */
static void landing_mass(const cr_model *m, const cr_supports_at *at, double *D)
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
    if (at->gauge) D[(size_t)at->gauge_node * 6 + 3] = 0;
}

/* G(x) = F(x) − D (x − x_k)/Δτ and its Jacobian (J non-NULL): translations on the force rows,
 * on the moment rows (node basis) D δθ/Δτ with δθ = 2 vec(p_k* ⊗ p), linear in p (any smooth
 * measure of the turn serves a metric) */
static cr_status g_eval(const cr_model *m, const cr_nonlinear_problem *p, const double *D, double dtau,
                        const double *xk, const double *x, double *G, cr_blocktri *J)
{
    cr_status st = p->eval(p->ctx, 1.0, x, G, J);
    if (st != CR_OK) return st;
    const int B = m->block;
    for (int i = 0; i < m->nodes; ++i) {
        const double *d = D + (size_t)i * 6, *xi = x + (size_t)i * B, *q = xk + (size_t)i * B + 3;
        double *g = G + (size_t)i * B, *Ji = J ? cr_blocktri_D(J, i) : NULL;
        for (int a = 0; a < 3; ++a) {
            g[a] -= d[a] / dtau * (xi[a] - xk[(size_t)i * B + a]);
            if (Ji) Ji[a * B + a] -= d[a] / dtau;
        }
        /* vec(q* ⊗ p) = q_w p_v − p_w q_v − q_v × p_v, rows over (p_w, p_x, p_y, p_z) */
        const double R[3][4] = {{-q[1], q[0], q[3], -q[2]}, {-q[2], -q[3], q[0], q[1]}, {-q[3], q[2], -q[1], q[0]}};
        for (int a = 0; a < 3; ++a) {
            if (d[3 + a] == 0) continue;
            double th = 0;
            for (int c = 0; c < 4; ++c) th += 2.0 * R[a][c] * xi[3 + c];
            g[3 + a] -= d[3 + a] / dtau * th;
            if (Ji)
                for (int c = 0; c < 4; ++c) Ji[(3 + a) * B + 3 + c] -= 2.0 * d[3 + a] / dtau * R[a][c];
        }
    }
    return CR_OK;
}

/* The largest α in (0, 1] that keeps the update dx at x within the bounds per update */
static double step_limit(const cr_model *m, const double *x, const double *dx)
{
    const double L = m->length > 0 ? m->length : 1.0;
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
    return fmin(1.0, fmin(rot > LAND_MAX_ROTATION ? LAND_MAX_ROTATION / rot : 1.0,
                          disp > LAND_MAX_DISPLACEMENT ? LAND_MAX_DISPLACEMENT / disp : 1.0));
}

typedef struct land_work {
    double *F, *G, *dx, *xk, *xp; /* nodes × block */
    double *Fr;                   /* nodes × 3 */
    cr_blocktri *Jr;              /* the force rows' position Jacobian (NULL with rigid components) */
} land_work;


/* Anchors the contacts that the step's free motion closes where it meets the obstacle: node i
 * moves by d_i = Δτ F_i/D_i; where its gap changes sign along d_i (linear in between) it is
 * anchored at that point (cr_contact_begin at those positions; the others are left where they
 * are, and nodes that touch already keep their anchors) */
static void anchor_landings(const cr_model *m, const double *D, double dtau, const double *x, const double *F,
                            double *xp)
{
    cr_contact *ct = m->contact;
    const int B = m->block;
    memcpy(xp, x, (size_t)m->nodes * B * sizeof *x);
    for (int i = 0; i < m->nodes; ++i) {
        double *r = xp + (size_t)i * B;
        const double *f = F + (size_t)i * B, s = dtau / D[(size_t)i * 6];
        const cr_vec3 r0 = cr_v3_load(r), d = cr_v3(s * f[0], s * f[1], s * f[2]);
        cr_vec3 fc;
        cr_contact_info a, b;
        cr_contact_node_force(ct, i, r0, &fc, NULL, &a);
        cr_contact_node_force(ct, i, cr_v3_add(r0, d), &fc, NULL, &b);
        if (!(a.gap > ct->tol) || !(b.gap < a.gap) || !isfinite(a.gap)) continue;
        const double t = b.gap >= 0 ? 1.0 : a.gap / (a.gap - b.gap);
        if (b.gap > ct->tol && t == 1.0) continue; /* does not reach the obstacle */
        cr_v3_store(cr_v3_madd(r0, t, d), r);
    }
    const double tol = ct->tol;
    ct->tol = 2.0 * tol; /* the linear interpolation's point, within round-off of the surface (planes) */
    cr_contact_begin(ct, xp, B);
    ct->tol = tol;
}

/* The multiplier updates stop once no node is deeper than the tolerance: a node that pressed
 * harder while it landed (the pseudo-inertia's push) keeps a larger λ_N and may then rest on it
 * above the surface, up to λ_N/ε (0.8 µm against a tolerance of 0.5 µm for a cord on the
 * ground). The Uzawa update λ_N ← N of such pairs, pressing with a gap above the tolerance; 1
 * when there were none. */
static int settle_gaps(cr_contact *ct, const double *x, int stride)
{
    int settled = 1;
    for (int i = 0; i < ct->nodes; ++i) {
        const cr_vec3 r = cr_v3_load(x + (size_t)i * stride);
        for (int k = 0; k < ct->obstacle_count; ++k) {
            cr_contact_pair *pr = &ct->pair[(size_t)i * ct->obstacle_count + k];
            double phi;
            if (!(pr->lambda_n > 0) ||
                !cr_obstacle_distance(&ct->obstacles[k], cr_contact_local(ct, k, r), &phi, NULL, NULL))
                continue;
            const double g = phi - ct->radius[i], N = pr->lambda_n - ct->eps * ct->weight[i] * g;
            if (g > ct->tol && N > 0) pr->lambda_n = N, settled = 0;
        }
    }
    return settled;
}

/* One implicit Euler step from x (F = F(x) in w->F): Newton on G = 0 with the position
 * correction. CR_OK with x the step's end (*iters: its updates); otherwise x as it came. */
static cr_status land_step(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at,
                           const double *scale, const double *D, double dtau, double r_k, double *x, land_work *w,
                           int *iters)
{
    const size_t dim = (size_t)m->nodes * m->block;
    const double L = m->length > 0 ? m->length : 1.0;
    memcpy(w->xk, x, dim * sizeof *x);
    cr_status st = g_eval(m, p, D, dtau, w->xk, x, w->G, p->J);
    for (int it = 0; st == CR_OK && it < LAND_INNER; ++it) {
        for (size_t j = 0; j < dim; ++j) w->dx[j] = -w->G[j];
        st = cr_blocktri_factor_solve(p->J, w->dx, NULL);
        if (st != CR_OK) break;
        const double alpha = step_limit(m, x, w->dx);
        if (!(alpha > 0)) {
            st = CR_NONFINITE;
            break;
        }
        double big = 0;
        for (size_t j = 0; j < dim; ++j) x[j] += alpha * w->dx[j], big = fmax(big, fabs(alpha * w->dx[j]));
        if (p->project) p->project(p->ctx, x);
        if ((st = cr_mixed_pseudotime_correct(m, at, scale, D, dtau, w->xk, x, w->Fr, w->Jr)) != CR_OK) break;
        if ((st = g_eval(m, p, D, dtau, w->xk, x, w->G, p->J)) != CR_OK) break;
        const double g = rms(w->G, dim);
        *iters = it + 1;
        if (!isfinite(g)) {
            st = CR_NONFINITE;
            break;
        }
        if (alpha == 1.0 && (g <= LAND_INNER_TOL * r_k || big < 1e3 * DBL_EPSILON * L)) return CR_OK;
    }
    memcpy(x, w->xk, dim * sizeof *x);
    return st == CR_OK ? CR_NOT_CONVERGED : st;
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

cr_status cr_mixed_static_land(const cr_model *m, const cr_nonlinear_problem *p, const cr_supports_at *at,
                               const double *scale, double *x, cr_mixed_landing *report, char *why, size_t size)
{
    memset(report, 0, sizeof *report);
    if (size > 0) why[0] = '\0';
    if (!m->contact) {
        snprintf(why, size, "no obstacle to land on");
        return CR_BAD_INPUT;
    }
    const size_t dim = (size_t)m->nodes * m->block;
    const double L = m->length > 0 ? m->length : 1.0;
    land_work w = {0};
    double *D = malloc((size_t)m->nodes * 6 * sizeof *D), *x0 = malloc(dim * sizeof *x0);
    w.F = malloc(dim * sizeof *w.F), w.G = malloc(dim * sizeof *w.G), w.dx = malloc(dim * sizeof *w.dx);
    w.xk = malloc(dim * sizeof *w.xk), w.xp = malloc(dim * sizeof *w.xp);
    w.Fr = malloc((size_t)m->nodes * 3 * sizeof *w.Fr);
    w.Jr = m->rigid_count > 0 ? NULL : cr_blocktri_create(m->nodes, 3);
    cr_status st = CR_OK;
    if (!D || !x0 || !w.F || !w.G || !w.dx || !w.xk || !w.xp || !w.Fr || (m->rigid_count == 0 && !w.Jr)) {
        snprintf(why, size, "out of memory");
        st = CR_NO_MEMORY;
        goto done;
    }
    memcpy(x0, x, dim * sizeof *x);
    landing_mass(m, at, D);
    /* the first step's Δτ: its free motion LAND_FIRST of the shortest element, LAND_FIRST_TURN */
    double lmin = INFINITY;
    for (int e = 0; e < m->n; ++e) lmin = fmin(lmin, m->el[e].length);
    if ((st = p->eval(p->ctx, 1.0, x, w.F, NULL)) != CR_OK) {
        snprintf(why, size, "the residual could not be evaluated at the start");
        goto done;
    }
    double rate = 0; /* largest |F_i|/D_i: displacement (over LAND_FIRST lmin) or turn per unit Δτ */
    for (int i = 0; i < m->nodes; ++i) {
        const double *f = w.F + (size_t)i * m->block, *d = D + (size_t)i * 6;
        rate = fmax(rate, sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) / d[0] / (LAND_FIRST * lmin));
        for (int a = 0; a < 3; ++a)
            if (d[3 + a] > 0) rate = fmax(rate, fabs(f[3 + a]) / d[3 + a] / LAND_FIRST_TURN);
    }
    if (!(rate > 0) || !isfinite(rate)) {
        snprintf(why, size, "no load moves the rod");
        st = CR_SINGULAR;
        goto done;
    }
    const double dtau0 = 1.0 / rate;
    double dtau = dtau0, r_prev = -1, r_peak = 0, r = 0;
    int contacts_done = 0, stagnant = 0;
    for (int k = 0; k < LAND_STEPS; ++k) {
        if (k > 0 && (st = p->eval(p->ctx, 1.0, x, w.F, NULL)) != CR_OK) {
            snprintf(why, size, "the residual could not be evaluated after pseudo-time step %d", k);
            goto done;
        }
        r = rms(w.F, dim);
        if (!isfinite(r)) {
            st = CR_NONFINITE;
            snprintf(why, size, "the residual became non-finite in pseudo-time step %d", k + 1);
            goto done;
        }
        r_peak = fmax(r_peak, r);
        stagnant = r_prev > 0 && r > 0.5 * r_prev && r <= LAND_FLOOR * r_peak ? stagnant + 1 : 0;
        report->residual = r;
        if (contacts_done && (r <= LAND_SETTLED * r_peak || stagnant >= 5)) {
            report->fell = distance(m, x, x0);
            goto done; /* at rest */
        }
        if (distance(m, x, x0) > LAND_FAR * L) {
            cr_contact_totals t;
            cr_contact_totals_at(m->contact, x, m->block, &t);
            if (t.active == 0) {
                snprintf(why, size,
                         "it moved %.3g m (more than %g rod lengths) in the loads' direction without meeting an "
                         "obstacle: no obstacle lies in that direction",
                         distance(m, x, x0), LAND_FAR);
                st = CR_NOT_CONVERGED;
                goto done;
            }
        }
        anchor_landings(m, D, dtau, x, w.F, w.xp);
        int iters = 0;
        while ((st = land_step(m, p, at, scale, D, dtau, r, x, &w, &iters)) != CR_OK) {
            report->iterations += iters;
            if (st == CR_NO_MEMORY || dtau < 1e-8 * dtau0) {
                snprintf(why, size, "pseudo-time step %d failed at every step size down to %.3g (RMS residual %.3g)",
                         k + 1, dtau, r);
                goto done;
            }
            dtau *= 0.25;
            anchor_landings(m, D, dtau, x, w.F, w.xp);
        }
        report->iterations += iters;
        report->steps++;
        double pen, drift;
        contacts_done = cr_contact_update(m->contact, x, m->block, &pen, &drift);
        if (contacts_done) contacts_done = settle_gaps(m->contact, x, m->block);
        /* switched evolution relaxation, at least doubled after an easy step (a free fall) */
        const double ser = r_prev > 0 ? r_prev / fmax(r, DBL_MIN) : 1.0;
        dtau *= fmin(LAND_GROWTH, fmax(ser, iters <= 3 ? 2.0 : 1.0 / LAND_GROWTH));
        /* Δτ at most 1e12 of the start: what no force drives (the slide along a frictionless
         * obstacle) stays held by D */
        dtau = fmin(dtau, 1e12 * dtau0);
        r_prev = r;
    }
    if (st == CR_OK) {
        snprintf(why, size, "it did not come to rest in %d pseudo-time steps (RMS residual %.3g, largest %.3g)",
                 LAND_STEPS, r, r_peak);
        st = CR_NOT_CONVERGED;
    }
done:
    if (st != CR_OK && st != CR_NO_MEMORY && x0) {
        /* landed but not at rest: the loads drive it along the obstacles it touches */
        cr_contact_totals t;
        cr_contact_totals_at(m->contact, x, m->block, &t);
        size_t used = strlen(why);
        if (t.active > 0 && used + 1 < size)
            snprintf(why + used, size - used,
                     "; it touches the obstacles at %d nodes but does not come to rest on them: the loads push it "
                     "along them, which friction does not hold there (a frictionless or too steep surface has no "
                     "static equilibrium; a dynamic stage follows the slide)",
                     t.active);
    }
    if (st != CR_OK && x0) memcpy(x, x0, dim * sizeof *x);
    free(D), free(x0), free(w.F), free(w.G), free(w.dx), free(w.xk), free(w.xp), free(w.Fr);
    cr_blocktri_destroy(w.Jr);
    return st;
}
