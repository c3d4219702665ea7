/* The assembly layer shared by the formulations: the definition's defaults, its
 * validation and the reference poses of rod nodes (assembly_def.c). */
#ifndef COSSERAT_ASSEMBLY_DEF_H
#define COSSERAT_ASSEMBLY_DEF_H

#include "cosserat/assembly.h"

#include <stddef.h>

/* Node index `node` of rod def (negative from the end) as 0..elements, or -1 when out of range. */
int cr_assembly_node_index(const cr_rod_def *rod, int node);

/* Reference pose of node i (0..elements) of a rod definition, as every formulation
 * places it: the given nodes, else s = L i / n on the straight or helical reference. */
void cr_assembly_node_reference_pose(const cr_rod_def *rod, int i, cr_vec3 *position, cr_quat *orientation);

/* One end of a joint: a rod node (body 0), or a point of free body body − 1. */
typedef struct cr_joint_end {
    int rod, node, body;
    cr_vec3 point;
} cr_joint_end;
/* End e (0: a, 1: b) of a joint. */
cr_joint_end cr_joint_end_of(const cr_joint_def *j, int e);

/* Reference pose of a joint's end: a rod node's, or a free body's point (its position, the
 * body's orientation). */
void cr_assembly_end_reference_pose(const cr_assembly_def *def, cr_joint_end e, cr_vec3 *position,
                                    cr_quat *orientation);

/* "joints.K" or "joints.K ('name')" into buf, for messages. */
const char *cr_joint_label(const cr_assembly_def *def, int k, char *buf, size_t size);

/* The distance between joint k's two points in the reference (its gap, m), and 1 when it
 * exceeds CR_JOINT_GAP_TOL times the longest rod. The mixed rod's first static stage closes a
 * gap through its load steps (assembly_model.c); every other start refuses it. */
double cr_joint_reference_gap(const cr_assembly_def *def, int k);
int cr_joint_has_gap(const cr_assembly_def *def, int k);
/* CR_BAD_INPUT naming the first joint with a gap, its points, the gap and `why` (what keeps it
 * from closing, e.g. "model lgvi keeps a joint's points together from the start"); CR_OK when
 * every joint's points coincide. */
cr_status cr_assembly_refuse_gaps(const cr_assembly_def *def, const char *why, cr_error *err);

/* What only the mixed rod's assemblies have, refused by name for `model` (a formulation that
 * joins rods by exact joints alone): free rigid bodies, joint ends on bodies, joint springs,
 * dampers and stops (stiffness, damping, slide_*, rest, slide_rest, limit, slide_limit) and slider
 * drives (but in model port_hamiltonian, which has them: its check refuses the springs it has not),
 * joint stages (a clamp on a joint's node, the other models' one support, both take).
 * A formulation that ignored them would silently run another mechanism. */
cr_status cr_assembly_refuse_mixed_only(const cr_assembly_def *def, const char *model, cr_error *err);

/* FNV-1a of h and everything of a joint that changes a run (type, nodes, axes, rotation, springs,
 * drive, limits, stages), field by field (the struct has padding): checkpoints' fingerprints. */
unsigned long long cr_joint_def_hash(const cr_joint_def *j, unsigned long long h);

/* A drive input's ramp over an output interval [t0, t1] (every model's assemblies): the cubic
 * Hermite from u0 with rate r0 to u1 with the secant rate (u1 − u0)/(t1 − t0), so u is C¹ across
 * output times; u1 when the ramp is flat (u0 = u1, r0 = 0) or the interval empty. Its rates ud,
 * udd at t when not NULL. */
double cr_drive_ramp(double u0, double u1, double r0, double t0, double t1, double t, double *ud, double *udd);
/* The rate a ramp from u0 (rate r0) to u1 over H ends with, where the next one starts: the secant
 * (u1 − u0)/H, 0 for a flat ramp. */
static inline double cr_drive_ramp_end_rate(double u0, double u1, double r0, double H)
{
    return u0 != u1 || r0 != 0 ? (u1 - u0) / H : 0.0;
}

#endif
