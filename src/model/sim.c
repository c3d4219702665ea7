/* cr_sim: the formulation-neutral handle (sim.h) over the formulation table
 * (formulation.h), and the registry of built-in formulations. */
#include "model/formulation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cr_formulation *const formulations[] = {&cr_mixed_formulation, &cr_lgvi_formulation, &cr_ph_formulation};
enum { FORMULATION_COUNT = sizeof formulations / sizeof formulations[0] };

const cr_formulation *cr_formulation_find(const char *name)
{
    for (int k = 0; k < FORMULATION_COUNT; ++k)
        if (strcmp(formulations[k]->name, name) == 0) return formulations[k];
    return NULL;
}

const char *cr_formulation_names(void)
{
    static char names[256];
    if (!names[0])
        for (int k = 0; k < FORMULATION_COUNT; ++k) {
            if (k) strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, formulations[k]->name, sizeof names - strlen(names) - 1);
        }
    return names;
}

cr_model_options cr_model_default_options(void)
{
    cr_model_options o;
    memset(&o, 0, sizeof o);
    strcpy(o.type, "mixed_discrete");
    o.dilatation = 1;
    o.newton_atol = 1e-10;
    return o;
}

cr_sim *cr_sim_create(const cr_rod_def *def, const cr_model_options *options, cr_error *err)
{
    cr_model_options defaults = cr_model_default_options();
    if (!options) options = &defaults;
    const cr_formulation *f = cr_formulation_find(options->type);
    if (!f) {
        cr_error_set(err, CR_BAD_INPUT, "model.type: unknown formulation \"%s\" (expected one of %s)", options->type,
                     cr_formulation_names());
        return NULL;
    }
    cr_sim *sim = calloc(1, sizeof *sim);
    if (!sim) {
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    sim->f = f;
    sim->options = *options;
    sim->load_count = def->load_count;
    sim->load_type = malloc((def->load_count > 0 ? def->load_count : 1) * sizeof *sim->load_type);
    if (!sim->load_type) {
        free(sim);
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (int k = 0; k < def->load_count; ++k) sim->load_type[k] = def->loads[k].type;
    if (def->rigid_body_count > 0 && (!(sim->body_def_mass = malloc(def->rigid_body_count * sizeof(double))) ||
                                      !(sim->body_def_node = malloc(def->rigid_body_count * sizeof(int))))) {
        free(sim->body_def_mass);
        free(sim->load_type);
        free(sim);
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (int k = 0; k < def->rigid_body_count; ++k) {
        const int node = def->rigid_bodies[k].node; /* negative: from the end, as the model reads it */
        sim->body_def_node[sim->body_def_count] = node < 0 ? node + def->elements + 1 : node;
        sim->body_def_mass[sim->body_def_count++] = def->rigid_bodies[k].mass;
    }
    sim->impl = f->create(def, options, err);
    if (!sim->impl) {
        free(sim->body_def_node);
        free(sim->body_def_mass);
        free(sim->load_type);
        free(sim);
        return NULL;
    }
    return sim;
}

cr_sim *cr_sim_create_scenario(const cr_scenario *sc, cr_error *err)
{
    if (!cr_scenario_is_assembly(sc)) return cr_sim_create(&sc->rod, &sc->model, err);
    const cr_formulation *f = cr_formulation_find(sc->model.type);
    if (!f) return cr_sim_create(&sc->rod, &sc->model, err); /* its message */
    if (!f->assembly) {
        cr_formulation_refuse_assembly(sc, f->name, err);
        return NULL;
    }
    cr_sim *sim = calloc(1, sizeof *sim);
    int loads = 0;
    for (int r = 0; r < sc->rod_count; ++r) loads += sc->rods[r].rod.load_count;
    if (sim) sim->load_type = malloc((loads > 0 ? loads : 1) * sizeof *sim->load_type);
    if (!sim || !sim->load_type) {
        free(sim);
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    sim->f = f->assembly;
    sim->options = sc->model;
    int welded = 0;
    for (int r = 0; r < sc->rod_count; ++r) welded += sc->rods[r].rod.rigid_body_count;
    if (welded > 0 && (!(sim->body_def_mass = malloc(welded * sizeof(double))) ||
                       !(sim->body_def_node = malloc(welded * sizeof(int))))) {
        free(sim->body_def_mass);
        free(sim->load_type);
        free(sim);
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (int r = 0; r < sc->rod_count; ++r) /* numbered as the bodies: welded ones rod by rod first */
        for (int k = 0; k < sc->rods[r].rod.rigid_body_count; ++k)
            sim->body_def_mass[sim->body_def_count++] = sc->rods[r].rod.rigid_bodies[k].mass;
    for (int r = 0; r < sc->rod_count; ++r) /* rod by rod, as the rods' definitions list them */
        for (int k = 0; k < sc->rods[r].rod.load_count; ++k)
            sim->load_type[sim->load_count++] = sc->rods[r].rod.loads[k].type;
    cr_assembly_def def = {.rod_count = sc->rod_count,
                           .rods = sc->rods,
                           .joint_count = sc->joint_count,
                           .joints = sc->joints,
                           .body_count = sc->body_count,
                           .bodies = sc->bodies,
                           .body_load_count = sc->body_load_count,
                           .body_loads = sc->body_loads};
    sim->impl = sim->f->create_assembly(&def, &sc->model, err);
    if (sim->impl) /* the welded bodies' nodes, numbered as the sim numbers the nodes: rod by rod */
        for (int r = 0, j = 0; r < sc->rod_count; ++r)
            for (int k = 0; k < sc->rods[r].rod.rigid_body_count; ++k, ++j) {
                const int node = sc->rods[r].rod.rigid_bodies[k].node;
                sim->body_def_node[j] =
                    cr_sim_rod_first_node(sim, r) + (node < 0 ? node + sc->rods[r].rod.elements + 1 : node);
            }
    if (!sim->impl) {
        free(sim->body_def_node);
        free(sim->body_def_mass);
        free(sim->load_type);
        free(sim);
        return NULL;
    }
    return sim;
}

cr_status cr_formulation_refuse_assembly(const cr_scenario *sc, const char *formulation, cr_error *err)
{
    if (sc->rod_count > 1)
        return cr_error_set(err, CR_BAD_INPUT,
                            "rods: the %s model takes one rod; assemblies of several rods are available in models "
                            "mixed_discrete and port_hamiltonian (statics and dynamics) and lgvi (dynamics)",
                            formulation);
    return cr_error_set(err, CR_BAD_INPUT,
                        "joints: the %s model has no joints; joints are available in models mixed_discrete and "
                        "port_hamiltonian (statics and dynamics) and lgvi (dynamics)",
                        formulation);
}

void cr_sim_destroy(cr_sim *sim)
{
    if (!sim) return;
    sim->f->destroy(sim->impl);
    free(sim->body_def_node);
    free(sim->body_def_mass);
    free(sim->load_type);
    free(sim);
}

const char *cr_sim_formulation(const cr_sim *sim) { return sim->f->name; }
int cr_sim_node_count(const cr_sim *sim) { return sim->f->node_count(sim->impl); }
double cr_sim_node_s(const cr_sim *sim, int node) { return sim->f->node_s(sim->impl, node); }

cr_vec3 cr_sim_position(const cr_sim *sim, int node)
{
    cr_vec3 r;
    cr_quat q;
    sim->f->node_pose(sim->impl, node, &r, &q);
    return r;
}

cr_quat cr_sim_orientation(const cr_sim *sim, int node)
{
    cr_vec3 r;
    cr_quat q;
    sim->f->node_pose(sim->impl, node, &r, &q);
    return q;
}

cr_vec3 cr_sim_velocity(const cr_sim *sim, int node)
{
    cr_vec3 v, w;
    sim->f->node_velocity(sim->impl, node, &v, &w);
    return v;
}

cr_vec3 cr_sim_angular_velocity(const cr_sim *sim, int node)
{
    cr_vec3 v, w;
    sim->f->node_velocity(sim->impl, node, &v, &w);
    return w;
}

int cr_sim_sample_count(const cr_sim *sim) { return sim->f->sample_count(sim->impl); }
double cr_sim_sample_s(const cr_sim *sim, int k) { return sim->f->sample_s(sim->impl, k); }

void cr_sim_sample(const cr_sim *sim, int k, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *n, cr_vec3 *m)
{
    sim->f->sample(sim->impl, k, gamma, kappa, n, m);
}

double cr_sim_time(const cr_sim *sim) { return sim->f->time(sim->impl); }
double cr_sim_load_factor(const cr_sim *sim) { return sim->f->load_factor(sim->impl); }

cr_status cr_sim_reaction(const cr_sim *sim, int node, cr_vec3 *force, cr_vec3 *moment)
{
    if (node < 0 || node >= cr_sim_node_count(sim)) return CR_BAD_INPUT;
    return sim->f->reaction ? sim->f->reaction(sim->impl, node, force, moment) : CR_BAD_INPUT;
}

int cr_sim_contact(const cr_sim *sim, int node, cr_contact_sample *out)
{
    if (node < 0 || node >= cr_sim_node_count(sim) || !sim->f->contact) return 0;
    return sim->f->contact(sim->impl, node, out);
}

int cr_sim_body_count(const cr_sim *sim) { return sim->f->body_count ? sim->f->body_count(sim->impl) : 0; }
const char *cr_sim_body_name(const cr_sim *sim, int body) { return sim->f->body_name(sim->impl, body); }

void cr_sim_body_pose(const cr_sim *sim, int body, cr_vec3 *center, cr_mat3 *axes)
{
    sim->f->body_pose(sim->impl, body, center, axes);
}

void cr_sim_get_node_s(const cr_sim *sim, double *out)
{
    for (int i = 0; i < cr_sim_node_count(sim); ++i) out[i] = cr_sim_node_s(sim, i);
}

void cr_sim_get_positions(const cr_sim *sim, double *out)
{
    for (int i = 0; i < cr_sim_node_count(sim); ++i) cr_v3_store(cr_sim_position(sim, i), out + 3 * i);
}

void cr_sim_get_orientations(const cr_sim *sim, double *out)
{
    for (int i = 0; i < cr_sim_node_count(sim); ++i) cr_q_store(cr_sim_orientation(sim, i), out + 4 * i);
}

void cr_sim_get_sample_s(const cr_sim *sim, double *out)
{
    for (int k = 0; k < cr_sim_sample_count(sim); ++k) out[k] = cr_sim_sample_s(sim, k);
}

void cr_sim_get_samples(const cr_sim *sim, double *out)
{
    for (int k = 0; k < cr_sim_sample_count(sim); ++k) {
        cr_vec3 v[4];
        cr_sim_sample(sim, k, &v[0], &v[1], &v[2], &v[3]);
        for (int j = 0; j < 4; ++j) cr_v3_store(v[j], out + 12 * k + 3 * j);
    }
}

void cr_sim_get_velocities(const cr_sim *sim, double *out)
{
    for (int i = 0; i < cr_sim_node_count(sim); ++i) {
        cr_vec3 v, w;
        sim->f->node_velocity(sim->impl, i, &v, &w);
        cr_v3_store(v, out + 6 * i);
        cr_v3_store(w, out + 6 * i + 3);
    }
}

/* ---- assemblies: one rod "rod" and no joints for a one-rod table ---- */
int cr_sim_rod_count(const cr_sim *sim) { return sim->f->rod_count ? sim->f->rod_count(sim->impl) : 1; }

const char *cr_sim_rod_name(const cr_sim *sim, int rod)
{
    if (rod < 0 || rod >= cr_sim_rod_count(sim)) return NULL;
    return sim->f->rod_name ? sim->f->rod_name(sim->impl, rod) : "rod";
}

int cr_sim_rod_first_node(const cr_sim *sim, int rod)
{
    if (sim->f->rod_first_node) return sim->f->rod_first_node(sim->impl, rod);
    return rod <= 0 ? 0 : cr_sim_node_count(sim);
}

int cr_sim_rod_first_sample(const cr_sim *sim, int rod)
{
    if (sim->f->rod_first_sample) return sim->f->rod_first_sample(sim->impl, rod);
    return rod <= 0 ? 0 : cr_sim_sample_count(sim);
}

int cr_sim_node_rod(const cr_sim *sim, int node)
{
    int r = 0, n = cr_sim_rod_count(sim);
    while (r + 1 < n && node >= cr_sim_rod_first_node(sim, r + 1)) ++r;
    return r;
}

int cr_sim_joint_count(const cr_sim *sim) { return sim->f->joint_count ? sim->f->joint_count(sim->impl) : 0; }

const char *cr_sim_joint_name(const cr_sim *sim, int joint)
{
    if (joint < 0 || joint >= cr_sim_joint_count(sim)) return NULL;
    return sim->f->joint_name(sim->impl, joint);
}

cr_status cr_sim_joint_reaction(const cr_sim *sim, int joint, cr_vec3 *force, cr_vec3 *moment)
{
    if (joint < 0 || joint >= cr_sim_joint_count(sim)) return CR_BAD_INPUT;
    return sim->f->joint_reaction(sim->impl, joint, force, moment);
}

cr_status cr_sim_set_joint_drive_input(cr_sim *sim, int joint, double value)
{
    if (joint < 0 || joint >= cr_sim_joint_count(sim) || !isfinite(value) || !sim->f->set_joint_drive_input)
        return CR_BAD_INPUT;
    return sim->f->set_joint_drive_input(sim->impl, joint, value);
}

double cr_sim_joint_drive_input(const cr_sim *sim, int joint)
{
    if (joint < 0 || joint >= cr_sim_joint_count(sim) || !sim->f->joint_drive_input) return NAN;
    return sim->f->joint_drive_input(sim->impl, joint);
}

int cr_sim_joint_limit(const cr_sim *sim, int joint, int which, double *value, double *force)
{
    if (joint < 0 || joint >= cr_sim_joint_count(sim) || !sim->f->joint_limit) return 0;
    return sim->f->joint_limit(sim->impl, joint, which, value, force);
}

double cr_sim_body_mass(const cr_sim *sim, int body)
{
    if (body < 0 || body >= cr_sim_body_count(sim)) return NAN;
    double m = sim->f->body_mass ? sim->f->body_mass(sim->impl, body) : NAN;
    return isfinite(m) || body >= sim->body_def_count ? m : sim->body_def_mass[body];
}

cr_status cr_sim_body_velocity(const cr_sim *sim, int body, cr_vec3 *velocity, cr_vec3 *angular_velocity)
{
    const cr_vec3 nan3 = {NAN, NAN, NAN};
    cr_vec3 v = nan3, w = nan3;
    cr_status st = CR_OK;
    if (body < 0 || body >= cr_sim_body_count(sim)) {
        st = CR_BAD_INPUT;
    } else if (body < sim->body_def_count) {
        /* welded: the body moves rigidly with its node, v_c = v + ω × (c − r), ω = A Ω */
        const int node = sim->body_def_node[body];
        cr_vec3 c;
        cr_mat3 R;
        cr_sim_body_pose(sim, body, &c, &R);
        const cr_mat3 A = cr_q_exp(cr_sim_orientation(sim, node));
        const cr_vec3 wi = cr_m3_mulv(A, cr_sim_angular_velocity(sim, node));
        v = cr_v3_add(cr_sim_velocity(sim, node), cr_v3_cross(wi, cr_v3_sub(c, cr_sim_position(sim, node))));
        w = cr_m3_mulv(cr_m3_transpose(R), wi);
    } else if (sim->f->body_velocity) {
        sim->f->body_velocity(sim->impl, body, &v, &w);
    } else {
        st = CR_UNSUPPORTED;
    }
    if (velocity) *velocity = v;
    if (angular_velocity) *angular_velocity = w;
    return st;
}

/* ---- actuator inputs ---- */
int cr_sim_load_count(const cr_sim *sim) { return sim->load_count; }

const char *cr_sim_load_type(const cr_sim *sim, int load)
{
    static const char *const names[] = {"force",   "moment", "force_density", "moment_density",
                                        "gravity", "tendon", "chamber"};
    if (load < 0 || load >= sim->load_count) return NULL;
    int t = (int)sim->load_type[load];
    return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

cr_status cr_sim_set_load_input(cr_sim *sim, int load, double factor)
{
    if (load < 0 || load >= sim->load_count || !isfinite(factor)) return CR_BAD_INPUT;
    sim->f->load_input(sim->impl)[load] = factor;
    return CR_OK;
}

double cr_sim_load_input(const cr_sim *sim, int load)
{
    if (load < 0 || load >= sim->load_count) return NAN;
    return sim->f->load_input(sim->impl)[load];
}

/* ---- options of one formulation under another (formulation.h) ---- */
static int is_model(const char *model, const char *name) { return strcmp(model, name) == 0; }

cr_status cr_foreign_options_check(const cr_scenario *sc, const char *model, cr_error *err)
{
    const cr_model_options *o = &sc->model, d = cr_model_default_options();
    const char *remove = "remove the key or choose that model";
    if (!is_model(model, "lgvi")) {
        const char *key = o->dilatation != d.dilatation ? "dilatation"
                          : o->chart != d.chart         ? "chart"
                          : o->strains != d.strains     ? "strains"
                                                        : NULL;
        if (key)
            return cr_error_set(err, CR_BAD_INPUT, "model.%s: an option of the lgvi model; the %s model has no %s (%s)",
                                key, model, key, remove);
    }
    if (!is_model(model, "mixed_discrete") && !is_model(model, "lgvi") && sc->rod.contact.self)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.self: contact of a rod with itself is the mixed_discrete and lgvi models'; the "
                            "%s model has none (%s)",
                            model, remove);
    if (!is_model(model, "port_hamiltonian") && sc->rod.contact.stick_speed > 0)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.stick_speed: the regularization speed of the port_hamiltonian model's "
                            "friction; the %s model has none (%s)",
                            model, remove);
    if (!is_model(model, "mixed_discrete") && !is_model(model, "lgvi") && sc->rod.contact.rods)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.rods: contact between the rods of an assembly is the mixed_discrete and lgvi "
                            "models'; the %s model has none (%s)",
                            model, remove);
    if (!is_model(model, "port_hamiltonian")) {
        if (o->branch_count > 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "model.viscoelastic: generalized-Maxwell branches are an option of the "
                                "port_hamiltonian model; the %s model has none (%s)%s",
                                model, remove,
                                is_model(model, "mixed_discrete")
                                    ? "; the mixed_discrete model's material damping is rod.damping (Kelvin-Voigt)"
                                    : "");
        if (o->newton_atol != d.newton_atol)
            return cr_error_set(err, CR_BAD_INPUT,
                                "model.newton_atol: an option of the port_hamiltonian model (the tolerance of its "
                                "midpoint steps); the %s model has none (%s)",
                                model, remove);
    }
    /* stage options: compared with their defaults, which every formulation's stage starts from */
    const cr_dynamic_options dd = cr_dynamic_default_options();
    const cr_static_options sd = cr_static_default_options();
    for (int k = 0; k < sc->stage_count; ++k) {
        const cr_stage_def *s = &sc->stages[k];
        const char *key = NULL;
        if (s->type == CR_STAGE_DYNAMIC && !is_model(model, "mixed_discrete")) {
            const cr_dynamic_options *y = &s->dynamics;
            key = y->rtol != dd.rtol       ? "rtol"
                  : y->atol != dd.atol     ? "atol"
                  : y->h_init != dd.h_init ? "h_init"
                  : y->h_max != dd.h_max   ? "h_max"
                                           : NULL;
            if (key)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "stages.%d.%s: an option of the mixed_discrete model's adaptive (Radau IIA) "
                                    "dynamic stages; the %s model steps with a fixed time_step and has no %s: remove "
                                    "the key (the step size is time_step) or choose the mixed_discrete model",
                                    k, key, model, key);
        }
        if (s->type == CR_STAGE_STATIC && is_model(model, "port_hamiltonian")) {
            const cr_static_options *y = &s->statics;
            key = y->max_iterations != sd.max_iterations ? "max_iterations"
                  : y->atol != sd.atol                   ? "atol"
                  : y->rtol != sd.rtol                   ? "rtol"
                                                         : NULL;
            if (key)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "stages.%d.%s: an option of the mixed_discrete model's static Newton iteration; "
                                    "the port_hamiltonian model's static steps converge to model.newton_atol and have "
                                    "no %s: remove the key or choose the mixed_discrete model",
                                    k, key, key);
            if (y->stability != sd.stability)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "stages.%d.stability: the stability estimate of static equilibria is the "
                                    "mixed_discrete model's; the port_hamiltonian model does not estimate it: remove "
                                    "the key or choose the mixed_discrete model",
                                    k);
        }
    }
    return CR_OK;
}
