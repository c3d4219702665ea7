/* A branch-free test that a vector holds finite numbers only, for the hot paths of the
 * integrators and the linear solvers. */
#ifndef COSSERAT_FINITE_H
#define COSSERAT_FINITE_H

#include <stddef.h>

/* 1 when every entry is finite: Σ v·0 is ±0 then and NaN otherwise (∞·0 = NaN), in four
 * independent sums with no branch per entry (a branch on isfinite per entry cost as much
 * as the stress condensation it guarded). */
static inline int cr_all_finite(const double *v, size_t n)
{
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a0 += v[i] * 0.0;
        a1 += v[i + 1] * 0.0;
        a2 += v[i + 2] * 0.0;
        a3 += v[i + 3] * 0.0;
    }
    for (; i < n; ++i) a0 += v[i] * 0.0;
    return (a0 + a1) + (a2 + a3) == 0.0;
}

#endif
