/* cosserat — command-line front end: a thin layer over cr_scenario_load_file and
 * cr_scenario_run. Exit codes: 0 success, 1 bad input (or usage), 2 solver failure
 * (after the last converged state was written). */
#define _POSIX_C_SOURCE 200809L
#include "cosserat/cosserat.h"

#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#ifndef COSSERAT_VERSION
#define COSSERAT_VERSION "0.0.0"
#endif

/* The process's allocator keeps what it frees for the next allocation. glibc gives blocks
 * from 128 kB on their own mapping and returns them on free, so every snapshot's buffers
 * (0.5 MB for the tendon manipulator's .vtp) were fresh pages again: a page fault each on
 * first write, ~12 us per 4 kB page on the development VMs: a snapshot took 3.2 ms, 0.7 ms
 * since.
 * Blocks up to 32 MB (glibc's largest setting) now come from the heap and stay there; larger
 * ones (the tangent of a long rod) are mapped as before. A library leaves this choice to
 * its application. */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cosserat run FILE [-o DIR] [--set PATH=VALUE]... [--max-memory SIZE] [--threads N] [--resume]\n"
            "                    [--quiet]\n"
            "       cosserat check FILE [--set PATH=VALUE]... [--max-memory SIZE]\n"
            "       cosserat --help | --version\n"
            "\n"
            "  run     solve the scenario in FILE and write summary.json, nodes.csv,\n"
            "          elements.csv and rod.pvd (+ one .vtp per load step) into DIR\n"
            "          (default: the scenario's output.directory)\n"
            "  check   validate FILE (and the overrides) without solving\n"
            "\n"
            "  -o, --output DIR     output directory\n"
            "  --set PATH=VALUE     override a scenario value before validation; PATH is\n"
            "                       dotted with array indices, e.g. rod.elements=250,\n"
            "                       loads.0.value.2=-1.5; VALUE is JSON or a plain string\n"
            "  --resume             continue an interrupted dynamic stage from DIR/checkpoint.bin\n"
            "                       (a run DIR holds complete: says so and exits 0)\n"
            "  --max-memory SIZE    refuse a model whose estimated memory exceeds SIZE (bytes,\n"
            "                       or with k/M/G/T: 64G; none = no limit); default: the\n"
            "                       environment variable COSSERAT_MAX_MEMORY, else 80 %% of RAM\n"
            "  --threads N          threads of the large solves (sets COSSERAT_THREADS; default:\n"
            "                       COSSERAT_THREADS, else OMP_NUM_THREADS, else all CPUs);\n"
            "                       results equal to one thread's to round-off\n"
            "  -q, --quiet          no progress line on stderr\n"
            "\n"
            "exit status: 0 ok, 1 bad input, 2 the solver failed (last converged state written),\n"
            "             130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (every output and a\n"
            "             checkpoint written; continue with --resume)\n"
            "scenario keys: docs/scenario.md\n");
}

/* the signal that asked the run to stop (SIGINT from Ctrl-C, SIGTERM from
 * timeout/Slurm/systemd, SIGHUP from a closed terminal), 0 while running */
static volatile sig_atomic_t interrupted = 0;
static void on_stop_signal(int sig) { interrupted = sig; }

typedef struct progress {
    int enabled;
    int total_hint;
} progress;

/* A progress line on stderr that rewrites itself, only when stderr is a terminal. */
static int on_step(const cr_sim *sim, const cr_load_step_report *step, int index, void *user)
{
    progress *p = user;
    if (p->enabled) {
        fprintf(stderr, "\r  load step %d: load factor %.4f, %d Newton iterations, residual %.2e   ", index + 1,
                step->load_factor, step->iterations,
                step->history_count ? step->residual_history[step->history_count - 1] : 0.0);
        fflush(stderr);
    }
    return 0;
}

static void on_progress(double t, double t_end, long steps, double wall, void *user)
{
    progress *p = user;
    if (!p->enabled) return;
    double frac = t_end > 0 ? t / t_end : 1.0;
    double eta = frac > 0 ? wall * (1 - frac) / frac : 0.0;
    fprintf(stderr, "\r  t = %.4f s (%5.1f %%), %ld steps, wall %.1f s, about %.0f s left   ", t, 100 * frac, steps, wall,
            eta);
    fflush(stderr);
}

/* Sanity warnings on stderr (never change the exit status). */
static void print_warnings(const cr_warning *w, int from, int count)
{
    for (int k = from; k < count; ++k) fprintf(stderr, "cosserat: warning: %s [%s]\n", w[k].message, w[k].code);
}

/* Up to this many load steps the summary lists each one's Newton iterations; a longer run
 * (the Greenhill and Euler examples take 400) gets a histogram: summary.json keeps the list. */
#define PER_STEP_MAX 12

/* ": 12 load steps took 3, 380 took 4, 8 took 5": how many accepted load steps took
 * each number of Newton iterations, in increasing order of iterations. */
static void print_iteration_histogram(const cr_static_report *r)
{
    int lo = r->steps[0].iterations, hi = lo;
    for (int k = 1; k < r->step_count; ++k) {
        if (r->steps[k].iterations < lo) lo = r->steps[k].iterations;
        if (r->steps[k].iterations > hi) hi = r->steps[k].iterations;
    }
    printf(":");
    int first = 1;
    for (int it = lo; it <= hi; ++it) {
        int count = 0;
        for (int k = 0; k < r->step_count; ++k) count += r->steps[k].iterations == it;
        if (count)
            printf("%s %d%s took %d", first ? "" : ",", count, first ? (count == 1 ? " load step" : " load steps") : "",
                   it);
        if (count) first = 0;
    }
    printf(" (each in summary.json)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("cosserat %s\n", COSSERAT_VERSION);
        return 0;
    }
    keep_freed_memory();
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") != 0 && strcmp(cmd, "check") != 0) {
        fprintf(stderr, "cosserat: unknown command '%s' (try --help)\n", cmd);
        return 1;
    }
    const char *file = NULL, *outdir = NULL;
    const char **sets = calloc(argc, sizeof *sets);
    if (!sets) {
        fprintf(stderr, "cosserat: out of memory\n");
        return 1;
    }
    int nsets = 0, quiet = 0, resume = 0;
    double max_memory = 0; /* 0: COSSERAT_MAX_MEMORY or 80 % of the physical memory */
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
            outdir = argv[++i];
        } else if (!strcmp(a, "--set") && i + 1 < argc) {
            sets[nsets++] = argv[++i];
        } else if (!strncmp(a, "--set=", 6)) {
            sets[nsets++] = a + 6;
        } else if (!strcmp(a, "--max-memory") && i + 1 < argc) {
            if (cr_memory_size_parse(argv[++i], &max_memory) != CR_OK) {
                fprintf(stderr, "cosserat: --max-memory: expected a size such as 8G, 512M or none, got '%s'\n", argv[i]);
                free(sets);
                return 1;
            }
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            /* the library's one thread setting is the environment variable (statics and
             * lgvi read it), so the flag sets it for this process */
            char *end = NULL;
            long t = strtol(argv[++i], &end, 10);
            if (!end || *end || t < 1 || t > 64) {
                fprintf(stderr, "cosserat: --threads: expected a number from 1 to 64, got '%s'\n", argv[i]);
                free(sets);
                return 1;
            }
            setenv("COSSERAT_THREADS", argv[i], 1);
        } else if (!strcmp(a, "--resume")) {
            resume = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(sets);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cosserat: unknown or incomplete option '%s' (try --help)\n", a);
            free(sets);
            return 1;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "cosserat: unexpected argument '%s'\n", a);
            free(sets);
            return 1;
        }
    }
    if (!file) {
        fprintf(stderr, "cosserat %s: no scenario FILE given\n", cmd);
        free(sets);
        return 1;
    }
    cr_error err = {0};
    cr_scenario *sc = NULL;
    cr_status st = cr_scenario_load_file(file, sets, nsets, &sc, &err);
    free(sets);
    if (st != CR_OK) {
        /* file errors already start with the path */
        if (!strncmp(err.message, file, strlen(file))) fprintf(stderr, "cosserat: %s\n", err.message);
        else fprintf(stderr, "cosserat: %s: %s\n", file, err.message);
        return 1;
    }
    sc->max_memory = max_memory;
    /* the scenario's own warnings before the solve (a long run shows them at once) */
    cr_warning_list pre = {0};
    cr_scenario_warnings(sc, &pre);
    print_warnings(pre.items, 0, pre.count);
    int pre_count = pre.count;
    cr_warning_list_free(&pre);
    if (!strcmp(cmd, "check")) {
        /* the formulation's own checks and the discretization: what the parser cannot see alone */
        if (cr_scenario_check(sc, &err) != CR_OK) {
            fprintf(stderr, "cosserat: %s: %s\n", file, err.message);
            cr_scenario_destroy(sc);
            return 1;
        }
        int elements = 0;
        for (int k = 0; k < sc->rod_count; ++k) elements += sc->rods[k].rod.elements;
        if (sc->rod_count > 1)
            printf("%s: ok (%s, %d rods, %d joint%s, %d elements, %d stage%s)\n", file, sc->model.type, sc->rod_count,
                   sc->joint_count, sc->joint_count == 1 ? "" : "s", elements, sc->stage_count,
                   sc->stage_count == 1 ? "" : "s");
        else
            printf("%s: ok (%s, %d elements, %d stage%s)\n", file, sc->model.type, sc->rod.elements, sc->stage_count,
                   sc->stage_count == 1 ? "" : "s");
        cr_scenario_destroy(sc);
        return 0;
    }
    progress prog = {.enabled = !quiet && isatty(STDERR_FILENO)};
    cr_run_options opts = cr_run_default_options();
    opts.output_directory = outdir;
    opts.on_step = on_step;
    opts.on_progress = on_progress;
    opts.user = &prog;
    opts.resume = resume;
    opts.stop = (const volatile int *)&interrupted;
    signal(SIGINT, on_stop_signal);
    signal(SIGTERM, on_stop_signal);
    signal(SIGHUP, on_stop_signal);
    cr_run_result res;
    st = cr_scenario_run(sc, &opts, &res, &err);
    if (prog.enabled) fprintf(stderr, "\n");
    const char *dir = outdir ? outdir : sc->output.directory;
    /* bad input, or a fatal error before or after the solve (I/O, memory): exit 1 */
    if (st < 0 || !res.sim) {
        fprintf(stderr, "cosserat: %s: %s\n", file, err.message);
        cr_run_result_free(&res);
        cr_scenario_destroy(sc);
        return 1;
    }
    if (res.complete) { /* --resume of a finished run: its outputs stay as they are */
        printf("cosserat: %s\n", res.message);
        cr_run_result_free(&res);
        cr_scenario_destroy(sc);
        return 0;
    }
    const cr_static_report *r = &res.report;
    printf("cosserat %s — %s\n", COSSERAT_VERSION, sc->name);
    if (cr_sim_rod_count(res.sim) > 1) {
        int elements = 0;
        for (int k = 0; k < sc->rod_count; ++k) elements += sc->rods[k].rod.elements;
        printf("  model          %s, %d rods, %d elements, %d nodes\n", cr_sim_formulation(res.sim),
               cr_sim_rod_count(res.sim), elements, cr_sim_node_count(res.sim));
    } else {
        printf("  model          %s, %d elements, %d nodes\n", cr_sim_formulation(res.sim), sc->rod.elements,
               cr_sim_node_count(res.sim));
    }
    int has_static = 0;
    for (int k = 0; k < sc->stage_count; ++k) has_static |= sc->stages[k].type == CR_STAGE_STATIC;
    int failed = st != CR_OK && !(st == CR_INTERRUPTED && interrupted);
    if (has_static) { /* a dynamic-only run has no load steps to report */
        printf("  load steps     %d accepted, %d halved, load factor %.6g\n", r->step_count, r->failed_attempts,
               r->load_factor);
        printf("  Newton         %d iterations", r->total_iterations);
        if (r->step_count > 0 && r->step_count <= PER_STEP_MAX) {
            printf(":");
            for (int k = 0; k < r->step_count; ++k) printf(" %d", r->steps[k].iterations);
            printf("\n");
        } else if (r->step_count > 0) {
            print_iteration_histogram(r);
        } else {
            printf(", none in an accepted load step\n");
        }
        /* a failed solve keeps its last accepted state: with none accepted that is the start
         * of the stage, whose residual says nothing about the failure */
        const char *last = failed ? strstr(err.message, "last residual ") : NULL;
        double last_residual = 0;
        int have_last = last && sscanf(last + 14, "%lf", &last_residual) == 1;
        if (failed && r->step_count == 0)
            printf("  residual       none accepted");
        else if (failed)
            printf("  residual       %.3e (RMS, last accepted state at load factor %.6g)", r->final_residual,
                   r->load_factor);
        else
            printf("  residual       %.3e (RMS, final state)", r->final_residual);
        if (have_last) printf("; the failing step ended at %.3e", last_residual);
        printf("\n");
    }
    int tipn = cr_scenario_tip_node(sc, res.sim);
    cr_vec3 tp = cr_sim_position(res.sim, tipn);
    if (cr_sim_rod_count(res.sim) > 1)
        printf("  tip position   (%.9g, %.9g, %.9g) (rod %s, node %d, s = %.6g m)\n", tp.x, tp.y, tp.z,
               cr_sim_rod_name(res.sim, cr_sim_node_rod(res.sim, tipn)),
               tipn - cr_sim_rod_first_node(res.sim, cr_sim_node_rod(res.sim, tipn)), cr_sim_node_s(res.sim, tipn));
    else
        printf("  tip position   (%.9g, %.9g, %.9g) (node %d, s = %.6g m)\n", tp.x, tp.y, tp.z, tipn,
               cr_sim_node_s(res.sim, tipn));
    for (int j = 0; j < cr_sim_joint_count(res.sim); ++j) { /* an assembly's joints: the reaction on node a */
        cr_vec3 jf, jm;
        if (cr_sim_joint_reaction(res.sim, j, &jf, &jm) != CR_OK) continue;
        printf("  joint %-8s force (%.6g, %.6g, %.6g) N, moment (%.6g, %.6g, %.6g) N m (on its node a)\n",
               cr_sim_joint_name(res.sim, j), jf.x, jf.y, jf.z, jm.x, jm.y, jm.z);
    }
    if (has_static)
        printf("  wall time      %.4f s (assembly %.4f s, linear solves %.4f s)\n", res.wall_time_s,
               r->assembly_time_s, r->solve_time_s);
    else
        printf("  wall time      %.4f s\n", res.wall_time_s);
    if (dir[0]) {
        /* only the files this run wrote (an interrupted static stage has no series) */
        static const char *names[] = {"summary.json", "nodes.csv", "elements.csv", "rod.pvd", "series.csv",
                                      "checkpoint.bin"};
        int listed = 0;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
            char path[4096];
            struct stat sb;
            if (k == 3 && !sc->output.vtk) continue;
            if (snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= (int)sizeof path || stat(path, &sb) != 0)
                continue;
            printf("%s%s", listed++ ? ", " : "  outputs        ", path);
        }
        if (listed) printf("\n");
    }
    /* per stage, in order: the static stages' statistics (with more than one stage) and the
     * dynamic stages' integrator statistics */
    for (int k = 0; k < res.stage_count; ++k) {
        const cr_dynamic_report *d = &res.dynamics[k];
        const cr_static_stage_stats *t = res.statics ? &res.statics[k] : NULL;
        if (sc->stages[k].type == CR_STAGE_STATIC) {
            if (t && sc->stage_count > 1 && k <= res.last_stage)
                printf("  stage %d       static: %d load steps (%d halved), %d Newton iterations, load factor %.6g, "
                       "residual %.3e, %.3f s\n",
                       k, t->load_steps, t->failed_load_steps, t->newton_iterations, t->load_factor,
                       t->final_residual, t->wall_time_s);
            if (t && k <= res.last_stage && t->stability.left) /* said in any run: the state is not the load path's */
                printf("  stage %d       left an unstable equilibrium (ω² = %.4g 1/s², %d mode%s): pushed %.3g m along "
                       "its mode, %d pseudo-time steps, %d Newton iterations; the end state is %s\n",
                       k, t->stability.left_from_omega2, t->stability.left_from_unstable_modes,
                       t->stability.left_from_unstable_modes > 1 ? "s" : "", t->stability.left_push,
                       t->stability.left_steps, t->stability.left_iterations,
                       t->stability.flutter_modes > 0 ? "unstable by flutter only" : "stable");
            continue;
        }
        if (d->steps == 0) continue;
        printf("  stage %d       dynamic t %.4g -> %.4g s: %ld steps (%ld rejected), %ld Newton iterations, %ld F "
               "evaluations, %ld Jacobians, %ld LU, %.3f s\n",
               k, d->t_start, d->t_end, d->steps, d->rejected, d->newton_iterations, d->rhs_evals, d->jacobians,
               d->lu_real + d->lu_complex, d->wall_time_s);
    }
    print_warnings(res.warnings, pre_count, res.warning_count);
    int code = 0;
    if (st == CR_INTERRUPTED && interrupted) {
        fprintf(stderr, "cosserat: %s\n", err.message);
        cr_run_result_free(&res);
        cr_scenario_destroy(sc);
        return 128 + (int)interrupted;
    }
    if (st != CR_OK) {
        fprintf(stderr, "cosserat: solver failed: %s\n", err.message);
        if (dir[0]) fprintf(stderr, "cosserat: the last converged state is in %s/\n", dir);
        code = 2;
    }
    cr_run_result_free(&res);
    cr_scenario_destroy(sc);
    return code;
}
