/* cosserat — assemblies: several rods joined by exact joints (docs/theory.md, "Assemblies").
 *
 * A cr_assembly_def lists named rods, each a cr_rod_def as for one rod (its own
 * supports, loads and rigid bodies), free rigid bodies, and joints between two rod nodes or
 * points of free bodies. A joint is an
 * ideal constraint with Lagrange multipliers (not a spring): its reaction wrench is
 * reported. The definition's arrays stay owned by the caller; cr_assembly_create copies
 * what it needs.
 *
 * This version: the mixed discrete rod's statics (cr_assembly_static_solve) and dynamics
 * (cr_assembly_dynamic_solve: the joints stay exact, their multipliers index-1 algebraic
 * unknowns of the rods' Radau IIA DAE). Joints join nodes whose reference positions
 * coincide (a prismatic or cylindrical joint's then slide apart along its axis); a node
 * that carries a joint carries no support of its own rod (support the other rod's node
 * instead), and in dynamics no rigid body; a rod with rigid strain components may be held
 * (by supports and joints) at one node only, and has no dynamics. */
#ifndef COSSERAT_ASSEMBLY_H
#define COSSERAT_ASSEMBLY_H

#include "cosserat/dynamics.h"
#include "cosserat/statics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_joint_type {
    CR_JOINT_WELD = 0,  /* all six relative degrees of freedom held: A_b = A_a R, r_b = r_a */
    CR_JOINT_BALL = 1,  /* the relative translation held (spherical joint) */
    CR_JOINT_HINGE = 2, /* ball + the two relative rotations normal to `axis` (revolute joint) */
    /* the relative rotation held, the relative translation only along `axis` (a's body frame,
     * turning with a): b's point stays on the line through a's point along that axis */
    CR_JOINT_PRISMATIC = 3,
    /* the relative translation only along `axis` and the rotation only about it: a
     * prismatic joint that also turns about its axis (a hinge that slides along it) */
    CR_JOINT_CYLINDRICAL = 4,
    /* ball + the relative rotation about the common normal of two body-fixed axes held:
     * `axis` fixed to a and `axis_b` fixed to b stay perpendicular, (A_a h_a)·(A_b h_b) = 0
     * (a Cardan joint: b turns freely about h_a and about h_b, not about h_a × h_b) */
    CR_JOINT_UNIVERSAL = 5
} cr_joint_type;

/* A node of a rod: rod index into cr_assembly_def.rods, node index (negative counts
 * from the end: -1 = last node). */
typedef struct cr_rod_node {
    int rod;
    int node;
} cr_rod_node;

typedef struct cr_joint_def {
    char name[64]; /* optional, for messages ("" = joints.K) */
    cr_joint_type type;
    cr_rod_node a, b; /* the two joined nodes ("first" = a) */
    /* or an end on a free rigid body (cr_assembly_def.bodies) instead of the node a (b):
     * body_a (body_b) = that body's index + 1 (0: the node), point_a (point_b) = the joint's
     * point in the body's coordinates (from its centre, along its axes). The joint's frame at
     * a body is the body's frame (its axes in the reference: the body's orientation). */
    int body_a, body_b;
    cr_vec3 point_a, point_b;
    /* weld: 0 = keep the relative rotation R = A_a,refᵀ A_b,ref of the reference; 1 = R is
     * `rotation` (unit quaternion, a's body frame). A rotation that differs from the
     * reference's is reached through the load steps of the solve (the joint closes). */
    int has_rotation;
    cr_quat rotation;
    /* hinge, prismatic, cylindrical, universal: the axis in a's reference body frame
     * (nonzero; normalized). */
    cr_vec3 axis;
    /* universal: b's axis, given in a's reference body frame (as `axis`; fixed to b from
     * the reference on), perpendicular to `axis` (within 1e-6 rad) */
    cr_vec3 axis_b;
    /* hinge, cylindrical (drive_slide = 0): a drive (has_drive = 1) holds the relative rotation
     * about `axis` (right-handed, from the reference) at θ = drive_angle · f, f the load factor in statics and
     * drive_time(t) in dynamic stages: one more constraint row (the motor), whose moment
     * cr_assembly_joint_reaction includes. Any number of turns (the row measures the
     * difference between the actual and the prescribed rotation, never the angle itself). */
    int has_drive;
    double drive_angle; /* rad */
    cr_time_function drive_time;
    /* A spring and a damper along the joint's free directions, about the reference
     * configuration (0 = none; >= 0, finite). `stiffness`, `damping`: about a hinge's or a
     * cylindrical joint's axis (N m/rad, N m s/rad: moment −k φ − c φ̇, φ the relative rotation
     * about the axis, measured in (−π, π]), along a prismatic joint's axis (N/m, N s/m: force
     * −k x − c ẋ on b, x the slide), or isotropic about a ball or universal joint's relative
     * rotation D = Rot(n, ψ) from the reference (N m/rad: energy ½ k sin²ψ, moment k sin ψ cos ψ
     * about n, i.e. k ψ for small ψ; the damper's c acts on the rate of sin ψ n). `slide_*`: a
     * cylindrical joint's along its axis (N/m, N s/m). Each spring is one compliant row
     * 0 = k g + c ġ + λ with λ its multiplier (exact Jacobian, energy ½ k g²). */
    double stiffness, damping;
    double slide_stiffness, slide_damping;
    /* the springs' rest position (0: the reference): `rest` the angle φ0 (rad) of a hinge's or
     * cylindrical joint's spring, or the slide x0 (m) of a prismatic joint's; `slide_rest` a
     * cylindrical joint's x0. The spring acts on φ − φ0 (in (−π, π]) or x − x0; the rest is
     * reached through the load steps of the solve, as a weld's rotation (rest · f). */
    double rest, slide_rest;
    /* prismatic, cylindrical: drive_slide = 1 makes the drive hold the slide along `axis` at
     * X = drive_position · f (m; f as for the angle) instead of a rotation (a cylindrical
     * joint's drive is either) */
    int drive_slide;
    double drive_position;
    /* bit k set: the joint acts in stage k; 0 = in every stage. In a stage where it does not
     * act, its multipliers are 0 (its nodes move apart freely: a released weld). */
    unsigned stages;
    /* Limits (stops) along the joint's free directions, unilateral: has_limit = 1 keeps a
     * hinge's or cylindrical joint's rotation φ about `axis` (rad, from the reference, unwrapped:
     * it counts whole turns, so a range beyond ±π holds) or a prismatic joint's slide x (m) within
     * [limit[0], limit[1]]; has_slide_limit = 1 keeps a cylindrical joint's slide within
     * slide_limit (m). lo <= hi, finite. The stop is an augmented Lagrangian in statics (exact to
     * the tolerance, as obstacle contact) and a penalty spring of stiffness limit_stiffness
     * (N m/rad, or N/m for a prismatic joint; slide_limit_stiffness N/m) in dynamics; 0: the
     * default (docs/scenario.md "joints"). */
    int has_limit, has_slide_limit;
    double limit[2], slide_limit[2];
    double limit_stiffness, slide_limit_stiffness;
} cr_joint_def;

typedef struct cr_assembly_rod_def {
    char name[64]; /* unique, nonempty */
    cr_rod_def rod;
} cr_assembly_rod_def;

typedef struct cr_assembly_def {
    int rod_count; /* >= 1 */
    const cr_assembly_rod_def *rods;
    int joint_count;
    const cr_joint_def *joints;
    /* Free rigid bodies (6 degrees of freedom each: the position of the centre of mass and
     * the rotation), held only by the joints that name them (node is ignored; orientation:
     * the body's axes in the reference, in which a joint's point and a body-frame load are
     * given; inertia about the centre in I components). In dynamics the inertia must be
     * diagonal in the body's axes (give the principal moments with the axes as orientation). */
    int body_count;
    const cr_rigid_body_def *bodies;
    /* Their loads: CR_LOAD_FORCE (at the centre) and CR_LOAD_MOMENT with `body` the index
     * into bodies (frame: INERTIAL fixed in I, BODY turning with the body), and
     * CR_LOAD_GRAVITY (on every free body, its `body` ignored); time, stages as a rod's loads. */
    int body_load_count;
    const cr_load_def *body_loads;
} cr_assembly_def;

cr_assembly_def cr_assembly_default_def(void);
/* A weld (reference rotation kept) with both nodes 0 of rod 0: set type, a, b. */
cr_joint_def cr_joint_default_def(void);
/* "weld", "ball", "hinge", "prismatic", "cylindrical", "universal" ("?" out of range). */
const char *cr_joint_type_name(cr_joint_type type);

/* Largest distance (m) between the reference positions of a joint's two points that counts
 * as none, relative to the longest rod: CR_JOINT_GAP_TOL × that length. A larger one is the
 * joint's gap: the mixed rod's assembly (cr_assembly_create) closes it through the load steps
 * of the first static solve (its position rows hold r_b − r_a = (1 − f)(r_b − r_a)_ref, f the
 * closing factor going 0 → 1 with that solve's load factor; exact from then on); a dynamic
 * stage before it refuses it, and so do the port_hamiltonian and lgvi models. */
#define CR_JOINT_GAP_TOL 1e-9

/* Checks a definition (every rod as cr_rod_validate, names, joint references, joint nodes
 * without supports) and returns CR_BAD_INPUT with a message naming the field (rods.K.FIELD,
 * joints.K.FIELD) on the first problem. A joint's gap (CR_JOINT_GAP_TOL) is not checked here:
 * the model decides. */
cr_status cr_assembly_validate(const cr_assembly_def *def, cr_error *err);

/* ---- the discretized assembly (mixed discrete rods) ---- */
typedef struct cr_assembly cr_assembly;

/* Validates and discretizes; NULL and err filled on bad input (CR_BAD_INPUT), or
 * CR_UNSUPPORTED for a rod with rigid strain components held at two or more nodes. */
cr_assembly *cr_assembly_create(const cr_assembly_def *def, cr_error *err);
void cr_assembly_destroy(cr_assembly *assembly);

int cr_assembly_rod_count(const cr_assembly *assembly);
int cr_assembly_joint_count(const cr_assembly *assembly);
/* Index of the rod named `name`, or -1. */
int cr_assembly_rod_index(const cr_assembly *assembly, const char *name);
/* The mixed model of rod i (owned by the assembly). */
const cr_model *cr_assembly_rod_model(const cr_assembly *assembly, int rod);

/* ---- state: one cr_state per rod and the joints' multipliers ---- */
typedef struct cr_assembly_state cr_assembly_state;

/* The reference configuration (load factor 0). */
cr_assembly_state *cr_assembly_state_create(const cr_assembly *assembly);
void cr_assembly_state_destroy(cr_assembly_state *state);
/* Rod i's state (owned by the assembly state; read it with the cr_state_* functions). */
cr_state *cr_assembly_state_rod(cr_assembly_state *state, int rod);
double cr_assembly_state_load_factor(const cr_assembly_state *state);

/* Free bodies: their number, the index of the one named `name` (or -1), its name. */
int cr_assembly_body_count(const cr_assembly *assembly);
int cr_assembly_body_index(const cr_assembly *assembly, const char *name);
const char *cr_assembly_body_name(const cr_assembly *assembly, int body);
/* Free body `body` in a state: centre (I), orientation (body axes), velocity of the centre
 * (I), angular velocity (body axes); any output may be NULL. CR_BAD_INPUT out of range. */
cr_status cr_assembly_state_body(const cr_assembly_state *state, int body, cr_vec3 *center, cr_quat *orientation,
                                 cr_vec3 *velocity, cr_vec3 *angular_velocity);
/* Sets its velocities (as cr_state_set_velocity for a node) for a dynamic stage. */
cr_status cr_assembly_state_set_body_velocity(cr_assembly_state *state, int body, cr_vec3 velocity,
                                              cr_vec3 angular_velocity);

/* The wrench joint j applies on its first node a in the last solved state: force in I,
 * moment in I about that node, or about the joint's point of a body (its second node b
 * receives the opposite). */
/* Joint `joint`'s limit `which` (0: `limit`, a rotation's or a prismatic joint's slide; 1:
 * `slide_limit`) in the state: *value the measure (rad, unwrapped: whole turns counted; or m),
 * *force the stop's force (N m or N, positive pushing the measure up: a lower stop's; 0 when
 * the stop does not press). Returns 1 when the joint has that limit, else 0. */
int cr_assembly_joint_limit(const cr_assembly *assembly, const cr_assembly_state *state, int joint, int which,
                            double *value, double *force);
cr_status cr_assembly_joint_reaction(const cr_assembly *assembly, const cr_assembly_state *state, int joint,
                                     cr_vec3 *force, cr_vec3 *moment);

/* Static equilibrium of the assembly under the loads and supports of stage 0 of every
 * rod, from `state` (warm start) to load factor 1: Newton with load steps as
 * cr_static_solve (options: load_steps, max_iterations, atol, rtol, max_halvings; the
 * others are ignored). Statuses as cr_static_solve; CR_BAD_INPUT naming the joints when
 * their constraints are redundant (an over-constrained loop of joints), CR_SINGULAR
 * when the assembly is a mechanism. `report` (optional) as cr_static_solve's (no
 * stability estimate); free it with cr_static_report_free. */
cr_status cr_assembly_static_solve(const cr_assembly *assembly, cr_assembly_state *state,
                                   const cr_static_options *options, cr_static_report *report, cr_error *err);

/* ---- dynamics ---- */

/* Called at every output time with the state there (every rod's poses, velocities and
 * stresses; the joints' multipliers, so cr_assembly_joint_reaction gives the joints'
 * wrenches) and the sums over the rods of the energies, momenta and the work of the loads
 * since the stage's start (the ideal joints do none; constant gravity is in the potential).
 * Return nonzero to stop (CR_INTERRUPTED). */
typedef int (*cr_assembly_output_fn)(const cr_assembly *assembly, const cr_assembly_state *state,
                                     const cr_dynamic_sample *sample, void *user);

/* A dynamic stage of the assembly: every rod's loads and supports of stage `stage`
 * (their time functions), integrated from the state's time (rod 0's) over options->t_end
 * from the state's poses and velocities (cr_state_set_velocity on the rods' states; they
 * should satisfy the joints, C u = 0, as a rigid motion of the assembly does) by the
 * adaptive Radau IIA of one rod (options: t_end, rtol, atol, output_dt, h_init, h_max,
 * max_steps). Outputs at t_start + k output_dt. The joints stay exact constraints with
 * their multipliers as index-1 algebraic unknowns (docs/theory.md, "Assemblies": the
 * constraint's second derivative with Baumgarte's terms); the linear solves are the rods'
 * block-tridiagonal ones coupled through the multipliers. Not yet: rigid bodies on joint
 * nodes, rigid strain components (CR_UNSUPPORTED). On return the state is the
 * last accepted step. Statuses as cr_dynamic_solve. */
cr_status cr_assembly_dynamic_solve(const cr_assembly *assembly, cr_assembly_state *state, int stage,
                                    const cr_dynamic_options *options, cr_assembly_output_fn on_output, void *user,
                                    cr_dynamic_report *report, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
