/* Terms of the mixed discrete rod shared by statics and dynamics: the internal
 * forces of an element (eqs. 7, 19–20), tendon segments (spec §8.2) and external
 * loads (eq. 18), each with its exact Jacobian. A layout says where a node's
 * force/moment rows and an element's stress unknowns sit in the block of a node. */
#ifndef COSSERAT_MIXED_TERMS_H
#define COSSERAT_MIXED_TERMS_H

#include "linalg/blocktri.h"
#include "mixed/model_internal.h"

typedef struct cr_layout {
    int block;    /* unknowns (and rows) per node block */
    int eq_row;   /* first of the 6 rows (force in I, moment in B) of a node */
    int lam_base; /* first stress unknown (column) and stress row of the element to the right */
    /* which stress components are unknowns: slot[k] >= 0 is the column lam_base + slot[k]
     * and row lam_base + slot[k]; slot[k] < 0 condenses λ_k = stiffness_k Δstrain_k */
    int slot[6];
    int stress_unknowns; /* number of k with slot[k] >= 0 */
    /* compliance of the stress rows: F = c_k λ_k - Δstrain_k with c_k = 1/stiffness_k
     * (flexible unknowns, dynamics) or 0 (rigid components) */
    int rigid_unknowns; /* 1: stress unknowns are rigid multipliers (c_k = 0) */
} cr_layout;

/* statics: r, p, rigid multipliers (flexible stresses condensed) */
cr_layout cr_layout_static(const cr_model *m);
/* dynamics: r, p, v, Ω, all six stresses as unknowns */
cr_layout cr_layout_dynamic(void);

/* The element e term: adds W^l λ to node e and W^r λ to node e+1, and the stress
 * rows of the unknown components; J (optional) gets the exact derivatives. The
 * off-diagonal blocks U_e and L_{e+1} are overwritten (first contribution). */
void cr_term_element(const cr_model *m, const cr_layout *ly, int e, const double *x, double *F, cr_blocktri *J);

/* Tendon k, segment between nodes a and a+1, at tension `tension`. */
void cr_term_tendon_segment(const cr_model *m, const cr_layout *ly, const cr_tendon *t, int a, double tension,
                            const double *x, double *F, cr_blocktri *J);

/* Every load k scaled by scale[k] (element terms and tendons excluded from
 * "loads" here: tendons are included, elements are not). */
void cr_term_loads(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                   cr_blocktri *J);
/* The same without Jacobian, tendons in one pass that computes each node's attachment
 * point once (for ∂F/∂λ: its rounding differs from cr_term_loads', which the residuals use). */
void cr_term_loads_forces_only(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F);

/* F := every element term plus every load (J, if given, overwritten); the caller
 * then adds its node-local rows (norm rows, boundary conditions, inertia). */
void cr_term_rod(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                 cr_blocktri *J);

/* The same for the static layout without stress unknowns (stress_unknowns == 0,
 * block 7) in one fused pass: rows 0..5 of F and every block of J (rows 6 zero)
 * are overwritten, element and tendon terms with structured kernels; the caller adds
 * the norm rows and boundary conditions. */
void cr_term_rod_static(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                        cr_blocktri *J);

/* cr_term_rod_static in two parts, for threads: the element pass writing the rows of
 * nodes first..end-1 only (disjoint ranges may run concurrently; J's rows 6 zero), then
 * the loads that are not fused into it (after every range is done). */
void cr_term_rod_static_nodes(const cr_model *m, const double *scale, const double *x, double *F, cr_blocktri *J,
                              int first, int end);
void cr_term_rod_static_loads(const cr_model *m, const cr_layout *ly, const double *scale, const double *x, double *F,
                              cr_blocktri *J);

/* Force part of the loads only (3 per node, stride 3), for the position correction. */
void cr_term_load_forces(const cr_model *m, const double *scale, const double *x, double *F3);

#endif
