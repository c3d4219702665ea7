/* A low-rank correction of a block-tridiagonal solve (Woodbury): the system (A + σ U C Vᵀ) x = r,
 * A block-tridiagonal (factored elsewhere; real, or complex as Radau's shifted systems), U the
 * unit columns of rows roff..roff+2 and V those of coordinates coff..coff+2 of the m coupled
 * blocks, C a dense 3m × 3m matrix and σ = ±1. Contact between far parts of a rod couples far
 * nodes; entering it here keeps A's factorization as it is and adds 3m solves and one dense
 * 3m × 3m LU, instead of a general sparse factorization whose fill depends on the contact
 * pattern. C need not be invertible: x = y − σ Z (I + σ C Vᵀ Z)⁻¹ C Vᵀ y with y = A⁻¹ r,
 * Z = A⁻¹ U. Memory: 2 n·b + O(m²) doubles; time: 3m solves to prepare, one more
 * per solve, and O(m³) for the LU. Internal. */
#ifndef COSSERAT_LOWRANK_H
#define COSSERAT_LOWRANK_H

#include "cosserat/base.h"

typedef struct cr_lowrank {
    int n, b;       /* A's blocks and block size */
    int roff, coff; /* the coupled rows (U) and columns (V) within a block: 3 from these */
    int m, cap;     /* coupled blocks */
    int *node;      /* their indices */
    int *slot;      /* n entries: a block's place in node[], −1 when not coupled */
    double *C;      /* 3m × 3m, row-major, leading dimension 3·cap */
    /* the prepared correction (cr_lowrank_prepare*): Vᵀ Z (3m × 3m, Z = A⁻¹ U, complex: as
     * double complex) and the LU of the capacitance matrix I + σ C Vᵀ Z; Z itself is not kept (3m
     * columns of n·b): the update A⁻¹ (σ U y) is one more solve. Z: work vectors (2 n·b). */
    double *Z, *VZ, *S, *y;
    int *piv;
    int prepared, complex_;
    double sigma;
    void (*solve)(void *ctx, double *v); /* A⁻¹ of the preparation */
    void (*solve_c)(void *ctx, double *re, double *im);
    void *ctx;
} cr_lowrank;

cr_lowrank *cr_lowrank_create(int n, int b, int roff, int coff);
void cr_lowrank_destroy(cr_lowrank *lr);

/* Empties the term (m = 0). */
void cr_lowrank_clear(cr_lowrank *lr);

/* Adds the k×k block K (row-major, k = 3·count) over the blocks nodes[0..count−1] (nodes may
 * repeat). CR_NO_MEMORY when the term cannot grow. */
cr_status cr_lowrank_add(cr_lowrank *lr, const int *nodes, int count, const double *K);

/* Prepares the correction of A + σ U C Vᵀ for A factored: solve(ctx, v) applies A⁻¹ to v in
 * place; the complex form solve_c(ctx, re, im) applies A⁻¹ to re + i im (A complex). CR_SINGULAR
 * when the capacitance matrix is, CR_NO_MEMORY. Nothing to do without coupled blocks. */
cr_status cr_lowrank_prepare(cr_lowrank *lr, double sigma, void (*solve)(void *ctx, double *v), void *ctx);
cr_status cr_lowrank_prepare_complex(cr_lowrank *lr, double sigma, void (*solve_c)(void *ctx, double *re, double *im),
                                     void *ctx);

/* x ← (A + σ U C Vᵀ)⁻¹ r given x = A⁻¹ r on entry, with the prepared correction (its solve
 * callback and A's factors must still be valid). */
void cr_lowrank_apply(const cr_lowrank *lr, double *x);
void cr_lowrank_apply_complex(const cr_lowrank *lr, double *re, double *im);

/* dst ← src's blocks and C (not its preparation). CR_NO_MEMORY. */
cr_status cr_lowrank_copy(cr_lowrank *dst, const cr_lowrank *src);

/* cr_lowrank_prepare (σ = +1), then cr_lowrank_apply on x: one solve of the statics. */
cr_status cr_lowrank_correct(cr_lowrank *lr, void (*solve)(void *ctx, double *v), void *ctx, double *x);

#endif
