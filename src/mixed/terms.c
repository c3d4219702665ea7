/* Element, tendon and load terms of the mixed discrete rod with exact Jacobians.
 * Every term couples at most two neighbouring nodes: one pass over elements,
 * tendon segments and loads assembles the block-tridiagonal Jacobian in O(n). */
#include "terms.h"

#include <math.h>
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
static void assemble(cr_blocktri *J, const cr_layout *ly, int a, int row_block, int row0, int nrows,
                     local_rows *rows)
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

/* External loads (eq. 18), distributed ones lumped with the weights of eq. (1). */
void cr_term_loads(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                   cr_blocktri *J)
{
    const cr_mat3 I3 = cr_m3_identity();
    const cr_vec3 zero = cr_v3(0, 0, 0);
    for (int k = 0; k < m->load_count; ++k) {
        const cr_model_load *l = &m->loads[k];
        double s = scale[k];
        if (s == 0) continue;
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
                add_node_force(F, ly, i, cr_v3_scale(l->value, s * m->rho_area[i] * m->lumped_length[i]),
                               zero);
            for (int j = 0; j < m->body_count; ++j)
                point_force(ly, m->bodies[j].node, l->value, 0, I3, m->bodies[j].offset, s * m->bodies[j].mass, x, F, J);
            break;
        case CR_LOAD_TENDON: {
            const cr_tendon *t = &m->tendons[l->tendon];
            for (int a = t->first; a < t->last; ++a) cr_term_tendon_segment(m, ly, t, a, s * t->tension, x, F, J);
            break;
        }
        case CR_LOAD_CHAMBER: break; /* refused by this formulation's check (formulation.c) */
        }
    }
}

/* adds w · f to node i's force rows, f dead (I) or following the node (axes · value in B) */
static void add_force3(const cr_model *m, const double *x, int i, cr_vec3 value, int follower, cr_mat3 axes, double w,
                       double *F3)
{
    cr_vec3 f = follower ? cr_m3_mulv(cr_q_exp(cr_q_load(x + (size_t)i * m->block + 3)), cr_m3_mulv(axes, value))
                         : value;
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
