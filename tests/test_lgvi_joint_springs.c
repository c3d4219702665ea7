/* Joint springs, dampers and drives of LGVI assemblies (src/lgvi/assembly.c: joint_springs,
 * drive_rows) against independent references. The mechanism: a steel arm (0.5 m, radius 2 cm,
 * 4 elements) on a hinge (or a prismatic joint) at the end of a short thick clamped stub (the
 * LGVI rod has clamps only, so the pivot is a joint); the arm is stiff enough to move as a rigid
 * body, so the references are the rigid body's, with the lumped masses' inertia about the hinge
 * I = ρA L³ (1/3 + 1/(6K²)) + ρ I_z L (exact for K lumped elements, the nodes' rotary inertia).
 *   spring       a hinge spring k, the arm kicked by a tip force pulse, then free: the period
 *                is 2π √(I/k) (the torsion pendulum; the arm's own bending in series with k
 *                shifts it by ~k L/(6 EI) = 9e-5); the mixed rod on the same scenario swings
 *                with it; energy_total − work_external constant (a variational integrator:
 *                the spring is a potential of the discrete Lagrangian)
 *   damper       the same with a damper c: successive peaks' ratio exp(−ζ ω T_d); the energy
 *                balance with energy_dissipated_joints; the mixed rod's dissipation
 *   slide        a prismatic joint along the arm with a slide spring k_s: the arm's axial
 *                oscillation at √(k_s / m) (m the arm's mass), against the mixed rod
 *   motor        a hinge motor turning the arm under gravity from horizontal to hanging along a
 *                smooth step: the motor's couple about the axis is I θ̈ − g cos θ ρA L²/2 (the
 *                rigid arm's balance of moments); energy_total − work_external − work_drives
 *                constant; the same work_drives and motion as the mixed rod's
 *   ball         a ball joint's isotropic spring and damper, kicked sideways, up and twisted:
 *                both swings at the damped torsion pendulum's period (+ the spring's softening
 *                sin ψ cos ψ at 0.04 rad), against the mixed rod
 *   stop         a hinge stop beyond π (unwrapped) hit under a constant moment: ½ k p² = T (θ + p)
 *   refusals     a spring's rest and slide_rest, joint stages: refused at check, naming the key
 *                and the model */
#include "check.h"
#include "cosserat/cosserat.h"
#include "model/formulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RHO 7800.0
#define RADIUS 0.02
#define LEN 0.5
#define K_EL 4
#define NOUT 4096

typedef struct rec {
    int n;
    double t[NOUT], tipx[NOUT], tipy[NOUT], tipz[NOUT];
    double balance[NOUT]; /* energy in − out: kinetic + elastic + gravity − work_external + dissipated − drives */
    double dissipated[NOUT], drives[NOUT], moment[NOUT];
    double pressing[NOUT], stop_force[NOUT]; /* the stops' columns (NAN without) */
    double turn[NOUT];                       /* the arm's first node's turn about z relative to the stub's end */
    cr_vec3 axis;                            /* the joint's axis for the moment's component */
} rec;

/* a controller: at the output time control_t, joint 0's drive input becomes control_u */
static double control_t = -1, control_u = 1;

static int on_output(cr_sim *sim, const cr_dynamic_sample *s, void *user)
{
    rec *r = user;
    if (fabs(s->t - control_t) < 1e-9) CHECK(cr_sim_set_joint_drive_input(sim, 0, control_u) == CR_OK);
    if (r->n >= NOUT) return 0;
    const int tip = cr_sim_node_count(sim) - 1;
    const cr_vec3 x = cr_sim_position(sim, tip);
    r->t[r->n] = s->t, r->tipx[r->n] = x.x, r->tipy[r->n] = x.y, r->tipz[r->n] = x.z;
    const double dis = s->extra_count >= 2 ? s->extra[0] : NAN, drv = s->extra_count >= 2 ? s->extra[1] : NAN;
    r->dissipated[r->n] = dis, r->drives[r->n] = drv;
    cr_vec3 xp;
    cr_quat qa, qb;
    sim->f->node_pose(sim->impl, 1, &xp, &qa), sim->f->node_pose(sim->impl, 2, &xp, &qb);
    const cr_quat d = cr_q_mul(cr_q_conj(qa), qb);
    r->turn[r->n] = 2 * atan2(d.z, d.w);
    r->pressing[r->n] = s->extra_count >= 4 ? s->extra[2] : NAN;
    r->stop_force[r->n] = s->extra_count >= 4 ? s->extra[3] : NAN;
    r->balance[r->n] = s->kinetic + s->elastic + s->gravity - s->work_external + dis - drv;
    cr_vec3 f, m;
    r->moment[r->n] = cr_sim_joint_reaction(sim, 0, &f, &m) == CR_OK ? cr_v3_dot(m, r->axis) : NAN;
    r->n++;
    return 0;
}

/* the mixed rod's tolerances (the stop's case: 1e-6, its penalty's kinks cost Radau 16 times the
 * steps at 1e-8 for the same penetration to 1e-5 rad) */
static const char *mixed_tol = "\"rtol\": 1e-8, \"atol\": 1e-10";

/* the stub, the arm, one joint (JSON), loads (JSON); model lgvi with a fixed step or the mixed
 * rod (Radau, mixed_tol) */
static void scenario(char *json, size_t size, int lgvi, const char *joint, const char *loads, double t_end, double h)
{
    char stage[256];
    if (lgvi)
        snprintf(stage, sizeof stage,
                 "{\"type\": \"dynamic\", \"t_end\": %g, \"output_dt\": 0.001, \"time_step\": %.17g}", t_end, h);
    else
        snprintf(stage, sizeof stage, "{\"type\": \"dynamic\", \"t_end\": %g, \"output_dt\": 0.001, %s}", t_end,
                 mixed_tol);
    snprintf(json, size,
             "{\"model\": \"%s\", \"rods\": ["
             "{\"name\": \"pivot\", \"length\": 0.125, \"elements\": 1, \"material\": {\"E\": 2e11, \"G\": 8e10, "
             "\"rho\": 7800}, \"sections\": [{\"shape\": \"circle\", \"radius\": 0.03}], \"reference\": "
             "{\"origin\": [-0.125, 0, 0]}},"
             "{\"name\": \"arm\", \"length\": %g, \"elements\": %d, \"material\": {\"E\": 2e11, \"G\": 8e10, "
             "\"rho\": %g}, \"sections\": [{\"shape\": \"circle\", \"radius\": %g}]}],"
             "\"joints\": [%s], \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"pivot:start\"}],"
             "\"loads\": [%s], \"stages\": [%s]}",
             lgvi ? "lgvi" : "mixed_discrete", LEN, K_EL, RHO, RADIUS, joint, loads, stage);
}

static int run(const char *json, rec *r)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, NULL, 0, &sc, &err) != CR_OK) fprintf(stderr, "load: %s\n", err.message);
    CHECK(sc != NULL);
    if (!sc) return 0;
    cr_status st = cr_scenario_check(sc, &err);
    if (st != CR_OK) fprintf(stderr, "check: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_sim *sim = st == CR_OK ? cr_sim_create_scenario(sc, &err) : NULL;
    if (st == CR_OK && !sim) fprintf(stderr, "create: %s\n", err.message);
    CHECK(sim != NULL);
    if (sim) {
        cr_stage_callbacks cb = {.on_output = on_output, .user = r};
        cr_dynamic_report rep;
        memset(&rep, 0, sizeof rep);
        st = sim->f->dynamic_stage(sim, 0, 0.0, 0.0, 0.0, &sc->stages[0].dynamics, &cb, &rep, &err);
        if (st != CR_OK) fprintf(stderr, "run: %s\n", err.message);
        CHECK(st == CR_OK);
    }
    cr_sim_destroy(sim);
    cr_scenario_destroy(sc);
    return st == CR_OK;
}

static double arm_inertia(void)
{
    const double A = M_PI * RADIUS * RADIUS, Iz = M_PI * pow(RADIUS, 4) / 4;
    return RHO * A * pow(LEN, 3) * (1.0 / 3 + 1.0 / (6.0 * K_EL * K_EL)) + RHO * Iz * LEN;
}

/* the mean period of y's zero crossings after t0 (two a period; linear interpolation) */
static double period(const rec *r, const double *y, double t0, int *crossings)
{
    double first = NAN, last = NAN;
    int n = 0;
    for (int i = 1; i < r->n; ++i)
        if (r->t[i] > t0 && ((y[i - 1] < 0 && y[i] >= 0) || (y[i - 1] >= 0 && y[i] < 0))) {
            const double tc = r->t[i - 1] + (r->t[i] - r->t[i - 1]) * (-y[i - 1]) / (y[i] - y[i - 1]);
            if (n == 0) first = tc;
            last = tc, ++n;
        }
    *crossings = n;
    return n > 1 ? 2 * (last - first) / (n - 1) : NAN;
}

/* the largest spread of the balance after t0 */
static double band(const rec *r, double t0)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < r->n; ++i)
        if (r->t[i] >= t0) lo = fmin(lo, r->balance[i]), hi = fmax(hi, r->balance[i]);
    return hi - lo;
}

static double tip_distance(const rec *a, const rec *b)
{
    double d = 0;
    CHECK(a->n == b->n);
    for (int i = 0; i < a->n && i < b->n; ++i)
        d = fmax(d, cr_v3_norm(cr_v3_sub(cr_v3(a->tipx[i], a->tipy[i], a->tipz[i]),
                                         cr_v3(b->tipx[i], b->tipy[i], b->tipz[i]))));
    return d;
}

#define KICK                                                                                                           \
    "{\"type\": \"force\", \"node\": \"arm:end\", \"value\": [0, 20, 0], \"time\": {\"type\": \"sine\", "              \
    "\"frequency\": 25, \"amplitude\": 1, \"t0\": 0, \"t1\": 0.02}}"

static rec ra, rb; /* (large: static) */

static void spring(void)
{
    static char json[4096];
    const double k = 25.8, I = arm_inertia(), T = 2 * M_PI * sqrt(I / k);
    const char *joint = "{\"type\": \"hinge\", \"name\": \"knee\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
                        "\"axis\": [0, 0, 1], \"stiffness\": 25.8}";
    memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
    ra.axis = rb.axis = cr_v3(0, 0, 1);
    scenario(json, sizeof json, 1, joint, KICK, 0.9, 3.125e-6);
    if (!run(json, &ra)) return;
    scenario(json, sizeof json, 0, joint, KICK, 0.9, 0);
    if (!run(json, &rb)) return;
    int na, nb;
    const double Ta = period(&ra, ra.tipy, 0.03, &na), Tb = period(&rb, rb.tipy, 0.03, &nb);
    const double amp = fabs(ra.tipy[(int)(0.25 * T / 0.001)]);
    const double d = tip_distance(&ra, &rb), E = band(&ra, 0.03);
    printf("  spring: period %.8g s (%d crossings), 2 pi sqrt(I/k) = %.8g s: %+.2e; mixed %.8g s (%+.2e); tip "
           "within %.2e m of the mixed rod's (amplitude %.3g m); balance band %.2e J; dissipated %g\n",
           Ta, na, T, Ta / T - 1, Tb, Tb / T - 1, d, amp, E, ra.dissipated[ra.n - 1]);
    CHECK(na >= 2 && nb >= 2);
    CHECK(fabs(Ta / T - 1) < 5e-4);  /* measured 4.7e-5 (the arm's bending in series with k) */
    CHECK(fabs(Ta / Tb - 1) < 1e-4); /* measured 1.5e-5 */
    CHECK(amp > 0.015);
    CHECK(d < 2e-3 * amp); /* measured 2.4e-4 of it */
    CHECK(E < 1e-6 * 0.0196);
    CHECK(ra.dissipated[ra.n - 1] == 0 && ra.drives[ra.n - 1] == 0);
}

static void damper(void)
{
    static char json[4096];
    const double k = 25.8, c = 0.2, I = arm_inertia(), wn = sqrt(k / I), z = c / (2 * sqrt(k * I));
    const double ratio = exp(-2 * M_PI * z / sqrt(1 - z * z));
    const char *joint = "{\"type\": \"hinge\", \"name\": \"knee\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
                        "\"axis\": [0, 0, 1], \"stiffness\": 25.8, \"damping\": 0.2}";
    memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
    ra.axis = rb.axis = cr_v3(0, 0, 1);
    scenario(json, sizeof json, 1, joint, KICK, 1.05, 3.125e-6);
    if (!run(json, &ra)) return;
    scenario(json, sizeof json, 0, joint, KICK, 1.05, 0);
    if (!run(json, &rb)) return;
    /* the first two positive peaks (a parabola through the three samples about each) */
    double pk[2] = {0, 0};
    int np = 0;
    for (int i = 1; i + 1 < ra.n && np < 2; ++i) {
        const double *y = ra.tipy;
        if (ra.t[i] > 0.03 && y[i] > 0 && y[i] > y[i - 1] && y[i] >= y[i + 1]) {
            const double a = 0.5 * (y[i - 1] - 2 * y[i] + y[i + 1]), b = 0.5 * (y[i + 1] - y[i - 1]);
            pk[np++] = y[i] - b * b / (4 * a);
        }
    }
    const double E = band(&ra, 0.03), Da = ra.dissipated[ra.n - 1], Db = rb.dissipated[rb.n - 1];
    printf("  damper: peaks' ratio %.6f, exp(-zeta w_n T_d) = %.6f (zeta %.4f, w_n %.4f rad/s); dissipated %.8g J "
           "(mixed %.8g J); balance band %.2e J\n",
           pk[1] / pk[0], ratio, z, wn, Da, Db, E);
    CHECK(np == 2);
    CHECK(fabs(pk[1] / pk[0] / ratio - 1) < 1e-3); /* measured 1e-4 */
    CHECK(Da > 0.005 && fabs(Da / Db - 1) < 1e-3); /* measured 2e-5 */
    CHECK(E < 1e-6 * Da);                          /* measured 1.5e-11 J */
}

/* A ball joint's isotropic spring and damper (the mixed rod's: energy ½ k sin²ψ, the damper on
 * the rate of sin ψ n), the arm kicked sideways and up and twisted: it swings about both normal
 * axes at the damped frequency of the hinge's torsion pendulum (the same I about both), as the
 * mixed rod; the energy balance with the dampers' dissipation */
static void ball(void)
{
    static char json[4096];
    const double k = 25.8, c = 0.1, I = arm_inertia(), z = c / (2 * sqrt(k * I));
    const double T = 2 * M_PI * sqrt(I / k) / sqrt(1 - z * z);
    const char *joint = "{\"type\": \"ball\", \"name\": \"knee\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
                        "\"stiffness\": 25.8, \"damping\": 0.1}";
    const char *kick =
        "{\"type\": \"force\", \"node\": \"arm:end\", \"value\": [0, 20, 10], \"time\": {\"type\": "
        "\"sine\", \"frequency\": 25, \"amplitude\": 1, \"t0\": 0, \"t1\": 0.02}}, {\"type\": \"moment\", "
        "\"node\": \"arm:end\", \"value\": [1, 0, 0], \"time\": {\"type\": \"sine\", \"frequency\": 25, "
        "\"amplitude\": 1, \"t0\": 0, \"t1\": 0.02}}";
    memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
    scenario(json, sizeof json, 1, joint, kick, 0.9, 3.125e-6);
    if (!run(json, &ra)) return;
    scenario(json, sizeof json, 0, joint, kick, 0.9, 0);
    if (!run(json, &rb)) return;
    int ny, nz, nb;
    const double Ty = period(&ra, ra.tipy, 0.03, &ny), Tz = period(&ra, ra.tipz, 0.03, &nz),
                 Tb = period(&rb, rb.tipy, 0.03, &nb);
    const double d = tip_distance(&ra, &rb), E = band(&ra, 0.03), Da = ra.dissipated[ra.n - 1],
                 Db = rb.dissipated[rb.n - 1];
    double amp = 0;
    for (int i = 0; i < ra.n; ++i) amp = fmax(amp, hypot(ra.tipy[i], ra.tipz[i]));
    printf(
        "  ball: periods %.8g s (y), %.8g s (z), damped 2 pi sqrt(I/k) = %.8g s: %+.2e, %+.2e; mixed %.8g s; tip "
        "within %.2e m of the mixed rod's (amplitude %.3g m); dissipated %.8g J (mixed %.8g J); balance band %.2e J\n",
        Ty, Tz, T, Ty / T - 1, Tz / T - 1, Tb, d, amp, Da, Db, E);
    CHECK(ny >= 2 && nz >= 2 && nb >= 2);
    CHECK(fabs(Ty / T - 1) < 1e-3 && fabs(Tz / T - 1) < 1e-3);
    CHECK(fabs(Ty / Tb - 1) < 1e-4);
    CHECK(amp > 0.015 && d < 2e-3 * amp);
    CHECK(Da > 0.01 && fabs(Da / Db - 1) < 1e-3);
    CHECK(E < 1e-6 * Da);
}

static void slide(void)
{
    static char json[4096];
    const double ks = 774.0, A = M_PI * RADIUS * RADIUS;
    /* the whole arm slides (its node at the joint too) */
    const double m = RHO * A * LEN, T = 2 * M_PI * sqrt(m / ks);
    const char *joint = "{\"type\": \"prismatic\", \"name\": \"slider\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
                        "\"axis\": [1, 0, 0], \"stiffness\": 774}";
    const char *kick = "{\"type\": \"force\", \"node\": \"arm:end\", \"value\": [200, 0, 0], \"time\": {\"type\": "
                       "\"sine\", \"frequency\": 25, \"amplitude\": 1, \"t0\": 0, \"t1\": 0.02}}";
    memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
    scenario(json, sizeof json, 1, joint, kick, 0.55, 3.125e-6);
    if (!run(json, &ra)) return;
    scenario(json, sizeof json, 0, joint, kick, 0.55, 0);
    if (!run(json, &rb)) return;
    double ya[NOUT], yb[NOUT];
    for (int i = 0; i < ra.n; ++i) ya[i] = ra.tipx[i] - LEN;
    for (int i = 0; i < rb.n; ++i) yb[i] = rb.tipx[i] - LEN;
    int na, nb;
    const double Ta = period(&ra, ya, 0.03, &na), Tb = period(&rb, yb, 0.03, &nb);
    const double d = tip_distance(&ra, &rb), E = band(&ra, 0.03);
    double amp = 0;
    for (int i = 0; i < ra.n; ++i) amp = fmax(amp, fabs(ya[i]));
    printf("  slide: period %.8g s (%d crossings), 2 pi sqrt(m/k) = %.8g s: %+.2e; mixed %.8g s (%+.2e); tip within "
           "%.2e m of the mixed rod's (amplitude %.3g m); balance band %.2e J\n",
           Ta, na, T, Ta / T - 1, Tb, Tb / T - 1, d, amp, E);
    CHECK(na >= 2 && nb >= 2);
    CHECK(fabs(Ta / T - 1) < 5e-4);
    CHECK(fabs(Ta / Tb - 1) < 1e-4);
    CHECK(amp > 1e-3 && d < 2e-3 * amp);
    CHECK(E < 1e-6 * 0.5 * ks * amp * amp);
}

static void motor(void)
{
    static char json[4096];
    const double I = arm_inertia(), A = M_PI * RADIUS * RADIUS, g = 9.81, Th = M_PI / 2, t1 = 0.5;
    const char *joint = "{\"type\": \"hinge\", \"name\": \"motor\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
                        "\"axis\": [0, 1, 0], \"drive\": {\"angle\": 1.5707963267948966, \"time\": {\"type\": "
                        "\"smooth_step\", \"t0\": 0, \"t1\": 0.5}}}";
    /* gravity along the arm: it hangs in the reference (a horizontal arm released under gravity
     * would ring in bending, its root moment swinging between 0 and twice the static one) */
    const char *grav = "{\"type\": \"gravity\", \"value\": [9.81, 0, 0]}";
    memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
    ra.axis = rb.axis = cr_v3(0, 1, 0);
    scenario(json, sizeof json, 1, joint, grav, 0.7, 3.125e-6);
    if (!run(json, &ra)) return;
    scenario(json, sizeof json, 0, joint, grav, 0.7, 0);
    if (!run(json, &rb)) return;
    /* the motor's couple on b about the axis, the reaction on a's the opposite: the arm turned by
     * θ about +y (x toward −z) has the gravity moment −g sin θ ρA L²/2 about +y */
    double dev[NOUT], devb[NOUT], mmax = 0, dx = 0;
    for (int i = 0; i < ra.n; ++i) {
        const double tau = fmin(ra.t[i] / t1, 1.0);
        const double th = Th * (10 * pow(tau, 3) - 15 * pow(tau, 4) + 6 * pow(tau, 5));
        const double al = Th * (60 * tau - 180 * tau * tau + 120 * pow(tau, 3)) / (t1 * t1) * (ra.t[i] < t1);
        const double want = -(I * al + g * sin(th) * RHO * A * LEN * LEN / 2);
        mmax = fmax(mmax, fabs(want));
        dev[i] = ra.moment[i] - want, devb[i] = rb.moment[i] - want;
        /* the turn: the arm's tip at θ */
        dx = fmax(dx, hypot(ra.tipx[i] - LEN * cos(th), ra.tipz[i] + LEN * sin(th)));
    }
    /* The motor's start and stop jerk (its third derivative jumps by 60 Θ/t1³) ring the arm's
     * first bending mode about the driven hinge (~110 Hz): an undamped ripple of ~I θ‴/ω ≈ 0.4 N m
     * on the couple, in both models. The rigid arm's balance holds for the mean over 25 ms
     * windows (about three of its periods). */
    double dm = 0, dmb = 0, ripple = 0;
    const int w = 25;
    for (int i = 0; i + w <= ra.n; ++i) {
        double m = 0, mb = 0;
        for (int q = i; q < i + w; ++q) m += dev[q] / w, mb += devb[q] / w;
        dm = fmax(dm, fabs(m)), dmb = fmax(dmb, fabs(mb));
    }
    for (int i = 0; i < ra.n; ++i) ripple = fmax(ripple, fabs(dev[i]));
    double rippleb = 0;
    for (int i = 0; i < rb.n; ++i) rippleb = fmax(rippleb, fabs(devb[i]));
    const double W = ra.drives[ra.n - 1], Wb = rb.drives[rb.n - 1], E = band(&ra, 0);
    const double Wrig = g * RHO * A * LEN * LEN / 2; /* the motor lifts the arm by L/2, at rest at the end */
    printf("  motor: the couple's 25 ms means within %.3g N m of I alpha + the gravity moment (peak %.3g N m; the "
           "mixed rod's %.3g), its ripple %.3g N m (the mixed rod's %.3g); tip within %.2e m of the prescribed turn; "
           "work_drives %.8g J "
           "(mixed %.8g J, rigid %.8g J); balance band %.2e J; the mixed tip within %.2e m\n",
           dm, mmax, dmb, ripple, rippleb, dx, W, Wb, Wrig, E, tip_distance(&ra, &rb));
    CHECK(dm < 0.01 * mmax);
    CHECK(ripple < 0.05 * mmax);
    CHECK(dx < 1e-4);
    CHECK(fabs(W / Wb - 1) < 1e-4);
    CHECK(fabs(W / Wrig - 1) < 2e-3);
    CHECK(E < 1e-6 * fabs(W));
    CHECK(tip_distance(&ra, &rb) < 1e-4);
}

/* A controller in the loop (cr_sim_set_joint_drive_input, Python's Sample.set_drive): a hinge
 * motor of 1 rad along a smooth step over 0.2 s, its input set to 2 at the output t = 0.3 s: the
 * hinge's turn follows the mixed and port-Hamiltonian assemblies' C¹ cubic to 2 rad at the next
 * output (0.35 s), then from there at the secant rate back to 2 rad at 0.4 s */
static void controller(void)
{
    static char json[4096];
    const char *joint =
        "{\"type\": \"hinge\", \"name\": \"motor\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
        "\"axis\": [0, 0, 1], \"drive\": {\"angle\": 1, \"time\": {\"type\": \"smooth_step\", \"t0\": 0, "
        "\"t1\": 0.2}}}";
    const char *none = "{\"type\": \"moment\", \"node\": \"arm:end\", \"value\": [0, 0, 0]}";
    memset(&ra, 0, sizeof ra);
    scenario(json, sizeof json, 1, joint, none, 0.4, 3.125e-6);
    char *o = strstr(json, "\"output_dt\": 0.001"); /* outputs every 0.05 s: the input's ramp */
    if (o) memcpy(o, "\"output_dt\": 0.050", strlen("\"output_dt\": 0.050"));
    control_t = 0.3, control_u = 2;
    const int ok = run(json, &ra);
    control_t = -1, control_u = 1;
    if (!ok) return;
    printf("  controller: the hinge's turn at t = 0.2, 0.3, 0.35, 0.4 s: %.9f %.9f %.9f %.9f rad; want 1, 1, 2, 2\n",
           ra.turn[4], ra.turn[6], ra.turn[7], ra.turn[8]);
    CHECK(ra.n == 9);
    const double want[4] = {1, 1, 2, 2};
    const int at[4] = {4, 6, 7, 8};
    for (int i = 0; i < 4; ++i) CHECK(fabs(ra.turn[at[i]] - want[i]) < 1e-6);
}

/* A hinge stop at 4 rad (beyond π: φ unwrapped) with the penalty 1000 N m/rad, the arm turned
 * from rest by a tip moment T = 10 N m: the rigid arm reaches the stop with T · 4 of kinetic
 * energy and penetrates p with ½ k p² = T (4 + p), p = 0.2930 rad (the arm's bending adds a
 * little); the mixed rod on the same scenario; the stop's column; the energy balance (the stop's
 * spring in energy_elastic) */
static void stop(void)
{
    static char json[4096];
    const double k = 1000, T = 10, p = (T + sqrt(T * T + 8 * k * T)) / k;
    const char *joint = "{\"type\": \"hinge\", \"name\": \"stop\", \"a\": \"pivot:end\", \"b\": \"arm:start\", "
                        "\"axis\": [0, 0, 1], \"limit\": [-1, 4], \"limit_stiffness\": 1000}";
    const char *load = "{\"type\": \"moment\", \"node\": \"arm:end\", \"value\": [0, 0, 10]}";
    memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
    scenario(json, sizeof json, 1, joint, load, 0.7, 3.125e-6);
    if (!run(json, &ra)) return;
    mixed_tol = "\"rtol\": 1e-6, \"atol\": 1e-8";
    scenario(json, sizeof json, 0, joint, load, 0.7, 0);
    mixed_tol = "\"rtol\": 1e-8, \"atol\": 1e-10";
    if (!run(json, &rb)) return;
    double th[2] = {0, 0}, fmx[2] = {0, 0}, pressed[2] = {0, 0};
    for (int m = 0; m < 2; ++m) {
        const rec *r = m ? &rb : &ra;
        double last = 0;
        for (int i = 0; i < r->n; ++i) {
            last += remainder(atan2(r->tipy[i], r->tipx[i]) - last, 2 * M_PI); /* the arm's turn, unwrapped */
            th[m] = fmax(th[m], last);
            fmx[m] = fmax(fmx[m], r->stop_force[i]), pressed[m] += r->pressing[i];
        }
    }
    const double E = band(&ra, 0);
    printf("  stop: penetration %.5f rad (mixed %.5f, rigid %.5f), the stop's force up to %.4g N m (mixed %.4g, k p = "
           "%.4g), pressing in %g outputs (mixed %g); balance band %.2e J of T 4 = %g J\n",
           th[0] - 4, th[1] - 4, p, fmx[0], fmx[1], k * p, pressed[0], pressed[1], E, 4 * T);
    CHECK(fabs(th[0] - 4 - p) < 0.01 * p); /* measured +2.7e-3 of it */
    CHECK(fabs(th[0] - th[1]) < 3e-3 * p); /* measured 3.3e-4 rad: 1.1e-3 of p */
    CHECK(fabs(fmx[0] - fmx[1]) < 0.01 * fmx[1]);
    CHECK(fabs(fmx[0] / (k * p) - 1) < 0.01);
    CHECK(pressed[0] > 20 && fabs(pressed[0] - pressed[1]) <= 2);
    CHECK(E < 1e-5 * 4 * T);
}

/* the keys the lgvi assemblies still refuse: named with the model */
static void refusals(void)
{
    static char json[4096];
    const char *joints[] = {
        "{\"type\": \"cylindrical\", \"a\": \"pivot:end\", \"b\": \"arm:start\", \"axis\": [1, 0, 0], "
        "\"slide_stiffness\": 3, "
        "\"slide_rest\": 0.01}",
        "{\"type\": \"hinge\", \"a\": \"pivot:end\", \"b\": \"arm:start\", \"axis\": [0, 0, 1], \"stages\": [0]}",
        "{\"type\": \"hinge\", \"a\": \"pivot:end\", \"b\": \"arm:start\", \"axis\": [0, 0, 1], \"stiffness\": 3, "
        "\"rest\": 0.2}",
    };
    const char *keys[] = {"joints.0.slide_rest", "joints.0.stages", "joints.0.rest"};
    for (int k = 0; k < 3; ++k) {
        scenario(json, sizeof json, 1, joints[k], KICK, 0.1, 3.125e-6);
        cr_error err = {0};
        cr_scenario *sc = NULL;
        cr_status st = cr_scenario_load_string(json, NULL, 0, &sc, &err);
        if (st == CR_OK) st = cr_scenario_check(sc, &err);
        printf("  refused: %s\n", err.message);
        CHECK(st != CR_OK);
        CHECK(strstr(err.message, keys[k]) != NULL);
        CHECK(strstr(err.message, "lgvi") != NULL);
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(spring), CASE(damper), CASE(ball), CASE(slide), CASE(motor), CASE(controller), CASE(stop),
           CASE(refusals))
