/* The port-Hamiltonian director rod (ph_*.c) behind the formulation table
 * (model/formulation.h): the shared rod definition discretized with quadratic
 * elements (2n + 1 nodes), loads sampled at t_{n+1/2} (its spec §6), dynamic
 * stages by the energy–momentum midpoint rule with step halving on failure,
 * static stages by Newton with load steps, and the formulation-neutral accessors.
 *
 * Frames. The kernel's directors d1, d2, d3 (d3 = rod axis) are the library's
 * body axes y, z, x: R = A Q with Q = [e_y e_z e_x], so components map as
 * (1, 2, 3) = (y, z, x). Rigid strain components map the same way. */
#include "contact/motion.h"
#include "model/fixed_step.h"
#include "model/rod_internal.h"
#include "ph/ph.h"
#include "ph/ph_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static cr_vec3 from_k(cr_vec3 v) { return cr_v3(v.z, v.x, v.y); }
static cr_mat3 Q(void) { return cr_m3_columns(cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(1, 0, 0)); }
/* library rigid bits (γx γy γz κx κy κz) -> kernel bits (N1 N2 N3 M1 M2 M3) */
static unsigned rigid_bits(unsigned lib)
{
    static const int to[6] = {2, 0, 1, 5, 3, 4};
    unsigned k = 0;
    for (int j = 0; j < 6; ++j)
        if (lib & (1u << j)) k |= 1u << to[j];
    return k;
}

/* ---- what the formulation can represent ---- */
static cr_status kernel_params(const cr_rod_def *def, const cr_model_options *o, cr_ph_params *p, cr_error *err)
{
    cr_section_resultants r0;
    cr_status st = cr_rod_uniform_section(def, "port_hamiltonian", &r0, err);
    int start = 0, end = 0;
    if (st == CR_OK) st = cr_rod_end_clamps(def, "port_hamiltonian", &start, &end, err);
    if (st != CR_OK) return st;
    *p = cr_ph_default_params();
    p->elements = def->elements;
    p->length = def->length;
    p->rhoA = r0.rhoA;
    /* M^{αβ} = ∫ρ θ^α θ^β dA (spec §3): θ¹ runs along d1 = y, so M11 = ρ I about z */
    p->M11 = r0.rhoI_z;
    p->M22 = r0.rhoI_y;
    const double k[6] = {r0.GA_y, r0.GA_z, r0.EA, r0.EI_y, r0.EI_z, r0.GJ};
    memcpy(p->stiffness, k, sizeof k);
    p->rigid = rigid_bits(def->rigid_strains);
    p->branch_count = o->branch_count;
    for (int b = 0; b < o->branch_count; ++b) {
        p->branch_tau[b] = o->branch_tau[b];
        p->branch_fraction[b] = o->branch_fraction[b];
        p->branch_rigid_spring[b] = o->branch_kelvin_voigt[b];
    }
    p->newton_atol = o->newton_atol;
    p->clamp_start = start;
    p->clamp_end = end;
    return CR_OK;
}

/* The period (s) of the rod's slowest elastic mode: the fundamental bending (Euler-Bernoulli,
 * beta L = 1.875 with one end clamped, 4.730 free-free or clamped-clamped), torsional and axial
 * modes (a quarter or a half wave), the longest of those the rod has; 0 without inertia or
 * without a compliant component. Shear and rotary inertia lengthen the true period, so a step
 * longer than this estimate is also longer than the true one. */
static double slowest_period(const cr_ph_params *p)
{
    if (!(p->rhoA > 0)) return 0;
    int one_clamp = p->clamp_start != p->clamp_end;
    double L = p->length, w = INFINITY;
    double beta = one_clamp ? 1.8751040687 : 4.7300407449, wave = one_clamp ? 0.5 * M_PI : M_PI;
    for (int b = 3; b <= 4; ++b) /* kb1, kb2: bending */
        if (!(p->rigid & (1u << b)) && p->stiffness[b] > 0)
            w = fmin(w, beta * beta * sqrt(p->stiffness[b] / (p->rhoA * L * L * L * L)));
    if (!(p->rigid & (1u << 5)) && p->stiffness[5] > 0 && p->M11 + p->M22 > 0) /* kt: twist */
        w = fmin(w, wave / L * sqrt(p->stiffness[5] / (p->M11 + p->M22)));
    if (!(p->rigid & (1u << 2)) && p->stiffness[2] > 0) /* ke: stretch */
        w = fmin(w, wave / L * sqrt(p->stiffness[2] / p->rhoA));
    return isfinite(w) && w > 0 ? 2 * M_PI / w : 0;
}

static void ph_destroy(void *impl);
static void *ph_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err);

static cr_status ph_check(const cr_scenario *sc, cr_error *err)
{
    /* assemblies: the joints and every rod (ph_assembly_formulation.c) */
    if (cr_scenario_is_assembly(sc)) return cr_ph_assembly_formulation.check(sc, err);
    return cr_ph_sim_check_rod(sc, 0, err);
}

cr_status cr_ph_sim_check_rod(const cr_scenario *sc, int in_assembly, cr_error *err)
{
    const cr_rod_def *d = &sc->rod;
    cr_status fst = cr_foreign_options_check(sc, "port_hamiltonian", err);
    if (fst != CR_OK) return fst;
    if (cr_damping_active(&d->damping))
        return cr_error_set(err, CR_BAD_INPUT,
                            "rod.damping: not supported by the port_hamiltonian model (its material "
                            "damping is model.viscoelastic: generalized-Maxwell branches, a "
                            "branch with kelvin_voigt for Kelvin-Voigt; or use the "
                            "mixed_discrete model)");
    if (d->rigid_body_count > 0)
        return cr_error_set(err, CR_BAD_INPUT,
                            "rigid_bodies: not supported by the port_hamiltonian model (use the mixed_discrete model)");
    if (d->reference.type == CR_REFERENCE_NODES)
        return cr_error_set(err, CR_BAD_INPUT,
                            "rod.reference.type: the port_hamiltonian model needs a straight or "
                            "helix reference (its quadratic elements have midside nodes); the "
                            "mixed_discrete and lgvi models take a nodes reference");
    for (int k = 0; k < d->load_count; ++k) {
        const cr_load_def *l = &d->loads[k];
        if (l->frame == CR_FRAME_BODY && l->type != CR_LOAD_TENDON && l->type != CR_LOAD_CHAMBER)
            return cr_error_set(err, CR_BAD_INPUT,
                                "loads.%d.frame: the port_hamiltonian model takes dead (inertial) loads only; a "
                                "follower load would break its exact energy balance (follower loads: the "
                                "mixed_discrete or lgvi model)",
                                k);
        if (l->type == CR_LOAD_TENDON || l->type == CR_LOAD_CHAMBER) {
            if (l->offset.type != CR_OFFSET_CONSTANT)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "loads.%d.offset: the port_hamiltonian model routes tendons and chambers "
                                    "straight along the rod: give the offset as {y, z} (routed tendons: the "
                                    "mixed_discrete model)",
                                    k);
            if (l->type == CR_LOAD_TENDON && (l->xi_start > 0 || l->xi_end < 1))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "loads.%d.xi_start/xi_end: the port_hamiltonian model takes tendons over the "
                                    "whole rod (a tendon over part of it: the mixed_discrete model)",
                                    k);
        }
    }
    cr_ph_params p;
    cr_status st = kernel_params(d, &sc->model, &p, err);
    if (st != CR_OK) return st;
    int rough = 0; /* a rod touching a rough obstacle is held by its stick anchors in statics */
    for (int j = 0; j < d->obstacle_count; ++j) rough |= d->obstacles[j].mu_static > 0;
    for (int k = 0; k < sc->stage_count; ++k) {
        const cr_stage_def *s = &sc->stages[k];
        if (s->type == CR_STAGE_STATIC) {
            if (!p.clamp_start && !p.clamp_end && !in_assembly && !rough) /* (an assembly: any rod's clamp) */
                return cr_error_set(err, CR_BAD_INPUT,
                                    "boundary_conditions: statics needs a clamp (a free rod has rigid-body modes): "
                                    "add a clamp at an end, or make stage %d dynamic",
                                    k);
            if (s->statics.arc_length)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "stages.%d.path: \"arc_length\" is the mixed_discrete model's; the "
                                    "port_hamiltonian model's statics step the load (\"path\": \"load_steps\")",
                                    k);
            continue;
        }
        if ((st = cr_fixed_step_stage_check(sc, k, "port_hamiltonian", err)) != CR_OK) return st;
        /* The midpoint rule is stable at any step, and energy-conserving: a step longer than
         * even the slowest vibration period runs to a converged, balanced answer that resolves
         * none of the rod's motion (each mode turns by more than 2.5 rad per step). */
        double T = in_assembly ? 0 : slowest_period(&p); /* (an assembly's slowest mode is not a rod's) */
        if (T > 0 && s->dynamics.time_step > T)
            return cr_error_set(err, CR_BAD_INPUT,
                                "stages.%d.time_step: %g s is longer than the period of the rod's slowest elastic "
                                "mode, about %.3g s (its fundamental bending, twist or stretch mode); the "
                                "port_hamiltonian midpoint rule would resolve none of its vibration: use a step of "
                                "at most %.3g s (a tenth of it)",
                                k, s->dynamics.time_step, T, 0.1 * T);
    }
    if (d->obstacle_count > 0) { /* the contact radius and no node starting inside an obstacle (set_contact) */
        void *sim = ph_create(d, &sc->model, err);
        if (!sim) return err ? err->status : CR_BAD_INPUT;
        ph_destroy(sim);
    }
    return CR_OK;
}

/* ---- create / destroy ---- */
static void ph_destroy(void *impl)
{
    ph_sim *s = impl;
    if (!s) return;
    cr_ph_destroy(s->k);
    cr_loads_free(s->loads, s->load_count);
    free(s->scale);
    free(s->stage_factor);
    free(s->input);
    free(s->f);
    free(s->c);
    free(s);
}

/* the default contact.stick_speed (m/s): a node loaded at a fraction r < 1 of mu_s N creeps at r times
   it (docs/port-hamiltonian.md "Friction") */
#define PH_STICK_SPEED 1e-5

/* Contact with obstacles (docs/port-hamiltonian.md "Contact"): the contact radius
 * (contact.radius, else the section's: a circle's radius, a rectangle's larger half side), the
 * spring k_c w_I of FE node I (w_I its Simpson weight over the node spacing l = L / 2n: 4/3 at a
 * midside node, 2/3 at an element end, 1/3 at a rod end; the row sums of the quadratic elements'
 * mass are in the same ratio, so every node's omega_c^2 = k_c / (rhoA l) and a uniformly loaded rod
 * sinks uniformly) with k_c = contact.stiffness, else min(EA/l, 12 EI/l^3) as the mixed rod's default.
 * A node starting deeper than contact.tolerance (else 1e-4 a) inside an obstacle (at t = 0) is refused. */
static cr_status set_contact(ph_sim *s, const cr_rod_def *def, cr_error *err)
{
    int nn = s->nodes, np = def->obstacle_count;
    cr_section_props sp;
    cr_section_eval(def, 0.0, &sp); /* the section is uniform (kernel_params) */
    double a = def->contact.radius > 0 ? def->contact.radius : fmax(sp.extent_y, sp.extent_z);
    if (!(a > 0) || !isfinite(a))
        return cr_error_set(err, CR_BAD_INPUT,
                            "contact.radius: the section has no geometry (given by its resultants): give the contact "
                            "radius");
    double l = def->length / (nn - 1), EI = fmin(s->p.stiffness[3], s->p.stiffness[4]);
    double kc =
        def->contact.stiffness > 0 ? def->contact.stiffness : fmin(s->p.stiffness[2] / l, 12.0 * EI / (l * l * l));
    double tol = def->contact.tolerance > 0 ? def->contact.tolerance : 1e-4 * a;
    double *radius = malloc(nn * sizeof *radius), *k = malloc(nn * sizeof *k);
    cr_status st = CR_OK;
    if (!radius || !k) {
        st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building the port_hamiltonian model");
        goto done;
    }
    for (int i = 0; i < nn; ++i) /* Simpson weights of the quadratic elements over l: 1/3, 4/3 (midside), 2/3 */
        radius[i] = a, k[i] = kc * (i % 2 ? 4.0 / 3.0 : i == 0 || i == nn - 1 ? 1.0 / 3.0 : 2.0 / 3.0);
    for (int j = 0; j < np; ++j) {
        for (int i = 0; i < nn; ++i) {
            double phi = INFINITY, g;
            cr_obstacle_distance(&def->obstacles[j],
                                 cr_v3_sub(cr_ph_position(s->k, i), cr_obstacle_start_shift(&def->obstacles[j])), &phi,
                                 NULL, NULL); /* where it is at t = 0 */
            g = phi - a;
            if (g < -tol) {
                st = cr_error_set(err, CR_BAD_INPUT,
                                  "obstacles.%d: the rod starts inside obstacle \"%s\": node %d (s = %.6g m) is %.6g m "
                                  "deep (its contact radius %.6g m included; tolerance %.3g m); move the rod or the "
                                  "obstacle",
                                  j, def->obstacles[j].name, i, cr_ph_node_s(s->k, i), -g, a, tol);
                goto done;
            }
        }
    }
    st = cr_ph_set_obstacles(s->k, np, def->obstacles, radius, k, err);
    s->contact = st == CR_OK, s->contact_tol = tol;
    s->max_updates = def->contact.max_updates > 0 ? def->contact.max_updates : 50;
    if (st != CR_OK) goto done;
    /* Coulomb friction per obstacle (docs/port-hamiltonian.md "Friction"), regularized below stick_speed */
    for (int j = 0; j < np; ++j) s->friction |= def->obstacles[j].mu_static > 0;
    if (s->friction) {
        double *ms = malloc(np * sizeof *ms), *mk = malloc(np * sizeof *mk);
        if (!ms || !mk) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory while building the port_hamiltonian model");
        } else {
            for (int j = 0; j < np; ++j) ms[j] = def->obstacles[j].mu_static, mk[j] = def->obstacles[j].mu_kinetic;
            double v = def->contact.stick_speed > 0 ? def->contact.stick_speed : PH_STICK_SPEED;
            st = cr_ph_set_friction(s->k, ms, mk, v, err);
            /* at the contact points with contact.rolling, else at the nodes' centres (c_k = 0) */
            s->k->friction_centre = !def->contact.rolling;
        }
        free(ms), free(mk);
    }
done:
    free(radius), free(k);
    return st;
}

static void *ph_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err)
{
    if (cr_rod_validate(def, err) != CR_OK) return NULL;
    if (def->reference.type == CR_REFERENCE_NODES) {
        cr_error_set(err, CR_BAD_INPUT, "rod.reference.type: the port_hamiltonian model needs a straight or helix "
                                        "reference");
        return NULL;
    }
    int nn = 2 * def->elements + 1;
    ph_sim *s = calloc(1, sizeof *s);
    cr_vec3 *x0 = malloc(nn * sizeof *x0);
    cr_mat3 *R0 = malloc(nn * sizeof *R0);
    if (!s || !x0 || !R0) goto oom;
    if (kernel_params(def, o, &s->p, err) != CR_OK) goto fail;
    s->nodes = nn;
    int nl = def->load_count > 0 ? def->load_count : 1;
    s->load_count = def->load_count;
    s->loads = cr_loads_copy(def, err);
    s->scale = calloc(nl, sizeof *s->scale);
    s->stage_factor = calloc(nl, sizeof *s->stage_factor);
    s->input = malloc(nl * sizeof *s->input);
    s->f = calloc(nn, sizeof *s->f);
    s->c = calloc(nn, sizeof *s->c);
    if (!s->loads || !s->scale || !s->stage_factor || !s->input || !s->f || !s->c) goto oom;
    for (int k = 0; k < nl; ++k) s->input[k] = 1.0;
    for (int k = 0; k < def->load_count; ++k) {
        /* the definition's node i (of elements + 1) is finite-element node 2i */
        int node = s->loads[k].node < 0 ? s->loads[k].node + def->elements + 1 : s->loads[k].node;
        s->loads[k].node = 2 * node;
    }
    cr_mat3 q = Q();
    for (int i = 0; i < nn; ++i) {
        cr_quat p;
        cr_rod_reference_pose(def, def->length * i / (nn - 1), &x0[i], &p);
        R0[i] = cr_m3_mul(cr_q_exp(p), q);
    }
    s->k = cr_ph_create(&s->p, x0, R0, err);
    if (!s->k) goto fail;
    if (def->obstacle_count > 0 && set_contact(s, def, err) != CR_OK) goto fail;
    free(x0);
    free(R0);
    return s;
oom:
    cr_error_set(err, CR_NO_MEMORY, "out of memory while building the port_hamiltonian model");
fail:
    free(x0);
    free(R0);
    ph_destroy(s);
    return NULL;
}

/* ---- loads: point loads at nodes, uniform densities, actuation stress (spec §6, §8) ---- */
static void build_loads(ph_sim *s, const double *magnitude, cr_ph_loads *L, double act[6])
{
    memset(s->f, 0, s->nodes * sizeof *s->f);
    memset(s->c, 0, s->nodes * sizeof *s->c);
    memset(L, 0, sizeof *L);
    memset(act, 0, 6 * sizeof(double));
    int actuated = 0;
    for (int k = 0; k < s->load_count; ++k) {
        const cr_load_def *l = &s->loads[k];
        double a = magnitude[k];
        if (a == 0) continue;
        cr_vec3 v = cr_v3_scale(l->value, a);
        /* material offset in the (d1, d2) plane: the library's (y, z) */
        double rx = l->offset.y, ry = l->offset.z;
        switch (l->type) {
        case CR_LOAD_FORCE: s->f[l->node] = cr_v3_add(s->f[l->node], v); break;
        case CR_LOAD_MOMENT: s->c[l->node] = cr_v3_add(s->c[l->node], v); break;
        case CR_LOAD_FORCE_DENSITY: L->force_density = cr_v3_add(L->force_density, v); break;
        case CR_LOAD_MOMENT_DENSITY: L->moment_density = cr_v3_add(L->moment_density, v); break;
        case CR_LOAD_GRAVITY: L->force_density = cr_v3_madd(L->force_density, s->p.rhoA, v); break;
        case CR_LOAD_TENDON:
            cr_ph_actuation_tendon(a * l->tension, rx, ry, act);
            actuated = 1;
            break;
        case CR_LOAD_CHAMBER:
            cr_ph_actuation_chamber(a * l->pressure * l->area, rx, ry, act);
            actuated = 1;
            break;
        }
    }
    L->node_force = s->f;
    L->node_moment = s->c;
    L->actuation = actuated ? act : NULL;
}

/* magnitudes of the loads at time t in a dynamic stage: stage mask × input × time
 * function (the input read at every step: one set at an output time holds from there) */
static void dynamic_magnitudes(ph_sim *s, double t)
{
    for (int k = 0; k < s->load_count; ++k)
        s->scale[k] = s->stage_factor[k] * s->input[k] * cr_time_function_eval(&s->loads[k].time, t);
}

/* with obstacles: touching nodes, the sum of the springs' normal forces (N) and the largest
 * penetration (m) at the output time, the lgvi rod's names; with friction also the sliding nodes
 * (the mixed rod's name) */
static const char *const extra_names[] = {"energy_dissipated", "energy_balance",       "constraint_violation",
                                          "contact_active",    "contact_normal_force", "contact_penetration",
                                          "contact_sliding"};

static void fill_sample(const ph_sim *s, cr_dynamic_sample *smp)
{
    cr_ph_diag d;
    cr_ph_diagnostics(s->k, &d);
    memset(smp, 0, sizeof *smp);
    smp->t = cr_ph_time(s->k);
    smp->kinetic = d.kinetic;
    smp->elastic = d.elastic + d.contact; /* the contact springs are a potential of the rod, like its strain */
    smp->gravity = 0; /* gravity is a distributed load here: its work is in work_external */
    smp->work_external = d.work_external;
    smp->momentum = d.momentum;
    smp->angular_momentum = d.angular_momentum;
    smp->extra_count = 3;
    smp->extra[0] = d.dissipated;
    smp->extra[1] = d.energy_balance;
    smp->extra[2] = d.constraint_violation;
    if (s->contact) {
        double active = 0, normal = 0, pen = 0, sliding = 0;
        for (int i = 0; i < s->nodes; ++i) {
            double N, g;
            int state = cr_ph_contact_node(s->k, i, NULL, &N, &g);
            if (state) active += 1, normal += N, pen = fmax(pen, -g), sliding += state == 2;
        }
        smp->extra[3] = active, smp->extra[4] = normal, smp->extra[5] = pen, smp->extra[6] = sliding;
        smp->extra_count = s->friction ? 7 : 6;
    }
}

/* One step of h from the current time; a step whose Newton iteration fails is
 * retried as two halves, down to h/2^10 (the "retried with a halved step"). */
static cr_status advance(ph_sim *s, double h, int depth, cr_dynamic_report *report, cr_error *err)
{
    cr_ph_loads L;
    double act[6];
    dynamic_magnitudes(s, cr_ph_time(s->k) + 0.5 * h); /* loads at t_{n+1/2} (spec §6) */
    build_loads(s, s->scale, &L, act);
    int its = 0;
    cr_status st = cr_ph_step(s->k, h, &L, &its, err);
    report->newton_iterations += its;
    if (st == CR_OK || st < 0 || depth >= 10) return st;
    report->rejected++;
    if ((st = advance(s, 0.5 * h, depth + 1, report, err)) != CR_OK) return st;
    return advance(s, 0.5 * h, depth + 1, report, err);
}

static cr_status begin_stage(cr_sim *sim, int stage, double h, cr_error *err)
{
    ph_sim *s = sim->impl;
    cr_rod_def loads_only = {.load_count = s->load_count, .loads = s->loads};
    cr_rod_stage_load_factors(&loads_only, stage, s->stage_factor);
    return CR_OK;
}

static cr_status step(cr_sim *sim, double h, cr_dynamic_report *report, cr_error *err)
{
    ph_sim *s = sim->impl;
    cr_error e = {0};
    double t0 = cr_ph_time(s->k);
    long jac = s->k->jacobians, lu = s->k->factorizations;
    cr_status st = advance(s, h, 0, report, &e);
    report->jacobians += s->k->jacobians - jac;
    report->lu_real += s->k->factorizations - lu;
    if (st != CR_OK)
        cr_error_set(err, st, "port_hamiltonian step from t = %.9g s failed even at h/1024: %.400s", t0, e.message);
    return st;
}

static void sample_row(const cr_sim *sim, cr_dynamic_sample *smp) { fill_sample(sim->impl, smp); }

/* The midpoint rule's discrete energy balance is exact (spec §6: H_{n+1} - H_n = W_n - D_n) up to
 * the Newton tolerance: the papers' examples keep it to 1e-14..1e-10 of the energy that
 * entered. A drift of 1e-6 means steps accepted unconverged (docs/port-hamiltonian.md,
 * "Energy watch"). */
#define PH_BAND 1e-6

static double energy(const cr_sim *sim, const cr_dynamic_sample *row, double *stored, double *supplied,
                     double *roundoff)
{
    cr_ph_diag d;
    cr_ph_diagnostics(((const ph_sim *)sim->impl)->k, &d);
    *roundoff = d.work_roundoff;
    *stored = row->kinetic + row->elastic;
    *supplied = row->work_external - row->extra[0]; /* minus the dissipated energy */
    return PH_BAND;
}

static void explain(const cr_sim *sim, char *text, size_t size)
{
    const ph_sim *s = sim->impl;
    cr_ph_diag d;
    cr_ph_diagnostics(s->k, &d);
    snprintf(text, size,
             "The last step's own balance is off by %.3g J: its Newton iteration stopped before the energy was "
             "resolved (loads or coordinates too large for the increment test?); try a smaller time_step.",
             d.energy_balance);
}

static const cr_fixed_step_ops ph_ops = {
    .begin = begin_stage, .step = step, .sample = sample_row, .energy = energy, .explain = explain};

static cr_status ph_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                            const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                            cr_error *err)
{
    /* the dynamics' friction is the regularized force at the midpoint velocity: the static stick
       anchors are let go (a later static stage anchors the nodes where they then touch) */
    ph_static_friction_release(((ph_sim *)sim->impl)->k);
    return cr_fixed_step_stage(sim, &ph_ops, stage, t_stage_start, o, cb, report, err);
}

/* A failed static stage while nodes touch obstacles with friction (docs/port-hamiltonian.md
 * "Friction"): a tangential load beyond what Coulomb friction holds has no equilibrium (the rod
 * slides), which the load steps meet as Newton failing ever closer to the limit. Names the
 * frictional obstacle closest to its limit at the last equilibrium (load factor lf). With the loads
 * the state already carries (ramped 0: a static stage after a dynamic one with the same loads) the
 * load factor ramps nothing, and before the first load step's equilibrium (lf 0) after a dynamic
 * stage there is none at all (settled 0): the message says so rather than quote a load factor and a
 * friction that mean nothing (a cord dragged at 1.5 mu_s m g, then made static, was reported "at
 * the last equilibrium (load factor 0) at 0 of its limit"). */
static void friction_failure(const ph_sim *s, double lf, int settled, int ramped, cr_error *err)
{
    int best = -1, touching = 0, sliding = 0;
    double ratio = -1;
    for (int p = 0; p < s->k->ncp; ++p) {
        int t, sl;
        double r;
        ph_static_friction_state(s->k, p, &t, &sl, &r);
        if (t > 0 && r > ratio) best = p, touching = t, sliding = sl, ratio = r;
    }
    if (best < 0) return;
    /* (what is known of this failure first: the message is cut at CR_ERROR_MESSAGE_SIZE) */
    char msg[CR_ERROR_MESSAGE_SIZE + 800], last[300];
    if (lf == 0 && !settled)
        snprintf(last, sizeof last, "no load step converged from the state the dynamic stage left (no equilibrium%s)",
                 ramped ? "" : "; the loads are those it ended with, nothing to ramp");
    else
        snprintf(last, sizeof last,
                 "at the last equilibrium (load factor %.6g) friction was at %.4g of its limit, %d "
                 "nodes sliding%s",
                 lf, ratio, sliding,
                 ramped ? "" : " (the stage's loads are those of its start: the load factor ramps nothing)");
    snprintf(msg, sizeof msg,
             "obstacles.%d.friction: no static equilibrium found while %d nodes touch obstacle \"%s\" with friction "
             "(mu_static %g); %s; a tangential load beyond what Coulomb friction holds (mu_static times the normal "
             "force) has none, the rod slides, and nor has one whose moment about the contact lines nothing balances "
             "(the friction acts at the contact points), the rod rolls (a dynamic stage follows either); %s",
             best, touching, s->k->cob[best].name, s->k->cmu[2 * best], last, err->message);
    snprintf(err->message, sizeof err->message, "%.*s", CR_ERROR_MESSAGE_SIZE - 1, msg);
}

static cr_status append_step(cr_static_report *report, double lf, int its, double res)
{
    if (report->step_count == report->step_capacity) {
        int cap = report->step_capacity ? 2 * report->step_capacity : 16;
        cr_load_step_report *r = realloc(report->steps, cap * sizeof *r);
        if (!r) return CR_NO_MEMORY;
        report->steps = r;
        report->step_capacity = cap;
    }
    cr_load_step_report *r = &report->steps[report->step_count++];
    r->load_factor = lf;
    r->iterations = its;
    r->history_count = 1;
    r->residual_history = malloc(sizeof(double));
    if (r->residual_history) r->residual_history[0] = res;
    else r->history_count = 0;
    report->final_residual = res;
    return CR_OK;
}

/* Static friction's multiplier updates after the load steps (the mixed rod's, docs/theory.md
 * "Contact with obstacles"): at the equilibrium, lambda_T <- the friction force and the sliding
 * anchors moved, then Newton again at the stage's loads, until no contact opens or closes and
 * every sticking node is within contact.tolerance of its anchor. The solves are load steps at
 * factor 1 in the report. */
static cr_status friction_updates(ph_sim *s, const cr_ph_loads *L, cr_static_report *report, cr_error *err)
{
    double drift = 0;
    for (int k = 0;; ++k) {
        if (ph_static_friction_update(s->k, &drift)) return CR_OK;
        if (k == s->max_updates) break;
        int its = 0;
        double res = 0;
        cr_error e = {0};
        cr_status st = cr_ph_solve_static(s->k, L, &its, &res, &e);
        report->total_iterations += its;
        if (st != CR_OK)
            return cr_error_set(err, st, "port_hamiltonian statics: the friction's multiplier update %d failed: %s",
                                k + 1, e.message);
        if (append_step(report, 1.0, its, res) != CR_OK) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    return cr_error_set(
        err, CR_NOT_CONVERGED,
        "contact.max_updates: %d multiplier updates of the static friction left a stick drift of %.3g m "
        "above contact.tolerance = %.3g m (raise contact.max_updates or contact.tolerance)",
        s->max_updates, drift, s->contact_tol);
}

/* Static equilibrium with load steps: the magnitudes go linearly from the state's
 * to the stage's; a failed load step is halved (like the mixed rod's statics). With friction
 * (docs/port-hamiltonian.md "Friction") the nodes touching at the start are anchored, the
 * multipliers are updated after each load step's equilibrium, and after the load steps until
 * every sticking node is within contact.tolerance of its anchor. */
static cr_status ph_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                           cr_static_report *report, cr_error *err)
{
    ph_sim *s = sim->impl;
    double wall0 = cr_wall_seconds();
    int nl = s->load_count > 0 ? s->load_count : 1;
    double *from = malloc(nl * sizeof *from), *target = malloc(nl * sizeof *target), *mag = malloc(nl * sizeof *mag);
    if (!from || !target || !mag) {
        free(from), free(target), free(mag);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    memcpy(from, s->scale, nl * sizeof *from);
    cr_rod_def loads_only = {.load_count = s->load_count, .loads = s->loads};
    cr_rod_stage_load_factors(&loads_only, stage, target);
    memset(report, 0, sizeof *report);
    double lf = 0, dl = 1.0 / o->load_steps, last_inc = 0;
    int halvings = 0, accepted = 0;
    /* a state left by a dynamic stage (whose steps clear cr_ph.have_static) is no equilibrium: the first
       load step's change is then mostly the state settling, no change along the load path, and its
       extrapolation no predictor of the second (a cord bouncing on rough ground, its constant pull held:
       10 Newton iterations in the second load step instead of 2) */
    const int settled = s->k->have_static || cr_ph_time(s->k) == 0;
    int ramped = 0; /* (a stage whose loads are the state's: its load factor ramps nothing) */
    for (int k = 0; k < s->load_count; ++k) ramped |= target[k] != from[k];
    cr_status st = CR_OK;
    if (s->friction && ph_static_friction_begin(s->k, s->contact_tol) == 0 && !s->p.clamp_start && !s->p.clamp_end) {
        /* check let an unclamped rod into statics for its stick anchors; none touches: nothing holds it
           (a free rod's rigid modes would let Newton wander off, 3e7 m in a review's run) */
        free(from), free(target), free(mag);
        return cr_error_set(err, CR_BAD_INPUT,
                            "boundary_conditions: statics needs a clamp: at the start of stage %d no node touches a "
                            "rough obstacle (within contact.tolerance), so nothing holds the rod; add a clamp, lay "
                            "the rod on the obstacle, or make stage %d dynamic",
                            stage, stage);
    }
    while (lf < 1 - 1e-12) {
        double next = fmin(1.0, lf + dl);
        for (int k = 0; k < s->load_count; ++k) mag[k] = from[k] + next * (target[k] - from[k]);
        cr_ph_loads L;
        double act[6], res = 0;
        int its = 0;
        build_loads(s, mag, &L, act);
        cr_error e = {0};
        /* from the second load step on, Newton starts from the last step's change scaled to this one
           (the path is smooth: the first residual of the §6.3 statics falls from 0.1 to ~1e-3) */
        if (last_inc > 0 && (settled || accepted > 1)) cr_ph_static_predictor(s->k, (next - lf) / last_inc);
        st = cr_ph_solve_static(s->k, &L, &its, &res, &e);
        report->total_iterations += its;
        if (st != CR_OK) {
            if (st < 0 || ++halvings > o->max_halvings) {
                cr_error_set(err, st, "port_hamiltonian statics: load step to factor %.6g failed: %s", next,
                             e.message);
                if (s->friction && err && st > 0) friction_failure(s, lf, settled, ramped, err);
                break;
            }
            report->failed_attempts++;
            dl *= 0.5;
            st = CR_OK;
            continue;
        }
        last_inc = next - lf;
        lf = next;
        ++accepted;
        memcpy(s->scale, mag, nl * sizeof *mag);
        s->load_factor = lf;
        /* static friction: one multiplier update at each load step's equilibrium (the anchors follow
           the sliding nodes along the load path, new contacts are anchored); after the last, the
           updates until converged (friction_updates: a converged state keeps its multipliers, so the
           forces at the stage's end state are its equilibrium's) */
        if (s->friction && lf < 1 - 1e-12) ph_static_friction_update(s->k, NULL);
        if (append_step(report, lf, its, res) != CR_OK) {
            st = cr_error_set(err, CR_NO_MEMORY, "out of memory");
            break;
        }
        if (lf >= 1 - 1e-12 && s->friction && (st = friction_updates(s, &L, report, err)) != CR_OK) {
            if (err && st > 0 && st != CR_NOT_CONVERGED) friction_failure(s, lf, settled, ramped, err);
            break;
        }
        cr_load_step_report *r = &report->steps[report->step_count - 1]; /* (the last update's solve) */
        if (o->adaptive) { /* the mixed rod's rule (newton.c): longer after easy steps, shorter after hard */
            if (its <= 4) dl = fmin(2 * dl, o->max_increment > 0 ? o->max_increment : 1.0);
            else if (its >= 8) dl *= 0.5;
        }
        if (cb->on_load_step && cb->on_load_step(sim, r, report->step_count - 1, cb->user)) {
            st = CR_INTERRUPTED;
            break;
        }
    }
    report->converged = st == CR_OK;
    report->load_factor = lf;
    report->wall_time_s = cr_wall_seconds() - wall0;
    free(from), free(target), free(mag);
    return st;
}

/* ---- accessors ---- */
static int node_count(const void *impl) { return ((const ph_sim *)impl)->nodes; }
static double node_s(const void *impl, int i) { return cr_ph_node_s(((const ph_sim *)impl)->k, i); }

static void node_pose(const void *impl, int i, cr_vec3 *r, cr_quat *q)
{
    const ph_sim *s = impl;
    *r = cr_ph_position(s->k, i);
    /* the nodal directors are orthonormal to round-off (the constraint holds exactly at nodes, spec §5) */
    *q = cr_q_from_matrix(cr_m3_mul(cr_ph_directors(s->k, i), cr_m3_transpose(Q())));
}

static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const ph_sim *s = impl;
    *v = cr_ph_velocity(s->k, i);
    /* ω = T(d)ᵀ v_d = ½ Σ d_k × v_{d_k} (spec §4), in the body basis */
    const double *q = s->k->q + 12 * (size_t)i, *vd = s->k->v + 12 * (size_t)i;
    cr_vec3 om = cr_v3(0, 0, 0);
    for (int k = 1; k <= 3; ++k)
        om = cr_v3_add(om, cr_v3_scale(cr_v3_cross(cr_v3_load(q + 3 * k), cr_v3_load(vd + 3 * k)), 0.5));
    cr_mat3 A = cr_m3_mul(cr_ph_directors(s->k, i), cr_m3_transpose(Q()));
    *w = cr_m3_tmulv(A, om);
}

/* A clamp's reaction on the rod (cr_ph_clamp_reaction): the force (I) and its moment in the node's
 * basis, of the last converged step or equilibrium; no support elsewhere, nor before the first */
static cr_status reaction(const void *impl, int i, cr_vec3 *f, cr_vec3 *m)
{
    const ph_sim *s = impl;
    const int end = i == 0 ? 0 : i == s->nodes - 1 ? 1 : -1;
    cr_vec3 ms;
    if (end < 0 || !cr_ph_clamp_reaction(s->k, end, f, &ms)) return CR_BAD_INPUT;
    *m = cr_m3_tmulv(cr_m3_mul(cr_ph_directors(s->k, i), cr_m3_transpose(Q())), ms);
    return CR_OK;
}

static int sample_count(const void *impl) { return cr_ph_sample_count(((const ph_sim *)impl)->k); }
static double sample_s(const void *impl, int g) { return cr_ph_sample_s(((const ph_sim *)impl)->k, g); }

static void sample(const void *impl, int g, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *n, cr_vec3 *m)
{
    const ph_sim *s = impl;
    cr_vec3 kg, kk, kn, km;
    cr_ph_sample(s->k, g, &kg, &kk, &kn, &km);
    /* total strains (reference + change), as the other formulations report them */
    const double *e0 = s->k->eps0 + 6 * (size_t)g;
    if (gamma) *gamma = from_k(cr_v3_add(kg, cr_v3_load(e0)));
    if (kappa) *kappa = from_k(cr_v3_add(kk, cr_v3_load(e0 + 3)));
    if (n) *n = from_k(kn);
    if (m) *m = from_k(km);
}

static double time_of(const void *impl) { return cr_ph_time(((const ph_sim *)impl)->k); }
static double load_factor(const void *impl) { return ((const ph_sim *)impl)->load_factor; }

static int series_extra(const void *impl, const char *const **names)
{
    *names = extra_names;
    const ph_sim *s = impl;
    return s->contact ? (s->friction ? 7 : 6) : 3;
}

static int contact(const void *impl, int node, cr_contact_sample *out)
{
    const ph_sim *s = impl;
    if (!s->contact) return 0;
    out->state = cr_ph_contact_node(s->k, node, &out->force, &out->normal, &out->gap);
    out->tolerance = s->contact_tol;
    return 1;
}

static double *load_input(void *impl) { return ((ph_sim *)impl)->input; }

/* checkpoint: kernel state, load magnitudes, load inputs and load factor */
static int packed_size(const void *impl)
{
    const ph_sim *s = impl;
    return 1 + 2 * s->load_count + cr_ph_packed_size(s->k);
}

static void pack(const void *impl, double *out)
{
    const ph_sim *s = impl;
    out[0] = s->load_factor;
    memcpy(out + 1, s->scale, s->load_count * sizeof(double));
    memcpy(out + 1 + s->load_count, s->input, s->load_count * sizeof(double));
    cr_ph_pack(s->k, out + 1 + 2 * s->load_count);
}

static void unpack(void *impl, const double *in)
{
    ph_sim *s = impl;
    s->load_factor = in[0];
    memcpy(s->scale, in + 1, s->load_count * sizeof(double));
    memcpy(s->input, in + 1 + s->load_count, s->load_count * sizeof(double));
    cr_ph_unpack(s->k, in + 1 + 2 * s->load_count);
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* field by field (struct padding is not guaranteed to be zero); the step belongs to the stage */
static uint64_t fingerprint(const void *impl)
{
    const cr_ph_params *p = &((const ph_sim *)impl)->p;
    int ints[6] = {p->elements, (int)p->rigid, p->branch_count, p->clamp_start, p->clamp_end, p->max_iterations};
    double d[5] = {p->length, p->rhoA, p->M11, p->M22, p->newton_atol};
    uint64_t h = hash_bytes(14695981039346656037ull, ints, sizeof ints);
    h = hash_bytes(h, d, sizeof d);
    h = hash_bytes(h, p->stiffness, sizeof p->stiffness);
    h = hash_bytes(h, p->branch_tau, sizeof p->branch_tau);
    h = hash_bytes(h, p->branch_fraction, sizeof p->branch_fraction);
    h = hash_bytes(h, p->branch_rigid_spring, sizeof p->branch_rigid_spring);
    /* with obstacles only (checkpoints without them still resume): the obstacles and springs, whose
     * energy V_c is part of the H the checkpoint's work balances (infinite fixed planes by their normal and
     * offset alone, as before other shapes were taken) */
    const cr_ph *k = ((const ph_sim *)impl)->k;
    if (k->ncp > 0) {
        h = hash_bytes(h, k->cp, sizeof(double) * 4 * k->ncp);
        h = hash_bytes(h, k->ck, sizeof(double) * k->nn);
        h = hash_bytes(h, k->ca, sizeof(double) * k->nn);
        for (int j = 0; j < k->ncp; ++j) {
            const cr_obstacle_def *o = k->cob + j;
            if (k->cplane[j] && !k->cmoving[j]) continue;
            double v[24] = {o->type,       o->center.x,       o->center.y,       o->center.z,       o->radius,
                            o->length,     o->half_extents.x, o->half_extents.y, o->half_extents.z, o->velocity.x,
                            o->velocity.y, o->velocity.z,     o->acceleration.x, o->acceleration.y, o->acceleration.z};
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) v[15 + 3 * r + c] = o->axes.m[r][c];
            h = hash_bytes(h, v, sizeof v);
            if (k->cpath[j].kind != CR_PATH_RATES) h = cr_obstacle_path_hash(&k->cpath[j], h); /* driven */
            else if (ph_obstacle_turns(k, j)) /* (turning at a rate: with it only, older checkpoints resume) */
                h = hash_bytes(h, &o->angular_velocity, sizeof o->angular_velocity);
        }
        if (k->cmu) { /* with friction only (frictionless checkpoints still resume) */
            h = hash_bytes(h, k->cmu, sizeof(double) * 2 * k->ncp);
            /* the friction at the contact points (contact.rolling) only when on: older checkpoints resume */
            if (!k->friction_centre) h = hash_bytes(h, "rolling", 7);
            h = hash_bytes(h, &k->stick_speed, sizeof k->stick_speed);
        }
    }
    return cr_loads_hash(h, ((const ph_sim *)impl)->loads, ((const ph_sim *)impl)->load_count);
}

const cr_formulation cr_ph_formulation = {
    .name = "port_hamiltonian",
    /* measured 21 kB static, 15 kB dynamic: the banded Newton matrix and its factors, plus 25 % */
    .bytes_per_element_static = 2.6e4,
    .bytes_per_element_dynamic = 2e4,
    .check = ph_check,
    .contact = contact,
    .create = ph_create,
    .destroy = ph_destroy,
    .static_stage = ph_static,
    .dynamic_stage = ph_dynamic,
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
    .series_extra = series_extra,
    .load_input = load_input,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .fingerprint = fingerprint,
    .assembly = &cr_ph_assembly_formulation, /* several rods and joints: ph_assembly_formulation.c */
};

/* the one-rod adapter's pieces that the assemblies reuse (ph_sim.h) */
void *cr_ph_sim_create(const cr_rod_def *def, const cr_model_options *o, cr_error *err)
{
    return ph_create(def, o, err);
}
void cr_ph_sim_destroy(void *impl) { ph_destroy(impl); }
void cr_ph_sim_loads(ph_sim *s, const double *magnitude, cr_ph_loads *L, double act[6])
{
    build_loads(s, magnitude, L, act);
}
void cr_ph_sim_dynamic_magnitudes(ph_sim *s, double t) { dynamic_magnitudes(s, t); }
