/* What a port-Hamiltonian step reuses from the step before (docs/port-hamiltonian.md "The step's own
 * passes"): eps(q_n) (the finish's eps(q_{n+1})), H_n (the finish's H_{n+1}) and the predictor the finish
 * writes into X. A rod that reuses them runs against the same rod told before every step that its state
 * changed (ph_state_changed: it recomputes all three, as every step did before), through every kind of
 * write to the state that bypasses a step: a checkpoint resumed (cr_ph_unpack of an earlier state), a
 * static solve before the dynamics, obstacles and friction set between steps, velocities and positions
 * written directly (the tests' and the internal API's writes, which call ph_state_changed), another step
 * size, a failed step retried. Both must agree to the bit: state, stresses, multipliers, the energy
 * account. A third rod whose direct write is not announced shows what the entry point guards against.
 * The same through an obstacle with a prescribed motion (its contact energy in H_n depends on t; the finish
 * keeps no predictor) and through an assembly's step (ph_assembly.c: its rods reuse as cr_ph_step does). */
#include "check.h"
#include "ph/ph.h"
#include "ph/ph_assembly.h"

#include <stdlib.h>
#include <string.h>

/* a straight rod from x0 along (0.6, 0, -0.8) */
static cr_ph *make_at(const cr_ph_params *p, cr_vec3 x0)
{
    const int nn = 2 * p->elements + 1;
    cr_vec3 *x = malloc(sizeof *x * nn);
    cr_mat3 *R = malloc(sizeof *R * nn);
    const cr_vec3 d3 = cr_v3(0.6, 0, -0.8), d2 = cr_v3(0, 1, 0), d1 = cr_v3_cross(d2, d3);
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3_madd(x0, p->length * I / (nn - 1), d3);
        R[I] = cr_m3_columns(d1, d2, d3);
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(p, x, R, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x), free(R);
    return s;
}

static cr_ph *make(const cr_ph_params *p) { return make_at(p, cr_v3(0, 0, 0.5)); }

/* the state and the energy account of a and b bit for bit */
static int same(const cr_ph *a, const cr_ph *b)
{
    const size_t nn = (size_t)a->nn, ng = (size_t)a->ng, D = sizeof(double);
    return a->t == b->t && !memcmp(a->q, b->q, 12 * nn * D) && !memcmp(a->v, b->v, 12 * nn * D) &&
           !memcmp(a->vmid, b->vmid, 12 * nn * D) && !memcmp(a->lam, b->lam, 6 * nn * D) &&
           !memcmp(a->sig_el, b->sig_el, 6 * ng * D) && !memcmp(a->sig_br, b->sig_br, 6 * ng * a->nb * D) &&
           !memcmp(&a->work_ext, &b->work_ext, D) && !memcmp(&a->dissipated, &b->dissipated, D) &&
           !memcmp(&a->energy_balance, &b->energy_balance, D) && !memcmp(&a->work_roundoff, &b->work_roundoff, D);
}

typedef struct pair {
    cr_ph *a, *b; /* a reuses, b recomputes */
    cr_ph_loads L;
    cr_vec3 *F, *M;
    int steps, mismatches;
    double balance; /* the largest |energy_balance| of a's steps */
} pair;

/* one step of both; returns a's status */
static cr_status step(pair *P, double h)
{
    const int nn = P->a->nn;
    const double t = cr_ph_time(P->a) + 0.5 * h, f = 2 * sin(3 * t);
    P->F[nn - 1] = cr_v3(0.3 * f, 0.2, -f), P->M[nn - 1] = cr_v3(0, 0.5 * f, 0.25);
    ph_state_changed(P->b);
    cr_error e1 = {0}, e2 = {0};
    int i1 = 0, i2 = 0;
    const cr_status s1 = cr_ph_step(P->a, h, &P->L, &i1, &e1), s2 = cr_ph_step(P->b, h, &P->L, &i2, &e2);
    if (s1 != s2 || i1 != i2 || !same(P->a, P->b)) ++P->mismatches;
    if (s1 == CR_OK) {
        ++P->steps;
        P->balance = fmax(P->balance, fabs(P->a->energy_balance));
        /* the step left what the next one reuses (the predictor: not with friction or a moving obstacle, whose
           finish keeps its terms' order) */
        CHECK(P->a->have_eps && P->a->have_H && P->a->have_pred == !(P->a->cmu || P->a->any_moving));
        double m = 0; /* Newton's largest |stress| of the state, from the finish */
        for (int k = 0; k < 6 * P->a->ng; ++k) m = fmax(m, fabs(P->a->sig_el[k]));
        if (P->a->have_sigmax) CHECK(P->a->sig_max == m);
    }
    return s1;
}

static void steps(pair *P, double h, int n)
{
    for (int k = 0; k < n; ++k) CHECK(step(P, h) == CR_OK);
}

static double kinetic(const cr_ph *s) { return ph_kinetic_energy(s, s->v); }

/* friction on both rods' obstacles (mu_s 0.5, mu_k 0.3, stick speed 1e-3 m/s), or off */
static void set_friction(pair *P, int on)
{
    const double ms = 0.5, mk = 0.3;
    cr_error err = {0};
    CHECK(cr_ph_set_friction(P->a, on ? &ms : NULL, on ? &mk : NULL, on ? 1e-3 : 0, &err) == CR_OK);
    CHECK(cr_ph_set_friction(P->b, on ? &ms : NULL, on ? &mk : NULL, on ? 1e-3 : 0, &err) == CR_OK);
}

/* a plane 5 mm above the rod's lowest node (contact radius 1 cm: 15 mm deep): contact energy now */
static void set_plane(cr_ph *s, double z)
{
    double a[64], k[64];
    for (int I = 0; I < s->nn; ++I) a[I] = 0.01, k[I] = 50;
    const cr_vec3 n = cr_v3(0, 0, 1), pt = cr_v3(0, 0, z + 0.005);
    cr_error err = {0};
    CHECK(cr_ph_set_contact(s, 1, &n, &pt, a, k, &err) == CR_OK);
}

static void run(const char *what, cr_ph_params p, int actuate, int statics)
{
    pair P = {0};
    P.a = make(&p), P.b = make(&p);
    cr_ph *c = make(&p);
    if (!P.a || !P.b || !c) {
        CHECK(0);
        return;
    }
    const int nn = P.a->nn;
    CHECK(nn <= 64);
    P.F = calloc(nn, sizeof *P.F), P.M = calloc(nn, sizeof *P.M);
    static double act[6] = {0, 0, -0.05, 0.02, 0, 0};
    P.L = (cr_ph_loads){P.F, P.M, {0, 0, -0.5}, {0, 0.1, 0}, actuate ? act : NULL};
    const double h = 0.01;
    int kinds = 0;

    /* 1. from the creation (eps(q_0) = eps_0, H_0 = 0) */
    steps(&P, h, 4), ++kinds;
    /* 2. a static solve before the dynamics (the statics' end state, velocities zeroed) */
    if (statics) {
        cr_error err = {0};
        int it = 0;
        CHECK(cr_ph_solve_static(P.a, &P.L, &it, NULL, &err) == CR_OK);
        CHECK(cr_ph_solve_static(P.b, &P.L, &it, NULL, &err) == CR_OK);
        steps(&P, h, 3), ++kinds;
    }
    /* 3. a checkpoint resumed: the state of 3 steps ago unpacked over a's later one */
    const int np = cr_ph_packed_size(P.a);
    double *ck = malloc(sizeof(double) * np), *ckb = malloc(sizeof(double) * np);
    cr_ph_pack(P.a, ck), cr_ph_pack(P.b, ckb);
    CHECK(!memcmp(ck, ckb, sizeof(double) * np));
    steps(&P, h, 3);
    cr_ph_unpack(P.a, ck), cr_ph_unpack(P.b, ck);
    steps(&P, h, 3), ++kinds;
    /* 4. another step size (the predictor was written for h) */
    steps(&P, 0.5 * h, 2), ++kinds;
    /* 5. velocities written directly and the rod moved (a clamped one with its clamp: a translation keeps a
       Kirchhoff rod's strains), announced */
    for (int I = 0; I < nn; ++I) {
        const double add[3] = {0.05 * sin(I), 0.02, -0.03 * cos(I)}, move[3] = {2e-4, -1e-4, 3e-4};
        for (int k = 0; k < 3; ++k) {
            P.a->v[12 * I + k] += add[k], P.b->v[12 * I + k] += add[k];
            P.a->q[12 * I + k] += move[k], P.b->q[12 * I + k] += move[k];
        }
    }
    ph_state_changed(P.a), ph_state_changed(P.b);
    steps(&P, h, 3), ++kinds;
    /* 6. an obstacle set between steps (H's contact energy), then 7. friction on it */
    double zlow = INFINITY;
    for (int I = 0; I < nn; ++I) zlow = fmin(zlow, P.a->q[12 * I + 2]);
    set_plane(P.a, zlow), set_plane(P.b, zlow), set_plane(c, zlow);
    CHECK(ph_contact_energy(P.a, P.a->q) > 0);
    steps(&P, h, 3), ++kinds;
    set_friction(&P, 1);
    steps(&P, h, 3), ++kinds;
    set_friction(&P, 0);
    steps(&P, h, 2);
    /* 8. a step that fails (one Newton iteration allowed at a large step), then retried */
    P.a->p.max_iterations = P.b->p.max_iterations = 1;
    CHECK(step(&P, 0.2) != CR_OK);
    P.a->p.max_iterations = P.b->p.max_iterations = p.max_iterations;
    steps(&P, h, 2), ++kinds;

    /* an unannounced write: c takes a's state (unpack), steps once (its caches are then its state's), and
       its velocities are scaled as a's, but only a is told. c's step then starts from the old H_n (and the
       old predictor): its balance is off by the kinetic energy the write added. */
    cr_error err = {0};
    cr_ph_pack(P.a, ck), cr_ph_unpack(c, ck);
    CHECK(cr_ph_step(c, h, &P.L, NULL, &err) == CR_OK);
    CHECK(cr_ph_step(P.a, h, &P.L, NULL, &err) == CR_OK);
    CHECK(same(c, P.a));
    const double T0 = kinetic(P.a);
    for (int k = 0; k < 12 * nn; ++k) P.a->v[k] *= 1.5, c->v[k] *= 1.5;
    const double dT = kinetic(P.a) - T0;
    ph_state_changed(P.a);
    CHECK(cr_ph_step(c, h, &P.L, NULL, &err) == CR_OK);
    CHECK(cr_ph_step(P.a, h, &P.L, NULL, &err) == CR_OK);
    const double off = c->energy_balance - P.a->energy_balance;

    printf("  %-34s %d steps in %d kinds of writes: %d differ from the recomputing rod (bit for bit); largest "
           "step balance %.2e J; unannounced write: balance off by %.6g J (the write's kinetic energy %.6g J)\n",
           what, P.steps, kinds, P.mismatches, P.balance, off, dT);
    CHECK(P.mismatches == 0);
    CHECK(P.steps >= 25);
    CHECK(P.balance < 1e-9);
    CHECK(dT > 0 && fabs(off - dT) <= 1e-6 * dT); /* c's H_n short by dT: its Delta E = H_{n+1} - H_n - W + D larger */
    free(ck), free(ckb), free(P.F), free(P.M);
    cr_ph_destroy(P.a), cr_ph_destroy(P.b), cr_ph_destroy(c);
}

/* the flying spaghetti's rod (free, elastic), shorter and with 6 elements */
static cr_ph_params free_rod(void)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = 6, p.length = 1, p.h = 0.01, p.max_iterations = 30;
    return p;
}

static void ph_reuse_elastic(void) { run("free elastic rod", free_rod(), 0, 0); }

static void ph_reuse_viscous_actuated(void)
{
    cr_ph_params p = free_rod();
    p.branch_count = 2;
    p.branch_tau[0] = 0.05, p.branch_fraction[0] = 0.3;                               /* Maxwell */
    p.branch_tau[1] = 0.02, p.branch_fraction[1] = 0.1, p.branch_rigid_spring[1] = 1; /* Kelvin-Voigt */
    run("viscous rod, actuated", p, 1, 0);
}

static void ph_reuse_kirchhoff_clamped(void)
{
    cr_ph_params p = free_rod();
    p.rigid = 0x7, p.clamp_start = 1;
    run("clamped Kirchhoff rod, statics first", p, 0, 1);
}

/* A moving obstacle (docs/port-hamiltonian.md "Contact": a plane translating at v t + a t^2 / 2): H_n holds its
   contact energy at t_n, the finish's at t_{n+1}. Set on all three rods (touching: node radius 1 cm, the plane
   5 mm above the lowest node's), then through the writes: a checkpoint resumed (t back: the plane back), another
   h, the obstacle set again with another motion (the plane 2 mm higher at the same t: its energy jumps), its
   friction, a failed step retried, velocities written. */
static void set_moving_plane(cr_ph *s, double z, cr_vec3 v, cr_vec3 acc)
{
    double a[64], k[64];
    for (int I = 0; I < s->nn; ++I) a[I] = 0.01, k[I] = 50;
    cr_obstacle_def o;
    memset(&o, 0, sizeof o);
    o.type = CR_OBSTACLE_PLANE, o.center = cr_v3(0, 0, z), o.axes = cr_m3_identity();
    o.half_extents = cr_v3(INFINITY, INFINITY, INFINITY);
    o.velocity = v, o.acceleration = acc;
    cr_error err = {0};
    CHECK(cr_ph_set_obstacles(s, 1, &o, a, k, &err) == CR_OK);
    CHECK(s->any_moving);
}

static void ph_reuse_moving_obstacle(void)
{
    const cr_ph_params p = free_rod();
    pair P = {0};
    P.a = make(&p), P.b = make(&p);
    if (!P.a || !P.b) {
        CHECK(0);
        return;
    }
    const int nn = P.a->nn;
    P.F = calloc(nn, sizeof *P.F), P.M = calloc(nn, sizeof *P.M);
    P.L = (cr_ph_loads){P.F, P.M, {0, 0, -0.5}, {0, 0.1, 0}, NULL};
    const double h = 0.01;
    double zlow = INFINITY;
    for (int I = 0; I < nn; ++I) zlow = fmin(zlow, P.a->q[12 * I + 2]);
    /* rising at 0.1 m/s and sliding along x, decelerating */
    const cr_vec3 v1 = cr_v3(0.05, 0, 0.1), a1 = cr_v3(0, 0, -0.2), v2 = cr_v3(-0.04, 0.02, 0.15);
    set_moving_plane(P.a, zlow - 0.005, v1, a1), set_moving_plane(P.b, zlow - 0.005, v1, a1);
    CHECK(ph_contact_energy(P.a, P.a->q) > 0);
    int kinds = 0;
    steps(&P, h, 5), ++kinds;
    const int np = cr_ph_packed_size(P.a);
    double *ck = malloc(sizeof(double) * np);
    cr_ph_pack(P.a, ck);
    steps(&P, h, 3);
    cr_ph_unpack(P.a, ck), cr_ph_unpack(P.b, ck);
    steps(&P, h, 3), ++kinds;
    steps(&P, 0.5 * h, 2), ++kinds;
    /* another motion: at the same t the plane 2 mm higher than the first motion had it */
    const double t = cr_ph_time(P.a), z1 = zlow - 0.005 + v1.z * t + 0.5 * a1.z * t * t;
    const double zc = z1 + 0.002 - v2.z * t;
    const double V0 = ph_contact_energy(P.a, P.a->q);
    set_moving_plane(P.a, zc, v2, cr_v3(0, 0, 0)), set_moving_plane(P.b, zc, v2, cr_v3(0, 0, 0));
    const double V1 = ph_contact_energy(P.a, P.a->q);
    CHECK(V1 > V0 && V0 > 0); /* (the reset changed H_n) */
    steps(&P, h, 3), ++kinds;
    set_friction(&P, 1);
    steps(&P, h, 3), ++kinds;
    P.a->p.max_iterations = P.b->p.max_iterations = 1;
    CHECK(step(&P, 0.2) != CR_OK);
    P.a->p.max_iterations = P.b->p.max_iterations = p.max_iterations;
    steps(&P, h, 3), ++kinds;
    for (int I = 0; I < nn; ++I) P.a->v[12 * I] += 0.03, P.b->v[12 * I] += 0.03;
    ph_state_changed(P.a), ph_state_changed(P.b);
    steps(&P, h, 3), ++kinds;
    int touching = 0;
    for (int I = 0; I < nn; ++I) touching += cr_ph_contact_node(P.a, I, NULL, NULL, NULL) > 0;
    printf("  %-34s %d steps in %d kinds of writes: %d differ from the recomputing rod (bit for bit); largest "
           "step balance %.2e J; %d nodes touching at the end; the reset's contact energy %.4g -> %.4g J\n",
           "free rod on a moving plane", P.steps, kinds, P.mismatches, P.balance, touching, V0, V1);
    CHECK(P.mismatches == 0);
    CHECK(P.steps >= 25);
    CHECK(P.balance < 1e-9);
    CHECK(touching > 0);
    free(ck), free(P.F), free(P.M);
    cr_ph_destroy(P.a), cr_ph_destroy(P.b);
}

/* An assembly (ph_assembly.c): its step reuses each rod's eps(q_n), H_n and predictor as cr_ph_step does
   (ph_step_energy, ph_begin, ph_step_finish). Two rods, the first clamped at its start, the second hanging on
   a hinge at its end: one assembly reuses, the other's rods are told before every step that their states
   changed. Through: the assembly's statics before the dynamics, a checkpoint resumed (the rods' and the
   joints' states), another h, a moving obstacle set on the second rod, a failed step retried, velocities
   written. Both assemblies' rods and joints must agree to the bit. */
typedef struct asm_pair {
    cr_ph *a[2], *b[2];
    cr_ph_asm *A, *B; /* A reuses, B recomputes */
    cr_ph_loads L[2];
    cr_vec3 *F;
    int steps, mismatches;
} asm_pair;

static int asm_same(const asm_pair *P)
{
    const int n = cr_ph_asm_packed_size(P->A);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    cr_ph_asm_pack(P->A, x), cr_ph_asm_pack(P->B, y);
    const int eq = !memcmp(x, y, sizeof(double) * n) && same(P->a[0], P->b[0]) && same(P->a[1], P->b[1]);
    free(x), free(y);
    return eq;
}

static cr_status asm_step(asm_pair *P, double h)
{
    const int nn = P->a[1]->nn;
    const double t = cr_ph_time(P->a[0]) + 0.5 * h, f = 0.2 * sin(4 * t);
    P->F[nn - 1] = cr_v3(f, 0.05, 0);
    ph_state_changed(P->b[0]), ph_state_changed(P->b[1]);
    const cr_ph_loads *L[2] = {&P->L[0], &P->L[1]};
    cr_error e1 = {0}, e2 = {0};
    int i1 = 0, i2 = 0;
    const cr_status s1 = cr_ph_asm_step(P->A, h, L, &i1, &e1), s2 = cr_ph_asm_step(P->B, h, L, &i2, &e2);
    if (s1 != s2 || i1 != i2 || !asm_same(P)) ++P->mismatches;
    if (s1 == CR_OK) {
        ++P->steps;
        for (int r = 0; r < 2; ++r)
            CHECK(P->a[r]->have_eps && P->a[r]->have_H && P->a[r]->have_pred == !(P->a[r]->cmu || P->a[r]->any_moving));
    }
    return s1;
}

static void asm_steps(asm_pair *P, double h, int n)
{
    for (int k = 0; k < n; ++k) CHECK(asm_step(P, h) == CR_OK);
}

static void ph_reuse_assembly(void)
{
    cr_ph_params p = free_rod();
    p.elements = 4, p.length = 0.5, p.newton_atol = 1e-10;
    cr_ph_params p0 = p;
    p0.clamp_start = 1;
    asm_pair P = {0};
    const cr_vec3 x1 = cr_v3(0.3, 0, 0.1); /* the first rod's end: (0, 0, 0.5) + 0.5 (0.6, 0, -0.8) */
    P.a[0] = make(&p0), P.a[1] = make_at(&p, x1), P.b[0] = make(&p0), P.b[1] = make_at(&p, x1);
    if (!P.a[0] || !P.a[1] || !P.b[0] || !P.b[1]) {
        CHECK(0);
        return;
    }
    const int nn = P.a[0]->nn;
    CHECK(cr_v3_norm(cr_v3_sub(cr_ph_position(P.a[0], nn - 1), x1)) < 1e-15);
    /* the hinge about d2 (y) between the first rod's end and the second's start */
    const cr_ph_joint_def jd = {.type = CR_JOINT_HINGE, .rod = {0, 1}, .node = {nn - 1, 0}, .axis = {0, 1, 0}};
    cr_error err = {0};
    P.A = cr_ph_asm_create(2, P.a, 1, &jd, &err), P.B = cr_ph_asm_create(2, P.b, 1, &jd, &err);
    if (!P.A || !P.B) {
        fprintf(stderr, "assembly: %s\n", err.message);
        CHECK(0);
        return;
    }
    P.F = calloc(nn, sizeof *P.F);
    P.L[0] = (cr_ph_loads){NULL, NULL, {0, 0, -0.5}, {0, 0, 0}, NULL};
    P.L[1] = (cr_ph_loads){P.F, NULL, {0, 0, -0.5}, {0, 0, 0}, NULL};
    const double h = 0.01;
    int kinds = 0;
    asm_steps(&P, h, 4), ++kinds;
    /* the assembly's statics (ph_static_finish: velocities zeroed, the rods moved to equilibrium) */
    const cr_ph_loads *L[2] = {&P.L[0], &P.L[1]};
    int it = 0;
    CHECK(cr_ph_asm_solve_static(P.A, L, &it, NULL, &err) == CR_OK);
    CHECK(cr_ph_asm_solve_static(P.B, L, &it, NULL, &err) == CR_OK);
    CHECK(asm_same(&P));
    asm_steps(&P, h, 4), ++kinds;
    /* a checkpoint resumed: the rods' states and the joints' */
    const int np0 = cr_ph_packed_size(P.a[0]), np1 = cr_ph_packed_size(P.a[1]), npa = cr_ph_asm_packed_size(P.A);
    double *c0 = malloc(sizeof(double) * np0), *c1 = malloc(sizeof(double) * np1), *ca = malloc(sizeof(double) * npa);
    cr_ph_pack(P.a[0], c0), cr_ph_pack(P.a[1], c1), cr_ph_asm_pack(P.A, ca);
    asm_steps(&P, h, 3);
    cr_ph_unpack(P.a[0], c0), cr_ph_unpack(P.a[1], c1), cr_ph_asm_unpack(P.A, ca);
    cr_ph_unpack(P.b[0], c0), cr_ph_unpack(P.b[1], c1), cr_ph_asm_unpack(P.B, ca);
    asm_steps(&P, h, 3), ++kinds;
    asm_steps(&P, 0.5 * h, 2), ++kinds;
    /* a moving plane under the second rod, touching its lowest node */
    double zlow = INFINITY;
    for (int I = 0; I < nn; ++I) zlow = fmin(zlow, P.a[1]->q[12 * I + 2]);
    const double t = cr_ph_time(P.a[1]), zc = zlow - 0.005 - 0.05 * t;
    set_moving_plane(P.a[1], zc, cr_v3(0.02, 0, 0.05), cr_v3(0, 0, 0));
    set_moving_plane(P.b[1], zc, cr_v3(0.02, 0, 0.05), cr_v3(0, 0, 0));
    CHECK(ph_contact_energy(P.a[1], P.a[1]->q) > 0);
    asm_steps(&P, h, 4), ++kinds;
    /* a failed step (one Newton iteration at a large step), retried */
    P.a[0]->p.max_iterations = P.b[0]->p.max_iterations = 1;
    CHECK(asm_step(&P, 0.2) != CR_OK);
    P.a[0]->p.max_iterations = P.b[0]->p.max_iterations = p.max_iterations;
    asm_steps(&P, h, 3), ++kinds;
    for (int r = 0; r < 2; ++r) {
        for (int I = 0; I < nn; ++I) P.a[r]->v[12 * I + 1] += 0.02, P.b[r]->v[12 * I + 1] += 0.02;
        ph_state_changed(P.a[r]), ph_state_changed(P.b[r]);
    }
    asm_steps(&P, h, 3), ++kinds;
    printf("  %-34s %d steps in %d kinds of writes: %d differ from the recomputing assembly (bit for bit); "
           "joint violation %.2e, hinge tip at (%.4f, %.4f, %.4f)\n",
           "two rods on a hinge (assembly)", P.steps, kinds, P.mismatches, cr_ph_asm_joint_violation(P.A),
           cr_ph_position(P.a[1], nn - 1).x, cr_ph_position(P.a[1], nn - 1).y, cr_ph_position(P.a[1], nn - 1).z);
    CHECK(P.mismatches == 0);
    CHECK(P.steps >= 25);
    CHECK(cr_ph_asm_joint_violation(P.A) < 1e-8);
    free(c0), free(c1), free(ca), free(P.F);
    cr_ph_asm_destroy(P.A), cr_ph_asm_destroy(P.B);
    for (int r = 0; r < 2; ++r) cr_ph_destroy(P.a[r]), cr_ph_destroy(P.b[r]);
}

CHECK_MAIN(CASE(ph_reuse_elastic), CASE(ph_reuse_viscous_actuated), CASE(ph_reuse_kirchhoff_clamped),
           CASE(ph_reuse_moving_obstacle), CASE(ph_reuse_assembly))
