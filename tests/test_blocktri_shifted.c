/* Tests of the shifted block-tridiagonal factorizations and the Radau hook
 * adaptor (src/linalg/blocktri_shifted.h), each against an independent
 * reference: dense LAPACK (dgesv, zgesv) on the same matrices, exact
 * power-of-two scaling, the matrix exponential of a linear DAE, and the
 * integrator's dense LAPACK hooks on the same problem. Run with a substring of
 * a case name to filter; set BTS_VERBOSE=1 to print the measured numbers and
 * BTS_QUICK=1 to time one repetition only (e.g. under valgrind). */
#include "linalg/blocktri_shifted.h"

#include "check.h"
#include "cosserat/radau.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);
/* complex arrays as interleaved (re, im) doubles */
extern void zgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);

static int verbose(void)
{
    const char *v = getenv("BTS_VERBOSE");
    return v && v[0] && v[0] != '0';
}

/* splitmix64: deterministic, platform-independent uniform(−1, 1) */
static double urand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* ------------------------------------------------------------------------ */
/* Random matrices and dense references                                     */
/* ------------------------------------------------------------------------ */

/* Entries uniform(−1, 1), J_rr −= dom on the diagonal ("diagonally dominant
 * ish": the off-diagonal row sums, ~1.5 b, still exceed dom ~ b/2, so the
 * shifted blocks do pivot). The unused L_0 and U_{n−1} hold NaN to prove that
 * nothing reads them. */
static void random_jacobian(cr_blocktri *J, uint64_t seed, double dom)
{
    int n = J->n, b = J->b;
    size_t bb = (size_t)b * b;
    for (size_t k = 0; k < (size_t)n * bb; ++k) {
        J->diag[k] = urand(&seed);
        J->lower[k] = urand(&seed);
        J->upper[k] = urand(&seed);
    }
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < b; ++r) cr_blocktri_D(J, i)[r * b + r] -= dom;
    for (size_t k = 0; k < bb; ++k) {
        J->lower[k] = NAN;
        J->upper[(size_t)(n - 1) * bb + k] = NAN;
    }
}

/* Positive masses with every third unknown algebraic (mass 0). */
static void random_mass(double *mass, int N, uint64_t seed)
{
    for (int k = 0; k < N; ++k) mass[k] = k % 3 == 2 ? 0.0 : 1.25 + urand(&seed);
}

static void random_vector(double *x, int N, uint64_t seed)
{
    for (int k = 0; k < N; ++k) x[k] = urand(&seed);
}

/* A = J as a dense column-major N×N matrix (used blocks only). */
static void dense_of(const cr_blocktri *J, double *A)
{
    int n = J->n, b = J->b, N = n * b;
    size_t bb = (size_t)b * b;
    memset(A, 0, sizeof(double) * (size_t)N * N);
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
                size_t row = (size_t)i * b + r;
                A[row + ((size_t)i * b + c) * N] = J->diag[i * bb + r * b + c];
                if (i > 0) A[row + ((size_t)(i - 1) * b + c) * N] = J->lower[i * bb + r * b + c];
                if (i < n - 1) A[row + ((size_t)(i + 1) * b + c) * N] = J->upper[i * bb + r * b + c];
            }
}

/* x = (shift·M − J)^{-1} rhs by dgesv. */
static int dense_solve_real(const cr_blocktri *J, const double *mass, double shift, const double *rhs, double *x)
{
    int N = J->n * J->b, one = 1, info = 0;
    double *A = malloc(sizeof(double) * (size_t)N * N);
    int *ipiv = malloc(sizeof(int) * (size_t)N);
    dense_of(J, A);
    for (size_t k = 0; k < (size_t)N * N; ++k) A[k] = -A[k];
    for (int k = 0; k < N; ++k) A[k + (size_t)k * N] += shift * mass[k];
    memcpy(x, rhs, sizeof(double) * (size_t)N);
    dgesv_(&N, &one, A, &N, ipiv, x, &N, &info);
    free(A);
    free(ipiv);
    return info;
}

/* x = ((sr + i si)·M − J)^{-1} (rr + i ri) by zgesv. */
static int dense_solve_complex(const cr_blocktri *J, const double *mass, double sr, double si, const double *rr,
                               const double *ri, double *xr, double *xi)
{
    int N = J->n * J->b, one = 1, info = 0;
    size_t NN = (size_t)N * N;
    double *A = malloc(sizeof(double) * NN), *Z = malloc(sizeof(double) * 2 * NN);
    double *z = malloc(sizeof(double) * 2 * (size_t)N);
    int *ipiv = malloc(sizeof(int) * (size_t)N);
    dense_of(J, A);
    for (size_t k = 0; k < NN; ++k) {
        Z[2 * k] = -A[k];
        Z[2 * k + 1] = 0.0;
    }
    for (int k = 0; k < N; ++k) {
        Z[2 * (k + (size_t)k * N)] += sr * mass[k];
        Z[2 * (k + (size_t)k * N) + 1] += si * mass[k];
        z[2 * k] = rr[k];
        z[2 * k + 1] = ri[k];
    }
    zgesv_(&N, &one, Z, &N, ipiv, z, &N, &info);
    for (int k = 0; k < N; ++k) {
        xr[k] = z[2 * k];
        xi[k] = z[2 * k + 1];
    }
    free(A);
    free(Z);
    free(z);
    free(ipiv);
    return info;
}

/* ‖x − y‖₂ / ‖y‖₂ over one or two (re, im) planes. */
static double rel_err(int N, const double *xr, const double *xi, const double *yr, const double *yi)
{
    double num = 0, den = 0;
    for (int k = 0; k < N; ++k) {
        num += (xr[k] - yr[k]) * (xr[k] - yr[k]);
        den += yr[k] * yr[k];
        if (xi) {
            num += (xi[k] - yi[k]) * (xi[k] - yi[k]);
            den += yi[k] * yi[k];
        }
    }
    return sqrt(num / den);
}

static int same_blocks(const cr_blocktri *a, const cr_blocktri *b)
{
    size_t bytes = sizeof(double) * (size_t)a->n * a->b * a->b;
    /* memcmp, not ==, so that the NaN-filled unused blocks compare too */
    return !memcmp(a->diag, b->diag, bytes) && !memcmp(a->lower, b->lower, bytes) &&
           !memcmp(a->upper, b->upper, bytes);
}

static void copy_blocks(const cr_blocktri *src, cr_blocktri *dst)
{
    size_t bytes = sizeof(double) * (size_t)src->n * src->b * src->b;
    memcpy(dst->diag, src->diag, bytes);
    memcpy(dst->lower, src->lower, bytes);
    memcpy(dst->upper, src->upper, bytes);
}

/* ------------------------------------------------------------------------ */
/* Shifted solves against dense LAPACK                                      */
/* ------------------------------------------------------------------------ */

static const int sizes[] = {19, 13, 5}; /* both specialized kernels and the generic one */

/* Relative error of the real shifted solve against dgesv; −1 on a failure. */
static double check_real_shifted(const cr_blocktri *J, const double *mass, double shift, int banded, uint64_t seed)
{
    int n = J->n, b = J->b, N = n * b;
    cr_blocktri *work = banded ? cr_blocktri_create_banded(n, b) : cr_blocktri_create(n, b);
    cr_blocktri *Jcopy = cr_blocktri_create(n, b);
    double *rhs = malloc(sizeof(double) * N), *x = malloc(sizeof(double) * N), *ref = malloc(sizeof(double) * N);
    copy_blocks(J, Jcopy);
    random_vector(rhs, N, seed);
    int bad = -7;
    cr_status st = cr_blocktri_shifted_factor_real(J, mass, shift, work, &bad);
    CHECK(st == CR_OK);
    CHECK(bad == -7); /* untouched on success */
    CHECK(work->factored == 1);
    CHECK(same_blocks(J, Jcopy)); /* J is only read */
    memcpy(x, rhs, sizeof(double) * N);
    cr_blocktri_solve(work, x);
    CHECK(dense_solve_real(J, mass, shift, rhs, ref) == 0);
    double e = st == CR_OK ? rel_err(N, x, NULL, ref, NULL) : -1;
    cr_blocktri_destroy(work);
    cr_blocktri_destroy(Jcopy);
    free(rhs);
    free(x);
    free(ref);
    return e;
}

static double check_complex_shifted(const cr_blocktri *J, const double *mass, double sr, double si, int banded,
                                    uint64_t seed)
{
    int n = J->n, b = J->b, N = n * b;
    cr_blocktri_z *work = banded ? cr_blocktri_z_create_banded(n, b) : cr_blocktri_z_create(n, b);
    cr_blocktri *Jcopy = cr_blocktri_create(n, b);
    double *rr = malloc(sizeof(double) * N), *ri = malloc(sizeof(double) * N);
    double *xr = malloc(sizeof(double) * N), *xi = malloc(sizeof(double) * N);
    double *yr = malloc(sizeof(double) * N), *yi = malloc(sizeof(double) * N);
    copy_blocks(J, Jcopy);
    random_vector(rr, N, seed);
    random_vector(ri, N, seed + 1);
    cr_status st = cr_blocktri_shifted_factor_complex(J, mass, sr, si, work, NULL);
    CHECK(st == CR_OK);
    CHECK(work->factored == 1);
    CHECK(same_blocks(J, Jcopy));
    memcpy(xr, rr, sizeof(double) * N);
    memcpy(xi, ri, sizeof(double) * N);
    cr_blocktri_z_solve(work, xr, xi);
    CHECK(dense_solve_complex(J, mass, sr, si, rr, ri, yr, yi) == 0);
    double e = st == CR_OK ? rel_err(N, xr, xi, yr, yi) : -1;
    cr_blocktri_z_destroy(work);
    cr_blocktri_destroy(Jcopy);
    free(rr);
    free(ri);
    free(xr);
    free(xi);
    free(yr);
    free(yi);
    return e;
}

/* Real shifts: a small one (J dominates, heavy pivoting) and γ̂/h at h = 0.1. */
static void test_shifted_real_vs_dgesv(void)
{
    const double shifts[] = {0.37, 36.378};
    for (int s = 0; s < 3; ++s) {
        int n = 7, b = sizes[s], N = n * b;
        cr_blocktri *J = cr_blocktri_create(n, b);
        double *mass = malloc(sizeof(double) * N);
        random_jacobian(J, 11 + b, 0.5 * b);
        random_mass(mass, N, 5 + b);
        for (int k = 0; k < 2; ++k)
            for (int banded = 0; banded < 2; ++banded) {
                double e = check_real_shifted(J, mass, shifts[k], banded, 100 + k);
                CHECK(e >= 0 && e < 1e-10);
                if (verbose())
                    printf("    b = %2d shift %-7g %s: rel err vs dgesv %.2e\n", b, shifts[k],
                           banded ? "banded" : "thomas", e);
            }
        cr_blocktri_destroy(J);
        free(mass);
    }
}

/* Complex shifts (α̂ + iβ̂)/h at h = 10 and h = 0.1. */
static void test_shifted_complex_vs_zgesv(void)
{
    const double sre[] = {0.2681, 26.81}, sim[] = {0.3050, 30.50};
    for (int s = 0; s < 3; ++s) {
        int n = 7, b = sizes[s], N = n * b;
        cr_blocktri *J = cr_blocktri_create(n, b);
        double *mass = malloc(sizeof(double) * N);
        random_jacobian(J, 21 + b, 0.5 * b);
        random_mass(mass, N, 9 + b);
        for (int k = 0; k < 2; ++k)
            for (int banded = 0; banded < 2; ++banded) {
                double e = check_complex_shifted(J, mass, sre[k], sim[k], banded, 200 + k);
                CHECK(e >= 0 && e < 1e-10);
                if (verbose())
                    printf("    b = %2d shift %g%+gi %s: rel err vs zgesv %.2e\n", b, sre[k], sim[k],
                           banded ? "banded" : "thomas", e);
            }
        cr_blocktri_destroy(J);
        free(mass);
    }
}

/* The public complex factorization with genuinely complex off-diagonal blocks
 * (the kernels' general path), checked against zgesv and by the residual of
 * cr_blocktri_z_matvec. */
static void test_complex_general_vs_zgesv(void)
{
    for (int s = 0; s < 3; ++s) {
        int n = 7, b = sizes[s], N = n * b, one = 1, info = 0;
        size_t bb = (size_t)b * b, nbb = (size_t)n * bb, NN = (size_t)N * N;
        cr_blocktri_z *A = cr_blocktri_z_create(n, b), *F = cr_blocktri_z_create(n, b);
        uint64_t seed = 31 + b;
        double *planes[6] = {A->diag_re, A->diag_im, A->lower_re, A->lower_im, A->upper_re, A->upper_im};
        for (int p = 0; p < 6; ++p)
            for (size_t k = 0; k < nbb; ++k) planes[p][k] = urand(&seed);
        for (int i = 0; i < n; ++i)
            for (int r = 0; r < b; ++r) cr_blocktri_z_D_re(A, i)[r * b + r] += 0.5 * b;
        double *fplanes[6] = {F->diag_re, F->diag_im, F->lower_re, F->lower_im, F->upper_re, F->upper_im};
        for (int p = 0; p < 6; ++p) memcpy(fplanes[p], planes[p], sizeof(double) * nbb);

        /* dense interleaved copy */
        double *Z = calloc(2 * NN, sizeof(double)), *z = malloc(sizeof(double) * 2 * N);
        int *ipiv = malloc(sizeof(int) * N);
        const int plane_of[3] = {2, 0, 4}; /* column blocks i−1, i, i+1: lower, diag, upper */
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < 3; ++j) {
                int cb = i - 1 + j;
                if (cb < 0 || cb >= n) continue;
                const double *br = planes[plane_of[j]] + i * bb, *bi = planes[plane_of[j] + 1] + i * bb;
                for (int r = 0; r < b; ++r)
                    for (int c = 0; c < b; ++c) {
                        size_t at = (size_t)i * b + r + ((size_t)cb * b + c) * N;
                        Z[2 * at] = br[r * b + c];
                        Z[2 * at + 1] = bi[r * b + c];
                    }
            }
        double *rr = malloc(sizeof(double) * N), *ri = malloc(sizeof(double) * N);
        double *xr = malloc(sizeof(double) * N), *xi = malloc(sizeof(double) * N);
        double *yr = malloc(sizeof(double) * N), *yi = malloc(sizeof(double) * N);
        random_vector(rr, N, 301);
        random_vector(ri, N, 302);
        for (int k = 0; k < N; ++k) z[2 * k] = rr[k], z[2 * k + 1] = ri[k];
        zgesv_(&N, &one, Z, &N, ipiv, z, &N, &info);
        CHECK(info == 0);
        for (int k = 0; k < N; ++k) yr[k] = z[2 * k], yi[k] = z[2 * k + 1];

        CHECK(cr_blocktri_z_factor(F, NULL) == CR_OK);
        CHECK(F->lower_real == 0);
        memcpy(xr, rr, sizeof(double) * N);
        memcpy(xi, ri, sizeof(double) * N);
        cr_blocktri_z_solve(F, xr, xi);
        double e = rel_err(N, xr, xi, yr, yi);
        CHECK(e < 1e-10);

        /* residual through the unfactored copy */
        double *ar = malloc(sizeof(double) * N), *ai = malloc(sizeof(double) * N);
        cr_blocktri_z_matvec(A, xr, xi, ar, ai);
        double res = rel_err(N, ar, ai, rr, ri);
        CHECK(res < 1e-12);
        if (verbose()) printf("    b = %2d general complex: rel err vs zgesv %.2e, rel residual %.2e\n", b, e, res);

        cr_blocktri_z_destroy(A);
        cr_blocktri_z_destroy(F);
        free(Z);
        free(z);
        free(ipiv);
        free(rr);
        free(ri);
        free(xr);
        free(xi);
        free(yr);
        free(yi);
        free(ar);
        free(ai);
    }
}

/* ------------------------------------------------------------------------ */
/* Pivoting, singularity, banded fallback, scaling                          */
/* ------------------------------------------------------------------------ */

/* Every shifted diagonal block has an exact zero in its (0,0) entry: J_00 = 0,
 * mass_0 = 0 and row 0 of L_i is zero, so the Schur update leaves it zero. The
 * factorizations must pivot in every block and still match LAPACK. */
static void test_pivoting_zero_diagonal(void)
{
    const int bs[] = {19, 5};
    for (int s = 0; s < 2; ++s) {
        int n = 7, b = bs[s], N = n * b;
        cr_blocktri *J = cr_blocktri_create(n, b);
        double *mass = malloc(sizeof(double) * N);
        random_jacobian(J, 41 + b, 0.5 * b);
        random_mass(mass, N, 43 + b);
        for (int i = 0; i < n; ++i) {
            cr_blocktri_D(J, i)[0] = 0.0;
            mass[i * b] = 0.0;
            if (i > 0) memset(cr_blocktri_L(J, i), 0, sizeof(double) * b);
        }
        const double shift = 3.7, sr = 2.68, si = 3.05;
        cr_blocktri *w = cr_blocktri_create(n, b);
        cr_blocktri_z *wz = cr_blocktri_z_create(n, b);
        CHECK(cr_blocktri_shifted_factor_real(J, mass, shift, w, NULL) == CR_OK);
        CHECK(cr_blocktri_shifted_factor_complex(J, mass, sr, si, wz, NULL) == CR_OK);
        int pivoted = 0;
        for (int i = 0; i < n; ++i) pivoted += (w->pivot[i * b] != 0) + (wz->pivot[i * b] != 0);
        CHECK(pivoted == 2 * n);
        double er = check_real_shifted(J, mass, shift, 0, 401);
        double ez = check_complex_shifted(J, mass, sr, si, 0, 402);
        CHECK(er >= 0 && er < 1e-10);
        CHECK(ez >= 0 && ez < 1e-10);
        if (verbose())
            printf("    b = %2d zero (0,0) in all %d blocks: pivoted %d/%d, rel err real %.2e complex %.2e\n", b, n,
                   pivoted, 2 * n, er, ez);
        cr_blocktri_destroy(J);
        cr_blocktri_destroy(w);
        cr_blocktri_z_destroy(wz);
        free(mass);
    }
}

/* A zero row (row 1 of block 3, algebraic) makes the matrix singular: both
 * factorizations report CR_SINGULAR at block row 3 and leave `factored` 0,
 * also after an earlier successful factorization of the same work matrix. */
static void test_singular_reports_block(void)
{
    int n = 7, b = 5, N = n * b;
    cr_blocktri *J = cr_blocktri_create(n, b);
    double *mass = malloc(sizeof(double) * N);
    random_jacobian(J, 51, 0.5 * b);
    random_mass(mass, N, 52);
    cr_blocktri *w = cr_blocktri_create(n, b), *wb = cr_blocktri_create_banded(n, b);
    cr_blocktri_z *wz = cr_blocktri_z_create(n, b), *wzb = cr_blocktri_z_create_banded(n, b);
    CHECK(cr_blocktri_shifted_factor_real(J, mass, 1.0, w, NULL) == CR_OK);
    CHECK(cr_blocktri_shifted_factor_complex(J, mass, 1.0, 1.0, wz, NULL) == CR_OK);
    int i = 3, r = 1;
    for (int c = 0; c < b; ++c) {
        cr_blocktri_D(J, i)[r * b + c] = 0.0;
        cr_blocktri_L(J, i)[r * b + c] = 0.0;
        cr_blocktri_U(J, i)[r * b + c] = 0.0;
    }
    mass[i * b + r] = 0.0;
    int bad = -1, badz = -1, badb = -1, badzb = -1;
    CHECK(cr_blocktri_shifted_factor_real(J, mass, 1.0, w, &bad) == CR_SINGULAR);
    CHECK(bad == 3);
    CHECK(w->factored == 0);
    CHECK(cr_blocktri_shifted_factor_complex(J, mass, 1.0, 1.0, wz, &badz) == CR_SINGULAR);
    CHECK(badz == 3);
    CHECK(wz->factored == 0);
    /* LAPACK's row interchanges carry the zero row down the band, so its
     * zero pivot may show up blocks later: only the range is certain */
    CHECK(cr_blocktri_shifted_factor_real(J, mass, 1.0, wb, &badb) == CR_SINGULAR);
    CHECK(badb >= 3 && badb < n);
    CHECK(cr_blocktri_shifted_factor_complex(J, mass, 1.0, 1.0, wzb, &badzb) == CR_SINGULAR);
    CHECK(badzb >= 3 && badzb < n);
    /* mismatched shapes, aliasing */
    cr_blocktri *other = cr_blocktri_create(n + 1, b);
    cr_blocktri_z *otherz = cr_blocktri_z_create(n, b + 1);
    CHECK(cr_blocktri_shifted_factor_real(J, mass, 1.0, other, NULL) == CR_BAD_INPUT);
    CHECK(cr_blocktri_shifted_factor_real(J, mass, 1.0, J, NULL) == CR_BAD_INPUT);
    CHECK(cr_blocktri_shifted_factor_complex(J, mass, 1.0, 1.0, otherz, NULL) == CR_BAD_INPUT);
    CHECK(cr_blocktri_z_create(0, 3) == NULL);
    CHECK(cr_blocktri_z_create(3, 0) == NULL);
    if (verbose()) printf("    singular: thomas block %d/%d, banded block %d/%d\n", bad, badz, badb, badzb);
    cr_blocktri_destroy(J);
    cr_blocktri_destroy(w);
    cr_blocktri_destroy(wb);
    cr_blocktri_destroy(other);
    cr_blocktri_z_destroy(wz);
    cr_blocktri_z_destroy(wzb);
    cr_blocktri_z_destroy(otherz);
    free(mass);
}

/* Row 0 of the first shifted diagonal block is zero but U_0 couples it to
 * block 1, so the matrix is regular while D_0 alone is singular (the rigid
 * end-element case): Thomas fails at block 0, banded mode solves. */
static void test_banded_when_block_singular(void)
{
    int n = 7, b = 5, N = n * b;
    cr_blocktri *J = cr_blocktri_create(n, b);
    double *mass = malloc(sizeof(double) * N);
    random_jacobian(J, 61, 0.5 * b);
    random_mass(mass, N, 62);
    memset(cr_blocktri_D(J, 0), 0, sizeof(double) * b);
    mass[0] = 0.0;
    cr_blocktri *w = cr_blocktri_create(n, b);
    cr_blocktri_z *wz = cr_blocktri_z_create(n, b);
    int bad = -1, badz = -1;
    CHECK(cr_blocktri_shifted_factor_real(J, mass, 2.0, w, &bad) == CR_SINGULAR);
    CHECK(cr_blocktri_shifted_factor_complex(J, mass, 2.0, 1.5, wz, &badz) == CR_SINGULAR);
    CHECK(bad == 0 && badz == 0);
    double er = check_real_shifted(J, mass, 2.0, 1, 601);
    double ez = check_complex_shifted(J, mass, 2.0, 1.5, 1, 602);
    CHECK(er >= 0 && er < 1e-10);
    CHECK(ez >= 0 && ez < 1e-10);
    if (verbose()) printf("    singular D_0: thomas CR_SINGULAR, banded rel err real %.2e complex %.2e\n", er, ez);
    cr_blocktri_destroy(J);
    cr_blocktri_destroy(w);
    cr_blocktri_z_destroy(wz);
    free(mass);
}

/* Scaling J and M by 2^±531 (~1e±160) scales the solution exactly by 2^∓531,
 * but squares of the entries overflow or underflow: the complex pivot search
 * must fall back to hypot instead of declaring the blocks singular. */
static void test_complex_extreme_scaling(void)
{
    int n = 7, b = 19, N = n * b;
    cr_blocktri *J = cr_blocktri_create(n, b), *Js = cr_blocktri_create(n, b);
    double *mass = malloc(sizeof(double) * N), *ms = malloc(sizeof(double) * N);
    random_jacobian(J, 71, 0.5 * b);
    random_mass(mass, N, 72);
    double *rr = malloc(sizeof(double) * N), *ri = malloc(sizeof(double) * N);
    double *xr = malloc(sizeof(double) * N), *xi = malloc(sizeof(double) * N);
    double *yr = malloc(sizeof(double) * N), *yi = malloc(sizeof(double) * N);
    random_vector(rr, N, 701);
    random_vector(ri, N, 702);
    cr_blocktri_z *w = cr_blocktri_z_create(n, b);
    CHECK(cr_blocktri_shifted_factor_complex(J, mass, 2.68, 3.05, w, NULL) == CR_OK);
    memcpy(xr, rr, sizeof(double) * N);
    memcpy(xi, ri, sizeof(double) * N);
    cr_blocktri_z_solve(w, xr, xi);
    const int exps[] = {531, -531};
    for (int e = 0; e < 2; ++e) {
        double lam = ldexp(1.0, exps[e]);
        size_t nbb = (size_t)n * b * b;
        for (size_t k = 0; k < nbb; ++k) {
            Js->diag[k] = lam * J->diag[k];
            Js->lower[k] = lam * J->lower[k];
            Js->upper[k] = lam * J->upper[k];
        }
        for (int k = 0; k < N; ++k) ms[k] = lam * mass[k];
        cr_status st = cr_blocktri_shifted_factor_complex(Js, ms, 2.68, 3.05, w, NULL);
        CHECK(st == CR_OK);
        memcpy(yr, rr, sizeof(double) * N);
        memcpy(yi, ri, sizeof(double) * N);
        cr_blocktri_z_solve(w, yr, yi);
        for (int k = 0; k < N; ++k) yr[k] *= lam, yi[k] *= lam;
        double err = st == CR_OK ? rel_err(N, yr, yi, xr, xi) : 1.0;
        CHECK(err < 1e-12);
        if (verbose()) printf("    scale 2^%d: rel diff from unscaled %.2e\n", exps[e], err);
    }
    cr_blocktri_destroy(J);
    cr_blocktri_destroy(Js);
    cr_blocktri_z_destroy(w);
    free(mass);
    free(ms);
    free(rr);
    free(ri);
    free(xr);
    free(xi);
    free(yr);
    free(yi);
}

/* ------------------------------------------------------------------------ */
/* Radau through the hooks: a damped chain with algebraic element stresses   */
/* ------------------------------------------------------------------------ */

/* n nodes on a line, node −1 a wall. Per node i the unknowns (u_i, v_i, s_i):
 *     u_i'       = v_i
 *     m_i v_i'   = s_{i+1} − s_i − d v_i                 (s_n = 0, free end)
 *     0          = k_i (u_i − u_{i−1}) + c_i (v_i − v_{i−1}) − s_i
 * (Kelvin–Voigt elements, u_{−1} = v_{−1} = 0): an index-1 linear DAE, block
 * tridiagonal with b = 3 and mass (1, m_i, 0) — the rod's structure in
 * miniature. Light nodes and stiff, damped elements make it stiff. Exact
 * solution: eliminate s, x = (u, v) solves x' = A x, y(t) = exp(A t) x0. */
#define CH_N 8
#define CH_B 3
#define CH_NY (CH_N * CH_B)
typedef struct chain {
    double m[CH_N], k[CH_N], c[CH_N], d;
    double A[2 * CH_N * 2 * CH_N];   /* reduced ODE, row-major */
    double x0[2 * CH_N];
    double jac[CH_NY * CH_NY];       /* dense J, column-major (constant) */
    double rtol, atol;
    /* over the accepted steps, per component: max |y − exact| and max |exact|.
     * The error is judged against each component's scale, not pointwise: the
     * stresses are ~k·u ~ 1e3 and cross zero, where atol = 1e-8 means nothing */
    double err_max[CH_NY], y_max[CH_NY];
    int steps_seen;
} chain;

static cr_status chain_rhs(double t, const double *y, double *f, void *user)
{
    const chain *ch = user;
    for (int i = 0; i < CH_N; ++i) {
        double u = y[3 * i], v = y[3 * i + 1], s = y[3 * i + 2];
        double up = i > 0 ? y[3 * i - 3] : 0.0, vp = i > 0 ? y[3 * i - 2] : 0.0;
        double snext = i < CH_N - 1 ? y[3 * i + 5] : 0.0;
        f[3 * i] = v;
        f[3 * i + 1] = snext - s - ch->d * v;
        f[3 * i + 2] = ch->k[i] * (u - up) + ch->c[i] * (v - vp) - s;
    }
    return CR_OK;
}

static cr_status chain_jac_blocks(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    const chain *ch = user;
    for (int i = 0; i < CH_N; ++i) {
        double *D = cr_blocktri_D(J, i);
        D[0 * 3 + 1] = 1.0;
        D[1 * 3 + 1] = -ch->d;
        D[1 * 3 + 2] = -1.0;
        D[2 * 3 + 0] = ch->k[i];
        D[2 * 3 + 1] = ch->c[i];
        D[2 * 3 + 2] = -1.0;
        if (i < CH_N - 1) cr_blocktri_U(J, i)[1 * 3 + 2] = 1.0;
        if (i > 0) {
            cr_blocktri_L(J, i)[2 * 3 + 0] = -ch->k[i];
            cr_blocktri_L(J, i)[2 * 3 + 1] = -ch->c[i];
        }
    }
    return CR_OK;
}

static cr_status chain_jac_dense(double t, const double *y, double *jac, void *user)
{
    const chain *ch = user;
    memcpy(jac, ch->jac, sizeof ch->jac);
    return CR_OK;
}

/* The algebraic rows' consistent stresses for given (u, v). */
static void chain_state(const chain *ch, const double *x, double *y)
{
    for (int i = 0; i < CH_N; ++i) {
        double up = i > 0 ? x[2 * i - 2] : 0.0, vp = i > 0 ? x[2 * i - 1] : 0.0;
        y[3 * i] = x[2 * i];
        y[3 * i + 1] = x[2 * i + 1];
        y[3 * i + 2] = ch->k[i] * (x[2 * i] - up) + ch->c[i] * (x[2 * i + 1] - vp);
    }
}

/* E = exp(A t) for a row-major n×n A (n <= 2 CH_N): scaling and squaring with
 * a degree-20 Taylor polynomial at ‖A t / 2^s‖∞ <= 1/4 (truncation < 1e-25). */
static void expm(int n, const double *A, double t, double *E)
{
    double X[4 * CH_N * CH_N], T[4 * CH_N * CH_N], P[4 * CH_N * CH_N];
    double nrm = 0;
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += fabs(A[i * n + j] * t);
        nrm = fmax(nrm, s);
    }
    int sq = nrm > 0.25 ? (int)ceil(log2(nrm / 0.25)) : 0;
    double scale = ldexp(t, -sq);
    for (int k = 0; k < n * n; ++k) {
        X[k] = A[k] * scale;
        E[k] = T[k] = (k % (n + 1) == 0) ? 1.0 : 0.0;
    }
    for (int term = 1; term <= 20; ++term) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = 0;
                for (int l = 0; l < n; ++l) s += T[i * n + l] * X[l * n + j];
                P[i * n + j] = s / term;
            }
        for (int k = 0; k < n * n; ++k) E[k] += (T[k] = P[k]);
    }
    for (int q = 0; q < sq; ++q) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = 0;
                for (int l = 0; l < n; ++l) s += E[i * n + l] * E[l * n + j];
                P[i * n + j] = s;
            }
        memcpy(E, P, sizeof(double) * n * n);
    }
}

static void chain_exact(const chain *ch, double t, double *y)
{
    enum { n = 2 * CH_N };
    double E[n * n], x[n];
    expm(n, ch->A, t, E);
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += E[i * n + j] * ch->x0[j];
        x[i] = s;
    }
    chain_state(ch, x, y);
}

static int chain_step(double t, double *y, void *user)
{
    chain *ch = user;
    double ex[CH_NY];
    chain_exact(ch, t, ex);
    for (int i = 0; i < CH_NY; ++i) {
        ch->err_max[i] = fmax(ch->err_max[i], fabs(y[i] - ex[i]));
        ch->y_max[i] = fmax(ch->y_max[i], fabs(ex[i]));
    }
    ch->steps_seen++;
    return 0;
}

static void chain_setup(chain *ch)
{
    memset(ch, 0, sizeof *ch);
    for (int i = 0; i < CH_N; ++i) {
        ch->m[i] = i % 2 ? 1e-3 : 1.0;  /* light nodes: fast, stiff modes */
        ch->k[i] = 200.0 * (1 + i);
        ch->c[i] = 5.0;
        ch->x0[2 * i] = 0.05 * (i + 1) * (i % 3 == 0 ? -1.0 : 1.0);
        ch->x0[2 * i + 1] = 0.0;
    }
    ch->d = 0.2;
    ch->rtol = 1e-6;
    ch->atol = 1e-8;
    /* A column by column: y from x = e_j with consistent s, then (u', v') */
    enum { n = 2 * CH_N };
    for (int j = 0; j < n; ++j) {
        double x[n] = {0}, y[CH_NY], f[CH_NY];
        x[j] = 1.0;
        chain_state(ch, x, y);
        chain_rhs(0, y, f, ch);
        for (int i = 0; i < CH_N; ++i) {
            ch->A[(2 * i) * n + j] = f[3 * i];
            ch->A[(2 * i + 1) * n + j] = f[3 * i + 1] / ch->m[i];
        }
    }
    cr_blocktri *J = cr_blocktri_create(CH_N, CH_B);
    chain_jac_blocks(0, NULL, NULL, J, ch);
    dense_of(J, ch->jac);
    cr_blocktri_destroy(J);
}

/* max_i err_max_i / (atol + rtol·y_max_i): the global error in units of the
 * tolerance at each component's scale. */
static double chain_scaled_error(const chain *ch)
{
    double worst = 0;
    for (int i = 0; i < CH_NY; ++i) worst = fmax(worst, ch->err_max[i] / (ch->atol + ch->rtol * ch->y_max[i]));
    return worst;
}

/* Integrates to T with the given hooks; returns the final state in y. */
static cr_status chain_integrate(chain *ch, cr_radau_linsys ls, const double *mass, double T, double *y,
                                 cr_radau_stats *stats)
{
    cr_radau_problem p = {CH_NY, mass, chain_rhs, ls, ch};
    cr_radau_options o = cr_radau_default_options();
    o.rtol = ch->rtol;
    o.atol = ch->atol;
    o.step_callback = chain_step;
    double y0[CH_NY];
    chain_state(ch, ch->x0, y0);
    memset(ch->err_max, 0, sizeof ch->err_max);
    for (int i = 0; i < CH_NY; ++i) ch->y_max[i] = fabs(y0[i]);
    ch->steps_seen = 0;
    cr_error err = {0};
    cr_radau *s = cr_radau_create(&p, &o, 0.0, y0, &err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "    %s\n", err.message);
        return CR_BAD_INPUT;
    }
    cr_status st = cr_radau_integrate(s, T, &err);
    memcpy(y, cr_radau_y(s), sizeof(double) * CH_NY);
    *stats = cr_radau_get_stats(s);
    cr_radau_destroy(s);
    return st;
}

static void test_radau_hooks_damped_chain(void)
{
    static chain ch; /* ~6 kB of dense matrices: keep them off the stack */
    chain_setup(&ch);
    double mass[CH_NY], ex[CH_NY], T = 2.0;
    for (int i = 0; i < CH_N; ++i) mass[3 * i] = 1.0, mass[3 * i + 1] = ch.m[i], mass[3 * i + 2] = 0.0;
    chain_exact(&ch, T, ex);
    double anorm = 0;
    for (int i = 0; i < 2 * CH_N; ++i) {
        double s = 0;
        for (int j = 0; j < 2 * CH_N; ++j) s += fabs(ch.A[i * 2 * CH_N + j]);
        anorm = fmax(anorm, s);
    }

    double y[3][CH_NY];
    cr_radau_stats st[3];
    double scaled[3], final_scaled[3];
    for (int variant = 0; variant < 3; ++variant) { /* Thomas, banded, dense LAPACK hooks */
        cr_error err = {0};
        cr_blocktri_radau *a = NULL;
        cr_radau_dense_solver *dn = NULL;
        cr_radau_linsys ls;
        if (variant < 2) {
            a = cr_blocktri_radau_create(CH_N, CH_B, mass, variant == 1, chain_jac_blocks, &ch, &err);
            CHECK(a != NULL);
            if (!a) return;
            ls = cr_blocktri_radau_linsys(a);
        } else {
            dn = cr_radau_dense_solver_create(CH_NY, mass, chain_jac_dense, NULL, &ch, &err);
            CHECK(dn != NULL);
            if (!dn) return;
            ls = cr_radau_dense_solver_linsys(dn);
        }
        cr_status s = chain_integrate(&ch, ls, mass, T, y[variant], &st[variant]);
        CHECK(s == CR_OK);
        scaled[variant] = chain_scaled_error(&ch);
        final_scaled[variant] = 0;
        for (int i = 0; i < CH_NY; ++i)
            final_scaled[variant] =
                fmax(final_scaled[variant], fabs(y[variant][i] - ex[i]) / (ch.atol + ch.rtol * fabs(ex[i])));
        CHECK(scaled[variant] < 5.0);
        CHECK(final_scaled[variant] < 5.0);
        CHECK(ch.steps_seen == st[variant].steps);
        CHECK(st[variant].lu_real > 0 && st[variant].lu_complex > 0);
        if (a) {
            /* every counted factorization and solve went through the adaptor */
            CHECK(a->jac_calls == st[variant].jac_evals);
            CHECK(a->factor_real_calls == st[variant].lu_real);
            CHECK(a->factor_complex_calls == st[variant].lu_complex);
            CHECK(a->solve_real_calls == st[variant].solves_real);
            CHECK(a->solve_complex_calls == st[variant].solves_complex);
            CHECK(a->bad_block == -1);
        }
        if (verbose())
            printf("    %-7s steps %ld rejected %ld newton %ld jac %ld lu %ld/%ld solves %ld/%ld; max scaled err "
                   "%.3g (final %.3g); h_last·‖A‖ %.3g\n",
                   variant == 0 ? "thomas" : variant == 1 ? "banded" : "dense", st[variant].steps,
                   st[variant].rejected, st[variant].newton_iterations, st[variant].jac_evals, st[variant].lu_real,
                   st[variant].lu_complex, st[variant].solves_real, st[variant].solves_complex, scaled[variant],
                   final_scaled[variant], st[variant].h_last * anorm);
        cr_blocktri_radau_destroy(a);
        cr_radau_dense_solver_destroy(dn);
    }
    /* Same problem, same integrator, hooks that differ only by rounding. That
     * rounding can still flip the Jacobian-reuse test (θ against 0.001), and
     * then the step sequences part: the results agree to a fraction of the
     * tolerance, not to rounding. */
    for (int v = 0; v < 2; ++v) {
        double diff = 0;
        for (int i = 0; i < CH_NY; ++i)
            diff = fmax(diff, fabs(y[v][i] - y[2][i]) / (ch.atol + ch.rtol * ch.y_max[i]));
        CHECK(diff < 0.5);
        CHECK(labs(st[v].steps - st[2].steps) <= st[2].steps / 20 + 2);
        if (verbose()) printf("    %s vs dense hooks: max scaled diff %.3g\n", v ? "banded" : "thomas", diff);
    }
}

/* The hooks' error paths, called directly. */
static cr_status jac_nan(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    cr_blocktri_D(J, 1)[2] = NAN;
    return CR_OK;
}

static cr_status jac_unused_nan(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    for (int i = 0; i < J->n; ++i)
        for (int r = 0; r < J->b; ++r) cr_blocktri_D(J, i)[r * J->b + r] = -1.0;
    cr_blocktri_L(J, 0)[0] = NAN; /* never read */
    return CR_OK;
}

static cr_status jac_fails(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    return CR_IO;
}

static void test_radau_hooks_errors(void)
{
    int n = 4, b = 3, N = n * b;
    double mass[12] = {1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0}, y[12] = {0}, x[12], xi[12];
    cr_error err = {0};
    CHECK(cr_blocktri_radau_create(0, 3, mass, 0, jac_unused_nan, NULL, &err) == NULL);
    CHECK(err.status == CR_BAD_INPUT && err.message[0] != '\0');
    CHECK(cr_blocktri_radau_create(n, b, mass, 0, NULL, NULL, &err) == NULL);
    double badmass[12];
    memcpy(badmass, mass, sizeof badmass);
    badmass[5] = INFINITY;
    CHECK(cr_blocktri_radau_create(n, b, badmass, 0, jac_unused_nan, NULL, &err) == NULL);
    CHECK(cr_blocktri_radau_create(1 << 20, 1 << 12, NULL, 0, jac_unused_nan, NULL, &err) == NULL);
    CHECK(err.status == CR_UNSUPPORTED);

    cr_blocktri_radau *a = cr_blocktri_radau_create(n, b, mass, 0, jac_unused_nan, NULL, &err);
    CHECK(a != NULL);
    if (!a) return;
    cr_radau_linsys ls = cr_blocktri_radau_linsys(a);
    for (int k = 0; k < N; ++k) x[k] = xi[k] = 1.0;
    CHECK(ls.solve_real(x, ls.ctx) == CR_BAD_INPUT);          /* nothing factored yet */
    CHECK(ls.solve_complex(x, xi, ls.ctx) == CR_BAD_INPUT);
    CHECK(ls.jacobian(0.0, y, y, ls.ctx) == CR_OK);           /* NaN in unused L_0 is fine */
    CHECK(ls.factor_real(2.0, ls.ctx) == CR_OK);
    CHECK(ls.solve_real(x, ls.ctx) == CR_OK);
    CHECK_NEAR(x[0], 1.0 / 3.0, 1e-15);                       /* (2·1 + 1) x = 1 */
    CHECK_NEAR(x[2], 1.0, 1e-15);                             /* algebraic row: (0 + 1) x = 1 */
    CHECK(ls.factor_complex(0.0, 1.0, ls.ctx) == CR_OK);
    CHECK(ls.solve_complex(x, xi, ls.ctx) == CR_OK);
    /* (i + 1)(x + i xi) = 1/3 + i → x + i xi = (1/3 + i)(1 − i)/2 = (2/3 + i·1/3) */
    CHECK_NEAR(x[0], 2.0 / 3.0, 1e-15);
    CHECK_NEAR(xi[0], 1.0 / 3.0, 1e-15);
    /* shift −1 makes the differential rows singular: (−1·1 + 1) = 0 */
    CHECK(ls.factor_real(-1.0, ls.ctx) == CR_SINGULAR);
    CHECK(a->bad_block == 0);
    CHECK(ls.solve_real(x, ls.ctx) == CR_BAD_INPUT);          /* the failed LU is not used */
    CHECK(ls.solve_complex(x, xi, ls.ctx) == CR_OK);          /* the complex one still is */
    CHECK(ls.jacobian(0.0, y, y, ls.ctx) == CR_OK);           /* a new J invalidates it */
    CHECK(ls.solve_complex(x, xi, ls.ctx) == CR_BAD_INPUT);
    CHECK(a->jac_calls == 2 && a->factor_real_calls == 2 && a->factor_complex_calls == 1);
    cr_blocktri_radau_destroy(a);

    a = cr_blocktri_radau_create(n, b, NULL, 0, jac_nan, NULL, &err);
    CHECK(a != NULL);
    if (a) CHECK(cr_blocktri_radau_linsys(a).jacobian(0.0, y, y, a) == CR_NONFINITE);
    cr_blocktri_radau_destroy(a);
    a = cr_blocktri_radau_create(n, b, NULL, 1, jac_fails, NULL, &err);
    CHECK(a != NULL);
    if (a) CHECK(cr_blocktri_radau_linsys(a).jacobian(0.0, y, y, a) == CR_IO); /* passed through */
    cr_blocktri_radau_destroy(a);
    cr_blocktri_radau_destroy(NULL);
    cr_blocktri_z_destroy(NULL);
}

/* ------------------------------------------------------------------------ */
/* Timing: n = 800, b = 19 (a 19-unknown-per-node rod with 800 nodes)         */
/* ------------------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best of `reps` wall-clock times of factor and of solve. */
static void test_timing_n800_b19(void)
{
    int n = 800, b = 19, N = n * b;
    int quick = getenv("BTS_QUICK") != NULL; /* e.g. under valgrind */
    int reps = quick ? 1 : 20, reps_band = quick ? 1 : 3;
    cr_blocktri *J = cr_blocktri_create(n, b);
    double *mass = malloc(sizeof(double) * N);
    random_jacobian(J, 81, 0.5 * b);
    for (int k = 0; k < N; ++k) mass[k] = k % b >= 13 ? 0.0 : 1.0; /* 6 algebraic stresses per node */
    double h = 1e-2, shift = 3.6378342527444958 / h, sr = 2.6810828736277523 / h, si = 3.0504301992474105 / h;
    double *r = malloc(sizeof(double) * N), *ri = malloc(sizeof(double) * N);
    double *x = malloc(sizeof(double) * N), *xi = malloc(sizeof(double) * N);
    double *jx = malloc(sizeof(double) * N), *jxi = malloc(sizeof(double) * N);
    random_vector(r, N, 801);
    random_vector(ri, N, 802);
    for (int banded = 0; banded < 2; ++banded) {
        int R = banded ? reps_band : reps;
        cr_blocktri *w = banded ? cr_blocktri_create_banded(n, b) : cr_blocktri_create(n, b);
        cr_blocktri_z *wz = banded ? cr_blocktri_z_create_banded(n, b) : cr_blocktri_z_create(n, b);
        double tf = 1e30, ts = 1e30, tzf = 1e30, tzs = 1e30;
        for (int k = 0; k < R; ++k) {
            double t0 = now();
            CHECK(cr_blocktri_shifted_factor_real(J, mass, shift, w, NULL) == CR_OK);
            double t1 = now();
            memcpy(x, r, sizeof(double) * N);
            cr_blocktri_solve(w, x);
            double t2 = now();
            CHECK(cr_blocktri_shifted_factor_complex(J, mass, sr, si, wz, NULL) == CR_OK);
            double t3 = now();
            memcpy(xi, ri, sizeof(double) * N);
            memcpy(jx, r, sizeof(double) * N);
            cr_blocktri_z_solve(wz, jx, xi);
            double t4 = now();
            tf = fmin(tf, t1 - t0);
            ts = fmin(ts, t2 - t1);
            tzf = fmin(tzf, t3 - t2);
            tzs = fmin(tzs, t4 - t3);
        }
        /* residuals through J: E x − rhs = shift M x − J x − rhs */
        double num = 0, den = 0;
        cr_blocktri_matvec(J, x, jxi);
        for (int k = 0; k < N; ++k) {
            double e = shift * mass[k] * x[k] - jxi[k] - r[k];
            num += e * e;
            den += r[k] * r[k];
        }
        double res_real = sqrt(num / den);
        double *zr = jx, *zi = xi, *a = malloc(sizeof(double) * N), *c = malloc(sizeof(double) * N);
        cr_blocktri_matvec(J, zr, a);
        cr_blocktri_matvec(J, zi, c);
        num = den = 0;
        for (int k = 0; k < N; ++k) {
            double er = mass[k] * (sr * zr[k] - si * zi[k]) - a[k] - r[k];
            double ei = mass[k] * (sr * zi[k] + si * zr[k]) - c[k] - ri[k];
            num += er * er + ei * ei;
            den += r[k] * r[k] + ri[k] * ri[k];
        }
        double res_cplx = sqrt(num / den);
        CHECK(res_real < 1e-12);
        CHECK(res_cplx < 1e-12);
        printf("    n = %d, b = %d, %s: real factor %.2f ms solve %.3f ms | complex factor %.2f ms solve %.3f ms "
               "(best of %d; rel residual %.1e / %.1e)\n",
               n, b, banded ? "banded LAPACK" : "block Thomas", 1e3 * tf, 1e3 * ts, 1e3 * tzf, 1e3 * tzs, R,
               res_real, res_cplx);
        free(a);
        free(c);
        cr_blocktri_destroy(w);
        cr_blocktri_z_destroy(wz);
    }
    cr_blocktri_destroy(J);
    free(mass);
    free(r);
    free(ri);
    free(x);
    free(xi);
    free(jx);
    free(jxi);
}

/* ------------------------------------------------------------------------ */
/* Condensed algebraic unknowns (cr_blocktri_radau_condense)                */
/* ------------------------------------------------------------------------ */

/* A random Jacobian with the rod's pattern: per block b = CD_B unknowns, the last CD_NC
 * algebraic with a diagonal J_λλ; block i's λ enter the rows of blocks i and i+1, their
 * rows depend on blocks i and i+1. `off` (≥ 0) puts one entry outside the pattern into
 * that block row. */
/* Both systems factored at the shift γ (real) and α ± iβ (complex), then solved for the
 * same random right sides: the largest difference of the solutions relative to their
 * largest entry. N unknowns (at most 9 × 19). */
static double solve_difference(const cr_radau_linsys *lf, cr_blocktri_radau *full, const cr_radau_linsys *lc,
                               cr_blocktri_radau *cond, double sh, double shi, int N, uint64_t *s)
{
    double a[9 * 19], b[9 * 19], ar[9 * 19], ai[9 * 19], br[9 * 19], bi[9 * 19];
    CHECK(lf->factor_real(sh, full) == CR_OK && lc->factor_real(sh, cond) == CR_OK);
    CHECK(lf->factor_complex(sh, shi, full) == CR_OK && lc->factor_complex(sh, shi, cond) == CR_OK);
    for (int k = 0; k < N; ++k) a[k] = b[k] = urand(s), ar[k] = br[k] = urand(s), ai[k] = bi[k] = urand(s);
    CHECK(lf->solve_real(a, full) == CR_OK && lc->solve_real(b, cond) == CR_OK);
    CHECK(lf->solve_complex(ar, ai, full) == CR_OK && lc->solve_complex(br, bi, cond) == CR_OK);
    double num = 0, den = 0;
    for (int k = 0; k < N; ++k) {
        num = fmax(num, fmax(fabs(a[k] - b[k]), fmax(fabs(ar[k] - br[k]), fabs(ai[k] - bi[k]))));
        den = fmax(den, fmax(fabs(a[k]), fmax(fabs(ar[k]), fabs(ai[k]))));
    }
    return num / den;
}

#define CD_N 9
#define CD_BMAX 19
typedef struct cd_data {
    uint64_t seed;
    int off, b, nc;
    int nan_at; /* ≥ 0: a NaN in that block's first λ row (J_λq) */
} cd_data;

static cr_status cd_jac(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    cd_data *d = user;
    uint64_t s = d->seed;
    const int B = d->b, bq = d->b - d->nc;
    for (int i = 0; i < CD_N; ++i) {
        double *D = cr_blocktri_D(J, i), *L = i > 0 ? cr_blocktri_L(J, i) : NULL,
               *U = i < CD_N - 1 ? cr_blocktri_U(J, i) : NULL;
        for (int r = 0; r < B; ++r)
            for (int c = 0; c < B; ++c) {
                int lr = r >= bq, lc = c >= bq;
                D[r * B + c] = lr && lc ? (r == c ? 1.0 / (1.0 + urand(&s) * urand(&s) + 1.5) : 0.0)
                                        : urand(&s) + (r == c ? 0.5 * B : 0.0);
                if (L) L[r * B + c] = lr ? 0.0 : 0.5 * urand(&s); /* λ rows: not on block i−1 */
                if (U) U[r * B + c] = lc ? 0.0 : 0.5 * urand(&s); /* no row on block i+1's λ */
            }
        if (i == d->off && U) U[1 * B + bq] = 0.25; /* row of block i on λ of block i+1 */
        if (i == d->nan_at) D[bq * B + 1] = NAN;
    }
    return CR_OK;
}

/* b = 5 with 2 condensed (generic kernels), b = 19 with 6 (the dynamics: 13×13 kernels) */
static void test_condensed_hooks_vs_full(void)
{
    static const int cfg[2][2] = {{5, 2}, {19, 6}};
    for (int z = 0; z < 2; ++z) {
        const int B = cfg[z][0], NC = cfg[z][1], N = CD_N * B;
        double mass[CD_N * CD_BMAX], y[CD_N * CD_BMAX] = {0};
        uint64_t s = 7;
        for (int i = 0; i < CD_N; ++i)
            for (int r = 0; r < B; ++r) mass[i * B + r] = r < B - NC ? 0.5 + fabs(urand(&s)) : 0.0;
        mass[2 * B + 1] = 0.0; /* an algebraic row among the kept ones (a held coordinate) */
        cd_data d = {.seed = 42, .off = -1, .b = B, .nc = NC, .nan_at = -1};
        cr_error err = {0};
        cr_blocktri_radau *full = cr_blocktri_radau_create(CD_N, B, mass, 0, cd_jac, &d, &err);
        cr_blocktri_radau *cond = cr_blocktri_radau_create(CD_N, B, mass, 0, cd_jac, &d, &err);
        CHECK(full && cond);
        if (!full || !cond) return;
        CHECK(cr_blocktri_radau_condense(cond, NC, &err) == CR_OK);
        CHECK(cr_blocktri_radau_condense(cond, NC, &err) == CR_BAD_INPUT); /* once */
        cr_blocktri_radau_set_filled(cond); /* cd_jac writes every block */
        cr_radau_linsys lf = cr_blocktri_radau_linsys(full), lc = cr_blocktri_radau_linsys(cond);
        CHECK(lf.jacobian(0, y, y, full) == CR_OK && lc.jacobian(0, y, y, cond) == CR_OK);
        CHECK(cond->bq == B - NC && cond->real->b == B - NC && cond->cplx->b == B - NC);
        double worst = 0;
        for (int rep = 0; rep < 3; ++rep) {
            worst = fmax(worst, solve_difference(&lf, full, &lc, cond, 0.7 + rep, 1.3 * rep - 0.4, N, &s));
        }
        printf("    condensed (%d of %d unknowns per block) against full solves: max relative difference %.1e\n", NC, B,
               worst);
        CHECK(worst < 1e-12);
        /* a non-finite J_λq entry is found through J_c; a Jacobian outside the pattern is refused,
         * naming the block */
        d.nan_at = 3;
        CHECK(lc.jacobian(0, y, y, cond) == CR_NONFINITE);
        d.nan_at = -1;
        d.off = 4;
        CHECK(lc.jacobian(0, y, y, cond) == CR_BAD_INPUT);
        CHECK(cond->bad_block == 4);
        cr_blocktri_radau_destroy(full);
        cr_blocktri_radau_destroy(cond);
        /* refused: a condensed row with mass, nothing left, banded */
        cr_blocktri_radau *bad = cr_blocktri_radau_create(CD_N, B, mass, 0, cd_jac, &d, &err);
        CHECK(cr_blocktri_radau_condense(bad, NC + 1, &err) == CR_BAD_INPUT);
        CHECK(cr_blocktri_radau_condense(bad, B, &err) == CR_BAD_INPUT);
        cr_blocktri_radau_destroy(bad);
        bad = cr_blocktri_radau_create(CD_N, B, mass, 1, cd_jac, &d, &err);
        CHECK(cr_blocktri_radau_condense(bad, NC, &err) == CR_BAD_INPUT);
        cr_blocktri_radau_destroy(bad);
    }
}

/* ------------------------------------------------------------------------ */
/* Kinematic condensation (cr_blocktri_radau_condense_kinematics)           */
/* ------------------------------------------------------------------------ */

/* The dynamics' pattern at b = 19: rows 0..2 ṙ = v (J = I on v), rows 3..6 ṗ = ½ p ⊗ Ω
 * (J_pp = ½ [[0, −Ωᵀ], [Ω, −Ω~]], J_pΩ a random 4×3), both on the node's own block only;
 * velocity rows random on the positions, quaternions and velocities of blocks i−1..i+1
 * and on the stresses of elements i−1 and i; stresses as in cd_jac. Node `held` has
 * positions and quaternion held (rows −e_r, mass 0), node held_v also its velocities;
 * partial ≥ 0 holds one quaternion component of that node only (outside the 6×6 pattern). */
typedef struct kd_data {
    uint64_t seed;
    int held, held_v, partial;
} kd_data;

#define KD_N 9
#define KD_B 19
static cr_status kd_jac(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    kd_data *d = user;
    uint64_t s = d->seed;
    const int B = KD_B;
    for (int i = 0; i < KD_N; ++i) {
        double *D = cr_blocktri_D(J, i), *L = i > 0 ? cr_blocktri_L(J, i) : NULL,
               *U = i < KD_N - 1 ? cr_blocktri_U(J, i) : NULL;
        for (int r = 0; r < B; ++r)
            for (int c = 0; c < B; ++c) {
                int lr = r >= 13, lc = c >= 13, kr = r < 7;
                D[r * B + c] = lr && lc ? (r == c ? 1.0 / (1.0 + urand(&s) * urand(&s) + 1.5) : 0.0)
                               : kr     ? 0.0
                                        : urand(&s) + (r == c ? 0.5 * B : 0.0);
                if (L) L[r * B + c] = lr || kr ? 0.0 : 0.5 * urand(&s);
                if (U) U[r * B + c] = lc || kr ? 0.0 : 0.5 * urand(&s);
            }
        for (int k = 0; k < 3; ++k) D[k * B + 7 + k] = 1.0;
        double o[3] = {3 * urand(&s), 3 * urand(&s), 3 * urand(&s)};
        double ot[3][3] = {{0, -o[2], o[1]}, {o[2], 0, -o[0]}, {-o[1], o[0], 0}};
        for (int c = 0; c < 3; ++c) {
            D[3 * B + 4 + c] = -0.5 * o[c];
            D[(4 + c) * B + 3] = 0.5 * o[c];
            for (int r = 0; r < 3; ++r) D[(4 + r) * B + 4 + c] = -0.5 * ot[r][c];
        }
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 3; ++c) D[(3 + r) * B + 10 + c] = 0.5 * urand(&s);
        int nh = i == d->held || i == d->held_v ? (i == d->held_v ? 13 : 7) : i == d->partial ? 1 : 0;
        for (int q = 0; q < nh; ++q) {
            int r = i == d->partial ? 4 : q;
            for (int c = 0; c < B; ++c) {
                D[r * B + c] = c == r ? -1.0 : 0.0;
                if (L) L[r * B + c] = 0.0;
                if (U) U[r * B + c] = 0.0;
            }
        }
    }
    return CR_OK;
}

static void test_kinematic_condensation_vs_full(void)
{
    for (int z = 0; z < 2; ++z) {
        const int B = KD_B, N = KD_N * B;
        kd_data d = {.seed = 99, .held = 0, .held_v = 5, .partial = z ? 3 : -1};
        double mass[KD_N * KD_B], y[KD_N * KD_B] = {0};
        uint64_t s = 11;
        for (int i = 0; i < KD_N; ++i)
            for (int r = 0; r < B; ++r) {
                int held = (i == d.held && r < 7) || (i == d.held_v && r < 13) || (i == d.partial && r == 4);
                mass[i * B + r] = r >= 13 || held ? 0.0 : r < 7 ? 1.0 : 0.5 + fabs(urand(&s));
            }
        cr_error err = {0};
        cr_blocktri_radau *full = cr_blocktri_radau_create(KD_N, B, mass, 0, kd_jac, &d, &err);
        cr_blocktri_radau *cond = cr_blocktri_radau_create(KD_N, B, mass, 0, kd_jac, &d, &err);
        CHECK(full && cond);
        if (!full || !cond) return;
        CHECK(cr_blocktri_radau_condense_kinematics(cond, &err) == CR_BAD_INPUT); /* not condensed to 13 yet */
        CHECK(cr_blocktri_radau_condense(cond, 6, &err) == CR_OK);
        CHECK(cr_blocktri_radau_condense_kinematics(cond, &err) == CR_OK);
        CHECK(cr_blocktri_radau_condense_kinematics(cond, &err) == CR_BAD_INPUT); /* once */
        cr_blocktri_radau_set_filled(cond);
        cr_radau_linsys lf = cr_blocktri_radau_linsys(full), lc = cr_blocktri_radau_linsys(cond);
        CHECK(lf.jacobian(0, y, y, full) == CR_OK && lc.jacobian(0, y, y, cond) == CR_OK);
        CHECK(cond->kin_ok == !z); /* a partly held quaternion: the 13×13 systems */
        double worst = 0;
        for (int rep = 0; rep < 4; ++rep) {
            worst = fmax(worst, solve_difference(&lf, full, &lc, cond, 0.3 + 2.0 * rep, 1.7 * rep + 0.2, N, &s));
            CHECK(cond->real6_used == !z && cond->cplx6_used == !z);
        }
        printf("    kinematics condensed (%s) against full solves: max relative difference %.1e\n",
               z ? "partly held quaternion: 13x13 fallback" : "6x6 in the velocities", worst);
        CHECK(worst < 1e-11);
        cr_blocktri_radau_destroy(full);
        cr_blocktri_radau_destroy(cond);
    }
}

CHECK_MAIN(CASE(test_shifted_real_vs_dgesv), CASE(test_shifted_complex_vs_zgesv), CASE(test_complex_general_vs_zgesv),
           CASE(test_pivoting_zero_diagonal), CASE(test_singular_reports_block), CASE(test_banded_when_block_singular),
           CASE(test_complex_extreme_scaling), CASE(test_radau_hooks_damped_chain), CASE(test_radau_hooks_errors),
           CASE(test_condensed_hooks_vs_full), CASE(test_kinematic_condensation_vs_full), CASE(test_timing_n800_b19))
