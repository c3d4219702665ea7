/* cr_scenario_run: scenario → model → stages → outputs. The CLI and the Python
 * package are thin layers over this function. */
#define _POSIX_C_SOURCE 200809L
#include "cosserat/output.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

cr_run_options cr_run_default_options(void) { return (cr_run_options){NULL, NULL, NULL}; }

void cr_run_result_free(cr_run_result *r)
{
    if (!r) return;
    cr_static_report_free(&r->report);
    cr_state_destroy(r->state);
    cr_model_destroy(r->model);
    memset(r, 0, sizeof *r);
}

cr_run_result *cr_run_result_create(void) { return calloc(1, sizeof(cr_run_result)); }

void cr_run_result_destroy(cr_run_result *r)
{
    cr_run_result_free(r);
    free(r);
}

const cr_model *cr_run_result_model(const cr_run_result *r) { return r->model; }
const cr_state *cr_run_result_state(const cr_run_result *r) { return r->state; }
int cr_run_result_step_count(const cr_run_result *r) { return r->report.step_count; }
int cr_run_result_step_iterations(const cr_run_result *r, int k) { return r->report.steps[k].iterations; }
double cr_run_result_step_load_factor(const cr_run_result *r, int k) { return r->report.steps[k].load_factor; }

const double *cr_run_result_step_history(const cr_run_result *r, int k, int *count)
{
    *count = r->report.steps[k].history_count;
    return r->report.steps[k].residual_history;
}

typedef struct run_ctx {
    const cr_run_options *options;
    const char *dir;
    int write_vtk;
    int snapshot_count, snapshot_capacity;
    char **files;
    double *times;
    cr_status io_status;
    cr_error io_error;
} run_ctx;

static cr_status join(char *out, size_t size, const char *dir, const char *name, cr_error *err)
{
    int len = snprintf(out, size, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= size) return cr_error_set(err, CR_IO, "%s/%s: path too long", dir, name);
    return CR_OK;
}

static int on_load_step(const cr_model *m, const cr_state *s, const cr_load_step_report *step, int index, void *user)
{
    run_ctx *c = user;
    if (c->write_vtk && c->io_status == CR_OK) {
        if (c->snapshot_count == c->snapshot_capacity) {
            int cap = c->snapshot_capacity ? 2 * c->snapshot_capacity : 16;
            char **f = realloc(c->files, cap * sizeof *f);
            double *t = f ? realloc(c->times, cap * sizeof *t) : NULL;
            if (f) c->files = f;
            if (!f || !t) {
                c->io_status = cr_error_set(&c->io_error, CR_NO_MEMORY, "out of memory for snapshots");
                return 1;
            }
            c->times = t;
            c->snapshot_capacity = cap;
        }
        char name[64], path[4096];
        snprintf(name, sizeof name, "rod_%04d.vtp", c->snapshot_count);
        c->io_status = join(path, sizeof path, c->dir, name, &c->io_error);
        if (c->io_status == CR_OK) c->io_status = cr_write_vtp(path, m, s, &c->io_error);
        if (c->io_status != CR_OK) return 1;
        c->files[c->snapshot_count] = strdup(name);
        c->times[c->snapshot_count++] = cr_state_load_factor(s);
    }
    return c->options->on_step ? c->options->on_step(m, s, step, index, c->options->user) : 0;
}

static cJSON *vec_json(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < n; ++k) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[k]));
    return a;
}

static cr_status write_summary(const char *path, const cr_scenario *sc, const cr_run_result *r, int vtk, cr_error *err)
{
    const cr_model *m = r->model;
    const cr_static_report *rep = &r->report;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddBoolToObject(root, "converged", r->status == CR_OK && rep->converged);
    cJSON_AddStringToObject(root, "status", cr_status_string(r->status));
    cJSON_AddStringToObject(root, "message", r->message);
    cJSON_AddStringToObject(root, "scenario", sc->name);
    cJSON_AddStringToObject(root, "model", sc->model);
    cJSON_AddNumberToObject(root, "nodes", cr_model_node_count(m));
    cJSON_AddNumberToObject(root, "elements", cr_model_element_count(m));
    cJSON_AddNumberToObject(root, "load_steps", rep->step_count);
    cJSON_AddNumberToObject(root, "load_factor", rep->load_factor);
    cJSON_AddNumberToObject(root, "failed_load_steps", rep->failed_attempts);
    cJSON *its = cJSON_AddArrayToObject(root, "newton_iterations");
    cJSON *hist = cJSON_AddArrayToObject(root, "residual_history");
    for (int k = 0; k < rep->step_count; ++k) {
        cJSON_AddItemToArray(its, cJSON_CreateNumber(rep->steps[k].iterations));
        cJSON_AddItemToArray(hist, vec_json(rep->steps[k].residual_history, rep->steps[k].history_count));
    }
    cJSON_AddNumberToObject(root, "newton_iterations_total", rep->total_iterations);
    cJSON_AddNumberToObject(root, "final_residual", rep->final_residual);
    cJSON_AddNumberToObject(root, "wall_time_s", r->wall_time_s);
    cJSON_AddNumberToObject(root, "assembly_time_s", rep->assembly_time_s);
    cJSON_AddNumberToObject(root, "linear_solve_time_s", rep->solve_time_s);
    int tipn = cr_model_node_count(m) - 1;
    cr_vec3 tr = cr_state_position(r->state, tipn);
    cr_quat tq = cr_state_orientation(r->state, tipn);
    double rv[3] = {tr.x, tr.y, tr.z}, qv[4] = {tq.w, tq.x, tq.y, tq.z};
    cJSON *tip = cJSON_AddObjectToObject(root, "tip");
    cJSON_AddNumberToObject(tip, "s", cr_model_node_s(m, tipn));
    cJSON_AddItemToObject(tip, "position", vec_json(rv, 3));
    cJSON_AddItemToObject(tip, "quaternion", vec_json(qv, 4));
    cJSON *reac = cJSON_AddArrayToObject(root, "reactions");
    for (int i = 0; i <= tipn; ++i) {
        cr_vec3 f, mo;
        if (cr_state_reaction(m, r->state, i, &f, &mo) != CR_OK) continue;
        double fv[3] = {f.x, f.y, f.z}, mv[3] = {mo.x, mo.y, mo.z};
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "node", i);
        cJSON_AddItemToObject(o, "force", vec_json(fv, 3));
        cJSON_AddItemToObject(o, "moment_body", vec_json(mv, 3));
        cJSON_AddItemToArray(reac, o);
    }
    cJSON *files = cJSON_AddObjectToObject(root, "outputs");
    cJSON_AddStringToObject(files, "nodes", "nodes.csv");
    cJSON_AddStringToObject(files, "elements", "elements.csv");
    if (vtk) cJSON_AddStringToObject(files, "paraview", "rod.pvd");
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return cr_error_set(err, CR_NO_MEMORY, "out of memory writing the summary");
    FILE *f = fopen(path, "w");
    cr_status st = CR_OK;
    if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) st = cr_error_set(err, CR_IO, "%s: cannot write", path);
    if (f && fclose(f) != 0 && st == CR_OK) st = cr_error_set(err, CR_IO, "%s: cannot write", path);
    cJSON_free(text);
    return st;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

cr_status cr_scenario_run(const cr_scenario *sc, const cr_run_options *options, cr_run_result *result, cr_error *err)
{
    double t0 = now();
    cr_run_options defaults = cr_run_default_options();
    if (!options) options = &defaults;
    cr_run_result local;
    cr_run_result *r = result ? result : &local;
    memset(r, 0, sizeof *r);
    if (strcmp(sc->model, "mixed_discrete") != 0)
        return cr_error_set(err, CR_UNSUPPORTED, "model: \"%s\" is not available yet", sc->model);
    r->model = cr_model_create(&sc->rod, err);
    if (!r->model) return err ? err->status : CR_BAD_INPUT;
    r->state = cr_state_create(r->model);
    if (!r->state) {
        cr_run_result_free(r);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    const char *dir = options->output_directory ? options->output_directory : sc->output.directory;
    int write = dir[0] != '\0';
    run_ctx ctx = {.options = options, .dir = dir, .write_vtk = write && sc->output.vtk};
    if (write) {
        cr_status st = cr_make_directory(dir, err);
        if (st != CR_OK) {
            if (!result) cr_run_result_free(r);
            return st;
        }
    }
    cr_error solve_err = {0};
    cr_status status = CR_OK;
    for (int k = 0; k < sc->stage_count && status == CR_OK; ++k) {
        cr_static_report_free(&r->report);
        status = cr_static_solve(r->model, r->state, &sc->stages[k].statics, on_load_step, &ctx, &r->report, &solve_err);
        if (status != CR_OK && ctx.io_status != CR_OK) status = ctx.io_status, solve_err = ctx.io_error;
        if (status != CR_OK && sc->stage_count > 1) {
            char msg[CR_ERROR_MESSAGE_SIZE + 32];
            snprintf(msg, sizeof msg, "stage %d: %s", k, solve_err.message);
            snprintf(solve_err.message, sizeof solve_err.message, "%.*s", CR_ERROR_MESSAGE_SIZE - 1, msg);
        }
    }
    r->status = status;
    snprintf(r->message, sizeof r->message, "%s", status == CR_OK ? "" : solve_err.message);
    r->wall_time_s = now() - t0;
    /* Outputs are written on failure as well: the last converged state is not lost. */
    cr_status io = CR_OK;
    cr_error io_err = {0};
    if (write) {
        char path[4096];
        if (io == CR_OK && (io = join(path, sizeof path, dir, "nodes.csv", &io_err)) == CR_OK)
            io = cr_write_nodes_csv(path, r->model, r->state, &io_err);
        if (io == CR_OK && (io = join(path, sizeof path, dir, "elements.csv", &io_err)) == CR_OK)
            io = cr_write_elements_csv(path, r->model, r->state, &io_err);
        if (io == CR_OK && ctx.write_vtk && (io = join(path, sizeof path, dir, "rod.pvd", &io_err)) == CR_OK)
            io = cr_write_pvd(path, (const char *const *)ctx.files, ctx.times, ctx.snapshot_count, &io_err);
        if (io == CR_OK && (io = join(path, sizeof path, dir, "summary.json", &io_err)) == CR_OK)
            io = write_summary(path, sc, r, ctx.write_vtk, &io_err);
    }
    for (int k = 0; k < ctx.snapshot_count; ++k) free(ctx.files[k]);
    free(ctx.files);
    free(ctx.times);
    if (status == CR_OK && io != CR_OK) status = io, solve_err = io_err;
    if (status != CR_OK) cr_error_set(err, status, "%s", solve_err.message);
    if (!result) cr_run_result_free(r);
    return status;
}
