/* Assemblies of mixed discrete rods (assembly_model.c, assembly_joints.c,
 * assembly_statics.c): the discretized assembly, its state, the joints' constraints. */
#ifndef COSSERAT_MIXED_ASSEMBLY_INTERNAL_H
#define COSSERAT_MIXED_ASSEMBLY_INTERNAL_H

#include "contact/segments.h"
#include "cosserat/assembly.h"
#include "mixed/model_internal.h"

#include <stddef.h>
#include <stdint.h>

/* A joint between interface nodes ia and ib. Its constraint rows g = 0: position rows,
 * then "dot" rows (A_a s_k)·(A_b t_k) = 0 with constant body vectors s_k (a's frame) and
 * t_k (b's frame). Position rows: the three r_b − r_a (weld, ball, hinge, universal), or the
 * two (A_a u_k)·(r_b − r_a) of a slider (prismatic, cylindrical: b's point on a's axis
 * line). Dot rows: a weld's and a prismatic joint's three with (s, t) = (R e2, e3), (R e3,
 * e1), (R e1, e2), a hinge's and a cylindrical joint's two with (u1, h_b), (u2, h_b), a
 * universal joint's one (u1 = h_a, h_b). */
typedef struct cr_asm_joint {
    cr_joint_type type;
    int iface[2];    /* interface nodes of a and b */
    int rows, row0;  /* constraint rows, their offset in the multipliers */
    int pos_rows;    /* the position rows among them (first): 3, or 2 for a slider */
    cr_quat rel_ref; /* weld: the reference relative rotation A_a,refᵀ A_b,ref */
    cr_vec3 phi;     /* weld: R(f) = rel_ref Exp(f φ) (φ in b's frame); zero: R = rel_ref */
    /* the position rows' values in the reference (r_b − r_a in I, or a slider's two
     * (A_a u_k)·(r_b − r_a)): the joint's gap, held as (1 − f) gap0 (closed at f = 1); zero
     * when the points coincide */
    double gap0[3];
    cr_vec3 u1, u2;  /* hinge, sliders: unit vectors normal to the axis (a's frame); universal: u1 = h_a */
    cr_vec3 axis_b;  /* hinge, cylindrical: the axis in b's frame; universal: b's axis h_b there */
    /* hinge with a drive: θ = drive_angle · f (statics) or · drive_time(t) (dynamics); a sixth
     * row with (s, t) = (Rot(h, θ) u2, R_refᵀ u1) (assembly_joints.c); drive_time's table
     * points owned by the assembly */
    int drive;
    double drive_angle;
    cr_time_function drive_time;
    char label[96];
    /* an end on a free body (assembly_bodies.c): on_body[e] = 1, point[e] its point in the
     * body's frame; iface[e] is then the body's interface (rod −1) */
    int on_body[2];
    cr_vec3 point[2];
    /* a slider's drive (prismatic, cylindrical): one row (A_a h)·(r_b − r_a) − X after the dot
     * rows, X = drive_position · f or drive[0] (drive_time's (X, Ẋ, Ẍ) in dynamics) */
    int slide_drive;
    double drive_position;
    cr_vec3 h; /* the axis in a's frame (sliders' drive and spring rows) */
    /* spring rows (the last `springs` rows, compliant: 0 = k g + c ġ + λ): their kind, k, c;
     * a joint's limits are the last of them (CR_SPRING_LIMIT_*, k their ε, their law
     * cr_asm_row_law) */
    int springs;
    int spring_kind[5];
    double k[5], c[5];
    double rest[5];      /* the spring rows' rest measure at closing factor 1 (rest · f) */
    double lo[5], hi[5]; /* a limit row's range (rad or m) */
    unsigned stages; /* bit s: acts in stage s; 0 = every stage */
} cr_asm_joint;

/* The most rows of one joint (a driven cylindrical joint with both springs and both limits:
 * 2 + 2 + 1 + 2 + 2). */
#define CR_ASM_MAX_ROWS 10

/* The kinds of spring rows: the angle about a hinge axis atan2(u2·Rt, u1·Rt) with
 * t = R_refᵀu1; the slide (A_a h)·(r_b − r_a); a component of the axial vector of D − Dᵀ
 * over 2 (D = A_aᵀA_b R_refᵀ, a's frame): sin ψ n_i. */
enum { CR_SPRING_ANGLE = 1, CR_SPRING_SLIDE = 2, CR_SPRING_ROT = 3 /* + component 0..2 */ };
/* A limit row's measure: the hinge angle φ about the axis from the reference (atan2, in (−π, π];
 * unwrapped by cr_asm_row_law), or the slide (A_a h)·(r_b − r_a). */
enum { CR_SPRING_LIMIT_ANGLE = 8, CR_SPRING_LIMIT_SLIDE = 9 };
static inline int cr_asm_is_limit_kind(int kind)
{
    return kind == CR_SPRING_LIMIT_ANGLE || kind == CR_SPRING_LIMIT_SLIDE;
}

/* Joint j acts in stage `stage` (its stage mask). */
static inline int cr_asm_joint_active(const cr_asm_joint *j, int stage)
{
    return j->stages == 0 || (stage >= 0 && stage < 32 && (j->stages >> stage & 1u));
}
/* The joint's dot rows (after its position rows; a hinge drive's included). */
static inline int cr_asm_joint_dots(const cr_asm_joint *j)
{
    return j->rows - j->pos_rows - j->slide_drive - j->springs;
}
/* Row r of joint j in stage `stage` is compliant, 0 = k g + c ġ + λ (its spring rows; every
 * row of a joint that does not act in the stage, with k = c = 0: λ = 0), else a constraint
 * g = 0. *k, *c (optional): the row's. */
static inline int cr_asm_row_compliant(const cr_asm_joint *j, int stage, int r, double *k, double *c)
{
    const int active = cr_asm_joint_active(j, stage), spring = r >= j->rows - j->springs;
    if (k) *k = active && spring ? j->k[r - (j->rows - j->springs)] : 0.0;
    if (c) *c = active && spring ? j->c[r - (j->rows - j->springs)] : 0.0;
    return !active || spring;
}

/* A node that some joint holds: its pose is an unknown of the small coupled system. A free
 * body is one too, with rod −1 and node its index into the assembly's bodies. */
typedef struct cr_asm_iface {
    int rod, node;
} cr_asm_iface;

/* A free rigid body (assembly_bodies.c): its state is 13 numbers in the assembly state
 * (r, p, v, Ω as a node's dynamic unknowns: centre in I, orientation, velocity in I,
 * angular velocity in the body frame). */
typedef struct cr_asm_body {
    char name[64];
    double mass;
    cr_mat3 inertia; /* about the centre, in the body frame */
    cr_vec3 r0;      /* reference centre */
    cr_quat p0;      /* reference orientation (the body's axes) */
    int iface;
} cr_asm_body;

/* per free body in the assembly state */
enum { CR_ASM_BODY_DOF = 13 };

/* A support of a rod (its boundary_conditions entry k) on one of its joint nodes (interface
 * iface). Statics: its held directions are constraint rows of the coupled system on that
 * node's unknowns, with their own multipliers (the support's reaction) after the joints' rows:
 * d_aᵀ(r − r_t) per held translation axis d_a (r − r_t when all three are held), h_aᵀ vec(p_t*
 * ⊗ p) per held rotation axis (h_a = A_tᵀ d_a): the rod's own support rows (supports.c), which
 * the rod's residual leaves out at that node (cr_assembly.smodels). Dynamics: the rod's own
 * support rows hold the node's coordinates, and the joints' wrenches and accelerations there
 * are taken along its free directions only (assembly_dynamics.c). */
typedef struct cr_asm_support {
    int rod, k, iface;
    int rows, row0;  /* held directions; offset in the multipliers (after the joints' a->rows) */
    char label[160]; /* "rods.R ('name').boundary_conditions.K" */
} cr_asm_support;

/* The support's rows at the node pose (r, p) and the target (rt, pt): g (rows), C (rows × 6,
 * optional) = ∂g/∂(δr, δθ) and H (6 × 6, optional) = ∂(Cᵀλ)/∂(δr, δθ) at the multipliers
 * lambda. */
void cr_asm_support_eval(const cr_assembly *a, const cr_asm_support *sp, cr_vec3 r, cr_quat p, cr_vec3 rt, cr_quat pt,
                         const double *lambda, double *g, double *C, double *H);
/* The reaction of the supports of rod `rod` on its joint node `node` (0..nodes−1) at the state,
 * as cr_state_reaction gives one rod's (force in I, moment in the node's basis): statics, the
 * supports' multipliers (Cᵀλ); dynamics, the rod's own reaction less the joints' wrench Cᵀμ on
 * the held directions. CR_BAD_INPUT when no support acts there. */
cr_status cr_asm_support_reaction(const cr_assembly *a, const cr_assembly_state *s, int rod, int node, cr_vec3 *force,
                                  cr_vec3 *moment);
/* Which of a support's rows row k is ("translation along its axis 1", ...), for messages. */
const char *cr_asm_support_row_name(const cr_assembly *a, const cr_asm_support *sp, int k);

struct cr_assembly {
    int rod_count, joint_count, iface_count, rows;
    char (*names)[64];
    cr_model **models;
    cr_asm_joint *joints;
    cr_asm_iface *iface;
    int *rod_iface_start; /* rod r's interface nodes: rod_iface[rod_iface_start[r] .. start[r+1]) */
    int *rod_iface;
    double scale_length; /* longest rod */
    int body_count, body_load_count;
    cr_asm_body *bodies;
    cr_load_def *body_loads; /* time tables owned */
    struct cr_asm_contact *contact; /* contact.rods: contact between the rods (assembly_contact.c), or NULL */
    /* supports on joint nodes (cr_asm_support), their rows (multipliers after the joints'
     * rows: s->lambda holds rows + support_rows); smodels[r]: rod r's model as the static
     * solve assembles it, without the supports on its joint nodes (a shallow copy sharing
     * the model's arrays, or models[r] itself when it has none) */
    int support_count, support_rows;
    cr_asm_support *supports;
    cr_model **smodels;
};

struct cr_assembly_state {
    const cr_assembly *assembly;
    cr_state **rods;
    double *lambda; /* the joints' multipliers (assembly->rows) */
    double load_factor;
    double joint_factor; /* how far the welds' rotations and the joints' gaps have closed (0 reference ... 1 given) */
    double *body;        /* CR_ASM_BODY_DOF per free body */
    double *body_load_scale; /* the free bodies' loads' magnitude factors (statics: ramped) */
    int stage;           /* the stage of the last solve (which joints act) */
    /* the limit rows (per joint row; others unused): limit_ref the measure at the last accepted
     * step (a hinge angle unwrapped: whole turns counted), limit_hat the augmented Lagrangian's
     * multiplier λ̂ (statics; a dynamic stage's preload) */
    double *limit_ref, *limit_hat;
    /* the drives' inputs (per joint, default 1; cr_sim_set_joint_drive_input): a dynamic stage
     * drives θ = angle · time(t) · u(t) (position alike) with u ramping (cubic Hermite) from
     * drive_from at rate drive_rate (at the last output time) to drive_to at the next one
     * (drive_input as it was then: a callback may set the next one at that output time) */
    double *drive_input, *drive_from, *drive_rate, *drive_to;
    int inputs_live; /* the next dynamic stage reads the inputs at every output time */
};

/* The limits' augmented Lagrangian (docs/theory.md "Assemblies", joint limits): a limit row
 * with measure φ (unwrapped), range [lo, hi], ε = k and multiplier λ̂ has the force
 *     λ = max(0, λ̂⁺ − ε (φ − lo)) − max(0, λ̂⁻ + ε (φ − hi))      (λ̂± = max(0, ±λ̂))
 * (positive: pushing φ up), i.e. the compliant row k_eff (φ − g0) + λ = 0 on its active
 * branches (k_eff = ε each, 0 when neither presses). At the kink (λ̂ = 0, φ within
 * CR_LIMIT_KINK of the bound) the branch counts as active, as an obstacle's: what holds a
 * free hinge resting on its stop at the first iteration. */
#define CR_LIMIT_KINK 1e-12
/* Row r of joint j at measure g (as cr_asm_joint_eval gives it): returns 1 when the row is
 * compliant (cr_asm_row_compliant) with *k, *c and the measure *gk it multiplies (0 = k gk +
 * c ġ + λ): a spring's own g, or a limit row's φ − g0 with k = k_eff, φ the unwrapped measure
 * about s->limit_ref. *phi (optional): a limit row's unwrapped measure. */
int cr_asm_row_law(const cr_asm_joint *j, const cr_assembly_state *s, int stage, int r, double g, double *k, double *c,
                   double *gk, double *phi);
/* The tolerance of limit row q of joint j: the largest penetration a converged static stage
 * leaves (1e-10 rad; 1e-10 times the longest rod for a slide). */
double cr_asm_limit_tol(const cr_assembly *a, const cr_asm_joint *j, int q);
/* After an accepted step: every limit row's limit_ref ← its unwrapped measure at the state;
 * with drop_released, λ̂ ← 0 where the limit does not press (a dynamic stage's preload). */
void cr_asm_limits_accept(const cr_assembly *a, cr_assembly_state *s, int drop_released);
/* 1 when some joint has a limit. */
int cr_asm_has_limits(const cr_assembly *a);

/* The rows of joint j between the poses (ra, pa) and (rb, pb) with the closing factor f (of
 * the welds' rotations and the position rows' gap) and a drive's (θ, θ̇, θ̈) (a slider drive's (X, Ẋ, Ẍ); NULL: θ = drive_angle · f or X =
 * drive_position · f, at rest): g (rows; a spring row's g is its measure, cr_asm_row_compliant); C (optional, rows ×
 * 12) = ∂g/∂(δr_a, δθ_a, δr_b, δθ_b) with δr in I and δθ body rotation increments (p ← p ⊗ exp(δθ/2)); H (optional, 12
 * × 12) = ∂(Cᵀλ)/∂(the same increments) with the multipliers `lambda` fixed: the joint's geometric stiffness. Cᵀλ is
 * the joint's wrench on the two nodes (forces in I, moments in the node bases), in the rows' layout of the rods'
 * balance equations. */
void cr_asm_joint_eval(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 rb, cr_quat pb,
                       const double *lambda, double *g, double *C, double *H);

/* The velocity-squared part of the joint's second time derivative: with the nodes moving
 * at velocities va, vb (in I) and turning at body angular velocities wa, wb,
 *     g̈ = C (v̇_a, Ω̇_a, v̇_b, Ω̇_b) + bias,
 * bias = 0 on the position rows r_b − r_a; (A_a(Ω_a×(Ω_a×u)))·d + 2 (A_a(Ω_a×u))·ḋ on a
 * slider's (d = r_b − r_a); s·(R(Ω_b×(Ω_b×t)) − Ω_a×(dRt/dt) − Ω_a×R(Ω_b×t)) on a dot row
 * (R = A_aᵀA_b, dRt/dt = −Ω_a×Rt + R(Ω_b×t)); a drive row's s(t) adds s̈·Rt + 2ṡ·dRt/dt.
 * gt (optional, rows): ∂g/∂t at fixed poses (ġ = C u + gt; nonzero on a drive row only).
 * Used by the dynamics' index-1 rows. */
void cr_asm_joint_bias(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 va,
                       cr_vec3 wa, cr_vec3 rb, cr_quat pb, cr_vec3 vb, cr_vec3 wb, double *bias, double *gt);

/* ---- free bodies (assembly_bodies.c) ---- */

/* The pose of interface i: a rod node's, or a free body's centre and orientation. */
void cr_asm_iface_pose(const cr_assembly *a, const cr_assembly_state *s, int i, cr_vec3 *r, cr_quat *p);

/* cr_asm_joint_eval with the poses of the joint's interfaces (ra, pa), (rb, pb): a body end
 * is moved to its point (r + A X), and C and H are taken to the body's own increments
 * (δr of its centre, δθ of its frame): with T = [E −A X~; 0 E] (δr_point = δr − A X~ δθ),
 * C ← C T, H ← Tᵀ H T + [0 0; 0 X~ (Aᵀf)~] (f the force of Cᵀλ on the point: the lever
 * X × (Aᵀ f) turns with the body). Without body ends it is cr_asm_joint_eval. */
void cr_asm_joint_eval_iface(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 rb,
                             cr_quat pb, const double *lambda, double *g, double *C, double *H);

/* cr_asm_joint_bias at the interfaces' poses and velocities, with C in the interfaces'
 * increments (as cr_asm_joint_eval_iface): a body point's acceleration adds A(Ω×(Ω×X)). */
void cr_asm_joint_bias_iface(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 va,
                             cr_vec3 wa, cr_vec3 rb, cr_quat pb, cr_vec3 vb, cr_vec3 wb, double *bias, double *gt);

/* The external wrench on free body b at its state y (13 numbers) with the loads' factors
 * `scale` (body_load_count): force in I, moment in the body frame, in w[6]; dw (optional,
 * 6 × 6 row-major) = ∂w/∂(δr, δθ). */
void cr_asm_body_wrench(const cr_assembly *a, int b, const double *y, const double *scale, double *w, double *dw);

/* Each body load's factor in stage `stage` (1 active, 0 not), as cr_model_stage_load_factors. */
void cr_asm_body_stage_factors(const cr_assembly *a, int stage, double *out);

/* Builds the free bodies and their loads of a definition into a (after the joints); binds
 * the joints' body ends. CR_OK or CR_NO_MEMORY. */
cr_status cr_asm_bodies_create(cr_assembly *a, const cr_assembly_def *def, cr_error *err);

/* The target relative rotation of a weld at closing factor f. */
cr_quat cr_asm_weld_rotation(const cr_asm_joint *j, double f);

/* Checks the joints' constraint rows at the state for redundancy (rank-revealing Gram–
 * Schmidt in the joints' order): CR_BAD_INPUT naming the first joint whose rows repeat
 * earlier ones, else CR_OK. */
cr_status cr_asm_check_redundant(const cr_assembly *a, const cr_assembly_state *s, double f, cr_error *err);

/* After each accepted load step of a static solve; nonzero stops it (CR_INTERRUPTED). */
typedef int (*cr_asm_step_fn)(const cr_assembly *a, const cr_assembly_state *s, const cr_load_step_report *step,
                              int index, void *user);
/* cr_assembly_static_solve under the loads and supports of stage `stage` of every rod (their
 * magnitudes ramp from the state's to the stage's), reporting each accepted step. */
cr_status cr_asm_static_solve_stage(const cr_assembly *a, cr_assembly_state *s, int stage,
                                    const cr_static_options *options, cr_asm_step_fn on_step, void *user,
                                    cr_static_report *report, cr_error *err);
/* A dynamic stage as cr_assembly_dynamic_solve, for the scenario runner (assembly_formulation.c):
 * the stage started at t_stage_start (its output grid; the state's time may be later when
 * resumed), h0 > 0 the first step (a checkpoint's), work_external the external work so far;
 * the samples carry the work of the rods' non-gravity loads from there (the Radau quadrature
 * of every accepted step on its collocation polynomial). on_step (optional) after every
 * accepted step with the state there; nonzero stops (CR_INTERRUPTED). memory (optional, cr_asm_dynamic_memory_size
 * doubles): the integrator's memory, saved after every accepted step; a memory of this stage
 * at the state's time resumes from it (the state's stresses and multipliers as they were, the
 * step-size controller's state), so a run continued from a checkpoint steps as the
 * uninterrupted one. */
typedef int (*cr_asm_dynamic_step_fn)(const cr_assembly *a, const cr_assembly_state *s, double h, long steps,
                                      double work_external, void *user);
int cr_asm_dynamic_memory_size(const cr_assembly *a);
cr_status cr_asm_dynamic_solve_stage(const cr_assembly *a, cr_assembly_state *s, int stage, double t_stage_start,
                                     double h0, double work_external, const cr_dynamic_options *options,
                                     cr_assembly_output_fn on_output, cr_asm_dynamic_step_fn on_step, void *user,
                                     double *memory, cr_dynamic_report *report, cr_error *err);
/* 1 when some joint has a spring, a damper or a drive: the dynamic samples then carry two
 * extra series columns, energy_dissipated_joints (the joints' dampers' Σ ∫ c ġ² dt) and work_drives
 * (the drives' Σ ∫ μ ġ_C dt, their rows' power on the nodes), both from the stage's start;
 * the springs' ½ k g² is in the samples' elastic energy. */
int cr_asm_joint_columns(const cr_assembly *a);

/* For tests (assembly_dynamics.c): the number of unknowns of the assembly's dynamic DAE
 * (19 per node of every rod, then the joints' multipliers), and the DAE at a state:
 * y (initial values as cr_assembly_dynamic_solve makes them, or y_in when given), F(y),
 * and when J is given the Jacobian (N × N, row-major) as the linear solves use it. */
int cr_asm_dynamic_size(const cr_assembly *a);
cr_status cr_asm_dynamic_probe(const cr_assembly *a, cr_assembly_state *s, int stage, const double *y_in, double *y,
                               double *F, double *J, cr_error *err);
/* For tests: the structured solve of (s M − J) x = b at the DAE's state y_in (NULL: the
 * initial one), s = shift_re (+ i shift_im when nonzero; b_im then the imaginary part),
 * in place; mass (N, optional) receives M; *tail_used (optional) the rods solved through
 * their last two blocks. */
cr_status cr_asm_dynamic_probe_solve(const cr_assembly *a, cr_assembly_state *s, int stage, const double *y_in,
                                     double shift_re, double shift_im, double *b_re, double *b_im, double *mass,
                                     int *tail_used, cr_error *err);

/* 1 when some rod of the assembly touches obstacles (its model has a contact): the dynamic
 * samples then carry four more series columns (contact_active, contact_sliding,
 * contact_normal_force, contact_penetration) after the joints' (assembly_dynamics.c). */
int cr_asm_obstacles(const cr_assembly *a);

/* ---- contact between the rods (contact.rods; assembly_contact.c) ----
 * The nodes are numbered globally, rod after rod; a segment k joins its first node
 * seg_node[k] to the next, and segments are numbered alike (rod after rod). */
typedef struct cr_asm_rodpair {
    int a, b;      /* segments a < b, of different rods */
    double lambda; /* the multiplier it was evaluated with (N) */
    cr_seg_closest cp;
    int stick; /* dynamics with friction: its stick anchor (index into the anchors), −1 none */
} cr_asm_rodpair;
typedef struct cr_asm_contact cr_asm_contact;
/* Builds a->contact (radius, ε, tolerance per rod as for obstacles). CR_OK, CR_NO_MEMORY,
 * CR_BAD_INPUT (a section without geometry). */
cr_status cr_asm_contact_create(cr_assembly *a, const cr_assembly_def *def, cr_error *err);
void cr_asm_contact_destroy(cr_asm_contact *c);
int cr_asm_contact_nodes(const cr_asm_contact *c);
/* The rod of global node `node`, and its index there in *local. */
int cr_asm_contact_rod_of(const cr_asm_contact *c, int node, int *local);
double cr_asm_contact_tolerance(const cr_asm_contact *c);
/* A hash of what the contact between the rods is (each rod's ε and radius, tolerance, self,
 * between, μ_s, μ_k): a checkpoint's fingerprint */
uint64_t cr_asm_contact_hash(const cr_asm_contact *c, uint64_t h);
int cr_asm_contact_max_updates(const cr_asm_contact *c); /* contact.max_updates (50 by default) */
/* Takes the rods' node positions and orientations from the state (the forces below are at them). */
void cr_asm_contact_gather(cr_asm_contact *c, const cr_assembly *a, const cr_assembly_state *s);
/* The same from a vector with the rods' nodes one after the other, `stride` doubles a node
 * (the dynamic stage's unknowns: positions first). */
void cr_asm_contact_gather_y(cr_asm_contact *c, const double *y, int stride);
/* The pairs pressing (N = max(0, λ − ε g) > 0; λ the stored multiplier) at the gathered
 * positions, sorted; their number, −1 out of memory. */
int cr_asm_contact_find(cr_asm_contact *c, const cr_asm_rodpair **pairs);
/* Pair k's four global nodes, the forces f[12] on them (I) and K = ∂f/∂x (12 × 12, optional). */
void cr_asm_contact_pair_force(const cr_asm_contact *c, int k, int nodes[4], double *f, double *K);
/* The smallest gap of segments of different rods within reach (2 × the largest contact
 * radius; the reach when none is closer) and the first global nodes of the two segments
 * (unchanged when none). */
double cr_asm_contact_min_gap(cr_asm_contact *c, int *node_a, int *node_b);
/* Statics: no multipliers (a penalty through the load steps); one Uzawa update at an
 * equilibrium (1: converged, every penetration within the tolerance and no pair opened or
 * new; −1 out of memory; *penetration the largest). */
void cr_asm_contact_reset(cr_asm_contact *c);
int cr_asm_contact_update(cr_asm_contact *c, double *penetration);

/* Friction between the rods (contact.rods_friction; docs/theory.md "Contact between rods"),
 * dynamic stages only, as the obstacles' (contact.c) with both sides material: a pair that
 * touches is anchored at its contact point as a point of each rod's surface (the centreline's
 * material point by its arc length, the lever to the contact point in the section's frame); the
 * trial force on rod a is t = −ε P u, u the relative displacement of the two anchored surface
 * points since they touched (P: the tangent plane), held while |t| <= μ_s N (stick, exactly: no
 * creep) and t μ N/|t| otherwise; equal and opposite on rod b, both at the contact point (their
 * moments about the centrelines included). The anchors change only after an accepted step:
 * released when the pair opens, moved along with a sliding pair (|t| = μ_k N), and a pair that
 * came to rest (|t| < μ_k N) sticks again. Begin: friction on, the pressing pairs anchored at
 * the gathered positions; end: off (static stages: cr_asm_contact_static_begin), the anchors kept for a stage
 * that continues. */
int cr_asm_contact_frictional(const cr_asm_contact *c); /* 1 when μ_s > 0 */
/* keep: a continued stage's anchors (none kept, e.g. an unpack out of memory: anchored afresh) */
void cr_asm_contact_dynamic_begin(cr_asm_contact *c, int keep);
/* after an accepted step, at the gathered positions; −1 out of memory */
int cr_asm_contact_dynamic_step(cr_asm_contact *c);
void cr_asm_contact_dynamic_end(cr_asm_contact *c);
/* Friction in static stages (docs/theory.md "Contact between rods"), as the obstacles' augmented
 * Lagrangian: t = P λ_T − ε P u with a multiplier λ_T per pair, μ_s for the stick test and as the
 * sliding force (no sliding speed), the friction at the contact points with its moments, as in
 * dynamics (cr_asm_contact_pair_wrench). Begin (at the gathered positions; multipliers reset): the pressing pairs anchored
 * where they are. Update, at an equilibrium (gathered): λ_T ← the friction force, every pair's
 * anchors re-based at the surface points in contact (a sticking pair's tangential gap carried
 * over, a sliding pair's slip dropped), new pairs anchored (frictionless until the next update),
 * opened ones released; a pair keeps its branch (stick or slip) within a solve and the update
 * decides it by the trial force; returns 1 when no pair was new or opened, 0 otherwise, −1 out
 * of memory; *drift (optional): the largest tangential gap of a sticking pair or slip of a
 * sliding one; *slipped (optional): the pairs that began to slide. Nothing without friction
 * (returns 1). */
void cr_asm_contact_static_begin(cr_asm_contact *c);
int cr_asm_contact_static_update(cr_asm_contact *c, double *drift,
                                 int *slipped); /* *slipped: pairs that began to slide */
/* the anchors and multipliers kept before a load step's updates, and put back when it fails
 * (save: 0, −1 out of memory) */
int cr_asm_contact_static_save(cr_asm_contact *c);
/* the pairs anchored (friction: sticking or sliding) */
int cr_asm_contact_anchored(const cr_asm_contact *c);
void cr_asm_contact_static_restore(cr_asm_contact *c);
/* Checkpoints: the anchors (their count varies with the state: a count, then each anchor).
 * packed_size: what pack writes (0 without friction); unpacked_size: the doubles of a pack that
 * starts at `in` (n available), −1 when they are not this assembly's anchors (a count the pack
 * does not hold, a segment pair it does not have, the list unsorted); unpack (of a pack that
 * unpacked_size accepted): 0, or −1 out of memory (the anchors then dropped: re-anchored) */
int cr_asm_contact_packed_size(const cr_asm_contact *c);
void cr_asm_contact_pack(const cr_asm_contact *c, double *out);
int cr_asm_contact_unpacked_size(const cr_asm_contact *c, const double *in, long n);
int cr_asm_contact_unpack(cr_asm_contact *c, const double *in);
/* Pair k as cr_asm_contact_pair_force with its friction, and the moments mom[12] (I) on the four
 * nodes that the friction acting at the contact point (between the two centrelines, at r_a/(r_a
 * + r_b) of the way from a's) has about them: with them the pair's forces and moments sum to
 * zero force and zero moment about any point (momentum and angular momentum exact). K holds
 * ∂f/∂x with the friction's part, exact at fixed orientations (∂f/∂(rotations) and the moments'
 * derivatives are not formed: the dynamic stages' low-rank term holds force rows and position columns; static
 * stages: cr_asm_contact_pair_wrench). *sliding (optional): 1 when the pair
 * is at its Coulomb limit. */
void cr_asm_contact_pair_force_friction(const cr_asm_contact *c, int k, int nodes[4], double *f, double *K,
                                        double *mom, int *sliding);
/* Pair k in a static stage with friction (docs/theory.md "Friction between the rods in static
 * stages"): the law of cr_asm_contact_pair_force_friction, f (24) = per node its force (I) and
 * its friction moment in the node's body basis (the static residual's moment rows), and J
 * (24 × 28, optional) their exact derivatives by the nodes' positions and quaternions (rows 6 a
 * node: force, moment; columns 7 a node: r, p). */
void cr_asm_contact_pair_wrench(const cr_asm_contact *c, int k, int nodes[4], double *f, double *J);
/* The longest step from the positions and velocities y (a node every `stride` doubles, its
 * velocity v_offset after its position) in which no two segments that may touch come closer
 * than half their distance (centreline to centreline), with every node moving at its velocity:
 * no segment passes through another between two steps (tunnelling). Segments farther apart
 * than the longest segment bound it by a quarter of that length over the largest speed.
 * INFINITY when nothing moves. */
double cr_asm_contact_step_limit(cr_asm_contact *c, const double *y, int stride, int v_offset);

#endif
