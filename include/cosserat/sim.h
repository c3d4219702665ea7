/* cosserat — a discretized rod of any formulation together with its state.
 *
 * A cr_sim is what the scenario runner, the writers, checkpoints and the Python
 * package see: node poses, strains and stresses at the formulation's sample
 * points, time, reactions and rigid bodies, through the same accessors whatever
 * the formulation. The formulation is chosen by cr_model_options.type:
 *   "mixed_discrete"    the mixed discrete rod (quaternion nodes; statics by
 *                       Newton, dynamics by adaptive Radau IIA);
 *   "lgvi"              the Lie-group variational integrator rod with optional
 *                       cross-sectional dilatation (explicit, fixed step);
 *   "port_hamiltonian"  the port-Hamiltonian director rod (energy–momentum
 *                       midpoint rule) — when built in.
 *
 * Frames as in model.h: positions in I; orientations are unit quaternions of the
 * node's body basis (x along the rod); strains/stresses in the body basis with
 * components (x = axial/torsion, y, z). Units are the caller's (SI in examples).
 */
#ifndef COSSERAT_SIM_H
#define COSSERAT_SIM_H

#include "cosserat/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Formulation choice and options (the object form of the scenario's "model"). */
typedef struct cr_model_options {
    char type[32];   /* "mixed_discrete" (default), "lgvi", "port_hamiltonian" */
    /* lgvi */
    int dilatation;  /* 1 (default): modified model, element volume conserved; 0: standard (Demoures) */
    int chart;       /* 0 (default): exponential map; 1: Cayley map */
    int strains;     /* frame of the shear/stretch strain: 0 (default): the element's left node (Demoures,
                      * first order in the element length); 1: the element midpoint (second order) */
    /* port_hamiltonian: generalized-Maxwell viscoelasticity (its spec §7), branches in parallel with
     * the elastic one; each branch has a relaxation time (s) and a stiffness fraction; a Kelvin–Voigt
     * branch (rigid spring) is a dashpot of viscosity tau·fraction·stiffness. */
    int branch_count;                    /* 0..8 */
    double branch_tau[8], branch_fraction[8];
    int branch_kelvin_voigt[8];
    double newton_atol;                  /* midpoint-step Newton tolerance (default 1e-10) */
} cr_model_options;

cr_model_options cr_model_default_options(void);

typedef struct cr_sim cr_sim;

/* Discretizes `def` with the chosen formulation; NULL with err filled on bad
 * input (the message names the key) or an unknown formulation. */
cr_sim *cr_sim_create(const cr_rod_def *def, const cr_model_options *options, cr_error *err);
void cr_sim_destroy(cr_sim *sim);

/* The formulation's name ("mixed_discrete", "lgvi", ...). */
const char *cr_sim_formulation(const cr_sim *sim);

/* Nodes: all nodes that carry a pose (for quadratic elements: every FE node). */
int cr_sim_node_count(const cr_sim *sim);
double cr_sim_node_s(const cr_sim *sim, int node);          /* reference arc length */
cr_vec3 cr_sim_position(const cr_sim *sim, int node);       /* I */
cr_quat cr_sim_orientation(const cr_sim *sim, int node);    /* unit, body x along the rod */
cr_vec3 cr_sim_velocity(const cr_sim *sim, int node);       /* I; 0 in statics */
cr_vec3 cr_sim_angular_velocity(const cr_sim *sim, int node); /* body basis; 0 in statics */

/* Sample points of strains and stresses: element midpoints (mixed rod, lgvi)
 * or Gauss points (port-Hamiltonian). gamma, kappa: strains (for the lgvi and
 * port-Hamiltonian rods minus the reference strains, for the mixed rod as in its
 * eq. 7); n, m: stress resultants in the body basis. Any pointer may be NULL. */
int cr_sim_sample_count(const cr_sim *sim);
double cr_sim_sample_s(const cr_sim *sim, int sample);
void cr_sim_sample(const cr_sim *sim, int sample, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *n, cr_vec3 *m);

double cr_sim_time(const cr_sim *sim);        /* s, since the first dynamic stage */
double cr_sim_load_factor(const cr_sim *sim); /* of the last static stage */

/* Reaction at a held node (force in I, moment in the node's body basis);
 * CR_BAD_INPUT when the node is free or the formulation does not report one. */
cr_status cr_sim_reaction(const cr_sim *sim, int node, cr_vec3 *force, cr_vec3 *moment);

/* Contact of a node with the obstacles (cosserat/contact.h): the total contact force on it
 * (N, in I), the sum of its normal forces (N), its smallest gap φ − a over the obstacles (m; negative: penetration; INFINITY
 * when none is near), its state (0: free, 1: sticking or frictionless, 2: sliding at the
 * Coulomb limit) and the contact tolerance (m). */
typedef struct cr_contact_sample {
    cr_vec3 force;
    double normal;
    double gap;
    int state;
    double tolerance;
} cr_contact_sample;
/* 1 and *out when the sim has obstacles, else 0. */
int cr_sim_contact(const cr_sim *sim, int node, cr_contact_sample *out);

/* Rigid bodies welded to nodes. */
int cr_sim_body_count(const cr_sim *sim);
const char *cr_sim_body_name(const cr_sim *sim, int body);
void cr_sim_body_pose(const cr_sim *sim, int body, cr_vec3 *center, cr_mat3 *axes);

/* Bulk copies for bindings (caller-allocated): node arc lengths, positions
 * (nodes × 3), orientations (nodes × 4), sample arc lengths, and per sample the
 * 12 values gamma, kappa, n, m. */
void cr_sim_get_node_s(const cr_sim *sim, double *out);
void cr_sim_get_positions(const cr_sim *sim, double *out);
void cr_sim_get_orientations(const cr_sim *sim, double *out);
void cr_sim_get_sample_s(const cr_sim *sim, double *out);
void cr_sim_get_samples(const cr_sim *sim, double *out);
/* Per node the 6 values v (I) and Ω (body basis); zeros in statics. */
void cr_sim_get_velocities(const cr_sim *sim, double *out);

/* Assemblies (several rods joined by joints; docs/scenario.md "rods"): the nodes, samples
 * and bodies of all rods are numbered rod by rod; a single rod is rod 0, named "rod". */
int cr_sim_rod_count(const cr_sim *sim);
const char *cr_sim_rod_name(const cr_sim *sim, int rod); /* NULL when out of range */
int cr_sim_rod_first_node(const cr_sim *sim, int rod);   /* rod = rod count: the node count */
int cr_sim_rod_first_sample(const cr_sim *sim, int rod); /* rod = rod count: the sample count */
int cr_sim_node_rod(const cr_sim *sim, int node);        /* the rod of a node */
int cr_sim_joint_count(const cr_sim *sim);
const char *cr_sim_joint_name(const cr_sim *sim, int joint); /* "joints.K" when the joint has no name */
/* The wrench joint `joint` applies on its first node a (force in I, moment in I about that
 * node; node b receives the opposite) in the current state. CR_BAD_INPUT out of range. */
cr_status cr_sim_joint_reaction(const cr_sim *sim, int joint, cr_vec3 *force, cr_vec3 *moment);
/* A joint drive's input factor u (default 1; mixed_discrete assemblies, dynamic stages): the
 * drive holds θ = angle · time(t) · u (a slider: position · time(t) · u). Set in an output
 * callback (a run with live inputs, as cr_sim_set_load_input), u ramps linearly from its value
 * at that output time to the new one at the next output time (a drive's position cannot jump).
 * CR_BAD_INPUT for a joint without a drive, out of range, or a non-finite value; the getter
 * returns NAN then. */
cr_status cr_sim_set_joint_drive_input(cr_sim *sim, int joint, double value);
double cr_sim_joint_drive_input(const cr_sim *sim, int joint);
/* Joint `joint`'s limit `which` (0: `limit`, 1: `slide_limit`): its measure *value (rad,
 * unwrapped, or m) and the stop's force *force (N m or N, positive pushing the measure up; 0
 * when it does not press). 1 when the joint has that limit (mixed_discrete assemblies), else 0. */
int cr_sim_joint_limit(const cr_sim *sim, int joint, int which, double *value, double *force);
/* The mass of body `body` (kg): as the model holds it (an assembly's free bodies included), else
 * as the rods' definitions give it; NAN out of range. */
double cr_sim_body_mass(const cr_sim *sim, int body);
/* The velocity of body `body`'s centre of mass (inertial components, m/s) and its angular
 * velocity (in the body's axes, rad/s; as cr_sim_angular_velocity for a node); zeros in
 * statics. A body welded to a node moves rigidly with it: v + ω × (c − r), ω = A Ω. A free body
 * of an assembly: as its formulation reports it, or NaN and CR_UNSUPPORTED when it reports none.
 * NaN and CR_BAD_INPUT out of range. */
cr_status cr_sim_body_velocity(const cr_sim *sim, int body, cr_vec3 *velocity, cr_vec3 *angular_velocity);

/* Actuator inputs: one factor per load of the definition (default 1) multiplying the
 * load's magnitude in dynamic stages, on top of its stage activity and time function
 * (a tendon's tension, a chamber's pressure, a force's value, ...); static stages ignore
 * it (one after a dynamic stage ramps from the loads that stage ended with, inputs included). Set between stages or from the runner's output callback (cr_run_options.on_output):
 * a value set at an output time holds from that time on, in every formulation (the
 * mixed rod then integrates output interval by interval and restarts its step at a
 * change). Inputs are part of the state: checkpoints carry them. */
int cr_sim_load_count(const cr_sim *sim);
/* The load's type as in the scenario ("force", "tendon", ...); NULL when out of range. */
const char *cr_sim_load_type(const cr_sim *sim, int load);
/* CR_BAD_INPUT for an index out of range or a non-finite factor (nothing changed). */
cr_status cr_sim_set_load_input(cr_sim *sim, int load, double factor);
/* The load's input factor; NaN when out of range. */
double cr_sim_load_input(const cr_sim *sim, int load);

#ifdef __cplusplus
}
#endif
#endif
