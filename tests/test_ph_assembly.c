/* Assemblies of port-Hamiltonian rods (src/ph/ph_assembly.c) against independent references:
 *   weld_statics   a cantilever of two rods welded end to end is the one rod of both lengths
 *                  (the same equations at every node: equal to round-off)
 *   weld_dynamics  a free rod of two welded halves swings as the one rod (to the Newton tolerance)
 *   free_flight    a free assembly (a kinked weld, a hinge, a ball) spinning and folding: linear and
 *                  angular momentum exact to round-off, the discrete energy balance to the Newton
 *                  tolerance (the joints do no work: docs/port-hamiltonian.md "Assemblies")
 *   prismatic_statics, cylindrical_statics, universal_statics   two rods clamped at their far ends,
 *                  joined in the middle: what the joint frees is carried by rod a alone (Hooke's
 *                  law, beam and torsion formulas), what it holds is shared (statically
 *                  indeterminate beams in closed form)
 *   coupled_fd     the slider and universal rows' gradients and Hessians against central differences
 *   joints_free_flight  a free assembly on a prismatic, a cylindrical and a universal joint,
 *                  spinning, sliding and turning: momenta exact, energy balance to the tolerance
 *   drive_statics  a motor turns a free rod on a hinge rigidly (its tip exact), and holds a load's
 *                  moment (the lever arm)
 *   drive_free_flight  two free rods and a motor between them: momenta exact, H - H0 = the motor's
 *                  work */
#include "check.h"
#include "cosserat/cosserat.h"
#include "ph/ph.h"
#include "ph/ph_assembly.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a straight rod from x0 along d3 with the directors R = [d1 d2 d3] */
static cr_ph *make_rod_R(const cr_ph_params *p, cr_vec3 x0, cr_mat3 R0)
{
    int nn = 2 * p->elements + 1;
    cr_vec3 *x = malloc(sizeof *x * nn);
    cr_mat3 *R = malloc(sizeof *R * nn);
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3_madd(x0, p->length * I / (nn - 1), cr_m3_column(R0, 2));
        R[I] = R0;
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(p, x, R, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x);
    free(R);
    return s;
}

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
    /* the weld's wrench on rod a: rod b's equilibrium, the tip loads moved to the weld's node */
    cr_vec3 f, m, xt = cr_ph_position(rb, 8), xj = cr_ph_position(rb, 0);
    cr_ph_asm_joint_reaction(a, 0, &f, &m);
    cr_vec3 mref = cr_v3_add(mb[8], cr_v3_cross(cr_v3_sub(xt, xj), fb[8]));
    double ef = cr_v3_norm(cr_v3_sub(f, fb[8])), em = cr_v3_norm(cr_v3_sub(m, mref));
    fprintf(stderr, "weld statics: wrench (%.6g, %.6g, %.6g) N, (%.6g, %.6g, %.6g) N m; off by %.2e N, %.2e N m\n", f.x,
            f.y, f.z, m.x, m.y, m.z, ef, em);
    CHECK(ef < 1e-10 * cr_v3_norm(fb[8]) && em < 1e-10 * cr_v3_norm(mref));
    cr_ph_asm_destroy(a);
    cr_ph_destroy(one), cr_ph_destroy(ra), cr_ph_destroy(rb);
}

/* the velocity field of a rigid motion (V, w) about the origin on every node, plus w2 about the
 * point c on the nodes of `extra` (a hinge's relative turn; zero at the hinge node when c is on it) */
static void set_rigid_velocity(cr_ph *s, cr_vec3 V, cr_vec3 w, cr_vec3 w2, cr_vec3 c)
{
    for (int I = 0; I < s->nn; ++I) {
        double *q = s->q + 12 * I, *v = s->v + 12 * I;
        cr_vec3 x = cr_v3_load(q);
        cr_vec3 u = cr_v3_add(cr_v3_add(V, cr_v3_cross(w, x)), cr_v3_cross(w2, cr_v3_sub(x, c)));
        cr_v3_store(u, v);
        for (int k = 1; k <= 3; ++k) cr_v3_store(cr_v3_cross(cr_v3_add(w, w2), cr_v3_load(q + 3 * k)), v + 3 * k);
        memcpy(s->vmid + 12 * I, v, sizeof(double) * 12);
    }
    ph_state_changed(s);
}

/* One free rod of 8 elements and its two halves welded: 20 midpoint steps under a force density and
 * a tip force, from a bending velocity field. The two are the same discrete equations (the weld's
 * node rows summed are the one rod's), solved by different Newton iterations: equal to the Newton
 * tolerance (residual 1e-11): bound 1e-10 m; measured 3e-15 m (the last update takes both to round-off). */
static void test_weld_dynamics(void)
{
    cr_ph_params p1 = soft_params(8, 1.0), ph = soft_params(4, 0.5);
    cr_ph *one = make_rod(&p1, cr_v3(0, 0, 0));
    cr_ph *ra = make_rod(&ph, cr_v3(0, 0, 0)), *rb = make_rod(&ph, cr_v3(0.5, 0, 0));
    /* v_y = 0.2 sin(pi s), v_z = 0.1 s: the same at the welded node */
    cr_ph *rods3[3] = {one, ra, rb};
    for (int k = 0; k < 3; ++k)
        for (int I = 0; I < rods3[k]->nn; ++I) {
            double x = rods3[k]->q[12 * I];
            rods3[k]->v[12 * I + 1] = 0.2 * sin(M_PI * x);
            rods3[k]->v[12 * I + 2] = 0.1 * x;
        }
    for (int k = 0; k < 3; ++k) ph_state_changed(rods3[k]);
    cr_vec3 f1[17] = {{0}}, fb[9] = {{0}};
    f1[16] = fb[8] = cr_v3(0.01, 0.02, -0.03);
    cr_ph_loads L1 = {.node_force = f1, .force_density = cr_v3(0, 0, -0.05)};
    cr_ph_loads La = {.force_density = cr_v3(0, 0, -0.05)},
                Lb = {.node_force = fb, .force_density = cr_v3(0, 0, -0.05)};
    const cr_ph_loads *Lab[2] = {&La, &Lb};
    cr_ph *k[2] = {ra, rb};
    cr_ph_joint_def jd = {.type = CR_JOINT_WELD, .rod = {0, 1}, .node = {8, 0}};
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(2, k, 1, &jd, &err);
    CHECK(a != NULL);
    double d = 0, balance = 0;
    for (int n = 0; n < 20; ++n) {
        CHECK(cr_ph_step(one, 1e-3, &L1, NULL, &err) == CR_OK);
        cr_status st = cr_ph_asm_step(a, 1e-3, Lab, NULL, &err);
        if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
        CHECK(st == CR_OK);
        balance = fmax(balance, fabs(ra->energy_balance + rb->energy_balance));
    }
    for (int I = 0; I < 17; ++I) {
        const double *q = one->q + 12 * I, *qa = I <= 8 ? ra->q + 12 * I : rb->q + 12 * (I - 8);
        for (int c = 0; c < 12; ++c) d = fmax(d, fabs(q[c] - qa[c]));
    }
    double dw = fabs(one->work_ext - ra->work_ext - rb->work_ext);
    fprintf(stderr,
            "weld dynamics: max |q_one - q_two| = %.3e after 20 steps, work %.3e J vs %.3e J, worst step "
            "balance %.3e J\n",
            d, one->work_ext, ra->work_ext + rb->work_ext, balance);
    CHECK(d < 1e-10);
    CHECK(dw < 1e-10 * fabs(one->work_ext));
    CHECK(balance < 1e-12);
    cr_ph_asm_destroy(a);
    cr_ph_destroy(one), cr_ph_destroy(ra), cr_ph_destroy(rb);
}

/* A free assembly: rod A along x, rod B welded to A's end at a right angle (along y: a kinked weld),
 * rod C hinged to B's end (along z; the hinge axis x, B's d2), rod D on a ball at A's start (along z). Spinning about a
 * skew axis, C also turning about its hinge: the rods bend, the hinge and the ball turn. No loads: the total momentum
 * and angular momentum of the four rods (cr_ph_diagnostics, summed) stay at their initial values to round-off (measured
 * 2e-13 of their size over 100 steps: the floor of the converged residual), and the sum of the rods' energy balances is
 * zero to the Newton tolerance (the joints' forces do no work). */
static void test_free_flight(void)
{
    cr_ph_params p = soft_params(4, 0.5);
    const cr_mat3 Rx = cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    const cr_mat3 Ry = cr_m3_columns(cr_v3(0, 0, 1), cr_v3(1, 0, 0), cr_v3(0, 1, 0));
    const cr_mat3 Rz = cr_m3_columns(cr_v3(1, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1));
    cr_ph *A = make_rod_R(&p, cr_v3(0, 0, 0), Rx), *B = make_rod_R(&p, cr_v3(0.5, 0, 0), Ry);
    cr_ph *C = make_rod_R(&p, cr_v3(0.5, 0.5, 0), Rz), *D = make_rod_R(&p, cr_v3(0, 0, 0), Rz);
    cr_ph *k[4] = {A, B, C, D};
    /* the hinge about x: B's d2 (its directors d1 = z, d2 = x, d3 = y) */
    cr_ph_joint_def jd[3] = {{.type = CR_JOINT_WELD, .rod = {0, 1}, .node = {8, 0}},
                             {.type = CR_JOINT_HINGE, .rod = {1, 2}, .node = {8, 0}, .axis = {0, 1, 0}},
                             {.type = CR_JOINT_BALL, .rod = {0, 3}, .node = {0, 0}}};
    const cr_vec3 V = cr_v3(0.1, -0.2, 0.3), w = cr_v3(0.5, -1.0, 2.0);
    set_rigid_velocity(A, V, w, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    set_rigid_velocity(B, V, w, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    set_rigid_velocity(C, V, w, cr_v3(3.0, 0, 0), cr_v3(0.5, 0.5, 0));
    set_rigid_velocity(D, V, w, cr_v3(0, 2.0, -1.0), cr_v3(0, 0, 0));
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(4, k, 3, jd, &err);
    CHECK(a != NULL);
    cr_vec3 P0 = cr_v3(0, 0, 0), L0 = cr_v3(0, 0, 0);
    double H0 = 0;
    for (int r = 0; r < 4; ++r) {
        cr_ph_diag dg;
        cr_ph_diagnostics(k[r], &dg);
        P0 = cr_v3_add(P0, dg.momentum), L0 = cr_v3_add(L0, dg.angular_momentum), H0 += dg.total;
    }
    double dP = 0, dL = 0, bal = 0, dH = 0, viol = 0, elastic = 0;
    int its = 0, total = 0;
    for (int n = 0; n < 100; ++n) {
        cr_status st = cr_ph_asm_step(a, 2e-3, NULL, &its, &err);
        if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
        CHECK(st == CR_OK);
        total += its;
        cr_vec3 P = cr_v3(0, 0, 0), L = cr_v3(0, 0, 0);
        double H = 0, b = 0, el = 0;
        for (int r = 0; r < 4; ++r) {
            cr_ph_diag dg;
            cr_ph_diagnostics(k[r], &dg);
            P = cr_v3_add(P, dg.momentum), L = cr_v3_add(L, dg.angular_momentum), H += dg.total, b += dg.energy_balance;
            el += dg.elastic;
        }
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(P, P0))), dL = fmax(dL, cr_v3_norm(cr_v3_sub(L, L0)));
        bal = fmax(bal, fabs(b)), dH = fmax(dH, fabs(H - H0)), elastic = fmax(elastic, el);
        viol = fmax(viol, cr_ph_asm_joint_violation(a));
    }
    fprintf(stderr,
            "free flight: |P0| = %.3e, |L0| = %.3e, max |P - P0| = %.3e, |L - L0| = %.3e; H0 = %.6e J, "
            "max |H - H0| = %.3e J, worst step balance %.3e J; largest elastic energy %.3e J; joints held "
            "to %.3e; %d Newton iterations in 100 steps\n",
            cr_v3_norm(P0), cr_v3_norm(L0), dP, dL, H0, dH, bal, elastic, viol, total);
    CHECK(dP < 1e-12 * cr_v3_norm(P0));
    CHECK(dL < 1e-12 * cr_v3_norm(L0));
    CHECK(dH < 1e-10 * H0);
    CHECK(viol < 1e-12);
    CHECK(elastic > 1e-6 * H0); /* (the assembly deforms: not a rigid motion) */
    /* the hinge transmits no moment about its axis (B's d2 there) */
    cr_vec3 f, m, u = cr_m3_column(cr_ph_directors(B, 8), 1);
    cr_ph_asm_joint_reaction(a, 1, &f, &m);
    fprintf(stderr, "free flight: hinge moment %.3e N m, about its axis %.3e N m\n", cr_v3_norm(m), cr_v3_dot(m, u));
    CHECK(cr_v3_norm(m) > 0 && fabs(cr_v3_dot(m, u)) < 1e-12 * cr_v3_norm(m));
    cr_ph_asm_destroy(a);
    for (int r = 0; r < 4; ++r) cr_ph_destroy(k[r]);
}

/* Two rods on the x axis, a (from 0) clamped at its start, b (from L) clamped at its end, joined by
 * joint jd between a's last node and b's first; loads on a's last node (force f, moment m). */
typedef struct two_rods {
    cr_ph *a, *b;
    cr_ph_asm *as;
    cr_vec3 xb0[17];
} two_rods;

static int two_rods_solve(two_rods *t, int ne, cr_ph_joint_def jd, cr_vec3 f, cr_vec3 m)
{
    cr_ph_params pa = soft_params(ne, 0.5), pb = soft_params(ne, 0.5);
    pa.clamp_start = 1, pb.clamp_end = 1;
    t->a = make_rod(&pa, cr_v3(0, 0, 0)), t->b = make_rod(&pb, cr_v3(0.5, 0, 0));
    for (int I = 0; I <= 2 * ne; ++I) t->xb0[I] = cr_ph_position(t->b, I);
    cr_ph *k[2] = {t->a, t->b};
    jd.rod[0] = 0, jd.rod[1] = 1, jd.node[0] = 2 * ne, jd.node[1] = 0;
    cr_error err = {0};
    t->as = cr_ph_asm_create(2, k, 1, &jd, &err);
    if (!t->as) {
        fprintf(stderr, "create: %s\n", err.message);
        return 0;
    }
    cr_vec3 fa[17] = {{0}}, ma[17] = {{0}};
    fa[2 * ne] = f, ma[2 * ne] = m;
    cr_ph_loads La = {.node_force = fa, .node_moment = ma};
    const cr_ph_loads *L[2] = {&La, NULL};
    int its = 0;
    double res = 0;
    cr_status st = cr_ph_asm_solve_static(t->as, L, &its, &res, &err);
    if (st != CR_OK) fprintf(stderr, "solve: %s\n", err.message);
    return st == CR_OK;
}

static void two_rods_free(two_rods *t)
{
    cr_ph_asm_destroy(t->as);
    cr_ph_destroy(t->a), cr_ph_destroy(t->b);
}

/* the largest move of rod b's nodes from the reference */
static double b_moved(const two_rods *t)
{
    double d = 0;
    for (int I = 0; I < t->b->nn; ++I) d = fmax(d, cr_v3_norm(cr_v3_sub(cr_ph_position(t->b, I), t->xb0[I])));
    return d;
}

/* the soft rods' stiffnesses (soft_params) */
#define SOFT_EA (1e7 * M_PI * 1e-4)
#define SOFT_GA (4e6 * M_PI * 1e-4)
#define SOFT_EI (1e7 * M_PI * 1e-8 / 4)
#define SOFT_GJ (2 * 4e6 * M_PI * 1e-8 / 4)

/* A prismatic joint along the rods' axis. (1) An axial force on a's end is carried by a alone (the
 * joint carries no force along its axis): a stretches by F L / EA (uniform strain: exact on the
 * elements) and b does not move. (2) A transverse force P at the joint is shared (the joint holds
 * the transverse slide and the rotation): a beam clamped at both ends with the load in the middle,
 * each half a fixed-guided Timoshenko beam under P/2: deflection P a^3 / (24 EI) + P a / (2 GA),
 * a = 0.5 (the slider frees the axial force, so no membrane stiffening: the linear value). */
static void test_prismatic_statics(void)
{
    cr_ph_joint_def jd = {.type = CR_JOINT_PRISMATIC, .axis = {0, 0, 1}}; /* x = the rods' d3 */
    two_rods t;
    const double F = 0.5, a = 0.5;
    CHECK(two_rods_solve(&t, 4, jd, cr_v3(F, 0, 0), cr_v3(0, 0, 0)));
    if (!t.as) return;
    double u = cr_ph_position(t.a, 8).x - 0.5, uref = F * a / SOFT_EA;
    cr_vec3 f, m;
    cr_ph_asm_joint_reaction(t.as, 0, &f, &m);
    fprintf(
        stderr,
        "prismatic, axial: a's end moved %.9e m (F L / EA = %.9e, %.1e relative), b moved %.2e m, joint force along "
        "the axis %.2e N, violation %.2e\n",
        u, uref, fabs(u / uref - 1), b_moved(&t), f.x, cr_ph_asm_joint_violation(t.as));
    CHECK_NEAR(u, uref, 1e-10 * uref);
    CHECK(b_moved(&t) < 1e-14);
    CHECK(fabs(f.x) < 1e-12 * F);
    CHECK(cr_ph_asm_joint_violation(t.as) < 1e-13);
    two_rods_free(&t);

    const double P = 1e-3;
    CHECK(two_rods_solve(&t, 8, jd, cr_v3(0, P, 0), cr_v3(0, 0, 0)));
    if (!t.as) return;
    double w = cr_ph_position(t.a, 16).y, wref = P * a * a * a / (24 * SOFT_EI) + P * a / (2 * SOFT_GA);
    double wb = cr_ph_position(t.b, 0).y;
    cr_ph_asm_joint_reaction(t.as, 0, &f, &m);
    const double fax = cr_v3_dot(f, cr_m3_column(cr_ph_directors(t.a, 16), 2)); /* along the axis, a's d3 */
    fprintf(stderr,
            "prismatic, transverse: deflection %.9e m (clamped-clamped Timoshenko %.9e, %.2e relative), b's "
            "node %.9e m; joint force (%.3e, %.6e, %.3e) N (P/2 = %.6e), along the axis %.2e N\n",
            w, wref, fabs(w - wref) / wref, wb, f.x, f.y, f.z, P / 2, fax);
    CHECK_NEAR(w, wref, 1e-4 * wref);
    CHECK_NEAR(wb, w, 1e-12 * w);
    CHECK_NEAR(-f.y, P / 2, 1e-4 * P);
    CHECK(fabs(fax) < 1e-12 * P);
    two_rods_free(&t);
}

/* A cylindrical joint along the rods' axis frees the slide and the turn about it: an axial force
 * and a twisting moment on a's end are carried by a alone, F L / EA and M L / GJ (b does not move);
 * a transverse force is shared as by the prismatic joint (the bending moment is carried across). */
static void test_cylindrical_statics(void)
{
    cr_ph_joint_def jd = {.type = CR_JOINT_CYLINDRICAL, .axis = {0, 0, 1}};
    two_rods t;
    const double F = 0.5, M = 1e-4, a = 0.5;
    CHECK(two_rods_solve(&t, 8, jd, cr_v3(F, 0, 0), cr_v3(M, 0, 0)));
    if (!t.as) return;
    cr_mat3 R = cr_ph_directors(t.a, 16);
    double u = cr_ph_position(t.a, 16).x - 0.5, th = atan2(R.m[2][0], R.m[1][0]);
    double uref = F * a / SOFT_EA, thref = M * a / SOFT_GJ;
    fprintf(stderr,
            "cylindrical: a's end moved %.9e m (F L / EA = %.9e, %.1e), turned %.9e rad (M L / GJ = %.9e, %.1e), b "
            "moved %.2e m\n",
            u, uref, fabs(u / uref - 1), th, thref, fabs(th / thref - 1), b_moved(&t));
    CHECK_NEAR(u, uref, 1e-10 * uref);
    CHECK_NEAR(th, thref, 1e-10 * thref);
    CHECK(b_moved(&t) < 1e-14);
    two_rods_free(&t);

    const double P = 1e-3;
    CHECK(two_rods_solve(&t, 8, jd, cr_v3(0, 0, P), cr_v3(0, 0, 0)));
    if (!t.as) return;
    double w = cr_ph_position(t.a, 16).z, wref = P * a * a * a / (24 * SOFT_EI) + P * a / (2 * SOFT_GA);
    fprintf(stderr, "cylindrical, transverse: deflection %.9e m (clamped-clamped Timoshenko %.9e), b's node %.9e m\n",
            w, wref, cr_ph_position(t.b, 0).z);
    CHECK_NEAR(w, wref, 1e-4 * wref);
    CHECK_NEAR(cr_ph_position(t.b, 0).z, w, 1e-12 * w);
    two_rods_free(&t);
}

/* A universal joint (axis y on a, axis_b z on b) holds the point and the turn about x: (1) a
 * twisting moment at the joint is shared by the two equal rods in parallel, a turns by
 * (M/2) L / GJ; (2) a moment about y on a's end is not carried across (the joint carries no moment
 * about its axis): only the pin force V, so with b a cantilever under V and a under M and -V,
 * V (a^3/3EI + a/GA) = M a^2/2EI - V (a^3/3EI + a/GA) and a's end turns by M a/EI - V a^2/2EI
 * (5 M a / 8 EI without shear). */
static void test_universal_statics(void)
{
    cr_ph_joint_def jd = {.type = CR_JOINT_UNIVERSAL, .axis = {1, 0, 0}, .axis_b = {0, 1, 0}}; /* y = d1, z = d2 */
    two_rods t;
    const double M = 1e-4, a = 0.5;
    CHECK(two_rods_solve(&t, 8, jd, cr_v3(0, 0, 0), cr_v3(M, 0, 0)));
    if (!t.as) return;
    cr_mat3 R = cr_ph_directors(t.a, 16);
    double th = atan2(R.m[2][0], R.m[1][0]), thref = 0.5 * M * a / SOFT_GJ;
    cr_vec3 f, m;
    cr_ph_asm_joint_reaction(t.as, 0, &f, &m);
    fprintf(stderr,
            "universal, twist: a turned %.9e rad ((M/2) L / GJ = %.9e, %.1e relative), joint moment (%.6e, "
            "%.2e, %.2e) N m\n",
            th, thref, fabs(th / thref - 1), m.x, m.y, m.z);
    CHECK_NEAR(th, thref, 1e-10 * thref);
    CHECK_NEAR(-m.x, M / 2, 1e-6 * M);
    two_rods_free(&t);

    CHECK(two_rods_solve(&t, 8, jd, cr_v3(0, 0, 0), cr_v3(0, M, 0)));
    if (!t.as) return;
    const double c = a * a * a / (3 * SOFT_EI) + a / SOFT_GA, V = M * a * a / (2 * SOFT_EI) / (2 * c);
    /* the end's turn about y: d3 = x turns to -z for a positive moment about y */
    R = cr_ph_directors(t.a, 16);
    th = atan2(-R.m[2][2], R.m[0][2]);
    thref = M * a / SOFT_EI - V * a * a / (2 * SOFT_EI);
    cr_ph_asm_joint_reaction(t.as, 0, &f, &m);
    fprintf(stderr,
            "universal, bending: a's end turned %.9e rad (closed form %.9e, %.2e relative), pin force %.6e N "
            "(%.3e, %.3e, %.3e; V = %.6e), joint moment about y %.2e N m, about z %.2e N m\n",
            th, thref, fabs(th - thref) / thref, cr_v3_norm(f), f.x, f.y, f.z, V, m.y, m.z);
    CHECK_NEAR(th, thref, 1e-4 * thref);
    CHECK_NEAR(f.z, V, 1e-4 * V); /* (f.x: the pin's axial force from the two rods' unequal end shortening,
                                     second order in the turn, 5e-5 N against EA / L = 6e3 N/m) */
    CHECK(fabs(m.y) < 1e-10 * M && fabs(m.z) < 1e-10 * M);
    two_rods_free(&t);
}

/* The coupled rows (a slider's, a universal joint's, a motor's on a hinge and on a cylindrical
 * joint, a slider drive on a prismatic joint, at an angle) at random coordinates: gradients against central differences
 * of g (exact for a quadratic g up to round-off), the Hessian the Newton matrix takes against central differences of nu
 * . G. */
static void test_coupled_fd(void)
{
    cr_ph_params p = soft_params(2, 0.5);
    cr_ph *A = make_rod(&p, cr_v3(0, 0, 0)), *B = make_rod(&p, cr_v3(0.5, 0, 0));
    cr_ph *k[2] = {A, B};
    const cr_ph_joint_def jd[6] = {
        {.type = CR_JOINT_PRISMATIC, .rod = {0, 1}, .node = {4, 0}, .axis = {0.3, -0.5, 1}},
        {.type = CR_JOINT_CYLINDRICAL, .rod = {0, 1}, .node = {4, 0}, .axis = {1, 0.2, 0}},
        {.type = CR_JOINT_UNIVERSAL, .rod = {0, 1}, .node = {4, 0}, .axis = {1, 0, 0}, .axis_b = {0, 0.6, 0.8}},
        {.type = CR_JOINT_HINGE, .rod = {0, 1}, .node = {4, 0}, .axis = {0.2, 1, -0.3}, .drive = 1},
        {.type = CR_JOINT_CYLINDRICAL, .rod = {0, 1}, .node = {4, 0}, .axis = {0, 0.4, 1}, .drive = 1},
        {.type = CR_JOINT_PRISMATIC, .rod = {0, 1}, .node = {4, 0}, .axis = {0.7, 0.1, -0.4}, .drive = 1, .slide = 1}};
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(2, k, 6, jd, &err);
    CHECK(a != NULL);
    if (!a) return;
    cr_ph_asm_set_drive(a, 3, 0.3, 0.7), cr_ph_asm_set_drive(a, 4, -1.0, -1.2), cr_ph_asm_set_drive(a, 5, 0.1, 0.2);
    srand(7);
    double q[24], nu[3] = {0.7, -1.3, 0.4}, eG = 0, eH = 0, Gmax = 0, Hmax = 0;
    for (int i = 0; i < 24; ++i) q[i] = 2.0 * rand() / RAND_MAX - 1;
    for (int j = 0; j < 6; ++j) {
        double g[3], G[72], H[576], gp[3], gm[3], Gp[72], Gm[72], Hd[576];
        int kc = cr_ph_asm_coupled_rows(a, j, q, q + 12, nu, g, G, H);
        /* (a slider's 2, a dot row, a motor's dot row, a slider drive's third slider row) */
        static const int kc_ref[6] = {2, 2, 1, 1, 3, 3};
        CHECK(kc == kc_ref[j]);
        const double eps = 1e-6;
        for (int c = 0; c < 24; ++c) {
            double qp[24], qm[24];
            memcpy(qp, q, sizeof q), memcpy(qm, q, sizeof q);
            qp[c] += eps, qm[c] -= eps;
            cr_ph_asm_coupled_rows(a, j, qp, qp + 12, nu, gp, Gp, Hd);
            cr_ph_asm_coupled_rows(a, j, qm, qm + 12, nu, gm, Gm, Hd);
            for (int m = 0; m < kc; ++m) {
                eG = fmax(eG, fabs((gp[m] - gm[m]) / (2 * eps) - G[24 * m + c]));
                Gmax = fmax(Gmax, fabs(G[24 * m + c]));
            }
            for (int r = 0; r < 24; ++r) { /* column c of the Hessian: d/dq_c of sum nu_m G_m[r] */
                double d = 0;
                for (int m = 0; m < kc; ++m) d += nu[m] * (Gp[24 * m + r] - Gm[24 * m + r]) / (2 * eps);
                eH = fmax(eH, fabs(d - H[24 * r + c]));
                Hmax = fmax(Hmax, fabs(H[24 * r + c]));
            }
        }
    }
    fprintf(stderr, "coupled rows: gradient off finite differences by %.2e (of %.2e), Hessian by %.2e (of %.2e)\n", eG,
            Gmax, eH, Hmax);
    CHECK(Gmax > 0.1 && Hmax > 0.1);
    CHECK(eG < 1e-8 && eH < 1e-8);
    cr_ph_asm_destroy(a);
    cr_ph_destroy(A), cr_ph_destroy(B);
}

/* A free assembly on the three joints: rod A along x; B along y on a prismatic joint at A's end
 * (axis y: B slides along itself); C along z on a cylindrical joint at B's end (axis z: C slides
 * and turns); D along z on a universal joint at A's start (axis y on A, axis_b x on D). Spinning
 * about a skew axis with B and C sliding and C and D turning: the momenta exact to round-off, the
 * sum of the rods' energy balances to the Newton tolerance (the joints' forces do no work: the
 * midpoint gradient of the bilinear rows is a discrete gradient). */
static void test_joints_free_flight(void)
{
    cr_ph_params p = soft_params(4, 0.5);
    const cr_mat3 Rx = cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    const cr_mat3 Ry = cr_m3_columns(cr_v3(0, 0, 1), cr_v3(1, 0, 0), cr_v3(0, 1, 0));
    const cr_mat3 Rz = cr_m3_columns(cr_v3(1, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1));
    cr_ph *A = make_rod_R(&p, cr_v3(0, 0, 0), Rx), *B = make_rod_R(&p, cr_v3(0.5, 0, 0), Ry);
    cr_ph *C = make_rod_R(&p, cr_v3(0.5, 0.5, 0), Rz), *D = make_rod_R(&p, cr_v3(0, 0, 0), Rz);
    cr_ph *k[4] = {A, B, C, D};
    /* axes in side a's directors: A's d1 = y, B's d1 = z; axis_b x = A's d3 */
    cr_ph_joint_def jd[3] = {
        {.type = CR_JOINT_PRISMATIC, .rod = {0, 1}, .node = {8, 0}, .axis = {1, 0, 0}},
        {.type = CR_JOINT_CYLINDRICAL, .rod = {1, 2}, .node = {8, 0}, .axis = {1, 0, 0}},
        {.type = CR_JOINT_UNIVERSAL, .rod = {0, 3}, .node = {0, 0}, .axis = {1, 0, 0}, .axis_b = {0, 0, 1}}};
    const cr_vec3 V = cr_v3(0.1, -0.2, 0.3), w = cr_v3(0.5, -1.0, 2.0);
    set_rigid_velocity(A, V, w, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    set_rigid_velocity(B, cr_v3_add(V, cr_v3(0, 0.4, 0)), w, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    set_rigid_velocity(C, cr_v3_add(V, cr_v3(0, 0.4, -0.3)), w, cr_v3(0, 0, 3.0), cr_v3(0.5, 0.5, 0));
    set_rigid_velocity(D, V, w, cr_v3(0, 2.0, 0), cr_v3(0, 0, 0));
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(4, k, 3, jd, &err);
    CHECK(a != NULL);
    if (!a) return;
    cr_vec3 P0 = cr_v3(0, 0, 0), L0 = cr_v3(0, 0, 0);
    double H0 = 0;
    for (int r = 0; r < 4; ++r) {
        cr_ph_diag dg;
        cr_ph_diagnostics(k[r], &dg);
        P0 = cr_v3_add(P0, dg.momentum), L0 = cr_v3_add(L0, dg.angular_momentum), H0 += dg.total;
    }
    double dP = 0, dL = 0, bal = 0, dH = 0, viol = 0, elastic = 0;
    int its = 0, total = 0, ok = 1;
    for (int n = 0; n < 100 && ok; ++n) {
        cr_status st = cr_ph_asm_step(a, 2e-3, NULL, &its, &err);
        if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
        CHECK(st == CR_OK);
        ok = st == CR_OK;
        total += its;
        cr_vec3 P = cr_v3(0, 0, 0), L = cr_v3(0, 0, 0);
        double H = 0, b = 0, el = 0;
        for (int r = 0; r < 4; ++r) {
            cr_ph_diag dg;
            cr_ph_diagnostics(k[r], &dg);
            P = cr_v3_add(P, dg.momentum), L = cr_v3_add(L, dg.angular_momentum), H += dg.total, b += dg.energy_balance;
            el += dg.elastic;
        }
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(P, P0))), dL = fmax(dL, cr_v3_norm(cr_v3_sub(L, L0)));
        bal = fmax(bal, fabs(b)), dH = fmax(dH, fabs(H - H0)), elastic = fmax(elastic, el);
        viol = fmax(viol, cr_ph_asm_joint_violation(a));
    }
    /* the slides: B's first node along A's end, C's along B's end */
    double sB = cr_v3_norm(cr_v3_sub(cr_ph_position(B, 0), cr_ph_position(A, 8)));
    double sC = cr_v3_norm(cr_v3_sub(cr_ph_position(C, 0), cr_ph_position(B, 8)));
    fprintf(stderr,
            "joints free flight: |P0| = %.3e, |L0| = %.3e, max |P - P0| = %.3e, |L - L0| = %.3e; H0 = %.6e J, "
            "max |H - H0| = %.3e J, worst step balance %.3e J; largest elastic energy %.3e J; joints held to %.3e; "
            "slides %.3e m, %.3e m; %d Newton iterations in 100 steps\n",
            cr_v3_norm(P0), cr_v3_norm(L0), dP, dL, H0, dH, bal, elastic, viol, sB, sC, total);
    CHECK(dP < 1e-12 * cr_v3_norm(P0));
    CHECK(dL < 1e-12 * cr_v3_norm(L0));
    CHECK(dH < 1e-10 * H0);
    CHECK(viol < 1e-12);
    CHECK(elastic > 1e-6 * H0);
    CHECK(sB > 0.01 && sC > 0.01);
    /* the Newton matrix is exact (the coupled rows' cross Hessian included): 240 iterations measured;
       without the cross Hessian 290 (and the momenta only to the larger converged residual, 2e-12) */
    CHECK(total <= 260);
    cr_ph_asm_destroy(a);
    for (int r = 0; r < 4; ++r) cr_ph_destroy(k[r]);
}

/* A driven hinge in statics: rod a clamped along x, rod b hinged at its end about z (a's d2) and held
 * only by the hinge and its motor (its own matrix is regular through the rows' augmentation). The
 * motor turns b by theta = 0.4 rad: with no load b turns rigidly, its tip at L + L (cos theta,
 * sin theta) (to round-off); with a force F along y at b's tip the motor holds the moment about z,
 * M = F L cos(theta') (theta' the tip's turn: equilibrium of b about the hinge node). */
static void test_drive_statics(void)
{
    cr_ph_params pa = soft_params(4, 0.5), pb = soft_params(4, 0.5);
    pa.clamp_start = 1;
    cr_ph *A = make_rod(&pa, cr_v3(0, 0, 0)), *B = make_rod(&pb, cr_v3(0.5, 0, 0));
    cr_ph *k[2] = {A, B};
    cr_ph_joint_def jd = {.type = CR_JOINT_HINGE, .rod = {0, 1}, .node = {8, 0}, .axis = {0, 1, 0}, .drive = 1};
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(2, k, 1, &jd, &err);
    CHECK(a != NULL);
    if (!a) return;
    const double th = 0.4, L = 0.5;
    int its = 0;
    double res = 0;
    cr_status st = CR_OK;
    for (int step = 1; step <= 4 && st == CR_OK; ++step) { /* (load steps, as the scenario adapter's) */
        cr_ph_asm_set_drive(a, 0, th * (step - 1) / 4, th * step / 4);
        st = cr_ph_asm_solve_static(a, NULL, &its, &res, &err);
    }
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CR_OK);
    cr_vec3 tip = cr_ph_position(B, 8), ref = cr_v3(L + L * cos(th), L * sin(th), 0);
    double e = cr_v3_norm(cr_v3_sub(tip, ref));
    fprintf(stderr,
            "drive statics: b's tip (%.12f, %.12f, %.3e) m, the rigid turn's (%.12f, %.12f, 0): off by %.2e m\n", tip.x,
            tip.y, tip.z, ref.x, ref.y, e);
    CHECK(e < 1e-12);
    /* a force along y at b's tip: the motor's moment about z */
    const double F = 1e-4;
    cr_vec3 fb[9] = {{0}};
    fb[8] = cr_v3(0, F, 0);
    cr_ph_loads Lb = {.node_force = fb};
    const cr_ph_loads *Lab[2] = {NULL, &Lb};
    cr_ph_asm_set_drive(a, 0, th, th);
    st = cr_ph_asm_solve_static(a, Lab, &its, &res, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CR_OK);
    cr_vec3 f, m;
    cr_ph_asm_joint_reaction(a, 0, &f, &m);
    cr_vec3 arm = cr_v3_sub(cr_ph_position(B, 8), cr_ph_position(B, 0));
    const double mref = arm.x * F; /* b's equilibrium about its hinge node: the joint's moment on b is -r x F */
    fprintf(stderr,
            "drive statics: motor moment about z on a %.9e N m (b's lever %.9e N m), force (%.3e, %.3e, %.3e) N\n", m.z,
            mref, f.x, f.y, f.z);
    CHECK_NEAR(m.z, mref, 1e-9 * fabs(mref));
    CHECK_NEAR(f.y, F, 1e-9 * F);
    cr_ph_asm_destroy(a);
    cr_ph_destroy(A), cr_ph_destroy(B);
}

/* Two free rods joined by a driven hinge, the motor turning b against a by theta(t) = 2 t^2 rad: an
 * internal motor, so linear and angular momentum stay exact (the dot row's forces are equal and
 * opposite and moment-free at any configuration), and the energy changes by the motor's work:
 * H_n - H_0 = W_drive (cr_ph_asm_drive_work) to the Newton tolerance, every step's sum of the rods'
 * balances equal to that step's motor work. The joint follows theta: sin(phi - theta) = 0. */
static void test_drive_free_flight(void)
{
    cr_ph_params p = soft_params(4, 0.5);
    const cr_mat3 Rx = cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    cr_ph *A = make_rod_R(&p, cr_v3(0, 0, 0), Rx), *B = make_rod_R(&p, cr_v3(0.5, 0, 0), Rx);
    cr_ph *k[2] = {A, B};
    const cr_vec3 V = cr_v3(0.1, -0.2, 0.3), w = cr_v3(0.5, -1.0, 2.0);
    set_rigid_velocity(A, V, w, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    set_rigid_velocity(B, V, w, cr_v3(0, 0, 0), cr_v3(0, 0, 0));
    /* the hinge about a's d1 (y in the reference) */
    cr_ph_joint_def jd = {.type = CR_JOINT_HINGE, .rod = {0, 1}, .node = {8, 0}, .axis = {1, 0, 0}, .drive = 1};
    cr_error err = {0};
    cr_ph_asm *a = cr_ph_asm_create(2, k, 1, &jd, &err);
    CHECK(a != NULL);
    if (!a) return;
    cr_vec3 P0 = cr_v3(0, 0, 0), L0 = cr_v3(0, 0, 0);
    double H0 = 0;
    for (int r = 0; r < 2; ++r) {
        cr_ph_diag dg;
        cr_ph_diagnostics(k[r], &dg);
        P0 = cr_v3_add(P0, dg.momentum), L0 = cr_v3_add(L0, dg.angular_momentum), H0 += dg.total;
    }
    const double h = 2e-3;
    double dP = 0, dL = 0, dE = 0, bal = 0, viol = 0, Wlast = 0, H = 0;
    int ok = 1;
    for (int n = 0; n < 200 && ok; ++n) {
        const double t0 = n * h, t1 = (n + 1) * h;
        cr_ph_asm_set_drive(a, 0, 2 * t0 * t0, 2 * t1 * t1);
        const double W0 = cr_ph_asm_drive_work(a);
        cr_status st = cr_ph_asm_step(a, h, NULL, NULL, &err);
        if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
        CHECK(st == CR_OK);
        ok = st == CR_OK;
        cr_vec3 P = cr_v3(0, 0, 0), L = cr_v3(0, 0, 0);
        double b = 0;
        H = 0;
        for (int r = 0; r < 2; ++r) {
            cr_ph_diag dg;
            cr_ph_diagnostics(k[r], &dg);
            P = cr_v3_add(P, dg.momentum), L = cr_v3_add(L, dg.angular_momentum), H += dg.total, b += dg.energy_balance;
        }
        Wlast = cr_ph_asm_drive_work(a);
        dP = fmax(dP, cr_v3_norm(cr_v3_sub(P, P0))), dL = fmax(dL, cr_v3_norm(cr_v3_sub(L, L0)));
        dE = fmax(dE, fabs(H - H0 - Wlast)), bal = fmax(bal, fabs(b - (Wlast - W0)));
        viol = fmax(viol, cr_ph_asm_joint_violation(a));
    }
    fprintf(stderr,
            "drive free flight: |P - P0| = %.3e of %.3e, |L - L0| = %.3e of %.3e; H0 = %.6e J, H = %.6e J, motor work "
            "%.6e J, |H - H0 - W| = %.3e J, worst step |balance - motor work| %.3e J; joint held to %.3e\n",
            dP, cr_v3_norm(P0), dL, cr_v3_norm(L0), H0, H, Wlast, dE, bal, viol);
    CHECK(dP < 1e-12 * cr_v3_norm(P0));
    CHECK(dL < 1e-12 * cr_v3_norm(L0));
    CHECK(fabs(Wlast) > 1e-3 * H0); /* (the motor does work) */
    CHECK(dE < 1e-10 * H0);
    CHECK(bal < 1e-12 * H0);
    CHECK(viol < 1e-12);
    cr_ph_asm_destroy(a);
    cr_ph_destroy(A), cr_ph_destroy(B);
}
CHECK_MAIN({"weld_statics", test_weld_statics}, {"weld_dynamics", test_weld_dynamics},
           {"free_flight", test_free_flight}, {"prismatic_statics", test_prismatic_statics},
           {"cylindrical_statics", test_cylindrical_statics}, {"universal_statics", test_universal_statics},
           {"coupled_fd", test_coupled_fd}, {"joints_free_flight", test_joints_free_flight},
           {"drive_statics", test_drive_statics}, {"drive_free_flight", test_drive_free_flight})
