/* output.track (recorded points): the parsed definitions and the default, and one
 * case per class of bad input — each must give CR_BAD_INPUT with a message naming
 * the key (output.track.K.name / .node / .s). Name clashes with other series.csv
 * columns are found by cr_scenario_check (the columns depend on the formulation).
 * The runs themselves are checked against the written files in tests/track.sh. */
#include "check.h"

#include "cosserat/output.h"
#include "cosserat/scenario.h"

#include <string.h>

/* JSON with ' for " (a static buffer, valid until the next call). */
static const char *q(const char *s)
{
    static char buf[4096];
    size_t n = strlen(s);
    if (n >= sizeof buf) n = sizeof buf - 1;
    for (size_t i = 0; i < n; ++i) buf[i] = s[i] == '\'' ? '"' : s[i];
    buf[n] = '\0';
    return buf;
}

/* length 2, 10 elements: nodes 0..10 (or -11..-1), s in [0, 2] */
#define ROD                                                                                      \
    "'rod': {'length': 2, 'elements': 10, 'material': {'E': 1e9, 'G': 4e8, 'rho': 1000},"        \
    " 'sections': [{'shape': 'circle', 'radius': 0.01}]}"

/* ROD clamped at its start: what cr_scenario_check accepts with the default static stage (a
 * free rod has no equilibrium) */
#define CLAMPED ROD ", 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}]"

static cr_scenario *load(const char *json, cr_error *err)
{
    cr_scenario *sc = NULL;
    cr_status s = cr_scenario_load_string(q(json), NULL, 0, &sc, err);
    return s == CR_OK ? sc : NULL;
}

/* CR_BAD_INPUT at load, no scenario, and a message containing `needle`. */
static void expect_bad(int line, const char *json, const char *needle)
{
    cr_error err = {CR_OK, ""};
    cr_scenario *sc = (cr_scenario *)&err;
    cr_status s = cr_scenario_load_string(q(json), NULL, 0, &sc, &err);
    if (s != CR_BAD_INPUT || !strstr(err.message, needle)) {
        fprintf(stderr, "  line %d: status %d, message \"%s\", expected \"%s\"\n", line, (int)s, err.message,
                needle);
        check_failures++;
    }
    CHECK(sc == NULL);
    if (s == CR_OK) cr_scenario_destroy(sc);
}
#define EXPECT_BAD(track, needle) expect_bad(__LINE__, "{" ROD ", 'output': {'track': " track "}}", needle)

static void parsed(void)
{
    cr_error err = {CR_OK, ""};
    cr_scenario *sc =
        load("{" CLAMPED ", 'output': {'track': [{'name': 'a', 'node': 'start'}, {'name': 'B_2', 'node': -3},"
             " {'name': 'c', 's': 0.7}, {'name': 'd', 'node': 'end'}, {'name': 'e', 's': 2}]}}",
             &err);
    CHECK(sc != NULL);
    if (!sc) {
        fprintf(stderr, "  %s\n", err.message);
        return;
    }
    CHECK(sc->output.track_count == 5);
    CHECK(!strcmp(sc->output.track[0].name, "a") && !sc->output.track[0].by_s && sc->output.track[0].node == 0);
    CHECK(!strcmp(sc->output.track[1].name, "B_2") && sc->output.track[1].node == -3);
    CHECK(!strcmp(sc->output.track[2].name, "c") && sc->output.track[2].by_s && sc->output.track[2].s == 0.7);
    CHECK(sc->output.track[3].node == -1 && !sc->output.track[3].by_s);
    CHECK(sc->output.track[4].by_s && sc->output.track[4].s == 2);
    CHECK(cr_scenario_check(sc, &err) == CR_OK);
    cr_scenario_destroy(sc);

    /* an empty list records nothing */
    sc = load("{" ROD ", 'output': {'track': []}}", &err);
    CHECK(sc != NULL && sc->output.track_count == 0);
    cr_scenario_destroy(sc);
}

/* Without output.track: one point "tip" at the free end. */
static void default_tip(void)
{
    cr_error err = {CR_OK, ""};
    static const struct {
        const char *bcs;
        int node;
    } cases[] = {
        {"[]", -1},
        {"[{'type': 'clamp', 'node': 'start'}]", -1},
        {"[{'type': 'clamp', 'node': 'end'}]", 0},  /* Wilberforce: hung from its last node */
        {"[{'type': 'clamp', 'node': 10}]", 0},
        {"[{'type': 'clamp', 'node': 0}, {'type': 'clamp', 'node': -1}]", -1}, /* both held: the last */
        {"[{'type': 'clamp', 'node': 5}]", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char json[1024];
        snprintf(json, sizeof json, "{" ROD ", 'boundary_conditions': %s}", cases[k].bcs);
        cr_scenario *sc = load(json, &err);
        CHECK(sc != NULL);
        if (!sc) continue;
        CHECK(sc->output.track_count == 1);
        CHECK(!strcmp(sc->output.track[0].name, "tip"));
        CHECK(!sc->output.track[0].by_s && sc->output.track[0].node == cases[k].node);
        cr_scenario_destroy(sc);
    }
    /* a rigid body called tip has the columns tip_x, ...: the default point is rod_tip */
    cr_scenario *sc =
        load("{" CLAMPED ", 'rigid_bodies': [{'name': 'tip', 'node': 'end', 'mass': 1, 'center': [2, 0, 0],"
             " 'inertia': [1, 1, 1]}]}",
             &err);
    CHECK(sc != NULL && sc->output.track_count == 1 && !strcmp(sc->output.track[0].name, "rod_tip"));
    CHECK(sc && cr_scenario_check(sc, &err) == CR_OK);
    cr_scenario_destroy(sc);
}

static void bad_input(void)
{
    EXPECT_BAD("{'name': 'a', 'node': 1}", "output.track: expected an array");
    EXPECT_BAD("[3]", "output.track.0: expected an object");
    EXPECT_BAD("[{'name': 'a', 'node': 1, 'frame': 'body'}]", "output.track.0.frame: unknown key");
    /* names */
    EXPECT_BAD("[{'node': 1}]", "output.track.0.name: missing");
    EXPECT_BAD("[{'name': 7, 'node': 1}]", "output.track.0.name: expected a string");
    EXPECT_BAD("[{'name': '', 'node': 1}]", "output.track.0.name: expected 1-31 characters of A-Z, a-z, 0-9 and _");
    EXPECT_BAD("[{'name': 'tip x', 'node': 1}]", "output.track.0.name: expected 1-31 characters");
    EXPECT_BAD("[{'name': 'a-b', 'node': 1}]", "output.track.0.name: expected 1-31 characters");
    EXPECT_BAD("[{'name': 'abcdefghijabcdefghijabcdefghij12', 'node': 1}]", "output.track.0.name: expected 1-31");
    EXPECT_BAD("[{'name': 'a', 'node': 1}, {'name': 'b', 'node': 2}, {'name': 'a', 's': 1}]",
               "output.track.2.name: \"a\" is already the name of output.track.0");
    /* where */
    EXPECT_BAD("[{'name': 'a', 'node': 11}]", "output.track.0.node: node index must be in [-11, 10]");
    EXPECT_BAD("[{'name': 'a', 'node': -12}]", "output.track.0.node: node index must be in [-11, 10]");
    EXPECT_BAD("[{'name': 'a', 'node': 'middle'}]", "output.track.0.node: expected \"start\", \"end\" or an integer");
    EXPECT_BAD("[{'name': 'a', 'node': 2.5}]", "output.track.0.node");
    EXPECT_BAD("[{'name': 'a', 's': 2.5}]", "output.track.0.s: must be in [0, 2] (rod.length), got 2.5");
    EXPECT_BAD("[{'name': 'a', 's': -0.1}]", "output.track.0.s: must be >= 0");
    EXPECT_BAD("[{'name': 'a', 's': 'end'}]", "output.track.0.s: expected a number");
    EXPECT_BAD("[{'name': 'a', 'node': 1, 's': 0.5}]", "output.track.0: give either node or s, not both");
    EXPECT_BAD("[{'name': 'a'}]", "output.track.0: missing node or s");
}

/* A point whose columns are other columns of series.csv: found by the check, naming the key. */
static void name_clash(void)
{
    static const struct {
        const char *json, *needle;
    } cases[] = {
        {"{" CLAMPED ", 'output': {'track': [{'name': 'a', 'node': 1}, {'name': 'momentum', 'node': 2}]}}",
         "output.track.1.name: \"momentum\" gives the series.csv column momentum_x, which is already a column"},
        {"{" CLAMPED ", 'output': {'track': [{'name': 'angular_momentum', 'node': 2}]}}",
         "output.track.0.name: \"angular_momentum\" gives the series.csv column angular_momentum_x"},
        {"{" CLAMPED ", 'rigid_bodies': [{'name': 'bob', 'node': 'end', 'mass': 1, 'center': [2, 0, 0],"
         " 'inertia': [1, 1, 1]}], 'output': {'track': [{'name': 'bob', 'node': 'end'}]}}",
         "output.track.0.name: \"bob\" gives the series.csv column bob_x"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cr_error err = {CR_OK, ""};
        cr_scenario *sc = load(cases[k].json, &err);
        CHECK(sc != NULL);
        if (!sc) {
            fprintf(stderr, "  %s\n", err.message);
            continue;
        }
        cr_status s = cr_scenario_check(sc, &err);
        if (s != CR_BAD_INPUT || !strstr(err.message, cases[k].needle)) {
            fprintf(stderr, "  case %d: status %d, message \"%s\", expected \"%s\"\n", (int)k, (int)s, err.message,
                    cases[k].needle);
            check_failures++;
        }
        /* and the run refuses it before writing anything */
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        CHECK(cr_scenario_run(sc, &o, NULL, &err) == CR_BAD_INPUT && strstr(err.message, "output.track."));
        cr_scenario_destroy(sc);
    }
}

/* The rows of a run without files: the tracked columns follow the point order, at
 * the formulation's node (for the port-Hamiltonian rod, node i of the definition is
 * finite-element node 2i), and the result's positions agree. */
static void series_columns(void)
{
    cr_error err = {CR_OK, ""};
    static const char *models[] = {"mixed_discrete", "lgvi", "port_hamiltonian"};
    for (int m = 0; m < 3; ++m) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{'model': '%s', " ROD ", 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}],"
                 " 'loads': [{'type': 'force', 'node': 'end', 'value': [0, 0, -0.1]}],"
                 " 'stages': [{'type': 'dynamic', 't_end': 0.0002, 'output_dt': 0.0001%s}],"
                 " 'output': {'track': [{'name': 'p', 'node': 3}, {'name': 'q', 's': 1.01}]}}",
                 models[m], m ? ", 'time_step': 1e-5" : "");
        cr_scenario *sc = load(json, &err);
        CHECK(sc != NULL);
        if (!sc) {
            fprintf(stderr, "  %s: %s\n", models[m], err.message);
            continue;
        }
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        cr_run_result r;
        cr_status s = cr_scenario_run(sc, &o, &r, &err);
        CHECK(s == CR_OK);
        if (s != CR_OK) {
            fprintf(stderr, "  %s: %s\n", models[m], err.message);
            cr_run_result_free(&r);
            cr_scenario_destroy(sc);
            continue;
        }
        static const char *want[] = {"p_x", "p_y", "p_z", "p_p0", "p_p1", "p_p2", "p_p3",
                                     "q_x", "q_y", "q_z", "q_p0", "q_p1", "q_p2", "q_p3", "momentum_x"};
        CHECK(r.series_columns > 21 && r.series_rows > 0);
        for (int k = 0; k < 15 && k + 6 < r.series_columns; ++k) CHECK(!strcmp(r.series_names[6 + k], want[k]));
        int per = (cr_sim_node_count(r.sim) - 1) / 10, nq = 0;
        for (int i = 0; i < cr_sim_node_count(r.sim); ++i)
            if (fabs(cr_sim_node_s(r.sim, i) - 1.01) < fabs(cr_sim_node_s(r.sim, nq) - 1.01)) nq = i;
        const double *last = r.series + (size_t)(r.series_rows - 1) * r.series_columns;
        cr_vec3 xp = cr_sim_position(r.sim, 3 * per), xq = cr_sim_position(r.sim, nq);
        cr_quat qq = cr_sim_orientation(r.sim, nq);
        CHECK_NEAR(cr_sim_node_s(r.sim, 3 * per), 0.6, 1e-12);
        /* the last row is at t_end, the final state (to the interpolation's round-off) */
        double got[10] = {last[6],  last[7],  last[8],  last[13], last[14],
                          last[15], last[16], last[17], last[18], last[19]};
        double ref[10] = {xp.x, xp.y, xp.z, xq.x, xq.y, xq.z, qq.w, qq.x, qq.y, qq.z};
        for (int k = 0; k < 10; ++k) CHECK_NEAR(got[k], ref[k], 1e-12);
        cr_run_result_free(&r);
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(parsed), CASE(default_tip), CASE(bad_input), CASE(name_clash), CASE(series_columns))
