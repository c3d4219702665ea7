/* Shifted block-tridiagonal factorizations (real and complex) and the Radau
 * hook adaptor. The complex block Thomas algorithm mirrors blocktri.c: the
 * elimination runs from block 0 to n−1, X_i = D̃_i^{-1} U_i overwrites U_i and
 * D̃_{i+1} = D_{i+1} − L_{i+1} X_i overwrites D_{i+1}; D̃_i are the shifted
 * tangents of the sub-chain 0..i, so pivoting inside the diagonal blocks
 * suffices for a well-posed rod (banded mode covers the rest). */
#include "blocktri_shifted.h"
#include "dense_lu.h"
#include "math/finite.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernels take the block size as an argument and are force-inlined into
 * wrappers for the sizes the dynamics uses (19 unknowns per node, 13 with the
 * stresses condensed), so the compiler unrolls and vectorizes them there. */
#if defined(__GNUC__)
#define CR_INLINE static inline __attribute__((always_inline))
#else
#define CR_INLINE static inline
#endif

extern void zgbtrf_(const int *m, const int *n, const int *kl, const int *ku, double *ab, const int *ldab, int *ipiv,
                    int *info);
/* trailing hidden length of the character argument (gfortran ABI) */
extern void zgbtrs_(const char *trans, const int *n, const int *kl, const int *ku, const int *nrhs, const double *ab,
                    const int *ldab, const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len);

/* n·b unknowns are indexed with int by LAPACK and the integrator. */
static int dims_ok(int n, int b) { return n >= 1 && b >= 1 && (long long)n * b <= INT_MAX; }

/* ======================================================================== */
/* Storage                                                                  */
/* ======================================================================== */

void cr_blocktri_z_destroy(cr_blocktri_z *m)
{
    if (!m) return;
    free(m->diag_re);
    free(m->diag_im);
    free(m->lower_re);
    free(m->lower_im);
    free(m->upper_re);
    free(m->upper_im);
    free(m->pivot);
    free(m->rpiv_re);
    free(m->rpiv_im);
    free(m->band);
    free(m->band_pivot);
    free(m->band_rhs);
    free(m);
}

cr_blocktri_z *cr_blocktri_z_create(int n, int b)
{
    if (!dims_ok(n, b)) return NULL;
    cr_blocktri_z *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    size_t bb = (size_t)n * b * b, nb = (size_t)n * b;
    m->n = n;
    m->b = b;
    m->diag_re = calloc(bb, sizeof(double));
    m->diag_im = calloc(bb, sizeof(double));
    m->lower_re = calloc(bb, sizeof(double));
    m->lower_im = calloc(bb, sizeof(double));
    m->upper_re = calloc(bb, sizeof(double));
    m->upper_im = calloc(bb, sizeof(double));
    m->pivot = calloc(nb, sizeof(int));
    m->rpiv_re = calloc(nb, sizeof(double));
    m->rpiv_im = calloc(nb, sizeof(double));
    if (!m->diag_re || !m->diag_im || !m->lower_re || !m->lower_im || !m->upper_re || !m->upper_im || !m->pivot ||
        !m->rpiv_re || !m->rpiv_im) {
        cr_blocktri_z_destroy(m);
        return NULL;
    }
    return m;
}

cr_blocktri_z *cr_blocktri_z_create_banded(int n, int b)
{
    if (!dims_ok(n, b)) return NULL;
    int k = 2 * b - 1;
    long long ldab = 3LL * k + 1;
    /* zgbtrf addresses the band with int offsets ldab·column */
    if (ldab * n * b > INT_MAX) return NULL;
    cr_blocktri_z *m = cr_blocktri_z_create(n, b);
    if (!m) return NULL;
    size_t nb = (size_t)n * b;
    m->banded = 1;
    m->band = malloc(2 * (size_t)ldab * nb * sizeof(double));
    m->band_pivot = malloc(nb * sizeof(int));
    m->band_rhs = malloc(2 * nb * sizeof(double));
    if (!m->band || !m->band_pivot || !m->band_rhs) {
        cr_blocktri_z_destroy(m);
        return NULL;
    }
    return m;
}

void cr_blocktri_z_zero(cr_blocktri_z *m)
{
    size_t bb = (size_t)m->n * m->b * m->b;
    memset(m->diag_re, 0, bb * sizeof(double));
    memset(m->diag_im, 0, bb * sizeof(double));
    memset(m->lower_re, 0, bb * sizeof(double));
    memset(m->lower_im, 0, bb * sizeof(double));
    memset(m->upper_re, 0, bb * sizeof(double));
    memset(m->upper_im, 0, bb * sizeof(double));
    m->factored = 0;
}

/* y += A x for one complex b×b block. */
static void zblock_gemv_add(int b, const double *ar, const double *ai, const double *xr, const double *xi, double *yr,
                            double *yi)
{
    for (int r = 0; r < b; ++r) {
        double sr = 0, si = 0;
        for (int k = 0; k < b; ++k) {
            sr += ar[r * b + k] * xr[k] - ai[r * b + k] * xi[k];
            si += ar[r * b + k] * xi[k] + ai[r * b + k] * xr[k];
        }
        yr[r] += sr;
        yi[r] += si;
    }
}

void cr_blocktri_z_matvec(const cr_blocktri_z *m, const double *x_re, const double *x_im, double *y_re, double *y_im)
{
    int n = m->n, b = m->b;
    size_t bb = (size_t)b * b;
    memset(y_re, 0, (size_t)n * b * sizeof(double));
    memset(y_im, 0, (size_t)n * b * sizeof(double));
    for (int i = 0; i < n; ++i) {
        size_t o = (size_t)i * b;
        zblock_gemv_add(b, m->diag_re + i * bb, m->diag_im + i * bb, x_re + o, x_im + o, y_re + o, y_im + o);
        if (i > 0)
            zblock_gemv_add(b, m->lower_re + i * bb, m->lower_im + i * bb, x_re + o - b, x_im + o - b, y_re + o,
                            y_im + o);
        if (i < n - 1)
            zblock_gemv_add(b, m->upper_re + i * bb, m->upper_im + i * bb, x_re + o + b, x_im + o + b, y_re + o,
                            y_im + o);
    }
}

/* ======================================================================== */
/* Complex block kernels (split planes)                                     */
/* ======================================================================== */

/* Row of the entry of largest modulus in column k, rows k..b−1, and that
 * modulus. Compares squared moduli (no square root in the O(b²) scan) and
 * rescans with hypot only when the squares leave the normal range (entries
 * beyond ~1e±154) or the column is zero, so the choice is the true modulus
 * pivot in every case. */
CR_INLINE int zpivot_row(int b, const double *ar, const double *ai, int k, double *modulus)
{
    int p = k;
    double best = ar[k * b + k] * ar[k * b + k] + ai[k * b + k] * ai[k * b + k];
    for (int i = k + 1; i < b; ++i) {
        double v = ar[i * b + k] * ar[i * b + k] + ai[i * b + k] * ai[i * b + k];
        if (v > best) best = v, p = i;
    }
    if (best >= DBL_MIN && best <= DBL_MAX) {
        *modulus = sqrt(best);
        return p;
    }
    p = k;
    best = hypot(ar[k * b + k], ai[k * b + k]);
    for (int i = k + 1; i < b; ++i) {
        double v = hypot(ar[i * b + k], ai[i * b + k]);
        if (v > best) best = v, p = i;
    }
    *modulus = best;
    return p;
}

/* 1/(pr + i·pi) by Smith's algorithm, which avoids the overflow of pr² + pi². */
CR_INLINE void zrecip(double pr, double pi, double *rr, double *ri)
{
    if (fabs(pr) >= fabs(pi)) {
        double q = pi / pr, d = pr + pi * q;
        *rr = 1.0 / d;
        *ri = -q / d;
    } else {
        double q = pr / pi, d = pi + pr * q;
        *rr = q / d;
        *ri = -1.0 / d;
    }
}

/* The register-row variants of the kernels below take rows of at most this many entries. */
#define ZACC_MAX 32

/* Dense LU with partial pivoting by modulus of one b×b complex block, in place
 * (unit lower factor below the diagonal, U on and above it). Writes the
 * reciprocals of U's diagonal to (rr, ri). Returns −1 on a vanishing or
 * non-finite pivot. */
CR_INLINE int zlu_factor(int b, double *restrict ar, double *restrict ai, int *restrict piv, double *restrict rr,
                         double *restrict ri)
{
    for (int k = 0; k < b; ++k) {
        double mod;
        int p = zpivot_row(b, ar, ai, k, &mod);
        piv[k] = p;
        if (!(mod > 0) || !isfinite(mod)) return -1;
        if (p != k)
            for (int j = 0; j < b; ++j) {
                double t = ar[k * b + j];
                ar[k * b + j] = ar[p * b + j];
                ar[p * b + j] = t;
                t = ai[k * b + j];
                ai[k * b + j] = ai[p * b + j];
                ai[p * b + j] = t;
            }
        double ir, ii;
        zrecip(ar[k * b + k], ai[k * b + k], &ir, &ii);
        /* a subnormal pivot has an infinite reciprocal: as singular as zero */
        if (!isfinite(ir) || !isfinite(ii)) return -1;
        rr[k] = ir;
        ri[k] = ii;
        for (int i = k + 1; i < b; ++i) {
            double xr = ar[i * b + k], xi = ai[i * b + k];
            double fr = xr * ir - xi * ii, fi = xr * ii + xi * ir;
            ar[i * b + k] = fr;
            ai[i * b + k] = fi;
            for (int j = k + 1; j < b; ++j) {
                double ur = ar[k * b + j], ui = ai[k * b + j];
                ar[i * b + j] -= fr * ur - fi * ui;
                ai[i * b + j] -= fr * ui + fi * ur;
            }
        }
    }
    return 0;
}

/* Solves (LU) X = B in place for `nrhs` complex right-hand sides stored
 * row-major as b×nrhs planes (xr, xi). */
CR_INLINE void zlu_solve(int b, const double *restrict ar, const double *restrict ai, const int *restrict piv,
                         const double *restrict rr, const double *restrict ri, double *restrict xr,
                         double *restrict xi, int nrhs)
{
    for (int k = 0; k < b; ++k)
        if (piv[k] != k)
            for (int j = 0; j < nrhs; ++j) {
                double t = xr[k * nrhs + j];
                xr[k * nrhs + j] = xr[piv[k] * nrhs + j];
                xr[piv[k] * nrhs + j] = t;
                t = xi[k * nrhs + j];
                xi[k * nrhs + j] = xi[piv[k] * nrhs + j];
                xi[piv[k] * nrhs + j] = t;
            }
    /* branch-free over dense blocks, like blocktri.c: the j loops vectorize, and the row
     * being eliminated stays in registers (acc) while the rows above are subtracted */
    if (nrhs <= ZACC_MAX) {
        double accr[ZACC_MAX], acci[ZACC_MAX];
        for (int i = 1; i < b; ++i) {
            for (int j = 0; j < nrhs; ++j) accr[j] = xr[i * nrhs + j], acci[j] = xi[i * nrhs + j];
            for (int k = 0; k < i; ++k) {
                double fr = ar[i * b + k], fi = ai[i * b + k];
                for (int j = 0; j < nrhs; ++j) {
                    double yr = xr[k * nrhs + j], yi = xi[k * nrhs + j];
                    accr[j] -= fr * yr - fi * yi;
                    acci[j] -= fr * yi + fi * yr;
                }
            }
            for (int j = 0; j < nrhs; ++j) xr[i * nrhs + j] = accr[j], xi[i * nrhs + j] = acci[j];
        }
        for (int i = b - 1; i >= 0; --i) {
            for (int j = 0; j < nrhs; ++j) accr[j] = xr[i * nrhs + j], acci[j] = xi[i * nrhs + j];
            for (int k = i + 1; k < b; ++k) {
                double fr = ar[i * b + k], fi = ai[i * b + k];
                for (int j = 0; j < nrhs; ++j) {
                    double yr = xr[k * nrhs + j], yi = xi[k * nrhs + j];
                    accr[j] -= fr * yr - fi * yi;
                    acci[j] -= fr * yi + fi * yr;
                }
            }
            double pr = rr[i], pi = ri[i];
            for (int j = 0; j < nrhs; ++j) {
                xr[i * nrhs + j] = accr[j] * pr - acci[j] * pi;
                xi[i * nrhs + j] = accr[j] * pi + acci[j] * pr;
            }
        }
        return;
    }
    for (int i = 1; i < b; ++i)
        for (int k = 0; k < i; ++k) {
            double fr = ar[i * b + k], fi = ai[i * b + k];
            for (int j = 0; j < nrhs; ++j) {
                double yr = xr[k * nrhs + j], yi = xi[k * nrhs + j];
                xr[i * nrhs + j] -= fr * yr - fi * yi;
                xi[i * nrhs + j] -= fr * yi + fi * yr;
            }
        }
    for (int i = b - 1; i >= 0; --i) {
        for (int k = i + 1; k < b; ++k) {
            double fr = ar[i * b + k], fi = ai[i * b + k];
            for (int j = 0; j < nrhs; ++j) {
                double yr = xr[k * nrhs + j], yi = xi[k * nrhs + j];
                xr[i * nrhs + j] -= fr * yr - fi * yi;
                xi[i * nrhs + j] -= fr * yi + fi * yr;
            }
        }
        double pr = rr[i], pi = ri[i];
        for (int j = 0; j < nrhs; ++j) {
            double yr = xr[i * nrhs + j], yi = xi[i * nrhs + j];
            xr[i * nrhs + j] = yr * pr - yi * pi;
            xi[i * nrhs + j] = yr * pi + yi * pr;
        }
    }
}

/* D -= L X for complex b×b blocks. real_l: L's imaginary plane is zero (the
 * shifted systems, where only M·shift is complex), which halves the work. */
CR_INLINE void zschur_update(int b, int real_l, double *restrict dr, double *restrict di, const double *restrict lr,
                             const double *restrict li, const double *restrict xr, const double *restrict xi)
{
    if (real_l && b <= ZACC_MAX) { /* the row of D in registers over the k loop */
        for (int r = 0; r < b; ++r) {
            double accr[ZACC_MAX], acci[ZACC_MAX];
            for (int c = 0; c < b; ++c) accr[c] = dr[r * b + c], acci[c] = di[r * b + c];
            for (int k = 0; k < b; ++k) {
                double fr = lr[r * b + k];
                for (int c = 0; c < b; ++c) {
                    accr[c] -= fr * xr[k * b + c];
                    acci[c] -= fr * xi[k * b + c];
                }
            }
            for (int c = 0; c < b; ++c) dr[r * b + c] = accr[c], di[r * b + c] = acci[c];
        }
        return;
    }
    for (int r = 0; r < b; ++r)
        for (int k = 0; k < b; ++k) {
            double fr = lr[r * b + k];
            if (real_l) {
                for (int c = 0; c < b; ++c) {
                    dr[r * b + c] -= fr * xr[k * b + c];
                    di[r * b + c] -= fr * xi[k * b + c];
                }
            } else {
                double fi = li[r * b + k];
                for (int c = 0; c < b; ++c) {
                    double yr = xr[k * b + c], yi = xi[k * b + c];
                    dr[r * b + c] -= fr * yr - fi * yi;
                    di[r * b + c] -= fr * yi + fi * yr;
                }
            }
        }
}

/* y -= A x for one complex block and one vector (real_a: A's imaginary plane is zero). */
CR_INLINE void zgemv_sub(int b, int real_a, const double *restrict ar, const double *restrict ai,
                         const double *restrict xr, const double *restrict xi, double *restrict yr,
                         double *restrict yi)
{
    for (int r = 0; r < b; ++r) {
        double sr = 0, si = 0;
        if (real_a) {
            for (int k = 0; k < b; ++k) {
                sr += ar[r * b + k] * xr[k];
                si += ar[r * b + k] * xi[k];
            }
        } else {
            for (int k = 0; k < b; ++k) {
                double fr = ar[r * b + k], fi = ai[r * b + k];
                sr += fr * xr[k] - fi * xi[k];
                si += fr * xi[k] + fi * xr[k];
            }
        }
        yr[r] -= sr;
        yi[r] -= si;
    }
}

CR_INLINE cr_status zfactor_thomas(cr_blocktri_z *m, const int b, const int real_l, int *bad_block)
{
    int n = m->n;
    size_t bb = (size_t)b * b;
    for (int i = 0; i < n; ++i) {
        double *dr = m->diag_re + i * bb, *di = m->diag_im + i * bb;
        int *piv = m->pivot + (size_t)i * b;
        double *rr = m->rpiv_re + (size_t)i * b, *ri = m->rpiv_im + (size_t)i * b;
        if (i > 0)
            zschur_update(b, real_l, dr, di, m->lower_re + i * bb, m->lower_im + i * bb, m->upper_re + (i - 1) * bb,
                          m->upper_im + (i - 1) * bb);
        if (zlu_factor(b, dr, di, piv, rr, ri) != 0) {
            if (bad_block) *bad_block = i;
            return CR_SINGULAR;
        }
        if (i < n - 1) zlu_solve(b, dr, di, piv, rr, ri, m->upper_re + i * bb, m->upper_im + i * bb, b);
    }
    m->factored = 1;
    return CR_OK;
}

CR_INLINE void zsolve_thomas(const cr_blocktri_z *m, const int b, const int real_l, double *re, double *im)
{
    int n = m->n;
    size_t bb = (size_t)b * b;
    for (int i = 0; i < n; ++i) {
        double *xr = re + (size_t)i * b, *xi = im + (size_t)i * b;
        if (i > 0) zgemv_sub(b, real_l, m->lower_re + i * bb, m->lower_im + i * bb, xr - b, xi - b, xr, xi);
        zlu_solve(b, m->diag_re + i * bb, m->diag_im + i * bb, m->pivot + (size_t)i * b, m->rpiv_re + (size_t)i * b,
                  m->rpiv_im + (size_t)i * b, xr, xi, 1);
    }
    for (int i = n - 2; i >= 0; --i) {
        double *xr = re + (size_t)i * b, *xi = im + (size_t)i * b;
        zgemv_sub(b, 0, m->upper_re + i * bb, m->upper_im + i * bb, xr + b, xi + b, xr, xi);
    }
}

/* ======================================================================== */
/* Complex factor / solve                                                   */
/* ======================================================================== */

/* LAPACK band storage, interleaved complex: A(r, c) at
 * band[2(c·ldab + kl + ku + r − c)] (re, im), kl = ku = 2b − 1. */
static cr_status zfactor_banded(cr_blocktri_z *m, int *bad_block)
{
    int b = m->b, N = m->n * b, k = 2 * b - 1, ldab = 3 * k + 1, info = 0;
    size_t bb = (size_t)b * b;
    memset(m->band, 0, 2 * (size_t)ldab * N * sizeof(double));
    for (int i = 0; i < m->n; ++i) {
        const double *src_re[3] = {i > 0 ? m->lower_re + i * bb : NULL, m->diag_re + i * bb,
                                   i < m->n - 1 ? m->upper_re + i * bb : NULL};
        const double *src_im[3] = {i > 0 ? m->lower_im + i * bb : NULL, m->diag_im + i * bb,
                                   i < m->n - 1 ? m->upper_im + i * bb : NULL};
        for (int j = 0; j < 3; ++j) {
            if (!src_re[j]) continue;
            for (int r = 0; r < b; ++r)
                for (int c = 0; c < b; ++c) {
                    int row = i * b + r, col = (i - 1 + j) * b + c;
                    size_t at = 2 * ((size_t)col * ldab + 2 * k + row - col);
                    m->band[at] = src_re[j][r * b + c];
                    m->band[at + 1] = src_im[j][r * b + c];
                }
        }
    }
    zgbtrf_(&N, &N, &k, &k, m->band, &ldab, m->band_pivot, &info);
    if (info != 0) {
        if (bad_block) *bad_block = info > 0 ? (info - 1) / b : 0;
        return CR_SINGULAR;
    }
    m->factored = 1;
    return CR_OK;
}

/* The 13×13 kernels (the condensed dynamics) also in an AVX2 + FMA build, chosen at run
 * time as blocktri.c does for its 7×7 ones: rows of 13 doubles are three 4-wide fused
 * multiply-adds and a scalar one instead of six 2-wide multiplies and subtractions
 * (SSE2, the baseline of x86-64). Results differ from the SSE2 build by round-off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
#define BTS_DISPATCH_AVX2 1
#define BTS_AVX2 __attribute__((target("avx2,fma"), optimize("fp-contract=fast")))
BTS_AVX2 static cr_status zfactor13_avx2(cr_blocktri_z *m, int *bad_block)
{
    return zfactor_thomas(m, 13, 1, bad_block);
}
BTS_AVX2 static void zsolve13_avx2(const cr_blocktri_z *m, double *re, double *im)
{
    zsolve_thomas(m, 13, 1, re, im);
}
/* 6×6 with complex off-diagonal blocks: the velocities after the kinematic condensation */
BTS_AVX2 static cr_status zfactor6_avx2(cr_blocktri_z *m, int *bad_block) { return zfactor_thomas(m, 6, 0, bad_block); }
BTS_AVX2 static void zsolve6_avx2(const cr_blocktri_z *m, double *re, double *im) { zsolve_thomas(m, 6, 0, re, im); }
/* a test of the CPU model data libgcc fills in at load time (no cached static to race on) */
static int have_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

/* Shared by the public factor (general L) and the shifted one (real L). */
static cr_status zfactor(cr_blocktri_z *m, int real_l, int *bad_block)
{
    m->factored = 0;
    m->lower_real = real_l;
    if (m->banded) return zfactor_banded(m, bad_block);
    if (real_l) {
#ifdef BTS_DISPATCH_AVX2
        if (m->b == 13 && have_avx2()) return zfactor13_avx2(m, bad_block);
#endif
        if (m->b == 19) return zfactor_thomas(m, 19, 1, bad_block);
        if (m->b == 13) return zfactor_thomas(m, 13, 1, bad_block);
        return zfactor_thomas(m, m->b, 1, bad_block);
    }
#ifdef BTS_DISPATCH_AVX2
    if (m->b == 6 && have_avx2()) return zfactor6_avx2(m, bad_block);
#endif
    if (m->b == 6) return zfactor_thomas(m, 6, 0, bad_block);
    if (m->b == 19) return zfactor_thomas(m, 19, 0, bad_block);
    if (m->b == 13) return zfactor_thomas(m, 13, 0, bad_block);
    return zfactor_thomas(m, m->b, 0, bad_block);
}

cr_status cr_blocktri_z_factor(cr_blocktri_z *m, int *bad_block)
{
    if (!m) return CR_BAD_INPUT;
    return zfactor(m, 0, bad_block);
}

void cr_blocktri_z_solve(const cr_blocktri_z *m, double *re, double *im)
{
    if (m->banded) {
        int N = m->n * m->b, k = 2 * m->b - 1, ldab = 3 * k + 1, one = 1, info = 0;
        double *z = m->band_rhs;
        for (int i = 0; i < N; ++i) {
            z[2 * i] = re[i];
            z[2 * i + 1] = im[i];
        }
        zgbtrs_("N", &N, &k, &k, &one, m->band, &ldab, m->band_pivot, z, &N, &info, 1);
        for (int i = 0; i < N; ++i) {
            re[i] = z[2 * i];
            im[i] = z[2 * i + 1];
        }
        return;
    }
    if (m->lower_real) {
#ifdef BTS_DISPATCH_AVX2
        if (m->b == 13 && have_avx2()) {
            zsolve13_avx2(m, re, im);
            return;
        }
#endif
        if (m->b == 19) zsolve_thomas(m, 19, 1, re, im);
        else if (m->b == 13) zsolve_thomas(m, 13, 1, re, im);
        else zsolve_thomas(m, m->b, 1, re, im);
    } else {
#ifdef BTS_DISPATCH_AVX2
        if (m->b == 6 && have_avx2()) {
            zsolve6_avx2(m, re, im);
            return;
        }
#endif
        if (m->b == 6)
            zsolve_thomas(m, 6, 0, re, im);
        else if (m->b == 19)
            zsolve_thomas(m, 19, 0, re, im);
        else if (m->b == 13) zsolve_thomas(m, 13, 0, re, im);
        else zsolve_thomas(m, m->b, 0, re, im);
    }
}

/* ======================================================================== */
/* Shifted systems                                                          */
/* ======================================================================== */

cr_status cr_blocktri_shifted_factor_real(const cr_blocktri *J, const double *mass, double shift, cr_blocktri *work,
                                          int *bad_block)
{
    /* work == J would overwrite the Jacobian the integrator reuses across steps */
    if (!J || !work || work == J || J->n != work->n || J->b != work->b) return CR_BAD_INPUT;
    int n = J->n, b = J->b;
    size_t bb = (size_t)b * b, total = (size_t)n * bb;
    for (size_t k = 0; k < total; ++k) work->diag[k] = -J->diag[k];
    for (size_t k = 0; k < total; ++k) work->lower[k] = -J->lower[k];
    for (size_t k = 0; k < total; ++k) work->upper[k] = -J->upper[k];
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < b; ++r)
            work->diag[i * bb + (size_t)r * b + r] += shift * (mass ? mass[(size_t)i * b + r] : 1.0);
    /* cr_blocktri_factor leaves `factored` alone on failure; a stale 1 would
     * let a caller solve with half-overwritten blocks */
    work->factored = 0;
    return cr_blocktri_factor(work, bad_block);
}

cr_status cr_blocktri_shifted_factor_complex(const cr_blocktri *J, const double *mass, double shift_re,
                                             double shift_im, cr_blocktri_z *work, int *bad_block)
{
    if (!J || !work || J->n != work->n || J->b != work->b) return CR_BAD_INPUT;
    int n = J->n, b = J->b;
    size_t bb = (size_t)b * b, total = (size_t)n * bb;
    for (size_t k = 0; k < total; ++k) work->diag_re[k] = -J->diag[k];
    for (size_t k = 0; k < total; ++k) work->lower_re[k] = -J->lower[k];
    for (size_t k = 0; k < total; ++k) work->upper_re[k] = -J->upper[k];
    memset(work->diag_im, 0, total * sizeof(double));
    /* the block Thomas kernels skip lower_im (lower_real below); zgbtrf reads it */
    if (work->banded) memset(work->lower_im, 0, total * sizeof(double));
    memset(work->upper_im, 0, total * sizeof(double));
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < b; ++r) {
            double mi = mass ? mass[(size_t)i * b + r] : 1.0;
            size_t at = i * bb + (size_t)r * b + r;
            work->diag_re[at] += shift_re * mi;
            work->diag_im[at] += shift_im * mi;
        }
    /* M is diagonal, so the off-diagonal blocks stay real: the kernels skip
     * their imaginary plane */
    return zfactor(work, 1, bad_block);
}

/* ======================================================================== */
/* Real 13×13 block Thomas for the condensed systems                        */
/* ======================================================================== */

/* cr_blocktri_factor / cr_blocktri_solve have fixed-size kernels for b = 3, 7 and 19
 * only; at b = 13 they run their generic loops, twice as slow as the complex
 * factorization per flop. These are the same algorithm (partial pivoting inside the
 * diagonal blocks, X_i = D̃_i⁻¹ U_i over U_i, D̃_{i+1} = D_{i+1} − L_{i+1} X_i) at the
 * fixed size, with an AVX2 + FMA build, on the storage of a cr_blocktri that only
 * these two functions read afterwards (m->factored stays 0: cr_blocktri_solve must
 * not be used on it). Reciprocal pivots go to `rpiv` (n·13). */
#define RB_MAX 13
CR_INLINE int rlu_factor_b(const int RB, double *restrict a, int *restrict piv, double *restrict rpiv)
{
    if (cr_dense_lu_factor(RB, a, piv) != 0) return -1;
    for (int k = 0; k < RB; ++k) rpiv[k] = 1.0 / a[k * RB + k]; /* the same quotient as the elimination's */
    return 0;
}

/* (LU) X = B for nrhs right-hand sides stored row-major as 13×nrhs (nrhs = 1 or 13). */
CR_INLINE void rlu_solve_b(const int RB, const double *restrict a, const int *restrict piv, const double *restrict rpiv,
                           double *restrict x, const int nrhs)
{
    for (int k = 0; k < RB; ++k)
        if (piv[k] != k)
            for (int j = 0; j < nrhs; ++j) {
                double t = x[k * nrhs + j];
                x[k * nrhs + j] = x[piv[k] * nrhs + j];
                x[piv[k] * nrhs + j] = t;
            }
    double acc[RB_MAX]; /* the row being eliminated, in registers */
    for (int i = 1; i < RB; ++i) {
        for (int j = 0; j < nrhs; ++j) acc[j] = x[i * nrhs + j];
        for (int k = 0; k < i; ++k) {
            double f = a[i * RB + k];
            for (int j = 0; j < nrhs; ++j) acc[j] -= f * x[k * nrhs + j];
        }
        for (int j = 0; j < nrhs; ++j) x[i * nrhs + j] = acc[j];
    }
    for (int i = RB - 1; i >= 0; --i) {
        for (int j = 0; j < nrhs; ++j) acc[j] = x[i * nrhs + j];
        for (int k = i + 1; k < RB; ++k) {
            double f = a[i * RB + k];
            for (int j = 0; j < nrhs; ++j) acc[j] -= f * x[k * nrhs + j];
        }
        for (int j = 0; j < nrhs; ++j) x[i * nrhs + j] = acc[j] * rpiv[i];
    }
}

CR_INLINE cr_status rfactor_k(const int RB, cr_blocktri *m, double *rpiv, int *bad_block)
{
    const int n = m->n;
    const size_t bb = (size_t)RB * RB;
    for (int i = 0; i < n; ++i) {
        double *restrict D = m->diag + i * bb;
        if (i > 0) {
            const double *restrict L = m->lower + i * bb, *restrict X = m->upper + (i - 1) * bb;
            for (int r = 0; r < RB; ++r) {
                double acc[RB_MAX];
                for (int c = 0; c < RB; ++c) acc[c] = D[r * RB + c];
                for (int k = 0; k < RB; ++k) {
                    double f = L[r * RB + k];
                    for (int c = 0; c < RB; ++c) acc[c] -= f * X[k * RB + c];
                }
                for (int c = 0; c < RB; ++c) D[r * RB + c] = acc[c];
            }
        }
        if (rlu_factor_b(RB, D, m->pivot + (size_t)i * RB, rpiv + (size_t)i * RB) != 0) {
            if (bad_block) *bad_block = i;
            return CR_SINGULAR;
        }
        if (i < n - 1) rlu_solve_b(RB, D, m->pivot + (size_t)i * RB, rpiv + (size_t)i * RB, m->upper + i * bb, RB);
    }
    return CR_OK;
}

CR_INLINE void rsolve_k(const int RB, const cr_blocktri *m, const double *rpiv, double *x)
{
    const int n = m->n;
    const size_t bb = (size_t)RB * RB;
    for (int i = 0; i < n; ++i) {
        double *xi = x + (size_t)i * RB;
        if (i > 0) {
            const double *L = m->lower + i * bb, *xp = xi - RB;
            for (int r = 0; r < RB; ++r) {
                double s = 0;
                for (int k = 0; k < RB; ++k) s += L[r * RB + k] * xp[k];
                xi[r] -= s;
            }
        }
        rlu_solve_b(RB, m->diag + i * bb, m->pivot + (size_t)i * RB, rpiv + (size_t)i * RB, xi, 1);
    }
    for (int i = n - 2; i >= 0; --i) {
        double *xi = x + (size_t)i * RB;
        const double *X = m->upper + i * bb, *xn = xi + RB;
        for (int r = 0; r < RB; ++r) {
            double s = 0;
            for (int k = 0; k < RB; ++k) s += X[r * RB + k] * xn[k];
            xi[r] -= s;
        }
    }
}

#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static cr_status rfactor13_avx2(cr_blocktri *m, double *rpiv, int *bad_block)
{
    return rfactor_k(13, m, rpiv, bad_block);
}
BTS_AVX2 static void rsolve13_avx2(const cr_blocktri *m, const double *rpiv, double *x) { rsolve_k(13, m, rpiv, x); }
#endif

static cr_status rfactor13(cr_blocktri *m, double *rpiv, int *bad_block)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) return rfactor13_avx2(m, rpiv, bad_block);
#endif
    return rfactor_k(13, m, rpiv, bad_block);
}

static void rsolve13(const cr_blocktri *m, const double *rpiv, double *x)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        rsolve13_avx2(m, rpiv, x);
        return;
    }
#endif
    rsolve_k(13, m, rpiv, x);
}

/* the same at 6×6 (the velocities after the kinematic condensation) */
#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static cr_status rfactor6_avx2(cr_blocktri *m, double *rpiv, int *bad_block)
{
    return rfactor_k(6, m, rpiv, bad_block);
}
#endif

static cr_status rfactor6(cr_blocktri *m, double *rpiv, int *bad_block)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) return rfactor6_avx2(m, rpiv, bad_block);
#endif
    return rfactor_k(6, m, rpiv, bad_block);
}

#undef RB_MAX

/* ======================================================================== */
/* Radau hook adaptor                                                       */
/* ======================================================================== */

void cr_blocktri_radau_destroy(cr_blocktri_radau *a)
{
    if (!a) return;
    free(a->mass);
    cr_blocktri_destroy(a->Jc);
    free(a->dinv);
    free(a->gd);
    free(a->gl);
    free(a->gdt);
    free(a->glt);
    free(a->ldt);
    free(a->lut);
    free(a->mass_q);
    free(a->xr);
    free(a->xi);
    free(a->rpiv);
    free(a->kpar);
    free(a->kP);
    free(a->kH);
    free(a->kC);
    free(a->kG);
    free(a->kr);
    free(a->kcr);
    free(a->kci);
    free(a->vr);
    free(a->vi);
    free(a->rpiv6);
    free(a->k6r);
    free(a->k6z);
    cr_blocktri_destroy(a->real6);
    cr_blocktri_z_destroy(a->cplx6);
    cr_blocktri_destroy(a->J);
    cr_blocktri_destroy(a->real);
    cr_blocktri_z_destroy(a->cplx);
    free(a);
}

cr_blocktri_radau *cr_blocktri_radau_create(int n, int b, const double *mass, int banded,
                                            cr_blocktri_jacobian_fn jacobian, void *user, cr_error *err)
{
    if (n < 1 || b < 1) {
        cr_error_set(err, CR_BAD_INPUT, "blocktri radau: n = %d, b = %d, need n >= 1 and b >= 1", n, b);
        return NULL;
    }
    if (!dims_ok(n, b)) {
        cr_error_set(err, CR_UNSUPPORTED, "blocktri radau: n*b = %lld unknowns exceed int indexing",
                     (long long)n * b);
        return NULL;
    }
    if (!jacobian) {
        cr_error_set(err, CR_BAD_INPUT, "blocktri radau: a Jacobian callback is required");
        return NULL;
    }
    size_t nb = (size_t)n * b;
    if (mass)
        for (size_t k = 0; k < nb; ++k)
            if (!isfinite(mass[k])) {
                cr_error_set(err, CR_BAD_INPUT, "blocktri radau: mass[%zu] is not finite", k);
                return NULL;
            }
    cr_blocktri_radau *a = calloc(1, sizeof *a);
    if (!a) {
        cr_error_set(err, CR_NO_MEMORY, "blocktri radau: out of memory");
        return NULL;
    }
    a->n = n;
    a->b = b;
    a->jacobian = jacobian;
    a->user = user;
    a->bad_block = -1;
    a->mass = malloc(nb * sizeof(double));
    a->J = cr_blocktri_create(n, b);
    a->real = banded ? cr_blocktri_create_banded(n, b) : cr_blocktri_create(n, b);
    a->cplx = banded ? cr_blocktri_z_create_banded(n, b) : cr_blocktri_z_create(n, b);
    if (!a->mass || !a->J || !a->real || !a->cplx) {
        cr_blocktri_radau_destroy(a);
        cr_error_set(err, CR_NO_MEMORY, "blocktri radau: out of memory for %d blocks of %dx%d", n, b, b);
        return NULL;
    }
    for (size_t k = 0; k < nb; ++k) a->mass[k] = mass ? mass[k] : 1.0;
    return a;
}

void cr_blocktri_radau_set_filled(cr_blocktri_radau *a)
{
    if (a) a->filled = 1;
}

cr_status cr_blocktri_radau_condense(cr_blocktri_radau *a, int nc, cr_error *err)
{
    if (!a) return cr_error_set(err, CR_BAD_INPUT, "blocktri radau: condense without an adaptor");
    if (nc <= 0 || nc >= a->b || a->Jc || a->cplx->banded)
        return cr_error_set(err, CR_BAD_INPUT,
                            "blocktri radau: cannot condense %d of %d unknowns per block (once, not banded)", nc, a->b);
    const int n = a->n, b = a->b, bq = b - nc;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < nc; ++k)
            if (a->mass[(size_t)i * b + bq + k] != 0.0)
                return cr_error_set(err, CR_BAD_INPUT, "blocktri radau: condensed unknown %d of block %d has mass %g",
                                    bq + k, i, a->mass[(size_t)i * b + bq + k]);
    size_t nq = (size_t)n * bq, qc = nq * nc;
    cr_blocktri *Jc = cr_blocktri_create(n, bq), *real = cr_blocktri_create(n, bq);
    cr_blocktri_z *cplx = cr_blocktri_z_create(n, bq);
    a->dinv = malloc((size_t)n * nc * sizeof(double));
    a->gd = calloc(qc, sizeof(double));
    a->gl = calloc(qc, sizeof(double));
    a->gdt = calloc(qc, sizeof(double));
    a->glt = calloc(qc, sizeof(double));
    a->ldt = calloc(qc, sizeof(double));
    a->lut = calloc(qc, sizeof(double));
    a->mass_q = malloc(nq * sizeof(double));
    a->xr = malloc(nq * sizeof(double));
    a->xi = malloc(nq * sizeof(double));
    if (!Jc || !real || !cplx || !a->dinv || !a->gd || !a->gl || !a->gdt || !a->glt || !a->ldt || !a->lut ||
        !a->mass_q || !a->xr || !a->xi) {
        cr_blocktri_destroy(Jc);
        cr_blocktri_destroy(real);
        cr_blocktri_z_destroy(cplx);
        return cr_error_set(err, CR_NO_MEMORY, "blocktri radau: out of memory for the condensed blocks");
    }
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < bq; ++r) a->mass_q[(size_t)i * bq + r] = a->mass[(size_t)i * b + r];
    cr_blocktri_destroy(a->real);
    cr_blocktri_z_destroy(a->cplx);
    a->real = real;
    a->cplx = cplx;
    a->Jc = Jc;
    a->nc = nc;
    a->bq = bq;
    if (bq == 13 && !(a->rpiv = malloc(nq * sizeof(double))))
        return cr_error_set(err, CR_NO_MEMORY, "blocktri radau: out of memory for the condensed blocks");
    a->have_real = a->have_complex = 0;
    return CR_OK;
}

/* J_c = J_qq − J_qλ J_λλ⁻¹ J_λq (see cr_blocktri_radau_condense), with the scaled
 * couplings gd, gl kept for the right-hand sides. CR_BAD_INPUT (*bad = block) when J
 * leaves the pattern. */
/* out[c] = row[c] − Σ_k g[k] lam[k·b + c], c < bq (one row of a condensed block). */
CR_INLINE void cond_row(const int bq, const int nc, const double *restrict row, const double *restrict g,
                        const double *restrict lam, const int b, double *restrict out)
{
    for (int c = 0; c < bq; ++c) {
        double s = row[c];
        for (int k = 0; k < nc; ++k) s -= g[k] * lam[(size_t)k * b + c];
        out[c] = s;
    }
}

/* out[c] −= Σ_k g[k] lam[k·b + c], c < bq. */
CR_INLINE void cond_row_add(const int bq, const int nc, const double *restrict g, const double *restrict lam,
                            const int b, double *restrict out)
{
    for (int c = 0; c < bq; ++c) {
        double s = out[c];
        for (int k = 0; k < nc; ++k) s -= g[k] * lam[(size_t)k * b + c];
        out[c] = s;
    }
}

CR_INLINE cr_status condense_k(cr_blocktri_radau *a, const int b, const int nc, int *bad)
{
    const cr_blocktri *J = a->J;
    const int n = a->n, bq = b - nc;
    const size_t bb = (size_t)b * b, qq = (size_t)bq * bq, qc = (size_t)bq * nc;
    for (int i = 0; i < n; ++i) {
        const double *D = J->diag + i * bb;
        double *dv = a->dinv + (size_t)i * nc;
        for (int k = 0; k < nc; ++k) {
            const double *row = D + (size_t)(bq + k) * b + bq;
            for (int c = 0; c < nc; ++c)
                if (c != k && row[c] != 0.0) goto off_pattern;
            double inv = 1.0 / row[k];
            if (!(row[k] != 0.0) || !isfinite(inv)) goto off_pattern;
            dv[k] = inv;
        }
        if (i > 0) { /* the λ rows depend on their own block and the next one only */
            const double *L = J->lower + i * bb + (size_t)bq * b;
            for (size_t k = 0; k < (size_t)nc * b; ++k)
                if (L[k] != 0.0) goto off_pattern;
        }
        if (i < n - 1) { /* no row depends on the next block's λ */
            const double *U = J->upper + i * bb;
            for (int r = 0; r < b; ++r)
                for (int k = 0; k < nc; ++k)
                    if (U[(size_t)r * b + bq + k] != 0.0) goto off_pattern;
        }
        double *gd = a->gd + i * qc, *gl = a->gl + i * qc, *gdt = a->gdt + i * qc, *glt = a->glt + i * qc;
        double *ldt = a->ldt + i * qc, *lut = a->lut + i * qc;
        for (int r = 0; r < bq; ++r)
            for (int k = 0; k < nc; ++k) gdt[k * bq + r] = gd[r * nc + k] = D[(size_t)r * b + bq + k] * dv[k];
        if (i > 0) {
            const double *L = J->lower + i * bb, *dp = a->dinv + (size_t)(i - 1) * nc;
            for (int r = 0; r < bq; ++r)
                for (int k = 0; k < nc; ++k) glt[k * bq + r] = gl[r * nc + k] = L[(size_t)r * b + bq + k] * dp[k];
        }
        for (int k = 0; k < nc; ++k)
            for (int c = 0; c < bq; ++c) {
                ldt[c * nc + k] = D[(size_t)(bq + k) * b + c];
                lut[c * nc + k] = i < n - 1 ? J->upper[i * bb + (size_t)(bq + k) * b + c] : 0.0;
            }
        continue;
    off_pattern:
        if (bad) *bad = i;
        return CR_BAD_INPUT;
    }
    for (int i = 0; i < n; ++i) {
        const double *D = J->diag + i * bb, *gd = a->gd + i * qc, *gl = a->gl + i * qc;
        double *Dc = a->Jc->diag + i * qq, *Lc = a->Jc->lower + i * qq, *Uc = a->Jc->upper + i * qq;
        for (int r = 0; r < bq; ++r) {
            cond_row(bq, nc, D + (size_t)r * b, gd + r * nc, D + (size_t)bq * b, b, Dc + (size_t)r * bq);
            if (i > 0) {
                cond_row_add(bq, nc, gl + r * nc, J->upper + (i - 1) * bb + (size_t)bq * b, b, Dc + (size_t)r * bq);
                cond_row(bq, nc, J->lower + i * bb + (size_t)r * b, gl + r * nc,
                         J->diag + (i - 1) * bb + (size_t)bq * b, b, Lc + (size_t)r * bq);
            }
            if (i < n - 1)
                cond_row(bq, nc, J->upper + i * bb + (size_t)r * b, gd + r * nc, J->upper + i * bb + (size_t)bq * b,
                         b, Uc + (size_t)r * bq);
        }
    }
    return CR_OK;
}

#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static cr_status condense19_avx2(cr_blocktri_radau *a, int *bad) { return condense_k(a, 19, 6, bad); }
#endif

static cr_status condense(cr_blocktri_radau *a, int *bad)
{
#ifdef BTS_DISPATCH_AVX2
    if (a->b == 19 && a->nc == 6 && have_avx2()) return condense19_avx2(a, bad);
#endif
    if (a->b == 19 && a->nc == 6) return condense_k(a, 19, 6, bad);
    return condense_k(a, a->b, a->nc, bad);
}

/* x_q = b_q − J_qλ J_λλ⁻¹ b_λ (n·bq from n·b), as column updates with the transposed
 * couplings. Inlined for the dynamics' sizes. */
#define COND_MAX 32
CR_INLINE void condense_rhs_k(const cr_blocktri_radau *a, const int b, const int nc, const double *restrict rhs,
                              double *restrict x)
{
    const int n = a->n, bq = b - nc;
    const size_t qc = (size_t)bq * nc;
    for (int i = 0; i < n; ++i) {
        const double *bi = rhs + (size_t)i * b, *gdt = a->gdt + i * qc, *glt = a->glt + i * qc;
        double *xi = x + (size_t)i * bq;
        if (bq > COND_MAX) { /* not the dynamics: the row form */
            const double *gd = a->gd + i * qc, *gl = a->gl + i * qc;
            for (int r = 0; r < bq; ++r) {
                double s = bi[r];
                for (int k = 0; k < nc; ++k) s -= gd[r * nc + k] * bi[bq + k];
                if (i > 0)
                    for (int k = 0; k < nc; ++k) s -= gl[r * nc + k] * bi[bq + k - b];
                xi[r] = s;
            }
            continue;
        }
        double acc[COND_MAX];
        for (int r = 0; r < bq; ++r) acc[r] = bi[r];
        for (int k = 0; k < nc; ++k) {
            double f = bi[bq + k];
            for (int r = 0; r < bq; ++r) acc[r] -= gdt[k * bq + r] * f;
        }
        if (i > 0)
            for (int k = 0; k < nc; ++k) {
                double f = bi[bq + k - b];
                for (int r = 0; r < bq; ++r) acc[r] -= glt[k * bq + r] * f;
            }
        for (int r = 0; r < bq; ++r) xi[r] = acc[r];
    }
}

#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static void condense_rhs19_avx2(const cr_blocktri_radau *a, const double *rhs, double *x)
{
    condense_rhs_k(a, 19, 6, rhs, x);
}
#endif

static void condense_rhs(const cr_blocktri_radau *a, const double *rhs, double *x)
{
#ifdef BTS_DISPATCH_AVX2
    if (a->b == 19 && a->nc == 6 && have_avx2()) {
        condense_rhs19_avx2(a, rhs, x);
        return;
    }
#endif
    if (a->b == 19 && a->nc == 6) condense_rhs_k(a, 19, 6, rhs, x);
    else condense_rhs_k(a, a->b, a->nc, rhs, x);
}

/* rhs := (x_q, x_λ) with x_λ = −J_λλ⁻¹ (b_λ + J_λq x_q), in place over the right-hand side
 * (column updates with the transposed J_λq of D_i and U_i). */
CR_INLINE void expand_solution_k(const cr_blocktri_radau *a, const int b, const int nc, double *restrict rhs,
                                 const double *restrict x)
{
    const int n = a->n, bq = b - nc;
    const size_t qc = (size_t)bq * nc;
    for (int i = 0; i < n; ++i) {
        double *bi = rhs + (size_t)i * b;
        const double *xi = x + (size_t)i * bq, *dv = a->dinv + (size_t)i * nc;
        const double *ldt = a->ldt + i * qc, *lut = a->lut + i * qc;
        double acc[COND_MAX];
        if (nc > COND_MAX) { /* not the dynamics */
            const size_t bb = (size_t)b * b;
            const double *D = a->J->diag + i * bb;
            for (int k = 0; k < nc; ++k) {
                const double *rd = D + (size_t)(bq + k) * b;
                double s = bi[bq + k];
                for (int c = 0; c < bq; ++c) s += rd[c] * xi[c];
                if (i < n - 1) {
                    const double *ru = a->J->upper + i * bb + (size_t)(bq + k) * b;
                    for (int c = 0; c < bq; ++c) s += ru[c] * xi[bq + c];
                }
                bi[bq + k] = -dv[k] * s;
            }
            for (int c = 0; c < bq; ++c) bi[c] = xi[c];
            continue;
        }
        for (int k = 0; k < nc; ++k) acc[k] = bi[bq + k];
        for (int c = 0; c < bq; ++c) {
            double f = xi[c];
            for (int k = 0; k < nc; ++k) acc[k] += ldt[c * nc + k] * f;
        }
        if (i < n - 1)
            for (int c = 0; c < bq; ++c) {
                double f = xi[bq + c];
                for (int k = 0; k < nc; ++k) acc[k] += lut[c * nc + k] * f;
            }
        for (int k = 0; k < nc; ++k) bi[bq + k] = -dv[k] * acc[k];
        for (int c = 0; c < bq; ++c) bi[c] = xi[c];
    }
}

#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static void expand_solution19_avx2(const cr_blocktri_radau *a, double *rhs, const double *x)
{
    expand_solution_k(a, 19, 6, rhs, x);
}
#endif

static void expand_solution(const cr_blocktri_radau *a, double *rhs, const double *x)
{
#ifdef BTS_DISPATCH_AVX2
    if (a->b == 19 && a->nc == 6 && have_avx2()) {
        expand_solution19_avx2(a, rhs, x);
        return;
    }
#endif
    if (a->b == 19 && a->nc == 6) expand_solution_k(a, 19, 6, rhs, x);
    else expand_solution_k(a, a->b, a->nc, rhs, x);
}

/* ======================================================================== */
/* Kinematic condensation (cr_blocktri_radau_condense_kinematics)           */
/* ======================================================================== */

/* Unknowns of a condensed 13-block: position 0..2, quaternion 3..6, velocities 7..12. */
#define KQ 13
#define KV 7
enum { KP_MX, KP_DX, KP_MP, KP_DP, KP_ROT, KP_W, KP_SIZE = KP_W + 3 };

cr_status cr_blocktri_radau_condense_kinematics(cr_blocktri_radau *a, cr_error *err)
{
    if (!a || a->bq != KQ || a->kin)
        return cr_error_set(err, CR_BAD_INPUT,
                            "blocktri radau: the kinematic condensation needs 13 unknowns per "
                            "condensed block (once)");
    const int n = a->n;
    a->kpar = malloc((size_t)n * KP_SIZE * sizeof(double));
    a->kP = calloc((size_t)n * 3 * 4 * 36, sizeof(double));
    a->kH = malloc((size_t)n * 24 * sizeof(double));
    a->kC = calloc((size_t)n * 3 * 42, sizeof(double));
    a->kG = malloc((size_t)n * 42 * sizeof(double));
    a->kr = malloc((size_t)n * 3 * sizeof(double));
    a->kcr = malloc((size_t)n * 3 * sizeof(double));
    a->kci = malloc((size_t)n * 3 * sizeof(double));
    a->vr = malloc((size_t)n * 6 * sizeof(double));
    a->vi = malloc((size_t)n * 6 * sizeof(double));
    a->rpiv6 = malloc((size_t)n * 6 * sizeof(double));
    a->k6r = calloc((size_t)n * 3 * 36, sizeof(double));
    a->k6z = calloc((size_t)n * 3 * 72, sizeof(double));
    a->real6 = cr_blocktri_create(n, 6);
    a->cplx6 = cr_blocktri_z_create(n, 6);
    if (!a->kpar || !a->kP || !a->kH || !a->kC || !a->kG || !a->kr || !a->kcr || !a->kci || !a->vr || !a->vi ||
        !a->rpiv6 || !a->k6r || !a->k6z || !a->real6 || !a->cplx6)
        return cr_error_set(err, CR_NO_MEMORY, "blocktri radau: out of memory for the 6x6 blocks");
    a->kin = 1;
    a->kin_ok = 0;
    a->have_real = a->have_complex = 0;
    return CR_OK;
}

/* Whether J_c and the mass have the kinematic pattern (see the header), with each node's
 * parameters in kpar. The comparisons are exact: dynamics.c writes A = ½ [[0, −Ωᵀ], [Ω, −Ω~]]
 * entry by entry, and halving is exact. */
static int kin_classify(cr_blocktri_radau *a)
{
    const int n = a->n;
    const size_t qq = KQ * KQ;
    for (int i = 0; i < n; ++i) {
        const double *D = a->Jc->diag + i * qq, *mq = a->mass_q + (size_t)i * KQ;
        double *kp = a->kpar + (size_t)i * KP_SIZE;
        /* no kinematic row depends on a neighbour */
        for (int s = 0; s < 2; ++s) {
            const double *O =
                s == 0 ? (i > 0 ? a->Jc->lower + i * qq : NULL) : (i < n - 1 ? a->Jc->upper + i * qq : NULL);
            if (O)
                for (int k = 0; k < KV * KQ; ++k)
                    if (O[k] != 0.0) return 0;
        }
        double mx = mq[0], dx = D[0];
        for (int r = 0; r < 3; ++r) {
            if (mq[r] != mx) return 0;
            for (int c = 0; c < KV; ++c)
                if (D[r * KQ + c] != (c == r ? dx : 0.0)) return 0;
        }
        double mp = mq[3];
        for (int r = 3; r < KV; ++r) {
            if (mq[r] != mp) return 0;
            for (int c = 0; c < 3; ++c)
                if (D[r * KQ + c] != 0.0) return 0;
        }
        const double *A = D + 3 * KQ + 3; /* rows and columns 3..6, stride KQ */
        double w[3] = {A[1 * KQ], A[2 * KQ], A[3 * KQ]};
        double sk[3][3] = {{0, -w[2], w[1]}, {w[2], 0, -w[0]}, {-w[1], w[0], 0}};
        int rot = mp == 1.0 && A[0] == 0.0;
        for (int c = 0; c < 3 && rot; ++c)
            if (A[1 + c] != -w[c]) rot = 0;
        for (int r = 0; r < 3 && rot; ++r)
            for (int c = 0; c < 3; ++c)
                if (A[(1 + r) * KQ + 1 + c] != -sk[r][c]) rot = 0;
        double dp = A[0];
        if (!rot)
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 4; ++c)
                    if (A[r * KQ + c] != (r == c ? dp : 0.0)) return 0;
        kp[KP_MX] = mx, kp[KP_DX] = dx, kp[KP_MP] = mp, kp[KP_DP] = dp, kp[KP_ROT] = rot;
        kp[KP_W] = w[0], kp[KP_W + 1] = w[1], kp[KP_W + 2] = w[2];
    }
    return 1;
}

/* Once per Jacobian: H_j = A_j J_c,pv(j), and for every block (row i, column j = i−1, i,
 * i+1) V = J_c,vv, P_x = J_c,vx J_c,xv(j), P_p = J_c,vp J_c,pv(j), P_a = J_c,vp H_j. */
CR_INLINE void kin_products_k(cr_blocktri_radau *a)
{
    const int n = a->n;
    const size_t qq = KQ * KQ;
    for (int j = 0; j < n; ++j) {
        const double *D = a->Jc->diag + j * qq;
        double *H = a->kH + (size_t)j * 24, *G = a->kG + (size_t)j * 42;
        for (int k = 0; k < KV; ++k)
            for (int c = 0; c < 6; ++c) G[c * KV + k] = D[k * KQ + KV + c];
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 6; ++c) {
                double s = 0;
                for (int k = 0; k < 4; ++k) s += D[(3 + r) * KQ + 3 + k] * D[(3 + k) * KQ + KV + c];
                H[r * 6 + c] = s;
            }
    }
    for (int i = 0; i < n; ++i)
        for (int blk = 0; blk < 3; ++blk) {
            int j = i - 1 + blk;
            if (j < 0 || j >= n) continue;
            const double *B = blk == 0   ? a->Jc->lower + i * qq
                              : blk == 1 ? a->Jc->diag + i * qq
                                         : a->Jc->upper + i * qq;
            const double *Dj = a->Jc->diag + j * qq, *H = a->kH + (size_t)j * 24;
            double *P = a->kP + ((size_t)i * 3 + blk) * 4 * 36, *C = a->kC + ((size_t)i * 3 + blk) * 42;
            for (int r = 0; r < 6; ++r) { /* row r of V, P_x, P_p, P_a: updates vectorized over c */
                const double *br = B + (KV + r) * KQ;
                double px[6] = {0}, pp[6] = {0}, pa[6] = {0};
                for (int k = 0; k < KV; ++k) C[k * 6 + r] = br[k];
                for (int k = 0; k < 3; ++k) {
                    double f = br[k];
                    for (int c = 0; c < 6; ++c) px[c] += f * Dj[k * KQ + KV + c];
                }
                for (int k = 0; k < 4; ++k) {
                    double f = br[3 + k];
                    for (int c = 0; c < 6; ++c) {
                        pp[c] += f * Dj[(3 + k) * KQ + KV + c];
                        pa[c] += f * H[k * 6 + c];
                    }
                }
                for (int c = 0; c < 6; ++c) {
                    P[r * 6 + c] = br[KV + c];
                    P[36 + r * 6 + c] = px[c];
                    P[72 + r * 6 + c] = pp[c];
                    P[108 + r * 6 + c] = pa[c];
                }
            }
        }
}

#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static void kin_products_avx2(cr_blocktri_radau *a) { kin_products_k(a); }
#endif

static void kin_products(cr_blocktri_radau *a)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        kin_products_avx2(a);
        return;
    }
#endif
    kin_products_k(a);
}

/* (pr + i pi)/(qr + i qi) (Smith); a zero or non-finite result gives −1. */
static int kdiv(double pr, double pi, double qr, double qi, double *rr, double *ri)
{
    double ir, ii;
    if (qr == 0.0 && qi == 0.0) return -1;
    zrecip(qr, qi, &ir, &ii);
    *rr = pr * ir - pi * ii;
    *ri = pr * ii + pi * ir;
    return isfinite(*rr) && isfinite(*ri) ? 0 : -1;
}

/* α, β, γ of every node for the shift s = sr + i si (K_x⁻¹ = α I, K_p⁻¹ = β I + γ A). */
static int kin_coefficients(const cr_blocktri_radau *a, double sr, double si, double *cr, double *ci, int *bad)
{
    for (int j = 0; j < a->n; ++j) {
        const double *kp = a->kpar + (size_t)j * KP_SIZE;
        double *r = cr + 3 * (size_t)j, *m = ci + 3 * (size_t)j;
        int fail = kdiv(1, 0, sr * kp[KP_MX] - kp[KP_DX], si * kp[KP_MX], &r[0], &m[0]);
        if (kp[KP_ROT]) {
            double w2 = kp[KP_W] * kp[KP_W] + kp[KP_W + 1] * kp[KP_W + 1] + kp[KP_W + 2] * kp[KP_W + 2];
            double qr = sr * sr - si * si + w2, qi = 2 * sr * si;
            fail |= kdiv(sr, si, qr, qi, &r[1], &m[1]);
            fail |= kdiv(1, 0, qr, qi, &r[2], &m[2]);
        } else {
            fail |= kdiv(1, 0, sr * kp[KP_MP] - kp[KP_DP], si * kp[KP_MP], &r[1], &m[1]);
            r[2] = m[2] = 0.0;
        }
        if (fail) {
            *bad = j;
            return -1;
        }
    }
    return 0;
}

/* The 6×6 blocks for the shift s: δ_ij s M_v − V − α_j P_x − β_j P_p − γ_j P_a, real
 * (w_im = NULL) or complex. */
CR_INLINE void kin_assemble_k(const cr_blocktri_radau *a, double sr, double si, const double *cr, const double *ci,
                              double *dre, double *dim, double *lre, double *lim, double *ure, double *uim)
{
    const int n = a->n;
    for (int i = 0; i < n; ++i)
        for (int blk = 0; blk < 3; ++blk) {
            int j = i - 1 + blk;
            if (j < 0 || j >= n) continue;
            const double *P = a->kP + ((size_t)i * 3 + blk) * 4 * 36;
            double *ore = (blk == 0 ? lre : blk == 1 ? dre : ure) + (size_t)i * 36;
            double *oim = dim ? (blk == 0 ? lim : blk == 1 ? dim : uim) + (size_t)i * 36 : NULL;
            double ar = cr[3 * j], br = cr[3 * j + 1], gr = cr[3 * j + 2];
            for (int k = 0; k < 36; ++k) ore[k] = -P[k] - ar * P[36 + k] - br * P[72 + k] - gr * P[108 + k];
            if (oim) {
                double ai = ci[3 * j], bi = ci[3 * j + 1], gi = ci[3 * j + 2];
                for (int k = 0; k < 36; ++k) oim[k] = -ai * P[36 + k] - bi * P[72 + k] - gi * P[108 + k];
            }
            if (blk == 1)
                for (int r = 0; r < 6; ++r) {
                    double mv = a->mass_q[(size_t)i * KQ + KV + r];
                    ore[r * 6 + r] += sr * mv;
                    if (oim) oim[r * 6 + r] += si * mv;
                }
        }
}

/* out := Mᵀ for a row-major 6×6 block (column-major copy). */
CR_INLINE void t6(const double *restrict m, double *restrict out)
{
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) out[c * 6 + r] = m[r * 6 + c];
}

/* The transposed L_i, D̃_i⁻¹, X_i of the factored 6×6 systems (see k6r, k6z). */
CR_INLINE void kin_inverses_real_k(cr_blocktri_radau *a)
{
    const cr_blocktri *w = a->real6;
    for (int i = 0; i < a->n; ++i) {
        double *o = a->k6r + (size_t)i * 108, inv[36];
        if (i > 0) t6(w->lower + (size_t)i * 36, o);
        for (int k = 0; k < 36; ++k) inv[k] = (k % 7 == 0) ? 1.0 : 0.0;
        rlu_solve_b(6, w->diag + (size_t)i * 36, w->pivot + (size_t)i * 6, a->rpiv6 + (size_t)i * 6, inv, 6);
        t6(inv, o + 36);
        if (i < a->n - 1) t6(w->upper + (size_t)i * 36, o + 72);
    }
}

CR_INLINE void kin_inverses_complex_k(cr_blocktri_radau *a)
{
    const cr_blocktri_z *w = a->cplx6;
    for (int i = 0; i < a->n; ++i) {
        double *o = a->k6z + (size_t)i * 216, ir[36], ii[36];
        size_t at = (size_t)i * 36;
        if (i > 0) t6(w->lower_re + at, o), t6(w->lower_im + at, o + 36);
        for (int k = 0; k < 36; ++k) ir[k] = (k % 7 == 0) ? 1.0 : 0.0, ii[k] = 0.0;
        zlu_solve(6, w->diag_re + at, w->diag_im + at, w->pivot + (size_t)i * 6, w->rpiv_re + (size_t)i * 6,
                  w->rpiv_im + (size_t)i * 6, ir, ii, 6);
        t6(ir, o + 72), t6(ii, o + 108);
        if (i < a->n - 1) t6(w->upper_re + at, o + 144), t6(w->upper_im + at, o + 180);
    }
}

#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static void kin_assemble_avx2(const cr_blocktri_radau *a, double sr, double si, const double *cr,
                                       const double *ci, double *dre, double *dim, double *lre, double *lim,
                                       double *ure, double *uim)
{
    kin_assemble_k(a, sr, si, cr, ci, dre, dim, lre, lim, ure, uim);
}
BTS_AVX2 static void kin_inverses_real_avx2(cr_blocktri_radau *a) { kin_inverses_real_k(a); }
BTS_AVX2 static void kin_inverses_complex_avx2(cr_blocktri_radau *a) { kin_inverses_complex_k(a); }
#endif
static void kin_assemble(const cr_blocktri_radau *a, double sr, double si, const double *cr, const double *ci,
                         double *dre, double *dim, double *lre, double *lim, double *ure, double *uim)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        kin_assemble_avx2(a, sr, si, cr, ci, dre, dim, lre, lim, ure, uim);
        return;
    }
#endif
    kin_assemble_k(a, sr, si, cr, ci, dre, dim, lre, lim, ure, uim);
}
static void kin_inverses_real(cr_blocktri_radau *a)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        kin_inverses_real_avx2(a);
        return;
    }
#endif
    kin_inverses_real_k(a);
}
static void kin_inverses_complex(cr_blocktri_radau *a)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        kin_inverses_complex_avx2(a);
        return;
    }
#endif
    kin_inverses_complex_k(a);
}

static cr_status kin_factor_real(cr_blocktri_radau *a, double shift, int *bad)
{
    if (kin_coefficients(a, shift, 0.0, a->kr, a->vr /* scratch: imaginary parts, all 0 */, bad)) return CR_SINGULAR;
    cr_blocktri *w = a->real6;
    kin_assemble(a, shift, 0.0, a->kr, NULL, w->diag, NULL, w->lower, NULL, w->upper, NULL);
    cr_status st = rfactor6(w, a->rpiv6, bad);
    if (st == CR_OK) kin_inverses_real(a);
    return st;
}

static cr_status kin_factor_complex(cr_blocktri_radau *a, double sr, double si, int *bad)
{
    if (kin_coefficients(a, sr, si, a->kcr, a->kci, bad)) return CR_SINGULAR;
    cr_blocktri_z *w = a->cplx6;
    kin_assemble(a, sr, si, a->kcr, a->kci, w->diag_re, w->diag_im, w->lower_re, w->lower_im, w->upper_re, w->upper_im);
    cr_status st = zfactor(w, 0, bad);
    if (st == CR_OK) kin_inverses_complex(a);
    return st;
}

/* Block Thomas solves of the factored 6×6 systems with the transposed blocks:
 * x_i := D̃_i⁻¹ (x_i − L_i x_{i−1}) forward, x_i −= X_i x_{i+1} backward. */
/* fwd, bwd: the forward sweep (y = L̃⁻¹ x, each block times D̃⁻¹) and the back substitution;
 * both for the solve, one of them for the halves of cr_blocktri_radau_solve_open/_close */
CR_INLINE void solve6t_real_k(const cr_blocktri_radau *a, double *restrict x, const int fwd, const int bwd)
{
    const int n = a->n;
    for (int i = 0; i < n && fwd; ++i) {
        const double *o = a->k6r + (size_t)i * 108;
        double *xi = x + (size_t)i * 6, y[6], z[6] = {0};
        for (int r = 0; r < 6; ++r) y[r] = xi[r];
        if (i > 0)
            for (int k = 0; k < 6; ++k) {
                double f = xi[k - 6];
                for (int r = 0; r < 6; ++r) y[r] -= o[k * 6 + r] * f;
            }
        for (int k = 0; k < 6; ++k)
            for (int r = 0; r < 6; ++r) z[r] += o[36 + k * 6 + r] * y[k];
        for (int r = 0; r < 6; ++r) xi[r] = z[r];
    }
    for (int i = n - 2; i >= 0 && bwd; --i) {
        const double *o = a->k6r + (size_t)i * 108 + 72;
        double *xi = x + (size_t)i * 6, y[6];
        for (int r = 0; r < 6; ++r) y[r] = xi[r];
        for (int k = 0; k < 6; ++k) {
            double f = xi[6 + k];
            for (int r = 0; r < 6; ++r) y[r] -= o[k * 6 + r] * f;
        }
        for (int r = 0; r < 6; ++r) xi[r] = y[r];
    }
}

CR_INLINE void solve6t_complex_k(const cr_blocktri_radau *a, double *restrict xr, double *restrict xi_, const int fwd,
                                 const int bwd)
{
    const int n = a->n;
    for (int i = 0; i < n && fwd; ++i) {
        const double *o = a->k6z + (size_t)i * 216;
        double *pr = xr + (size_t)i * 6, *pi = xi_ + (size_t)i * 6, yr[6], yi[6], zr[6] = {0}, zi[6] = {0};
        for (int r = 0; r < 6; ++r) yr[r] = pr[r], yi[r] = pi[r];
        if (i > 0)
            for (int k = 0; k < 6; ++k) {
                double fr = pr[k - 6], fi = pi[k - 6];
                const double *lr = o + k * 6, *li = o + 36 + k * 6;
                for (int r = 0; r < 6; ++r) {
                    yr[r] -= lr[r] * fr - li[r] * fi;
                    yi[r] -= lr[r] * fi + li[r] * fr;
                }
            }
        for (int k = 0; k < 6; ++k) {
            const double *dr = o + 72 + k * 6, *di = o + 108 + k * 6;
            double fr = yr[k], fi = yi[k];
            for (int r = 0; r < 6; ++r) {
                zr[r] += dr[r] * fr - di[r] * fi;
                zi[r] += dr[r] * fi + di[r] * fr;
            }
        }
        for (int r = 0; r < 6; ++r) pr[r] = zr[r], pi[r] = zi[r];
    }
    for (int i = n - 2; i >= 0 && bwd; --i) {
        const double *o = a->k6z + (size_t)i * 216;
        double *pr = xr + (size_t)i * 6, *pi = xi_ + (size_t)i * 6, yr[6], yi[6];
        for (int r = 0; r < 6; ++r) yr[r] = pr[r], yi[r] = pi[r];
        for (int k = 0; k < 6; ++k) {
            double fr = pr[6 + k], fi = pi[6 + k];
            const double *ur = o + 144 + k * 6, *ui = o + 180 + k * 6;
            for (int r = 0; r < 6; ++r) {
                yr[r] -= ur[r] * fr - ui[r] * fi;
                yi[r] -= ur[r] * fi + ui[r] * fr;
            }
        }
        for (int r = 0; r < 6; ++r) pr[r] = yr[r], pi[r] = yi[r];
    }
}

static void solve6t_real(const cr_blocktri_radau *a, double *x) { solve6t_real_k(a, x, 1, 1); }
static void solve6t_complex(const cr_blocktri_radau *a, double *xr, double *xi) { solve6t_complex_k(a, xr, xi, 1, 1); }
static void sweep6t(const cr_blocktri_radau *a, int cplx, int fwd, double *xr, double *xi)
{
    if (cplx)
        solve6t_complex_k(a, xr, xi, fwd, !fwd);
    else
        solve6t_real_k(a, xr, fwd, !fwd);
}
#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static void solve6t_real_avx2(const cr_blocktri_radau *a, double *x) { solve6t_real_k(a, x, 1, 1); }
BTS_AVX2 static void solve6t_complex_avx2(const cr_blocktri_radau *a, double *xr, double *xi)
{
    solve6t_complex_k(a, xr, xi, 1, 1);
}
BTS_AVX2 static void sweep6t_avx2(const cr_blocktri_radau *a, int cplx, int fwd, double *xr, double *xi)
{
    if (cplx)
        solve6t_complex_k(a, xr, xi, fwd, !fwd);
    else
        solve6t_real_k(a, xr, fwd, !fwd);
}
#endif

/* Over the condensed right-hand side x (n·13, planes xr and xi; cplx = 0: xr only, for
 * the real shift): w_a = K⁻¹ b_a in place of b_a, then v = b_v + J_c,va w_a (n·6). */
CR_INLINE void kin_rhs_k(const cr_blocktri_radau *a, const int cplx, const double *cr, const double *ci,
                         double *restrict xr, double *restrict xi, double *restrict vr, double *restrict vi)
{
    const int n = a->n;
    const size_t qq = KQ * KQ;
    for (int j = 0; j < n; ++j) {
        const double *A = a->Jc->diag + j * qq + 3 * KQ + 3;
        double *br = xr + (size_t)j * KQ;
        double ar = cr[3 * j], be = cr[3 * j + 1], ga = cr[3 * j + 2];
        double tr[4];
        for (int r = 0; r < 4; ++r)
            tr[r] = A[r * KQ] * br[3] + A[r * KQ + 1] * br[4] + A[r * KQ + 2] * br[5] + A[r * KQ + 3] * br[6];
        if (!cplx) {
            for (int k = 0; k < 3; ++k) br[k] *= ar;
            for (int r = 0; r < 4; ++r) br[3 + r] = be * br[3 + r] + ga * tr[r];
            continue;
        }
        double *bi = xi + (size_t)j * KQ;
        double ai = ci[3 * j], bei = ci[3 * j + 1], gai = ci[3 * j + 2], ti[4];
        for (int r = 0; r < 4; ++r)
            ti[r] = A[r * KQ] * bi[3] + A[r * KQ + 1] * bi[4] + A[r * KQ + 2] * bi[5] + A[r * KQ + 3] * bi[6];
        for (int k = 0; k < 3; ++k) {
            double u = br[k], v = bi[k];
            br[k] = ar * u - ai * v, bi[k] = ar * v + ai * u;
        }
        for (int r = 0; r < 4; ++r) {
            double u = br[3 + r], v = bi[3 + r];
            br[3 + r] = be * u - bei * v + ga * tr[r] - gai * ti[r];
            bi[3 + r] = be * v + bei * u + ga * ti[r] + gai * tr[r];
        }
    }
    for (int i = 0; i < n; ++i) {
        double accr[6], acci[6];
        const double *xq = xr + (size_t)i * KQ + KV, *xqi = cplx ? xi + (size_t)i * KQ + KV : NULL;
        for (int r = 0; r < 6; ++r) accr[r] = xq[r];
        if (cplx)
            for (int r = 0; r < 6; ++r) acci[r] = xqi[r];
        int j0 = i > 0 ? 0 : 1, j1 = i < n - 1 ? 3 : 2;
        for (int blk = j0; blk < j1; ++blk) { /* columns of J_c,va (rows of C) times w_j */
            const double *C = a->kC + ((size_t)i * 3 + blk) * 42;
            const double *wr = xr + (size_t)(i - 1 + blk) * KQ, *wi = cplx ? xi + (size_t)(i - 1 + blk) * KQ : NULL;
            for (int k = 0; k < KV; ++k) {
                double fr = wr[k];
                for (int r = 0; r < 6; ++r) accr[r] += C[k * 6 + r] * fr;
                if (cplx) {
                    double fi = wi[k];
                    for (int r = 0; r < 6; ++r) acci[r] += C[k * 6 + r] * fi;
                }
            }
        }
        for (int r = 0; r < 6; ++r) vr[(size_t)i * 6 + r] = accr[r];
        if (cplx)
            for (int r = 0; r < 6; ++r) vi[(size_t)i * 6 + r] = acci[r];
    }
}

/* x_v into the condensed vector and x_a = w_a + K⁻¹ J_c,av x_v. */
CR_INLINE void kin_back_k(const cr_blocktri_radau *a, const int cplx, const double *cr, const double *ci,
                          double *restrict xr, double *restrict xi, const double *restrict vr,
                          const double *restrict vi)
{
    const int n = a->n;
    const size_t qq = KQ * KQ;
    for (int j = 0; j < n; ++j) {
        const double *A = a->Jc->diag + j * qq + 3 * KQ + 3, *G = a->kG + (size_t)j * 42;
        double *br = xr + (size_t)j * KQ;
        const double *ur = vr + (size_t)j * 6;
        double tr[KV] = {0}, ti[KV] = {0};
        for (int c = 0; c < 6; ++c) {
            double f = ur[c];
            for (int k = 0; k < KV; ++k) tr[k] += G[c * KV + k] * f;
        }
        if (cplx) {
            const double *ui = vi + (size_t)j * 6;
            for (int c = 0; c < 6; ++c) {
                double f = ui[c];
                for (int k = 0; k < KV; ++k) ti[k] += G[c * KV + k] * f;
            }
        }
        double ar = cr[3 * j], be = cr[3 * j + 1], ga = cr[3 * j + 2];
        double atr[4];
        for (int r = 0; r < 4; ++r)
            atr[r] = A[r * KQ] * tr[3] + A[r * KQ + 1] * tr[4] + A[r * KQ + 2] * tr[5] + A[r * KQ + 3] * tr[6];
        if (!cplx) {
            for (int k = 0; k < 3; ++k) br[k] += ar * tr[k];
            for (int r = 0; r < 4; ++r) br[3 + r] += be * tr[3 + r] + ga * atr[r];
            for (int c = 0; c < 6; ++c) br[KV + c] = ur[c];
            continue;
        }
        double *bi = xi + (size_t)j * KQ;
        const double *ui = vi + (size_t)j * 6;
        double ai = ci[3 * j], bei = ci[3 * j + 1], gai = ci[3 * j + 2], ati[4];
        for (int r = 0; r < 4; ++r)
            ati[r] = A[r * KQ] * ti[3] + A[r * KQ + 1] * ti[4] + A[r * KQ + 2] * ti[5] + A[r * KQ + 3] * ti[6];
        for (int k = 0; k < 3; ++k) {
            br[k] += ar * tr[k] - ai * ti[k];
            bi[k] += ar * ti[k] + ai * tr[k];
        }
        for (int r = 0; r < 4; ++r) {
            br[3 + r] += be * tr[3 + r] - bei * ti[3 + r] + ga * atr[r] - gai * ati[r];
            bi[3 + r] += be * ti[3 + r] + bei * tr[3 + r] + ga * ati[r] + gai * atr[r];
        }
        for (int c = 0; c < 6; ++c) br[KV + c] = ur[c], bi[KV + c] = ui[c];
    }
}

static void kin_rhs_real(const cr_blocktri_radau *a, double *xr, double *vr)
{
    kin_rhs_k(a, 0, a->kr, NULL, xr, NULL, vr, NULL);
}
static void kin_rhs_cplx(const cr_blocktri_radau *a, double *xr, double *xi, double *vr, double *vi)
{
    kin_rhs_k(a, 1, a->kcr, a->kci, xr, xi, vr, vi);
}
static void kin_back_real(const cr_blocktri_radau *a, double *xr, const double *vr)
{
    kin_back_k(a, 0, a->kr, NULL, xr, NULL, vr, NULL);
}
static void kin_back_cplx(const cr_blocktri_radau *a, double *xr, double *xi, const double *vr, const double *vi)
{
    kin_back_k(a, 1, a->kcr, a->kci, xr, xi, vr, vi);
}
#ifdef BTS_DISPATCH_AVX2
BTS_AVX2 static void kin_rhs_real_avx2(const cr_blocktri_radau *a, double *xr, double *vr)
{
    kin_rhs_k(a, 0, a->kr, NULL, xr, NULL, vr, NULL);
}
BTS_AVX2 static void kin_rhs_cplx_avx2(const cr_blocktri_radau *a, double *xr, double *xi, double *vr, double *vi)
{
    kin_rhs_k(a, 1, a->kcr, a->kci, xr, xi, vr, vi);
}
BTS_AVX2 static void kin_back_real_avx2(const cr_blocktri_radau *a, double *xr, const double *vr)
{
    kin_back_k(a, 0, a->kr, NULL, xr, NULL, vr, NULL);
}
BTS_AVX2 static void kin_back_cplx_avx2(const cr_blocktri_radau *a, double *xr, double *xi, const double *vr,
                                        const double *vi)
{
    kin_back_k(a, 1, a->kcr, a->kci, xr, xi, vr, vi);
}
#endif

/* Solves the condensed system (13-blocks, x) through the 6×6 factorization. */
static void kin_solve(const cr_blocktri_radau *a, int complex_, double *xr, double *xi)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        if (complex_) {
            kin_rhs_cplx_avx2(a, xr, xi, a->vr, a->vi);
            solve6t_complex_avx2(a, a->vr, a->vi);
            kin_back_cplx_avx2(a, xr, xi, a->vr, a->vi);
        } else {
            kin_rhs_real_avx2(a, xr, a->vr);
            solve6t_real_avx2(a, a->vr);
            kin_back_real_avx2(a, xr, a->vr);
        }
        return;
    }
#endif
    if (complex_) {
        kin_rhs_cplx(a, xr, xi, a->vr, a->vi);
        solve6t_complex(a, a->vr, a->vi);
        kin_back_cplx(a, xr, xi, a->vr, a->vi);
    } else {
        kin_rhs_real(a, xr, a->vr);
        solve6t_real(a, a->vr);
        kin_back_real(a, xr, a->vr);
    }
}
/* kin_solve in two halves: the kinematic condensation and the forward sweep (fwd), or the back
 * substitution and the kinematic one (!fwd); the 6-vectors in the adaptor's (or view's) vr, vi */
static void kin_half(const cr_blocktri_radau *a, int cplx, int fwd, double *xr, double *xi)
{
#ifdef BTS_DISPATCH_AVX2
    if (have_avx2()) {
        if (fwd) {
            if (cplx)
                kin_rhs_cplx_avx2(a, xr, xi, a->vr, a->vi);
            else
                kin_rhs_real_avx2(a, xr, a->vr);
        }
        sweep6t_avx2(a, cplx, fwd, a->vr, a->vi);
        if (!fwd) {
            if (cplx)
                kin_back_cplx_avx2(a, xr, xi, a->vr, a->vi);
            else
                kin_back_real_avx2(a, xr, a->vr);
        }
        return;
    }
#endif
    if (fwd) {
        if (cplx)
            kin_rhs_cplx(a, xr, xi, a->vr, a->vi);
        else
            kin_rhs_real(a, xr, a->vr);
    }
    sweep6t(a, cplx, fwd, a->vr, a->vi);
    if (!fwd) {
        if (cplx)
            kin_back_cplx(a, xr, xi, a->vr, a->vi);
        else
            kin_back_real(a, xr, a->vr);
    }
}
#undef KQ
#undef KV


/* Checks the blocks the factorizations read (L_0 and U_{n−1} are not). */
static int jacobian_finite(const cr_blocktri *J)
{
    size_t bb = (size_t)J->b * J->b, n = (size_t)J->n;
    if (!cr_all_finite(J->diag, n * bb)) return 0;
    if (n > 1 && !cr_all_finite(J->lower + bb, (n - 1) * bb)) return 0;
    if (n > 1 && !cr_all_finite(J->upper, (n - 1) * bb)) return 0;
    return 1;
}

static cr_status hook_jacobian(double t, const double *y, const double *fy, void *ctx)
{
    cr_blocktri_radau *a = ctx;
    a->jac_calls++;
    a->have_real = a->have_complex = 0;
    if (!a->filled) cr_blocktri_zero(a->J);
    cr_status st = a->jacobian(t, y, fy, a->J, a->user);
    if (st != CR_OK) return st;
    /* a NaN would survive the factorization and surface only as a failed
     * Newton iteration; J depends on (t, y) alone, so say so now */
    if (!a->nc) return jacobian_finite(a->J) ? CR_OK : CR_NONFINITE;
    int bad = -1;
    st = condense(a, &bad);
    if (st != CR_OK) { /* a NaN where the pattern wants a zero is a NaN first */
        if (!jacobian_finite(a->J)) return CR_NONFINITE;
        a->bad_block = bad;
        return st;
    }
    /* every entry of J the solves read enters J_c with a factor (NaN·0 and ∞·0 are NaN),
     * and J_λλ⁻¹ was checked: J_c, half the size, stands for J */
    if (!jacobian_finite(a->Jc)) return CR_NONFINITE;
    if (a->kin && (a->kin_ok = kin_classify(a)))
        kin_products(a);
    else if (a->kin)
        a->kin_fallbacks++;
    return CR_OK;
}

static cr_status hook_factor_real(double shift, void *ctx)
{
    cr_blocktri_radau *a = ctx;
    a->factor_real_calls++;
    int bad = -1;
    cr_status st;
    a->real6_used = a->kin && a->kin_ok;
    if (a->real6_used) {
        st = kin_factor_real(a, shift, &bad);
    } else if (a->rpiv) { /* condensed to 13: work := shift·M_q − J_c, factored by the fixed-size kernel */
        cr_blocktri *w = a->real;
        const size_t qq = (size_t)a->bq * a->bq, total = (size_t)a->n * qq;
        for (size_t k = 0; k < total; ++k) w->diag[k] = -a->Jc->diag[k];
        for (size_t k = 0; k < total; ++k) w->lower[k] = -a->Jc->lower[k];
        for (size_t k = 0; k < total; ++k) w->upper[k] = -a->Jc->upper[k];
        for (int i = 0; i < a->n; ++i)
            for (int r = 0; r < a->bq; ++r) w->diag[i * qq + (size_t)r * a->bq + r] += shift * a->mass_q[(size_t)i * a->bq + r];
        st = rfactor13(w, a->rpiv, &bad);
    } else {
        st = a->nc ? cr_blocktri_shifted_factor_real(a->Jc, a->mass_q, shift, a->real, &bad)
                   : cr_blocktri_shifted_factor_real(a->J, a->mass, shift, a->real, &bad);
    }
    a->have_real = (st == CR_OK);
    if (st == CR_SINGULAR) a->bad_block = bad;
    return st;
}

static cr_status hook_solve_real(double *b, void *ctx)
{
    cr_blocktri_radau *a = ctx;
    a->solve_real_calls++;
    if (!a->have_real) return CR_BAD_INPUT;
    if (!a->nc) {
        cr_blocktri_solve(a->real, b);
        return CR_OK;
    }
    condense_rhs(a, b, a->xr);
    if (a->real6_used)
        kin_solve(a, 0, a->xr, NULL);
    else if (a->rpiv)
        rsolve13(a->real, a->rpiv, a->xr);
    else cr_blocktri_solve(a->real, a->xr);
    expand_solution(a, b, a->xr);
    return CR_OK;
}

static cr_status hook_factor_complex(double shift_re, double shift_im, void *ctx)
{
    cr_blocktri_radau *a = ctx;
    a->factor_complex_calls++;
    int bad = -1;
    a->cplx6_used = a->kin && a->kin_ok;
    cr_status st = a->cplx6_used ? kin_factor_complex(a, shift_re, shift_im, &bad)
                   : a->nc ? cr_blocktri_shifted_factor_complex(a->Jc, a->mass_q, shift_re, shift_im, a->cplx, &bad)
                           : cr_blocktri_shifted_factor_complex(a->J, a->mass, shift_re, shift_im, a->cplx, &bad);
    a->have_complex = (st == CR_OK);
    if (st == CR_SINGULAR) a->bad_block = bad;
    return st;
}

static cr_status hook_solve_complex(double *b_re, double *b_im, void *ctx)
{
    cr_blocktri_radau *a = ctx;
    a->solve_complex_calls++;
    if (!a->have_complex) return CR_BAD_INPUT;
    if (!a->nc) {
        cr_blocktri_z_solve(a->cplx, b_re, b_im);
        return CR_OK;
    }
    /* the elimination is real: it acts on both planes alike */
    condense_rhs(a, b_re, a->xr);
    condense_rhs(a, b_im, a->xi);
    if (a->cplx6_used)
        kin_solve(a, 1, a->xr, a->xi);
    else
        cr_blocktri_z_solve(a->cplx, a->xr, a->xi);
    expand_solution(a, b_re, a->xr);
    expand_solution(a, b_im, a->xi);
    return CR_OK;
}

cr_radau_linsys cr_blocktri_radau_linsys(cr_blocktri_radau *a)
{
    cr_radau_linsys ls;
    ls.jacobian = hook_jacobian;
    ls.factor_real = hook_factor_real;
    ls.solve_real = hook_solve_real;
    ls.factor_complex = hook_factor_complex;
    ls.solve_complex = hook_solve_complex;
    ls.ctx = a;
    return ls;
}

/* The view of block rows [o, o + m) of a factored adaptor (6×6 kinematic path), scratch
 * included: what cr_blocktri_radau_solve_tail and _solve_last run the solve's stages on. */
static void view_blocks(const cr_blocktri_radau *a, size_t o, int m, cr_blocktri_radau *v, cr_blocktri *jc)
{
    const size_t qc = (size_t)a->bq * a->nc, qq = (size_t)a->bq * a->bq;
    *v = *a;
    *jc = *a->Jc;
    jc->n = m, jc->diag += o * qq, jc->lower += o * qq, jc->upper += o * qq;
    v->Jc = jc;
    v->n = m;
    v->mass += o * a->b, v->mass_q += o * a->bq, v->dinv += o * a->nc;
    v->gd += o * qc, v->gl += o * qc, v->gdt += o * qc, v->glt += o * qc, v->ldt += o * qc, v->lut += o * qc;
    v->kpar += o * KP_SIZE, v->kP += o * 3 * 4 * 36, v->kH += o * 24, v->kC += o * 3 * 42, v->kG += o * 42;
    v->kr += o * 3, v->kcr += o * 3, v->kci += o * 3, v->k6r += o * 3 * 36, v->k6z += o * 3 * 72;
    v->xr += o * a->bq, v->xi += o * a->bq, v->vr += o * 6, v->vi += o * 6;
}

/* The last two block rows of the factored adaptor as an adaptor of two blocks: a right-hand
 * side that is zero above the last block stays zero through the condensation of the
 * stresses (block i reads b_λ of blocks i and i − 1), the kinematic one (block-local) and
 * the forward sweep of the 6×6 factorization (each row's y depends only on the rows above);
 * so solving with the view gives the solution's last two blocks exactly, in O(1) (the back
 * substitution and the expansion of those two blocks read nothing below them). */
cr_status cr_blocktri_radau_solve_tail(const cr_blocktri_radau *a, int complex_, double *xr, double *xi)
{
    if (!a || a->b != 19 || a->nc != 6 || !a->kin || a->n < 2) return CR_UNSUPPORTED;
    if (complex_ ? !(a->have_complex && a->cplx6_used) : !(a->have_real && a->real6_used)) return CR_UNSUPPORTED;
    cr_blocktri_radau v;
    cr_blocktri jc;
    view_blocks(a, (size_t)a->n - 2, 2, &v, &jc);
    v.xr = a->xr, v.xi = a->xi, v.vr = a->vr, v.vi = a->vi; /* the scratch from its start */
    return complex_ ? hook_solve_complex(xr, xi, &v) : hook_solve_real(xr, &v);
}

/* K⁻¹ z for z zero above its last block (full length, in place): the stresses' and the
 * kinematics' condensation and the forward sweep touch the last block only (the rows above
 * stay zero), then the back substitution, the kinematic back substitution and the expansion
 * run over the whole rod. A full solve less those three stages. */
cr_status cr_blocktri_radau_solve_last(cr_blocktri_radau *a, int complex_, double *zr, double *zi)
{
    if (!a || a->b != 19 || a->nc != 6 || !a->kin || a->n < 2) return CR_UNSUPPORTED;
    if (complex_ ? !(a->have_complex && a->cplx6_used) : !(a->have_real && a->real6_used)) return CR_UNSUPPORTED;
    const int n = a->n;
    const size_t o = (size_t)n - 1;
    cr_blocktri_radau v;
    cr_blocktri jc;
    view_blocks(a, o, 1, &v, &jc);
    memset(a->xr, 0, o * a->bq * sizeof(double)), memset(a->vr, 0, o * 6 * sizeof(double));
    condense_rhs(&v, zr + o * a->b, v.xr);
    if (complex_) {
        memset(a->xi, 0, o * a->bq * sizeof(double)), memset(a->vi, 0, o * 6 * sizeof(double));
        condense_rhs(&v, zi + o * a->b, v.xi);
        kin_rhs_cplx(&v, v.xr, v.xi, v.vr, v.vi);
        solve6t_complex(&v, v.vr, v.vi); /* one block: y = D̃⁻¹ v */
        for (int i = n - 2; i >= 0; --i) {
            const double *ob = a->k6z + (size_t)i * 216;
            double *pr = a->vr + (size_t)i * 6, *pi = a->vi + (size_t)i * 6;
            for (int k = 0; k < 6; ++k) {
                double fr = pr[6 + k], fi = pi[6 + k];
                const double *ur = ob + 144 + k * 6, *ui = ob + 180 + k * 6;
                for (int r = 0; r < 6; ++r) {
                    pr[r] -= ur[r] * fr - ui[r] * fi;
                    pi[r] -= ur[r] * fi + ui[r] * fr;
                }
            }
        }
#ifdef BTS_DISPATCH_AVX2
        if (have_avx2())
            kin_back_cplx_avx2(a, a->xr, a->xi, a->vr, a->vi);
        else
#endif
            kin_back_cplx(a, a->xr, a->xi, a->vr, a->vi);
        expand_solution(a, zr, a->xr);
        expand_solution(a, zi, a->xi);
    } else {
        kin_rhs_real(&v, v.xr, v.vr);
        solve6t_real(&v, v.vr);
        for (int i = n - 2; i >= 0; --i) {
            const double *ob = a->k6r + (size_t)i * 108 + 72;
            double *p = a->vr + (size_t)i * 6;
            for (int k = 0; k < 6; ++k) {
                double f = p[6 + k];
                for (int r = 0; r < 6; ++r) p[r] -= ob[k * 6 + r] * f;
            }
        }
#ifdef BTS_DISPATCH_AVX2
        if (have_avx2())
            kin_back_real_avx2(a, a->xr, a->vr);
        else
#endif
            kin_back_real(a, a->xr, a->vr);
        expand_solution(a, zr, a->xr);
    }
    return CR_OK;
}

/* The two halves of a solve K⁻¹ (b + z) for z known only after the first (an assembly's rod:
 * z is its joint's load on its last node, from the multipliers that the solution's last two
 * blocks decide). _open: the stresses' and the kinematics' condensation of b and the forward
 * sweep, over the whole rod, kept in the adaptor's scratch; then the back substitution, the
 * kinematic one and the expansion of the last two blocks alone (they read nothing above), into
 * b's last two blocks, whose right side goes to save (2·2b doubles: re, then im). _close: z's
 * forward stages on the last block (z is zero above it: solve_last's) added to the kept ones
 * (every stage is linear), b's last two blocks put back, and the back substitutions over the
 * rod. One solve where the assembly took a solve and solve_last's back substitutions. */
cr_status cr_blocktri_radau_solve_open(cr_blocktri_radau *a, int complex_, double *br, double *bi, double *save)
{
    if (!a || a->b != 19 || a->nc != 6 || !a->kin || a->n < 2) return CR_UNSUPPORTED;
    if (complex_ ? !(a->have_complex && a->cplx6_used) : !(a->have_real && a->real6_used)) return CR_UNSUPPORTED;
    const size_t o = (size_t)a->n - 2, bq = (size_t)a->bq, b = (size_t)a->b;
    condense_rhs(a, br, a->xr);
    if (complex_) condense_rhs(a, bi, a->xi);
    kin_half(a, complex_, 1, a->xr, a->xi);
    double tx[2][2 * 13], tv[2][2 * 6];
    cr_blocktri_radau v;
    cr_blocktri jc;
    view_blocks(a, o, 2, &v, &jc);
    memcpy(tx[0], a->xr + o * bq, 2 * bq * sizeof(double)), memcpy(tv[0], a->vr + o * 6, 12 * sizeof(double));
    if (complex_)
        memcpy(tx[1], a->xi + o * bq, 2 * bq * sizeof(double)), memcpy(tv[1], a->vi + o * 6, 12 * sizeof(double));
    v.xr = tx[0], v.xi = tx[1], v.vr = tv[0], v.vi = tv[1];
    kin_half(&v, complex_, 0, tx[0], tx[1]);
    memcpy(save, br + o * b, 2 * b * sizeof(double));
    expand_solution(&v, br + o * b, tx[0]);
    if (complex_) {
        memcpy(save + 2 * b, bi + o * b, 2 * b * sizeof(double));
        expand_solution(&v, bi + o * b, tx[1]);
    }
    return CR_OK;
}

cr_status cr_blocktri_radau_solve_close(cr_blocktri_radau *a, int complex_, double *br, double *bi, const double *save,
                                        const double *zr, const double *zi)
{
    if (!a || a->b != 19 || a->nc != 6 || !a->kin || a->n < 2) return CR_UNSUPPORTED;
    const size_t o = (size_t)a->n - 2, l = o + 1, bq = (size_t)a->bq, b = (size_t)a->b;
    memcpy(br + o * b, save, 2 * b * sizeof(double));
    if (complex_) memcpy(bi + o * b, save + 2 * b, 2 * b * sizeof(double));
    double tx[2][13], tv[2][6];
    cr_blocktri_radau v;
    cr_blocktri jc;
    view_blocks(a, l, 1, &v, &jc);
    v.xr = tx[0], v.xi = tx[1], v.vr = tv[0], v.vi = tv[1];
    condense_rhs(&v, zr, tx[0]);
    if (complex_) condense_rhs(&v, zi, tx[1]);
    kin_half(&v, complex_, 1, tx[0], tx[1]); /* one block: the kinematics' and D̃⁻¹ */
    for (size_t k = 0; k < bq; ++k) a->xr[l * bq + k] += tx[0][k];
    for (int k = 0; k < 6; ++k) a->vr[l * 6 + k] += tv[0][k];
    if (complex_) {
        for (size_t k = 0; k < bq; ++k) a->xi[l * bq + k] += tx[1][k];
        for (int k = 0; k < 6; ++k) a->vi[l * 6 + k] += tv[1][k];
    }
    kin_half(a, complex_, 0, a->xr, a->xi);
    expand_solution(a, br, a->xr);
    if (complex_) expand_solution(a, bi, a->xi);
    return CR_OK;
}
