/* The port-Hamiltonian rod's two-sided pass (ph_direct.c; cr_ph_params.threads = 2) against the one-sided
 * pass (threads = 1) on 10^4 elements (NE): the same Newton system eliminated in another order, so the increments
 * agree to round-off in every Newton iteration, and so do the converged states (both within the Newton
 * tolerance of the same equations); every pass on two threads is the two-sided one (cr_ph.two_sided), and
 * its result does not depend on the threads actually running (bit-identical runs). */
#include "check.h"
#include "ph/ph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 10^4 elements; 2000 in the Debug/ASan build, where a pass over 10^4 elements costs ~0.5 s (the test's ~33 passes
   per case took 86 s there; the same checks and bounds: the condition, and with it the round-off, only grows
   with n_e) */
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
enum { NE = 2000 };
#else
enum { NE = 10000 };
#endif

static cr_ph *straight(const cr_ph_params *p)
{
    int nn = 2 * p->elements + 1;
    cr_vec3 *x = malloc(sizeof *x * nn);
    cr_mat3 *R = malloc(sizeof *R * nn);
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3(0, 0, p->length * I / (nn - 1));
        R[I] = cr_m3_columns(cr_v3(1, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1));
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(p, x, R, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x), free(R);
    return s;
}

/* Newton on both in lockstep, then two's own. The same state at t_n and initial guess on both (cr_ph_pack: after
   a solve on each their states would differ by round-off, which moves the step's solution by as much: a Kirchhoff
   step's increments then differed by a constant 1.4e-9, whatever the iteration). Each iteration's pass from one's
   iterate on both (ph_solve.c newton's passes, with the plain update X += dX shortened so that no director moves
   by more than 0.5, newton's turn limit), until one's increment is 1e-13 of the first or stalls at the round-off
   floor: every pass of two the two-sided one (cr_ph.two_sided counts them), and its increments within
   bound * |dX_k| + 1e-12 max(|dX_0|, |X|) of one's: the LU's round-off, cond eps of the iteration's own
   increment, plus the floor where the increments are the rounding of X itself and of the residual (node J's
   shares summed in another order): measured <= 1.7e-14 max(|dX_0|, |X|) in Release. Then cr_ph_solve_static /
   cr_ph_step on two: every Newton pass the two-sided one, and its converged coordinates against one's lockstep
   iterate (*dq). (One's own Newton is not run: under ASan a pass over 10^4 elements costs ~0.1 s.) *dinc: the
   first increment's difference relative to its largest entry. */
static void compare(cr_ph *one, cr_ph *two, int mode, double h, const cr_ph_loads *L, double bound, double *dinc,
                    double *dq)
{
    const int nx = one->nx, np = cr_ph_packed_size(one);
    double *buf = malloc(sizeof(double) * np), *dX = malloc(sizeof(double) * nx);
    cr_ph_pack(two, buf), cr_ph_unpack(one, buf);
    ph_begin(one, mode, h), ph_begin(two, mode, h);
    CHECK(memcmp(one->X, two->X, sizeof(double) * nx) == 0);
    double d0 = 0, dprev = INFINITY, worst = 0;
    int k = 0;
    for (;; ++k) {
        memcpy(two->X, one->X, sizeof(double) * nx);
        const long t1 = one->two_sided, t2 = two->two_sided;
        int bad = -1;
        CHECK(ph_direct_iteration(one, mode, L, one->X, one->r, one->dX, &bad) == CR_OK);
        CHECK(ph_direct_iteration(two, mode, L, two->X, two->r, two->dX, &bad) == CR_OK);
        /* the two-sided pass ran (had it handed the iteration to the one-sided pass, the bits would be one's) */
        CHECK(one->two_sided == t1 && two->two_sided == t2 + 1);
        double dmax = 0, diff = 0, rmax = 0, rdiff = 0, xmax = 0;
        for (int i = 0; i < nx; ++i) xmax = fmax(xmax, fabs(one->X[i]));
        for (int i = 0; i < nx; ++i) {
            dmax = fmax(dmax, fabs(one->dX[i])), diff = fmax(diff, fabs(one->dX[i] - two->dX[i]));
            rmax = fmax(rmax, fabs(one->r[i])), rdiff = fmax(rdiff, fabs(one->r[i] - two->r[i]));
        }
        if (k == 0) {
            /* the residuals: the same sums but node J's two halves' shares added in another order */
            printf("  first increment |dX| %.3e, two-sided - one-sided %.3e; residual |r| %.3e, difference %.3e\n",
                   dmax, diff, rmax, rdiff);
            CHECK(dmax > 0 && diff > 0);
            CHECK(rdiff <= 1e-13 * rmax);
            d0 = dmax, *dinc = diff / dmax;
            /* the two-sided pass again from the same iterate: bit-identical (nothing depends on the threads'
               timing), and with no worker (the caller runs both halves): the same bits */
            memcpy(dX, two->dX, sizeof(double) * nx);
            CHECK(ph_direct_iteration(two, mode, L, two->X, two->r, two->dX, &bad) == CR_OK);
            CHECK(memcmp(dX, two->dX, sizeof(double) * nx) == 0);
            struct cr_pool *pool = two->pool;
            two->pool = NULL;
            CHECK(ph_direct_iteration(two, mode, L, two->X, two->r, two->dX, &bad) == CR_OK);
            two->pool = pool;
            CHECK(memcmp(dX, two->dX, sizeof(double) * nx) == 0);
        }
        const double floor = 1e-12 * fmax(d0, xmax);
        printf("    iteration %d: |dX| %.3e, two-sided - one-sided %.3e (%.1e of the floor 1e-12 max(|dX_0|, |X|))\n",
               k, dmax, diff, diff / floor);
        CHECK(diff <= bound * dmax + floor);
        worst = fmax(worst, diff / (bound * dmax + floor));
        if (dmax <= 1e-13 * d0 || (k >= 2 && dmax >= 0.5 * dprev) || k == 15) break;
        dprev = dmax;
        const double sc = one->dturn > 0.5 ? 0.5 / one->dturn : 1.0;
        for (int i = 0; i < nx; ++i) one->X[i] += sc * one->dX[i];
    }
    printf("  %d iterations in lockstep, the differences at most %.3f of their bound\n", k + 1, worst);
    CHECK(k + 1 >= 3); /* several iterations, down to round-off */
    /* two's own Newton (the second-order director update, the convergence test): every pass (one per Jacobian)
       the two-sided one. Its converged coordinates against one's lockstep iterate (the same equations' solution
       at the round-off floor); one then takes two's state (the next compare starts from it). */
    int it2 = 0;
    cr_error err = {0};
    const long j2 = two->jacobians, t2 = two->two_sided;
    cr_status s2 = mode == PH_STATIC ? cr_ph_solve_static(two, L, &it2, NULL, &err) : cr_ph_step(two, h, L, &it2, &err);
    CHECK(s2 == CR_OK);
    printf("  Newton: %d iterations, %ld passes, %ld of them two-sided (one thread: %ld)\n", it2, two->jacobians - j2,
           two->two_sided - t2, one->two_sided);
    CHECK(it2 >= 2 && two->jacobians - j2 >= it2 && two->two_sided - t2 == two->jacobians - j2);
    CHECK(one->two_sided == 0);
    *dq = 0;
    for (int I = 0; I < one->nn; ++I) {
        const int o = one->node_off[I];
        for (int c = 0; c < 12; ++c)
            *dq = fmax(*dq, fabs((o < 0 ? one->q[12 * I + c] : one->X[o + c]) - two->q[12 * I + c]));
    }
    printf("  converged coordinates differ by %.3e\n", *dq);
    cr_ph_pack(two, buf), cr_ph_unpack(one, buf);
    free(buf), free(dX);
}

/* the same rod on one thread (the one-sided pass) and on two (the two-sided pass, split at the middle node) */
static int thread_pair(cr_ph_params *p, cr_ph **one, cr_ph **two)
{
    p->threads = 1;
    *one = straight(p);
    p->threads = 2;
    *two = straight(p);
    CHECK(*one && *two);
    if (!*one || !*two) return cr_ph_destroy(*one), cr_ph_destroy(*two), 0;
    CHECK((*one)->split == 0 && (*two)->split == 2 * (NE / 2));
    return 1;
}

/* A cantilever clamped at one end (end = 0: at s = 0, the load at the last node; end = 1: at s = L, the load
   at the first node, where the second half's first front has no lead node), tip force and moment: statics
   (a tip deflection of 0.05-0.1 L) and a midpoint step under twice the force.
   Reissner (kirchhoff = 0): elastic, no rigid components. Kirchhoff: rigid shear and extension; its half
   from the clamp delays the tension's pivots (ph_direct.c block_eliminate_delay).
   The bounds: the reduced matrix's LU in two orders of elimination differs by ~cond eps. Reissner: cond
   ~1e6-1e7 (measured 2.7e-10 of the increment in Release, 2.1-3.1e-9 in the Debug/ASan build at 10^4
   elements; 2e-10 there at its NE = 2000). Kirchhoff: the
   condition grows as n_e^2 (~1e8: the rigid constraints against the bending of elements of 1e-4 L), measured
   0.3-0.7e-9 in statics in Release, up to 2.3e-8 in the Debug build (the one-sided pass with its band LU in
   place of the fronts differs from the fronts by 7e-9 alike; from states that differed by round-off, as
   they do after a solve, the step's increments differed by 3.6-7.7e-9: compare gives both the same state).
   Over Newton's iterations (compare) the later ones' differences measured 0.5-1.6e-9 of their own increment
   until the floor, there <= 2e-14 of |X|. Newton takes both to the round-off of the same equations (measured
   <= 2e-14 of the length). */
static void cantilever(int end, int kirchhoff)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = NE, p.length = 1, p.rhoA = 1, p.M11 = p.M22 = 1e-4;
    p.stiffness[3] = p.stiffness[4] = 1, p.stiffness[5] = 0.8;
    if (kirchhoff)
        p.rigid = 0x7;
    else /* shear and extension stiffness 50 times the bending's: the reduced matrix's condition ~ k_s L^2 /
            (EI l_e) stays ~1e6 (a 1e5 one agreed to 1e-6 only: cond eps) */
        p.stiffness[0] = p.stiffness[1] = p.stiffness[2] = 50;
    p.clamp_start = !end, p.clamp_end = end, p.h = 1e-3, p.newton_atol = 1e-9;
    cr_ph *one, *two;
    if (!thread_pair(&p, &one, &two)) return;
    const int nn = 2 * NE + 1, tipn = end ? 0 : nn - 1;
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    F[tipn] = cr_v3(0.3, 0, 0), Mo[tipn] = cr_v3(0, kirchhoff ? 0.05 : 0, 0.1);
    cr_ph_loads L = {.node_force = F, .node_moment = Mo};
    double dinc, dq;
    const double bound = kirchhoff ? 3e-7 : 3e-8;
    compare(one, two, PH_STATIC, p.h, &L, bound, &dinc, &dq);
    cr_vec3 tip = cr_ph_position(two, tipn);
    printf("  static tip (%.6f, %.6f, %.6f)\n", tip.x, tip.y, tip.z);
    CHECK(tip.x > (kirchhoff ? 0.05 : 0.1)); /* a large deflection: the test is not one of a straight rod */
    CHECK(dinc <= bound);
    CHECK(dq <= 1e-10);
    F[tipn] = cr_v3(0.6, 0, 0);
    compare(one, two, PH_DYNAMIC, p.h, &L, bound, &dinc, &dq);
    CHECK(dinc <= bound);
    CHECK(dq <= 1e-10);
    free(F), free(Mo);
    cr_ph_destroy(one), cr_ph_destroy(two);
}

static void ph_threads_cantilever(void) { cantilever(0, 0); }
static void ph_threads_cantilever_clamped_end(void) { cantilever(1, 0); }
static void ph_threads_kirchhoff_clamped_start(void) { cantilever(0, 1); }
static void ph_threads_kirchhoff_clamped_end(void) { cantilever(1, 1); }

/* a free-free Kirchhoff rod (rigid shear and extension: 2 x 3 stresses per element), tip-loaded as the
   flying spaghetti: midpoint steps */
static void ph_threads_free_kirchhoff(void)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = NE, p.rigid = 0x7, p.h = 0.01, p.newton_atol = 1e-9;
    cr_ph *one, *two;
    if (!thread_pair(&p, &one, &two)) return;
    int nn = 2 * NE + 1;
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    F[nn - 1] = cr_v3(8, 0, 0), Mo[nn - 1] = cr_v3(0, 80, 40);
    cr_ph_loads L = {.node_force = F, .node_moment = Mo};
    double dinc, dq;
    compare(one, two, PH_DYNAMIC, p.h, &L, 1e-10, &dinc, &dq);
    /* measured 1e-13 of the increment (later iterations: <= 3e-3 of compare's floor) and 1e-16 of the length: the
       rigid rod is better conditioned */
    CHECK(dinc <= 1e-10);
    CHECK(dq <= 1e-12 * p.length);
    cr_ph_diag d;
    cr_ph_diagnostics(two, &d);
    printf("  energy balance %.3e, constraint violation %.3e\n", d.energy_balance, d.constraint_violation);
    CHECK(fabs(d.energy_balance) <= 1e-6);
    free(F), free(Mo);
    cr_ph_destroy(one), cr_ph_destroy(two);
}

CHECK_MAIN(CASE(ph_threads_cantilever), CASE(ph_threads_cantilever_clamped_end), CASE(ph_threads_free_kirchhoff),
           CASE(ph_threads_kirchhoff_clamped_start), CASE(ph_threads_kirchhoff_clamped_end))
