/* Supports on joints' nodes in assemblies of mixed discrete rods (docs/theory.md,
 * "Assemblies"): a rod's boundary condition on a node that a joint also holds, against
 * independent references (the same rods held directly, one continuous rod, beam theory,
 * global equilibrium) and the redundancy check's message. */
#include "check.h"
#include "cosserat/assembly.h"
#include "mixed/assembly_internal.h"
#include "rod_builders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cr_static_options tight(void)
{
    cr_static_options o = cr_static_default_options();
    o.atol = 1e-13, o.rtol = 1e-12, o.stability = 0;
    return o;
}

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

/* a rod along direction dir (in the xy plane) from origin o: its frame turned about z from
 * I's, body z = I's z */
static cr_rod_def rod_along(const cr_section_segment *sec, double L, int n, cr_vec3 o, cr_vec3 dir)
{
    cr_rod_def d = straight_rod(sec, L, n);
    d.reference.origin = o;
    d.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), atan2(dir.y, dir.x));
    return d;
}

static cr_assembly *make(cr_assembly_def *def)
{
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(def, &err);
    if (!a) fprintf(stderr, "[%s] %s\n", check_current, err.message);
    return a;
}

static int solve(cr_assembly *a, cr_assembly_state *s)
{
    cr_static_options o = tight();
    cr_error err = {0};
    cr_static_report rep;
    cr_status st = cr_assembly_static_solve(a, s, &o, &rep, &err);
    if (st != CR_OK)
        fprintf(stderr, "[%s] %s\n", check_current, err.message);
    else
        printf("[%s] %d load steps, %d Newton iterations\n", check_current, rep.step_count, rep.total_iterations);
    cr_static_report_free(&rep);
    return st == CR_OK;
}

/* largest distance between the nodes of an assembly rod and a single rod's */
static double node_gap(cr_assembly_state *s, int rod, const cr_state *one, int nodes)
{
    double d = 0;
    for (int i = 0; i < nodes; ++i)
        d = fmax(d,
                 cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s, rod), i), cr_state_position(one, i))));
    return d;
}

/* ---- a clamped end welded to a second rod: the second is a cantilever ---- */
/* Rod 'A' along x, clamped at node 0; rod 'B' along y from the same point, welded to A's node 0
 * (a clamped node that a weld also holds) with a tip force P along x. B is a cantilever
 * clamped through the weld: its nodes equal the single rod B clamped at node 0 (a large
 * deflection), A does not move and carries nothing, and A's clamp takes −P and the moment.
 * A small load against beam theory: δ = P L³/(3 EI) + P L/GA. */
static void test_clamped_weld_cantilever(void)
{
    const int n = 12;
    const double EI = 2.0, GA = 1e5, L = 1.0;
    cr_section_segment sec = resultants(1e5, GA, 1.5, EI, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    for (int big = 0; big < 2; ++big) {
        const double P = big ? 3.0 : 1e-4;
        cr_load_def tip = cr_load_default_def();
        tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(P, 0, 0);
        /* the reference: B alone, clamped at node 0 */
        cr_rod_def one = rod_along(&sec, L, n, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
        one.bcs = &clamp, one.bc_count = 1, one.loads = &tip, one.load_count = 1;
        cr_model *m1 = cr_model_create(&one, NULL);
        cr_state *s1 = cr_state_create(m1);
        cr_static_options o = tight();
        CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
        cr_rod_def A = rod_along(&sec, L, n, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
        cr_rod_def B = rod_along(&sec, L, n, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
        A.bcs = &clamp, A.bc_count = 1, B.loads = &tip, B.load_count = 1;
        cr_assembly_rod_def rods[2] = {named("A", A), named("B", B)};
        cr_joint_def w = joint(CR_JOINT_WELD, 0, 0, 1, 0);
        cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &w};
        cr_assembly *a = make(&def);
        CHECK(a != NULL);
        if (!a) return;
        CHECK(a->support_count == 1 && a->support_rows == 6);
        cr_assembly_state *s = cr_assembly_state_create(a);
        CHECK(solve(a, s));
        const double dB = node_gap(s, 1, s1, n + 1);
        double dA = 0;
        for (int i = 0; i <= n; ++i)
            dA = fmax(dA,
                      cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s, 0), i), cr_v3(L * i / n, 0, 0))));
        cr_vec3 tipr = cr_state_position(cr_assembly_state_rod(s, 1), n);
        cr_vec3 f, m, fj, mj;
        CHECK(cr_asm_support_reaction(a, s, 0, 0, &f, &m) == CR_OK);
        CHECK(cr_assembly_joint_reaction(a, s, 0, &fj, &mj) == CR_OK);
        /* global equilibrium: the clamp's force and the load; its moment about the clamp
         * balances the load's about it, (r_tip − 0) × P (moment in the node's basis: the
         * node does not turn, so in I) */
        cr_vec3 mt = cr_v3_cross(tipr, tip.value);
        printf("[%s] P = %g: B vs one rod %.3g m, A moved %.3g m, tip (%.9f, %.9f); clamp force (%.3g, %.3g, %.3g) "
               "moment (%.6g, %.6g, %.6g), r x P (%.6g, %.6g, %.6g)\n",
               check_current, P, dB, dA, tipr.x, tipr.y, f.x, f.y, f.z, m.x, m.y, m.z, mt.x, mt.y, mt.z);
        CHECK(dB < 1e-10 * fmax(1.0, P));
        CHECK(dA < 1e-12);
        CHECK(cr_v3_norm(cr_v3_add(f, tip.value)) < 1e-9 * fmax(P, 1.0));
        CHECK(cr_v3_norm(cr_v3_add(m, mt)) < 1e-9 * fmax(P, 1.0));
        /* the weld passes the whole load to A's node: its force on A is the tip load */
        CHECK(cr_v3_norm(cr_v3_sub(fj, tip.value)) < 1e-9 * fmax(P, 1.0));
        if (!big) {
            const double ref = P * L * L * L / (3 * EI) + P * L / GA;
            printf("[%s] small load: tip deflection %.12g, beam theory %.12g (rel %.3g)\n", check_current, tipr.x, ref,
                   fabs(tipr.x / ref - 1));
            CHECK(fabs(tipr.x / ref - 1) < 2e-3); /* the discrete rod at n = 12 */
        } else
            CHECK(tipr.x > 0.3); /* a large deflection */
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
        cr_state_destroy(s1);
        cr_model_destroy(m1);
    }
}

/* ---- a hinge on a clamped node: a simply supported beam ---- */
/* 'A' clamped at node 0; 'B' along x from A's node 0, hinged there (axis z) and pinned at its
 * far end (translations, and its twist about x, which the hinge holds as well in the
 * assembly), a transverse force F at its middle node: B is a simply supported beam in the xy
 * plane; against the single rod B pinned at both ends (the same rows: node 0's translations
 * and twist, the tip's translations), and at a small load against δ_mid = F L³/(48 EI) +
 * F L/(4 GA). The hinge lets B's end turn, so the clamp takes no moment about z. */
static void test_hinge_on_clamp(void)
{
    const int n = 16;
    const double EI = 1.0, GA = 1e5, L = 1.0;
    cr_section_segment sec = resultants(1e5, GA, 0.7, EI, 1.0);
    for (int big = 0; big < 2; ++big) {
        const double F = big ? -2.0 : -1e-4;
        cr_load_def mid = cr_load_default_def();
        mid.type = CR_LOAD_FORCE, mid.node = n / 2, mid.value = cr_v3(0, F, 0);
        cr_bc_def clamp = cr_bc_default_def();
        cr_bc_def pins[2] = {cr_bc_default_def(), cr_bc_default_def()};
        pins[0].type = CR_BC_SUPPORT, pins[0].hold = CR_HOLD_TRANSLATION | CR_HOLD_RX | CR_HOLD_RY;
        pins[1].type = CR_BC_SUPPORT, pins[1].hold = CR_HOLD_TRANSLATION, pins[1].node = -1;
        cr_rod_def one = rod_along(&sec, L, n, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
        one.bcs = pins, one.bc_count = 2, one.loads = &mid, one.load_count = 1;
        cr_model *m1 = cr_model_create(&one, NULL);
        cr_state *s1 = cr_state_create(m1);
        cr_static_options o = tight();
        CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
        cr_rod_def A = rod_along(&sec, L, n, cr_v3(0, 0, 0), cr_v3(0, -1, 0));
        cr_rod_def B = rod_along(&sec, L, n, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
        A.bcs = &clamp, A.bc_count = 1;
        B.bcs = &pins[1], B.bc_count = 1, B.loads = &mid, B.load_count = 1;
        cr_assembly_rod_def rods[2] = {named("A", A), named("B", B)};
        cr_joint_def h = joint(CR_JOINT_HINGE, 0, 0, 1, 0);
        h.axis = cr_v3(0, 0, 1); /* in A's body frame: its z is I's z */
        cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &h};
        cr_assembly *a = make(&def);
        CHECK(a != NULL);
        if (!a) return;
        cr_assembly_state *s = cr_assembly_state_create(a);
        CHECK(solve(a, s));
        const double dB = node_gap(s, 1, s1, n + 1);
        double dA = 0;
        for (int i = 0; i <= n; ++i)
            dA = fmax(
                dA, cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s, 0), i), cr_v3(0, -L * i / n, 0))));
        cr_vec3 f, m, fe, me;
        CHECK(cr_asm_support_reaction(a, s, 0, 0, &f, &m) == CR_OK);
        /* B's end pin (an ordinary support): the formulation's cr_state_reaction */
        CHECK(cr_state_reaction(a->models[1], cr_assembly_state_rod(s, 1), n, &fe, &me) == CR_OK);
        cr_vec3 sum = cr_v3_add(cr_v3_add(f, fe), mid.value);
        /* moments about the clamp (the moment in the node's basis, taken to I) */
        cr_vec3 mI = cr_m3_mulv(cr_q_exp(cr_state_orientation(cr_assembly_state_rod(s, 0), 0)), m);
        cr_vec3 mom = cr_v3_add(cr_v3_add(mI, cr_v3_cross(cr_state_position(cr_assembly_state_rod(s, 1), n), fe)),
                                cr_v3_cross(cr_state_position(cr_assembly_state_rod(s, 1), n / 2), mid.value));
        const double mid_y = cr_state_position(cr_assembly_state_rod(s, 1), n / 2).y;
        printf("[%s] F = %g: B vs one rod %.3g m, A moved %.3g m, mid %.12g; clamp (%.6g, %.6g, %.6g) moment_z %.3g; "
               "sum of forces %.3g, of moments %.3g\n",
               check_current, F, dB, dA, mid_y, f.x, f.y, f.z, mI.z, cr_v3_norm(sum), cr_v3_norm(mom));
        CHECK(dB < 1e-10);
        CHECK(dA < 1e-12);
        /* to the round-off of the reactions (EA ε |x| = 2e-11 N; the axial force of the big case
         * is 28 N) */
        const double scale = fmax(1.0, cr_v3_norm(f));
        CHECK(cr_v3_norm(sum) < 1e-9 * scale);
        CHECK(cr_v3_norm(mom) < 1e-9 * scale);
        CHECK(fabs(mI.z) < 1e-9 * scale); /* the hinge passes no moment about its axis */
        if (!big) {
            const double ref = F * L * L * L / (48 * EI) + F * L / (4 * GA);
            printf("[%s] small load: mid deflection %.12g, beam theory %.12g (rel %.3g)\n", check_current, mid_y, ref,
                   fabs(mid_y / ref - 1));
            CHECK(fabs(mid_y / ref - 1) < 5e-3); /* the discrete rod at n = 16 */
        }
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
        cr_state_destroy(s1);
        cr_model_destroy(m1);
    }
}

/* ---- a ball joint at a pinned node: a pinned-pinned rod ---- */
/* 'A' along x, pinned at node 0 (translations) and at its end (translations and twist); 'C'
 * along y from A's node 0, on a ball joint there, held at its far end (translations and its
 * twist about y), a transverse force Q along x and one along z at its middle: C is the single
 * rod pinned at both ends (its node 0's translations held by the ball on the pinned node, its
 * twist by the far end), A carries nothing. Reactions: the pin on A's node 0 takes the ball's
 * force, and everything balances the loads. */
static void test_ball_on_pin(void)
{
    const int n = 10;
    cr_section_segment sec = resultants(1e5, 1e5, 0.7, 1.0, 1.0);
    cr_load_def q = cr_load_default_def();
    q.type = CR_LOAD_FORCE, q.node = n / 2, q.value = cr_v3(1.5, 0, -0.8);
    cr_bc_def pin = cr_bc_default_def(), far = cr_bc_default_def(), farC = cr_bc_default_def();
    pin.type = CR_BC_PIN;
    far.type = CR_BC_SUPPORT, far.hold = CR_HOLD_TRANSLATION | CR_HOLD_RX, far.node = -1;
    far.frame = CR_FRAME_BODY; /* RX: about the rod's own axis */
    farC = far;
    cr_bc_def onebc[2] = {pin, farC};
    cr_rod_def one = rod_along(&sec, 1.0, n, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
    one.bcs = onebc, one.bc_count = 2, one.loads = &q, one.load_count = 1;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    cr_static_options o = tight();
    CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
    cr_bc_def Abc[2] = {pin, far};
    cr_rod_def A = rod_along(&sec, 1.0, n, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    cr_rod_def C = rod_along(&sec, 1.0, n, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
    A.bcs = Abc, A.bc_count = 2;
    C.bcs = &farC, C.bc_count = 1, C.loads = &q, C.load_count = 1;
    cr_assembly_rod_def rods[2] = {named("A", A), named("C", C)};
    cr_joint_def b = joint(CR_JOINT_BALL, 0, 0, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &b};
    cr_assembly *a = make(&def);
    CHECK(a != NULL);
    if (!a) return;
    CHECK(a->support_count == 1 && a->support_rows == 3);
    cr_assembly_state *s = cr_assembly_state_create(a);
    CHECK(solve(a, s));
    const double dC = node_gap(s, 1, s1, n + 1);
    double dA = 0;
    for (int i = 0; i <= n; ++i)
        dA = fmax(dA,
                  cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s, 0), i), cr_v3(1.0 * i / n, 0, 0))));
    cr_vec3 f0, m0, fa, ma, fc, mc, f1, m1r;
    CHECK(cr_asm_support_reaction(a, s, 0, 0, &f0, &m0) == CR_OK);
    CHECK(cr_state_reaction(a->models[0], cr_assembly_state_rod(s, 0), n, &fa, &ma) == CR_OK);
    CHECK(cr_state_reaction(a->models[1], cr_assembly_state_rod(s, 1), n, &fc, &mc) == CR_OK);
    CHECK(cr_state_reaction(m1, s1, 0, &f1, &m1r) == CR_OK);
    cr_vec3 sum = cr_v3_add(cr_v3_add(cr_v3_add(f0, fa), fc), q.value);
    printf("[%s] C vs one rod %.3g m, A moved %.3g m; pin on the joint node (%.9f, %.9f, %.9f), one rod's pin (%.9f, "
           "%.9f, %.9f); sum of forces %.3g\n",
           check_current, dC, dA, f0.x, f0.y, f0.z, f1.x, f1.y, f1.z, cr_v3_norm(sum));
    CHECK(dC < 1e-10);
    CHECK(dA < 1e-12);
    CHECK(cr_v3_norm(cr_v3_sub(f0, f1)) < 1e-9);
    CHECK(cr_v3_norm(fa) < 1e-9); /* A carries nothing */
    CHECK(cr_v3_norm(sum) < 1e-10 * cr_v3_norm(f1));
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    cr_state_destroy(s1);
    cr_model_destroy(m1);
}

/* ---- redundancy: a support and a weld to a clamped rod hold the same node ---- */
static void test_redundant(void)
{
    cr_section_segment sec = resultants(1e5, 1e5, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_rod_def A = rod_along(&sec, 1.0, 4, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    cr_rod_def B = rod_along(&sec, 1.0, 4, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
    A.bcs = &clamp, A.bc_count = 1, B.bcs = &clamp, B.bc_count = 1;
    cr_assembly_rod_def rods[2] = {named("A", A), named("B", B)};
    cr_joint_def w = joint(CR_JOINT_WELD, 0, 0, 1, 0);
    strcpy(w.name, "corner");
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &w};
    cr_assembly *a = make(&def);
    CHECK(a != NULL);
    if (!a) return;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_error err = {0};
    cr_status st = cr_assembly_static_solve(a, s, NULL, NULL, &err);
    printf("[%s] %s\n", check_current, err.message);
    CHECK(st == CR_BAD_INPUT);
    CHECK(strstr(err.message, "joints.0 ('corner'): its constraint on translation along x repeats the constraints of "
                              "rods.0 ('A').boundary_conditions.0, rods.1 ('B').boundary_conditions.0") != NULL);
    /* a ball on a pinned node of B instead: still redundant in translation, not in rotation */
    cr_bc_def pin = cr_bc_default_def();
    pin.type = CR_BC_PIN;
    rods[1].rod.bcs = &pin;
    w.type = CR_JOINT_BALL;
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    a = make(&def);
    s = cr_assembly_state_create(a);
    st = cr_assembly_static_solve(a, s, NULL, NULL, &err);
    CHECK(st == CR_BAD_INPUT);
    CHECK(strstr(err.message, "repeats the constraints of rods.0 ('A').boundary_conditions.0, rods.1 "
                              "('B').boundary_conditions.0") != NULL);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* ---- dynamics: a pendulum hinged to a clamped node, on a ball at a pinned node ---- */
typedef struct track {
    int count, node;
    double t[1024], E[1024], gap;
    cr_vec3 r[1024];
} track;

static int on_rod(const cr_model *m, const cr_state *s, const cr_dynamic_sample *smp, void *user)
{
    track *tr = user;
    if (tr->count < 1024) {
        tr->t[tr->count] = smp->t;
        tr->r[tr->count] = cr_state_position(s, cr_model_node_count(m) - 1);
        tr->E[tr->count++] = smp->kinetic + smp->elastic + smp->gravity;
    }
    return 0;
}

static int on_assembly(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    track *tr = user;
    cr_assembly_state *ms = (cr_assembly_state *)s;
    if (tr->count < 1024) {
        tr->t[tr->count] = smp->t;
        tr->r[tr->count] = cr_state_position(cr_assembly_state_rod(ms, 1), cr_model_node_count(a->models[1]) - 1);
        tr->E[tr->count++] = smp->kinetic + smp->elastic + smp->gravity;
    }
    /* the joint's two nodes stay together; the post's held node stays where its support is */
    tr->gap = fmax(tr->gap, cr_v3_norm(cr_state_position(cr_assembly_state_rod(ms, 1), 0)));
    tr->gap = fmax(tr->gap, cr_v3_norm(cr_state_position(cr_assembly_state_rod(ms, 0), 0)));
    return 0;
}

/* A bar (L = 1, ρA = 1, stiff: EI = 1e5, EA = 1e7, 8 elements) released horizontally under
 * gravity from a pivot at the origin, once as one rod held there by its own support, once
 * hanging from a joint to a post whose node at the origin carries that support: a hinge (axis
 * z) on the post's clamped node, or a ball on its pinned node (the post then clamped at its
 * far end as well), with a force out of the plane at the bar's tip (a 3-D swing). The bar's tip
 * follows the one rod's to the integrator's tolerance, the joint's nodes stay at the pivot, and
 * the energy (no damping, the supports at rest) is conserved. */
static void test_pendulum_dynamics(void)
{
    const int n = 8;
    const double g = 9.81;
    cr_section_segment sec = resultants(1e7, 1e7, 0.7e5, 1e5, 1.0);
    for (int k = 0; k < 2; ++k) sec.rhoI_y[k] = sec.rhoI_z[k] = 1e-3;
    cr_load_def loads[2] = {cr_load_default_def(), cr_load_default_def()};
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, -g, 0);
    loads[1].type = CR_LOAD_FORCE, loads[1].node = -1, loads[1].value = cr_v3(0, 0, 2.0);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.5, o.output_dt = 0.01, o.rtol = 1e-8, o.atol = 1e-10;
    for (int ball = 0; ball < 2; ++ball) {
        /* the reference: one rod held at node 0 (a hinge about z: translations, rx, ry; a pin) */
        cr_bc_def pivot = cr_bc_default_def();
        pivot.type = CR_BC_SUPPORT, pivot.frame = CR_FRAME_BODY;
        pivot.hold = ball ? CR_HOLD_TRANSLATION : CR_HOLD_TRANSLATION | CR_HOLD_RX | CR_HOLD_RY;
        cr_rod_def one = rod_along(&sec, 1.0, n, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
        one.bcs = &pivot, one.bc_count = 1, one.loads = loads, one.load_count = ball ? 2 : 1;
        cr_model *m1 = cr_model_create(&one, NULL);
        cr_state *s1 = cr_state_create(m1);
        static track t1, t2;
        memset(&t1, 0, sizeof t1), memset(&t2, 0, sizeof t2);
        cr_dynamic_report rep1, rep2;
        CHECK(cr_dynamic_solve(m1, s1, 0, 0.0, 0.0, 0.0, &o, on_rod, NULL, &t1, &rep1, NULL) == CR_OK);
        /* the post along y, its node 0 at the pivot: clamped there (hinge), or pinned there and
         * clamped at its top (ball) */
        cr_bc_def post_bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
        if (ball) post_bc[0].type = CR_BC_PIN, post_bc[1].node = -1;
        cr_rod_def post = rod_along(&sec, 0.5, 4, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
        post.bcs = post_bc, post.bc_count = ball ? 2 : 1, post.loads = loads, post.load_count = 1;
        cr_rod_def bar = rod_along(&sec, 1.0, n, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
        bar.loads = loads, bar.load_count = ball ? 2 : 1;
        cr_assembly_rod_def rods[2] = {named("post", post), named("bar", bar)};
        cr_joint_def j = joint(ball ? CR_JOINT_BALL : CR_JOINT_HINGE, 0, 0, 1, 0);
        j.axis = cr_v3(0, 0, 1); /* the post's body z: I's z */
        cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &j};
        cr_assembly *a = make(&def);
        CHECK(a != NULL);
        if (!a) return;
        cr_assembly_state *s = cr_assembly_state_create(a);
        cr_error e = {0};
        cr_status st = cr_assembly_dynamic_solve(a, s, 0, &o, on_assembly, &t2, &rep2, &e);
        CHECK(st == CR_OK);
        if (st != CR_OK) fprintf(stderr, "[%s] %s\n", check_current, e.message);
        CHECK(t1.count == t2.count && t1.count == 51);
        double worst = 0, amp = 0, dE = 0;
        for (int k = 0; k < t1.count && k < t2.count; ++k) {
            worst = fmax(worst, cr_v3_norm(cr_v3_sub(t1.r[k], t2.r[k])));
            amp = fmax(amp, cr_v3_norm(cr_v3_sub(t1.r[k], cr_v3(1, 0, 0))));
            if (!ball) dE = fmax(dE, fabs(t2.E[k] - t2.E[0]));
        }
        printf("[%s] %s: tip vs one rod %.3e m over a swing of %.3f m; pivot drift %.2e m; energy drift %.3e J of "
               "%.3f J; steps %ld vs %ld\n",
               check_current, ball ? "ball on a pinned node" : "hinge on a clamped node", worst, amp, t2.gap, dE,
               g * 0.5, rep2.steps, rep1.steps);
        CHECK(amp > 0.5);
        CHECK(worst < 1e-6 * amp);
        CHECK(t2.gap < 1e-9);
        if (!ball) CHECK(dE < 1e-6 * g * 0.5); /* m g L/2: the energy the bar exchanges */
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
        cr_state_destroy(s1);
        cr_model_destroy(m1);
    }
}

/* ---- a support with prescribed motion on a joint's node ---- */
/* Statics: 'A' clamped at node 0 with a target moved to (0, 0.1, 0.05) and turned by 0.3 rad
 * about z, 'B' welded there and otherwise free, nothing loaded: both rods follow the support
 * rigidly (B's nodes at p + Rot(z, 0.3) r_ref). Dynamics: the same motion as a quintic smooth
 * step over 0.2 s of the position alone, (0.1, 0, 0), carrying a pendulum on a hinge, against
 * the one rod whose hinge support moves alike. */
static void test_moving_support(void)
{
    cr_section_segment sec = resultants(1e7, 1e7, 0.7e5, 1e5, 1.0);
    for (int k = 0; k < 2; ++k) sec.rhoI_y[k] = sec.rhoI_z[k] = 1e-3;
    cr_bc_def clamp = cr_bc_default_def();
    clamp.has_position = 1, clamp.position = cr_v3(0, 0.1, 0.05);
    clamp.rotation_kind = CR_BC_ROTATION_VECTOR, clamp.rotation = cr_v3(0, 0, 0.3);
    cr_rod_def A = rod_along(&sec, 1.0, 6, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
    cr_rod_def B = rod_along(&sec, 1.0, 6, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    A.bcs = &clamp, A.bc_count = 1;
    cr_assembly_rod_def rods[2] = {named("A", A), named("B", B)};
    cr_joint_def w = joint(CR_JOINT_WELD, 0, 0, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &w};
    cr_assembly *a = make(&def);
    CHECK(a != NULL);
    if (!a) return;
    cr_assembly_state *s = cr_assembly_state_create(a);
    CHECK(solve(a, s));
    const cr_mat3 R = cr_q_exp(cr_q_axis_angle(cr_v3(0, 0, 1), 0.3));
    double worst = 0;
    for (int r = 0; r < 2; ++r)
        for (int i = 0; i <= 6; ++i) {
            const cr_vec3 ref = r ? cr_v3(i / 6.0, 0, 0) : cr_v3(0, i / 6.0, 0);
            const cr_vec3 want = cr_v3_add(clamp.position, cr_m3_mulv(R, ref));
            worst = fmax(worst, cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s, r), i), want)));
        }
    printf("[%s] statics: the rods' nodes vs the support's rigid motion %.3g m\n", check_current, worst);
    CHECK(worst < 1e-12);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);

    /* dynamics */
    const double g = 9.81;
    cr_load_def grav = cr_load_default_def();
    grav.type = CR_LOAD_GRAVITY, grav.value = cr_v3(0, -g, 0);
    cr_time_function step = {0};
    step.type = CR_TIME_SMOOTH_STEP, step.t0 = 0.0, step.t1 = 0.2;
    cr_bc_def pivot = cr_bc_default_def();
    pivot.type = CR_BC_SUPPORT, pivot.frame = CR_FRAME_BODY;
    pivot.hold = CR_HOLD_TRANSLATION | CR_HOLD_RX | CR_HOLD_RY;
    pivot.has_position = 1, pivot.position = cr_v3(0.1, 0, 0), pivot.time = step;
    cr_rod_def one = rod_along(&sec, 1.0, 8, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    one.bcs = &pivot, one.bc_count = 1, one.loads = &grav, one.load_count = 1;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.4, o.output_dt = 0.01, o.rtol = 1e-8, o.atol = 1e-10;
    static track t1, t2;
    memset(&t1, 0, sizeof t1), memset(&t2, 0, sizeof t2);
    CHECK(cr_dynamic_solve(m1, s1, 0, 0.0, 0.0, 0.0, &o, on_rod, NULL, &t1, NULL, NULL) == CR_OK);
    cr_bc_def moving = cr_bc_default_def();
    moving.has_position = 1, moving.position = cr_v3(0.1, 0, 0), moving.time = step;
    cr_rod_def post = rod_along(&sec, 0.5, 4, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
    post.bcs = &moving, post.bc_count = 1, post.loads = &grav, post.load_count = 1;
    cr_rod_def bar = rod_along(&sec, 1.0, 8, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    bar.loads = &grav, bar.load_count = 1;
    cr_assembly_rod_def rd[2] = {named("post", post), named("bar", bar)};
    cr_joint_def h = joint(CR_JOINT_HINGE, 0, 0, 1, 0);
    h.axis = cr_v3(0, 0, 1);
    cr_assembly_def dd = {.rod_count = 2, .rods = rd, .joint_count = 1, .joints = &h};
    a = make(&dd);
    CHECK(a != NULL);
    if (!a) return;
    s = cr_assembly_state_create(a);
    cr_error e = {0};
    cr_status st = cr_assembly_dynamic_solve(a, s, 0, &o, on_assembly, &t2, NULL, &e);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "[%s] %s\n", check_current, e.message);
    CHECK(t1.count == t2.count && t1.count == 41);
    double dt = 0;
    for (int k = 0; k < t1.count && k < t2.count; ++k) dt = fmax(dt, cr_v3_norm(cr_v3_sub(t1.r[k], t2.r[k])));
    const cr_vec3 p0 = cr_state_position(cr_assembly_state_rod(s, 0), 0);
    printf("[%s] dynamics: tip vs one rod %.3e m; the post's held node at (%.15f, %.3g, %.3g)\n", check_current, dt,
           p0.x, p0.y, p0.z);
    CHECK(dt < 1e-6);
    CHECK(fabs(p0.x - 0.1) < 1e-12 && fabs(p0.y) < 1e-12);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    cr_state_destroy(s1);
    cr_model_destroy(m1);
}

/* ---- a rigid body welded to a joint's node in dynamics ---- */
typedef struct tip_track {
    int count, rod;
    double t[1024], E[1024];
    cr_vec3 r[1024];
} tip_track;

static int on_tip(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    tip_track *tr = user;
    if (tr->count < 1024) {
        tr->t[tr->count] = smp->t;
        tr->r[tr->count] = cr_state_position(cr_assembly_state_rod((cr_assembly_state *)s, tr->rod),
                                             cr_model_node_count(a->models[tr->rod]) - 1);
        tr->E[tr->count++] = smp->kinetic + smp->elastic + smp->gravity;
    }
    return 0;
}

/* A bar (L = 1, 8 elements, EI = 1e3, EA = 1e5) on a hinge support at its top, released horizontally, with a
 * rigid body (0.6 kg, its centre 0.1 m off the axis, a full inertia tensor) welded at its
 * middle node, against the assembly of its two halves welded there with the body on either
 * side's node of the weld (a joint's node: the body's mass and inertia act through the
 * node's 6 × 6 mass matrix); a tip force out of the plane makes the swing 3-D. The tips agree
 * to the integrator's tolerance. Then a double pendulum with the body on the lower bar's
 * hinged node (no one-rod reference): the energy is conserved. */
static void test_body_on_joint_node(void)
{
    const double g = 9.81;
    cr_section_segment sec = resultants(1e5, 1e5, 0.7e3, 1e3, 1.0); /* flexible: fewer steps than a stiff bar */
    for (int k = 0; k < 2; ++k) sec.rhoI_y[k] = sec.rhoI_z[k] = 1e-3;
    cr_load_def loads[2] = {cr_load_default_def(), cr_load_default_def()};
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, -g, 0);
    loads[1].type = CR_LOAD_FORCE, loads[1].node = -1, loads[1].value = cr_v3(0, 0, 1.0);
    cr_bc_def pivot = cr_bc_default_def();
    pivot.type = CR_BC_SUPPORT, pivot.frame = CR_FRAME_BODY;
    pivot.hold = CR_HOLD_TRANSLATION | CR_HOLD_RX | CR_HOLD_RY;
    cr_rigid_body_def body = {.name = "mass", .node = 4, .mass = 0.6, .center = cr_v3(0.5, 0.1, 0.02)};
    body.inertia = cr_m3_identity();
    body.inertia.m[0][0] = 2e-3, body.inertia.m[1][1] = 3e-3, body.inertia.m[2][2] = 4e-3;
    body.inertia.m[0][1] = body.inertia.m[1][0] = 5e-4;
    body.orientation = cr_q_identity();
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.3, o.output_dt = 0.01, o.rtol = 1e-7, o.atol = 1e-9;
    cr_rod_def one = rod_along(&sec, 1.0, 8, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    one.bcs = &pivot, one.bc_count = 1, one.loads = loads, one.load_count = 2;
    one.rigid_bodies = &body, one.rigid_body_count = 1;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    static track t1;
    memset(&t1, 0, sizeof t1);
    cr_dynamic_report rep1;
    CHECK(cr_dynamic_solve(m1, s1, 0, 0.0, 0.0, 0.0, &o, on_rod, NULL, &t1, &rep1, NULL) == CR_OK);
    for (int side = 0; side < 2; ++side) {
        cr_rigid_body_def bb = body;
        bb.node = side ? 0 : -1;
        cr_rod_def up = rod_along(&sec, 0.5, 4, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
        cr_rod_def lo = rod_along(&sec, 0.5, 4, cr_v3(0.5, 0, 0), cr_v3(1, 0, 0));
        up.bcs = &pivot, up.bc_count = 1, up.loads = loads, up.load_count = 1;
        lo.loads = loads, lo.load_count = 2;
        if (side)
            lo.rigid_bodies = &bb, lo.rigid_body_count = 1;
        else
            up.rigid_bodies = &bb, up.rigid_body_count = 1;
        cr_assembly_rod_def rods[2] = {named("up", up), named("lo", lo)};
        cr_joint_def w = joint(CR_JOINT_WELD, 0, -1, 1, 0);
        cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &w};
        cr_assembly *a = make(&def);
        CHECK(a != NULL);
        if (!a) return;
        cr_assembly_state *s = cr_assembly_state_create(a);
        static tip_track t2;
        memset(&t2, 0, sizeof t2);
        t2.rod = 1;
        cr_error e = {0};
        cr_dynamic_report rep;
        cr_status st = cr_assembly_dynamic_solve(a, s, 0, &o, on_tip, &t2, &rep, &e);
        CHECK(st == CR_OK);
        if (st != CR_OK) fprintf(stderr, "[%s] %s\n", check_current, e.message);
        CHECK(t1.count == t2.count && t1.count == 31);
        double worst = 0, amp = 0;
        for (int k = 0; k < t1.count && k < t2.count; ++k) {
            worst = fmax(worst, cr_v3_norm(cr_v3_sub(t1.r[k], t2.r[k])));
            amp = fmax(amp, cr_v3_norm(cr_v3_sub(t1.r[k], cr_v3(1, 0, 0))));
        }
        printf("[%s] body on the weld's %s node: tip vs one rod %.3e m over a swing of %.3f m; %ld steps, %ld "
               "Newton iterations (one rod: %ld, %ld)\n",
               check_current, side ? "b" : "a", worst, amp, rep.steps, rep.newton_iterations, rep1.steps,
               rep1.newton_iterations);
        CHECK(amp > 0.5);
        CHECK(worst < 1e-6 * amp);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
    cr_state_destroy(s1);
    cr_model_destroy(m1);

    /* a double pendulum, the body on the lower bar's hinged node: energy */
    cr_rigid_body_def bh = body;
    bh.node = 0, bh.center = cr_v3(1.0, 0.1, 0.02);
    cr_rod_def upper = rod_along(&sec, 1.0, 8, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    cr_rod_def lower = rod_along(&sec, 1.0, 8, cr_v3(1, 0, 0), cr_v3(1, 0, 0));
    upper.bcs = &pivot, upper.bc_count = 1, upper.loads = loads, upper.load_count = 1;
    lower.loads = loads, lower.load_count = 1, lower.rigid_bodies = &bh, lower.rigid_body_count = 1;
    cr_assembly_rod_def rods[2] = {named("upper", upper), named("lower", lower)};
    cr_joint_def h = joint(CR_JOINT_HINGE, 0, -1, 1, 0);
    h.axis = cr_v3(0, 0, 1);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &h};
    cr_assembly *a = make(&def);
    CHECK(a != NULL);
    if (!a) return;
    cr_assembly_state *s = cr_assembly_state_create(a);
    static tip_track t3;
    memset(&t3, 0, sizeof t3);
    t3.rod = 1;
    o.t_end = 0.6, o.rtol = 1e-8, o.atol = 1e-10;
    cr_error e = {0};
    cr_status st = cr_assembly_dynamic_solve(a, s, 0, &o, on_tip, &t3, NULL, &e);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "[%s] %s\n", check_current, e.message);
    double dE = 0, drop = 0;
    for (int k = 0; k < t3.count; ++k) dE = fmax(dE, fabs(t3.E[k] - t3.E[0])), drop = fmin(drop, t3.r[k].y);
    const double scale = (2.0 + 2 * bh.mass) * g; /* the potential energy the bars and the body exchange, ~ */
    printf("[%s] double pendulum with the body on the hinge's node: energy drift %.3e J of %.2f J, the tip fell to y = "
           "%.3f m\n",
           check_current, dE, scale, drop);
    CHECK(t3.count == 61);
    CHECK(drop < -1.0);
    CHECK(dE < 1e-6 * scale);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

CHECK_MAIN(CASE(test_clamped_weld_cantilever), CASE(test_hinge_on_clamp), CASE(test_ball_on_pin), CASE(test_redundant),
           CASE(test_pendulum_dynamics), CASE(test_moving_support), CASE(test_body_on_joint_node))
