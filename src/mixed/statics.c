/* cr_static_solve for the mixed discrete rod: binds the residual of
 * statics_residual.c to the generic load-stepping Newton solver. */
#include "cosserat/statics.h"
#include "contact/contact.h"
#include "contact/rodcontact.h"
#include "linalg/bigalloc.h"
#include "linalg/blocktri_partitioned.h"
#include "math/fpmode.h"
#include "mixed.h"
#include "selfcontact.h"
#include "solvers/newton.h"
#include "supports.h"
#include "terms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct static_ctx {
    const cr_model *model;
    const double *from, *to; /* load factors at load factor 0 and 1 */
    double *scale;           /* the current ones */
    double bc_from;
    int stage;
    double *from_pose;         /* 7 per support: where a support that starts in this stage finds its node; NaN = none */
    double *zero;              /* scratch for dparam (kept zero) */
    cr_blocktri *Jr;           /* position Jacobian of the force rows, for the correction */
    cr_pool *pool;             /* worker threads of the linear solves (NULL: one thread) */
    cr_blocktri_part *Jr_part; /* partitioned LU of Jr on them */
    double *F;
    cr_state *state;
    cr_static_step_fn on_step;
    void *user;
    /* the supports leave rigid-body motions free: a mechanism at zero stress, which
     * only the loads' geometric stiffness holds (limit_update) */
    int mechanism;
    cr_vec3 origin;     /* the reference position of node 0: increments are measured from it */
    int gauge_node;     /* cr_mixed_twist_gauge: the node whose twist is held, or -1 */
    cr_quat gauge_p;    /* ... at its start orientation */
    int contact_failed; /* the contact's multiplier updates ran out (contact_updates) */
    int landing;        /* the stage landed the rod (land_stage): its failure is said there */
} static_ctx;

static void set_gauge(const static_ctx *c, cr_supports_at *at)
{
    if (c->gauge_node < 0) return;
    at->gauge = 1, at->gauge_node = c->gauge_node;
    cr_q_store(c->gauge_p, at->gauge_p);
}

/* load magnitudes and the supports' motion ramp at load factor lf */
static cr_supports_at set_scales(const static_ctx *c, double lf)
{
    for (int k = 0; k < c->model->load_count; ++k) c->scale[k] = c->from[k] + lf * (c->to[k] - c->from[k]);
    cr_supports_at at = {.stage = c->stage,
                         .ramp = c->bc_from + lf * (1.0 - c->bc_from),
                         .t = c->state->time,
                         .from = c->from_pose,
                         .from_blend = lf};
    set_gauge(c, &at);
    return at;
}

static cr_status eval(void *ctx, double lf, const double *x, double *F, cr_blocktri *J)
{
    const static_ctx *c = ctx;
    cr_supports_at at = set_scales(c, lf);
    return cr_mixed_static_residual_par(c->model, &at, c->scale, x, F, J, NULL, c->pool);
}

/* self-contact: the far-node coupling of the Jacobian the last eval with J filled */
static cr_lowrank *coupling(void *ctx)
{
    const static_ctx *c = ctx;
    return c->model->couple;
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

/* ∂F/∂λ for supports that do not move in this stage: the loads are linear in their
 * factors (terms.c), the element terms do not depend on λ, and the support rows
 * R = S(F) = T F + g (T: the free directions, g: the held coordinates) give
 * ∂R/∂λ = S(∂F/∂λ) − S(0). Moving supports use the solver's difference quotient. */
static cr_status dparam(void *ctx, double lf, const double *x, double *dF)
{
    const static_ctx *c = ctx;
    const cr_model *m = c->model;
    const cr_layout ly = cr_layout_static(m);
    for (int k = 0; k < m->load_count; ++k) c->scale[k] = c->to[k] - c->from[k];
    memset(dF, 0, (size_t)m->nodes * m->block * sizeof *dF);
    cr_term_loads_forces_only(m, &ly, c->scale, x, dF);
    cr_supports_at at = {.stage = c->stage, .ramp = 1.0, .t = c->state->time, .from = NULL, .from_blend = 1.0};
    set_gauge(c, &at);
    cr_supports_static_rows(m, &at, x, dF, NULL);
    cr_supports_static_rows(m, &at, x, c->zero, NULL);
    for (int k = 0; k < m->support_count; ++k) {
        double *z = c->zero + (size_t)m->supports[k].node * m->block, *d = dF + (size_t)m->supports[k].node * m->block;
        for (int r = 0; r < m->block; ++r) d[r] -= z[r], z[r] = 0.0;
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
    /* self-contact couples far nodes' positions: the elimination's block-tridiagonal solve
     * would drop it (and undo the contact each update); Newton goes without it */
    if (m->selfcontact) return CR_OK;
    cr_supports_at at = set_scales(c, lf);
    cr_status st = cr_mixed_force_residual_par(m, &at, c->scale, x, c->F, c->Jr, c->pool);
    if (st == CR_OK && c->Jr_part)
        st = cr_blocktri_part_factor_solve(c->Jr_part, c->Jr, c->pool, c->F, NULL);
    else if (st == CR_OK)
        st = cr_blocktri_factor_solve(c->Jr, c->F, NULL);
    if (st != CR_OK) return st;
    for (int i = 0; i < m->nodes; ++i)
        for (int r = 0; r < 3; ++r) x[(size_t)i * m->block + r] -= c->F[i * 3 + r];
    return CR_OK;
}

static int gram_rank(double G[6][6]);

/* Rigid-body motions of the whole rod that the active supports leave free, at the
 * state's node positions: 6 minus the rank of the supports' constraints on a rigid
 * motion (v, ω) — a held translation along d at r: dᵀ(v + ω × (r − c)), a held
 * rotation about a: aᵀω (lengths in units of the rod's length). Zero for a clamp
 * anywhere; 2 for a pin that also holds rz; 3 for a ball joint (a pin); 1 for two pins
 * (the rotation about the line through them). */
static int free_rigid_modes(const cr_model *m, const cr_state *s, int stage)
{
    double G[6][6] = {{0}};
    const double L = m->length > 0 ? m->length : 1.0;
    const cr_vec3 c = cr_state_position(s, 0);
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        if (!cr_support_active(sp, stage)) continue;
        cr_vec3 r = cr_v3_scale(cr_v3_sub(cr_state_position(s, sp->node), c), 1.0 / L);
        for (int a = 0; a < 6; ++a) {
            if (!(sp->hold & (1u << a))) continue;
            cr_vec3 d = cr_m3_column(sp->axes, a % 3), rd = cr_v3_cross(r, d);
            double row[6] = {0, 0, 0, 0, 0, 0};
            if (a < 3)
                row[0] = d.x, row[1] = d.y, row[2] = d.z, row[3] = rd.x, row[4] = rd.y, row[5] = rd.z;
            else
                row[3] = d.x, row[4] = d.y, row[5] = d.z;
            for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 6; ++j) G[i][j] += row[i] * row[j];
        }
    }
    return 6 - gram_rank(G);
}

/* Rank of a 6×6 Gram matrix (destroyed): Gaussian elimination with complete pivoting (it is
 * symmetric positive semidefinite, its pivots are the eigenvalues' scale) */
static int gram_rank(double G[6][6])
{
    int rank = 0;
    double top = 0;
    for (int i = 0; i < 6; ++i) top = fmax(top, G[i][i]);
    for (int step = 0; step < 6; ++step) {
        int bi = step;
        for (int i = step; i < 6; ++i)
            if (G[i][i] > G[bi][bi]) bi = i;
        if (!(G[bi][bi] > 1e-10 * top)) break;
        for (int j = 0; j < 6; ++j) { /* symmetric swap of row/column step and bi */
            double t = G[step][j];
            G[step][j] = G[bi][j], G[bi][j] = t;
        }
        for (int i = 0; i < 6; ++i) {
            double t = G[i][step];
            G[i][step] = G[i][bi], G[i][bi] = t;
        }
        for (int i = step + 1; i < 6; ++i) {
            double f = G[i][step] / G[step][step];
            for (int j = step; j < 6; ++j) G[i][j] -= f * G[step][j];
        }
        ++rank;
    }
    return rank;
}

/* Whether the loads drive a rigid motion of a rod that no support holds, which the obstacles it
 * touches at x do not hold: then it has to land (statics_landing.c) before any equilibrium, and
 * the load steps, which meet its contacts frictionless, would slide it off or stall. Each node's
 * contact holds what its stiffness K = ∂f/∂r holds (all three translations of a node stuck by
 * friction, the normal of a frictionless one); the twist gauge holds the turn about its node's
 * axis. The residual F at the stage's loads (contact forces included: a preload from the
 * previous stage balances its share) gives the rigid motions' generalized force b; it is driven
 * when b is not in the span of the held rows (the rank grows by b bᵀ). Lengths in rod lengths,
 * as free_rigid_modes. */
static int needs_landing(const cr_model *m, const double *x, const double *F, int gauge_node)
{
    double G[6][6] = {{0}}, H[6][6], b[6] = {0, 0, 0, 0, 0, 0};
    const double L = m->length > 0 ? m->length : 1.0;
    const cr_vec3 c = cr_x_position(m, x, 0);
    for (int i = 0; i < m->nodes; ++i) {
        const cr_vec3 r = cr_v3_scale(cr_v3_sub(cr_x_position(m, x, i), c), 1.0 / L);
        const double *f = F + (size_t)i * m->block;
        const cr_vec3 fi = cr_v3(f[0], f[1], f[2]);
        const cr_vec3 mi = cr_m3_mulv(cr_q_exp(cr_x_orientation(m, x, i)), cr_v3(f[3], f[4], f[5]));
        const cr_vec3 w = cr_v3_add(cr_v3_cross(r, fi), cr_v3_scale(mi, 1.0 / L));
        b[0] += fi.x, b[1] += fi.y, b[2] += fi.z, b[3] += w.x, b[4] += w.y, b[5] += w.z;
        cr_contact_wrench wr;
        cr_contact_info info;
        cr_contact_node_wrench(m->contact, i, cr_x_position(m, x, i), cr_x_orientation(m, x, i), NULL, &wr, 1, &info);
        const cr_mat3 K = wr.f_r;
        if (!info.active) continue;
        double kn = 0;
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < 3; ++k) kn = fmax(kn, fabs(K.m[a][k]));
        if (!(kn > 0)) continue;
        for (int a = 0; a < 3; ++a) {
            const cr_vec3 d = cr_v3_scale(cr_v3(K.m[a][0], K.m[a][1], K.m[a][2]), 1.0 / kn), rd = cr_v3_cross(r, d);
            const double row[6] = {d.x, d.y, d.z, rd.x, rd.y, rd.z};
            for (int p = 0; p < 6; ++p)
                for (int q = 0; q < 6; ++q) G[p][q] += row[p] * row[q];
        }
    }
    if (gauge_node >= 0) {
        const cr_vec3 d = cr_m3_column(cr_q_exp(cr_x_orientation(m, x, gauge_node)), 0);
        const double row[6] = {0, 0, 0, d.x, d.y, d.z};
        for (int p = 0; p < 6; ++p)
            for (int q = 0; q < 6; ++q) G[p][q] += row[p] * row[q];
    }
    double bn = 0, top = 0;
    for (int p = 0; p < 6; ++p) bn += b[p] * b[p], top = fmax(top, G[p][p]);
    if (!(bn > 0)) return 0; /* nothing drives it */
    bn = sqrt(bn);
    /* b̂ b̂ᵀ at the scale of one held row (a rod touching nowhere: G = 0) */
    const double sc = top > 0 ? top : 1.0;
    for (int p = 0; p < 6; ++p)
        for (int q = 0; q < 6; ++q) H[p][q] = G[p][q] + sc * b[p] / bn * b[q] / bn;
    return gram_rank(H) > gram_rank(G);
}

/* Largest turn of a node in one Newton update of a mechanism (rad, linearized: twice
 * the quaternion increment normal to p over |p|). Half a radian, as for a turning
 * support's load steps: from a rod hanging from a pin, a swing stays within the basin
 * of the hanging equilibrium (the geometric stiffness of the tension stays positive up
 * to π/2), so Newton, damped to it, cannot reach the upright one. */
#define MAX_ROTATION_PER_UPDATE 0.5

/* The trust region of a mechanism (newton.h, limit): at the unloaded reference the
 * tangent of a rod hanging from a pin is singular in the swing about the pin, which
 * only the tension will hold, and J⁻¹F swings it by any angle (the hanging rod with a
 * 1e-4 N side force went upright). Damped to MAX_ROTATION_PER_UPDATE per node, and the
 * predictor then not used at all (the step starts from the last state, loaded at fixed
 * orientations by the position correction, which establishes the tension first). Rods
 * whose supports hold every rigid motion are not limited. */
static double limit_update(void *ctx, const double *x, const double *dx)
{
    const static_ctx *c = ctx;
    if (!c->mechanism) return 1.0;
    const cr_model *m = c->model;
    double worst = 0;
    for (int i = 0; i < m->nodes; ++i) {
        const double *p = x + (size_t)i * m->block + 3, *d = dx + (size_t)i * m->block + 3;
        double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
        double pd = p[0] * d[0] + p[1] * d[1] + p[2] * d[2] + p[3] * d[3], nn = 0;
        for (int k = 0; k < 4; ++k) {
            double t = d[k] - pd / pp * p[k];
            nn += t * t;
        }
        worst = fmax(worst, 2.0 * sqrt(nn / pp));
    }
    if (!isfinite(worst)) return 0.0;
    return worst > MAX_ROTATION_PER_UPDATE ? MAX_ROTATION_PER_UPDATE / worst : 1.0;
}

/* The size increments are measured against (newton.h, size): |x| with the positions
 * taken from the reference position of node 0, so that a rod translated by 10⁹ m has
 * the same test as at the origin (a rod at the origin: the plain |x|). */
static double state_size(void *ctx, const double *x)
{
    const static_ctx *c = ctx;
    const cr_model *m = c->model;
    const double o[3] = {c->origin.x, c->origin.y, c->origin.z};
    double s = 0;
    for (int i = 0; i < m->nodes; ++i) {
        const double *xi = x + (size_t)i * m->block;
        for (int k = 0; k < 3; ++k) s += (xi[k] - o[k]) * (xi[k] - o[k]);
        for (int k = 3; k < m->block; ++k) s += xi[k] * xi[k];
    }
    return sqrt(s);
}

/* Where a failed step's last residual is largest (newton.h, describe): the force and
 * moment balances, in their units, at their worst nodes; held nodes' rows name the
 * support; rigid components the element. Forces are compared with moments over the
 * rod's length. */
static void describe_residual(void *ctx, double lf, const double *x, const double *F, char *out, size_t size)
{
    (void)lf, (void)x;
    const static_ctx *c = ctx;
    const cr_model *m = c->model;
    const int B = m->block;
    double worst[4] = {0, 0, 0, 0}; /* force, moment, unit norm, rigid */
    int at[4] = {0, 0, 0, 0};
    for (int i = 0; i < m->nodes; ++i) {
        const double *f = F + (size_t)i * B;
        double v[4] = {sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]), sqrt(f[3] * f[3] + f[4] * f[4] + f[5] * f[5]),
                       fabs(f[6]), 0};
        for (int r = CR_NODE_DOF; r < B; ++r) v[3] = fmax(v[3], fabs(f[r]));
        for (int k = 0; k < 4; ++k)
            if (v[k] > worst[k]) worst[k] = v[k], at[k] = i;
    }
    const double L = m->length > 0 ? m->length : 1.0;
    int kind = worst[0] * L >= worst[1] ? 0 : 1;
    if (worst[3] > 1e-6 && worst[3] * L * 1e6 > worst[kind] * (kind == 0 ? L : 1.0)) kind = 3;
    const int node = at[kind];
    const int sp = cr_model_support_at(m, c->stage, node);
    char who[96];
    if (kind == 3)
        snprintf(who, sizeof who, "the rigid strain constraint of element %d (nodes %d..%d)", node, node, node + 1);
    else if (sp >= 0)
        snprintf(who, sizeof who, "the %s rows of node %d, held by boundary_conditions.%d", kind ? "moment" : "force",
                 node, sp);
    else
        snprintf(who, sizeof who, "the %s balance of node %d", kind ? "moment" : "force", node);
    snprintf(out, size,
             "the residual is largest in %s (s = %.4g): %.3g %s (largest force %.3g N at node %d, moment "
             "%.3g N m at node %d)",
             who, m->s[node], worst[kind],
             kind == 0   ? "N"
             : kind == 1 ? "N m"
                         : "(strain)",
             worst[0], at[0], worst[1], at[1]);
}

/* A tendon segment shorter than this fraction of its element at the last converged state
 * explains a failure: the rod has curled until the side the tendon runs on is compressed
 * to almost nothing (κ d → γ_x for an offset d), where the tendon's direction, and its
 * equilibrium, stop depending smoothly on the poses. */
#define TENDON_COLLAPSE 0.25

/* When some tendon segment at x is that short: 1 and a sentence saying where. */
static int tendon_collapse(const cr_model *m, const double *x, char *out, size_t size)
{
    double worst = INFINITY;
    int at = -1, which = -1;
    for (int t = 0; t < m->tendon_count; ++t) {
        const cr_tendon *td = &m->tendons[t];
        cr_vec3 prev = {0, 0, 0};
        for (int k = td->first; k <= td->last; ++k) {
            cr_vec3 P = cr_v3_add(cr_x_position(m, x, k),
                                  cr_m3_mulv(cr_q_exp(cr_x_orientation(m, x, k)), td->offset[k - td->first]));
            if (k > td->first) {
                double ratio = cr_v3_norm(cr_v3_sub(P, prev)) / m->el[k - 1].length;
                if (ratio < worst) worst = ratio, at = k - 1, which = t;
            }
            prev = P;
        }
    }
    if (!(worst < TENDON_COLLAPSE)) return 0;
    snprintf(out, size,
             "tendon %d's segment on element %d (s = %.4g) has shrunk to %.2g of the element: the rod curled until the "
             "tendon's side is compressed to nothing, the tendon model's limit (lower the tension)",
             which, at, m->el[at].s_mid, worst);
    return 1;
}

static int step_done(void *ctx, double lf, const double *x, const cr_load_step_report *step, int index)
{
    static_ctx *c = ctx;
    c->state->load_factor = lf;
    c->state->bc_factor = set_scales(c, lf).ramp;
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
    cr_fpmode fp = cr_fpmode_flush(); /* subnormals flushed (math/fpmode.h) */
    cr_status st = cr_static_solve_stage(model, state, state->stage, target, options, on_step, user, report, err);
    cr_fpmode_restore(fp);
    return st;
}

/* The augmented Lagrangian's multiplier updates (docs/theory.md "Contact with obstacles"):
 * after the load steps, λ ← the contact forces, and Newton again at the full loads, until no
 * contact opens or closes and every penetration and stick drift is within the tolerance. */
static cr_status contact_updates(static_ctx *c, const cr_nonlinear_problem *p, double *lf, double *x,
                                 const cr_static_options *o, cr_static_report *r, cr_error *err)
{
    cr_contact *ct = c->model->contact;
    cr_rodcontact *sc = c->model->selfcontact;
    double *from = (double *)c->from; /* ours: the load factors the stage started from */
    double pen = 0, drift = 0, self_pen = 0;
    const int max_updates = ct ? ct->max_updates : 50;
    for (int k = 0;; ++k) { /* max_updates solves, each followed by the test */
        int done = ct ? cr_contact_update(ct, x, c->model->block, &pen, &drift) : 1;
        if (sc) { /* self-contact: its multipliers updated alongside the obstacles' */
            int sd = cr_rodcontact_update(sc, x, c->model->block, &self_pen);
            if (sd < 0) return cr_error_set(err, CR_NO_MEMORY, "out of memory in the self-contact");
            done = done && sd;
        }
        if (done) return CR_OK;
        if (k == max_updates) break;
        /* the loads stay at the stage's target: a solve from factor 0 to 1 that moves nothing */
        for (int j = 0; j < c->model->load_count; ++j) from[j] = c->to[j];
        c->bc_from = 1.0, c->from_pose = NULL;
        cr_static_options one = *o;
        one.load_steps = 1;
        *lf = 0.0;
        cr_static_report u = {0}; /* the update's solve, appended to the stage's report */
        cr_status st = cr_load_stepping_solve(p, lf, x, &one, &u, err);
        for (int j = 0; j < u.step_count; ++j)
            cr_static_report_append(r, 1.0, u.steps[j].iterations, u.steps[j].residual_history,
                                    u.steps[j].history_count);
        r->failed_attempts += u.failed_attempts, r->total_iterations += u.total_iterations;
        r->assembly_time_s += u.assembly_time_s, r->solve_time_s += u.solve_time_s, r->wall_time_s += u.wall_time_s;
        r->final_residual = u.final_residual, r->converged = u.converged, r->load_factor = u.load_factor;
        cr_static_report_free(&u);
        if (st != CR_OK) return st;
    }
    c->contact_failed = 1; /* not friction's doing: no "friction:" preface */
    if (!ct)
        return cr_error_set(err, CR_NOT_CONVERGED,
                            "contact.self: %d multiplier updates left a penetration of %.3g m above "
                            "contact.tolerance = %.3g m (raise contact.max_updates or contact.stiffness)",
                            max_updates, self_pen, sc->tol);
    return cr_error_set(err, CR_NOT_CONVERGED,
                        "contact: %d multiplier updates left a penetration of %.3g m and a stick drift of %.3g m "
                        "above contact.tolerance = %.3g m (raise contact.max_updates or contact.stiffness)",
                        ct->max_updates, pen, drift, ct->tol);
}

/* A rod that no support holds, on obstacles alone (statics_landing.c): landed at the stage's full
 * loads from x, then the contact's multiplier updates finish it as after load steps. The report
 * gets the landing as one step. fallback_lf: the load factor its failed load steps reached (< 0:
 * none were tried). */
static cr_status land_stage(static_ctx *c, const cr_nonlinear_problem *p, double *lf, double *x,
                            const cr_static_options *o, cr_static_report *r, double fallback_lf, cr_error *err)
{
    double *from = (double *)c->from; /* ours: the loads go to the target at once */
    c->landing = 1;
    for (int j = 0; j < c->model->load_count; ++j) from[j] = c->to[j];
    c->bc_from = 1.0, c->from_pose = NULL;
    cr_supports_at at = set_scales(c, 1.0);
    cr_mixed_landing land;
    char why[400], how[80];
    /* on failure the state is the start's, and so are the contact's pairs */
    double *pairs = malloc(((size_t)cr_contact_packed_size(c->model->contact) + 1) * sizeof *pairs);
    if (!pairs) return cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
    cr_contact_pack(c->model->contact, pairs);
    cr_status st = cr_mixed_static_land(c->model, p, &at, c->scale, x, &land, why, sizeof why);
    if (st != CR_OK) cr_contact_unpack(c->model->contact, pairs);
    free(pairs);
    if (st != CR_OK) {
        if (fallback_lf >= 0)
            snprintf(how, sizeof how, "its load steps failed beyond load factor %.4g", fallback_lf);
        else
            snprintf(how, sizeof how, "the loads move it off them at the start");
        *lf = 0.0;
        return cr_error_set(err, st,
                            "static stage %d: the rod is held by no support, only by obstacles, and %s; it could not "
                            "be brought to rest on them: %s",
                            c->stage, how, why);
    }
    r->total_iterations += land.iterations;
    st = cr_static_report_append(r, 1.0, land.iterations, &land.residual, 1);
    if (st != CR_OK) return cr_error_set(err, st, "out of memory in the static solver");
    *lf = 1.0;
    r->load_factor = 1.0, r->final_residual = land.residual, r->converged = 1;
    st = contact_updates(c, p, lf, x, o, r, err);
    if (st != CR_OK) return st;
    if (step_done(c, 1.0, x, &r->steps[r->step_count - 1], r->step_count - 1))
        return cr_error_set(err, CR_INTERRUPTED, "static stage %d: interrupted", c->stage);
    return CR_OK;
}

/* A failed static stage while the rod touches obstacles with friction: say so first. A
 * tangential load beyond what Coulomb friction holds has no equilibrium (the rod slides), which
 * Newton meets as a tangent singular along the slide or as a stall; the last equilibrium says
 * how close to the limit friction was. */
static void friction_failure(const cr_model *m, const double *x, double lf, cr_error *err)
{
    const cr_contact *c = m->contact;
    int touching = 0;
    for (int i = 0; i < c->nodes; ++i)
        for (int k = 0; k < c->obstacle_count; ++k)
            touching += c->pair[(size_t)i * c->obstacle_count + k].anchored && c->obstacles[k].mu_static > 0;
    if (touching == 0) return;
    cr_contact_totals t;
    cr_contact_totals_at(c, x, m->block, &t);
    char msg[CR_ERROR_MESSAGE_SIZE + 600];
    snprintf(msg, sizeof msg,
             "friction: no static equilibrium found while %d nodes touch obstacles with friction: a tangential load "
             "beyond what Coulomb friction holds (mu_static times the normal force) has none, the rod slides (a "
             "dynamic stage follows sliding); at the last equilibrium (load factor %.4g) friction was at %.3g of its "
             "limit, %d contacts sliding; %s",
             touching, lf, t.worst_ratio, t.slipping, err->message);
    snprintf(err->message, sizeof err->message, "%.*s", CR_ERROR_MESSAGE_SIZE - 1, msg);
}

/* Largest rotation of a support's target in one load step: the node's quaternion
 * and its neighbours follow the target continuously, so turns are counted (a whole
 * turn in one step would land on the same quaternion with the twist lost). */
#define MAX_ROTATION_PER_STEP 0.5

cr_status cr_static_solve_stage(const cr_model *model, cr_state *state, int previous_stage, const double *target,
                                const cr_static_options *options, cr_static_step_fn on_step, void *user,
                                cr_static_report *report, cr_error *err)
{
    cr_static_options o = options ? *options : cr_static_default_options();
    const int stage = state->stage;
    state->dynamic = 0;
    int held = 0;
    for (int k = 0; k < model->support_count; ++k) held |= cr_support_active(&model->supports[k], stage);
    if (!held && !model->contact) /* six rigid-body modes: the static tangent is singular */
        return cr_error_set(err, CR_BAD_INPUT,
                            "boundary_conditions: static stage %d needs at least one support "
                            "(a free rod has rigid-body modes)",
                            stage);
    int nl = model->load_count > 0 ? model->load_count : 1;
    static_ctx ctx = {.model = model,
                      .state = state,
                      .on_step = on_step,
                      .user = user,
                      .to = target,
                      .bc_from = state->bc_factor,
                      .stage = stage};
    size_t dim = (size_t)model->nodes * model->block;
    double *from = malloc(nl * sizeof *from);
    ctx.scale = malloc(nl * sizeof *ctx.scale);
    ctx.Jr = cr_blocktri_create(model->nodes, 3);
    ctx.F = malloc((size_t)model->nodes * 3 * sizeof(double));
    ctx.zero = calloc(dim, sizeof(double));
    ctx.from_pose = malloc((size_t)7 * (model->support_count > 0 ? model->support_count : 1) * sizeof(double));
    if (!from || !ctx.scale || !ctx.Jr || !ctx.F || !ctx.zero || !ctx.from_pose) {
        free(from);
        free(ctx.scale);
        cr_blocktri_destroy(ctx.Jr);
        free(ctx.F);
        free(ctx.zero);
        free(ctx.from_pose);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
    }
    memcpy(from, state->load_scale, nl * sizeof *from);
    ctx.from = from;
    ctx.mechanism = free_rigid_modes(model, state, stage) > 0;
    ctx.origin = model->ref_r[0];
    ctx.gauge_node = cr_mixed_twist_gauge(model, stage);
    if (ctx.gauge_node >= 0) ctx.gauge_p = cr_q_normalize(cr_state_orientation(state, ctx.gauge_node));
    /* supports that start in this stage move their node from where it is; the
     * others ramp their motion factor (once, in the first stage) */
    int moving = 0, starting = 0;
    double turn = 0.0;
    for (int k = 0; k < model->support_count; ++k) {
        const cr_support *sp = &model->supports[k];
        double *fp = ctx.from_pose + (size_t)7 * k;
        fp[0] = NAN;
        if (!cr_support_active(sp, stage)) continue;
        double f = cr_time_function_eval(&sp->time, state->time);
        if (sp->motion_count >= 2) { /* a table of poses: its pose at the state's time */
            cr_supports_at at1 = {.stage = stage, .ramp = 1.0, .t = state->time};
            cr_vec3 rt;
            cr_quat pt;
            cr_support_target(model, k, &at1, &rt, &pt, NULL, NULL, NULL, NULL);
            cr_quat d = cr_q_mul(pt, cr_q_conj(sp->ref_p));
            double angle = 2 * atan2(cr_v3_norm(cr_q_vec(d)), fabs(d.w)); /* a lower bound on the turns */
            if (ctx.bc_from < 1.0) turn = fmax(turn, angle * (1.0 - ctx.bc_from)), moving = 1;
        }
        if (stage != previous_stage && !cr_support_active(sp, previous_stage)) {
            cr_v3_store(cr_state_position(state, sp->node), fp);
            cr_q_store(cr_state_orientation(state, sp->node), fp + 3);
            cr_vec3 rt;
            cr_quat pt, p0 = cr_q_normalize(cr_state_orientation(state, sp->node));
            cr_support_pose(sp, f, &rt, &pt);
            double d = fabs(cr_q_dot(p0, pt));
            turn = fmax(turn, 2.0 * acos(fmin(1.0, d)));
            starting = moving = 1;
        } else if (ctx.bc_from < 1.0) {
            turn = fmax(turn, fabs(f) * cr_v3_norm(sp->phi) * (1.0 - ctx.bc_from));
            moving |= cr_v3_norm(sp->phi) * f != 0 || cr_v3_norm(sp->dr) * f != 0;
        }
    }
    double *from_pose = ctx.from_pose;
    if (!starting) ctx.from_pose = NULL;
    int min_steps = (int)ceil(turn / MAX_ROTATION_PER_STEP);
    if (o.load_steps < min_steps) o.load_steps = min_steps;
    if (o.adaptive && min_steps > 0)
        o.max_increment = fmin(o.max_increment > 0 ? o.max_increment : 1.0, 1.0 / min_steps);
    /* threads: created once per solve, for the partitioned LU of the Jacobian and of
     * the correction's position Jacobian (rigid components: banded LU, serial) */
    int threads = o.threads > 0 ? o.threads : (model->nodes >= CR_STATIC_PARALLEL_MIN_NODES ? cr_threads_default() : 1);
    if (threads > model->nodes / 2) threads = model->nodes / 2; /* two nodes a range at least */
    if (threads > 1 && model->rigid_count == 0) {
        ctx.pool = cr_pool_create(threads);
        if (ctx.pool) ctx.Jr_part = cr_blocktri_part_create(model->nodes, 3, cr_pool_threads(ctx.pool), NULL);
    }
    /* the tangent's storage, ours: the stability estimate after the stage reuses it and,
     * when serial, Newton's last LU */
    cr_blocktri *J = model->rigid_count > 0 ? cr_blocktri_create_banded(model->nodes, model->block)
                                            : cr_blocktri_create(model->nodes, model->block);
    int lu_valid = 0;
    /* Newton's work vectors, ours: the stability estimate's block of solves reuses them
     * (fresh pages cost a fault each, 3 ms per MB on the development VMs) */
    const size_t work_size = (size_t)CR_NEWTON_WORK_VECTORS * dim;
    double *work = cr_big_calloc(work_size);
    cr_blocktri_part *part = ctx.pool && J && model->rigid_count == 0
                                 ? cr_blocktri_part_create(model->nodes, model->block, cr_pool_threads(ctx.pool), NULL)
                                 : NULL;
    cr_nonlinear_problem p = {.blocks = model->nodes,
                              .block_size = model->block,
                              .pool = ctx.pool,
                              .J = J,
                              .part = part,
                              .lu_valid = &lu_valid,
                              .work = work,
                              .banded = model->rigid_count > 0,
                              .ctx = &ctx,
                              .eval = eval,
                              .project = normalize_quaternions,
                              .correct = correct_positions,
                              .limit = limit_update,
                              .size = state_size,
                              .describe = describe_residual,
                              .dparam = moving ? NULL : dparam,
                              .coupling = model->selfcontact ? coupling : NULL,
                              .on_step = step_done};
    cr_static_report local = {0};
    cr_static_report *r = report ? report : &local;
    memset(r, 0, sizeof *r); /* also when the solve cannot start (out of memory) */
    double lf = 0.0;
    cr_status st;
    if (!J || !work) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
    } else if (o.arc_length) { /* a step's length: positions over the rod's length, the quaternions */
        double w[CR_NODE_DOF + 16] = {0};
        const double L = model->length > 0 ? model->length : 1.0;
        for (int k = 0; k < CR_NODE_DOF; ++k) w[k] = k < 3 ? 1.0 / (L * L) : 1.0;
        st = cr_arc_length_solve(&p, w, min_steps > 0 ? 1.0 / min_steps : 0.0, &lf, state->x, &o, r, err);
    } else {
        if (model->contact) { /* moving obstacles: where they are at the state's time */
            cr_contact_set_time(model->contact, state->time);
            cr_contact_begin(model->contact, state->x, model->block);
        }
        if (model->selfcontact) cr_rodcontact_reset(model->selfcontact); /* a penalty through the load steps */
        /* a rod on obstacles alone: landed when the loads drive a rigid motion that its contacts at
         * the start do not hold (needs_landing), and when its load steps fail (statics_landing.c);
         * the start state and the contact's pairs are kept for that */
        const int may_land = !held && model->contact && !model->selfcontact;
        int land = 0;
        if (may_land) {
            double *F0 = malloc(dim * sizeof *F0);
            land = F0 && eval(&ctx, 1.0, state->x, F0, NULL) == CR_OK &&
                   needs_landing(model, state->x, F0, ctx.gauge_node);
            free(F0);
        }
        double *x0 = may_land && !land ? malloc(dim * sizeof *x0) : NULL;
        double *pairs0 = x0 ? malloc(((size_t)cr_contact_packed_size(model->contact) + 1) * sizeof *pairs0) : NULL;
        if (x0 && pairs0) memcpy(x0, state->x, dim * sizeof *x0), cr_contact_pack(model->contact, pairs0);
        if (land) {
            st = land_stage(&ctx, &p, &lf, state->x, &o, r, -1.0, err);
        } else {
            st = cr_load_stepping_solve(&p, &lf, state->x, &o, r, err);
            if (st == CR_OK && (model->contact || model->selfcontact))
                st = contact_updates(&ctx, &p, &lf, state->x, &o, r, err);
            if (pairs0 && (st == CR_NOT_CONVERGED || st == CR_SINGULAR || st == CR_NONFINITE)) {
                /* from the start again (the failed path may have slid far): its steps are dropped
                 * from the report, their cost kept */
                memcpy(state->x, x0, dim * sizeof *x0);
                cr_contact_unpack(model->contact, pairs0);
                cr_static_report failed = *r;
                memset(r, 0, sizeof *r);
                r->failed_attempts = failed.failed_attempts + failed.step_count;
                r->total_iterations = failed.total_iterations;
                cr_static_report_free(&failed);
                ctx.contact_failed = 0;
                st = land_stage(&ctx, &p, &lf, state->x, &o, r, lf, err);
            }
        }
        free(x0);
        free(pairs0);
    }
    if (model->contact && err && !ctx.contact_failed && !ctx.landing &&
        (st == CR_NOT_CONVERGED || st == CR_SINGULAR || st == CR_NONFINITE))
        friction_failure(model, state->x, lf, err);
    /* the stage's end state: stable, or an equilibrium a real rod would leave (issue 9) */
    if (st == CR_OK && o.stability) {
        cr_supports_at at = set_scales(&ctx, lf);
        /* Newton's LU when it is of the end state (lu_valid: not after a step that ended with
         * the previous LU's update, newton.c, whose LU is one ~√rtol update away), serial or
         * partitioned; otherwise the tangent assembled again and factored the same way, on
         * the threads. The estimate's block of right sides is solved together, each
         * chunk's factors read once per iteration by its thread. Not with rigid strain
         * components: their last Newton update is not small enough (rigid shear: ω² off by
         * up to 86 % in test_stability's test_reused_tangent). The correction's matrices go
         * first: the estimate's peak memory stays about the solve's (its iteration keeps C V
         * in the block of solves; with three or more chunks the chunks' fill-in, kept for
         * its solves, takes about what the correction's matrices gave back). */
        cr_blocktri_destroy(ctx.Jr);
        cr_blocktri_part_destroy(ctx.Jr_part);
        ctx.Jr = NULL, ctx.Jr_part = NULL;
        int reuse = lu_valid && model->rigid_count == 0;
        cr_static_tangent tangent = {
            .J = J, .part = part, .pool = ctx.pool, .factored = reuse, .work = work, .work_size = work_size};
        double *mode = o.stability == CR_STABILITY_LEAVE ? malloc((size_t)model->nodes * 6 * sizeof *mode) : NULL;
        int divergence = 0;
        cr_mixed_static_stability_mode(model, &at, ctx.scale, state->x, o.stability_modes, &tangent, &r->stability,
                                       mode, &divergence);
        /* an equilibrium unstable by divergence is left for the stable one a real rod reaches
         * (statics_leave.c); failing that, the stage fails with the reason. Complex unstable
         * modes (follower loads) grow while oscillating: kept with the warning, as flutter */
        const cr_stability_report *sb = &r->stability;
        if (o.stability == CR_STABILITY_LEAVE && sb->checked && !sb->unknown && sb->unstable_modes > 0 && divergence) {
            tangent.factored = 0;
            st = mode ? cr_mixed_static_leave(model, &p, &at, ctx.scale, &o, &tangent, state->x, mode, &r->stability,
                                              err)
                      : cr_error_set(err, CR_NO_MEMORY, "out of memory in the static solver");
        }
        free(mode);
    } else if (err && !ctx.landing && (st == CR_NOT_CONVERGED || st == CR_SINGULAR || st == CR_NONFINITE)) {
        /* a load step that failed on a tangent with a free motion: say which one, first (the
         * cause; the solver's account of the failure, which may be long, follows) */
        char why[400], msg[CR_ERROR_MESSAGE_SIZE + 420];
        cr_supports_at at = set_scales(&ctx, lf);
        if (tendon_collapse(model, state->x, why, sizeof why) ||
            cr_mixed_static_null_mode(model, &at, ctx.scale, state->x, why, sizeof why)) {
            snprintf(msg, sizeof msg, "%s; %s", why, err->message);
            if (strlen(msg) >= sizeof err->message) { /* too long: the state kept still ends it */
                char tail[80];
                int nt = snprintf(tail, sizeof tail, " ...; the state at load factor %.6g is kept", lf);
                msg[sizeof err->message - 1 - (size_t)nt] = '\0';
                strcat(msg, tail);
            }
            snprintf(err->message, sizeof err->message, "%.*s", CR_ERROR_MESSAGE_SIZE - 1, msg);
        }
    }
    /* a rod held by obstacles alone: its twist is always such a gauge (contact forces act at the
     * centreline), not a choice of supports to point out */
    r->twist_gauge = ctx.gauge_node >= 0 && held;
    r->gauge_node = ctx.gauge_node >= 0 ? ctx.gauge_node : 0;
    if (r->step_count == 0) { /* nothing accepted: the state keeps its loads */
        memcpy(state->load_scale, from, nl * sizeof *from);
        state->bc_factor = ctx.bc_from;
    }
    state->load_factor = lf;
    cr_blocktri_destroy(J);
    cr_blocktri_part_destroy(part);
    free(work);
    cr_blocktri_destroy(ctx.Jr);
    cr_blocktri_part_destroy(ctx.Jr_part);
    cr_pool_destroy(ctx.pool);
    free(ctx.F);
    free(ctx.zero);
    free(from_pose);
    free(from);
    free(ctx.scale);
    if (!report) cr_static_report_free(&local);
    return st;
}
