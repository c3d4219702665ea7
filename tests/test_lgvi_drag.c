#define _POSIX_C_SOURCE 200809L
/* The lgvi rod's drag and moving clamps (docs/lgvi.md "Damping and moving clamps"), as the rope
 * pile uses them (bench/rope_pile.py --formulation lgvi).
 *
 * The rod: L = 1 m, 20 elements, circle r = 0.01 m, E = 1e7 Pa, G = 4e6 Pa, ρ = 1000 kg/m³
 * (ρA = 0.1π kg/m). References:
 *  - a free straight rod falling under gravity with an isotropic drag c (N s/m²): every node
 *    feels m_i g − L_i c v_i with m_i = ρA L_i, so the rod falls uniformly and its velocity obeys
 *    dv/dt = g − ν v, ν = c/ρA; the explicit step with the last interval's velocity makes it the
 *    geometric sequence v_k = (g/ν)(1 − (1 − hν)^k) (exactly, to round-off), within O(hν) of the
 *    exponential (g/ν)(1 − e^(−ν t));
 *  - a rod hanging from a clamp moved down by a ramp: the clamped node follows x_ref + f(t)
 *    (position − x_ref) exactly, and T + U − W, W the gravity's work plus the clamp's (its
 *    reaction's discrete work), stays constant to the standard model's bounded error.
 */
#include "check.h"
#include "cosserat/cosserat.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double RHO_A = 1000 * M_PI * 1e-4, G = 9.81;

static char *scenario(const char *reference, const char *extra, const char *stage)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{'model': {'type': 'lgvi', 'dilatation': false}, 'rod': {'length': 1, 'elements': 20, 'material': "
             "{'E': 1e7, 'G': 4e6, 'rho': 1000}, 'reference': %s, 'sections': [{'shape': 'circle', 'radius': "
             "0.01}]%s},"
             " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]}], 'stages': [{'type': 'dynamic', %s}]}",
             reference, extra, stage);
    for (char *p = buf; *p; ++p)
        if (*p == '\'') *p = '"';
    return buf;
}

static int run(const char *json, cr_run_result *r)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    memset(r, 0, sizeof *r);
    if (cr_scenario_load_string(json, NULL, 0, &sc, &err) != CR_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        return 0;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_status st = cr_scenario_run(sc, &o, r, &err);
    if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
    cr_scenario_destroy(sc);
    return st == CR_OK;
}

static double at(const cr_run_result *r, long row, int col)
{
    return cr_run_result_series_data(r)[row * cr_run_result_series_columns(r) + col];
}

static void falling_rod_reaches_terminal_velocity(void)
{
    const double nu = 5.0, c = nu * RHO_A, h = 5e-5, m = RHO_A;
    char extra[128], stage[128];
    snprintf(extra, sizeof extra, ", 'damping': {'drag': %.17g}", c);
    snprintf(stage, sizeof stage, "'t_end': 1, 'output_dt': 0.01, 'time_step': %g", h);
    cr_run_result r;
    int ok = run(scenario("{'type': 'straight'}", extra, stage), &r);
    CHECK(ok);
    if (!ok) return;
    int ct = series_column(&r, "t"), cp = series_column(&r, "momentum_z"), ck = series_column(&r, "energy_kinetic"),
        ce = series_column(&r, "energy_elastic"), cw = series_column(&r, "work_external");
    CHECK(ct >= 0 && cp >= 0 && ck >= 0 && ce >= 0 && cw >= 0);
    if (ct < 0 || cp < 0 || ck < 0 || ce < 0 || cw < 0) return;
    double e_geo = 0, e_exp = 0, dE = 0, Ek = 0;
    const long n = cr_run_result_series_rows(&r);
    for (long i = 1; i < n; ++i) {
        /* the momenta are of the last interval [t_k−1, t_k]: p^(k−1), after k − 1 decays */
        const double t = at(&r, i, ct), k = round(t / h), v = at(&r, i, cp) / m;
        const double v_geo = -(G / nu) * (1 - pow(1 - h * nu, k)), v_exp = -(G / nu) * (1 - exp(-nu * (t - 0.5 * h)));
        e_geo = fmax(e_geo, fabs(v - v_geo)), e_exp = fmax(e_exp, fabs(v - v_exp));
        dE = fmax(dE, fabs(at(&r, i, ck) + at(&r, i, ce) - at(&r, i, cw)));
        Ek = fmax(Ek, at(&r, i, ck));
    }
    printf("  falling rod: v(1 s) = %.6f m/s (terminal %.6f); against the geometric sequence %.3g m/s, the "
           "exponential %.3g m/s; |T + U - W| <= %.3g J (T up to %.3g J)\n",
           at(&r, n - 1, cp) / m, -G / nu, e_geo, e_exp, dE, Ek);
    CHECK(e_geo <= 1e-12 * G / nu);
    CHECK(e_exp <= 1e-3 * G / nu); /* O(h ν): measured 1.25e-4 of g/ν */
    CHECK(dE <= 1e-3 * Ek);        /* the drag's work is in work_external */
    cr_run_result_free(&r);
}

static void moving_clamp_follows_and_balances(void)
{
    /* hanging along −z from (0, 0, 0), the clamp moved 0.2 m along x and down 0.1 m over 0.5 s */
    const char *ref = "{'type': 'straight', 'frame': {'e_x': [0, 0, -1], 'e_y': [0, 1, 0]}}";
    char text[4096];
    snprintf(text, sizeof text, "%s", scenario(ref, "", "'t_end': 1, 'output_dt': 0.01, 'time_step': 5e-5"));
    /* the clamp, after the rod object */
    char *loads = strstr(text, ", \"loads\"");
    CHECK(loads != NULL);
    if (!loads) return;
    const char *clamp = ", \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": 0, \"position\": [0.2, 0, -0.1], "
                        "\"time\": {\"type\": \"ramp\", \"t0\": 0, \"t1\": 0.5}}], \"output\": {\"track\": [{\"name\": "
                        "\"base\", \"node\": 0}]}";
    char out[4096];
    snprintf(out, sizeof out, "%.*s%s%s", (int)(loads - text), text, clamp, loads);
    cr_run_result r;
    int ok = run(out, &r);
    CHECK(ok);
    if (!ok) return;
    int ct = series_column(&r, "t"), ck = series_column(&r, "energy_kinetic"), ce = series_column(&r, "energy_elastic"),
        cw = series_column(&r, "work_external"), cx = series_column(&r, "base_x");
    CHECK(ct >= 0 && ck >= 0 && ce >= 0 && cw >= 0 && cx >= 0);
    if (ct < 0 || ck < 0 || ce < 0 || cw < 0 || cx < 0) return;
    const long n = cr_run_result_series_rows(&r);
    double dE = 0, scale = 0, W = 0, dx = 0;
    for (long i = 0; i < n; ++i) {
        const double f = fmin(1.0, at(&r, i, ct) / 0.5);
        dx = fmax(dx, fabs(at(&r, i, cx) - 0.2 * f) + fabs(at(&r, i, cx + 1)) + fabs(at(&r, i, cx + 2) + 0.1 * f));
        dE = fmax(dE, fabs(at(&r, i, ck) + at(&r, i, ce) - at(&r, i, cw) - (at(&r, 0, ce) - at(&r, 0, cw))));
        scale = fmax(scale, at(&r, i, ck) + fabs(at(&r, i, cw)));
        W = at(&r, i, cw);
    }
    printf("  moving clamp: node 0 off the ramp by %.3g m; |T + U - W - E0| <= %.3g J of %.3g J (W = %.4g J)\n", dx, dE,
           scale, W);
    CHECK(dx <= 1e-14);
    CHECK(dE <= 1e-3 * scale);
    cr_run_result_free(&r);
}

static void refusals(void)
{
    static const struct {
        const char *extra, *needle;
    } cases[] = {
        {", 'damping': {'relaxation_time': 0.01}", "rod.damping.relaxation_time"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cr_error err = {0};
        cr_scenario *sc = NULL;
        CHECK(cr_scenario_load_string(scenario("{'type': 'straight'}", cases[k].extra,
                                               "'t_end': 0.1, 'output_dt': 0.01, 'time_step': 5e-5"),
                                      NULL, 0, &sc, &err) == CR_OK);
        if (!sc) continue;
        cr_status st = cr_scenario_check(sc, &err);
        printf("  case %zu: %s\n", k, err.message);
        CHECK(st == CR_BAD_INPUT && strstr(err.message, cases[k].needle));
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(falling_rod_reaches_terminal_velocity), CASE(moving_clamp_follows_and_balances), CASE(refusals))
