/* Stability of a static equilibrium of the mixed discrete rod (docs/theory.md,
 * "Stability of static equilibria").
 *
 * The static tangent J (7×7 blocks: r, p per node; rows: force in I, moment in B,
 * |p|² − 1; supports replace rows) is not symmetric (spec §7.4: W_c is not the
 * gradient of an energy; follower loads), so neither Sylvester's inertia of an
 * LDLᵀ nor the sign of det J (it misses the double eigenvalue in which a circular
 * section buckles) says whether the equilibrium is stable. What does is the
 * linearized dynamics about it (eqs. 12–13 with u̇ = ξ̈, ξ = (δr, δθ) per node):
 *
 *     M ξ̈ = A ξ,   A = P J T,   T = blkdiag(E₃, dExp⁺(p)) (δp = ½ p ⊗ (0, δθ)),
 *
 * P keeping the six balance rows. A mode ξ e^{iωt} has ω² = −μ for A ξ = μ M ξ;
 * ω² < 0 grows exponentially: the equilibrium is unstable. (For a conservative rod
 * A is the negative Hessian of the energy and ω² < 0 is the structural engineer's
 * negative eigenvalue; the count does not depend on M.)
 *
 * A⁻¹ comes from the LU of J: J y = (b, 0) with a zero right side in the norm rows
 * forces pᵀδp = 0, i.e. y = T ξ (the quaternion increments tangent to |p| = 1), and
 * then P J T ξ = b, so ξ = A⁻¹ b with δθ = dExp(p) δp. The norm rows thus produce no
 * eigenvalues at all. Held coordinates: the support rows are S(F) = T_s F + g(x);
 * the right side T_s b has zeros in the held rows (S(b) − S(0)), so ξ keeps the
 * held directions fixed and their reactions take up the held components of b: the
 * eigenvalues are those of the constrained rod. Rigid strain components' rows get a
 * zero right side as well (they are constraints).
 *
 * The eigenvalues of smallest |μ| are the largest of C = M^{½} A⁻¹ M^{½} (ν = 1/μ),
 * found by subspace iteration (src/solvers/stability.c); C is symmetric for a
 * conservative rod (Euclidean Rayleigh–Ritz is then optimal). */
#define _POSIX_C_SOURCE 199309L
#include "linalg/bigalloc.h"
#include "linalg/lowrank.h"
#include "mixed.h"
#include "solvers/stability.h"
#include "supports.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct stab_ctx {
    const cr_model *m;
    const cr_supports_at *at;
    const double *x;
    cr_blocktri *J;     /* factored */
    cr_blocktri_part *part; /* NULL: J factored serially */
    cr_pool *pool;
    double *sqrt_mass;  /* 6 per node */
    double *rhs;        /* nodes × block */
    double *zero;       /* S(0): the rows of each support's node, support k from k·block on */
    int *first;         /* support k is active and the first active one on its node */
    int coupled;        /* the model's low-rank term (self-contact) is prepared on J */
    double *many;       /* the block of vectors (static layout), one after the other */
} stab_ctx;

/* S(0), the support rows of a zero vector, for each support (its node's rows), through
 * `scratch` (nodes × block, zero on entry and on return): a few numbers where a vector
 * of the rod's length was kept (56 MB at 10⁶ nodes, a page fault per 4 kB); and which
 * supports subtract it (the first active one on each node) */
static double *support_offsets(const cr_model *m, const cr_supports_at *at, const double *x, double *scratch,
                               int **first)
{
    const int B = m->block, ns = m->support_count;
    double *z = malloc(((size_t)ns * B + 1) * sizeof *z);
    *first = malloc(((size_t)ns + 1) * sizeof **first);
    if (!z || !*first) {
        free(z), free(*first);
        *first = NULL;
        return NULL;
    }
    for (int k = 0; k < ns; ++k) {
        (*first)[k] = cr_support_active(&m->supports[k], at->stage);
        for (int j = 0; j < k && (*first)[k]; ++j)
            if (m->supports[j].node == m->supports[k].node && cr_support_active(&m->supports[j], at->stage))
                (*first)[k] = 0;
    }
    cr_supports_static_rows(m, at, x, scratch, NULL);
    for (int k = 0; k < m->support_count; ++k)
        memcpy(z + (size_t)k * B, scratch + (size_t)m->supports[k].node * B, B * sizeof *z);
    for (int k = 0; k < m->support_count; ++k) memset(scratch + (size_t)m->supports[k].node * B, 0, B * sizeof *z);
    return z;
}

/* rhs (static layout) := the support rows' map of the generalized forces b (6 per node),
 * each multiplied by scale's (NULL: 1) */
static void embed_into(const stab_ctx *c, const double *b, const double *scale, double *rhs)
{
    const cr_model *m = c->m;
    const int B = m->block;
    for (int i = 0; i < m->nodes; ++i) {
        double *ri = rhs + (size_t)i * B;
        const double *bi = b + (size_t)i * 6;
        if (scale)
            for (int r = 0; r < 6; ++r) ri[r] = scale[(size_t)i * 6 + r] * bi[r];
        else
            memcpy(ri, bi, 6 * sizeof(double));
        for (int r = 6; r < B; ++r) ri[r] = 0.0;
    }
    /* S(b) − S(0) = T_s b on the supported nodes (S(0) is in c->zero), once per node */
    cr_supports_static_rows(m, c->at, c->x, rhs, NULL);
    for (int k = 0; k < m->support_count; ++k) {
        if (!c->first[k]) continue;
        int i = m->supports[k].node;
        for (int r = 0; r < B; ++r) rhs[(size_t)i * B + r] -= c->zero[(size_t)k * B + r];
    }
    /* rows past the balance: the norm row and rigid components get 0, except where
     * a support replaced the norm row (already 0 above) */
    for (int i = 0; i < m->nodes; ++i)
        for (int r = 6; r < B; ++r) rhs[(size_t)i * B + r] = 0.0;
}

static void embed(const stab_ctx *c, const double *b) { embed_into(c, b, NULL, c->rhs); }

/* ξ (6 per node) from the solution y of J y = rhs (static layout) */
static void reduce(const cr_model *m, const double *x, const double *y, double *xi)
{
    const int B = m->block;
    for (int i = 0; i < m->nodes; ++i) {
        const double *yi = y + (size_t)i * B;
        double *o = xi + (size_t)i * 6;
        o[0] = yi[0], o[1] = yi[1], o[2] = yi[2];
        cr_vec3 dth = cr_q_dexp(cr_x_orientation(m, x, i), cr_q_load(yi + 3));
        o[3] = dth.x, o[4] = dth.y, o[5] = dth.z;
    }
}

/* J's block-tridiagonal part: y = rhs in place */
static void solve_bt(void *ctx, double *rhs)
{
    const stab_ctx *c = ctx;
    if (c->part) cr_blocktri_part_solve(c->part, c->J, c->pool, rhs);
    else cr_blocktri_solve(c->J, rhs);
}

/* Self-contact couples far nodes (the model's low-rank term of the tangent, prepared once per
 * estimate): without it a rod pressing on itself has no contact stiffness between its strands,
 * and a loop held shut by it (Greenhill's shaft beyond its critical twist) looked unstable */
static cr_lowrank *coupling(const stab_ctx *c)
{
    cr_lowrank *lr = c->m->couple;
    return c->coupled ? lr : NULL;
}

/* J y = rhs in place */
static void solve(const stab_ctx *c, double *rhs)
{
    solve_bt((void *)c, rhs);
    cr_lowrank *lr = coupling(c);
    if (lr) cr_lowrank_apply(lr, rhs);
}

/* one vector of a block: M^{½} u into the static layout, and back from the solution */
typedef struct apply_job {
    const stab_ctx *c;
    const double *U;
    double *out;
    size_t ld;
} apply_job;

static void embed_task(void *arg, int j)
{
    const apply_job *a = arg;
    const size_t n6 = (size_t)a->c->m->nodes * 6, dim = (size_t)a->c->m->nodes * a->c->m->block;
    embed_into(a->c, a->U + (size_t)j * n6, a->c->sqrt_mass, a->c->many + (size_t)j * dim);
}

/* out's column j may be the solution's own (the iteration's C V kept in the block of
 * solves, cr_eigen_problem.work): reduce() compacts it front to back, each node's six
 * written at or before its seven read (6i + r <= 7i + r'), never into another column */
static void reduce_task(void *arg, int j)
{
    const apply_job *a = arg;
    const size_t n6 = (size_t)a->c->m->nodes * 6, dim = (size_t)a->c->m->nodes * a->c->m->block;
    double *o = a->out + (size_t)j * a->ld;
    reduce(a->c->m, a->c->x, a->c->many + (size_t)j * dim, o);
    for (size_t k = 0; k < n6; ++k) o[k] *= a->c->sqrt_mass[k];
}

/* U ↦ M^{½} A⁻¹ M^{½} U for `count` vectors: one solve with them all, which reads the
 * factors once (on the threads: each chunk's, by its thread); the vectors' maps into
 * and out of the static layout one per task (a third of an apply's time serially).
 * Column j of the result at out + j·ld: either apart from the block of solves or, with
 * ld = its column length, that block itself */
static cr_status apply(void *ctx, const double *U, double *out, size_t ld, int count)
{
    const stab_ctx *c = ctx;
    const size_t dim = (size_t)c->m->nodes * c->m->block;
    apply_job job = {c, U, out, ld};
    cr_pool_run(c->pool, count, embed_task, &job);
    if (c->part) {
        cr_status st = cr_blocktri_part_solve_many(c->part, c->J, c->pool, c->many, dim, count);
        if (st != CR_OK) return st;
    } else {
        cr_blocktri_solve_many(c->J, c->many, count);
    }
    cr_lowrank *lr = coupling(c);
    if (lr)
        for (int j = 0; j < count; ++j) cr_lowrank_apply(lr, c->many + (size_t)j * dim);
    cr_pool_run(c->pool, count, reduce_task, &job);
    return CR_OK;
}

/* Lumped masses (eq. 1) with the welded bodies' mass and principal inertias added on
 * the diagonal; a rod without mass (a static-only scenario) gets ρA = 1 kg/m and no
 * rotational inertia: the rotations are then condensed statically, which keeps the
 * count of negative eigenvalues (Haynsworth) as long as the rotations alone, with the
 * positions held, are stable (shear stiffness: always for a rod). */
static int lumped_mass(const cr_model *m, double *sm)
{
    double total = 0;
    for (int i = 0; i < m->nodes; ++i) total += m->node_mass[i];
    int unit = !(total > 0);
    for (int i = 0; i < m->nodes; ++i) {
        double *o = sm + (size_t)i * 6;
        double mi = unit ? m->lumped_length[i] : m->node_mass[i];
        o[0] = o[1] = o[2] = mi;
        o[3] = unit ? 0 : m->node_inertia[i].x, o[4] = unit ? 0 : m->node_inertia[i].y;
        o[5] = unit ? 0 : m->node_inertia[i].z;
    }
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        double *o = sm + (size_t)b->node * 6;
        for (int a = 0; a < 3; ++a) o[a] += b->mass, o[3 + a] += b->inertia.m[a][a];
    }
    for (size_t k = 0; k < (size_t)m->nodes * 6; ++k) sm[k] = sqrt(fmax(sm[k], 0.0));
    return unit;
}

/* An eigenvalue counts as negative when it is below −STABILITY_ZERO times the largest
 * |ω²| of the block (round-off: cond(A) eps relative to the stiffest mode, far below
 * this for the soft modes looked at) and its Ritz pair has converged (relative
 * residual below 0.1; the reported ones are at 1e-8 to 1e-3). */
#define STABILITY_ZERO 1e-7
/* A complex pair counts as flutter above this |Im ω²| / |ω²|: the round-off of a
 * conservative rod's spectrum is ~1e-10 of it, the nonsymmetry of W_c (spec §7.4,
 * O(element length × curvature)) can split a double eigenvalue into a pair of that
 * order, and a follower moment's flutter pairs are O(1) (two-helical-segments.json). */
#define FLUTTER_IMAG 1e-3
#define STABILITY_ITERATIONS 30
#define STABILITY_TOL 1e-6

/* A lower bound on the constrained rod's degrees of freedom: 6 per node, less what the active
 * supports hold (each held direction counted, at most 6 a node: two supports on one node in
 * different frames may hold the same motion twice) and one per rigid strain component of each
 * element. Rigid components are constraints (their rows get a zero right side), so C = M^½ A⁻¹ M^½
 * has as many nonzero eigenvalues as the rod has free motions, at least this many (more where
 * constraints are redundant); a block wider than that takes round-off for modes, whose 1/ν are
 * huge ω² of either sign (the all-rigid tendon manipulator: ω² = −6e20, eigen-residual 0.92). */
static long free_motions(const cr_model *m, int stage)
{
    long held = 0;
    for (int i = 0; i < m->nodes; ++i) {
        int h = 0;
        for (int k = 0; k < m->support_count; ++k)
            if (m->supports[k].node == i && cr_support_active(&m->supports[k], stage))
                h += __builtin_popcount(m->supports[k].hold & CR_HOLD_ALL);
        held += h < 6 ? h : 6;
    }
    return 6L * m->nodes - held - (long)m->rigid_count * (m->nodes - 1);
}

static void unknown(cr_stability_report *rep, const char *why)
{
    rep->unknown = 1;
    rep->unstable_modes = rep->flutter_modes = 0;
    rep->growth_rate = 0;
    snprintf(rep->unknown_reason, sizeof rep->unknown_reason, "%s", why);
}

cr_status cr_mixed_static_stability(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                                    int modes, const cr_static_tangent *tangent, cr_stability_report *rep)
{
    return cr_mixed_static_stability_mode(m, at, scale, x, modes, tangent, rep, NULL, NULL);
}

cr_status cr_mixed_static_stability_mode(const cr_model *m, const cr_supports_at *at, const double *scale,
                                         const double *x, int modes, const cr_static_tangent *tangent,
                                         cr_stability_report *rep, double *mode, int *divergence)
{
    if (divergence) *divergence = 0;
    double t0 = now();
    memset(rep, 0, sizeof *rep);
    if (modes < 1) modes = 1;
    if (modes > CR_STABILITY_MAX_MODES) modes = CR_STABILITY_MAX_MODES;
    const int B = m->block;
    const size_t dim = (size_t)m->nodes * B, n6 = (size_t)m->nodes * 6;
    /* two more vectors than wanted: the j-th converges like (ω²_j / ω²_{block+1}) */
    int block = modes + 2 > CR_EIGEN_MAX_BLOCK ? CR_EIGEN_MAX_BLOCK : modes + 2;
    if ((size_t)block > n6) block = (int)n6;
    const long motions = free_motions(m, at->stage);
    if (motions <= 0) { /* nothing can move: no mode, and no round-off taken for one */
        rep->checked = rep->no_free_motion = 1;
        rep->time_s = now() - t0;
        return CR_OK;
    }
    if (block > motions) block = (int)motions;
    if (modes > block) modes = block;
    stab_ctx c = {.m = m, .at = at, .x = x};
    cr_blocktri *J = tangent ? tangent->J : NULL;
    const int factored = J && tangent->factored;
    if (J && tangent->part) c.part = tangent->part; /* a NULL pool: chunks in turn */
    if (tangent) c.pool = tangent->pool;
    c.J = J ? J : m->rigid_count > 0 ? cr_blocktri_create_banded(m->nodes, B) : cr_blocktri_create(m->nodes, B);
    /* the solves' block of columns and one more vector (rhs) in the caller's scratch when
     * it is large enough (the static solve's work vectors, done with) */
    const int borrowed = tangent && tangent->work && tangent->work_size >= dim * (block + 1);
    c.sqrt_mass = cr_big_calloc(n6);
    c.rhs = borrowed ? tangent->work + dim * block : cr_big_calloc(dim);
    c.many = borrowed ? tangent->work : cr_big_calloc(dim * block);
    double *F = factored ? NULL : cr_big_calloc(dim);
    if (c.rhs) {
        memset(c.rhs, 0, dim * sizeof *c.rhs);
        c.zero = support_offsets(m, at, x, c.rhs, &c.first);
    }
    cr_status st = c.J && c.sqrt_mass && c.rhs && c.zero && c.many && (F || factored) ? CR_OK : CR_NO_MEMORY;
    if (st == CR_OK && !factored)
        st = cr_mixed_static_residual_par(m, at, scale, x, F, c.J, NULL, tangent ? tangent->pool : NULL);
    if (st == CR_OK && !factored)
        st = c.part ? cr_blocktri_part_factor(c.part, c.J, c.pool, NULL) : cr_blocktri_factor(c.J, NULL);
    if (st == CR_OK && m->selfcontact && m->couple && m->couple->m > 0) /* the tangent's far-node part */
        c.coupled = (st = cr_lowrank_prepare(m->couple, 1.0, solve_bt, &c)) == CR_OK;
    free(F); /* the peak is the iteration's: keep it small (the statics' memory estimate, 3 kB per element) */
    F = NULL;
    cr_eigen_result er = {0};
    if (st == CR_OK) {
        rep->unit_density = lumped_mass(m, c.sqrt_mass);
        cr_eigen_problem p = {.dim = n6, .ctx = &c, .apply = apply, .work = c.many, .work_ld = dim, .pool = c.pool};
        st = cr_subspace_iteration(&p, block, modes, STABILITY_ITERATIONS, STABILITY_TOL, &er);
    }
    if (st == CR_OK && er.count > 0) {
        /* ω² = −1/ν, ν the Ritz values of C by decreasing magnitude: the lowest |ω²| first */
        int n = er.count < modes ? er.count : modes;
        double w2[CR_EIGEN_MAX_BLOCK], big = 0, worst = 0;
        int idx[CR_EIGEN_MAX_BLOCK];
        for (int j = 0; j < er.count; ++j) {
            double mag2 = er.re[j] * er.re[j] + er.im[j] * er.im[j];
            w2[j] = mag2 > 0 ? -er.re[j] / mag2 : INFINITY; /* Re(−1/ν) */
            if (fabs(w2[j]) > big && isfinite(w2[j])) big = fabs(w2[j]);
            idx[j] = j;
        }
        for (int a = 1; a < n; ++a) /* ascending among the n reported */
            for (int b = a; b > 0 && w2[idx[b]] < w2[idx[b - 1]]; --b) {
                int t = idx[b];
                idx[b] = idx[b - 1], idx[b - 1] = t;
            }
        rep->modes = n;
        for (int a = 0; a < n; ++a) {
            int j = idx[a];
            double mag2 = er.re[j] * er.re[j] + er.im[j] * er.im[j];
            rep->omega2[a] = w2[j];
            rep->omega2_imag_max = fmax(rep->omega2_imag_max, fabs(er.im[j]) / mag2);
            worst = fmax(worst, er.residual[j]);
            if (!(er.residual[j] < 0.1)) continue; /* not converged: no verdict */
            double complex om2 = -1.0 / (er.re[j] + I * er.im[j]), rate = csqrt(-om2);
            if (creal(om2) < -STABILITY_ZERO * big)
                rep->unstable_modes++;
            else if (fabs(cimag(om2)) > FLUTTER_IMAG * cabs(om2))
                rep->flutter_modes++;
            if (creal(om2) < -STABILITY_ZERO * big || fabs(cimag(om2)) > FLUTTER_IMAG * cabs(om2))
                rep->growth_rate = fmax(rep->growth_rate, fabs(creal(rate)));
        }
        rep->residual = worst;
        rep->iterations = er.iterations;
        /* the lowest mode in physical units: ξ = A⁻¹ M^{½} u / ν has M^{½} ξ = u, |u| = 1 (modal
         * mass 1); scaled to a largest node displacement of 1 m its stiffness is ω² / max|δr|² */
        int j = idx[0];
        double *xi = c.many; /* the block of columns, done with */
        cr_eigen_ritz_vector(&er, j, xi);
        for (size_t k = 0; k < n6; ++k) xi[k] *= c.sqrt_mass[k];
        embed(&c, xi);
        solve(&c, c.rhs);
        reduce(m, x, c.rhs, xi);
        double nu = er.re[j], dr = 0, dt = 0;
        int at_r = 0, at_t = 0;
        for (int i = 0; i < m->nodes; ++i) {
            const double *o = xi + (size_t)i * 6;
            double a = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) / fabs(nu);
            double b = sqrt(o[3] * o[3] + o[4] * o[4] + o[5] * o[5]) / fabs(nu);
            if (a > dr) dr = a, at_r = i;
            if (b > dt) dt = b, at_t = i;
        }
        rep->softest_rotational = dr < 1e-3 * dt * m->length; /* torsion: the nodes do not move */
        double amp = rep->softest_rotational ? dt : dr;
        if (divergence) { /* the lowest mode real and negative: a static push along it grows */
            double mag2 = er.re[j] * er.re[j] + er.im[j] * er.im[j], re = -er.re[j] / mag2, im = er.im[j] / mag2;
            *divergence =
                er.residual[j] < 0.1 && re < -STABILITY_ZERO * big && fabs(im) <= FLUTTER_IMAG * hypot(re, im);
        }
        if (mode) { /* scaled to a largest node displacement of 1 (rotation × length when rotational) */
            const double a = (rep->softest_rotational ? dt * m->length : dr) * fabs(nu);
            for (size_t k = 0; k < n6; ++k) mode[k] = a > 0 ? xi[k] / a : 0.0;
        }
        rep->softest_node = rep->softest_rotational ? at_t : at_r;
        rep->softest_stiffness = amp > 0 ? rep->omega2[0] / (amp * amp) : NAN;
        rep->checked = 1;
        /* a verdict needs the lowest mode converged and every reported number finite */
        int finite = isfinite(rep->residual) && isfinite(rep->softest_stiffness) && isfinite(rep->growth_rate);
        for (int a = 0; a < n; ++a) finite &= isfinite(rep->omega2[a]);
        char why[160];
        if (!finite)
            unknown(rep, "the eigenvalue estimate is not finite (a singular or ill-conditioned tangent)");
        else if (!(er.residual[idx[0]] < 0.1)) {
            snprintf(why, sizeof why, "the lowest mode did not converge in %d subspace iterations (residual %.2g)",
                     er.iterations, er.residual[idx[0]]);
            unknown(rep, why);
        }
    } else if (st == CR_OK) {
        rep->checked = 1;
        unknown(rep, "the subspace iteration found no eigenvalue");
    }
    cr_eigen_result_free(&er);
    if (c.J != J) cr_blocktri_destroy(c.J);
    free(c.sqrt_mass);
    if (!borrowed) free(c.rhs);
    free(c.zero);
    free(c.first);
    if (!borrowed) free(c.many);
    free(F);
    rep->time_s = now() - t0;
    return st;
}

/* ---- what a singular tangent leaves free ----
 * A rod that nothing holds in some motion (two pins and no support holding the twist:
 * every node may turn about the rod's axis) has a singular tangent; Newton then
 * takes huge steps along the free motion and the load step fails after its halvings.
 * Two inverse iterations with a slightly shifted tangent (J + σ D, D the rows' norms,
 * σ = 1e-15, so that an exactly zero pivot does not stop the factorization) give the
 * null vector v; it is judged singular when |J v|, each row divided by its norm,
 * stays below NULL_RATIO |v|. A free motion gives the shift, 1.0e-15 (the free twist
 * of tests/test_stability.c); the softest real mode of a rod gives more, and falls
 * with the element count: the twist of a clamped steel wire (r = 0.5 mm, L = 1 m)
 * gives 7.6e-5, 1.2e-7, 5.7e-10, 1.0e-10, 6.5e-12, 3.4e-13 at 1e2, 1e3, 1e4, 1e5,
 * 4e5, 1e6 elements (at 1e6 the solver's stall already says the tangent is too
 * ill-conditioned for its linear solves). */
#define NULL_RATIO 1e-13

static const char *axis_name(const double d[3])
{
    int k = fabs(d[0]) >= fabs(d[1]) && fabs(d[0]) >= fabs(d[2]) ? 0 : fabs(d[1]) >= fabs(d[2]) ? 1 : 2;
    return k == 0 ? "x" : k == 1 ? "y" : "z";
}

int cr_mixed_static_null_mode(const cr_model *m, const cr_supports_at *at, const double *scale, const double *x,
                              char *out, size_t size)
{
    const int B = m->block, nn = m->nodes;
    const size_t dim = (size_t)nn * B, n6 = (size_t)nn * 6;
    stab_ctx c = {.m = m, .at = at, .x = x};
    cr_blocktri *J0 = m->rigid_count > 0 ? cr_blocktri_create_banded(nn, B) : cr_blocktri_create(nn, B);
    c.J = m->rigid_count > 0 ? cr_blocktri_create_banded(nn, B) : cr_blocktri_create(nn, B);
    c.rhs = malloc(dim * sizeof(double));
    double *F = malloc(dim * sizeof(double)), *y = calloc(dim, sizeof(double)), *v = malloc(n6 * sizeof(double));
    double *rownorm = malloc(dim * sizeof(double));
    c.zero = y ? support_offsets(m, at, x, y, &c.first) : NULL;
    int found = 0;
    if (!J0 || !c.J || !c.rhs || !c.zero || !F || !y || !v || !rownorm) goto done;
    if (cr_mixed_static_residual(m, at, scale, x, F, J0, NULL) != CR_OK) goto done;
    /* rows are in mixed units (forces, moments, |p|² − 1): each is measured against its own norm */
    size_t bb = (size_t)B * B;
    for (int i = 0; i < nn; ++i)
        for (int r = 0; r < B; ++r) {
            double s2 = 0;
            for (int j = -1; j <= 1; ++j) {
                if (i + j < 0 || i + j >= nn) continue;
                const double *blk = (j < 0 ? J0->lower : j == 0 ? J0->diag : J0->upper) + i * bb + (size_t)r * B;
                for (int k = 0; k < B; ++k) s2 += blk[k] * blk[k];
            }
            rownorm[(size_t)i * B + r] = sqrt(s2) > 0 ? sqrt(s2) : 1.0;
        }
    memcpy(c.J->diag, J0->diag, nn * bb * sizeof(double));
    memcpy(c.J->lower, J0->lower, nn * bb * sizeof(double));
    memcpy(c.J->upper, J0->upper, nn * bb * sizeof(double));
    for (int i = 0; i < nn; ++i)
        for (int r = 0; r < 6; ++r) cr_blocktri_D(c.J, i)[r * B + r] += 1e-15 * rownorm[(size_t)i * B + r];
    if (cr_blocktri_factor(c.J, NULL) != CR_OK) goto done;
    unsigned long seed = 12345;
    for (size_t k = 0; k < n6; ++k) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        v[k] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
    }
    for (int it = 0; it < 2; ++it) {
        embed(&c, v);
        cr_blocktri_solve(c.J, c.rhs);
        memcpy(y, c.rhs, dim * sizeof(double));
        reduce(m, x, y, v);
        double s = 0;
        for (size_t k = 0; k < n6; ++k) s += v[k] * v[k];
        s = sqrt(s);
        if (!(s > 0) || !isfinite(s)) goto done;
        for (size_t k = 0; k < n6; ++k) v[k] /= s;
        for (size_t k = 0; k < dim; ++k) y[k] /= s;
    }
    /* |J y| row by row against the row norms, over |y| (y: the last solution, static layout) */
    cr_blocktri_matvec(J0, y, F);
    double jy = 0, ny = 0;
    for (size_t k = 0; k < dim; ++k) jy += F[k] * F[k] / (rownorm[k] * rownorm[k]), ny += y[k] * y[k];
    double ratio = sqrt(jy / ny);
    if (!(ratio < NULL_RATIO)) goto done;
    found = 1;
    /* what moves: translations against rotations times the rod length, and where */
    double tr = 0, rot = 0, dir_r[3] = {0, 0, 0}, dir_t[3] = {0, 0, 0}, big = 0;
    for (int i = 0; i < nn; ++i) {
        const double *o = v + (size_t)i * 6;
        double a = o[0] * o[0] + o[1] * o[1] + o[2] * o[2], b = o[3] * o[3] + o[4] * o[4] + o[5] * o[5];
        tr += a, rot += b * m->length * m->length;
        big = fmax(big, sqrt(a + b * m->length * m->length));
        for (int k = 0; k < 3; ++k) dir_r[k] += o[k] * o[k], dir_t[k] += o[3 + k] * o[3 + k];
    }
    int first = -1, last = -1;
    for (int i = 0; i < nn; ++i) {
        const double *o = v + (size_t)i * 6;
        double a = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] +
                        (o[3] * o[3] + o[4] * o[4] + o[5] * o[5]) * m->length * m->length);
        if (a > 0.1 * big) {
            if (first < 0) first = i;
            last = i;
        }
    }
    const char *what, *hold;
    char buf[96];
    if (rot >= tr) {
        const char *ax = axis_name(dir_t);
        if (ax[0] == 'x' && dir_t[0] > 0.9 * (dir_t[0] + dir_t[1] + dir_t[2]))
            what = "rotation about the rod's axis (twist, node axis x)", hold = "rx";
        else {
            snprintf(buf, sizeof buf, "rotation about the nodes' %s axis", ax);
            what = buf, hold = ax[0] == 'y' ? "ry" : "rz";
        }
    } else {
        const char *ax = axis_name(dir_r);
        snprintf(buf, sizeof buf, "translation along %s", ax);
        what = buf, hold = ax;
    }
    snprintf(out, size,
             "the tangent is singular (|J v| = %.1e |J| |v|): %s at nodes %d..%d is held by nothing; hold %s at a "
             "support",
             ratio, what, first, last, hold);
done:
    cr_blocktri_destroy(J0);
    cr_blocktri_destroy(c.J);
    free(c.rhs);
    free(c.zero);
    free(c.first);
    free(rownorm);
    free(F);
    free(y);
    free(v);
    return found;
}
