/* The coupled systems of assemblies: the statics' (assembly_statics.c: interface poses, joint
 * multipliers, contact force increments), assembled entry by entry, solved densely (LAPACK)
 * when small and, from cr_asm_sparse_min unknowns on, by eliminating the groups of unknowns
 * that couple only through the free bodies' onto them (the hub's block elimination), else by
 * a sparse LU (SuiteSparse KLU); and the
 * dynamics' Schur complement on the multipliers (assembly_dynamics.c), sparse only, real or
 * complex, factored once and solved many times. */
#ifndef CR_MIXED_ASSEMBLY_LINSYS_H
#define CR_MIXED_ASSEMBLY_LINSYS_H

#include <stddef.h>

/* Why a threshold and not KLU always: the dense LU's behaviour (its pivot order, the unknown
 * it names when singular) is the one the other tests were written against, and a system of a
 * few joints gains nothing from the sparse one's compression and ordering; above, the dense N³
 * dominates as soon as many rods meet one body (every joint touches the body: an arrowhead,
 * eliminated rod by rod, O(N)). 120: a body with ten welded rods in statics
 * (126 unknowns), twenty in dynamics (its Schur complement: k + 6 per body = 126). Tests set
 * cr_asm_sparse_min to run both paths on one scenario. */
#define CR_ASM_SPARSE_MIN 120
extern int cr_asm_sparse_min;
/* 1 (default): a system with a hub (cr_asm_sys_hub) is first tried by the hub's block
 * elimination (the groups coupled only through the hub's unknowns; assembly_linsys.c), at any
 * size: below cr_asm_sparse_min the dense LU otherwise, above it KLU. Tests set it to 0 to run
 * the dense LU (below the threshold) or KLU (above) on the same scenario. */
extern int cr_asm_block_elim;
/* systems solved by the block elimination so far (tests: which path ran) */
extern _Atomic long cr_asm_block_solves;

typedef struct cr_asm_sys cr_asm_sys;

cr_asm_sys *cr_asm_sys_create(void);
void cr_asm_sys_destroy(cr_asm_sys *s);
/* Starts an N × N system, all zero (dense below cr_asm_sparse_min, else sparse; below it with
 * cr_asm_block_elim, kept as entries for the block elimination, else solved densely); 0: no
 * memory */
int cr_asm_sys_begin(cr_asm_sys *s, int N);
/* A[row][col] += v (not thread-safe: one writer) */
void cr_asm_sys_add(cr_asm_sys *s, int row, int col, double v);
/* Unknown i (after begin) is one of the hub's: a free body's, through which many groups of
 * unknowns (a rod's interface node and its joints' multipliers) are coupled. Ignored when
 * the system is dense (cr_asm_block_elim 0 below cr_asm_sparse_min). */
void cr_asm_sys_hub(cr_asm_sys *s, int i);
/* 1: the system is the sparse one */
int cr_asm_sys_sparse(const cr_asm_sys *s);
/* Solves A x = b in place of b, as dense_solve: rows, then columns scaled to a largest entry
 * of 1; a row below 1e-12 of the largest, a column or a pivot below 1e-12 after the scaling
 * count as singular. Returns -1, the unknown (or row) found without support, -2 when out
 * of memory, or -3 when KLU failed otherwise (cr_asm_sys_klu_status: its status; no unknown
 * to name). A sparse system found singular (or refused by KLU) is solved again densely (up to
 * a size) so that the unknown named is the dense path's. */
int cr_asm_sys_solve(cr_asm_sys *s, double *b);
int cr_asm_sys_klu_status(const cr_asm_sys *s);

/* The sparse path alone, factored once and solved many times (the Schur complements of
 * assembly dynamics, real or complex): begin (cplx: entries added by _add_complex, right
 * sides as (re, im) pairs), factor (-1, the row or unknown without support, -2 memory),
 * solve in place. */
int cr_asm_sys_begin_sparse(cr_asm_sys *s, int N, int cplx);
void cr_asm_sys_add_complex(cr_asm_sys *s, int row, int col, double re, double im);
int cr_asm_sys_factor(cr_asm_sys *s);
int cr_asm_sys_solve_factored(cr_asm_sys *s, double *b);

#endif
