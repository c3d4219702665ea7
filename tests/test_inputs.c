#define _POSIX_C_SOURCE 200809L
/* Actuator inputs (cr_sim_set_load_input) and the runner's output hook
 * (cr_run_options.on_output): the API's checks, inputs carried by checkpoints'
 * packed state in every formulation (unpacked, and through a stopped and resumed
 * run), and a controller-like hook that switches a load off at an output time,
 * against a scenario whose load ends there. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "model/formulation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A clamped cantilever with a tip force (every formulation can run it). */
static const char *const CANTILEVER =
    "{'model': {'type': 'MODEL'}, 'rod': {'length': 1, 'elements': 8, 'sections': [{'shape': 'resultants', "
    "'EA': 1e4, 'GA_y': 1e4, 'GA_z': 1e4, 'GJ': 1, 'EI_y': 1, 'EI_z': 1, 'rhoA': 1, 'rhoI_y': 1e-3, "
    "'rhoI_z': 1e-3}]}, 'boundary_conditions': [{'type': 'clamp', 'node': 'start'}], 'loads': [{'type': "
    "'force', 'node': 'end', 'value': [0, 0.1, 0]}, {'type': 'gravity', 'value': [0, 0, -1]}], 'stages': "
    "[{'type': 'dynamic', 't_end': 0.2, 'output_dt': 0.05}]}";

static cr_scenario *load(const char *model, const char *const *sets, int nsets)
{
    char *text = strdup(CANTILEVER), *p = strstr(text, "MODEL");
    for (char *q = text; *q; ++q)
        if (*q == '\'') *q = '"';
    char buf[2048];
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - text), text, model, p + 5);
    free(text);
    cr_scenario *sc = NULL;
    cr_error err = {0};
    if (cr_scenario_load_string(buf, sets, nsets, &sc, &err) != CR_OK) fprintf(stderr, "load: %s\n", err.message);
    return sc;
}

static const char *const MODELS[] = {"mixed_discrete", "port_hamiltonian", "lgvi"};
static const char *const FIXED_STEP[] = {"stages.0.time_step=2.5e-4"};

static void test_api(void)
{
    for (int k = 0; k < 3; ++k) {
        cr_scenario *sc = load(MODELS[k], FIXED_STEP, k > 0);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_error err = {0};
        cr_sim *sim = cr_sim_create(&sc->rod, &sc->model, &err);
        CHECK(sim != NULL);
        if (sim) {
            CHECK(cr_sim_load_count(sim) == 2);
            CHECK(!strcmp(cr_sim_load_type(sim, 0), "force"));
            CHECK(!strcmp(cr_sim_load_type(sim, 1), "gravity"));
            CHECK(cr_sim_load_type(sim, 2) == NULL);
            CHECK(cr_sim_load_input(sim, 0) == 1.0 && cr_sim_load_input(sim, 1) == 1.0);
            CHECK(cr_sim_set_load_input(sim, 2, 0.5) == CR_BAD_INPUT);
            CHECK(cr_sim_set_load_input(sim, -1, 0.5) == CR_BAD_INPUT);
            CHECK(cr_sim_set_load_input(sim, 0, NAN) == CR_BAD_INPUT);
            CHECK(cr_sim_load_input(sim, 0) == 1.0);
            CHECK(isnan(cr_sim_load_input(sim, 7)));
            CHECK(cr_sim_set_load_input(sim, 1, -0.25) == CR_OK);
            CHECK(cr_sim_load_input(sim, 1) == -0.25);
            /* the packed state carries the inputs: a fresh sim unpacked from it has them */
            int n = sim->f->packed_size(sim->impl);
            double *buf = malloc(n * sizeof *buf);
            sim->f->pack(sim->impl, buf);
            cr_sim *other = cr_sim_create(&sc->rod, &sc->model, &err);
            CHECK(other && other->f->packed_size(other->impl) == n);
            if (other) {
                CHECK(cr_sim_load_input(other, 1) == 1.0);
                other->f->unpack(other->impl, buf);
                CHECK(cr_sim_load_input(other, 1) == -0.25);
                CHECK(cr_sim_load_input(other, 0) == 1.0);
            }
            cr_sim_destroy(other);
            free(buf);
        }
        cr_sim_destroy(sim);
        cr_scenario_destroy(sc);
    }
}

/* The hook switches the tip force off at t_off (an output time); the reference
 * scenario's force has a time table that drops to 0 right after t_off. */
typedef struct hook {
    double t_off;
    int calls;
    double last_t;
} hook;

static int switch_off(cr_sim *sim, const cr_dynamic_sample *smp, void *user)
{
    hook *h = user;
    h->calls++;
    h->last_t = smp->t;
    if (smp->t >= h->t_off - 1e-12) cr_sim_set_load_input(sim, 0, 0.0);
    return 0;
}

static int stop_at(cr_sim *sim, const cr_dynamic_sample *smp, void *user)
{
    hook *h = user;
    h->calls++;
    h->last_t = smp->t;
    return smp->t >= h->t_off - 1e-12;
}

static void test_hook(void)
{
    for (int k = 0; k < 3; ++k) {

        /* fixed steps: the input read at the steps after t_off equals a table that drops to 0
         * between the last load sample before t_off and the first after it (the lgvi samples
         * loads at t_k, the port-Hamiltonian rod at t_k + h/2; h = 2.5e-4 s) */
        const char *ref_sets[] = {"stages.0.time_step=2.5e-4",
                                  "loads.0.time={\"type\": \"table\", \"points\": [[0, 1], [0.0999, 1], [0.09995, 0], "
                                  "[1, 0]]}"};
        /* the mixed rod: two dynamic stages, the force active in the first only, which end
         * and restart the integration at t_off as the hook's change does; tight tolerances */
        const char *mixed_sets[] = {"loads.0.stages=[0]",
                                    "stages=[{\"type\": \"dynamic\", \"t_end\": 0.1, \"output_dt\": 0.05, "
                                    "\"rtol\": 1e-9, \"atol\": 1e-12}, {\"type\": \"dynamic\", \"t_end\": 0.1, "
                                    "\"output_dt\": 0.05, \"rtol\": 1e-9, \"atol\": 1e-12}]",
                                    "stages.0.rtol=1e-9", "stages.0.atol=1e-12"};
        cr_scenario *sc = load(MODELS[k], k > 0 ? FIXED_STEP : mixed_sets + 2, k > 0 ? 1 : 2);
        cr_scenario *ref = load(MODELS[k], k > 0 ? ref_sets : mixed_sets, k > 0 ? 2 : 2);
        CHECK(sc && ref);
        if (!sc || !ref) {
            cr_scenario_destroy(sc);
            cr_scenario_destroy(ref);
            continue;
        }
        hook h = {.t_off = 0.1};
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        o.on_output = switch_off;
        o.user = &h;
        cr_run_result a = {0}, b = {0};
        cr_error err = {0};
        CHECK(cr_scenario_run(sc, &o, &a, &err) == CR_OK);
        CHECK(h.calls == 5); /* t = 0, 0.05, ..., 0.2 */
        CHECK_NEAR(h.last_t, 0.2, 1e-12);
        CHECK(cr_sim_load_input(a.sim, 0) == 0.0);
        cr_run_options ro = cr_run_default_options();
        ro.output_directory = "";
        CHECK(cr_scenario_run(ref, &ro, &b, &err) == CR_OK);
        /* the mixed rod: equal to the integration tolerance (its step sequences differ) */
        double tol = k == 0 ? 1e-9 : 1e-13;
        int nn = cr_sim_node_count(a.sim);
        CHECK_NEAR(cr_sim_position(a.sim, nn - 1).y, cr_sim_position(b.sim, nn - 1).y, tol);
        CHECK_NEAR(cr_sim_position(a.sim, nn - 1).z, cr_sim_position(b.sim, nn - 1).z, tol);
        printf("%s: tip y with the hook %.9g, reference %.9g\n", MODELS[k], cr_sim_position(a.sim, nn - 1).y,
               cr_sim_position(b.sim, nn - 1).y);
        cr_run_result_free(&a);
        cr_run_result_free(&b);
        /* a nonzero return stops the run at that output time */
        hook s = {.t_off = 0.1};
        o.on_output = stop_at;
        o.user = &s;
        CHECK(cr_scenario_run(sc, &o, &a, &err) == CR_INTERRUPTED);
        CHECK(s.calls == 3);
        CHECK_NEAR(cr_sim_time(a.sim), 0.1, 1e-12);
        cr_run_result_free(&a);
        cr_scenario_destroy(sc);
        cr_scenario_destroy(ref);
    }
}

/* Switches the force off at t_off and stops the run there (both at that output time). */
static int switch_off_and_stop(cr_sim *sim, const cr_dynamic_sample *smp, void *user)
{
    switch_off(sim, smp, user);
    return smp->t >= ((hook *)user)->t_off - 1e-12;
}

/* A checkpoint carries the inputs: a run stopped at t_off right after its hook switched the
 * force off, resumed without any hook, ends where the uninterrupted run with the hook does. */
static void test_checkpoint_carries_inputs(void)
{
    char dir[] = "/tmp/cosserat_inputs_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *tight[] = {"stages.0.rtol=1e-10", "stages.0.atol=1e-13"};
    for (int k = 0; k < 3; ++k) {
        cr_scenario *sc = load(MODELS[k], k > 0 ? FIXED_STEP : tight, k > 0 ? 1 : 2);
        CHECK(sc != NULL);
        if (!sc) continue;
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        o.on_output = switch_off;
        hook h = {.t_off = 0.1};
        o.user = &h;
        cr_run_result a = {0}, b = {0};
        cr_error err = {0};
        CHECK(cr_scenario_run(sc, &o, &a, &err) == CR_OK);
        hook s = {.t_off = 0.1};
        o.output_directory = dir;
        o.on_output = switch_off_and_stop;
        o.user = &s;
        CHECK(cr_scenario_run(sc, &o, &b, &err) == CR_INTERRUPTED);
        cr_run_result_free(&b);
        cr_run_options r = cr_run_default_options();
        r.output_directory = dir;
        r.resume = 1;
        CHECK(cr_scenario_run(sc, &r, &b, &err) == CR_OK);
        if (b.sim) {
            CHECK(cr_sim_load_input(b.sim, 0) == 0.0);
            /* fixed steps: the same steps; the mixed rod: after the stop the resumed stage
             * steps adaptively across the output times the hooked run landed on */
            double tol = k == 0 ? 1e-9 : 1e-14;
            int nn = cr_sim_node_count(a.sim);
            CHECK_NEAR(cr_sim_position(b.sim, nn - 1).y, cr_sim_position(a.sim, nn - 1).y, tol);
            CHECK_NEAR(cr_sim_position(b.sim, nn - 1).z, cr_sim_position(a.sim, nn - 1).z, tol);
        }
        cr_run_result_free(&a);
        cr_run_result_free(&b);
        cr_scenario_destroy(sc);
    }
    const char *files[] = {"summary.json", "nodes.csv", "elements.csv", "series.csv", "checkpoint.bin"};
    for (int k = 0; k < 5; ++k) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        remove(path);
    }
    rmdir(dir);
}

CHECK_MAIN(CASE(test_api), CASE(test_hook), CASE(test_checkpoint_carries_inputs))
