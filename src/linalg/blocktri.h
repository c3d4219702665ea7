/* Block-tridiagonal matrices with square b×b blocks and their LU factorization
 * (block Thomas algorithm, partial pivoting inside the diagonal blocks).
 * O(n b³) to factor, O(n b²) to solve: the chain structure of every rod
 * formulation in cosserat (spec §5). */
#ifndef COSSERAT_BLOCKTRI_H
#define COSSERAT_BLOCKTRI_H

#include "cosserat/base.h"

#include <stddef.h>

typedef struct cr_blocktri {
    int n, b;        /* block count, block size */
    double *diag;    /* n blocks: D_i (row-major b×b) */
    double *lower;   /* n blocks: L_i couples block row i to column i-1 (L_0 unused) */
    double *upper;   /* n blocks: U_i couples block row i to column i+1 (U_{n-1} unused) */
    int *pivot;      /* n*b row pivots of the factored diagonal blocks */
    int factored;
    /* cr_blocktri_factor left the reciprocals of the pivots on the diagonals of the
     * blocks' U factors (blocktri.c, factor7: the divisions then are not repeated in every
     * solve). A partitioned factorization's chunk kernels keep their own convention. */
    int reciprocal_pivots;
    /* Banded mode: factor with LAPACK dgbtrf (partial pivoting across blocks).
     * Needed when a diagonal block may be singular on its own, e.g. the saddle-point
     * blocks of rigid strain components next to a free or clamped end. */
    int banded;
    double *band;    /* LAPACK band storage, (3(2b-1)+1) × (n b) */
    int *band_pivot;
} cr_blocktri;

cr_blocktri *cr_blocktri_create(int n, int b);
/* Same, factoring through LAPACK's banded LU (see `banded`). */
cr_blocktri *cr_blocktri_create_banded(int n, int b);
void cr_blocktri_destroy(cr_blocktri *m);
void cr_blocktri_zero(cr_blocktri *m);

static inline double *cr_blocktri_D(cr_blocktri *m, int i) { return m->diag + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_L(cr_blocktri *m, int i) { return m->lower + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_U(cr_blocktri *m, int i) { return m->upper + (size_t)i * m->b * m->b; }

/* Zeroes the first `rows` rows of block row i (diagonal and both off-diagonal
 * blocks) and, when `identity` is set, puts ones on their diagonal: the rows of a
 * node whose unknowns are held (clamps, prescribed poses). */
void cr_blocktri_reset_rows(cr_blocktri *m, int i, int rows, int identity);

/* y = M x (only valid before factoring). */
void cr_blocktri_matvec(const cr_blocktri *m, const double *x, double *y);

/* In-place LU. Returns CR_SINGULAR when a pivot of the block-row *bad_block
 * (may be NULL) vanishes. */
cr_status cr_blocktri_factor(cr_blocktri *m, int *bad_block);

/* cr_blocktri_factor, then cr_blocktri_solve with one right side x (in place); for 3×3
 * blocks in one pass, each block row's forward step right after its elimination. x is
 * unspecified when the factorization fails. */
cr_status cr_blocktri_factor_solve(cr_blocktri *m, double *x, int *bad_block);

/* Solves M x = rhs in place after cr_blocktri_factor. */
void cr_blocktri_solve(const cr_blocktri *m, double *rhs);

/* The two sweeps of cr_blocktri_solve apart (not banded): the forward sweep (what block
 * row i holds then depends only on the right side's rows 0..i), then the backward one;
 * one after the other they equal cr_blocktri_solve bit for bit. */
void cr_blocktri_solve_forward(const cr_blocktri *m, double *x);
void cr_blocktri_solve_backward(const cr_blocktri *m, double *x);

/* The same for nrhs right-hand sides at once, one after the other (LAPACK's layout:
 * x[j * n * b + r] is row r of the j-th); the factors are read once for up to
 * CR_BLOCKTRI_MANY_MAX of them. */
#define CR_BLOCKTRI_MANY_MAX 16
void cr_blocktri_solve_many(const cr_blocktri *m, double *x, int nrhs);

#endif
