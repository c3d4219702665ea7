#define _POSIX_C_SOURCE 200809L
/* The lgvi rod's contact_sliding column (src/lgvi/formulation.c: the nodes whose last step slid in
 * friction_forces), with the mixed rod's meaning: how many touching nodes slide. A rod lying on a
 * rough plane (every node touching), pulled along its axis by a force density 2 mu_s w for 0.2 s,
 * then released: while pulled every node slides (sliding = active = 11), it stops at t ~ 0.47 s
 * (the momentum decays at mu_k g) and then sticks (sliding = 0, active = 11); pulled by 0.9 mu_s w
 * it never slides. The mixed rod on the same scenario counts the same nodes. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;
static const double RHOA = 1000 * M_PI * 1e-4; /* circle r = 0.01 m, rho = 1000 */
static const double MU_S = 0.5, MU_K = 0.3;

static double value_at(const cr_run_result *r, const char *name, double t)
{
    const int nc = cr_run_result_series_columns(r), ct = series_column(r, "t"), cy = series_column(r, name);
    const double *D = cr_run_result_series_data(r);
    for (long i = 0; ct >= 0 && cy >= 0 && i < cr_run_result_series_rows(r); ++i)
        if (fabs(D[i * nc + ct] - t) < 1e-9) return D[i * nc + cy];
    return NAN;
}

/* test_lgvi_friction's rod (L = 1 m, 10 elements) lying on the plane at the depth where every
 * node's spring holds its weight share; model lgvi (a fixed step) or the mixed rod */
static char *lying_rod(int lgvi, double pull, const char *time, double t_end)
{
    const double l = 0.1, kc = 12 * 1e7 * (M_PI * 1e-8 / 4) / (l * l * l), delta = RHOA * G * l / kc;
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'model': {'type': '%s'}, 'rod': {'length': 1, 'elements': 10, 'material': {'E': 1e7, "
             "'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
             " 'obstacles': [{'type': 'plane', 'point': [0, 0, %.17g], 'normal': [0, 0, 1],"
             " 'friction': {'static': %g, 'kinetic': %g}}],"
             " 'contact': {'tolerance': 1e-3},"
             " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]},"
             " {'type': 'force_density', 'value': [%.17g, 0, 0], 'time': %s}],"
             " 'stages': [{'type': 'dynamic', 't_end': %g, 'output_dt': 0.005, %s}]}",
             lgvi ? "lgvi" : "mixed_discrete", delta - 0.01, MU_S, MU_K, pull, time, t_end,
             lgvi ? "'time_step': 5e-5" : "'rtol': 1e-6, 'atol': 1e-9");
    return buf;
}

static void sliding_then_stuck(void)
{
    const char *pulse = "{'type': 'table', 'points': [[0, 1], [0.2, 1], [0.2000001, 0]]}";
    cr_status st, stm;
    cr_run_result r = scenario_run_quoted(lying_rod(1, 2 * MU_S * RHOA * G, pulse, 0.8), &st);
    cr_run_result m = scenario_run_quoted(lying_rod(0, 2 * MU_S * RHOA * G, pulse, 0.8), &stm);
    CHECK(st == CR_OK && stm == CR_OK);
    if (st == CR_OK && stm == CR_OK) {
        /* while pulled and while it coasts (v > 0 until ~0.47 s), then at rest */
        const double ts[] = {0.1, 0.3, 0.7};
        const double want[] = {11, 11, 0};
        for (int k = 0; k < 3; ++k) {
            const double a = value_at(&r, "contact_active", ts[k]), s = value_at(&r, "contact_sliding", ts[k]);
            const double am = value_at(&m, "contact_active", ts[k]), sm = value_at(&m, "contact_sliding", ts[k]);
            printf("  t = %g s: lgvi %g of %g touching nodes slide, the mixed rod %g of %g (want %g)\n", ts[k], s, a,
                   sm, am, want[k]);
            CHECK(a == 11 && s == want[k]);
            CHECK(am == 11 && sm == want[k]);
        }
    }
    cr_run_result_free(&r);
    cr_run_result_free(&m);
}

static void never_slides_below_limit(void)
{
    cr_status st;
    cr_run_result r = scenario_run_quoted(lying_rod(1, 0.9 * MU_S * RHOA * G, "{'type': 'constant'}", 0.2), &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return;
    const int nc = cr_run_result_series_columns(&r), cs = series_column(&r, "contact_sliding"),
              ca = series_column(&r, "contact_active");
    const double *D = cr_run_result_series_data(&r);
    double most = 0, least = 11;
    for (long i = 0; cs >= 0 && ca >= 0 && i < cr_run_result_series_rows(&r); ++i)
        most = fmax(most, D[i * nc + cs]), least = fmin(least, D[i * nc + ca]);
    printf("  pulled by 0.9 mu_s w: at most %g nodes slide, at least %g touch\n", most, least);
    CHECK(most == 0 && least == 11);
    cr_run_result_free(&r);
}

CHECK_MAIN(CASE(sliding_then_stuck), CASE(never_slides_below_limit))
