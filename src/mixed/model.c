/* Discretization of a rod definition into the mixed discrete rod's immutable
 * model (spec §1, §2, §7): nodes, reference poses, element chords, midpoint
 * stiffnesses, reference strains, lumped lengths, loads resolved to nodes and
 * boundary conditions; and its state. */
#include "contact/contact.h"
#include "mixed/mixed.h"
#include "mixed/model_internal.h"
#include "model/pose_spline.h"
#include "model/rod_internal.h"
#include "selfcontact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cr_element_strains(const cr_element *e, cr_vec3 ra, cr_quat pa, cr_vec3 rb, cr_quat pb, cr_vec3 *gamma,
                        cr_vec3 *kappa)
{
    cr_quat pe = cr_q_scale(cr_q_add(pa, pb), 0.5);
    double il = 1.0 / e->length;
    if (gamma) *gamma = cr_v3_scale(cr_m3_tmulv(cr_q_exp(pe), cr_v3_sub(rb, ra)), il);
    if (kappa) *kappa = cr_v3_scale(cr_q_dexp(pe, cr_q_sub(pb, pa)), il);
}

void cr_model_destroy(cr_model *m)
{
    if (!m) return;
    cr_contact_destroy(m->contact);
    cr_mixed_selfcontact_destroy(m);
    free(m->s);
    free(m->lumped_length);
    free(m->rho_area);
    free(m->node_mass);
    free(m->node_inertia);
    free(m->ref_r);
    free(m->ref_p);
    free(m->el);
    cr_mixed_damping_free(m);
    for (int k = 0; m->loads && k < m->load_count; ++k) free((void *)m->loads[k].time.points);
    free(m->loads);
    free(m->bodies);
    for (int k = 0; k < m->tendon_count; ++k) free(m->tendons[k].offset);
    free(m->tendons);
    for (int k = 0; m->supports && k < m->support_count; ++k) {
        free((void *)m->supports[k].time.points);
        free(m->supports[k].motion_t);
        free(m->supports[k].motion_c);
    }
    free(m->supports);
    free(m);
}

/* The table of poses of a support as cubic segments per channel (position in I, rotation
 * vector in I: the support's axes applied): pose_spline.c, as an obstacle's table. */
static cr_status motion_spline(cr_support *sp, const cr_bc_def *b)
{
    const int n = b->motion_count;
    sp->motion_count = n;
    sp->motion_t = malloc((size_t)n * sizeof(double));
    sp->motion_c = malloc((size_t)(n - 1) * 6 * 4 * sizeof(double));
    double *y = malloc((size_t)n * 6 * sizeof *y);
    cr_status st = CR_NO_MEMORY;
    if (sp->motion_t && sp->motion_c && y) {
        for (int j = 0; j < n; ++j) {
            sp->motion_t[j] = b->motion[j].t;
            cr_vec3 phi = cr_m3_mulv(sp->axes, b->motion[j].rotation);
            const double v[6] = {
                b->motion[j].position.x, b->motion[j].position.y, b->motion[j].position.z, phi.x, phi.y, phi.z};
            memcpy(y + (size_t)j * 6, v, sizeof v);
        }
        st = cr_pose_spline_fit(n, sp->motion_t, y, sp->motion_c);
    }
    free(y);
    return st;
}

/* The contact of the rod with def's obstacles: the contact radius of each node (contact.radius,
 * else the section's: a circle's radius, a rectangle's larger half side), the augmentation
 * parameter ε (contact.stiffness, else the largest over the elements of min(EA/L_el,
 * 12 EI/L_el³), the stiffness of one element against a push at its end: about the rod's own
 * local stiffness, so the multiplier updates converge in a few steps, while a stiffer ε makes
 * Newton's matrix ill-conditioned and lets round-off decide between stick and slip) and the
 * tolerance (contact.tolerance, else 1e-4 × the smallest radius). */
cr_status cr_mixed_contact_params(const cr_model *m, const cr_rod_def *def, const char *remedy, double *radius,
                                  double *eps, double *tol, cr_error *err)
{
    double amin = INFINITY, kmax = 0;
    for (int i = 0; i < m->nodes; ++i) {
        double a = def->contact.radius;
        if (!(a > 0)) {
            cr_section_props sp;
            cr_section_eval(def, m->length > 0 ? fmin(1.0, m->s[i] / m->length) : 0.0, &sp);
            a = fmax(sp.extent_y, sp.extent_z);
        }
        if (!(a > 0) || !isfinite(a))
            return cr_error_set(err, CR_BAD_INPUT,
                                "contact.radius: the section at node %d has no geometry (given by its resultants): "
                                "%s",
                                i, remedy);
        radius[i] = a, amin = fmin(amin, a);
    }
    for (int e = 0; e < m->n; ++e) {
        const cr_element *el = &m->el[e];
        double Le = el->length, EI = fmin(el->k_moment.y, el->k_moment.z);
        kmax = fmax(kmax, fmin(el->k_force.x / Le, 12.0 * EI / (Le * Le * Le)));
    }
    *eps = def->contact.stiffness > 0 ? def->contact.stiffness : kmax;
    *tol = def->contact.tolerance > 0 ? def->contact.tolerance : 1e-4 * amin;
    return CR_OK;
}

static cr_status model_contact(cr_model *m, const cr_rod_def *def, cr_error *err)
{
    double *radius = malloc((size_t)m->nodes * sizeof *radius);
    if (!radius) return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    double eps, tol;
    cr_status st = cr_mixed_contact_params(m, def, "give the contact radius", radius, &eps, &tol, err);
    if (st != CR_OK) {
        free(radius);
        return st;
    }
    int updates = def->contact.max_updates > 0 ? def->contact.max_updates : 50;
    double *weight = malloc((size_t)m->nodes * sizeof *weight);
    if (!weight) {
        free(radius);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    }
    for (int i = 0; i < m->nodes; ++i) weight[i] = m->lumped_length[i] * m->n / m->length;
    m->contact = cr_contact_create(m->nodes, radius, weight, def->obstacle_count, def->obstacles, eps, tol, updates);
    free(radius);
    free(weight);
    /* no normal dashpot (contact->damping stays NULL): with a critical one, 2 sqrt(ε_i m_i), Radau
     * took steps of seconds over a sliding rod and a rod at 0.9 μ_s crept (measured); without it
     * and with rtol <= 1e-6 the stick and the sliding acceleration are exact (docs/theory.md §11) */
    if (!m->contact) return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    /* contact.rolling: friction at the contact point (p after r in both state layouts) */
    if (def->contact.rolling) m->contact->quat_offset = 3;
    return CR_OK;
}

cr_model *cr_model_create(const cr_rod_def *def, cr_error *err)
{
    if (!def) {
        cr_error_set(err, CR_BAD_INPUT, "no rod definition");
        return NULL;
    }
    if (cr_rod_validate(def, err) != CR_OK) return NULL;
    cr_model *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    int n = def->elements, nn = n + 1;
    m->n = n;
    m->nodes = nn;
    m->material = def->material;
    m->rigid_mask = def->rigid_strains;
    for (int k = 0; k < 6; ++k)
        if (def->rigid_strains & (1u << k)) m->rigid_index[m->rigid_count++] = k;
    m->block = CR_NODE_DOF + m->rigid_count;
    m->s = calloc(nn, sizeof *m->s);
    m->lumped_length = calloc(nn, sizeof *m->lumped_length);
    m->rho_area = calloc(nn, sizeof *m->rho_area);
    m->node_mass = calloc(nn, sizeof *m->node_mass);
    m->node_inertia = calloc(nn, sizeof *m->node_inertia);
    m->ref_r = calloc(nn, sizeof *m->ref_r);
    m->ref_p = calloc(nn, sizeof *m->ref_p);
    m->el = calloc(n, sizeof *m->el);
    m->loads = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *m->loads);
    m->bodies = calloc(def->rigid_body_count > 0 ? def->rigid_body_count : 1, sizeof *m->bodies);
    m->supports = calloc(def->bc_count > 0 ? def->bc_count : 1, sizeof *m->supports);
    m->tendons = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *m->tendons);
    if (!m->s || !m->lumped_length || !m->rho_area || !m->node_mass || !m->node_inertia || !m->ref_r || !m->ref_p ||
        !m->el || !m->loads || !m->bodies || !m->supports || !m->tendons)
        goto oom;

    /* Reference poses. Straight and helix: nodes equally spaced in arc length.
     * Given nodes: arc length = cumulative chord. */
    const cr_reference_def *ref = &def->reference;
    double L = def->length;
    if (ref->type == CR_REFERENCE_NODES) {
        L = 0;
        for (int i = 0; i < nn; ++i) {
            if (i > 0) L += cr_v3_norm(cr_v3_sub(ref->node_positions[i], ref->node_positions[i - 1]));
            m->s[i] = L;
            m->ref_r[i] = ref->node_positions[i];
            m->ref_p[i] = cr_q_normalize(ref->node_orientations[i]);
        }
    } else {
        cr_quat q0 = cr_q_normalize(ref->orientation);
        cr_vec3 ex = cr_m3_column(cr_q_exp(q0), 0);
        for (int i = 0; i < nn; ++i) {
            m->s[i] = L * i / n;
            if (ref->type == CR_REFERENCE_STRAIGHT) {
                m->ref_r[i] = cr_v3_madd(ref->origin, m->s[i], ex);
                m->ref_p[i] = q0;
            } else {
                cr_reference_helix_pose(ref, m->s[i], &m->ref_r[i], &m->ref_p[i]);
            }
        }
    }
    m->length = L;
    /* Consecutive quaternions in the same hemisphere: the element mean p^el must not cancel. */
    for (int i = 1; i < nn; ++i)
        if (cr_q_dot(m->ref_p[i], m->ref_p[i - 1]) < 0) m->ref_p[i] = cr_q_scale(m->ref_p[i], -1.0);

    /* Elements: chord length (spec §7.2), midpoint stiffness (§7.1, §7.3), reference strains. */
    for (int e = 0; e < n; ++e) {
        cr_element *el = &m->el[e];
        el->length = cr_v3_norm(cr_v3_sub(m->ref_r[e + 1], m->ref_r[e]));
        el->s_mid = 0.5 * (m->s[e] + m->s[e + 1]);
        cr_section_resultants sr;
        cr_section_resultants_eval(def, el->s_mid / L, &sr);
        el->k_force = cr_v3(sr.EA, sr.GA_y, sr.GA_z);
        el->k_moment = cr_v3(sr.GJ, sr.EI_y, sr.EI_z);
        cr_element_strains(el, m->ref_r[e], m->ref_p[e], m->ref_r[e + 1], m->ref_p[e + 1], &el->gamma0, &el->kappa0);
    }
    if (cr_mixed_damping_init(m, &def->damping) != CR_OK) goto oom;
    /* Lumped lengths, eq. (1): half of each adjacent element chord. */
    for (int i = 0; i < nn; ++i) {
        m->lumped_length[i] = 0.5 * ((i > 0 ? m->el[i - 1].length : 0) + (i < n ? m->el[i].length : 0));
        cr_section_resultants sr;
        cr_section_resultants_eval(def, m->s[i] / L, &sr);
        m->rho_area[i] = sr.rhoA;
        double w = m->lumped_length[i];
        m->node_mass[i] = w * sr.rhoA;
        m->node_inertia[i] = cr_v3(w * sr.rhoJ_x, w * sr.rhoI_y, w * sr.rhoI_z);
    }

    /* Rigid bodies: the pose relative to their node is that of the reference. */
    for (int j = 0; j < def->rigid_body_count; ++j) {
        const cr_rigid_body_def *rb = &def->rigid_bodies[j];
        cr_body *b = &m->bodies[m->body_count++];
        int node = rb->node < 0 ? rb->node + nn : rb->node;
        cr_mat3 A = cr_q_exp(m->ref_p[node]);
        snprintf(b->name, sizeof b->name, "%s", rb->name);
        b->node = node;
        b->mass = rb->mass;
        b->offset = cr_m3_tmulv(A, cr_v3_sub(rb->center, m->ref_r[node]));
        b->inertia = cr_m3_mul(cr_m3_transpose(A), cr_m3_mul(rb->inertia, A));
        b->relative = cr_m3_mul(cr_m3_transpose(A), cr_q_exp(cr_q_normalize(rb->orientation)));
    }

    /* Loads (eq. 18): kept one by one, each with its own magnitude factor. */
    for (int k = 0; k < def->load_count; ++k) {
        const cr_load_def *l = &def->loads[k];
        cr_model_load *ml = &m->loads[m->load_count++];
        ml->type = l->type;
        ml->frame = l->frame;
        ml->value = l->value;
        ml->body = -1;
        ml->stages = l->stages;
        ml->time = l->time;
        ml->time.points = NULL;
        if (l->time.type == CR_TIME_TABLE && l->time.point_count > 0) {
            cr_time_point *pts = malloc(l->time.point_count * sizeof *pts);
            if (!pts) goto oom;
            memcpy(pts, l->time.points, l->time.point_count * sizeof *pts);
            ml->time.points = pts;
        }
        if (l->type == CR_LOAD_FORCE || l->type == CR_LOAD_MOMENT) {
            if (l->body >= 0) {
                ml->body = l->body;
                ml->node = m->bodies[l->body].node;
            } else {
                ml->node = l->node < 0 ? l->node + nn : l->node;
            }
        }
        if (l->type == CR_LOAD_TENDON) {
            cr_tendon *t = &m->tendons[m->tendon_count];
            ml->tendon = m->tendon_count;
            t->tension = l->tension;
            t->first = -1;
            for (int i = 0; i < nn; ++i) {
                double xi = m->s[i] / L;
                if (xi < l->xi_start - 1e-12 || xi > l->xi_end + 1e-12) continue;
                if (t->first < 0) t->first = i;
                t->last = i;
            }
            if (t->first < 0 || t->last == t->first) {
                cr_error_set(err, CR_BAD_INPUT, "loads.%d: the tendon range xi %g..%g holds fewer than two nodes", k,
                             l->xi_start, l->xi_end);
                cr_model_destroy(m);
                return NULL;
            }
            t->offset = calloc(t->last - t->first + 1, sizeof *t->offset);
            if (!t->offset) goto oom;
            m->tendon_count++;
            for (int i = t->first; i <= t->last; ++i) {
                cr_section_props sp;
                cr_section_eval(def, m->s[i] / L, &sp);
                cr_tendon_offset_eval(l, &sp, m->s[i] / L, &t->offset[i - t->first]);
            }
        }
    }

    /* Supports: frames and the rotation vector of the whole motion (a quaternion
     * target: the shortest arc from the reference, as before). */
    for (int k = 0; k < def->bc_count; ++k) {
        const cr_bc_def *b = &def->bcs[k];
        cr_support *sp = &m->supports[m->support_count++];
        int node = b->node < 0 ? b->node + nn : b->node;
        sp->node = node;
        sp->hold = cr_bc_hold(b);
        sp->stages = b->stages;
        sp->ref_r = m->ref_r[node];
        sp->ref_p = cr_q_normalize(m->ref_p[node]);
        sp->axes = b->frame == CR_FRAME_BODY ? cr_q_exp(sp->ref_p) : cr_m3_identity();
        sp->dr = (b->type == CR_BC_POSE || b->has_position) ? cr_v3_sub(b->position, sp->ref_r) : cr_v3(0, 0, 0);
        cr_bc_rotation kind = b->type == CR_BC_POSE ? CR_BC_ROTATION_QUATERNION : b->rotation_kind;
        if (kind == CR_BC_ROTATION_VECTOR) {
            sp->phi = cr_m3_mulv(sp->axes, b->rotation);
        } else if (kind == CR_BC_ROTATION_QUATERNION) {
            cr_quat d = cr_q_mul(cr_q_normalize(b->orientation), cr_q_conj(sp->ref_p));
            if (d.w < 0) d = cr_q_scale(d, -1.0);
            double sv = cr_v3_norm(cr_q_vec(d)), angle = 2.0 * atan2(sv, d.w);
            sp->phi = sv > 0 ? cr_v3_scale(cr_q_vec(d), angle / sv) : cr_v3(0, 0, 0);
        }
        sp->time = b->time;
        sp->time.points = NULL;
        if (b->time.type == CR_TIME_TABLE && b->time.point_count > 0) {
            cr_time_point *pts = malloc((size_t)b->time.point_count * sizeof *pts);
            if (!pts) goto oom;
            memcpy(pts, b->time.points, (size_t)b->time.point_count * sizeof *pts);
            sp->time.points = pts;
        }
        sp->driven = b->time.type != CR_TIME_CONSTANT;
        if (b->motion_count >= 2 && b->motion) {
            if (motion_spline(sp, b) != CR_OK) goto oom;
            sp->driven = 1;
        }
    }
    if (def->obstacle_count > 0 && model_contact(m, def, err) != CR_OK) {
        cr_model_destroy(m);
        return NULL;
    }
    if (def->contact.self && cr_mixed_selfcontact_create(m, def, err) != CR_OK) {
        cr_model_destroy(m);
        return NULL;
    }
    return m;
oom:
    cr_model_destroy(m);
    cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    return NULL;
}

void cr_support_pose(const cr_support *sp, double f, cr_vec3 *r, cr_quat *p)
{
    *r = cr_v3_madd(sp->ref_r, f, sp->dr);
    double angle = f * cr_v3_norm(sp->phi);
    cr_quat q = angle != 0 ? cr_q_axis_angle(cr_v3_normalize(sp->phi), angle) : cr_q_identity();
    *p = cr_q_mul(q, sp->ref_p); /* continuous in f: turns beyond π keep their sign history */
}

void cr_support_target(const cr_model *m, int k, const cr_supports_at *at, cr_vec3 *r, cr_quat *p, cr_vec3 *v,
                       cr_vec3 *w, cr_vec3 *a, cr_vec3 *alpha)
{
    const cr_support *sp = &m->supports[k];
    if (sp->motion_count >= 2) { /* a table of poses, ramped in statics */
        double q[6], d1[6], d2[6], s = at->ramp;
        cr_pose_spline_eval(sp->motion_count, sp->motion_t, sp->motion_c, at->t, q, d1, d2);
        cr_support moved = *sp;
        moved.dr = cr_v3_sub(cr_v3(q[0], q[1], q[2]), sp->ref_r);
        moved.phi = cr_v3(q[3], q[4], q[5]);
        cr_support_pose(&moved, s, r, p);
        cr_vec3 phi = cr_v3_scale(moved.phi, s), dphi = cr_v3(s * d1[3], s * d1[4], s * d1[5]);
        cr_vec3 om = cr_so3_left_jacobian_mulv(phi, dphi);
        if (v) *v = cr_v3(s * d1[0], s * d1[1], s * d1[2]);
        if (w) *w = om;
        if (a) *a = cr_v3(s * d2[0], s * d2[1], s * d2[2]);
        if (alpha) { /* ω̇ = J_l φ̈ + J̇_l φ̇, the second term by a central difference in t */
            double h = 1e-6 * fmax(1.0, fabs(at->t)), qp[6], qm[6], e1[6], e2[6], f1[6], f2[6];
            cr_pose_spline_eval(sp->motion_count, sp->motion_t, sp->motion_c, at->t + h, qp, e1, e2);
            cr_pose_spline_eval(sp->motion_count, sp->motion_t, sp->motion_c, at->t - h, qm, f1, f2);
            cr_vec3 jp = cr_so3_left_jacobian_mulv(cr_v3(s * qp[3], s * qp[4], s * qp[5]), dphi);
            cr_vec3 jm = cr_so3_left_jacobian_mulv(cr_v3(s * qm[3], s * qm[4], s * qm[5]), dphi);
            *alpha = cr_v3_add(cr_so3_left_jacobian_mulv(phi, cr_v3(s * d2[3], s * d2[4], s * d2[5])),
                               cr_v3_scale(cr_v3_sub(jp, jm), 0.5 / h));
        }
    } else {
        double f, df, ddf;
        cr_time_function_eval_d(&sp->time, at->t, &f, &df, &ddf);
        f *= at->ramp, df *= at->ramp, ddf *= at->ramp;
        cr_support_pose(sp, f, r, p);
        /* rotation about the fixed axis φ: ω = ḟ φ, ω̇ = f̈ φ (I) */
        if (v) *v = cr_v3_scale(sp->dr, df);
        if (w) *w = cr_v3_scale(sp->phi, df);
        if (a) *a = cr_v3_scale(sp->dr, ddf);
        if (alpha) *alpha = cr_v3_scale(sp->phi, ddf);
    }
    const double *from = at->from ? at->from + (size_t)7 * k : NULL;
    if (from && !isnan(from[0])) { /* a support that starts here: blend from where the node was */
        double b = at->from_blend;
        cr_quat q0 = cr_q_load(from + 3);
        if (cr_q_dot(q0, *p) < 0) q0 = cr_q_scale(q0, -1.0);
        *r = cr_v3_madd(cr_v3_scale(cr_v3_load(from), 1 - b), b, *r);
        *p = cr_q_slerp(q0, *p, b);
    }
}

int cr_model_node_count(const cr_model *m) { return m->nodes; }
int cr_model_element_count(const cr_model *m) { return m->n; }
double cr_model_length(const cr_model *m) { return m->length; }
double cr_model_node_s(const cr_model *m, int i) { return m->s[i]; }

cr_status cr_mixed_check_node_masses(const cr_rod_def *def, int stage, cr_error *err)
{
    /* the nodes' arc lengths as cr_model_create places them; the mass is lumped, w rhoA(s_i) */
    const cr_reference_def *ref = &def->reference;
    int n = def->elements;
    double L = def->length, s = 0;
    if (ref->type == CR_REFERENCE_NODES && (ref->node_count != n + 1 || !ref->node_positions))
        return CR_OK; /* cr_rod_validate reports it */
    if (ref->type == CR_REFERENCE_NODES) {
        L = 0;
        for (int i = 1; i <= n; ++i) L += cr_v3_norm(cr_v3_sub(ref->node_positions[i], ref->node_positions[i - 1]));
    }
    for (int i = 0; i <= n; ++i) {
        if (ref->type == CR_REFERENCE_NODES)
            s += i > 0 ? cr_v3_norm(cr_v3_sub(ref->node_positions[i], ref->node_positions[i - 1])) : 0;
        else
            s = L * i / n;
        if (!(L > 0) || def->section_count < 1) return CR_OK; /* cr_rod_validate reports it */
        cr_section_resultants sr;
        cr_section_resultants_eval(def, s / L, &sr);
        if (sr.rhoA > 0) continue;
        int k = 0;
        while (k < def->section_count - 1 && s / L > def->sections[k].xi_end) ++k;
        if (def->sections[k].shape == CR_SECTION_RESULTANTS)
            return cr_error_set(err, CR_BAD_INPUT,
                                "rod.sections.%d.rhoA: dynamic stage %d needs a mass at every node, but node %d "
                                "(s = %g) has rhoA = %g",
                                k, stage, i, s, sr.rhoA);
        return cr_error_set(err, CR_BAD_INPUT,
                            "rod.material.rho: dynamic stage %d needs a mass at every node, but node %d (s = %g) has "
                            "none (rho = %g)",
                            stage, i, s, def->material.rho);
    }
    return CR_OK;
}
double cr_model_element_s(const cr_model *m, int e) { return m->el[e].s_mid; }
cr_vec3 cr_model_reference_position(const cr_model *m, int i) { return m->ref_r[i]; }
cr_quat cr_model_reference_orientation(const cr_model *m, int i) { return m->ref_p[i]; }

/* ---------- state ---------- */
cr_state *cr_state_create(const cr_model *m)
{
    cr_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = m;
    s->x = calloc((size_t)m->nodes * m->block, sizeof *s->x);
    s->load_scale = calloc(m->load_count > 0 ? m->load_count : 1, sizeof *s->load_scale);
    s->load_input = malloc((m->load_count > 0 ? m->load_count : 1) * sizeof *s->load_input);
    s->velocity = calloc((size_t)m->nodes * 6, sizeof *s->velocity);
    s->stress = calloc((size_t)m->n * 6, sizeof *s->stress);
    if (!s->x || !s->load_scale || !s->load_input || !s->velocity || !s->stress) {
        cr_state_destroy(s);
        return NULL;
    }
    for (int k = 0; k < (m->load_count > 0 ? m->load_count : 1); ++k) s->load_input[k] = 1.0;
    for (int i = 0; i < m->nodes; ++i) cr_state_set_pose(s, i, m->ref_r[i], m->ref_p[i]);
    return s;
}

void cr_state_destroy(cr_state *s)
{
    if (!s) return;
    free(s->x);
    free(s->load_scale);
    free(s->load_input);
    free(s->velocity);
    free(s->stress);
    free(s);
}

void cr_state_copy(cr_state *dst, const cr_state *src)
{
    const cr_model *m = src->model;
    dst->load_factor = src->load_factor;
    dst->bc_factor = src->bc_factor;
    dst->stage = src->stage;
    dst->dynamic = src->dynamic;
    dst->time = src->time;
    memcpy(dst->x, src->x, (size_t)m->nodes * m->block * sizeof *dst->x);
    memcpy(dst->load_scale, src->load_scale, (m->load_count > 0 ? m->load_count : 1) * sizeof(double));
    memcpy(dst->load_input, src->load_input, (m->load_count > 0 ? m->load_count : 1) * sizeof(double));
    memcpy(dst->velocity, src->velocity, (size_t)m->nodes * 6 * sizeof(double));
    memcpy(dst->stress, src->stress, (size_t)m->n * 6 * sizeof(double));
}

double cr_state_load_factor(const cr_state *s) { return s->load_factor; }
cr_vec3 cr_state_position(const cr_state *s, int i) { return cr_x_position(s->model, s->x, i); }
cr_quat cr_state_orientation(const cr_state *s, int i) { return cr_x_orientation(s->model, s->x, i); }

void cr_state_set_pose(cr_state *s, int i, cr_vec3 r, cr_quat p)
{
    double *x = s->x + (size_t)i * s->model->block;
    cr_v3_store(r, x);
    cr_q_store(p, x + 3);
}

void cr_state_element(const cr_model *m, const cr_state *s, int e, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *n,
                      cr_vec3 *mo)
{
    const cr_element *el = &m->el[e];
    cr_vec3 g, k;
    cr_element_strains(el, cr_state_position(s, e), cr_state_orientation(s, e), cr_state_position(s, e + 1),
                       cr_state_orientation(s, e + 1), &g, &k);
    /* eq. (9) with the element compliance L·C (spec §2): n = EA (γ - γ0) etc. */
    double lam[6];
    cr_vec3 dg = cr_v3_sub(g, el->gamma0), dk = cr_v3_sub(k, el->kappa0);
    cr_vec3 nf = cr_v3_mul(el->k_force, dg), mf = cr_v3_mul(el->k_moment, dk);
    lam[0] = nf.x, lam[1] = nf.y, lam[2] = nf.z, lam[3] = mf.x, lam[4] = mf.y, lam[5] = mf.z;
    const double *mult = s->x + (size_t)e * m->block + CR_NODE_DOF;
    for (int j = 0; j < m->rigid_count; ++j) lam[m->rigid_index[j]] = mult[j];
    if (gamma) *gamma = g;
    if (kappa) *kappa = k;
    if (n) *n = cr_v3(lam[0], lam[1], lam[2]);
    if (mo) *mo = cr_v3(lam[3], lam[4], lam[5]);
}

void cr_state_get_positions(const cr_state *s, double *out)
{
    for (int i = 0; i < s->model->nodes; ++i) cr_v3_store(cr_state_position(s, i), out + 3 * i);
}

void cr_state_get_orientations(const cr_state *s, double *out)
{
    for (int i = 0; i < s->model->nodes; ++i) cr_q_store(cr_state_orientation(s, i), out + 4 * i);
}

void cr_state_get_elements(const cr_model *m, const cr_state *s, double *out)
{
    for (int e = 0; e < m->n; ++e) {
        cr_vec3 v[4];
        cr_state_element(m, s, e, &v[0], &v[1], &v[2], &v[3]);
        for (int k = 0; k < 4; ++k) cr_v3_store(v[k], out + 12 * e + 3 * k);
    }
}

void cr_model_get_node_s(const cr_model *m, double *out) { memcpy(out, m->s, m->nodes * sizeof *out); }

void cr_model_get_element_s(const cr_model *m, double *out)
{
    for (int e = 0; e < m->n; ++e) out[e] = m->el[e].s_mid;
}

int cr_model_load_count(const cr_model *m) { return m->load_count; }

void cr_model_stage_load_factors(const cr_model *m, int stage, double *out)
{
    for (int k = 0; k < m->load_count; ++k) {
        unsigned mask = m->loads[k].stages;
        out[k] = (mask == 0 || (stage < 32 && (mask & (1u << stage)))) ? 1.0 : 0.0;
    }
}

static unsigned long long fnv(unsigned long long h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

unsigned long long cr_model_fingerprint(const cr_model *m)
{
    unsigned long long h = 14695981039346656037ull;
    int head[6] = {m->n, m->nodes, (int)m->rigid_mask, m->load_count, m->body_count, m->tendon_count};
    h = fnv(h, head, sizeof head);
    h = fnv(h, &m->material, sizeof m->material);
    h = fnv(h, m->s, m->nodes * sizeof *m->s);
    h = fnv(h, m->ref_r, m->nodes * sizeof *m->ref_r);
    h = fnv(h, m->ref_p, m->nodes * sizeof *m->ref_p);
    h = fnv(h, m->el, m->n * sizeof *m->el);
    h = fnv(h, m->node_mass, m->nodes * sizeof *m->node_mass);
    for (int k = 0; k < m->support_count; ++k) {
        const cr_support *sp = &m->supports[k];
        double v[26] = {sp->node,           sp->hold,         sp->stages,       sp->ref_r.x,
                        sp->ref_r.y,        sp->ref_r.z,      sp->dr.x,         sp->dr.y,
                        sp->dr.z,           sp->phi.x,        sp->phi.y,        sp->phi.z,
                        sp->time.type,      sp->time.t0,      sp->time.t1,      sp->time.amplitude,
                        sp->time.frequency, sp->time.phase,   sp->time.offset,  sp->time.point_count,
                        sp->axes.m[0][0],   sp->axes.m[0][1], sp->axes.m[1][0], sp->axes.m[1][1],
                        sp->axes.m[2][0],   sp->axes.m[2][1]};
        h = fnv(h, v, sizeof v);
        if (sp->time.points) h = fnv(h, sp->time.points, (size_t)sp->time.point_count * sizeof *sp->time.points);
        if (sp->motion_count > 0) {
            h = fnv(h, sp->motion_t, (size_t)sp->motion_count * sizeof *sp->motion_t);
            h = fnv(h, sp->motion_c, (size_t)(sp->motion_count - 1) * 24 * sizeof *sp->motion_c);
        }
    }
    for (int k = 0; k < m->load_count; ++k) {
        const cr_model_load *l = &m->loads[k];
        int ints[6] = {(int)l->type, (int)l->frame, l->node, l->body, l->tendon, (int)l->stages};
        double t[6] = {l->time.t0, l->time.t1, l->time.amplitude, l->time.frequency, l->time.phase, l->time.offset};
        h = fnv(h, ints, sizeof ints);
        h = fnv(h, &l->value, sizeof l->value);
        h = fnv(h, &l->time.type, sizeof l->time.type);
        h = fnv(h, t, sizeof t);
        if (l->time.points) h = fnv(h, l->time.points, l->time.point_count * sizeof *l->time.points);
    }
    for (int k = 0; k < m->tendon_count; ++k) {
        const cr_tendon *t = &m->tendons[k];
        h = fnv(h, &t->tension, sizeof t->tension);
        h = fnv(h, t->offset, (t->last - t->first + 1) * sizeof *t->offset);
    }
    for (int j = 0; j < m->body_count; ++j) {
        const cr_body *b = &m->bodies[j];
        h = fnv(h, &b->node, sizeof b->node);
        h = fnv(h, &b->mass, sizeof b->mass);
        h = fnv(h, &b->offset, sizeof b->offset);
        h = fnv(h, &b->inertia, sizeof b->inertia);
        h = fnv(h, &b->relative, sizeof b->relative);
    }
    h = cr_mixed_damping_hash(m, h);
    h = cr_contact_hash(m->contact, h);
    return h;
}
