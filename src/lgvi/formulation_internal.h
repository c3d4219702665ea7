/* The LGVI rod's scenario adapter (formulation.c) as its assemblies (assembly.c) use it:
 * one rod's discretization, loads and series row. */
#ifndef COSSERAT_LGVI_FORMULATION_INTERNAL_H
#define COSSERAT_LGVI_FORMULATION_INTERNAL_H

#include "lgvi/lgvi.h"
#include "model/formulation.h"

struct cr_contact;

typedef struct lgvi_sim {
    cr_lgvi *k;
    cr_lgvi_params p;
    int nodes;
    double *s;                /* node arc lengths */
    double *s_mid;            /* element midpoints */
    cr_vec3 *gamma0, *kappa0; /* reference strains in the library's components (x axial) */
    double *lumped;           /* lumped length per node (half of each adjacent element) */
    int load_count;
    cr_load_def *loads;   /* copies (time tables owned) */
    cr_vec3 *f, *c;       /* per-step nodal loads (spatial) */
    double *stage_factor; /* per load: 1 if active in the running stage */
    double *input;        /* per load: actuator input (default 1), a factor on its magnitude */
    /* obstacles (NULL without): frictionless penalty springs, their forces at t_k passed to the
     * kernel with the loads (explicit, as every force of the scheme) */
    struct cr_contact *contact;
    cr_vec3 *fc;                            /* contact forces of the step (spatial) */
    double contact_energy;                  /* ½ Σ k_i min(0, g)² at the energies' level t_k */
    double contact_work, contact_work_last; /* the kernel's discrete work of fc, Σ w_j and w_k */
    /* Coulomb friction (an obstacle with friction; NULL without): per node whether its last step
     * slid */
    unsigned char *sliding;
    /* contact.self (NULL without): the segment pairs' penalty forces (contact/rodcontact.h), at t_k
     * with the obstacles' into fc, their energy and work with the obstacles' (docs/lgvi.md
     * "Self-contact"); xs the node positions as its flat array (3 a node) */
    struct cr_rodcontact *self;
    double *xs;
    /* clamps moved to a `position` by a `time` factor (docs/lgvi.md "Damping and moving clamps"):
     * the kernel's external nodes, their pose prescribed at every step; the clamps' work (their
     * reaction's discrete work, Σ w_j and w_k) */
    int moving_count;
    int moving_node[2];
    cr_vec3 moving_ref[2], moving_target[2];
    cr_time_function moving_time[2]; /* table points owned */
    double clamp_work, clamp_work_last;
    /* rod.damping's drag and rotational_drag (kernel body components; 0: none) */
    cr_vec3 drag, rotational_drag;
} lgvi_sim;

/* the nodal loads s->f, s->c at time t (the running stage's factors and the inputs) */
void cr_lgvi_sim_sample_loads(lgvi_sim *s, double t);
/* the series row of the rod's current state */
void cr_lgvi_sim_fill_sample(const lgvi_sim *s, cr_dynamic_sample *smp);

/* several LGVI rods joined by shared joint nodes (assembly.c) */
extern const cr_formulation cr_lgvi_assembly_formulation;

#endif
