/* cosserat — small value types: 3-vectors, 3x3 matrices, quaternions.
 *
 * Conventions, stated once:
 * - Quaternions p = (p0, p1, p2, p3), scalar first, right-handed, angles in radians.
 *   They need not be unit: Exp(p) normalizes (eq. 2 of the mixed discrete rod paper),
 *   so p and a*p (a != 0) describe the same orientation.
 * - cr_mat3 is row-major: m[row][col]. A rotation A maps body (B) components to
 *   inertial (I) components: x_I = A x_B. Its columns are the body basis vectors in I.
 * - x~ ("tilde") is the skew matrix with x~ y = x × y.
 * - 3x4 derivative blocks (d/dp of a 3-vector) are double[3][4], row-major.
 */
#ifndef COSSERAT_MATH_H
#define COSSERAT_MATH_H

#include <math.h>

#ifndef M_PI /* not in strict C11 */
#define M_PI 3.14159265358979323846
#endif

typedef struct cr_vec3 {
    double x, y, z;
} cr_vec3;

typedef struct cr_mat3 {
    double m[3][3];
} cr_mat3;

typedef struct cr_quat {
    double w, x, y, z; /* (p0, p1, p2, p3) */
} cr_quat;

/* ---- vectors ---- */
static inline cr_vec3 cr_v3(double x, double y, double z) { return (cr_vec3){x, y, z}; }
static inline cr_vec3 cr_v3_add(cr_vec3 a, cr_vec3 b) { return (cr_vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline cr_vec3 cr_v3_sub(cr_vec3 a, cr_vec3 b) { return (cr_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline cr_vec3 cr_v3_scale(cr_vec3 a, double s) { return (cr_vec3){s * a.x, s * a.y, s * a.z}; }
static inline cr_vec3 cr_v3_neg(cr_vec3 a) { return (cr_vec3){-a.x, -a.y, -a.z}; }
/* a + s b */
static inline cr_vec3 cr_v3_madd(cr_vec3 a, double s, cr_vec3 b)
{
    return (cr_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}
static inline cr_vec3 cr_v3_mul(cr_vec3 a, cr_vec3 b) { return (cr_vec3){a.x * b.x, a.y * b.y, a.z * b.z}; }
static inline double cr_v3_dot(cr_vec3 a, cr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline cr_vec3 cr_v3_cross(cr_vec3 a, cr_vec3 b)
{
    return (cr_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double cr_v3_norm(cr_vec3 a) { return sqrt(cr_v3_dot(a, a)); }
static inline cr_vec3 cr_v3_normalize(cr_vec3 a)
{
    double n = cr_v3_norm(a);
    return n > 0 ? cr_v3_scale(a, 1.0 / n) : a;
}
static inline double cr_v3_get(cr_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
static inline cr_vec3 cr_v3_load(const double *p) { return (cr_vec3){p[0], p[1], p[2]}; }
static inline void cr_v3_store(cr_vec3 a, double *p)
{
    p[0] = a.x;
    p[1] = a.y;
    p[2] = a.z;
}

/* ---- 3x3 matrices ---- */
static inline cr_mat3 cr_m3_identity(void) { return (cr_mat3){{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}; }
static inline cr_mat3 cr_m3_zero(void) { return (cr_mat3){{{0}}}; }
/* the matrix whose columns are a, b, c */
static inline cr_mat3 cr_m3_columns(cr_vec3 a, cr_vec3 b, cr_vec3 c)
{
    return (cr_mat3){{{a.x, b.x, c.x}, {a.y, b.y, c.y}, {a.z, b.z, c.z}}};
}
static inline cr_vec3 cr_m3_column(cr_mat3 a, int j) { return (cr_vec3){a.m[0][j], a.m[1][j], a.m[2][j]}; }
/* x~, the skew matrix of x */
static inline cr_mat3 cr_m3_skew(cr_vec3 x)
{
    return (cr_mat3){{{0, -x.z, x.y}, {x.z, 0, -x.x}, {-x.y, x.x, 0}}};
}
static inline cr_vec3 cr_m3_mulv(cr_mat3 a, cr_vec3 x)
{
    return (cr_vec3){a.m[0][0] * x.x + a.m[0][1] * x.y + a.m[0][2] * x.z,
                     a.m[1][0] * x.x + a.m[1][1] * x.y + a.m[1][2] * x.z,
                     a.m[2][0] * x.x + a.m[2][1] * x.y + a.m[2][2] * x.z};
}
/* a^T x */
static inline cr_vec3 cr_m3_tmulv(cr_mat3 a, cr_vec3 x)
{
    return (cr_vec3){a.m[0][0] * x.x + a.m[1][0] * x.y + a.m[2][0] * x.z,
                     a.m[0][1] * x.x + a.m[1][1] * x.y + a.m[2][1] * x.z,
                     a.m[0][2] * x.x + a.m[1][2] * x.y + a.m[2][2] * x.z};
}
static inline cr_mat3 cr_m3_mul(cr_mat3 a, cr_mat3 b)
{
    cr_mat3 c;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            c.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return c;
}
static inline cr_mat3 cr_m3_transpose(cr_mat3 a)
{
    cr_mat3 t;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) t.m[i][j] = a.m[j][i];
    return t;
}

/* ---- quaternions ---- */
static inline cr_quat cr_q(double w, double x, double y, double z) { return (cr_quat){w, x, y, z}; }
static inline cr_quat cr_q_identity(void) { return (cr_quat){1, 0, 0, 0}; }
static inline cr_vec3 cr_q_vec(cr_quat p) { return (cr_vec3){p.x, p.y, p.z}; }
static inline double cr_q_dot(cr_quat a, cr_quat b) { return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z; }
static inline double cr_q_norm2(cr_quat p) { return cr_q_dot(p, p); }
static inline cr_quat cr_q_scale(cr_quat p, double s) { return (cr_quat){s * p.w, s * p.x, s * p.y, s * p.z}; }
static inline cr_quat cr_q_add(cr_quat a, cr_quat b) { return (cr_quat){a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline cr_quat cr_q_sub(cr_quat a, cr_quat b) { return (cr_quat){a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline cr_quat cr_q_normalize(cr_quat p) { return cr_q_scale(p, 1.0 / sqrt(cr_q_norm2(p))); }
static inline cr_quat cr_q_load(const double *p) { return (cr_quat){p[0], p[1], p[2], p[3]}; }
static inline void cr_q_store(cr_quat p, double *out)
{
    out[0] = p.w;
    out[1] = p.x;
    out[2] = p.y;
    out[3] = p.z;
}
/* Hamilton product a ⊗ b (rotation b first, then a). */
static inline cr_quat cr_q_mul(cr_quat a, cr_quat b)
{
    return (cr_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                     a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                     a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static inline cr_quat cr_q_conj(cr_quat p) { return (cr_quat){p.w, -p.x, -p.y, -p.z}; }
/* unit quaternion of a rotation by `angle` about the unit axis `axis` */
static inline cr_quat cr_q_axis_angle(cr_vec3 axis, double angle)
{
    double s = sin(0.5 * angle);
    return (cr_quat){cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z};
}

/* Exp(p) = E + 2/|p|^2 (p0 v~ + v~^2), v = p_vec  (eq. 2). */
static inline cr_mat3 cr_q_exp(cr_quat p)
{
    double s = 2.0 / cr_q_norm2(p);
    double w = p.w, x = p.x, y = p.y, z = p.z;
    return (cr_mat3){{{1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)},
                      {s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)},
                      {s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)}}};
}

/* dExp(p) w = 2/|p|^2 (-w0 v + p0 w_vec - v × w_vec)  (eq. 3: dExp = 2/|p|^2 [-v, p0 E - v~]).
 * For a quaternion rate w = dp/dt this is the body angular velocity. */
static inline cr_vec3 cr_q_dexp(cr_quat p, cr_quat w)
{
    double s = 2.0 / cr_q_norm2(p);
    cr_vec3 v = cr_q_vec(p), wv = cr_q_vec(w);
    cr_vec3 h = cr_v3_sub(cr_v3_add(cr_v3_scale(v, -w.w), cr_v3_scale(wv, p.w)), cr_v3_cross(v, wv));
    return cr_v3_scale(h, s);
}

/* dExp⁺(p) Ω = ½ (-v·Ω, p0 Ω + v × Ω)  (eq. 4): the quaternion rate of a body angular
 * velocity Ω. dExp(p) dExp⁺(p) = E for every p != 0. */
static inline cr_quat cr_q_dexp_plus(cr_quat p, cr_vec3 omega)
{
    cr_vec3 v = cr_q_vec(p);
    cr_vec3 t = cr_v3_add(cr_v3_scale(omega, p.w), cr_v3_cross(v, omega));
    return (cr_quat){-0.5 * cr_v3_dot(v, omega), 0.5 * t.x, 0.5 * t.y, 0.5 * t.z};
}

/* Unit quaternion of a proper rotation matrix (Shepperd's method). */
cr_quat cr_q_from_matrix(cr_mat3 a);

/* Spherical linear interpolation between unit quaternions, t in [0, 1]. */
cr_quat cr_q_slerp(cr_quat a, cr_quat b, double t);

/* ---- exact derivatives with respect to the (non-unit) quaternion ----
 * Each writes the 3x4 matrix d(...)/dp, columns ordered (p0, p1, p2, p3). */

/* d(Exp(p) x)/dp for fixed x. */
void cr_q_exp_mulv_dp(cr_quat p, cr_vec3 x, double out[3][4]);
/* d(Exp(p)^T x)/dp for fixed x. */
void cr_q_exp_tmulv_dp(cr_quat p, cr_vec3 x, double out[3][4]);
/* d(dExp(p) w)/dp for fixed w. */
void cr_q_dexp_mulv_dp(cr_quat p, cr_quat w, double out[3][4]);
/* The 3x4 matrix dExp(p) itself. */
void cr_q_dexp_matrix(cr_quat p, double out[3][4]);

#endif
