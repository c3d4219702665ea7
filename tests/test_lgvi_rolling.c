#define _POSIX_C_SOURCE 200809L
/* Friction at the contact point of the LGVI rod (docs/lgvi.md "Friction"): a rod lying across a rough
 * incline (its axis horizontal) rolls. The incline is the plane z = const under the gravity
 * g (0, sin θ, −cos θ), every node's spring holding its weight share. The LGVI rod's rotary inertia
 * about its axis is ρJ = ρ(I_y + I_z) = ρ π r⁴/2 per length (the kernel's rhoJ, lumped with the mass:
 * c_q ρJ and m_q = c_q ρA), so J/(A r²) = 1/2 at every node and the rigid-cylinder references hold node
 * by node: tan θ <= 3 μ_s rolls without slipping, a_c = (2/3) g sin θ, spin ω̇ = −a_c/r about the
 * axis (e_x); above, it slides and spins, a_c = g (sin θ − μ_k cos θ), ω̇ = −2 μ_k g cos θ / r.
 * Energy: rolling, the friction does no work (E − W_gravity constant); sliding, its work is
 * −μ_k N × the contact point's slip ½ (a_c − r|ω̇|) t². */
#include "check.h"
#include "cosserat/cosserat.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81, R = 0.01;
static const double RHOA = 1000 * M_PI * 1e-4; /* circle r = 0.01 m, rho = 1000 */
static const double MU_S = 0.5, MU_K = 0.3;

/* least-squares fit y = c0 + c1 t + c2 t² over the rows with t >= t0; returns 2 c2 (the acceleration) */
static double accel(const double *t, const double *y, int n, double t0)
{
    double S[5] = {0}, B[3] = {0};
    for (int i = 0; i < n; ++i) {
        if (t[i] < t0) continue;
        double p = 1;
        for (int k = 0; k < 5; ++k) {
            if (k < 3) B[k] += p * y[i];
            S[k] += p, p *= t[i];
        }
    }
    /* the normal equations [S0 S1 S2; S1 S2 S3; S2 S3 S4] c = B, by Cramer for c2 */
    const double a[3][3] = {{S[0], S[1], S[2]}, {S[1], S[2], S[3]}, {S[2], S[3], S[4]}};
#define DET(m)                                                                                                         \
    (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +           \
     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    const double c[3][3] = {{S[0], S[1], B[0]}, {S[1], S[2], B[1]}, {S[2], S[3], B[2]}};
    return 2 * DET(c) / DET(a);
}

/* the rod across the incline of angle th (deg) for 0.2 s: the centre's acceleration along the slope
 * (from the tip's y), the spin's (from the tip's rotation about e_x, unwrapped), the touching and the
 * sliding nodes at the end, and the energy the friction took, E − W_gravity − (E − W_gravity)(0) at
 * the end (W_gravity = m g·Δx, every node moving as the tip) */
static int incline(double th_deg, double *ac, double *alpha, double *sliding, double *active, double *dE,
                   double *slip_t, double *wgrav, double *bal)
{
    const double th = th_deg * M_PI / 180, l = 0.1, kc = 12 * 1e7 * (M_PI * 1e-8 / 4) / (l * l * l);
    const double delta = RHOA * G * cos(th) * l / kc, gy = G * sin(th), gz = -G * cos(th);
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{'model': {'type': 'lgvi'}, 'rod': {'length': 1, 'elements': 10, 'material': {'E': 1e7, "
             "'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
             " 'obstacles': [{'type': 'plane', 'point': [0, 0, %.17g], 'normal': [0, 0, 1],"
             " 'friction': {'static': %g, 'kinetic': %g}}],"
             " 'contact': {'tolerance': 1e-3, 'rolling': true},"
             " 'loads': [{'type': 'gravity', 'value': [0, %.17g, %.17g]}],"
             " 'stages': [{'type': 'dynamic', 't_end': 0.2, 'output_dt': 0.002, 'time_step': 5e-5}]}",
             delta - R, MU_S, MU_K, gy, gz);
    cr_status st;
    cr_run_result r = scenario_run_quoted(buf, &st);
    CHECK(st == CR_OK);
    if (st != CR_OK) return 0;
    const int nc = cr_run_result_series_columns(&r), n = (int)cr_run_result_series_rows(&r);
    const int ct = series_column(&r, "t"), cy = series_column(&r, "tip_y"), cz = series_column(&r, "tip_z"),
              c0 = series_column(&r, "tip_p0"), c1 = series_column(&r, "tip_p1"),
              cs = series_column(&r, "contact_sliding"), ca = series_column(&r, "contact_active"),
              ce = series_column(&r, "energy_total"), cw = series_column(&r, "work_external");
    if (ct < 0 || cy < 0 || cz < 0 || c0 < 0 || c1 < 0 || cs < 0 || ca < 0 || ce < 0 || cw < 0) return 0;
    const double *D = cr_run_result_series_data(&r);
    double *t = malloc(n * sizeof *t), *y = malloc(n * sizeof *y), *phi = malloc(n * sizeof *phi);
    double prev = 0, turns = 0;
    for (int i = 0; i < n; ++i) {
        t[i] = D[i * nc + ct], y[i] = D[i * nc + cy];
        double p = 2 * atan2(D[i * nc + c1], D[i * nc + c0]);
        if (i > 0 && p - prev > M_PI) turns -= 2 * M_PI;
        if (i > 0 && p - prev < -M_PI) turns += 2 * M_PI;
        prev = p, phi[i] = p + turns;
    }
    *ac = accel(t, y, n, 0.02), *alpha = accel(t, phi, n, 0.02);
    *sliding = D[(n - 1) * nc + cs], *active = D[(n - 1) * nc + ca];
    *slip_t = 0;
    for (int i = 0; i < n; ++i) *slip_t = fmax(*slip_t, D[i * nc + cs]);
    const double m = RHOA * 1.0;
    /* work_external holds gravity's and the friction's work (its discrete rule: O(h v) off the
     * continuous m g·Δx of gravity): the friction's W − m g·Δx; and the balance E − W */
    const double wg = m * (gy * (y[n - 1] - y[0]) + gz * (D[(n - 1) * nc + cz] - D[cz]));
    *dE = (D[(n - 1) * nc + cw] - D[cw]) - wg;
    *wgrav = wg;
    *bal = fabs((D[(n - 1) * nc + ce] - D[(n - 1) * nc + cw]) - (D[ce] - D[cw]));
    free(t), free(y), free(phi);
    cr_run_result_free(&r);
    return 1;
}

static void rolls_below_three_mu(void)
{
    const double th = 30 * M_PI / 180; /* tan θ = 0.577 < 3 μ_s = 1.5 */
    double ac, al, sl, act, wf, slip, wg, bal;
    if (!incline(30, &ac, &al, &sl, &act, &wf, &slip, &wg, &bal)) return;
    const double ref = 2.0 / 3 * G * sin(th);
    printf("  30 deg: a_c = %.9g m/s^2 (reference (2/3) g sin th = %.9g, %+.1e), spin acceleration %.9g rad/s^2 "
           "(reference -a_c/r = %.9g, %+.1e); %g of %g nodes slid at most; the friction's work %.3g J of gravity's "
           "%.4g J; balance E - W within %.2g J\n",
           ac, ref, ac / ref - 1, al, -ref / R, al / (-ref / R) - 1, slip, act, wf, wg, bal);
    CHECK(fabs(ac / ref - 1) < 1e-4);
    CHECK(fabs(al / (-ref / R) - 1) < 1e-4);
    CHECK(slip == 0 && act == 11);
    /* rolling without slip: no work, but for the discrete gravity work's O(h v) (5e-4 of it; the sliding
     * case's friction takes 0.38 of it) */
    CHECK(fabs(wf) < 2e-3 * wg);
    CHECK(bal < 1e-6 * wg);
}

static void slides_above_three_mu(void)
{
    const double th = 60 * M_PI / 180; /* tan θ = 1.73 > 3 μ_s */
    double ac, al, sl, act, wf, slip, wg, bal;
    if (!incline(60, &ac, &al, &sl, &act, &wf, &slip, &wg, &bal)) return;
    const double ref = G * (sin(th) - MU_K * cos(th)), aref = -2 * MU_K * G * cos(th) / R;
    /* the contact point slips at (a_c − r|ω̇|) t: the friction's work −μ_k N ½ (a_c − r|ω̇|) t² */
    const double m = RHOA, T = 0.2, wref = -MU_K * m * G * cos(th) * 0.5 * (ref + R * aref) * T * T;
    printf("  60 deg: a_c = %.9g m/s^2 (reference g (sin th - mu_k cos th) = %.9g, %+.1e), spin acceleration %.9g "
           "rad/s^2 (reference -2 mu_k g cos th/r = %.9g, %+.1e); %g of %g nodes slide; the friction's work %.6g J "
           "(reference %.6g J, %+.1e); balance E - W within %.2g J\n",
           ac, ref, ac / ref - 1, al, aref, al / aref - 1, sl, act, wf, wref, wf / wref - 1, bal);
    CHECK(fabs(ac / ref - 1) < 1e-4);
    CHECK(fabs(al / aref - 1) < 1e-4);
    CHECK(sl == 11 && act == 11);
    CHECK(wf < 0 && fabs(wf / wref - 1) < 2e-2); /* (the discrete gravity work's O(h v): 5e-3) */
    CHECK(bal < 1e-6 * wg);
}

CHECK_MAIN(CASE(rolls_below_three_mu), CASE(slides_above_three_mu))
