/* The joints' coupled system of assembly statics solved by the sparse LU (KLU) and by the dense
 * LU (LAPACK) on the same scenarios: a hub of rods on one free body (welds, ball joints,
 * hinges), the gripper and the parallel robot examples (bodies, hinges, drives, springs), and
 * the crossing cables (contact.rods: the contact unknowns in the system). Reference: the dense
 * path, which the other tests check against analytic and published values; the two must agree
 * to the Newton tolerance's round-off (both converge on the same equations, 1e-9 relative).
 * And the redundancy check at size: a hub of 40 rods with one weld repeated names that weld. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "mixed/assembly_internal.h"
#include "mixed/assembly_linsys.h"
#include "model/formulation.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* every node's position and every joint's reaction after all stages of a scenario file */
static int run_file(const char *path, int sparse_min, double *out, int cap)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_file(path, NULL, 0, &sc, &err) != CR_OK) {
        fprintf(stderr, "load %s: %s\n", path, err.message);
        return -1;
    }
    /* INT_MAX: the dense LU alone (the block elimination takes a system with a hub at any size) */
    const int block = cr_asm_block_elim;
    cr_asm_sparse_min = sparse_min;
    if (sparse_min == INT_MAX) cr_asm_block_elim = 0;
    cr_sim *sim = cr_sim_create_scenario(sc, &err);
    int n = -1;
    if (sim) {
        cr_status st = CR_OK;
        for (int k = 0; k < sc->stage_count && st == CR_OK; ++k) {
            CHECK(sc->stages[k].type == CR_STAGE_STATIC);
            cr_stage_callbacks cb = {0};
            cr_static_report rep = {0};
            st = sim->f->static_stage(sim, k, &sc->stages[k].statics, &cb, &rep, &err);
            cr_static_report_free(&rep);
        }
        if (st != CR_OK) fprintf(stderr, "%s: %s\n", path, err.message);
        if (st == CR_OK) {
            n = 0;
            for (int i = 0; i < cr_sim_node_count(sim) && n + 3 <= cap; ++i) {
                cr_vec3 x = cr_sim_position(sim, i);
                out[n++] = x.x, out[n++] = x.y, out[n++] = x.z;
            }
            for (int j = 0; j < cr_sim_joint_count(sim) && n + 6 <= cap; ++j) {
                cr_vec3 f, m;
                cr_sim_joint_reaction(sim, j, &f, &m);
                out[n++] = f.x, out[n++] = f.y, out[n++] = f.z, out[n++] = m.x, out[n++] = m.y, out[n++] = m.z;
            }
        }
    }
    cr_sim_destroy(sim);
    cr_scenario_destroy(sc);
    cr_asm_sparse_min = CR_ASM_SPARSE_MIN, cr_asm_block_elim = block;
    return n;
}

/* max |a − b| over the positions (first np entries) against the largest position, and over
 * the reactions against the largest reaction */
static void compare(const char *what, const double *a, const double *b, int n, int np, double tol)
{
    double xs = 0, fs = 0, dx = 0, df = 0;
    for (int i = 0; i < n; ++i) {
        if (i < np)
            xs = fmax(xs, fabs(a[i])), dx = fmax(dx, fabs(a[i] - b[i]));
        else
            fs = fmax(fs, fabs(a[i])), df = fmax(df, fabs(a[i] - b[i]));
    }
    printf("%s: positions %.2e of %.2e, reactions %.2e of %.2e\n", what, dx, xs, df, fs);
    CHECK(dx <= tol * xs);
    CHECK(df <= tol * fmax(fs, 1e-300));
}

static void example(const char *name, double tol)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", COSSERAT_SOURCE_DIR, name);
    enum { CAP = 200000 };
    double *a = malloc(CAP * sizeof *a), *b = malloc(CAP * sizeof *b);
    const int na = run_file(path, INT_MAX, a, CAP), nb = run_file(path, 0, b, CAP);
    CHECK(na > 0 && na == nb);
    for (int klu = 0; klu < 2 && na > 0 && na == nb; ++klu) {
        if (klu) { /* the sparse path by KLU alone (the block elimination off) */
            cr_asm_block_elim = 0;
            const int nc = run_file(path, 0, b, CAP);
            cr_asm_block_elim = 1;
            CHECK(nc == na);
            if (nc != na) break;
        }
        cr_error err = {0};
        cr_scenario *sc = NULL;
        cr_scenario_load_file(path, NULL, 0, &sc, &err);
        cr_sim *sim = sc ? cr_sim_create_scenario(sc, &err) : NULL;
        const int np = sim ? 3 * cr_sim_node_count(sim) : na;
        cr_sim_destroy(sim);
        cr_scenario_destroy(sc);
        char what[600];
        snprintf(what, sizeof what, "%s%s", name, klu ? ", KLU" : "");
        compare(what, a, b, na, np, tol);
    }
    free(a), free(b);
}

static void gripper(void) { example("gripper.json", 1e-9); }
static void parallel_robot(void) { example("parallel-robot.json", 1e-9); }
static void crossing_cables(void) { example("crossing-cables.json", 1e-9); }

/* R rods of 20 elements clamped upright on a circle, their tips joined to one free disc
 * (mass 10 g) pushed sideways and twisted: joint k is a weld, a ball joint or a hinge (k mod 3);
 * `repeat` >= 0 adds a second weld on rod `repeat`'s tip (redundant). */
static cr_assembly *hub(int R, int repeat, cr_error *err)
{
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.002;
    cr_bc_def clamp = cr_bc_default_def();
    cr_assembly_rod_def *rods = calloc((size_t)R, sizeof *rods);
    cr_joint_def *joints = calloc((size_t)R + 1, sizeof *joints);
    for (int k = 0; k < R; ++k) {
        cr_rod_def d = cr_rod_default_def();
        const double phi = 2 * 3.14159265358979323846 * k / R;
        d.length = 0.2, d.elements = 20, d.material = (cr_material){3e9, 1.1e9, 1150};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        d.reference.origin = cr_v3(0.05 * cos(phi), 0.05 * sin(phi), 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), -3.14159265358979323846 / 2);
        snprintf(rods[k].name, sizeof rods[k].name, "leg%d", k);
        rods[k].rod = d;
        joints[k] = cr_joint_default_def();
        joints[k].type = k % 3 == 0 ? CR_JOINT_WELD : k % 3 == 1 ? CR_JOINT_BALL : CR_JOINT_HINGE;
        joints[k].axis = cr_v3(cos(phi), sin(phi), 0);
        joints[k].a = (cr_rod_node){k, -1};
        joints[k].body_b = 1;
        joints[k].point_b = cr_v3(0.05 * cos(phi), 0.05 * sin(phi), 0);
    }
    int nj = R;
    if (repeat >= 0) {
        joints[nj] = joints[repeat];
        joints[nj].type = CR_JOINT_WELD;
        snprintf(joints[nj].name, sizeof joints[nj].name, "again");
        ++nj;
    }
    cr_rigid_body_def body = {.name = "disc", .mass = 0.01, .center = cr_v3(0, 0, 0.2)};
    body.inertia = (cr_mat3){{{1e-5, 0, 0}, {0, 1e-5, 0}, {0, 0, 2e-5}}};
    body.orientation = cr_q_identity();
    cr_load_def push[2] = {cr_load_default_def(), cr_load_default_def()};
    push[0].type = CR_LOAD_FORCE, push[0].body = 0, push[0].value = cr_v3(0.2 * R, 0.05 * R, -0.1 * R);
    push[1].type = CR_LOAD_MOMENT, push[1].body = 0, push[1].value = cr_v3(0, 0, 0.002 * R);
    cr_assembly_def def = {.rod_count = R, .rods = rods, .joint_count = nj, .joints = joints};
    def.body_count = 1, def.bodies = &body, def.body_load_count = 2, def.body_loads = push;
    cr_assembly *a = cr_assembly_create(&def, err);
    free(rods), free(joints);
    return a;
}

/* the hub solved with the dense (sparse_min huge) or the sparse (0) path: node positions,
 * then the multipliers */
static int solve_hub(int R, int sparse_min, double *out)
{
    cr_error err = {0};
    cr_assembly *a = hub(R, -1, &err);
    CHECK(a != NULL);
    if (!a) return -1;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = cr_static_default_options();
    o.load_steps = 4;
    cr_static_report rep = {0};
    const int block = cr_asm_block_elim;
    cr_asm_sparse_min = sparse_min;
    if (sparse_min == INT_MAX) cr_asm_block_elim = 0; /* the dense LU alone */
    const cr_status st = cr_assembly_static_solve(a, s, &o, &rep, &err);
    cr_asm_sparse_min = CR_ASM_SPARSE_MIN, cr_asm_block_elim = block;
    if (st != CR_OK) fprintf(stderr, "hub: %s\n", err.message);
    CHECK(st == CR_OK);
    cr_static_report_free(&rep);
    int n = 0;
    for (int r = 0; r < R; ++r)
        for (int i = 0; i <= 20; ++i) {
            const cr_state *rs = cr_assembly_state_rod(s, r);
            for (int c = 0; c < 3; ++c) out[n++] = rs->x[(size_t)i * a->models[r]->block + c];
        }
    const int np = n;
    for (int j = 0; j < R; ++j) {
        cr_vec3 f, m;
        cr_assembly_joint_reaction(a, s, j, &f, &m);
        out[n++] = f.x, out[n++] = f.y, out[n++] = f.z, out[n++] = m.x, out[n++] = m.y, out[n++] = m.z;
    }
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    return st == CR_OK ? np : -1;
}

static void hub_statics(void)
{
    enum { R = 9 };
    static double a[R * 21 * 3 + 6 * R], b[R * 21 * 3 + 6 * R], c[R * 21 * 3 + 6 * R];
    const int np = solve_hub(R, INT_MAX, a);
    /* the sparse path by the hub's block elimination (every solve: welds' groups of 12
     * unknowns, ball joints' 9, hinges' 11, on the disc's 6), then by KLU alone */
    const long before = cr_asm_block_solves;
    CHECK(np == R * 21 * 3 && solve_hub(R, 0, b) == np);
    const long nblock = cr_asm_block_solves - before;
    printf("hub of 9: %ld block eliminations\n", nblock);
    CHECK(nblock > 10);
    compare("hub of 9, block elimination", a, b, np + 6 * R, np, 1e-9);
    cr_asm_block_elim = 0;
    CHECK(solve_hub(R, 0, c) == np);
    cr_asm_block_elim = 1;
    compare("hub of 9, KLU", a, c, np + 6 * R, np, 1e-9);
    /* by the default threshold: 105 unknowns (the position correction's 54), below it, by the
     * block elimination all the same (the dense LU only when it does not decide): the same
     * solves as the forced sparse path's, to the bit */
    const long before2 = cr_asm_block_solves;
    CHECK(solve_hub(R, CR_ASM_SPARSE_MIN, c) == np);
    printf("hub of 9, default threshold: %ld block eliminations\n", cr_asm_block_solves - before2);
    CHECK(cr_asm_block_solves - before2 == nblock);
    CHECK(!memcmp(b, c, (size_t)(np + 6 * R) * sizeof *b));
    /* the disc moved (a solved state, not the reference) */
    CHECK(fabs(a[3 * 20] - 0.05) > 1e-3);
}

/* the hub's dynamics over 3 ms from rest under the disc's sudden load (dense or sparse Schur
 * complement): node positions, then the multipliers; *steps: the integrator's steps */
static int dyn_hub(int R, int sparse_min, double *out, long *steps)
{
    cr_error err = {0};
    cr_assembly *a = hub(R, -1, &err);
    CHECK(a != NULL);
    if (!a) return -1;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_dynamic_options o = cr_dynamic_default_options();
    o.t_end = 3e-3, o.output_dt = 1e-3, o.rtol = 1e-6, o.atol = 1e-9;
    cr_dynamic_report rep = {0};
    cr_asm_sparse_min = sparse_min;
    const cr_status st = cr_assembly_dynamic_solve(a, s, 0, &o, NULL, NULL, &rep, &err);
    cr_asm_sparse_min = CR_ASM_SPARSE_MIN;
    if (st != CR_OK) fprintf(stderr, "hub dynamics: %s\n", err.message);
    CHECK(st == CR_OK);
    *steps = rep.steps;
    int n = 0;
    for (int r = 0; r < R; ++r)
        for (int i = 0; i <= 20; ++i) {
            const cr_state *rs = cr_assembly_state_rod(s, r);
            for (int c = 0; c < 3; ++c) out[n++] = rs->x[(size_t)i * a->models[r]->block + c];
        }
    const int np = n;
    for (int j = 0; j < R; ++j) {
        cr_vec3 f, m;
        cr_assembly_joint_reaction(a, s, j, &f, &m);
        out[n++] = f.x, out[n++] = f.y, out[n++] = f.z, out[n++] = m.x, out[n++] = m.y, out[n++] = m.z;
    }
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    return st == CR_OK ? np : -1;
}

static void hub_dynamics(void)
{
    enum { R = 9 };
    static double a[R * 21 * 3 + 6 * R], b[R * 21 * 3 + 6 * R];
    long sa = 0, sb = 0;
    const int np = dyn_hub(R, INT_MAX, a, &sa);
    CHECK(np == R * 21 * 3 && dyn_hub(R, 0, b, &sb) == np);
    printf("hub dynamics: %ld and %ld steps\n", sa, sb);
    CHECK(sa == sb && sa > 3);
    /* the same steps: the solutions differ by the linear solves' round-off, through the
     * simplified Newton iterations that stop at the integrator's tolerance (7e-10 of the largest
     * reaction seen) */
    compare("hub of 9, dynamics", a, b, np + 6 * R, np, 1e-8);
    /* the disc moved: the tip of leg 0 left its place by more than the round-off */
    CHECK(fabs(a[3 * 20] - 0.05) > 1e-9);
}

/* 40 rods on one body (the system is sparse by the default threshold, and the redundancy
 * check sets all but the repeated weld aside): the repeated weld is named */
static void hub_redundant(void)
{
    cr_error err = {0};
    cr_assembly *a = hub(40, 6, &err);
    CHECK(a != NULL);
    if (!a) return;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = cr_static_default_options();
    cr_static_report rep = {0};
    CHECK(cr_assembly_static_solve(a, s, &o, &rep, &err) == CR_BAD_INPUT);
    printf("%s\n", err.message);
    CHECK(strstr(err.message, "again") != NULL && strstr(err.message, "repeats") != NULL);
    cr_static_report_free(&rep);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
}

/* R rods clamped upright on a line, their tips hinged to one free bar about that line's
 * direction: the bar turns about it with nothing to hold it (a mechanism). The sparse path
 * (the block elimination, KLU) finds the system singular and the dense LU names the unknown:
 * the message must be the dense path's, word for word. */
static cr_status mechanism(int R, int sparse_min, int block, char *msg, size_t cap)
{
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.002;
    cr_bc_def clamp = cr_bc_default_def();
    cr_assembly_rod_def *rods = calloc((size_t)R, sizeof *rods);
    cr_joint_def *joints = calloc((size_t)R, sizeof *joints);
    for (int k = 0; k < R; ++k) {
        cr_rod_def d = cr_rod_default_def();
        const double x = 0.02 * (k - 0.5 * (R - 1));
        d.length = 0.2, d.elements = 10, d.material = (cr_material){3e9, 1.1e9, 1150};
        d.sections = &sec, d.section_count = 1, d.bcs = &clamp, d.bc_count = 1;
        d.reference.origin = cr_v3(x, 0, 0);
        d.reference.orientation = cr_q_axis_angle(cr_v3(0, 1, 0), -3.14159265358979323846 / 2);
        snprintf(rods[k].name, sizeof rods[k].name, "leg%d", k);
        rods[k].rod = d;
        joints[k] = cr_joint_default_def();
        joints[k].type = CR_JOINT_HINGE;
        joints[k].axis = cr_v3(0, 0, 1); /* global x: the rod frame turned -90° about y */
        joints[k].a = (cr_rod_node){k, -1};
        joints[k].body_b = 1;
        joints[k].point_b = cr_v3(x, 0, 0);
    }
    cr_rigid_body_def body = {.name = "bar", .mass = 0.01, .center = cr_v3(0, 0, 0.2)};
    body.inertia = (cr_mat3){{{1e-5, 0, 0}, {0, 1e-5, 0}, {0, 0, 1e-5}}};
    body.orientation = cr_q_identity();
    cr_load_def push = cr_load_default_def();
    push.type = CR_LOAD_FORCE, push.body = 0, push.value = cr_v3(0.1, 0.05, -0.1);
    cr_assembly_def def = {.rod_count = R, .rods = rods, .joint_count = R, .joints = joints};
    def.body_count = 1, def.bodies = &body, def.body_load_count = 1, def.body_loads = &push;
    cr_error err = {0};
    cr_assembly *a = cr_assembly_create(&def, &err);
    free(rods), free(joints);
    CHECK(a != NULL);
    if (!a) return CR_BAD_INPUT;
    cr_assembly_state *s = cr_assembly_state_create(a);
    cr_static_options o = cr_static_default_options();
    cr_static_report rep = {0};
    cr_asm_sparse_min = sparse_min, cr_asm_block_elim = block;
    const cr_status st = cr_assembly_static_solve(a, s, &o, &rep, &err);
    cr_asm_sparse_min = CR_ASM_SPARSE_MIN, cr_asm_block_elim = 1;
    snprintf(msg, cap, "%s", err.message);
    cr_static_report_free(&rep);
    cr_assembly_state_destroy(s);
    cr_assembly_destroy(a);
    return st;
}

static void sparse_mechanism(void)
{
    char dense[512], blk[512], klu[512];
    /* 9 legs: 105 unknowns, dense by the default threshold; sparse when forced. 30 legs: 336
     * unknowns, sparse by default, dense when forced. */
    for (int R = 9; R <= 30; R += 21) {
        CHECK(mechanism(R, INT_MAX, 0, dense, sizeof dense) == CR_SINGULAR);
        printf("%d legs, dense: %s\n", R, dense);
        CHECK(strstr(dense, "mechanism") != NULL && strstr(dense, "bar") != NULL);
        CHECK(mechanism(R, 0, 1, blk, sizeof blk) == CR_SINGULAR);
        CHECK(mechanism(R, 0, 0, klu, sizeof klu) == CR_SINGULAR);
        printf("%d legs, sparse: %s\n%d legs, KLU: %s\n", R, blk, R, klu);
        CHECK(!strcmp(dense, blk));
        CHECK(!strcmp(dense, klu));
        /* by the default threshold (9 legs: the block elimination below it, dense after) */
        CHECK(mechanism(R, CR_ASM_SPARSE_MIN, 1, blk, sizeof blk) == CR_SINGULAR);
        CHECK(!strcmp(dense, blk));
    }
}

CHECK_MAIN(CASE(hub_statics), CASE(sparse_mechanism), CASE(hub_dynamics), CASE(hub_redundant), CASE(gripper),
           CASE(parallel_robot), CASE(crossing_cables))
