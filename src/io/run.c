/* cr_scenario_run: scenario → model → stages → outputs. The CLI and the Python
 * package are thin layers over this function. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* flock */
#include "cosserat/output.h"
#include "math/fpmode.h"
#include "model/formulation.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

cr_run_options cr_run_default_options(void)
{
    cr_run_options o;
    memset(&o, 0, sizeof o);
    return o;
}

void cr_run_result_free(cr_run_result *r)
{
    if (!r) return;
    cr_static_report_free(&r->report);
    free(r->dynamics);
    for (int k = 0; r->series_names && k < r->series_columns; ++k) free(r->series_names[k]);
    free(r->series_names);
    free(r->series);
    free(r->statics);
    free(r->warnings);
    cr_sim_destroy(r->sim);
    memset(r, 0, sizeof *r);
}

cr_run_result *cr_run_result_create(void) { return calloc(1, sizeof(cr_run_result)); }

void cr_run_result_destroy(cr_run_result *r)
{
    cr_run_result_free(r);
    free(r);
}

const cr_sim *cr_run_result_sim(const cr_run_result *r) { return r->sim; }
int cr_run_result_stage_count(const cr_run_result *r) { return r->stage_count; }
const cr_model *cr_run_result_model(const cr_run_result *r) { return cr_sim_mixed_model(r->sim); }
const cr_state *cr_run_result_state(const cr_run_result *r) { return cr_sim_mixed_state(r->sim); }
int cr_run_result_step_count(const cr_run_result *r) { return r->report.step_count; }
int cr_run_result_step_iterations(const cr_run_result *r, int k) { return r->report.steps[k].iterations; }
double cr_run_result_step_load_factor(const cr_run_result *r, int k) { return r->report.steps[k].load_factor; }

double cr_run_result_final_residual(const cr_run_result *r) { return r->report.final_residual; }
int cr_run_result_failed_load_steps(const cr_run_result *r) { return r->report.failed_attempts; }
int cr_run_result_series_columns(const cr_run_result *r) { return r->series_columns; }
long cr_run_result_series_rows(const cr_run_result *r) { return r->series_rows; }
const char *cr_run_result_series_name(const cr_run_result *r, int k) { return r->series_names[k]; }
const double *cr_run_result_series_data(const cr_run_result *r) { return r->series; }

const double *cr_run_result_step_history(const cr_run_result *r, int k, int *count)
{
    *count = r->report.steps[k].history_count;
    return r->report.steps[k].residual_history;
}

int cr_run_result_warning_count(const cr_run_result *r) { return r ? r->warning_count : 0; }

const char *cr_run_result_warning(const cr_run_result *r, int k, const char **key, const char **message)
{
    if (!r || k < 0 || k >= r->warning_count) return NULL;
    if (key) *key = r->warnings[k].key;
    if (message) *message = r->warnings[k].message;
    return r->warnings[k].code;
}

typedef struct run_ctx {
    const cr_run_options *options;
    cr_fpmode caller_fp; /* the caller's floating-point mode, for its callbacks (the stages flush, math/fpmode.h) */
    const char *dir;
    int write_vtk;
    int snapshot_count, snapshot_capacity;
    char **files;
    double *times;
    double snapshot_time_offset; /* static stages: snapshot time = offset + load factor */
    int last_snapshot_dynamic;
    cr_status io_status;
    cr_error io_error;
    /* dynamic stages */
    /* series.csv: open when series_open; every row goes out whole in one write(2) (row: its
     * text), series_bytes is the file's length (the checkpoint's truncation point) */
    int series_open, series_fd;
    char *row_text;
    size_t row_capacity;
    unsigned char *nan_ok; /* per column of the row being written: NaN is its documented "none" */
    int64_t series_bytes;
    double next_snapshot, snapshot_dt;
    double *yaw;                 /* last unwrapped yaw per body (degrees) */
    int yaw_valid;
    int stage;
    double t_stage_start, t_end, work, last_h;
    double wall_start, last_progress, last_checkpoint, checkpoint_interval;
    cr_run_result *result;   /* receives the series rows */
    uint64_t fingerprint;
    /* output.track: the formulation node of each recorded point, and per stage the
     * points at the stage's end (summary.json) */
    const cr_scenario *scenario;
    int track_count;
    int *track_node;
    cJSON **stage_track;
    cJSON **stage_steps; /* static stages: the points after every accepted load step */
    /* sanity warnings: the scenario's (input_warnings of them), then the stages' results';
     * reference: the strains and node positions of the created sim (warnings.h) */
    cr_warning_list warnings;
    int input_warnings;
    double *reference;
} run_ctx;

static cr_status join(char *out, size_t size, const char *dir, const char *name, cr_error *err)
{
    int len = snprintf(out, size, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= size) return cr_error_set(err, CR_IO, "%s/%s: path too long", dir, name);
    return CR_OK;
}

static int add_snapshot(run_ctx *c, const cr_sim *sim, double time, int dynamic)
{
    if (!c->write_vtk || c->io_status != CR_OK) return c->io_status != CR_OK;
    /* a later dynamic stage starts from the state the previous one ended in: a frame at the
     * time of the previous dynamic frame is that same state, not written twice */
    if (dynamic && c->last_snapshot_dynamic && c->snapshot_count > 0 && time == c->times[c->snapshot_count - 1])
        return 0;
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
    char name[64];
    snprintf(name, sizeof name, "rod_%04d.vtp", c->snapshot_count);
    c->io_status = cr_write_snapshot_rods(c->dir, c->snapshot_count, sim, &c->scenario->rod,
                                          cr_scenario_is_assembly(c->scenario) ? c->scenario->rods : NULL, c->stage,
                                          c->scenario->output.vtk_format, &c->io_error);
    if (c->io_status != CR_OK) return 1;
    if (!(c->files[c->snapshot_count] = strdup(name))) {
        c->io_status = cr_error_set(&c->io_error, CR_NO_MEMORY, "out of memory for snapshots");
        return 1;
    }
    /* ParaView orders a series by time: keep it in the order of computation (only a static
     * stage after a dynamic one, which does not advance t, needs this) */
    if (c->snapshot_count > 0 && time <= c->times[c->snapshot_count - 1])
        time = c->times[c->snapshot_count - 1] + 1e-6 * fmax(1.0, fabs(c->times[c->snapshot_count - 1]));
    c->times[c->snapshot_count++] = time;
    c->last_snapshot_dynamic = dynamic;
    return 0;
}

static int stop_requested(const run_ctx *c) { return c->options->stop && *c->options->stop; }

static void record_load_step(run_ctx *c, const cr_sim *sim);

/* The caller's callbacks run in the caller's floating-point mode, not the stage's: returns the stage's, for
   cr_fpmode_restore after the call. */
static cr_fpmode caller_mode(const run_ctx *c)
{
    cr_fpmode stage = cr_fpmode_get();
    cr_fpmode_restore(c->caller_fp);
    return stage;
}

static int on_load_step(cr_sim *sim, const cr_load_step_report *step, int index, void *user)
{
    run_ctx *c = user;
    record_load_step(c, sim);
    /* an arc-length path's load factor goes back and forth: its snapshots are timed by
     * the path step instead (the load factor is in each snapshot's field data) */
    const cr_static_options *so = &c->scenario->stages[c->stage].statics;
    double at = so->arc_length ? (index + 1.0) / so->arc_steps : cr_sim_load_factor(sim);
    if (add_snapshot(c, sim, c->snapshot_time_offset + at, 0)) return 1;
    if (c->options->on_step) {
        cr_fpmode lib = caller_mode(c);
        int stop = c->options->on_step(sim, step, index, c->options->user);
        cr_fpmode_restore(lib);
        if (stop) return 1;
    }
    return stop_requested(c);
}

/* ---- recorded points (output.track) ---- */
/* The formulation node of each tracked point. A node reference counts the rod
 * definition's elements + 1 nodes; a formulation with k nodes per element (the
 * port-Hamiltonian rod's quadratic elements: k = 2) has node k·i there. An arc length
 * picks the node (of all the formulation's nodes) with the nearest reference s, the
 * first of two equally near. */
static cr_status track_nodes(const cr_scenario *sc, const cr_sim *sim, int *out, cr_error *err)
{
    for (int k = 0; k < sc->output.track_count; ++k) {
        const cr_track_def *t = &sc->output.track[k];
        /* the nodes of the point's rod (of an assembly: numbered rod by rod) */
        int r = t->rod < cr_sim_rod_count(sim) ? t->rod : 0, first = cr_sim_rod_first_node(sim, r);
        int nn = cr_sim_rod_first_node(sim, r + 1) - first,
            ne = sc->rod_count > r ? sc->rods[r].rod.elements : sc->rod.elements;
        if (t->by_s) {
            int best = 0;
            for (int i = 1; i < nn; ++i)
                if (fabs(cr_sim_node_s(sim, first + i) - t->s) < fabs(cr_sim_node_s(sim, first + best) - t->s))
                    best = i;
            out[k] = first + best;
            continue;
        }
        int i = t->node < 0 ? t->node + ne + 1 : t->node;
        if (ne < 1 || (nn - 1) % ne != 0 || i < 0 || i > ne)
            return cr_error_set(err, CR_BAD_INPUT,
                                "output.track.%d.node: node %d does not map onto the %s model's %d nodes "
                                "(%d elements)", k, t->node, cr_sim_formulation(sim), nn, ne);
        out[k] = first + i * ((nn - 1) / ne);
    }
    return CR_OK;
}

int cr_scenario_tip_node(const cr_scenario *sc, const cr_sim *sim)
{
    /* (of an assembly: the free end of its first rod) */
    int nn = cr_sim_rod_first_node(sim, 1), ne = sc->rod.elements, held_first = 0, held_last = 0;
    int nodes[CR_TRACK_MAX];
    if (sc->output.track_count <= CR_TRACK_MAX && track_nodes(sc, sim, nodes, NULL) == CR_OK)
        for (int k = 0; k < sc->output.track_count; ++k)
            if (!strcmp(sc->output.track[k].name, "tip")) return nodes[k];
    if (cr_scenario_is_assembly(sc) && cr_sim_rod_count(sim) == sc->rod_count) {
        /* an assembly: the last end, of the last rod first, that no support and no joint holds;
         * else the last node */
        for (int r = sc->rod_count - 1; r >= 0; --r) {
            const cr_rod_def *d = &sc->rods[r].rod;
            for (int end = 1; end >= 0; --end) {
                int node = end ? d->elements : 0, held = 0;
                for (int k = 0; k < d->bc_count; ++k)
                    held |= (d->bcs[k].node < 0 ? d->bcs[k].node + d->elements + 1 : d->bcs[k].node) == node;
                for (int j = 0; j < sc->joint_count; ++j) {
                    const cr_rod_node *jn[2] = {&sc->joints[j].a, &sc->joints[j].b};
                    for (int e = 0; e < 2; ++e)
                        held |=
                            jn[e]->rod == r && (jn[e]->node < 0 ? jn[e]->node + d->elements + 1 : jn[e]->node) == node;
                }
                int first = cr_sim_rod_first_node(sim, r),
                    per = (cr_sim_rod_first_node(sim, r + 1) - first - 1) / d->elements;
                if (!held) return first + node * per;
            }
        }
        return cr_sim_node_count(sim) - 1;
    }
    for (int k = 0; k < sc->rod.bc_count; ++k) {
        int node = sc->rod.bcs[k].node < 0 ? sc->rod.bcs[k].node + ne + 1 : sc->rod.bcs[k].node;
        held_first |= node == 0;
        held_last |= node == ne;
    }
    return held_last && !held_first ? 0 : nn - 1;
}

/* Per tracked point: position (3) and quaternion (4), and at a node that has a
 * support (in some stage) of a formulation that reports reactions, the reaction
 * force (I) and moment (node basis): NaN while the support is not active. */
enum { TRACK_COLUMNS = 7, REACTION_COLUMNS = 6 };
static const char *const track_suffix[TRACK_COLUMNS] = {"x", "y", "z", "p0", "p1", "p2", "p3"};
static const char *const reaction_suffix[REACTION_COLUMNS] = {"fx", "fy", "fz", "mx", "my", "mz"};

static int track_reaction(const cr_scenario *sc, const cr_sim *sim, int node)
{
    if (!sim->f->reaction) return 0;
    int r = cr_sim_node_rod(sim, node), first = cr_sim_rod_first_node(sim, r);
    const cr_rod_def *d = sc->rod_count > r ? &sc->rods[r].rod : &sc->rod;
    int ne = d->elements, per = ne > 0 ? (cr_sim_rod_first_node(sim, r + 1) - first - 1) / ne : 1;
    for (int k = 0; k < d->bc_count; ++k) {
        int b = d->bcs[k].node < 0 ? d->bcs[k].node + ne + 1 : d->bcs[k].node;
        if (first + b * per == node) return 1;
    }
    return 0;
}

/* ---- dynamic stages: series.csv rows, snapshots, checkpoints ---- */
/* Column names of series.csv, kept in the result too: the head, the tracked points,
 * the momenta, the formulation's extra columns, the rigid bodies. point_of (optional,
 * one per column) says which tracked point a column belongs to (-1: none). */
enum { SERIES_HEAD = 6, SERIES_MOMENTA = 6 };
static cr_status series_names(const cr_scenario *sc, const cr_sim *sim, char ***names_out, int *count, int **point_of)
{
    static const char *head[SERIES_HEAD] = {"t",            "energy_kinetic", "energy_elastic",
                                            "energy_gravity", "energy_total",   "work_external"};
    static const char *momenta[SERIES_MOMENTA] = {"momentum_x",         "momentum_y",         "momentum_z",
                                                  "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"};
    static const char *body[] = {"x", "y", "z", "yaw", "pitch", "roll"};
    const char *const *extra = NULL;
    int np = sc->output.track_count;
    int *nodes = malloc((np > 0 ? np : 1) * sizeof *nodes);
    if (!nodes) return CR_NO_MEMORY;
    int mapped = track_nodes(sc, sim, nodes, NULL) == CR_OK, nt = 0;
    for (int k = 0; k < np; ++k)
        nt += TRACK_COLUMNS + (mapped && track_reaction(sc, sim, nodes[k]) ? REACTION_COLUMNS : 0);
    int ne = sim->f->series_extra(sim->impl, &extra);
    int nb = cr_sim_body_count(sim), nc = SERIES_HEAD + nt + SERIES_MOMENTA + ne + 6 * nb;
    char **names = calloc(nc, sizeof(char *));
    int *owner = calloc(nc, sizeof(int));
    *names_out = names;
    *count = names ? nc : 0;
    if (!names || !owner) {
        free(nodes);
        free(owner);
        return CR_NO_MEMORY;
    }
    int col = 0;
    char name[96];
#define ADD_NAME(p, ...)                                                                                               \
    do {                                                                                                               \
        snprintf(name, sizeof name, __VA_ARGS__);                                                                      \
        owner[col] = (p);                                                                                              \
        if (!(names[col++] = strdup(name))) goto oom;                                                                  \
    } while (0)
    for (int j = 0; j < SERIES_HEAD; ++j) ADD_NAME(-1, "%s", head[j]);
    for (int k = 0; k < np; ++k) {
        const char *pn = sc->output.track[k].name;
        for (int j = 0; j < TRACK_COLUMNS; ++j) ADD_NAME(k, "%s_%s", pn, track_suffix[j]);
        if (mapped && track_reaction(sc, sim, nodes[k]))
            for (int j = 0; j < REACTION_COLUMNS; ++j) ADD_NAME(k, "%s_%s", pn, reaction_suffix[j]);
    }
    for (int j = 0; j < SERIES_MOMENTA; ++j) ADD_NAME(-1, "%s", momenta[j]);
    for (int j = 0; j < ne; ++j) ADD_NAME(-1, "%s", extra[j]);
    for (int j = 0; j < 6 * nb; ++j) ADD_NAME(-1, "%s_%s", cr_sim_body_name(sim, j / 6), body[j % 6]);
#undef ADD_NAME
    free(nodes);
    if (point_of) *point_of = owner;
    else free(owner);
    return CR_OK;
oom:
    free(nodes);
    free(owner);
    return CR_NO_MEMORY;
}

static void free_names(char **names, int count)
{
    for (int k = 0; names && k < count; ++k) free(names[k]);
    free(names);
}

/* The tracked points' nodes exist in this formulation and their columns are not
 * already columns of series.csv (a point named like a rigid body, or "momentum"). */
static cr_status check_track(const cr_scenario *sc, const cr_sim *sim, cr_error *err)
{
    int n = sc->output.track_count;
    int *nodes = malloc((n > 0 ? n : 1) * sizeof *nodes);
    if (!nodes) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    cr_status st = track_nodes(sc, sim, nodes, err);
    free(nodes);
    if (st != CR_OK) return st;
    char **names = NULL;
    int nc = 0, *point = NULL;
    if (series_names(sc, sim, &names, &nc, &point) != CR_OK) {
        free_names(names, nc);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    for (int k = 0; k < nc && st == CR_OK; ++k) {
        if (point[k] < 0) continue;
        for (int j = 0; j < nc && st == CR_OK; ++j)
            if (j != k && !strcmp(names[j], names[k]))
                st = cr_error_set(err, CR_BAD_INPUT,
                                  "output.track.%d.name: \"%s\" gives the series.csv column %s, which is already "
                                  "a column (choose another name)",
                                  point[k], sc->output.track[point[k]].name, names[k]);
    }
    free(point);
    free_names(names, nc);
    return st;
}

static cr_status series_columns(cr_run_result *r, const cr_scenario *sc, const cr_sim *sim)
{
    if (r->series_names) return CR_OK;
    return series_names(sc, sim, &r->series_names, &r->series_columns, NULL);
}

/* Appends text to series.csv with write(2) calls (one unless the kernel writes less), so a
 * reader of the growing file never meets a row cut at a stdio buffer boundary. */
static int series_write(run_ctx *c, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(c->series_fd, text, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            c->io_status = cr_error_set(&c->io_error, CR_IO, "%s/series.csv: cannot write (%s)", c->dir,
                                        n < 0 ? strerror(errno) : "no space");
            return 1;
        }
        text += n, len -= (size_t)n;
        c->series_bytes += n;
    }
    return 0;
}

/* room for len more characters in the row text */
static int row_reserve(run_ctx *c, size_t len)
{
    if (len <= c->row_capacity) return 0;
    char *p = realloc(c->row_text, len);
    if (!p) {
        c->io_status = cr_error_set(&c->io_error, CR_NO_MEMORY, "out of memory for the time series");
        return 1;
    }
    c->row_text = p;
    c->row_capacity = len;
    return 0;
}

static int series_header(run_ctx *c, const cr_run_result *r)
{
    size_t len = 0, need = 2;
    for (int k = 0; k < r->series_columns; ++k) need += strlen(r->series_names[k]) + 1;
    if (row_reserve(c, need)) return 1;
    for (int k = 0; k < r->series_columns; ++k)
        len += (size_t)snprintf(c->row_text + len, need - len, "%s%s", k ? "," : "", r->series_names[k]);
    c->row_text[len++] = '\n';
    return series_write(c, c->row_text, len);
}

static int on_output(cr_sim *sim, const cr_dynamic_sample *smp, void *user)
{
    run_ctx *c = user;
    cr_run_result *r = c->result;
    if (r->series_rows == r->series_capacity) {
        long cap = r->series_capacity ? 2 * r->series_capacity : 1024;
        double *p = realloc(r->series, (size_t)cap * r->series_columns * sizeof(double));
        if (!p) {
            c->io_status = cr_error_set(&c->io_error, CR_NO_MEMORY, "out of memory for the time series");
            return 1;
        }
        r->series = p;
        r->series_capacity = cap;
    }
    if (!c->nan_ok && !(c->nan_ok = calloc((size_t)r->series_columns, 1))) {
        c->io_status = cr_error_set(&c->io_error, CR_NO_MEMORY, "out of memory for the time series");
        return 1;
    }
    double *row = r->series + (size_t)r->series_rows++ * r->series_columns;
    cr_vec3 P = smp->momentum, L = smp->angular_momentum;
    double head[SERIES_HEAD] = {smp->t,       smp->kinetic, smp->elastic, smp->gravity,
                                smp->kinetic + smp->elastic + smp->gravity, smp->work_external};
    double momenta[SERIES_MOMENTA] = {P.x, P.y, P.z, L.x, L.y, L.z};
    memcpy(row, head, sizeof head);
    double *col = row + SERIES_HEAD;
    for (int k = 0; k < c->track_count; ++k, col += TRACK_COLUMNS) {
        cr_vec3 x = cr_sim_position(sim, c->track_node[k]);
        cr_quat q = cr_sim_orientation(sim, c->track_node[k]);
        double v[TRACK_COLUMNS] = {x.x, x.y, x.z, q.w, q.x, q.y, q.z};
        memcpy(col, v, sizeof v);
        if (!track_reaction(c->scenario, sim, c->track_node[k])) continue;
        cr_vec3 f, m;
        double rv[REACTION_COLUMNS] = {NAN, NAN, NAN, NAN, NAN, NAN};
        int none = cr_sim_reaction(sim, c->track_node[k], &f, &m) != CR_OK; /* no support active: NaN */
        if (!none) rv[0] = f.x, rv[1] = f.y, rv[2] = f.z, rv[3] = m.x, rv[4] = m.y, rv[5] = m.z;
        memset(c->nan_ok + (col + TRACK_COLUMNS - row), none, REACTION_COLUMNS);
        memcpy(col + TRACK_COLUMNS, rv, sizeof rv);
        col += REACTION_COLUMNS;
    }
    memcpy(col, momenta, sizeof momenta);
    col += SERIES_MOMENTA;
    int base = (int)(col - row);
    int ne = r->series_columns - base - 6 * cr_sim_body_count(sim);
    for (int k = 0; k < ne; ++k) {
        col[k] = k < smp->extra_count ? smp->extra[k] : NAN;
        c->nan_ok[col + k - row] = k >= smp->extra_count;
    }
    for (int j = 0; j < cr_sim_body_count(sim); ++j) {
        cr_vec3 x;
        cr_mat3 R;
        cr_sim_body_pose(sim, j, &x, &R);
        /* Z-Y-X (yaw about I_z, then pitch, then roll), degrees; yaw unwrapped */
        double yaw = atan2(R.m[1][0], R.m[0][0]) * 180 / M_PI;
        double pitch = asin(fmax(-1.0, fmin(1.0, -R.m[2][0]))) * 180 / M_PI;
        double roll = atan2(R.m[2][1], R.m[2][2]) * 180 / M_PI;
        if (c->yaw_valid) {
            while (yaw - c->yaw[j] > 180) yaw -= 360;
            while (yaw - c->yaw[j] < -180) yaw += 360;
        }
        c->yaw[j] = yaw;
        double b[6] = {x.x, x.y, x.z, yaw, pitch, roll};
        memcpy(col + ne + 6 * j, b, sizeof b);
    }
    c->yaw_valid = 1;
    /* a row is an answer: an overflowing value (a dissipation integral of a huge damping)
     * fails the stage at the last finite row rather than be written and called converged */
    for (int k = 0; k < r->series_columns; ++k)
        if (!isfinite(row[k]) && !(isnan(row[k]) && c->nan_ok[k])) {
            r->series_rows--;
            c->io_status = cr_error_set(&c->io_error, CR_NONFINITE,
                                        "series.csv: %s is %g at t = %.10g s: the result is not finite (the solution "
                                        "overflows; check the loads, rod.damping and the time step)",
                                        r->series_names[k], row[k], smp->t);
            return 1;
        }
    if (c->series_open) {
        /* %.10g with a comma: at most 1 + 17 + 5 + 1 characters a number */
        size_t need = (size_t)r->series_columns * 32 + 2, len = 0;
        if (row_reserve(c, need)) return 1;
        for (int k = 0; k < r->series_columns; ++k)
            len += (size_t)snprintf(c->row_text + len, need - len, "%s%.10g", k ? "," : "", row[k]);
        c->row_text[len++] = '\n';
        if (series_write(c, c->row_text, len)) return 1;
    }
    if (smp->t >= c->next_snapshot - 1e-9 * c->snapshot_dt) {
        if (add_snapshot(c, sim, smp->t, 1)) return 1;
        /* the next multiple past t in one step: a loop of additions never ends when
         * snapshot_dt is below the resolution of t (a 1e-30 hung at t = 0) */
        double behind = smp->t + 1e-9 * c->snapshot_dt - c->next_snapshot;
        if (behind >= 0) c->next_snapshot += (floor(behind / c->snapshot_dt) + 1) * c->snapshot_dt;
    }
    /* the caller's hook (it may set load inputs for the next interval); a stop request
     * is honoured at the end of the step (on_dyn_step), where every output up to the
     * state's time has been written */
    if (!c->options->on_output) return 0;
    cr_fpmode lib = caller_mode(c);
    int stop = c->options->on_output(sim, smp, c->options->user);
    cr_fpmode_restore(lib);
    return stop;
}

/* default cap on the .vtp snapshots of a dynamic stage (docs/scenario.md, stages) */
#define SNAPSHOTS_PER_STAGE 500.0

/* checkpoint.bin: everything a resumed run needs (native byte order, same build).
 * After the header: the bodies' yaw, the snapshot times, the packed state, then (since
 * version 05, which also packs the load inputs with the state) the statistics of the stages so far: per stage a cr_static_stage_stats
 * and a cr_dynamic_report, the last static stage's report (a checkpoint_report and per
 * load step a checkpoint_step and its residual history) and the stages' result warnings. */
#define CHECKPOINT_MAGIC "CRCKPT07" /* 07: the stability report says whether an unstable state was left */
typedef struct checkpoint_header {
    char magic[8];
    uint64_t fingerprint; /* of the model and the stage types: a checkpoint fits one scenario */
    int32_t stage, packed, bodies, snapshots;
    double t_stage_start, h, work, next_snapshot;
    int64_t series_bytes;
    int32_t stage_count, warnings; /* of the statistics part */
} checkpoint_header;

typedef struct checkpoint_report {
    int32_t converged, step_count, failed_attempts, total_iterations;
    double final_residual, load_factor, wall_time_s, assembly_time_s, solve_time_s;
} checkpoint_report;

typedef struct checkpoint_step {
    double load_factor;
    int32_t iterations, history_count;
} checkpoint_step;

/* The statistics part of a checkpoint (see above); 1 when every write succeeded. */
static int write_statistics(FILE *f, const run_ctx *c)
{
    const cr_run_result *r = c->result;
    const cr_static_report *rep = &r->report;
    int n = r->stage_count, ok = 1;
    ok = ok && fwrite(r->statics, sizeof *r->statics, n, f) == (size_t)n;
    ok = ok && fwrite(r->dynamics, sizeof *r->dynamics, n, f) == (size_t)n;
    checkpoint_report cr = {rep->converged,      rep->step_count,  rep->failed_attempts, rep->total_iterations,
                            rep->final_residual, rep->load_factor, rep->wall_time_s,     rep->assembly_time_s,
                            rep->solve_time_s};
    ok = ok && fwrite(&cr, sizeof cr, 1, f) == 1;
    for (int k = 0; ok && k < rep->step_count; ++k) {
        const cr_load_step_report *s = &rep->steps[k];
        checkpoint_step cs = {s->load_factor, s->iterations, s->history_count};
        ok = fwrite(&cs, sizeof cs, 1, f) == 1 &&
             fwrite(s->residual_history, sizeof(double), s->history_count, f) == (size_t)s->history_count;
    }
    int nw = c->warnings.count - c->input_warnings;
    return ok && (nw <= 0 || fwrite(c->warnings.items + c->input_warnings, sizeof(cr_warning), nw, f) == (size_t)nw);
}

/* Reads what write_statistics wrote into the result and the run's warnings (after the
 * scenario's own); CR_BAD_INPUT when it is short or implausible. */
static cr_status read_statistics(FILE *f, run_ctx *c, const checkpoint_header *h)
{
    cr_run_result *r = c->result;
    cr_static_report *rep = &r->report;
    int n = r->stage_count;
    checkpoint_report cr;
    if (h->stage_count != n || h->warnings < 0 || h->warnings > 64 * (n + 1) ||
        fread(r->statics, sizeof *r->statics, n, f) != (size_t)n ||
        fread(r->dynamics, sizeof *r->dynamics, n, f) != (size_t)n || fread(&cr, sizeof cr, 1, f) != 1 ||
        cr.step_count < 0 || cr.step_count > 100000000)
        return CR_BAD_INPUT;
    cr_static_report_free(rep);
    *rep = (cr_static_report){.converged = cr.converged, .failed_attempts = cr.failed_attempts,
                              .total_iterations = cr.total_iterations, .final_residual = cr.final_residual,
                              .load_factor = cr.load_factor, .wall_time_s = cr.wall_time_s,
                              .assembly_time_s = cr.assembly_time_s, .solve_time_s = cr.solve_time_s};
    if (cr.step_count > 0 && !(rep->steps = calloc(cr.step_count, sizeof *rep->steps))) return CR_NO_MEMORY;
    rep->step_capacity = cr.step_count;
    for (int k = 0; k < cr.step_count; ++k) {
        checkpoint_step cs;
        if (fread(&cs, sizeof cs, 1, f) != 1 || cs.history_count < 0 || cs.history_count > 1000000) return CR_BAD_INPUT;
        cr_load_step_report *s = &rep->steps[rep->step_count++];
        *s = (cr_load_step_report){.load_factor = cs.load_factor, .iterations = cs.iterations,
                                   .history_count = cs.history_count};
        if (!(s->residual_history = malloc((cs.history_count > 0 ? cs.history_count : 1) * sizeof(double))))
            return CR_NO_MEMORY;
        if (fread(s->residual_history, sizeof(double), cs.history_count, f) != (size_t)cs.history_count)
            return CR_BAD_INPUT;
    }
    for (int k = 0; k < h->warnings; ++k) {
        cr_warning w;
        if (fread(&w, sizeof w, 1, f) != 1) return CR_BAD_INPUT;
        w.code[sizeof w.code - 1] = w.key[sizeof w.key - 1] = w.message[sizeof w.message - 1] = '\0';
        if (c->warnings.count == c->warnings.capacity) {
            int cap = c->warnings.capacity ? 2 * c->warnings.capacity : 8;
            cr_warning *p = realloc(c->warnings.items, cap * sizeof *p);
            if (!p) return CR_NO_MEMORY;
            c->warnings.items = p;
            c->warnings.capacity = cap;
        }
        c->warnings.items[c->warnings.count++] = w;
    }
    return CR_OK;
}

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Whether a message names stage k already ("static stage 1: ..."): then it is not prefixed again. */
static int names_stage(const char *msg, int k)
{
    char word[32];
    const int len = snprintf(word, sizeof word, "stage %d", k);
    for (const char *p = strstr(msg, word); p; p = strstr(p + 1, word))
        if (p[len] < '0' || p[len] > '9') return 1;
    return 0;
}

/* FNV-1a over everything that changes the trajectory or its outputs: the
 * formulation and its discretized model, every stage's kind, duration,
 * tolerances, step and output settings, and the VTK switch. Only the
 * checkpoint interval (wall clock) may differ between a run and its resume. */
static uint64_t fingerprint(const cr_scenario *sc, const cr_sim *sim)
{
    uint64_t h = sim->f->fingerprint(sim->impl);
    h = fnv_bytes(h, sim->f->name, strlen(sim->f->name));
    /* field by field: struct padding is not guaranteed to be zero */
    const cr_model_options *mo = &sc->model;
    h = fnv_bytes(h, mo->type, strlen(mo->type));
    int ints[3] = {mo->dilatation, mo->chart, mo->branch_count};
    h = fnv_bytes(h, ints, sizeof ints);
    h = fnv_bytes(h, mo->branch_tau, sizeof mo->branch_tau);
    h = fnv_bytes(h, mo->branch_fraction, sizeof mo->branch_fraction);
    h = fnv_bytes(h, mo->branch_kelvin_voigt, sizeof mo->branch_kelvin_voigt);
    h = fnv_bytes(h, &mo->newton_atol, sizeof mo->newton_atol);
    /* the stages' settings field by field too (their structs end in padding), without the
     * checkpoint interval (wall clock) and the threads (results equal for any count) */
    for (int k = 0; k < sc->stage_count; ++k) {
        const cr_stage_def *st = &sc->stages[k];
        const int type = (int)st->type;
        h = fnv_bytes(h, &type, sizeof type);
        if (st->type == CR_STAGE_STATIC) {
            const cr_static_options *o = &st->statics;
            const double v[13] = {o->load_steps,  o->max_iterations, o->atol,          o->rtol,      o->max_halvings,
                                  o->max_history, o->adaptive,       o->max_increment, o->stability, o->stability_modes,
                                  o->arc_length,  o->arc_steps,      o->arc_initial};
            h = fnv_bytes(h, v, sizeof v);
            h = fnv_bytes(h, &o->arc_max_load_factor, sizeof o->arc_max_load_factor);
        } else {
            const cr_dynamic_options *o = &st->dynamics;
            const double v[9] = {o->t_end,       o->rtol,   o->atol,  o->output_dt,
                                 o->snapshot_dt, o->h_init, o->h_max, (double)o->max_steps,
                                 o->time_step};
            h = fnv_bytes(h, v, sizeof v);
        }
    }
    /* the tracked points make the columns of series.csv */
    for (int k = 0; k < sc->output.track_count; ++k) {
        const cr_track_def *t = &sc->output.track[k];
        int ints2[2] = {t->by_s, t->node};
        h = fnv_bytes(h, t->name, strlen(t->name) + 1);
        h = fnv_bytes(h, ints2, sizeof ints2);
        h = fnv_bytes(h, &t->s, sizeof t->s);
    }
    /* not output.vtk_format: a run resumed in the other encoding writes its later snapshots
     * in that one, and a collection of both reads fine (each file names its encoding) */
    return fnv_bytes(h, &sc->output.vtk, sizeof sc->output.vtk);
}

static cr_status write_checkpoint(run_ctx *c, const cr_sim *sim, cr_error *err)
{
    if (!c->dir[0]) return CR_OK;
    char path[4096], tmp[4200];
    cr_status st = join(path, sizeof path, c->dir, "checkpoint.bin", err);
    if (st != CR_OK) return st;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    /* the rows the checkpoint counts reach the disk before it does */
    if (c->series_open) fsync(c->series_fd);
    checkpoint_header h = {.fingerprint = c->fingerprint,
                           .stage = c->stage,
                           .packed = sim->f->packed_size(sim->impl),
                           .bodies = cr_sim_body_count(sim),
                           .snapshots = c->snapshot_count,
                           .t_stage_start = c->t_stage_start,
                           .h = c->last_h,
                           .work = c->work,
                           .next_snapshot = c->next_snapshot,
                           .series_bytes = c->series_open ? c->series_bytes : 0,
                           .stage_count = c->result->stage_count,
                           .warnings = c->warnings.count - c->input_warnings};
    memcpy(h.magic, CHECKPOINT_MAGIC, 8);
    double *packed = malloc(h.packed * sizeof(double));
    FILE *f = packed ? fopen(tmp, "wb") : NULL;
    if (!f) {
        const char *why = packed ? strerror(errno) : "out of memory";
        free(packed);
        return cr_error_set(err, CR_IO, "%s: cannot write the checkpoint (%s)", tmp, why);
    }
    sim->f->pack(sim->impl, packed);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 &&
             (h.bodies == 0 || fwrite(c->yaw, sizeof(double), h.bodies, f) == (size_t)h.bodies) &&
             (h.snapshots == 0 || fwrite(c->times, sizeof(double), h.snapshots, f) == (size_t)h.snapshots) &&
             fwrite(packed, sizeof(double), h.packed, f) == (size_t)h.packed && write_statistics(f, c);
    ok = fflush(f) == 0 && ok;
    int e = ok ? 0 : errno;
    ok = fclose(f) == 0 && ok;
    free(packed);
    if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
    if (!ok) {
        remove(tmp);
        return cr_error_set(err, CR_IO, "%s: cannot write the checkpoint (%s)", path, e ? strerror(e) : "write error");
    }
    return CR_OK;
}

static cr_status read_checkpoint(run_ctx *c, const cr_scenario *sc, cr_sim *sim, cr_error *err)
{
    char path[4096];
    cr_status st = join(path, sizeof path, c->dir, "checkpoint.bin", err);
    if (st != CR_OK) return st;
    FILE *f = fopen(path, "rb");
    if (!f) return cr_error_set(err, CR_BAD_INPUT, "--resume: %s: no checkpoint to resume from", path);
    checkpoint_header h;
    memset(&h, 0, sizeof h);
    double *packed = NULL;
    st = CR_OK;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CHECKPOINT_MAGIC, 8) != 0) {
        /* an older layout (CRCKPT04 and before had no stage statistics) cannot be read */
        if (!memcmp(h.magic, "CRCKPT", 6))
            st = cr_error_set(err, CR_BAD_INPUT,
                              "--resume: %s has the checkpoint format %.8s of an older version, this version reads "
                              "%s; it cannot be resumed: rerun the scenario without --resume",
                              path, h.magic, CHECKPOINT_MAGIC);
        else st = cr_error_set(err, CR_BAD_INPUT, "--resume: %s is not a checkpoint of this version", path);
    } else if (h.fingerprint != fingerprint(sc, sim) || h.packed < 0 ||
               (!sim->f->unpacked_size && h.packed != sim->f->packed_size(sim->impl)) ||
               h.bodies != cr_sim_body_count(sim) || h.stage < 0 || h.stage >= sc->stage_count ||
               sc->stages[h.stage].type != CR_STAGE_DYNAMIC) {
        st = cr_error_set(err, CR_BAD_INPUT, "--resume: %s does not belong to this scenario (different rod, "
                                              "material, boundary conditions, loads, bodies or stages)", path);
    } else if (h.snapshots < 0 || h.snapshots > 100000000 || h.series_bytes < 0) {
        st = cr_error_set(err, CR_BAD_INPUT, "--resume: %s is corrupt", path);
    } else {
        packed = malloc(h.packed * sizeof(double));
        c->times = malloc((h.snapshots > 0 ? h.snapshots : 1) * sizeof(double));
        c->files = calloc(h.snapshots > 0 ? h.snapshots : 1, sizeof(char *));
        if (!packed || !c->times || !c->files ||
            fread(c->yaw, sizeof(double), h.bodies, f) != (size_t)h.bodies ||
            fread(c->times, sizeof(double), h.snapshots, f) != (size_t)h.snapshots ||
            fread(packed, sizeof(double), h.packed, f) != (size_t)h.packed)
            st = cr_error_set(err, CR_BAD_INPUT, "--resume: %s is truncated", path);
        else if (sim->f->unpacked_size && sim->f->unpacked_size(sim->impl, packed, h.packed) != h.packed)
            st = cr_error_set(err, CR_BAD_INPUT,
                              "--resume: %s does not belong to this scenario (its state does not "
                              "fit the scenario's rods)",
                              path);
        else if ((st = read_statistics(f, c, &h)) != CR_OK)
            st = st == CR_NO_MEMORY ? cr_error_set(err, st, "out of memory")
                                    : cr_error_set(err, CR_BAD_INPUT, "--resume: %s is truncated or corrupt", path);
    }
    fclose(f);
    if (st == CR_OK) {
        sim->f->unpack(sim->impl, packed);
        c->stage = h.stage;
        c->t_stage_start = h.t_stage_start;
        c->last_h = h.h;
        c->work = h.work;
        c->next_snapshot = h.next_snapshot;
        c->yaw_valid = 1;
        c->snapshot_count = c->snapshot_capacity = h.snapshots;
        for (int k = 0; k < h.snapshots && st == CR_OK; ++k) {
            char name[64];
            snprintf(name, sizeof name, "rod_%04d.vtp", k);
            if (!(c->files[k] = strdup(name))) st = cr_error_set(err, CR_NO_MEMORY, "out of memory");
        }
        /* drop series rows written after the checkpoint */
        char spath[4096];
        struct stat sb;
        if (join(spath, sizeof spath, c->dir, "series.csv", err) != CR_OK) st = CR_IO;
        else if (stat(spath, &sb) != 0 || (int64_t)sb.st_size < h.series_bytes)
            st = cr_error_set(err, CR_BAD_INPUT, "--resume: %s is shorter than the checkpoint says", spath);
        else if (truncate(spath, (off_t)h.series_bytes) != 0)
            st = cr_error_set(err, CR_IO, "--resume: %s: cannot truncate", spath);
    }
    free(packed);
    return st;
}

static double wall_now(void);

static int on_dyn_step(cr_sim *sim, double h, long steps, double work, void *user)
{
    run_ctx *c = user;
    c->last_h = h;
    c->work = work; /* at the step end, where the checkpointed state is */
    double w = wall_now();
    if (c->options->on_progress && w - c->last_progress > 0.2) {
        c->last_progress = w;
        cr_fpmode lib = caller_mode(c);
        c->options->on_progress(cr_sim_time(sim), c->t_end, steps, w - c->wall_start, c->options->user);
        cr_fpmode_restore(lib);
    }
    if (c->checkpoint_interval > 0 && w - c->last_checkpoint > c->checkpoint_interval) {
        c->last_checkpoint = w;
        cr_error e = {0};
        if (write_checkpoint(c, sim, &e) != CR_OK) {
            c->io_status = e.status;
            c->io_error = e;
            return 1;
        }
    }
    return stop_requested(c);
}

/* A number written with 17 significant digits, so it reads back bit-identical
 * (cJSON's own printer may drop the last digit); null when not finite. */
static cJSON *exact_number(double v)
{
    char text[40];
    if (!isfinite(v)) return cJSON_CreateNull();
    snprintf(text, sizeof text, "%.17g", v);
    return cJSON_CreateRaw(text);
}

static void add_number(cJSON *obj, const char *key, double v) { cJSON_AddItemToObject(obj, key, exact_number(v)); }

static cJSON *vec_json(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < n; ++k) cJSON_AddItemToArray(a, exact_number(v[k]));
    return a;
}

/* The tracked points of the current state: {NAME: {node, s, position, quaternion[,
 * reaction]}}. The reaction (force in I, moment in the node's body basis, as the
 * formulation's accessor gives them) only when asked (static stages: the accessor
 * evaluates the static balance, which a dynamic state does not satisfy) and when the
 * node is held and the formulation reports reactions. NULL when out of memory. */
static cJSON *track_json(const cr_scenario *sc, const cr_sim *sim, const int *nodes, int reactions)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; o && k < sc->output.track_count; ++k) {
        cJSON *p = cJSON_CreateObject();
        if (!p || !cJSON_AddItemToObject(o, sc->output.track[k].name, p)) {
            cJSON_Delete(p);
            cJSON_Delete(o);
            return NULL;
        }
        int i = nodes[k];
        cr_vec3 x = cr_sim_position(sim, i), f, m;
        cr_quat q = cr_sim_orientation(sim, i);
        double xv[3] = {x.x, x.y, x.z}, qv[4] = {q.w, q.x, q.y, q.z};
        add_number(p, "node", i);
        add_number(p, "s", cr_sim_node_s(sim, i));
        cJSON_AddItemToObject(p, "position", vec_json(xv, 3));
        cJSON_AddItemToObject(p, "quaternion", vec_json(qv, 4));
        if (reactions && cr_sim_reaction(sim, i, &f, &m) == CR_OK) {
            double fv[3] = {f.x, f.y, f.z}, mv[3] = {m.x, m.y, m.z};
            cJSON *rc = cJSON_AddObjectToObject(p, "reaction");
            cJSON_AddItemToObject(rc, "force", vec_json(fv, 3));
            cJSON_AddItemToObject(rc, "moment_body", vec_json(mv, 3));
        }
    }
    return o;
}

/* After an accepted load step (an equilibrium, so with reactions): {"load_factor", "track"}
 * appended to the stage's list. Skipped when out of memory (the summary is still written). */
static void record_load_step(run_ctx *c, const cr_sim *sim)
{
    if (!c->stage_steps || c->track_count == 0) return;
    cJSON **list = &c->stage_steps[c->stage];
    cJSON *points = track_json(c->scenario, sim, c->track_node, 1), *e = points ? cJSON_CreateObject() : NULL;
    if (!*list) *list = cJSON_CreateArray();
    if (!e || !*list) {
        cJSON_Delete(points);
        cJSON_Delete(e);
        return;
    }
    add_number(e, "load_factor", cr_sim_load_factor(sim));
    cJSON_AddItemToObject(e, "track", points);
    cJSON_AddItemToArray(*list, e);
}

/* Whether dir/name exists (the summary lists only files a run actually wrote). */
static int file_exists(const char *dir, const char *name)
{
    char path[4096];
    struct stat sb;
    return join(path, sizeof path, dir, name, NULL) == CR_OK && stat(path, &sb) == 0;
}

static cr_status write_summary(const char *path, const char *dir, const cr_scenario *sc, const cr_run_result *r,
                               run_ctx *c, cr_error *err)
{
    int vtk = c->write_vtk;
    const cr_sim *sim = r->sim;
    const cr_static_report *rep = &r->report;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddBoolToObject(root, "converged", r->status == CR_OK);
    cJSON_AddStringToObject(root, "status", cr_status_string(r->status));
    cJSON_AddStringToObject(root, "message", r->message);
    cJSON_AddStringToObject(root, "scenario", sc->name);
    cJSON_AddStringToObject(root, "model", cr_sim_formulation(sim));
    add_number(root, "nodes", cr_sim_node_count(sim));
    int elements = 0;
    for (int k = 0; k < sc->rod_count; ++k) elements += sc->rods[k].rod.elements;
    add_number(root, "elements", sc->rod_count > 0 ? elements : sc->rod.elements);
    add_number(root, "load_steps", rep->step_count);
    add_number(root, "load_factor", rep->load_factor);
    add_number(root, "failed_load_steps", rep->failed_attempts);
    cJSON *its = cJSON_AddArrayToObject(root, "newton_iterations");
    cJSON *hist = cJSON_AddArrayToObject(root, "residual_history");
    for (int k = 0; k < rep->step_count; ++k) {
        cJSON_AddItemToArray(its, cJSON_CreateNumber(rep->steps[k].iterations));
        cJSON_AddItemToArray(hist, vec_json(rep->steps[k].residual_history, rep->steps[k].history_count));
    }
    add_number(root, "newton_iterations_total", rep->total_iterations);
    add_number(root, "final_residual", rep->final_residual);
    add_number(root, "wall_time_s", r->wall_time_s);
    add_number(root, "assembly_time_s", rep->assembly_time_s);
    add_number(root, "linear_solve_time_s", rep->solve_time_s);
    int tipn = cr_scenario_tip_node(sc, sim), nn = cr_sim_node_count(sim);
    cr_vec3 tr = cr_sim_position(sim, tipn);
    cr_quat tq = cr_sim_orientation(sim, tipn);
    double rv[3] = {tr.x, tr.y, tr.z}, qv[4] = {tq.w, tq.x, tq.y, tq.z};
    cJSON *tip = cJSON_AddObjectToObject(root, "tip");
    add_number(tip, "node", tipn); /* the free end (or the tracked point "tip"), not always the last node */
    add_number(tip, "s", cr_sim_node_s(sim, tipn));
    cJSON_AddItemToObject(tip, "position", vec_json(rv, 3));
    cJSON_AddItemToObject(tip, "quaternion", vec_json(qv, 4));
    /* the recorded points of the final state, with their reactions */
    cJSON *track = c->track_node ? track_json(sc, sim, c->track_node, 1) : NULL;
    if (track) cJSON_AddItemToObject(root, "track", track);
    cJSON *reac = cJSON_AddArrayToObject(root, "reactions");
    for (int i = 0; i < nn; ++i) {
        cr_vec3 f, mo;
        if (cr_sim_reaction(sim, i, &f, &mo) != CR_OK) continue;
        double fv[3] = {f.x, f.y, f.z}, mv[3] = {mo.x, mo.y, mo.z};
        cJSON *o = cJSON_CreateObject();
        add_number(o, "node", i);
        cJSON_AddItemToObject(o, "force", vec_json(fv, 3));
        cJSON_AddItemToObject(o, "moment_body", vec_json(mv, 3));
        if (cr_sim_rod_count(sim) > 1) { /* an assembly: the rod and its own node too */
            int rod = cr_sim_node_rod(sim, i);
            cJSON_AddStringToObject(o, "rod", cr_sim_rod_name(sim, rod));
            add_number(o, "rod_node", i - cr_sim_rod_first_node(sim, rod));
        }
        cJSON_AddItemToArray(reac, o);
    }
    if (cr_scenario_is_assembly(sc)) { /* the rods' node and sample ranges, the joints' reactions */
        cJSON *rods = cJSON_AddArrayToObject(root, "rods");
        for (int k = 0; k < cr_sim_rod_count(sim); ++k) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", cr_sim_rod_name(sim, k));
            add_number(o, "first_node", cr_sim_rod_first_node(sim, k));
            add_number(o, "nodes", cr_sim_rod_first_node(sim, k + 1) - cr_sim_rod_first_node(sim, k));
            add_number(o, "first_element", cr_sim_rod_first_sample(sim, k));
            add_number(o, "elements", cr_sim_rod_first_sample(sim, k + 1) - cr_sim_rod_first_sample(sim, k));
            cJSON_AddItemToArray(rods, o);
        }
        cJSON *joints = cJSON_AddArrayToObject(root, "joints");
        for (int j = 0; j < cr_sim_joint_count(sim); ++j) {
            cr_vec3 f, mo;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", cr_sim_joint_name(sim, j));
            if (j < sc->joint_count) cJSON_AddStringToObject(o, "type", cr_joint_type_name(sc->joints[j].type));
            if (cr_sim_joint_reaction(sim, j, &f, &mo) == CR_OK) {
                double fv[3] = {f.x, f.y, f.z}, mv[3] = {mo.x, mo.y, mo.z};
                cJSON_AddItemToObject(o, "force", vec_json(fv, 3));
                cJSON_AddItemToObject(o, "moment", vec_json(mv, 3));
            }
            for (int q = 0; q < 2; ++q) { /* its limits: the measure, the stop's force, whether it presses */
                double value, force;
                if (!cr_sim_joint_limit(sim, j, q, &value, &force)) continue;
                cJSON *lo = cJSON_AddObjectToObject(o, q ? "slide_limit" : "limit");
                add_number(lo, "value", value);
                add_number(lo, "force", force);
                cJSON_AddStringToObject(lo, "pressing", force > 0 ? "lower" : force < 0 ? "upper" : "none");
            }
            cJSON_AddItemToArray(joints, o);
        }
        /* the rigid bodies' final poses (welded ones rod by rod, then the free ones) */
        cJSON *bodies = cr_sim_body_count(sim) > 0 ? cJSON_AddArrayToObject(root, "bodies") : NULL;
        for (int j = 0; bodies && j < cr_sim_body_count(sim); ++j) {
            cr_vec3 x;
            cr_mat3 R;
            cr_sim_body_pose(sim, j, &x, &R);
            cr_quat qn = cr_q_from_matrix(R);
            double xb[3] = {x.x, x.y, x.z}, qb[4] = {qn.w, qn.x, qn.y, qn.z};
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", cr_sim_body_name(sim, j));
            cJSON_AddItemToObject(o, "center", vec_json(xb, 3));
            cJSON_AddItemToObject(o, "quaternion", vec_json(qb, 4));
            cJSON_AddItemToArray(bodies, o);
        }
    }
    cr_contact_sample cs;
    if (cr_sim_contact(sim, 0, &cs)) { /* obstacles: the contacts of the final state */
        int active = 0, sliding = 0, worst = -1;
        double pen = 0, normal = 0, ft[3] = {0, 0, 0};
        for (int i = 0; i < nn; ++i) {
            cr_sim_contact(sim, i, &cs);
            if (!cs.state) continue;
            active++, sliding += cs.state == 2, normal += cs.normal;
            ft[0] += cs.force.x, ft[1] += cs.force.y, ft[2] += cs.force.z;
            if (-cs.gap > pen) pen = -cs.gap, worst = i;
        }
        cJSON *co = cJSON_AddObjectToObject(root, "contact");
        add_number(co, "active", active);
        add_number(co, "sticking", active - sliding);
        add_number(co, "sliding", sliding);
        add_number(co, "normal_force", normal);
        cJSON_AddItemToObject(co, "force", vec_json(ft, 3));
        add_number(co, "largest_penetration", pen);
        if (worst >= 0 && cr_sim_rod_count(sim) > 1) { /* an assembly: the rod, and the node in its numbering */
            const int rr = cr_sim_node_rod(sim, worst);
            cJSON_AddStringToObject(co, "largest_penetration_rod", cr_sim_rod_name(sim, rr));
            add_number(co, "largest_penetration_node", worst - cr_sim_rod_first_node(sim, rr));
        } else if (worst >= 0)
            add_number(co, "largest_penetration_node", worst);
        add_number(co, "tolerance", cs.tolerance);
    }
    cJSON *stages = cJSON_AddArrayToObject(root, "stages");
    for (int k = 0; k < sc->stage_count; ++k) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", sc->stages[k].type == CR_STAGE_DYNAMIC ? "dynamic" : "static");
        cJSON_AddBoolToObject(o, "ran", k <= r->last_stage);
        if (c->stage_track && c->stage_track[k]) { /* handed over to the summary */
            cJSON_AddItemToObject(o, "track", c->stage_track[k]);
            c->stage_track[k] = NULL;
        }
        if (c->stage_steps && c->stage_steps[k]) {
            cJSON_AddItemToObject(o, "track_load_steps", c->stage_steps[k]);
            c->stage_steps[k] = NULL;
        }
        if (sc->stages[k].type == CR_STAGE_STATIC && r->statics && k <= r->last_stage) {
            const cr_static_stage_stats *t = &r->statics[k];
            cJSON_AddStringToObject(o, "path", sc->stages[k].statics.arc_length ? "arc_length" : "load_steps");
            add_number(o, "load_steps", t->load_steps);
            add_number(o, "failed_load_steps", t->failed_load_steps);
            add_number(o, "newton_iterations", t->newton_iterations);
            add_number(o, "load_factor", t->load_factor);
            add_number(o, "final_residual", t->final_residual);
            if (t->stability.checked) {
                const cr_stability_report *sb = &t->stability;
                cJSON *so = cJSON_AddObjectToObject(o, "stability");
                if (sb->unknown) { /* no verdict: neither stable nor unstable, and no number that is not one */
                    cJSON_AddNullToObject(so, "stable");
                    cJSON_AddStringToObject(so, "unknown", sb->unknown_reason);
                    add_number(so, "iterations", sb->iterations);
                    if (isfinite(sb->residual)) add_number(so, "residual", sb->residual);
                    add_number(so, "time_s", sb->time_s);
                } else if (sb->no_free_motion) {
                    cJSON_AddBoolToObject(so, "stable", 1);
                    cJSON_AddBoolToObject(so, "no_free_motion", 1);
                    add_number(so, "time_s", sb->time_s);
                }
            }
            if (t->stability.checked && !t->stability.unknown && !t->stability.no_free_motion) {
                const cr_stability_report *sb = &t->stability;
                cJSON *so = cJSON_GetObjectItem(o, "stability");
                cJSON_AddBoolToObject(so, "stable", sb->unstable_modes == 0 && sb->flutter_modes == 0);
                add_number(so, "unstable_modes", sb->unstable_modes);
                add_number(so, "flutter_modes", sb->flutter_modes);
                add_number(so, "growth_rate", sb->growth_rate);
                cJSON_AddItemToObject(so, "omega2", vec_json(sb->omega2, sb->modes));
                add_number(so, "omega2_imag_max", sb->omega2_imag_max);
                add_number(so, "softest_stiffness", sb->softest_stiffness);
                cJSON_AddStringToObject(so, "softest_stiffness_unit", sb->softest_rotational ? "N m/rad" : "N/m");
                add_number(so, "softest_node", sb->softest_node);
                cJSON_AddBoolToObject(so, "unit_density", sb->unit_density);
                add_number(so, "iterations", sb->iterations);
                add_number(so, "residual", sb->residual);
                add_number(so, "time_s", sb->time_s);
            }
            if (t->stability.checked && t->stability.left) { /* the load path's end state was left */
                const cr_stability_report *sb = &t->stability;
                cJSON *lo = cJSON_AddObjectToObject(cJSON_GetObjectItem(o, "stability"), "left_unstable");
                add_number(lo, "from_omega2", sb->left_from_omega2);
                add_number(lo, "from_unstable_modes", sb->left_from_unstable_modes);
                add_number(lo, "push", sb->left_push);
                add_number(lo, "pseudo_time_steps", sb->left_steps);
                add_number(lo, "iterations", sb->left_iterations);
                add_number(lo, "attempts", sb->left_attempts);
            }
        }
        if (sc->stages[k].type == CR_STAGE_DYNAMIC && r->dynamics) {
            const cr_dynamic_report *d = &r->dynamics[k];
            add_number(o, "t_start", d->t_start);
            add_number(o, "t_end", d->t_end);
            add_number(o, "steps", d->steps);
            add_number(o, "rejected_steps", d->rejected);
            add_number(o, "newton_iterations", d->newton_iterations);
            add_number(o, "function_evaluations", d->rhs_evals);
            add_number(o, "jacobians", d->jacobians);
            add_number(o, "lu_factorizations", d->lu_real + d->lu_complex);
            add_number(o, "wall_time_s", d->wall_time_s);
            if (d->steps > 0)
                add_number(o, "us_per_step_per_node",
                                        1e6 * d->wall_time_s / ((double)d->steps * cr_sim_node_count(sim)));
        }
        cJSON_AddItemToArray(stages, o);
    }
    if (r->resumed) cJSON_AddBoolToObject(root, "resumed", 1);
    /* the scenario this summary belongs to (the checkpoints' hash): --resume of a complete run
     * says so instead of integrating again */
    char hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)c->fingerprint);
    cJSON_AddStringToObject(root, "fingerprint", hash);
    cJSON *warnings = cJSON_AddArrayToObject(root, "warnings");
    for (int k = 0; k < r->warning_count; ++k) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "code", r->warnings[k].code);
        cJSON_AddStringToObject(o, "key", r->warnings[k].key);
        cJSON_AddStringToObject(o, "message", r->warnings[k].message);
        cJSON_AddItemToArray(warnings, o);
    }
    cJSON *files = cJSON_AddObjectToObject(root, "outputs");
    cJSON_AddStringToObject(files, "nodes", "nodes.csv");
    cJSON_AddStringToObject(files, "elements", "elements.csv");
    if (vtk) cJSON_AddStringToObject(files, "paraview", "rod.pvd");
    /* a run stopped before its dynamic stage has neither */
    if (file_exists(dir, "series.csv")) cJSON_AddStringToObject(files, "series", "series.csv");
    if (file_exists(dir, "checkpoint.bin")) cJSON_AddStringToObject(files, "checkpoint", "checkpoint.bin");
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return cr_error_set(err, CR_NO_MEMORY, "out of memory writing the summary");
    FILE *f = cr_output_open(path, err);
    cr_status st = f ? CR_OK : CR_IO;
    if (f) {
        fputs(text, f);
        fputc('\n', f);
        st = cr_output_close(f, path, err);
    }
    cJSON_free(text);
    return st;
}

static void free_track(run_ctx *c)
{
    for (int k = 0; c->stage_track && k < c->result->stage_count; ++k) cJSON_Delete(c->stage_track[k]);
    for (int k = 0; c->stage_steps && k < c->result->stage_count; ++k) cJSON_Delete(c->stage_steps[k]);
    free(c->stage_track);
    free(c->stage_steps);
    free(c->track_node);
    c->stage_track = c->stage_steps = NULL;
    c->track_node = NULL;
    free(c->reference);
    c->reference = NULL;
    cr_warning_list_free(&c->warnings);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The formulation's peak memory per element for the heaviest kind of stage in the scenario
 * (model/formulation.h); an unknown formulation gets the largest of the built-in ones. */
static double bytes_per_element(const cr_scenario *sc)
{
    const cr_formulation *f = cr_formulation_find(sc->model.type);
    double stat = f ? f->bytes_per_element_static : 5e4, dyn = f ? f->bytes_per_element_dynamic : 5e4, b = 0;
    for (int k = 0; k < sc->stage_count; ++k) b = fmax(b, sc->stages[k].type == CR_STAGE_DYNAMIC ? dyn : stat);
    return b > 0 ? b : stat;
}

/* The rows of series.csv the run keeps in memory (the result holds every row for the
 * summary and the bindings): rows × an upper bound on the columns × 8 bytes. The output
 * counts are bounded at check (1e8 rows per stage), which alone would be 24 GB at 30
 * columns, so they are part of the estimate. *stage_out: the dynamic stage with the most rows. */
static double series_bytes(const cr_scenario *sc, int *stage_out)
{
    double rows = 0, most = -1;
    for (int k = 0; k < sc->stage_count; ++k) {
        const cr_stage_def *st = &sc->stages[k];
        double n = st->type == CR_STAGE_DYNAMIC && st->dynamics.output_dt > 0 ? st->dynamics.t_end / st->dynamics.output_dt + 1
                                                                               : 1;
        rows += n;
        if (st->type == CR_STAGE_DYNAMIC && n > most) {
            most = n;
            if (stage_out) *stage_out = k;
        }
    }
    /* head, momenta and the formulations' extra columns (at most 16), tracked points with
     * their reactions, and 6 per rigid body */
    double columns = SERIES_HEAD + SERIES_MOMENTA + 16 + sc->output.track_count * (TRACK_COLUMNS + REACTION_COLUMNS) +
                     6.0 * sc->rod.rigid_body_count;
    return rows * columns * sizeof(double);
}

double cr_scenario_memory_estimate(const cr_scenario *sc)
{
    double nodes = sc->rod.elements + 1.0;
    for (int r = 1; r < sc->rod_count; ++r) nodes += sc->rods[r].rod.elements + 1.0; /* an assembly's other rods */
    return bytes_per_element(sc) * nodes + series_bytes(sc, NULL) + 16e6;           /* + the program itself */
}

cr_status cr_memory_size_parse(const char *text, double *bytes)
{
    if (!text) return CR_BAD_INPUT;
    if (!strcmp(text, "none") || !strcmp(text, "unlimited")) {
        *bytes = INFINITY;
        return CR_OK;
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || v < 0) return CR_BAD_INPUT;
    const char *suffix = "kMGT", *p = *end ? strchr(suffix, *end) : NULL;
    if (*end && (!p || end[1] != '\0')) return CR_BAD_INPUT;
    if (p) v *= pow(1024.0, (double)(p - suffix + 1));
    *bytes = v == 0 ? INFINITY : v;
    return CR_OK;
}

/* The memory check: a model larger than the limit fails fast, naming rod.elements,
 * instead of being killed by the system when the memory runs out. */
static cr_status check_memory(const cr_scenario *sc, cr_error *err)
{
    double limit = sc->max_memory;
    const char *source = "--max-memory";
    if (!(limit != 0)) {
        const char *env = getenv("COSSERAT_MAX_MEMORY");
        if (env && *env) {
            if (cr_memory_size_parse(env, &limit) != CR_OK)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "COSSERAT_MAX_MEMORY: expected a size such as 8G, 512M or none, got \"%.100s\"", env);
            source = "COSSERAT_MAX_MEMORY";
        } else {
            long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
            limit = pages > 0 && page > 0 ? 0.8 * (double)pages * (double)page : INFINITY;
            source = "80 % of the physical memory";
        }
    }
    double need = cr_scenario_memory_estimate(sc);
    int stage = -1;
    double rows = series_bytes(sc, &stage);
    if (need > limit && stage >= 0 && rows > 0.5 * need)
        return cr_error_set(err, CR_BAD_INPUT,
                            "stages.%d.output_dt: the rows of series.csv, which the run keeps in memory, need about "
                            "%.3g GB (%.3g GB in all), more than the limit of %.3g GB (%s); use a larger output_dt, or "
                            "raise the limit with --max-memory SIZE or COSSERAT_MAX_MEMORY=SIZE",
                            stage, rows / 1e9, need / 1e9, limit / 1e9, source);
    if (need > limit)
        return cr_error_set(err, CR_BAD_INPUT,
                            "rod.elements: %d elements need about %.3g GB (%.3g kB per element for the %s model with "
                            "these stages), more than the limit of %.3g GB (%s); raise it with --max-memory SIZE or "
                            "COSSERAT_MAX_MEMORY=SIZE (e.g. 64G; none = no limit)",
                            sc->rod.elements, need / 1e9, bytes_per_element(sc) / 1e3, sc->model.type, limit / 1e9,
                            source);
    return CR_OK;
}

/* The formulation named by the scenario, after its own checks of the scenario. */
static const cr_formulation *checked_formulation(const cr_scenario *sc, cr_error *err)
{
    const cr_formulation *form = cr_formulation_find(sc->model.type);
    if (!form) {
        cr_error_set(err, CR_BAD_INPUT, "model.type: unknown formulation \"%s\" (expected one of %s)", sc->model.type,
                     cr_formulation_names());
        return NULL;
    }
    /* the estimate first: the formulations' checks spend O(n) (the mixed one builds a model for
     * moving or partly held supports in dynamic stages, 1.5 GB at 4e6 elements; the fixed-step
     * ones evaluate every element's section), so a model far beyond the limit was refused only
     * after using the memory the limit is there to protect */
    if (check_memory(sc, err) != CR_OK) return NULL;
    return form->check(sc, err) == CR_OK ? form : NULL;
}

cr_status cr_scenario_check(const cr_scenario *sc, cr_error *err)
{
    if (!checked_formulation(sc, err)) return err ? err->status : CR_BAD_INPUT;
    cr_sim *sim = cr_sim_create_scenario(sc, err);
    if (!sim) return err ? err->status : CR_BAD_INPUT;
    cr_status st = check_track(sc, sim, err);
    cr_sim_destroy(sim);
    return st;
}

/* ---- one run per output directory ----
 * Two runs writing into one directory would mix their files (the summary of one, the series
 * of the other) and both exit 0. A run holds an flock on DIR/.cosserat.lock (which holds its
 * PID) from before it removes the previous run's files until its last file is written; a
 * second run is refused, naming the first's PID. The kernel drops the lock with the process,
 * so a run killed with SIGKILL leaves no stale lock (only the file, reused). On release the
 * file is removed while still locked; a run that opened it just before checks after locking
 * that it locked the file the path names, else it tries again. */
#define LOCK_NAME ".cosserat.lock"

/* The lock's descriptor, -2 when the file system has no flock (the run goes on unlocked),
 * or -1 with err set when another run holds it or the file cannot be made. */
static int lock_directory(const char *dir, cr_error *err)
{
    char path[4096];
    if (join(path, sizeof path, dir, LOCK_NAME, err) != CR_OK) return -1;
    for (int attempt = 0; attempt < 100; ++attempt) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            cr_error_set(err, CR_IO, "%s: cannot create the lock file (%s)", path, strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            char pid[32] = "";
            ssize_t got = e == EWOULDBLOCK ? pread(fd, pid, sizeof pid - 1, 0) : -1;
            close(fd);
            if (e != EWOULDBLOCK) return -2;
            pid[got > 0 ? got : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            cr_error_set(err, CR_IO,
                         "%s: another run (PID %s) is writing into this output directory; wait for it to end or "
                         "choose another one (-o DIR)",
                         dir, pid[0] ? pid : "unknown");
            return -1;
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            char pid[32];
            int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
                /* the PID is only for the message: the lock itself holds */
            }
            return fd;
        }
        close(fd); /* removed by the run that held it: lock the new one */
    }
    cr_error_set(err, CR_IO, "%s: cannot lock the output directory (the lock file keeps changing)", dir);
    return -1;
}

static void unlock_directory(const char *dir, int fd)
{
    char path[4096];
    if (fd < 0) return;
    if (join(path, sizeof path, dir, LOCK_NAME, NULL) == CR_OK) unlink(path);
    close(fd);
}

/* NULL when every value of the state's outputs (nodes.csv, elements.csv) is finite, else
 * which one is not. */
static const char *final_state_finite(const cr_sim *sim)
{
    int nn = cr_sim_node_count(sim), ns = cr_sim_sample_count(sim);
    size_t cap = 4 * (size_t)nn > 12 * (size_t)ns ? 4 * (size_t)nn : 12 * (size_t)ns;
    double *v = malloc((cap > 0 ? cap : 1) * sizeof *v);
    const char *bad = NULL;
    if (!v) return NULL; /* nothing to judge with: the writers print what there is */
    cr_sim_get_positions(sim, v);
    for (size_t k = 0; k < (size_t)3 * nn && !bad; ++k)
        if (!isfinite(v[k])) bad = "a node position";
    cr_sim_get_orientations(sim, v);
    for (size_t k = 0; k < (size_t)4 * nn && !bad; ++k)
        if (!isfinite(v[k])) bad = "a node orientation";
    cr_sim_get_samples(sim, v);
    for (size_t k = 0; k < (size_t)12 * ns && !bad; ++k)
        if (!isfinite(v[k])) bad = "a strain or stress resultant";
    free(v);
    return bad;
}

/* Whether name is a snapshot this library writes: rod_NNNN.vtp or bodies_NNNN.vtp (at least
 * four digits). Only those are removed from a folder that may hold the user's own files. */
static int is_snapshot_name(const char *name)
{
    const char *p = !strncmp(name, "rod_", 4) ? name + 4 : !strncmp(name, "bodies_", 7) ? name + 7 : NULL;
    if (!p) return 0;
    size_t digits = strspn(p, "0123456789");
    return digits >= 4 && !strcmp(p + digits, ".vtp");
}

/* A fresh run starts from a clean slate: the previous run's files in dir that this one might
 * not write again go, so that none of them speaks for this run (its summary if it dies, its
 * checkpoint resumed into this run's files, a snapshot beyond this run's last one still
 * listed by ParaView's file series, its series.csv after a static-only rerun). */
static cr_status remove_previous_run(const char *dir, cr_error *err)
{
    static const char *stale[] = {"summary.json", "checkpoint.bin", "checkpoint.bin.tmp", "rod.pvd", "series.csv"};
    char path[4096];
    for (size_t k = 0; k < sizeof stale / sizeof stale[0]; ++k)
        if (join(path, sizeof path, dir, stale[k], NULL) == CR_OK && remove(path) != 0 && errno != ENOENT)
            return cr_error_set(err, CR_IO, "%s: cannot remove the previous run's file (%s)", path, strerror(errno));
    DIR *d = opendir(dir);
    if (!d) return cr_error_set(err, CR_IO, "%s: cannot list the output directory (%s)", dir, strerror(errno));
    cr_status st = CR_OK;
    for (struct dirent *e; st == CR_OK && (e = readdir(d));) {
        struct stat sb;
        if (!is_snapshot_name(e->d_name) || join(path, sizeof path, dir, e->d_name, NULL) != CR_OK ||
            lstat(path, &sb) != 0 || S_ISDIR(sb.st_mode))
            continue;
        if (unlink(path) != 0 && errno != ENOENT)
            st = cr_error_set(err, CR_IO, "%s: cannot remove the previous run's snapshot (%s)", path, strerror(errno));
    }
    closedir(d);
    return st;
}

/* Whether dir/summary.json is that of a complete run (status ok): 1 of the scenario whose
 * fingerprint is given, 2 of another one (or of a version without fingerprints), else 0. */
static int previous_run_complete(const char *dir, uint64_t fp)
{
    char path[4096], hash[32];
    if (join(path, sizeof path, dir, "summary.json", NULL) != CR_OK) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && n < (1L << 30) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)))
        text[fread(text, 1, (size_t)n, f)] = '\0';
    fclose(f);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)fp);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *hashed = cJSON_GetObjectItemCaseSensitive(root, "fingerprint");
    int complete = !(cJSON_IsString(status) && !strcmp(status->valuestring, "ok")) ? 0
                   : cJSON_IsString(hashed) && !strcmp(hashed->valuestring, hash)  ? 1
                                                                                   : 2;
    cJSON_Delete(root);
    return complete;
}

cr_status cr_scenario_run(const cr_scenario *sc, const cr_run_options *options, cr_run_result *result, cr_error *err)
{
    double t0 = now();
    cr_run_options defaults = cr_run_default_options();
    if (!options) options = &defaults;
    cr_run_result local;
    cr_run_result *r = result ? result : &local;
    memset(r, 0, sizeof *r);
    const cr_formulation *form = checked_formulation(sc, err);
    if (!form) return err ? err->status : CR_BAD_INPUT;
    r->sim = cr_sim_create_scenario(sc, err);
    if (!r->sim) return err ? err->status : CR_BAD_INPUT;
    cr_sim *sim = r->sim;
    cr_status track_status = check_track(sc, sim, err);
    if (track_status != CR_OK) {
        if (!result) cr_run_result_free(r);
        return track_status;
    }
    const char *dir = options->output_directory ? options->output_directory : sc->output.directory;
    int write = dir[0] != '\0';
    int nb = cr_sim_body_count(sim), has_dynamic = 0;
    for (int k = 0; k < sc->stage_count; ++k) has_dynamic |= sc->stages[k].type == CR_STAGE_DYNAMIC;
    run_ctx ctx = {.options = options, .caller_fp = cr_fpmode_get(), .dir = dir,
                   .write_vtk = write && sc->output.vtk, .wall_start = now(), .result = r};
    ctx.last_progress = ctx.last_checkpoint = ctx.wall_start;
    /* checkpoints and summary.json need it (a complete run is recognized by it): a pass over
     * the whole model */
    ctx.fingerprint = has_dynamic || write ? fingerprint(sc, sim) : 0;
    ctx.yaw = calloc(nb > 0 ? nb : 1, sizeof(double));
    r->stage_count = sc->stage_count;
    r->dynamics = calloc(sc->stage_count > 0 ? sc->stage_count : 1, sizeof *r->dynamics);
    r->statics = calloc(sc->stage_count > 0 ? sc->stage_count : 1, sizeof *r->statics);
    /* the scenario's warnings, and the created (reference) state the results are judged against */
    ctx.reference = malloc((size_t)cr_sim_reference_size(sim) * sizeof(double));
    if (ctx.reference) cr_sim_reference_values(sim, ctx.reference);
    int warn_oom = cr_scenario_warnings(sc, &ctx.warnings) != CR_OK;
    ctx.input_warnings = ctx.warnings.count;
    ctx.track_count = sc->output.track_count;
    ctx.track_node = calloc(ctx.track_count > 0 ? ctx.track_count : 1, sizeof *ctx.track_node);
    ctx.stage_track = calloc(sc->stage_count > 0 ? sc->stage_count : 1, sizeof *ctx.stage_track);
    ctx.stage_steps = calloc(sc->stage_count > 0 ? sc->stage_count : 1, sizeof *ctx.stage_steps);
    ctx.scenario = sc;
    if (!ctx.yaw || !r->dynamics || !r->statics || !ctx.reference || warn_oom || !ctx.track_node ||
        !ctx.stage_track || !ctx.stage_steps ||
        track_nodes(sc, sim, ctx.track_node, NULL) != CR_OK) {
        free_track(&ctx);
        free(ctx.yaw);
        if (!result) cr_run_result_free(r);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    int lock = -2;
    if (write) {
        cr_status st = cr_make_directory(dir, err);
        if (st == CR_OK && (lock = lock_directory(dir, err)) == -1) st = err ? err->status : CR_IO;
        if (st != CR_OK) {
            free_track(&ctx);
            free(ctx.yaw);
            if (!result) cr_run_result_free(r);
            return st;
        }
        /* A fresh run starts from a clean slate: an earlier run's summary must not
         * speak for this one if it dies, and its checkpoint must never be resumed
         * into this run's files. */
        if (!options->resume && remove_previous_run(dir, err) != CR_OK) {
            unlock_directory(dir, lock);
            free_track(&ctx);
            free(ctx.yaw);
            if (!result) cr_run_result_free(r);
            return CR_IO;
        }
    }
    cr_error solve_err = {0};
    cr_status status = CR_OK;
    int first_stage = 0;
    int previous = options->resume && write ? previous_run_complete(dir, ctx.fingerprint) : 0;
    if (previous == 1) {
        /* nothing to integrate: the outputs in dir are this scenario's, complete; they stay as
         * they are (the sim holds the reference state, not the run's) */
        r->complete = 1;
        r->resumed = 1;
        snprintf(r->message, sizeof r->message,
                 "%.300s holds a complete run of this scenario (summary.json: status ok): nothing to resume; run "
                 "without --resume to compute it again",
                 dir);
        unlock_directory(dir, lock);
        free_track(&ctx);
        free(ctx.yaw);
        r->wall_time_s = now() - t0;
        if (!result) cr_run_result_free(r);
        return CR_OK;
    }
    if (options->resume) {
        if (!write) status = cr_error_set(&solve_err, CR_BAD_INPUT, "--resume needs an output directory");
        else status = read_checkpoint(&ctx, sc, sim, &solve_err);
        if (status != CR_OK && previous == 2 && strstr(solve_err.message, "no checkpoint"))
            status = cr_error_set(&solve_err, CR_BAD_INPUT,
                                  "--resume: %.300s holds a complete run of another scenario (or other settings) "
                                  "and no checkpoint: nothing to resume; run without --resume",
                                  dir);
        if (status != CR_OK) {
            cr_error_set(err, status, "%s", solve_err.message);
            unlock_directory(dir, lock);
            for (int k = 0; ctx.files && k < ctx.snapshot_count; ++k) free(ctx.files[k]);
            free(ctx.files);
            free(ctx.times);
            free_track(&ctx);
            free(ctx.yaw);
            if (!result) cr_run_result_free(r);
            return status;
        }
        first_stage = ctx.stage;
        r->resumed = 1;
    }
    cr_stage_callbacks cb = {.on_load_step = on_load_step, .on_output = on_output, .on_step = on_dyn_step,
                             .user = &ctx, .inputs_live = options->on_output && !options->output_passive};
    int checkpointed = 0;
    for (int k = first_stage; k < sc->stage_count && status == CR_OK; ++k) {
        const cr_stage_def *stage = &sc->stages[k];
        r->last_stage = k;
        ctx.stage = k;
        if (stage->type == CR_STAGE_STATIC) {
            /* ParaView's time axis (docs/scenario.md, "Output files"): load steps of stage k
             * at k + λ without dynamic stages; before the first dynamic stage d at k - d - 1 + λ,
             * so they end at -1 and the dynamic frames keep their time in s from t = 0 */
            int d = 0;
            while (d < sc->stage_count && sc->stages[d].type != CR_STAGE_DYNAMIC) ++d;
            ctx.snapshot_time_offset = !has_dynamic ? (double)k : k < d ? (double)(k - d - 1) : cr_sim_time(sim) - 1.0;
            cr_static_report_free(&r->report);
            cr_fpmode fp = cr_fpmode_flush(); /* every formulation's stage with subnormals flushed (math/fpmode.h) */
            status = sim->f->static_stage(sim, k, &stage->statics, &cb, &r->report, &solve_err);
            cr_fpmode_restore(fp);
            const cr_static_report *rep = &r->report;
            r->statics[k] = (cr_static_stage_stats){rep->step_count,  rep->failed_attempts, rep->total_iterations,
                                                    rep->load_factor, rep->final_residual,  rep->wall_time_s,
                                                    rep->stability};
            /* an unstable equilibrium is reported, never passed off as the answer (issue 9) */
            if (cr_static_stability_warnings(sim, rep, k, &ctx.warnings) != CR_OK && status == CR_OK)
                status = cr_error_set(&solve_err, CR_NO_MEMORY, "out of memory for the warnings");
        } else {
            const cr_dynamic_options *o = &stage->dynamics;
            int resuming = options->resume && k == first_stage;
            if (!resuming) {
                ctx.t_stage_start = cr_sim_time(sim);
                ctx.work = 0;
                ctx.last_h = 0; /* yaw stays unwrapped across stages (yaw_valid kept) */
                ctx.next_snapshot = ctx.t_stage_start;
            }
            /* snapshots: every snapshot_dt when given; by default every output, but at most
             * SNAPSHOTS_PER_STAGE per stage (a whole multiple of output_dt), so a long run
             * cannot fill a disk by accident (the 20 s Wilberforce wrote 20000 files) */
            ctx.snapshot_dt = o->snapshot_dt > 0 ? o->snapshot_dt
                                                 : o->output_dt * fmax(1.0, ceil(o->t_end / SNAPSHOTS_PER_STAGE /
                                                                                 o->output_dt - 1e-9));
            ctx.t_end = ctx.t_stage_start + o->t_end;
            ctx.checkpoint_interval = o->checkpoint_interval;
            if (series_columns(r, sc, sim) != CR_OK) {
                status = cr_error_set(&solve_err, CR_NO_MEMORY, "out of memory");
                break;
            }
            if (write && !ctx.series_open) {
                char path[4096];
                if ((status = join(path, sizeof path, dir, "series.csv", &solve_err)) != CR_OK) break;
                int append = resuming;
                ctx.series_fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
                ctx.series_open = ctx.series_fd >= 0;
                if (ctx.series_open && append) {
                    off_t end = lseek(ctx.series_fd, 0, SEEK_END);
                    ctx.series_bytes = end > 0 ? (int64_t)end : 0;
                }
                if (!ctx.series_open) {
                    status = cr_error_set(&solve_err, CR_IO, "%s: cannot write", path);
                    break;
                }
                if (!append && series_header(&ctx, r)) {
                    status = ctx.io_status, solve_err = ctx.io_error;
                    break;
                }
            }
            long first_row = r->series_rows;
            cr_fpmode fp = cr_fpmode_flush();
            status = sim->f->dynamic_stage(sim, k, ctx.t_stage_start, ctx.last_h, ctx.work, o, &cb, &r->dynamics[k],
                                           &solve_err);
            cr_fpmode_restore(fp);
            /* the stage's energy balance over its rows (a resumed stage: those since the resume) */
            if (status == CR_OK &&
                cr_series_energy_warnings(sc, (const char *const *)r->series_names,
                                          r->series + first_row * r->series_columns, r->series_columns,
                                          r->series_rows - first_row, k, &ctx.warnings) != CR_OK)
                status = cr_error_set(&solve_err, CR_NO_MEMORY, "out of memory for the warnings");
            checkpointed = 0;
            if (write && (status == CR_INTERRUPTED || (status != CR_OK && status > 0))) {
                cr_error e = {0};
                if (write_checkpoint(&ctx, sim, &e) == CR_OK) checkpointed = 1;
                else ctx.io_status = e.status, ctx.io_error = e;
            }
        }
        /* the recorded points at the stage's end (or its last good state), for summary.json */
        cJSON_Delete(ctx.stage_track[k]);
        ctx.stage_track[k] = track_json(sc, sim, ctx.track_node, 1);
        /* results beyond the model's range at the stage's end (or its last good state); an
         * interrupted stage is judged when it finishes */
        if (!(status == CR_INTERRUPTED && stop_requested(&ctx)) &&
            cr_sim_result_warnings(sc, sim, ctx.reference, k, &ctx.warnings) != CR_OK && status == CR_OK)
            status = cr_error_set(&solve_err, CR_NO_MEMORY, "out of memory for the warnings");
        if (status != CR_OK && ctx.io_status != CR_OK && !(status == CR_INTERRUPTED && stop_requested(&ctx)))
            status = ctx.io_status, solve_err = ctx.io_error;
        if (status == CR_INTERRUPTED && stop_requested(&ctx)) {
            if (checkpointed)
                snprintf(solve_err.message, sizeof solve_err.message,
                         "interrupted at t = %.6g s (stage %d); continue with --resume", cr_sim_time(sim), k);
            else if (stage->type == CR_STAGE_DYNAMIC)
                snprintf(solve_err.message, sizeof solve_err.message,
                         "interrupted at t = %.6g s (stage %d); the checkpoint could not be written: %.300s",
                         cr_sim_time(sim), k, ctx.io_error.message);
            else
                snprintf(solve_err.message, sizeof solve_err.message,
                         "interrupted in static stage %d at load factor %.6g (static stages are not resumable)", k,
                         cr_sim_load_factor(sim));
        }
        if (status != CR_OK && sc->stage_count > 1 && !names_stage(solve_err.message, k)) {
            char msg[CR_ERROR_MESSAGE_SIZE + 32];
            snprintf(msg, sizeof msg, "stage %d: %s", k, solve_err.message);
            snprintf(solve_err.message, sizeof solve_err.message, "%.*s", CR_ERROR_MESSAGE_SIZE - 1, msg);
        }
    }
    if (ctx.series_open && close(ctx.series_fd) != 0 && status == CR_OK)
        status = cr_error_set(&solve_err, CR_IO, "%s/series.csv: cannot write (%s)", dir, strerror(errno));
    free(ctx.row_text);
    free(ctx.nan_ok);
    free(ctx.yaw);
    /* a solver failure on a scenario that looked like a unit slip says so first */
    if (status > 0 && status != CR_INTERRUPTED && ctx.input_warnings > 0) {
        char keys[256] = "", msg[CR_ERROR_MESSAGE_SIZE + 300];
        size_t used = 0;
        for (int k = 0; k < ctx.input_warnings && used < sizeof keys; ++k)
            used += snprintf(keys + used, sizeof keys - used, "%s%s", k ? ", " : "", ctx.warnings.items[k].key);
        snprintf(msg, sizeof msg, "check units: %s (see the warnings); %s", keys, solve_err.message);
        snprintf(solve_err.message, sizeof solve_err.message, "%.*s", CR_ERROR_MESSAGE_SIZE - 1, msg);
    }
    r->warnings = ctx.warnings.items; /* handed over to the result */
    r->warning_count = ctx.warnings.count;
    memset(&ctx.warnings, 0, sizeof ctx.warnings);
    r->status = status;
    snprintf(r->message, sizeof r->message, "%s", status == CR_OK ? "" : solve_err.message);
    r->wall_time_s = now() - t0;
    /* exit 0 only for a finite answer: the state nodes.csv and elements.csv are written from */
    if (status == CR_OK) {
        const char *bad = final_state_finite(sim);
        if (bad) {
            status = cr_error_set(&solve_err, CR_NONFINITE,
                                  "the final state is not finite (%s): the solution overflows; check the loads and "
                                  "rod.damping",
                                  bad);
            r->status = status;
            snprintf(r->message, sizeof r->message, "%s", solve_err.message);
        }
    }
    /* Outputs are written on failure as well: the last converged state is not lost. */
    cr_status io = CR_OK;
    cr_error io_err = {0};
    if (write) {
        char path[4096];
        /* a periodic checkpoint of a run that has ended resumes nothing that is not done: a
         * --resume of it would integrate the finished stage's tail again (summary.json says the
         * run is complete instead) */
        if (status == CR_OK && join(path, sizeof path, dir, "checkpoint.bin", NULL) == CR_OK) remove(path);
        if (io == CR_OK && (io = join(path, sizeof path, dir, "nodes.csv", &io_err)) == CR_OK)
            io = cr_write_nodes_csv(path, sim, &io_err);
        if (io == CR_OK && (io = join(path, sizeof path, dir, "elements.csv", &io_err)) == CR_OK)
            io = cr_write_elements_csv(path, sim, &io_err);
        if (io == CR_OK && ctx.write_vtk && (io = join(path, sizeof path, dir, "rod.pvd", &io_err)) == CR_OK)
            io = cr_write_snapshot_pvd(path, ctx.times, ctx.snapshot_count, nb > 0, &io_err);
        if (io == CR_OK && (io = join(path, sizeof path, dir, "summary.json", &io_err)) == CR_OK)
            io = write_summary(path, dir, sc, r, &ctx, &io_err);
    }
    unlock_directory(dir, lock);
    for (int k = 0; k < ctx.snapshot_count; ++k) free(ctx.files[k]);
    free(ctx.files);
    free(ctx.times);
    free_track(&ctx);
    if (status == CR_OK && io != CR_OK) status = io, solve_err = io_err;
    if (status != CR_OK) cr_error_set(err, status, "%s", solve_err.message);
    if (!result) cr_run_result_free(r);
    return status;
}
