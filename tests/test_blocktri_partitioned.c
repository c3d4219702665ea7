/* The partitioned block-tridiagonal solver (src/linalg/blocktri_partitioned.c)
 * against the serial block Thomas algorithm: random systems whose diagonal blocks need
 * pivoting, for 1..6 chunks with balanced and uneven separators, run on the caller
 * alone and on 2 and 3 threads, with one right-hand side and with groups of them
 * (cr_blocktri_part_solve_many: 1, 6 and 7 columns and 17, more than one group), and
 * factored and solved in one pass (cr_blocktri_part_factor_solve, whose factors must then
 * serve a following solve); the static Jacobian of a deformed rod; and
 * the serial solve's two sweeps apart (cr_blocktri_solve_forward, _backward). */
#include "check.h"
#include "linalg/blocktri_partitioned.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

/* random, block diagonally dominant only after row interchanges inside the diagonal
 * blocks (the dominant entry of row r sits in column r + 1), as in test_jacobian */
static void fill_random(cr_blocktri *J)
{
    const int n = J->n, b = J->b;
    const size_t bb = (size_t)b * b;
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
                J->diag[i * bb + r * b + c] = urand() + (c == (r + 1) % b ? 4.0 * b : 0.0);
                J->lower[i * bb + r * b + c] = i > 0 ? urand() : 0.0;
                J->upper[i * bb + r * b + c] = i < n - 1 ? urand() : 0.0;
            }
}

static cr_blocktri *copy_of(const cr_blocktri *J)
{
    cr_blocktri *C = cr_blocktri_create(J->n, J->b);
    size_t bb = (size_t)J->n * J->b * J->b;
    memcpy(C->diag, J->diag, bb * sizeof(double));
    memcpy(C->lower, J->lower, bb * sizeof(double));
    memcpy(C->upper, J->upper, bb * sizeof(double));
    return C;
}

/* max |x_part - x_serial| / max |x_serial| over the columns of a cr_blocktri_part_solve_many
 * in a padded layout (ld = n b + 3: the padding must stay as it was), against serial
 * solves of each column */
static double compare_many(const cr_blocktri *S, cr_blocktri_part *p, const cr_blocktri *Pm, cr_pool *pool, int nrhs)
{
    const size_t N = (size_t)S->n * S->b, ld = N + 3;
    double *xs = malloc(N * nrhs * sizeof *xs), *xp = malloc(ld * nrhs * sizeof *xp), d = 0, s = 0;
    for (int j = 0; j < nrhs; ++j) {
        for (size_t k = 0; k < N; ++k) xs[j * N + k] = xp[j * ld + k] = urand();
        for (size_t k = N; k < ld; ++k) xp[j * ld + k] = 1234.5;
        cr_blocktri_solve(S, xs + j * N);
    }
    if (cr_blocktri_part_solve_many(p, Pm, pool, xp, ld, nrhs) != CR_OK) d = INFINITY;
    for (int j = 0; j < nrhs; ++j) {
        for (size_t k = 0; k < N; ++k)
            d = fmax(d, fabs(xp[j * ld + k] - xs[j * N + k])), s = fmax(s, fabs(xs[j * N + k]));
        for (size_t k = N; k < ld; ++k) d = fmax(d, xp[j * ld + k] == 1234.5 ? 0.0 : INFINITY);
    }
    free(xs);
    free(xp);
    return d / s;
}

/* the same for cr_blocktri_part_factor_solve of a fresh copy of J, and a solve after it */
static double compare_factor_solve(const cr_blocktri *J, const cr_blocktri *S, cr_blocktri_part *p, cr_pool *pool)
{
    const size_t N = (size_t)J->n * J->b;
    cr_blocktri *F = copy_of(J);
    double *xs = malloc(N * sizeof *xs), *xp = malloc(N * sizeof *xp), d = 0, s = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t k = 0; k < N; ++k) xs[k] = xp[k] = urand();
        cr_blocktri_solve(S, xs);
        if (pass == 0 && cr_blocktri_part_factor_solve(p, F, pool, xp, NULL) != CR_OK) d = INFINITY;
        if (pass == 1) cr_blocktri_part_solve(p, F, pool, xp);
        for (size_t k = 0; k < N; ++k) d = fmax(d, fabs(xp[k] - xs[k])), s = fmax(s, fabs(xs[k]));
    }
    cr_blocktri_destroy(F);
    free(xs);
    free(xp);
    return d / s;
}

/* max |x_part - x_serial| / max |x_serial| for one right-hand side, and for groups */
static double compare(const cr_blocktri *J, int chunks, const int *sep, cr_pool *pool)
{
    const int N = J->n * J->b;
    cr_blocktri *S = copy_of(J), *Pm = copy_of(J);
    double *xs = malloc(N * sizeof *xs), *xp = malloc(N * sizeof *xp);
    for (int k = 0; k < N; ++k) xs[k] = xp[k] = urand();
    cr_blocktri_part *p = cr_blocktri_part_create(J->n, J->b, chunks, sep);
    double err = INFINITY;
    if (p && cr_blocktri_factor(S, NULL) == CR_OK && cr_blocktri_part_factor(p, Pm, pool, NULL) == CR_OK) {
        cr_blocktri_solve(S, xs);
        cr_blocktri_part_solve(p, Pm, pool, xp);
        /* again with the same factors: nothing of a solve may stay behind */
        srand(7);
        for (int k = 0; k < N; ++k) xp[k] = urand();
        srand(7);
        for (int k = 0; k < N; ++k) xs[k] = urand();
        cr_blocktri_solve(S, xs);
        cr_blocktri_part_solve(p, Pm, pool, xp);
        double d = 0, s = 0;
        for (int k = 0; k < N; ++k) d = fmax(d, fabs(xp[k] - xs[k])), s = fmax(s, fabs(xs[k]));
        err = d / s;
        const int groups[4] = {1, 6, 7, 17};
        for (int g = 0; g < 4; ++g) err = fmax(err, compare_many(S, p, Pm, pool, groups[g]));
        err = fmax(err, compare_factor_solve(J, S, p, pool));
    }
    cr_blocktri_part_destroy(p);
    cr_blocktri_destroy(S);
    cr_blocktri_destroy(Pm);
    free(xs);
    free(xp);
    return err;
}

static void test_random_systems(void)
{
    srand(23);
    cr_pool *pools[3] = {NULL, cr_pool_create(2), cr_pool_create(3)};
    const int sizes[3] = {3, 5, 7};
    for (int t = 0; t < 3; ++t) {
        const int b = sizes[t], n = 41;
        cr_blocktri *J = cr_blocktri_create(n, b);
        fill_random(J);
        for (int q = 0; q < 3; ++q) {
            for (int chunks = 1; chunks <= 6; ++chunks) CHECK(compare(J, chunks, NULL, pools[q]) < 1e-12);
            /* uneven: separators next to the ends, adjacent interiors of one row */
            const int s2a[1] = {1}, s2b[1] = {n - 2}, s3[2] = {1, 3}, s4[3] = {5, 7, n - 2}, s5[4] = {30, 32, 34, 36};
            CHECK(compare(J, 2, s2a, pools[q]) < 1e-12);
            CHECK(compare(J, 2, s2b, pools[q]) < 1e-12);
            CHECK(compare(J, 3, s3, pools[q]) < 1e-12);
            CHECK(compare(J, 4, s4, pools[q]) < 1e-12);
            CHECK(compare(J, 5, s5, pools[q]) < 1e-12);
        }
        cr_blocktri_destroy(J);
    }
    /* the smallest system for a chunk count, and one too small */
    cr_blocktri *J = cr_blocktri_create(7, 7);
    fill_random(J);
    CHECK(compare(J, 4, NULL, pools[1]) < 1e-12);
    CHECK(cr_blocktri_part_create(7, 7, 5, NULL) == NULL);
    const int bad_sep[2] = {3, 4}; /* an empty interior */
    CHECK(cr_blocktri_part_create(7, 7, 3, bad_sep) == NULL);
    cr_blocktri_destroy(J);
    for (int q = 0; q < 3; ++q) cr_pool_destroy(pools[q]);
}

/* a singular block row is reported where it is, in a chunk or in a separator */
static void test_singular(void)
{
    srand(5);
    cr_pool *pool = cr_pool_create(2);
    /* in the middle chunk, in a separator, in the first and in the last chunk (the fused
     * end-chunk kernels of cr_blocktri_part_factor_solve) */
    const int n = 20, b = 3, rows[4] = {12, 6, 2, 17};
    const int sep[2] = {6, 13};
    for (int t = 0; t < 4; ++t) {
        cr_blocktri *J = cr_blocktri_create(n, b);
        fill_random(J);
        cr_blocktri_reset_rows(J, rows[t], b, 0); /* a zero block row */
        cr_blocktri_part *p = cr_blocktri_part_create(n, b, 3, sep);
        cr_blocktri *J2 = copy_of(J);
        double x[20 * 3] = {0};
        int bad = -1, bad2 = -1;
        CHECK(cr_blocktri_part_factor(p, J, pool, &bad) == CR_SINGULAR);
        CHECK(bad == rows[t]);
        CHECK(cr_blocktri_part_factor_solve(p, J2, pool, x, &bad2) == CR_SINGULAR);
        CHECK(bad2 == rows[t]);
        cr_blocktri_destroy(J2);
        cr_blocktri_part_destroy(p);
        cr_blocktri_destroy(J);
    }
    cr_pool_destroy(pool);
}

/* cr_blocktri_solve_forward then _backward: cr_blocktri_solve bit for bit, and a solution of
 * J x = r (its residual through the unfactored copy's product) */
static void test_split_sweeps(void)
{
    srand(29);
    const int sizes[3] = {3, 5, 7};
    for (int t = 0; t < 3; ++t) {
        const int b = sizes[t], n = 23;
        const size_t N = (size_t)n * b;
        cr_blocktri *J = cr_blocktri_create(n, b);
        fill_random(J);
        cr_blocktri *A = copy_of(J);
        CHECK(cr_blocktri_factor(J, NULL) == CR_OK);
        double *r = malloc(N * sizeof *r), *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y),
               *ax = malloc(N * sizeof *ax);
        for (size_t k = 0; k < N; ++k) r[k] = urand();
        memcpy(x, r, N * sizeof *x), memcpy(y, r, N * sizeof *y);
        cr_blocktri_solve(J, x);
        cr_blocktri_solve_forward(J, y);
        CHECK(memcmp(x, y, N * sizeof *x) != 0); /* the forward sweep alone is not the solution */
        cr_blocktri_solve_backward(J, y);
        CHECK(memcmp(x, y, N * sizeof *x) == 0);
        cr_blocktri_matvec(A, y, ax);
        double e = 0;
        for (size_t k = 0; k < N; ++k) e = fmax(e, fabs(ax[k] - r[k]));
        CHECK(e < 1e-12);
        free(r), free(x), free(y), free(ax);
        cr_blocktri_destroy(A);
        cr_blocktri_destroy(J);
    }
}

CHECK_MAIN(CASE(test_random_systems), CASE(test_singular), CASE(test_split_sweeps))
