/* Port-Hamiltonian director rod (spec: shared/spec/port-hamiltonian-rod.md): the exact
 * Jacobian against central differences, and the published / analytic reference values of
 * the flying spaghetti (§9.1), the Kirchhoff cantilever (§9.2) and the quasistatic
 * cantilever (§9.3), the discrete balances of §10, viscoelasticity (§7), statics and
 * actuation (§8). */
#include "check.h"
#include "cosserat/cosserat.h"
#include "ph/ph.h"

#include <stdlib.h>
#include <string.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

/* straight reference from x0 along unit axis d3 with directors d1, d2 */
static cr_ph *make_straight(const cr_ph_params *p, cr_vec3 x0, cr_vec3 d1, cr_vec3 d2, cr_vec3 d3)
{
    int nn = 2 * p->elements + 1;
    cr_vec3 *x = malloc(sizeof *x * nn);
    cr_mat3 *R = malloc(sizeof *R * nn);
    for (int I = 0; I < nn; ++I) {
        x[I] = cr_v3_madd(x0, p->length * I / (nn - 1), d3);
        R[I] = cr_m3_columns(d1, d2, d3);
    }
    cr_error err = {0};
    cr_ph *s = cr_ph_create(p, x, R, &err);
    if (!s) fprintf(stderr, "create: %s\n", err.message);
    free(x);
    free(R);
    return s;
}

/* ---------------------------------------------------------------- Jacobian vs central differences */

/* max |J - J_fd| / max |J| at the state s->X after ph_begin */
static double fd_error(cr_ph *s, int mode, const cr_ph_loads *loads)
{
    int n = s->nx;
    double *X = malloc(sizeof(double) * n), *rp = malloc(sizeof(double) * n), *rm = malloc(sizeof(double) * n);
    double *J = malloc(sizeof(double) * (size_t)n * n);
    memcpy(X, s->X, sizeof(double) * n);
    ph_assemble(s, mode, loads, X, s->r, 1);
    ph_jacobian_dense(s, J);
    double maxJ = 0, maxd = 0;
    for (int j = 0; j < n; ++j) {
        double x = X[j], dx = 1e-6 * fmax(1, fabs(x));
        X[j] = x + dx;
        ph_assemble(s, mode, loads, X, rp, 0);
        X[j] = x - dx;
        ph_assemble(s, mode, loads, X, rm, 0);
        X[j] = x;
        for (int i = 0; i < n; ++i) {
            double fd = (rp[i] - rm[i]) / (2 * dx), a = J[(size_t)i * n + j];
            if (fabs(a) > maxJ) maxJ = fabs(a);
            if (fabs(a - fd) > maxd) maxd = fabs(a - fd);
        }
    }
    free(X), free(rp), free(rm), free(J);
    return maxd / maxJ;
}

/* perturb the state and the iterate so that every term is nonzero and generic */
static void randomize(cr_ph *s)
{
    for (int k = 0; k < 12 * s->nn; ++k) {
        s->q[k] += 0.05 * urand();
        s->v[k] = 0.3 * urand();
    }
    for (int k = 0; k < 6 * s->ng; ++k) s->sig_el[k] = urand();
    for (int k = 0; k < 6 * s->ng * s->nb; ++k) s->sig_br[k] = urand();
    for (int k = 0; k < 6 * s->nn; ++k) s->lam[k] = urand();
    ph_state_changed(s);
}

static void jacobian_case(unsigned rigid, int clamp0, int clamp1, int branches, int mode, const char *what)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = 3;
    p.length = 2.0;
    p.stiffness[0] = 3, p.stiffness[1] = 4, p.stiffness[2] = 5, p.stiffness[3] = 1.5, p.stiffness[4] = 2,
    p.stiffness[5] = 0.7;
    p.M11 = 0.3, p.M22 = 0.2, p.rhoA = 1.1;
    p.rigid = rigid;
    p.clamp_start = clamp0, p.clamp_end = clamp1;
    if (branches) {
        p.branch_count = 2;
        p.branch_tau[0] = 0.3, p.branch_fraction[0] = 0.4;
        p.branch_tau[1] = 0.1, p.branch_fraction[1] = 0.5, p.branch_rigid_spring[1] = 1;
    }
    cr_ph *s = make_straight(&p, cr_v3(0.1, 0.2, 0.3), cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    randomize(s);
    int nn = s->nn;
    cr_vec3 *F = malloc(sizeof *F * nn), *Mo = malloc(sizeof *Mo * nn);
    for (int I = 0; I < nn; ++I) F[I] = cr_v3(urand(), urand(), urand()), Mo[I] = cr_v3(urand(), urand(), urand());
    double act[6];
    for (int j = 0; j < 6; ++j) act[j] = 0.5 * urand();
    cr_ph_loads L = {F, Mo, cr_v3(0.3, -0.2, 0.5), cr_v3(-0.4, 0.6, 0.25), act};
    ph_begin(s, mode, 0.05);
    for (int i = 0; i < s->nx; ++i) s->X[i] += 0.05 * urand();
    double e = fd_error(s, mode, &L);
    /* the null-space reduced solve against a dense LU of the full Jacobian */
    int n = s->nx, info = 0, one = 1, *piv = malloc(sizeof(int) * n);
    double *J = malloc(sizeof(double) * (size_t)n * n), *x = malloc(sizeof(double) * n), *dx = malloc(sizeof(double) * n);
    ph_assemble(s, mode, &L, s->X, s->r, 1);
    ph_jacobian_dense(s, J); /* row-major = the transpose for Fortran: solve J^T y = b with a transposed copy */
    double *Jt = malloc(sizeof(double) * (size_t)n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) Jt[(size_t)j * n + i] = J[(size_t)i * n + j];
    for (int i = 0; i < n; ++i) x[i] = -s->r[i];
    dgesv_(&n, &one, Jt, &n, piv, x, &n, &info);
    CHECK(info == 0);
    CHECK(ph_linear_solve(s, s->r, dx, NULL) == CR_OK);
    double md = 0, mx = 0;
    for (int i = 0; i < n; ++i) md = fmax(md, fabs(dx[i] - x[i])), mx = fmax(mx, fabs(x[i]));
    /* the one-pass iteration Newton uses (ph_direct.c): it sets lambda to the least-squares
       multipliers of the director rows; at that X its residual and its q and rigid-stress increments
       must be the dense Newton system's */
    double *Xd = malloc(sizeof(double) * n), *rd = malloc(sizeof(double) * n), *dd = malloc(sizeof(double) * n);
    memcpy(Xd, s->X, sizeof(double) * n);
    cr_status dst = ph_direct_iteration(s, mode, &L, Xd, rd, dd, NULL);
    double mdd = 0, mxd = 0, mr = 0, mrr = 0, mproj = 0;
    if (dst == CR_OK) {
        ph_assemble(s, mode, &L, Xd, s->r, 1);
        ph_jacobian_dense(s, J);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) Jt[(size_t)j * n + i] = J[(size_t)i * n + j];
        for (int i = 0; i < n; ++i)
            x[i] = -s->r[i], mr = fmax(mr, fabs(rd[i] - s->r[i])), mrr = fmax(mrr, fabs(s->r[i]));
        dgesv_(&n, &one, Jt, &n, piv, x, &n, &info);
        for (int I = 0; I < nn; ++I) {
            int o = s->node_off[I];
            if (o < 0) continue;
            for (int k = 0; k < 6; ++k) x[o + 12 + k] = 0; /* lambda is set, not incremented */
            /* the director rows at the least-squares lambda are orthogonal to G_m's rows */
            for (int k = 0; k < 6; ++k) {
                double v = 0;
                for (int c = 0; c < 9; ++c) v += s->Gm[54 * I + 9 * k + c] * rd[o + 3 + c];
                mproj = fmax(mproj, fabs(v));
            }
        }
        for (int i = 0; i < n; ++i) mdd = fmax(mdd, fabs(dd[i] - x[i])), mxd = fmax(mxd, fabs(x[i]));
    }
    printf("  jacobian %-34s %s: rel. error %.2e, reduced solve vs dense %.2e, one pass: residual %.2e, increment "
           "%.2e, G_m r_d %.1e\n",
           what, mode == PH_DYNAMIC ? "dynamic" : "static ", e, md / mx, mr / mrr, mdd / mxd, mproj);
    CHECK(e < 1e-8);
    if (mode == PH_DYNAMIC || clamp0 || clamp1) { /* a free static rod is singular */
        CHECK(md <= 1e-9 * mx);
        CHECK(dst == CR_OK);
        CHECK(mr <= 1e-13 * mrr);
        CHECK(mdd <= 1e-9 * mxd);
        CHECK(mproj <= 1e-13 * mrr);
    }
    free(Xd), free(rd), free(dd);
    free(piv), free(J), free(Jt), free(x), free(dx);
    free(F), free(Mo);
    cr_ph_destroy(s);
}

static void ph_jacobian(void)
{
    srand(7);
    for (int mode = 0; mode < 2; ++mode) {
        jacobian_case(0, 0, 0, 0, mode, "free-free elastic");
        jacobian_case(0, 1, 0, 1, mode, "clamped, Maxwell + Kelvin-Voigt");
        jacobian_case(0x7, 1, 0, 1, mode, "clamped Kirchhoff (rigid N), viscous");
        jacobian_case(0x24, 0, 1, 0, mode, "rigid N3 and M3, clamped end");
        jacobian_case(0x3f, 1, 0, 0, mode, "all rigid");
        /* both ends clamped: node-block fronts (elastic) and the band LU (rigid components, ph_direct.c) */
        jacobian_case(0, 1, 1, 0, mode, "clamped both ends, elastic");
        jacobian_case(0x7, 1, 1, 0, mode, "clamped both ends, Kirchhoff");
    }
}

/* ---------------------------------------------------------------- flying spaghetti (spec §9.1) */

static double spaghetti_f(double t) { return t <= 2.5 ? 80 * t : (t <= 5 ? 400 - 80 * t : 0); }

static double spaghetti_com(double t)
{
    if (t <= 2.5) return 3 + 2.0 / 15 * t * t * t;
    if (t <= 5) return 43.0 / 6 - 5 * t + 2 * t * t - 2.0 / 15 * t * t * t;
    return -19.0 / 2 + 5 * t;
}

static void ph_spaghetti(void)
{
    cr_ph_params p = cr_ph_default_params(); /* Table 1 */
    cr_vec3 d3 = cr_v3(0.6, 0, -0.8), d2 = cr_v3(0, 1, 0), d1 = cr_v3_cross(d2, d3);
    cr_ph *s = make_straight(&p, cr_v3(0, 0, 8), d1, d2, d3);
    int nn = cr_ph_node_count(s), steps = 150, iters_total = 0;
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    cr_ph_loads L = {F, Mo, {0, 0, 0}, {0, 0, 0}, NULL};
    double max_dE = 0, max_dP = 0, max_dL = 0, com_dev_01 = 0, max_com_after = 0;
    cr_ph_diag d0, d1g;
    cr_ph_diagnostics(s, &d0);
    for (int n = 0; n < steps; ++n) {
        double h = p.h, tm = cr_ph_time(s) + 0.5 * h, f = spaghetti_f(tm);
        F[nn - 1] = cr_v3(f / 10, 0, 0);
        Mo[nn - 1] = cr_v3(0, f, f / 2);
        /* midpoint tip state for the discrete angular momentum balance (spec §10) */
        cr_vec3 x0 = cr_ph_position(s, nn - 1);
        cr_mat3 R0 = cr_ph_directors(s, nn - 1);
        cr_error err = {0};
        int it = 0;
        cr_status st = cr_ph_step(s, h, &L, &it, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) {
            fprintf(stderr, "%s\n", err.message);
            break;
        }
        iters_total += it;
        cr_ph_diagnostics(s, &d1g);
        double rel = fabs(d1g.energy_balance) / fmax(1, d1g.total);
        if (rel > max_dE) max_dE = rel;
        /* P_{n+1} - P_n = h nu; L_{n+1} - L_n = h [phi_mid x nu + sum_k d_k,mid x (T(d_mid) mu)_k] */
        cr_vec3 nu = F[nn - 1], mu = Mo[nn - 1];
        cr_vec3 dP = cr_v3_sub(cr_v3_sub(d1g.momentum, d0.momentum), cr_v3_scale(nu, h));
        cr_vec3 xm = cr_v3_scale(cr_v3_add(x0, cr_ph_position(s, nn - 1)), 0.5);
        cr_mat3 R1 = cr_ph_directors(s, nn - 1);
        cr_vec3 torque = cr_v3_cross(xm, nu);
        for (int k = 0; k < 3; ++k) {
            cr_vec3 dk = cr_v3_scale(cr_v3_add(cr_m3_column(R0, k), cr_m3_column(R1, k)), 0.5);
            torque = cr_v3_add(torque, cr_v3_cross(dk, cr_v3_scale(cr_v3_cross(mu, dk), 0.5)));
        }
        cr_vec3 dL = cr_v3_sub(cr_v3_sub(d1g.angular_momentum, d0.angular_momentum), cr_v3_scale(torque, h));
        if (cr_v3_norm(dP) > max_dP) max_dP = cr_v3_norm(dP);
        if (cr_v3_norm(dL) > max_dL) max_dL = cr_v3_norm(dL);
        double t = cr_ph_time(s);
        double dev = d1g.center_of_mass.x - spaghetti_com(t);
        if (n == 0) com_dev_01 = dev;
        if (t > 5 + 1e-9 && fabs(dev) > max_com_after) max_com_after = fabs(dev);
        CHECK_NEAR(d1g.center_of_mass.y, 0, 1e-12);
        CHECK_NEAR(d1g.center_of_mass.z, 4, 1e-12);
        if (fabs(t - 5) < 1e-9) {
            printf("  spaghetti t = 5: H = %.15g (published 606.150320665651), P = (%.15g, %.3g, %.3g)\n", d1g.total,
                   d1g.momentum.x, d1g.momentum.y, d1g.momentum.z);
            CHECK_NEAR(d1g.total / 606.150320665651, 1, 1e-9);
            CHECK_NEAR(d1g.momentum.x, 50, 1e-9);
            CHECK_NEAR(d1g.momentum.y, 0, 1e-9);
            CHECK_NEAR(d1g.momentum.z, 0, 1e-9);
            CHECK_NEAR(d1g.center_of_mass.x, 15.5, 1e-9);
        }
        d0 = d1g;
    }
    printf("  spaghetti: max |dE|/H %.2e, max |dP - h nu| %.2e, max |dL - h tau| %.2e, com dev t=0.1 %.6e, "
           "after loading %.2e, H(15) = %.15g, com(15) = %.12g, %.2f iterations/step\n",
           max_dE, max_dP, max_dL, com_dev_01, max_com_after, d1g.total, d1g.center_of_mass.x,
           (double)iters_total / steps);
    CHECK(max_dE <= 1e-10);
    CHECK(max_dP <= 1e-10);
    CHECK(max_dL <= 1e-9);
    CHECK_NEAR(com_dev_01, 6.667e-5, 1e-8);
    CHECK(max_com_after <= 1e-9);
    CHECK_NEAR(d1g.center_of_mass.x, 65.5, 1e-9);
    CHECK_NEAR(d1g.total / 606.150320665651, 1, 1e-9);
    free(F), free(Mo);
    cr_ph_destroy(s);
}

/* ---------------------------------------------------------------- Kirchhoff cantilever (spec §9.2) */

static cr_ph_params cantilever_params(void)
{
    cr_ph_params p = cr_ph_default_params();
    double rho = 2850, d = 4e-3, A = M_PI * d * d / 4, I = M_PI * d * d * d * d / 64, E = 7.2e10,
           G = E / (2 * (1 + 0.35));
    p.elements = 8;
    p.length = 1;
    p.rhoA = rho * A;
    p.M11 = p.M22 = rho * I;
    p.stiffness[3] = p.stiffness[4] = E * I;
    p.stiffness[5] = G * 2 * I;
    p.stiffness[0] = p.stiffness[1] = p.stiffness[2] = 0; /* "infinite": C_N = 0 */
    p.rigid = 0x7;
    p.clamp_start = 1;
    p.h = 1e-3;
    p.newton_atol = 1e-12;
    return p;
}

/* runs `steps` steps of the Table 2 cantilever; returns the final diagnostics */
static void run_cantilever(const cr_ph_params *p, int steps, int verbose)
{
    cr_ph *s = make_straight(p, cr_v3(0, 0, 0), cr_v3(0, -1, 0), cr_v3(0, 0, -1), cr_v3(1, 0, 0));
    int nn = cr_ph_node_count(s), iters = 0;
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    cr_ph_loads L = {F, Mo, {0, 0, 0}, {0, 0, 0}, NULL};
    double H_ref = 0, max_drift = 0, max_orth = 0, max_gamma = 0, max_dE = 0, prevH = 0, prevD = 0;
    cr_ph_diag dg;
    for (int n = 0; n < steps; ++n) {
        double h = p->h, tm = cr_ph_time(s) + 0.5 * h;
        double f = tm <= 0.05 ? 0.5 * (1 - cos(2 * M_PI * tm / 0.05)) : 0;
        F[nn - 1] = cr_v3(0, f, f);
        Mo[nn - 1] = cr_v3(0.25 * f, 0, 0);
        cr_error err = {0};
        int it = 0;
        cr_status st = cr_ph_step(s, h, &L, &it, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) {
            fprintf(stderr, "%s\n", err.message);
            break;
        }
        iters += it;
        cr_ph_diagnostics(s, &dg);
        double t = cr_ph_time(s);
        if (fabs(dg.energy_balance) / dg.total > max_dE) max_dE = fabs(dg.energy_balance) / dg.total;
        if (p->branch_count) {
            /* dissipation per step >= 0, energy decreasing after the load (spec §7) */
            CHECK(dg.dissipated - prevD >= 0);
            if (t > 0.05 + 1e-9) CHECK(dg.total <= prevH * (1 + 1e-14));
        } else if (t > 0.05 + 1e-9) {
            if (H_ref == 0) H_ref = dg.total;
            double dr = fabs(dg.total / H_ref - 1);
            if (dr > max_drift) max_drift = dr;
        }
        prevH = dg.total, prevD = dg.dissipated;
        if (dg.constraint_violation > max_orth) max_orth = dg.constraint_violation;
        for (int g = 0; g < cr_ph_sample_count(s); ++g) {
            cr_vec3 ga;
            cr_ph_sample(s, g, &ga, NULL, NULL, NULL);
            double m = fmax(fabs(ga.x), fmax(fabs(ga.y), fabs(ga.z)));
            if (m > max_gamma) max_gamma = m;
        }
        if (verbose && (n + 1) % 50 == 0) {
            cr_vec3 x = cr_ph_position(s, nn - 1);
            printf("    t = %.3f tip (%.10f, %.10f, %.10f) H = %.12e D = %.6e\n", t, x.x, x.y, x.z, dg.total,
                   dg.dissipated);
        }
    }
    printf("  cantilever%s %d steps: max |dE|/H %.2e, energy drift after t=0.05 %.2e, max |g(d)| %.2e, max "
           "|Gamma - Gamma0| %.2e, D = %.6e, %.2f iterations/step\n",
           p->branch_count ? " (viscous)" : "", steps, max_dE, max_drift, max_orth, max_gamma, dg.dissipated,
           (double)iters / steps);
    CHECK(max_dE <= 1e-12);
    if (!p->branch_count) CHECK(max_drift <= 1e-12);
    CHECK(max_orth <= 1e-13);
    CHECK(max_gamma <= 1e-13);
    free(F), free(Mo);
    cr_ph_destroy(s);
}

static void ph_kirchhoff_cantilever(void)
{
    cr_ph_params p = cantilever_params();
    run_cantilever(&p, 300, 1); /* the full T = 0.3 of Table 2 */
}

/* ---------------------------------------------------------------- quasistatic cantilever (spec §9.3) */

static const double QS_P = 5.0 / (M_PI * M_PI); /* P = 10 k_b1 / L^2 */

static cr_ph_params quasistatic_params(int ne, double h)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = ne;
    p.length = 2 * M_PI;
    p.rhoA = p.M11 = p.M22 = 0;
    p.stiffness[0] = p.stiffness[1] = 1, p.stiffness[2] = 5;
    p.stiffness[3] = p.stiffness[4] = 2, p.stiffness[5] = 0.5;
    p.clamp_start = 1;
    /* The analytic tip (Harsch et al. 2021) is the constrained Kirchhoff solution, and the prototype
       values of spec §9.3 (h = 0.1, 0.05, and 1.8e-4 at 16 elements) are reproduced only with C_N = 0;
       with the finite k_s = 1, k_e = 5 of Table 3 the rod is far softer (tip ~ (4.61, -5.24)). */
    p.rigid = 0x7;
    p.h = h;
    p.newton_atol = 1e-12;
    return p;
}

static cr_ph *quasistatic_create(const cr_ph_params *p)
{
    return make_straight(p, cr_v3(0, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
}

/* dead tip loads nu = t (0, -P, 0), mu = t (0, 0, 2.5 P) */
static void quasistatic_loads(int nn, double t, cr_vec3 *F, cr_vec3 *Mo)
{
    F[nn - 1] = cr_v3(0, -t * QS_P, 0);
    Mo[nn - 1] = cr_v3(0, 0, 2.5 * t * QS_P);
}

/* quasistatic midpoint stepping (rho = 0) to t = T; returns the tip */
static cr_vec3 quasistatic_run(int ne, double h, double T, int *iters)
{
    cr_ph_params p = quasistatic_params(ne, h);
    cr_ph *s = quasistatic_create(&p);
    int nn = cr_ph_node_count(s), steps = (int)lround(T / h);
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    cr_ph_loads L = {F, Mo, {0, 0, 0}, {0, 0, 0}, NULL};
    *iters = 0;
    for (int n = 0; n < steps; ++n) {
        quasistatic_loads(nn, cr_ph_time(s) + 0.5 * h, F, Mo); /* loads at t_{n+1/2} */
        cr_error err = {0};
        int it = 0;
        cr_status st = cr_ph_step(s, h, &L, &it, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) {
            fprintf(stderr, "%s\n", err.message);
            break;
        }
        *iters += it;
    }
    cr_vec3 tip = cr_ph_position(s, nn - 1);
    free(F), free(Mo);
    cr_ph_destroy(s);
    return tip;
}

static const double QS_TIP[2] = {4.978534566947578, -3.467635700715490}; /* analytic, t = 1 */

static void ph_quasistatic(void)
{
    int it;
    /* the paper's 8 elements at h = 0.1 and 0.05 against the independent prototype of spec §9.3 */
    cr_vec3 a = quasistatic_run(8, 0.1, 1, &it);
    cr_vec3 b = quasistatic_run(8, 0.05, 1, &it);
    printf("  quasistatic n_e = 8: h = 0.1 tip (%.9f, %.9f), h = 0.05 tip (%.9f, %.9f)\n", a.x, a.y, b.x, b.y);
    CHECK_NEAR(a.x, 4.974975, 1e-6);
    CHECK_NEAR(a.y, -3.473725, 1e-6);
    CHECK_NEAR(b.x, 4.977071, 1e-6);
    CHECK_NEAR(b.y, -3.470711, 1e-6);
    CHECK_NEAR(a.z, 0, 1e-12);
    cr_vec3 c = quasistatic_run(8, 0.01, 1, &it);
    double ec = hypot(c.x - QS_TIP[0], c.y - QS_TIP[1]);
    printf("  quasistatic n_e = 8, h = 0.01 (paper setting): tip (%.12f, %.12f), |error| %.3e (spec: ~2.2e-3)\n",
           c.x, c.y, ec);
    CHECK(ec > 2.0e-3 && ec < 2.4e-3);
    /* refining n_e and h together: second order in the element length */
    double prev = 0;
    for (int k = 0; k < 4; ++k) {
        int ne = 4 << k;
        double h = 0.04 / (1 << k);
        cr_vec3 t = quasistatic_run(ne, h, 1, &it);
        double e = hypot(t.x - QS_TIP[0], t.y - QS_TIP[1]);
        printf("  quasistatic n_e = %2d, h = %.4f: tip (%.12f, %.12f), |error| %.3e, ratio %.2f, %.2f iterations/step\n",
               ne, h, t.x, t.y, e, k ? prev / e : 0.0, it * h);
        if (k) CHECK(prev / e > 3.5);
        if (k == 3) CHECK(e < 3e-5);
        prev = e;
    }
}

/* ---------------------------------------------------------------- viscoelasticity (spec §7) */

static void ph_viscous_cantilever(void)
{
    /* the viscous variant of §9.2: one Maxwell branch, tau = 0.08, 1/4 elastic, 3/4 viscous; N rigid
       (V_Gamma^-1 = 0), so only bending and torsion are damped */
    cr_ph_params p = cantilever_params();
    p.branch_count = 1;
    p.branch_tau[0] = 0.08;
    p.branch_fraction[0] = 0.75;
    run_cantilever(&p, 300, 1);
    /* Kelvin-Voigt (rigid spring): sigma = k eps + eta eps_dot with eta = tau f k */
    p.branch_rigid_spring[0] = 1;
    p.branch_fraction[0] = 0.1;
    p.branch_tau[0] = 0.01;
    run_cantilever(&p, 150, 0);
}

/* Creep of the standard linear solid: under a constant load the quasistatic (rho = 0) rod with a
   Maxwell branch tends to the static solution of the elastic branch alone (k/4), with retardation
   time tau k / k_el = 4 tau. */
static void ph_creep(void)
{
    cr_ph_params p = quasistatic_params(4, 0.01);
    p.branch_count = 1;
    p.branch_tau[0] = 0.08;
    p.branch_fraction[0] = 0.75;
    cr_ph *s = quasistatic_create(&p);
    cr_ph_params pe = quasistatic_params(4, 0.01);
    for (int j = 3; j < 6; ++j) pe.stiffness[j] *= 0.25;
    cr_ph *ref = quasistatic_create(&pe); /* elastic branch only */
    cr_ph *inst = quasistatic_create(&p); /* static solve: elastic branch only, too */
    int nn = cr_ph_node_count(s);
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    cr_ph_loads L = {F, Mo, {0, 0, 0}, {0, 0, 0}, NULL};
    double D = 0, prevD = 0, tr = 0.2;
    cr_vec3 prev_tip = {0, 0, 0};
    int steps = 600;
    for (int n = 0; n < steps; ++n) {
        double tm = cr_ph_time(s) + 0.5 * p.h;
        /* smooth ramp, then hold: a kink in the load would excite the undamped alternating mode
           u_n = (-1)^n A of the quasistatic midpoint rule (sigma^b_n = k_b (-1)^n A solves the Maxwell
           update with zero midpoint stress), which is why the last two steps are averaged below */
        quasistatic_loads(nn, 0.3 * (tm < tr ? 0.5 * (1 - cos(M_PI * tm / tr)) : 1), F, Mo);
        cr_error err = {0};
        cr_status st = cr_ph_step(s, p.h, &L, NULL, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) {
            fprintf(stderr, "%s\n", err.message);
            break;
        }
        cr_ph_diag dg;
        cr_ph_diagnostics(s, &dg);
        D = dg.dissipated;
        CHECK(D - prevD >= 0);
        CHECK(fabs(dg.energy_balance) <= 1e-12 * fmax(1e-3, dg.total));
        prevD = D;
        if (n == steps - 2) prev_tip = cr_ph_position(s, nn - 1);
    }
    quasistatic_loads(nn, 0.3, F, Mo);
    cr_error err = {0};
    CHECK(cr_ph_solve_static(ref, &L, NULL, NULL, &err) == CR_OK);
    CHECK(cr_ph_solve_static(inst, &L, NULL, NULL, &err) == CR_OK);
    cr_vec3 a = cr_v3_scale(cr_v3_add(prev_tip, cr_ph_position(s, nn - 1)), 0.5);
    cr_vec3 b = cr_ph_position(ref, nn - 1), c = cr_ph_position(inst, nn - 1);
    cr_vec3 last = cr_ph_position(s, nn - 1);
    printf("  creep: tip at t = %.1f (%.10f, %.10f) (last step (%.10f, %.10f)), elastic-branch static (%.10f, "
           "%.10f), D = %.4e\n",
           cr_ph_time(s), a.x, a.y, last.x, last.y, b.x, b.y, D);
    /* the creep itself moves the tip by O(0.1); exp(-(6 - 0.2) / 0.32) ~ 1e-8, the rest is the remnant
       of the alternating mode */
    CHECK_NEAR(a.x, b.x, 1e-5);
    CHECK_NEAR(a.y, b.y, 1e-5);
    CHECK_NEAR(c.x, b.x, 1e-12);
    CHECK_NEAR(c.y, b.y, 1e-12);
    free(F), free(Mo);
    cr_ph_destroy(s), cr_ph_destroy(ref), cr_ph_destroy(inst);
}

/* ---------------------------------------------------------------- statics */

static cr_vec3 static_tip(int ne, int load_steps, int *iters)
{
    cr_ph_params p = quasistatic_params(ne, 0.01);
    cr_ph *s = quasistatic_create(&p);
    int nn = cr_ph_node_count(s);
    cr_vec3 *F = calloc(nn, sizeof *F), *Mo = calloc(nn, sizeof *Mo);
    cr_ph_loads L = {F, Mo, {0, 0, 0}, {0, 0, 0}, NULL};
    *iters = 0;
    for (int k = 1; k <= load_steps; ++k) {
        quasistatic_loads(nn, (double)k / load_steps, F, Mo);
        cr_error err = {0};
        int it = 0;
        double res = 0;
        if (k > 1) cr_ph_static_predictor(s, 1.0); /* equal load steps */
        cr_status st = cr_ph_solve_static(s, &L, &it, &res, &err);
        CHECK(st == CR_OK);
        if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
        CHECK(res <= 1e-12);
        *iters += it;
    }
    cr_vec3 tip = cr_ph_position(s, nn - 1);
    /* equilibrium: the clamp carries the whole load, the tip stresses balance the end load */
    cr_ph_diag dg;
    cr_ph_diagnostics(s, &dg);
    CHECK(dg.constraint_violation <= 1e-14);
    free(F), free(Mo);
    cr_ph_destroy(s);
    return tip;
}

static void ph_static(void)
{
    int it;
    double prev = 0;
    cr_vec3 t8 = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        int ne = 4 << k;
        cr_vec3 t = static_tip(ne, 10, &it);
        if (ne == 8) t8 = t;
        double e = hypot(t.x - QS_TIP[0], t.y - QS_TIP[1]);
        printf("  static n_e = %2d: tip (%.12f, %.12f), |error| %.3e, ratio %.2f, %d iterations for 10 load steps\n",
               ne, t.x, t.y, e, k ? prev / e : 0.0, it);
        if (k) CHECK(prev / e > 3.5);
        if (k == 3) CHECK(e < 3e-5);
        /* quadratic Newton with the second-order director update and the predictor: <= 4 per load step
           (without them 44 at every n_e) */
        CHECK(it <= 40);
        prev = e;
    }
    /* quasistatic stepping tends to the static solution of the same mesh as h -> 0 */
    prev = 0;
    for (int k = 0; k < 3; ++k) {
        double h = 0.04 / (1 << k);
        cr_vec3 q = quasistatic_run(8, h, 1, &it);
        double e = hypot(q.x - t8.x, q.y - t8.y);
        printf("  quasistatic n_e = 8, h = %.3f vs static: |difference| %.3e, ratio %.2f\n", h, e, k ? prev / e : 0.0);
        if (k) CHECK(prev / e > 1.8);
        prev = e;
    }
    CHECK(prev < 1e-4);
}

/* ---------------------------------------------------------------- actuation (spec §8) */

/* A chamber at material offset (r, 0) = +d1 side, static, no external load: sigma_el = -sigma_act, a
   uniform stretch 1 + pA/k_e and curvature K2 = -pA r / k_b2, i.e. an arc bending toward -d1 (away from
   the chamber); a tendon at the same place gives the opposite signs (toward the tendon, shortening). */
static void actuation_case(int tendon)
{
    cr_ph_params p = quasistatic_params(8, 0.01);
    p.length = 1;
    p.rigid = 0;
    p.stiffness[0] = p.stiffness[1] = 20, p.stiffness[2] = 10;
    p.stiffness[3] = p.stiffness[4] = 1, p.stiffness[5] = 0.7;
    cr_ph *s = quasistatic_create(&p); /* axis d3 = e1, d1 = e2, d2 = e3 */
    double act[6] = {0}, F = 1, r = 0.5;
    if (tendon)
        cr_ph_actuation_tendon(F, r, 0, act);
    else
        cr_ph_actuation_chamber(F, r, 0, act);
    cr_ph_loads L = {NULL, NULL, {0, 0, 0}, {0, 0, 0}, act};
    cr_error err = {0};
    int it = 0;
    CHECK(cr_ph_solve_static(s, &L, &it, NULL, &err) == CR_OK);
    double sign = tendon ? -1 : 1;
    double lam = 1 + sign * F / p.stiffness[2], kap = -sign * F * r / p.stiffness[4];
    cr_vec3 tip = cr_ph_position(s, cr_ph_node_count(s) - 1);
    cr_vec3 exact = cr_v3(lam * sin(kap * p.length) / kap, lam * (1 - cos(kap * p.length)) / kap, 0);
    cr_vec3 ga, ka, N, M;
    cr_ph_sample(s, 3, &ga, &ka, &N, &M);
    printf("  %s at +d1: tip (%.9f, %.9f), arc (%.9f, %.9f); Gamma3 - 1 = %.6f, K2 = %.6f, N3 = %.6f, M2 = %.6f\n",
           tendon ? "tendon " : "chamber", tip.x, tip.y, exact.x, exact.y, ga.z, ka.y, N.z, M.y);
    CHECK_NEAR(tip.x, exact.x, 1e-5);
    CHECK_NEAR(tip.y, exact.y, 1e-5);
    CHECK_NEAR(tip.z, 0, 1e-12);
    CHECK_NEAR(ga.z, lam - 1, 1e-9);
    CHECK_NEAR(ka.y, kap, 1e-9);
    /* the physics: a chamber lengthens its side and bends away from it (tip toward -d1 = -e2),
       a tendon shortens its side and bends toward it */
    if (tendon) CHECK(tip.y > 0 && tip.x < p.length);
    else CHECK(tip.y < 0 && ga.z > 0);
    cr_ph_destroy(s);
}

/* Actuation is internal: on a free rod it changes neither momentum nor angular momentum, and the
   energy balance holds with W_act = -int sigma_act . Delta eps (spec §8). */
static void actuation_dynamic(void)
{
    cr_ph_params p = cr_ph_default_params();
    p.elements = 4;
    cr_vec3 d3 = cr_v3(0.6, 0, -0.8), d2 = cr_v3(0, 1, 0), d1 = cr_v3_cross(d2, d3);
    cr_ph *s = make_straight(&p, cr_v3(0, 0, 8), d1, d2, d3);
    double maxP = 0, maxL = 0, maxE = 0;
    for (int n = 0; n < 40; ++n) {
        double tm = cr_ph_time(s) + 0.5 * p.h, act[6] = {0};
        cr_ph_actuation_chamber(200 * sin(tm), 0.1 * cos(0.7 * tm), 0.1 * sin(0.7 * tm), act);
        cr_ph_actuation_tendon(100 * (1 - cos(tm)), -0.1, 0.05, act);
        act[5] = 20 * sin(2 * tm); /* and a torsional actuation */
        cr_ph_loads L = {NULL, NULL, {0, 0, 0}, {0, 0, 0}, act};
        cr_error err = {0};
        CHECK(cr_ph_step(s, p.h, &L, NULL, &err) == CR_OK);
        cr_ph_diag dg;
        cr_ph_diagnostics(s, &dg);
        maxP = fmax(maxP, cr_v3_norm(dg.momentum));
        maxL = fmax(maxL, cr_v3_norm(dg.angular_momentum));
        maxE = fmax(maxE, fabs(dg.energy_balance) / fmax(1, dg.total));
    }
    cr_ph_diag dg;
    cr_ph_diagnostics(s, &dg);
    printf("  actuated free rod: max |P| %.2e, max |L| %.2e, max |dE|/H %.2e, H = %.6f, W_act = %.6f\n", maxP, maxL,
           maxE, dg.total, dg.work_external);
    CHECK(maxP < 1e-11 && maxL < 1e-10 && maxE < 1e-12);
    CHECK(dg.total > 1e-3);
    CHECK_NEAR(dg.total, dg.work_external, 1e-10 * dg.total);
    cr_ph_destroy(s);
}

static void ph_actuation(void)
{
    actuation_case(0);
    actuation_case(1);
    actuation_dynamic();
}

/* ---------------------------------------------------------------- input checks, checkpoints */

static void ph_bad_input(void)
{
    cr_vec3 x[3] = {{0, 0, 0}, {0.5, 0, 0}, {1, 0, 0}};
    cr_mat3 R[3];
    for (int i = 0; i < 3; ++i) R[i] = cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0));
    const char *field[5] = {"elements", "h", "stiffness[4]", "rigid", "branch_tau[0]"};
    for (int k = 0; k < 5; ++k) {
        cr_ph_params p = cr_ph_default_params();
        p.elements = 1;
        if (k == 0) p.elements = 0;
        if (k == 1) p.h = 0;
        if (k == 2) p.stiffness[4] = -1;
        if (k == 3) p.rigid = 0x40;
        if (k == 4) p.branch_count = 1, p.branch_fraction[0] = 0.5, p.branch_tau[0] = -1;
        cr_error err = {0};
        cr_ph *s = cr_ph_create(&p, x, R, &err);
        CHECK(s == NULL);
        CHECK(err.status == CR_BAD_INPUT);
        CHECK(strstr(err.message, field[k]) != NULL);
        cr_ph_destroy(s);
    }
    /* a rigid component's stiffness is ignored; a step h <= 0 is refused */
    cr_ph_params p = cr_ph_default_params();
    p.elements = 1;
    p.rigid = 0x7;
    p.stiffness[0] = -5;
    cr_error err = {0};
    cr_ph *s = cr_ph_create(&p, x, R, &err);
    CHECK(s != NULL);
    if (s) {
        CHECK(cr_ph_step(s, -0.1, NULL, NULL, &err) == CR_BAD_INPUT);
        CHECK(strstr(err.message, "h") != NULL);
        CHECK(cr_ph_step(s, 0.1, NULL, NULL, &err) == CR_OK); /* unloaded, at rest: stays at rest */
        CHECK_NEAR(cr_ph_position(s, 2).x, 1, 1e-15);
        /* statics of the free rod: singular, but at rest and unloaded already in equilibrium (0 updates);
           loaded, the singular matrix is reported */
        int it = -1;
        double res = -1;
        CHECK(cr_ph_solve_static(s, NULL, &it, &res, &err) == CR_OK);
        CHECK(it == 0 && res <= p.newton_atol);
        cr_vec3 F[3] = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}};
        cr_ph_loads L = {F, NULL, {0, 0, 0}, {0, 0, 0}, NULL};
        CHECK(cr_ph_solve_static(s, &L, NULL, NULL, &err) == CR_SINGULAR);
    }
    cr_ph_destroy(s);
}

/* pack / unpack: a resumed run repeats the original bit for bit */
static void ph_checkpoint(void)
{
    cr_ph_params p = cantilever_params();
    p.branch_count = 1, p.branch_tau[0] = 0.08, p.branch_fraction[0] = 0.75;
    cr_ph *a = make_straight(&p, cr_v3(0, 0, 0), cr_v3(0, -1, 0), cr_v3(0, 0, -1), cr_v3(1, 0, 0));
    cr_ph *b = make_straight(&p, cr_v3(0, 0, 0), cr_v3(0, -1, 0), cr_v3(0, 0, -1), cr_v3(1, 0, 0));
    int nn = cr_ph_node_count(a);
    cr_vec3 *F = calloc(nn, sizeof *F);
    cr_ph_loads L = {F, NULL, {0, 0, 0}, {0, 0, 0}, NULL};
    double *buf = malloc(sizeof(double) * cr_ph_packed_size(a));
    for (int n = 0; n < 40; ++n) {
        F[nn - 1] = cr_v3(0, n < 20 ? 1 : 0, 0.5);
        if (n == 20) {
            cr_ph_pack(a, buf);
            cr_ph_unpack(b, buf);
        }
        CHECK(cr_ph_step(a, p.h, &L, NULL, NULL) == CR_OK);
        if (n >= 20) CHECK(cr_ph_step(b, p.h, &L, NULL, NULL) == CR_OK);
    }
    cr_ph_diag da, db;
    cr_ph_diagnostics(a, &da);
    cr_ph_diagnostics(b, &db);
    CHECK(memcmp(&da, &db, sizeof da) == 0);
    CHECK(cr_ph_time(a) == cr_ph_time(b));
    free(F), free(buf);
    cr_ph_destroy(a), cr_ph_destroy(b);
}

/* ---------------------------------------------------------------- the examples through the scenario API */

/* Loads examples/NAME with overrides and runs it without writing files; r->sim is NULL on failure. */
static int run_example(const char *name, const char *const *sets, int nsets, cr_run_result *r)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", COSSERAT_SOURCE_DIR, name);
    cr_error err = {0};
    cr_scenario *sc = NULL;
    memset(r, 0, sizeof *r);
    if (cr_scenario_load_file(path, sets, nsets, &sc, &err) != CR_OK) {
        fprintf(stderr, "load %s: %s\n", name, err.message);
        return 0;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = "";
    cr_status st = cr_scenario_run(sc, &o, r, &err);
    if (st != CR_OK) fprintf(stderr, "run %s: %s\n", name, err.message);
    cr_scenario_destroy(sc);
    if (st != CR_OK && r->sim) cr_run_result_free(r), memset(r, 0, sizeof *r);
    return st == CR_OK;
}

static int col(const cr_run_result *r, const char *name)
{
    for (int k = 0; k < cr_run_result_series_columns(r); ++k)
        if (!strcmp(cr_run_result_series_name(r, k), name)) return k;
    fprintf(stderr, "no series column %s\n", name);
    CHECK(0);
    return 0;
}

static double cell(const cr_run_result *r, long row, int c)
{
    return cr_run_result_series_data(r)[row * cr_run_result_series_columns(r) + c];
}

/* the series row at time t (rows every output_dt from 0) */
static long row_at(const cr_run_result *r, double t)
{
    int ct = col(r, "t");
    for (long i = 0; i < cr_run_result_series_rows(r); ++i)
        if (fabs(cell(r, i, ct) - t) < 1e-9) return i;
    CHECK(0);
    return 0;
}

static cr_vec3 tip_of(const cr_run_result *r) { return cr_sim_position(r->sim, cr_sim_node_count(r->sim) - 1); }

/* examples/quasistatic-cantilever.json (spec §9.3): the paper's setting, second-order convergence of the
   constrained rod to the analytic tip when n_e and h are refined together (also at t = 0.1, 0.2, 0.4),
   and the unconstrained variant against the static solution of the mixed discrete rod. */
static void example_quasistatic_cantilever(void)
{
    /* analytic tips (Harsch et al. 2021, via the paper) at t = 0.1, 0.2, 0.4, 1 */
    static const double ta[4] = {0.1, 0.2, 0.4, 1.0};
    static const double xa[4][2] = {{6.222990526970057, -0.8178393320172395},
                                    {6.075659876146945, -1.508365869258415},
                                    {5.720983446875224, -2.436484374500409},
                                    {4.978534566947578, -3.467635700715490}};
    cr_run_result r;
    CHECK(run_example("quasistatic-cantilever.json", NULL, 0, &r));
    if (!r.sim) return;
    cr_vec3 tip = tip_of(&r);
    double e8 = hypot(tip.x - xa[3][0], tip.y - xa[3][1]);
    printf("  paper setting (n_e = 8, h = 0.01): tip (%.9f, %.9f), distance to analytic %.3e (spec: 2.2e-3)\n",
           tip.x, tip.y, e8);
    CHECK(e8 > 2.0e-3 && e8 < 2.4e-3);
    CHECK(fabs(tip.z) < 1e-12);
    CHECK(cr_run_result_series_rows(&r) == 101);
    cr_run_result_free(&r);

    double prev[4] = {0};
    for (int k = 0; k < 4; ++k) {
        char ne[64], h[64];
        snprintf(ne, sizeof ne, "rod.elements=%d", 8 << k);
        snprintf(h, sizeof h, "stages.0.time_step=%g", 0.02 / (1 << k));
        const char *sets[3] = {ne, h, "stages.0.output_dt=0.02"};
        CHECK(run_example("quasistatic-cantilever.json", sets, 3, &r));
        if (!r.sim) return;
        int cx = col(&r, "tip_x"), cy = col(&r, "tip_y");
        double e[4];
        for (int j = 0; j < 4; ++j) {
            long i = row_at(&r, ta[j]);
            e[j] = hypot(cell(&r, i, cx) - xa[j][0], cell(&r, i, cy) - xa[j][1]);
        }
        printf("  n_e = %2d, h = %.5f: tip errors at t = 0.1, 0.2, 0.4, 1: %.2e %.2e %.2e %.2e", 8 << k,
               0.02 / (1 << k), e[0], e[1], e[2], e[3]);
        if (k) printf(" (ratios %.1f %.1f %.1f %.1f)", prev[0] / e[0], prev[1] / e[1], prev[2] / e[2], prev[3] / e[3]);
        printf("\n");
        for (int j = 0; k && j < 4; ++j) CHECK(prev[j] / e[j] > 3.5); /* second order: 4 */
        if (k == 3) CHECK(e[0] < 1e-5 && e[1] < 1.2e-5 && e[2] < 1e-5 && e[3] < 5e-6);
        memcpy(prev, e, sizeof e);
        cr_run_result_free(&r);
    }

    /* unconstrained (extensible, shearable): quasistatic stepping converges at second order in h to the static
       equilibrium (static stage, same mesh), which agrees with the mixed discrete rod's (an independent
       formulation) */
    const char *pstat[] = {"rod.rigid_strains=[]", "rod.elements=32", "stages=[{\"type\": \"static\", \"load_steps\": 10}]"};
    const char *mixed[] = {"rod.rigid_strains=[]", "model={\"type\": \"mixed_discrete\"}", "rod.elements=64",
                           "stages=[{\"type\": \"static\", \"load_steps\": 10}]"};
    CHECK(run_example("quasistatic-cantilever.json", pstat, 3, &r));
    if (!r.sim) return;
    cr_vec3 ref = tip_of(&r);
    cr_run_result_free(&r);
    CHECK(run_example("quasistatic-cantilever.json", mixed, 4, &r));
    if (!r.sim) return;
    cr_vec3 refm = tip_of(&r);
    cr_run_result_free(&r);
    printf("  unconstrained statics: port-Hamiltonian n_e = 32 (%.7f, %.7f), mixed n = 64 (%.7f, %.7f), distance %.2e\n",
           ref.x, ref.y, refm.x, refm.y, cr_v3_norm(cr_v3_sub(ref, refm)));
    CHECK(cr_v3_norm(cr_v3_sub(ref, refm)) < 5e-4);
    CHECK(hypot(ref.x - xa[3][0], ref.y - xa[3][1]) > 1); /* a different problem from the Kirchhoff rod's */
    double d[3];
    for (int k = 0; k < 3; ++k) {
        char h[64];
        snprintf(h, sizeof h, "stages.0.time_step=%g", 0.02 / (1 << k));
        const char *sets[3] = {"rod.rigid_strains=[]", "rod.elements=32", h};
        CHECK(run_example("quasistatic-cantilever.json", sets, 3, &r));
        if (!r.sim) return;
        tip = tip_of(&r);
        d[k] = cr_v3_norm(cr_v3_sub(tip, ref));
        printf("  unconstrained quasistatic, n_e = 32, h = %.3f: tip (%.7f, %.7f), distance to statics %.3e%s", 0.02 / (1 << k),
               tip.x, tip.y, d[k], k ? "" : "\n");
        if (k) printf(" (ratio %.2f)\n", d[k - 1] / d[k]);
        if (k) CHECK(d[k - 1] / d[k] > 3.5);
        cr_run_result_free(&r);
    }
}

/* examples/cantilever-kirchhoff-viscous.json (spec §7, Example 2 viscous): the discrete energy balance with
   dissipation in every step, D monotone, H(T) - H(0) = W - D, the Kirchhoff constraints held; and the damping
   against the elastic example: the elastic energy after the pulse stays, the viscous one decays. */
static void example_viscous_cantilever(void)
{
    cr_run_result r, e;
    CHECK(run_example("cantilever-kirchhoff-viscous.json", NULL, 0, &r));
    CHECK(run_example("cantilever-kirchhoff.json", NULL, 0, &e));
    if (!r.sim || !e.sim) return;
    int H = col(&r, "energy_total"), W = col(&r, "work_external"), D = col(&r, "energy_dissipated");
    int bal = col(&r, "energy_balance"), g = col(&r, "constraint_violation");
    long n = cr_run_result_series_rows(&r), i05 = row_at(&r, 0.05);
    double worst = 0, gmax = 0, prevD = 0;
    int monotone = 1;
    for (long i = 0; i < n; ++i) {
        worst = fmax(worst, fabs(cell(&r, i, bal)));
        gmax = fmax(gmax, cell(&r, i, g));
        monotone &= cell(&r, i, D) >= prevD;
        prevD = cell(&r, i, D);
    }
    double Hp = cell(&r, i05, H), HT = cell(&r, n - 1, H), He = cell(&e, n - 1, H), He05 = cell(&e, i05, H);
    double closure = HT - cell(&r, 0, H) - cell(&r, n - 1, W) + cell(&r, n - 1, D);
    double shear = 0;
    for (int k = 0; k < cr_sim_sample_count(r.sim); ++k) {
        cr_vec3 gam;
        cr_sim_sample(r.sim, k, &gam, NULL, NULL, NULL);
        shear = fmax(shear, cr_v3_norm(cr_v3_sub(gam, cr_v3(1, 0, 0))));
    }
    printf("  viscous: H(0.05) = %.6g J -> H(0.3) = %.6g J (elastic: %.6g -> %.6g J); D = %.6g J, max |dE_n| %.2g J, "
           "H(T) - H(0) - W + D = %.2g J; orthonormality %.2g, |Gamma - Gamma0| %.2g\n",
           Hp, HT, He05, He, prevD, worst, closure, gmax, shear);
    CHECK(monotone && prevD > 1e-4);
    CHECK(worst < 1e-14 * fmax(1, Hp) + 1e-15);
    CHECK(fabs(closure) < 1e-12);
    CHECK(gmax < 1e-13 && shear < 1e-13);
    CHECK(HT < 0.5 * Hp);                          /* damped */
    CHECK(fabs(He - He05) < 1e-12 * He05);         /* the elastic rod keeps its energy */
    CHECK(cell(&r, n - 1, D) > HT);                /* most of the pulse's energy is gone after 0.25 s */
    cr_run_result_free(&r);
    cr_run_result_free(&e);
}

/* examples/soft-arm.json (spec §9.4). Statics first: three constant chamber pressures make a uniform actuation
   stress, so the equilibrium is an exact circular arc with stretch 1 + sum pA / EA and curvature
   |sum pA r| / EI, bent away from the resultant chamber force (a chamber lengthens its side). Then the
   dynamic maneuver: the tip runs round a circle of nearly that radius and height, at azimuth phi(t) + pi
   (away from the most pressurized side), with the exact discrete energy balance W_act = H(T) - H(0). */
static void example_soft_arm(void)
{
    const double L = 0.1755, d = 0.032, E = 6e5, rch = 0.010, Ach = M_PI * 0.005 * 0.005, pmax = 2e5;
    const double alpha[3] = {M_PI / 6, 5 * M_PI / 6, 3 * M_PI / 2};
    const double EA = E * M_PI * d * d / 4, EI = E * M_PI * pow(d, 4) / 64;
    /* phi = 0: p_k = pmax (1 + cos alpha_k) / 2; resultant force sum p_k A, moment arm along +d1 = +e1 */
    double F = 0, Fx = 0, Fy = 0;
    char pk[3][64];
    for (int k = 0; k < 3; ++k) {
        double p = 0.5 * pmax * (1 + cos(alpha[k]));
        F += p * Ach, Fx += p * Ach * rch * cos(alpha[k]), Fy += p * Ach * rch * sin(alpha[k]);
        snprintf(pk[k], sizeof pk[k], "loads.%d.pressure=%.17g", k, p);
    }
    double lam = 1 + F / EA, kap = hypot(Fx, Fy) / EI, th = kap * L;
    double rho_arc = lam * (1 - cos(th)) / kap, z_arc = lam * sin(th) / kap;
    const char *stat[5] = {pk[0], pk[1], pk[2], "stages=[{\"type\": \"static\", \"load_steps\": 4}]", "rod.elements=10"};
    cr_run_result r;
    CHECK(run_example("soft-arm.json", stat, 5, &r));
    if (!r.sim) return;
    cr_vec3 tip = tip_of(&r);
    printf("  static, phi = 0: tip (%.7f, %.7f, %.7f), exact arc (%.7f, 0, %.7f): stretch %.4f, bend %.4f rad\n",
           tip.x, tip.y, tip.z, -rho_arc, z_arc, lam, th);
    CHECK(fabs(Fy) < 1e-12 * F && Fx > 0); /* the resultant chamber force sits on the +d1 = +e1 side */
    CHECK_NEAR(tip.x, -rho_arc, 2e-6);     /* and the arm bends away from it, toward -e1 */
    CHECK_NEAR(tip.y, 0, 1e-12);
    CHECK_NEAR(tip.z, z_arc, 2e-6);
    cr_run_result_free(&r);

    CHECK(run_example("soft-arm.json", NULL, 0, &r));
    if (!r.sim) return;
    int ct = col(&r, "t"), cx = col(&r, "tip_x"), cy = col(&r, "tip_y"), cz = col(&r, "tip_z");
    int H = col(&r, "energy_total"), W = col(&r, "work_external"), bal = col(&r, "energy_balance");
    long n = cr_run_result_series_rows(&r);
    double rmin = 1, rmax = 0, zmin = 1, zmax = 0, azerr = 0, worst = 0;
    for (long i = 0; i < n; ++i) {
        double t = cell(&r, i, ct), x = cell(&r, i, cx), y = cell(&r, i, cy), z = cell(&r, i, cz);
        worst = fmax(worst, fabs(cell(&r, i, bal)));
        if (t < 1.0 - 1e-9 || t > 3.5 + 1e-9) continue; /* the circle, after the ramp-up has settled */
        double rho = hypot(x, y), phi = M_PI * (1 - cos(M_PI * (t - 0.5) / 3.0));
        double daz = remainder(atan2(y, x) - (phi + M_PI), 2 * M_PI);
        rmin = fmin(rmin, rho), rmax = fmax(rmax, rho), zmin = fmin(zmin, z), zmax = fmax(zmax, z);
        azerr = fmax(azerr, fabs(daz));
    }
    double Hn = cell(&r, n - 1, H), closure = Hn - cell(&r, 0, H) - cell(&r, n - 1, W);
    printf("  circle (1 <= t <= 3.5 s): tip radius %.4f..%.4f m (arc %.4f), height %.4f..%.4f m (arc %.4f), azimuth "
           "within %.1f deg of phi + 180 deg; max |dE_n| %.2g J, H(T) - H(0) - W_act = %.2g J\n",
           rmin, rmax, rho_arc, zmin, zmax, z_arc, azerr * 180 / M_PI, worst, closure);
    CHECK(rmin > 0.95 * rho_arc && rmax < 1.05 * rho_arc);
    CHECK(zmin > 0.99 * z_arc && zmax < 1.01 * z_arc);
    CHECK(azerr < 12 * M_PI / 180);
    CHECK(worst < 1e-14);
    CHECK(fabs(closure) < 1e-13);
    cr_run_result_free(&r);
}

CHECK_MAIN(CASE(ph_jacobian), CASE(ph_spaghetti), CASE(ph_kirchhoff_cantilever), CASE(ph_quasistatic),
           CASE(ph_viscous_cantilever), CASE(ph_creep), CASE(ph_static),
           CASE(ph_actuation), CASE(ph_bad_input), CASE(ph_checkpoint), CASE(example_quasistatic_cantilever),
           CASE(example_viscous_cantilever), CASE(example_soft_arm))
