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
    const int N = 10;
    cr_section_segment sec = resultants(1e4, 1e4, 0.7, 1.0, 1.0);
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, -2, 1);
    cr_static_options o = tight();
    /* the reference: one rod of 2N elements */
    cr_rod_def one = straight_rod(&sec, 1.0, 2 * N);
    one.bcs = &clamp, one.bc_count = 1, one.loads = &tip, one.load_count = 1;
    cr_model *m1 = cr_model_create(&one, NULL);
    cr_state *s1 = cr_state_create(m1);
    CHECK(cr_static_solve(m1, s1, &o, NULL, NULL, NULL, NULL) == CR_OK);
    /* the assembly: two halves welded at s = 0.5 */
    cr_rod_def A = straight_rod(&sec, 0.5, N), B = straight_rod(&sec, 0.5, N);
    A.bcs = &clamp, A.bc_count = 1;
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
    printf("weld: tip (%.12f, %.12f, %.12f); max |r - r_one| %.3g m, |q - q_one|^2 %.3g\n", tip_r.x, tip_r.y,
           tip_r.z, dr, dq);
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
    half.bcs = both, half.bc_count = 2;
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
    j.b.node = 1; /* s = 0.25 of the finger: 0.25 m from the arm's end */
    strcpy(j.name, "wrist");
    expect_error(&def, "joints.0 ('wrist'): its points (node 4 of rod 'arm' and node 1 of rod 'finger') are 0.25 m apart");
    j.b.node = 0, j.a.node = 0;
    expect_error(&def, "joints.0 ('wrist').a: node 0 of rod 'arm' also carries rods.0.boundary_conditions.0");
    j.a.node = -1;
    j.type = CR_JOINT_HINGE, j.axis = cr_v3(0, 0, 0);
    expect_error(&def, "joints.0 ('wrist').axis");
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

CHECK_MAIN(CASE(test_weld_equals_one_rod), CASE(test_bad_references))
