/* Port-Hamiltonian rod: residual and exact Jacobian of one midpoint step (spec §6) or of
 * static equilibrium, with the elastic and viscous stresses condensed per Gauss point.
 *
 * Why condensation is exact here: with 2-point Gauss the compliance equations are
 * collocations at the Gauss points (spec §5), C (sigma_{n+1,g} - sigma_{n,g}) = eps_g(q_{n+1})
 * - eps_g(q_n) (+ the Maxwell relaxation term of spec §7). They are linear in sigma, so for
 * every component with nonzero compliance sigma_{n+1/2,g} = a + kappa * Delta eps_g(q_{n+1}) is
 * explicit and is substituted into the momentum rows. Components with zero compliance (rigid
 * bits) stay as unknowns with the constraint rows Delta eps_g = 0 (spec §6 "Condensation").
 *
 * Everything rests on eps being bilinear in (q, q_s): with
 *     sigma . eps(q) = sum_{x,y} c_xy(sigma) x . y_s   (x, y over the fields phi, d1, d2, d3)
 * the internal force is B(q)^T sigma = H(sigma) q, with H the constant Hessian of sigma . eps,
 * so the geometric part of the Jacobian is H(sigma) (times 1/2 at the midpoint), and
 * eps(q_{n+1}) - eps(q_n) = B(q_{n+1/2}) (q_{n+1} - q_n) exactly (spec §6 "consistent strain").
 */
#include "ph/ph.h"

#include <math.h>
#include <string.h>

void ph_strain(const double *q, const double *qs, double eps[6])
{
    const double *ps = qs, *d1 = q + 3, *d2 = q + 6, *d3 = q + 9, *d1s = qs + 3, *d2s = qs + 6, *d3s = qs + 9;
#define DOT(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])
    eps[0] = DOT(d1, ps);
    eps[1] = DOT(d2, ps);
    eps[2] = DOT(d3, ps);
    eps[3] = 0.5 * (DOT(d3, d2s) - DOT(d2, d3s));
    eps[4] = 0.5 * (DOT(d1, d3s) - DOT(d3, d1s));
    eps[5] = 0.5 * (DOT(d2, d1s) - DOT(d1, d2s));
#undef DOT
}

/* the two fields (0 = phi, 1..3 = d1..d3) in which row j of B is nonzero (see strain_jacobian) */
const int ph_row_field[6][2] = {{0, 1}, {0, 2}, {0, 3}, {2, 3}, {3, 1}, {1, 2}};

/* c_xy(sigma) of sigma . eps = sum c_xy x . y_s, fields 0 = phi, 1..3 = d1..d3 */
void ph_stress_coupling(const double sig[6], double c[4][4])
{
    memset(c, 0, sizeof(double) * 16);
    for (int k = 0; k < 3; ++k) c[1 + k][0] = sig[k];
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        c[1 + k][1 + j] += 0.5 * sig[3 + i];
        c[1 + j][1 + k] -= 0.5 * sig[3 + i];
    }
}

void ph_constraint(const double *d, double g[6])
{
    const double *d1 = d, *d2 = d + 3, *d3 = d + 6;
    g[0] = 0.5 * (d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2] - 1);
    g[1] = 0.5 * (d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2] - 1);
    g[2] = 0.5 * (d3[0] * d3[0] + d3[1] * d3[1] + d3[2] * d3[2] - 1);
    g[3] = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2];
    g[4] = d1[0] * d3[0] + d1[1] * d3[1] + d1[2] * d3[2];
    g[5] = d2[0] * d3[0] + d2[1] * d3[1] + d2[2] * d3[2];
}

/* G_d(d) (6 x 9), spec §1 */
void ph_constraint_jacobian(const double *d, double G[6][9])
{
    memset(G, 0, sizeof(double) * 54);
    static const int pair[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    for (int r = 0; r < 6; ++r) {
        int a = pair[r][0], b = pair[r][1];
        for (int c = 0; c < 3; ++c) {
            G[r][3 * a + c] += d[3 * b + c];
            if (a != b) G[r][3 * b + c] += d[3 * a + c];
        }
    }
}

/* The predictor of a node touching an obstacle with friction (cr_ph_set_friction): its tangential increment
 * h v_{n-1/2}, the last midpoint velocity's, instead of the extrapolation. A sticking node's nodal
 * velocities v_n alternate about its creep (the midpoint rule's v_{n+1} = 2 v_{n+1/2} - v_n), so the
 * extrapolation 2 v_n - v_{n-1/2} put every other step's guess at 2.7 eps, off the friction's ramp,
 * whence Newton jumped across it (ph_solve.c friction_reversals); v_{n-1/2} is on the ramp. */
static void ph_friction_predictor(const cr_ph *s, int I, double *x1)
{
    const double *x0 = s->q + 12 * I, *vm = s->vmid + 12 * I;
    for (int p = 0; p < s->ncp; ++p) {
        double g, n[3];
        const cr_vec3 y0 = ph_obstacle_local(s, p, s->t, cr_v3_load(x0));
        if (!(s->cmu[2 * p] > 0) || !ph_contact_gap(s, p, y0, s->ca[I], &g, n, NULL) || !(g < 0)) continue;
        if (ph_obstacle_turns(s, p)) { /* the normal in I */
            const cr_vec3 nw = cr_m3_mulv(ph_obstacle_rotation(s, p, s->t), cr_v3_load(n));
            n[0] = nw.x, n[1] = nw.y, n[2] = nw.z;
        }
        double dn = 0, vn = 0;
        for (int c = 0; c < 3; ++c) dn += n[c] * (x1[c] - x0[c]), vn += n[c] * vm[c];
        for (int c = 0; c < 3; ++c) x1[c] = x0[c] + dn * n[c] + s->h * (vm[c] - vn * n[c]);
        /* the directors' increment from the same velocity: the contact point's predicted slip is then the
           last step's (with contact.rolling, friction acts at the contact point: a rolling node's extrapolated turn against its
           position's last increment would put a slip of 2 h |a| on it, off the ramp) */
        if (!s->friction_centre)
            for (int k = 3; k < 12; ++k) x1[k] = x0[k] + s->h * vm[k];
    }
}

void ph_begin(cr_ph *s, int mode, double h)
{
    s->h = h;
    const int inertia = s->mass[0] > 0 || s->mass[1] > 0 || s->mass[2] > 0;
    /* eps(q_n), the midpoint stresses' reference: statics measure the strains from eps0 (a pass over q
       less per load step); after a step the finish has left eps(q_{n+1}) there (cr_ph.have_eps) */
    const int dyn = mode == PH_DYNAMIC;
    for (int e = 0; e < (dyn && !s->have_eps ? s->ne : 0); ++e)
        for (int g = 0; g < 2; ++g) {
            double qg[12] = {0}, qs[12] = {0};
            for (int a = 0; a < 3; ++a) {
                const double *qa = s->q + 12 * (2 * e + a);
                for (int k = 0; k < 12; ++k) qg[k] += s->N[g][a] * qa[k], qs[k] += s->dN[g][a] * qa[k];
            }
            ph_strain(qg, qs, s->eps_n + 6 * (2 * e + g));
        }
    if (dyn) s->have_eps = 1;
    /* the finish wrote the predictor of a step of h (cr_ph.have_pred); the friction's is made here */
    const int have_pred = dyn && s->have_pred && s->pred_h == h && !s->cmu;
    s->have_pred = 0; /* X is Newton's from here */
    for (int I = 0; I < (have_pred ? 0 : s->nn); ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        /* predictor q_n + h (2 v_n - v_{n-1/2}): v_{n+1/2} extrapolated with the acceleration
           2 (v_n - v_{n-1/2}) / h, second order (the flying spaghetti's first residual drops from ~1e2
           to ~1e1 and its steps from 4 to 3 iterations). Without inertia v_n is the midpoint rule's
           undamped alternating mode, not a velocity: q_n + h v_{n-1/2} then. Only the initial guess:
           spec §6 allows any, the converged step does not depend on it. */
        for (int k = 0; k < 12; ++k)
            s->X[o + k] = s->q[12 * I + k] + (mode != PH_DYNAMIC ? 0
                                              : inertia          ? h * (2 * s->v[12 * I + k] - s->vmid[12 * I + k])
                                                                 : h * s->vmid[12 * I + k]);
        memcpy(s->X + o + 12, s->lam + 6 * I, sizeof(double) * 6);
        if (mode == PH_DYNAMIC && s->cmu) ph_friction_predictor(s, I, s->X + o);
    }
    for (int e = 0; e < (have_pred ? 0 : s->ne); ++e)
        for (int g = 0; g < 2; ++g)
            for (int sl = 0; sl < s->nr; ++sl)
                s->X[s->sig_off[e] + g * s->nr + sl] = s->sig_el[6 * (2 * e + g) + s->rigid_comp[sl]];
    /* statics along a load path: the last change extrapolated (cr_ph_static_predictor) */
    if (mode == PH_STATIC && s->have_static && s->static_ratio != 0) {
        const double c = s->static_ratio;
        for (int I = 0; I < s->nn; ++I) {
            int o = s->node_off[I];
            if (o < 0) continue;
            for (int k = 0; k < 12; ++k) s->X[o + k] += c * s->dq_static[12 * I + k];
        }
        for (int e = 0; e < s->ne; ++e)
            for (int col = 0; col < 2 * s->nr; ++col)
                s->X[s->sig_off[e] + col] += c * s->dsig_static[2 * e * s->nr + col];
    }
    s->static_ratio = 0;
}

void ph_unpack(cr_ph *s, const double *X)
{
    memcpy(s->q1, s->q, sizeof(double) * 12 * s->nn);
    memset(s->lam1, 0, sizeof(double) * 6 * s->nn);
    for (int I = 0; I < s->nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        memcpy(s->q1 + 12 * I, X + o, sizeof(double) * 12);
        memcpy(s->lam1 + 6 * I, X + o + 12, sizeof(double) * 6);
    }
    for (int e = 0; e < s->ne; ++e)
        for (int g = 0; g < 2; ++g)
            for (int sl = 0; sl < s->nr; ++sl) s->sig1[(2 * e + g) * s->nr + sl] = X[s->sig_off[e] + g * s->nr + sl];
}

cr_status ph_assemble(cr_ph *s, int mode, const cr_ph_loads *loads, const double *X, double *r, int want_jacobian)
{
    if (want_jacobian && ph_reference_arrays(s, PH_REF_BLOCKS) != CR_OK) return CR_NO_MEMORY;
    const int dyn = mode == PH_DYNAMIC, nr = s->nr;
    const double h = s->h;
    const double fac = dyn ? h : 1.0; /* momentum rows: M (v_{n+1} - v_n) + h (...), not divided by h */
    const double gam = dyn ? 0.5 : 1.0; /* d q_{n+1/2} / d q_{n+1} */
    const double w = s->w;
    ph_unpack(s, X);
    memset(r, 0, sizeof(double) * s->nx);
    memset(s->fext, 0, sizeof(double) * 12 * s->nn);
    s->fac = fac;
    if (want_jacobian) {
        memset(s->Ke, 0, sizeof(double) * (size_t)s->ne * 1296);
        if (nr) {
            memset(s->Bc, 0, sizeof(double) * (size_t)s->ne * 72 * nr);
            memset(s->Br, 0, sizeof(double) * (size_t)s->ne * 72 * nr);
        }
    }
    const double *act = loads ? loads->actuation : NULL;
    cr_vec3 nbar = loads ? loads->force_density : cr_v3(0, 0, 0);
    cr_vec3 mbar = loads ? loads->moment_density : cr_v3(0, 0, 0);
    int has_mbar = mbar.x != 0 || mbar.y != 0 || mbar.z != 0;
    cr_mat3 mbt = cr_m3_skew(mbar);

    for (int e = 0; e < s->ne; ++e) {
        int off[3];
        for (int a = 0; a < 3; ++a) off[a] = s->node_off[2 * e + a];
        for (int g = 0; g < 2; ++g) {
            const int gp = 2 * e + g;
            double q1[12], q1s[12], q0[12], q0s[12], v0[12], qm[12], qms[12];
            ph_gauss_point(s, e, g, dyn, q1, q1s, q0, q0s, v0, qm, qms);
            double eps1[6], de[6], sig[6], kap[6];
            ph_strain(q1, q1s, eps1);
            for (int j = 0; j < 6; ++j) {
                de[j] = eps1[j] - (dyn ? s->eps_n[6 * gp + j] : s->eps0[6 * gp + j]);
                int sl = s->rigid_slot[j];
                if (sl >= 0) {
                    sig[j] = s->sig1[gp * nr + sl];
                    kap[j] = 0;
                    /* eps_j(q_{n+1}) - eps_j(q_n) = 0 written as eps_j(q_{n+1}) - eps0_j = 0: the same
                       equation in exact arithmetic (kinematic consistency, spec §6 (C)), without the
                       step-by-step accumulation of round-off */
                    r[s->sig_off[e] + g * nr + sl] = eps1[j] - s->eps0[6 * gp + j];
                } else if (dyn) {
                    sig[j] = ph_mid_stress(s, gp, j, de[j], h, &kap[j]);
                } else {
                    sig[j] = s->k_el[j] * de[j];
                    kap[j] = s->k_el[j];
                }
                if (act) sig[j] += act[j];
            }
            double Bm[3][6][12], B1[3][6][12];
            for (int a = 0; a < 3; ++a) {
                ph_strain_jacobian(qm, qms, s->N[g][a], s->dN[g][a], Bm[a]);
                if (want_jacobian) ph_strain_jacobian(q1, q1s, s->N[g][a], s->dN[g][a], B1[a]);
            }
            /* residual: internal forces h w B_a(q_{n+1/2})^T sigma_{n+1/2}, inertia, distributed loads */
            for (int a = 0; a < 3; ++a) {
                if (off[a] < 0) continue;
                double *ra = r + off[a];
                for (int c = 0; c < 12; ++c) {
                    double f = 0;
                    for (int j = 0; j < 6; ++j) f += Bm[a][j][c] * sig[j];
                    ra[c] += fac * w * f;
                }
                if (dyn)
                    for (int f = 0; f < 3; ++f) {
                        double m = s->mass[f];
                        if (m == 0) continue;
                        for (int c = 0; c < 3; ++c) {
                            int k = 3 * f + c;
                            ra[k] += w * m * s->N[g][a] * (2 * (q1[k] - q0[k]) / h - 2 * v0[k]);
                        }
                    }
            }
            double *fe[3];
            for (int a = 0; a < 3; ++a) fe[a] = s->fext + 12 * (2 * e + a);
            for (int a = 0; a < 3; ++a) {
                double n = w * s->N[g][a];
                fe[a][0] += n * nbar.x, fe[a][1] += n * nbar.y, fe[a][2] += n * nbar.z;
                if (has_mbar)
                    for (int k = 0; k < 3; ++k) {
                        /* int Phi^T T(d_{n+1/2}) mbar, T(d) m = 1/2 (m x d_k) (spec §1, §6) */
                        cr_vec3 t = cr_v3_scale(cr_v3_cross(mbar, cr_v3_load(qm + 3 + 3 * k)), 0.5 * n);
                        fe[a][3 + 3 * k] += t.x, fe[a][4 + 3 * k] += t.y, fe[a][5 + 3 * k] += t.z;
                    }
            }
            if (!want_jacobian) continue;
            double cc[4][4];
            ph_stress_coupling(sig, cc);
            double *Ke = s->Ke + (size_t)e * 1296, *Bc = s->Bc + (size_t)e * 72 * nr, *Br = s->Br + (size_t)e * 72 * nr;
            for (int a = 0; a < 3; ++a) {
                if (off[a] < 0) continue;
                for (int b = 0; b < 3; ++b) {
                    if (off[b] < 0) continue;
                    /* K = d r_a / d q_b, accumulated straight into the element block */
                    double *K0 = Ke + (12 * a) * 36 + 12 * b;
#define K(i, k) K0[(i) * 36 + (k)]
                    double na = s->N[g][a], nsa = s->dN[g][a], nb = s->N[g][b], nsb = s->dN[g][b];
                    /* material part: Bm_a^T kappa B1_b; row j of B is nonzero in two fields only */
                    for (int j = 0; j < 6; ++j) {
                        if (kap[j] == 0) continue;
                        double kf = fac * w * kap[j];
                        for (int u = 0; u < 2; ++u)
                            for (int v = 0; v < 2; ++v) {
                                int fu = 3 * ph_row_field[j][u], fv = 3 * ph_row_field[j][v];
                                for (int c = 0; c < 3; ++c) {
                                    double bc = kf * Bm[a][j][fu + c];
                                    for (int d = 0; d < 3; ++d) K(fu + c, fv + d) += bc * B1[b][j][fv + d];
                                }
                            }
                    }
                    /* geometric part: gam H_ab(sigma), H_ab[x][y] = c_xy n_a n_b' + c_yx n_a' n_b */
                    for (int x = 0; x < 4; ++x)
                        for (int y = 0; y < 4; ++y) {
                            double hv = cc[x][y] * na * nsb + cc[y][x] * nsa * nb;
                            if (hv == 0) continue;
                            hv *= fac * w * gam;
                            for (int c = 0; c < 3; ++c) K(3 * x + c, 3 * y + c) += hv;
                        }
                    if (dyn)
                        for (int f = 0; f < 3; ++f) {
                            double mv = 2.0 / h * w * s->mass[f] * na * nb;
                            for (int c = 0; c < 3; ++c) K(3 * f + c, 3 * f + c) += mv;
                        }
                    if (has_mbar) {
                        double mv = -fac * gam * 0.5 * w * na * nb;
                        for (int k = 0; k < 3; ++k)
                            for (int c = 0; c < 3; ++c)
                                for (int d = 0; d < 3; ++d) K(3 + 3 * k + c, 3 + 3 * k + d) += mv * mbt.m[c][d];
                    }
#undef K
                }
                /* rigid stresses: columns of the momentum rows, and their constraint rows */
                for (int sl = 0; sl < nr; ++sl) {
                    int j = s->rigid_comp[sl], col = g * nr + sl;
                    for (int c = 0; c < 12; ++c) {
                        Bc[(12 * a + c) * 2 * nr + col] = fac * w * Bm[a][j][c];
                        Br[col * 36 + 12 * a + c] = B1[a][j][c];
                    }
                }
            }
        }
    }

    for (int I = 0; I < s->nn; ++I) {
        int o = s->node_off[I];
        const double *d1 = s->q1 + 12 * I + 3, *d0 = s->q + 12 * I + 3;
        double dm[9];
        for (int k = 0; k < 9; ++k) dm[k] = dyn ? 0.5 * (d0[k] + d1[k]) : d1[k];
        double *fe = s->fext + 12 * I;
        cr_vec3 mu = cr_v3(0, 0, 0);
        if (loads && loads->node_force) {
            cr_vec3 nu = loads->node_force[I];
            fe[0] += nu.x, fe[1] += nu.y, fe[2] += nu.z;
        }
        if (loads && loads->node_moment) {
            mu = loads->node_moment[I];
            for (int k = 0; k < 3; ++k) {
                /* T(d_{n+1/2}) mu at the midpoint directors (spec §6, §12.3) */
                cr_vec3 t = cr_v3_scale(cr_v3_cross(mu, cr_v3_load(dm + 3 * k)), 0.5);
                fe[3 + 3 * k] += t.x, fe[4 + 3 * k] += t.y, fe[5 + 3 * k] += t.z;
            }
        }
        if (o < 0) continue;
        const double *lam = s->lam1 + 6 * I;
        double Gm[6][9], G1[6][9], g1[6];
        ph_constraint_jacobian(dm, Gm);
        ph_constraint(d1, g1);
        /* G_d(d_{n+1/2})^T lambda in the director rows */
        for (int c = 0; c < 9; ++c) {
            double v = 0;
            for (int k = 0; k < 6; ++k) v += Gm[k][c] * lam[k];
            r[o + 3 + c] += fac * v;
        }
        /* constraint rows: G_d(d_{n+1/2}) (d_{n+1} - d_n) = g(d_{n+1}) - g(d_n) (g quadratic, spec §6 (G)),
           and g(d_n) = g(d_0) by induction: residual g(d_{n+1}) - g(d_0), so round-off cannot accumulate */
        for (int k = 0; k < 6; ++k) r[o + 12 + k] = g1[k] - s->g0[6 * I + k];
        for (int k = 0; k < 12; ++k) r[o + k] -= fac * fe[k];
        /* contact: the discrete gradient of V_c, an internal force like the stresses', and the friction */
        /* (the friction at the contact point: its moment in the director rows, ph_contact_force) */
        double dgc[12], Kc[144];
        int touch = s->ncp > 0 && ph_contact_force(s, I, dyn, dgc, Kc, NULL, NULL, NULL);
        if (touch)
            for (int c = 0; c < 12; ++c) r[o + c] += fac * dgc[c];
        if (!want_jacobian) continue;
        if (touch) { /* node-local: the node's 12 x 12 block, kept in an element block holding it */
            int e = I / 2 < s->ne ? I / 2 : s->ne - 1, a = I - 2 * e;
            double *Ke = s->Ke + (size_t)e * 1296;
            for (int c = 0; c < 12; ++c)
                for (int d = 0; d < 12; ++d) Ke[(12 * a + c) * 36 + 12 * a + d] += fac * Kc[12 * c + d];
        }
        double *Kn = s->Kn + 81 * I, *Gms = s->Gm + 54 * I, *G1s = s->G1 + 54 * I;
        memset(Kn, 0, sizeof(double) * 81);
        ph_constraint_jacobian(d1, G1);
        memcpy(Gms, Gm, sizeof(double) * 54);
        memcpy(G1s, G1, sizeof(double) * 54);
        /* d (G(d_m)^T lambda) / d d_{n+1} = gam Lambda (x) I3 */
        const double Lm[3][3] = {{lam[0], lam[3], lam[4]}, {lam[3], lam[1], lam[5]}, {lam[4], lam[5], lam[2]}};
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                for (int c = 0; c < 3; ++c) Kn[(3 * a + c) * 9 + 3 * b + c] += fac * gam * Lm[a][b];
        if (mu.x != 0 || mu.y != 0 || mu.z != 0) {
            cr_mat3 mt = cr_m3_skew(mu);
            for (int k = 0; k < 3; ++k)
                for (int c = 0; c < 3; ++c)
                    for (int d = 0; d < 3; ++d) Kn[(3 * k + c) * 9 + 3 * k + d] += -fac * gam * 0.5 * mt.m[c][d];
        }
    }
    return CR_OK;
}

void ph_jacobian_dense(const cr_ph *s, double *J)
{
    const int n = s->nx, nr = s->nr;
    memset(J, 0, sizeof(double) * (size_t)n * n);
    if (!(s->ref_have & PH_REF_BLOCKS)) return; /* (no Jacobian assembled yet: its blocks are not allocated) */
    for (int e = 0; e < s->ne; ++e) {
        const double *Ke = s->Ke + (size_t)e * 1296, *Bc = s->Bc + (size_t)e * 72 * nr, *Br = s->Br + (size_t)e * 72 * nr;
        for (int a = 0; a < 3; ++a) {
            int oa = s->node_off[2 * e + a];
            if (oa < 0) continue;
            for (int b = 0; b < 3; ++b) {
                int ob = s->node_off[2 * e + b];
                if (ob < 0) continue;
                for (int i = 0; i < 12; ++i)
                    for (int k = 0; k < 12; ++k) J[(size_t)(oa + i) * n + ob + k] += Ke[(12 * a + i) * 36 + 12 * b + k];
            }
            for (int c = 0; c < 12; ++c)
                for (int col = 0; col < 2 * nr; ++col) {
                    J[(size_t)(oa + c) * n + s->sig_off[e] + col] += Bc[(12 * a + c) * 2 * nr + col];
                    J[(size_t)(s->sig_off[e] + col) * n + oa + c] += Br[col * 36 + 12 * a + c];
                }
        }
    }
    for (int I = 0; I < s->nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        for (int i = 0; i < 9; ++i)
            for (int k = 0; k < 9; ++k) J[(size_t)(o + 3 + i) * n + o + 3 + k] += s->Kn[81 * I + 9 * i + k];
        for (int k = 0; k < 6; ++k)
            for (int c = 0; c < 9; ++c) {
                J[(size_t)(o + 3 + c) * n + o + 12 + k] += s->fac * s->Gm[54 * I + 9 * k + c];
                J[(size_t)(o + 12 + k) * n + o + 3 + c] += s->G1[54 * I + 9 * k + c];
            }
    }
}

void ph_clamp_reactions(cr_ph *s, int mode, const cr_ph_loads *loads)
{
    const int dyn = mode == PH_DYNAMIC, nr = s->nr;
    const double h = s->h, fac = dyn ? h : 1.0, w = s->w;
    const double *act = loads ? loads->actuation : NULL;
    const cr_vec3 nbar = loads ? loads->force_density : cr_v3(0, 0, 0);
    const cr_vec3 mbar = loads ? loads->moment_density : cr_v3(0, 0, 0);
    for (int end = 0; end < 2; ++end) {
        double *R = s->react[end];
        memset(R, 0, sizeof(double) * 12);
        if (!(end ? s->p.clamp_end : s->p.clamp_start)) continue;
        const int e = end ? s->ne - 1 : 0, a = end ? 2 : 0, I = end ? s->nn - 1 : 0;
        double fe[12] = {0};
        for (int g = 0; g < 2; ++g) { /* ph_assemble's rows of local node a, element e */
            const int gp = 2 * e + g;
            double q1[12], q1s[12], q0[12], q0s[12], v0[12], qm[12], qms[12], eps1[6], sig[6], B[6][12];
            ph_gauss_point(s, e, g, dyn, q1, q1s, q0, q0s, v0, qm, qms);
            ph_strain(q1, q1s, eps1);
            for (int j = 0; j < 6; ++j) {
                const double de = eps1[j] - (dyn ? s->eps_n[6 * gp + j] : s->eps0[6 * gp + j]);
                const int sl = s->rigid_slot[j];
                double kap;
                sig[j] = sl >= 0 ? s->sig1[gp * nr + sl] : dyn ? ph_mid_stress(s, gp, j, de, h, &kap) : s->k_el[j] * de;
                if (act) sig[j] += act[j];
            }
            ph_strain_jacobian(qm, qms, s->N[g][a], s->dN[g][a], B);
            for (int c = 0; c < 12; ++c) {
                double f = 0;
                for (int j = 0; j < 6; ++j) f += B[j][c] * sig[j];
                R[c] += fac * w * f;
            }
            if (dyn) /* the consistent mass: the neighbours' momentum changes reach the clamped node's rows */
                for (int f = 0; f < 3; ++f)
                    for (int c = 0; c < 3; ++c) {
                        const int k = 3 * f + c;
                        R[k] += w * s->mass[f] * s->N[g][a] * (2 * (q1[k] - q0[k]) / h - 2 * v0[k]);
                    }
            const double n = w * s->N[g][a];
            fe[0] += n * nbar.x, fe[1] += n * nbar.y, fe[2] += n * nbar.z;
            for (int k = 0; k < 3; ++k) { /* T(d_{n+1/2}) mbar */
                const cr_vec3 t = cr_v3_scale(cr_v3_cross(mbar, cr_v3_load(qm + 3 + 3 * k)), 0.5 * n);
                fe[3 + 3 * k] += t.x, fe[4 + 3 * k] += t.y, fe[5 + 3 * k] += t.z;
            }
        }
        if (loads && loads->node_force)
            fe[0] += loads->node_force[I].x, fe[1] += loads->node_force[I].y, fe[2] += loads->node_force[I].z;
        if (loads && loads->node_moment)
            for (int k = 0; k < 3; ++k) { /* (the clamped node's directors are fixed: d_{n+1/2} = d) */
                const cr_vec3 t =
                    cr_v3_scale(cr_v3_cross(loads->node_moment[I], cr_v3_load(s->q + 12 * I + 3 + 3 * k)), 0.5);
                fe[3 + 3 * k] += t.x, fe[4 + 3 * k] += t.y, fe[5 + 3 * k] += t.z;
            }
        /* the rows' balance r = fac (f_int - f_ext) + (momentum change) = fac R: R the clamp's force */
        for (int c = 0; c < 12; ++c) R[c] = R[c] / fac - fe[c];
    }
    s->have_react = 1;
}

int cr_ph_clamp_reaction(const cr_ph *s, int end, cr_vec3 *force, cr_vec3 *moment)
{
    *force = *moment = cr_v3(0, 0, 0);
    if (!s->have_react || !(end ? s->p.clamp_end : s->p.clamp_start)) return 0;
    const double *R = s->react[end], *q = s->q + 12 * (end ? s->nn - 1 : 0);
    *force = cr_v3_load(R);
    for (int k = 0; k < 3; ++k)
        *moment = cr_v3_add(*moment, cr_v3_cross(cr_v3_load(q + 3 + 3 * k), cr_v3_load(R + 3 + 3 * k)));
    return 1;
}
