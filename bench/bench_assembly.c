/* Assembly statics and dynamics benchmark (not a test; issue 21's speed target): six steel rods of 250
 * elements, each clamped at its outer end and welded at a common hub (a star in the x–y
 * plane, five welds to the first rod's inner end), loaded at the hub, against one steel
 * cantilever of 1500 elements under a tip load: wall time per Newton iteration (best of
 * the repeats), and the ratio (target: within 1.3×), then the whole solves' times. Both on
 * one thread, no stability estimate. BENCH_HISTORY=1 prints the assembly's residuals.
 *
 *   build/bench_assembly [--repeats R] [--elements n] [--only-one | --only-assembly]
 *   build/bench_assembly --brush 6 --elements 250 --joined [--dynamics]
 *
 * (the last: the target's own case, six rods of 250 elements on a platform; see run_brush)
 *
 * (n per rod, default 250; one rod: 6 n). On a busy machine the wall times scatter by ±30 %;
 * the instruction counts of one case at a time do not (divide the inclusive count of
 * cr_static_solve or cr_assembly_static_solve by the iterations printed):
 *   valgrind --tool=callgrind build/bench_assembly --repeats 1 --only-one   (and --only-assembly)
 *
 * --dynamics: the same two structures released from rest under their loads (a step), with
 * the adaptive Radau IIA (rtol 1e-3, atol 1e-6) over --t-end seconds (default 0.02): time
 * per step; the instruction counts per step are the inclusive counts of cr_dynamic_solve
 * and cr_assembly_dynamic_solve divided by the steps printed. With --brush R: see
 * run_brush_dynamics (the rods over --threads T).
 */
#define _POSIX_C_SOURCE 199309L
#include "../tests/rod_builders.h"
#include <cosserat/assembly.h>
#include <cosserat/cosserat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RODS 6

static cr_static_options options(void)
{
    cr_static_options o = cr_static_default_options();
    o.stability = 0, o.threads = 1;
    return o;
}

/* the star of the statics case: rod k from (cos θ_k, sin θ_k, 0) to the origin, θ_k = 60° k,
 * clamped outside, welded at the hub, loaded at the hub */
static void star(int n, cr_section_segment *sec, cr_bc_def *clamp, cr_load_def *hub, cr_assembly_rod_def *rods,
                 cr_joint_def *joints)
{
    *sec = cr_section_default_def();
    sec->radius[0] = sec->radius[1] = 0.005;
    *clamp = cr_bc_default_def();
    *hub = cr_load_default_def();
    hub->type = CR_LOAD_FORCE, hub->node = -1, hub->value = cr_v3(20, -30, -300);
    for (int k = 0; k < RODS; ++k) {
        double th = k * 3.14159265358979323846 / 3;
        cr_rod_def d = cr_rod_default_def();
        d.length = 1.0, d.elements = n, d.material = (cr_material){2.1e11, 8.1e10, 7850};
        d.sections = sec, d.section_count = 1, d.bcs = clamp, d.bc_count = 1;
        d.reference.origin = cr_v3(cos(th), sin(th), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), th + 3.14159265358979323846);
        if (k == 0) d.loads = hub, d.load_count = 1;
        memset(&rods[k], 0, sizeof rods[k]);
        snprintf(rods[k].name, sizeof rods[k].name, "arm%d", k);
        rods[k].rod = d;
        if (k > 0) {
            joints[k - 1] = cr_joint_default_def();
            joints[k - 1].a = (cr_rod_node){0, -1}, joints[k - 1].b = (cr_rod_node){k, -1};
        }
    }
}

static int run_dynamics(int repeats, int n, int only, double t_end)
{
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = t_end, o.output_dt = t_end;
    double best_one = INFINITY, best_asm = INFINITY;
    cr_dynamic_report r1 = {0}, r2 = {0};
    for (int r = 0; r < (only == 2 ? 0 : repeats); ++r) {
        cr_model *m = steel_cantilever_model(RODS * n);
        cr_state *s = cr_state_create(m);
        cr_error err = {0};
        if (cr_dynamic_solve(m, s, 0, 0.0, 0.0, 0.0, &o, NULL, NULL, NULL, &r1, &err) != CR_OK)
            fprintf(stderr, "one rod: %s\n", err.message);
        best_one = fmin(best_one, r1.wall_time_s / r1.steps);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
    cr_section_segment sec;
    cr_bc_def clamp;
    cr_load_def hub;
    cr_assembly_rod_def rods[RODS];
    cr_joint_def joints[RODS - 1];
    star(n, &sec, &clamp, &hub, rods, joints);
    cr_assembly_def def = {.rod_count = RODS, .rods = rods, .joint_count = RODS - 1, .joints = joints};
    for (int r = 0; r < (only == 1 ? 0 : repeats); ++r) {
        cr_error err = {0};
        cr_assembly *a = cr_assembly_create(&def, &err);
        cr_assembly_state *s = a ? cr_assembly_state_create(a) : NULL;
        if (!s || cr_assembly_dynamic_solve(a, s, 0, &o, NULL, NULL, &r2, &err) != CR_OK)
            fprintf(stderr, "assembly: %s\n", err.message);
        best_asm = fmin(best_asm, r2.wall_time_s / r2.steps);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
    printf("dynamics over %g s: one rod of %d elements: %ld steps, %ld Newton, %ld+%ld LU, %8.1f us per step\n", t_end,
           RODS * n, r1.steps, r1.newton_iterations, r1.lu_real, r1.lu_complex, 1e6 * best_one);
    printf("%d rods of %d elements, 5 welds: %ld steps, %ld Newton, %ld+%ld LU, %8.1f us per step; ratio %.2f\n", RODS,
           n, r2.steps, r2.newton_iterations, r2.lu_real, r2.lu_complex, 1e6 * best_asm, best_asm / best_one);
    return 0;
}

/* --brush R [--elements n]: R rods of n elements, default 50 (a brush, hair, a bundle: 0.2 m nylon-like rods of radius
 * 1 mm, E = 3 GPa, clamped upright on a square grid of 1 cm pitch, each under its own tip load
 * (0.01, 0.005, 0) N), solved as one assembly, against one rod of n R elements under a tip load
 * (the same nodes): statics per Newton iteration and per node. With --joined the rods' tips are
 * also welded to one free rigid platform (10 g) loaded by (0.01 R, 0, 0) N: a parallel
 * structure of R legs. --threads T: the assembly's rods spread over T threads. */
static int run_brush(int R, int n, int joined, int only, int threads)
{
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.001;
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0.01, 0.005, 0);
    double best_one = INFINITY;
    int it_one = 0;
    for (int rep = 0; rep < (only == 2 ? 0 : 1); ++rep) {
        cr_rod_def d = cr_rod_default_def();
        d.length = 0.2 * R, d.elements = n * R, d.material = (cr_material){3e9, 1.1e9, 1150};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        cr_load_def big = tip;
        big.value = cr_v3(0.01 / R, 0.005 / R, 0);
        d.loads = &big, d.load_count = 1;
        cr_model *m = cr_model_create(&d, NULL);
        cr_state *s = cr_state_create(m);
        cr_static_options o = options();
        cr_static_report r;
        cr_error err = {0};
        if (cr_static_solve(m, s, &o, NULL, NULL, &r, &err) != CR_OK) fprintf(stderr, "one rod: %s\n", err.message);
        it_one = r.total_iterations;
        best_one = r.wall_time_s / r.total_iterations;
        cr_static_report_free(&r);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
    cr_assembly_rod_def *rods = calloc((size_t)R, sizeof *rods);
    cr_joint_def *joints = calloc((size_t)R, sizeof *joints);
    if (!rods || !joints) return 1;
    int side = (int)ceil(sqrt((double)R));
    double pitch = 0.01, cx = 0, cy = 0;
    for (int k = 0; k < R; ++k) {
        cr_rod_def d = cr_rod_default_def();
        d.length = 0.2, d.elements = n, d.material = (cr_material){3e9, 1.1e9, 1150};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        if (!joined) d.loads = &tip, d.load_count = 1;
        d.reference.origin = cr_v3(pitch * (k % side), pitch * (k / side), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), -3.14159265358979323846 / 2); /* along +z */
        cx += d.reference.origin.x / R, cy += d.reference.origin.y / R;
        snprintf(rods[k].name, sizeof rods[k].name, "hair%d", k);
        rods[k].rod = d;
    }
    cr_rigid_body_def body = {.name = "platform", .mass = 0.01, .center = cr_v3(cx, cy, 0.2)};
    body.inertia = (cr_mat3){{{1e-6, 0, 0}, {0, 1e-6, 0}, {0, 0, 1e-6}}};
    body.orientation = cr_q_identity();
    cr_load_def push = cr_load_default_def();
    push.type = CR_LOAD_FORCE, push.body = 0, push.value = cr_v3(0.01 * R, 0, 0);
    for (int k = 0; k < R && joined; ++k) {
        joints[k] = cr_joint_default_def();
        joints[k].a = (cr_rod_node){k, -1};
        joints[k].body_b = 1;
        joints[k].point_b = cr_v3(rods[k].rod.reference.origin.x - cx, rods[k].rod.reference.origin.y - cy, 0);
    }
    cr_assembly_def def = {.rod_count = R, .rods = rods, .joint_count = joined ? R : 0, .joints = joints};
    if (joined) def.body_count = 1, def.bodies = &body, def.body_load_count = 1, def.body_loads = &push;
    double best_asm = INFINITY;
    int it_asm = 0;
    for (int rep = 0; rep < (only == 1 ? 0 : 1); ++rep) {
        cr_error err = {0};
        cr_assembly *a = cr_assembly_create(&def, &err);
        cr_assembly_state *s = a ? cr_assembly_state_create(a) : NULL;
        cr_static_options o = options();
        o.threads = threads;
        cr_static_report r = {0};
        if (!s || cr_assembly_static_solve(a, s, &o, &r, &err) != CR_OK) fprintf(stderr, "assembly: %s\n", err.message);
        it_asm = r.total_iterations;
        if (it_asm > 0) best_asm = r.wall_time_s / it_asm;
        cr_static_report_free(&r);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
    double nodes = (double)R * (n + 1);
    printf("one rod of %d elements: %3d Newton iterations, %8.2f us per node per iteration\n", n * R, it_one,
           1e6 * best_one / (n * R + 1));
    printf("%d rods of %d elements%s, %d thread(s): %3d Newton iterations, %8.2f us per node per iteration; ratio "
           "%.2f\n",
           R, n, joined ? " welded to a platform" : ", independent", threads, it_asm, 1e6 * best_asm / nodes,
           (best_asm / nodes) / (best_one / (n * R + 1)));
    free(rods);
    free(joints);
    return 0;
}

/* --brush R --dynamics [--joined]: the brush's rods (independent, or welded to a platform pushed
 * sideways) released from rest under their loads, the adaptive Radau IIA over --t-end seconds (default 0.02), on
 * --threads T; against one rod of 50 R elements under the summed load: wall and CPU time per step and per node.
 * BENCH_SERIES=1 prints the tip of the last rod at the end (to compare thread counts). */
static double cpu_now(void) { return (double)clock() / CLOCKS_PER_SEC; }
static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* the integration's own times: from the first output (t = 0, after the setup, whose first
 * writes of every rod's arrays are page faults) to the return */
typedef struct bench_clock {
    double wall, cpu;
} bench_clock;

static int first_output(const cr_assembly *a, const cr_assembly_state *s, const cr_dynamic_sample *x, void *user)
{
    (void)a, (void)s;
    bench_clock *c = user;
    if (x->t == 0) c->wall = wall_now(), c->cpu = cpu_now();
    return 0;
}

static int first_output_rod(const cr_model *m, const cr_state *s, const cr_dynamic_sample *x, void *user)
{
    (void)m, (void)s;
    return first_output(NULL, NULL, x, user);
}

static int run_brush_dynamics(int R, int n, int joined, int only, int threads, double t_end)
{
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.001;
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0.01, 0.005, 0);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = t_end, o.output_dt = t_end, o.checkpoint_interval = 0, o.threads = threads;
    if (only != 2) {
        cr_rod_def d = cr_rod_default_def();
        d.length = 0.2 * R, d.elements = n * R, d.material = (cr_material){3e9, 1.1e9, 1150};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        cr_load_def big = tip;
        big.value = cr_v3(0.01 / R, 0.005 / R, 0);
        d.loads = &big, d.load_count = 1;
        cr_model *m = cr_model_create(&d, NULL);
        cr_state *s = cr_state_create(m);
        cr_dynamic_report r = {0};
        cr_error err = {0};
        bench_clock c0 = {0};
        if (cr_dynamic_solve(m, s, 0, 0.0, 0.0, 0.0, &o, first_output_rod, NULL, &c0, &r, &err) != CR_OK)
            fprintf(stderr, "one rod: %s\n", err.message);
        const double cpu = cpu_now() - c0.cpu, wall = wall_now() - c0.wall;
        printf("one rod of %d elements: %ld steps, %ld Newton, %ld+%ld LU, wall %8.1f us per step (%.3f us per node), "
               "CPU %8.1f us per step; with the setup %8.1f us per step\n",
               n * R, r.steps, r.newton_iterations, r.lu_real, r.lu_complex, 1e6 * wall / r.steps,
               1e6 * wall / r.steps / (n * R + 1), 1e6 * cpu / r.steps, 1e6 * r.wall_time_s / r.steps);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
    if (only == 1) return 0;
    cr_assembly_rod_def *rods = calloc((size_t)R, sizeof *rods);
    cr_joint_def *joints = calloc((size_t)R, sizeof *joints);
    if (!rods || !joints) return 1;
    int side = (int)ceil(sqrt((double)R));
    double pitch = 0.01, cx = 0, cy = 0;
    for (int k = 0; k < R; ++k) {
        cr_rod_def d = cr_rod_default_def();
        d.length = 0.2, d.elements = n, d.material = (cr_material){3e9, 1.1e9, 1150};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        if (!joined) d.loads = &tip, d.load_count = 1;
        d.reference.origin = cr_v3(pitch * (k % side), pitch * (k / side), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), -3.14159265358979323846 / 2); /* along +z */
        cx += d.reference.origin.x / R, cy += d.reference.origin.y / R;
        snprintf(rods[k].name, sizeof rods[k].name, "hair%d", k);
        rods[k].rod = d;
    }
    cr_rigid_body_def body = {.name = "platform", .mass = 0.01, .center = cr_v3(cx, cy, 0.2)};
    body.inertia = (cr_mat3){{{1e-6, 0, 0}, {0, 1e-6, 0}, {0, 0, 1e-6}}};
    body.orientation = cr_q_identity();
    cr_load_def push = cr_load_default_def();
    push.type = CR_LOAD_FORCE, push.body = 0, push.value = cr_v3(0.01 * R, 0, 0);
    for (int k = 0; k < R && joined; ++k) {
        joints[k] = cr_joint_default_def();
        joints[k].a = (cr_rod_node){k, -1};
        joints[k].body_b = 1;
        joints[k].point_b = cr_v3(rods[k].rod.reference.origin.x - cx, rods[k].rod.reference.origin.y - cy, 0);
    }
    cr_assembly_def def = {.rod_count = R, .rods = rods, .joint_count = joined ? R : 0, .joints = joints};
    if (joined) def.body_count = 1, def.bodies = &body, def.body_load_count = 1, def.body_loads = &push;
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    cr_assembly_state *s = a ? cr_assembly_state_create(a) : NULL;
    cr_dynamic_report r = {0};
    bench_clock c0 = {0};
    if (!s || cr_assembly_dynamic_solve(a, s, 0, &o, first_output, &c0, &r, &err) != CR_OK)
        fprintf(stderr, "assembly: %s\n", err.message);
    const double cpu = cpu_now() - c0.cpu, wall = wall_now() - c0.wall, nodes = (double)R * (n + 1);
    printf("%d rods of %d elements%s, %d thread(s): %ld steps, %ld Newton, %ld+%ld LU, wall %8.1f us per "
           "step (%.3f us per node), CPU %8.1f us per step; with the setup %8.1f us per step\n",
           R, n, joined ? " welded to a platform" : ", independent", threads, r.steps, r.newton_iterations, r.lu_real,
           r.lu_complex, 1e6 * wall / r.steps, 1e6 * wall / r.steps / nodes, 1e6 * cpu / r.steps,
           1e6 * r.wall_time_s / r.steps);
    if (s && getenv("BENCH_SERIES")) {
        cr_vec3 p = cr_state_position(cr_assembly_state_rod(s, R - 1), n);
        printf("last rod's tip at the end: (%.17g, %.17g, %.17g)\n", p.x, p.y, p.z);
    }
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    free(rods);
    free(joints);
    return 0;
}

int main(int argc, char **argv)
{
    int repeats = 5, n = 250, n_given = 0, only = 0, dynamics = 0, brush = 0, joined = 0,
        threads = 1; /* --only-one 1, ... */
    double t_end = 0.02;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--dynamics")) {
            dynamics = 1;
            continue;
        }
        if (!strcmp(argv[i], "--brush") && i + 1 < argc) {
            brush = atoi(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--joined")) {
            joined = 1;
            continue;
        }
        if (!strcmp(argv[i], "--t-end") && i + 1 < argc) {
            t_end = atof(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--elements") && i + 1 < argc)
            n = atoi(argv[++i]), n_given = 1;
        else if (!strcmp(argv[i], "--only-one"))
            only = 1;
        else if (!strcmp(argv[i], "--only-assembly"))
            only = 2;
    }
    /* the brush's rods: 50 elements unless --elements says (--brush 6 --elements 250 --joined:
     * six rods of 250 elements on a platform against one rod of 1500) */
    if (brush > 0 && !n_given) n = 50;
    if (brush > 0 && dynamics) return run_brush_dynamics(brush, n, joined, only, threads, t_end);
    if (brush > 0) return run_brush(brush, n, joined, only, threads);
    if (dynamics) return run_dynamics(repeats, n, only, t_end);
    /* one rod of 6n elements */
    double best_one = INFINITY, total_one = INFINITY, total_asm = INFINITY;
    int it_one = 0;
    for (int r = 0; r < (only == 2 ? 0 : repeats); ++r) {
        cr_model *m = steel_cantilever_model(RODS * n);
        cr_state *s = cr_state_create(m);
        cr_static_options o = options();
        cr_static_report rep;
        cr_error err = {0};
        if (cr_static_solve(m, s, &o, NULL, NULL, &rep, &err) != CR_OK) fprintf(stderr, "one rod: %s\n", err.message);
        it_one = rep.total_iterations;
        best_one = fmin(best_one, rep.wall_time_s / rep.total_iterations);
        total_one = fmin(total_one, rep.wall_time_s);
        cr_static_report_free(&rep);
        cr_state_destroy(s);
        cr_model_destroy(m);
    }
    /* the star: rod k from (cos θ_k, sin θ_k, 0) to the origin, θ_k = 60° k */
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.005;
    cr_bc_def clamp = cr_bc_default_def();
    cr_load_def hub = cr_load_default_def();
    hub.type = CR_LOAD_FORCE, hub.node = -1, hub.value = cr_v3(20, -30, -300);
    cr_assembly_rod_def rods[RODS];
    cr_joint_def joints[RODS - 1];
    for (int k = 0; k < RODS; ++k) {
        double th = k * 3.14159265358979323846 / 3;
        cr_rod_def d = cr_rod_default_def();
        d.length = 1.0, d.elements = n, d.material = (cr_material){2.1e11, 8.1e10, 7850};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        d.reference.origin = cr_v3(cos(th), sin(th), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 0, 1), th + 3.14159265358979323846);
        if (k == 0) d.loads = &hub, d.load_count = 1;
        memset(&rods[k], 0, sizeof rods[k]);
        snprintf(rods[k].name, sizeof rods[k].name, "arm%d", k);
        rods[k].rod = d;
        if (k > 0) {
            joints[k - 1] = cr_joint_default_def();
            joints[k - 1].a = (cr_rod_node){0, -1}, joints[k - 1].b = (cr_rod_node){k, -1};
        }
    }
    cr_assembly_def def = {.rod_count = RODS, .rods = rods, .joint_count = RODS - 1, .joints = joints};
    double best_asm = INFINITY, best_asm_assembly = INFINITY;
    int it_asm = 0;
    cr_vec3 hub_r = cr_v3(0, 0, 0);
    for (int r = 0; r < (only == 1 ? 0 : repeats); ++r) {
        cr_error err = {0};
        cr_assembly *a = cr_assembly_create(&def, &err);
        if (!a) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        cr_assembly_state *s = cr_assembly_state_create(a);
        cr_static_options o = options();
        cr_static_report rep;
        if (cr_assembly_static_solve(a, s, &o, &rep, &err) != CR_OK) fprintf(stderr, "assembly: %s\n", err.message);
        it_asm = rep.total_iterations;
        if (getenv("BENCH_HISTORY"))
            for (int k = 0; k < rep.step_count; ++k) {
                printf("step %d:", k);
                for (int h = 0; h < rep.steps[k].history_count; ++h) printf(" %.2e", rep.steps[k].residual_history[h]);
                printf("\n");
            }
        best_asm = fmin(best_asm, rep.wall_time_s / rep.total_iterations);
        total_asm = fmin(total_asm, rep.wall_time_s);
        best_asm_assembly = fmin(best_asm_assembly, rep.assembly_time_s / rep.total_iterations);
        hub_r = cr_state_position(cr_assembly_state_rod(s, 0), n);
        cr_static_report_free(&rep);
        cr_assembly_state_destroy(s);
        cr_assembly_destroy(a);
    }
    printf("one rod, %d elements:          %3d Newton iterations, %8.1f us per iteration\n", RODS * n, it_one,
           1e6 * best_one);
    printf("%d rods of %d elements, 5 welds: %3d Newton iterations, %8.1f us per iteration (%.1f us residuals), hub "
           "at (%.4f, %.4f, %.4f)\n",
           RODS, n, it_asm, 1e6 * best_asm, 1e6 * best_asm_assembly, hub_r.x, hub_r.y, hub_r.z);
    printf("ratio per iteration: %.2f (target <= 1.3); whole solves %.1f ms vs %.1f ms (%.2f: the one rod's solver\n"
           "takes fewer iterations per load step, its tangent predictor and round-off floor estimate)\n",
           best_asm / best_one, 1e3 * total_asm, 1e3 * total_one, total_asm / total_one);
    return 0;
}
