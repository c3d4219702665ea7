#define _POSIX_C_SOURCE 200809L
/* Contact of the port-Hamiltonian rod with curved and bounded obstacles (docs/port-hamiltonian.md
 * "Contact"): spheres, cylinders, capsules, boxes, finite planes, translating obstacles.
 * References:
 *  - the discrete gradient's defining property grad V(y0, y1) . (y1 - y0) = V(y1) - V(y0) at large
 *    random steps on every shape (round-off; the midpoint gradient misses it by the curvature's
 *    third-order term), and its Jacobian against central differences;
 *  - conservation: a free rod bouncing on a sphere and across a capsule, E = H - W at its start value
 *    and every step's balance at Newton's tolerance; with friction E never rises and E + D stays;
 *  - a translating obstacle: H - W (W including the obstacle's work) stays;
 *  - statics: a cantilever pressed onto a cylinder by a tip load lies as the mixed rod does (same
 *    nodes), its tip deflection and contact force within the penalty's consistency N/k_c. */
#include "check.h"
#include "contact/contact.h"
#include "cosserat/cosserat.h"
#include "ph/ph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;

static cr_obstacle_def obstacle(cr_obstacle_type type, cr_vec3 center, cr_vec3 axis, double radius, double length)
{
    cr_obstacle_def o;
    memset(&o, 0, sizeof o);
    o.type = type;
    o.center = center;
    cr_vec3 a = cr_v3_normalize(axis), e = fabs(a.x) < 0.9 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
    cr_vec3 ex = cr_v3_normalize(cr_v3_sub(e, cr_v3_scale(a, cr_v3_dot(e, a))));
    o.axes = cr_m3_columns(ex, cr_v3_cross(a, ex), a);
    o.radius = radius;
    o.length = length;
    o.half_extents = cr_v3(INFINITY, INFINITY, INFINITY);
    return o;
}

/* A light stiff free rod as tests/test_ph_contact.c's drop_rod, L = 1 m, n_e = 4 (9 nodes), along
 * `dir` from x0, contact radius a = 0.01 m, node I's spring k_c w_I (the model's Simpson weights). */
static cr_ph *rod(cr_vec3 x0, cr_vec3 dir, double kc, int count, const cr_obstacle_def *obs)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = 4, p.length = 1, p.rhoA = 0.1, p.M11 = p.M22 = 1e-6;
    const double k[6] = {1e5, 1e5, 1e5, 10, 10, 10};
    memcpy(p.stiffness, k, sizeof k);
    p.newton_atol = 1e-12;
    int nn = 2 * p.elements + 1;
    cr_vec3 x[9], d3 = cr_v3_normalize(dir), e = fabs(d3.z) < 0.9 ? cr_v3(0, 0, 1) : cr_v3(1, 0, 0);
    cr_vec3 d2 = cr_v3_normalize(cr_v3_cross(e, d3));
    cr_mat3 R[9];
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3_madd(x0, p.length * I / (nn - 1), d3);
        R[I] = cr_m3_columns(cr_v3_cross(d2, d3), d2, d3);
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(&p, x, R, &err);
    if (!s) {
        fprintf(stderr, "create: %s\n", err.message);
        return NULL;
    }
    double a[9], kk[9];
    for (int I = 0; I < nn; ++I)
        a[I] = 0.01, kk[I] = kc * (I % 2 ? 4.0 / 3 : I == 0 || I == nn - 1 ? 1.0 / 3 : 2.0 / 3);
    if (cr_ph_set_obstacles(s, count, obs, a, kk, &err) != CR_OK) {
        fprintf(stderr, "contact: %s\n", err.message);
        cr_ph_destroy(s);
        return NULL;
    }
    return s;
}

static double urand(unsigned *state) /* in [-1, 1) */
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* the shapes of the tests below, each about the origin, of size ~0.1 m */
static int shapes(cr_obstacle_def *o)
{
    int n = 0;
    o[n++] = obstacle(CR_OBSTACLE_SPHERE, cr_v3(0, 0, 0), cr_v3(0, 0, 1), 0.1, 0);
    o[n++] = obstacle(CR_OBSTACLE_CYLINDER, cr_v3(0, 0, 0), cr_v3(0.3, 1, 0.2), 0.1, INFINITY);
    o[n++] = obstacle(CR_OBSTACLE_CYLINDER, cr_v3(0, 0, 0), cr_v3(0, 0.2, 1), 0.1, 0.2); /* capped */
    o[n++] = obstacle(CR_OBSTACLE_CAPSULE, cr_v3(0, 0, 0), cr_v3(1, 0.1, 0), 0.08, 0.2);
    o[n] = obstacle(CR_OBSTACLE_BOX, cr_v3(0, 0, 0), cr_v3(0.1, 0.2, 1), 0, 0);
    o[n++].half_extents = cr_v3(0.1, 0.07, 0.05);
    o[n] = obstacle(CR_OBSTACLE_PLANE, cr_v3(0, 0, 0), cr_v3(0.1, 0, 1), 0, 0); /* finite */
    o[n++].half_extents = cr_v3(0.1, 0.1, INFINITY);
    return n;
}
static const char *const shape_name[] = {"sphere", "cylinder", "capped cylinder", "capsule", "box", "finite plane"};

/* grad V(y0, y1) . (y1 - y0) = V(y1) - V(y0): steps of up to 0.06 m (0.6 of the radius) from points near
 * each shape's surface, node I = 1 of a rod whose other nodes are far away. The midpoint gradient
 * grad V(m) misses it by the curvature's third-order term (measured ~1e-3 of |Delta V|); the bound is
 * round-off's, eps times the energies and forces involved. */
static void ph_obstacles_discrete_gradient(void)
{
    cr_obstacle_def o[8];
    int n = shapes(o);
    for (int j = 0; j < n; ++j) {
        cr_ph *s = rod(cr_v3(5, 5, 5), cr_v3(1, 0, 0), 1e4, 1, o + j);
        if (!s) return;
        unsigned seed = 7 + j;
        double worst = 0, mid = 0, scale = 0;
        int tested = 0;
        for (int k = 0; k < 400; ++k) {
            cr_vec3 y0 = cr_v3(0.13 * urand(&seed), 0.13 * urand(&seed), 0.13 * urand(&seed));
            cr_vec3 y1 = cr_v3_add(y0, cr_v3(0.06 * urand(&seed), 0.06 * urand(&seed), 0.06 * urand(&seed)));
            cr_v3_store(y0, s->q + 12), cr_v3_store(y1, s->q1 + 12);
            s->h = 1e-3;
            double dg[12], Kc[144], g0, g1, gm, nm[3];
            if (!ph_contact_force(s, 1, 1, dg, Kc, NULL, NULL, NULL)) continue;
            int ok0 = ph_contact_gap(s, 0, y0, s->ca[1], &g0, NULL, NULL),
                ok1 = ph_contact_gap(s, 0, y1, s->ca[1], &g1, NULL, NULL);
            double V0 = ok0 && g0 < 0 ? 0.5 * s->ck[1] * g0 * g0 : 0, V1 = ok1 && g1 < 0 ? 0.5 * s->ck[1] * g1 * g1 : 0;
            cr_vec3 d = cr_v3_sub(y1, y0);
            double work = dg[0] * d.x + dg[1] * d.y + dg[2] * d.z;
            worst = fmax(worst, fabs(work - (V1 - V0)));
            scale = fmax(scale, fmax(V0, V1));
            /* the midpoint gradient k min(0, g(m)) n(m), where both ends are inside */
            if (ok0 && ok1 && g0 < 0 && g1 < 0 &&
                ph_contact_gap(s, 0, cr_v3_scale(cr_v3_add(y0, y1), 0.5), s->ca[1], &gm, nm, NULL) && gm < 0)
                mid = fmax(mid, fabs(s->ck[1] * gm * (nm[0] * d.x + nm[1] * d.y + nm[2] * d.z) - (V1 - V0)));
            ++tested;
        }
        printf("  %-16s %3d steps touching: max |grad V . d - Delta V| = %.2g J (midpoint gradient: %.2g J; "
               "largest V %.3g J)\n",
               shape_name[j], tested, worst, mid, scale);
        CHECK(tested > 50);
        CHECK(worst < 1e-13 * scale);
        if (j < 4) CHECK(mid > 1e-6 * scale); /* curved: the midpoint gradient is not exact (the test can fail) */
        cr_ph_destroy(s);
    }
}

/* The residual's Jacobian with contact against central differences, on every shape: nodes inside at
 * both ends, entering and leaving, with and without friction (on and beyond the ramp), and the static
 * Jacobian; fixed and turning (an angular velocity about every axis, at t = 0.7 s: the shape turned
 * by 0.45 rad, and by a further 4.5e-4 rad over the step). */
static void ph_obstacles_jacobian(void)
{
    cr_obstacle_def o[8];
    int n = shapes(o);
    const double top[6] = {0.1, 0.1, 0.1, 0.08, 0.05, 0}; /* about where each shape's top is over x ~ 0 */
    for (int turn = 0; turn < 2; ++turn)
        for (int j = 0; j < n; ++j)
            for (int mode = 0; mode < 3; ++mode) { /* dynamic frictionless, dynamic with friction, static */
                o[j].angular_velocity = turn ? cr_v3(0.3, -0.2, 0.5) : cr_v3(0, 0, 0);
                /* the rod crosses the shape along x, a little below its top (the nodes at x ~ 0 inside) */
                o[j].mu_static = mode == 1 ? 0.6 : 0, o[j].mu_kinetic = mode == 1 ? 0.4 : 0;
                cr_ph *s = rod(cr_v3(-0.5, 0.01, 0.05), cr_v3(1, 0, 0), 5000, 1, o + j);
                if (s) s->friction_centre = 0; /* at the contact points: the directors' columns too */
                if (!s) return;
                if (turn) s->t = 0.7;
                cr_error err = {0};
                const double eps = 1e-2, h = 1e-3, ms = 0.6, mk = 0.4;
                if (mode == 1) CHECK(cr_ph_set_friction(s, &ms, &mk, eps, &err) == CR_OK);
                int nn = cr_ph_node_count(s), dyn = mode < 2;
                unsigned seed = 11 + j;
                for (int I = 0; I < nn; ++I) { /* q_n: moved about the shape's top */
                    s->q[12 * I] = -0.12 + 0.03 * I;
                    s->q[12 * I + 1] = 0.02 * urand(&seed);
                    s->q[12 * I + 2] = top[j] + 0.005 + 0.02 * urand(&seed);
                    s->vmid[12 * I] = I % 2 ? 3 * eps : 0.2 * eps;
                }
                ph_state_changed(s); /* (t and q_n set) */
                ph_begin(s, dyn ? PH_DYNAMIC : PH_STATIC, h);
                for (int I = 0; I < nn; ++I) {
                    int oo = s->node_off[I];
                    if (oo < 0) continue;
                    double f = I % 4 < 2 ? 0.3 + 0.1 * I : 2.0 + I; /* on the ramp, beyond it */
                    s->X[oo] = s->q[12 * I] + f * eps * h * (I % 2 ? 1 : -1);
                    s->X[oo + 1] = s->q[12 * I + 1] + 0.5 * f * eps * h;
                    s->X[oo + 2] = s->q[12 * I + 2] + 0.02 * urand(&seed);
                    /* the finite plane: the end nodes, off its rectangle at t_n, step onto it (Gonzalez on V) */
                    if (j == 5 && (I == 0 || I == nn - 1)) s->X[oo] += I ? -0.04 : 0.04, s->X[oo + 2] = -0.005;
                }
                cr_ph_loads L = {0};
                int nx = s->nx, md = dyn ? PH_DYNAMIC : PH_STATIC;
                double *X = malloc(sizeof(double) * nx), *rp = malloc(sizeof(double) * nx),
                       *rm = malloc(sizeof(double) * nx), *J = malloc(sizeof(double) * (size_t)nx * nx);
                memcpy(X, s->X, sizeof(double) * nx);
                ph_assemble(s, md, &L, X, s->r, 1);
                ph_jacobian_dense(s, J);
                /* the node's 3 x 3 block alone: Kc against central differences of dg in phi_{n+1} */
                int touching = 0;
                double blk = 0, blkmax = 0;
                for (int I = 0; I < nn; ++I) {
                    double dg[12], Kc[144], dp[12], dm[12], Kt[144];
                    if (!ph_contact_force(s, I, dyn, dg, Kc, NULL, NULL, NULL)) continue;
                    ++touching;
                    /* the node's 12 x 12 block: the friction at the contact point couples the directors */
                    for (int e = 0; e < 12; ++e) {
                        double *x = s->q1 + 12 * I + e, x0 = *x, hx = 1e-8;
                        *x = x0 + hx;
                        ph_contact_force(s, I, dyn, dp, Kt, NULL, NULL, NULL);
                        *x = x0 - hx;
                        ph_contact_force(s, I, dyn, dm, Kt, NULL, NULL, NULL);
                        *x = x0;
                        for (int c = 0; c < 12; ++c) {
                            blk = fmax(blk, fabs(Kc[12 * c + e] - (dp[c] - dm[c]) / (2 * hx)));
                            blkmax = fmax(blkmax, fabs(Kc[12 * c + e]));
                        }
                    }
                }
                double maxJ = 0, maxd = 0;
                for (int c = 0; c < nx; ++c) {
                    double x = X[c], dx = 1e-8;
                    X[c] = x + dx;
                    ph_assemble(s, md, &L, X, rp, 0);
                    X[c] = x - dx;
                    ph_assemble(s, md, &L, X, rm, 0);
                    X[c] = x;
                    for (int i = 0; i < nx; ++i) {
                        double fd = (rp[i] - rm[i]) / (2 * dx), a = J[(size_t)i * nx + c];
                        maxJ = fmax(maxJ, fabs(a)), maxd = fmax(maxd, fabs(a - fd));
                    }
                }
                printf("  %-16s %-8s %-22s %d nodes touching: contact block max |K - K_fd| / max |K| = %.2g, whole "
                       "residual's max |J - J_fd| / max |J| = %.2g\n",
                       shape_name[j], turn ? "turning" : "fixed",
                       mode == 0   ? "dynamic"
                       : mode == 1 ? "dynamic with friction"
                                   : "static",
                       touching, blk / blkmax, maxd / maxJ);
                CHECK(touching >= 2);
                CHECK(blk < 1e-6 * blkmax);
                CHECK(maxd / maxJ < 1e-6);
                free(X), free(rp), free(rm), free(J);
                cr_ph_destroy(s);
            }
}

/* A free rod (tilted by 0.02 rad, thrown sideways at v0) dropped from z0 = 5 mm onto an obstacle under
 * gravity for t_end: returns the largest |E - E0| (with friction |E + D - E0|) and the largest step
 * balance, both / (m g z0), the largest one-step rise of E = H - W, the lift-offs, the deepest gap. */
typedef struct drop_result {
    double drift, step, rise, depth, dissipated, zmid; /* zmid: the middle node's final height */
    int liftoffs, slid;
} drop_result;

static drop_result drop(int count, const cr_obstacle_def *ob, cr_vec3 x0, cr_vec3 dir, cr_vec3 v0, double mu,
                        double t_end)
{
    drop_result out = {NAN, NAN, NAN, 0, 0, NAN, 0, 0};
    const double z0 = 0.005, h = 2.5e-4, mgz = 0.1 * G * z0;
    cr_ph *s = rod(x0, dir, 5000, count, ob);
    if (!s) return out;
    cr_error err = {0};
    if (mu > 0) {
        double ms[2] = {mu, mu}, mk[2] = {0.6 * mu, 0.6 * mu};
        if (cr_ph_set_friction(s, ms, mk, 1e-5, &err) != CR_OK) return out;
    }
    int nn = cr_ph_node_count(s);
    for (int I = 0; I < nn; ++I) cr_v3_store(v0, s->v + 12 * I), cr_v3_store(v0, s->vmid + 12 * I);
    cr_ph_loads L = {0};
    L.force_density = cr_v3(0, 0, -0.1 * G);
    cr_ph_diag d;
    cr_ph_diagnostics(s, &d);
    double E0 = d.total - d.work_external, Eprev = E0, drift = 0, bal = 0, rise = -INFINITY, depth = 0;
    int was = 0, lifts = 0, slid = 0, steps = (int)lround(t_end / h);
    for (int k = 0; k < steps; ++k) {
        if (cr_ph_step(s, h, &L, NULL, &err) != CR_OK) {
            fprintf(stderr, "step %d: %s\n", k, err.message);
            cr_ph_destroy(s);
            return out;
        }
        cr_ph_diagnostics(s, &d);
        double E = d.total - d.work_external;
        rise = fmax(rise, E - Eprev), Eprev = E;
        bal = fmax(bal, fabs(d.energy_balance));
        drift = fmax(drift, fabs(E + d.dissipated - E0));
        int touch = 0;
        for (int I = 0; I < nn; ++I) {
            double g;
            int c = cr_ph_contact_node(s, I, NULL, NULL, &g);
            touch |= c > 0, slid |= c == 2;
            depth = fmax(depth, -g);
        }
        if (was && !touch) ++lifts;
        was = touch;
    }
    out.drift = drift / mgz, out.step = bal / mgz, out.rise = rise / mgz, out.depth = depth;
    out.dissipated = d.dissipated / mgz, out.liftoffs = lifts, out.slid = slid, out.zmid = s->q[12 * (nn / 2) + 2];
    cr_ph_destroy(s);
    return out;
}

/* Frictionless bounces of the rod (tilted by 0.02 rad in the x-z plane, thrown along itself at 0.05 m/s,
 * so that its nodes slide over the curved surfaces) on two spheres (R = 0.3 m, tops at z = 0 under
 * x = 0.2 and 0.8 m) and along a capsule (R = 0.1 m, its axis along the rod, 0.6 m long: the rod's ends
 * over its hemispherical caps): the plane's bounds (tests/test_ph_contact.c: Newton's increment test on
 * the steps whose contact set changes in the last iterations), every step's balance within 1e-9 m g z0,
 * and E = H - W within 2e-9 m g z0 of its start over 3 s (measured 4e-11; Gonzalez's correction of the
 * gap's gradient left out, G = n(m): 1e-8), the rod still held (its middle above z = -0.05). */
static const double TILT = 0.02;
static void two_spheres(cr_obstacle_def o[2])
{
    o[0] = obstacle(CR_OBSTACLE_SPHERE, cr_v3(0.2, 0, -0.3), cr_v3(0, 0, 1), 0.3, 0);
    o[1] = obstacle(CR_OBSTACLE_SPHERE, cr_v3(0.8, 0, -0.3), cr_v3(0, 0, 1), 0.3, 0);
}

static void ph_obstacles_bounce_conserves_energy(void)
{
    cr_vec3 dir = cr_v3(cos(TILT), 0, sin(TILT)), x0 = cr_v3(0, 0, 0.015);
    cr_obstacle_def o[2];
    two_spheres(o);
    cr_obstacle_def cap = obstacle(CR_OBSTACLE_CAPSULE, cr_v3(0.5, 0, -0.1), cr_v3(1, 0, 0), 0.1, 0.6);
    for (int k = 0; k < 2; ++k) {
        drop_result r =
            k ? drop(1, &cap, x0, dir, cr_v3(0.05, 0, 0), 0, 3.0) : drop(2, o, x0, dir, cr_v3(0.05, 0, 0), 0, 3.0);
        printf("  %s, 3 s, h = 2.5e-4 s: %d lift-offs, deepest %.3g m, max |E - E0| = %.3g m g z0, largest step "
               "balance %.3g m g z0, middle at z = %.3g m\n",
               k ? "capsule R 0.1" : "two spheres R 0.3", r.liftoffs, r.depth, r.drift, r.step, r.zmid);
        CHECK(r.liftoffs >= 20);
        CHECK(r.drift < 2e-9);
        CHECK(r.step < 1e-9);
        CHECK(r.depth > 0 && r.depth < 0.01);
        CHECK(r.zmid > -0.05);
    }
}

/* The same on rough obstacles (mu_s 0.5, mu_k 0.3), the rod thrown at 0.3 m/s: along itself over the two
 * spheres' curved tops, and along the axes of two cylinders (R = 0.2 m, axes along y under x = 0.2 and
 * 0.8 m) that it lies across: friction only takes energy, E never rises (beyond round-off), E + D stays
 * at E0 within the frictionless bound, and it took the throw's kinetic energy. */
static void ph_obstacles_friction_dissipates(void)
{
    cr_vec3 dir = cr_v3(cos(TILT), 0, sin(TILT)), x0 = cr_v3(0, 0, 0.015);
    cr_obstacle_def o[2];
    two_spheres(o);
    cr_obstacle_def cyl[2] = {obstacle(CR_OBSTACLE_CYLINDER, cr_v3(0.2, 0, -0.2), cr_v3(0, 1, 0), 0.2, INFINITY),
                              obstacle(CR_OBSTACLE_CYLINDER, cr_v3(0.8, 0, -0.2), cr_v3(0, 1, 0), 0.2, INFINITY)};
    for (int k = 0; k < 2; ++k) {
        drop_result r =
            k ? drop(2, cyl, x0, dir, cr_v3(0, 0.3, 0), 0.5, 1.5) : drop(2, o, x0, dir, cr_v3(0.3, 0, 0), 0.5, 1.5);
        double throw_ke = 0.5 * 0.09 / (G * 0.005);
        printf("  %s, thrown at 0.3 m/s, 1.5 s: %d lift-offs, dissipated %.4g m g z0 (the throw: %.4g), largest step "
               "balance %.3g, |E + D - E0| <= %.3g, largest rise of E %.3g (m g z0), middle at z = %.3g m\n",
               k ? "two rough cylinders R 0.2" : "two rough spheres R 0.3", r.liftoffs, r.dissipated, throw_ke, r.step,
               r.drift, r.rise, r.zmid);
        CHECK(r.slid);
        CHECK(r.step < 1e-9);
        CHECK(r.drift < 1e-8);
        CHECK(r.rise < 1e-11);
        CHECK(r.dissipated > 0.5 * throw_ke);
        CHECK(r.zmid > -0.05);
    }
}

/* A translating obstacle: a sphere rising at 0.02 m/s into the rod lying above it (no gravity): the
 * balance H_{n+1} - H_n = W_n with W_n the obstacle's work on the rod holds every step, and the work is
 * what the rod took (the rod's final energy). */
static void ph_obstacles_moving(void)
{
    cr_obstacle_def o = obstacle(CR_OBSTACLE_SPHERE, cr_v3(0.5, 0, -0.5), cr_v3(0, 0, 1), 0.5, 0);
    o.velocity = cr_v3(0.01, 0, 0.2), o.acceleration = cr_v3(0, 0, -0.5);
    cr_ph *s = rod(cr_v3(0, 0, 0.012), cr_v3(1, 0, 0), 5000, 1, &o);
    if (!s) return;
    cr_ph_loads L = {0};
    cr_error err = {0};
    double bal = 0, h = 2.5e-4;
    cr_ph_diag d;
    for (int k = 0; k < 2000; ++k) {
        if (cr_ph_step(s, h, &L, NULL, &err) != CR_OK) {
            fprintf(stderr, "step %d: %s\n", k, err.message);
            CHECK(0);
            break;
        }
        cr_ph_diagnostics(s, &d);
        bal = fmax(bal, fabs(d.energy_balance));
    }
    cr_ph_diagnostics(s, &d);
    printf("  sphere rising into the rod, 0.5 s: obstacle's work %.4g J, H %.4g J, |H - H0 - W| %.3g J, largest step "
           "balance %.3g J\n",
           d.work_external, d.total, fabs(d.total - d.work_external), bal);
    CHECK(d.work_external > 1e-4);
    CHECK(fabs(d.total - d.work_external) < 1e-9 * d.work_external);
    CHECK(bal < 1e-10 * d.work_external);
    cr_ph_destroy(s);
}

/* A conveyor: the rod (m = 0.314 kg, 5 elements) laid on a rough belt (a plane moving at v = 0.2 m/s,
 * mu_s 0.5, mu_k 0.4) under gravity is dragged up to the belt's speed and carried: whatever the friction
 * law, the belt's work on it is F t v = m v^2 (the impulse F t = m v), half of which is its kinetic
 * energy, so friction dissipates exactly 1/2 m v^2 (less the creep's share, eps/v = 5e-5 of it); every
 * step's balance (the belt's work in W) within 1e-6 of that energy (Newton's increment test on the
 * friction's ramp: measured 3.6e-7 on one step, the others 1e-9). */
static void ph_obstacles_conveyor(void)
{
    cr_ph_params p = cr_ph_default_params();
    const double rhoA = 1000 * M_PI * 1e-4, EI = 1e7 * M_PI * 1e-8 / 4, v = 0.2, h = 5e-4;
    p.elements = 5, p.length = 1, p.rhoA = rhoA, p.M11 = p.M22 = 1000 * M_PI * 1e-8 / 4;
    const double k[6] = {1131, 1131, 1e7 * M_PI * 1e-4, EI, EI, 4e6 * M_PI * 1e-8 / 2};
    memcpy(p.stiffness, k, sizeof k);
    cr_vec3 x[11];
    cr_mat3 R[11];
    for (int I = 0; I < 11; ++I)
        x[I] = cr_v3(I / 10.0, 0, 0), R[I] = cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    cr_error err = {0};
    cr_ph *s = cr_ph_create(&p, x, R, &err);
    if (!s) return;
    cr_obstacle_def o = obstacle(CR_OBSTACLE_PLANE, cr_v3(0, 0, -0.01), cr_v3(0, 0, 1), 0, 0);
    o.velocity = cr_v3(v, 0, 0);
    double a[11], kk[11], kc = 12 * EI / 1e-3, ms = 0.5, mk = 0.4;
    for (int I = 0; I < 11; ++I) a[I] = 0.01, kk[I] = kc * (I % 2 ? 4.0 / 3 : I == 0 || I == 10 ? 1.0 / 3 : 2.0 / 3);
    CHECK(cr_ph_set_obstacles(s, 1, &o, a, kk, &err) == CR_OK);
    CHECK(cr_ph_set_friction(s, &ms, &mk, 1e-5, &err) == CR_OK);
    cr_ph_loads L = {0};
    L.force_density = cr_v3(0, 0, -rhoA * G);
    double bal = 0, E = 0.5 * rhoA * v * v;
    cr_ph_diag d;
    for (int n = 0; n < 400; ++n) {
        if (cr_ph_step(s, h, &L, NULL, &err) != CR_OK) {
            fprintf(stderr, "step %d: %s\n", n, err.message);
            CHECK(0);
            break;
        }
        cr_ph_diagnostics(s, &d);
        bal = fmax(bal, fabs(d.energy_balance));
    }
    cr_ph_diagnostics(s, &d);
    double vx = d.momentum.x / rhoA;
    printf("  conveyor at 0.2 m/s, 0.2 s: v_x %.9g m/s, dissipated / (1/2 m v^2) - 1 = %.3g, largest step balance "
           "%.3g of 1/2 m v^2\n",
           vx, d.dissipated / E - 1, bal / E);
    /* (friction at the centres, the default; at the contact points the belt's start rings the sections'
       turn about their stuck contact lines, undamped by the midpoint rule: v_x 0.19975 m/s and
       D / (1/2 m v^2) - 1 = -5.9e-4 measured) */
    CHECK(fabs(vx - v) < 1e-5);
    CHECK(fabs(d.dissipated / E - 1) < 1e-4);
    CHECK(bal < 1e-6 * E);
    cr_ph_destroy(s);
}

/* ---- scenario level ---- */
static cr_scenario *load(const char *json, cr_error *err)
{
    cr_scenario *sc = NULL;
    char *text = strdup(json);
    for (char *p = text; *p; ++p)
        if (*p == '\'') *p = '"';
    cr_status st = cr_scenario_load_string(text, NULL, 0, &sc, err);
    free(text);
    if (st != CR_OK) {
        fprintf(stderr, "load: %s\n", err->message);
        return NULL;
    }
    return sc;
}

/* Statics: a steel cantilever (L = 1 m, r = 1 cm, clamped at s = 0) pressed by a tip load of 300 N onto
 * a horizontal cylinder (R = 0.1 m, axis along y) 5 mm below it at x = 0.5 m. The port-Hamiltonian rod
 * with n elements has the nodes of the mixed rod with 2n, so both touch the cylinder at the same
 * node; the mixed rod's augmented Lagrangian leaves the node on the surface (within 1e-7 m), the
 * port-Hamiltonian penalty N/k_I inside it: the tip deflections differ by that penetration times the
 * lever (dw_tip/dw_c ~ 2.6 here) plus the discretizations' difference, and the contact forces by the
 * stiffness of the rod against that penetration. Returns the PH and mixed tip z, contact force, PH
 * penetration. */
static int cylinder_statics(const char *model, int elements, double *tip_z, double *force, double *depth,
                            int *penalty_warning)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{'model': {'type': '%s'}, 'rod': {'length': 1, 'elements': %d, 'material': {'E': 2e11, 'G': 8e10, "
             "'rho': 7800}, 'sections': [{'shape': 'circle', 'radius': 0.01}]}, 'boundary_conditions': [{'type': "
             "'clamp', 'node': 0}], 'obstacles': [{'type': 'cylinder', 'name': 'drum', 'center': [0.5, 0, -0.115], "
             "'radius': 0.1, 'axis': [0, 1, 0]}], 'contact': {'tolerance': 1e-7}, 'loads': [{'type': 'force', "
             "'node': -1, 'value': [0, 0, -300]}], 'stages': [{'type': 'static', 'load_steps': 10}]}",
             model, elements);
    cr_error err = {0};
    cr_scenario *sc = load(json, &err);
    if (!sc) return 0;
    cr_status st = cr_scenario_check(sc, &err);
    if (st != CR_OK) {
        fprintf(stderr, "check (%s): %s\n", model, err.message);
        cr_scenario_destroy(sc);
        return 0;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result r;
    memset(&r, 0, sizeof r);
    st = cr_scenario_run(sc, &o, &r, &err);
    cr_scenario_destroy(sc);
    if (st != CR_OK) {
        fprintf(stderr, "run (%s): %s\n", model, err.message);
        return 0;
    }
    const cr_sim *sim = cr_run_result_sim(&r);
    int nn = cr_sim_node_count(sim);
    cr_vec3 x = cr_sim_position(sim, nn - 1);
    *tip_z = x.z, *force = 0, *depth = 0, *penalty_warning = 0;
    /* the penalty's depth is above contact.tolerance (1e-7 m): the warning says what sets it */
    for (int k = 0; k < cr_run_result_warning_count(&r); ++k) {
        const char *key = NULL, *msg = NULL, *code = cr_run_result_warning(&r, k, &key, &msg);
        if (code && !strcmp(code, "contact_penetration") && msg)
            *penalty_warning |= strstr(msg, "penalty spring (depth N/k): raise contact.stiffness") ? 1 : 2;
    }
    for (int i = 0; i < nn; ++i) {
        cr_contact_sample c;
        if (cr_sim_contact(sim, i, &c) == 1 && c.state) *force += cr_v3_norm(c.force), *depth = fmax(*depth, -c.gap);
    }
    cr_run_result_free(&r);
    return 1;
}

static void ph_obstacles_cylinder_statics(void)
{
    double dz[3], df[3];
    for (int k = 0, n = 10; k < 3; ++k, n *= 2) {
        double zp, fp, dp, zm, fm, dm;
        int wp, wm;
        if (!cylinder_statics("port_hamiltonian", n, &zp, &fp, &dp, &wp) ||
            !cylinder_statics("mixed_discrete", 2 * n, &zm, &fm, &dm, &wm)) {
            CHECK(0);
            return;
        }
        dz[k] = zp - zm, df[k] = fp - fm;
        printf("  n = %d (mixed 2n): tip z %.9g / %.9g m (diff %.3g), contact force %.7g / %.7g N (diff %.3g), "
               "penetration %.3g / %.3g m\n",
               n, zp, zm, dz[k], fp, fm, df[k], dp, dm);
        CHECK(dp > 0 && dm < 1e-6);
        CHECK(wp == 1 && wm == 0); /* the penalty's depth warned about as such; the mixed rod's within tolerance */
        CHECK(fabs(dz[k]) < 1e-2 * fabs(zp) && fabs(df[k]) < 2e-3 * fm);
        CHECK(zp < -0.02 && fp > 500); /* it did press onto the cylinder (the free tip would be at -0.064 m) */
    }
    /* second order: each halving of the elements divides both differences by about 4 */
    printf("  difference ratios per halving: tip %.3g, %.3g; force %.3g, %.3g\n", dz[0] / dz[1], dz[1] / dz[2],
           df[0] / df[1], df[1] / df[2]);
    for (int k = 0; k < 2; ++k) {
        CHECK(dz[k] / dz[k + 1] > 3.5 && dz[k] / dz[k + 1] < 5);
        CHECK(df[k] / df[k + 1] > 3.5 && df[k] / df[k + 1] < 5);
    }
}

/* check takes every shape and moving obstacles, and still refuses a rod starting inside one */
static void ph_obstacles_check(void)
{
    static const struct {
        const char *obstacle, *needle;
    } cases[] = {
        {"'type': 'sphere', 'center': [0.5, 0, -1], 'radius': 0.9", NULL},
        {"'type': 'plane', 'point': [0, 0, -0.02], 'normal': [0, 0, 1], 'half_extents': [1, 1]", NULL},
        {"'type': 'plane', 'point': [0, 0, -0.02], 'normal': [0, 0, 1], 'velocity': [1, 0, 0]", NULL},
        {"'type': 'capsule', 'center': [0.5, 0, -0.2], 'radius': 0.1, 'axis': [0, 1, 0], 'length': 0.3", NULL},
        {"'type': 'box', 'center': [0.5, 0, -0.2], 'half_extents': [0.1, 0.2, 0.1]", NULL},
        {"'type': 'cylinder', 'name': 'drum', 'center': [0.5, 0, -0.1], 'radius': 0.1, 'axis': [0, 1, 0]",
         "obstacles.0: the rod starts inside obstacle \"drum\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{'model': {'type': 'port_hamiltonian'}, 'rod': {'length': 1, 'elements': 5, 'material': {'E': "
                 "1e7, 'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}]}, 'obstacles': "
                 "[{%s}], 'stages': [{'type': 'dynamic', 't_end': 0.01, 'output_dt': 0.01, 'time_step': 1e-4}]}",
                 cases[k].obstacle);
        cr_error err = {0};
        cr_scenario *sc = load(json, &err);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_status st = cr_scenario_check(sc, &err);
        if (cases[k].needle) {
            if (st != CR_BAD_INPUT || !strstr(err.message, cases[k].needle))
                fprintf(stderr, "  case %zu: \"%s\", expected \"%s\"\n", k, err.message, cases[k].needle);
            CHECK(st == CR_BAD_INPUT && strstr(err.message, cases[k].needle));
        } else {
            if (st != CR_OK) fprintf(stderr, "  case %zu: %s\n", k, err.message);
            CHECK(st == CR_OK);
        }
        cr_scenario_destroy(sc);
    }
}

/* Static friction (docs/port-hamiltonian.md "Friction"): the stick spring from each node's anchor,
 * t = P lambda_T - k P (y - X), at most mu_s N (N = -k g), and its exact Jacobian against central
 * differences on every shape, fixed and turning: nodes sticking (|t| < mu_s N) and slipping (beyond,
 * the force mu_s N t/|t| with the limit's own derivative), with a multiplier lambda_T of either size. */
static void ph_obstacles_static_friction_jacobian(void)
{
    cr_obstacle_def o[8];
    int n = shapes(o);
    const double top[6] = {0.1, 0.1, 0.1, 0.08, 0.05, 0};
    for (int turn = 0; turn < 2; ++turn)
        for (int j = 0; j < n; ++j) {
            o[j].angular_velocity = turn ? cr_v3(0.3, -0.2, 0.5) : cr_v3(0, 0, 0);
            cr_ph *s = rod(cr_v3(-0.5, 0.01, 0.05), cr_v3(1, 0, 0), 5000, 1, o + j);
            if (s) s->friction_centre = 0; /* at the contact points: the directors' columns too */
            if (!s) return;
            if (turn) s->t = 0.7;
            cr_error err = {0};
            const double ms = 0.6, mk = 0.4;
            CHECK(cr_ph_set_friction(s, &ms, &mk, 1e-5, &err) == CR_OK);
            int nn = cr_ph_node_count(s);
            unsigned seed = 23 + j;
            for (int I = 0; I < nn; ++I) {
                s->q[12 * I] = -0.12 + 0.03 * I;
                s->q[12 * I + 1] = 0.02 * urand(&seed);
                s->q[12 * I + 2] = top[j] - 0.004 + 0.004 * urand(&seed);
            }
            ph_state_changed(s); /* (t and q_n set) */
            ph_begin(s, PH_STATIC, 1e-3);
            s->ctol = 1e-9;
            int stick = 0, slip = 0;
            for (int I = 0; I < nn; ++I) {
                int oo = s->node_off[I];
                if (oo < 0) continue;
                const cr_vec3 x = cr_v3(s->X[oo], s->X[oo + 1], s->X[oo + 2]);
                double g;
                if (!ph_contact_gap(s, 0, ph_obstacle_local(s, 0, s->t, x), s->ca[I], &g, NULL, NULL) || !(g < 0))
                    continue;
                /* anchored off the node by a fraction of mu_s N / k (sticks) or several times it (slips) */
                const double r = (I % 3 == 0 ? 3.0 : 0.3) * ms * (-g);
                cr_contact_pair *pr = &s->cpair[I];
                pr->anchored = 1;
                /* the anchor by the contact point, whose coordinates c_k couple the directors */
                ph_contact_coeffs(s, I, 0, s->t, s->X + oo, s->cpc + 3 * I);
                pr->anchor = cr_v3_add(cr_v3_add(ph_obstacle_local(s, 0, s->t, x),
                                                 ph_contact_offset(s, 0, s->t, s->cpc + 3 * I, s->X + oo)),
                                       cr_v3(r * urand(&seed), r * urand(&seed), r * urand(&seed)));
                pr->lambda_t = cr_v3_scale(cr_v3(urand(&seed), urand(&seed), urand(&seed)), 0.1 * ms * s->ck[I] * (-g));
                I % 3 == 0 ? ++slip : ++stick;
            }
            cr_ph_loads L = {0};
            int nx = s->nx;
            double *X = malloc(sizeof(double) * nx), *rp = malloc(sizeof(double) * nx),
                   *rm = malloc(sizeof(double) * nx), *J = malloc(sizeof(double) * (size_t)nx * nx);
            memcpy(X, s->X, sizeof(double) * nx);
            ph_assemble(s, PH_STATIC, &L, X, s->r, 1);
            ph_jacobian_dense(s, J);
            double blk = 0, blkmax = 0, ft = 0;
            for (int I = 0; I < nn; ++I) {
                double dg[12], Kc[144], dp[12], dm[12], Kt[144], ff[3] = {0, 0, 0};
                if (!ph_contact_force(s, I, 0, dg, Kc, ff, NULL, NULL)) continue;
                ft = fmax(ft, sqrt(ff[0] * ff[0] + ff[1] * ff[1] + ff[2] * ff[2]));
                for (int e = 0; e < 12; ++e) { /* positions and directors (the anchor at the contact point) */
                    double *x = s->q1 + 12 * I + e, x0 = *x, hx = 1e-8;
                    *x = x0 + hx;
                    ph_contact_force(s, I, 0, dp, Kt, NULL, NULL, NULL);
                    *x = x0 - hx;
                    ph_contact_force(s, I, 0, dm, Kt, NULL, NULL, NULL);
                    *x = x0;
                    for (int c = 0; c < 12; ++c) {
                        blk = fmax(blk, fabs(Kc[12 * c + e] - (dp[c] - dm[c]) / (2 * hx)));
                        blkmax = fmax(blkmax, fabs(Kc[12 * c + e]));
                    }
                }
            }
            double maxJ = 0, maxd = 0;
            for (int c = 0; c < nx; ++c) {
                double x = X[c], dx = 1e-8;
                X[c] = x + dx;
                ph_assemble(s, PH_STATIC, &L, X, rp, 0);
                X[c] = x - dx;
                ph_assemble(s, PH_STATIC, &L, X, rm, 0);
                X[c] = x;
                for (int i = 0; i < nx; ++i) {
                    double fd = (rp[i] - rm[i]) / (2 * dx), a = J[(size_t)i * nx + c];
                    maxJ = fmax(maxJ, fabs(a)), maxd = fmax(maxd, fabs(a - fd));
                }
            }
            /* the pairs' own stick/slip at the iterate (the state moved there) */
            for (int I = 0; I < nn; ++I) memcpy(s->q + 12 * I, s->q1 + 12 * I, 3 * sizeof(double));
            ph_state_changed(s);
            int touching = 0, sliding = 0;
            double ratio = 0;
            ph_static_friction_state(s, 0, &touching, &sliding, &ratio);
            stick = touching - sliding, slip = sliding;
            printf("  %-16s %-8s static friction: %d nodes sticking, %d slipping (largest friction %.3g N): contact "
                   "block max |K - K_fd| / max |K| = %.2g, whole residual's %.2g\n",
                   shape_name[j], turn ? "turning" : "fixed", stick, slip, ft, blk / blkmax, maxd / maxJ);
            CHECK(stick >= 1 && slip >= 1 && ft > 0);
            CHECK(blk < 1e-6 * blkmax);
            CHECK(maxd / maxJ < 1e-6);
            free(X), free(rp), free(rm), free(J);
            cr_ph_destroy(s);
        }
}

CHECK_MAIN(CASE(ph_obstacles_discrete_gradient), CASE(ph_obstacles_jacobian),
           CASE(ph_obstacles_static_friction_jacobian), CASE(ph_obstacles_bounce_conserves_energy),
           CASE(ph_obstacles_friction_dissipates), CASE(ph_obstacles_moving), CASE(ph_obstacles_conveyor),
           CASE(ph_obstacles_cylinder_statics), CASE(ph_obstacles_check))
