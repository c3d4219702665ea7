/* Assemblies of port-Hamiltonian rods behind the formulation table (model/formulation.h): every
 * rod discretized as the one-rod adapter does it (formulation.c, through ph_sim.h), the joints as
 * a cr_ph_asm (ph_assembly.c), static stages with load steps, dynamic stages by the fixed-step
 * driver, and the formulation-neutral accessors with the nodes, samples and loads of all rods
 * numbered rod by rod (the one-rod table's accessors on each rod). The runner reaches this table
 * through cr_ph_formulation.assembly; it never branches on it. */
#include "assembly/assembly_def.h"
#include "solvers/newton.h"
#include "model/fixed_step.h"
#include "ph/ph_assembly.h"
#include "ph/ph_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHA_MAX_RODS_STACK 64 /* (the loads of a step are on the stack) */

typedef struct pha_sim {
    int rods, joints;
    ph_sim **rod;
    char (*names)[64];
    char (*joint_names)[96];
    cr_ph_asm *a;
    int *first_node, *first_sample, *first_load; /* rods + 1 each */
    double *inputs;                              /* the loads' actuator inputs, rod by rod */
    double load_factor;
    /* the motors (hinge and cylindrical drives, slider drives): per joint the angle (rad) or the
       position (m) and its time function (a table's points copied), 0 / none for the others */
    int drives;
    double *drive_angle, *theta; /* theta: the motor's angle in the state (checkpointed) */
    cr_time_function *drive_time;
    /* the drives' inputs u (cr_sim_set_joint_drive_input, default 1), as the mixed assemblies':
     * a dynamic stage drives θ = angle · time(t) · u(t) with u along the cubic Hermite from
     * drive_from at rate drive_rate (at the output time ramp_t0) to drive_target at the next
     * output time ramp_t1, so a new input moves the motor with a continuous velocity; the
     * target is the input given at ramp_t0 (checkpointed, all four) */
    double *drive_input, *drive_from, *drive_rate, *drive_target;
    double ramp_t0, ramp_t1;
    int *has_drive;
    /* joint springs, dampers and stops (ph_assembly.c): the series' columns, by name */
    int springs, limits;
    const char *columns[16];
    int ncolumns;
    unsigned long long joints_hash; /* the joints' definitions (cr_joint_def_hash): the fingerprint */
} pha_sim;

/* library body axes (x, y, z) -> kernel directors (d3, d1, d2): components (y, z, x) */
static void to_kernel(cr_vec3 v, double out[3]) { out[0] = v.y, out[1] = v.z, out[2] = v.x; }

/* A clamp on a joint's node holds the joint's side (the rod's clamped coordinates are fixed, so that
 * side's rows set the interface value z and the joint's force goes to the clamp, ph_assembly.c); a
 * joint between two clamped nodes repeats the clamps: its multipliers would have no equation. */
static cr_status refuse_clamped_pairs(const cr_assembly_def *def, cr_error *err)
{
    for (int j = 0; j < def->joint_count; ++j) {
        int held = 0;
        for (int e = 0; e < 2; ++e) {
            const cr_joint_end end = cr_joint_end_of(&def->joints[j], e);
            const cr_rod_def *d = &def->rods[end.rod].rod;
            int start = 0, last = 0, i = cr_assembly_node_index(d, end.node);
            if (cr_rod_end_clamps(d, "port_hamiltonian", &start, &last, err) != CR_OK) return err->status;
            held += (i == 0 && start) || (i == d->elements && last);
        }
        if (held == 2) {
            char label[128];
            cr_joint_label(def, j, label, sizeof label);
            return cr_error_set(err, CR_BAD_INPUT,
                                "%s: joins two clamped nodes (rods '%s' and '%s'): its constraints repeat the "
                                "clamps'; drop the joint or one of the clamps",
                                label, def->rods[def->joints[j].a.rod].name, def->rods[def->joints[j].b.rod].name);
        }
    }
    return CR_OK;
}

static cr_status pha_check(const cr_scenario *sc, cr_error *err)
{
    char label[128];
    const cr_assembly_def all = {.rod_count = sc->rod_count,
                                 .rods = sc->rods,
                                 .joint_count = sc->joint_count,
                                 .joints = sc->joints,
                                 .body_count = sc->body_count,
                                 .bodies = sc->bodies};
    cr_status st0 = cr_assembly_refuse_mixed_only(&all, "port_hamiltonian", err);
    if (st0 != CR_OK) return st0;
    st0 = cr_assembly_refuse_gaps(&all, "model port_hamiltonian keeps a joint's points together from the start", err);
    if (st0 != CR_OK) return st0;
    /* static friction is the one rod's (formulation.c: anchors and multiplier updates around its load
       steps); the assemblies' coupled statics would meet rough obstacles frictionless */
    for (int k = 0; k < sc->stage_count; ++k) {
        if (sc->stages[k].type != CR_STAGE_STATIC) continue;
        for (int r = 0; r < sc->rod_count; ++r)
            for (int j = 0; j < sc->rods[r].rod.obstacle_count; ++j)
                if (sc->rods[r].rod.obstacles[j].mu_static > 0)
                    return cr_error_set(err, CR_BAD_INPUT,
                                        "obstacles.%d.friction: static stage %d of an assembly of port_hamiltonian "
                                        "rods: their static stages take no friction (one port_hamiltonian rod and "
                                        "the mixed_discrete model's assemblies do); remove the friction, make the "
                                        "stage dynamic, or choose the mixed_discrete model",
                                        j, k);
    }
    for (int j = 0; j < sc->joint_count; ++j) {
        const cr_joint_def *J = &sc->joints[j];
        cr_assembly_def def = {
            .rod_count = sc->rod_count, .rods = sc->rods, .joint_count = sc->joint_count, .joints = sc->joints};
        cr_joint_label(&def, j, label, sizeof label);
        /* (every drive is the model's: a hinge's and a cylindrical joint's angle, a prismatic or
           cylindrical joint's slide, ph_assembly.c) */
        /* springs, dampers, stops (ph_assembly.c): on a hinge's or cylindrical joint's turn, a
           prismatic or cylindrical joint's slide, not on a driven one; a ball's or universal
           joint's isotropic spring is the mixed rod's and lgvi's */
        if ((J->type == CR_JOINT_BALL || J->type == CR_JOINT_UNIVERSAL) && (J->stiffness > 0 || J->damping > 0))
            return cr_error_set(err, CR_UNSUPPORTED,
                                "%s.%s: a %s joint's isotropic spring and damper are not available in model "
                                "port_hamiltonian (its springs act on a hinge's or cylindrical joint's turn and a "
                                "prismatic or cylindrical joint's slide); use model mixed_discrete or lgvi",
                                label, J->stiffness > 0 ? "stiffness" : "damping", cr_joint_type_name(J->type));
        if (J->has_drive) {
            /* the driven direction: the turn (an angle drive) or the slide (a slider drive; a prismatic
               joint's stiffness, damping, limit are on it) */
            const int pr = J->type == CR_JOINT_PRISMATIC;
            const char *key = NULL;
            if (!J->drive_slide || pr)
                key = J->stiffness > 0 ? "stiffness" : J->damping > 0 ? "damping" : J->has_limit ? "limit" : NULL;
            if (!key && J->drive_slide && J->type == CR_JOINT_CYLINDRICAL)
                key = J->slide_stiffness > 0 ? "slide_stiffness"
                      : J->slide_damping > 0 ? "slide_damping"
                      : J->has_slide_limit   ? "slide_limit"
                                             : NULL;
            if (key)
                return cr_error_set(err, CR_UNSUPPORTED,
                                    "%s.%s: a spring, damper or stop on the driven direction is not available in "
                                    "model port_hamiltonian (the drive holds it); use model mixed_discrete",
                                    label, key);
        }
        if ((J->rest != 0 || J->slide_rest != 0) && sc->stage_count > 0 && sc->stages[0].type == CR_STAGE_DYNAMIC)
            return cr_error_set(err, CR_BAD_INPUT,
                                "%s.%s: a spring's rest is reached through the load steps of a static stage, and "
                                "stage 0 is dynamic: add a static stage first",
                                label, J->rest != 0 ? "rest" : "slide_rest");
        if (J->type == CR_JOINT_WELD && J->has_rotation) {
            /* the weld keeps the reference's relative rotation (its rows are linear in it): one that
               differs would have to be closed through load steps */
            const cr_joint_def *d = J;
            cr_vec3 xa, xb;
            cr_quat qa, qb;
            int ia = cr_assembly_node_index(&sc->rods[d->a.rod].rod, d->a.node);
            int ib = cr_assembly_node_index(&sc->rods[d->b.rod].rod, d->b.node);
            cr_assembly_node_reference_pose(&sc->rods[d->a.rod].rod, ia, &xa, &qa);
            cr_assembly_node_reference_pose(&sc->rods[d->b.rod].rod, ib, &xb, &qb);
            cr_quat rel = cr_q_mul(cr_q_conj(qa), qb), R = cr_q_normalize(d->rotation);
            double dot = fabs(rel.w * R.w + rel.x * R.x + rel.y * R.y + rel.z * R.z);
            if (!(dot > 1 - 1e-12))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "%s.rotation: the port_hamiltonian model's welds keep the reference's relative "
                                    "rotation of the two nodes (give the rods the kinked reference instead, or use "
                                    "the mixed_discrete model, which closes the weld through load steps)",
                                    label);
        }
    }
    int clamped = 0;
    for (int r = 0; r < sc->rod_count; ++r) {
        cr_scenario one = *sc;
        one.rod = sc->rods[r].rod;
        one.rod_count = 1, one.joint_count = 0;
        one.rods = NULL, one.joints = NULL;
        cr_status st = cr_ph_sim_check_rod(&one, 1, err);
        if (st != CR_OK) {
            if (err) { /* say which rod */
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "%s", err->message);
                cr_error_set(err, st, "rods.%d ('%s'): %s", r, sc->rods[r].name, msg);
            }
            return st;
        }
        int start = 0, end = 0;
        if (cr_rod_end_clamps(&sc->rods[r].rod, "port_hamiltonian", &start, &end, err) != CR_OK) return err->status;
        clamped |= start || end;
    }
    st0 = refuse_clamped_pairs(&all, err);
    if (st0 != CR_OK) return st0;
    for (int k = 0; k < sc->stage_count; ++k)
        if (sc->stages[k].type == CR_STAGE_STATIC && !clamped)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions: statics needs a clamp (a free assembly has rigid-body modes): "
                                "clamp an end of one of the rods, or make stage %d dynamic",
                                k);
    return CR_OK;
}

static void pha_destroy(void *impl)
{
    pha_sim *s = impl;
    if (!s) return;
    cr_ph_asm_destroy(s->a);
    for (int r = 0; r < s->rods && s->rod; ++r) cr_ph_sim_destroy(s->rod[r]);
    free(s->rod), free(s->names), free(s->joint_names), free(s->first_node), free(s->first_sample);
    free(s->first_load), free(s->inputs);
    for (int j = 0; j < s->joints && s->drive_time; ++j) free((void *)s->drive_time[j].points);
    free(s->drive_angle), free(s->drive_time), free(s->theta);
    free(s->drive_input), free(s->drive_from), free(s->drive_rate), free(s->drive_target);
    free(s->has_drive);
    free(s);
}

static void *pha_create(const cr_assembly_def *def, const cr_model_options *o, cr_error *err)
{
    /* (the C API's way in too: what the model cannot represent refused as at check) */
    if (cr_assembly_validate(def, err) != CR_OK ||
        cr_assembly_refuse_mixed_only(def, "port_hamiltonian", err) != CR_OK ||
        refuse_clamped_pairs(def, err) != CR_OK ||
        cr_assembly_refuse_gaps(def, "model port_hamiltonian keeps a joint's points together from the start", err) !=
            CR_OK)
        return NULL;
    if (def->rod_count > PHA_MAX_RODS_STACK)
        return cr_error_set(err, CR_UNSUPPORTED, "rods: at most %d rods in a port_hamiltonian assembly",
                            PHA_MAX_RODS_STACK),
               NULL;
    pha_sim *s = calloc(1, sizeof *s);
    if (!s) return cr_error_set(err, CR_NO_MEMORY, "out of memory"), NULL;
    s->rods = def->rod_count, s->joints = def->joint_count;
    s->joints_hash = 1469598103934665603ULL;
    s->rod = calloc((size_t)s->rods, sizeof *s->rod);
    s->names = calloc((size_t)s->rods, sizeof *s->names);
    s->joint_names = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->joint_names);
    s->first_node = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_sample = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_load = calloc((size_t)s->rods + 1, sizeof(int));
    cr_ph **k = calloc((size_t)s->rods, sizeof *k);
    cr_ph_joint_def *jd = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *jd);
    if (!s->rod || !s->names || !s->joint_names || !s->first_node || !s->first_sample || !s->first_load || !k || !jd) {
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        goto fail;
    }
    for (int r = 0; r < s->rods; ++r) {
        s->rod[r] = cr_ph_sim_create(&def->rods[r].rod, o, err);
        if (!s->rod[r]) {
            if (err) {
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "%s", err->message);
                cr_error_set(err, err->status, "rods.%d ('%s'): %s", r, def->rods[r].name, msg);
            }
            goto fail;
        }
        snprintf(s->names[r], sizeof s->names[r], "%s", def->rods[r].name);
        k[r] = s->rod[r]->k;
        s->first_node[r + 1] = s->first_node[r] + s->rod[r]->nodes;
        s->first_sample[r + 1] = s->first_sample[r] + cr_ph_sample_count(k[r]);
        s->first_load[r + 1] = s->first_load[r] + s->rod[r]->load_count;
    }
    for (int j = 0; j < s->joints; ++j) {
        const cr_joint_def *J = &def->joints[j];
        cr_joint_label(def, j, s->joint_names[j], sizeof s->joint_names[j]);
        if (J->name[0]) snprintf(s->joint_names[j], sizeof s->joint_names[j], "%s", J->name);
        jd[j].type = J->type;
        const cr_rod_node *n[2] = {&J->a, &J->b};
        for (int side = 0; side < 2; ++side) {
            jd[j].rod[side] = n[side]->rod;
            /* the definition's node i (of elements + 1) is finite-element node 2i */
            jd[j].node[side] = 2 * cr_assembly_node_index(&def->rods[n[side]->rod].rod, n[side]->node);
        }
        to_kernel(J->axis, jd[j].axis);
        to_kernel(J->axis_b, jd[j].axis_b);
        jd[j].drive = J->has_drive;
        jd[j].slide = J->has_drive && J->drive_slide;
        /* springs, dampers, stops: the turn's (hinge, cylindrical) and the slide's (a prismatic
           joint's stiffness, damping, rest and limit; a cylindrical joint's slide_*) */
        const int pr = J->type == CR_JOINT_PRISMATIC;
        jd[j].k[pr] = J->stiffness, jd[j].c[pr] = J->damping, jd[j].rest[pr] = J->rest;
        jd[j].limit[pr] = J->has_limit, jd[j].lo[pr] = J->limit[0], jd[j].hi[pr] = J->limit[1];
        jd[j].klim[pr] = J->limit_stiffness;
        if (J->type == CR_JOINT_CYLINDRICAL) {
            jd[j].k[1] = J->slide_stiffness, jd[j].c[1] = J->slide_damping, jd[j].rest[1] = J->slide_rest;
            jd[j].limit[1] = J->has_slide_limit, jd[j].lo[1] = J->slide_limit[0], jd[j].hi[1] = J->slide_limit[1];
            jd[j].klim[1] = J->slide_limit_stiffness;
        }
        /* a stop's default stiffness, the mixed rod's: the stiffest element's min(EI, GJ)/L_e (a
           rotation), min(EA/L_e, 12 EI/L_e^3) (a slide), L_e = L / elements */
        for (int p = 0; p < 2; ++p) {
            if (!jd[j].limit[p] || jd[j].klim[p] > 0) continue;
            double eps = 0;
            for (int r = 0; r < s->rods; ++r) {
                const cr_ph_params *P = &k[r]->p;
                const double Le = P->length / P->elements, *K = P->stiffness;
                const double EI = fmin(K[3] > 0 ? K[3] : INFINITY, K[4] > 0 ? K[4] : INFINITY),
                             GJ = K[5] > 0 ? K[5] : INFINITY, EA = K[2] > 0 ? K[2] : INFINITY;
                const double e = p ? fmin(EA / Le, 12.0 * EI / (Le * Le * Le)) : fmin(EI, GJ) / Le;
                if (isfinite(e)) eps = fmax(eps, e);
            }
            jd[j].klim[p] = eps > 0 ? eps : 1.0;
        }
        s->joints_hash = cr_joint_def_hash(J, s->joints_hash);
    }
    s->a = cr_ph_asm_create(s->rods, k, s->joints, jd, err);
    if (!s->a) goto fail;
    s->springs = cr_ph_asm_has_springs(s->a), s->limits = cr_ph_asm_has_limits(s->a);
    cr_ph_asm_set_rest_factor(s->a, 0.0); /* (rest . f: reached through the static stages) */
    s->drives = 0;
    for (int j = 0; j < s->joints; ++j) s->drives += jd[j].drive != 0;
    { /* the series' extra columns (sample_row fills them in this order) */
        static const char *const base[] = {"energy_dissipated", "energy_balance", "constraint_violation",
                                           "joint_violation"};
        static const char *const contact[] = {"contact_active", "contact_normal_force", "contact_penetration",
                                              "contact_sliding"};
        int n = 0;
        for (int i = 0; i < 4; ++i) s->columns[n++] = base[i];
        if (s->drives) s->columns[n++] = "work_drives";
        if (s->springs) s->columns[n++] = "energy_dissipated_joints";
        if (s->limits) s->columns[n++] = "joint_limits_pressing", s->columns[n++] = "joint_limit_force";
        for (int i = 0; i < 4; ++i) s->columns[n + i] = contact[i];
        s->ncolumns = n;
    }
    s->drives = 0;
    s->drive_angle = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->drive_angle);
    s->drive_time = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->drive_time);
    s->theta = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->theta);
    const size_t nj = (size_t)(s->joints > 0 ? s->joints : 1);
    s->drive_input = malloc(nj * sizeof(double)), s->drive_from = malloc(nj * sizeof(double));
    s->drive_rate = calloc(nj, sizeof(double)), s->drive_target = malloc(nj * sizeof(double));
    s->has_drive = calloc(nj, sizeof(int));
    if (!s->has_drive || !s->drive_angle || !s->drive_time || !s->theta || !s->drive_input || !s->drive_from || !s->drive_rate ||
        !s->drive_target) {
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        goto fail;
    }
    for (size_t j = 0; j < nj; ++j) s->drive_input[j] = s->drive_from[j] = s->drive_target[j] = 1.0;
    for (int j = 0; j < s->joints; ++j) {
        const cr_joint_def *J = &def->joints[j];
        if (!jd[j].drive) continue;
        s->drives++, s->has_drive[j] = 1;
        s->drive_angle[j] = J->drive_slide ? J->drive_position : J->drive_angle; /* (rad, or m) */
        s->drive_time[j] = J->drive_time;
        s->drive_time[j].points = NULL;
        if (J->drive_time.type == CR_TIME_TABLE && J->drive_time.point_count > 0) {
            cr_time_point *pt = malloc(sizeof *pt * (size_t)J->drive_time.point_count);
            if (!pt) {
                cr_error_set(err, CR_NO_MEMORY, "out of memory");
                goto fail;
            }
            memcpy(pt, J->drive_time.points, sizeof *pt * (size_t)J->drive_time.point_count);
            s->drive_time[j].points = pt;
        }
    }
    s->inputs = malloc(sizeof(double) * (size_t)(s->first_load[s->rods] > 0 ? s->first_load[s->rods] : 1));
    if (!s->inputs) {
        cr_error_set(err, CR_NO_MEMORY, "out of memory");
        goto fail;
    }
    for (int i = 0; i < s->first_load[s->rods]; ++i) s->inputs[i] = 1.0;
    free(k), free(jd);
    return s;
fail:
    free(k), free(jd);
    pha_destroy(s);
    return NULL;
}

/* the rod of a node / sample of the whole numbering, and its index there */
static int rod_of(const int *first, int rods, int *i)
{
    int r = 0;
    while (r + 1 < rods && *i >= first[r + 1]) ++r;
    *i -= first[r];
    return r;
}

/* the runner's actuator inputs (rod by rod) into the rods' own */
static void sync_inputs(pha_sim *s)
{
    for (int r = 0; r < s->rods; ++r)
        if (s->rod[r]->load_count > 0)
            memcpy(s->rod[r]->input, s->inputs + s->first_load[r], sizeof(double) * (size_t)s->rod[r]->load_count);
}

/* ---- dynamic stages: the fixed-step driver, a step retried as two halves on failure (as one rod) ---- */

/* joint j's drive at t: angle (or position) · time(t) · u(t), u the input's cubic Hermite over
 * the output interval [ramp_t0, ramp_t1] (the mixed assemblies' law, assembly_dynamics.c) */
static double drive_at(const pha_sim *s, int j, double t)
{
    const double f = s->drive_angle[j] * cr_time_function_eval(&s->drive_time[j], t);
    return f * cr_drive_ramp(s->drive_from[j], s->drive_target[j], s->drive_rate[j], s->ramp_t0, s->ramp_t1, t, NULL,
                             NULL);
}

/* before a step from t: at an output time the input's ramp moves on (from the value and the
 * secant rate reached, to the input given there); at the stage's first step a new input
 * retargets the first interval's ramp */
static void drive_ramp(pha_sim *s, double t, double h)
{
    const double H = s->ramp_t1 - s->ramp_t0;
    if (t >= s->ramp_t1 - 0.5 * h) {
        for (int j = 0; j < s->joints; ++j) {
            const double u0 = s->drive_from[j], u1 = s->drive_target[j], r0 = s->drive_rate[j];
            s->drive_rate[j] = cr_drive_ramp_end_rate(u0, u1, r0, H);
            s->drive_from[j] = u1, s->drive_target[j] = s->drive_input[j];
        }
        s->ramp_t0 = s->ramp_t1, s->ramp_t1 += H;
    } else if (fabs(t - s->ramp_t0) < 0.5 * h) {
        for (int j = 0; j < s->joints; ++j) s->drive_target[j] = s->drive_input[j];
    }
}

static cr_status advance(pha_sim *s, double h, int depth, cr_dynamic_report *report, cr_error *err)
{
    const cr_ph_loads *Lp[PHA_MAX_RODS_STACK];
    cr_ph_loads L[PHA_MAX_RODS_STACK];
    double act[PHA_MAX_RODS_STACK][6];
    const double t = cr_ph_time(s->rod[0]->k);
    for (int r = 0; r < s->rods; ++r) {
        cr_ph_sim_dynamic_magnitudes(s->rod[r], t + 0.5 * h); /* loads at t_{n+1/2} */
        cr_ph_sim_loads(s->rod[r], s->rod[r]->scale, &L[r], act[r]);
        Lp[r] = &L[r];
    }
    for (int j = 0; j < s->joints; ++j) /* the motors: angle . time(t) . u(t) at t_n and t_{n+1} (0 if none) */
        cr_ph_asm_set_drive(s->a, j, drive_at(s, j, t), drive_at(s, j, t + h));
    int its = 0;
    cr_status st = cr_ph_asm_step(s->a, h, Lp, &its, err);
    if (st == CR_OK)
        for (int j = 0; j < s->joints; ++j) s->theta[j] = drive_at(s, j, t + h);
    report->newton_iterations += its;
    report->jacobians += its + 1;
    report->lu_real += its;
    if (st == CR_OK || st < 0 || depth >= 10) return st;
    report->rejected++;
    if ((st = advance(s, 0.5 * h, depth + 1, report, err)) != CR_OK) return st;
    return advance(s, 0.5 * h, depth + 1, report, err);
}

static cr_status begin_stage(cr_sim *sim, int stage, double h, cr_error *err)
{
    (void)h, (void)err;
    pha_sim *s = sim->impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_rod_def loads_only = {.load_count = s->rod[r]->load_count, .loads = s->rod[r]->loads};
        cr_rod_stage_load_factors(&loads_only, stage, s->rod[r]->stage_factor);
    }
    return CR_OK;
}

static cr_status step(cr_sim *sim, double h, cr_dynamic_report *report, cr_error *err)
{
    pha_sim *s = sim->impl;
    cr_error e = {0};
    double t0 = cr_ph_time(s->rod[0]->k);
    sync_inputs(s);
    if (s->drives) drive_ramp(s, t0, h);
    cr_status st = advance(s, h, 0, report, &e);
    if (st != CR_OK)
        cr_error_set(err, st, "port_hamiltonian assembly step from t = %.9g s failed even at h/1024: %.400s", t0,
                     e.message);
    return st;
}

/* obstacles in some rod; friction in some rod */
static int any_contact(const pha_sim *s, int friction)
{
    for (int r = 0; r < s->rods; ++r)
        if (friction ? s->rod[r]->friction : s->rod[r]->contact) return 1;
    return 0;
}

/* the sums over the rods (the joints add no momentum and do no work but the motors': ph_assembly.c) */
static void sample_row(const cr_sim *sim, cr_dynamic_sample *smp)
{
    const pha_sim *s = sim->impl;
    memset(smp, 0, sizeof *smp);
    smp->t = cr_ph_time(s->rod[0]->k);
    for (int r = 0; r < s->rods; ++r) {
        cr_ph_diag d;
        cr_ph_diagnostics(s->rod[r]->k, &d);
        smp->kinetic += d.kinetic;
        smp->elastic += d.elastic + d.contact;
        smp->work_external += d.work_external;
        smp->momentum = cr_v3_add(smp->momentum, d.momentum);
        smp->angular_momentum = cr_v3_add(smp->angular_momentum, d.angular_momentum);
        smp->extra[0] += d.dissipated;
        smp->extra[1] += d.energy_balance;
        smp->extra[2] = fmax(smp->extra[2], d.constraint_violation);
    }
    smp->extra[3] = cr_ph_asm_joint_violation(s->a);
    smp->extra_count = 4;
    if (s->drives) { /* the motors' work: the rods' balances sum to it (ph_assembly.c, drive_work) */
        smp->extra[1] -= cr_ph_asm_drive_work_last(s->a);
        smp->extra[smp->extra_count++] = cr_ph_asm_drive_work(s->a);
    }
    if (s->springs) { /* the springs' and stops' energy joins H, the dampers' dissipation D: the rods'
                         balances sum to the work of the springs' rows, -(its change) - (the last D) */
        smp->elastic += cr_ph_asm_joint_energy(s->a);
        smp->extra[1] += cr_ph_asm_joint_energy_change_last(s->a) + cr_ph_asm_joint_dissipated_last(s->a);
        smp->extra[smp->extra_count++] = cr_ph_asm_joint_dissipated(s->a);
    }
    if (s->limits) { /* the stops pressing, the largest of their forces */
        double pressing = 0, fmax_ = 0;
        for (int j = 0; j < s->joints; ++j)
            for (int q = 0; q < 2; ++q) {
                double v, f;
                if (cr_ph_asm_joint_limit(s->a, j, q, &v, &f) && f != 0) pressing += 1, fmax_ = fmax(fmax_, fabs(f));
            }
        smp->extra[smp->extra_count++] = pressing;
        smp->extra[smp->extra_count++] = fmax_;
    }
    if (any_contact(s, 0)) { /* touching nodes, their normal forces, the deepest, the sliding ones: over the rods */
        double active = 0, normal = 0, pen = 0, sliding = 0;
        for (int r = 0; r < s->rods; ++r)
            for (int i = 0; s->rod[r]->contact && i < s->rod[r]->nodes; ++i) {
                double N, g;
                int state = cr_ph_contact_node(s->rod[r]->k, i, NULL, &N, &g);
                if (state) active += 1, normal += N, pen = fmax(pen, -g), sliding += state == 2;
            }
        const int k = smp->extra_count;
        smp->extra[k] = active, smp->extra[k + 1] = normal, smp->extra[k + 2] = pen, smp->extra[k + 3] = sliding;
        smp->extra_count = k + (any_contact(s, 1) ? 4 : 3);
    }
}

#define PHA_BAND 1e-6 /* as one rod's (formulation.c) */

static double energy(const cr_sim *sim, const cr_dynamic_sample *row, double *stored, double *supplied,
                     double *roundoff)
{
    const pha_sim *s = sim->impl;
    *roundoff = 0;
    for (int r = 0; r < s->rods; ++r) {
        cr_ph_diag d;
        cr_ph_diagnostics(s->rod[r]->k, &d);
        *roundoff += d.work_roundoff;
    }
    *stored = row->kinetic + row->elastic;
    *supplied = row->work_external - row->extra[0] + (s->drives ? row->extra[4] : 0.0) -
                (s->springs ? row->extra[4 + (s->drives != 0)] : 0.0);
    return PHA_BAND;
}

static void explain(const cr_sim *sim, char *text, size_t size)
{
    cr_dynamic_sample row;
    sample_row(sim, &row);
    snprintf(text, size,
             "The last step's own balance is off by %.3g J: its Newton iteration stopped before the energy was "
             "resolved; try a smaller time_step.",
             row.extra[1]);
}

static const cr_fixed_step_ops pha_ops = {
    .begin = begin_stage, .step = step, .sample = sample_row, .energy = energy, .explain = explain};

static cr_status pha_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                             const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                             cr_error *err)
{
    (void)h0, (void)work;
    pha_sim *s = sim->impl;
    const double h = o->time_step;
    if (s->drives && h > 0) { /* the output interval as the driver rounds it (fixed_step.c) */
        const long total = lround(o->t_end / h), done = lround((cr_ph_time(s->rod[0]->k) - t_stage_start) / h);
        const double every_d = o->output_dt / h;
        long every = every_d >= (double)total ? total : lround(every_d);
        if (every < 1) every = 1;
        if (done == 0) /* fresh: the inputs held; resumed: the checkpoint's ramp, in its interval */
            for (int j = 0; j < s->joints; ++j)
                s->drive_from[j] = s->drive_target[j] = s->drive_input[j], s->drive_rate[j] = 0.0;
        /* a checkpoint at an output time holds the ramp of the interval that ends there (the ramp moves
           on at the next step's start, drive_ramp): resumed there, that interval is placed so that the
           first step moves it on as the uninterrupted run does */
        const long first = done > 0 && done % every == 0 ? done - every : done / every * every;
        s->ramp_t0 = t_stage_start + (double)first * h, s->ramp_t1 = s->ramp_t0 + (double)every * h;
    }
    return cr_fixed_step_stage(sim, &pha_ops, stage, t_stage_start, o, cb, report, err);
}

/* ---- static stages: every rod's magnitudes linearly from the state's to the stage's, a failed
 * load step halved (as one rod's, formulation.c) ---- */
static cr_status pha_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                            cr_static_report *report, cr_error *err)
{
    pha_sim *s = sim->impl;
    if (s->rods > PHA_MAX_RODS_STACK)
        return cr_error_set(err, CR_UNSUPPORTED, "rods: at most %d rods in a port_hamiltonian assembly",
                            PHA_MAX_RODS_STACK);
    double wall0 = cr_wall_seconds();
    int nl = s->first_load[s->rods] > 0 ? s->first_load[s->rods] : 1;
    double *from = malloc(nl * sizeof *from), *target = malloc(nl * sizeof *target), *mag = malloc(nl * sizeof *mag);
    /* the motors from the state's angle to drive.angle (f = 1), as the loads */
    double *th_from = malloc(sizeof(double) * (size_t)(s->joints > 0 ? s->joints : 1));
    if (!from || !target || !mag || !th_from) {
        free(from), free(target), free(mag), free(th_from);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    for (int r = 0; r < s->rods; ++r) {
        const int f = s->first_load[r], n = s->rod[r]->load_count;
        if (n > 0) memcpy(from + f, s->rod[r]->scale, n * sizeof *from);
        cr_rod_def loads_only = {.load_count = n, .loads = s->rod[r]->loads};
        if (n > 0) cr_rod_stage_load_factors(&loads_only, stage, target + f);
    }
    if (s->joints > 0) memcpy(th_from, s->theta, sizeof(double) * (size_t)s->joints);
    /* the springs' rest positions with the load factor, from the state's (rest . f, as the mixed rod's) */
    const double rest_from = cr_ph_asm_rest_factor(s->a);
    memset(report, 0, sizeof *report);
    double lf = 0, dl = 1.0 / o->load_steps;
    int halvings = 0;
    cr_status st = CR_OK;
    const cr_ph_loads *Lp[PHA_MAX_RODS_STACK];
    cr_ph_loads L[PHA_MAX_RODS_STACK];
    double act[PHA_MAX_RODS_STACK][6];
    while (lf < 1 - 1e-12) {
        double next = fmin(1.0, lf + dl);
        for (int k = 0; k < s->first_load[s->rods]; ++k) mag[k] = from[k] + next * (target[k] - from[k]);
        for (int r = 0; r < s->rods; ++r) {
            cr_ph_sim_loads(s->rod[r], mag + s->first_load[r], &L[r], act[r]);
            Lp[r] = &L[r];
        }
        for (int j = 0; j < s->joints; ++j) {
            const double th = th_from[j] + next * (s->drive_angle[j] - th_from[j]);
            cr_ph_asm_set_drive(s->a, j, th, th);
        }
        const double rest_before = cr_ph_asm_rest_factor(s->a);
        cr_ph_asm_set_rest_factor(s->a, rest_from + next * (1 - rest_from));
        double res = 0;
        int its = 0;
        cr_error e = {0};
        st = cr_ph_asm_solve_static(s->a, Lp, &its, &res, &e);
        report->total_iterations += its;
        if (st != CR_OK) {
            cr_ph_asm_set_rest_factor(s->a, rest_before);
            if (st < 0 || ++halvings > o->max_halvings) {
                cr_error_set(err, st, "port_hamiltonian assembly statics: load step to factor %.6g failed: %s", next,
                             e.message);
                break;
            }
            report->failed_attempts++;
            dl *= 0.5;
            st = CR_OK;
            continue;
        }
        lf = next;
        for (int j = 0; j < s->joints; ++j) s->theta[j] = th_from[j] + next * (s->drive_angle[j] - th_from[j]);
        for (int r = 0; r < s->rods; ++r) {
            if (s->rod[r]->load_count > 0)
                memcpy(s->rod[r]->scale, mag + s->first_load[r], s->rod[r]->load_count * sizeof *mag);
            s->rod[r]->load_factor = lf;
        }
        s->load_factor = lf;
        if (cr_static_report_append(report, lf, its, &res, 1) != CR_OK) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory");
            break;
        }
        report->final_residual = res;
        if (o->adaptive) {
            if (its <= 4)
                dl = fmin(2 * dl, o->max_increment > 0 ? o->max_increment : 1.0);
            else if (its >= 8)
                dl *= 0.5;
        }
        const int k = report->step_count - 1;
        if (cb->on_load_step && cb->on_load_step(sim, &report->steps[k], k, cb->user)) {
            st = CR_INTERRUPTED;
            break;
        }
    }
    report->converged = st == CR_OK;
    report->load_factor = lf;
    report->wall_time_s = cr_wall_seconds() - wall0;
    free(from), free(target), free(mag), free(th_from);
    return st;
}

/* ---- accessors: the one-rod table's on the rod of the index ---- */
static int node_count(const void *impl)
{
    const pha_sim *s = impl;
    return s->first_node[s->rods];
}
static double node_s(const void *impl, int i)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    return cr_ph_formulation.node_s(s->rod[r], i);
}
static void node_pose(const void *impl, int i, cr_vec3 *x, cr_quat *q)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    cr_ph_formulation.node_pose(s->rod[r], i, x, q);
}
static cr_status reaction(const void *impl, int i, cr_vec3 *f, cr_vec3 *m)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    return cr_ph_formulation.reaction(s->rod[r], i, f, m);
}
static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    cr_ph_formulation.node_velocity(s->rod[r], i, v, w);
}
static int sample_count(const void *impl)
{
    const pha_sim *s = impl;
    return s->first_sample[s->rods];
}
static double sample_s(const void *impl, int g)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_sample, s->rods, &g);
    return cr_ph_formulation.sample_s(s->rod[r], g);
}
static void sample(const void *impl, int g, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *n, cr_vec3 *m)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_sample, s->rods, &g);
    cr_ph_formulation.sample(s->rod[r], g, gamma, kappa, n, m);
}
static int contact(const void *impl, int i, cr_contact_sample *out)
{
    const pha_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    return cr_ph_formulation.contact(s->rod[r], i, out);
}
static double time_of(const void *impl) { return cr_ph_time(((const pha_sim *)impl)->rod[0]->k); }
static double load_factor(const void *impl) { return ((const pha_sim *)impl)->load_factor; }
static int series_extra(const void *impl, const char *const **names)
{
    const pha_sim *s = impl;
    *names = s->columns;
    return s->ncolumns + (any_contact(s, 0) ? (any_contact(s, 1) ? 4 : 3) : 0);
}
static double *load_input(void *impl) { return ((pha_sim *)impl)->inputs; }

/* checkpoints: every rod's (its load factor, magnitudes, inputs, kernel), the joints' multipliers
 * and interface values, the assembly's load factor and inputs */
static int packed_size(const void *impl)
{
    const pha_sim *s = impl;
    int n = 1 + s->first_load[s->rods] + cr_ph_asm_packed_size(s->a) + (s->drives ? 5 * s->joints : 0);
    for (int r = 0; r < s->rods; ++r) n += cr_ph_formulation.packed_size(s->rod[r]);
    return n;
}
static void pack(const void *impl, double *out)
{
    const pha_sim *s = impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_ph_formulation.pack(s->rod[r], out);
        out += cr_ph_formulation.packed_size(s->rod[r]);
    }
    cr_ph_asm_pack(s->a, out);
    out += cr_ph_asm_packed_size(s->a);
    *out++ = s->load_factor;
    memcpy(out, s->inputs, sizeof(double) * (size_t)s->first_load[s->rods]);
    out += s->first_load[s->rods];
    if (s->drives)
        for (int j = 0; j < s->joints; ++j) {
            out[0] = s->theta[j], out[1] = s->drive_input[j], out[2] = s->drive_from[j];
            out[3] = s->drive_rate[j], out[4] = s->drive_target[j], out += 5;
        }
}
static void unpack(void *impl, const double *in)
{
    pha_sim *s = impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_ph_formulation.unpack(s->rod[r], in);
        in += cr_ph_formulation.packed_size(s->rod[r]);
    }
    cr_ph_asm_unpack(s->a, in);
    in += cr_ph_asm_packed_size(s->a);
    s->load_factor = *in++;
    memcpy(s->inputs, in, sizeof(double) * (size_t)s->first_load[s->rods]);
    in += s->first_load[s->rods];
    if (s->drives)
        for (int j = 0; j < s->joints; ++j) {
            s->theta[j] = in[0], s->drive_input[j] = in[1], s->drive_from[j] = in[2];
            s->drive_rate[j] = in[3], s->drive_target[j] = in[4], in += 5;
        }
}
static uint64_t fingerprint(const void *impl)
{
    const pha_sim *s = impl;
    uint64_t h = 1469598103934665603ULL;
    for (int r = 0; r < s->rods; ++r) h = (h ^ cr_ph_formulation.fingerprint(s->rod[r])) * 1099511628211ULL;
    h = (h ^ (uint64_t)cr_ph_asm_packed_size(s->a)) * 1099511628211ULL;
    h = (h ^ (uint64_t)s->joints_hash) * 1099511628211ULL; /* (springs, stops, drives: as defined) */
    return cr_ph_asm_fingerprint(s->a, h);
}

static int rod_count(const void *impl) { return ((const pha_sim *)impl)->rods; }
static const char *rod_name(const void *impl, int r) { return ((const pha_sim *)impl)->names[r]; }
static int rod_first_node(const void *impl, int r) { return ((const pha_sim *)impl)->first_node[r]; }
static int rod_first_sample(const void *impl, int r) { return ((const pha_sim *)impl)->first_sample[r]; }
static int joint_count(const void *impl) { return ((const pha_sim *)impl)->joints; }
static const char *joint_name(const void *impl, int j) { return ((const pha_sim *)impl)->joint_names[j]; }
static cr_status joint_reaction(const void *impl, int j, cr_vec3 *f, cr_vec3 *m)
{
    cr_ph_asm_joint_reaction(((const pha_sim *)impl)->a, j, f, m);
    return CR_OK;
}
static int joint_limit(const void *impl, int j, int which, double *value, double *force)
{
    return cr_ph_asm_joint_limit(((const pha_sim *)impl)->a, j, which, value, force);
}
static cr_status set_joint_drive_input(void *impl, int j, double value)
{
    pha_sim *s = impl;
    if (!s->has_drive[j]) return CR_BAD_INPUT;
    s->drive_input[j] = value;
    return CR_OK;
}
static double joint_drive_input(const void *impl, int j)
{
    const pha_sim *s = impl;
    return s->has_drive[j] ? s->drive_input[j] : NAN;
}

const cr_formulation cr_ph_assembly_formulation = {
    .name = "port_hamiltonian",
    .bytes_per_element_static = 2.6e4, /* as one rod's: an assembly costs what its rods cost */
    .bytes_per_element_dynamic = 2e4,
    .check = pha_check,
    .create = NULL, /* create_assembly */
    .destroy = pha_destroy,
    .static_stage = pha_static,
    .dynamic_stage = pha_dynamic,
    .node_count = node_count,
    .node_s = node_s,
    .node_pose = node_pose,
    .node_velocity = node_velocity,
    .sample_count = sample_count,
    .sample_s = sample_s,
    .sample = sample,
    .time = time_of,
    .load_factor = load_factor,
    .reaction = reaction,
    .body_count = NULL,
    .contact = contact,
    .series_extra = series_extra,
    .load_input = load_input,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .fingerprint = fingerprint,
    .assembly = &cr_ph_assembly_formulation,
    .create_assembly = pha_create,
    .rod_count = rod_count,
    .rod_name = rod_name,
    .rod_first_node = rod_first_node,
    .rod_first_sample = rod_first_sample,
    .joint_count = joint_count,
    .joint_name = joint_name,
    .joint_reaction = joint_reaction,
    .set_joint_drive_input = set_joint_drive_input,
    .joint_drive_input = joint_drive_input,
    .joint_limit = joint_limit,
};
