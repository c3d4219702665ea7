/* Port-Hamiltonian rod: Newton on X = (q_{n+1}, lambda_{n+1/2}, rigid sigma) with the
 * convergence test of spec §6, the midpoint step and the static solve. The linear systems
 * are solved in ph_linear.c. */
#include "ph/ph.h"
#include "math/fpmode.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double norm2(const double *x, int n)
{
    double a = 0;
    for (int i = 0; i < n; ++i) a += x[i] * x[i];
    return sqrt(a);
}

/* max(a, |v|) as fmax (a NaN v is ignored), inline: fmax is a libm call without -ffast-math, and these
   loops run over every unknown per Newton iteration */
static inline double amax(double a, double v)
{
    v = fabs(v);
    return v > a ? v : a;
}

/* x - x is +0 for a finite x and NaN otherwise: four sums of them (exact zeros) vectorize, where a test
   per entry with its early exit ran as a serial loop of four instructions per unknown */
static int all_finite(const double *x, int n)
{
    double a[4] = {0, 0, 0, 0};
    int i = 0;
    for (; i + 3 < n; i += 4)
        for (int q = 0; q < 4; ++q) a[q] += x[i + q] - x[i + q];
    for (; i < n; ++i) a[0] += x[i] - x[i];
    return (a[0] + a[1]) + (a[2] + a[3]) == 0;
}

/* The increment of one Newton update measured block by block against each block's own scale
 * (issue 26: one norm over positions, directors and stresses let a far-away rod or a large stress
 * pass the test with its other unknowns unconverged): positions against the rod's extent (its
 * length: not |x|, which grows with a rigid translation while the strains do not), directors
 * against 1, rigid stresses against the largest stress of the rod (elastic or rigid, at least
 * newton_atol, and at least the stress whose 1e-8 moves the momentum rows by newton_atol). The
 * multipliers are not iterated (ph_direct.c). */
static double scaled_increment(const cr_ph *s, double dpos, double ddir, double dsig, double sig, double sig_el)
{
    /* dpos, ddir, dsig: the largest position, director and rigid stress increments, sig the largest rigid stress
       after the update, at least newton_atol (newton's update pass); sig_el the largest stress of the state at
       t_n (sig_el_max) */
    sig = fmax(sig, sig_el);
    /* a stress increment moves the momentum rows by up to fac w |N'| dsigma: one that moves them by
       less than 1e-8 of newton_atol per 1e-8 of the scale is converged too (a rod at rest under a tiny
       load has tiny stresses whose last digits the rows cannot resolve) */
    double dn = 0;
    for (int g = 0; g < 2; ++g)
        for (int a = 0; a < 3; ++a) dn = fmax(dn, fabs(s->dN[g][a]));
    sig = fmax(sig, 1e8 * s->p.newton_atol / (s->fac * s->w * dn));
    return fmax(fmax(dpos / s->p.length, ddir), dsig / sig);
}

/* Newton from s->X (set by ph_begin) with the exact Jacobian at every iterate (ph_direct.c: one pass
 * assembles, factors and solves; keeping an old factorization only contracts linearly, and a fresh one
 * costs about as much as the residual and solve it would save, bench_ph).
 *
 * Convergence (spec §6 "Convergence test"): |r| <= atol, then one more update (from the same pass: it
 * takes the iterate from ~atol to round-off, as the exact discrete energy balance and constraints need);
 * or an update whose increment, block by block (scaled_increment), is below 1e-8 and whose quadratic
 * extrapolation d_k (d_k / d_{k-1})^2 predicts the next below 1e-15 (the iterate is then at round-off
 * without another pass), or that stopped shrinking (d_k >= d_{k-1} / 2: the round-off floor of the
 * linear solve, which fine meshes reach above 1e-15). Otherwise the step fails after max_iterations
 * (the caller halves it). */
#define PH_INCREMENT 1e-8
#define PH_NEXT 1e-15
#define PH_MAX_TURN 0.5

static void refresh_multipliers(cr_ph *s, int mode, double *X, double *r);

/* X back to the iterate of the last pass (its unpacked copies q1, lam1, sig1: the same values), undoing
   the update the pass made (cr_ph.fuse_update) */
static void restore_iterate(cr_ph *s)
{
    for (int I = 0; I < s->nn; ++I) {
        const int o = s->node_off[I];
        if (o < 0) continue;
        memcpy(s->X + o, s->q1 + 12 * I, sizeof(double) * 12);
        memcpy(s->X + o + 12, s->lam1 + 6 * I, sizeof(double) * 6);
    }
    for (int e = 0; e < s->ne; ++e)
        for (int g = 0; g < 2; ++g)
            for (int sl = 0; sl < s->nr; ++sl) s->X[s->sig_off[e] + g * s->nr + sl] = s->sig1[(2 * e + g) * s->nr + sl];
}

/* Newton's safeguard for friction (cr_ph_set_friction). The friction force -mu N v_t / max(|v_t|, eps) is
 * a steep ramp of slope mu N / eps across |v_t| < eps and flat outside: from a tangential velocity above
 * eps the linear model sees no friction change and may jump to the far side of the ramp, and from there
 * back (a cycle: a node sticking under 0.9 mu_s N, whose step started from the predictor 2.7 eps, went
 * to -22 eps and back). An update that turns a touching node's contact point's tangential midpoint
 * velocity around (v_t,old . v_t,new < 0) with both outside the ramp puts it at v_t = 0 instead (moving the
 * node's position), on the ramp, where the
 * linear model holds the friction's slope: the next update lands on the ramp's root (the node sticks)
 * or beyond it on the side the forces push to (it slides), never back. Returns whether it changed X. */
int ph_friction_reversals(cr_ph *s, double *X, const double *dX)
{
    int any = 0;
    const double e = s->stick_speed * s->h;
    for (int I = 0; I < s->nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        const double *x0 = s->q + 12 * I;
        double *x1 = X + o;
        for (int p = 0; p < s->ncp; ++p) {
            if (!(s->cmu[2 * p] > 0)) continue;
            /* positions relative to the obstacle (in its frame) at t_n and t_{n+1}; the normal at t_n's */
            const double t1 = s->t + s->h;
            const cr_mat3 R1 = ph_obstacle_rotation(s, p, t1);
            const cr_vec3 y0 = ph_obstacle_local(s, p, s->t, cr_v3_load(x0)),
                          y1 = ph_obstacle_local(s, p, t1, cr_v3_load(x1)),
                          yp = ph_obstacle_turns(s, p)
                                   ? ph_obstacle_local(s, p, t1, cr_v3_sub(cr_v3_load(x1), cr_v3_load(dX + o)))
                                   : cr_v3_sub(y1, cr_v3_load(dX + o));
            double g0, g1, gp, n[3];
            int ok0 = ph_contact_gap(s, p, y0, s->ca[I], &g0, n, NULL);
            int ok1 = ph_contact_gap(s, p, y1, s->ca[I], &g1, NULL, NULL);
            int okp = ph_contact_gap(s, p, yp, s->ca[I], &gp, NULL, NULL);
            if (!(ok0 && g0 < 0) && !(ok1 && g1 < 0) && !(okp && gp < 0)) continue; /* no friction at either iterate */
            /* the contact point's slip (ph_contact_force: c frozen at t_n) and its update's */
            double cc[3];
            ph_contact_coeffs(s, I, p, s->t, x0, cc);
            const cr_vec3 off = cr_v3_sub(ph_contact_offset(s, p, t1, cc, x1), ph_contact_offset(s, p, s->t, cc, x0));
            const double d1[3] = {y1.x - y0.x + off.x, y1.y - y0.y + off.y, y1.z - y0.z + off.z};
            cr_vec3 dXw = cr_v3_load(dX + o);
            for (int k = 0; k < 3; ++k) dXw = cr_v3_madd(dXw, cc[k], cr_v3_load(dX + o + 3 + 3 * k));
            const cr_vec3 dXl = ph_obstacle_turns(s, p) ? cr_m3_tmulv(R1, dXw) : dXw;
            const double dXo[3] = {dXl.x, dXl.y, dXl.z}; /* the update in the obstacle's frame */
            double tn[3], to[3], dn = 0, ddn = 0, an = 0, ao = 0, dot = 0;
            for (int c = 0; c < 3; ++c) dn += n[c] * d1[c], ddn += n[c] * dXo[c];
            for (int c = 0; c < 3; ++c) {
                tn[c] = d1[c] - dn * n[c];
                to[c] = tn[c] - (dXo[c] - ddn * n[c]);
                an += tn[c] * tn[c], ao += to[c] * to[c], dot += tn[c] * to[c];
            }
            if (dot < 0 && an > e * e && ao > e * e) {
                const cr_vec3 tw = cr_m3_mulv(R1, cr_v3(tn[0], tn[1], tn[2])); /* (I for one that does not turn) */
                x1[0] -= tw.x, x1[1] -= tw.y, x1[2] -= tw.z;
                any = 1;
            }
        }
    }
    return any;
}

/* The residual at X with the multipliers of the final iterate (one pass without the Jacobian; the
   assembly's path if a node's directors are degenerate) */
static double final_residual(cr_ph *s, int mode, const cr_ph_loads *loads)
{
    if (ph_direct_residual(s, mode, loads, s->X, s->r) == CR_OK) return sqrt(s->rsq);
    ph_assemble(s, mode, loads, s->X, s->r, 0);
    refresh_multipliers(s, mode, s->X, s->r);
    return norm2(s->r, s->nx);
}

/* the largest |stress| of the state at t_n (scaled_increment; fixed during a step: once per Newton, not per
   iteration, a pass over the Gauss points' stresses less per iteration; after a step its finish's, cr_ph.sig_max) */
static double sig_el_max(const cr_ph *s)
{
    double sig = 0;
    for (int k = 0; k < 6 * s->ng; ++k) sig = amax(sig, s->sig_el[k]);
    return sig;
}

static cr_status newton(cr_ph *s, int mode, const cr_ph_loads *loads, int *iterations, double *residual, cr_error *err)
{
    const int n = s->nx;
    int it = 0;
    double rn = 0, dprev = 1, rcheck = INFINITY, sig_el = -1; /* (sig_el_max, from the first update on) */
    double rfinal = 0;                                        /* the accepted iterate's residual norm (have_final) */
    int have_final = 0; /* s->r holds the accepted iterate's residual (the increment test's check) */
    for (;;) {
        int bad = -1;
        s->fuse_update = 1; /* the update in the increments' pass (restored below where it is not taken) */
        cr_status st = ph_direct_iteration(s, mode, loads, s->X, s->r, s->dX, &bad);
        s->fuse_update = 0;
        if (st == CR_NO_MEMORY) return cr_error_set(err, st, "ph: out of memory for the band LU (%d elements)", s->ne);
        s->jacobians++;
        s->factorizations++;
        rn = st == CR_OK ? sqrt(s->rsq) : norm2(s->r, n);
        if (iterations) *iterations = it;
        if (residual) *residual = rn;
        if (!isfinite(rn))
            return cr_error_set(err, CR_NONFINITE, "ph: residual not finite at t = %g after %d Newton iterations", s->t,
                                it);
        if (st != CR_OK && it == 0) {
            /* the pass stopped at the singular pivot, its residual incomplete: an initial iterate that
               already satisfies the equations needs no solve (a free rod at rest in statics) */
            ph_assemble(s, mode, loads, s->X, s->r, 0);
            refresh_multipliers(s, mode, s->X, s->r);
            rn = norm2(s->r, n);
            if (residual) *residual = rn;
            if (rn <= s->p.newton_atol) return CR_OK;
        }
        if (st != CR_OK)
            return cr_error_set(err, CR_SINGULAR,
                                "ph: singular Newton matrix at t = %g (unknown %d), residual %.3e; a free rod needs "
                                "inertia, a static solve a clamp",
                                s->t, bad, rn);
        if (rn <= s->p.newton_atol && it == 0) {
            restore_iterate(s);
            return CR_OK;
        }
        if (it >= s->p.max_iterations)
            return cr_error_set(err, CR_NOT_CONVERGED,
                                "ph: Newton did not converge at t = %g (h = %g) in %d iterations, residual %.3e > "
                                "newton_atol %.3e, last increment %.2e of its scale",
                                s->t, s->h, it, rn, s->p.newton_atol, dprev);
        /* Far from the solution (a large load step from rest) a full update can turn the directors by a
           radian or more and land in another equilibrium's basin; the update is shortened so that no
           director moves by more than PH_MAX_TURN (near the solution this never binds). */
        const double turn = s->dturn; /* the largest director increment (ph_direct_iteration) */
        /* the pass made the full update (cr_ph.fuse_update): a shortened one starts again from the iterate */
        const int fused = !(turn > PH_MAX_TURN);
        if (!fused) restore_iterate(s);
        if (turn > PH_MAX_TURN)
            for (int i = 0; i < n; ++i) s->dX[i] *= PH_MAX_TURN / turn;
        /* the update, node by node in one pass over X (at 10^5 elements X is 29 MB: the update, the
           second-order term, the finiteness test and the increment's maxima were four passes); with the
           full update, the increments' pass made it (the same operations) */
        double dpos = 0, ddir = 0, dsig = 0, sig = s->p.newton_atol, fin[4] = {0, 0, 0, 0};
        if (fused) {
            dpos = s->upd[0], ddir = s->upd[1], dsig = s->upd[2], sig = fmax(sig, s->upd[3]);
            fin[0] = s->upd_finite ? 0 : NAN;
        }
        /* the directors' increment theta x d is the rotation's first order: its second-order term
           theta x (theta x d) / 2 keeps the update on the rotations to O(theta^3) (the linear one moves
           |d|^2 to 1 + |theta|^2, and the next residual is O(theta^2) whatever the Jacobian: the first
           update of a static load step from the last equilibrium turned the directors by ~0.3 and
           barely reduced the residual). Near the solution it is O(dX^2) and leaves the quadratic
           convergence as it was. */
        const double tsc = turn > PH_MAX_TURN ? PH_MAX_TURN / turn : 1.0;
        for (int I = 0; I < (fused ? 0 : s->nn); ++I) {
            /* element I / 2's rigid stresses after its middle node (node-major X: one pass over X and dX) */
            if (I % 2 == 1)
                for (int k = 0; k < 2 * s->nr; ++k) {
                    const int i = s->sig_off[I / 2] + k;
                    s->X[i] += s->dX[i];
                    fin[k & 3] += s->X[i] - s->X[i];
                    dsig = amax(dsig, s->dX[i]);
                    sig = amax(sig, s->X[i]);
                }
            int o = s->node_off[I];
            if (o < 0) continue;
            double *x0 = s->X + o;
            const double *d0 = s->dX + o;
            for (int k = 0; k < 18; ++k) x0[k] += d0[k];
            for (int c = 0; c < 3; ++c) dpos = amax(dpos, d0[c]);
            for (int c = 3; c < 12; ++c) ddir = amax(ddir, d0[c]);
            double th[3] = {tsc * s->theta[3 * I], tsc * s->theta[3 * I + 1], tsc * s->theta[3 * I + 2]};
            for (int k = 0; k < 3; ++k) {
                const double *d = s->q1 + 12 * I + 3 + 3 * k;
                double a[3] = {th[1] * d[2] - th[2] * d[1], th[2] * d[0] - th[0] * d[2], th[0] * d[1] - th[1] * d[0]};
                double *x = x0 + 3 + 3 * k;
                x[0] += 0.5 * (th[1] * a[2] - th[2] * a[1]);
                x[1] += 0.5 * (th[2] * a[0] - th[0] * a[2]);
                x[2] += 0.5 * (th[0] * a[1] - th[1] * a[0]);
            }
            for (int k = 0; k < 18; ++k) fin[k & 3] += x0[k] - x0[k];
        }
        /* the friction's safeguard moves positions only (after the directors' second-order term, which it
           does not read) */
        const int clipped = mode == PH_DYNAMIC && s->cmu && ph_friction_reversals(s, s->X, s->dX);
        ++it;
        s->iterations++;
        if (iterations) *iterations = it;
        if ((fin[0] + fin[1]) + (fin[2] + fin[3]) != 0 || (clipped && !all_finite(s->X, n)))
            return cr_error_set(err, CR_NONFINITE, "ph: Newton iterate not finite at t = %g, residual %.3e", s->t, rn);
        if (!(sig_el >= 0)) sig_el = s->have_sigmax ? s->sig_max : sig_el_max(s);
        double dn = scaled_increment(s, dpos, ddir, dsig, sig, sig_el);
        if (clipped) { /* not Newton's update: no convergence test on it, and the next one's quadratic
                          prediction measured against it (with the initial dprev = 1 a single update
                          after a clip passed as converged: a node sticking on a moving belt was
                          accepted with its friction 2e-4 N off, 4e-5 J of balance) */
            dprev = dn;
            continue;
        }
        if (rn <= s->p.newton_atol) break;
        /* below 1e-8 of the scale and either predicted to reach 1e-15 or no longer shrinking (the
           increments sit at the round-off floor of the linear solve, cond * eps: fine meshes) */
        /* (after the first update there is no contraction to predict from: only an update already at
           the floor ends it. A node stuck to a belt at 0.5 mm/s, its step's first update 1e-9 of the
           scale, was accepted so with its residual at 4e-10 > newton_atol: a step's balance 7.7e-13 J
           off, which tripped the energy watch) */
        if (dn <= PH_INCREMENT && (it > 1 || dn <= PH_NEXT) &&
            (dn * (dn / dprev) * (dn / dprev) <= PH_NEXT || dn >= 0.5 * dprev)) {
            /* The test predicts the next update from the last contraction, which a kink of the
               equations breaks: a node's friction crossing its regularization speed, a contact
               opening. A clamped cord on a rough slope had a step accepted so at dn = 7e-9 with its
               residual at 1e-6 (the contraction of 1.4e-4 it predicted from was the smooth branch's),
               its balance 1e-11 J off, which tripped the energy watch: its residual had fallen 10x
               in that update, not by the contraction. So the accepted iterate's residual (the
               state's, computed here anyway) confirms a predicted convergence: below newton_atol,
               or 100x below the residual before the update (a Newton step that converges: the
               flying spaghetti's steps end so, its 451 iterations unchanged), or not even halved
               by the update or since the last such check (the round-off floor of a fine mesh: the
               residual before the update was at it already). A stalled increment (the floor itself)
               and the last allowed iteration end it as before.
               (The floor grows with the mesh, as sqrt(n) entries of its size, eps times the
               stiffness rows' terms: newton_atol = 1e-12 is below it from ~10^3 elements, 5e-12 at
               10^3, 7e-9 in the 10^5-element statics of bench_ph. Compared only with the last check,
               such a step took one more update and residual pass to see the floor: at 10^3 to 10^5
               elements 5 updates and 2 residual passes per step where 4 and 1 suffice. The kink
               above is not a floor: its update cut the residual 10x.) */
            const int predicted = dn < 0.5 * dprev;
            const double rf = final_residual(s, mode, loads);
            rfinal = rf;
            /* A residual that the update did not halve is the floor only where the equations are
               smooth. Contact has kinks (a node's friction crossing its regularization speed, a penalty
               opening), where an update's increment contracts as Newton's but the residual does not:
               a rod carried by a rough table with its friction at the contact points (contact.rolling)
               had a step accepted so at a residual of 1.6e-7 (newton_atol 1e-12, the round-off floor
               there ~1e-15), its balance 3.6e-8 J off, which tripped the energy watch. With a node
               touching an obstacle the floor is therefore confirmed by a second check (the update after
               it converges instead: the same step then ends at 2e-13). Obstacles nothing touches leave
               the equations smooth and the single check (a far plane had cost a 10^3-element
               cantilever 44 Newton updates instead of 30). */
            const int at_floor =
                !(rf < 0.5 * fmin(rn, rcheck)) && (s->ncp == 0 || rcheck < INFINITY || !ph_contact_touching(s));
            if (!predicted || rf <= s->p.newton_atol || rf <= 1e-2 * rn || at_floor || it >= s->p.max_iterations) {
                have_final = 1;
                break;
            }
            rcheck = rf;
        }
        dprev = dn;
    }
    /* the state's residual (reported by statics) with the multipliers of the final iterate */
    const double rfin = have_final ? rfinal : final_residual(s, mode, loads);
    if (residual) *residual = rfin;
    return CR_OK;
}

/* lambda of every free node to the least squares solution of its director rows at X (as ph_direct.c),
   after ph_assemble(X) left r: lambda += -(G_m G_m^T)^-1 G_m r_d / fac, r_d += fac G_m^T dlambda */
static void refresh_multipliers(cr_ph *s, int mode, double *X, double *r)
{
    const int dyn = mode == PH_DYNAMIC;
    for (int I = 0; I < s->nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        double dm[9], G[6][9], Lc[36], b[6];
        for (int k = 0; k < 9; ++k) dm[k] = dyn ? 0.5 * (s->q[12 * I + 3 + k] + X[o + 3 + k]) : X[o + 3 + k];
        ph_constraint_jacobian(dm, G);
        if (!ph_gram_factor(&G[0][0], Lc)) continue;
        for (int k = 0; k < 6; ++k) {
            double v = 0;
            for (int c = 0; c < 9; ++c) v += G[k][c] * r[o + 3 + c];
            b[k] = -v / s->fac;
        }
        ph_gram_apply(Lc, b);
        for (int k = 0; k < 6; ++k) X[o + 12 + k] += b[k], s->lam1[6 * I + k] = X[o + 12 + k];
        for (int c = 0; c < 9; ++c) {
            double v = 0;
            for (int k = 0; k < 6; ++k) v += G[k][c] * b[k];
            r[o + 3 + c] += s->fac * v;
        }
    }
}

cr_status cr_ph_step(cr_ph *s, double h, const cr_ph_loads *loads, int *iterations, cr_error *err)
{
    if (iterations) *iterations = 0;
    if (!(h > 0) || !isfinite(h)) return cr_error_set(err, CR_BAD_INPUT, "ph: step h = %g must be > 0", h);
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    const double H0 = ph_step_energy(s);
    ph_begin(s, PH_DYNAMIC, h);
    cr_status st = newton(s, PH_DYNAMIC, loads, iterations, NULL, err);
    if (st == CR_OK) {
        ph_clamp_reactions(s, PH_DYNAMIC, loads);
        ph_step_finish(s, h, loads, H0);
    }
    cr_fpmode_restore(fp);
    return st;
}

double ph_energy(const cr_ph *s)
{
    return ph_kinetic_energy(s, s->v) + ph_elastic_energy(s, s->sig_el, s->sig_br) + ph_contact_energy(s, s->q);
}

double ph_step_energy(cr_ph *s)
{
    if (!s->have_H) s->H = ph_energy(s), s->have_H = 1;
    return s->H;
}

void ph_state_changed(cr_ph *s) { s->have_eps = s->have_H = s->have_pred = s->have_sigmax = 0; }

/* node I's part of the finish: v_{n+1} = 2 v_{n+1/2} - v_n with v_{n+1/2} = (q_{n+1} - q_n) / h (spec §6),
   q_n <- q_{n+1}, lambda <- the converged one; pred: ph_begin's dynamic predictor of the next step (for a
   step of h: the same operations on the same values, so ph_begin may skip it) */
static inline void finish_node(cr_ph *s, int I, double h, int inertia, int pred)
{
    double *q = s->q + 12 * I, *v = s->v + 12 * I, *vm = s->vmid + 12 * I;
    const double *q1 = s->q1 + 12 * I;
    for (int k = 0; k < 12; ++k) {
        vm[k] = (q1[k] - q[k]) / h;
        v[k] = 2 * vm[k] - v[k];
        q[k] = q1[k];
    }
    memcpy(s->lam + 6 * I, s->lam1 + 6 * I, sizeof(double) * 6);
    const int o = s->node_off[I];
    if (!pred || o < 0) return;
    for (int k = 0; k < 12; ++k) s->X[o + k] = q[k] + (inertia ? h * (2 * v[k] - vm[k]) : h * vm[k]);
    memcpy(s->X + o + 12, s->lam + 6 * I, sizeof(double) * 6);
}

/* node I's W^ext terms f_ext . (q_{n+1} - q_n) and their round-off bound (before finish_node moves q_n) */
static inline void work_node(const cr_ph *s, int I, double *W, double *Wround)
{
    const double *f = s->fext + 12 * I, *q1 = s->q1 + 12 * I, *q = s->q + 12 * I;
    double w = *W, wr = *Wround;
    for (int k = 0; k < 12; ++k) {
        w += f[k] * (q1[k] - q[k]);
        wr += fabs(f[k]) * (fabs(q1[k]) + fabs(q[k]));
    }
    *W = w, *Wround = wr;
}

/* The step's end in one pass over the elements where it can (no actuation, friction or moving obstacles):
   each node's work, velocities and predictor when its last element reaches it, the element's strains,
   stresses and dissipation, and H_{n+1}'s kinetic and elastic parts from the new values (ph_kinetic_energy's
   and ph_elastic_energy's sums, in their order), while the element's data are in the cache. Six passes over
   the nodes and Gauss points were 22 cache lines per element-iteration at 10^5 elements. The sums (W, D,
   H_{n+1}) run in the order of the separate passes: the same bits. eps(q_{n+1}) stays in eps_n for the next
   step (ph_begin's eps(q_n): the same operations on the same q), H_{n+1} in H (the next step's H_n). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void ph_step_finish(cr_ph *s, double h, const cr_ph_loads *loads, double H0)
{
    s->have_static = 0;
    /* (newton left the unpacked iterate and the external forces of the converged X) */
    const double *act = loads ? loads->actuation : NULL;
    /* friction and moving obstacles read q_n and v_{n-1/2} after the stresses: the nodes move on after them;
       actuation adds its work after every node's: W's nodes in a pass of their own first (its order) */
    const int contact_work = s->cmu || s->any_moving, fused = !contact_work;
    const int inertia = s->mass[0] > 0 || s->mass[1] > 0 || s->mass[2] > 0;
    const int pred = fused; /* (without friction: its predictor is ph_begin's) */
    /* W^ext_n = h yhat_{n+1/2}^T uhat_{n+1/2} = f_ext . (q_{n+1} - q_n) (spec §6) */
    double W = 0, Wround = 0, D = 0, T = 0, E = 0, smax = 0;
    const int work_first = act || contact_work;
    if (work_first)
        for (int I = 0; I < s->nn; ++I) work_node(s, I, &W, &Wround);
    /* stress update (spec §6 (C), §7) and dissipation D_n = h sum int sigma_mid V^-1 sigma_mid */
    for (int e = 0; e < s->ne; ++e) {
        if (fused) /* the nodes this element is the last to read: its first (element 0's) and its other two */
            for (int I = e ? 2 * e + 1 : 0; I <= 2 * e + 2; ++I) {
                if (!work_first) work_node(s, I, &W, &Wround);
                finish_node(s, I, h, inertia, pred);
            }
        for (int g = 0; g < 2; ++g) {
            int gp = 2 * e + g;
            double q1[12] = {0}, q1s[12] = {0}, eps1[6];
            for (int a = 0; a < 3; ++a) {
                const double *qa = s->q1 + 12 * (2 * e + a);
                for (int k = 0; k < 12; ++k) q1[k] += s->N[g][a] * qa[k], q1s[k] += s->dN[g][a] * qa[k];
            }
            ph_strain(q1, q1s, eps1);
            for (int j = 0; j < 6; ++j) {
                double de = eps1[j] - s->eps_n[6 * gp + j];
                if (act) { /* actuation work -int sigma_act . Delta eps (spec §8) */
                    W -= s->w * act[j] * de;
                    Wround += fabs(s->w * act[j]) * (fabs(eps1[j]) + fabs(s->eps_n[6 * gp + j]));
                }
                if (s->rigid_slot[j] >= 0) {
                    s->sig_el[6 * gp + j] = s->sig1[gp * s->nr + s->rigid_slot[j]];
                    continue;
                }
                s->sig_el[6 * gp + j] += s->k_el[j] * de;
                for (int i = 0; i < s->nb; ++i) {
                    double *sb = s->sig_br + (gp * s->nb + i) * 6 + j, mid;
                    if (s->kv[i]) {
                        mid = s->eta_br[i][j] * de / h;
                        *sb = mid;
                    } else {
                        double a = 0.5 * h * s->k_br[i][j] / s->eta_br[i][j];
                        double sn1 = (*sb * (1 - a) + s->k_br[i][j] * de) / (1 + a);
                        mid = 0.5 * (*sb + sn1);
                        *sb = sn1;
                    }
                    D += h * s->w * mid * mid / s->eta_br[i][j];
                }
            }
            memcpy(s->eps_n + 6 * gp, eps1, sizeof eps1); /* eps(q_n) of the next step */
            if (!fused) continue;
            for (int sl = 0; sl < s->nr; ++sl) /* the predictor's rigid stresses (ph_begin's) */
                s->X[s->sig_off[e] + g * s->nr + sl] = s->sig_el[6 * gp + s->rigid_comp[sl]];
            /* H_{n+1}: the point's stored energy (ph_elastic_energy) and kinetic energy (ph_kinetic_energy);
               the largest |stress| (sig_el_max: a maximum, in any order the same) */
            for (int j = 0; j < 6; ++j) smax = amax(smax, s->sig_el[6 * gp + j]);
            for (int j = 0; j < 6; ++j) {
                if (s->rigid_slot[j] >= 0) continue;
                double a = s->sig_el[6 * gp + j];
                if (s->k_el[j] > 0) E += 0.5 * a * a / s->k_el[j];
                for (int i = 0; i < s->nb; ++i) {
                    if (s->kv[i]) continue;
                    double b = s->sig_br[(gp * s->nb + i) * 6 + j];
                    E += 0.5 * b * b / s->k_br[i][j];
                }
            }
            double vg[12] = {0};
            for (int a = 0; a < 3; ++a) {
                const double *va = s->v + 12 * (2 * e + a);
                for (int k = 0; k < 12; ++k) vg[k] += s->N[g][a] * va[k];
            }
            for (int f = 0; f < 3; ++f)
                T += s->mass[f] *
                     (vg[3 * f] * vg[3 * f] + vg[3 * f + 1] * vg[3 * f + 1] + vg[3 * f + 2] * vg[3 * f + 2]);
        }
    }
    /* friction (cr_ph_set_friction): its work F . d = -h mu N |v_t|^2 / max(|v_t|, eps) <= 0 over the step d
       relative to the obstacle is dissipated, D_n += -F . d, with the force of the converged iterate (before
       vmid, which chose mu, moves on); moving obstacles: the contact forces' work over the obstacles' own
       displacement is external work, W_n += wob (ph_contact_force) */
    int turning = 0;
    for (int p = 0; p < s->ncp; ++p) turning |= ph_obstacle_turns(s, p);
    if (contact_work)
        for (int I = 0; I < s->nn; ++I) {
            double dg[12], Kc[144], diss = 0, wob = 0, *ff = s->cf ? s->cf + 3 * I : NULL;
            ph_contact_force(s, I, 1, dg, Kc, ff, &diss, &wob);
            D += diss, W += wob;
            Wround += 4 * fabs(wob); /* (a product of two differences: a few roundings of its own size) */
            if (turning) { /* F·Δx + F·Σ c_k Δd_k + ΔV + D_f, a sum that cancels: roundings of its terms' size */
                const double *a = s->q1 + 12 * I, *b = s->q + 12 * I;
                double fx = 0, dx = 0, fd = 0, dd = 0;
                for (int c = 0; c < 3; ++c) fx += dg[c] * dg[c], dx += (a[c] - b[c]) * (a[c] - b[c]);
                for (int c = 3; c < 12; ++c) fd += dg[c] * dg[c], dd += (a[c] - b[c]) * (a[c] - b[c]);
                Wround += 4 * (sqrt(fx) * sqrt(dx) + sqrt(fd) * sqrt(dd));
            }
        }
    if (!fused)
        for (int I = 0; I < s->nn; ++I) finish_node(s, I, h, inertia, 0);
    s->t += h;
    const double H1 =
        fused ? (0.5 * s->w * T + s->w * E) + ph_contact_energy(s, s->q)
              : ph_kinetic_energy(s, s->v) + ph_elastic_energy(s, s->sig_el, s->sig_br) + ph_contact_energy(s, s->q);
    s->work_ext += W;
    s->dissipated += D;
    s->energy_balance = H1 - H0 - W + D;
    s->work_roundoff += DBL_EPSILON * Wround;
    s->have_eps = 1, s->H = H1, s->have_H = 1;
    s->have_pred = pred, s->pred_h = h;
    s->have_sigmax = fused, s->sig_max = smax;
}

cr_status cr_ph_solve_static(cr_ph *s, const cr_ph_loads *loads, int *iterations, double *residual, cr_error *err)
{
    if (iterations) *iterations = 0;
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    ph_begin(s, PH_STATIC, s->p.h);
    if (s->cpair) ph_static_friction_predictor(s, s->X);
    double rn = 0;
    cr_status st = newton(s, PH_STATIC, loads, iterations, &rn, err);
    if (residual) *residual = rn;
    if (st == CR_OK) {
        ph_clamp_reactions(s, PH_STATIC, loads);
        ph_static_finish(s);
    }
    cr_fpmode_restore(fp);
    return st;
}

void ph_static_finish(cr_ph *s)
{
    ph_state_changed(s); /* (a step after it recomputes eps(q_n), H_n and its predictor) */
    /* the change of this solve, for the next one's predictor (rigid stresses: the previous ones are
       sig_el's rigid components, overwritten below) */
    for (int k = 0; k < 12 * s->nn; ++k) s->dq_static[k] = s->q1[k] - s->q[k];
    for (int gp = 0; gp < s->ng; ++gp)
        for (int sl = 0; sl < s->nr; ++sl)
            s->dsig_static[gp * s->nr + sl] = s->sig1[gp * s->nr + sl] - s->sig_el[6 * gp + s->rigid_comp[sl]];
    s->have_static = 1;
    memcpy(s->q, s->q1, sizeof(double) * 12 * s->nn);
    memcpy(s->lam, s->lam1, sizeof(double) * 6 * s->nn);
    memset(s->v, 0, sizeof(double) * 12 * s->nn);
    memset(s->vmid, 0, sizeof(double) * 12 * s->nn);
    if (s->nb) memset(s->sig_br, 0, sizeof(double) * 6 * s->ng * s->nb);
    for (int e = 0; e < s->ne; ++e)
        for (int g = 0; g < 2; ++g) {
            int gp = 2 * e + g;
            double q1[12] = {0}, q1s[12] = {0}, eps1[6];
            for (int a = 0; a < 3; ++a) {
                const double *qa = s->q + 12 * (2 * e + a);
                for (int k = 0; k < 12; ++k) q1[k] += s->N[g][a] * qa[k], q1s[k] += s->dN[g][a] * qa[k];
            }
            ph_strain(q1, q1s, eps1);
            for (int j = 0; j < 6; ++j)
                s->sig_el[6 * gp + j] = s->rigid_slot[j] >= 0 ? s->sig1[gp * s->nr + s->rigid_slot[j]]
                                                              : s->k_el[j] * (eps1[j] - s->eps0[6 * gp + j]);
        }
}

void cr_ph_static_predictor(cr_ph *s, double ratio) { s->static_ratio = ratio; }
