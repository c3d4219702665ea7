/* Port-Hamiltonian rod benchmark (not a test): wall time of the flying spaghetti
 * (spec §9.1, n_e = 10, 150 steps) and the Kirchhoff cantilever (spec §9.2, n_e = 8,
 * 300 steps), Newton iterations per step, cost per element per iteration, and the
 * scaling of one step of the Kirchhoff cantilever to n_e = 10^4 (or the sizes given).
 *
 *   build/bench_ph [n_e ...]
 */
#define _POSIX_C_SOURCE 199309L
#include "ph/ph.h"

#include <stdio.h>
#include <stdlib.h>
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

typedef struct result {
    double seconds;
    int steps, iterations, ok;
    long jacobians;
} result;

static result run_spaghetti(void)
{
    cr_ph_params p = cr_ph_default_params();
    cr_vec3 d3 = cr_v3(0.6, 0, -0.8), d2 = cr_v3(0, 1, 0);
    cr_ph *s = straight(&p, cr_v3(0, 0, 8), cr_v3_cross(d2, d3), d2, d3);
    int nn = cr_ph_node_count(s);
    cr_vec3 *F = calloc(nn, sizeof *F), *M = calloc(nn, sizeof *M);
    cr_ph_loads L = {F, M, {0, 0, 0}, {0, 0, 0}, NULL};
    result r = {0, 150, 0, 1, 0};
    double t0 = now();
    for (int n = 0; n < r.steps; ++n) {
        double t = cr_ph_time(s) + 0.5 * p.h, f = t <= 2.5 ? 80 * t : (t <= 5 ? 400 - 80 * t : 0);
        F[nn - 1] = cr_v3(f / 10, 0, 0), M[nn - 1] = cr_v3(0, f, f / 2);
        int it = 0;
        cr_error err = {0};
        if (cr_ph_step(s, p.h, &L, &it, &err) != CR_OK) r.ok = 0;
        r.iterations += it;
    }
    r.seconds = now() - t0;
    r.jacobians = s->jacobians;
    free(F), free(M);
    cr_ph_destroy(s);
    return r;
}

static result run_cantilever(int ne, int steps)
{
    cr_ph_params p = cantilever(ne);
    cr_ph *s = straight(&p, cr_v3(0, 0, 0), cr_v3(0, -1, 0), cr_v3(0, 0, -1), cr_v3(1, 0, 0));
    result r = {0, steps, 0, 1, 0};
    if (!s) {
        r.ok = 0;
        return r;
    }
    int nn = cr_ph_node_count(s);
    cr_vec3 *F = calloc(nn, sizeof *F), *M = calloc(nn, sizeof *M);
    cr_ph_loads L = {F, M, {0, 0, 0}, {0, 0, 0}, NULL};
    double t0 = now();
    for (int n = 0; n < steps; ++n) {
        double t = cr_ph_time(s) + 0.5 * p.h, f = t <= 0.05 ? 0.5 * (1 - cos(2 * M_PI * t / 0.05)) : 0;
        F[nn - 1] = cr_v3(0, f, f), M[nn - 1] = cr_v3(0.25 * f, 0, 0);
        int it = 0;
        cr_error err = {0};
        if (cr_ph_step(s, p.h, &L, &it, &err) != CR_OK) r.ok = 0;
        r.iterations += it;
    }
    r.seconds = now() - t0;
    r.jacobians = s->jacobians;
    free(F), free(M);
    cr_ph_destroy(s);
    return r;
}

static void report(const char *name, int ne, result r, double target_ms)
{
    printf("%-34s n_e = %5d: %9.2f ms%s, %3d steps, %.2f iterations/step (%.2f with a new Jacobian), %.2f us per element per iteration%s\n",
           name, ne, 1e3 * r.seconds, target_ms > 0 ? (1e3 * r.seconds <= target_ms ? " (target met)" : " (over target)") : "",
           r.steps, (double)r.iterations / r.steps, (double)r.jacobians / r.steps, 1e6 * r.seconds / ((double)r.iterations * ne), r.ok ? "" : "  FAILED");
}

int main(int argc, char **argv)
{
    result best = {1e30, 0, 0, 1, 0};
    for (int k = 0; k < 3; ++k) {
        result r = run_spaghetti();
        if (r.seconds < best.seconds) best = r;
    }
    report("flying spaghetti (target 50 ms)", 10, best, 50);
    best.seconds = 1e30;
    for (int k = 0; k < 3; ++k) {
        result r = run_cantilever(8, 300);
        if (r.seconds < best.seconds) best = r;
    }
    report("Kirchhoff cantilever (target 100 ms)", 8, best, 100);

    int sizes[16], count = 0;
    for (int i = 1; i < argc && count < 16; ++i) sizes[count++] = atoi(argv[i]);
    if (!count) {
        int def[] = {10, 100, 1000, 10000};
        for (int i = 0; i < 4; ++i) sizes[count++] = def[i];
    }
    for (int i = 0; i < count; ++i) {
        int ne = sizes[i], steps = ne >= 10000 ? 3 : (ne >= 1000 ? 10 : 30);
        report("cantilever scaling (first steps)", ne, run_cantilever(ne, steps), 0);
    }
    return 0;
}
