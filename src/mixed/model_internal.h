/* Internal layout of cr_model and cr_state (not part of the public API). */
#ifndef COSSERAT_MODEL_INTERNAL_H
#define COSSERAT_MODEL_INTERNAL_H

#include "cosserat/mixed.h"

#include <stddef.h>

/* Unknowns per node block: r (3), p (4), then the multipliers of the rigid strain
 * components of the element to the node's right (spec §2, §7.5). */
#define CR_NODE_DOF 7
#define CR_MAX_BLOCK (CR_NODE_DOF + 6)

typedef struct cr_element {
    double length;          /* reference chord L_i^el (spec §7.2) */
    double s_mid;           /* arc length of the midpoint */
    cr_vec3 k_force;        /* (EA, GA, GA) at the midpoint */
    cr_vec3 k_moment;       /* (GJ_x, EI_y, EI_z) at the midpoint */
    cr_vec3 gamma0, kappa0; /* reference strains (eq. 7 on the reference) */
} cr_element;

typedef struct cr_tendon {
    double tension;
    int first, last;        /* node range it runs through */
    cr_vec3 *offset;        /* body-frame offset at nodes first..last */
} cr_tendon;

typedef struct cr_model_load {
    cr_load_type type;
    cr_frame frame;
    int node;               /* point loads: the node (for body loads: the body's node) */
    int body;               /* -1, or the rigid body the load acts on (at its centre) */
    cr_vec3 value;
    int tendon;             /* TENDON: index into cr_model.tendons */
    unsigned stages;        /* bit mask, 0 = every stage */
    cr_time_function time;  /* points owned by the model */
} cr_model_load;

/* A rigid body welded to a node (its pose relative to the node is constant). */
typedef struct cr_body {
    char name[64];
    int node;
    double mass;
    cr_vec3 offset;         /* centre of mass in the node's body basis */
    cr_mat3 inertia;        /* about the centre, node body basis */
    cr_mat3 relative;       /* body axes in the node basis: A_body = A_node relative */
} cr_body;

struct cr_model {
    int n;                  /* elements */
    int nodes;              /* n + 1 */
    double length;
    int rigid_count;        /* rigid strain components per element */
    int rigid_index[6];     /* which of (γx,γy,γz,κx,κy,κz) are rigid */
    unsigned rigid_mask;
    int block;              /* CR_NODE_DOF + rigid_count */
    double *s;              /* nodal arc length */
    double *lumped_length;  /* L_i of eq. (1) */
    double *rho_area;       /* ρA(s_i) at nodes (mass per length) */
    double *node_mass;      /* m_i = ρ L_i A_i (eq. 1) */
    cr_vec3 *node_inertia;  /* Θ_i = ρ L_i (J_x, I_y, I_z) (eq. 1) */
    /* damping (damping.c): Kelvin–Voigt relaxation times of each element's six strain
     * components (n × 6, NULL when none) and the drag coefficients per unit length */
    double *kv_tau;
    cr_vec3 drag, rotational_drag;
    int drag_active;
    cr_vec3 *ref_r;
    cr_quat *ref_p;
    cr_element *el;
    /* loads, each with its own magnitude factor (load factor in statics, time
     * function in dynamics) */
    int load_count;
    cr_model_load *loads;
    int body_count;
    cr_body *bodies;
    int tendon_count;
    cr_tendon *tendons;
    /* boundary conditions: bc_type[i] = -1 when node i is free */
    int *bc_type;
    cr_vec3 *bc_position;
    cr_quat *bc_orientation;
    cr_material material;
};

struct cr_state {
    const cr_model *model;
    double load_factor;     /* of the last static solve */
    double bc_factor;       /* prescribed poses: 0 reference ... 1 target */
    double *load_scale;     /* magnitude factor of each load the state is in equilibrium with */
    double *x;              /* nodes * block unknowns (static layout) */
    /* dynamics: velocities (nodes × 6: v in I, Ω in B) and element stresses (n × 6) */
    double *velocity;
    double *stress;
    double time;
};

/* Pose of node i in a state vector x. */
static inline cr_vec3 cr_x_position(const cr_model *m, const double *x, int i)
{
    return cr_v3_load(x + (size_t)i * m->block);
}
static inline cr_quat cr_x_orientation(const cr_model *m, const double *x, int i)
{
    return cr_q_load(x + (size_t)i * m->block + 3);
}

/* Target pose of a constrained node at load factor lf (clamp: reference pose;
 * prescribed pose: interpolated from the reference, linearly in r, slerp in p). */
void cr_model_bc_target(const cr_model *m, int node, double lf, cr_vec3 *r, cr_quat *p);

/* Strains of an element from its two nodal poses (eq. 7). */
void cr_element_strains(const cr_element *e, cr_vec3 ra, cr_quat pa, cr_vec3 rb, cr_quat pb,
                        cr_vec3 *gamma, cr_vec3 *kappa);

#endif
