/* Contact between the rods of an assembly (contact.rods, src/mixed/assembly_contact.c): at a
 * state where the upper rod of examples/crossing-cables.json is pushed into the lower one
 * (off-centre and turned, so that both closest points lie inside their segments), the pairs'
 * forces over the rods' global node numbering are equal and opposite (they sum to zero), and
 * the stiffness the assembly's solves take as their low-rank term (the pairs' K summed on the
 * global nodes) matches central differences of those forces with the pairs found again at
 * every perturbed position (reference: finite differences). */
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

CHECK_MAIN(CASE(stiffness_matches_differences))
