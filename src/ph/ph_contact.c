/* Contact of the port-Hamiltonian rod's nodes with obstacles (docs/port-hamiltonian.md "Contact"):
 * planes (infinite or finite), spheres, cylinders, capsules and boxes, fixed or translating (at constant
 * rates, or driven by a table of poses or a time function: src/contact/motion.h).
 *
 * Each node I carries, per obstacle, the penalty V = psi(g) = 1/2 k_I min(0, g)^2 of its gap
 * g(y) = phi(y) - a_I, phi the obstacle's signed distance (src/contact/obstacle.c) at the node's
 * position y relative to the obstacle (y = phi_I - c(t), c(t) = v t + 1/2 a t^2 its translation). The
 * midpoint rule takes its force from a discrete gradient (Gonzalez 1996, J. Nonlinear Sci. 6) between
 * y_n and y_{n+1}, composed by the chain rule:
 *
 *   grad V(y0, y1) = D(g0, g1) G(y0, y1),   D = (psi(g1) - psi(g0)) / (g1 - g0),
 *   G = n(m) + [g1 - g0 - n(m) . d] d / |d|^2    (Gonzalez's discrete gradient of g),
 *
 * m = (y0 + y1)/2, d = y1 - y0, n = grad g. G . d = g1 - g0 exactly, so grad V . d = psi(g1) - psi(g0):
 * the work of the contact force over the step is the change of V, to round-off, whatever the shape.
 * D of the piecewise quadratic psi has a closed form free of cancellation (the plane's of old). Gonzalez's
 * formula applied to V itself would be a discrete gradient too, but on a step entering contact
 * (V(m) = 0) it is (V1 - V0) d / |d|^2, along the node's motion: a node gliding into a surface would be
 * braked along its path, frictionless contact acting as a drag. G is n(m) but for a term of the order of
 * the curvature times |d|, and exactly the plane's n. Where g is undefined at an end of the step (off
 * a finite plane's rectangle, V = 0 there) Gonzalez's formula on V is taken instead. */
#include "contact/contact.h"
#include "contact/motion.h"
#include "cosserat/contact.h"
#include "ph/ph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cr_vec3 vload(const double *p) { return cr_v3(p[0], p[1], p[2]); }

static cr_vec3 shift_at(const cr_ph *s, int p, double t)
{
    cr_obstacle_pose ps;
    cr_obstacle_path_at(&s->cpath[p], t, &ps);
    return ps.shift;
}

int ph_obstacle_turns(const cr_ph *s, int p) { return s->cmoving[p] && s->cpath[p].turns; }

cr_vec3 ph_obstacle_local(const cr_ph *s, int p, double t, cr_vec3 x)
{
    if (!s->cmoving[p]) return x;
    cr_obstacle_pose ps;
    cr_obstacle_path_at(&s->cpath[p], t, &ps);
    if (!s->cpath[p].turns) return cr_v3_sub(x, ps.shift); /* (as before turning obstacles: the same bits) */
    const cr_vec3 c = s->cob[p].center;
    return cr_v3_add(c, cr_m3_tmulv(ps.R, cr_v3_sub(cr_v3_sub(x, ps.shift), c)));
}

cr_mat3 ph_obstacle_rotation(const cr_ph *s, int p, double t)
{
    if (!ph_obstacle_turns(s, p)) return cr_m3_identity();
    cr_obstacle_pose ps;
    cr_obstacle_path_at(&s->cpath[p], t, &ps);
    return ps.R;
}

cr_vec3 ph_obstacle_surface_velocity(const cr_ph *s, int p, double t, cr_vec3 x)
{
    if (!s->cmoving[p]) return cr_v3(0, 0, 0);
    cr_obstacle_pose ps;
    cr_obstacle_path_at(&s->cpath[p], t, &ps);
    if (!s->cpath[p].turns) return ps.v;
    return cr_v3_add(ps.v, cr_v3_cross(ps.w, cr_v3_sub(x, cr_v3_add(s->cob[p].center, ps.shift))));
}

void ph_contact_free_paths(cr_ph *s)
{
    for (int p = 0; s->cpath && p < s->ncp; ++p) cr_obstacle_path_free(&s->cpath[p]);
    free(s->cpath);
    s->cpath = NULL;
}

int ph_contact_gap(const cr_ph *s, int p, cr_vec3 y, double a, double *g, double n[3], double H[9])
{
    const double *pl = s->cp + 4 * p;
    if (s->cplane[p]) { /* an infinite plane: g linear, as it always was (same operations, same bits) */
        *g = pl[0] * y.x + pl[1] * y.y + pl[2] * y.z - pl[3] - a;
        if (n) n[0] = pl[0], n[1] = pl[1], n[2] = pl[2];
        if (H) memset(H, 0, 9 * sizeof *H);
        return 1;
    }
    double phi;
    cr_vec3 nv;
    cr_mat3 Hm;
    int ok = cr_obstacle_distance(s->cob + p, y, &phi, &nv, H ? &Hm : NULL);
    *g = phi - a;
    if (n) n[0] = nv.x, n[1] = nv.y, n[2] = nv.z;
    if (H)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) H[3 * r + c] = Hm.m[r][c];
    return ok;
}

/* the discrete derivative D of psi(g) = 1/2 k min(0, g)^2 between g0 and g1 and dD/dg1 (dyn), or psi'(g1),
   psi''(g1) (statics): 1/2 k (g0 + g1) when both are negative (the midpoint's, exact for a quadratic), the
   quotient itself when the step enters or leaves (g0, g1 of opposite signs: no cancellation) */
static int discrete_derivative(double k, double g0, double g1, int dyn, double *D, double *dD)
{
    if (!(g0 < 0) && !(g1 < 0)) return 0;
    if (!dyn) {
        if (!(g1 < 0)) return 0;
        *D = k * g1, *dD = k;
    } else if (g0 < 0 && g1 < 0) {
        *D = 0.5 * k * (g0 + g1), *dD = 0.5 * k;
    } else if (g1 < 0) { /* entering: psi(g0) = 0 */
        double e = g1 - g0;
        *D = 0.5 * k * g1 * g1 / e, *dD = 0.5 * k * g1 * (g1 - 2 * g0) / (e * e);
    } else { /* leaving: psi(g1) = 0 */
        double e = g1 - g0;
        *D = -0.5 * k * g0 * g0 / e, *dD = 0.5 * k * g0 * g0 / (e * e);
    }
    return 1;
}

/* |d| below which Gonzalez's correction is dropped (G = n(m)): the gaps' round-off, eps times the
   coordinates' size, over |d| would exceed the correction itself (curvature x |d|) */
static int tiny_step(cr_vec3 d, cr_vec3 y1, double a)
{
    double scale = cr_v3_norm(y1) + a;
    return cr_v3_dot(d, d) <= 1e-12 * scale * scale;
}

/* The material coordinates of node I's contact point with obstacle p at the state q (12 values: the
 * position, d1, d2, d3) at time t: c = r - a n = r + sum_k c_k d_k with c_k = -a n . d_k, n the outward
 * normal at the node (in I). In the director formulation the surface point is then linear in the unknowns
 * (r, d_k) once the c_k are frozen: per step (dynamics, at t_n) or per anchor (statics, re-based at every
 * multiplier update). 0 where the gap is undefined (off a finite plane): c = 0. */
int ph_contact_coeffs(const cr_ph *s, int I, int p, double t, const double *q, double c[3])
{
    double g, n[3];
    c[0] = c[1] = c[2] = 0;
    if (s->friction_centre) return 1;
    if (!ph_contact_gap(s, p, ph_obstacle_local(s, p, t, vload(q)), s->ca[I], &g, n, NULL)) return 0;
    const cr_vec3 nw = cr_m3_mulv(ph_obstacle_rotation(s, p, t), vload(n));
    for (int k = 0; k < 3; ++k) c[k] = -s->ca[I] * cr_v3_dot(nw, vload(q + 3 + 3 * k));
    return 1;
}

/* sum_k c_k d_k (the directors of the 12 values q) in obstacle p's frame at t: the contact point's offset
   from the node there */
cr_vec3 ph_contact_offset(const cr_ph *s, int p, double t, const double c[3], const double *q)
{
    cr_vec3 w = cr_v3(0, 0, 0);
    for (int k = 0; k < 3; ++k) w = cr_v3_madd(w, c[k], vload(q + 3 + 3 * k));
    return ph_obstacle_turns(s, p) ? cr_m3_tmulv(ph_obstacle_rotation(s, p, t), w) : w;
}

/* The last midpoint velocity of node I's contact point (contact.rolling) relative to obstacle p's material
 * point there, in the obstacle's frame: v_c = v + sum_k c_k v_dk (c_k at t_n) less the obstacle's surface velocity at the
 * step's midpoint, in time and place (t_n - h/2, x_c - h v_c/2), turned by R(t_n - h/2)^T. At t_n instead
 * the surface's acceleration (omega^2 r on a turning board) put an error h omega^2 r / 2 on it, of the
 * order of stick_speed a few cm from the axis, where a rolling cord was then reported sliding. */
static void relative_velocity(const cr_ph *s, int I, int p, double vr[3])
{
    const double *q = s->q + 12 * I, *vm = s->vmid + 12 * I;
    if (s->friction_centre) { /* the centre law (the default): the surface's velocity at x_n, t_n, as always */
        const cr_vec3 vo = ph_obstacle_surface_velocity(s, p, s->t, vload(q));
        cr_vec3 r = cr_v3(vm[0] - vo.x, vm[1] - vo.y, vm[2] - vo.z);
        if (ph_obstacle_turns(s, p)) r = cr_m3_tmulv(ph_obstacle_rotation(s, p, s->t), r);
        vr[0] = r.x, vr[1] = r.y, vr[2] = r.z;
        return;
    }
    double c[3];
    ph_contact_coeffs(s, I, p, s->t, q, c);
    cr_vec3 xc = vload(q), vc = vload(vm);
    for (int k = 0; k < 3; ++k) {
        xc = cr_v3_madd(xc, c[k], vload(q + 3 + 3 * k));
        vc = cr_v3_madd(vc, c[k], vload(vm + 3 + 3 * k));
    }
    const double tm = s->t - 0.5 * s->h;
    cr_vec3 r = vc;
    if (s->cmoving[p]) {
        r = cr_v3_sub(vc, ph_obstacle_surface_velocity(s, p, tm, cr_v3_madd(xc, -0.5 * s->h, vc)));
        if (ph_obstacle_turns(s, p)) r = cr_m3_tmulv(ph_obstacle_rotation(s, p, tm), r);
    }
    vr[0] = r.x, vr[1] = r.y, vr[2] = r.z;
}

/* One obstacle's term for node I in the obstacle's own frame (y0, y1: the node there at t_n and
 * t_{n+1}; off: dynamics, the change of the contact point's offset from the node over the step, so that
 * the contact point's slip is y1 - y0 + off; statics, the offset at the state, so that the anchored point
 * is at y1 + off). Adds to
 * dg, Kc (with respect to y1), ff, *diss; f = the term's force on the node and *dV the change of its
 * spring's energy over the step; fr = the friction's part of dg (-F), Ky its derivative with respect to
 * y1 (in Kc too) and Ks with respect to the contact point's slip at fixed y1 (the directors' columns:
 * d slip / d d_k = c_k). */
static int term_local(const cr_ph *s, int I, int p, int dyn, cr_vec3 off, cr_vec3 y0, cr_vec3 y1, double dg[3],
                      double Kc[9], double ff[3], double *diss, double f[3], double *dV, double fr[3], double Ky[9],
                      double Ks[9])
{
    const double kI = s->ck[I], aI = s->ca[I];
    f[0] = f[1] = f[2] = 0, *dV = 0;
    memset(fr, 0, 3 * sizeof *fr), memset(Ky, 0, 9 * sizeof *Ky), memset(Ks, 0, 9 * sizeof *Ks);
    double g1, n1[3], H1[9];
    int ok1 = ph_contact_gap(s, p, y1, aI, &g1, n1, H1);
    if (!dyn) { /* statics: the gradient k g n and Hessian k (n n^T + g H) at the end point */
        if (!ok1) return 0;
        const cr_contact_pair *pr = s->cpair && s->cmu[2 * p] > 0 ? &s->cpair[(size_t)I * s->ncp + p] : NULL;
        /* an anchored node within the tolerance of touching counts as pressing (force 0, the spring's
           stiffness and the stick spring's): a rod laid on a surface, whose nodes sit at g = 0 to
           round-off, is held in every direction at the first Newton iteration (the mixed rod's choice) */
        const int held = pr && pr->anchored;
        if (!(g1 < 0) && !(held && g1 <= s->ctol)) return 0;
        if (g1 < 0)
            for (int c = 0; c < 3; ++c) {
                dg[c] += kI * g1 * n1[c], f[c] = -kI * g1 * n1[c];
                for (int e = 0; e < 3; ++e) Kc[3 * c + e] += kI * (n1[c] * n1[e] + g1 * H1[3 * c + e]);
            }
        else
            for (int c = 0; c < 3; ++c)
                for (int e = 0; e < 3; ++e) Kc[3 * c + e] += kI * n1[c] * n1[e];
        if (held) { /* static friction: the stick spring from the anchor, at most mu_s N (N = -k g) */
            const double mu = s->cmu[2 * p], N = g1 < 0 ? -kI * g1 : 0.0;
            const cr_vec3 n = vload(n1);
            cr_mat3 H, Kt;
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) H.m[r][c] = H1[3 * r + c];
            /* the anchored material point's displacement y1 + off - X (at the contact point: its friction
               moment is the directors' rows); Ks = d f / d slip at fixed n and limit (the directors' columns) */
            const cr_vec3 dl = cr_v3_sub(cr_v3_add(y1, off), pr->anchor);
            cr_vec3 ft;
            cr_mat3 Kd;
            cr_contact_stick_force(n, &H, kI, mu * N, cr_v3_scale(n, -mu * kI), dl, pr->lambda_t, &ft, &Kt, NULL);
            cr_contact_stick_force(n, NULL, kI, mu * N, cr_v3(0, 0, 0), dl, pr->lambda_t, &ft, &Kd, NULL);
            const double fv[3] = {ft.x, ft.y, ft.z};
            for (int c = 0; c < 3; ++c) {
                dg[c] -= fv[c], f[c] += fv[c], fr[c] = -fv[c];
                if (ff) ff[c] += fv[c];
                for (int e = 0; e < 3; ++e)
                    Kc[3 * c + e] -= Kt.m[c][e], Ky[3 * c + e] = -Kt.m[c][e], Ks[3 * c + e] = -Kd.m[c][e];
            }
        }
        return 1;
    }
    double g0, n0[3];
    int ok0 = ph_contact_gap(s, p, y0, aI, &g0, n0, NULL);
    if (!(ok0 && g0 < 0) && !(ok1 && g1 < 0)) return 0;
    const cr_vec3 dv = cr_v3_sub(y1, y0), ym = cr_v3_scale(cr_v3_add(y0, y1), 0.5);
    const double d[3] = {dv.x, dv.y, dv.z}, d2 = cr_v3_dot(dv, dv);
    const int tiny = tiny_step(dv, y1, aI);
    double gm, nm[3], Hm[9];
    int okm = ph_contact_gap(s, p, ym, aI, &gm, nm, Hm);
    if (!ok0 || !ok1) {
        /* g undefined at an end (off a finite plane): Gonzalez on V itself, with V = 0 there,
           grad V = k min(0, g) n and its Hessian k (n n^T + g H) inside */
        double V0 = ok0 && g0 < 0 ? 0.5 * kI * g0 * g0 : 0, V1 = ok1 && g1 < 0 ? 0.5 * kI * g1 * g1 : 0;
        double Vm[3] = {0, 0, 0}, HV[9] = {0}, V1g[3] = {0, 0, 0};
        if (okm && gm < 0)
            for (int c = 0; c < 3; ++c) {
                Vm[c] = kI * gm * nm[c];
                for (int e = 0; e < 3; ++e) HV[3 * c + e] = kI * (nm[c] * nm[e] + gm * Hm[3 * c + e]);
            }
        if (ok1 && g1 < 0)
            for (int c = 0; c < 3; ++c) V1g[c] = kI * g1 * n1[c];
        double cV = 0, w[3] = {0, 0, 0};
        if (!tiny) {
            cV = (V1 - V0 - (Vm[0] * d[0] + Vm[1] * d[1] + Vm[2] * d[2])) / d2;
            for (int c = 0; c < 3; ++c) {
                double hd = 0;
                for (int e = 0; e < 3; ++e) hd += HV[3 * c + e] * d[e];
                w[c] = (V1g[c] - Vm[c] - 0.5 * hd - 2 * cV * d[c]) / d2;
            }
        }
        for (int c = 0; c < 3; ++c) {
            double G = Vm[c] + cV * d[c];
            dg[c] += G, f[c] = -G;
            for (int e = 0; e < 3; ++e) Kc[3 * c + e] += 0.5 * HV[3 * c + e] + cV * (c == e) + d[c] * w[e];
        }
        *dV = V1 - V0;
        return 1; /* (no friction on such a step: the node crosses the rectangle's edge) */
    }
    double D = 0, dD = 0;
    discrete_derivative(kI, g0, g1, 1, &D, &dD);
    *dV = 0.5 * kI * (fmin(g1, 0) * fmin(g1, 0) - fmin(g0, 0) * fmin(g0, 0));
    /* G = n(m) + cg d and dG/dy1 = 1/2 H(m) + cg E + d w^T, w = (n1 - n(m) - 1/2 H(m) d - 2 cg d) / |d|^2 */
    double G[3], dG[9], cg = 0, w[3] = {0, 0, 0};
    const int flat = s->cplane[p];
    if (!flat && !tiny) {
        cg = (g1 - g0 - (nm[0] * d[0] + nm[1] * d[1] + nm[2] * d[2])) / d2;
        for (int c = 0; c < 3; ++c) {
            double hd = 0;
            for (int e = 0; e < 3; ++e) hd += Hm[3 * c + e] * d[e];
            w[c] = (n1[c] - nm[c] - 0.5 * hd - 2 * cg * d[c]) / d2;
        }
    }
    for (int c = 0; c < 3; ++c) {
        G[c] = nm[c] + cg * d[c];
        for (int e = 0; e < 3; ++e) dG[3 * c + e] = flat ? 0 : 0.5 * Hm[3 * c + e] + cg * (c == e) + d[c] * w[e];
    }
    /* the spring: D G, d/dy1 = G (dD n1)^T + D dG */
    for (int c = 0; c < 3; ++c) {
        dg[c] += D * G[c], f[c] = -D * G[c];
        for (int e = 0; e < 3; ++e) Kc[3 * c + e] += dD * G[c] * n1[e] + D * dG[3 * c + e];
    }
    if (s->cmu && s->cmu[2 * p] > 0 && D < 0) {
        /* friction at the contact point: its slip over the step sl = d + off relative to the obstacle
           (the material point that touched at t_n, c frozen), t = P sl = h v_t with P = E - n n^T at
           n = n(m) (a plane's n); mu_k after a sliding step (the last midpoint velocity of the contact
           point, relative to the obstacle and at the node's normal, faster than eps), else mu_s */
        const double h = s->h, eps = s->stick_speed;
        double vn = 0, w2 = 0, vr[3];
        relative_velocity(s, I, p, vr); /* (only where friction acts: the node touches) */
        for (int c = 0; c < 3; ++c) vn += n0[c] * vr[c];
        for (int c = 0; c < 3; ++c) w2 += (vr[c] - vn * n0[c]) * (vr[c] - vn * n0[c]);
        const double mu = w2 > eps * eps ? s->cmu[2 * p + 1] : s->cmu[2 * p];
        const double sl[3] = {d[0] + off.x, d[1] + off.y, d[2] + off.z};
        double dn = 0, t[3], u2 = 0;
        for (int c = 0; c < 3; ++c) dn += nm[c] * sl[c];
        for (int c = 0; c < 3; ++c) t[c] = sl[c] - dn * nm[c], u2 += t[c] * t[c];
        const double u = sqrt(u2) / h, N = -D, m = fmax(u, eps) * h, cN = mu * N / m;
        /* dt/dy1 = T = P - (n . sl) Nn - n (Nn sl)^T with Nn = dn(m)/dy1 = 1/2 H(m) (0 for a plane);
           dt/dsl = P */
        double T[9], Nd[3] = {0, 0, 0};
        for (int c = 0; c < 3; ++c)
            for (int e = 0; e < 3; ++e) Nd[c] += flat ? 0 : 0.5 * Hm[3 * c + e] * sl[e];
        for (int c = 0; c < 3; ++c)
            for (int e = 0; e < 3; ++e)
                T[3 * c + e] = (c == e) - nm[c] * nm[e] - (flat ? 0 : dn * 0.5 * Hm[3 * c + e] + nm[c] * Nd[e]);
        /* tT = t^T T (beyond the ramp |F| = mu N is constant along t: -cN t (t^T T) / |t|^2) */
        double tT[3] = {0, 0, 0};
        for (int e = 0; e < 3; ++e)
            for (int c = 0; c < 3; ++c) tT[e] += t[c] * T[3 * c + e];
        const double cD = -mu * dD / m;
        double fdiss = 0;
        for (int c = 0; c < 3; ++c) {
            dg[c] += cN * t[c], f[c] -= cN * t[c], fr[c] = cN * t[c];
            if (ff) ff[c] -= cN * t[c];
            fdiss += cN * t[c] * sl[c]; /* -F . sl = cN |t|^2 >= 0 */
            for (int e = 0; e < 3; ++e) {
                double v = cD * t[c] * n1[e] + cN * T[3 * c + e];
                double vs = cN * ((c == e) - nm[c] * nm[e]);
                if (u > eps) v -= cN * t[c] * tT[e] / u2, vs -= cN * t[c] * t[e] / u2;
                Kc[3 * c + e] += v, Ky[3 * c + e] = v, Ks[3 * c + e] = vs;
            }
        }
        if (diss) *diss += fdiss;
    }
    return 1;
}

/* ... in I, as the node's 12 rows and columns (position, d1, d2, d3): the friction F acts at the contact
 * point r + sum_k c_k d_k, so the directors' rows get c_k F (its moment (c - r) x F: the power
 * F . (v + sum_k c_k d_k') = F . v + ((c - r) x F) . w) and its slip's columns c_k (the Jacobian with
 * respect to slip, Ks, times c_k). For a turning obstacle the terms are in its frame turned by its
 * rotation at the step's midpoint R_m (the node's Jacobian by R_{n+1}^T on the right: y_{n+1} =
 * R_{n+1}^T(...)), and the obstacle's work is whatever the node's forces do beyond the spring's energy
 * and the friction's dissipation, f . dx + F . sum_k c_k dd_k + dV + D: the step's balance exact as for
 * one that translates, whose work is f . dc (the same, to round-off). Adds to dg, Kc, ff, *diss, *wob. */
static int obstacle_term(const cr_ph *s, int I, int p, int dyn, double dg[12], double Kc[144], double ff[3],
                         double *diss, double *wob)
{
    const double t0 = s->t, t1 = dyn ? s->t + s->h : s->t;
    const int mv = s->cmoving[p], turn = ph_obstacle_turns(s, p);
    const double *q1 = s->q1 + 12 * I, *q0 = dyn ? s->q + 12 * I : q1;
    const cr_vec3 x1 = vload(q1), x0 = vload(q0);
    const cr_vec3 y1 = ph_obstacle_local(s, p, t1, x1), y0 = dyn ? ph_obstacle_local(s, p, t0, x0) : y1;
    /* the contact point's coordinates c: frozen at t_n in a step (the material point that touched then:
       the anchor re-based every step), the anchor's own in statics */
    double c[3] = {0, 0, 0};
    cr_vec3 off = cr_v3(0, 0, 0);
    if (s->cmu && s->cmu[2 * p] > 0) {
        if (dyn) {
            ph_contact_coeffs(s, I, p, t0, q0, c);
            off = cr_v3_sub(ph_contact_offset(s, p, t1, c, q1), ph_contact_offset(s, p, t0, c, q0));
        } else if (s->cpair && s->cpair[(size_t)I * s->ncp + p].anchored) {
            memcpy(c, s->cpc + 3 * ((size_t)I * s->ncp + p), sizeof c);
            off = ph_contact_offset(s, p, t1, c, q1);
        }
    }
    double f[3], dV, bdg[3] = {0, 0, 0}, bK[9] = {0}, bff[3] = {0, 0, 0}, bdiss = 0, fr[3], Ky[9], Ks[9];
    if (!term_local(s, I, p, dyn, off, y0, y1, bdg, bK, ff ? bff : NULL, &bdiss, f, &dV, fr, Ky, Ks)) return 0;
    const int fric = c[0] != 0 || c[1] != 0 || c[2] != 0;
    if (diss) *diss += bdiss;
    if (!turn) {
        for (int r = 0; r < 3; ++r) {
            dg[r] += bdg[r];
            if (ff) ff[r] += bff[r];
            for (int e = 0; e < 3; ++e) Kc[12 * r + e] += bK[3 * r + e];
        }
        if (fric)
            for (int k = 0; k < 3; ++k)
                for (int r = 0; r < 3; ++r) {
                    dg[3 + 3 * k + r] += c[k] * fr[r];
                    for (int e = 0; e < 3; ++e) {
                        Kc[12 * (3 + 3 * k + r) + e] += c[k] * Ky[3 * r + e];
                        Kc[12 * r + 3 + 3 * k + e] += c[k] * Ks[3 * r + e];
                        for (int j = 0; j < 3; ++j)
                            Kc[12 * (3 + 3 * k + r) + 3 + 3 * j + e] += c[k] * c[j] * Ks[3 * r + e];
                    }
                }
        if (wob && mv && dyn) {
            const cr_vec3 c1 = shift_at(s, p, t1), c0 = shift_at(s, p, t0);
            *wob += f[0] * (c1.x - c0.x) + f[1] * (c1.y - c0.y) + f[2] * (c1.z - c0.z);
        }
        return 1;
    }
    const cr_mat3 Rm = ph_obstacle_rotation(s, p, dyn ? t0 + 0.5 * s->h : t1), R1 = ph_obstacle_rotation(s, p, t1);
    const cr_vec3 fw = cr_m3_mulv(Rm, cr_v3(f[0], f[1], f[2])), gw = cr_m3_mulv(Rm, cr_v3(bdg[0], bdg[1], bdg[2])),
                  tw = cr_m3_mulv(Rm, cr_v3(bff[0], bff[1], bff[2])), rw = cr_m3_mulv(Rm, vload(fr));
    dg[0] += gw.x, dg[1] += gw.y, dg[2] += gw.z;
    if (ff) ff[0] += tw.x, ff[1] += tw.y, ff[2] += tw.z;
    /* Rm K R1^T of the spring's and friction's y-block, the friction's alone and its slip block */
    double RK[3][9] = {{0}}, W[3][9] = {{0}};
    const double *B[3] = {bK, Ky, Ks};
    for (int b = 0; b < 3; ++b)
        for (int r = 0; r < 3; ++r)
            for (int e = 0; e < 3; ++e)
                for (int k = 0; k < 3; ++k) RK[b][3 * r + e] += Rm.m[r][k] * B[b][3 * k + e];
    for (int b = 0; b < 3; ++b)
        for (int r = 0; r < 3; ++r)
            for (int e = 0; e < 3; ++e)
                for (int k = 0; k < 3; ++k) W[b][3 * r + e] += RK[b][3 * r + k] * R1.m[e][k];
    for (int r = 0; r < 3; ++r)
        for (int e = 0; e < 3; ++e) Kc[12 * r + e] += W[0][3 * r + e];
    double wd = 0; /* the friction's work over the directors' step, F . sum_k c_k dd_k */
    if (fric)
        for (int k = 0; k < 3; ++k) {
            const double rv[3] = {rw.x, rw.y, rw.z};
            for (int r = 0; r < 3; ++r) {
                dg[3 + 3 * k + r] += c[k] * rv[r];
                wd -= c[k] * rv[r] * (q1[3 + 3 * k + r] - q0[3 + 3 * k + r]);
                for (int e = 0; e < 3; ++e) {
                    Kc[12 * (3 + 3 * k + r) + e] += c[k] * W[1][3 * r + e];
                    Kc[12 * r + 3 + 3 * k + e] += c[k] * W[2][3 * r + e];
                    for (int j = 0; j < 3; ++j)
                        Kc[12 * (3 + 3 * k + r) + 3 + 3 * j + e] += c[k] * c[j] * W[2][3 * r + e];
                }
            }
        }
    if (wob && dyn) *wob += fw.x * (x1.x - x0.x) + fw.y * (x1.y - x0.y) + fw.z * (x1.z - x0.z) + wd + dV + bdiss;
    return 1;
}

int ph_contact_force(const cr_ph *s, int I, int dyn, double dg[12], double Kc[144], double ff[3], double *diss,
                     double *wob)
{
    int any = 0;
    memset(dg, 0, 12 * sizeof *dg), memset(Kc, 0, 144 * sizeof *Kc);
    if (ff) ff[0] = ff[1] = ff[2] = 0;
    if (diss) *diss = 0;
    if (wob) *wob = 0;
    for (int p = 0; p < s->ncp; ++p) any |= obstacle_term(s, I, p, dyn, dg, Kc, ff, diss, wob);
    return any;
}

double ph_contact_energy(const cr_ph *s, const double *q)
{
    double V = 0;
    for (int p = 0; p < s->ncp; ++p) {
        for (int I = 0; I < s->nn; ++I) {
            double g;
            if (ph_contact_gap(s, p, ph_obstacle_local(s, p, s->t, vload(q + 12 * I)), s->ca[I], &g, NULL, NULL) &&
                g < 0)
                V += 0.5 * s->ck[I] * g * g;
        }
    }
    return V;
}

int ph_contact_touching(const cr_ph *s)
{
    for (int p = 0; p < s->ncp; ++p)
        for (int I = 0; I < s->nn; ++I)
            for (int k = 0; k < 2; ++k) {
                const double *q = (k ? s->q1 : s->q) + 12 * I;
                double g;
                if (ph_contact_gap(s, p, ph_obstacle_local(s, p, s->t, vload(q)), s->ca[I], &g, NULL, NULL) && g < 0)
                    return 1;
            }
    return 0;
}

int cr_ph_contact_node(const cr_ph *s, int node, cr_vec3 *force, double *normal, double *gap)
{
    cr_vec3 f = cr_v3(0, 0, 0);
    double gmin = INFINITY, N = 0;
    int slide = 0;
    const double eps = s->stick_speed;
    for (int p = 0; p < s->ncp; ++p) {
        const cr_vec3 x = vload(s->q + 12 * node);
        double g, n[3];
        if (!ph_contact_gap(s, p, ph_obstacle_local(s, p, s->t, x), s->ca[node], &g, n, NULL)) continue;
        gmin = fmin(gmin, g);
        if (!(g < 0)) continue;
        if (s->cmu && s->cmu[2 * p] > 0) { /* sliding: as the next step's choice of mu (ph_contact_force), the
                                              contact point's last midpoint velocity relative to the obstacle */
            double vr[3];
            relative_velocity(s, node, p, vr);
            double vn = n[0] * vr[0] + n[1] * vr[1] + n[2] * vr[2], w2 = 0;
            for (int k = 0; k < 3; ++k) w2 += (vr[k] - vn * n[k]) * (vr[k] - vn * n[k]);
            slide |= w2 > eps * eps;
            /* statics: a pair at the Coulomb limit at the last multiplier update */
            if (s->cpair)
                slide |= s->cpair[(size_t)node * s->ncp + p].anchored && s->cpair[(size_t)node * s->ncp + p].sliding;
        }
        if (ph_obstacle_turns(s, p)) { /* the normal in I */
            const cr_vec3 nw = cr_m3_mulv(ph_obstacle_rotation(s, p, s->t), vload(n));
            n[0] = nw.x, n[1] = nw.y, n[2] = nw.z;
        }
        f = cr_v3_madd(f, -s->ck[node] * g, vload(n));
        N += -s->ck[node] * g;
    }
    if (s->cf && gmin < 0) f = cr_v3_add(f, vload(s->cf + 3 * node));
    if (force) *force = f;
    if (normal) *normal = N;
    if (gap) *gap = gmin;
    return gmin < 0 ? 1 + slide : 0;
}

cr_status cr_ph_set_obstacles(cr_ph *s, int count, const cr_obstacle_def *obstacles, const double *radius,
                              const double *stiffness, cr_error *err)
{
    if (count < 0) return cr_error_set(err, CR_BAD_INPUT, "ph contact: %d obstacles", count);
    for (int I = 0; count > 0 && I < s->nn; ++I)
        if (!(radius[I] >= 0) || !isfinite(radius[I]) || !(stiffness[I] >= 0) || !isfinite(stiffness[I]))
            return cr_error_set(err, CR_BAD_INPUT, "ph contact: node %d: radius %g, stiffness %g (need finite >= 0)", I,
                                radius[I], stiffness[I]);
    double *cp = count ? malloc(sizeof(double) * 4 * count) : NULL;
    double *ck = count ? malloc(sizeof(double) * s->nn) : NULL, *ca = count ? malloc(sizeof(double) * s->nn) : NULL;
    cr_obstacle_def *cob = count ? malloc(sizeof *cob * count) : NULL;
    int *flags = count ? malloc(sizeof(int) * 2 * count) : NULL;
    cr_obstacle_path *path = count ? calloc((size_t)count, sizeof *path) : NULL;
    if (count && (!cp || !ck || !ca || !cob || !flags || !path)) {
        free(cp), free(ck), free(ca), free(cob), free(flags), free(path);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the ph contact");
    }
    for (int p = 0; p < count; ++p) {
        cr_status st = cr_obstacle_path_init(&path[p], &obstacles[p], p, err);
        if (st != CR_OK) {
            for (int q = 0; q < p; ++q) cr_obstacle_path_free(&path[q]);
            free(cp), free(ck), free(ca), free(cob), free(flags), free(path);
            return st;
        }
    }
    for (int p = 0; p < count; ++p) {
        const cr_obstacle_def *o = obstacles + p;
        cob[p] = *o;
        cob[p].motion = NULL, cob[p].time = NULL; /* the paths hold their own copies */
        flags[p] = o->type == CR_OBSTACLE_PLANE && !isfinite(o->half_extents.x) && !isfinite(o->half_extents.y);
        flags[count + p] = path[p].moves;
        /* a plane's unit normal n and offset n . p (g = n . y - o - a, as always) */
        cr_vec3 n = cr_m3_column(o->axes, 2);
        double nn = cr_v3_norm(n);
        if (flags[p] && (!(nn > 0) || !isfinite(nn) || !isfinite(cr_v3_dot(n, o->center)))) {
            for (int q = 0; q < count; ++q) cr_obstacle_path_free(&path[q]);
            free(cp), free(ck), free(ca), free(cob), free(flags), free(path);
            return cr_error_set(err, CR_BAD_INPUT, "ph contact: plane %d has no finite normal and point", p);
        }
        if (flags[p]) n = cr_v3_scale(n, 1.0 / nn);
        cp[4 * p] = n.x, cp[4 * p + 1] = n.y, cp[4 * p + 2] = n.z, cp[4 * p + 3] = cr_v3_dot(n, o->center);
    }
    if (count) memcpy(ck, stiffness, sizeof(double) * s->nn), memcpy(ca, radius, sizeof(double) * s->nn);
    ph_contact_free_paths(s);
    free(s->cp), free(s->ck), free(s->ca), free(s->cmu), free(s->cf), free(s->cob), free(s->cplane);
    free(s->cpair), free(s->cpc);
    s->cpair = NULL, s->cpc = NULL;
    s->ncp = count, s->cp = cp, s->ck = ck, s->ca = ca, s->cob = cob, s->cpath = path;
    s->cplane = flags, s->cmoving = flags ? flags + count : NULL, s->any_moving = 0;
    for (int p = 0; p < count; ++p) s->any_moving |= flags[count + p];
    s->cmu = NULL, s->cf = NULL, s->stick_speed = 0; /* the friction belonged to the obstacles replaced */
    ph_state_changed(s);                             /* H's contact energy */
    return CR_OK;
}

cr_status cr_ph_set_contact(cr_ph *s, int planes, const cr_vec3 *normal, const cr_vec3 *point, const double *radius,
                            const double *stiffness, cr_error *err)
{
    if (planes < 0) return cr_error_set(err, CR_BAD_INPUT, "ph contact: %d planes", planes);
    cr_obstacle_def *o = planes ? calloc(planes, sizeof *o) : NULL;
    if (planes && !o) return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the ph contact");
    for (int p = 0; p < planes; ++p) {
        double nn = cr_v3_norm(normal[p]);
        if (!(nn > 0) || !isfinite(nn) || !isfinite(cr_v3_dot(normal[p], point[p]))) {
            free(o);
            return cr_error_set(err, CR_BAD_INPUT, "ph contact: plane %d has no finite normal and point", p);
        }
        cr_vec3 n = cr_v3_scale(normal[p], 1.0 / nn);
        cr_vec3 e = fabs(n.x) < 0.9 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
        cr_vec3 ex = cr_v3_normalize(cr_v3_sub(e, cr_v3_scale(n, cr_v3_dot(e, n))));
        o[p].type = CR_OBSTACLE_PLANE;
        o[p].center = point[p];
        o[p].axes = cr_m3_columns(ex, cr_v3_cross(n, ex), n);
        o[p].half_extents = cr_v3(INFINITY, INFINITY, INFINITY);
    }
    cr_status st = cr_ph_set_obstacles(s, planes, o, radius, stiffness, err);
    if (st == CR_OK) /* the caller's normals, not the columns rebuilt from them (same bits as before) */
        for (int p = 0; p < planes; ++p) {
            cr_vec3 n = cr_v3_scale(normal[p], 1.0 / cr_v3_norm(normal[p]));
            double *cp = s->cp + 4 * p;
            cp[0] = n.x, cp[1] = n.y, cp[2] = n.z, cp[3] = cr_v3_dot(n, point[p]);
        }
    free(o);
    return st;
}

cr_status cr_ph_set_friction(cr_ph *s, const double *mu_static, const double *mu_kinetic, double stick_speed,
                             cr_error *err)
{
    int any = 0;
    for (int p = 0; mu_static && p < s->ncp; ++p) {
        double ms = mu_static[p], mk = mu_kinetic ? mu_kinetic[p] : ms;
        if (!(ms >= 0) || !isfinite(ms) || !(mk >= 0) || !(mk <= ms))
            return cr_error_set(err, CR_BAD_INPUT,
                                "ph friction: obstacle %d: mu_static %g, mu_kinetic %g (need finite "
                                "0 <= mu_kinetic <= mu_static)",
                                p, ms, mk);
        any |= ms > 0;
    }
    if (any && (!(stick_speed > 0) || !isfinite(stick_speed)))
        return cr_error_set(err, CR_BAD_INPUT, "ph friction: stick_speed %g must be finite and > 0", stick_speed);
    double *mu = any ? malloc(sizeof(double) * 2 * s->ncp) : NULL,
           *cf = any ? calloc(3 * (size_t)s->nn, sizeof(double)) : NULL;
    cr_contact_pair *pair = any ? calloc((size_t)s->nn * s->ncp, sizeof *pair) : NULL;
    double *cpc = any ? calloc(3 * (size_t)s->nn * s->ncp, sizeof(double)) : NULL;
    if (any && (!mu || !cf || !pair || !cpc)) {
        free(mu), free(cf), free(pair), free(cpc);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the ph friction");
    }
    for (int p = 0; any && p < s->ncp; ++p)
        mu[2 * p] = mu_static[p], mu[2 * p + 1] = mu_kinetic ? mu_kinetic[p] : mu_static[p];
    free(s->cmu), free(s->cf), free(s->cpair), free(s->cpc);
    s->cmu = mu, s->cf = cf, s->cpair = pair, s->cpc = cpc, s->stick_speed = any ? stick_speed : 0;
    ph_state_changed(s); /* (the finish's predictor is the frictionless one) */
    return CR_OK;
}

/* ---- static friction: the stick anchors and multipliers (docs/port-hamiltonian.md "Friction") ---- */

/* node I's position in obstacle p's frame and its gap there (0: off a finite plane) */
static int pair_gap(const cr_ph *s, int I, int p, cr_vec3 *y, double *g, double n[3], double H[9])
{
    *y = ph_obstacle_local(s, p, s->t, vload(s->q + 12 * (size_t)I));
    return ph_contact_gap(s, p, *y, s->ca[I], g, n, H);
}

/* anchors pair (I, p) at its contact point at the state, less the stick displacement dl carried over (0
   for a new anchor or a sliding pair): the material point now touching, its coordinates c re-based */
static void anchor_at(cr_ph *s, int I, int p, cr_contact_pair *pr, cr_vec3 y, cr_vec3 dl)
{
    double *c = s->cpc + 3 * ((size_t)I * s->ncp + p);
    ph_contact_coeffs(s, I, p, s->t, s->q + 12 * (size_t)I, c);
    pr->anchor = cr_v3_sub(cr_v3_add(y, ph_contact_offset(s, p, s->t, c, s->q + 12 * (size_t)I)), dl);
}

int ph_static_friction_begin(cr_ph *s, double tol)
{
    int anchored = 0;
    s->ctol = tol;
    for (int I = 0; s->cpair && I < s->nn; ++I)
        for (int p = 0; p < s->ncp; ++p) {
            cr_contact_pair *pr = &s->cpair[(size_t)I * s->ncp + p];
            cr_vec3 y;
            double g;
            if (pr->anchored) {
                ++anchored;
                continue;
            }
            if (!(s->cmu[2 * p] > 0) || !pair_gap(s, I, p, &y, &g, NULL, NULL) || !(g <= tol)) continue;
            pr->anchored = 1, pr->lambda_t = cr_v3(0, 0, 0), pr->lambda_n = 0, pr->sliding = 0;
            anchor_at(s, I, p, pr, y, cr_v3(0, 0, 0));
            ++anchored;
        }
    return anchored;
}

void ph_static_friction_release(cr_ph *s)
{
    if (s->cpair) memset(s->cpair, 0, (size_t)s->nn * s->ncp * sizeof *s->cpair);
    if (s->cpc) memset(s->cpc, 0, 3 * (size_t)s->nn * s->ncp * sizeof *s->cpc);
}

/* The friction force (obstacle frame) of an anchored pair at the state, its trial force t, the limit
   mu_s N, the anchored contact point's displacement dl, its tangential part P dl (slip) and the drift
   |P dl|; 0 when the pair does not touch (g > ctol, or off the obstacle) */
static int pair_friction(const cr_ph *s, int I, int p, const cr_contact_pair *pr, cr_vec3 *y, cr_vec3 *f, cr_vec3 *t,
                         double *limit, cr_vec3 *dl, cr_vec3 *slip, double *drift)
{
    double g, n1[3], H1[9];
    if (!pair_gap(s, I, p, y, &g, n1, H1) || !(g < 0 || (pr->anchored && g <= s->ctol))) return 0;
    *limit = s->cmu[2 * p] * (g < 0 ? -s->ck[I] * g : 0.0);
    *f = *t = *dl = *slip = cr_v3(0, 0, 0), *drift = 0;
    if (!pr->anchored) return 1;
    const double *c = s->cpc + 3 * ((size_t)I * s->ncp + p);
    const cr_vec3 n = vload(n1),
                  d = cr_v3_sub(cr_v3_add(*y, ph_contact_offset(s, p, s->t, c, s->q + 12 * (size_t)I)), pr->anchor);
    cr_mat3 H;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) H.m[r][k] = H1[3 * r + k];
    cr_contact_stick_force(n, &H, s->ck[I], *limit, cr_v3(0, 0, 0), d, pr->lambda_t, f, NULL, t);
    *dl = d;
    *slip = cr_v3_madd(d, -cr_v3_dot(n, d), n);
    *drift = cr_v3_norm(*slip);
    return 1;
}

/* One pass over the pairs: the convergence test, and with apply the updates (as cr_contact_update, the
   anchors re-based at the contact point: a rod that rolls by phi would otherwise keep the chord error
   a (phi - sin phi) of the material point that first touched) */
static int friction_pass(cr_ph *s, int apply, double *drift)
{
    int converged = 1;
    double dr = 0;
    for (int I = 0; I < s->nn; ++I) {
        if (s->cf) s->cf[3 * I] = s->cf[3 * I + 1] = s->cf[3 * I + 2] = 0;
        for (int p = 0; p < s->ncp; ++p) {
            if (!(s->cmu[2 * p] > 0)) continue;
            cr_contact_pair *pr = &s->cpair[(size_t)I * s->ncp + p], scratch = *pr;
            if (!apply) pr = &scratch;
            cr_vec3 y, f, t, dl, slip;
            double limit, d;
            if (!pair_friction(s, I, p, pr, &y, &f, &t, &limit, &dl, &slip, &d)) {
                if (pr->anchored) converged = 0;
                memset(pr, 0, sizeof *pr);
                continue;
            }
            if (!pr->anchored) { /* a new contact: friction from here on */
                pr->anchored = 1, pr->lambda_t = cr_v3(0, 0, 0), pr->sliding = 0;
                if (apply) anchor_at(s, I, p, pr, y, cr_v3(0, 0, 0));
                converged = 0;
                continue;
            }
            /* the force at the state, in I (the report's contact force) */
            const cr_vec3 fw = cr_m3_mulv(ph_obstacle_rotation(s, p, s->t), f);
            if (s->cf) s->cf[3 * I] += fw.x, s->cf[3 * I + 1] += fw.y, s->cf[3 * I + 2] += fw.z;
            dr = fmax(dr, d);
            const double tn = cr_v3_norm(t);
            pr->sliding = tn > limit;
            if (!apply) continue;
            if (!pr->sliding) { /* the stick displacement carried over: the force at the state unchanged */
                pr->lambda_t = t;
                /* (at the centres the anchor stays: re-basing it would only round it) */
                if (!s->friction_centre) anchor_at(s, I, p, pr, y, dl);
            } else { /* sliding: the force at the limit, the anchor where the contact point got to */
                pr->lambda_t = cr_v3_scale(t, limit / tn);
                anchor_at(s, I, p, pr, y, cr_v3(0, 0, 0));
            }
        }
    }
    if (dr > s->ctol) converged = 0;
    if (drift) *drift = dr;
    return converged;
}

int ph_static_friction_update(cr_ph *s, double *drift)
{
    if (drift) *drift = 0;
    if (!s->cpair) return 1;
    /* a converged state keeps its multipliers: the forces at it are then the equilibrium's */
    if (friction_pass(s, 0, drift)) return 1;
    friction_pass(s, 1, drift);
    return 0;
}

/* Newton's initial iterate of a static solve: each sticking node back at its anchor (a no-op but after
   a multiplier update, or by up to contact.tolerance from a converged stage). The update (Uzawa's)
   makes the trial force at the state lambda_T - k_I P dl with lambda_T = t, the force there: t plus
   k_I P dl again, up to twice t. Started there, Newton saw every node beyond half its limit sliding,
   with no tangential stiffness, and could not converge: a cord bouncing on rough ground, anchored after
   0.05 s of dynamics and pulled by half mu_s m g (its stick forces at 0.48 to 0.54 of the limit after the
   first solve), had 11 of its 21 nodes beyond the limit at the first iterate, then all (nothing held it along the
   ground: increments of 1e11 m), and the stage failed. At the anchor the trial force is lambda_T, within
   the limit, and the exact stick the update aims at puts the node there: the cord is held in 2 iterations
   per solve. The price is the rod strained between sticking nodes and sliding ones by their drifts'
   difference: a stiff rope on a capstan (EA/l = 8e5 N/m) takes 45 iterations instead of 35. A node
   touching two rough obstacles stays (their anchors need not agree); a clamped node is not in X. */
void ph_static_friction_predictor(const cr_ph *s, double *X)
{
    for (int I = 0; s->cpair && I < s->nn; ++I) {
        const int o = s->node_off[I];
        if (o < 0) continue;
        int touching = 0, back = -1;
        cr_vec3 slip = cr_v3(0, 0, 0);
        for (int p = 0; p < s->ncp; ++p) {
            const cr_contact_pair *pr = &s->cpair[(size_t)I * s->ncp + p];
            cr_vec3 y, f, t, dl, sl;
            double limit, d;
            if (!(s->cmu[2 * p] > 0) || !pr->anchored || !pair_friction(s, I, p, pr, &y, &f, &t, &limit, &dl, &sl, &d))
                continue;
            ++touching;
            if (!pr->sliding) back = p, slip = sl; /* (a sliding pair's anchor is at it: no drift) */
        }
        if (touching != 1 || back < 0) continue;
        /* the drift is in the obstacle's frame */
        const cr_vec3 w = ph_obstacle_turns(s, back) ? cr_m3_mulv(ph_obstacle_rotation(s, back, s->t), slip) : slip;
        X[o] -= w.x, X[o + 1] -= w.y, X[o + 2] -= w.z;
    }
}

void ph_static_friction_state(const cr_ph *s, int p, int *touching, int *sliding, double *ratio)
{
    *touching = 0, *sliding = 0, *ratio = 0;
    for (int I = 0; s->cpair && I < s->nn; ++I) {
        const cr_contact_pair *pr = &s->cpair[(size_t)I * s->ncp + p];
        cr_vec3 y, f, t, dl, slip;
        double limit, d;
        if (!(s->cmu[2 * p] > 0) || !pr->anchored || !pair_friction(s, I, p, pr, &y, &f, &t, &limit, &dl, &slip, &d))
            continue;
        ++*touching;
        const double tn = cr_v3_norm(t);
        if (tn > limit) ++*sliding;
        if (limit > 0) *ratio = fmax(*ratio, fmin(tn / limit, 1.0));
    }
}
