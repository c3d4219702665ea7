/* Helpers shared by the formulations' discretizations (not public API). */
#ifndef COSSERAT_ROD_INTERNAL_H
#define COSSERAT_ROD_INTERNAL_H

#include "cosserat/model.h"

/* Pose on a helical reference at arc length s (Serret–Frenet frame, model.h). */
void cr_reference_helix_pose(const cr_reference_def *r, double s, cr_vec3 *pos, cr_quat *q);
/* Body-frame offset (0, d_y, d_z) of tendon load `l` at ξ, for the section props `sp` at ξ. */
void cr_tendon_offset_eval(const cr_load_def *l, const cr_section_props *sp, double xi, cr_vec3 *d);

/* FNV-1a of the loads (types, values, frames, nodes, stage masks, time functions,
 * tendon and chamber data), for checkpoint fingerprints. */
#include <stdint.h>
uint64_t cr_loads_hash(uint64_t h, const cr_load_def *loads, int count);

#endif
