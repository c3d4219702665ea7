/* A dynamic stage of the mixed discrete rod: the DAE of dynamics.c integrated by
 * the adaptive Radau IIA solver through the block-tridiagonal shifted solves
 * (O(n) per factorization and per solve). */
#define _POSIX_C_SOURCE 199309L
#include "contact/contact.h"
#include "contact/rodcontact.h"
#include "math/fpmode.h"
#include "selfcontact.h"
#include "cosserat/dynamics.h"
#include "cosserat/radau.h"
#include "linalg/blocktri_shifted.h"
#include "mixed.h"
#include "supports.h"
#include "terms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

cr_dynamic_options cr_dynamic_default_options(void)
{
    return (cr_dynamic_options){.t_end = 1.0,
                                .rtol = 1e-3,
                                .atol = 1e-6,
                                .output_dt = 1e-2,
                                .max_steps = 10000000,
                                .checkpoint_interval = 30.0};
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double cr_state_time(const cr_state *s) { return s->time; }
cr_vec3 cr_state_velocity(const cr_state *s, int i) { return cr_v3_load(s->velocity + 6 * (size_t)i); }
cr_vec3 cr_state_angular_velocity(const cr_state *s, int i) { return cr_v3_load(s->velocity + 6 * (size_t)i + 3); }
void cr_state_set_velocity(cr_state *s, int i, cr_vec3 v, cr_vec3 om)
{
    cr_v3_store(v, s->velocity + 6 * (size_t)i);
    cr_v3_store(om, s->velocity + 6 * (size_t)i + 3);
}

int cr_model_body_count(const cr_model *m) { return m->body_count; }
const char *cr_model_body_name(const cr_model *m, int j) { return m->bodies[j].name; }

void cr_state_body_pose(const cr_model *m, const cr_state *s, int j, cr_vec3 *center, cr_mat3 *axes)
{
    const cr_body *b = &m->bodies[j];
    cr_mat3 A = cr_q_exp(cr_state_orientation(s, b->node));
    if (center) *center = cr_v3_add(cr_state_position(s, b->node), cr_m3_mulv(A, b->offset));
    if (axes) *axes = cr_m3_mul(A, b->relative);
}

int cr_state_packed_size(const cr_model *m)
{
    return 6 + 2 * (m->load_count > 0 ? m->load_count : 1) + m->nodes * m->block + 6 * m->nodes + 6 * m->n;
}

void cr_state_pack(const cr_state *s, double *out)
{
    const cr_model *m = s->model;
    int nl = m->load_count > 0 ? m->load_count : 1;
    out[0] = s->load_factor, out[1] = s->bc_factor, out[2] = s->time, out[3] = nl, out[4] = s->stage,
    out[5] = s->dynamic;
    memcpy(out + 6, s->load_scale, nl * sizeof(double));
    memcpy(out + 6 + nl, s->load_input, nl * sizeof(double));
    out += 6 + 2 * nl;
    memcpy(out, s->x, (size_t)m->nodes * m->block * sizeof(double));
    out += (size_t)m->nodes * m->block;
    memcpy(out, s->velocity, (size_t)m->nodes * 6 * sizeof(double));
    out += (size_t)m->nodes * 6;
    memcpy(out, s->stress, (size_t)m->n * 6 * sizeof(double));
}

void cr_state_unpack(cr_state *s, const double *in)
{
    const cr_model *m = s->model;
    int nl = m->load_count > 0 ? m->load_count : 1;
    s->load_factor = in[0], s->bc_factor = in[1], s->time = in[2], s->stage = (int)in[4], s->dynamic = (int)in[5];
    memcpy(s->load_scale, in + 6, nl * sizeof(double));
    memcpy(s->load_input, in + 6 + nl, nl * sizeof(double));
    in += 6 + 2 * nl;
    memcpy(s->x, in, (size_t)m->nodes * m->block * sizeof(double));
    in += (size_t)m->nodes * m->block;
    memcpy(s->velocity, in, (size_t)m->nodes * 6 * sizeof(double));
    in += (size_t)m->nodes * 6;
    memcpy(s->stress, in, (size_t)m->n * 6 * sizeof(double));
}

/* Layout of the integrator memory (cr_dynamic_memory_size doubles). */
enum {
    MEM_VALID,                   /* 1: holds an accepted step */
    MEM_STAGE,                   /* stage index */
    MEM_T_STAGE_START,           /* the stage's start time */
    MEM_T,                       /* time of the state it belongs to */
    MEM_COUNTERS,                /* steps, rejected, newton_iterations, rhs_evals, jacobians, lu_real, lu_complex */
    MEM_WALL = MEM_COUNTERS + 7, /* wall time of the stage so far (s) */
    MEM_DISSIPATED,              /* energy dissipated by damping in the stage so far (J) */
    MEM_RADAU,                   /* cr_radau_memory, then the 3N doubles of the collocation polynomial */
};

int cr_dynamic_memory_size(const cr_model *m)
{
    return MEM_RADAU + CR_RADAU_MEMORY_DOUBLES + 3 * m->nodes * CR_DYN_BLOCK;
}

typedef struct dyn_ctx {
    const cr_model *m;
    cr_state *state;
    const double *active; /* stage factors */
    double *input;        /* the actuator inputs in force over the current output interval */
    double *scale;        /* active × input × time function at the current t */
    double *F;            /* scratch (nodes × 19) */
    double *power_scale;  /* scales without gravity, for the external work */
    cr_vec3 gravity;      /* total active gravity acceleration (for the potential) */
    double work, last_power, last_t;
    double dissipated;  /* ∫ damping power dt since the stage start, to last_t */
    double *ytmp;       /* scratch (nodes × 19): stage values for the dissipation quadrature */
    double *yout;       /* scratch (nodes × 19): the output state with held coordinates on target */
    double *ucoef;      /* 6 per element: L_e/(2 k_k), the elastic energy's weights */
    const double *mass; /* the integrator's mass: 0 on algebraic rows (stresses, held coordinates) */
    cr_dynamic_output_fn on_output;
    cr_dynamic_step_fn on_step;
    cr_radau *radau;
    void *user;
    int stopped;
    /* segmented: integrated output interval by interval (inputs may change at output
     * times); a stop asked at an output then takes effect after that step's bookkeeping */
    int segmented, stop_pending;
    /* integrator memory (NULL: none) and what the run before a resume contributed */
    double *memory;
    int stage;
    double t_stage_start, wall_start, base_wall;
    long base[7];
} dyn_ctx;

/* The counters of the whole stage: this run's plus the resumed run's. */
static void stage_counters(const dyn_ctx *c, long out[7])
{
    cr_radau_stats rs = cr_radau_get_stats(c->radau);
    long now_[7] = {rs.steps, rs.rejected, rs.newton_iterations, rs.rhs_evals, rs.jac_evals, rs.lu_real, rs.lu_complex};
    for (int k = 0; k < 7; ++k) out[k] = c->base[k] + now_[k];
}

/* Describes the accepted step the integrator stands on (called from its step callback). */
static void save_memory(dyn_ctx *c, double t)
{
    double *mem = c->memory;
    long cnt[7];
    stage_counters(c, cnt);
    mem[MEM_VALID] = 1.0;
    mem[MEM_STAGE] = c->stage;
    mem[MEM_T_STAGE_START] = c->t_stage_start;
    mem[MEM_T] = t;
    for (int k = 0; k < 7; ++k) mem[MEM_COUNTERS + k] = (double)cnt[k];
    mem[MEM_WALL] = c->base_wall + (now() - c->wall_start);
    mem[MEM_DISSIPATED] = c->dissipated;
    cr_radau_memory rm;
    cr_radau_get_memory(c->radau, &rm, mem + MEM_RADAU + CR_RADAU_MEMORY_DOUBLES);
    memcpy(mem + MEM_RADAU, &rm, sizeof rm);
}

static void set_scales(dyn_ctx *c, double t)
{
    for (int k = 0; k < c->m->load_count; ++k) {
        double f = c->active[k] == 0 || c->input[k] == 0
                       ? 0.0
                       : c->active[k] * c->input[k] * cr_time_function_eval(&c->m->loads[k].time, t);
        c->scale[k] = f;
        /* constant gravity is in the potential; gravity with a time function does work */
        int conservative = c->m->loads[k].type == CR_LOAD_GRAVITY && c->m->loads[k].time.type == CR_TIME_CONSTANT;
        c->power_scale[k] = conservative ? 0.0 : f;
    }
}

/* supports in a dynamic stage: their motion factor is f(t) */
static cr_supports_at supports_at(const dyn_ctx *c, double t)
{
    cr_supports_at at = {.stage = c->stage, .ramp = 1.0, .t = t, .from = NULL, .from_blend = 1.0};
    return at;
}

static cr_status rhs(double t, const double *y, double *f, void *user)
{
    dyn_ctx *c = user;
    set_scales(c, t);
    cr_supports_at at = supports_at(c, t);
    return cr_mixed_dynamic_residual(c->m, &at, c->scale, y, f, NULL);
}

static cr_status jacobian(double t, const double *y, const double *fy, cr_blocktri *J, void *user)
{
    dyn_ctx *c = user;
    set_scales(c, t);
    cr_supports_at at = supports_at(c, t);
    return cr_mixed_dynamic_residual(c->m, &at, c->scale, y, c->F, J);
}

/* y (dynamic layout) → state (static layout + velocities + stresses). */
static void unpack_y(const cr_model *m, const double *y, double t, cr_state *s)
{
    /* plain loops: three memcpy calls of 7, 6 and 6 doubles per node cost more than the copies */
    for (int i = 0; i < m->nodes; ++i) {
        const double *yi = y + (size_t)i * CR_DYN_BLOCK;
        double *xi = s->x + (size_t)i * m->block, *vi = s->velocity + 6 * (size_t)i;
        for (int k = 0; k < CR_NODE_DOF; ++k) xi[k] = yi[k];
        for (int k = 0; k < 6; ++k) vi[k] = yi[CR_DYN_V + k];
        if (i < m->n)
            for (int k = 0; k < 6; ++k) s->stress[6 * (size_t)i + k] = yi[CR_DYN_LAM + k];
    }
    s->time = t;
}

/* Power of the non-gravity loads, Σ f·v + μ·Ω (μ and Ω both in the nodal basis). */
static double load_power(dyn_ctx *c, double t, const double *y)
{
    const cr_model *m = c->m;
    set_scales(c, t);
    int any = 0;
    for (int k = 0; k < m->load_count; ++k) any |= c->power_scale[k] != 0;
    if (!any) return 0.0; /* constant gravity alone (in the potential) does no work here */
    cr_layout ly = cr_layout_dynamic();
    memset(c->F, 0, (size_t)m->nodes * CR_DYN_BLOCK * sizeof(double));
    cr_term_loads(m, &ly, c->power_scale, y, c->F, NULL);
    double P = 0;
    for (int i = 0; i < m->nodes; ++i) {
        const double *yi = y + (size_t)i * CR_DYN_BLOCK, *Fi = c->F + (size_t)i * CR_DYN_BLOCK;
        for (int k = 0; k < 6; ++k) P += Fi[CR_DYN_V + k] * yi[CR_DYN_V + k];
    }
    return P;
}

/* Energy dissipated by damping from the last accepted step (last_t) to t within the
 * step being accepted, integrated on its collocation polynomial with the integrator's
 * order: at the step end (t = t_n + h) the Radau IIA quadrature h Σ b_j P(Y_j) on the
 * stage values Y_j = u(t_n + c_j h) (b = last row of A, exact for polynomials of degree
 * 4); inside it (output times) 3-point Gauss–Legendre on u over [t_n, t] (degree 5). */
static double dissipation_to(dyn_ctx *c, double t, int step_end)
{
    const cr_model *m = c->m;
    double h = t - c->last_t;
    if (!(h > 0) || (!m->kv_tau && !m->drag_active)) return 0.0;
    const cr_radau_tableau *tab = cr_radau_get_tableau(c->radau);
    static const double gx[3] = {0.11270166537925831148, 0.5, 0.88729833462074168852}; /* (1 ∓ √(3/5))/2, 1/2 */
    static const double gw[3] = {5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0};
    double D = 0;
    for (int j = 0; j < 3; ++j) {
        double tj = step_end ? c->last_t + tab->c[j] * h : c->last_t + gx[j] * h;
        if (cr_radau_interpolate(c->radau, tj, c->ytmp, NULL) != CR_OK) return 0.0;
        D += (step_end ? tab->b[j] : gw[j]) * cr_mixed_damping_power(m, c->ytmp);
    }
    return h * D;
}

/* The output state at t inside a step: the collocation polynomial, except that the
 * coordinates and velocities a support holds are put on their target at t. The
 * algebraic rows 0 = target(t) − y hold exactly at the collocation points only; in
 * between the polynomial interpolates the target with the step's interpolation
 * error, which grows with h, while the exact value is known. */
static const double *output_state(dyn_ctx *c, double t, const double *y)
{
    const cr_model *m = c->m;
    if (m->support_count == 0) return y;
    const int B = CR_DYN_BLOCK;
    cr_supports_at at = supports_at(c, t);
    cr_supports_dynamic_rows(m, &at, y, c->F, NULL); /* F = target − y on the held rows only */
    /* the held rows are the zero-mass ones among a supported node's first 13 */
    int off = 0;
    for (int k = 0; k < m->support_count && !off; ++k)
        for (int r = 0; r < CR_DYN_LAM; ++r) {
            size_t j = (size_t)m->supports[k].node * B + r;
            if (c->mass[j] == 0.0 && c->F[j] != 0.0) off = 1;
        }
    if (!off) return y; /* a fixed support: the polynomial is on target already */
    memcpy(c->yout, y, (size_t)m->nodes * B * sizeof(double));
    for (int k = 0; k < m->support_count; ++k)
        for (int r = 0; r < CR_DYN_LAM; ++r) {
            size_t j = (size_t)m->supports[k].node * B + r;
            if (c->mass[j] == 0.0) c->yout[j] = y[j] + c->F[j];
        }
    return c->yout;
}

static int output(double t, const double *y_poly, void *user)
{
    dyn_ctx *c = user;
    if (!c->on_output) return 0;
    const double *y = output_state(c, t, y_poly);
    /* the work up to t: trapezoid from the last accepted step (t lies inside the current step) */
    double P = load_power(c, t, y);
    cr_dynamic_sample smp = {.t = t, .work_external = c->work + 0.5 * (P + c->last_power) * (t - c->last_t)};
    cr_mixed_dynamic_observables(c->m, y, c->gravity, c->ucoef, &smp.kinetic, &smp.elastic, &smp.gravity, &smp.momentum,
                                 &smp.angular_momentum);
    smp.extra_count = 1;
    smp.extra[0] = c->dissipated + dissipation_to(c, t, 0);
    if (c->m->contact) { /* series.csv's contact columns (formulation.c, series_extra) */
        cr_contact_totals ct;
        cr_contact_set_time(c->m->contact, t);
        cr_contact_totals_at(c->m->contact, y, CR_DYN_BLOCK, &ct);
        smp.extra_count = 5;
        smp.extra[1] = ct.active, smp.extra[2] = ct.slipping, smp.extra[3] = ct.normal, smp.extra[4] = ct.penetration;
    }
    if (c->m->selfcontact) { /* formulation.c, series_extra: pairs pressing, the smallest gap (m) */
        const cr_rodcontact *rc = c->m->selfcontact;
        double reach = 0; /* min_gap looks 2 a_max far: no pair that near is a gap of at least that */
        for (int i = 0; i < rc->nodes; ++i) reach = fmax(reach, 2 * rc->radius[i]);
        smp.extra[smp.extra_count] = cr_rodcontact_find(c->m->selfcontact, y, CR_DYN_BLOCK);
        smp.extra[smp.extra_count + 1] =
            fmin(reach, cr_rodcontact_min_gap(c->m->selfcontact, y, CR_DYN_BLOCK, NULL, NULL));
        smp.extra_count += 2;
    }
    unpack_y(c->m, y, t, c->state);
    int stop = c->on_output(c->m, c->state, &smp, c->user);
    if (stop && c->segmented) { /* t ends the step: finish its bookkeeping first (step_done) */
        c->stop_pending = 1;
        return 0;
    }
    if (stop) c->stopped = 1;
    return stop;
}

/* No step may carry a node through a thin obstacle (tunnelling): the error test sees a
 * smooth motion on both sides of it (docs/theory.md, "Contact with obstacles"). */
static double contact_step_limit(double t, const double *y, void *user)
{
    const dyn_ctx *c = user;
    return cr_contact_step_limit(c->m->contact, t, y, CR_DYN_BLOCK, CR_DYN_V);
}

/* After each accepted step: renormalize the quaternions (spec §7.7), accumulate the
 * external work, and let the caller see the state (progress, checkpoints, stop). */
static int step_done(double t, double *y, void *user)
{
    dyn_ctx *c = user;
    const cr_model *m = c->m;
    for (int i = 0; i < m->nodes; ++i) {
        double *p = y + (size_t)i * CR_DYN_BLOCK + 3;
        double s = 1.0 / sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
        for (int k = 0; k < 4; ++k) p[k] *= s;
    }
    if (m->contact) cr_contact_set_time(m->contact, t), cr_contact_dynamic_step(m->contact, y, CR_DYN_BLOCK);
    double P = load_power(c, t, y);
    c->work += 0.5 * (P + c->last_power) * (t - c->last_t);
    c->dissipated += dissipation_to(c, t, 1);
    c->last_power = P;
    c->last_t = t;
    if (c->memory) save_memory(c, t);
    if (!c->on_step) {
        if (c->stop_pending) c->stopped = 1;
        return c->stop_pending;
    }
    unpack_y(m, y, t, c->state);
    long cnt[7];
    stage_counters(c, cnt);
    int stop = c->on_step(m, c->state, cr_radau_h(c->radau), cnt[0], c->work, c->user) || c->stop_pending;
    if (stop) c->stopped = 1;
    return stop;
}

cr_status cr_dynamic_solve(const cr_model *m, cr_state *state, int stage, double t_stage_start, double h0,
                           double work_external, const cr_dynamic_options *o, cr_dynamic_output_fn on_output,
                           cr_dynamic_step_fn on_step, void *user, cr_dynamic_report *report, cr_error *err)
{
    return cr_dynamic_solve_memory(m, state, stage, t_stage_start, h0, work_external, o, on_output, on_step, user, NULL,
                                   report, err);
}

cr_status cr_dynamic_solve_memory(const cr_model *m, cr_state *state, int stage, double t_stage_start, double h0,
                                  double work_external, const cr_dynamic_options *o, cr_dynamic_output_fn on_output,
                                  cr_dynamic_step_fn on_step, void *user, double *memory, cr_dynamic_report *report,
                                  cr_error *err)
{
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    cr_status st = cr_mixed_dynamic_solve(m, state, stage, t_stage_start, h0, work_external, o, on_output, on_step,
                                          user, memory, 0, report, err);
    cr_fpmode_restore(fp);
    return st;
}

/* Inputs (state->load_input) are read at the stage start and, when segmented, after
 * every output time: a new input is a jump of the right-hand side there, so each
 * output interval is integrated on its own (the integrator lands on the output time)
 * and, when an input changed, the integrator restarts there (cr_radau_reinit: a first
 * step with a fresh Jacobian, as after any discontinuity). Not segmented, changes of
 * the inputs during the stage are ignored until the next stage. */
cr_status cr_mixed_dynamic_solve(const cr_model *m, cr_state *state, int stage, double t_stage_start, double h0,
                                 double work_external, const cr_dynamic_options *o, cr_dynamic_output_fn on_output,
                                 cr_dynamic_step_fn on_step, void *user, double *memory, int segmented,
                                 cr_dynamic_report *report, cr_error *err)
{
    double t0 = now();
    if (report) memset(report, 0, sizeof *report);
    if (m->rigid_count > 0)
        return cr_error_set(err, CR_UNSUPPORTED,
                            "dynamic stage %d: rigid strain components (rod.rigid_strains) make "
                            "the DAE index 2, which the Radau stage does not handle",
                            stage);
    for (int i = 0; i < m->nodes; ++i)
        if (!(m->node_mass[i] > 0))
            return cr_error_set(err, CR_BAD_INPUT, "dynamic stage %d: node %d has no mass: set rod.material.rho > 0",
                                stage, i);
    if (!(o->t_end > 0) || !(o->output_dt > 0) || !(o->rtol > 0) || !(o->atol > 0))
        return cr_error_set(err, CR_BAD_INPUT, "dynamic stage %d: t_end, output_dt, rtol and atol must be > 0", stage);
    const int B = CR_DYN_BLOCK, nn = m->nodes, N = nn * B, nl = m->load_count > 0 ? m->load_count : 1;
    double t_end = t_stage_start + o->t_end, t_begin = state->time;
    dyn_ctx c = {.m = m,
                 .state = state,
                 .on_output = on_output,
                 .on_step = on_step,
                 .user = user,
                 .work = work_external,
                 .last_t = t_begin,
                 .memory = memory,
                 .stage = stage,
                 .t_stage_start = t_stage_start,
                 .wall_start = t0,
                 .segmented = segmented};
    /* a memory of this stage taken at this state: the run continues a checkpointed one */
    int resume = memory && memory[MEM_VALID] == 1.0 && memory[MEM_STAGE] == stage &&
                 memory[MEM_T_STAGE_START] == t_stage_start && memory[MEM_T] == t_begin;
    if (resume) {
        for (int k = 0; k < 7; ++k) c.base[k] = (long)memory[MEM_COUNTERS + k];
        c.base_wall = memory[MEM_WALL];
        c.dissipated = memory[MEM_DISSIPATED];
    } else if (memory) {
        memset(memory, 0, (size_t)cr_dynamic_memory_size(m) * sizeof(double));
    }
    double *active = malloc(nl * sizeof(double)), *mass = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    double *atol = malloc(N * sizeof(double));
    int *index = malloc(N * sizeof(int));
    c.scale = malloc(nl * sizeof(double));
    c.input = malloc(nl * sizeof(double));
    c.power_scale = malloc(nl * sizeof(double));
    c.F = malloc(N * sizeof(double));
    c.ytmp = malloc(N * sizeof(double));
    c.yout = malloc(N * sizeof(double));
    c.ucoef = malloc((size_t)(m->n > 0 ? m->n : 1) * 6 * sizeof(double));
    if (c.ucoef)
        for (int e = 0; e < m->n; ++e) {
            const cr_element *el = &m->el[e];
            double k[6] = {el->k_force.x, el->k_force.y, el->k_force.z, el->k_moment.x, el->k_moment.y, el->k_moment.z};
            for (int q = 0; q < 6; ++q) c.ucoef[6 * (size_t)e + q] = 0.5 * el->length / k[q];
        }
    c.mass = mass;
    double nout_d = floor((t_end - t_stage_start) / o->output_dt + 1e-9) + 1;
    if (!(nout_d <= 1e8)) {
        cr_error_set(err, CR_BAD_INPUT, "stages.%d.output_dt: %g s gives %.3g output times (more than 1e8)", stage,
                     o->output_dt, nout_d);
        free(active), free(mass), free(y), free(atol), free(index), free(c.scale), free(c.power_scale), free(c.F);
        free(c.ytmp), free(c.yout), free(c.input), free(c.ucoef);
        return CR_BAD_INPUT;
    }
    long nout = (long)nout_d;
    double *times = malloc((nout > 0 ? nout : 1) * sizeof(double));
    cr_blocktri_radau *lin = NULL;
    void *self_linsys = NULL; /* the self-contact's wrapper of lin's solves */
    cr_status st = CR_OK;
    if (!active || !mass || !y || !atol || !index || !c.scale || !c.input || !c.power_scale || !c.F || !c.ytmp ||
        !c.yout || !c.ucoef || !times) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the dynamic stage");
        goto done;
    }
    cr_model_stage_load_factors(m, stage, active);
    c.active = active;
    memcpy(c.input, state->load_input, nl * sizeof(double));
    for (int k = 0; k < m->load_count; ++k)
        if (m->loads[k].type == CR_LOAD_GRAVITY && m->loads[k].time.type == CR_TIME_CONSTANT && active[k] != 0)
            c.gravity = cr_v3_madd(c.gravity, active[k], m->loads[k].value);
    /* initial y: poses and velocities of the state; stresses from the compliance law
     * so the algebraic equations hold (consistent index-1 initial values) */
    for (int i = 0; i < nn; ++i) {
        double *yi = y + (size_t)i * B;
        memcpy(yi, state->x + (size_t)i * m->block, CR_NODE_DOF * sizeof(double));
        memcpy(yi + CR_DYN_V, state->velocity + 6 * (size_t)i, 6 * sizeof(double));
        memset(yi + CR_DYN_LAM, 0, 6 * sizeof(double));
        if (i < m->n && resume) { /* the integrator's stresses, not the compliance law's: bit-identical y */
            memcpy(yi + CR_DYN_LAM, state->stress + 6 * (size_t)i, 6 * sizeof(double));
        } else if (i < m->n) {
            cr_vec3 n, mo;
            cr_state_element(m, state, i, NULL, NULL, &n, &mo);
            cr_v3_store(n, yi + CR_DYN_LAM);
            cr_v3_store(mo, yi + CR_DYN_LAM + 3);
        }
    }
    /* supports: representable by this DAE, their nodes where they hold them */
    state->stage = stage;
    state->bc_factor = 1.0;
    state->dynamic = 1;
    st = cr_supports_dynamic_check(m, stage, err);
    if (st == CR_OK && !resume) st = cr_supports_dynamic_start(m, stage, t_begin, y, err);
    if (st != CR_OK) goto done;
    /* Kelvin–Voigt: the stresses also carry K τ ε̇ of the initial velocities (the
     * supports' prescribed ones included) */
    if (!resume) cr_mixed_damping_consistent_stress(m, y);
    c.last_power = load_power(&c, t_begin, y);
    cr_mixed_dynamic_mass(m, stage, mass);
    lin = cr_blocktri_radau_create(nn, B, mass, 0, jacobian, &c, err);
    if (!lin) {
        st = err ? err->status : CR_NO_MEMORY;
        goto done;
    }
    /* cr_term_rod writes every block of J (the element terms overwrite the off-diagonal
     * ones), so the adaptor need not zero it first. The six stresses of every block are
     * algebraic with a diagonal compliance (λ_k/k_k − Δε_k, Kelvin–Voigt adds velocity
     * terms only) and couple node i to element i−1 and i alone: they are condensed out of
     * the shifted systems, which are then factored in 13×13 blocks instead of 19×19. */
    cr_blocktri_radau_set_filled(lin);
    if ((st = cr_blocktri_radau_condense(lin, 6, err)) != CR_OK) goto done;
    /* The kinematic rows r' = v, p' = dExp⁺(p) Ω (eqs. 3, 12) of every node involve that
     * node alone: they are eliminated too, and both shifted systems are factored in 6×6
     * blocks in the velocities (docs/theory.md, "Linear algebra"; a support the
     * elimination does not cover falls back to 13×13 for that Jacobian). */
    if ((st = cr_blocktri_radau_condense_kinematics(lin, err)) != CR_OK) goto done;
    int count = 0;
    for (long k = 0; k < nout; ++k) {
        double tk = t_stage_start + k * o->output_dt;
        if (tk > t_end + 1e-12 * o->output_dt) break;
        if (tk < t_begin - 1e-12 * o->output_dt) continue;
        if (tk <= t_begin && t_begin > t_stage_start) continue; /* resumed: already written */
        times[count++] = fmin(tk, t_end);
    }
    /* segmented: the output at the start is reported here, so the inputs it sets hold
     * from the first step on */
    int first_time = 0;
    if (segmented && count > 0 && times[0] <= t_begin) {
        first_time = 1;
        if (output(t_begin, y, &c) || c.stop_pending) {
            c.stopped = 1;
            st = CR_INTERRUPTED;
            cr_error_set(err, CR_INTERRUPTED, "stopped at t = %.6g s", t_begin);
            goto done;
        }
        memcpy(c.input, state->load_input, nl * sizeof(double));
        c.last_power = load_power(&c, t_begin, y);
    }
    /* Stresses are slaved to the configuration (λ = K_c l(q) on the algebraic rows), so
     * their error is weighted like the coordinates they stand for: an error δλ_k of
     * element e is a strain error δλ_k/k_k, i.e. a relative displacement (or, for the
     * moments, a relative rotation) δλ_k L_e/k_k of its two nodes, and that is held to
     * atol like the positions and quaternions themselves: atol_λk = atol k_k/L_e. This
     * keeps atol meaning the same for stiff steel and soft silicone, and for any n. (The
     * strain error alone, atol k_k, asked for strains 1/L_e times more accurate than
     * the positions: 400x for the Wilberforce spring, where it set 94 % of the error
     * norm and twice the steps; docs/theory.md, "Error weights".) */
    for (int i = 0; i < nn; ++i) {
        double *ai = atol + (size_t)i * B;
        for (int k = 0; k < CR_DYN_LAM; ++k) ai[k] = o->atol;
        for (int k = 0; k < 6; ++k) {
            double stiff = 1.0;
            if (i < m->n) {
                const cr_element *el = &m->el[i];
                double kk[6] = {el->k_force.x,  el->k_force.y,  el->k_force.z,
                                el->k_moment.x, el->k_moment.y, el->k_moment.z};
                stiff = kk[k] / el->length;
            }
            ai[CR_DYN_LAM + k] = o->atol * stiff;
        }
        /* Velocities of a rod with stiff axial and shear springs behave like the index-2
         * variables of a constrained mechanical system (HW VII): their high-frequency
         * content is damped by the L-stable method, and weighting their error by h keeps
         * the step size set by the motion that matters, not by µs-period waves. */
        int *ix = index + (size_t)i * B;
        for (int k = 0; k < B; ++k) ix[k] = (k >= CR_DYN_V && k < CR_DYN_LAM) ? 2 : 1;
    }
    cr_radau_options ro = cr_radau_default_options();
    ro.rtol = o->rtol;
    ro.atol = o->atol;
    ro.atol_vec = atol;
    ro.error_index = index;
    ro.h_init = h0 > 0 ? h0 : o->h_init;
    ro.h_max = o->h_max;
    ro.max_steps = o->max_steps;
    ro.output = output;
    ro.output_times = times + first_time;
    ro.n_output_times = count - first_time;
    ro.step_callback = step_done;
    if (m->contact) ro.step_limit = contact_step_limit;
    /* the Jacobian is the expensive part here: keep it while Newton converges well */
    ro.jac_reuse_theta = 0.1;
    /* with fast rotations (the Wilberforce bob turns ~1 rad per step) Newton's contraction,
     * not the error, limits h: grow h only as far as θ stays near 0.2 (Wilberforce 20 s:
     * 10 % fewer factorizations and 13 % fewer Newton iterations for 3 % more steps) */
    ro.newton_growth_theta = 0.2;
    cr_radau_problem prob = {.n = N, .mass = mass, .rhs = rhs, .linsys = cr_blocktri_radau_linsys(lin), .user = &c};
    if (m->selfcontact) { /* a penalty; its far-node coupling by Woodbury in every shifted solve */
        cr_rodcontact_reset(m->selfcontact);
        if (cr_mixed_selfcontact_linsys(m, prob.linsys, &prob.linsys, &self_linsys) != CR_OK) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the dynamic stage");
            goto done;
        }
    }
    /* penalty, friction by anchors; a resumed stage has its anchors from the checkpoint */
    if (m->contact) cr_contact_set_time(m->contact, t_begin);
    if (m->contact && resume)
        cr_contact_dynamic_resume(m->contact);
    else if (m->contact)
        cr_contact_dynamic_begin(m->contact, y, CR_DYN_BLOCK);
    c.radau = cr_radau_create(&prob, &ro, t_begin, y, err);
    if (!c.radau) {
        st = err ? err->status : CR_NO_MEMORY;
        goto done;
    }
    if (resume) {
        cr_radau_memory rm;
        memcpy(&rm, memory + MEM_RADAU, sizeof rm);
        st = cr_radau_reinit_memory(c.radau, t_begin, y, &rm, memory + MEM_RADAU + CR_RADAU_MEMORY_DOUBLES, err);
        if (st != CR_OK) {
            cr_error_set(err, st, "dynamic stage %d: the checkpoint's integrator memory is unusable: %.200s", stage,
                         err ? err->message : "");
            goto done;
        }
    }
    if (!segmented) {
        st = cr_radau_integrate(c.radau, t_end, err);
    } else {
        for (int k = first_time; st == CR_OK && k < count; ++k) {
            if ((st = cr_radau_integrate(c.radau, times[k], err)) != CR_OK) break;
            if (!memcmp(c.input, state->load_input, nl * sizeof(double))) continue;
            /* the power at t_k with the new inputs starts the next interval's work (the
             * step just done ended the old one) */
            memcpy(c.input, state->load_input, nl * sizeof(double));
            memcpy(c.ytmp, cr_radau_y(c.radau), (size_t)N * sizeof(double));
            c.last_power = load_power(&c, times[k], c.ytmp);
            st = cr_radau_reinit(c.radau, times[k], c.ytmp, cr_radau_h(c.radau), err);
        }
        if (st == CR_OK && cr_radau_t(c.radau) < t_end) st = cr_radau_integrate(c.radau, t_end, err);
    }
    unpack_y(m, cr_radau_y(c.radau), cr_radau_t(c.radau), state);
    /* the loads the state now carries: a following static stage ramps from these */
    set_scales(&c, state->time);
    memcpy(state->load_scale, c.scale, nl * sizeof(double));
    if (st == CR_INTERRUPTED && c.stopped) cr_error_set(err, CR_INTERRUPTED, "stopped at t = %.6g s", state->time);
    if (report) {
        long cnt[7];
        stage_counters(&c, cnt);
        report->steps = cnt[0];
        report->rejected = cnt[1];
        report->newton_iterations = cnt[2];
        report->rhs_evals = cnt[3];
        report->jacobians = cnt[4];
        report->lu_real = cnt[5];
        report->lu_complex = cnt[6];
        report->h_last = cr_radau_h(c.radau);
    }
done:
    if (report) {
        report->t_start = resume ? t_stage_start : t_begin;
        report->t_end = state->time;
        report->wall_time_s = c.base_wall + now() - t0;
    }
    if (m->contact) cr_contact_dynamic_end(m->contact);
    cr_radau_destroy(c.radau);
    cr_blocktri_radau_destroy(lin);
    cr_mixed_selfcontact_linsys_free(self_linsys);
    free(active);
    free(mass);
    free(atol);
    free(index);
    free(y);
    free(c.scale);
    free(c.input);
    free(c.power_scale);
    free(c.F);
    free(c.ytmp);
    free(c.yout);
    free(c.ucoef);
    free(times);
    return st;
}
