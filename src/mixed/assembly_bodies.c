/* Free rigid bodies of an assembly of mixed discrete rods (docs/theory.md, "Assemblies").
 *
 * A free body is one more interface of the coupled system: six unknowns (the increments of
 * its centre and of its frame, as a joint node's) with its own six balance rows, the
 * external wrench on it plus the wrenches Cᵀλ of its joints. The rods' interface rows come
 * from their factored tangents (the Schur complement of assembly_statics.c); a body's come
 * from itself: its loads' wrench and their 6 × 6 Jacobian (dense, small). A joint's end on a
 * body is a point X fixed in the body: the joint sees the point's pose (r + A X, A), and its
 * constraint Jacobian and geometric stiffness are taken to the body's increments here, so
 * the joints' code (assembly_joints.c) is the same for rod nodes and body points. */
#include "assembly/assembly_def.h"
#include "mixed/assembly_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int find_iface(const cr_assembly *a, int body)
{
    for (int i = 0; i < a->iface_count; ++i)
        if (a->iface[i].rod == -1 && a->iface[i].node == body) return i;
    return -1;
}

cr_status cr_asm_bodies_create(cr_assembly *a, const cr_assembly_def *def, cr_error *err)
{
    a->body_count = def->body_count;
    a->body_load_count = def->body_load_count;
    if (a->body_count == 0) return CR_OK;
    a->bodies = calloc((size_t)a->body_count, sizeof *a->bodies);
    a->body_loads = calloc((size_t)(a->body_load_count > 0 ? a->body_load_count : 1), sizeof *a->body_loads);
    if (!a->bodies || !a->body_loads) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
    for (int b = 0; b < a->body_count; ++b) {
        const cr_rigid_body_def *d = &def->bodies[b];
        cr_asm_body *o = &a->bodies[b];
        memcpy(o->name, d->name, sizeof o->name);
        o->mass = d->mass;
        o->r0 = d->center;
        o->p0 = cr_q_normalize(d->orientation);
        /* the inertia in the body frame: Aᵀ J A, the exactly symmetric part */
        cr_mat3 A = cr_q_exp(o->p0), J = cr_m3_mul(cr_m3_transpose(A), cr_m3_mul(d->inertia, A));
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) o->inertia.m[r][c] = 0.5 * (J.m[r][c] + J.m[c][r]);
        o->iface = find_iface(a, b);
    }
    for (int k = 0; k < a->body_load_count; ++k) {
        cr_load_def *l = &a->body_loads[k];
        *l = def->body_loads[k];
        l->time.points = NULL;
        if (def->body_loads[k].time.type == CR_TIME_TABLE && def->body_loads[k].time.point_count > 0) {
            cr_time_point *pt = malloc((size_t)l->time.point_count * sizeof *pt);
            if (!pt) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly");
            memcpy(pt, def->body_loads[k].time.points, (size_t)l->time.point_count * sizeof *pt);
            l->time.points = pt;
        }
    }
    return CR_OK;
}

void cr_asm_iface_pose(const cr_assembly *a, const cr_assembly_state *s, int i, cr_vec3 *r, cr_quat *p)
{
    const cr_asm_iface *f = &a->iface[i];
    if (f->rod < 0) {
        const double *y = s->body + (size_t)CR_ASM_BODY_DOF * f->node;
        *r = cr_v3_load(y), *p = cr_q_load(y + 3);
        return;
    }
    *r = cr_state_position(s->rods[f->rod], f->node);
    *p = cr_state_orientation(s->rods[f->rod], f->node);
}

/* T of an end: the point's increments (δr_pt, δθ) = T (δr, δθ), T = [E −A X~; 0 E] */
static void end_T(cr_mat3 A, cr_vec3 X, double T[6][6])
{
    memset(T, 0, 36 * sizeof(double));
    cr_mat3 AX = cr_m3_mul(A, cr_m3_skew(X));
    for (int r = 0; r < 6; ++r) T[r][r] = 1.0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) T[r][3 + c] = -AX.m[r][c];
}

void cr_asm_joint_eval_iface(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 rb,
                             cr_quat pb, const double *lambda, double *g, double *C, double *H)
{
    if (!j->on_body[0] && !j->on_body[1]) {
        cr_asm_joint_eval(j, f, drive, ra, pa, rb, pb, lambda, g, C, H);
        return;
    }
    cr_vec3 r[2] = {ra, rb};
    cr_quat p[2] = {pa, pb};
    cr_mat3 A[2];
    for (int e = 0; e < 2; ++e) {
        A[e] = cr_q_exp(p[e]);
        if (j->on_body[e]) r[e] = cr_v3_add(r[e], cr_m3_mulv(A[e], j->point[e]));
    }
    double Cl[CR_ASM_MAX_ROWS * 12];
    double *Cm = C ? C : Cl;
    const int wantH = H && lambda;
    cr_asm_joint_eval(j, f, drive, r[0], p[0], r[1], p[1], lambda, g, (C || wantH) ? Cm : NULL, H);
    if (!C && !wantH) return;
    double T[2][6][6];
    for (int e = 0; e < 2; ++e) end_T(A[e], j->on_body[e] ? j->point[e] : cr_v3(0, 0, 0), T[e]);
    if (wantH) {
        /* H ← Tᵀ H T (block-diagonal T), then the lever's own variation X~ (Aᵀ f)~ */
        double HT[144], Hn[144];
        for (int row = 0; row < 12; ++row)
            for (int col = 0; col < 12; ++col) {
                const int e = col / 6, c = col % 6;
                double v = 0;
                for (int k = 0; k < 6; ++k) v += H[row * 12 + 6 * e + k] * T[e][k][c];
                HT[row * 12 + col] = v;
            }
        for (int row = 0; row < 12; ++row)
            for (int col = 0; col < 12; ++col) {
                const int e = row / 6, rr = row % 6;
                double v = 0;
                for (int k = 0; k < 6; ++k) v += T[e][k][rr] * HT[(6 * e + k) * 12 + col];
                Hn[row * 12 + col] = v;
            }
        memcpy(H, Hn, sizeof Hn);
        for (int e = 0; e < 2; ++e) {
            if (!j->on_body[e]) continue;
            cr_vec3 fo = cr_v3(0, 0, 0);
            for (int rr = 0; rr < j->rows; ++rr)
                fo = cr_v3_add(fo,
                               cr_v3_scale(cr_v3(Cm[rr * 12 + 6 * e], Cm[rr * 12 + 6 * e + 1], Cm[rr * 12 + 6 * e + 2]),
                                           lambda[rr]));
            cr_mat3 K = cr_m3_mul(cr_m3_skew(j->point[e]), cr_m3_skew(cr_m3_tmulv(A[e], fo)));
            for (int rr = 0; rr < 3; ++rr)
                for (int c = 0; c < 3; ++c) H[(6 * e + 3 + rr) * 12 + 6 * e + 3 + c] += K.m[rr][c];
        }
    }
    if (C)
        for (int row = 0; row < j->rows; ++row)
            for (int e = 0; e < 2; ++e) {
                if (!j->on_body[e]) continue;
                double *c = C + row * 12 + 6 * e, n[6];
                for (int k = 0; k < 6; ++k) {
                    n[k] = 0;
                    for (int q = 0; q < 6; ++q) n[k] += c[q] * T[e][q][k];
                }
                memcpy(c, n, sizeof n);
            }
}

void cr_asm_joint_bias_iface(const cr_asm_joint *j, double f, const double *drive, cr_vec3 ra, cr_quat pa, cr_vec3 va,
                             cr_vec3 wa, cr_vec3 rb, cr_quat pb, cr_vec3 vb, cr_vec3 wb, double *bias, double *gt)
{
    if (!j->on_body[0] && !j->on_body[1]) {
        cr_asm_joint_bias(j, f, drive, ra, pa, va, wa, rb, pb, vb, wb, bias, gt);
        return;
    }
    cr_vec3 r[2] = {ra, rb}, v[2] = {va, vb}, w[2] = {wa, wb}, acc[2] = {{0, 0, 0}, {0, 0, 0}};
    cr_quat p[2] = {pa, pb};
    for (int e = 0; e < 2; ++e) {
        if (!j->on_body[e]) continue;
        cr_mat3 A = cr_q_exp(p[e]);
        cr_vec3 X = j->point[e], wX = cr_v3_cross(w[e], X);
        r[e] = cr_v3_add(r[e], cr_m3_mulv(A, X));
        v[e] = cr_v3_add(v[e], cr_m3_mulv(A, wX));
        acc[e] = cr_m3_mulv(A, cr_v3_cross(w[e], wX)); /* the point's centripetal acceleration */
    }
    cr_asm_joint_bias(j, f, drive, r[0], p[0], v[0], w[0], r[1], p[1], v[1], w[1], bias, gt);
    double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
    cr_asm_joint_eval(j, f, drive, r[0], p[0], r[1], p[1], NULL, g, C, NULL);
    for (int row = 0; row < j->rows; ++row)
        for (int e = 0; e < 2; ++e)
            if (j->on_body[e])
                for (int c = 0; c < 3; ++c) bias[row] += C[row * 12 + 6 * e + c] * cr_v3_get(acc[e], c);
}

void cr_asm_body_wrench(const cr_assembly *a, int b, const double *y, const double *scale, double *w, double *dw)
{
    const cr_asm_body *o = &a->bodies[b];
    cr_mat3 A = cr_q_exp(cr_q_load(y + 3));
    cr_vec3 f = cr_v3(0, 0, 0), m = cr_v3(0, 0, 0);
    if (dw) memset(dw, 0, 36 * sizeof *dw);
    for (int k = 0; k < a->body_load_count; ++k) {
        const cr_load_def *l = &a->body_loads[k];
        const double s = scale[k];
        if (s == 0.0) continue;
        if (l->type == CR_LOAD_GRAVITY) {
            f = cr_v3_add(f, cr_v3_scale(l->value, s * o->mass));
            continue;
        }
        if (l->body != b) continue;
        const int body_frame = l->frame == CR_FRAME_BODY;
        if (l->type == CR_LOAD_FORCE) {
            if (!body_frame) {
                f = cr_v3_add(f, cr_v3_scale(l->value, s));
                continue;
            }
            f = cr_v3_add(f, cr_v3_scale(cr_m3_mulv(A, l->value), s));
            if (dw) { /* δ(A v) = −A v~ δθ */
                cr_mat3 D = cr_m3_mul(A, cr_m3_skew(l->value));
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) dw[r * 6 + 3 + c] -= s * D.m[r][c];
            }
        } else if (l->type == CR_LOAD_MOMENT) {
            if (body_frame) {
                m = cr_v3_add(m, cr_v3_scale(l->value, s));
                continue;
            }
            cr_vec3 mb = cr_m3_tmulv(A, l->value);
            m = cr_v3_add(m, cr_v3_scale(mb, s));
            if (dw) { /* δ(Aᵀ v) = (Aᵀ v)~ δθ */
                cr_mat3 D = cr_m3_skew(mb);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) dw[(3 + r) * 6 + 3 + c] += s * D.m[r][c];
            }
        }
    }
    cr_v3_store(f, w), cr_v3_store(m, w + 3);
}

void cr_asm_body_stage_factors(const cr_assembly *a, int stage, double *out)
{
    for (int k = 0; k < a->body_load_count; ++k) {
        unsigned mask = a->body_loads[k].stages;
        out[k] = (mask == 0 || (stage < 32 && (mask & (1u << stage)))) ? 1.0 : 0.0;
    }
}

/* ---- public accessors ---- */

int cr_assembly_body_count(const cr_assembly *a) { return a->body_count; }

int cr_assembly_body_index(const cr_assembly *a, const char *name)
{
    for (int b = 0; b < a->body_count; ++b)
        if (strcmp(a->bodies[b].name, name) == 0) return b;
    return -1;
}

const char *cr_assembly_body_name(const cr_assembly *a, int b)
{
    return b >= 0 && b < a->body_count ? a->bodies[b].name : NULL;
}

cr_status cr_assembly_state_body(const cr_assembly_state *s, int b, cr_vec3 *center, cr_quat *orientation,
                                 cr_vec3 *velocity, cr_vec3 *angular_velocity)
{
    if (b < 0 || b >= s->assembly->body_count) return CR_BAD_INPUT;
    const double *y = s->body + (size_t)CR_ASM_BODY_DOF * b;
    if (center) *center = cr_v3_load(y);
    if (orientation) *orientation = cr_q_normalize(cr_q_load(y + 3));
    if (velocity) *velocity = cr_v3_load(y + 7);
    if (angular_velocity) *angular_velocity = cr_v3_load(y + 10);
    return CR_OK;
}

cr_status cr_assembly_state_set_body_velocity(cr_assembly_state *s, int b, cr_vec3 velocity, cr_vec3 angular_velocity)
{
    if (b < 0 || b >= s->assembly->body_count) return CR_BAD_INPUT;
    double *y = s->body + (size_t)CR_ASM_BODY_DOF * b;
    cr_v3_store(velocity, y + 7), cr_v3_store(angular_velocity, y + 10);
    return CR_OK;
}
