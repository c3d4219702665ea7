/* Assemblies of port-Hamiltonian director rods (ph_assembly.c): several cr_ph kernels joined by
 * ideal weld, ball and hinge joints between their nodes, stepped together by the midpoint rule
 * (docs/port-hamiltonian.md, "Assemblies").
 *
 * Internal header, included as "ph/ph_assembly.h" (the scenario adapter and the tests). */
#ifndef COSSERAT_PH_ASSEMBLY_H
#define COSSERAT_PH_ASSEMBLY_H

#include "cosserat/assembly.h"
#include "ph/ph.h"

#include <stdint.h>

/* One joint between FE node node[0] of kernel rod[0] (side a) and node[1] of rod[1] (side b). */
typedef struct cr_ph_joint_def {
    cr_joint_type type; /* CR_JOINT_WELD, CR_JOINT_BALL or CR_JOINT_HINGE */
    int rod[2], node[2];
    double axis[3]; /* hinge: the axis in a's reference directors (components along d1, d2, d3) */
} cr_ph_joint_def;

typedef struct cr_ph_asm cr_ph_asm;

/* The kernels stay owned by the caller (their current states are the reference the joints
 * keep: a weld keeps the relative rotation, a hinge its axis in both rods). NULL with err on
 * a bad joint (CR_BAD_INPUT naming joints.K) or no memory. */
cr_ph_asm *cr_ph_asm_create(int rods, cr_ph *const *kernels, int joints, const cr_ph_joint_def *defs, cr_error *err);
void cr_ph_asm_destroy(cr_ph_asm *a);

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

/* checkpoints: the joints' multipliers and interface values; h mixed with the joints' geometry (a
 * resumed run must hold the same joints) */
uint64_t cr_ph_asm_fingerprint(const cr_ph_asm *a, uint64_t h);
int cr_ph_asm_packed_size(const cr_ph_asm *a);
void cr_ph_asm_pack(const cr_ph_asm *a, double *out);
void cr_ph_asm_unpack(cr_ph_asm *a, const double *in);

#endif
