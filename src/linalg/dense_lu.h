/* LU with partial pivoting of one small dense block (row-major, in place): the pivot
 * kernel of the block Thomas factorizations (blocktri.c, blocktri_shifted.c). Force-
 * inlined, so that a call with a constant size gets loops of constant trip count. */
#ifndef COSSERAT_DENSE_LU_H
#define COSSERAT_DENSE_LU_H

#include <math.h>

#if defined(__GNUC__)
#define CR_LU_INLINE static inline __attribute__((always_inline))
#else
#define CR_LU_INLINE static inline
#endif

/* Factors the b×b block a = P L U in place (L unit lower, below the diagonal; U on and
 * above it); piv[k] is the row swapped with row k at step k. -1 when a pivot vanishes or
 * is not finite (a is then partly factored), else 0. With `reciprocal`, U's diagonal is
 * left as the reciprocals of the pivots (the divisions the solves then do not repeat). */
CR_LU_INLINE int cr_dense_lu_factor_ex(int b, double *a, int *piv, int reciprocal)
{
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
    for (int k = 0; k < b; ++k) {
        int p = k;
        double best = fabs(a[k * b + k]);
        for (int i = k + 1; i < b; ++i)
            if (fabs(a[i * b + k]) > best) best = fabs(a[i * b + k]), p = i;
        piv[k] = p;
        if (!(best > 0) || !isfinite(best)) return -1;
        if (p != k)
            for (int j = 0; j < b; ++j) {
                double t = a[k * b + j];
                a[k * b + j] = a[p * b + j];
                a[p * b + j] = t;
            }
        double inv = 1.0 / a[k * b + k];
        for (int i = k + 1; i < b; ++i) {
            double f = a[i * b + k] *= inv;
            for (int j = k + 1; j < b; ++j) a[i * b + j] -= f * a[k * b + j];
        }
        if (reciprocal) a[k * b + k] = inv;
    }
    return 0;
}

CR_LU_INLINE int cr_dense_lu_factor(int b, double *a, int *piv) { return cr_dense_lu_factor_ex(b, a, piv, 0); }

#endif
