/* Block subspace iteration with Rayleigh–Ritz (Saad, Numerical Methods for Large
 * Eigenvalue Problems, 2nd ed., §5.2): V ← orthonormal basis of C V, and the Ritz
 * values are the eigenvalues of the k×k matrix H = Vᵀ C V. The j-th Ritz value of
 * largest magnitude converges like |ν_{k+1}/ν_j| per iteration, so a block a few
 * vectors larger than the values wanted converges in a handful of iterations when
 * the wanted ones are well separated from the rest (as the few softest modes of a
 * rod are from the stiff ones). C need not be symmetric: dgeev gives the complex
 * Ritz values of a nonsymmetric H. */
#include "stability.h"
#include "linalg/bigalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *wr,
                   double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr, double *work, const int *lwork,
                   int *info);

/* four partial sums: the compiler may not reorder one sum, and a single accumulator
 * made the dot products (orthonormalization and the projected matrix) half the cost
 * of the estimate */
static double dot(const double *a, const double *b, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; ++i) s0 += a[i] * b[i];
    return (s0 + s2) + (s1 + s3);
}

/* Rows per chunk of the passes over a block of vectors: 16 vectors × 512 rows × 8 bytes
 * stay in L1/L2 while every vector's part of them is used. */
#define CHUNK 512

/* c[i] = V_iᵀ v for i < j, in one pass over the rows */
static void project(const double *V, int j, size_t n, const double *v, double *c)
{
    for (int i = 0; i < j; ++i) c[i] = 0;
    for (size_t r0 = 0; r0 < n; r0 += CHUNK) {
        size_t len = n - r0 < CHUNK ? n - r0 : CHUNK;
        for (int i = 0; i < j; ++i) c[i] += dot(V + (size_t)i * n + r0, v + r0, len);
    }
}

/* Classical Gram–Schmidt, twice ("twice is enough": Giraud, Langou and Rozložník, 2005;
 * one pass loses orthogonality when C V is nearly rank-deficient, which is what
 * converging subspace iteration makes it): the projections of a vector onto all the
 * earlier ones in one pass over the rows and its update in another, where modified
 * Gram–Schmidt makes two passes per earlier vector (memory-bound for long rods). A
 * vector that vanishes is replaced by a fresh pseudo-random one. */
static void orthonormalize(double *V, int k, size_t n, unsigned long *seed)
{
    double c[CR_EIGEN_MAX_BLOCK];
    for (int j = 0; j < k; ++j) {
        double *v = V + (size_t)j * n;
        for (int attempt = 0; attempt < 3; ++attempt) {
            double before = sqrt(dot(v, v, n));
            for (int pass = 0; pass < 2 && j > 0; ++pass) {
                project(V, j, n, v, c);
                for (size_t r0 = 0; r0 < n; r0 += CHUNK) { /* v's chunk stays in cache */
                    size_t len = n - r0 < CHUNK ? n - r0 : CHUNK;
                    for (int i = 0; i < j; ++i) {
                        const double *u = V + (size_t)i * n + r0;
                        for (size_t r = 0; r < len; ++r) v[r0 + r] -= c[i] * u[r];
                    }
                }
            }
            double nv = sqrt(dot(v, v, n));
            if (nv > 1e-10 * before && nv > 0) {
                for (size_t r = 0; r < n; ++r) v[r] /= nv;
                break;
            }
            for (size_t r = 0; r < n; ++r) { /* lost: start this one afresh */
                *seed = *seed * 6364136223846793005ul + 1442695040888963407ul;
                v[r] = (double)(*seed >> 11) / 9007199254740992.0 - 0.5;
            }
        }
    }
}

cr_status cr_subspace_iteration(const cr_eigen_problem *p, int k, int wanted, int max_iterations, double tol,
                                cr_eigen_result *out)
{
    const size_t n = p->dim;
    if (k < 2) k = 2;
    if (k > CR_EIGEN_MAX_BLOCK) k = CR_EIGEN_MAX_BLOCK;
    if ((size_t)k > n) k = (int)n;
    if (wanted < 1 || wanted > k) wanted = k;
    double *vectors = out->vectors;
    memset(out, 0, sizeof *out);
    out->vectors = vectors;
    double *V = cr_big_calloc((size_t)k * n), *W = cr_big_calloc((size_t)k * n);
    if (!V || !W) {
        free(V);
        free(W);
        return CR_NO_MEMORY;
    }
    unsigned long seed = 0x9e3779b97f4a7c15ul;
    for (size_t i = 0; i < (size_t)k * n; ++i) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        V[i] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
    }
    double H[CR_EIGEN_MAX_BLOCK * CR_EIGEN_MAX_BLOCK], Y[CR_EIGEN_MAX_BLOCK * CR_EIGEN_MAX_BLOCK];
    double wr[CR_EIGEN_MAX_BLOCK], wi[CR_EIGEN_MAX_BLOCK], prev[CR_EIGEN_MAX_BLOCK], work[64 * CR_EIGEN_MAX_BLOCK];
    int order[CR_EIGEN_MAX_BLOCK], lwork = 64 * CR_EIGEN_MAX_BLOCK, one = 1, info = 0;
    for (int j = 0; j < k; ++j) prev[j] = NAN;
    cr_status st = CR_OK;
    for (int it = 1;; ++it) {
        orthonormalize(V, k, n, &seed);
        st = p->apply(p->ctx, V, W, k);
        for (size_t r = 0; st == CR_OK && r < (size_t)k * n; ++r)
            if (!isfinite(W[r])) st = CR_NONFINITE;
        if (st != CR_OK) break;
        out->iterations = it;
        /* column-major: H(a, b) = v_aᵀ C v_b, all k² of them in one pass over the rows */
        for (int a = 0; a < k * k; ++a) H[a] = 0;
        for (size_t r0 = 0; r0 < n; r0 += CHUNK) {
            size_t len = n - r0 < CHUNK ? n - r0 : CHUNK;
            for (int a = 0; a < k; ++a)
                for (int b = 0; b < k; ++b) H[a + b * k] += dot(V + (size_t)a * n + r0, W + (size_t)b * n + r0, len);
        }
        double dummy;
        dgeev_("N", "V", &k, H, &k, wr, wi, &dummy, &one, Y, &k, work, &lwork, &info);
        if (info != 0) {
            st = CR_NONFINITE;
            break;
        }
        for (int j = 0; j < k; ++j) order[j] = j;
        for (int a = 1; a < k; ++a) /* insertion sort by decreasing magnitude */
            for (int b = a; b > 0 && hypot(wr[order[b]], wi[order[b]]) > hypot(wr[order[b - 1]], wi[order[b - 1]]);
                 --b) {
                int t = order[b];
                order[b] = order[b - 1], order[b - 1] = t;
            }
        int done = 1;
        for (int j = 0; j < wanted; ++j) {
            double mag = hypot(wr[order[j]], wi[order[j]]);
            done &= fabs(mag - prev[j]) <= tol * mag;
            prev[j] = mag;
        }
        if (done || it >= max_iterations) break;
        double *t = V; /* C V is the next V */
        V = W, W = t;
    }
    if (st == CR_OK) {
        /* Ritz vectors u = V y (complex: y = Y[:, j] ± i Y[:, j+1]) and residuals |W y − ν V y| / (|ν| |V y|),
         * row by row (no vectors of length dim beyond the `wanted` ones returned) */
        for (int jj = 0; jj < k; ++jj) {
            int j = order[jj];
            const double *yr, *yi = NULL;
            double sgn = 1;
            if (wi[j] == 0)
                yr = Y + (size_t)j * k;
            else if (j + 1 < k && wi[j] > 0)
                yr = Y + (size_t)j * k, yi = Y + (size_t)(j + 1) * k;
            else
                yr = Y + (size_t)(j - 1) * k, yi = Y + (size_t)j * k, sgn = -1;
            double *vout = vectors && jj < wanted ? vectors + (size_t)jj * n : NULL;
            double res = 0, nu = 0, nr = 0;
            for (size_t r = 0; r < n; ++r) {
                double ur = 0, ui = 0, wur = 0, wui = 0;
                for (int a = 0; a < k; ++a) {
                    ur += yr[a] * V[(size_t)a * n + r], wur += yr[a] * W[(size_t)a * n + r];
                    if (yi) ui += sgn * yi[a] * V[(size_t)a * n + r], wui += sgn * yi[a] * W[(size_t)a * n + r];
                }
                double rr = wur - (wr[j] * ur - wi[j] * ui), ri = wui - (wr[j] * ui + wi[j] * ur);
                res += rr * rr + ri * ri;
                nu += ur * ur + ui * ui;
                nr += ur * ur;
                if (vout) vout[r] = ur;
            }
            out->re[jj] = wr[j];
            out->im[jj] = wi[j];
            double mag = hypot(wr[j], wi[j]);
            out->residual[jj] = mag > 0 && nu > 0 ? sqrt(res / nu) / mag : INFINITY;
            if (vout)
                for (size_t r = 0; r < n; ++r) vout[r] = nr > 0 ? vout[r] / sqrt(nr) : 0.0;
        }
        out->count = k;
    }
    free(V);
    free(W);
    return st;
}
