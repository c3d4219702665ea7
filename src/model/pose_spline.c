/* Tables of poses as C² cubic splines (pose_spline.h): shared by supports (src/mixed/model.c) and
 * obstacles (src/contact/motion.c), so a `motion` table means one path everywhere. */
#include "model/pose_spline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b, const int *ldb,
                   int *info);

cr_status cr_pose_spline_fit(int n, const double *t, const double *y, double *c)
{
    const int ni = n - 2;
    double *m = calloc((size_t)n * 6, sizeof *m);
    double *dl = malloc((size_t)(ni > 0 ? ni : 1) * 3 * sizeof(double)),
           *rhs = malloc((size_t)(ni > 0 ? ni : 1) * 6 * sizeof(double));
    cr_status st = CR_OK;
    if (!m || !dl || !rhs) {
        st = CR_NO_MEMORY;
        goto done;
    }
    if (ni > 0) { /* rows 1..n-2: h1 m_{j-1} + 2 (h0 + h1) m_j + h0 m_{j+1} = 3 (h1 d0 + h0 d1) */
        double *lo = dl, *di = dl + ni, *up = dl + 2 * ni;
        for (int r = 0; r < ni; ++r) {
            const int j = r + 1;
            const double h0 = t[j] - t[j - 1], h1 = t[j + 1] - t[j];
            di[r] = 2 * (h0 + h1);
            if (r > 0) lo[r - 1] = h1;
            if (r < ni - 1) up[r] = h0;
            for (int ch = 0; ch < 6; ++ch)
                rhs[(size_t)ch * ni + r] = 3 * (h1 * (y[j * 6 + ch] - y[(j - 1) * 6 + ch]) / h0 +
                                                h0 * (y[(j + 1) * 6 + ch] - y[j * 6 + ch]) / h1);
        }
        int nrhs = 6, info = 0, ld = ni;
        dgtsv_(&ld, &nrhs, lo, di, up, rhs, &ld, &info); /* diagonally dominant: no pivot vanishes */
        if (info != 0) {
            st = CR_SINGULAR;
            goto done;
        }
        for (int r = 0; r < ni; ++r)
            for (int ch = 0; ch < 6; ++ch) m[(r + 1) * 6 + ch] = rhs[(size_t)ch * ni + r];
    }
    for (int j = 0; j + 1 < n; ++j) {
        const double h = t[j + 1] - t[j];
        for (int ch = 0; ch < 6; ++ch) {
            const double d = (y[(j + 1) * 6 + ch] - y[j * 6 + ch]) / h, m0 = m[j * 6 + ch], m1 = m[(j + 1) * 6 + ch];
            double *cj = c + ((size_t)j * 6 + ch) * 4;
            cj[0] = y[j * 6 + ch], cj[1] = m0, cj[2] = (3 * d - 2 * m0 - m1) / h, cj[3] = (m0 + m1 - 2 * d) / (h * h);
        }
    }
done:
    free(m), free(dl), free(rhs);
    return st;
}

void cr_pose_spline_eval(int n, const double *t, const double *c, double time, double v[6], double d1[6],
                         double d2[6])
{
    int j = 0;
    double u;
    if (time <= t[0])
        j = 0, u = 0;
    else if (time >= t[n - 1])
        j = n - 2, u = t[n - 1] - t[n - 2];
    else {
        int lo = 0, hi = n - 1; /* bisection: t[lo] <= time < t[hi] */
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (t[mid] <= time)
                lo = mid;
            else
                hi = mid;
        }
        j = lo, u = time - t[j];
    }
    const int outside = time <= t[0] || time >= t[n - 1]; /* at rest */
    for (int ch = 0; ch < 6; ++ch) {
        const double *cj = c + ((size_t)j * 6 + ch) * 4;
        v[ch] = cj[0] + u * (cj[1] + u * (cj[2] + u * cj[3]));
        d1[ch] = outside ? 0.0 : cj[1] + u * (2 * cj[2] + 3 * u * cj[3]);
        if (d2) d2[ch] = outside ? 0.0 : 2 * cj[2] + 6 * u * cj[3];
    }
}

cr_vec3 cr_so3_left_jacobian_mulv(cr_vec3 phi, cr_vec3 x)
{
    const double th = cr_v3_norm(phi);
    double a, b;
    if (th < 1e-4)
        a = 0.5 - th * th / 24, b = 1.0 / 6 - th * th / 120;
    else
        a = (1 - cos(th)) / (th * th), b = (th - sin(th)) / (th * th * th);
    const cr_vec3 px = cr_v3_cross(phi, x);
    return cr_v3_add(cr_v3_add(x, cr_v3_scale(px, a)), cr_v3_scale(cr_v3_cross(phi, px), b));
}
