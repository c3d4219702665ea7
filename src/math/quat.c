/* Quaternion helpers that are too large to inline: conversion from a rotation
 * matrix, slerp, and the exact derivatives of Exp, dExp with respect to a
 * non-unit quaternion (used by every analytic Jacobian of the mixed rod). */
#include "cosserat/math.h"

cr_quat cr_q_from_matrix(cr_mat3 a)
{
    /* Shepperd: pick the largest of the four squared components for stability. */
    double tr = a.m[0][0] + a.m[1][1] + a.m[2][2];
    double c[4] = {1 + tr, 1 + 2 * a.m[0][0] - tr, 1 + 2 * a.m[1][1] - tr, 1 + 2 * a.m[2][2] - tr};
    int k = 0;
    for (int i = 1; i < 4; ++i)
        if (c[i] > c[k]) k = i;
    double s = 0.5 * sqrt(c[k]), f = 0.25 / s;
    cr_quat q;
    switch (k) {
    case 0:
        q = (cr_quat){s, (a.m[2][1] - a.m[1][2]) * f, (a.m[0][2] - a.m[2][0]) * f, (a.m[1][0] - a.m[0][1]) * f};
        break;
    case 1:
        q = (cr_quat){(a.m[2][1] - a.m[1][2]) * f, s, (a.m[0][1] + a.m[1][0]) * f, (a.m[0][2] + a.m[2][0]) * f};
        break;
    case 2:
        q = (cr_quat){(a.m[0][2] - a.m[2][0]) * f, (a.m[0][1] + a.m[1][0]) * f, s, (a.m[1][2] + a.m[2][1]) * f};
        break;
    default:
        q = (cr_quat){(a.m[1][0] - a.m[0][1]) * f, (a.m[0][2] + a.m[2][0]) * f, (a.m[1][2] + a.m[2][1]) * f, s};
        break;
    }
    if (q.w < 0) q = cr_q_scale(q, -1.0);
    return cr_q_normalize(q);
}

cr_quat cr_q_slerp(cr_quat a, cr_quat b, double t)
{
    double d = cr_q_dot(a, b);
    if (d < 0) { /* shortest arc */
        b = cr_q_scale(b, -1.0);
        d = -d;
    }
    if (d > 0.9995) return cr_q_normalize(cr_q_add(a, cr_q_scale(cr_q_sub(b, a), t)));
    double th = acos(d), s = sin(th);
    return cr_q_add(cr_q_scale(a, sin((1 - t) * th) / s), cr_q_scale(b, sin(t * th) / s));
}

/* g(p) = (2/|p|^2) f(p)  =>  dg/dp = (2/|p|^2) (df/dp - (2/|p|^2) f p^T). */
static void scaled_derivative(cr_quat p, cr_vec3 f, double df[3][4], double out[3][4])
{
    double s = 2.0 / cr_q_norm2(p);
    double pp[4] = {p.w, p.x, p.y, p.z}, fv[3] = {f.x, f.y, f.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) out[i][j] = s * (df[i][j] - s * fv[i] * pp[j]);
}

/* Exp(p) x = x + (2/|p|^2) f, f = sigma p0 v×x + v×(v×x), sigma = +1 (A x) or -1 (A^T x).
 * df/dp0 = sigma v×x; df/dv = -sigma p0 x~ + (v·x) E + v x^T - 2 x v^T. */
static void exp_apply_dp(cr_quat p, cr_vec3 x, double sigma, double out[3][4])
{
    cr_vec3 v = cr_q_vec(p);
    cr_vec3 vx = cr_v3_cross(v, x);
    cr_vec3 f = cr_v3_add(cr_v3_scale(vx, sigma * p.w), cr_v3_cross(v, vx));
    double vd = cr_v3_dot(v, x);
    double xv[3] = {x.x, x.y, x.z}, vv[3] = {v.x, v.y, v.z}, vxv[3] = {vx.x, vx.y, vx.z};
    cr_mat3 xt = cr_m3_skew(x);
    double df[3][4];
    for (int i = 0; i < 3; ++i) {
        df[i][0] = sigma * vxv[i];
        for (int j = 0; j < 3; ++j)
            df[i][j + 1] = -sigma * p.w * xt.m[i][j] + (i == j ? vd : 0.0) + vv[i] * xv[j] - 2.0 * xv[i] * vv[j];
    }
    scaled_derivative(p, f, df, out);
}

void cr_q_exp_mulv_dp(cr_quat p, cr_vec3 x, double out[3][4]) { exp_apply_dp(p, x, 1.0, out); }
void cr_q_exp_tmulv_dp(cr_quat p, cr_vec3 x, double out[3][4]) { exp_apply_dp(p, x, -1.0, out); }

/* dExp(p) w = (2/|p|^2) h, h = -w0 v + p0 w_v - v×w_v; dh/dp0 = w_v, dh/dv = -w0 E + w_v~. */
void cr_q_dexp_mulv_dp(cr_quat p, cr_quat w, double out[3][4])
{
    cr_vec3 v = cr_q_vec(p), wv = cr_q_vec(w);
    cr_vec3 h = cr_v3_sub(cr_v3_add(cr_v3_scale(v, -w.w), cr_v3_scale(wv, p.w)), cr_v3_cross(v, wv));
    cr_mat3 wt = cr_m3_skew(wv);
    double wvv[3] = {wv.x, wv.y, wv.z}, df[3][4];
    for (int i = 0; i < 3; ++i) {
        df[i][0] = wvv[i];
        for (int j = 0; j < 3; ++j) df[i][j + 1] = (i == j ? -w.w : 0.0) + wt.m[i][j];
    }
    scaled_derivative(p, h, df, out);
}

void cr_q_dexp_matrix(cr_quat p, double out[3][4])
{
    double s = 2.0 / cr_q_norm2(p);
    cr_vec3 v = cr_q_vec(p);
    cr_mat3 vt = cr_m3_skew(v);
    double vv[3] = {v.x, v.y, v.z};
    for (int i = 0; i < 3; ++i) {
        out[i][0] = -s * vv[i];
        for (int j = 0; j < 3; ++j) out[i][j + 1] = s * ((i == j ? p.w : 0.0) - vt.m[i][j]);
    }
}
