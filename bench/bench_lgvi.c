/* LGVI rod kernel benchmark (not a test): wall time and node-steps per second of
 * cr_lgvi_step for
 *   1. the §5.2 pure-stretching cantilever (spec §3: K = 100, h = 1e-4, 150 000 steps,
 *      tip force 6 g(t) e3), both models;
 *   2. a bending problem (the §5.1 flying beam loads on a K = 100 free rod, h = 1e-4), which
 *      exercises the full rotation path (log, dτ^{-1}, Newton, quaternion update);
 *   3. scaling: pure stretching with K = 10², 10³, 10⁴, 10⁵ and ~2·10⁷ node-steps each.
 * Cases 1-3 run on one thread (cr_lgvi_set_threads(s, 1)).
 * With --cfl it instead bisects the critical time step of several problems and prints
 * h_crit / cr_lgvi_stable_step (how the CFL safety factor was chosen); --midpoint does it for
 * the midpoint strain frame (CR_LGVI_STRAINS_MIDPOINT).
 * With --threads it times 1 and 2 threads on a bending problem with every node moving
 * (K = 10³ ... 10⁵, best of 3 runs each, since the machine may be shared) and checks that
 * the final states are bit-identical.
 *
 *   build/bench_lgvi [--quick] [--cfl [--midpoint]] [--threads]
 */
#include "lgvi/lgvi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* g(t) of spec §3: 80t up to 200 at 2.5 s, back to 0 at 5 s */
static double gfun(double t) { return t <= 2.5 ? 80 * t : (t <= 5 ? 80 * (5 - t) : 0); }

static int g_strains = CR_LGVI_STRAINS_LEFT; /* --midpoint */

/* Simo–Vu-Quoc constants (spec §3) */
static cr_lgvi_params base_params(int K, double h, int dil)
{
    cr_lgvi_params p;
    memset(&p, 0, sizeof p);
    p.elements = K, p.length = 10, p.rhoA = 1, p.rhoJ = cr_v3(10, 10, 20);
    p.C1 = cr_v3(1e4, 1e4, 1e4), p.C2 = cr_v3(500, 500, 500);
    p.dilatation = dil, p.chart = CR_LGVI_CHART_EXP, p.h = h, p.strains = g_strains;
    return p;
}

/* the problems of --cfl: kind 0-4 as named in cfl_report; kind 5, a soft cantilever (L = 1 m,
 * EI = 1 N m², ρA = 1 kg/m, EA = GA = 1e4 N, ρI = 1e-3 kg m: test_formulations' rod) */
static cr_lgvi_params cfl_params(int kind, int K, double h, int dil)
{
    cr_lgvi_params p = base_params(K, h, dil);
    if (kind == 0 || kind == 2 || kind == 4 || kind == 5) p.clamp_start = 1;
    if (kind == 3 || kind == 4) p.C1 = cr_v3(1e6, 1e6, 1e4), p.rhoJ = cr_v3(0.1, 0.1, 0.2); /* shear-stiff, thin */
    if (kind == 5) p.length = 1, p.C2 = cr_v3(1, 1, 1), p.rhoJ = cr_v3(1e-3, 1e-3, 2e-3);
    return p;
}

/* straight rod from a along the unit direction dir, all frames R */
static cr_lgvi *make_rod(const cr_lgvi_params *p, cr_vec3 a, cr_vec3 dir, cr_mat3 R)
{
    int K = p->elements;
    cr_vec3 *x = malloc(sizeof *x * (size_t)(K + 1));
    cr_mat3 *Rs = malloc(sizeof *Rs * (size_t)(K + 1));
    for (int q = 0; q <= K; ++q) x[q] = cr_v3_madd(a, p->length * q / K, dir), Rs[q] = R;
    cr_error err = {0};
    cr_lgvi *s = cr_lgvi_create(p, x, Rs, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x);
    free(Rs);
    return s;
}

static cr_mat3 flying_frame(void) { return (cr_mat3){{{0.8, 0, -0.6}, {0, 1, 0}, {0.6, 0, 0.8}}}; }

/* Runs `steps` steps of a problem; returns wall seconds (or -1 on failure). kind 0: pure
 * stretching cantilever, 1: flying beam loads on a free rod. */
static double run(int kind, int K, double h, long steps, int dil, double *emax)
{
    cr_lgvi_params p = base_params(K, h, dil);
    cr_lgvi *s;
    if (kind == 0) {
        p.clamp_start = 1;
        s = make_rod(&p, cr_v3(0, 0, 0), cr_v3(0, 0, 1), cr_m3_identity());
    } else {
        s = make_rod(&p, cr_v3(6, 0, 0), cr_v3(-0.6, 0, 0.8), flying_frame());
    }
    if (!s) return -1;
    cr_lgvi_set_threads(s, 1);
    cr_vec3 *f = calloc((size_t)K + 1, sizeof *f), *c = calloc((size_t)K + 1, sizeof *c);
    cr_error err = {0};
    double t0 = now();
    for (long k = 0; k < steps; ++k) {
        double g = gfun(k * h);
        if (kind == 0)
            f[K] = cr_v3(0, 0, 6 * g);
        else
            f[0] = cr_v3(g / 10, 0, 0), c[0] = cr_v3(0, -g / 2, -g);
        if (cr_lgvi_step(s, f, kind == 0 ? NULL : c, &err) != CR_OK) {
            fprintf(stderr, "step: %s\n", err.message);
            t0 = now() + 1;
            break;
        }
    }
    double t = now() - t0;
    if (emax) {
        cr_lgvi_diag d;
        cr_lgvi_diagnostics(s, &d);
        *emax = d.dilatation_max;
    }
    free(f);
    free(c);
    cr_lgvi_destroy(s);
    return t;
}

/* ---- --cfl: critical step by bisection ---- */

/* Does the problem stay bounded for `steps` steps at step h? A tiny transverse velocity
 * seeds every mode; "unstable" = a step fails or the energy grows by 10x over the
 * loaded maximum. */
static int stable_at(int kind, int K, double h, double T, int dil)
{
    cr_lgvi_params p = cfl_params(kind, K, h, dil);
    cr_lgvi *s = kind == 1 ? make_rod(&p, cr_v3(6, 0, 0), cr_v3(-0.6, 0, 0.8), flying_frame())
                           : make_rod(&p, cr_v3(0, 0, 0), cr_v3(0, 0, 1), cr_m3_identity());
    for (int q = 1; q <= K; ++q)
        cr_lgvi_set_velocity(s, q, cr_v3(1e-3 * ((q * 7919) % 13 - 6), 1e-3 * ((q * 104729) % 11 - 5), 0),
                             cr_v3(1e-3 * ((q * 31) % 7 - 3), 0, 1e-3));
    cr_vec3 *f = calloc((size_t)K + 1, sizeof *f), *c = calloc((size_t)K + 1, sizeof *c);
    cr_error err = {0};
    long steps = (long)(T / h);
    double Hmax = 1e-30;
    int ok = 1;
    for (long k = 0; k < steps && ok; ++k) {
        double g = gfun(k * h * 5.0 / T); /* the load history compressed into [0, T] */
        if (kind == 0 || kind == 3 || kind == 4) f[K] = cr_v3(0, 0, 6 * g);
        if (kind == 5) f[K] = cr_v3(1e-3 * g, 0, 0.05 * g); /* bent (tip 0.1 L) and stretched */
        if (kind == 1) f[0] = cr_v3(g / 10, 0, 0), c[0] = cr_v3(0, -g / 2, -g);
        if (kind == 2) f[K] = cr_v3(0.5 * g, 0, 0); /* transverse tip force: bending */
        if (cr_lgvi_step(s, f, c, &err) != CR_OK) ok = 0;
        double kin, el;
        cr_lgvi_energies(s, NULL, &kin, &el);
        double H = kin + el;
        if (k < steps / 2) {
            if (H > Hmax) Hmax = H;
        } else if (!(H < 10 * Hmax + 1e-3)) {
            ok = 0;
        }
    }
    free(f);
    free(c);
    cr_lgvi_destroy(s);
    return ok;
}

static void cfl_report(void)
{
    static const char *names[] = {"pure stretching", "flying beam",       "cantilever bending",
                                  "thin rod, free",  "thin rod, clamped", "soft cantilever"};
    static const int Ks[] = {10, 100};
    printf("strain frame: %s\n", g_strains == CR_LGVI_STRAINS_MIDPOINT ? "midpoint" : "left (Demoures)");
    printf("%-22s %5s %4s %12s %12s %8s\n", "problem", "K", "dil", "h_est", "h_crit", "ratio");
    for (int kind = 0; kind < 6; ++kind)
        for (int ik = 0; ik < 2; ++ik)
            for (int dil = 0; dil < 2; ++dil) {
                int K = Ks[ik];
                cr_lgvi_params p = cfl_params(kind, K, 1, dil);
                double he = cr_lgvi_stable_step(&p) / 0.9; /* the bound itself, without safety */
                double lo = 0.2 * he, hi = 20 * he, T = 2.0;
                for (int it = 0; it < 30 && hi / lo > 1.002; ++it) {
                    double mid = sqrt(lo * hi);
                    if (stable_at(kind, K, mid, T, dil))
                        lo = mid;
                    else
                        hi = mid;
                }
                printf("%-22s %5d %4d %12.4e %12.4e %8.3f\n", names[kind], K, dil, he, lo, lo / he);
            }
}

/* ---- --threads: 1 vs 2 threads ---- */

/* A modified-model cantilever bent and twisted at the tip with every node moving (initial
 * velocities), so every node takes the full rotation path; wall time of `steps` steps with
 * `threads` threads, the packed final state in *state (caller frees). */
static double run_threads(int K, long steps, int threads, double **state, int *n)
{
    cr_lgvi_params p = base_params(K, 1, 1);
    p.clamp_start = 1;
    p.h = 0.5 * cr_lgvi_stable_step(&p);
    cr_lgvi *s = make_rod(&p, cr_v3(0, 0, 0), cr_v3(0, 0, 1), cr_m3_identity());
    for (int q = 1; q <= K; ++q)
        cr_lgvi_set_velocity(s, q, cr_v3(0.1 * sin(0.01 * q), 0.05 * cos(0.02 * q), 0.02 * sin(0.003 * q)),
                             cr_v3(0.2 * cos(0.05 * q), 0.1 * sin(0.01 * q), 0.3 * cos(0.007 * q)));
    cr_lgvi_set_threads(s, threads);
    cr_vec3 *f = calloc((size_t)K + 1, sizeof *f), *c = calloc((size_t)K + 1, sizeof *c);
    f[K] = cr_v3(50, 0, 100), c[K] = cr_v3(0, 20, 5);
    cr_error err = {0};
    double t0 = now();
    for (long k = 0; k < steps; ++k)
        if (cr_lgvi_step(s, f, c, &err) != CR_OK) {
            fprintf(stderr, "step: %s\n", err.message);
            break;
        }
    double t = now() - t0;
    *n = cr_lgvi_packed_size(s);
    *state = malloc(sizeof(double) * (size_t)*n);
    cr_lgvi_pack(s, *state);
    free(f);
    free(c);
    cr_lgvi_destroy(s);
    return t;
}

static void threads_report(int quick)
{
    static const int Ks[] = {1000, 3000, 10000, 30000, 100000};
    printf("1 vs 2 threads: bending + twist, modified model, every node moving; best of 3 runs\n");
    printf("%8s %7s %16s %16s %8s %10s\n", "K", "steps", "1 thr node-st/s", "2 thr node-st/s", "speedup", "identical");
    for (int i = 0; i < 5; ++i) {
        int K = Ks[i];
        long steps = (quick ? 4000000L : 20000000L) / K;
        double best[2] = {1e30, 1e30};
        double *st[2] = {NULL, NULL};
        int n = 0, same = 1;
        for (int rep = 0; rep < 3; ++rep)
            for (int t = 0; t < 2; ++t) {
                double *buf;
                double w = run_threads(K, steps, t + 1, &buf, &n);
                if (w < best[t]) best[t] = w;
                if (!st[t])
                    st[t] = buf;
                else
                    free(buf);
            }
        same = memcmp(st[0], st[1], sizeof(double) * (size_t)n) == 0;
        double r1 = (K + 1.0) * steps / best[0], r2 = (K + 1.0) * steps / best[1];
        printf("%8d %7ld %16.3e %16.3e %8.2f %10s\n", K, steps, r1, r2, r2 / r1, same ? "yes" : "NO");
        free(st[0]);
        free(st[1]);
    }
}

int main(int argc, char **argv)
{
    int threads = 0, quick = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--threads")) threads = 1;
        if (!strcmp(argv[i], "--midpoint")) g_strains = CR_LGVI_STRAINS_MIDPOINT;
    }
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--cfl")) {
            cfl_report();
            return 0;
        }
        if (!strcmp(argv[i], "--quick")) quick = 1;
    }
    if (threads) {
        threads_report(quick);
        return 0;
    }
    long steps = quick ? 15000 : 150000;
    printf("LGVI kernel, one core, K+1 node updates per step\n");
    printf("%-34s %8s %9s %10s %14s\n", "case", "K", "steps", "wall [s]", "node-steps/s");
    for (int kind = 0; kind < 2; ++kind)
        for (int dil = 0; dil < 2; ++dil) {
            double emax = 0, t = run(kind, 100, 1e-4, steps, dil, &emax);
            char name[64];
            snprintf(name, sizeof name, "%s, %s", kind == 0 ? "pure stretching" : "flying-beam bending",
                     dil ? "modified" : "standard");
            printf("%-34s %8d %9ld %10.3f %14.3e\n", name, 100, steps, t, 101.0 * steps / t);
        }
    printf("\nscaling (pure stretching, modified model, h = 1e-5)\n");
    printf("%8s %9s %10s %14s %12s\n", "K", "steps", "wall [s]", "node-steps/s", "ns/node-step");
    int Ks[] = {100, 1000, 10000, 100000};
    for (int i = 0; i < 4; ++i) {
        long n = (quick ? 2000000L : 20000000L) / Ks[i];
        double t = run(0, Ks[i], 1e-5 * 100.0 / Ks[i], n, 1, NULL);
        double rate = (double)(Ks[i] + 1) * n / t;
        printf("%8d %9ld %10.3f %14.3e %12.2f\n", Ks[i], n, t, rate, 1e9 / rate);
    }
    return 0;
}
