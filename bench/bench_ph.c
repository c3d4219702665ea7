/* Port-Hamiltonian rod benchmark (not a test).
 *
 *   build/bench_ph [--sizes n,n,...] [--instructions] [--instructions-max N] [--one statics|dynamics N]
 *   build/bench_ph --one spaghetti STEPS   (the flying spaghetti alone, for callgrind)
 *
 * 1. The papers' examples: the flying spaghetti (spec §9.1, n_e = 10, 150 steps), the Kirchhoff
 *    cantilever (spec §9.2, n_e = 8, 300 steps), the statics of the quasistatic cantilever (spec §9.3,
 *    n_e = 8, 10 load steps): wall time, Newton iterations per step or load step, fresh Jacobians.
 * 2. Cost per element against n_e = 10, 10^2, ..., 10^5 (or --sizes): statics per Newton iteration (the
 *    §9.3 cantilever, first load step of 10 from rest) and dynamics per step (the §9.2 cantilever, its
 *    first steps), in microseconds (best of repeats: the machine is shared) and, with --instructions,
 *    in instructions (valgrind --tool=callgrind on this program with --one, counting only the measured
 *    region, function measured_region; up to --instructions-max elements, default 10^4: callgrind runs
 *    ~50x slower). --one prints the iterations, the Jacobians and the measured region's minor page faults.
 *    On one thread unless --threads T says otherwise.
 * 3. Without --threads: one thread against two at 10^4 elements (the two-sided pass, ph_direct.c): the flying
 *    spaghetti's rod (free-free) and the §9.3 and §9.2 cantilevers (clamped, rigid shear and extension).
 * Instruction counts do not see the memory system; the times do (the growth with n_e of issue 24 was
 * the 10 kB element blocks streamed per iteration, not arithmetic). */
#define _POSIX_C_SOURCE 200809L
#include "ph/ph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static cr_ph *straight(const cr_ph_params *p, cr_vec3 x0, cr_vec3 d1, cr_vec3 d2, cr_vec3 d3)
{
    int nn = 2 * p->elements + 1;
    cr_vec3 *x = malloc(sizeof *x * nn);
    cr_mat3 *R = malloc(sizeof *R * nn);
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3_madd(x0, p->length * I / (nn - 1), d3);
        R[I] = cr_m3_columns(d1, d2, d3);
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(p, x, R, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x), free(R);
    return s;
}

static cr_ph_params cantilever(int ne)
{
    cr_ph_params p = cr_ph_default_params();
    double rho = 2850, d = 4e-3, A = M_PI * d * d / 4, I = M_PI * d * d * d * d / 64, E = 7.2e10,
           G = E / (2 * (1 + 0.35));
    p.elements = ne, p.length = 1, p.rhoA = rho * A, p.M11 = p.M22 = rho * I;
    p.stiffness[3] = p.stiffness[4] = E * I, p.stiffness[5] = G * 2 * I;
    p.rigid = 0x7, p.clamp_start = 1, p.h = 1e-3, p.newton_atol = 1e-12;
    return p;
}

/* spec §9.3 (test_ph quasistatic_params): Kirchhoff, massless, tip force and moment */
static cr_ph_params quasistatic(int ne)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = ne, p.length = 2 * M_PI;
    p.rhoA = p.M11 = p.M22 = 0;
    p.stiffness[0] = p.stiffness[1] = 1, p.stiffness[2] = 5;
    p.stiffness[3] = p.stiffness[4] = 2, p.stiffness[5] = 0.5;
    p.clamp_start = 1, p.rigid = 0x7, p.h = 0.01, p.newton_atol = 1e-12;
    return p;
}

typedef struct result {
    double seconds;
    int steps, iterations, ok;
    long jacobians;
    long faults; /* minor page faults in the measured region (first touches of the rod's arrays) */
} result;

static long minor_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : 0;
}

/* the measured region, a function of its own for callgrind's --toggle-collect */
typedef struct work {
    cr_ph *s;
    cr_ph_loads *L;
    int kind; /* 0 midpoint steps, 1 static solves */
    int steps;
    double h;
    void (*loads)(cr_ph *s, cr_ph_loads *L, int step);
    result *r;
} work;

__attribute__((noinline)) void measured_region(work *w)
{
    for (int n = 0; n < w->steps; ++n) {
        w->loads(w->s, w->L, n);
        int it = 0;
        cr_error err = {0};
        cr_status st =
            w->kind ? cr_ph_solve_static(w->s, w->L, &it, NULL, &err) : cr_ph_step(w->s, w->h, w->L, &it, &err);
        if (st != CR_OK) {
            w->r->ok = 0;
            fprintf(stderr, "%s\n", err.message);
        }
        w->r->iterations += it;
    }
}

static void spaghetti_loads(cr_ph *s, cr_ph_loads *L, int n)
{
    (void)n;
    int nn = cr_ph_node_count(s);
    double t = cr_ph_time(s) + 0.05, f = t <= 2.5 ? 80 * t : (t <= 5 ? 400 - 80 * t : 0);
    ((cr_vec3 *)L->node_force)[nn - 1] = cr_v3(f / 10, 0, 0);
    ((cr_vec3 *)L->node_moment)[nn - 1] = cr_v3(0, f, f / 2);
}

static void cantilever_loads(cr_ph *s, cr_ph_loads *L, int n)
{
    (void)n;
    int nn = cr_ph_node_count(s);
    /* the scaling runs beyond 100 elements (steps of 1e-3 s * 100 / n_e) start in the middle of the
       load's ramp (0.5 N, suddenly applied), or their few steps would see no load */
    double t = cr_ph_time(s) + 0.5 * s->p.h + (s->ne > 100 ? 0.0125 : 0),
           f = t <= 0.05 ? 0.5 * (1 - cos(2 * M_PI * t / 0.05)) : 0;
    ((cr_vec3 *)L->node_force)[nn - 1] = cr_v3(0, f, f);
    ((cr_vec3 *)L->node_moment)[nn - 1] = cr_v3(0.25 * f, 0, 0);
}

static void static_loads(cr_ph *s, cr_ph_loads *L, int n)
{
    int nn = cr_ph_node_count(s);
    double P = 5.0 / (M_PI * M_PI), t = (n + 1) / 10.0;
    if (n > 0) cr_ph_static_predictor(s, 1.0); /* equal load steps: the last change again */
    ((cr_vec3 *)L->node_force)[nn - 1] = cr_v3(0, -t * P, 0);
    ((cr_vec3 *)L->node_moment)[nn - 1] = cr_v3(0, 0, 2.5 * t * P);
}

enum { SPAGHETTI, CANTILEVER, STATICS, SPAGHETTI_N };
static int bench_threads; /* cr_ph_params.threads of every run (0: automatic) */

static result run(int which, int ne, int steps)
{
    cr_ph_params p = which == SPAGHETTI || which == SPAGHETTI_N ? cr_ph_default_params()
                     : which == CANTILEVER                      ? cantilever(ne)
                                                                : quasistatic(ne);
    /* the scaling runs of the §9.2 cantilever take h = 1e-3 s * 100 / n_e beyond 100 elements: the
       Newton matrix's conditioning, the bending stiffness EI / l_e^4 against the inertia rho A / h^2,
       then grows as n_e^2 instead of n_e^4 (at 10^5 elements and h = 1e-3 it is ~10^15 and the
       increments sit at ~1e-7 of the rod's length, docs/port-hamiltonian.md) */
    if (which == CANTILEVER && ne > 100) p.h = 1e-3 * (100.0 / ne);
    /* the flying spaghetti's rod at n_e elements (free-free, elastic: the two-sided pass applies), steps of
       0.01 s from rest under its loads */
    if (which == SPAGHETTI_N) p.elements = ne, p.h = 0.01;
    p.threads = bench_threads;
    cr_ph *s;
    if (which == SPAGHETTI || which == SPAGHETTI_N) {
        cr_vec3 d3 = cr_v3(0.6, 0, -0.8), d2 = cr_v3(0, 1, 0);
        s = straight(&p, cr_v3(0, 0, 8), cr_v3_cross(d2, d3), d2, d3);
    } else if (which == CANTILEVER) {
        s = straight(&p, cr_v3(0, 0, 0), cr_v3(0, -1, 0), cr_v3(0, 0, -1), cr_v3(1, 0, 0));
    } else {
        s = straight(&p, cr_v3(0, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    }
    result r = {0, steps, 0, 1, 0, 0};
    if (!s) {
        r.ok = 0;
        return r;
    }
    int nn = cr_ph_node_count(s);
    cr_vec3 *F = calloc(nn, sizeof *F), *M = calloc(nn, sizeof *M);
    cr_ph_loads L = {F, M, {0, 0, 0}, {0, 0, 0}, NULL};
    work w = {s,
              &L,
              which == STATICS,
              steps,
              p.h,
              which == SPAGHETTI || which == SPAGHETTI_N ? spaghetti_loads
              : which == CANTILEVER                      ? cantilever_loads
                                                         : static_loads,
              &r};
    long f0 = minor_faults();
    double t0 = now();
    measured_region(&w);
    r.seconds = now() - t0;
    r.faults = minor_faults() - f0;
    r.jacobians = s->jacobians;
    free(F), free(M);
    cr_ph_destroy(s);
    return r;
}

static result best_of(int which, int ne, int steps, int repeats)
{
    result best = {1e30, 0, 0, 1, 0, 0};
    for (int k = 0; k < repeats; ++k) {
        result r = run(which, ne, steps);
        if (r.seconds < best.seconds) best = r;
    }
    return best;
}

static void report(const char *name, int ne, result r, double target_ms, const char *per)
{
    printf("%-30s n_e = %2d: %8.2f ms%s, %3d %s, %.2f iterations per %s (%.2f fresh Jacobians), %.2f us per element "
           "per iteration%s\n",
           name, ne, 1e3 * r.seconds,
           target_ms > 0 ? (1e3 * r.seconds <= target_ms ? " (target met)" : " (over target)") : "", r.steps, per,
           (double)r.iterations / r.steps, per, (double)r.jacobians / r.steps,
           1e6 * r.seconds / ((double)r.iterations * ne), r.ok ? "" : "  FAILED");
}

/* steps (dynamics) and load steps (statics) measured at n_e elements: ~10^5..10^6 element-iterations */
static int steps_for(int ne, int statics)
{
    if (statics) return 1;
    return ne >= 10000 ? 1 : ne >= 1000 ? 3 : ne >= 100 ? 10 : 30;
}

/* instructions of the measured region at n_e under callgrind, or -1 */
static double instructions(const char *self, const char *kind, int ne, int threads)
{
    char out[] = "/tmp/bench_ph_cg_XXXXXX";
    int fd = mkstemp(out);
    if (fd < 0) return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file=%s --toggle-collect=measured_region %s --threads %d --one "
             "%s %d >/dev/null 2>&1",
             out, self, threads, kind, ne);
    double v = -1;
    if (system(cmd) == 0) {
        FILE *f = fopen(out, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) v = atof(strchr(line, ':') + 1);
        if (f) fclose(f);
    }
    remove(out);
    return v;
}

/* one thread against two at 10^4 elements (bench_threads 0 on return) */
static void two_threads(int which, int steps, const char *name)
{
    result one = {1e30, 0, 0, 1, 0, 0}, two = one;
    for (int k = 0; k < 5; ++k) {
        bench_threads = 1;
        result a = run(which, 10000, steps);
        bench_threads = 2;
        result b = run(which, 10000, steps);
        if (a.seconds < one.seconds) one = a;
        if (b.seconds < two.seconds) two = b;
    }
    bench_threads = 0;
    printf("  %-42s one thread %8.2f ms (%.2f us per element per iteration), two %8.2f ms (%.2f us): %.2fx%s\n", name,
           1e3 * one.seconds, 1e6 * one.seconds / ((double)one.iterations * 10000), 1e3 * two.seconds,
           1e6 * two.seconds / ((double)two.iterations * 10000), one.seconds / two.seconds,
           one.ok && two.ok && one.iterations == two.iterations ? "" : "  FAILED");
}

int main(int argc, char **argv)
{
    int sizes[16] = {10, 100, 1000, 10000, 100000}, count = 5, want_instr = 0, instr_max = 10000;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--one") && i + 2 < argc) { /* the callgrind child */
            int statics = !strcmp(argv[i + 1], "statics"), ne = atoi(argv[i + 2]);
            /* "spaghetti N": the flying spaghetti's N steps (n_e = 10) */
            result r = !strcmp(argv[i + 1], "spaghetti") ? run(SPAGHETTI, 10, ne)
                       : !strcmp(argv[i + 1], "spaghetti-n")
                           ? run(SPAGHETTI_N, ne, 2)
                           : run(statics ? STATICS : CANTILEVER, ne, steps_for(ne, statics));
            printf("%d %ld %ld\n", r.iterations, r.jacobians, r.faults);
            return r.ok ? 0 : 1;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            count = 0;
            for (char *t = strtok(argv[++i], ","); t && count < 16; t = strtok(NULL, ",")) sizes[count++] = atoi(t);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            bench_threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--instructions")) {
            want_instr = 1;
        } else if (!strcmp(argv[i], "--instructions-max") && i + 1 < argc) {
            instr_max = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--sizes n,n,...] [--instructions] [--instructions-max N] [--threads N]\n",
                    argv[0]);
            return 2;
        }
    }
    report("flying spaghetti (target 15 ms)", 10, best_of(SPAGHETTI, 10, 150, 5), 15, "step");
    report("Kirchhoff cantilever", 8, best_of(CANTILEVER, 8, 300, 5), 0, "step");
    report("quasistatic cantilever statics", 8, best_of(STATICS, 8, 10, 5), 0, "load step");

    printf("\ncost per element (best of 3; statics: the §9.3 cantilever's first load step; dynamics: the §9.2 "
           "cantilever's first steps; %d thread(s))\n",
           bench_threads == 0 ? 1 : bench_threads);
    printf("%8s | %9s %7s %12s %11s | %9s %7s %12s %11s\n", "n_e", "stat it", "jac", "us/(el it)", "instr/(el it)",
           "dyn it/st", "jac/st", "us/(el step)", "instr/(el st)");
    /* the table on one thread unless --threads says otherwise (the two-thread rows follow) */
    const int threads_arg = bench_threads;
    if (bench_threads == 0) bench_threads = 1;
    for (int i = 0; i < count; ++i) {
        int ne = sizes[i];
        int ss = steps_for(ne, 1), ds = steps_for(ne, 0);
        result st = best_of(STATICS, ne, ss, 3), dy = best_of(CANTILEVER, ne, ds, 3);
        double ist = -1, idy = -1;
        if (want_instr && ne <= instr_max) {
            ist = instructions(argv[0], "statics", ne, bench_threads);
            idy = instructions(argv[0], "dynamics", ne, bench_threads);
        }
        printf("%8d | %9.2f %7.2f %12.2f %11.0f | %9.2f %7.2f %12.2f %11.0f%s\n", ne, (double)st.iterations / ss,
               (double)st.jacobians / ss, 1e6 * st.seconds / ((double)st.iterations * ne),
               ist > 0 ? ist / ((double)st.iterations * ne) : 0.0, (double)dy.iterations / ds,
               (double)dy.jacobians / ds, 1e6 * dy.seconds / ((double)ds * ne), idy > 0 ? idy / ((double)ds * ne) : 0.0,
               st.ok && dy.ok ? "" : "  FAILED");
        fflush(stdout);
    }
    bench_threads = threads_arg;

    /* 3. two threads (the two-sided pass) against one at 10^4 elements: the flying spaghetti's rod (free-free,
       elastic), 2 steps, and the clamped Kirchhoff cantilevers of the table (its half from the clamp delays the
       tension's pivots); one- and two-thread runs alternated (best of 5 each: the machine is shared) */
    if (bench_threads == 0) {
        printf("\ntwo threads at n_e = 10^4, one thread against two (best of 5, alternated)\n");
        two_threads(SPAGHETTI_N, 2, "flying spaghetti's rod, 2 steps of 0.01 s");
        two_threads(STATICS, 1, "§9.3 cantilever statics, 1 load step");
        two_threads(CANTILEVER, 1, "§9.2 cantilever dynamics, 1 step");
    }
    return 0;
}
