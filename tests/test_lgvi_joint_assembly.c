/* Hinges and universal joints of LGVI assemblies (src/lgvi/assembly.c: their rows closed at
 * every step) against independent references:
 *   free flight   three rods meeting at one node, b on a hinge (axis h, a's frame), c on a
 *                 universal joint (axes h_a, h_b), kicked by a load pulse, then free (the two
 *                 joints share a's node: their rows are solved together). The rows measured
 *                 from the nodes' frames, |A_a h × A_b h'| and (A_a h_a)·(A_c h_b'), the primed
 *                 axes carried into b's and c's frames by the reference, stay at round-off
 *                 (1e-12) while b turns freely about the hinge (> 0.1 rad); Σ p and
 *                 Σ (x × p + R μ) constant to 1e-12 of their size (discrete Noether: the rows'
 *                 couples are equal and opposite), the energy within a bounded band
 *   slides        the same with b on a prismatic and c on a cylindrical joint along one axis h:
 *                 b keeps its reference orientation relative to a, c's copy of h stays along a's,
 *                 both nodes stay on the line through a's node along h (1e-13 m) while they slide
 *                 along it; the momenta and the energy as above
 *   ball          the same with both joints balls: the same measures are far from zero (they
 *                 can fail)
 *   redundant     a hinge between two nodes that a weld chain already joins holds identically:
 *                 the same motion as without it, to round-off */
#include "check.h"
#include "cosserat/cosserat.h"
#include "model/formulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAT "\"material\": {\"E\": 1e7, \"G\": 4e6, \"rho\": 1000}"
#define SEC "\"sections\": [{\"shape\": \"circle\", \"radius\": 0.01}]"

/* the references' orientations (a: the identity) */
static const double QB[4] = {0.7071067811865476, 0, 0, 0.7071067811865476};
static const double QC[4] = {0.6324555320336759, 0.31622776601683794, -0.31622776601683794, 0.6324555320336759};

typedef struct rec {
    int n;
    cr_vec3 P[64], L[64];
    double E[64], stored[64];
    double hinge, universal, turn;    /* largest row violations, largest turn of b about the hinge */
    int slides;                       /* b on a prismatic joint, c on a cylindrical one (axis h) */
    double prism, cyl, offline, slid; /* their rotation rows, the points' largest distance off the axis, the slide */
} rec;

static cr_quat pose_q(cr_sim *sim, int node)
{
    cr_vec3 x;
    cr_quat q;
    sim->f->node_pose(sim->impl, node, &x, &q);
    return cr_q_normalize(q);
}

/* nodes: a 0..8, b 9..17, c 18..24; the joint node is a's 8, b's 9, c's 18 */
static int on_output(cr_sim *sim, const cr_dynamic_sample *s, void *user)
{
    rec *r = user;
    if (r->n < 64) {
        r->P[r->n] = s->momentum, r->L[r->n] = s->angular_momentum;
        r->E[r->n] = s->kinetic + s->elastic - s->work_external;
        r->stored[r->n] = s->kinetic + s->elastic;
        r->n++;
    }
    const cr_quat qa = pose_q(sim, 8), qb = pose_q(sim, 9), qc = pose_q(sim, 18);
    const cr_quat qb0 = cr_q(QB[0], QB[1], QB[2], QB[3]), qc0 = cr_q(QC[0], QC[1], QC[2], QC[3]);
    const cr_vec3 h = cr_v3_normalize(cr_v3(0, 0.6, 0.8)), ha = cr_v3_normalize(cr_v3(1, 1, 0)),
                  hb = cr_v3_normalize(cr_v3(-1, 1, 1));
    /* a's reference frame is the identity: a vector fixed to b (c) is qb0ᵀ (qc0ᵀ) of a's */
    const cr_vec3 H = cr_m3_mulv(cr_q_exp(qa), h);
    const cr_vec3 Hb = cr_m3_mulv(cr_q_exp(qb), cr_m3_tmulv(cr_q_exp(qb0), h));
    r->hinge = fmax(r->hinge, cr_v3_norm(cr_v3_cross(H, Hb)));
    const cr_vec3 Ha = cr_m3_mulv(cr_q_exp(qa), ha), Hc = cr_m3_mulv(cr_q_exp(qc), cr_m3_tmulv(cr_q_exp(qc0), hb));
    r->universal = fmax(r->universal, fabs(cr_v3_dot(Ha, Hc)));
    /* b's rotation relative to a, from the reference's: qaᵀ qb qb0ᵀ */
    cr_quat d = cr_q_mul(cr_q_mul(cr_q_conj(qa), qb), cr_q_conj(qb0));
    r->turn = fmax(r->turn, 2.0 * atan2(cr_v3_norm(cr_q_vec(d)), fabs(d.w)));
    if (r->slides) {
        /* prismatic a-b: no relative rotation from the reference, b's node on the line through a's
         * along H; cylindrical a-c: c's copy of h along H, c's node on that line */
        r->prism = fmax(r->prism, 2.0 * atan2(cr_v3_norm(cr_q_vec(d)), fabs(d.w)));
        const cr_vec3 Hh = cr_m3_mulv(cr_q_exp(qc), cr_m3_tmulv(cr_q_exp(qc0), h));
        r->cyl = fmax(r->cyl, cr_v3_norm(cr_v3_cross(H, Hh)));
        const cr_vec3 xa = cr_sim_position(sim, 8), db = cr_v3_sub(cr_sim_position(sim, 9), xa),
                      dc = cr_v3_sub(cr_sim_position(sim, 18), xa);
        r->offline = fmax(r->offline, fmax(cr_v3_norm(cr_v3_cross(db, H)), cr_v3_norm(cr_v3_cross(dc, H))));
        r->slid = fmax(r->slid, fmin(fabs(cr_v3_dot(db, H)), fabs(cr_v3_dot(dc, H))));
    }
    return 0;
}

static void scenario(char *json, size_t size, const char *j0, const char *j1, const char *extra)
{
    snprintf(json, size,
             "{\"model\": \"lgvi\", \"rods\": ["
             "{\"name\": \"a\", \"length\": 0.5, \"elements\": 8, " MAT ", " SEC "},"
             "{\"name\": \"b\", \"length\": 0.5, \"elements\": 8, " MAT ", " SEC
             ", \"reference\": {\"origin\": [0.5, 0, 0], \"quaternion\": [%.16g, %.16g, %.16g, %.16g]}},"
             "{\"name\": \"c\", \"length\": 0.4, \"elements\": 6, " MAT
             ", \"sections\": [{\"shape\": \"rectangle\", \"width\": 0.02, \"height\": 0.01}], \"reference\": "
             "{\"origin\": [0.5, 0, 0], \"quaternion\": [%.16g, %.16g, %.16g, %.16g]}}],"
             "\"joints\": [%s, %s%s],"
             "\"loads\": [{\"type\": \"force\", \"node\": \"a:start\", \"value\": [0, 0.3, 0.5], \"time\": {\"type\": "
             "\"sine\", \"frequency\": 10, \"amplitude\": 1, \"t0\": 0, \"t1\": 0.05}}, {\"type\": \"moment\", "
             "\"node\": \"b:end\", \"value\": [0.01, 0.004, 0.006], \"time\": {\"type\": \"sine\", \"frequency\": 10, "
             "\"amplitude\": 1, \"t0\": 0, \"t1\": 0.05}}, {\"type\": \"moment\", \"node\": \"c:end\", \"value\": "
             "[0.002, 0, 0.003], \"time\": {\"type\": \"sine\", \"frequency\": 10, \"amplitude\": 1, \"t0\": 0, "
             "\"t1\": 0.05}}],"
             "\"stages\": [{\"type\": \"dynamic\", \"t_end\": 1.0, \"output_dt\": 0.05, \"time_step\": 2e-5}]}",
             QB[0], QB[1], QB[2], QB[3], QC[0], QC[1], QC[2], QC[3], j0, j1, extra);
}

#define HINGE "{\"type\": \"hinge\", \"name\": \"knee\", \"a\": \"a:end\", \"b\": \"b:start\", \"axis\": [0, 0.6, 0.8]}"
#define UNIV                                                                                                           \
    "{\"type\": \"universal\", \"name\": \"cardan\", \"a\": \"a:end\", \"b\": \"c:start\", \"axis\": [1, 1, 0], "      \
    "\"axis_b\": [-1, 1, 1]}"

/* Runs the scenario's stage; the sim (caller destroys) or NULL. */
static cr_sim *run(const char *json, rec *r)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, NULL, 0, &sc, &err) != CR_OK) fprintf(stderr, "load: %s\n", err.message);
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

static void free_flight(void)
{
    static char json[8192];
    scenario(json, sizeof json, HINGE, UNIV, "");
    rec r = {0};
    cr_sim *sim = run(json, &r);
    if (!sim) return;
    CHECK(r.n == 21);
    const int k0 = 2; /* the first output after the pulse (t = 0.1 s) */
    double dP = 0, dL = 0, dE = 0, E0 = r.E[k0], P0 = cr_v3_norm(r.P[k0]), L0 = cr_v3_norm(r.L[k0]);
    for (int k = k0; k < r.n; ++k) {
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(r.P[k], r.P[k0])));
        dL = fmax(dL, cr_v3_norm(cr_v3_sub(r.L[k], r.L[k0])));
        dE = fmax(dE, fabs(r.E[k] - E0));
    }
    const double Ls = L0 + 1.0 * P0, S = r.stored[k0];
    printf("  hinge row |A_a h x A_b h'| <= %.3g, universal row <= %.3g; b turned about the hinge by up to %.3g rad\n",
           r.hinge, r.universal, r.turn);
    printf("  after the pulse: |P| = %.6g, |L| = %.6g, drift %.3g / %.3g (relative %.2g, %.2g of |L| + 1 m |P|); "
           "energy %.6g J, band %.3g J (%.2g)\n",
           P0, L0, dP, dL, dP / P0, dL / Ls, S, dE, dE / S);
    CHECK(r.hinge <= 1e-12);
    CHECK(r.universal <= 1e-12);
    CHECK(r.turn > 0.1);
    CHECK(P0 > 1e-2 && L0 > 1e-4);
    CHECK(dP <= 1e-12 * P0);
    CHECK(dL <= 1e-12 * Ls);
    CHECK(dE <= 1e-3 * S);
    /* the joints' node: one point */
    CHECK(cr_v3_norm(cr_v3_sub(cr_sim_position(sim, 8), cr_sim_position(sim, 9))) == 0.0);
    CHECK(cr_v3_norm(cr_v3_sub(cr_sim_position(sim, 8), cr_sim_position(sim, 18))) == 0.0);
    cr_sim_destroy(sim);
}

/* b on a prismatic joint, c on a cylindrical one, both along h from a's end node: slide rows
 * (forces on the two points and their couple on a) and rotation rows together */
static void free_flight_slides(void)
{
    static char json[8192];
    scenario(json, sizeof json,
             "{\"type\": \"prismatic\", \"name\": \"slider\", \"a\": \"a:end\", \"b\": \"b:start\", \"axis\": "
             "[0, 0.6, 0.8]}",
             "{\"type\": \"cylindrical\", \"name\": \"sleeve\", \"a\": \"a:end\", \"b\": \"c:start\", "
             "\"axis\": [0, 0.6, 0.8]}",
             "");
    rec r = {.slides = 1};
    cr_sim *sim = run(json, &r);
    if (!sim) return;
    CHECK(r.n == 21);
    const int k0 = 2;
    double dP = 0, dL = 0, dE = 0, E0 = r.E[k0], P0 = cr_v3_norm(r.P[k0]), L0 = cr_v3_norm(r.L[k0]);
    for (int k = k0; k < r.n; ++k) {
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(r.P[k], r.P[k0])));
        dL = fmax(dL, cr_v3_norm(cr_v3_sub(r.L[k], r.L[k0])));
        dE = fmax(dE, fabs(r.E[k] - E0));
    }
    const double Ls = L0 + 1.0 * P0, S = r.stored[k0];
    printf("  prismatic: relative rotation <= %.3g rad; cylindrical row |A_a h x A_c h'| <= %.3g; the nodes off the "
           "axis <= %.3g m, slid by up to %.3g m\n",
           r.prism, r.cyl, r.offline, r.slid);
    printf("  after the pulse: |P| = %.6g, |L| = %.6g, drift %.3g / %.3g (relative %.2g, %.2g of |L| + 1 m |P|); "
           "energy %.6g J, band %.3g J (%.2g)\n",
           P0, L0, dP, dL, dP / P0, dL / Ls, S, dE, dE / S);
    CHECK(r.prism <= 1e-12 && r.cyl <= 1e-12);
    CHECK(r.offline <= 1e-13);
    CHECK(r.slid > 1e-3);
    CHECK(r.turn <= 1e-12); /* (the prismatic's measure through the hinge's: b does not turn) */
    CHECK(P0 > 1e-2 && L0 > 1e-4);
    CHECK(dP <= 1e-12 * P0);
    CHECK(dL <= 1e-12 * Ls);
    CHECK(dE <= 1e-3 * S);
    cr_sim_destroy(sim);
}

/* the same with balls: the measures of the rows are not at round-off (the test can fail) */
static void balls_break_the_rows(void)
{
    static char json[8192];
    scenario(json, sizeof json, "{\"type\": \"ball\", \"a\": \"a:end\", \"b\": \"b:start\"}",
             "{\"type\": \"ball\", \"a\": \"a:end\", \"b\": \"c:start\"}", "");
    rec r = {0};
    cr_sim *sim = run(json, &r);
    printf("  balls: the hinge's measure reaches %.3g, the universal joint's %.3g\n", r.hinge, r.universal);
    CHECK(r.hinge > 1e-2 && r.universal > 1e-2);
    cr_sim_destroy(sim);
}

/* b welded to a through c (weld a-c, weld c-b at one node) and a hinge a-b besides: the hinge's
 * two nodes turn as one unit, so its rows hold identically; the motion is the welds' alone */
static void redundant_hinge(void)
{
    static char j1[8192], j2[8192];
    const char *w0 = "{\"type\": \"weld\", \"a\": \"a:end\", \"b\": \"c:start\"}";
    const char *w1 = "{\"type\": \"weld\", \"a\": \"c:start\", \"b\": \"b:start\"}";
    scenario(j1, sizeof j1, w0, w1, "");
    scenario(j2, sizeof j2, w0, w1, ", " HINGE);
    rec r1 = {0}, r2 = {0};
    cr_sim *s1 = run(j1, &r1), *s2 = run(j2, &r2);
    if (s1 && s2) {
        double d = 0;
        for (int i = 0; i < cr_sim_node_count(s1); ++i)
            d = fmax(d, cr_v3_norm(cr_v3_sub(cr_sim_position(s1, i), cr_sim_position(s2, i))));
        printf("  redundant hinge: max |dx| = %.3g m\n", d);
        CHECK(d == 0.0);
    }
    cr_sim_destroy(s1);
    cr_sim_destroy(s2);
}

CHECK_MAIN(CASE(free_flight), CASE(free_flight_slides), CASE(balls_break_the_rows), CASE(redundant_hinge))
