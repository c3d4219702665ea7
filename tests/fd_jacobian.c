#include "fd_jacobian.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* entry (r, c) of a block-tridiagonal matrix, 0 outside the band */
static double entry(const cr_blocktri *J, int r, int c)
{
    int b = J->b, rb = r / b, cb = c / b;
    size_t off = (size_t)rb * b * b + (size_t)(r % b) * b + c % b;
    if (cb == rb) return J->diag[off];
    if (cb == rb - 1) return J->lower[off];
    if (cb == rb + 1) return J->upper[off];
    return 0.0;
}

double fd_jacobian_error(int blocks, int b, fd_residual_fn residual, void *ctx, const double *x0)
{
    int N = blocks * b;
    cr_blocktri *J = cr_blocktri_create(blocks, b);
    double *F = malloc(N * sizeof *F), *Fp = malloc(N * sizeof *F), *Fm = malloc(N * sizeof *F);
    double *x = malloc(N * sizeof *x);
    memcpy(x, x0, N * sizeof *x);
    residual(ctx, x, F, J);
    double worst = 0, scale = 0;
    for (int c = 0; c < N; ++c) {
        double h = 1e-6 * fmax(1.0, fabs(x0[c]));
        x[c] = x0[c] + h;
        residual(ctx, x, Fp, NULL);
        x[c] = x0[c] - h;
        residual(ctx, x, Fm, NULL);
        x[c] = x0[c];
        for (int r = 0; r < N; ++r) {
            double a = entry(J, r, c);
            worst = fmax(worst, fabs((Fp[r] - Fm[r]) / (2 * h) - a));
            scale = fmax(scale, fabs(a));
        }
    }
    free(F);
    free(Fp);
    free(Fm);
    free(x);
    cr_blocktri_destroy(J);
    return worst / scale;
}
