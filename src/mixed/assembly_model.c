/* An assembly of mixed discrete rods: discretization of the definition, its state, the
 * joints' reactions and the redundancy check of the joints' constraints. */
#include "assembly/assembly_def.h"
#include "mixed/assembly_internal.h"
#include "mixed/supports.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cr_assembly_destroy(cr_assembly *a)
{
    if (!a) return;
    if (a->smodels)
        for (int i = 0; i < a->rod_count; ++i)
            if (a->smodels[i] && a->smodels[i] != a->models[i]) { /* a view: its own support array only */
                free(a->smodels[i]->supports);
                free(a->smodels[i]);
            }
    if (a->models)
        for (int i = 0; i < a->rod_count; ++i) cr_model_destroy(a->models[i]);
    free(a->models);
    free(a->names);
    if (a->joints)
        for (int k = 0; k < a->joint_count; ++k) free((void *)a->joints[k].drive_time.points);
    free(a->joints);
    free(a->iface);
    free(a->rod_iface_start);
    free(a->rod_iface);
    if (a->body_loads)
        for (int k = 0; k < a->body_load_count; ++k) free((void *)a->body_loads[k].time.points);
    free(a->body_loads);
    free(a->bodies);
    cr_asm_contact_destroy(a->contact);
    free(a->smodels);
    free(a->supports);
    free(a);
}

/* The supports on joint nodes (cr_asm_support) and the rods' static views without them
 * (cr_assembly.smodels). CR_OK or CR_NO_MEMORY. */
static cr_status supports_create(cr_assembly *a, const cr_assembly_def *def)
{
    int n = 0;
    a->smodels = calloc((size_t)a->rod_count, sizeof *a->smodels);
    if (!a->smodels) return CR_NO_MEMORY;
    for (int r = 0; r < a->rod_count; ++r)
        for (int k = 0; k < a->models[r]->support_count; ++k)
            for (int q = a->rod_iface_start[r]; q < a->rod_iface_start[r + 1]; ++q)
                n += a->iface[a->rod_iface[q]].node == a->models[r]->supports[k].node;
    a->supports = calloc(n > 0 ? (size_t)n : 1, sizeof *a->supports);
    if (!a->supports) return CR_NO_MEMORY;
    int row = 0;
    for (int r = 0; r < a->rod_count; ++r) {
        const cr_model *m = a->models[r];
        int own = 0;
        for (int k = 0; k < m->support_count; ++k) {
            int iface = -1;
            for (int q = a->rod_iface_start[r]; q < a->rod_iface_start[r + 1]; ++q)
                if (a->iface[a->rod_iface[q]].node == m->supports[k].node) iface = a->rod_iface[q];
            if (iface < 0) {
                ++own;
                continue;
            }
            cr_asm_support *sp = &a->supports[a->support_count++];
            sp->rod = r, sp->k = k, sp->iface = iface;
            const unsigned h = m->supports[k].hold;
            for (int b = 0; b < 6; ++b) sp->rows += (h >> b) & 1u;
            sp->row0 = a->rows + row;
            row += sp->rows;
            snprintf(sp->label, sizeof sp->label, "rods.%d ('%s').boundary_conditions.%d", r, def->rods[r].name, k);
        }
        if (own == m->support_count) {
            a->smodels[r] = a->models[r];
            continue;
        }
        /* the view: the same model with only the supports on its other nodes (the supports'
         * time tables and splines stay the model's) */
        cr_model *v = malloc(sizeof *v);
        cr_support *list = malloc((size_t)(own > 0 ? own : 1) * sizeof *list);
        if (!v || !list) {
            free(v), free(list);
            return CR_NO_MEMORY;
        }
        *v = *m;
        v->supports = list, v->support_count = 0;
        for (int k = 0; k < m->support_count; ++k) {
            int on_iface = 0;
            for (int q = a->rod_iface_start[r]; q < a->rod_iface_start[r + 1]; ++q)
                on_iface |= a->iface[a->rod_iface[q]].node == m->supports[k].node;
            if (!on_iface) list[v->support_count++] = m->supports[k];
        }
        a->smodels[r] = v;
    }
    a->support_rows = row;
    return CR_OK;
}

static int iface_of(cr_assembly *a, int rod, int node)
{
    for (int i = 0; i < a->iface_count; ++i)
        if (a->iface[i].rod == rod && a->iface[i].node == node) return i;
    a->iface[a->iface_count] = (cr_asm_iface){rod, node};
    return a->iface_count++;
}

/* a unit vector normal to h */
static cr_vec3 normal_to(cr_vec3 h)
{
    cr_vec3 e = fabs(h.x) < 0.6 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
    return cr_v3_normalize(cr_v3_sub(e, cr_v3_scale(h, cr_v3_dot(e, h))));
}

cr_assembly *cr_assembly_create(const cr_assembly_def *def, cr_error *err)
{
    if (cr_assembly_validate(def, err) != CR_OK) return NULL;
    cr_assembly *a = calloc(1, sizeof *a);
    if (!a) return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly"), NULL;
    a->rod_count = def->rod_count, a->joint_count = def->joint_count;
    int nj = def->joint_count > 0 ? def->joint_count : 1;
    a->models = calloc(def->rod_count, sizeof *a->models);
    a->names = calloc(def->rod_count, sizeof *a->names);
    a->joints = calloc(nj, sizeof *a->joints);
    a->iface = calloc(2 * nj, sizeof *a->iface);
    a->rod_iface_start = calloc(def->rod_count + 1, sizeof *a->rod_iface_start);
    a->rod_iface = calloc(2 * nj, sizeof *a->rod_iface);
    if (!a->models || !a->names || !a->joints || !a->iface || !a->rod_iface_start || !a->rod_iface) {
        cr_assembly_destroy(a);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly"), NULL;
    }
    for (int i = 0; i < def->rod_count; ++i) {
        memcpy(a->names[i], def->rods[i].name, sizeof a->names[i]);
        cr_error e = {0};
        cr_rod_def rod = def->rods[i].rod;
        rod.contact.self = 0; /* a rod's contact with itself is the assembly's (assembly_contact.c) */
        a->models[i] = cr_model_create(&rod, &e);
        if (!a->models[i]) {
            cr_assembly_destroy(a);
            return cr_error_set(err, e.status ? e.status : CR_BAD_INPUT, "rods.%d ('%s'): %s", i, def->rods[i].name,
                                e.message),
                   NULL;
        }
        a->scale_length = fmax(a->scale_length, cr_model_length(a->models[i]));
    }

    int row = 0;
    for (int k = 0; k < def->joint_count; ++k) {
        const cr_joint_def *jd = &def->joints[k];
        cr_asm_joint *j = &a->joints[k];
        j->type = jd->type;
        cr_joint_label(def, k, j->label, sizeof j->label);
        /* an end on a free body: the body's interface (rod −1), its point */
        cr_quat qe[2];
        cr_vec3 pe[2];
        for (int e = 0; e < 2; ++e) {
            const cr_joint_end end = cr_joint_end_of(jd, e);
            cr_assembly_end_reference_pose(def, end, &pe[e], &qe[e]);
            j->on_body[e] = end.body != 0;
            j->point[e] = j->on_body[e] ? end.point : cr_v3(0, 0, 0);
            j->iface[e] = j->on_body[e]
                              ? iface_of(a, -1, end.body - 1)
                              : iface_of(a, end.rod, cr_assembly_node_index(&def->rods[end.rod].rod, end.node));
        }
        static const int rows_of[6] = {6, 3, 5, 5, 4, 4}, pos_rows_of[6] = {3, 3, 3, 2, 2, 3}; /* by type */
        j->rows = rows_of[jd->type], j->pos_rows = pos_rows_of[jd->type];
        j->row0 = row;
        row += j->rows;
        j->rel_ref = cr_q_normalize(cr_q_mul(cr_q_conj(qe[0]), qe[1]));
        if (jd->type == CR_JOINT_WELD && jd->has_rotation) {
            /* the rotation vector (b's frame) from the reference's relative rotation to the given one */
            cr_quat q = cr_q_mul(cr_q_conj(j->rel_ref), cr_q_normalize(jd->rotation));
            if (q.w < 0) q = cr_q_scale(q, -1.0);
            cr_vec3 v = cr_q_vec(q);
            double s = cr_v3_norm(v);
            j->phi = s > 0 ? cr_v3_scale(v, 2.0 * atan2(s, q.w) / s) : cr_v3(0, 0, 0);
        }
        if (jd->type == CR_JOINT_HINGE || jd->type == CR_JOINT_PRISMATIC || jd->type == CR_JOINT_CYLINDRICAL) {
            cr_vec3 h = cr_v3_normalize(jd->axis);
            j->u1 = normal_to(h);
            j->u2 = cr_v3_cross(h, j->u1);
            j->axis_b = cr_m3_tmulv(cr_q_exp(j->rel_ref), h);
        }
        if (jd->type == CR_JOINT_PRISMATIC || jd->type == CR_JOINT_CYLINDRICAL) j->h = cr_v3_normalize(jd->axis);
        if (cr_joint_has_gap(def, k)) { /* the position rows' values in the reference, closed as (1 − f) gap0 */
            const cr_vec3 d0 = cr_v3_sub(pe[1], pe[0]);
            const cr_mat3 Aa = cr_q_exp(qe[0]);
            for (int r = 0; r < 3; ++r) /* r_b − r_a, or a slider's (A_a u_k)·(r_b − r_a) */
                if (j->pos_rows == 3)
                    j->gap0[r] = cr_v3_get(d0, r);
                else if (r < 2)
                    j->gap0[r] = cr_v3_dot(cr_m3_mulv(Aa, r == 0 ? j->u1 : j->u2), d0);
        }
        j->stages = jd->stages;
        if (jd->has_drive && jd->drive_slide) {
            j->slide_drive = 1, j->rows += 1, row += 1;
            j->drive_position = jd->drive_position;
        } else if (jd->has_drive) {
            j->drive = 1, j->rows += 1, row += 1;
            j->drive_angle = jd->drive_angle;
        }
        if (jd->has_drive) {
            j->drive_time = jd->drive_time;
            j->drive_time.points = NULL;
            if (jd->drive_time.type == CR_TIME_TABLE && jd->drive_time.point_count > 0) {
                cr_time_point *pt = malloc((size_t)jd->drive_time.point_count * sizeof *pt);
                if (!pt) {
                    cr_assembly_destroy(a);
                    return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly"), NULL;
                }
                memcpy(pt, jd->drive_time.points, (size_t)jd->drive_time.point_count * sizeof *pt);
                j->drive_time.points = pt;
            }
        }
        /* the spring rows (last): a rotation's, then a slide's */
        const double kr = jd->stiffness, cr = jd->damping;
        if ((kr > 0 || cr > 0) && (jd->type == CR_JOINT_HINGE || jd->type == CR_JOINT_CYLINDRICAL)) {
            j->spring_kind[j->springs] = CR_SPRING_ANGLE, j->k[j->springs] = kr, j->rest[j->springs] = jd->rest,
            j->c[j->springs++] = cr;
        } else if ((kr > 0 || cr > 0) && (jd->type == CR_JOINT_BALL || jd->type == CR_JOINT_UNIVERSAL)) {
            for (int i = 0; i < 3; ++i)
                j->spring_kind[j->springs] = CR_SPRING_ROT + i, j->k[j->springs] = kr, j->c[j->springs++] = cr;
        } else if ((kr > 0 || cr > 0) && jd->type == CR_JOINT_PRISMATIC) {
            j->spring_kind[j->springs] = CR_SPRING_SLIDE, j->k[j->springs] = kr, j->rest[j->springs] = jd->rest,
            j->c[j->springs++] = cr;
        }
        if ((jd->slide_stiffness > 0 || jd->slide_damping > 0) && jd->type == CR_JOINT_CYLINDRICAL)
            j->spring_kind[j->springs] = CR_SPRING_SLIDE, j->k[j->springs] = jd->slide_stiffness,
            j->rest[j->springs] = jd->slide_rest, j->c[j->springs++] = jd->slide_damping;
        /* the limit rows (after the springs): a rotation's or a prismatic joint's slide, then a
         * cylindrical joint's slide; ε the given stiffness, else the stiffest element's (rotation:
         * min(EI, GJ)/L_e, the moment per radian at the end of one element; slide: min(EA/L_e,
         * 12 EI/L_e³), as the obstacles' contact.stiffness) */
        for (int q = 0; q < 2; ++q) {
            if (!(q ? jd->has_slide_limit : jd->has_limit)) continue;
            const int slide = q == 1 || jd->type == CR_JOINT_PRISMATIC;
            double eps = q ? jd->slide_limit_stiffness : jd->limit_stiffness;
            if (!(eps > 0))
                for (int r = 0; r < a->rod_count; ++r)
                    for (int e = 0; e < a->models[r]->n; ++e) {
                        const cr_element *el = &a->models[r]->el[e];
                        const double Le = el->length, EI = fmin(el->k_moment.y, el->k_moment.z);
                        eps = fmax(eps, slide ? fmin(el->k_force.x / Le, 12.0 * EI / (Le * Le * Le))
                                              : fmin(EI, el->k_moment.x) / Le);
                    }
            const double *lim = q ? jd->slide_limit : jd->limit;
            const int n = j->springs++;
            j->spring_kind[n] = slide ? CR_SPRING_LIMIT_SLIDE : CR_SPRING_LIMIT_ANGLE;
            j->k[n] = eps, j->c[n] = 0.0, j->rest[n] = 0.0, j->lo[n] = lim[0], j->hi[n] = lim[1];
        }
        j->rows += j->springs, row += j->springs;
        if (jd->type == CR_JOINT_UNIVERSAL) {
            /* h_b made exactly normal to h_a (validated to 1e-6 rad) so that g = 0 in the reference */
            cr_vec3 ha = cr_v3_normalize(jd->axis), hb = cr_v3_normalize(jd->axis_b);
            hb = cr_v3_normalize(cr_v3_sub(hb, cr_v3_scale(ha, cr_v3_dot(ha, hb))));
            j->u1 = ha;
            j->axis_b = cr_m3_tmulv(cr_q_exp(j->rel_ref), hb);
        }
    }
    a->rows = row;
    if (cr_asm_bodies_create(a, def, err) != CR_OK) {
        cr_assembly_destroy(a);
        return NULL;
    }
    /* Every node a joint touches is held by its rod during the solve (assembly_statics.c). A
     * rod with rigid strain components held at two nodes is then over-constrained on its own
     * (an inextensible rod between two held points: its axial force is not determined by the
     * rod), although the assembly is not: not supported yet. */
    for (int r = 0; r < def->rod_count; ++r) {
        const cr_rod_def *rd = &def->rods[r].rod;
        if (!rd->rigid_strains) continue;
        int held = 0, first = -1;
        for (int n = 0; n <= rd->elements && held < 2; ++n) {
            int h = 0;
            for (int c = 0; c < rd->bc_count && !h; ++c) h = cr_assembly_node_index(rd, rd->bcs[c].node) == n;
            for (int i = 0; i < a->iface_count && !h; ++i) h = a->iface[i].rod == r && a->iface[i].node == n;
            if (h) held++, first = first < 0 ? n : first;
        }
        if (held >= 2) {
            cr_assembly_destroy(a);
            return cr_error_set(err, CR_UNSUPPORTED,
                                "rods.%d ('%s').rigid_strains: a rod with rigid strain components held at two or "
                                "more nodes (supports and joint nodes) is not supported in assemblies yet (the "
                                "solver holds each joint node, and such a rod is then over-constrained on its "
                                "own); give its strains a finite stiffness",
                                r, def->rods[r].name),
                   NULL;
        }
    }
    /* each rod's interface nodes, rod by rod */
    int at = 0;
    for (int r = 0; r < a->rod_count; ++r) {
        a->rod_iface_start[r] = at;
        for (int i = 0; i < a->iface_count; ++i)
            if (a->iface[i].rod == r) a->rod_iface[at++] = i;
    }
    a->rod_iface_start[a->rod_count] = at;
    if (supports_create(a, def) != CR_OK) {
        cr_assembly_destroy(a);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory creating the assembly"), NULL;
    }
    /* contact.rods, contact.self: after the joints, whose nodes' neighbourhoods do not touch */
    const cr_contact_def *cd = &def->rods[0].rod.contact;
    if (((def->rod_count > 1 && cd->rods) || cd->self) && cr_asm_contact_create(a, def, err) != CR_OK) {
        cr_assembly_destroy(a);
        return NULL;
    }
    return a;
}

int cr_assembly_rod_count(const cr_assembly *a) { return a->rod_count; }
int cr_assembly_joint_count(const cr_assembly *a) { return a->joint_count; }
const cr_model *cr_assembly_rod_model(const cr_assembly *a, int rod)
{
    return rod >= 0 && rod < a->rod_count ? a->models[rod] : NULL;
}
int cr_assembly_rod_index(const cr_assembly *a, const char *name)
{
    for (int i = 0; i < a->rod_count; ++i)
        if (strcmp(a->names[i], name) == 0) return i;
    return -1;
}

void cr_assembly_state_destroy(cr_assembly_state *s)
{
    if (!s) return;
    if (s->rods)
        for (int i = 0; i < s->assembly->rod_count; ++i) cr_state_destroy(s->rods[i]);
    free(s->rods);
    free(s->lambda);
    free(s->body);
    free(s->body_load_scale);
    free(s->limit_ref), free(s->limit_hat), free(s->drive_input), free(s->drive_from), free(s->drive_rate);
    free(s->drive_to);
    free(s);
}

cr_assembly_state *cr_assembly_state_create(const cr_assembly *a)
{
    cr_assembly_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->assembly = a;
    s->rods = calloc(a->rod_count, sizeof *s->rods);
    s->lambda = calloc(a->rows + a->support_rows > 0 ? (size_t)(a->rows + a->support_rows) : 1, sizeof *s->lambda);
    s->body = calloc((size_t)CR_ASM_BODY_DOF * (a->body_count > 0 ? a->body_count : 1), sizeof *s->body);
    s->body_load_scale = calloc(a->body_load_count > 0 ? a->body_load_count : 1, sizeof *s->body_load_scale);
    s->limit_ref = calloc(a->rows > 0 ? a->rows : 1, sizeof *s->limit_ref);
    s->limit_hat = calloc(a->rows > 0 ? a->rows : 1, sizeof *s->limit_hat);
    s->drive_input = calloc(a->joint_count > 0 ? a->joint_count : 1, sizeof *s->drive_input);
    s->drive_from = calloc(a->joint_count > 0 ? a->joint_count : 1, sizeof *s->drive_from);
    s->drive_rate = calloc(a->joint_count > 0 ? a->joint_count : 1, sizeof *s->drive_rate);
    s->drive_to = calloc(a->joint_count > 0 ? a->joint_count : 1, sizeof *s->drive_to);
    if (!s->rods || !s->lambda || !s->body || !s->body_load_scale || !s->limit_ref || !s->limit_hat ||
        !s->drive_input || !s->drive_from || !s->drive_rate || !s->drive_to) {
        cr_assembly_state_destroy(s);
        return NULL;
    }
    for (int i = 0; i < a->rod_count; ++i)
        if (!(s->rods[i] = cr_state_create(a->models[i]))) {
            cr_assembly_state_destroy(s);
            return NULL;
        }
    for (int k = 0; k < a->joint_count; ++k) s->drive_input[k] = s->drive_from[k] = s->drive_to[k] = 1.0;
    for (int b = 0; b < a->body_count; ++b) { /* the reference pose, at rest */
        cr_v3_store(a->bodies[b].r0, s->body + (size_t)CR_ASM_BODY_DOF * b);
        cr_q_store(a->bodies[b].p0, s->body + (size_t)CR_ASM_BODY_DOF * b + 3);
    }
    return s;
}

cr_state *cr_assembly_state_rod(cr_assembly_state *s, int rod)
{
    return rod >= 0 && rod < s->assembly->rod_count ? s->rods[rod] : NULL;
}
double cr_assembly_state_load_factor(const cr_assembly_state *s) { return s->load_factor; }

cr_status cr_assembly_joint_reaction(const cr_assembly *a, const cr_assembly_state *s, int joint, cr_vec3 *force,
                                     cr_vec3 *moment)
{
    if (joint < 0 || joint >= a->joint_count) return CR_BAD_INPUT;
    const cr_asm_joint *j = &a->joints[joint];
    cr_vec3 ra, rb;
    cr_quat pa, pb;
    cr_asm_iface_pose(a, s, j->iface[0], &ra, &pa);
    cr_asm_iface_pose(a, s, j->iface[1], &rb, &pb);
    /* at a body's point: the wrench about that point */
    if (j->on_body[0]) ra = cr_v3_add(ra, cr_m3_mulv(cr_q_exp(pa), j->point[0]));
    if (j->on_body[1]) rb = cr_v3_add(rb, cr_m3_mulv(cr_q_exp(pb), j->point[1]));
    double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
    /* a drive row's wrench direction at the measured angle φ: at g = 0 (φ = θ) the row's
     * moment is −λ h whatever θ is, so the state need not know the stage's time */
    double drv[3] = {0, 0, 0};
    if (j->drive) {
        cr_mat3 R = cr_m3_mul(cr_m3_transpose(cr_q_exp(pa)), cr_q_exp(pb));
        cr_vec3 t = cr_m3_tmulv(cr_q_exp(j->rel_ref), j->u1), v = cr_m3_mulv(R, t); /* Rot(h, φ) u1 */
        drv[0] = atan2(cr_v3_dot(v, j->u2), cr_v3_dot(v, j->u1));
    }
    cr_asm_joint_eval(j, s->joint_factor, j->drive ? drv : NULL, ra, pa, rb, pb, NULL, g, C, NULL);
    /* Cᵀλ on a's six increments: the force in I, the moment in a's basis */
    const double *l = s->lambda + j->row0;
    double w[6] = {0};
    for (int r = 0; r < j->rows; ++r)
        for (int c = 0; c < 6; ++c) w[c] += C[r * 12 + c] * l[r];
    if (force) *force = cr_v3_load(w);
    if (moment) *moment = cr_m3_mulv(cr_q_exp(pa), cr_v3_load(w + 3));
    return CR_OK;
}

int cr_assembly_joint_limit(const cr_assembly *a, const cr_assembly_state *s, int joint, int which, double *value,
                            double *force)
{
    if (joint < 0 || joint >= a->joint_count) return 0;
    const cr_asm_joint *j = &a->joints[joint];
    int n = 0;
    for (int q = 0; q < j->springs; ++q) {
        if (!cr_asm_is_limit_kind(j->spring_kind[q]) || n++ != which) continue;
        cr_vec3 ra, rb;
        cr_quat pa, pb;
        cr_asm_iface_pose(a, s, j->iface[0], &ra, &pa);
        cr_asm_iface_pose(a, s, j->iface[1], &rb, &pb);
        double g[CR_ASM_MAX_ROWS], ph, k;
        const int r = j->rows - j->springs + q;
        cr_asm_joint_eval_iface(j, s->joint_factor, NULL, ra, pa, rb, pb, NULL, g, NULL, NULL);
        cr_asm_row_law(j, s, s->stage, r, g[r], &k, NULL, NULL, &ph);
        if (value) *value = ph;
        if (force) *force = k > 0 ? s->lambda[j->row0 + r] : 0.0; /* not pressing: 0, not round-off */
        return 1;
    }
    return 0;
}

/* which of a joint's rows row k is, for messages */
static const char *row_name(const cr_asm_joint *j, int k)
{
    static const char *pos[3] = {"translation along x", "translation along y", "translation along z"};
    if (k < j->pos_rows) return j->pos_rows == 3 ? pos[k] : "a translation normal to its axis";
    if (k >= j->rows - j->springs)
        return cr_asm_is_limit_kind(j->spring_kind[k - (j->rows - j->springs)]) ? "its limit" : "its spring";
    if (j->slide_drive && k == j->rows - j->springs - 1) return "its drive (the slide along its axis)";
    if (j->drive && k == j->pos_rows + 2) return "its drive (the rotation about its axis)";
    if (j->type == CR_JOINT_UNIVERSAL) return "the rotation about the common normal of its two axes";
    return j->type == CR_JOINT_HINGE || j->type == CR_JOINT_CYLINDRICAL ? "a rotation normal to its axis"
                                                                        : "a rotation";
}

/* Whether joint j's rows (its rows that are constraints) are independent of every other
 * joint's: they are when their columns at its interface nodes that no other remaining joint
 * touches (own[e]: side e is such a node) have full row rank, since no combination of the
 * others' rows reaches those columns. C: the joint's rows (rows × 12). */
static int rows_independent_alone(const cr_asm_joint *j, const cr_assembly_state *s, const double *C, const int own[2])
{
    double q[CR_ASM_MAX_ROWS][12];
    int n = 0;
    for (int r = 0; r < j->rows; ++r) {
        if (cr_asm_row_compliant(j, s->stage, r, NULL, NULL)) continue;
        double n0 = 0, n1 = 0;
        for (int c = 0; c < 12; ++c) {
            n0 += C[r * 12 + c] * C[r * 12 + c];
            q[n][c] = own[c / 6] ? C[r * 12 + c] : 0.0;
        }
        for (int pass = 0; pass < 2; ++pass)
            for (int l = 0; l < n; ++l) {
                double dot = 0;
                for (int c = 0; c < 12; ++c) dot += q[l][c] * q[n][c];
                for (int c = 0; c < 12; ++c) q[n][c] -= dot * q[l][c];
            }
        for (int c = 0; c < 12; ++c) n1 += q[n][c] * q[n][c];
        /* the test below, against the whole row (a row barely reaching its own columns is
         * left to it) */
        if (!(n1 > 1e-20 * n0)) return 0;
        const double inv = 1.0 / sqrt(n1);
        for (int c = 0; c < 12; ++c) q[n][c] *= inv;
        ++n;
    }
    return 1;
}

/* The label of row m of the redundancy check's order (the supports on joint nodes' rows first,
 * then the joints'), and the item (−1 − support, or the joint) */
static int check_item(const cr_assembly *a, int m)
{
    const int ns = a->support_rows;
    if (m < ns) {
        int k = 0;
        while (k + 1 < a->support_count && a->supports[k + 1].row0 - a->rows <= m) ++k;
        return -1 - k;
    }
    int jm = 0;
    while (jm + 1 < a->joint_count && a->joints[jm + 1].row0 <= m - ns) ++jm;
    return jm;
}

cr_status cr_asm_check_redundant(const cr_assembly *a, const cr_assembly_state *s, double f, cr_error *err)
{
    /* the supports on joint nodes hold their nodes first (their rows never repeat each other: one
     * support a node), then the joints in their order; ns: the supports' rows */
    const int ns = a->support_rows, nr = a->rows + ns, nc = 6 * a->iface_count;
    if (nr == 0) return CR_OK;
    /* Joints whose rows are independent of all others' on their own interface columns (a rod's
     * end on a body, the leaves of a tree, then the leaves of what remains) cannot be part of
     * a dependent set: they are set aside first, so that many rods on one body cost O(joints)
     * and not the Gram–Schmidt's O(rows² · columns) below, which sees only what remains
     * (closed loops). */
    int *touch = calloc((size_t)a->iface_count, sizeof *touch);
    char *gone = calloc((size_t)a->joint_count, 1);
    double *C = malloc(CR_ASM_MAX_ROWS * 12 * sizeof *C), g[CR_ASM_MAX_ROWS];
    if (!touch || !gone || !C) {
        free(touch), free(gone), free(C);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory checking the joints");
    }
    for (int k = 0; k < a->joint_count; ++k) ++touch[a->joints[k].iface[0]], ++touch[a->joints[k].iface[1]];
    for (int k = 0; k < a->support_count; ++k) ++touch[a->supports[k].iface]; /* never set aside below */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < a->joint_count; ++k) {
            const cr_asm_joint *j = &a->joints[k];
            const int own[2] = {touch[j->iface[0]] == 1, touch[j->iface[1]] == 1};
            if (gone[k] || (!own[0] && !own[1])) continue;
            cr_vec3 ra, rb;
            cr_quat pa, pb;
            cr_asm_iface_pose(a, s, j->iface[0], &ra, &pa);
            cr_asm_iface_pose(a, s, j->iface[1], &rb, &pb);
            cr_asm_joint_eval_iface(j, f, NULL, ra, pa, rb, pb, NULL, g, C, NULL);
            if (!rows_independent_alone(j, s, C, own)) continue;
            gone[k] = 1, changed = 1;
            --touch[j->iface[0]], --touch[j->iface[1]];
        }
    }
    free(touch);
    int left = 0;
    for (int k = 0; k < a->joint_count; ++k) left += !gone[k];
    if (left == 0) {
        free(gone), free(C);
        return CR_OK;
    }
    /* Q: orthonormalized rows; T: Q = T · (original rows), kept to name the joints a dependent row repeats */
    double *Q = calloc((size_t)nr * nc, sizeof *Q), *T = calloc((size_t)nr * nr, sizeof *T);
    char *zero = calloc((size_t)nr, 1); /* rows left out (zero): no Gram–Schmidt step against them */
    if (!Q || !T || !zero) {
        free(Q), free(T), free(C), free(gone), free(zero);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory checking the joints");
    }
    for (int k = 0; k < a->joint_count; ++k) {
        const cr_asm_joint *j = &a->joints[k];
        if (gone[k]) continue;
        cr_vec3 ra, rb;
        cr_quat pa, pb;
        cr_asm_iface_pose(a, s, j->iface[0], &ra, &pa);
        cr_asm_iface_pose(a, s, j->iface[1], &rb, &pb);
        cr_asm_joint_eval_iface(j, f, NULL, ra, pa, rb, pb, NULL, g, C, NULL);
        for (int r = 0; r < j->rows; ++r)
            for (int c = 0; c < 6; ++c) {
                Q[(size_t)(ns + j->row0 + r) * nc + 6 * j->iface[0] + c] += C[r * 12 + c];
                Q[(size_t)(ns + j->row0 + r) * nc + 6 * j->iface[1] + c] += C[r * 12 + 6 + c];
            }
    }
    cr_status st = CR_OK;
    for (int k = 0; k < a->support_count; ++k) { /* their rows at the node's pose, about its current target */
        const cr_asm_support *sp = &a->supports[k];
        const cr_support *su = &a->models[sp->rod]->supports[sp->k];
        const int q0 = sp->row0 - a->rows;
        if (!cr_support_active(su, s->stage)) {
            for (int r = 0; r < sp->rows; ++r) zero[q0 + r] = 1;
            continue;
        }
        cr_vec3 r0;
        cr_quat p0;
        cr_asm_iface_pose(a, s, sp->iface, &r0, &p0);
        double gs[6], Cs[36];
        cr_asm_support_eval(a, sp, r0, p0, r0, p0, NULL, gs, Cs, NULL); /* at the target: C's shape there */
        for (int r = 0; r < sp->rows; ++r)
            for (int c = 0; c < 6; ++c) Q[(size_t)(q0 + r) * nc + 6 * sp->iface + c] = Cs[r * 6 + c];
    }
    for (int r = 0; r < nr && st == CR_OK; ++r) {
        const int item = check_item(a, r);
        const cr_asm_joint *j = item >= 0 ? &a->joints[item] : NULL;
        const cr_asm_support *sp = item < 0 ? &a->supports[-1 - item] : NULL;
        double *q = Q + (size_t)r * nc, *t = T + (size_t)r * nr, n0 = 0, n1 = 0;
        /* a spring, or not acting; or set aside above (its rows are zero) */
        if (zero[r] || (j && (gone[item] || cr_asm_row_compliant(j, s->stage, r - ns - j->row0, NULL, NULL)))) {
            memset(q, 0, (size_t)nc * sizeof *q);
            zero[r] = 1;
            continue;
        }
        t[r] = 1.0;
        for (int c = 0; c < nc; ++c) n0 += q[c] * q[c];
        for (int pass = 0; pass < 2; ++pass) /* twice: Gram–Schmidt's orthogonality kept to round-off */
            for (int l = 0; l < r; ++l) {
                if (zero[l]) continue;
                const double *ql = Q + (size_t)l * nc;
                double dot = 0;
                for (int c = 0; c < nc; ++c) dot += ql[c] * q[c];
                for (int c = 0; c < nc; ++c) q[c] -= dot * ql[c];
                for (int m = 0; m <= l; ++m) t[m] -= dot * T[(size_t)l * nr + m];
            }
        for (int c = 0; c < nc; ++c) n1 += q[c] * q[c];
        if (n1 <= 1e-20 * n0) {
            /* q ≈ 0 = Σ t_m row_m: the joints (and supports) with a weight in t are the loop */
            char others[256] = "";
            size_t len = 0;
            int prev = INT_MIN, supported = 0;
            for (int m = 0; m < r; ++m) {
                if (!(fabs(t[m]) > 1e-8)) continue;
                const int jm = check_item(a, m);
                if (jm == prev || jm == item) continue;
                prev = jm;
                supported |= jm < 0;
                if (len < sizeof others - 100)
                    len += (size_t)snprintf(others + len, sizeof others - len, "%s%s", len ? ", " : "",
                                            jm < 0 ? a->supports[-1 - jm].label : a->joints[jm].label);
            }
            const char *what =
                j ? row_name(j, r - ns - j->row0) : cr_asm_support_row_name(a, sp, r - (sp->row0 - a->rows));
            if (!j)
                st = cr_error_set(err, CR_BAD_INPUT,
                                  "%s: its constraint on %s repeats the constraints of %s on the same joint node "
                                  "(over-constrained, the reactions are not determined); let one support hold it",
                                  sp->label, what, len ? others : "another support");
            else
                st = cr_error_set(err, CR_BAD_INPUT,
                                  supported
                                      ? "%s: its constraint on %s repeats the constraints of %s: the joint and the "
                                        "supports on its nodes hold the same direction twice with no rod in between "
                                        "(over-constrained, the reactions are not determined); remove the joint or a "
                                        "support, or make one hold fewer directions"
                                      : "%s: its constraint on %s repeats the constraints of %s: the joints close a "
                                        "loop with no rod in it (over-constrained, the reactions are not "
                                        "determined); remove the joint, or make it hold fewer directions",
                                  j->label, what, len ? others : "earlier joints");
            break;
        }
        double inv = 1.0 / sqrt(n1);
        for (int c = 0; c < nc; ++c) q[c] *= inv;
        for (int m = 0; m <= r; ++m) t[m] *= inv;
    }
    free(Q), free(T), free(C), free(gone), free(zero);
    return st;
}

cr_status cr_asm_support_reaction(const cr_assembly *a, const cr_assembly_state *s, int rod, int node, cr_vec3 *force,
                                  cr_vec3 *moment)
{
    const cr_state *st = s->rods[rod];
    const cr_model *m = a->models[rod];
    int iface = -1, active = 0;
    for (int k = 0; k < a->support_count; ++k) {
        const cr_asm_support *sp = &a->supports[k];
        if (sp->rod != rod || a->iface[sp->iface].node != node) continue;
        iface = sp->iface;
        active |= cr_support_active(&m->supports[sp->k], st->stage);
    }
    if (iface < 0 || !active) return CR_BAD_INPUT;
    double w[6] = {0};
    cr_vec3 r;
    cr_quat p;
    cr_asm_iface_pose(a, s, iface, &r, &p);
    if (!st->dynamic) { /* Cᵀλ of its rows */
        const cr_supports_at at = cr_state_supports_at(st);
        for (int k = 0; k < a->support_count; ++k) {
            const cr_asm_support *sp = &a->supports[k];
            if (sp->iface != iface || !cr_support_active(&m->supports[sp->k], st->stage)) continue;
            cr_vec3 rt;
            cr_quat pt;
            double g[6], C[36];
            cr_support_target(m, sp->k, &at, &rt, &pt, NULL, NULL, NULL, NULL);
            cr_asm_support_eval(a, sp, r, p, rt, pt, NULL, g, C, NULL);
            for (int q = 0; q < sp->rows; ++q)
                for (int c = 0; c < 6; ++c) w[c] += C[q * 6 + c] * s->lambda[sp->row0 + q];
        }
    } else { /* the rod's own reaction takes the joints' wrench for the support's: less Cᵀμ where held */
        cr_vec3 f0, m0;
        cr_status rs = cr_state_reaction(m, st, node, &f0, &m0);
        if (rs != CR_OK) return rs;
        cr_v3_store(f0, w), cr_v3_store(m0, w + 3);
        const cr_supports_at at = cr_state_supports_at(st);
        int held[13] = {0};
        for (int k = 0; k < m->support_count; ++k) {
            if (m->supports[k].node != node || !cr_support_active(&m->supports[k], st->stage)) continue;
            int rows[13];
            cr_supports_dynamic_held(m, &m->supports[k], &at, k, rows);
            for (int q = 0; q < 13; ++q) held[q] |= rows[q];
        }
        for (int jk = 0; jk < a->joint_count; ++jk) {
            const cr_asm_joint *j = &a->joints[jk];
            if (j->iface[0] != iface && j->iface[1] != iface) continue;
            cr_vec3 ra, rb;
            cr_quat pa, pb;
            cr_asm_iface_pose(a, s, j->iface[0], &ra, &pa);
            cr_asm_iface_pose(a, s, j->iface[1], &rb, &pb);
            double g[CR_ASM_MAX_ROWS], C[CR_ASM_MAX_ROWS * 12];
            cr_asm_joint_eval_iface(j, s->joint_factor, NULL, ra, pa, rb, pb, NULL, g, C, NULL);
            for (int side = 0; side < 2; ++side) {
                if (j->iface[side] != iface) continue;
                for (int c = 0; c < 6; ++c)
                    for (int q = 0; q < j->rows; ++q)
                        if (held[CR_DYN_V + c]) w[c] -= C[q * 12 + 6 * side + c] * s->lambda[j->row0 + q];
            }
        }
    }
    if (force) *force = cr_v3_load(w);
    if (moment) *moment = cr_v3_load(w + 3);
    return CR_OK;
}
