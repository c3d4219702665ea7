/* Assemblies of port-Hamiltonian director rods (ph_assembly.c): several cr_ph kernels joined by
 * ideal weld, ball, hinge, prismatic, cylindrical and universal joints between their nodes, stepped
 * together by the midpoint rule (docs/port-hamiltonian.md, "Assemblies").
 *
 * Internal header, included as "ph/ph_assembly.h" (the scenario adapter and the tests). */
#ifndef COSSERAT_PH_ASSEMBLY_H
#define COSSERAT_PH_ASSEMBLY_H

#include "cosserat/assembly.h"
#include "ph/ph.h"

#include <stdint.h>

/* One joint between FE node node[0] of kernel rod[0] (side a) and node[1] of rod[1] (side b). */
typedef struct cr_ph_joint_def {
    cr_joint_type type; /* any cr_joint_type (weld, ball, hinge, prismatic, cylindrical, universal) */
    int rod[2], node[2];
    double axis[3];   /* hinge, prismatic, cylindrical, universal: the axis in a's reference directors
                         (components along d1, d2, d3) */
    double axis_b[3]; /* universal: the axis fixed to b, in a's reference directors, normal to axis */
    int drive;        /* hinge, cylindrical: a motor holds b's turn about the axis (from the reference,
                         right-handed) at an angle set per step (cr_ph_asm_set_drive) */
    int slide;        /* with drive, prismatic or cylindrical: the drive holds instead the slide of b's
                         node along the axis, t_a . (phi_b - phi_a), at a position set per step (m) */
    /* springs, dampers and stops on the free directions, [0] the turn theta about the axis (hinge,
       cylindrical; rad, unwrapped from the reference, the spring on it wrapped into (-pi, pi]), [1]
       the slide along it (prismatic, cylindrical; m): energy 1/2 k (v - rest)^2 plus the stop's
       1/2 klim (penetration beyond [lo, hi])^2, the damper's dissipation c (dv/dt)^2; 0 / no limit:
       none. Not on a driven direction. */
    double k[2], c[2], rest[2];
    int limit[2];
    double lo[2], hi[2], klim[2];
} cr_ph_joint_def;

typedef struct cr_ph_asm cr_ph_asm;

/* The kernels stay owned by the caller (their current states are the reference the joints
 * keep: a weld and a prismatic joint keep the relative rotation, a hinge and a cylindrical joint
 * the axis in both rods, a universal joint its two axes normal to each other). NULL with err on
 * a bad joint (CR_BAD_INPUT naming joints.K) or no memory. */
cr_ph_asm *cr_ph_asm_create(int rods, cr_ph *const *kernels, int joints, const cr_ph_joint_def *defs, cr_error *err);
void cr_ph_asm_destroy(cr_ph_asm *a);

/* A driven joint j's angle (rad; a slider drive's position, m) at the start and the end of the
 * next step (statics: theta_n1); the motor's work over the steps is cr_ph_asm_drive_work (J, cumulative, what the
 * motors put in). */
void cr_ph_asm_set_drive(cr_ph_asm *a, int j, double theta_n, double theta_n1);
double cr_ph_asm_drive_work(const cr_ph_asm *a);
double cr_ph_asm_drive_work_last(const cr_ph_asm *a); /* ... over the last step */

/* One midpoint step of every rod (loads[r] for rod r, may be NULL); on failure no state changes. */
cr_status cr_ph_asm_step(cr_ph_asm *a, double h, const cr_ph_loads *const *loads, int *iterations, cr_error *err);
/* Static equilibrium of the assembly (as cr_ph_solve_static); on failure no state changes. */
cr_status cr_ph_asm_solve_static(cr_ph_asm *a, const cr_ph_loads *const *loads, int *iterations, double *residual,
                                 cr_error *err);

/* The wrench joint j applies on its side a in the last solved state: force and moment about the
 * node, spatial (side b receives the opposite). */
void cr_ph_asm_joint_reaction(const cr_ph_asm *a, int j, cr_vec3 *force, cr_vec3 *moment);
/* Largest |D_a q_a - D_b q_b| of the joints' rows (positions in m, directors) in the current state. */
double cr_ph_asm_joint_violation(const cr_ph_asm *a);

/* Springs, dampers and stops (cr_ph_joint_def.k, c, limit): the energy of the springs and stops in
 * the state (J, in H: the balance H_{n+1} - H_n = W_n - D_n holds with it), its change over the
 * last step, the dampers' dissipation (cumulative and of the last step); any spring, damper or
 * stop; any stop. */
double cr_ph_asm_joint_energy(const cr_ph_asm *a);
double cr_ph_asm_joint_energy_change_last(const cr_ph_asm *a);
double cr_ph_asm_joint_dissipated(const cr_ph_asm *a);
double cr_ph_asm_joint_dissipated_last(const cr_ph_asm *a);
int cr_ph_asm_has_springs(const cr_ph_asm *a);
int cr_ph_asm_has_limits(const cr_ph_asm *a);
/* the springs' rest positions are rest * f (statics ramp f with the load factor; 1 by default) */
void cr_ph_asm_set_rest_factor(cr_ph_asm *a, double f);
double cr_ph_asm_rest_factor(const cr_ph_asm *a);
/* joint j's stop `which` (0: `limit`, the turn's or a prismatic joint's slide; 1: a cylindrical
 * joint's slide_limit): its measure in the state (theta unwrapped, rad, or x, m) and the stop's
 * force (N m or N, positive pushing the measure up); 0 if it has none. */
int cr_ph_asm_joint_limit(const cr_ph_asm *a, int j, int which, double *value, double *force);
/* joint j's measure p (0: the turn, 1: the slide) in the state if a spring, damper or stop is on
 * it (1), else 0 */
int cr_ph_asm_joint_measure(const cr_ph_asm *a, int j, int p, double *value);

/* Tests: joint j's coupled rows (a slider's two, a universal joint's or a drive's one (at theta_n1), a
 * slider drive's after its slider's two;
 * 0 for the other types) at
 * the nodes' coordinates qa, qb (12 each: phi, d1, d2, d3): their values g, gradients G (row-major,
 * rows x 24: a's 12 then b's) and, for the multipliers nu, the Hessian sum nu_m d2 g_m / dq2 (24 x 24)
 * as the Newton matrix takes it (its own-node blocks and its cross block L_a^T L_b). Returns the
 * number of coupled rows. */
int cr_ph_asm_coupled_rows(const cr_ph_asm *a, int j, const double *qa, const double *qb, const double *nu, double *g,
                           double *G, double *H);

/* checkpoints: the joints' multipliers and interface values; h mixed with the joints' geometry (a
 * resumed run must hold the same joints) */
uint64_t cr_ph_asm_fingerprint(const cr_ph_asm *a, uint64_t h);
int cr_ph_asm_packed_size(const cr_ph_asm *a);
void cr_ph_asm_pack(const cr_ph_asm *a, double *out);
void cr_ph_asm_unpack(cr_ph_asm *a, const double *in);

#endif
