/* Damping of the mixed discrete rod's dynamics (issue 10, item 5).
 *
 * Kelvin–Voigt material damping: the compliance law of element e becomes
 *     λ_k = K_k (Δε_k + τ_k dε_k/dt),   i.e. the stress row  λ_k/K_k - Δε_k - τ_k ε̇_k = 0,
 * with the strain rate ε̇ = (∂ε/∂q) B(q) u a function of the poses and velocities of
 * the element's two nodes: the stresses stay algebraic (index 1) and the Jacobian stays
 * block-tridiagonal. The internal forces W(q) λ do the power -L_e λ·ε̇ (the discrete
 * virtual work of eqs. 19–20), so the element dissipates L_e Σ_k K_k τ_k ε̇_k² ≥ 0.
 *
 * Viscous drag per unit length on node i (lumped length L_i, eq. 1):
 *     f_i = -L_i A C Aᵀ v_i (I),   μ_i = -L_i D Ω_i (B),   C = diag(c_x, c_y, c_z), D = diag(d_x, d_y, d_z),
 * dissipating L_i (wᵀ C w + Ωᵀ D Ω) with w = Aᵀ v.
 *
 * The Jacobian of ε̇ needs second derivatives of the strains (eq. 7): they are taken
 * exactly, to round-off, by forward-mode hyper-dual numbers a + b e₁ + c e₂ + d e₁e₂
 * (e₁² = e₂² = 0) on the element-local strain function: with q + e₁ q̇(y) and the seed
 * e₂ on y_j, the e₁ part of ε is ε̇ and the e₁e₂ part ∂ε̇/∂y_j (no truncation error,
 * unlike finite differences). The drag Jacobians are analytic. */
#include "mixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cr_status cr_mixed_damping_init(cr_model *m, const cr_damping_def *d)
{
    m->kv_tau = NULL;
    int kv = 0;
    for (int k = 0; k < 6; ++k) kv |= d->relaxation_time[k] > 0 || d->coefficients[k] > 0;
    if (kv) {
        m->kv_tau = calloc((size_t)m->n * 6, sizeof *m->kv_tau);
        if (!m->kv_tau) return CR_NO_MEMORY;
        for (int e = 0; e < m->n; ++e) {
            const cr_element *el = &m->el[e];
            double K[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
            /* coefficients C_k = K_k τ_k (the viscous stress per unit strain rate) */
            for (int k = 0; k < 6; ++k)
                m->kv_tau[6 * e + k] = d->coefficients[k] > 0 ? d->coefficients[k] / K[k] : d->relaxation_time[k];
        }
    }
    m->drag = d->drag;
    m->rotational_drag = d->rotational_drag;
    m->drag_active = cr_v3_norm(d->drag) > 0 || cr_v3_norm(d->rotational_drag) > 0;
    return CR_OK;
}

void cr_mixed_damping_free(cr_model *m)
{
    free(m->kv_tau);
    m->kv_tau = NULL;
}

unsigned long long cr_mixed_damping_hash(const cr_model *m, unsigned long long h)
{
    /* FNV-1a over the coefficients; an undamped model keeps the hash it had before damping existed */
    if (!m->kv_tau && !m->drag_active) return h;
    const unsigned char *parts[3] = {(const unsigned char *)m->kv_tau, (const unsigned char *)&m->drag,
                                     (const unsigned char *)&m->rotational_drag};
    size_t sizes[3] = {m->kv_tau ? (size_t)m->n * 6 * sizeof(double) : 0, sizeof m->drag, sizeof m->rotational_drag};
    for (int k = 0; k < 3; ++k)
        for (size_t i = 0; i < sizes[k]; ++i) {
            h ^= parts[k][i];
            h *= 1099511628211ull;
        }
    return h;
}

/* ---- hyper-dual numbers a + b e₁ + c e₂ + d e₁e₂ ---- */
typedef struct hd {
    double a, b, c, d;
} hd;

static inline hd hd_add(hd x, hd y) { return (hd){x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d}; }
static inline hd hd_sub(hd x, hd y) { return (hd){x.a - y.a, x.b - y.b, x.c - y.c, x.d - y.d}; }
static inline hd hd_scale(hd x, double s) { return (hd){s * x.a, s * x.b, s * x.c, s * x.d}; }
static inline hd hd_mul(hd x, hd y)
{
    return (hd){x.a * y.a, x.a * y.b + x.b * y.a, x.a * y.c + x.c * y.a, x.a * y.d + x.b * y.c + x.c * y.b + x.d * y.a};
}
/* 1/x: f = 1/a, f' = -1/a², f'' = 2/a³ */
static inline hd hd_inv(hd x)
{
    double f = 1.0 / x.a, f1 = -f * f, f2 = -2.0 * f1 * f;
    return (hd){f, f1 * x.b, f1 * x.c, f1 * x.d + f2 * x.b * x.c};
}

/* Strains (γ, κ) of eq. (7) of an element of length L from hyper-dual nodal poses
 * q = (r_a, p_a, r_b, p_b): γ = Aᵀ(p̄) Δr / L, κ = dExp(p̄) Δp / L, p̄ = (p_a + p_b)/2,
 * A and dExp with the factor 2/|p̄|² of the non-unit quaternion (math.h). */
static void strains_hd(const hd q[14], double L, hd eps[6])
{
    hd pe[4], dp[4], dr[3];
    for (int i = 0; i < 4; ++i) {
        pe[i] = hd_scale(hd_add(q[3 + i], q[10 + i]), 0.5);
        dp[i] = hd_sub(q[10 + i], q[3 + i]);
    }
    for (int i = 0; i < 3; ++i) dr[i] = hd_sub(q[7 + i], q[i]);
    hd n2 =
        hd_add(hd_add(hd_mul(pe[0], pe[0]), hd_mul(pe[1], pe[1])), hd_add(hd_mul(pe[2], pe[2]), hd_mul(pe[3], pe[3])));
    hd s = hd_scale(hd_inv(n2), 2.0);
    hd w = pe[0], x = pe[1], y = pe[2], z = pe[3];
    hd xx = hd_mul(x, x), yy = hd_mul(y, y), zz = hd_mul(z, z), xy = hd_mul(x, y), xz = hd_mul(x, z), yz = hd_mul(y, z);
    hd wx = hd_mul(w, x), wy = hd_mul(w, y), wz = hd_mul(w, z);
    hd one = {1, 0, 0, 0};
    hd A[3][3] = {{hd_sub(one, hd_mul(s, hd_add(yy, zz))), hd_mul(s, hd_sub(xy, wz)), hd_mul(s, hd_add(xz, wy))},
                  {hd_mul(s, hd_add(xy, wz)), hd_sub(one, hd_mul(s, hd_add(xx, zz))), hd_mul(s, hd_sub(yz, wx))},
                  {hd_mul(s, hd_sub(xz, wy)), hd_mul(s, hd_add(yz, wx)), hd_sub(one, hd_mul(s, hd_add(xx, yy)))}};
    double il = 1.0 / L;
    for (int i = 0; i < 3; ++i) /* γ_i = Σ_j A_ji Δr_j / L */
        eps[i] = hd_scale(hd_add(hd_add(hd_mul(A[0][i], dr[0]), hd_mul(A[1][i], dr[1])), hd_mul(A[2][i], dr[2])), il);
    /* κ = s (-Δp0 v + p̄0 Δp_v - v × Δp_v) / L, v the vector part of p̄ */
    hd v[3] = {x, y, z}, u[3] = {dp[1], dp[2], dp[3]};
    for (int i = 0; i < 3; ++i) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        hd cross = hd_sub(hd_mul(v[i1], u[i2]), hd_mul(v[i2], u[i1]));
        hd h = hd_sub(hd_add(hd_scale(hd_mul(dp[0], v[i]), -1.0), hd_mul(w, u[i])), cross);
        eps[3 + i] = hd_scale(hd_mul(s, h), il);
    }
}

/* Strain rate ε̇ of element e from y (dynamic layout), and with seed j in 0..25 (node
 * e's r, p, v, Ω, then node e+1's; -1: none) its derivative ∂ε̇/∂y_j. */
static void strain_rate(const cr_model *m, int e, const double *y, int seed, double rate[6], double drate[6])
{
    hd q[14];
    for (int k = 0; k < 2; ++k) {
        const double *yk = y + (size_t)(e + k) * CR_DYN_BLOCK;
        int s0 = 13 * k; /* this node's first seed index */
        hd x[13];        /* r, p, v, Ω with the e₂ seed */
        for (int i = 0; i < 13; ++i) x[i] = (hd){yk[i], 0, seed == s0 + i ? 1.0 : 0.0, 0};
        /* q̇: r' = v, p' = dExp⁺(p) Ω = ½ (-v·Ω, p0 Ω + v × Ω) (eq. 4), in e₂ arithmetic */
        hd qd[7];
        for (int i = 0; i < 3; ++i) qd[i] = x[7 + i];
        hd *p = x + 3, *om = x + 10;
        qd[3] = hd_scale(hd_add(hd_add(hd_mul(p[1], om[0]), hd_mul(p[2], om[1])), hd_mul(p[3], om[2])), -0.5);
        for (int i = 0; i < 3; ++i) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
            hd cross = hd_sub(hd_mul(p[1 + i1], om[i2]), hd_mul(p[1 + i2], om[i1]));
            qd[4 + i] = hd_scale(hd_add(hd_mul(p[0], om[i]), cross), 0.5);
        }
        /* q + e₁ q̇: x has parts (a, c) only and so has q̇, so e₁ q̇ = q̇.a e₁ + q̇.c e₁e₂ */
        for (int i = 0; i < 7; ++i) q[7 * k + i] = (hd){x[i].a, qd[i].a, x[i].c, qd[i].c};
    }
    hd eps[6];
    strains_hd(q, m->el[e].length, eps);
    for (int k = 0; k < 6; ++k) {
        if (rate) rate[k] = eps[k].b;
        if (drate) drate[k] = eps[k].d;
    }
}

/* Drag on node i: adds force and moment rows and their derivatives. */
static void drag_node(const cr_model *m, int i, const double *yi, double *Fi, double *Di)
{
    const int B = CR_DYN_BLOCK;
    double L = m->lumped_length[i];
    cr_quat p = cr_q_load(yi + 3);
    cr_vec3 v = cr_v3_load(yi + CR_DYN_V), om = cr_v3_load(yi + CR_DYN_W);
    cr_mat3 A = cr_q_exp(p);
    cr_vec3 w = cr_m3_tmulv(A, v), Cw = cr_v3_mul(m->drag, w);
    cr_vec3 f = cr_v3_scale(cr_m3_mulv(A, Cw), -L);
    cr_vec3 mu = cr_v3_scale(cr_v3_mul(m->rotational_drag, om), -L);
    for (int k = 0; k < 3; ++k) {
        Fi[CR_DYN_V + k] += cr_v3_get(f, k);
        Fi[CR_DYN_W + k] += cr_v3_get(mu, k);
    }
    if (!Di) return;
    /* ∂f/∂v = -L A C Aᵀ;  ∂f/∂p = -L [∂(A x)/∂p at x = C w + A C ∂(Aᵀ v)/∂p];  ∂μ/∂Ω = -L D */
    double c[3] = {m->drag.x, m->drag.y, m->drag.z},
           d[3] = {m->rotational_drag.x, m->rotational_drag.y, m->rotational_drag.z};
    double D1[3][4], D2[3][4];
    cr_q_exp_mulv_dp(p, Cw, D1);
    cr_q_exp_tmulv_dp(p, v, D2);
    for (int r = 0; r < 3; ++r) {
        double *row = Di + (size_t)(CR_DYN_V + r) * B;
        for (int q = 0; q < 3; ++q) {
            double acat = 0;
            for (int k = 0; k < 3; ++k) acat += A.m[r][k] * c[k] * A.m[q][k];
            row[CR_DYN_V + q] -= L * acat;
        }
        for (int q = 0; q < 4; ++q) {
            double t = D1[r][q];
            for (int k = 0; k < 3; ++k) t += A.m[r][k] * c[k] * D2[k][q];
            row[3 + q] -= L * t;
        }
        Di[(size_t)(CR_DYN_W + r) * B + CR_DYN_W + r] -= L * d[r];
    }
}

void cr_mixed_damping_terms(const cr_model *m, const double *y, double *F, cr_blocktri *J)
{
    const int B = CR_DYN_BLOCK;
    if (m->kv_tau)
        for (int e = 0; e < m->n; ++e) {
            const double *tau = m->kv_tau + 6 * (size_t)e;
            double rate[6], drate[6];
            strain_rate(m, e, y, -1, rate, NULL);
            double *Fe = F + (size_t)e * B + CR_DYN_LAM;
            for (int k = 0; k < 6; ++k) Fe[k] -= tau[k] * rate[k];
            if (!J) continue;
            /* stress rows of element e live in block e: columns of node e in D_e, of node e+1 in U_e */
            double *Dd = cr_blocktri_D(J, e), *Ud = cr_blocktri_U(J, e);
            for (int j = 0; j < 26; ++j) {
                strain_rate(m, e, y, j, NULL, drate);
                double *blk = j < 13 ? Dd : Ud;
                int col = j % 13;
                for (int k = 0; k < 6; ++k) blk[(size_t)(CR_DYN_LAM + k) * B + col] -= tau[k] * drate[k];
            }
        }
    if (m->drag_active)
        for (int i = 0; i < m->nodes; ++i)
            drag_node(m, i, y + (size_t)i * B, F + (size_t)i * B, J ? cr_blocktri_D(J, i) : NULL);
}

double cr_mixed_damping_power(const cr_model *m, const double *y)
{
    const int B = CR_DYN_BLOCK;
    double P = 0;
    if (m->kv_tau)
        for (int e = 0; e < m->n; ++e) {
            const cr_element *el = &m->el[e];
            const double *tau = m->kv_tau + 6 * (size_t)e;
            double K[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
            double rate[6];
            strain_rate(m, e, y, -1, rate, NULL);
            for (int k = 0; k < 6; ++k) P += el->length * K[k] * tau[k] * rate[k] * rate[k];
        }
    if (m->drag_active)
        for (int i = 0; i < m->nodes; ++i) {
            /* a held node at rest dissipates nothing; a driven one dissipates in the fluid what
             * its support's reaction (which includes the drag) supplies */
            const double *yi = y + (size_t)i * B;
            cr_vec3 v = cr_v3_load(yi + CR_DYN_V), om = cr_v3_load(yi + CR_DYN_W);
            cr_vec3 w = cr_m3_tmulv(cr_q_exp(cr_q_load(yi + 3)), v);
            P += m->lumped_length[i] *
                 (cr_v3_dot(w, cr_v3_mul(m->drag, w)) + cr_v3_dot(om, cr_v3_mul(m->rotational_drag, om)));
        }
    return P;
}

double cr_mixed_damping_elastic_energy(const cr_model *m, const double *y)
{
    const int B = CR_DYN_BLOCK;
    double U = 0;
    for (int e = 0; e < m->n; ++e) {
        const cr_element *el = &m->el[e];
        const double *ya = y + (size_t)e * B, *yb = ya + B;
        cr_vec3 g, k;
        cr_element_strains(el, cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb), cr_q_load(yb + 3), &g, &k);
        cr_vec3 dg = cr_v3_sub(g, el->gamma0), dk = cr_v3_sub(k, el->kappa0);
        U +=
            0.5 * el->length * (cr_v3_dot(dg, cr_v3_mul(el->k_force, dg)) + cr_v3_dot(dk, cr_v3_mul(el->k_moment, dk)));
    }
    return U;
}

void cr_mixed_damping_consistent_stress(const cr_model *m, double *y)
{
    if (!m->kv_tau) return;
    for (int e = 0; e < m->n; ++e) {
        const cr_element *el = &m->el[e];
        double K[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
        double rate[6];
        strain_rate(m, e, y, -1, rate, NULL);
        double *lam = y + (size_t)e * CR_DYN_BLOCK + CR_DYN_LAM;
        for (int k = 0; k < 6; ++k) lam[k] += K[k] * m->kv_tau[6 * (size_t)e + k] * rate[k];
    }
}
