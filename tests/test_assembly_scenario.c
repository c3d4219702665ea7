/* An assembly from a scenario file through the formulation table (model/formulation.h): the
 * rod-by-rod numbering of the accessors, and the checkpoint's pack/unpack of the whole
 * assembly state (every rod's state, the joints' multipliers, the load and closing factors)
 * restoring the solved state exactly in a fresh discretization (reference: the solved state
 * itself, bit for bit), with a fingerprint that tells the joints apart. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "model/formulation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ARCH = COSSERAT_SOURCE_DIR "/examples/three-hinged-arch.json";

static cr_scenario *load(const char *const *sets, int n)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_file(ARCH, sets, n, &sc, &err) != CR_OK) fprintf(stderr, "load: %s\n", err.message);
    return sc;
}

static void numbering(void)
{
    cr_scenario *sc = load(NULL, 0);
    CHECK(sc != NULL);
    if (!sc) return;
    CHECK(cr_scenario_is_assembly(sc) && sc->rod_count == 2 && sc->joint_count == 1);
    cr_error err = {0};
    cr_sim *sim = cr_sim_create_scenario(sc, &err);
    CHECK(sim != NULL);
    if (sim) {
        CHECK(cr_sim_rod_count(sim) == 2 && cr_sim_node_count(sim) == 42 && cr_sim_sample_count(sim) == 40);
        CHECK(cr_sim_rod_first_node(sim, 1) == 21 && cr_sim_rod_first_sample(sim, 1) == 20);
        CHECK(!strcmp(cr_sim_rod_name(sim, 1), "right") && cr_sim_node_rod(sim, 21) == 1 &&
              cr_sim_node_rod(sim, 20) == 0);
        CHECK(!strcmp(cr_sim_joint_name(sim, 0), "crown") && cr_sim_joint_count(sim) == 1);
        /* rod by rod: node 21 is the right rod's start, at the crown of the reference */
        cr_vec3 c = cr_sim_position(sim, 21);
        CHECK_NEAR(c.x, 1.0, 1e-15);
        CHECK_NEAR(c.z, 0.75, 1e-15);
        CHECK_NEAR(cr_sim_node_s(sim, 21), 0.0, 0);
        cr_sim_destroy(sim);
    }
    cr_scenario_destroy(sc);
}

static void checkpoint_round_trip(void)
{
    cr_scenario *sc = load(NULL, 0);
    const char *weld[] = {"joints.0={\"type\": \"weld\", \"a\": \"left:end\", \"b\": \"right:start\"}"};
    cr_scenario *sw = load(weld, 1);
    CHECK(sc && sw);
    if (!sc || !sw) return;
    cr_error err = {0};
    cr_sim *a = cr_sim_create_scenario(sc, &err), *b = cr_sim_create_scenario(sc, &err);
    cr_sim *w = cr_sim_create_scenario(sw, &err);
    CHECK(a && b && w);
    if (a && b && w) {
        cr_stage_callbacks cb = {0};
        cr_static_report rep = {0};
        CHECK(a->f->static_stage(a, 0, &sc->stages[0].statics, &cb, &rep, &err) == CR_OK);
        cr_static_report_free(&rep);
        CHECK(a->f->fingerprint(a->impl) == b->f->fingerprint(b->impl));
        CHECK(a->f->fingerprint(a->impl) != w->f->fingerprint(w->impl)); /* a hinge is not a weld */
        int n = a->f->packed_size(a->impl);
        CHECK(n == b->f->packed_size(b->impl) && n > 42 * 7);
        double *buf = malloc((size_t)n * sizeof *buf);
        a->f->pack(a->impl, buf);
        b->f->unpack(b->impl, buf);
        CHECK(cr_sim_load_factor(b) == 1.0);
        for (int i = 0; i < cr_sim_node_count(a); ++i) {
            cr_vec3 x = cr_sim_position(a, i), y = cr_sim_position(b, i);
            CHECK(x.x == y.x && x.y == y.y && x.z == y.z);
        }
        cr_vec3 fa, ma, fb, mb;
        CHECK(cr_sim_joint_reaction(a, 0, &fa, &ma) == CR_OK && cr_sim_joint_reaction(b, 0, &fb, &mb) == CR_OK);
        CHECK(fa.x == fb.x && fa.z == fb.z && ma.y == mb.y);
        CHECK(fa.x < -6000); /* a solved state, not the reference's zero multipliers */
        free(buf);
    }
    cr_sim_destroy(a);
    cr_sim_destroy(b);
    cr_sim_destroy(w);
    cr_scenario_destroy(sc);
    cr_scenario_destroy(sw);
}

CHECK_MAIN(CASE(numbering), CASE(checkpoint_round_trip))
