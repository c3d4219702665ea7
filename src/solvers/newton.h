/* Newton–Raphson with load incrementation for block-tridiagonal problems.
 * Knows nothing about rods: a problem is a residual/Jacobian callback over a
 * vector of `blocks` × `block_size` unknowns (SUNDIALS-style separation). */
#ifndef COSSERAT_NEWTON_H
#define COSSERAT_NEWTON_H

#include "cosserat/statics.h"
#include "linalg/blocktri.h"
#include "linalg/blocktri_partitioned.h"
#include "linalg/lowrank.h"
#include "linalg/pool.h"

/* work vectors of cr_load_stepping_solve, each of blocks × block_size doubles */
#define CR_NEWTON_WORK_VECTORS 7

typedef struct cr_nonlinear_problem {
    int blocks, block_size;
    int banded; /* factor with LAPACK's banded LU instead of the block Thomas algorithm */
    /* optional: worker threads; with them (and not banded) the Jacobian is factored and
     * solved by the partitioned LU, one chunk per thread */
    cr_pool *pool;
    void *ctx;
    /* F = residual at load factor `param`; J = dF/dx when non-NULL. */
    cr_status (*eval)(void *ctx, double param, const double *x, double *F, cr_blocktri *J);
    /* optional: dF/dparam at x (else a forward difference of eval) */
    cr_status (*dparam)(void *ctx, double param, const double *x, double *dF);
    /* optional: improves a trial state in place after the predictor and after each
     * Newton update (e.g. re-solving a subset of the equations exactly) */
    cr_status (*correct)(void *ctx, double param, double *x);
    /* optional: puts a state back on the constraint manifold the equations leave to the
     * solver (quaternion normalization): called after the predictor, after each Newton
     * update (before `correct`) and on a converged state */
    void (*project)(void *ctx, double *x);
    /* optional: a trust region for updates. The largest factor α in (0, 1] by which the
     * update dx may be applied at x (1: no limit). A predictor that would need α < 1 is
     * not used (the step starts from the last converged state, then `correct`); a Newton
     * update is scaled by α. For problems whose tangent can be singular in a mode that
     * only the loads' geometric stiffness holds (a rod hanging from a pin at its
     * unloaded reference), where J⁻¹F swings that mode by an arbitrary angle. */
    double (*limit)(void *ctx, const double *x, const double *dx);
    /* optional: the size |x| that increments are measured against (default: the
     * Euclidean norm of x). A problem in absolute coordinates far from the origin gives
     * the size of its unknowns relative to a point of its own, so that the increment
     * test does not pass because of where it sits. */
    double (*size)(void *ctx, const double *x);
    /* optional: on a failed load step, writes a sentence saying which equation (and
     * where) the last residual F at x is largest in, into out */
    void (*describe)(void *ctx, double param, const double *x, const double *F, char *out, size_t size);
    /* optional: the Jacobian's storage and, with a pool, its partitioned LU (for
     * pool's thread count), the caller's (NULL: the solver's own, freed at the end), so
     * that the caller can use them afterwards; after a converged solve, *lu_valid (when
     * lu_valid is non-NULL) says whether J holds the LU of the last Newton iteration, one
     * update away from the solution: cr_blocktri_factor's, or the partitioned one's when
     * the solver used one (pool, not banded) */
    cr_blocktri *J;
    cr_blocktri_part *part;
    int *lu_valid;
    /* optional: the caller's CR_NEWTON_WORK_VECTORS × blocks × block_size doubles for the
     * solver's work vectors (NULL: its own), free for the caller's use after the solve */
    double *work;
    /* optional: a low-rank term U C Uᵀ of the Jacobian beyond its block-tridiagonal part (the
     * coupling of far nodes by contact), the one of the last eval that filled J (NULL or empty:
     * none); every solve with J then includes it (Woodbury, linalg/lowrank.h) */
    cr_lowrank *(*coupling)(void *ctx);
    /* optional: called after each accepted load step; nonzero stops the solve */
    int (*on_step)(void *ctx, double param, const double *x, const cr_load_step_report *step, int index);
} cr_nonlinear_problem;

/* Runs load steps from *param to 1 on x (in place). On failure x and *param hold the
 * last converged step. Fills report (required). */
cr_status cr_load_stepping_solve(const cr_nonlinear_problem *problem, double *param, double *x,
                                 const cr_static_options *options, cr_static_report *report, cr_error *err);

/* Appends an accepted step (load factor, Newton iterations, a copy of the residual history)
 * to report->steps, growing it; CR_NO_MEMORY leaves the report as it was. Shared by the load
 * stepping above and the arc-length path (src/mixed/statics_arclength.c). */
cr_status cr_static_report_append(cr_static_report *r, double load_factor, int iterations, const double *history,
                                  int history_count);

#endif
