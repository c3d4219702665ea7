#define _POSIX_C_SOURCE 200809L
/* One scenario format, several formulations: the same scenario run through the
 * scenario runner with only "model" changed, checked against the papers'
 * published numbers and against each other. */
#include "check.h"
#include "cosserat/cosserat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs a scenario (JSON text, single quotes allowed) with overrides, no files. */
static int run(const char *json, const char *const *sets, int nsets, cr_run_result *r)
{
    char *text = strdup(json);
    for (char *p = text; *p; ++p)
        if (*p == '\'') *p = '"';
    cr_error err = {0};
    cr_scenario *sc = NULL;
    cr_status st = cr_scenario_load_string(text, sets, nsets, &sc, &err);
    free(text);
    if (st != CR_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        memset(r, 0, sizeof *r);
        return 0;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    st = cr_scenario_run(sc, &o, r, &err);
    if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
    cr_scenario_destroy(sc);
    return st == CR_OK;
}

static int column(const cr_run_result *r, const char *name)
{
    for (int k = 0; k < cr_run_result_series_columns(r); ++k)
        if (!strcmp(cr_run_result_series_name(r, k), name)) return k;
    fprintf(stderr, "no series column %s\n", name);
    return -1;
}

static double at(const cr_run_result *r, long row, int col)
{
    return cr_run_result_series_data(r)[row * cr_run_result_series_columns(r) + col];
}

/* Period of a signal from its upward zero crossings about its mean after t0 (linear interpolation). */
static double period(const cr_run_result *r, const char *name, double t0)
{
    int ct = column(r, "t"), cy = column(r, name);
    long n = cr_run_result_series_rows(r);
    if (ct < 0 || cy < 0 || n < 3) return NAN;
    double mean = 0;
    long m = 0;
    for (long i = 0; i < n; ++i)
        if (at(r, i, ct) >= t0) mean += at(r, i, cy), ++m;
    mean /= m;
    double first = NAN, last = NAN;
    int crossings = 0;
    for (long i = 1; i < n; ++i) {
        double ta = at(r, i - 1, ct), a = at(r, i - 1, cy) - mean, b = at(r, i, cy) - mean;
        if (ta < t0 || !(a < 0 && b >= 0)) continue;
        double tc = ta + (at(r, i, ct) - ta) * (-a / (b - a));
        if (crossings == 0) first = tc;
        last = tc;
        ++crossings;
    }
    return crossings >= 2 ? (last - first) / (crossings - 1) : NAN;
}

/* A slender cantilever (L = 1 m, EI = 1 N m², ρA = 1 kg/m) struck at its tip by a
 * short transverse impulse, then ringing in its first bending mode. */
#define CANTILEVER(model, stage)                                                                              \
    "{'model': " model ", 'rod': {'length': 1, 'elements': 20,"                                                 \
    " 'sections': [{'shape': 'resultants', 'EA': 1e4, 'GA_y': 1e4, 'GA_z': 1e4, 'GJ': 1, 'EI_y': 1, 'EI_z': 1,"  \
    " 'rhoA': 1, 'rhoI_y': 1e-3, 'rhoI_z': 1e-3}]},"                                                            \
    " 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}],"                                             \
    " 'loads': [{'type': 'force', 'node': 'end', 'value': [0, 0.01, 0],"                                        \
    "            'time': {'type': 'table', 'points': [[0, 0], [0.02, 1], [0.04, 0]]}}],"                        \
    " 'stages': [{'type': 'dynamic', 't_end': 4, 'output_dt': 0.001, " stage "}]}"

static void cantilever_frequency_lgvi_vs_mixed(void)
{
    cr_run_result a, b;
    int ok_a = run(CANTILEVER("'mixed_discrete'", "'rtol': 1e-7, 'atol': 1e-10"), NULL, 0, &a);
    int ok_b = run(CANTILEVER("{'type': 'lgvi', 'dilatation': false}", "'time_step': 1e-4"), NULL, 0, &b);
    CHECK(ok_a && ok_b);
    if (ok_a && ok_b) {
        /* Euler–Bernoulli: ω₁ = 1.87510² √(EI/(ρA L⁴)) */
        double T_eb = 2 * M_PI / (1.875104068711961 * 1.875104068711961);
        double Ta = period(&a, "tip_y", 0.05), Tb = period(&b, "tip_y", 0.05);
        printf("  first bending period: mixed %.5f s, lgvi %.5f s, Euler-Bernoulli %.5f s\n", Ta, Tb, T_eb);
        CHECK(fabs(Ta - T_eb) < 0.01 * T_eb);
        CHECK(fabs(Tb - T_eb) < 0.01 * T_eb);
        CHECK(fabs(Ta - Tb) < 0.005 * T_eb);
        /* and the trajectories agree, not just the period: tip deflection over the first period */
        int ya = column(&a, "tip_y"), yb = column(&b, "tip_y");
        double amp = 0, diff = 0;
        for (long i = 0; i < cr_run_result_series_rows(&a) && i < cr_run_result_series_rows(&b); ++i) {
            if (at(&a, i, 0) > 1.8) break;
            amp = fmax(amp, fabs(at(&a, i, ya)));
            diff = fmax(diff, fabs(at(&a, i, ya) - at(&b, i, yb)));
        }
        printf("  tip deflection over 1.8 s: amplitude %.3g m, largest difference %.3g m\n", amp, diff);
        CHECK(amp > 1e-5);
        CHECK(diff < 0.03 * amp);
    }
    cr_run_result_free(&a);
    cr_run_result_free(&b);
}

/* LGVI paper §5.2 through the scenario file: the modified and standard models of the
 * pure-stretching example over the loading phase (maxima at t ≈ 2.49 s). */
static void lgvi_pure_stretching_paper_numbers(void)
{
    const char *common[] = {"stages.0.t_end=4", "stages.0.output_dt=1e-4", "output.vtk=false"};
    const char *std_sets[] = {"stages.0.t_end=4", "stages.0.output_dt=1e-4", "output.vtk=false",
                              "model.dilatation=false"};
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/pure-stretching.json", COSSERAT_SOURCE_DIR);
    cr_error err = {0};
    cr_scenario *sm = NULL, *ss = NULL;
    CHECK(cr_scenario_load_file(path, common, 3, &sm, &err) == CR_OK);
    CHECK(cr_scenario_load_file(path, std_sets, 4, &ss, &err) == CR_OK);
    if (!sm || !ss) return;
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result m, s;
    CHECK(cr_scenario_run(sm, &o, &m, &err) == CR_OK);
    CHECK(cr_scenario_run(ss, &o, &s, &err) == CR_OK);
    long n = cr_run_result_series_rows(&m);
    CHECK(n == cr_run_result_series_rows(&s) && n == 40001);
    int emax = column(&m, "dilatation_max"), len = column(&m, "length"), H = column(&m, "energy_total");
    int vd = column(&m, "volume_drift");
    double e_max = 0, e_std_max = 0, dL = 0, dH = 0, vol = 0;
    for (long i = 0; i < n; ++i) {
        e_max = fmax(e_max, at(&m, i, emax));
        e_std_max = fmax(e_std_max, at(&s, i, emax));
        dL = fmax(dL, fabs(at(&m, i, len) - at(&s, i, len)) / 10.0);
        dH = fmax(dH, fabs(at(&m, i, H) - at(&s, i, H)));
        vol = fmax(vol, at(&m, i, vd));
    }
    printf("  e_max %.5f (paper 1.1408), dL_max %.5f (0.02070), dV_max %.5f (0.1247), dH_max %.3f J (148.77), "
           "modified volume drift %.2g\n",
           e_max, dL, e_std_max - 1, dH, vol);
    CHECK_NEAR(e_max, 1.1408, 5e-5);
    CHECK_NEAR(dL, 0.02070, 5e-6);
    CHECK_NEAR(e_std_max - 1, 0.1247, 5e-5);
    CHECK_NEAR(dH, 148.77, 0.05);
    CHECK(vol < 1e-12); /* the modified model conserves every element's volume */
    cr_run_result_free(&m);
    cr_run_result_free(&s);
    cr_scenario_destroy(sm);
    cr_scenario_destroy(ss);
}

/* What a formulation cannot represent is refused at check time, naming the key and the formulation. */
static void rejections(void)
{
    static const struct {
        const char *json, *needle;
    } cases[] = {
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]}, 'stages': [{'type': 'static'}]}",
         "stages.0.type: the lgvi model has no static stages"},
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
         " 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1}]}",
         "stages.0.time_step: required by the lgvi model"},
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
         " 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'time_step': 0.01}]}",
         "stages.0.time_step: 0.01 s exceeds the stable step of the explicit lgvi scheme"},
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': [0.01, 0.005]}]},"
         " 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'time_step': 1e-6}]}",
         "rod.sections: the lgvi model needs a uniform section"},
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
         " 'loads': [{'type': 'tendon', 'tension': 1, 'offset': {'y': 0.005, 'z': 0}}],"
         " 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'time_step': 1e-6}]}",
         "loads.0.type: tendon loads are not supported by the lgvi model"},
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]}, 'boundary_conditions': [{'type': 'clamp', 'node': 2}],"
         " 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'time_step': 1e-6}]}",
         "boundary_conditions.0.node: the lgvi model clamps the end nodes only"},
        {"{'model': 'lgvi', 'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
         " 'stages': [{'type': 'dynamic', 't_end': 1.00005, 'output_dt': 0.1, 'time_step': 1e-4}]}",
         "stages.0.t_end: 1.00005 s is not a whole number of time steps"},
        {"{'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
         " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
         " 'stages': [{'type': 'dynamic', 't_end': 1, 'output_dt': 0.1, 'time_step': 1e-4}]}",
         "stages.0.time_step: the mixed_discrete model steps adaptively"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char *text = strdup(cases[k].json);
        for (char *p = text; *p; ++p)
            if (*p == '\'') *p = '"';
        cr_error err = {0};
        cr_scenario *sc = NULL;
        cr_status st = cr_scenario_load_string(text, NULL, 0, &sc, &err);
        free(text);
        CHECK(st == CR_OK);
        if (st != CR_OK) {
            fprintf(stderr, "  case %zu: %s\n", k, err.message);
            continue;
        }
        st = cr_scenario_check(sc, &err);
        if (st != CR_BAD_INPUT || !strstr(err.message, cases[k].needle))
            fprintf(stderr, "  case %zu: status %d, message \"%s\", expected \"%s\"\n", k, st, err.message,
                    cases[k].needle);
        CHECK(st == CR_BAD_INPUT && strstr(err.message, cases[k].needle));
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(rejections), CASE(cantilever_frequency_lgvi_vs_mixed), CASE(lgvi_pure_stretching_paper_numbers))
