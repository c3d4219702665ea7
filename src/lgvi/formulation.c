/* The Lie-group variational integrator rod (lgvi.c) behind the formulation
 * table (model/formulation.h): the shared rod definition discretized into its
 * nodes, loads sampled at t_k (spec §2.3, rectangle rule), dynamic stages with a
 * fixed step, and the formulation-neutral accessors.
 *
 * Frames. The kernel follows the paper: the rod axis is the body E3 axis. The
 * library's body basis has x along the rod. With Q = [e_y e_z e_x] (columns),
 * R_lgvi = A Q, so body components map as (E1, E2, E3) = (y, z, x). */
#define _POSIX_C_SOURCE 199309L
#include "lgvi/lgvi.h"
#include "model/formulation.h"
#include "model/rod_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

typedef struct lgvi_sim {
    cr_lgvi *k;
    cr_lgvi_params p;
    int nodes;
    double *s;              /* node arc lengths */
    double *s_mid;          /* element midpoints */
    cr_vec3 *gamma0, *kappa0; /* reference strains in the library's components (x axial) */
    double *lumped;         /* lumped length per node (half of each adjacent element) */
    int load_count;
    cr_load_def *loads;     /* copies (time tables owned) */
    cr_vec3 *f, *c;         /* per-step nodal loads (spatial) */
    double *stage_factor;   /* per load: 1 if active in the running stage */
    double time;            /* s since the first dynamic stage */
} lgvi_sim;

/* library body components (x axial, y, z) from/to the kernel's (E1, E2, E3 = axis) */
static cr_vec3 from_k(cr_vec3 v) { return cr_v3(v.z, v.x, v.y); }
static cr_vec3 to_k(cr_vec3 v) { return cr_v3(v.y, v.z, v.x); }
static cr_mat3 Q(void) { return cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0)); }

/* ---- what the scheme can represent: checked before anything runs ---- */

/* The kernel takes uniform section resultants: the values at the element midpoints must agree. */
static cr_status uniform_params(const cr_rod_def *def, const cr_model_options *o, cr_lgvi_params *p, cr_error *err)
{
    cr_section_resultants r0, r;
    cr_section_resultants_eval(def, 0.5 / def->elements, &r0);
    for (int e = 1; e < def->elements; ++e) {
        cr_section_resultants_eval(def, (e + 0.5) / def->elements, &r);
        const double a[10] = {r0.EA, r0.GA_y, r0.GA_z, r0.GJ, r0.EI_y, r0.EI_z, r0.rhoA, r0.rhoJ_x, r0.rhoI_y, r0.rhoI_z};
        const double b[10] = {r.EA, r.GA_y, r.GA_z, r.GJ, r.EI_y, r.EI_z, r.rhoA, r.rhoJ_x, r.rhoI_y, r.rhoI_z};
        for (int q = 0; q < 10; ++q)
            if (fabs(a[q] - b[q]) > 1e-12 * fabs(a[q]))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "rod.sections: the lgvi model needs a uniform section (element %d differs from "
                                    "element 0); use the mixed_discrete model for tapered or piecewise rods",
                                    e);
    }
    memset(p, 0, sizeof *p);
    p->elements = def->elements;
    p->length = def->length;
    p->rhoA = r0.rhoA;
    p->rhoJ = to_k(cr_v3(r0.rhoJ_x, r0.rhoI_y, r0.rhoI_z));
    p->C1 = to_k(cr_v3(r0.EA, r0.GA_y, r0.GA_z));
    p->C2 = to_k(cr_v3(r0.GJ, r0.EI_y, r0.EI_z));
    p->dilatation = o->dilatation;
    p->chart = o->chart;
    p->h = 1.0; /* set per dynamic stage (time_step) */
    for (int k = 0; k < def->bc_count; ++k) {
        int node = def->bcs[k].node < 0 ? def->bcs[k].node + def->elements + 1 : def->bcs[k].node;
        if (node == 0) p->clamp_start = 1;
        else p->clamp_end = 1;
    }
    if (!(p->rhoA > 0) || !(r0.rhoI_y > 0) || !(r0.rhoI_z > 0))
        return cr_error_set(err, CR_BAD_INPUT, "rod: the lgvi model integrates the rod's inertia: it needs a mass per "
                                               "length and rotational inertias > 0 (rod.material.rho, or rhoA, "
                                               "rhoI_y, rhoI_z of a resultants section)");
    return CR_OK;
}

static cr_status lgvi_check(const cr_scenario *sc, cr_error *err)
{
    const cr_rod_def *d = &sc->rod;
    if (d->rigid_strains)
        return cr_error_set(err, CR_BAD_INPUT, "rod.rigid_strains: the lgvi model has no rigid strain components "
                                               "(its explicit step needs every compliance finite)");
    if (d->rigid_body_count > 0)
        return cr_error_set(err, CR_BAD_INPUT, "rigid_bodies: not supported by the lgvi model");
    for (int k = 0; k < d->bc_count; ++k) {
        int node = d->bcs[k].node < 0 ? d->bcs[k].node + d->elements + 1 : d->bcs[k].node;
        if (d->bcs[k].type != CR_BC_CLAMP)
            return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.type: the lgvi model supports clamps only",
                                k);
        if (node != 0 && node != d->elements)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.node: the lgvi model clamps the end nodes only (0 or -1), got "
                                "node %d",
                                k, node);
    }
    for (int k = 0; k < d->load_count; ++k)
        if (d->loads[k].type == CR_LOAD_TENDON)
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.type: tendon loads are not supported by the lgvi model", k);
    cr_lgvi_params p;
    cr_status st = uniform_params(d, &sc->model, &p, err);
    if (st != CR_OK) return st;
    for (int k = 0; k < sc->stage_count; ++k) {
        const cr_stage_def *s = &sc->stages[k];
        if (s->type == CR_STAGE_STATIC)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.type: the lgvi model has no static stages (it is an explicit "
                                "time integrator); use a dynamic stage, or the mixed_discrete model for statics",
                                k);
        const cr_dynamic_options *o = &s->dynamics;
        if (!(o->time_step > 0))
            return cr_error_set(err, CR_BAD_INPUT, "stages.%d.time_step: required by the lgvi model (a fixed step, s)",
                                k);
        double n = o->t_end / o->time_step;
        if (fabs(n - nearbyint(n)) > 1e-6 * fmax(1.0, n) || nearbyint(n) < 1)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.t_end: %g s is not a whole number of time steps of %g s (lgvi steps "
                                "are fixed)",
                                k, o->t_end, o->time_step);
        p.h = o->time_step;
        double hmax = cr_lgvi_stable_step(&p);
        if (o->time_step > hmax)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s exceeds the stable step of the explicit lgvi scheme, about "
                                "%.3g s for these elements (CFL limit of the stiffest axial, shear, bending or "
                                "twist wave); use a smaller step or fewer elements",
                                k, o->time_step, hmax);
    }
    return CR_OK;
}

/* ---- create / destroy ---- */
static void lgvi_destroy(void *impl)
{
    lgvi_sim *s = impl;
    if (!s) return;
    cr_lgvi_destroy(s->k);
    for (int k = 0; s->loads && k < s->load_count; ++k) free((void *)s->loads[k].time.points);
    free(s->loads);
    free(s->s);
    free(s->s_mid);
    free(s->gamma0);
    free(s->kappa0);
    free(s->lumped);
    free(s->f);
    free(s->c);
    free(s->stage_factor);
    free(s);
}

/* Reference strains of element e in library components (x axial): the same
 * strain measures the kernel uses (spec §2.1), evaluated on the reference. */
static void reference_strains(const lgvi_sim *s, const cr_vec3 *x, const cr_mat3 *R, int e, double l)
{
    cr_mat3 Rt = cr_m3_transpose(R[e]);
    cr_vec3 g = cr_v3_scale(cr_m3_mulv(Rt, cr_v3_sub(x[e + 1], x[e])), 1.0 / l);
    cr_mat3 Lam = cr_m3_mul(Rt, R[e + 1]);
    cr_vec3 w; /* τ⁻¹(Λ)/l */
    cr_vec3 skew = cr_v3(0.5 * (Lam.m[2][1] - Lam.m[1][2]), 0.5 * (Lam.m[0][2] - Lam.m[2][0]),
                         0.5 * (Lam.m[1][0] - Lam.m[0][1]));
    double tr = Lam.m[0][0] + Lam.m[1][1] + Lam.m[2][2];
    if (s->p.chart == CR_LGVI_CHART_CAYLEY) {
        w = cr_v3_scale(skew, 4.0 / (1 + tr)); /* 2(Λ−Λᵀ)^∨/(1+trΛ) */
    } else {
        double sn = cr_v3_norm(skew), th = atan2(sn, 0.5 * (tr - 1));
        w = cr_v3_scale(skew, sn > 1e-300 ? th / sn : 1.0);
    }
    /* the kernel's reference Γ is relative to E3: the library reports the full stretch vector */
    s->gamma0[e] = from_k(g);
    s->kappa0[e] = from_k(cr_v3_scale(w, 1.0 / l));
}

static void *lgvi_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err)
{
    if (cr_rod_validate(def, err) != CR_OK) return NULL;
    lgvi_sim *s = calloc(1, sizeof *s);
    int K = def->elements, nn = K + 1;
    cr_vec3 *x0 = malloc(nn * sizeof *x0);
    cr_mat3 *R0 = malloc(nn * sizeof *R0);
    if (!s || !x0 || !R0) goto oom;
    if (uniform_params(def, o, &s->p, err) != CR_OK) goto fail;
    s->nodes = nn;
    s->s = calloc(nn, sizeof *s->s);
    s->s_mid = calloc(K, sizeof *s->s_mid);
    s->gamma0 = calloc(K, sizeof *s->gamma0);
    s->kappa0 = calloc(K, sizeof *s->kappa0);
    s->lumped = calloc(nn, sizeof *s->lumped);
    s->f = calloc(nn, sizeof *s->f);
    s->c = calloc(nn, sizeof *s->c);
    s->load_count = def->load_count;
    s->loads = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *s->loads);
    s->stage_factor = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *s->stage_factor);
    if (!s->s || !s->s_mid || !s->gamma0 || !s->kappa0 || !s->lumped || !s->f || !s->c || !s->loads ||
        !s->stage_factor)
        goto oom;
    /* reference poses: equally spaced in arc length, or the given nodes (cumulative chord) */
    double L = def->length;
    cr_mat3 q = Q();
    for (int i = 0; i < nn; ++i) {
        cr_quat p;
        if (def->reference.type == CR_REFERENCE_NODES) {
            x0[i] = def->reference.node_positions[i];
            p = cr_q_normalize(def->reference.node_orientations[i]);
            s->s[i] = i ? s->s[i - 1] + cr_v3_norm(cr_v3_sub(x0[i], x0[i - 1])) : 0;
        } else {
            s->s[i] = L * i / K;
            cr_rod_reference_pose(def, s->s[i], &x0[i], &p);
        }
        R0[i] = cr_m3_mul(cr_q_exp(p), q);
    }
    if (def->reference.type == CR_REFERENCE_NODES) s->p.length = s->s[nn - 1];
    for (int e = 0; e < K; ++e) {
        double l = s->s[e + 1] - s->s[e];
        s->s_mid[e] = 0.5 * (s->s[e] + s->s[e + 1]);
        s->lumped[e] += 0.5 * l;
        s->lumped[e + 1] += 0.5 * l;
        reference_strains(s, x0, R0, e, l);
    }
    for (int k = 0; k < def->load_count; ++k) {
        s->loads[k] = def->loads[k];
        s->loads[k].time.points = NULL;
        if (def->loads[k].time.type == CR_TIME_TABLE) {
            size_t n = (size_t)def->loads[k].time.point_count * sizeof(cr_time_point);
            cr_time_point *pts = malloc(n);
            if (!pts) goto oom;
            memcpy(pts, def->loads[k].time.points, n);
            s->loads[k].time.points = pts;
        }
        if (s->loads[k].node < 0) s->loads[k].node += nn;
    }
    s->k = cr_lgvi_create(&s->p, x0, R0, err);
    if (!s->k) goto fail;
    free(x0);
    free(R0);
    return s;
oom:
    cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
fail:
    free(x0);
    free(R0);
    lgvi_destroy(s);
    return NULL;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- loads at t_k (spec §2.3: rectangle rule), spatial nodal forces and moments ---- */
static void sample_loads(lgvi_sim *s, double t)
{
    memset(s->f, 0, s->nodes * sizeof *s->f);
    memset(s->c, 0, s->nodes * sizeof *s->c);
    for (int k = 0; k < s->load_count; ++k) {
        const cr_load_def *l = &s->loads[k];
        double a = s->stage_factor[k] * cr_time_function_eval(&l->time, t);
        if (a == 0) continue;
        cr_vec3 v = cr_v3_scale(l->value, a);
        switch (l->type) {
        case CR_LOAD_FORCE:
        case CR_LOAD_MOMENT: {
            int i = l->node;
            /* a follower load keeps its components in the node's body basis A = R_lgvi Qᵀ */
            cr_vec3 w = l->frame == CR_FRAME_BODY ? cr_m3_mulv(cr_lgvi_rotation(s->k, i), to_k(v)) : v;
            cr_vec3 *dst = l->type == CR_LOAD_FORCE ? &s->f[i] : &s->c[i];
            *dst = cr_v3_add(*dst, w);
            break;
        }
        case CR_LOAD_FORCE_DENSITY:
        case CR_LOAD_MOMENT_DENSITY:
            /* lumped to the nodes with the same weights as the masses (spec §2.2) */
            for (int i = 0; i < s->nodes; ++i) {
                cr_vec3 w = l->frame == CR_FRAME_BODY ? cr_m3_mulv(cr_lgvi_rotation(s->k, i), to_k(v)) : v;
                cr_vec3 *dst = l->type == CR_LOAD_FORCE_DENSITY ? &s->f[i] : &s->c[i];
                *dst = cr_v3_madd(*dst, s->lumped[i], w);
            }
            break;
        case CR_LOAD_GRAVITY:
            for (int i = 0; i < s->nodes; ++i) s->f[i] = cr_v3_madd(s->f[i], cr_lgvi_node_mass(s->k, i), v);
            break;
        default: break; /* tendons are rejected by lgvi_check */
        }
    }
}

static const char *const extra_names[] = {"length", "dilatation_min", "dilatation_max", "volume_drift",
                                          "rotation_drift"};

static void fill_sample(const lgvi_sim *s, cr_dynamic_sample *smp)
{
    cr_lgvi_diag d;
    cr_lgvi_diagnostics(s->k, &d);
    memset(smp, 0, sizeof *smp);
    smp->t = s->time;
    smp->kinetic = d.kinetic;
    smp->elastic = d.elastic;
    smp->gravity = 0; /* gravity's work is in work_external (a force like the others in this explicit scheme) */
    smp->work_external = d.work_external;
    smp->momentum = d.momentum;
    smp->angular_momentum = d.angular_momentum;
    smp->extra_count = 5;
    double e[5] = {d.length, d.dilatation_min, d.dilatation_max, d.volume_drift, d.rotation_drift};
    memcpy(smp->extra, e, sizeof e);
}

static cr_status lgvi_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                             cr_static_report *report, cr_error *err)
{
    return cr_error_set(err, CR_BAD_INPUT, "stages.%d.type: the lgvi model has no static stages", stage);
}

static cr_status lgvi_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                              const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                              cr_error *err)
{
    lgvi_sim *s = sim->impl;
    double h = o->time_step;
    if (!(h > 0)) return cr_error_set(err, CR_BAD_INPUT, "stages.%d.time_step: required by the lgvi model", stage);
    cr_lgvi_set_step(s->k, h);
    cr_rod_def loads_only = {.load_count = s->load_count, .loads = s->loads};
    cr_rod_stage_load_factors(&loads_only, stage, s->stage_factor);
    long total = lround(o->t_end / h);
    long done = lround((s->time - t_stage_start) / h); /* > 0 when resuming inside the stage */
    long every = lround(o->output_dt / h);
    if (every < 1) every = 1;
    double wall0 = wall_now();
    memset(report, 0, sizeof *report);
    report->t_start = t_stage_start;
    cr_status st = CR_OK;
    cr_dynamic_sample smp;
    if (done == 0 && cb->on_output) {
        fill_sample(s, &smp);
        if (cb->on_output(sim, &smp, cb->user)) return CR_INTERRUPTED;
    }
    for (long n = done; n < total; ++n) {
        sample_loads(s, s->time);
        if ((st = cr_lgvi_step(s->k, s->f, s->c, err)) != CR_OK) break;
        s->time = t_stage_start + (n + 1) * h;
        report->steps++;
        report->rhs_evals++;
        int stop = 0;
        if (((n + 1) % every == 0 || n + 1 == total) && cb->on_output) {
            fill_sample(s, &smp);
            stop = cb->on_output(sim, &smp, cb->user);
        }
        /* the external work lives in the kernel's (checkpointed) state: nothing to carry over */
        if (cb->on_step) stop |= cb->on_step(sim, h, report->steps, 0.0, cb->user);
        if (stop) {
            st = CR_INTERRUPTED;
            break;
        }
    }
    report->t_end = s->time;
    report->h_last = h;
    report->wall_time_s = wall_now() - wall0;
    if (st == CR_NONFINITE || st == CR_NOT_CONVERGED) {
        char msg[CR_ERROR_MESSAGE_SIZE];
        snprintf(msg, sizeof msg, "%.400s (the explicit lgvi step is CFL-limited: try a smaller stages.%d.time_step)",
                 err ? err->message : "", stage);
        cr_error_set(err, st, "%s", msg);
    }
    return st;
}

/* ---- accessors ---- */
static int node_count(const void *impl) { return ((const lgvi_sim *)impl)->nodes; }
static double node_s(const void *impl, int i) { return ((const lgvi_sim *)impl)->s[i]; }

static void node_pose(const void *impl, int i, cr_vec3 *r, cr_quat *q)
{
    const lgvi_sim *s = impl;
    *r = cr_lgvi_position(s->k, i);
    *q = cr_q_from_matrix(cr_m3_mul(cr_lgvi_rotation(s->k, i), cr_m3_transpose(Q())));
}

static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const lgvi_sim *s = impl;
    *v = cr_lgvi_velocity(s->k, i);
    *w = from_k(cr_lgvi_angular_velocity(s->k, i));
}

static int sample_count(const void *impl) { return ((const lgvi_sim *)impl)->nodes - 1; }
static double sample_s(const void *impl, int e) { return ((const lgvi_sim *)impl)->s_mid[e]; }

static void sample(const void *impl, int e, cr_vec3 *g, cr_vec3 *k, cr_vec3 *n, cr_vec3 *m)
{
    const lgvi_sim *s = impl;
    cr_vec3 kg, kk, kn, km;
    cr_lgvi_element(s->k, e, &kg, &kk, &kn, &km, NULL);
    /* total strains (reference + change), as the other formulations report them */
    if (g) *g = cr_v3_add(s->gamma0[e], from_k(kg));
    if (k) *k = cr_v3_add(s->kappa0[e], from_k(kk));
    if (n) *n = from_k(kn);
    if (m) *m = from_k(km);
}

static double time_of(const void *impl) { return ((const lgvi_sim *)impl)->time; }
static double load_factor(const void *impl) { return 0.0; }

static int series_extra(const void *impl, const char *const **names)
{
    *names = extra_names;
    return (int)(sizeof extra_names / sizeof extra_names[0]);
}

/* checkpoint: the kernel state and the adapter's clock */
static int packed_size(const void *impl) { return 1 + cr_lgvi_packed_size(((const lgvi_sim *)impl)->k); }

static void pack(const void *impl, double *out)
{
    const lgvi_sim *s = impl;
    out[0] = s->time;
    cr_lgvi_pack(s->k, out + 1);
}

static void unpack(void *impl, const double *in)
{
    lgvi_sim *s = impl;
    s->time = in[0];
    cr_lgvi_unpack(s->k, in + 1);
}

static uint64_t fingerprint(const void *impl)
{
    const lgvi_sim *s = impl;
    uint64_t h = 14695981039346656037ull;
    const unsigned char *b;
    cr_lgvi_params p = s->p;
    p.h = 0; /* the step belongs to the stage */
    b = (const unsigned char *)&p;
    for (size_t i = 0; i < sizeof p; ++i) h = (h ^ b[i]) * 1099511628211ull;
    for (int k = 0; k < s->load_count; ++k) {
        const cr_load_def *l = &s->loads[k];
        double v[14] = {l->value.x,    l->value.y,     (double)l->type,      (double)l->node,
                        (double)l->frame, (double)l->stages, (double)l->time.type, l->time.t0,
                        l->time.t1,    l->time.amplitude, l->time.frequency, l->time.phase,
                        l->time.offset, l->value.z};
        b = (const unsigned char *)v;
        for (size_t i = 0; i < sizeof v; ++i) h = (h ^ b[i]) * 1099511628211ull;
        for (int j = 0; l->time.points && j < l->time.point_count; ++j) {
            b = (const unsigned char *)&l->time.points[j];
            for (size_t i = 0; i < sizeof l->time.points[j]; ++i) h = (h ^ b[i]) * 1099511628211ull;
        }
    }
    return h;
}

const cr_formulation cr_lgvi_formulation = {
    .name = "lgvi",
    .check = lgvi_check,
    .create = lgvi_create,
    .destroy = lgvi_destroy,
    .static_stage = lgvi_static,
    .dynamic_stage = lgvi_dynamic,
    .node_count = node_count,
    .node_s = node_s,
    .node_pose = node_pose,
    .node_velocity = node_velocity,
    .sample_count = sample_count,
    .sample_s = sample_s,
    .sample = sample,
    .time = time_of,
    .load_factor = load_factor,
    .reaction = NULL,
    .body_count = NULL,
    .series_extra = series_extra,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .fingerprint = fingerprint,
};
