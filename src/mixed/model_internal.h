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

/* A support (boundary condition) of the model: the degrees of freedom it holds,
 * its frame, and the motion of its target (cosserat/model.h, cr_bc_def). */
typedef struct cr_support {
    int node;
    unsigned hold;          /* CR_HOLD_* */
    unsigned stages;        /* bit mask, 0 = every stage */
    cr_mat3 axes;           /* frame axes (columns) in I */
    cr_vec3 ref_r, dr;      /* reference position and target - reference */
    cr_quat ref_p;          /* reference orientation */
    cr_vec3 phi;            /* rotation vector (I) of the whole motion: A(f) = Exp(f φ) A_ref */
    cr_time_function time;  /* motion factor in dynamics (points owned by the model) */
    int driven;             /* the time function is not constant, or a table of poses */
    /* table of poses: cubic segments (6 channels: position in I, rotation vector in I)
     * on [motion_t[j], motion_t[j+1]], coefficients motion_c[(j*6 + ch)*4 + 0..3] of
     * 1, u, u², u³ with u = t - motion_t[j]; owned by the model */
    int motion_count;
    double *motion_t, *motion_c;
} cr_support;

/* Where a support's target is: the motion factor f (statics: the ramped value;
 * dynamics: f(t)) and, for a support that starts in the middle of a run, the pose
 * it starts from (blend 0 → 1 moves the node from there to the target). */
typedef struct cr_supports_at {
    int stage;
    double ramp;             /* statics: 0 ... 1 ramp of the motion factor; dynamics: 1 */
    double t;                /* time for the time functions */
    const double *from;      /* NULL, or 7 per support (r, p); NaN in [0] = none */
    double from_blend;       /* 0: at `from`, 1: at the target */
    /* statics: hold the twist of node gauge_node about its own axis at gauge_p (its
     * start orientation), the gauge of a circular rod held only by pins
     * (cr_mixed_twist_gauge); 0 = none */
    int gauge, gauge_node;
    double gauge_p[4];
} cr_supports_at;

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
    /* supports, and for each node whether some support ever holds it */
    int support_count;
    cr_support *supports;
    cr_material material;
    /* contact with obstacles (src/contact/contact.h), NULL without: its multipliers and
     * stick anchors are the static solve's working state, updated between Newton solves */
    struct cr_contact *contact;
    /* contact of the rod with itself (src/mixed/selfcontact.c), NULL without: the pairs, their
     * multipliers, and the far-node coupling of the last Jacobian (a low-rank term) */
    struct cr_rodcontact *selfcontact;
    struct cr_lowrank *couple;
    struct cr_lowrank *couple_dyn; /* dynamics: momentum rows × position columns */
};

struct cr_state {
    const cr_model *model;
    double load_factor;     /* of the last static solve */
    double bc_factor;       /* ramp of the supports' motion: 0 reference ... 1 f(t) (after the first stage) */
    int stage;              /* the stage the state belongs to (its active supports) */
    int dynamic;            /* 1: a dynamic state (reactions include inertia), 0: an equilibrium */
    double *load_scale;     /* magnitude factor of each load the state is in equilibrium with */
    double *load_input;     /* actuator input per load (default 1): a factor on its magnitude in dynamic stages */
    double *x;              /* nodes * block unknowns (static layout) */
    /* dynamics: velocities (nodes × 6: v in I, Ω in B) and element stresses (n × 6) */
    double *velocity;
    double *stress;
    double time;
};

/* Where the supports of a state are. */
static inline cr_supports_at cr_state_supports_at(const cr_state *s)
{
    cr_supports_at at = {.stage = s->stage, .ramp = s->bc_factor, .t = s->time, .from = NULL, .from_blend = 1.0};
    return at;
}

/* Pose of node i in a state vector x. */
static inline cr_vec3 cr_x_position(const cr_model *m, const double *x, int i)
{
    return cr_v3_load(x + (size_t)i * m->block);
}
static inline cr_quat cr_x_orientation(const cr_model *m, const double *x, int i)
{
    return cr_q_load(x + (size_t)i * m->block + 3);
}

/* Whether support k is active in stage `stage` (like loads: 0 = every stage; no
 * support is active in stage -1). */
static inline int cr_support_active(const cr_support *sp, int stage)
{
    if (stage < 0) return 0; /* stage -1: every support released (reactions) */
    return sp->stages == 0 || (stage < 32 && ((sp->stages >> stage) & 1u));
}

/* Target pose of support k at motion factor f. */
void cr_support_pose(const cr_support *sp, double f, cr_vec3 *r, cr_quat *p);

/* Target of support k where `at` says (statics: ramp × f(t), blended from a start
 * pose; dynamics: f(t)), with its velocity (v in I, ω in I) and acceleration
 * (optional, may be NULL). */
void cr_support_target(const cr_model *m, int k, const cr_supports_at *at, cr_vec3 *r, cr_quat *p, cr_vec3 *v,
                       cr_vec3 *w, cr_vec3 *a, cr_vec3 *alpha);

/* Strains of an element from its two nodal poses (eq. 7). */
void cr_element_strains(const cr_element *e, cr_vec3 ra, cr_quat pa, cr_vec3 rb, cr_quat pb,
                        cr_vec3 *gamma, cr_vec3 *kappa);

/* The contact parameters of the mixed rod (obstacles and self-contact alike): each node's
 * contact radius (contact.radius, else the section's: a circle's radius, a rectangle's larger
 * half side; none for a resultants section: CR_BAD_INPUT naming contact.radius and `remedy`),
 * ε (contact.stiffness, else the largest element min(EA/L_el, 12 EI/L_el³)) and the
 * tolerance (contact.tolerance, else 1e-4 × the smallest radius). radius: m->nodes doubles. */
cr_status cr_mixed_contact_params(const cr_model *m, const cr_rod_def *def, const char *remedy, double *radius,
                                  double *eps, double *tol, cr_error *err);

#endif
