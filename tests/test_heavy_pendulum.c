#define _POSIX_C_SOURCE 200809L
/* Heavy pendulum (issue 10, dynamic supports): a rod hanging under its own weight, pinned at the
 * top (position held, rotation free), swinging in its first mode with a small amplitude. The
 * period of the mixed rod is compared with the linear hanging-rod eigenproblem, solved here
 * independently of the library.
 *
 * Reference. Small transverse motion w(s, t) of a hanging Rayleigh beam (s from the pin, down):
 *
 *     ρA ẅ − ρI ẅ'' + EI w'''' − (T w')' = 0,     T(s) = ρA g (L − s),
 *
 * pinned top: w(0) = 0, EI w''(0) = 0; free bottom: moment EI w''(L) = 0 and transverse force
 * −EI w'''(L) + ρI ẅ'(L) + T(L) w'(L) = 0, where T(L) = 0. In weak form (the free-end and the
 * moment conditions are natural, only w(0) = 0 is imposed), for w = φ(s) e^{iωt}:
 *
 *     ∫ EI φ'' ψ'' + T φ' ψ' ds = ω² ∫ ρA φ ψ + ρI φ' ψ' ds     for all ψ with ψ(0) = 0.
 *
 * Non-dimensional (L = 1, ρA = 1, g = 1): μ = EI/(ρA g L³), ι = ρI/(ρA L²), ω in units √(g/L).
 * Discretized by N Hermite-cubic elements (C¹, the natural conditions need nothing; 4-point
 * Gauss, exact for these polynomial integrands) and solved as the dense generalized symmetric
 * eigenproblem K φ = ω² M φ with LAPACK dsygv. Two choices keep it accurate for every μ:
 *   - the rigid rotation about the pin is an explicit unknown: w = θ s + v(s) with v(0) = v'(0)
 *     = 0, so the bending term (which annihilates θ s exactly) never touches θ, and
 *   - dsygv solves M φ = ν K φ (K is positive definite with the pin) and ω₁ = 1/√ν_max: the
 *     wanted eigenvalue is the largest, so it is accurate relative to itself even when μ N⁴ is
 *     huge (solving K φ = λ M φ loses ω₁ to round-off in μ N⁴ for the steel rod).
 * Limits, checked below:
 *   - μ → 0, ι = 0 (hanging chain): −((1 − s) φ')' = ω² φ; with x = 1 − s, ξ = 2ω√x this is
 *     Bessel's equation of order 0, φ = J₀(2ω√(1 − s)) (bounded at the free end), and φ(0) = 0
 *     gives 2ω = j₀,ₖ: ω_k = (j₀,ₖ/2) √(g/L), ω₁ = 1.2024128 √(g/L).
 *   - μ → ∞ (rigid physical pendulum): φ = s, Rayleigh quotient ∫T φ'² / ∫(ρA φ² + ρI φ'²)
 *     = (1/2)/(1/3 + ι): ω² = 3g/(2L) / (1 + 3ι), ω₁ = 1.2247449 √(g/L) at ι = 0.
 * The two differ by only 1.8 %, so the soft rod (μ = 1e-3, close to the chain) and the stiff
 * steel rod (μ = 65, rigid to 1e-5) must each be matched much better than that.
 *
 * The mixed rod. Stage 0: clamped, gravity (static). Stage 1: the top node held in x, y, z and in
 * the twist rz (a pin alone is singular in statics: nothing resists the twist), a small
 * horizontal load (static). Stage 2: pinned, the load removed (dynamic, from rest in the
 * deflected equilibrium). Period from the upward zero crossings of tip_x (the equilibrium is
 * x = 0), linearly interpolated (the interpolation error at a zero crossing of a sinusoid is
 * O(dt³)). Loads: the stiff rod gets a tip force (its static shape is the rigid rotation to
 * O(1/μ)); the soft rod gets nodal forces F_i = ε m_i φ₁(s_i), m_i the lumped nodal mass and φ₁
 * the reference's first mode: K⁻¹ M φ₁ = φ₁/ω₁², so the static deflection is the first mode
 * itself and the release excites almost nothing else (a tip force would excite the second mode
 * with 10 % of the amplitude here). The tolerances are discretization errors of the mixed rod
 * (second order in 1/n, measured at n = 20 and 40, see the printed numbers); axial and shear
 * flexibility (EA, GA ≥ 1e4 ρA g L) and the rotary inertia are in the reference (ι) or below
 * 1e-4. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *b, const int *ldb, double *w, double *work, const int *lwork, int *info);

/* ω_1..nev (units √(g/L)) of the hanging rod with μ = EI/(ρA g L³), ι = ρI/(ρA L²) on N Hermite
 * elements; shape (optional, N + 1 values): mode 1 at s_i = i/N, scaled to +1 at the free end.
 * Returns 0 when LAPACK fails. */
static int hanging_modes(double mu, double iota, int N, int nev, double *omega, double *shape)
{
    const int n = 1 + 2 * N; /* θ, then (v_i, v'_i) for nodes i = 1..N */
    double *K = calloc((size_t)n * n, sizeof *K), *M = calloc((size_t)n * n, sizeof *M);
    double *w = malloc((size_t)n * sizeof *w);
    if (!K || !M || !w) return free(K), free(M), free(w), 0;
    const double gx[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
    const double gw[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
    const double h = 1.0 / N;
    for (int e = 0; e < N; ++e) {
        /* local unknowns: θ, v_a, v'_a, v_b, v'_b (global index, −1 when fixed: node 0) */
        int idx[5] = {0, e == 0 ? -1 : 1 + 2 * (e - 1), e == 0 ? -1 : 2 + 2 * (e - 1), 1 + 2 * e, 2 + 2 * e};
        for (int q = 0; q < 4; ++q) {
            double x = 0.5 * (gx[q] + 1), wq = 0.5 * gw[q] * h, s = (e + x) * h, T = 1 - s;
            /* w = θ s + v, w' = θ + v', w'' = v'' (the rigid rotation has no curvature, exactly) */
            double N0[5] = {s, 1 - 3 * x * x + 2 * x * x * x, h * (x - 2 * x * x + x * x * x),
                            3 * x * x - 2 * x * x * x, h * (-x * x + x * x * x)};
            double D1[5] = {1, (-6 * x + 6 * x * x) / h, 1 - 4 * x + 3 * x * x, (6 * x - 6 * x * x) / h,
                            -2 * x + 3 * x * x};
            double D2[5] = {0, (-6 + 12 * x) / (h * h), (-4 + 6 * x) / h, (6 - 12 * x) / (h * h), (-2 + 6 * x) / h};
            for (int a = 0; a < 5; ++a)
                for (int b = 0; b < 5; ++b) {
                    if (idx[a] < 0 || idx[b] < 0) continue;
                    size_t ab = (size_t)idx[b] * n + idx[a];
                    K[ab] += wq * (mu * D2[a] * D2[b] + T * D1[a] * D1[b]);
                    M[ab] += wq * (N0[a] * N0[b] + iota * D1[a] * D1[b]);
                }
        }
    }
    /* M φ = ν K φ, ν = 1/ω²: eigenvalues ascending, mode k is the k-th from the top */
    int itype = 1, info = 0, lwork = -1;
    double wq;
    const char *jobz = shape ? "V" : "N";
    dsygv_(&itype, jobz, "U", &n, M, &n, K, &n, w, &wq, &lwork, &info);
    lwork = (int)wq;
    double *work = malloc((size_t)lwork * sizeof *work);
    if (work) dsygv_(&itype, jobz, "U", &n, M, &n, K, &n, w, work, &lwork, &info);
    int ok = work && info == 0;
    if (ok) {
        for (int k = 0; k < nev; ++k) omega[k] = 1 / sqrt(w[n - 1 - k]);
        if (shape) {
            const double *v = M + (size_t)(n - 1) * n; /* eigenvector of the largest ν */
            for (int i = 0; i <= N; ++i) shape[i] = v[0] * i * h + (i ? v[1 + 2 * (i - 1)] : 0);
            double tip = shape[N];
            for (int i = 0; i <= N; ++i) shape[i] /= tip;
        }
    }
    free(work), free(K), free(M), free(w);
    return ok;
}

/* The reference against its two limits and itself under refinement. */
static void hanging_reference_limits(void)
{
    const double j0[3] = {2.404825557695773, 5.520078110286311, 8.653727912911013}; /* zeros of J₀ */
    double w50[3], w100[3];
    CHECK(hanging_modes(0, 0, 50, 3, w50, NULL) && hanging_modes(0, 0, 100, 3, w100, NULL));
    printf("  chain (mu = 0): omega_k sqrt(L/g) = %.9f %.9f %.9f (N = 100), exact j0k/2 = %.9f %.9f %.9f\n", w100[0],
           w100[1], w100[2], j0[0] / 2, j0[1] / 2, j0[2] / 2);
    for (int k = 0; k < 3; ++k) CHECK_NEAR(w100[k], j0[k] / 2, 1e-7);
    const double rigid = sqrt(1.5);
    double prev = 0;
    for (int e = 0; e <= 8; e += 2) {
        double mu = pow(10, e), a[1], b[1];
        CHECK(hanging_modes(mu, 0, 40, 1, a, NULL) && hanging_modes(mu, 0, 160, 1, b, NULL));
        printf("  mu = 1e%d: omega_1 = %.10f (N = 40), %.10f (N = 160), rigid - omega_1 = %.3g\n", e, a[0], b[0],
               rigid - b[0]);
        CHECK_NEAR(a[0], b[0], 1e-9 * rigid);           /* converged, and no round-off growth with μ N⁴ */
        CHECK(b[0] < rigid && b[0] > prev);             /* stiffer is faster, and never faster than rigid */
        if (e >= 2) CHECK_NEAR(b[0], rigid, 2e-3 / mu); /* the flexibility correction falls as 1/μ */
        prev = b[0];
    }
    double wi[1];
    CHECK(hanging_modes(1e8, 0.01, 40, 1, wi, NULL));
    CHECK_NEAR(wi[0], sqrt(1.5 / 1.03), 1e-8); /* rotary inertia: ω² = 3g/(2L) / (1 + 3ι) */
}

/* ---- running scenarios ---- */

static int run_json(const char *json, const char *const *sets, int nsets, cr_run_result *r)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, sets, nsets, &sc, &err) != CR_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        memset(r, 0, sizeof *r);
        return 0;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_status st = cr_scenario_run(sc, &o, r, &err);
    if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
    cr_scenario_destroy(sc);
    return st == CR_OK;
}

static int load_example(const char *name, const char *const *sets, int nsets, cr_run_result *r)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", COSSERAT_SOURCE_DIR, name);
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_file(path, sets, nsets, &sc, &err) != CR_OK) {
        fprintf(stderr, "load %s: %s\n", name, err.message);
        memset(r, 0, sizeof *r);
        return 0;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_status st = cr_scenario_run(sc, &o, r, &err);
    if (st != CR_OK) fprintf(stderr, "run %s: %s\n", name, err.message);
    cr_scenario_destroy(sc);
    return st == CR_OK;
}

static double at(const cr_run_result *r, long row, int col)
{
    return cr_run_result_series_data(r)[row * cr_run_result_series_columns(r) + col];
}

/* Mean period from the upward crossings of `level` by column `name`, and the number of crossings;
 * also the largest |value − level| (amplitude). */
static double period(const cr_run_result *r, const char *name, double level, int *crossings, double *amplitude)
{
    int ct = series_column(r, "t"), cy = series_column(r, name);
    long n = cr_run_result_series_rows(r);
    *crossings = 0;
    *amplitude = 0;
    if (ct < 0 || cy < 0 || n < 3) return NAN;
    double first = NAN, last = NAN;
    for (long i = 1; i < n; ++i) {
        double ta = at(r, i - 1, ct), a = at(r, i - 1, cy) - level, b = at(r, i, cy) - level;
        *amplitude = fmax(*amplitude, fabs(b));
        if (!(a < 0 && b >= 0)) continue;
        double tc = ta + (at(r, i, ct) - ta) * (-a / (b - a));
        if (*crossings == 0) first = tc;
        last = tc;
        ++*crossings;
    }
    return *crossings >= 2 ? (last - first) / (*crossings - 1) : NAN;
}

/* The stiff rod: examples/heavy-pendulum.json (steel, L = 1 m, r = 1 cm: μ = 65.3, ι = 2.5e-5),
 * released from a tip-force deflection, at n = 20 and 40. */
static void heavy_pendulum_stiff(void)
{
    const double L = 1, g = 9.81, r = 0.01, E = 2e11, rho = 7800;
    const double A = M_PI * r * r, I = M_PI * pow(r, 4) / 4, mu = E * I / (rho * A * g * L * L * L),
                 iota = I / (A * L * L);
    double w[1];
    CHECK(hanging_modes(mu, iota, 40, 1, w, NULL));
    const double T_ref = 2 * M_PI / (w[0] * sqrt(g / L)), T_rigid = 2 * M_PI * sqrt(2 * L / (3 * g));
    printf("  steel rod: mu = %.2f, iota = %.2g; reference period %.6f s (rigid pendulum %.6f s)\n", mu, iota, T_ref,
           T_rigid);
    double err[2];
    for (int k = 0; k < 2; ++k) {
        char el[64];
        snprintf(el, sizeof el, "rod.elements=%d", 20 << k);
        const char *sets[] = {el};
        cr_run_result res;
        int ok = load_example("heavy-pendulum.json", sets, 1, &res);
        CHECK(ok);
        if (!ok) return;
        int nc;
        double amp, T = period(&res, "tip_x", 0, &nc, &amp);
        err[k] = (T - T_ref) / T_ref;
        /* what the error should be: the lumped nodal masses (h/2 at the ends) give the moment of inertia
         * Σ m_i s_i² = ρA L³ (1/3 + h²/6) by the trapezoidal rule while the gravity moment Σ m_i g s_i is
         * exact, so T grows by h²/4 (h = 1/n); the amplitude θ₀ adds θ₀²/16 (the pendulum's nonlinearity) */
        double h = 1.0 / (20 << k), th = asin(amp / L), predicted = h * h / 4 + th * th / 16;
        printf("  n = %d: period %.6f s over %d crossings, tip amplitude %.2f mm, error %+.3e (h^2/4 + theta0^2/16 "
               "= %+.3e)\n",
               20 << k, T, nc, 1e3 * amp, err[k], predicted);
        CHECK(nc >= 5);
        CHECK(amp > 0.01 && amp < 0.025); /* small: θ₀²/16 = 2e-5 */
        CHECK_NEAR(err[k], predicted, 1e-5);
        /* the pin keeps the top node at the origin and, holding no rotation, has no reaction moment */
        cr_vec3 p0 = cr_sim_position(res.sim, 0), F, Mo;
        CHECK(cr_v3_norm(p0) < 1e-15);
        CHECK(cr_sim_reaction(res.sim, 0, &F, &Mo) == CR_OK);
        CHECK(cr_v3_norm(Mo) == 0);
        printf(
            "    pin at t = 10 s: |r_0| = %.1e m, reaction force (%.4f, %.4f, %.4f) N, moment (%.1e, %.1e, %.1e) N m\n",
            cr_v3_norm(p0), F.x, F.y, F.z, Mo.x, Mo.y, Mo.z);
        /* the pin's series columns (output.track point "pin"): at the origin and no moment at every output
         * (its force carries the flexural ringing of the release, ~390 rad/s, not resolved by output_dt, so the
         * momentum balance is checked in test_shaken_cantilever.c instead) */
        int cpx = series_column(&res, "pin_x"), cpy = series_column(&res, "pin_y"), cpz = series_column(&res, "pin_z"),
            cmx = series_column(&res, "pin_mx"), cmy = series_column(&res, "pin_my"),
            cmz = series_column(&res, "pin_mz");
        double dpos = 0, dmom = 0;
        for (long i = 0; i < cr_run_result_series_rows(&res); ++i) {
            dpos = fmax(dpos, fabs(at(&res, i, cpx)) + fabs(at(&res, i, cpy)) + fabs(at(&res, i, cpz)));
            dmom = fmax(dmom, fabs(at(&res, i, cmx)) + fabs(at(&res, i, cmy)) + fabs(at(&res, i, cmz)));
        }
        printf("    series: pin position <= %.1e m, pin moment <= %.1e N m\n", dpos, dmom);
        CHECK(dpos < 1e-15 && dmom == 0);
        cr_run_result_free(&res);
    }
    CHECK(fabs(err[1]) < 3e-4);
    CHECK(fabs(err[0]) < 1e-3);
    CHECK(fabs(err[1]) < fabs(err[0]) / 3);
}

/* The soft rod: resultants with μ = EI/(ρA g L³) = 1e-3, close to the chain, released from the
 * static deflection under a load shaped like the first mode (see the header). */
static void heavy_pendulum_soft(void)
{
    const double mu = 1e-3, iota = 1e-6, g = 9.81; /* L = 1 m, ρA = 1 kg/m */
    double wref[2], wchain[1];
    enum { NREF = 160 };
    double shape_ref[NREF + 1];
    CHECK(hanging_modes(mu, iota, NREF, 2, wref, shape_ref));
    CHECK(hanging_modes(0, 0, NREF, 1, wchain, NULL));
    const double T_ref = 2 * M_PI / (wref[0] * sqrt(g)), T_chain = 2 * M_PI / (wchain[0] * sqrt(g)),
                 T_rigid = 2 * M_PI * sqrt(2 / (3 * g));
    printf("  soft rod: mu = %.0e; reference period %.6f s (chain %.6f s, rigid %.6f s; second mode %.4f s)\n", mu,
           T_ref, T_chain, T_rigid, 2 * M_PI / (wref[1] * sqrt(g)));
    double err[2];
    for (int k = 0; k < 2; ++k) {
        const int n = 20 << k;
        const double eps = 0.02; /* tip deflection ≈ ε/ω₁² = 1.4 mm */
        char json[16384];
        int len = snprintf(
            json, sizeof json,
            "{\"name\": \"soft-pendulum\", \"rod\": {\"length\": 1, \"elements\": %d,"
            " \"reference\": {\"type\": \"straight\", \"quaternion\": [0.7071067811865476, 0, 0.7071067811865476, 0]},"
            " \"sections\": [{\"shape\": \"resultants\", \"EA\": 1e5, \"GA_y\": 1e5, \"GA_z\": 1e5, \"GJ\": %.17g,"
            " \"EI_y\": %.17g, \"EI_z\": %.17g, \"rhoA\": 1, \"rhoI_y\": %g, \"rhoI_z\": %g}]},"
            " \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"start\", \"stages\": [0]},"
            " {\"type\": \"support\", \"node\": \"start\", \"hold\": [\"x\", \"y\", \"z\", \"rz\"], \"stages\": [1]},"
            " {\"type\": \"pin\", \"node\": \"start\", \"stages\": [2]}],"
            " \"loads\": [{\"type\": \"gravity\", \"value\": [0, 0, -9.81]}",
            n, mu * g / 1.3, mu * g, mu * g, iota, iota);
        /* nodal forces ε m_i φ₁(s_i) g (lumped masses h, h/2 at the ends), φ₁ from the reference */
        for (int i = 1; i <= n; ++i) {
            double s = (double)i / n, u = s * NREF;
            int j = (int)fmin(u, NREF - 1);
            double phi = shape_ref[j] + (u - j) * (shape_ref[j + 1] - shape_ref[j]); /* NREF is a multiple of n */
            double m = (i == n ? 0.5 : 1.0) / n;
            len += snprintf(json + len, sizeof json - len,
                            ", {\"type\": \"force\", \"node\": %d, \"value\": [%.17g, 0, 0], \"stages\": [1]}", i,
                            eps * g * m * phi);
        }
        snprintf(json + len, sizeof json - len,
                 "], \"stages\": [{\"type\": \"static\"}, {\"type\": \"static\"},"
                 " {\"type\": \"dynamic\", \"t_end\": 10, \"output_dt\": 0.005, \"rtol\": 1e-7, \"atol\": 1e-10}]}");
        cr_run_result res;
        int ok = run_json(json, NULL, 0, &res);
        CHECK(ok);
        if (!ok) return;
        int nc;
        double amp, T = period(&res, "tip_x", 0, &nc, &amp);
        err[k] = (T - T_ref) / T_ref;
        printf("  n = %d: period %.6f s over %d crossings, tip amplitude %.2f mm, error %+.2e (from the chain "
               "%+.2e, from rigid %+.2e)\n",
               n, T, nc, 1e3 * amp, err[k], (T - T_chain) / T_chain, (T - T_rigid) / T_rigid);
        CHECK(nc >= 5);
        cr_run_result_free(&res);
    }
    CHECK(fabs(err[1]) < 5e-4);
    CHECK(fabs(err[0]) < 1.5e-3);
    CHECK(fabs(err[1]) < fabs(err[0]) / 3);
}

CHECK_MAIN(CASE(hanging_reference_limits), CASE(heavy_pendulum_stiff), CASE(heavy_pendulum_soft))
