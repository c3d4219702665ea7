/* Rod–obstacle contact of the mixed rod in statics (docs/theory.md "Contact with obstacles"):
 * the obstacles' distances, normals and Hessians and the contact force's Jacobian against
 * central differences; a rod lying on a plane (contact force = weight); the friction threshold
 * on a slope (tan α vs μ_s) and under an end pull (the slip zone's elastic stretch); the
 * capstan (the discrete Euler–Eytelwein ratio); a cantilever propped on a cylinder (the
 * small-deflection reaction); driven obstacles' poses against closed forms. */
#include "check.h"
#include "contact/contact.h"
#include "contact/motion.h"
#include "fd_jacobian.h"
#include "mixed/mixed.h"
#include "mixed/supports.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

static cr_mat3 rotation(cr_quat q) { return cr_q_exp(cr_q_normalize(q)); }

static cr_obstacle_def obstacle(cr_obstacle_type type)
{
    cr_obstacle_def o;
    memset(&o, 0, sizeof o);
    o.type = type;
    o.center = cr_v3(0.1, -0.2, 0.3);
    o.axes = rotation(cr_q(0.9, 0.2, -0.3, 0.1));
    o.radius = 0.4;
    o.length = INFINITY;
    o.half_extents = cr_v3(INFINITY, INFINITY, INFINITY);
    return o;
}

/* The obstacles of the tests below: each type, capped and finite variants. */
static int all_obstacles(cr_obstacle_def *o)
{
    int k = 0;
    o[k++] = obstacle(CR_OBSTACLE_PLANE);
    o[k] = obstacle(CR_OBSTACLE_PLANE), o[k++].half_extents = cr_v3(0.5, 0.3, 0);
    o[k++] = obstacle(CR_OBSTACLE_SPHERE);
    o[k++] = obstacle(CR_OBSTACLE_CYLINDER);
    o[k] = obstacle(CR_OBSTACLE_CYLINDER), o[k++].length = 0.6;
    o[k] = obstacle(CR_OBSTACLE_CAPSULE), o[k++].length = 0.6;
    o[k] = obstacle(CR_OBSTACLE_BOX), o[k++].half_extents = cr_v3(0.3, 0.2, 0.5);
    return k;
}

/* n = ∇φ and H = ∂n/∂x against central differences at random points, inside and outside
 * (points within 1e-4 of an edge of the distance's pieces are skipped: a kink) */
static void test_geometry_fd(void)
{
    cr_obstacle_def obs[8];
    int count = all_obstacles(obs);
    const double h = 1e-6;
    for (int k = 0; k < count; ++k) {
        double worst_n = 0, worst_H = 0;
        int tested = 0;
        srand(7 + k);
        for (int trial = 0; trial < 400; ++trial) {
            cr_vec3 x = cr_v3_add(obs[k].center, cr_v3(0.8 * urand(), 0.8 * urand(), 0.8 * urand()));
            double phi;
            cr_vec3 n;
            cr_mat3 H;
            if (!cr_obstacle_distance(&obs[k], x, &phi, &n, &H)) continue;
            double fp[3], fm[3];
            cr_vec3 np[3], nm[3];
            int smooth = 1;
            for (int c = 0; c < 3; ++c) {
                double xp[3] = {x.x, x.y, x.z}, xm[3] = {x.x, x.y, x.z};
                xp[c] += h, xm[c] -= h;
                cr_mat3 Hp, Hm;
                smooth &= cr_obstacle_distance(&obs[k], cr_v3_load(xp), &fp[c], &np[c], &Hp);
                smooth &= cr_obstacle_distance(&obs[k], cr_v3_load(xm), &fm[c], &nm[c], &Hm);
                /* a kink between x ± h shows as a jump of H */
                for (int r = 0; r < 3; ++r)
                    for (int q = 0; q < 3; ++q) smooth &= fabs(Hp.m[r][q] - Hm.m[r][q]) < 1e-3 * (1 + fabs(H.m[r][q]));
            }
            if (!smooth) continue;
            ++tested;
            for (int c = 0; c < 3; ++c) {
                worst_n = fmax(worst_n, fabs((fp[c] - fm[c]) / (2 * h) - cr_v3_get(n, c)));
                cr_vec3 dn = cr_v3_scale(cr_v3_sub(np[c], nm[c]), 0.5 / h);
                for (int r = 0; r < 3; ++r) worst_H = fmax(worst_H, fabs(cr_v3_get(dn, r) - H.m[r][c]));
            }
            CHECK_NEAR(cr_v3_norm(n), 1.0, 1e-12);
        }
        CHECK(tested > 100);
        CHECK(worst_n < 1e-7);
        CHECK(worst_H < 1e-5);
        if (!(worst_n < 1e-7 && worst_H < 1e-5))
            fprintf(stderr, "obstacle %d: |n - dphi| %.3g, |H - dn| %.3g (%d points)\n", k, worst_n, worst_H, tested);
    }
    /* distances worked by hand, in the obstacles' own axes */
    cr_obstacle_def b = obstacle(CR_OBSTACLE_BOX);
    b.axes = cr_m3_identity(), b.center = cr_v3(0, 0, 0), b.half_extents = cr_v3(1, 2, 3);
    double phi;
    cr_vec3 n;
    cr_obstacle_distance(&b, cr_v3(2, 4, 3.5), &phi, &n, NULL); /* beyond the corner (1, 2, 3) */
    CHECK_NEAR(phi, sqrt(1 + 4 + 0.25), 1e-14);
    cr_obstacle_distance(&b, cr_v3(0.5, 1.8, 0), &phi, &n, NULL); /* inside, nearest the y faces */
    CHECK_NEAR(phi, -0.2, 1e-14);
    CHECK_NEAR(n.y, 1.0, 0);
    cr_obstacle_def c = obstacle(CR_OBSTACLE_CYLINDER);
    c.axes = cr_m3_identity(), c.center = cr_v3(0, 0, 0), c.length = 2.0, c.radius = 1.0;
    cr_obstacle_distance(&c, cr_v3(0, 4, 5), &phi, &n, NULL); /* off the rim (0, 1, 1) */
    CHECK_NEAR(phi, 5.0, 1e-14);
    cr_obstacle_distance(&c, cr_v3(0.2, 0, 0.9), &phi, &n, NULL); /* inside, nearest the cap */
    CHECK_NEAR(phi, -0.1, 1e-14);
    cr_obstacle_def p = obstacle(CR_OBSTACLE_PLANE);
    p.half_extents = cr_v3(0.5, 0.3, 0);
    CHECK(!cr_obstacle_distance(&p, cr_v3_add(p.center, cr_m3_column(p.axes, 0)), &phi, &n, NULL)); /* off the patch */
}

/* The contact force's K = ∂f/∂r against central differences: every obstacle, pressing
 * nodes with multipliers, sticking and sliding. */
/* turning: every obstacle translating and turning (angular_velocity), seen at t = 0.7 s: the force
 * computed in its frame and turned back, K = R K_l Rᵀ */
static void force_jacobian_fd(int turning)
{
    cr_obstacle_def obs[8];
    int count = all_obstacles(obs);
    for (int k = 0; k < count; ++k) obs[k].mu_static = 0.6, obs[k].mu_kinetic = 0.5;
    if (turning)
        for (int k = 0; k < count; ++k)
            obs[k].angular_velocity = cr_v3(0.3, -0.5, 0.8), obs[k].velocity = cr_v3(0.1, 0.2, -0.1);
    double worst = 0;
    int stick = 0, slip = 0;
    srand(3);
    for (int k = 0; k < count; ++k) {
        for (int trial = 0; trial < 60; ++trial) {
            double a = 0.05;
            cr_contact *c = cr_contact_create(1, &a, NULL, 1, &obs[k], 10.0, 1e-6, 10);
            if (turning) cr_contact_set_time(c, 0.7);
            const cr_vec3 moved = turning ? cr_v3_scale(obs[k].velocity, 0.7) : cr_v3(0, 0, 0);
            cr_vec3 r = cr_v3_add(cr_v3_add(obs[k].center, moved), cr_v3(0.6 * urand(), 0.6 * urand(), 0.6 * urand()));
            double phi;
            cr_vec3 n;
            if (!cr_obstacle_distance(&obs[k], cr_v3_sub(r, moved), &phi, &n, NULL)) {
                cr_contact_destroy(c);
                continue;
            }
            /* λ_N so that the node presses; the anchor nearby; λ_T along the surface */
            c->pair[0].lambda_n = 1.0 + 10.0 * fmax(0.0, phi - a) + urand() * 0.5 + 0.5;
            c->pair[0].anchored = 1;
            c->pair[0].anchor = cr_v3_add(r, cr_v3(0.05 * urand(), 0.05 * urand(), 0.05 * urand()));
            c->pair[0].lambda_t = cr_v3(1.5 * urand(), 1.5 * urand(), 1.5 * urand());
            cr_vec3 f;
            cr_mat3 K;
            cr_contact_info in;
            cr_contact_node_force(c, 0, r, &f, &K, &in);
            if (in.active == 0) {
                cr_contact_destroy(c);
                continue;
            }
            const double h = 1e-7;
            double scale = 0, err = 0;
            int kink = 0;
            for (int q = 0; q < 3; ++q) {
                double xp[3] = {r.x, r.y, r.z}, xm[3] = {r.x, r.y, r.z};
                xp[q] += h, xm[q] -= h;
                cr_vec3 fp, fm;
                cr_contact_info ip, im;
                cr_contact_node_force(c, 0, cr_v3_load(xp), &fp, NULL, &ip);
                cr_contact_node_force(c, 0, cr_v3_load(xm), &fm, NULL, &im);
                kink |= ip.slipping != im.slipping || ip.active != im.active;
                cr_vec3 d = cr_v3_scale(cr_v3_sub(fp, fm), 0.5 / h);
                for (int rr = 0; rr < 3; ++rr) {
                    scale = fmax(scale, fabs(K.m[rr][q]));
                    err = fmax(err, fabs(cr_v3_get(d, rr) - K.m[rr][q]));
                }
            }
            /* a kink of the obstacle's distance between r ± h: H jumps there */
            cr_mat3 Hp, Hm;
            double xp[3] = {r.x + h, r.y + h, r.z + h}, xm[3] = {r.x - h, r.y - h, r.z - h};
            cr_vec3 np, nm;
            cr_obstacle_distance(&obs[k], cr_v3_load(xp), &phi, &np, &Hp);
            cr_obstacle_distance(&obs[k], cr_v3_load(xm), &phi, &nm, &Hm);
            for (int rr = 0; rr < 3; ++rr)
                for (int q = 0; q < 3; ++q) kink |= fabs(Hp.m[rr][q] - Hm.m[rr][q]) > 1e-3 * (1 + fabs(Hp.m[rr][q]));
            if (!kink) {
                worst = fmax(worst, err / scale);
                stick += in.slipping == 0, slip += in.slipping > 0;
            }
            cr_contact_destroy(c);
        }
    }
    CHECK(stick > 30 && slip > 30);
    CHECK(worst < 1e-6);
    if (!(worst < 1e-6 && stick > 30 && slip > 30))
        fprintf(stderr, "contact K vs differences%s: %.3g (%d sticking, %d sliding)\n", turning ? " (turning)" : "",
                worst, stick, slip);
}

/* The stages' lean path for a plane that does not turn (friction at the centre: the force alone,
 * asked without totals) against the general pair force (asked with totals): the same f, ∂f/∂r and
 * ∂f/∂v to the bit, on unbounded and bounded, fixed and translating planes, frictionless and
 * rough, anchored or not, sticking, sliding (μ_k in a dynamic stage) and slipping, with and
 * without the dashpot and the velocity, with and without the derivatives. */
static void test_plane_lean_path(void)
{
    cr_obstacle_def obs[4];
    obs[0] = obstacle(CR_OBSTACLE_PLANE);
    obs[1] = obstacle(CR_OBSTACLE_PLANE), obs[1].half_extents = cr_v3(0.5, 0.3, 0);
    obs[2] = obstacle(CR_OBSTACLE_PLANE), obs[2].velocity = cr_v3(0.3, -0.1, 0.2);
    obs[3] = obstacle(CR_OBSTACLE_PLANE), obs[3].acceleration = cr_v3(-0.2, 0.4, 0.1);
    int cases = 0, pressing = 0, stick = 0, slip = 0, differ = 0;
    srand(11);
    for (int trial = 0; trial < 4000; ++trial) {
        cr_obstacle_def o = obs[trial % 4];
        const int rough = trial % 5 != 0;
        o.mu_static = rough ? 0.6 : 0.0, o.mu_kinetic = rough ? 0.4 : 0.0;
        double a = 0.05, w = 1.3;
        cr_contact *c = cr_contact_create(1, &a, &w, 1, &o, 10.0, 1e-6, 10);
        cr_contact_set_time(c, 0.4);
        c->dynamic = trial % 3 != 0;
        if (trial % 2) {
            c->damping = malloc(sizeof *c->damping);
            c->damping[0] = 0.7;
        }
        /* a point near the plane (its normal is the axes' third column), in the plane's own frame */
        const cr_vec3 nz = cr_m3_column(o.axes, 2);
        const cr_vec3 r = cr_v3_add(
            cr_v3_add(o.center, c->pose[0].shift),
            cr_v3_add(cr_v3(0.4 * urand(), 0.4 * urand(), 0.4 * urand()), cr_v3_scale(nz, 0.05 + 0.1 * urand())));
        const cr_vec3 v = cr_v3(urand(), urand(), urand());
        cr_contact_pair *pr = &c->pair[0];
        pr->lambda_n = trial % 7 == 0 ? 0.0 : 0.8 * fabs(urand());
        pr->anchored = trial % 11 != 0;
        pr->sliding = trial % 4 == 1;
        pr->anchor = cr_v3_add(r, cr_v3(0.05 * urand(), 0.05 * urand(), 0.05 * urand()));
        pr->lambda_t = cr_v3(0.3 * urand(), 0.3 * urand(), 0.3 * urand());
        const int with_v = trial % 6 != 5, with_K = trial % 8 != 7;
        cr_vec3 f1, f2;
        cr_mat3 K1, K2, Kv1, Kv2;
        cr_contact_info in;
        cr_contact_node_force_v(c, 0, r, with_v ? &v : NULL, &f1, with_K ? &K1 : NULL, with_K ? &Kv1 : NULL, NULL);
        cr_contact_node_force_v(c, 0, r, with_v ? &v : NULL, &f2, with_K ? &K2 : NULL, with_K ? &Kv2 : NULL, &in);
        int same = !memcmp(&f1, &f2, sizeof f1);
        if (with_K) same = same && !memcmp(&K1, &K2, sizeof K1) && !memcmp(&Kv1, &Kv2, sizeof Kv1);
        differ += !same;
        cases++, pressing += in.active > 0, stick += in.active && rough && !in.slipping && pr->anchored;
        slip += in.slipping > 0;
        cr_contact_destroy(c);
    }
    CHECK(differ == 0);
    CHECK(pressing > 1000 && stick > 200 && slip > 200);
    fprintf(stderr, "plane lean path: %d of %d cases differ (%d pressing, %d sticking, %d slipping)\n", differ, cases,
            pressing, stick, slip);
}

/* Friction at the contact point (contact.rolling): the node's wrench (force, body moment) and its
 * derivatives with respect to the position r and the orientation quaternion p (not unit) against
 * central differences, each block against its own scale (the moment's are a ε a small beside the
 * force's), on every obstacle type, fixed and turning, sticking and slipping. */
static void wrench_jacobian_fd(int turning)
{
    cr_obstacle_def obs[8];
    int count = all_obstacles(obs);
    for (int k = 0; k < count; ++k) obs[k].mu_static = 0.6, obs[k].mu_kinetic = 0.5;
    if (turning)
        for (int k = 0; k < count; ++k)
            obs[k].angular_velocity = cr_v3(0.3, -0.5, 0.8), obs[k].velocity = cr_v3(0.1, 0.2, -0.1);
    double worst[4] = {0, 0, 0, 0}; /* f_r, f_p, m_r, m_p */
    int stick = 0, slip = 0;
    srand(7);
    for (int k = 0; k < count; ++k) {
        for (int trial = 0; trial < 60; ++trial) {
            double a = 0.05;
            cr_contact *c = cr_contact_create(1, &a, NULL, 1, &obs[k], 10.0, 1e-6, 10);
            c->quat_offset = 3;
            if (turning) cr_contact_set_time(c, 0.7);
            const cr_vec3 moved = turning ? cr_v3_scale(obs[k].velocity, 0.7) : cr_v3(0, 0, 0);
            cr_vec3 r = cr_v3_add(cr_v3_add(obs[k].center, moved), cr_v3(0.6 * urand(), 0.6 * urand(), 0.6 * urand()));
            cr_quat p = cr_q(1.0 + 0.3 * urand(), 0.5 * urand(), 0.5 * urand(), 0.5 * urand());
            double phi;
            cr_vec3 n;
            if (!cr_obstacle_distance(&obs[k], cr_v3_sub(r, moved), &phi, &n, NULL)) {
                cr_contact_destroy(c);
                continue;
            }
            cr_contact_pair *pr = &c->pair[0];
            pr->lambda_n = 1.0 + 10.0 * fmax(0.0, phi - a) + urand() * 0.5 + 0.5;
            pr->anchored = 1;
            pr->anchor = cr_v3_add(r, cr_v3(0.05 * urand(), 0.05 * urand(), 0.05 * urand()));
            pr->lambda_t = cr_v3(1.5 * urand(), 1.5 * urand(), 1.5 * urand());
            pr->offset = cr_v3_scale(n, -a);
            pr->body = cr_v3_add(cr_m3_tmulv(cr_q_exp(p), pr->offset), cr_v3(0.01 * urand(), 0.01 * urand(), 0.0));
            cr_contact_wrench w;
            cr_contact_info in;
            cr_contact_node_wrench(c, 0, r, p, NULL, &w, 1, &in);
            if (in.active == 0) {
                cr_contact_destroy(c);
                continue;
            }
            const double h = 1e-7;
            double scale[4] = {0, 0, 0, 0}, err[4] = {0, 0, 0, 0};
            int kink = 0;
            for (int q = 0; q < 7; ++q) {
                double x[7] = {r.x, r.y, r.z, p.w, p.x, p.y, p.z}, xp[7], xm[7];
                memcpy(xp, x, sizeof x), memcpy(xm, x, sizeof x);
                xp[q] += h, xm[q] -= h;
                cr_contact_wrench wp, wm;
                cr_contact_info ip, im;
                cr_contact_node_wrench(c, 0, cr_v3_load(xp), cr_q_load(xp + 3), NULL, &wp, 0, &ip);
                cr_contact_node_wrench(c, 0, cr_v3_load(xm), cr_q_load(xm + 3), NULL, &wm, 0, &im);
                kink |= ip.slipping != im.slipping || ip.active != im.active;
                const cr_vec3 df = cr_v3_scale(cr_v3_sub(wp.f, wm.f), 0.5 / h),
                              dm = cr_v3_scale(cr_v3_sub(wp.m, wm.m), 0.5 / h);
                for (int rr = 0; rr < 3; ++rr) {
                    const double jf = q < 3 ? w.f_r.m[rr][q] : w.f_p[rr][q - 3];
                    const double jm = q < 3 ? w.m_r.m[rr][q] : w.m_p[rr][q - 3];
                    const int bf = q < 3 ? 0 : 1, bm = q < 3 ? 2 : 3;
                    scale[bf] = fmax(scale[bf], fabs(jf)), err[bf] = fmax(err[bf], fabs(cr_v3_get(df, rr) - jf));
                    scale[bm] = fmax(scale[bm], fabs(jm)), err[bm] = fmax(err[bm], fabs(cr_v3_get(dm, rr) - jm));
                }
            }
            cr_mat3 Hp, Hm;
            double xp[3] = {r.x + h, r.y + h, r.z + h}, xm[3] = {r.x - h, r.y - h, r.z - h};
            cr_vec3 np, nm;
            cr_obstacle_distance(&obs[k], cr_v3_sub(cr_v3_load(xp), moved), &phi, &np, &Hp);
            cr_obstacle_distance(&obs[k], cr_v3_sub(cr_v3_load(xm), moved), &phi, &nm, &Hm);
            for (int rr = 0; rr < 3; ++rr)
                for (int q = 0; q < 3; ++q) kink |= fabs(Hp.m[rr][q] - Hm.m[rr][q]) > 1e-3 * (1 + fabs(Hp.m[rr][q]));
            if (!kink) {
                for (int b = 0; b < 4; ++b)
                    if (scale[b] > 0) worst[b] = fmax(worst[b], err[b] / scale[b]);
                stick += in.slipping == 0, slip += in.slipping > 0;
            }
            cr_contact_destroy(c);
        }
    }
    CHECK(stick > 30 && slip > 30);
    const double w = fmax(fmax(worst[0], worst[1]), fmax(worst[2], worst[3]));
    CHECK(w < 1e-6);
    fprintf(stderr,
            "contact wrench vs differences%s: f_r %.3g, f_p %.3g, m_r %.3g, m_p %.3g (%d sticking, %d sliding)\n",
            turning ? " (turning)" : "", worst[0], worst[1], worst[2], worst[3], stick, slip);
}

static void test_wrench_jacobian_fd(void) { wrench_jacobian_fd(0); }
static void test_wrench_jacobian_turning_fd(void) { wrench_jacobian_fd(1); }

static void test_force_jacobian_fd(void) { force_jacobian_fd(0); }
static void test_force_jacobian_turning_fd(void) { force_jacobian_fd(1); }

/* ---- rods on obstacles ---- */
/* Constant section resultants (EI_y = EI_z, GA_y = GA_z), rotary inertia 1e-6 ρA. */
static cr_section_segment resultants_section(double EA, double GA, double GJ, double EI, double rhoA)
{
    cr_section_segment s = cr_section_default_def();
    s.shape = CR_SECTION_RESULTANTS;
    for (int k = 0; k < 2; ++k) {
        s.EA[k] = EA, s.GA_y[k] = s.GA_z[k] = GA, s.GJ[k] = GJ, s.EI_y[k] = s.EI_z[k] = EI;
        s.rhoA[k] = rhoA, s.rhoI_y[k] = s.rhoI_z[k] = 1e-6 * rhoA;
    }
    return s;
}

static cr_section_segment sec;
static cr_load_def loads[4];
static cr_obstacle_def obst[2];

/* A straight rod along x, L = 1 m, circular r = 1 cm, E = 1e7 Pa, ρ = 1000 kg/m³, lying on
 * the plane z = 0 (node centres at z = r: touching). */
static cr_rod_def rod_on_plane(int n, double mu)
{
    sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.01;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.0, d.elements = n, d.material = (cr_material){1e7, 0.4e7, 1000};
    d.sections = &sec, d.section_count = 1;
    d.reference.origin = cr_v3(0, 0, 0.01);
    memset(obst, 0, sizeof obst);
    obst[0].type = CR_OBSTACLE_PLANE, obst[0].axes = cr_m3_identity();
    obst[0].half_extents = cr_v3(INFINITY, INFINITY, 0);
    obst[0].mu_static = mu, obst[0].mu_kinetic = 0.8 * mu;
    d.obstacles = obst, d.obstacle_count = 1;
    return d;
}

static const double RHO_A = 1000 * M_PI * 1e-4, G = 9.81;

static cr_status solve(cr_model *m, cr_state *s, cr_error *err)
{
    cr_static_options o = cr_static_default_options();
    cr_static_report r = {0};
    cr_status st = cr_static_solve(m, s, &o, NULL, NULL, &r, err);
    cr_static_report_free(&r);
    return st;
}

static void test_rod_on_plane(void)
{
    cr_rod_def d = rod_on_plane(20, 0.5);
    loads[0] = cr_load_default_def();
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, 0, -G);
    d.loads = loads, d.load_count = 1;
    cr_error err = {0};
    cr_model *m = cr_model_create(&d, &err);
    CHECK(m != NULL);
    if (!m) return;
    cr_state *s = cr_state_create(m);
    CHECK(solve(m, s, &err) == CR_OK);
    cr_contact_totals t;
    cr_contact_totals_at(m->contact, s->x, m->block, &t);
    const double W = RHO_A * 1.0 * G;
    CHECK_NEAR(t.normal / W, 1.0, 1e-9); /* nothing else holds the rod up */
    CHECK(t.active == 21);
    CHECK(t.penetration <= m->contact->tol);
    CHECK_NEAR(m->contact->tol, 1e-6, 1e-18); /* the default 1e-4 × the radius */
    /* it lies flat: every node at the radius above the plane, to the tolerance */
    for (int i = 0; i < m->nodes; ++i) CHECK_NEAR(cr_state_position(s, i).z, 0.01, m->contact->tol);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* On a slope of angle α (gravity tilted along the rod, g (sin α, 0, −cos α)) every node's
 * share of the weight needs tan α <= μ_s: at 0.9 μ_s the rod holds with every node stuck (no
 * displacement beyond the tolerance); at 1.1 μ_s there is no equilibrium, and the failure
 * says friction. */
static void test_slope(void)
{
    const double mu = 0.5;
    for (int over = 0; over < 2; ++over) {
        double ta = (over ? 1.1 : 0.9) * mu, al = atan(ta);
        cr_rod_def d = rod_on_plane(20, mu);
        loads[0] = cr_load_default_def();
        loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(G * sin(al), 0, -G * cos(al));
        d.loads = loads, d.load_count = 1;
        cr_model *m = cr_model_create(&d, NULL);
        cr_state *s = cr_state_create(m);
        cr_error err = {0};
        cr_status st = solve(m, s, &err);
        if (!over) {
            CHECK(st == CR_OK);
            cr_contact_totals t;
            cr_contact_totals_at(m->contact, s->x, m->block, &t);
            CHECK(t.active == 21 && t.slipping == 0);
            double creep = 0;
            for (int i = 0; i < m->nodes; ++i) creep = fmax(creep, fabs(cr_state_position(s, i).x - m->ref_r[i].x));
            CHECK(creep <= m->contact->tol);
            CHECK_NEAR(t.normal / (RHO_A * G * cos(al)), 1.0, 1e-9);
        } else {
            CHECK(st != CR_OK);
            CHECK(strstr(err.message, "friction") != NULL);
            fprintf(stderr, "slope: %s\n", err.message);
        }
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
}

/* A rod on a rough plane pulled along its axis by F at its end (x = L): friction μ_s w per
 * unit length (w = ρ A g) is mobilized from the pulled end over the slip zone ℓ = F/(μ_s w),
 * where the axial force falls linearly from F to 0; the rest sticks unstrained. The end moves
 * by the slip zone's stretch, u = ∫₀^ℓ (F − μ_s w ξ)/EA dξ = F²/(2 μ_s w EA). Beyond μ_s w L
 * nothing holds. */
static void test_end_pull(void)
{
    const double mu = 0.5, w = RHO_A * G, EA = 1e7 * M_PI * 1e-4;
    for (int over = 0; over < 2; ++over) {
        double F = (over ? 1.1 : 0.5) * mu * w * 1.0;
        cr_rod_def d = rod_on_plane(80, mu);
        loads[0] = cr_load_default_def();
        loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, 0, -G);
        loads[1] = cr_load_default_def();
        loads[1].type = CR_LOAD_FORCE, loads[1].node = -1, loads[1].value = cr_v3(F, 0, 0);
        d.loads = loads, d.load_count = 2;
        cr_model *m = cr_model_create(&d, NULL);
        cr_state *s = cr_state_create(m);
        cr_error err = {0};
        cr_status st = solve(m, s, &err);
        if (!over) {
            CHECK(st == CR_OK);
            double u = cr_state_position(s, m->nodes - 1).x - 1.0, u_ref = F * F / (2 * mu * w * EA);
            /* measured 6e-5 off at 80 elements (the slip front is resolved to an element) */
            CHECK_NEAR(u / u_ref, 1.0, 1e-3);
            /* the far half sticks where it lay */
            for (int i = 0; i < m->nodes / 2 - 2; ++i)
                CHECK_NEAR(cr_state_position(s, i).x, m->ref_r[i].x, m->contact->tol);
            fprintf(stderr, "end pull: u = %.6g m, F^2/(2 mu w EA) = %.6g m\n", u, u_ref);
        } else {
            CHECK(st != CR_OK);
            CHECK(strstr(err.message, "friction") != NULL);
        }
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
}

/* The capstan (Euler–Eytelwein) on the discrete rope: M + 1 nodes on a circle of radius
 * R_c + a around a rough cylinder, each turning the rope by Δθ (the end loads continue the
 * polygon, so every node turns by Δθ and the wrap is θ = (M + 1) Δθ). At a node the normal
 * N = (T_a + T_b) sin(Δθ/2) and the friction (T_b − T_a) cos(Δθ/2) <= μ N: T_b/T_a <=
 * (1 + μ tan(Δθ/2))/(1 − μ tan(Δθ/2)), so the rope holds while T₂/T₁ <= that to the power
 * M + 1, which tends to e^{μθ} (0.02 % above it here). A light rope: stress-free in its
 * draped shape, stiff in stretch. Loaded from zero, its stretch slides most nodes at the limit
 * (friction opposes the stretch on either side of a sticking zone), a path the ratio does not
 * depend on; the stretch (1e-5) and the nodes' penetration turn the loads' directions a
 * little, and the found threshold lies 0.5–1 % below the ratio. */
static void test_capstan(void)
{
    enum { M = 40 };
    const double Rc = 0.1, a = 0.002, rho = Rc + a, mu = 0.3, dth = M_PI / (M + 1), T1 = 1.0;
    const double t = tan(0.5 * dth), ratio = pow((1 + mu * t) / (1 - mu * t), M + 1);
    CHECK_NEAR(ratio / exp(mu * M_PI), 1.0, 1e-3);
    static cr_vec3 pos[M + 1];
    static cr_quat q[M + 1];
    for (int k = 0; k <= M; ++k) {
        double ph = 0.5 * M_PI + (0.5 * M - k) * dth;
        pos[k] = cr_v3(rho * cos(ph), 0, rho * sin(ph));
        q[k] = cr_q_axis_angle(cr_v3(0, 1, 0), 0.5 * M_PI - ph);
    }
    for (int over = 0; over < 2; ++over) {
        const double T2 = (over ? 1.01 : 0.99) * ratio * T1; /* measured: holds at 0.990, not at 0.995 */
        sec = resultants_section(1e5, 1e5, 1e-2, 1e-2, 0.01);
        cr_rod_def d = cr_rod_default_def();
        d.elements = M, d.material = (cr_material){1, 1, 1};
        d.sections = &sec, d.section_count = 1;
        d.reference.type = CR_REFERENCE_NODES;
        d.reference.node_count = M + 1, d.reference.node_positions = pos, d.reference.node_orientations = q;
        const double ph0 = 0.5 * M_PI + 0.5 * M * dth, phM = 0.5 * M_PI - 0.5 * M * dth;
        cr_vec3 out0 = cr_v3_normalize(cr_v3_sub(cr_v3(rho * cos(ph0 + dth), 0, rho * sin(ph0 + dth)), pos[0]));
        cr_vec3 outM = cr_v3_normalize(cr_v3_sub(cr_v3(rho * cos(phM - dth), 0, rho * sin(phM - dth)), pos[M]));
        loads[0] = cr_load_default_def(), loads[1] = cr_load_default_def();
        loads[0].type = loads[1].type = CR_LOAD_FORCE;
        loads[0].node = 0, loads[0].value = cr_v3_scale(out0, T1);
        loads[1].node = -1, loads[1].value = cr_v3_scale(outM, T2);
        d.loads = loads, d.load_count = 2;
        memset(obst, 0, sizeof obst);
        obst[0].type = CR_OBSTACLE_CYLINDER, obst[0].radius = Rc, obst[0].length = INFINITY;
        obst[0].axes = cr_m3_columns(cr_v3(1, 0, 0), cr_v3(0, 0, -1), cr_v3(0, 1, 0)); /* axis along y */
        obst[0].mu_static = mu, obst[0].mu_kinetic = mu;
        d.obstacles = obst, d.obstacle_count = 1, d.contact.radius = a;
        cr_error err = {0};
        cr_model *m = cr_model_create(&d, &err);
        CHECK(m != NULL);
        if (!m) {
            fprintf(stderr, "capstan: %s\n", err.message);
            return;
        }
        cr_state *s = cr_state_create(m);
        cr_status st = solve(m, s, &err);
        if (!over) {
            CHECK(st == CR_OK);
            if (st != CR_OK) fprintf(stderr, "capstan: %s\n", err.message);
            cr_contact_totals tt;
            cr_contact_totals_at(m->contact, s->x, m->block, &tt);
            CHECK(tt.active == M + 1);
            CHECK(tt.penetration <= m->contact->tol);
            double creep = 0;
            for (int i = 0; i < m->nodes; ++i)
                creep = fmax(creep, cr_v3_norm(cr_v3_sub(cr_state_position(s, i), pos[i])));
            fprintf(stderr,
                    "capstan at 0.99 of the limit: largest node displacement %.3g m, friction at %.4g of its limit\n",
                    creep, tt.worst_ratio);
        } else {
            CHECK(st != CR_OK);
            CHECK(strstr(err.message, "friction") != NULL);
        }
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
}

/* A cantilever (clamped at x = 0, EI, shear-rigid) resting on a rigid cylinder at x = b and
 * pressed onto it by a tip load P: small deflections, a propped cantilever. The support's
 * reaction R follows from the cylinder's zero deflection: the tip load alone deflects x = b by
 * P b²(3L − b)/(6EI), R alone by R b³/(3EI), so R = P (3L − b)/(2b) (2.5 P at b = L/2), and the
 * tip deflects by P L³/(3EI) − R (b³/(3EI) + b²(L − b)/(2EI)). */
static void test_cantilever_on_cylinder(void)
{
    const double L = 1.0, b = 0.5, EI = 1.0, P = 1e-3, a = 0.01, Rc = 0.05;
    sec = resultants_section(1e6, 1e9, 1.0, EI, 0.01);
    cr_rod_def d = cr_rod_default_def();
    d.length = L, d.elements = 80, d.material = (cr_material){1, 1, 1};
    d.sections = &sec, d.section_count = 1;
    static cr_bc_def clamp;
    clamp = cr_bc_default_def();
    d.bcs = &clamp, d.bc_count = 1;
    loads[0] = cr_load_default_def();
    loads[0].type = CR_LOAD_FORCE, loads[0].node = -1, loads[0].value = cr_v3(0, 0, -P);
    d.loads = loads, d.load_count = 1;
    memset(obst, 0, sizeof obst);
    obst[0].type = CR_OBSTACLE_CYLINDER, obst[0].radius = Rc, obst[0].length = 0.2;
    obst[0].center = cr_v3(b, 0, -(a + Rc));
    obst[0].axes = cr_m3_columns(cr_v3(1, 0, 0), cr_v3(0, 0, -1), cr_v3(0, 1, 0));
    obst[0].mu_static = 0, obst[0].mu_kinetic = 0; /* the closed form is frictionless */
    d.obstacles = obst, d.obstacle_count = 1, d.contact.radius = a;
    cr_model *m = cr_model_create(&d, NULL);
    cr_state *s = cr_state_create(m);
    cr_error err = {0};
    cr_status st = solve(m, s, &err);
    CHECK(st == CR_OK);
    if (st != CR_OK) fprintf(stderr, "propped cantilever: %s\n", err.message);
    cr_contact_totals t;
    cr_contact_totals_at(m->contact, s->x, m->block, &t);
    const double R = P * (3 * L - b) / (2 * b);
    const double tip = P * L * L * L / (3 * EI) - R * (b * b * b / (3 * EI) + b * b * (L - b) / (2 * EI));
    CHECK(t.active == 1);
    CHECK_NEAR(t.normal / R, 1.0, 1e-3);
    CHECK_NEAR(-cr_state_position(s, m->nodes - 1).z / tip, 1.0, 1e-3);
    CHECK(t.penetration <= m->contact->tol);
    fprintf(stderr, "propped cantilever: R = %.8g N (closed form %.8g), tip %.8g m (%.8g), penetration %.3g m\n",
            t.normal, R, -cr_state_position(s, m->nodes - 1).z, tip, t.penetration);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

typedef struct static_fd {
    const cr_model *m;
} static_fd;

static void static_residual(void *ctx, const double *x, double *F, cr_blocktri *J)
{
    const static_fd *c = ctx;
    double scale[4] = {0.7, 0.7, 0.7, 0.7};
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_mixed_static_residual(c->m, &at, scale, x, F, J, NULL);
}

/* The whole static residual's Jacobian with contacts (a plane and a sphere pressing on a
 * perturbed rod, sticking and sliding pairs) against central differences. */
static void test_residual_jacobian_fd(void)
{
    cr_rod_def d = rod_on_plane(12, 0.4);
    obst[1] = obstacle(CR_OBSTACLE_SPHERE);
    obst[1].center = cr_v3(0.5, 0, 0.25), obst[1].radius = 0.25, obst[1].mu_static = 0.3;
    d.obstacle_count = 2, d.contact.stiffness = 50.0;
    loads[0] = cr_load_default_def();
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, 0, -G);
    d.loads = loads, d.load_count = 1;
    static cr_bc_def clamp;
    clamp = cr_bc_default_def();
    d.bcs = &clamp, d.bc_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    cr_state *s = cr_state_create(m);
    srand(11);
    int N = m->nodes * m->block;
    for (int k = 0; k < N; ++k) s->x[k] += 0.003 * urand();
    cr_contact *c = m->contact;
    c->quat_offset = 3; /* contact.rolling: friction at the contact point */
    for (int i = 0; i < m->nodes; ++i)
        for (int k = 0; k < 2; ++k) {
            cr_contact_pair *pr = &c->pair[i * 2 + k];
            pr->anchored = 1, pr->lambda_n = 0.05 + 0.05 * fabs(urand());
            pr->anchor = cr_v3_add(cr_x_position(m, s->x, i), cr_v3(0.002 * urand(), 0.002 * urand(), 0));
            pr->lambda_t = cr_v3(0.02 * urand(), 0.02 * urand(), 0.0);
            /* friction at the contact point: a material surface point off the centre (its slip
             * depends on the node's rotation) */
            pr->offset = cr_v3(0.002 * urand(), 0.002 * urand(), -0.01);
            pr->body = cr_v3_add(cr_m3_tmulv(cr_q_exp(cr_q_load(s->x + (size_t)i * m->block + 3)), pr->offset),
                                 cr_v3(0.0005 * urand(), 0.0005 * urand(), 0.0005 * urand()));
        }
    cr_contact_totals t;
    cr_contact_totals_at(c, s->x, m->block, &t);
    CHECK(t.active > 10 && t.slipping > 0 && t.slipping < t.active);
    static_fd ctx = {m};
    double e = fd_jacobian_error(m->nodes, m->block, static_residual, &ctx, s->x);
    CHECK(e < 1e-6);
    if (!(e < 1e-6)) fprintf(stderr, "static Jacobian with contact vs differences: %.3g\n", e);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* ---- dynamics ---- */
typedef struct cm_record {
    int count;
    double t[64], x[64], drift[64]; /* centre of mass x; largest node |x − x_ref| */
} cm_record;

static int record_cm(const cr_model *m, const cr_state *s, const cr_dynamic_sample *smp, void *user)
{
    (void)smp;
    cm_record *r = user;
    if (r->count >= 64) return 0;
    double xm = 0, d = 0;
    for (int i = 0; i < m->nodes; ++i) {
        double x = cr_state_position(s, i).x;
        xm += m->node_mass[i] * x, d = fmax(d, fabs(x - m->ref_r[i].x));
    }
    double mt = 0;
    for (int i = 0; i < m->nodes; ++i) mt += m->node_mass[i];
    r->t[r->count] = cr_state_time(s), r->x[r->count] = xm / mt, r->drift[r->count++] = d;
    return 0;
}

static cr_status run_dynamic(cr_model *m, cr_state *s, double t_end, cm_record *rec, cr_dynamic_report *rep)
{
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = t_end, o.output_dt = 0.5, o.rtol = 1e-5, o.atol = 1e-8; /* what check asks with obstacles */
    cr_error err = {0};
    rec->count = 0;
    cr_status st = cr_dynamic_solve(m, s, 0, 0.0, 0.0, 0.0, &o, record_cm, NULL, rec, rep, &err);
    if (st != CR_OK) fprintf(stderr, "dynamic contact: %s\n", err.message);
    return st;
}

/* A rod lying on a slope (gravity tilted by α, tan α = 0.9 μ_s), released from rest for 10 s:
 * it sticks. Each node rests on its tangential stick spring, deflected by its share of the
 * weight's slope component over ε_i, and does not creep: the anchors stay where they are while
 * the friction is below μ_s N. Measured: the centre of mass moves 1e-10 m between t = 5 and 10 s;
 * the bound asserted is 1e-6 m/s (the creep bound of the docs). The step size recovers after
 * the contact's first transients (the last step is long). */
static void test_dynamic_stick(void)
{
    const double mu = 0.5, al = atan(0.9 * mu);
    cr_rod_def d = rod_on_plane(20, mu);
    loads[0] = cr_load_default_def();
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(G * sin(al), 0, -G * cos(al));
    d.loads = loads, d.load_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    cr_state *s = cr_state_create(m);
    cm_record rec;
    cr_dynamic_report rep;
    CHECK(run_dynamic(m, s, 10.0, &rec, &rep) == CR_OK);
    CHECK(rec.count == 21);
    const double creep = fabs(rec.x[20] - rec.x[10]) / (rec.t[20] - rec.t[10]);
    CHECK(creep < 1e-6);
    /* every node within its stick spring's deflection, μ_s N_i/ε_i at most */
    const double bound = mu * RHO_A * G * cos(al) * (1.0 / 20) / m->contact->eps;
    CHECK(rec.drift[20] <= bound);
    CHECK(rep.h_last > 0.1);
    fprintf(stderr, "dynamic stick: creep %.3g m/s, node drift %.3g m (bound %.3g), last step %.3g s, %ld steps\n",
            creep, rec.drift[20], bound, rep.h_last, rep.steps);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* Above the threshold the rod slides with the kinetic coefficient: on a slope with tan α =
 * 1.5 μ_s its centre of mass accelerates at g (sin α − μ_k cos α); pulled along its axis on a
 * flat plane by F = 1.5 μ_s m g at its end, at (F − μ_k m g)/m (after the start, every node slides
 * with the same acceleration: the friction is μ_k times the weight). From the centre of mass at
 * t = 1, 2, 3 s: a = (x₃ − 2x₂ + x₁)/Δt². */
static void test_dynamic_slide(void)
{
    const double mu = 0.5, muk = 0.4;
    for (int pull = 0; pull < 2; ++pull) {
        const double al = pull ? 0.0 : atan(1.5 * mu), M = RHO_A * 1.0, F = 1.5 * mu * M * G;
        cr_rod_def d = rod_on_plane(20, mu);
        loads[0] = cr_load_default_def();
        loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(G * sin(al), 0, -G * cos(al));
        loads[1] = cr_load_default_def();
        loads[1].type = CR_LOAD_FORCE, loads[1].node = -1, loads[1].value = cr_v3(F, 0, 0);
        d.loads = loads, d.load_count = pull ? 2 : 1;
        cr_model *m = cr_model_create(&d, NULL);
        cr_state *s = cr_state_create(m);
        cm_record rec;
        cr_dynamic_report rep;
        CHECK(run_dynamic(m, s, 3.0, &rec, &rep) == CR_OK);
        const double a = (rec.x[6] - 2 * rec.x[4] + rec.x[2]) / 1.0;
        const double a_ref = pull ? (F - muk * M * G) / M : G * (sin(al) - muk * cos(al));
        CHECK_NEAR(a / a_ref, 1.0, 1e-3);
        fprintf(stderr, "dynamic slide (%s): a = %.6g m/s^2, reference %.6g\n", pull ? "end pull" : "slope", a, a_ref);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
}

typedef struct dyn_fd {
    const cr_model *m;
    double t; /* the time the residual is at (a driven obstacle's pose) */
} dyn_fd;

static void dynamic_residual(void *ctx, const double *y, double *F, cr_blocktri *J)
{
    const dyn_fd *c = ctx;
    double scale[4] = {1, 1, 1, 1};
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = c->t, .from = NULL, .from_blend = 1.0};
    cr_mixed_dynamic_residual(c->m, &at, scale, y, F, J);
}

/* The dynamic residual's Jacobian with contact (sticking pairs and pairs sliding at μ_k) against
 * central differences. */
/* turning: the cylinder turning about its axis at 2 rad/s, seen at t = 0.01 s, with the normal
 * dashpot (its relative velocity depends on r through ω × (r − c): the −c_d (ω × n) term) */
static void dynamic_jacobian_fd(int turning)
{
    cr_rod_def d = rod_on_plane(10, 0.5);
    obst[1] = obstacle(CR_OBSTACLE_CYLINDER);
    obst[1].center = cr_v3(0.5, 0, -0.2), obst[1].radius = 0.2, obst[1].mu_static = 0.4, obst[1].mu_kinetic = 0.3;
    obst[1].axes = cr_m3_columns(cr_v3(1, 0, 0), cr_v3(0, 0, -1), cr_v3(0, 1, 0));
    if (turning == 1) obst[1].angular_velocity = cr_v3(0, 2.0, 0);
    /* driven: a table of poses turning it about changing axes (φ(t) and φ̇ not parallel, so
     * Rᵀω ≠ ω) and moving it a little */
    static const cr_bc_motion_point table[3] = {{0.0, {0.5, 0, -0.2}, {0, 0, 0}},
                                                {0.01, {0.5, 0.001, -0.2}, {0.05, 0.3, 0}},
                                                {0.02, {0.5, 0.002, -0.2}, {0.05, 0.3, 0.2}}};
    if (turning == 2) obst[1].motion = table, obst[1].motion_count = 3;
    d.obstacle_count = 2, d.contact.stiffness = 50.0;
    loads[0] = cr_load_default_def();
    loads[0].type = CR_LOAD_GRAVITY, loads[0].value = cr_v3(0, 0, -G);
    d.loads = loads, d.load_count = 1;
    cr_model *m = cr_model_create(&d, NULL);
    const int B = CR_DYN_BLOCK, N = m->nodes * B;
    double *y = calloc((size_t)N, sizeof *y);
    srand(5);
    for (int i = 0; i < m->nodes; ++i) {
        cr_v3_store(cr_v3_add(m->ref_r[i], cr_v3(0.003 * urand(), 0.003 * urand(), -0.002 + 0.003 * urand())),
                    y + (size_t)i * B);
        cr_q_store(cr_q_normalize(cr_q_add(m->ref_p[i], cr_q(0.05 * urand(), 0.05 * urand(), 0.05 * urand(), 0))),
                   y + (size_t)i * B + 3);
        for (int k = CR_DYN_V; k < B; ++k) y[(size_t)i * B + k] = 0.01 * urand();
    }
    cr_contact *c = m->contact;
    c->dynamic = 1;
    c->quat_offset = 3; /* contact.rolling: friction at the contact point */
    if (turning) {
        cr_contact_set_time(c, turning == 2 ? 0.013 : 0.01);
        if (!c->damping) c->damping = calloc((size_t)m->nodes, sizeof *c->damping);
        for (int i = 0; c->damping && i < m->nodes; ++i) c->damping[i] = 0.05;
    }
    for (int i = 0; i < m->nodes; ++i)
        for (int k = 0; k < 2; ++k) {
            cr_contact_pair *pr = &c->pair[i * 2 + k];
            pr->anchored = 1, pr->sliding = (i + k) % 2;
            pr->anchor = cr_v3_add(cr_v3_load(y + (size_t)i * B), cr_v3(0.001 * urand(), 0.001 * urand(), 0));
            pr->offset = cr_v3(0.002 * urand(), 0.002 * urand(), -0.01);
            pr->body = cr_v3_add(cr_m3_tmulv(cr_q_exp(cr_q_load(y + (size_t)i * B + 3)), pr->offset),
                                 cr_v3(0.0005 * urand(), 0.0005 * urand(), 0.0005 * urand()));
        }
    cr_contact_totals t;
    cr_contact_totals_at(c, y, B, &t);
    CHECK(t.active > 5 && t.slipping > 0 && t.slipping < t.active);
    if (!(t.active > 5 && t.slipping > 0 && t.slipping < t.active))
        fprintf(stderr, "dynamic Jacobian case: %d active, %d sliding\n", t.active, t.slipping);
    dyn_fd ctx = {m, turning == 2 ? 0.013 : 0.0};
    double e = fd_jacobian_error(m->nodes, B, dynamic_residual, &ctx, y);
    CHECK(e < 1e-6);
    if (!(e < 1e-6))
        fprintf(stderr, "dynamic Jacobian with contact%s vs differences: %.3g\n",
                turning == 2 ? " (driven)"
                : turning    ? " (turning)"
                             : "",
                e);
    free(y);
    cr_model_destroy(m);
}

static void test_dynamic_jacobian_fd(void) { dynamic_jacobian_fd(0); }
static void test_dynamic_jacobian_turning_fd(void) { dynamic_jacobian_fd(1); }
static void test_dynamic_jacobian_driven_fd(void) { dynamic_jacobian_fd(2); }

/* Driven obstacles' poses (contact/motion.h) against closed forms: a table of two rows is the
 * Hermite cubic at rest at both ends, x0 + Δ (3s² − 2s³); a rotation table linear in t (rows far
 * beyond the times seen: the spline's end effect decays by 2 − √3 per row) and a rotation vector
 * under a ramp are the constant angular velocity's pose, Exp(ω t), to round-off; ω of a table is
 * J_l(φ) φ̇, checked against the rotation's central difference. */
static void test_driven_pose(void)
{
    cr_obstacle_def o = obstacle(CR_OBSTACLE_SPHERE), q = o;
    const cr_bc_motion_point two[2] = {{0.5, {1, 2, 3}, {0, 0, 0}}, {1.5, {1.4, 1.8, 3.1}, {0, 0, 0}}};
    o.motion = two, o.motion_count = 2;
    cr_obstacle_path p, pw, pt, pr;
    CHECK(cr_obstacle_path_init(&p, &o, 0, NULL) == CR_OK);
    double worst = 0;
    for (int k = 0; k <= 20; ++k) {
        const double t = 0.3 + 0.07 * k, s = fmin(1.0, fmax(0.0, t - 0.5)), h = 3 * s * s - 2 * s * s * s;
        const double dh = t > 0.5 && t < 1.5 ? 6 * s - 6 * s * s : 0;
        cr_obstacle_pose ps;
        cr_obstacle_path_at(&p, t, &ps);
        const cr_vec3 x = cr_v3_add(cr_v3(1, 2, 3), cr_v3_scale(cr_v3(0.4, -0.2, 0.1), h));
        worst = fmax(worst, cr_v3_norm(cr_v3_sub(cr_v3_add(ps.shift, o.center), x)));
        worst = fmax(worst, cr_v3_norm(cr_v3_sub(ps.v, cr_v3_scale(cr_v3(0.4, -0.2, 0.1), dh))));
    }
    CHECK(worst < 1e-14);
    if (!(worst < 1e-14)) fprintf(stderr, "two-row table vs the Hermite cubic: %.3g\n", worst);
    cr_obstacle_path_free(&p);
    /* the same turn three ways */
    const cr_vec3 w = cr_v3(0.3, -0.5, 0.8);
    q.angular_velocity = w;
    CHECK(cr_obstacle_path_init(&pw, &q, 0, NULL) == CR_OK);
    cr_bc_motion_point rows[81];
    for (int j = 0; j < 81; ++j) rows[j] = (cr_bc_motion_point){-4 + 0.1 * j, o.center, cr_v3_scale(w, -4 + 0.1 * j)};
    cr_obstacle_def ot = obstacle(CR_OBSTACLE_SPHERE), orr = ot;
    ot.motion = rows, ot.motion_count = 81;
    const cr_time_function ramp = {.type = CR_TIME_RAMP, .t0 = 0, .t1 = 3};
    orr.time = &ramp, orr.rotation = cr_v3_scale(w, 3);
    CHECK(cr_obstacle_path_init(&pt, &ot, 0, NULL) == CR_OK);
    CHECK(cr_obstacle_path_init(&pr, &orr, 0, NULL) == CR_OK);
    double wt = 0, wr = 0, wd = 0;
    for (int k = 0; k <= 10; ++k) {
        const double t = 0.1 * k;
        cr_obstacle_pose a, b, c, bp, bm;
        cr_obstacle_path_at(&pw, t, &a);
        cr_obstacle_path_at(&pt, t, &b);
        cr_obstacle_path_at(&pr, t, &c);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                wt = fmax(wt, fabs(a.R.m[i][j] - b.R.m[i][j])), wr = fmax(wr, fabs(a.R.m[i][j] - c.R.m[i][j]));
        wt = fmax(wt, fmax(cr_v3_norm(cr_v3_sub(a.w, b.w)), cr_v3_norm(b.shift) + cr_v3_norm(b.v)));
        wr = fmax(wr, cr_v3_norm(cr_v3_sub(a.w, c.w)));
        /* ω against the rotation's difference: [ω×] = Ṙ Rᵀ */
        const double h = 1e-6;
        cr_obstacle_path_at(&pt, t + h, &bp);
        cr_obstacle_path_at(&pt, t - h, &bm);
        cr_mat3 W = cr_m3_zero();
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                for (int l = 0; l < 3; ++l) W.m[i][j] += (bp.R.m[i][l] - bm.R.m[i][l]) / (2 * h) * b.R.m[j][l];
        wd = fmax(wd, cr_v3_norm(cr_v3_sub(cr_v3(W.m[2][1], W.m[0][2], W.m[1][0]), b.w)));
    }
    CHECK(wt < 1e-12 && wr < 1e-14 && wd < 1e-8);
    if (!(wt < 1e-12 && wr < 1e-14 && wd < 1e-8))
        fprintf(stderr, "turn: table vs angular_velocity %.3g, ramp %.3g, table's ω vs differences %.3g\n", wt, wr, wd);
    cr_obstacle_path_free(&pw), cr_obstacle_path_free(&pt), cr_obstacle_path_free(&pr);
    /* bad tables are refused, naming the row */
    cr_error err;
    cr_bc_motion_point bad[3] = {{0, {0, 0, 0}, {0, 0, 0}}, {1, {0, 0, 0}, {0, 0, 0}}, {1, {0, 0, 0}, {0, 0, 0}}};
    ot.motion = bad, ot.motion_count = 3;
    CHECK(cr_obstacle_path_init(&pt, &ot, 4, &err) == CR_BAD_INPUT && strstr(err.message, "obstacles.4.motion.2.0"));
    bad[2].t = 2, bad[1].rotation.y = NAN;
    CHECK(cr_obstacle_path_init(&pt, &ot, 4, &err) == CR_BAD_INPUT && strstr(err.message, "obstacles.4.motion.1.5"));
}

CHECK_MAIN(CASE(test_geometry_fd), CASE(test_plane_lean_path), CASE(test_force_jacobian_fd),
           CASE(test_force_jacobian_turning_fd), CASE(test_wrench_jacobian_fd), CASE(test_wrench_jacobian_turning_fd),
           CASE(test_residual_jacobian_fd), CASE(test_rod_on_plane), CASE(test_slope), CASE(test_end_pull),
           CASE(test_capstan), CASE(test_cantilever_on_cylinder), CASE(test_dynamic_jacobian_fd),
           CASE(test_dynamic_jacobian_turning_fd), CASE(test_dynamic_stick), CASE(test_dynamic_slide),
           CASE(test_dynamic_jacobian_driven_fd), CASE(test_driven_pose))
