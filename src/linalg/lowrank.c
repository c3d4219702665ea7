/* Woodbury correction of a block-tridiagonal solve (lowrank.h). */
#include "lowrank.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

cr_lowrank *cr_lowrank_create(int n, int b, int roff, int coff)
{
    cr_lowrank *lr = calloc(1, sizeof *lr);
    if (!lr) return NULL;
    lr->n = n, lr->b = b, lr->roff = roff, lr->coff = coff;
    lr->slot = malloc((size_t)n * sizeof *lr->slot);
    if (!lr->slot) {
        free(lr);
        return NULL;
    }
    for (int i = 0; i < n; ++i) lr->slot[i] = -1;
    return lr;
}

void cr_lowrank_destroy(cr_lowrank *lr)
{
    if (!lr) return;
    free(lr->node), free(lr->slot), free(lr->C), free(lr->Z), free(lr->S), free(lr->VZ), free(lr->piv), free(lr->y);
    free(lr);
}

void cr_lowrank_clear(cr_lowrank *lr)
{
    for (int k = 0; k < lr->m; ++k) lr->slot[lr->node[k]] = -1;
    lr->m = 0, lr->prepared = 0;
}

/* room for `need` blocks: C keeps its entries at the new leading dimension; Z, S, y hold a
 * complex preparation (twice the doubles) */
static cr_status grow(cr_lowrank *lr, int need)
{
    if (need <= lr->cap) return CR_OK;
    int cap = lr->cap ? lr->cap : 8;
    while (cap < need) cap *= 2;
    const size_t ld = 3 * (size_t)cap, old = 3 * (size_t)lr->cap;
    int *node = realloc(lr->node, (size_t)cap * sizeof *node);
    if (node) lr->node = node;
    double *C = calloc(ld * ld, sizeof *C);
    double *Z = malloc(2 * (size_t)lr->n * lr->b * sizeof *Z), *S = malloc(2 * ld * ld * sizeof *S),
           *VZ = malloc(2 * ld * ld * sizeof *VZ), *y = malloc(2 * ld * sizeof *y);
    int *piv = malloc(ld * sizeof *piv);
    if (!node || !C || !Z || !S || !VZ || !y || !piv) {
        free(C), free(Z), free(S), free(VZ), free(y), free(piv);
        return CR_NO_MEMORY;
    }
    for (size_t r = 0; r < 3 * (size_t)lr->m; ++r) memcpy(C + r * ld, lr->C + r * old, 3 * (size_t)lr->m * sizeof *C);
    free(lr->C), free(lr->Z), free(lr->S), free(lr->VZ), free(lr->y), free(lr->piv);
    lr->C = C, lr->Z = Z, lr->S = S, lr->VZ = VZ, lr->y = y, lr->piv = piv, lr->cap = cap;
    return CR_OK;
}

cr_status cr_lowrank_add(cr_lowrank *lr, const int *nodes, int count, const double *K)
{
    int at[16];
    lr->prepared = 0;
    for (int q = 0; q < count; ++q) {
        int i = nodes[q];
        if (lr->slot[i] < 0) {
            if (grow(lr, lr->m + 1) != CR_OK) return CR_NO_MEMORY;
            const size_t ld = 3 * (size_t)lr->cap, j0 = 3 * (size_t)lr->m;
            for (size_t r = 0; r < j0 + 3; ++r) /* a fresh row and column of zeros */
                for (int c = 0; c < 3; ++c) lr->C[r * ld + j0 + c] = lr->C[(j0 + c) * ld + r] = 0;
            lr->slot[i] = lr->m, lr->node[lr->m++] = i;
        }
        at[q] = lr->slot[i];
    }
    const size_t ld = 3 * (size_t)lr->cap;
    const int k = 3 * count;
    for (int r = 0; r < k; ++r)
        for (int c = 0; c < k; ++c)
            lr->C[(3 * (size_t)at[r / 3] + r % 3) * ld + 3 * (size_t)at[c / 3] + c % 3] += K[r * k + c];
    return CR_OK;
}

static size_t urow(const cr_lowrank *lr, int j) { return (size_t)lr->node[j / 3] * lr->b + lr->roff + j % 3; }
static size_t vcol(const cr_lowrank *lr, int j) { return (size_t)lr->node[j / 3] * lr->b + lr->coff + j % 3; }

/* LU with partial pivoting of the k × k matrix S (real: double; complex: double complex) */
#define LU_BODY(T, ABS)                                                                                                \
    for (int p = 0; p < k; ++p) {                                                                                      \
        int best = p;                                                                                                  \
        for (int i = p + 1; i < k; ++i)                                                                                \
            if (ABS(S[(size_t)i * k + p]) > ABS(S[(size_t)best * k + p])) best = i;                                    \
        piv[p] = best;                                                                                                 \
        if (!(ABS(S[(size_t)best * k + p]) > 0) || !isfinite(ABS(S[(size_t)best * k + p]))) return CR_SINGULAR;        \
        if (best != p)                                                                                                 \
            for (int c = 0; c < k; ++c) {                                                                              \
                T t = S[(size_t)p * k + c];                                                                            \
                S[(size_t)p * k + c] = S[(size_t)best * k + c], S[(size_t)best * k + c] = t;                           \
            }                                                                                                          \
        for (int i = p + 1; i < k; ++i) {                                                                              \
            T f = S[(size_t)i * k + p] /= S[(size_t)p * k + p];                                                        \
            for (int c = p + 1; c < k; ++c) S[(size_t)i * k + c] -= f * S[(size_t)p * k + c];                          \
        }                                                                                                              \
    }                                                                                                                  \
    return CR_OK;

static cr_status lu_real(int k, double *S, int *piv) { LU_BODY(double, fabs) }
static cr_status lu_complex(int k, double complex *S, int *piv) { LU_BODY(double complex, cabs) }

/* the row swaps were of whole rows (L's columns too): all of them first, then L, then U */
#define LU_SOLVE(T)                                                                                                    \
    for (int p = 0; p < k; ++p)                                                                                        \
        if (piv[p] != p) {                                                                                             \
            T t = y[p];                                                                                                \
            y[p] = y[piv[p]], y[piv[p]] = t;                                                                           \
        }                                                                                                              \
    for (int p = 0; p < k; ++p)                                                                                        \
        for (int i = p + 1; i < k; ++i) y[i] -= S[(size_t)i * k + p] * y[p];                                           \
    for (int p = k - 1; p >= 0; --p) {                                                                                 \
        T v = y[p];                                                                                                    \
        for (int c = p + 1; c < k; ++c) v -= S[(size_t)p * k + c] * y[c];                                              \
        y[p] = v / S[(size_t)p * k + p];                                                                               \
    }

static void solve_real(int k, const double *S, const int *piv, double *y) { LU_SOLVE(double) }
static void solve_complex(int k, const double complex *S, const int *piv, double complex *y){LU_SOLVE(double complex)}

cr_status cr_lowrank_prepare(cr_lowrank *lr, double sigma, void (*solve)(void *ctx, double *v), void *ctx)
{
    const int k = 3 * lr->m;
    lr->prepared = 0, lr->complex_ = 0, lr->sigma = sigma, lr->solve = solve, lr->ctx = ctx;
    if (k == 0) return CR_OK;
    const size_t dim = (size_t)lr->n * lr->b, ld = 3 * (size_t)lr->cap;
    double *z = lr->Z, *VZ = lr->VZ; /* one column of A⁻¹ U at a time: only Vᵀ Z is kept (k × k) */
    for (int j = 0; j < k; ++j) {
        memset(z, 0, dim * sizeof *z);
        z[urow(lr, j)] = 1.0;
        solve(ctx, z);
        for (int q = 0; q < k; ++q) VZ[(size_t)q * k + j] = z[vcol(lr, q)];
    }
    for (int r = 0; r < k; ++r) { /* S = I + σ C Vᵀ Z */
        double *Sr = lr->S + (size_t)r * k;
        for (int c = 0; c < k; ++c) Sr[c] = 0;
        /* C is block-sparse (each pair couples its 4 nodes): its zeros are skipped, O(nnz k)
         * instead of k³ (the sums run over q in the same order: the same rounding) */
        for (int q = 0; q < k; ++q) {
            const double cq = lr->C[r * ld + q];
            if (cq == 0) continue;
            const double *Zq = VZ + (size_t)q * k;
            for (int c = 0; c < k; ++c) Sr[c] += cq * Zq[c];
        }
        for (int c = 0; c < k; ++c) Sr[c] = (r == c ? 1.0 : 0.0) + sigma * Sr[c];
    }
    cr_status st = lu_real(k, lr->S, lr->piv);
    lr->prepared = st == CR_OK;
    return st;
}

void cr_lowrank_apply(const cr_lowrank *lr, double *x)
{
    const int k = 3 * lr->m;
    if (k == 0 || !lr->prepared) return;
    const size_t dim = (size_t)lr->n * lr->b, ld = 3 * (size_t)lr->cap;
    double *y = lr->y;
    for (int r = 0; r < k; ++r) { /* y = C Vᵀ x (C's zeros skipped) */
        double s = 0;
        for (int q = 0; q < k; ++q)
            if (lr->C[r * ld + q] != 0) s += lr->C[r * ld + q] * x[vcol(lr, q)];
        y[r] = s;
    }
    solve_real(k, lr->S, lr->piv, y);
    /* x ← x − σ Z y = x − A⁻¹ (σ U y): one more solve instead of storing Z (k × n) */
    double *u = lr->Z;
    memset(u, 0, dim * sizeof *u);
    for (int c = 0; c < k; ++c) u[urow(lr, c)] += lr->sigma * y[c];
    lr->solve(lr->ctx, u);
    for (size_t r = 0; r < dim; ++r) x[r] -= u[r];
}

cr_status cr_lowrank_prepare_complex(cr_lowrank *lr, double sigma, void (*solve_c)(void *ctx, double *re, double *im),
                                     void *ctx)
{
    const int k = 3 * lr->m;
    lr->prepared = 0, lr->complex_ = 1, lr->sigma = sigma, lr->solve_c = solve_c, lr->ctx = ctx;
    if (k == 0) return CR_OK;
    const size_t dim = (size_t)lr->n * lr->b, ld = 3 * (size_t)lr->cap;
    double *zr = lr->Z, *zi = lr->Z + dim;
    double complex *VZ = (double complex *)lr->VZ, *S = (double complex *)lr->S;
    for (int j = 0; j < k; ++j) {
        memset(zr, 0, dim * sizeof *zr), memset(zi, 0, dim * sizeof *zi);
        zr[urow(lr, j)] = 1.0;
        solve_c(ctx, zr, zi);
        for (int q = 0; q < k; ++q) VZ[(size_t)q * k + j] = zr[vcol(lr, q)] + I * zi[vcol(lr, q)];
    }
    for (int r = 0; r < k; ++r) { /* as the real one's: C's zeros skipped */
        double complex *Sr = S + (size_t)r * k;
        for (int c = 0; c < k; ++c) Sr[c] = 0;
        for (int q = 0; q < k; ++q) {
            const double cq = lr->C[r * ld + q];
            if (cq == 0) continue;
            const double complex *Zq = VZ + (size_t)q * k;
            for (int c = 0; c < k; ++c) Sr[c] += cq * Zq[c];
        }
        for (int c = 0; c < k; ++c) Sr[c] = (r == c ? 1.0 : 0.0) + sigma * Sr[c];
    }
    cr_status st = lu_complex(k, S, lr->piv);
    lr->prepared = st == CR_OK;
    return st;
}

void cr_lowrank_apply_complex(const cr_lowrank *lr, double *re, double *im)
{
    const int k = 3 * lr->m;
    if (k == 0 || !lr->prepared || !lr->complex_) return;
    const size_t dim = (size_t)lr->n * lr->b, ld = 3 * (size_t)lr->cap;
    double complex *y = (double complex *)lr->y;
    for (int r = 0; r < k; ++r) {
        double complex s = 0;
        for (int q = 0; q < k; ++q)
            if (lr->C[r * ld + q] != 0) s += lr->C[r * ld + q] * (re[vcol(lr, q)] + I * im[vcol(lr, q)]);
        y[r] = s;
    }
    solve_complex(k, (const double complex *)lr->S, lr->piv, y);
    double *ur = lr->Z, *ui = lr->Z + dim; /* x ← x − A⁻¹ (σ U y) */
    memset(ur, 0, dim * sizeof *ur), memset(ui, 0, dim * sizeof *ui);
    for (int c = 0; c < k; ++c) ur[urow(lr, c)] += lr->sigma * creal(y[c]), ui[urow(lr, c)] += lr->sigma * cimag(y[c]);
    lr->solve_c(lr->ctx, ur, ui);
    for (size_t r = 0; r < dim; ++r) re[r] -= ur[r], im[r] -= ui[r];
}

cr_status cr_lowrank_correct(cr_lowrank *lr, void (*solve)(void *ctx, double *v), void *ctx, double *x)
{
    cr_status st = cr_lowrank_prepare(lr, 1.0, solve, ctx);
    if (st == CR_OK) cr_lowrank_apply(lr, x);
    return st;
}

cr_status cr_lowrank_copy(cr_lowrank *dst, const cr_lowrank *src)
{
    cr_lowrank_clear(dst);
    if (grow(dst, src->m) != CR_OK) return CR_NO_MEMORY;
    const size_t ld = 3 * (size_t)dst->cap, ls = 3 * (size_t)src->cap, k = 3 * (size_t)src->m;
    for (int j = 0; j < src->m; ++j) dst->node[j] = src->node[j], dst->slot[src->node[j]] = j;
    dst->m = src->m;
    for (size_t r = 0; r < k; ++r) memcpy(dst->C + r * ld, src->C + r * ls, k * sizeof *dst->C);
    return CR_OK;
}
