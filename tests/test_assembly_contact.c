/* Contact between the rods of an assembly (contact.rods, src/mixed/assembly_contact.c): at a
 * state where the upper rod of examples/crossing-cables.json is pushed into the lower one
 * (off-centre and turned, so that both closest points lie inside their segments), the pairs'
 * forces over the rods' global node numbering are equal and opposite (they sum to zero), and
 * the stiffness the assembly's solves take as their low-rank term (the pairs' K summed on the
 * global nodes) matches central differences of those forces with the pairs found again at
 * every perturbed position (reference: finite differences). With friction (contact.rods_friction,
 * dynamic stages), anchored at one state and moved along the contact, sticking and sliding:
 * the forces sum to zero and, with the friction's moments, so do their moments about the origin
 * (momentum and angular momentum exact), and the friction's stiffness matches central
 * differences too. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "mixed/assembly_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *EX = COSSERAT_SOURCE_DIR "/examples/crossing-cables.json";

/* the summed contact forces on every global node (3 each) at the state */
static int forces(cr_asm_contact *c, const cr_assembly *a, const cr_assembly_state *s, double *F, double *K, int nk)
{
    cr_asm_contact_gather(c, a, s);
    const int np = cr_asm_contact_find(c, NULL);
    memset(F, 0, (size_t)3 * cr_asm_contact_nodes(c) * sizeof *F);
    if (K) memset(K, 0, (size_t)nk * nk * sizeof *K);
    for (int k = 0; k < np; ++k) {
        int nodes[4];
        double f[12], Kp[144];
        cr_asm_contact_pair_force(c, k, nodes, f, Kp);
        for (int q = 0; q < 4; ++q)
            for (int r = 0; r < 3; ++r) {
                F[3 * nodes[q] + r] += f[3 * q + r];
                if (K)
                    for (int p = 0; p < 4; ++p)
                        for (int e = 0; e < 3; ++e)
                            K[(size_t)(3 * nodes[q] + r) * nk + 3 * nodes[p] + e] += Kp[(3 * q + r) * 12 + 3 * p + e];
            }
    }
    return np;
}

static void stiffness_matches_differences(void)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    CHECK(cr_scenario_load_file(EX, NULL, 0, &sc, &err) == CR_OK);
    if (!sc) return;
    cr_assembly_def def = {
        .rod_count = sc->rod_count, .rods = sc->rods, .joint_count = sc->joint_count, .joints = sc->joints};
    cr_assembly *a = cr_assembly_create(&def, &err);
    CHECK(a != NULL && a->contact != NULL);
    cr_assembly_state *s = a ? cr_assembly_state_create(a) : NULL;
    if (!s) {
        cr_assembly_destroy(a);
        cr_scenario_destroy(sc);
        return;
    }
    cr_asm_contact *c = a->contact;
    /* the upper rod 2 mm into the lower one, shifted along x by 7 mm and turned by 0.1 rad about z
     * and 9 mm along its own axis (the crossing off both rods' nodes), and bent a little */
    const cr_model *mu = a->models[1];
    for (int i = 0; i < mu->nodes; ++i) {
        cr_vec3 r = cr_state_position(s->rods[1], i);
        const double y = r.y + 0.009, ca = cos(0.1), sa = sin(0.1); /* off its nodes too */
        r.x = 0.5 + 0.007 - sa * y, r.y = ca * y, r.z = 0.018 + 0.01 * y * y;
        cr_state_set_pose(s->rods[1], i, r, cr_state_orientation(s->rods[1], i));
    }
    const int nn = cr_asm_contact_nodes(c), nk = 3 * nn;
    double *F = calloc((size_t)nk, sizeof *F), *Fp = calloc((size_t)nk, sizeof *Fp),
           *Fm = calloc((size_t)nk, sizeof *Fm), *K = calloc((size_t)nk * nk, sizeof *K);
    const int np = forces(c, a, s, F, K, nk);
    CHECK(np >= 1);
    double sum[3] = {0, 0, 0}, fmax = 0, kmax = 0;
    for (int g = 0; g < nn; ++g)
        for (int r = 0; r < 3; ++r)
            sum[r] += F[3 * g + r], fmax = fmax > fabs(F[3 * g + r]) ? fmax : fabs(F[3 * g + r]);
    CHECK(fmax > 1.0); /* pressing */
    for (int r = 0; r < 3; ++r) CHECK_NEAR(sum[r], 0.0, 1e-12 * fmax);
    for (int k = 0; k < nk * nk; ++k) kmax = kmax > fabs(K[k]) ? kmax : fabs(K[k]);
    /* central differences at every coordinate of the nodes the pairs touch */
    const double h = 1e-7;
    double worst = 0;
    int columns = 0;
    for (int g = 0; g < nn; ++g) {
        int any = 0;
        for (int k = 0; k < nk && !any; ++k)
            for (int e = 0; e < 3; ++e) any |= K[(size_t)k * nk + 3 * g + e] != 0;
        if (!any) continue;
        int node;
        const int r = cr_asm_contact_rod_of(c, g, &node);
        for (int e = 0; e < 3; ++e) {
            cr_vec3 x0 = cr_state_position(s->rods[r], node), xp = x0, xm = x0;
            double *pp = e == 0 ? &xp.x : e == 1 ? &xp.y : &xp.z, *pm = e == 0 ? &xm.x : e == 1 ? &xm.y : &xm.z;
            *pp += h, *pm -= h;
            const cr_quat q = cr_state_orientation(s->rods[r], node);
            cr_state_set_pose(s->rods[r], node, xp, q);
            forces(c, a, s, Fp, NULL, nk);
            cr_state_set_pose(s->rods[r], node, xm, q);
            forces(c, a, s, Fm, NULL, nk);
            cr_state_set_pose(s->rods[r], node, x0, q);
            for (int k = 0; k < nk; ++k) {
                const double fd = (Fp[k] - Fm[k]) / (2 * h), d = fabs(fd - K[(size_t)k * nk + 3 * g + e]);
                worst = worst > d ? worst : d;
            }
            ++columns;
        }
    }
    CHECK(columns >= 12); /* four nodes of a pair at least */
    printf("contact between rods: %d pairs, %d columns, largest |K| %.3g N/m, largest FD difference %.3g "
           "(relative %.2g)\n",
           np, columns, kmax, worst, worst / kmax);
    CHECK(worst <= 1e-6 * kmax);
    free(F), free(Fp), free(Fm), free(K);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    cr_scenario_destroy(sc);
}

/* the forces F and moments M (3 a global node) with friction, K their force stiffness */
static int forces_fric(cr_asm_contact *c, const cr_assembly *a, const cr_assembly_state *s, double *F, double *M,
                       double *K, int nk, int *slid)
{
    cr_asm_contact_gather(c, a, s);
    const int np = cr_asm_contact_find(c, NULL);
    memset(F, 0, (size_t)nk * sizeof *F);
    if (M) memset(M, 0, (size_t)nk * sizeof *M);
    if (K) memset(K, 0, (size_t)nk * nk * sizeof *K);
    for (int k = 0; k < np; ++k) {
        int nodes[4], sl;
        double f[12], Kp[144], mom[12];
        cr_asm_contact_pair_force_friction(c, k, nodes, f, Kp, mom, &sl);
        if (slid) *slid |= sl;
        for (int q = 0; q < 4; ++q)
            for (int r = 0; r < 3; ++r) {
                F[3 * nodes[q] + r] += f[3 * q + r];
                if (M) M[3 * nodes[q] + r] += mom[3 * q + r];
                if (K)
                    for (int p = 0; p < 4; ++p)
                        for (int e = 0; e < 3; ++e)
                            K[(size_t)(3 * nodes[q] + r) * nk + 3 * nodes[p] + e] += Kp[(3 * q + r) * 12 + 3 * p + e];
            }
    }
    return np;
}

/* statics: the wrenches (6 a global node: force, moment in the node's basis) and their
 * Jacobian J (6 nn × 7 nn: columns r, p of every node) at the nodes' positions and quaternions y
 * (7 a global node) */
static int wrenches(cr_asm_contact *c, const double *y, double *W, double *J, int nn)
{
    cr_asm_contact_gather_y(c, y, 7);
    const int np = cr_asm_contact_find(c, NULL);
    memset(W, 0, (size_t)6 * nn * sizeof *W);
    if (J) memset(J, 0, (size_t)42 * nn * nn * sizeof *J);
    for (int k = 0; k < np; ++k) {
        int nodes[4];
        double f[24], Jp[24 * 28];
        cr_asm_contact_pair_wrench(c, k, nodes, f, J ? Jp : NULL);
        for (int q = 0; q < 4; ++q)
            for (int r = 0; r < 6; ++r) {
                W[6 * nodes[q] + r] += f[6 * q + r];
                if (J)
                    for (int p = 0; p < 4; ++p)
                        for (int e = 0; e < 7; ++e)
                            J[(size_t)(6 * nodes[q] + r) * 7 * nn + 7 * nodes[p] + e] +=
                                Jp[(6 * q + r) * 28 + 7 * p + e];
            }
    }
    return np;
}

/* statics: the force and moment rows' derivatives by the positions and the quaternions (the
 * friction at the contact points: the levers turn with the nodes) against central differences,
 * each block (force or moment rows, position or quaternion columns) to 1e-6 of its largest entry */
static void wrench_matches_differences(cr_asm_contact *c, const cr_assembly *a, const cr_assembly_state *s)
{
    const int nn = cr_asm_contact_nodes(c);
    double *y = malloc((size_t)7 * nn * sizeof *y), *W = malloc((size_t)6 * nn * sizeof *W),
           *Wp = malloc((size_t)6 * nn * sizeof *Wp), *Wm = malloc((size_t)6 * nn * sizeof *Wm),
           *J = malloc((size_t)42 * nn * nn * sizeof *J);
    for (int g = 0; g < nn; ++g) {
        int node;
        const int r = cr_asm_contact_rod_of(c, g, &node);
        cr_v3_store(cr_state_position(s->rods[r], node), y + 7 * g);
        cr_q_store(cr_state_orientation(s->rods[r], node), y + 7 * g + 3);
    }
    const int np = wrenches(c, y, W, J, nn);
    double big[2][2] = {{0, 0}, {0, 0}}, worst[2][2] = {{0, 0}, {0, 0}}, mom = 0; /* [rows][columns] */
    for (int i = 0; i < 6 * nn; ++i) {
        if (i % 6 >= 3) mom = fmax(mom, fabs(W[i]));
        for (int j = 0; j < 7 * nn; ++j) {
            double *b = &big[i % 6 >= 3][j % 7 >= 3];
            *b = fmax(*b, fabs(J[(size_t)i * 7 * nn + j]));
        }
    }
    const double h = 1e-7;
    for (int j = 0; j < 7 * nn; ++j) {
        int any = 0;
        for (int i = 0; i < 6 * nn && !any; ++i) any = J[(size_t)i * 7 * nn + j] != 0;
        if (!any) continue;
        const double y0 = y[j];
        y[j] = y0 + h, wrenches(c, y, Wp, NULL, nn);
        y[j] = y0 - h, wrenches(c, y, Wm, NULL, nn);
        y[j] = y0;
        for (int i = 0; i < 6 * nn; ++i) {
            const double d = fabs((Wp[i] - Wm[i]) / (2 * h) - J[(size_t)i * 7 * nn + j]);
            double *w = &worst[i % 6 >= 3][j % 7 >= 3];
            *w = fmax(*w, d);
        }
    }
    printf("  static wrench: %d pairs, moments up to %.3g N m; FD differences (relative to each block's largest): "
           "force/r %.2g of %.3g, force/p %.2g of %.3g, moment/r %.2g of %.3g, moment/p %.2g of %.3g\n",
           np, mom, worst[0][0] / big[0][0], big[0][0], worst[0][1] / big[0][1], big[0][1], worst[1][0] / big[1][0],
           big[1][0], worst[1][1] / big[1][1], big[1][1]);
    CHECK(np >= 1 && mom > 0);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) CHECK(big[i][j] > 0 && worst[i][j] <= 1e-6 * big[i][j]);
    free(y), free(W), free(Wp), free(Wm), free(J);
}

/* statics: anchored by the static stage's begin, an update (λ_T ← the friction force, a
 * sliding pair's anchors moved) after the first move, and a second move: the stiffness with
 * the multiplier's term P λ_T against differences */
static void friction_case(double mu, int expect_slip, int statics)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    CHECK(cr_scenario_load_file(EX, NULL, 0, &sc, &err) == CR_OK);
    if (!sc) return;
    for (int r = 0; r < sc->rod_count; ++r)
        sc->rods[r].rod.contact.rods_mu_static = mu, sc->rods[r].rod.contact.rods_mu_kinetic = 0.5 * mu;
    cr_assembly_def def = {
        .rod_count = sc->rod_count, .rods = sc->rods, .joint_count = sc->joint_count, .joints = sc->joints};
    cr_assembly *a = cr_assembly_create(&def, &err);
    CHECK(a != NULL && a->contact != NULL);
    cr_assembly_state *s = a ? cr_assembly_state_create(a) : NULL;
    if (!s) {
        cr_assembly_destroy(a);
        cr_scenario_destroy(sc);
        return;
    }
    cr_asm_contact *c = a->contact;
    const cr_model *mu1 = a->models[1];
    /* pressed in by 2 mm, turned and off the nodes as above; anchored there, then the upper
     * rod moved by 0.3 mm along x and 0.5 mm along its own axis (bent a little more) */
    for (int pass = 0; pass < 2 + statics; ++pass) {
        for (int i = 0; i < mu1->nodes; ++i) {
            cr_vec3 r = cr_state_position(s->rods[1], i);
            if (pass == 0) {
                const double y = r.y + 0.009, ca = cos(0.1), sa = sin(0.1);
                r.x = 0.5 + 0.007 - sa * y, r.y = ca * y, r.z = 0.018 + 0.01 * y * y;
            } else if (pass == 1) {
                r.x += 3e-4, r.y += 5e-4, r.z += 2e-3 * r.y * r.y;
            } else {
                r.x -= 1e-4, r.y += 2e-4, r.z -= 5e-4 * r.y * r.y;
            }
            cr_quat q = cr_state_orientation(s->rods[1], i);
            if (statics) /* the sections turned too, about varying axes: the levers turn with them */
                q = cr_q_mul(cr_q_axis_angle(cr_v3_normalize(cr_v3(0.3 + 0.01 * pass, 1.0 - 0.2 * i / mu1->nodes, 0.2)),
                                             pass == 0 ? 0.05 + 0.01 * i : 0.002),
                             q);
            cr_state_set_pose(s->rods[1], i, r, q);
        }
        cr_asm_contact_gather(c, a, s);
        if (pass == 0 && !statics) cr_asm_contact_dynamic_begin(c, 0);
        if (pass == 0 && statics) cr_asm_contact_static_begin(c);
        if (pass == 1 && statics) CHECK(cr_asm_contact_static_update(c, NULL, NULL) == 1); /* (no pair new or opened) */
    }
    const int nn = cr_asm_contact_nodes(c), nk = 3 * nn;
    double *F = calloc((size_t)nk, sizeof *F), *M = calloc((size_t)nk, sizeof *M), *Fp = calloc((size_t)nk, sizeof *Fp),
           *Fm = calloc((size_t)nk, sizeof *Fm), *K = calloc((size_t)nk * nk, sizeof *K),
           *K0 = calloc((size_t)nk * nk, sizeof *K0), *F0 = calloc((size_t)nk, sizeof *F0);
    int slid = 0;
    const int np = forces_fric(c, a, s, F, M, K, nk, &slid);
    forces(c, a, s, F0, K0, nk); /* frictionless */
    CHECK(np >= 1);
    CHECK(slid == expect_slip);
    /* zero force and zero moment about the origin: Σ f, Σ x × f + m */
    double sf[3] = {0, 0, 0}, sm[3] = {0, 0, 0}, fbig = 0, ft = 0, kf = 0;
    for (int g = 0; g < nn; ++g) {
        int node;
        const int r = cr_asm_contact_rod_of(c, g, &node);
        const cr_vec3 x = cr_state_position(s->rods[r], node), f = cr_v3_load(F + 3 * g);
        const cr_vec3 xf = cr_v3_add(cr_v3_cross(x, f), cr_v3_load(M + 3 * g));
        sm[0] += xf.x, sm[1] += xf.y, sm[2] += xf.z;
        for (int e = 0; e < 3; ++e) {
            sf[e] += F[3 * g + e], fbig = fbig > fabs(F[3 * g + e]) ? fbig : fabs(F[3 * g + e]);
            ft = ft > fabs(F[3 * g + e] - F0[3 * g + e]) ? ft : fabs(F[3 * g + e] - F0[3 * g + e]);
        }
    }
    for (int k = 0; k < nk * nk; ++k) kf = kf > fabs(K[k] - K0[k]) ? kf : fabs(K[k] - K0[k]);
    CHECK(ft > 0.05 * fbig); /* the friction acts */
    for (int e = 0; e < 3; ++e) {
        CHECK_NEAR(sf[e], 0.0, 1e-12 * fbig);
        CHECK_NEAR(sm[e], 0.0, 1e-12 * fbig);
    }
    const double h = 1e-7;
    double worst = 0;
    for (int g = 0; g < nn; ++g) {
        int any = 0;
        for (int k = 0; k < nk && !any; ++k)
            for (int e = 0; e < 3; ++e) any |= K[(size_t)k * nk + 3 * g + e] != 0;
        if (!any) continue;
        int node;
        const int r = cr_asm_contact_rod_of(c, g, &node);
        for (int e = 0; e < 3; ++e) {
            cr_vec3 x0 = cr_state_position(s->rods[r], node), xp = x0, xm = x0;
            double *pp = e == 0 ? &xp.x : e == 1 ? &xp.y : &xp.z, *pm = e == 0 ? &xm.x : e == 1 ? &xm.y : &xm.z;
            *pp += h, *pm -= h;
            const cr_quat q = cr_state_orientation(s->rods[r], node);
            cr_state_set_pose(s->rods[r], node, xp, q);
            forces_fric(c, a, s, Fp, NULL, NULL, nk, NULL);
            cr_state_set_pose(s->rods[r], node, xm, q);
            forces_fric(c, a, s, Fm, NULL, NULL, nk, NULL);
            cr_state_set_pose(s->rods[r], node, x0, q);
            for (int k = 0; k < nk; ++k) {
                const double fd = (Fp[k] - Fm[k]) / (2 * h), d = fabs(fd - K[(size_t)k * nk + 3 * g + e]);
                worst = worst > d ? worst : d;
            }
        }
    }
    printf("friction between rods (%s, mu_s %g, %s): %d pairs, largest friction force %.3g N of %.3g, sums %.2g N, "
           "%.2g N m; friction stiffness up to %.3g N/m, largest FD difference %.3g (relative %.2g)\n",
           statics ? "statics" : "dynamics", mu, expect_slip ? "sliding" : "sticking", np, ft, fbig,
           fmax(fabs(sf[0]), fmax(fabs(sf[1]), fabs(sf[2]))), fmax(fabs(sm[0]), fmax(fabs(sm[1]), fabs(sm[2]))), kf,
           worst, worst / kf);
    CHECK(kf > 0 && worst <= 1e-6 * kf);
    if (statics) {
        wrench_matches_differences(c, a, s);
        /* a dynamic stage after the static one takes the sticking pairs over: each multiplier moved into its
           anchors (U = g_T - P lambda_T / eps), the springs carry the same forces at the same state */
        cr_asm_contact_dynamic_begin(c, 0);
        forces_fric(c, a, s, Fp, NULL, NULL, nk, NULL);
        double carried = 0;
        for (int k = 0; k < nk; ++k) carried = fmax(carried, fabs(Fp[k] - F[k]));
        printf("  a dynamic stage after it: the friction forces move by %.3g N (of %.3g)\n", carried, fbig);
        if (!expect_slip) CHECK(carried <= 1e-8 * fbig);
        goto done;
    }
    /* checkpoints: the anchors packed, refused when they are not this assembly's, and unpacked
     * into a contact anchored elsewhere give the friction forces as they were, to the bit */
    const int n = cr_asm_contact_packed_size(c);
    double *pk = malloc((size_t)n * sizeof *pk);
    cr_asm_contact_pack(c, pk);
    CHECK(n == 1 + 11 * (int)pk[0] && pk[0] >= 1);
    CHECK(cr_asm_contact_unpacked_size(c, pk, n) == n);
    CHECK(cr_asm_contact_unpacked_size(c, pk, n - 1) == -1); /* its count needs more than there is */
    pk[2] = pk[1];                                           /* an anchor on segments (a, a) */
    CHECK(cr_asm_contact_unpacked_size(c, pk, n) == -1);
    cr_asm_contact_pack(c, pk);
    /* a new dynamic stage takes the anchors over (a stage boundary is no physical event): a
     * sticking pair's force unchanged, to the bit */
    cr_asm_contact_dynamic_begin(c, 0);
    forces_fric(c, a, s, Fp, NULL, NULL, nk, NULL);
    double kept = 0, moved = 0, back = 0;
    for (int k = 0; k < nk; ++k) kept = fmax(kept, fabs(Fp[k] - F[k]));
    if (!expect_slip) CHECK(kept == 0.0);
    const double none = 0; /* a checkpoint of a state where nothing sticks: no anchors */
    CHECK(cr_asm_contact_unpack(c, &none) == 0);
    cr_asm_contact_dynamic_begin(c, 0); /* a new stage without anchors: anchored afresh where the rods are now */
    forces_fric(c, a, s, Fp, NULL, NULL, nk, NULL);
    for (int k = 0; k < nk; ++k) moved = fmax(moved, fabs(Fp[k] - F[k]));
    CHECK(cr_asm_contact_unpack(c, pk) == 0);
    forces_fric(c, a, s, Fp, NULL, NULL, nk, NULL);
    for (int k = 0; k < nk; ++k) back = fmax(back, fabs(Fp[k] - F[k]));
    printf("  anchors packed (%d doubles): a new stage taking them over moves the forces by %g N, anchored afresh by "
           "%.3g N, unpacked by %g N\n",
           n, kept, moved, back);
    CHECK(moved > 0.01 * fbig && back == 0.0);
    free(pk);
done:
    free(F), free(M), free(Fp), free(Fm), free(K), free(K0), free(F0);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    cr_scenario_destroy(sc);
}

static void friction_sticks(void) { friction_case(1.0, 0, 0); }
static void friction_slides(void) { friction_case(0.1, 1, 0); }
static void static_friction_sticks(void) { friction_case(1.0, 0, 1); }
static void static_friction_slides(void) { friction_case(0.1, 1, 1); }

CHECK_MAIN(CASE(stiffness_matches_differences), CASE(friction_sticks), CASE(friction_slides),
           CASE(static_friction_sticks), CASE(static_friction_slides))
