/* Port-Hamiltonian rod: Newton on X = (q_{n+1}, lambda_{n+1/2}, rigid sigma) with the
 * convergence test of spec §6, the midpoint step and the static solve. The linear systems
 * are solved in ph_linear.c. */
#include "ph/ph.h"

#include <float.h>
#include <math.h>
#include <string.h>

double ph_mid_stress(const cr_ph *s, int gp, int j, double de, double h, double *kappa);

static double norm2(const double *x, int n)
{
    double a = 0;
    for (int i = 0; i < n; ++i) a += x[i] * x[i];
    return sqrt(a);
}

static int all_finite(const double *x, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* Newton from s->X (set by ph_begin), modified where that pays: the factorization of the last Jacobian
 * is kept while it contracts the residual by at least PH_CONTRACTION per iteration; otherwise (and at
 * the first iterate of every step or static solve) the Jacobian is assembled and factored afresh at the
 * current iterate, after undoing an update that increased the residual.
 *
 * Convergence (spec §6 "Convergence test"): |r| <= atol, or an increment |dX| <= 1e-8 (1 + |X|) (the
 * residual's round-off floor can sit above atol). After that the iteration goes on to round-off, as a
 * converged solution must for the exact discrete energy balance and constraints: an update made with a
 * Jacobian assembled at that iterate takes it from ~atol to round-off (quadratic convergence) and ends
 * the iteration; an update with a kept factorization only contracts, so those continue until the
 * increment is at round-off (|dX| <= 1e-14 (1 + |X|), the next one ~1e-15) or stops shrinking. Without these last updates the
 * orthonormality and inextensibility errors of a step would sit at ~atol instead of ~1e-15. */
#define PH_CONTRACTION 0.1 /* a fresh Jacobian costs ~8 kept-factorization iterations (bench_ph) */
#define PH_TAIL 1e-14       /* |dX| / (1 + |X|) at which the contracting tail stops (the next is ~1e-15) */

static cr_status newton(cr_ph *s, int mode, const cr_ph_loads *loads, int *iterations, double *residual,
                        cr_error *err)
{
    const int n = s->nx;
    int it = 0, near = 0, kept = 0; /* kept: the last update used a factorization from an earlier iterate */
    double rn = 0, rprev = INFINITY, dprev = INFINITY;
    s->fact_ok = 0; /* every step starts from a fresh Jacobian: a resumed run repeats the original bit for bit */
    for (;;) {
        int jac = !s->fact_ok;
        ph_assemble(s, mode, loads, s->X, s->r, jac);
        rn = norm2(s->r, n);
        if (!jac && !near && !(rn <= PH_CONTRACTION * rprev)) {
            /* the kept factorization contracts too slowly (or the update went uphill): a fresh Jacobian */
            if (kept && !(rn <= rprev))
                for (int i = 0; i < n; ++i) s->X[i] -= s->dX[i];
            jac = 1;
            ph_assemble(s, mode, loads, s->X, s->r, 1);
            rn = norm2(s->r, n);
        }
        if (!isfinite(rn)) {
            if (iterations) *iterations = it;
            if (residual) *residual = rn;
            return cr_error_set(err, CR_NONFINITE, "ph: residual not finite at t = %g after %d Newton iterations",
                                s->t, it);
        }
        if (rn <= s->p.newton_atol) {
            if (it == 0) break;
            near = 1;
        } else if (it >= s->p.max_iterations) {
            if (iterations) *iterations = it;
            if (residual) *residual = rn;
            return cr_error_set(err, CR_NOT_CONVERGED,
                                "ph: Newton did not converge at t = %g (h = %g) in %d iterations, residual %.3e > "
                                "newton_atol %.3e",
                                s->t, s->h, it, rn, s->p.newton_atol);
        }
        if (jac) {
            int bad = 0;
            s->jacobians++;
            if (ph_linear_factor(s, &bad) != CR_OK) {
                if (iterations) *iterations = it;
                if (residual) *residual = rn;
                return cr_error_set(err, CR_SINGULAR,
                                    "ph: singular Newton matrix at t = %g (unknown %d), residual %.3e; a free rod needs "
                                    "inertia, a static solve a clamp",
                                    s->t, bad, rn);
            }
            s->factorizations++;
        }
        ph_linear_apply(s, s->r, s->dX);
        kept = !jac;
        for (int i = 0; i < n; ++i) s->X[i] += s->dX[i];
        ++it;
        s->iterations++;
        if (!all_finite(s->X, n)) {
            if (iterations) *iterations = it;
            if (residual) *residual = rn;
            return cr_error_set(err, CR_NONFINITE, "ph: Newton iterate not finite at t = %g, residual %.3e", s->t, rn);
        }
        double dn = norm2(s->dX, n), xn = norm2(s->X, n);
        if (near && (jac || dn <= PH_TAIL * (1 + xn) || dn > 0.5 * dprev)) break;
        if (near && it >= s->p.max_iterations + 10) break; /* converged already; round-off does not settle */
        near |= dn <= 1e-8 * (1 + xn);
        rprev = rn;
        dprev = dn;
    }
    if (iterations) *iterations = it;
    if (residual) *residual = rn;
    return CR_OK;
}

cr_status cr_ph_step(cr_ph *s, double h, const cr_ph_loads *loads, int *iterations, cr_error *err)
{
    if (iterations) *iterations = 0;
    if (!(h > 0) || !isfinite(h)) return cr_error_set(err, CR_BAD_INPUT, "ph: step h = %g must be > 0", h);
    const double H0 = ph_kinetic_energy(s, s->v) + ph_elastic_energy(s, s->sig_el, s->sig_br);
    ph_begin(s, PH_DYNAMIC, h);
    cr_status st = newton(s, PH_DYNAMIC, loads, iterations, NULL, err);
    if (st != CR_OK) return st;
    /* final unpack and external forces at the converged X */
    ph_assemble(s, PH_DYNAMIC, loads, s->X, s->r, 0);

    /* W^ext_n = h yhat_{n+1/2}^T uhat_{n+1/2} = f_ext . (q_{n+1} - q_n) (spec §6) */
    double W = 0, Wround = 0;
    for (int k = 0; k < 12 * s->nn; ++k) {
        W += s->fext[k] * (s->q1[k] - s->q[k]);
        Wround += fabs(s->fext[k]) * (fabs(s->q1[k]) + fabs(s->q[k]));
    }
    /* stress update (spec §6 (C), §7) and dissipation D_n = h sum int sigma_mid V^-1 sigma_mid */
    const double *act = loads ? loads->actuation : NULL;
    double D = 0;
    for (int e = 0; e < s->ne; ++e)
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
        }
    /* v_{n+1} = 2 v_{n+1/2} - v_n with v_{n+1/2} = (q_{n+1} - q_n) / h (spec §6) */
    for (int k = 0; k < 12 * s->nn; ++k) {
        s->vmid[k] = (s->q1[k] - s->q[k]) / h;
        s->v[k] = 2 * s->vmid[k] - s->v[k];
        s->q[k] = s->q1[k];
    }
    memcpy(s->lam, s->lam1, sizeof(double) * 6 * s->nn);
    s->t += h;
    const double H1 = ph_kinetic_energy(s, s->v) + ph_elastic_energy(s, s->sig_el, s->sig_br);
    s->work_ext += W;
    s->dissipated += D;
    s->energy_balance = H1 - H0 - W + D;
    s->work_roundoff += DBL_EPSILON * Wround;
    return CR_OK;
}

cr_status cr_ph_solve_static(cr_ph *s, const cr_ph_loads *loads, int *iterations, double *residual, cr_error *err)
{
    if (iterations) *iterations = 0;
    ph_begin(s, PH_STATIC, s->p.h);
    double rn = 0;
    cr_status st = newton(s, PH_STATIC, loads, iterations, &rn, err);
    if (residual) *residual = rn;
    if (st != CR_OK) return st;
    ph_assemble(s, PH_STATIC, loads, s->X, s->r, 0);
    if (residual) *residual = norm2(s->r, s->nx);
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
    return CR_OK;
}
