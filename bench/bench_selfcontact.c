#define _POSIX_C_SOURCE 199309L
/* Self-contact benchmark (not a test): the cost of one static Newton iteration of a long rope
 * (radius 5 mm, 1 m per 100 elements) with and without contact.self, at the same state:
 * assembly of the residual and Jacobian (the broad phase, closest points and the pairs' terms),
 * and the linear solve (block-tridiagonal LU + solve, plus Woodbury's 3m solves and the dense
 * 3m × 3m LU of the m nodes in contact). Two states:
 *   crossing: the rope laid as a flat spiral of 3 turns whose turns cross once each (few
 *             contacts, m ≪ n: the low-rank term's case);
 *   coil:     the rope wound as a helix whose touching turns press all along (m ~ n: the worst
 *             case of the low-rank term, 3m solves of size n).
 * Times are the best of --repeats (default 5). Measured (2 shared cores, --repeats 3): crossing,
 * 4 pairs and 16 coupled nodes at every n: assembly 8.2× / 10.7× / 7.2× and solve 20× / 22× / 22×
 * the rope's without contact at n = 1e3 / 1e4 / 1e5 (both linear in n: 1.3 → 23 → 293 ms and
 * 4.7 → 70 → 1045 ms); coil, 251 / 501 coupled nodes at n = 250 / 500: solve 1.0 s / 7.2 s
 * (13 000× / 59 000×): the low-rank term is for few contacts, not for piles.
 *
 *   build/bench_selfcontact [--elements n] [--repeats R]
 */
#include "contact/rodcontact.h"
#include "linalg/blocktri.h"
#include "linalg/lowrank.h"
#include "mixed/mixed.h"
#include "mixed/model_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static cr_section_segment sec;
static cr_bc_def clamp;

static cr_model *rope(int n, int self)
{
    sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.005;
    cr_rod_def d = cr_rod_default_def();
    d.length = n / 100.0, d.elements = n, d.material = (cr_material){1e9, 0.4e9, 1000};
    d.sections = &sec, d.section_count = 1;
    d.contact.self = self;
    clamp = cr_bc_default_def(), clamp.type = CR_BC_CLAMP, clamp.node = 0;
    d.bcs = &clamp, d.bc_count = 1;
    return cr_model_create(&d, NULL);
}

static void solve_cb(void *ctx, double *v) { cr_blocktri_solve(ctx, v); }

static void run(const char *name, int n, int repeats, int coil)
{
    cr_model *m0 = rope(n, 0), *m1 = rope(n, 1);
    const int B = m0->block, N = m0->nodes * B;
    double *x = calloc(N, sizeof *x), *F = malloc(N * sizeof *F), *r = malloc(N * sizeof *r);
    const double L = n / 100.0, h = L / n, a = 0.005;
    for (int i = 0; i <= n; ++i) {
        double *xi = x + (size_t)i * B, s = h * i;
        if (coil) { /* helix of radius 0.05 m, pitch 2a − 0.1 mm: the turns press */
            const double R = 0.05, pitch = 2 * a - 1e-4, th = s / sqrt(R * R + pitch * pitch / (4 * M_PI * M_PI));
            xi[0] = R * cos(th), xi[1] = R * sin(th), xi[2] = pitch * th / (2 * M_PI);
        } else { /* spiral r = c θ, 3 turns, and a rise so that the end crosses back over the turns */
            /* arc length c θ²/2 (for θ ≫ 1): θ = sqrt(2 s/c), nodes evenly spaced along it */
            const double turns = 3, c = L / (M_PI * turns * turns * 2 * M_PI), th = sqrt(2 * (s + 0.05 * L) / c);
            xi[0] = c * th * cos(th), xi[1] = c * th * sin(th), xi[2] = 0;
        }
        xi[3] = 1;
    }
    if (!coil) { /* the last 10 % of the rope straight back across the spiral, 2a − 0.1 mm above it */
        const int k0 = (int)(0.9 * n);
        const double *p0 = x + (size_t)k0 * B;
        for (int i = k0; i <= n; ++i) {
            double *xi = x + (size_t)i * B, u = (double)(i - k0) / (n - k0);
            xi[0] = p0[0] * (1 - 2 * u), xi[1] = p0[1] * (1 - 2 * u), xi[2] = u > 0.05 ? 2 * a - 1e-4 : xi[2];
        }
    }
    double scale[4] = {1, 1, 1, 1};
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_blocktri *J = cr_blocktri_create(m0->nodes, B);
    double best[2][2] = {{1e9, 1e9}, {1e9, 1e9}};
    int pairs = 0, coupled = 0;
    for (int rep = 0; rep < repeats; ++rep)
        for (int w = 0; w < 2; ++w) {
            const cr_model *m = w ? m1 : m0;
            double t0 = now();
            cr_mixed_static_residual(m, &at, scale, x, F, J, NULL);
            double t1 = now();
            for (int k = 0; k < N; ++k) r[k] = F[k];
            cr_blocktri_factor_solve(J, r, NULL);
            if (w) cr_lowrank_correct(m->couple, solve_cb, J, r);
            double t2 = now();
            best[w][0] = fmin(best[w][0], t1 - t0), best[w][1] = fmin(best[w][1], t2 - t1);
            if (w) pairs = m->selfcontact->pair_count, coupled = m->couple->m;
        }
    printf("%-9s n = %6d: %5d pairs, %5d coupled nodes | assembly %8.3f ms -> %8.3f ms (%.2fx) | solve %8.3f ms -> "
           "%9.3f ms (%.2fx) | iteration %.2fx\n",
           name, n, pairs, coupled, 1e3 * best[0][0], 1e3 * best[1][0], best[1][0] / best[0][0], 1e3 * best[0][1],
           1e3 * best[1][1], best[1][1] / best[0][1], (best[1][0] + best[1][1]) / (best[0][0] + best[0][1]));
    free(x), free(F), free(r);
    cr_blocktri_destroy(J);
    cr_model_destroy(m0), cr_model_destroy(m1);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int n = 0, repeats = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--elements")) n = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--repeats")) repeats = atoi(argv[i + 1]);
    }
    const int sizes[] = {1000, 10000, 100000};
    for (int k = 0; k < 3; ++k) {
        if (n && sizes[k] != n) continue;
        run("crossing", n ? n : sizes[k], repeats, 0);
    }
    /* the coil's cost grows as m n + m³ (m ~ n coupled nodes): 1000 elements already take minutes */
    const int csizes[] = {250, 500};
    for (int k = 0; k < 2; ++k) run("coil", csizes[k], repeats, 1);
    return 0;
}
