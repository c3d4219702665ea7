/* Partitioned block-tridiagonal LU for several threads (a partition method in the
 * spirit of SPIKE / partitioned Thomas), on the matrices of cr_blocktri.
 *
 * The block rows are cut into `chunks` chunks separated by single separator rows
 * s_0 < ... < s_{P-2}. Each chunk's interior is eliminated independently (one task per
 * chunk), with the block Thomas kernels of blocktri.c and partial pivoting inside its
 * diagonal blocks:
 *   - the first chunk top-down, exactly as cr_blocktri_factor does;
 *   - the last chunk bottom-up (from the last row towards its separator), so that with
 *     two chunks there is no fill-in at all and no extra arithmetic (a "twisted" or
 *     burn-at-both-ends factorization);
 *   - middle chunks top-down, carrying the fill-in coupling G to the separator above
 *     (the spike), about twice the work per row: they get half the rows.
 * The pivots of a chunk are Schur complements of a sub-chain with its neighbouring
 * separators held fixed: the tangent of a rod piece held at one end (end chunks) or at
 * both ends (middle chunks), invertible whenever the serial ones (held at one end) are.
 * Eliminating the interiors leaves a block-tridiagonal system in the P-1 separators,
 * factored serially by cr_blocktri_factor (block Thomas, pivoting within blocks); its
 * pivots are again Schur complements of leading sub-chains held at the next separator.
 * A solve is a forward sweep per chunk (parallel), the separators' small system
 * (serial) and a back-substitution per chunk (parallel). Results equal the serial
 * solver's to round-off. */
#ifndef COSSERAT_BLOCKTRI_PARTITIONED_H
#define COSSERAT_BLOCKTRI_PARTITIONED_H

#include "blocktri.h"
#include "pool.h"

typedef struct cr_blocktri_part cr_blocktri_part;

/* For n block rows of size b in `chunks` chunks; sep (optional, chunks - 1 increasing
 * rows with at least one row in every chunk's interior) places the separators, else
 * they balance the work. NULL if the chunks do not fit (n < 2 chunks - 1) or no memory. */
cr_blocktri_part *cr_blocktri_part_create(int n, int b, int chunks, const int *sep);
void cr_blocktri_part_destroy(cr_blocktri_part *p);
int cr_blocktri_part_chunks(const cr_blocktri_part *p);

/* Factors m in place (m's blocks are overwritten in a layout only
 * cr_blocktri_part_solve understands). pool: NULL runs the chunks one after the other
 * on the caller. Returns CR_SINGULAR with *bad_block (may be NULL) the block row whose
 * pivot vanished. */
cr_status cr_blocktri_part_factor(cr_blocktri_part *p, cr_blocktri *m, cr_pool *pool, int *bad_block);

/* Solves M x = rhs in place after cr_blocktri_part_factor. */
void cr_blocktri_part_solve(cr_blocktri_part *p, const cr_blocktri *m, cr_pool *pool, double *x);

/* cr_blocktri_part_factor, then cr_blocktri_part_solve with x (in place), the end chunks'
 * forward sweeps fused into their eliminations (cr_blocktri_factor_solve's scheme). x is
 * unspecified when the factorization fails (or CR_NO_MEMORY: the separators' scratch, only
 * with more than 4096 / b chunks). */
cr_status cr_blocktri_part_factor_solve(cr_blocktri_part *p, cr_blocktri *m, cr_pool *pool, double *x, int *bad_block);

/* The same for nrhs right-hand sides, column j at x + j·ld (ld >= n b): each chunk's
 * factors are read once for up to CR_BLOCKTRI_MANY_MAX of them. CR_NO_MEMORY (x
 * unchanged) when the separators' few kB cannot be allocated. */
cr_status cr_blocktri_part_solve_many(cr_blocktri_part *p, const cr_blocktri *m, cr_pool *pool, double *x, size_t ld,
                                      int nrhs);

/* The chunk kernels (blocktri.c), see there. */
cr_status cr_blocktri_chunk_factor(cr_blocktri *m, int first, int len, int dir, int has_far, double *G, double *gh,
                                   double *zh, int *bad_block);
void cr_blocktri_chunk_forward(const cr_blocktri *m, int first, int len, int dir, const double *G, double *x,
                               double *yh);
void cr_blocktri_chunk_backward(const cr_blocktri *m, int first, int len, int dir, int has_far, const double *G,
                                double *x);

cr_status cr_blocktri_chunk_factor_solve(cr_blocktri *m, int first, int len, int dir, int has_far, double *x,
                                         int *bad_block);
void cr_blocktri_chunk_forward_many(const cr_blocktri *m, int first, int len, int dir, const double *G, double *x,
                                    size_t ld, int nrhs, double *yh);
void cr_blocktri_chunk_backward_many(const cr_blocktri *m, int first, int len, int dir, int has_far, const double *G,
                                     double *x, size_t ld, int nrhs);

#endif
