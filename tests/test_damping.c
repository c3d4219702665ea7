#define _POSIX_C_SOURCE 200809L
/* Damping of the mixed discrete rod (rod.damping) and the shear coefficient of shape
 * sections, each against an independent reference: central differences (Jacobian,
 * strain rate), the Kelvin–Voigt single-mode decrement, the energy balance, Cowper's
 * coefficient and Timoshenko's cantilever deflection, and the parser's messages. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "fd_jacobian.h"
#include "mixed/mixed.h"
#include "scenario_run.h"

#include <stdlib.h>
#include <string.h>

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

/* ---- the damped dynamic residual ---- */

typedef struct dyn_fd {
    const cr_model *m;
    const double *scale;
} dyn_fd;

static void dyn_residual(void *ctx, const double *y, double *F, cr_blocktri *J)
{
    const dyn_fd *c = ctx;
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    CHECK(cr_mixed_dynamic_residual(c->m, &at, c->scale, y, F, J) == CR_OK);
}

/* A helical rod with a welded body (node-local mass matrix) and a clamp, loads, and
 * damping on every strain component plus anisotropic drag. */
static cr_model *damped_helix(const cr_damping_def *damping)
{
    static cr_section_segment sec;
    sec = cr_section_default_def();
    sec.radius[0] = 0.05, sec.radius[1] = 0.03;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.3;
    d.elements = 5;
    d.material = (cr_material){2.0e3, 0.8e3, 900};
    d.sections = &sec;
    d.section_count = 1;
    d.reference.type = CR_REFERENCE_HELIX;
    d.reference.helix_radius = 0.3;
    d.reference.helix_pitch = 0.1;
    static cr_rigid_body_def body;
    body = cr_rigid_body_default_def();
    body.node = 0;
    body.mass = 0.7;
    body.center = cr_v3(0.05, -0.02, 0.1);
    body.inertia = (cr_mat3){{{0.02, 0.001, 0}, {0.001, 0.03, 0.002}, {0, 0.002, 0.025}}};
    d.rigid_bodies = &body;
    d.rigid_body_count = 1;
    static cr_load_def l[2];
    l[0] = cr_load_default_def(), l[1] = cr_load_default_def();
    l[0].type = CR_LOAD_GRAVITY, l[0].value = cr_v3(0, 0, -9.81);
    l[1].type = CR_LOAD_MOMENT, l[1].node = 3, l[1].value = cr_v3(0.1, 0.2, -0.3);
    d.loads = l;
    d.load_count = 2;
    static cr_bc_def bc;
    bc = cr_bc_default_def();
    bc.node = -1;
    d.bcs = &bc;
    d.bc_count = 1;
    d.damping = *damping;
    cr_error err = {0};
    cr_model *m = cr_model_create(&d, &err);
    if (!m) fprintf(stderr, "%s\n", err.message);
    return m;
}

static void random_state(const cr_model *m, double *y)
{
    for (int i = 0; i < cr_model_node_count(m); ++i) {
        double *yi = y + (size_t)i * CR_DYN_BLOCK;
        cr_v3_store(cr_v3_add(cr_model_reference_position(m, i), cr_v3(0.05 * urand(), 0.05 * urand(), 0.05 * urand())),
                    yi);
        cr_quat q = cr_model_reference_orientation(m, i);
        cr_q_store(cr_q_add(q, cr_q(0.1 * urand(), 0.1 * urand(), 0.1 * urand(), 0.1 * urand())), yi + 3);
        for (int k = CR_DYN_V; k < CR_DYN_BLOCK; ++k) yi[k] = urand();
    }
}

/* dF/dy of the damped residual (hyper-dual strain-rate rows, analytic drag) against central differences */
static void damped_jacobian(void)
{
    srand(7);
    cr_damping_def dt = {.relaxation_time = {0.011, 0.023, 0.017, 0.031, 0.005, 0.013},
                         .drag = {0.4, 1.3, 0.9},
                         .rotational_drag = {0.02, 0.05, 0.03}};
    cr_damping_def dc = {.coefficients = {30, 7, 12, 0.002, 0.004, 0.001}, .drag = {2.0, 2.0, 2.0}};
    const cr_damping_def *cases[2] = {&dt, &dc};
    for (int c = 0; c < 2; ++c) {
        cr_model *m = damped_helix(cases[c]);
        CHECK(m != NULL);
        if (!m) return;
        int nb = cr_model_node_count(m), N = nb * CR_DYN_BLOCK;
        double *y = calloc(N, sizeof *y), scale[2] = {1.0, 0.7};
        for (int trial = 0; trial < 3; ++trial) {
            random_state(m, y);
            dyn_fd ctx = {m, scale};
            double e = fd_jacobian_error(nb, CR_DYN_BLOCK, dyn_residual, &ctx, y);
            printf("  damped dynamic Jacobian (%s) relative error %.2e\n", c == 0 ? "relaxation times" : "coefficients",
                   e);
            CHECK(e < 1e-7);
        }
        free(y);
        cr_model_destroy(m);
    }
}

/* The residual itself: the stress rows gain exactly -τ_k ε̇_k, with ε̇ the central
 * difference of the strains (eq. 7) along q + h q̇ (r' = v, p' = dExp⁺(p) Ω), and the
 * momentum rows of a free node the drag -L_i A C Aᵀ v, -L_i D Ω. */
static void damped_residual_values(void)
{
    srand(11);
    cr_damping_def zero = {0};
    cr_damping_def d = {.relaxation_time = {0.011, 0.023, 0.017, 0.031, 0.005, 0.013},
                        .drag = {0.4, 1.3, 0.9},
                        .rotational_drag = {0.02, 0.05, 0.03}};
    cr_model *m0 = damped_helix(&zero), *m = damped_helix(&d);
    CHECK(m0 && m);
    if (!m0 || !m) return;
    int nb = cr_model_node_count(m), N = nb * CR_DYN_BLOCK;
    double *y = calloc(N, sizeof *y), *F0 = calloc(N, sizeof *F0), *F = calloc(N, sizeof *F), scale[2] = {1, 1};
    random_state(m, y);
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.0, .from = NULL, .from_blend = 1.0};
    cr_mixed_dynamic_residual(m0, &at, scale, y, F0, NULL);
    cr_mixed_dynamic_residual(m, &at, scale, y, F, NULL);
    double worst = 0, h = 1e-5;
    for (int e = 0; e + 1 < nb; ++e) {
        const double *ya = y + (size_t)e * CR_DYN_BLOCK, *yb = ya + CR_DYN_BLOCK;
        double eps[2][6];
        for (int sgn = 0; sgn < 2; ++sgn) {
            double s = sgn ? h : -h;
            cr_vec3 r[2];
            cr_quat p[2];
            const double *yy[2] = {ya, yb};
            for (int k = 0; k < 2; ++k) {
                cr_quat pk = cr_q_load(yy[k] + 3);
                r[k] = cr_v3_madd(cr_v3_load(yy[k]), s, cr_v3_load(yy[k] + CR_DYN_V));
                p[k] = cr_q_add(pk, cr_q_scale(cr_q_dexp_plus(pk, cr_v3_load(yy[k] + CR_DYN_W)), s));
            }
            cr_vec3 g, kap;
            cr_element_strains(&m->el[e], r[0], p[0], r[1], p[1], &g, &kap);
            double v[6] = {g.x, g.y, g.z, kap.x, kap.y, kap.z};
            memcpy(eps[sgn], v, sizeof v);
        }
        for (int k = 0; k < 6; ++k) {
            double rate = (eps[1][k] - eps[0][k]) / (2 * h);
            double got =
                -(F[(size_t)e * CR_DYN_BLOCK + CR_DYN_LAM + k] - F0[(size_t)e * CR_DYN_BLOCK + CR_DYN_LAM + k]) /
                d.relaxation_time[k];
            worst = fmax(worst, fabs(got - rate) / (1 + fabs(rate)));
        }
    }
    printf("  Kelvin-Voigt rows vs central-difference strain rates: worst relative error %.2e\n", worst);
    CHECK(worst < 1e-7);
    /* node 2 is free and carries no body: its momentum rows are M u' = R, so F - F0 is the drag */
    int i = 2;
    const double *yi = y + (size_t)i * CR_DYN_BLOCK;
    cr_mat3 A = cr_q_exp(cr_q_load(yi + 3));
    double L = m->lumped_length[i];
    cr_vec3 w = cr_m3_tmulv(A, cr_v3_load(yi + CR_DYN_V));
    cr_vec3 f = cr_v3_scale(cr_m3_mulv(A, cr_v3_mul(d.drag, w)), -L);
    cr_vec3 mu = cr_v3_scale(cr_v3_mul(d.rotational_drag, cr_v3_load(yi + CR_DYN_W)), -L);
    double want[6] = {f.x, f.y, f.z, mu.x, mu.y, mu.z}, dworst = 0;
    for (int k = 0; k < 6; ++k) {
        double got = F[(size_t)i * CR_DYN_BLOCK + CR_DYN_V + k] - F0[(size_t)i * CR_DYN_BLOCK + CR_DYN_V + k];
        dworst = fmax(dworst, fabs(got - want[k]));
    }
    printf("  drag rows vs -L A C A^T v, -L D Omega: max error %.2e\n", dworst);
    CHECK(dworst < 1e-14);
    free(y), free(F0), free(F);
    cr_model_destroy(m0);
    cr_model_destroy(m);
}

/* ---- runs through the scenario runner ---- */

/* Runs a scenario (JSON text with single quotes allowed, or "@NAME" for examples/NAME)
 * with overrides, writing no files. */
static int run(const char *json, const char *const *sets, int nsets, cr_run_result *r, cr_error *err_out)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    cr_status st;
    if (json[0] == '@') {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/%s", COSSERAT_SOURCE_DIR, json + 1);
        st = cr_scenario_load_file(path, sets, nsets, &sc, &err);
    } else {
        char *text = strdup(json);
        for (char *p = text; *p; ++p)
            if (*p == '\'') *p = '"';
        st = cr_scenario_load_string(text, sets, nsets, &sc, &err);
        free(text);
    }
    memset(r, 0, sizeof *r);
    if (st == CR_OK) {
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        st = cr_scenario_run(sc, &o, r, &err);
        cr_scenario_destroy(sc);
    }
    if (err_out)
        *err_out = err;
    else if (st != CR_OK)
        fprintf(stderr, "run: %s\n", err.message);
    return st == CR_OK;
}

static double at(const cr_run_result *r, long row, int col)
{
    return cr_run_result_series_data(r)[row * cr_run_result_series_columns(r) + col];
}

/* A slender clamped cantilever (L = 1 m, EI = 1 N m², ρA = 1 kg/m, 20 elements), bent
 * statically by a small tip force (stage 0; the tip-load shape is 97 % mode 1) and
 * released in stage 1: free vibration in the first bending mode. */
#define CANTILEVER(damping, dyn, loads)                                                                                \
    "{'rod': {'length': 1, 'elements': 10, " damping                                                                   \
    " 'sections': [{'shape': 'resultants', 'EA': 1e4, 'GA_y': 1e4, 'GA_z': 1e4, 'GJ': 1, 'EI_y': 1, 'EI_z': 1,"        \
    " 'rhoA': 1, 'rhoI_y': 1e-3, 'rhoI_z': 1e-3}]},"                                                                   \
    " 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}],"                                                    \
    " 'loads': [{'type': 'force', 'node': 'end', 'value': [0, 0.01, 0], 'stages': [0]}" loads "],"                     \
    " 'stages': [{'type': 'static'}, {'type': 'dynamic', " dyn "}]}"

/* Upward zero crossings of tip_y (linear interpolation) and the maximum of tip_y in each
 * cycle between two of them (parabola through the three samples around it). Returns
 * the number of complete cycles. */
static int cycles(const cr_run_result *r, double *t_cross, double *amp, int max)
{
    int ct = series_column(r, "t"), cy = series_column(r, "tip_y"), nc = 0, n = 0;
    long rows = cr_run_result_series_rows(r), imax = -1;
    for (long i = 1; i < rows; ++i) {
        double a = at(r, i - 1, cy), b = at(r, i, cy);
        if (nc > 0 && (imax < 0 || b > at(r, imax, cy))) imax = i;
        if (!(a < 0 && b >= 0)) continue;
        double ta = at(r, i - 1, ct);
        if (nc > 0 && n < max && imax > 0 && imax + 1 < rows) {
            double ym = at(r, imax - 1, cy), y0 = at(r, imax, cy), yp = at(r, imax + 1, cy);
            double den = ym - 2 * y0 + yp, x = den != 0 ? 0.5 * (ym - yp) / den : 0;
            amp[n++] = y0 - 0.25 * (ym - yp) * x;
        }
        if (nc < max) t_cross[nc] = ta + (at(r, i, ct) - ta) * (-a / (b - a));
        ++nc;
        imax = -1;
    }
    return n < nc - 1 ? n : nc - 1;
}

/* examples/damped-cantilever.json: the logarithmic decrement of the first bending mode
 * with Kelvin–Voigt damping on the bending components and a linear drag, against the
 * single-mode prediction ζ = τω/2 + c/(2ρAω) (KV: C = τK; drag lumped like the mass:
 * C = (c/ρA) M), δ = 2πζ/√(1−ζ²), ω the undamped frequency measured on the same
 * discretization (the example without rod.damping). */
static void damped_cantilever_decrement(void)
{
    cr_run_result u, d;
    double tc[64], amp[64];
    /* (undamped, the high modes ring on: a looser tolerance keeps this run short; ω to 6 digits) */
    const char *undamped[] = {"rod.damping={}", "stages.1.t_end=3.5", "stages.1.rtol=1e-7", "stages.1.atol=1e-9"};
    int ok = run("@damped-cantilever.json", undamped, 4, &u, NULL);
    CHECK(ok);
    if (!ok) return;
    int n = cycles(&u, tc, amp, 64);
    CHECK(n >= 1);
    double T = (tc[n] - tc[0]) / n, omega = 2 * M_PI / T;
    const double omega_eb = 1.875104068711961 * 1.875104068711961; /* √(EI/(ρA L⁴)) = 1 */
    cr_run_result_free(&u);
    ok = run("@damped-cantilever.json", NULL, 0, &d, NULL);
    CHECK(ok);
    if (!ok) return;
    const double tau = 0.0085324, c = 0.035160, rhoA = 1; /* the example's rod.damping */
    double zeta = tau * omega / 2 + c / (2 * rhoA * omega), delta_kv = 2 * M_PI * zeta / sqrt(1 - zeta * zeta);
    n = cycles(&d, tc, amp, 64);
    CHECK(n >= 4);
    if (n < 4) return;
    /* from the first complete cycle on (higher modes, damped by ζ_n ≈ τω_n/2 ≥ 0.09, are gone):
     * δ = ln(A_0 / A_j) / j over j periods */
    int j = n - 1;
    double delta = log(amp[0] / amp[j]) / j;
    printf("  undamped omega %.6f rad/s (Euler-Bernoulli %.6f); zeta = tau omega/2 + c/(2 rhoA omega) = %.6f\n", omega,
           omega_eb, zeta);
    printf("  log decrement over %d periods: %.6f, single-mode prediction 2 pi zeta / sqrt(1 - zeta^2) = %.6f "
           "(%.3f %%)\n",
           j, delta, delta_kv, 100 * (delta - delta_kv) / delta_kv);
    CHECK(fabs(omega - omega_eb) < 0.005 * omega_eb);
    /* 1 %: the residue of modes 2.. in the maxima (< 0.1 % of the amplitude after one period), the
     * undamped shear and axial parts of the mode (energy fraction ~ EI/(GA L²) = 1e-4), the rotary
     * inertia the drag does not act on (~ρI/(ρA L²)), and the maxima's parabolic interpolation */
    CHECK(fabs(delta - delta_kv) < 0.01 * delta_kv);
    /* and damping matters: without it the decrement would be 0 */
    CHECK(delta > 0.1);
    cr_run_result_free(&d);
}

/* kinetic + elastic + gravity − work + dissipated stays at the initial energy, D grows
 * monotonically; without damping D ≡ 0 */
static void energy_balance(void)
{
    const char *damping = "'damping': {'relaxation_time': [0.002, 0.001, 0.003, 0.004, 0.01, 0.02], 'drag': [0.05, "
                          "0.2, 0.1], 'rotational_drag': 0.001},";
    const char *dyn = "'t_end': 2, 'output_dt': 0.01, 'rtol': 1e-8, 'atol': 1e-11";
    char json[2048];
    /* gravity across the rod in the dynamic stage: constant, so in energy_gravity */
#define GRAVITY ", {'type': 'gravity', 'value': [0, 0, -0.05], 'stages': [1]}"
    snprintf(json, sizeof json, CANTILEVER("%s", "%s", GRAVITY), damping, dyn);
    for (int c = 0; c < 2; ++c) {
        cr_run_result r;
        int ok =
            run(c == 0 ? json : CANTILEVER("", "'t_end': 2, 'output_dt': 0.01, 'rtol': 1e-8, 'atol': 1e-11", GRAVITY),
                NULL, 0, &r, NULL);
        CHECK(ok);
        if (!ok) return;
        int H = series_column(&r, "energy_total"), W = series_column(&r, "work_external"),
            D = series_column(&r, "energy_dissipated");
        int K = series_column(&r, "energy_kinetic");
        long rows = cr_run_result_series_rows(&r);
        double E0 = at(&r, 0, H) - at(&r, 0, W) + at(&r, 0, D), worst = 0, scale = 0, prevD = 0, maxD = 0;
        int monotone = 1;
        for (long i = 0; i < rows; ++i) {
            double bal = at(&r, i, H) - at(&r, i, W) + at(&r, i, D);
            worst = fmax(worst, fabs(bal - E0));
            scale = fmax(scale, fmax(fabs(at(&r, i, H)), at(&r, i, K)));
            monotone &= at(&r, i, D) >= prevD;
            prevD = at(&r, i, D);
            maxD = fmax(maxD, fabs(at(&r, i, D)));
        }
        if (c == 0) {
            printf("  damped: initial energy %.6g J, dissipated %.6g J (monotone %d), max |E - W + D - E0| = %.2e "
                   "(%.2e relative)\n",
                   E0, prevD, monotone, worst, worst / scale);
            CHECK(prevD > 0.3 * scale); /* the damping does take energy out */
            CHECK(monotone);
            CHECK(worst < 1e-5 * scale);
        } else {
            printf("  undamped: max |D| = %g, max |E - W - E0| = %.2e (%.2e relative)\n", maxD, worst, worst / scale);
            CHECK(maxD == 0);
            CHECK(worst < 1e-5 * scale);
        }
        cr_run_result_free(&r);
    }
}

/* ---- shear coefficient ---- */

/* Cowper's k for ν = 0.3 (circle 6(1+ν)/(7+6ν) = 7.8/8.8), and through the resultants
 * GA = k G A with ν from E and G. */
static void shear_coefficient_numbers(void)
{
    CHECK_NEAR(cr_shear_coefficient_cowper(CR_SECTION_CIRCLE, 0.3), 6 * 1.3 / 8.8, 1e-15);
    CHECK_NEAR(cr_shear_coefficient_cowper(CR_SECTION_RECTANGLE, 0.3), 13.0 / 15.3, 1e-15);
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.1;
    sec.shear_coefficient = CR_SHEAR_TIMOSHENKO;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1, d.elements = 1, d.sections = &sec, d.section_count = 1;
    d.material = (cr_material){2.6, 1.0, 1.0}; /* ν = E/(2G) - 1 = 0.3 */
    cr_section_resultants r;
    CHECK(cr_section_resultants_eval(&d, 0.5, &r) == CR_OK);
    double GA = 1.0 * M_PI * 0.01;
    printf("  k(circle, nu = 0.3) = %.15f (6*1.3/8.8 = %.15f)\n", r.GA_y / GA, 6 * 1.3 / 8.8);
    CHECK_NEAR(r.GA_y / GA, 6 * 1.3 / 8.8, 1e-14);
    CHECK_NEAR(r.GA_z / GA, 6 * 1.3 / 8.8, 1e-14);
    sec.shear_coefficient = 0.5;
    cr_section_resultants_eval(&d, 0.5, &r);
    CHECK_NEAR(r.GA_y / GA, 0.5, 1e-14);
    sec.shear_coefficient = 0;
    cr_section_resultants_eval(&d, 0.5, &r);
    CHECK_NEAR(r.GA_y / GA, 1.0, 1e-14);
}

/* A thick (L/r = 5) clamped circular cantilever under a small tip force: Timoshenko's
 * δ = PL³/(3EI) + PL/(kGA) with Cowper's k; shear is 8 % of δ, and k = 1 instead would
 * change δ by 1 %. */
static void timoshenko_cantilever(void)
{
    const double E = 2.6e9, G = 1e9, r = 0.2, L = 1, P = 1e3;
    const double nu = E / (2 * G) - 1, k = 6 * (1 + nu) / (7 + 6 * nu);
    const double A = M_PI * r * r, I = M_PI * r * r * r * r / 4;
    const double bending = P * L * L * L / (3 * E * I), shear = P * L / (k * G * A);
    const char *json = "{'rod': {'length': 1, 'elements': 200, 'material': {'E': 2.6e9, 'G': 1e9},"
                       " 'sections': [{'shape': 'circle', 'radius': 0.2, 'shear_coefficient': 'timoshenko'}]},"
                       " 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}],"
                       " 'loads': [{'type': 'force', 'node': 'end', 'value': [0, 1e3, 0]}],"
                       " 'stages': [{'type': 'static', 'rtol': 1e-12, 'atol': 1e-14}]}";
    const char *unit[] = {"rod.sections.0.shear_coefficient=1"};
    cr_run_result a, b;
    int ok = run(json, NULL, 0, &a, NULL), okb = run(json, unit, 1, &b, NULL);
    CHECK(ok && okb);
    if (!ok || !okb) return;
    double da = cr_sim_position(a.sim, cr_sim_node_count(a.sim) - 1).y;
    double db = cr_sim_position(b.sim, cr_sim_node_count(b.sim) - 1).y;
    double want = bending + shear, want1 = bending + P * L / (G * A);
    printf("  tip deflection %.9e m, Timoshenko (k = %.6f) %.9e m (%.2e relative); k = 1: %.9e vs %.9e\n", da, k, want,
           (da - want) / want, db, want1);
    CHECK(fabs(da - want) < 2e-4 * want);
    CHECK(fabs(db - want1) < 2e-4 * want1);
    CHECK(fabs(da - db) > 0.005 * want); /* the coefficient matters at this tolerance */
    cr_run_result_free(&a);
    cr_run_result_free(&b);
}

/* ---- what the parser and the other formulations refuse ---- */
static void expect_refusal(int line, const char *json, const char *const *sets, int nsets, const char *needle)
{
    cr_run_result r;
    cr_error err = {0};
    int ok = run(json, sets, nsets, &r, &err);
    if (ok) cr_run_result_free(&r);
    int found = strstr(err.message, needle) != NULL;
    if (ok || !found)
        fprintf(stderr, "line %d: expected a refusal with \"%s\", got \"%s\"\n", line, needle, err.message);
    CHECK(!ok && found);
}

static void refusals(void)
{
    const char *base = "{'rod': {'length': 1, 'elements': 4, 'material': {'E': 1e6, 'G': 4e5, 'rho': 1000},"
                       " 'sections': [{'shape': 'circle', 'radius': 0.01}]},"
                       " 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}],"
                       " 'stages': [{'type': 'dynamic', 't_end': 0.01, 'output_dt': 1e-3, 'time_step': 1e-4}]}";
    const char *lgvi[] = {"model=lgvi", "rod.damping={\"relaxation_time\": 0.01}"};
    expect_refusal(__LINE__, base, lgvi, 2, "rod.damping.relaxation_time: the lgvi model's damping is the nodes' drag");
    const char *ph[] = {"model=port_hamiltonian", "rod.damping={\"drag\": 1}"};
    expect_refusal(__LINE__, base, ph, 2, "model.viscoelastic");
    expect_refusal(__LINE__, base, ph, 2, "rod.damping: not supported by the port_hamiltonian model");
    const char *both[] = {"rod.damping={\"relaxation_time\": 0.01, \"coefficients\": [1, 1, 1, 1, 1, 1]}"};
    expect_refusal(__LINE__, base, both, 1, "not both");
    const char *neg[] = {"rod.damping={\"relaxation_time\": -0.01}"};
    expect_refusal(__LINE__, base, neg, 1, "rod.damping.relaxation_time: must be >= 0");
    const char *short6[] = {"rod.damping={\"relaxation_time\": [1, 2]}"};
    expect_refusal(__LINE__, base, short6, 1, "rod.damping.relaxation_time: expected an array of 6 numbers");
    const char *coef_num[] = {"rod.damping={\"coefficients\": 3}"};
    expect_refusal(__LINE__, base, coef_num, 1, "rod.damping.coefficients: expected an array of 6 numbers");
    const char *drag4[] = {"rod.damping={\"drag\": [1, 2, 3, 4]}"};
    expect_refusal(__LINE__, base, drag4, 1, "rod.damping.drag: expected an array of 3 numbers");
    const char *rneg[] = {"rod.damping={\"rotational_drag\": [0, -1, 0]}"};
    expect_refusal(__LINE__, base, rneg, 1, "rod.damping.rotational_drag.1: must be >= 0");
    const char *unknown[] = {"rod.damping={\"viscosity\": 1}"};
    expect_refusal(__LINE__, base, unknown, 1, "rod.damping.viscosity: unknown key");
    const char *notobj[] = {"rod.damping=3"};
    expect_refusal(__LINE__, base, notobj, 1, "rod.damping: expected an object");
    const char *k3[] = {"rod.sections.0.shear_coefficient=2.5"};
    expect_refusal(__LINE__, base, k3, 1, "rod.sections.0.shear_coefficient: must be <= 2");
    const char *k0[] = {"rod.sections.0.shear_coefficient=0"};
    expect_refusal(__LINE__, base, k0, 1, "rod.sections.0.shear_coefficient: must be > 0");
    const char *kstr[] = {"rod.sections.0.shear_coefficient=cowper"};
    expect_refusal(__LINE__, base, kstr, 1,
                   "rod.sections.0.shear_coefficient: expected a number in (0, 2] or \"timoshenko\"");
    const char *res = "{'rod': {'length': 1, 'elements': 4, 'sections': [{'shape': 'resultants', 'EA': 1, 'GA_y': 1,"
                      " 'GA_z': 1, 'GJ': 1, 'EI_y': 1, 'EI_z': 1, 'shear_coefficient': 0.9}]},"
                      " 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}]}";
    expect_refusal(__LINE__, res, NULL, 0, "rod.sections.0.shear_coefficient: not for a resultants section");
    /* the C API checks the same */
    cr_section_segment sec = cr_section_default_def();
    sec.shape = CR_SECTION_RESULTANTS;
    sec.EA[0] = sec.EA[1] = sec.GA_y[0] = sec.GA_y[1] = sec.GA_z[0] = sec.GA_z[1] = 1;
    sec.GJ[0] = sec.GJ[1] = sec.EI_y[0] = sec.EI_y[1] = sec.EI_z[0] = sec.EI_z[1] = 1;
    sec.shear_coefficient = 0.9;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1, d.elements = 2, d.sections = &sec, d.section_count = 1;
    cr_error err = {0};
    CHECK(cr_rod_validate(&d, &err) == CR_BAD_INPUT && strstr(err.message, "rod.sections.0.shear_coefficient"));
    sec.shear_coefficient = 0;
    d.damping.relaxation_time[2] = NAN;
    CHECK(cr_rod_validate(&d, &err) == CR_BAD_INPUT && strstr(err.message, "rod.damping.relaxation_time.2"));
}

CHECK_MAIN(CASE(damped_jacobian), CASE(damped_residual_values), CASE(damped_cantilever_decrement), CASE(energy_balance),
           CASE(shear_coefficient_numbers), CASE(timoshenko_cantilever), CASE(refusals))
