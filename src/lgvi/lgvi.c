/* LGVI rod kernel with cross-sectional dilatation (spec ../shared/spec/lgvi-dilatation-rod.md).
 *
 * One step (spec §2.3, "Order of operations"): every element quantity is computed from
 * the state at level k, then every free node gets its explicit momentum updates and its
 * local 3x3 rotation solve. The loop is fused: element q is evaluated just before node q
 * is updated (element q-1 is carried over in registers), and the new state goes to a
 * second buffer, so nothing at level k is overwritten while still needed. This also
 * makes a failed step leave the state untouched, and makes the arithmetic of each node
 * depend only on level-k data of nodes q-1..q+1, so any partition of the node range
 * (threads) reproduces the state bit for bit; the energy sums are taken over fixed
 * 256-node chunks added in chunk order (see "threads" below).
 *
 * Rotations are unit quaternions (w, v) internally: R^T d, Λ = R_q^T R_{q+1} and the
 * update R <- R F are cheaper than with matrices, and renormalising once per step keeps
 * R in SO(3) to round-off over any number of steps. */
#include "lgvi/lgvi.h"
#include "linalg/pool.h"
#include "math/fpmode.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The step is one loop over nodes; everything it calls must be inlined into the four
 * (chart, model) specialisations for the constant folding and register allocation to
 * happen (GCC's heuristics otherwise keep element() and the Newton solve out of line). */
#if defined(__GNUC__)
#define LGVI_INLINE static inline __attribute__((always_inline))
#else
#define LGVI_INLINE static inline
#endif

/* ---- storage ---- */

/* One node's state, 16 doubles = two cache lines. Level-k pose (x, q), and from the
 * last interval [t_{k-1}, t_k]: p = p^{k-1}, nu = (F^{k-1})^T μ^{k-1} (the angular
 * momentum already transported to the frame of R^k, ready for spec §2.3's
 * μ^k = (F^{k-1})^T μ^{k-1} + h M^k) and f = τ^{-1}(F^{k-1}) (Newton guess). */
typedef struct lgvi_node {
    double x[3], q[4], p[3], nu[3], f[3];
} lgvi_node;
#define NODE_DOUBLES 16

/* Per element reference data: Γ_ref, Ω_ref (spec: subtracted so the initial configuration
 * is stress-free) and 1/|Δx0| for the dilatation. */
typedef struct lgvi_elem {
    double gref[3], oref[3], inv_l0, straight; /* straight: 1 if Ω_ref == 0 exactly */
} lgvi_elem;

struct cr_lgvi {
    cr_lgvi_params par;
    int K;
    double l, inv_l, h;
    double m_int, m_end; /* m_q = w_q ρA l, w = 1 interior, 1/2 ends (spec §2.2) */
    double c_int, c_end; /* c_q = w_q l */
    lgvi_node *buf[2];   /* double buffer: buf[cur] is the state, the other is scratch */
    int cur;
    lgvi_elem *el;
    long steps;
    /* time = t_base + (steps - steps_base) h: exact multiples of h within a stage; the
     * step may change between stages (cr_lgvi_set_step). t_prev: the level before. */
    double t_base, t_prev;
    long steps_base;
    double work, work_last; /* Σ_{j<=k} w_j and w_k (discrete work of the loads of t_j) */
    double T_last, T_prev;  /* T^k, T^{k-1} (interval kinetic energies) */
    double U_last;          /* U_d^k */
    int threads;            /* 0: automatic (COSSERAT_THREADS, size threshold), >= 1: forced */
    cr_pool *pool;        /* worker threads, created on the first parallel step */
    struct step_acc *chunk_acc; /* per chunk, with the pool */
    int *chunk_fail;
    /* Nodes whose update the caller does (cr_lgvi_set_external; NULL: none): per node
     * CR_LGVI_EXTERNAL_* flags, and what cr_lgvi_step_begin leaves there for the caller */
    unsigned char *ext;
    cr_vec3 *ext_force;  /* internal + external force at t_k (spatial) */
    cr_vec3 *ext_fload;  /* the external force alone (for the work) */
    cr_vec3 *ext_torque; /* internal torque + R^T c_ext (body) */
    cr_vec3 *ext_cb;     /* R^T c_ext alone (for the work) */
    double *ext_eps;     /* ε_q of the node's inertia */
    int pending;         /* 1 between a successful cr_lgvi_step_begin and cr_lgvi_step_end */
    double pend_t;       /* the step's start time */
    double pend_U, pend_T, pend_W;
    /* the fixed clamps' reactions (cr_lgvi_clamp_reaction): the force (spatial) and moment (body)
       at the level of the last step's start, of the pending step, and whether the last has one */
    cr_vec3 react_f[2], react_m[2], pend_f[2], pend_m[2];
    int have_react;
};

static void ext_free(cr_lgvi *s);

/* pack header: steps, work, work_last, T_last, T_prev, U_last, h, t_base, t_prev, steps_base */
#define PACK_HEADER 10

/* ---- small quaternion helpers (unit quaternions, body -> spatial) ---- */

typedef struct q4 {
    double w, x, y, z;
} q4;

LGVI_INLINE q4 q_load(const double *p) { return (q4){p[0], p[1], p[2], p[3]}; }
LGVI_INLINE void q_store(q4 a, double *p) { p[0] = a.w, p[1] = a.x, p[2] = a.y, p[3] = a.z; }
LGVI_INLINE cr_vec3 v_load(const double *p) { return (cr_vec3){p[0], p[1], p[2]}; }
LGVI_INLINE void v_store(cr_vec3 a, double *p) { p[0] = a.x, p[1] = a.y, p[2] = a.z; }
LGVI_INLINE cr_vec3 cross(cr_vec3 a, cr_vec3 b)
{
    return (cr_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
LGVI_INLINE double dot(cr_vec3 a, cr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* R(a) v = v + 2w (u × v) + 2 u × (u × v), u = vec(a) */
LGVI_INLINE cr_vec3 q_rot(q4 a, cr_vec3 v)
{
    cr_vec3 u = {a.x, a.y, a.z}, t = cross(u, v);
    t.x += t.x, t.y += t.y, t.z += t.z;
    cr_vec3 ut = cross(u, t);
    return (cr_vec3){v.x + a.w * t.x + ut.x, v.y + a.w * t.y + ut.y, v.z + a.w * t.z + ut.z};
}
/* R(a)^T v */
LGVI_INLINE cr_vec3 q_rotT(q4 a, cr_vec3 v)
{
    cr_vec3 u = {a.x, a.y, a.z}, t = cross(u, v);
    t.x += t.x, t.y += t.y, t.z += t.z;
    cr_vec3 ut = cross(u, t);
    return (cr_vec3){v.x - a.w * t.x + ut.x, v.y - a.w * t.y + ut.y, v.z - a.w * t.z + ut.z};
}
/* Hamilton product: R(a ⊗ b) = R(a) R(b) */
LGVI_INLINE q4 q_mul(q4 a, q4 b)
{
    return (q4){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
/* conj(a) ⊗ b, i.e. R(a)^T R(b) */
LGVI_INLINE q4 q_cmul(q4 a, q4 b)
{
    return (q4){a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z, a.w * b.x - a.x * b.w - a.y * b.z + a.z * b.y,
                a.w * b.y + a.x * b.z - a.y * b.w - a.z * b.x, a.w * b.z - a.x * b.y + a.y * b.x - a.z * b.w};
}
/* Rotation matrix of a unit quaternion (no renormalisation, so the drift diagnostics see
 * exactly the rotation the kernel uses). */
static cr_mat3 q_matrix(q4 a)
{
    double w = a.w, x = a.x, y = a.y, z = a.z;
    return (cr_mat3){{{w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z}}};
}

/* ---- the chart τ: strain Ω from Λ and the transposed inverse right-trivialised
 *      derivative (spec §2.3: w = (dτ^{-1}_{lΩ})^T m) ---- */

/* ξ = τ^{-1}(Λ) for Λ = R(qL); returns in *beta the coefficient of ξ^2 in dτ^{-1}
 * (exp: (1 - (θ/2)cot(θ/2))/θ², Cayley: not used, the ξξ^T/4 form is applied). */
LGVI_INLINE cr_vec3 chart_log(int chart, q4 qL, double *beta)
{
    if (chart == CR_LGVI_CHART_CAYLEY) {
        /* Λ - Λ^T = 4w v^, 1 + trΛ = 4w²: τ^{-1} = 2(Λ-Λ^T)^∨/(1+trΛ) = 2v/w, no trig */
        double r = 2.0 / qL.w;
        *beta = 0.0;
        return (cr_vec3){r * qL.x, r * qL.y, r * qL.z};
    }
    /* exp chart: |v| = sin(θ/2), w = cos(θ/2); the shortest rotation has w >= 0 */
    double sgn = qL.w < 0 ? -1.0 : 1.0, w = sgn * qL.w;
    cr_vec3 v = {sgn * qL.x, sgn * qL.y, sgn * qL.z};
    double s2 = dot(v, v);
    if (s2 < 1e-2) {
        /* θ/|v| = 2 asin(σ)/σ = 2 Σ (2n)!/(4^n (n!)² (2n+1)) σ^{2n} to σ^16 (σ < 0.1, θ < 0.2:
         * truncation < 2e-20); β = Σ |B_2n| θ^{2n-2}/(2n)! to θ^10 (truncation < 1e-19).
         * This covers elements bent by < 11°, i.e. every element of a resolved rod, and
         * avoids atan2 and sqrt. */
        double r =
            2.0 +
            s2 * (2.0 / 6 +
                  s2 * (6.0 / 40 +
                        s2 * (10.0 / 112 +
                              s2 * (70.0 / 1152 +
                                    s2 * (126.0 / 2816 +
                                          s2 * (462.0 / 13312 + s2 * (286.0 / 10240 + s2 * (12870.0 / 557056))))))));
        cr_vec3 xi = {r * v.x, r * v.y, r * v.z};
        double t2 = dot(xi, xi);
        *beta = 1.0 / 12 +
                t2 * (1.0 / 720 + t2 * (1.0 / 30240 +
                                        t2 * (1.0 / 1209600 + t2 * (1.0 / 47900160 + t2 * (691.0 / 1307674368000.0)))));
        return xi;
    }
    double sg = sqrt(s2), th = 2.0 * atan2(sg, w), r = th / sg;
    /* (θ/2)cot(θ/2) = (θ/2) w/σ: no further trig needed */
    *beta = (1.0 - 0.5 * th * w / sg) / (th * th);
    return (cr_vec3){r * v.x, r * v.y, r * v.z};
}

/* ---- element quantities at level k (spec §2.3) ---- */

typedef struct elem_out {
    cr_vec3 Rn; /* R_* n_q, spatial: +to node q, -to node q+1 */
    cr_vec3 ta; /* l(Γ+E3) × n + w (left), its node-q share + w (midpoint): torque on node q (body q) */
    cr_vec3 tb; /* Λ^T w (left), minus the node-(q+1) shear share (midpoint): subtracted from the torque
                 * on node q+1 (body q+1) */
    double e;   /* geometric stretch |Δx|/|Δx0| (1 in the standard model's constitutive law) */
    double U;   /* l(½Γ·n + ½Ω·m) */
} elem_out;

typedef struct elem_strain {
    cr_vec3 gamma, omega, n, m;
    double e;
} elem_strain;

LGVI_INLINE elem_out element(const cr_lgvi *s, const lgvi_node *a, const lgvi_node *b, const lgvi_elem *E,
                             const int chart, const int dil, const int mid, elem_strain *st)
{
    const cr_lgvi_params *P = &s->par;
    elem_out o;
    q4 qa = q_load(a->q), qb = q_load(b->q);
    cr_vec3 d = {b->x[0] - a->x[0], b->x[1] - a->x[1], b->x[2] - a->x[2]};
    q4 qL = q_cmul(qa, qb);
    /* The frame of Γ: the left node's R_q (Demoures), or the midpoint R_q H, H = exp(½ log Λ).
     * With Λ's quaternion (w, v) taken with w >= 0 (the shortest rotation, as chart_log),
     * H's is (1 + w, v)/√(2(1 + w)). t = v/(1 + w) = tan(φ/4) u for Λ a rotation by φ about
     * u, so that (I + H)^{-1} = ½(I - t^): the midpoint frame's variation is
     * ζ = (I + H)^{-1}(η_q + H η_{q+1}) (from dexp_{ξ/2} dexp_ξ^{-1} = 2(I + H)^{-1}), and the
     * shear torque l(Γ+E3)×n splits into (I + H^T)^{-1} on node q and (I + H)^{-1} on node
     * q+1 (docs/lgvi.md "Second order in space"). For H = I (straight) exactly half each. */
    q4 qs = qa;
    cr_vec3 t = {0, 0, 0};
    if (mid && (qL.x != 0.0 || qL.y != 0.0 || qL.z != 0.0)) { /* Λ = I: H = I, t = 0 (bending-free problems) */
        double sg = qL.w < 0 ? -1.0 : 1.0, w1 = 1.0 + sg * qL.w, r = 1.0 / sqrt(2.0 * w1), it = sg / w1;
        q4 qH = {w1 * r, sg * qL.x * r, sg * qL.y * r, sg * qL.z * r};
        qs = q_mul(qa, qH);
        t = (cr_vec3){it * qL.x, it * qL.y, it * qL.z};
    }
    /* dR = R_*^T Δx = l(Γ + E3) */
    cr_vec3 dR = q_rotT(qs, d);
    cr_vec3 G = {dR.x * s->inv_l - E->gref[0], dR.y * s->inv_l - E->gref[1], dR.z * s->inv_l - 1.0 - E->gref[2]};
    double ie = 1.0, ie3 = 1.0;
    if (dil) {
        /* frozen-e modified model: n = C1Γ/e, m = C2Ω/e³ (area A0/e, inertia I0/e², spec §2.1) */
        o.e = sqrt(dot(d, d)) * E->inv_l0;
        ie = 1.0 / o.e;
        ie3 = ie * ie * ie;
    } else {
        o.e = 1.0;
    }
    cr_vec3 n = {P->C1.x * G.x * ie, P->C1.y * G.y * ie, P->C1.z * G.z * ie};
    o.Rn = q_rot(qs, n);
    cr_vec3 sh = cross(dR, n), sha = sh, shb = {0, 0, 0};
    if (mid) {
        /* node q gets ½(sh + t×sh), node q+1 ½(sh - t×sh) (tb is subtracted there) */
        cr_vec3 ts = cross(t, sh);
        sha = (cr_vec3){0.5 * (sh.x + ts.x), 0.5 * (sh.y + ts.y), 0.5 * (sh.z + ts.z)};
        shb = (cr_vec3){0.5 * (ts.x - sh.x), 0.5 * (ts.y - sh.y), 0.5 * (ts.z - sh.z)};
    }
    double Un = dot(G, n);
    if (qL.x == 0.0 && qL.y == 0.0 && qL.z == 0.0 && E->straight) {
        /* Λ = I exactly and Ω_ref = 0: Ω = m = w = 0 exactly (the bending-free problems);
         * the general code below would produce the same zeros */
        o.ta = sha;
        o.tb = shb;
        o.U = 0.5 * s->l * Un;
        if (st) {
            st->gamma = G, st->omega = (cr_vec3){0, 0, 0}, st->n = n, st->m = (cr_vec3){0, 0, 0};
            st->e = dil ? o.e : sqrt(dot(d, d)) * E->inv_l0;
        }
        return o;
    }
    double beta;
    cr_vec3 xi = chart_log(chart, qL, &beta);
    cr_vec3 Om = {xi.x * s->inv_l - E->oref[0], xi.y * s->inv_l - E->oref[1], xi.z * s->inv_l - E->oref[2]};
    cr_vec3 m = {P->C2.x * Om.x * ie3, P->C2.y * Om.y * ie3, P->C2.z * Om.z * ie3};
    /* w = (dτ^{-1}_ξ)^T m: exp: m + ½ ξ×m + β ξ×(ξ×m); Cayley: m + ½ ξ×m + ¼ ξ(ξ·m) */
    cr_vec3 xm = cross(xi, m), wt;
    if (chart == CR_LGVI_CHART_CAYLEY) {
        double c = 0.25 * dot(xi, m);
        wt = (cr_vec3){m.x + 0.5 * xm.x + c * xi.x, m.y + 0.5 * xm.y + c * xi.y, m.z + 0.5 * xm.z + c * xi.z};
    } else {
        cr_vec3 xxm = cross(xi, xm);
        wt = (cr_vec3){m.x + 0.5 * xm.x + beta * xxm.x, m.y + 0.5 * xm.y + beta * xxm.y,
                       m.z + 0.5 * xm.z + beta * xxm.z};
    }
    o.ta = (cr_vec3){sha.x + wt.x, sha.y + wt.y, sha.z + wt.z};
    cr_vec3 wb = q_rotT(qL, wt);
    o.tb = (cr_vec3){wb.x + shb.x, wb.y + shb.y, wb.z + shb.z};
    o.U = 0.5 * s->l * (Un + dot(Om, m));
    if (st) {
        st->gamma = G, st->omega = Om, st->n = n, st->m = m;
        st->e = dil ? o.e : sqrt(dot(d, d)) * E->inv_l0;
    }
    return o;
}

/* ---- the local rotation solve (spec §2.3, Newton for F) ---- */

/* exp chart: s = sinθ/θ, c = (1-cosθ)/θ², ds = s'/θ, dc = c'/θ at θ² = t2. Taylor series
 * below θ = 0.1 (truncation of s, c < 3e-21; ds, dc only enter the Jacobian), half-angle
 * sin/cos above (1 - cosθ = 2 sin²(θ/2) avoids the cancellation). */
LGVI_INLINE void exp_coeffs(double t2, double *s, double *c, double *ds, double *dc)
{
    if (t2 < 1e-2) {
        /* coefficients as constant reciprocals: no division at run time */
        *s = 1.0 + t2 * (-1.0 / 6 + t2 * (1.0 / 120 + t2 * (-1.0 / 5040 + t2 * (1.0 / 362880))));
        *c = 0.5 + t2 * (-1.0 / 24 + t2 * (1.0 / 720 + t2 * (-1.0 / 40320 + t2 * (1.0 / 3628800))));
        *ds = -1.0 / 3 + t2 * (1.0 / 30 + t2 * (-1.0 / 840 + t2 * (1.0 / 45360 - t2 / 3991680)));
        *dc = -1.0 / 12 + t2 * (1.0 / 180 + t2 * (-1.0 / 6720 + t2 * (1.0 / 453600)));
        return;
    }
    double th = sqrt(t2), sh = sin(0.5 * th), ch = cos(0.5 * th);
    double sn = 2.0 * sh * ch, omc = 2.0 * sh * sh, cs = 1.0 - omc;
    *s = sn / th;
    *c = omc / t2;
    *ds = (th * cs - sn) / (th * t2);
    *dc = (th * sn - 2.0 * omc) / (t2 * t2);
}

/* G(f) and its Jacobian A (row-major 3x3).
 * exp:    G = s J f + c f×Jf - g,
 *         A = sJ + (s'/θ)(Jf)f^T + c(f^J - (Jf)^) + (c'/θ)(f×Jf)f^T;
 * Cayley: G = J f + ½ f×Jf - (1+|f|²/4) g,  A = J + ½(f^J - (Jf)^) - ½ g f^T. */
LGVI_INLINE cr_vec3 rot_residual(int chart, cr_vec3 J, cr_vec3 g, cr_vec3 f, double A[3][3])
{
    cr_vec3 u = {J.x * f.x, J.y * f.y, J.z * f.z}, v = cross(f, u);
    double t2 = dot(f, f), a0, a1, pu[3], pv[3], gs;
    cr_vec3 G;
    if (chart == CR_LGVI_CHART_CAYLEY) {
        a0 = 1.0, a1 = 0.5, gs = 1.0 + 0.25 * t2;
        G = (cr_vec3){u.x + 0.5 * v.x - gs * g.x, u.y + 0.5 * v.y - gs * g.y, u.z + 0.5 * v.z - gs * g.z};
        if (A) pu[0] = pu[1] = pu[2] = 0.0, pv[0] = -0.5 * g.x, pv[1] = -0.5 * g.y, pv[2] = -0.5 * g.z;
    } else {
        double ds, dc;
        exp_coeffs(t2, &a0, &a1, &ds, &dc);
        G = (cr_vec3){a0 * u.x + a1 * v.x - g.x, a0 * u.y + a1 * v.y - g.y, a0 * u.z + a1 * v.z - g.z};
        if (A) {
            pu[0] = ds * u.x, pu[1] = ds * u.y, pu[2] = ds * u.z;
            pv[0] = dc * v.x, pv[1] = dc * v.y, pv[2] = dc * v.z;
        }
    }
    if (A) {
        /* rank-one parts (p)f^T with p = ds u + dc v (exp) or -g/2 (Cayley) */
        double p0 = pu[0] + pv[0], p1 = pu[1] + pv[1], p2 = pu[2] + pv[2];
        A[0][0] = a0 * J.x + p0 * f.x;
        A[0][1] = a1 * (-f.z * J.y + u.z) + p0 * f.y;
        A[0][2] = a1 * (f.y * J.z - u.y) + p0 * f.z;
        A[1][0] = a1 * (f.z * J.x - u.z) + p1 * f.x;
        A[1][1] = a0 * J.y + p1 * f.y;
        A[1][2] = a1 * (-f.x * J.z + u.x) + p1 * f.z;
        A[2][0] = a1 * (-f.y * J.x + u.y) + p2 * f.x;
        A[2][1] = a1 * (f.x * J.y - u.x) + p2 * f.y;
        A[2][2] = a0 * J.z + p2 * f.z;
    }
    return G;
}

LGVI_INLINE cr_vec3 solve3(double A[3][3], cr_vec3 b)
{
    double c00 = A[1][1] * A[2][2] - A[1][2] * A[2][1], c01 = A[1][2] * A[2][0] - A[1][0] * A[2][2],
           c02 = A[1][0] * A[2][1] - A[1][1] * A[2][0];
    double c10 = A[0][2] * A[2][1] - A[0][1] * A[2][2], c11 = A[0][0] * A[2][2] - A[0][2] * A[2][0],
           c12 = A[0][1] * A[2][0] - A[0][0] * A[2][1];
    double c20 = A[0][1] * A[1][2] - A[0][2] * A[1][1], c21 = A[0][2] * A[1][0] - A[0][0] * A[1][2],
           c22 = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    double id = 1.0 / (A[0][0] * c00 + A[0][1] * c01 + A[0][2] * c02);
    return (cr_vec3){(c00 * b.x + c10 * b.y + c20 * b.z) * id, (c01 * b.x + c11 * b.y + c21 * b.z) * id,
                     (c02 * b.x + c12 * b.y + c22 * b.z) * id};
}

/* 1-norm: unlike a max, a NaN in any component propagates into the convergence tests */
LGVI_INLINE double norm1(cr_vec3 a) { return fabs(a.x) + fabs(a.y) + fabs(a.z); }

#define NEWTON_MAXIT 25

/* Newton from *f. Stops when |G|₁ <= 4 ulp |g|₁ (the guess or an iterate already solves
 * to round-off) or after an update |δ|₁ <= 1e-9|f|₁: convergence is quadratic, the
 * error after such an update is ~ |f|·|δ|²/|f|² <= 1e-18|f| (relative), below round-off.
 * Returns 0 on success, 1 if not converged. */
LGVI_INLINE int rot_newton(int chart, cr_vec3 J, cr_vec3 g, cr_vec3 *fio, double *res, int *iters)
{
    cr_vec3 f = *fio;
    double gn = norm1(g), tol = 4.0 * DBL_EPSILON * gn;
    int it = 0, ok = 0;
    double A[3][3];
    if (gn < 1e-150) {
        /* Far below any physical rotation (|f| ~ |g|/J), the linear solution f = J⁻¹g is exact
         * to round-off: the neglected terms are O(|f|²) relative, < 1e-150. Newton cannot
         * be used there: an explicit scheme moves a disturbance one node per step, so ahead of
         * a wave front g decays geometrically into the subnormal range (K >~ 300 nodes),
         * where the relative tests above underflow and it never "converges". */
        *fio = (cr_vec3){g.x / J.x, g.y / J.y, g.z / J.z};
        if (res) res[0] = norm1(rot_residual(chart, J, g, *fio, NULL));
        if (iters) *iters = 0;
        return 0;
    }
    for (; it < NEWTON_MAXIT; ++it) {
        /* the residual first: the last iterate usually solves to round-off already (the
         * guess is the last step's F), and then its Jacobian is not needed */
        cr_vec3 G = rot_residual(chart, J, g, f, NULL);
        double r = norm1(G);
        if (res) res[it] = r;
        if (r <= tol) {
            ok = 1;
            break;
        }
        (void)rot_residual(chart, J, g, f, A); /* the same G (the inlined common terms are shared) */
        cr_vec3 d = solve3(A, G);
        f = (cr_vec3){f.x - d.x, f.y - d.y, f.z - d.z};
        if (norm1(d) <= 1e-9 * norm1(f)) {
            ok = 1;
            ++it;
            if (res) res[it] = norm1(rot_residual(chart, J, g, f, NULL));
            break;
        }
    }
    *fio = f;
    if (iters) *iters = it;
    return ok ? 0 : 1;
}

/* Quaternion of F = τ(f) as (qw, qs): F = R(qw, qs f). Also 2qs² = b with
 * tr[(I-F)J_d] = b f·J0f (exp: b = (1-cosθ)/θ², Cayley: ½/(1+|f|²/4)). */
LGVI_INLINE void chart_quat(int chart, cr_vec3 f, double *qw, double *qs)
{
    double t2 = dot(f, f);
    if (chart == CR_LGVI_CHART_CAYLEY) {
        /* cay(f) = rotation by 2 atan(|f|/2): quaternion (1, f/2)/sqrt(1+|f|²/4) */
        double w = 1.0 / sqrt(1.0 + 0.25 * t2);
        *qw = w, *qs = 0.5 * w;
        return;
    }
    if (t2 < 1e-2) {
        /* cos(θ/2), sin(θ/2)/θ to θ⁸ (truncation < 3e-20 for θ < 0.1) */
        *qw = 1.0 + t2 * (-1.0 / 8 + t2 * (1.0 / 384 + t2 * (-1.0 / 46080 + t2 * (1.0 / 10321920))));
        *qs = 0.5 + t2 * (-1.0 / 48 + t2 * (1.0 / 3840 + t2 * (-1.0 / 645120 + t2 * (1.0 / 185794560))));
        return;
    }
    double th = sqrt(t2);
    *qw = cos(0.5 * th);
    *qs = sin(0.5 * th) / th;
}

cr_status cr_lgvi_rotation_solve(int chart, cr_vec3 J, cr_vec3 g, cr_vec3 *f, double *residuals, int *iters)
{
    int fail = rot_newton(chart, J, g, f, residuals, iters);
    if (!isfinite(f->x) || !isfinite(f->y) || !isfinite(f->z)) return CR_NONFINITE;
    return fail ? CR_NOT_CONVERGED : CR_OK;
}

/* ---- the step ---- */

LGVI_INLINE double node_eps(const elem_out *prev, const elem_out *cur, int q, int K, int dil)
{
    /* ε_0 = e_0, ε_K = e_{K-1}, ε_q = ½(e_{q-1} + e_q) inside (spec §2.1) */
    if (!dil) return 1.0;
    if (q == 0) return cur->e;
    if (q == K) return prev->e;
    return 0.5 * (prev->e + cur->e);
}

/* Initial kinetic energy T^{-1} from p^{-1} and μ^{-1} = ν (F^{-1} = I). */
static double initial_kinetic(const cr_lgvi *s)
{
    const lgvi_node *N = s->buf[s->cur];
    const int K = s->K, dil = s->par.dilatation;
    double T = 0.0, e_prev = 1.0;
    for (int q = 0; q <= K; ++q) {
        double e = 1.0;
        if (q < K) {
            cr_vec3 d = {N[q + 1].x[0] - N[q].x[0], N[q + 1].x[1] - N[q].x[1], N[q + 1].x[2] - N[q].x[2]};
            e = sqrt(dot(d, d)) * s->el[q].inv_l0;
        }
        double eps = !dil ? 1.0 : (q == 0 ? e : (q == K ? e_prev : 0.5 * (e_prev + e)));
        e_prev = e;
        int end = q == 0 || q == K;
        double m = end ? s->m_end : s->m_int, c = end ? s->c_end : s->c_int;
        cr_vec3 p = v_load(N[q].p), nu = v_load(N[q].nu);
        /* ½ m v² + ½ (c/ε) ω·J0ω with ν = (c/ε) J0 ω */
        T += 0.5 * dot(p, p) / m +
             0.5 * eps / c * (nu.x * nu.x / s->par.rhoJ.x + nu.y * nu.y / s->par.rhoJ.y + nu.z * nu.z / s->par.rhoJ.z);
    }
    return T;
}

typedef struct step_acc {
    double U, T, W, chk;
    int fail_node, fail_nonfinite; /* failed rotation solve: node, 1/2 if p / g was not finite */
} step_acc;

/* Updates node q (spec §2.3, linear and angular momentum) from level-k data and the
 * element quantities of elements q-1 (prev) and q (cur). Returns 0 or 1 (Newton failed). */
/* per node class (interior / end) constants of the update */
typedef struct node_const {
    double hm;      /* h/m_q */
    double half_im; /* 1/(2 m_q) */
    double hc;      /* h/c_q */
    double c_h2;    /* c_q/h² */
} node_const;

LGVI_INLINE int node_update(const cr_lgvi *s, const lgvi_node *o, lgvi_node *n, int q, const elem_out *prev,
                            const elem_out *cur, double eps, const node_const *nc, const cr_vec3 *f_ext,
                            const cr_vec3 *c_ext, const int chart, step_acc *acc)
{
    const double h = s->h;
    const cr_vec3 J = s->par.rhoJ;
    /* f^int_q = R_q n_q - R_{q-1} n_{q-1}; p^k = p^{k-1} + h(f^int + f^ext(t_k)) */
    cr_vec3 F = {cur->Rn.x - prev->Rn.x, cur->Rn.y - prev->Rn.y, cur->Rn.z - prev->Rn.z};
    cr_vec3 pold = v_load(o->p);
    if (f_ext) F.x += f_ext[q].x, F.y += f_ext[q].y, F.z += f_ext[q].z;
    cr_vec3 p = {pold.x + h * F.x, pold.y + h * F.y, pold.z + h * F.z};
    const double hm = nc->hm;
    /* x^{k+1} = x^k + (h/m) p^k */
    n->x[0] = o->x[0] + hm * p.x, n->x[1] = o->x[1] + hm * p.y, n->x[2] = o->x[2] + hm * p.z;
    v_store(p, n->p);
    /* M_q = l(Γ_q+E3)×n_q + w_q - Λ_{q-1}^T w_{q-1} + R_q^T c^ext */
    q4 qo = q_load(o->q);
    cr_vec3 M = {cur->ta.x - prev->tb.x, cur->ta.y - prev->tb.y, cur->ta.z - prev->tb.z};
    cr_vec3 cb = {0, 0, 0};
    if (c_ext) {
        cb = q_rotT(qo, c_ext[q]);
        M.x += cb.x, M.y += cb.y, M.z += cb.z;
    }
    /* μ^k = (F^{k-1})^T μ^{k-1} + h M^k; g = (h ε^k / c_q) μ^k */
    cr_vec3 nu = v_load(o->nu);
    cr_vec3 mu = {nu.x + h * M.x, nu.y + h * M.y, nu.z + h * M.z};
    double gk = nc->hc * eps;
    cr_vec3 g = {gk * mu.x, gk * mu.y, gk * mu.z};
    cr_vec3 fold = v_load(o->f), f = fold;
    double T = nc->half_im * dot(p, p);
    if (g.x == 0.0 && g.y == 0.0 && g.z == 0.0) {
        /* F = I is the exact solution: R, ν unchanged (bending-free problems) */
        f = (cr_vec3){0, 0, 0};
        memcpy(n->q, o->q, sizeof n->q);
        v_store(mu, n->nu);
    } else {
        if (rot_newton(chart, J, g, &f, NULL, NULL)) {
            acc->fail_node = q;
            acc->fail_nonfinite = !isfinite(p.x + p.y + p.z) ? 1 : (!isfinite(g.x + g.y + g.z) ? 2 : 0);
            return 1;
        }
        double qw, qs;
        chart_quat(chart, f, &qw, &qs);
        q4 qF = {qw, qs * f.x, qs * f.y, qs * f.z};
        /* R^{k+1} = R^k F^k, renormalised: one Newton step of |q| -> 1 (error ~ (1-|q|²)²) */
        q4 qn = q_mul(qo, qF);
        double nn = qn.w * qn.w + qn.x * qn.x + qn.y * qn.y + qn.z * qn.z, sc = 1.5 - 0.5 * nn;
        qn.w *= sc, qn.x *= sc, qn.y *= sc, qn.z *= sc;
        q_store(qn, n->q);
        /* ν^k = (F^k)^T μ^k, so next step's μ^{k+1} = ν^k + h M^{k+1} */
        v_store(q_rotT(qF, mu), n->nu);
        /* rotational kinetic energy (c/ε)/h² tr[(I-F)J_d] = (c/ε)/h² b f·J0f, b = 2qs² */
        T += nc->c_h2 / eps * 2.0 * qs * qs * (J.x * f.x * f.x + J.y * f.y * f.y + J.z * f.z * f.z);
    }
    v_store(f, n->f);
    /* discrete work of the loads of t_k: f·(x^{k+1} - x^{k-1})/2 = (h/2m) f·(p^{k-1} + p^k),
     * and (R^T c)·(f^{k-1} + f^k)/2 (body rotation increments on both sides of t_k) */
    if (f_ext)
        acc->W += 0.5 * hm * (f_ext[q].x * (pold.x + p.x) + f_ext[q].y * (pold.y + p.y) + f_ext[q].z * (pold.z + p.z));
    if (c_ext) acc->W += 0.5 * (cb.x * (fold.x + f.x) + cb.y * (fold.y + f.y) + cb.z * (fold.z + f.z));
    acc->T += T;
    /* 0·(sum) stays 0 unless something is Inf/NaN */
    /* x carries any NaN/Inf of p, ν any of F and μ (a NaN g fails the Newton solve) */
    acc->chk += 0.0 * (n->x[0] + n->x[1] + n->x[2] + n->nu[0] + n->nu[1] + n->nu[2]);
    return 0;
}

/* A node whose translation (CR_LGVI_EXTERNAL_TRANSLATION) and/or rotation
 * (CR_LGVI_EXTERNAL_ROTATION) the caller updates (a joint's shared node): the level-k
 * force and torque sums of node_update are left in the ext_* arrays and the level-k state
 * is copied; the other part is updated as node_update does (the same arithmetic). */
static int ext_update(const cr_lgvi *s, const lgvi_node *o, lgvi_node *n, int q, const elem_out *prev,
                      const elem_out *cur, double eps, const node_const *nc, const cr_vec3 *f_ext, const cr_vec3 *c_ext,
                      const int chart, step_acc *acc)
{
    const int fl = s->ext[q];
    const double h = s->h;
    const cr_vec3 J = s->par.rhoJ;
    *n = *o;
    cr_vec3 F = {cur->Rn.x - prev->Rn.x, cur->Rn.y - prev->Rn.y, cur->Rn.z - prev->Rn.z};
    cr_vec3 fl_ext = f_ext ? f_ext[q] : (cr_vec3){0, 0, 0};
    F.x += fl_ext.x, F.y += fl_ext.y, F.z += fl_ext.z;
    if (fl & CR_LGVI_EXTERNAL_TRANSLATION) {
        s->ext_force[q] = F;
        s->ext_fload[q] = fl_ext;
    } else {
        cr_vec3 pold = v_load(o->p), p = {pold.x + h * F.x, pold.y + h * F.y, pold.z + h * F.z};
        n->x[0] = o->x[0] + nc->hm * p.x, n->x[1] = o->x[1] + nc->hm * p.y, n->x[2] = o->x[2] + nc->hm * p.z;
        v_store(p, n->p);
        acc->T += nc->half_im * dot(p, p);
        acc->W += 0.5 * nc->hm * dot(fl_ext, (cr_vec3){pold.x + p.x, pold.y + p.y, pold.z + p.z});
    }
    q4 qo = q_load(o->q);
    cr_vec3 M = {cur->ta.x - prev->tb.x, cur->ta.y - prev->tb.y, cur->ta.z - prev->tb.z};
    cr_vec3 cb = c_ext ? q_rotT(qo, c_ext[q]) : (cr_vec3){0, 0, 0};
    M.x += cb.x, M.y += cb.y, M.z += cb.z;
    if (fl & CR_LGVI_EXTERNAL_ROTATION) {
        s->ext_torque[q] = M;
        s->ext_cb[q] = cb;
        s->ext_eps[q] = eps;
        return 0;
    }
    cr_vec3 nu = v_load(o->nu), mu = {nu.x + h * M.x, nu.y + h * M.y, nu.z + h * M.z};
    double gk = nc->hc * eps;
    cr_vec3 g = {gk * mu.x, gk * mu.y, gk * mu.z}, fold = v_load(o->f), f = fold;
    if (g.x == 0.0 && g.y == 0.0 && g.z == 0.0) {
        f = (cr_vec3){0, 0, 0};
        v_store(mu, n->nu);
    } else {
        if (rot_newton(chart, J, g, &f, NULL, NULL)) {
            acc->fail_node = q;
            acc->fail_nonfinite = !isfinite(g.x + g.y + g.z) ? 2 : 0;
            return 1;
        }
        double qw, qs;
        chart_quat(chart, f, &qw, &qs);
        q4 qF = {qw, qs * f.x, qs * f.y, qs * f.z}, qn = q_mul(qo, qF);
        double nn = qn.w * qn.w + qn.x * qn.x + qn.y * qn.y + qn.z * qn.z, sc = 1.5 - 0.5 * nn;
        qn.w *= sc, qn.x *= sc, qn.y *= sc, qn.z *= sc;
        q_store(qn, n->q);
        v_store(q_rotT(qF, mu), n->nu);
        acc->T += nc->c_h2 / eps * 2.0 * qs * qs * (J.x * f.x * f.x + J.y * f.y * f.y + J.z * f.z * f.z);
    }
    v_store(f, n->f);
    acc->W += 0.5 * dot(cb, (cr_vec3){fold.x + f.x, fold.y + f.y, fold.z + f.z});
    acc->chk += 0.0 * (n->x[0] + n->x[1] + n->x[2] + n->nu[0] + n->nu[1] + n->nu[2]);
    return 0;
}

/* Nodes q0..q1-1 of a step. The fused loop needs element q0-1 as "prev": it is recomputed
 * here (the same arithmetic on the same level-k data, so the same bits) but its energy
 * belongs to the previous chunk. */
LGVI_INLINE int step_loop(const cr_lgvi *s, int q0, int q1, const cr_vec3 *f_ext, const cr_vec3 *c_ext, const int chart,
                          const int dil, const int mid, step_acc *acc)
{
    const int K = s->K;
    const lgvi_node *O = s->buf[s->cur];
    lgvi_node *Nw = s->buf[1 - s->cur];
    const lgvi_elem *E = s->el;
    const elem_out zero = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1.0, 0.0};
    elem_out prev = q0 > 0 ? element(s, &O[q0 - 1], &O[q0], &E[q0 - 1], chart, dil, mid, NULL) : zero, cur;
    const double h = s->h;
    const node_const nci = {h / s->m_int, 0.5 / s->m_int, h / s->c_int, s->c_int / (h * h)};
    const node_const nce = {h / s->m_end, 0.5 / s->m_end, h / s->c_end, s->c_end / (h * h)};
    for (int q = q0; q < q1; ++q) {
        /* element q from level k: nodes q and q+1 are still untouched in O */
        if (q < K) {
            cur = element(s, &O[q], &O[q + 1], &E[q], chart, dil, mid, NULL);
            acc->U += cur.U;
        } else {
            cur = zero;
        }
        int end = q == 0 || q == K;
        if ((q == 0 && s->par.clamp_start) || (q == K && s->par.clamp_end)) {
            Nw[q] = O[q]; /* clamped: pose fixed, p = ν = f = 0 */
        } else if (s->ext && s->ext[q]) {
            if (ext_update(s, &O[q], &Nw[q], q, &prev, &cur, node_eps(&prev, &cur, q, K, dil), end ? &nce : &nci, f_ext,
                           c_ext, chart, acc))
                return 1;
        } else {
            double eps = node_eps(&prev, &cur, q, K, dil);
            if (node_update(s, &O[q], &Nw[q], q, &prev, &cur, eps, end ? &nce : &nci, f_ext, c_ext, chart, acc))
                return 1;
        }
        prev = cur;
    }
    return 0;
}

/* eight specialisations so the chart, model and strain-frame tests are constant-folded */
typedef int (*step_fn)(const cr_lgvi *, int, int, const cr_vec3 *, const cr_vec3 *, step_acc *);
#define LGVI_STEP_FN(name, chart, dil, mid)                                                                            \
    static int name(const cr_lgvi *s, int q0, int q1, const cr_vec3 *f, const cr_vec3 *c, step_acc *a)                 \
    {                                                                                                                  \
        return step_loop(s, q0, q1, f, c, chart, dil, mid, a);                                                         \
    }
LGVI_STEP_FN(step_exp_std, CR_LGVI_CHART_EXP, 0, 0)
LGVI_STEP_FN(step_exp_dil, CR_LGVI_CHART_EXP, 1, 0)
LGVI_STEP_FN(step_cay_std, CR_LGVI_CHART_CAYLEY, 0, 0)
LGVI_STEP_FN(step_cay_dil, CR_LGVI_CHART_CAYLEY, 1, 0)
LGVI_STEP_FN(step_exp_std_mid, CR_LGVI_CHART_EXP, 0, 1)
LGVI_STEP_FN(step_exp_dil_mid, CR_LGVI_CHART_EXP, 1, 1)
LGVI_STEP_FN(step_cay_std_mid, CR_LGVI_CHART_CAYLEY, 0, 1)
LGVI_STEP_FN(step_cay_dil_mid, CR_LGVI_CHART_CAYLEY, 1, 1)
/* [mid][cayley][dilatation] */
static const step_fn step_fns[2][2][2] = {{{step_exp_std, step_exp_dil}, {step_cay_std, step_cay_dil}},
                                          {{step_exp_std_mid, step_exp_dil_mid}, {step_cay_std_mid, step_cay_dil_mid}}};

/* ---- threads ----
 * The node range is cut into fixed chunks of LGVI_CHUNK nodes, whatever the thread count;
 * each chunk sums its energies, work and checks into its own step_acc, and the chunks'
 * sums are added in chunk order afterwards. Every node's arithmetic only reads level-k
 * data (double buffer), so the state and the energies are bit-identical for any number
 * of threads and any assignment of chunks to threads (test_threads_bit_identical).
 *
 * The chunks are the tasks of one cr_pool_run per step (linalg/pool.h, the statics' pool):
 * claimed by the caller and by persistent workers that sleep between steps, so the caller
 * never waits for a worker that has not started (on a loaded machine it simply does every
 * chunk), only for chunks a worker has claimed. The workers only pay above
 * LGVI_PAR_MIN_NODES nodes (bench_lgvi --threads). */
#define LGVI_CHUNK 256
#define LGVI_PAR_MIN_NODES 8192
#define LGVI_MAX_THREADS CR_MAX_THREADS

/* one step's job on the pool (linalg/pool.h): chunk k of the nodes into acc[k] */
typedef struct step_job {
    const cr_lgvi *s;
    step_fn fn;
    const cr_vec3 *f, *c;
} step_job;

static void chunk_task(void *arg, int k)
{
    const step_job *j = arg;
    const cr_lgvi *s = j->s;
    int q0 = k * LGVI_CHUNK, q1 = q0 + LGVI_CHUNK < s->K + 1 ? q0 + LGVI_CHUNK : s->K + 1;
    s->chunk_acc[k] = (step_acc){0.0, 0.0, 0.0, 0.0, -1, 0};
    s->chunk_fail[k] = j->fn(s, q0, q1, j->f, j->c, &s->chunk_acc[k]);
}

static void pool_free(cr_lgvi *s)
{
    cr_pool_destroy(s->pool);
    free(s->chunk_acc);
    free(s->chunk_fail);
    s->pool = NULL, s->chunk_acc = NULL, s->chunk_fail = NULL;
}

/* threads from COSSERAT_THREADS, else OMP_NUM_THREADS, else the online CPUs: the
 * project's one setting (linalg/pool.h, also the statics' and the CLI's --threads) */
static int env_threads(void)
{
    int n = cr_threads_default();
    return n > LGVI_MAX_THREADS ? LGVI_MAX_THREADS : n;
}

static int nchunks_of(const cr_lgvi *s) { return (s->K + 1 + LGVI_CHUNK - 1) / LGVI_CHUNK; }

int cr_lgvi_threads(const cr_lgvi *s)
{
    int n = s->threads;
    if (n == 0) n = s->K + 1 >= LGVI_PAR_MIN_NODES ? env_threads() : 1;
    int nc = nchunks_of(s);
    return n > nc ? nc : n;
}

void cr_lgvi_set_threads(cr_lgvi *s, int threads)
{
    if (!s) return;
    s->threads = threads < 0 ? 0 : (threads > LGVI_MAX_THREADS ? LGVI_MAX_THREADS : threads);
}

/* One step over all nodes; the chunks' sums in chunk order into *acc. Returns 1 if a
 * rotation solve failed (acc->fail_node: the first failing node). */
static int step_all(cr_lgvi *s, step_fn fn, const cr_vec3 *f, const cr_vec3 *c, step_acc *acc)
{
    const int nc = nchunks_of(s);
    int T = cr_lgvi_threads(s);
    if (T > 1 && cr_pool_threads(s->pool) != T) {
        pool_free(s);
        s->pool = cr_pool_create(T);
        s->chunk_acc = malloc(sizeof *s->chunk_acc * (size_t)nc);
        s->chunk_fail = malloc(sizeof *s->chunk_fail * (size_t)nc);
        if (!s->chunk_acc || !s->chunk_fail) pool_free(s);
    }
    if (T == 1 || !s->pool) {
        /* serial: the same chunks, summed in the same order */
        int fail = 0;
        for (int k = 0; k < nc && !fail; ++k) {
            step_acc a = {0.0, 0.0, 0.0, 0.0, -1, 0};
            int q0 = k * LGVI_CHUNK, q1 = q0 + LGVI_CHUNK < s->K + 1 ? q0 + LGVI_CHUNK : s->K + 1;
            fail = fn(s, q0, q1, f, c, &a);
            acc->U += a.U, acc->T += a.T, acc->W += a.W, acc->chk += a.chk;
            if (fail) acc->fail_node = a.fail_node, acc->fail_nonfinite = a.fail_nonfinite;
        }
        return fail;
    }
    step_job job = {s, fn, f, c};
    cr_pool_run(s->pool, nc, chunk_task, &job);
    for (int k = 0; k < nc; ++k) {
        const step_acc *a = &s->chunk_acc[k];
        acc->U += a->U, acc->T += a->T, acc->W += a->W, acc->chk += a->chk;
        if (s->chunk_fail[k]) {
            acc->fail_node = a->fail_node, acc->fail_nonfinite = a->fail_nonfinite;
            return 1;
        }
    }
    return 0;
}

static int v_finite(const double *a, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* first node (0..K) of N with a non-finite value, and which one; -1 if none */
static int first_nonfinite(const lgvi_node *N, int K, const char **what)
{
    for (int q = 0; q <= K; ++q) {
        const lgvi_node *a = &N[q];
        *what = !v_finite(a->x, 3)    ? "position"
                : !v_finite(a->p, 3)  ? "linear momentum"
                : !v_finite(a->q, 4)  ? "rotation"
                : !v_finite(a->nu, 3) ? "angular momentum"
                                      : NULL;
        if (*what) return q;
    }
    return -1;
}

/* A fixed clamp holds its node's pose and momenta at 0, so its reaction is minus the level-k force
 * and moment that node_update would have applied there (the internal force R_q n_q − R_{q−1}
 * n_{q−1} with the loads, the torque M_q in the node's body basis): p^k = p^{k−1} + h (F + R) = 0. */
static void clamp_reactions(cr_lgvi *s, const cr_vec3 *f_ext, const cr_vec3 *c_ext)
{
    const lgvi_node *O = s->buf[s->cur];
    const int K = s->K, dil = s->par.dilatation != 0, mid = s->par.strains == CR_LGVI_STRAINS_MIDPOINT;
    for (int end = 0; end < 2; ++end) {
        if (!(end ? s->par.clamp_end : s->par.clamp_start)) continue;
        const int q = end ? K : 0;
        const elem_out e = end ? element(s, &O[K - 1], &O[K], &s->el[K - 1], s->par.chart, dil, mid, NULL)
                               : element(s, &O[0], &O[1], &s->el[0], s->par.chart, dil, mid, NULL);
        cr_vec3 F = end ? (cr_vec3){-e.Rn.x, -e.Rn.y, -e.Rn.z} : e.Rn;
        cr_vec3 M = end ? (cr_vec3){-e.tb.x, -e.tb.y, -e.tb.z} : e.ta;
        if (f_ext) F.x += f_ext[q].x, F.y += f_ext[q].y, F.z += f_ext[q].z;
        if (c_ext) {
            const cr_vec3 cb = q_rotT(q_load(O[q].q), c_ext[q]);
            M.x += cb.x, M.y += cb.y, M.z += cb.z;
        }
        s->pend_f[end] = (cr_vec3){-F.x, -F.y, -F.z};
        s->pend_m[end] = (cr_vec3){-M.x, -M.y, -M.z};
    }
}

cr_status cr_lgvi_step_begin(cr_lgvi *s, const cr_vec3 *f_ext, const cr_vec3 *c_ext, cr_error *err)
{
    if (!s) return cr_error_set(err, CR_BAD_INPUT, "lgvi: step on a NULL model");
    s->pending = 0;
    if (s->steps == 0) s->T_last = initial_kinetic(s);
    step_acc acc = {0.0, 0.0, 0.0, 0.0, -1, 0};
    int dil = s->par.dilatation != 0, cay = s->par.chart == CR_LGVI_CHART_CAYLEY;
    step_fn fn = step_fns[s->par.strains == CR_LGVI_STRAINS_MIDPOINT][cay][dil];
    int fail = step_all(s, fn, f_ext, c_ext, &acc);
    double t = cr_lgvi_time(s);
    if (fail) {
        /* NaN/Inf reaching the rotation solve is reported as non-finite; a genuine failure
         * (|g| too large for any rotation F: far too large a step) as not converged */
        if (acc.fail_nonfinite)
            return cr_error_set(
                err, CR_NONFINITE, "lgvi: non-finite %s at node %d in the step from t = %.9g s (step %ld)",
                acc.fail_nonfinite == 1 ? "linear momentum" : "angular momentum", acc.fail_node, t, s->steps);
        return cr_error_set(err, CR_NOT_CONVERGED,
                            "lgvi: rotation solve for F at node %d did not converge in the step from t = %.9g s "
                            "(step %ld): angular momentum too large for the time step",
                            acc.fail_node, t, s->steps);
    }
    if (acc.chk != 0.0) {
        const char *what = NULL;
        int q = first_nonfinite(s->buf[1 - s->cur], s->K, &what);
        if (q >= 0)
            return cr_error_set(err, CR_NONFINITE,
                                "lgvi: non-finite %s at node %d in the step from t = %.9g s (step %ld)", what, q, t,
                                s->steps);
    }
    if (!isfinite(acc.U)) {
        /* the level-k state is finite but a stress overflowed: name the element */
        const lgvi_node *N = s->buf[s->cur];
        int q = 0;
        for (; q < s->K - 1; ++q)
            if (!isfinite(element(s, &N[q], &N[q + 1], &s->el[q], s->par.chart, dil, s->par.strains, NULL).U)) break;
        return cr_error_set(
            err, CR_NONFINITE,
            "lgvi: non-finite strain energy of element %d (node %d to node %d) at t = %.9g s (step %ld)", q, q, q + 1,
            t, s->steps);
    }
    clamp_reactions(s, f_ext, c_ext);
    s->pending = 1;
    s->pend_t = t;
    s->pend_U = acc.U, s->pend_T = acc.T, s->pend_W = acc.W;
    return CR_OK;
}

void cr_lgvi_step_end(cr_lgvi *s)
{
    if (!s || !s->pending) return;
    s->pending = 0;
    s->cur = 1 - s->cur;
    s->t_prev = s->pend_t;
    s->steps++;
    s->T_prev = s->T_last;
    s->T_last = s->pend_T;
    s->U_last = s->pend_U;
    s->work += s->pend_W;
    s->work_last = s->pend_W;
    memcpy(s->react_f, s->pend_f, sizeof s->react_f), memcpy(s->react_m, s->pend_m, sizeof s->react_m);
    s->have_react = 1;
}

int cr_lgvi_clamp_reaction(const cr_lgvi *s, int end, cr_vec3 *force, cr_vec3 *moment)
{
    if (!s->have_react || !(end ? s->par.clamp_end : s->par.clamp_start)) return 0;
    *force = s->react_f[end], *moment = s->react_m[end];
    return 1;
}

cr_vec3 cr_lgvi_pending_momentum(const cr_lgvi *s, int node) { return v_load(s->buf[1 - s->cur][node].p); }

void cr_lgvi_pending_add_force(cr_lgvi *s, int node, cr_vec3 f_node, cr_vec3 g)
{
    lgvi_node *n = &s->buf[1 - s->cur][node];
    const lgvi_node *o = &s->buf[s->cur][node];
    const double h = s->h, m = cr_lgvi_node_mass(s, node);
    const cr_vec3 pold = v_load(o->p), p = v_load(n->p), pn = cr_v3_madd(p, h, g);
    /* x^{k+1} = x^k + h p^k/m, as node_update; its accounts: ½|p^k|²/m and the loads' work
     * (h/2m) f·(p^{k−1} + p^k), now with f + g and the new p^k */
    v_store(pn, n->p);
    n->x[0] = o->x[0] + h / m * pn.x, n->x[1] = o->x[1] + h / m * pn.y, n->x[2] = o->x[2] + h / m * pn.z;
    s->pend_T += 0.5 / m * (dot(pn, pn) - dot(p, p));
    s->pend_W += 0.5 * h / m * (dot(cr_v3_add(f_node, g), cr_v3_add(pold, pn)) - dot(f_node, cr_v3_add(pold, p)));
}

cr_status cr_lgvi_step(cr_lgvi *s, const cr_vec3 *f_ext, const cr_vec3 *c_ext, cr_error *err)
{
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    cr_status st = cr_lgvi_step_begin(s, f_ext, c_ext, err);
    if (st == CR_OK) cr_lgvi_step_end(s);
    cr_fpmode_restore(fp);
    return st;
}

/* ---- nodes updated by the caller ---- */

cr_status cr_lgvi_set_external(cr_lgvi *s, int node, int flags)
{
    if (!s || node < 0 || node > s->K || flags < 0 || flags > 3) return CR_BAD_INPUT;
    if (!s->ext) {
        const size_t n = (size_t)s->K + 1;
        s->ext = calloc(n, 1);
        s->ext_force = calloc(n, sizeof *s->ext_force);
        s->ext_fload = calloc(n, sizeof *s->ext_fload);
        s->ext_torque = calloc(n, sizeof *s->ext_torque);
        s->ext_cb = calloc(n, sizeof *s->ext_cb);
        s->ext_eps = calloc(n, sizeof *s->ext_eps);
        if (!s->ext || !s->ext_force || !s->ext_fload || !s->ext_torque || !s->ext_cb || !s->ext_eps) {
            ext_free(s);
            return CR_NO_MEMORY;
        }
    }
    s->ext[node] = (unsigned char)flags;
    return CR_OK;
}

void cr_lgvi_external_loads(const cr_lgvi *s, int node, cr_vec3 *force, cr_vec3 *torque, double *eps)
{
    if (force) *force = s->ext_force[node];
    if (torque) *torque = s->ext_torque[node];
    if (eps) *eps = s->ext_eps[node];
}

int cr_lgvi_external_flags(const cr_lgvi *s, int node)
{
    return s && s->ext && node >= 0 && node <= s->K ? s->ext[node] : 0;
}

void cr_lgvi_external_add_force(cr_lgvi *s, int node, cr_vec3 g)
{
    s->ext_force[node] = cr_v3_add(s->ext_force[node], g);
    s->ext_fload[node] = cr_v3_add(s->ext_fload[node], g);
}

void cr_lgvi_node_momenta(const cr_lgvi *s, int node, cr_vec3 *p, cr_vec3 *nu, cr_vec3 *f)
{
    const lgvi_node *a = &s->buf[s->cur][node];
    if (p) *p = v_load(a->p);
    if (nu) *nu = v_load(a->nu);
    if (f) *f = v_load(a->f);
}

cr_quat cr_lgvi_node_quat(const cr_lgvi *s, int node)
{
    q4 a = q_load(s->buf[s->cur][node].q);
    return cr_q(a.w, a.x, a.y, a.z);
}

cr_vec3 cr_lgvi_node_inertia(const cr_lgvi *s, int node)
{
    double c = node == 0 || node == s->K ? s->c_end : s->c_int;
    return cr_v3_scale(s->par.rhoJ, c);
}

void cr_lgvi_external_set_translation(cr_lgvi *s, int node, cr_vec3 x, cr_vec3 p)
{
    lgvi_node *n = &s->buf[1 - s->cur][node];
    const lgvi_node *o = &s->buf[s->cur][node];
    const double m = cr_lgvi_node_mass(s, node);
    cr_vec3 pold = v_load(o->p), fl = s->ext_fload[node];
    v_store(x, n->x);
    v_store(p, n->p);
    /* the kernel's own accounts (node_update): ½|p|²/m and f·(x^{k+1} − x^{k−1})/2 */
    s->pend_T += 0.5 / m * dot(p, p);
    s->pend_W += 0.5 * s->h / m * dot(fl, (cr_vec3){pold.x + p.x, pold.y + p.y, pold.z + p.z});
}

cr_vec3 cr_lgvi_external_set_rotation(cr_lgvi *s, int node, cr_vec3 f)
{
    lgvi_node *n = &s->buf[1 - s->cur][node];
    const lgvi_node *o = &s->buf[s->cur][node];
    const int chart = s->par.chart;
    const cr_vec3 J = s->par.rhoJ;
    const double c = node == 0 || node == s->K ? s->c_end : s->c_int, eps = s->ext_eps[node];
    cr_vec3 fold = v_load(o->f), cb = s->ext_cb[node];
    double qw, qs;
    chart_quat(chart, f, &qw, &qs);
    q4 qF = {qw, qs * f.x, qs * f.y, qs * f.z}, qn = q_mul(q_load(o->q), qF);
    double nn = qn.w * qn.w + qn.x * qn.x + qn.y * qn.y + qn.z * qn.z, sc = 1.5 - 0.5 * nn;
    qn.w *= sc, qn.x *= sc, qn.y *= sc, qn.z *= sc;
    q_store(qn, n->q);
    /* this node's share of the angular momentum, μ = (c/hε)(F J_d − J_d Fᵀ)^∨ (linear in the
     * inertia, so the shares of a welded node add up to the node's μ), transported: ν = Fᵀμ */
    cr_vec3 G = rot_residual(chart, J, (cr_vec3){0, 0, 0}, f, NULL);
    double k = c / (s->h * eps) / (chart == CR_LGVI_CHART_CAYLEY ? 1.0 + 0.25 * dot(f, f) : 1.0);
    cr_vec3 mu = cr_v3_scale(G, k);
    v_store(q_rotT(qF, mu), n->nu);
    v_store(f, n->f);
    s->pend_T += c / (s->h * s->h) / eps * 2.0 * qs * qs * (J.x * f.x * f.x + J.y * f.y * f.y + J.z * f.z * f.z);
    s->pend_W += 0.5 * dot(cb, (cr_vec3){fold.x + f.x, fold.y + f.y, fold.z + f.z});
    return mu;
}

/* ---- creation ---- */

static int vec_positive(cr_vec3 a) { return a.x > 0 && a.y > 0 && a.z > 0 && isfinite(a.x + a.y + a.z); }

static cr_status check_params(const cr_lgvi_params *p, cr_error *err)
{
    if (!p) return cr_error_set(err, CR_BAD_INPUT, "lgvi: params is NULL");
    if (p->elements < 1) return cr_error_set(err, CR_BAD_INPUT, "lgvi: elements = %d must be >= 1", p->elements);
    if (!(p->length > 0) || !isfinite(p->length))
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: length = %g must be > 0", p->length);
    if (!(p->rhoA > 0) || !isfinite(p->rhoA))
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: rhoA = %g must be > 0", p->rhoA);
    if (!vec_positive(p->rhoJ))
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: rhoJ = (%g, %g, %g) must be > 0", p->rhoJ.x, p->rhoJ.y,
                            p->rhoJ.z);
    if (!vec_positive(p->C1))
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: C1 = (GA1, GA2, EA) = (%g, %g, %g) must be > 0", p->C1.x, p->C1.y,
                            p->C1.z);
    if (!vec_positive(p->C2))
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: C2 = (EI1, EI2, GJ) = (%g, %g, %g) must be > 0", p->C2.x, p->C2.y,
                            p->C2.z);
    if (!(p->h > 0) || !isfinite(p->h)) return cr_error_set(err, CR_BAD_INPUT, "lgvi: h = %g must be > 0", p->h);
    if (p->chart != CR_LGVI_CHART_EXP && p->chart != CR_LGVI_CHART_CAYLEY)
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: chart = %d must be CR_LGVI_CHART_EXP or CR_LGVI_CHART_CAYLEY",
                            p->chart);
    if (p->strains != CR_LGVI_STRAINS_LEFT && p->strains != CR_LGVI_STRAINS_MIDPOINT)
        return cr_error_set(err, CR_BAD_INPUT,
                            "lgvi: strains = %d must be CR_LGVI_STRAINS_LEFT or CR_LGVI_STRAINS_MIDPOINT", p->strains);
    if (p->dilatation != 0 && p->dilatation != 1)
        return cr_error_set(err, CR_BAD_INPUT, "lgvi: dilatation = %d must be 0 or 1", p->dilatation);
    return CR_OK;
}

static q4 quat_of(cr_mat3 R)
{
    cr_quat u = cr_q_normalize(cr_q_from_matrix(R));
    return (q4){u.w, u.x, u.y, u.z};
}

static int is_rotation(cr_mat3 R)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double a = R.m[0][i] * R.m[0][j] + R.m[1][i] * R.m[1][j] + R.m[2][i] * R.m[2][j];
            if (!(fabs(a - (i == j)) <= 1e-6)) return 0;
        }
    double det = R.m[0][0] * (R.m[1][1] * R.m[2][2] - R.m[1][2] * R.m[2][1]) -
                 R.m[0][1] * (R.m[1][0] * R.m[2][2] - R.m[1][2] * R.m[2][0]) +
                 R.m[0][2] * (R.m[1][0] * R.m[2][1] - R.m[1][1] * R.m[2][0]);
    return det > 0;
}

cr_lgvi *cr_lgvi_create(const cr_lgvi_params *p, const cr_vec3 *x0, const cr_mat3 *R0, cr_error *err)
{
    if (check_params(p, err) != CR_OK) return NULL;
    if (!x0 || !R0) {
        cr_error_set(err, CR_BAD_INPUT, "lgvi: %s is NULL (need K+1 = %d entries)", !x0 ? "x0" : "R0", p->elements + 1);
        return NULL;
    }
    const int K = p->elements;
    for (int q = 0; q <= K; ++q) {
        if (!isfinite(x0[q].x + x0[q].y + x0[q].z)) {
            cr_error_set(err, CR_BAD_INPUT, "lgvi: x0[%d] is not finite", q);
            return NULL;
        }
        if (!is_rotation(R0[q])) {
            cr_error_set(err, CR_BAD_INPUT, "lgvi: R0[%d] is not a rotation matrix (to 1e-6)", q);
            return NULL;
        }
        if (q < K && !(cr_v3_norm(cr_v3_sub(x0[q + 1], x0[q])) > 0)) {
            cr_error_set(err, CR_BAD_INPUT, "lgvi: x0[%d] and x0[%d] coincide (element %d has zero length)", q, q + 1,
                         q);
            return NULL;
        }
    }
    cr_lgvi *s = calloc(1, sizeof *s);
    size_t nb = sizeof(lgvi_node) * (size_t)(K + 1);
    if (s) {
        s->buf[0] = aligned_alloc(64, nb);
        s->buf[1] = aligned_alloc(64, nb);
        s->el = aligned_alloc(64, sizeof(lgvi_elem) * (size_t)K);
    }
    if (!s || !s->buf[0] || !s->buf[1] || !s->el) {
        cr_lgvi_destroy(s);
        cr_error_set(err, CR_NO_MEMORY, "lgvi: out of memory for K = %d elements", K);
        return NULL;
    }
    s->par = *p;
    s->K = K;
    s->h = p->h;
    s->l = p->length / K;
    s->inv_l = 1.0 / s->l;
    s->m_int = p->rhoA * s->l, s->m_end = 0.5 * s->m_int;
    s->c_int = s->l, s->c_end = 0.5 * s->l;
    lgvi_node *N = s->buf[0];
    memset(N, 0, nb);
    for (int q = 0; q <= K; ++q) {
        v_store(x0[q], N[q].x);
        q_store(quat_of(R0[q]), N[q].q);
    }
    /* reference strains with exactly the step's arithmetic, so the reference is
     * stress-free to the last bit */
    for (int q = 0; q < K; ++q) {
        lgvi_elem *E = &s->el[q];
        memset(E, 0, sizeof *E);
        cr_vec3 d = cr_v3_sub(x0[q + 1], x0[q]);
        E->inv_l0 = 1.0 / sqrt(dot(d, d));
        elem_strain st;
        element(s, &N[q], &N[q + 1], E, p->chart, 0, p->strains, &st);
        v_store(st.gamma, E->gref);
        v_store(st.omega, E->oref);
        E->straight = st.omega.x == 0.0 && st.omega.y == 0.0 && st.omega.z == 0.0;
    }
    memcpy(s->buf[1], s->buf[0], nb);
    s->cur = 0;
    s->T_last = s->T_prev = 0.0;
    s->U_last = 0.0;
    return s;
}

static void ext_free(cr_lgvi *s)
{
    free(s->ext);
    free(s->ext_force);
    free(s->ext_fload);
    free(s->ext_torque);
    free(s->ext_cb);
    free(s->ext_eps);
    s->ext = NULL, s->ext_force = s->ext_fload = s->ext_torque = s->ext_cb = NULL, s->ext_eps = NULL;
}

void cr_lgvi_destroy(cr_lgvi *s)
{
    if (!s) return;
    pool_free(s);
    ext_free(s);
    free(s->buf[0]);
    free(s->buf[1]);
    free(s->el);
    free(s);
}

static int is_clamped(const cr_lgvi *s, int q)
{
    return (q == 0 && s->par.clamp_start) || (q == s->K && s->par.clamp_end);
}

void cr_lgvi_set_velocity(cr_lgvi *s, int node, cr_vec3 v, cr_vec3 omega_body)
{
    if (!s || node < 0 || node > s->K || is_clamped(s, node)) return;
    lgvi_node *N = s->buf[s->cur];
    const int K = s->K;
    int end = node == 0 || node == K;
    double m = end ? s->m_end : s->m_int, c = end ? s->c_end : s->c_int;
    double eps = 1.0;
    if (s->par.dilatation) {
        double e[2];
        int n = 0;
        for (int q = node - 1; q <= node; ++q) {
            if (q < 0 || q >= K) continue;
            cr_vec3 d = {N[q + 1].x[0] - N[q].x[0], N[q + 1].x[1] - N[q].x[1], N[q + 1].x[2] - N[q].x[2]};
            e[n++] = sqrt(dot(d, d)) * s->el[q].inv_l0;
        }
        eps = n == 2 ? 0.5 * (e[0] + e[1]) : e[0];
    }
    v_store(cr_v3_scale(v, m), N[node].p);
    /* μ^{-1} = (c/ε^0) J0 ω, F^{-1} = I so ν = μ^{-1} (spec §2.3 "Initial conditions") */
    cr_vec3 mu = {c / eps * s->par.rhoJ.x * omega_body.x, c / eps * s->par.rhoJ.y * omega_body.y,
                  c / eps * s->par.rhoJ.z * omega_body.z};
    v_store(mu, N[node].nu);
    /* Newton guess and the "previous increment" for the work: τ^{-1}(exp(h ω)) */
    cr_vec3 f = cr_v3_scale(omega_body, s->h);
    if (s->par.chart == CR_LGVI_CHART_CAYLEY) {
        double th = cr_v3_norm(f);
        if (th > 0) f = cr_v3_scale(f, 2.0 * tan(0.5 * th) / th);
    }
    v_store(f, N[node].f);
}

/* ---- queries ---- */

double cr_lgvi_time(const cr_lgvi *s) { return s->t_base + (double)(s->steps - s->steps_base) * s->h; }

cr_status cr_lgvi_set_step(cr_lgvi *s, double h)
{
    if (!(h > 0) || !isfinite(h)) return CR_BAD_INPUT;
    if (h == s->h) return CR_OK; /* keeps t = t_base + n h exactly (a resumed stage sets the same step) */
    /* The state holds the momenta p and μ of the last interval, which do not depend
     * on h (spec §2.3: p = m Δx/h, μ = (c/hε)(F J_d − J_d Fᵀ)^∨); the next step uses
     * them with the new h. The stored f is only the rotation solve's first guess:
     * rescale it so the guess stays close. */
    double r = h / s->h;
    for (int q = 0; q <= s->K; ++q)
        for (int j = 0; j < 3; ++j) s->buf[s->cur][q].f[j] *= r;
    s->t_base = cr_lgvi_time(s);
    s->steps_base = s->steps;
    s->h = h;
    s->par.h = h;
    return CR_OK;
}
long cr_lgvi_steps(const cr_lgvi *s) { return s->steps; }
int cr_lgvi_node_count(const cr_lgvi *s) { return s->K + 1; }
const cr_lgvi_params *cr_lgvi_get_params(const cr_lgvi *s) { return &s->par; }

static int valid_node(const cr_lgvi *s, int q) { return s && q >= 0 && q <= s->K; }

cr_vec3 cr_lgvi_position(const cr_lgvi *s, int node)
{
    if (!valid_node(s, node)) return cr_v3(NAN, NAN, NAN);
    return v_load(s->buf[s->cur][node].x);
}

cr_mat3 cr_lgvi_rotation(const cr_lgvi *s, int node)
{
    if (!valid_node(s, node)) return cr_m3_zero();
    return q_matrix(q_load(s->buf[s->cur][node].q));
}

double cr_lgvi_node_mass(const cr_lgvi *s, int node)
{
    if (!valid_node(s, node)) return 0.0;
    return node == 0 || node == s->K ? s->m_end : s->m_int;
}

cr_vec3 cr_lgvi_velocity(const cr_lgvi *s, int node)
{
    if (!valid_node(s, node)) return cr_v3(NAN, NAN, NAN);
    return cr_v3_scale(v_load(s->buf[s->cur][node].p), 1.0 / cr_lgvi_node_mass(s, node));
}

cr_vec3 cr_lgvi_angular_velocity(const cr_lgvi *s, int node)
{
    if (!valid_node(s, node)) return cr_v3(NAN, NAN, NAN);
    cr_vec3 f = v_load(s->buf[s->cur][node].f);
    if (s->par.chart == CR_LGVI_CHART_CAYLEY) {
        /* cay(f) is the rotation by 2 atan(|f|/2) about f */
        double a = cr_v3_norm(f);
        if (a > 0) f = cr_v3_scale(f, 2.0 * atan(0.5 * a) / a);
    }
    return cr_v3_scale(f, 1.0 / s->h);
}

double cr_lgvi_power(const cr_lgvi *s, const cr_vec3 *f, double w)
{
    const lgvi_node *N = s->buf[s->cur];
    for (int q = 0; q <= s->K; ++q) {
        /* cr_lgvi_velocity's p/m */
        const double im = 1.0 / (q == 0 || q == s->K ? s->m_end : s->m_int);
        w += cr_v3_dot(f[q], cr_v3_scale(v_load(N[q].p), im));
    }
    return w;
}

void cr_lgvi_add_drag(const cr_lgvi *s, cr_vec3 drag, cr_vec3 rotational_drag, const double *lumped, cr_vec3 *f,
                      cr_vec3 *c)
{
    const lgvi_node *N = s->buf[s->cur];
    for (int q = 0; q <= s->K; ++q) {
        /* cr_lgvi_rotation, cr_lgvi_velocity and cr_lgvi_angular_velocity inlined: the same operations */
        const cr_mat3 R = q_matrix(q_load(N[q].q));
        const double im = 1.0 / (q == 0 || q == s->K ? s->m_end : s->m_int);
        const cr_vec3 vb = cr_m3_mulv(cr_m3_transpose(R), cr_v3_scale(v_load(N[q].p), im));
        cr_vec3 w = v_load(N[q].f);
        if (s->par.chart == CR_LGVI_CHART_CAYLEY) {
            double a = cr_v3_norm(w);
            if (a > 0) w = cr_v3_scale(w, 2.0 * atan(0.5 * a) / a);
        }
        w = cr_v3_scale(w, 1.0 / s->h);
        const cr_vec3 fb = cr_v3(drag.x * vb.x, drag.y * vb.y, drag.z * vb.z),
                      mb = cr_v3(rotational_drag.x * w.x, rotational_drag.y * w.y, rotational_drag.z * w.z);
        f[q] = cr_v3_madd(f[q], -lumped[q], cr_m3_mulv(R, fb));
        c[q] = cr_v3_madd(c[q], -lumped[q], cr_m3_mulv(R, mb));
    }
}

static elem_strain element_strain(const cr_lgvi *s, int q)
{
    const lgvi_node *N = s->buf[s->cur];
    elem_strain st;
    element(s, &N[q], &N[q + 1], &s->el[q], s->par.chart, s->par.dilatation != 0, s->par.strains, &st);
    return st;
}

void cr_lgvi_element(const cr_lgvi *s, int q, cr_vec3 *gamma, cr_vec3 *omega, cr_vec3 *n, cr_vec3 *m, double *e)
{
    if (!s || q < 0 || q >= s->K) return;
    elem_strain st = element_strain(s, q);
    if (gamma) *gamma = st.gamma;
    if (omega) *omega = st.omega;
    if (n) *n = st.n;
    if (m) *m = st.m;
    if (e) *e = st.e;
}

double cr_lgvi_internal_forces(const cr_lgvi *s, cr_vec3 *f, cr_vec3 *M)
{
    const lgvi_node *N = s->buf[s->cur];
    const int K = s->K, dil = s->par.dilatation != 0;
    double U = 0.0;
    for (int q = 0; q <= K; ++q) f[q] = M[q] = cr_v3(0, 0, 0);
    for (int q = 0; q < K; ++q) {
        elem_out o = element(s, &N[q], &N[q + 1], &s->el[q], s->par.chart, dil, s->par.strains, NULL);
        f[q] = cr_v3_add(f[q], o.Rn);
        f[q + 1] = cr_v3_sub(f[q + 1], o.Rn);
        M[q] = cr_v3_add(M[q], o.ta);
        M[q + 1] = cr_v3_sub(M[q + 1], o.tb);
        U += o.U;
    }
    return U;
}

void cr_lgvi_set_pose(cr_lgvi *s, int node, cr_vec3 x, cr_mat3 R)
{
    if (!valid_node(s, node)) return;
    lgvi_node *a = &s->buf[s->cur][node];
    v_store(x, a->x);
    q_store(quat_of(R), a->q);
}

void cr_lgvi_energies(const cr_lgvi *s, double *kinetic_interval, double *kinetic, double *elastic)
{
    if (s->steps == 0) {
        cr_lgvi_diag d;
        cr_lgvi_diagnostics(s, &d);
        if (kinetic_interval) *kinetic_interval = d.kinetic_interval;
        if (kinetic) *kinetic = d.kinetic;
        if (elastic) *elastic = d.elastic;
        return;
    }
    if (kinetic_interval) *kinetic_interval = s->T_last;
    if (kinetic) *kinetic = 0.5 * (s->T_prev + s->T_last);
    if (elastic) *elastic = s->U_last;
}

void cr_lgvi_diagnostics(const cr_lgvi *s, cr_lgvi_diag *out)
{
    memset(out, 0, sizeof *out);
    const lgvi_node *N = s->buf[s->cur];
    const int K = s->K, dil = s->par.dilatation != 0;
    if (s->steps == 0) {
        double U = 0.0;
        for (int q = 0; q < K; ++q)
            U += element(s, &N[q], &N[q + 1], &s->el[q], s->par.chart, dil, s->par.strains, NULL).U;
        out->elastic = U;
        out->kinetic = out->kinetic_interval = initial_kinetic(s);
        out->energy_time = 0.0;
    } else {
        out->elastic = s->U_last;
        out->kinetic = 0.5 * (s->T_prev + s->T_last);
        out->kinetic_interval = s->T_last;
        out->energy_time = s->t_prev;
    }
    out->total = out->kinetic + out->elastic;
    /* W(t_k) = Σ_{j<k} w_j + ½ w_k pairs with H^k (T averaged over the intervals on both
     * sides of t_k): T^k - T^{k-1} = w_k exactly for the translational part, so
     * H^k - W(t_k) only carries the O(h²) error of the integrator */
    out->work_external = s->work - 0.5 * s->work_last;
    cr_vec3 P = {0, 0, 0}, L = {0, 0, 0};
    double rd = 0.0;
    for (int q = 0; q <= K; ++q) {
        cr_vec3 x = v_load(N[q].x), p = v_load(N[q].p);
        cr_mat3 R = q_matrix(q_load(N[q].q));
        /* Noether: Σ x^k × p^k + R^k μ^k = Σ x^{k+1} × p^k + R^{k+1} ν^k (spec §2.3 updates) */
        P = cr_v3_add(P, p);
        L = cr_v3_add(L, cr_v3_add(cross(x, p), cr_m3_mulv(R, v_load(N[q].nu))));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double a = R.m[0][i] * R.m[0][j] + R.m[1][i] * R.m[1][j] + R.m[2][i] * R.m[2][j] - (i == j);
                if (fabs(a) > rd) rd = fabs(a);
            }
    }
    out->momentum = P;
    out->angular_momentum = L;
    out->rotation_drift = rd;
    double len = 0.0, emin = INFINITY, emax = -INFINITY, vd = 0.0;
    for (int q = 0; q < K; ++q) {
        cr_vec3 d = {N[q + 1].x[0] - N[q].x[0], N[q + 1].x[1] - N[q].x[1], N[q + 1].x[2] - N[q].x[2]};
        double dl = sqrt(dot(d, d)), e = dl * s->el[q].inv_l0;
        len += dl;
        if (e < emin) emin = e;
        if (e > emax) emax = e;
        /* V/V0: modified (A0/e)|Δx| / (A0|Δx0|) = 1 by construction, standard |Δx|/|Δx0| */
        double v = dil ? (1.0 / e) * (dl * s->el[q].inv_l0) : e;
        if (fabs(v - 1.0) > vd) vd = fabs(v - 1.0);
    }
    out->length = len;
    out->dilatation_min = emin;
    out->dilatation_max = emax;
    out->volume_drift = vd;
}

/* ---- stable step ----
 * ω_max² <= Gershgorin bound of the linearised, mass-normalised lumped chain about the
 * straight reference (masses ρA l, rotational inertias ρJ l, halved at the end nodes;
 * element stiffnesses C1/l, C2/l; the shear Γ_i of element q couples u_i of nodes q, q+1
 * with the rotation φ_j (i ≠ j) of the LEFT node q only, spec §2.1):
 *   axial:                 4 EA/(ρA l²)
 *   shear i, interior:     4 GA_i/(ρA l²) + 2 GA_i/(l sqrt(ρA ρJ_j))
 *   bending j, interior:   GA_i/ρJ_j + 4 EI_j/(ρJ_j l²) + 2 GA_i/(l sqrt(ρA ρJ_j))
 *   bending j, free node 0 (half inertia, full shear of element 0: the Demoures asymmetry):
 *                          2 GA_i/ρJ_j + (2+√2) EI_j/(ρJ_j l²) + (2+√2) GA_i/(l sqrt(ρA ρJ_j))
 *   twist:                 4 GJ/(ρJ_3 l²)
 * (the coupling of u_i, stiffness GA_i per node, with φ_j, mass-normalised by √(ρA l ρJ_j l):
 * 1/s² as every row; it was once written with l², too large by 1/l below 1 m elements)
 * Störmer-Verlet is stable for h ω_max < 2, so h_est = SAFETY · 2/ω_bound.
 *
 * SAFETY was determined by bisecting the critical step h_crit (bounded energy over 2 s
 * with all modes seeded; `bench_lgvi --cfl`) for the §5.2 stretching cantilever, the §5.1
 * flying beam, a bent cantilever, a shear-stiff thin rod (GA = 1e6, ρJ = 0.1, the
 * rotational modes dominate) and a soft 1 m cantilever, K = 10 and 100, both models, under
 * their loads: h_crit / (2/ω_bound) ranged from 0.99 (thin clamped rod stretched 12 %: tension
 * raises the shear-rotation stiffness by (1+ε)²) over 1.006-1.08 (axial chain, where the bound
 * is exact; end nodes and compressed elements move it a little) to 1.15 (thin free rod,
 * K = 10). With SAFETY = 0.9, h_crit/h_est lies in [1.10, 1.28]: 0.9 h_est is stable and
 * 3 h_est unstable in every case (test_cfl_estimate checks both on two of them). */
#define LGVI_CFL_SAFETY 0.9

double cr_lgvi_stable_step(const cr_lgvi_params *p)
{
    if (check_params(p, NULL) != CR_OK) return 0.0;
    double l = p->length / p->elements, l2 = l * l, rA = p->rhoA, r2 = sqrt(2.0);
    cr_vec3 J = p->rhoJ, C1 = p->C1, C2 = p->C2;
    double w2 = 4.0 * C1.z / (rA * l2);
    /* an obstacle's contact spring adds k_c/(ρA l) to the diagonal of a node's translational
     * rows (its spring over its mass, the same for the half end nodes: both are halved); added
     * to the largest row, an upper bound whichever row that is */
    double wc2 = p->contact_stiffness > 0 ? p->contact_stiffness / (rA * l) : 0.0;
    /* a self-contact pair's force ε g n is shared by its four nodes with the closest points'
     * weights w = ((1 − s), s, (1 − t), t): its stiffness ε (w wᵀ) ⊗ n nᵀ has the mass-normalised
     * row sum ε |w_i| Σ|w_j| / m_i <= 2 ε/m_i. A node carries the pairs of its two segments,
     * weights adding up to at most 1 each side: 4 ε/(ρA l) with one pair a segment (an end
     * node, half the mass, weight up to 1 in its one segment: the same). A segment pressed by k
     * others at once adds k times that; at the default ε (one element's stiffness) the rod's own
     * waves are faster by orders (docs/lgvi.md "Self-contact"). */
    if (p->self_contact_stiffness > 0) wc2 += 4.0 * p->self_contact_stiffness / (rA * l);
    /* shear along E1 couples with rotation about E2 and vice versa */
    double GA[2] = {C1.x, C1.y}, Jr[2] = {J.y, J.x}, EI[2] = {C2.y, C2.x};
    if (p->strains == CR_LGVI_STRAINS_MIDPOINT) {
        /* Midpoint frame: Γ_i of element q couples u_i of nodes q, q+1 with ½(φ_j,q + φ_j,q+1),
         * symmetric. Interior rows (the coupling entries ±GA/2, mass-normalised by √(ρA l ρJ l)):
         *   shear i:   4 GA_i/(ρA l²) + GA_i/(l √(ρA ρJ_j))
         *   bending j: GA_i/ρJ_j + 4 EI_j/(ρJ_j l²) + GA_i/(l √(ρA ρJ_j))
         * a free end node (half masses, one element), both rows:
         *   shear i:   (2+√2) GA_i/(ρA l²) + (1 + 1/√2) GA_i/(l √(ρA ρJ_j))
         *   bending j: (2+√2)/4 GA_i/ρJ_j + (2+√2) EI_j/(ρJ_j l²) + (1 + 1/√2) GA_i/(l √(ρA ρJ_j))
         * (the coupling rows here are dimensionally l⁻¹, unlike the left frame's l⁻², see below) */
        int free_end = !p->clamp_start || !p->clamp_end;
        for (int i = 0; i < 2; ++i) {
            double cpl = GA[i] / (l * sqrt(rA * Jr[i]));
            double wt = 4.0 * GA[i] / (rA * l2) + cpl;
            double wr = GA[i] / Jr[i] + 4.0 * EI[i] / (Jr[i] * l2) + cpl;
            if (free_end) {
                double wte = (2.0 + r2) * GA[i] / (rA * l2) + (1.0 + 1.0 / r2) * cpl;
                double wre =
                    0.25 * (2.0 + r2) * GA[i] / Jr[i] + (2.0 + r2) * EI[i] / (Jr[i] * l2) + (1.0 + 1.0 / r2) * cpl;
                if (wte > wt) wt = wte;
                if (wre > wr) wr = wre;
            }
            if (wt > w2) w2 = wt;
            if (wr > w2) w2 = wr;
        }
        double wtw = 4.0 * C2.z / (J.z * l2);
        if (wtw > w2) w2 = wtw;
        return LGVI_CFL_SAFETY * 2.0 / sqrt(w2 + wc2);
    }
    for (int i = 0; i < 2; ++i) {
        double cpl = 2.0 * GA[i] / (l * sqrt(rA * Jr[i]));
        double wt = 4.0 * GA[i] / (rA * l2) + cpl;
        double wr = GA[i] / Jr[i] + 4.0 * EI[i] / (Jr[i] * l2) + cpl;
        if (!p->clamp_start) {
            double w0 = 2.0 * GA[i] / Jr[i] + (2.0 + r2) * EI[i] / (Jr[i] * l2) + (2.0 + r2) * 0.5 * cpl;
            if (w0 > wr) wr = w0;
        }
        if (wt > w2) w2 = wt;
        if (wr > w2) w2 = wr;
    }
    double wtw = 4.0 * C2.z / (J.z * l2);
    if (wtw > w2) w2 = wtw;
    return LGVI_CFL_SAFETY * 2.0 / sqrt(w2 + wc2);
}

/* ---- checkpoints ---- */

/* (after the nodes, the clamps' reactions of the last step: a restored state reports its own) */
int cr_lgvi_packed_size(const cr_lgvi *s) { return PACK_HEADER + NODE_DOUBLES * (s->K + 1) + 13; }

static void pack_vecs(const cr_vec3 *v, int n, double *out)
{
    for (int i = 0; i < n; ++i) out[3 * i] = v[i].x, out[3 * i + 1] = v[i].y, out[3 * i + 2] = v[i].z;
}
static void unpack_vecs(cr_vec3 *v, int n, const double *in)
{
    for (int i = 0; i < n; ++i) v[i] = (cr_vec3){in[3 * i], in[3 * i + 1], in[3 * i + 2]};
}

void cr_lgvi_pack(const cr_lgvi *s, double *out)
{
    out[0] = (double)s->steps;
    out[1] = s->work;
    out[2] = s->work_last;
    out[3] = s->T_last;
    out[4] = s->T_prev;
    out[5] = s->U_last;
    out[6] = s->h;
    out[7] = s->t_base;
    out[8] = s->t_prev;
    out[9] = (double)s->steps_base;
    memcpy(out + PACK_HEADER, s->buf[s->cur], sizeof(lgvi_node) * (size_t)(s->K + 1));
    double *r = out + PACK_HEADER + NODE_DOUBLES * (s->K + 1);
    pack_vecs(s->react_f, 2, r), pack_vecs(s->react_m, 2, r + 6);
    r[12] = s->have_react;
}

void cr_lgvi_unpack(cr_lgvi *s, const double *in)
{
    s->steps = (long)in[0];
    s->work = in[1];
    s->work_last = in[2];
    s->T_last = in[3];
    s->T_prev = in[4];
    s->U_last = in[5];
    s->h = s->par.h = in[6];
    s->t_base = in[7];
    s->t_prev = in[8];
    s->steps_base = (long)in[9];
    memcpy(s->buf[s->cur], in + PACK_HEADER, sizeof(lgvi_node) * (size_t)(s->K + 1));
    const double *r = in + PACK_HEADER + NODE_DOUBLES * (s->K + 1);
    unpack_vecs(s->react_f, 2, r), unpack_vecs(s->react_m, 2, r + 6);
    s->have_react = r[12] != 0;
}

/* ---- impulses at a material point of a node (friction at the contact point) ---- */

/* the level-k ε of node q (node_eps from the level-k positions: the pending step's) */
static double level_eps(const cr_lgvi *s, int q)
{
    if (!s->par.dilatation) return 1.0;
    const lgvi_node *O = s->buf[s->cur];
    double e[2] = {1.0, 1.0};
    int n = 0;
    for (int k = q - 1; k <= q; ++k) {
        if (k < 0 || k >= s->K) continue;
        cr_vec3 d = {O[k + 1].x[0] - O[k].x[0], O[k + 1].x[1] - O[k].x[1], O[k + 1].x[2] - O[k].x[2]};
        e[n++] = sqrt(dot(d, d)) * s->el[k].inv_l0;
    }
    return n == 1 ? e[0] : 0.5 * (e[0] + e[1]);
}

cr_vec3 cr_lgvi_pending_point_velocity(const cr_lgvi *s, int node, cr_vec3 X)
{
    const lgvi_node *n = &s->buf[1 - s->cur][node], *o = &s->buf[s->cur][node];
    /* the material point X_b = (R^k)ᵀ X goes to x^{k+1} + R^{k+1} X_b */
    const cr_vec3 Xn = q_rot(q_load(n->q), q_rotT(q_load(o->q), X));
    const double ih = 1.0 / s->h;
    return (cr_vec3){(n->x[0] - o->x[0] + Xn.x - X.x) * ih, (n->x[1] - o->x[1] + Xn.y - X.y) * ih,
                     (n->x[2] - o->x[2] + Xn.z - X.z) * ih};
}

cr_vec3 cr_lgvi_point_tangent_impulse(const cr_lgvi *s, int node, cr_vec3 X, cr_vec3 nrm, cr_vec3 dv)
{
    const lgvi_node *o = &s->buf[s->cur][node];
    const q4 qo = q_load(o->q);
    const double m = cr_lgvi_node_mass(s, node), c = node == 0 || node == s->K ? s->c_end : s->c_int;
    const double ec = level_eps(s, node) / c;
    const cr_vec3 J = s->par.rhoJ;
    /* the mobility W j = j/m + ω(j) × X, ω(j) = (ε/c) R J⁻¹ Rᵀ (X × j) the spin the moment impulse
     * X × j gives (the rotation solve linearised at F = I), restricted to the tangent plane:
     * (P W P + n nᵀ) j = dv_t has j ⊥ n */
    double A[3][3];
    for (int k = 0; k < 3; ++k) {
        const cr_vec3 e = {k == 0, k == 1, k == 2};
        const cr_vec3 et = {e.x - dot(e, nrm) * nrm.x, e.y - dot(e, nrm) * nrm.y, e.z - dot(e, nrm) * nrm.z};
        const cr_vec3 Lb = q_rotT(qo, cross(X, et));
        const cr_vec3 w = q_rot(qo, (cr_vec3){ec * Lb.x / J.x, ec * Lb.y / J.y, ec * Lb.z / J.z});
        cr_vec3 col = cross(w, X);
        col = (cr_vec3){et.x / m + col.x, et.y / m + col.y, et.z / m + col.z};
        const double cn = dot(col, nrm);
        col = (cr_vec3){col.x - cn * nrm.x + dot(e, nrm) * nrm.x, col.y - cn * nrm.y + dot(e, nrm) * nrm.y,
                        col.z - cn * nrm.z + dot(e, nrm) * nrm.z};
        A[0][k] = col.x, A[1][k] = col.y, A[2][k] = col.z;
    }
    const double dn = dot(dv, nrm);
    return solve3(A, (cr_vec3){dv.x - dn * nrm.x, dv.y - dn * nrm.y, dv.z - dn * nrm.z});
}

cr_status cr_lgvi_pending_add_impulse(cr_lgvi *s, int node, cr_vec3 f_node, cr_vec3 c_node, cr_vec3 X, cr_vec3 j)
{
    const double h = s->h;
    cr_lgvi_pending_add_force(s, node, f_node, (cr_vec3){j.x / h, j.y / h, j.z / h});
    lgvi_node *n = &s->buf[1 - s->cur][node];
    const lgvi_node *o = &s->buf[s->cur][node];
    const int chart = s->par.chart;
    const cr_vec3 J = s->par.rhoJ;
    const double c = node == 0 || node == s->K ? s->c_end : s->c_int, eps = level_eps(s, node);
    const q4 qo = q_load(o->q);
    /* μ^k = F^k ν^k of the pending step, plus the moment impulse Rᵀ (X × j) (spec §2.3's h M^k with the
     * moment X × j/h of the force j/h at the point X) */
    const cr_vec3 f0 = v_load(n->f), fold = v_load(o->f), L = q_rotT(qo, cross(X, j));
    double qw, qs;
    chart_quat(chart, f0, &qw, &qs);
    const double T0 = c / (h * h) / eps * 2.0 * qs * qs * (J.x * f0.x * f0.x + J.y * f0.y * f0.y + J.z * f0.z * f0.z);
    cr_vec3 mu = q_rot((q4){qw, qs * f0.x, qs * f0.y, qs * f0.z}, v_load(n->nu));
    mu = (cr_vec3){mu.x + L.x, mu.y + L.y, mu.z + L.z};
    const double gk = h * eps / c;
    const cr_vec3 g = {gk * mu.x, gk * mu.y, gk * mu.z};
    cr_vec3 f = f0;
    if (g.x == 0.0 && g.y == 0.0 && g.z == 0.0)
        f = (cr_vec3){0, 0, 0};
    else if (rot_newton(chart, J, g, &f, NULL, NULL) || !isfinite(f.x + f.y + f.z))
        return CR_NOT_CONVERGED;
    chart_quat(chart, f, &qw, &qs);
    const q4 qF = {qw, qs * f.x, qs * f.y, qs * f.z};
    q4 qn = q_mul(qo, qF);
    const double nn = qn.w * qn.w + qn.x * qn.x + qn.y * qn.y + qn.z * qn.z, sc = 1.5 - 0.5 * nn;
    qn.w *= sc, qn.x *= sc, qn.y *= sc, qn.z *= sc;
    q_store(qn, n->q);
    v_store(q_rotT(qF, mu), n->nu);
    v_store(f, n->f);
    /* the accounts of node_update: the rotational kinetic energy, and the moment loads' work
     * (Rᵀ c)·(f^{k−1} + f^k)/2, now with the moment X × j/h and the new f^k */
    s->pend_T += c / (h * h) / eps * 2.0 * qs * qs * (J.x * f.x * f.x + J.y * f.y * f.y + J.z * f.z * f.z) - T0;
    const cr_vec3 cb = q_rotT(qo, c_node);
    s->pend_W += 0.5 * (dot(cb, (cr_vec3){f.x - f0.x, f.y - f0.y, f.z - f0.z}) +
                        dot(L, (cr_vec3){fold.x + f.x, fold.y + f.y, fold.z + f.z}) / h);
    return CR_OK;
}

void cr_lgvi_external_add_torque(cr_lgvi *s, int node, cr_vec3 c)
{
    /* in the node's kernel body frame (R^k), as c_ext enters ext_update; its work with the loads' */
    const cr_vec3 cb = q_rotT(q_load(s->buf[s->cur][node].q), c);
    s->ext_torque[node] = cr_v3_add(s->ext_torque[node], cb);
    s->ext_cb[node] = cr_v3_add(s->ext_cb[node], cb);
}
