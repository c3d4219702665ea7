/* Scenario parser: the example files, every key form, overrides, and one case
 * per class of bad input (each must give CR_BAD_INPUT and name the JSON path). */
#include "check.h"

#include "cosserat/scenario.h"

#include <stdlib.h>
#include <string.h>

#ifndef COSSERAT_SOURCE_DIR
#define COSSERAT_SOURCE_DIR "."
#endif

#define PI 3.14159265358979323846

/* JSON with ' for " so the inline scenarios stay readable. Returns a static
 * buffer, valid until the next call. */
static const char *q(const char *s)
{
    static char buf[8192];
    size_t n = strlen(s);
    if (n >= sizeof buf) n = sizeof buf - 1;
    for (size_t i = 0; i < n; ++i) buf[i] = s[i] == '\'' ? '"' : s[i];
    buf[n] = '\0';
    return buf;
}

/* A minimal valid rod, to which the cases append top-level keys. */
#define ROD_OK                                                                                   \
    "'rod': {'length': 2, 'elements': 10, 'material': {'E': 1e9, 'G': 4e8},"                     \
    " 'sections': [{'shape': 'circle', 'radius': 0.01}]}"

static cr_scenario *load_ok(const char *json, const char *const *ov, int n)
{
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_string(q(json), ov, n, &sc, &err);
    if (s != CR_OK) fprintf(stderr, "  unexpected failure: %s\n", err.message);
    CHECK(s == CR_OK);
    CHECK(s != CR_OK || sc != NULL);
    CHECK(s != CR_OK || err.message[0] == '\0');
    return sc;
}

/* Expects CR_BAD_INPUT, no scenario, and a message containing `needle`. */
static void expect_bad_ov(int line, const char *json, const char *const *ov, int n, const char *needle)
{
    cr_scenario *sc = (cr_scenario *)&sc; /* must be reset to NULL */
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_string(q(json), ov, n, &sc, &err);
    if (s != CR_BAD_INPUT || !strstr(err.message, needle)) {
        fprintf(stderr, "  line %d: status %d, message \"%s\", expected \"%s\"\n", line, (int)s, err.message,
                needle);
        check_failures++;
    }
    CHECK(sc == NULL);
    if (s == CR_OK) cr_scenario_destroy(sc);
}
#define EXPECT_BAD(json, needle) expect_bad_ov(__LINE__, json, NULL, 0, needle)
#define EXPECT_BAD_OV(json, ov, needle) expect_bad_ov(__LINE__, json, ov, (int)(sizeof ov / sizeof ov[0]), needle)

/* Expects the whole message to be exactly `message`. */
static void expect_message(int line, const char *json, const char *message)
{
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_string(q(json), NULL, 0, &sc, &err);
    if (s != CR_BAD_INPUT || strcmp(err.message, message) != 0) {
        fprintf(stderr, "  line %d: status %d, message \"%s\", expected \"%s\"\n", line, (int)s, err.message,
                message);
        check_failures++;
    }
    if (s == CR_OK) cr_scenario_destroy(sc);
}
#define EXPECT_MESSAGE(json, message) expect_message(__LINE__, json, message)

static void check_columns(cr_quat p, cr_vec3 ex, cr_vec3 ey, double tol)
{
    cr_mat3 a = cr_q_exp(p);
    cr_vec3 ez = cr_v3_cross(ex, ey);
    CHECK_NEAR(cr_q_norm2(p), 1.0, 1e-15);
    for (int i = 0; i < 3; ++i) {
        CHECK_NEAR(a.m[i][0], cr_v3_get(ex, i), tol);
        CHECK_NEAR(a.m[i][1], cr_v3_get(ey, i), tol);
        CHECK_NEAR(a.m[i][2], cr_v3_get(ez, i), tol);
    }
}

/* ---- the example files ---- */

static void example_two_helical_segments(void)
{
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_file(COSSERAT_SOURCE_DIR "/examples/two-helical-segments.json", NULL, 0, &sc, &err);
    if (s) fprintf(stderr, "  %s\n", err.message);
    CHECK(s == CR_OK);
    if (s) return;
    CHECK(strcmp(sc->name, "two-helical-segments") == 0);
    CHECK(strcmp(sc->model, "mixed_discrete") == 0);
    const cr_rod_def *rod = &sc->rod;
    CHECK(rod->elements == 99);
    CHECK(rod->length == 197.8144985685369);
    CHECK(rod->material.E == 1.0 && rod->material.G == 0.5 && rod->material.rho == 1.0);
    CHECK(rod->rigid_strains == 0);
    CHECK(rod->reference.type == CR_REFERENCE_STRAIGHT);
    CHECK(rod->reference.origin.x == 0 && rod->reference.origin.y == 10 && rod->reference.origin.z == 0);
    /* e_x = (-1, 0, c)/sqrt(1 + c²), e_y = (0, -1, 0), c = 1/π (spec §8.1) */
    double c = 1 / PI, h = sqrt(1 + c * c);
    check_columns(rod->reference.orientation, cr_v3(-1 / h, 0, c / h), cr_v3(0, -1, 0), 1e-15);
    CHECK(rod->section_count == 2);
    CHECK_NEAR(rod->sections[0].xi_end, 2.0 / 3.0, 1e-15);
    CHECK(rod->sections[1].xi_end == 1.0);
    CHECK(rod->sections[0].shape == CR_SECTION_CIRCLE && rod->sections[1].shape == CR_SECTION_CIRCLE);
    CHECK(rod->sections[0].radius[0] == 1.978144985685369 && rod->sections[0].radius[1] == 1.978144985685369);
    CHECK(rod->sections[1].radius[0] == 1.6634150273149373 && rod->sections[1].radius[1] == 1.6634150273149373);
    CHECK(rod->bc_count == 1 && rod->bcs[0].type == CR_BC_CLAMP && rod->bcs[0].node == 0);
    CHECK(rod->load_count == 1);
    const cr_load_def *ld = &rod->loads[0];
    CHECK(ld->type == CR_LOAD_MOMENT && ld->node == -1 && ld->frame == CR_FRAME_BODY);
    CHECK(ld->value.x == 0.3475829732096974 && ld->value.y == 0 && ld->value.z == 1.0919641151484831);
    CHECK(sc->stage_count == 1 && sc->stages[0].type == CR_STAGE_STATIC);
    const cr_static_options *o = &sc->stages[0].statics;
    CHECK(o->load_steps == 10 && o->max_iterations == 30 && o->atol == 1e-10 && o->rtol == 1e-6);
    CHECK(o->max_halvings == 10 && o->max_history == 64);
    CHECK(strcmp(sc->output.directory, "out/two-helical-segments") == 0 && sc->output.vtk == 1);
    cr_scenario_destroy(sc);
}

static void example_tendon_manipulator(void)
{
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_file(COSSERAT_SOURCE_DIR "/examples/tendon-manipulator.json", NULL, 0, &sc, &err);
    if (s) fprintf(stderr, "  %s\n", err.message);
    CHECK(s == CR_OK);
    if (s) return;
    const cr_rod_def *rod = &sc->rod;
    CHECK(strcmp(sc->name, "tendon-manipulator") == 0);
    CHECK(rod->elements == 1250 && rod->length == 0.2);
    CHECK(rod->material.E == 7.0e5 && rod->material.G == 2.0e5 && rod->material.rho == 0);
    /* rod axis along +z, e_y = I_x (spec §8.2) */
    check_columns(rod->reference.orientation, cr_v3(0, 0, 1), cr_v3(1, 0, 0), 1e-15);
    CHECK(rod->section_count == 1 && rod->sections[0].xi_end == 1.0);
    CHECK(rod->sections[0].radius[0] == 0.01 && rod->sections[0].radius[1] == 0.004);
    CHECK(rod->bc_count == 1 && rod->bcs[0].node == 0);
    CHECK(rod->load_count == 1);
    const cr_load_def *ld = &rod->loads[0];
    CHECK(ld->type == CR_LOAD_TENDON && ld->tension == 4.0);
    CHECK(ld->offset.type == CR_OFFSET_RADIUS_FRACTION);
    CHECK(ld->offset.fraction == 1.0 && ld->offset.angle == 0.0);
    CHECK(ld->xi_start == 0.0 && ld->xi_end == 1.0);
    const cr_static_options *o = &sc->stages[0].statics;
    CHECK(sc->stage_count == 1 && o->load_steps == 8);
    CHECK(o->max_iterations == 25 && o->atol == 1e-10 && o->rtol == 1e-6 && o->max_halvings == 10);
    CHECK(strcmp(sc->output.directory, "out/tendon-manipulator") == 0 && sc->output.vtk == 1);
    cr_scenario_destroy(sc);
}

/* ---- defaults and the key forms ---- */

static void defaults(void)
{
    cr_scenario *sc = load_ok("{" ROD_OK "}", NULL, 0);
    if (!sc) return;
    CHECK(strcmp(sc->name, "scenario") == 0 && strcmp(sc->model, "mixed_discrete") == 0);
    CHECK(sc->rod.reference.type == CR_REFERENCE_STRAIGHT);
    CHECK(sc->rod.reference.origin.x == 0 && sc->rod.reference.origin.y == 0 && sc->rod.reference.origin.z == 0);
    CHECK(sc->rod.reference.orientation.w == 1 && sc->rod.reference.orientation.x == 0);
    CHECK(sc->rod.material.rho == 0 && sc->rod.rigid_strains == 0);
    CHECK(sc->rod.section_count == 1 && sc->rod.sections[0].xi_end == 1);
    CHECK(sc->rod.bc_count == 0 && sc->rod.load_count == 0);
    CHECK(sc->stage_count == 1);
    const cr_static_options *o = &sc->stages[0].statics;
    CHECK(o->load_steps == 10 && o->max_iterations == 25 && o->atol == 1e-10 && o->rtol == 1e-6);
    CHECK(o->max_halvings == 10 && o->max_history == 64);
    CHECK(strcmp(sc->output.directory, "out/scenario") == 0 && sc->output.vtk == 1);
    cr_scenario_destroy(sc);

    /* name sets the default output directory */
    sc = load_ok("{'name': 'abc', 'output': {'vtk': false}," ROD_OK "}", NULL, 0);
    if (sc) CHECK(strcmp(sc->output.directory, "out/abc") == 0 && sc->output.vtk == 0);
    cr_scenario_destroy(sc);
}

static void key_forms(void)
{
    cr_scenario *sc = load_ok(
        "{'rod': {'length': 3, 'elements': 6, 'material': {'E': 2e11, 'G': 8e10, 'rho': 7850},"
        "  'reference': {'type': 'straight', 'origin': [1, 2, 3], 'quaternion': [0, 0, 0, 2]},"
        "  'rigid_strains': ['kappa_x', 'gamma_x'],"
        "  'sections': [{'end': 0.25, 'shape': 'rectangle', 'width': [0.02, 0.01], 'height': 0.005},"
        "               {'shape': 'circle', 'radius': [0.003, 0.002]}]},"
        " 'boundary_conditions': [{'type': 'clamp', 'node': 'start'},"
        "   {'type': 'pose', 'node': -1, 'position': [0, 0, 1], 'quaternion': [2, 0, 0, 0]},"
        "   {'type': 'clamp', 'node': 3}],"
        " 'loads': [{'type': 'force', 'node': 'end', 'value': [0, 0, -1]},"
        "   {'type': 'force_density', 'value': [0, 1, 0], 'frame': 'body'},"
        "   {'type': 'moment_density', 'value': [1, 0, 0]},"
        "   {'type': 'gravity', 'value': [0, 0, -9.81]},"
        "   {'type': 'tendon', 'tension': 2, 'offset': {'y': 0.001}, 'xi_end': 0.5},"
        "   {'type': 'tendon', 'tension': 0, 'offset': {'angle_deg': 90}},"
        "   {'type': 'tendon', 'tension': 1, 'xi_start': 0.2, 'xi_end': 0.8,"
        "    'offset': {'table': [[0, 0.001, 0], [0.5, 0.002, 0.001], [1, 0, 0]]}}],"
        " 'stages': [{'type': 'static', 'load_steps': 4, 'max_iterations': 7, 'atol': 1e-8, 'rtol': 1e-5,"
        "             'max_halvings': 0}, {}],"
        " 'output': {'directory': 'results/x', 'vtk': true}}",
        NULL, 0);
    if (!sc) return;
    const cr_rod_def *rod = &sc->rod;
    CHECK(rod->material.rho == 7850);
    CHECK(rod->reference.origin.x == 1 && rod->reference.origin.z == 3);
    CHECK(rod->reference.orientation.w == 0 && rod->reference.orientation.z == 1); /* normalized */
    CHECK(rod->rigid_strains == (CR_RIGID_KAPPA_X | CR_RIGID_GAMMA_X));
    CHECK(rod->section_count == 2);
    CHECK(rod->sections[0].shape == CR_SECTION_RECTANGLE && rod->sections[0].xi_end == 0.25);
    CHECK(rod->sections[0].width[0] == 0.02 && rod->sections[0].width[1] == 0.01);
    CHECK(rod->sections[0].height[0] == 0.005 && rod->sections[0].height[1] == 0.005);
    CHECK(rod->sections[1].shape == CR_SECTION_CIRCLE && rod->sections[1].xi_end == 1);
    CHECK(rod->sections[1].radius[0] == 0.003 && rod->sections[1].radius[1] == 0.002);
    CHECK(rod->bc_count == 3);
    CHECK(rod->bcs[1].type == CR_BC_POSE && rod->bcs[1].node == -1 && rod->bcs[1].position.z == 1);
    CHECK(rod->bcs[1].orientation.w == 1 && rod->bcs[1].orientation.x == 0);
    CHECK(rod->bcs[2].node == 3);
    CHECK(rod->load_count == 7);
    CHECK(rod->loads[0].type == CR_LOAD_FORCE && rod->loads[0].node == -1 && rod->loads[0].value.z == -1);
    CHECK(rod->loads[0].frame == CR_FRAME_INERTIAL);
    CHECK(rod->loads[1].type == CR_LOAD_FORCE_DENSITY && rod->loads[1].frame == CR_FRAME_BODY);
    CHECK(rod->loads[2].type == CR_LOAD_MOMENT_DENSITY && rod->loads[2].frame == CR_FRAME_INERTIAL);
    CHECK(rod->loads[3].type == CR_LOAD_GRAVITY && rod->loads[3].value.z == -9.81);
    const cr_load_def *t = &rod->loads[4];
    CHECK(t->type == CR_LOAD_TENDON && t->tension == 2 && t->offset.type == CR_OFFSET_CONSTANT);
    CHECK(t->offset.y == 0.001 && t->offset.z == 0 && t->xi_start == 0 && t->xi_end == 0.5);
    t = &rod->loads[5];
    CHECK(t->offset.type == CR_OFFSET_RADIUS_FRACTION && t->offset.fraction == 1);
    CHECK_NEAR(t->offset.angle, PI / 2, 1e-15);
    t = &rod->loads[6];
    CHECK(t->offset.type == CR_OFFSET_TABLE && t->offset.point_count == 3);
    CHECK(t->offset.points[1].xi == 0.5 && t->offset.points[1].y == 0.002 && t->offset.points[1].z == 0.001);
    CHECK(t->xi_start == 0.2 && t->xi_end == 0.8);
    CHECK(sc->stage_count == 2);
    const cr_static_options *o = &sc->stages[0].statics;
    CHECK(o->load_steps == 4 && o->max_iterations == 7 && o->atol == 1e-8 && o->rtol == 1e-5);
    CHECK(o->max_halvings == 0 && o->max_history == 64);
    CHECK(sc->stages[1].type == CR_STAGE_STATIC && sc->stages[1].statics.load_steps == 10);
    CHECK(strcmp(sc->output.directory, "results/x") == 0);
    cr_scenario_destroy(sc);
}

static void helix_and_nodes_references(void)
{
    cr_scenario *sc = load_ok(
        "{'rod': {'length': 2, 'elements': 4, 'material': {'E': 1, 'G': 1},"
        "  'reference': {'type': 'helix', 'radius': 0.016, 'pitch': 0.001, 'origin': [0, 0, 1]},"
        "  'sections': [{'shape': 'circle', 'radius': 0.001}]}}",
        NULL, 0);
    if (sc) {
        CHECK(sc->rod.reference.type == CR_REFERENCE_HELIX);
        CHECK(sc->rod.reference.helix_radius == 0.016 && sc->rod.reference.helix_pitch == 0.001);
        CHECK(sc->rod.reference.origin.z == 1);
    }
    cr_scenario_destroy(sc);

    /* nodes: the length is the chord sum (3 + 4 here) and may be omitted */
    sc = load_ok("{'rod': {'elements': 2, 'material': {'E': 1, 'G': 1},"
                 "  'reference': {'type': 'nodes', 'positions': [[0, 0, 0], [3, 0, 0], [3, 4, 0]],"
                 "                'quaternions': [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 3]]},"
                 "  'sections': [{'shape': 'circle', 'radius': 0.1}]}}",
                 NULL, 0);
    if (sc) {
        const cr_reference_def *r = &sc->rod.reference;
        CHECK(r->type == CR_REFERENCE_NODES && r->node_count == 3);
        CHECK(r->node_positions[2].x == 3 && r->node_positions[2].y == 4);
        CHECK(r->node_orientations[2].z == 1);
        CHECK(sc->rod.length == 7);
    }
    cr_scenario_destroy(sc);
    sc = load_ok("{'rod': {'elements': 1, 'length': 5, 'material': {'E': 1, 'G': 1},"
                 "  'reference': {'type': 'nodes', 'positions': [[0, 0, 0], [3, 4, 0]],"
                 "                'quaternions': [[1, 0, 0, 0], [1, 0, 0, 0]]},"
                 "  'sections': [{'shape': 'circle', 'radius': 0.1}]}}",
                 NULL, 0);
    if (sc) CHECK(sc->rod.length == 5);
    cr_scenario_destroy(sc);
}

static void file_default_name_and_io_error(void)
{
    const char *path = "test_scenario_tmp.json";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(q("{" ROD_OK "}"), f);
    fclose(f);
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    CHECK(cr_scenario_load_file(path, NULL, 0, &sc, &err) == CR_OK);
    if (sc) {
        CHECK(strcmp(sc->name, "test_scenario_tmp") == 0);
        CHECK(strcmp(sc->output.directory, "out/test_scenario_tmp") == 0);
    }
    cr_scenario_destroy(sc);
    remove(path);

    sc = (cr_scenario *)&sc;
    CHECK(cr_scenario_load_file("no/such/scenario.json", NULL, 0, &sc, &err) == CR_IO);
    CHECK(sc == NULL);
    CHECK(strstr(err.message, "no/such/scenario.json") != NULL);
}

/* The complete example in docs/scenario.md must stay valid. */
static void documented_example(void)
{
    FILE *f = fopen(COSSERAT_SOURCE_DIR "/docs/scenario.md", "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char doc[65536];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    char *start = strstr(doc, "## A complete example");
    if (start) start = strstr(start, "```json\n");
    char *end = start ? strstr(start + 8, "```") : NULL;
    CHECK(start != NULL && end != NULL);
    if (!start || !end) return;
    *end = '\0';
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_string(start + 8, NULL, 0, &sc, &err);
    if (s) fprintf(stderr, "  %s\n", err.message);
    CHECK(s == CR_OK);
    if (sc) CHECK(strcmp(sc->name, "cantilever") == 0 && sc->rod.load_count == 3 && sc->rod.section_count == 2);
    cr_scenario_destroy(sc);
}

/* ---- overrides ---- */

static void overrides(void)
{
    const char *const set[] = {"rod.elements=250",
                               "stages.0.max_iterations=40", /* absent in the file: allowed key added */
                               "rod.material.rho=7850",      /* likewise */
                               "loads.0.tension=5",
                               "loads.0.offset.angle_deg=90",
                               "rod.sections.0.radius=[0.02, 0.01]",
                               "name=renamed", /* not JSON: a plain string */
                               "output.vtk=false",
                               "output.directory=\"quoted dir\""};
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_file(COSSERAT_SOURCE_DIR "/examples/tendon-manipulator.json", set,
                                        (int)(sizeof set / sizeof set[0]), &sc, &err);
    if (s) fprintf(stderr, "  %s\n", err.message);
    CHECK(s == CR_OK);
    if (sc) {
        CHECK(sc->rod.elements == 250);
        CHECK(sc->stages[0].statics.max_iterations == 40 && sc->stages[0].statics.load_steps == 8);
        CHECK(sc->rod.material.rho == 7850);
        CHECK(sc->rod.loads[0].tension == 5);
        CHECK_NEAR(sc->rod.loads[0].offset.angle, PI / 2, 1e-15);
        CHECK(sc->rod.sections[0].radius[0] == 0.02 && sc->rod.sections[0].radius[1] == 0.01);
        CHECK(strcmp(sc->name, "renamed") == 0);
        CHECK(sc->output.vtk == 0 && strcmp(sc->output.directory, "quoted dir") == 0);
    }
    cr_scenario_destroy(sc);

    /* later overrides see earlier ones; a whole absent object may be set */
    const char *const chain[] = {"loads=[{\"type\": \"force\", \"node\": \"end\", \"value\": [1, 2, 3]}]",
                                 "loads.0.value.2=-1", "output={\"vtk\": false}"};
    sc = load_ok("{" ROD_OK "}", chain, 3);
    if (sc) {
        CHECK(sc->rod.load_count == 1 && sc->rod.loads[0].value.y == 2 && sc->rod.loads[0].value.z == -1);
        CHECK(sc->output.vtk == 0);
    }
    cr_scenario_destroy(sc);

    static const char *const typo[] = {"rod.elemnts=5"};
    EXPECT_BAD_OV("{" ROD_OK "}", typo, "rod.elemnts");
    static const char *const past_end[] = {"rod.sections.1.radius=0.2"};
    EXPECT_BAD_OV("{" ROD_OK "}", past_end, "rod.sections.1");
    static const char *const not_index[] = {"rod.sections.first.radius=0.2"};
    EXPECT_BAD_OV("{" ROD_OK "}", not_index, "rod.sections.first");
    static const char *const no_eq[] = {"rod.elements"};
    EXPECT_BAD_OV("{" ROD_OK "}", no_eq, "expected PATH=VALUE");
    static const char *const missing_parent[] = {"output.vtk=false"};
    EXPECT_BAD_OV("{" ROD_OK "}", missing_parent, "output does not exist");
    static const char *const into_leaf[] = {"rod.elements.x=1"};
    EXPECT_BAD_OV("{" ROD_OK "}", into_leaf, "rod.elements.x");
    static const char *const other_variant[] = {"rod.sections.0.width=1"}; /* a circle has no width */
    EXPECT_BAD_OV("{" ROD_OK "}", other_variant, "rod.sections.0.width");
    static const char *const empty_comp[] = {"rod..elements=1"};
    EXPECT_BAD_OV("{" ROD_OK "}", empty_comp, "empty component");
    /* overridden values are validated like file values */
    static const char *const zero[] = {"rod.elements=0"};
    EXPECT_BAD_OV("{" ROD_OK "}", zero, "rod.elements: must be >= 1, got 0");
    static const char *const word[] = {"rod.elements=ten"};
    EXPECT_BAD_OV("{" ROD_OK "}", word, "rod.elements: expected an integer, got \"ten\"");
    static const char *const huge[] = {"rod.material.G=1e999"};
    EXPECT_BAD_OV("{" ROD_OK "}", huge, "rod.material.G");
}

/* ---- bad input, one block per class ---- */

static void bad_unknown_key(void)
{
    EXPECT_MESSAGE("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1, 'Youngs': 3},"
                   " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
                   "rod.material.Youngs: unknown key (expected one of E, G, rho)");
    EXPECT_BAD("{'nmae': 'x'," ROD_OK "}", "nmae: unknown key");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'gravity', 'value': [0, 0, -1], 'frame': 'body'}]}",
               "loads.0.frame: unknown key for a gravity load");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'load_step': 3}]}", "stages.0.load_step: unknown key");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'helix', 'radius': 1, 'frame': {}},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.frame: unknown key for a helix reference");
    EXPECT_BAD("{" ROD_OK ", 'output': {'dir': 'x'}}", "output.dir: unknown key");
    /* a duplicated key would otherwise be silently ignored */
    EXPECT_BAD("{'name': 'a', 'name': 'b'," ROD_OK "}", "name: duplicate key");
}

static void bad_type(void)
{
    EXPECT_MESSAGE("{'rod': {'length': 1, 'elements': 'ten', 'material': {'E': 1, 'G': 1},"
                   " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
                   "rod.elements: expected an integer, got \"ten\"");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2.5, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.elements: expected an integer, got 2.5");
    EXPECT_BAD("{'rod': {'length': '1', 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.length: expected a number, got \"1\"");
    EXPECT_BAD("{'rod': [], 'name': 'x'}", "rod: expected an object");
    EXPECT_BAD("{" ROD_OK ", 'output': {'vtk': 'yes'}}", "output.vtk: expected true or false");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 'x', 0]}]}",
               "loads.0.value.1: expected a number");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0]}]}",
               "loads.0.value: expected an array of 3 numbers");
    EXPECT_BAD("{" ROD_OK ", 'loads': {}}", "loads: expected an array");
    EXPECT_BAD("{'name': 5," ROD_OK "}", "name: expected a string, got 5");
    EXPECT_BAD("[1, 2]", "expected a JSON object at the top level");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': [1, 2, 3]}]}}",
               "rod.sections.0.radius: expected a number or a [start, end] pair");
}

static void bad_missing(void)
{
    EXPECT_MESSAGE("{'rod': {'length': 1, 'elements': 2, 'material': {'G': 1},"
                   " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
                   "rod.material.E: missing");
    EXPECT_BAD("{'name': 'x'}", "rod: missing");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1}}}", "rod.sections: missing");
    EXPECT_BAD("{'rod': {'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.length: missing");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle'}]}}",
               "rod.sections.0.radius: missing");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'helix'}, 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.radius: missing");
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'pose', 'node': 0, 'position': [0, 0, 0]}]}",
               "boundary_conditions.0.quaternion: missing");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'value': [0, 0, 1]}]}", "loads.0.type: missing");
}

static void bad_nonfinite(void)
{
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1e999, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.material.E: must be finite, got inf");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, -1e999]}]}",
               "loads.0.value.2: must be finite");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 1e999, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.elements: must be finite");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': [1, 1e999]}]}}",
               "rod.sections.0.radius.1");
}

static void bad_nonphysical(void)
{
    EXPECT_MESSAGE("{'rod': {'length': 1, 'elements': 2, 'material': {'E': -3, 'G': 1},"
                   " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
                   "rod.material.E: must be > 0, got -3");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 0, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.material.E: must be > 0, got 0");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 0},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.material.G: must be > 0, got 0");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': -0.5},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.material.G: must be > 0, got -0.5");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1, 'rho': -1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.material.rho: must be >= 0, got -1");
    EXPECT_BAD("{'rod': {'length': 0, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.length: must be > 0, got 0");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'rectangle', 'width': [0.1, -0.1], 'height': 1}]}}",
               "rod.sections.0.width.1: must be > 0, got -0.1");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': -1, 'offset': {'y': 0}}]}",
               "loads.0.tension: must be >= 0, got -1");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'atol': 0}]}", "stages.0.atol: must be > 0, got 0");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'max_halvings': -1}]}", "stages.0.max_halvings: must be >= 0, got -1");
    EXPECT_BAD("{" ROD_OK ", 'stages': []}", "stages: expected at least 1 stage");
}

static void bad_elements(void)
{
    EXPECT_MESSAGE("{'rod': {'length': 1, 'elements': 0, 'material': {'E': 1, 'G': 1},"
                   " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
                   "rod.elements: must be >= 1, got 0");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': -4, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.elements: must be >= 1, got -4");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'load_steps': 0}]}", "stages.0.load_steps: must be >= 1, got 0");
}

static void bad_enum(void)
{
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'square', 'radius': 1}]}}",
               "rod.sections.0.shape: expected one of circle, rectangle, got \"square\"");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'spiral'}, 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.type: expected one of straight, helix, nodes");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1], 'frame': 'local'}]}",
               "loads.0.frame: expected one of inertial, body, got \"local\"");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'pressure'}]}", "loads.0.type: expected one of force, moment");
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'pin', 'node': 0}]}",
               "boundary_conditions.0.type: expected one of clamp, pose");
    EXPECT_BAD("{'model': 'port_hamiltonian'," ROD_OK "}", "model: unsupported model \"port_hamiltonian\"");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'dynamic'}]}",
               "stages.0.type: dynamic stages are not supported yet");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'modal'}]}", "stages.0.type: expected one of static");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1}, 'rigid_strains': ['gamma_w'],"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.rigid_strains.0: expected one of gamma_x");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'rigid_strains': ['gamma_x', 'kappa_z', 'gamma_x'],"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.rigid_strains.2: duplicate \"gamma_x\"");
}

static void bad_node(void)
{
    /* ROD_OK has 10 elements: nodes 0..10, or -11..-1 */
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'clamp', 'node': 'middle'}]}",
               "boundary_conditions.0.node: expected \"start\", \"end\" or an integer node index in [-11, 10]");
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'clamp', 'node': 11}]}",
               "boundary_conditions.0.node: node index must be in [-11, 10]");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'node': -12, 'value': [0, 0, 1]}]}",
               "loads.0.node: node index must be in [-11, 10]");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'moment', 'node': 1.5, 'value': [0, 0, 1]}]}", "loads.0.node");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'value': [0, 0, 1]}]}", "loads.0.node: missing");
    /* the same node under two names */
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'clamp', 'node': 'end'},"
               " {'type': 'clamp', 'node': 10}]}",
               "boundary_conditions.1.node: node 10 already has a boundary condition (boundary_conditions.0)");
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'clamp', 'node': 'start'},"
               " {'type': 'pose', 'node': -11, 'position': [0, 0, 0], 'quaternion': [1, 0, 0, 0]}]}",
               "boundary_conditions.1.node: node 0 already has");
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'pose', 'node': 0, 'position': [0, 0, 0],"
               " 'quaternion': [0, 0, 0, 0]}]}",
               "boundary_conditions.0.quaternion: must be nonzero");
}

static void bad_sections(void)
{
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'end': 0.5, 'shape': 'circle', 'radius': 1}, {'end': 0.3, 'shape': 'circle',"
               " 'radius': 1}, {'shape': 'circle', 'radius': 1}]}}",
               "rod.sections.1.end: must be > rod.sections.0.end = 0.5");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'end': 0.5, 'shape': 'circle', 'radius': 1}, {'end': 0.9, 'shape': 'circle',"
               " 'radius': 1}]}}",
               "rod.sections.1.end: the last section must end at 1");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1}, {'shape': 'circle', 'radius': 1}]}}",
               "rod.sections.0.end: missing");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'end': 0, 'shape': 'circle', 'radius': 1}, {'shape': 'circle', 'radius': 1}]}}",
               "rod.sections.0.end: must be > 0");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'end': 0.5, 'shape': 'circle', 'radius': 1}, {'end': 1.5, 'shape': 'circle',"
               " 'radius': 1}]}}",
               "rod.sections.1.end: must be <= 1");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1}, 'sections': []}}",
               "rod.sections: expected at least 1 section");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'circle', 'radius': 1, 'height': 2}]}}",
               "rod.sections.0.height: unknown key for a circle section");
}

static void bad_frame(void)
{
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'frame': {'e_x': [0, 0, 0], 'e_y': [0, 1, 0]}},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.frame.e_x: must be nonzero");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'frame': {'e_x': [1, 0, 0], 'e_y': [0, 0, 0]}},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.frame.e_y: must be nonzero");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'frame': {'e_x': [1, 0, 0], 'e_y': [0.1, 1, 0]}},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.frame: e_x and e_y must be orthogonal");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'frame': {'e_x': [1, 0, 0], 'e_y': [0, 1, 0]}, 'quaternion': [1, 0, 0, 0]},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference: give the orientation either as frame or as quaternion");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'frame': {'e_x': [1, 0, 0]}}, 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.frame.e_y: missing");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'quaternion': [0, 0, 0, 0]}, 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.quaternion: must be nonzero");

    /* a tolerated tiny non-orthogonality: e_x is kept exactly, e_y adjusted */
    cr_scenario *sc = load_ok("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
                              " 'reference': {'frame': {'e_x': [0, 2, 0], 'e_y': [1e-7, 0, 3]}},"
                              " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
                              NULL, 0);
    if (sc) check_columns(sc->rod.reference.orientation, cr_v3(0, 1, 0), cr_v3(0, 0, 1), 1e-6);
    if (sc) CHECK_NEAR(cr_q_exp(sc->rod.reference.orientation).m[0][0], 0.0, 1e-15);
    cr_scenario_destroy(sc);
}

static void bad_gravity_without_rho(void)
{
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]}]}",
               "a gravity load needs rod.material.rho > 0");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]}]}", "loads.0");
}

static void bad_tendon(void)
{
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'y': 0, 'radius_fraction': 1}}]}",
               "loads.0.offset: expected exactly one of the forms");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {}}]}",
               "loads.0.offset: expected exactly one of the forms");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1}]}", "loads.0.offset: missing");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'radius_fraction': 0}}]}",
               "loads.0.offset.radius_fraction: must be > 0");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'y': 0.1},"
               " 'xi_start': 0.6, 'xi_end': 0.4}]}",
               "loads.0.xi_end: must be > xi_start = 0.6");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'y': 0.1}, 'xi_end': 1.1}]}",
               "loads.0.xi_end: must be <= 1");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'y': 0.1}, 'xi_start': -0.1}]}",
               "loads.0.xi_start: must be in [0, 1)");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1,"
               " 'offset': {'table': [[0, 0, 0], [0.5, 1, 0]]}}]}",
               "loads.0.offset.table: must cover [xi_start, xi_end] = [0, 1]");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1,"
               " 'offset': {'table': [[0, 0, 0], [0.5, 1, 0], [0.5, 1, 0], [1, 0, 0]]}}]}",
               "loads.0.offset.table.2.0: xi must be > 0.5");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'table': [[0, 0, 0]]}}]}",
               "loads.0.offset.table: expected at least 2 rows");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'table': [[0, 0], [1, 0]]}}]}",
               "loads.0.offset.table.0: expected an array of 3 numbers");
}

static void bad_nodes_reference(void)
{
    EXPECT_BAD("{'rod': {'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'nodes', 'positions': [[0, 0, 0], [1, 0, 0]],"
               "               'quaternions': [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.positions: expected 3 entries (rod.elements + 1), got 2");
    EXPECT_BAD("{'rod': {'elements': 1, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'nodes', 'positions': [[0, 0, 0], [1, 0, 0]],"
               "               'quaternions': [[1, 0, 0, 0], [0, 0, 0, 0]]},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.quaternions.1: must be nonzero");
    EXPECT_BAD("{'rod': {'elements': 1, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'nodes', 'positions': [[0, 0, 0], [0, 0, 0]],"
               "               'quaternions': [[1, 0, 0, 0], [1, 0, 0, 0]]},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.positions.1: coincides with rod.reference.positions.0");
    EXPECT_BAD("{'rod': {'elements': 1, 'length': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'nodes', 'positions': [[0, 0, 0], [1, 0, 0]],"
               "               'quaternions': [[1, 0, 0, 0], [1, 0, 0, 0]]},"
               " 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.length: 2 disagrees with the chord length 1");
}

static void bad_json_syntax(void)
{
    EXPECT_BAD("{\n 'rod': {\n  'length': 1,,\n }\n}", "JSON syntax error at line 3");
    EXPECT_BAD("{'rod': {}} trailing", "JSON syntax error at line 1");
    EXPECT_BAD("", "JSON syntax error");
    EXPECT_BAD("{'rod': {'length': 1", "at the end of the input");
}

static void bad_arguments(void)
{
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    CHECK(cr_scenario_load_string(NULL, NULL, 0, &sc, &err) == CR_BAD_INPUT && sc == NULL);
    CHECK(cr_scenario_load_string("{}", NULL, 0, NULL, &err) == CR_BAD_INPUT);
    CHECK(cr_scenario_load_string("{}", NULL, 2, &sc, &err) == CR_BAD_INPUT);
    /* err may be NULL */
    CHECK(cr_scenario_load_string("{}", NULL, 0, &sc, NULL) == CR_BAD_INPUT && sc == NULL);
    cr_scenario_destroy(NULL);
}

CHECK_MAIN(CASE(example_two_helical_segments), CASE(example_tendon_manipulator), CASE(defaults), CASE(key_forms),
           CASE(helix_and_nodes_references), CASE(file_default_name_and_io_error), CASE(documented_example),
           CASE(overrides),
           CASE(bad_unknown_key), CASE(bad_type), CASE(bad_missing), CASE(bad_nonfinite), CASE(bad_nonphysical),
           CASE(bad_elements), CASE(bad_enum), CASE(bad_node), CASE(bad_sections), CASE(bad_frame),
           CASE(bad_gravity_without_rho), CASE(bad_tendon), CASE(bad_nodes_reference), CASE(bad_json_syntax),
           CASE(bad_arguments))
