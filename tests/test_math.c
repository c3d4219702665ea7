/* Quaternion kinematics (eqs. 2–4) and the exact derivatives of Exp and dExp,
 * checked against central differences on random non-unit quaternions. */
#include "check.h"
#include "cosserat/math.h"

#include <stdlib.h>

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }
static cr_quat rand_quat(void) { return cr_q(urand() + 0.2, urand(), urand(), urand()); }
static cr_vec3 rand_vec(void) { return cr_v3(urand(), urand(), urand()); }

static void test_exp_is_rotation(void)
{
    srand(1);
    for (int t = 0; t < 50; ++t) {
        cr_quat p = cr_q_scale(rand_quat(), 3.0); /* non-unit on purpose */
        cr_mat3 A = cr_q_exp(p), AtA = cr_m3_mul(cr_m3_transpose(A), A);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) CHECK_NEAR(AtA.m[i][j], i == j, 1e-14);
        double det = cr_v3_dot(cr_m3_column(A, 0), cr_v3_cross(cr_m3_column(A, 1), cr_m3_column(A, 2)));
        CHECK_NEAR(det, 1.0, 1e-14);
        /* Exp is invariant under scaling and matches the unit-quaternion round trip */
        cr_quat u = cr_q_from_matrix(A), pn = cr_q_normalize(p);
        double sgn = cr_q_dot(u, pn) < 0 ? -1 : 1;
        CHECK_NEAR(u.w, sgn * pn.w, 1e-13);
        CHECK_NEAR(u.x, sgn * pn.x, 1e-13);
        CHECK_NEAR(u.z, sgn * pn.z, 1e-13);
    }
}

static void test_axis_angle(void)
{
    /* rotation by 90° about z maps x to y */
    cr_mat3 A = cr_q_exp(cr_q_axis_angle(cr_v3(0, 0, 1), M_PI / 2));
    cr_vec3 y = cr_m3_mulv(A, cr_v3(1, 0, 0));
    CHECK_NEAR(y.x, 0, 1e-15);
    CHECK_NEAR(y.y, 1, 1e-15);
}

static void test_dexp_inverse(void)
{
    /* dExp(p) dExp⁺(p) = E (eqs. 3–4), and dExp maps a quaternion rate to the body
     * angular velocity: A' = A Ω~ checked by differencing Exp along p + t dExp⁺(p) Ω. */
    srand(2);
    for (int t = 0; t < 20; ++t) {
        cr_quat p = cr_q_scale(rand_quat(), 0.7);
        cr_vec3 om = rand_vec();
        cr_vec3 back = cr_q_dexp(p, cr_q_dexp_plus(p, om));
        CHECK_NEAR(back.x, om.x, 1e-14);
        CHECK_NEAR(back.y, om.y, 1e-14);
        CHECK_NEAR(back.z, om.z, 1e-14);
        double h = 1e-6;
        cr_quat pd = cr_q_dexp_plus(p, om);
        cr_mat3 Ap = cr_q_exp(cr_q_add(p, cr_q_scale(pd, h))), Am = cr_q_exp(cr_q_sub(p, cr_q_scale(pd, h)));
        cr_mat3 A = cr_q_exp(p), W = cr_m3_mul(A, cr_m3_skew(om));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) CHECK_NEAR((Ap.m[i][j] - Am.m[i][j]) / (2 * h), W.m[i][j], 1e-8);
    }
}

typedef cr_vec3 (*qfun)(cr_quat p, const void *arg);
static cr_vec3 f_exp(cr_quat p, const void *a) { return cr_m3_mulv(cr_q_exp(p), *(const cr_vec3 *)a); }
static cr_vec3 f_expt(cr_quat p, const void *a) { return cr_m3_tmulv(cr_q_exp(p), *(const cr_vec3 *)a); }
static cr_vec3 f_dexp(cr_quat p, const void *a) { return cr_q_dexp(p, *(const cr_quat *)a); }

static double fd_error(qfun f, const void *arg, cr_quat p, double D[3][4])
{
    double worst = 0, h = 1e-6;
    for (int j = 0; j < 4; ++j) {
        double e[4] = {0};
        e[j] = h;
        cr_quat dp = cr_q_load(e);
        cr_vec3 fp = f(cr_q_add(p, dp), arg), fm = f(cr_q_sub(p, dp), arg);
        cr_vec3 d = cr_v3_scale(cr_v3_sub(fp, fm), 0.5 / h);
        for (int i = 0; i < 3; ++i) {
            double diff = fabs(cr_v3_get(d, i) - D[i][j]);
            if (diff > worst) worst = diff;
        }
    }
    return worst;
}

static void test_derivatives(void)
{
    srand(3);
    for (int t = 0; t < 50; ++t) {
        cr_quat p = cr_q_scale(rand_quat(), 1.3), w = rand_quat();
        cr_vec3 x = rand_vec();
        double D[3][4];
        cr_q_exp_mulv_dp(p, x, D);
        CHECK(fd_error(f_exp, &x, p, D) < 1e-8);
        cr_q_exp_tmulv_dp(p, x, D);
        CHECK(fd_error(f_expt, &x, p, D) < 1e-8);
        cr_q_dexp_mulv_dp(p, w, D);
        CHECK(fd_error(f_dexp, &w, p, D) < 1e-8);
        /* dExp matrix agrees with the matrix-free product */
        cr_q_dexp_matrix(p, D);
        cr_vec3 v = cr_q_dexp(p, w);
        for (int i = 0; i < 3; ++i)
            CHECK_NEAR(D[i][0] * w.w + D[i][1] * w.x + D[i][2] * w.y + D[i][3] * w.z, cr_v3_get(v, i), 1e-14);
    }
}

static void test_slerp(void)
{
    cr_quat a = cr_q_identity(), b = cr_q_axis_angle(cr_v3(0, 1, 0), 1.2);
    cr_quat m = cr_q_slerp(a, b, 0.25), e = cr_q_axis_angle(cr_v3(0, 1, 0), 0.3);
    CHECK_NEAR(m.w, e.w, 1e-15);
    CHECK_NEAR(m.y, e.y, 1e-15);
}

CHECK_MAIN(CASE(test_exp_is_rotation), CASE(test_axis_angle), CASE(test_dexp_inverse), CASE(test_derivatives),
           CASE(test_slerp))
