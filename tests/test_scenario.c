/* Scenario parser: the example files, every key form (statics and dynamics:
 * dynamic stages, rigid bodies, body loads, stage masks, time functions),
 * overrides, and one case per class of bad input (each must give CR_BAD_INPUT
 * and name the JSON path). */
#include "check.h"

#include "cosserat/output.h"
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
    CHECK(strcmp(sc->model.type, "mixed_discrete") == 0);
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
    CHECK(sc->output.vtk_format == CR_VTK_BINARY); /* the default */
    cr_scenario_destroy(sc);
}

/* ---- defaults and the key forms ---- */

static void defaults(void)
{
    cr_scenario *sc = load_ok("{" ROD_OK "}", NULL, 0);
    if (!sc) return;
    CHECK(strcmp(sc->name, "scenario") == 0 && strcmp(sc->model.type, "mixed_discrete") == 0);
    CHECK(sc->rod.reference.type == CR_REFERENCE_STRAIGHT);
    CHECK(sc->rod.reference.origin.x == 0 && sc->rod.reference.origin.y == 0 && sc->rod.reference.origin.z == 0);
    CHECK(sc->rod.reference.orientation.w == 1 && sc->rod.reference.orientation.x == 0);
    CHECK(sc->rod.material.rho == 0 && sc->rod.rigid_strains == 0);
    CHECK(sc->rod.section_count == 1 && sc->rod.sections[0].xi_end == 1);
    CHECK(sc->rod.bc_count == 0 && sc->rod.load_count == 0);
    CHECK(sc->stage_count == 1);
    const cr_static_options *o = &sc->stages[0].statics;
    /* "load_steps": "auto" when absent: a first quarter, then adaptive */
    CHECK(o->adaptive == 1 && o->load_steps == 4 && o->max_iterations == 25 && o->atol == 1e-10 && o->rtol == 1e-6);
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
    CHECK(o->adaptive == 0 && o->load_steps == 4 && o->max_iterations == 7 && o->atol == 1e-8 && o->rtol == 1e-5);
    CHECK(o->max_halvings == 0 && o->max_history == 64);
    CHECK(sc->stages[1].type == CR_STAGE_STATIC && sc->stages[1].statics.adaptive == 1);
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
    static char doc[262144]; /* docs/scenario.md is past 64 KiB */
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
                               "output.vtk_format=compressed",
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
        CHECK(sc->output.vtk_format == CR_VTK_COMPRESSED);
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
    /* a missing object on the way is created (output_created below), a missing list is not */
    static const char *const missing_parent[] = {"loads.0.node=1"};
    EXPECT_BAD_OV("{" ROD_OK "}", missing_parent, "loads does not exist");
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
                   "rod.material.Youngs: unknown key (expected one of E, G, rho, nu)");
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
    /* a subnormal tolerance is 0 to the solvers (they flush subnormals) */
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1}, 'sections': [{'shape': 'circle',"
               " 'radius': 1}]}, 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'atol': 1e-310}]}",
               "stages.0.atol: must be at least 2.2e-308");
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
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'load_steps': 'many'}]}",
               "stages.0.load_steps: expected a whole number >= 1 or \"auto\", got \"many\"");
}

static void bad_enum(void)
{
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'sections': [{'shape': 'square', 'radius': 1}]}}",
               "rod.sections.0.shape: expected one of circle, rectangle, resultants, got \"square\"");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'material': {'E': 1, 'G': 1},"
               " 'reference': {'type': 'spiral'}, 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.reference.type: expected one of straight, helix, nodes");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1], 'frame': 'local'}]}",
               "loads.0.frame: expected one of inertial, body, got \"local\"");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'pressure'}]}", "loads.0.type: expected one of force, moment");
    EXPECT_BAD("{" ROD_OK ", 'boundary_conditions': [{'type': 'hinge', 'node': 0}]}",
               "boundary_conditions.0.type: expected one of clamp, pose, pin, support");
    EXPECT_BAD("{'model': 'finite_volume'," ROD_OK "}", "model: expected one of mixed_discrete, lgvi, port_hamiltonian, got \"finite_volume\"");
    EXPECT_BAD("{'model': {'type': 'lgvi', 'chart': 'rodrigues'}," ROD_OK "}",
               "model.chart: expected one of exp, cayley, got \"rodrigues\"");
    EXPECT_BAD("{'model': {'type': 'mixed_discrete', 'chart': 'exp'}," ROD_OK "}",
               "model.chart: an option of the lgvi model; the mixed_discrete model has no chart");
    EXPECT_BAD("{'model': {'dilatation': true}," ROD_OK "}", "model.type: missing");
    EXPECT_BAD("{'model': {'type': 'lgvi', 'dilatation': 1}," ROD_OK "}", "model.dilatation: expected true or false");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'modal'}]}", "stages.0.type: expected one of static, dynamic");
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
               "a gravity load needs a mass per length: rod.material.rho > 0 (got 0) or rhoA in rod.sections");
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

/* ---- dynamics: stages, rigid bodies, load extensions ---- */

static void auto_load_steps(void)
{
    cr_scenario *sc = load_ok("{" ROD_OK ", 'stages': [{'load_steps': 'auto'}, {'load_steps': 1}]}", NULL, 0);
    if (!sc) return;
    CHECK(sc->stages[0].statics.adaptive == 1 && sc->stages[0].statics.load_steps == 4);
    CHECK(sc->stages[1].statics.adaptive == 0 && sc->stages[1].statics.load_steps == 1);
    cr_scenario_destroy(sc);
}

static void dynamic_stages(void)
{
    cr_scenario *sc = load_ok("{" ROD_OK ", 'stages': [{'type': 'static', 'load_steps': 3},"
                              " {'type': 'dynamic', 't_end': 2.5, 'output_dt': 0.01},"
                              " {'type': 'dynamic', 't_end': 1, 'rtol': 1e-4, 'atol': 1e-8, 'output_dt': 0.1,"
                              "  'snapshot_dt': 0.5, 'h_init': 1e-5, 'h_max': 0.01, 'max_steps': 1000,"
                              "  'checkpoint_interval': 0}]}",
                              NULL, 0);
    if (!sc) return;
    CHECK(sc->stage_count == 3);
    /* a static stage: statics as given, dynamics all defaults */
    const cr_stage_def *st = &sc->stages[0];
    CHECK(st->type == CR_STAGE_STATIC && st->statics.load_steps == 3 && st->statics.adaptive == 0);
    CHECK(st->dynamics.t_end == 0 && st->dynamics.output_dt == 0);
    CHECK(st->dynamics.rtol == 1e-3 && st->dynamics.atol == 1e-6 && st->dynamics.snapshot_dt == 0);
    CHECK(st->dynamics.h_init == 0 && st->dynamics.h_max == 0 && st->dynamics.max_steps == 10000000);
    CHECK(st->dynamics.checkpoint_interval == 30);
    /* a dynamic stage with the defaults; its statics are the static defaults */
    st = &sc->stages[1];
    const cr_dynamic_options *d = &st->dynamics;
    CHECK(st->type == CR_STAGE_DYNAMIC);
    CHECK(d->t_end == 2.5 && d->output_dt == 0.01 && d->rtol == 1e-3 && d->atol == 1e-6);
    CHECK(d->snapshot_dt == 0 && d->h_init == 0 && d->h_max == 0 && d->max_steps == 10000000);
    CHECK(d->checkpoint_interval == 30);
    CHECK(st->statics.adaptive == 1 && st->statics.load_steps == 4 && st->statics.max_iterations == 25 && st->statics.atol == 1e-10);
    CHECK(st->statics.rtol == 1e-6 && st->statics.max_halvings == 10 && st->statics.max_history == 64);
    /* every key given */
    d = &sc->stages[2].dynamics;
    CHECK(sc->stages[2].type == CR_STAGE_DYNAMIC);
    CHECK(d->t_end == 1 && d->rtol == 1e-4 && d->atol == 1e-8 && d->output_dt == 0.1 && d->snapshot_dt == 0.5);
    CHECK(d->h_init == 1e-5 && d->h_max == 0.01 && d->max_steps == 1000 && d->checkpoint_interval == 0);
    cr_scenario_destroy(sc);

    /* h_init may exceed h_max = 0 (no limit) */
    sc = load_ok("{" ROD_OK ", 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'h_init': 0.5}]}",
                 NULL, 0);
    if (sc) CHECK(sc->stages[0].dynamics.h_init == 0.5 && sc->stages[0].dynamics.h_max == 0);
    cr_scenario_destroy(sc);
}

static void rigid_bodies(void)
{
    cr_scenario *sc = load_ok("{" ROD_OK ", 'rigid_bodies': ["
                              " {'name': 'tip', 'node': 'end', 'mass': 2, 'center': [2.1, 0, 0],"
                              "  'inertia': [1, 2, 3]},"
                              " {'name': 'turned', 'node': 4, 'mass': 0.5, 'center': [1, 0, 0],"
                              "  'inertia': [1, 2, 2.5], 'orientation': [1, 0, 0, 1]},"
                              " {'name': 'tensor', 'node': -11, 'mass': 1, 'center': [0, 1, 0],"
                              "  'inertia_tensor': [[2, 0.5, 0], [0.5, 2, 0], [0, 0, 3]],"
                              "  'orientation': [0, 0, 2, 0]}]}",
                              NULL, 0);
    if (!sc) return;
    const cr_rod_def *rod = &sc->rod;
    CHECK(rod->rigid_body_count == 3 && rod->rigid_bodies != NULL);
    const cr_rigid_body_def *b = &rod->rigid_bodies[0];
    CHECK(strcmp(b->name, "tip") == 0 && b->node == -1 && b->mass == 2);
    CHECK(b->center.x == 2.1 && b->center.y == 0 && b->center.z == 0);
    CHECK(b->orientation.w == 1 && b->orientation.x == 0 && b->orientation.y == 0 && b->orientation.z == 0);
    /* identity orientation: the principal moments on the diagonal, exactly */
    CHECK(b->inertia.m[0][0] == 1 && b->inertia.m[1][1] == 2 && b->inertia.m[2][2] == 3);
    CHECK(b->inertia.m[0][1] == 0 && b->inertia.m[0][2] == 0 && b->inertia.m[1][2] == 0);
    CHECK(b->inertia.m[1][0] == 0 && b->inertia.m[2][0] == 0 && b->inertia.m[2][1] == 0);

    /* 90° about z: body x along I_y, body y along -I_x, so I_xx(I) = Iyy, I_yy(I) = Ixx */
    b = &rod->rigid_bodies[1];
    CHECK(strcmp(b->name, "turned") == 0 && b->node == 4 && b->mass == 0.5);
    CHECK_NEAR(b->orientation.w, sqrt(0.5), 1e-15);
    CHECK_NEAR(b->orientation.z, sqrt(0.5), 1e-15);
    CHECK_NEAR(b->inertia.m[0][0], 2, 1e-15);
    CHECK_NEAR(b->inertia.m[1][1], 1, 1e-15);
    CHECK_NEAR(b->inertia.m[2][2], 2.5, 1e-15);
    CHECK_NEAR(b->inertia.m[0][1], 0, 1e-15);
    CHECK_NEAR(b->inertia.m[0][2], 0, 1e-15);
    CHECK_NEAR(b->inertia.m[1][2], 0, 1e-15);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK(b->inertia.m[i][j] == b->inertia.m[j][i]); /* exactly symmetric */

    /* a general rotation: R diag(I) R^T, with R = Exp(orientation) */
    cr_scenario_destroy(sc);
    sc = load_ok("{" ROD_OK ", 'rigid_bodies': [{'name': 'b', 'node': 0, 'mass': 1, 'center': [0, 0, 0],"
                 " 'inertia': [1, 2, 2.5], 'orientation': [0.3, -0.2, 0.5, 0.7]}]}",
                 NULL, 0);
    if (sc) {
        cr_quat p = cr_q_normalize(cr_q(0.3, -0.2, 0.5, 0.7));
        cr_mat3 r = cr_q_exp(p), diag = {{{1, 0, 0}, {0, 2, 0}, {0, 0, 2.5}}};
        cr_mat3 expect = cr_m3_mul(cr_m3_mul(r, diag), cr_m3_transpose(r));
        const cr_rigid_body_def *g = &sc->rod.rigid_bodies[0];
        CHECK_NEAR(g->orientation.w, p.w, 1e-15);
        CHECK_NEAR(g->orientation.z, p.z, 1e-15);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                CHECK_NEAR(g->inertia.m[i][j], expect.m[i][j], 1e-14);
                CHECK(g->inertia.m[i][j] == g->inertia.m[j][i]);
            }
        /* the trace is invariant */
        CHECK_NEAR(g->inertia.m[0][0] + g->inertia.m[1][1] + g->inertia.m[2][2], 5.5, 1e-14);
    }
    cr_scenario_destroy(sc);

    sc = load_ok("{" ROD_OK ", 'rigid_bodies': [{'name': 'tensor', 'node': -11, 'mass': 1, 'center': [0, 1, 0],"
                 " 'inertia_tensor': [[2, 0.5, 0], [0.5, 2, 0], [0, 0, 3]], 'orientation': [0, 0, 2, 0]}]}",
                 NULL, 0);
    if (sc) {
        /* the tensor is stored as given (inertial components); the orientation separately */
        const cr_rigid_body_def *t = &sc->rod.rigid_bodies[0];
        CHECK(strcmp(t->name, "tensor") == 0 && t->node == -11 && t->center.y == 1);
        CHECK(t->inertia.m[0][0] == 2 && t->inertia.m[0][1] == 0.5 && t->inertia.m[1][0] == 0.5);
        CHECK(t->inertia.m[1][1] == 2 && t->inertia.m[2][2] == 3 && t->inertia.m[0][2] == 0);
        CHECK(t->orientation.w == 0 && t->orientation.y == 1);
    }
    cr_scenario_destroy(sc);

    /* a flat body (Izz = Ixx + Iyy) is at the triangle bound and accepted, also as a rotated tensor
     * whose principal moments are recomputed with rounding */
    sc = load_ok("{" ROD_OK ", 'rigid_bodies': [{'name': 'disk', 'node': 0, 'mass': 1, 'center': [0, 0, 0],"
                 " 'inertia': [0.1, 0.1, 0.2], 'orientation': [0.9, 0.1, -0.3, 0.2]},"
                 " {'name': 'disk2', 'node': 1, 'mass': 1, 'center': [0, 0, 0],"
                 "  'inertia_tensor': [[0.15, 0.05, 0], [0.05, 0.15, 0], [0, 0, 0.1]]}]}",
                 NULL, 0);
    if (sc) CHECK(sc->rod.rigid_body_count == 2);
    cr_scenario_destroy(sc);

    /* 63 characters is the longest name */
    sc = load_ok("{" ROD_OK ", 'rigid_bodies': [{'name': "
                 "'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk',"
                 " 'node': 0, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]}]}",
                 NULL, 0);
    if (sc) CHECK(strlen(sc->rod.rigid_bodies[0].name) == 63);
    cr_scenario_destroy(sc);

    /* an empty list is the default */
    sc = load_ok("{" ROD_OK ", 'rigid_bodies': []}", NULL, 0);
    if (sc) CHECK(sc->rod.rigid_body_count == 0 && sc->rod.rigid_bodies == NULL);
    cr_scenario_destroy(sc);
    sc = load_ok("{" ROD_OK "}", NULL, 0);
    if (sc) CHECK(sc->rod.rigid_body_count == 0 && sc->rod.rigid_bodies == NULL);
    cr_scenario_destroy(sc);
}

#define TWO_BODIES                                                                                        \
    "'rigid_bodies': [{'name': 'a', 'node': 0, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]},"    \
    " {'name': 'b', 'node': 'end', 'mass': 1, 'center': [2, 0, 0], 'inertia': [1, 1, 1]}]"
#define TWO_STAGES "'stages': [{}, {'type': 'dynamic', 't_end': 1, 'output_dt': 0.1}]"

static void load_extensions(void)
{
    cr_scenario *sc = load_ok(
        "{'rod': {'length': 2, 'elements': 10, 'material': {'E': 1e9, 'G': 4e8, 'rho': 1000},"
        " 'sections': [{'shape': 'circle', 'radius': 0.01}]}, " TWO_BODIES ", " TWO_STAGES ","
        " 'loads': [{'type': 'force', 'body': 'b', 'value': [0, 0, -1], 'stages': [0]},"
        "  {'type': 'moment', 'body': 'a', 'value': [1, 0, 0], 'frame': 'body', 'stages': [1, 0],"
        "   'time': {'type': 'ramp', 't0': 0.1, 't1': 0.2}},"
        "  {'type': 'force', 'node': 3, 'value': [0, 1, 0],"
        "   'time': {'type': 'sine', 'frequency': 2.5}},"
        "  {'type': 'gravity', 'value': [0, 0, -9.81], 'time': {'type': 'constant'}},"
        "  {'type': 'force_density', 'value': [0, 1, 0], 'stages': [1],"
        "   'time': {'type': 'sine', 'amplitude': 2, 'frequency': 0, 'phase': 1.5, 'offset': -0.5}},"
        "  {'type': 'moment_density', 'value': [1, 0, 0],"
        "   'time': {'type': 'smooth_step', 't0': -1, 't1': 1}},"
        "  {'type': 'tendon', 'tension': 1, 'offset': {'y': 0.001},"
        "   'time': {'type': 'table', 'points': [[0, 0], [0.5, 1], [2, -1]]}}]}",
        NULL, 0);
    if (!sc) return;
    const cr_load_def *ld = sc->rod.loads;
    CHECK(sc->rod.load_count == 7 && sc->stage_count == 2);
    /* body loads: body index, node unused */
    CHECK(ld[0].type == CR_LOAD_FORCE && ld[0].body == 1 && ld[0].node == 0 && ld[0].value.z == -1);
    CHECK(ld[0].frame == CR_FRAME_INERTIAL && ld[0].stages == 1u);
    CHECK(ld[1].type == CR_LOAD_MOMENT && ld[1].body == 0 && ld[1].node == 0 && ld[1].frame == CR_FRAME_BODY);
    CHECK(ld[1].stages == 3u);
    /* node loads and every other type: body -1; no "stages": 0 = every stage */
    CHECK(ld[2].body == -1 && ld[2].node == 3 && ld[2].stages == 0);
    for (int i = 3; i < 7; ++i) CHECK(ld[i].body == -1 && ld[i].node == 0);
    CHECK(ld[3].stages == 0 && ld[4].stages == 2u && ld[5].stages == 0 && ld[6].stages == 0);

    /* time functions: every field, unused ones 0 */
    const cr_time_function *f = &ld[0].time; /* absent: constant */
    CHECK(f->type == CR_TIME_CONSTANT && f->t0 == 0 && f->t1 == 0 && f->amplitude == 0 && f->frequency == 0);
    CHECK(f->phase == 0 && f->offset == 0 && f->point_count == 0 && f->points == NULL);
    f = &ld[1].time;
    CHECK(f->type == CR_TIME_RAMP && f->t0 == 0.1 && f->t1 == 0.2 && f->amplitude == 0 && f->frequency == 0);
    CHECK(f->phase == 0 && f->offset == 0 && f->point_count == 0 && f->points == NULL);
    f = &ld[2].time; /* sine defaults */
    CHECK(f->type == CR_TIME_SINE && f->amplitude == 1 && f->frequency == 2.5 && f->phase == 0 && f->offset == 0);
    CHECK(f->t0 == 0 && f->t1 == 0 && f->point_count == 0 && f->points == NULL);
    f = &ld[3].time; /* explicit constant */
    CHECK(f->type == CR_TIME_CONSTANT && f->amplitude == 0 && f->point_count == 0 && f->points == NULL);
    f = &ld[4].time;
    CHECK(f->type == CR_TIME_SINE && f->amplitude == 2 && f->frequency == 0 && f->phase == 1.5 && f->offset == -0.5);
    f = &ld[5].time;
    CHECK(f->type == CR_TIME_SMOOTH_STEP && f->t0 == -1 && f->t1 == 1 && f->amplitude == 0);
    f = &ld[6].time;
    CHECK(f->type == CR_TIME_TABLE && f->point_count == 3 && f->points != NULL);
    CHECK(f->t0 == 0 && f->t1 == 0 && f->amplitude == 0 && f->frequency == 0 && f->phase == 0 && f->offset == 0);
    if (f->points) {
        CHECK(f->points[0].t == 0 && f->points[0].value == 0);
        CHECK(f->points[1].t == 0.5 && f->points[1].value == 1);
        CHECK(f->points[2].t == 2 && f->points[2].value == -1);
    }
    /* the tendon's own table and the time table are separate storage */
    CHECK(ld[6].offset.type == CR_OFFSET_CONSTANT && ld[6].offset.y == 0.001);
    cr_scenario_destroy(sc);

    /* the highest stage index of the stage list */
    sc = load_ok("{" ROD_OK ", 'stages': [{}, {}, {}, {'type': 'dynamic', 't_end': 1, 'output_dt': 1}],"
                 " 'loads': [{'type': 'force', 'node': 0, 'value': [1, 0, 0], 'stages': [3, 1]}]}",
                 NULL, 0);
    if (sc) CHECK(sc->rod.loads[0].stages == ((1u << 3) | (1u << 1)));
    cr_scenario_destroy(sc);
}

/* The Wilberforce pendulum of docs/scenario.md, with the exact numbers. */
#define WILBERFORCE_JSON                                                                                   \
    "{'name': 'wilberforce', 'model': 'mixed_discrete',"                                                   \
    " 'rod': {'length': 2.010718767676425, 'elements': 800,"                                               \
    "  'material': {'E': 206e9, 'G': 81.5e9, 'rho': 7850},"                                               \
    "  'reference': {'type': 'helix', 'origin': [0, 0, 0], 'radius': 0.016, 'pitch': 0.001},"              \
    "  'sections': [{'shape': 'circle', 'radius': 0.0005}]},"                                              \
    " 'boundary_conditions': [{'type': 'clamp', 'node': 'end'}],"                                          \
    " 'rigid_bodies': [{'name': 'bob', 'node': 'start', 'mass': 0.5240569245269474,"                       \
    "  'center': [0, 0, -0.0175],"                                                                         \
    "  'inertia': [0.00013236804485343147, 0.00013236804485343147, 0.00016376778891467105],"               \
    "  'orientation': [1, 0, 0, 0]}],"                                                                     \
    " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"                                              \
    "  {'type': 'force', 'body': 'bob', 'frame': 'inertial', 'value': [0, 0, -1.542299528882806],"         \
    "   'stages': [0]}],"                                                                                  \
    " 'stages': [{'type': 'static', 'load_steps': 10},"                                                    \
    "  {'type': 'dynamic', 't_end': 20, 'rtol': 1e-3, 'atol': 1e-6, 'output_dt': 0.001}],"                 \
    " 'output': {'directory': 'out/wilberforce', 'vtk': true}}"

static void check_wilberforce(const cr_scenario *sc)
{
    const cr_rod_def *rod = &sc->rod;
    CHECK(strcmp(sc->name, "wilberforce") == 0 && strcmp(sc->model.type, "mixed_discrete") == 0);
    /* L = 20 coils · 2π √(R² + (pitch/2π)²), the nearest double */
    double R = 0.016, c = 0.001 / (2 * PI);
    CHECK(rod->length == 2.010718767676425);
    CHECK_NEAR(rod->length, 40 * PI * sqrt(R * R + c * c), 4e-16 * 2);
    CHECK(rod->elements == 800);
    CHECK(rod->material.E == 206e9 && rod->material.G == 81.5e9 && rod->material.rho == 7850);
    CHECK(rod->reference.type == CR_REFERENCE_HELIX && rod->reference.helix_radius == 0.016);
    CHECK(rod->reference.helix_pitch == 0.001 && rod->reference.origin.z == 0);
    CHECK(rod->section_count == 1 && rod->sections[0].shape == CR_SECTION_CIRCLE);
    CHECK(rod->sections[0].radius[0] == 0.0005 && rod->sections[0].radius[1] == 0.0005);
    CHECK(rod->bc_count == 1 && rod->bcs[0].type == CR_BC_CLAMP && rod->bcs[0].node == -1);

    /* bob: a steel cylinder, a = 0.025, h = 0.034 */
    double a = 0.025, h = 0.034, m = PI * 7850 * a * a * h;
    CHECK(rod->rigid_body_count == 1);
    const cr_rigid_body_def *b = &rod->rigid_bodies[0];
    CHECK(strcmp(b->name, "bob") == 0 && b->node == 0);
    CHECK(b->mass == 0.5240569245269474);
    CHECK_NEAR(b->mass, m, 2e-16);
    CHECK(b->center.x == 0 && b->center.y == 0 && b->center.z == -0.0175);
    CHECK(b->orientation.w == 1 && b->orientation.x == 0 && b->orientation.y == 0 && b->orientation.z == 0);
    CHECK(b->inertia.m[0][0] == 0.00013236804485343147 && b->inertia.m[1][1] == 0.00013236804485343147);
    CHECK(b->inertia.m[2][2] == 0.00016376778891467105);
    CHECK_NEAR(b->inertia.m[0][0], m * (a * a / 4 + h * h / 12), 1e-19);
    CHECK_NEAR(b->inertia.m[2][2], m * a * a / 2, 1e-19);
    CHECK(b->inertia.m[0][1] == 0 && b->inertia.m[0][2] == 0 && b->inertia.m[1][2] == 0);
    CHECK(b->inertia.m[1][0] == 0 && b->inertia.m[2][0] == 0 && b->inertia.m[2][1] == 0);

    CHECK(rod->load_count == 2);
    const cr_load_def *g = &rod->loads[0], *f = &rod->loads[1];
    CHECK(g->type == CR_LOAD_GRAVITY && g->value.z == -9.81 && g->body == -1 && g->stages == 0);
    CHECK(g->time.type == CR_TIME_CONSTANT);
    CHECK(f->type == CR_LOAD_FORCE && f->body == 0 && f->node == 0 && f->frame == CR_FRAME_INERTIAL);
    CHECK(f->value.x == 0 && f->value.y == 0 && f->value.z == -1.542299528882806);
    CHECK_NEAR(f->value.z, -0.3 * m * 9.81, 4e-16);
    CHECK(f->stages == 1u && f->time.type == CR_TIME_CONSTANT);

    CHECK(sc->stage_count == 2);
    CHECK(sc->stages[0].type == CR_STAGE_STATIC && sc->stages[0].statics.load_steps == 10);
    const cr_dynamic_options *d = &sc->stages[1].dynamics;
    CHECK(sc->stages[1].type == CR_STAGE_DYNAMIC);
    CHECK(d->t_end == 20 && d->rtol == 1e-3 && d->atol == 1e-6 && d->output_dt == 0.001);
    CHECK(d->snapshot_dt == 0 && d->h_init == 0 && d->h_max == 0 && d->max_steps == 10000000);
    CHECK(d->checkpoint_interval == 30);
    CHECK(strcmp(sc->output.directory, "out/wilberforce") == 0 && sc->output.vtk == 1);
}

static void wilberforce(void)
{
    const char *path = "test_scenario_wilberforce.json";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(q(WILBERFORCE_JSON), f);
    fclose(f);
    cr_scenario *sc = NULL;
    cr_error err = {CR_OK, ""};
    cr_status s = cr_scenario_load_file(path, NULL, 0, &sc, &err);
    remove(path);
    if (s) fprintf(stderr, "  %s\n", err.message);
    CHECK(s == CR_OK);
    if (sc) check_wilberforce(sc);
    cr_scenario_destroy(sc);
}

/* The dynamic example in docs/scenario.md is the same scenario. */
static void documented_dynamic_example(void)
{
    FILE *f = fopen(COSSERAT_SOURCE_DIR "/docs/scenario.md", "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char doc[262144]; /* docs/scenario.md is past 64 KiB */
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    CHECK(feof(f)); /* the whole file was read */
    fclose(f);
    doc[n] = '\0';
    char *start = strstr(doc, "## A complete dynamic example");
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
    if (sc) check_wilberforce(sc);
    cr_scenario_destroy(sc);
}

static void overrides_dynamics(void)
{
    const char *const set[] = {"stages.1.t_end=1",
                               "stages.1.h_max=0.01", /* absent: an allowed key of a dynamic stage */
                               "rigid_bodies.0.mass=0.6",
                               "rigid_bodies.0.center.2=-0.02",
                               "loads.2.time.frequency=3",
                               "loads.1.stages=[0, 1]",
                               "loads.0.time={\"type\": \"ramp\", \"t0\": 0, \"t1\": 0.5}",
                               "loads.3.stages.0=1"};
    cr_scenario *sc = load_ok("{'rod': {'length': 2, 'elements': 10, 'material': {'E': 1e9, 'G': 4e8, 'rho': 1},"
                              " 'sections': [{'shape': 'circle', 'radius': 0.01}]}, " TWO_STAGES ","
                              " 'rigid_bodies': [{'name': 'bob', 'node': 0, 'mass': 0.5, 'center': [0, 0, -0.01],"
                              "  'inertia': [1, 1, 1]}],"
                              " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"
                              "  {'type': 'force', 'body': 'bob', 'value': [0, 0, -1], 'stages': [0]},"
                              "  {'type': 'force', 'node': 'end', 'value': [1, 0, 0],"
                              "   'time': {'type': 'sine', 'frequency': 1}},"
                              "  {'type': 'moment', 'node': 'end', 'value': [1, 0, 0], 'stages': [0]}]}",
                              set, (int)(sizeof set / sizeof set[0]));
    if (sc) {
        CHECK(sc->stages[1].dynamics.t_end == 1 && sc->stages[1].dynamics.h_max == 0.01);
        CHECK(sc->rod.rigid_bodies[0].mass == 0.6 && sc->rod.rigid_bodies[0].center.z == -0.02);
        CHECK(sc->rod.loads[2].time.type == CR_TIME_SINE && sc->rod.loads[2].time.frequency == 3);
        CHECK(sc->rod.loads[1].stages == 3u && sc->rod.loads[3].stages == 2u);
        CHECK(sc->rod.loads[0].time.type == CR_TIME_RAMP && sc->rod.loads[0].time.t1 == 0.5);
    }
    cr_scenario_destroy(sc);

    /* a whole rigid body list may be set; keys of the other variant count as unknown */
    const char *const add[] = {"rigid_bodies=[{\"name\": \"x\", \"node\": 0, \"mass\": 1, \"center\": [0, 0, 0],"
                               " \"inertia\": [1, 1, 1]}]",
                               "rigid_bodies.0.orientation=[0, 1, 0, 0]"};
    sc = load_ok("{" ROD_OK "}", add, 2);
    if (sc) CHECK(sc->rod.rigid_body_count == 1 && sc->rod.rigid_bodies[0].orientation.x == 1);
    cr_scenario_destroy(sc);

    static const char *const static_key[] = {"stages.1.load_steps=3"};
    EXPECT_BAD_OV("{" ROD_OK ", " TWO_STAGES "}", static_key,
                  "stages.1.load_steps: unknown key for a dynamic stage");
    static const char *const dyn_key[] = {"stages.0.t_end=3"};
    EXPECT_BAD_OV("{" ROD_OK ", " TWO_STAGES "}", dyn_key, "stages.0.t_end: unknown key for a static stage");
    static const char *const bad_t_end[] = {"stages.1.t_end=0"};
    EXPECT_BAD_OV("{" ROD_OK ", " TWO_STAGES "}", bad_t_end, "stages.1.t_end: must be > 0, got 0");
    static const char *const both_inertia[] = {"rigid_bodies.0.inertia_tensor=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"};
    EXPECT_BAD_OV("{" ROD_OK ", " TWO_BODIES "}", both_inertia, "rigid_bodies.0: give the inertia either");
    static const char *const body_typo[] = {"rigid_bodies.0.masss=1"};
    EXPECT_BAD_OV("{" ROD_OK ", " TWO_BODIES "}", body_typo, "rigid_bodies.0.masss: unknown key");
    static const char *const time_key[] = {"loads.0.time.frequency=3"}; /* a ramp has no frequency */
    EXPECT_BAD_OV("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [1, 0, 0],"
                  " 'time': {'type': 'ramp', 't0': 0, 't1': 1}}]}",
                  time_key, "loads.0.time.frequency: unknown key for a ramp time function");
    static const char *const no_time[] = {"loads.0.time.frequency=3"};
    EXPECT_BAD_OV("{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [1, 0, 0]}]}", no_time,
                  "loads.0.time.type: missing");
    static const char *const bad_stage[] = {"loads.0.stages=[2]"};
    EXPECT_BAD_OV("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'force', 'node': 0, 'value': [1, 0, 0]}]}",
                  bad_stage, "loads.0.stages.0: no such stage");
}

static void bad_dynamic(void)
{
#define DYN(extra) "{" ROD_OK ", 'stages': [{'type': 'dynamic', " extra "}]}"
    EXPECT_MESSAGE(DYN("'output_dt': 0.1"), "stages.0.t_end: missing");
    EXPECT_MESSAGE(DYN("'t_end': 1"), "stages.0.output_dt: missing");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'dynamic'}]}", "stages.0.t_end: missing");
    EXPECT_MESSAGE(DYN("'t_end': 0, 'output_dt': 0.1"), "stages.0.t_end: must be > 0, got 0");
    EXPECT_BAD(DYN("'t_end': -2, 'output_dt': 0.1"), "stages.0.t_end: must be > 0, got -2");
    EXPECT_BAD(DYN("'t_end': 1e999, 'output_dt': 0.1"), "stages.0.t_end: must be finite");
    EXPECT_BAD(DYN("'t_end': '1', 'output_dt': 0.1"), "stages.0.t_end: expected a number, got \"1\"");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0"), "stages.0.output_dt: must be > 0, got 0");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'rtol': 0"), "stages.0.rtol: must be > 0, got 0");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'atol': -1e-6"), "stages.0.atol: must be > 0, got -1e-06");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'snapshot_dt': -0.1"),
               "stages.0.snapshot_dt: must be >= 0, got -0.1");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'h_init': -1"), "stages.0.h_init: must be >= 0, got -1");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'h_max': -1"), "stages.0.h_max: must be >= 0, got -1");
    EXPECT_MESSAGE(DYN("'t_end': 1, 'output_dt': 0.1, 'h_init': 0.1, 'h_max': 0.01"),
                   "stages.0.h_init: must be <= h_max = 0.01, got 0.1");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'max_steps': 0"), "stages.0.max_steps: must be >= 1, got 0");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'max_steps': 1.5"),
               "stages.0.max_steps: expected an integer, got 1.5");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'max_steps': 1e10"), "stages.0.max_steps: must be <=");
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'checkpoint_interval': -30"),
               "stages.0.checkpoint_interval: must be >= 0, got -30");
    /* each kind of stage allows only its own keys */
    EXPECT_BAD(DYN("'t_end': 1, 'output_dt': 0.1, 'load_steps': 4"),
               "stages.0.load_steps: unknown key for a dynamic stage (expected one of type, t_end");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'t_end': 1}]}", "stages.0.t_end: unknown key for a static stage");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1},"
               " {'type': 'dynamic', 't_end': 1}]}",
               "stages.1.output_dt: missing");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'modal', 't_end': 1}]}",
               "stages.0.type: expected one of static, dynamic, got \"modal\"");
#undef DYN
}

static void bad_rigid_bodies(void)
{
#define BODY(fields) "{" ROD_OK ", 'rigid_bodies': [{" fields "}]}"
#define OK_BODY "'name': 'b', 'node': 0, 'mass': 1, 'center': [0, 0, 0]"
    EXPECT_BAD("{" ROD_OK ", 'rigid_bodies': {}}", "rigid_bodies: expected an array");
    EXPECT_BAD("{" ROD_OK ", 'rigid_bodies': [3]}", "rigid_bodies.0: expected an object, got 3");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 1, 1], 'color': 'red'"),
               "rigid_bodies.0.color: unknown key (expected one of name, node, mass");
    /* name */
    EXPECT_MESSAGE(BODY("'node': 0, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
                   "rigid_bodies.0.name: missing");
    EXPECT_BAD(BODY("'name': '', 'node': 0, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.name: must not be empty");
    EXPECT_BAD(BODY("'name': 7, 'node': 0, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.name: expected a string, got 7");
    EXPECT_BAD(BODY("'name': 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl', 'node': 0,"
                    " 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.name: longer than 63 characters");
    EXPECT_MESSAGE("{" ROD_OK ", 'rigid_bodies': [{" OK_BODY ", 'inertia': [1, 1, 1]},"
                   " {'name': 'c', 'node': 1, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]},"
                   " {" OK_BODY ", 'inertia': [1, 1, 1]}]}",
                   "rigid_bodies.2.name: duplicate name \"b\" (already used by rigid_bodies.0)");
    /* node, mass, center, orientation */
    EXPECT_BAD(BODY("'name': 'b', 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.node: missing");
    EXPECT_BAD(BODY("'name': 'b', 'node': 11, 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.node: node index must be in [-11, 10]");
    EXPECT_BAD(BODY("'name': 'b', 'node': 'top', 'mass': 1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.node: expected \"start\", \"end\" or an integer");
    EXPECT_BAD(BODY("'name': 'b', 'node': 0, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.mass: missing");
    EXPECT_BAD(BODY("'name': 'b', 'node': 0, 'mass': 0, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.mass: must be > 0, got 0");
    EXPECT_BAD(BODY("'name': 'b', 'node': 0, 'mass': -1, 'center': [0, 0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.mass: must be > 0, got -1");
    EXPECT_BAD(BODY("'name': 'b', 'node': 0, 'mass': 1, 'inertia': [1, 1, 1]"), "rigid_bodies.0.center: missing");
    EXPECT_BAD(BODY("'name': 'b', 'node': 0, 'mass': 1, 'center': [0, 0], 'inertia': [1, 1, 1]"),
               "rigid_bodies.0.center: expected an array of 3 numbers");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 1, 1], 'orientation': [0, 0, 0, 0]"),
               "rigid_bodies.0.orientation: must be nonzero, got [0,0,0,0]");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 1, 1], 'orientation': [1, 0, 0]"),
               "rigid_bodies.0.orientation: expected an array of 4 numbers");
    /* inertia forms */
    EXPECT_MESSAGE(BODY(OK_BODY), "rigid_bodies.0.inertia: missing (give inertia [Ixx, Iyy, Izz] or inertia_tensor "
                                  "[[...], [...], [...]])");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 1, 1], 'inertia_tensor': [[1, 0, 0], [0, 1, 0], [0, 0, 1]]"),
               "rigid_bodies.0: give the inertia either as inertia (principal moments) or as inertia_tensor, not both");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 0, 1]"), "rigid_bodies.0.inertia.1: must be > 0, got 0");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 1, -1]"), "rigid_bodies.0.inertia.2: must be > 0, got -1");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [1, 1]"), "rigid_bodies.0.inertia: expected an array of 3 numbers");
    EXPECT_MESSAGE(BODY(OK_BODY ", 'inertia': [1, 3, 1]"),
                   "rigid_bodies.0.inertia.1: principal moment 3 exceeds the sum 1 + 1 of the other two (the "
                   "triangle inequality of a physical body)");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia': [0.1, 0.1, 0.2000001]"), "rigid_bodies.0.inertia.2: principal moment");
    /* the tensor form */
    EXPECT_MESSAGE(BODY(OK_BODY ", 'inertia_tensor': [[2, 0.5, 0], [0.4, 2, 0], [0, 0, 3]]"),
                   "rigid_bodies.0.inertia_tensor: must be symmetric (relative tolerance 1e-12), but entry 0.1 = 0.5 "
                   "and entry 1.0 = 0.4");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[2, 0, 0], [0, 2, 1e-9], [0, 0, 3]]"),
               "rigid_bodies.0.inertia_tensor: must be symmetric");
    /* symmetric to rounding is fine */
    cr_scenario *sc = load_ok(BODY(OK_BODY ", 'inertia_tensor': [[2, 0.5, 0], [0.5000000000000001, 2, 0],"
                                           " [0, 0, 3]]"),
                              NULL, 0);
    if (sc) CHECK(sc->rod.rigid_bodies[0].inertia.m[0][1] == sc->rod.rigid_bodies[0].inertia.m[1][0]);
    cr_scenario_destroy(sc);
    EXPECT_MESSAGE(BODY(OK_BODY ", 'inertia_tensor': [[1, 2, 0], [2, 1, 0], [0, 0, 1]]"),
                   "rigid_bodies.0.inertia_tensor: must be positive definite, got [[1,2,0],[2,1,0],[0,0,1]]");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[1, 0, 0], [0, 0, 0], [0, 0, 1]]"),
               "rigid_bodies.0.inertia_tensor: must be positive definite");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[-1, 0, 0], [0, -1, 0], [0, 0, -1]]"),
               "rigid_bodies.0.inertia_tensor: must be positive definite");
    /* positive definite, but principal moments 1, 1, 3 (rotated about z): not a physical body */
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[2, 1, 0], [1, 2, 0], [0, 0, 1]]"),
               "rigid_bodies.0.inertia_tensor: the principal moments 1, 1, 3 violate the triangle inequality");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[1, 0, 0], [0, 1, 0]]"),
               "rigid_bodies.0.inertia_tensor: expected a 3x3 array");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[1, 0, 0], [0, 1, 0], [0, 0]]"),
               "rigid_bodies.0.inertia_tensor.2: expected an array of 3 numbers");
    EXPECT_BAD(BODY(OK_BODY ", 'inertia_tensor': [[1, 0, 0], [0, 1, 0], [0, 0, 1e999]]"),
               "rigid_bodies.0.inertia_tensor.2.2: must be finite");
#undef BODY
#undef OK_BODY
}

static void bad_load_extensions(void)
{
    /* node or body, exactly one */
    EXPECT_MESSAGE("{" ROD_OK ", " TWO_BODIES ", 'loads': [{'type': 'force', 'node': 0, 'body': 'a',"
                   " 'value': [0, 0, 1]}]}",
                   "loads.0: give either node (a load on the rod) or body (a load on a rigid body), not both");
    EXPECT_BAD("{" ROD_OK ", " TWO_BODIES ", 'loads': [{'type': 'moment', 'value': [0, 0, 1]}]}",
               "loads.0.node: missing (give node, or body");
    EXPECT_MESSAGE("{" ROD_OK ", " TWO_BODIES ", 'loads': [{'type': 'force', 'body': 'c', 'value': [0, 0, 1]}]}",
                   "loads.0.body: unknown rigid body \"c\" (expected one of a, b)");
    EXPECT_MESSAGE("{" ROD_OK ", 'loads': [{'type': 'force', 'body': 'a', 'value': [0, 0, 1]}]}",
                   "loads.0.body: unknown rigid body \"a\" (rigid_bodies is empty)");
    EXPECT_BAD("{" ROD_OK ", " TWO_BODIES ", 'loads': [{'type': 'force', 'body': 0, 'value': [0, 0, 1]}]}",
               "loads.0.body: expected the name of a rigid body (a string), got 0");
    EXPECT_BAD("{" ROD_OK ", " TWO_BODIES ", 'loads': [{'type': 'force_density', 'body': 'a', 'value': [0, 0, 1]}]}",
               "loads.0.body: unknown key for a force_density load");
    /* stages */
    EXPECT_MESSAGE("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1],"
                   " 'stages': [0, 2]}]}",
                   "loads.0.stages.1: no such stage: must be <= 1 (the scenario has 2 stages), got 2");
    EXPECT_BAD("{" ROD_OK ", 'loads': [{'type': 'force_density', 'value': [0, 0, 1], 'stages': [1]}]}",
               "loads.0.stages.0: no such stage: must be <= 0 (the scenario has 1 stage), got 1");
    EXPECT_BAD("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'moment_density', 'value': [0, 0, 1],"
               " 'stages': [-1]}]}",
               "loads.0.stages.0: must be >= 0, got -1");
    EXPECT_MESSAGE("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1]},"
                   " {'type': 'force', 'node': 0, 'value': [0, 0, 1], 'stages': [1, 0, 1]}]}",
                   "loads.1.stages.2: duplicate stage 1 (already given as loads.1.stages.0)");
    EXPECT_BAD("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1],"
               " 'stages': []}]}",
               "loads.0.stages: expected at least 1 stage index, got []");
    EXPECT_BAD("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1],"
               " 'stages': 1}]}",
               "loads.0.stages: expected an array, got 1");
    EXPECT_BAD("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'y': 0},"
               " 'stages': [0.5]}]}",
               "loads.0.stages.0: expected an integer, got 0.5");
    EXPECT_BAD("{" ROD_OK ", " TWO_STAGES ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1],"
               " 'stages': ['dynamic']}]}",
               "loads.0.stages.0: expected an integer, got \"dynamic\"");
    /* more stages than mask bits: the stages past the mask cannot be selected */
    {
        static char many[2048];
        const int bits = (int)(sizeof(unsigned) * 8);
        size_t k = (size_t)snprintf(many, sizeof many, "{%s, 'stages': [{}", ROD_OK);
        for (int i = 1; i <= bits; ++i) k += (size_t)snprintf(many + k, sizeof many - k, ", {}");
        snprintf(many + k, sizeof many - k,
                 "], 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1], 'stages': [%d, %d]}]}", bits - 1,
                 bits);
        char needle[96];
        snprintf(needle, sizeof needle, "loads.0.stages.1: must be < %d (the stage mask has %d bits), got %d", bits,
                 bits, bits);
        expect_bad_ov(__LINE__, many, NULL, 0, needle);
    }
    /* time functions */
#define TIMED(fn) "{" ROD_OK ", 'loads': [{'type': 'force', 'node': 0, 'value': [0, 0, 1], 'time': " fn "}]}"
    EXPECT_MESSAGE(TIMED("{'type': 'ramp', 't0': 1, 't1': 1}"), "loads.0.time.t1: must be > t0 = 1, got 1");
    EXPECT_BAD(TIMED("{'type': 'ramp', 't0': 2, 't1': 1}"), "loads.0.time.t1: must be > t0 = 2, got 1");
    EXPECT_BAD(TIMED("{'type': 'smooth_step', 't0': 0.5, 't1': 0.25}"),
               "loads.0.time.t1: must be > t0 = 0.5, got 0.25");
    EXPECT_BAD(TIMED("{'type': 'ramp', 't1': 1}"), "loads.0.time.t0: missing");
    EXPECT_BAD(TIMED("{'type': 'smooth_step', 't0': 1}"), "loads.0.time.t1: missing");
    EXPECT_MESSAGE(TIMED("{'type': 'table', 'points': [[0, 0], [1, 1], [1, 2]]}"),
                   "loads.0.time.points.2.0: t must be > 1 (the previous row's; t strictly increases), got 1");
    EXPECT_BAD(TIMED("{'type': 'table', 'points': [[0, 0], [-1, 1]]}"), "loads.0.time.points.1.0: t must be > 0");
    EXPECT_BAD(TIMED("{'type': 'table', 'points': [[0, 0]]}"), "loads.0.time.points: expected at least 2 rows");
    EXPECT_BAD(TIMED("{'type': 'table', 'points': [[0, 0], [1, 2, 3]]}"),
               "loads.0.time.points.1: expected an array of 2 numbers");
    EXPECT_BAD(TIMED("{'type': 'table'}"), "loads.0.time.points: missing");
    EXPECT_MESSAGE(TIMED("{'type': 'sine', 'frequency': -1}"), "loads.0.time.frequency: must be >= 0, got -1");
    EXPECT_BAD(TIMED("{'type': 'sine', 'amplitude': 2}"), "loads.0.time.frequency: missing");
    EXPECT_BAD(TIMED("{'type': 'sine', 'frequency': 1, 'phase': 1e999}"), "loads.0.time.phase: must be finite");
    EXPECT_BAD(TIMED("{'t0': 0, 't1': 1}"), "loads.0.time.type: missing");
    EXPECT_BAD(TIMED("{'type': 'square', 'frequency': 1}"),
               "loads.0.time.type: expected one of constant, ramp, table, sine, smooth_step, got \"square\"");
    EXPECT_BAD(TIMED("{'type': 'constant', 'offset': 1}"),
               "loads.0.time.offset: unknown key for a constant time function (expected one of type)");
    EXPECT_BAD(TIMED("{'type': 'ramp', 't0': 0, 't1': 1, 'frequency': 1}"),
               "loads.0.time.frequency: unknown key for a ramp time function");
    EXPECT_BAD(TIMED("'ramp'"), "loads.0.time: expected an object, got \"ramp\"");
#undef TIMED
    /* gravity still needs the rod's density, rigid bodies or not */
    EXPECT_BAD("{" ROD_OK ", " TWO_BODIES ", 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]}]}",
               "loads.0: a gravity load needs a mass per length: rod.material.rho > 0");
}

/* A section given by its resultants is the same rod as the shape and material
 * they come from: a tapered circular cantilever under gravity and a tip
 * force/moment, solved both ways, through the formulation-neutral cr_sim. */
static void resultant_section_equals_shape(void)
{
    const double E = 2e9, G = 0.8e9, rho = 1100, r0 = 0.01, r1 = 0.006;
    char shape[1024], res[2048];
    const char *rest = "'elements': 30, 'length': 1},"
                       " 'boundary_conditions': [{'type': 'clamp', 'node': 0}],"
                       " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"
                       "           {'type': 'force', 'node': -1, 'value': [0, 2, -3]},"
                       "           {'type': 'moment', 'node': -1, 'value': [0.1, 0, 0]}]}";
    snprintf(shape, sizeof shape,
             "{'rod': {'material': {'E': %.17g, 'G': %.17g, 'rho': %.17g},"
             " 'sections': [{'shape': 'circle', 'radius': [%.17g, %.17g]}], %s",
             E, G, rho, r0, r1, rest);
    /* the resultants at both ends of the taper; inside the segment they are interpolated
     * linearly, unlike r⁴, so compare a constant section exactly and the taper loosely */
    double A0 = M_PI * r0 * r0, I0 = M_PI * pow(r0, 4) / 4;
    snprintf(res, sizeof res,
             "{'rod': {'sections': [{'shape': 'resultants', 'EA': %.17g, 'GA_y': %.17g, 'GA_z': %.17g,"
             " 'GJ': %.17g, 'EI_y': %.17g, 'EI_z': %.17g, 'rhoA': %.17g, 'rhoI_y': %.17g, 'rhoI_z': %.17g}], %s",
             E * A0, G * A0, G * A0, G * 2 * I0, E * I0, E * I0, rho * A0, rho * I0, rho * I0, rest);
    char shape_const[1024];
    snprintf(shape_const, sizeof shape_const,
             "{'rod': {'material': {'E': %.17g, 'G': %.17g, 'rho': %.17g},"
             " 'sections': [{'shape': 'circle', 'radius': %.17g}], %s",
             E, G, rho, r0, rest);
    cr_scenario *a = load_ok(shape_const, NULL, 0), *b = load_ok(res, NULL, 0), *c = load_ok(shape, NULL, 0);
    CHECK(a && b && c);
    if (!a || !b || !c) return;
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result ra, rb, rc;
    cr_error err = {0};
    CHECK(cr_scenario_run(a, &o, &ra, &err) == CR_OK);
    CHECK(cr_scenario_run(b, &o, &rb, &err) == CR_OK);
    CHECK(cr_scenario_run(c, &o, &rc, &err) == CR_OK);
    CHECK(strcmp(cr_sim_formulation(ra.sim), "mixed_discrete") == 0);
    CHECK(cr_sim_node_count(ra.sim) == 31 && cr_sim_sample_count(ra.sim) == 30);
    int tip = cr_sim_node_count(ra.sim) - 1;
    cr_vec3 pa = cr_sim_position(ra.sim, tip), pb = cr_sim_position(rb.sim, tip), pc = cr_sim_position(rc.sim, tip);
    /* same rod: equal to round-off; the sag itself is large (not a trivially zero answer) */
    CHECK(cr_v3_norm(cr_v3_sub(pa, cr_v3(1, 0, 0))) > 0.05);
    CHECK(cr_v3_norm(cr_v3_sub(pa, pb)) < 1e-12);
    /* the tapered rod is softer: a different answer */
    CHECK(cr_v3_norm(cr_v3_sub(pa, pc)) > 1e-3);
    /* sim accessors agree with the mixed rod's own */
    const cr_model *m = cr_sim_mixed_model(ra.sim);
    CHECK(m && cr_v3_norm(cr_v3_sub(cr_state_position(cr_sim_mixed_state(ra.sim), tip), pa)) == 0);
    cr_vec3 g1, g2;
    cr_sim_sample(ra.sim, 3, &g1, NULL, NULL, NULL);
    cr_state_element(m, cr_sim_mixed_state(ra.sim), 3, &g2, NULL, NULL, NULL);
    CHECK(cr_v3_norm(cr_v3_sub(g1, g2)) == 0 && cr_sim_sample_s(ra.sim, 3) == cr_model_element_s(m, 3));
    cr_run_result_free(&ra);
    cr_run_result_free(&rb);
    cr_run_result_free(&rc);
    cr_scenario_destroy(a);
    cr_scenario_destroy(b);
    cr_scenario_destroy(c);
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'sections': [{'shape': 'resultants', 'EA': 1, 'GA_y': 1,"
               " 'GA_z': 1, 'GJ': 1, 'EI_y': 0, 'EI_z': 1}]}}",
               "rod.sections.0.EI_y: must be > 0, got 0");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'sections': [{'shape': 'resultants', 'EA': 1, 'GA_y': 1,"
               " 'GA_z': 1, 'GJ': 1, 'EI_y': 1}]}}",
               "rod.sections.0.EI_z: missing");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'sections': [{'shape': 'resultants', 'EA': 1, 'GA_y': 1,"
               " 'GA_z': 1, 'GJ': 1, 'EI_y': 1, 'EI_z': 1, 'radius': 1}]}}",
               "rod.sections.0.radius: unknown key for a resultants section");
    EXPECT_BAD("{'rod': {'length': 1, 'elements': 2, 'sections': [{'shape': 'circle', 'radius': 1}]}}",
               "rod.material: missing (or give every section as shape \"resultants\")");
    EXPECT_BAD("{" ROD_OK ", 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'time_step': 0}]}",
               "stages.0.time_step: must be > 0, got 0");
}

/* Finite but absurd load magnitudes are refused at check, naming the key (they would overflow in the solve). */
static void bad_load_magnitudes(void)
{
    static const struct {
        const char *json, *needle;
    } cases[] = {
        {"{" ROD_OK ", 'loads': [{'type': 'force', 'node': -1, 'value': [0, 0, 1e300]}]}",
         "loads.0.value.2: must be within +-1e+150 (the range of load magnitudes), got 1e+300"},
        {"{" ROD_OK ", 'loads': [{'type': 'tendon', 'tension': 1e200, 'offset': {'y': 0.001, 'z': 0}}]}",
         "loads.0.tension: must be within +-1e+150"},
        {"{" ROD_OK ", 'loads': [{'type': 'force', 'node': -1, 'value': [0, 0, 1],"
         " 'time': {'type': 'table', 'points': [[0, 0], [1, 1e299]]}}]}",
         "loads.0.time.points.1: value within +-1e+150"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cr_scenario *sc = load_ok(cases[k].json, NULL, 0);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_error err = {0};
        cr_status st = cr_scenario_check(sc, &err);
        if (st != CR_BAD_INPUT || !strstr(err.message, cases[k].needle))
            fprintf(stderr, "  case %zu: status %d, \"%s\"\n", k, st, err.message);
        CHECK(st == CR_BAD_INPUT && strstr(err.message, cases[k].needle));
        cr_scenario_destroy(sc);
    }
}

/* What a user hit: a missing object on an override's way is created; Poisson's ratio instead
 * of G (G = E / (2 (1 + nu)), the isotropic relation); --set model=NAME keeps the options so
 * another formulation's are refused by name, not dropped with the object. */
static void user_inputs(void)
{
    /* output.vtk=false on a scenario without "output": {"output": {"vtk": false}} */
    static const char *const vtk_off[] = {"output.vtk=false"};
    cr_scenario *sc = load_ok("{" ROD_OK "}", vtk_off, 1);
    if (sc) CHECK(sc->output.vtk == 0);
    cr_scenario_destroy(sc);
    sc = load_ok("{" ROD_OK "}", NULL, 0); /* the default it overrides */
    if (sc) CHECK(sc->output.vtk == 1);
    cr_scenario_destroy(sc);
    static const char *const deep[] = {"rod.damping.relaxation_time=0.01"}; /* two levels, one created */
    sc = load_ok("{" ROD_OK "}", deep, 1);
    if (sc) CHECK_NEAR(sc->rod.damping.relaxation_time[3], 0.01, 0);
    cr_scenario_destroy(sc);

    /* nu: steel E = 210 GPa, nu = 0.3 gives G = 80.769 GPa; 0.5 (incompressible) gives E/3 */
    const double E = 2.1e11;
    static const char *const nu03[] = {"rod.material={\"E\": 2.1e11, \"nu\": 0.3}"};
    sc = load_ok("{" ROD_OK "}", nu03, 1);
    if (sc) CHECK_NEAR(sc->rod.material.G, E / 2.6, 1e-15 * E);
    if (sc) CHECK_NEAR(sc->rod.material.G, 80.76923076923077e9, 1e-6);
    cr_scenario_destroy(sc);
    static const char *const nu05[] = {"rod.material={\"E\": 2.1e11, \"nu\": 0.5}"};
    sc = load_ok("{" ROD_OK "}", nu05, 1);
    if (sc) CHECK_NEAR(sc->rod.material.G, E / 3, 1e-15 * E);
    cr_scenario_destroy(sc);
    static const char *const both[] = {"rod.material.nu=0.3"};
    EXPECT_BAD_OV("{" ROD_OK "}", both, "rod.material.G, rod.material.nu: give one of them, not both");
    static const char *const nu_big[] = {"rod.material={\"E\": 1e9, \"nu\": 0.51}"};
    EXPECT_BAD_OV("{" ROD_OK "}", nu_big, "rod.material.nu: Poisson's ratio must be in (-1, 0.5], got 0.51");
    static const char *const nu_low[] = {"rod.material={\"E\": 1e9, \"nu\": -1}"};
    EXPECT_BAD_OV("{" ROD_OK "}", nu_low, "rod.material.nu: Poisson's ratio must be in (-1, 0.5], got -1");
    static const char *const neither[] = {"rod.material={\"E\": 1e9}"};
    EXPECT_BAD_OV("{" ROD_OK "}", neither, "rod.material.G: missing (the shear modulus; or give Poisson's ratio");

    /* the switch keeps the options: viscoelastic under the mixed rod is refused, naming it */
    static const char *const to_mixed[] = {"model=mixed_discrete"};
    EXPECT_BAD_OV("{'model': {'type': 'port_hamiltonian', 'viscoelastic': [{'tau': 0.1, 'fraction': 0.5}]}," ROD_OK "}",
                  to_mixed, "model.viscoelastic: an option of the port_hamiltonian model; the mixed_discrete model");
    static const char *const to_lgvi[] = {"model=lgvi"}; /* lgvi's own option survives its own switch */
    sc = load_ok("{'model': {'type': 'lgvi', 'chart': 'cayley'}," ROD_OK "}", to_lgvi, 1);
    if (sc) CHECK(sc->model.chart == 1 && !strcmp(sc->model.type, "lgvi"));
    cr_scenario_destroy(sc);
    static const char *const replace[] = {"model={\"type\": \"mixed_discrete\"}"}; /* the object replaced */
    sc = load_ok("{'model': {'type': 'port_hamiltonian', 'newton_atol': 1e-12}," ROD_OK "}", replace, 1);
    if (sc) CHECK(!strcmp(sc->model.type, "mixed_discrete") && sc->model.newton_atol == 1e-10);
    cr_scenario_destroy(sc);
}

CHECK_MAIN(CASE(user_inputs), CASE(bad_load_magnitudes), CASE(resultant_section_equals_shape), CASE(example_two_helical_segments), CASE(example_tendon_manipulator), CASE(defaults), CASE(key_forms),
           CASE(helix_and_nodes_references), CASE(file_default_name_and_io_error), CASE(documented_example),
           CASE(overrides),
           CASE(bad_unknown_key), CASE(bad_type), CASE(bad_missing), CASE(bad_nonfinite), CASE(bad_nonphysical),
           CASE(bad_elements), CASE(bad_enum), CASE(bad_node), CASE(bad_sections), CASE(bad_frame),
           CASE(bad_gravity_without_rho), CASE(bad_tendon), CASE(bad_nodes_reference), CASE(bad_json_syntax),
           CASE(bad_arguments), CASE(auto_load_steps), CASE(dynamic_stages), CASE(rigid_bodies), CASE(load_extensions), CASE(wilberforce),
           CASE(documented_dynamic_example), CASE(overrides_dynamics), CASE(bad_dynamic), CASE(bad_rigid_bodies),
           CASE(bad_load_extensions))
