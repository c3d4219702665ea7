/* Contact of the mixed rod with itself (docs/theory.md "Contact between rods"): the segment
 * pairs' normal forces on the force rows, their Jacobian as a low-rank term beside the
 * block-tridiagonal one (linalg/lowrank.h), and the augmented Lagrangian's updates in statics.
 * Internal. */
#ifndef COSSERAT_MIXED_SELFCONTACT_H
#define COSSERAT_MIXED_SELFCONTACT_H

#include "cosserat/radau.h"
#include "linalg/blocktri.h"
#include "model_internal.h"

/* The self-contact of def (contact.self): contact radius per node as the obstacles' (contact.radius,
 * else the section's), ε and the tolerance as theirs (model.c, model_contact). */
cr_status cr_mixed_selfcontact_create(cr_model *m, const cr_rod_def *def, cr_error *err);
void cr_mixed_selfcontact_destroy(cr_model *m);

/* Adds the pressing pairs' forces at x (static layout, m->block a node) to F's force rows; with
 * J, rebuilds m->couple with their Jacobians (the couplings of far nodes). */
void cr_mixed_selfcontact_rows(const cr_model *m, const double *x, double *F, cr_blocktri *J);

/* The supports' row operations (supports.c: held coordinates replace their balance rows, partly
 * held ones are rotated into the support's axes) applied to m->couple's rows. */
void cr_mixed_selfcontact_supports(const cr_model *m, const cr_supports_at *at);

/* Dynamics (a penalty, λ = 0): the pairs' forces at y (CR_DYN_BLOCK a node) on the momentum
 * rows; with J, m->couple_dyn rebuilt with their Jacobians (momentum rows × position columns),
 * its rows of held velocities cleared as the supports clear J's. */
void cr_mixed_selfcontact_dynamic_rows(const cr_model *m, const cr_supports_at *at, const double *y, double *F,
                                       cr_blocktri *J);

/* Radau's linear algebra with the coupling: `inner` (the block-tridiagonal shifted solves)
 * wrapped so that every solve of shift·M − J includes −U C Vᵀ (Woodbury, for the real and the
 * complex system alike). *owned receives the wrapper's storage (free with
 * cr_mixed_selfcontact_linsys_free); CR_NO_MEMORY. */
cr_status cr_mixed_selfcontact_linsys(const cr_model *m, cr_radau_linsys inner, cr_radau_linsys *out, void **owned);
void cr_mixed_selfcontact_linsys_free(void *owned);

/* The rod must not start inside itself: the deepest non-excluded pair at the reference, deeper
 * than the tolerance, is refused naming contact.self, the two segments' nodes and the depth. */
cr_status cr_mixed_selfcontact_check_start(const cr_model *m, cr_error *err);

#endif
