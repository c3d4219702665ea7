/* cosserat — formulation-independent description of a rod problem.
 *
 * A cr_rod_def is a plain description filled by the caller (or by the scenario
 * parser): geometry, sections, material, reference configuration, boundary
 * conditions and loads. Initialize it with cr_rod_default_def(); arrays it points
 * to stay owned by the caller. cr_model_create() discretizes it into an immutable
 * cr_model that copies everything it needs, so the definition may be freed after.
 *
 * Units: SI or any consistent system. Arc length s in [0, L]; ξ = s/L.
 * Frames: "inertial" (I) components or "body" components in the nodal basis B
 * (columns of A = Exp(p), e_x = tangent of the reference).
 */
#ifndef COSSERAT_MODEL_H
#define COSSERAT_MODEL_H

#include "cosserat/base.h"
#include "cosserat/contact.h"
#include "cosserat/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reference (stress-free) configuration ---- */
typedef enum cr_reference_type {
    CR_REFERENCE_STRAIGHT = 0, /* r(s) = origin + s e_x, constant frame `orientation` */
    CR_REFERENCE_HELIX = 1,    /* helix about the I_z axis through `origin`, Serret–Frenet frames */
    CR_REFERENCE_NODES = 2     /* arbitrary nodal poses given by the caller */
} cr_reference_type;

typedef struct cr_reference_def {
    cr_reference_type type;
    /* straight: position of s = 0. helix: the point on the helix axis at the height of s = 0. */
    cr_vec3 origin;
    /* straight: the (unit) frame of every node; its first column is the tangent. */
    cr_quat orientation;
    /* helix: r(α) = origin + R(-sin α, cos α, c α), c = pitch/(2πR), α = s/(R√(1+c²)).
     * Frames: e_x = tangent, e_y = principal normal (towards the axis), e_z = e_x × e_y. */
    double helix_radius; /* R > 0 */
    double helix_pitch;  /* rise per turn, may be 0 (a ring) or negative (left-handed) */
    /* nodes: elements + 1 positions and quaternions (normalized by the model; consecutive
     * quaternions are flipped into the same hemisphere). The chord sum sets the length. */
    int node_count;
    const cr_vec3 *node_positions;
    const cr_quat *node_orientations;
} cr_reference_def;

/* ---- cross sections: piecewise segments over ξ, each property constant or linearly tapered ---- */
typedef enum cr_section_shape {
    CR_SECTION_CIRCLE = 0,    /* radius; J_x = 2 I (spec §7.3) */
    CR_SECTION_RECTANGLE = 1, /* width along body y, height along body z; Saint-Venant J_x */
    CR_SECTION_RESULTANTS = 2 /* stiffness and inertia resultants given directly (the papers' benchmarks) */
} cr_section_shape;

typedef struct cr_section_segment {
    double xi_end;            /* segment spans (previous xi_end, xi_end]; last one ends at 1 */
    cr_section_shape shape;
    double radius[2];         /* value at the segment start and end (equal: constant) */
    double width[2];
    double height[2];
    /* CR_SECTION_RESULTANTS: values at the segment start and end, each > 0.
     * The polar inertia is rhoI_y + rhoI_z. Material E, G, rho are not used. */
    double EA[2], GA_y[2], GA_z[2], GJ[2], EI_y[2], EI_z[2];
    double rhoA[2], rhoI_y[2], rhoI_z[2];
    /* Shear correction k of circle and rectangle sections: GA_y = GA_z = k G A.
     * 0 means the default k = 1 (no correction, as in the papers); a value in (0, 2];
     * or CR_SHEAR_TIMOSHENKO for Cowper's k from the shape and ν = E/(2G) - 1.
     * Must stay 0 for CR_SECTION_RESULTANTS (GA_y, GA_z are given there). */
    double shear_coefficient;
} cr_section_segment;

#define CR_SHEAR_TIMOSHENKO (-1.0)

/* Cowper's shear coefficient (G. R. Cowper, "The shear coefficient in Timoshenko's
 * beam theory", J. Appl. Mech. 33 (1966) 335-340, Table 1) of a solid circle,
 * 6(1+ν)/(7+6ν), or rectangle, 10(1+ν)/(12+11ν), for Poisson's ratio ν > -1;
 * 1 for CR_SECTION_RESULTANTS. */
double cr_shear_coefficient_cowper(cr_section_shape shape, double nu);

typedef struct cr_material {
    double E;   /* Young's modulus, > 0 (unused when every section gives resultants) */
    double G;   /* shear modulus, > 0 (idem) */
    double rho; /* mass density; 0 allowed when no gravity/inertia is needed */
} cr_material;

/* Bit mask of strain components that are rigid (zero compliance, spec §2):
 * the compliance equation of that component becomes a constraint. */
enum {
    CR_RIGID_GAMMA_X = 1 << 0, /* inextensible */
    CR_RIGID_GAMMA_Y = 1 << 1, /* shear rigid (y) */
    CR_RIGID_GAMMA_Z = 1 << 2, /* shear rigid (z) */
    CR_RIGID_KAPPA_X = 1 << 3, /* torsion rigid */
    CR_RIGID_KAPPA_Y = 1 << 4,
    CR_RIGID_KAPPA_Z = 1 << 5
};

/* ---- loads (all scaled by the load factor in statics) ---- */
typedef enum cr_load_type {
    CR_LOAD_FORCE = 0,          /* point force at `node` */
    CR_LOAD_MOMENT = 1,         /* point moment at `node` */
    CR_LOAD_FORCE_DENSITY = 2,  /* distributed force per unit length, lumped to nodes (eq. 1) */
    CR_LOAD_MOMENT_DENSITY = 3, /* distributed moment per unit length, lumped to nodes */
    CR_LOAD_GRAVITY = 4,        /* acceleration `value` acting on rho A (and on rigid bodies) */
    CR_LOAD_TENDON = 5,         /* tendon polyline through offset points at the nodes (spec §8.2) */
    CR_LOAD_CHAMBER = 6         /* pressurized chamber along the rod at a constant section offset: an
                                   axial force p·A there (port-Hamiltonian rod, its spec §8) */
} cr_load_type;

typedef enum cr_frame {
    CR_FRAME_INERTIAL = 0, /* dead load: fixed components in I */
    CR_FRAME_BODY = 1      /* follower load: fixed components in the nodal body basis */
} cr_frame;

/* Tendon offset d(s) from the centerline, in body components (0, d_y, d_z). */
typedef enum cr_offset_type {
    CR_OFFSET_CONSTANT = 0,        /* d = (0, y, z) */
    CR_OFFSET_RADIUS_FRACTION = 1, /* d = f ρ(s) (0, cos θ, sin θ), ρ(s) = section radius
                                      (circle) or half the extent in that direction (rectangle) */
    CR_OFFSET_TABLE = 2            /* piecewise-linear table over ξ */
} cr_offset_type;

typedef struct cr_offset_point {
    double xi, y, z;
} cr_offset_point;

typedef struct cr_tendon_offset {
    cr_offset_type type;
    double y, z;           /* CONSTANT */
    double fraction;       /* RADIUS_FRACTION: f */
    double angle;          /* RADIUS_FRACTION: θ in radians, measured from body y towards body z */
    int point_count;       /* TABLE: at least 2 points, ξ strictly increasing, covering [xi_start, xi_end] */
    const cr_offset_point *points;
} cr_tendon_offset;

/* ---- time functions: factors on load magnitudes in dynamic stages ---- */
typedef enum cr_time_function_type {
    CR_TIME_CONSTANT = 0,   /* f(t) = 1 */
    CR_TIME_RAMP = 1,       /* 0 before t0, linear to 1 at t1, 1 after */
    CR_TIME_TABLE = 2,      /* piecewise linear through (t_k, v_k), constant outside the table */
    CR_TIME_SINE = 3,       /* offset + amplitude sin(2π frequency t + phase); with t1 > t0 only on [t0, t1], 0 outside */
    CR_TIME_SMOOTH_STEP = 4 /* 0 before t0, quintic C² step to 1 at t1, 1 after */
} cr_time_function_type;

typedef struct cr_time_point {
    double t, value;
} cr_time_point;

typedef struct cr_time_function {
    cr_time_function_type type;
    double t0, t1;                             /* RAMP, SMOOTH_STEP: t0 < t1; SINE: optional window */
    double amplitude, frequency, phase, offset; /* SINE (frequency in Hz, phase in rad) */
    int point_count;                           /* TABLE: >= 2 points, t strictly increasing */
    const cr_time_point *points;
} cr_time_function;

/* Value of a time function at time t (s, measured from the start of the first dynamic stage). */
double cr_time_function_eval(const cr_time_function *f, double t);
/* f(t) and its first two derivatives (0 where f is constant; one-sided at the
 * kinks of ramps and tables, which drive supports with a velocity jump there). */
void cr_time_function_eval_d(const cr_time_function *f, double t, double *value, double *rate, double *accel);

/* ---- supports (boundary conditions) ----
 * A support holds some of a node's six degrees of freedom at a target pose:
 * translations along and rotations about the three axes of its frame. The
 * target is the reference pose moved by a factor f of the prescribed motion:
 *     r(f) = r_ref + f (position - r_ref),   A(f) = Exp(f φ) A_ref
 * with φ the rotation vector in inertial components (any number of turns; a
 * quaternion target gives the shortest-arc φ). f ramps with the load factor in
 * static stages and follows `time` in dynamic stages. */
typedef enum cr_bc_type {
    CR_BC_CLAMP = 0,  /* all six held */
    CR_BC_POSE = 1,   /* all six held at `position` and `orientation` (both required) */
    CR_BC_PIN = 2,    /* the three translations held, rotation free */
    CR_BC_SUPPORT = 3 /* the degrees of freedom in `hold` */
} cr_bc_type;

enum {
    CR_HOLD_X = 1 << 0, /* translation along frame axis 1 */
    CR_HOLD_Y = 1 << 1,
    CR_HOLD_Z = 1 << 2,
    CR_HOLD_RX = 1 << 3, /* rotation about frame axis 1 */
    CR_HOLD_RY = 1 << 4,
    CR_HOLD_RZ = 1 << 5,
    CR_HOLD_TRANSLATION = 7,
    CR_HOLD_ROTATION = 7 << 3,
    CR_HOLD_ALL = 63
};

typedef enum cr_bc_rotation {
    CR_BC_ROTATION_NONE = 0,       /* the reference orientation */
    CR_BC_ROTATION_QUATERNION = 1, /* `orientation`, reached along the shortest arc */
    CR_BC_ROTATION_VECTOR = 2      /* `rotation`: a rotation vector of any length (turns are kept) */
} cr_bc_rotation;

/* A row of a table of poses: at time t the node is at `position` (I), turned by the
 * rotation vector `rotation` (frame components) from its reference orientation. */
typedef struct cr_bc_motion_point {
    double t;
    cr_vec3 position;
    cr_vec3 rotation;
} cr_bc_motion_point;

typedef struct cr_bc_def {
    cr_bc_type type;
    int node;             /* node index; negative counts from the end (-1 = last node) */
    unsigned hold;        /* CR_BC_SUPPORT: CR_HOLD_* mask (other types imply theirs) */
    cr_frame frame;       /* axes of `hold` and `rotation`: inertial, or body = the node's reference frame */
    int has_position;     /* 1: move to `position` (CR_BC_POSE always) */
    cr_vec3 position;     /* target position (I) */
    cr_bc_rotation rotation_kind; /* CR_BC_POSE: QUATERNION */
    cr_quat orientation;  /* target orientation (unit) for QUATERNION */
    cr_vec3 rotation;     /* rotation vector (rad) in `frame` components for VECTOR */
    cr_time_function time; /* motion factor f(t) in dynamic stages (default constant 1: held at the target) */
    unsigned stages;      /* bit k set: active in stage k; 0 = every stage */
    /* a table of poses instead of position/rotation/time (>= 2 rows, t increasing):
     * a cubic spline through them, at rest at the first and last row (C² inside), held
     * at the first pose before it and at the last after it */
    int motion_count;
    const cr_bc_motion_point *motion;
} cr_bc_def;

/* The CR_HOLD_* mask a support holds (clamp and pose: all; pin: translations). */
unsigned cr_bc_hold(const cr_bc_def *bc);


typedef struct cr_load_def {
    cr_load_type type;
    int node;          /* FORCE, MOMENT: node index, negative counts from the end */
    int body;          /* FORCE, MOMENT: index of a rigid body (its centre, its frame), -1 = on the rod */
    cr_time_function time;  /* magnitude factor in dynamic stages (default constant 1) */
    unsigned stages;   /* bit k set: active in stage k; 0 = active in every stage */
    cr_frame frame;    /* FORCE, MOMENT, *_DENSITY */
    cr_vec3 value;     /* force (N), moment (N m), densities (N/m, N m/m), gravity (m/s²) */
    /* TENDON */
    double tension;    /* N, >= 0 */
    cr_tendon_offset offset; /* TENDON, CHAMBER */
    /* CHAMBER: gauge pressure (Pa, >= 0) times chamber area (m², > 0) pushes on the section */
    double pressure, area;
    double xi_start, xi_end; /* the tendon runs through the nodes with ξ in [xi_start, xi_end] */
} cr_load_def;

/* ---- rigid bodies welded to nodes ---- */
typedef struct cr_rigid_body_def {
    char name[64];
    int node;          /* welded (6-DOF) to this node with the relative pose of the reference */
    double mass;       /* > 0 */
    cr_vec3 center;    /* centre of mass in I, in the reference configuration */
    cr_mat3 inertia;   /* inertia tensor about the centre, I components, reference configuration */
    cr_quat orientation; /* body axes in I at the reference (for reported angles); default identity */
} cr_rigid_body_def;

/* ---- damping (dynamics of the mixed discrete rod only; statics ignore it) ---- */
typedef struct cr_damping_def {
    /* Kelvin–Voigt material damping, λ_k = K_k (Δε_k + τ_k dε_k/dt) for the strain
     * components (γx, γy, γz, κx, κy, κz): either relaxation times τ_k (s), or viscous
     * coefficients C_k (N s for the forces, N m² s for the moments; τ_k = C_k / K_k with
     * the element's stiffness K_k). Not both; all >= 0, 0 = none. */
    double relaxation_time[6];
    double coefficients[6];
    /* Linear viscous drag per unit length on the nodes: force -L_i A diag(drag) Aᵀ v_i
     * (N s/m², body components: x tangential, y and z normal) and body moment
     * -L_i diag(rotational_drag) Ω_i (N s), L_i the lumped length. All >= 0. */
    cr_vec3 drag;
    cr_vec3 rotational_drag;
} cr_damping_def;

/* 1 when any damping coefficient of d is nonzero. */
int cr_damping_active(const cr_damping_def *d);

/* ---- the whole rod ---- */
typedef struct cr_rod_def {
    double length;   /* L; for CR_REFERENCE_NODES it is recomputed from the chords */
    int elements;    /* n >= 1 */
    cr_reference_def reference;
    int section_count;
    const cr_section_segment *sections;
    cr_material material;
    unsigned rigid_strains; /* CR_RIGID_* mask, same on every element */
    int bc_count;
    const cr_bc_def *bcs;
    int load_count;
    const cr_load_def *loads;
    int rigid_body_count;
    const cr_rigid_body_def *rigid_bodies;
    cr_damping_def damping; /* zero: undamped */
    /* rigid obstacles the rod touches (cosserat/contact.h; mixed_discrete statics only) */
    int obstacle_count;
    const cr_obstacle_def *obstacles;
    cr_contact_def contact; /* zeros: the defaults */
} cr_rod_def;

/* A definition with everything empty/zero and sensible defaults (identity frame,
 * straight reference, xi ranges [0, 1]). */
cr_rod_def cr_rod_default_def(void);
cr_load_def cr_load_default_def(void);
cr_bc_def cr_bc_default_def(void);
cr_section_segment cr_section_default_def(void);
cr_rigid_body_def cr_rigid_body_default_def(void);

/* Section properties at ξ: area and second moments (I_y about body y, I_z about
 * body z) and torsion constant J_x. Returns CR_BAD_INPUT when ξ is out of range.
 * For CR_SECTION_RESULTANTS the geometric values are 0 (use cr_section_resultants_eval). */
typedef struct cr_section_props {
    double A, Jx, Iy, Iz;
    double extent_y, extent_z; /* half extents (radius for circles) */
} cr_section_props;
cr_status cr_section_eval(const cr_rod_def *def, double xi, cr_section_props *out);

/* Ranges of derived quantities (docs/scenario.md): lengths (rod length, element
 * length, helix radius and pitch, section dimensions, chords of a nodes reference)
 * in [CR_ROD_LENGTH_MIN, CR_ROD_LENGTH_MAX], coordinates (origin, node positions)
 * within ±CR_ROD_LENGTH_MAX, section resultants (stiffnesses; inertias unless 0) in
 * [CR_ROD_RESULTANT_MIN, CR_ROD_RESULTANT_MAX], every reference pose finite. */
#define CR_ROD_LENGTH_MIN 1e-12
#define CR_ROD_LENGTH_MAX 1e12
#define CR_ROD_RESULTANT_MIN 1e-150
#define CR_ROD_RESULTANT_MAX 1e150

/* Checks a definition (ranges, sizes, references between its parts, the derived
 * quantities above) and returns CR_BAD_INPUT with a message naming the field on
 * the first problem. Every formulation runs this before discretizing. */
cr_status cr_rod_validate(const cr_rod_def *def, cr_error *err);

/* Stiffness and inertia resultants of the section at ξ, from a shape and the
 * material or given directly (CR_SECTION_RESULTANTS). Body axes: x along the
 * rod, y and z in the section. */
typedef struct cr_section_resultants {
    double EA, GA_y, GA_z;   /* axial and shear stiffness (N) */
    double GJ, EI_y, EI_z;   /* torsional and bending stiffness (N m²) */
    double rhoA;             /* mass per unit length (kg/m) */
    double rhoJ_x, rhoI_y, rhoI_z; /* rotational inertia per unit length (kg m): polar, about y, about z */
} cr_section_resultants;
cr_status cr_section_resultants_eval(const cr_rod_def *def, double xi, cr_section_resultants *out);

/* Reference pose at arc length s for straight and helical references (the
 * nodal reference gives poses at its nodes only: CR_BAD_INPUT elsewhere). */
cr_status cr_rod_reference_pose(const cr_rod_def *def, double s, cr_vec3 *position, cr_quat *orientation);

/* Magnitude factors (1 active, 0 inactive) of the def's loads in stage `stage`
 * (cr_load_def.stages); `out` holds def->load_count values. */
void cr_rod_stage_load_factors(const cr_rod_def *def, int stage, double *out);

#ifdef __cplusplus
}
#endif
#endif
