/* Element, tendon and load terms of the mixed discrete rod with exact Jacobians.
 * Every term couples at most two neighbouring nodes: one pass over elements,
 * tendon segments and loads assembles the block-tridiagonal Jacobian in O(n). */
#include "terms.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* local column layout of a two-node term: q_a (0..6), q_b (7..13), stress unknowns (14..) */
#define NC (2 * CR_NODE_DOF + 6)
#define COL_RA 0
#define COL_PA 3
#define COL_RB 7
#define COL_PB 10
#define COL_LAM 14

typedef double local_rows[NC];

cr_layout cr_layout_static(const cr_model *m)
{
    cr_layout ly = {.block = m->block, .eq_row = 0, .lam_base = CR_NODE_DOF, .rigid_unknowns = 1};
    for (int k = 0; k < 6; ++k) ly.slot[k] = -1;
    for (int j = 0; j < m->rigid_count; ++j) ly.slot[m->rigid_index[j]] = j;
    ly.stress_unknowns = m->rigid_count;
    return ly;
}

static cr_vec3 pos(const cr_layout *ly, const double *x, int i) { return cr_v3_load(x + (size_t)i * ly->block); }
static cr_quat quat(const cr_layout *ly, const double *x, int i) { return cr_q_load(x + (size_t)i * ly->block + 3); }

static double *target_block(cr_blocktri *J, int row_block, int col_block)
{
    if (col_block == row_block) return cr_blocktri_D(J, row_block);
    if (col_block == row_block + 1) return cr_blocktri_U(J, row_block);
    return cr_blocktri_L(J, row_block);
}

/* Adds `nrows` local rows into block row `row_block` from row `row0` on. The term
 * couples nodes a and a+1; its stress columns belong to block a. */
static void assemble(cr_blocktri *J, const cr_layout *ly, int a, int row_block, int row0, int nrows, local_rows *rows)
{
    int b = J->b, ns = ly->stress_unknowns;
    double *Da = target_block(J, row_block, a), *Db = target_block(J, row_block, a + 1);
    for (int r = 0; r < nrows; ++r) {
        double *ra = Da + (size_t)(row0 + r) * b, *rb = Db + (size_t)(row0 + r) * b;
        for (int c = 0; c < CR_NODE_DOF; ++c) {
            ra[c] += rows[r][COL_RA + c];
            rb[c] += rows[r][COL_RB + c];
        }
        for (int c = 0; c < ns; ++c) ra[ly->lam_base + c] += rows[r][COL_LAM + c];
    }
}

/* rows[r0..r0+2][c0..c0+k) += s * M (3×k, row stride ld) */
static void put3(local_rows *rows, int r0, int c0, const double *M, int k, int ld, double s)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < k; ++j) rows[r0 + i][c0 + j] += s * M[i * ld + j];
}

static void mat3_times_rows(cr_mat3 M, local_rows *G, local_rows *out, int nc)
{
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) out[i][c] = M.m[i][0] * G[0][c] + M.m[i][1] * G[1][c] + M.m[i][2] * G[2][c];
}

static void mat3_times_rows_add(cr_mat3 M, local_rows *G, local_rows *dst, int nc, double s)
{
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) dst[i][c] += s * (M.m[i][0] * G[0][c] + M.m[i][1] * G[1][c] + M.m[i][2] * G[2][c]);
}

static void add_node_force(double *F, const cr_layout *ly, int node, cr_vec3 f, cr_vec3 mom)
{
    double *Fi = F + (size_t)node * ly->block + ly->eq_row;
    Fi[0] += f.x, Fi[1] += f.y, Fi[2] += f.z;
    Fi[3] += mom.x, Fi[4] += mom.y, Fi[5] += mom.z;
}

/* Element e between nodes a = e and b = e+1: W^l λ on node a, W^r λ on node b
 * (eqs. 19–20), and the stress rows c_k λ_k - Δstrain_k of the unknown components. */
void cr_term_element(const cr_model *m, const cr_layout *ly, int e, const double *x, double *F, cr_blocktri *J)
{
    const cr_element *el = &m->el[e];
    const int B = ly->block, ns = ly->stress_unknowns;
    cr_vec3 ra = pos(ly, x, e), rb = pos(ly, x, e + 1);
    cr_quat pa = quat(ly, x, e), pb = quat(ly, x, e + 1);
    cr_quat pe = cr_q_scale(cr_q_add(pa, pb), 0.5), dp = cr_q_sub(pb, pa);
    cr_vec3 dr = cr_v3_sub(rb, ra);
    const double L = el->length, il = 1.0 / L;
    cr_mat3 A = cr_q_exp(pe);
    cr_vec3 gamma = cr_v3_scale(cr_m3_tmulv(A, dr), il); /* eq. (7) */
    cr_vec3 kappa = cr_v3_scale(cr_q_dexp(pe, dp), il);

    /* stresses: unknowns, or condensed from the compliance law λ = K_c l (eq. 9, spec §2) */
    const double *xs = x + (size_t)e * B + ly->lam_base;
    double lam[6], strain[6] = {gamma.x - el->gamma0.x, gamma.y - el->gamma0.y, gamma.z - el->gamma0.z,
                                kappa.x - el->kappa0.x, kappa.y - el->kappa0.y, kappa.z - el->kappa0.z};
    double stiff[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
    for (int k = 0; k < 6; ++k) lam[k] = ly->slot[k] >= 0 ? xs[ly->slot[k]] : stiff[k] * strain[k];
    cr_vec3 n = cr_v3(lam[0], lam[1], lam[2]), mo = cr_v3(lam[3], lam[4], lam[5]);

    cr_vec3 f = cr_m3_mulv(A, n);
    cr_vec3 S = cr_v3_scale(cr_v3_add(cr_v3_cross(gamma, n), cr_v3_cross(kappa, mo)), 0.5 * L);
    add_node_force(F, ly, e, f, cr_v3_add(S, mo));
    add_node_force(F, ly, e + 1, cr_v3_neg(f), cr_v3_sub(S, mo));
    for (int k = 0; k < 6; ++k) {
        int j = ly->slot[k];
        if (j < 0) continue;
        double c = ly->rigid_unknowns ? 0.0 : 1.0 / stiff[k];
        F[(size_t)e * B + ly->lam_base + j] += c * lam[k] - strain[k];
    }
    if (!J) return;

    /* dγ/dq, dκ/dq (3×nc) */
    const int nc = COL_LAM + ns;
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
    /* dn/dq, dm/dq: stiffness rows (condensed), or unit columns of the unknowns */
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) {
            Gn[i][c] = ly->slot[i] >= 0 ? 0.0 : stiff[i] * Gg[i][c];
            Gm[i][c] = ly->slot[3 + i] >= 0 ? 0.0 : stiff[3 + i] * Gk[i][c];
        }
    for (int k = 0; k < 6; ++k)
        if (ly->slot[k] >= 0) (k < 3 ? Gn[k] : Gm[k - 3])[COL_LAM + ly->slot[k]] = 1.0;

    /* d(A n)/dq */
    local_rows Gf[3], GS[3];
    mat3_times_rows(A, Gn, Gf, nc);
    cr_q_exp_mulv_dp(pe, n, D);
    put3(Gf, 0, COL_PA, &D[0][0], 4, 4, 0.5);
    put3(Gf, 0, COL_PB, &D[0][0], 4, 4, 0.5);
    /* dS/dq = L/2 (-ñ Gγ + γ̃ Gn - m̃ Gκ + κ̃ Gm) */
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
    memset(cr_blocktri_U(J, e), 0, (size_t)B * B * sizeof(double));
    memset(cr_blocktri_L(J, e + 1), 0, (size_t)B * B * sizeof(double));
    assemble(J, ly, e, e, ly->eq_row, 6, rows);
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < nc; ++c) {
            rows[i][c] = -Gf[i][c];
            rows[3 + i][c] = GS[i][c] - Gm[i][c];
        }
    assemble(J, ly, e, e + 1, ly->eq_row, 6, rows);
    if (ns > 0) {
        local_rows srow[6];
        for (int k = 0; k < 6; ++k) {
            int j = ly->slot[k];
            if (j < 0) continue;
            const double *g = k < 3 ? Gg[k] : Gk[k - 3];
            for (int c = 0; c < nc; ++c) srow[j][c] = -g[c];
            srow[j][COL_LAM + j] += ly->rigid_unknowns ? 0.0 : 1.0 / stiff[k];
        }
        assemble(J, ly, e, e, ly->lam_base, ns, srow);
    }
}

/* Tendon segment between nodes a and a+1 (spec §8.2): the potential T·|P_{a+1} - P_a|
 * with P_k = r_k + A_k d_k gives node a the force T ν and node a+1 the force -T ν
 * (inertial), each with the body moment d_k × (A_kᵀ f_k). */
void cr_term_tendon_segment(const cr_model *m, const cr_layout *ly, const cr_tendon *t, int a, double T,
                            const double *x, double *F, cr_blocktri *J)
{
    int node[2] = {a, a + 1};
    cr_vec3 d[2], P[2];
    cr_quat p[2];
    cr_mat3 A[2];
    for (int k = 0; k < 2; ++k) {
        p[k] = quat(ly, x, node[k]);
        A[k] = cr_q_exp(p[k]);
        d[k] = t->offset[node[k] - t->first];
        P[k] = cr_v3_add(pos(ly, x, node[k]), cr_m3_mulv(A[k], d[k]));
    }
    cr_vec3 e = cr_v3_sub(P[1], P[0]);
    double len = cr_v3_norm(e);
    if (!(len > 0)) return; /* coincident attachment points carry no direction */
    cr_vec3 nu = cr_v3_scale(e, 1.0 / len);
    cr_vec3 f[2] = {cr_v3_scale(nu, T), cr_v3_scale(nu, -T)};
    for (int k = 0; k < 2; ++k) add_node_force(F, ly, node[k], f[k], cr_v3_cross(d[k], cr_m3_tmulv(A[k], f[k])));
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
    cr_layout no_stress = *ly;
    no_stress.stress_unknowns = 0;
    for (int k = 0; k < 2; ++k) {
        double s = k == 0 ? T : -T;
        local_rows rows[6], tmp[3];
        memset(rows, 0, sizeof rows);
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < nc; ++c) rows[i][c] = s * dnu[i][c];
        /* moment d~ Aᵀ f: d~ [d(Aᵀ f)/dp_k] + d~ Aᵀ s dν/dq */
        cr_mat3 dt = cr_m3_skew(d[k]);
        mat3_times_rows(cr_m3_mul(dt, cr_m3_transpose(A[k])), dnu, tmp, nc);
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < nc; ++c) rows[3 + i][c] = s * tmp[i][c];
        cr_q_exp_tmulv_dp(p[k], f[k], D);
        int cp = k == 0 ? COL_PA : COL_PB;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 4; ++j)
                rows[3 + i][cp + j] += dt.m[i][0] * D[0][j] + dt.m[i][1] * D[1][j] + dt.m[i][2] * D[2][j];
        assemble(J, &no_stress, a, node[k], ly->eq_row, 6, rows);
    }
}

/* Adds d(·)/dp (3×4, scaled) to rows row0.. of node i's diagonal block, quaternion columns. */
static void add_dp(cr_blocktri *J, const cr_layout *ly, int i, int row0, double D[3][4], double s)
{
    double *Dii = cr_blocktri_D(J, i);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) Dii[(size_t)(row0 + r) * ly->block + 3 + c] += s * D[r][c];
}

/* A force at a point of node i's body (offset c in the node basis; c = 0 for the node
 * itself), dead (components in I) or following a body with axes `axes` in the node
 * basis: the node gets the force and the moment c × (Aᵀ f). */
static void point_force(const cr_layout *ly, int i, cr_vec3 value, int follower, cr_mat3 axes, cr_vec3 c, double s,
                        const double *x, double *F, cr_blocktri *J)
{
    cr_quat p = quat(ly, x, i);
    cr_mat3 A = cr_q_exp(p);
    int offset = c.x != 0 || c.y != 0 || c.z != 0;
    cr_vec3 fb = follower ? cr_m3_mulv(axes, value) : cr_m3_tmulv(A, value); /* in the node basis */
    cr_vec3 fi = follower ? cr_m3_mulv(A, fb) : value;
    add_node_force(F, ly, i, cr_v3_scale(fi, s), offset ? cr_v3_scale(cr_v3_cross(c, fb), s) : cr_v3(0, 0, 0));
    if (!J) return;
    double D[3][4];
    if (follower) { /* d(A fb)/dp; the moment c × fb is constant */
        cr_q_exp_mulv_dp(p, fb, D);
        add_dp(J, ly, i, ly->eq_row, D, s);
    } else if (offset) { /* d(c × Aᵀ f)/dp = c~ d(Aᵀ f)/dp */
        cr_q_exp_tmulv_dp(p, value, D);
        cr_mat3 ct = cr_m3_skew(c);
        double CD[3][4];
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 4; ++k) CD[r][k] = ct.m[r][0] * D[0][k] + ct.m[r][1] * D[1][k] + ct.m[r][2] * D[2][k];
        add_dp(J, ly, i, ly->eq_row + 3, CD, s);
    }
}

/* A moment on node i's body: dead (I) or following a body with axes `axes`. */
static void point_moment(const cr_layout *ly, int i, cr_vec3 value, int follower, cr_mat3 axes, double s,
                         const double *x, double *F, cr_blocktri *J)
{
    if (follower) {
        add_node_force(F, ly, i, cr_v3(0, 0, 0), cr_v3_scale(cr_m3_mulv(axes, value), s));
        return;
    }
    cr_quat p = quat(ly, x, i);
    add_node_force(F, ly, i, cr_v3(0, 0, 0), cr_v3_scale(cr_m3_tmulv(cr_q_exp(p), value), s));
    if (!J) return;
    double D[3][4];
    cr_q_exp_tmulv_dp(p, value, D);
    add_dp(J, ly, i, ly->eq_row + 3, D, s);
}

static void tendon_forces(const cr_layout *ly, const cr_tendon *t, double T, const double *x, double *F);

/* Load k at magnitude s (eq. 18), distributed loads lumped with the weights of eq. (1). */
static void term_load(const cr_model *m, const cr_layout *ly, const cr_model_load *l, double s, const double *x,
                      double *F, cr_blocktri *J, int carried)
{
    const cr_mat3 I3 = cr_m3_identity();
    const cr_vec3 zero = cr_v3(0, 0, 0);
    int follower = l->frame == CR_FRAME_BODY;
    const cr_body *b = l->body >= 0 ? &m->bodies[l->body] : NULL;
    switch (l->type) {
    case CR_LOAD_FORCE:
        point_force(ly, l->node, l->value, follower, b ? b->relative : I3, b ? b->offset : zero, s, x, F, J);
        break;
    case CR_LOAD_MOMENT:
        point_moment(ly, l->node, l->value, follower, b ? b->relative : I3, s, x, F, J);
        break;
    case CR_LOAD_FORCE_DENSITY:
        for (int i = 0; i < m->nodes; ++i)
            point_force(ly, i, l->value, follower, I3, zero, s * m->lumped_length[i], x, F, J);
        break;
    case CR_LOAD_MOMENT_DENSITY:
        for (int i = 0; i < m->nodes; ++i)
            point_moment(ly, i, l->value, follower, I3, s * m->lumped_length[i], x, F, J);
        break;
    case CR_LOAD_GRAVITY:
        for (int i = 0; i < m->nodes; ++i)
            add_node_force(F, ly, i, cr_v3_scale(l->value, s * m->rho_area[i] * m->lumped_length[i]), zero);
        for (int j = 0; j < m->body_count; ++j)
            point_force(ly, m->bodies[j].node, l->value, 0, I3, m->bodies[j].offset, s * m->bodies[j].mass, x, F, J);
        break;
    case CR_LOAD_TENDON: {
        const cr_tendon *t = &m->tendons[l->tendon];
        if (carried) /* not in residuals: theirs must not depend on whether J is assembled */
            tendon_forces(ly, t, s * t->tension, x, F);
        else
            for (int a = t->first; a < t->last; ++a) cr_term_tendon_segment(m, ly, t, a, s * t->tension, x, F, J);
        break;
    }
    case CR_LOAD_CHAMBER:
        break; /* refused by this formulation's check (formulation.c) */
    }
}

/* External loads (eq. 18). */
void cr_term_loads(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                   cr_blocktri *J)
{
    for (int k = 0; k < m->load_count; ++k)
        if (scale[k] != 0) term_load(m, ly, &m->loads[k], scale[k], x, F, J, 0);
}

void cr_term_loads_forces_only(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F)
{
    for (int k = 0; k < m->load_count; ++k)
        if (scale[k] != 0) term_load(m, ly, &m->loads[k], scale[k], x, F, NULL, 1);
}

/* adds w · f to node i's force rows, f dead (I) or following the node (axes · value in B) */
static void add_force3(const cr_model *m, const double *x, int i, cr_vec3 value, int follower, cr_mat3 axes, double w,
                       double *F3)
{
    cr_vec3 f =
        follower ? cr_m3_mulv(cr_q_exp(cr_q_load(x + (size_t)i * m->block + 3)), cr_m3_mulv(axes, value)) : value;
    F3[3 * i] += w * f.x, F3[3 * i + 1] += w * f.y, F3[3 * i + 2] += w * f.z;
}

void cr_term_load_forces(const cr_model *m, const double *scale, const double *x, double *F3)
{
    /* the force rows only (statics layout), without Jacobian: the correction keeps
     * the orientations fixed, and no load force depends on the positions */
    const cr_mat3 I3 = cr_m3_identity();
    for (int k = 0; k < m->load_count; ++k) {
        const cr_model_load *l = &m->loads[k];
        double s = scale[k];
        int follower = l->frame == CR_FRAME_BODY;
        if (s == 0) continue;
        if (l->type == CR_LOAD_FORCE) {
            add_force3(m, x, l->node, l->value, follower, l->body >= 0 ? m->bodies[l->body].relative : I3, s, F3);
        } else if (l->type == CR_LOAD_FORCE_DENSITY) {
            for (int i = 0; i < m->nodes; ++i) add_force3(m, x, i, l->value, follower, I3, s * m->lumped_length[i], F3);
        } else if (l->type == CR_LOAD_GRAVITY) { /* rod and every welded body */
            for (int i = 0; i < m->nodes; ++i)
                add_force3(m, x, i, l->value, 0, I3, s * m->rho_area[i] * m->lumped_length[i], F3);
            for (int j = 0; j < m->body_count; ++j)
                add_force3(m, x, m->bodies[j].node, l->value, 0, I3, s * m->bodies[j].mass, F3);
        }
    }
}

void cr_term_rod(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                 cr_blocktri *J)
{
    memset(F, 0, (size_t)m->nodes * ly->block * sizeof *F);
    if (J) { /* the element terms overwrite the off-diagonal blocks */
        memset(J->diag, 0, (size_t)m->nodes * ly->block * ly->block * sizeof(double));
        J->factored = 0;
    }
    for (int e = 0; e < m->n; ++e) cr_term_element(m, ly, e, x, F, J);
    cr_term_loads(m, ly, scale, x, F, J);
}

/* ---- statics without stress unknowns: one fused pass over the elements ----
 *
 * With every stress condensed (no rigid components) the element Jacobian has a
 * fixed sparsity: γ depends on r through ±Aᵀ/L and on both quaternions through the
 * same 3×4 block, κ does not depend on r, and n, m are diagonal scalings of γ, κ.
 * The kernels (terms_element.h) multiply only these blocks (about 1 kflop per element
 * instead of the dense 3×14 products of cr_term_element) and the pass writes every block of J
 * and every force row of F exactly once: node e's diagonal block is the sum of
 * element e-1's and element e's contributions (and those of the tendon segments on
 * them), carried from one element to the next in registers and stack memory, so
 * nothing is zeroed first and nothing is read back. */

#if defined(__GNUC__)
#define TERMS_INLINE static inline __attribute__((always_inline))
#else
#define TERMS_INLINE static inline
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
#define TERMS_DISPATCH_AVX2 1 /* the element pass also in an AVX2 + FMA build, chosen at run time */
#endif

/* the element kernel for one element (double) */
#define ELEM_R double
#define ELEM_ZERO 0.0
#define ELEM_NAME(x) x##_d
#include "terms_element.h"
#undef ELEM_R
#undef ELEM_ZERO
#undef ELEM_NAME

#ifdef TERMS_DISPATCH_AVX2
/* and for four elements at once, one a lane (used in the AVX2 build of the pass only) */
typedef double elem_v4 __attribute__((vector_size(32)));
#define ELEM_R elem_v4
#define ELEM_ZERO ((elem_v4){0.0, 0.0, 0.0, 0.0})
#define ELEM_NAME(x) x##_v4
#include "terms_element.h"
#undef ELEM_R
#undef ELEM_ZERO
#undef ELEM_NAME
#endif

/* Element e's Jacobian rows in compact form: the distinct 3×3 and 3×4 blocks of its
 * contributions to D_a, U_e, L_{e+1} and D_b (a = e, b = e+1), with the tendon segments on
 * it summed in. Force rows 0..2 and moment rows 3..5, position columns (3) and quaternion
 * columns (4), eqs. (19)–(20):
 *              D_a           U_e           L_{e+1}       D_b
 *   forces    [-Kr | FA ]   [ Kr | FB]    [ Kr | -FA]   [-Kr | -FB ]
 *   moments   [-SA | MDa]   [ SA | MU]    [-SB | ML ]   [ SB | MDb ]
 * The pass writes each block of J once from these (no 14-column rows staged first). */
typedef struct elem_rows {
    double Kr[3][3], SA[3][3], SB[3][3];
    double FA[3][4], FB[3][4], MDa[3][4], MU[3][4], ML[3][4], MDb[3][4];
} elem_rows;

/* Element e's blocks (condensed stresses) from the state x (static layout, 7 per node). */
TERMS_INLINE void element_blocks_of(const cr_model *m, const double *x, int e, elem_blocks_d *b, int want_J)
{
    const cr_element *el = &m->el[e];
    const double *xa = x + (size_t)e * CR_NODE_DOF, *xb = xa + CR_NODE_DOF;
    const double kn[3] = {el->k_force.x, el->k_force.y, el->k_force.z};
    const double km[3] = {el->k_moment.x, el->k_moment.y, el->k_moment.z};
    const double g0[3] = {el->gamma0.x, el->gamma0.y, el->gamma0.z};
    const double k0[3] = {el->kappa0.x, el->kappa0.y, el->kappa0.z};
    element_blocks_d(xa + 3, xb + 3, xa, xb, &el->length, kn, km, g0, k0, b, want_J);
}

#ifdef TERMS_DISPATCH_AVX2
/* Elements e0..e0+3 in the lanes of b (elements past the last repeat it). GCC 12 takes the
 * vectors built here for uninitialized once the kernel is inlined (its
 * -Wmaybe-uninitialized on arrays of vectors passed by pointer); every lane is set. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
TERMS_INLINE void element_batch_v4(const cr_model *m, const double *x, int e0, elem_blocks_v4 *b, int want_J)
{
    const int ne = m->n;
    const cr_element *el[4];
    const double *xa[4];
    for (int k = 0; k < 4; ++k) {
        int e = e0 + k < ne ? e0 + k : ne - 1;
        el[k] = &m->el[e];
        xa[k] = x + (size_t)e * CR_NODE_DOF;
    }
#define X_V4(j) ((elem_v4){xa[0][j], xa[1][j], xa[2][j], xa[3][j]})
#define EL_V4(field) ((elem_v4){el[0]->field, el[1]->field, el[2]->field, el[3]->field})
    elem_v4 pa[4] = {X_V4(3), X_V4(4), X_V4(5), X_V4(6)}, pb[4] = {X_V4(10), X_V4(11), X_V4(12), X_V4(13)};
    elem_v4 ra[3] = {X_V4(0), X_V4(1), X_V4(2)}, rb[3] = {X_V4(7), X_V4(8), X_V4(9)};
    elem_v4 kn[3] = {EL_V4(k_force.x), EL_V4(k_force.y), EL_V4(k_force.z)};
    elem_v4 km[3] = {EL_V4(k_moment.x), EL_V4(k_moment.y), EL_V4(k_moment.z)};
    elem_v4 g0[3] = {EL_V4(gamma0.x), EL_V4(gamma0.y), EL_V4(gamma0.z)};
    elem_v4 k0[3] = {EL_V4(kappa0.x), EL_V4(kappa0.y), EL_V4(kappa0.z)}, L = EL_V4(length);
#undef X_V4
#undef EL_V4
    element_blocks_v4(pa, pb, ra, rb, &L, kn, km, g0, k0, b, want_J);
}
#pragma GCC diagnostic pop

#endif

/* Element e's forces on node a (fa) and node b (fb), eqs. (19)–(20): ±A n and S ± m, and
 * (want_J) its compact rows R, from its blocks. The blocks are read in place: an
 * elem_blocks_d (stride 1) or lane k of an elem_blocks_v4 (base + k, stride 4: the same
 * fields in the same order, each a vector of 4), so that a batch's lanes are not copied out
 * first (that copy was a fifth of the pass's instructions). */
#define BLK(field) (stride * (offsetof(elem_blocks_d, field) / sizeof(double)))
TERMS_INLINE void element_rows(const double *base, const size_t stride, elem_rows *R, double *fa, double *fb,
                               int want_J)
{
    const double *f = base + BLK(f), *S = base + BLK(S), *mo = base + BLK(mo);
    for (int i = 0; i < 3; ++i) {
        fa[i] = f[stride * i], fa[3 + i] = S[stride * i] + mo[stride * i];
        fb[i] = -f[stride * i], fb[3 + i] = S[stride * i] - mo[stride * i];
    }
    if (!want_J) return;
    const double *Kr = base + BLK(Kr), *Sr = base + BLK(Sr), *Fp = base + BLK(Fp), *Qa = base + BLK(Qa),
                 *Qb = base + BLK(Qb), *Pa = base + BLK(Pa), *Pb = base + BLK(Pb);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            R->Kr[i][j] = Kr[stride * (3 * i + j)];
            R->SA[i][j] = R->SB[i][j] = Sr[stride * (3 * i + j)];
        }
        for (int j = 0; j < 4; ++j) {
            const size_t o = stride * (4 * i + j);
            const double qa = Qa[o], qb = Qb[o], pa = Pa[o], pb = Pb[o];
            R->FA[i][j] = R->FB[i][j] = Fp[o];
            R->MDa[i][j] = qa + pa, R->MU[i][j] = qb + pb;
            R->ML[i][j] = qa - pa, R->MDb[i][j] = qb - pb;
        }
    }
}
#undef BLK

/* A tendon's attachment point on one node: what the segments on both sides share. */
typedef struct tendon_point {
    int node; /* -1: none carried */
    cr_quat p;
    double s;        /* 2/|p|² */
    cr_vec3 P, d;    /* attachment point r + A d (I), offset d (B) */
    cr_mat3 Md;      /* d~ Aᵀ: body moment of an inertial force */
    double Dd[3][4]; /* d(A d)/dp */
    cr_vec3 fsum;    /* force of this tendon on the node (I), summed over its segments */
} tendon_point;

TERMS_INLINE void tendon_point_init(tendon_point *c, const cr_tendon *t, int k, const double *xk, const cr_mat3 *A,
                                    int want_J)
{
    c->node = k;
    c->p = cr_q_load(xk + 3);
    c->s = 2.0 / cr_q_norm2(c->p);
    c->d = t->offset[k - t->first];
    c->P = cr_v3_add(cr_v3_load(xk), cr_m3_mulv(*A, c->d));
    c->Md = cr_m3_mul(cr_m3_skew(c->d), cr_m3_transpose(*A));
    c->fsum = cr_v3(0, 0, 0);
    if (want_J) {
        const double p[4] = {c->p.w, c->p.x, c->p.y, c->p.z}, d[3] = {c->d.x, c->d.y, c->d.z};
        exp_x_dp_d(p, &c->s, d, 1.0, c->Dd);
    }
}

/* Segment between the points a and b at tension T (spec §8.2): forces ±Tν, and (want_J)
 * their rows and the moment rows Md·(force rows) that depend on ν, summed into the
 * element's compact rows; the moments' own p-derivative at fixed force is added once per
 * node (tendon_point_finish). With G = T (E - ν νᵀ)/|e|, the force rows of node a are
 * T dν/dq = G [-E | -Dd_a | E | Dd_b] (columns r_a, p_a, r_b, p_b), those of node b their
 * negative: so G adds to Kr, -G Dd_a to FA, G Dd_b to FB, and Md_a G, Md_b G and their
 * products with Dd_a, Dd_b to the moment blocks. */
TERMS_INLINE void tendon_segment_static(tendon_point *a, tendon_point *b, double T, elem_rows *R, double *fa,
                                        double *fb, int want_J)
{
    cr_vec3 e = cr_v3_sub(b->P, a->P);
    double len = cr_v3_norm(e);
    if (!(len > 0)) return; /* coincident attachment points carry no direction */
    cr_vec3 nu = cr_v3_scale(e, 1.0 / len), tf = cr_v3_scale(nu, T);
    fa[0] += tf.x, fa[1] += tf.y, fa[2] += tf.z;
    fb[0] -= tf.x, fb[1] -= tf.y, fb[2] -= tf.z;
    a->fsum = cr_v3_add(a->fsum, tf);
    b->fsum = cr_v3_sub(b->fsum, tf);
    if (!want_J) return;
    const double nv[3] = {nu.x, nu.y, nu.z}, c = T / len;
    double G[3][3], MaG[3][3], MbG[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) G[i][j] = c * ((i == j) - nv[i] * nv[j]);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            MaG[i][j] = a->Md.m[i][0] * G[0][j] + a->Md.m[i][1] * G[1][j] + a->Md.m[i][2] * G[2][j];
            MbG[i][j] = b->Md.m[i][0] * G[0][j] + b->Md.m[i][1] * G[1][j] + b->Md.m[i][2] * G[2][j];
            R->Kr[i][j] += G[i][j];
            R->SA[i][j] += MaG[i][j];
            R->SB[i][j] -= MbG[i][j];
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
            const double da0 = a->Dd[0][j], da1 = a->Dd[1][j], da2 = a->Dd[2][j];
            const double db0 = b->Dd[0][j], db1 = b->Dd[1][j], db2 = b->Dd[2][j];
            R->FA[i][j] -= G[i][0] * da0 + G[i][1] * da1 + G[i][2] * da2;
            R->FB[i][j] += G[i][0] * db0 + G[i][1] * db1 + G[i][2] * db2;
            R->MDa[i][j] -= MaG[i][0] * da0 + MaG[i][1] * da1 + MaG[i][2] * da2;
            R->MU[i][j] += MaG[i][0] * db0 + MaG[i][1] * db1 + MaG[i][2] * db2;
            R->ML[i][j] += MbG[i][0] * da0 + MbG[i][1] * da1 + MbG[i][2] * da2;
            R->MDb[i][j] -= MbG[i][0] * db0 + MbG[i][1] * db1 + MbG[i][2] * db2;
        }
}

/* The node's body moment d × (Aᵀ f) of the summed tendon force and its derivative
 * d~ d(Aᵀ f)/dp at fixed f, into the node's own moment rows, quaternion columns (M). */
TERMS_INLINE void tendon_point_finish(const tendon_point *c, double M[3][4], double *f, int want_J)
{
    cr_vec3 mom = cr_m3_mulv(c->Md, c->fsum);
    f[3] += mom.x, f[4] += mom.y, f[5] += mom.z;
    if (!want_J) return;
    double D[3][4];
    const double p[4] = {c->p.w, c->p.x, c->p.y, c->p.z}, fs[3] = {c->fsum.x, c->fsum.y, c->fsum.z};
    exp_x_dp_d(p, &c->s, fs, -1.0, D);
    const cr_vec3 d = c->d;
    for (int j = 0; j < 4; ++j) { /* d × column j */
        M[0][j] += d.y * D[2][j] - d.z * D[1][j];
        M[1][j] += d.z * D[0][j] - d.x * D[2][j];
        M[2][j] += d.x * D[1][j] - d.y * D[0][j];
    }
}

/* A tendon's forces and moments without Jacobian, for the load factor derivative
 * (cr_term_loads_forces_only; residuals keep cr_term_tendon_segment, so that theirs do not
 * depend on whether J is assembled), in any layout: the attachment point of each node
 * computed once and carried to the next segment (cr_term_tendon_segment computes both of a
 * segment's). */
static void tendon_forces(const cr_layout *ly, const cr_tendon *t, double T, const double *x, double *F)
{
    if (t->last <= t->first) return;
    tendon_point tp[2];
    int cur = 0;
    const double *x0 = x + (size_t)t->first * ly->block;
    cr_mat3 A = cr_q_exp(cr_q_load(x0 + 3));
    tendon_point_init(&tp[0], t, t->first, x0, &A, 0);
    double f[6], fb[6] = {0, 0, 0, 0, 0, 0}; /* fb: the next node's share of the segment */
    for (int a = t->first; a < t->last; ++a) {
        const double *xb = x + (size_t)(a + 1) * ly->block;
        A = cr_q_exp(cr_q_load(xb + 3));
        tendon_point_init(&tp[cur ^ 1], t, a + 1, xb, &A, 0);
        memcpy(f, fb, sizeof f);
        memset(fb, 0, sizeof fb);
        tendon_segment_static(&tp[cur], &tp[cur ^ 1], T, NULL, f, fb, 0);
        tendon_point_finish(&tp[cur], NULL, f, 0); /* node a's moment of its summed force */
        add_node_force(F, ly, a, cr_v3(f[0], f[1], f[2]), cr_v3(f[3], f[4], f[5]));
        cur ^= 1;
    }
    memcpy(f, fb, sizeof f);
    tendon_point_finish(&tp[cur], NULL, f, 0);
    add_node_force(F, ly, t->last, cr_v3(f[0], f[1], f[2]), cr_v3(f[3], f[4], f[5]));
}

#define FUSED_TENDONS 8 /* tendons assembled inside the element pass; more go through cr_term_tendon_segment */

/* the element pass of cr_term_rod_static with nt fused tendons, writing the rows of
 * nodes e0..e1-1 (and U_e, L_{e+1} of their elements); a range not starting at node 0
 * first evaluates element e0-1 for node e0's share of it, without writing anything */
TERMS_INLINE void rod_static_pass(const cr_model *m, const double *x, double *F, cr_blocktri *J, int nt,
                                  const cr_tendon *const *tt, const double *T, int e0, int e1, int batched)
{
    const int B = CR_NODE_DOF, ne = m->n, want_J = J != NULL;
#ifdef TERMS_DISPATCH_AVX2
    elem_blocks_v4 batch; /* batched: elements four at a time, from element `first` on */
    int first = -4;
#else
    (void)batched;
#endif
    /* each tendon's points on nodes e and e+1, in turns: [j][cur[j]] is node e's */
    tendon_point tp[FUSED_TENDONS][2];
    int cur[FUSED_TENDONS];
    for (int j = 0; j < nt; ++j) tp[j][0].node = -1, cur[j] = 0;
    elem_rows R;
    double carry[6][CR_NODE_DOF]; /* node e's rows from element e-1 */
    double fa[6], fb[6] = {0, 0, 0, 0, 0, 0}, fcarry[6] = {0, 0, 0, 0, 0, 0};
    if (want_J) {
        memset(carry, 0, sizeof carry);
        if (e0 == 0) J->factored = 0; /* one writer when ranges run concurrently */
    }
    for (int e = e0 > 0 ? e0 - 1 : 0; e < e1; ++e) {
        const double *xa = x + (size_t)e * B;
        const int write = e >= e0;
        if (e < ne) {
            const double *xb = xa + B;
#ifdef TERMS_DISPATCH_AVX2
            if (batched) {
                if (e >= first + 4) element_batch_v4(m, x, first = e, &batch, want_J);
                element_rows((const double *)&batch + (e - first), 4, &R, fa, fb, want_J);
            } else
#endif
            {
                elem_blocks_d eb;
                element_blocks_of(m, x, e, &eb, want_J);
                element_rows((const double *)&eb, 1, &R, fa, fb, want_J);
            }
            cr_mat3 Aa, Ab;
            int have_a = 0, have_b = 0;
            for (int j = 0; j < nt; ++j) {
                const cr_tendon *t = tt[j];
                tendon_point *c = &tp[j][cur[j]];
                if (e < t->first || e > t->last) continue;
                if (e == t->last) { /* node e ends the tendon */
                    if (c->node == e) tendon_point_finish(c, R.MDa, fa, want_J);
                    c->node = -1;
                    continue;
                }
                if (c->node != e) {
                    if (!have_a) Aa = cr_q_exp(cr_q_load(xa + 3)), have_a = 1;
                    tendon_point_init(c, t, e, xa, &Aa, want_J);
                }
                if (!have_b) Ab = cr_q_exp(cr_q_load(xb + 3)), have_b = 1;
                tendon_point *nb = &tp[j][cur[j] ^ 1];
                tendon_point_init(nb, t, e + 1, xb, &Ab, want_J);
                tendon_segment_static(c, nb, T[j], &R, fa, fb, want_J);
                tendon_point_finish(c, R.MDa, fa, want_J);
                cur[j] ^= 1;
            }
            if (want_J && write) { /* D_e: element e-1's share (carry) and element e's */
                double *D = cr_blocktri_D(J, e);
                for (int i = 0; i < 3; ++i) {
                    double *df = D + i * B, *dm = D + (3 + i) * B;
                    for (int j = 0; j < 3; ++j) {
                        df[j] = carry[i][j] - R.Kr[i][j];
                        dm[j] = carry[3 + i][j] - R.SA[i][j];
                    }
                    for (int j = 0; j < 4; ++j) {
                        df[3 + j] = carry[i][3 + j] + R.FA[i][j];
                        dm[3 + j] = carry[3 + i][3 + j] + R.MDa[i][j];
                    }
                }
                for (int c = 0; c < B; ++c) D[6 * B + c] = 0.0;
            }
        } else { /* the last node: element ne-1's rows and the tendons ending there */
            double M[3][4] = {{0}};
            memset(fa, 0, sizeof fa);
            for (int j = 0; j < nt; ++j)
                if (tp[j][cur[j]].node == e) tendon_point_finish(&tp[j][cur[j]], M, fa, want_J);
            if (want_J && write) {
                double *D = cr_blocktri_D(J, e);
                for (int r = 0; r < 6; ++r)
                    for (int c = 0; c < B; ++c) D[r * B + c] = carry[r][c] + (r >= 3 && c >= 3 ? M[r - 3][c - 3] : 0.0);
                for (int c = 0; c < B; ++c) D[6 * B + c] = 0.0;
            }
        }
        double *Fe = F + (size_t)e * B;
        if (write)
            for (int r = 0; r < 6; ++r) Fe[r] = fcarry[r] + fa[r];
        if (e == ne) break;
        for (int r = 0; r < 6; ++r) fcarry[r] = fb[r];
        if (!want_J) continue;
        if (write) { /* U_e and L_{e+1}, from element e alone */
            double *U = cr_blocktri_U(J, e), *Lb = cr_blocktri_L(J, e + 1);
            for (int i = 0; i < 3; ++i) {
                double *uf = U + i * B, *um = U + (3 + i) * B, *lf = Lb + i * B, *lm = Lb + (3 + i) * B;
                for (int j = 0; j < 3; ++j) {
                    uf[j] = lf[j] = R.Kr[i][j];
                    um[j] = R.SA[i][j];
                    lm[j] = -R.SB[i][j];
                }
                for (int j = 0; j < 4; ++j) {
                    uf[3 + j] = R.FB[i][j];
                    lf[3 + j] = -R.FA[i][j];
                    um[3 + j] = R.MU[i][j];
                    lm[3 + j] = R.ML[i][j];
                }
            }
            for (int c = 0; c < B; ++c) U[6 * B + c] = Lb[6 * B + c] = 0.0;
        }
        for (int i = 0; i < 3; ++i) { /* element e's share of D_{e+1} */
            for (int j = 0; j < 3; ++j) {
                carry[i][j] = -R.Kr[i][j];
                carry[3 + i][j] = R.SB[i][j];
            }
            for (int j = 0; j < 4; ++j) {
                carry[i][3 + j] = -R.FB[i][j];
                carry[3 + i][3 + j] = R.MDb[i][j];
            }
        }
    }
}

/* The pass also in an AVX2 + FMA build, chosen at run time (as the 7×7 kernels in
 * blocktri.c): the element kernel runs on four elements at once, one a lane
 * (terms_element.h), and the tendons' 3×14 row products run 4 wide. Measured
 * (callgrind, 1250 elements): a cantilever's element pass 53.6 -> 37.5 million
 * instructions over its solve, the tendon manipulator's 95 -> 82; assembly per node and
 * iteration 0.27-0.28 -> 0.22-0.23 µs (cantilever n = 1000, bench_static). Results differ
 * from the SSE2 build by round-off only, and do not depend on the range or batch an
 * element falls in. */
#ifdef TERMS_DISPATCH_AVX2
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void
rod_static_avx2(const cr_model *m, const double *x, double *F, cr_blocktri *J, int nt, const cr_tendon *const *tt,
                const double *T, int e0, int e1)
{
    rod_static_pass(m, x, F, J, nt, tt, T, e0, e1, 1);
}
/* a test of the CPU model data libgcc fills in at load time: cheap, and no cached
 * static that concurrent solves would race on */
static int have_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

static void rod_static_default(const cr_model *m, const double *x, double *F, cr_blocktri *J, int nt,
                               const cr_tendon *const *tt, const double *T, int e0, int e1)
{
    rod_static_pass(m, x, F, J, nt, tt, T, e0, e1, 0);
}

void cr_term_rod_static(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                        cr_blocktri *J)
{
    cr_term_rod_static_nodes(m, scale, x, F, J, 0, m->nodes);
    cr_term_rod_static_loads(m, ly, scale, x, F, J);
}

void cr_term_rod_static_nodes(const cr_model *m, const double *scale, const double *x, double *F, cr_blocktri *J,
                              int first, int end)
{
    /* the tendons fused into the pass */
    const cr_tendon *tt[FUSED_TENDONS] = {0};
    double T[FUSED_TENDONS] = {0};
    int nt = 0;
    for (int k = 0; k < m->load_count && nt < FUSED_TENDONS; ++k)
        if (m->loads[k].type == CR_LOAD_TENDON && scale[k] != 0) {
            tt[nt] = &m->tendons[m->loads[k].tendon];
            T[nt] = scale[k] * tt[nt]->tension;
            ++nt;
        }
#ifdef TERMS_DISPATCH_AVX2
    if (have_avx2())
        rod_static_avx2(m, x, F, J, nt, tt, T, first, end);
    else
#endif
        rod_static_default(m, x, F, J, nt, tt, T, first, end);
}

void cr_term_rod_static_loads(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                              cr_blocktri *J)
{
    /* the remaining loads add to what the pass wrote: those not fused into it */
    int nt = 0;
    for (int k = 0; k < m->load_count && nt < FUSED_TENDONS; ++k)
        if (m->loads[k].type == CR_LOAD_TENDON && scale[k] != 0) ++nt;
    int fused = 0;
    for (int k = 0; k < m->load_count; ++k) {
        if (scale[k] == 0) continue;
        if (m->loads[k].type == CR_LOAD_TENDON && fused < nt) {
            ++fused;
            continue;
        }
        term_load(m, ly, &m->loads[k], scale[k], x, F, J, 0);
    }
}
