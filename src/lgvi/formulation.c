/* The Lie-group variational integrator rod (lgvi.c) behind the formulation
 * table (model/formulation.h): the shared rod definition discretized into its
 * nodes, loads sampled at t_k (spec §2.3, rectangle rule), dynamic stages with a
 * fixed step, and the formulation-neutral accessors.
 *
 * Frames. The kernel follows the paper: the rod axis is the body E3 axis. The
 * library's body basis has x along the rod. With Q = [e_y e_z e_x] (columns),
 * R_lgvi = A Q, so body components map as (E1, E2, E3) = (y, z, x). */
#include "contact/contact.h"
#include "contact/rodcontact.h"
#include "lgvi/formulation_internal.h"
#include "lgvi/lgvi.h"
#include "model/fixed_step.h"
#include "model/rod_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* library body components (x axial, y, z) from/to the kernel's (E1, E2, E3 = axis) */
static cr_vec3 from_k(cr_vec3 v) { return cr_v3(v.z, v.x, v.y); }
static cr_vec3 to_k(cr_vec3 v) { return cr_v3(v.y, v.z, v.x); }
static cr_mat3 Q(void) { return cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0)); }

/* ---- what the scheme can represent: checked before anything runs ---- */

/* A clamp moved to `position` by its `time` factor (no rotation, every stage): this adapter
 * prescribes its node's pose at every step (the kernel's external node, docs/lgvi.md "Damping and
 * moving clamps"); every other clamp is the kernel's, held at the reference pose. */
static int moving_clamp(const cr_bc_def *b)
{
    return b->type == CR_BC_CLAMP && b->has_position && b->rotation_kind == CR_BC_ROTATION_NONE && b->stages == 0 &&
           b->motion_count == 0;
}

/* The end clamps (cr_rod_end_clamps's rules) with the moving ones taken out of *start / *end and
 * checked: the rod starts at its reference, so the motion's factor must be 0 at t = 0. */
static cr_status lgvi_clamps(const cr_rod_def *def, int *start, int *end, cr_error *err)
{
    cr_bc_def *b = malloc((def->bc_count > 0 ? def->bc_count : 1) * sizeof *b);
    if (!b) return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
    int moved[2] = {0, 0};
    for (int k = 0; k < def->bc_count; ++k) {
        b[k] = def->bcs[k];
        if (b[k].motion_count > 0) {
            free(b);
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.motion: the lgvi model moves a clamp by `position` and `time` "
                                "only (motion tables: mixed_discrete)",
                                k);
        }
        if (!moving_clamp(&b[k])) continue;
        const double f0 = cr_time_function_eval(&b[k].time, 0.0);
        if (f0 != 0) {
            free(b);
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.time: the lgvi model starts from the reference pose, so a "
                                "clamp moved to `position` needs a motion factor 0 at t = 0 (got %g; e.g. a ramp "
                                "from t0 = 0)",
                                k, f0);
        }
        b[k].has_position = 0, b[k].time = (cr_time_function){0}; /* a plain clamp for the end rules */
        const int node = b[k].node < 0 ? b[k].node + def->elements + 1 : b[k].node;
        moved[node != 0] = 1;
    }
    cr_rod_def d = *def;
    d.bcs = b;
    cr_status st = cr_rod_end_clamps(&d, "lgvi", start, end, err);
    free(b);
    if (moved[0]) *start = 0;
    if (moved[1]) *end = 0;
    return st;
}

/* The kernel's parameters: one set of resultants (uniform section), clamps at the ends. */
static cr_status kernel_params(const cr_rod_def *def, const cr_model_options *o, cr_lgvi_params *p, cr_error *err)
{
    cr_section_resultants r0;
    cr_status st = cr_rod_uniform_section(def, "lgvi", &r0, err);
    if (st == CR_OK) st = lgvi_clamps(def, &p->clamp_start, &p->clamp_end, err);
    if (st != CR_OK) return st;
    p->elements = def->elements;
    p->length = def->length;
    p->rhoA = r0.rhoA;
    p->rhoJ = to_k(cr_v3(r0.rhoJ_x, r0.rhoI_y, r0.rhoI_z));
    p->C1 = to_k(cr_v3(r0.EA, r0.GA_y, r0.GA_z));
    p->C2 = to_k(cr_v3(r0.GJ, r0.EI_y, r0.EI_z));
    p->dilatation = o->dilatation;
    p->chart = o->chart;
    p->strains = o->strains;
    p->h = 1.0; /* set per dynamic stage (time_step) */
    /* the contact springs (docs/lgvi.md "Contact"): contact.stiffness, else the mixed rod's
     * default min(EA/l, 12 EI/l³), the stiffness of one element against a push at its end */
    p->contact_stiffness = p->self_contact_stiffness = 0;
    if (def->obstacle_count > 0 || def->contact.self) {
        double l = def->length / def->elements, EI = fmin(p->C2.x, p->C2.y);
        const double k =
            def->contact.stiffness > 0 ? def->contact.stiffness : fmin(p->C1.z / l, 12.0 * EI / (l * l * l));
        /* the self-contact's ε per pair is the same number, as the mixed rod's (docs/scenario.md
         * contact.self: `stiffness` as for obstacles) */
        if (def->obstacle_count > 0) p->contact_stiffness = k;
        if (def->contact.self) p->self_contact_stiffness = k;
    }
    if (!(p->rhoA > 0) || !(r0.rhoI_y > 0) || !(r0.rhoI_z > 0))
        return cr_error_set(err, CR_BAD_INPUT,
                            "rod: the lgvi model integrates the rod's inertia: it needs a mass per "
                            "length and rotational inertias > 0 (rod.material.rho, or rhoA, "
                            "rhoI_y, rhoI_z of a resultants section)");
    return CR_OK;
}

static void *lgvi_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err);
static void lgvi_destroy(void *impl);

static cr_vec3 lgvi_node_position(const void *s, int i) { return cr_lgvi_position(((const lgvi_sim *)s)->k, i); }

/* Obstacles (fixed or moving, at their poses of t = 0): no node starting inside one deeper than
 * contact.tolerance (named with its depth, as the mixed rod does). */
static cr_status contact_check(const cr_scenario *sc, cr_error *err)
{
    const cr_rod_def *d = &sc->rod;
    lgvi_sim *s = lgvi_create(d, &sc->model, err);
    if (!s) return err ? err->status : CR_BAD_INPUT;
    cr_status st = s->contact ? cr_contact_check_start(s->contact, lgvi_node_position, s, s->s, err) : CR_OK;
    if (st == CR_OK && s->self) { /* not inside itself, as the mixed rod (mixed/selfcontact.c) */
        int a = -1, b = -1;
        for (int i = 0; i < s->nodes; ++i) cr_v3_store(cr_lgvi_position(s->k, i), s->xs + 3 * i);
        const double g = cr_rodcontact_min_gap(s->self, s->xs, 3, &a, &b);
        if (g < -s->self->tol)
            st = cr_error_set(err, CR_BAD_INPUT,
                              "contact.self: the rod starts inside itself: the segment of nodes %d–%d and that of "
                              "nodes %d–%d overlap by %.3g m (more than the tolerance %.3g m)",
                              a, a + 1, b, b + 1, -g, s->self->tol);
    }
    lgvi_destroy(s);
    return st;
}

static cr_status lgvi_check(const cr_scenario *sc, cr_error *err)
{
    /* assemblies: their own table (assembly.c), which checks every rod through this function */
    if (cr_scenario_is_assembly(sc)) {
        /* what this adapter applies to one rod but the assemblies' step (assembly.c) does not */
        int self = sc->rod.contact.self;
        for (int r = 0; r < sc->rod_count; ++r) {
            const cr_rod_def *d = &sc->rods[r].rod;
            self |= d->contact.self;
            if (cr_damping_active(&d->damping))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "rods.%d ('%s'): rod.damping: the lgvi model's drag is a single rod's; in an "
                                    "assembly it is the mixed_discrete model's",
                                    r, sc->rods[r].name);
            for (int k = 0; k < d->bc_count; ++k)
                if (moving_clamp(&d->bcs[k]))
                    return cr_error_set(err, CR_BAD_INPUT,
                                        "rods.%d ('%s'): boundary_conditions.%d.position: the lgvi model moves the "
                                        "clamps of a single rod; an assembly's clamp stays at the reference pose",
                                        r, sc->rods[r].name, k);
        }
        (void)self; /* contact.self and contact.rods: the assembly's (segcontact.c, checked there) */
        /* contact.rods_friction: the pairs' tangential springs (segcontact.c), the assembly's */
        return cr_lgvi_assembly_formulation.check(sc, err);
    }
    const cr_rod_def *d = &sc->rod;
    if (d->contact.rods)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.rods: contact between the rods of an assembly needs several rods (rods); one "
                            "rod's contact with itself is contact.self");
    if (d->contact.rods_mu_static > 0)
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.rods_friction: friction between rods is an assembly's (rods, in the "
                            "mixed_discrete and lgvi models); the lgvi model's single rod's self-contact is "
                            "frictionless");
    cr_status fst = cr_foreign_options_check(sc, "lgvi", err);
    if (fst != CR_OK) return fst;
    for (int k = 0; k < 6; ++k)
        if (d->damping.relaxation_time[k] > 0 || d->damping.coefficients[k] > 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "rod.damping.%s: the lgvi model's damping is the nodes' drag and rotational_drag "
                                "(explicit forces of the step); material damping is the mixed_discrete and "
                                "port_hamiltonian models'",
                                d->damping.relaxation_time[k] > 0 ? "relaxation_time" : "coefficients");
    if (d->rigid_strains)
        return cr_error_set(err, CR_BAD_INPUT,
                            "rod.rigid_strains: the lgvi model has no rigid strain components "
                            "(its explicit step needs every compliance finite); use the "
                            "port_hamiltonian model (rigid strains in statics and dynamics) or "
                            "the mixed_discrete model (statics)");
    if (d->rigid_body_count > 0)
        return cr_error_set(err, CR_BAD_INPUT,
                            "rigid_bodies: not supported by the lgvi model (use the "
                            "mixed_discrete model)");
    for (int k = 0; k < d->load_count; ++k)
        if (d->loads[k].type == CR_LOAD_TENDON || d->loads[k].type == CR_LOAD_CHAMBER)
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.type: %s loads are not supported by the lgvi model (%s)",
                                k, d->loads[k].type == CR_LOAD_TENDON ? "tendon" : "chamber",
                                d->loads[k].type == CR_LOAD_TENDON ? "use the mixed_discrete or port_hamiltonian model"
                                                                   : "use the port_hamiltonian model");
    cr_lgvi_params p = {0};
    cr_status st = kernel_params(d, &sc->model, &p, err);
    if (st != CR_OK) return st;
    if ((d->obstacle_count > 0 || d->contact.self) && (st = contact_check(sc, err)) != CR_OK) return st;
    for (int k = 0; k < sc->stage_count; ++k) {
        const cr_stage_def *s = &sc->stages[k];
        if (s->type == CR_STAGE_STATIC)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.type: the lgvi model has no static stages (it is an explicit "
                                "time integrator); use a dynamic stage, or the mixed_discrete model for statics",
                                k);
        const cr_dynamic_options *o = &s->dynamics;
        if ((st = cr_fixed_step_stage_check(sc, k, "lgvi", err)) != CR_OK) return st;
        p.h = o->time_step;
        double hmax = cr_lgvi_stable_step(&p);
        if (o->time_step > hmax && (p.contact_stiffness > 0 || p.self_contact_stiffness > 0)) {
            const double l = p.length / p.elements;
            /* the obstacles' ω_c² = k_c/m_node and the self-contact's 4 ε/m_node (lgvi.c) */
            const double wc = sqrt((p.contact_stiffness + 4.0 * p.self_contact_stiffness) / (p.rhoA * l));
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s exceeds the stable step of the explicit lgvi scheme with "
                                "contact, about %.3g s: the rod's waves together with the %s "
                                "(contact.stiffness k_c = %.4g N/m, ω_c = %.4g rad/s); use a smaller step or a "
                                "smaller contact.stiffness",
                                k, o->time_step, hmax,
                                p.contact_stiffness > 0 && p.self_contact_stiffness > 0
                                    ? "obstacles' contact springs and the self-contact's penalty"
                                : p.contact_stiffness > 0 ? "obstacles' contact springs"
                                                          : "self-contact's penalty",
                                fmax(p.contact_stiffness, p.self_contact_stiffness), wc);
        }
        if (o->time_step > hmax)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s exceeds the stable step of the explicit lgvi scheme, about "
                                "%.3g s for these elements (CFL limit of the stiffest axial, shear, bending or "
                                "twist wave); use a smaller step or fewer elements",
                                k, o->time_step, hmax);
    }
    return CR_OK;
}

/* ---- create / destroy ---- */
static void lgvi_destroy(void *impl)
{
    lgvi_sim *s = impl;
    if (!s) return;
    cr_lgvi_destroy(s->k);
    cr_contact_destroy(s->contact);
    cr_rodcontact_destroy(s->self);
    free(s->xs);
    for (int k = 0; k < s->moving_count; ++k) free((void *)s->moving_time[k].points);
    free(s->fc), free(s->sliding), free(s->fr_N), free(s->fr_n), free(s->pose1), free(s->fr_u);
    cr_loads_free(s->loads, s->load_count);
    free(s->s);
    free(s->s_mid);
    free(s->gamma0);
    free(s->kappa0);
    free(s->lumped);
    free(s->f);
    free(s->c);
    free(s->stage_factor);
    free(s->input);
    free(s);
}

/* Reference strains of element e in library components (x axial): the same
 * strain measures the kernel uses (spec §2.1, or the midpoint frame), evaluated on the reference. */
static void reference_strains(const lgvi_sim *s, const cr_vec3 *x, const cr_mat3 *R, int e, double l)
{
    cr_mat3 Rt = cr_m3_transpose(R[e]);
    cr_mat3 Lam = cr_m3_mul(Rt, R[e + 1]);
    if (s->p.strains == CR_LGVI_STRAINS_MIDPOINT) {
        /* Γ in the midpoint frame R_e exp(½ log Λ) (lgvi.h): with Λ's quaternion (w, v), w >= 0,
         * exp(½ log Λ) is the rotation of the quaternion (1 + w, v) */
        cr_quat ql = cr_q_from_matrix(Lam);
        if (ql.w < 0) ql = cr_q_scale(ql, -1.0);
        Rt = cr_m3_transpose(cr_m3_mul(R[e], cr_q_exp(cr_q(1.0 + ql.w, ql.x, ql.y, ql.z))));
    }
    cr_vec3 g = cr_v3_scale(cr_m3_mulv(Rt, cr_v3_sub(x[e + 1], x[e])), 1.0 / l);
    cr_vec3 w; /* τ⁻¹(Λ)/l */
    cr_vec3 skew =
        cr_v3(0.5 * (Lam.m[2][1] - Lam.m[1][2]), 0.5 * (Lam.m[0][2] - Lam.m[2][0]), 0.5 * (Lam.m[1][0] - Lam.m[0][1]));
    double tr = Lam.m[0][0] + Lam.m[1][1] + Lam.m[2][2];
    if (s->p.chart == CR_LGVI_CHART_CAYLEY) {
        w = cr_v3_scale(skew, 4.0 / (1 + tr)); /* 2(Λ−Λᵀ)^∨/(1+trΛ) */
    } else {
        double sn = cr_v3_norm(skew), th = atan2(sn, 0.5 * (tr - 1));
        w = cr_v3_scale(skew, sn > 1e-300 ? th / sn : 1.0);
    }
    /* the kernel's reference Γ is relative to E3: the library reports the full stretch vector */
    s->gamma0[e] = from_k(g);
    s->kappa0[e] = from_k(cr_v3_scale(w, 1.0 / l));
}

/* The contact of the rod (docs/lgvi.md "Contact"): the contact radius of each node
 * (contact.radius, else the section's: a circle's radius, a rectangle's larger half side), the
 * spring k_c w_i of node i (w_i its lumped length over l: a uniformly loaded rod sinks
 * uniformly, and every node's ω_c² = k_c/(ρA l)), the tolerance of the start check
 * (contact.tolerance, else 1e-4 × the smallest radius). The pairs are never anchored nor given
 * multipliers: cr_contact_node_force is then the plain frictionless penalty k_i max(0, −g) n. */
cr_status cr_lgvi_sim_contact_params(const lgvi_sim *s, const cr_rod_def *def, double *radius, double *eps, double *tol,
                                     cr_error *err)
{
    cr_section_props sp;
    cr_section_eval(def, 0.0, &sp); /* the section is uniform (kernel_params) */
    const double a = def->contact.radius > 0 ? def->contact.radius : fmax(sp.extent_y, sp.extent_z);
    if (!(a > 0) || !isfinite(a))
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.radius: the section has no geometry (given by its resultants): give the contact "
                            "radius");
    for (int i = 0; i < s->nodes; ++i) radius[i] = a;
    const double l = s->p.length / s->p.elements, EI = fmin(s->p.C2.x, s->p.C2.y);
    *eps = def->contact.stiffness > 0 ? def->contact.stiffness : fmin(s->p.C1.z / l, 12.0 * EI / (l * l * l));
    *tol = def->contact.tolerance > 0 ? def->contact.tolerance : 1e-4 * a;
    return CR_OK;
}

cr_status cr_lgvi_def_stable_step(const cr_rod_def *def, const cr_model_options *o, double h, int segments,
                                  double *hmax, double *k, cr_error *err)
{
    cr_lgvi_params p = {0};
    cr_status st = kernel_params(def, o, &p, err);
    if (st != CR_OK) return st;
    const double l = p.length / p.elements, EI = fmin(p.C2.x, p.C2.y);
    const double kc = def->contact.stiffness > 0 ? def->contact.stiffness : fmin(p.C1.z / l, 12.0 * EI / (l * l * l));
    if (segments) p.self_contact_stiffness = kc;
    if (segments > 1) {
        /* contact.rods_friction: the pair's tangential spring ε P acts at the contact point, a lever a
         * (the contact radius) from the centreline, so besides the nodes' translations (the penalty's
         * bound: normal and tangential springs together are ε (w wᵀ) ⊗ I, no stiffer than ε (w wᵀ) ⊗ n nᵀ)
         * it turns their sections: ε w² a²/(ρJ l) with the smallest of the node's inertias, on top of
         * ε w²/(ρA l): the segments' term times 1 + a² ρA/ρJ_min (5 for a solid circle of radius a) */
        cr_section_props sp;
        cr_section_eval(def, 0.0, &sp);
        const double a = def->contact.radius > 0 ? def->contact.radius : fmax(sp.extent_y, sp.extent_z);
        const double J = fmin(p.rhoJ.x, fmin(p.rhoJ.y, p.rhoJ.z));
        if (a > 0 && J > 0) p.self_contact_stiffness *= 1 + a * a * p.rhoA / J;
    }
    p.h = h;
    *hmax = cr_lgvi_stable_step(&p);
    *k = p.contact_stiffness > 0 || segments ? kc : 0;
    return CR_OK;
}

static cr_status create_contact(lgvi_sim *s, const cr_rod_def *def, cr_error *err)
{
    double *radius = malloc(s->nodes * sizeof *radius), *weight = malloc(s->nodes * sizeof *weight);
    s->fc = calloc(s->nodes, sizeof *s->fc);
    cr_status st = CR_OK;
    double l = s->p.length / s->p.elements, tol, eps;
    if (!radius || !weight || !s->fc) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
        goto done;
    }
    if ((st = cr_lgvi_sim_contact_params(s, def, radius, &eps, &tol, err)) != CR_OK) goto done;
    for (int i = 0; i < s->nodes; ++i) weight[i] = s->lumped[i] / l;
    if (def->obstacle_count > 0) {
        s->contact = cr_contact_create(s->nodes, radius, weight, def->obstacle_count, def->obstacles,
                                       s->p.contact_stiffness, tol, 1);
        if (!s->contact) st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
    }
    /* the self-contact: the mixed rod's pairs, broad phase and Verlet list (contact/rodcontact.h),
     * with no multipliers (λ = 0): the penalty max(0, −ε g) on the segments' closest points */
    if (st == CR_OK && def->contact.self) {
        s->self = cr_rodcontact_create(s->nodes, radius, s->s, s->p.self_contact_stiffness, tol);
        s->xs = malloc(3 * (size_t)s->nodes * sizeof *s->xs);
        if (!s->self || !s->xs) st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
    }
    int friction = 0;
    for (int k = 0; k < def->obstacle_count; ++k) friction |= def->obstacles[k].mu_static > 0;
    for (int k = 0; st == CR_OK && k < def->obstacle_count; ++k) s->moving_obstacles |= s->contact->path[k].moves;
    if (st == CR_OK && friction) {
        const int n = def->obstacle_count;
        s->rolling = def->contact.rolling;
        s->sliding = calloc(s->nodes, 1);
        s->fr_N = malloc(n * sizeof *s->fr_N), s->fr_n = malloc(n * sizeof *s->fr_n);
        if (s->moving_obstacles) s->pose1 = malloc(n * sizeof *s->pose1), s->fr_u = malloc(n * sizeof *s->fr_u);
        if (!s->sliding || !s->fr_N || !s->fr_n || (s->moving_obstacles && (!s->pose1 || !s->fr_u)))
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
    }
done:
    free(radius);
    free(weight);
    return st;
}

static void *lgvi_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err)
{
    if (cr_rod_validate(def, err) != CR_OK) return NULL;
    lgvi_sim *s = calloc(1, sizeof *s);
    int K = def->elements, nn = K + 1;
    cr_vec3 *x0 = malloc(nn * sizeof *x0);
    cr_mat3 *R0 = malloc(nn * sizeof *R0);
    if (!s || !x0 || !R0) goto oom;
    if (kernel_params(def, o, &s->p, err) != CR_OK) goto fail;
    s->nodes = nn;
    s->s = calloc(nn, sizeof *s->s);
    s->s_mid = calloc(K, sizeof *s->s_mid);
    s->gamma0 = calloc(K, sizeof *s->gamma0);
    s->kappa0 = calloc(K, sizeof *s->kappa0);
    s->lumped = calloc(nn, sizeof *s->lumped);
    s->f = calloc(nn, sizeof *s->f);
    s->c = calloc(nn, sizeof *s->c);
    s->load_count = def->load_count;
    s->loads = cr_loads_copy(def, err);
    s->stage_factor = calloc(def->load_count > 0 ? def->load_count : 1, sizeof *s->stage_factor);
    s->input = malloc((def->load_count > 0 ? def->load_count : 1) * sizeof *s->input);
    if (!s->s || !s->s_mid || !s->gamma0 || !s->kappa0 || !s->lumped || !s->f || !s->c || !s->loads ||
        !s->stage_factor || !s->input)
        goto oom;
    for (int k = 0; k < (def->load_count > 0 ? def->load_count : 1); ++k) s->input[k] = 1.0;
    /* reference poses: equally spaced in arc length, or the given nodes (cumulative chord) */
    double L = def->length;
    cr_mat3 q = Q();
    for (int i = 0; i < nn; ++i) {
        cr_quat p;
        if (def->reference.type == CR_REFERENCE_NODES) {
            x0[i] = def->reference.node_positions[i];
            p = cr_q_normalize(def->reference.node_orientations[i]);
            s->s[i] = i ? s->s[i - 1] + cr_v3_norm(cr_v3_sub(x0[i], x0[i - 1])) : 0;
        } else {
            s->s[i] = L * i / K;
            cr_rod_reference_pose(def, s->s[i], &x0[i], &p);
        }
        R0[i] = cr_m3_mul(cr_q_exp(p), q);
    }
    if (def->reference.type == CR_REFERENCE_NODES) s->p.length = s->s[nn - 1];
    for (int e = 0; e < K; ++e) {
        double l = s->s[e + 1] - s->s[e];
        s->s_mid[e] = 0.5 * (s->s[e] + s->s[e + 1]);
        s->lumped[e] += 0.5 * l;
        s->lumped[e + 1] += 0.5 * l;
        reference_strains(s, x0, R0, e, l);
    }
    for (int k = 0; k < def->load_count; ++k)
        if (s->loads[k].node < 0) s->loads[k].node += nn;
    s->k = cr_lgvi_create(&s->p, x0, R0, err);
    if (!s->k) goto fail;
    s->drag = to_k(def->damping.drag), s->rotational_drag = to_k(def->damping.rotational_drag);
    for (int k = 0; k < def->bc_count; ++k) { /* moving clamps: the kernel's external nodes */
        const cr_bc_def *b = &def->bcs[k];
        if (!moving_clamp(b) || s->moving_count == 2) continue;
        const int m = s->moving_count, node = b->node < 0 ? b->node + nn : b->node;
        if (cr_lgvi_set_external(s->k, node, CR_LGVI_EXTERNAL_TRANSLATION | CR_LGVI_EXTERNAL_ROTATION) != CR_OK)
            goto oom;
        s->moving_node[m] = node, s->moving_ref[m] = x0[node], s->moving_target[m] = b->position;
        s->moving_time[m] = b->time;
        s->moving_time[m].points = NULL;
        s->moving_count++;
        if (b->time.type == CR_TIME_TABLE && b->time.point_count > 0) {
            cr_time_point *pts = malloc(b->time.point_count * sizeof *pts);
            if (!pts) goto oom;
            memcpy(pts, b->time.points, b->time.point_count * sizeof *pts);
            s->moving_time[m].points = pts;
        }
    }
    if ((def->obstacle_count > 0 || def->contact.self) && create_contact(s, def, err) != CR_OK) goto fail;
    free(x0);
    free(R0);
    return s;
oom:
    cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi model");
fail:
    free(x0);
    free(R0);
    lgvi_destroy(s);
    return NULL;
}

/* ---- loads at t_k (spec §2.3: rectangle rule), spatial nodal forces and moments ---- */
static void sample_loads(lgvi_sim *s, double t)
{
    memset(s->f, 0, s->nodes * sizeof *s->f);
    memset(s->c, 0, s->nodes * sizeof *s->c);
    for (int k = 0; k < s->load_count; ++k) {
        const cr_load_def *l = &s->loads[k];
        /* the input is read at every step: one set at an output time holds from there */
        double a = s->stage_factor[k] * s->input[k] * cr_time_function_eval(&l->time, t);
        if (a == 0) continue;
        cr_vec3 v = cr_v3_scale(l->value, a);
        switch (l->type) {
        case CR_LOAD_FORCE:
        case CR_LOAD_MOMENT: {
            int i = l->node;
            /* a follower load keeps its components in the node's body basis A = R_lgvi Qᵀ */
            cr_vec3 w = l->frame == CR_FRAME_BODY ? cr_m3_mulv(cr_lgvi_rotation(s->k, i), to_k(v)) : v;
            cr_vec3 *dst = l->type == CR_LOAD_FORCE ? &s->f[i] : &s->c[i];
            *dst = cr_v3_add(*dst, w);
            break;
        }
        case CR_LOAD_FORCE_DENSITY:
        case CR_LOAD_MOMENT_DENSITY:
            /* lumped to the nodes with the same weights as the masses (spec §2.2) */
            for (int i = 0; i < s->nodes; ++i) {
                cr_vec3 w = l->frame == CR_FRAME_BODY ? cr_m3_mulv(cr_lgvi_rotation(s->k, i), to_k(v)) : v;
                cr_vec3 *dst = l->type == CR_LOAD_FORCE_DENSITY ? &s->f[i] : &s->c[i];
                *dst = cr_v3_madd(*dst, s->lumped[i], w);
            }
            break;
        case CR_LOAD_GRAVITY:
            for (int i = 0; i < s->nodes; ++i) s->f[i] = cr_v3_madd(s->f[i], cr_lgvi_node_mass(s->k, i), v);
            break;
        default:
            break; /* tendons are rejected by lgvi_check */
        }
    }
}

/* The self-contact's forces at the current positions x^k added to fc (NULL: not wanted), and the
 * penalty's energy Σ ½ ε g² over the pressing pairs (g = d − (a₁ + a₂) < 0 on the segments'
 * closest points): the pair's force N n, N = −ε g, shared by its four nodes with the closest
 * points' weights, is −∂(½ ε g²)/∂x (the closest points are stationary: their motion does not
 * enter the first derivative). Its forces sum to zero and their moments too (each acts at the
 * closest points, along the line joining them), so the step keeps Σ p and Σ (x × p + R μ).
 * NAN when out of memory (the step then fails as non-finite). */
static double self_contact_forces(const lgvi_sim *s, cr_vec3 *fc)
{
    cr_rodcontact *c = s->self;
    for (int i = 0; i < s->nodes; ++i) cr_v3_store(cr_lgvi_position(s->k, i), s->xs + 3 * i);
    const int np = cr_rodcontact_find(c, s->xs, 3);
    if (np < 0) return NAN;
    double V = 0;
    for (int k = 0; k < np; ++k) {
        const cr_rodpair *p = &c->pair[k];
        const double R = 0.5 * (c->radius[p->a] + c->radius[p->a + 1] + c->radius[p->b] + c->radius[p->b + 1]),
                     g = p->cp.dist - R;
        V += 0.5 * c->eps * g * g;
        if (!fc) continue;
        double f[12];
        cr_rodcontact_pair_force(c, k, s->xs, 3, f, NULL);
        const int nodes[4] = {p->a, p->a + 1, p->b, p->b + 1};
        for (int q = 0; q < 4; ++q) fc[nodes[q]] = cr_v3_add(fc[nodes[q]], cr_v3_load(f + 3 * q));
    }
    return V;
}

/* Obstacle k's signed distance and normal (I) at r at the contact's time: a moving obstacle's in its
 * own frame at its pose there (contact.h: cr_contact_local), the normal turned back into I; a fixed
 * one's as given (the same operations as before obstacles could move: the same results). */
static int obstacle_at(const cr_contact *c, int k, cr_vec3 r, double *phi, cr_vec3 *n)
{
    if (!c->path[k].moves) return cr_obstacle_distance(&c->obstacles[k], r, phi, n, NULL);
    cr_vec3 nl;
    if (!cr_obstacle_distance(&c->obstacles[k], cr_contact_local(c, k, r), phi, &nl, NULL)) return 0;
    *n = cr_m3_mulv(c->pose[k].R, nl);
    return 1;
}

/* The velocity (I) of obstacle k's material point at r at the contact's time: v + ω × (r − centre) */
static cr_vec3 surface_velocity(const cr_contact *c, int k, cr_vec3 r)
{
    const cr_obstacle_pose *ps = &c->pose[k];
    return cr_v3_add(ps->v, cr_v3_cross(ps->w, cr_v3_sub(r, cr_v3_add(c->obstacles[k].center, ps->shift))));
}

/* The moving obstacles placed at time t (their poses in the contact; nothing when all are fixed) */
static void place_obstacles(const lgvi_sim *s, double t)
{
    if (s->moving_obstacles && s->contact->time != t) cr_contact_set_time(s->contact, t);
}

/* The contact forces at the current positions x^k into fc (NULL: not wanted), and the springs'
 * energy V_c = Σ ½ k_i min(0, g)² (g = φ(x) − a; f = −∂V_c/∂x = k_i max(0, −g) n), with the
 * self-contact's (contact.self) added; the obstacles at their poses of the contact's time (t_k).
 * *P (may be NULL): the power of the springs' forces on the moving obstacles' surfaces, Σ f·u =
 * ∂V_c/∂t, the rate at which the obstacles work on the rod at fixed x. */
static double contact_forces(const lgvi_sim *s, cr_vec3 *fc, double *P)
{
    const cr_contact *c = s->contact;
    double V = 0, pw = 0;
    for (int i = 0; i < s->nodes && !c && fc; ++i) fc[i] = cr_v3(0, 0, 0);
    for (int i = 0; i < s->nodes && c; ++i) {
        const cr_vec3 r = cr_lgvi_position(s->k, i);
        const double ki = c->eps * c->weight[i];
        cr_vec3 f = cr_v3(0, 0, 0);
        for (int k = 0; k < c->obstacle_count; ++k) {
            double phi;
            cr_vec3 n;
            if (!obstacle_at(c, k, r, &phi, &n)) continue;
            const double g = phi - c->radius[i];
            if (!(g < 0)) continue;
            f = cr_v3_madd(f, -ki * g, n);
            V += 0.5 * ki * g * g;
            if (c->path[k].moves) pw += -ki * g * cr_v3_dot(n, surface_velocity(c, k, r));
        }
        if (fc) fc[i] = f;
    }
    if (s->self) V += self_contact_forces(s, fc);
    if (P) *P = pw;
    return V;
}

/* Coulomb friction (docs/lgvi.md "Friction"): the explicit step's new momentum of node i is
 * p^k = p^{k-1} + h (f_int + f), f its loads and contact springs at t_k, so the friction force that
 * stops its tangential momentum within the step follows from that trial p^k, which the kernel forms
 * (cr_lgvi_step_begin; no second internal-force evaluation): its tangential part p_t against each
 * obstacle touched with friction (normal force N, normal n). If |p_t| <= h mu_s N the node sticks: the
 * friction -p_t / h, exactly its tangential momentum (no creep, no anchor). Otherwise it slides:
 * -mu_k N p_t / |p_t|. Added to the pending step as a load of it (cr_lgvi_pending_add_force), like the
 * springs (its work, <= 0 while it slides, is in work_external). An assembly's shared node (the
 * kernel's external node) is one point of the summed mass: its friction is the same law on the summed
 * trial momentum and normal forces (assembly.c, with cr_lgvi_sim_touch and cr_lgvi_coulomb). */
void cr_lgvi_sim_touch(const lgvi_sim *s, int i, cr_vec3 r, double *N, cr_vec3 *n, cr_vec3 *u, double h)
{
    const cr_contact *c = s->contact;
    const double ki = c->eps * c->weight[i];
    for (int k = 0; k < c->obstacle_count; ++k) {
        const cr_obstacle_def *o = &c->obstacles[k];
        double phi;
        cr_vec3 nk;
        if (!(o->mu_static > 0) || !obstacle_at(c, k, r, &phi, &nk)) continue;
        const double g = phi - c->radius[i];
        if (!(g < 0)) continue;
        N[k] += -ki * g, n[k] = nk;
        if (!u) continue;
        u[k] = cr_v3(0, 0, 0);
        if (!c->path[k].moves) continue;
        /* where the obstacle's material point at r (at t_k) is at t_k + h: a node moving with it
         * sticks to that point, whatever the motion (a turning board's point moves on its arc, an
         * accelerating belt's by v h + a h²/2) */
        const cr_obstacle_pose *p1 = &s->pose1[k];
        const cr_vec3 X = cr_v3_sub(cr_contact_local(c, k, r), o->center);
        const cr_vec3 r1 = cr_v3_add(cr_v3_add(o->center, p1->shift), cr_m3_mulv(p1->R, X));
        u[k] = cr_v3_scale(cr_v3_sub(r1, r), 1.0 / h);
    }
}

cr_vec3 cr_lgvi_coulomb(const cr_contact *c, const double *N, const cr_vec3 *n, const cr_vec3 *u, double m,
                        cr_vec3 trial, double h, cr_vec3 *each, int *sliding)
{
    cr_vec3 total = cr_v3(0, 0, 0);
    *sliding = 0;
    for (int k = 0; k < c->obstacle_count; ++k) {
        if (each) each[k] = cr_v3(0, 0, 0);
        if (!(N[k] > 0)) continue;
        const cr_obstacle_def *o = &c->obstacles[k];
        /* the momentum relative to the surface (a fixed obstacle's u = 0: the trial itself) */
        const cr_vec3 q = u ? cr_v3_madd(trial, -m, u[k]) : trial;
        cr_vec3 pt = cr_v3_madd(q, -cr_v3_dot(q, n[k]), n[k]);
        double ut = cr_v3_norm(pt);
        const int slides = ut > h * o->mu_static * N[k];
        cr_vec3 ff = slides ? cr_v3_scale(pt, -o->mu_kinetic * N[k] / ut) : cr_v3_scale(pt, -1.0 / h);
        *sliding |= slides;
        if (each) each[k] = ff;
        total = cr_v3_add(total, ff);
        trial = cr_v3_madd(trial, h, ff);
    }
    return total;
}

/* Coulomb friction at the contact point c = r − a n of node i against obstacle k (docs/lgvi.md
 * "Friction"): the impulse j ⊥ n at c changes the node's linear momentum by j and its angular
 * momentum by (−a n) × j. Stick: j makes the velocity of the rod's material point at c over the step,
 * relative to the obstacle's surface, tangentially zero — the effective-mass solve of the point
 * (cr_lgvi_point_tangent_impulse, linearised at F = I), repeated on the rotation solve's actual F
 * until the slip velocity is at round-off (its error shrinks by ~|f| = |ω| h a pass). If
 * |j| > h mu_s N it slides: j scaled to h mu_k N (the stick impulse's direction: a fraction β <= 1
 * of it lowers the kinetic energy by (β − β²/2) vᵀW⁻¹v >= 0, friction stays dissipative). Re-based
 * every step at the current contact point: the anchor is the step's own, so rolling accumulates no
 * chord error. The loads f_node, c_node of the node grow with each impulse (the work's accounts). */
static cr_status contact_point_friction(lgvi_sim *s, int i, double h, cr_vec3 *f_node, cr_vec3 *c_node, int k,
                                        int *slides)
{
    const cr_contact *c = s->contact;
    const cr_obstacle_def *o = &c->obstacles[k];
    const cr_vec3 n = s->fr_n[k], X = cr_v3_scale(n, -c->radius[i]);
    cr_vec3 u = s->moving_obstacles ? s->fr_u[k] : cr_v3(0, 0, 0);
    /* fr_u is the velocity of the obstacle's material point at r; the surface point at c = r + X
     * moves by (R(t_k + h) R(t_k)ᵀ − E) X more over the step (a board tilting about an axis in its
     * plane: a n × ω) */
    if (s->moving_obstacles && c->path[k].moves)
        u = cr_v3_madd(u, 1.0 / h, cr_v3_sub(cr_m3_mulv(s->pose1[k].R, cr_m3_tmulv(c->pose[k].R, X)), X));
    cr_vec3 jt = cr_v3(0, 0, 0);
    double prev = INFINITY;
    for (int it = 0; it < 8; ++it) {
        const cr_vec3 v = cr_v3_sub(cr_lgvi_pending_point_velocity(s->k, i, X), u);
        const cr_vec3 vt = cr_v3_madd(v, -cr_v3_dot(v, n), n);
        const double r = cr_v3_norm(vt);
        /* converged to round-off of the step's displacement, or no longer improving */
        if (r == 0 || r > 0.5 * prev || (it > 0 && r <= 1e-13 * cr_v3_norm(v))) break;
        prev = r;
        const cr_vec3 dj = cr_lgvi_point_tangent_impulse(s->k, i, X, n, cr_v3_scale(vt, -1.0));
        cr_status st = cr_lgvi_pending_add_impulse(s->k, i, *f_node, *c_node, X, dj);
        *f_node = cr_v3_madd(*f_node, 1.0 / h, dj), *c_node = cr_v3_madd(*c_node, 1.0 / h, cr_v3_cross(X, dj));
        jt = cr_v3_add(jt, dj);
        if (st != CR_OK) return st;
    }
    const double jn = cr_v3_norm(jt), N = s->fr_N[k];
    *slides = jn > h * o->mu_static * N;
    if (!*slides) return CR_OK;
    /* the stick impulse taken back and the sliding one given: p and μ are linear in the impulses */
    const cr_vec3 dj = cr_v3_scale(jt, h * o->mu_kinetic * N / jn - 1.0);
    cr_status st = cr_lgvi_pending_add_impulse(s->k, i, *f_node, *c_node, X, dj);
    *f_node = cr_v3_madd(*f_node, 1.0 / h, dj), *c_node = cr_v3_madd(*c_node, 1.0 / h, cr_v3_cross(X, dj));
    return st;
}

cr_status cr_lgvi_sim_friction(lgvi_sim *s, double h)
{
    const cr_contact *c = s->contact;
    if (s->moving_obstacles) /* the poses of t_k + h, where a sticking node's material point goes */
        for (int k = 0; k < c->obstacle_count; ++k)
            cr_obstacle_path_at(&c->path[k], cr_lgvi_time(s->k) + h, &s->pose1[k]);
    for (int i = 0; i < s->nodes; ++i) {
        /* a clamped node (the clamp holds it), a moving clamp's or an assembly's shared node (its
         * update is the caller's) */
        const int ext = cr_lgvi_external_flags(s->k, i);
        if (ext & CR_LGVI_EXTERNAL_TRANSLATION) continue;
        s->sliding[i] = 0;
        if ((i == 0 && s->p.clamp_start) || (i == s->nodes - 1 && s->p.clamp_end)) continue;
        for (int k = 0; k < c->obstacle_count; ++k) s->fr_N[k] = 0;
        cr_lgvi_sim_touch(s, i, cr_lgvi_position(s->k, i), s->fr_N, s->fr_n, s->fr_u, h);
        if (s->rolling && !(ext & CR_LGVI_EXTERNAL_ROTATION)) {
            /* at the contact point (contact.rolling), obstacle by obstacle on the step as the
             * previous ones left it */
            cr_vec3 f_node = s->f[i], c_node = s->c[i];
            for (int k = 0; k < c->obstacle_count; ++k) {
                if (!(s->fr_N[k] > 0)) continue;
                int sl = 0;
                cr_status st = contact_point_friction(s, i, h, &f_node, &c_node, k, &sl);
                if (st != CR_OK) return st;
                s->sliding[i] |= (unsigned char)sl;
            }
            continue;
        }
        /* at the centre (the default; with contact.rolling a node whose rotation an assembly's joint
         * updates, not this kernel), on the kernel's p^k = p^{k-1} + h (f_int + f) of this step,
         * before the friction */
        int sl;
        const cr_vec3 total = cr_lgvi_coulomb(c, s->fr_N, s->fr_n, s->fr_u, cr_lgvi_node_mass(s->k, i),
                                              cr_lgvi_pending_momentum(s->k, i), h, NULL, &sl);
        s->sliding[i] = (unsigned char)sl;
        if (total.x != 0 || total.y != 0 || total.z != 0) cr_lgvi_pending_add_force(s->k, i, s->f[i], total);
    }
    return CR_OK;
}

/* with obstacles: touching nodes, the nodes whose last step slid (cr_lgvi_sim_friction: 0 without
 * friction), the sum of the normal forces (N), the largest penetration (m), the mixed rod's
 * names; with contact.self, the mixed rod's two columns after them: the pairs pressing and the
 * smallest gap of the non-excluded pairs (m; 2 a when none comes that near) */
static const char *const extra_names[] = {
    "length",          "dilatation_min",  "dilatation_max",       "volume_drift",        "rotation_drift",
    "contact_active",  "contact_sliding", "contact_normal_force", "contact_penetration", "self_contact_pairs",
    "self_contact_gap"};
static const char *const extra_names_self[] = {"length",          "dilatation_min", "dilatation_max",
                                               "volume_drift",    "rotation_drift", "self_contact_pairs",
                                               "self_contact_gap"};

static void fill_sample(const lgvi_sim *s, cr_dynamic_sample *smp)
{
    cr_lgvi_diag d;
    cr_lgvi_diagnostics(s->k, &d);
    memset(smp, 0, sizeof *smp);
    smp->t = cr_lgvi_time(s->k);
    smp->kinetic = d.kinetic;
    smp->elastic = d.elastic;
    smp->gravity = 0; /* gravity's work is in work_external (a force like the others in this explicit scheme) */
    smp->work_external = d.work_external;
    if (s->fc) {
        /* the contact springs are a potential of the rod, like its strain energy: their energy at
         * the energies' level t_k joins the elastic one, and their work leaves the external work
         * (the kernel counted it there with the loads, with the same W(t_k) = Σ_{j<k} w_j + ½ w_k) */
        if (cr_lgvi_steps(s->k) == 0) place_obstacles(s, 0.0);
        double V = cr_lgvi_steps(s->k) > 0 ? s->contact_energy : contact_forces(s, NULL, NULL);
        smp->elastic += V;
        smp->work_external -= s->contact_work - 0.5 * s->contact_work_last;
        /* a moving obstacle's work on the rod (its springs' ∂V_c/∂t; the friction's is a load's),
         * W(t_k) = Σ_{j<k} w_j + ½ w_k as the loads' */
        smp->work_external += s->obstacle_work - 0.5 * s->obstacle_work_last;
        place_obstacles(s, cr_lgvi_time(s->k)); /* where the current positions x^{k+1} meet them */
    }
    /* the moving clamps' work, W(t_k) = Σ_{j<k} w_j + ½ w_k as the loads' */
    smp->work_external += s->clamp_work - 0.5 * s->clamp_work_last;
    smp->momentum = d.momentum;
    smp->angular_momentum = d.angular_momentum;
    smp->extra_count = 5;
    double e[5] = {d.length, d.dilatation_min, d.dilatation_max, d.volume_drift, d.rotation_drift};
    memcpy(smp->extra, e, sizeof e);
    if (s->contact) {
        cr_contact_totals t;
        double *x = malloc(3 * s->nodes * sizeof *x);
        if (x) {
            for (int i = 0; i < s->nodes; ++i) cr_v3_store(cr_lgvi_position(s->k, i), x + 3 * i);
            cr_contact_totals_at(s->contact, x, 3, &t);
            smp->extra[5] = t.active, smp->extra[7] = t.normal, smp->extra[8] = t.penetration;
        } else {
            smp->extra[5] = smp->extra[7] = smp->extra[8] = NAN;
        }
        free(x);
        int sliding = 0;
        for (int i = 0; s->sliding && i < s->nodes; ++i) sliding += s->sliding[i] != 0;
        smp->extra[6] = sliding;
        smp->extra_count = 9;
    }
    if (s->self) {
        const cr_rodcontact *c = s->self;
        double reach = 0; /* min_gap looks 2 a_max far: no pair that near is a gap of at least that */
        for (int i = 0; i < c->nodes; ++i) reach = fmax(reach, 2 * c->radius[i]);
        for (int i = 0; i < s->nodes; ++i) cr_v3_store(cr_lgvi_position(s->k, i), s->xs + 3 * i);
        smp->extra[smp->extra_count] = cr_rodcontact_find(s->self, s->xs, 3);
        smp->extra[smp->extra_count + 1] = fmin(reach, cr_rodcontact_min_gap(s->self, s->xs, 3, NULL, NULL));
        smp->extra_count += 2;
    }
}

static cr_status lgvi_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                             cr_static_report *report, cr_error *err)
{
    return cr_error_set(err, CR_BAD_INPUT, "stages.%d.type: the lgvi model has no static stages", stage);
}

static cr_status begin_stage(cr_sim *sim, int stage, double h, cr_error *err)
{
    lgvi_sim *s = sim->impl;
    cr_rod_def loads_only = {.load_count = s->load_count, .loads = s->loads};
    cr_rod_stage_load_factors(&loads_only, stage, s->stage_factor);
    return cr_lgvi_set_step(s->k, h) == CR_OK ? CR_OK : cr_error_set(err, CR_BAD_INPUT, "time_step: %g", h);
}

/* rod.damping's drag (docs/lgvi.md "Damping and moving clamps"): the mixed rod's force
 * −L_i A diag(drag) Aᵀ v_i and body moment −L_i diag(rotational_drag) Ω_i, with the velocities of
 * the last interval [t_k−1, t_k] (the latest the explicit step knows): loads of the step, whose
 * negative work is in work_external. Stable while the drag's rate ν = drag/ρA stays below ~1/h
 * (an explicit Euler decay), far above the step's other limits for any damping that leaves the
 * motion underdamped. */
static void drag_forces(lgvi_sim *s)
{
    /* per node: R diag(drag) Rᵀ v and R diag(rotational_drag) ω (the kernel's loop, lgvi.h) */
    cr_lgvi_add_drag(s->k, s->drag, s->rotational_drag, s->lumped, s->f, s->c);
}

/* The moving clamps' new poses (after cr_lgvi_step_begin): x^{k+1} = x_ref + f(t_k+1)(position −
 * x_ref), p^k = m (x^{k+1} − x^k)/h, no rotation. The clamp's reaction is what the node's momentum
 * change needs beyond its forces, R = (p^k − p^{k−1})/h − F; its discrete work R·(x^{k+1} −
 * x^{k−1})/2, the kernel's rule for loads, is the clamps' (returned). */
static double move_clamps(lgvi_sim *s, double h)
{
    double w = 0;
    const double t1 = cr_lgvi_time(s->k) + h;
    for (int m = 0; m < s->moving_count; ++m) {
        const int i = s->moving_node[m];
        const double f = cr_time_function_eval(&s->moving_time[m], t1), mass = cr_lgvi_node_mass(s->k, i);
        const cr_vec3 x = cr_v3_madd(s->moving_ref[m], f, cr_v3_sub(s->moving_target[m], s->moving_ref[m]));
        const cr_vec3 p = cr_v3_scale(cr_v3_sub(x, cr_lgvi_position(s->k, i)), mass / h);
        cr_vec3 p0, F, M;
        cr_lgvi_node_momenta(s->k, i, &p0, NULL, NULL);
        cr_lgvi_external_loads(s->k, i, &F, &M, NULL);
        const cr_vec3 R = cr_v3_sub(cr_v3_scale(cr_v3_sub(p, p0), 1.0 / h), F);
        /* (its rotation held: the torque's reaction is −M, as a fixed clamp's) */
        s->moving_rf[m] = R, s->moving_rm[m] = cr_v3_scale(M, -1.0);
        w += 0.5 * h / mass * cr_v3_dot(R, cr_v3_add(p0, p));
        cr_lgvi_external_set_translation(s->k, i, x, p);
        cr_lgvi_external_set_rotation(s->k, i, cr_v3(0, 0, 0));
    }
    s->moving_have = s->moving_count > 0;
    return w;
}

/* the contact forces at x^k with the loads (the rectangle rule of the scheme): an explicit force
 * from a potential, so the step stays variational (the springs join the discrete Lagrangian's
 * potential) and its stable step includes them (lgvi_check) */
void cr_lgvi_sim_contact_loads(lgvi_sim *s)
{
    place_obstacles(s, cr_lgvi_time(s->k)); /* the springs at the obstacles' poses of t_k */
    s->step_V = contact_forces(s, s->fc, &s->step_P);
    for (int i = 0; i < s->nodes; ++i) s->f[i] = cr_v3_add(s->f[i], s->fc[i]);
    s->step_wc = cr_lgvi_power(s->k, s->fc, 0.0); /* with v^{k-1}; v^k in contact_done */
}

/* the kernel's discrete work of the step's forces, w_k = f·(x^{k+1} − x^{k−1})/2 = (h/2) f·(v^{k−1} +
 * v^k), for the contact's share; V belongs to t_k, the energies' level */
void cr_lgvi_sim_contact_done(lgvi_sim *s, double h)
{
    double wc = cr_lgvi_power(s->k, s->fc, s->step_wc);
    wc *= 0.5 * h;
    s->contact_energy = s->step_V, s->contact_work += wc, s->contact_work_last = wc;
    /* the moving obstacles' work w_k = h P_k, the power at t_k over [t_k − h/2, t_k + h/2] (the interval
     * the step's force stands for, as w_k is the loads'), so that W(t_k) = Σ_{j<k} w_j + ½ w_k is the
     * trapezoid rule on [0, t_k]: the first step's is h/2 (nothing moved before t = 0; an obstacle
     * starting at a velocity would otherwise be credited h/2 of work before it: an O(h) error) */
    if (s->moving_obstacles) {
        const double w = (cr_lgvi_steps(s->k) == 1 ? 0.5 : 1.0) * h * s->step_P;
        s->obstacle_work += w, s->obstacle_work_last = w;
    }
}

static cr_status step(cr_sim *sim, double h, cr_dynamic_report *report, cr_error *err)
{
    lgvi_sim *s = sim->impl;
    sample_loads(s, cr_lgvi_time(s->k));
    if (cr_v3_norm(s->drag) > 0 || cr_v3_norm(s->rotational_drag) > 0) drag_forces(s);
    if (s->fc) cr_lgvi_sim_contact_loads(s);
    cr_status st;
    if (s->moving_count == 0 && !s->sliding) {
        st = cr_lgvi_step(s->k, s->f, s->c, err);
    } else if ((st = cr_lgvi_step_begin(s->k, s->f, s->c, err)) == CR_OK) {
        /* the friction from the step's own p^k (the springs' normal forces are in it) */
        if (s->sliding && (st = cr_lgvi_sim_friction(s, h)) != CR_OK)
            cr_error_set(err, st,
                         "obstacles: the lgvi rod's friction at the contact point: the rotation solve failed in "
                         "the step from t = %.9g s",
                         cr_lgvi_time(s->k));
        if (st == CR_OK) {
            const double w = move_clamps(s, h);
            cr_lgvi_step_end(s->k);
            s->clamp_work += w, s->clamp_work_last = w;
        }
    }
    report->rhs_evals++;
    if (s->fc && st == CR_OK) cr_lgvi_sim_contact_done(s, h);
    if (st == CR_NONFINITE || st == CR_NOT_CONVERGED) {
        char msg[CR_ERROR_MESSAGE_SIZE];
        snprintf(msg, sizeof msg, "%.400s (the explicit lgvi step is CFL-limited: try a smaller time_step)",
                 err ? err->message : "");
        cr_error_set(err, st, "%s", msg);
    }
    return st;
}

static void sample_row(const cr_sim *sim, cr_dynamic_sample *smp) { fill_sample(sim->impl, smp); }

/* Energy bands (the fixed-step driver's watch), about ten times the largest drift of the
 * papers' examples (docs/lgvi.md, "Energy watch"): the standard model is variational, its
 * energy error bounded and O(h^2) (3.2e-4 of the energy that entered in the flying beam at the
 * paper's step, 4e-3 at half the stable step); the modified model freezes e in the step
 * (spec §2.3) and drifts further (5.3 % in the §5.4 case). */
#define LGVI_BAND_STANDARD 0.05
#define LGVI_BAND_MODIFIED 0.5

static double energy(const cr_sim *sim, const cr_dynamic_sample *row, double *stored, double *supplied,
                     double *roundoff)
{
    *roundoff = 0; /* far below the bands */
    const lgvi_sim *s = sim->impl;
    *stored = row->kinetic + row->elastic; /* the contact springs' energy is in elastic (fill_sample) */
    *supplied = row->work_external;        /* gravity included; the scheme dissipates nothing */
    return s->p.dilatation ? LGVI_BAND_MODIFIED : LGVI_BAND_STANDARD;
}

/* The most stretched element: where a runaway shows first. The modified model's axial force
 * EA0 (e - 1)/e (n = C1 Gamma / e, spec §2.3) never reaches EA0: a larger tension has no
 * equilibrium and stretches the element without bound (the section necks); and the shear-
 * rotation coupling's arm l e grows with the stretch, so the stable step estimated at check
 * for the unstretched rod no longer holds. */
static void explain(const cr_sim *sim, char *text, size_t size)
{
    const lgvi_sim *s = sim->impl;
    int q_max = 0;
    double e_max = 0, l = s->p.length / s->p.elements;
    for (int q = 0; q + 1 < s->nodes; ++q) {
        double e = cr_v3_norm(cr_v3_sub(cr_lgvi_position(s->k, q + 1), cr_lgvi_position(s->k, q))) / l;
        if (e > e_max || q == 0) e_max = e, q_max = q;
    }
    int n = snprintf(text, size, "Element %d (s = %.4g m) is stretched to e = %.3g (|x_q+1 - x_q| / l)", q_max,
                     s->s_mid[q_max], e_max);
    if (n < 0 || (size_t)n >= size || !(e_max > 1.5)) {
        if (n >= 0 && (size_t)n < size) snprintf(text + n, size - n, "; try a smaller time_step.");
        return;
    }
    if (s->p.dilatation)
        snprintf(text + n, size - n,
                 ": the modified model's axial force EA0 (e - 1)/e cannot exceed EA0 = %.3g N, so a larger tension "
                 "has no equilibrium (use dilatation: false, or smaller loads).",
                 s->p.C1.z);
    else
        snprintf(text + n, size - n,
                 ": beyond the range of the stable step estimated at check; try a smaller "
                 "time_step or smaller loads.");
}

static const cr_fixed_step_ops lgvi_ops = {
    .begin = begin_stage, .step = step, .sample = sample_row, .energy = energy, .explain = explain};

static cr_status lgvi_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                              const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                              cr_error *err)
{
    return cr_fixed_step_stage(sim, &lgvi_ops, stage, t_stage_start, o, cb, report, err);
}

/* ---- accessors ---- */
static int node_count(const void *impl) { return ((const lgvi_sim *)impl)->nodes; }
static double node_s(const void *impl, int i) { return ((const lgvi_sim *)impl)->s[i]; }

static void node_pose(const void *impl, int i, cr_vec3 *r, cr_quat *q)
{
    const lgvi_sim *s = impl;
    *r = cr_lgvi_position(s->k, i);
    *q = cr_q_from_matrix(cr_m3_mul(cr_lgvi_rotation(s->k, i), cr_m3_transpose(Q())));
}

/* A clamp's reaction on the rod of the last step (cr_lgvi_clamp_reaction; a moving clamp's from
 * move_clamps): the force (I) and the moment in the node's basis; none before the first step */
static cr_status reaction(const void *impl, int i, cr_vec3 *f, cr_vec3 *m)
{
    const lgvi_sim *s = impl;
    cr_vec3 mk;
    int found = 0;
    for (int k = 0; k < s->moving_count && !found; ++k)
        if (s->moving_node[k] == i && s->moving_have) *f = s->moving_rf[k], mk = s->moving_rm[k], found = 1;
    const int end = i == 0 ? 0 : i == s->nodes - 1 ? 1 : -1;
    if (!found && !(end >= 0 && cr_lgvi_clamp_reaction(s->k, end, f, &mk))) return CR_BAD_INPUT;
    *m = cr_m3_mulv(Q(), mk); /* the kernel's body components into the node basis's (A = R Qᵀ) */
    return CR_OK;
}

static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const lgvi_sim *s = impl;
    *v = cr_lgvi_velocity(s->k, i);
    *w = from_k(cr_lgvi_angular_velocity(s->k, i));
}

static int sample_count(const void *impl) { return ((const lgvi_sim *)impl)->nodes - 1; }
static double sample_s(const void *impl, int e) { return ((const lgvi_sim *)impl)->s_mid[e]; }

static void sample(const void *impl, int e, cr_vec3 *g, cr_vec3 *k, cr_vec3 *n, cr_vec3 *m)
{
    const lgvi_sim *s = impl;
    cr_vec3 kg, kk, kn, km;
    cr_lgvi_element(s->k, e, &kg, &kk, &kn, &km, NULL);
    /* total strains (reference + change), as the other formulations report them */
    if (g) *g = cr_v3_add(s->gamma0[e], from_k(kg));
    if (k) *k = cr_v3_add(s->kappa0[e], from_k(kk));
    if (n) *n = from_k(kn);
    if (m) *m = from_k(km);
}

static double time_of(const void *impl) { return cr_lgvi_time(((const lgvi_sim *)impl)->k); }
static double load_factor(const void *impl) { return 0.0; }

static int series_extra(const void *impl, const char *const **names)
{
    const lgvi_sim *s = impl;
    *names = s->self && !s->contact ? extra_names_self : extra_names;
    return 5 + (s->contact ? 4 : 0) + (s->self ? 2 : 0);
}

static int contact(const void *impl, int node, cr_contact_sample *out)
{
    const lgvi_sim *s = impl;
    if (!s->contact) return 0;
    place_obstacles(s, cr_lgvi_time(s->k));
    cr_contact_info in;
    cr_contact_node_force(s->contact, node, cr_lgvi_position(s->k, node), &out->force, NULL, &in);
    out->normal = in.normal, out->gap = in.gap, out->state = in.active ? 1 + (s->sliding && s->sliding[node]) : 0,
    out->tolerance = s->contact->tol;
    return 1;
}

static double *load_input(void *impl) { return ((lgvi_sim *)impl)->input; }

/* checkpoint: the kernel's state (time, step and work included), the load inputs, and with
 * obstacles the contact's energy and work */
/* the moving clamps' block: their work (Σ w_j, w_k) and their reactions of the last step (force,
   moment of each, and whether they are set) */
enum { MOVING_PACK = 2 + 13 };

static int packed_size(const void *impl)
{
    const lgvi_sim *s = impl;
    return cr_lgvi_packed_size(s->k) + s->load_count + (s->fc ? 3 : 0) + (s->moving_count ? MOVING_PACK : 0) +
           (s->sliding ? s->nodes : 0) + (s->moving_obstacles ? 2 : 0);
}

static void pack(const void *impl, double *out)
{
    const lgvi_sim *s = impl;
    cr_lgvi_pack(s->k, out);
    memcpy(out + cr_lgvi_packed_size(s->k), s->input, s->load_count * sizeof(double));
    if (s->fc) {
        double *c = out + cr_lgvi_packed_size(s->k) + s->load_count;
        c[0] = s->contact_energy, c[1] = s->contact_work, c[2] = s->contact_work_last;
    }
    if (s->moving_count) {
        double *c = out + cr_lgvi_packed_size(s->k) + s->load_count + (s->fc ? 3 : 0);
        c[0] = s->clamp_work, c[1] = s->clamp_work_last;
        for (int m = 0; m < 2; ++m) {
            const cr_vec3 f = s->moving_rf[m], mo = s->moving_rm[m];
            double *r = c + 2 + 6 * m;
            r[0] = f.x, r[1] = f.y, r[2] = f.z, r[3] = mo.x, r[4] = mo.y, r[5] = mo.z;
        }
        c[14] = s->moving_have;
    }
    if (s->sliding) { /* which nodes slid in the last step (contact_sliding, the nodes' state) */
        double *c = out + cr_lgvi_packed_size(s->k) + s->load_count + (s->fc ? 3 : 0) + (s->moving_count ? MOVING_PACK : 0);
        for (int i = 0; i < s->nodes; ++i) c[i] = s->sliding[i];
    }
    if (s->moving_obstacles) { /* their work (the poses are the time's) */
        double *c = out + packed_size(impl) - 2;
        c[0] = s->obstacle_work, c[1] = s->obstacle_work_last;
    }
}

static void unpack(void *impl, const double *in)
{
    lgvi_sim *s = impl;
    cr_lgvi_unpack(s->k, in);
    memcpy(s->input, in + cr_lgvi_packed_size(s->k), s->load_count * sizeof(double));
    if (s->fc) {
        const double *c = in + cr_lgvi_packed_size(s->k) + s->load_count;
        s->contact_energy = c[0], s->contact_work = c[1], s->contact_work_last = c[2];
    }
    if (s->moving_count) {
        const double *c = in + cr_lgvi_packed_size(s->k) + s->load_count + (s->fc ? 3 : 0);
        s->clamp_work = c[0], s->clamp_work_last = c[1];
        for (int m = 0; m < 2; ++m) {
            const double *r = c + 2 + 6 * m;
            s->moving_rf[m] = cr_v3(r[0], r[1], r[2]), s->moving_rm[m] = cr_v3(r[3], r[4], r[5]);
        }
        s->moving_have = c[14] != 0;
    }
    if (s->sliding) {
        const double *c = in + cr_lgvi_packed_size(s->k) + s->load_count + (s->fc ? 3 : 0) + (s->moving_count ? MOVING_PACK : 0);
        for (int i = 0; i < s->nodes; ++i) s->sliding[i] = c[i] != 0;
    }
    if (s->moving_obstacles) {
        const double *c = in + packed_size(impl) - 2;
        s->obstacle_work = c[0], s->obstacle_work_last = c[1];
    }
}

/* field by field (struct padding is not guaranteed to be zero); the step belongs to the stage */
static uint64_t fingerprint(const void *impl)
{
    const lgvi_sim *s = impl;
    const cr_lgvi_params *p = &s->p;
    int ints[5] = {p->elements, p->dilatation, p->chart, p->clamp_start, p->clamp_end};
    double d[11] = {p->length, p->rhoA, p->rhoJ.x, p->rhoJ.y, p->rhoJ.z, p->C1.x,
                    p->C1.y,   p->C1.z, p->C2.x,   p->C2.y,   p->C2.z};
    uint64_t h = 14695981039346656037ull;
    const unsigned char *b = (const unsigned char *)ints;
    for (size_t i = 0; i < sizeof ints; ++i) h = (h ^ b[i]) * 1099511628211ull;
    /* hashed only when not the default, so checkpoints written before the option existed
     * still resume */
    if (p->strains != CR_LGVI_STRAINS_LEFT) h = (h ^ (uint64_t)(p->strains + 0x5a)) * 1099511628211ull;
    b = (const unsigned char *)d;
    for (size_t i = 0; i < sizeof d; ++i) h = (h ^ b[i]) * 1099511628211ull;
    /* with obstacles only (checkpoints without them still resume): the springs' stiffness and
     * the obstacles, whose state the checkpoint's contact energy and work belong to */
    if (s->contact) {
        b = (const unsigned char *)&p->contact_stiffness;
        for (size_t i = 0; i < sizeof p->contact_stiffness; ++i) h = (h ^ b[i]) * 1099511628211ull;
        for (int k = 0; k < s->contact->obstacle_count; ++k) {
            const cr_obstacle_def *o = &s->contact->obstacles[k];
            double g[8] = {o->type,   o->center.x, o->center.y,     o->center.z,
                           o->radius, o->length,   o->axes.m[0][2], o->axes.m[2][2]};
            b = (const unsigned char *)g;
            for (size_t i = 0; i < sizeof g; ++i) h = (h ^ b[i]) * 1099511628211ull;
        }
        /* moving obstacles only (a fixed set hashes as before): their motions */
        for (int k = 0; s->moving_obstacles && k < s->contact->obstacle_count; ++k)
            h = cr_obstacle_path_hash(&s->contact->path[k], h);
        /* the friction at the contact points (contact.rolling) only when on: older checkpoints resume */
        if (s->rolling) h = (h ^ 0x726f6c6cull) * 1099511628211ull;
    }
    if (cr_v3_norm(s->drag) > 0 || cr_v3_norm(s->rotational_drag) > 0 || s->moving_count) {
        double g[6] = {s->drag.x,           s->drag.y, s->drag.z, s->rotational_drag.x, s->rotational_drag.y,
                       s->rotational_drag.z};
        b = (const unsigned char *)g;
        for (size_t i = 0; i < sizeof g; ++i) h = (h ^ b[i]) * 1099511628211ull;
        for (int m = 0; m < s->moving_count; ++m) {
            const cr_time_function *f = &s->moving_time[m]; /* and the clamp's time function */
            double q[12] = {s->moving_node[m], s->moving_target[m].x, s->moving_target[m].y, s->moving_target[m].z,
                            f->type,           f->t0,                 f->t1,                 f->amplitude,
                            f->frequency,      f->phase,              f->offset,             f->point_count};
            b = (const unsigned char *)q;
            for (size_t i = 0; i < sizeof q; ++i) h = (h ^ b[i]) * 1099511628211ull;
            for (int k = 0; f->points && k < f->point_count; ++k) {
                const double pt[2] = {f->points[k].t, f->points[k].value};
                b = (const unsigned char *)pt;
                for (size_t i = 0; i < sizeof pt; ++i) h = (h ^ b[i]) * 1099511628211ull;
            }
        }
    }
    if (s->self) { /* its stiffness (the pairs' state is the positions') */
        b = (const unsigned char *)&p->self_contact_stiffness;
        for (size_t i = 0; i < sizeof p->self_contact_stiffness; ++i) h = (h ^ b[i]) * 1099511628211ull;
    }
    return cr_loads_hash(h, s->loads, s->load_count);
}

const cr_formulation cr_lgvi_formulation = {
    .name = "lgvi",
    /* measured 0.5 kB: the explicit step keeps two levels of node data, plus 25 % */
    .bytes_per_element_static = 1e3,
    .bytes_per_element_dynamic = 1e3,
    .check = lgvi_check,
    .create = lgvi_create,
    .destroy = lgvi_destroy,
    .static_stage = lgvi_static,
    .dynamic_stage = lgvi_dynamic,
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
    .contact = contact,
    .body_count = NULL,
    .series_extra = series_extra,
    .load_input = load_input,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .fingerprint = fingerprint,
    .assembly = &cr_lgvi_assembly_formulation,
};

/* for the assemblies (formulation_internal.h) */
void cr_lgvi_sim_sample_loads(lgvi_sim *s, double t) { sample_loads(s, t); }
void cr_lgvi_sim_fill_sample(const lgvi_sim *s, cr_dynamic_sample *smp) { fill_sample(s, smp); }
