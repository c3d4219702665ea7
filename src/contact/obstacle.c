/* Signed distances to the obstacles, with their normals and Hessians (cosserat/contact.h).
 *
 * Everything is computed in the obstacle's axes (x_l = Aᵀ(x − c)) and turned back. Outside a
 * curved part the closest point q(x) of the surface moves with x (Q = ∂q/∂x); with d = x − q,
 * φ = |d| and n = d/|d| the Hessian is H = ∂n/∂x = (E − n nᵀ)(E − Q)/|d|: zero on a flat face
 * (Q projects onto it), (E − n nᵀ)/ρ for a sphere of centre distance ρ, (E − a aᵀ − n nᵀ)/ρ for a
 * cylinder's side. Inside a solid (φ < 0) the nearest face is taken (a box, a capped
 * cylinder): H of that face. Where the normal is undefined (x on an axis or at a centre) an
 * arbitrary one is returned with H = 0. */
#include "cosserat/contact.h"

#include <math.h>

static cr_mat3 outer(cr_vec3 a, cr_vec3 b)
{
    cr_mat3 M;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) M.m[r][c] = cr_v3_get(a, r) * cr_v3_get(b, c);
    return M;
}

static cr_mat3 m3_lin(cr_mat3 a, double s, cr_mat3 b) /* a + s b */
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) a.m[r][c] += s * b.m[r][c];
    return a;
}

static cr_mat3 m3_scale(cr_mat3 a, double s) { return m3_lin(cr_m3_zero(), s, a); }

/* (E − n nᵀ)(E − Q)/dist */
static cr_mat3 hessian_of(cr_vec3 n, cr_mat3 Q, double dist)
{
    cr_mat3 P = m3_lin(cr_m3_identity(), -1.0, outer(n, n));
    return m3_scale(cr_m3_mul(P, m3_lin(cr_m3_identity(), -1.0, Q)), 1.0 / dist);
}

static const cr_vec3 EZ = {0, 0, 1};

int cr_obstacle_distance(const cr_obstacle_def *o, cr_vec3 x, double *phi, cr_vec3 *n_out, cr_mat3 *H_out)
{
    const cr_vec3 xl = cr_m3_tmulv(o->axes, cr_v3_sub(x, o->center));
    if (o->type == CR_OBSTACLE_PLANE) {
        /* the general path below with H = 0 and n = e_z, without building them: an explicit rope's
         * floor asks this of every node at every step (the same results) */
        *phi = fabs(xl.x) <= o->half_extents.x && fabs(xl.y) <= o->half_extents.y ? xl.z : INFINITY;
        if (n_out) *n_out = cr_m3_mulv(o->axes, EZ);
        if (H_out) *H_out = cr_m3_zero();
        return isfinite(*phi);
    }
    double f = INFINITY;
    cr_vec3 n = EZ;
    cr_mat3 H = cr_m3_zero();
    switch (o->type) {
    case CR_OBSTACLE_PLANE:
        if (fabs(xl.x) <= o->half_extents.x && fabs(xl.y) <= o->half_extents.y) f = xl.z;
        break;
    case CR_OBSTACLE_SPHERE: {
        double rho = cr_v3_norm(xl);
        f = rho - o->radius;
        if (rho > 0)
            n = cr_v3_scale(xl, 1.0 / rho), H = m3_scale(m3_lin(cr_m3_identity(), -1.0, outer(n, n)), 1.0 / rho);
        break;
    }
    case CR_OBSTACLE_CYLINDER: {
        cr_vec3 d = {xl.x, xl.y, 0};
        double rho = cr_v3_norm(d), h = 0.5 * o->length;
        cr_vec3 er = rho > 0 ? cr_v3_scale(d, 1.0 / rho) : cr_v3(1, 0, 0);
        /* the side's Hessian (E − a aᵀ − e_r e_rᵀ)/ρ */
        cr_mat3 Hs =
            rho > 0 ? m3_scale(m3_lin(m3_lin(cr_m3_identity(), -1.0, outer(EZ, EZ)), -1.0, outer(er, er)), 1.0 / rho)
                    : cr_m3_zero();
        double fr = rho - o->radius;
        double z = isfinite(h) ? fabs(xl.z) - h : -INFINITY, s = xl.z >= 0 ? 1.0 : -1.0;
        if (fr > 0 && z > 0) { /* nearest the rim: the circle of radius R at height s h */
            cr_vec3 dv = cr_v3_add(cr_v3_scale(er, fr), cr_v3(0, 0, s * z));
            f = cr_v3_norm(dv);
            n = cr_v3_scale(dv, 1.0 / f);
            H = hessian_of(n, m3_scale(Hs, o->radius), f); /* Q = R ∂e_r/∂x */
        } else if (fr >= z) {
            f = fr, n = er, H = Hs;
        } else {
            f = z, n = cr_v3(0, 0, s);
        }
        break;
    }
    case CR_OBSTACLE_CAPSULE: {
        double h = 0.5 * o->length, t = fmin(h, fmax(-h, xl.z));
        cr_vec3 d = cr_v3(xl.x, xl.y, xl.z - t);
        double rho = cr_v3_norm(d);
        f = rho - o->radius;
        if (rho > 0) {
            n = cr_v3_scale(d, 1.0 / rho);
            cr_mat3 P = m3_lin(cr_m3_identity(), -1.0, outer(n, n));
            if (fabs(xl.z) < h) P = m3_lin(P, -1.0, outer(EZ, EZ)); /* the side: no change along the axis */
            H = m3_scale(P, 1.0 / rho);
        }
        break;
    }
    case CR_OBSTACLE_BOX: {
        const double b[3] = {o->half_extents.x, o->half_extents.y, o->half_extents.z}, xv[3] = {xl.x, xl.y, xl.z};
        double q[3], d[3], dd = 0;
        cr_mat3 Q = cr_m3_zero();
        for (int k = 0; k < 3; ++k) {
            q[k] = fmin(b[k], fmax(-b[k], xv[k]));
            d[k] = xv[k] - q[k];
            dd += d[k] * d[k];
            if (fabs(xv[k]) < b[k]) Q.m[k][k] = 1.0; /* the closest point follows x along this edge */
        }
        if (dd > 0) {
            f = sqrt(dd);
            n = cr_v3(d[0] / f, d[1] / f, d[2] / f);
            H = hessian_of(n, Q, f);
        } else { /* inside: the nearest face */
            int k = 0;
            for (int j = 1; j < 3; ++j)
                if (fabs(xv[j]) - b[j] > fabs(xv[k]) - b[k]) k = j;
            f = fabs(xv[k]) - b[k];
            double s = xv[k] >= 0 ? 1.0 : -1.0;
            n = cr_v3(k == 0 ? s : 0, k == 1 ? s : 0, k == 2 ? s : 0);
        }
        break;
    }
    }
    *phi = f;
    if (n_out) *n_out = cr_m3_mulv(o->axes, n);
    if (H_out) { /* a flat face (a plane, a box's face, a cylinder's cap) has none to rotate: 2 3×3
                  * products less, a third of a rope's node force on the ground */
        int flat = 1;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) flat = flat && H.m[a][b] == 0;
        *H_out = flat ? cr_m3_zero() : cr_m3_mul(cr_m3_mul(o->axes, H), cr_m3_transpose(o->axes));
    }
    return isfinite(f);
}

double cr_obstacle_thickness(const cr_obstacle_def *o)
{
    switch (o->type) {
    case CR_OBSTACLE_PLANE: return INFINITY; /* a half-space: the normal never flips */
    case CR_OBSTACLE_SPHERE:
    case CR_OBSTACLE_CAPSULE: return o->radius;
    case CR_OBSTACLE_CYLINDER: return fmin(o->radius, 0.5 * o->length);
    case CR_OBSTACLE_BOX: return fmin(o->half_extents.x, fmin(o->half_extents.y, o->half_extents.z));
    }
    return INFINITY;
}
