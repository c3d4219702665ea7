/* Static residual and exact Jacobian of the mixed discrete rod (eqs. 7, 9, 18–24).
 * Every term is local to one element or one tendon segment (two nodes), so the
 * assembly is one pass over elements plus one over nodes: O(n). */
#include "mixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* local column layout of a two-node term: q_a (0..6), q_b (7..13), rigid multipliers (14..) */
#define NC (2 * CR_NODE_DOF + 6)
#define COL_RA 0
#define COL_PA 3
#define COL_RB 7
#define COL_PB 10
#define COL_LAM 14

typedef double local_rows[NC];

/* Where column `c` of a two-node term (nodes a = i, b = i+1) lands for a row in block `row_block`. */
static double *target_block(cr_blocktri *J, int row_block, int col_block)
{
    if (col_block == row_block) return cr_blocktri_D(J, row_block);
    if (col_block == row_block + 1) return cr_blocktri_U(J, row_block);
    return cr_blocktri_L(J, row_block);
}

/* Adds `nrows` local rows (local column layout) into block row `row_block` starting at
 * row `row0` of that block. The two-node term couples nodes a and a+1; its multiplier
 * columns belong to block a. */
static void assemble(cr_blocktri *J, int a, int row_block, int row0, int nrows, local_rows *rows, int nr)
{
    int b = J->b;
    double *Da = target_block(J, row_block, a), *Db = target_block(J, row_block, a + 1);
    for (int r = 0; r < nrows; ++r) {
        double *ra = Da + (size_t)(row0 + r) * b, *rb = Db + (size_t)(row0 + r) * b;
        for (int c = 0; c < CR_NODE_DOF; ++c) {
            ra[c] += rows[r][COL_RA + c];
            rb[c] += rows[r][COL_RB + c];
        }
        for (int c = 0; c < nr; ++c) ra[CR_NODE_DOF + c] += rows[r][COL_LAM + c];
    }
}

/* rows[r0..r0+2][c0..c0+k) += s * M (3×k, row stride ld) */
static void put3(local_rows *rows, int r0, int c0, const double *M, int k, int ld, double s)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < k; ++j) rows[r0 + i][c0 + j] += s * M[i * ld + j];
}

/* out (3×nc) = M (3×3) · G (3×nc) */
static void mat3_times_rows(cr_mat3 M, local_rows *G, local_rows *out, int nc)
{
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) out[i][c] = M.m[i][0] * G[0][c] + M.m[i][1] * G[1][c] + M.m[i][2] * G[2][c];
}

/* dst (3×nc) += s M (3×3) · G (3×nc) */
static void mat3_times_rows_add(cr_mat3 M, local_rows *G, local_rows *dst, int nc, double s)
{
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) dst[i][c] += s * (M.m[i][0] * G[0][c] + M.m[i][1] * G[1][c] + M.m[i][2] * G[2][c]);
}

static void add_node_force(double *F, int block, int node, cr_vec3 f, cr_vec3 mom)
{
    double *Fi = F + (size_t)node * block;
    Fi[0] += f.x, Fi[1] += f.y, Fi[2] += f.z;
    Fi[3] += mom.x, Fi[4] += mom.y, Fi[5] += mom.z;
}

/* Element e between nodes a = e and b = e+1: the internal forces W^l λ on node a and
 * W^r λ on node b (eqs. 19–20), plus the rigid-component constraint rows. */
static void element_term(const cr_model *m, int e, const double *x, double *F, cr_blocktri *J)
{
    const cr_element *el = &m->el[e];
    const int B = m->block, nr = m->rigid_count;
    const double *xa = x + (size_t)e * B, *xb = xa + B;
    cr_vec3 ra = cr_v3_load(xa), rb = cr_v3_load(xb);
    cr_quat pa = cr_q_load(xa + 3), pb = cr_q_load(xb + 3);
    cr_quat pe = cr_q_scale(cr_q_add(pa, pb), 0.5), dp = cr_q_sub(pb, pa);
    cr_vec3 dr = cr_v3_sub(rb, ra);
    const double L = el->length, il = 1.0 / L;
    cr_mat3 A = cr_q_exp(pe);
    cr_vec3 gamma = cr_v3_scale(cr_m3_tmulv(A, dr), il);   /* eq. (7) */
    cr_vec3 kappa = cr_v3_scale(cr_q_dexp(pe, dp), il);

    /* stresses: condensed compliance law λ = K_c l (eq. 9, spec §2) or rigid multipliers */
    double lam[6], strain[6] = {gamma.x - el->gamma0.x, gamma.y - el->gamma0.y, gamma.z - el->gamma0.z,
                                kappa.x - el->kappa0.x, kappa.y - el->kappa0.y, kappa.z - el->kappa0.z};
    double stiff[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
    int rigid_slot[6] = {-1, -1, -1, -1, -1, -1};
    for (int j = 0; j < nr; ++j) rigid_slot[m->rigid_index[j]] = j;
    for (int k = 0; k < 6; ++k) lam[k] = rigid_slot[k] >= 0 ? xa[CR_NODE_DOF + rigid_slot[k]] : stiff[k] * strain[k];
    cr_vec3 n = cr_v3(lam[0], lam[1], lam[2]), mo = cr_v3(lam[3], lam[4], lam[5]);

    cr_vec3 f = cr_m3_mulv(A, n);
    cr_vec3 S = cr_v3_scale(cr_v3_add(cr_v3_cross(gamma, n), cr_v3_cross(kappa, mo)), 0.5 * L);
    add_node_force(F, B, e, f, cr_v3_add(S, mo));
    add_node_force(F, B, e + 1, cr_v3_neg(f), cr_v3_sub(S, mo));
    for (int j = 0; j < nr; ++j) F[(size_t)e * B + CR_NODE_DOF + j] += L * strain[m->rigid_index[j]];
    if (!J) return;

    /* dγ/dq, dκ/dq (3×NC) */
    local_rows Gg[3], Gk[3], Gn[3], Gm[3];
    memset(Gg, 0, sizeof Gg);
    memset(Gk, 0, sizeof Gk);
    double D[3][4], dE[3][4];
    cr_q_exp_tmulv_dp(pe, dr, D);
    put3(Gg, 0, COL_PA, &D[0][0], 4, 4, 0.5 * il);
    put3(Gg, 0, COL_PB, &D[0][0], 4, 4, 0.5 * il);
    cr_mat3 At = cr_m3_transpose(A);
    put3(Gg, 0, COL_RA, &At.m[0][0], 3, 3, -il);
    put3(Gg, 0, COL_RB, &At.m[0][0], 3, 3, il);
    cr_q_dexp_mulv_dp(pe, dp, D);
    cr_q_dexp_matrix(pe, dE);
    put3(Gk, 0, COL_PA, &D[0][0], 4, 4, 0.5 * il);
    put3(Gk, 0, COL_PB, &D[0][0], 4, 4, 0.5 * il);
    put3(Gk, 0, COL_PA, &dE[0][0], 4, 4, -il);
    put3(Gk, 0, COL_PB, &dE[0][0], 4, 4, il);
    /* dn/dq, dm/dq: stiffness rows, or unit columns of the multipliers */
    const int nc = COL_LAM + nr;
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) {
            Gn[i][c] = rigid_slot[i] >= 0 ? 0.0 : stiff[i] * Gg[i][c];
            Gm[i][c] = rigid_slot[3 + i] >= 0 ? 0.0 : stiff[3 + i] * Gk[i][c];
        }
    for (int k = 0; k < 6; ++k)
        if (rigid_slot[k] >= 0) (k < 3 ? Gn[k] : Gm[k - 3])[COL_LAM + rigid_slot[k]] = 1.0;

    /* d(A n)/dq */
    local_rows Gf[3], GS[3];
    mat3_times_rows(A, Gn, Gf, nc);
    cr_q_exp_mulv_dp(pe, n, D);
    put3(Gf, 0, COL_PA, &D[0][0], 4, 4, 0.5);
    put3(Gf, 0, COL_PB, &D[0][0], 4, 4, 0.5);
    /* d S/dq = L/2 (-ñ Gγ + γ̃ Gn - m̃ Gκ + κ̃ Gm) */
    double h = 0.5 * L;
    mat3_times_rows(cr_m3_skew(n), Gg, GS, nc);
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) GS[i][c] *= -h;
    mat3_times_rows_add(cr_m3_skew(gamma), Gn, GS, nc, h);
    mat3_times_rows_add(cr_m3_skew(mo), Gk, GS, nc, -h);
    mat3_times_rows_add(cr_m3_skew(kappa), Gm, GS, nc, h);

    local_rows rows[6];
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) {
            rows[i][c] = Gf[i][c];
            rows[3 + i][c] = GS[i][c] + Gm[i][c];
        }
    /* U_e and L_{e+1} receive their first contribution here (the caller zeroes only
     * the diagonal blocks) */
    memset(cr_blocktri_U(J, e), 0, (size_t)B * B * sizeof(double));
    memset(cr_blocktri_L(J, e + 1), 0, (size_t)B * B * sizeof(double));
    assemble(J, e, e, 0, 6, rows, nr);
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) {
            rows[i][c] = -Gf[i][c];
            rows[3 + i][c] = GS[i][c] - Gm[i][c];
        }
    assemble(J, e, e + 1, 0, 6, rows, nr);
    if (nr > 0) {
        local_rows crow[6];
        for (int j = 0; j < nr; ++j) {
            int k = m->rigid_index[j];
            const double *g = k < 3 ? Gg[k] : Gk[k - 3];
            for (int c = 0; c < nc; ++c) crow[j][c] = L * g[c];
        }
        assemble(J, e, e, CR_NODE_DOF, nr, crow, nr);
    }
}

/* Tendon segment between nodes a and a+1 (spec §8.2): the potential T·|P_{a+1} - P_a|
 * with P_k = r_k + A_k d_k gives node a the force T ν and node a+1 the force -T ν
 * (inertial), each with the body moment d_k × (A_kᵀ f_k). */
static void tendon_segment(const cr_model *m, const cr_tendon *t, int a, double lf, const double *x, double *F,
                           cr_blocktri *J)
{
    const int B = m->block;
    int node[2] = {a, a + 1};
    cr_vec3 r[2], d[2], P[2];
    cr_quat p[2];
    cr_mat3 A[2];
    for (int k = 0; k < 2; ++k) {
        r[k] = cr_x_position(m, x, node[k]);
        p[k] = cr_x_orientation(m, x, node[k]);
        A[k] = cr_q_exp(p[k]);
        d[k] = t->offset[node[k] - t->first];
        P[k] = cr_v3_add(r[k], cr_m3_mulv(A[k], d[k]));
    }
    cr_vec3 e = cr_v3_sub(P[1], P[0]);
    double len = cr_v3_norm(e);
    if (!(len > 0)) return; /* coincident attachment points carry no direction */
    cr_vec3 nu = cr_v3_scale(e, 1.0 / len);
    double T = lf * t->tension;
    cr_vec3 f[2] = {cr_v3_scale(nu, T), cr_v3_scale(nu, -T)};
    for (int k = 0; k < 2; ++k)
        add_node_force(F, B, node[k], f[k], cr_v3_cross(d[k], cr_m3_tmulv(A[k], f[k])));
    if (!J) return;

    /* dν/dq = (E - ν νᵀ)/|e| (dP_{a+1}/dq - dP_a/dq), dP_k/dq_k = [E | d(A_k d_k)/dp_k] */
    local_rows dP[3], dnu[3];
    memset(dP, 0, sizeof dP);
    double D[3][4];
    for (int k = 0; k < 2; ++k) {
        double s = k == 0 ? -1.0 : 1.0;
        int c0 = k == 0 ? COL_RA : COL_RB;
        for (int i = 0; i < 3; ++i) dP[i][c0 + i] = s;
        cr_q_exp_mulv_dp(p[k], d[k], D);
        put3(dP, 0, c0 + 3, &D[0][0], 4, 4, s);
    }
    cr_mat3 N;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) N.m[i][j] = ((i == j) - cr_v3_get(nu, i) * cr_v3_get(nu, j)) / len;
    const int nc = COL_LAM;
    mat3_times_rows(N, dP, dnu, nc);
    for (int k = 0; k < 2; ++k) {
        double s = k == 0 ? T : -T;
        local_rows rows[6], tmp[3];
        memset(rows, 0, sizeof rows);
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < nc; ++c) rows[i][c] = s * dnu[i][c];
        /* moment d~ A^T f: d~ [d(A^T f)/dp_k] + d~ A^T s dν/dq */
        cr_mat3 dt = cr_m3_skew(d[k]);
        mat3_times_rows(cr_m3_mul(dt, cr_m3_transpose(A[k])), dnu, tmp, nc);
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < nc; ++c) rows[3 + i][c] = s * tmp[i][c];
        cr_q_exp_tmulv_dp(p[k], f[k], D);
        int cp = k == 0 ? COL_PA : COL_PB;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 4; ++j)
                rows[3 + i][cp + j] += dt.m[i][0] * D[0][j] + dt.m[i][1] * D[1][j] + dt.m[i][2] * D[2][j];
        assemble(J, a, node[k], 0, 6, rows, 0);
    }
}

/* External nodal loads (eq. 18): dead and follower forces and moments, already lumped. */
static void nodal_loads(const cr_model *m, int i, double lf, const double *x, double *F, cr_blocktri *J)
{
    const int B = m->block;
    cr_quat p = cr_x_orientation(m, x, i);
    cr_vec3 fb = m->force_body[i], mi = m->moment_inertial[i];
    int has_fb = fb.x != 0 || fb.y != 0 || fb.z != 0, has_mi = mi.x != 0 || mi.y != 0 || mi.z != 0;
    cr_vec3 f = m->force_inertial[i], mo = m->moment_body[i];
    cr_mat3 A = (has_fb || has_mi) ? cr_q_exp(p) : cr_m3_identity();
    if (has_fb) f = cr_v3_add(f, cr_m3_mulv(A, fb));
    if (has_mi) mo = cr_v3_add(mo, cr_m3_tmulv(A, mi));
    add_node_force(F, B, i, cr_v3_scale(f, lf), cr_v3_scale(mo, lf));
    if (!J || !(has_fb || has_mi)) return;
    double *Dii = cr_blocktri_D(J, i), D[3][4];
    if (has_fb) {
        cr_q_exp_mulv_dp(p, fb, D);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) Dii[r * B + 3 + c] += lf * D[r][c];
    }
    if (has_mi) {
        cr_q_exp_tmulv_dp(p, mi, D);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) Dii[(3 + r) * B + 3 + c] += lf * D[r][c];
    }
}

cr_status cr_mixed_static_residual(const cr_model *m, double lf, const double *x, double *F, cr_blocktri *J,
                                   double *node_equilibrium)
{
    const int B = m->block, nn = m->nodes, nr = m->rigid_count;
    memset(F, 0, (size_t)nn * B * sizeof *F);
    if (J) { /* off-diagonal blocks are zeroed by element_term */
        memset(J->diag, 0, (size_t)nn * B * B * sizeof(double));
        J->factored = 0;
    }
    for (int e = 0; e < m->n; ++e) element_term(m, e, x, F, J);
    for (int k = 0; k < m->tendon_count; ++k) {
        const cr_tendon *t = &m->tendons[k];
        for (int a = t->first; a < t->last; ++a) tendon_segment(m, t, a, lf, x, F, J);
    }
    for (int i = 0; i < nn; ++i) {
        nodal_loads(m, i, lf, x, F, J);
        const double *xi = x + (size_t)i * B;
        double *Fi = F + (size_t)i * B;
        /* unit-norm equation (eq. 24) in the 7th row */
        Fi[6] = xi[3] * xi[3] + xi[4] * xi[4] + xi[5] * xi[5] + xi[6] * xi[6] - 1.0;
        if (J) {
            double *D = cr_blocktri_D(J, i);
            for (int c = 0; c < 4; ++c) D[6 * B + 3 + c] = 2.0 * xi[3 + c];
        }
        /* the last node has no element to its right: its multiplier slots are zero */
        if (i == nn - 1)
            for (int j = 0; j < nr; ++j) {
                Fi[CR_NODE_DOF + j] = xi[CR_NODE_DOF + j];
                if (J) cr_blocktri_D(J, i)[(CR_NODE_DOF + j) * B + CR_NODE_DOF + j] = 1.0;
            }
        if (node_equilibrium) memcpy(node_equilibrium + (size_t)i * 6, Fi, 6 * sizeof *Fi);
        if (m->bc_type[i] < 0) continue;
        /* constrained node: its 7 rows become x - target; the equilibrium rows are the reaction */
        cr_vec3 rt;
        cr_quat pt;
        cr_model_bc_target(m, i, lf, &rt, &pt);
        double tgt[7] = {rt.x, rt.y, rt.z, pt.w, pt.x, pt.y, pt.z};
        for (int r = 0; r < CR_NODE_DOF; ++r) Fi[r] = xi[r] - tgt[r];
        if (J) {
            double *blocks[3] = {cr_blocktri_D(J, i), i > 0 ? cr_blocktri_L(J, i) : NULL,
                                 i < nn - 1 ? cr_blocktri_U(J, i) : NULL};
            for (int k = 0; k < 3; ++k)
                if (blocks[k]) memset(blocks[k], 0, (size_t)CR_NODE_DOF * B * sizeof(double));
            for (int r = 0; r < CR_NODE_DOF; ++r) blocks[0][r * B + r] = 1.0;
        }
    }
    for (size_t k = 0; k < (size_t)nn * B; ++k)
        if (!isfinite(F[k])) return CR_NONFINITE;
    return CR_OK;
}

/* Adds the 3×3 block K to the position Jacobian of a force that pulls node a
 * towards node a+1 with stiffness K (f_a = K (r_{a+1} - r_a) + ..., f_{a+1} = -f_a). */
static void add_pair_stiffness(cr_blocktri *J, int a, cr_mat3 K)
{
    double *Daa = cr_blocktri_D(J, a), *Uab = cr_blocktri_U(J, a), *Lba = cr_blocktri_L(J, a + 1),
           *Dbb = cr_blocktri_D(J, a + 1);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            Daa[r * 3 + c] -= K.m[r][c];
            Uab[r * 3 + c] += K.m[r][c];
            Lba[r * 3 + c] += K.m[r][c];
            Dbb[r * 3 + c] -= K.m[r][c];
        }
}

cr_status cr_mixed_force_residual(const cr_model *m, double lf, const double *x, double *F, cr_blocktri *J)
{
    const int nn = m->nodes;
    memset(F, 0, (size_t)nn * 3 * sizeof *F);
    cr_blocktri_zero(J);
    for (int e = 0; e < m->n; ++e) {
        const cr_element *el = &m->el[e];
        cr_quat pe = cr_q_scale(cr_q_add(cr_x_orientation(m, x, e), cr_x_orientation(m, x, e + 1)), 0.5);
        cr_mat3 A = cr_q_exp(pe);
        cr_vec3 gamma = cr_v3_scale(cr_m3_tmulv(A, cr_v3_sub(cr_x_position(m, x, e + 1), cr_x_position(m, x, e))),
                                    1.0 / el->length);
        cr_vec3 f = cr_m3_mulv(A, cr_v3_mul(el->k_force, cr_v3_sub(gamma, el->gamma0)));
        for (int r = 0; r < 3; ++r) {
            F[3 * e + r] += cr_v3_get(f, r);
            F[3 * (e + 1) + r] -= cr_v3_get(f, r);
        }
        /* d(A K_n Aᵀ Δr / L)/dΔr */
        cr_mat3 K;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                K.m[r][c] = (el->k_force.x * A.m[r][0] * A.m[c][0] + el->k_force.y * A.m[r][1] * A.m[c][1] +
                             el->k_force.z * A.m[r][2] * A.m[c][2]) / el->length;
        add_pair_stiffness(J, e, K);
    }
    for (int k = 0; k < m->tendon_count; ++k) {
        const cr_tendon *t = &m->tendons[k];
        for (int a = t->first; a < t->last; ++a) {
            cr_vec3 P[2];
            for (int j = 0; j < 2; ++j)
                P[j] = cr_v3_add(cr_x_position(m, x, a + j),
                                 cr_m3_mulv(cr_q_exp(cr_x_orientation(m, x, a + j)), t->offset[a + j - t->first]));
            cr_vec3 d = cr_v3_sub(P[1], P[0]);
            double len = cr_v3_norm(d), T = lf * t->tension;
            if (!(len > 0)) continue;
            cr_vec3 nu = cr_v3_scale(d, 1.0 / len);
            cr_mat3 K;
            for (int r = 0; r < 3; ++r) {
                F[3 * a + r] += T * cr_v3_get(nu, r);
                F[3 * (a + 1) + r] -= T * cr_v3_get(nu, r);
                for (int c = 0; c < 3; ++c) K.m[r][c] = T * ((r == c) - cr_v3_get(nu, r) * cr_v3_get(nu, c)) / len;
            }
            add_pair_stiffness(J, a, K);
        }
    }
    for (int i = 0; i < nn; ++i) {
        cr_vec3 f = m->force_inertial[i], fb = m->force_body[i];
        if (fb.x != 0 || fb.y != 0 || fb.z != 0) f = cr_v3_add(f, cr_m3_mulv(cr_q_exp(cr_x_orientation(m, x, i)), fb));
        for (int r = 0; r < 3; ++r) F[3 * i + r] += lf * cr_v3_get(f, r);
        if (m->bc_type[i] < 0) continue;
        cr_vec3 rt;
        cr_quat pt;
        cr_model_bc_target(m, i, lf, &rt, &pt);
        cr_vec3 ri = cr_x_position(m, x, i);
        for (int r = 0; r < 3; ++r) F[3 * i + r] = cr_v3_get(ri, r) - cr_v3_get(rt, r);
        double *blocks[3] = {cr_blocktri_D(J, i), i > 0 ? cr_blocktri_L(J, i) : NULL, i < nn - 1 ? cr_blocktri_U(J, i) : NULL};
        for (int k = 0; k < 3; ++k)
            if (blocks[k]) memset(blocks[k], 0, 9 * sizeof(double));
        for (int r = 0; r < 3; ++r) blocks[0][r * 3 + r] = 1.0;
    }
    for (size_t k = 0; k < (size_t)nn * 3; ++k)
        if (!isfinite(F[k])) return CR_NONFINITE;
    return CR_OK;
}

cr_status cr_state_reaction(const cr_model *m, const cr_state *s, int node, cr_vec3 *force, cr_vec3 *moment)
{
    if (node < 0) node += m->nodes;
    if (node < 0 || node >= m->nodes || m->bc_type[node] < 0) return CR_BAD_INPUT;
    /* Only the two adjacent elements and the node's own loads contribute; evaluate
     * them on a three-node window would duplicate the assembly, so evaluate all: O(n). */
    size_t len = (size_t)m->nodes * m->block;
    double *F = malloc(len * sizeof *F), *eq = malloc((size_t)m->nodes * 6 * sizeof *eq);
    if (!F || !eq) {
        free(F);
        free(eq);
        return CR_NO_MEMORY;
    }
    cr_mixed_static_residual(m, s->load_factor, s->x, F, NULL, eq);
    /* reaction = -(f_ext + W λ) at the node */
    if (force) *force = cr_v3_neg(cr_v3_load(eq + (size_t)node * 6));
    if (moment) *moment = cr_v3_neg(cr_v3_load(eq + (size_t)node * 6 + 3));
    free(F);
    free(eq);
    return CR_OK;
}
