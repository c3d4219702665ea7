/* cr_static_solve for the mixed discrete rod: binds the residual of
 * statics_residual.c to the generic load-stepping Newton solver. */
#include "cosserat/statics.h"
#include "mixed.h"
#include "solvers/newton.h"

#include <math.h>
#include <stdlib.h>

typedef struct static_ctx {
    const cr_model *model;
    cr_blocktri *Jr; /* position Jacobian of the force rows, for the correction */
    double *F;
    cr_state *state;
    cr_static_step_fn on_step;
    void *user;
} static_ctx;

static cr_status eval(void *ctx, double lf, const double *x, double *F, cr_blocktri *J)
{
    const static_ctx *c = ctx;
    return cr_mixed_static_residual(c->model, lf, x, F, J, NULL);
}

/* Quaternions normalized after each converged load step (spec §7.6). */
static void normalize_quaternions(void *ctx, double *x)
{
    const cr_model *m = ((static_ctx *)ctx)->model;
    for (int i = 0; i < m->nodes; ++i) {
        double *p = x + (size_t)i * m->block + 3;
        double s = 1.0 / sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
        for (int k = 0; k < 4; ++k) p[k] *= s;
    }
}

/* A linearized Newton update moves positions along the tangents of the rotation,
 * which stretches every element by O(Δθ²): with EA L²/EI ~ 10⁴ for slender rods,
 * the stretched state has an axial residual that the iteration then has to undo
 * for many iterations. With the orientations fixed, the force equilibrium rows
 * are linear in the positions (tendons aside), so re-solving them for r after
 * each update removes that artefact: a nonlinear elimination of r, which keeps
 * Newton's local quadratic convergence. Rigid components skip it (their
 * multipliers would have to join the subsystem). */
static cr_status correct_positions(void *ctx, double lf, double *x)
{
    static_ctx *c = ctx;
    const cr_model *m = c->model;
    if (m->rigid_count > 0) return CR_OK;
    cr_status st = cr_mixed_force_residual(m, lf, x, c->F, c->Jr);
    if (st == CR_OK) st = cr_blocktri_factor(c->Jr, NULL);
    if (st != CR_OK) return st;
    cr_blocktri_solve(c->Jr, c->F);
    for (int i = 0; i < m->nodes; ++i)
        for (int r = 0; r < 3; ++r) x[(size_t)i * m->block + r] -= c->F[i * 3 + r];
    return CR_OK;
}

static int step_done(void *ctx, double lf, const double *x, const cr_load_step_report *step, int index)
{
    static_ctx *c = ctx;
    c->state->load_factor = lf;
    return c->on_step ? c->on_step(c->model, c->state, step, index, c->user) : 0;
}

cr_status cr_static_solve(const cr_model *model, cr_state *state, const cr_static_options *options,
                          cr_static_step_fn on_step, void *user, cr_static_report *report, cr_error *err)
{
    cr_static_options defaults = cr_static_default_options();
    if (!options) options = &defaults;
    static_ctx ctx = {.model = model, .state = state, .on_step = on_step, .user = user};
    ctx.Jr = cr_blocktri_create(model->nodes, 3);
    ctx.F = malloc((size_t)model->nodes * 3 * sizeof(double));
    if (!ctx.Jr || !ctx.F) {
        cr_blocktri_destroy(ctx.Jr);
        free(ctx.F);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
    }
    cr_nonlinear_problem p = {.blocks = model->nodes, .block_size = model->block,
                              .banded = model->rigid_count > 0, .ctx = &ctx, .eval = eval,
                              .project = normalize_quaternions, .correct = correct_positions, .on_step = step_done};
    cr_static_report local;
    cr_static_report *r = report ? report : &local;
    double lf = state->load_factor;
    cr_status st = cr_load_stepping_solve(&p, &lf, state->x, options, r, err);
    state->load_factor = lf;
    cr_blocktri_destroy(ctx.Jr);
    free(ctx.F);
    if (!report) cr_static_report_free(&local);
    return st;
}
