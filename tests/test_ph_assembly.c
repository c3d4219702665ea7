/* Assemblies of port-Hamiltonian rods (src/ph/ph_assembly.c). */
#include "check.h"
#include "cosserat/cosserat.h"
#include "ph/ph.h"
#include "ph/ph_assembly.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a straight rod along x from x0 (directors d1 = y, d2 = z, d3 = x, as the scenario adapter) */
static cr_ph *make_rod(const cr_ph_params *p, cr_vec3 x0)
{
    int nn = 2 * p->elements + 1;
    cr_vec3 *x = malloc(sizeof *x * nn);
    cr_mat3 *R = malloc(sizeof *R * nn);
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3_madd(x0, p->length * I / (nn - 1), cr_v3(1, 0, 0));
        R[I] = cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(p, x, R, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x);
    free(R);
    return s;
}

static cr_ph_params soft_params(int ne, double L)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = ne;
    p.length = L;
    double E = 1e7, G = 4e6, r = 0.01, A = M_PI * r * r, I = M_PI * r * r * r * r / 4;
    double k[6] = {G * A, G * A, E * A, E * I, E * I, 2 * G * I};
    memcpy(p.stiffness, k, sizeof k);
    p.rhoA = 1000 * A, p.M11 = p.M22 = 1000 * I;
    p.clamp_start = p.clamp_end = 0;
    return p;
}

/* A cantilever of two rods welded end to end is the rod of both lengths (statics): same nodes. */
static void test_weld_statics(void)
{
    cr_ph_params p1 = soft_params(8, 1.0), ph = soft_params(4, 0.5);
    p1.clamp_start = 1;
    cr_ph *one = make_rod(&p1, cr_v3(0, 0, 0));
    cr_ph_params pa = ph, pb = ph;
    pa.clamp_start = 1;
    cr_ph *ra = make_rod(&pa, cr_v3(0, 0, 0)), *rb = make_rod(&pb, cr_v3(0.5, 0, 0));
    cr_vec3 f1[17] = {{0}}, fb[9] = {{0}}, m1[17] = {{0}}, mb[9] = {{0}};
    f1[16] = fb[8] = cr_v3(0, 0.03, -0.05);
    m1[16] = mb[8] = cr_v3(0.002, 0, 0);
    cr_ph_loads L1 = {.node_force = f1, .node_moment = m1}, Lb = {.node_force = fb, .node_moment = mb};
    cr_ph *k[2] = {ra, rb};
    cr_ph_joint_def jd = {.type = CR_JOINT_WELD, .rod = {0, 1}, .node = {8, 0}};
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(2, k, 1, &jd, &err);
    CHECK(a != NULL);
    const cr_ph_loads *La[2] = {NULL, &Lb};
    int its = 0;
    double res = 0;
    cr_status st1 = cr_ph_solve_static(one, &L1, &its, &res, &err);
    CHECK(st1 == CR_OK);
    cr_status st = cr_ph_asm_solve_static(a, La, &its, &res, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CR_OK);
    double d = 0;
    for (int I = 0; I < 17; ++I) {
        const double *q = one->q + 12 * I, *qa = I <= 8 ? ra->q + 12 * I : rb->q + 12 * (I - 8);
        for (int c = 0; c < 12; ++c) d = fmax(d, fabs(q[c] - qa[c]));
    }
    fprintf(stderr, "weld statics: max |q_one - q_two| = %.3e, %d iterations\n", d, its);
    CHECK(d < 1e-12);
    cr_ph_asm_destroy(a);
    cr_ph_destroy(one), cr_ph_destroy(ra), cr_ph_destroy(rb);
}

CHECK_MAIN({"weld_statics", test_weld_statics})
