/* A few eigenvalues of largest magnitude of a linear operator by block subspace
 * iteration with Rayleigh–Ritz (LAPACK dgeev on the small projected matrix).
 * Knows nothing about rods: the operator is a callback on vectors of length `dim`.
 * Used for the stability of static equilibria (src/mixed/statics_stability.c),
 * where the operator is the inverse of the tangent, so the eigenvalues of largest
 * magnitude are the tangent's smallest. */
#ifndef COSSERAT_STABILITY_H
#define COSSERAT_STABILITY_H

#include "cosserat/base.h"
#include "linalg/pool.h"

#include <stddef.h>

typedef struct cr_eigen_problem {
    size_t dim;
    void *ctx;
    /* Y = C X for `count` vectors of length dim: X's one after the other, Y's column j at
     * Y + j·ldy (never aliased with X); all of a block at once, so that C can share work
     * between them */
    cr_status (*apply)(void *ctx, const double *X, double *Y, size_t ldy, int count);
    /* optional: where C V is kept, column j at work + j·work_ld (work_ld >= dim), e.g. memory
     * apply uses as its own scratch anyway; NULL: a block of the iteration's own */
    double *work;
    size_t work_ld;
    /* optional: threads for the passes over the block (Gram matrices, V R⁻¹); NULL: serial */
    cr_pool *pool;
} cr_eigen_problem;

enum { CR_EIGEN_MAX_BLOCK = 16 };

typedef struct cr_eigen_result {
    int count;                     /* Ritz pairs returned (= block size) */
    int iterations;                /* applications of C per vector */
    double re[CR_EIGEN_MAX_BLOCK]; /* Ritz values, by decreasing magnitude */
    double im[CR_EIGEN_MAX_BLOCK];
    double residual[CR_EIGEN_MAX_BLOCK]; /* |C u − ν u| / (|ν| |u|) of the (complex) Ritz vector u */
    /* The Ritz vectors: the real part of the j-th is basis · coef[:, j] (unit length), basis the
     * count × dim orthonormal block of the last iteration (owned: cr_eigen_result_free), so that
     * a caller forms only the vectors it needs (cr_eigen_ritz_vector) */
    size_t dim;
    double *basis;
    double coef[CR_EIGEN_MAX_BLOCK * CR_EIGEN_MAX_BLOCK];
} cr_eigen_result;

/* Subspace iteration with `block` vectors (2..CR_EIGEN_MAX_BLOCK) from a fixed
 * pseudo-random start (deterministic), at most max_iterations applications per
 * vector; stops when each of the `wanted` Ritz values of largest magnitude has changed
 * by less than tol (relative) since the previous iteration, or, when the projected matrix
 * is symmetric to √tol, by less than √tol with an error estimate r² |ν| / gap below tol
 * (r the relative residual). CR_NO_MEMORY, CR_NONFINITE (the operator gave a non-finite
 * vector) or the status of apply; CR_OK otherwise, converged or not (see out->residual),
 * with out->basis set. *out is overwritten: a basis it held must have been freed
 * (cr_eigen_result_free). */
cr_status cr_subspace_iteration(const cr_eigen_problem *p, int block, int wanted, int max_iterations, double tol,
                                cr_eigen_result *out);

/* u (dim) = the unit real part of Ritz vector j (0 <= j < count) */
void cr_eigen_ritz_vector(const cr_eigen_result *r, int j, double *u);
void cr_eigen_result_free(cr_eigen_result *r);

#endif
