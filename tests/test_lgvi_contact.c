#define _POSIX_C_SOURCE 200809L
/* Rod–obstacle contact of the lgvi rod (docs/lgvi.md "Contact"): frictionless penalty springs
 * k_i max(0, −g) n at t_k, explicit like every force of the scheme, a potential
 * ½ k_i min(0, g)² that joins the discrete Lagrangian.
 *
 * The rod: L = 1 m, 20 elements (l = 0.05 m), circle r = 0.01 m, E = 1e7 Pa, G = 4e6 Pa,
 * ρ = 1000 kg/m³: ρA = 0.1π kg/m, EA/l = 6283 N/m, 12 EI/l³ = 7540 N/m, so the default contact
 * stiffness is k_c = min(EA/l, 12 EI/l³) = 7540 N/m per element; node i's spring k_c w_i
 * (w_i = lumped length / l) over its mass ρA l w_i gives every node ω_c² = k_c/(ρA l).
 * References:
 *  - a flat rod dropped from a gap z0 onto a plane: every node is a mass m_i on a one-sided
 *    spring k_i with m_i/k_i = ρA l/k_c, so (energy) the deepest penetration is
 *    δ = m g/k + sqrt((m g/k)² + 2 (m g/k) z0) (per unit m/k = ρA l/k_c), and the total energy
 *    T + U + V_c − W_gravity is conserved up to the integrator's bounded O(h²) error (the
 *    standard model: the modified one freezes e within the step, not variational, and drifts
 *    by 1–2 % of m g z0 once the rod rocks, measured, at any step). The flat
 *    bouncing is unstable: round-off seeds bending, which the periodic contact pumps (the
 *    angular momentum about the rod's axis grows tenfold every 0.25 s, from 1e-32), and after
 *    ~4 s the rod rocks. The closed form δ holds before that (t < 2 s: flat to 1e-20); over
 *    the whole run energy conservation still bounds any node's penetration: all of the energy
 *    m g (z0 + δ) in one end node's spring k_c/2 gives sqrt(4 m g (z0 + δ)/k_c);
 *  - the rod resting on the plane at δ_0 = ρA l g/k_c (every node's spring holds its weight):
 *    it stays there, and the contact force equals the weight ρA L g;
 *  - the stable step: the Gershgorin bound of the rod alone plus ω_c².
 */
#include "check.h"
#include "cosserat/cosserat.h"
#include "lgvi/lgvi.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double RHO_A = 1000 * M_PI * 1e-4, G = 9.81, LEL = 0.05;
static const double KC = 12 * 1e7 * (M_PI * 1e-8 / 4) / (0.05 * 0.05 * 0.05); /* 12 EI/l³ < EA/l */

/* A free horizontal rod on [0, 1] × {0} × {0} over the plane z = zp, gravity −z; the standard
 * (variational) model unless `model` says otherwise. */
static const char *model = "{'type': 'lgvi', 'dilatation': false}";
static char *scenario(double zp, const char *contact, const char *stage)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{'model': %s, 'rod': {'length': 1, 'elements': 20, 'material': {'E': 1e7, 'G': 4e6, 'rho': 1000},"
             " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
             " 'obstacles': [{'type': 'plane', 'name': 'floor', 'point': [0, 0, %.17g], 'normal': [0, 0, 1]}],"
             " %s 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]}],"
             " 'stages': [{'type': 'dynamic', %s}]}",
             model, zp, contact, stage);
    for (char *p = buf; *p; ++p)
        if (*p == '\'') *p = '"';
    return buf;
}

static cr_scenario *load(const char *json, cr_error *err)
{
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, NULL, 0, &sc, err) != CR_OK) {
        fprintf(stderr, "load: %s\n", err->message);
        return NULL;
    }
    return sc;
}

static int run(const char *json, cr_run_result *r)
{
    cr_error err = {0};
    cr_scenario *sc = load(json, &err);
    memset(r, 0, sizeof *r);
    if (!sc) return 0;
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

/* The largest |E − E0| of a drop (E = T + U + V_c − W), and the series. */
static double drop_energy_error(double z0, double h, double t_end, cr_run_result *r)
{
    char stage[128];
    snprintf(stage, sizeof stage, "'t_end': %g, 'output_dt': 1e-4, 'time_step': %g", t_end, h);
    if (!run(scenario(-0.01 - z0, "", stage), r)) return NAN;
    int ck = series_column(r, "energy_kinetic"), ce = series_column(r, "energy_elastic"),
        cw = series_column(r, "work_external");
    if (ck < 0 || ce < 0 || cw < 0) return NAN;
    double E0 = at(r, 0, ck) + at(r, 0, ce) - at(r, 0, cw), dE = 0;
    for (long i = 0; i < cr_run_result_series_rows(r); ++i)
        dE = fmax(dE, fabs(at(r, i, ck) + at(r, i, ce) - at(r, i, cw) - E0));
    return dE;
}

/* (a) dropped flat from a gap z0 = 0.01 m: 10 s, ~110 bounces. */
static void bouncing_rod_conserves_energy(void)
{
    const double z0 = 0.01, m = RHO_A * 1.0;
    cr_run_result r;
    double dE = drop_energy_error(z0, 5e-5, 10, &r);
    int ok = isfinite(dE);
    CHECK(ok);
    if (!ok) return;
    int ct = series_column(&r, "t"), ck = series_column(&r, "energy_kinetic"), ce = series_column(&r, "energy_elastic"),
        cw = series_column(&r, "work_external"), ca = series_column(&r, "contact_active"),
        cp = series_column(&r, "contact_penetration"), cn = series_column(&r, "contact_normal_force");
    CHECK(ct >= 0 && ck >= 0 && ce >= 0 && cw >= 0 && ca >= 0 && cp >= 0 && cn >= 0);
    if (ct < 0 || ck < 0 || ce < 0 || cw < 0 || ca < 0 || cp < 0 || cn < 0) return;
    long n = cr_run_result_series_rows(&r);
    double pen = 0, pen_flat = 0, Vmax = 0;
    int bounces = 0;
    for (long i = 0; i < n; ++i) {
        pen = fmax(pen, at(&r, i, cp));
        if (at(&r, i, ct) < 2) pen_flat = fmax(pen_flat, at(&r, i, cp));
        Vmax = fmax(Vmax, at(&r, i, ce));
        if (i > 0 && at(&r, i - 1, ca) == 0 && at(&r, i, ca) > 0) ++bounces;
    }
    const double a = RHO_A * LEL / KC * G, delta = a + sqrt(a * a + 2 * a * z0),
                 bound = sqrt(4 * m * G * (z0 + delta) / KC);
    printf("  %d bounces; |E - E0| <= %.3g J = %.3g m g z0; largest penetration while flat (t < 2 s) %.6g m "
           "(energy balance of a node on its spring: %.6g m), over the run %.4g m (bound %.4g m); largest "
           "elastic + contact energy %.3g J (m g z0 = %.3g J)\n",
           bounces, dE, dE / (m * G * z0), pen_flat, delta, pen, bound, Vmax, m * G * z0);
    CHECK(bounces >= 100); /* impacts of any node (the rocking rod's nodes touch one by one) */
    /* the contact springs store about m g (z0 + δ) at each impact: without their energy in the
     * balance it would swing by that much */
    CHECK(Vmax > 0.9 * m * G * z0);
    CHECK(dE <= 1e-3 * m * G * z0); /* measured 4.3e-4 */
    CHECK(pen_flat <= delta * (1 + 1e-3) && pen_flat >= delta * (1 - 1e-2));
    CHECK(pen <= bound);
    cr_run_result_free(&r);
    /* the error is the integrator's: O(h²) (over the first 2 s, flat) */
    double e1 = drop_energy_error(z0, 5e-5, 2, &r);
    cr_run_result_free(&r);
    double e2 = drop_energy_error(z0, 2.5e-5, 2, &r);
    cr_run_result_free(&r);
    printf("  |E - E0| over 2 s: %.3g J at h = 5e-5 s, %.3g J at h/2 (ratio %.2f, O(h²): 4)\n", e1, e2, e1 / e2);
    CHECK(e1 / e2 > 3 && e1 / e2 < 5);
}

/* (b) resting at the equilibrium penetration δ_0 = ρA l g/k_c: nothing moves, and the contact
 * force (its time average over the run, and at every output) is the weight. */
static void resting_rod_contact_force_is_weight(void)
{
    const double d0 = RHO_A * LEL * G / KC, W = RHO_A * 1.0 * G;
    cr_run_result r;
    int ok =
        run(scenario(-0.01 + d0, "'contact': {'tolerance': 1e-4},", "'t_end': 2, 'output_dt': 1e-3, 'time_step': 5e-5"),
            &r);
    CHECK(ok);
    if (!ok) return;
    int cn = series_column(&r, "contact_normal_force"), cz = series_column(&r, "tip_z"),
        ca = series_column(&r, "contact_active");
    CHECK(cn >= 0 && cz >= 0 && ca >= 0);
    if (cn < 0 || cz < 0 || ca < 0) return;
    long n = cr_run_result_series_rows(&r);
    double avg = 0, worst = 0, dz = 0;
    for (long i = 0; i < n; ++i) {
        avg += at(&r, i, cn) / n;
        worst = fmax(worst, fabs(at(&r, i, cn) / W - 1));
        dz = fmax(dz, fabs(at(&r, i, cz)));
        CHECK(at(&r, i, ca) == 21);
    }
    printf("  resting rod: mean contact force / weight - 1 = %.3g, worst %.3g; tip moved %.3g m (δ_0 = %.3g m)\n",
           avg / W - 1, worst, dz, d0);
    CHECK(fabs(avg / W - 1) <= 1e-6);
    CHECK(worst <= 1e-6);
    CHECK(dz <= 1e-6 * d0);
    cr_run_result_free(&r);
}

/* (c) the stable step includes the contact springs: with contact.stiffness = 1e7 N/m,
 * ω_c = sqrt(k_c/(ρA l)) = 2.5e4 rad/s is above the rod's own largest frequency. */
static void check_refuses_step_above_contact_limit(void)
{
    const double kc = 1e7, r = 0.01, A = M_PI * r * r, I = M_PI * r * r * r * r / 4;
    /* the rod alone (the kernel's estimate, cr_lgvi_stable_step; its own test checks it) */
    cr_lgvi_params p = {0};
    p.elements = 20, p.length = 1, p.rhoA = 1000 * A, p.rhoJ = cr_v3(1000 * I, 1000 * I, 2000 * I);
    p.C1 = cr_v3(4e6 * A, 4e6 * A, 1e7 * A), p.C2 = cr_v3(1e7 * I, 1e7 * I, 4e6 * 2 * I);
    p.dilatation = 1, p.h = 1e-5;
    const double h_rod = cr_lgvi_stable_step(&p), wc = sqrt(kc / (p.rhoA * LEL));
    /* Gershgorin with ω_c² added: h = 0.9 · 2/sqrt(ω_rod² + ω_c²), ω_rod = 0.9 · 2/h_rod */
    const double h = 1.8 / sqrt(pow(1.8 / h_rod, 2) + wc * wc);
    printf("  stable step: rod alone %.4g s, with k_c = 1e7 N/m (ω_c = %.4g rad/s) %.4g s\n", h_rod, wc, h);
    CHECK(h < 0.8 * h_rod);
    for (int k = 0; k < 2; ++k) {
        char stage[128];
        const double hk = (k ? 0.99 : 1.01) * h; /* t_end a whole number of steps */
        snprintf(stage, sizeof stage, "'t_end': %.17g, 'output_dt': %.17g, 'time_step': %.17g", 1000 * hk, 100 * hk,
                 hk);
        cr_error err = {0};
        cr_scenario *sc = load(scenario(-0.02, "'contact': {'stiffness': 1e7},", stage), &err);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_status st = cr_scenario_check(sc, &err);
        if (k == 0) {
            printf("  1.01 h: %s\n", err.message);
            CHECK(st == CR_BAD_INPUT && strstr(err.message, "stages.0.time_step") &&
                  strstr(err.message, "contact.stiffness"));
        } else {
            if (st != CR_OK) fprintf(stderr, "  0.99 h: %s\n", err.message);
            CHECK(st == CR_OK);
        }
        cr_scenario_destroy(sc);
    }
}

/* (d) what the lgvi contact does not do, and the port-Hamiltonian rod's refusal */
static void refusals(void)
{
    static const struct {
        double zp;
        const char *model, *extra, *needle;
    } cases[] = {
        {-0.02, "'lgvi'", "'contact': {'radius': 0.01},", NULL},
        {-0.005, "'lgvi'", "", "obstacles.0: the rod starts inside obstacle \"floor\""},
        {-0.02, "'port_hamiltonian'", "", NULL}, /* an infinite frictionless plane: the port-Hamiltonian rod takes it */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const char *keep = model;
        model = cases[k].model;
        char *text = scenario(cases[k].zp, cases[k].extra, "'t_end': 1, 'output_dt': 0.1, 'time_step': 1e-5");
        model = keep;
        cr_error err = {0};
        cr_scenario *sc = load(text, &err);
        CHECK(sc != NULL);
        if (sc) {
            cr_status st = cr_scenario_check(sc, &err);
            if (cases[k].needle) {
                if (st != CR_BAD_INPUT || !strstr(err.message, cases[k].needle))
                    fprintf(stderr, "  case %zu: \"%s\", expected \"%s\"\n", k, err.message, cases[k].needle);
                CHECK(st == CR_BAD_INPUT && strstr(err.message, cases[k].needle));
            } else {
                if (st != CR_OK) fprintf(stderr, "  case %zu: %s\n", k, err.message);
                CHECK(st == CR_OK);
            }
            cr_scenario_destroy(sc);
        }
    }
    /* friction: accepted (an explicit Coulomb force, docs/lgvi.md "Friction"; tests/test_lgvi_friction.c) */
    char *json = strdup(scenario(-0.02, "", "'t_end': 1, 'output_dt': 0.1, 'time_step': 1e-5"));
    char *n = strstr(json, "\"normal\"");
    char *text = malloc(strlen(json) + 64);
    snprintf(text, strlen(json) + 64, "%.*s\"friction\": {\"static\": 0.5}, %s", (int)(n - json), json, n);
    cr_error err = {0};
    cr_scenario *sc = load(text, &err);
    CHECK(sc != NULL);
    if (sc) {
        cr_status st = cr_scenario_check(sc, &err);
        if (st != CR_OK) fprintf(stderr, "  friction: %s\n", err.message);
        CHECK(st == CR_OK);
        cr_scenario_destroy(sc);
    }
    free(json);
    free(text);
}

CHECK_MAIN(CASE(bouncing_rod_conserves_energy), CASE(resting_rod_contact_force_is_weight),
           CASE(check_refuses_step_above_contact_limit), CASE(refusals))
