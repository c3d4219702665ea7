#define _POSIX_C_SOURCE 200809L
/* Coulomb friction of the port-Hamiltonian rod on planes (docs/port-hamiltonian.md "Friction"): a
 * force -mu N v_t / max(|v_t|, eps) at the midpoint velocity, a pure dissipation in the discrete
 * energy balance. Scenario level (the public API only). References:
 *  - Newton's law for the whole rod: a rod lying on a plane, pulled along its axis by a uniform force
 *    density f = 2 mu_s w (w = rhoA g its weight per length) accelerates at (f/w - mu_k) g once it slid
 *    one step, and decelerates at mu_k g when the pull stops, until it comes to rest;
 *  - the regularization: pulled by 0.9 mu_s w from rest it sticks, creeping at 0.9 eps (eps =
 *    contact.stick_speed), where a friction mu_k would let it slide at (0.9 mu_s - mu_k) g;
 *  - the discrete energy balance: H_{n+1} - H_n = W_n - D_n with D_n >= 0 holding the friction's
 *    dissipation, to the Newton tolerance, and E = H - W non-increasing: a rod dropped on a rough plane
 *    with a sideways push. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;
static const double RHOA = 1000 * M_PI * 1e-4; /* circle r = 0.01 m, rho = 1000 */
static const double MU_S = 0.5, MU_K = 0.3, EPS = 1e-5;

/* A rod (L = 1 m, 5 elements, circle r = 0.01 m, E = 1e7 Pa) lying on the rough plane z = delta - a
 * at the depth delta = rhoA g l / k_c where every node's spring holds its weight share (the resting
 * rod of tests/test_ph_contact.c), pulled along its axis by the force density `pull` x the time
 * function `time`. */
static char *lying_rod(double pull, const char *time, double t_end, double h)
{
    const double l = 0.1, kc = 12 * 1e7 * (M_PI * 1e-8 / 4) / (l * l * l), delta = RHOA * G * l / kc;
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'model': {'type': 'port_hamiltonian'}, 'rod': {'length': 1, 'elements': 5, 'material': {'E': 1e7, "
             "'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
             " 'obstacles': [{'type': 'plane', 'point': [0, 0, %.17g], 'normal': [0, 0, 1],"
             " 'friction': {'static': %g, 'kinetic': %g}}],"
             " 'contact': {'tolerance': 1e-3, 'stick_speed': %g},"
             " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"
             " {'type': 'force_density', 'value': [%.17g, 0, 0], 'time': %s}],"
             " 'stages': [{'type': 'dynamic', 't_end': %g, 'output_dt': %g, 'time_step': %g}]}",
             delta - 0.01, MU_S, MU_K, EPS, pull, time, t_end, 10 * h, h);
    return buf;
}

/* least-squares slope of y over the rows with t0 <= t <= t1 */
static double slope(const cr_run_result *r, int ct, int cy, double t0, double t1)
{
    int nc = cr_run_result_series_columns(r);
    const double *D = cr_run_result_series_data(r);
    double n = 0, st = 0, sy = 0, stt = 0, sty = 0;
    for (long i = 0; i < cr_run_result_series_rows(r); ++i) {
        double t = D[i * nc + ct], y = D[i * nc + cy];
        if (t < t0 || t > t1) continue;
        n += 1, st += t, sy += y, stt += t * t, sty += t * y;
    }
    return (n * sty - st * sy) / (n * stt - st * st);
}

static double value_at(const cr_run_result *r, int ct, int cy, double t)
{
    int nc = cr_run_result_series_columns(r);
    const double *D = cr_run_result_series_data(r);
    for (long i = 0; i < cr_run_result_series_rows(r); ++i)
        if (fabs(D[i * nc + ct] - t) < 1e-9) return D[i * nc + cy];
    return NAN;
}

/* Pulled by f = 2 mu_s w for 0.2 s, then released: the centre of mass accelerates at (2 mu_s - mu_k) g
 * and decelerates at mu_k g (measured from the momentum column, m = rhoA L), comes to rest at
 * t_stop = 0.2 + v(0.2) / (mu_k g) and stays (creeping less than eps). On the old code `check`
 * refused the friction (obstacles.0.friction). */
static void ph_friction_slide_decelerates(void)
{
    const double h = 1e-3, t1 = 0.2;
    cr_status st;
    cr_run_result r = scenario_run_quoted(
        lying_rod(2 * MU_S * RHOA * G, "{'type': 'table', 'points': [[0, 1], [0.2, 1], [0.2005, 0]]}", 1.0, h), &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return;
    int ct = series_column(&r, "t"), cp = series_column(&r, "momentum_x"), cx = series_column(&r, "tip_x"),
        cs = series_column(&r, "contact_sliding"), ca = series_column(&r, "contact_active");
    if (ct < 0 || cp < 0 || cx < 0 || cs < 0 || ca < 0) return;
    const double m = RHOA * 1.0;
    double acc = slope(&r, ct, cp, 0.02, t1) / m, dec = slope(&r, ct, cp, t1 + 0.02, t1 + 0.4) / m;
    double v1 = value_at(&r, ct, cp, t1) / m, t_stop = t1 + v1 / (MU_K * G);
    double x1 = value_at(&r, ct, cx, 0.9), x2 = value_at(&r, ct, cx, 1.0);
    double v_end = value_at(&r, ct, cp, 1.0) / m;
    printf("  pulled by 2 mu_s w: a = %.9g m/s^2 (reference (2 mu_s - mu_k) g = %.9g, off by %.2g); released: %.9g "
           "m/s^2 (reference -mu_k g = %.9g, off by %.2g); v(0.2) = %.6g m/s, stops at %.4g s; from 0.9 to 1 s the "
           "tip moves %.3g m (bound eps 0.1 s = %.3g m), v(1) = %.3g m/s\n",
           acc, (2 * MU_S - MU_K) * G, acc - (2 * MU_S - MU_K) * G, dec, -MU_K * G, dec + MU_K * G, v1, t_stop, x2 - x1,
           EPS * 0.1, v_end);
    CHECK_NEAR(acc, (2 * MU_S - MU_K) * G, 1e-9 * G);
    CHECK_NEAR(dec, -MU_K * G, 1e-9 * G);
    /* the first step slid at mu_s (the rod was at rest): v(0.2) = (2 mu_s - mu_k) g 0.2 - (mu_s - mu_k) g h */
    CHECK_NEAR(v1, (2 * MU_S - MU_K) * G * t1 - (MU_S - MU_K) * G * h, 1e-6 * v1);
    CHECK(fabs(x2 - x1) < EPS * 0.1);
    CHECK(fabs(v_end) < EPS);
    /* every node slid while pulled, none after the stop */
    CHECK(value_at(&r, ct, cs, 0.1) == 11 && value_at(&r, ct, ca, 0.1) == 11);
    CHECK(value_at(&r, ct, cs, 1.0) == 0 && value_at(&r, ct, ca, 1.0) == 11);
    cr_run_result_free(&r);
}

/* Pulled by f = 0.9 mu_s w from rest for 1 s: it sticks, creeping at 0.9 eps (bound: eps); the
 * kinetic coefficient mu_k = 0.3 < 0.9 mu_s alone would let it slide at (0.9 mu_s - mu_k) g =
 * 1.47 m/s^2 (0.74 m in 1 s). */
static void ph_friction_sticks_below_limit(void)
{
    cr_status st;
    cr_run_result r = scenario_run_quoted(lying_rod(0.9 * MU_S * RHOA * G, "{'type': 'constant'}", 1.0, 1e-3), &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return;
    int ct = series_column(&r, "t"), cx = series_column(&r, "tip_x"), cs = series_column(&r, "contact_sliding");
    if (ct < 0 || cx < 0 || cs < 0) return;
    double x0 = value_at(&r, ct, cx, 0.0), xh = value_at(&r, ct, cx, 0.5), x1 = value_at(&r, ct, cx, 1.0);
    double v = slope(&r, ct, cx, 0.5, 1.0);
    printf("  pulled by 0.9 mu_s w: the tip moves %.4g m in 1 s, creeping at %.4g m/s from 0.5 s (0.9 eps = %.3g; "
           "bound eps = %.3g)\n",
           x1 - x0, v, 0.9 * EPS, EPS);
    CHECK(fabs(x1 - xh) < EPS * 0.5);
    CHECK(fabs(x1 - x0) < EPS * 1.0);
    CHECK_NEAR(v, 0.9 * EPS, 1e-3 * EPS);
    CHECK(value_at(&r, ct, cs, 1.0) == 0);
    cr_run_result_free(&r);
}

/* A tilted rod dropped 5 mm onto the rough plane with a sideways push (0.05 s, before it lands): it
 * bounces and slides. Per output row: the balance E + D = E0 with E = energy_kinetic +
 * energy_elastic - work_external (the contact springs' energy in energy_elastic) to 1e-9 m g z0, E
 * never increasing (by more than that), and the friction dissipated a part of it (D > 0.1 m g z0). */
static void ph_friction_energy_only_decreases(void)
{
    const char *json =
        "{'model': {'type': 'port_hamiltonian'}, 'rod': {'length': 1, 'elements': 5, 'material': {'E': 1e7, "
        "'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}], "
        "'reference': {'type': 'straight', 'quaternion': [0.99995000041666, 0, -0.0099998333341667, 0]}},"
        " 'obstacles': [{'type': 'plane', 'point': [0, 0, -0.015], 'normal': [0, 0, 1],"
        " 'friction': {'static': 0.5, 'kinetic': 0.3}}],"
        " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"
        " {'type': 'force_density', 'value': [0, 2, 0], 'time': {'type': 'table', 'points': [[0, 1], [0.05, 1], "
        "[0.05025, 0]]}}],"
        " 'stages': [{'type': 'dynamic', 't_end': 0.5, 'output_dt': 2.5e-4, 'time_step': 2.5e-4}]}";
    cr_status st;
    cr_run_result r = scenario_run_quoted(json, &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return;
    int ck = series_column(&r, "energy_kinetic"), ce = series_column(&r, "energy_elastic"),
        cw = series_column(&r, "work_external"), cd = series_column(&r, "energy_dissipated"),
        cb = series_column(&r, "energy_balance"), cs = series_column(&r, "contact_sliding");
    if (ck < 0 || ce < 0 || cw < 0 || cd < 0 || cb < 0 || cs < 0) return;
    int nc = cr_run_result_series_columns(&r);
    const double *D = cr_run_result_series_data(&r);
    const double mgz = RHOA * G * 0.005;
    double E0 = D[ck] + D[ce] - D[cw], Eprev = E0, bal = 0, rise = 0, step = 0, slid = 0;
    for (long i = 0; i < cr_run_result_series_rows(&r); ++i) {
        const double *row = D + i * nc;
        double E = row[ck] + row[ce] - row[cw];
        bal = fmax(bal, fabs(E + row[cd] - E0));
        rise = fmax(rise, E - Eprev);
        step = fmax(step, fabs(row[cb]));
        slid = fmax(slid, row[cs]);
        Eprev = E;
    }
    double Dend = D[(cr_run_result_series_rows(&r) - 1) * nc + cd];
    printf("  rough drop: |E + D - E0| <= %.3g m g z0, largest rise of E %.3g m g z0, largest step balance %.3g "
           "m g z0, dissipated by friction %.4g m g z0, up to %g nodes sliding\n",
           bal / mgz, rise / mgz, step / mgz, Dend / mgz, slid);
    CHECK(bal < 1e-9 * mgz);
    CHECK(rise < 1e-10 * mgz);
    CHECK(step < 1e-10 * mgz);
    CHECK(Dend > 0.1 * mgz);
    CHECK(slid > 0);
    cr_run_result_free(&r);
}

/* contact.stick_speed belongs to the port-Hamiltonian rod's friction: the other models refuse it at
 * check, naming it (their friction sticks without a regularization) */
static void ph_friction_stick_speed_refused_elsewhere(void)
{
    static const char *const models[] = {"mixed_discrete", "lgvi"};
    for (int k = 0; k < 2; ++k) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": {\"type\": \"%s\"}, \"rod\": {\"length\": 1, \"elements\": 5, \"material\": "
                 "{\"E\": 1e7, \"G\": 4e6, \"rho\": 1000}, \"sections\": [{\"shape\": \"circle\", \"radius\": "
                 "0.01}]}, \"obstacles\": [{\"type\": \"plane\", \"point\": [0, 0, -0.02], \"normal\": [0, 0, 1]}], "
                 "\"contact\": {\"stick_speed\": 1e-4}, \"stages\": [{\"type\": \"dynamic\", \"t_end\": 0.01, "
                 "\"output_dt\": 0.01, \"time_step\": 1e-5}]}",
                 models[k]);
        cr_error err = {0};
        cr_scenario *sc = NULL;
        cr_status st = cr_scenario_load_string(json, NULL, 0, &sc, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) {
            fprintf(stderr, "  load: %s\n", err.message);
            continue;
        }
        st = cr_scenario_check(sc, &err);
        printf("  %s: %s\n", models[k], err.message);
        CHECK(st == CR_BAD_INPUT && strstr(err.message, "contact.stick_speed"));
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(ph_friction_slide_decelerates), CASE(ph_friction_sticks_below_limit),
           CASE(ph_friction_energy_only_decreases), CASE(ph_friction_stick_speed_refused_elsewhere))
