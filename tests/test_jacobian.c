/* The analytic static Jacobian of the mixed rod (elements, tendons, dead and
 * follower loads, rigid strain components, clamps and prescribed poses) against
 * central differences at random perturbed states; and the block-tridiagonal
 * solver against LAPACK's banded solver dgbsv on the same matrices. */
#include "check.h"
#include "fd_jacobian.h"
#include "mixed/mixed.h"
#include "mixed/supports.h"
#include "mixed/terms.h"

#include <float.h>
#include <math.h>

#include <stdlib.h>
#include <string.h>

extern void dgbsv_(const int *n, const int *kl, const int *ku, const int *nrhs, double *ab, const int *ldab, int *ipiv,
                   double *b, const int *ldb, int *info);
extern void dgbtrs_(const char *trans, const int *n, const int *kl, const int *ku, const int *nrhs, const double *ab,
                    const int *ldab, const int *ipiv, double *b, const int *ldb, int *info);

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

/* residual with every load and the prescribed poses at the same factor lf */
static void residual(const cr_model *m, double lf, const double *x, double *F, cr_blocktri *J)
{
    double scale[16];
    for (int k = 0; k < 16; ++k) scale[k] = lf * (1.0 + 0.1 * k); /* distinct factors per load */
    cr_supports_at at = {.stage = 0, .ramp = lf, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_mixed_static_residual(m, &at, scale, x, F, J, NULL);
}

/* Dense copy of a block-tridiagonal matrix. */
static double *dense(const cr_blocktri *J)
{
    int N = J->n * J->b, b = J->b;
    double *A = calloc((size_t)N * N, sizeof *A);
    for (int i = 0; i < J->n; ++i)
        for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
                int row = i * b + r;
                A[(size_t)row * N + i * b + c] = J->diag[(size_t)i * b * b + r * b + c];
                if (i > 0) A[(size_t)row * N + (i - 1) * b + c] = J->lower[(size_t)i * b * b + r * b + c];
                if (i < J->n - 1) A[(size_t)row * N + (i + 1) * b + c] = J->upper[(size_t)i * b * b + r * b + c];
            }
    return A;
}

/* LAPACK band storage of the dense N×N matrix A with kl = ku = 2b - 1 (dgbsv's layout, with
 * room for the fill-in), for the comparisons with LAPACK's banded LU below */
static double *lapack_band(const double *A, int N, int b, int *ldab)
{
    const int k = 2 * b - 1;
    *ldab = 3 * k + 1;
    double *ab = calloc((size_t)*ldab * N, sizeof *ab);
    for (int c = 0; c < N; ++c)
        for (int r = c - k; r <= c + k; ++r)
            if (r >= 0 && r < N) ab[(size_t)c * *ldab + 2 * k + r - c] = A[(size_t)r * N + c];
    return ab;
}

typedef struct static_fd {
    const cr_model *m;
    double lf;
} static_fd;

static void static_residual(void *ctx, const double *x, double *F, cr_blocktri *J)
{
    const static_fd *c = ctx;
    residual(c->m, c->lf, x, F, J);
}

static cr_state *perturbed_state(const cr_model *m, double amp)
{
    cr_state *s = cr_state_create(m);
    int N = cr_model_node_count(m) * m->block;
    for (int k = 0; k < N; ++k) s->x[k] += amp * urand();
    return s;
}

static cr_rod_def base_def(cr_section_segment *sec)
{
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.3;
    d.elements = 5;
    d.material = (cr_material){2.0e3, 0.8e3, 1000};
    *sec = cr_section_default_def();
    sec->shape = CR_SECTION_CIRCLE;
    sec->radius[0] = 0.05;
    sec->radius[1] = 0.03;
    d.section_count = 1;
    d.sections = sec;
    d.reference.orientation = cr_q_normalize(cr_q(0.9, 0.1, -0.3, 0.2));
    return d;
}

static void check_model(const cr_rod_def *d, const char *what)
{
    cr_error err = {0};
    cr_model *m = cr_model_create(d, &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s: %s\n", what, err.message);
        return;
    }
    for (int trial = 0; trial < 3; ++trial) {
        cr_state *s = perturbed_state(m, 0.2);
        static_fd ctx = {m, 0.7};
        double e = fd_jacobian_error(cr_model_node_count(m), m->block, static_residual, &ctx, s->x);
        if (!(e < 1e-7)) fprintf(stderr, "%s: relative Jacobian error %.3e\n", what, e);
        CHECK(e < 1e-7);
        cr_state_destroy(s);
    }
    cr_model_destroy(m);
}

static void test_elements_and_point_loads(void)
{
    srand(10);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    cr_load_def loads[4];
    for (int k = 0; k < 4; ++k) loads[k] = cr_load_default_def();
    loads[0].type = CR_LOAD_FORCE, loads[0].node = -1, loads[0].frame = CR_FRAME_BODY,
    loads[0].value = cr_v3(0.3, -1, 2);
    loads[1].type = CR_LOAD_MOMENT, loads[1].node = 2, loads[1].frame = CR_FRAME_INERTIAL,
    loads[1].value = cr_v3(1, 0.5, -0.2);
    loads[2].type = CR_LOAD_MOMENT_DENSITY, loads[2].frame = CR_FRAME_INERTIAL, loads[2].value = cr_v3(0.1, 0.2, 0.3);
    loads[3].type = CR_LOAD_FORCE_DENSITY, loads[3].frame = CR_FRAME_BODY, loads[3].value = cr_v3(-0.4, 0.1, 0.2);
    d.loads = loads;
    d.load_count = 4;
    cr_bc_def bc = cr_bc_default_def();
    bc.type = CR_BC_CLAMP;
    d.bcs = &bc;
    d.bc_count = 1;
    check_model(&d, "elements + point loads");
}

static void test_helix_reference(void)
{
    srand(11);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.reference.type = CR_REFERENCE_HELIX;
    d.reference.helix_radius = 0.2;
    d.reference.helix_pitch = 0.05;
    check_model(&d, "helix");
}

static void test_tendons(void)
{
    srand(12);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    cr_load_def t[2] = {cr_load_default_def(), cr_load_default_def()};
    t[0].type = CR_LOAD_TENDON, t[0].tension = 3.0, t[0].offset.type = CR_OFFSET_RADIUS_FRACTION;
    t[0].offset.fraction = 0.8, t[0].offset.angle = 0.7;
    cr_offset_point pts[2] = {{0.0, 0.01, -0.02}, {1.0, -0.03, 0.005}};
    t[1].type = CR_LOAD_TENDON, t[1].tension = 1.5, t[1].offset.type = CR_OFFSET_TABLE;
    t[1].offset.points = pts, t[1].offset.point_count = 2, t[1].xi_start = 0.2, t[1].xi_end = 0.8;
    d.loads = t;
    d.load_count = 2;
    check_model(&d, "tendons");
}

static void test_rigid_components_and_pose(void)
{
    srand(13);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.rigid_strains = CR_RIGID_GAMMA_X | CR_RIGID_GAMMA_Y | CR_RIGID_GAMMA_Z | CR_RIGID_KAPPA_X;
    cr_bc_def bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
    bc[0].type = CR_BC_CLAMP;
    bc[1].type = CR_BC_POSE, bc[1].node = -1, bc[1].position = cr_v3(0.5, 0.3, 0.1);
    bc[1].orientation = cr_q_axis_angle(cr_v3(0, 0, 1), 1.0);
    d.bcs = bc;
    d.bc_count = 2;
    check_model(&d, "rigid + pose");
}

/* Supports that hold part of a node (issue 10): a slider-hinge in the node's
 * tilted reference frame with a multi-turn target rotation, a pin, and a slider
 * in inertial axes; with and without rigid strain components. */
static void test_partial_supports(void)
{
    srand(31);
    for (int rigid = 0; rigid < 2; ++rigid) {
        cr_section_segment sec;
        cr_rod_def d = base_def(&sec);
        if (rigid) d.rigid_strains = CR_RIGID_GAMMA_X | CR_RIGID_KAPPA_X;
        cr_bc_def bc[3] = {cr_bc_default_def(), cr_bc_default_def(), cr_bc_default_def()};
        bc[0].type = CR_BC_SUPPORT, bc[0].node = -1, bc[0].frame = CR_FRAME_BODY;
        bc[0].hold = CR_HOLD_Y | CR_HOLD_Z | CR_HOLD_RX | CR_HOLD_RZ; /* slides along x, turns about y */
        bc[0].has_position = 1, bc[0].position = cr_v3(1.1, 0.3, -0.2);
        bc[0].rotation_kind = CR_BC_ROTATION_VECTOR, bc[0].rotation = cr_v3(0.3, -0.2, 9.0);
        bc[1].type = CR_BC_PIN, bc[1].node = 2;
        bc[2].type = CR_BC_SUPPORT, bc[2].node = 0, bc[2].hold = CR_HOLD_X | CR_HOLD_Z | CR_HOLD_ROTATION;
        d.bcs = bc;
        d.bc_count = 3;
        check_model(&d, rigid ? "partial supports + rigid" : "partial supports");
        /* a fork: one held rotation (its reaction axis turns with the node), with a target rotation */
        bc[2].hold = CR_HOLD_TRANSLATION | CR_HOLD_RY, bc[2].frame = CR_FRAME_BODY;
        bc[2].rotation_kind = CR_BC_ROTATION_VECTOR, bc[2].rotation = cr_v3(0.4, 2.5, -0.3);
        check_model(&d, rigid ? "fork support + rigid" : "fork support");
    }
}

/* The twist gauge (issue 23): a circular rod held only by pins under dead forces and
 * gravity. (1) The symmetry the gauge rests on: the body-x moment rows of all nodes sum
 * to zero at any state, not only at equilibrium (so the gauge node's may be dropped);
 * with a rectangular section they do not. (2) The gauge row's Jacobian against central
 * differences. (3) Loads and sections that make the twist physical turn the gauge off. */
typedef struct gauge_fd {
    const cr_model *m;
    cr_quat pt;
} gauge_fd;

static void gauge_residual(void *ctx, const double *x, double *F, cr_blocktri *J)
{
    const gauge_fd *c = ctx;
    double scale[16];
    for (int k = 0; k < 16; ++k) scale[k] = 0.7 * (1.0 + 0.1 * k);
    cr_supports_at at = {.stage = 0, .ramp = 0.7, .from_blend = 1.0, .gauge = 1, .gauge_node = 0};
    cr_q_store(c->pt, at.gauge_p);
    cr_mixed_static_residual(c->m, &at, scale, x, F, J, NULL);
}

static void test_twist_gauge(void)
{
    srand(47);
    for (int rect = 0; rect < 2; ++rect) {
        cr_section_segment sec;
        cr_rod_def d = base_def(&sec);
        if (rect)
            sec.shape = CR_SECTION_RECTANGLE, sec.width[0] = sec.width[1] = 0.06, sec.height[0] = sec.height[1] = 0.03;
        cr_bc_def bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
        bc[0].type = CR_BC_PIN, bc[0].node = 0;
        bc[1].type = CR_BC_PIN, bc[1].node = -1;
        cr_load_def ld[2] = {cr_load_default_def(), cr_load_default_def()};
        ld[0].type = CR_LOAD_GRAVITY, ld[0].value = cr_v3(0.3, -1.0, -9.81);
        ld[1].type = CR_LOAD_FORCE, ld[1].node = 3, ld[1].value = cr_v3(2.0, -1.0, 0.5);
        d.bcs = bc, d.bc_count = 2, d.loads = ld, d.load_count = 2;
        cr_model *m = cr_model_create(&d, NULL);
        CHECK(m != NULL);
        if (!m) return;
        CHECK(cr_mixed_twist_gauge(m, 0) == (rect ? -1 : 0));
        const int B = m->block, N = cr_model_node_count(m) * B;
        double *F = malloc(N * sizeof *F);
        double worst = 0, size = 0;
        for (int trial = 0; trial < 3; ++trial) {
            cr_state *s = perturbed_state(m, 0.2);
            residual(m, 0.7, s->x, F, NULL);
            double sum = 0;
            for (int i = 0; i < cr_model_node_count(m); ++i) {
                sum += F[(size_t)i * B + 3];
                size = fmax(size, fabs(F[(size_t)i * B + 3]));
            }
            worst = fmax(worst, fabs(sum));
            if (!rect) {
                gauge_fd ctx = {m, cr_q_normalize(cr_q(0.8, 0.3, -0.2, 0.4))};
                double e = fd_jacobian_error(cr_model_node_count(m), B, gauge_residual, &ctx, s->x);
                if (!(e < 1e-7)) fprintf(stderr, "twist gauge: relative Jacobian error %.3e\n", e);
                CHECK(e < 1e-7);
            }
            cr_state_destroy(s);
        }
        printf("  %s section: |sum of the body-x moment rows| = %.2e against a largest row of %.2e\n",
               rect ? "rectangular" : "circular", worst, size);
        if (rect)
            CHECK(worst > 1e-3 * size); /* the symmetry is the section's */
        else
            CHECK(worst < 1e-13 * size);
        free(F);
        cr_model_destroy(m);
        if (rect) continue;
        /* what makes the twist physical: a point moment, a follower force, a held rotation */
        ld[1].type = CR_LOAD_MOMENT;
        m = cr_model_create(&d, NULL);
        CHECK(m && cr_mixed_twist_gauge(m, 0) == -1);
        cr_model_destroy(m);
        ld[1].type = CR_LOAD_FORCE, ld[1].frame = CR_FRAME_BODY;
        m = cr_model_create(&d, NULL);
        CHECK(m && cr_mixed_twist_gauge(m, 0) == -1);
        cr_model_destroy(m);
        ld[1].frame = CR_FRAME_INERTIAL;
        bc[1].type = CR_BC_SUPPORT, bc[1].hold = CR_HOLD_TRANSLATION | CR_HOLD_RZ;
        m = cr_model_create(&d, NULL);
        CHECK(m && cr_mixed_twist_gauge(m, 0) == -1);
        cr_model_destroy(m);
    }
}

static void test_rigid_body_loads(void)
{
    srand(16);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.material.rho = 800;
    cr_rigid_body_def body = cr_rigid_body_default_def();
    body.node = 0;
    body.mass = 0.7;
    body.center = cr_v3(0.05, -0.02, 0.1);
    body.inertia = (cr_mat3){{{0.02, 0.001, 0}, {0.001, 0.03, 0.002}, {0, 0.002, 0.025}}};
    body.orientation = cr_q_normalize(cr_q(1, 0.2, 0, -0.1));
    d.rigid_bodies = &body;
    d.rigid_body_count = 1;
    cr_load_def l[4] = {cr_load_default_def(), cr_load_default_def(), cr_load_default_def(), cr_load_default_def()};
    l[0].type = CR_LOAD_GRAVITY, l[0].value = cr_v3(0, 0, -9.81);
    l[1].type = CR_LOAD_FORCE, l[1].body = 0, l[1].value = cr_v3(0.5, -2, 1);
    l[2].type = CR_LOAD_FORCE, l[2].body = 0, l[2].frame = CR_FRAME_BODY, l[2].value = cr_v3(-1, 0.3, 0.2);
    l[3].type = CR_LOAD_MOMENT, l[3].body = 0, l[3].frame = CR_FRAME_BODY, l[3].value = cr_v3(0.1, 0.2, -0.3);
    d.loads = l;
    d.load_count = 4;
    cr_bc_def bc = cr_bc_default_def();
    bc.node = -1;
    d.bcs = &bc;
    d.bc_count = 1;
    check_model(&d, "rigid body loads");
}

/* The fused static pass (cr_term_rod_static: structured element and tendon kernels,
 * every block written once) against the general two-node terms (cr_term_rod: dense
 * 3×14 products, accumulated into a zeroed matrix) on the same state, with J and F
 * filled with garbage first so that a block or row the pass fails to write shows up;
 * 10 tendons, more than the pass fuses, over partial ranges. */
static void test_fused_static_pass(void)
{
    srand(17);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.elements = 9;
    d.reference.type = CR_REFERENCE_HELIX;
    d.reference.helix_radius = 0.3;
    d.reference.helix_pitch = 0.1;
    enum { NT = 10 };
    cr_load_def l[NT + 2];
    cr_offset_point pts[2] = {{0.0, 0.01, -0.02}, {1.0, -0.03, 0.005}};
    for (int k = 0; k < NT; ++k) {
        l[k] = cr_load_default_def();
        l[k].type = CR_LOAD_TENDON, l[k].tension = 1.0 + 0.3 * k, l[k].offset.type = CR_OFFSET_RADIUS_FRACTION;
        l[k].offset.fraction = 0.5 + 0.04 * k, l[k].offset.angle = 0.6 * k;
        l[k].xi_start = (k % 3) * 0.2, l[k].xi_end = 1.0 - (k % 4) * 0.15;
        if (k == 3) l[k].offset.type = CR_OFFSET_TABLE, l[k].offset.points = pts, l[k].offset.point_count = 2;
    }
    l[NT] = cr_load_default_def();
    l[NT].type = CR_LOAD_FORCE, l[NT].node = -1, l[NT].frame = CR_FRAME_BODY, l[NT].value = cr_v3(0.3, -1, 2);
    l[NT + 1] = cr_load_default_def();
    l[NT + 1].type = CR_LOAD_MOMENT_DENSITY, l[NT + 1].value = cr_v3(0.1, 0.2, 0.3);
    d.loads = l;
    d.load_count = NT + 2;
    cr_bc_def bc = cr_bc_default_def();
    d.bcs = &bc;
    d.bc_count = 1;
    cr_error err = {0};
    cr_model *m = cr_model_create(&d, &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "fused pass: %s\n", err.message);
        return;
    }
    const int nn = cr_model_node_count(m), B = m->block, N = nn * B;
    CHECK(B == CR_NODE_DOF);
    cr_layout ly = cr_layout_static(m);
    double scale[NT + 2];
    for (int k = 0; k < NT + 2; ++k) scale[k] = k == 5 ? 0.0 : 0.8 + 0.05 * k; /* one tendon switched off */
    for (int trial = 0; trial < 3; ++trial) {
        cr_state *s = perturbed_state(m, 0.2);
        cr_blocktri *J1 = cr_blocktri_create(nn, B), *J2 = cr_blocktri_create(nn, B);
        double *F1 = malloc(N * sizeof *F1), *F2 = malloc(N * sizeof *F2), *F3 = malloc(N * sizeof *F3);
        size_t nb = (size_t)nn * B * B;
        for (size_t k = 0; k < nb; ++k) J1->diag[k] = J1->lower[k] = J1->upper[k] = NAN;
        for (int k = 0; k < N; ++k) F1[k] = F3[k] = NAN;
        cr_term_rod_static(m, &ly, scale, s->x, F1, J1);
        cr_term_rod_static(m, &ly, scale, s->x, F3, NULL);
        cr_term_rod(m, &ly, scale, s->x, F2, J2);
        double worst = 0, big = 0, fworst = 0, fbig = 0, fnoj = 0;
        for (int i = 0; i < nn; ++i)
            for (int r = 0; r < B; ++r) {
                for (int c = 0; c < B; ++c) {
                    size_t o = (size_t)i * B * B + r * B + c;
                    double a[3] = {J1->diag[o], i > 0 ? J1->lower[o] : 0, i < nn - 1 ? J1->upper[o] : 0};
                    double b[3] = {J2->diag[o], i > 0 ? J2->lower[o] : 0, i < nn - 1 ? J2->upper[o] : 0};
                    for (int k = 0; k < 3; ++k) {
                        worst = isfinite(a[k]) ? fmax(worst, fabs(a[k] - b[k])) : INFINITY;
                        big = fmax(big, fabs(b[k]));
                    }
                }
                if (r >= 6) continue; /* the norm rows belong to the caller */
                size_t o = (size_t)i * B + r;
                fworst = isfinite(F1[o]) ? fmax(fworst, fabs(F1[o] - F2[o])) : INFINITY;
                fnoj = fmax(fnoj, fabs(F3[o] - F1[o]));
                fbig = fmax(fbig, fabs(F2[o]));
            }
        if (!(worst <= 1e-13 * big && fworst <= 1e-13 * fbig))
            fprintf(stderr, "fused pass: |dJ| %.3e (of %.3e), |dF| %.3e (of %.3e)\n", worst, big, fworst, fbig);
        CHECK(worst <= 1e-13 * big);
        CHECK(fworst <= 1e-13 * fbig);
        CHECK(fnoj == 0.0); /* the residual does not depend on whether J is assembled */
        /* the loads alone without J through the carried-point tendon pass (∂F/∂λ) against the
         * per-segment terms, whose Jacobian the finite-difference tests check */
        memset(F2, 0, N * sizeof *F2);
        memset(F3, 0, N * sizeof *F3);
        cr_term_loads(m, &ly, scale, s->x, F2, NULL);
        cr_term_loads_forces_only(m, &ly, scale, s->x, F3);
        double lworst = 0, lbig = 0;
        for (int k = 0; k < N; ++k) lworst = fmax(lworst, fabs(F3[k] - F2[k])), lbig = fmax(lbig, fabs(F2[k]));
        if (!(lworst <= 1e-13 * lbig && lbig > 0))
            fprintf(stderr, "loads without J: |dF| %.3e (of %.3e)\n", lworst, lbig);
        CHECK(lbig > 0);
        CHECK(lworst <= 1e-13 * lbig);
        /* the element pass over node ranges on 2..4 threads (range ends inside the
         * tendons): bit-identical to the serial assembly */
        cr_supports_at at = {.stage = 0, .ramp = 0.7, .t = 0.0, .from = NULL, .from_blend = 1.0};
        cr_mixed_static_residual(m, &at, scale, s->x, F1, J1, NULL);
        for (int threads = 2; threads <= 4; ++threads) {
            cr_pool *pool = cr_pool_create(threads);
            for (size_t k = 0; k < nb; ++k) J2->diag[k] = J2->lower[k] = J2->upper[k] = NAN;
            for (int k = 0; k < N; ++k) F2[k] = NAN;
            CHECK(cr_mixed_static_residual_par(m, &at, scale, s->x, F2, J2, NULL, pool) == CR_OK);
            CHECK(memcmp(F1, F2, N * sizeof *F1) == 0);
            CHECK(memcmp(J1->diag, J2->diag, nb * sizeof(double)) == 0);
            CHECK(memcmp(J1->lower + B * B, J2->lower + B * B, (nb - B * B) * sizeof(double)) == 0);
            CHECK(memcmp(J1->upper, J2->upper, (nb - B * B) * sizeof(double)) == 0);
            cr_pool_destroy(pool);
        }
        free(F1);
        free(F2);
        free(F3);
        cr_blocktri_destroy(J1);
        cr_blocktri_destroy(J2);
        cr_state_destroy(s);
    }
    /* and the analytic Jacobian of the whole static residual against central differences */
    static_fd ctx = {m, 0.7};
    for (int trial = 0; trial < 2; ++trial) {
        cr_state *s = perturbed_state(m, 0.2);
        double e = fd_jacobian_error(nn, B, static_residual, &ctx, s->x);
        if (!(e < 1e-7)) fprintf(stderr, "fused pass: relative Jacobian error %.3e\n", e);
        CHECK(e < 1e-7);
        cr_state_destroy(s);
    }
    cr_model_destroy(m);
}

/* The position correction's force rows (3 per node) and their position Jacobian
 * (3×3 blocks, written once per pass) against central differences in r at fixed
 * orientations, with tendons (fused and not) and a clamp. */
typedef struct force_fd {
    const cr_model *m;
    const double *x; /* the full state: orientations held */
    const double *scale;
} force_fd;

static void force_residual(void *ctx, const double *r, double *F, cr_blocktri *J)
{
    const force_fd *c = ctx;
    const int nn = cr_model_node_count(c->m), B = c->m->block;
    double *x = malloc((size_t)nn * B * sizeof *x);
    memcpy(x, c->x, (size_t)nn * B * sizeof *x);
    for (int i = 0; i < nn; ++i)
        for (int k = 0; k < 3; ++k) x[(size_t)i * B + k] = r[3 * i + k];
    cr_blocktri *scratch = J ? NULL : cr_blocktri_create(nn, 3);
    cr_supports_at at = {.stage = 0, .ramp = 0.7, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_mixed_force_residual(c->m, &at, c->scale, x, F, J ? J : scratch);
    cr_blocktri_destroy(scratch);
    free(x);
}

static void test_force_residual(void)
{
    srand(18);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.elements = 7;
    enum { NT = 10 };
    cr_load_def l[NT + 1];
    for (int k = 0; k < NT; ++k) {
        l[k] = cr_load_default_def();
        l[k].type = CR_LOAD_TENDON, l[k].tension = 1.0 + 0.2 * k, l[k].offset.type = CR_OFFSET_RADIUS_FRACTION;
        l[k].offset.fraction = 0.7, l[k].offset.angle = 0.5 * k, l[k].xi_start = (k % 3) * 0.2;
    }
    l[NT] = cr_load_default_def();
    l[NT].type = CR_LOAD_FORCE, l[NT].node = -1, l[NT].frame = CR_FRAME_BODY, l[NT].value = cr_v3(0.3, -1, 2);
    d.loads = l;
    d.load_count = NT + 1;
    cr_bc_def bc = cr_bc_default_def();
    d.bcs = &bc;
    d.bc_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    CHECK(m != NULL);
    if (!m) return;
    const int nn = cr_model_node_count(m);
    double scale[NT + 1];
    for (int k = 0; k < NT + 1; ++k) scale[k] = 0.5 + 0.1 * k;
    for (int trial = 0; trial < 3; ++trial) {
        cr_state *s = perturbed_state(m, 0.2);
        double *r = malloc((size_t)nn * 3 * sizeof *r);
        for (int i = 0; i < nn; ++i)
            for (int k = 0; k < 3; ++k) r[3 * i + k] = s->x[(size_t)i * m->block + k];
        force_fd ctx = {m, s->x, scale};
        double e = fd_jacobian_error(nn, 3, force_residual, &ctx, r);
        if (!(e < 1e-7)) fprintf(stderr, "force residual: relative Jacobian error %.3e\n", e);
        CHECK(e < 1e-7);
        /* node ranges on 2..4 threads (ends inside the tendons): bit-identical */
        cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
        const size_t nb = (size_t)nn * 9;
        cr_blocktri *J1 = cr_blocktri_create(nn, 3), *J2 = cr_blocktri_create(nn, 3);
        double *F1 = malloc((size_t)nn * 3 * sizeof *F1), *F2 = malloc((size_t)nn * 3 * sizeof *F2);
        CHECK(cr_mixed_force_residual(m, &at, scale, s->x, F1, J1) == CR_OK);
        for (int threads = 2; threads <= 4; ++threads) {
            cr_pool *pool = cr_pool_create(threads);
            for (size_t k = 0; k < nb; ++k) J2->diag[k] = J2->lower[k] = J2->upper[k] = NAN;
            CHECK(cr_mixed_force_residual_par(m, &at, scale, s->x, F2, J2, pool) == CR_OK);
            CHECK(memcmp(F1, F2, (size_t)nn * 3 * sizeof *F1) == 0);
            CHECK(memcmp(J1->diag, J2->diag, nb * sizeof(double)) == 0);
            CHECK(memcmp(J1->lower + 9, J2->lower + 9, (nb - 9) * sizeof(double)) == 0);
            CHECK(memcmp(J1->upper, J2->upper, (nb - 9) * sizeof(double)) == 0);
            cr_pool_destroy(pool);
        }
        cr_blocktri_destroy(J1);
        cr_blocktri_destroy(J2);
        free(F1);
        free(F2);
        free(r);
        cr_state_destroy(s);
    }
    cr_model_destroy(m);
}

/* Block Thomas for the sizes with their own kernels (3: position correction, 7: statics,
 * both also in the AVX2 build) and a generic one, against LAPACK dgbsv on random
 * blocks whose dominant entries sit off the diagonal, so that the LU pivots. */
static void test_thomas_kernels_vs_lapack(void)
{
    srand(19);
    const int sizes[3] = {3, 5, 7}, nb = 9;
    for (int t = 0; t < 3; ++t) {
        const int b = sizes[t], N = nb * b;
        cr_blocktri *J = cr_blocktri_create(nb, b);
        size_t bb = (size_t)b * b;
        for (int i = 0; i < nb; ++i)
            for (int r = 0; r < b; ++r)
                for (int c = 0; c < b; ++c) {
                    J->diag[i * bb + r * b + c] = urand() + (c == (r + 1) % b ? 4.0 : 0.0);
                    J->lower[i * bb + r * b + c] = i > 0 ? urand() : 0.0;
                    J->upper[i * bb + r * b + c] = i < nb - 1 ? urand() : 0.0;
                }
        double *A = dense(J), *x1 = malloc(N * sizeof *x1), *x2 = malloc(N * sizeof *x2);
        for (int k = 0; k < N; ++k) x1[k] = x2[k] = urand();
        int kl = 2 * b - 1, ku = 2 * b - 1, ldab = 0, nrhs = 1, info = 0;
        double *ab = lapack_band(A, N, b, &ldab);
        int *ipiv = malloc(N * sizeof *ipiv);
        /* the same system factored and solved in one pass (the 3×3 and 7×7 kernels' forward
         * sweep runs with the elimination), and its factors then used for the next solve */
        cr_blocktri *Jc = cr_blocktri_create(nb, b);
        memcpy(Jc->diag, J->diag, 3 * nb * bb * sizeof(double));
        double *x3 = malloc(N * sizeof *x3), *x4 = malloc(N * sizeof *x4), *x5 = malloc(N * sizeof *x5);
        memcpy(x3, x2, N * sizeof *x3);
        for (int k = 0; k < N; ++k) x4[k] = x5[k] = urand();
        dgbsv_(&N, &kl, &ku, &nrhs, ab, &ldab, ipiv, x1, &N, &info);
        CHECK(info == 0);
        CHECK(cr_blocktri_factor(J, NULL) == CR_OK);
        cr_blocktri_solve(J, x2);
        CHECK(cr_blocktri_factor_solve(Jc, x3, NULL) == CR_OK);
        cr_blocktri_solve(J, x4);
        cr_blocktri_solve(Jc, x5);
        double worst = 0, scale = 0, fused = 0, next = 0;
        for (int k = 0; k < N; ++k) {
            worst = fmax(worst, fabs(x1[k] - x2[k])), scale = fmax(scale, fabs(x1[k]));
            fused = fmax(fused, fabs(x1[k] - x3[k])), next = fmax(next, fabs(x4[k] - x5[k]) / fmax(1.0, fabs(x4[k])));
        }
        if (!(worst <= 1e-12 * scale && fused <= 1e-12 * scale && next <= 1e-12))
            fprintf(stderr, "b = %d: |x - x_lapack| %.3e, fused %.3e, of %.3e; next solve %.3e\n", b, worst, fused,
                    scale, next);
        CHECK(worst <= 1e-12 * scale);
        CHECK(fused <= 1e-12 * scale);
        CHECK(next <= 1e-12);
        cr_blocktri_destroy(Jc);
        free(x3);
        free(x4);
        free(x5);
        int pivoted = 0;
        for (int k = 0; k < N; ++k) pivoted |= J->pivot[k] != k % b;
        CHECK(pivoted);
        /* several right-hand sides at once (columns), the specialized 7×6 and 7×8 kernels,
         * more than one tile of 16, and the banded path: against LAPACK's dgbtrs with the
         * factors of dgbsv above */
        const int counts[5] = {1, 3, 6, 8, 20};
        for (int q = 0; q < 5; ++q) {
            int cnt = counts[q];
            double *X1 = malloc((size_t)N * cnt * sizeof *X1), *X2 = malloc((size_t)N * cnt * sizeof *X2),
                   *X3 = malloc((size_t)N * cnt * sizeof *X3);
            for (int k = 0; k < N * cnt; ++k) X1[k] = X2[k] = X3[k] = urand();
            dgbtrs_("N", &N, &kl, &ku, &cnt, ab, &ldab, ipiv, X1, &N, &info);
            CHECK(info == 0);
            cr_blocktri_solve_many(J, X2, cnt);
            cr_blocktri *Jb = cr_blocktri_create_banded(nb, b); /* its blocks from A (J is factored) */
            for (int i = 0; i < nb; ++i)
                for (int r = 0; r < b; ++r)
                    for (int c = 0; c < b; ++c) {
                        size_t o = i * bb + r * b + c, row = (size_t)i * b + r;
                        cr_blocktri_D(Jb, i)[r * b + c] = A[row * N + (size_t)i * b + c];
                        if (i > 0) Jb->lower[o] = A[row * N + (size_t)(i - 1) * b + c];
                        if (i < nb - 1) Jb->upper[o] = A[row * N + (size_t)(i + 1) * b + c];
                    }
            CHECK(cr_blocktri_factor(Jb, NULL) == CR_OK);
            cr_blocktri_solve_many(Jb, X3, cnt);
            cr_blocktri_destroy(Jb);
            double w2 = 0, w3 = 0, sc = 0;
            for (int k = 0; k < N * cnt; ++k)
                w2 = fmax(w2, fabs(X1[k] - X2[k])), w3 = fmax(w3, fabs(X1[k] - X3[k])), sc = fmax(sc, fabs(X1[k]));
            if (!(w2 <= 1e-12 * sc && w3 <= 1e-12 * sc))
                fprintf(stderr, "b = %d, %d right sides: |X - X_lapack| %.3e (banded %.3e) of %.3e\n", b, cnt, w2, w3, sc);
            CHECK(w2 <= 1e-12 * sc);
            CHECK(w3 <= 1e-12 * sc);
            free(X1);
            free(X2);
            free(X3);
        }
        free(A);
        free(ab);
        free(ipiv);
        free(x1);
        free(x2);
        cr_blocktri_destroy(J);
    }
}

/* Block Thomas vs LAPACK dgbsv on a flexible rod (no rigid components). */
static void test_block_thomas_vs_lapack(void)
{
    srand(15);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.elements = 12;
    cr_bc_def bc = cr_bc_default_def();
    d.bcs = &bc;
    d.bc_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    cr_state *s = perturbed_state(m, 0.05);
    int nb = cr_model_node_count(m), b = m->block, N = nb * b;
    cr_blocktri *J = cr_blocktri_create(nb, b), *Jb = cr_blocktri_create_banded(nb, b);
    double *F = malloc(N * sizeof *F), *x1 = malloc(N * sizeof *F);
    residual(m, 0.5, s->x, F, J);
    residual(m, 0.5, s->x, F, Jb);
    memcpy(x1, F, N * sizeof *F);
    CHECK(cr_blocktri_factor(J, NULL) == CR_OK);
    CHECK(cr_blocktri_factor(Jb, NULL) == CR_OK);
    cr_blocktri_solve(J, F);
    cr_blocktri_solve(Jb, x1);
    double worst = 0, scale = 0;
    for (int k = 0; k < N; ++k) worst = fmax(worst, fabs(x1[k] - F[k])), scale = fmax(scale, fabs(x1[k]));
    CHECK(worst <= 1e-10 * scale);
    free(F);
    free(x1);
    cr_blocktri_destroy(J);
    cr_blocktri_destroy(Jb);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* Backward stability of the block Thomas solves: on the tangent of a slender steel rod
 * (EA L²/EI ~ 10⁸ per element) the normwise backward error |b - A x|∞ / (|A|∞ |x|∞ + |b|∞)
 * of the serial factorization's solve, and of its solve of several right sides, stays within
 * 20 ε (measured 2·10⁻¹⁶; LAPACK's banded LU with partial pivoting, dgbsv, 9·10⁻¹⁸). A solve
 * that is only forward accurate has a backward error orders of magnitude larger: the explicit
 * products D̃_i⁻¹ L_i, once tried for speed, gave 5·10⁻¹⁴ and 6·10⁻¹³. */
static double backward_error(const double *A, int N, const double *x, const double *b)
{
    double rn = 0, an = 0, xn = 0, bn = 0;
    for (int r = 0; r < N; ++r) {
        double s = b[r], a = 0;
        for (int c = 0; c < N; ++c) s -= A[(size_t)r * N + c] * x[c], a += fabs(A[(size_t)r * N + c]);
        rn = fmax(rn, fabs(s)), an = fmax(an, a), bn = fmax(bn, fabs(b[r]));
    }
    for (int c = 0; c < N; ++c) xn = fmax(xn, fabs(x[c]));
    return rn / (an * xn + bn);
}

static void test_block_thomas_backward_error(void)
{
    srand(23);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.elements = 150;
    d.material = (cr_material){2.1e11, 8.1e10, 7850};
    sec.radius[0] = sec.radius[1] = 0.002;
    cr_bc_def bc = cr_bc_default_def();
    d.bcs = &bc;
    d.bc_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    CHECK(m != NULL);
    if (!m) return;
    cr_state *s = perturbed_state(m, 0.05);
    const int nb = cr_model_node_count(m), b = m->block, N = nb * b, nr = 6;
    cr_blocktri *J = cr_blocktri_create(nb, b);
    double *F = malloc(N * sizeof *F), *rhs = malloc((size_t)N * nr * sizeof *rhs);
    double *x = malloc((size_t)N * nr * sizeof *x), *xl = malloc(N * sizeof *xl);
    residual(m, 0.5, s->x, F, J);
    double *A = dense(J);
    for (int k = 0; k < N * nr; ++k) rhs[k] = urand();
    memcpy(x, rhs, (size_t)N * nr * sizeof *x);
    memcpy(xl, rhs, N * sizeof *xl);
    int kl = 2 * b - 1, ku = 2 * b - 1, ldab = 0, one = 1, info = 0;
    double *ab = lapack_band(A, N, b, &ldab);
    int *ipiv = malloc(N * sizeof *ipiv);
    dgbsv_(&N, &kl, &ku, &one, ab, &ldab, ipiv, xl, &N, &info);
    CHECK(info == 0);
    CHECK(cr_blocktri_factor(J, NULL) == CR_OK);
    cr_blocktri_solve(J, x);
    cr_blocktri_solve_many(J, x + N, nr - 1);
    const double el = backward_error(A, N, xl, rhs), e1 = backward_error(A, N, x, rhs);
    double emany = 0;
    for (int j = 1; j < nr; ++j) emany = fmax(emany, backward_error(A, N, x + (size_t)j * N, rhs + (size_t)j * N));
    /* the partitioned factorization (2 and 3 chunks, run in turn without a pool) */
    double epart = 0;
    for (int P = 2; P <= 3; ++P) {
        cr_blocktri *Jp = cr_blocktri_create(nb, b);
        cr_blocktri_part *part = cr_blocktri_part_create(nb, b, P, NULL);
        CHECK(Jp != NULL && part != NULL);
        if (!Jp || !part) break;
        for (int i = 0; i < nb; ++i)
            for (int r = 0; r < b; ++r)
                for (int c = 0; c < b; ++c) {
                    size_t o = (size_t)i * b * b + r * b + c, row = (size_t)i * b + r;
                    Jp->diag[o] = A[row * N + (size_t)i * b + c];
                    if (i > 0) Jp->lower[o] = A[row * N + (size_t)(i - 1) * b + c];
                    if (i < nb - 1) Jp->upper[o] = A[row * N + (size_t)(i + 1) * b + c];
                }
        memcpy(x, rhs, N * sizeof *x);
        CHECK(cr_blocktri_part_factor(part, Jp, NULL, NULL) == CR_OK);
        cr_blocktri_part_solve(part, Jp, NULL, x);
        epart = fmax(epart, backward_error(A, N, x, rhs));
        cr_blocktri_part_destroy(part);
        cr_blocktri_destroy(Jp);
    }
    fprintf(stderr,
            "  backward error, steel rod n = %d: LAPACK dgbsv %.1e, block Thomas %.1e, %d right sides %.1e, "
            "partitioned %.1e\n",
            d.elements, el, e1, nr - 1, emany, epart);
    CHECK(el <= 20 * DBL_EPSILON);
    CHECK(e1 <= 20 * DBL_EPSILON);
    CHECK(emany <= 20 * DBL_EPSILON);
    CHECK(epart <= 20 * DBL_EPSILON);
    free(A);
    free(ab);
    free(ipiv);
    free(F);
    free(rhs);
    free(x);
    free(xl);
    cr_blocktri_destroy(J);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* Banded path vs LAPACK dgbsv on an assembled Jacobian with rigid components. */
static void test_blocktri_vs_lapack(void)
{
    srand(14);
    cr_section_segment sec;
    cr_rod_def d = base_def(&sec);
    d.elements = 12;
    d.rigid_strains = CR_RIGID_GAMMA_Y | CR_RIGID_GAMMA_Z;
    cr_bc_def bc = cr_bc_default_def();
    d.bcs = &bc;
    d.bc_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    cr_state *s = perturbed_state(m, 0.05);
    int nb = cr_model_node_count(m), b = m->block, N = nb * b;
    cr_blocktri *J = cr_blocktri_create(nb, b);
    double *F = malloc(N * sizeof *F), *x1 = malloc(N * sizeof *F), *x2 = malloc(N * sizeof *F);
    residual(m, 0.5, s->x, F, J);
    double *A = dense(J);
    int kl = 2 * b - 1, ku = 2 * b - 1, ldab = 0, nrhs = 1, info = 0;
    double *ab = lapack_band(A, N, b, &ldab);
    int *ipiv = malloc(N * sizeof *ipiv);
    for (int k = 0; k < N; ++k) x1[k] = x2[k] = F[k];
    dgbsv_(&N, &kl, &ku, &nrhs, ab, &ldab, ipiv, x1, &N, &info);
    CHECK(info == 0);
    /* rigid components: the banded path (block Thomas would meet a singular first block) */
    cr_blocktri *Jb = cr_blocktri_create_banded(nb, b);
    memcpy(Jb->diag, J->diag, (size_t)nb * b * b * sizeof(double));
    memcpy(Jb->lower, J->lower, (size_t)nb * b * b * sizeof(double));
    memcpy(Jb->upper, J->upper, (size_t)nb * b * b * sizeof(double));
    CHECK(cr_blocktri_factor(Jb, NULL) == CR_OK);
    cr_blocktri_solve(Jb, x2);
    cr_blocktri_destroy(Jb);
    double worst = 0, scale = 0;
    for (int k = 0; k < N; ++k) worst = fmax(worst, fabs(x1[k] - x2[k])), scale = fmax(scale, fabs(x1[k]));
    CHECK(worst <= 1e-10 * scale);
    free(A);
    free(ab);
    free(ipiv);
    free(F);
    free(x1);
    free(x2);
    cr_blocktri_destroy(J);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

CHECK_MAIN(CASE(test_elements_and_point_loads), CASE(test_helix_reference), CASE(test_tendons),
           CASE(test_rigid_components_and_pose), CASE(test_partial_supports), CASE(test_twist_gauge),
           CASE(test_rigid_body_loads), CASE(test_fused_static_pass), CASE(test_force_residual),
           CASE(test_blocktri_vs_lapack), CASE(test_thomas_kernels_vs_lapack), CASE(test_block_thomas_vs_lapack),
           CASE(test_block_thomas_backward_error))
