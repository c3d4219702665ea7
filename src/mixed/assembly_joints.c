/* The joints' constraints of an assembly (docs/theory.md, "Assemblies"): every joint is
 * position rows (r_b − r_a, or a slider's two (A_a u)·(r_b − r_a)) and some "dot" rows
 * (A_a s)·(A_b t) = 0, so a few derivations give the constraint Jacobian and the
 * geometric stiffness of every joint type. A slider's drive is one more slider row (along
 * the axis, minus X); the spring rows' measures (the angle about a hinge axis, the slide, a
 * ball's rotation) are built from the same two kinds of rows (slide_term, dot_term). */
#include "mixed/assembly_internal.h"

#include <math.h>
#include <string.h>

cr_quat cr_asm_weld_rotation(const cr_asm_joint *j, double f)
{
    double a = cr_v3_norm(j->phi) * f;
    if (a == 0.0) return j->rel_ref;
    return cr_q_mul(j->rel_ref, cr_q_axis_angle(cr_v3_normalize(j->phi), a));
}

/* A hinge's drive row. With the hinge's two dot rows held, R = A_aᵀA_b = Rot(h, φ) R_ref
 * (h = u1 × u2 in a's frame, φ the relative rotation from the reference, any number of
 * turns). The row is the dot row with s = Rot(h, θ) u2 (a's frame) and t = R_refᵀ u1 (b's):
 *     g = s·(R t) = (Rot(h, θ) u2)·(Rot(h, φ) u1) = u2·Rot(h, φ − θ) u1 = sin(φ − θ).
 * It measures the difference between the actual and the prescribed rotation, never an angle,
 * so it has no 2π branch: θ(t) is an absolute (unwrapped) angle and the solution follows it
 * through any number of turns (g = 0 with ∂g/∂φ = cos(φ − θ) = 1 there; the other zero
 * φ = θ + π is a different, flipped, motion that a continuous solve never jumps to). */
static cr_vec3 drive_s(const cr_asm_joint *j, double theta)
{
    return cr_v3_add(cr_v3_scale(j->u2, cos(theta)), cr_v3_scale(j->u1, -sin(theta))); /* h × u2 = −u1 */
}

static double drive_theta(const cr_asm_joint *j, double f, const double *drive)
{
    return drive ? drive[0] : j->drive_angle * f;
}

/* the (s, t) pair of dot row k (a's frame, b's frame) */
static void dot_pair(const cr_asm_joint *j, double f, const double *drive, int k, cr_vec3 *s, cr_vec3 *t)
{
    if (j->drive && k == 2) {
        *s = drive_s(j, drive_theta(j, f, drive));
        *t = cr_m3_tmulv(cr_q_exp(j->rel_ref), j->u1);
        return;
    }
    if (j->type == CR_JOINT_HINGE || j->type == CR_JOINT_CYLINDRICAL || j->type == CR_JOINT_UNIVERSAL) {
        *s = k == 0 ? j->u1 : j->u2; /* universal: one row, (h_a, h_b) */
        *t = j->axis_b;
        return;
    }
    /* weld, prismatic (R = the reference's): (R e2, e3), (R e3, e1), (R e1, e2); at A_aᵀA_b = R each is e_i·e_j = 0 and
     * the linearization there is (R e_k)·δθ_a − e_k·δθ_b: the three relative rotations */
    cr_mat3 R = cr_q_exp(cr_asm_weld_rotation(j, f));
    static const int si[3] = {1, 2, 0}, ti[3] = {2, 0, 1};
    *s = cr_m3_column(R, si[k]);
    *t = cr_v3(ti[k] == 0, ti[k] == 1, ti[k] == 2);
}

static void put3(double *M, int ld, int r0, int c0, cr_mat3 A, double w)
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) M[(r0 + r) * ld + c0 + c] += w * A.m[r][c];
}

/* A slider row g = (A_a u)·d (d = r_b − r_a): its value, wc times its C row added to Crow
 * and wh times its geometric stiffness added to H. δg = n·(δr_b − δr_a) + δθ_a·(u × A_aᵀd),
 * n = A_a u. */
static double slide_term(cr_vec3 u, cr_mat3 Aa, cr_vec3 d, double wc, double *Crow, double wh, double *H)
{
    cr_vec3 n = cr_m3_mulv(Aa, u), dl = cr_m3_tmulv(Aa, d), cu = cr_v3_cross(u, dl);
    if (Crow)
        for (int c = 0; c < 3; ++c)
            Crow[c] -= wc * cr_v3_get(n, c), Crow[3 + c] += wc * cr_v3_get(cu, c), Crow[6 + c] += wc * cr_v3_get(n, c);
    if (H && wh != 0.0) {
        /* wrench: forces ∓λ n on a and b, moment λ u × (A_aᵀ d) on a; with δn = −A_a ũ δθ_a
         * and δ(A_aᵀd) = A_aᵀ(δr_b − δr_a) + (A_aᵀd)~ δθ_a */
        cr_mat3 U = cr_m3_skew(u), AU = cr_m3_mul(Aa, U), UAt = cr_m3_mul(U, cr_m3_transpose(Aa));
        put3(H, 12, 0, 3, AU, wh);
        put3(H, 12, 6, 3, AU, -wh);
        put3(H, 12, 3, 0, UAt, -wh);
        put3(H, 12, 3, 6, UAt, wh);
        put3(H, 12, 3, 3, cr_m3_mul(U, cr_m3_skew(dl)), wh);
    }
    return cr_v3_dot(n, d);
}

/* A dot row g = s·(A_aᵀA_b t): its value, wc times its C row added to Crow and wh times its
 * geometric stiffness added to H. */
static double dot_term(cr_vec3 s, cr_vec3 t, cr_mat3 AaTAb, double wc, double *Crow, double wh, double *H)
{
    cr_vec3 va = cr_m3_mulv(AaTAb, t), vb = cr_m3_tmulv(AaTAb, s); /* A_aᵀ A_b t, A_bᵀ A_a s */
    cr_vec3 ca = cr_v3_cross(s, va), cb = cr_v3_cross(t, vb);      /* δg = ca·δθ_a + cb·δθ_b */
    if (Crow)
        for (int c = 0; c < 3; ++c) Crow[3 + c] += wc * cr_v3_get(ca, c), Crow[9 + c] += wc * cr_v3_get(cb, c);
    if (H && wh != 0.0) {
        /* moments λ s × (A_aᵀA_b t) on a and λ t × (A_bᵀA_a s) on b, varied with
         * A ← A (E + δθ~): ∂M_a/∂θ_a = λ s~ va~, ∂M_a/∂θ_b = −λ s~ A_aᵀA_b t~, and b's alike */
        cr_mat3 S = cr_m3_skew(s), T = cr_m3_skew(t);
        put3(H, 12, 3, 3, cr_m3_mul(S, cr_m3_skew(va)), wh);
        put3(H, 12, 3, 9, cr_m3_mul(cr_m3_mul(S, AaTAb), T), -wh);
        put3(H, 12, 9, 9, cr_m3_mul(T, cr_m3_skew(vb)), wh);
        put3(H, 12, 9, 3, cr_m3_mul(cr_m3_mul(T, cr_m3_transpose(AaTAb)), S), -wh);
    }
    return cr_v3_dot(s, va);
}

/* A spring row (cr_asm_joint.spring_kind): its value, its C row (Crow, 12, added) and l times
 * its geometric stiffness (added to H). */
static double spring_term(const cr_asm_joint *j, int kind, double rest, cr_mat3 Aa, cr_mat3 AaTAb, cr_vec3 d,
                          double *Crow, double l, double *H)
{
    if (kind == CR_SPRING_SLIDE || kind == CR_SPRING_LIMIT_SLIDE)
        return slide_term(j->h, Aa, d, 1.0, Crow, l, H) - rest;
    if (kind == CR_SPRING_LIMIT_ANGLE) rest = 0.0; /* the angle from the reference, unwrapped by cr_asm_row_law */
    cr_mat3 Rr = cr_q_exp(j->rel_ref);
    if (kind >= CR_SPRING_ROT && !cr_asm_is_limit_kind(kind)) {
        /* sin ψ n_i = ½ (e_k·D e_j − e_j·D e_k), (i, j, k) cyclic, D e_m = A_aᵀA_b (R_refᵀ e_m) */
        const int i = kind - CR_SPRING_ROT, jj = (i + 1) % 3, kk = (i + 2) % 3;
        cr_vec3 ej = cr_v3(jj == 0, jj == 1, jj == 2), ek = cr_v3(kk == 0, kk == 1, kk == 2);
        return 0.5 * (dot_term(ek, cr_m3_tmulv(Rr, ej), AaTAb, 0.5, Crow, 0.5 * l, H) -
                      dot_term(ej, cr_m3_tmulv(Rr, ek), AaTAb, -0.5, Crow, -0.5 * l, H));
    }
    /* the angle from the rest φ0, φ − φ0 = atan2(y, x) with x = s1·Rt = cos(φ − φ0), y = s2·Rt =
     * sin(φ − φ0) (t = R_refᵀu1, s1 = Rot(h, φ0) u1, s2 = Rot(h, φ0) u2): with
     * ρ² = x² + y², C_φ = (x C_y − y C_x)/ρ² and, differentiating C_φᵀ λ once more,
     * H_φ = λ [(x H_y − y H_x) + C_y ⊗ C_x − C_x ⊗ C_y − C_φ ⊗ (2x C_x + 2y C_y)] / ρ² */
    cr_vec3 t = cr_m3_tmulv(Rr, j->u1);
    double Cx[12] = {0}, Cy[12] = {0}, Hx[144] = {0}, Hy[144] = {0};
    const double c0 = cos(rest), s0 = sin(rest);
    const cr_vec3 s1 = cr_v3_add(cr_v3_scale(j->u1, c0), cr_v3_scale(j->u2, s0));
    const cr_vec3 s2 = cr_v3_sub(cr_v3_scale(j->u2, c0), cr_v3_scale(j->u1, s0));
    const double x = dot_term(s1, t, AaTAb, 1.0, Cx, 1.0, H ? Hx : NULL);
    const double y = dot_term(s2, t, AaTAb, 1.0, Cy, 1.0, H ? Hy : NULL);
    const double r2 = x * x + y * y;
    double Cp[12];
    for (int c = 0; c < 12; ++c) Cp[c] = (x * Cy[c] - y * Cx[c]) / r2;
    if (Crow)
        for (int c = 0; c < 12; ++c) Crow[c] += Cp[c];
    if (H && l != 0.0)
        for (int r = 0; r < 12; ++r)
            for (int c = 0; c < 12; ++c)
                H[r * 12 + c] += l *
                                 (x * Hy[r * 12 + c] - y * Hx[r * 12 + c] + Cy[r] * Cx[c] - Cx[r] * Cy[c] -
                                  Cp[r] * (2.0 * x * Cx[c] + 2.0 * y * Cy[c])) /
                                 r2;
    return atan2(y, x);
}

void cr_asm_joint_eval(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 rb, cr_quat pb,
                       const double *lambda, double *g, double *C, double *H)
{
    const int rows = j->rows;
    if (C) memset(C, 0, (size_t)rows * 12 * sizeof *C);
    if (H) memset(H, 0, 144 * sizeof *H);
    const int np = j->pos_rows, nd = cr_asm_joint_dots(j);
    cr_vec3 d = cr_v3_sub(rb, ra);
    cr_mat3 Aa = cr_q_exp(pa);
    /* a gap: the rows hold g = (1 − f) g0 (a constant at each f: C and H unchanged) */
    if (np == 3) /* position rows r_b − r_a: C = [−E 0 E 0], no geometric stiffness */
        for (int r = 0; r < 3; ++r) {
            g[r] = cr_v3_get(d, r) - (1.0 - f) * j->gap0[r];
            if (C) C[r * 12 + r] = -1.0, C[r * 12 + 6 + r] = 1.0;
        }
    else /* a slider's (A_a u)·d */
        for (int r = 0; r < 2; ++r)
            g[r] = slide_term(r == 0 ? j->u1 : j->u2, Aa, d, 1.0, C ? C + r * 12 : NULL, lambda ? lambda[r] : 0.0,
                              lambda ? H : NULL) -
                   (1.0 - f) * j->gap0[r];
    if (rows == np) return;
    cr_mat3 Ab = cr_q_exp(pb), AaTAb = cr_m3_mul(cr_m3_transpose(Aa), Ab);
    for (int k = 0; k < nd; ++k) {
        cr_vec3 s, t;
        dot_pair(j, f, drive, k, &s, &t);
        g[np + k] =
            dot_term(s, t, AaTAb, 1.0, C ? C + (np + k) * 12 : NULL, lambda ? lambda[np + k] : 0.0, lambda ? H : NULL);
    }
    int r = np + nd;
    if (j->slide_drive) { /* (A_a h)·d − X */
        const double X = drive ? drive[0] : j->drive_position * f;
        g[r] = slide_term(j->h, Aa, d, 1.0, C ? C + r * 12 : NULL, lambda ? lambda[r] : 0.0, lambda ? H : NULL) - X;
        ++r;
    }
    for (int q = 0; q < j->springs; ++q, ++r)
        g[r] = spring_term(j, j->spring_kind[q], j->rest[q] * f, Aa, AaTAb, d, C ? C + r * 12 : NULL,
                           lambda ? lambda[r] : 0.0, lambda ? H : NULL);
}

void cr_asm_joint_bias(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 va_,
                       cr_vec3 wa, cr_vec3 rb, cr_quat pb, cr_vec3 vb_, cr_vec3 wb, double *bias, double *gt)
{
    const int np = j->pos_rows;
    if (gt)
        for (int r = 0; r < j->rows; ++r) gt[r] = 0.0;
    if (np == 3)
        for (int r = 0; r < 3; ++r) bias[r] = 0.0; /* r_b − r_a: g̈ = v̇_b − v̇_a, no velocity term */
    else {
        /* g = (A_a u)·d, d/dt(A_a u) = A_a(Ω_a × u): g̈ = C-part + (A_a(Ω_a×(Ω_a×u)))·d + 2 (A_a(Ω_a×u))·ḋ */
        cr_mat3 Aa = cr_q_exp(pa);
        cr_vec3 d = cr_v3_sub(rb, ra), dd = cr_v3_sub(vb_, va_);
        for (int r = 0; r < 2; ++r) {
            cr_vec3 u = r == 0 ? j->u1 : j->u2, wu = cr_v3_cross(wa, u);
            bias[r] = cr_v3_dot(cr_m3_mulv(Aa, cr_v3_cross(wa, wu)), d) + 2.0 * cr_v3_dot(cr_m3_mulv(Aa, wu), dd);
        }
    }
    const int nd = cr_asm_joint_dots(j);
    for (int r = np + nd; r < j->rows; ++r) bias[r] = 0.0; /* spring rows: not differentiated twice */
    if (j->slide_drive) {
        /* the slider row along h minus X(t): g̈ gets −Ẍ and ġ = C u − Ẋ */
        cr_mat3 Aa = cr_q_exp(pa);
        cr_vec3 d = cr_v3_sub(rb, ra), dd = cr_v3_sub(vb_, va_), wu = cr_v3_cross(wa, j->h);
        bias[np + nd] = cr_v3_dot(cr_m3_mulv(Aa, cr_v3_cross(wa, wu)), d) + 2.0 * cr_v3_dot(cr_m3_mulv(Aa, wu), dd) -
                        (drive ? drive[2] : 0.0);
        if (gt) gt[np + nd] = drive ? -drive[1] : 0.0;
    }
    if (nd == 0) return;
    cr_mat3 R = cr_m3_mul(cr_m3_transpose(cr_q_exp(pa)), cr_q_exp(pb)); /* A_aᵀ A_b */
    for (int k = 0; k < nd; ++k) {
        cr_vec3 s, t;
        dot_pair(j, f, drive, k, &s, &t);
        /* g = s·(R t), Ṙ = −Ω̃_a R + R Ω̃_b: with w = R (Ω_b × t), d(Rt)/dt = −Ω_a × Rt + w and
         * d²(Rt)/dt² = C-part (Ω̇) − Ω_a × d(Rt)/dt − Ω_a × w + R (Ω_b × (Ω_b × t)) */
        cr_vec3 va = cr_m3_mulv(R, t), w = cr_m3_mulv(R, cr_v3_cross(wb, t));
        cr_vec3 dva = cr_v3_add(cr_v3_scale(cr_v3_cross(wa, va), -1.0), w);
        cr_vec3 dd = cr_v3_sub(cr_v3_sub(cr_m3_mulv(R, cr_v3_cross(wb, cr_v3_cross(wb, t))), cr_v3_cross(wa, dva)),
                               cr_v3_cross(wa, w));
        bias[np + k] = cr_v3_dot(s, dd);
        if (j->drive && k == 2 && drive) {
            /* s(t) = Rot(h, θ(t)) u2 turns about h: ṡ = θ̇ h × s, s̈ = θ̈ h × s − θ̇² s (s ⊥ h), so
             * ġ = C u + ṡ·Rt and g̈ = C u̇ + bias + s̈·Rt + 2 ṡ·d(Rt)/dt */
            cr_vec3 h = cr_v3_cross(j->u1, j->u2), hs = cr_v3_cross(h, s);
            cr_vec3 sd = cr_v3_scale(hs, drive[1]);
            cr_vec3 sdd = cr_v3_sub(cr_v3_scale(hs, drive[2]), cr_v3_scale(s, drive[1] * drive[1]));
            bias[np + k] += cr_v3_dot(sdd, va) + 2.0 * cr_v3_dot(sd, dva);
            if (gt) gt[np + k] = cr_v3_dot(sd, va);
        }
    }
}

/* ---- joint limits ---- */

int cr_asm_has_limits(const cr_assembly *a)
{
    for (int k = 0; k < a->joint_count; ++k)
        for (int q = 0; q < a->joints[k].springs; ++q)
            if (cr_asm_is_limit_kind(a->joints[k].spring_kind[q])) return 1;
    return 0;
}

double cr_asm_limit_tol(const cr_assembly *a, const cr_asm_joint *j, int q)
{
    return j->spring_kind[q] == CR_SPRING_LIMIT_SLIDE ? 1e-10 * a->scale_length : 1e-10;
}

/* x − 2π round((x − ref)/(2π)): the branch of an angle nearest to ref (the last accepted one:
 * a step turns the joint by less than π) */
static double unwrap(double x, double ref)
{
    const double two_pi = 6.283185307179586476925286766559;
    return x + two_pi * nearbyint((ref - x) / two_pi);
}

int cr_asm_row_law(const cr_asm_joint *j, const cr_assembly_state *s, int stage, int r, double g, double *k, double *c,
                   double *gk, double *phi)
{
    double kr, cr;
    const int comp = cr_asm_row_compliant(j, stage, r, &kr, &cr);
    const int q = r - (j->rows - j->springs);
    if (phi) *phi = g;
    if (!comp || q < 0 || !cr_asm_is_limit_kind(j->spring_kind[q]) || !cr_asm_joint_active(j, stage)) {
        if (k) *k = kr;
        if (c) *c = cr;
        if (gk) *gk = g;
        return comp;
    }
    const int row = j->row0 + r;
    const double ph = j->spring_kind[q] == CR_SPRING_LIMIT_ANGLE ? unwrap(g, s->limit_ref[row]) : g;
    const double eps = j->k[q], lh = s->limit_hat[row], lp = fmax(lh, 0.0), lm = fmax(-lh, 0.0);
    double ks = 0.0, gs = 0.0;
    /* lower: λ = λ̂⁺ − ε (φ − lo) while positive; upper: λ = −λ̂⁻ − ε (φ − hi) while negative */
    if (lp - eps * (ph - j->lo[q]) > 0 || (lp == 0 && ph - j->lo[q] <= CR_LIMIT_KINK))
        ks += eps, gs += eps * (ph - j->lo[q]) - lp;
    if (lm + eps * (ph - j->hi[q]) > 0 || (lm == 0 && j->hi[q] - ph <= CR_LIMIT_KINK))
        ks += eps, gs += eps * (ph - j->hi[q]) + lm;
    if (k) *k = ks;
    if (c) *c = 0.0;
    if (gk) *gk = ks > 0 ? gs / ks : 0.0;
    if (phi) *phi = ph;
    return 1;
}

void cr_asm_limits_accept(const cr_assembly *a, cr_assembly_state *s, int drop_released)
{
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        const int first = j->rows - j->springs;
        int any = 0;
        for (int q = 0; q < j->springs; ++q) any |= cr_asm_is_limit_kind(j->spring_kind[q]);
        if (!any) continue;
        cr_vec3 ra, rb;
        cr_quat pa, pb;
        cr_asm_iface_pose(a, s, j->iface[0], &ra, &pa);
        cr_asm_iface_pose(a, s, j->iface[1], &rb, &pb);
        double g[CR_ASM_MAX_ROWS];
        cr_asm_joint_eval_iface(j, s->joint_factor, NULL, ra, pa, rb, pb, NULL, g, NULL, NULL);
        for (int q = 0; q < j->springs; ++q) {
            if (!cr_asm_is_limit_kind(j->spring_kind[q])) continue;
            const int r = first + q;
            double k, ph;
            cr_asm_row_law(j, s, s->stage, r, g[r], &k, NULL, NULL, &ph);
            s->limit_ref[j->row0 + r] = ph;
            if (drop_released && k == 0) s->limit_hat[j->row0 + r] = 0.0;
        }
    }
}

/* ---- supports on joint nodes ---- */

void cr_asm_support_eval(const cr_assembly *a, const cr_asm_support *sp, cr_vec3 r, cr_quat p, cr_vec3 rt, cr_quat pt,
                         const double *lambda, double *g, double *C, double *H)
{
    const cr_support *s = &a->models[sp->rod]->supports[sp->k];
    const unsigned h = s->hold;
    if (C) memset(C, 0, (size_t)sp->rows * 6 * sizeof *C);
    if (H) memset(H, 0, 36 * sizeof *H);
    int row = 0;
    const cr_vec3 dr = cr_v3_sub(r, rt);
    const int all = (h & CR_HOLD_TRANSLATION) == CR_HOLD_TRANSLATION;
    for (int ax = 0; ax < 3; ++ax) {
        if (!(h & (1u << ax))) continue;
        /* all three held: r − r_t whatever the axes (as supports.c); else d_aᵀ(r − r_t) */
        const cr_vec3 d = all ? cr_v3(ax == 0, ax == 1, ax == 2) : cr_m3_column(s->axes, ax);
        g[row] = cr_v3_dot(d, dr);
        if (C)
            for (int c = 0; c < 3; ++c) C[row * 6 + c] = cr_v3_get(d, c);
        ++row;
    }
    if (!(h & CR_HOLD_ROTATION)) return;
    /* h_aᵀ vec(q), q = p_t* ⊗ p (p_t in p's hemisphere), h_a = A_tᵀ d_a: with p ← p ⊗ exp(δθ/2),
     * δvec(q) = ½ (q_w δθ + q_v × δθ), so C = ½ (q_w h + h × q_v); the moment Cᵀλ = ½ (q_w h_λ +
     * h_λ × q_v) (h_λ = Σ λ_a h_a) varies as ¼ (−h_λ q_vᵀ + q_w h_λ~ + h_λ~ q_v~) δθ */
    if (cr_q_dot(p, pt) < 0) pt = cr_q_scale(pt, -1.0);
    const cr_quat q = cr_q_mul(cr_q_conj(pt), p);
    const cr_vec3 qv = cr_q_vec(q);
    const cr_mat3 At = cr_q_exp(pt);
    cr_vec3 hl = cr_v3(0, 0, 0);
    for (int ax = 0; ax < 3; ++ax) {
        if (!(h & (8u << ax))) continue;
        const cr_vec3 hv = cr_m3_tmulv(At, cr_m3_column(s->axes, ax));
        g[row] = cr_v3_dot(hv, qv);
        if (C) {
            const cr_vec3 c = cr_v3_scale(cr_v3_add(cr_v3_scale(hv, q.w), cr_v3_cross(hv, qv)), 0.5);
            for (int k = 0; k < 3; ++k) C[row * 6 + 3 + k] = cr_v3_get(c, k);
        }
        if (lambda) hl = cr_v3_madd(hl, lambda[row], hv);
        ++row;
    }
    if (H && lambda) {
        const cr_mat3 HL = cr_m3_skew(hl), HQ = cr_m3_mul(HL, cr_m3_skew(qv));
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k)
                H[(3 + i) * 6 + 3 + k] = 0.25 * (-cr_v3_get(hl, i) * cr_v3_get(qv, k) + q.w * HL.m[i][k] + HQ.m[i][k]);
    }
}

const char *cr_asm_support_row_name(const cr_assembly *a, const cr_asm_support *sp, int k)
{
    static const char *names[2][6] = {
        {"translation along x", "translation along y", "translation along z", "rotation about its axis 1",
         "rotation about its axis 2", "rotation about its axis 3"},
        {"translation along its axis 1", "translation along its axis 2", "translation along its axis 3",
         "rotation about its axis 1", "rotation about its axis 2", "rotation about its axis 3"}};
    const unsigned h = a->models[sp->rod]->supports[sp->k].hold;
    const int all = (h & CR_HOLD_TRANSLATION) == CR_HOLD_TRANSLATION;
    for (int b = 0, n = 0; b < 6; ++b)
        if ((h >> b & 1u) && n++ == k) return names[!all][b];
    return "a direction";
}
