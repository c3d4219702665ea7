/* Assemblies of mixed discrete rods (cosserat/assembly.h): joints against independent
 * references (one continuous rod, closed-form statics, thin-ring theory, finite
 * differences) and the validation's messages. */
#include "check.h"
#include "cosserat/assembly.h"
#include "mixed/assembly_internal.h"
#include "rod_builders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static cr_static_options tight(void)
{
    cr_static_options o = cr_static_default_options();
    o.atol = 1e-13, o.rtol = 1e-12, o.stability = 0;
    return o;
}

static double qdist(cr_quat a, cr_quat b) /* distance of two rotations' quaternions (sign-free) */
{
    return fmin(cr_q_norm2(cr_q_sub(a, b)), cr_q_norm2(cr_q_add(a, b)));
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

/* ---- a weld between two halves equals one continuous rod ---- */
/* Cantilever of length 1 (EI = 1, GJ = 0.7, EA = GA = 1e4), clamped at s = 0, tip force
 * (0, -2, 1) N: a large 3-D deflection (P L²/EI = 2.2, bending and twist). */
static void test_weld_equals_one_rod(void)
{
    const unsigned rigid = 0;
    const int N = 10;
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, -2, 1);
    cr_static_options o = tight();
    /* the reference: one rod of 2N elements */
    cr_rod_def one = straight_rod(&sec, 1.0, 2 * N);
    one.bcs = &clamp, one.bc_count = 1, one.loads = &tip, one.load_count = 1, one.rigid_strains = rigid;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
    /* the assembly: two halves welded at s = 0.5 */
    cr_rod_def A = straight_rod(&sec, 0.5, N), B = straight_rod(&sec, 0.5, N);
    A.bcs = &clamp, A.bc_count = 1, A.rigid_strains = B.rigid_strains = rigid;
    B.reference.origin = cr_v3(0.5, 0, 0), B.loads = &tip, B.load_count = 1;
    cr_assembly_rod_def rods[2] = {named("root", A), named("tip", B)};
    cr_joint_def w = joint(CR_JOINT_WELD, 0, -1, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &w};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    CHECK(a != NULL);
    if (!a) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_report rep;
    cr_status st = cr_assembly_static_solve(a, s, &o, &rep, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    printf("weld: %d load steps, %d Newton iterations\n", rep.step_count, rep.total_iterations);
    cr_static_report_free(&rep);
    /* every node of both halves on the one rod's, to round-off */
    double dr = 0, dq = 0;
    for (int i = 0; i <= 2 * N; ++i) {
        cr_state *h = cr_assembly_state_rod(s, i < N ? 0 : 1);
        int k = i < N ? i : i - N;
        dr = fmax(dr, cr_v3_norm(cr_v3_sub(cr_state_position(h, k), cr_state_position(s1, i))));
        dq = fmax(dq, qdist(cr_state_orientation(h, k), cr_state_orientation(s1, i)));
    }
    cr_vec3 tip_r = cr_state_position(cr_assembly_state_rod(s, 1), N);
    printf("weld: tip (%.12f, %.12f, %.12f); max |r - r_one| %.3g m, |q - q_one|^2 %.3g\n", tip_r.x, tip_r.y, tip_r.z,
           dr, dq);
    CHECK(dr < 1e-10);
    CHECK(dq < 1e-20);
    CHECK(tip_r.y < -0.3); /* a large deflection indeed */
    /* the weld's wrench on the root's end: the force is the tip load (equilibrium of the
     * tip half, exact in the discrete model: element forces act equal and opposite); the
     * moment is the one rod's internal moment at node N, its reaction when that half is
     * held there (cr_state_reaction of a clamped copy of the root half at the one rod's poses) */
    cr_vec3 f, mom;
    CHECK(cr_assembly_joint_reaction(a, s, 0, &f, &mom) == CR_OK);
    CHECK(cr_v3_norm(cr_v3_sub(f, tip.value)) < 1e-10);
    cr_bc_def both[2] = {cr_bc_default_def(), cr_bc_default_def()};
    both[1].node = -1;
    cr_rod_def half = straight_rod(&sec, 0.5, N);
    half.bcs = both, half.bc_count = 2, half.rigid_strains = rigid;
    cr_model *mh = cr_model_create(&half, NULL);
    cr_state *sh = cr_state_create(mh);
    for (int i = 0; i <= N; ++i) cr_state_set_pose(sh, i, cr_state_position(s1, i), cr_state_orientation(s1, i));
    cr_vec3 fr, mr;
    CHECK(cr_state_reaction(mh, sh, N, &fr, &mr) == CR_OK);
    mr = cr_m3_mulv(cr_q_exp(cr_state_orientation(s1, N)), mr);
    printf("weld: reaction force (%.10f, %.10f, %.10f), moment (%.10f, %.10f, %.10f); one rod's moment (%.10f, "
           "%.10f, %.10f)\n",
           f.x, f.y, f.z, mom.x, mom.y, mom.z, mr.x, mr.y, mr.z);
    CHECK(cr_v3_norm(cr_v3_sub(f, fr)) < 1e-10);
    CHECK(cr_v3_norm(cr_v3_sub(mom, mr)) < 1e-10);
    /* and the moment balance of the tip half about the cut: (r_tip − r_cut) × P */
    cr_vec3 arm = cr_v3_sub(cr_state_position(s1, 2 * N), cr_state_position(s1, N));
    printf("weld: (r_tip - r_cut) x P = (%.10f, %.10f, %.10f)\n", cr_v3_cross(arm, tip.value).x,
           cr_v3_cross(arm, tip.value).y, cr_v3_cross(arm, tip.value).z);
    cr_state_destroy(sh);
    cr_model_destroy(mh);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    cr_state_destroy(s1);
    cr_model_destroy(m1);
}

/* Rigid strain components (their multipliers in the node blocks, LAPACK's banded LU, no
 * position correction): an inextensible, unshearable tip half welded to a flexible root.
 * The tip half's strains stay exactly (1, 0, 0), the weld carries the tip load (equilibrium of
 * the tip half), and the root's end moves as the flexible one rod's node N would only to the
 * tip half's compliance (not compared). A rigid root, held at its clamp and at the joint, is
 * refused (over-constrained on its own in the substructuring). */
static void test_weld_rigid_strains(void)
{
    const unsigned kirchhoff = CR_RIGID_GAMMA_X | CR_RIGID_GAMMA_Y | CR_RIGID_GAMMA_Z;
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, -2, 1);
    cr_rod_def A = straight_rod(&sec, 0.5, 10), B = straight_rod(&sec, 0.5, 10);
    A.bcs = &clamp, A.bc_count = 1, B.rigid_strains = kirchhoff;
    B.reference.origin = cr_v3(0.5, 0, 0), B.loads = &tip, B.load_count = 1;
    cr_assembly_rod_def rods[2] = {named("root", A), named("tip", B)};
    cr_joint_def w = joint(CR_JOINT_WELD, 0, -1, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &w};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = tight();
    cr_status st = cr_assembly_static_solve(a, s, &o, NULL, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    cr_vec3 f, g, k;
    cr_assembly_joint_reaction(a, s, 0, &f, NULL);
    double strain = 0;
    for (int e = 0; e < 10; ++e) {
        cr_state_element(cr_assembly_rod_model(a, 1), cr_assembly_state_rod(s, 1), e, &g, &k, NULL, NULL);
        strain = fmax(strain, cr_v3_norm(cr_v3_sub(g, cr_v3(1, 0, 0))));
    }
    cr_vec3 t = cr_state_position(cr_assembly_state_rod(s, 1), 10);
    printf("rigid tip half: tip (%.6f, %.6f, %.6f), |gamma - (1,0,0)| %.2g, weld force (%.12f, %.12f, %.12f)\n", t.x,
           t.y, t.z, strain, f.x, f.y, f.z);
    CHECK(strain < 1e-12);
    CHECK(cr_v3_norm(cr_v3_sub(f, tip.value)) < 1e-10);
    CHECK(t.y < -0.3);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    rods[0].rod.rigid_strains = kirchhoff;
    a = cr_assembly_create(&def, &err);
    CHECK(a == NULL && err.status == CR_UNSUPPORTED);
    CHECK(strstr(err.message, "rods.0 ('root').rigid_strains: a rod with rigid strain components held at two") != NULL);
    cr_assembly_destroy(a);
}

/* ---- a weld with a relative rotation ---- */
/* Two straight halves (EI = 1, GJ = 0.7) as in the cantilever above, tip force (0, 0, -1):
 * (i) the tip half starts collinear (both frames the identity) and the weld turns it by
 * 90° about z through the load steps; (ii) the tip half starts along y (its frame turned
 * by 90° about z) with the weld keeping the reference's rotation. The stress-free shapes
 * and loads are the same, so the equilibria are: to round-off. */
static cr_assembly *two_halves(cr_rod_def *A, cr_rod_def *B, cr_joint_def *w, cr_assembly_rod_def *rods)
{
    rods[0] = named("root", *A), rods[1] = named("tip", *B);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = w};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    if (!a) fprintf(stderr, "%s\n", err.message);
    return a;
}

static cr_vec3 solve_tip(cr_assembly *a, cr_assembly_state **out)
{
    cr_static_options o = tight();
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_error err = {0};
    cr_status st = cr_assembly_static_solve(a, s, &o, NULL, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    cr_vec3 tip = cr_state_position(cr_assembly_state_rod(s, 1), -1 + cr_model_node_count(cr_assembly_rod_model(a, 1)));
    if (out)
        *out = s;
    else
        cr_assembly_state_destroy(s);
    return tip;
}

static void test_weld_rotation(void)
{
    const int N = 8;
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, 0, -1);
    cr_rod_def A = straight_rod(&sec, 0.5, N), B = straight_rod(&sec, 0.5, N);
    A.bcs = &clamp, A.bc_count = 1;
    B.reference.origin = cr_v3(0.5, 0, 0), B.loads = &tip, B.load_count = 1;
    cr_assembly_rod_def rods[2];
    cr_joint_def w = joint(CR_JOINT_WELD, 0, -1, 1, 0);
    w.has_rotation = 1, w.rotation = cr_q_axis_angle(cr_v3(0, 0, 1), PI / 2);
    cr_assembly *a1 = two_halves(&A, &B, &w, rods);
    cr_assembly_state *s1 = NULL;
    cr_vec3 t1 = solve_tip(a1, &s1);
    B.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), PI / 2);
    w.has_rotation = 0;
    cr_assembly *a2 = two_halves(&A, &B, &w, rods);
    cr_vec3 t2 = solve_tip(a2, NULL);
    printf("weld rotation: closed (%.12f, %.12f, %.12f), assembled (%.12f, %.12f, %.12f)\n", t1.x, t1.y, t1.z, t2.x,
           t2.y, t2.z);
    CHECK(cr_v3_norm(cr_v3_sub(t1, t2)) < 1e-10);
    CHECK(fabs(t1.y - 0.5) < 0.05 && t1.z < -0.1); /* turned to y, bent down */
    /* the relative rotation of the welded nodes is the given one */
    cr_quat pa = cr_state_orientation(cr_assembly_state_rod(s1, 0), N),
            pb = cr_state_orientation(cr_assembly_state_rod(s1, 1), 0);
    CHECK(qdist(cr_q_mul(cr_q_conj(pa), pb), w.rotation) < 1e-20);
    cr_assembly_state_destroy(s1);
    cr_assembly_destroy(a1);
    cr_assembly_destroy(a2);
}

/* The same L (root along x, tip half along y, welded) against one rod whose nodes
 * reference is that L with its corner rounded: a quarter circle of radius ρ in M
 * elements (a kink in one element is not a weld in the discrete rod: its moment rows turn
 * by the element's relative rotation to first order only). The one rod tends to the weld
 * as ρ → 0 and M → ∞, the difference ≈ 0.05 ρ + O(M⁻²) (measured: 5.1e-5 at ρ = 1e-3,
 * M = 16; 6.8e-6 at ρ = 1e-4, M = 64). */
static void test_weld_kink(void)
{
    enum { N = 8 };
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, 0, -1);
    cr_rod_def A = straight_rod(&sec, 0.5, N), B = straight_rod(&sec, 0.5, N);
    A.bcs = &clamp, A.bc_count = 1;
    const cr_vec3 ez = cr_v3(0, 0, 1);
    B.reference.origin = cr_v3(0.5, 0, 0), B.reference.orientation = cr_q_axis_angle(ez, PI / 2);
    B.loads = &tip, B.load_count = 1;
    cr_assembly_rod_def rods[2];
    cr_joint_def w = joint(CR_JOINT_WELD, 0, -1, 1, 0);
    cr_assembly *a = two_halves(&A, &B, &w, rods);
    cr_vec3 tw = solve_tip(a, NULL);
    cr_assembly_destroy(a);
    double diff[2];
    const double rho[2] = {1e-3, 1e-4};
    const int corner[2] = {16, 64};
    for (int e = 0; e < 2; ++e) {
        const double rr = rho[e], l = 0.5 - rr;
        const int M = corner[e];
        cr_vec3 r[2 * N + 64 + 1];
        cr_quat q[2 * N + 64 + 1];
        int k = 0;
        for (int i = 0; i < N; ++i, ++k) r[k] = cr_v3(l * i / N, 0, 0), q[k] = cr_q_identity();
        for (int i = 0; i < M; ++i, ++k) {
            double phi = PI / 2 * i / M;
            r[k] = cr_v3(l + rr * sin(phi), rr - rr * cos(phi), 0), q[k] = cr_q_axis_angle(ez, phi);
        }
        for (int i = 0; i <= N; ++i, ++k) r[k] = cr_v3(0.5, rr + l * i / N, 0), q[k] = cr_q_axis_angle(ez, PI / 2);
        cr_rod_def one = straight_rod(&sec, 1.0, 2 * N + M);
        one.reference.type = CR_REFERENCE_NODES;
        one.reference.node_count = k, one.reference.node_positions = r, one.reference.node_orientations = q;
        one.bcs = &clamp, one.bc_count = 1, one.loads = &tip, one.load_count = 1;
        cr_model *m = cr_model_create(&one, NULL);
        cr_state *s = cr_state_create(m);
        cr_static_options o = tight();
        CHECK(cr_static_solve(m, s, &o, NULL, NULL, NULL, NULL) == CR_OK);
        cr_vec3 t = cr_state_position(s, k - 1);
        diff[e] = cr_v3_norm(cr_v3_sub(t, tw));
        printf("kink: corner radius %g: one rod's tip (%.10f, %.10f, %.10f), weld's (%.10f, %.10f, %.10f), "
               "|difference| %.3g\n",
               rr, t.x, t.y, t.z, tw.x, tw.y, tw.z, diff[e]);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
    CHECK(diff[0] < 0.1 * rho[0] && diff[1] < 0.1 * rho[1]);
    CHECK(diff[1] < diff[0] / 5);
}

/* ---- a T: a joint at an interior node ---- */
/* Rod A (x from 0 to 1, 2N elements, clamped at 0) with rod B (from A's middle along y)
 * welded at A's interior node N, against the same T built from three rods meeting at
 * (0.5, 0, 0) (A split into two halves, two welds at end nodes). The discrete equations are
 * the same (the middle node's balance: A's two elements and B's first, or three rods' end
 * elements tied by two welds), so the equilibria agree to round-off; tip loads on A and B
 * bend and twist all three. */
static void test_interior_joint(void)
{
    enum { N = 8 };
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def la = cr_load_default_def(), lb = cr_load_default_def();
    la.type = lb.type = CR_LOAD_FORCE, la.node = lb.node = -1;
    la.value = cr_v3(0, 0, -1), lb.value = cr_v3(0.3, 0, -0.5);
    const cr_quat q90 = cr_q_axis_angle(cr_v3(0, 0, 1), PI / 2);
    cr_rod_def A = straight_rod(&sec, 1.0, 2 * N), B = straight_rod(&sec, 0.5, N);
    A.bcs = &clamp, A.bc_count = 1, A.loads = &la, A.load_count = 1;
    B.reference.origin = cr_v3(0.5, 0, 0), B.reference.orientation = q90, B.loads = &lb, B.load_count = 1;
    cr_assembly_rod_def t1[2] = {named("A", A), named("B", B)};
    cr_joint_def j1 = joint(CR_JOINT_WELD, 0, N, 1, 0);
    cr_assembly_def d1 = {.rod_count = 2, .rods = t1, .joint_count = 1, .joints = &j1};
    cr_rod_def A1 = straight_rod(&sec, 0.5, N), A2 = straight_rod(&sec, 0.5, N);
    A1.bcs = &clamp, A1.bc_count = 1;
    A2.reference.origin = cr_v3(0.5, 0, 0), A2.loads = &la, A2.load_count = 1;
    cr_assembly_rod_def t2[3] = {named("A1", A1), named("A2", A2), named("B", B)};
    cr_joint_def j2[2] = {joint(CR_JOINT_WELD, 0, -1, 1, 0), joint(CR_JOINT_WELD, 0, -1, 2, 0)};
    cr_assembly_def d2 = {.rod_count = 3, .rods = t2, .joint_count = 2, .joints = j2};
    cr_error err = {0};
    cr_assembly *a1 = cr_assembly_create(&d1, &err), *a2 = cr_assembly_create(&d2, &err);
    cr_assembly_state *s1 = cr_assembly_state_create(a1), *s2 = cr_assembly_state_create(a2);
    cr_static_options o = tight();
    CHECK(cr_assembly_static_solve(a1, s1, &o, NULL, &err) == CR_OK);
    CHECK(cr_assembly_static_solve(a2, s2, &o, NULL, &err) == CR_OK);
    double d = 0;
    for (int i = 0; i <= 2 * N; ++i) {
        cr_vec3 r = cr_state_position(cr_assembly_state_rod(s2, i <= N ? 0 : 1), i <= N ? i : i - N);
        d = fmax(d, cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s1, 0), i), r)));
    }
    for (int i = 0; i <= N; ++i)
        d = fmax(d, cr_v3_norm(cr_v3_sub(cr_state_position(cr_assembly_state_rod(s1, 1), i),
                                         cr_state_position(cr_assembly_state_rod(s2, 2), i))));
    cr_vec3 tb = cr_state_position(cr_assembly_state_rod(s1, 1), N);
    printf("T: B's tip (%.10f, %.10f, %.10f); interior joint vs three rods: max |dr| %.2g m\n", tb.x, tb.y, tb.z, d);
    CHECK(d < 1e-10);
    CHECK(tb.z < -0.1);
    /* the interior joint passes B's load on to A (equilibrium of B) */
    cr_vec3 f;
    cr_assembly_joint_reaction(a1, s1, 0, &f, NULL);
    CHECK(cr_v3_norm(cr_v3_sub(f, lb.value)) < 1e-10);
    cr_assembly_state_destroy(s1);
    cr_assembly_state_destroy(s2);
    cr_assembly_destroy(a1);
    cr_assembly_destroy(a2);
}

/* ---- the joints' Jacobians against finite differences ---- */
static void perturb(cr_vec3 *r, cr_quat *p, int k, double h) /* increment k of (δr, δθ) */
{
    if (k < 3) {
        double v[3] = {r->x, r->y, r->z};
        v[k] += h;
        *r = cr_v3_load(v);
    } else {
        cr_vec3 e = cr_v3(k == 3, k == 4, k == 5);
        *p = cr_q_mul(*p, cr_q_axis_angle(e, h));
    }
}

static void test_joint_jacobians(void)
{
    cr_asm_joint js[12];
    memset(js, 0, sizeof js);
    js[0].type = CR_JOINT_WELD, js[0].rows = 6, js[0].rel_ref = cr_q_normalize(cr_q(0.9, 0.2, -0.3, 0.1));
    js[0].pos_rows = 3;
    js[1] = js[0], js[1].phi = cr_v3(0.4, -0.2, 0.7); /* a weld closing a rotation */
    js[2].type = CR_JOINT_BALL, js[2].rows = 3, js[2].pos_rows = 3;
    js[3].type = CR_JOINT_HINGE, js[3].rows = 5, js[3].pos_rows = 3;
    js[3].u1 = cr_v3_normalize(cr_v3(1, 1, 0)), js[3].u2 = cr_v3_normalize(cr_v3(-1, 1, 1));
    js[3].axis_b = cr_v3_normalize(cr_v3(0.3, -0.5, 0.8));
    /* the sliders' position rows depend on a's rotation: their H has force–rotation blocks */
    js[4] = js[0], js[4].type = CR_JOINT_PRISMATIC, js[4].rows = 5, js[4].pos_rows = 2;
    js[4].u1 = js[3].u1, js[4].u2 = js[3].u2;
    js[5] = js[3], js[5].type = CR_JOINT_CYLINDRICAL, js[5].rows = 4, js[5].pos_rows = 2;
    js[6] = js[3], js[6].type = CR_JOINT_UNIVERSAL, js[6].rows = 4, js[6].pos_rows = 3;
    /* a driven hinge: its sixth row's s turns with θ = drive_angle f (several turns) or the given θ */
    js[7] = js[3], js[7].rows = 6, js[7].drive = 1, js[7].drive_angle = 17.3;
    js[7].rel_ref = cr_q_normalize(cr_q(0.6, -0.3, 0.2, 0.5));
    js[8] = js[7];
    /* joints closing a gap (their position rows hold (1 − f) gap0): a weld closing a rotation
     * too, a prismatic joint's slider rows, a ball */
    js[9] = js[1], js[10] = js[4], js[11] = js[2];
    for (int t = 9; t < 12; ++t)
        js[t].gap0[0] = 0.31, js[t].gap0[1] = -0.12, js[t].gap0[2] = js[t].pos_rows == 3 ? 0.05 : 0;
    const double drive8[3] = {-23.9, 4.0, 7.0};
    const cr_vec3 ra0 = cr_v3(0.1, 0.2, -0.3), rb0 = cr_v3(0.15, 0.1, -0.2);
    const cr_quat pa0 = cr_q_normalize(cr_q(0.7, 0.1, 0.5, -0.2)), pb0 = cr_q_normalize(cr_q(0.3, -0.6, 0.2, 0.4));
    const double lambda[6] = {0.7, -1.3, 0.4, 2.1, -0.8, 1.7}, h = 1e-6, f = 0.6;
    for (int t = 0; t < 12; ++t) {
        const cr_asm_joint *j = &js[t];
        const double *dv = t == 8 ? drive8 : NULL;
        double g[6], C[72], H[144], gp[6], gm[6], Cp[72], Cm[72], dummy[144];
        cr_asm_joint_eval(j, f, dv, ra0, pa0, rb0, pb0, lambda, g, C, H);
        if (t >= 9) { /* the gap's rows: the same joint's without the gap, less (1 − f) gap0 */
            double g0[6];
            cr_asm_joint_eval(&js[t == 9 ? 1 : t == 10 ? 4 : 2], f, NULL, ra0, pa0, rb0, pb0, NULL, g0, NULL, NULL);
            double e = 0;
            for (int r = 0; r < j->rows; ++r)
                e = fmax(e, fabs(g[r] - (g0[r] - (r < j->pos_rows ? (1 - f) * j->gap0[r] : 0))));
            CHECK(e < 1e-15);
        }
        double errC = 0, maxC = 0, errH = 0, maxH = 0;
        for (int k = 0; k < 12; ++k) {
            cr_vec3 ra[2] = {ra0, ra0}, rb[2] = {rb0, rb0};
            cr_quat pa[2] = {pa0, pa0}, pb[2] = {pb0, pb0};
            for (int sgn = 0; sgn < 2; ++sgn) {
                if (k < 6)
                    perturb(&ra[sgn], &pa[sgn], k, sgn ? -h : h);
                else
                    perturb(&rb[sgn], &pb[sgn], k - 6, sgn ? -h : h);
            }
            cr_asm_joint_eval(j, f, dv, ra[0], pa[0], rb[0], pb[0], lambda, gp, Cp, dummy);
            cr_asm_joint_eval(j, f, dv, ra[1], pa[1], rb[1], pb[1], lambda, gm, Cm, dummy);
            for (int r = 0; r < j->rows; ++r) {
                errC = fmax(errC, fabs((gp[r] - gm[r]) / (2 * h) - C[r * 12 + k]));
                maxC = fmax(maxC, fabs(C[r * 12 + k]));
            }
            for (int c = 0; c < 12; ++c) { /* column k of ∂(Cᵀλ)/∂ */
                double fp = 0, fm = 0;
                for (int r = 0; r < j->rows; ++r) fp += Cp[r * 12 + c] * lambda[r], fm += Cm[r * 12 + c] * lambda[r];
                errH = fmax(errH, fabs((fp - fm) / (2 * h) - H[c * 12 + k]));
                maxH = fmax(maxH, fabs(H[c * 12 + k]));
            }
        }
        printf("joint %d (type %d): |C - C_fd| %.2g of %.2g, |H - H_fd| %.2g of %.2g\n", t, j->type, errC, maxC, errH,
               maxH);
        CHECK(errC < 1e-8 * maxC);
        CHECK(t == 2 || t == 11 ? maxH == 0 : errH < 1e-8 * maxH);
    }
}

/* The spring rows (hinge angle, slide, a ball's and a universal joint's rotation) and a
 * slider's drive row: C and H = ∂(Cᵀλ)/∂ against central differences of g and of Cᵀλ. */
static void test_spring_jacobians(void)
{
    cr_asm_joint js[8];
    memset(js, 0, sizeof js);
    const cr_vec3 u1 = cr_v3_normalize(cr_v3(1, 1, 0)), u2 = cr_v3_normalize(cr_v3(-1, 1, 1));
    const cr_vec3 h = cr_v3_cross(u1, u2);
    const cr_quat rref = cr_q_normalize(cr_q(0.6, -0.3, 0.2, 0.5));
    for (int t = 0; t < 8; ++t) js[t].rel_ref = rref, js[t].u1 = u1, js[t].u2 = u2, js[t].h = h;
    /* a hinge with a spring about its axis (φ = atan2 of two dot rows) */
    js[0].type = CR_JOINT_HINGE, js[0].pos_rows = 3, js[0].rows = 6, js[0].springs = 1;
    js[0].spring_kind[0] = CR_SPRING_ANGLE, js[0].rest[0] = 0.9; /* a rest angle (× f) */
    js[0].axis_b = cr_m3_tmulv(cr_q_exp(rref), h);
    /* a prismatic joint with a drive and a spring along its axis */
    js[1].type = CR_JOINT_PRISMATIC, js[1].pos_rows = 2, js[1].rows = 7, js[1].slide_drive = 1, js[1].springs = 1;
    js[1].spring_kind[0] = CR_SPRING_SLIDE, js[1].drive_position = 0.3;
    /* a cylindrical joint: an angle drive, both springs */
    js[2] = js[0], js[2].type = CR_JOINT_CYLINDRICAL, js[2].pos_rows = 2, js[2].rows = 7, js[2].drive = 1;
    js[2].drive_angle = 2.1, js[2].springs = 2, js[2].spring_kind[1] = CR_SPRING_SLIDE, js[2].rest[1] = -0.3;
    /* a cylindrical joint driven along its axis */
    js[3] = js[2], js[3].drive = 0, js[3].slide_drive = 1, js[3].drive_position = -0.2;
    /* ball and universal: the three rotation rows */
    js[4].type = CR_JOINT_BALL, js[4].pos_rows = 3, js[4].rows = 6, js[4].springs = 3;
    js[5].type = CR_JOINT_UNIVERSAL, js[5].pos_rows = 3, js[5].rows = 7, js[5].springs = 3;
    js[5].u1 = h, js[5].axis_b = cr_m3_tmulv(cr_q_exp(rref), u1);
    for (int t = 4; t < 6; ++t)
        for (int q = 0; q < 3; ++q) js[t].spring_kind[q] = CR_SPRING_ROT + q;
    /* limits: a hinge's angle (its rest ignored), a cylindrical joint's angle and slide */
    js[6] = js[0], js[6].spring_kind[0] = CR_SPRING_LIMIT_ANGLE;
    js[7] = js[2], js[7].drive = 0, js[7].rows = 6, js[7].spring_kind[0] = CR_SPRING_LIMIT_ANGLE;
    js[7].spring_kind[1] = CR_SPRING_LIMIT_SLIDE;
    const cr_vec3 ra0 = cr_v3(0.1, 0.2, -0.3), rb0 = cr_v3(0.15, 0.1, -0.2);
    const cr_quat pa0 = cr_q_normalize(cr_q(0.7, 0.1, 0.5, -0.2)), pb0 = cr_q_normalize(cr_q(0.3, -0.6, 0.2, 0.4));
    const double lambda[8] = {0.7, -1.3, 0.4, 2.1, -0.8, 1.7, -2.4, 0.9}, hh = 1e-6, f = 0.6;
    for (int t = 0; t < 8; ++t) {
        const cr_asm_joint *j = &js[t];
        double g[8], C[96], H[144], gp[8], gm[8], Cp[96], Cm[96], dummy[144];
        CHECK(j->rows <= CR_ASM_MAX_ROWS);
        cr_asm_joint_eval(j, f, NULL, ra0, pa0, rb0, pb0, lambda, g, C, H);
        double errC = 0, maxC = 0, errH = 0, maxH = 0;
        for (int k = 0; k < 12; ++k) {
            cr_vec3 ra[2] = {ra0, ra0}, rb[2] = {rb0, rb0};
            cr_quat pa[2] = {pa0, pa0}, pb[2] = {pb0, pb0};
            for (int sgn = 0; sgn < 2; ++sgn) {
                if (k < 6)
                    perturb(&ra[sgn], &pa[sgn], k, sgn ? -hh : hh);
                else
                    perturb(&rb[sgn], &pb[sgn], k - 6, sgn ? -hh : hh);
            }
            cr_asm_joint_eval(j, f, NULL, ra[0], pa[0], rb[0], pb[0], lambda, gp, Cp, dummy);
            cr_asm_joint_eval(j, f, NULL, ra[1], pa[1], rb[1], pb[1], lambda, gm, Cm, dummy);
            for (int r = 0; r < j->rows; ++r) {
                errC = fmax(errC, fabs((gp[r] - gm[r]) / (2 * hh) - C[r * 12 + k]));
                maxC = fmax(maxC, fabs(C[r * 12 + k]));
            }
            for (int c = 0; c < 12; ++c) {
                double fp = 0, fm = 0;
                for (int r = 0; r < j->rows; ++r) fp += Cp[r * 12 + c] * lambda[r], fm += Cm[r * 12 + c] * lambda[r];
                errH = fmax(errH, fabs((fp - fm) / (2 * hh) - H[c * 12 + k]));
                maxH = fmax(maxH, fabs(H[c * 12 + k]));
            }
        }
        printf("spring joint %d (type %d, %d rows): |C - C_fd| %.2g of %.2g, |H - H_fd| %.2g of %.2g\n", t, j->type,
               j->rows, errC, maxC, errH, maxH);
        CHECK(errC < 1e-8 * maxC);
        CHECK(errH < 1e-8 * maxH);
    }
    /* the values: at the reference relative pose turned by 0.4 rad about h, the hinge's angle
     * row reads 0.4 and a ball's rotation rows sin(0.4) h (a's frame); a slide of 0.25 along
     * h reads 0.25 on the slider's spring row and 0.25 − X on its drive row */
    {
        double g[8];
        const cr_quat pb = cr_q_mul(cr_q_mul(pa0, cr_q_axis_angle(h, 0.4)), rref);
        const cr_vec3 rb = cr_v3_add(ra0, cr_v3_scale(cr_m3_mulv(cr_q_exp(pa0), h), 0.25));
        cr_asm_joint_eval(&js[0], f, NULL, ra0, pa0, ra0, pb, NULL, g, NULL, NULL);
        CHECK_NEAR(g[5], 0.4 - 0.9 * f, 1e-14);
        cr_asm_joint_eval(&js[4], f, NULL, ra0, pa0, ra0, pb, NULL, g, NULL, NULL);
        for (int q = 0; q < 3; ++q) CHECK_NEAR(g[3 + q], sin(0.4) * cr_v3_get(h, q), 1e-14);
        cr_asm_joint_eval(&js[1], f, NULL, ra0, pa0, rb, cr_q_mul(pa0, rref), NULL, g, NULL, NULL);
        CHECK_NEAR(g[5], 0.25 - 0.3 * f, 1e-14);
        CHECK_NEAR(g[6], 0.25, 1e-14);
        for (int r = 0; r < 5; ++r) CHECK_NEAR(g[r], 0.0, 1e-14);
        /* a limit row reads the angle from the reference (0.4, not 0.4 − 0.9 f) and counts the
         * turns: about a last accepted angle near 2π it is 0.4 + 2π */
        cr_asm_joint_eval(&js[6], f, NULL, ra0, pa0, ra0, pb, NULL, g, NULL, NULL);
        CHECK_NEAR(g[5], 0.4, 1e-14);
        double ref[6] = {0, 0, 0, 0, 0, 2 * PI - 0.3}, hat[6] = {0}, phi = 0, k = -1;
        cr_assembly_state st = {.limit_ref = ref, .limit_hat = hat};
        js[6].lo[0] = -1, js[6].hi[0] = 7, js[6].k[0] = 10;
        CHECK(cr_asm_row_law(&js[6], &st, 0, 5, g[5], &k, NULL, NULL, &phi));
        CHECK_NEAR(phi, 0.4 + 2 * PI, 1e-14);
        CHECK(k == 0.0); /* inside [−1, 7]: not pressing */
        js[6].hi[0] = 6;
        cr_asm_row_law(&js[6], &st, 0, 5, g[5], &k, NULL, NULL, &phi);
        CHECK(k == 10.0); /* beyond 6 (a wrapped angle, 0.4, would not be) */
    }
}

/* ---- springs and drives on joints, statics ---- */
/* Two rods along x, "root" [0, 0.5] clamped at 0 and "tip" [0.5, 1] (8 elements each,
 * resultants EA = GA = ea, GJ = 0.7 ei, EI = ei), joined at x = 0.5 by `j` (its nodes set
 * here); the tip rod carries only the joint and a load at its end: whatever its free
 * directions, the joint's spring (or drive) holds it. */
typedef struct spring_case {
    cr_section_segment sec;
    cr_bc_def clamp;
    cr_load_def load[2];
    cr_assembly_rod_def rods[2];
    cr_assembly *a;
    cr_assembly_state *s;
    cr_vec3 ra, rb, tip; /* the joint's two points and the tip rod's end */
    cr_quat pa, pb;      /* the joint's two nodes' orientations */
} spring_case;

static int spring_solve(spring_case *c, cr_joint_def j, double ea, double ei, int loads, const cr_load_def *load)
{
    memset(c, 0, sizeof *c);
    c->sec = resultants(ea, ea, 0.7 * ei, ei, 1.0);
    c->clamp = cr_bc_default_def();
    for (int k = 0; k < loads; ++k) c->load[k] = load[k];
    cr_rod_def A = straight_rod(&c->sec, 0.5, 8), B = straight_rod(&c->sec, 0.5, 8);
    A.bcs = &c->clamp, A.bc_count = 1;
    B.reference.origin = cr_v3(0.5, 0, 0), B.loads = c->load, B.load_count = loads;
    c->rods[0] = named("root", A), c->rods[1] = named("tip", B);
    j.a = (cr_rod_node){0, -1}, j.b = (cr_rod_node){1, 0};
    cr_assembly_def def = {.rod_count = 2, .rods = c->rods, .joint_count = 1, .joints = &j};
    cr_error err = {0};
    c->a = cr_assembly_create(&def, &err);
    if (!c->a) return fprintf(stderr, "%s\n", err.message), 0;
    c->s = cr_assembly_state_create(c->a);
    cr_static_options o = tight();
    o.load_steps = 4;
    cr_status st = cr_assembly_static_solve(c->a, c->s, &o, NULL, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    cr_state *r0 = cr_assembly_state_rod(c->s, 0), *r1 = cr_assembly_state_rod(c->s, 1);
    c->ra = cr_state_position(r0, 8), c->rb = cr_state_position(r1, 0), c->tip = cr_state_position(r1, 8);
    c->pa = cr_state_orientation(r0, 8), c->pb = cr_state_orientation(r1, 0);
    return st == CR_OK;
}

static void spring_free(spring_case *c)
{
    cr_assembly_state_destroy(c->s);
    cr_assembly_destroy(c->a);
}

/* the relative rotation A_aᵀA_b of the case's joint as (angle, unit axis in a's frame) */
static double relative_angle(const spring_case *c, cr_vec3 *axis)
{
    cr_quat q = cr_q_mul(cr_q_conj(c->pa), c->pb);
    if (q.w < 0) q = cr_q_scale(q, -1.0);
    cr_vec3 v = cr_q_vec(q);
    double s = cr_v3_norm(v);
    if (axis) *axis = s > 0 ? cr_v3_scale(v, 1.0 / s) : cr_v3(0, 0, 1);
    return 2.0 * atan2(s, q.w);
}

static void test_joint_springs_static(void)
{
    /* a hinge about z with a torsional spring k, the tip rod under a force (0, −P, 0) at its
     * end. Exactly (any stiffness of the rods): the tip rod's moment balance about the hinge,
     * k φ = ((r_tip − r_hinge) × F)_z. For rigid rods (EI = 1e7 here, PL²/EI = 2.5e-8) the
     * closed form k φ = −P L cos φ (φ < 0), solved below by Newton. */
    const double k = 1.0, P = 1.0, L = 0.5;
    cr_load_def f = cr_load_default_def();
    f.type = CR_LOAD_FORCE, f.node = -1, f.value = cr_v3(0, -P, 0);
    cr_joint_def j = cr_joint_default_def();
    j.type = CR_JOINT_HINGE, j.axis = cr_v3(0, 0, 1), j.stiffness = k;
    spring_case c;
    CHECK(spring_solve(&c, j, 1e9, 1e7, 1, &f));
    cr_vec3 ax;
    double phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    double moment = cr_v3_cross(cr_v3_sub(c.tip, c.ra), f.value).z;
    double ref = -0.4;
    for (int it = 0; it < 50; ++it) ref -= (k * ref + P * L * cos(ref)) / (k - P * L * sin(ref));
    printf("hinge spring: phi %.12f rad, k phi %.3e vs moment about the hinge %.3e; rigid closed form %.12f\n", phi,
           k * phi, moment, ref);
    CHECK(fabs(k * phi - moment) < 1e-10);
    CHECK(fabs(phi - ref) < 1e-6);
    CHECK(cr_v3_norm(cr_v3_sub(c.ra, c.rb)) < 1e-12);
    spring_free(&c);

    /* a prismatic joint along x with a spring k_s, an axial force P at the tip: the slide is
     * P/k_s exactly (the spring alone carries P), the rods' EA = 1e4 aside */
    f.value = cr_v3(0.3, 0, 0);
    j = cr_joint_default_def();
    j.type = CR_JOINT_PRISMATIC, j.axis = cr_v3(1, 0, 0), j.stiffness = 2.0;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &f));
    double slide = cr_v3_dot(cr_m3_mulv(cr_q_exp(c.pa), cr_v3(1, 0, 0)), cr_v3_sub(c.rb, c.ra));
    printf("prismatic spring: slide %.15f m (P/k = %.15f)\n", slide, 0.3 / 2.0);
    CHECK_NEAR(slide, 0.15, 1e-12);
    spring_free(&c);

    /* a cylindrical joint along x with both springs: a torque T about x and an axial force P
     * give φ = T/k_r and x = P/k_s exactly */
    cr_load_def fm[2] = {f, cr_load_default_def()};
    fm[1].type = CR_LOAD_MOMENT, fm[1].node = -1, fm[1].value = cr_v3(0.2, 0, 0);
    j.type = CR_JOINT_CYLINDRICAL, j.stiffness = 0.5, j.slide_stiffness = 2.0;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 2, fm));
    slide = cr_v3_dot(cr_m3_mulv(cr_q_exp(c.pa), cr_v3(1, 0, 0)), cr_v3_sub(c.rb, c.ra));
    phi = relative_angle(&c, &ax);
    printf("cylindrical springs: twist %.15f rad (T/k %.15f), slide %.15f m (P/k %.15f)\n", phi, 0.4, slide, 0.15);
    CHECK_NEAR(phi, 0.4, 1e-12);
    CHECK(ax.x > 1 - 1e-12);
    CHECK_NEAR(slide, 0.15, 1e-12);
    spring_free(&c);

    /* a ball joint with the isotropic spring: a moment T about z at the tip, balanced by the
     * spring's k sin ψ cos ψ about the rotation axis (energy ½ k sin²ψ): sin 2ψ = 2T/k */
    f.type = CR_LOAD_MOMENT, f.value = cr_v3(0, 0, 0.3);
    j = cr_joint_default_def();
    j.type = CR_JOINT_BALL, j.stiffness = 1.0;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &f));
    double psi = relative_angle(&c, &ax);
    printf("ball spring: psi %.15f rad about (%.3g, %.3g, %.3g) (asin(0.6)/2 = %.15f)\n", psi, ax.x, ax.y, ax.z,
           0.5 * asin(0.6));
    CHECK_NEAR(psi, 0.5 * asin(0.6), 1e-12);
    CHECK(ax.z > 1 - 1e-12);
    spring_free(&c);

    /* a universal joint (axis y on a, axis_b z on b) with the isotropic spring: a moment T about
     * y turns b about y (the constraint holds, y·Rot(y, ψ) z = 0), sin 2ψ = 2T/k as the ball's */
    f.value = cr_v3(0, 0.3, 0);
    j = cr_joint_default_def();
    j.type = CR_JOINT_UNIVERSAL, j.axis = cr_v3(0, 1, 0), j.axis_b = cr_v3(0, 0, 1), j.stiffness = 1.0;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &f));
    psi = relative_angle(&c, &ax);
    printf("universal spring: psi %.15f rad about (%.3g, %.3g, %.3g) (asin(0.6)/2 = %.15f)\n", psi, ax.x, ax.y, ax.z,
           0.5 * asin(0.6));
    CHECK_NEAR(psi, 0.5 * asin(0.6), 1e-12);
    CHECK(ax.y > 1 - 1e-12);
    spring_free(&c);

    /* a cylindrical joint driven to an angle θ, with a slide spring under an axial force: b
     * turned by θ about x exactly and slid by P/k_s */
    cr_load_def ax_force = cr_load_default_def();
    ax_force.type = CR_LOAD_FORCE, ax_force.node = -1, ax_force.value = cr_v3(0.3, 0, 0);
    j = cr_joint_default_def();
    j.type = CR_JOINT_CYLINDRICAL, j.axis = cr_v3(1, 0, 0), j.slide_stiffness = 2.0;
    j.has_drive = 1, j.drive_angle = 2.5;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &ax_force));
    phi = relative_angle(&c, &ax);
    slide = cr_v3_dot(cr_m3_mulv(cr_q_exp(c.pa), cr_v3(1, 0, 0)), cr_v3_sub(c.rb, c.ra));
    printf("cylindrical drive: turned %.15f rad about (%.3g, %.3g, %.3g) (2.5), slide %.15f m (0.15)\n", phi, ax.x,
           ax.y, ax.z, slide);
    CHECK_NEAR(phi, 2.5, 1e-12);
    CHECK(ax.x > 1 - 1e-12);
    CHECK_NEAR(slide, 0.15, 1e-12);
    spring_free(&c);

    /* rest positions: unloaded, a hinge spring turns b to φ0 and a prismatic one slides it to x0
     * (through the load steps); a torque T then adds T/k to φ0 */
    f.type = CR_LOAD_MOMENT, f.value = cr_v3(0, 0, 0.1);
    j = cr_joint_default_def();
    j.type = CR_JOINT_HINGE, j.axis = cr_v3(0, 0, 1), j.stiffness = 0.5, j.rest = 1.2;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 0, NULL));
    phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    printf("hinge spring at rest 1.2: %.15f rad\n", phi);
    CHECK_NEAR(phi, 1.2, 1e-12);
    spring_free(&c);
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &f));
    phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    printf("hinge spring at rest 1.2, torque 0.1: %.15f rad (1.4)\n", phi);
    CHECK_NEAR(phi, 1.4, 1e-12);
    spring_free(&c);
    j = cr_joint_default_def();
    j.type = CR_JOINT_PRISMATIC, j.axis = cr_v3(1, 0, 0), j.stiffness = 2.0, j.rest = -0.1;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 0, NULL));
    printf("prismatic spring at rest -0.1: tip at x = %.15f (0.9)\n", c.tip.x);
    CHECK_NEAR(c.tip.x, 0.9, 1e-12);
    spring_free(&c);

    /* a prismatic drive: with no load, the tip rod slides rigidly by X along the axis */
    j = cr_joint_default_def();
    j.type = CR_JOINT_PRISMATIC, j.axis = cr_v3(1, 0, 0), j.has_drive = 1, j.drive_slide = 1, j.drive_position = 0.2;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 0, NULL));
    printf("prismatic drive: tip at x = %.15f (1.2)\n", c.tip.x);
    CHECK_NEAR(c.tip.x, 1.2, 1e-12);
    CHECK_NEAR(c.rb.x - c.ra.x, 0.2, 1e-12);
    spring_free(&c);
}

/* ---- joint limits, statics ---- */
/* The spring_case rods (root clamped along x, tip hinged at x = 0.5, EI = 1e7: rigid to
 * 1e-8); the limit row's multiplier is the stop's force (moment), read from the joint's whole
 * reaction (its other rows hold the directions normal to the free one). */
static double limit_multiplier(const spring_case *c)
{
    const cr_asm_joint *j = &c->a->joints[0];
    for (int q = 0; q < j->springs; ++q)
        if (cr_asm_is_limit_kind(j->spring_kind[q])) return c->s->lambda[j->row0 + j->rows - j->springs + q];
    return NAN;
}

static void test_joint_limits_static(void)
{
    /* a pendulum arm (the tip rod, m = ρA L = 0.5 kg, its centre a = L/2 from the hinge)
     * under gravity g = 9.81 along −y, hinged about z and resting on the stop of its limit
     * [0, 1] at the reference: nothing else holds it (a free hinge: without the stop the solve
     * is singular), so the stop's moment is m g a and the angle stays at the limit */
    const double g = 9.81, m = 0.5, a_cm = 0.25;
    cr_load_def grav = cr_load_default_def();
    grav.type = CR_LOAD_GRAVITY, grav.value = cr_v3(0, -g, 0);
    cr_joint_def j = cr_joint_default_def();
    j.type = CR_JOINT_HINGE, j.axis = cr_v3(0, 0, 1), j.has_limit = 1, j.limit[0] = 0.0, j.limit[1] = 1.0;
    spring_case c;
    CHECK(spring_solve(&c, j, 1e9, 1e7, 1, &grav));
    cr_vec3 ax, F, M;
    double phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    cr_assembly_joint_reaction(c.a, c.s, 0, &F, &M);
    printf("arm on its stop: angle %.3e rad (limit 0), stop moment %.15f N m (m g a = %.15f), joint reaction "
           "moment z %.15f\n",
           phi, limit_multiplier(&c), m * g * a_cm, M.z);
    CHECK(fabs(phi) < 1e-10);
    CHECK(fabs(limit_multiplier(&c) - m * g * a_cm) < 1e-9 * m * g * a_cm);
    CHECK(fabs(fabs(M.z) - m * g * a_cm) < 1e-9 * m * g * a_cm); /* the stop's moment is in the reaction */
    spring_free(&c);

    /* the same arm with a torsional spring k = 1 N m/rad and a tip force (0, −1, 0) N: free,
     * it would hang at k φ = −P L cos φ (φ = −0.450); the limit [−0.2, 1] stops it at −0.2,
     * where the moment balance about the hinge gives the stop's moment λ = k φ − M_load (exact
     * for any rod stiffness, with the load's moment from the solved tip position; and P L cos 0.2
     * − 0.2 k for rigid rods) */
    cr_load_def f = cr_load_default_def();
    f.type = CR_LOAD_FORCE, f.node = -1, f.value = cr_v3(0, -1, 0);
    j.stiffness = 1.0, j.limit[0] = -0.2;
    CHECK(spring_solve(&c, j, 1e9, 1e7, 1, &f));
    phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    double Mload = cr_v3_cross(cr_v3_sub(c.tip, c.ra), f.value).z, lam = limit_multiplier(&c);
    printf("spring arm on its stop: angle %.15f rad (limit -0.2), stop moment %.15f (k phi - M_load = %.15f, rigid "
           "%.15f)\n",
           phi, lam, phi - Mload, 0.5 * cos(0.2) - 0.2);
    CHECK(fabs(phi + 0.2) < 1e-10);
    CHECK(fabs(lam - (1.0 * phi - Mload)) < 1e-10);
    CHECK(fabs(lam - (0.5 * cos(0.2) - 0.2)) < 1e-6);
    spring_free(&c);

    /* a limit that does not press (range [−1, 1], the spring's −0.450 inside): the spring's
     * answer, the stop's force 0 */
    j.limit[0] = -1.0;
    CHECK(spring_solve(&c, j, 1e9, 1e7, 1, &f));
    phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    double ref = -0.4;
    for (int it = 0; it < 50; ++it) ref -= (ref + 0.5 * cos(ref)) / (1.0 - 0.5 * sin(ref));
    printf("spring arm inside its limits: angle %.12f (free %.12f), stop moment %.3g\n", phi, ref,
           limit_multiplier(&c));
    CHECK(fabs(phi - ref) < 1e-6);
    CHECK(limit_multiplier(&c) == 0.0);
    spring_free(&c);

    /* a lower stop at the reference that the load pulls away from (the kink's active branch
     * at the first iteration must let go): a tip force (0, +1, 0) turns the arm up to +0.450 */
    f.value = cr_v3(0, 1, 0), j.limit[0] = 0.0;
    CHECK(spring_solve(&c, j, 1e9, 1e7, 1, &f));
    phi = relative_angle(&c, &ax) * (ax.z < 0 ? -1.0 : 1.0);
    printf("spring arm pulled off its stop: angle %.12f (free %.12f), stop moment %.3g\n", phi, -ref,
           limit_multiplier(&c));
    CHECK(fabs(phi + ref) < 1e-6);
    CHECK(limit_multiplier(&c) == 0.0);
    spring_free(&c);

    /* a prismatic slider along x resting on the upper stop of its limit [−0.1, 0] under an
     * axial force P = 0.3 N: the stop's force is P and the slide stays 0; with a spring k = 2
     * and the limit [−0.1, 0.05] it stops at 0.05 carrying P − 0.05 k */
    f.value = cr_v3(0.3, 0, 0);
    j = cr_joint_default_def();
    j.type = CR_JOINT_PRISMATIC, j.axis = cr_v3(1, 0, 0), j.has_limit = 1, j.limit[0] = -0.1, j.limit[1] = 0.0;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &f));
    double slide = cr_v3_dot(cr_m3_mulv(cr_q_exp(c.pa), cr_v3(1, 0, 0)), cr_v3_sub(c.rb, c.ra));
    printf("slider on its stop: slide %.3e m (limit 0), stop force %.15f N (load 0.3)\n", slide, limit_multiplier(&c));
    CHECK(fabs(slide) < 1e-10);
    CHECK(fabs(-limit_multiplier(&c) - 0.3) < 1e-12);
    spring_free(&c);
    j.stiffness = 2.0, j.limit[1] = 0.05;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 1, &f));
    slide = cr_v3_dot(cr_m3_mulv(cr_q_exp(c.pa), cr_v3(1, 0, 0)), cr_v3_sub(c.rb, c.ra));
    printf("sprung slider on its stop: slide %.15f m (limit 0.05), stop force %.15f N (P - k x = 0.2)\n", slide,
           limit_multiplier(&c));
    CHECK(fabs(slide - 0.05) < 1e-10);
    CHECK(fabs(-limit_multiplier(&c) - 0.2) < 1e-9);
    spring_free(&c);

    /* a cylindrical joint: a torque about x against the rotation's stop [−1, 0.3] with a spring
     * k = 0.5 (free: T/k = 0.4) and an axial force against the slide's stop [−0.1, 0.05]
     * (spring 2: free 0.15): both stops press, λ = T − k φ and P − k_s x */
    cr_load_def fm[2] = {f, cr_load_default_def()};
    fm[1].type = CR_LOAD_MOMENT, fm[1].node = -1, fm[1].value = cr_v3(0.2, 0, 0);
    j = cr_joint_default_def();
    j.type = CR_JOINT_CYLINDRICAL, j.axis = cr_v3(1, 0, 0), j.stiffness = 0.5, j.slide_stiffness = 2.0;
    j.has_limit = 1, j.limit[0] = -1, j.limit[1] = 0.3, j.has_slide_limit = 1, j.slide_limit[0] = -0.1,
    j.slide_limit[1] = 0.05;
    CHECK(spring_solve(&c, j, 1e4, 1.0, 2, fm));
    slide = cr_v3_dot(cr_m3_mulv(cr_q_exp(c.pa), cr_v3(1, 0, 0)), cr_v3_sub(c.rb, c.ra));
    phi = relative_angle(&c, &ax);
    {
        const cr_asm_joint *aj = &c.a->joints[0];
        const double *l = c.s->lambda + aj->row0 + aj->rows - 2;
        printf("cylindrical stops: twist %.15f (0.3), slide %.15f (0.05), stop moment %.15f (T - k phi = 0.05), "
               "stop force %.15f (0.2)\n",
               phi, slide, -l[0], -l[1]);
        CHECK(fabs(phi - 0.3) < 1e-10);
        CHECK(fabs(slide - 0.05) < 1e-10);
        CHECK(fabs(-l[0] - 0.05) < 1e-9);
        CHECK(fabs(-l[1] - 0.2) < 1e-9);
    }
    spring_free(&c);
}

/* ---- a statically determinate three-hinged arch ---- */
/* Two straight rods, "left" from the support A = (0, 0) to the crown C = (1, 1) and
 * "right" from C to the support B = (2, 0), in the x–y plane; hinges about z at A and B
 * (supports holding the translations and the rotations about x and y) and at C (a joint).
 * A force F = (0, −P) at the left rod's midpoint node. Equilibrium in the deformed
 * configuration (A, B fixed; C and the load point X where the solve puts them):
 *   whole arch, moments about A:   2 B_y + (X − A) × F = 0        → B_y = P X_x / 2
 *   right rod, moments about C:    (B − C) × R_B = 0                → B_x = −(2 − C_x) B_y / C_y
 *   forces:                         A_x = −B_x,  A_y = P − B_y
 *   the hinge on the left rod:      R_B (the right rod is a two-force member)
 * In the reference geometry (X = (0.5, 0.5), C = (1, 1)): B = (−P/4, P/4), A = (P/4, 3P/4).
 * Three reactions exact whatever the stiffness: the rods' EI differ by 1e4, both ways. */
static void test_three_hinged_arch(void)
{
    const double P = 1.0;
    for (int c = 0; c < 2; ++c) {
        const double EI[2] = {c == 0 ? 1.0 : 1e4, c == 0 ? 1e4 : 1.0};
        cr_section_segment sec[2] = {resultants(1e3 * EI[0], 1e3 * EI[0], EI[0], EI[0], 1),
                                     resultants(1e3 * EI[1], 1e3 * EI[1], EI[1], EI[1], 1)};
        cr_bc_def hinge = cr_bc_default_def();
        hinge.type = CR_BC_SUPPORT, hinge.hold = CR_HOLD_TRANSLATION | CR_HOLD_RX | CR_HOLD_RY;
        cr_bc_def hinge_end = hinge;
        hinge_end.node = -1;
        cr_load_def load = cr_load_default_def();
        load.type = CR_LOAD_FORCE, load.node = 5, load.value = cr_v3(0, -P, 0);
        cr_rod_def L = straight_rod(&sec[0], sqrt(2.0), 10), R = straight_rod(&sec[1], sqrt(2.0), 10);
        L.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), PI / 4);
        L.bcs = &hinge, L.bc_count = 1, L.loads = &load, L.load_count = 1;
        R.reference.origin = cr_v3(1, 1, 0), R.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), -PI / 4);
        R.bcs = &hinge_end, R.bc_count = 1;
        cr_assembly_rod_def rods[2] = {named("left", L), named("right", R)};
        cr_joint_def crown = joint(CR_JOINT_HINGE, 0, -1, 1, 0);
        crown.axis = cr_v3(0, 0, 1); /* z in the left rod's body frame (turned about z) */
        cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &crown};
        cr_error err = {0};
        cr_assembly *a = cr_assembly_create(&def, &err);
        cr_assembly_state *s = cr_assembly_state_create(a);
        cr_static_options o = tight();
        cr_status st = cr_assembly_static_solve(a, s, &o, NULL, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
        cr_vec3 X = cr_state_position(cr_assembly_state_rod(s, 0), 5),
                C = cr_state_position(cr_assembly_state_rod(s, 1), 0);
        double By = P * X.x / 2, Bx = -(2 - C.x) * By / C.y;
        cr_vec3 RA, RB, fh, mh;
        CHECK(cr_state_reaction(cr_assembly_rod_model(a, 0), cr_assembly_state_rod(s, 0), 0, &RA, NULL) == CR_OK);
        CHECK(cr_state_reaction(cr_assembly_rod_model(a, 1), cr_assembly_state_rod(s, 1), -1, &RB, NULL) == CR_OK);
        CHECK(cr_assembly_joint_reaction(a, s, 0, &fh, &mh) == CR_OK);
        printf("arch EI %g/%g: C (%.6f, %.6f), X (%.6f, %.6f); B (%.12f, %.12f) vs (%.12f, %.12f); A (%.12f, %.12f); "
               "hinge (%.12f, %.12f), moment (%.3g, %.3g, %.3g)\n",
               EI[0], EI[1], C.x, C.y, X.x, X.y, RB.x, RB.y, Bx, By, RA.x, RA.y, fh.x, fh.y, mh.x, mh.y, mh.z);
        /* round-off: EA ε ≈ 2e-9 N with EA = 1e7 N; measured 2e-9 (Release) and 4.7e-9 (the Debug
         * ASan build, other operation order): a few EA ε */
        const double tol = 1e-8 * P;
        CHECK_NEAR(RB.x, Bx, tol);
        CHECK_NEAR(RB.y, By, tol);
        CHECK_NEAR(RA.x, -Bx, tol);
        CHECK_NEAR(RA.y, P - By, tol);
        CHECK_NEAR(fh.x, Bx, tol);
        CHECK_NEAR(fh.y, By, tol);
        /* no moment about the hinge's axis (its direction in I: the left rod's end frame's z) */
        cr_vec3 axis = cr_m3_column(cr_q_exp(cr_state_orientation(cr_assembly_state_rod(s, 0), 10)), 2);
        CHECK(fabs(cr_v3_dot(mh, axis)) < 1e-12 * P);
        /* near the reference geometry's values (the arch deflects little) */
        CHECK(fabs(RB.x + P / 4) < 0.02 && fabs(RB.y - P / 4) < 0.02);
        /* the rods over two threads (each rod's residual, tangent, factorization and solves a
         * task): the same state to the last bit, the sums being taken in the rods' order */
        cr_assembly_state *s2 = cr_assembly_state_create(a);
        o.threads = 2;
        CHECK(cr_assembly_static_solve(a, s2, &o, NULL, &err) == CR_OK);
        int same = 1;
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i <= 10; ++i) {
                cr_vec3 p1 = cr_state_position(cr_assembly_state_rod(s, r), i),
                        p2 = cr_state_position(cr_assembly_state_rod(s2, r), i);
                same &= p1.x == p2.x && p1.y == p2.y && p1.z == p2.z;
            }
        CHECK(same);
        cr_assembly_state_destroy(s2);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
}

/* ---- a ball joint: a propped cantilever ---- */
/* Cantilever A (x from 0 to L, clamped at 0) propped at its tip by a vertical strut B (from
 * the tip down to (L, 0, −L_B)) through a ball joint; B's foot holds its translations and its
 * twist (rotation about z), so B is a two-force member. A small tip force P down: A's tip and
 * B's top move together, the load splits in proportion to the stiffnesses, the strut takes
 *   N = P k_B / (k_A + k_B),  k_A = 1/(L³/(3 EI) + L/GA) (Timoshenko),  k_B = EA_B/L_B
 * (linear theory: P is small enough that the geometric nonlinearity is 1e-7; B's constant
 * axial strain is exact in the discrete rod, A's tip compliance has an O(h²) error, so k_A
 * is also taken from a solve of A alone). The ball transmits no moment (exactly, it has no
 * rotation rows) and no horizontal force. */
static void test_ball_prop(void)
{
    const double L = 1.0, LB = 0.5, EI = 2.0, GA = 1e4, EAB = 300.0, P = 1e-4;
    cr_section_segment sa = resultants(1e4, GA, 1.5, EI, 1), sb = resultants(EAB, 1e4, 1, 1, 1);
    cr_bc_def clamp = cr_bc_default_def(), foot = cr_bc_default_def();
    foot.type = CR_BC_SUPPORT, foot.node = -1, foot.hold = CR_HOLD_TRANSLATION | CR_HOLD_RZ;
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, 0, -P);
    cr_rod_def A = straight_rod(&sa, L, 16), B = straight_rod(&sb, LB, 8);
    A.bcs = &clamp, A.bc_count = 1, A.loads = &tip, A.load_count = 1;
    B.reference.origin = cr_v3(L, 0, 0), B.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), PI / 2);
    B.bcs = &foot, B.bc_count = 1;
    cr_assembly_rod_def rods[2] = {named("beam", A), named("strut", B)};
    cr_joint_def j = joint(CR_JOINT_BALL, 0, -1, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &j};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = tight();
    cr_status st = cr_assembly_static_solve(a, s, &o, NULL, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    cr_vec3 f, m, rb;
    cr_assembly_joint_reaction(a, s, 0, &f, &m);
    cr_state_reaction(cr_assembly_rod_model(a, 1), cr_assembly_state_rod(s, 1), -1, &rb, NULL);
    /* k_A of the discrete cantilever (n = 16): its tip deflection alone under P (a one-rod
     * solve); Timoshenko's k_A differs from it by the discretization, 1e-3 */
    cr_model *ma = cr_model_create(&A, NULL);
    cr_state *sa1 = cr_state_create(ma);
    CHECK(cr_static_solve(ma, sa1, &o, NULL, NULL, NULL, NULL) == CR_OK);
    const double kA_discrete = P / -cr_state_position(sa1, 16).z;
    cr_state_destroy(sa1);
    cr_model_destroy(ma);
    const double kA = 1 / (L * L * L / (3 * EI) + L / GA), kB = EAB / LB, N = P * kB / (kA_discrete + kB),
                 N_theory = P * kB / (kA + kB);
    printf("ball: strut force %.10g (split with the discrete k_A %.10g: rel. error %.2g; Timoshenko's k_A: %.2g), "
           "foot reaction %.10g, ball moment %.2g, horizontal %.2g\n",
           f.z, N, fabs(f.z / N - 1), fabs(f.z / N_theory - 1), rb.z, cr_v3_norm(m), hypot(f.x, f.y));
    CHECK(fabs(f.z / N - 1) < 1e-6);
    CHECK(fabs(f.z / N_theory - 1) < 3e-5);
    CHECK(fabs(rb.z - f.z) < 1e-9 * N); /* the strut carries it to its foot */
    CHECK(cr_v3_norm(m) == 0.0);
    CHECK(hypot(f.x, f.y) < 1e-6 * N);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* A ball between the two halves of a cantilever leaves the tip half free to turn about it
 * (about its own axis whatever the load): a mechanism, reported as such with the free
 * motion named, at load factor 0 (before the scaled pivot check, the LU's round-off pivots
 * let Newton wander for 25 iterations to an inverted equilibrium and fail at 0.62). */
static void test_mechanism(void)
{
    cr_section_segment sec = resultants(1e4, 1e4, 1, 1, 1);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, -1, 0);
    cr_rod_def A = straight_rod(&sec, 0.5, 4), B = straight_rod(&sec, 0.5, 4);
    A.bcs = &clamp, A.bc_count = 1;
    B.reference.origin = cr_v3(0.5, 0, 0), B.loads = &tip, B.load_count = 1;
    cr_assembly_rod_def rods[2] = {named("root", A), named("tip", B)};
    cr_joint_def j = joint(CR_JOINT_BALL, 0, -1, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &j};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_status st = cr_assembly_static_solve(a, s, NULL, NULL, &err);
    printf("mechanism: %s\n", err.message);
    CHECK(st == CR_SINGULAR);
    CHECK(strstr(err.message, "mechanism: nothing holds the rotation about its body x of node 0 of rod 'tip'") != NULL);
    CHECK(cr_assembly_state_load_factor(s) == 0.0); /* the reference state is kept */
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* ---- a thin ring welded end to end ---- */
/* A ring of radius R (one rod on a helix of pitch 0, its ends welded at the top) pressed
 * by two opposite forces P along the vertical diameter (at the top node and the bottom
 * node). Thin-ring theory (inextensible, no shear): the diameter along the load line
 * shortens by δ = (P R³/EI)(π/4 − 2/π) (Roark's Formulas for Stress and Strain, 7th ed.,
 * Table 9.2 case 1: ΔD_V = −0.1488 P R³/EI; Timoshenko, Strength of Materials I, §83),
 * and the section at a load point carries the moment P R/π and the shear P/2 (no normal
 * force). Supports: a statically determinate set (bottom node: three translations; the
 * side nodes: y, z and z) that only stops the rigid motions, so the loads, in
 * equilibrium, leave it without reactions. EA = GA = 1e6 EI/R² and P R²/EI = 1e-4: the
 * extensible, shear-compliant, geometrically nonlinear rod's differences from the theory
 * are about 1e-5 relative, far below the discretization's O(h²). */
static void ring(int n, double *delta, double *moment, double *shear, double *normal)
{
    const double R = 1.0, EI = 1.0, P = 1e-4;
    cr_section_segment sec = resultants(1e6, 1e6, 0.8, EI, 1);
    cr_rod_def d = straight_rod(&sec, 2 * PI * R, n);
    d.reference.type = CR_REFERENCE_HELIX, d.reference.helix_radius = R, d.reference.helix_pitch = 0;
    /* node 0 (α = 0) at (0, R, 0), node n/2 at (0, −R, 0), n/4 at (−R, 0, 0), 3n/4 at (R, 0, 0) */
    cr_bc_def bc[3] = {cr_bc_default_def(), cr_bc_default_def(), cr_bc_default_def()};
    for (int k = 0; k < 3; ++k) bc[k].type = CR_BC_SUPPORT;
    bc[0].node = n / 2, bc[0].hold = CR_HOLD_TRANSLATION;
    bc[1].node = n / 4, bc[1].hold = CR_HOLD_Y | CR_HOLD_Z;
    bc[2].node = 3 * n / 4, bc[2].hold = CR_HOLD_Z;
    cr_load_def f[2] = {cr_load_default_def(), cr_load_default_def()};
    f[0].type = f[1].type = CR_LOAD_FORCE;
    f[0].node = 0, f[0].value = cr_v3(0, -P, 0);
    f[1].node = n / 2, f[1].value = cr_v3(0, P, 0);
    d.bcs = bc, d.bc_count = 3, d.loads = f, d.load_count = 2;
    cr_assembly_rod_def rod = named("ring", d);
    cr_joint_def w = joint(CR_JOINT_WELD, 0, 0, 0, -1);
    cr_assembly_def def = {.rod_count = 1, .rods = &rod, .joint_count = 1, .joints = &w};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    CHECK(a != NULL);
    if (!a) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = tight();
    o.load_steps = 1;
    CHECK(cr_assembly_static_solve(a, s, &o, NULL, &err) == CR_OK);
    cr_state *st = cr_assembly_state_rod(s, 0);
    *delta = 2 * R - cr_v3_norm(cr_v3_sub(cr_state_position(st, 0), cr_state_position(st, n / 2)));
    cr_vec3 force, mom;
    cr_assembly_joint_reaction(a, s, 0, &force, &mom);
    *moment = cr_v3_norm(mom) / (P * R), *shear = fabs(force.y) / P, *normal = fabs(force.x) / P;
    for (int k = 0; k < 3; ++k) { /* the supports stay without reactions */
        cr_vec3 r;
        cr_state_reaction(cr_assembly_rod_model(a, 0), st, bc[k].node, &r, NULL);
        CHECK(cr_v3_norm(r) < 1e-4 * P); /* round-off: EA ε ≈ 1e-5 P */
    }
    *delta /= P * R * R * R / EI;
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

static void test_ring(void)
{
    const double theory = PI / 4 - 2 / PI;
    double e[3], m[3];
    for (int k = 0; k < 3; ++k) {
        int n = 16 << k;
        double delta, moment, shear, normal;
        ring(n, &delta, &moment, &shear, &normal);
        e[k] = fabs(delta / theory - 1);
        m[k] = fabs(moment * PI - 1);
        printf("ring n = %d: delta EI/(P R^3) = %.9f (theory %.9f, rel. error %.3g); weld moment %.9f P R (theory "
               "1/pi, rel. error %.3g), shear %.9f P, normal %.2g P\n",
               n, delta, theory, e[k], moment, m[k], shear, normal);
        CHECK_NEAR(shear, 0.5, 1e-4); /* geometric nonlinearity: P R²/EI = 1e-4 */
        CHECK(normal < 1e-4);
    }
    /* second order in the element length */
    for (int k = 0; k < 2; ++k) {
        CHECK(e[k] / e[k + 1] > 3.5 && e[k] / e[k + 1] < 4.5);
        CHECK(m[k] / m[k + 1] > 3.5 && m[k] / m[k + 1] < 4.5);
    }
    CHECK(e[2] < 1e-2 && m[2] < 1e-2);
}

/* ---- redundant joints ---- */
/* Three cantilevers (along x, y, z, clamped at their far ends) meeting at the origin. */
static void three_arms(cr_section_segment *sec, cr_bc_def *clamp, cr_load_def *load, cr_assembly_rod_def *rods)
{
    cr_rod_def r[3];
    const cr_vec3 axis[3] = {cr_v3(1, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1)};
    const cr_quat q[3] = {cr_q_identity(), cr_q_axis_angle(cr_v3(0, 0, 1), PI / 2),
                          cr_q_axis_angle(cr_v3(0, 1, 0), -PI / 2)};
    const char *names[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k) {
        r[k] = straight_rod(sec, 1.0, 6);
        r[k].reference.origin = cr_v3_neg(axis[k]), r[k].reference.orientation = q[k];
        r[k].bcs = clamp, r[k].bc_count = 1;
        if (k == 0) r[k].loads = load, r[k].load_count = 1;
        rods[k] = named(names[k], r[k]);
    }
}

static void test_redundant_joints(void)
{
    cr_section_segment sec = resultants(1e3, 1e3, 1, 1, 1);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def load = cr_load_default_def();
    load.type = CR_LOAD_FORCE, load.node = -1, load.value = cr_v3(0.3, -0.5, 0.2);
    cr_assembly_rod_def rods[3];
    three_arms(&sec, &clamp, &load, rods);
    cr_joint_def j[3] = {joint(CR_JOINT_WELD, 0, -1, 1, -1), joint(CR_JOINT_WELD, 1, -1, 2, -1),
                         joint(CR_JOINT_WELD, 2, -1, 0, -1)};
    strcpy(j[2].name, "closing");
    cr_assembly_def def = {.rod_count = 3, .rods = rods, .joint_count = 3, .joints = j};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_status st = cr_assembly_static_solve(a, s, NULL, NULL, &err);
    printf("triangle of welds: %s\n", err.message);
    CHECK(st == CR_BAD_INPUT);
    CHECK(strstr(err.message, "joints.2 ('closing'): its constraint on translation along x repeats the constraints "
                              "of joints.0, joints.1") != NULL);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    /* a ball on top of a weld at the same nodes */
    j[1] = joint(CR_JOINT_BALL, 1, -1, 0, -1);
    def.joint_count = 2;
    a = cr_assembly_create(&def, &err);
    s = cr_assembly_state_create(a);
    CHECK(cr_assembly_static_solve(a, s, NULL, NULL, &err) == CR_BAD_INPUT);
    CHECK(strstr(err.message, "joints.1: its constraint on translation along x repeats the constraints of joints.0"));
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    /* a cylindrical joint on top of a prismatic one along the same axis: its slide rows repeat */
    j[0] = joint(CR_JOINT_PRISMATIC, 0, -1, 1, -1), j[1] = joint(CR_JOINT_CYLINDRICAL, 0, -1, 1, -1);
    j[0].axis = j[1].axis = cr_v3(1, 0, 0);
    a = cr_assembly_create(&def, &err);
    s = cr_assembly_state_create(a);
    CHECK(cr_assembly_static_solve(a, s, NULL, NULL, &err) == CR_BAD_INPUT);
    printf("prismatic + cylindrical: %s\n", err.message);
    CHECK(strstr(err.message, "joints.1: its constraint on a translation normal to its axis repeats the constraints "
                              "of joints.0"));
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    /* a universal joint on top of a cylindrical one along x: its translation along x (the
     * cylindrical's slide) is new, along y it repeats the cylindrical's normal rows */
    j[0] = joint(CR_JOINT_CYLINDRICAL, 0, -1, 1, -1), j[1] = joint(CR_JOINT_UNIVERSAL, 0, -1, 1, -1);
    j[0].axis = cr_v3(1, 0, 0), j[1].axis = cr_v3(0, 1, 0), j[1].axis_b = cr_v3(0, 0, 1);
    a = cr_assembly_create(&def, &err);
    s = cr_assembly_state_create(a);
    CHECK(cr_assembly_static_solve(a, s, NULL, NULL, &err) == CR_BAD_INPUT);
    printf("cylindrical + universal: %s\n", err.message);
    CHECK(strstr(err.message, "joints.1: its constraint on translation along"));
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    j[0] = joint(CR_JOINT_WELD, 0, -1, 1, -1);
    /* the tree of two welds: solved, and the three clamps balance the load (global equilibrium) */
    def.joint_count = 2, j[1] = joint(CR_JOINT_WELD, 1, -1, 2, -1);
    a = cr_assembly_create(&def, &err);
    s = cr_assembly_state_create(a);
    CHECK(cr_assembly_static_solve(a, s, NULL, NULL, &err) == CR_OK);
    cr_vec3 sum = load.value;
    for (int k = 0; k < 3; ++k) {
        cr_vec3 f;
        CHECK(cr_state_reaction(cr_assembly_rod_model(a, k), cr_assembly_state_rod(s, k), 0, &f, NULL) == CR_OK);
        sum = cr_v3_add(sum, f);
    }
    printf("hub: clamps + load = %.3g N\n", cr_v3_norm(sum));
    CHECK(cr_v3_norm(sum) < 1e-10);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* ---- prismatic, cylindrical and universal joints: what they transmit ---- */
/* Two rods along x, "root" [0, 0.5] clamped at 0 and "tip" [0.5, 1] (N elements each,
 * EI = 1, GJ = 0.7, EA = GA = 1e4), joined at x = 0.5 by `type` with axis x (a's body
 * frame; the universal's axis y and axis_b z, so its held rotation is about x, the rods'
 * axis). The
 * tip rod is held by a support at its node `bnode` (inertial components `hold`) and
 * loaded at node `lnode` by a force or moment `value` (inertial). */
typedef struct slide_case {
    cr_section_segment sec;
    cr_bc_def clamp, hold;
    cr_load_def load;
    cr_assembly_rod_def rods[2];
    cr_joint_def j;
    cr_assembly *a;
    cr_assembly_state *s;
} slide_case;

enum { SLIDE_N = 8 };

static int slide_solve(slide_case *c, cr_joint_type type, int bnode, unsigned hold, cr_load_type lt, int lnode,
                       cr_vec3 value)
{
    memset(c, 0, sizeof *c);
    c->sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    c->clamp = cr_bc_default_def();
    c->hold = cr_bc_default_def();
    c->hold.type = CR_BC_SUPPORT, c->hold.node = bnode, c->hold.hold = hold, c->hold.frame = CR_FRAME_INERTIAL;
    c->load = cr_load_default_def();
    c->load.type = lt, c->load.node = lnode, c->load.value = value;
    cr_rod_def A = straight_rod(&c->sec, 0.5, SLIDE_N), B = straight_rod(&c->sec, 0.5, SLIDE_N);
    A.bcs = &c->clamp, A.bc_count = 1;
    B.reference.origin = cr_v3(0.5, 0, 0), B.bcs = &c->hold, B.bc_count = 1, B.loads = &c->load, B.load_count = 1;
    c->rods[0] = named("root", A), c->rods[1] = named("tip", B);
    c->j = joint(type, 0, -1, 1, 0);
    c->j.axis = type == CR_JOINT_UNIVERSAL ? cr_v3(0, 1, 0) : cr_v3(1, 0, 0), c->j.axis_b = cr_v3(0, 0, 1);
    cr_assembly_def def = {.rod_count = 2, .rods = c->rods, .joint_count = 1, .joints = &c->j};
    cr_error err = {0};
    c->a = cr_assembly_create(&def, &err);
    if (!c->a) return fprintf(stderr, "%s\n", err.message), 0;
    c->s = cr_assembly_state_create(c->a);
    cr_static_options o = tight();
    cr_status st = cr_assembly_static_solve(c->a, c->s, &o, NULL, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    return st == CR_OK;
}

static void slide_free(slide_case *c)
{
    cr_assembly_state_destroy(c->s);
    cr_assembly_destroy(c->a);
}

/* the largest |pose − reference| of the root rod, and its largest |n|, |m| components c */
static double root_moved(slide_case *c)
{
    cr_state *r = cr_assembly_state_rod(c->s, 0);
    double d = 0;
    for (int i = 0; i <= SLIDE_N; ++i) {
        d = fmax(d, cr_v3_norm(cr_v3_sub(cr_state_position(r, i), cr_v3(0.5 * i / SLIDE_N, 0, 0))));
        d = fmax(d, sqrt(qdist(cr_state_orientation(r, i), cr_q_identity())));
    }
    return d;
}

static double root_resultant(slide_case *c, int moment, int comp)
{
    double mx = 0;
    for (int e = 0; e < SLIDE_N; ++e) {
        cr_vec3 n, m;
        cr_state_element(cr_assembly_rod_model(c->a, 0), cr_assembly_state_rod(c->s, 0), e, NULL, NULL, &n, &m);
        mx = fmax(mx, fabs(cr_v3_get(moment ? m : n, comp)));
    }
    return mx;
}

/* Prismatic joint along the rods' axis.
 * (1) Axial tip force P = 2 N, the tip rod held along x at its middle node: the joint
 *     transmits no axial force, so the root stays in its reference (no force, no moment
 *     at all reach it) and the joint's reaction is zero; the tip rod's half beyond the
 *     support stretches by P (L/4)/EA exactly (uniform axial strain of a straight rod).
 * (2) A pure tip moment M = 1 N m about z (EI = 1: a 1 rad arc), the tip rod held along x
 *     at its tip: a continuous cantilever under an end moment has no internal force
 *     anywhere, so the joint's normal force is zero and it carries the moment M; the tip
 *     rod slides along the joint's axis t (the root's end tangent) until its tip is back at
 *     x = 1: the root's poses are the continuous rod's first half, the tip rod's its
 *     second half shifted by s t, s = (1 − x_tip,one)/t_x, all to round-off at a large
 *     deflection.
 * (3) A small transverse tip force F = 1e-4 N, held along x at the tip: carried as by one
 *     rod; the slide and the support's reaction R_x = −F tan θ (θ ~ F L²/EI the end slope)
 *     change the tip's deflection only at O(θ²) relative: |Δy| ≤ 1e-7 |y|. */
/* The twist angle at the end of a rod of length L (n elements, as the slide cases' section)
 * clamped at 0 under an end torque T about its axis: the discrete rod's own twist law
 * (close to T L/GJ; the reference of the twist transmitted or not by the joints). */
static double twisted_rod(double L, int n, double T)
{
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def mom = cr_load_default_def();
    mom.type = CR_LOAD_MOMENT, mom.node = -1, mom.value = cr_v3(T, 0, 0);
    cr_rod_def d = straight_rod(&sec, L, n);
    d.bcs = &clamp, d.bc_count = 1, d.loads = &mom, d.load_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    cr_state *s = cr_state_create(m);
    cr_static_options o = tight();
    CHECK(cr_static_solve(m, s, &o, NULL, NULL, NULL, NULL) == CR_OK);
    cr_quat q = cr_state_orientation(s, n);
    cr_state_destroy(s);
    cr_model_destroy(m);
    return 2.0 * atan2(q.x, q.w);
}

static void test_prismatic(void)
{
    slide_case c;
    const double P = 2.0, EA = 1e4;
    CHECK(slide_solve(&c, CR_JOINT_PRISMATIC, SLIDE_N / 2, CR_HOLD_X, CR_LOAD_FORCE, -1, cr_v3(P, 0, 0)));
    if (c.s) {
        cr_vec3 f, m;
        cr_assembly_joint_reaction(c.a, c.s, 0, &f, &m);
        double tip = cr_state_position(cr_assembly_state_rod(c.s, 1), SLIDE_N).x, moved = root_moved(&c);
        printf("prismatic, axial P: root moved %.2g, root |n1| max %.2g N, joint force %.2g, moment %.2g; tip x - 1 = "
               "%.12e (P L/4 EA = %.12e)\n",
               moved, root_resultant(&c, 0, 0), cr_v3_norm(f), cr_v3_norm(m), tip - 1.0, P * 0.25 / EA);
        CHECK(moved < 1e-12);
        CHECK(root_resultant(&c, 0, 0) < 1e-10 * P);
        CHECK(cr_v3_norm(f) < 1e-10 * P && cr_v3_norm(m) < 1e-10 * P);
        CHECK_NEAR(tip - 1.0, P * 0.25 / EA, 1e-13);
    }
    slide_free(&c);
    /* (2) against one continuous rod under the end moment */
    const double M = 1.0;
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def mom = cr_load_default_def();
    mom.type = CR_LOAD_MOMENT, mom.node = -1, mom.value = cr_v3(0, 0, M);
    cr_rod_def one = straight_rod(&sec, 1.0, 2 * SLIDE_N);
    one.bcs = &clamp, one.bc_count = 1, one.loads = &mom, one.load_count = 1;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    cr_static_options o = tight();
    CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
    CHECK(slide_solve(&c, CR_JOINT_PRISMATIC, -1, CR_HOLD_X, CR_LOAD_MOMENT, -1, cr_v3(0, 0, M)));
    if (c.s) {
        cr_vec3 t = cr_m3_column(cr_q_exp(cr_state_orientation(s1, SLIDE_N)), 0);
        double sl = (1.0 - cr_state_position(s1, 2 * SLIDE_N).x) / t.x, dr = 0, dq = 0;
        for (int i = 0; i <= 2 * SLIDE_N; ++i) {
            cr_state *h = cr_assembly_state_rod(c.s, i < SLIDE_N ? 0 : 1);
            int k = i < SLIDE_N ? i : i - SLIDE_N;
            cr_vec3 ref = cr_state_position(s1, i);
            if (i >= SLIDE_N) ref = cr_v3_add(ref, cr_v3_scale(t, sl));
            dr = fmax(dr, cr_v3_norm(cr_v3_sub(cr_state_position(h, k), ref)));
            dq = fmax(dq, qdist(cr_state_orientation(h, k), cr_state_orientation(s1, i)));
        }
        cr_vec3 f, m;
        cr_assembly_joint_reaction(c.a, c.s, 0, &f, &m);
        printf("prismatic, end moment: slide %.10f m along (%.6f, %.6f, %.6f); max |r - r_one shifted| %.2g m, |q - "
               "q_one|^2 %.2g; joint force %.2g, moment (%.12f, %.12f, %.12f)\n",
               sl, t.x, t.y, t.z, dr, dq, cr_v3_norm(f), m.x, m.y, m.z);
        CHECK(sl > 0.05); /* a large slide indeed */
        CHECK(dr < 1e-10);
        CHECK(dq < 1e-20);
        CHECK(cr_v3_norm(f) < 1e-10);
        CHECK(cr_v3_norm(cr_v3_sub(m, cr_v3(0, 0, M))) < 1e-10);
    }
    slide_free(&c);
    cr_state_destroy(s1);
    cr_model_destroy(m1);
    /* (3) a small transverse force, against one rod */
    const double F = 1e-4;
    cr_load_def tf = cr_load_default_def();
    tf.type = CR_LOAD_FORCE, tf.node = -1, tf.value = cr_v3(0, F, 0);
    one.loads = &tf;
    m1 = cr_model_create(&one, NULL);
    s1 = cr_state_create(m1);
    CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
    CHECK(slide_solve(&c, CR_JOINT_PRISMATIC, -1, CR_HOLD_X, CR_LOAD_FORCE, -1, cr_v3(0, F, 0)));
    if (c.s) {
        double y1 = cr_state_position(s1, 2 * SLIDE_N).y,
               y = cr_state_position(cr_assembly_state_rod(c.s, 1), SLIDE_N).y;
        printf("prismatic, transverse F: tip y %.12e, one rod's %.12e (rel. difference %.2g; F/3EI + F/GA = %.12e)\n",
               y, y1, fabs(y - y1) / y1, F / 3.0 + F / 1e4);
        CHECK(fabs(y - y1) <= 1e-7 * fabs(y1));
        CHECK(fabs(y1 - (F / 3.0 + F / 1e4)) < 1e-3 * y1); /* the one rod is the cantilever indeed */
    }
    slide_free(&c);
    cr_state_destroy(s1);
    cr_model_destroy(m1);
}

/* Cylindrical joint along the rods' axis: a torque T = 0.5 N m about x at the tip, the tip
 * rod held along x and about x at its middle node. The joint transmits no twist (nor
 * axial force): the root stays in its reference, carries no twist moment, the joint's
 * reaction is zero, and the tip turns about x as the end of a rod of length L/4 clamped
 * at the support (≈ T (L/4)/GJ), to round-off. A moment
 * about z instead is carried (the joint's reaction moment is M e_z, the root bends). */
static void test_cylindrical(void)
{
    slide_case c;
    const double T = 0.5, GJ = 0.7;
    CHECK(
        slide_solve(&c, CR_JOINT_CYLINDRICAL, SLIDE_N / 2, CR_HOLD_X | CR_HOLD_RX, CR_LOAD_MOMENT, -1, cr_v3(T, 0, 0)));
    if (c.s) {
        cr_vec3 f, m;
        cr_assembly_joint_reaction(c.a, c.s, 0, &f, &m);
        cr_quat q = cr_state_orientation(cr_assembly_state_rod(c.s, 1), SLIDE_N);
        double phi = 2.0 * atan2(q.x, q.w), moved = root_moved(&c), ref = twisted_rod(0.25, SLIDE_N / 2, T);
        printf("cylindrical, torque: root moved %.2g, root |m1| max %.2g, joint force %.2g, moment %.2g; tip twist "
               "%.12f rad (a rod of L/4: %.12f; T L/4 GJ = %.12f)\n",
               moved, root_resultant(&c, 1, 0), cr_v3_norm(f), cr_v3_norm(m), phi, ref, T * 0.25 / GJ);
        CHECK(moved < 1e-12);
        CHECK(root_resultant(&c, 1, 0) < 1e-10 * T);
        CHECK(cr_v3_norm(f) < 1e-10 && cr_v3_norm(m) < 1e-10);
        CHECK_NEAR(phi, ref, 1e-12);
    }
    slide_free(&c);
    CHECK(slide_solve(&c, CR_JOINT_CYLINDRICAL, SLIDE_N / 2, CR_HOLD_X | CR_HOLD_RX, CR_LOAD_MOMENT, -1,
                      cr_v3(0, 0, 0.3)));
    if (c.s) {
        cr_vec3 f, m;
        cr_assembly_joint_reaction(c.a, c.s, 0, &f, &m);
        printf("cylindrical, bending moment 0.3: joint force %.2g, moment (%.12f, %.12f, %.12f); root |m3| max %.12f\n",
               cr_v3_norm(f), m.x, m.y, m.z, root_resultant(&c, 1, 2));
        CHECK(cr_v3_norm(f) < 1e-10);
        CHECK(cr_v3_norm(cr_v3_sub(m, cr_v3(0, 0, 0.3))) < 1e-10);
        CHECK_NEAR(root_resultant(&c, 1, 2), 0.3, 1e-10);
    }
    slide_free(&c);
}

/* Universal joint, axis y on the root's side and axis_b z on the tip rod's: it holds the
 * rotation about x (a Cardan shaft). Moments T = 0.5 N m at the tip rod's middle node, the
 * tip rod held about y and z at its tip. About x: transmitted whole (the joint's reaction
 * moment is T e_x, the root's twist moment T, its end twisted as node N of a rod of length
 * 3L/4 clamped at 0 with the torque at its end, ≈ T (L/2)/GJ). About y or
 * z: the tip rod turns about the joint's free axis, the support takes the moment, the
 * root stays in its reference and the joint's reaction is zero. */
static void test_universal(void)
{
    slide_case c;
    const double T = 0.5, GJ = 0.7;
    for (int axis = 0; axis < 3; ++axis) {
        cr_vec3 v = cr_v3(axis == 0 ? T : 0, axis == 1 ? T : 0, axis == 2 ? T : 0);
        CHECK(slide_solve(&c, CR_JOINT_UNIVERSAL, -1, CR_HOLD_RY | CR_HOLD_RZ, CR_LOAD_MOMENT, SLIDE_N / 2, v));
        if (!c.s) {
            slide_free(&c);
            continue;
        }
        cr_vec3 f, m;
        cr_assembly_joint_reaction(c.a, c.s, 0, &f, &m);
        cr_quat q = cr_state_orientation(cr_assembly_state_rod(c.s, 0), SLIDE_N);
        double phi = 2.0 * atan2(q.x, q.w), moved = root_moved(&c);
        /* a torque over a rod twists it uniformly: the rod of 3L/4's node N is at 2/3 of its end's twist */
        double ref = axis == 0 ? twisted_rod(0.75, 3 * SLIDE_N / 2, T) * 2.0 / 3.0 : 0.0;
        printf("universal, moment about %c: joint force %.2g, moment (%.12f, %.12f, %.12f); root moved %.3g, twist "
               "moment max %.12f, end twist %.12f (rod of 3L/4: %.12f; T L/2 GJ = %.12f)\n",
               "xyz"[axis], cr_v3_norm(f), m.x, m.y, m.z, moved, root_resultant(&c, 1, 0), phi, ref, T * 0.5 / GJ);
        CHECK(cr_v3_norm(f) < 1e-10);
        if (axis == 0) {
            CHECK(cr_v3_norm(cr_v3_sub(m, v)) < 1e-10);
            CHECK_NEAR(root_resultant(&c, 1, 0), T, 1e-10);
            CHECK_NEAR(phi, ref, 1e-12);
        } else {
            CHECK(cr_v3_norm(m) < 1e-10);
            CHECK(moved < 1e-12);
        }
        slide_free(&c);
    }
}

/* ---- validation ---- */
static void expect_error(const cr_assembly_def *def, const char *needle)
{
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(def, &err);
    CHECK(a == NULL);
    CHECK(err.status == CR_BAD_INPUT);
    if (!strstr(err.message, needle)) {
        fprintf(stderr, "[%s] message '%s' lacks '%s'\n", check_current, err.message, needle);
        check_failures++;
    }
    cr_assembly_destroy(a);
}

static void test_bad_references(void)
{
    cr_section_segment sec = resultants(1e4, 1e4, 1, 1, 1);
    cr_bc_def clamp = cr_bc_default_def();
    cr_rod_def A = straight_rod(&sec, 1.0, 4), B = straight_rod(&sec, 1.0, 4);
    A.bcs = &clamp, A.bc_count = 1;
    B.reference.origin = cr_v3(1, 0, 0);
    cr_assembly_rod_def rods[2] = {named("arm", A), named("finger", B)};
    cr_joint_def j = joint(CR_JOINT_BALL, 0, -1, 1, 0);
    cr_assembly_def def = {.rod_count = 2, .rods = rods, .joint_count = 1, .joints = &j};
    cr_error err = {0};
    cr_assembly *ok = cr_assembly_create(&def, &err);
    CHECK(ok != NULL);
    CHECK(cr_assembly_rod_index(ok, "finger") == 1 && cr_assembly_rod_index(ok, "thumb") == -1);
    cr_assembly_destroy(ok);
    j.b.rod = 2;
    expect_error(&def, "joints.0.b.rod: unknown rod 2");
    j.b.rod = 1, j.b.node = 5;
    expect_error(&def, "joints.0.b.node: node 5 is out of range for rod 'finger'");
    j.b.node = -6;
    expect_error(&def, "joints.0.b.node: node -6");
    j.b.node = 1; /* s = 0.25 of the finger: 0.25 m from the arm's end: a gap the first static solve closes */
    strcpy(j.name, "wrist");
    ok = cr_assembly_create(&def, &err);
    CHECK(ok != NULL);
    cr_assembly_destroy(ok);
    j.a.node = -1;
    j.type = CR_JOINT_HINGE, j.axis = cr_v3(0, 0, 0);
    expect_error(&def, "joints.0 ('wrist').axis");
    j.type = CR_JOINT_PRISMATIC;
    expect_error(&def, "joints.0 ('wrist').axis: a prismatic joint needs a finite nonzero axis");
    j.type = CR_JOINT_UNIVERSAL, j.axis = cr_v3(0, 1, 0), j.axis_b = cr_v3(0, 0.1, 1);
    expect_error(&def, "joints.0 ('wrist').axis_b: must be perpendicular to axis");
    j.axis_b = cr_v3(0, 0, 0);
    expect_error(&def, "joints.0 ('wrist').axis_b: a universal joint needs a finite nonzero axis_b");
    j.type = CR_JOINT_WELD;
    strcpy(rods[1].name, "arm");
    expect_error(&def, "rods.1.name: 'arm' is also the name of rods.0");
    rods[1].name[0] = '\0';
    expect_error(&def, "rods.1.name");
    strcpy(rods[1].name, "finger");
    def.joint_count = 0;
    expect_error(&def, "rods.1 ('finger'): neither a support nor a joint holds it");
    def.joint_count = 1;
    rods[1].rod.elements = 0;
    expect_error(&def, "rods.1 ('finger'): ");
}

/* ---- the welded hub: load steps along the path's tangent ---- */
/* Six steel arms of 1 m (r = 5 mm, 40 elements each) from the corners of a hexagon to its
 * centre, clamped outside and welded at the hub, a vertical load P = 300 N at the hub: a
 * deflection of 1.4 % of the span that stretches the arms (their tension, not their bending,
 * carries most of the load: Newton meets a stiffening structure). By the star's symmetry each
 * arm carries P/6: every weld passes P/6 vertically to its arm (arm 0, loaded, keeps its sixth).
 * The load steps start from the tangent predictor and end on a chord, as one rod's
 * (cr_static_solve): 1 Newton iteration a step after the first three (the polynomial
 * extrapolation and a full confirming iteration took 2-4, 26 in all where this takes 14). */
static void test_hub_iterations(void)
{
    const int n = 40;
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.005;
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def hub = cr_load_default_def();
    const double P = 300;
    hub.type = CR_LOAD_FORCE, hub.node = -1, hub.value = cr_v3(0, 0, -P);
    cr_assembly_rod_def rods[6];
    cr_joint_def joints[5];
    for (int k = 0; k < 6; ++k) {
        const double th = k * PI / 3;
        cr_rod_def d = cr_rod_default_def();
        d.length = 1.0, d.elements = n, d.material = (cr_material){2.1e11, 8.1e10, 7850};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        d.reference.origin = cr_v3(cos(th), sin(th), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), th + PI);
        if (k == 0) d.loads = &hub, d.load_count = 1;
        char name[8];
        snprintf(name, sizeof name, "arm%d", k);
        rods[k] = named(name, d);
        if (k > 0) joints[k - 1] = joint(CR_JOINT_WELD, 0, -1, k, -1);
    }
    cr_assembly_def def = cr_assembly_default_def();
    def.rod_count = 6, def.rods = rods, def.joint_count = 5, def.joints = joints;
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    CHECK(a != NULL);
    if (!a) return;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = cr_static_default_options();
    o.stability = 0;
    cr_static_report rep = {0};
    CHECK(cr_assembly_static_solve(a, s, &o, &rep, &err) == CR_OK);
    const double dz = cr_state_position(cr_assembly_state_rod(s, 0), n).z;
    double worst = 0;
    for (int k = 0; k < 5; ++k) {
        cr_vec3 f;
        CHECK(cr_assembly_joint_reaction(a, s, k, &f, NULL) == CR_OK);
        worst = fmax(worst, fabs(fabs(f.z) - P / 6));
    }
    printf("welded hub: %d Newton iterations in %d load steps, hub at z = %.6f m, welds' vertical forces within "
           "%.2e N of P/6\n",
           rep.total_iterations, rep.step_count, dz, worst);
    CHECK(rep.step_count == 10);
    CHECK(rep.total_iterations <= 14);
    CHECK(dz < -0.01 && dz > -0.02);
    CHECK(worst < 1e-6 * P);
    cr_static_report_free(&rep);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

CHECK_MAIN(CASE(test_weld_equals_one_rod), CASE(test_weld_rigid_strains), CASE(test_weld_rotation),
           CASE(test_weld_kink), CASE(test_interior_joint), CASE(test_joint_jacobians), CASE(test_spring_jacobians),
           CASE(test_joint_springs_static), CASE(test_joint_limits_static), CASE(test_three_hinged_arch),
           CASE(test_ball_prop), CASE(test_mechanism), CASE(test_ring), CASE(test_redundant_joints),
           CASE(test_bad_references), CASE(test_prismatic), CASE(test_cylindrical), CASE(test_universal),
           CASE(test_hub_iterations))
