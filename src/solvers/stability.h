/* A few eigenvalues of largest magnitude of a linear operator by block subspace
 * iteration with Rayleigh–Ritz (LAPACK dgeev on the small projected matrix).
 * Knows nothing about rods: the operator is a callback on vectors of length `dim`.
 * Used for the stability of static equilibria (src/mixed/statics_stability.c),
 * where the operator is the inverse of the tangent, so the eigenvalues of largest
 * magnitude are the tangent's smallest. */
#ifndef COSSERAT_STABILITY_H
#define COSSERAT_STABILITY_H

#include "cosserat/base.h"

#include <stddef.h>

typedef struct cr_eigen_problem {
    size_t dim;
    void *ctx;
    /* Y = C X for `count` vectors of length dim, one after the other (never aliased):
     * all of a block at once, so that C can share work between them */
    cr_status (*apply)(void *ctx, const double *X, double *Y, int count);
} cr_eigen_problem;

enum { CR_EIGEN_MAX_BLOCK = 16 };

typedef struct cr_eigen_result {
    int count;                     /* Ritz pairs returned (= block size) */
    int iterations;                /* applications of C per vector */
    double re[CR_EIGEN_MAX_BLOCK]; /* Ritz values, by decreasing magnitude */
    double im[CR_EIGEN_MAX_BLOCK];
    double residual[CR_EIGEN_MAX_BLOCK]; /* |C u − ν u| / |ν| of the (real part of the) Ritz vector */
    double *vectors;                     /* wanted × dim unit Ritz vectors (real parts) of the first `wanted`
                                          * Ritz values, owned by the caller (may be NULL) */
} cr_eigen_result;

/* Subspace iteration with `block` vectors (2..CR_EIGEN_MAX_BLOCK) from a fixed
 * pseudo-random start (deterministic), at most max_iterations applications per
 * vector; stops when the `wanted` Ritz values of largest magnitude change by less
 * than tol (relative) between two iterations. out->vectors may be NULL (not
 * returned), else wanted × dim doubles. CR_NO_MEMORY, CR_NONFINITE (the operator
 * gave a non-finite vector) or the status of apply; CR_OK otherwise, converged or not
 * (see out->residual). */
cr_status cr_subspace_iteration(const cr_eigen_problem *p, int block, int wanted, int max_iterations, double tol,
                                cr_eigen_result *out);

#endif
