/* cr_static_solve for the mixed discrete rod: binds the residual of
 * statics_residual.c to the generic load-stepping Newton solver. */
#include "cosserat/statics.h"
#include "mixed.h"
#include "terms.h"
#include "solvers/newton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct static_ctx {
    const cr_model *model;
    const double *from, *to; /* load factors at load factor 0 and 1 */
    double *scale;           /* the current ones */
    double bc_from;
    cr_blocktri *Jr; /* position Jacobian of the force rows, for the correction */
    double *F;
    cr_state *state;
    cr_static_step_fn on_step;
    void *user;
} static_ctx;

/* load magnitudes and prescribed-pose ramp at load factor lf */
static double set_scales(const static_ctx *c, double lf)
{
    for (int k = 0; k < c->model->load_count; ++k) c->scale[k] = c->from[k] + lf * (c->to[k] - c->from[k]);
    return c->bc_from + lf * (1.0 - c->bc_from);
}

static cr_status eval(void *ctx, double lf, const double *x, double *F, cr_blocktri *J)
{
    const static_ctx *c = ctx;
    double bc = set_scales(c, lf);
    return cr_mixed_static_residual(c->model, bc, c->scale, x, F, J, NULL);
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

/* ∂F/∂λ: the loads are linear in their factors (terms.c), the element terms do not
 * depend on λ, and held nodes follow their ramped targets. */
static cr_status dparam(void *ctx, double lf, const double *x, double *dF)
{
    const static_ctx *c = ctx;
    const cr_model *m = c->model;
    const cr_layout ly = cr_layout_static(m);
    for (int k = 0; k < m->load_count; ++k) c->scale[k] = c->to[k] - c->from[k];
    memset(dF, 0, (size_t)m->nodes * m->block * sizeof *dF);
    cr_term_loads(m, &ly, c->scale, x, dF, NULL);
    double bc = c->bc_from + lf * (1.0 - c->bc_from), dbc = 1.0 - c->bc_from, h = 1e-7;
    for (int i = 0; i < m->nodes; ++i) {
        if (m->bc_type[i] < 0) continue;
        double *row = dF + (size_t)i * m->block;
        memset(row, 0, CR_NODE_DOF * sizeof *row);
        if (m->bc_type[i] != CR_BC_POSE || dbc == 0) continue;
        cr_vec3 r0, r1;
        cr_quat p0, p1;
        cr_model_bc_target(m, i, bc, &r0, &p0);
        cr_model_bc_target(m, i, bc + h, &r1, &p1);
        double d[7] = {r1.x - r0.x, r1.y - r0.y, r1.z - r0.z, p1.w - p0.w, p1.x - p0.x, p1.y - p0.y, p1.z - p0.z};
        for (int k = 0; k < CR_NODE_DOF; ++k) row[k] = -d[k] / h * dbc; /* rows are x - target */
    }
    return CR_OK;
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
    double bc = set_scales(c, lf);
    cr_status st = cr_mixed_force_residual(m, bc, c->scale, x, c->F, c->Jr);
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
    c->state->bc_factor = set_scales(c, lf);
    for (int k = 0; k < c->model->load_count; ++k) c->state->load_scale[k] = c->scale[k];
    return c->on_step ? c->on_step(c->model, c->state, step, index, c->user) : 0;
}

cr_status cr_static_solve(const cr_model *model, cr_state *state, const cr_static_options *options,
                          cr_static_step_fn on_step, void *user, cr_static_report *report, cr_error *err)
{
    double *target = malloc((model->load_count > 0 ? model->load_count : 1) * sizeof *target);
    if (!target) return cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
    cr_model_stage_load_factors(model, 0, target);
    cr_status st = cr_static_solve_to(model, state, target, options, on_step, user, report, err);
    free(target);
    return st;
}

cr_status cr_static_solve_to(const cr_model *model, cr_state *state, const double *target,
                             const cr_static_options *options, cr_static_step_fn on_step, void *user,
                             cr_static_report *report, cr_error *err)
{
    cr_static_options defaults = cr_static_default_options();
    if (!options) options = &defaults;
    int held = 0;
    for (int i = 0; i < model->nodes; ++i) held |= model->bc_type[i] >= 0;
    if (!held) /* six rigid-body modes: the static tangent is singular */
        return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions: statics needs at least one clamp or "
                                               "prescribed pose (a free rod has rigid-body modes)");
    int nl = model->load_count > 0 ? model->load_count : 1;
    static_ctx ctx = {.model = model, .state = state, .on_step = on_step, .user = user, .to = target,
                      .bc_from = state->bc_factor};
    double *from = malloc(nl * sizeof *from);
    ctx.scale = malloc(nl * sizeof *ctx.scale);
    ctx.Jr = cr_blocktri_create(model->nodes, 3);
    ctx.F = malloc((size_t)model->nodes * 3 * sizeof(double));
    if (!from || !ctx.scale || !ctx.Jr || !ctx.F) {
        free(from);
        free(ctx.scale);
        cr_blocktri_destroy(ctx.Jr);
        free(ctx.F);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
    }
    memcpy(from, state->load_scale, nl * sizeof *from);
    ctx.from = from;
    cr_nonlinear_problem p = {.blocks = model->nodes, .block_size = model->block,
                              .banded = model->rigid_count > 0, .ctx = &ctx, .eval = eval,
                              .project = normalize_quaternions, .correct = correct_positions, .dparam = dparam, .on_step = step_done};
    cr_static_report local;
    cr_static_report *r = report ? report : &local;
    double lf = 0.0;
    cr_status st = cr_load_stepping_solve(&p, &lf, state->x, options, r, err);
    if (lf <= 0.0) { /* nothing accepted: the state keeps its loads */
        memcpy(state->load_scale, from, nl * sizeof *from);
        state->bc_factor = ctx.bc_from;
    }
    state->load_factor = lf;
    cr_blocktri_destroy(ctx.Jr);
    free(ctx.F);
    free(from);
    free(ctx.scale);
    if (!report) cr_static_report_free(&local);
    return st;
}
