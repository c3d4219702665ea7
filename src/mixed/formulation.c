/* The mixed discrete rod behind the formulation table (model/formulation.h):
 * its model and state, static stages by Newton with load steps, dynamic stages by
 * Radau IIA, and the formulation-neutral accessors. */
#include "model/formulation.h"
#include "contact/contact.h"
#include "mixed/mixed.h"
#include "mixed/supports.h"
#include "selfcontact.h"

#include <stdlib.h>
#include <string.h>

typedef struct mixed_sim {
    cr_model *model;
    cr_state *state;
    /* the dynamic stage's integrator memory (cr_dynamic_memory_size doubles), kept
     * with the state in checkpoints so a resumed stage steps as the uninterrupted one */
    double *memory;
    /* during a stage: where the callbacks go */
    cr_sim *sim;
    const cr_stage_callbacks *cb;
} mixed_sim;

static cr_vec3 model_ref_position(const void *m, int i) { return ((const cr_model *)m)->ref_r[i]; }

/* Obstacles: static stages only (no arc-length path), and no node starting inside one by more
 * than the contact tolerance (named with its depth). */
static cr_status contact_check(const cr_scenario *sc, cr_error *err)
{
    for (int k = 0; k < sc->stage_count; ++k) {
        /* the contact's kinks (touching, sliding) defeat Radau's error estimate at looser
         * tolerances: a rod laid on a plane bounced 2.5 cm at rtol 1e-3 (docs/theory.md §11) */
        if (sc->stages[k].type == CR_STAGE_DYNAMIC &&
            (sc->stages[k].dynamics.rtol > 1e-5 || sc->stages[k].dynamics.atol > 1e-8))
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.rtol: a dynamic stage with obstacles needs rtol <= 1e-5 and atol <= 1e-8 "
                                "(got %g, %g): at looser tolerances the integrator steps over the contact's kinks "
                                "(touching, sticking, sliding) and the rod gains energy",
                                k, sc->stages[k].dynamics.rtol, sc->stages[k].dynamics.atol);
        if (sc->stages[k].statics.arc_length)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.path: the arc-length path does not handle obstacles (use load steps)", k);
    }
    cr_model *m = cr_model_create(&sc->rod, err);
    if (!m) return err ? err->status : CR_BAD_INPUT;
    cr_status st = cr_contact_check_start(m->contact, model_ref_position, m, m->s, err);
    cr_model_destroy(m);
    return st;
}

/* Self-contact: static stages on load steps (Newton with the far-node coupling as a low-rank
 * term; the arc-length path does not carry it yet) and dynamic stages (a penalty, Woodbury in
 * Radau's shifted solves), and a rod that does not start inside itself. */
static cr_status selfcontact_check(const cr_scenario *sc, cr_error *err)
{
    for (int k = 0; k < sc->stage_count; ++k) {
        if (sc->stages[k].statics.arc_length)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.path: the arc-length path does not handle contact.self (use load steps)", k);
    }
    cr_model *m = cr_model_create(&sc->rod, err);
    if (!m) return err ? err->status : CR_BAD_INPUT;
    cr_status st = cr_mixed_selfcontact_check_start(m, err);
    cr_model_destroy(m);
    return st;
}

/* A static stage solves K u = f: with no support (nor obstacle) active in it, a free rod
 * (or a free assembly) has six rigid-body modes and no equilibrium (the stage solver refuses it too,
 * but only after the stages before it have run). An assembly's rods are held through its
 * joints, so there any rod's support counts. */
cr_status cr_mixed_check_static_supports(const cr_scenario *sc, cr_error *err)
{
    int rods = cr_scenario_is_assembly(sc) ? sc->rod_count : 1;
    for (int k = 0; k < sc->stage_count; ++k) {
        if (sc->stages[k].type != CR_STAGE_STATIC) continue;
        /* obstacles with friction can hold a rod (a cord on the ground); without it the
         * stage fails naming friction */
        int held = sc->rod.obstacle_count > 0;
        for (int r = 0; r < rods; ++r) {
            const cr_rod_def *rod = rods > 1 ? &sc->rods[r].rod : &sc->rod;
            for (int j = 0; j < rod->bc_count; ++j)
                held |= rod->bcs[j].stages == 0 || (k < 32 && ((rod->bcs[j].stages >> k) & 1u));
        }
        if (!held)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions: static stage %d has no support active in it (a free %s has "
                                "rigid-body modes and no equilibrium); add a support, include stage %d in a "
                                "support's stages, or make the stage dynamic",
                                k, rods > 1 ? "assembly" : "rod", k);
    }
    return CR_OK;
}

/* The checks of one rod (an assembly checks each of its rods through it, see
 * assembly_formulation.c), without the supports of static stages. */
cr_status cr_mixed_check_rod(const cr_scenario *sc, cr_error *err)
{
    cr_status fst;
    /* the rod's own values first (a load beyond its range says more than what follows) */
    if ((fst = cr_rod_validate(&sc->rod, err)) != CR_OK) return fst;
    if (sc->rod.obstacle_count > 0 && (fst = contact_check(sc, err)) != CR_OK) return fst;
    if (sc->rod.contact.self && (fst = selfcontact_check(sc, err)) != CR_OK) return fst;
    for (int k = 0; k < sc->rod.load_count; ++k)
        if (sc->rod.loads[k].type == CR_LOAD_CHAMBER)
            return cr_error_set(err, CR_BAD_INPUT,
                                "loads.%d.type: chamber loads are not supported by the mixed_discrete model (use "
                                "port_hamiltonian)",
                                k);
    for (int k = 0; k < sc->stage_count; ++k)
        if (sc->stages[k].type == CR_STAGE_DYNAMIC && sc->stages[k].dynamics.time_step > 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: the mixed_discrete model steps adaptively (Radau IIA); "
                                "remove time_step and set rtol/atol/h_max instead (a fixed step is the lgvi and "
                                "port_hamiltonian models')",
                                k);
    /* rigid components are algebraic constraints on the positions: an index-2 DAE, which the
     * Radau stage does not handle (cr_mixed_dynamic_solve refuses it too; here the run has not
     * spent its static stages first) */
    for (int k = 0; sc->rod.rigid_strains && k < sc->stage_count; ++k)
        if (sc->stages[k].type == CR_STAGE_DYNAMIC)
            return cr_error_set(err, CR_BAD_INPUT,
                                "rod.rigid_strains: the mixed_discrete model cannot run dynamic stage %d with rigid "
                                "strain components (they make the DAE index 2, which its Radau IIA stage does not "
                                "handle); use the port_hamiltonian model (Kirchhoff rods in dynamics), or large "
                                "finite stiffnesses instead of rigid components",
                                k);
    for (int k = 0; k < sc->stage_count; ++k)
        if (sc->stages[k].type == CR_STAGE_DYNAMIC) {
            cr_status st = cr_mixed_check_node_masses(&sc->rod, k, err);
            if (st != CR_OK) return st;
            break;
        }
    /* supports the DAE cannot hold (partly held rotations and translations in
     * dynamic stages): refused here rather than when the stage starts */
    int special = 0; /* partly held, or moving */
    for (int k = 0; k < sc->rod.bc_count; ++k) {
        const cr_bc_def *b = &sc->rod.bcs[k];
        special |= cr_bc_hold(b) != CR_HOLD_ALL || b->has_position || b->rotation_kind != CR_BC_ROTATION_NONE ||
                   b->type == CR_BC_POSE;
    }
    for (int k = 0; special && k < sc->stage_count; ++k) {
        if (sc->stages[k].type != CR_STAGE_DYNAMIC) continue;
        cr_model *m = cr_model_create(&sc->rod, err);
        if (!m) return err ? err->status : CR_BAD_INPUT;
        cr_status st = CR_OK;
        for (int j = k; st == CR_OK && j < sc->stage_count; ++j)
            if (sc->stages[j].type == CR_STAGE_DYNAMIC) st = cr_supports_dynamic_check(m, j, err);
        if (st == CR_OK && k == 0) { /* a run that starts dynamic starts at the reference */
            double *y = calloc((size_t)m->nodes * CR_DYN_BLOCK, sizeof *y);
            if (!y) st = cr_error_set(err, CR_NO_MEMORY, "out of memory");
            for (int i = 0; y && i < m->nodes; ++i) {
                cr_v3_store(m->ref_r[i], y + (size_t)i * CR_DYN_BLOCK);
                cr_q_store(m->ref_p[i], y + (size_t)i * CR_DYN_BLOCK + 3);
            }
            if (y) st = cr_supports_dynamic_start(m, 0, 0.0, y, err);
            free(y);
        }
        cr_model_destroy(m);
        return st;
    }
    return CR_OK;
}

static cr_status mixed_check(const cr_scenario *sc, cr_error *err)
{
    cr_status st = cr_foreign_options_check(sc, "mixed_discrete", err);
    if (st == CR_OK && sc->rod.contact.rods && sc->rod_count < 2)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.rods: contact between the rods of an assembly needs several rods (rods); one rod "
                            "touches itself with contact.self");
    if (st == CR_OK && sc->rod.contact.rods_mu_static > 0 &&
        !(cr_scenario_is_assembly(sc) && (sc->rod.contact.rods || sc->rod.contact.self)))
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.rods_friction: friction between rods is an assembly's (rods), with \"rods\" or "
                            "\"self\": true (a single rod's self-contact is frictionless)");
    if (st == CR_OK)
        st = cr_scenario_is_assembly(sc) ? cr_mixed_assembly_formulation.check(sc, err) : cr_mixed_check_rod(sc, err);
    return st == CR_OK ? cr_mixed_check_static_supports(sc, err) : st;
}

static void mixed_destroy(void *impl)
{
    mixed_sim *s = impl;
    if (!s) return;
    cr_state_destroy(s->state);
    free(s->memory);
    cr_model_destroy(s->model);
    free(s);
}

static void *mixed_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err)
{
    mixed_sim *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    s->model = cr_model_create(def, err);
    if (!s->model) {
        free(s);
        return NULL;
    }
    s->state = cr_state_create(s->model);
    s->memory = calloc((size_t)cr_dynamic_memory_size(s->model), sizeof(double));
    if (!s->state || !s->memory) {
        mixed_destroy(s);
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return s;
}

/* ---- stages: the mixed rod's callbacks forwarded to the table's ---- */
static int load_step(const cr_model *m, const cr_state *st, const cr_load_step_report *step, int index, void *user)
{
    mixed_sim *s = user;
    return s->cb->on_load_step ? s->cb->on_load_step(s->sim, step, index, s->cb->user) : 0;
}

static int output(const cr_model *m, const cr_state *st, const cr_dynamic_sample *smp, void *user)
{
    mixed_sim *s = user;
    return s->cb->on_output ? s->cb->on_output(s->sim, smp, s->cb->user) : 0;
}

static int step(const cr_model *m, const cr_state *st, double h, long steps, double work, void *user)
{
    mixed_sim *s = user;
    return s->cb->on_step ? s->cb->on_step(s->sim, h, steps, work, s->cb->user) : 0;
}

static cr_status mixed_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                              cr_static_report *report, cr_error *err)
{
    mixed_sim *s = sim->impl;
    /* a static stage finds equilibrium: the rod ends at rest */
    for (int i = 0; i < s->model->nodes; ++i) cr_state_set_velocity(s->state, i, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    double *factors = malloc((s->model->load_count > 0 ? s->model->load_count : 1) * sizeof(double));
    if (!factors) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    cr_model_stage_load_factors(s->model, stage, factors);
    s->sim = sim;
    s->cb = cb;
    int previous = s->state->stage;
    s->state->stage = stage;
    cr_status st = cr_static_solve_stage(s->model, s->state, previous, factors, o, load_step, s, report, err);
    free(factors);
    return st;
}

static cr_status mixed_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                               const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                               cr_error *err)
{
    mixed_sim *s = sim->impl;
    s->sim = sim;
    s->cb = cb;
    return cr_mixed_dynamic_solve(s->model, s->state, stage, t_stage_start, h0, work, o, output, step, s, s->memory,
                                  cb->inputs_live, report, err);
}

/* ---- accessors ---- */
static int node_count(const void *impl) { return ((const mixed_sim *)impl)->model->nodes; }
static double node_s(const void *impl, int i) { return ((const mixed_sim *)impl)->model->s[i]; }

static void node_pose(const void *impl, int i, cr_vec3 *r, cr_quat *q)
{
    const mixed_sim *s = impl;
    *r = cr_state_position(s->state, i);
    *q = cr_q_normalize(cr_state_orientation(s->state, i));
}

static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const mixed_sim *s = impl;
    *v = cr_state_velocity(s->state, i);
    *w = cr_state_angular_velocity(s->state, i);
}

static int sample_count(const void *impl) { return ((const mixed_sim *)impl)->model->n; }
static double sample_s(const void *impl, int e) { return ((const mixed_sim *)impl)->model->el[e].s_mid; }

static void sample(const void *impl, int e, cr_vec3 *g, cr_vec3 *k, cr_vec3 *n, cr_vec3 *m)
{
    const mixed_sim *s = impl;
    cr_state_element(s->model, s->state, e, g, k, n, m);
}

static double time_of(const void *impl) { return cr_state_time(((const mixed_sim *)impl)->state); }
static double load_factor(const void *impl) { return cr_state_load_factor(((const mixed_sim *)impl)->state); }

static cr_status reaction(const void *impl, int i, cr_vec3 *f, cr_vec3 *m)
{
    const mixed_sim *s = impl;
    return cr_state_reaction(s->model, s->state, i, f, m);
}

static int contact(const void *impl, int node, cr_contact_sample *out)
{
    const mixed_sim *s = impl;
    const cr_contact *c = s->model->contact;
    if (!c) return 0;
    cr_contact_info in;
    cr_contact_set_time(s->model->contact, cr_state_time(s->state)); /* moving obstacles */
    cr_contact_wrench w;
    cr_contact_node_wrench(c, node, cr_state_position(s->state, node), cr_state_orientation(s->state, node), NULL, &w,
                           0, &in);
    out->force = w.f;
    out->normal = in.normal, out->gap = in.gap, out->state = in.active ? (in.slipping ? 2 : 1) : 0,
    out->tolerance = c->tol;
    return 1;
}

static int body_count(const void *impl) { return ((const mixed_sim *)impl)->model->body_count; }
static const char *body_name(const void *impl, int j) { return ((const mixed_sim *)impl)->model->bodies[j].name; }

static void body_pose(const void *impl, int j, cr_vec3 *c, cr_mat3 *axes)
{
    const mixed_sim *s = impl;
    cr_state_body_pose(s->model, s->state, j, c, axes);
}

/* the energy dissipated by damping in the stage so far (rod.damping; 0 without),
 * the same name and meaning as the port-Hamiltonian rod's column */
static const char *const extra_names[] = {"energy_dissipated", "contact_active", "contact_sliding",
                                          "contact_normal_force", "contact_penetration"};

/* with obstacles, the contacts too: touching nodes, sliding ones, the sum of the normal forces
 * (N), the largest penetration (m) */
static int series_extra(const void *impl, const char *const **names)
{
    const cr_model *m = ((const mixed_sim *)impl)->model;
    if (m->selfcontact) { /* self-contact: the pairs pressing, the smallest gap of the pairs within reach */
        static const char *const self_only[] = {"energy_dissipated", "self_contact_pairs", "self_contact_gap"};
        static const char *const both[] = {"energy_dissipated",    "contact_active",      "contact_sliding",
                                           "contact_normal_force", "contact_penetration", "self_contact_pairs",
                                           "self_contact_gap"};
        *names = m->contact ? both : self_only;
        return m->contact ? 7 : 3;
    }
    *names = extra_names;
    return m->contact ? 5 : 1;
}

static double *load_input(void *impl) { return ((mixed_sim *)impl)->state->load_input; }

/* checkpoints: the state (load inputs included), the integrator memory, then the contact's
 * multipliers, anchors and stick/slide states (re-anchored at the resumed state, a rod that
 * was sliding would stick again and one that was sticking would lose its stored friction) */
static int packed_size(const void *impl)
{
    const mixed_sim *s = impl;
    return cr_state_packed_size(s->model) + cr_dynamic_memory_size(s->model) +
           cr_contact_packed_size(s->model->contact);
}

static void pack(const void *impl, double *out)
{
    const mixed_sim *s = impl;
    const int ns = cr_state_packed_size(s->model), nm = cr_dynamic_memory_size(s->model);
    cr_state_pack(s->state, out);
    memcpy(out + ns, s->memory, (size_t)nm * sizeof(double));
    cr_contact_pack(s->model->contact, out + ns + nm);
}

static void unpack(void *impl, const double *in)
{
    mixed_sim *s = impl;
    const int ns = cr_state_packed_size(s->model), nm = cr_dynamic_memory_size(s->model);
    cr_state_unpack(s->state, in);
    memcpy(s->memory, in + ns, (size_t)nm * sizeof(double));
    cr_contact_unpack(s->model->contact, in + ns + nm);
}
static uint64_t fingerprint(const void *impl) { return cr_model_fingerprint(((const mixed_sim *)impl)->model); }

const cr_formulation cr_mixed_formulation = {
    .name = "mixed_discrete",
    /* measured 2.2 kB static; 39 kB dynamic: the Radau stage vectors and the real and complex block factorizations,
       plus 25 % */
    .bytes_per_element_static = 3e3,
    .bytes_per_element_dynamic = 5e4,
    .check = mixed_check,
    .create = mixed_create,
    .destroy = mixed_destroy,
    .static_stage = mixed_static,
    .dynamic_stage = mixed_dynamic,
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
    .series_extra = series_extra,
    .load_input = load_input,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .fingerprint = fingerprint,
    .assembly = &cr_mixed_assembly_formulation,
};

const cr_model *cr_sim_mixed_model(const cr_sim *sim)
{
    return sim && sim->f == &cr_mixed_formulation ? ((const mixed_sim *)sim->impl)->model : NULL;
}

cr_state *cr_sim_mixed_state(cr_sim *sim)
{
    return sim && sim->f == &cr_mixed_formulation ? ((mixed_sim *)sim->impl)->state : NULL;
}
