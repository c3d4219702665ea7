/* The assembly's definition: defaults and validation (shared by the formulations). */
#include "assembly/assembly_def.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

cr_assembly_def cr_assembly_default_def(void)
{
    cr_assembly_def d;
    memset(&d, 0, sizeof d);
    return d;
}

cr_joint_def cr_joint_default_def(void)
{
    cr_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = CR_JOINT_WELD;
    j.rotation = cr_q_identity();
    j.axis = cr_v3(0, 0, 1);
    j.axis_b = cr_v3(1, 0, 0);
    return j;
}

const char *cr_joint_type_name(cr_joint_type t)
{
    static const char *names[] = {"weld", "ball", "hinge", "prismatic", "cylindrical", "universal"};
    return t >= CR_JOINT_WELD && t <= CR_JOINT_UNIVERSAL ? names[t] : "?";
}

int cr_assembly_node_index(const cr_rod_def *rod, int node)
{
    int nn = rod->elements + 1;
    if (node < 0) node += nn;
    return node >= 0 && node < nn ? node : -1;
}

void cr_assembly_node_reference_pose(const cr_rod_def *rod, int i, cr_vec3 *position, cr_quat *orientation)
{
    if (rod->reference.type == CR_REFERENCE_NODES) {
        *position = rod->reference.node_positions[i];
        *orientation = cr_q_normalize(rod->reference.node_orientations[i]);
        return;
    }
    cr_rod_reference_pose(rod, rod->length * i / rod->elements, position, orientation);
}

const char *cr_joint_label(const cr_assembly_def *def, int k, char *buf, size_t size)
{
    const char *name = def->joints[k].name;
    if (memchr(name, '\0', sizeof def->joints[k].name) && name[0])
        snprintf(buf, size, "joints.%d ('%s')", k, name);
    else
        snprintf(buf, size, "joints.%d", k);
    return buf;
}

static int name_ok(const char *name, size_t size) { return memchr(name, '\0', size) && name[0]; }

/* one end of joint k: its rod and node in range, or its free body */
static cr_status check_end(const cr_assembly_def *def, int k, const char *which, cr_joint_end e, cr_error *err)
{
    char lb[96];
    cr_joint_label(def, k, lb, sizeof lb);
    if (e.body != 0) {
        if (e.body < 1 || e.body > def->body_count)
            return cr_error_set(err, CR_BAD_INPUT, "%s.%s.body: unknown free body %d (the assembly has %d, 1..%d)", lb,
                                which, e.body, def->body_count, def->body_count);
        double x[3] = {e.point.x, e.point.y, e.point.z};
        for (int c = 0; c < 3; ++c)
            if (!isfinite(x[c]))
                return cr_error_set(err, CR_BAD_INPUT, "%s.%s.point: must be finite (got %g, %g, %g)", lb, which, x[0],
                                    x[1], x[2]);
        return CR_OK;
    }
    if (e.rod < 0 || e.rod >= def->rod_count)
        return cr_error_set(err, CR_BAD_INPUT, "%s.%s.rod: unknown rod %d (the assembly has %d rod%s, 0..%d)", lb,
                            which, e.rod, def->rod_count, def->rod_count == 1 ? "" : "s", def->rod_count - 1);
    const cr_rod_def *r = &def->rods[e.rod].rod;
    if (cr_assembly_node_index(r, e.node) < 0)
        return cr_error_set(
            err, CR_BAD_INPUT,
            "%s.%s.node: node %d is out of range for rod '%s' (%d nodes: 0..%d, or -%d..-1 from the end)", lb, which,
            e.node, def->rods[e.rod].name, r->elements + 1, r->elements, r->elements + 1);
    return CR_OK;
}

cr_joint_end cr_joint_end_of(const cr_joint_def *j, int e)
{
    cr_joint_end o = {e ? j->b.rod : j->a.rod, e ? j->b.node : j->a.node, e ? j->body_b : j->body_a,
                      e ? j->point_b : j->point_a};
    return o;
}

void cr_assembly_end_reference_pose(const cr_assembly_def *def, cr_joint_end e, cr_vec3 *position, cr_quat *orientation)
{
    if (e.body != 0) {
        const cr_rigid_body_def *b = &def->bodies[e.body - 1];
        *orientation = cr_q_normalize(b->orientation);
        *position = cr_v3_add(b->center, cr_m3_mulv(cr_q_exp(*orientation), e.point));
        return;
    }
    const cr_rod_def *r = &def->rods[e.rod].rod;
    cr_assembly_node_reference_pose(r, cr_assembly_node_index(r, e.node), position, orientation);
}

/* "node N of rod 'R'" or "point (x, y, z) of body 'B'" */
static const char *end_text(const cr_assembly_def *def, cr_joint_end e, char *buf, size_t size)
{
    if (e.body != 0)
        snprintf(buf, size, "point (%g, %g, %g) of body '%s'", e.point.x, e.point.y, e.point.z,
                 def->bodies[e.body - 1].name);
    else
        snprintf(buf, size, "node %d of rod '%s'", cr_assembly_node_index(&def->rods[e.rod].rod, e.node),
                 def->rods[e.rod].name);
    return buf;
}

double cr_joint_reference_gap(const cr_assembly_def *def, int k)
{
    cr_vec3 pa, pb;
    cr_quat qa, qb;
    cr_assembly_end_reference_pose(def, cr_joint_end_of(&def->joints[k], 0), &pa, &qa);
    cr_assembly_end_reference_pose(def, cr_joint_end_of(&def->joints[k], 1), &pb, &qb);
    return cr_v3_norm(cr_v3_sub(pa, pb));
}

/* the longest rod's length (its nodes' polyline for a reference given by nodes): the gaps' scale */
static double longest_rod(const cr_assembly_def *def)
{
    double longest = 0.0;
    for (int i = 0; i < def->rod_count; ++i) {
        const cr_rod_def *r = &def->rods[i].rod;
        double L = r->length;
        if (r->reference.type == CR_REFERENCE_NODES) {
            L = 0.0;
            for (int k = 1; k <= r->elements; ++k)
                L += cr_v3_norm(cr_v3_sub(r->reference.node_positions[k], r->reference.node_positions[k - 1]));
        }
        longest = fmax(longest, L);
    }
    return longest;
}

int cr_joint_has_gap(const cr_assembly_def *def, int k)
{
    return !(cr_joint_reference_gap(def, k) <= CR_JOINT_GAP_TOL * longest_rod(def));
}

cr_status cr_assembly_refuse_gaps(const cr_assembly_def *def, const char *why, cr_error *err)
{
    for (int k = 0; k < def->joint_count; ++k) {
        if (!cr_joint_has_gap(def, k)) continue;
        char lb[96], ta[128], tb[128];
        cr_joint_label(def, k, lb, sizeof lb);
        end_text(def, cr_joint_end_of(&def->joints[k], 0), ta, sizeof ta);
        end_text(def, cr_joint_end_of(&def->joints[k], 1), tb, sizeof tb);
        return cr_error_set(err, CR_BAD_INPUT,
                            "%s: its points (%s and %s) are %.6g m apart in the reference, and %s: a joint's gap is "
                            "closed only through the load steps of a first static stage of model mixed_discrete",
                            lb, ta, tb, cr_joint_reference_gap(def, k), why);
    }
    return CR_OK;
}

static cr_status check_bodies(const cr_assembly_def *def, cr_error *err)
{
    if (def->body_count < 0 || (def->body_count > 0 && !def->bodies))
        return cr_error_set(err, CR_BAD_INPUT, "bodies: %d free bodies given without their definitions",
                            def->body_count);
    if (def->body_load_count < 0 || (def->body_load_count > 0 && !def->body_loads))
        return cr_error_set(err, CR_BAD_INPUT, "body_loads: %d loads given without their definitions",
                            def->body_load_count);
    for (int i = 0; i < def->body_count; ++i) {
        const cr_rigid_body_def *b = &def->bodies[i];
        if (!name_ok(b->name, sizeof b->name))
            return cr_error_set(err, CR_BAD_INPUT, "bodies.%d.name: a free body needs a name (1 to %d characters)", i,
                                (int)sizeof b->name - 1);
        for (int j = 0; j < i; ++j)
            if (strcmp(def->bodies[j].name, b->name) == 0)
                return cr_error_set(err, CR_BAD_INPUT, "bodies.%d.name: '%s' is also the name of bodies.%d", i, b->name,
                                    j);
        if (!(b->mass > 0) || !isfinite(b->mass))
            return cr_error_set(err, CR_BAD_INPUT, "bodies.%d ('%s').mass: must be positive and finite (got %g)", i,
                                b->name, b->mass);
        const cr_mat3 *J = &b->inertia;
        double d0 = J->m[0][0], d1 = d0 * J->m[1][1] - J->m[0][1] * J->m[1][0],
               d2 = J->m[0][0] * (J->m[1][1] * J->m[2][2] - J->m[1][2] * J->m[2][1]) -
                    J->m[0][1] * (J->m[1][0] * J->m[2][2] - J->m[1][2] * J->m[2][0]) +
                    J->m[0][2] * (J->m[1][0] * J->m[2][1] - J->m[1][1] * J->m[2][0]);
        if (!(d0 > 0 && d1 > 0 && d2 > 0) || !isfinite(d2))
            return cr_error_set(err, CR_BAD_INPUT, "bodies.%d ('%s').inertia: must be positive definite", i, b->name);
        double qn = sqrt(cr_q_norm2(b->orientation));
        if (!(qn > 0) || !isfinite(qn))
            return cr_error_set(err, CR_BAD_INPUT,
                                "bodies.%d ('%s').orientation: a finite nonzero quaternion is needed", i, b->name);
        int held = 0;
        for (int k = 0; k < def->joint_count && !held; ++k)
            held = def->joints[k].body_a == i + 1 || def->joints[k].body_b == i + 1;
        if (!held)
            return cr_error_set(err, CR_BAD_INPUT,
                                "bodies.%d ('%s'): no joint holds it (a free body needs at least one joint to a rod "
                                "or to another body)",
                                i, b->name);
    }
    for (int k = 0; k < def->body_load_count; ++k) {
        const cr_load_def *l = &def->body_loads[k];
        if (l->type != CR_LOAD_FORCE && l->type != CR_LOAD_MOMENT && l->type != CR_LOAD_GRAVITY)
            return cr_error_set(err, CR_BAD_INPUT,
                                "body_loads.%d.type: a free body carries forces, moments and gravity only", k);
        if (l->type != CR_LOAD_GRAVITY && (l->body < 0 || l->body >= def->body_count))
            return cr_error_set(err, CR_BAD_INPUT, "body_loads.%d.body: unknown free body %d (0..%d)", k, l->body,
                                def->body_count - 1);
    }
    return CR_OK;
}

cr_status cr_assembly_validate(const cr_assembly_def *def, cr_error *err)
{
    if (!def || def->rod_count < 1 || !def->rods)
        return cr_error_set(err, CR_BAD_INPUT, "rods: an assembly needs at least one rod");
    if (def->joint_count < 0 || (def->joint_count > 0 && !def->joints))
        return cr_error_set(err, CR_BAD_INPUT, "joints: %d joints given without their definitions", def->joint_count);
    for (int i = 0; i < def->rod_count; ++i) {
        const cr_assembly_rod_def *r = &def->rods[i];
        if (!name_ok(r->name, sizeof r->name))
            return cr_error_set(err, CR_BAD_INPUT, "rods.%d.name: a rod needs a name (1 to %d characters)", i,
                                (int)sizeof r->name - 1);
        for (int j = 0; j < i; ++j)
            if (strcmp(def->rods[j].name, r->name) == 0)
                return cr_error_set(err, CR_BAD_INPUT, "rods.%d.name: '%s' is also the name of rods.%d", i, r->name, j);
        cr_error e = {0};
        if (cr_rod_validate(&r->rod, &e) != CR_OK)
            return cr_error_set(err, CR_BAD_INPUT, "rods.%d ('%s'): %s", i, r->name, e.message);
    }
    for (int k = 0; k < def->joint_count; ++k) {
        const cr_joint_def *j = &def->joints[k];
        char lb[96];
        cr_joint_label(def, k, lb, sizeof lb);
        if (j->type < CR_JOINT_WELD || j->type > CR_JOINT_UNIVERSAL)
            return cr_error_set(err, CR_BAD_INPUT,
                                "%s.type: unknown joint type %d (weld 0, ball 1, hinge 2, prismatic 3, cylindrical "
                                "4, universal 5)",
                                lb, (int)j->type);
        const cr_joint_end ea = cr_joint_end_of(j, 0), eb = cr_joint_end_of(j, 1);
        cr_status st = check_end(def, k, "a", ea, err);
        if (st == CR_OK) st = check_end(def, k, "b", eb, err);
        if (st != CR_OK) return st;
        char ta[128], tb[128];
        end_text(def, ea, ta, sizeof ta), end_text(def, eb, tb, sizeof tb);
        if (ea.body != 0 ? ea.body == eb.body
                         : eb.body == 0 && ea.rod == eb.rod &&
                               cr_assembly_node_index(&def->rods[ea.rod].rod, ea.node) ==
                                   cr_assembly_node_index(&def->rods[eb.rod].rod, eb.node))
            return cr_error_set(err, CR_BAD_INPUT, "%s.b: joins %s to %s", lb, ta,
                                ea.body != 0 ? "its own body" : "itself");
        if (j->type != CR_JOINT_WELD && j->type != CR_JOINT_BALL) {
            double n = cr_v3_norm(j->axis);
            if (!(n > 0) || !isfinite(n))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "%s.axis: a %s joint needs a finite nonzero axis (got %g, %g, %g)", lb,
                                    cr_joint_type_name(j->type), j->axis.x, j->axis.y, j->axis.z);
        }
        if (j->type == CR_JOINT_UNIVERSAL) {
            double n = cr_v3_norm(j->axis_b);
            if (!(n > 0) || !isfinite(n))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "%s.axis_b: a universal joint needs a finite nonzero axis_b (got %g, %g, %g)", lb,
                                    j->axis_b.x, j->axis_b.y, j->axis_b.z);
            double c = cr_v3_dot(j->axis, j->axis_b) / (n * cr_v3_norm(j->axis));
            if (!(fabs(c) <= 1e-6))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "%s.axis_b: must be perpendicular to axis (the two axes of a universal joint stay "
                                    "perpendicular; their angle is %.9g deg)",
                                    lb, acos(fmax(-1.0, fmin(1.0, c))) * 180.0 / M_PI);
        }
        const int turns = j->type == CR_JOINT_HINGE || j->type == CR_JOINT_CYLINDRICAL;
        const int slides = j->type == CR_JOINT_PRISMATIC || j->type == CR_JOINT_CYLINDRICAL;
        if (j->has_drive && !(j->drive_slide ? slides : turns))
            return cr_error_set(err, CR_BAD_INPUT,
                                "%s.drive: a drive turns a hinge or cylindrical joint (angle) or slides a prismatic or "
                                "cylindrical joint (position); this joint is a %s",
                                lb, cr_joint_type_name(j->type));
        if (j->has_drive && !isfinite(j->drive_slide ? j->drive_position : j->drive_angle))
            return cr_error_set(err, CR_BAD_INPUT, "%s.drive.%s: must be finite (got %g)", lb,
                                j->drive_slide ? "position" : "angle",
                                j->drive_slide ? j->drive_position : j->drive_angle);
        const double kd[4] = {j->stiffness, j->damping, j->slide_stiffness, j->slide_damping};
        static const char *kn[4] = {"stiffness", "damping", "slide_stiffness", "slide_damping"};
        for (int q = 0; q < 4; ++q) {
            if (!(kd[q] >= 0) || !isfinite(kd[q]))
                return cr_error_set(err, CR_BAD_INPUT, "%s.%s: must be finite and >= 0 (got %g)", lb, kn[q], kd[q]);
            if (kd[q] > 0 && (j->type == CR_JOINT_WELD || (q >= 2 && j->type != CR_JOINT_CYLINDRICAL)))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "%s.%s: a %s joint has no free direction for it (stiffness and damping: hinge, "
                                    "prismatic, cylindrical, ball, universal; slide_*: cylindrical)",
                                    lb, kn[q], cr_joint_type_name(j->type));
        }
        if (!isfinite(j->rest) || !isfinite(j->slide_rest))
            return cr_error_set(err, CR_BAD_INPUT, "%s.%s: must be finite (got %g)", lb,
                                isfinite(j->rest) ? "slide_rest" : "rest", isfinite(j->rest) ? j->slide_rest : j->rest);
        for (int q = 0; q < 2; ++q) { /* limit (a rotation, or a prismatic joint's slide), slide_limit */
            static const char *ln[2] = {"limit", "slide_limit"}, *lk[2] = {"limit_stiffness", "slide_limit_stiffness"};
            const int has = q ? j->has_slide_limit : j->has_limit;
            const double *lim = q ? j->slide_limit : j->limit, kl = q ? j->slide_limit_stiffness : j->limit_stiffness;
            if (!(kl >= 0) || !isfinite(kl))
                return cr_error_set(err, CR_BAD_INPUT, "%s.%s: must be finite and >= 0 (got %g)", lb, lk[q], kl);
            if (!has && kl > 0) return cr_error_set(err, CR_BAD_INPUT, "%s.%s: given without %s", lb, lk[q], ln[q]);
            if (!has) continue;
            if (q == 0 ? !(turns || j->type == CR_JOINT_PRISMATIC) : j->type != CR_JOINT_CYLINDRICAL)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "%s.%s: a %s joint has no free direction for it (limit: hinge and cylindrical "
                                    "(rotation), prismatic (slide); slide_limit: cylindrical)",
                                    lb, ln[q], cr_joint_type_name(j->type));
            if (!isfinite(lim[0]) || !isfinite(lim[1]) || !(lim[0] <= lim[1]))
                return cr_error_set(err, CR_BAD_INPUT, "%s.%s: expected finite [lo, hi] with lo <= hi (got [%g, %g])",
                                    lb, ln[q], lim[0], lim[1]);
        }
        if (j->has_drive && j->drive_time.type == CR_TIME_TABLE && (j->drive_time.point_count < 2 || !j->drive_time.points))
            return cr_error_set(err, CR_BAD_INPUT, "%s.drive.time: a table needs at least 2 points", lb);
        if (j->type == CR_JOINT_WELD && j->has_rotation) {
            double n = sqrt(cr_q_norm2(j->rotation));
            if (!(n > 0) || !isfinite(n))
                return cr_error_set(err, CR_BAD_INPUT, "%s.rotation: a finite nonzero quaternion is needed", lb);
        }
    }
    cr_status sb = check_bodies(def, err);
    if (sb != CR_OK) return sb;
    for (int i = 0; i < def->rod_count; ++i) {
        int held = def->rods[i].rod.bc_count > 0;
        for (int k = 0; k < def->joint_count && !held; ++k)
            held = (def->joints[k].body_a == 0 && def->joints[k].a.rod == i) ||
                   (def->joints[k].body_b == 0 && def->joints[k].b.rod == i);
        if (!held)
            return cr_error_set(err, CR_BAD_INPUT,
                                "rods.%d ('%s'): neither a support nor a joint holds it (a free rod has rigid-body "
                                "modes in statics)",
                                i, def->rods[i].name);
    }
    return CR_OK;
}

cr_status cr_assembly_refuse_mixed_only(const cr_assembly_def *def, const char *model, cr_error *err)
{
    if (def->body_count > 0)
        return cr_error_set(err, CR_UNSUPPORTED,
                            "rigid_bodies: a free rigid body (an entry without node, '%s') is not available in model "
                            "%s; use model mixed_discrete",
                            def->bodies[0].name, model);
    /* (a support on a joint's node: the mixed rod's substructuring holds any kind, the other models'
       one kind, an end node's clamp, is taken by both: lgvi/assembly.c, ph_assembly_formulation.c) */
    for (int k = 0; k < def->joint_count; ++k) {
        const cr_joint_def *j = &def->joints[k];
        char lb[96];
        cr_joint_label(def, k, lb, sizeof lb);
        /* (slider drives: the port_hamiltonian model's assemblies have them, ph_assembly.c; so
           springs, dampers and stops: ph_assembly_formulation.c refuses what it has not of them) */
        const int ph = !strcmp(model, "port_hamiltonian");
        const char *key = j->body_a || j->body_b                  ? (j->body_a ? "a" : "b")
                          : !ph && j->stiffness != 0              ? "stiffness"
                          : !ph && j->damping != 0                ? "damping"
                          : !ph && j->slide_stiffness != 0        ? "slide_stiffness"
                          : !ph && j->slide_damping != 0          ? "slide_damping"
                          : !ph && j->rest != 0                   ? "rest"
                          : !ph && j->slide_rest != 0             ? "slide_rest"
                          : !ph && j->has_limit                   ? "limit"
                          : !ph && j->has_slide_limit             ? "slide_limit"
                          : j->has_drive && j->drive_slide && !ph ? "drive"
                          : j->stages != 0                        ? "stages"
                                                                  : NULL;
        if (key)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "%s.%s: %s is not available in model %s (its joints are exact constraints that act "
                                "in every stage); use model mixed_discrete",
                                lb, key,
                                j->body_a || j->body_b   ? "a joint end on a free rigid body"
                                : !strcmp(key, "drive")  ? "a slider drive"
                                : !strcmp(key, "stages") ? "a joint limited to stages"
                                : strstr(key, "limit")   ? "a joint limit (stop)"
                                                         : "a joint spring or damper",
                                model);
    }
    return CR_OK;
}

unsigned long long cr_joint_def_hash(const cr_joint_def *j, unsigned long long h)
{
    const cr_time_function *f = &j->drive_time;
    const double v[] = {j->type,
                        j->a.rod,
                        j->a.node,
                        j->b.rod,
                        j->b.node,
                        j->body_a,
                        j->body_b,
                        j->point_a.x,
                        j->point_a.y,
                        j->point_a.z,
                        j->point_b.x,
                        j->point_b.y,
                        j->point_b.z,
                        j->has_rotation,
                        j->rotation.w,
                        j->rotation.x,
                        j->rotation.y,
                        j->rotation.z,
                        j->axis.x,
                        j->axis.y,
                        j->axis.z,
                        j->axis_b.x,
                        j->axis_b.y,
                        j->axis_b.z,
                        j->has_drive,
                        j->drive_angle,
                        f->type,
                        f->t0,
                        f->t1,
                        f->amplitude,
                        f->frequency,
                        f->phase,
                        f->offset,
                        f->point_count,
                        j->stiffness,
                        j->damping,
                        j->slide_stiffness,
                        j->slide_damping,
                        j->rest,
                        j->slide_rest,
                        j->drive_slide,
                        j->drive_position,
                        j->stages,
                        j->has_limit,
                        j->has_slide_limit,
                        j->limit[0],
                        j->limit[1],
                        j->slide_limit[0],
                        j->slide_limit[1],
                        j->limit_stiffness,
                        j->slide_limit_stiffness};
    const unsigned char *b = (const unsigned char *)v;
    for (size_t i = 0; i < sizeof v; ++i) h = (h ^ b[i]) * 1099511628211ULL;
    for (int k = 0; f->points && k < f->point_count; ++k) {
        const double pt[2] = {f->points[k].t, f->points[k].value};
        b = (const unsigned char *)pt;
        for (size_t i = 0; i < sizeof pt; ++i) h = (h ^ b[i]) * 1099511628211ULL;
    }
    return h;
}

double cr_drive_ramp(double u0, double u1, double r0, double t0, double t1, double t, double *ud, double *udd)
{
    const double h = t1 - t0;
    if (ud) *ud = 0.0;
    if (udd) *udd = 0.0;
    if ((u0 == u1 && r0 == 0) || !(h > 0)) return u1;
    const double x = fmin(1.0, fmax(0.0, (t - t0) / h)), x2 = x * x, x3 = x2 * x, r1 = (u1 - u0) / h;
    if (ud) *ud = (6 * x2 - 6 * x) / h * (u0 - u1) + (3 * x2 - 4 * x + 1) * r0 + (3 * x2 - 2 * x) * r1;
    if (udd) *udd = ((12 * x - 6) / h * (u0 - u1) + (6 * x - 4) * r0 + (6 * x - 2) * r1) / h;
    return (2 * x3 - 3 * x2 + 1) * u0 + (x3 - 2 * x2 + x) * h * r0 + (3 * x2 - 2 * x3) * u1 + (x3 - x2) * h * r1;
}
