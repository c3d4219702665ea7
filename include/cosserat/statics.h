/* cosserat — static equilibrium: Newton–Raphson with load incrementation
 * (mixed discrete rod, eqs. 22–25; spec §4 and §7.6). */
#ifndef COSSERAT_STATICS_H
#define COSSERAT_STATICS_H

#include "cosserat/mixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cr_static_options {
    int load_steps;      /* equal load increments from the current load factor to 1 (default 10) */
    int max_iterations;  /* Newton iterations per load step (default 25) */
    double atol;         /* absolute RMS residual tolerance (default 1e-10) */
    double rtol;         /* relative residual and increment tolerance (default 1e-6) */
    int max_halvings;    /* how often a failed load step may be halved before giving up (default 10) */
    int max_history;     /* residuals kept per load step in the report (default 64) */
    /* Threads of the assembly, the linear solves and the position correction (node ranges, a
     * partitioned block-tridiagonal LU, results equal to the serial ones to round-off). 0 (default):
     * automatic, i.e. COSSERAT_THREADS, else OMP_NUM_THREADS, else the online CPUs, but
     * only for rods of at least CR_STATIC_PARALLEL_MIN_NODES nodes (below, threads do not
     * pay); >= 1: exactly that many at any size. Rods with rigid strain components
     * (banded LU) are always solved on one thread. */
    int threads;
    /* Adaptive load stepping (scenario "load_steps": "auto"): the first increment is
     * 1/load_steps of the way, later ones double after a step that converged in at most
     * 3 Newton iterations and halve after one that needed 8 or more, never above
     * max_increment (0: the whole way). 0 (default): load_steps equal increments. */
    int adaptive;
    double max_increment;
    /* The stability estimate of the stage's final state (report.stability): CR_STABILITY_LEAVE
     * (default) estimates it and, when the state is unstable by divergence (a straight column
     * above its buckling load), leaves it along its unstable mode for the stable equilibrium a
     * real rod reaches (docs/theory.md, "Leaving an unstable equilibrium"); CR_STABILITY_KEEP
     * (1) estimates it and keeps the state whatever it is (bifurcation studies);
     * CR_STABILITY_OFF (0) skips the estimate. */
    int stability;
    int stability_modes; /* lowest modes estimated (default 4, at most CR_STABILITY_MAX_MODES) */
    /* Arc-length continuation (scenario "path": "arc_length", docs/theory.md): load factor
     * and state advance together along the equilibrium path, through limit points. 0
     * (default): load stepping as above. The path ends where the load factor first reaches
     * arc_max_load_factor (the step is cut to land on it) or after arc_steps steps,
     * wherever it is then (report.load_factor). arc_initial: the first step's load-factor
     * increment (the arc length is measured so that it is the step's arc length). */
    int arc_length;
    int arc_steps;              /* most steps (default 100) */
    double arc_initial;         /* default 0.05 */
    double arc_max_load_factor; /* default 1 */
} cr_static_options;

#define CR_STATIC_PARALLEL_MIN_NODES 10000

/* cr_static_options.stability */
enum { CR_STABILITY_OFF = 0, CR_STABILITY_KEEP = 1, CR_STABILITY_LEAVE = 2 };

cr_static_options cr_static_default_options(void);

/* One accepted load step. */
typedef struct cr_load_step_report {
    double load_factor;      /* reached at the end of the step */
    int iterations;          /* Newton iterations (linear solves) */
    int history_count;
    double *residual_history; /* RMS residual before each iteration and at the end (owned by the report) */
} cr_load_step_report;

enum { CR_STABILITY_MAX_MODES = 12 };

/* Stability of the equilibrium a static stage ended on (docs/theory.md, "Stability of
 * static equilibria"): the lowest eigenvalues ω² of the linearized dynamics about it,
 * M ξ̈ = A ξ with ξ = (δr in I, δθ in the node basis) per node, A the static tangent
 * on the rotation increments and the supports' free directions, M the lumped masses
 * (eq. 1). ω² < 0 is a mode that grows as e^{√(−ω²) t}: the equilibrium is unstable. */
typedef struct cr_stability_report {
    int checked;             /* 1 when estimated (options.stability, converged stages) */
    int unstable_modes;      /* estimated modes with Re ω² < 0 (divergence: negative stiffness) */
    int flutter_modes;       /* estimated modes with Re ω² >= 0 but complex ω² (|Im| > 1e-3 |ω²|): they grow
                              * while oscillating, which nonconservative (follower) loads can cause */
    int modes;               /* ω² values estimated */
    double omega2[CR_STABILITY_MAX_MODES]; /* lowest ω² (real parts), ascending (rad²/s²) */
    double omega2_imag_max;  /* largest |Im ω²| among them (nonzero: nonconservative loads) */
    double growth_rate;      /* largest Re √(−ω²) among them (1/s): a disturbance grows as e^{rate t} */
    double softest_stiffness; /* ω² times the modal mass of the lowest mode scaled to a largest node
                               * displacement of 1 m (N/m; N m/rad for a rotation mode, see below) */
    int softest_rotational;  /* the lowest mode turns the nodes without moving them (< 1e-3 × rotation × L) */
    int softest_node;        /* node that moves (or turns) most in the lowest mode */
    int unit_density;        /* the rod has no mass: ρA = 1 kg/m was used (ω² per kg/m) */
    int iterations;          /* subspace iterations (one linear solve per mode each) */
    double residual;         /* largest relative residual of the reported eigenpairs */
    double time_s;           /* wall time of the estimate (assembly, factorization, iteration) */
    /* The supports and the rigid strain components hold every motion (6 per node, less the held
     * ones and one per rigid component of each element, is <= 0): no mode to estimate, and the
     * equilibrium is stable (modes = 0). */
    int no_free_motion;
    /* 1: estimated but without a verdict (the lowest mode did not converge, or a value is not
     * finite): neither stable nor unstable; `unknown_reason` says why */
    int unknown;
    char unknown_reason[160];
    /* The stage's load path ended on an equilibrium unstable by divergence and the solve left it
     * (CR_STABILITY_LEAVE): pushed along its lowest mode, relaxed in pseudo-time to an
     * equilibrium and that one estimated (the numbers above are the new state's). */
    int left;                     /* 1: left; the state is the one reached */
    double left_from_omega2;      /* lowest ω² of the equilibrium left (rad²/s²) */
    int left_from_unstable_modes; /* its modes with negative stiffness */
    double left_push;             /* the push: largest node displacement (m; for a rotational mode the
                                   * largest rotation in rad times the rod's length) */
    int left_steps;               /* pseudo-time steps of the relaxation (all attempts) */
    int left_iterations;          /* Newton iterations that then converged it (all attempts) */
    int left_attempts;            /* pushes (a state reached unstable again is pushed along its mode) */
} cr_stability_report;

typedef struct cr_static_report {
    int converged;           /* 1 when the load factor 1 was reached */
    int step_count;          /* accepted load steps */
    int step_capacity;
    cr_load_step_report *steps;
    int failed_attempts;     /* load steps that were halved */
    int total_iterations;
    double final_residual;   /* RMS residual of the last accepted state */
    double load_factor;      /* reached (1 on success) */
    double wall_time_s;
    double assembly_time_s;  /* time in residual + Jacobian assembly */
    double solve_time_s;     /* time in the block-tridiagonal factorization and solve */
    cr_stability_report stability; /* of the final state (not counted in wall_time_s) */
    /* 1: the rod's twist was a gauge (a circular rod held only by pins, dead forces and
     * gravity: turning every node about its own axis changes nothing physical) and the
     * solve held it at node gauge_node, whose rotation about its axis kept its start value */
    int twist_gauge;
    int gauge_node;
} cr_static_report;

void cr_static_report_free(cr_static_report *report);

/* Called after every accepted load step with the converged state; return nonzero
 * to stop the solve (status CR_INTERRUPTED). */
typedef int (*cr_static_step_fn)(const cr_model *model, const cr_state *state,
                                 const cr_load_step_report *step, int step_index, void *user);

/* Solves for equilibrium from `state` (warm start; usually the reference state,
 * load factor 0) up to load factor 1. On success state holds the equilibrium.
 * On failure (CR_NOT_CONVERGED, CR_SINGULAR, CR_NONFINITE) state holds the last
 * converged load step and err says where the solve stopped. `report` (optional)
 * is filled either way; free it with cr_static_report_free. */
cr_status cr_static_solve(const cr_model *model, cr_state *state, const cr_static_options *options,
                          cr_static_step_fn on_step, void *user, cr_static_report *report,
                          cr_error *err);

/* The same for one stage of a multi-stage run: the magnitude of load k goes from
 * the state's current factor to target[k] (cr_model_stage_load_factors) as the
 * load factor goes from 0 to 1; prescribed poses reach their target in the first
 * static stage. cr_static_solve is this with the loads of stage 0. */
cr_status cr_static_solve_to(const cr_model *model, cr_state *state, const double *target,
                             const cr_static_options *options, cr_static_step_fn on_step, void *user,
                             cr_static_report *report, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
