#define _POSIX_C_SOURCE 200809L
/* Frictionless contact of the port-Hamiltonian rod with planes (docs/port-hamiltonian.md
 * "Contact"): the penalty potential V_c = sum_I 1/2 k_I min(0, g_I)^2 enters the midpoint rule
 * through its discrete gradient, so H + V_c - W is conserved to the Newton tolerance.
 * References:
 *  - conservation: a free rod dropped onto the plane z = 0 under gravity bounces ~100 times; the
 *    energy E = T + U + V_c - W_gravity stays at its start value (0) within 1e-8 m g z0 (the
 *    Newton tolerance, see below; a midpoint evaluation V'(g_mid) of the contact force breaks this by orders
 *    of magnitude: it is exact only while a node stays on one side of g = 0);
 *  - the Jacobian with contact (nodes entering, leaving and inside) against central differences;
 *  - the scenario: the energy columns (the contact springs' energy in energy_elastic) close; a rod
 *    resting at the depth where every node's spring holds its weight stays, its contact normal
 *    force the weight; check refuses a rod starting inside a plane, naming it (the other shapes:
 * tests/test_ph_obstacles.c). */
#include "check.h"
#include "cosserat/cosserat.h"
#include "ph/ph.h"
#include "scenario_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;

/* A light stiff free rod, L = 1 m, n_e = 4 (9 nodes), over the plane z = 0 at height z0 + a
 * (a = 0.01 m), tilted by `tilt` rad about y; node I's spring k_c w_I (w_I: Simpson weights, as the model's). */
static cr_ph *drop_rod(double z0, double tilt, double kc)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = 4, p.length = 1, p.rhoA = 0.1, p.M11 = p.M22 = 1e-6;
    const double k[6] = {1e5, 1e5, 1e5, 10, 10, 10};
    memcpy(p.stiffness, k, sizeof k);
    p.newton_atol = 1e-12;
    int nn = 2 * p.elements + 1;
    cr_vec3 x[9], d3 = cr_v3(cos(tilt), 0, sin(tilt)), d2 = cr_v3(0, 1, 0);
    cr_mat3 R[9];
    for (int I = 0; I < nn; ++I) { /* the lowest node (s = 0) starts at z0 + a */
        x[I] = cr_v3_madd(cr_v3(0, 0, z0 + 0.01), p.length * I / (nn - 1), d3);
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
    cr_vec3 n = cr_v3(0, 0, 1), pt = cr_v3(0, 0, 0);
    if (cr_ph_set_contact(s, 1, &n, &pt, a, kk, &err) != CR_OK) {
        fprintf(stderr, "contact: %s\n", err.message);
        cr_ph_destroy(s);
        return NULL;
    }
    return s;
}

/* Steps a drop for t_end; returns the largest |E - E0| / (m g z0), the largest one-step balance
 * |Delta E_n| / (m g z0) and the lift-offs counted (any node touching -> none touching). */
static double bounce(double tilt, double t_end, double h, int *liftoffs, double *maxdepth, double *maxstep)
{
    const double z0 = 0.005, kc = 5000;
    cr_ph *s = drop_rod(z0, tilt, kc);
    if (!s) return NAN;
    cr_ph_loads L = {0};
    L.force_density = cr_v3(0, 0, -0.1 * G);
    cr_ph_diag d;
    cr_ph_diagnostics(s, &d);
    double E0 = d.total - d.work_external, worst = 0, depth = 0, bal = 0;
    int was = 0, lifts = 0, steps = (int)lround(t_end / h);
    for (int k = 0; k < steps; ++k) {
        cr_error err = {0};
        if (cr_ph_step(s, h, &L, NULL, &err) != CR_OK) {
            fprintf(stderr, "step %d: %s\n", k, err.message);
            worst = NAN;
            break;
        }
        cr_ph_diagnostics(s, &d);
        worst = fmax(worst, fabs(d.total - d.work_external - E0));
        bal = fmax(bal, fabs(d.energy_balance));
        int touch = 0;
        for (int I = 0; I < cr_ph_node_count(s); ++I) {
            double g;
            touch |= cr_ph_contact_node(s, I, NULL, NULL, &g);
            depth = fmax(depth, -g);
        }
        if (was && !touch) ++lifts;
        was = touch;
    }
    cr_ph_destroy(s);
    *liftoffs = lifts;
    *maxstep = bal / (0.1 * G * z0);
    *maxdepth = depth;
    return worst / (0.1 * G * z0);
}

/* The bound: Newton stops a step on its increment test (|dX| <= 1e-8 (1 + |X|), then one more
 * update) or its residual test (1e-12); a step where a node's contact state changes within the
 * last iterations leaves up to ~3e-10 m g z0 of imbalance there (measured: a handful of steps in
 * 30000, the others at round-off, 1e-15 J). So: every step within 1e-9 m g z0 and the drift over
 * the whole run within 1e-8 m g z0. The midpoint evaluation V'(g_mid) n of the contact force
 * instead of the discrete gradient drifts by 2e-3 (flat) and 6e-2 (tilted) m g z0 (measured). */
static void ph_contact_bouncing_conserves_energy(void)
{
    for (int c = 0; c < 2; ++c) {
        double tilt = c ? 0.02 : 0, depth = 0, step = 0;
        int lifts = 0;
        double rel = bounce(tilt, 7.5, 2.5e-4, &lifts, &depth, &step);
        printf("  %s rod, 7.5 s, h = 2.5e-4 s: %d lift-offs, deepest %.3g m, max |E - E0| = %.3g m g z0, largest "
               "step balance %.3g m g z0\n",
               c ? "tilted (0.02 rad)" : "flat", lifts, depth, rel, step);
        CHECK(lifts >= 100);
        CHECK(rel < 1e-8);
        CHECK(step < 1e-9);
        CHECK(depth > 0 && depth < 0.01); /* it did touch, and the springs held it */
    }
}

/* the Jacobian with contact against central differences: nodes inside the plane at both ends of
 * the step, entering and leaving (the discrete gradient's three cases) */
static void ph_contact_jacobian(void)
{
    cr_ph *s = drop_rod(0.0, 0.0, 5000);
    if (!s) return;
    int nn = cr_ph_node_count(s);
    /* q_n: nodes alternately 1 mm above and 1 mm inside; q_{n+1} guess: the opposite for some */
    for (int I = 0; I < nn; ++I) s->q[12 * I + 2] = 0.01 + (I % 2 ? -1e-3 : 1e-3);
    ph_state_changed(s);
    ph_begin(s, PH_DYNAMIC, 1e-3);
    for (int I = 0; I < nn; ++I) {
        int o = s->node_off[I];
        if (o >= 0) s->X[o + 2] = 0.01 + (I % 3 == 0 ? 1.5e-3 : -2e-3) + 1e-4 * I;
    }
    cr_ph_loads L = {0};
    int n = s->nx;
    double *X = malloc(sizeof(double) * n), *rp = malloc(sizeof(double) * n), *rm = malloc(sizeof(double) * n);
    double *J = malloc(sizeof(double) * (size_t)n * n);
    memcpy(X, s->X, sizeof(double) * n);
    ph_assemble(s, PH_DYNAMIC, &L, X, s->r, 1);
    ph_jacobian_dense(s, J);
    double maxJ = 0, maxd = 0;
    for (int j = 0; j < n; ++j) {
        double x = X[j], dx = 1e-7;
        X[j] = x + dx;
        ph_assemble(s, PH_DYNAMIC, &L, X, rp, 0);
        X[j] = x - dx;
        ph_assemble(s, PH_DYNAMIC, &L, X, rm, 0);
        X[j] = x;
        for (int i = 0; i < n; ++i) {
            double fd = (rp[i] - rm[i]) / (2 * dx), a = J[(size_t)i * n + j];
            maxJ = fmax(maxJ, fabs(a)), maxd = fmax(maxd, fabs(a - fd));
        }
    }
    printf("  Jacobian with contact: max |J - J_fd| / max |J| = %.2g\n", maxd / maxJ);
    CHECK(maxd / maxJ < 1e-6);
    free(X), free(rp), free(rm), free(J);
    cr_ph_destroy(s);
}

/* the Jacobian with friction (docs/port-hamiltonian.md "Friction") against central differences: nodes
 * inside the plane and entering it, their tangential increments on the ramp |v_t| < eps and beyond it,
 * some nodes sliding in the last step (mu_k), others not (mu_s); eps h = 1e-5 m keeps the differences'
 * 1e-7 m off the ramp's kinks */
static void ph_contact_friction_jacobian(void)
{
    cr_ph *s = drop_rod(0.0, 0.0, 5000);
    if (s) s->friction_centre = 0; /* the contact point's law: the directors' columns too */
    if (!s) return;
    cr_error err = {0};
    const double ms = 0.6, mk = 0.4, eps = 1e-2, h = 1e-3;
    CHECK(cr_ph_set_friction(s, &ms, &mk, eps, &err) == CR_OK);
    int nn = cr_ph_node_count(s);
    for (int I = 0; I < nn; ++I) {
        s->q[12 * I + 2] = 0.01 + (I % 3 == 1 ? 1e-3 : -1e-3); /* every third node enters */
        s->vmid[12 * I] = I % 2 ? 3 * eps : 0.2 * eps;         /* odd nodes slid in the last step */
        s->vmid[12 * I + 1] = 0.1 * eps;
    }
    ph_state_changed(s);
    ph_begin(s, PH_DYNAMIC, h);
    for (int I = 0; I < nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        s->X[o + 2] = 0.01 - 2e-3 + 1e-4 * I;
        /* tangential increments: on the ramp (|dx_t| < eps h) for I % 4 < 2, beyond it otherwise */
        double f = I % 4 < 2 ? 0.3 + 0.1 * I : 2.0 + I;
        s->X[o] = s->q[12 * I] + f * eps * h * (I % 2 ? 1 : -1);
        s->X[o + 1] = s->q[12 * I + 1] + 0.5 * f * eps * h;
    }
    cr_ph_loads L = {0};
    int n = s->nx;
    double *X = malloc(sizeof(double) * n), *rp = malloc(sizeof(double) * n), *rm = malloc(sizeof(double) * n);
    double *J = malloc(sizeof(double) * (size_t)n * n);
    memcpy(X, s->X, sizeof(double) * n);
    ph_assemble(s, PH_DYNAMIC, &L, X, s->r, 1);
    ph_jacobian_dense(s, J);
    double maxJ = 0, maxd = 0, maxf = 0;
    for (int j = 0; j < n; ++j) {
        double x = X[j], dx = 1e-8;
        X[j] = x + dx;
        ph_assemble(s, PH_DYNAMIC, &L, X, rp, 0);
        X[j] = x - dx;
        ph_assemble(s, PH_DYNAMIC, &L, X, rm, 0);
        X[j] = x;
        for (int i = 0; i < n; ++i) {
            double fd = (rp[i] - rm[i]) / (2 * dx), a = J[(size_t)i * n + j];
            maxJ = fmax(maxJ, fabs(a)), maxd = fmax(maxd, fabs(a - fd));
        }
    }
    /* the friction's own part: its largest entry (h mu N / (eps h) on the ramp) is in J */
    ph_assemble(s, PH_DYNAMIC, &L, X, rp, 0); /* (unpacks X) */
    for (int I = 0; I < nn; ++I) {
        double dg[12], Kc[144], ff[3];
        if (ph_contact_force(s, I, 1, dg, Kc, ff, NULL, NULL))
            for (int k = 0; k < 3; ++k) maxf = fmax(maxf, fabs(ff[k]));
    }
    printf("  Jacobian with friction: max |J - J_fd| / max |J| = %.2g (largest friction force %.3g N)\n", maxd / maxJ,
           maxf);
    CHECK(maxd / maxJ < 1e-6);
    CHECK(maxf > 0);
    free(X), free(rp), free(rm), free(J);
    cr_ph_destroy(s);
}

/* The drop of ph_contact_bouncing_conserves_energy on a rough plane (mu_s 0.5, mu_k 0.3), the rod
 * thrown sideways at 0.3 m/s, for 2 s: step by step the balance H_{n+1} - H_n = W_n - D_n closes with
 * the friction's dissipation in D_n within the frictionless drop's bound (Newton's increment test;
 * measured 2.9e-10 m g z0), and E = H - W never rises: the friction only takes energy. It keeps
 * bouncing (the normal springs are elastic) while friction takes the sideways 0.3 m/s (but for
 * 1.3e-4 m/s of rocking). */
static void friction_dissipates(int rolling)
{
    const double z0 = 0.005, h = 2.5e-4, mgz = 0.1 * G * z0, ms = 0.5, mk = 0.3;
    cr_ph *s = drop_rod(z0, 0.02, 5000);
    if (!s) return;
    s->friction_centre = !rolling;
    cr_error err = {0};
    CHECK(cr_ph_set_friction(s, &ms, &mk, 1e-5, &err) == CR_OK);
    int nn = cr_ph_node_count(s);
    for (int I = 0; I < nn; ++I) s->v[12 * I + 1] = s->vmid[12 * I + 1] = 0.3;
    ph_state_changed(s);
    cr_ph_loads L = {0};
    L.force_density = cr_v3(0, 0, -0.1 * G);
    cr_ph_diag d;
    cr_ph_diagnostics(s, &d);
    double E0 = d.total - d.work_external, Eprev = E0, rise = 0, bal = 0, sum = 0;
    int lifts = 0, was = 0, slid = 0, steps = (int)lround(2.0 / h);
    for (int k = 0; k < steps; ++k) {
        if (cr_ph_step(s, h, &L, NULL, &err) != CR_OK) {
            fprintf(stderr, "step %d: %s\n", k, err.message);
            CHECK(0);
            break;
        }
        cr_ph_diagnostics(s, &d);
        double E = d.total - d.work_external;
        rise = fmax(rise, E - Eprev), Eprev = E;
        bal = fmax(bal, fabs(d.energy_balance));
        sum = fmax(sum, fabs(E + d.dissipated - E0));
        int touch = 0;
        for (int I = 0; I < nn; ++I) {
            int c = cr_ph_contact_node(s, I, NULL, NULL, NULL);
            touch |= c > 0, slid |= c == 2;
        }
        if (was && !touch) ++lifts;
        was = touch;
    }
    double vy = d.momentum.y / 0.1;
    printf("  rough drop (friction at the %s), thrown at 0.3 m/s: %d lift-offs, dissipated %.4g m g z0 (the throw's 1/2 v^2 / (g z0) = "
           "%.4g), largest step balance %.3g m g z0, |E + D - E0| <= %.3g m g z0, largest rise of E %.3g m g z0, "
           "v_y(2 s) = %.6g m/s (rolling: v0 / (1 + J / (m a^2)) = 0.25)\n",
           rolling ? "contact points" : "centres", lifts, d.dissipated / mgz, 0.5 * 0.09 / (G * z0), bal / mgz,
           sum / mgz, rise / mgz, vy);
    CHECK(slid);
    CHECK(bal < 1e-9 * mgz);
    CHECK(sum < 1e-8 * mgz);
    CHECK(rise < 1e-11 * mgz);
    CHECK(d.dissipated > 0.5 * 0.1 * 0.09); /* at least the throw's kinetic energy 1/2 m v^2 (m = 0.1 kg) */
    /* at the contact points the rod, thrown sideways without spin, ends rolling, its angular momentum about
       the contact line kept by the friction: v = v0 / (1 + J / (m a^2)) with the rotary inertia about its
       axis J = M11 + M22 = 2e-6 per length (m = 0.1 per length, a = 0.01): 0.25 m/s (measured 0.249813;
       the bounces' rocking: a few 1e-3 m/s). At the centres friction takes the sideways motion: 1.3e-4 m/s
       of rocking left. */
    if (rolling)
        CHECK(fabs(vy - 0.3 / (1 + 2e-6 / (0.1 * 1e-4))) < 5e-3);
    else
        CHECK(fabs(vy) < 1e-3);
    cr_ph_destroy(s);
}

static void ph_contact_friction_dissipates(void)
{
    friction_dissipates(0);
    friction_dissipates(1);
}

/* scenario level: a flat rod (circle r = 0.01 m, E = 1e7 Pa) dropped from a 5 mm gap */
static char *scenario(const char *obstacle, const char *stage)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{'model': {'type': 'port_hamiltonian'}, 'rod': {'length': 1, 'elements': 5, 'material': {'E': 1e7, "
             "'G': 4e6, 'rho': 1000}, 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
             " 'obstacles': [{%s}],"
             " 'loads': [{'type': 'gravity', 'value': [0, 0, -9.81]}],"
             " 'stages': [{'type': 'dynamic', %s}]}",
             obstacle, stage);
    for (char *p = buf; *p; ++p)
        if (*p == '\'') *p = '"';
    return buf;
}

static cr_scenario *load(const char *json, cr_error *err)
{
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, NULL, 0, &sc, err) != CR_OK) {
        fprintf(stderr, "load: %s\n", err->message);
        return NULL;
    }
    return sc;
}

static const char *FLOOR = "'type': 'plane', 'name': 'floor', 'point': [0, 0, -0.015], 'normal': [0, 0, 1]";

static void ph_contact_scenario(void)
{
    cr_error err = {0};
    cr_scenario *sc = load(scenario(FLOOR, "'t_end': 0.5, 'output_dt': 1e-3, 'time_step': 2.5e-4"), &err);
    CHECK(sc != NULL);
    if (!sc) return;
    cr_status st = cr_scenario_check(sc, &err);
    if (st != CR_OK) fprintf(stderr, "check: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result r;
    memset(&r, 0, sizeof r);
    st = cr_scenario_run(sc, &o, &r, &err);
    if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_scenario_destroy(sc);
    if (st != CR_OK) return;
    int ck = series_column(&r, "energy_kinetic"), ce = series_column(&r, "energy_elastic"),
        cw = series_column(&r, "work_external"), cz = series_column(&r, "tip_z");
    if (ck < 0 || ce < 0 || cw < 0 || cz < 0) return;
    int nc = cr_run_result_series_columns(&r);
    const double *D = cr_run_result_series_data(&r);
    double E0 = D[ck] + D[ce] - D[cw], dE = 0, zmin = INFINITY, Vmax = 0;
    for (long i = 0; i < cr_run_result_series_rows(&r); ++i) {
        const double *row = D + i * nc;
        dE = fmax(dE, fabs(row[ck] + row[ce] - row[cw] - E0));
        zmin = fmin(zmin, row[cz]);
        Vmax = fmax(Vmax, row[ce]);
    }
    double mgz = 1000 * M_PI * 1e-4 * G * 0.005;
    printf("  scenario: 0.5 s, lowest tip z %.4g m (floor at -0.015 + a = -0.005), largest energy_elastic %.3g J, "
           "max |E - E0| = %.3g J (m g z0 = %.3g J)\n",
           zmin, Vmax, dE, mgz);
    CHECK(zmin < -0.005 && zmin > -0.015); /* it fell the 5 mm gap and the floor held it */
    CHECK(Vmax > 0.1 * mgz);               /* the contact springs' energy is in energy_elastic */
    CHECK(dE < 1e-9 * mgz);
    cr_run_result_free(&r);
}

/* a rod resting on the plane at the depth delta = rhoA l g / k_c where every node's spring
 * k_c w_I holds its share rhoA g l w_I of the weight (the same Simpson weights): it stays, and the
 * contact_normal_force column equals the weight rhoA L g; k_c = 12 EI/l^3 (l = L/2n = 0.1 m) */
static void ph_contact_resting_rod(void)
{
    const double rhoA = 1000 * M_PI * 1e-4, l = 0.1, kc = 12 * 1e7 * (M_PI * 1e-8 / 4) / (l * l * l);
    const double delta = rhoA * G * l / kc;
    char obstacle[256], *json;
    snprintf(obstacle, sizeof obstacle, "'type': 'plane', 'point': [0, 0, %.17g], 'normal': [0, 0, 1]", delta - 0.01);
    json = strdup(scenario(obstacle, "'t_end': 0.2, 'output_dt': 0.01, 'time_step': 1e-3"));
    char *tail = strstr(json, "\"loads\"");
    char *text = malloc(strlen(json) + 64);
    snprintf(text, strlen(json) + 64, "%.*s\"contact\": {\"tolerance\": 1e-3}, %s", (int)(tail - json), json, tail);
    cr_error err = {0};
    cr_scenario *sc = load(text, &err);
    free(json), free(text);
    CHECK(sc != NULL);
    if (!sc) return;
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result r;
    memset(&r, 0, sizeof r);
    cr_status st = cr_scenario_run(sc, &o, &r, &err);
    if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_scenario_destroy(sc);
    if (st != CR_OK) return;
    int cn = series_column(&r, "contact_normal_force"), ca = series_column(&r, "contact_active"),
        cp = series_column(&r, "contact_penetration"), cz = series_column(&r, "tip_z");
    if (cn < 0 || ca < 0 || cp < 0 || cz < 0) return;
    int nc = cr_run_result_series_columns(&r);
    const double *D = cr_run_result_series_data(&r);
    double W = rhoA * 1.0 * G, ferr = 0, perr = 0, zerr = 0, amin = 1e9;
    for (long i = 0; i < cr_run_result_series_rows(&r); ++i) {
        const double *row = D + i * nc;
        ferr = fmax(ferr, fabs(row[cn] - W)), perr = fmax(perr, fabs(row[cp] - delta)),
        zerr = fmax(zerr, fabs(row[cz]));
        amin = fmin(amin, row[ca]);
    }
    printf("  resting rod: contact_normal_force - weight %.3g N (weight %.4g N), penetration - delta %.3g m "
           "(delta %.3g m), |tip z| <= %.3g m, nodes touching >= %g\n",
           ferr, W, perr, delta, zerr, amin);
    CHECK(ferr < 1e-9 * W);
    CHECK(perr < 1e-9 * delta);
    CHECK(zerr < 1e-12);
    CHECK(amin == 11);
    cr_run_result_free(&r);
}

/* statics: a cantilever (clamped at s = 0, gravity) sagging onto a floor 5 cm below lies on it;
 * where it lies straight (its last nodes: no bending, so no shear), each node's spring holds
 * exactly its share of the weight, rhoA g l w_I (w_I = 4/3 midside, 2/3, 1/3 at the tip), and sinks
 * rhoA g l / k_c (k_c = 12 EI/l^3, l = L/2n) */
static void ph_contact_static_cantilever(void)
{
    const char *json = "{\"model\": {\"type\": \"port_hamiltonian\"}, \"rod\": {\"length\": 1, \"elements\": 10, "
                       "\"material\": {\"E\": 1e7, \"G\": 4e6, \"rho\": 1000}, \"sections\": [{\"shape\": \"circle\", "
                       "\"radius\": 0.01}]}, \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": 0}], "
                       "\"obstacles\": [{\"type\": \"plane\", \"point\": [0, 0, -0.05], \"normal\": [0, 0, 1]}], "
                       "\"loads\": [{\"type\": \"gravity\", \"value\": [0, 0, -9.81]}], "
                       "\"stages\": [{\"type\": \"static\", \"load_steps\": 5}]}";
    cr_error err = {0};
    cr_scenario *sc = load(json, &err);
    CHECK(sc != NULL);
    if (!sc) return;
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_run_result r;
    memset(&r, 0, sizeof r);
    cr_status st = cr_scenario_run(sc, &o, &r, &err);
    if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_scenario_destroy(sc);
    if (st != CR_OK) return;
    const cr_sim *sim = cr_run_result_sim(&r);
    int nn = cr_sim_node_count(sim);
    const double share = 1000 * M_PI * 1e-4 * G * (1.0 / (nn - 1)), w[3] = {2.0 / 3, 4.0 / 3, 1.0 / 3};
    const double l = 1.0 / (nn - 1), kc = 12 * 1e7 * (M_PI * 1e-8 / 4) / (l * l * l); /* 12 EI/l^3 < EA/l */
    double worst = 0;
    for (int k = 0; k < 3; ++k) {
        cr_contact_sample c;
        CHECK(cr_sim_contact(sim, nn - 3 + k, &c) == 1 && c.state == 1);
        worst = fmax(worst, fabs(c.force.z - share * w[k]) / (share * w[k]));
        worst = fmax(worst, fabs(c.gap + share / kc) / (share / kc)); /* the spring k_c w_I sinks share / k_c */
    }
    printf(
        "  static cantilever on the floor: last 3 nodes' contact forces = their weight shares, depths = rhoA g l/k_c, "
        "within %.2g\n",
        worst);
    CHECK(worst < 1e-3);
    cr_run_result_free(&r);
}

static void ph_contact_refusals(void)
{
    static const struct {
        const char *obstacle, *needle;
    } cases[] = {
        {"'type': 'plane', 'name': 'floor', 'point': [0, 0, -0.005], 'normal': [0, 0, 1]",
         "obstacles.0: the rod starts inside obstacle \"floor\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cr_error err = {0};
        cr_scenario *sc = load(scenario(cases[k].obstacle, "'t_end': 0.1, 'output_dt': 0.01, 'time_step': 1e-4"), &err);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_status st = cr_scenario_check(sc, &err);
        if (st != CR_BAD_INPUT || !strstr(err.message, cases[k].needle))
            fprintf(stderr, "  case %zu: \"%s\", expected \"%s\"\n", k, err.message, cases[k].needle);
        CHECK(st == CR_BAD_INPUT && strstr(err.message, cases[k].needle));
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(ph_contact_bouncing_conserves_energy), CASE(ph_contact_jacobian), CASE(ph_contact_friction_jacobian),
           CASE(ph_contact_friction_dissipates), CASE(ph_contact_scenario), CASE(ph_contact_resting_rod),
           CASE(ph_contact_static_cantilever), CASE(ph_contact_refusals))
