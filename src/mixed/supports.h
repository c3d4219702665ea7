/* Supports of the mixed discrete rod: rows of held degrees of freedom in statics
 * and dynamics (supports.c). */
#ifndef COSSERAT_MIXED_SUPPORTS_H
#define COSSERAT_MIXED_SUPPORTS_H

#include "mixed.h"

/* Translation rows of the active supports on the force balance rows 0..2 of F and
 * J with B rows per node (static layout, or the force-only layout B = 3); x is in
 * the static layout. */
void cr_supports_translation_rows(const cr_model *m, const cr_supports_at *at, int B, const double *x, double *F,
                                  cr_blocktri *J);
/* All rows of the active supports in the static layout (translation and rotation). */
void cr_supports_static_rows(const cr_model *m, const cr_supports_at *at, const double *x, double *F, cr_blocktri *J);

/* The node whose twist statics holds to fix a gauge, or -1. A rod whose every element is
 * isotropic about its axis (GA_y = GA_z, EI_y = EI_z, no reference shear or bending
 * curvature), loaded only by dead forces and gravity, and held only by supports that
 * hold no rotation, has an exact symmetry: every node's frame turned by one angle about
 * its own axis turns every strain and stress with it and changes nothing else. Its
 * static tangent is singular in that twist at every state; holding one node's twist
 * (the first supported node's) removes the null mode and changes no physical result. */
int cr_mixed_twist_gauge(const cr_model *m, int stage);

/* Dynamics (layout CR_DYN_BLOCK): what the DAE can represent (partly held
 * translations along inertial axes, hinges about body axes, clamps on body nodes). */
cr_status cr_supports_dynamic_check(const cr_model *m, int stage, cr_error *err);
/* rows[r] = 1 for the rows 0..12 of the node block that support k makes algebraic */
void cr_supports_dynamic_held(const cr_model *m, const cr_support *sp, const cr_supports_at *at, int k, int rows[13]);
/* zero mass on the rows the active supports make algebraic */
void cr_supports_dynamic_mass(const cr_model *m, int stage, double *mass);
/* held coordinates and velocities: 0 = target(t) - y */
void cr_supports_dynamic_rows(const cr_model *m, const cr_supports_at *at, const double *y, double *F, cr_blocktri *J);
/* At a dynamic stage's start: the held coordinates must be at their targets
 * (CR_BAD_INPUT naming the support otherwise); sets them and the held velocities
 * exactly. */
cr_status cr_supports_dynamic_start(const cr_model *m, int stage, double t, double *y, cr_error *err);

#endif
