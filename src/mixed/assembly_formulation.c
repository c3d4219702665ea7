/* Assemblies of mixed discrete rods behind the formulation table (model/formulation.h): the
 * scenario's rods and joints as a cr_assembly, static stages by cr_asm_static_solve_stage,
 * and the formulation-neutral accessors with the nodes, samples, bodies and loads of all
 * rods numbered rod by rod. The runner reaches this table through
 * cr_mixed_formulation.assembly; it never branches on it.
 *
 * and dynamic stages by cr_asm_dynamic_solve_stage (the joints' index-1 DAE, assembly_dynamics.c),
 * whose integrator memory is packed with the state so a resumed stage steps as the
 * uninterrupted one. */
#include "assembly/assembly_def.h"
#include "contact/contact.h"
#include "mixed/assembly_internal.h"
#include "mixed/mixed.h"
#include "model/formulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct asm_sim {
    cr_assembly *a;
    cr_assembly_state *s;
    int rods;
    int *first_node, *first_sample, *first_body, *first_load; /* rods + 1 each */
    double *inputs;                                           /* the loads' actuator inputs, rod by rod */
    char (*joint_names)[96];
    double *memory; /* the dynamic stage's integrator memory (cr_asm_dynamic_memory_size doubles) */
    /* during a stage: where the callbacks go */
    cr_sim *sim;
    const cr_stage_callbacks *cb;
    const char *series_names[10]; /* series_extra's columns */
} asm_sim;

/* What the assembly's dynamics refuse (cr_asm_dynamic_solve_stage), named before a run. */
static cr_status asm_check_dynamics(const cr_scenario *sc, cr_error *err)
{
    int k = 0;
    while (k < sc->stage_count && sc->stages[k].type != CR_STAGE_DYNAMIC) ++k;
    if (k == sc->stage_count) return CR_OK;
    for (int r = 0; r < sc->rod_count; ++r) {
        const cr_rod_def *d = &sc->rods[r].rod;
        if (d->rigid_strains)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "rods.%d ('%s').rigid_strains: an assembly with rigid strain components cannot run "
                                "dynamic stage %d in model mixed_discrete (they make the DAE index 2, which its Radau "
                                "stage does not handle); use large stiffnesses instead",
                                r, sc->rods[r].name, k);
    }
    return CR_OK;
}

static int acts_in(unsigned stages, int k) { return stages == 0 || (k < 32 && (stages >> k & 1u)); }

/* A static stage needs every rod held by a support or a joint acting in it (joints' `stages`):
 * the definition's check (cr_assembly_validate) counts them whatever their stages. */
static cr_status asm_check_held(const cr_scenario *sc, cr_error *err)
{
    for (int k = 0; k < sc->stage_count; ++k) {
        if (sc->stages[k].type != CR_STAGE_STATIC) continue;
        for (int r = 0; r < sc->rod_count; ++r) {
            const cr_rod_def *d = &sc->rods[r].rod;
            int held = 0, idle = -1;
            for (int b = 0; b < d->bc_count && !held; ++b) held = acts_in(d->bcs[b].stages, k);
            for (int j = 0; j < sc->joint_count && !held; ++j) {
                if (sc->joints[j].a.rod != r && sc->joints[j].b.rod != r) continue;
                if (acts_in(sc->joints[j].stages, k))
                    held = 1;
                else if (idle < 0)
                    idle = j;
            }
            if (!held && idle >= 0)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "joints.%d.stages: static stage %d has nothing holding rods.%d ('%s') (its joints "
                                    "act in other stages; a free rod has rigid-body modes in statics): let a joint or "
                                    "a support act in stage %d, or make the stage dynamic",
                                    idle, k, r, sc->rods[r].name, k);
        }
    }
    return CR_OK;
}

/* contact.rods: no rod starting inside another (at the reference, the state s), named by both
 * segments' nodes and the depth (the arc-length path is refused for every assembly). */
static cr_status asm_check_rods_contact(const cr_scenario *sc, const cr_assembly *a, cr_assembly_state *s,
                                        cr_error *err)
{
    s->stage = 0;
    cr_asm_contact_gather(a->contact, a, s);
    int ga = -1, gb = -1, na = 0, nb = 0;
    const double g = cr_asm_contact_min_gap(a->contact, &ga, &gb);
    if (!(g < -cr_asm_contact_tolerance(a->contact))) return CR_OK;
    const int ra = cr_asm_contact_rod_of(a->contact, ga, &na), rb = cr_asm_contact_rod_of(a->contact, gb, &nb);
    if (ra == rb)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.self: rod '%s' starts inside itself: the segments of its nodes %d–%d and %d–%d "
                            "overlap by %.3g m (more than the tolerance %.3g m)",
                            a->names[ra], na, na + 1, nb, nb + 1, -g, cr_asm_contact_tolerance(a->contact));
    return cr_error_set(err, CR_BAD_INPUT,
                        "contact.rods: rod '%s' starts inside rod '%s': the segment of its nodes %d–%d and that of "
                        "nodes %d–%d of '%s' overlap by %.3g m (more than the tolerance %.3g m); move the rods apart",
                        a->names[ra], a->names[rb], na, na + 1, nb, nb + 1, a->names[rb], -g,
                        cr_asm_contact_tolerance(a->contact));
}

static cr_status asm_check(const cr_scenario *sc, cr_error *err)
{
    cr_status st0 = asm_check_dynamics(sc, err);
    if (st0 != CR_OK) return st0;
    /* every rod as a one-rod scenario of the mixed rod (loads, supports, options) */
    for (int r = 0; r < sc->rod_count; ++r) {
        cr_scenario one = *sc;
        one.rod = sc->rods[r].rod;
        one.rod_count = 1, one.joint_count = 0;
        one.rods = NULL, one.joints = NULL;
        cr_status st = cr_mixed_check_rod(&one, err);
        if (st != CR_OK) {
            if (err && sc->rod_count > 1) { /* say which rod */
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "%s", err->message);
                cr_error_set(err, st, "rods.%d ('%s'): %s", r, sc->rods[r].name, msg);
            }
            return st;
        }
    }
    /* redundant joints (an over-constrained loop), at the reference: named before a run */
    cr_assembly_def def = {.rod_count = sc->rod_count,
                           .rods = sc->rods,
                           .joint_count = sc->joint_count,
                           .joints = sc->joints,
                           .body_count = sc->body_count,
                           .bodies = sc->bodies,
                           .body_load_count = sc->body_load_count,
                           .body_loads = sc->body_loads};
    cr_assembly *a = cr_assembly_create(&def, err);
    if (!a) return err ? err->status : CR_BAD_INPUT;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_status st = s ? cr_asm_check_redundant(a, s, 0.0, err) : cr_error_set(err, CR_NO_MEMORY, "out of memory");
    for (int k = 1; s && st == CR_OK && k < sc->stage_count; ++k) { /* joints acting in some stages only */
        s->stage = k;
        st = cr_asm_check_redundant(a, s, 0.0, err);
    }
    if (s && st == CR_OK && a->contact) st = asm_check_rods_contact(sc, a, s, err);
    cr_assembly_state_destroy(s);
    if (st == CR_OK) st = asm_check_held(sc, err);
    /* a spring's rest, as a weld's rotation, is reached through a static stage's load steps */
    for (int j = 0; st == CR_OK && sc->stage_count > 0 && sc->stages[0].type == CR_STAGE_DYNAMIC && j < sc->joint_count;
         ++j)
        if (sc->joints[j].rest != 0 || sc->joints[j].slide_rest != 0)
            st = cr_error_set(err, CR_BAD_INPUT,
                              "joints.%d.%s: a spring's rest is reached through the load steps of a static stage "
                              "(as a weld's rotation), and stage 0 is dynamic: add a static stage first",
                              j, sc->joints[j].rest != 0 ? "rest" : "slide_rest");
    /* a joint's gap too: closed through the first static stage's load steps (assembly_joints.c) */
    if (st == CR_OK && sc->stage_count > 0 && sc->stages[0].type == CR_STAGE_DYNAMIC)
        st = cr_assembly_refuse_gaps(&def, "stage 0 is dynamic", err);
    for (int j = 0; st == CR_OK && j < sc->joint_count; ++j) /* that stage closes it: the joint acts there */
        if (sc->joints[j].stages != 0 && !(sc->joints[j].stages & 1u) && cr_joint_has_gap(&def, j)) {
            char lb[96];
            st = cr_error_set(err, CR_BAD_INPUT,
                              "%s.stages: its points are %.6g m apart in the reference, a gap that the load steps of "
                              "stage 0 close, and the joint does not act in stage 0",
                              cr_joint_label(&def, j, lb, sizeof lb), cr_joint_reference_gap(&def, j));
        }
    cr_assembly_destroy(a);
    if (st != CR_OK) return st;
    for (int k = 0; k < sc->stage_count; ++k)
        if (sc->stages[k].statics.arc_length)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.path: arc-length continuation is not available for assemblies (use "
                                "load_steps)",
                                k);
    return CR_OK;
}

static void asm_destroy(void *impl)
{
    asm_sim *s = impl;
    if (!s) return;
    cr_assembly_state_destroy(s->s);
    cr_assembly_destroy(s->a);
    free(s->first_node);
    free(s->first_sample);
    free(s->first_body);
    free(s->first_load);
    free(s->inputs);
    free(s->joint_names);
    free(s->memory);
    free(s);
}

static void *asm_create(const cr_assembly_def *def, const cr_model_options *o, cr_error *err)
{
    (void)o;
    asm_sim *s = calloc(1, sizeof *s);
    if (!s) return cr_error_set(err, CR_NO_MEMORY, "out of memory"), NULL;
    s->a = cr_assembly_create(def, err);
    if (!s->a) {
        free(s);
        return NULL;
    }
    s->rods = def->rod_count;
    s->s = cr_assembly_state_create(s->a);
    s->first_node = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_sample = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_body = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_load = calloc((size_t)s->rods + 1, sizeof(int));
    s->joint_names = calloc((size_t)(def->joint_count > 0 ? def->joint_count : 1), sizeof *s->joint_names);
    if (!s->s || !s->first_node || !s->first_sample || !s->first_body || !s->first_load || !s->joint_names) {
        asm_destroy(s);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory"), NULL;
    }
    for (int r = 0; r < s->rods; ++r) {
        const cr_model *m = s->a->models[r];
        s->first_node[r + 1] = s->first_node[r] + m->nodes;
        s->first_sample[r + 1] = s->first_sample[r] + m->n;
        s->first_body[r + 1] = s->first_body[r] + m->body_count;
        s->first_load[r + 1] = s->first_load[r] + m->load_count;
    }
    for (int j = 0; j < def->joint_count; ++j)
        if (def->joints[j].name[0])
            snprintf(s->joint_names[j], sizeof s->joint_names[j], "%s", def->joints[j].name);
        else
            snprintf(s->joint_names[j], sizeof s->joint_names[j], "joints.%d", j);
    s->inputs = malloc((size_t)(s->first_load[s->rods] > 0 ? s->first_load[s->rods] : 1) * sizeof(double));
    s->memory = calloc((size_t)cr_asm_dynamic_memory_size(s->a), sizeof(double));
    if (!s->inputs || !s->memory) {
        asm_destroy(s);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory"), NULL;
    }
    for (int k = 0; k < s->first_load[s->rods]; ++k) s->inputs[k] = 1.0;
    return s;
}

/* the rod of a node / sample / body of the whole numbering, and its index there */
static int rod_of(const int *first, int rods, int *i)
{
    int r = 0;
    while (r + 1 < rods && *i >= first[r + 1]) ++r;
    *i -= first[r];
    return r;
}

/* ---- stages ---- */
static int load_step(const cr_assembly *a, const cr_assembly_state *st, const cr_load_step_report *step, int index,
                     void *user)
{
    (void)a, (void)st;
    asm_sim *s = user;
    return s->cb->on_load_step ? s->cb->on_load_step(s->sim, step, index, s->cb->user) : 0;
}

static cr_status asm_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                            cr_static_report *report, cr_error *err)
{
    asm_sim *s = sim->impl;
    for (int r = 0; r < s->rods; ++r) /* a static stage finds equilibrium: the rods end at rest */
        for (int i = 0; i < s->a->models[r]->nodes; ++i)
            cr_state_set_velocity(s->s->rods[r], i, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    s->sim = sim;
    s->cb = cb;
    return cr_asm_static_solve_stage(s->a, s->s, stage, o, load_step, s, report, err);
}

static int dyn_output(const cr_assembly *a, const cr_assembly_state *st, const cr_dynamic_sample *smp, void *user)
{
    (void)a, (void)st;
    asm_sim *s = user;
    const int stop = s->cb->on_output ? s->cb->on_output(s->sim, smp, s->cb->user) : 0;
    if (s->cb->inputs_live) /* the loads' inputs it set, for the stage's next output interval */
        for (int r = 0; r < s->rods; ++r) {
            const int nl = s->a->models[r]->load_count;
            if (nl > 0) memcpy(s->s->rods[r]->load_input, s->inputs + s->first_load[r], (size_t)nl * sizeof(double));
        }
    return stop;
}

static int dyn_step(const cr_assembly *a, const cr_assembly_state *st, double h, long steps, double work, void *user)
{
    (void)a, (void)st;
    asm_sim *s = user;
    return s->cb->on_step ? s->cb->on_step(s->sim, h, steps, work, s->cb->user) : 0;
}

/* The load and drive inputs: with cb->inputs_live, those an output callback sets hold from that
 * output time on (the stage integrated interval by interval, assembly_dynamics.c); otherwise
 * those set at the stage's start hold over the whole stage. */
static cr_status asm_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                             const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                             cr_error *err)
{
    asm_sim *s = sim->impl;
    for (int r = 0; r < s->rods; ++r) {
        const int nl = s->a->models[r]->load_count;
        if (nl > 0) memcpy(s->s->rods[r]->load_input, s->inputs + s->first_load[r], (size_t)nl * sizeof(double));
    }
    s->sim = sim;
    s->cb = cb;
    s->s->inputs_live = cb && cb->inputs_live;
    return cr_asm_dynamic_solve_stage(s->a, s->s, stage, t_stage_start, h0, work, o, dyn_output, dyn_step, s, s->memory,
                                      report, err);
}

/* ---- accessors ---- */
static int node_count(const void *impl)
{
    const asm_sim *s = impl;
    return s->first_node[s->rods];
}

static double node_s(const void *impl, int i)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    return s->a->models[r]->s[i];
}

static void node_pose(const void *impl, int i, cr_vec3 *x, cr_quat *q)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    *x = cr_state_position(s->s->rods[r], i);
    *q = cr_q_normalize(cr_state_orientation(s->s->rods[r], i));
}

static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    *v = cr_state_velocity(s->s->rods[r], i);
    *w = cr_state_angular_velocity(s->s->rods[r], i);
}

static int sample_count(const void *impl)
{
    const asm_sim *s = impl;
    return s->first_sample[s->rods];
}

static double sample_s(const void *impl, int e)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_sample, s->rods, &e);
    return s->a->models[r]->el[e].s_mid;
}

static void sample(const void *impl, int e, cr_vec3 *g, cr_vec3 *k, cr_vec3 *n, cr_vec3 *m)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_sample, s->rods, &e);
    cr_state_element(s->a->models[r], s->s->rods[r], e, g, k, n, m);
}

static double time_of(const void *impl) { return cr_state_time(((const asm_sim *)impl)->s->rods[0]); }
static double load_factor(const void *impl) { return cr_assembly_state_load_factor(((const asm_sim *)impl)->s); }

static cr_status reaction(const void *impl, int i, cr_vec3 *f, cr_vec3 *m)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    /* a support on a joint's node: its own rows' reaction, without the joints' */
    for (int k = 0; k < s->a->support_count; ++k)
        if (s->a->supports[k].rod == r && s->a->iface[s->a->supports[k].iface].node == i)
            return cr_asm_support_reaction(s->a, s->s, r, i, f, m);
    return cr_state_reaction(s->a->models[r], s->s->rods[r], i, f, m);
}

/* the bodies welded to the rods' nodes, rod by rod, then the free bodies */
static int body_count(const void *impl)
{
    const asm_sim *s = impl;
    return s->first_body[s->rods] + s->a->body_count;
}

static const char *body_name(const void *impl, int j)
{
    const asm_sim *s = impl;
    if (j >= s->first_body[s->rods]) return s->a->bodies[j - s->first_body[s->rods]].name;
    int r = rod_of(s->first_body, s->rods, &j);
    return s->a->models[r]->bodies[j].name;
}

/* a free body's velocities (welded bodies move with their nodes: cr_sim_body_velocity) */
static void body_velocity(const void *impl, int j, cr_vec3 *v, cr_vec3 *w)
{
    const asm_sim *s = impl;
    cr_assembly_state_body(s->s, j - s->first_body[s->rods], NULL, NULL, v, w);
}

static void body_pose(const void *impl, int j, cr_vec3 *c, cr_mat3 *axes)
{
    const asm_sim *s = impl;
    if (j >= s->first_body[s->rods]) {
        cr_quat q;
        cr_assembly_state_body(s->s, j - s->first_body[s->rods], c, &q, NULL, NULL);
        *axes = cr_q_exp(q);
        return;
    }
    int r = rod_of(s->first_body, s->rods, &j);
    cr_state_body_pose(s->a->models[r], s->s->rods[r], j, c, axes);
}

static double body_mass(const void *impl, int j)
{
    const asm_sim *s = impl;
    if (j >= s->first_body[s->rods]) return s->a->bodies[j - s->first_body[s->rods]].mass;
    int r = rod_of(s->first_body, s->rods, &j);
    return s->a->models[r]->bodies[j].mass;
}

/* with springs, dampers or drives on the joints: their energy columns, and with limits the
 * stops' columns; with obstacles the contact columns after them, summed over the rods; with
 * contact.rods the pairs and the smallest gap (assembly_dynamics.c, output) */
static int series_extra(const void *impl, const char *const **names)
{
    static const char *const all[] = {"energy_dissipated_joints", "work_drives",         "joint_limits_pressing",
                                      "joint_limit_force",        "contact_active",      "contact_sliding",
                                      "contact_normal_force",     "contact_penetration", "rods_contact_pairs",
                                      "rods_contact_gap"};
    asm_sim *s = (asm_sim *)impl; /* (its column list, filled here) */
    const int joints = s && s->a && cr_asm_joint_columns(s->a), limits = joints && cr_asm_has_limits(s->a),
              contact = s && s->a && cr_asm_obstacles(s->a), rods = s && s->a && s->a->contact;
    int n = 0;
    for (int k = 0; k < 10 && s; ++k)
        if ((k < 2 && joints) || (k >= 2 && k < 4 && limits) || (k >= 4 && k < 8 && contact) || (k >= 8 && rods))
            s->series_names[n++] = all[k];
    *names = s ? s->series_names : all;
    return n;
}

/* a node's contact with the obstacles (nodes.csv, summary.json, VTK), as one rod's */
static int contact(const void *impl, int node, cr_contact_sample *out)
{
    const asm_sim *s = impl;
    if (!cr_asm_obstacles(s->a)) return 0;
    int r = rod_of(s->first_node, s->rods, &node);
    const cr_model *m = s->a->models[r];
    if (!m->contact) { /* (every rod has the obstacles; kept for safety) */
        memset(out, 0, sizeof *out);
        out->gap = INFINITY;
        return 1;
    }
    cr_contact_info in;
    cr_contact_set_time(m->contact, cr_state_time(s->s->rods[r])); /* moving obstacles */
    cr_contact_wrench w;
    cr_contact_node_wrench(m->contact, node, cr_state_position(s->s->rods[r], node),
                           cr_state_orientation(s->s->rods[r], node), NULL, &w, 0, &in);
    out->force = w.f;
    out->normal = in.normal, out->gap = in.gap, out->state = in.active ? (in.slipping ? 2 : 1) : 0,
    out->tolerance = m->contact->tol;
    return 1;
}

static double *load_input(void *impl) { return ((asm_sim *)impl)->inputs; }

static int has_drives(const cr_assembly *a)
{
    for (int k = 0; k < a->joint_count; ++k)
        if (a->joints[k].drive || a->joints[k].slide_drive) return 1;
    return 0;
}

/* checkpoints: every rod's state (poses, velocities, stresses), the joints' multipliers, the
 * load and closing factors, the inputs, then the dynamic stage's integrator memory */
static int fixed_packed_size(const void *impl)
{
    const asm_sim *s = impl;
    int n = 2 + s->a->rows + s->first_load[s->rods] + cr_asm_dynamic_memory_size(s->a) +
            CR_ASM_BODY_DOF * s->a->body_count + s->a->body_load_count;
    if (cr_asm_has_limits(s->a)) n += 2 * s->a->rows; /* the limits' unwrapping and multipliers */
    if (has_drives(s->a)) n += 4 * s->a->joint_count; /* the drives' inputs and their ramps */
    for (int r = 0; r < s->rods; ++r)
        n += cr_state_packed_size(s->a->models[r]) + cr_contact_packed_size(s->a->models[r]->contact);
    return n;
}

/* ... and, last, the friction anchors between the rods (contact.rods_friction): their number
 * varies with the state */
static int packed_size(const void *impl)
{
    const asm_sim *s = impl;
    return fixed_packed_size(impl) + cr_asm_contact_packed_size(s->a->contact);
}

static long unpacked_size(const void *impl, const double *in, long n)
{
    const asm_sim *s = impl;
    const long fixed = fixed_packed_size(impl);
    if (n < fixed) return -1;
    const long tail = cr_asm_contact_unpacked_size(s->a->contact, in + fixed, n - fixed);
    return tail < 0 ? -1 : fixed + tail;
}

static void pack(const void *impl, double *out)
{
    const asm_sim *s = impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_state_pack(s->s->rods[r], out);
        out += cr_state_packed_size(s->a->models[r]);
    }
    memcpy(out, s->s->lambda, (size_t)s->a->rows * sizeof(double));
    out += s->a->rows;
    *out++ = s->s->load_factor;
    *out++ = s->s->joint_factor;
    memcpy(out, s->inputs, (size_t)s->first_load[s->rods] * sizeof(double));
    out += s->first_load[s->rods];
    memcpy(out, s->memory, (size_t)cr_asm_dynamic_memory_size(s->a) * sizeof(double));
    out += cr_asm_dynamic_memory_size(s->a);
    memcpy(out, s->s->body, (size_t)CR_ASM_BODY_DOF * s->a->body_count * sizeof(double));
    out += CR_ASM_BODY_DOF * s->a->body_count;
    memcpy(out, s->s->body_load_scale, (size_t)s->a->body_load_count * sizeof(double));
    out += s->a->body_load_count;
    if (cr_asm_has_limits(s->a)) {
        memcpy(out, s->s->limit_ref, (size_t)s->a->rows * sizeof(double));
        memcpy(out + s->a->rows, s->s->limit_hat, (size_t)s->a->rows * sizeof(double));
        out += 2 * s->a->rows;
    }
    if (has_drives(s->a)) {
        memcpy(out, s->s->drive_input, (size_t)s->a->joint_count * sizeof(double));
        memcpy(out + s->a->joint_count, s->s->drive_from, (size_t)s->a->joint_count * sizeof(double));
        memcpy(out + 2 * s->a->joint_count, s->s->drive_rate, (size_t)s->a->joint_count * sizeof(double));
        memcpy(out + 3 * s->a->joint_count, s->s->drive_to, (size_t)s->a->joint_count * sizeof(double));
        out += 4 * s->a->joint_count;
    }
    /* obstacles: every rod's contact pairs (multipliers, anchors, stick or slide) */
    for (int r = 0; r < s->rods; ++r) {
        cr_contact_pack(s->a->models[r]->contact, out);
        out += cr_contact_packed_size(s->a->models[r]->contact);
    }
    cr_asm_contact_pack(s->a->contact, out);
}

static void unpack(void *impl, const double *in)
{
    asm_sim *s = impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_state_unpack(s->s->rods[r], in);
        in += cr_state_packed_size(s->a->models[r]);
    }
    memcpy(s->s->lambda, in, (size_t)s->a->rows * sizeof(double));
    in += s->a->rows;
    s->s->load_factor = *in++;
    s->s->joint_factor = *in++;
    memcpy(s->inputs, in, (size_t)s->first_load[s->rods] * sizeof(double));
    in += s->first_load[s->rods];
    memcpy(s->memory, in, (size_t)cr_asm_dynamic_memory_size(s->a) * sizeof(double));
    in += cr_asm_dynamic_memory_size(s->a);
    memcpy(s->s->body, in, (size_t)CR_ASM_BODY_DOF * s->a->body_count * sizeof(double));
    in += CR_ASM_BODY_DOF * s->a->body_count;
    memcpy(s->s->body_load_scale, in, (size_t)s->a->body_load_count * sizeof(double));
    in += s->a->body_load_count;
    if (cr_asm_has_limits(s->a)) {
        memcpy(s->s->limit_ref, in, (size_t)s->a->rows * sizeof(double));
        memcpy(s->s->limit_hat, in + s->a->rows, (size_t)s->a->rows * sizeof(double));
        in += 2 * s->a->rows;
    }
    if (has_drives(s->a)) {
        memcpy(s->s->drive_input, in, (size_t)s->a->joint_count * sizeof(double));
        memcpy(s->s->drive_from, in + s->a->joint_count, (size_t)s->a->joint_count * sizeof(double));
        memcpy(s->s->drive_rate, in + 2 * s->a->joint_count, (size_t)s->a->joint_count * sizeof(double));
        memcpy(s->s->drive_to, in + 3 * s->a->joint_count, (size_t)s->a->joint_count * sizeof(double));
        in += 4 * s->a->joint_count;
    }
    for (int r = 0; r < s->rods; ++r) {
        cr_contact_unpack(s->a->models[r]->contact, in);
        in += cr_contact_packed_size(s->a->models[r]->contact);
    }
    cr_asm_contact_unpack(s->a->contact, in); /* (out of memory: none kept, the stage anchors afresh) */
}

static uint64_t fingerprint(const void *impl)
{
    const asm_sim *s = impl;
    uint64_t h = 1469598103934665603ULL;
    for (int r = 0; r < s->rods; ++r) h = (h ^ cr_model_fingerprint(s->a->models[r])) * 1099511628211ULL;
    for (int j = 0; j < s->a->joint_count; ++j) {
        const cr_asm_joint *jt = &s->a->joints[j];
        h = (h ^ (uint64_t)(jt->type * 131 + jt->iface[0] * 7 + jt->iface[1])) * 1099511628211ULL;
        /* the joint's geometry too: a resumed run must not change an axis or a weld's rotation */
        const double geo[] = {jt->rel_ref.w, jt->rel_ref.x, jt->rel_ref.y, jt->rel_ref.z, jt->phi.x,
                              jt->phi.y,     jt->phi.z,     jt->u1.x,      jt->u1.y,      jt->u1.z,
                              jt->u2.x,      jt->u2.y,      jt->u2.z,      jt->axis_b.x,  jt->axis_b.y,
                              jt->axis_b.z,  jt->gap0[0],   jt->gap0[1],   jt->gap0[2]};
        for (size_t k = 0; k < sizeof geo / sizeof geo[0]; ++k) {
            uint64_t bits;
            memcpy(&bits, &geo[k], sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
        if (jt->on_body[0] || jt->on_body[1]) { /* a body's point (unchanged without free bodies) */
            const double pt[] = {jt->point[0].x, jt->point[0].y, jt->point[0].z,
                                 jt->point[1].x, jt->point[1].y, jt->point[1].z};
            for (size_t k = 0; k < sizeof pt / sizeof pt[0]; ++k) {
                uint64_t bits;
                memcpy(&bits, &pt[k], sizeof bits);
                h = (h ^ bits) * 1099511628211ULL;
            }
        }
        if (jt->springs || jt->slide_drive || jt->stages) { /* (unchanged without them) */
            /* its springs, dampers and stages: a resumed run must not change them either */
            const double sp[] = {jt->k[0],
                                 jt->k[1],
                                 jt->k[2],
                                 jt->c[0],
                                 jt->c[1],
                                 jt->c[2],
                                 (double)jt->springs,
                                 (double)jt->slide_drive,
                                 (double)jt->stages,
                                 jt->h.x,
                                 jt->h.y,
                                 jt->h.z,
                                 jt->rest[0],
                                 jt->rest[1],
                                 jt->rest[2]};
            for (size_t k = 0; k < sizeof sp / sizeof sp[0]; ++k) {
                uint64_t bits;
                memcpy(&bits, &sp[k], sizeof bits);
                h = (h ^ bits) * 1099511628211ULL;
            }
        }
        for (int q = 0; q < jt->springs; ++q) { /* the limits' ranges and ε (unchanged without limits) */
            if (!cr_asm_is_limit_kind(jt->spring_kind[q])) continue;
            const double lm[] = {jt->lo[q], jt->hi[q], jt->k[q], (double)jt->spring_kind[q]};
            for (size_t k = 0; k < sizeof lm / sizeof lm[0]; ++k) {
                uint64_t bits;
                memcpy(&bits, &lm[k], sizeof bits);
                h = (h ^ bits) * 1099511628211ULL;
            }
        }
        if (!jt->drive && !jt->slide_drive) continue; /* (unchanged without drives) */
        /* a drive's angle (position) and time function: a resumed run must drive as the first did */
        const cr_time_function *tf = &jt->drive_time;
        double dv[8 + 2 * 64] = {jt->drive ? jt->drive_angle : jt->drive_position,
                                 (double)tf->type,
                                 tf->t0,
                                 tf->t1,
                                 tf->amplitude,
                                 tf->frequency,
                                 tf->phase,
                                 tf->offset};
        int nd = 8;
        for (int k = 0; k < tf->point_count && tf->points && k < 64; ++k)
            dv[nd++] = tf->points[k].t, dv[nd++] = tf->points[k].value;
        for (int k = 0; k < nd; ++k) {
            uint64_t bits;
            memcpy(&bits, &dv[k], sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
    }
    if (s->a->contact) /* contact.rods (unchanged without it): a resumed run must touch as the first did */
        h = cr_asm_contact_hash(s->a->contact, (h ^ 0x726f6473ULL) * 1099511628211ULL);
    for (int b = 0; b < s->a->body_count; ++b) { /* the free bodies' masses and inertias */
        const cr_asm_body *o = &s->a->bodies[b];
        const double v[] = {o->mass, o->inertia.m[0][0], o->inertia.m[1][1], o->inertia.m[2][2]};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) {
            uint64_t bits;
            memcpy(&bits, &v[k], sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
    }
    return h;
}

static int rod_count(const void *impl) { return ((const asm_sim *)impl)->rods; }
static const char *rod_name(const void *impl, int r) { return ((const asm_sim *)impl)->a->names[r]; }
static int rod_first_node(const void *impl, int r) { return ((const asm_sim *)impl)->first_node[r]; }
static int rod_first_sample(const void *impl, int r) { return ((const asm_sim *)impl)->first_sample[r]; }
static int joint_count(const void *impl) { return ((const asm_sim *)impl)->a->joint_count; }
static const char *joint_name(const void *impl, int j) { return ((const asm_sim *)impl)->joint_names[j]; }

static cr_status joint_reaction(const void *impl, int j, cr_vec3 *f, cr_vec3 *m)
{
    const asm_sim *s = impl;
    return cr_assembly_joint_reaction(s->a, s->s, j, f, m);
}

static cr_status set_joint_drive_input(void *impl, int j, double value)
{
    asm_sim *s = impl;
    if (!s->a->joints[j].drive && !s->a->joints[j].slide_drive) return CR_BAD_INPUT;
    s->s->drive_input[j] = value;
    return CR_OK;
}

static double joint_drive_input(const void *impl, int j)
{
    const asm_sim *s = impl;
    return s->a->joints[j].drive || s->a->joints[j].slide_drive ? s->s->drive_input[j] : NAN;
}

static int joint_limit(const void *impl, int j, int which, double *value, double *force)
{
    const asm_sim *s = impl;
    return cr_assembly_joint_limit(s->a, s->s, j, which, value, force);
}

const cr_formulation cr_mixed_assembly_formulation = {
    .name = "mixed_discrete",
    /* as the one-rod table's: an assembly costs what its rods cost (+ a small dense system) */
    .bytes_per_element_static = 3e3,
    .bytes_per_element_dynamic = 5e4,
    .check = asm_check,
    .create = NULL, /* create_assembly */
    .destroy = asm_destroy,
    .static_stage = asm_static,
    .dynamic_stage = asm_dynamic,
    .node_count = node_count,
    .node_s = node_s,
    .node_pose = node_pose,
    .node_velocity = node_velocity,
    .sample_count = sample_count,
    .sample_s = sample_s,
    .sample = sample,
    .time = time_of,
    .load_factor = load_factor,
    .reaction = reaction,
    .contact = contact,
    .body_count = body_count,
    .body_name = body_name,
    .body_pose = body_pose,
    .body_velocity = body_velocity,
    .series_extra = series_extra,
    .load_input = load_input,
    .packed_size = packed_size,
    .pack = pack,
    .unpacked_size = unpacked_size,
    .unpack = unpack,
    .fingerprint = fingerprint,
    .assembly = &cr_mixed_assembly_formulation,
    .create_assembly = asm_create,
    .rod_count = rod_count,
    .rod_name = rod_name,
    .rod_first_node = rod_first_node,
    .rod_first_sample = rod_first_sample,
    .joint_count = joint_count,
    .joint_name = joint_name,
    .joint_reaction = joint_reaction,
    .joint_limit = joint_limit,
    .set_joint_drive_input = set_joint_drive_input,
    .joint_drive_input = joint_drive_input,
    .body_mass = body_mass,
};
