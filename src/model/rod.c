/* Discretization of a rod definition into an immutable model (spec §1, §2, §7):
 * nodes, reference poses, element chords, midpoint stiffnesses, reference
 * strains, lumped lengths, loads resolved to nodes and boundary conditions. */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cr_rod_def cr_rod_default_def(void)
{
    cr_rod_def d;
    memset(&d, 0, sizeof d);
    d.reference.type = CR_REFERENCE_STRAIGHT;
    d.reference.orientation = cr_q_identity();
    return d;
}

cr_load_def cr_load_default_def(void)
{
    cr_load_def d;
    memset(&d, 0, sizeof d);
    d.xi_start = 0.0;
    d.xi_end = 1.0;
    d.offset.fraction = 1.0;
    d.body = -1;
    d.time.type = CR_TIME_CONSTANT;
    return d;
}

cr_rigid_body_def cr_rigid_body_default_def(void)
{
    cr_rigid_body_def d;
    memset(&d, 0, sizeof d);
    d.orientation = cr_q_identity();
    return d;
}

cr_bc_def cr_bc_default_def(void)
{
    cr_bc_def d;
    memset(&d, 0, sizeof d);
    d.orientation = cr_q_identity();
    return d;
}

cr_section_segment cr_section_default_def(void)
{
    cr_section_segment d;
    memset(&d, 0, sizeof d);
    d.xi_end = 1.0;
    return d;
}

static int finite_positive(double v) { return isfinite(v) && v > 0; }

static double taper(const double v[2], double t) { return v[0] + t * (v[1] - v[0]); }

cr_status cr_section_eval(const cr_rod_def *def, double xi, cr_section_props *out)
{
    if (!(xi >= -1e-12 && xi <= 1 + 1e-12) || def->section_count < 1) return CR_BAD_INPUT;
    int k = 0;
    while (k < def->section_count - 1 && xi > def->sections[k].xi_end) ++k;
    const cr_section_segment *seg = &def->sections[k];
    double start = k > 0 ? def->sections[k - 1].xi_end : 0.0;
    double t = seg->xi_end > start ? (xi - start) / (seg->xi_end - start) : 0.0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    if (seg->shape == CR_SECTION_CIRCLE) {
        double r = taper(seg->radius, t), I = M_PI * r * r * r * r / 4;
        *out = (cr_section_props){M_PI * r * r, 2 * I, I, I, r, r};
    } else {
        double w = taper(seg->width, t), h = taper(seg->height, t);
        /* Saint-Venant torsion constant of a rectangle, a >= b (Roark's approximation). */
        double a = w > h ? w : h, b = w > h ? h : w;
        double J = a * b * b * b * (1.0 / 3.0 - 0.21 * (b / a) * (1 - pow(b / a, 4) / 12));
        *out = (cr_section_props){w * h, J, w * h * h * h / 12, h * w * w * w / 12, w / 2, h / 2};
    }
    return CR_OK;
}

/* ---------- validation of the definition (for C API users; the scenario parser
 * reports the same problems with JSON paths) ---------- */
static cr_status validate(const cr_rod_def *d, cr_error *err)
{
    if (d->elements < 1) return cr_error_set(err, CR_BAD_INPUT, "rod.elements: must be >= 1, got %d", d->elements);
    if (d->reference.type != CR_REFERENCE_NODES && !finite_positive(d->length))
        return cr_error_set(err, CR_BAD_INPUT, "rod.length: must be > 0, got %g", d->length);
    if (!finite_positive(d->material.E))
        return cr_error_set(err, CR_BAD_INPUT, "rod.material.E: must be > 0, got %g", d->material.E);
    if (!finite_positive(d->material.G))
        return cr_error_set(err, CR_BAD_INPUT, "rod.material.G: must be > 0, got %g", d->material.G);
    if (!(isfinite(d->material.rho) && d->material.rho >= 0))
        return cr_error_set(err, CR_BAD_INPUT, "rod.material.rho: must be >= 0, got %g", d->material.rho);
    if (d->section_count < 1 || !d->sections)
        return cr_error_set(err, CR_BAD_INPUT, "rod.sections: at least one section is required");
    double prev = 0;
    for (int k = 0; k < d->section_count; ++k) {
        const cr_section_segment *s = &d->sections[k];
        if (!(s->xi_end > prev && s->xi_end <= 1))
            return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.end: must be in (%g, 1], got %g", k, prev, s->xi_end);
        prev = s->xi_end;
        for (int j = 0; j < 2; ++j) {
            if (s->shape == CR_SECTION_CIRCLE && !finite_positive(s->radius[j]))
                return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.radius: must be > 0, got %g", k, s->radius[j]);
            if (s->shape == CR_SECTION_RECTANGLE && !finite_positive(s->width[j]))
                return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.width: must be > 0, got %g", k, s->width[j]);
            if (s->shape == CR_SECTION_RECTANGLE && !finite_positive(s->height[j]))
                return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.height: must be > 0, got %g", k, s->height[j]);
        }
        if (s->shape != CR_SECTION_CIRCLE && s->shape != CR_SECTION_RECTANGLE)
            return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.shape: unknown shape %d", k, (int)s->shape);
    }
    if (fabs(prev - 1) > 1e-12)
        return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.end: the last section must end at 1, got %g",
                            d->section_count - 1, prev);
    if (d->rigid_strains & ~0x3fu)
        return cr_error_set(err, CR_BAD_INPUT, "rod.rigid_strains: invalid mask 0x%x", d->rigid_strains);
    const cr_reference_def *r = &d->reference;
    if (r->type == CR_REFERENCE_HELIX && !finite_positive(r->helix_radius))
        return cr_error_set(err, CR_BAD_INPUT, "rod.reference.radius: must be > 0, got %g", r->helix_radius);
    if (r->type == CR_REFERENCE_HELIX && !isfinite(r->helix_pitch))
        return cr_error_set(err, CR_BAD_INPUT, "rod.reference.pitch: must be finite");
    if (r->type == CR_REFERENCE_STRAIGHT && !(cr_q_norm2(r->orientation) > 0))
        return cr_error_set(err, CR_BAD_INPUT, "rod.reference.quaternion: must be nonzero");
    if (r->type == CR_REFERENCE_NODES) {
        if (r->node_count != d->elements + 1 || !r->node_positions || !r->node_orientations)
            return cr_error_set(err, CR_BAD_INPUT, "rod.reference.positions: expected %d nodes (rod.elements + 1), got %d",
                                d->elements + 1, r->node_count);
        for (int i = 0; i < r->node_count; ++i) {
            if (!(cr_q_norm2(r->node_orientations[i]) > 0))
                return cr_error_set(err, CR_BAD_INPUT, "rod.reference.quaternions.%d: must be nonzero", i);
            if (i > 0 && !(cr_v3_norm(cr_v3_sub(r->node_positions[i], r->node_positions[i - 1])) > 0))
                return cr_error_set(err, CR_BAD_INPUT, "rod.reference.positions.%d: coincides with node %d", i, i - 1);
        }
    } else if (r->type != CR_REFERENCE_STRAIGHT && r->type != CR_REFERENCE_HELIX) {
        return cr_error_set(err, CR_BAD_INPUT, "rod.reference.type: unknown type %d", (int)r->type);
    }
    int nodes = d->elements + 1;
    for (int k = 0; k < d->bc_count; ++k) {
        int node = d->bcs[k].node;
        if (node < -nodes || node >= nodes)
            return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.node: %d is not a node (0..%d)", k, node, nodes - 1);
        if (d->bcs[k].type == CR_BC_POSE && !(cr_q_norm2(d->bcs[k].orientation) > 0))
            return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.quaternion: must be nonzero", k);
    }
    for (int j = 0; j < d->rigid_body_count; ++j) {
        const cr_rigid_body_def *b = &d->rigid_bodies[j];
        if (b->node < -nodes || b->node >= nodes)
            return cr_error_set(err, CR_BAD_INPUT, "rigid_bodies.%d.node: %d is not a node (0..%d)", j, b->node, nodes - 1);
        if (!finite_positive(b->mass))
            return cr_error_set(err, CR_BAD_INPUT, "rigid_bodies.%d.mass: must be > 0, got %g", j, b->mass);
        /* symmetric positive definite: Cholesky succeeds */
        const cr_mat3 *I = &b->inertia;
        double l00 = I->m[0][0] > 0 ? sqrt(I->m[0][0]) : NAN, l10 = I->m[1][0] / l00, l20 = I->m[2][0] / l00;
        double d1 = I->m[1][1] - l10 * l10, l11 = d1 > 0 ? sqrt(d1) : NAN;
        double l21 = (I->m[2][1] - l20 * l10) / l11, d2 = I->m[2][2] - l20 * l20 - l21 * l21;
        int symmetric = fabs(I->m[0][1] - I->m[1][0]) <= 1e-12 * fabs(I->m[0][0]) &&
                        fabs(I->m[0][2] - I->m[2][0]) <= 1e-12 * fabs(I->m[0][0]) &&
                        fabs(I->m[1][2] - I->m[2][1]) <= 1e-12 * fabs(I->m[1][1]);
        if (!(d2 > 0) || !symmetric)
            return cr_error_set(err, CR_BAD_INPUT, "rigid_bodies.%d.inertia: must be symmetric positive definite", j);
    }
    for (int k = 0; k < d->load_count; ++k) {
        const cr_load_def *l = &d->loads[k];
        const cr_time_function *tf = &l->time;
        if ((tf->type == CR_TIME_RAMP || tf->type == CR_TIME_SMOOTH_STEP) && !(tf->t0 < tf->t1))
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.time: need t0 < t1, got %g, %g", k, tf->t0, tf->t1);
        if (tf->type == CR_TIME_TABLE) {
            if (tf->point_count < 2 || !tf->points)
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d.time.points: needs at least 2 rows", k);
            for (int j = 1; j < tf->point_count; ++j)
                if (!(tf->points[j].t > tf->points[j - 1].t))
                    return cr_error_set(err, CR_BAD_INPUT, "loads.%d.time.points.%d: t must increase", k, j);
        }
        if ((l->type == CR_LOAD_FORCE || l->type == CR_LOAD_MOMENT) && l->body >= d->rigid_body_count)
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.body: %d is not a rigid body", k, l->body);
        if ((l->type == CR_LOAD_FORCE || l->type == CR_LOAD_MOMENT) && l->body < 0 && (l->node < -nodes || l->node >= nodes))
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.node: %d is not a node (0..%d)", k, l->node, nodes - 1);
        if (l->type == CR_LOAD_GRAVITY && !(d->material.rho > 0))
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d: gravity needs rod.material.rho > 0, got %g", k, d->material.rho);
        if (l->type == CR_LOAD_TENDON) {
            if (!(isfinite(l->tension) && l->tension >= 0))
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d.tension: must be >= 0, got %g", k, l->tension);
            if (!(l->xi_start >= 0 && l->xi_start < l->xi_end && l->xi_end <= 1))
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d.xi_start/xi_end: need 0 <= start < end <= 1, got %g, %g", k,
                                    l->xi_start, l->xi_end);
            if (l->offset.type == CR_OFFSET_TABLE) {
                const cr_tendon_offset *o = &l->offset;
                if (o->point_count < 2 || !o->points)
                    return cr_error_set(err, CR_BAD_INPUT, "loads.%d.offset.table: needs at least 2 rows", k);
                for (int j = 1; j < o->point_count; ++j)
                    if (!(o->points[j].xi > o->points[j - 1].xi))
                        return cr_error_set(err, CR_BAD_INPUT, "loads.%d.offset.table.%d: xi must increase", k, j);
                if (o->points[0].xi > l->xi_start + 1e-12 || o->points[o->point_count - 1].xi < l->xi_end - 1e-12)
                    return cr_error_set(err, CR_BAD_INPUT, "loads.%d.offset.table: must cover xi %g..%g", k, l->xi_start, l->xi_end);
            }
        }
        if (l->type < CR_LOAD_FORCE || l->type > CR_LOAD_TENDON)
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.type: unknown type %d", k, (int)l->type);
    }
    return CR_OK;
}

/* ---------- reference configuration ---------- */
static void helix_pose(const cr_reference_def *r, double s, cr_vec3 *pos, cr_quat *q)
{
    double R = r->helix_radius, c = r->helix_pitch / (2 * M_PI * R), w = sqrt(1 + c * c);
    double a = s / (R * w), ca = cos(a), sa = sin(a);
    *pos = cr_v3_add(r->origin, cr_v3(-R * sa, R * ca, R * c * a));
    cr_vec3 ex = cr_v3(-ca / w, -sa / w, c / w); /* tangent */
    cr_vec3 ey = cr_v3(sa, -ca, 0);              /* principal normal, towards the axis */
    *q = cr_q_from_matrix(cr_m3_columns(ex, ey, cr_v3_cross(ex, ey)));
}

static double offset_at(const cr_load_def *l, const cr_section_props *sp, double xi, cr_vec3 *d)
{
    const cr_tendon_offset *o = &l->offset;
    if (o->type == CR_OFFSET_CONSTANT) {
        *d = cr_v3(0, o->y, o->z);
    } else if (o->type == CR_OFFSET_RADIUS_FRACTION) {
        *d = cr_v3(0, o->fraction * sp->extent_y * cos(o->angle), o->fraction * sp->extent_z * sin(o->angle));
    } else {
        int j = 0;
        while (j < o->point_count - 2 && xi > o->points[j + 1].xi) ++j;
        const cr_offset_point *a = &o->points[j], *b = &o->points[j + 1];
        double t = (xi - a->xi) / (b->xi - a->xi);
        *d = cr_v3(0, a->y + t * (b->y - a->y), a->z + t * (b->z - a->z));
    }
    return 0;
}

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
    free(m->s);
    free(m->lumped_length);
    free(m->area);
    free(m->node_mass);
    free(m->node_inertia);
    free(m->ref_r);
    free(m->ref_p);
    free(m->el);
    for (int k = 0; m->loads && k < m->load_count; ++k) free((void *)m->loads[k].time.points);
    free(m->loads);
    free(m->bodies);
    for (int k = 0; k < m->tendon_count; ++k) free(m->tendons[k].offset);
    free(m->tendons);
    free(m->bc_type);
    free(m->bc_position);
    free(m->bc_orientation);
    free(m);
}

cr_model *cr_model_create(const cr_rod_def *def, cr_error *err)
{
    if (!def) {
        cr_error_set(err, CR_BAD_INPUT, "no rod definition");
        return NULL;
    }
    if (validate(def, err) != CR_OK) return NULL;
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
    m->area = calloc(nn, sizeof *m->area);
    m->node_mass = calloc(nn, sizeof *m->node_mass);
    m->node_inertia = calloc(nn, sizeof *m->node_inertia);
    m->ref_r = calloc(nn, sizeof *m->ref_r);
    m->ref_p = calloc(nn, sizeof *m->ref_p);
    m->el = calloc(n, sizeof *m->el);
    m->loads = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *m->loads);
    m->bodies = calloc(def->rigid_body_count > 0 ? def->rigid_body_count : 1, sizeof *m->bodies);
    m->bc_type = malloc(nn * sizeof *m->bc_type);
    m->bc_position = calloc(nn, sizeof *m->bc_position);
    m->bc_orientation = calloc(nn, sizeof *m->bc_orientation);
    m->tendons = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *m->tendons);
    if (!m->s || !m->lumped_length || !m->area || !m->node_mass || !m->node_inertia || !m->ref_r || !m->ref_p || !m->el || !m->loads || !m->bodies || !m->bc_type || !m->bc_position ||
        !m->bc_orientation || !m->tendons)
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
                helix_pose(ref, m->s[i], &m->ref_r[i], &m->ref_p[i]);
            }
        }
    }
    m->length = L;
    /* Consecutive quaternions in the same hemisphere: the element mean p^el must not cancel. */
    for (int i = 1; i < nn; ++i)
        if (cr_q_dot(m->ref_p[i], m->ref_p[i - 1]) < 0) m->ref_p[i] = cr_q_scale(m->ref_p[i], -1.0);

    /* Elements: chord length (spec §7.2), midpoint stiffness (§7.1, §7.3), reference strains. */
    const cr_material *mat = &def->material;
    for (int e = 0; e < n; ++e) {
        cr_element *el = &m->el[e];
        el->length = cr_v3_norm(cr_v3_sub(m->ref_r[e + 1], m->ref_r[e]));
        el->s_mid = 0.5 * (m->s[e] + m->s[e + 1]);
        cr_section_props sp;
        cr_section_eval(def, el->s_mid / L, &sp);
        el->k_force = cr_v3(mat->E * sp.A, mat->G * sp.A, mat->G * sp.A);
        el->k_moment = cr_v3(mat->G * sp.Jx, mat->E * sp.Iy, mat->E * sp.Iz);
        cr_element_strains(el, m->ref_r[e], m->ref_p[e], m->ref_r[e + 1], m->ref_p[e + 1], &el->gamma0, &el->kappa0);
    }
    /* Lumped lengths, eq. (1): half of each adjacent element chord. */
    for (int i = 0; i < nn; ++i) {
        m->lumped_length[i] = 0.5 * ((i > 0 ? m->el[i - 1].length : 0) + (i < n ? m->el[i].length : 0));
        cr_section_props sp;
        cr_section_eval(def, m->s[i] / L, &sp);
        m->area[i] = sp.A;
        double w = mat->rho * m->lumped_length[i];
        m->node_mass[i] = w * sp.A;
        m->node_inertia[i] = cr_v3(w * sp.Jx, w * sp.Iy, w * sp.Iz);
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
                offset_at(l, &sp, m->s[i] / L, &t->offset[i - t->first]);
            }
        }
    }

    /* Boundary conditions. */
    for (int i = 0; i < nn; ++i) m->bc_type[i] = -1;
    for (int k = 0; k < def->bc_count; ++k) {
        const cr_bc_def *b = &def->bcs[k];
        int node = b->node < 0 ? b->node + nn : b->node;
        if (m->bc_type[node] >= 0) {
            cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.node: node %d already has a boundary condition", k, node);
            cr_model_destroy(m);
            return NULL;
        }
        m->bc_type[node] = (int)b->type;
        if (b->type == CR_BC_POSE) {
            cr_quat q = cr_q_normalize(b->orientation);
            if (cr_q_dot(q, m->ref_p[node]) < 0) q = cr_q_scale(q, -1.0);
            m->bc_position[node] = b->position;
            m->bc_orientation[node] = q;
        } else {
            m->bc_position[node] = m->ref_r[node];
            m->bc_orientation[node] = m->ref_p[node];
        }
    }
    return m;
oom:
    cr_model_destroy(m);
    cr_error_set(err, CR_NO_MEMORY, "out of memory while building the model");
    return NULL;
}

void cr_model_bc_target(const cr_model *m, int node, double lf, cr_vec3 *r, cr_quat *p)
{
    if (m->bc_type[node] == CR_BC_CLAMP) {
        *r = m->ref_r[node];
        *p = m->ref_p[node];
        return;
    }
    *r = cr_v3_madd(m->ref_r[node], lf, cr_v3_sub(m->bc_position[node], m->ref_r[node]));
    *p = cr_q_slerp(m->ref_p[node], m->bc_orientation[node], lf);
    if (cr_q_dot(*p, m->ref_p[node]) < 0) *p = cr_q_scale(*p, -1.0);
}

int cr_model_node_count(const cr_model *m) { return m->nodes; }
int cr_model_element_count(const cr_model *m) { return m->n; }
double cr_model_length(const cr_model *m) { return m->length; }
double cr_model_node_s(const cr_model *m, int i) { return m->s[i]; }
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
    s->velocity = calloc((size_t)m->nodes * 6, sizeof *s->velocity);
    s->stress = calloc((size_t)m->n * 6, sizeof *s->stress);
    if (!s->x || !s->load_scale || !s->velocity || !s->stress) {
        cr_state_destroy(s);
        return NULL;
    }
    for (int i = 0; i < m->nodes; ++i) cr_state_set_pose(s, i, m->ref_r[i], m->ref_p[i]);
    return s;
}

void cr_state_destroy(cr_state *s)
{
    if (!s) return;
    free(s->x);
    free(s->load_scale);
    free(s->velocity);
    free(s->stress);
    free(s);
}

void cr_state_copy(cr_state *dst, const cr_state *src)
{
    const cr_model *m = src->model;
    dst->load_factor = src->load_factor;
    dst->bc_factor = src->bc_factor;
    dst->time = src->time;
    memcpy(dst->x, src->x, (size_t)m->nodes * m->block * sizeof *dst->x);
    memcpy(dst->load_scale, src->load_scale, (m->load_count > 0 ? m->load_count : 1) * sizeof(double));
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

double cr_time_function_eval(const cr_time_function *f, double t)
{
    switch (f->type) {
    case CR_TIME_CONSTANT: return 1.0;
    case CR_TIME_RAMP: return t <= f->t0 ? 0.0 : t >= f->t1 ? 1.0 : (t - f->t0) / (f->t1 - f->t0);
    case CR_TIME_SMOOTH_STEP: {
        if (t <= f->t0) return 0.0;
        if (t >= f->t1) return 1.0;
        double u = (t - f->t0) / (f->t1 - f->t0);
        return u * u * u * (10 + u * (-15 + 6 * u)); /* C² quintic */
    }
    case CR_TIME_SINE: return f->offset + f->amplitude * sin(2 * M_PI * f->frequency * t + f->phase);
    case CR_TIME_TABLE: {
        const cr_time_point *p = f->points;
        int n = f->point_count;
        if (n < 1) return 0.0;
        if (t <= p[0].t) return p[0].value;
        if (t >= p[n - 1].t) return p[n - 1].value;
        int j = 0;
        while (j < n - 2 && t > p[j + 1].t) ++j;
        return p[j].value + (t - p[j].t) / (p[j + 1].t - p[j].t) * (p[j + 1].value - p[j].value);
    }
    }
    return 1.0;
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
    h = fnv(h, m->bc_type, m->nodes * sizeof *m->bc_type);
    h = fnv(h, m->bc_position, m->nodes * sizeof *m->bc_position);
    h = fnv(h, m->bc_orientation, m->nodes * sizeof *m->bc_orientation);
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
    return h;
}
