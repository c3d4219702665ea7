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
    sim->impl = f->create(def, options, err);
    if (!sim->impl) {
        free(sim->load_type);
        free(sim);
        return NULL;
    }
    return sim;
}

void cr_sim_destroy(cr_sim *sim)
{
    if (!sim) return;
    sim->f->destroy(sim->impl);
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
