/* Contact of the mixed rod with itself (docs/theory.md "Contact between rods"): the segment
 * pairs' normal forces on the force rows, their Jacobian as a low-rank term beside the
 * block-tridiagonal one (linalg/lowrank.h), and the augmented Lagrangian's updates in statics.
 * Internal. */
#ifndef COSSERAT_MIXED_SELFCONTACT_H
#define COSSERAT_MIXED_SELFCONTACT_H

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

/* The rod must not start inside itself: the deepest non-excluded pair at the reference, deeper
 * than the tolerance, is refused naming contact.self, the two segments' nodes and the depth. */
cr_status cr_mixed_selfcontact_check_start(const cr_model *m, cr_error *err);

#endif
