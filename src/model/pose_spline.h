/* Tables of poses (a support's or an obstacle's `motion`: rows t, position, rotation vector) as
 * C² cubic splines per channel, at rest at the first and last rows, and the SO(3) left Jacobian
 * that turns a rotation vector's rate into an angular velocity. */
#ifndef COSSERAT_POSE_SPLINE_H
#define COSSERAT_POSE_SPLINE_H

#include "cosserat/base.h"
#include "cosserat/math.h"

/* The cubic coefficients c ((n − 1) × 6 channels × 4, interval-major) of the n rows at strictly
 * increasing times t with values y (n × 6): slopes from C² continuity at the inner rows (a
 * diagonally dominant tridiagonal system, LAPACK dgtsv), zero at the first and last rows, then
 * the Hermite cubic of each interval. CR_NO_MEMORY, CR_SINGULAR (dgtsv refused), or CR_OK. */
cr_status cr_pose_spline_fit(int n, const double *t, const double *y, double *c);

/* The spline at time: values v, rates d1 and (d2 not NULL) second rates; before the first row
 * and after the last it holds that row's pose at rest. */
void cr_pose_spline_eval(int n, const double *t, const double *c, double time, double v[6], double d1[6],
                         double d2[6]);

/* J_l(φ) x, the left Jacobian of SO(3) at φ: ω = J_l(φ) φ̇ for R = Exp(φ) (a rotation vector
 * of any length is followed exactly). */
cr_vec3 cr_so3_left_jacobian_mulv(cr_vec3 phi, cr_vec3 x);

#endif
