#define _POSIX_C_SOURCE 200809L
/* Coulomb friction of the LGVI rod (docs/lgvi.md "Friction"): an explicit force that stops a node's
 * tangential momentum within the step when mu_s N can (stick, exactly) and is mu_k N against it
 * otherwise. Scenario level. References: Newton's law for the whole rod (a rod lying on a plane,
 * pulled along its axis by a uniform force density f = 2 mu_s w, w = rhoA g its weight per length,
 * accelerates at (f/w - mu_k) g and, released, decelerates at mu_k g until it stops; pulled by
 * 0.9 mu_s w it does not move at all, where mu_k = 0.3 alone would let it slide at 1.47 m/s^2). */
#include "check.h"
#include "cosserat/cosserat.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;
static const double RHOA = 1000 * M_PI * 1e-4; /* circle r = 0.01 m, rho = 1000 */
static const double MU_S = 0.5, MU_K = 0.3;

/* A rod (L = 1 m, 10 elements, circle r = 0.01 m, E = 1e7 Pa) lying on the rough plane z = delta - a
 * at the depth delta = rhoA g l / k_c where every node's spring holds its weight share (k_c the
 * default 12 EI/l^3), pulled along its axis by the force density `pull` x the time function `time`. */
static char *lying_rod(double pull, const char *time, double t_end, double h)
{
    const double l = 0.1, kc = 12 * 1e7 * (M_PI * 1e-8 / 4) / (l * l * l), delta = RHOA * G * l / kc;
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'model': {'type': 'lgvi'}, 'rod': {'length': 1, 'elements': 10, 'material': {'E': 1e7, "
             "'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
             " 'obstacles': [{'type': 'plane', 'point': [0, 0, %.17g], 'normal': [0, 0, 1],"
             " 'friction': {'static': %g, 'kinetic': %g}}],"
             " 'contact': {'tolerance': 1e-3},"
             " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"
             " {'type': 'force_density', 'value': [%.17g, 0, 0], 'time': %s}],"
             " 'stages': [{'type': 'dynamic', 't_end': %g, 'output_dt': %g, 'time_step': %g}]}",
             delta - 0.01, MU_S, MU_K, pull, time, t_end, 100 * h, h);
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
 * and decelerates at mu_k g (from the momentum column, m = rhoA L), stops and stays. On the old code
 * `check` refused the friction (obstacles.0.friction). */
static void lgvi_friction_slide_decelerates(void)
{
    const double h = 5e-5, t1 = 0.2;
    cr_status st;
    cr_run_result r = scenario_run_quoted(
        lying_rod(2 * MU_S * RHOA * G, "{'type': 'table', 'points': [[0, 1], [0.2, 1], [0.2000001, 0]]}", 1.0, h), &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return;
    int ct = series_column(&r, "t"), cp = series_column(&r, "momentum_x"), cx = series_column(&r, "tip_x");
    if (ct < 0 || cp < 0 || cx < 0) return;
    const double m = RHOA * 1.0;
    double acc = slope(&r, ct, cp, 0.02, t1 - 0.01) / m, dec = slope(&r, ct, cp, t1 + 0.02, t1 + 0.4) / m;
    double x1 = value_at(&r, ct, cx, 0.9), x2 = value_at(&r, ct, cx, 1.0);
    double v_end = value_at(&r, ct, cp, 1.0) / m;
    printf("  pulled by 2 mu_s w: a = %.9g m/s^2 (reference (2 mu_s - mu_k) g = %.9g, off by %.2g); released: %.9g "
           "m/s^2 (reference -mu_k g = %.9g, off by %.2g); from 0.9 to 1 s the tip moves %.3g m, v(1) = %.3g m/s\n",
           acc, (2 * MU_S - MU_K) * G, acc - (2 * MU_S - MU_K) * G, dec, -MU_K * G, dec + MU_K * G, x2 - x1, v_end);
    CHECK_NEAR(acc, (2 * MU_S - MU_K) * G, 1e-6 * G);
    CHECK_NEAR(dec, -MU_K * G, 1e-6 * G);
    CHECK(fabs(x2 - x1) < 1e-12);
    CHECK(fabs(v_end) < 1e-12);
    cr_run_result_free(&r);
}

/* Pulled by f = 0.9 mu_s w from rest for 0.5 s: it sticks, exactly (the friction takes the tangential
 * momentum of every step); mu_k alone would slide it 0.18 m. */
static void lgvi_friction_sticks_below_limit(void)
{
    cr_status st;
    cr_run_result r = scenario_run_quoted(lying_rod(0.9 * MU_S * RHOA * G, "{'type': 'constant'}", 0.5, 5e-5), &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return;
    int ct = series_column(&r, "t"), cx = series_column(&r, "tip_x");
    if (ct < 0 || cx < 0) return;
    double x0 = value_at(&r, ct, cx, 0.0), x1 = value_at(&r, ct, cx, 0.5);
    printf("  pulled by 0.9 mu_s w: the tip moves %.3g m in 0.5 s\n", x1 - x0);
    CHECK(fabs(x1 - x0) < 1e-12);
    cr_run_result_free(&r);
}

CHECK_MAIN(CASE(lgvi_friction_slide_decelerates), CASE(lgvi_friction_sticks_below_limit))
