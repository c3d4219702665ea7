/* Dynamics of assemblies of mixed discrete rods (cr_assembly_dynamic_solve) against
 * independent references: one continuous rod, the rigid double pendulum integrated here
 * by RK4, conservation of energy and momentum, and finite differences of the DAE. */
#include "check.h"
#include "cosserat/assembly.h"
#include "cosserat/radau.h"
#include "mixed/assembly_internal.h"
#include "mixed/assembly_linsys.h"
#include "mixed/mixed.h"
#include "rod_builders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static cr_assembly_rod_def named(const char *name, cr_rod_def rod)
{
    cr_assembly_rod_def r;
    memset(&r, 0, sizeof r);
    strncpy(r.name, name, sizeof r.name - 1);
    r.rod = rod;
    return r;
}

static cr_joint_def joint(cr_joint_type type, int rod_a, int node_a, int rod_b, int node_b)
{
    cr_joint_def j = cr_joint_default_def();
    j.type = type, j.a = (cr_rod_node){rod_a, node_a}, j.b = (cr_rod_node){rod_b, node_b};
    return j;
}

/* A section with a rotary inertia that is not negligible (the rods' own, ρI = 1e-3 ρA). */
static cr_section_segment section(double EA, double EI, double rhoA)
{
    cr_section_segment s = resultants(EA, EA, 0.7 * EI, EI, rhoA);
    for (int k = 0; k < 2; ++k) s.rhoI_y[k] = s.rhoI_z[k] = 1e-3 * rhoA;
    return s;
}

/* ---- the joint's g̈ bias: second differences along a motion at constant velocities ---- */
static void test_joint_bias(void)
{
    for (int type = 0; type <= CR_JOINT_UNIVERSAL; ++type) {
        cr_section_segment sec = section(1e3, 1, 1);
        cr_assembly_rod_def rods[2] = {named("a", straight_rod(&sec, 1, 2)), named("b", straight_rod(&sec, 1, 2))};
        rods[1].rod.reference.origin = cr_v3(1, 0, 0);
        cr_joint_def j = joint((cr_joint_type)type, 0, -1, 1, 0);
        j.axis = cr_v3(0.3, 0.2, 1);
        j.axis_b = cr_v3_cross(j.axis, cr_v3(1, -2, 0.5));
        j.has_rotation = type == CR_JOINT_WELD;
        j.rotation = cr_q_axis_angle(cr_v3_normalize(cr_v3(1, 2, 3)), 0.4);
        cr_assembly_def def = cr_assembly_default_def();
        def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &j;
        cr_assembly *a = cr_assembly_create(&def, NULL);
        CHECK(a != NULL);
        if (!a) continue;
        const cr_asm_joint *aj = &a->joints[0];
        /* poses not on the constraint (g ≠ 0: the identity holds for any poses) */
        cr_quat pa = cr_q_axis_angle(cr_v3_normalize(cr_v3(0.2, -1, 0.4)), 0.7);
        cr_quat pb = cr_q_axis_angle(cr_v3_normalize(cr_v3(-0.5, 0.3, 1)), 1.3);
        cr_vec3 wa = cr_v3(0.8, -1.1, 0.5), wb = cr_v3(-0.3, 0.9, 1.7);
        cr_vec3 ra = cr_v3(0.1, 0.4, -0.3), rb = cr_v3(0.6, -0.2, 0.5), va = cr_v3(1.2, -0.4, 0.3),
                vb = cr_v3(-0.7, 0.8, 1.1);
        double bias[6], g0[6], gp[6], gm[6];
        cr_asm_joint_bias(aj, 1.0, NULL, ra, pa, va, wa, rb, pb, vb, wb, bias, NULL);
        const double h = 1e-4;
        /* r(τ) = r + v τ, p(τ) = p ⊗ exp(Ω τ/2): constant velocities, v̇ = Ω̇ = 0, so g̈ = bias */
        cr_asm_joint_eval(aj, 1.0, NULL, ra, pa, rb, pb, NULL, g0, NULL, NULL);
        cr_asm_joint_eval(aj, 1.0, NULL, cr_v3_add(ra, cr_v3_scale(va, h)),
                          cr_q_mul(pa, cr_q_axis_angle(cr_v3_normalize(wa), h * cr_v3_norm(wa))),
                          cr_v3_add(rb, cr_v3_scale(vb, h)),
                          cr_q_mul(pb, cr_q_axis_angle(cr_v3_normalize(wb), h * cr_v3_norm(wb))), NULL, gp, NULL, NULL);
        cr_asm_joint_eval(
            aj, 1.0, NULL, cr_v3_add(ra, cr_v3_scale(va, -h)),
            cr_q_mul(pa, cr_q_axis_angle(cr_v3_normalize(wa), -h * cr_v3_norm(wa))), cr_v3_add(rb, cr_v3_scale(vb, -h)),
            cr_q_mul(pb, cr_q_axis_angle(cr_v3_normalize(wb), -h * cr_v3_norm(wb))), NULL, gm, NULL, NULL);
        for (int r = 0; r < aj->rows; ++r) CHECK_NEAR(bias[r], (gp[r] - 2 * g0[r] + gm[r]) / (h * h), 1e-6);
        cr_assembly_destroy(a);
    }
}

/* ---- the DAE's Jacobian (as the linear solves use it) against central differences ---- */
static void test_jacobian_fd(void)
{
    /* the six joint types, then with springs, dampers, drives (6: hinge, 7: prismatic with a
     * slider drive, 8: cylindrical with an angle drive and both springs, 9: ball, 10:
     * universal) and a weld that does not act in the stage (11) */
    static const cr_joint_type variant[6] = {CR_JOINT_HINGE, CR_JOINT_PRISMATIC, CR_JOINT_CYLINDRICAL,
                                             CR_JOINT_BALL,  CR_JOINT_UNIVERSAL, CR_JOINT_WELD};
    static const cr_joint_type limited[3] = {CR_JOINT_HINGE, CR_JOINT_CYLINDRICAL, CR_JOINT_PRISMATIC};
    for (int type = 0; type <= CR_JOINT_UNIVERSAL + 9; ++type) {
        cr_section_segment sec = section(1e3, 2, 1.5);
        cr_bc_def clamp = cr_bc_default_def();
        cr_load_def grav = cr_load_default_def();
        grav.type = CR_LOAD_GRAVITY, grav.value = cr_v3(0, -9.81, 0);
        cr_assembly_rod_def rods[2] = {named("a", straight_rod(&sec, 1, 3)), named("b", straight_rod(&sec, 1, 4))};
        rods[0].rod.bcs = &clamp, rods[0].rod.bc_count = 1, rods[0].rod.loads = &grav, rods[0].rod.load_count = 1;
        rods[1].rod.reference.origin = cr_v3(1, 0, 0), rods[1].rod.loads = &grav, rods[1].rod.load_count = 1;
        cr_joint_def j = joint(type <= CR_JOINT_UNIVERSAL ? (cr_joint_type)type
                               : type < 12                ? variant[type - 6]
                                                          : limited[type - 12],
                               0, -1, 1, 0);
        j.axis = cr_v3(0.2, 0.1, 1);
        j.axis_b = cr_v3_cross(j.axis, cr_v3(0.3, 1, 0));
        if (type > CR_JOINT_UNIVERSAL && type < CR_JOINT_UNIVERSAL + 6)
            j.stiffness = 3.0, j.damping = 0.7, j.slide_stiffness = type == 8 ? 40.0 : 0.0,
            j.slide_damping = type == 8 ? 2.0 : 0.0;
        if (type == 7 || type == 8)
            j.has_drive = 1, j.drive_slide = type == 7, j.drive_position = 0.1, j.drive_angle = 0.3;
        if (type == 11) j.stages = 2u; /* stage 1 only: not in the probed stage 0 */
        /* limits (the state below turns and slides the joint by a few 0.01): pressing its lower
         * stop (12), its upper rotation stop and lower slide stop (13), not touching them (14) */
        if (type >= 12) j.has_limit = 1, j.limit[0] = type == 12 ? 0.5 : -1, j.limit[1] = type == 13 ? -0.5 : 1;
        if (type == 13) j.has_slide_limit = 1, j.slide_limit[0] = 0.2, j.slide_limit[1] = 0.3, j.stiffness = 3.0;
        cr_assembly_def def = cr_assembly_default_def();
        def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &j;
        cr_error aerr = {0};
        cr_assembly *a = cr_assembly_create(&def, &aerr);
        if (!a) printf("%s\n", aerr.message);
        CHECK(a != NULL);
        if (!a) continue;
        cr_assembly_state *s = cr_assembly_state_create(a);
        const int N = cr_asm_dynamic_size(a);
        double *y = malloc(N * sizeof *y), *F = malloc(N * sizeof *F), *J = malloc((size_t)N * N * sizeof *J);
        double *yp = malloc(N * sizeof *yp), *Fp = malloc(N * sizeof *Fp), *Fm = malloc(N * sizeof *Fm);
        double *y0 = malloc(N * sizeof *y0);
        CHECK(cr_asm_dynamic_probe(a, s, 0, NULL, y0, F, NULL, NULL) == CR_OK);
        /* a generic state: moved poses, velocities, stresses and multipliers */
        srand(7 + type);
        for (int k = 0; k < N; ++k) {
            double u = (double)rand() / RAND_MAX - 0.5;
            int c = k < N - a->rows ? k % CR_DYN_BLOCK : -1;
            y0[k] += c < 0 ? 3 * u : c < 3 ? 0.05 * u : c < 7 ? 0.1 * u : c < 13 ? 2 * u : 5 * u;
        }
        CHECK(cr_asm_dynamic_probe(a, s, 0, y0, y, F, J, NULL) == CR_OK);
        /* the omitted blocks: a joint node's moment rows in the other node's quaternion */
        const int ia = (a->models[0]->nodes - 1) * CR_DYN_BLOCK, ib = a->models[0]->nodes * CR_DYN_BLOCK;
        double worst = 0;
        for (int c = 0; c < N; ++c) {
            memcpy(yp, y, N * sizeof *y);
            double h = 1e-6 * fmax(1.0, fabs(y[c]));
            yp[c] = y[c] + h;
            cr_asm_dynamic_probe(a, s, 0, yp, yp, Fp, NULL, NULL);
            yp[c] = y[c] - h;
            cr_asm_dynamic_probe(a, s, 0, yp, yp, Fm, NULL, NULL);
            for (int r = 0; r < N; ++r) {
                int cross = ((r >= ia + CR_DYN_W && r < ia + CR_DYN_W + 3) && (c >= ib + 3 && c < ib + 7)) ||
                            ((r >= ib + CR_DYN_W && r < ib + CR_DYN_W + 3) && (c >= ia + 3 && c < ia + 7));
                /* a slider's too: b's force rows in a's quaternion, a's moment rows in b's position */
                cross = cross || ((r >= ib + CR_DYN_V && r < ib + CR_DYN_V + 3) && (c >= ia + 3 && c < ia + 7)) ||
                        ((r >= ia + CR_DYN_W && r < ia + CR_DYN_W + 3) && (c >= ib && c < ib + 3));
                if (cross) continue;
                double fd = (Fp[r] - Fm[r]) / (2 * h), scale = 0;
                for (int q = 0; q < N; ++q) scale = fmax(scale, fabs(J[(size_t)r * N + q]));
                double e = fabs(fd - J[(size_t)r * N + c]) / fmax(scale, 1e-300);
                if (e > worst) worst = e;
                if (e > 1e-6 && getenv("JAC_DEBUG"))
                    printf("  row %d col %d: J %.6e fd %.6e\n", r, c, J[(size_t)r * N + c], fd);
            }
        }
        static const char *names[] = {"weld",
                                      "ball",
                                      "hinge",
                                      "prismatic",
                                      "cylindrical",
                                      "universal",
                                      "hinge with spring and damper",
                                      "prismatic with slider drive, spring and damper",
                                      "cylindrical with angle drive and both springs and dampers",
                                      "ball with spring and damper",
                                      "universal with spring and damper",
                                      "weld not acting in the stage",
                                      "hinge pressing its limit",
                                      "cylindrical pressing its rotation's and slide's limits",
                                      "prismatic inside its limit"};
        if (type >= 12) { /* the last row, a limit's: pressing (12, 13) feels the poses, else it is μ = 0 */
            double feel = 0;
            for (int c = 0; c < N - a->rows; ++c) feel = fmax(feel, fabs(J[(size_t)(N - 1) * N + c]));
            printf("limit row's largest entry in the nodes' unknowns: %.3g\n", feel);
            CHECK(type == 14 ? feel == 0 : feel > 1.0);
        }
        printf("jacobian %s: worst relative difference %.2e\n", names[type], worst);
        CHECK(worst < 1e-6);
        free(y), free(F), free(J), free(yp), free(Fp), free(Fm), free(y0);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
}

/* ---- the structured shifted solves (rods' factorizations, the Schur complement on the
 * multipliers, the rods' last-block shortcuts: rod a's solve in two halves around the
 * multipliers, cr_blocktri_radau_solve_open/_close) against a dense LU of s M − J ---- */
extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);

static void test_shifted_solves(void)
{
    for (int type = 0; type < 4; ++type) {
        cr_section_segment sec = section(1e3, 2, 1.5);
        cr_bc_def clamp = cr_bc_default_def();
        cr_assembly_rod_def rods[3] = {named("a", straight_rod(&sec, 1, 5)), named("b", straight_rod(&sec, 1, 4)),
                                       named("c", straight_rod(&sec, 1, 3))};
        rods[0].rod.bcs = &clamp, rods[0].rod.bc_count = 1;
        rods[1].rod.reference.origin = cr_v3(1, 0, 0);
        rods[2].rod.reference.origin = cr_v3(2, 0, 0);
        /* a's joint node is its last (the last-block shortcut), b's are its first and last
         * (full response columns), c's its first */
        cr_joint_def j[2] = {joint((cr_joint_type)(type % 3), 0, -1, 1, 0), joint(CR_JOINT_WELD, 1, -1, 2, 0)};
        j[0].axis = cr_v3(0.2, 0.1, 1);
        if (type == 3) { /* a T: c on a ball at b's interior node 2, along y */
            rods[2].rod.reference.origin = cr_v3(1.5, 0, 0);
            rods[2].rod.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), PI / 2);
            j[1] = joint(CR_JOINT_BALL, 1, 2, 2, 0);
        }
        cr_assembly_def def = cr_assembly_default_def();
        def.rod_count = 3, def.rods = rods, def.joint_count = 2, def.joints = j;
        cr_assembly *a = cr_assembly_create(&def, NULL);
        cr_assembly_state *s = cr_assembly_state_create(a);
        const int N = cr_asm_dynamic_size(a), N2 = 2 * N;
        double *y = malloc(N * sizeof *y), *F = malloc(N * sizeof *F), *J = malloc((size_t)N * N * sizeof *J);
        double *M = malloc(N * sizeof *M), *b = malloc(N2 * sizeof *b), *x = malloc(N2 * sizeof *x);
        double *E = malloc((size_t)N2 * N2 * sizeof *E);
        int *piv = malloc(N2 * sizeof *piv);
        CHECK(cr_asm_dynamic_probe(a, s, 0, NULL, y, F, NULL, NULL) == CR_OK);
        srand(11 + type);
        for (int k = 0; k < N - a->rows; ++k) {
            double u = (double)rand() / RAND_MAX - 0.5;
            int c = k % CR_DYN_BLOCK;
            y[k] += c < 3 ? 0.05 * u : c < 7 ? 0.1 * u : c < 13 ? 2 * u : 5 * u;
        }
        CHECK(cr_asm_dynamic_probe(a, s, 0, y, y, F, J, NULL) == CR_OK);
        for (int cplx = 0; cplx < 2; ++cplx) {
            const double sr = 37.0, si = cplx ? 21.0 : 0.0;
            for (int k = 0; k < N2; ++k) b[k] = x[k] = (double)rand() / RAND_MAX - 0.5;
            int tail = 0;
            CHECK(cr_asm_dynamic_probe_solve(a, s, 0, y, sr, si, x, cplx ? x + N : NULL, M, &tail, NULL) == CR_OK);
            CHECK(tail == 1); /* rod a's */
            /* the dense reference: [[sr M − J, −si M], [si M, sr M − J]] (column-major) */
            const int n = cplx ? N2 : N;
            memset(E, 0, (size_t)N2 * N2 * sizeof *E);
            for (int r = 0; r < N; ++r)
                for (int c = 0; c < N; ++c) {
                    double v = (r == c ? sr * M[r] : 0.0) - J[(size_t)r * N + c];
                    E[(size_t)c * n + r] = v;
                    if (cplx) E[(size_t)(c + N) * n + r + N] = v;
                }
            if (cplx)
                for (int r = 0; r < N; ++r)
                    E[(size_t)(r + N) * n + r] = -si * M[r], E[(size_t)r * n + r + N] = si * M[r];
            int info = 0, one = 1;
            dgesv_(&n, &one, E, &n, piv, b, &n, &info);
            CHECK(info == 0);
            double err = 0, big = 0;
            for (int k = 0; k < n; ++k) err = fmax(err, fabs(x[k] - b[k])), big = fmax(big, fabs(b[k]));
            static const char *what[4] = {"weld", "ball", "hinge", "weld and a T on a ball"};
            printf("shifted solve (%s, %s): %.2e relative\n", what[type], cplx ? "complex" : "real", err / big);
            CHECK(err < 1e-9 * big);
        }
        free(y), free(F), free(J), free(M), free(b), free(x), free(E), free(piv);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
}

/* ---- a weld equals one continuous rod in dynamics ---- */
typedef struct track {
    int count, cap, rod, node;
    double t[4096];
    cr_vec3 r[4096];
    cr_vec3 P[4096], H[4096];
    double E[4096];
} track;

static int on_assembly(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    (void)a;
    track *tr = user;
    if (tr->count < 4096) {
        cr_state *rs = cr_assembly_state_rod((cr_assembly_state *)s, tr->rod);
        tr->t[tr->count] = smp->t;
        tr->r[tr->count] = cr_state_position(
            rs, tr->node < 0 ? cr_model_node_count(cr_assembly_rod_model(a, tr->rod)) + tr->node : tr->node);
        tr->P[tr->count] = smp->momentum, tr->H[tr->count] = smp->angular_momentum;
        tr->E[tr->count] = smp->kinetic + smp->elastic + smp->gravity;
        tr->count++;
    }
    return 0;
}

static int on_rod(const cr_model *m, const cr_state *s, const cr_dynamic_sample *smp, void *user)
{
    track *tr = user;
    if (tr->count < 4096) {
        tr->t[tr->count] = smp->t;
        tr->r[tr->count] = cr_state_position(s, tr->node < 0 ? cr_model_node_count(m) + tr->node : tr->node);
        tr->E[tr->count] = smp->kinetic + smp->elastic + smp->gravity;
        tr->count++;
    }
    return 0;
}

static void test_weld_equals_one_rod(void)
{
    const int n = 8;
    cr_section_segment sec = section(1e3, 1, 1);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def loads[2] = {cr_load_default_def(), cr_load_default_def()};
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, -9.81, 0);
    loads[1].type = CR_LOAD_FORCE, loads[1].node = -1, loads[1].value = cr_v3(0, 0, 1.5); /* out of plane: 3-D */
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.6, o.output_dt = 0.02, o.rtol = 1e-8, o.atol = 1e-10;
    /* the reference: one rod of 2n elements released from the straight shape */
    cr_rod_def one = straight_rod(&sec, 1.0, 2 * n);
    one.bcs = &clamp, one.bc_count = 1, one.loads = loads, one.load_count = 2;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    static track t1, t2;
    memset(&t1, 0, sizeof t1), memset(&t2, 0, sizeof t2);
    t1.node = -1;
    cr_dynamic_report rep1, rep2;
    CHECK(cr_dynamic_solve(m1, s1, 0, 0.0, 0.0, 0.0, &o, on_rod, NULL, &t1, &rep1, NULL) == CR_OK);
    /* two halves welded */
    cr_assembly_rod_def rods[2] = {named("root", straight_rod(&sec, 0.5, n)), named("tip", straight_rod(&sec, 0.5, n))};
    rods[0].rod.bcs = &clamp, rods[0].rod.bc_count = 1, rods[0].rod.loads = loads, rods[0].rod.load_count = 1;
    rods[1].rod.reference.origin = cr_v3(0.5, 0, 0), rods[1].rod.loads = loads, rods[1].rod.load_count = 2;
    cr_joint_def w = joint(CR_JOINT_WELD, 0, -1, 1, 0);
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &w;
    cr_assembly *a = cr_assembly_create(&def, NULL);
    cr_assembly_state *s = cr_assembly_state_create(a);
    t2.rod = 1, t2.node = -1;
    cr_error e = {0};
    CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_assembly, &t2, &rep2, &e) == CR_OK);
    if (e.status) printf("%s\n", e.message);
    CHECK(t1.count == t2.count && t1.count == 31);
    double worst = 0, amp = 0;
    for (int k = 0; k < t1.count && k < t2.count; ++k) {
        worst = fmax(worst, cr_v3_norm(cr_v3_sub(t1.r[k], t2.r[k])));
        amp = fmax(amp, cr_v3_norm(cr_v3_sub(t1.r[k], cr_v3(1, 0, 0))));
    }
    printf("weld vs one rod: tip difference %.3e m over a motion of %.3f m; steps %ld vs %ld, Newton %ld vs %ld\n",
           worst, amp, rep2.steps, rep1.steps, rep2.newton_iterations, rep1.newton_iterations);
    CHECK(amp > 0.1);
    CHECK(worst < 1e-6 * amp);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    cr_state_destroy(s1);
    cr_model_destroy(m1);
}

/* ---- a double pendulum of two stiff rods against the rigid double pendulum ---- */
/* Two uniform bars (mass m, length L, moment of inertia I about the centre), the first
 * pinned at its top end, hinged to the second at its lower end, angles θ1, θ2 from the
 * downward vertical. Lagrange's equations:
 *   [m L²/4 + I + m L²,      m L²/2 cos(θ1−θ2)] [θ1″]   [−m L²/2 sin(θ1−θ2) θ2′² − 3/2 m g L sin θ1]
 *   [m L²/2 cos(θ1−θ2),      m L²/4 + I       ] [θ2″] = [ m L²/2 sin(θ1−θ2) θ1′² − 1/2 m g L sin θ2] */
typedef struct bars {
    double m, L, I, g;
} bars;

static void pendulum_rhs(const bars *b, const double x[4], double dx[4])
{
    double c = cos(x[0] - x[1]), s = sin(x[0] - x[1]), mL2 = b->m * b->L * b->L;
    double M11 = mL2 / 4 + b->I + mL2, M12 = mL2 / 2 * c, M22 = mL2 / 4 + b->I;
    double f1 = -mL2 / 2 * s * x[3] * x[3] - 1.5 * b->m * b->g * b->L * sin(x[0]);
    double f2 = mL2 / 2 * s * x[2] * x[2] - 0.5 * b->m * b->g * b->L * sin(x[1]);
    double det = M11 * M22 - M12 * M12;
    dx[0] = x[2], dx[1] = x[3];
    dx[2] = (M22 * f1 - M12 * f2) / det;
    dx[3] = (M11 * f2 - M12 * f1) / det;
}

/* classical RK4 with step h from x to t */
static void pendulum_rk4(const bars *b, double *x, double t, double h)
{
    int steps = (int)ceil(t / h - 1e-9);
    h = t / steps;
    for (int k = 0; k < steps; ++k) {
        double k1[4], k2[4], k3[4], k4[4], xt[4];
        pendulum_rhs(b, x, k1);
        for (int i = 0; i < 4; ++i) xt[i] = x[i] + 0.5 * h * k1[i];
        pendulum_rhs(b, xt, k2);
        for (int i = 0; i < 4; ++i) xt[i] = x[i] + 0.5 * h * k2[i];
        pendulum_rhs(b, xt, k3);
        for (int i = 0; i < 4; ++i) xt[i] = x[i] + h * k3[i];
        pendulum_rhs(b, xt, k4);
        for (int i = 0; i < 4; ++i) x[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

typedef struct angles {
    int count;
    double t[512], th1[512], th2[512], E[512];
    double gap; /* largest |r_b − r_a| of the hinge */
} angles;

static double angle_of(cr_state *s, int n)
{
    cr_vec3 d = cr_v3_sub(cr_state_position(s, n), cr_state_position(s, 0));
    return atan2(d.x, -d.y);
}

static int on_pendulum(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    angles *an = user;
    cr_assembly_state *ms = (cr_assembly_state *)s;
    int n0 = cr_model_node_count(cr_assembly_rod_model(a, 0)) - 1,
        n1 = cr_model_node_count(cr_assembly_rod_model(a, 1)) - 1;
    if (an->count < 512) {
        an->t[an->count] = smp->t;
        an->th1[an->count] = angle_of(cr_assembly_state_rod(ms, 0), n0);
        an->th2[an->count] = angle_of(cr_assembly_state_rod(ms, 1), n1);
        an->E[an->count] = smp->kinetic + smp->elastic + smp->gravity;
        an->count++;
    }
    an->gap = fmax(an->gap, cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(ms, 0), n0),
                                                 cr_state_position(cr_assembly_state_rod(ms, 1), 0))));
    return 0;
}

static void test_double_pendulum(void)
{
    const int n = 8;
    const double L = 1.0, rhoA = 1.0, g = 9.81;
    cr_section_segment sec = section(1e8, 1e6, rhoA); /* stiff: static strains ~1e-7 */
    cr_bc_def pivot = cr_bc_default_def();
    pivot.type = CR_BC_SUPPORT, pivot.hold = CR_HOLD_TRANSLATION | CR_HOLD_RX | CR_HOLD_RY, pivot.frame = CR_FRAME_BODY;
    cr_load_def grav = cr_load_default_def();
    grav.type = CR_LOAD_GRAVITY, grav.value = cr_v3(0, -g, 0);
    cr_assembly_rod_def rods[2] = {named("upper", straight_rod(&sec, L, n)), named("lower", straight_rod(&sec, L, n))};
    rods[0].rod.bcs = &pivot, rods[0].rod.bc_count = 1;
    for (int r = 0; r < 2; ++r) rods[r].rod.loads = &grav, rods[r].rod.load_count = 1;
    rods[1].rod.reference.origin = cr_v3(L, 0, 0);
    cr_joint_def h = joint(CR_JOINT_HINGE, 0, -1, 1, 0);
    h.axis = cr_v3(0, 0, 1);
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &h;
    cr_assembly *a = cr_assembly_create(&def, NULL);
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 1.5, o.output_dt = 0.01, o.rtol = 1e-8, o.atol = 1e-10;
    static angles an;
    memset(&an, 0, sizeof an);
    cr_dynamic_report rep;
    cr_error e = {0};
    CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_pendulum, &an, &rep, &e) == CR_OK);
    if (e.status) printf("%s\n", e.message);
    /* the rigid model of the same lumped bars: the nodes' masses about the centre give the
     * trapezoidal rule's m L²/12 (1 + 2/n²), plus the sections' rotary inertia ρI_z L */
    bars b = {.m = rhoA * L, .L = L, .I = rhoA * L * L * L / 12 * (1 + 2.0 / (n * n)) + 1e-3 * rhoA * L, .g = g};
    double x[4] = {PI / 2, PI / 2, 0, 0}, t = 0, worst = 0, E0 = an.count ? an.E[0] : 0, dE = 0, Emax = 0;
    for (int k = 0; k < an.count; ++k) {
        pendulum_rk4(&b, x, an.t[k] - t, 1e-5);
        t = an.t[k];
        worst = fmax(worst, fmax(fabs(remainder(an.th1[k] - x[0], 2 * PI)), fabs(remainder(an.th2[k] - x[1], 2 * PI))));
        dE = fmax(dE, fabs(an.E[k] - E0));
        Emax = fmax(Emax, fabs(an.E[k]));
    }
    Emax = 2 * b.m * g * L; /* the energy scale: the potential energy the bars exchange */
    printf("double pendulum: %d samples, angle error %.3e rad, energy drift %.3e J of %.3f J, hinge gap %.2e m; "
           "steps %ld, Newton %ld, LU %ld+%ld\n",
           an.count, worst, dE, Emax, an.gap, rep.steps, rep.newton_iterations, rep.lu_real, rep.lu_complex);
    CHECK(an.count == 151);
    CHECK(worst < 2e-5);
    CHECK(dE < 1e-6 * Emax);
    CHECK(an.gap < 1e-9);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* ---- a free-flying assembly: momentum and energy ---- */
/* a rigid spin and drift of the whole, and rods c, d turning about the hinge axis (y
 * through (1, 1, 0)) on top: velocities that satisfy every joint */
static void spin(const cr_assembly *a, cr_assembly_state *s)
{
    cr_vec3 V = cr_v3(0.1, -0.2, 0.05), w = cr_v3(0.3, -0.5, 1.2), wh = cr_v3(0, 2.0, 0), hinge = cr_v3(1, 1, 0);
    for (int r = 0; r < 4; ++r) {
        cr_state *rs = cr_assembly_state_rod(s, r);
        const cr_model *m = cr_assembly_rod_model(a, r);
        for (int i = 0; i < cr_model_node_count(m); ++i) {
            cr_vec3 x = cr_state_position(rs, i), om = w, v = cr_v3_add(V, cr_v3_cross(w, x));
            if (r >= 2) {
                om = cr_v3_add(om, wh);
                v = cr_v3_add(v, cr_v3_cross(wh, cr_v3_sub(x, hinge)));
            }
            cr_state_set_velocity(rs, i, v, cr_m3_tmulv(cr_q_exp(cr_state_orientation(rs, i)), om));
        }
    }
}

static void test_free_flying(void)
{
    const int n = 6;
    cr_section_segment sec = section(1e5, 20, 1.0);
    /* an L welded from two rods, a third hinged to its end, a fourth on a ball */
    cr_assembly_rod_def rods[4] = {named("a", straight_rod(&sec, 1, n)), named("b", straight_rod(&sec, 1, n)),
                                   named("c", straight_rod(&sec, 0.8, n)), named("d", straight_rod(&sec, 0.6, n))};
    rods[1].rod.reference.origin = cr_v3(1, 0, 0);
    rods[1].rod.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), PI / 2); /* along y */
    rods[2].rod.reference.origin = cr_v3(1, 1, 0);
    rods[2].rod.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), -PI / 2); /* along z */
    rods[3].rod.reference.origin = cr_v3(1, 1, 0.8);
    cr_joint_def j[3] = {joint(CR_JOINT_WELD, 0, -1, 1, 0), joint(CR_JOINT_HINGE, 1, -1, 2, 0),
                         joint(CR_JOINT_BALL, 2, -1, 3, 0)};
    j[1].axis = cr_v3(1, 0, 0); /* rod b's body x: along y in I */
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 4, def.rods = rods, def.joint_count = 3, def.joints = j;
    cr_error e = {0};
    cr_assembly *a = cr_assembly_create(&def, &e);
    CHECK(a != NULL);
    if (!a) {
        printf("%s\n", e.message);
        return;
    }
    static track tr, tr2;
    cr_dynamic_report rep;
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 1.0, o.output_dt = 0.02, o.rtol = 1e-8, o.atol = 1e-10;
    /* the rods over two threads (each rod's residual, Jacobian, factorizations and solves a
     * task), then on one: the same series to the last bit */
    for (int pass = 0; pass < 2; ++pass) {
        cr_assembly_state *s = cr_assembly_state_create(a);
        spin(a, s);
        track *t = pass ? &tr : &tr2;
        memset(t, 0, sizeof *t);
        t->rod = 3, t->node = -1;
        o.threads = pass ? 1 : 2;
        CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_assembly, t, &rep, &e) == CR_OK);
        if (e.status) printf("%s\n", e.message);
        cr_assembly_state_destroy(s);
    }
    CHECK(tr2.count == tr.count && memcmp(&tr, &tr2, sizeof tr) == 0);
    double dP = 0, dH = 0, dE = 0, moved = 0;
    for (int k = 0; k < tr.count; ++k) {
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(tr.P[k], tr.P[0])));
        dH = fmax(dH, cr_v3_norm(cr_v3_sub(tr.H[k], tr.H[0])));
        dE = fmax(dE, fabs(tr.E[k] - tr.E[0]));
        moved = fmax(moved, cr_v3_norm(cr_v3_sub(tr.r[k], tr.r[0])));
    }
    printf(
        "free flight: |dP|/|P| %.2e, |dH|/|H| %.2e, |dE|/E %.2e (E %.3f J, tip moved %.2f m); steps %ld, Newton %ld\n",
        dP / cr_v3_norm(tr.P[0]), dH / cr_v3_norm(tr.H[0]), dE / tr.E[0], tr.E[0], moved, rep.steps,
        rep.newton_iterations);
    CHECK(tr.count == 51);
    CHECK(moved > 0.5);
    CHECK(dP < 1e-9 * cr_v3_norm(tr.P[0]));
    CHECK(dH < 1e-6 * cr_v3_norm(tr.H[0]));
    CHECK(dE < 1e-5 * tr.E[0]); /* undamped, no loads: energy too */
    cr_assembly_destroy(a);
}

/* ---- a hub of rods on a free body, on two threads ---- */
/* 24 spokes of 150 elements welded around a free body, the whole tumbling (no load): 69 013
 * unknowns, so the integrator's own vector work runs in chunks on the pool too (above
 * CR_RADAU_PARALLEL_MIN), and the Schur complement of the 24 welds on the body (144 rows and
 * the body's 6) is the sparse one (KLU). On two threads the series is the one thread's to the
 * last bit; momentum and energy are conserved. */
static void test_hub_threads(void)
{
    enum { R = 24, n = 150 };
    const double L = 0.3, r0 = 0.05;
    cr_section_segment sec = section(1e4, 1.0, 1.0);
    static cr_assembly_rod_def rods[R];
    cr_joint_def j[R];
    for (int k = 0; k < R; ++k) {
        const double phi = 2 * PI * k / R;
        char name[16];
        snprintf(name, sizeof name, "spoke%d", k);
        rods[k] = named(name, straight_rod(&sec, L, n));
        rods[k].rod.reference.origin = cr_v3(r0 * cos(phi), r0 * sin(phi), 0);
        rods[k].rod.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), phi); /* radial */
        j[k] = cr_joint_default_def();
        j[k].type = CR_JOINT_WELD, j[k].a = (cr_rod_node){k, 0}, j[k].body_b = 1;
        j[k].point_b = rods[k].rod.reference.origin;
    }
    cr_rigid_body_def body = cr_rigid_body_default_def();
    snprintf(body.name, sizeof body.name, "hub");
    body.mass = 0.2, body.center = cr_v3(0, 0, 0), body.orientation = cr_q_identity();
    body.inertia = (cr_mat3){{{1e-3, 0, 0}, {0, 1e-3, 0}, {0, 0, 2e-3}}};
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = R, def.rods = rods, def.joint_count = R, def.joints = j;
    def.body_count = 1, def.bodies = &body;
    cr_error e = {0};
    cr_assembly *a = cr_assembly_create(&def, &e);
    CHECK(a != NULL);
    if (!a) {
        printf("%s\n", e.message);
        return;
    }
    CHECK(6 * R + 6 >= cr_asm_sparse_min);                      /* the sparse Schur complement */
    CHECK(R * (n + 1) * CR_DYN_BLOCK >= CR_RADAU_PARALLEL_MIN); /* the chunks on the pool */
    const cr_vec3 V = cr_v3(0.1, -0.2, 0.05), w = cr_v3(0.3, -0.5, 4.0);
    static track tr[2];
    cr_dynamic_report rep[2];
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.05, o.output_dt = 0.005, o.rtol = 1e-7, o.atol = 1e-10;
    for (int pass = 0; pass < 2; ++pass) {
        cr_assembly_state *s = cr_assembly_state_create(a);
        for (int r = 0; r < R; ++r) { /* a rigid tumble: the welds hold, the spokes' inertia bends them */
            cr_state *rs = cr_assembly_state_rod(s, r);
            for (int i = 0; i <= n; ++i) {
                cr_vec3 x = cr_state_position(rs, i), v = cr_v3_add(V, cr_v3_cross(w, x));
                cr_state_set_velocity(rs, i, v, cr_m3_tmulv(cr_q_exp(cr_state_orientation(rs, i)), w));
            }
        }
        CHECK(cr_assembly_state_set_body_velocity(s, 0, V, w) == CR_OK);
        memset(&tr[pass], 0, sizeof tr[pass]);
        tr[pass].rod = R - 1, tr[pass].node = -1;
        o.threads = 2 - pass;
        CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_assembly, &tr[pass], &rep[pass], &e) == CR_OK);
        if (e.status) printf("%s\n", e.message);
        cr_assembly_state_destroy(s);
    }
    CHECK(tr[0].count == tr[1].count && memcmp(&tr[0], &tr[1], sizeof tr[0]) == 0);
    CHECK(rep[0].steps == rep[1].steps && rep[0].newton_iterations == rep[1].newton_iterations);
    double dP = 0, dH = 0, dE = 0;
    const track *t = &tr[1];
    for (int k = 0; k < t->count; ++k) {
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(t->P[k], t->P[0])));
        dH = fmax(dH, cr_v3_norm(cr_v3_sub(t->H[k], t->H[0])));
        dE = fmax(dE, fabs(t->E[k] - t->E[0]));
    }
    printf("hub of %d spokes on two threads: %d samples, |dP|/|P| %.2e, |dH|/|H| %.2e, |dE|/E %.2e (E %.4f J); "
           "steps %ld, Newton %ld, LU %ld+%ld\n",
           R, t->count, dP / cr_v3_norm(t->P[0]), dH / cr_v3_norm(t->H[0]), dE / t->E[0], t->E[0], rep[1].steps,
           rep[1].newton_iterations, rep[1].lu_real, rep[1].lu_complex);
    CHECK(t->count == 11);
    CHECK(dP < 1e-9 * cr_v3_norm(t->P[0]));
    CHECK(dH < 1e-6 * cr_v3_norm(t->H[0]));
    CHECK(dE < 1e-5 * t->E[0]);
    cr_assembly_destroy(a);
}

/* ---- a prismatic slider: free fall along the joint's axis ---- */
/* A very stiff rod "rail" along x (EA = 1e10, EI = 1e8, ρA = 1), clamped at x = 0, no
 * load, and a rod "slider" on [1, 2] (EA = 1e8, EI = 1e6) joined to the rail's end by a prismatic joint along x, under
 * gravity g = (2, −9.81, 0), from rest. The joint's force on the slider is normal to the
 * axis (its multipliers are the two normal components), so the slider's every node
 * falls freely along x, x(t) = x_0 + g_x t²/2 (no axial force in a body in free fall),
 * while the joint carries its weight across (up to twice it, as the slider starts from
 * rest). The reference holds up to the rail's end slope θ under that load (~ F L²/(2 EI)
 * + M L/EI ~ 2e-7 rad): the joint's force then has an axial part ~ θ F, an error ~ θ F
 * t²/(2 ρA L) ~ 5e-7 m at t = 0.5 s; the slider's own bending (~1e-6 m) shortens it by
 * ~1e-12 m only. */
typedef struct slide_rec {
    double worst_x, worst_axial, max_normal, t_last;
    int count;
} slide_rec;

static int on_slide(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *sample, void *user)
{
    slide_rec *r = user;
    cr_assembly_state *sm = (cr_assembly_state *)s;
    const cr_state *b = cr_assembly_state_rod(sm, 1);
    const int n = cr_assembly_rod_model(a, 1) ? cr_model_node_count(cr_assembly_rod_model(a, 1)) : 0;
    const double t = sample->t;
    for (int i = 0; i < n; ++i) {
        double x0 = 1.0 + (double)i / (n - 1);
        r->worst_x = fmax(r->worst_x, fabs(cr_state_position(b, i).x - (x0 + 0.5 * 2.0 * t * t)));
    }
    cr_vec3 f;
    cr_assembly_joint_reaction(a, s, 0, &f, NULL);
    cr_vec3 axis = cr_m3_column(cr_q_exp(cr_state_orientation(cr_assembly_state_rod(sm, 0), n - 1)), 0);
    r->worst_axial = fmax(r->worst_axial, fabs(cr_v3_dot(f, axis)));
    r->max_normal = fmax(r->max_normal, cr_v3_norm(f));
    r->t_last = t, r->count++;
    return 0;
}

static void test_prismatic_slider(void)
{
    const int n = 6;
    cr_section_segment sec = section(1e8, 1e6, 1.0), rail = section(1e10, 1e8, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def grav = cr_load_default_def();
    grav.type = CR_LOAD_GRAVITY, grav.value = cr_v3(2.0, -9.81, 0);
    cr_assembly_rod_def rods[2] = {named("rail", straight_rod(&rail, 1, n)), named("slider", straight_rod(&sec, 1, n))};
    rods[0].rod.bcs = &clamp, rods[0].rod.bc_count = 1;
    rods[1].rod.reference.origin = cr_v3(1, 0, 0), rods[1].rod.loads = &grav, rods[1].rod.load_count = 1;
    cr_joint_def j = joint(CR_JOINT_PRISMATIC, 0, -1, 1, 0);
    j.axis = cr_v3(1, 0, 0);
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &j;
    cr_error e = {0};
    cr_assembly *a = cr_assembly_create(&def, &e);
    CHECK(a != NULL);
    if (!a) {
        printf("%s\n", e.message);
        return;
    }
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.5, o.output_dt = 0.05, o.rtol = 1e-8, o.atol = 1e-10;
    slide_rec rec = {0};
    cr_dynamic_report rep;
    CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_slide, &rec, &rep, &e) == CR_OK);
    if (e.status) printf("%s\n", e.message);
    printf("prismatic slider: %d samples to t = %.2f, slid %.4f m; max |x - x0 - g_x t^2/2| %.3e m; joint force "
           "along the axis %.2e N of %.3f N; steps %ld, Newton %ld\n",
           rec.count, rec.t_last, 0.5 * 2.0 * rec.t_last * rec.t_last, rec.worst_x, rec.worst_axial, rec.max_normal,
           rep.steps, rep.newton_iterations);
    CHECK(rec.count == 11);
    CHECK(rec.worst_x < 1e-6);
    CHECK(rec.worst_axial < 1e-9 * rec.max_normal);
    CHECK(rec.max_normal > 0.5 * 9.81); /* it does carry the weight across */
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* ---- a hinge drive: its row's ġ and g̈ along a motion with θ(τ) turning ---- */
static void test_drive_row_derivatives(void)
{
    cr_asm_joint j;
    memset(&j, 0, sizeof j);
    j.type = CR_JOINT_HINGE, j.rows = 6, j.pos_rows = 3, j.drive = 1;
    j.u1 = cr_v3_normalize(cr_v3(1, 1, 0)), j.u2 = cr_v3_normalize(cr_v3(-1, 1, 1));
    j.rel_ref = cr_q_normalize(cr_q(0.6, -0.3, 0.2, 0.5));
    j.axis_b = cr_m3_tmulv(cr_q_exp(j.rel_ref), cr_v3_cross(j.u1, j.u2));
    /* poses off the constraint, constant velocities; θ(τ) = θ0 + θ1 τ + θ2 τ²/2 */
    const cr_quat pa = cr_q_axis_angle(cr_v3_normalize(cr_v3(0.2, -1, 0.4)), 0.7),
                  pb = cr_q_axis_angle(cr_v3_normalize(cr_v3(-0.5, 0.3, 1)), 1.3);
    const cr_vec3 wa = cr_v3(0.8, -1.1, 0.5), wb = cr_v3(-0.3, 0.9, 1.7), ra = cr_v3(0.1, 0.4, -0.3),
                  rb = cr_v3(0.6, -0.2, 0.5), va = cr_v3(1.2, -0.4, 0.3), vb = cr_v3(-0.7, 0.8, 1.1);
    const double th[3] = {31.7, 2.3, -4.1}, h = 1e-4;
    double bias[6], gt[6], g[3][6], C[72];
    cr_asm_joint_bias(&j, 1.0, th, ra, pa, va, wa, rb, pb, vb, wb, bias, gt);
    for (int k = 0; k < 3; ++k) {
        const double tau = (k - 1) * h, dk[3] = {th[0] + th[1] * tau + 0.5 * th[2] * tau * tau, 0, 0};
        cr_asm_joint_eval(&j, 1.0, dk, cr_v3_add(ra, cr_v3_scale(va, tau)),
                          cr_q_mul(pa, cr_q_axis_angle(cr_v3_normalize(wa), tau * cr_v3_norm(wa))),
                          cr_v3_add(rb, cr_v3_scale(vb, tau)),
                          cr_q_mul(pb, cr_q_axis_angle(cr_v3_normalize(wb), tau * cr_v3_norm(wb))), NULL, g[k],
                          k == 1 ? C : NULL, NULL);
    }
    const double u[12] = {va.x, va.y, va.z, wa.x, wa.y, wa.z, vb.x, vb.y, vb.z, wb.x, wb.y, wb.z};
    double cu = 0;
    for (int c = 0; c < 12; ++c) cu += C[5 * 12 + c] * u[c];
    const double gd = (g[2][5] - g[0][5]) / (2 * h), gdd = (g[2][5] - 2 * g[1][5] + g[0][5]) / (h * h);
    printf("drive row: g' %.9f vs C u + g_t %.9f (g_t %.4f); g'' %.6f vs bias %.6f\n", gd, cu + gt[5], gt[5], gdd,
           bias[5]);
    CHECK(fabs(gt[5]) > 0.1); /* the explicit time dependence is there */
    CHECK_NEAR(gd, cu + gt[5], 1e-7);
    CHECK_NEAR(gdd, bias[5], 1e-5);
}

/* ---- a rod turned 5 times by a driven hinge ----
 * A stiff arm (length L, ρA, rotary inertia ρI_z per length) hinged about z at the tip of a
 * clamped stiff base rod, its hinge driven through θ(t) = 10π s(t/T) (s the quintic smooth
 * step: at rest at both ends). Rigid-like, the arm turns with the drive, so its tip ends at
 * the unwrapped angle 10π (five full turns kept), and the moment the hinge needs about z
 * is the arm's inertia about its end times θ'':  M = (ρA L³/3 + ρI_z L) θ''(t); the joint's
 * wrench on its first node (the base) is −M. (The lumped masses give ρA L³ (1/3 + 1/(6n²)).) */
typedef struct drive_rec {
    double unwrapped, last_raw, worst_m, max_m, I, T, t_last;
    int count;
} drive_rec;

static int on_drive(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    drive_rec *r = user;
    cr_assembly_state *sm = (cr_assembly_state *)s;
    const cr_state *arm = cr_assembly_state_rod(sm, 1);
    cr_vec3 tip = cr_state_position(arm, cr_model_node_count(cr_assembly_rod_model(a, 1)) - 1);
    double raw = atan2(tip.y, tip.x);
    if (r->count > 0) r->unwrapped += remainder(raw - r->last_raw, 2 * PI);
    r->last_raw = raw;
    cr_time_function sm5 = {.type = CR_TIME_SMOOTH_STEP, .t0 = 0, .t1 = r->T};
    double v, rate, acc;
    cr_time_function_eval_d(&sm5, smp->t, &v, &rate, &acc);
    cr_vec3 m;
    cr_assembly_joint_reaction(a, s, 0, NULL, &m);
    const double expect = -r->I * 10 * PI * acc;
    r->worst_m = fmax(r->worst_m, fabs(m.z - expect));
    r->max_m = fmax(r->max_m, fabs(expect));
    r->t_last = smp->t, r->count++;
    return 0;
}

static void test_driven_hinge_turns(void)
{
    const int n = 20;
    const double L = 1.0, rhoA = 1.0, T = 2.0;
    cr_section_segment arm = section(1e9, 1e6, rhoA), base = section(1e11, 1e9, rhoA);
    cr_bc_def clamp = cr_bc_default_def();
    cr_assembly_rod_def rods[2] = {named("base", straight_rod(&base, 0.2, 2)), named("arm", straight_rod(&arm, L, n))};
    rods[0].rod.reference.origin = cr_v3(-0.2, 0, 0);
    rods[0].rod.bcs = &clamp, rods[0].rod.bc_count = 1;
    cr_joint_def j = joint(CR_JOINT_HINGE, 0, -1, 1, 0);
    j.axis = cr_v3(0, 0, 1);
    j.has_drive = 1, j.drive_angle = 10 * PI;
    j.drive_time = (cr_time_function){.type = CR_TIME_SMOOTH_STEP, .t0 = 0, .t1 = T};
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &j;
    cr_error e = {0};
    cr_assembly *a = cr_assembly_create(&def, &e);
    CHECK(a != NULL);
    if (!a) {
        printf("%s\n", e.message);
        return;
    }
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = T, o.output_dt = 0.01, o.rtol = 1e-9, o.atol = 1e-11;
    drive_rec rec = {.I = rhoA * L * L * L / 3 + arm.rhoI_z[0] * L, .T = T};
    cr_dynamic_report rep;
    CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_drive, &rec, &rep, &e) == CR_OK);
    if (e.status) printf("%s\n", e.message);
    printf("driven hinge: %d samples to t = %.2f; tip turned %.6f rad (10 pi = %.6f, %.3e off); hinge moment vs "
           "-I theta'' (I = %.5f): max error %.3e of %.3f N m; steps %ld\n",
           rec.count, rec.t_last, rec.unwrapped, 10 * PI, rec.unwrapped - 10 * PI, rec.I, rec.worst_m, rec.max_m,
           rep.steps);
    CHECK(rec.count == 201);
    CHECK(fabs(rec.unwrapped - 10 * PI) < 1e-3);
    CHECK(rec.worst_m < 5e-3 * rec.max_m);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* ---- a hinge swinging into its limit beyond π ----
 * The stiff arm of the driven hinge, free about z, turned by a constant moment T about z at
 * its tip from rest: it accelerates through π onto the upper stop of its limit [−1, 5] (rad,
 * unwrapped) with the kinetic energy T θ_L, bounces off the stop's penalty spring (stiffness
 * k = limit_stiffness), and T brings it back to rest at θ = 0 and round again. References:
 * (1) the energy kinetic + elastic (the stop's ½ k p² included) − work of T stays at its
 * initial 0: the stop neither makes nor (elastic) loses energy, Radau IIA only damps; (2) the
 * deepest penetration p is at most p* with ½ k p*² = T (θ_L + p*) (all the work of T in the
 * stop's spring; the arm's own strain energy takes a little of it); (3) the arm turns beyond
 * π (unwrapped) and never past θ_L + p*. */
typedef struct limit_rec {
    double unwrapped, last_raw, max_angle, e_max, e_min, e_in, e_before, e_after;
    int count, touched;
} limit_rec;

static int on_limit(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    limit_rec *r = user;
    const cr_state *arm = cr_assembly_state_rod((cr_assembly_state *)s, 1);
    const int n = cr_model_node_count(cr_assembly_rod_model(a, 1));
    cr_vec3 d = cr_v3_sub(cr_state_position(arm, n - 1), cr_state_position(arm, n - 2)); /* the last element */
    double raw = atan2(d.y, d.x);
    if (r->count > 0) r->unwrapped += remainder(raw - r->last_raw, 2 * PI);
    r->last_raw = raw;
    r->max_angle = fmax(r->max_angle, r->unwrapped);
    const double e = smp->kinetic + smp->elastic + smp->gravity - smp->work_external;
    /* on the stop: its spring's energy ½ k p² is in `elastic` (the arm's own is ~1e-7 J) */
    const int on_stop = smp->elastic > 1e-4;
    if (on_stop) r->touched = 1, r->e_in = fmax(r->e_in, fabs(e));
    if (!on_stop && !r->touched) r->e_before = e;
    if (!on_stop && r->touched && r->e_after == 0) r->e_after = e;
    r->e_max = r->count ? fmax(r->e_max, e) : e, r->e_min = r->count ? fmin(r->e_min, e) : e;
    r->count++;
    return 0;
}

static void test_hinge_limit_swing(void)
{
    const int n = 10;
    const double L = 1.0, rhoA = 1.0, T = 1.0, k = 1e3, hi = 5.0;
    cr_section_segment arm = section(1e9, 1e6, rhoA), base = section(1e11, 1e9, rhoA);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def torque = cr_load_default_def();
    torque.type = CR_LOAD_MOMENT, torque.node = -1, torque.value = cr_v3(0, 0, T);
    cr_assembly_rod_def rods[2] = {named("base", straight_rod(&base, 0.2, 2)), named("arm", straight_rod(&arm, L, n))};
    rods[0].rod.reference.origin = cr_v3(-0.2, 0, 0);
    rods[0].rod.bcs = &clamp, rods[0].rod.bc_count = 1;
    rods[1].rod.loads = &torque, rods[1].rod.load_count = 1;
    cr_joint_def j = joint(CR_JOINT_HINGE, 0, -1, 1, 0);
    j.axis = cr_v3(0, 0, 1);
    j.has_limit = 1, j.limit[0] = -1.0, j.limit[1] = hi, j.limit_stiffness = k;
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 2, def.rods = rods, def.joint_count = 1, def.joints = &j;
    cr_error e = {0};
    cr_assembly *a = cr_assembly_create(&def, &e);
    CHECK(a != NULL);
    if (!a) {
        printf("%s\n", e.message);
        return;
    }
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 3.0, o.output_dt = 0.005, o.rtol = 1e-9, o.atol = 1e-9;
    limit_rec rec = {0};
    cr_dynamic_report rep;
    CHECK(cr_assembly_dynamic_solve(a, s, 0, &o, on_limit, &rec, &rep, &e) == CR_OK);
    if (e.status) printf("%s\n", e.message);
    const double pstar = (T + sqrt(T * T + 2 * k * T * hi)) / k, pen = rec.max_angle - hi;
    const double scale = T * hi; /* the kinetic energy at the stop */
    printf("hinge limit swing: %d samples; largest angle %.6f rad (limit %.1f): penetration %.6f rad, bound p* = "
           "%.6f; final angle %.4f; energy - work: %.3e J before the bounce, %.3e after, within %.3e on the stop, "
           "in [%.3e, %.3e] overall, of %.1f J; steps %ld (%ld rejected)\n",
           rec.count, rec.max_angle, hi, pen, pstar, rec.unwrapped, rec.e_before, rec.e_after, rec.e_in, rec.e_min,
           rec.e_max, scale, rep.steps, rep.rejected);
    CHECK(rec.count == 601);
    CHECK(pen > 0.99 * pstar); /* it reached the stop beyond π, and its spring held it within p* */
    CHECK(pen <= pstar * (1 + 1e-6));
    CHECK(rec.unwrapped < 1.0);                        /* bounced back toward its start */
    /* the bounce made no energy beyond the integrator's error: at rtol 1e-9 it moves E − W across
     * the bounce by ±3e-6 of T hi (Release −1.07e-5 J, the Debug ASan build's other rounding
     * +1.38e-5 J); without the step bound onto the stop's kinks it gained 5e-4 J, 1e-4 of it */
    CHECK(rec.e_after <= rec.e_before + 1e-5 * scale);
    CHECK(rec.e_after >= rec.e_before - 1e-5 * scale); /* and lost little (elastic stop) */
    CHECK(rec.e_in <= 2e-5 * scale);                   /* on the stop (the dense output's interpolation) */
    CHECK(fabs(rec.e_max) <= 2e-5 * scale && fabs(rec.e_min) <= 2e-5 * scale);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

CHECK_MAIN(CASE(test_joint_bias), CASE(test_jacobian_fd), CASE(test_shifted_solves), CASE(test_weld_equals_one_rod),
           CASE(test_double_pendulum), CASE(test_free_flying), CASE(test_hub_threads), CASE(test_prismatic_slider),
           CASE(test_drive_row_derivatives), CASE(test_driven_hinge_turns), CASE(test_hinge_limit_swing))
