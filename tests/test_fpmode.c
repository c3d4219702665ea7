#define _POSIX_C_SOURCE 200809L
/* The floating-point mode of the library's numerics (math/fpmode.h): subnormals flushed to zero inside
 * every solve and stage, the caller's mode back on return (its exception flags kept), and the thread
 * pool's workers computing in the caller's mode. The references are IEEE 754's: 1e-300 * 1e-10 is the
 * subnormal 1e-310 with gradual underflow and exactly 0 when flushed; a subnormal operand reads as 0. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "linalg/pool.h"
#include "math/fpmode.h"
#include "ph/ph.h"

#include <fenv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double tiny = 1e-300, small = 1e-10, subnormal = 1e-310;

static int flushing(void) { return (cr_fpmode_get() & CR_FPMODE_FLUSH) == CR_FPMODE_FLUSH; }

/* the bits of x (a flushed comparison reads a subnormal as 0: 1e-310 == 0 there) */
static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* whether this machine honours the flush: valgrind, for one, does not emulate FTZ/DAZ */
static int flush_works(void)
{
    if (CR_FPMODE_FLUSH == 0) {
        printf("  (no flush mode on this architecture)\n");
        return 0;
    }
    cr_fpmode old = cr_fpmode_flush();
    const int works = bits(tiny * small) == 0;
    cr_fpmode_restore(old);
    if (!works) printf("  (the flush mode is not honoured here: under valgrind?)\n");
    return works;
}

/* the caller's mode here: gradual underflow, subnormals neither produced nor read as 0 */
static int gradual(void) { return tiny * small > 0 && subnormal * 1.0 > 0; }

static void flush_and_restore(void)
{
    if (!flush_works()) return;
    CHECK(!flushing() && gradual());
    CHECK(fesetround(FE_UPWARD) == 0);
    feclearexcept(FE_ALL_EXCEPT);
    cr_fpmode old = cr_fpmode_flush();
    CHECK(flushing());
    CHECK(bits(tiny * small) == 0);                  /* a subnormal result flushed */
    CHECK(bits(subnormal + 0.0) == 0);               /* a subnormal operand read as 0 */
    CHECK(fegetround() == FE_UPWARD);                /* the rounding untouched */
    volatile double third = 1.0 / (3.0 + 0 * small); /* raises FE_INEXACT */
    (void)third;
    cr_fpmode_restore(old);
    CHECK(!flushing() && gradual());
    CHECK(fegetround() == FE_UPWARD);
    CHECK(fetestexcept(FE_INEXACT)); /* the flag raised inside stays raised */
    /* nested: the inner restore leaves the outer mode on */
    cr_fpmode outer = cr_fpmode_flush(), inner = cr_fpmode_flush();
    cr_fpmode_restore(inner);
    CHECK(flushing());
    cr_fpmode_restore(outer);
    CHECK(!flushing());
    /* a pool task adopts its caller's control bits and keeps the flags its thread raised: a mode taken
       before FE_OVERFLOW does not clear it */
    feclearexcept(FE_ALL_EXCEPT);
    cr_fpmode_flush();
    const cr_fpmode before = cr_fpmode_get();
    cr_fpmode_restore(old);
    volatile double big = 1e308;
    big *= 10;
    CHECK(fetestexcept(FE_OVERFLOW) && !flushing());
    cr_fpmode_adopt(before);
    CHECK(fetestexcept(FE_OVERFLOW) && flushing());
    cr_fpmode_restore(old);
    fesetround(FE_TONEAREST);
}

/* the pool's two tasks meet (each waits for the other to start), so the worker runs one */
typedef struct meet {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    pthread_t who[2];
    int flush[2];
    double product[2], third[2];
} meet;

static void task(void *arg, int k)
{
    meet *m = arg;
    pthread_mutex_lock(&m->mu);
    m->arrived++;
    pthread_cond_broadcast(&m->cv);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    while (m->arrived < 2)
        if (pthread_cond_timedwait(&m->cv, &m->mu, &until)) break;
    pthread_mutex_unlock(&m->mu);
    m->who[k] = pthread_self();
    m->flush[k] = flushing();
    m->product[k] = tiny * small;
    m->third[k] = 1.0 / (3.0 + 0 * small);
}

static void pool_workers_take_the_callers_mode(void)
{
    if (!flush_works()) return;
    cr_pool *P = cr_pool_create(2);
    if (!P) {
        printf("  (no worker thread could be started)\n");
        return;
    }
    /* two jobs: the caller's mode flushed and rounding up, then its own mode back */
    for (int job = 0; job < 2; ++job) {
        cr_fpmode old = job == 0 ? cr_fpmode_flush() : cr_fpmode_get();
        if (job == 0) fesetround(FE_UPWARD);
        const double third = 1.0 / (3.0 + 0 * small), product = tiny * small;
        meet m = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
        cr_pool_run(P, 2, task, &m);
        CHECK(m.arrived == 2);
        CHECK(!pthread_equal(m.who[0], m.who[1])); /* one task ran on the worker */
        for (int k = 0; k < 2; ++k) {
            CHECK(m.flush[k] == flushing());
            CHECK(bits(m.product[k]) == bits(product)); /* 0 flushed, 1e-310 not */
            CHECK(m.third[k] == third); /* rounded up, then to nearest: the last bit differs (the rounding of
                                           double arithmetic is in the mode too; glibc's fegetround reads x87's) */
        }
        if (job == 0) {
            CHECK(bits(product) == 0);
            fesetround(FE_TONEAREST);
            cr_fpmode_restore(old);
        } else {
            CHECK(product > 0.0);
        }
    }
    cr_pool_destroy(P);
}

/* a port-Hamiltonian step reads a subnormal velocity as 0: a rod at rest without loads stays at rest to the
   bit, and the caller's mode is back afterwards */
static void ph_step_flushes(void)
{
    if (!flush_works()) return;
    cr_ph_params p = cr_ph_default_params();
    p.elements = 6, p.length = 1, p.h = 0.01;
    const int nn = 2 * p.elements + 1;
    cr_vec3 x[13];
    cr_mat3 R[13];
    for (int I = 0; I < nn; ++I) x[I] = cr_v3(0, 0, (double)I / (nn - 1)), R[I] = cr_m3_identity();
    cr_error err = {0};
    cr_ph *s = cr_ph_create(&p, x, R, &err);
    CHECK(s != NULL);
    if (!s) return;
    double *q0 = malloc(sizeof(double) * 12 * nn);
    memcpy(q0, s->q, sizeof(double) * 12 * nn);
    s->v[12 * 6 + 0] = subnormal; /* the middle node's x velocity */
    ph_state_changed(s);
    int it = 0;
    CHECK(cr_ph_step(s, p.h, NULL, &it, &err) == CR_OK);
    CHECK(!flushing() && gradual());
    int moved = 0;
    for (int k = 0; k < 12 * nn; ++k) moved += s->v[k] != 0.0 || s->q[k] != q0[k];
    printf("  components moved: %d (a subnormal velocity read as 0: none)\n", moved);
    CHECK(moved == 0);
    free(q0);
    cr_ph_destroy(s);
}

/* Every formulation's stage runs flushed through the scenario runner, and the caller's callbacks in the
   caller's mode. A tip force of 1e-310 N (a subnormal, parsed in the caller's mode) on a rod at rest: read as 0
   in the stage, the rod stays at rest to the bit. With gradual underflow the mixed and LGVI rods' tips move by
   subnormal amounts (the port-Hamiltonian rod's motion underflows to 0 even then: ph_step_flushes covers it). */
static int seen_flushing, seen_outputs;
static int on_output(cr_sim *sim, const cr_dynamic_sample *sample, void *user)
{
    (void)sim, (void)sample, (void)user;
    seen_flushing += flushing();
    seen_outputs++;
    return 0;
}

static void runner_stages_flush(void)
{
    if (!flush_works()) return;
    const char *models[] = {"mixed_discrete", "port_hamiltonian", "lgvi"};
    for (int m = 0; m < 3; ++m) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"%s\", \"rod\": {\"length\": 1, \"elements\": 4, \"material\": {\"E\": 1e6, \"G\": "
                 "4e5, \"rho\": 1000}, \"sections\": [{\"shape\": \"circle\", \"radius\": 0.01}]}, "
                 "\"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"start\"}], \"loads\": [{\"type\": "
                 "\"force\", \"node\": \"end\", \"frame\": \"inertial\", \"value\": [1e-310, 1e-310, 1e-310]}], "
                 "\"stages\": [{\"type\": \"dynamic\", \"t_end\": 0.01, \"output_dt\": 0.005%s}]}",
                 models[m], m == 0 ? "" : ", \"time_step\": 1e-4");
        cr_error err = {0};
        cr_scenario *sc = NULL;
        CHECK(cr_scenario_load_string(json, NULL, 0, &sc, &err) == CR_OK);
        if (!sc) {
            fprintf(stderr, "  %s: %s\n", models[m], err.message);
            continue;
        }
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        o.on_output = on_output;
        o.output_passive = 1;
        seen_flushing = seen_outputs = 0;
        cr_run_result r;
        cr_status st = cr_scenario_run(sc, &o, &r, &err);
        if (st != CR_OK) fprintf(stderr, "  %s: %s\n", models[m], err.message);
        CHECK(st == CR_OK);
        /* the tip's coordinates in every row against the first row's, bit for bit */
        const double *data = cr_run_result_series_data(&r);
        const long rows = cr_run_result_series_rows(&r);
        const int cols = cr_run_result_series_columns(&r);
        int moved = 0, tip = 0;
        for (int c = 0; c < cols; ++c) {
            const char *name = cr_run_result_series_name(&r, c);
            if (strcmp(name, "tip_x") && strcmp(name, "tip_y") && strcmp(name, "tip_z")) continue;
            tip++;
            for (long k = 1; k < rows; ++k) moved += data[k * cols + c] != data[c];
        }
        printf("  %s: %ld rows, tip moved in %d; %d outputs, %d in the flushed mode\n", models[m], rows, moved,
               seen_outputs, seen_flushing);
        CHECK(tip == 3 && rows >= 3 && moved == 0);
        CHECK(seen_outputs >= 2 && seen_flushing == 0); /* the callbacks in the caller's mode */
        CHECK(!flushing() && gradual());
        cr_run_result_free(&r);
        cr_scenario_destroy(sc);
    }
}

CHECK_MAIN(CASE(flush_and_restore), CASE(pool_workers_take_the_callers_mode), CASE(ph_step_flushes),
           CASE(runner_stages_flush))
