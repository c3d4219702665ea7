/* Stability of static equilibria (issue 9), against independent references:
 *  - a straight pinned–pinned Euler column held straight (no imperfection): stable
 *    below P_cr = π²EI/L², unstable above, the lowest ω² crossing zero at P_cr
 *    (analytic); its lowest eigenvalue is double (two bending planes of a circular
 *    section); with a small sine imperfection above P_cr the solve finds the stable
 *    buckled branch;
 *  - Greenhill's shaft held straight: stable below its critical twist (M_cr L/EI =
 *    9.7177 at T L²/EI = 5, tests/test_supports.c), unstable above;
 *  - an unloaded cantilever: ω² of its softest bending mode against Euler–Bernoulli,
 *    (1.8751)⁴ EI/(ρA L⁴);
 *  - a rod whose twist nothing holds: the failure names the free motion;
 *  - the subspace iteration itself on dense matrices against LAPACK's dgeev of the whole
 *    matrix (symmetric, nonsymmetric with a complex pair, and of a rank below the block,
 *    where Cholesky QR must hand over to Gram–Schmidt). */
#include "check.h"
#include "rod_builders.h"
#include "cosserat/cosserat.h"
#include "mixed/mixed.h"
#include "solvers/stability.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static int stability_off; /* cr_static_options.stability = 0 in solve() */

/* Solves d with the given load steps; fills *rep (freed here) and returns the status. */
static cr_status solve(const cr_rod_def *d, int steps, cr_static_report *rep, double *deflection, char *msg)
{
    cr_error err = {0};
    cr_model *m = cr_model_create(d, &err);
    if (!m) {
        fprintf(stderr, "model: %s\n", err.message);
        return CR_BAD_INPUT;
    }
    cr_state *s = cr_state_create(m);
    cr_static_options o = cr_static_default_options();
    o.load_steps = steps;
    o.stability = !stability_off;
    cr_status st = cr_static_solve(m, s, &o, NULL, NULL, rep, &err);
    if (msg) snprintf(msg, CR_ERROR_MESSAGE_SIZE, "%s", err.message);
    if (deflection) {
        *deflection = 0;
        for (int i = 0; i <= d->elements; ++i) {
            cr_vec3 r = cr_state_position(s, i);
            *deflection = fmax(*deflection, hypot(r.y, r.z));
        }
    }
    cr_state_destroy(s);
    cr_model_destroy(m);
    return st;
}

/* Pinned–pinned column of length L along x: a fork at the start (translations and
 * the twist held), a pin sliding along x at the end, dead load −P x at the end and,
 * when Q > 0, the lateral load Q sin(πx/L) along z (nodal lumping). */
static cr_status column(double P, double Q, int n, cr_static_report *rep, double *deflection)
{
    const double L = 1.0, EI = 2.0;
    cr_section_segment sec = resultants(1e8, 1e8, EI, EI, 1.0);
    cr_rod_def d = straight_rod(&sec, L, n);
    cr_bc_def bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
    bc[0].type = CR_BC_SUPPORT, bc[0].node = 0, bc[0].hold = CR_HOLD_TRANSLATION | CR_HOLD_RX;
    bc[1].type = CR_BC_SUPPORT, bc[1].node = -1, bc[1].hold = CR_HOLD_Y | CR_HOLD_Z;
    d.bcs = bc;
    d.bc_count = 2;
    cr_load_def *l = calloc((size_t)n + 2, sizeof *l);
    int nl = 0;
    l[nl] = cr_load_default_def();
    l[nl].type = CR_LOAD_FORCE, l[nl].node = -1, l[nl++].value = cr_v3(-P, 0, 0);
    for (int i = 1; Q > 0 && i < n; ++i) {
        l[nl] = cr_load_default_def();
        l[nl].type = CR_LOAD_FORCE, l[nl].node = i, l[nl++].value = cr_v3(0, 0, Q * sin(M_PI * i / n) * L / n);
    }
    d.loads = l;
    d.load_count = nl;
    cr_status st = solve(&d, Q > 0 ? 100 : 10, rep, deflection, NULL);
    free(l);
    return st;
}

static void print_stability(const char *what, const cr_stability_report *s)
{
    fprintf(stderr, "  %s: checked %d, unstable %d, ω² =", what, s->checked, s->unstable_modes);
    for (int k = 0; k < s->modes; ++k) fprintf(stderr, " %.6g", s->omega2[k]);
    fprintf(stderr, " (|Im| %.1e), softest %.4g N/m at node %d, %d iterations, residual %.1e, %.2f ms\n",
            s->omega2_imag_max, s->softest_stiffness, s->softest_node, s->iterations, s->residual, 1e3 * s->time_s);
}

static void test_column(void)
{
    const int n = 40;
    const double Pe = M_PI * M_PI * 2.0; /* π² EI / L² */
    cr_static_report r0 = {0}, r1 = {0}, r2 = {0}, r3 = {0};
    double d0, d1, d2, d3;
    CHECK(column(0.0, 0, n, &r0, &d0) == CR_OK);
    CHECK(column(0.9 * Pe, 0, n, &r1, &d1) == CR_OK);
    CHECK(column(1.1 * Pe, 0, n, &r2, &d2) == CR_OK);
    print_stability("column P = 0", &r0.stability);
    print_stability("column 0.9 P_cr", &r1.stability);
    print_stability("column 1.1 P_cr, straight", &r2.stability);
    const cr_stability_report *s0 = &r0.stability, *s1 = &r1.stability, *s2 = &r2.stability;
    CHECK(s0->checked && s1->checked && s2->checked);
    CHECK(d2 < 1e-9); /* held straight: nothing breaks the symmetry */
    CHECK(s0->unstable_modes == 0 && s1->unstable_modes == 0);
    CHECK(s2->unstable_modes == 2); /* both bending planes */
    /* unloaded: ω₁² = π⁴ EI/(ρA L⁴), and the modal stiffness at unit midspan deflection
     * (π²/2L)(P_e − P) = ω₁² ρA L/2 (modal mass of sin(πx/L)) */
    double w1 = pow(M_PI, 4) * 2.0;
    fprintf(stderr, "  column: ω₁² %.5g (Euler–Bernoulli %.5g, rel. %.1e), modal stiffness %.5g N/m (%.5g)\n",
            s0->omega2[0], w1, s0->omega2[0] / w1 - 1, s0->softest_stiffness, w1 / 2);
    CHECK(fabs(s0->omega2[0] / w1 - 1) < 2e-3);
    CHECK(fabs(s0->softest_stiffness / (w1 / 2) - 1) < 2e-3);
    CHECK(!s0->softest_rotational && s0->softest_node == n / 2);
    /* a circular section buckles in a double eigenvalue (det J keeps its sign) */
    for (int k = 0; k < 3; ++k) {
        const cr_stability_report *s = k == 0 ? s0 : k == 1 ? s1 : s2;
        fprintf(stderr, "  column: lowest pair %.12g %.12g (rel. %.1e)\n", s->omega2[0], s->omega2[1],
                fabs(s->omega2[1] / s->omega2[0] - 1));
        CHECK(fabs(s->omega2[1] / s->omega2[0] - 1) < 1e-6);
    }
    /* ω₁² is linear in P on the straight branch: its zero is the buckling load */
    double Pz = 0.9 * Pe + (0.2 * Pe) * s1->omega2[0] / (s1->omega2[0] - s2->omega2[0]);
    fprintf(stderr, "  column: ω₁² = 0 at P = %.6f N, Euler π²EI/L² = %.6f N (rel. %.1e)\n", Pz, Pe, Pz / Pe - 1);
    CHECK(fabs(Pz / Pe - 1) < 0.01);
    CHECK(fabs(Pz / Pe - 1) < 2e-3); /* the O(h²) of 40 elements: (π/40)²/12 = 5e-4 */
    /* with an imperfection the load steps follow the stable branch: buckled, no unstable mode */
    CHECK(column(1.1 * Pe, 1e-3 * Pe, n, &r3, &d3) == CR_OK);
    print_stability("column 1.1 P_cr, imperfect", &r3.stability);
    fprintf(stderr, "  column: imperfect at 1.1 P_cr: deflection %.3f L\n", d3);
    CHECK(d3 > 0.1 && r3.stability.checked && r3.stability.unstable_modes == 0 && r3.stability.omega2[0] > 0);
    /* switched off: not estimated, and the solve is the same */
    cr_static_report r4 = {0};
    double d4;
    stability_off = 1;
    CHECK(column(1.1 * Pe, 0, n, &r4, &d4) == CR_OK);
    stability_off = 0;
    CHECK(!r4.stability.checked && r4.stability.unstable_modes == 0 && r4.total_iterations == r2.total_iterations);
    cr_static_report_free(&r4);
    cr_static_report_free(&r0);
    cr_static_report_free(&r1);
    cr_static_report_free(&r2);
    cr_static_report_free(&r3);
}

/* Greenhill: clamped at the start; the end holds y, z and every rotation, slides
 * along x, is pulled by T and turned about x by φ (tests/test_supports.c). */
static cr_status greenhill(double phi, cr_static_report *rep, double *deflection)
{
    const double L = 1.0, EI = 1.0, GJ = 0.5, T = 5.0;
    const int n = 60;
    cr_section_segment sec = resultants(1e5, 1e5, GJ, EI, 1.0);
    cr_rod_def d = straight_rod(&sec, L, n);
    cr_bc_def bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
    bc[0].type = CR_BC_CLAMP, bc[0].node = 0;
    bc[1].type = CR_BC_SUPPORT, bc[1].node = -1, bc[1].frame = CR_FRAME_BODY;
    bc[1].hold = CR_HOLD_ALL & ~(unsigned)CR_HOLD_X;
    bc[1].rotation_kind = CR_BC_ROTATION_VECTOR, bc[1].rotation = cr_v3(phi, 0, 0);
    d.bcs = bc;
    d.bc_count = 2;
    cr_load_def l = cr_load_default_def();
    l.type = CR_LOAD_FORCE, l.node = -1, l.value = cr_v3(T, 0, 0);
    d.loads = &l;
    d.load_count = 1;
    return solve(&d, 60, rep, deflection, NULL);
}

static void test_greenhill(void)
{
    /* M_cr L/EI = 9.7177 at T L²/EI = 5 (the linearized equations, tests/test_supports.c) */
    const double phi_cr = 9.7177 / 0.5;
    cr_static_report below = {0}, above = {0};
    double db, da;
    CHECK(greenhill(0.97 * phi_cr, &below, &db) == CR_OK);
    CHECK(greenhill(1.03 * phi_cr, &above, &da) == CR_OK);
    print_stability("Greenhill 0.97 Φ_cr", &below.stability);
    print_stability("Greenhill 1.03 Φ_cr, straight", &above.stability);
    CHECK(db < 1e-9 && da < 1e-9);
    CHECK(below.stability.checked && below.stability.unstable_modes == 0);
    CHECK(above.stability.checked && above.stability.unstable_modes >= 1);
    /* the zero of ω₁² between the two twists, against Φ_cr */
    double wb = below.stability.omega2[0], wa = above.stability.omega2[0];
    double pz = 0.97 * phi_cr + 0.06 * phi_cr * wb / (wb - wa);
    fprintf(stderr, "  Greenhill: ω₁² = 0 at Φ = %.4f rad, Φ_cr = %.4f (rel. %.1e)\n", pz, phi_cr, pz / phi_cr - 1);
    CHECK(fabs(pz / phi_cr - 1) < 0.01);
    cr_static_report_free(&below);
    cr_static_report_free(&above);
}

/* Unloaded cantilever: ω₁² = β⁴ EI/(ρA L⁴), β = 1.8751 (Euler–Bernoulli); loaded by a
 * large dead tip load (tip rotation about 60°) it stays stable. */
/* A cantilever of unit length (EI = 2, n elements) clamped at node 0 with a dead tip
 * force (0, 0, fz); the section, support and load live in the caller's variables. */
typedef struct cantilever {
    cr_section_segment sec;
    cr_bc_def bc;
    cr_load_def load;
    cr_rod_def d;
} cantilever;

static void cantilever_init(cantilever *c, int n, double fz)
{
    c->sec = resultants(1e8, 1e8, 2.0, 2.0, 1.0);
    c->d = straight_rod(&c->sec, 1.0, n);
    c->bc = cr_bc_default_def();
    c->bc.type = CR_BC_CLAMP, c->bc.node = 0;
    c->d.bcs = &c->bc;
    c->d.bc_count = 1;
    c->load = cr_load_default_def();
    c->load.type = CR_LOAD_FORCE, c->load.node = -1, c->load.value = cr_v3(0, 0, fz);
    c->d.loads = &c->load;
    c->d.load_count = 1;
}

static void test_cantilever(void)
{
    const double EI = 2.0;
    const int n = 40;
    cantilever c;
    cantilever_init(&c, n, 0.0);
    cr_rod_def d = c.d;
    cr_load_def *l = &c.load;
    cr_static_report r = {0};
    double dz;
    CHECK(solve(&d, 1, &r, &dz, NULL) == CR_OK);
    print_stability("cantilever unloaded", &r.stability);
    double w1 = pow(1.8751040687, 4) * EI;
    fprintf(stderr, "  cantilever: ω₁² %.5g, Euler–Bernoulli %.5g (rel. %.1e)\n", r.stability.omega2[0], w1,
            r.stability.omega2[0] / w1 - 1);
    CHECK(fabs(r.stability.omega2[0] / w1 - 1) < 2e-3);
    CHECK(r.stability.unstable_modes == 0 && r.stability.softest_node == n);
    cr_static_report_free(&r);
    l->value = cr_v3(0, 0, -10 * EI);
    CHECK(solve(&d, 10, &r, &dz, NULL) == CR_OK);
    print_stability("cantilever tip load 10 EI/L²", &r.stability);
    CHECK(dz > 0.5 && r.stability.checked && r.stability.unstable_modes == 0);
    cr_static_report_free(&r);
}

/* The estimate after a solve: Newton's last LU when it is of the end state (one converged
 * update away), else the tangent there, factored serially on one thread and partitioned on
 * two (the block of vectors then solved on the chunks together, cr_blocktri_part_solve_many);
 * with rigid strain components always a fresh one (their last update is not small enough:
 * reused, ω² were off by 3e-5). And with a partitioned LU lent by the caller: two
 * chunks factored inside, with no pool (its chunks in turn); three chunks (a middle one,
 * with its fill-in) factored by the caller and solved on two threads. Every variant's ω²
 * must agree with an estimate from a tangent assembled and factored afresh at the end
 * state. */
static void test_reused_tangent(void)
{
    const char *what[5] = {"1 thread (Newton's LU)", "2 threads (partitioned LU)", "rigid shear (fresh LU)",
                           "partitioned LU, no pool", "3-chunk LU factored by the caller, 2 threads"};
    for (int v = 0; v < 5; ++v) {
        cantilever c;
        cantilever_init(&c, 40, -20.0); /* tip load 10 EI/L² */
        if (v == 2) c.d.rigid_strains = CR_RIGID_GAMMA_Y | CR_RIGID_GAMMA_Z;
        cr_error err = {0};
        cr_model *m = cr_model_create(&c.d, &err);
        CHECK(m != NULL);
        if (!m) continue;
        cr_state *s = cr_state_create(m);
        cr_static_options o = cr_static_default_options();
        o.threads = v == 1 ? 2 : 1;
        cr_static_report r = {0};
        CHECK(cr_static_solve(m, s, &o, NULL, NULL, &r, &err) == CR_OK);
        cr_supports_at at = cr_state_supports_at(s);
        cr_stability_report got = r.stability, fresh;
        if (v == 3) { /* the caller's partitioned LU, two chunks, factored inside */
            cr_blocktri *J = cr_blocktri_create(m->nodes, m->block);
            cr_blocktri_part *part = cr_blocktri_part_create(m->nodes, m->block, 2, NULL);
            cr_static_tangent t = {.J = J, .part = part};
            CHECK(J && part && cr_mixed_static_stability(m, &at, s->load_scale, s->x, o.stability_modes, &t, &got) == CR_OK);
            cr_blocktri_part_destroy(part);
            cr_blocktri_destroy(J);
        }
        if (v == 4) { /* factored = 1: the estimate only solves with it */
            cr_blocktri *J = cr_blocktri_create(m->nodes, m->block);
            cr_blocktri_part *part = cr_blocktri_part_create(m->nodes, m->block, 3, NULL);
            cr_pool *pool = cr_pool_create(2);
            double *F = malloc((size_t)m->nodes * m->block * sizeof *F);
            CHECK(J && part && pool && F);
            CHECK(cr_mixed_static_residual(m, &at, s->load_scale, s->x, F, J, NULL) == CR_OK);
            CHECK(cr_blocktri_part_factor(part, J, pool, NULL) == CR_OK);
            cr_static_tangent t = {.J = J, .part = part, .pool = pool, .factored = 1};
            CHECK(cr_mixed_static_stability(m, &at, s->load_scale, s->x, o.stability_modes, &t, &got) == CR_OK);
            free(F);
            cr_pool_destroy(pool);
            cr_blocktri_part_destroy(part);
            cr_blocktri_destroy(J);
        }
        CHECK(cr_mixed_static_stability(m, &at, s->load_scale, s->x, o.stability_modes, NULL, &fresh) == CR_OK);
        double worst = 0;
        for (int k = 0; k < fresh.modes; ++k) worst = fmax(worst, fabs(got.omega2[k] / fresh.omega2[k] - 1));
        fprintf(stderr, "  stage estimate, %s: ω² %.10g %.10g … against a fresh tangent: worst rel. %.1e\n", what[v],
                got.omega2[0], got.omega2[1], worst);
        CHECK(got.checked && fresh.checked && got.modes == fresh.modes && fresh.modes == 4);
        CHECK(worst < 1e-6);
        cr_static_report_free(&r);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
}

/* Two pins without a fork: nothing holds the twist, and an end torque about the axis
 * has no equilibrium. The failure says what is free and what to hold; a failure with
 * a regular tangent (too few Newton iterations) says nothing of the kind. */
static void test_free_twist(void)
{
    const int n = 20;
    cr_section_segment sec = resultants(1e6, 1e6, 1.0, 1.0, 1.0);
    cr_rod_def d = straight_rod(&sec, 1.0, n);
    cr_bc_def bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
    bc[0].type = CR_BC_SUPPORT, bc[0].node = 0, bc[0].hold = CR_HOLD_TRANSLATION;
    bc[1].type = CR_BC_SUPPORT, bc[1].node = -1, bc[1].hold = CR_HOLD_Y | CR_HOLD_Z;
    d.bcs = bc;
    d.bc_count = 2;
    cr_load_def l[2] = {cr_load_default_def(), cr_load_default_def()};
    l[0].type = CR_LOAD_FORCE, l[0].node = -1, l[0].value = cr_v3(2.0, 0, 0);
    l[1].type = CR_LOAD_MOMENT, l[1].node = -1, l[1].value = cr_v3(0.1, 0, 0);
    d.loads = l;
    d.load_count = 2;
    char msg[CR_ERROR_MESSAGE_SIZE];
    cr_static_report r = {0};
    cr_status st = solve(&d, 10, &r, NULL, msg);
    fprintf(stderr, "  free twist: %s\n", msg);
    CHECK(st != CR_OK);
    CHECK(strstr(msg, "the tangent is singular") && strstr(msg, "twist") && strstr(msg, "nodes 0..20") &&
          strstr(msg, "hold rx"));
    CHECK(!r.stability.checked);
    cr_static_report_free(&r);
    /* held twist (a fork): a regular tangent; one Newton iteration per step is too few */
    bc[0].hold = CR_HOLD_TRANSLATION | CR_HOLD_RX;
    l[1].value = cr_v3(0, 0.5, 0);
    cr_error err = {0};
    cr_model *m = cr_model_create(&d, &err);
    cr_state *s = cr_state_create(m);
    cr_static_options o = cr_static_default_options();
    o.load_steps = 1, o.max_iterations = 1, o.max_halvings = 1;
    st = cr_static_solve(m, s, &o, NULL, NULL, NULL, &err);
    fprintf(stderr, "  regular failure: %s\n", err.message);
    CHECK(st != CR_OK && !strstr(err.message, "singular"));
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* The paper's two helical segments (a cantilever under a follower end moment): the
 * equilibrium is unstable by flutter (complex ω², mesh-independent: |Im ω²| = 6.7e-7
 * to 7.1e-7 1/s² at 50 to 400 elements), and the dynamics agree: released after a
 * disturbance of 1e-7 N, the kinetic energy grows by orders of magnitude. */
static void test_follower_moment(void)
{
    const char *sets[] = {
        "loads=[{\"type\": \"moment\", \"node\": \"end\", \"frame\": \"body\", \"value\": [0.3475829732096974, 0, "
        "1.0919641151484831]}, {\"type\": \"force\", \"node\": 45, \"value\": [1e-7, 1e-7, 1e-7], \"stages\": [0]}]",
        "stages=[{\"type\": \"static\", \"load_steps\": 10, \"max_iterations\": 30}, {\"type\": \"dynamic\", "
        "\"t_end\": 1600, \"output_dt\": 400}]",
        "output.vtk=false"};
    cr_scenario *sc = NULL;
    cr_error err = {0};
    cr_status st = cr_scenario_load_file(COSSERAT_SOURCE_DIR "/examples/two-helical-segments.json", sets, 3, &sc, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CR_OK);
    if (!sc) return;
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result r;
    CHECK(cr_scenario_run(sc, &o, &r, &err) == CR_OK);
    const cr_stability_report *s = &r.statics[0].stability;
    print_stability("two helical segments", s);
    CHECK(s->checked && s->flutter_modes >= 1 && s->omega2_imag_max > 1e-3 * fabs(s->omega2[0]));
    int warned = 0;
    for (int k = 0; k < r.warning_count; ++k) warned |= !strcmp(r.warnings[k].code, "unstable_equilibrium");
    CHECK(warned);
    int ke = -1;
    for (int k = 0; k < r.series_columns; ++k)
        if (!strcmp(r.series_names[k], "energy_kinetic")) ke = k;
    CHECK(ke >= 0 && r.series_rows == 5);
    if (ke >= 0 && r.series_rows == 5) {
        double e1 = r.series[1 * r.series_columns + ke], e4 = r.series[4 * r.series_columns + ke];
        fprintf(stderr, "  two helical segments released: kinetic energy %.2e J at t = 400 s, %.2e J at 1600 s\n", e1,
                e4);
        CHECK(e4 > 1e6 * e1);
    }
    cr_run_result_free(&r);
    cr_scenario_destroy(sc);
}

/* ---- the eigen solver alone, on dense matrices ---- */

extern void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *wr,
                   double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr, double *work, const int *lwork,
                   int *info);

typedef struct dense_op {
    int n;
    const double *C; /* row-major */
} dense_op;

static cr_status dense_apply(void *ctx, const double *X, double *Y, size_t ldy, int count)
{
    const dense_op *d = ctx;
    for (int j = 0; j < count; ++j)
        for (int i = 0; i < d->n; ++i) {
            double s = 0;
            for (int l = 0; l < d->n; ++l) s += d->C[(size_t)i * d->n + l] * X[(size_t)j * d->n + l];
            Y[(size_t)j * ldy + i] = s;
        }
    return CR_OK;
}

static double uniform(unsigned long *seed)
{
    *seed = *seed * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(*seed >> 11) / 9007199254740992.0 - 0.5;
}

/* C = Q diag(lam) Qᵀ with Q from Gram–Schmidt of a pseudo-random matrix */
static double *symmetric_with(int n, const double *lam, unsigned long seed)
{
    double *Q = malloc((size_t)n * n * sizeof *Q), *C = calloc((size_t)n * n, sizeof *C);
    for (int i = 0; i < n * n; ++i) Q[i] = uniform(&seed);
    for (int j = 0; j < n; ++j) { /* columns j: Q[i*n + j] */
        for (int pass = 0; pass < 2; ++pass)
            for (int l = 0; l < j; ++l) {
                double d = 0;
                for (int i = 0; i < n; ++i) d += Q[i * n + l] * Q[i * n + j];
                for (int i = 0; i < n; ++i) Q[i * n + j] -= d * Q[i * n + l];
            }
        double nn = 0;
        for (int i = 0; i < n; ++i) nn += Q[i * n + j] * Q[i * n + j];
        for (int i = 0; i < n; ++i) Q[i * n + j] /= sqrt(nn);
    }
    for (int i = 0; i < n; ++i)
        for (int l = 0; l < n; ++l)
            for (int j = 0; j < n; ++j) C[i * n + l] += Q[i * n + j] * lam[j] * Q[l * n + j];
    free(Q);
    return C;
}

/* the `count` eigenvalues of largest magnitude of the whole matrix (dgeev), by decreasing magnitude */
static void reference_values(int n, const double *C, int count, double *re, double *im)
{
    double *A = malloc((size_t)n * n * sizeof *A), *wr = malloc(n * sizeof *wr), *wi = malloc(n * sizeof *wi);
    int lwork = 8 * n, one = 1, info = 0;
    double *work = malloc(lwork * sizeof *work), dummy;
    for (int i = 0; i < n; ++i) /* column-major copy */
        for (int j = 0; j < n; ++j) A[i + (size_t)j * n] = C[(size_t)i * n + j];
    dgeev_("N", "N", &n, A, &n, wr, wi, &dummy, &one, &dummy, &one, work, &lwork, &info);
    CHECK(info == 0);
    for (int c = 0; c < count; ++c) {
        int best = -1;
        for (int i = 0; i < n; ++i)
            if (best < 0 || hypot(wr[i], wi[i]) > hypot(wr[best], wi[best])) best = i;
        re[c] = wr[best], im[c] = wi[best];
        wr[best] = wi[best] = 0;
    }
    free(A), free(wr), free(wi), free(work);
}

/* the same iteration with C V kept in lent memory whose columns are padded: the same
 * values and residuals exactly, the padding untouched */
static void check_lent_work(cr_eigen_problem p, int block, int wanted, const cr_eigen_result *own)
{
    const size_t ld = p.dim + 5;
    double *w = malloc(ld * block * sizeof *w);
    for (size_t k = 0; k < ld * block; ++k) w[k] = 777.0;
    p.work = w, p.work_ld = ld;
    cr_eigen_result r = {0};
    CHECK(cr_subspace_iteration(&p, block, wanted, 60, 1e-6, &r) == CR_OK);
    CHECK(r.iterations == own->iterations);
    for (int j = 0; j < own->count; ++j)
        CHECK(r.re[j] == own->re[j] && r.im[j] == own->im[j] && r.residual[j] == own->residual[j]);
    int padding = 1;
    for (int j = 0; j < block; ++j)
        for (size_t k = p.dim; k < ld; ++k) padding &= w[j * ld + k] == 777.0;
    CHECK(padding);
    cr_eigen_result_free(&r);
    free(w);
}

static void test_subspace_dense(void)
{
    enum { N = 240 };
    double lam[N], re[6], im[6], u[N], cu[N];
    /* symmetric, a spectrum like a rod's inverse stiffness: ν_j ~ 1/j⁴ of both signs */
    for (int j = 0; j < N; ++j) lam[j] = (j % 5 == 3 ? -1.0 : 1.0) / pow(1.0 + 0.7 * j, 4.0);
    double *C = symmetric_with(N, lam, 7);
    dense_op op = {N, C};
    cr_eigen_problem p = {.dim = N, .ctx = &op, .apply = dense_apply};
    cr_eigen_result r = {0};
    CHECK(cr_subspace_iteration(&p, 6, 4, 60, 1e-6, &r) == CR_OK && r.basis && r.count == 6);
    reference_values(N, C, 4, re, im);
    for (int j = 0; j < 4 && r.basis; ++j) {
        /* the value to tol; the reported residual is |C u − ν u|/|ν| of the returned unit vector */
        cr_eigen_ritz_vector(&r, j, u);
        dense_apply(&op, u, cu, N, 1);
        double nu = 0, res = 0;
        for (int i = 0; i < N; ++i) nu += u[i] * u[i], res += (cu[i] - r.re[j] * u[i]) * (cu[i] - r.re[j] * u[i]);
        res = sqrt(res) / fabs(r.re[j]);
        fprintf(stderr, "  dense symmetric: ν%d %.12g (dgeev %.12g), residual %.2e (direct %.2e), %d iterations\n", j,
                r.re[j], re[j], r.residual[j], res, r.iterations);
        CHECK(fabs(r.re[j] / re[j] - 1) < 1e-6 && r.im[j] == 0);
        CHECK_NEAR(sqrt(nu), 1.0, 1e-12);
        CHECK(fabs(r.residual[j] - res) <= 1e-3 * res + 1e-7);
    }
    check_lent_work(p, 6, 4, &r);
    cr_eigen_result_free(&r);

    /* nonsymmetric, its largest a complex pair: C = S (blocks) S⁻¹ with S = I + small noise,
     * built as C = B + E with B block-diagonal and E a small random perturbation, and
     * compared with dgeev of C itself */
    unsigned long seed = 99;
    double *D = calloc((size_t)N * N, sizeof *D);
    for (int i = 0; i < N * N; ++i) D[i] = 1e-3 * uniform(&seed);
    D[0 * N + 0] = 1.0, D[0 * N + 1] = -0.5, D[1 * N + 0] = 0.5, D[1 * N + 1] = 1.0; /* 1 ± 0.5 i */
    for (int j = 2; j < N; ++j) D[(size_t)j * N + j] += 0.9 / pow(1.0 + 0.5 * (j - 2), 2.0);
    op.C = D;
    CHECK(cr_subspace_iteration(&p, 6, 4, 60, 1e-6, &r) == CR_OK);
    reference_values(N, D, 4, re, im);
    for (int j = 0; j < 4; ++j) {
        fprintf(stderr, "  dense nonsymmetric: ν%d %.10g%+.10gi (dgeev %.10g%+.10gi), residual %.1e\n", j, r.re[j],
                r.im[j], re[j], im[j], r.residual[j]);
        CHECK(hypot(r.re[j] - re[j], fabs(r.im[j]) - fabs(im[j])) < 1e-5 * hypot(re[j], im[j]));
    }
    CHECK(r.im[0] != 0 && fabs(r.im[0]) == fabs(r.im[1]));
    cr_eigen_result_free(&r);

    /* rank 3 below a block of 6: C V loses rank, Cholesky QR fails, Gram–Schmidt restarts
     * the lost vectors; the three nonzero values still come out */
    for (int j = 0; j < N; ++j) lam[j] = j < 3 ? 1.0 / (j + 1) : 0.0;
    double *Z = symmetric_with(N, lam, 11);
    op.C = Z;
    CHECK(cr_subspace_iteration(&p, 6, 3, 60, 1e-6, &r) == CR_OK);
    for (int j = 0; j < 3; ++j) {
        fprintf(stderr, "  dense rank 3: ν%d %.12g (exact %.12g), residual %.1e\n", j, r.re[j], lam[j], r.residual[j]);
        CHECK(fabs(r.re[j] / lam[j] - 1) < 1e-9);
    }
    check_lent_work(p, 6, 3, &r); /* Gram–Schmidt from the lent block */
    cr_eigen_result_free(&r);
    free(C), free(D), free(Z);
}

/* A long block on threads (cr_eigen_problem.pool: the Gram matrices and V R⁻¹ by row
 * ranges): C = diag(d) with d_i = ±1/(1 + i/3)² in a scrambled order, n = 3·10⁴ (ranges of
 * whole 512-row chunks); the values are the four largest |d| and agree with the serial run
 * to round-off */
static cr_status diag_apply(void *ctx, const double *X, double *Y, size_t ldy, int count)
{
    const double *d = ((const double **)ctx)[0];
    const size_t n = (size_t)((const double **)ctx)[1][0];
    for (int j = 0; j < count; ++j)
        for (size_t i = 0; i < n; ++i) Y[(size_t)j * ldy + i] = d[i] * X[(size_t)j * n + i];
    return CR_OK;
}

static void test_subspace_threads(void)
{
    enum { N = 30000 };
    double *d = malloc(N * sizeof *d), nd = N;
    for (int i = 0; i < N; ++i) {
        int k = (int)(((long)i * 7919) % N); /* 7919 is prime: a permutation */
        d[k] = (i % 4 == 1 ? -1.0 : 1.0) / ((1.0 + i / 3.0) * (1.0 + i / 3.0));
    }
    const double *ctx[2] = {d, &nd};
    cr_pool *pool = cr_pool_create(2);
    CHECK(pool != NULL); /* else both runs would be serial */
    cr_eigen_result r[2] = {{0}, {0}};
    for (int v = 0; v < 2; ++v) {
        cr_eigen_problem p = {.dim = N, .ctx = (void *)ctx, .apply = diag_apply, .pool = v ? pool : NULL};
        CHECK(cr_subspace_iteration(&p, 6, 4, 60, 1e-6, &r[v]) == CR_OK);
    }
    const double exact[4] = {1.0, -1.0 / (4.0 / 3 * 4.0 / 3), 1.0 / (5.0 / 3 * 5.0 / 3), 1.0 / (2.0 * 2.0)};
    for (int j = 0; j < 4; ++j) {
        fprintf(stderr, "  diagonal n = %d: ν%d %.12g serial, %.12g on 2 threads (exact %.12g), %d/%d iterations\n", N,
                j, r[0].re[j], r[1].re[j], exact[j], r[0].iterations, r[1].iterations);
        CHECK(fabs(r[0].re[j] / exact[j] - 1) < 1e-6);
        CHECK(fabs(r[1].re[j] / r[0].re[j] - 1) < 1e-12 && r[1].iterations == r[0].iterations);
    }
    cr_eigen_result_free(&r[0]);
    cr_eigen_result_free(&r[1]);
    cr_pool_destroy(pool);
    free(d);
}

CHECK_MAIN(CASE(test_subspace_dense), CASE(test_subspace_threads), CASE(test_column), CASE(test_greenhill),
           CASE(test_cantilever), CASE(test_reused_tangent), CASE(test_free_twist), CASE(test_follower_moment))
