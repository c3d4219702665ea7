/* cosserat — adaptive Radau IIA integrator (3 stages, order 5) for
 *
 *     M y' = F(t, y),      M = diag(mass), constant,
 *
 * in the design of Hairer & Wanner's RADAU5 (Solving ODEs II, 2nd ed., Springer
 * 1996, section IV.8; the subsections cited below by name). Zero entries of `mass` mark algebraic rows (index-1
 * DAE: Lagrange multipliers, stresses). The integrator knows nothing about
 * rods: it sees F, a linear-algebra hook and callbacks.
 *
 * What it does, per step (HW IV.8):
 *   - simplified Newton on the collocation system, decoupled by the
 *     eigen-transformation T of A^{-1} into one real system (γ̂/h·M − J) and
 *     one complex system ((α̂ + iβ̂)/h·M − J) per iteration ("Reformulation
 *     of the Nonlinear System", "Simplified Newton Iterations", "The Linear
 *     System");
 *   - convergence-rate monitoring θ, at most `max_newton` iterations,
 *     rejection on divergence or slow convergence ("Simplified Newton
 *     Iterations": stopping criterion);
 *   - reuse of J and of both factorizations across steps while θ is small
 *     and h changes little;
 *   - embedded order-3 error estimate with the extra filtering solve on the
 *     first step and after a rejection ("Step Size Selection");
 *   - step-size control with safety factor, facmin/facmax and Gustafsson's
 *     predictive controller ("Step Size Selection");
 *   - dense output from the collocation polynomial (also the Newton
 *     starting values, "Simplified Newton Iterations").
 *
 * Time runs forward only (t_end >= t). Units are the caller's: t, h and the
 * tolerances carry whatever units y and F carry.
 *
 * Linear algebra is a hook (cr_radau_linsys): the caller evaluates and stores
 * J = ∂F/∂y in its own structure (block-tridiagonal, banded, ...) and factors
 * and solves the shifted systems. cr_radau_dense_* is a ready-made dense
 * LAPACK implementation for small problems.
 *
 * Errors: functions return cr_status (include/cosserat/base.h) and write a
 * message into a caller cr_error when one is given; nothing exits or aborts.
 */
#ifndef COSSERAT_RADAU_H
#define COSSERAT_RADAU_H

#include "cosserat/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Method coefficients
 * ------------------------------------------------------------------------- */

/* The Radau IIA (s = 3) tableau and everything the integrator derives from it,
 * all computed (not tabulated) by cr_radau_tableau_compute. Matrices are
 * row-major: a[i][j] is row i, column j. */
typedef struct cr_radau_tableau {
    double c[3];          /* nodes: (4 − √6)/10, (4 + √6)/10, 1 */
    double a[3][3];       /* A from the simplifying conditions C(3) */
    double b[3];          /* weights = last row of A (stiffly accurate) */
    double ainv[3][3];    /* A^{-1} */
    double gamma;         /* real eigenvalue γ̂ of A^{-1} (≈ 3.637834) */
    double alpha, beta;   /* complex pair α̂ ± iβ̂ of A^{-1}, β̂ > 0 */
    double t[3][3];       /* T: columns (w, Re v, −Im v), so that
                           * T^{-1} A^{-1} T = [[γ̂,0,0],[0,α̂,−β̂],[0,β̂,α̂]];
                           * w has unit 2-norm, v is scaled so v[2] = 1 */
    double tinv[3][3];    /* T^{-1} */
    double e[3];          /* error-estimate weights in the (γ̂/h M − J) form:
                           * err = (γ̂/h M − J)^{-1}[F(t0,y0) + M Σ e_j Z_j / h] */
    double bhat[3];       /* embedded order-3 weights (b̂0 = 1/γ̂ on F(t0,y0)) */
    double dense_x[4];    /* dense-output nodes in s = (t − t1)/h:
                           * 0, c2 − 1, c1 − 1, −1 */
    double residual;      /* max |T^{-1}A^{-1}T − block form| + max |A A^{-1} − I|
                           * + max |T T^{-1} − I| (a self-check, ~1e-15) */
} cr_radau_tableau;

/* Computes the tableau: nodes from the Radau polynomial, A from C(3),
 * the eigen-decomposition of A^{-1} (Cardano on its characteristic
 * polynomial, eigenvectors as cross products of rows), T, T^{-1}, the embedded
 * weights and the dense-output nodes, and checks the block form. Returns
 * CR_OK, or CR_NOT_CONVERGED if the self-check residual exceeds 1e-12
 * (which would mean a broken floating-point environment). */
cr_status cr_radau_tableau_compute(cr_radau_tableau *tab, cr_error *err);

/* ---------------------------------------------------------------------------
 * Problem definition
 * ------------------------------------------------------------------------- */

/* Right-hand side: writes F(t, y) into f (length n). y is read-only.
 * Return CR_OK; a positive status (e.g. CR_NONFINITE when y is outside the
 * domain of F) makes the integrator reject the step and retry with a smaller
 * h; a negative status aborts the integration and is returned to the caller. */
typedef cr_status (*cr_radau_rhs_fn)(double t, const double *y, double *f, void *user);

/* The linear-algebra hook. The integrator calls, in this order per use:
 * jacobian once per new Jacobian, then factor_real and factor_complex once per
 * (J, h) pair, then solve_real / solve_complex many times. All functions get
 * `ctx` as their last argument. M is the integrator's mass vector; the hook
 * must know it too (the dense implementation copies it at create).
 * Factorizations return CR_OK, CR_SINGULAR for a singular matrix or another
 * positive status (the integrator halves h and retries, up to 5 times in a
 * row), or a negative status to abort. Solves return CR_OK, a positive status
 * (the step is retried with a smaller h) or a negative one (abort). A jacobian that
 * does not return CR_OK ends the integration with its status (J depends on
 * (t, y) only, so a smaller h would not help). */
typedef struct cr_radau_linsys {
    /* Evaluate and store J = ∂F/∂y at (t, y). fy = F(t, y) is passed so a
     * finite-difference Jacobian needs no extra evaluation. */
    cr_status (*jacobian)(double t, const double *y, const double *fy, void *ctx);
    /* Factor E1 = shift·M − J (shift = γ̂/h > 0, units 1/time). */
    cr_status (*factor_real)(double shift, void *ctx);
    /* Solve E1 x = b in place (b: length n). */
    cr_status (*solve_real)(double *b, void *ctx);
    /* Factor E2 = (shift_re + i·shift_im)·M − J (α̂/h, β̂/h). */
    cr_status (*factor_complex)(double shift_re, double shift_im, void *ctx);
    /* Solve E2 (x_re + i x_im) = b_re + i b_im in place (each length n). */
    cr_status (*solve_complex)(double *b_re, double *b_im, void *ctx);
    void *ctx;
} cr_radau_linsys;

/* The problem. Pointers are read at cr_radau_create; `mass` is copied, the
 * functions and `user` must stay valid for the life of the integrator. */
typedef struct cr_radau_problem {
    int n;                   /* number of unknowns, >= 1 */
    const double *mass;      /* diagonal of M (length n); NULL = identity.
                              * 0 marks an algebraic (index-1) row */
    cr_radau_rhs_fn rhs;     /* F (required) */
    cr_radau_linsys linsys;  /* J storage and shifted solves (required) */
    void *user;              /* passed to rhs and to the callbacks below */
} cr_radau_problem;

/* Called after every accepted step with the new state (t, y). The callback may
 * modify y in place (e.g. renormalize quaternions); the integrator continues
 * from the modified y. Return 0 to continue, nonzero to stop: the integration
 * then ends with CR_INTERRUPTED and (t, y) is this accepted step. */
typedef int (*cr_radau_step_fn)(double t, double *y, void *user);

/* Dense output: called with y(t) from the collocation polynomial at each
 * requested output time, in increasing order. y is read-only and valid only
 * during the call. For a step, the outputs it covers are reported before the
 * step callback runs (so they never see the callback's modification of y).
 * Return 0 to continue, nonzero to stop (CR_INTERRUPTED; the state is the
 * accepted step that covered t, and the step callback is not run for that
 * step, not even when the integration is continued; the remaining outputs of
 * that step are reported first by the next cr_radau_integrate). */
typedef int (*cr_radau_output_fn)(double t, const double *y, void *user);

/* The largest step the problem allows from the accepted state (t, y): a bound the error
 * test cannot see, such as a thin obstacle a long step would carry the state through
 * (its error estimate is small on both sides). Called before every attempt; a value
 * <= 0, INFINITY or NaN sets no bound. */
typedef double (*cr_radau_step_limit_fn)(double t, const double *y, void *user);

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

typedef struct cr_radau_options {
    /* Tolerances: the local error of y_i is kept near atol_i + rtol·|y_i|.
     * atol_vec (length n, copied at create) overrides atol when non-NULL.
     * atol > 0, rtol > 1e-15 required. */
    double rtol;                 /* default 1e-6 */
    double atol;                 /* default 1e-6 */
    const double *atol_vec;      /* default NULL */
    /* Differential index per component (1, 2 or 3; copied at create), as RADAU5's
     * NIND1/2/3: the error of an index-k component is weighted by h^(k-1). For
     * mechanical systems with stiff springs, velocities behave like index-2
     * components. NULL = all 1 (default). */
    const int *error_index;
    /* As RADAU5 does, replace (rtol, atol) by rtol' = 0.1·rtol^(2/3),
     * atol' = atol·rtol'/rtol before use, because the error estimate is of
     * order 3 while the method is of order 5: the given tolerances then
     * roughly bound the global rather than the local error. Default 1. */
    int transform_tolerances;

    double h_init;               /* first step; 0 = automatic (default) */
    double h_max;                /* 0 = no limit other than t_end − t (default) */
    /* Step-size floor ("step size too small", as RADAU5's and SUNDIALS'): when the
     * error test or a Newton failure asks for a step below
     *   h_floor = max(h_min, h_min_rel·(t − t0), 100·ε·max(|t|, |t_end|)),
     * t0 the time at create/reinit, the integration stops with CR_NOT_CONVERGED
     * (CR_NONFINITE when the last failure was a non-finite value) and the message
     * "step size too small (h = …) at t = …". A step that small means the rest of
     * the interval would take more than 1/h_min_rel steps per unit of the time
     * already covered: a finite-time singularity, an unstable or unresolvable fast
     * mode, or a tolerance the problem cannot meet; without the floor the
     * integrator creeps on until max_steps. The relative term grows with the time
     * covered, so the initial transient right after create/reinit may take steps
     * of any size; a feature much faster than the time already integrated (a load
     * switched on within microseconds after seconds of motion) needs a smaller
     * h_min_rel. An automatic first step below h_floor is raised to it.
     * Independently, every 1000 attempted steps the call stops with CR_NOT_CONVERGED
     * ("step size collapsed") when t_end − t > 10·(max_steps − steps so far)·max(h,
     * mean step of those 1000): it would stop at max_steps anyway (docs/radau.md). */
    double h_min;                /* absolute floor; default 0 */
    double h_min_rel;            /* relative to t − t0; default 1e-7, 0 = off */
    long max_steps;              /* attempted steps (accepted, rejected and
                                  * failed) per cr_radau_integrate call;
                                  * default 100000 */

    /* Step-size control (HW IV.8 "Step Size Selection"): h_new = h·min(facmax, max(facmin,
     * fac·err^{-1/4})), fac = min(safety, safety·(1 + 2·max_newton)/(newton
     * iterations + 2·max_newton)). */
    double safety;               /* default 0.9 */
    double facmin;               /* default 0.2 */
    double facmax;               /* default 8.0 */
    int predictive;              /* Gustafsson's predictive controller; default 1 */
    /* Fixed steps: h = h_init (> 0 required) on every step except a shorter
     * last one to land on t_end; no error test, no rejection. A Newton failure
     * returns CR_NOT_CONVERGED. For order studies; default 0. */
    int fixed_step;

    /* Simplified Newton. */
    int max_newton;              /* iterations per step; default 7 */
    double newton_tol;           /* κ·tol in the scaled norm; 0 = automatic:
                                  * max(10ε/rtol', min(0.03, √rtol')) (RADAU5) */
    double jac_reuse_theta;      /* keep J for the next step when the
                                  * convergence rate θ <= this; default 0.001
                                  * (raise to ~0.1 when J is expensive;
                                  * negative: a new J on every step) */
    /* Step growth limited by the Newton contraction: after an accepted step whose
     * Newton iterations contracted at rate θ (two iterations or more), h_new is at
     * most h·max(1, √(newton_growth_theta/θ)). For problems where Newton, not the
     * error test, limits h (fast rotations: θ grows like h² or faster), so that the
     * controller does not keep proposing steps that Newton fails on, each costing
     * two factorizations. 0 = off (default, as RADAU5); 0 <= value < 1. Uses only θ,
     * which cr_radau_memory carries. */
    double newton_growth_theta;
    double keep_h_min;           /* keep h and both factorizations when θ is */
    double keep_h_max;           /* small and keep_h_min <= h_new/h <= keep_h_max;
                                  * defaults 1.0 and 1.2 */

    /* Dense output. Either an explicit list of times (copied at create;
     * increasing) or a uniform grid t0 + k·output_interval (k = 0, 1, ...)
     * anchored at the t0 given to cr_radau_create. Output times equal to the
     * start time are reported once, at the first cr_radau_integrate call after
     * create/reinit. `output` NULL disables dense output. */
    cr_radau_output_fn output;
    const double *output_times;  /* default NULL */
    int n_output_times;
    double output_interval;      /* > 0 enables the grid when output_times is NULL */

    cr_radau_step_fn step_callback;  /* default NULL */
    cr_radau_step_limit_fn step_limit; /* default NULL: no bound but h_max */

    /* Threads for the integrator's own work on the whole state (stage values, the
     * Newton transformation and updates, norms, the error estimate, the collocation
     * polynomial, dense output, cr_radau_interpolate), which on a large state is a
     * sizable part of a step besides F and the linear algebra. A parallel-for: runs
     * task(arg, k) for k = 0..tasks-1, on any threads in any order, and returns when all
     * have finished (a thread pool's run; ctx = parallel_ctx). Used when n >=
     * CR_RADAU_PARALLEL_MIN. The vectors are cut into fixed chunks of CR_RADAU_CHUNK
     * unknowns whatever the hook, and a norm adds the chunks' partial sums in their
     * order: the results are the same bit for bit with the hook or without, on any
     * number of threads. The tasks call neither F, nor the linear-algebra hook, nor a
     * callback, and the integrator calls the hook only from its own functions, never
     * while another call of it runs. Default NULL (the caller's thread). */
    void (*parallel)(int tasks, void (*task)(void *arg, int k), void *arg, void *ctx);
    void *parallel_ctx;
} cr_radau_options;

/* The chunk of the integrator's vector work (unknowns) and the smallest n for which it
 * uses cr_radau_options.parallel (below, a chunk's work is too short for a thread's
 * wake-up). */
#define CR_RADAU_CHUNK 16384
#define CR_RADAU_PARALLEL_MIN (4 * CR_RADAU_CHUNK)

/* Defaults as documented field by field above. */
cr_radau_options cr_radau_default_options(void);

/* ---------------------------------------------------------------------------
 * The integrator
 * ------------------------------------------------------------------------- */

typedef struct cr_radau cr_radau;

/* Counters since create (reinit does not reset them). */
typedef struct cr_radau_stats {
    long steps;              /* accepted steps */
    long rejected;           /* steps rejected by the error test (RADAU5
                              * does not count those before the first
                              * accepted step; this counter does) */
    long newton_failures;    /* steps abandoned because Newton diverged,
                              * converged too slowly or produced non-finite
                              * values or the rhs asked for a smaller step */
    long newton_iterations;  /* total simplified-Newton iterations */
    long rhs_evals;          /* F evaluations by the integrator (not those a
                              * finite-difference Jacobian hook makes) */
    long jac_evals;          /* linsys.jacobian calls */
    long lu_real;            /* linsys.factor_real calls */
    long lu_complex;         /* linsys.factor_complex calls */
    long solves_real;        /* linsys.solve_real calls */
    long solves_complex;     /* linsys.solve_complex calls */
    double h_last;           /* size of the last accepted step (0 before any) */
    double h_next;           /* step size the next step will try */
} cr_radau_stats;

/* Creates an integrator at (t0, y0) (y0 length n, copied). The problem and
 * options are validated and copied; returns NULL with a message in err on bad
 * input or when out of memory. Free with cr_radau_destroy. */
cr_radau *cr_radau_create(const cr_radau_problem *problem, const cr_radau_options *options,
                          double t0, const double *y0, cr_error *err);

/* Frees the integrator (NULL is allowed). Does not touch the problem's ctx. */
void cr_radau_destroy(cr_radau *solver);

/* Advances from the current t to t_end (>= t), landing on t_end exactly,
 * calling the output and step callbacks on the way. May be called again
 * with a later t_end to continue (J, h and the controller state are kept).
 * Returns
 *   CR_OK            t_end reached;
 *   CR_INTERRUPTED   a callback asked to stop; (t, y) = last accepted step;
 *   CR_NOT_CONVERGED max_steps reached, step size too small (below h_min /
 *                    h_min_rel, see cr_radau_options) or collapsed, or (fixed_step)
 *                    Newton failed; the state is the last accepted step and
 *                    the call may be repeated (after "step size too small" it
 *                    stops again unless the caller changes the problem, e.g.
 *                    reinit with another state);
 *   CR_SINGULAR      five factorizations in a row failed;
 *   CR_NONFINITE     repeated non-finite values prevented any progress;
 *   CR_BAD_INPUT     t_end < t;
 *   a negative status returned by F or a hook (passed through).
 * It runs in the caller's floating-point mode (the rod solvers flush subnormals to zero, README "From C";
 * this general integrator of the caller's equations leaves that choice to the caller). */
cr_status cr_radau_integrate(cr_radau *solver, double t_end, cr_error *err);

/* Restarts at (t, y) (y length n, copied) with first step h (0 = automatic),
 * e.g. from a checkpoint (cr_radau_t, cr_radau_y, cr_radau_h) or after the
 * caller changed the state discontinuously. The next step is treated as a
 * first step: new Jacobian, no extrapolated Newton start, filtered error
 * estimate. Statistics and the output grid anchor are kept; output times
 * before t are skipped. */
cr_status cr_radau_reinit(cr_radau *solver, double t, const double *y, double h, cr_error *err);

/* The controller's whole memory: everything besides (t, y) that decides the next
 * step sizes. A flat struct of doubles (CR_RADAU_MEMORY_DOUBLES of them, in this
 * order), so a checkpoint can store it as a double array. Taken with
 * cr_radau_get_memory after an accepted step (e.g. in the step callback, where it
 * already describes the next step) and given back with cr_radau_reinit_memory
 * together with the same (t, y), the restarted integrator continues as the
 * uninterrupted one would have: same controller state (predictive controller,
 * first-step and rejection flags, Newton contraction), and, when the collocation
 * polynomial of the last step is passed along too (3n doubles, optional), the
 * same Newton starting values. What differs: the restarted integrator evaluates a
 * fresh Jacobian and refactors, where the uninterrupted one might have reused an
 * older J; its Newton iterations can then differ slightly, and so can the step
 * sizes that depend on their count. cr_radau_h alone (cr_radau_reinit) restarts
 * as a first step: no predictive controller, a filtered error estimate, tenfold
 * reductions on rejection and Newton started from zero. */
typedef struct cr_radau_memory {
    double version;    /* CR_RADAU_MEMORY_VERSION */
    double t;          /* time of the state this memory belongs to */
    double t_start;    /* t at create/reinit (the step-size floor grows with t − t_start) */
    double h;          /* step size the next step will try */
    double h_last;     /* size of the last accepted step (0 before any) */
    double h_acc;      /* predictive controller: h of the last accepted step */
    double err_acc;    /* predictive controller: max(1e-2, its error norm) */
    double accepted;   /* accepted steps since create/reinit (the predictive controller acts from 1 on) */
    double first;      /* 1: the next step is a first step (filtered estimate, h/10 on rejection) */
    double reject;     /* 1: the last attempt was rejected (no growth at the next acceptance) */
    double faccon;     /* Newton: carried-over contraction estimate θ/(1 − θ) */
    double theta;      /* Newton: convergence rate of the last step */
    double polynomial; /* 1: cr_radau_get_memory wrote the collocation polynomial */
} cr_radau_memory;

#define CR_RADAU_MEMORY_VERSION 1.0
#define CR_RADAU_MEMORY_DOUBLES ((int)(sizeof(cr_radau_memory) / sizeof(double)))

/* Fills *memory with the controller state of `solver` at its current t, and, when
 * `polynomial` is non-NULL (length 3n) and a step has been accepted, the
 * collocation polynomial of the last step (its divided differences, the Newton
 * starting values of the next step); memory->polynomial says whether it did. */
void cr_radau_get_memory(const cr_radau *solver, cr_radau_memory *memory, double *polynomial);

/* Restarts at (t, y) (y length n, copied) with the controller state `memory` taken
 * at the same t by cr_radau_get_memory (possibly of another integrator of the same
 * problem and options, e.g. before a checkpoint), and the polynomial it wrote
 * (3n doubles; NULL: start Newton from zero). The Jacobian and the factorizations
 * are computed afresh; statistics and the output grid anchor are kept, output
 * times before t are skipped. CR_BAD_INPUT when the memory has another version,
 * non-finite or out-of-range entries, or belongs to another t. */
cr_status cr_radau_reinit_memory(cr_radau *solver, double t, const double *y, const cr_radau_memory *memory,
                                 const double *polynomial, cr_error *err);

/* Current time (end of the last accepted step, or the start time). */
double cr_radau_t(const cr_radau *solver);
/* Current state, length n, owned by the integrator; valid until the next call
 * that advances or reinitializes. */
const double *cr_radau_y(const cr_radau *solver);
/* Step size the next step will try (what a checkpoint should save). */
double cr_radau_h(const cr_radau *solver);
/* Number of unknowns. */
int cr_radau_n(const cr_radau *solver);
/* Counters; see cr_radau_stats. */
cr_radau_stats cr_radau_get_stats(const cr_radau *solver);
/* The tableau this integrator computed at create (owned by the integrator). */
const cr_radau_tableau *cr_radau_get_tableau(const cr_radau *solver);

/* Evaluates the collocation polynomial of the last accepted step at t (which
 * should lie in that step, [t − h_last, t]; outside it extrapolates) into
 * y_out (length n). Returns CR_BAD_INPUT before the first accepted step. Note
 * that if the step callback modified y, the polynomial at the step end still
 * gives the unmodified value. */
cr_status cr_radau_interpolate(const cr_radau *solver, double t, double *y_out, cr_error *err);

/* ---------------------------------------------------------------------------
 * Ready-made dense linear algebra (LAPACK dgetrf/dgetrs, zgetrf/zgetrs)
 * ------------------------------------------------------------------------- */

/* Dense Jacobian: writes ∂F_i/∂y_j into jac[i + j·n] (column-major, n×n;
 * the array is zeroed before the call). */
typedef cr_status (*cr_radau_dense_jac_fn)(double t, const double *y, double *jac, void *user);

typedef struct cr_radau_dense_solver cr_radau_dense_solver;

/* Creates dense storage for an n-unknown problem: J, the real LU (n×n) and
 * the complex LU (n×n complex). mass (length n, NULL = identity) is copied.
 * When jac is NULL the Jacobian is approximated by forward differences of rhs
 * (required then), with increments √(ε·max(1e-5, |y_j|)); those evaluations
 * are not counted in cr_radau_stats. Memory O(n²): for small problems only.
 * Returns NULL with a message in err on bad input or out of memory. */
cr_radau_dense_solver *cr_radau_dense_solver_create(int n, const double *mass,
                                                    cr_radau_dense_jac_fn jac,
                                                    cr_radau_rhs_fn rhs, void *user,
                                                    cr_error *err);

/* Frees the dense storage (NULL allowed). */
void cr_radau_dense_solver_destroy(cr_radau_dense_solver *dense);

/* The hook table for cr_radau_problem.linsys, with ctx = dense. */
cr_radau_linsys cr_radau_dense_solver_linsys(cr_radau_dense_solver *dense);

#ifdef __cplusplus
}
#endif
#endif
