/* Block-tridiagonal LU benchmark (not a test): factor + one solve of a random system
 * with 7×7 blocks (statics) or 3×3 (position correction), serial block Thomas against
 * the partitioned LU with 1..T chunks, the chunks run on the caller alone ("seq") and
 * on a pool of as many threads ("par"). Best of R alternating runs, in ns per block row.
 * Then ("fused") factor and solve in one pass (cr_blocktri_factor_solve,
 * cr_blocktri_part_factor_solve: the position correction's, 3×3 with --block 3), and a
 * solve of 6 right-hand sides with the factors (the stability estimate's block of vectors:
 * cr_blocktri_solve_many, cr_blocktri_part_solve_many).
 *
 *   build/bench_blocktri [--repeats R] [--threads T] [--block b] [n ...]
 *
 * "part 1 seq" against "serial" is the cost of the chunk kernels themselves; "part 2
 * seq" against "part 1 seq" the extra work of the partitioning; "part 2 par" the
 * speed-up the threads give (only with two idle cores: check the load average). */
#define _POSIX_C_SOURCE 199309L
#include "linalg/blocktri_partitioned.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

int main(int argc, char **argv)
{
    int repeats = 7, threads = 2, b = 7, sizes[16], count = 0;
    for (int k = 1; k < argc; ++k) {
        if (!strcmp(argv[k], "--repeats") && k + 1 < argc)
            repeats = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--threads") && k + 1 < argc)
            threads = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--block") && k + 1 < argc)
            b = atoi(argv[++k]);
        else if (count < 16)
            sizes[count++] = atoi(argv[k]);
    }
    if (count == 0) {
        const int def[] = {1000, 5000, 20000, 100000, 1000000};
        for (count = 0; count < 5; ++count) sizes[count] = def[count];
    }
    cr_pool *pool = cr_pool_create(threads);
    printf("block %d, pool of %d threads; ns per block row (factor + solve), best of %d\n", b, cr_pool_threads(pool),
           repeats);
    printf("%9s %10s", "n", "serial");
    for (int P = 1; P <= threads; ++P) printf("   part %d seq   part %d par", P, P);
    printf("  speed-up (serial / part %d par)\n", threads);
    for (int s = 0; s < count; ++s) {
        const int n = sizes[s];
        const size_t bb = (size_t)n * b * b, N = (size_t)n * b;
        cr_blocktri *A = cr_blocktri_create(n, b), *W = cr_blocktri_create(n, b);
        double *x = malloc(N * sizeof *x), *rhs = malloc(N * sizeof *rhs);
        srand(1);
        for (size_t k = 0; k < bb; ++k) {
            A->diag[k] = urand() + ((k % (b * b)) % (b + 1) == 0 ? 4.0 * b : 0.0);
            A->lower[k] = urand(), A->upper[k] = urand();
        }
        for (size_t k = 0; k < N; ++k) rhs[k] = urand();
        double best[1 + 2 * 64] = {0};
        for (int c = 0; c < 1 + 2 * threads; ++c) best[c] = 1e30;
        cr_blocktri_part *parts[65] = {0};
        for (int P = 1; P <= threads; ++P) parts[P] = cr_blocktri_part_create(n, b, P, NULL);
        double best6[1 + 2 * 64], bestf[1 + 2 * 64];
        for (int c = 0; c < 1 + 2 * threads; ++c) best6[c] = bestf[c] = 1e30;
        double *x6 = malloc(6 * N * sizeof *x6);
        for (int r = 0; r < repeats; ++r)
            for (int c = 0; c < 1 + 2 * threads; ++c) { /* alternating */
                int P = (c + 1) / 2;
                cr_pool *pl = c > 0 && c % 2 == 0 ? pool : NULL;
                if (c > 0 && !parts[P]) continue;
                memcpy(W->diag, A->diag, bb * sizeof(double));
                memcpy(W->lower, A->lower, bb * sizeof(double));
                memcpy(W->upper, A->upper, bb * sizeof(double));
                memcpy(x, rhs, N * sizeof(double));
                double t0 = now();
                if (c == 0) {
                    cr_blocktri_factor(W, NULL);
                    cr_blocktri_solve(W, x);
                } else {
                    cr_blocktri_part_factor(parts[P], W, pl, NULL);
                    cr_blocktri_part_solve(parts[P], W, pl, x);
                }
                double t = now() - t0;
                if (t < best[c]) best[c] = t;
                for (int j = 0; x6 && j < 6; ++j) memcpy(x6 + j * N, rhs, N * sizeof(double));
                t0 = now();
                if (!x6) continue;
                if (c == 0)
                    cr_blocktri_solve_many(W, x6, 6);
                else
                    cr_blocktri_part_solve_many(parts[P], W, pl, x6, N, 6);
                t = now() - t0;
                if (t < best6[c]) best6[c] = t;
                memcpy(W->diag, A->diag, bb * sizeof(double));
                memcpy(W->lower, A->lower, bb * sizeof(double));
                memcpy(W->upper, A->upper, bb * sizeof(double));
                memcpy(x, rhs, N * sizeof(double));
                t0 = now();
                if (c == 0)
                    cr_blocktri_factor_solve(W, x, NULL);
                else
                    cr_blocktri_part_factor_solve(parts[P], W, pl, x, NULL);
                t = now() - t0;
                if (t < bestf[c]) bestf[c] = t;
            }
        printf("%9d %10.1f", n, 1e9 * best[0] / n);
        for (int c = 1; c < 1 + 2 * threads; ++c) printf(" %12.1f", 1e9 * best[c] / n);
        printf("  %.2f\n", best[0] / best[2 * threads]);
        printf("%9s %10.1f", "fused", 1e9 * bestf[0] / n);
        for (int c = 1; c < 1 + 2 * threads; ++c) printf(" %12.1f", 1e9 * bestf[c] / n);
        printf("  %.2f\n", bestf[0] / bestf[2 * threads]);
        printf("%9s %10.1f", "6 rhs", 1e9 * best6[0] / n);
        for (int c = 1; c < 1 + 2 * threads; ++c) printf(" %12.1f", 1e9 * best6[c] / n);
        printf("  %.2f\n", best6[0] / best6[2 * threads]);
        free(x6);
        for (int P = 1; P <= threads; ++P) cr_blocktri_part_destroy(parts[P]);
        cr_blocktri_destroy(A);
        cr_blocktri_destroy(W);
        free(x);
        free(rhs);
    }
    cr_pool_destroy(pool);
    return 0;
}
