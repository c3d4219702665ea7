/* The pose of a moving obstacle at time t (cosserat/contact.h: constant rates, a table of poses or a
 * time function), with its velocity and angular velocity: what the rods' contacts (contact.c, the
 * port-Hamiltonian rod's ph_contact.c) place the obstacle with. Internal. */
#ifndef COSSERAT_CONTACT_MOTION_H
#define COSSERAT_CONTACT_MOTION_H

#include "cosserat/contact.h"
#include "cosserat/model.h"

/* One obstacle's motion, with its own copies of the table (as a spline) and the time function. */
typedef struct cr_obstacle_path {
    int kind;                                         /* CR_PATH_* */
    cr_vec3 center;                                   /* the obstacle's centre as given (a table places it) */
    cr_vec3 velocity, acceleration, angular_velocity; /* CR_PATH_RATES */
    int count;                                        /* CR_PATH_TABLE: rows */
    double *t, *c; /* ... their times, and per interval and channel (x, y, z, φx, φy, φz) 4 cubic coefficients */
    cr_time_function time;          /* CR_PATH_TIME, its points copied */
    cr_vec3 displacement, rotation; /* ... at f = 1 */
    int turns;                      /* the obstacle may turn (else R = E at every t) */
    int moves;                      /* it moves at all */
} cr_obstacle_path;

enum { CR_PATH_RATES = 0, CR_PATH_TABLE = 1, CR_PATH_TIME = 2 };

/* The obstacle at time t: the one given turned by R about its centre c, then moved by `shift`;
 * a material point X of the obstacle given is at c + shift + R (X − c). Its centre moves at v and
 * it turns at ω (I): a point r of it moves at v + ω × (r − c − shift). */
typedef struct cr_obstacle_pose {
    cr_mat3 R;
    cr_vec3 shift, v, w;
} cr_obstacle_pose;

/* The path of o (copies what o points to). CR_NO_MEMORY or CR_BAD_INPUT (a table's times not
 * increasing, fewer than 2 rows, a non-finite entry: named as obstacles.K.motion.J) with err set. */
cr_status cr_obstacle_path_init(cr_obstacle_path *p, const cr_obstacle_def *o, int index, cr_error *err);
void cr_obstacle_path_free(cr_obstacle_path *p);

/* The pose at time t. */
void cr_obstacle_path_at(const cr_obstacle_path *p, double t, cr_obstacle_pose *pose);

/* The key that turns o (angular_velocity, motion, rotation) or NULL: what a model whose obstacles
 * only translate names in its refusal; and the key that moves it at all (velocity, acceleration,
 * angular_velocity, motion, time / position / rotation) or NULL. */
const char *cr_obstacle_turning_key(const cr_obstacle_def *o);
const char *cr_obstacle_moving_key(const cr_obstacle_def *o);

/* Bounds on the speed of the obstacle's centre (*v) and its angular speed (*w) over [t0, t1] (t1
 * may be INFINITY): the spline's or the time function's derivative at its extremes; constant rates:
 * |v + a t| at the ends (INFINITY for an endless acceleration), |ω|. What the step limit against
 * tunnelling needs before the obstacle starts moving (a table starting later, at rest until then). */
void cr_obstacle_path_speed(const cr_obstacle_path *p, double t0, double t1, double *v, double *w);

/* The translation of o at t = 0 (a table's first row; a time function's f(0) displacement): where a
 * translating obstacle starts (a turning one is the mixed rod's alone, which places it itself). */
cr_vec3 cr_obstacle_start_shift(const cr_obstacle_def *o);

/* Folds the path into the FNV-1a hash h (a checkpoint fits one motion). */
unsigned long long cr_obstacle_path_hash(const cr_obstacle_path *p, unsigned long long h);

#endif
