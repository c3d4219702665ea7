/* Static solver benchmark (not a test): full solve time and cost per Newton
 * iteration per node, split into assembly and linear solve, for the tendon
 * manipulator (n = 1250, spec §8.2) and straight cantilevers under an end load
 * with n = 10², ..., 10⁶ (or the sizes given on the command line).
 *
 *   build/bench_static [n ...]
 */
#include <cosserat/cosserat.h>

#include <stdio.h>
#include <stdlib.h>

static cr_model *tendon_model(int n)
{
    static cr_section_segment sec;
    static cr_load_def tendon;
    static cr_bc_def clamp;
    sec = cr_section_default_def();
    sec.radius[0] = 0.010, sec.radius[1] = 0.004;
    tendon = cr_load_default_def();
    tendon.type = CR_LOAD_TENDON, tendon.tension = 4.0, tendon.offset.type = CR_OFFSET_RADIUS_FRACTION;
    clamp = cr_bc_default_def();
    cr_rod_def d = cr_rod_default_def();
    d.length = 0.2, d.elements = n, d.material = (cr_material){7e5, 2e5, 0};
    d.reference.orientation = cr_q_from_matrix(cr_m3_columns(cr_v3(0, 0, 1), cr_v3(1, 0, 0), cr_v3(0, 1, 0)));
    d.sections = &sec, d.section_count = 1, d.loads = &tendon, d.load_count = 1, d.bcs = &clamp, d.bc_count = 1;
    return cr_model_create(&d, NULL);
}

/* steel cantilever, 1 m, r = 5 mm, tip force giving a large (~45°) deflection */
static cr_model *cantilever_model(int n)
{
    static cr_section_segment sec;
    static cr_load_def tip;
    static cr_bc_def clamp;
    sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.005;
    tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, -50, 0);
    clamp = cr_bc_default_def();
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.0, d.elements = n, d.material = (cr_material){2.1e11, 8.1e10, 7850};
    d.sections = &sec, d.section_count = 1, d.loads = &tip, d.load_count = 1, d.bcs = &clamp, d.bc_count = 1;
    return cr_model_create(&d, NULL);
}

static void run(const char *name, cr_model *m, int load_steps, int repeats)
{
    cr_static_options o = cr_static_default_options();
    o.load_steps = load_steps;
    double best = 1e30, asm_t = 0, sol_t = 0;
    int iters = 0, ok = 1;
    for (int k = 0; k < repeats; ++k) {
        cr_state *s = cr_state_create(m);
        cr_static_report r;
        cr_error err = {0};
        if (cr_static_solve(m, s, &o, NULL, NULL, &r, &err) != CR_OK) {
            fprintf(stderr, "%s: %s\n", name, err.message);
            ok = 0;
        }
        if (r.wall_time_s < best) best = r.wall_time_s, asm_t = r.assembly_time_s, sol_t = r.solve_time_s, iters = r.total_iterations;
        cr_static_report_free(&r);
        cr_state_destroy(s);
    }
    int nodes = cr_model_node_count(m);
    /* assembly includes the predictor's and the position correction's evaluations; the
     * per-iteration cost divides everything by the Newton iterations */
    double per = 1e6 / ((double)iters * nodes);
    printf("%-22s %9d %6d %10.4f %12.3f %12.3f %12.3f %s\n", name, nodes, iters, best, best * per, asm_t * per,
           sol_t * per, ok ? "" : "FAILED");
}

int main(int argc, char **argv)
{
    printf("%-22s %9s %6s %10s %12s %12s %12s\n", "case", "nodes", "iters", "solve [s]", "us/node/it", "assembly", "linsolve");
    cr_model *m = tendon_model(1250);
    run("tendon n=1250", m, 8, 20);
    cr_model_destroy(m);
    int sizes[] = {100, 1000, 10000, 100000, 1000000};
    int count = 5;
    for (int k = 0; k < (argc > 1 ? argc - 1 : count); ++k) {
        int n = argc > 1 ? atoi(argv[k + 1]) : sizes[k];
        char name[64];
        snprintf(name, sizeof name, "cantilever n=%d", n);
        m = cantilever_model(n);
        run(name, m, 10, n <= 10000 ? 5 : 1);
        cr_model_destroy(m);
    }
    return 0;
}
