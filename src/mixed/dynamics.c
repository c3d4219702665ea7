/* Dynamics of the mixed discrete rod: the index-1 DAE (12)–(14)
 *     q' = B(q) u,   M u' + f_gyr(u) = f_ext(q) + W_c(q) λ,   0 = K_c⁻¹ λ - l(q)
 * in the mass-matrix form M y' = F(y) of the Radau IIA integrator, with the
 * exact Jacobian dF/dy in block-tridiagonal form (one 19×19 block per node).
 *
 * Nodes carrying welded rigid bodies have a configuration-dependent 6×6 mass
 * matrix M_i(q) (the body's centre is offset from the node). Their momentum rows
 * are solved locally, u' = M_i(q)⁻¹ R, so that the integrator's mass stays
 * constant and diagonal (identity on those rows). */
#include "contact/contact.h"
#include "mixed.h"
#include "selfcontact.h"
#include "supports.h"
#include "terms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cr_layout cr_layout_dynamic(void)
{
    cr_layout ly = {
        .block = CR_DYN_BLOCK, .eq_row = CR_DYN_V, .lam_base = CR_DYN_LAM, .stress_unknowns = 6, .rigid_unknowns = 0};
    for (int k = 0; k < 6; ++k) ly.slot[k] = k;
    return ly;
}

/* Combined mass data of the bodies welded to node i (zero when none). */
typedef struct node_bodies {
    double mass;     /* Σ m_b */
    cr_vec3 moment;  /* Σ m_b c_b (first mass moment, node basis) */
    cr_mat3 inertia; /* Σ (Θ_C - m_b c~ c~) about the node point, node basis */
    int count;
} node_bodies;

static node_bodies bodies_at(const cr_model *m, int i)
{
    node_bodies nb = {0};
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        if (b->node != i) continue;
        cr_mat3 ct = cr_m3_skew(b->offset), cc = cr_m3_mul(ct, ct);
        nb.mass += b->mass;
        nb.moment = cr_v3_madd(nb.moment, b->mass, b->offset);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) nb.inertia.m[r][c] += b->inertia.m[r][c] - b->mass * cc.m[r][c];
        nb.count++;
    }
    return nb;
}

void cr_mixed_dynamic_mass(const cr_model *m, int stage, double *mass)
{
    const int B = CR_DYN_BLOCK;
    for (int i = 0; i < m->nodes; ++i) {
        double *Mi = mass + (size_t)i * B;
        for (int k = 0; k < CR_DYN_V; ++k) Mi[k] = 1.0;
        int with_body = bodies_at(m, i).count > 0;
        for (int k = 0; k < 3; ++k) Mi[CR_DYN_V + k] = with_body ? 1.0 : m->node_mass[i];
        Mi[CR_DYN_W + 0] = with_body ? 1.0 : m->node_inertia[i].x;
        Mi[CR_DYN_W + 1] = with_body ? 1.0 : m->node_inertia[i].y;
        Mi[CR_DYN_W + 2] = with_body ? 1.0 : m->node_inertia[i].z;
        for (int k = CR_DYN_LAM; k < B; ++k) Mi[k] = 0.0; /* algebraic stress rows */
    }
    cr_supports_dynamic_mass(m, stage, mass);
}

/* 6×6 mass matrix of node i with its bodies, rows/cols (v in I, Ω in B):
 * [[m E, -A S~], [S~ Aᵀ, Θ_i + Σ(Θ_C - m c~c~)]], S = Σ m_b c_b. */
static void node_mass_matrix(const cr_model *m, int i, const node_bodies *nb, cr_mat3 A, double M[6][6])
{
    double mt = m->node_mass[i] + nb->mass;
    cr_mat3 AS = cr_m3_mul(A, cr_m3_skew(nb->moment));
    memset(M, 0, 36 * sizeof(double));
    for (int r = 0; r < 3; ++r) {
        M[r][r] = mt;
        for (int c = 0; c < 3; ++c) {
            M[r][3 + c] = -AS.m[r][c];
            M[3 + c][r] = -AS.m[r][c]; /* (S~ Aᵀ)_{c r} = -(A S~)_{r c} */
            M[3 + r][3 + c] = nb->inertia.m[r][c];
        }
    }
    M[3][3] += m->node_inertia[i].x;
    M[4][4] += m->node_inertia[i].y;
    M[5][5] += m->node_inertia[i].z;
}

/* Dense 6×6 LU with partial pivoting; solve for `nrhs` columns (row-major 6×nrhs). */
static int solve6(double M[6][6], double *X, int nrhs)
{
    double a[6][6];
    int piv[6];
    memcpy(a, M, sizeof a);
    for (int k = 0; k < 6; ++k) {
        int p = k;
        for (int i = k + 1; i < 6; ++i)
            if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
        if (!(fabs(a[p][k]) > 0)) return -1;
        piv[k] = p;
        if (p != k)
            for (int j = 0; j < 6; ++j) {
                double t = a[k][j];
                a[k][j] = a[p][j];
                a[p][j] = t;
            }
        for (int i = k + 1; i < 6; ++i) {
            a[i][k] /= a[k][k];
            for (int j = k + 1; j < 6; ++j) a[i][j] -= a[i][k] * a[k][j];
        }
    }
    for (int c = 0; c < nrhs; ++c) {
        double y[6];
        for (int i = 0; i < 6; ++i) y[i] = X[i * nrhs + c];
        for (int k = 0; k < 6; ++k)
            if (piv[k] != k) {
                double t = y[k];
                y[k] = y[piv[k]];
                y[piv[k]] = t;
            }
        for (int i = 1; i < 6; ++i)
            for (int k = 0; k < i; ++k) y[i] -= a[i][k] * y[k];
        for (int i = 5; i >= 0; --i) {
            for (int k = i + 1; k < 6; ++k) y[i] -= a[i][k] * y[k];
            y[i] /= a[i][i];
        }
        for (int i = 0; i < 6; ++i) X[i * nrhs + c] = y[i];
    }
    return 0;
}

/* Gyroscopic and centripetal terms of node i's momentum rows (in R, before M⁻¹):
 * R_v -= A (S~ ... ) via Σ m_b A (Ω×(Ω×c_b)), R_Ω -= Ω×ΘΩ + Σ m_b c_b×(Ω×(Ω×c_b)). */
static void inertial_terms(const cr_model *m, int i, cr_quat p, cr_mat3 A, cr_vec3 om, double *R,
                           double *Jd /* row-major block or NULL */)
{
    const int B = CR_DYN_BLOCK;
    cr_mat3 Th = cr_m3_zero(); /* Θ_i + Σ Θ_C about the centres (the offsets enter via the mass matrix) */
    Th.m[0][0] = m->node_inertia[i].x, Th.m[1][1] = m->node_inertia[i].y, Th.m[2][2] = m->node_inertia[i].z;
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        if (b->node != i) continue;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) Th.m[r][c] += b->inertia.m[r][c];
    }
    cr_vec3 g = cr_v3_cross(om, cr_m3_mulv(Th, om)); /* Ω × Θ Ω (eq. 17) */
    R[CR_DYN_W + 0] -= g.x, R[CR_DYN_W + 1] -= g.y, R[CR_DYN_W + 2] -= g.z;
    cr_mat3 dg = cr_m3_mul(cr_m3_skew(om), Th); /* d(Ω×ΘΩ)/dΩ = Ω~Θ - (ΘΩ)~ */
    cr_mat3 tw = cr_m3_skew(cr_m3_mulv(Th, om));
    if (Jd)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) Jd[(CR_DYN_W + r) * B + CR_DYN_W + c] -= dg.m[r][c] - tw.m[r][c];
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        if (b->node != i) continue;
        cr_vec3 c = b->offset;
        cr_vec3 w = cr_v3_cross(om, cr_v3_cross(om, c)); /* centripetal Ω×(Ω×c) */
        cr_vec3 fv = cr_v3_scale(cr_m3_mulv(A, w), b->mass);
        cr_vec3 mw = cr_v3_scale(cr_v3_cross(c, w), b->mass);
        for (int k = 0; k < 3; ++k) {
            R[CR_DYN_V + k] -= cr_v3_get(fv, k);
            R[CR_DYN_W + k] -= cr_v3_get(mw, k);
        }
        if (!Jd) continue;
        /* dw/dΩ = (Ω·c) E + Ω cᵀ - 2 c Ωᵀ */
        cr_mat3 dw;
        double oc = cr_v3_dot(om, c);
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q)
                dw.m[r][q] =
                    (r == q ? oc : 0.0) + cr_v3_get(om, r) * cr_v3_get(c, q) - 2 * cr_v3_get(c, r) * cr_v3_get(om, q);
        cr_mat3 Adw = cr_m3_mul(A, dw), cdw = cr_m3_mul(cr_m3_skew(c), dw);
        double D[3][4];
        cr_q_exp_mulv_dp(p, w, D);
        for (int r = 0; r < 3; ++r) {
            for (int q = 0; q < 3; ++q) {
                Jd[(CR_DYN_V + r) * B + CR_DYN_W + q] -= b->mass * Adw.m[r][q];
                Jd[(CR_DYN_W + r) * B + CR_DYN_W + q] -= b->mass * cdw.m[r][q];
            }
            for (int q = 0; q < 4; ++q) Jd[(CR_DYN_V + r) * B + 3 + q] -= b->mass * D[r][q];
        }
    }
}

cr_status cr_mixed_dynamic_residual(const cr_model *m, const cr_supports_at *at, const double *scale, const double *y,
                                    double *F, cr_blocktri *J)
{
    const int B = CR_DYN_BLOCK, nn = m->nodes;
    const cr_layout ly = cr_layout_dynamic();
    cr_term_rod(m, &ly, scale, y, F, J);
    cr_mixed_damping_terms(m, y, F, J);                     /* Kelvin–Voigt stress rows, drag (damping.c) */
    if (m->contact) cr_contact_set_time(m->contact, at->t); /* moving obstacles */
    if (m->contact) /* obstacles: node-local forces on the momentum rows, ∂f/∂r in the diagonal blocks */
        for (int i = 0; i < nn; ++i) {
            /* friction at the contact point: its moment on the Ω rows (body basis), which depends on
             * the node's rotation, as does its slip */
            const double *yi = y + (size_t)i * B;
            cr_vec3 v = cr_v3_load(yi + CR_DYN_V);
            if (m->contact->quat_offset < 0) { /* at the centre (the default): the force alone */
                cr_vec3 f;
                cr_mat3 K, Kv;
                cr_contact_node_force_v(m->contact, i, cr_v3_load(yi), &v, &f, J ? &K : NULL, J ? &Kv : NULL, NULL);
                double *Fi = F + (size_t)i * B;
                Fi[CR_DYN_V] += f.x, Fi[CR_DYN_V + 1] += f.y, Fi[CR_DYN_V + 2] += f.z;
                if (!J) continue;
                double *Di = cr_blocktri_D(J, i);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) {
                        Di[(CR_DYN_V + r) * B + c] += K.m[r][c];
                        Di[(CR_DYN_V + r) * B + CR_DYN_V + c] += Kv.m[r][c];
                    }
                continue;
            }
            cr_contact_wrench w;
            cr_contact_node_wrench(m->contact, i, cr_v3_load(yi), cr_q_load(yi + 3), &v, &w, J != NULL, NULL);
            double *Fi = F + (size_t)i * B;
            Fi[CR_DYN_V] += w.f.x, Fi[CR_DYN_V + 1] += w.f.y, Fi[CR_DYN_V + 2] += w.f.z;
            Fi[CR_DYN_W] += w.m.x, Fi[CR_DYN_W + 1] += w.m.y, Fi[CR_DYN_W + 2] += w.m.z;
            if (!J) continue;
            double *Di = cr_blocktri_D(J, i);
            for (int r = 0; r < 3; ++r) {
                for (int c = 0; c < 3; ++c) {
                    Di[(CR_DYN_V + r) * B + c] += w.f_r.m[r][c];
                    Di[(CR_DYN_V + r) * B + CR_DYN_V + c] += w.f_v.m[r][c];
                    Di[(CR_DYN_W + r) * B + c] += w.m_r.m[r][c];
                    Di[(CR_DYN_W + r) * B + CR_DYN_V + c] += w.m_v.m[r][c];
                }
                for (int c = 0; c < 4; ++c) {
                    Di[(CR_DYN_V + r) * B + 3 + c] += w.f_p[r][c];
                    Di[(CR_DYN_W + r) * B + 3 + c] += w.m_p[r][c];
                }
            }
        }
    if (m->selfcontact) cr_mixed_selfcontact_dynamic_rows(m, at, y, F, J); /* penalty, far nodes low-rank */
    for (int i = 0; i < nn; ++i) {
        const double *yi = y + (size_t)i * B;
        double *Fi = F + (size_t)i * B;
        double *Di = J ? cr_blocktri_D(J, i) : NULL;
        if (i == nn - 1) /* no element to the right: its stress slots are zero */
            for (int k = CR_DYN_LAM; k < B; ++k) {
                Fi[k] = yi[k];
                if (Di) Di[k * B + k] = 1.0;
            }
        cr_quat p = cr_q_load(yi + 3);
        cr_vec3 v = cr_v3_load(yi + CR_DYN_V), om = cr_v3_load(yi + CR_DYN_W);
        /* kinematics (eqs. 3, 12): r' = v, p' = dExp⁺(p) Ω */
        cr_v3_store(v, Fi);
        cr_q_store(cr_q_dexp_plus(p, om), Fi + 3);
        if (Di) {
            for (int k = 0; k < 3; ++k) Di[k * B + CR_DYN_V + k] = 1.0;
            /* d(dExp⁺ Ω)/dp = ½ [[0, -Ωᵀ], [Ω, -Ω~]];  d/dΩ = dExp⁺(p) = ½ [-vᵀ; p0 E + v~] */
            double o[3] = {om.x, om.y, om.z}, pv[3] = {p.x, p.y, p.z};
            cr_mat3 ot = cr_m3_skew(om), vt = cr_m3_skew(cr_q_vec(p));
            for (int c = 0; c < 3; ++c) {
                Di[3 * B + 3 + 1 + c] = -0.5 * o[c];
                Di[3 * B + CR_DYN_W + c] = -0.5 * pv[c];
            }
            for (int r = 0; r < 3; ++r) {
                Di[(4 + r) * B + 3] = 0.5 * o[r];
                for (int c = 0; c < 3; ++c) {
                    Di[(4 + r) * B + 4 + c] = -0.5 * ot.m[r][c];
                    Di[(4 + r) * B + CR_DYN_W + c] = 0.5 * ((r == c ? p.w : 0.0) + vt.m[r][c]);
                }
            }
        }
        node_bodies nb = bodies_at(m, i);
        cr_mat3 A = cr_q_exp(p);
        inertial_terms(m, i, p, A, om, Fi, Di);
        if (nb.count == 0) continue;
        /* body node: u' = M(q)⁻¹ R, dF = M⁻¹ (dR - dM a) */
        double M[6][6], a[6];
        node_mass_matrix(m, i, &nb, A, M);
        for (int k = 0; k < 6; ++k) a[k] = Fi[CR_DYN_V + k];
        if (solve6(M, a, 1) != 0) return CR_SINGULAR;
        for (int k = 0; k < 6; ++k) Fi[CR_DYN_V + k] = a[k];
        if (!J) continue;
        /* dM a: rows v: -d(A (S~ a_Ω))/dp;  rows Ω: S~ d(Aᵀ a_v)/dp */
        double D1[3][4], D2[3][4];
        cr_vec3 av = cr_v3(a[0], a[1], a[2]), aw = cr_v3(a[3], a[4], a[5]);
        cr_mat3 St = cr_m3_skew(nb.moment);
        cr_q_exp_mulv_dp(p, cr_m3_mulv(St, aw), D1);
        cr_q_exp_tmulv_dp(p, av, D2);
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 4; ++q) {
                Di[(CR_DYN_V + r) * B + 3 + q] += D1[r][q]; /* - (-d(A S~ a_Ω)) */
                Di[(CR_DYN_W + r) * B + 3 + q] -= St.m[r][0] * D2[0][q] + St.m[r][1] * D2[1][q] + St.m[r][2] * D2[2][q];
            }
        double *blocks[3] = {Di, i > 0 ? cr_blocktri_L(J, i) : NULL, i < nn - 1 ? cr_blocktri_U(J, i) : NULL};
        for (int k = 0; k < 3; ++k) {
            if (!blocks[k]) continue;
            double X[6 * CR_DYN_BLOCK];
            for (int r = 0; r < 6; ++r) memcpy(X + r * B, blocks[k] + (size_t)(CR_DYN_V + r) * B, B * sizeof(double));
            if (solve6(M, X, B) != 0) return CR_SINGULAR;
            for (int r = 0; r < 6; ++r) memcpy(blocks[k] + (size_t)(CR_DYN_V + r) * B, X + r * B, B * sizeof(double));
        }
    }
    /* held coordinates and velocities follow their supports (algebraic rows) */
    cr_supports_dynamic_rows(m, at, y, F, J);
    /* Σ F·0 is ±0 when every entry is finite and NaN otherwise (∞·0 = NaN): no branch per entry */
    double fin[4] = {0, 0, 0, 0};
    size_t nf = (size_t)nn * B, k = 0;
    for (; k + 4 <= nf; k += 4)
        for (int q = 0; q < 4; ++q) fin[q] += F[k + q] * 0.0;
    for (; k < nf; ++k) fin[0] += F[k] * 0.0;
    if (!((fin[0] + fin[1]) + (fin[2] + fin[3]) == 0.0)) return CR_NONFINITE;
    return CR_OK;
}

/* Energies of a dynamic state y (layout CR_DYN_BLOCK). */
void cr_mixed_dynamic_energies(const cr_model *m, const double *y, cr_vec3 gravity, double *kinetic, double *elastic,
                               double *potential)
{
    const int B = CR_DYN_BLOCK;
    double T = 0, U = 0, V = 0;
    for (int i = 0; i < m->nodes; ++i) {
        const double *yi = y + (size_t)i * B;
        cr_vec3 r = cr_v3_load(yi), v = cr_v3_load(yi + CR_DYN_V), om = cr_v3_load(yi + CR_DYN_W);
        cr_mat3 A = cr_q_exp(cr_q_load(yi + 3));
        T += 0.5 * m->node_mass[i] * cr_v3_dot(v, v) + 0.5 * cr_v3_dot(om, cr_v3_mul(m->node_inertia[i], om));
        V -= m->node_mass[i] * cr_v3_dot(gravity, r);
        for (int j = 0; j < m->body_count; ++j) {
            const cr_body *b = &m->bodies[j];
            if (b->node != i) continue;
            cr_vec3 vc = cr_v3_add(v, cr_m3_mulv(A, cr_v3_cross(om, b->offset)));
            T += 0.5 * b->mass * cr_v3_dot(vc, vc) + 0.5 * cr_v3_dot(om, cr_m3_mulv(b->inertia, om));
            V -= b->mass * cr_v3_dot(gravity, cr_v3_add(r, cr_m3_mulv(A, b->offset)));
        }
    }
    for (int e = 0; e < m->n; ++e) {
        const cr_element *el = &m->el[e];
        const double *lam = y + (size_t)e * B + CR_DYN_LAM;
        double k[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
        for (int c = 0; c < 6; ++c) U += 0.5 * el->length * lam[c] * lam[c] / k[c]; /* ½ λᵀ K_c⁻¹ λ */
    }
    if (m->kv_tau) U = cr_mixed_damping_elastic_energy(m, y); /* λ holds a viscous part: use ½ Δεᵀ K Δε */
    *kinetic = T;
    *elastic = U;
    *potential = V;
}

void cr_mixed_dynamic_momenta(const cr_model *m, const double *y, cr_vec3 *momentum, cr_vec3 *angular)
{
    const int B = CR_DYN_BLOCK;
    cr_vec3 P = cr_v3(0, 0, 0), L = cr_v3(0, 0, 0);
    for (int i = 0; i < m->nodes; ++i) {
        const double *yi = y + (size_t)i * B;
        cr_vec3 r = cr_v3_load(yi), v = cr_v3_load(yi + CR_DYN_V), om = cr_v3_load(yi + CR_DYN_W);
        cr_mat3 A = cr_q_exp(cr_q_load(yi + 3));
        cr_vec3 p = cr_v3_scale(v, m->node_mass[i]);
        P = cr_v3_add(P, p);
        /* node: r × m v + A Θ Ω (spin of the lumped section inertia, eq. 1) */
        L = cr_v3_add(L, cr_v3_add(cr_v3_cross(r, p), cr_m3_mulv(A, cr_v3_mul(m->node_inertia[i], om))));
        for (int j = 0; j < m->body_count; ++j) {
            const cr_body *b = &m->bodies[j];
            if (b->node != i) continue;
            cr_vec3 rc = cr_v3_add(r, cr_m3_mulv(A, b->offset));
            cr_vec3 pc = cr_v3_scale(cr_v3_add(v, cr_m3_mulv(A, cr_v3_cross(om, b->offset))), b->mass);
            P = cr_v3_add(P, pc);
            L = cr_v3_add(L, cr_v3_add(cr_v3_cross(rc, pc), cr_m3_mulv(A, cr_m3_mulv(b->inertia, om))));
        }
    }
    *momentum = P;
    *angular = L;
}

/* Reaction of the support at `node` in a dynamic state: what the support adds to
 * the node's momentum balance, M a − R along the held directions (a: the prescribed
 * acceleration, R: elements, loads and gyroscopic terms at the state's stresses),
 * zero along the free ones. */
cr_status cr_mixed_dynamic_reaction(const cr_model *m, const cr_state *s, int node, cr_vec3 *force, cr_vec3 *moment)
{
    const int B = CR_DYN_BLOCK, nn = m->nodes;
    int k = cr_model_support_at(m, s->stage, node);
    if (k < 0) return CR_BAD_INPUT;
    double *y = malloc((size_t)nn * B * sizeof *y), *F = malloc((size_t)nn * B * sizeof *F);
    if (!y || !F) {
        free(y);
        free(F);
        return CR_NO_MEMORY;
    }
    for (int i = 0; i < nn; ++i) {
        double *yi = y + (size_t)i * B;
        memcpy(yi, s->x + (size_t)i * m->block, CR_NODE_DOF * sizeof(double));
        memcpy(yi + CR_DYN_V, s->velocity + 6 * (size_t)i, 6 * sizeof(double));
        if (i < m->n)
            memcpy(yi + CR_DYN_LAM, s->stress + 6 * (size_t)i, 6 * sizeof(double));
        else
            memset(yi + CR_DYN_LAM, 0, 6 * sizeof(double));
    }
    /* the loads of the state's stage at its time (the state's load_scale is only
     * updated at the end of a dynamic stage) */
    double *scale = malloc((m->load_count > 0 ? m->load_count : 1) * sizeof *scale);
    if (!scale) {
        free(y);
        free(F);
        return CR_NO_MEMORY;
    }
    cr_model_stage_load_factors(m, s->stage, scale);
    for (int j = 0; j < m->load_count; ++j)
        if (scale[j] != 0) scale[j] *= cr_time_function_eval(&m->loads[j].time, s->time);
    cr_supports_at free_all = {.stage = -1, .ramp = 1.0, .t = s->time, .from = NULL, .from_blend = 1.0};
    cr_status st = cr_mixed_dynamic_residual(m, &free_all, scale, y, F, NULL);
    free(scale);
    if (st == CR_OK) {
        cr_supports_at at = {.stage = s->stage, .ramp = 1.0, .t = s->time, .from = NULL, .from_blend = 1.0};
        int rows[13];
        cr_supports_dynamic_held(m, &m->supports[k], &at, k, rows);
        cr_vec3 rt, a, alpha;
        cr_quat pt;
        cr_support_target(m, k, &at, &rt, &pt, NULL, NULL, &a, &alpha);
        const double *yi = y + (size_t)node * B, *Fi = F + (size_t)node * B;
        cr_vec3 aB = cr_m3_tmulv(cr_q_exp(pt), alpha); /* Ω̇ = A_tᵀ ω̇ for a turn about a fixed axis */
        double acc[6] = {a.x, a.y, a.z, aB.x, aB.y, aB.z}, out[6];
        node_bodies nb = bodies_at(m, node);
        if (nb.count > 0) { /* rows hold M⁻¹R: the reaction is M (a − M⁻¹R) */
            double M[6][6], d[6];
            node_mass_matrix(m, node, &nb, cr_q_exp(cr_q_load(yi + 3)), M);
            for (int r = 0; r < 6; ++r) d[r] = acc[r] - Fi[CR_DYN_V + r];
            for (int r = 0; r < 6; ++r) {
                out[r] = 0;
                for (int c = 0; c < 6; ++c) out[r] += M[r][c] * d[c];
            }
        } else {
            const double mass[6] = {m->node_mass[node],      m->node_mass[node],      m->node_mass[node],
                                    m->node_inertia[node].x, m->node_inertia[node].y, m->node_inertia[node].z};
            for (int r = 0; r < 6; ++r) out[r] = mass[r] * acc[r] - Fi[CR_DYN_V + r];
        }
        for (int r = 0; r < 6; ++r)
            if (!rows[CR_DYN_V + r]) out[r] = 0.0; /* free directions take no reaction */
        if (force) *force = cr_v3_load(out);
        if (moment) *moment = cr_v3_load(out + 3);
    }
    free(y);
    free(F);
    return st;
}

void cr_mixed_dynamic_observables(const cr_model *m, const double *y, cr_vec3 gravity, const double *ucoef,
                                  double *kinetic, double *elastic, double *potential, cr_vec3 *momentum,
                                  cr_vec3 *angular)
{
    const int B = CR_DYN_BLOCK;
    double T = 0, U = 0, V = 0;
    double Px = 0, Py = 0, Pz = 0, Lx = 0, Ly = 0, Lz = 0;
    const double gx = gravity.x, gy = gravity.y, gz = gravity.z;
    for (int i = 0; i < m->nodes; ++i) {
        const double *yi = y + (size_t)i * B;
        const double rx = yi[0], ry = yi[1], rz = yi[2], w = yi[3], qx = yi[4], qy = yi[5], qz = yi[6];
        const double vx = yi[CR_DYN_V], vy = yi[CR_DYN_V + 1], vz = yi[CR_DYN_V + 2];
        const double ox = yi[CR_DYN_W], oy = yi[CR_DYN_W + 1], oz = yi[CR_DYN_W + 2];
        const double mi = m->node_mass[i];
        const cr_vec3 In = m->node_inertia[i];
        const double hx = In.x * ox, hy = In.y * oy, hz = In.z * oz; /* Θ Ω */
        T += 0.5 * mi * (vx * vx + vy * vy + vz * vz) + 0.5 * (ox * hx + oy * hy + oz * hz);
        V -= mi * (gx * rx + gy * ry + gz * rz);
        const double px = mi * vx, py = mi * vy, pz = mi * vz;
        Px += px, Py += py, Pz += pz;
        /* A Θ Ω with A = exp(p) = E + s (w q~ + q~ q~), s = 2/|p|² (the quaternion need not
         * be a unit one), without forming A */
        const double s2 = 2.0 / (w * w + qx * qx + qy * qy + qz * qz);
        const double cx = qy * hz - qz * hy, cy = qz * hx - qx * hz, cz = qx * hy - qy * hx; /* q × h */
        const double dx = qy * cz - qz * cy, dy = qz * cx - qx * cz, dz = qx * cy - qy * cx; /* q × (q × h) */
        /* node: r × m v + A Θ Ω (spin of the lumped section inertia, eq. 1) */
        Lx += (ry * pz - rz * py) + hx + s2 * (w * cx + dx);
        Ly += (rz * px - rx * pz) + hy + s2 * (w * cy + dy);
        Lz += (rx * py - ry * px) + hz + s2 * (w * cz + dz);
        for (int j = 0; j < m->body_count; ++j) {
            const cr_body *b = &m->bodies[j];
            if (b->node != i) continue;
            cr_mat3 A = cr_q_exp(cr_q_load(yi + 3));
            cr_vec3 r = cr_v3(rx, ry, rz), v = cr_v3(vx, vy, vz), om = cr_v3(ox, oy, oz);
            cr_vec3 vc = cr_v3_add(v, cr_m3_mulv(A, cr_v3_cross(om, b->offset)));
            cr_vec3 rc = cr_v3_add(r, cr_m3_mulv(A, b->offset));
            cr_vec3 bo = cr_m3_mulv(b->inertia, om);
            T += 0.5 * b->mass * cr_v3_dot(vc, vc) + 0.5 * cr_v3_dot(om, bo);
            V -= b->mass * cr_v3_dot(gravity, rc);
            cr_vec3 pc = cr_v3_scale(vc, b->mass);
            Px += pc.x, Py += pc.y, Pz += pc.z;
            cr_vec3 lb = cr_v3_add(cr_v3_cross(rc, pc), cr_m3_mulv(A, bo));
            Lx += lb.x, Ly += lb.y, Lz += lb.z;
        }
    }
    cr_vec3 P = cr_v3(Px, Py, Pz), L = cr_v3(Lx, Ly, Lz);
    if (m->kv_tau) {
        U = cr_mixed_damping_elastic_energy(m, y); /* λ holds a viscous part: use ½ Δεᵀ K Δε */
    } else {
        for (int e = 0; e < m->n; ++e) {
            const double *lam = y + (size_t)e * B + CR_DYN_LAM;
            if (ucoef) {
                const double *u = ucoef + 6 * (size_t)e;
                for (int c = 0; c < 6; ++c) U += u[c] * lam[c] * lam[c];
            } else {
                const cr_element *el = &m->el[e];
                double k[6] = {el->k_force.x,  el->k_force.y,  el->k_force.z,
                               el->k_moment.x, el->k_moment.y, el->k_moment.z};
                for (int c = 0; c < 6; ++c) U += 0.5 * el->length * lam[c] * lam[c] / k[c];
            }
        }
    }
    *kinetic = T;
    *elastic = U;
    *potential = V;
    *momentum = P;
    *angular = L;
}
