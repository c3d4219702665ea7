/* Block Thomas algorithm. Elimination runs from block 0 to n-1; the Schur
 * complements D_i - L_i D_{i-1}^{-1} U_{i-1} are the tangents of the sub-chain
 * 0..i with node i+1 held fixed, invertible for a well-posed rod, so pivoting
 * within the diagonal blocks suffices (checked against LAPACK dgbsv in tests). */
#include "blocktri.h"
#include "dense_lu.h"
#include "bigalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
#include <immintrin.h> /* the AVX2 kernels below (target attributes; the build itself needs no -mavx) */
#endif

cr_blocktri *cr_blocktri_create(int n, int b)
{
    if (n < 1 || b < 1 || b > 64) return NULL; /* CR_BLOCKTRI_MAX_B */
    cr_blocktri *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    size_t bb = (size_t)n * b * b;
    m->n = n;
    m->b = b;
    /* the three block arrays in one allocation (huge pages for long rods: bigalloc.h);
     * diag owns it */
    m->diag = bb <= ((size_t)-1 / sizeof(double)) / 3 ? cr_big_calloc(3 * bb) : NULL;
    m->lower = m->diag ? m->diag + bb : NULL;
    m->upper = m->diag ? m->diag + 2 * bb : NULL;
    m->pivot = calloc((size_t)n * b, sizeof(int));
    if (!m->diag || !m->pivot) {
        cr_blocktri_destroy(m);
        return NULL;
    }
    return m;
}

extern void dgbtrf_(const int *m, const int *n, const int *kl, const int *ku, double *ab, const int *ldab, int *ipiv,
                    int *info);
extern void dgbtrs_(const char *trans, const int *n, const int *kl, const int *ku, const int *nrhs, const double *ab,
                    const int *ldab, const int *ipiv, double *b, const int *ldb, int *info);

cr_blocktri *cr_blocktri_create_banded(int n, int b)
{
    cr_blocktri *m = cr_blocktri_create(n, b);
    if (!m) return NULL;
    int k = 2 * b - 1;
    m->banded = 1;
    m->band = malloc((size_t)(3 * k + 1) * n * b * sizeof(double));
    m->band_pivot = malloc((size_t)n * b * sizeof(int));
    if (!m->band || !m->band_pivot) {
        cr_blocktri_destroy(m);
        return NULL;
    }
    return m;
}

/* LAPACK band storage: A(r, c) at band[c * ldab + kl + ku + r - c], kl = ku = 2b - 1. */
static cr_status factor_banded(cr_blocktri *m, int *bad_block)
{
    int b = m->b, N = m->n * b, k = 2 * b - 1, ldab = 3 * k + 1, info = 0;
    size_t bb = (size_t)b * b;
    memset(m->band, 0, (size_t)ldab * N * sizeof(double));
    for (int i = 0; i < m->n; ++i)
        for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
                int row = i * b + r;
                const double *src[3] = {i > 0 ? m->lower + i * bb : NULL, m->diag + i * bb,
                                        i < m->n - 1 ? m->upper + i * bb : NULL};
                for (int j = 0; j < 3; ++j) {
                    if (!src[j]) continue;
                    int col = (i - 1 + j) * b + c;
                    m->band[(size_t)col * ldab + 2 * k + row - col] = src[j][r * b + c];
                }
            }
    dgbtrf_(&N, &N, &k, &k, m->band, &ldab, m->band_pivot, &info);
    if (info != 0) {
        if (bad_block) *bad_block = info > 0 ? (info - 1) / b : 0;
        return CR_SINGULAR;
    }
    m->factored = 1;
    return CR_OK;
}

void cr_blocktri_destroy(cr_blocktri *m)
{
    if (!m) return;
    free(m->band);
    free(m->band_pivot);
    free(m->diag); /* lower and upper too */
    free(m->pivot);
    free(m);
}

void cr_blocktri_zero(cr_blocktri *m)
{
    size_t bb = (size_t)m->n * m->b * m->b;
    memset(m->diag, 0, bb * sizeof(double));
    memset(m->lower, 0, bb * sizeof(double));
    memset(m->upper, 0, bb * sizeof(double));
    m->factored = 0;
}

void cr_blocktri_reset_rows(cr_blocktri *m, int i, int rows, int identity)
{
    int b = m->b;
    double *blocks[3] = {cr_blocktri_D(m, i), i > 0 ? cr_blocktri_L(m, i) : NULL,
                         i < m->n - 1 ? cr_blocktri_U(m, i) : NULL};
    for (int k = 0; k < 3; ++k)
        if (blocks[k]) memset(blocks[k], 0, (size_t)rows * b * sizeof(double));
    if (identity)
        for (int r = 0; r < rows; ++r) blocks[0][r * b + r] = 1.0;
}

static void block_gemv_add(int b, const double *a, const double *x, double *y)
{
    for (int i = 0; i < b; ++i) {
        double s = 0;
        for (int j = 0; j < b; ++j) s += a[i * b + j] * x[j];
        y[i] += s;
    }
}

void cr_blocktri_matvec(const cr_blocktri *m, const double *x, double *y)
{
    int n = m->n, b = m->b;
    size_t bb = (size_t)b * b;
    memset(y, 0, (size_t)n * b * sizeof(double));
    for (int i = 0; i < n; ++i) {
        block_gemv_add(b, m->diag + i * bb, x + (size_t)i * b, y + (size_t)i * b);
        if (i > 0) block_gemv_add(b, m->lower + i * bb, x + (size_t)(i - 1) * b, y + (size_t)i * b);
        if (i < n - 1) block_gemv_add(b, m->upper + i * bb, x + (size_t)(i + 1) * b, y + (size_t)i * b);
    }
}

/* The kernels below take the block size as an argument and are force-inlined into
 * wrappers for the common sizes, so the compiler unrolls them for b = 3 and 7. */
#define CR_BLOCKTRI_MAX_B 64 /* largest block handled by the Thomas kernels */
#if defined(__GNUC__) && !defined(__clang__)
#define CR_UNROLL _Pragma("GCC unroll 8")
#else
#define CR_UNROLL
#endif
#if defined(__GNUC__)
#define CR_INLINE static inline __attribute__((always_inline))
#else
#define CR_INLINE static inline
#endif


/* Solves (LU) X = B for `nrhs` right-hand sides stored row-major as b×nrhs. */
CR_INLINE void lu_solve_ex(int b, const double *restrict a, const int *restrict piv, double *restrict x, int nrhs,
                           int reciprocal)
{
    for (int k = 0; k < b; ++k)
        if (piv[k] != k)
            for (int j = 0; j < nrhs; ++j) {
                double t = x[k * nrhs + j];
                x[k * nrhs + j] = x[piv[k] * nrhs + j];
                x[piv[k] * nrhs + j] = t;
            }
    /* no zero-skipping branches: the blocks are dense and branch-free loops vectorize */
    double acc[CR_BLOCKTRI_MAX_B]; /* the row being eliminated, kept in registers */
    CR_UNROLL
    for (int i = 1; i < b; ++i) {
        for (int j = 0; j < nrhs; ++j) acc[j] = x[i * nrhs + j];
        for (int k = 0; k < i; ++k) {
            double f = a[i * b + k];
            for (int j = 0; j < nrhs; ++j) acc[j] -= f * x[k * nrhs + j];
        }
        for (int j = 0; j < nrhs; ++j) x[i * nrhs + j] = acc[j];
    }
    CR_UNROLL
    for (int i = b - 1; i >= 0; --i) {
        for (int j = 0; j < nrhs; ++j) acc[j] = x[i * nrhs + j];
        for (int k = i + 1; k < b; ++k) {
            double f = a[i * b + k];
            for (int j = 0; j < nrhs; ++j) acc[j] -= f * x[k * nrhs + j];
        }
        double inv = reciprocal ? a[i * b + i] : 1.0 / a[i * b + i];
        for (int j = 0; j < nrhs; ++j) x[i * nrhs + j] = acc[j] * inv;
    }
}

/* the blocks of cr_dense_lu_factor */
CR_INLINE void lu_solve(int b, const double *restrict a, const int *restrict piv, double *restrict x, int nrhs)
{
    lu_solve_ex(b, a, piv, x, nrhs, 0);
}

CR_INLINE cr_status factor_thomas(cr_blocktri *m, const int b, int *bad_block)
{
    int n = m->n;
    size_t bb = (size_t)b * b;
    for (int i = 0; i < n; ++i) {
        double *restrict D = m->diag + i * bb;
        if (i > 0) { /* D_i -= L_i X_{i-1}, X_{i-1} = D_{i-1}^{-1} U_{i-1} stored in U_{i-1} */
            const double *restrict L = m->lower + i * bb, *restrict X = m->upper + (i - 1) * bb;
            for (int r = 0; r < b; ++r) { /* one row at a time, kept in registers */
                double acc[CR_BLOCKTRI_MAX_B];
                for (int c = 0; c < b; ++c) acc[c] = D[r * b + c];
                for (int k = 0; k < b; ++k) {
                    double f = L[r * b + k];
                    for (int c = 0; c < b; ++c) acc[c] -= f * X[k * b + c];
                }
                for (int c = 0; c < b; ++c) D[r * b + c] = acc[c];
            }
        }
        if (cr_dense_lu_factor(b, D, m->pivot + (size_t)i * b) != 0) {
            if (bad_block) *bad_block = i;
            return CR_SINGULAR;
        }
        if (i < n - 1) lu_solve(b, D, m->pivot + (size_t)i * b, m->upper + i * bb, b);
    }
    m->factored = 1;
    return CR_OK;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
#define CR_DISPATCH_AVX2 1 /* the AVX2 + FMA builds of the kernels below, chosen at run time */
#endif
#if defined(__GNUC__) && (defined(__AVX__) || defined(CR_DISPATCH_AVX2))
/* The 7×7 factorization (statics) with rows held as two 4-wide vectors (the 8th lane
 * is zero padding): the Schur update D_i -= L_i X_{i-1} and X_i = D_i^{-1} U_i are
 * then 7 × 2 vector multiply-adds per row instead of loops over 7 columns, and
 * X_{i-1} stays in registers from one block to the next. GCC vector extensions, used
 * only with AVX (the AVX2 build below, or -mavx): lowered to SSE2 they are slower than
 * the scalar loops of factor_thomas. */
typedef double cr_v4 __attribute__((vector_size(32)));
/* a row of 7 as columns 0..3 and 4..6 (and a zero), from two loads that stay inside it
 * (columns 0..3 and 3..6) and a lane rotation: element-wise construction of the vectors
 * was ~10 instructions a row */
typedef double cr_v4u __attribute__((vector_size(32), aligned(8)));
typedef long long cr_v4i __attribute__((vector_size(32)));
#define V4_ROW(lo, hi, p)                                                                                              \
    ((lo) = *(const cr_v4u *)(p), (hi) = __builtin_shuffle(*(const cr_v4u *)((p) + 3), (cr_v4i){1, 2, 3, 0}),         \
     (hi)[3] = 0.0)
#define V4_STORE(p, lo, hi)                                                                                            \
    ((p)[0] = (lo)[0], (p)[1] = (lo)[1], (p)[2] = (lo)[2], (p)[3] = (lo)[3], (p)[4] = (hi)[0], (p)[5] = (hi)[1],       \
     (p)[6] = (hi)[2])

/* A factorization with one right side (cr_blocktri_factor_solve, 3×3 blocks: the position
 * correction, one solve per factorization): block row i's forward step right after its
 * elimination, y_i = D̃_i⁻¹ (x_i - L_i y_{i-1}), whose chain from row to row runs beside the
 * elimination's instead of in a sweep of its own afterwards (factor + solve of the tendon
 * manipulator's correction 51 -> 35 ns a block row; chunk_factor3); then the back
 * substitution x_i = y_i - X_i x_{i+1}. Not for 7×7: factor7 and solve7_avx2 are faster
 * than this scalar step in the elimination's loop. */
CR_INLINE void back_sweep(const cr_blocktri *m, const int b, double *restrict x)
{
    const size_t bb = (size_t)b * b;
    for (int i = m->n - 2; i >= 0; --i) {
        const double *X = m->upper + i * bb, *xn = x + (size_t)(i + 1) * b;
        double *xi = x + (size_t)i * b;
        for (int r = 0; r < b; ++r) {
            double s = 0;
            for (int k = 0; k < b; ++k) s += X[r * b + k] * xn[k];
            xi[r] -= s;
        }
    }
}

/* The row order of a factored 7×7 block: row k of P A is row perm[k] of A, from the
 * sequence of interchanges piv (cr_dense_lu_factor) */
CR_INLINE void perm7(const int *restrict piv, int *restrict perm)
{
    for (int k = 0; k < 7; ++k) perm[k] = k;
    for (int k = 0; k < 7; ++k) {
        const int p = piv[k], t = perm[k];
        perm[k] = perm[p];
        perm[p] = t;
    }
}

/* The block Thomas factorization of 7×7 blocks (statics), X_i = D̃_i⁻¹ U_i in place of U_i,
 * with the reciprocal pivots kept (reciprocal_pivots). (Keeping M_i = D̃_i⁻¹ L_i in place of
 * L_i as well made a forward sweep's chain one block product a row, twice as fast, but
 * the solve was no longer backward stable: the residual of a block row then carries
 * ε |D̃_i| |M_i| |y|, large where D̃_i is ill-conditioned, and the stability estimate's double
 * eigenvalue of a column split by 10⁻⁶ instead of 10⁻¹¹: tests/test_stability.c.) */
CR_INLINE cr_status factor7(cr_blocktri *m, int *bad_block)
{
    const int n = m->n;
    m->reciprocal_pivots = 0;
    cr_v4 X0[7], X1[7]; /* rows of X_{i-1} */
    for (int r = 0; r < 7; ++r) X0[r] = X1[r] = (cr_v4){0, 0, 0, 0};
    for (int i = 0; i < n; ++i) {
        double *restrict D = m->diag + (size_t)i * 49;
        int *piv = m->pivot + (size_t)i * 7;
        if (i + 2 < n) /* two block rows ahead, as the chunk kernels: long rods stream from memory */
            for (size_t o = 0; o < 49; o += 8) {
                __builtin_prefetch(m->diag + (size_t)(i + 2) * 49 + o, 1);
                __builtin_prefetch(m->lower + (size_t)(i + 2) * 49 + o, 0);
                __builtin_prefetch(m->upper + (size_t)(i + 2) * 49 + o, 1);
            }
        if (i > 0) {
            const double *restrict L = m->lower + (size_t)i * 49;
            CR_UNROLL
            for (int r = 0; r < 7; ++r) {
                cr_v4 a0, a1;
                V4_ROW(a0, a1, D + r * 7);
                CR_UNROLL
                for (int k = 0; k < 7; ++k) {
                    double f = L[r * 7 + k];
                    a0 -= f * X0[k];
                    a1 -= f * X1[k];
                }
                V4_STORE(D + r * 7, a0, a1);
            }
        }
        if (cr_dense_lu_factor_ex(7, D, piv, 1) != 0) {
            if (bad_block) *bad_block = i;
            return CR_SINGULAR;
        }
        if (i == n - 1) break;
        int perm[7];
        perm7(piv, perm);
        double *restrict U = m->upper + (size_t)i * 49;
        CR_UNROLL
        for (int r = 0; r < 7; ++r) V4_ROW(X0[r], X1[r], U + perm[r] * 7); /* in the factorization's row order */
        CR_UNROLL
        for (int r = 1; r < 7; ++r) /* unit lower triangle */
            CR_UNROLL
        for (int k = 0; k < r; ++k) {
            double f = D[r * 7 + k];
            X0[r] -= f * X0[k];
            X1[r] -= f * X1[k];
        }
        CR_UNROLL
        for (int r = 6; r >= 0; --r) { /* upper triangle */
            CR_UNROLL
            for (int k = r + 1; k < 7; ++k) {
                double f = D[r * 7 + k];
                X0[r] -= f * X0[k];
                X1[r] -= f * X1[k];
            }
            double inv = D[r * 7 + r]; /* the reciprocal pivot */
            X0[r] *= inv;
            X1[r] *= inv;
            V4_STORE(U + r * 7, X0[r], X1[r]);
        }
    }
    m->factored = 1;
    m->reciprocal_pivots = 1;
    return CR_OK;
}

/* The 3×3 factorization (position correction) the same way, a row being one vector; on the
 * rows first, first + dir, ..., first + dir (len - 1) as the chunk kernels (dir = -1: the
 * roles of L and U swapped; the last row's coupling factored too when has_far), with the
 * forward steps of x fused in when x is given (factor_solve). */
CR_INLINE cr_status chunk_factor3(cr_blocktri *m, int first, int len, int dir, int has_far, int *bad_block,
                                  double *restrict x)
{
    double *prev_blocks = dir > 0 ? m->lower : m->upper, *next_blocks = dir > 0 ? m->upper : m->lower;
    cr_v4 X[3] = {{0}}; /* rows of X of the previous row */
    for (int j = 0; j < len; ++j) {
        const int i = first + dir * j;
        double *restrict D = m->diag + (size_t)i * 9;
        int *piv = m->pivot + (size_t)i * 3;
        const double *restrict L = prev_blocks + (size_t)i * 9;
        if (j > 0) {
            for (int r = 0; r < 3; ++r) {
                cr_v4 a = (cr_v4){D[r * 3], D[r * 3 + 1], D[r * 3 + 2], 0.0};
                a -= L[r * 3] * X[0] + L[r * 3 + 1] * X[1] + L[r * 3 + 2] * X[2];
                D[r * 3] = a[0], D[r * 3 + 1] = a[1], D[r * 3 + 2] = a[2];
            }
        }
        if (cr_dense_lu_factor(3, D, piv) != 0) {
            if (bad_block) *bad_block = i;
            return CR_SINGULAR;
        }
        if (x) {
            double *xi = x + (size_t)i * 3;
            if (j > 0) {
                const double *yp = xi - dir * 3;
                for (int r = 0; r < 3; ++r) {
                    double t = 0;
                    for (int k = 0; k < 3; ++k) t += L[r * 3 + k] * yp[k];
                    xi[r] -= t;
                }
            }
            lu_solve(3, D, piv, xi, 1);
        }
        if (j == len - 1 && !has_far) break;
        double *restrict U = next_blocks + (size_t)i * 9;
        int perm[3] = {0, 1, 2}; /* the rows in the factorization's order, gathered (factor7) */
        for (int k = 0; k < 3; ++k) {
            const int p = piv[k], t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        for (int r = 0; r < 3; ++r) {
            const double *q = U + perm[r] * 3;
            X[r] = (cr_v4){q[0], q[1], q[2], 0.0};
        }
        X[1] -= D[3] * X[0];
        X[2] -= D[6] * X[0] + D[7] * X[1];
        X[2] *= 1.0 / D[8];
        X[1] = (X[1] - D[5] * X[2]) * (1.0 / D[4]);
        X[0] = (X[0] - D[1] * X[1] - D[2] * X[2]) * (1.0 / D[0]);
        for (int r = 0; r < 3; ++r) U[r * 3] = X[r][0], U[r * 3 + 1] = X[r][1], U[r * 3 + 2] = X[r][2];
    }
    return CR_OK;
}

CR_INLINE cr_status factor3(cr_blocktri *m, int *bad_block, double *restrict x)
{
    cr_status st = chunk_factor3(m, 0, m->n, 1, 0, bad_block, x);
    if (st != CR_OK) return st;
    m->factored = 1;
    if (x) back_sweep(m, 3, x);
    return CR_OK;
}
#endif
/* without AVX the 4-wide vectors are lowered to slower code than the scalar loops */
#if defined(__GNUC__) && defined(__AVX__)
#define CR_FACTOR7(m, bad) factor7(m, bad)
#define CR_FACTOR3(m, bad) factor3(m, bad, NULL)
#define CR_FACTOR_SOLVE 1
#else
#define CR_FACTOR7(m, bad) factor_thomas(m, 7, bad)
#define CR_FACTOR3(m, bad) factor_thomas(m, 3, bad)
#endif

/* the forward sweep y_i = D̃_i⁻¹ (r_i − L_i y_{i−1}) and the backward x_i = y_i − X_i x_{i+1}
 * (apart for cr_blocktri_solve_forward, _backward) */
CR_INLINE void thomas_forward(const cr_blocktri *m, const int b, double *x)
{
    int n = m->n;
    size_t bb = (size_t)b * b;
    for (int i = 0; i < n; ++i) {
        double *xi = x + (size_t)i * b;
        if (i + 2 < n) /* two block rows ahead (long rods stream from memory) */
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(m->diag + (i + 2) * bb + o, 0);
                __builtin_prefetch(m->lower + (i + 2) * bb + o, 0);
            }
        if (i > 0) {
            const double *L = m->lower + i * bb, *xp = xi - b;
            for (int r = 0; r < b; ++r) {
                double s = 0;
                for (int k = 0; k < b; ++k) s += L[r * b + k] * xp[k];
                xi[r] -= s;
            }
        }
        lu_solve_ex(b, m->diag + i * bb, m->pivot + (size_t)i * b, xi, 1, m->reciprocal_pivots);
    }
}

CR_INLINE void thomas_backward(const cr_blocktri *m, const int b, double *x)
{
    int n = m->n;
    size_t bb = (size_t)b * b;
    for (int i = n - 2; i >= 0; --i) {
        double *xi = x + (size_t)i * b;
        const double *X = m->upper + i * bb, *xn = xi + b;
        if (i >= 2) /* descending rows: the hardware prefetchers follow them poorly */
            for (size_t o = 0; o < bb; o += 8) __builtin_prefetch(m->upper + (i - 2) * bb + o, 0);
        for (int r = 0; r < b; ++r) {
            double s = 0;
            for (int k = 0; k < b; ++k) s += X[r * b + k] * xn[k];
            xi[r] -= s;
        }
    }
}

CR_INLINE void solve_thomas(const cr_blocktri *m, const int b, double *x)
{
    thomas_forward(m, b, x);
    thomas_backward(m, b, x);
}

/* The 7×7 kernels (statics) also in an AVX2 + FMA build, chosen at run time: rows of
 * 7 doubles are one 4-wide, one 2-wide and one scalar fused multiply-add instead of
 * four 2-wide multiplies and subtractions (SSE2, the baseline of x86-64). Results
 * differ from the SSE2 build by round-off only. */
#ifdef CR_DISPATCH_AVX2
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static cr_status factor7_avx2(cr_blocktri *m,
                                                                                                int *bad_block)
{
    return factor7(m, bad_block);
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static cr_status factor3_avx2(cr_blocktri *m,
                                                                                                int *bad_block)
{
    return factor3(m, bad_block, NULL);
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static cr_status
factor3_solve_avx2(cr_blocktri *m, int *bad_block, double *x)
{
    return factor3(m, bad_block, x);
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void solve3_avx2(const cr_blocktri *m,
                                                                                          double *x)
{
    solve_thomas(m, 3, x);
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void forward3_avx2(const cr_blocktri *m,
                                                                                            double *x)
{
    thomas_forward(m, 3, x);
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void backward3_avx2(const cr_blocktri *m,
                                                                                             double *x)
{
    thomas_backward(m, 3, x);
}
/* x -= M v for a 7×7 block M (row-major) and a 7-vector v: each row as its columns 0..3 and
 * 3..6 (v's column 3 zeroed in the second half, so that nothing beyond the row is read and
 * column 3 counts once), and the sums of four rows at a time gathered into one vector by
 * horizontal adds. The scalar loops of solve_thomas form each row's sum one product at a
 * time (the compiler may not reorder a sum): 3.5 times the instructions. */
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static inline __m256d sum4(__m256d a, __m256d b,
                                                                                           __m256d c, __m256d d)
{
    const __m256d t0 = _mm256_hadd_pd(a, b), t1 = _mm256_hadd_pd(c, d); /* (a01, b01, a23, b23), (c01, d01, ...) */
    return _mm256_add_pd(_mm256_permute2f128_pd(t0, t1, 0x21), _mm256_blend_pd(t0, t1, 0xC));
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static inline void
sub_matvec7(const double *restrict M, const double *restrict v, double *restrict x)
{
    const __m256d vlo = _mm256_loadu_pd(v), vhi = _mm256_blend_pd(_mm256_loadu_pd(v + 3), _mm256_setzero_pd(), 1);
    __m256d p[7];
    for (int r = 0; r < 7; ++r)
        p[r] = _mm256_fmadd_pd(_mm256_loadu_pd(M + 7 * r + 3), vhi, _mm256_mul_pd(_mm256_loadu_pd(M + 7 * r), vlo));
    const __m256d s03 = sum4(p[0], p[1], p[2], p[3]), s46 = sum4(_mm256_setzero_pd(), p[4], p[5], p[6]);
    const __m256d xlo = _mm256_loadu_pd(x), xhi = _mm256_loadu_pd(x + 3); /* x3 in both: s46's lane 0 is 0 */
    _mm256_storeu_pd(x + 3, _mm256_sub_pd(xhi, s46));
    _mm256_storeu_pd(x, _mm256_sub_pd(xlo, s03));
}
/* The substitution of one factored 7×7 block (P L U, reciprocal pivots), (P L U) y = r,
 * with r in two vectors (columns 0..3 and 3..6) and y returned in two (columns 0..3, and
 * 3..6 with column 3 zeroed): the row interchanges become a gather (the permutation built
 * from the pivots without branches, off the critical path), and the next block's product
 * L_{i+1} y needs no reload of y from memory. (lu_solve's swaps in memory, and the vector
 * loads of its scalar stores that the next block made, put store-forwarding stalls on the
 * sweep's dependency chain.) */
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static inline void
lu7_solve_vec(const double *restrict a, const int *restrict piv, __m256d rlo, __m256d rhi, __m256d *ylo,
              __m256d *yhi)
{
    double r[8] __attribute__((aligned(32)));
    _mm256_store_pd(r + 4, _mm256_permute4x64_pd(rhi, 0x39)); /* columns 4..6 (lane 3: column 3 again) */
    _mm256_store_pd(r, rlo);
    int perm[7] = {0, 1, 2, 3, 4, 5, 6};
    for (int k = 0; k < 7; ++k) {
        const int p = piv[k], t = perm[k];
        perm[k] = perm[p];
        perm[p] = t;
    }
    double y[7];
    CR_UNROLL
    for (int i = 0; i < 7; ++i) {
        double acc = r[perm[i]];
        for (int k = 0; k < i; ++k) acc -= a[i * 7 + k] * y[k];
        y[i] = acc;
    }
    CR_UNROLL
    for (int i = 6; i >= 0; --i) {
        double acc = y[i];
        for (int k = i + 1; k < 7; ++k) acc -= a[i * 7 + k] * y[k];
        y[i] = acc * a[i * 7 + i]; /* the reciprocal pivot */
    }
    *ylo = _mm256_set_pd(y[3], y[2], y[1], y[0]);
    *yhi = _mm256_set_pd(y[6], y[5], y[4], 0.0);
}

/* After factor7: forward y_i = D̃_i⁻¹ (r_i - L_i y_{i-1}) with y in registers from one row to
 * the next, then back x_i = y_i - X_i x_{i+1}. */
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void forward7_avx2(const cr_blocktri *m,
                                                                                            double *x)
{
    const int n = m->n;
    __m256d vlo = _mm256_setzero_pd(), vhi = _mm256_setzero_pd(); /* y_{i-1} */
    for (int i = 0; i < n; ++i) {
        double *xi = x + (size_t)i * 7;
        if (i + 2 < n) /* two block rows ahead (long rods stream from memory) */
            for (size_t o = 0; o < 49; o += 8) {
                __builtin_prefetch(m->diag + (size_t)(i + 2) * 49 + o, 0);
                __builtin_prefetch(m->lower + (size_t)(i + 2) * 49 + o, 0);
            }
        __m256d rlo = _mm256_loadu_pd(xi), rhi = _mm256_loadu_pd(xi + 3);
        if (i > 0) {
            const double *L = m->lower + (size_t)i * 49;
            __m256d p[7];
            for (int r = 0; r < 7; ++r)
                p[r] = _mm256_fmadd_pd(_mm256_loadu_pd(L + 7 * r + 3), vhi,
                                       _mm256_mul_pd(_mm256_loadu_pd(L + 7 * r), vlo));
            rlo = _mm256_sub_pd(rlo, sum4(p[0], p[1], p[2], p[3]));
            rhi = _mm256_sub_pd(rhi, sum4(_mm256_setzero_pd(), p[4], p[5], p[6]));
        }
        lu7_solve_vec(m->diag + (size_t)i * 49, m->pivot + (size_t)i * 7, rlo, rhi, &vlo, &vhi);
        _mm256_storeu_pd(xi + 3, vhi); /* its lane 0 (column 3, zero) is overwritten next */
        _mm256_storeu_pd(xi, vlo);
    }
}

__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void backward7_avx2(const cr_blocktri *m,
                                                                                             double *x)
{
    const int n = m->n;
    for (int i = n - 2; i >= 0; --i) {
        if (i >= 2) /* descending rows: the hardware prefetchers follow them poorly */
            for (size_t o = 0; o < 49; o += 8) __builtin_prefetch(m->upper + (size_t)(i - 2) * 49 + o, 0);
        sub_matvec7(m->upper + (size_t)i * 49, x + (size_t)(i + 1) * 7, x + (size_t)i * 7);
    }
}

__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void solve7_avx2(const cr_blocktri *m,
                                                                                          double *x)
{
    if (!m->reciprocal_pivots) {
        solve_thomas(m, 7, x);
        return;
    }
    forward7_avx2(m, x);
    backward7_avx2(m, x);
}

/* a test of the CPU model data libgcc fills in at load time: cheap, and no cached
 * static that concurrent solves would race on */
static int have_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

cr_status cr_blocktri_factor(cr_blocktri *m, int *bad_block)
{
    m->reciprocal_pivots = 0; /* factor7 sets it */
    if (m->banded) return factor_banded(m, bad_block);
#ifdef CR_DISPATCH_AVX2
    if (m->b == 7 && have_avx2()) return factor7_avx2(m, bad_block);
    if (m->b == 3 && have_avx2()) return factor3_avx2(m, bad_block);
#endif
    if (m->b == 7) return CR_FACTOR7(m, bad_block);         /* statics */
    if (m->b == 3) return CR_FACTOR3(m, bad_block);         /* position correction */
    if (m->b == 19) return factor_thomas(m, 19, bad_block); /* dynamics */
    return factor_thomas(m, m->b, bad_block);
}

cr_status cr_blocktri_factor_solve(cr_blocktri *m, double *x, int *bad_block)
{
    if (!m->banded) {
        m->reciprocal_pivots = 0;
#ifdef CR_DISPATCH_AVX2
        if (m->b == 3 && have_avx2()) return factor3_solve_avx2(m, bad_block, x);
#endif
#ifdef CR_FACTOR_SOLVE
        if (m->b == 3) return factor3(m, bad_block, x);
#endif
    }
    cr_status st = cr_blocktri_factor(m, bad_block);
    if (st == CR_OK) cr_blocktri_solve(m, x);
    return st;
}

void cr_blocktri_solve(const cr_blocktri *m, double *x)
{
    if (m->banded) {
        int N = m->n * m->b, k = 2 * m->b - 1, ldab = 3 * k + 1, one = 1, info = 0;
        dgbtrs_("N", &N, &k, &k, &one, m->band, &ldab, m->band_pivot, x, &N, &info);
    } else if (m->b == 7) {
#ifdef CR_DISPATCH_AVX2
        if (have_avx2()) {
            solve7_avx2(m, x);
            return;
        }
#endif
        solve_thomas(m, 7, x);
    } else if (m->b == 3) {
#ifdef CR_DISPATCH_AVX2
        if (have_avx2()) {
            solve3_avx2(m, x);
            return;
        }
#endif
        solve_thomas(m, 3, x);
    } else if (m->b == 19) {
        solve_thomas(m, 19, x);
    } else {
        solve_thomas(m, m->b, x);
    }
}

void cr_blocktri_solve_forward(const cr_blocktri *m, double *x)
{
#ifdef CR_DISPATCH_AVX2
    if (m->b == 7 && m->reciprocal_pivots && have_avx2()) {
        forward7_avx2(m, x);
        return;
    }
    if (m->b == 3 && have_avx2()) {
        forward3_avx2(m, x);
        return;
    }
#endif
    thomas_forward(m, m->b, x);
}

void cr_blocktri_solve_backward(const cr_blocktri *m, double *x)
{
#ifdef CR_DISPATCH_AVX2
    if (m->b == 7 && m->reciprocal_pivots && have_avx2()) {
        backward7_avx2(m, x);
        return;
    }
    if (m->b == 3 && have_avx2()) {
        backward3_avx2(m, x);
        return;
    }
#endif
    thomas_backward(m, m->b, x);
}

/* ---- several right-hand sides at once (stability estimates: src/mixed/statics_stability.c) ----
 * The blocks are read once for all of them, which is what makes a block of k solves
 * cheaper than k single solves: a single solve streams n·3b² doubles of factors
 * through the cache for 2·3b² flops per block, memory-bound for long rods. The
 * right-hand sides are columns (LAPACK's layout); each block row of all of them is
 * gathered into a b×nrhs tile (row-major, so that the loops over the columns
 * vectorize), solved there and scattered back, the previous row's tile kept. */
#define SOLVE_MANY_MAX CR_BLOCKTRI_MANY_MAX

/* block row `row` of nrhs columns (x[j·ld + row·b + r]) into a b×nrhs tile and back */
CR_INLINE void tile_gather(const int b, const int nrhs, const double *restrict x, size_t ld, int row,
                           double *restrict t)
{
    for (int r = 0; r < b; ++r)
        for (int j = 0; j < nrhs; ++j) t[r * nrhs + j] = x[(size_t)j * ld + (size_t)row * b + r];
}

CR_INLINE void tile_scatter(const int b, const int nrhs, const double *restrict t, double *restrict x, size_t ld,
                            int row)
{
    for (int r = 0; r < b; ++r)
        for (int j = 0; j < nrhs; ++j) x[(size_t)j * ld + (size_t)row * b + r] = t[r * nrhs + j];
}

/* t -= A u: A b×b row-major, t and u b×nrhs tiles */
CR_INLINE void tile_mul_sub(const int b, const int nrhs, const double *restrict A, const double *restrict u,
                            double *restrict t)
{
    double acc[SOLVE_MANY_MAX];
    for (int r = 0; r < b; ++r) {
        for (int j = 0; j < nrhs; ++j) acc[j] = t[r * nrhs + j];
        for (int k = 0; k < b; ++k) {
            double f = A[r * b + k];
            for (int j = 0; j < nrhs; ++j) acc[j] -= f * u[k * nrhs + j];
        }
        for (int j = 0; j < nrhs; ++j) t[r * nrhs + j] = acc[j];
    }
}

CR_INLINE void solve_thomas_many(const cr_blocktri *m, const int b, double *restrict x, size_t ld, int nrhs)
{
    const int n = m->n;
    const size_t bb = (size_t)b * b;
    double tiles[2][CR_BLOCKTRI_MAX_B * SOLVE_MANY_MAX];
    int cur = 0;
    for (int i = 0; i < n; ++i) {
        double *restrict t = tiles[cur];
        if (i + 2 < n) { /* two block rows ahead, as the chunk kernels */
            const size_t ahead = (size_t)(i + 2) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(m->diag + ahead + o, 0);
                __builtin_prefetch(m->lower + ahead + o, 0);
            }
            for (int q = 0; q < nrhs; ++q) __builtin_prefetch(x + (size_t)q * ld + (size_t)(i + 2) * b, 1);
        }
        tile_gather(b, nrhs, x, ld, i, t);
        if (i > 0) tile_mul_sub(b, nrhs, m->lower + i * bb, tiles[1 - cur], t);
        lu_solve_ex(b, m->diag + i * bb, m->pivot + (size_t)i * b, t, nrhs, m->reciprocal_pivots);
        tile_scatter(b, nrhs, t, x, ld, i);
        cur = 1 - cur;
    }
    /* tiles[1 - cur] holds the last row's solution */
    for (int i = n - 2; i >= 0; --i) {
        double *restrict t = tiles[cur];
        if (i >= 2) { /* descending rows: the hardware prefetchers follow them poorly */
            const size_t ahead = (size_t)(i - 2) * bb;
            for (size_t o = 0; o < bb; o += 8) __builtin_prefetch(m->upper + ahead + o, 0);
            for (int q = 0; q < nrhs; ++q) __builtin_prefetch(x + (size_t)q * ld + (size_t)(i - 2) * b, 1);
        }
        tile_gather(b, nrhs, x, ld, i, t);
        tile_mul_sub(b, nrhs, m->upper + i * bb, tiles[1 - cur], t);
        tile_scatter(b, nrhs, t, x, ld, i);
        cur = 1 - cur;
    }
}

/* the statics' blocks with the stability estimate's default block of 6 vectors (and 8):
 * constant trip counts, which the compiler unrolls and vectorizes */
#ifdef CR_DISPATCH_AVX2
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void
solve7x6_avx2(const cr_blocktri *m, double *x, size_t ld)
{
    solve_thomas_many(m, 7, x, ld, 6);
}
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) static void
solve7x8_avx2(const cr_blocktri *m, double *x, size_t ld)
{
    solve_thomas_many(m, 7, x, ld, 8);
}
#endif
static void solve7x6(const cr_blocktri *m, double *x, size_t ld)
{
#ifdef CR_DISPATCH_AVX2
    if (have_avx2()) {
        solve7x6_avx2(m, x, ld);
        return;
    }
#endif
    solve_thomas_many(m, 7, x, ld, 6);
}
static void solve7x8(const cr_blocktri *m, double *x, size_t ld)
{
#ifdef CR_DISPATCH_AVX2
    if (have_avx2()) {
        solve7x8_avx2(m, x, ld);
        return;
    }
#endif
    solve_thomas_many(m, 7, x, ld, 8);
}

void cr_blocktri_solve_many(const cr_blocktri *m, double *x, int nrhs)
{
    const size_t N = (size_t)m->n * m->b;
    if (nrhs <= 0) return;
    if (m->banded) {
        int n = (int)N, k = 2 * m->b - 1, ldab = 3 * k + 1, info = 0;
        dgbtrs_("N", &n, &k, &k, &nrhs, m->band, &ldab, m->band_pivot, x, &n, &info);
        return;
    }
    for (int j0 = 0; j0 < nrhs; j0 += SOLVE_MANY_MAX) { /* tiles of at most SOLVE_MANY_MAX columns */
        int c = nrhs - j0 < SOLVE_MANY_MAX ? nrhs - j0 : SOLVE_MANY_MAX;
        double *xj = x + (size_t)j0 * N;
        if (m->b == 7 && c == 6) solve7x6(m, xj, N);
        else if (m->b == 7 && c == 8) solve7x8(m, xj, N);
        else if (m->b == 7) solve_thomas_many(m, 7, xj, N, c);
        else solve_thomas_many(m, m->b, xj, N, c);
    }
}

/* ---- chunk kernels of the partitioned solver (blocktri_partitioned.c) ----
 * Block Thomas on the rows first, first + dir, ..., first + dir (len - 1) of m: dir = +1
 * eliminates top-down as cr_blocktri_factor does, dir = -1 bottom-up (the roles of L and
 * U swapped). X_j = D̃_j^{-1} (coupling to the next row) is stored in place of that
 * coupling block (U for dir = +1, L for dir = -1); the last row's coupling (to the far
 * separator) too when has_far. With G (a chunk with a separator before its first row):
 * G_j = D̃_j^{-1} (fill-in coupling of row j to that separator) in G's block of the row,
 * and the first row's dependence on both separators, x_first = ŷ - gh x_near - zh x_far,
 * in gh and zh (b×b each). */
CR_INLINE void block_mul_sub(int b, const double *restrict A, const double *restrict B, double *restrict C)
{
    /* C -= A B, one row of C at a time in registers */
    for (int r = 0; r < b; ++r) {
        double acc[CR_BLOCKTRI_MAX_B];
        for (int c = 0; c < b; ++c) acc[c] = C[r * b + c];
        for (int k = 0; k < b; ++k) {
            double f = A[r * b + k];
            for (int c = 0; c < b; ++c) acc[c] -= f * B[k * b + c];
        }
        for (int c = 0; c < b; ++c) C[r * b + c] = acc[c];
    }
}

CR_INLINE void block_gemv_sub(int b, const double *restrict A, const double *restrict x, double *restrict y)
{
    for (int r = 0; r < b; ++r) {
        double s = 0;
        for (int k = 0; k < b; ++k) s += A[r * b + k] * x[k];
        y[r] -= s;
    }
}

CR_INLINE cr_status chunk_factor(cr_blocktri *m, const int b, int first, int len, int dir, int has_far, double *G,
                                 double *gh, double *zh, int *bad_block, const int recip)
{
    const size_t bb = (size_t)b * b;
    double *prev_blocks = dir > 0 ? m->lower : m->upper, *next_blocks = dir > 0 ? m->upper : m->lower;
    for (int j = 0; j < len; ++j) {
        const int r = first + dir * j;
        double *D = m->diag + r * bb, *P = prev_blocks + r * bb, *N = next_blocks + r * bb;
        int *piv = m->pivot + (size_t)r * b;
        if (j + 2 < len) { /* the hardware prefetchers follow descending rows (dir = -1) poorly */
            const size_t ahead = (size_t)(r + 2 * dir) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(m->diag + ahead + o, 1);
                __builtin_prefetch(prev_blocks + ahead + o, 0);
                __builtin_prefetch(next_blocks + ahead + o, 1);
            }
        }
        if (j > 0) block_mul_sub(b, P, next_blocks + (r - dir) * bb, D); /* D̃ = D - P X_{j-1} */
        if (cr_dense_lu_factor_ex(b, D, piv, recip) != 0) {
            if (bad_block) *bad_block = r;
            return CR_SINGULAR;
        }
        if (j < len - 1 || has_far) lu_solve_ex(b, D, piv, N, b, recip);
        if (G) {
            double *Gj = G + r * bb;
            if (j == 0) {
                memcpy(Gj, P, bb * sizeof(double));
            } else {
                memset(Gj, 0, bb * sizeof(double));
                block_mul_sub(b, P, G + (r - dir) * bb, Gj); /* -P G_{j-1} */
            }
            lu_solve_ex(b, D, piv, Gj, b, recip);
        }
    }
    if (G) { /* back through the chunk: gh_j = G_j - X_j gh_{j+1}, zh_j = -X_j zh_{j+1} */
        const int last = first + dir * (len - 1);
        double t[CR_BLOCKTRI_MAX_B * CR_BLOCKTRI_MAX_B];
        memcpy(gh, G + last * bb, bb * sizeof(double));
        memcpy(zh, next_blocks + last * bb, bb * sizeof(double));
        for (int j = len - 2; j >= 0; --j) {
            const int r = first + dir * j;
            const double *X = next_blocks + r * bb;
            memcpy(t, G + r * bb, bb * sizeof(double));
            block_mul_sub(b, X, gh, t);
            memcpy(gh, t, bb * sizeof(double));
            memset(t, 0, bb * sizeof(double));
            block_mul_sub(b, X, zh, t);
            memcpy(zh, t, bb * sizeof(double));
        }
    }
    return CR_OK;
}

/* An end chunk's elimination with one right side (cr_blocktri_part_factor_solve: the
 * position correction on the threads): chunk_factor and chunk_forward in one pass, each
 * row's forward step right after its elimination, as factor3 does for the serial solve. */
CR_INLINE cr_status chunk_factor_solve(cr_blocktri *m, const int b, int first, int len, int dir, int has_far,
                                       double *restrict x, int *bad_block, const int recip)
{
    const size_t bb = (size_t)b * b;
    double *prev_blocks = dir > 0 ? m->lower : m->upper, *next_blocks = dir > 0 ? m->upper : m->lower;
    for (int j = 0; j < len; ++j) {
        const int r = first + dir * j;
        double *D = m->diag + r * bb, *P = prev_blocks + r * bb, *N = next_blocks + r * bb, *xi = x + (size_t)r * b;
        int *piv = m->pivot + (size_t)r * b;
        if (j + 2 < len) {
            const size_t ahead = (size_t)(r + 2 * dir) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(m->diag + ahead + o, 1);
                __builtin_prefetch(prev_blocks + ahead + o, 0);
                __builtin_prefetch(next_blocks + ahead + o, 1);
            }
        }
        if (j > 0) {
            block_mul_sub(b, P, next_blocks + (r - dir) * bb, D); /* D̃ = D - P X_{j-1} */
            block_gemv_sub(b, P, xi - dir * b, xi);
        }
        if (cr_dense_lu_factor_ex(b, D, piv, recip) != 0) {
            if (bad_block) *bad_block = r;
            return CR_SINGULAR;
        }
        lu_solve_ex(b, D, piv, xi, 1, recip);
        if (j < len - 1 || has_far) lu_solve_ex(b, D, piv, N, b, recip);
    }
    return CR_OK;
}

/* ŷ of a middle chunk's first row (its solution with both separators zero), after its
 * forward sweep */
CR_INLINE void chunk_forward_spike(const cr_blocktri *m, const int b, int first, int len, int dir, const double *x,
                                   double *yh)
{
    const size_t bb = (size_t)b * b;
    const double *next_blocks = dir > 0 ? m->upper : m->lower;
    double t[CR_BLOCKTRI_MAX_B];
    const int last = first + dir * (len - 1);
    memcpy(yh, x + (size_t)last * b, b * sizeof(double));
    for (int j = len - 2; j >= 0; --j) {
        const int r = first + dir * j;
        memcpy(t, x + (size_t)r * b, b * sizeof(double));
        block_gemv_sub(b, next_blocks + r * bb, yh, t);
        memcpy(yh, t, b * sizeof(double));
    }
}

/* Forward sweep of a right-hand side over a factored chunk: y in place of x's rows.
 * With G, yh gets ŷ of the first row (the chunk's solution with both separators zero). */
CR_INLINE void chunk_forward(const cr_blocktri *m, const int b, int first, int len, int dir, const double *G,
                             double *x, double *yh)
{
    const size_t bb = (size_t)b * b;
    const double *prev_blocks = dir > 0 ? m->lower : m->upper;
    for (int j = 0; j < len; ++j) {
        const int r = first + dir * j;
        double *xi = x + (size_t)r * b;
        if (j + 2 < len) {
            const size_t ahead = (size_t)(r + 2 * dir) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(m->diag + ahead + o, 0);
                __builtin_prefetch(prev_blocks + ahead + o, 0);
            }
        }
        if (j > 0) block_gemv_sub(b, prev_blocks + r * bb, xi - dir * b, xi);
        lu_solve(b, m->diag + r * bb, m->pivot + (size_t)r * b, xi, 1);
    }
    if (G) chunk_forward_spike(m, b, first, len, dir, x, yh);
}

/* Back-substitution over a chunk once its separators are known: x_far (row
 * first + dir len) when has_far, x_near (row first - dir) when G. */
CR_INLINE void chunk_backward(const cr_blocktri *m, const int b, int first, int len, int dir, int has_far,
                              const double *G, double *x)
{
    const size_t bb = (size_t)b * b;
    const double *next_blocks = dir > 0 ? m->upper : m->lower;
    const double *xnear = G ? x + (size_t)(first - dir) * b : NULL;
    for (int j = len - 1; j >= 0; --j) {
        const int r = first + dir * j;
        double *xi = x + (size_t)r * b;
        if (j >= 2) {
            const size_t ahead = (size_t)(r - 2 * dir) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(next_blocks + ahead + o, 0);
                if (G) __builtin_prefetch(G + ahead + o, 0);
            }
        }
        if (j < len - 1 || has_far) block_gemv_sub(b, next_blocks + r * bb, xi + dir * b, xi);
        if (G) block_gemv_sub(b, G + r * bb, xnear, xi);
    }
}

/* The chunk sweeps for nrhs ≤ CR_BLOCKTRI_MANY_MAX right-hand sides at once (column j at
 * x + j·ld), on solve_thomas_many's tiles: each factor block is read once for all of
 * them (the stability estimate's block of vectors on the threads). With G, yh gets the
 * b×nrhs tile (row-major) of ŷ of the first row. */
CR_INLINE void chunk_forward_many(const cr_blocktri *m, const int b, int first, int len, int dir, const double *G,
                                  double *restrict x, size_t ld, const int nrhs, double *restrict yh, const int recip)
{
    const size_t bb = (size_t)b * b;
    const double *prev_blocks = dir > 0 ? m->lower : m->upper, *next_blocks = dir > 0 ? m->upper : m->lower;
    double tiles[2][CR_BLOCKTRI_MAX_B * SOLVE_MANY_MAX];
    int cur = 0;
    for (int j = 0; j < len; ++j) {
        const int r = first + dir * j;
        double *restrict t = tiles[cur];
        if (j + 2 < len) { /* as chunk_forward: descending rows are prefetched poorly */
            const size_t ahead = (size_t)(r + 2 * dir) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(m->diag + ahead + o, 0);
                __builtin_prefetch(prev_blocks + ahead + o, 0);
            }
            for (int q = 0; q < nrhs; ++q) __builtin_prefetch(x + (size_t)q * ld + (size_t)(r + 2 * dir) * b, 1);
        }
        tile_gather(b, nrhs, x, ld, r, t);
        if (j > 0) tile_mul_sub(b, nrhs, prev_blocks + r * bb, tiles[1 - cur], t);
        lu_solve_ex(b, m->diag + r * bb, m->pivot + (size_t)r * b, t, nrhs, recip);
        tile_scatter(b, nrhs, t, x, ld, r);
        cur = 1 - cur;
    }
    if (!G) return;
    /* ŷ back through the chunk (chunk_forward_spike), the last row's y in tiles[1 - cur] */
    for (int j = len - 2; j >= 0; --j) {
        const int r = first + dir * j;
        double *restrict t = tiles[cur];
        tile_gather(b, nrhs, x, ld, r, t);
        tile_mul_sub(b, nrhs, next_blocks + r * bb, tiles[1 - cur], t);
        cur = 1 - cur;
    }
    memcpy(yh, tiles[1 - cur], (size_t)b * nrhs * sizeof(double));
}

CR_INLINE void chunk_backward_many(const cr_blocktri *m, const int b, int first, int len, int dir, int has_far,
                                   const double *G, double *restrict x, size_t ld, const int nrhs)
{
    const size_t bb = (size_t)b * b;
    const double *next_blocks = dir > 0 ? m->upper : m->lower;
    double tiles[2][CR_BLOCKTRI_MAX_B * SOLVE_MANY_MAX], near[CR_BLOCKTRI_MAX_B * SOLVE_MANY_MAX];
    int cur = 0;
    if (G) tile_gather(b, nrhs, x, ld, first - dir, near);
    if (has_far) tile_gather(b, nrhs, x, ld, first + dir * len, tiles[1 - cur]);
    for (int j = len - 1; j >= 0; --j) {
        const int r = first + dir * j;
        double *restrict t = tiles[cur];
        if (j >= 2) {
            const size_t ahead = (size_t)(r - 2 * dir) * bb;
            for (size_t o = 0; o < bb; o += 8) {
                __builtin_prefetch(next_blocks + ahead + o, 0);
                if (G) __builtin_prefetch(G + ahead + o, 0);
            }
            for (int q = 0; q < nrhs; ++q) __builtin_prefetch(x + (size_t)q * ld + (size_t)(r - 2 * dir) * b, 1);
        }
        tile_gather(b, nrhs, x, ld, r, t);
        if (j < len - 1 || has_far) tile_mul_sub(b, nrhs, next_blocks + r * bb, tiles[1 - cur], t);
        if (G) tile_mul_sub(b, nrhs, G + r * bb, near, t);
        tile_scatter(b, nrhs, t, x, ld, r);
        cur = 1 - cur;
    }
}

/* one instance per size, with the stability estimate's block of 6 vectors as a constant
 * (unrolled and vectorized like solve7x6); RECIP as the same size's chunk_factor */
#define CR_CHUNK_MANY_KERNELS(suffix, B, attr, RECIP)                                                                  \
    attr static void chunk_forward_many_##suffix(const cr_blocktri *m, int first, int len, int dir, const double *G,   \
                                                 double *x, size_t ld, int nrhs, double *yh)                           \
    {                                                                                                                  \
        if (nrhs == 6)                                                                                                 \
            chunk_forward_many(m, B, first, len, dir, G, x, ld, 6, yh, RECIP);                                         \
        else                                                                                                           \
            chunk_forward_many(m, B, first, len, dir, G, x, ld, nrhs, yh, RECIP);                                      \
    }                                                                                                                  \
    attr static void chunk_backward_many_##suffix(const cr_blocktri *m, int first, int len, int dir, int has_far,      \
                                                  const double *G, double *x, size_t ld, int nrhs)                     \
    {                                                                                                                  \
        if (nrhs == 6)                                                                                                 \
            chunk_backward_many(m, B, first, len, dir, has_far, G, x, ld, 6);                                          \
        else                                                                                                           \
            chunk_backward_many(m, B, first, len, dir, has_far, G, x, ld, nrhs);                                       \
    }

/* one kernel per phase and size; the 7×7 and 3×3 ones also in the AVX2 + FMA build */
#define CR_CHUNK_KERNELS(suffix, B, attr, RECIP)                                                                       \
    attr static cr_status chunk_factor_##suffix(cr_blocktri *m, int first, int len, int dir, int has_far, double *G,  \
                                                double *gh, double *zh, int *bad)                                      \
    {                                                                                                                  \
        return chunk_factor(m, B, first, len, dir, has_far, G, gh, zh, bad, RECIP);                                    \
    }                                                                                                                  \
    attr static void chunk_forward_##suffix(const cr_blocktri *m, int first, int len, int dir, const double *G,       \
                                            double *x, double *yh)                                                     \
    {                                                                                                                  \
        chunk_forward(m, B, first, len, dir, G, x, yh);                                                                \
    }                                                                                                                  \
    attr static void chunk_backward_##suffix(const cr_blocktri *m, int first, int len, int dir, int has_far,          \
                                             const double *G, double *x)                                               \
    {                                                                                                                  \
        chunk_backward(m, B, first, len, dir, has_far, G, x);                                                          \
    }
CR_CHUNK_KERNELS(7, 7, , 0)
CR_CHUNK_KERNELS(3, 3, , 0)
CR_CHUNK_KERNELS(any, m->b, , 0)
CR_CHUNK_MANY_KERNELS(7, 7, , 0)
CR_CHUNK_MANY_KERNELS(3, 3, , 0)
CR_CHUNK_MANY_KERNELS(any, m->b, , 0)
#define CR_CHUNK_FACTOR_SOLVE(suffix, B)                                                                               \
    static cr_status chunk_factor_solve_##suffix(cr_blocktri *m, int first, int len, int dir, int has_far, double *x,  \
                                                 int *bad)                                                             \
    {                                                                                                                  \
        return chunk_factor_solve(m, B, first, len, dir, has_far, x, bad, 0);                                          \
    }
CR_CHUNK_FACTOR_SOLVE(7, 7)
CR_CHUNK_FACTOR_SOLVE(3, 3)
CR_CHUNK_FACTOR_SOLVE(any, m->b)
#ifdef CR_DISPATCH_AVX2
#define CR_AVX2_ATTR __attribute__((target("avx2,fma"), optimize("fp-contract=fast")))
/* 7×7: reciprocal pivots, and the sweeps as solve7_avx2's (y in registers from row to row) */
CR_CHUNK_KERNELS(3_avx2, 3, CR_AVX2_ATTR, 0)
CR_CHUNK_MANY_KERNELS(3_avx2, 3, CR_AVX2_ATTR, 0)
CR_AVX2_ATTR static cr_status chunk_factor_solve_3_avx2(cr_blocktri *m, int first, int len, int dir, int has_far,
                                                        double *x, int *bad)
{
    return chunk_factor3(m, first, len, dir, has_far, bad, x);
}
CR_CHUNK_MANY_KERNELS(7_avx2, 7, CR_AVX2_ATTR, 1)
CR_AVX2_ATTR static cr_status chunk_factor_7_avx2(cr_blocktri *m, int first, int len, int dir, int has_far, double *G,
                                                  double *gh, double *zh, int *bad)
{
    return chunk_factor(m, 7, first, len, dir, has_far, G, gh, zh, bad, 1);
}
CR_AVX2_ATTR static cr_status chunk_factor_solve_7_avx2(cr_blocktri *m, int first, int len, int dir, int has_far,
                                                        double *x, int *bad)
{
    return chunk_factor_solve(m, 7, first, len, dir, has_far, x, bad, 1);
}
CR_AVX2_ATTR static void chunk_forward_7_avx2(const cr_blocktri *m, int first, int len, int dir, const double *G,
                                              double *x, double *yh)
{
    const double *prev_blocks = dir > 0 ? m->lower : m->upper;
    __m256d vlo = _mm256_setzero_pd(), vhi = _mm256_setzero_pd(); /* y of the previous row */
    for (int j = 0; j < len; ++j) {
        const int r = first + dir * j;
        double *xi = x + (size_t)r * 7;
        if (j + 2 < len) {
            const size_t ahead = (size_t)(r + 2 * dir) * 49;
            for (size_t o = 0; o < 49; o += 8) {
                __builtin_prefetch(m->diag + ahead + o, 0);
                __builtin_prefetch(prev_blocks + ahead + o, 0);
            }
        }
        __m256d rlo = _mm256_loadu_pd(xi), rhi = _mm256_loadu_pd(xi + 3);
        if (j > 0) {
            const double *P = prev_blocks + (size_t)r * 49;
            __m256d p[7];
            for (int q = 0; q < 7; ++q)
                p[q] = _mm256_fmadd_pd(_mm256_loadu_pd(P + 7 * q + 3), vhi, _mm256_mul_pd(_mm256_loadu_pd(P + 7 * q), vlo));
            rlo = _mm256_sub_pd(rlo, sum4(p[0], p[1], p[2], p[3]));
            rhi = _mm256_sub_pd(rhi, sum4(_mm256_setzero_pd(), p[4], p[5], p[6]));
        }
        lu7_solve_vec(m->diag + (size_t)r * 49, m->pivot + (size_t)r * 7, rlo, rhi, &vlo, &vhi);
        _mm256_storeu_pd(xi + 3, vhi); /* its lane 0 (column 3, zero) is overwritten next */
        _mm256_storeu_pd(xi, vlo);
    }
    if (G) chunk_forward_spike(m, 7, first, len, dir, x, yh);
}
CR_AVX2_ATTR static void chunk_backward_7_avx2(const cr_blocktri *m, int first, int len, int dir, int has_far,
                                               const double *G, double *x)
{
    const double *next_blocks = dir > 0 ? m->upper : m->lower;
    const double *xnear = G ? x + (size_t)(first - dir) * 7 : NULL;
    for (int j = len - 1; j >= 0; --j) {
        const int r = first + dir * j;
        double *xi = x + (size_t)r * 7;
        if (j >= 2) {
            const size_t ahead = (size_t)(r - 2 * dir) * 49;
            for (size_t o = 0; o < 49; o += 8) {
                __builtin_prefetch(next_blocks + ahead + o, 0);
                if (G) __builtin_prefetch(G + ahead + o, 0);
            }
        }
        if (j < len - 1 || has_far) sub_matvec7(next_blocks + (size_t)r * 49, xi + dir * 7, xi);
        if (G) sub_matvec7(G + (size_t)r * 49, xnear, xi);
    }
}
#define CR_CHUNK_PICK(name, m)                                                                                         \
    ((m)->b == 7 ? (have_avx2() ? name##_7_avx2 : name##_7)                                                            \
                 : (m)->b == 3 ? (have_avx2() ? name##_3_avx2 : name##_3) : name##_any)
#else
#define CR_CHUNK_PICK(name, m) ((m)->b == 7 ? name##_7 : (m)->b == 3 ? name##_3 : name##_any)
#endif

cr_status cr_blocktri_chunk_factor(cr_blocktri *m, int first, int len, int dir, int has_far, double *G, double *gh,
                                   double *zh, int *bad_block)
{
    return CR_CHUNK_PICK(chunk_factor, m)(m, first, len, dir, has_far, G, gh, zh, bad_block);
}

void cr_blocktri_chunk_forward(const cr_blocktri *m, int first, int len, int dir, const double *G, double *x,
                               double *yh)
{
    CR_CHUNK_PICK(chunk_forward, m)(m, first, len, dir, G, x, yh);
}

void cr_blocktri_chunk_backward(const cr_blocktri *m, int first, int len, int dir, int has_far, const double *G,
                                double *x)
{
    CR_CHUNK_PICK(chunk_backward, m)(m, first, len, dir, has_far, G, x);
}

void cr_blocktri_chunk_forward_many(const cr_blocktri *m, int first, int len, int dir, const double *G, double *x,
                                    size_t ld, int nrhs, double *yh)
{
    CR_CHUNK_PICK(chunk_forward_many, m)(m, first, len, dir, G, x, ld, nrhs, yh);
}

void cr_blocktri_chunk_backward_many(const cr_blocktri *m, int first, int len, int dir, int has_far, const double *G,
                                     double *x, size_t ld, int nrhs)
{
    CR_CHUNK_PICK(chunk_backward_many, m)(m, first, len, dir, has_far, G, x, ld, nrhs);
}

cr_status cr_blocktri_chunk_factor_solve(cr_blocktri *m, int first, int len, int dir, int has_far, double *x,
                                         int *bad_block)
{
    return CR_CHUNK_PICK(chunk_factor_solve, m)(m, first, len, dir, has_far, x, bad_block);
}
