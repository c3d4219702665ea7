/* Moving obstacles' poses (motion.h): constant rates (velocity, acceleration, angular_velocity), a
 * table of poses (the spline of a support's table: docs/scenario.md `boundary_conditions`), or a
 * displacement and rotation scaled by a time function. */
#include "contact/motion.h"
#include "model/pose_spline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int nonzero(cr_vec3 a) { return a.x != 0 || a.y != 0 || a.z != 0; }

/* Exp(φ) */
static cr_mat3 expm(cr_vec3 phi)
{
    const double a = cr_v3_norm(phi);
    if (!(a != 0)) return cr_m3_identity();
    return cr_q_exp(cr_q_axis_angle(cr_v3_scale(phi, 1.0 / a), a));
}

const char *cr_obstacle_turning_key(const cr_obstacle_def *o)
{
    if (nonzero(o->angular_velocity)) return "angular_velocity";
    for (int j = 0; o->motion && j < o->motion_count; ++j)
        if (nonzero(o->motion[j].rotation)) return "motion";
    if (o->time && nonzero(o->rotation)) return "rotation";
    return NULL;
}

const char *cr_obstacle_moving_key(const cr_obstacle_def *o)
{
    if (o->motion_count > 0) return "motion";
    if (o->time) return nonzero(o->displacement) ? "position" : nonzero(o->rotation) ? "rotation" : "time";
    if (nonzero(o->velocity)) return "velocity";
    if (nonzero(o->acceleration)) return "acceleration";
    if (nonzero(o->angular_velocity)) return "angular_velocity";
    return NULL;
}

/* The table as C² cubic segments per channel, at rest at the first and last rows: the spline of a
 * support's table (cr_pose_spline_fit), so a `motion` table means one path everywhere. */
static cr_status table_spline(cr_obstacle_path *p, const cr_obstacle_def *o, int index, cr_error *err)
{
    const int n = o->motion_count;
    if (n < 2 || !o->motion)
        return cr_error_set(err, CR_BAD_INPUT, "obstacles.%d.motion: needs at least 2 rows [t, x, y, z(, rx, ry, rz)]",
                            index);
    for (int j = 0; j < n; ++j) {
        const struct cr_bc_motion_point *q = &o->motion[j];
        const double v[7] = {q->t,          q->position.x, q->position.y, q->position.z,
                             q->rotation.x, q->rotation.y, q->rotation.z};
        for (int k = 0; k < 7; ++k)
            if (!isfinite(v[k]) || (k >= 4 && !(fabs(v[k]) <= 1e6)))
                return cr_error_set(err, CR_BAD_INPUT, "obstacles.%d.motion.%d.%d: must be finite%s, got %g", index, j,
                                    k, k >= 4 ? " and within +-1e6 rad" : "", v[k]);
        if (j > 0 && !(q->t > o->motion[j - 1].t))
            return cr_error_set(err, CR_BAD_INPUT,
                                "obstacles.%d.motion.%d.0: t must be > %g (the previous row's), got %g", index, j,
                                o->motion[j - 1].t, q->t);
    }
    p->count = n;
    p->t = malloc((size_t)n * sizeof *p->t);
    p->c = malloc((size_t)(n - 1) * 24 * sizeof *p->c);
    double *y = malloc((size_t)n * 6 * sizeof *y);
    cr_status st = CR_OK;
    if (!p->t || !p->c || !y) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building obstacles.%d.motion", index);
        goto done;
    }
    for (int j = 0; j < n; ++j) {
        const struct cr_bc_motion_point *q = &o->motion[j];
        const double v[6] = {q->position.x, q->position.y, q->position.z, q->rotation.x, q->rotation.y, q->rotation.z};
        p->t[j] = q->t;
        memcpy(y + (size_t)j * 6, v, sizeof v);
    }
    st = cr_pose_spline_fit(n, p->t, y, p->c);
    if (st != CR_OK)
        st = cr_error_set(err, st, st == CR_NO_MEMORY ? "out of memory while building obstacles.%d.motion"
                                                      : "obstacles.%d.motion: the table's spline could not be fitted",
                          index);
done:
    free(y);
    return st;
}

cr_status cr_obstacle_path_init(cr_obstacle_path *p, const cr_obstacle_def *o, int index, cr_error *err)
{
    memset(p, 0, sizeof *p);
    p->time.type = CR_TIME_CONSTANT;
    p->center = o->center;
    if (o->motion_count > 0 || o->motion) {
        p->kind = CR_PATH_TABLE;
        cr_status st = table_spline(p, o, index, err);
        if (st != CR_OK) {
            cr_obstacle_path_free(p);
            return st;
        }
    } else if (o->time) {
        p->kind = CR_PATH_TIME;
        p->time = *o->time;
        p->time.points = NULL;
        if (o->time->type == CR_TIME_TABLE && o->time->point_count > 0) {
            cr_time_point *pts = malloc((size_t)o->time->point_count * sizeof *pts);
            if (!pts) return cr_error_set(err, CR_NO_MEMORY, "out of memory while building obstacles.%d.time", index);
            memcpy(pts, o->time->points, (size_t)o->time->point_count * sizeof *pts);
            p->time.points = pts;
        }
        p->displacement = o->displacement, p->rotation = o->rotation;
    } else {
        p->kind = CR_PATH_RATES;
        p->velocity = o->velocity, p->acceleration = o->acceleration, p->angular_velocity = o->angular_velocity;
    }
    p->turns = cr_obstacle_turning_key(o) != NULL;
    p->moves = cr_obstacle_moving_key(o) != NULL;
    return CR_OK;
}

void cr_obstacle_path_free(cr_obstacle_path *p)
{
    if (!p) return;
    free(p->t), free(p->c), free((void *)p->time.points);
    p->t = p->c = NULL, p->time.points = NULL;
}

void cr_obstacle_path_at(const cr_obstacle_path *p, double t, cr_obstacle_pose *pose)
{
    switch (p->kind) {
    case CR_PATH_TABLE: {
        double q[6], d1[6];
        cr_pose_spline_eval(p->count, p->t, p->c, t, q, d1, NULL);
        pose->shift = cr_v3_sub(cr_v3(q[0], q[1], q[2]), p->center); /* the rows place the centre */
        pose->v = cr_v3(d1[0], d1[1], d1[2]);
        const cr_vec3 phi = cr_v3(q[3], q[4], q[5]);
        pose->R = expm(phi);
        pose->w = cr_so3_left_jacobian_mulv(phi, cr_v3(d1[3], d1[4], d1[5]));
        return;
    }
    case CR_PATH_TIME: {
        double f, df, ddf;
        cr_time_function_eval_d(&p->time, t, &f, &df, &ddf);
        pose->shift = cr_v3_scale(p->displacement, f);
        pose->v = cr_v3_scale(p->displacement, df);
        pose->R = expm(cr_v3_scale(p->rotation, f));
        pose->w = cr_v3_scale(p->rotation, df); /* a fixed axis: J_l(f φ) φ = φ */
        return;
    }
    default:
        pose->shift = cr_v3_madd(cr_v3_scale(p->velocity, t), 0.5 * t * t, p->acceleration);
        pose->v = cr_v3_madd(p->velocity, t, p->acceleration);
        pose->R = expm(cr_v3_scale(p->angular_velocity, t));
        pose->w = p->angular_velocity;
    }
}

static double u2(const double *c, double u) { return u * (2 * c[2] + 3 * c[3] * u); }

/* max |c1 + 2 c2 u + 3 c3 u²| over u in [a, b]: at the ends or the vertex */
static double cubic_rate_max(const double *c, double a, double b)
{
    double m = fmax(fabs(c[1] + u2(c, a)), fabs(c[1] + u2(c, b)));
    if (c[3] != 0) {
        const double u = -c[2] / (3 * c[3]);
        if (u > a && u < b) m = fmax(m, fabs(c[1] + u2(c, u)));
    }
    return m;
}

/* the largest |f'| of a time function over [t0, t1] */
static double rate_max(const cr_time_function *f, double t0, double t1)
{
    const int overlap = t1 > f->t0 && t0 < f->t1;
    switch (f->type) {
    case CR_TIME_RAMP:
        return overlap ? 1.0 / (f->t1 - f->t0) : 0.0;
    case CR_TIME_SMOOTH_STEP:
        return overlap ? 1.875 / (f->t1 - f->t0) : 0.0; /* 30 s²(1 − s)² at s = ½ */
    case CR_TIME_SINE: {
        const int window = f->t1 > f->t0;
        return !window || overlap ? fabs(f->amplitude) * 2 * M_PI * f->frequency : 0.0;
    }
    case CR_TIME_TABLE: {
        double m = 0;
        for (int k = 0; k + 1 < f->point_count; ++k)
            if (t1 > f->points[k].t && t0 < f->points[k + 1].t)
                m = fmax(m, fabs(f->points[k + 1].value - f->points[k].value) / (f->points[k + 1].t - f->points[k].t));
        return m;
    }
    default:
        return 0.0;
    }
}

void cr_obstacle_path_speed(const cr_obstacle_path *p, double t0, double t1, double *v, double *w)
{
    *v = 0, *w = 0;
    if (p->kind == CR_PATH_RATES) {
        const double a = cr_v3_norm(p->acceleration);
        *v = fmax(cr_v3_norm(cr_v3_madd(p->velocity, t0, p->acceleration)),
                  !(a > 0)       ? 0.0
                  : isfinite(t1) ? cr_v3_norm(cr_v3_madd(p->velocity, t1, p->acceleration))
                                 : INFINITY);
        *w = cr_v3_norm(p->angular_velocity);
        return;
    }
    if (p->kind == CR_PATH_TIME) {
        const double f = rate_max(&p->time, t0, t1);
        *v = f * cr_v3_norm(p->displacement), *w = f * cr_v3_norm(p->rotation);
        return;
    }
    /* the table: per channel the largest rate over the intervals' parts within [t0, t1]; |ω| =
     * |J_l φ̇| <= |φ̇| (J_l is an average of rotations) */
    double m[6] = {0, 0, 0, 0, 0, 0};
    for (int j = 0; j + 1 < p->count; ++j) {
        const double a = fmax(t0, p->t[j]), b = fmin(t1, p->t[j + 1]);
        if (!(a < b)) continue;
        for (int ch = 0; ch < 6; ++ch)
            m[ch] = fmax(m[ch], cubic_rate_max(p->c + ((size_t)j * 6 + ch) * 4, a - p->t[j], b - p->t[j]));
    }
    *v = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    *w = sqrt(m[3] * m[3] + m[4] * m[4] + m[5] * m[5]);
}

cr_vec3 cr_obstacle_start_shift(const cr_obstacle_def *o)
{
    if (o->motion && o->motion_count > 0) return cr_v3_sub(o->motion[0].position, o->center);
    if (o->time) return cr_v3_scale(o->displacement, cr_time_function_eval(o->time, 0.0));
    return cr_v3(0, 0, 0);
}

static unsigned long long fnv(unsigned long long h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

unsigned long long cr_obstacle_path_hash(const cr_obstacle_path *p, unsigned long long h)
{
    const int head[3] = {p->kind, p->count, (int)p->time.type};
    h = fnv(h, head, sizeof head);
    if (p->kind == CR_PATH_TABLE) {
        h = fnv(h, p->t, (size_t)p->count * sizeof *p->t);
        h = fnv(h, p->c, (size_t)(p->count - 1) * 24 * sizeof *p->c);
    } else if (p->kind == CR_PATH_TIME) {
        const cr_time_function *f = &p->time;
        const double v[12] = {f->t0,
                              f->t1,
                              f->amplitude,
                              f->frequency,
                              f->phase,
                              f->offset,
                              p->displacement.x,
                              p->displacement.y,
                              p->displacement.z,
                              p->rotation.x,
                              p->rotation.y,
                              p->rotation.z};
        h = fnv(h, v, sizeof v);
        for (int k = 0; f->points && k < f->point_count; ++k) {
            const double pt[2] = {f->points[k].t, f->points[k].value};
            h = fnv(h, pt, sizeof pt);
        }
    }
    return h;
}
