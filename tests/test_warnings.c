/* Sanity warnings through the C API (include/cosserat/warnings.h): the documented
 * thresholds on both sides, and the run result's accessors the Python package uses. */
#include "check.h"
#include "cosserat/cosserat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A 0.3 m steel cantilever; radius, E, G and the tip force are parameters. */
static cr_scenario *cantilever(double radius, double E, double G, double force_x)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\": \"w\", \"rod\": {\"length\": 0.3, \"elements\": 20,"
             " \"material\": {\"E\": %.17g, \"G\": %.17g, \"rho\": 7850},"
             " \"sections\": [{\"shape\": \"circle\", \"radius\": %.17g}]},"
             " \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"start\"}],"
             " \"loads\": [{\"type\": \"force\", \"node\": \"end\", \"value\": [%.17g, 0, 0]}],"
             " \"stages\": [{\"type\": \"static\", \"load_steps\": 10}], \"output\": {\"vtk\": false}}",
             E, G, radius, force_x);
    cr_scenario *sc = NULL;
    cr_error err = {0};
    if (cr_scenario_load_string(json, NULL, 0, &sc, &err) != CR_OK) fprintf(stderr, "%s\n", err.message);
    return sc;
}

static int has(const cr_warning_list *l, const char *code, const char *key)
{
    for (int k = 0; k < l->count; ++k)
        if (!strcmp(l->items[k].code, code) && !strcmp(l->items[k].key, key)) return 1;
    return 0;
}

/* r/L = 0.2 and G/E = 0.02 are the limits: just inside gives nothing, just outside the warning */
static void thresholds(void)
{
    struct {
        double radius, G_over_E;
        const char *code, *key;
    } cases[] = {
        {0.059, 0.38, NULL, NULL},                               /* r/L = 0.197 */
        {0.061, 0.38, "slender_thick", "rod.sections.0.radius"}, /* r/L = 0.203 */
        {3.1e-6, 0.38, NULL, NULL},                              /* r/L = 1.03e-5 */
        {2.9e-6, 0.38, "slender_thin", "rod.sections.0.radius"}, /* r/L = 0.97e-5 */
        {0.005, 0.021, NULL, NULL},
        {0.005, 0.019, "shear_ratio", "rod.material.G"},
        {0.005, 0.99, NULL, NULL},
        {0.005, 1.01, "shear_ratio", "rod.material.G"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cr_scenario *sc = cantilever(cases[k].radius, 2.1e11, cases[k].G_over_E * 2.1e11, 1.0);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_warning_list l = {0};
        CHECK(cr_scenario_warnings(sc, &l) == CR_OK);
        if (cases[k].code) {
            CHECK(l.count == 1 && has(&l, cases[k].code, cases[k].key));
            CHECK(l.count == 1 && strstr(l.items[0].message, cases[k].key) == l.items[0].message);
        } else {
            CHECK(l.count == 0);
        }
        cr_warning_list_free(&l);
        CHECK(l.count == 0 && l.items == NULL);
        cr_scenario_destroy(sc);
    }
}

/* E = 2.1e5 Pa (MPa typed as Pa) with the steel density; E = 210 (GPa) alone */
static void moduli(void)
{
    cr_scenario *sc = cantilever(0.005, 2.1e5, 8.1e4, 1.0);
    cr_warning_list l = {0};
    CHECK(sc && cr_scenario_warnings(sc, &l) == CR_OK);
    CHECK(l.count == 1 && has(&l, "modulus_density", "rod.material.E"));
    cr_warning_list_free(&l);
    cr_scenario_destroy(sc);
    sc = cantilever(0.005, 210, 81, 1.0);
    CHECK(sc && cr_scenario_warnings(sc, &l) == CR_OK);
    CHECK(l.count == 1 && has(&l, "modulus_low", "rod.material.E"));
    cr_warning_list_free(&l);
    cr_scenario_destroy(sc);
}

/* A pull of 100 EA: the mixed rod's linear law n = EA (γ_x - 1) gives γ_x - 1 = 100 exactly
 * and a tip 100 L = 30 m further; the run converges and reports both through the accessors. */
static void run_result(void)
{
    double EA = 2.1e11 * 3.14159265358979323846 * 0.005 * 0.005;
    cr_scenario *sc = cantilever(0.005, 2.1e11, 8.1e10, 100 * EA);
    CHECK(sc != NULL);
    if (!sc) return;
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result *r = cr_run_result_create();
    cr_error err = {0};
    CHECK(cr_scenario_run(sc, &o, r, &err) == CR_OK); /* warnings never fail a run */
    CHECK(cr_run_result_warning_count(r) == 2);
    const char *key = NULL, *message = NULL;
    const char *code = cr_run_result_warning(r, 0, &key, &message);
    CHECK(code && !strcmp(code, "strain_large") && !strcmp(key, "stages.0"));
    double strain = 0;
    CHECK(message && sscanf(strstr(message, "reaches ") + 8, "%lf", &strain) == 1);
    CHECK_NEAR(strain, 100.0, 1e-3); /* printed with 3 digits */
    code = cr_run_result_warning(r, 1, NULL, NULL);
    CHECK(code && !strcmp(code, "displacement_large"));
    CHECK(cr_run_result_warning(r, 2, &key, &message) == NULL && cr_run_result_warning(r, -1, NULL, NULL) == NULL);
    CHECK(cr_run_result_warning_count(NULL) == 0);
    CHECK(r->statics && r->statics[0].load_steps == 10 && r->statics[0].load_factor == 1.0);
    cr_run_result_destroy(r);

    /* a pull of 0.1 EA: strain 0.1, below the 0.2 of strain_large, and no other warning */
    cr_scenario_destroy(sc);
    sc = cantilever(0.005, 2.1e11, 8.1e10, 0.1 * EA);
    r = cr_run_result_create();
    CHECK(cr_scenario_run(sc, &o, r, &err) == CR_OK);
    CHECK(cr_run_result_warning_count(r) == 0);
    cr_run_result_destroy(r);
    cr_scenario_destroy(sc);
}

/* energy_drift on made-up series rows: an oscillation whose kinetic and elastic energies
 * trade 1 J, with a loss of `lost` J spread linearly over the rows (numerical damping), work
 * fed in, and a damper's dissipated energy in the column the mixed and port-Hamiltonian rods
 * report; the threshold is 0.05 of the energy in motion. */
static int drift_warnings(double lost, double work, double damped, int with_dissipated_column, double *fraction)
{
    static const char *const names[] = {"t",
                                        "energy_kinetic",
                                        "energy_elastic",
                                        "energy_gravity",
                                        "energy_total",
                                        "work_external",
                                        "energy_dissipated"};
    enum { N = 101, C = 7 };
    double rows[N * C];
    for (int i = 0; i < N; ++i) {
        double t = 0.1 * i, f = (double)i / (N - 1), ph = 2 * 3.141592653589793 * t;
        double kin = 0.5 * (1 - cos(ph)) * (1 - damped * f), ela = 3 + 0.5 * (1 + cos(ph)) * (1 - damped * f);
        double gra = -50 + work * f - lost * f; /* gravity's energy: large, constant but for the drift */
        double v[C] = {t, kin, ela, gra, kin + ela + gra, work * f, damped * f};
        memcpy(rows + i * C, v, sizeof v);
    }
    cr_scenario *sc = cantilever(0.005, 2.1e11, 8.1e10, 1.0);
    cr_warning_list l = {0};
    CHECK(sc && cr_series_energy_warnings(sc, names, rows, with_dissipated_column ? C : C - 1, N, 1, &l) == CR_OK);
    int found = l.count == 1 && has(&l, "energy_drift", "stages.1");
    *fraction = NAN;
    const char *at = found ? strstr(l.items[0].message, "J by t = ") : NULL;
    at = at ? strstr(at, "s), ") : NULL;
    if (at) sscanf(at + 4, "%lf", fraction);
    CHECK(l.count <= 1);
    cr_warning_list_free(&l);
    cr_scenario_destroy(sc);
    return found;
}

static void energy_drift(void)
{
    double frac;
    CHECK(!drift_warnings(0, 0, 0, 1, &frac));      /* conservative */
    CHECK(!drift_warnings(0.0495, 0, 0, 1, &frac)); /* just below 0.05 of the 1 J in motion */
    CHECK(drift_warnings(0.0505, 0, 0, 1, &frac));  /* just above */
    CHECK(drift_warnings(-0.0505, 0, 0, 1, &frac)); /* energy gained */
    CHECK(drift_warnings(0.3, 0, 0, 1, &frac));
    CHECK_NEAR(frac, 0.3, 2e-3); /* the message's fraction (3 digits): 0.3 J of 1 J */
    /* 2 J of work fed in and accounted: none; the energy in motion is then 1 + 2 J */
    CHECK(!drift_warnings(0, 2, 0, 1, &frac));
    CHECK(!drift_warnings(0.145, 2, 0, 1, &frac));
    CHECK(drift_warnings(0.155, 2, 0, 1, &frac));
    /* a damper that takes half the energy, reported as dissipated: none; without the column
     * (a formulation that does not report it) the same rows lose 0.5 J of the 1 J in motion */
    CHECK(!drift_warnings(0, 0, 0.5, 1, &frac));
    CHECK(drift_warnings(0, 0, 0.5, 0, &frac));
}

/* energy_drift with an assembly's joint columns: a motor feeding `drive` J (work_drives) and
 * joint dampers taking `damped` J (energy_dissipated_joints) close the balance; a driven joint
 * without the work_drives column leaves the stage unjudged, as a joint driven in other stages
 * does not. */
static int joint_drift_warnings(double lost, double drive, double damped, int columns, unsigned drive_stages)
{
    static const char *const names[] = {"t",
                                        "energy_kinetic",
                                        "energy_elastic",
                                        "energy_gravity",
                                        "energy_total",
                                        "work_external",
                                        "energy_dissipated_joints",
                                        "work_drives"};
    enum { N = 101, C = 8 };
    double rows[N * C];
    for (int i = 0; i < N; ++i) {
        double t = 0.1 * i, f = (double)i / (N - 1), ph = 2 * 3.141592653589793 * t;
        double kin = 0.5 * (1 - cos(ph)) * (1 - damped * f), ela = 3 + 0.5 * (1 + cos(ph)) * (1 - damped * f);
        double gra = -50 + drive * f - lost * f;
        double v[C] = {t, kin, ela, gra, kin + ela + gra, 0.0, damped * f, drive * f};
        memcpy(rows + i * C, v, sizeof v);
    }
    cr_scenario *sc = cantilever(0.005, 2.1e11, 8.1e10, 1.0);
    cr_joint_def j = cr_joint_default_def();
    j.type = CR_JOINT_HINGE, j.has_drive = 1, j.stages = drive_stages;
    sc->joint_count = 1, sc->joints = &j;
    cr_warning_list l = {0};
    CHECK(cr_series_energy_warnings(sc, names, rows, columns ? C : C - 2, N, 1, &l) == CR_OK);
    int found = l.count == 1 && has(&l, "energy_drift", "stages.1");
    cr_warning_list_free(&l);
    sc->joint_count = 0, sc->joints = NULL;
    cr_scenario_destroy(sc);
    return found;
}

static void energy_drift_joints(void)
{
    CHECK(!joint_drift_warnings(0, 2, 0.5, 1, 0));   /* motor and dampers accounted */
    CHECK(!joint_drift_warnings(0.145, 2, 0, 1, 0)); /* below 0.05 of 1 + 2 J */
    CHECK(joint_drift_warnings(0.155, 2, 0, 1, 0));  /* above: the driven stage is judged */
    CHECK(joint_drift_warnings(0.5, 0, 0, 1, 0));    /* a loss no column accounts for */
    CHECK(!joint_drift_warnings(0.5, 0, 0, 0, 0));   /* driven, no work_drives column: not judged */
    CHECK(joint_drift_warnings(0.5, 0, 0, 0, 1u));   /* driven in stage 0 only: stage 1 judged */
}

CHECK_MAIN(CASE(thresholds), CASE(moduli), CASE(run_result), CASE(energy_drift), CASE(energy_drift_joints))
