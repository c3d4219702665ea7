/* Dynamics of an assembly of mixed discrete rods (docs/theory.md, "Assemblies").
 *
 * The DAE. Every rod keeps its own index-1 DAE (dynamics.c: q' = B(q)u, M u' = R(q, u, λ),
 * 0 = K_c⁻¹λ − l(q)). A joint j between nodes a and b adds its multipliers μ_j as algebraic
 * unknowns: the wrench Cᵀμ on the two nodes' momentum rows (forces in I, moments in the node
 * bases, as in the statics), and its constraint g(q) = 0 (assembly_joints.c) enters
 * differentiated twice, with Baumgarte's stabilization:
 *
 *     0 = g̈ + 2ω ġ + ω² g = C a + b(q, u) + 2ω C u + ω² g,   a = M⁻¹(R + Cᵀμ)   (J)
 *
 * (a: the accelerations (v̇, Ω̇) of the joint's two nodes, b: the velocity-squared part of g̈,
 * cr_asm_joint_bias; a hinge drive's row also depends on t explicitly: its ġ = C u + g_t and b
 * carries its time terms, with θ(t) set per residual and Jacobian by set_drive). Why this form: the position constraint
 * g = 0 with μ as its multiplier would make the DAE index 3 (μ appears only after differentiating g twice), the
 * velocity form C u = 0 index 2; a compliance 0 = g − εμ would make the joint a spring. (J) contains μ through a with
 * ∂(J)/∂μ = C M⁻¹ Cᵀ, regular whenever the joints' rows are independent (cr_asm_check_redundant): index 1, like the
 * rods' stresses, and the joint stays exact. What is lost is the invariance of g = 0 and ġ = 0 themselves (the
 * integration error would drift them): the 2ωġ + ω²g terms vanish on the exact solution
 * and make any drift decay like a critically damped oscillator of frequency ω. We take
 * ω = √(EA/(L_e m)) of the joint's element and node (the element's own axial frequency):
 * the drift is then as stiff as the rod's fastest waves, which the L-stable method damps
 * within a step, and g stays at the integration error (the tests measure it).
 *
 * The linear solve. The shifted systems E = sM − J of the whole DAE are, rod by rod, the
 * rods' own block-tridiagonal ones (their adaptors: stresses and kinematics condensed, 6×6
 * blocks), bordered by the joints:
 *
 *     [ K_r        −P_r Cᵀ ] [x_r]   [b_r]      P_r: the momentum rows of rod r's joint nodes
 *     [ −G_r       −G_μ    ] [ μ ] = [b_μ]      G_r = ∂(J)/∂y_r, G_μ = C M⁻¹ Cᵀ
 *
 * The mass makes every K_r regular on its own (a rod held only through joints included),
 * so the multipliers are the coupling unknowns: per factorization each rod solves
 * V_r = K_r⁻¹ P_r (six columns per joint node: a unit force or moment component there), the
 * dense Schur complement S = G_μ + Σ G_r V_r Cᵀ (k × k, k the joint rows) is factored by LU,
 * and a solve is u_r = K_r⁻¹b_r, S μ = −(b_μ + Σ G_r u_r), x_r = u_r + V_r Cᵀμ:
 * O(Σ n_r m_r + k³). G_r reads the rows of J at a joint node and its two neighbours
 * (a = M⁻¹R), so G_r u_r and G_r V_r cost O(1) each. A rod whose one joint node is its last
 * node needs V_r only at its last two blocks (cr_blocktri_radau_solve_tail, O(1)) and
 * replaces the update by the back substitutions of K_r⁻¹(P_r Cᵀμ)
 * (cr_blocktri_radau_solve_last).
 *
 * The Jacobian. The rods' blocks are the exact ones of dynamics.c plus the joint's geometric
 * stiffness H = ∂(Cᵀμ)/∂(r, θ) on each node's own momentum rows (assembly_joints.c, exact). Two
 * parts are not exact, which simplified Newton tolerates (Radau IIA needs J only to
 * converge, its result is the DAE's): H's blocks between the two nodes of a joint are
 * left out (they are O(μ), against the rods' O(EI/L_e) rotational stiffness: a relative
 * size of the strain of an element), and the derivatives of (J) with respect to the
 * joint's own two nodes' (r, p, v, Ω) at fixed a are central differences (26 evaluations
 * of a few joint rows per Jacobian, relative accuracy ~1e-10). tests/test_assembly_dynamics.c
 * compares the joint rows' Jacobian with central differences of the whole residual. */
#define _POSIX_C_SOURCE 199309L
#include "assembly/assembly_def.h"
#include "contact/contact.h"
#include "cosserat/assembly.h"
#include "cosserat/dynamics.h"
#include "cosserat/radau.h"
#include "cosserat/statics.h"
#include "linalg/blocktri_shifted.h"
#include "linalg/lowrank.h"
#include "linalg/pool.h"
#include "math/fpmode.h"
#include "mixed/assembly_internal.h"
#include "mixed/assembly_linsys.h"
#include "mixed/mixed.h"
#include "mixed/supports.h"
#include "mixed/terms.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
                    double *b, const int *ldb, int *info);

enum { B = CR_DYN_BLOCK, NB = 3 * CR_DYN_BLOCK };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct asm_dyn;

typedef struct rod_dyn {
    struct asm_dyn *d;
    int r;
    const cr_model *m;
    size_t off, dim; /* the rod's unknowns in the global y: [off, off + dim) */
    cr_blocktri_radau *lin;
    cr_radau_linsys ls;
    double *active, *input, *scale, *F;
    cr_vec3 gravity;
    int m_iface;           /* the rod's joint nodes (interface nodes) */
    const int *iface;      /* their indices into cr_assembly.iface */
    double *V, *Vre, *Vim; /* dim × 6 m_iface each: K⁻¹ P for the real and the complex shift */
    /* the rod's one joint node is its last node: V is needed only at the last two blocks
     * (cr_blocktri_radau_solve_tail), and a solve ends with the rod's response to the joint's
     * load on that node (cr_blocktri_radau_solve_last: the back substitutions only) instead of
     * the update V w; tail_real, tail_cplx: the current factorizations allow it */
    int tail, tail_real, tail_cplx;
    double Vt[2][6 * 2 * CR_DYN_BLOCK]; /* re, im: 6 columns of the last two blocks */
    double *bsave;                      /* 2 dim: scratch for that response (re, im) */
    /* the tail path's solve in two halves (cr_blocktri_radau_solve_open, _close): open, the
     * right side's last two blocks */
    int open;
    double tsave[4 * CR_DYN_BLOCK];
    cr_status st;                       /* a task's status (rod_tasks) */
    double power;                       /* its loads' power (load_power's task) */
} rod_dyn;

/* A free body (assembly_bodies.c): its 13 unknowns (r, p, v, Ω) at off in y, with the DAE
 *     r' = v,  p' = ½ p ⊗ (0, Ω),  m v' = f + Σ Cᵀμ,  Θ Ω' = m − Ω × ΘΩ + Σ Cᵀμ
 * (Θ diagonal in the body's frame: a diagonal mass, as the rods' nodes have). Its block of
 * the shifted systems is dense 13 × 13, factored by LU; like a rod it answers a unit force
 * or moment on itself (V: 6 columns), which is all the Schur complement needs. */
typedef struct body_dyn {
    int iface;
    size_t off;
    double M[13];       /* the DAE's mass of its rows */
    double J[13 * 13];  /* ∂F/∂y of its rows at fixed μ (row-major) */
    double Kr[13 * 13]; /* sM − J, LU (column-major) */
    double Kz[26 * 26]; /* (s_re + i s_im)M − J as the real [[Re, −Im], [Im, Re]], LU */
    int pr[13], pz[26];
    double V[6][13], Vre[6][13], Vim[6][13];
} body_dyn;

typedef struct asm_dyn {
    const cr_assembly *a;
    cr_assembly_state *s;
    int stage;
    double f; /* the closing factor of the welds' rotations and the gaps (constant during the stage) */
    /* per joint: a hinge drive's (θ, θ̇, θ̈) at the time of the last residual or Jacobian (set_drive) */
    double *drive;
    /* per joint: its drive input's ramp (from, to, the rate at from) over [ramp_t0, ramp_t1] (the
     * output interval) */
    double *du, ramp_t0, ramp_t1;
    int continuing; /* a checkpointed stage continued: the drives' ramps are the checkpoint's */
    rod_dyn *rd;
    int nr, ni, k; /* rods, interface nodes, joint rows */
    size_t N, mu_off;
    double *imass;   /* ni × 6: 1/(m, m, m, Θx, Θy, Θz) of the interface nodes */
    /* supports on joint nodes: per interface node, its six momentum rows (v in I, Ω in the
     * node's basis) that a support holds (the row is the support's: 0 = target − y, no wrench
     * there) and their target accelerations at the time of the last residual or Jacobian
     * (set_drive); held[e] = 0 everywhere when none */
    unsigned char *held;
    double *acc0;
    int any_held;
    /* rigid bodies welded to joint nodes (cr_body of the rod): their node's momentum rows hold
     * the accelerations M(q)⁻¹R (dynamics.c, mass 1 there), so a joint's wrench w enters them as
     * M⁻¹w and imass is 1; Tm: per interface node, M⁻¹ (6 × 6 row-major) at the last Jacobian,
     * nbody[e] > 0 when the node has bodies */
    int *nbody;
    double *Tm;
    double *omega;   /* per joint: Baumgarte's ω */
    double *Ct;      /* per joint row (12 each): the wrench on its joint's two nodes per unit multiplier */
    int *row_joint;  /* per joint row: its joint */
    int *adj0, *adj; /* per interface node e: the joints at it, adj[adj0[e] .. adj0[e + 1]) = 2 joint + side */
    /* the Schur complement sparse (k + 6 nb >= cr_asm_sparse_min, assembly_linsys.h): the
     * bodies' wrenches z_b = C_bᵀμ are unknowns beside μ, so that a body with many joints
     * couples them through its 6 columns and rows (an arrowhead) instead of k² entries;
     * its real and complex factorizations, scratch (2 (k + 6 nb)) */
    int sparse;
    cr_asm_sys *sys, *sysz;
    double *xs;
    double *A;      /* ni × 6 × NB: ∂F_u/∂y of interface node e (its block row, columns of nodes e−1, e, e+1) */
    double *G;      /* per joint: 2 sides × rows × NB (at the joint's row offset: k × 2 × NB) */
    double *Gmu;    /* k × k (row-major; dense path only) */
    double *S, *Sz; /* factored Schur complements: k × k and 2k × 2k (column-major) */
    double *tmpS;   /* 2 k × k: the complements before the LU (row-major) */
    int *piv, *pivz;
    double *mu, *muz; /* scratch: 2k */
    double *tmp;      /* scratch: max dim × 2 */
    double *yjac;     /* the global y at the last Jacobian (the rods' Jacobian callback reads μ) */
    double t_jac;
    cr_radau *radau;
    cr_assembly_output_fn on_output;
    cr_asm_dynamic_step_fn on_step;
    void *user;
    int stopped;
    /* the external work of the non-gravity loads (the joints, ideal, do none) up to last_t,
     * the last accepted step's end; ywork: scratch (N) for its quadrature */
    double work, last_t;
    double *ywork;
    /* the joints' dampers' dissipated energy and the drives' work up to last_t */
    double dissipated, work_drives;
    /* integrator memory for checkpoints (NULL: none), and what a resumed run's
     * predecessor contributed to the stage's counters and wall time */
    double *memory;
    double t_stage_start, wall_start, base_wall;
    long base[7];
    int nb; /* free bodies */
    body_dyn *bd;
    double *bactive, *bscale; /* their loads' stage factors and current factors */
    /* contact.rods: the pairs' stiffness between the rods at the last Jacobian (over the whole
     * y, blocks of B: a rod node's block is its global number) and its prepared copies for
     * the real and the complex shifted systems (Woodbury), a scratch residual */
    cr_lowrank *lr, *lr_re, *lr_im;
    double *cscratch;
    cr_pool *pool; /* the rods' threads (NULL: one): see rod_tasks */
} asm_dyn;

/* Layout of the integrator memory (cr_asm_dynamic_memory_size doubles), as one rod's. */
enum {
    AM_VALID,         /* 1: holds an accepted step */
    AM_STAGE,         /* stage index */
    AM_T_STAGE_START, /* the stage's start time */
    AM_T,             /* time of the state it belongs to */
    AM_COUNTERS,      /* steps, rejected, newton_iterations, rhs_evals, jacobians, lu_real, lu_complex */
    AM_WALL = AM_COUNTERS + 7,
    AM_DISSIPATED,  /* the joints' dampers' dissipated energy */
    AM_WORK_DRIVES, /* the joints' drives' work */
    AM_RADAU        /* cr_radau_memory, then the 3N doubles of the collocation polynomial */
};

static const double *node_y(const asm_dyn *d, const double *y, int e)
{
    const cr_asm_iface *f = &d->a->iface[e];
    if (f->rod < 0) return y + d->bd[f->node].off; /* a free body: the same first 13 entries */
    return y + d->rd[f->rod].off + (size_t)f->node * B;
}

/* ---- rigid bodies welded to joint nodes ---- */

/* M⁻¹ of interface node e's momentum rows with its welded bodies (dynamics.c's mass matrix
 * [[m E, −A S~], [S~ Aᵀ, Θ + Σ(Θ_C − m c~ c~)]], S = Σ m_b c_b) at its unknowns ye, row-major
 * into T; 0 when the node has no body (T untouched) */
static int node_minv(const asm_dyn *d, int e, const double *ye, double T[36])
{
    const cr_asm_iface *f = &d->a->iface[e];
    if (f->rod < 0 || !d->nbody[e]) return 0;
    const cr_model *m = d->a->models[f->rod];
    const int i = f->node;
    double mt = m->node_mass[i], M[6][12];
    cr_vec3 S = cr_v3(0, 0, 0);
    cr_mat3 Th = cr_m3_zero();
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        if (b->node != i) continue;
        const cr_mat3 ct = cr_m3_skew(b->offset), cc = cr_m3_mul(ct, ct);
        mt += b->mass, S = cr_v3_madd(S, b->mass, b->offset);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) Th.m[r][c] += b->inertia.m[r][c] - b->mass * cc.m[r][c];
    }
    Th.m[0][0] += m->node_inertia[i].x, Th.m[1][1] += m->node_inertia[i].y, Th.m[2][2] += m->node_inertia[i].z;
    const cr_mat3 AS = cr_m3_mul(cr_q_exp(cr_q_load(ye + 3)), cr_m3_skew(S));
    memset(M, 0, sizeof M);
    for (int r = 0; r < 3; ++r) {
        M[r][r] = mt;
        for (int c = 0; c < 3; ++c) M[r][3 + c] = -AS.m[r][c], M[3 + c][r] = -AS.m[r][c], M[3 + r][3 + c] = Th.m[r][c];
    }
    for (int r = 0; r < 6; ++r) M[r][6 + r] = 1.0;
    for (int k = 0; k < 6; ++k) { /* Gauss–Jordan with partial pivoting (M is positive definite) */
        int p = k;
        for (int r = k + 1; r < 6; ++r)
            if (fabs(M[r][k]) > fabs(M[p][k])) p = r;
        for (int c = 0; c < 12 && p != k; ++c) {
            const double t = M[k][c];
            M[k][c] = M[p][c], M[p][c] = t;
        }
        const double inv = 1.0 / M[k][k];
        for (int c = 0; c < 12; ++c) M[k][c] *= inv;
        for (int r = 0; r < 6; ++r) {
            if (r == k || M[r][k] == 0.0) continue;
            const double fct = M[r][k];
            for (int c = 0; c < 12; ++c) M[r][c] -= fct * M[k][c];
        }
    }
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) T[r * 6 + c] = M[r][6 + c];
    return 1;
}

/* w ← M⁻¹ w on a node with bodies (T from node_minv) */
static void minv_apply(const double T[36], double w[6])
{
    double o[6];
    for (int r = 0; r < 6; ++r) {
        o[r] = 0;
        for (int c = 0; c < 6; ++c) o[r] += T[r * 6 + c] * w[c];
    }
    memcpy(w, o, sizeof o);
}

/* Σ_q,p C_iq M⁻¹_qp C_cp at interface node e (the diagonal M⁻¹ = imass without bodies) */
static double cmc(const asm_dyn *d, int e, const double *ci, const double *cc)
{
    double v = 0;
    if (!d->nbody[e]) {
        for (int q = 0; q < 6; ++q) v += ci[q] * d->imass[6 * e + q] * cc[q];
        return v;
    }
    const double *T = d->Tm + 36 * (size_t)e;
    for (int q = 0; q < 6; ++q)
        for (int p = 0; p < 6; ++p) v += ci[q] * T[q * 6 + p] * cc[p];
    return v;
}

/* ---- free bodies ---- */

static void set_body_scales(asm_dyn *d, double t)
{
    for (int k = 0; k < d->a->body_load_count; ++k)
        d->bscale[k] = d->bactive[k] == 0 ? 0.0 : d->bactive[k] * cr_time_function_eval(&d->a->body_loads[k].time, t);
}

/* body b's rows at its unknowns yb without the joints: v, ½ p ⊗ (0, Ω), f, m − Ω × ΘΩ */
static void body_own(const asm_dyn *d, int b, const double *yb, double *F)
{
    const cr_asm_body *o = &d->a->bodies[b];
    cr_quat p = cr_q_load(yb + 3);
    cr_vec3 w = cr_v3_load(yb + CR_DYN_W);
    for (int c = 0; c < 3; ++c) F[c] = yb[CR_DYN_V + c];
    cr_q_store(cr_q_scale(cr_q_mul(p, cr_q(0, w.x, w.y, w.z)), 0.5), F + 3);
    double wr[6];
    cr_asm_body_wrench(d->a, b, yb, d->bscale, wr, NULL);
    cr_vec3 Jw = cr_m3_mulv(o->inertia, w), gyro = cr_v3_cross(w, Jw);
    for (int c = 0; c < 3; ++c) F[CR_DYN_V + c] = wr[c], F[CR_DYN_W + c] = wr[3 + c] - cr_v3_get(gyro, c);
}

/* body b's rows with its joints' wrenches at the multipliers mu, its own unknowns yb and the
 * other ends' in y */
static void body_rows(const asm_dyn *d, int b, const double *y, const double *yb, const double *mu, double *F)
{
    body_own(d, b, yb, F);
    const int e0 = d->bd[b].iface;
    for (int jk = 0; jk < d->a->joint_count; ++jk) {
        const cr_asm_joint *j = &d->a->joints[jk];
        if (j->iface[0] != e0 && j->iface[1] != e0) continue;
        const double *ya = j->iface[0] == e0 ? yb : node_y(d, y, j->iface[0]);
        const double *yo = j->iface[1] == e0 ? yb : node_y(d, y, j->iface[1]);
        double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
        cr_asm_joint_eval_iface(j, d->f, d->drive + 3 * jk, cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yo),
                                cr_q_load(yo + 3), NULL, g, C, NULL);
        for (int side = 0; side < 2; ++side) {
            if (j->iface[side] != e0) continue;
            for (int c = 0; c < 6; ++c)
                for (int r = 0; r < j->rows; ++r) F[CR_DYN_V + c] += C[r * 12 + 6 * side + c] * mu[j->row0 + r];
        }
    }
}

/* J of body b's rows in its own 13 unknowns at fixed μ and fixed other ends: central
 * differences (13 columns of a few joint evaluations: cheap, and accurate to ~1e-9, which
 * the simplified Newton of Radau IIA tolerates as it does the joints' rows') */
static void body_jacobian(asm_dyn *d, int b, const double *y)
{
    body_dyn *bd = &d->bd[b];
    double yl[13], fp[13], fm[13];
    const double *mu = y + d->mu_off;
    memcpy(yl, y + bd->off, sizeof yl);
    for (int c = 0; c < 13; ++c) {
        const double x0 = yl[c], h = 1e-7 * fmax(fabs(x0), c < 3 ? d->a->scale_length : 1.0);
        yl[c] = x0 + h;
        body_rows(d, b, y, yl, mu, fp);
        yl[c] = x0 - h;
        body_rows(d, b, y, yl, mu, fm);
        yl[c] = x0;
        for (int r = 0; r < 13; ++r) bd->J[r * 13 + c] = (fp[r] - fm[r]) / (2 * h);
    }
}

static cr_status body_factor(body_dyn *bd, double sr, double si, int complex_)
{
    int info = 0;
    if (!complex_) {
        for (int r = 0; r < 13; ++r)
            for (int c = 0; c < 13; ++c) bd->Kr[c * 13 + r] = (r == c ? sr * bd->M[r] : 0.0) - bd->J[r * 13 + c];
        const int n = 13;
        dgetrf_(&n, &n, bd->Kr, &n, bd->pr, &info);
    } else {
        const int n = 26;
        for (int r = 0; r < 13; ++r)
            for (int c = 0; c < 13; ++c) {
                const double re = (r == c ? sr * bd->M[r] : 0.0) - bd->J[r * 13 + c], im = r == c ? si * bd->M[r] : 0.0;
                bd->Kz[c * 26 + r] = re, bd->Kz[(c + 13) * 26 + r + 13] = re;
                bd->Kz[c * 26 + r + 13] = im, bd->Kz[(c + 13) * 26 + r] = -im;
            }
        dgetrf_(&n, &n, bd->Kz, &n, bd->pz, &info);
    }
    return info == 0 ? CR_OK : CR_SINGULAR;
}

static void body_solve(const body_dyn *bd, double *xr, double *xi)
{
    int info = 0, one = 1;
    if (!xi) {
        const int n = 13;
        dgetrs_("N", &n, &one, bd->Kr, &n, bd->pr, xr, &n, &info);
        return;
    }
    double z[26];
    memcpy(z, xr, 13 * sizeof *z), memcpy(z + 13, xi, 13 * sizeof *z);
    const int n = 26;
    dgetrs_("N", &n, &one, bd->Kz, &n, bd->pz, z, &n, &info);
    memcpy(xr, z, 13 * sizeof *z), memcpy(xi, z + 13, 13 * sizeof *z);
}

/* V of body b: its answer to a unit force or moment component on itself */
static void body_response(body_dyn *bd, int complex_)
{
    for (int c6 = 0; c6 < 6; ++c6) {
        double *x = complex_ ? bd->Vre[c6] : bd->V[c6], *xi = complex_ ? bd->Vim[c6] : NULL;
        memset(x, 0, 13 * sizeof *x);
        if (xi) memset(xi, 0, 13 * sizeof *xi);
        x[CR_DYN_V + c6] = 1.0;
        body_solve(bd, x, xi);
    }
}

static void set_scales(rod_dyn *rd, double t)
{
    for (int k = 0; k < rd->m->load_count; ++k)
        rd->scale[k] = rd->active[k] == 0 || rd->input[k] == 0
                           ? 0.0
                           : rd->active[k] * rd->input[k] * cr_time_function_eval(&rd->m->loads[k].time, t);
}

/* The supports on joint nodes at time t: the held momentum rows' target accelerations (a_t, and
 * Ω̇ = A_tᵀ ω̇_t for a turn about a fixed axis, as cr_mixed_dynamic_reaction) */
static void set_supports(asm_dyn *d, double t)
{
    if (!d->any_held) return;
    const cr_assembly *a = d->a;
    const cr_supports_at at = {.stage = d->stage, .ramp = 1.0, .t = t, .from = NULL, .from_blend = 1.0};
    for (int k = 0; k < a->support_count; ++k) {
        const cr_asm_support *sp = &a->supports[k];
        const cr_model *m = a->models[sp->rod];
        if (!cr_support_active(&m->supports[sp->k], d->stage)) continue;
        int rows[13];
        cr_supports_dynamic_held(m, &m->supports[sp->k], &at, sp->k, rows);
        cr_vec3 rt, ac, al;
        cr_quat pt;
        cr_support_target(m, sp->k, &at, &rt, &pt, NULL, NULL, &ac, &al);
        const cr_vec3 aB = cr_m3_tmulv(cr_q_exp(pt), al);
        const double acc[6] = {ac.x, ac.y, ac.z, aB.x, aB.y, aB.z};
        for (int c = 0; c < 6; ++c)
            if (rows[CR_DYN_V + c]) d->acc0[6 * sp->iface + c] = acc[c];
    }
}

/* the accelerations of interface node e: M⁻¹ times its momentum rows Fe, the held ones the
 * support's */
static void node_acc(const asm_dyn *d, int e, const double *Fe, double *acc)
{
    for (int c = 0; c < 6; ++c) acc[c] = d->held[6 * e + c] ? d->acc0[6 * e + c] : Fe[c] * d->imass[6 * e + c];
}

static void set_drive(asm_dyn *d, double t)
{
    set_supports(d, t);
    for (int jk = 0; jk < d->a->joint_count; ++jk) {
        const cr_asm_joint *j = &d->a->joints[jk];
        double *v = d->drive + 3 * jk;
        if (!j->drive && !j->slide_drive) {
            v[0] = v[1] = v[2] = 0.0;
            continue;
        }
        cr_time_function_eval_d(&j->drive_time, t, &v[0], &v[1], &v[2]);
        /* the input u(t) over the output interval [t0, t0 + h]: the cubic Hermite from u0 with rate
         * r0 to u1 with the secant rate (u1 − u0)/h, so u is C¹ across output times (the drive's
         * velocity continuous, its acceleration jumping like a load input); then (f u)' = f' u +
         * f u', (f u)'' = f'' u + 2 f' u' + f u'' */
        double ud, udd;
        const double u = cr_drive_ramp(d->du[3 * jk], d->du[3 * jk + 1], d->du[3 * jk + 2], d->ramp_t0, d->ramp_t1, t,
                                       &ud, &udd);
        v[2] = v[2] * u + 2.0 * v[1] * ud + v[0] * udd, v[1] = v[1] * u + v[0] * ud, v[0] *= u;
        for (int c = 0; c < 3; ++c) v[c] *= j->drive ? j->drive_angle : j->drive_position;
    }
}

static const double *drv(const asm_dyn *d, const cr_asm_joint *j) { return d->drive + 3 * (j - d->a->joints); }

/* Joint j's rows (J) at its two nodes' dynamic unknowns ya, yb (r, p, v, Ω: 13 each) with
 * the accelerations acc (v̇_a, Ω̇_a, v̇_b, Ω̇_b); C (optional, rows × 12) as cr_asm_joint_eval. */
static void joint_rows(const asm_dyn *d, int jk, const double *ya, const double *yb, const double *acc, double *out,
                       double *C)
{
    const cr_asm_joint *j = &d->a->joints[jk];
    double g[CR_ASM_MAX_ROWS], Cl[CR_ASM_MAX_ROWS * 12], bias[CR_ASM_MAX_ROWS], gt[CR_ASM_MAX_ROWS], u[12];
    double *Cm = C ? C : Cl;
    cr_quat pa = cr_q_load(ya + 3), pb = cr_q_load(yb + 3);
    cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(ya), pa, cr_v3_load(yb), pb, NULL, g, Cm, NULL);
    cr_asm_joint_bias_iface(j, d->f, drv(d, j), cr_v3_load(ya), pa, cr_v3_load(ya + CR_DYN_V),
                            cr_v3_load(ya + CR_DYN_W), cr_v3_load(yb), pb, cr_v3_load(yb + CR_DYN_V),
                            cr_v3_load(yb + CR_DYN_W), bias, gt);
    for (int c = 0; c < 6; ++c) u[c] = ya[CR_DYN_V + c], u[6 + c] = yb[CR_DYN_V + c];
    const double w = d->omega[jk];
    for (int r = 0; r < j->rows; ++r) {
        double ca = 0, cu = 0, kr, cr, gk;
        for (int c = 0; c < 12; ++c) ca += Cm[r * 12 + c] * acc[c], cu += Cm[r * 12 + c] * u[c];
        if (cr_asm_row_law(j, d->s, d->stage, r, g[r], &kr, &cr, &gk, NULL)) /* k g + c ġ, + μ by the caller */
            out[r] = kr * gk + cr * cu;
        else
            out[r] = ca + bias[r] + 2.0 * w * (cu + gt[r]) + w * w * g[r];
    }
}

/* The whole residual F(y): the rods' own, the joints' wrenches Cᵀμ on their nodes'
 * momentum rows, and the joints' rows (J). */
/* contact.rods in a dynamic stage: the pairs' penalty forces N = max(0, −ε g) and friction
 * (assembly_contact.c) on the momentum rows of the rods' nodes, the friction's moments about
 * the centrelines on their angular rows (in the node's basis), not on a velocity a support
 * holds (its row is the support's); when lr is given their stiffness as its low-rank term, the
 * held rows dropped (as one rod's self-contact, selfcontact.c) */
static void rods_contact(asm_dyn *d, double t, const double *y, double *F, cr_lowrank *lr)
{
    cr_asm_contact *c = d->a->contact;
    cr_asm_contact_gather_y(c, y, B);
    const int np = cr_asm_contact_find(c, NULL);
    if (lr) cr_lowrank_clear(lr);
    if (np < 0) { /* out of memory: a residual that is not finite stops the step */
        F[CR_DYN_V] = NAN;
        return;
    }
    const int fric = cr_asm_contact_frictional(c);
    for (int k = 0; k < np; ++k) {
        int nodes[4];
        double f[12], K[144], mom[12];
        cr_asm_contact_pair_force_friction(c, k, nodes, f, lr ? K : NULL, mom, NULL);
        for (int q = 0; q < 4; ++q) {
            double *Fq = F + (size_t)nodes[q] * B;
            for (int r = 0; r < 3; ++r) Fq[CR_DYN_V + r] += f[3 * q + r];
            if (!fric) continue;
            const cr_vec3 mb = cr_m3_tmulv(cr_q_exp(cr_q_load(y + (size_t)nodes[q] * B + 3)), cr_v3_load(mom + 3 * q));
            Fq[CR_DYN_W] += mb.x, Fq[CR_DYN_W + 1] += mb.y, Fq[CR_DYN_W + 2] += mb.z;
        }
        if (lr && cr_lowrank_add(lr, nodes, 4, K) != CR_OK) F[CR_DYN_V] = NAN;
    }
    if (np == 0) return;
    const cr_supports_at at = {.stage = d->stage, .ramp = 1.0, .t = t, .from = NULL, .from_blend = 1.0};
    for (int r = 0; r < d->nr; ++r) {
        const cr_model *m = d->rd[r].m;
        const int g0 = (int)(d->rd[r].off / B);
        for (int k = 0; k < m->support_count; ++k) {
            const cr_support *sp = &m->supports[k];
            if (!cr_support_active(sp, d->stage)) continue;
            int rows[13];
            cr_supports_dynamic_held(m, sp, &at, k, rows);
            const int g = g0 + sp->node;
            for (int e = 0; e < 6; ++e) {
                const int row = (e < 3 ? CR_DYN_V : CR_DYN_W - 3) + e;
                if (!rows[row]) continue;
                /* the forces (moments) went in above: take them out of the held row again */
                for (int kk = 0; kk < np; ++kk) {
                    int nodes[4];
                    double f[12], mom[12];
                    cr_asm_contact_pair_force_friction(c, kk, nodes, f, NULL, mom, NULL);
                    for (int q = 0; q < 4; ++q) {
                        if (nodes[q] != g) continue;
                        if (e < 3) {
                            F[(size_t)g * B + row] -= f[3 * q + e];
                        } else if (fric) {
                            const cr_vec3 mb =
                                cr_m3_tmulv(cr_q_exp(cr_q_load(y + (size_t)g * B + 3)), cr_v3_load(mom + 3 * q));
                            F[(size_t)g * B + row] -= cr_v3_get(mb, e - 3);
                        }
                    }
                }
                if (e < 3 && lr && lr->slot[g] >= 0)
                    for (int col = 0; col < 3 * lr->m; ++col)
                        lr->C[(3 * (size_t)lr->slot[g] + e) * 3 * (size_t)lr->cap + col] = 0.0;
            }
        }
    }
}

/* The rods' threads. Each rod's residual, Jacobian, factorizations and solves read the shared
 * data (y, μ, the joints' arrays) and write only the rod's own rod_dyn, adaptor and rows of
 * the global vectors, so they are tasks of the pool; everything that sums over rods (the
 * Schur complement, the multipliers' right side) stays on the caller in the rods' order: the
 * results do not depend on the threads. A task's status is in rd->st, read in the rods'
 * order (the first failing rod's, as the serial loop returned). */
typedef struct rod_job {
    asm_dyn *d;
    double t, sr, si; /* time; the shift (real, imaginary) */
    const double *y, *fy;
    double *re, *im; /* the global vectors written (residual, right sides) */
} rod_job;

static cr_status rod_tasks(asm_dyn *d, cr_pool_fn fn, rod_job *job)
{
    cr_pool_run(d->pool, d->nr, fn, job);
    for (int r = 0; r < d->nr; ++r)
        if (d->rd[r].st != CR_OK) return d->rd[r].st;
    return CR_OK;
}

/* cr_radau_options.parallel: the integrator's chunks of vector work as tasks of the pool */
static void radau_parallel(int tasks, void (*task)(void *arg, int k), void *arg, void *ctx)
{
    cr_pool_run(ctx, tasks, task, arg);
}

static void residual_rod(void *arg, int r)
{
    const rod_job *job = arg;
    rod_dyn *rd = &job->d->rd[r];
    set_scales(rd, job->t);
    cr_supports_at at = {.stage = job->d->stage, .ramp = 1.0, .t = job->t, .from = NULL, .from_blend = 1.0};
    rd->st = cr_mixed_dynamic_residual(rd->m, &at, rd->scale, job->y + rd->off, job->re + rd->off, NULL);
}

static cr_status residual(asm_dyn *d, double t, const double *y, double *F)
{
    const cr_assembly *a = d->a;
    set_drive(d, t);
    rod_job job = {.d = d, .t = t, .y = y, .re = F};
    cr_status st = rod_tasks(d, residual_rod, &job);
    if (st != CR_OK) return st;
    if (a->contact) rods_contact(d, t, y, F, NULL); /* before the joints' rows read the accelerations */
    set_body_scales(d, t);
    for (int b = 0; b < d->nb; ++b) body_own(d, b, y + d->bd[b].off, F + d->bd[b].off); /* joints below */
    const double *mu = y + d->mu_off;
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
        const double *ya = node_y(d, y, j->iface[0]), *yb = node_y(d, y, j->iface[1]);
        cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb),
                                cr_q_load(yb + 3), NULL, g, C, NULL);
        for (int side = 0; side < 2; ++side) {
            const int e = j->iface[side];
            double *Fe = F + (node_y(d, y, e) - y) + CR_DYN_V, w[6] = {0}, T[36];
            for (int c = 0; c < 6; ++c) {
                if (d->held[6 * e + c]) continue; /* the support's row: its reaction takes it */
                for (int r = 0; r < j->rows; ++r) w[c] += C[r * 12 + 6 * side + c] * mu[j->row0 + r];
            }
            if (node_minv(d, e, node_y(d, y, e), T)) minv_apply(T, w); /* rows of accelerations */
            for (int c = 0; c < 6; ++c) Fe[c] += w[c];
        }
    }
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        double acc[12];
        for (int side = 0; side < 2; ++side) {
            int e = j->iface[side];
            node_acc(d, e, F + (node_y(d, y, e) - y) + CR_DYN_V, acc + 6 * side);
        }
        joint_rows(d, jk, node_y(d, y, j->iface[0]), node_y(d, y, j->iface[1]), acc, F + d->mu_off + j->row0, NULL);
        for (int r = 0; r < j->rows; ++r) /* a compliant row: 0 = k g + c ġ + μ */
            if (cr_asm_row_compliant(j, d->stage, r, NULL, NULL)) F[d->mu_off + j->row0 + r] += mu[j->row0 + r];
    }
    for (size_t k = d->mu_off; k < d->N; ++k)
        if (!isfinite(F[k])) return CR_NONFINITE;
    return CR_OK;
}

static cr_status rhs(double t, const double *y, double *f, void *user) { return residual(user, t, y, f); }

/* A rod's Jacobian (the rod adaptor's callback): dynamics.c's, plus the joints' geometric
 * stiffness on the rod's joint nodes' own moment rows (in the quaternion's columns:
 * ∂/∂p = ∂/∂θ dExp(p)). */
static cr_status rod_jacobian(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    (void)fy;
    rod_dyn *rd = user;
    asm_dyn *d = rd->d;
    set_scales(rd, t);
    cr_supports_at at = {.stage = d->stage, .ramp = 1.0, .t = t, .from = NULL, .from_blend = 1.0};
    cr_status st = cr_mixed_dynamic_residual(rd->m, &at, rd->scale, y, rd->F, J);
    if (st != CR_OK) return st;
    const cr_assembly *a = d->a;
    const double *mu = d->yjac + d->mu_off;
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        if (j->type == CR_JOINT_BALL && !j->springs) continue; /* r_b − r_a only: no geometric stiffness */
        if (a->iface[j->iface[0]].rod != rd->r && a->iface[j->iface[1]].rod != rd->r) continue;
        const double *ya = node_y(d, d->yjac, j->iface[0]), *yb = node_y(d, d->yjac, j->iface[1]);
        double g[CR_ASM_MAX_ROWS], H[144];
        cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb),
                                cr_q_load(yb + 3), mu + j->row0, g, NULL, H);
        for (int side = 0; side < 2; ++side) {
            const cr_asm_iface *f = &a->iface[j->iface[side]];
            if (f->rod != rd->r) continue;
            double dE[3][4], *D = cr_blocktri_D(J, f->node), Hb[6][7] = {{0}};
            const unsigned char *hd = d->held + 6 * j->iface[side]; /* a support's rows: not the wrench's */
            cr_q_dexp_matrix(cr_q_load(y + (size_t)f->node * B + 3), dE);
            /* the wrench's rows (force, moment) in the node's position and quaternion columns */
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c)
                    for (int k = 0; k < 3; ++k)
                        Hb[3 + r][3 + c] += H[(6 * side + 3 + r) * 12 + 6 * side + 3 + k] * dE[k][c];
            if (j->pos_rows != 3) /* a slider's force turns with a's node and its moment grows with the slide */
                for (int r = 0; r < 3; ++r) {
                    for (int c = 0; c < 4; ++c)
                        for (int k = 0; k < 3; ++k)
                            Hb[r][3 + c] += H[(6 * side + r) * 12 + 6 * side + 3 + k] * dE[k][c];
                    for (int c = 0; c < 3; ++c) Hb[3 + r][c] += H[(6 * side + 3 + r) * 12 + 6 * side + c];
                }
            const double *T = d->nbody[j->iface[side]] ? d->Tm + 36 * (size_t)j->iface[side] : NULL;
            for (int r = 0; r < 6; ++r) {
                if (hd[r]) continue;
                for (int c = 0; c < 7; ++c) {
                    double v = 0; /* a node with bodies: its rows are M⁻¹ times the wrench's */
                    if (T)
                        for (int k = 0; k < 6; ++k) v += T[r * 6 + k] * Hb[k][c];
                    else
                        v = Hb[r][c];
                    D[(CR_DYN_V + r) * B + c] += v;
                }
            }
        }
    }
    return CR_OK;
}

/* ---- the linear-algebra hooks of the whole system ---- */

/* C's entry of joint row i on component q of interface node e (0 when its joint is not there) */
static double ct(const asm_dyn *d, int e, int q, int i)
{
    const cr_asm_joint *j = &d->a->joints[d->row_joint[i]];
    double v = 0;
    for (int side = 0; side < 2; ++side)
        if (j->iface[side] == e) v += d->Ct[(size_t)i * 12 + 6 * side + q];
    return v;
}

/* The wrench C_eᵀμ on interface node e (and of mi when wi), over the joints at e in the rows'
 * order */
static void wrench(const asm_dyn *d, int e, const double *mr, const double *mi, double wr[6], double wi[6])
{
    for (int q = 0; q < 6; ++q) wr[q] = 0.0, wi[q] = 0.0;
    for (int t = d->adj0[e]; t < d->adj0[e + 1]; ++t) {
        const cr_asm_joint *j = &d->a->joints[d->adj[t] / 2];
        const int side = d->adj[t] % 2;
        for (int r = 0; r < j->rows; ++r) {
            const int c = j->row0 + r;
            for (int q = 0; q < 6; ++q) {
                const double v = d->Ct[(size_t)c * 12 + 6 * side + q];
                wr[q] += v * mr[c];
                if (mi) wi[q] += v * mi[c];
            }
        }
    }
}

/* G_μ's entry (i, c) = Σ_e C_e,i M_e⁻¹ C_e,c over the interface nodes of row i's joint (a
 * compliant row: the identity row) */
static double gmu(const asm_dyn *d, int i, int c)
{
    const cr_asm_joint *j = &d->a->joints[d->row_joint[i]];
    if (cr_asm_row_compliant(j, d->stage, i - j->row0, NULL, NULL)) return c == i;
    const cr_asm_joint *jc = &d->a->joints[d->row_joint[c]];
    int es[2] = {j->iface[0], j->iface[1]};
    if (es[1] < es[0]) es[0] = j->iface[1], es[1] = j->iface[0];
    double v = 0;
    for (int t = 0; t < 2; ++t) { /* in the nodes' order, as a sum over all of them */
        const int e = es[t];
        if ((t == 1 && e == es[0]) || (jc->iface[0] != e && jc->iface[1] != e)) continue;
        double ci[6], cc[6];
        for (int q = 0; q < 6; ++q) ci[q] = ct(d, e, q, i), cc[q] = ct(d, e, q, c);
        v += cmc(d, e, ci, cc);
    }
    return v;
}

/* C of every joint at the state y (into d->Ct) */
static void joints_c(asm_dyn *d, const double *y)
{
    const cr_assembly *a = d->a;
    memset(d->Ct, 0, (size_t)d->k * 12 * sizeof *d->Ct);
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        const double *ya = node_y(d, y, j->iface[0]), *yb = node_y(d, y, j->iface[1]);
        double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
        cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb),
                                cr_q_load(yb + 3), NULL, g, C, NULL);
        /* a support's held directions take no part: no wrench, and no acceleration that μ moves */
        for (int side = 0; side < 2; ++side)
            for (int c = 0; c < 6; ++c)
                for (int r = 0; r < j->rows && !d->held[6 * j->iface[side] + c]; ++r)
                    d->Ct[(size_t)(j->row0 + r) * 12 + 6 * side + c] += C[r * 12 + 6 * side + c];
    }
}

static void jacobian_rod(void *arg, int r)
{
    const rod_job *job = arg;
    rod_dyn *rd = &job->d->rd[r];
    rd->st = rd->ls.jacobian(job->t, job->y + rd->off, job->fy + rd->off, rd->ls.ctx);
}

static cr_status hook_jacobian(double t, const double *y, const double *fy, void *ctx)
{
    asm_dyn *d = ctx;
    const cr_assembly *a = d->a;
    memcpy(d->yjac, y, d->N * sizeof *y);
    d->t_jac = t;
    set_drive(d, t);
    for (int e = 0; e < d->ni; ++e) node_minv(d, e, node_y(d, y, e), d->Tm + 36 * (size_t)e); /* bodies' nodes */
    rod_job job = {.d = d, .t = t, .y = y, .fy = fy};
    cr_status st = rod_tasks(d, jacobian_rod, &job);
    if (st != CR_OK) return st;
    set_body_scales(d, t);
    for (int b = 0; b < d->nb; ++b) body_jacobian(d, b, y);
    /* the joint nodes' momentum rows of J (with H): a = M⁻¹(R + Cᵀμ) varies with them */
    for (int e = 0; e < d->ni; ++e) {
        const cr_asm_iface *f = &a->iface[e];
        double *Ae = d->A + (size_t)e * 6 * NB;
        if (f->rod < 0) { /* a body: its own 13 columns, in the middle block */
            memset(Ae, 0, (size_t)6 * NB * sizeof *Ae);
            for (int row = 0; row < 6; ++row)
                for (int c = 0; c < 13; ++c) Ae[row * NB + B + c] = d->bd[f->node].J[(CR_DYN_V + row) * 13 + c];
            continue;
        }
        cr_blocktri *J = d->rd[f->rod].lin->J;
        for (int b = 0; b < 3; ++b) {
            int nb = f->node - 1 + b;
            const int ok = nb >= 0 && nb < J->n;
            const double *blk = !ok      ? NULL
                                : b == 0 ? cr_blocktri_L(J, f->node)
                                : b == 1 ? cr_blocktri_D(J, f->node)
                                         : cr_blocktri_U(J, f->node);
            for (int row = 0; row < 6; ++row)
                for (int c = 0; c < B; ++c) Ae[row * NB + b * B + c] = ok ? blk[(CR_DYN_V + row) * B + c] : 0.0;
        }
    }
    /* C of every joint (Ct), G_μ (dense path; the sparse one assembles it) and G */
    joints_c(d, y);
    for (int i = 0; i < d->k && !d->sparse; ++i)
        for (int c = 0; c < d->k; ++c) d->Gmu[(size_t)i * d->k + c] = gmu(d, i, c);
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        double *Gj = d->G + (size_t)j->row0 * 2 * NB;
        memset(Gj, 0, (size_t)j->rows * 2 * NB * sizeof *Gj);
        double acc[12], yl[2][13];
        for (int side = 0; side < 2; ++side) {
            int e = j->iface[side];
            node_acc(d, e, fy + (node_y(d, y, e) - y) + CR_DYN_V, acc + 6 * side);
            memcpy(yl[side], node_y(d, y, e), 13 * sizeof(double));
        }
        /* through a: C M⁻¹ (the rows of J at the node) */
        for (int side = 0; side < 2; ++side) {
            int e = j->iface[side];
            const double *Ae = d->A + (size_t)e * 6 * NB;
            for (int r = 0; r < j->rows; ++r) {
                if (cr_asm_row_compliant(j, d->stage, r, NULL, NULL)) continue; /* no a in a compliant row */
                double *g = Gj + ((size_t)r * 2 + side) * NB;
                for (int q = 0; q < 6; ++q) {
                    double w = ct(d, e, q, j->row0 + r) * d->imass[6 * e + q];
                    if (w != 0.0)
                        for (int c = 0; c < NB; ++c) g[c] += w * Ae[q * NB + c];
                }
            }
        }
        /* the joint's own geometric stiffness between its two nodes, through a: the rods'
         * rows leave it out (see the top), the joint's rows need not */
        if (j->type != CR_JOINT_BALL || j->springs) {
            double g[CR_ASM_MAX_ROWS], H[144], dE[2][3][4];
            cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(yl[0]), cr_q_load(yl[0] + 3), cr_v3_load(yl[1]),
                                    cr_q_load(yl[1] + 3), y + d->mu_off + j->row0, g, NULL, H);
            for (int side = 0; side < 2; ++side) cr_q_dexp_matrix(cr_q_load(yl[side] + 3), dE[side]);
            for (int side = 0; side < 2; ++side) {
                const int o = 1 - side, e = j->iface[side];
                /* the wrench on e in the other node's rotation (and, for a slider, its
                 * force in a's rotation and a's moment in b's position) */
                for (int r = 0; r < j->rows; ++r)
                    for (int q = 0; q < 6; ++q) {
                        if (cr_asm_row_compliant(j, d->stage, r, NULL, NULL)) break;
                        double w = ct(d, e, q, j->row0 + r) * d->imass[6 * e + q];
                        if (w == 0.0) continue;
                        for (int c = 0; c < 4; ++c) {
                            double v = 0;
                            for (int kk = 0; kk < 3; ++kk) v += H[(6 * side + q) * 12 + 6 * o + 3 + kk] * dE[o][kk][c];
                            Gj[((size_t)r * 2 + o) * NB + B + 3 + c] += w * v;
                        }
                        for (int c = 0; c < 3; ++c)
                            Gj[((size_t)r * 2 + o) * NB + B + c] += w * H[(6 * side + q) * 12 + 6 * o + c];
                    }
            }
        }
        /* at fixed a: central differences in the two nodes' (r, p, v, Ω) */
        const double scale_r = d->a->scale_length;
        for (int side = 0; side < 2; ++side)
            for (int c = 0; c < 13; ++c) {
                double x0 = yl[side][c], base = c < 3 ? scale_r : c < 7 ? 1.0 : 1.0;
                double h = 1e-6 * fmax(fabs(x0), base), fp[CR_ASM_MAX_ROWS], fm[CR_ASM_MAX_ROWS];
                yl[side][c] = x0 + h;
                joint_rows(d, jk, yl[0], yl[1], acc, fp, NULL);
                yl[side][c] = x0 - h;
                joint_rows(d, jk, yl[0], yl[1], acc, fm, NULL);
                yl[side][c] = x0;
                for (int r = 0; r < j->rows; ++r) Gj[((size_t)r * 2 + side) * NB + B + c] += (fp[r] - fm[r]) / (2 * h);
            }
    }
    return CR_OK;
}

/* G_i x over the nodes around joint row i's two nodes (x: a global vector, or a rod's W
 * column when `col` >= 0 — then only the sides on that rod). */
static double g_dot(const asm_dyn *d, int row, int jk, const double *x, int rod_only, const double *xrod, int first)
{
    const cr_asm_joint *j = &d->a->joints[jk];
    const double *Gj = d->G + (size_t)row * 2 * NB;
    double v = 0;
    for (int side = 0; side < 2; ++side) {
        const cr_asm_iface *f = &d->a->iface[j->iface[side]];
        if (rod_only >= 0 && f->rod != rod_only) continue;
        if (f->rod < 0) { /* a body: its 13 unknowns in the middle block */
            const double *g = Gj + (size_t)side * NB + B, *xv = x + d->bd[f->node].off;
            for (int c = 0; c < 13; ++c) v += g[c] * xv[c];
            continue;
        }
        const rod_dyn *rd = &d->rd[f->rod];
        const double *g = Gj + (size_t)side * NB;
        for (int b = 0; b < 3; ++b) {
            int nb = f->node - 1 + b;
            if (nb < 0 || nb >= rd->m->nodes) continue;
            const double *xv = rod_only >= 0 ? xrod + (size_t)(nb - first) * B : x + rd->off + (size_t)nb * B;
            for (int c = 0; c < B; ++c) v += g[b * B + c] * xv[c];
        }
    }
    return v;
}

static int joint_of_row(const cr_assembly *a, int row)
{
    int jk = 0;
    while (jk + 1 < a->joint_count && a->joints[jk + 1].row0 <= row) ++jk;
    return jk;
}

/* V_r: the rod's response K_r⁻¹ P_r to a unit force or moment component on each of its
 * joint nodes (6 columns per joint node, whatever the number of joints there) */
static cr_status response_columns(const asm_dyn *d, rod_dyn *rd, double *Vr, double *Vi)
{
    if (rd->tail) {
        int *on = Vi ? &rd->tail_cplx : &rd->tail_real;
        *on = 1;
        for (int c = 0; c < 6 && *on; ++c) {
            double *x = rd->Vt[0] + 2 * B * c, *xi = rd->Vt[1] + 2 * B * c;
            memset(x, 0, 2 * B * sizeof *x), memset(xi, 0, 2 * B * sizeof *xi);
            x[B + CR_DYN_V + c] = 1.0;
            if (d->nbody[rd->iface[0]]) /* a unit wrench on a body's node: M⁻¹ e_c on its rows */
                for (int q = 0; q < 6; ++q) x[B + CR_DYN_V + q] = d->Tm[36 * (size_t)rd->iface[0] + q * 6 + c];
            cr_status st = cr_blocktri_radau_solve_tail(rd->lin, Vi != NULL, x, xi);
            if (st == CR_UNSUPPORTED)
                *on = 0; /* a factorization outside the 6×6 path: the full columns */
            else if (st != CR_OK)
                return st;
        }
        if (*on) return CR_OK;
    }
    for (int q = 0; q < rd->m_iface; ++q) {
        const int n = d->a->iface[rd->iface[q]].node;
        for (int c = 0; c < 6; ++c) {
            double *x = Vr + rd->dim * (6 * q + c);
            memset(x, 0, rd->dim * sizeof *x);
            x[(size_t)n * B + CR_DYN_V + c] = 1.0;
            if (d->nbody[rd->iface[q]]) /* a unit wrench on a body's node: M⁻¹ e_c on its rows */
                for (int p = 0; p < 6; ++p)
                    x[(size_t)n * B + CR_DYN_V + p] = d->Tm[36 * (size_t)rd->iface[q] + p * 6 + c];
            cr_status st;
            if (Vi) {
                double *xi = Vi + rd->dim * (6 * q + c);
                memset(xi, 0, rd->dim * sizeof *xi);
                st = rd->ls.solve_complex(x, xi, rd->ls.ctx);
            } else
                st = rd->ls.solve_real(x, rd->ls.ctx);
            if (st != CR_OK) return st;
        }
    }
    return CR_OK;
}

/* Where a row of the Schur complement goes: the dense one's row (re, and im when complex),
 * or row i of the sparse system */
typedef struct schur_row {
    double *re, *im;
    cr_asm_sys *sys;
    int i;
} schur_row;

static inline void add_dense(schur_row *dst, int c, double re, double im)
{
    dst->re[c] += re;
    if (dst->im) dst->im[c] += im;
}

static inline void add_sparse(schur_row *dst, int c, double re, double im)
{
    cr_asm_sys_add_complex(dst->sys, dst->i, c, re, im);
}

/* Row i of Σ_r G_r V_r Cᵀ over the rods on joint row i's sides, for the dense Schur
 * complement and the sparse one alike: G_r V_r is O(1) per column (G reads three node blocks;
 * the tail path's V has the last two only), spread over the multipliers c of every joint at
 * the column's node by Cᵀ; each nonzero goes to add(dst, c, re, im) (im 0 when real). Static
 * inline with a constant `add`, so each caller gets its own loop. */
static inline void rods_schur_row(const asm_dyn *d, int i, int complex_, void (*add)(schur_row *, int, double, double),
                                  schur_row *dst)
{
    const int jk = d->row_joint[i];
    const cr_asm_joint *j = &d->a->joints[jk];
    int r0 = d->a->iface[j->iface[0]].rod, r1 = d->a->iface[j->iface[1]].rod;
    if (r0 < 0) r0 = r1, r1 = -1; /* the rods among the two sides */
    if (r1 < 0) r1 = r0;
    for (int pass = 0; r0 >= 0 && pass < (r1 != r0 ? 2 : 1); ++pass) {
        const rod_dyn *rd = &d->rd[pass ? r1 : r0];
        for (int q = 0; q < rd->m_iface; ++q) {
            const int e = rd->iface[q];
            for (int c6 = 0; c6 < 6; ++c6) {
                const size_t col = rd->dim * (6 * q + c6);
                const int tail = complex_ ? rd->tail_cplx : rd->tail_real, first = tail ? rd->m->nodes - 2 : 0;
                const double *vr = tail ? rd->Vt[0] + 2 * B * c6 : (complex_ ? rd->Vre : rd->V) + col;
                const double *vi = tail ? rd->Vt[1] + 2 * B * c6 : rd->Vim + col;
                const double gr = g_dot(d, i, jk, NULL, rd->r, vr, first);
                const double gi = complex_ ? g_dot(d, i, jk, NULL, rd->r, vi, first) : 0.0;
                for (int t = d->adj0[e]; t < d->adj0[e + 1]; ++t) {
                    const cr_asm_joint *jc = &d->a->joints[d->adj[t] / 2];
                    for (int c = jc->row0; c < jc->row0 + jc->rows; ++c) {
                        const double v = d->Ct[(size_t)c * 12 + 6 * (d->adj[t] % 2) + c6];
                        if (v != 0.0) add(dst, c, gr * v, gi * v);
                    }
                }
            }
        }
    }
}

/* S = G_μ + Σ_r G_r V_r Cᵀ (re) and Σ G_r V_r,im Cᵀ (im, when Vi): G_r V_r is O(1) per
 * column (G reads three node blocks) */
static void schur(asm_dyn *d, int complex_, double *Sre, double *Sim)
{
    const int k = d->k;
    for (int i = 0; i < k; ++i) {
        const int jk = d->row_joint[i];
        const cr_asm_joint *j = &d->a->joints[jk];
        for (int c = 0; c < k; ++c) Sre[(size_t)i * k + c] = d->Gmu[(size_t)i * k + c];
        if (complex_)
            for (int c = 0; c < k; ++c) Sim[(size_t)i * k + c] = 0.0;
        for (int side = 0; side < 2; ++side) { /* a body side: its six V columns */
            const cr_asm_iface *f = &d->a->iface[j->iface[side]];
            if (f->rod >= 0) continue;
            const body_dyn *bd = &d->bd[f->node];
            const double *g = d->G + ((size_t)i * 2 + side) * NB + B;
            for (int c6 = 0; c6 < 6; ++c6) {
                double gr = 0, gi = 0;
                for (int q = 0; q < 13; ++q)
                    gr += g[q] * (complex_ ? bd->Vre[c6][q] : bd->V[c6][q]),
                        gi += complex_ ? g[q] * bd->Vim[c6][q] : 0.0;
                for (int t = d->adj0[bd->iface]; t < d->adj0[bd->iface + 1]; ++t) {
                    const cr_asm_joint *jc = &d->a->joints[d->adj[t] / 2];
                    for (int c = jc->row0; c < jc->row0 + jc->rows; ++c) {
                        const double v = d->Ct[(size_t)c * 12 + 6 * (d->adj[t] % 2) + c6];
                        if (v == 0.0) continue;
                        Sre[(size_t)i * k + c] += gr * v;
                        if (complex_) Sim[(size_t)i * k + c] += gi * v;
                    }
                }
            }
        }
        schur_row dst = {.re = Sre + (size_t)i * k, .im = complex_ ? Sim + (size_t)i * k : NULL};
        rods_schur_row(d, i, complex_, add_dense, &dst);
    }
}

/* x_r += V_r (Cᵀμ) over the rod's joint nodes (complex when xi, Vi) */
static cr_status add_response(const asm_dyn *d, rod_dyn *rd, const double *mr, const double *mi, double *xr,
                              double *xi)
{
    if (rd->open) { /* x = K⁻¹(b + P Cᵀμ): the second half of solve_rod's */
        const int e = rd->iface[0];
        double zr[B] = {0}, zi[B] = {0}, wr[6], wi[6];
        wrench(d, e, mr, mi, wr, wi);
        if (d->nbody[e]) minv_apply(d->Tm + 36 * (size_t)e, wr), minv_apply(d->Tm + 36 * (size_t)e, wi);
        for (int c6 = 0; c6 < 6; ++c6) zr[CR_DYN_V + c6] = wr[c6], zi[CR_DYN_V + c6] = wi[c6];
        rd->open = 0;
        return cr_blocktri_radau_solve_close(rd->lin, xi != NULL, xr, xi, rd->tsave, zr, zi);
    }
    if (xi ? rd->tail_cplx : rd->tail_real) { /* x += K⁻¹(P Cᵀμ): a load on the last node only */
        const int e = rd->iface[0];
        double *zr = rd->bsave, *zi = rd->bsave + rd->dim;
        /* zero where the solve reads: the stresses' rows (the expansion) and the last block */
        for (int i = 0; i + 1 < rd->m->nodes; ++i)
            for (int c = CR_DYN_LAM; c < B; ++c) {
                zr[(size_t)i * B + c] = 0.0;
                if (xi) zi[(size_t)i * B + c] = 0.0;
            }
        memset(zr + rd->dim - B, 0, B * sizeof *zr);
        if (xi) memset(zi + rd->dim - B, 0, B * sizeof *zi);
        double wr[6], wi[6];
        wrench(d, e, mr, mi, wr, wi);
        if (d->nbody[e]) minv_apply(d->Tm + 36 * (size_t)e, wr), minv_apply(d->Tm + 36 * (size_t)e, wi);
        for (int c6 = 0; c6 < 6; ++c6) {
            const size_t at = (size_t)d->a->iface[e].node * B + CR_DYN_V + c6;
            zr[at] = wr[c6];
            if (xi) zi[at] = wi[c6];
        }
        cr_status st = cr_blocktri_radau_solve_last(rd->lin, xi != NULL, zr, zi);
        if (st != CR_OK) return st;
        for (size_t t = 0; t < rd->dim; ++t) xr[t] += zr[t];
        if (xi)
            for (size_t t = 0; t < rd->dim; ++t) xi[t] += zi[t];
        return CR_OK;
    }
    for (int q = 0; q < rd->m_iface; ++q) {
        const int e = rd->iface[q];
        double w6r[6], w6i[6];
        wrench(d, e, mr, mi, w6r, w6i);
        for (int c6 = 0; c6 < 6; ++c6) {
            const double wr = w6r[c6], wi = w6i[c6];
            const size_t col = rd->dim * (6 * q + c6);
            if (!xi) {
                if (wr == 0.0) continue;
                const double *v = rd->V + col;
                for (size_t t = 0; t < rd->dim; ++t) xr[t] += v[t] * wr;
            } else {
                const double *vr = rd->Vre + col, *vi = rd->Vim + col;
                for (size_t t = 0; t < rd->dim; ++t) {
                    xr[t] += vr[t] * wr - vi[t] * wi;
                    xi[t] += vr[t] * wi + vi[t] * wr;
                }
            }
        }
    }
    return CR_OK;
}

/* x_b += V_b (Cᵀμ) for every body (complex when xi) */
static void add_body_response(const asm_dyn *d, const double *mr, const double *mi, double *xr, double *xi)
{
    for (int b = 0; b < d->nb; ++b) {
        const body_dyn *bd = &d->bd[b];
        double w6r[6], w6i[6];
        wrench(d, bd->iface, mr, mi, w6r, w6i);
        for (int c6 = 0; c6 < 6; ++c6) {
            const double wr = w6r[c6], wi = w6i[c6];
            for (int q = 0; q < 13; ++q) {
                if (!xi)
                    xr[bd->off + q] += bd->V[c6][q] * wr;
                else {
                    xr[bd->off + q] += bd->Vre[c6][q] * wr - bd->Vim[c6][q] * wi;
                    xi[bd->off + q] += bd->Vre[c6][q] * wi + bd->Vim[c6][q] * wr;
                }
            }
        }
    }
}

/* The sparse path: the Schur complement with the bodies' wrenches z_b = C_bᵀμ as unknowns,
 *     [ S_rods   W ] [μ]   [r]      S_rods: G_μ and Σ G_r V_r Cᵀ through the rods' nodes
 *     [ −C_b     I ] [z] = [0]      W: the body's part of G_μ (C M_b⁻¹) and G_b V_b
 * (equal to S μ = r with z substituted), assembled into sys (complex: the real and imaginary
 * parts) and factored; `schur_terms` 0: G_μ alone (the consistent initial multipliers). */
static cr_status sparse_schur(asm_dyn *d, int complex_, int schur_terms)
{
    const cr_assembly *a = d->a;
    const int k = d->k;
    cr_asm_sys *sys = complex_ ? d->sysz : d->sys;
    if (!cr_asm_sys_begin_sparse(sys, k + 6 * d->nb, complex_)) return CR_NO_MEMORY;
    for (int i = 0; i < k; ++i) {
        const int jk = d->row_joint[i];
        const cr_asm_joint *j = &a->joints[jk];
        if (cr_asm_row_compliant(j, d->stage, i - j->row0, NULL, NULL))
            cr_asm_sys_add_complex(sys, i, i, 1.0, 0.0);
        else
            for (int side = 0; side < 2; ++side) { /* G_μ */
                const int e = j->iface[side];
                if (side == 1 && e == j->iface[0]) continue;
                if (a->iface[e].rod < 0) {
                    const int col = k + 6 * a->iface[e].node;
                    for (int q = 0; q < 6; ++q)
                        cr_asm_sys_add_complex(sys, i, col + q, ct(d, e, q, i) * d->imass[6 * e + q], 0.0);
                    continue;
                }
                for (int t = d->adj0[e]; t < d->adj0[e + 1]; ++t) {
                    const cr_asm_joint *jc = &a->joints[d->adj[t] / 2];
                    for (int c = jc->row0; c < jc->row0 + jc->rows; ++c) {
                        double ci[6];
                        for (int q = 0; q < 6; ++q) ci[q] = ct(d, e, q, i);
                        cr_asm_sys_add_complex(sys, i, c, cmc(d, e, ci, d->Ct + (size_t)c * 12 + 6 * (d->adj[t] % 2)),
                                               0.0);
                    }
                }
            }
        if (!schur_terms) continue;
        for (int side = 0; side < 2; ++side) { /* G_b V_b: on z_b */
            const cr_asm_iface *f = &a->iface[j->iface[side]];
            if (f->rod >= 0) continue;
            const body_dyn *bd = &d->bd[f->node];
            const double *g = d->G + ((size_t)i * 2 + side) * NB + B;
            for (int c6 = 0; c6 < 6; ++c6) {
                double gr = 0, gi = 0;
                for (int q = 0; q < 13; ++q)
                    gr += g[q] * (complex_ ? bd->Vre[c6][q] : bd->V[c6][q]),
                        gi += complex_ ? g[q] * bd->Vim[c6][q] : 0.0;
                cr_asm_sys_add_complex(sys, i, k + 6 * f->node + c6, gr, gi);
            }
        }
        schur_row dst = {.sys = sys, .i = i};
        rods_schur_row(d, i, complex_, add_sparse, &dst); /* G_r V_r Cᵀ */
    }
    for (int b = 0; b < d->nb; ++b) { /* z_b − C_bᵀμ = 0 */
        const int e = d->bd[b].iface;
        for (int q = 0; q < 6; ++q) {
            const int row = k + 6 * b + q;
            cr_asm_sys_add_complex(sys, row, row, 1.0, 0.0);
            for (int t = d->adj0[e]; t < d->adj0[e + 1]; ++t) {
                const cr_asm_joint *jc = &a->joints[d->adj[t] / 2];
                for (int c = jc->row0; c < jc->row0 + jc->rows; ++c)
                    cr_asm_sys_add_complex(sys, row, c, -d->Ct[(size_t)c * 12 + 6 * (d->adj[t] % 2) + q], 0.0);
            }
        }
    }
    const int bad = cr_asm_sys_factor(sys);
    return bad == -2 ? CR_NO_MEMORY : bad >= 0 ? CR_SINGULAR : CR_OK;
}

/* μ from the right sides r (re, and im when mi): the sparse system solved, z rows zero */
static cr_status sparse_mu(asm_dyn *d, double *mr, double *mi)
{
    const int k = d->k, n = k + 6 * d->nb;
    if (!mi) {
        memcpy(d->xs, mr, (size_t)k * sizeof *mr);
        memset(d->xs + k, 0, (size_t)(n - k) * sizeof *mr);
    } else
        for (int i = 0; i < n; ++i) d->xs[2 * i] = i < k ? mr[i] : 0.0, d->xs[2 * i + 1] = i < k ? mi[i] : 0.0;
    if (cr_asm_sys_solve_factored(mi ? d->sysz : d->sys, d->xs) != -1) return CR_NO_MEMORY;
    for (int i = 0; i < k; ++i) {
        if (!mi)
            mr[i] = d->xs[i];
        else
            mr[i] = d->xs[2 * i], mi[i] = d->xs[2 * i + 1];
    }
    return CR_OK;
}

/* a rod's factorization and its responses V_r (real: job->sr; complex: sr + i si) */
static void factor_rod_real(void *arg, int r)
{
    const rod_job *job = arg;
    rod_dyn *rd = &job->d->rd[r];
    rd->st = rd->ls.factor_real(job->sr, rd->ls.ctx);
    if (rd->st == CR_OK && job->d->k > 0) rd->st = response_columns(job->d, rd, rd->V, NULL);
}

static void factor_rod_complex(void *arg, int r)
{
    const rod_job *job = arg;
    rod_dyn *rd = &job->d->rd[r];
    rd->st = rd->ls.factor_complex(job->sr, job->si, rd->ls.ctx);
    if (rd->st == CR_OK && job->d->k > 0) rd->st = response_columns(job->d, rd, rd->Vre, rd->Vim);
}

/* a rod's solve K_r⁻¹ b_r (in place; complex when job->im) */
static void solve_rod(void *arg, int r)
{
    const rod_job *job = arg;
    rod_dyn *rd = &job->d->rd[r];
    rd->open = 0;
    /* the tail path: the solve's forward half now, its back substitutions with the joint's load
     * (add_response): one solve instead of a solve and the response's own back substitutions */
    if (job->d->k > 0 && (job->im ? rd->tail_cplx : rd->tail_real)) {
        rd->st = cr_blocktri_radau_solve_open(rd->lin, job->im != NULL, job->re + rd->off,
                                              job->im ? job->im + rd->off : NULL, rd->tsave);
        if (rd->st != CR_UNSUPPORTED) {
            rd->open = rd->st == CR_OK;
            return;
        }
    }
    rd->st = job->im ? rd->ls.solve_complex(job->re + rd->off, job->im + rd->off, rd->ls.ctx)
                     : rd->ls.solve_real(job->re + rd->off, rd->ls.ctx);
}

/* a rod's update x_r += V_r Cᵀμ (μ: d->mu, or d->muz when complex) */
static void response_rod(void *arg, int r)
{
    const rod_job *job = arg;
    asm_dyn *d = job->d;
    rod_dyn *rd = &d->rd[r];
    rd->st = job->im ? add_response(d, rd, d->muz, d->muz + d->k, job->re + rd->off, job->im + rd->off)
                     : add_response(d, rd, d->mu, NULL, job->re + rd->off, NULL);
}

static cr_status hook_factor_real(double shift, void *ctx)
{
    asm_dyn *d = ctx;
    const int k = d->k;
    rod_job job = {.d = d, .sr = shift};
    cr_status st = rod_tasks(d, factor_rod_real, &job);
    if (st != CR_OK) return st;
    for (int b = 0; b < d->nb; ++b) {
        if (body_factor(&d->bd[b], shift, 0, 0) != CR_OK) return CR_SINGULAR;
        body_response(&d->bd[b], 0);
    }
    if (k == 0) return CR_OK;
    if (d->sparse) return sparse_schur(d, 0, 1);
    schur(d, 0, d->tmpS, NULL);
    for (int i = 0; i < k; ++i) /* column-major for LAPACK */
        for (int c = 0; c < k; ++c) d->S[(size_t)c * k + i] = d->tmpS[(size_t)i * k + c];
    int info = 0;
    dgetrf_(&k, &k, d->S, &k, d->piv, &info);
    return info == 0 ? CR_OK : CR_SINGULAR;
}

static cr_status hook_solve_real(double *b, void *ctx)
{
    asm_dyn *d = ctx;
    const int k = d->k;
    rod_job job = {.d = d, .re = b};
    cr_status st = rod_tasks(d, solve_rod, &job);
    if (st != CR_OK) return st;
    for (int q = 0; q < d->nb; ++q) body_solve(&d->bd[q], b + d->bd[q].off, NULL);
    if (k == 0) return CR_OK;
    for (int i = 0; i < k; ++i) d->mu[i] = -(b[d->mu_off + i] + g_dot(d, i, d->row_joint[i], b, -1, NULL, 0));
    if (d->sparse) {
        if ((st = sparse_mu(d, d->mu, NULL)) != CR_OK) return st;
    } else {
        int info = 0, one = 1;
        dgetrs_("N", &k, &one, d->S, &k, d->piv, d->mu, &k, &info);
    }
    if ((st = rod_tasks(d, response_rod, &job)) != CR_OK) return st;
    add_body_response(d, d->mu, NULL, b, NULL);
    memcpy(b + d->mu_off, d->mu, (size_t)k * sizeof *b);
    return CR_OK;
}

static cr_status hook_factor_complex(double sr, double si, void *ctx)
{
    asm_dyn *d = ctx;
    const int k = d->k, k2 = 2 * k;
    rod_job job = {.d = d, .sr = sr, .si = si};
    cr_status st = rod_tasks(d, factor_rod_complex, &job);
    if (st != CR_OK) return st;
    for (int b = 0; b < d->nb; ++b) {
        if (body_factor(&d->bd[b], sr, si, 1) != CR_OK) return CR_SINGULAR;
        body_response(&d->bd[b], 1);
    }
    if (k == 0) return CR_OK;
    if (d->sparse) return sparse_schur(d, 1, 1);
    /* S complex, as the real 2k system [[S_re, −S_im], [S_im, S_re]] */
    schur(d, 1, d->tmpS, d->tmpS + (size_t)k * k);
    for (int i = 0; i < k; ++i)
        for (int c = 0; c < k; ++c) {
            const double vr = d->tmpS[(size_t)i * k + c], vi = d->tmpS[(size_t)k * k + (size_t)i * k + c];
            d->Sz[(size_t)c * k2 + i] = vr, d->Sz[(size_t)(c + k) * k2 + i + k] = vr;
            d->Sz[(size_t)c * k2 + i + k] = vi, d->Sz[(size_t)(c + k) * k2 + i] = -vi;
        }
    int info = 0;
    dgetrf_(&k2, &k2, d->Sz, &k2, d->pivz, &info);
    return info == 0 ? CR_OK : CR_SINGULAR;
}

static cr_status hook_solve_complex(double *bre, double *bim, void *ctx)
{
    asm_dyn *d = ctx;
    const int k = d->k, k2 = 2 * k;
    rod_job job = {.d = d, .re = bre, .im = bim};
    cr_status st = rod_tasks(d, solve_rod, &job);
    if (st != CR_OK) return st;
    for (int q = 0; q < d->nb; ++q) body_solve(&d->bd[q], bre + d->bd[q].off, bim + d->bd[q].off);
    if (k == 0) return CR_OK;
    for (int i = 0; i < k; ++i) {
        int jk = d->row_joint[i];
        d->muz[i] = -(bre[d->mu_off + i] + g_dot(d, i, jk, bre, -1, NULL, 0));
        d->muz[i + k] = -(bim[d->mu_off + i] + g_dot(d, i, jk, bim, -1, NULL, 0));
    }
    if (d->sparse) {
        if ((st = sparse_mu(d, d->muz, d->muz + k)) != CR_OK) return st;
    } else {
        int info = 0, one = 1;
        dgetrs_("N", &k2, &one, d->Sz, &k2, d->pivz, d->muz, &k2, &info);
    }
    if ((st = rod_tasks(d, response_rod, &job)) != CR_OK) return st;
    add_body_response(d, d->muz, d->muz + k, bre, bim);
    for (int i = 0; i < k; ++i) bre[d->mu_off + i] = d->muz[i], bim[d->mu_off + i] = d->muz[i + k];
    return CR_OK;
}

/* ---- state, outputs, steps ---- */

/* contact.rods: the shifted systems with the pairs' coupling between the rods, sM − (J + U C Vᵀ),
 * by Woodbury (linalg/lowrank.h) around the assembly's own solves: the real and the complex
 * system each keep their prepared correction of the last Jacobian's C (σ = −1) */
static void inner_real(void *ctx, double *v) { hook_solve_real(v, ctx); }
static void inner_complex(void *ctx, double *re, double *im) { hook_solve_complex(re, im, ctx); }

static cr_status rc_jacobian(double t, const double *y, const double *fy, void *ctx)
{
    asm_dyn *d = ctx;
    cr_status st = hook_jacobian(t, y, fy, ctx);
    if (st != CR_OK) return st;
    memset(d->cscratch, 0, (size_t)d->lr->n * B * sizeof *d->cscratch);
    rods_contact(d, t, y, d->cscratch, d->lr);
    if (!isfinite(d->cscratch[CR_DYN_V])) return CR_NO_MEMORY;
    st = cr_lowrank_copy(d->lr_re, d->lr);
    return st == CR_OK ? cr_lowrank_copy(d->lr_im, d->lr) : st;
}

static cr_status rc_factor_real(double shift, void *ctx)
{
    asm_dyn *d = ctx;
    cr_status st = hook_factor_real(shift, ctx);
    return st == CR_OK ? cr_lowrank_prepare(d->lr_re, -1.0, inner_real, ctx) : st;
}

static cr_status rc_solve_real(double *b, void *ctx)
{
    asm_dyn *d = ctx;
    cr_status st = hook_solve_real(b, ctx);
    if (st == CR_OK) cr_lowrank_apply(d->lr_re, b);
    return st;
}

static cr_status rc_factor_complex(double sr, double si, void *ctx)
{
    asm_dyn *d = ctx;
    cr_status st = hook_factor_complex(sr, si, ctx);
    return st == CR_OK ? cr_lowrank_prepare_complex(d->lr_im, -1.0, inner_complex, ctx) : st;
}

static cr_status rc_solve_complex(double *re, double *im, void *ctx)
{
    asm_dyn *d = ctx;
    cr_status st = hook_solve_complex(re, im, ctx);
    if (st == CR_OK) cr_lowrank_apply_complex(d->lr_im, re, im);
    return st;
}

static void unpack(asm_dyn *d, const double *y, double t)
{
    for (int r = 0; r < d->nr; ++r) {
        const rod_dyn *rd = &d->rd[r];
        const cr_model *m = rd->m;
        cr_state *s = d->s->rods[r];
        for (int i = 0; i < m->nodes; ++i) {
            const double *yi = y + rd->off + (size_t)i * B;
            for (int c = 0; c < CR_NODE_DOF; ++c) s->x[(size_t)i * m->block + c] = yi[c];
            for (int c = 0; c < 6; ++c) s->velocity[6 * (size_t)i + c] = yi[CR_DYN_V + c];
            if (i < m->n)
                for (int c = 0; c < 6; ++c) s->stress[6 * (size_t)i + c] = yi[CR_DYN_LAM + c];
        }
        s->time = t;
    }
    memcpy(d->s->lambda, y + d->mu_off, (size_t)d->k * sizeof *y);
    for (int b = 0; b < d->nb; ++b) memcpy(d->s->body + (size_t)CR_ASM_BODY_DOF * b, y + d->bd[b].off, 13 * sizeof *y);
}

/* A rod's part of load_power, in rd->power (a task of the pool) */
static void power_rod(void *arg, int r)
{
    const rod_job *job = arg;
    rod_dyn *rd = &job->d->rd[r];
    const cr_model *m = rd->m;
    rd->power = 0;
    set_scales(rd, job->t);
    int any = 0;
    for (int k = 0; k < m->load_count; ++k) {
        if (m->loads[k].type == CR_LOAD_GRAVITY && m->loads[k].time.type == CR_TIME_CONSTANT) rd->scale[k] = 0.0;
        any |= rd->scale[k] != 0;
    }
    if (!any) return;
    const cr_layout ly = cr_layout_dynamic();
    const double *yr = job->y + rd->off;
    memset(rd->F, 0, rd->dim * sizeof *rd->F);
    cr_term_loads(m, &ly, rd->scale, yr, rd->F, NULL);
    for (int i = 0; i < m->nodes; ++i)
        for (int k = 0; k < 6; ++k) rd->power += rd->F[(size_t)i * B + CR_DYN_V + k] * yr[(size_t)i * B + CR_DYN_V + k];
}

/* Power of the non-gravity loads of every rod, Σ f·v + μ·Ω (constant gravity is in the
 * potential; gravity with a time function does work), as one rod's (dynamics_solve.c).
 * The rods' parts are summed in their order, whatever the threads. */
static double load_power(asm_dyn *d, double t, const double *y)
{
    rod_job job = {.d = d, .t = t, .y = y};
    cr_pool_run(d->pool, d->nr, power_rod, &job);
    double P = 0;
    for (int r = 0; r < d->nr; ++r) P += d->rd[r].power;
    set_body_scales(d, t);
    for (int k = 0; k < d->a->body_load_count; ++k) /* constant gravity: in the potential */
        if (d->a->body_loads[k].type == CR_LOAD_GRAVITY && d->a->body_loads[k].time.type == CR_TIME_CONSTANT)
            d->bscale[k] = 0.0;
    for (int b = 0; b < d->nb; ++b) {
        const double *yb = y + d->bd[b].off;
        double w[6];
        cr_asm_body_wrench(d->a, b, yb, d->bscale, w, NULL);
        for (int k = 0; k < 6; ++k) P += w[k] * yb[CR_DYN_V + k];
    }
    return P;
}

/* The work of the loads from the last accepted step (last_t) to t within the step being
 * accepted, on its collocation polynomial with the integrator's order: at the step's end the
 * Radau IIA quadrature h Σ b_j P(Y_j) on its stage values, inside it (output times) 3-point
 * Gauss–Legendre over [last_t, t] (as one rod's dissipated energy, dynamics_solve.c). The
 * trapezoid on the steps' ends would be second order only: its error, ~h³P''/12 per step,
 * showed in the energy balance of a driven double pendulum as 1e-4 of the work done. */
/* The joints' power at y: pw[0] the dampers' dissipation Σ c ġ², pw[1] the drives' power
 * μ·(C u) (their rows' wrench on the moving nodes). With *elastic (optional): the springs'
 * energy Σ ½ k g². Joints that do not act in the stage count nothing. */
static void joint_power(const asm_dyn *d, const double *y, double pw[2], double *elastic)
{
    pw[0] = pw[1] = 0.0;
    if (elastic) *elastic = 0.0;
    for (int jk = 0; jk < d->a->joint_count; ++jk) {
        const cr_asm_joint *j = &d->a->joints[jk];
        if (!cr_asm_joint_active(j, d->stage) || (!j->springs && !j->drive && !j->slide_drive)) continue;
        const double *ya = node_y(d, y, j->iface[0]), *yb = node_y(d, y, j->iface[1]);
        double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12], u[12];
        cr_asm_joint_eval(j, d->f, drv(d, j), cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb), cr_q_load(yb + 3),
                          NULL, g, C, NULL);
        for (int c = 0; c < 6; ++c) u[c] = ya[CR_DYN_V + c], u[6 + c] = yb[CR_DYN_V + c];
        for (int r = 0; r < j->rows; ++r) {
            double kr, cr, cu = 0, gk;
            const int drive_row =
                (j->drive && r == j->pos_rows + 2) || (j->slide_drive && r == j->rows - j->springs - 1);
            const int comp = cr_asm_row_law(j, d->s, d->stage, r, g[r], &kr, &cr, &gk, NULL);
            if (!comp && !drive_row) continue;
            for (int c = 0; c < 12; ++c) cu += C[r * 12 + c] * u[c];
            if (comp) { /* a limit row: its penalty spring's ½ ε penetration² */
                pw[0] += cr * cu * cu;
                if (elastic) *elastic += 0.5 * kr * gk * gk;
            } else {
                pw[1] += y[d->mu_off + j->row0 + r] * cu;
            }
        }
    }
}

static double work_to(asm_dyn *d, double t, int step_end, double jw[2])
{
    const double h = t - d->last_t;
    jw[0] = jw[1] = 0.0;
    if (!(h > 0)) return 0.0;
    const cr_radau_tableau *tab = cr_radau_get_tableau(d->radau);
    static const double gx[3] = {0.11270166537925831148, 0.5, 0.88729833462074168852}; /* (1 ∓ √(3/5))/2, 1/2 */
    static const double gw[3] = {5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0};
    double W = 0;
    for (int j = 0; j < 3; ++j) {
        const double tj = d->last_t + (step_end ? tab->c[j] : gx[j]) * h;
        if (cr_radau_interpolate(d->radau, tj, d->ywork, NULL) != CR_OK) return 0.0;
        const double wq = step_end ? tab->b[j] : gw[j];
        W += wq * load_power(d, tj, d->ywork);
        double pw[2];
        set_drive(d, tj);
        joint_power(d, d->ywork, pw, NULL);
        jw[0] += h * wq * pw[0], jw[1] += h * wq * pw[1];
    }
    return h * W;
}

int cr_asm_obstacles(const cr_assembly *a)
{
    for (int r = 0; r < a->rod_count; ++r)
        if (a->models[r]->contact) return 1;
    return 0;
}

/* series.csv's contact columns with obstacles (assembly_formulation.c, series_extra), as one
 * rod's over all the rods: touching nodes, sliding ones, the sum of the normal forces (N),
 * the largest penetration (m); 4, or 0 without obstacles */
static int contact_columns(const asm_dyn *d, double t, const double *y, double *out)
{
    if (!cr_asm_obstacles(d->a)) return 0;
    out[0] = out[1] = out[2] = out[3] = 0.0;
    for (int r = 0; r < d->nr; ++r) {
        cr_contact *c = d->rd[r].m->contact;
        if (!c) continue;
        cr_contact_totals ct;
        cr_contact_set_time(c, t);
        cr_contact_totals_at(c, y + d->rd[r].off, B, &ct);
        out[0] += ct.active, out[1] += ct.slipping, out[2] += ct.normal, out[3] = fmax(out[3], ct.penetration);
    }
    return 4;
}

/* No step may carry a node of any rod through a thin obstacle (dynamics_solve.c) */
static double contact_step_limit(double t, const double *y, void *user)
{
    const asm_dyn *d = user;
    double h = INFINITY;
    for (int r = 0; r < d->nr; ++r)
        if (d->rd[r].m->contact)
            h = fmin(h, cr_contact_step_limit(d->rd[r].m->contact, t, y + d->rd[r].off, B, CR_DYN_V));
    return h;
}

/* After each accepted step: the rods' contact pairs stick or slide, their anchors follow
 * (cr_contact_dynamic_step) */
static void contact_step(const asm_dyn *d, double t, const double *y)
{
    if (d->a->contact && cr_asm_contact_frictional(d->a->contact)) { /* contact.rods' friction likewise */
        cr_asm_contact_gather_y(d->a->contact, y, B);
        cr_asm_contact_dynamic_step(d->a->contact); /* (out of memory: the anchors stay) */
    }
    for (int r = 0; r < d->nr; ++r) {
        cr_contact *c = d->rd[r].m->contact;
        if (c) cr_contact_set_time(c, t), cr_contact_dynamic_step(c, y + d->rd[r].off, B);
    }
}

/* The limits at y: how many stops press, and the largest magnitude of their forces (N m or N). */
static void limit_columns(const asm_dyn *d, const double *y, double *pressing, double *force)
{
    *pressing = 0, *force = 0;
    for (int jk = 0; jk < d->a->joint_count; ++jk) {
        const cr_asm_joint *j = &d->a->joints[jk];
        int any = 0;
        for (int q = 0; q < j->springs; ++q) any |= cr_asm_is_limit_kind(j->spring_kind[q]);
        if (!any || !cr_asm_joint_active(j, d->stage)) continue;
        const double *ya = node_y(d, y, j->iface[0]), *yb = node_y(d, y, j->iface[1]);
        double g[CR_ASM_MAX_ROWS], k;
        cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb),
                                cr_q_load(yb + 3), NULL, g, NULL, NULL);
        for (int q = 0; q < j->springs; ++q) {
            const int r = j->rows - j->springs + q;
            if (!cr_asm_is_limit_kind(j->spring_kind[q])) continue;
            cr_asm_row_law(j, d->s, d->stage, r, g[r], &k, NULL, NULL, NULL);
            if (k > 0) *pressing += 1, *force = fmax(*force, fabs(y[d->mu_off + j->row0 + r]));
        }
    }
}

static int output(double t, const double *y, void *user)
{
    asm_dyn *d = user;
    if (!d->on_output) return 0;
    /* the work up to t (t lies inside the step being accepted) */
    double jw[2], pw[2], spring = 0.0;
    cr_dynamic_sample smp = {.t = t, .work_external = d->work + work_to(d, t, 0, jw)};
    set_drive(d, t);
    joint_power(d, y, pw, &spring);
    smp.elastic = spring;
    if (cr_asm_joint_columns(d->a)) { /* series.csv's joint columns (assembly_formulation.c, series_extra) */
        smp.extra_count = 2;
        smp.extra[0] = d->dissipated + jw[0], smp.extra[1] = d->work_drives + jw[1];
    }
    if (cr_asm_joint_columns(d->a) && cr_asm_has_limits(d->a)) { /* the stops pressing, the largest stop force */
        limit_columns(d, y, &smp.extra[smp.extra_count], &smp.extra[smp.extra_count + 1]);
        smp.extra_count += 2;
    }
    smp.extra_count += contact_columns(d, t, y, smp.extra + smp.extra_count);
    if (d->a->contact) { /* contact.rods: the pairs pressing, the smallest gap between the rods (m) */
        cr_asm_contact_gather_y(d->a->contact, y, B);
        smp.extra[smp.extra_count] = cr_asm_contact_find(d->a->contact, NULL);
        smp.extra[smp.extra_count + 1] = cr_asm_contact_min_gap(d->a->contact, NULL, NULL);
        smp.extra_count += 2;
    }
    for (int r = 0; r < d->nr; ++r) {
        double T, U, V;
        cr_vec3 P, L;
        cr_mixed_dynamic_observables(d->rd[r].m, y + d->rd[r].off, d->rd[r].gravity, NULL, &T, &U, &V, &P, &L);
        smp.kinetic += T, smp.elastic += U, smp.gravity += V;
        smp.momentum = cr_v3_add(smp.momentum, P), smp.angular_momentum = cr_v3_add(smp.angular_momentum, L);
    }
    for (int b = 0; b < d->nb; ++b) { /* a body: ½ m v² + ½ ΩᵀΘΩ, −m g·r, m v, r × m v + A Θ Ω */
        const cr_asm_body *o = &d->a->bodies[b];
        const double *yb = y + d->bd[b].off;
        cr_vec3 r = cr_v3_load(yb), v = cr_v3_load(yb + CR_DYN_V), w = cr_v3_load(yb + CR_DYN_W);
        cr_vec3 Jw = cr_m3_mulv(o->inertia, w), P = cr_v3_scale(v, o->mass);
        smp.kinetic += 0.5 * o->mass * cr_v3_dot(v, v) + 0.5 * cr_v3_dot(w, Jw);
        for (int k = 0; k < d->a->body_load_count; ++k) {
            const cr_load_def *l = &d->a->body_loads[k];
            if (l->type == CR_LOAD_GRAVITY && l->time.type == CR_TIME_CONSTANT && d->bactive[k] != 0)
                smp.gravity -= d->bactive[k] * o->mass * cr_v3_dot(l->value, r);
        }
        smp.momentum = cr_v3_add(smp.momentum, P);
        smp.angular_momentum =
            cr_v3_add(smp.angular_momentum, cr_v3_add(cr_v3_cross(r, P), cr_m3_mulv(cr_q_exp(cr_q_load(yb + 3)), Jw)));
    }
    unpack(d, y, t);
    int stop = d->on_output(d->a, d->s, &smp, d->user);
    if (stop) d->stopped = 1;
    if (stop && d->memory) /* the checkpoint holds this output's state: its joints' work to t, for the run
                              continued from it (the integrator's memory stays its last step's) */
        d->memory[AM_DISSIPATED] = d->dissipated + jw[0], d->memory[AM_WORK_DRIVES] = d->work_drives + jw[1];
    return stop;
}

int cr_asm_joint_columns(const cr_assembly *a)
{
    for (int k = 0; k < a->joint_count; ++k)
        if (a->joints[k].springs || a->joints[k].drive || a->joints[k].slide_drive) return 1;
    return 0;
}

/* The counters of the whole stage: this run's plus the resumed run's. */
static void stage_counters(const asm_dyn *d, long out[7])
{
    cr_radau_stats rs = cr_radau_get_stats(d->radau);
    long now_[7] = {rs.steps, rs.rejected, rs.newton_iterations, rs.rhs_evals, rs.jac_evals, rs.lu_real, rs.lu_complex};
    for (int k = 0; k < 7; ++k) out[k] = d->base[k] + now_[k];
}

/* After every accepted step: the quaternions renormalized, the external work accumulated,
 * the integrator memory saved, and the caller told (progress, checkpoints, stop), as for
 * one rod. */
/* a rod's quaternions renormalized (a task of the pool; job->re: y) */
static void renormalize_rod(void *arg, int r)
{
    const rod_job *job = arg;
    const rod_dyn *rd = &job->d->rd[r];
    for (int i = 0; i < rd->m->nodes; ++i) {
        double *p = job->re + rd->off + (size_t)i * B + 3;
        double s = 1.0 / sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
        for (int c = 0; c < 4; ++c) p[c] *= s;
    }
}

static int step_done(double t, double *y, void *user)
{
    asm_dyn *d = user;
    rod_job job = {.d = d, .re = y};
    cr_pool_run(d->pool, d->nr, renormalize_rod, &job);
    for (int b = 0; b < d->nb; ++b) {
        double *p = y + d->bd[b].off + 3;
        double s = 1.0 / sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
        for (int c = 0; c < 4; ++c) p[c] *= s;
    }
    contact_step(d, t, y);
    double jw[2];
    d->work += work_to(d, t, 1, jw);
    d->dissipated += jw[0], d->work_drives += jw[1];
    d->last_t = t;
    if (cr_asm_has_limits(d->a)) { /* the limits' unwrapping about this step's angle; a released preload dropped */
        unpack(d, y, t);
        cr_asm_limits_accept(d->a, d->s, 1);
    }
    long cnt[7];
    stage_counters(d, cnt);
    if (d->memory) {
        double *mem = d->memory;
        mem[AM_VALID] = 1.0, mem[AM_STAGE] = d->stage, mem[AM_T_STAGE_START] = d->t_stage_start, mem[AM_T] = t;
        for (int k = 0; k < 7; ++k) mem[AM_COUNTERS + k] = (double)cnt[k];
        mem[AM_WALL] = d->base_wall + (now() - d->wall_start);
        mem[AM_DISSIPATED] = d->dissipated, mem[AM_WORK_DRIVES] = d->work_drives;
        cr_radau_memory rm;
        cr_radau_get_memory(d->radau, &rm, mem + AM_RADAU + CR_RADAU_MEMORY_DOUBLES);
        memcpy(mem + AM_RADAU, &rm, sizeof rm);
    }
    if (!d->on_step) return 0;
    unpack(d, y, t);
    int stop = d->on_step(d->a, d->s, cr_radau_h(d->radau), cnt[0], d->work, d->user);
    if (stop) d->stopped = 1;
    return stop;
}

/* The joint limits' step bound (the radau step_limit): the stop's force has a kink where it
 * engages and lets go (at φ = lo + λ̂⁺/ε, hi − λ̂⁻/ε), which the error estimate does not see: a
 * step across it at speed unresolved added 1e-4 of the impact's energy at a bounce (measured,
 * rtol 1e-9: tests/test_assembly_dynamics.c). So a step moving the measure φ toward a kink
 * covers at most half the distance to it (its rate φ̇ = C u at the step's start): the steps
 * shrink geometrically onto the kink and cross it with a step of at most 1e-5 of the stage's
 * time so far (a hundred times the integrator's floor, radau.h h_min_rel), whose error across
 * the kink, ~ (ε/I) φ̇ h³, is then far below the tolerance. */
static double limit_step_limit(double t, const double *y, void *user)
{
    const asm_dyn *d = user;
    const double h_skip = 1e-5 * (t - d->t_stage_start);
    double h = INFINITY;
    for (int jk = 0; jk < d->a->joint_count; ++jk) {
        const cr_asm_joint *j = &d->a->joints[jk];
        if (!cr_asm_joint_active(j, d->stage)) continue;
        int any = 0;
        for (int q = 0; q < j->springs; ++q) any |= cr_asm_is_limit_kind(j->spring_kind[q]);
        if (!any) continue;
        const double *ya = node_y(d, y, j->iface[0]), *yb = node_y(d, y, j->iface[1]);
        double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
        cr_asm_joint_eval_iface(j, d->f, drv(d, j), cr_v3_load(ya), cr_q_load(ya + 3), cr_v3_load(yb),
                                cr_q_load(yb + 3), NULL, g, C, NULL);
        for (int q = 0; q < j->springs; ++q) {
            if (!cr_asm_is_limit_kind(j->spring_kind[q])) continue;
            const int r = j->rows - j->springs + q, row = j->row0 + r;
            double ph, rate = 0;
            cr_asm_row_law(j, d->s, d->stage, r, g[r], NULL, NULL, NULL, &ph);
            for (int c = 0; c < 6; ++c) rate += C[r * 12 + c] * ya[CR_DYN_V + c] + C[r * 12 + 6 + c] * yb[CR_DYN_V + c];
            const double eps = j->k[q], lh = d->s->limit_hat[row];
            const double kinks[2] = {j->lo[q] + fmax(lh, 0.0) / eps, j->hi[q] - fmax(-lh, 0.0) / eps};
            for (int b = 0; b < 2; ++b) {
                const double gap = kinks[b] - ph;
                if (gap * rate > 0 && 0.5 * gap / rate > h_skip) h = fmin(h, 0.5 * gap / rate);
            }
        }
    }
    return h;
}

/* contact.rods: no segment carried through another's between two steps (assembly_contact.c),
 * with the joint limits' and the obstacles' bounds where the assembly has them */
static double rods_step_limit(double t, const double *y, void *user)
{
    asm_dyn *d = user;
    double h = cr_asm_contact_step_limit(d->a->contact, y, B, CR_DYN_V);
    if (cr_asm_has_limits(d->a)) h = fmin(h, limit_step_limit(t, y, user));
    if (cr_asm_obstacles(d->a)) h = fmin(h, contact_step_limit(t, y, user));
    return h;
}

/* both bounds when an assembly has joint limits and obstacles */
static double limits_contact_step_limit(double t, const double *y, void *user)
{
    return fmin(limit_step_limit(t, y, user), contact_step_limit(t, y, user));
}

static void free_dyn(asm_dyn *d)
{
    if (d->rd)
        for (int r = 0; r < d->nr; ++r) {
            rod_dyn *rd = &d->rd[r];
            cr_blocktri_radau_destroy(rd->lin);
            free(rd->active), free(rd->input), free(rd->scale), free(rd->F);
            free(rd->V), free(rd->Vre), free(rd->Vim), free(rd->bsave);
        }
    free(d->rd);
    free(d->imass), free(d->held), free(d->acc0), free(d->nbody), free(d->Tm), free(d->omega), free(d->drive),
        free(d->du), free(d->Ct), free(d->A), free(d->G), free(d->Gmu), free(d->S), free(d->Sz);
    free(d->row_joint), free(d->adj0), free(d->adj), free(d->xs);
    cr_asm_sys_destroy(d->sys), cr_asm_sys_destroy(d->sysz);
    free(d->tmpS), free(d->piv), free(d->pivz), free(d->mu), free(d->muz), free(d->tmp), free(d->yjac);
    free(d->bd), free(d->bactive), free(d->bscale);
    cr_lowrank_destroy(d->lr), cr_lowrank_destroy(d->lr_re), cr_lowrank_destroy(d->lr_im);
    free(d->cscratch);
    cr_pool_destroy(d->pool);
    d->pool = NULL;
}

/* The element next to node i (for the error weights and ω) */
static const cr_element *element_at(const cr_model *m, int i) { return &m->el[i < m->n ? i : m->n - 1]; }

/* Everything before the integration: checks, the rods' adaptors, the mass, the error
 * weights and consistent initial values y (stresses from the compliance law, multipliers
 * from (J)). On failure the caller still frees with free_dyn and free_setup. */
typedef struct setup_out {
    double *y, *mass, *atol, *F0;
    int *index;
    double tb;
} setup_out;

static void free_setup(setup_out *u) { free(u->y), free(u->mass), free(u->atol), free(u->F0), free(u->index); }

static cr_status setup(asm_dyn *dd, const cr_assembly *a, cr_assembly_state *s, int stage, const cr_dynamic_options *op,
                       int resume, setup_out *out, cr_error *err)
{
    const cr_dynamic_options o = *op;
    double tb = s->rods[0]->time;
    for (int b = 0; b < a->body_count; ++b) {
        const cr_mat3 *J = &a->bodies[b].inertia;
        const double tr = J->m[0][0] + J->m[1][1] + J->m[2][2];
        if (!(fabs(J->m[0][1]) <= 1e-12 * tr && fabs(J->m[0][2]) <= 1e-12 * tr && fabs(J->m[1][2]) <= 1e-12 * tr))
            return cr_error_set(err, CR_UNSUPPORTED,
                                "bodies.%d ('%s').inertia: in dynamics a free body's inertia must be diagonal in its "
                                "axes (give the principal moments, inertia, with the principal axes as its "
                                "orientation)",
                                b, a->bodies[b].name);
    }
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        if (m->rigid_count > 0)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "rods.%d ('%s').rigid_strains: rigid strain components make the DAE index 2, which "
                                "the Radau stage does not handle",
                                r, a->names[r]);
        for (int i = 0; i < m->nodes; ++i)
            if (!(m->node_mass[i] > 0))
                return cr_error_set(err, CR_BAD_INPUT, "rods.%d ('%s'): node %d has no mass: set its rho > 0", r,
                                    a->names[r], i);
    }
    for (int k = 0; k < a->joint_count && s->joint_factor < 1.0; ++k) { /* a gap closes in statics only */
        const double *g0 = a->joints[k].gap0, gap = sqrt(g0[0] * g0[0] + g0[1] * g0[1] + g0[2] * g0[2]);
        if (gap > 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "%s: its points are %.6g m apart in the reference and stage %d is dynamic before a "
                                "static stage closed the gap: a joint's gap is closed only through the load steps "
                                "of a first static stage",
                                a->joints[k].label, gap, stage);
    }
    asm_dyn d = *dd;
    d.a = a, d.s = s, d.stage = stage, d.f = s->joint_factor, d.nr = a->rod_count, d.ni = a->iface_count, d.k = a->rows;
    s->stage = stage;
    cr_status st = CR_OK;
    double *y = NULL, *mass = NULL, *atol = NULL, *F0 = NULL;
    int *index = NULL;
    d.rd = calloc(d.nr > 0 ? (size_t)d.nr : 1, sizeof *d.rd);
    if (!d.rd) {
        *dd = d;
        return cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
    }
    size_t off = 0, maxdim = 0;
    for (int r = 0; r < d.nr; ++r) {
        rod_dyn *rd = &d.rd[r];
        rd->d = dd, rd->r = r, rd->m = a->models[r];
        rd->off = off, rd->dim = (size_t)rd->m->nodes * B;
        off += rd->dim;
        maxdim = rd->dim > maxdim ? rd->dim : maxdim;
    }
    d.nb = a->body_count;
    d.bd = calloc(d.nb > 0 ? (size_t)d.nb : 1, sizeof *d.bd);
    d.bactive = calloc(a->body_load_count > 0 ? (size_t)a->body_load_count : 1, sizeof *d.bactive);
    d.bscale = calloc(a->body_load_count > 0 ? (size_t)a->body_load_count : 1, sizeof *d.bscale);
    if (!d.bd || !d.bactive || !d.bscale) {
        *dd = d;
        return cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
    }
    cr_asm_body_stage_factors(a, stage, d.bactive);
    for (int b = 0; b < d.nb; ++b) {
        body_dyn *bd = &d.bd[b];
        const cr_asm_body *ob = &a->bodies[b];
        bd->iface = ob->iface, bd->off = off;
        off += 13;
        for (int c = 0; c < 7; ++c) bd->M[c] = 1.0;
        for (int c = 0; c < 3; ++c) bd->M[CR_DYN_V + c] = ob->mass, bd->M[CR_DYN_W + c] = ob->inertia.m[c][c];
    }
    d.mu_off = off, d.N = off + (size_t)d.k;
    const int k1 = d.k > 0 ? d.k : 1, ni1 = d.ni > 0 ? d.ni : 1;
    d.imass = calloc((size_t)6 * ni1, sizeof *d.imass);
    d.held = calloc((size_t)6 * ni1, sizeof *d.held);
    d.nbody = calloc((size_t)ni1, sizeof *d.nbody);
    d.Tm = calloc((size_t)36 * ni1, sizeof *d.Tm);
    d.acc0 = calloc((size_t)6 * ni1, sizeof *d.acc0);
    d.omega = calloc(a->joint_count > 0 ? a->joint_count : 1, sizeof *d.omega);
    d.drive = calloc(3 * (size_t)(a->joint_count > 0 ? a->joint_count : 1), sizeof *d.drive);
    d.du = calloc(3 * (size_t)(a->joint_count > 0 ? a->joint_count : 1), sizeof *d.du);
    if (d.du) { /* the drives' inputs: held (fresh), or the ramp of the output interval a checkpoint cut */
        const double k0 = floor((tb - d.t_stage_start) / o.output_dt * (1 + 1e-12));
        d.ramp_t0 = d.t_stage_start + k0 * o.output_dt, d.ramp_t1 = d.ramp_t0 + o.output_dt;
        /* a checkpoint at an output time (an interruption there, or a periodic one after the step
           that ends its interval) holds the ramp that ends there: it moves on now, as
           integrate_live moves it after that output time */
        const int at_output = d.continuing && k0 > 0 && fabs(tb - d.ramp_t0) <= 1e-9 * o.output_dt;
        for (int jk = 0; jk < a->joint_count; ++jk) {
            if (!d.continuing) s->drive_from[jk] = s->drive_to[jk] = s->drive_input[jk], s->drive_rate[jk] = 0.0;
            if (at_output) {
                const double u0 = s->drive_from[jk], u1 = s->drive_to[jk], r0 = s->drive_rate[jk];
                s->drive_rate[jk] = cr_drive_ramp_end_rate(u0, u1, r0, o.output_dt);
                s->drive_from[jk] = u1, s->drive_to[jk] = s->drive_input[jk];
            }
            d.du[3 * jk] = s->drive_from[jk], d.du[3 * jk + 1] = s->drive_to[jk],
                     d.du[3 * jk + 2] = s->drive_rate[jk];
        }
    }
    d.sparse = d.k > 0 && d.k + 6 * d.nb >= cr_asm_sparse_min;
    const size_t kd = d.sparse ? 1 : (size_t)k1; /* the dense path's k × k matrices */
    d.Ct = calloc((size_t)k1 * 12, sizeof *d.Ct);
    d.row_joint = calloc(k1, sizeof *d.row_joint);
    d.adj0 = calloc((size_t)ni1 + 1, sizeof *d.adj0);
    d.adj = calloc(2 * (size_t)(a->joint_count > 0 ? a->joint_count : 1), sizeof *d.adj);
    d.xs = calloc(2 * ((size_t)k1 + 6 * (size_t)d.nb), sizeof *d.xs);
    if (d.sparse) d.sys = cr_asm_sys_create(), d.sysz = cr_asm_sys_create();
    d.A = calloc((size_t)ni1 * 6 * NB, sizeof *d.A);
    d.G = calloc((size_t)k1 * 2 * NB, sizeof *d.G);
    d.Gmu = calloc(kd * kd, sizeof *d.Gmu);
    d.S = calloc(kd * kd, sizeof *d.S);
    d.Sz = calloc((size_t)4 * kd * kd, sizeof *d.Sz);
    d.tmpS = calloc((size_t)2 * kd * kd, sizeof *d.tmpS);
    d.piv = calloc(k1, sizeof *d.piv);
    d.pivz = calloc(2 * (size_t)k1, sizeof *d.pivz);
    d.mu = calloc(k1, sizeof *d.mu);
    d.muz = calloc(2 * (size_t)k1, sizeof *d.muz);
    d.tmp = calloc(2 * maxdim, sizeof *d.tmp);
    d.yjac = calloc(d.N, sizeof *d.yjac);
    y = calloc(d.N, sizeof *y), mass = calloc(d.N, sizeof *mass), atol = calloc(d.N, sizeof *atol);
    F0 = calloc(d.N, sizeof *F0);
    index = calloc(d.N, sizeof *index);
    if (!d.imass || !d.held || !d.acc0 || !d.nbody || !d.Tm || !d.omega || !d.drive || !d.du || !d.Ct || !d.A || !d.G ||
        !d.Gmu || !d.S || !d.Sz || !d.tmpS || !d.piv || !d.pivz || !d.mu || !d.muz || !d.tmp || !d.yjac || !y ||
        !mass || !atol || !F0 || !index || !d.row_joint || !d.adj0 || !d.adj || !d.xs ||
        (d.sparse && (!d.sys || !d.sysz))) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
        goto done;
    }
    /* each row's joint; each interface node's joints (in the joints' order) */
    for (int jk = 0; jk < a->joint_count; ++jk)
        for (int r = 0; r < a->joints[jk].rows; ++r) d.row_joint[a->joints[jk].row0 + r] = jk;
    for (int jk = 0; jk < a->joint_count; ++jk)
        for (int side = 0; side < 2; ++side)
            if (side == 0 || a->joints[jk].iface[1] != a->joints[jk].iface[0]) ++d.adj0[a->joints[jk].iface[side] + 1];
    for (int e = 0; e < d.ni; ++e) d.adj0[e + 1] += d.adj0[e];
    {
        int *fill = calloc((size_t)ni1, sizeof *fill);
        if (!fill) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
            goto done;
        }
        for (int jk = 0; jk < a->joint_count; ++jk)
            for (int side = 0; side < 2; ++side) {
                const int e = a->joints[jk].iface[side];
                if (side == 0 || e != a->joints[jk].iface[0]) d.adj[d.adj0[e] + fill[e]++] = 2 * jk + side;
            }
        free(fill);
    }
    for (int e = 0; e < d.ni; ++e) {
        if (a->iface[e].rod < 0) { /* a free body: 1/m, 1/Θ_ii */
            const body_dyn *bd = &d.bd[a->iface[e].node];
            for (int c = 0; c < 6; ++c) d.imass[6 * e + c] = 1.0 / bd->M[CR_DYN_V + c];
            continue;
        }
        const cr_model *m = a->models[a->iface[e].rod];
        int n = a->iface[e].node;
        double mm[6] = {m->node_mass[n],      m->node_mass[n],      m->node_mass[n],
                        m->node_inertia[n].x, m->node_inertia[n].y, m->node_inertia[n].z};
        for (int c = 0; c < 6; ++c) d.imass[6 * e + c] = 1.0 / mm[c];
        for (int jb = 0; jb < m->body_count; ++jb) d.nbody[e] += m->bodies[jb].node == n;
        if (d.nbody[e]) /* its rows hold accelerations (dynamics.c): M⁻¹ through Tm, imass 1 */
            for (int c = 0; c < 6; ++c) d.imass[6 * e + c] = 1.0;
    }
    for (int k = 0; k < a->support_count; ++k) { /* the momentum rows the supports on joint nodes hold */
        const cr_asm_support *sp = &a->supports[k];
        const cr_model *m = a->models[sp->rod];
        if (!cr_support_active(&m->supports[sp->k], stage)) continue;
        const cr_supports_at at0 = {.stage = stage, .ramp = 1.0, .t = tb, .from = NULL, .from_blend = 1.0};
        int rows[13];
        cr_supports_dynamic_held(m, &m->supports[sp->k], &at0, sp->k, rows);
        for (int c = 0; c < 6; ++c)
            if (rows[CR_DYN_V + c]) d.held[6 * sp->iface + c] = 1, d.any_held = 1;
    }
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_iface *f = &a->iface[a->joints[jk].iface[0]];
        if (f->rod < 0) f = &a->iface[a->joints[jk].iface[1]]; /* the rod's end of a body's joint */
        if (f->rod < 0) { /* two bodies: their drift decays at the slowest of the rods' rates */
            d.omega[jk] = INFINITY;
            for (int r = 0; r < a->rod_count; ++r) {
                const cr_element *el = element_at(a->models[r], 0);
                d.omega[jk] = fmin(d.omega[jk], sqrt(el->k_force.x / el->length / a->models[r]->node_mass[0]));
            }
            continue;
        }
        const cr_model *m = a->models[f->rod];
        const cr_element *el = element_at(m, f->node);
        d.omega[jk] = sqrt(el->k_force.x / el->length / m->node_mass[f->node]);
    }
    /* every rod: its loads, initial values, mass, error weights and its adaptor */
    for (int r = 0; r < d.nr && st == CR_OK; ++r) {
        rod_dyn *rd = &d.rd[r];
        const cr_model *m = rd->m;
        cr_state *rs = s->rods[r];
        int nl = m->load_count > 0 ? m->load_count : 1;
        rd->active = calloc(nl, sizeof(double)), rd->input = calloc(nl, sizeof(double));
        rd->scale = calloc(nl, sizeof(double)), rd->F = calloc(rd->dim, sizeof(double));
        if (!rd->active || !rd->input || !rd->scale || !rd->F) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
            break;
        }
        cr_model_stage_load_factors(m, stage, rd->active);
        memcpy(rd->input, rs->load_input, nl * sizeof(double));
        for (int q = 0; q < m->load_count; ++q)
            if (m->loads[q].type == CR_LOAD_GRAVITY && m->loads[q].time.type == CR_TIME_CONSTANT && rd->active[q] != 0)
                rd->gravity = cr_v3_madd(rd->gravity, rd->active[q], m->loads[q].value);
        double *yr = y + rd->off;
        for (int i = 0; i < m->nodes; ++i) {
            double *yi = yr + (size_t)i * B;
            memcpy(yi, rs->x + (size_t)i * m->block, CR_NODE_DOF * sizeof(double));
            memcpy(yi + CR_DYN_V, rs->velocity + 6 * (size_t)i, 6 * sizeof(double));
            if (i < m->n && resume) { /* the integrator's stresses, not the compliance law's: the same y */
                memcpy(yi + CR_DYN_LAM, rs->stress + 6 * (size_t)i, 6 * sizeof(double));
            } else if (i < m->n) {
                cr_vec3 n, mo;
                cr_state_element(m, rs, i, NULL, NULL, &n, &mo);
                cr_v3_store(n, yi + CR_DYN_LAM);
                cr_v3_store(mo, yi + CR_DYN_LAM + 3);
            }
        }
        rs->stage = stage, rs->bc_factor = 1.0, rs->dynamic = 1;
        if ((st = cr_supports_dynamic_check(m, stage, err)) != CR_OK) break;
        if (!resume && (st = cr_supports_dynamic_start(m, stage, tb, yr, err)) != CR_OK) break;
        if (!resume) cr_mixed_damping_consistent_stress(m, yr);
        cr_mixed_dynamic_mass(m, stage, mass + rd->off);
        for (int i = 0; i < m->nodes; ++i) { /* as dynamics_solve.c */
            const cr_element *el = element_at(m, i);
            double kk[6] = {el->k_force.x,  el->k_force.y,  el->k_force.z,
                            el->k_moment.x, el->k_moment.y, el->k_moment.z};
            for (int c = 0; c < B; ++c) {
                size_t q = rd->off + (size_t)i * B + c;
                atol[q] = c < CR_DYN_LAM ? o.atol : i < m->n ? o.atol * kk[c - CR_DYN_LAM] / el->length : o.atol;
                index[q] = c >= CR_DYN_V && c < CR_DYN_LAM ? 2 : 1;
            }
        }
        rd->lin = cr_blocktri_radau_create(m->nodes, B, mass + rd->off, 0, rod_jacobian, rd, err);
        if (!rd->lin) {
            st = err ? err->status : CR_NO_MEMORY;
            break;
        }
        cr_blocktri_radau_set_filled(rd->lin);
        if ((st = cr_blocktri_radau_condense(rd->lin, 6, err)) != CR_OK) break;
        if ((st = cr_blocktri_radau_condense_kinematics(rd->lin, err)) != CR_OK) break;
        rd->ls = cr_blocktri_radau_linsys(rd->lin);
        /* the rod's joint nodes: 6 columns of V each */
        rd->m_iface = a->rod_iface_start[r + 1] - a->rod_iface_start[r];
        rd->iface = a->rod_iface + a->rod_iface_start[r];
        rd->tail = rd->m_iface == 1 && m->nodes >= 2 && a->iface[rd->iface[0]].node == m->nodes - 1;
        rd->bsave = malloc(2 * rd->dim * sizeof(double));
        size_t wn = rd->dim * (size_t)(rd->m_iface > 0 ? 6 * rd->m_iface : 1);
        rd->V = malloc(wn * sizeof(double)), rd->Vre = malloc(wn * sizeof(double)),
        rd->Vim = malloc(wn * sizeof(double));
        if (!rd->V || !rd->Vre || !rd->Vim || !rd->bsave)
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
    }
    if (st != CR_OK) goto done;
    { /* the rods' threads (rod_tasks): as the statics decide, at most one per rod */
        int nodes = 0;
        for (int r = 0; r < d.nr; ++r) nodes += a->models[r]->nodes;
        int threads = o.threads > 0 ? o.threads : (nodes >= CR_STATIC_PARALLEL_MIN_NODES ? cr_threads_default() : 1);
        if (threads > d.nr) threads = d.nr;
        d.pool = threads > 1 ? cr_pool_create(threads) : NULL;
    }
    for (int b = 0; b < d.nb; ++b) { /* bodies: their state, mass, error weights */
        const body_dyn *bd = &d.bd[b];
        memcpy(y + bd->off, s->body + (size_t)CR_ASM_BODY_DOF * b, 13 * sizeof *y);
        for (int c = 0; c < 13; ++c) {
            mass[bd->off + c] = bd->M[c];
            atol[bd->off + c] = o.atol;
            index[bd->off + c] = c >= CR_DYN_V ? 2 : 1;
        }
    }
    /* the joints' rows: mass 0 (algebraic), and an error weight like the stresses': a force
     * error δμ is balanced by the joint element's stress, a relative displacement δμ L_e/k */
    for (int jk = 0; jk < a->joint_count; ++jk) {
        const cr_asm_joint *j = &a->joints[jk];
        const cr_asm_iface *f = &a->iface[j->iface[a->iface[j->iface[0]].rod < 0 ? 1 : 0]];
        if (f->rod < 0) f = &a->iface[a->rod_iface[0]]; /* two bodies: any rod's joint node */
        const cr_element *el = element_at(a->models[f->rod], f->node);
        for (int r = 0; r < j->rows; ++r) {
            size_t q = d.mu_off + j->row0 + r;
            atol[q] = o.atol * (r < 3 ? el->k_force.x : el->k_moment.y) / el->length;
            index[q] = 1;
        }
    }
    if ((st = cr_asm_check_redundant(a, s, d.f, err)) != CR_OK) goto done;
    /* consistent multipliers: (J) is linear in μ, (J)(μ) = (J)(0) + G_μ μ (resumed: the
     * integrator's own, as it left them) */
    if (d.k > 0 && resume) {
        memcpy(y + d.mu_off, s->lambda, (size_t)d.k * sizeof *y);
    } else if (d.k > 0) {
        if ((st = residual(&d, tb, y, F0)) != CR_OK) {
            cr_error_set(err, st, "the assembly's initial state gives a non-finite residual");
            goto done;
        }
        memcpy(d.yjac, y, d.N * sizeof *y);
        /* G_μ from C at the initial state (hook_jacobian's first part, without the rods; the
         * bodies' nodes' M⁻¹ there) */
        for (int e = 0; e < d.ni; ++e) node_minv(&d, e, node_y(&d, y, e), d.Tm + 36 * (size_t)e);
        joints_c(&d, y);
        if (d.sparse) {
            for (int i = 0; i < d.k; ++i) d.mu[i] = -F0[d.mu_off + i];
            if ((st = sparse_schur(&d, 0, 0)) == CR_OK) st = sparse_mu(&d, d.mu, NULL);
            if (st != CR_OK) {
                if (st == CR_SINGULAR)
                    cr_error_set(err, CR_SINGULAR, "the joints' constraints are dependent at the initial state");
                else
                    cr_error_set(err, st, "out of memory in the assembly's dynamic stage");
                goto done;
            }
            memcpy(y + d.mu_off, d.mu, (size_t)d.k * sizeof *y);
            goto done;
        }
        for (int i = 0; i < d.k; ++i) {
            for (int c = 0; c < d.k; ++c) d.S[(size_t)c * d.k + i] = gmu(&d, i, c);
            d.mu[i] = -F0[d.mu_off + i];
        }
        /* compliant rows: μ = −(k g + c ġ) (column-major here: the transpose of the identity rows) */
        for (int jk = 0; jk < a->joint_count; ++jk) {
            const cr_asm_joint *j = &a->joints[jk];
            for (int r = 0; r < j->rows; ++r)
                if (cr_asm_row_compliant(j, stage, r, NULL, NULL))
                    for (int c = 0; c < d.k; ++c) d.S[(size_t)c * d.k + j->row0 + r] = c == j->row0 + r;
        }
        int info = 0, one = 1;
        dgetrf_(&d.k, &d.k, d.S, &d.k, d.piv, &info);
        if (info != 0) {
            st = cr_error_set(err, CR_SINGULAR, "the joints' constraints are dependent at the initial state");
            goto done;
        }
        dgetrs_("N", &d.k, &one, d.S, &d.k, d.piv, d.mu, &d.k, &info);
        memcpy(y + d.mu_off, d.mu, (size_t)d.k * sizeof *y);
    }
done:
    *dd = d;
    out->y = y, out->mass = mass, out->atol = atol, out->F0 = F0, out->index = index, out->tb = tb;
    return st;
}

static cr_status integrate_live(asm_dyn *d, const double *times, int count, double t_end, cr_error *err);

int cr_asm_dynamic_memory_size(const cr_assembly *a)
{
    return AM_RADAU + CR_RADAU_MEMORY_DOUBLES + 3 * cr_asm_dynamic_size(a);
}

cr_status cr_assembly_dynamic_solve(const cr_assembly *a, cr_assembly_state *s, int stage,
                                    const cr_dynamic_options *options, cr_assembly_output_fn on_output, void *user,
                                    cr_dynamic_report *report, cr_error *err)
{
    cr_dynamic_options o = options ? *options : cr_dynamic_default_options();
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    cr_status st = cr_asm_dynamic_solve_stage(a, s, stage, s->rods[0]->time, 0.0, 0.0, &o, on_output, NULL, user, NULL,
                                              report, err);
    cr_fpmode_restore(fp);
    return st;
}

cr_status cr_asm_dynamic_solve_stage(const cr_assembly *a, cr_assembly_state *s, int stage, double t_stage_start,
                                     double h0, double work_external, const cr_dynamic_options *options,
                                     cr_assembly_output_fn on_output, cr_asm_dynamic_step_fn on_step, void *user,
                                     double *memory, cr_dynamic_report *report, cr_error *err)
{
    double t0 = now();
    const cr_dynamic_options o = *options;
    if (report) memset(report, 0, sizeof *report);
    if (!(o.t_end > 0) || !(o.output_dt > 0) || !(o.rtol > 0) || !(o.atol > 0))
        return cr_error_set(err, CR_BAD_INPUT, "dynamic stage %d: t_end, output_dt, rtol and atol must be > 0", stage);
    const double t_begin = s->rods[0]->time, t_end = t_stage_start + o.t_end;
    /* a memory of this stage: the run continues a checkpointed one (its counters, work and drive
     * ramps); taken at this very state (not an interruption at an output time, whose state the
     * integrator interpolated after its last step), the integrator continues too */
    const int continuing = memory && memory[AM_VALID] == 1.0 && memory[AM_STAGE] == stage &&
                           memory[AM_T_STAGE_START] == t_stage_start && t_begin > t_stage_start;
    const int resume = continuing && memory[AM_T] == t_begin;
    asm_dyn d = {.on_output = on_output,
                 .on_step = on_step,
                 .user = user,
                 .work = work_external,
                 .last_t = t_begin,
                 .memory = memory,
                 .t_stage_start = t_stage_start,
                 .continuing = continuing,
                 .wall_start = t0};
    if (continuing) {
        for (int k = 0; k < 7; ++k) d.base[k] = (long)memory[AM_COUNTERS + k];
        d.base_wall = memory[AM_WALL];
        d.dissipated = memory[AM_DISSIPATED], d.work_drives = memory[AM_WORK_DRIVES];
    } else if (memory) {
        memset(memory, 0, (size_t)cr_asm_dynamic_memory_size(a) * sizeof *memory);
    }
    setup_out u = {0};
    double *times = NULL;
    /* the obstacles' penalty and anchors from the stage's start (a resumed stage has its
     * pairs from the checkpoint), before the initial values the contact forces enter */
    if (a->contact) { /* contact.rods: its friction anchored where the pairs press, or a continued stage's */
        cr_asm_contact_reset(a->contact);
        cr_asm_contact_gather(a->contact, a, s);
        cr_asm_contact_dynamic_begin(a->contact, continuing);
    }
    for (int r = 0; r < a->rod_count; ++r) {
        cr_contact *c = a->models[r]->contact;
        if (!c) continue;
        cr_contact_set_time(c, t_begin);
        if (resume)
            cr_contact_dynamic_resume(c);
        else
            cr_contact_dynamic_begin(c, s->rods[r]->x, a->models[r]->block);
    }
    cr_status st = setup(&d, a, s, stage, &o, resume, &u, err);
    double *y = u.y, *mass = u.mass, *atol = u.atol;
    int *index = u.index;
    if (st != CR_OK) goto done;
    double nout_d = floor(o.t_end / o.output_dt + 1e-9) + 1;
    if (!(nout_d <= 1e8)) {
        st = cr_error_set(err, CR_BAD_INPUT, "stages.%d.output_dt: %g s gives %.3g output times (more than 1e8)", stage,
                          o.output_dt, nout_d);
        goto done;
    }
    long nout = (long)nout_d, count = 0;
    times = malloc((size_t)nout * sizeof *times);
    if (!times) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
        goto done;
    }
    for (long q = 0; q < nout; ++q) { /* the stage's output grid from its start; a resumed stage wrote those to t */
        double tq = t_stage_start + q * o.output_dt;
        if (tq > t_end + 1e-12 * o.output_dt) break;
        if (tq < t_begin - 1e-12 * o.output_dt) continue;
        if (tq <= t_begin && t_begin > t_stage_start) continue;
        times[count++] = fmin(tq, t_end);
    }
    if (!(d.ywork = malloc(d.N * sizeof *d.ywork))) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
        goto done;
    }
    cr_radau_options ro = cr_radau_default_options();
    if (d.pool) ro.parallel = radau_parallel, ro.parallel_ctx = d.pool; /* its vector work on the rods' threads */
    ro.rtol = o.rtol, ro.atol = o.atol, ro.atol_vec = atol, ro.error_index = index;
    ro.h_init = h0 > 0 ? h0 : o.h_init, ro.h_max = o.h_max, ro.max_steps = o.max_steps;
    ro.output = output, ro.output_times = times, ro.n_output_times = (int)count;
    ro.step_callback = step_done;
    ro.jac_reuse_theta = 0.1, ro.newton_growth_theta = 0.2; /* as one rod's (dynamics_solve.c) */
    if (cr_asm_has_limits(a))
        ro.step_limit = cr_asm_obstacles(a) ? limits_contact_step_limit : limit_step_limit;
    else if (cr_asm_obstacles(a))
        ro.step_limit = contact_step_limit;
    if (a->contact) ro.step_limit = rods_step_limit;
    cr_radau_linsys ls = {.jacobian = hook_jacobian,
                          .factor_real = hook_factor_real,
                          .solve_real = hook_solve_real,
                          .factor_complex = hook_factor_complex,
                          .solve_complex = hook_solve_complex,
                          .ctx = &d};
    if (a->contact) { /* contact.rods: a penalty (no multipliers), coupled by Woodbury */
        const int blocks = (int)((d.N + B - 1) / B);
        d.lr = cr_lowrank_create(blocks, B, CR_DYN_V, 0), d.lr_re = cr_lowrank_create(blocks, B, CR_DYN_V, 0);
        d.lr_im = cr_lowrank_create(blocks, B, CR_DYN_V, 0);
        d.cscratch = calloc((size_t)blocks * B, sizeof *d.cscratch);
        if (!d.lr || !d.lr_re || !d.lr_im || !d.cscratch) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
            goto done;
        }
        ls = (cr_radau_linsys){.jacobian = rc_jacobian,
                               .factor_real = rc_factor_real,
                               .solve_real = rc_solve_real,
                               .factor_complex = rc_factor_complex,
                               .solve_complex = rc_solve_complex,
                               .ctx = &d};
    }
    cr_radau_problem prob = {.n = (int)d.N, .mass = mass, .rhs = rhs, .linsys = ls, .user = &d};
    d.radau = cr_radau_create(&prob, &ro, t_begin, y, err);
    if (!d.radau) {
        st = err ? err->status : CR_NO_MEMORY;
        goto done;
    }
    if (resume) {
        cr_radau_memory rm;
        memcpy(&rm, memory + AM_RADAU, sizeof rm);
        st = cr_radau_reinit_memory(d.radau, t_begin, y, &rm, memory + AM_RADAU + CR_RADAU_MEMORY_DOUBLES, err);
        if (st != CR_OK) {
            cr_error_set(err, st, "dynamic stage %d: the checkpoint's integrator memory is unusable: %.200s", stage,
                         err ? err->message : "");
            goto done;
        }
    }
    if (!s->inputs_live)
        st = cr_radau_integrate(d.radau, t_end, err);
    else
        st = integrate_live(&d, times, (int)count, t_end, err);
    unpack(&d, cr_radau_y(d.radau), cr_radau_t(d.radau));
    for (int r = 0; r < d.nr; ++r) { /* the loads the state now carries: a following static stage ramps from these */
        set_scales(&d.rd[r], cr_radau_t(d.radau));
        memcpy(s->rods[r]->load_scale, d.rd[r].scale,
               (d.rd[r].m->load_count > 0 ? d.rd[r].m->load_count : 1) * sizeof(double));
    }
    set_body_scales(&d, cr_radau_t(d.radau));
    memcpy(s->body_load_scale, d.bscale, (size_t)a->body_load_count * sizeof(double));
    if (st == CR_INTERRUPTED && d.stopped) cr_error_set(err, st, "stopped at t = %.6g s", cr_radau_t(d.radau));
    if (report) {
        long cnt[7];
        stage_counters(&d, cnt);
        report->steps = cnt[0], report->rejected = cnt[1], report->newton_iterations = cnt[2];
        report->rhs_evals = cnt[3], report->jacobians = cnt[4], report->lu_real = cnt[5];
        report->lu_complex = cnt[6], report->h_last = cr_radau_h(d.radau);
        report->t_start = resume ? t_stage_start : t_begin, report->t_end = cr_radau_t(d.radau);
    }
done:
    for (int r = 0; r < a->rod_count; ++r) /* the static stages' contact again */
        if (a->models[r]->contact) cr_contact_dynamic_end(a->models[r]->contact);
    if (a->contact) cr_asm_contact_dynamic_end(a->contact);
    if (report) report->wall_time_s = d.base_wall + now() - t0;
    cr_radau_destroy(d.radau);
    free_dyn(&d);
    free_setup(&u);
    free(times);
    free(d.ywork);
    return st;
}

/* The stage integrated output interval by interval (s->inputs_live: an output callback may
 * change the inputs, as one rod's cr_mixed_dynamic_solve segmented): after each output time the
 * rods' load inputs (a jump of the right-hand side) and the drives' inputs (a C¹ ramp from the
 * value reached to the new one at the next output time: a jump of the drive's acceleration) are taken,
 * and on a change the integrator restarts there (cr_radau_reinit: a fresh first step). */
static cr_status integrate_live(asm_dyn *d, const double *times, int count, double t_end, cr_error *err)
{
    cr_status st = CR_OK;
    double *ytmp = malloc(d->N * sizeof *ytmp);
    if (!ytmp) return cr_error_set(err, CR_NO_MEMORY, "out of memory in the assembly's dynamic stage");
    for (int k = 0; st == CR_OK && k < count; ++k) {
        if ((st = cr_radau_integrate(d->radau, times[k], err)) != CR_OK) break;
        int changed = 0;
        for (int r = 0; r < d->nr; ++r) {
            rod_dyn *rd = &d->rd[r];
            const size_t nl = (size_t)rd->m->load_count;
            if (nl == 0 || !memcmp(rd->input, d->s->rods[r]->load_input, nl * sizeof(double))) continue;
            memcpy(rd->input, d->s->rods[r]->load_input, nl * sizeof(double));
            changed = 1;
        }
        const double t1 = k + 1 < count ? times[k + 1] : t_end;
        for (int jk = 0; jk < d->a->joint_count; ++jk) { /* the value and rate reached, the new target */
            double *u = d->du + 3 * jk;
            const double h = d->ramp_t1 - d->ramp_t0;
            const double reached = u[1], rate = cr_drive_ramp_end_rate(u[0], u[1], u[2], h);
            const double next = d->s->drive_input[jk];
            if (rate != 0 || next != reached) changed = 1; /* the drive's acceleration changes */
            u[0] = d->s->drive_from[jk] = reached, u[1] = d->s->drive_to[jk] = next, u[2] = d->s->drive_rate[jk] = rate;
        }
        d->ramp_t0 = times[k], d->ramp_t1 = t1;
        if (!changed) continue;
        memcpy(ytmp, cr_radau_y(d->radau), d->N * sizeof *ytmp);
        st = cr_radau_reinit(d->radau, times[k], ytmp, cr_radau_h(d->radau), err);
    }
    if (st == CR_OK && cr_radau_t(d->radau) < t_end) st = cr_radau_integrate(d->radau, t_end, err);
    free(ytmp);
    return st;
}

int cr_asm_dynamic_size(const cr_assembly *a)
{
    int n = a->rows + 13 * a->body_count;
    for (int r = 0; r < a->rod_count; ++r) n += a->models[r]->nodes * B;
    return n;
}

cr_status cr_asm_dynamic_probe(const cr_assembly *a, cr_assembly_state *s, int stage, const double *y_in, double *y,
                               double *F, double *J, cr_error *err)
{
    cr_dynamic_options o = cr_dynamic_default_options();
    asm_dyn d = {0};
    setup_out u = {0};
    cr_status st = setup(&d, a, s, stage, &o, 0, &u, err);
    if (st == CR_OK) {
        if (y_in) memcpy(u.y, y_in, d.N * sizeof *y);
        memcpy(y, u.y, d.N * sizeof *y);
        st = residual(&d, u.tb, y, F);
    }
    if (st == CR_OK && J) {
        st = hook_jacobian(u.tb, y, F, &d);
        const size_t N = d.N;
        memset(J, 0, N * N * sizeof *J);
        for (int r = 0; st == CR_OK && r < d.nr; ++r) {
            rod_dyn *rd = &d.rd[r];
            for (int i = 0; i < rd->m->nodes; ++i)
                for (int b = 0; b < 3; ++b) {
                    int nb = i - 1 + b;
                    if (nb < 0 || nb >= rd->m->nodes) continue;
                    const double *blk = b == 0   ? cr_blocktri_L(rd->lin->J, i)
                                        : b == 1 ? cr_blocktri_D(rd->lin->J, i)
                                                 : cr_blocktri_U(rd->lin->J, i);
                    for (int row = 0; row < B; ++row)
                        for (int c = 0; c < B; ++c)
                            J[(rd->off + (size_t)i * B + row) * N + rd->off + (size_t)nb * B + c] = blk[row * B + c];
                }
        }
        for (int b = 0; b < d.nb; ++b) /* a body's own block */
            for (int row = 0; row < 13; ++row)
                for (int c = 0; c < 13; ++c) J[(d.bd[b].off + row) * N + d.bd[b].off + c] = d.bd[b].J[row * 13 + c];
        for (int e = 0; e < d.ni; ++e) {
            const cr_asm_iface *f = &a->iface[e];
            const size_t at = f->rod < 0 ? d.bd[f->node].off : d.rd[f->rod].off + (size_t)f->node * B;
            for (int q = 0; q < 6; ++q)
                for (int i = 0; i < d.k; ++i) J[(at + CR_DYN_V + q) * N + d.mu_off + i] += ct(&d, e, q, i);
        }
        for (int i = 0; i < d.k; ++i) {
            const cr_asm_joint *j = &a->joints[joint_of_row(a, i)];
            for (int side = 0; side < 2; ++side) {
                const cr_asm_iface *f = &a->iface[j->iface[side]];
                if (f->rod < 0) {
                    for (int c = 0; c < 13; ++c)
                        J[(d.mu_off + i) * N + d.bd[f->node].off + c] += d.G[((size_t)i * 2 + side) * NB + B + c];
                    continue;
                }
                const rod_dyn *rd = &d.rd[f->rod];
                for (int b = 0; b < 3; ++b) {
                    int nb = f->node - 1 + b;
                    if (nb < 0 || nb >= rd->m->nodes) continue;
                    for (int c = 0; c < B; ++c)
                        J[(d.mu_off + i) * N + rd->off + (size_t)nb * B + c] +=
                            d.G[((size_t)i * 2 + side) * NB + b * B + c];
                }
            }
            for (int c = 0; c < d.k; ++c) J[(d.mu_off + i) * N + d.mu_off + c] = gmu(&d, i, c);
        }
    }
    free_dyn(&d);
    free_setup(&u);
    return st;
}

cr_status cr_asm_dynamic_probe_solve(const cr_assembly *a, cr_assembly_state *s, int stage, const double *y_in,
                                     double shift_re, double shift_im, double *b_re, double *b_im, double *mass,
                                     int *tail_used, cr_error *err)
{
    cr_dynamic_options o = cr_dynamic_default_options();
    asm_dyn d = {0};
    setup_out u = {0};
    cr_status st = setup(&d, a, s, stage, &o, 0, &u, err);
    double *F = st == CR_OK ? malloc(d.N * sizeof *F) : NULL;
    if (st == CR_OK && !F) st = CR_NO_MEMORY;
    if (st == CR_OK) {
        if (y_in) memcpy(u.y, y_in, d.N * sizeof *u.y);
        if (mass) memcpy(mass, u.mass, d.N * sizeof *mass);
        st = residual(&d, u.tb, u.y, F);
    }
    if (st == CR_OK) st = hook_jacobian(u.tb, u.y, F, &d);
    if (st == CR_OK && shift_im == 0.0) {
        if ((st = hook_factor_real(shift_re, &d)) == CR_OK) st = hook_solve_real(b_re, &d);
    } else if (st == CR_OK) {
        if ((st = hook_factor_complex(shift_re, shift_im, &d)) == CR_OK) st = hook_solve_complex(b_re, b_im, &d);
    }
    if (tail_used) {
        *tail_used = 0;
        for (int r = 0; r < d.nr; ++r) *tail_used += shift_im == 0.0 ? d.rd[r].tail_real : d.rd[r].tail_cplx;
    }
    free(F);
    free_dyn(&d);
    free_setup(&u);
    return st;
}
