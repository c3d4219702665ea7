/* Dynamics of the mixed discrete rod against independent references: the first
 * bending frequency of a cantilever (Euler–Bernoulli), conservation of linear and
 * angular momentum of a free rod, and a restarted integration (from the step size,
 * and from a checkpoint with the integrator memory) matching an uninterrupted one. */
#include "check.h"
#include "cosserat/dynamics.h"
#include "cosserat/statics.h"

#include <stdlib.h>
#include <string.h>

typedef struct samples {
    int count, cap;
    double *t, *y;
} samples;

static int record_tip(const cr_model *m, const cr_state *s, const cr_dynamic_sample *smp, void *user)
{
    samples *rec = user;
    if (rec->count == rec->cap) {
        rec->cap = rec->cap ? 2 * rec->cap : 1024;
        rec->t = realloc(rec->t, rec->cap * sizeof(double));
        rec->y = realloc(rec->y, rec->cap * sizeof(double));
    }
    rec->t[rec->count] = smp->t;
    rec->y[rec->count++] = cr_state_position(s, cr_model_node_count(m) - 1).y;
    return 0;
}

/* steel cantilever, L = 1 m, r = 1 cm: a small static tip force (stage 0), released (stage 1) */
static void test_cantilever_frequency(void)
{
    const double E = 2.1e11, G = 8.1e10, rho = 7850, r = 0.01, L = 1.0;
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = r;
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, 1.0, 0), tip.stages = 1u; /* stage 0 only */
    cr_bc_def clamp = cr_bc_default_def();
    cr_rod_def d = cr_rod_default_def();
    d.length = L, d.elements = 50, d.material = (cr_material){E, G, rho};
    d.sections = &sec, d.section_count = 1, d.loads = &tip, d.load_count = 1, d.bcs = &clamp, d.bc_count = 1;
    cr_error err = {0};
    cr_model *m = cr_model_create(&d, &err);
    cr_state *s = cr_state_create(m);
    CHECK(cr_static_solve(m, s, NULL, NULL, NULL, NULL, &err) == CR_OK);
    double y0 = cr_state_position(s, 50).y;
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.35; /* five periods */
    o.output_dt = 5e-5;
    o.rtol = 1e-6;
    o.atol = 1e-10;
    samples rec = {0};
    cr_dynamic_report rep;
    cr_status st = cr_dynamic_solve(m, s, 1, 0.0, 0.0, 0.0, &o, record_tip, NULL, &rec, &rep, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CR_OK);
    /* upward zero crossings of the tip deflection, linearly interpolated */
    double first = -1, last = -1;
    int crossings = 0;
    for (int k = 1; k < rec.count; ++k)
        if (rec.y[k - 1] < 0 && rec.y[k] >= 0) {
            double tc = rec.t[k - 1] + (rec.t[k] - rec.t[k - 1]) * (-rec.y[k - 1]) / (rec.y[k] - rec.y[k - 1]);
            if (first < 0) first = tc;
            last = tc;
            ++crossings;
        }
    double I = M_PI * pow(r, 4) / 4, A = M_PI * r * r;
    double f_eb = 1.8751040687 * 1.8751040687 / (2 * M_PI * L * L) * sqrt(E * I / (rho * A));
    double f = (crossings - 1) / (last - first);
    printf("  cantilever n=50: f1 = %.5f Hz, Euler-Bernoulli %.5f Hz, rel. error %.2e (y0 = %.3e m, %ld steps, "
           "%ld rejected, %ld Jacobians)\n",
           f, f_eb, f / f_eb - 1, y0, rep.steps, rep.rejected, rep.jacobians);
    CHECK(crossings >= 4);
    CHECK(fabs(f / f_eb - 1) < 0.005);
    free(rec.t);
    free(rec.y);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* momenta of a free rod: linear Σ m_i v_i, angular Σ r_i × m_i v_i + A_i Θ_i Ω_i */
static cr_model *free_rod_n(int n)
{
    static cr_section_segment sec;
    sec = cr_section_default_def();
    sec.radius[0] = 0.02, sec.radius[1] = 0.01;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.0, d.elements = n, d.material = (cr_material){1e6, 4e5, 1000};
    d.sections = &sec, d.section_count = 1;
    d.reference.type = CR_REFERENCE_HELIX, d.reference.helix_radius = 0.2, d.reference.helix_pitch = 0.1;
    return cr_model_create(&d, NULL);
}

static cr_model *free_rod(void) { return free_rod_n(20); }

static void set_motion(const cr_model *m, cr_state *s)
{
    for (int i = 0; i < cr_model_node_count(m); ++i) {
        double si = cr_model_node_s(m, i);
        cr_vec3 r = cr_state_position(s, i);
        cr_vec3 w = cr_v3(0.3, -0.5, 1.0); /* rigid spin plus a bending/stretching wave */
        cr_vec3 v = cr_v3_add(cr_v3_cross(w, r), cr_v3(0.1 * sin(3 * si), 0.2, -0.3 * cos(2 * si)));
        cr_state_set_velocity(s, i, v, cr_v3(0.5 * sin(si), 1.0, -0.2));
    }
}

typedef struct energies {
    double first, last;
    int count;
} energies;

static int record_energy(const cr_model *m, const cr_state *s, const cr_dynamic_sample *smp, void *user)
{
    energies *e = user;
    double E = smp->kinetic + smp->elastic;
    if (e->count++ == 0) e->first = E;
    e->last = E;
    return 0;
}

static void free_rod_drift(int n, double rtol, double *dp_rel, double *dh_rel, double *de_rel)
{
    cr_model *m = free_rod_n(n);
    cr_state *s = cr_state_create(m);
    set_motion(m, s);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.5, o.output_dt = 0.5, o.rtol = rtol, o.atol = 1e-3 * rtol;
    energies en = {0};
    /* linear and angular momentum need the lumped masses: m_i = ρ A_i L_i */
    int nn = cr_model_node_count(m);
    double *mass = malloc(nn * sizeof *mass);
    for (int i = 0; i < nn; ++i) {
        double Li = 0;
        if (i > 0) Li += 0.5 * cr_v3_norm(cr_v3_sub(cr_model_reference_position(m, i), cr_model_reference_position(m, i - 1)));
        if (i < nn - 1) Li += 0.5 * cr_v3_norm(cr_v3_sub(cr_model_reference_position(m, i + 1), cr_model_reference_position(m, i)));
        double r = 0.02 + (0.01 - 0.02) * cr_model_node_s(m, i) / cr_model_length(m);
        mass[i] = 1000 * M_PI * r * r * Li;
    }
    double P0[3] = {0}, P1[3] = {0}, H0[3] = {0}, H1[3] = {0};
    for (int pass = 0; pass < 2; ++pass) {
        double *P = pass ? P1 : P0, *H = pass ? H1 : H0;
        for (int i = 0; i < nn; ++i) {
            cr_vec3 v = cr_state_velocity(s, i), r = cr_state_position(s, i);
            cr_vec3 om = cr_state_angular_velocity(s, i);
            double ri = 0.02 + (0.01 - 0.02) * cr_model_node_s(m, i) / cr_model_length(m);
            double Li = mass[i] / (1000 * M_PI * ri * ri), Ip = 1000 * Li * M_PI * pow(ri, 4) / 4;
            cr_vec3 Theta_om = cr_v3(2 * Ip * om.x, Ip * om.y, Ip * om.z);
            cr_vec3 h = cr_v3_add(cr_v3_scale(cr_v3_cross(r, v), mass[i]),
                                  cr_m3_mulv(cr_q_exp(cr_state_orientation(s, i)), Theta_om));
            for (int k = 0; k < 3; ++k) P[k] += mass[i] * cr_v3_get(v, k), H[k] += cr_v3_get(h, k);
        }
        if (pass == 0) {
            cr_error err = {0};
            cr_dynamic_report rep;
            CHECK(cr_dynamic_solve(m, s, 0, 0.0, 0.0, 0.0, &o, record_energy, NULL, &en, &rep, &err) == CR_OK);
            printf("  free rod: %ld steps, %ld rejected, energy %.6g J -> %.6g J (relative drift %.2e)\n", rep.steps,
                   rep.rejected, en.first, en.last, (en.last - en.first) / en.first);
            *de_rel = (en.last - en.first) / en.first;
        }
    }
    double pn = sqrt(P0[0] * P0[0] + P0[1] * P0[1] + P0[2] * P0[2]);
    double hn = sqrt(H0[0] * H0[0] + H0[1] * H0[1] + H0[2] * H0[2]);
    double dp = 0, dh = 0;
    for (int k = 0; k < 3; ++k) dp = fmax(dp, fabs(P1[k] - P0[k])), dh = fmax(dh, fabs(H1[k] - H0[k]));
    printf("  free rod n=%d rtol=%.0e: |dP|/|P| = %.2e, |dH|/|H| = %.2e\n", n, rtol, dp / pn, dh / hn);
    *dp_rel = dp / pn;
    *dh_rel = dh / hn;
    free(mass);
    cr_state_destroy(s);
    cr_model_destroy(m);
}

/* Linear momentum is conserved exactly by the discrete equations (internal forces
 * cancel pairwise), so only the integrator error remains. Angular momentum is not: the
 * element moment m acts on both nodes in their own bases (eq. 20), which balances the
 * moment of the element forces only up to O(L_el²). Its drift is therefore a
 * discretization error that falls as n⁻², independent of the tolerance. */
static void test_free_rod_momentum(void)
{
    double dp[3], dh[3], de[3];
    free_rod_drift(10, 1e-6, &dp[0], &dh[0], &de[0]);
    free_rod_drift(20, 1e-6, &dp[1], &dh[1], &de[1]);
    free_rod_drift(20, 1e-8, &dp[2], &dh[2], &de[2]);
    /* Energy: W_c is not the gradient of the elastic energy (spec §7.4), so the discrete
     * internal forces are not exactly conservative either; the drift is a discretization
     * error (it falls fast with n and does not depend on the tolerance). */
    printf("  energy drift over 0.5 s: %.2e (n=10), %.2e (n=20), %.2e (n=20, rtol 1e-8)\n", de[0], de[1], de[2]);
    CHECK(fabs(de[1]) < 0.25 * fabs(de[0]));
    CHECK(fabs(de[2] - de[1]) < 0.05 * fabs(de[1]));
    for (int k = 0; k < 3; ++k) CHECK(dp[k] < 1e-12);
    double order = log(dh[0] / dh[1]) / log(2.0);
    printf("  angular momentum drift order in n: %.2f; tolerance 1e-6 -> 1e-8 changes it by %.2e (relative)\n", order,
           fabs(dh[2] - dh[1]) / dh[1]);
    CHECK(order > 1.8 && order < 2.3);
    CHECK(fabs(dh[2] - dh[1]) < 0.05 * dh[1]);
}

/* 0 → T in one call vs 0 → T/2, then a restart from the state and step size */
typedef struct last_h {
    double h;
} last_h;
static int keep_h(const cr_model *m, const cr_state *s, double h, long steps, double work, void *user)
{
    ((last_h *)user)->h = h;
    return 0;
}

static void test_restart_matches(void)
{
    cr_model *m = free_rod();
    cr_state *a = cr_state_create(m), *b = cr_state_create(m);
    set_motion(m, a);
    set_motion(m, b);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.2, o.output_dt = 0.05, o.rtol = 1e-6, o.atol = 1e-8;
    cr_error err = {0};
    CHECK(cr_dynamic_solve(m, a, 0, 0.0, 0.0, 0.0, &o, NULL, NULL, NULL, NULL, &err) == CR_OK);
    cr_dynamic_options half = o;
    half.t_end = 0.1;
    last_h lh = {0};
    CHECK(cr_dynamic_solve(m, b, 0, 0.0, 0.0, 0.0, &half, NULL, keep_h, &lh, NULL, &err) == CR_OK);
    /* pack/unpack round trip, as a checkpoint does */
    double *buf = malloc(cr_state_packed_size(m) * sizeof(double));
    cr_state_pack(b, buf);
    cr_state *c = cr_state_create(m);
    cr_state_unpack(c, buf);
    CHECK(cr_dynamic_solve(m, c, 0, 0.0, lh.h, 0.0, &o, NULL, NULL, NULL, NULL, &err) == CR_OK);
    double worst = 0, scale = 0;
    for (int i = 0; i < cr_model_node_count(m); ++i) {
        worst = fmax(worst, cr_v3_norm(cr_v3_sub(cr_state_position(a, i), cr_state_position(c, i))));
        scale = fmax(scale, cr_v3_norm(cr_v3_sub(cr_state_position(a, i), cr_model_reference_position(m, i))));
    }
    printf("  restart: max position difference %.2e (motion %.2e m), t = %.6f\n", worst, scale, cr_state_time(c));
    CHECK_NEAR(cr_state_time(c), 0.2, 1e-12);
    CHECK(worst < 1e-5 * scale);
    free(buf);
    cr_state_destroy(a);
    cr_state_destroy(b);
    cr_state_destroy(c);
    cr_model_destroy(m);
}

/* A checkpoint with the integrator memory: interrupted after `stop_at` steps, packed
 * (state + memory), unpacked into a fresh state and resumed, the stage takes the
 * steps of the uninterrupted one and its statistics cover the whole stage. */
typedef struct stopper {
    long stop_at;
} stopper;
static int stop_after(const cr_model *m, const cr_state *s, double h, long steps, double work, void *user)
{
    return steps >= ((stopper *)user)->stop_at;
}

static void test_resume_memory(void)
{
    cr_model *m = free_rod();
    cr_state *a = cr_state_create(m), *b = cr_state_create(m), *c = cr_state_create(m);
    set_motion(m, a);
    set_motion(m, b);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 0.2, o.output_dt = 0.05, o.rtol = 1e-6, o.atol = 1e-8;
    cr_error err = {0};
    int nm = cr_dynamic_memory_size(m), ns = cr_state_packed_size(m);
    double *mem_a = calloc(nm, sizeof(double)), *mem_b = calloc(nm, sizeof(double));
    double *ckpt = calloc(ns + nm, sizeof(double)), *mem_c = calloc(nm, sizeof(double));
    cr_dynamic_report ra, rb, rc;
    CHECK(cr_dynamic_solve_memory(m, a, 0, 0.0, 0.0, 0.0, &o, NULL, NULL, NULL, mem_a, &ra, &err) == CR_OK);
    stopper sp = {ra.steps / 3};
    CHECK(cr_dynamic_solve_memory(m, b, 0, 0.0, 0.0, 0.0, &o, NULL, stop_after, &sp, mem_b, &rb, &err) ==
          CR_INTERRUPTED);
    CHECK(rb.steps == sp.stop_at);
    /* the checkpoint: state and memory as doubles, read back into fresh objects */
    cr_state_pack(b, ckpt);
    memcpy(ckpt + ns, mem_b, nm * sizeof(double));
    cr_state_unpack(c, ckpt);
    memcpy(mem_c, ckpt + ns, nm * sizeof(double));
    CHECK(cr_dynamic_solve_memory(m, c, 0, 0.0, 0.0, 0.0, &o, NULL, NULL, NULL, mem_c, &rc, &err) == CR_OK);
    double worst = 0, scale = 0;
    for (int i = 0; i < cr_model_node_count(m); ++i) {
        worst = fmax(worst, cr_v3_norm(cr_v3_sub(cr_state_position(a, i), cr_state_position(c, i))));
        scale = fmax(scale, cr_v3_norm(cr_v3_sub(cr_state_position(a, i), cr_model_reference_position(m, i))));
    }
    printf("  memory resume after %ld of %ld steps: %ld steps (%ld rejected) vs %ld (%ld), max position "
           "difference %.2e (motion %.2e m)\n",
           sp.stop_at, ra.steps, rc.steps, rc.rejected, ra.steps, ra.rejected, worst, scale);
    /* the restarted integrator evaluates a fresh Jacobian where the uninterrupted one may
     * reuse an older one (radau.h): Newton counts, and so the step sizes, differ a little
     * (a few % of this 1000-step run at any cut point; a restart from h alone can need
     * orders of magnitude more, see tests/resume.sh) */
    CHECK(labs(rc.steps - ra.steps) <= 0.03 * ra.steps + 2);
    CHECK(rc.newton_iterations >= rb.newton_iterations); /* the counters include the run before */
    CHECK_NEAR(rc.t_start, 0.0, 0.0);
    CHECK_NEAR(cr_state_time(c), 0.2, 1e-12);
    CHECK(worst < 1e-7 * scale);
    /* a memory of another stage is not used: a plain start, counters from zero */
    cr_state_unpack(c, ckpt);
    memcpy(mem_c, ckpt + ns, nm * sizeof(double));
    CHECK(cr_dynamic_solve_memory(m, c, 1, 0.0, 0.0, 0.0, &o, NULL, NULL, NULL, mem_c, &rc, &err) == CR_OK);
    CHECK(rc.steps < ra.steps);
    free(mem_a), free(mem_b), free(mem_c), free(ckpt);
    cr_state_destroy(a), cr_state_destroy(b), cr_state_destroy(c);
    cr_model_destroy(m);
}

CHECK_MAIN(CASE(test_cantilever_frequency), CASE(test_free_rod_momentum), CASE(test_restart_matches),
           CASE(test_resume_memory))
