/* The table of functions through which the scenario runner drives a formulation.
 *
 * A formulation (src/mixed/, src/lgvi/, ...) discretizes the shared cr_rod_def
 * into its own model and state, runs static and dynamic stages, and answers the
 * formulation-neutral accessors of cr_sim (include/cosserat/sim.h). The runner,
 * writers, checkpoints, progress, signals and Python see only this table, chosen
 * by name; nothing above it branches on the formulation. */
#ifndef COSSERAT_FORMULATION_H
#define COSSERAT_FORMULATION_H

#include "cosserat/scenario.h"
#include "cosserat/sim.h"

#include <stdint.h>

/* Callbacks a stage reports to; `user` is passed back. Any may be NULL. */
typedef struct cr_stage_callbacks {
    /* after each accepted load step of a static stage; nonzero stops (CR_INTERRUPTED) */
    int (*on_load_step)(cr_sim *sim, const cr_load_step_report *step, int index, void *user);
    /* at every output time of a dynamic stage (the sim holds the state at that time) */
    int (*on_output)(cr_sim *sim, const cr_dynamic_sample *sample, void *user);
    /* after each accepted step: next step size, steps so far, external work up to the state's time */
    int (*on_step)(cr_sim *sim, double h, long steps, double work_external, void *user);
    void *user;
    /* 1: on_output may change the load inputs (cr_sim_set_load_input); each input then
     * holds from that output time to the next. The fixed-step formulations read the inputs
     * at every step anyway; the mixed rod integrates output interval by interval (its
     * assemblies too, and then also take the drives' inputs, cr_sim_set_joint_drive_input). */
    int inputs_live;
} cr_stage_callbacks;

typedef struct cr_formulation {
    const char *name;
    /* Peak memory per element (bytes) of a static and of a dynamic stage, for the memory
     * estimate checked before a run (measured: peak resident set of a 1e5-element steel-wire
     * cantilever, plus 25 %). */
    double bytes_per_element_static, bytes_per_element_dynamic;
    /* Rejects, naming the key and the formulation, whatever in the scenario this
     * formulation cannot represent (load types, supports, stage types, options). */
    cr_status (*check)(const cr_scenario *scenario, cr_error *err);
    void *(*create)(const cr_rod_def *def, const cr_model_options *options, cr_error *err);
    void (*destroy)(void *impl);
    /* A static stage: loads ramp from the state's current magnitudes to the stage's. */
    cr_status (*static_stage)(cr_sim *sim, int stage, const cr_static_options *options, const cr_stage_callbacks *cb,
                              cr_static_report *report, cr_error *err);
    /* A dynamic stage from the state's time to t_stage_start + options->t_end; h0 > 0
     * restarts with that step (checkpoints); work_external carries over a resumed stage. */
    cr_status (*dynamic_stage)(cr_sim *sim, int stage, double t_stage_start, double h0, double work_external,
                               const cr_dynamic_options *options, const cr_stage_callbacks *cb,
                               cr_dynamic_report *report, cr_error *err);
    /* accessors (see sim.h) */
    int (*node_count)(const void *impl);
    double (*node_s)(const void *impl, int node);
    void (*node_pose)(const void *impl, int node, cr_vec3 *position, cr_quat *orientation);
    void (*node_velocity)(const void *impl, int node, cr_vec3 *v, cr_vec3 *omega);
    int (*sample_count)(const void *impl);
    double (*sample_s)(const void *impl, int sample);
    void (*sample)(const void *impl, int sample, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *n, cr_vec3 *m);
    double (*time)(const void *impl);
    double (*load_factor)(const void *impl);
    cr_status (*reaction)(const void *impl, int node, cr_vec3 *force, cr_vec3 *moment);
    int (*body_count)(const void *impl);
    const char *(*body_name)(const void *impl, int body);
    void (*body_pose)(const void *impl, int body, cr_vec3 *center, cr_mat3 *axes);
    /* optional: contact of a node with obstacles (cr_sim_contact): 1 and *out, or 0 without */
    int (*contact)(const void *impl, int node, cr_contact_sample *out);
    /* names of the formulation's extra series columns (cr_dynamic_sample.extra); returns the count */
    int (*series_extra)(const void *impl, const char *const **names);
    /* the actuator input of each load (the definition's load_count doubles, 1 at create): a
     * factor on the load's magnitude in dynamic stages, kept with the state (packed) */
    double *(*load_input)(void *impl);
    /* checkpoints: the whole state as doubles (load inputs included), and a hash of the discretized model.
     * packed_size: what pack writes for the state as it is (it may vary with the state: contact
     * anchors; the fixed-step formulations' energy watch grows its copy with it, fixed_step.c); unpacked_size (NULL:
     * packed_size, a fixed size): the doubles unpack would read from a pack of n doubles, −1 when they are not this
     * sim's (a resume compares it with n) */
    int (*packed_size)(const void *impl);
    void (*pack)(const void *impl, double *out);
    long (*unpacked_size)(const void *impl, const double *in, long n);
    void (*unpack)(void *impl, const double *in);
    uint64_t (*fingerprint)(const void *impl);
    /* ---- assemblies (cr_scenario_is_assembly: several rods, or joints) ----
     * The table that runs this formulation's assemblies (NULL: none; its check refuses them).
     * That table's create_assembly replaces create; its accessors number the nodes, samples
     * and bodies of all rods rod by rod, and the loads rod by rod as in the rods' definitions.
     * In a one-rod table the functions below are NULL (one rod "rod", no joints). */
    const struct cr_formulation *assembly;
    void *(*create_assembly)(const cr_assembly_def *def, const cr_model_options *options, cr_error *err);
    int (*rod_count)(const void *impl);
    const char *(*rod_name)(const void *impl, int rod);
    int (*rod_first_node)(const void *impl, int rod);   /* rod = rod_count: node_count */
    int (*rod_first_sample)(const void *impl, int rod); /* rod = rod_count: sample_count */
    int (*joint_count)(const void *impl);
    const char *(*joint_name)(const void *impl, int joint);
    /* the wrench joint j applies on its first node (force in I, moment in I about that node) */
    cr_status (*joint_reaction)(const void *impl, int joint, cr_vec3 *force, cr_vec3 *moment);
    /* optional: joint j's drive input (cr_sim_set_joint_drive_input); NULL: no drives */
    cr_status (*set_joint_drive_input)(void *impl, int joint, double value);
    double (*joint_drive_input)(const void *impl, int joint);
    /* optional: joint j's limit `which` (cr_assembly_joint_limit); NULL or 0: none */
    int (*joint_limit)(const void *impl, int joint, int which, double *value, double *force);
    /* optional: the mass of body j (NULL: the rods' definitions give it) */
    double (*body_mass)(const void *impl, int body);
    /* optional: the velocity of free body j's centre (I) and its angular velocity (its axes);
     * NULL: cr_sim_body_velocity reports a free body's as unavailable (welded bodies move with
     * their nodes and need no hook) */
    void (*body_velocity)(const void *impl, int body, cr_vec3 *v, cr_vec3 *w);
} cr_formulation;

struct cr_sim {
    const cr_formulation *f;
    void *impl;
    cr_model_options options;
    int load_count;
    cr_load_type *load_type; /* per load, for names in bindings */
    int body_def_count;      /* the welded bodies' masses from the rods' definitions, rod by rod, */
    double *body_def_mass;   /* for cr_sim_body_mass when the formulation does not report one */
    int *body_def_node;      /* the welded bodies' nodes in the sim's numbering (cr_sim_body_velocity) */
};

/* The formulation called `name`, or NULL. */
const cr_formulation *cr_formulation_find(const char *name);
/* "a, b, c": the names of the built-in formulations, for messages. */
const char *cr_formulation_names(void);

/* The check ops' common part: options of another formulation that the scenario sets (model
 * options, and stage options other than their defaults) are refused, naming the key and the
 * formulation they belong to. `model` ignores them, and a scenario switched to it must not
 * lose them without a word. */
cr_status cr_foreign_options_check(const cr_scenario *sc, const char *model, cr_error *err);

extern const cr_formulation cr_mixed_formulation;
extern const cr_formulation cr_lgvi_formulation;
extern const cr_formulation cr_ph_formulation;
extern const cr_formulation cr_mixed_assembly_formulation;
/* The mixed rod's checks (src/mixed/formulation.c), shared with its assemblies: one rod's,
 * and that every static stage has a support active in it (any rod's for an assembly). */
cr_status cr_mixed_check_rod(const cr_scenario *sc, cr_error *err);
cr_status cr_mixed_check_static_supports(const cr_scenario *sc, cr_error *err);

/* The scenario's rod or assembly discretized by its formulation (the assembly table for an
 * assembly); NULL with err filled as cr_sim_create. */
cr_sim *cr_sim_create_scenario(const cr_scenario *scenario, cr_error *err);
/* The check of an assembly's scenario that every formulation without an assembly table
 * gives: the key (rods or joints) and the formulation named. */
cr_status cr_formulation_refuse_assembly(const cr_scenario *scenario, const char *formulation, cr_error *err);

#endif
