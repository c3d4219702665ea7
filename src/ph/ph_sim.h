/* The port-Hamiltonian rod's scenario adapter (formulation.c), shared with its assemblies
 * (ph_assembly_formulation.c): one rod's discretized model, its loads and their magnitudes. */
#ifndef COSSERAT_PH_SIM_H
#define COSSERAT_PH_SIM_H

#include "model/formulation.h"
#include "ph/ph.h"

typedef struct ph_sim {
    cr_ph *k;
    cr_ph_params p;
    int nodes; /* 2n + 1 */
    int load_count;
    cr_load_def *loads;   /* copies, time tables owned */
    double *scale;        /* per load: magnitude the state is in equilibrium with (static stages) */
    double *stage_factor; /* per load: 1 if active in the running stage */
    double *input;        /* per load: actuator input (default 1), a factor in dynamic stages */
    cr_vec3 *f, *c;       /* per-step nodal point loads (spatial) */
    double load_factor;   /* of the last static stage */
    int contact;          /* obstacles (planes) present */
    double contact_tol;   /* contact.tolerance, else 1e-4 a */
    int friction;         /* a plane has friction (the series get contact_sliding) */
    int max_updates;      /* contact.max_updates: static friction's multiplier updates after the load steps */
} ph_sim;

/* ph_create / ph_destroy of the one-rod table */
void *cr_ph_sim_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err);
void cr_ph_sim_destroy(void *impl);
/* the kernel loads for the given magnitudes (per load); act: the actuation stress storage */
void cr_ph_sim_loads(ph_sim *s, const double *magnitude, cr_ph_loads *L, double act[6]);
/* s->scale = stage factor x input x time function at t (dynamic stages) */
void cr_ph_sim_dynamic_magnitudes(ph_sim *s, double t);
/* The one-rod check of sc->rod; in_assembly: a static stage needs no clamp of this rod (another's). */
cr_status cr_ph_sim_check_rod(const cr_scenario *sc, int in_assembly, cr_error *err);

extern const cr_formulation cr_ph_assembly_formulation;

#endif
