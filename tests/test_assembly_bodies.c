/* Free rigid bodies in assemblies of mixed discrete rods (cosserat/assembly.h): the joints'
 * Jacobians at body points against finite differences, a parallel continuum robot (three
 * rods between a fixed base and a free platform) against equilibrium and closed forms. */
#include "check.h"
#include "cosserat/assembly.h"
#include "mixed/assembly_internal.h"
#include "mixed/mixed.h"
#include "rod_builders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static cr_static_options tight(void)
{
    cr_static_options o = cr_static_default_options();
    o.atol = 1e-13, o.rtol = 1e-12, o.stability = 0;
    return o;
}

static cr_assembly_rod_def named(const char *name, cr_rod_def rod)
{
    cr_assembly_rod_def r;
    memset(&r, 0, sizeof r);
    strncpy(r.name, name, sizeof r.name - 1);
    r.rod = rod;
    return r;
}

static cr_quat rotvec(cr_vec3 v)
{
    double a = cr_v3_norm(v);
    return a > 0 ? cr_q_axis_angle(cr_v3_scale(v, 1.0 / a), a) : cr_q_identity();
}

/* ---- the joints' C and H at body points against central differences ---- */
/* cr_asm_joint_eval_iface maps a joint's rows from its points to the bodies' centres; its C
 * must be ∂g/∂(δr, δθ) of the centres (p ← p ⊗ exp(δθ/2)) and its H ∂(Cᵀλ)/∂(the same),
 * checked by central differences of g and of Cᵀλ (h = 1e-6) for every joint type with one
 * end, then both ends, on bodies, at poses away from the reference. */
static void test_body_joint_jacobians(void)
{
    double worst_C = 0, worst_H = 0;
    for (int type = CR_JOINT_WELD; type <= CR_JOINT_UNIVERSAL; ++type)
        for (int ends = 1; ends <= 3; ++ends) {
            cr_asm_joint j;
            memset(&j, 0, sizeof j);
            j.type = (cr_joint_type)type;
            static const int rows_of[6] = {6, 3, 5, 5, 4, 4}, pos_rows_of[6] = {3, 3, 3, 2, 2, 3};
            j.rows = rows_of[type], j.pos_rows = pos_rows_of[type];
            j.rel_ref = rotvec(cr_v3(0.2, -0.1, 0.3));
            cr_vec3 h = cr_v3_normalize(cr_v3(0.3, 0.5, 0.8));
            j.u1 = cr_v3_normalize(cr_v3_cross(h, cr_v3(1, 0, 0)));
            j.u2 = cr_v3_cross(h, j.u1);
            j.axis_b = cr_m3_tmulv(cr_q_exp(j.rel_ref), type == CR_JOINT_UNIVERSAL ? j.u2 : h);
            if (type == CR_JOINT_UNIVERSAL) j.u1 = h;
            j.on_body[0] = ends & 1, j.on_body[1] = (ends >> 1) & 1;
            j.point[0] = cr_v3(0.3, -0.2, 0.1), j.point[1] = cr_v3(-0.15, 0.25, 0.4);
            cr_vec3 r[2] = {cr_v3(0.1, 0.2, -0.3), cr_v3(0.4, 0.05, 0.2)};
            cr_quat p[2] = {rotvec(cr_v3(0.5, -0.3, 0.2)), rotvec(cr_v3(-0.2, 0.6, 0.4))};
            double lambda[6] = {0.7, -1.3, 0.4, 2.1, -0.6, 0.9}, g[6], C[72], H[144];
            cr_asm_joint_eval_iface(&j, 1.0, NULL, r[0], p[0], r[1], p[1], lambda, g, C, H);
            double cmax = 0, hmax = 0, ec = 0, eh = 0;
            for (int k = 0; k < 72; ++k) cmax = fmax(cmax, fabs(C[k]));
            for (int k = 0; k < 144; ++k) hmax = fmax(hmax, fabs(H[k]));
            for (int col = 0; col < 12; ++col) {
                const int e = col / 6, c = col % 6;
                double gp[6], gm[6], Cp[72], Cm[72], wp[12] = {0}, wm[12] = {0};
                const double hh = 1e-6;
                for (int sgn = 0; sgn < 2; ++sgn) {
                    cr_vec3 rr[2] = {r[0], r[1]};
                    cr_quat pp[2] = {p[0], p[1]};
                    double d = sgn ? -hh : hh, dv[3] = {0, 0, 0};
                    if (c < 3) {
                        dv[c] = d;
                        rr[e] = cr_v3_add(rr[e], cr_v3_load(dv));
                    } else {
                        dv[c - 3] = d;
                        pp[e] = cr_q_mul(pp[e], rotvec(cr_v3_load(dv)));
                    }
                    double *gg = sgn ? gm : gp, *CC = sgn ? Cm : Cp, *ww = sgn ? wm : wp;
                    cr_asm_joint_eval_iface(&j, 1.0, NULL, rr[0], pp[0], rr[1], pp[1], NULL, gg, CC, NULL);
                    for (int q = 0; q < 12; ++q)
                        for (int row = 0; row < j.rows; ++row) ww[q] += CC[row * 12 + q] * lambda[row];
                }
                for (int row = 0; row < j.rows; ++row)
                    ec = fmax(ec, fabs((gp[row] - gm[row]) / (2 * hh) - C[row * 12 + col]));
                for (int q = 0; q < 12; ++q) eh = fmax(eh, fabs((wp[q] - wm[q]) / (2 * hh) - H[q * 12 + col]));
            }
            worst_C = fmax(worst_C, ec / cmax), worst_H = fmax(worst_H, eh / hmax);
            if (!(ec / cmax < 1e-8 && eh / hmax < 1e-8))
                printf("body joint %s ends %d: C error %.3g, H error %.3g (relative)\n",
                       cr_joint_type_name((cr_joint_type)type), ends, ec / cmax, eh / hmax);
        }
    printf("body joints: worst relative FD error of C %.3g, of H %.3g\n", worst_C, worst_H);
    CHECK(worst_C < 1e-8);
    CHECK(worst_H < 1e-8);
}

/* ---- a free body's load Jacobian against central differences ---- */
static void test_body_wrench_jacobian(void)
{
    cr_section_segment sec = resultants(1e4, 1e4, 1, 1, 1);
    cr_rod_def rod = straight_rod(&sec, 1.0, 4);
    cr_bc_def clamp = cr_bc_default_def();
    rod.bcs = &clamp, rod.bc_count = 1;
    cr_assembly_rod_def rods[1] = {named("r", rod)};
    cr_rigid_body_def body = cr_rigid_body_default_def();
    snprintf(body.name, sizeof body.name, "B");
    body.mass = 2.0, body.center = cr_v3(1.0, 0, 0), body.inertia = cr_m3_identity();
    cr_joint_def jt = cr_joint_default_def();
    jt.type = CR_JOINT_WELD, jt.a = (cr_rod_node){0, -1}, jt.body_b = 1, jt.point_b = cr_v3(0, 0, 0);
    cr_load_def loads[5];
    for (int k = 0; k < 5; ++k) loads[k] = cr_load_default_def(), loads[k].body = 0;
    loads[0].type = CR_LOAD_FORCE, loads[0].value = cr_v3(1, 2, 3);
    loads[1].type = CR_LOAD_FORCE, loads[1].value = cr_v3(-2, 0.5, 1), loads[1].frame = CR_FRAME_BODY;
    loads[2].type = CR_LOAD_MOMENT, loads[2].value = cr_v3(0.3, -1, 2);
    loads[3].type = CR_LOAD_MOMENT, loads[3].value = cr_v3(1, 1, -1), loads[3].frame = CR_FRAME_BODY;
    loads[4].type = CR_LOAD_GRAVITY, loads[4].value = cr_v3(0, 0, -9.81);
    cr_assembly_def def = {.rod_count = 1,
                           .rods = rods,
                           .joint_count = 1,
                           .joints = &jt,
                           .body_count = 1,
                           .bodies = &body,
                           .body_load_count = 5,
                           .body_loads = loads};
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    CHECK(a != NULL);
    if (!a) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    double y[13] = {0.1, 0.2, 0.3}, scale[5] = {1, 0.5, 2, 1.5, 1}, w[6], dw[36], e = 0, big = 0;
    cr_q_store(rotvec(cr_v3(0.4, -0.7, 0.2)), y + 3);
    cr_asm_body_wrench(a, 0, y, scale, w, dw);
    CHECK_NEAR(w[2], 3 * 1 + 2 * -9.81 + cr_m3_mulv(cr_q_exp(cr_q_load(y + 3)), loads[1].value).z * 0.5, 1e-12);
    for (int c = 0; c < 6; ++c) {
        double yp[13], ym[13], wp[6], wm[6], dv[3] = {0, 0, 0};
        memcpy(yp, y, sizeof y), memcpy(ym, y, sizeof y);
        const double h = 1e-6;
        if (c < 3)
            yp[c] += h, ym[c] -= h;
        else {
            dv[c - 3] = h;
            cr_q_store(cr_q_mul(cr_q_load(y + 3), rotvec(cr_v3_load(dv))), yp + 3);
            dv[c - 3] = -h;
            cr_q_store(cr_q_mul(cr_q_load(y + 3), rotvec(cr_v3_load(dv))), ym + 3);
        }
        cr_asm_body_wrench(a, 0, yp, scale, wp, NULL);
        cr_asm_body_wrench(a, 0, ym, scale, wm, NULL);
        for (int r = 0; r < 6; ++r)
            e = fmax(e, fabs((wp[r] - wm[r]) / (2 * h) - dw[r * 6 + c])), big = fmax(big, fabs(dw[r * 6 + c]));
    }
    printf("body wrench: FD error of its Jacobian %.3g (largest entry %.3g)\n", e, big);
    CHECK(big > 1.0);
    CHECK(e < 1e-8 * big);
    cr_assembly_destroy(a);
}

/* ---- a parallel continuum robot ---- */
/* Three straight rods of length L along +z, clamped at z = 0 at the base circle of radius
 * R (angles 90°, 210°, 330°), their tips joined (weld or ball) to the points (R cos φ,
 * R sin φ, 0) of a free platform whose centre is (0, 0, L). */
typedef struct robot {
    cr_section_segment sec;
    cr_bc_def clamp;
    cr_assembly_rod_def rods[3];
    cr_joint_def joints[3];
    cr_rigid_body_def body;
    cr_load_def loads[3];
    cr_assembly_def def;
    cr_assembly *a;
    cr_assembly_state *s;
} robot;

static int robot_solve(robot *rb, double L, double R, int n, cr_joint_type type, int load_count, int steps)
{
    rb->clamp = cr_bc_default_def();
    for (int i = 0; i < 3; ++i) {
        const double phi = PI / 2 + 2 * PI * i / 3;
        cr_rod_def d = straight_rod(&rb->sec, L, n);
        d.reference.origin = cr_v3(R * cos(phi), R * sin(phi), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), -PI / 2); /* e_x along +z */
        d.bcs = &rb->clamp, d.bc_count = 1;
        char name[8];
        snprintf(name, sizeof name, "leg%d", i);
        rb->rods[i] = named(name, d);
        rb->joints[i] = cr_joint_default_def();
        rb->joints[i].type = type, rb->joints[i].a = (cr_rod_node){i, -1};
        rb->joints[i].body_b = 1, rb->joints[i].point_b = cr_v3(R * cos(phi), R * sin(phi), 0);
    }
    rb->body = cr_rigid_body_default_def();
    snprintf(rb->body.name, sizeof rb->body.name, "platform");
    rb->body.center = cr_v3(0, 0, L);
    rb->body.mass = 1.0, rb->body.inertia = (cr_mat3){{{0.01, 0, 0}, {0, 0.01, 0}, {0, 0, 0.01}}};
    rb->def = (cr_assembly_def){.rod_count = 3,
                                .rods = rb->rods,
                                .joint_count = 3,
                                .joints = rb->joints,
                                .body_count = 1,
                                .bodies = &rb->body,
                                .body_load_count = load_count,
                                .body_loads = rb->loads};
    cr_error err = {0};
    rb->a = cr_assembly_create(&rb->def, &err);
    CHECK(rb->a != NULL);
    if (!rb->a) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    rb->s = cr_assembly_state_create(rb->a);
    cr_static_options o = tight();
    o.load_steps = steps;
    cr_static_report rep;
    cr_status st = cr_assembly_static_solve(rb->a, rb->s, &o, &rep, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    printf("robot: %d load steps, %d Newton iterations\n", rep.step_count, rep.total_iterations);
    cr_static_report_free(&rep);
    return st == CR_OK;
}

static void robot_free(robot *rb)
{
    cr_assembly_state_destroy(rb->s);
    cr_assembly_destroy(rb->a);
}

/* (i) Equilibrium of the whole robot, exact in the discrete model whatever the deflection:
 * the supports' reactions (f_i, m_i at the base nodes b_i) balance the platform's loads
 * (force F at its centre c, moment M, weight m g):
 *     Σ f_i + F + m g = 0,    Σ (b_i × f_i + A_i m_i) + c × (F + m g) + M = 0
 * (the rods carry no load of their own here); and the platform alone is balanced by its
 * joints' wrenches (f_k, m_k on the legs' tips x_k, the platform receiving the opposite):
 *     F + m g − Σ f_k = 0,    c × (F + m g) + M − Σ (x_k × f_k + m_k) = 0.
 * A large 3-D deflection, welded and ball-joined legs. With welded legs the joints put
 * moments on the legs' tip nodes, and the mixed rod's support moment then balances a nodal
 * moment only to O(h²) (a single cantilever with a tip moment shows the same: 7e-4 of the
 * moment at 16 elements, 4× less at 32), so the supports' moment balance is checked exactly
 * for ball-joined legs and to O(h²) for welded ones. */
static void test_robot_equilibrium(void)
{
    for (int pass = 0; pass < 2; ++pass) {
        robot rb;
        memset(&rb, 0, sizeof rb);
        const double L = 0.5, R = 0.1, k = pass ? 0.3 : 1.0; /* ball legs sway under less */
        rb.sec = resultants(2e4, 1e4, 0.8, 1.0, 1.0);
        for (int l = 0; l < 3; ++l) rb.loads[l] = cr_load_default_def(), rb.loads[l].body = 0;
        rb.loads[0].type = CR_LOAD_FORCE, rb.loads[0].value = cr_v3(6.0 * k, -4.0 * k, -10.0 * k);
        rb.loads[1].type = CR_LOAD_MOMENT, rb.loads[1].value = cr_v3(0.3 * k, 0.2 * k, 0.5 * k);
        rb.loads[2].type = CR_LOAD_GRAVITY, rb.loads[2].value = cr_v3(0, 0, -9.81 * k);
        if (!robot_solve(&rb, L, R, 16, pass ? CR_JOINT_BALL : CR_JOINT_WELD, 3, 4)) return;
        cr_vec3 c;
        cr_quat q;
        CHECK(cr_assembly_state_body(rb.s, 0, &c, &q, NULL, NULL) == CR_OK);
        cr_vec3 W = cr_v3_add(rb.loads[0].value, cr_v3_scale(rb.loads[2].value, rb.a->bodies[0].mass));
        cr_vec3 MW = cr_v3_add(cr_v3_cross(c, W), rb.loads[1].value);
        cr_vec3 sf = W, sm = MW, pf = W, pm = MW;
        for (int i = 0; i < 3; ++i) {
            cr_vec3 f, m;
            const cr_model *md = cr_assembly_rod_model(rb.a, i);
            cr_state *st = cr_assembly_state_rod(rb.s, i);
            CHECK(cr_state_reaction(md, st, 0, &f, &m) == CR_OK);
            m = cr_m3_mulv(cr_q_exp(cr_state_orientation(st, 0)), m);
            sf = cr_v3_add(sf, f);
            sm = cr_v3_add(sm, cr_v3_add(cr_v3_cross(cr_state_position(st, 0), f), m));
            CHECK(cr_assembly_joint_reaction(rb.a, rb.s, i, &f, &m) == CR_OK);
            cr_vec3 x = cr_state_position(st, -1 + cr_assembly_rod_model(rb.a, i)->nodes);
            pf = cr_v3_sub(pf, f);
            pm = cr_v3_sub(pm, cr_v3_add(cr_v3_cross(x, f), m));
        }
        const double scale = cr_v3_norm(W) * L;
        const double ef = cr_v3_norm(sf) / cr_v3_norm(W), em = cr_v3_norm(sm) / scale;
        const double pef = cr_v3_norm(pf) / cr_v3_norm(W), pem = cr_v3_norm(pm) / scale;
        printf("robot (%s legs): platform at (%.6f, %.6f, %.6f); supports: force balance %.3g, moment balance %.3g; "
               "platform: force balance %.3g, moment balance %.3g (relative)\n",
               pass ? "ball" : "welded", c.x, c.y, c.z, ef, em, pef, pem);
        CHECK(ef < 1e-9);
        CHECK(em < (pass ? 1e-9 : 2e-6));
        CHECK(pef < 1e-9);
        CHECK(pem < 1e-9);
        CHECK(cr_v3_norm(cr_v3_sub(c, cr_v3(0, 0, L))) > 0.02 * L); /* a large deflection indeed */
        robot_free(&rb);
    }
}

/* (ii) A central axial load F = (0, 0, −P) on the platform of symmetric welded legs: each leg
 * stays straight and carries P/3, so the platform sinks by exactly (P/3) L/EA (the mixed rod's
 * constitutive law is linear in the strain, a straight rod's strain is the axial force over
 * EA: exact, not a small-load limit), without turning. */
static void test_robot_axial(void)
{
    robot rb;
    memset(&rb, 0, sizeof rb);
    const double L = 0.5, R = 0.1, EA = 2e3, P = 30.0;
    rb.sec = resultants(EA, 1e4, 0.8, 1.0, 1.0);
    rb.loads[0] = cr_load_default_def();
    rb.loads[0].type = CR_LOAD_FORCE, rb.loads[0].body = 0, rb.loads[0].value = cr_v3(0, 0, -P);
    if (!robot_solve(&rb, L, R, 8, CR_JOINT_WELD, 1, 1)) return;
    cr_vec3 c;
    cr_quat q;
    cr_assembly_state_body(rb.s, 0, &c, &q, NULL, NULL);
    const double ref = P / 3 * L / EA;
    printf("robot axial: platform sinks %.15g, (P/3) L/EA = %.15g; |q - 1| %.3g\n", L - c.z, ref,
           sqrt(cr_q_norm2(cr_q_sub(q, cr_q_identity()))));
    CHECK_NEAR(L - c.z, ref, 1e-12 * ref + 1e-15);
    CHECK(fabs(c.x) < 1e-14 && fabs(c.y) < 1e-14);
    CHECK(cr_q_norm2(cr_q_sub(q, cr_q_identity())) < 1e-24);
    robot_free(&rb);
}

/* (iii) A small lateral load (P, 0, 0) at the platform's centre, welded legs: each leg is a
 * fixed-guided beam (clamped at the base, its tip held parallel by the platform, whose tilt is
 * held by the legs' axial stiffness, EA R² / (EI) = 1e6 here) carrying P/3, with the tip
 * deflection of a Timoshenko beam
 *     δ = (P/3) L³/(12 EI) + (P/3) L/(GA)
 * (bending of the fixed-guided beam, plus the shear of the constant shear force). The
 * platform's tilt changes δ by O(EI/(EA R²)) relative, the geometric nonlinearity by
 * O((δ/L)²) ~ 1e-8 here; the mixed rod's elements converge to the beam at O(h²): the
 * error must fall ~4× from 10 to 20 elements, and the Richardson extrapolation
 * (4 δ_20 − δ_10)/3 match δ to 1e-4. */
static void test_robot_lateral(void)
{
    const double L = 0.5, R = 0.1, EI = 0.5, GA = 2e3, EA = 5e7, P = 1e-3;
    const double ref = P / 3 * L * L * L / (12 * EI) + P / 3 * L / GA;
    double err_n[2], x_n[2];
    for (int pass = 0; pass < 2; ++pass) {
        robot rb;
        memset(&rb, 0, sizeof rb);
        rb.sec = resultants(EA, GA, 0.4, EI, 1.0);
        rb.loads[0] = cr_load_default_def();
        rb.loads[0].type = CR_LOAD_FORCE, rb.loads[0].body = 0, rb.loads[0].value = cr_v3(P, 0, 0);
        if (!robot_solve(&rb, L, R, pass ? 20 : 10, CR_JOINT_WELD, 1, 1)) return;
        cr_vec3 c;
        cr_quat q;
        cr_assembly_state_body(rb.s, 0, &c, &q, NULL, NULL);
        err_n[pass] = fabs(c.x - ref) / ref, x_n[pass] = c.x;
        printf("robot lateral (%d elements): platform moves %.12g, fixed-guided beams %.12g (relative error %.3g); "
               "tilt %.3g rad\n",
               pass ? 20 : 10, c.x, ref, err_n[pass], 2 * sqrt(q.x * q.x + q.y * q.y + q.z * q.z));
        CHECK(err_n[pass] < 2e-2);
        robot_free(&rb);
    }
    const double rich = (4 * x_n[1] - x_n[0]) / 3;
    printf("robot lateral: Richardson %.12g, relative error %.3g; error ratio 10/20 elements %.3f\n", rich,
           fabs(rich - ref) / ref, err_n[0] / err_n[1]);
    CHECK(err_n[0] / err_n[1] > 3.5 && err_n[0] / err_n[1] < 4.5);
    CHECK(fabs(rich - ref) < 1e-4 * ref);
}

/* ---- dynamics ---- */

/* A free-flying chain: rod "a" along x over [0, 0.5], a ball joint at its end to the point
 * (−0.1, 0, 0) of a free body centred at (0.6, 0, 0), whose point (0.1, 0, 0) carries a hinge
 * (axis z) to the start of rod "b" over [0.7, 1.2]. No supports, no gravity. */
typedef struct flyer {
    cr_section_segment sec;
    cr_assembly_rod_def rods[2];
    cr_joint_def joints[2];
    cr_rigid_body_def body;
    cr_assembly *a;
    cr_assembly_state *s;
} flyer;

static int flyer_create(flyer *f)
{
    f->sec = resultants(2e3, 1e3, 0.3, 0.4, 0.5);
    cr_rod_def A = straight_rod(&f->sec, 0.5, 6), Bd = straight_rod(&f->sec, 0.5, 5);
    Bd.reference.origin = cr_v3(0.7, 0, 0);
    f->rods[0] = named("a", A), f->rods[1] = named("b", Bd);
    f->body = cr_rigid_body_default_def();
    snprintf(f->body.name, sizeof f->body.name, "hub");
    f->body.mass = 0.3, f->body.center = cr_v3(0.6, 0, 0);
    f->body.inertia = (cr_mat3){{{2e-3, 0, 0}, {0, 3e-3, 0}, {0, 0, 4e-3}}};
    f->joints[0] = cr_joint_default_def();
    f->joints[0].type = CR_JOINT_BALL, f->joints[0].a = (cr_rod_node){0, -1};
    f->joints[0].body_b = 1, f->joints[0].point_b = cr_v3(-0.1, 0, 0);
    f->joints[1] = cr_joint_default_def();
    f->joints[1].type = CR_JOINT_HINGE, f->joints[1].axis = cr_v3(0, 0, 1);
    f->joints[1].body_a = 1, f->joints[1].point_a = cr_v3(0.1, 0, 0), f->joints[1].b = (cr_rod_node){1, 0};
    cr_assembly_def def = {
        .rod_count = 2, .rods = f->rods, .joint_count = 2, .joints = f->joints, .body_count = 1, .bodies = &f->body};
    cr_error err = {0};
    f->a = cr_assembly_create(&def, &err);
    CHECK(f->a != NULL);
    if (!f->a) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    f->s = cr_assembly_state_create(f->a);
    return 1;
}

/* The structured shifted solves with a free body (the body's dense 13 × 13 block eliminated
 * into the Schur complement on the multipliers) against a dense LU of s M − J of the whole DAE,
 * real and complex shifts, at a generic state. */
extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);

static void test_body_shifted_solves(void)
{
    flyer f;
    if (!flyer_create(&f)) return;
    cr_assembly *a = f.a;
    cr_assembly_state *s = f.s;
    const int N = cr_asm_dynamic_size(a), N2 = 2 * N;
    double *y = malloc(N * sizeof *y), *F = malloc(N * sizeof *F), *J = malloc((size_t)N * N * sizeof *J);
    double *M = malloc(N * sizeof *M), *b = malloc(N2 * sizeof *b), *x = malloc(N2 * sizeof *x);
    double *E = malloc((size_t)N2 * N2 * sizeof *E);
    int *piv = malloc(N2 * sizeof *piv);
    CHECK(cr_asm_dynamic_probe(a, s, 0, NULL, y, F, NULL, NULL) == CR_OK);
    srand(5);
    const int nrod = N - a->rows - 13;
    for (int k = 0; k < N - a->rows; ++k) {
        double u = (double)rand() / RAND_MAX - 0.5;
        int c = k < nrod ? k % CR_DYN_BLOCK : k - nrod;
        y[k] += c < 3 ? 0.05 * u : c < 7 ? 0.1 * u : c < 13 ? 2 * u : 5 * u;
    }
    CHECK(cr_asm_dynamic_probe(a, s, 0, y, y, F, J, NULL) == CR_OK);
    for (int cplx = 0; cplx < 2; ++cplx) {
        const double sr = 37.0, si = cplx ? 21.0 : 0.0;
        for (int k = 0; k < N2; ++k) b[k] = x[k] = (double)rand() / RAND_MAX - 0.5;
        CHECK(cr_asm_dynamic_probe_solve(a, s, 0, y, sr, si, x, cplx ? x + N : NULL, M, NULL, NULL) == CR_OK);
        const int n = cplx ? N2 : N;
        memset(E, 0, (size_t)N2 * N2 * sizeof *E);
        for (int r = 0; r < N; ++r)
            for (int c = 0; c < N; ++c) {
                double v = (r == c ? sr * M[r] : 0.0) - J[(size_t)r * N + c];
                E[(size_t)c * n + r] = v;
                if (cplx) E[(size_t)(c + N) * n + r + N] = v;
            }
        if (cplx)
            for (int r = 0; r < N; ++r) E[(size_t)(r + N) * n + r] = -si * M[r], E[(size_t)r * n + r + N] = si * M[r];
        int info = 0, one = 1;
        dgesv_(&n, &one, E, &n, piv, b, &n, &info);
        CHECK(info == 0);
        double err = 0, big = 0;
        for (int k = 0; k < n; ++k) err = fmax(err, fabs(x[k] - b[k])), big = fmax(big, fabs(b[k]));
        printf("body shifted solve (%s): %.2e relative\n", cplx ? "complex" : "real", err / big);
        CHECK(err < 1e-9 * big);
    }
    /* the joint rows' Jacobian against central differences of the whole residual, in the
     * body's columns (the rows' own, G, and the body's block, J_b) */
    double *yp = malloc(N * sizeof *yp), *Fp = malloc(N * sizeof *Fp), *Fm = malloc(N * sizeof *Fm), worst = 0;
    for (int c = nrod; c < nrod + 13; ++c) {
        memcpy(yp, y, N * sizeof *y);
        double h = 1e-6 * fmax(1.0, fabs(y[c]));
        yp[c] = y[c] + h;
        cr_asm_dynamic_probe(a, s, 0, yp, yp, Fp, NULL, NULL);
        yp[c] = y[c] - h;
        cr_asm_dynamic_probe(a, s, 0, yp, yp, Fm, NULL, NULL);
        for (int r = nrod; r < N; ++r) {
            double fd = (Fp[r] - Fm[r]) / (2 * h), scale = 0;
            for (int q = 0; q < N; ++q) scale = fmax(scale, fabs(J[(size_t)r * N + q]));
            worst = fmax(worst, fabs(fd - J[(size_t)r * N + c]) / fmax(scale, 1e-300));
        }
    }
    printf("body dynamic Jacobian (body and joint rows, body columns): worst relative FD difference %.2e\n", worst);
    CHECK(worst < 1e-6);
    free(yp), free(Fp), free(Fm);
    free(y), free(F), free(J), free(M), free(b), free(x), free(E), free(piv);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

typedef struct momenta {
    int count;
    cr_vec3 P0, L0;
    double dP, dL, E0, dE;
} momenta;

static int on_momenta(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    (void)a, (void)s;
    momenta *m = user;
    const double E = smp->kinetic + smp->elastic + smp->gravity;
    if (m->count++ == 0) m->P0 = smp->momentum, m->L0 = smp->angular_momentum, m->E0 = E;
    m->dP = fmax(m->dP, cr_v3_norm(cr_v3_sub(smp->momentum, m->P0)));
    m->dL = fmax(m->dL, cr_v3_norm(cr_v3_sub(smp->angular_momentum, m->L0)));
    m->dE = fmax(m->dE, fabs(E - m->E0));
    return 0;
}

/* (b) The free-flying chain set moving as a rigid body (v = v0 + ω × r on every node and the
 * body's centre, Ω = Aᵀω: the joints' C u = 0), ω large enough for the centrifugal loads to
 * stretch and bend the rods (an elastic motion under the joints' forces): with no external
 * load, the total linear momentum Σ m v (rods' nodes and the body) and the angular momentum
 * about the origin Σ r × m v + A Θ Ω (with the body's spin) are invariants of the exact
 * motion, and the energy too (ideal joints do no work). */
static void test_free_flight_momenta(void)
{
    flyer f;
    if (!flyer_create(&f)) return;
    const cr_vec3 v0 = cr_v3(0.3, -0.2, 0.1), w = cr_v3(0.5, 1.0, 4.0);
    for (int r = 0; r < 2; ++r) {
        cr_state *st = cr_assembly_state_rod(f.s, r);
        const cr_model *m = cr_assembly_rod_model(f.a, r);
        for (int i = 0; i < m->nodes; ++i) {
            cr_vec3 x = cr_state_position(st, i);
            cr_state_set_velocity(st, i, cr_v3_add(v0, cr_v3_cross(w, x)),
                                  cr_m3_tmulv(cr_q_exp(cr_state_orientation(st, i)), w));
        }
    }
    cr_vec3 c;
    cr_quat q;
    cr_assembly_state_body(f.s, 0, &c, &q, NULL, NULL);
    cr_assembly_state_set_body_velocity(f.s, 0, cr_v3_add(v0, cr_v3_cross(w, c)), cr_m3_tmulv(cr_q_exp(q), w));
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 1.0, o.output_dt = 0.01, o.rtol = 1e-8, o.atol = 1e-10;
    momenta mo = {0};
    cr_dynamic_report rep;
    cr_error err = {0};
    cr_status st = cr_assembly_dynamic_solve(f.a, f.s, 0, &o, on_momenta, &mo, &rep, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    cr_assembly_state_body(f.s, 0, &c, &q, NULL, NULL);
    printf("free flight: %ld steps; |P| %.6g, max |P - P0| %.3g (relative %.3g); |L| %.6g, max |L - L0| %.3g "
           "(relative %.3g); energy %.6g, drift %.3g (relative); hub at (%.4f, %.4f, %.4f)\n",
           rep.steps, cr_v3_norm(mo.P0), mo.dP, mo.dP / cr_v3_norm(mo.P0), cr_v3_norm(mo.L0), mo.dL,
           mo.dL / cr_v3_norm(mo.L0), mo.E0, mo.dE / mo.E0, c.x, c.y, c.z);
    CHECK(mo.count > 90);
    CHECK(mo.dP < 1e-8 * cr_v3_norm(mo.P0));
    CHECK(mo.dL < 1e-7 * cr_v3_norm(mo.L0));
    CHECK(mo.dE < 1e-6 * mo.E0);
    /* it turned (ω t = 4 rad about z) and deformed: the hub is not where a rigid motion would be */
    CHECK(cr_v3_norm(cr_v3_sub(c, cr_v3(0.6, 0, 0))) > 0.1);
    cr_assembly_state_destroy(f.s);
    cr_assembly_destroy(f.a);
}

typedef struct swing {
    int count;
    double t_prev, y_prev, up[16];
    int n_up;
} swing;

static int on_swing(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *smp, void *user)
{
    (void)a;
    swing *w = user;
    cr_vec3 c;
    cr_assembly_state_body(s, 0, &c, NULL, NULL, NULL);
    /* upward zero crossings of the body centre's y, by linear interpolation (at a crossing the
     * sine has no curvature: the interpolation error is O(dt³)) */
    if (w->count++ > 0 && w->y_prev < 0 && c.y >= 0 && w->n_up < 16)
        w->up[w->n_up++] = w->t_prev + (smp->t - w->t_prev) * (-w->y_prev) / (c.y - w->y_prev);
    w->t_prev = smp->t, w->y_prev = c.y;
    return 0;
}

/* (c) A body hanging by a ball joint from the lower end of a stiff vertical rod clamped at its
 * top: a compound pendulum about the joint's point, whose small oscillations have the period
 *     T0 = 2π √((Θ_x + m a²) / (m g a))
 * (a: the point's distance above the centre, Θ_x the inertia about the swing axis), and at
 * amplitude θ0 T = T0 (1 + θ0²/16 + ...). The rod (EI = 1e6 N m², EA = 1e9 N) gives the point
 * a lateral compliance L³/(3EI): a relative shift of order (m g/a) L³/(3EI) ~ 2e-6, below the
 * tolerance. Started at the hanging pose with the body turning at ω0 about x (and its centre at
 * ω0 a along y, so the point stays at the rod's end). */
static void test_body_pendulum(void)
{
    const double L = 0.5, m = 1.0, a = 0.2, Jx = 0.01, g = 9.81, w0 = 0.05;
    cr_section_segment sec = resultants(1e9, 1e9, 1e6, 1e6, 0.05);
    cr_rod_def rod = straight_rod(&sec, L, 4);
    rod.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), PI / 2); /* e_x along −z */
    cr_bc_def clamp = cr_bc_default_def();
    rod.bcs = &clamp, rod.bc_count = 1;
    cr_assembly_rod_def rods[1] = {named("hanger", rod)};
    cr_rigid_body_def body = cr_rigid_body_default_def();
    snprintf(body.name, sizeof body.name, "bob");
    body.mass = m, body.center = cr_v3(0, 0, -L - a);
    body.inertia = (cr_mat3){{{Jx, 0, 0}, {0, Jx, 0}, {0, 0, 0.004}}};
    cr_joint_def jt = cr_joint_default_def();
    jt.type = CR_JOINT_BALL, jt.a = (cr_rod_node){0, -1}, jt.body_b = 1, jt.point_b = cr_v3(0, 0, a);
    cr_load_def grav = cr_load_default_def();
    grav.type = CR_LOAD_GRAVITY, grav.value = cr_v3(0, 0, -g);
    rods[0].rod.loads = &grav, rods[0].rod.load_count = 1;
    cr_assembly_def def = {.rod_count = 1,
                           .rods = rods,
                           .joint_count = 1,
                           .joints = &jt,
                           .body_count = 1,
                           .bodies = &body,
                           .body_load_count = 1,
                           .body_loads = &grav};
    cr_error err = {0};
    cr_assembly *as = cr_assembly_create(&def, &err);
    CHECK(as != NULL);
    if (!as) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    cr_assembly_state *s = cr_assembly_state_create(as);
    cr_assembly_state_set_body_velocity(s, 0, cr_v3(0, w0 * a, 0), cr_v3(w0, 0, 0));
    const double T0 = 2 * PI * sqrt((Jx + m * a * a) / (m * g * a));
    const double th0 = w0 / sqrt(m * g * a / (Jx + m * a * a)), T = T0 * (1 + th0 * th0 / 16);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 3.2 * T0, o.output_dt = T0 / 200, o.rtol = 1e-8, o.atol = 1e-11;
    swing sw = {0};
    cr_dynamic_report rep;
    cr_status st = cr_assembly_dynamic_solve(as, s, 0, &o, on_swing, &sw, &rep, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(sw.n_up >= 3);
    if (sw.n_up >= 3) {
        const double Tm = (sw.up[sw.n_up - 1] - sw.up[0]) / (sw.n_up - 1);
        printf("pendulum: %ld steps; period %.9f s over %d swings, compound pendulum %.9f s (amplitude %.3g rad): "
               "relative difference %.3g\n",
               rep.steps, Tm, sw.n_up - 1, T, th0, fabs(Tm - T) / T);
        CHECK(fabs(Tm - T) < 1e-5 * T);
    }
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(as);
}

CHECK_MAIN(CASE(test_body_joint_jacobians), CASE(test_body_wrench_jacobian), CASE(test_robot_equilibrium),
           CASE(test_robot_axial), CASE(test_robot_lateral), CASE(test_body_shifted_solves),
           CASE(test_free_flight_momenta), CASE(test_body_pendulum))
