/* Static residual and exact Jacobian of the mixed discrete rod (eqs. 7, 9, 18–24).
 * Every term is local to one element or one tendon segment (two nodes), so the
 * assembly is one pass over elements plus one over nodes: O(n). */
#include "contact/contact.h"
#include "mixed.h"
#include "selfcontact.h"
#include "supports.h"
#include "terms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The obstacles' contact wrenches on the force rows 0..2 and the body moment rows 3..5 (stride `B`
 * unknowns a node, columns 0..2: r, 3..6: p), with their derivatives in the diagonal blocks
 * (node-local: friction acts at the contact point, so its moment and its slip depend on the node's
 * rotation, but on no other node's). */
static void contact_rows(const cr_model *m, const double *x, double *F, cr_blocktri *J, int B)
{
    if (!m->contact) return;
    for (int i = 0; i < m->nodes; ++i) {
        if (m->contact->quat_offset < 0) { /* at the centre (the default): the force alone */
            cr_vec3 f;
            cr_mat3 K;
            cr_contact_node_force(m->contact, i, cr_x_position(m, x, i), &f, J ? &K : NULL, NULL);
            double *Fi = F + (size_t)i * B;
            Fi[0] += f.x, Fi[1] += f.y, Fi[2] += f.z;
            if (!J) continue;
            double *D = cr_blocktri_D(J, i);
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) D[r * B + c] += K.m[r][c];
            continue;
        }
        cr_contact_wrench w;
        cr_contact_node_wrench(m->contact, i, cr_x_position(m, x, i), cr_x_orientation(m, x, i), NULL, &w, J != NULL,
                               NULL);
        double *Fi = F + (size_t)i * B;
        Fi[0] += w.f.x, Fi[1] += w.f.y, Fi[2] += w.f.z;
        Fi[3] += w.m.x, Fi[4] += w.m.y, Fi[5] += w.m.z;
        if (!J) continue;
        double *D = cr_blocktri_D(J, i);
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) D[r * B + c] += w.f_r.m[r][c], D[(3 + r) * B + c] += w.m_r.m[r][c];
            for (int c = 0; c < 4; ++c) D[r * B + 3 + c] += w.f_p[r][c], D[(3 + r) * B + 3 + c] += w.m_p[r][c];
        }
    }
}

/* unit-norm rows of nodes first..end-1 */
static void norm_rows(const cr_model *m, const double *x, double *F, cr_blocktri *J, int first, int end)
{
    const int B = m->block;
    for (int i = first; i < end; ++i) {
        const double *xi = x + (size_t)i * B;
        F[(size_t)i * B + 6] = xi[3] * xi[3] + xi[4] * xi[4] + xi[5] * xi[5] + xi[6] * xi[6] - 1.0;
        if (J) {
            double *D = cr_blocktri_D(J, i);
            for (int c = 0; c < 4; ++c) D[6 * B + 3 + c] = 2.0 * xi[3 + c];
        }
    }
}

/* Node ranges per thread: more than one, so that a worker the scheduler takes off its core
 * in the middle of a range holds back only a small share (the caller takes the ranges not
 * yet claimed); a range costs one extra element evaluation. */
#define RANGES_PER_THREAD 4

static int ranges_of(const cr_pool *pool, int nodes) /* at least two nodes a range */
{
    int r = RANGES_PER_THREAD * cr_pool_threads(pool);
    return r > nodes / 2 ? nodes / 2 : r;
}

typedef struct range_job {
    const cr_model *m;
    const double *scale, *x;
    double *F;
    cr_blocktri *J;
    int ranges;
} range_job;

/* the element pass and the norm rows of one node range: the coarse parallel region */
static void assemble_range(void *arg, int k)
{
    const range_job *j = arg;
    const int nn = j->m->nodes, first = (int)((long long)nn * k / j->ranges),
              end = (int)((long long)nn * (k + 1) / j->ranges);
    cr_term_rod_static_nodes(j->m, j->scale, j->x, j->F, j->J, first, end);
    norm_rows(j->m, j->x, j->F, j->J, first, end);
}

cr_status cr_mixed_static_residual(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                   double *F, cr_blocktri *J, double *node_equilibrium)
{
    return cr_mixed_static_residual_par(m, at, scale, x, F, J, node_equilibrium, NULL);
}

cr_status cr_mixed_static_residual_par(const cr_model *m, const cr_supports_at *at, const double *scale,
                                       const double *x, double *F, cr_blocktri *J, double *node_equilibrium,
                                       cr_pool *pool)
{
    const int B = m->block, nn = m->nodes, nr = m->rigid_count;
    const cr_layout ly = cr_layout_static(m);
    if (ly.stress_unknowns == 0 && pool && nn >= 2 * cr_pool_threads(pool)) {
        /* node ranges on the threads (rows 0..5 and J from the pass, row 6 the norm),
         * then the loads not fused into the pass, serially: results bit-identical to
         * the serial assembly */
        range_job job = {m, scale, x, F, J, ranges_of(pool, nn)};
        cr_pool_run(pool, job.ranges, assemble_range, &job);
        cr_term_rod_static_loads(m, &ly, scale, x, F, J);
        contact_rows(m, x, F, J, B);
        if (m->selfcontact) cr_mixed_selfcontact_rows(m, x, F, J);
        if (node_equilibrium)
            for (int i = 0; i < nn; ++i) memcpy(node_equilibrium + (size_t)i * 6, F + (size_t)i * B, 6 * sizeof *F);
        cr_supports_static_rows(m, at, x, F, J);
        if (m->selfcontact && J) cr_mixed_selfcontact_supports(m, at);
        for (size_t k = 0; k < (size_t)nn * B; ++k)
            if (!isfinite(F[k])) return CR_NONFINITE;
        return CR_OK;
    }
    if (ly.stress_unknowns == 0)
        cr_term_rod_static(m, &ly, scale, x, F, J); /* writes F rows 0..5 and all of J */
    else
        cr_term_rod(m, &ly, scale, x, F, J);
    contact_rows(m, x, F, J, B);
    if (m->selfcontact) cr_mixed_selfcontact_rows(m, x, F, J);
    for (int i = 0; i < nn; ++i) {
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
    }
    /* supported nodes: held coordinates replace their balance rows; the balance
     * rows saved above are the negative reactions */
    cr_supports_static_rows(m, at, x, F, J);
    if (m->selfcontact && J) cr_mixed_selfcontact_supports(m, at);
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

#define FUSED_TENDONS 8 /* tendons assembled inside the element pass; more through add_pair_stiffness */

/* One pass over the elements that writes every 3×3 block and force row once: node e's
 * diagonal block is -(K_{e-1} + K_e) with K_e the pair stiffness of element e and the
 * tendon segments on it, U_e = L_{e+1} = K_e; nothing is zeroed first. */
#if defined(__GNUC__)
#define FORCE_INLINE static inline __attribute__((always_inline))
#else
#define FORCE_INLINE static inline
#endif

/* the element pass for the rows of nodes first..end-1 (a range not starting at node 0
 * first evaluates element first-1 without writing, for node first's share of it) */
FORCE_INLINE void force_pass(const cr_model *m, const double *scale, const double *x, double *F, cr_blocktri *J,
                             int first, int end)
{
    const int nn = m->nodes, ne = m->n;
    const cr_tendon *tt[FUSED_TENDONS];
    double T[FUSED_TENDONS];
    int carried[FUSED_TENDONS], nt = 0; /* node whose attachment point Pc[j] holds, or -1 */
    cr_vec3 Pc[FUSED_TENDONS];
    for (int k = 0; k < m->load_count && nt < FUSED_TENDONS; ++k)
        if (m->loads[k].type == CR_LOAD_TENDON && scale[k] != 0) {
            tt[nt] = &m->tendons[m->loads[k].tendon];
            T[nt] = scale[k] * tt[nt]->tension;
            carried[nt++] = -1;
        }
    cr_mat3 Kc = {{{0}}};
    cr_vec3 fc = cr_v3(0, 0, 0);
    if (first == 0) J->factored = 0;
    for (int e = first > 0 ? first - 1 : 0; e < end && e < ne; ++e) {
        const cr_element *el = &m->el[e];
        const cr_quat pa = cr_x_orientation(m, x, e), pb = cr_x_orientation(m, x, e + 1);
        const cr_vec3 ra = cr_x_position(m, x, e), rb = cr_x_position(m, x, e + 1);
        cr_mat3 A = cr_q_exp(cr_q_scale(cr_q_add(pa, pb), 0.5));
        const double il = 1.0 / el->length;
        cr_vec3 gamma = cr_v3_scale(cr_m3_tmulv(A, cr_v3_sub(rb, ra)), il);
        cr_vec3 f = cr_m3_mulv(A, cr_v3_mul(el->k_force, cr_v3_sub(gamma, el->gamma0)));
        /* d(A K_n Aᵀ Δr / L)/dΔr */
        const double kn[3] = {el->k_force.x * il, el->k_force.y * il, el->k_force.z * il};
        cr_mat3 K;
        for (int r = 0; r < 3; ++r)
            for (int c = r; c < 3; ++c)
                K.m[r][c] = K.m[c][r] =
                    kn[0] * A.m[r][0] * A.m[c][0] + kn[1] * A.m[r][1] * A.m[c][1] + kn[2] * A.m[r][2] * A.m[c][2];
        cr_mat3 Aa, Ab;
        int have_a = 0, have_b = 0;
        for (int j = 0; j < nt; ++j) { /* tendon segments on element e: force T ν, stiffness T (E - ν νᵀ)/ℓ */
            const cr_tendon *t = tt[j];
            if (e < t->first || e >= t->last) continue;
            if (carried[j] != e) {
                if (!have_a) Aa = cr_q_exp(pa), have_a = 1;
                Pc[j] = cr_v3_add(ra, cr_m3_mulv(Aa, t->offset[e - t->first]));
            }
            if (!have_b) Ab = cr_q_exp(pb), have_b = 1;
            cr_vec3 Pb = cr_v3_add(rb, cr_m3_mulv(Ab, t->offset[e + 1 - t->first]));
            cr_vec3 d = cr_v3_sub(Pb, Pc[j]);
            Pc[j] = Pb, carried[j] = e + 1;
            double len = cr_v3_norm(d);
            if (!(len > 0)) continue;
            cr_vec3 nu = cr_v3_scale(d, 1.0 / len);
            f = cr_v3_add(f, cr_v3_scale(nu, T[j]));
            const double nv[3] = {nu.x, nu.y, nu.z}, c = T[j] / len;
            for (int r = 0; r < 3; ++r)
                for (int cc = 0; cc < 3; ++cc) K.m[r][cc] += c * ((r == cc) - nv[r] * nv[cc]);
        }
        double *Fe = F + (size_t)3 * e, *D = cr_blocktri_D(J, e), *U = cr_blocktri_U(J, e),
               *Lb = cr_blocktri_L(J, e + 1);
        if (e < first) { /* element first-1: only its share of node first */
            fc = cr_v3_neg(f);
            Kc = K;
            continue;
        }
        Fe[0] = fc.x + f.x, Fe[1] = fc.y + f.y, Fe[2] = fc.z + f.z;
        fc = cr_v3_neg(f);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                D[r * 3 + c] = -(Kc.m[r][c] + K.m[r][c]);
                U[r * 3 + c] = Lb[r * 3 + c] = K.m[r][c];
            }
        Kc = K;
    }
    if (end < nn) return;
    double *Fn = F + (size_t)3 * ne, *Dn = cr_blocktri_D(J, ne);
    Fn[0] = fc.x, Fn[1] = fc.y, Fn[2] = fc.z;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Dn[r * 3 + c] = -Kc.m[r][c];
}

/* after the pass: the tendons beyond the fused ones, the loads and the supports */
static cr_status force_tail(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                            double *F, cr_blocktri *J)
{
    const int nn = m->nodes;
    int nt = 0;
    for (int k = 0; k < m->load_count && nt < FUSED_TENDONS; ++k)
        if (m->loads[k].type == CR_LOAD_TENDON && scale[k] != 0) ++nt;
    int fused = 0;
    for (int k = 0; k < m->load_count; ++k) { /* tendons beyond the fused ones */
        if (m->loads[k].type != CR_LOAD_TENDON || scale[k] == 0) continue;
        if (fused++ < nt) continue;
        const cr_tendon *t = &m->tendons[m->loads[k].tendon];
        for (int a = t->first; a < t->last; ++a) {
            cr_vec3 P[2];
            for (int j = 0; j < 2; ++j)
                P[j] = cr_v3_add(cr_x_position(m, x, a + j),
                                 cr_m3_mulv(cr_q_exp(cr_x_orientation(m, x, a + j)), t->offset[a + j - t->first]));
            cr_vec3 d = cr_v3_sub(P[1], P[0]);
            double len = cr_v3_norm(d), Tk = scale[k] * t->tension;
            if (!(len > 0)) continue;
            cr_vec3 nu = cr_v3_scale(d, 1.0 / len);
            cr_mat3 K;
            for (int r = 0; r < 3; ++r) {
                F[3 * a + r] += Tk * cr_v3_get(nu, r);
                F[3 * (a + 1) + r] -= Tk * cr_v3_get(nu, r);
                for (int c = 0; c < 3; ++c) K.m[r][c] = Tk * ((r == c) - cr_v3_get(nu, r) * cr_v3_get(nu, c)) / len;
            }
            add_pair_stiffness(J, a, K);
        }
    }
    cr_term_load_forces(m, scale, x, F);
    if (m->contact) {                  /* the contact forces, at the state's positions (x has the static layout) */
        for (int i = 0; i < nn; ++i) { /* (the orientations are fixed here: ∂f/∂r alone) */
            cr_contact_wrench w;
            cr_contact_node_wrench(m->contact, i, cr_x_position(m, x, i), cr_x_orientation(m, x, i), NULL, &w,
                                   J != NULL, NULL);
            F[3 * i] += w.f.x, F[3 * i + 1] += w.f.y, F[3 * i + 2] += w.f.z;
            if (!J) continue;
            double *D = cr_blocktri_D(J, i);
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) D[r * 3 + c] += w.f_r.m[r][c];
        }
    }
    cr_supports_translation_rows(m, at, 3, x, F, J);
    for (size_t k = 0; k < (size_t)nn * 3; ++k)
        if (!isfinite(F[k])) return CR_NONFINITE;
    return CR_OK;
}

/* Also in an AVX2 + FMA build chosen at run time, as the element pass (terms.c). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void
force_pass_avx2(const cr_model *m, const double *scale, const double *x, double *F, cr_blocktri *J, int first, int end)
{
    force_pass(m, scale, x, F, J, first, end);
}
#define FORCE_DISPATCH_AVX2 1
#endif

static void force_pass_default(const cr_model *m, const double *scale, const double *x, double *F, cr_blocktri *J,
                               int first, int end)
{
    force_pass(m, scale, x, F, J, first, end);
}

static void force_pass_any(const cr_model *m, const double *scale, const double *x, double *F, cr_blocktri *J,
                           int first, int end)
{
#ifdef FORCE_DISPATCH_AVX2
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        force_pass_avx2(m, scale, x, F, J, first, end);
        return;
    }
#endif
    force_pass_default(m, scale, x, F, J, first, end);
}

static void force_range(void *arg, int k)
{
    const range_job *j = arg;
    const int nn = j->m->nodes;
    force_pass_any(j->m, j->scale, j->x, j->F, j->J, (int)((long long)nn * k / j->ranges),
                   (int)((long long)nn * (k + 1) / j->ranges));
}

cr_status cr_mixed_force_residual(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                  double *F, cr_blocktri *J)
{
    return cr_mixed_force_residual_par(m, at, scale, x, F, J, NULL);
}

cr_status cr_mixed_force_residual_par(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                      double *F, cr_blocktri *J, cr_pool *pool)
{
    if (pool && m->nodes >= 2 * cr_pool_threads(pool)) { /* node ranges on the threads: bit-identical */
        range_job job = {m, scale, x, F, J, ranges_of(pool, m->nodes)};
        cr_pool_run(pool, job.ranges, force_range, &job);
    } else {
        force_pass_any(m, scale, x, F, J, 0, m->nodes);
    }
    return force_tail(m, at, scale, x, F, J);
}

int cr_model_support_at(const cr_model *m, int stage, int node)
{
    for (int k = 0; k < m->support_count; ++k)
        if (m->supports[k].node == node && cr_support_active(&m->supports[k], stage)) return k;
    return -1;
}

cr_status cr_state_reaction(const cr_model *m, const cr_state *s, int node, cr_vec3 *force, cr_vec3 *moment)
{
    if (node < 0) node += m->nodes;
    if (node < 0 || node >= m->nodes || cr_model_support_at(m, s->stage, node) < 0) return CR_BAD_INPUT;
    if (s->dynamic) return cr_mixed_dynamic_reaction(m, s, node, force, moment);
    /* Only the adjacent elements and the node's loads contribute, but a windowed
     * evaluation would duplicate the assembly; the full residual is O(n). */
    size_t len = (size_t)m->nodes * m->block;
    double *F = malloc(len * sizeof *F), *eq = malloc((size_t)m->nodes * 6 * sizeof *eq);
    if (!F || !eq) {
        free(F);
        free(eq);
        return CR_NO_MEMORY;
    }
    cr_supports_at at = cr_state_supports_at(s);
    cr_mixed_static_residual(m, &at, s->load_scale, s->x, F, NULL, eq);
    /* reaction = -(f_ext + W λ) at the node: zero along free directions at equilibrium */
    if (force) *force = cr_v3_neg(cr_v3_load(eq + (size_t)node * 6));
    if (moment) *moment = cr_v3_neg(cr_v3_load(eq + (size_t)node * 6 + 3));
    free(F);
    free(eq);
    return CR_OK;
}
