/* cosserat — obstacles and contact of a rod with them (docs/theory.md "Contact with
 * obstacles", docs/scenario.md `obstacles`, `contact`).
 *
 * Obstacles are rigid, fixed in the inertial basis I, moving at constant rates or driven by a table of poses or a
 * time function. A node of the rod
 * touches an obstacle when its centre comes within the contact radius a of the obstacle's surface (gap g = φ(r) − a ≤
 * 0, φ the signed distance, positive outside). Lengths in m, forces in N. */
#ifndef COSSERAT_CONTACT_H
#define COSSERAT_CONTACT_H

#include "cosserat/math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_obstacle_type {
    CR_OBSTACLE_PLANE = 0, /* the half-space below a plane; finite: a rectangle of it */
    CR_OBSTACLE_SPHERE,
    CR_OBSTACLE_CYLINDER, /* infinite, or capped (a finite length) */
    CR_OBSTACLE_CAPSULE,  /* the points within `radius` of a segment */
    CR_OBSTACLE_BOX
} cr_obstacle_type;

typedef struct cr_obstacle_def {
    char name[64];
    cr_obstacle_type type;
    cr_vec3 center; /* plane: a point of it; others: the centre */
    /* the obstacle's axes (columns, in I, orthonormal, right-handed): plane: column 2 is the
     * normal (pointing to the free side), columns 0 and 1 span it; cylinder and capsule:
     * column 2 is the axis; box: its edges */
    cr_mat3 axes;
    double radius;                /* sphere, cylinder, capsule */
    double length;                /* cylinder: full length (INFINITY: infinite); capsule: the segment's length */
    cr_vec3 half_extents;         /* box: half edges along its axes; plane: x, y half sizes (INFINITY: unbounded) */
    double mu_static, mu_kinetic; /* Coulomb coefficients (0: frictionless); kinetic <= static */
    /* a moving obstacle translates by v t + a t²/2 at the run's time t (m/s, m/s²; zeros: fixed) */
    cr_vec3 velocity, acceleration;
    /* and turns at the constant angular velocity ω (rad/s, I) about its centre (a plane: its point):
     * at time t it is the obstacle given turned by Exp(ω t) about `center`, then translated */
    cr_vec3 angular_velocity;
    /* a driven obstacle, instead of velocity, acceleration and angular_velocity (the scenario keys
     * `motion`, `position`, `rotation`, `time`; docs/scenario.md `obstacles`):
     * - a table of poses (motion_count >= 2 rows, t increasing): at time t its centre (a plane: its
     *   point) is at the row's `position` (I) and the obstacle given is turned about it by
     *   Exp(`rotation`) (rotation vector, I components); a cubic spline through the rows, at rest at
     *   the first and the last (C² between them), the first pose before it, the last after it, as a
     *   support's table of poses;
     * - or a time function (`time` non-NULL): at time t, with f = time(t), the centre moved by
     *   f `displacement` and the obstacle turned by Exp(f `rotation`) about it.
     * The pointed-to rows and function are copied where the obstacles are (the contact's creation). */
    int motion_count;
    const struct cr_bc_motion_point *motion;
    const struct cr_time_function *time;
    cr_vec3 displacement, rotation;
} cr_obstacle_def;

/* The contact options of a rod (zeros: the defaults). */
typedef struct cr_contact_def {
    double radius;    /* contact radius (m); 0: the section's (circle: its radius; rectangle: the larger
                         half side) at each node */
    double tolerance; /* largest penetration and stick drift a converged static stage leaves (m);
                         0: 1e-4 × the smallest contact radius */
    double stiffness; /* augmentation parameter ε (N/m) of the augmented Lagrangian; 0: 100 × the
                         largest axial element stiffness EA/L_el */
    int max_updates;  /* multiplier updates of a static stage; 0: 50 */
    int self;         /* 1: contact of the rod with itself (segment–segment, mixed_discrete static and dynamic
                         stages, a single rod or each rod of an assembly) */
    double stick_speed; /* port_hamiltonian friction: the regularization speed (m/s) below which a node
                           sticks; 0: 1e-5 m/s */
    int rods;         /* 1: contact between the different rods of an assembly (segment–segment,
                         mixed_discrete static and dynamic stages; friction: rods_mu_*) */
    /* Coulomb friction between the rods' segments of an assembly (contact.rods_friction; 0:
     * frictionless), dynamic stages; kinetic <= static */
    double rods_mu_static, rods_mu_kinetic;
    int rolling; /* 1: obstacle friction acts at the contact point (a moment, the surface point's slip:
                    a rod rolls), every model (not port_hamiltonian assemblies); 0: at the node's centre */
} cr_contact_def;

/* Signed distance φ from x to the obstacle's surface (negative inside), its gradient n
 * (unit: the outward normal at the closest point) and the Hessian H = ∂n/∂x (symmetric;
 * zero on flat faces). A finite plane gives φ = INFINITY (no contact) where x projects
 * outside its rectangle. Returns 0 when φ is finite. */
int cr_obstacle_distance(const cr_obstacle_def *o, cr_vec3 x, double *phi, cr_vec3 *n, cr_mat3 *H);

#ifdef __cplusplus
}
#endif
#endif
