/* Central-difference check of an analytic block-tridiagonal Jacobian, shared by the
 * static and dynamic Jacobian tests. */
#ifndef COSSERAT_TEST_FD_JACOBIAN_H
#define COSSERAT_TEST_FD_JACOBIAN_H
#include "linalg/blocktri.h"

/* F = residual(x); J (may be NULL) = dF/dx. */
typedef void (*fd_residual_fn)(void *ctx, const double *x, double *F, cr_blocktri *J);

/* max |J_analytic - J_fd| / max |J_analytic| over all entries (the off-band part of
 * the difference quotient counts too), steps h = 1e-6 max(1, |x_c|). */
double fd_jacobian_error(int blocks, int b, fd_residual_fn residual, void *ctx, const double *x0);

#endif
