/* Supports of the mixed discrete rod: the rows that hold some of a node's six
 * degrees of freedom, in statics (eqs. 22–24) and in the DAE (eqs. 12–14).
 *
 * A held coordinate replaces a balance equation; the balance in the free
 * directions stays. Translations: rows 0..2 are the force balance in I; with the
 * support's axes d_k they become d_kᵀ(r − r_t) = 0 (held) or d_kᵀ f = 0 (free), so
 * the reaction is Σ_held (d_kᵀ f) d_k, exactly along the held axes.
 * Rotations: none held (a pin): unchanged; all held: p = ±p_t (4 rows with the norm
 * row); two held (a hinge about the third axis a): q = p_t* ⊗ p must be a rotation
 * about a, i.e. h_kᵀ vec(q) = 0 for the two held axes h_k (target-body components).
 * The reactions of these constraints lie in the plane ⟂ a whenever vec(q) ∥ a, so
 * the free balance row aᵀ m_B is exact at the solution. One held axis h: hᵀ vec(q) = 0
 * (the relative rotation has no component about h), with a reaction axis that turns
 * with the node (see the rows below). */
#include "supports.h"
#include "contact/contact.h"

#include <math.h>
#include <string.h>

/* rows row0..row0+2 of node i := T · those rows (F and the three blocks of J) */
static void combine_rows(const cr_model *m, int B, int i, int row0, const double T[3][3], double *Fi, cr_blocktri *J)
{
    double f[3];
    for (int r = 0; r < 3; ++r) f[r] = T[r][0] * Fi[row0] + T[r][1] * Fi[row0 + 1] + T[r][2] * Fi[row0 + 2];
    for (int r = 0; r < 3; ++r) Fi[row0 + r] = f[r];
    if (!J) return;
    double *blocks[3] = {cr_blocktri_D(J, i), i > 0 ? cr_blocktri_L(J, i) : NULL,
                         i < m->nodes - 1 ? cr_blocktri_U(J, i) : NULL};
    for (int b = 0; b < 3; ++b) {
        double *M = blocks[b];
        if (!M) continue;
        for (int c = 0; c < B; ++c) {
            double col[3];
            for (int r = 0; r < 3; ++r)
                col[r] =
                    T[r][0] * M[(row0 + 0) * B + c] + T[r][1] * M[(row0 + 1) * B + c] + T[r][2] * M[(row0 + 2) * B + c];
            for (int r = 0; r < 3; ++r) M[(row0 + r) * B + c] = col[r];
        }
    }
}

/* zeroes row `row` of node i in all three blocks */
static void clear_row(const cr_model *m, int B, int i, int row, cr_blocktri *J)
{
    memset(cr_blocktri_D(J, i) + (size_t)row * B, 0, (size_t)B * sizeof(double));
    if (i > 0) memset(cr_blocktri_L(J, i) + (size_t)row * B, 0, (size_t)B * sizeof(double));
    if (i < m->nodes - 1) memset(cr_blocktri_U(J, i) + (size_t)row * B, 0, (size_t)B * sizeof(double));
}

static int held_rotations(unsigned hold) { return ((hold >> 3) & 1) + ((hold >> 4) & 1) + ((hold >> 5) & 1); }

void cr_supports_translation_rows(const cr_model *m, const cr_supports_at *at, int B, const double *x, double *F,
                                  cr_blocktri *J)
{
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        unsigned h = sp->hold & CR_HOLD_TRANSLATION;
        if (!h || !cr_support_active(sp, at->stage)) continue;
        const int i = sp->node;
        cr_vec3 rt, r = cr_x_position(m, x, i); /* x: static layout; F and J: B per node */
        cr_quat pt;
        cr_support_target(m, k, at, &rt, &pt, NULL, NULL, NULL, NULL);
        double *Fi = F + (size_t)i * B;
        cr_vec3 dr = cr_v3_sub(r, rt);
        if (h == CR_HOLD_TRANSLATION) { /* all three: r = r_t, whatever the axes */
            for (int c = 0; c < 3; ++c) Fi[c] = cr_v3_get(dr, c);
            if (J)
                for (int c = 0; c < 3; ++c) {
                    clear_row(m, B, i, c, J);
                    cr_blocktri_D(J, i)[c * B + c] = 1.0;
                }
            continue;
        }
        double T[3][3];
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) T[a][c] = sp->axes.m[c][a]; /* row a = d_aᵀ */
        combine_rows(m, B, i, 0, T, Fi, J);
        for (int a = 0; a < 3; ++a) {
            if (!(h & (1u << a))) continue;
            Fi[a] = T[a][0] * dr.x + T[a][1] * dr.y + T[a][2] * dr.z;
            if (!J) continue;
            clear_row(m, B, i, a, J);
            for (int c = 0; c < 3; ++c) cr_blocktri_D(J, i)[a * B + c] = T[a][c];
        }
    }
}

/* One held rotation axis h at node i (target-body components; u1, u2 complete the
 * frame): g = hᵀ vec(q) = 0 with q = p_t* ⊗ p; its reaction in B is along
 * c = q_w h + h × q_v (δg = ½ cᵀ δθ), so the balance holds when c × m_B = 0, two rows
 * u_jᵀ (c × m_B) with u_j ⟂ h fixed. */
static void one_axis_rows(const cr_model *m, int i, cr_quat pt, cr_vec3 h, cr_vec3 u1, cr_vec3 u2, cr_quat p,
                          double *Fi, cr_blocktri *J)
{
    const int B = m->block;
    /* vec(p_t* ⊗ p) = Q p and (p_t* ⊗ p)_w = w_q·p: Q = [ -v_t | w_t E - v~_t ], w_q = p_t */
    cr_vec3 vt = cr_q_vec(pt);
    cr_mat3 S = cr_m3_skew(vt);
    double Q[3][4];
    for (int r = 0; r < 3; ++r) {
        Q[r][0] = -cr_v3_get(vt, r);
        for (int c = 0; c < 3; ++c) Q[r][1 + c] = (r == c ? pt.w : 0.0) - S.m[r][c];
    }
    const double pv[4] = {p.w, p.x, p.y, p.z}, wq[4] = {pt.w, pt.x, pt.y, pt.z};
    double qw = 0, qv[3] = {0, 0, 0};
    for (int c = 0; c < 4; ++c) {
        qw += wq[c] * pv[c];
        for (int r = 0; r < 3; ++r) qv[r] += Q[r][c] * pv[c];
    }
    cr_vec3 q_v = cr_v3_load(qv), cc = cr_v3_add(cr_v3_scale(h, qw), cr_v3_cross(h, q_v));
    cr_vec3 mB = cr_v3_load(Fi + 3); /* before the rows change */
    cr_vec3 w1 = cr_v3_cross(u1, cc), w2 = cr_v3_cross(u2, cc);
    double T[3][3] = {{w1.x, w1.y, w1.z}, {w2.x, w2.y, w2.z}, {h.x, h.y, h.z}};
    combine_rows(m, B, i, 3, T, Fi, J);
    double g = h.x * qv[0] + h.y * qv[1] + h.z * qv[2];
    Fi[5] = g;
    if (!J) return;
    /* dc/dp = h w_qᵀ + h~ Q;  d(u·(c × m))/dp += (m × u)ᵀ dc/dp */
    cr_mat3 ht = cr_m3_skew(h);
    double dc[3][4];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
            dc[r][c] = cr_v3_get(h, r) * wq[c] + ht.m[r][0] * Q[0][c] + ht.m[r][1] * Q[1][c] + ht.m[r][2] * Q[2][c];
    double *D = cr_blocktri_D(J, i);
    cr_vec3 mu[2] = {cr_v3_cross(mB, u1), cr_v3_cross(mB, u2)};
    for (int j = 0; j < 2; ++j)
        for (int c = 0; c < 4; ++c)
            D[(3 + j) * B + 3 + c] += mu[j].x * dc[0][c] + mu[j].y * dc[1][c] + mu[j].z * dc[2][c];
    clear_row(m, B, i, 5, J);
    for (int c = 0; c < 4; ++c) D[5 * B + 3 + c] = h.x * Q[0][c] + h.y * Q[1][c] + h.z * Q[2][c];
}

void cr_supports_static_rows(const cr_model *m, const cr_supports_at *at, const double *x, double *F, cr_blocktri *J)
{
    const int B = m->block;
    cr_supports_translation_rows(m, at, B, x, F, J);
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        int nrot = held_rotations(sp->hold);
        if (nrot == 0 || !cr_support_active(sp, at->stage)) continue;
        const int i = sp->node;
        const double *xi = x + (size_t)i * B;
        double *Fi = F + (size_t)i * B;
        cr_vec3 rt;
        cr_quat pt, p = cr_q_load(xi + 3);
        cr_support_target(m, k, at, &rt, &pt, NULL, NULL, NULL, NULL);
        if (nrot == 3) { /* p = ±p_t (the same rotation): the three moment rows and the norm row */
            if (cr_q_dot(p, pt) < 0) pt = cr_q_scale(pt, -1.0);
            double d[4] = {p.w - pt.w, p.x - pt.x, p.y - pt.y, p.z - pt.z};
            for (int c = 0; c < 4; ++c) Fi[3 + c] = d[c];
            if (J)
                for (int c = 0; c < 4; ++c) {
                    clear_row(m, B, i, 3 + c, J);
                    cr_blocktri_D(J, i)[(3 + c) * B + 3 + c] = 1.0;
                }
            continue;
        }
        cr_mat3 At = cr_q_exp(pt);
        /* vec(p_t* ⊗ p) = Q p and (p_t* ⊗ p)_w = w_q·p: Q = [ -v_t | w_t E - v~_t ], w_q = p_t */
        cr_vec3 vt = cr_q_vec(pt);
        cr_mat3 S = cr_m3_skew(vt);
        double Q[3][4];
        for (int r = 0; r < 3; ++r) {
            Q[r][0] = -cr_v3_get(vt, r);
            for (int c = 0; c < 3; ++c) Q[r][1 + c] = (r == c ? pt.w : 0.0) - S.m[r][c];
        }
        const double pv[4] = {p.w, p.x, p.y, p.z};
        if (nrot == 2) {
            /* hinge: axes in target-body components, the free one first; row 3 = aᵀ m_B stays */
            int free_axis = !(sp->hold & CR_HOLD_RX) ? 0 : !(sp->hold & CR_HOLD_RY) ? 1 : 2;
            cr_vec3 ax[3];
            for (int a = 0; a < 3; ++a) ax[a] = cr_m3_tmulv(At, cr_m3_column(sp->axes, (free_axis + a) % 3));
            double T[3][3];
            for (int a = 0; a < 3; ++a)
                for (int c = 0; c < 3; ++c) T[a][c] = cr_v3_get(ax[a], c);
            combine_rows(m, B, i, 3, T, Fi, J);
            for (int a = 1; a < 3; ++a) {
                double row[4] = {0, 0, 0, 0};
                for (int c = 0; c < 4; ++c)
                    for (int r = 0; r < 3; ++r) row[c] += cr_v3_get(ax[a], r) * Q[r][c];
                Fi[3 + a] = row[0] * pv[0] + row[1] * pv[1] + row[2] * pv[2] + row[3] * pv[3];
                if (!J) continue;
                clear_row(m, B, i, 3 + a, J);
                for (int c = 0; c < 4; ++c) cr_blocktri_D(J, i)[(3 + a) * B + 3 + c] = row[c];
            }
            continue;
        }
        /* one held axis h (target-body components), u1, u2 the other two */
        int held_axis = (sp->hold & CR_HOLD_RX) ? 0 : (sp->hold & CR_HOLD_RY) ? 1 : 2;
        cr_vec3 h = cr_m3_tmulv(At, cr_m3_column(sp->axes, held_axis));
        cr_vec3 u1 = cr_m3_tmulv(At, cr_m3_column(sp->axes, (held_axis + 1) % 3));
        cr_vec3 u2 = cr_m3_tmulv(At, cr_m3_column(sp->axes, (held_axis + 2) % 3));
        one_axis_rows(m, i, pt, h, u1, u2, p, Fi, J);
    }
    /* The twist gauge (cr_mixed_twist_gauge): the moment balance about the gauge node's
     * own axis (row 3, body x) becomes g = e_xᵀ vec(p_t* ⊗ p) = 0, no turn about its axis
     * from its start pose p_t. That balance is implied by the others: by the symmetry the
     * body-x moment rows of all nodes sum to zero identically (each element adds S ± m to
     * its two nodes and (γ × n + κ × m)_x = 0 for isotropic stiffnesses; dead forces do not
     * enter moment rows), so nothing is lost and no reaction is introduced. (A fork's rows,
     * which let a moment along its reaction axis q_w h + h × q_v through, would let the
     * pin carry a bending moment once the node has turned.) Along the gauge orbit
     * p ⊗ (cos φ/2, sin φ/2 e_x), (q_w, q_x) turns by φ/2, so g = 0 is met transversally
     * unless the node has swung by half a turn. */
    if (at->gauge) {
        const int i = at->gauge_node;
        const double *pt = at->gauge_p, *p = x + (size_t)i * B + 3;
        /* e_xᵀ vec(p_t* ⊗ p) = w_t p_x − x_t p_w − (v_t × p_v)_x = row · p */
        const double row[4] = {-pt[1], pt[0], pt[3], -pt[2]};
        F[(size_t)i * B + 3] = row[0] * p[0] + row[1] * p[1] + row[2] * p[2] + row[3] * p[3];
        if (J) {
            clear_row(m, B, i, 3, J);
            for (int c = 0; c < 4; ++c) cr_blocktri_D(J, i)[3 * B + 3 + c] = row[c];
        }
    }
}

int cr_mixed_twist_gauge(const cr_model *m, int stage)
{
    int node = -1;
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, stage)) continue;
        if (sp->hold & CR_HOLD_ROTATION) return -1; /* the user holds a rotation: no gauge to fix */
        if (node < 0) node = sp->node;
    }
    if (node < 0 && m->contact) node = 0; /* a rod held by obstacles alone (contact forces act on no moment row) */
    /* friction at the contact point (contact.rolling) turns the nodes it touches: their twist is
     * no symmetry, and a gauge would hold the moment that rolls the rod (a rod pushed sideways on
     * rough ground "converged" held by it) */
    for (int k = 0; m->contact && m->contact->quat_offset >= 0 && k < m->contact->obstacle_count; ++k)
        if (m->contact->obstacles[k].mu_static > 0) return -1;
    if (node < 0 || m->body_count > 0 || m->tendon_count > 0) return -1;
    /* rigid components must be symmetric in y and z as well */
    unsigned rm = m->rigid_mask;
    if (((rm >> 1) & 1) != ((rm >> 2) & 1) || ((rm >> 4) & 1) != ((rm >> 5) & 1)) return -1;
    for (int k = 0; k < m->load_count; ++k) {
        const cr_model_load *ld = &m->loads[k];
        if (ld->body >= 0) return -1;
        if (ld->type == CR_LOAD_GRAVITY) continue;
        if ((ld->type == CR_LOAD_FORCE || ld->type == CR_LOAD_FORCE_DENSITY) && ld->frame == CR_FRAME_INERTIAL)
            continue;
        return -1; /* moments (a torque about the axis has no equilibrium), follower loads, tendons */
    }
    const double tol = 1e-12;
    for (int e = 0; e < m->n; ++e) {
        const cr_element *el = &m->el[e];
        if (fabs(el->k_force.y - el->k_force.z) > tol * fabs(el->k_force.y) ||
            fabs(el->k_moment.y - el->k_moment.z) > tol * fabs(el->k_moment.y))
            return -1;
        if (fabs(el->gamma0.y) + fabs(el->gamma0.z) > tol * fabs(el->gamma0.x) ||
            (fabs(el->kappa0.y) + fabs(el->kappa0.z)) * el->length > tol)
            return -1;
    }
    return node;
}

/* The inertial component that frame axis a of a support lies along (±), or -1. */
static int aligned_component(cr_mat3 M, int a)
{
    for (int c = 0; c < 3; ++c)
        if (fabs(fabs(M.m[c][a]) - 1.0) < 1e-12) return c;
    return -1;
}

cr_status cr_supports_dynamic_check(const cr_model *m, int stage, cr_error *err)
{
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, stage)) continue;
        unsigned h = sp->hold;
        int has_body = 0;
        for (int j = 0; j < m->body_count; ++j) has_body |= m->bodies[j].node == sp->node;
        if (has_body && h != CR_HOLD_ALL)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "boundary_conditions.%d: in dynamic stages a node with a rigid body can only be "
                                "clamped (all six held), not partly held",
                                k);
        /* the integrator's mass is diagonal: a partly held translation must be along inertial axes */
        if ((h & CR_HOLD_TRANSLATION) && (h & CR_HOLD_TRANSLATION) != CR_HOLD_TRANSLATION)
            for (int a = 0; a < 3; ++a)
                if (aligned_component(sp->axes, a) < 0)
                    return cr_error_set(err, CR_UNSUPPORTED,
                                        "boundary_conditions.%d.frame: in dynamic stages a partly held translation "
                                        "needs frame axes along the inertial axes (axis %d is not)",
                                        k, a + 1);
        if (held_rotations(h) == 1)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "boundary_conditions.%d.hold: one held rotation is a static support only (in "
                                "dynamic stage %d hold none, two or all three)",
                                k, stage);
        if (held_rotations(h) == 2) {
            if (sp->driven && cr_v3_norm(sp->phi) > 0)
                return cr_error_set(err, CR_UNSUPPORTED,
                                    "boundary_conditions.%d.time: a hinge cannot turn its target in dynamic stages; "
                                    "hold all three rotations to drive the rotation",
                                    k);
            cr_vec3 rt;
            cr_quat pt;
            cr_supports_at at = {.stage = stage, .ramp = 1.0, .t = 0};
            cr_support_target(m, k, &at, &rt, &pt, NULL, NULL, NULL, NULL);
            cr_mat3 Bt = cr_m3_mul(cr_m3_transpose(cr_q_exp(pt)), sp->axes);
            for (int a = 0; a < 3; ++a)
                if (aligned_component(Bt, a) < 0)
                    return cr_error_set(err, CR_UNSUPPORTED,
                                        "boundary_conditions.%d.frame: in dynamic stages a hinge axis must be a body "
                                        "axis of the node (axis %d is not)",
                                        k, a + 1);
        }
    }
    return CR_OK;
}

/* which rows of node block k (layout CR_DYN_BLOCK) a support makes algebraic */
void cr_supports_dynamic_held(const cr_model *m, const cr_support *sp, const cr_supports_at *at, int k, int rows[13])
{
    memset(rows, 0, 13 * sizeof *rows);
    unsigned h = sp->hold;
    for (int a = 0; a < 3; ++a)
        if (h & (1u << a)) {
            int c = (h & CR_HOLD_TRANSLATION) == CR_HOLD_TRANSLATION ? a : aligned_component(sp->axes, a);
            if (c >= 0) rows[c] = rows[CR_DYN_V + c] = 1;
        }
    int nrot = held_rotations(h);
    if (nrot == 3)
        for (int c = 0; c < 4; ++c) rows[3 + c] = 1, rows[CR_DYN_W + (c < 3 ? c : 0)] = 1;
    if (nrot == 2) {
        cr_vec3 rt;
        cr_quat pt;
        cr_support_target(m, k, at, &rt, &pt, NULL, NULL, NULL, NULL);
        cr_mat3 Bt = cr_m3_mul(cr_m3_transpose(cr_q_exp(pt)), sp->axes);
        for (int a = 0; a < 3; ++a)
            if (h & (8u << a)) {
                int c = aligned_component(Bt, a);
                if (c >= 0) rows[CR_DYN_W + c] = 1;
            }
    }
}

void cr_supports_dynamic_mass(const cr_model *m, int stage, double *mass)
{
    cr_supports_at at = {.stage = stage, .ramp = 1.0, .t = 0};
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, stage)) continue;
        int rows[13];
        cr_supports_dynamic_held(m, sp, &at, k, rows);
        for (int r = 0; r < 13; ++r)
            if (rows[r]) mass[(size_t)sp->node * CR_DYN_BLOCK + r] = 0.0;
    }
}

void cr_supports_dynamic_rows(const cr_model *m, const cr_supports_at *at, const double *y, double *F, cr_blocktri *J)
{
    const int B = CR_DYN_BLOCK;
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, at->stage)) continue;
        const int i = sp->node;
        int rows[13];
        cr_supports_dynamic_held(m, sp, at, k, rows);
        cr_vec3 rt, vt, wt;
        cr_quat pt;
        cr_support_target(m, k, at, &rt, &pt, &vt, &wt, NULL, NULL);
        /* held coordinates are algebraic: 0 = target(t) − y (index 1, nothing penalized);
         * the quaternion target in the node's hemisphere (±p_t is the same rotation) */
        if (cr_q_dot(cr_q_load(y + (size_t)i * B + 3), pt) < 0) pt = cr_q_scale(pt, -1.0);
        cr_vec3 Wt = cr_m3_tmulv(cr_q_exp(pt), wt);
        const double tgt[13] = {rt.x, rt.y, rt.z, pt.w, pt.x, pt.y, pt.z, vt.x, vt.y, vt.z, Wt.x, Wt.y, Wt.z};
        const double *yi = y + (size_t)i * B;
        double *Fi = F + (size_t)i * B;
        for (int r = 0; r < 13; ++r) {
            if (!rows[r]) continue;
            Fi[r] = tgt[r] - yi[r];
            if (!J) continue;
            clear_row(m, B, i, r, J);
            cr_blocktri_D(J, i)[r * B + r] = -1.0;
        }
    }
}

cr_status cr_supports_dynamic_start(const cr_model *m, int stage, double t, double *y, cr_error *err)
{
    const int B = CR_DYN_BLOCK;
    cr_supports_at at = {.stage = stage, .ramp = 1.0, .t = t};
    const double tol = 1e-8;
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, stage)) continue;
        int rows[13];
        cr_supports_dynamic_held(m, sp, &at, k, rows);
        cr_vec3 rt, vt, wt;
        cr_quat pt;
        cr_support_target(m, k, &at, &rt, &pt, &vt, &wt, NULL, NULL);
        double *yi = y + (size_t)sp->node * B;
        if (cr_q_dot(cr_q_load(yi + 3), pt) < 0) pt = cr_q_scale(pt, -1.0); /* the same rotation */
        cr_vec3 Wt = cr_m3_tmulv(cr_q_exp(pt), wt);
        const double tgt[13] = {rt.x, rt.y, rt.z, pt.w, pt.x, pt.y, pt.z, vt.x, vt.y, vt.z, Wt.x, Wt.y, Wt.z};
        double scale = m->length + cr_v3_norm(rt);
        for (int r = 0; r < 7; ++r) {
            if (!rows[r]) continue;
            double d = fabs(yi[r] - tgt[r]), lim = tol * (r < 3 ? scale : 1.0);
            if (!(d <= lim))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "boundary_conditions.%d: at t = %g s the support's target (%s %d) is %g away from "
                                    "node %d; a support must find its node at the target when a dynamic stage "
                                    "starts (stage %d): let a static stage move it there, or start its time "
                                    "function where the node is",
                                    k, t, r < 3 ? "coordinate" : "quaternion component", r < 3 ? r : r - 3, d, sp->node,
                                    stage);
        }
        for (int r = 0; r < 13; ++r)
            if (rows[r]) yi[r] = tgt[r]; /* exactly consistent initial values */
    }
    return CR_OK;
}
