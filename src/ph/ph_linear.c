/* Port-Hamiltonian rod: the Newton linear system J dX = -r, solved exactly through a
 * null-space reduction per node (Betsch's discrete null-space idea applied to the linear
 * system only; the unknowns and residuals stay those of spec §6).
 *
 * Why it is exact: at node I the constraint rows read G_d(d_{n+1}) dd = -r_g and the
 * multipliers enter only the node's director rows, through fac G_d(d_{n+1/2})^T dlambda.
 * For any three linearly independent directors d and any skew W, G_d(d) (W d) = 0 because
 * d_i . W d_j is antisymmetric in (i, j); so P(d) = [-d1~; -d2~; -d3~] (9 x 3, P w = (w x d_k)_k)
 * spans the null space of G_d(d), and P(d)^T G_d(d)^T = 0. Writing
 *     dd = P(d_{n+1}) dtheta + dd_p,   G_d(d_{n+1}) dd_p = -r_g,
 * and multiplying the director rows by P(d_{n+1/2})^T removes dlambda; what is left is a
 * system in (dphi, dtheta) per node (6 instead of 18 unknowns) and the rigid stresses,
 * banded with a third of the bandwidth. dlambda follows node by node from the director rows.
 * The reduced matrix is still nonsymmetric and indefinite (rigid stresses), so it is factored
 * by a banded LU with partial pivoting (LAPACK's algorithm and layout, below). */
#include "ph/ph.h"

#include <math.h>
#include <string.h>

/* Banded LU with partial pivoting in LAPACK's band layout (A(i, j) at ab[j ldab + kl + ku + i - j],
 * the same algorithm as dgbtf2/dgbtrs). Written out because the reduced matrices are narrow
 * (bandwidth 17-23): the reference BLAS calls per column (idamax, dswap, dscal, dger) cost more
 * than the arithmetic. Returns 0, or j + 1 when the pivot of column j vanishes. */
static int band_lu(int n, int kl, int ku, double *ab, int ldab, int *ipiv)
{
    const int kv = kl + ku;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < kl; ++i) ab[(size_t)j * ldab + i] = 0; /* fill-in rows */
    int ju = 0;
    for (int j = 0; j < n; ++j) {
        double *cj = ab + (size_t)j * ldab + kv; /* cj[i] = A(j + i, j) */
        int km = kl < n - 1 - j ? kl : n - 1 - j, p = 0;
        double best = fabs(cj[0]);
        for (int i = 1; i <= km; ++i)
            if (fabs(cj[i]) > best) best = fabs(cj[i]), p = i;
        ipiv[j] = j + p;
        if (best == 0) return j + 1;
        int last = j + ku + p < n - 1 ? j + ku + p : n - 1;
        if (last > ju) ju = last;
        if (p)
            for (int c = j; c <= ju; ++c) {
                double *col = ab + (size_t)c * ldab + kv + j - c;
                double t = col[0];
                col[0] = col[p], col[p] = t;
            }
        double inv = 1.0 / cj[0];
        for (int i = 1; i <= km; ++i) cj[i] *= inv;
        for (int c = j + 1; c <= ju; ++c) {
            double *col = ab + (size_t)c * ldab + kv + j - c; /* col[i] = A(j + i, c) */
            double a = col[0];
            if (a == 0) continue;
            for (int i = 1; i <= km; ++i) col[i] -= cj[i] * a;
        }
    }
    return 0;
}

static void band_solve(int n, int kl, int ku, const double *ab, int ldab, const int *ipiv, double *b)
{
    const int kv = kl + ku;
    for (int j = 0; j < n - 1; ++j) {
        int km = kl < n - 1 - j ? kl : n - 1 - j, p = ipiv[j];
        if (p != j) {
            double t = b[j];
            b[j] = b[p], b[p] = t;
        }
        const double *cj = ab + (size_t)j * ldab + kv;
        double bj = b[j];
        if (bj != 0)
            for (int i = 1; i <= km; ++i) b[j + i] -= cj[i] * bj;
    }
    for (int j = n - 1; j >= 0; --j) {
        const double *cj = ab + (size_t)j * ldab + kv - j; /* cj[i] = A(i, j) */
        double bj = b[j] / cj[j];
        b[j] = bj;
        int i0 = j - kv > 0 ? j - kv : 0;
        if (bj != 0)
            for (int i = i0; i < j; ++i) b[i] -= cj[i] * bj;
    }
}

/* directors from the stored G_d blocks: row k < 3 of G_d(d) is [.. d_k ..] */
static void directors_of(const double *G, double d[9])
{
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) d[3 * k + c] = G[9 * k + 3 * k + c];
}

/* P(d) (9 x 3): P w = (w x d1, w x d2, w x d3) */
static void nullspace(const double d[9], double P[9][3])
{
    for (int k = 0; k < 3; ++k) {
        const double *v = d + 3 * k;
        /* w x v = -v~ w */
        P[3 * k + 0][0] = 0, P[3 * k + 0][1] = v[2], P[3 * k + 0][2] = -v[1];
        P[3 * k + 1][0] = -v[2], P[3 * k + 1][1] = 0, P[3 * k + 1][2] = v[0];
        P[3 * k + 2][0] = v[1], P[3 * k + 2][1] = -v[0], P[3 * k + 2][2] = 0;
    }
}

/* Cholesky factor (lower, row-major 6 x 6, reciprocal diagonal) of G G^T for G 6 x 9 (full rank: the
   directors are linearly independent); returns 0 when not positive definite */
int ph_gram_factor(const double *G, double Lc[36])
{
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j) {
            double v = 0;
            for (int c = 0; c < 9; ++c) v += G[9 * i + c] * G[9 * j + c];
            for (int k = 0; k < j; ++k) v -= Lc[6 * i + k] * Lc[6 * j + k];
            if (i == j) {
                if (!(v > 0)) return 0;
                Lc[6 * i + i] = 1.0 / sqrt(v);
            } else {
                Lc[6 * i + j] = v * Lc[6 * j + j];
            }
        }
    return 1;
}

/* b = (G G^T)^-1 b from the factor of gram_factor */
void ph_gram_apply(const double Lc[36], double b[6])
{
    for (int i = 0; i < 6; ++i) {
        double v = b[i];
        for (int k = 0; k < i; ++k) v -= Lc[6 * i + k] * b[k];
        b[i] = v * Lc[6 * i + i];
    }
    for (int i = 5; i >= 0; --i) {
        double v = b[i];
        for (int k = i + 1; k < 6; ++k) v -= Lc[6 * k + i] * b[k];
        b[i] = v * Lc[6 * i + i];
    }
}

static inline void radd(cr_ph *s, int i, int j, double v)
{
    s->rband[(size_t)j * s->rldab + s->rkl + s->rku + i - j] += v;
}

/* y (12 per node) = K x over the element blocks and the node blocks. x_has_phi = 0: x is zero in the
   position components (a particular director increment), so those columns are skipped; d_rows_only:
   only the director rows of y are wanted (the multiplier recovery). */
static void apply_K(const cr_ph *s, const double *x, double *y, int x_has_phi, int d_rows_only)
{
    memset(y, 0, sizeof(double) * 12 * s->nn);
    for (int e = 0; e < s->ne; ++e) {
        const double *Ke = s->Ke + (size_t)e * 1296, *xe = x + 12 * 2 * e;
        double *ye = y + 12 * 2 * e;
        for (int i = 0; i < 36; ++i) {
            if (d_rows_only && i % 12 < 3) continue;
            const double *row = Ke + 36 * i;
            double v = 0;
            for (int b = 0; b < 3; ++b)
                for (int k = x_has_phi ? 0 : 3; k < 12; ++k) v += row[12 * b + k] * xe[12 * b + k];
            ye[i] += v;
        }
    }
    for (int I = 0; I < s->nn; ++I) {
        const double *Kn = s->Kn + 81 * I, *xd = x + 12 * I + 3;
        double *yd = y + 12 * I + 3;
        for (int i = 0; i < 9; ++i) {
            double v = 0;
            for (int k = 0; k < 9; ++k) v += Kn[9 * i + k] * xd[k];
            yd[i] += v;
        }
    }
}

/* The reduced matrix of the Jacobian of the last assembly (null-space bases, Gram factors, banded LU).
   Only the Jacobian blocks are read: ph_linear_apply may then solve with it for later residuals
   (modified Newton). */
cr_status ph_linear_factor(cr_ph *s, int *bad)
{
    const int nn = s->nn, nr = s->nr, n2 = 2 * nr;
    s->fact_ok = 0;
    if (ph_reference_arrays(s, PH_REF_BLOCKS | PH_REF_FACTOR) != CR_OK) return CR_NO_MEMORY;
    for (int I = 0; I < nn; ++I) {
        if (s->node_off[I] < 0) continue;
        if (!ph_gram_factor(s->G1 + 54 * I, s->gram1 + 36 * I) || !ph_gram_factor(s->Gm + 54 * I, s->gramm + 36 * I)) {
            if (bad) *bad = s->node_off[I] + 12;
            return CR_SINGULAR;
        }
        double dm[9], d1[9];
        directors_of(s->Gm + 54 * I, dm);
        directors_of(s->G1 + 54 * I, d1);
        nullspace(dm, (double(*)[3])(s->Pm + 27 * I));
        nullspace(d1, (double(*)[3])(s->Pn + 27 * I));
    }
    memset(s->rband, 0, sizeof(double) * (size_t)s->rldab * s->nred); /* band_lu zeroes the fill rows again */
    for (int I = 0; I < nn; ++I) {
        int ro = s->node_roff[I];
        if (ro < 0) continue;
        const double(*Pm)[3] = (const double(*)[3])(s->Pm + 27 * I), (*Pn)[3] = (const double(*)[3])(s->Pn + 27 * I);
        /* node block Pm^T Kn Pn */
        const double *Kn = s->Kn + 81 * I;
        for (int m = 0; m < 3; ++m)
            for (int p = 0; p < 3; ++p) {
                double v = 0;
                for (int i = 0; i < 9; ++i) {
                    double tt = 0;
                    for (int k = 0; k < 9; ++k) tt += Kn[9 * i + k] * Pn[k][p];
                    v += Pm[i][m] * tt;
                }
                radd(s, ro + 3 + m, ro + 3 + p, v);
            }
    }
    for (int e = 0; e < s->ne; ++e) {
        const double *Ke = s->Ke + (size_t)e * 1296, *Bc = s->Bc + (size_t)e * 72 * nr,
                     *Br = s->Br + (size_t)e * 72 * nr;
        const double(*Pm[3])[3], (*Pn[3])[3];
        int ro[3];
        for (int a = 0; a < 3; ++a) {
            int I = 2 * e + a;
            ro[a] = s->node_roff[I];
            Pm[a] = (const double(*)[3])(s->Pm + 27 * I);
            Pn[a] = (const double(*)[3])(s->Pn + 27 * I);
        }
        for (int a = 0; a < 3; ++a) {
            if (ro[a] < 0) continue;
            for (int b = 0; b < 3; ++b) {
                if (ro[b] < 0) continue;
                /* KT = Ke_ab T1_b (12 x 6), R = Tm_a^T KT (6 x 6) */
                double KT[12][6], R[6][6];
                for (int i = 0; i < 12; ++i) {
                    const double *row = Ke + (12 * a + i) * 36 + 12 * b;
                    for (int c = 0; c < 3; ++c) KT[i][c] = row[c];
                    for (int p = 0; p < 3; ++p) {
                        double v = 0;
                        for (int k = 0; k < 9; ++k) v += row[3 + k] * Pn[b][k][p];
                        KT[i][3 + p] = v;
                    }
                }
                for (int j = 0; j < 6; ++j) {
                    for (int c = 0; c < 3; ++c) R[c][j] = KT[c][j];
                    for (int m = 0; m < 3; ++m) {
                        double v = 0;
                        for (int k = 0; k < 9; ++k) v += Pm[a][k][m] * KT[3 + k][j];
                        R[3 + m][j] = v;
                    }
                }
                for (int i = 0; i < 6; ++i)
                    for (int j = 0; j < 6; ++j) radd(s, ro[a] + i, ro[b] + j, R[i][j]);
            }
            for (int col = 0; col < n2; ++col) {
                int rc = s->sig_roff[e] + col;
                const double *bc = Bc + (12 * a) * n2 + col; /* stride n2 */
                for (int c = 0; c < 3; ++c) radd(s, ro[a] + c, rc, bc[c * n2]);
                for (int m = 0; m < 3; ++m) {
                    double v = 0;
                    for (int k = 0; k < 9; ++k) v += Pm[a][k][m] * bc[(3 + k) * n2];
                    radd(s, ro[a] + 3 + m, rc, v);
                }
                const double *br = Br + col * 36 + 12 * a;
                for (int c = 0; c < 3; ++c) radd(s, rc, ro[a] + c, br[c]);
                for (int p = 0; p < 3; ++p) {
                    double v = 0;
                    for (int k = 0; k < 9; ++k) v += br[3 + k] * Pn[a][k][p];
                    radd(s, rc, ro[a] + 3 + p, v);
                }
            }
        }
    }
    int info = band_lu(s->nred, s->rkl, s->rku, s->rband, s->rldab, s->ripiv);
    if (info != 0) {
        if (bad) *bad = info - 1;
        return CR_SINGULAR;
    }
    s->fact_ok = 1;
    return CR_OK;
}

/* Solves J dX = -r with the Jacobian factored by ph_linear_factor (exactly, by the null-space reduction). */
void ph_linear_apply(cr_ph *s, const double *r, double *dX)
{
    const int nn = s->nn, nr = s->nr, n2 = 2 * nr;
    /* particular director increments dd_p with G_d(d_{n+1}) dd_p = -r_g */
    memset(s->dqp, 0, sizeof(double) * 12 * nn);
    for (int I = 0; I < nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        const double *G1 = s->G1 + 54 * I;
        double b[6];
        for (int k = 0; k < 6; ++k) b[k] = -r[o + 12 + k];
        ph_gram_apply(s->gram1 + 36 * I, b);
        for (int c = 0; c < 9; ++c) {
            double v = 0;
            for (int k = 0; k < 6; ++k) v += G1[9 * k + c] * b[k];
            s->dqp[12 * I + 3 + c] = v;
        }
    }
    apply_K(s, s->dqp, s->kdq, 0, 0);
    for (int I = 0; I < nn; ++I) {
        int o = s->node_off[I], ro = s->node_roff[I];
        if (o < 0) continue;
        const double(*Pm)[3] = (const double(*)[3])(s->Pm + 27 * I);
        for (int c = 0; c < 3; ++c) s->rrhs[ro + c] = -(r[o + c] + s->kdq[12 * I + c]);
        for (int m = 0; m < 3; ++m) {
            double v = 0;
            for (int c = 0; c < 9; ++c) v += Pm[c][m] * (r[o + 3 + c] + s->kdq[12 * I + 3 + c]);
            s->rrhs[ro + 3 + m] = -v;
        }
    }
    for (int e = 0; e < s->ne; ++e)
        for (int col = 0; col < n2; ++col) {
            double v = r[s->sig_off[e] + col];
            const double *br = s->Br + (size_t)e * 72 * nr + col * 36;
            const double *xe = s->dqp + 12 * 2 * e;
            for (int k = 0; k < 36; ++k) v += br[k] * xe[k];
            s->rrhs[s->sig_roff[e] + col] = -v;
        }
    band_solve(s->nred, s->rkl, s->rku, s->rband, s->rldab, s->ripiv, s->rrhs);

    /* back to the full increments: dq = T1 dred + dq_p, rigid stresses as solved */
    memset(dX, 0, sizeof(double) * s->nx);
    for (int I = 0; I < nn; ++I) {
        int o = s->node_off[I], ro = s->node_roff[I];
        if (o < 0) continue;
        const double(*Pn)[3] = (const double(*)[3])(s->Pn + 27 * I);
        for (int c = 0; c < 3; ++c) dX[o + c] = s->rrhs[ro + c];
        for (int k = 0; k < 9; ++k)
            dX[o + 3 + k] = s->dqp[12 * I + 3 + k] + Pn[k][0] * s->rrhs[ro + 3] + Pn[k][1] * s->rrhs[ro + 4] +
                            Pn[k][2] * s->rrhs[ro + 5];
        memcpy(s->dqp + 12 * I, dX + o, sizeof(double) * 12); /* dqp now holds the full dq */
    }
    for (int e = 0; e < s->ne; ++e)
        for (int col = 0; col < n2; ++col) dX[s->sig_off[e] + col] = s->rrhs[s->sig_roff[e] + col];

    /* multipliers from the director rows: fac G_m^T dlambda = -(r_d + (K dq)_d + (Bc dsigma)_d) */
    apply_K(s, s->dqp, s->kdq, 1, 1);
    for (int e = 0; e < s->ne && nr; ++e) {
        const double *Bc = s->Bc + (size_t)e * 72 * nr;
        for (int a = 0; a < 3; ++a) {
            if (s->node_off[2 * e + a] < 0) continue;
            for (int i = 0; i < 12; ++i) {
                double v = 0;
                for (int col = 0; col < n2; ++col) v += Bc[(12 * a + i) * n2 + col] * dX[s->sig_off[e] + col];
                s->kdq[12 * (2 * e + a) + i] += v;
            }
        }
    }
    for (int I = 0; I < nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        const double *Gm = s->Gm + 54 * I;
        double sd[9], b[6];
        for (int c = 0; c < 9; ++c) sd[c] = -(r[o + 3 + c] + s->kdq[12 * I + 3 + c]);
        for (int k = 0; k < 6; ++k) {
            double v = 0;
            for (int c = 0; c < 9; ++c) v += Gm[9 * k + c] * sd[c];
            b[k] = v / s->fac;
        }
        ph_gram_apply(s->gramm + 36 * I, b);
        memcpy(dX + o + 12, b, sizeof(double) * 6);
    }
}

cr_status ph_linear_solve(cr_ph *s, const double *r, double *dX, int *bad)
{
    cr_status st = ph_linear_factor(s, bad);
    if (st != CR_OK) return st;
    ph_linear_apply(s, r, dX);
    return CR_OK;
}
