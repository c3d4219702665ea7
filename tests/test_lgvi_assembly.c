/* Assemblies of LGVI rods (src/lgvi/assembly.c: joints as shared nodes) against independent
 * references:
 *   weld = one rod     two rods welded end to end at coincident ends move as the one rod of
 *                      the same elements (the same discrete Lagrangian): every node, 1e-10 m
 *   free flight        three rods (a ball joint, a weld with a relative rotation, unequal
 *                      sections: the welded node's inertia is not diagonal in any rod's frame),
 *                      kicked by a load pulse, then free: Σ p and Σ (x × p + R μ) constant to
 *                      1e-12 of their size (discrete Noether), the energy within a bounded band
 *   interior joint     a branch welded to an interior node = the main rod cut there and three rods
 *                      welded at one node: every node to 1e-12 m, the momenta to 1e-14
 *   refusals           what the shared nodes cannot represent, named at check
 *   layout             the rods' node and element numbering through the formulation table */
#include "check.h"
#include "cosserat/cosserat.h"
#include "model/formulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cr_scenario *load(const char *json, cr_error *err)
{
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, NULL, 0, &sc, err) != CR_OK) fprintf(stderr, "load: %s\n", err->message);
    return sc;
}

typedef struct rec {
    int n;
    double t[64];
    cr_vec3 P[64], L[64];
    double E[64], stored[64];
} rec;

static int on_output(cr_sim *sim, const cr_dynamic_sample *s, void *user)
{
    (void)sim;
    rec *r = user;
    if (r->n < 64) {
        r->t[r->n] = s->t, r->P[r->n] = s->momentum, r->L[r->n] = s->angular_momentum;
        r->E[r->n] = s->kinetic + s->elastic - s->work_external;
        r->stored[r->n] = s->kinetic + s->elastic;
        r->n++;
    }
    return 0;
}

/* Runs the scenario's first stage (dynamic); the sim (caller destroys) or NULL. */
static cr_sim *run(const char *json, rec *r)
{
    cr_error err = {0};
    cr_scenario *sc = load(json, &err);
    CHECK(sc != NULL);
    if (!sc) return NULL;
    cr_status st = cr_scenario_check(sc, &err);
    if (st != CR_OK) fprintf(stderr, "check: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_sim *sim = st == CR_OK ? cr_sim_create_scenario(sc, &err) : NULL;
    CHECK(sim != NULL);
    if (sim) {
        cr_stage_callbacks cb = {.on_output = on_output, .user = r};
        cr_dynamic_report rep;
        memset(&rep, 0, sizeof rep);
        st = sim->f->dynamic_stage(sim, 0, 0.0, 0.0, 0.0, &sc->stages[0].dynamics, &cb, &rep, &err);
        if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
        CHECK(st == CR_OK);
    }
    cr_scenario_destroy(sc);
    return sim;
}

#define MAT "\"material\": {\"E\": 1e7, \"G\": 4e6, \"rho\": 1000}"
#define SEC "\"sections\": [{\"shape\": \"circle\", \"radius\": 0.01}]"
#define STAGE "\"stages\": [{\"type\": \"dynamic\", \"t_end\": 0.3, \"output_dt\": 0.05, \"time_step\": 5e-5}]"

/* A cantilever under gravity and a transverse tip force (bending in two planes and twist),
 * standard model, both strain frames: welded halves against the one rod. */
static void weld_equals_one_rod(void)
{
    const char *strains[] = {"left", "midpoint"};
    for (int k = 0; k < 2; ++k) {
        char one[2048], two[2048];
        snprintf(one, sizeof one,
                 "{\"model\": {\"type\": \"lgvi\", \"strains\": \"%s\"}, \"rod\": {\"length\": 1.0, \"elements\": 20, "
                 "" MAT ", " SEC "}, \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"start\"}], "
                 "\"loads\": [{\"type\": \"gravity\", \"value\": [0, 0, -9.81]}, {\"type\": \"force\", \"node\": "
                 "\"end\", \"value\": [0, 0.02, 0]}, {\"type\": \"moment\", \"node\": \"end\", \"value\": [0.001, 0, "
                 "0]}], " STAGE "}",
                 strains[k]);
        snprintf(two, sizeof two,
                 "{\"model\": {\"type\": \"lgvi\", \"strains\": \"%s\"}, \"rods\": [{\"name\": \"a\", \"length\": "
                 "0.5, \"elements\": 10, " MAT ", " SEC "}, {\"name\": \"b\", \"length\": 0.5, \"elements\": 10, " MAT
                 ", " SEC ", \"reference\": {\"origin\": [0.5, 0, 0]}}], \"joints\": [{\"type\": \"weld\", \"a\": "
                 "\"a:end\", \"b\": \"b:start\"}], \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": "
                 "\"a:start\"}], \"loads\": [{\"type\": \"gravity\", \"value\": [0, 0, -9.81]}, {\"type\": "
                 "\"force\", \"node\": \"b:end\", \"value\": [0, 0.02, 0]}, {\"type\": \"moment\", \"node\": "
                 "\"b:end\", \"value\": [0.001, 0, 0]}], " STAGE "}",
                 strains[k]);
        rec r1 = {0}, r2 = {0};
        cr_sim *s1 = run(one, &r1), *s2 = run(two, &r2);
        if (!s1 || !s2) {
            cr_sim_destroy(s1), cr_sim_destroy(s2);
            continue;
        }
        CHECK(cr_sim_rod_count(s2) == 2 && cr_sim_node_count(s2) == 22 && cr_sim_rod_first_node(s2, 1) == 11);
        double d = 0, tip = 0;
        for (int i = 0; i <= 20; ++i) {
            int j = i <= 10 ? i : i + 1; /* b's node 0 is a's node 10 */
            d = fmax(d, cr_v3_norm(cr_v3_sub(cr_sim_position(s1, i), cr_sim_position(s2, j))));
        }
        d = fmax(d, cr_v3_norm(cr_v3_sub(cr_sim_position(s2, 10), cr_sim_position(s2, 11))));
        tip = cr_v3_norm(cr_v3_sub(cr_sim_position(s1, 20), cr_v3(1, 0, 0)));
        /* the rotations too: the welded node's two frames are a's, and b's = a's (Q = I) */
        cr_quat qa, qb, q1;
        cr_vec3 x;
        s2->f->node_pose(s2->impl, 10, &x, &qa);
        s2->f->node_pose(s2->impl, 11, &x, &qb);
        s1->f->node_pose(s1->impl, 10, &x, &q1);
        double dq = fmin(cr_v3_norm(cr_q_vec(cr_q_sub(qa, qb))) + fabs(qa.w - qb.w),
                         cr_v3_norm(cr_q_vec(cr_q_add(qa, qb))) + fabs(qa.w + qb.w));
        double dq1 = fmin(cr_v3_norm(cr_q_vec(cr_q_sub(qa, q1))) + fabs(qa.w - q1.w),
                          cr_v3_norm(cr_q_vec(cr_q_add(qa, q1))) + fabs(qa.w + q1.w));
        printf("  %s: tip moved %.4g m; max |x_one - x_weld| = %.3g m, weld frames %.3g, vs one rod %.3g; energy "
               "%.10g vs %.10g\n",
               strains[k], tip, d, dq, dq1, r1.E[r1.n - 1], r2.E[r2.n - 1]);
        CHECK(tip > 0.1);
        CHECK(d <= 1e-10);
        CHECK(dq <= 1e-12 && dq1 <= 1e-10);
        CHECK(r1.n == r2.n && fabs(r1.E[r1.n - 1] - r2.E[r2.n - 1]) <= 1e-10 * fabs(r1.E[r1.n - 1]) + 1e-14);
        cr_sim_destroy(s1);
        cr_sim_destroy(s2);
    }
}

/* Three rods in space: a along x, b along y from a's end (ball), c from b's end rising at
 * 53° (weld: the reference's relative rotation kept), c with a rectangular section. A force
 * pulse on a's start and a moment pulse on c's end (one sine period in [0, 0.05] s), then
 * free flight to 1 s: no supports, no gravity. */
static void free_flight_momenta(void)
{
    const char *json =
        "{\"model\": \"lgvi\", \"rods\": ["
        "{\"name\": \"a\", \"length\": 0.5, \"elements\": 8, " MAT ", " SEC "},"
        "{\"name\": \"b\", \"length\": 0.5, \"elements\": 8, " MAT ", " SEC ", \"reference\": {\"origin\": [0.5, 0, "
        "0], \"quaternion\": [0.7071067811865476, 0, 0, 0.7071067811865476]}},"
        "{\"name\": \"c\", \"length\": 0.4, \"elements\": 6, " MAT ", \"sections\": [{\"shape\": \"rectangle\", "
        "\"width\": 0.02, \"height\": 0.01}], \"reference\": {\"origin\": [0.5, 0.5, 0], \"quaternion\": "
        "[0.6324555320336759, 0.31622776601683794, -0.31622776601683794, 0.6324555320336759]}}],"
        "\"joints\": [{\"type\": \"ball\", \"a\": \"a:end\", \"b\": \"b:start\"}, {\"type\": \"weld\", \"name\": "
        "\"kink\", \"a\": \"b:end\", \"b\": \"c:start\"}],"
        "\"loads\": [{\"type\": \"force\", \"node\": \"a:start\", \"value\": [0, 0, 0.5], \"time\": {\"type\": "
        "\"sine\", \"frequency\": 10, \"amplitude\": 1, \"t0\": 0, \"t1\": 0.05}}, {\"type\": \"moment\", \"node\": "
        "\"c:end\", \"value\": [0.01, 0, 0.003], \"time\": {\"type\": \"sine\", \"frequency\": 10, \"amplitude\": 1, "
        "\"t0\": 0, \"t1\": 0.05}}],"
        "\"stages\": [{\"type\": \"dynamic\", \"t_end\": 1.0, \"output_dt\": 0.05, \"time_step\": 2e-5}]}";
    rec r = {0};
    cr_sim *sim = run(json, &r);
    if (!sim) return;
    CHECK(r.n == 21);
    /* from the first output after the pulse (t = 0.1 s) */
    int k0 = 2;
    double dP = 0, dL = 0, dE = 0, E0 = r.E[k0], P0 = cr_v3_norm(r.P[k0]), L0 = cr_v3_norm(r.L[k0]);
    for (int k = k0; k < r.n; ++k) {
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(r.P[k], r.P[k0])));
        dL = fmax(dL, cr_v3_norm(cr_v3_sub(r.L[k], r.L[k0])));
        dE = fmax(dE, fabs(r.E[k] - E0));
    }
    /* the round-off of Σ x × p is relative to |x||p|, the assembly's size (1 m) times |P| */
    const double Ls = L0 + 1.0 * P0, S = r.stored[k0];
    printf("  after the pulse: |P| = %.6g, |L| = %.6g, drift %.3g / %.3g (relative %.2g, %.2g of |L| + 1 m |P|); "
           "energy %.6g J, band %.3g J (%.2g)\n",
           P0, L0, dP, dL, dP / P0, dL / Ls, S, dE, dE / S);
    CHECK(P0 > 1e-2 && L0 > 1e-4);
    CHECK(dP <= 1e-12 * P0);
    CHECK(dL <= 1e-12 * Ls);
    CHECK(dE <= 1e-3 * S);
    /* the joints hold: the ball's and the weld's nodes coincide */
    CHECK(cr_v3_norm(cr_v3_sub(cr_sim_position(sim, 8), cr_sim_position(sim, 9))) == 0.0);
    CHECK(cr_v3_norm(cr_v3_sub(cr_sim_position(sim, 17), cr_sim_position(sim, 18))) == 0.0);
    /* the weld keeps the reference's relative rotation of b's end and c's start */
    cr_vec3 x;
    cr_quat qb, qc;
    sim->f->node_pose(sim->impl, 17, &x, &qb);
    sim->f->node_pose(sim->impl, 18, &x, &qc);
    cr_quat rel = cr_q_mul(cr_q_conj(qb), qc);
    cr_quat want = cr_q_mul(cr_q_conj(cr_q(0.7071067811865476, 0, 0, 0.7071067811865476)),
                            cr_q(0.6324555320336759, 0.31622776601683794, -0.31622776601683794, 0.6324555320336759));
    double err = 2.0 * acos(fmin(1.0, fabs(cr_q_dot(cr_q_normalize(rel), want))));
    /* and the ball does not: a's end and b's start turn apart */
    cr_quat qa;
    sim->f->node_pose(sim->impl, 8, &x, &qa);
    sim->f->node_pose(sim->impl, 9, &x, &qb);
    double ball = 2.0 * acos(fmin(1.0, fabs(cr_q_dot(cr_q_mul(cr_q_conj(qa), qb),
                                                     cr_q(0.7071067811865476, 0, 0, 0.7071067811865476)))));
    printf("  weld's relative rotation off by %.3g rad; the ball's by %.3g rad\n", err, ball);
    CHECK(err <= 1e-9);
    CHECK(ball > 1e-3);
    cr_sim_destroy(sim);
}

/* A branch welded to an interior node: rod "main" (20 elements) with "side" welded at its node
 * 10, against "main" cut into two rods there and the three welded at their ends (one node shared
 * by three rods). The same discrete Lagrangian: every node to round-off. Free flight with a
 * twisting and bending pulse, the side branch at 90° (a kink). */
static void interior_joint_equals_three_rods(void)
{
    const char *side = "{\"name\": \"side\", \"length\": 0.4, \"elements\": 8, " MAT ", " SEC
                       ", \"reference\": {\"origin\": [0.5, 0, 0], \"quaternion\": [0.7071067811865476, 0, "
                       "0.7071067811865476, 0]}}";
    const char *tail =
        "\"loads\": [{\"type\": \"force\", \"node\": \"side:end\", \"value\": [0.2, 0.3, 0], \"time\": {\"type\": "
        "\"sine\", \"frequency\": 10, \"amplitude\": 1, \"t0\": 0, \"t1\": 0.05}}, {\"type\": \"moment\", "
        "\"node\": \"%s\", \"value\": [0.004, 0.002, 0], \"time\": {\"type\": \"sine\", \"frequency\": 10, "
        "\"amplitude\": 1, \"t0\": 0, \"t1\": 0.05}}], \"stages\": [{\"type\": \"dynamic\", \"t_end\": 0.2, "
        "\"output_dt\": 0.05, \"time_step\": 2e-5}]}";
    char one[4096], three[4096], t1[1024], t3[1024];
    snprintf(t1, sizeof t1, tail, "main:end");
    snprintf(t3, sizeof t3, tail, "m2:end");
    snprintf(one, sizeof one,
             "{\"model\": \"lgvi\", \"rods\": [{\"name\": \"main\", \"length\": 1.0, \"elements\": 20, " MAT ", " SEC
             "}, %s], \"joints\": [{\"type\": \"weld\", \"a\": \"main:10\", \"b\": \"side:start\"}], %s",
             side, t1);
    snprintf(three, sizeof three,
             "{\"model\": \"lgvi\", \"rods\": [{\"name\": \"m1\", \"length\": 0.5, \"elements\": 10, " MAT ", " SEC
             "}, {\"name\": \"m2\", \"length\": 0.5, \"elements\": 10, " MAT ", " SEC
             ", \"reference\": {\"origin\": [0.5, 0, 0]}}, %s], \"joints\": [{\"type\": \"weld\", \"a\": \"m1:end\", "
             "\"b\": \"m2:start\"}, {\"type\": \"weld\", \"a\": \"m2:start\", \"b\": \"side:start\"}], %s",
             side, t3);
    rec r1 = {0}, r3 = {0};
    cr_sim *s1 = run(one, &r1), *s3 = run(three, &r3);
    if (s1 && s3) {
        CHECK(cr_sim_node_count(s1) == 30 && cr_sim_node_count(s3) == 31);
        double d = 0;
        for (int i = 0; i < 30; ++i) {
            int j = i <= 10 ? i : i + 1; /* m2's node 0 is m1's node 10 */
            d = fmax(d, cr_v3_norm(cr_v3_sub(cr_sim_position(s1, i), cr_sim_position(s3, j))));
        }
        double dP = cr_v3_norm(cr_v3_sub(r1.P[r1.n - 1], r3.P[r3.n - 1]));
        double dL = cr_v3_norm(cr_v3_sub(r1.L[r1.n - 1], r3.L[r3.n - 1]));
        printf("  interior weld vs three rods at one node: max |dx| = %.3g m, |dP| = %.3g, |dL| = %.3g (|P| = %.4g)\n",
               d, dP, dL, cr_v3_norm(r1.P[r1.n - 1]));
        CHECK(d <= 1e-12);
        CHECK(dP <= 1e-14 && dL <= 1e-14);
        CHECK(cr_v3_norm(r1.P[r1.n - 1]) > 1e-3);
    }
    cr_sim_destroy(s1);
    cr_sim_destroy(s3);
}

/* what the shared nodes cannot represent: named at check with the joint and the model */
static void refusals(void)
{
    const char *base =
        "{\"model\": \"lgvi\", \"rods\": [{\"name\": \"a\", \"length\": 0.5, \"elements\": 10, " MAT ", " SEC "}, "
        "{\"name\": \"b\", \"length\": 0.5, \"elements\": 10, " MAT ", " SEC ", \"reference\": {\"origin\": [0.5, 0, "
        "0]}}], \"joints\": [%s], \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"a:start\"}], %s"
        "\"stages\": [%s]}";
    const char *dyn = "{\"type\": \"dynamic\", \"t_end\": 0.01, \"output_dt\": 0.01, \"time_step\": 5e-5}";
    static const struct {
        const char *joint, *extra, *stage, *needle[3];
    } cases[] = {
        {"{\"type\": \"prismatic\", \"name\": \"elbow\", \"a\": \"a:end\", \"b\": \"b:start\", \"axis\": [1, 0, 0], "
         "\"stiffness\": 2, \"rest\": 0.01}",
         "",
         NULL,
         {"joints.0 ('elbow').rest", "static stage", "lgvi"}},
        {"{\"type\": \"cylindrical\", \"a\": \"a:end\", \"b\": \"b:start\", \"axis\": [1, 0, 0], \"slide_stiffness\": "
         "1, "
         "\"slide_rest\": 0.1}",
         "",
         NULL,
         {"joints.0.slide_rest", "static stage", "lgvi"}},
        {"{\"type\": \"hinge\", \"a\": \"a:end\", \"b\": \"b:start\", \"axis\": [0, 1, 0], \"stages\": [0]}",
         "",
         NULL,
         {"joints.0.stages", "limited to stages", "lgvi"}},
        {"{\"type\": \"weld\", \"a\": \"a:end\", \"b\": \"b:start\", \"rotation\": [0.9950041652780258, 0, "
         "0.09983341664682815, 0]}",
         "",
         NULL,
         {"joints.0.rotation", "0.2 rad", "lgvi"}},
        {"{\"type\": \"ball\", \"a\": \"a:end\", \"b\": \"b:start\"}",
         "",
         "{\"type\": \"static\"}",
         {"stages.0.type", "lgvi", "rods.0"}},
        {"{\"type\": \"ball\", \"a\": \"a:end\", \"b\": \"b:start\"}",
         "\"rigid_bodies\": [{\"name\": \"tool\", \"node\": \"b:end\", "
         "\"mass\": 1, \"center\": [1, 0, 0], \"inertia\": [1, 1, 1]}], ",
         NULL,
         {"rigid_bodies", "lgvi", "rods.1"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char json[4096];
        snprintf(json, sizeof json, base, cases[k].joint, cases[k].extra, cases[k].stage ? cases[k].stage : dyn);
        cr_error err = {0};
        cr_scenario *sc = load(json, &err);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_status st = cr_scenario_check(sc, &err);
        printf("  %s\n", err.message);
        CHECK(st != CR_OK);
        for (int n = 0; n < 3; ++n) CHECK(strstr(err.message, cases[k].needle[n]) != NULL);
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(weld_equals_one_rod), CASE(free_flight_momenta), CASE(interior_joint_equals_three_rods), CASE(refusals))
