/* Assemblies of LGVI rods behind the formulation table (model/formulation.h), reached through
 * cr_lgvi_formulation.assembly (docs/lgvi.md "Assemblies").
 *
 * A joint makes its two nodes one node of the discrete mechanism: a ball shares the position
 * (the rods' nodes are one point mass, their masses and forces summed), a weld also the
 * rotation, with the reference's relative rotation Q kept (R_b = R_a Q: one rigid node whose
 * inertia is the sum of the members', turned into a common frame). This is the same discrete
 * Lagrangian as the rods' with fewer variables, so the step stays the rods' variational
 * integrator: the momentum update of a shared node is the sum of its members' (Störmer-Verlet
 * for the position), its rotation update one local 3x3 solve with the summed inertia, and the
 * discrete Noether momenta Σ p and Σ (x × p + R μ) are exact for a free assembly. Joints
 * joined to joints (a node shared by three rods, chains of welds, loops) merge into one group.
 *
 * The other joints hold some relative motions and free others, which shared variables cannot
 * express: a hinge or universal joint shares the position and adds rotation rows, a prismatic
 * joint shares the rotation and adds slide rows, a cylindrical joint adds both kinds. The rows
 * are exact constraints of the discrete mechanics (SHAKE on the Lie group, solve_rows):
 * their forces act at t_k like the rods' own, their multipliers make them hold at t_k+1.
 *
 * Each rod keeps its own kernel (lgvi.c) and its own mass share of a shared node's momenta,
 * so the rods' velocities, energies and momenta read as for one rod; the kernel's step is
 * split (cr_lgvi_step_begin / _end) for the shared nodes' update in between. */
#include "assembly/assembly_def.h"
#include "contact/contact.h"
#include "lgvi/formulation_internal.h"
#include "model/fixed_step.h"
#include "model/rod_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct member {
    int rod, node;
    cr_mat3 Q; /* R_member = R_root Q (kernel frames, from the reference) */
    /* the constraint's share on this node in the last step: force (spatial) and moment
     * (spatial, about the node) the other members apply on it */
    cr_vec3 lf, lm;
} member;

typedef struct group {
    int first, count; /* its members */
} group;

/* The rows of a hinge, universal, prismatic or cylindrical joint, as the mixed rod's
 * (src/mixed/assembly_model.c): a rotation row g = (R_a u)·(R_b d) between two rotation units
 * (rotation groups: a node alone, or a weld group), a slide row g = (x_b − x_a)·(R_a u) between
 * two translation units and a's rotation unit. Hinge and cylindrical: rotation rows u_0, u_1
 * normal to the axis h (a's frame), d = h carried into b's frame by the reference; universal one
 * rotation row, u = h_a, d = h_b; prismatic and cylindrical: slide rows with u_0, u_1 (the
 * prismatic's rotation is shared as a weld's). Discretized as SHAKE on the Lie group: the
 * rows' forces and torques at t_k, their multipliers such that every row holds at t_k+1. */
#define CR_ROWS_MAX 5
typedef struct cjoint {
    int joint, ua, ub, ta, tb, rows;          /* rotation units (rg) and translation units (tg), -1: none */
    int slide[CR_ROWS_MAX];                   /* 0: a rotation row, 1: a slide row */
    cr_vec3 u[CR_ROWS_MAX], d[CR_ROWS_MAX];   /* u in unit ua's root kernel frame, d (rotation rows) in unit ub's */
    double off[CR_ROWS_MAX];                  /* slide rows: g = (x_b − x_a)·(R_a u) − off (a slider drive's X) */
    double y[CR_ROWS_MAX];                    /* the rows' impulses h² λ (kg m², kg m) of the last step */
    cr_vec3 tdir[CR_ROWS_MAX];                /* the step's torque direction on ua (rotation rows: −it on ub), t_k */
    cr_vec3 fdir[CR_ROWS_MAX];                /* slide rows: the force direction on tb (−it on ta), t_k */
    double dy[CR_ROWS_MAX], tol[CR_ROWS_MAX]; /* the difference step and the tolerance of each row */
    cr_vec3 force, moment;                    /* on a in the last step, spatial (N, N m about a's node) */
    /* the joint's free directions (joint_springs): its axis h and normals n0, n1 in ua's root
     * kernel frame, n0 carried into b's (ub's root frame) by the reference; turn: φ about h
     * (hinge, cylindrical), slides: x along h (prismatic, cylindrical) */
    int turn, slides;
    cr_vec3 ha, n0a, n1a, n0b;
    double k, c, ks, cs; /* the springs and dampers: about h (k, c), along h (ks, cs) */
    /* a drive (motor): its row (the last), 1 for a slider's position; its law angle · time(t) */
    int drive, drive_slide;
    double drive_amount;
    cr_time_function drive_time;
    /* its input u (cr_sim_set_joint_drive_input, default 1), the mixed and port-Hamiltonian
     * assemblies' law: a C¹ cubic from drive_from at rate drive_rate (at the output time ramp_t0)
     * to drive_target at the next output time ramp_t1, the target the input given at ramp_t0 */
    double drive_input, drive_from, drive_rate, drive_target;
    cr_vec3 sforce, smoment; /* the springs' and dampers' wrench on a in the last step (in force, moment) */
    double phidot0, xdot0;   /* the rates the dampers took in the step (the last interval's) */
    /* stops (stop_force): about h (on φ unwrapped) and along h (on x), [lo, hi] each, their
     * penalty stiffness (0: no stop), the unwrapped φ at the last t_k, and the stops' forces at
     * that t_k (positive pushing the measure up) */
    double lo, hi, klim, slo, shi, kslim, phiu, lim_force, slim_force;
    /* a ball's or universal joint's isotropic spring and damper (iso_measure): k, c, the
     * reference's C = R_ub0ᵀ R_ua0 (so D = R_uaᵀ R_ub C = I there), and the damper's ġ of the step */
    double kiso, ciso;
    cr_mat3 C0;
    cr_vec3 gdot0;
} cjoint;

typedef struct asm_sim {
    int rods;
    lgvi_sim **r;
    int *first_node, *first_sample, *first_load; /* rods + 1 each */
    double *inputs;                              /* the loads' actuator inputs, rod by rod */
    int joints;
    cr_joint_type *jtype;
    int *jmember; /* per joint: its a and b members (2 each, indices into mem) */
    char (*jname)[96];
    member *mem; /* translation groups' members, then rotation groups' members */
    group *tg, *rg;
    int ntg, nrg;
    int dilatation;
    char (*rname)[64];
    cjoint *cj; /* the hinges and universal joints (their rotational rows) */
    int ncj;
    int *jcj; /* per joint: its index in cj, or -1 */
    /* per rotation unit, in the step: the principal axes P and inertias D of its summed
     * inertia, h (ν + h M) in the root's frame, the rotation increment f, R^k of the root, and
     * the constraint impulse Σ h² λ (spatial) the rows put on it */
    cr_mat3 *uP, *uR;
    cr_vec3 *uD, *ug0, *uf, *utau;
    /* per translation unit, in the step: its mass, velocity without the rows (P + h F)/M,
     * position x^k, and the rows' impulse Σ h² λ n (spatial): x^k+1 = x^k + h v + T/M */
    double *tM;
    cr_vec3 *tv0, *tx, *timp;
    /* the joints with rows grouped by shared units: group k is cj indices comp[comp_first[k] ..
     * comp_first[k+1]), solved together; work: room for the largest group's Newton system */
    int ncomp, *comp_first, *comp;
    double *work;
    /* the joints' springs, dampers and drives (joint_springs): any (the series' two columns),
     * their springs' energy at the energies' level t_k, the dampers' dissipation and the
     * drives' work summed over the steps, and the last step's share */
    int jcolumns, limits; /* limits: some joint has a stop (two more columns) */
    int drives;           /* joints with a drive */
    double ramp_t0, ramp_t1;
    int pressing; /* the stops pressing at the last t_k, and their largest force */
    double limit_force_max;
    double spring_energy, dissipated, dissipated_last, work_drives, work_drives_last;
    uint64_t joints_hash; /* the joints' definitions (cr_joint_def_hash), for the fingerprint */
    /* obstacles (every rod has the scenario's, the same list): contact 1 when there are, friction
     * 1 when one has friction; nob of them; per obstacle the scratch of the shared nodes' friction
     * (group_friction): the summed and one member's normal forces, the normal, the friction */
    int contact, friction, nob;
    /* per translation and rotation unit: 1 when a member is a clamped end node (a support on the
     * joint's node): the unit stays at its reference pose, its members at rest */
    unsigned char *theld, *uheld;
    double *frN, *frNm;
    cr_vec3 *frn, *fre;
    cr_vec3 *fru; /* moving obstacles (NULL when all are fixed): their surface's velocity over the step */
    /* contact.rods and contact.self (segcontact.c; NULL without): the segments' penalty forces at x^k
     * per global node, their energy at the energies' level t_k (and the step's), their discrete work
     * as the loads' (Σ w_j, w_k; the step's first half with v^{k−1}), and the sum of the pairs' normal
     * forces at t_k */
    cr_lgvi_segs *segs;
    cr_vec3 *segF;
    /* contact.rods_friction (cr_lgvi_segs_frictional): the friction's forces and moments at t_k
     * (spatial), the moments in the nodes' frames of t_k (the kernel's rule for their work), and the
     * friction's work as the loads' (W(t_k) = Σ_{j<k} w_j + ½ w_k) */
    cr_vec3 *fricF, *fricC, *fricCb;
    double fric_step_w, fric_work, fric_work_last;
    double seg_reach; /* 2 a_max: the columns' gap when no pair is nearer */
    double seg_energy, seg_step_V, seg_work, seg_work_last, seg_step_w, seg_normal, seg_step_normal;
    const char *series_names[12];
} asm_sim;

/* ---- what the shared nodes can represent: checked before anything runs ---- */

/* A weld's given rotation must be the reference's relative rotation (the LGVI has no static
 * stage to close the joint through): the angle between the two, in rad. */
static double weld_mismatch(const cr_scenario *sc, const cr_joint_def *j)
{
    if (!j->has_rotation) return 0.0;
    const cr_rod_def *ra = &sc->rods[j->a.rod].rod, *rb = &sc->rods[j->b.rod].rod;
    cr_vec3 pa, pb;
    cr_quat qa, qb;
    cr_assembly_node_reference_pose(ra, cr_assembly_node_index(ra, j->a.node), &pa, &qa);
    cr_assembly_node_reference_pose(rb, cr_assembly_node_index(rb, j->b.node), &pb, &qb);
    cr_quat rel = cr_q_mul(cr_q_conj(qa), qb), want = cr_q_normalize(j->rotation);
    double c = fabs(cr_q_dot(cr_q_normalize(rel), want));
    return 2.0 * acos(fmin(1.0, c));
}

static void *asm_create(const cr_assembly_def *def, const cr_model_options *o, cr_error *err);
static void asm_destroy(void *impl);

static cr_status asm_check(const cr_scenario *sc, cr_error *err)
{
    const cr_assembly_def all = {.rod_count = sc->rod_count,
                                 .rods = sc->rods,
                                 .joint_count = sc->joint_count,
                                 .joints = sc->joints,
                                 .body_count = sc->body_count,
                                 .bodies = sc->bodies};
    for (int k = 0; k < sc->joint_count; ++k) {
        const cr_joint_def *j = &sc->joints[k];
        char lb[96];
        cr_joint_label(&all, k, lb, sizeof lb);
        /* springs, dampers, stops and drives are this model's (joint_springs, drive_rows), but a
         * spring's rest needs a static stage to reach it */
        if (j->rest != 0 || j->slide_rest != 0)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "%s.%s: a spring's rest other than the reference is reached through a static stage, "
                                "which model lgvi has not; use model mixed_discrete",
                                lb, j->rest != 0 ? "rest" : "slide_rest");
    }
    /* the rest (free rigid bodies, joint stages) is the mixed rod's: the shared refusal on the
     * joints without what this model takes (springs, dampers, drives, stops) */
    cr_joint_def *jc = malloc(sizeof *jc * (size_t)(sc->joint_count > 0 ? sc->joint_count : 1));
    if (!jc) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    for (int k = 0; k < sc->joint_count; ++k) {
        jc[k] = sc->joints[k];
        jc[k].stiffness = jc[k].damping = jc[k].slide_stiffness = jc[k].slide_damping = 0;
        jc[k].has_drive = jc[k].has_limit = jc[k].has_slide_limit = 0;
    }
    /* and without the supports on the joints' nodes, which this model takes (a clamped end node in
     * a joint holds the joint's shared unit: asm_create); the rod's own check below judges them */
    cr_assembly_rod_def *rc = malloc(sizeof *rc * (size_t)sc->rod_count);
    cr_bc_def *bc = NULL;
    int nbc = 0;
    for (int r = 0; r < sc->rod_count; ++r) nbc += sc->rods[r].rod.bc_count;
    bc = malloc(sizeof *bc * (size_t)(nbc > 0 ? nbc : 1));
    if (!rc || !bc) {
        free(jc), free(rc), free(bc);
        return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    }
    nbc = 0;
    for (int r = 0; r < sc->rod_count; ++r) {
        const cr_rod_def *d = &sc->rods[r].rod;
        rc[r] = sc->rods[r];
        rc[r].rod.bcs = bc + nbc, rc[r].rod.bc_count = 0;
        for (int c = 0; c < d->bc_count; ++c) {
            int on_joint = 0;
            for (int k = 0; k < sc->joint_count && !on_joint; ++k)
                for (int e = 0; e < 2; ++e) {
                    const cr_joint_end end = cr_joint_end_of(&sc->joints[k], e);
                    on_joint |= end.body == 0 && end.rod == r &&
                                cr_assembly_node_index(d, end.node) == cr_assembly_node_index(d, d->bcs[c].node);
                }
            if (!on_joint) bc[nbc++] = d->bcs[c], rc[r].rod.bc_count++;
        }
    }
    cr_assembly_def without = all;
    without.joints = jc, without.rods = rc;
    cr_status st0 = cr_assembly_refuse_mixed_only(&without, "lgvi", err);
    free(jc), free(rc), free(bc);
    if (st0 != CR_OK) return st0;
    st0 = cr_assembly_refuse_gaps(&all, "model lgvi keeps a joint's points together from the start", err);
    if (st0 != CR_OK) return st0;
    for (int k = 0; k < sc->joint_count; ++k) {
        const cr_joint_def *j = &sc->joints[k];
        char lb[96];
        cr_joint_label(&all, k, lb, sizeof lb);
        double d = weld_mismatch(sc, j);
        if (d > 1e-9)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "%s.rotation: differs from the relative rotation of the two nodes in the reference by "
                                "%.6g rad; model lgvi has no static stage to close the weld through, so its rotation "
                                "must be the reference's (drop `rotation`, turn the rods' references, or use model "
                                "mixed_discrete)",
                                lb, d);
    }
    /* every rod as a one-rod scenario of the lgvi rod (sections, clamps, loads, stages, step; with
     * obstacles, which act on every rod: none moving, no node starting inside one, and the stable
     * step with the rod's contact springs) */
    const int segments =
        sc->rods[0].rod.contact.rods || sc->rods[0].rod.contact.self || sc->rod.contact.rods || sc->rod.contact.self;
    for (int r = 0; r < sc->rod_count; ++r) {
        cr_scenario one = *sc;
        one.rod = sc->rods[r].rod;
        one.rod.contact.self = one.rod.contact.rods = 0;                      /* the assembly's: below */
        one.rod.contact.rods_mu_static = one.rod.contact.rods_mu_kinetic = 0; /* (rods_friction: the pairs') */
        one.rod_count = 1, one.joint_count = 0;
        one.rods = NULL, one.joints = NULL;
        cr_status st = cr_lgvi_formulation.check(&one, err);
        /* contact.self and contact.rods: the penalty's 4 ε/(ρA l) in each rod's stable step (a pair's
         * row sum, as the single rod's self-contact; a pair of two rods takes the softer ε, so each
         * rod's own bounds its nodes' rows) */
        for (int k = 0; st == CR_OK && segments && k < sc->stage_count; ++k) {
            const double h = sc->stages[k].dynamics.time_step;
            double hmax, kc;
            if (sc->stages[k].type != CR_STAGE_DYNAMIC) continue;
            const int fric = sc->rods[0].rod.contact.rods_mu_static > 0 || sc->rod.contact.rods_mu_static > 0;
            st = cr_lgvi_def_stable_step(&sc->rods[r].rod, &sc->model, h, 1 + fric, &hmax, &kc, err);
            if (st == CR_OK && h > hmax)
                st = cr_error_set(err, CR_BAD_INPUT,
                                  "stages.%d.time_step: %g s exceeds the stable step of the explicit lgvi scheme with "
                                  "the contact between segments (contact.rods / contact.self), about %.3g s (its "
                                  "penalty contact.stiffness %.4g N/m); use a smaller step or a smaller "
                                  "contact.stiffness%s",
                                  k, h, hmax, kc, fric ? " (with contact.rods_friction's tangential springs)" : "");
        }
        if (st != CR_OK) {
            if (err) {
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "%s", err->message);
                cr_error_set(err, st, "rods.%d ('%s'): %s", r, sc->rods[r].name, msg);
            }
            return st;
        }
    }
    if (!segments) return CR_OK;
    /* no rod starting inside another or itself (as the mixed rod's assemblies): at the reference */
    asm_sim *s = asm_create(&all, &sc->model, err);
    if (!s) return err ? err->status : CR_BAD_INPUT;
    cr_status st = CR_OK;
    int a = -1, b = -1;
    cr_lgvi_segs_gather(s->segs, s->r);
    const double g = cr_lgvi_segs_min_gap(s->segs, &a, &b);
    double tol = INFINITY; /* the smallest of the rods' contact.tolerance (default 1e-4 a) */
    for (int r = 0; r < sc->rod_count; ++r) {
        double *rad = malloc((size_t)s->r[r]->nodes * sizeof *rad), eps, tr;
        if (rad && cr_lgvi_sim_contact_params(s->r[r], &sc->rods[r].rod, rad, &eps, &tr, NULL) == CR_OK)
            tol = fmin(tol, tr);
        free(rad);
    }
    if (g < -tol) {
        int ra, na, rb, nb;
        cr_lgvi_segs_segment(s->segs, a, &ra, &na);
        cr_lgvi_segs_segment(s->segs, b, &rb, &nb);
        st = cr_error_set(err, CR_BAD_INPUT,
                          "%s: the segment of nodes %d–%d of rods.%d ('%s') and that of nodes %d–%d of rods.%d ('%s') "
                          "start inside each other by %.3g m (more than the tolerance %.3g m)",
                          ra == rb ? "contact.self" : "contact.rods", na, na + 1, ra, sc->rods[ra].name, nb, nb + 1, rb,
                          sc->rods[rb].name, -g, tol);
    }
    asm_destroy(s);
    return st;
}

/* ---- create / destroy ---- */

/* member m is its rod's clamped end node (the kernel holds it at its reference pose) */
static int clamped(const asm_sim *s, int m)
{
    const cr_lgvi_params *p = cr_lgvi_get_params(s->r[s->mem[m].rod]->k);
    const int nd = s->mem[m].node;
    return (nd == 0 && p->clamp_start) || (nd == p->elements && p->clamp_end);
}

/* two obstacles the same (the shared nodes' friction sums the members' normal forces obstacle by
 * obstacle) */
static int same_obstacle(const cr_obstacle_def *a, const cr_obstacle_def *b)
{
    int same = !strcmp(a->name, b->name) && a->type == b->type && a->radius == b->radius && a->length == b->length &&
               a->mu_static == b->mu_static && a->mu_kinetic == b->mu_kinetic &&
               !memcmp(&a->center, &b->center, sizeof a->center) &&
               !memcmp(&a->half_extents, &b->half_extents, sizeof a->half_extents);
    for (int i = 0; i < 3 && same; ++i)
        for (int j = 0; j < 3; ++j) same &= a->axes.m[i][j] == b->axes.m[i][j];
    return same;
}

/* The obstacles: each rod's own contact (formulation.c), the same list for every rod, as a scenario
 * gives them (its `obstacles` act on every rod); the scratch of the shared nodes' friction. */
static cr_status asm_obstacles(asm_sim *s, const cr_assembly_def *def, cr_error *err)
{
    const cr_rod_def *d0 = &def->rods[0].rod;
    for (int r = 0; r < s->rods; ++r) {
        const cr_rod_def *d = &def->rods[r].rod;
        int same = d->obstacle_count == d0->obstacle_count;
        for (int k = 0; same && k < d->obstacle_count; ++k) same = same_obstacle(&d->obstacles[k], &d0->obstacles[k]);
        if (!same)
            return cr_error_set(err, CR_UNSUPPORTED,
                                "rods.%d ('%s'): obstacles: model lgvi's assemblies take one list of obstacles acting "
                                "on every rod (the scenario's); this rod's differs from rods.0's",
                                r, def->rods[r].name);
        s->contact |= s->r[r]->contact != NULL;
        s->friction |= s->r[r]->sliding != NULL;
    }
    s->nob = d0->obstacle_count;
    if (!s->friction) return CR_OK;
    s->frN = malloc((size_t)s->nob * sizeof *s->frN), s->frNm = malloc((size_t)s->nob * sizeof *s->frNm);
    s->frn = malloc((size_t)s->nob * sizeof *s->frn), s->fre = malloc((size_t)s->nob * sizeof *s->fre);
    if (s->r[0]->moving_obstacles) s->fru = malloc((size_t)s->nob * sizeof *s->fru);
    if (!s->frN || !s->frNm || !s->frn || !s->fre || (s->r[0]->moving_obstacles && !s->fru))
        return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi assembly");
    return CR_OK;
}

static void asm_destroy(void *impl)
{
    asm_sim *s = impl;
    if (!s) return;
    for (int r = 0; s->r && r < s->rods; ++r) cr_lgvi_formulation.destroy(s->r[r]);
    free(s->r);
    free(s->first_node);
    free(s->first_sample);
    free(s->first_load);
    free(s->inputs);
    free(s->jtype);
    free(s->jmember);
    free(s->jname);
    free(s->mem);
    free(s->tg);
    free(s->rg);
    free(s->rname);
    for (int i = 0; s->cj && i < s->ncj; ++i) free((void *)s->cj[i].drive_time.points);
    free(s->cj);
    free(s->jcj);
    free(s->uP);
    free(s->uR);
    free(s->uD);
    free(s->ug0);
    free(s->uf);
    free(s->utau);
    free(s->tM);
    free(s->tv0);
    free(s->tx);
    free(s->timp);
    free(s->comp_first);
    free(s->comp);
    free(s->work);
    free(s->frN), free(s->frNm), free(s->frn), free(s->fre), free(s->fru);
    cr_lgvi_segs_destroy(s->segs);
    free(s->segF), free(s->fricF), free(s->fricC), free(s->fricCb);
    free(s->theld), free(s->uheld);
    free(s);
}

static int find(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

static void unite(int *parent, int a, int b)
{
    a = find(parent, a), b = find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b; /* the smallest global node is the root: the group's member 0 */
}

/* the rod of global node g, and its index there */
static int rod_of(const int *first, int rods, int *i)
{
    int r = 0;
    while (r + 1 < rods && *i >= first[r + 1]) ++r;
    *i -= first[r];
    return r;
}

/* The groups of the union-find `parent` with two or more nodes, or with a node marked in
 * `keep` (may be NULL), into s->mem from *nm on, and their member ranges into *groups (count
 * in *ng). */
static int collect(asm_sim *s, int *parent, int total, const unsigned char *keep, int *nm, group **groups, int *ng)
{
    int *size = calloc((size_t)total, sizeof *size);
    *groups = calloc((size_t)total, sizeof **groups);
    if (!size || !*groups) return free(size), 0;
    for (int g = 0; g < total; ++g) size[find(parent, g)] += keep && keep[g] ? total : 1;
    *ng = 0;
    for (int root = 0; root < total; ++root) {
        if (find(parent, root) != root || size[root] < 2) continue;
        group *G = &(*groups)[(*ng)++];
        G->first = *nm, G->count = 0;
        for (int g = root; g < total; ++g)
            if (find(parent, g) == root) {
                member *m = &s->mem[(*nm)++];
                int i = g;
                m->rod = rod_of(s->first_node, s->rods, &i);
                m->node = i;
                G->count++;
            }
    }
    free(size);
    return 1;
}

/* library body components (x axial, y, z) to the kernel's (E1, E2, E3 = axis), formulation.c */
static cr_vec3 to_k(cr_vec3 v) { return cr_v3(v.y, v.z, v.x); }

/* a unit vector normal to the unit vector h (the mixed rod's choice; any other spans the same rows) */
static cr_vec3 normal_to(cr_vec3 h)
{
    cr_vec3 e = fabs(h.x) < 0.6 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
    return cr_v3_normalize(cr_v3_sub(e, cr_v3_scale(h, cr_v3_dot(e, h))));
}

/* the unit (index into groups) of rod r's node i, or -1 */
static int unit_of(const asm_sim *s, const group *groups, int ng, int r, int i)
{
    for (int g = 0; g < ng; ++g)
        for (int m = groups[g].first; m < groups[g].first + groups[g].count; ++m)
            if (s->mem[m].rod == r && s->mem[m].node == i) return g;
    return -1;
}

/* The rows of the joints that have them (cjoint) and the units' step buffers. The axes are
 * given in a's reference body frame (library components); each row's vectors are kept in its
 * unit root's kernel frame, fixed to that body, from the reference rotations. */
static cr_status build_constraints(asm_sim *s, const cr_assembly_def *def, cr_error *err)
{
    s->jcj = malloc((size_t)(s->joints > 0 ? s->joints : 1) * sizeof *s->jcj);
    s->cj = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->cj);
    const size_t nu = (size_t)(s->nrg > 0 ? s->nrg : 1), nt = (size_t)(s->ntg > 0 ? s->ntg : 1);
    s->uP = malloc(nu * sizeof *s->uP), s->uR = malloc(nu * sizeof *s->uR);
    s->uD = malloc(nu * sizeof *s->uD), s->ug0 = malloc(nu * sizeof *s->ug0);
    s->uf = malloc(nu * sizeof *s->uf), s->utau = malloc(nu * sizeof *s->utau);
    s->tM = malloc(nt * sizeof *s->tM), s->tv0 = malloc(nt * sizeof *s->tv0);
    s->tx = malloc(nt * sizeof *s->tx), s->timp = malloc(nt * sizeof *s->timp);
    if (!s->jcj || !s->cj || !s->uP || !s->uR || !s->uD || !s->ug0 || !s->uf || !s->utau || !s->tM || !s->tv0 ||
        !s->tx || !s->timp)
        return cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi assembly");
    double Lmax = 0;
    for (int r = 0; r < s->rods; ++r) Lmax = fmax(Lmax, cr_lgvi_get_params(s->r[r]->k)->length);
    s->ncj = 0;
    for (int j = 0; j < s->joints; ++j) {
        s->jcj[j] = -1;
        const cr_joint_def *J = &def->joints[j];
        /* (a ball with a spring: its nodes are rotation units for it, asm_create) */
        const int iso =
            (J->type == CR_JOINT_BALL || J->type == CR_JOINT_UNIVERSAL) && (J->stiffness != 0 || J->damping != 0);
        if (J->type == CR_JOINT_WELD || (J->type == CR_JOINT_BALL && !iso)) continue;
        const int ia = cr_assembly_node_index(&def->rods[J->a.rod].rod, J->a.node);
        const int ib = cr_assembly_node_index(&def->rods[J->b.rod].rod, J->b.node);
        const int ua = unit_of(s, s->rg, s->nrg, J->a.rod, ia), ub = unit_of(s, s->rg, s->nrg, J->b.rod, ib);
        const int ta = unit_of(s, s->tg, s->ntg, J->a.rod, ia), tb = unit_of(s, s->tg, s->ntg, J->b.rod, ib);
        const int slides = J->type == CR_JOINT_PRISMATIC || J->type == CR_JOINT_CYLINDRICAL;
        /* rows between one rigid unit hold identically: a rotation row within one rotation
         * unit, a slide row within one translation unit (the two points are one) */
        /* (and between two units that supports hold at their reference, where the rows hold) */
        const int held = ua >= 0 && ub >= 0 && s->uheld[ua] && s->uheld[ub];
        const int rot_rows = J->type == CR_JOINT_PRISMATIC || J->type == CR_JOINT_BALL || ua == ub || held ? 0
                             : J->type == CR_JOINT_UNIVERSAL                                               ? 1
                                                                                                           : 2;
        const int slide_rows = slides && ta != tb && ta >= 0 && tb >= 0 && !(s->theld[ta] && s->theld[tb]) ? 2 : 0;
        /* a spring, damper or drive needs its free direction between two units (a hinge
         * between two nodes that welds already join has none) */
        const int springs = J->stiffness != 0 || J->damping != 0 || J->slide_stiffness != 0 || J->slide_damping != 0;
        if ((springs || J->has_drive) && (ua < 0 || (J->has_drive && !J->drive_slide ? rot_rows == 0
                                                     : J->has_drive                  ? slide_rows == 0
                                                     : iso                           ? ua == ub
                                                                                     : rot_rows + slide_rows == 0)))
            return cr_error_set(err, CR_UNSUPPORTED,
                                "%s.%s: the joint's two nodes are one rigid unit (other joints already hold its "
                                "free direction): nothing for its %s to act on in model lgvi",
                                s->jname[j], J->has_drive ? "drive" : "stiffness",
                                J->has_drive ? "drive" : "spring or damper");
        if (ua < 0 || (rot_rows + slide_rows == 0 && !iso)) continue;
        cjoint *c = &s->cj[s->ncj];
        c->joint = j, c->ua = ua, c->ub = ub, c->ta = ta, c->tb = tb;
        /* spatial vectors at the reference: a's node's kernel frame R_a0 */
        const cr_mat3 Ra = cr_lgvi_rotation(s->r[J->a.rod]->k, ia);
        const member *ra = &s->mem[s->rg[ua].first], *rb = &s->mem[s->rg[ub].first];
        const cr_mat3 Rua = cr_lgvi_rotation(s->r[ra->rod]->k, ra->node);
        const cr_mat3 Rub = cr_lgvi_rotation(s->r[rb->rod]->k, rb->node);
        /* (a ball has no axis: any frame, unused by its isotropic spring) */
        const cr_vec3 h = J->type == CR_JOINT_BALL ? cr_v3(1, 0, 0) : cr_v3_normalize(J->axis), n0 = normal_to(h),
                      n1 = cr_v3_cross(h, n0);
        cr_vec3 dvec = h;
        double Jmin = INFINITY, Mmin = INFINITY;
        int n = 0;
        if (rot_rows == 2) {
            c->u[n] = n0, c->slide[n++] = 0;
            c->u[n] = n1, c->slide[n++] = 0;
        } else if (rot_rows == 1) {
            /* h_b made exactly normal to h_a (validated to 1e-6 rad), so that g = 0 in the reference */
            cr_vec3 hb = cr_v3_normalize(J->axis_b);
            dvec = cr_v3_normalize(cr_v3_sub(hb, cr_v3_scale(h, cr_v3_dot(h, hb))));
            c->u[n] = h, c->slide[n++] = 0;
        }
        for (int q = 0; q < slide_rows; ++q) c->u[n] = q ? n1 : n0, c->slide[n++] = 1;
        /* a drive: one more row, the last (its u and d, or offset, set at every step: drive_rows) */
        if (J->has_drive) c->drive = 1, c->drive_slide = J->drive_slide, c->slide[n] = J->drive_slide, c->u[n++] = h;
        c->rows = n;
        for (int r = 0; r < n; ++r) {
            c->u[r] = cr_m3_tmulv(Rua, cr_m3_mulv(Ra, to_k(c->u[r])));
            c->d[r] = cr_m3_tmulv(Rub, cr_m3_mulv(Ra, to_k(dvec)));
        }
        /* the free directions' frame, for the springs and the drive */
        c->turn = rot_rows == 2, c->slides = slide_rows == 2;
        c->ha = cr_m3_tmulv(Rua, cr_m3_mulv(Ra, to_k(h)));
        c->n0a = cr_m3_tmulv(Rua, cr_m3_mulv(Ra, to_k(n0)));
        c->n1a = cr_m3_tmulv(Rua, cr_m3_mulv(Ra, to_k(n1)));
        c->n0b = cr_m3_tmulv(Rub, cr_m3_mulv(Ra, to_k(n0)));
        if (J->type == CR_JOINT_PRISMATIC)
            c->ks = J->stiffness, c->cs = J->damping;
        else if (iso)
            c->kiso = J->stiffness, c->ciso = J->damping, c->C0 = cr_m3_mul(cr_m3_transpose(Rub), Rua);
        else
            c->k = J->stiffness, c->c = J->damping, c->ks = J->slide_stiffness, c->cs = J->slide_damping;
        if (c->drive) {
            s->drives++;
            c->drive_input = c->drive_from = c->drive_target = 1.0, c->drive_rate = 0.0;
            c->drive_amount = J->drive_slide ? J->drive_position : J->drive_angle;
            c->drive_time = J->drive_time;
            c->drive_time.points = NULL;
            if (J->drive_time.type == CR_TIME_TABLE && J->drive_time.point_count > 0) {
                cr_time_point *pt = malloc(sizeof *pt * (size_t)J->drive_time.point_count);
                if (!pt) return CR_NO_MEMORY;
                memcpy(pt, J->drive_time.points, sizeof *pt * (size_t)J->drive_time.point_count);
                c->drive_time.points = pt;
            }
        }
        /* stops: the mixed rod's penalty ε, the given one or the stiffest element's (rotation:
         * min(EI, GJ)/L_e, the moment per radian at the end of one element; slide: min(EA/L_e,
         * 12 EI/L_e³), as the obstacles' contact stiffness) */
        for (int q = 0; q < 2; ++q) {
            if (!(q ? J->has_slide_limit : J->has_limit)) continue;
            const int on_slide = q == 1 || J->type == CR_JOINT_PRISMATIC;
            if (on_slide ? !c->slides : !c->turn)
                return cr_error_set(err, CR_UNSUPPORTED,
                                    "%s.%s: the joint's two nodes are one rigid unit (other joints already hold its "
                                    "free direction): nothing for its stop to act on in model lgvi",
                                    s->jname[j], q ? "slide_limit" : "limit");
            double eps = q ? J->slide_limit_stiffness : J->limit_stiffness;
            const int given = eps > 0;
            for (int r = 0; !given && r < s->rods; ++r) {
                const cr_lgvi_params *P = cr_lgvi_get_params(s->r[r]->k);
                const double Le = P->length / P->elements, EI = fmin(P->C2.x, P->C2.y);
                eps = fmax(eps, on_slide ? fmin(P->C1.z / Le, 12.0 * EI / (Le * Le * Le)) : fmin(EI, P->C2.z) / Le);
            }
            const double *lim = q ? J->slide_limit : J->limit;
            if (on_slide)
                c->slo = lim[0], c->shi = lim[1], c->kslim = eps;
            else
                c->lo = lim[0], c->hi = lim[1], c->klim = eps;
            s->limits = 1;
        }
        if (springs || c->drive || c->klim > 0 || c->kslim > 0) s->jcolumns = 1;
        /* the difference steps: a turn of ~1e-7 rad, a move of ~1e-7 of the longest rod; the
         * tolerances: 1e-14 (a dot product of unit vectors), 1e-14 of the longest rod */
        for (int q = 0; q < 2; ++q) {
            const group *G = &s->rg[q ? ub : ua];
            for (int m = G->first; m < G->first + G->count; ++m) {
                cr_vec3 I = cr_lgvi_node_inertia(s->r[s->mem[m].rod]->k, s->mem[m].node);
                Jmin = fmin(Jmin, I.x + I.y + I.z);
            }
            if (slide_rows) {
                const group *T = &s->tg[q ? tb : ta];
                double M = 0;
                for (int m = T->first; m < T->first + T->count; ++m)
                    M += cr_lgvi_node_mass(s->r[s->mem[m].rod]->k, s->mem[m].node);
                Mmin = fmin(Mmin, M);
            }
        }
        for (int r = 0; r < n; ++r) {
            c->dy[r] = c->slide[r] ? 1e-7 * Lmax * Mmin : 1e-7 * Jmin;
            c->tol[r] = c->slide[r] ? 1e-14 * Lmax : 1e-14;
        }
        s->jcj[j] = s->ncj++;
    }
    /* groups: joints joined by a shared rotation or translation unit (union-find over units) */
    const int nid = s->nrg + s->ntg;
    int *par = malloc((size_t)(nid > 0 ? nid : 1) * sizeof *par), *root = malloc((size_t)(s->ncj + 1) * sizeof *root);
    s->comp_first = calloc((size_t)s->ncj + 2, sizeof *s->comp_first);
    s->comp = malloc((size_t)(s->ncj + 1) * sizeof *s->comp);
    if (!par || !root || !s->comp_first || !s->comp) return free(par), free(root), CR_NO_MEMORY;
    for (int i = 0; i < nid; ++i) par[i] = i;
    for (int i = 0; i < s->ncj; ++i) {
        const cjoint *c = &s->cj[i];
        unite(par, c->ua, c->ub);
        for (int r = 0; r < c->rows; ++r)
            if (c->slide[r]) unite(par, c->ua, s->nrg + c->ta), unite(par, c->ua, s->nrg + c->tb);
    }
    for (int i = 0; i < s->ncj; ++i) root[i] = find(par, s->cj[i].ua);
    int nc = 0, maxrows = 1;
    s->ncomp = 0;
    for (int i = 0; i < s->ncj; ++i) {
        int seen = 0;
        for (int q = 0; q < i && !seen; ++q) seen = root[q] == root[i];
        if (seen) continue;
        int rows = 0;
        s->comp_first[s->ncomp++] = nc;
        for (int q = i; q < s->ncj; ++q)
            if (root[q] == root[i]) s->comp[nc++] = q, rows += s->cj[q].rows;
        if (rows > maxrows) maxrows = rows;
    }
    s->comp_first[s->ncomp] = nc;
    free(par), free(root);
    s->work = malloc((size_t)(2 * maxrows + maxrows * maxrows) * sizeof *s->work);
    return s->work ? CR_OK : CR_NO_MEMORY;
}

/* contact.rods and contact.self (segcontact.c): every rod's nodes with their contact radius and the
 * rod's stiffness; the pairs of nodes a joint holds together (the joints' two nodes, and every two
 * members of a shared position: three rods at one point), near which two rods' segments never touch */
static cr_status asm_segments(asm_sim *s, const cr_assembly_def *def, cr_error *err)
{
    const cr_contact_def *cd = &def->rods[0].rod.contact;
    if (!cd->rods && !cd->self) return CR_OK;
    const int total = s->first_node[s->rods];
    int *nodes = malloc((size_t)s->rods * sizeof *nodes), links = 0;
    const double **sarc = malloc((size_t)s->rods * sizeof *sarc);
    double *radius = malloc((size_t)total * sizeof *radius), *eps = malloc((size_t)s->rods * sizeof *eps);
    int cap = s->joints;
    for (int g = 0; g < s->ntg; ++g) cap += s->tg[g].count * s->tg[g].count;
    int *link = malloc((size_t)2 * (cap > 0 ? cap : 1) * sizeof *link);
    s->segF = calloc((size_t)total, sizeof *s->segF);
    cr_status st = nodes && sarc && radius && eps && link && s->segF ? CR_OK : CR_NO_MEMORY;
    for (int r = 0; st == CR_OK && r < s->rods; ++r) {
        double tol;
        nodes[r] = s->r[r]->nodes, sarc[r] = s->r[r]->s;
        st = cr_lgvi_sim_contact_params(s->r[r], &def->rods[r].rod, radius + s->first_node[r], &eps[r], &tol, err);
        for (int i = 0; st == CR_OK && i < nodes[r]; ++i)
            s->seg_reach = fmax(s->seg_reach, 2 * radius[s->first_node[r] + i]);
        if (st != CR_OK && err) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            cr_error_set(err, st, "rods.%d ('%s'): %s", r, def->rods[r].name, msg);
        }
    }
    for (int j = 0; st == CR_OK && j < s->joints; ++j) {
        const cr_joint_def *J = &def->joints[j];
        link[2 * links] = s->first_node[J->a.rod] + cr_assembly_node_index(&def->rods[J->a.rod].rod, J->a.node);
        link[2 * links + 1] = s->first_node[J->b.rod] + cr_assembly_node_index(&def->rods[J->b.rod].rod, J->b.node);
        ++links;
    }
    for (int g = 0; st == CR_OK && g < s->ntg; ++g)
        for (int m = s->tg[g].first; m < s->tg[g].first + s->tg[g].count; ++m)
            for (int q = m + 1; q < s->tg[g].first + s->tg[g].count; ++q) {
                link[2 * links] = s->first_node[s->mem[m].rod] + s->mem[m].node;
                link[2 * links + 1] = s->first_node[s->mem[q].rod] + s->mem[q].node;
                ++links;
            }
    if (st == CR_OK) {
        s->segs = cr_lgvi_segs_create(s->rods, nodes, sarc, radius, eps, cd->self, cd->rods, links, link);
        if (!s->segs) st = CR_NO_MEMORY;
    }
    if (st == CR_OK && cd->rods_mu_static > 0) { /* contact.rods_friction: the pairs' springs */
        s->fricF = calloc((size_t)total, sizeof *s->fricF), s->fricC = calloc((size_t)total, sizeof *s->fricC);
        s->fricCb = calloc((size_t)total, sizeof *s->fricCb);
        if (!s->fricF || !s->fricC || !s->fricCb ||
            cr_lgvi_segs_set_friction(s->segs, cd->rods_mu_static, cd->rods_mu_kinetic) < 0)
            st = CR_NO_MEMORY;
    }
    free(nodes), free(sarc), free(radius), free(eps), free(link);
    return st;
}

static void *asm_create(const cr_assembly_def *def, const cr_model_options *o, cr_error *err)
{
    if (cr_assembly_validate(def, err) != CR_OK ||
        cr_assembly_refuse_gaps(def, "model lgvi keeps a joint's points together from the start", err) != CR_OK)
        return NULL;
    asm_sim *s = calloc(1, sizeof *s);
    if (!s) return cr_error_set(err, CR_NO_MEMORY, "out of memory"), NULL;
    s->rods = def->rod_count;
    s->joints = def->joint_count;
    s->joints_hash = 1469598103934665603ULL; /* axes, springs, drives, stops: a resume must not change them */
    for (int j = 0; j < def->joint_count; ++j) s->joints_hash = cr_joint_def_hash(&def->joints[j], s->joints_hash);
    s->dilatation = o->dilatation;
    s->r = calloc((size_t)s->rods, sizeof *s->r);
    s->first_node = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_sample = calloc((size_t)s->rods + 1, sizeof(int));
    s->first_load = calloc((size_t)s->rods + 1, sizeof(int));
    s->jtype = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->jtype);
    s->jmember = calloc((size_t)(s->joints > 0 ? 4 * s->joints : 1), sizeof *s->jmember);
    s->jname = calloc((size_t)(s->joints > 0 ? s->joints : 1), sizeof *s->jname);
    s->rname = calloc((size_t)s->rods, sizeof *s->rname);
    if (!s->rname || !s->r || !s->first_node || !s->first_sample || !s->first_load || !s->jtype || !s->jmember ||
        !s->jname)
        goto oom;
    for (int r = 0; r < s->rods; ++r) {
        snprintf(s->rname[r], sizeof s->rname[r], "%s", def->rods[r].name);
        /* (contact.self is the assembly's: the segments of every rod in one contact, segcontact.c) */
        cr_rod_def one = def->rods[r].rod;
        one.contact.self = 0, one.contact.rods = 0;
        s->r[r] = cr_lgvi_formulation.create(&one, o, err);
        if (!s->r[r]) {
            if (err) {
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "%s", err->message);
                cr_error_set(err, err->status, "rods.%d ('%s'): %s", r, def->rods[r].name, msg);
            }
            asm_destroy(s);
            return NULL;
        }
        s->first_node[r + 1] = s->first_node[r] + s->r[r]->nodes;
        s->first_sample[r + 1] = s->first_sample[r] + s->r[r]->nodes - 1;
        s->first_load[r + 1] = s->first_load[r] + s->r[r]->load_count;
    }
    if (asm_obstacles(s, def, err) != CR_OK) {
        asm_destroy(s);
        return NULL;
    }
    const int total = s->first_node[s->rods];
    s->inputs = malloc((size_t)(s->first_load[s->rods] > 0 ? s->first_load[s->rods] : 1) * sizeof(double));
    int *pt = malloc((size_t)total * sizeof *pt), *pr = malloc((size_t)total * sizeof *pr);
    s->mem = calloc((size_t)2 * total, sizeof *s->mem);
    if (!s->inputs || !pt || !pr || !s->mem) {
        free(pt), free(pr);
        goto oom;
    }
    for (int k = 0; k < s->first_load[s->rods]; ++k) s->inputs[k] = 1.0;
    for (int g = 0; g < total; ++g) pt[g] = pr[g] = g;
    for (int j = 0; j < s->joints; ++j) {
        const cr_joint_def *J = &def->joints[j];
        int ga = s->first_node[J->a.rod] + cr_assembly_node_index(&def->rods[J->a.rod].rod, J->a.node);
        int gb = s->first_node[J->b.rod] + cr_assembly_node_index(&def->rods[J->b.rod].rod, J->b.node);
        s->jtype[j] = J->type;
        s->jmember[4 * j] = ga, s->jmember[4 * j + 1] = gb; /* global nodes, made members below */
        /* shared: a weld's position and rotation, a ball's, hinge's and universal joint's position,
         * a prismatic joint's rotation; the rest are rows */
        if (J->type != CR_JOINT_PRISMATIC && J->type != CR_JOINT_CYLINDRICAL) unite(pt, ga, gb);
        if (J->type == CR_JOINT_WELD || J->type == CR_JOINT_PRISMATIC) unite(pr, ga, gb);
        if (J->name[0])
            snprintf(s->jname[j], sizeof s->jname[j], "%s", J->name);
        else
            snprintf(s->jname[j], sizeof s->jname[j], "joints.%d", j);
    }
    /* the nodes of a joint with rows move on their own (or with their group): each is a rotation
     * unit and, with slide rows, a translation unit, updated here with the rows' forces */
    unsigned char *keep = calloc((size_t)total, 1), *keept = calloc((size_t)total, 1);
    if (!keep || !keept) {
        free(keep), free(keept);
        free(pt), free(pr);
        goto oom;
    }
    for (int j = 0; j < s->joints; ++j)
        if ((s->jtype[j] != CR_JOINT_WELD && s->jtype[j] != CR_JOINT_BALL) ||
            (s->jtype[j] == CR_JOINT_BALL && (def->joints[j].stiffness != 0 || def->joints[j].damping != 0))) {
            keep[s->jmember[4 * j]] = keep[s->jmember[4 * j + 1]] = 1;
            if (s->jtype[j] == CR_JOINT_PRISMATIC || s->jtype[j] == CR_JOINT_CYLINDRICAL)
                keept[s->jmember[4 * j]] = keept[s->jmember[4 * j + 1]] = 1;
        }
    int nm = 0, ok = collect(s, pt, total, keept, &nm, &s->tg, &s->ntg);
    const int ntm = nm;
    ok = ok && collect(s, pr, total, keep, &nm, &s->rg, &s->nrg);
    free(pt), free(pr), free(keep), free(keept);
    if (!ok) goto oom;
    /* the joints' members: for the reactions, the translational member of each end, and the
     * rotational one of a weld's */
    for (int j = 0; j < s->joints; ++j)
        for (int side = 0; side < 2; ++side) {
            int g = s->jmember[4 * j + side], t = -1, w = -1;
            for (int m = 0; m < nm; ++m) {
                int i = g, r = rod_of(s->first_node, s->rods, &i);
                if (s->mem[m].rod == r && s->mem[m].node == i) {
                    if (m < ntm)
                        t = m;
                    else
                        w = m;
                }
            }
            /* (the rotation unit of a joint with rotation rows is found by cjoint; its member
             * would give the unit's whole constraint moment, not this joint's) */
            s->jmember[4 * j + side] = t;
            s->jmember[4 * j + 2 + side] = s->jtype[j] == CR_JOINT_WELD || s->jtype[j] == CR_JOINT_PRISMATIC ? w : -1;
        }
    s->theld = calloc((size_t)(s->ntg > 0 ? s->ntg : 1), 1), s->uheld = calloc((size_t)(s->nrg > 0 ? s->nrg : 1), 1);
    if (!s->theld || !s->uheld) goto oom;
    for (int g = 0; g < s->ntg; ++g) {
        const group *G = &s->tg[g];
        /* one point: every member at the root's reference position (they coincide to
         * CR_JOINT_GAP_TOL; snapping makes them the same bits, which the shared update keeps), or at
         * a clamped member's: a support on the joint's node holds the whole unit where it is */
        int at = G->first;
        for (int m = G->first; m < G->first + G->count; ++m)
            if (clamped(s, m)) s->theld[g] = 1, at = m;
        cr_vec3 x = cr_lgvi_position(s->r[s->mem[at].rod]->k, s->mem[at].node);
        for (int m = G->first; m < G->first + G->count; ++m) {
            cr_lgvi *k = s->r[s->mem[m].rod]->k;
            int nd = s->mem[m].node;
            if (m == at && s->theld[g]) continue;
            cr_lgvi_set_pose(k, nd, x, cr_lgvi_rotation(k, nd));
            if (clamped(s, m)) continue; /* (a second clamp: held by its kernel, snapped within the tolerance) */
            if (cr_lgvi_set_external(k, nd, CR_LGVI_EXTERNAL_TRANSLATION) != CR_OK) goto oom;
        }
    }
    for (int g = 0; g < s->nrg; ++g) {
        const group *G = &s->rg[g];
        const member *root = &s->mem[G->first];
        cr_mat3 Rt = cr_m3_transpose(cr_lgvi_rotation(s->r[root->rod]->k, root->node));
        for (int m = G->first; m < G->first + G->count; ++m) {
            cr_lgvi *k = s->r[s->mem[m].rod]->k;
            s->mem[m].Q = m == G->first ? cr_m3_identity() : cr_m3_mul(Rt, cr_lgvi_rotation(k, s->mem[m].node));
            if (clamped(s, m)) { /* the unit keeps its reference rotation: f = 0 for every member */
                s->uheld[g] = 1;
                continue;
            }
            if (cr_lgvi_set_external(k, s->mem[m].node, CR_LGVI_EXTERNAL_TRANSLATION | CR_LGVI_EXTERNAL_ROTATION) !=
                CR_OK)
                goto oom;
        }
    }
    cr_status bs = build_constraints(s, def, err);
    if (bs == CR_OK) bs = asm_segments(s, def, err);
    if (bs == CR_NO_MEMORY) goto oom;
    if (bs != CR_OK) {
        asm_destroy(s);
        return NULL;
    }
    return s;
oom:
    cr_error_set(err, CR_NO_MEMORY, "out of memory while building the lgvi assembly");
    asm_destroy(s);
    return NULL;
}

/* ---- the step ---- */

/* Eigenvectors of a symmetric 3x3 matrix A = P diag(d) Pᵀ by cyclic Jacobi rotations: P is a
 * product of plane rotations, a proper rotation; a diagonal A gives P = I exactly. */
static void sym_eigen(cr_mat3 A, cr_mat3 *P, cr_vec3 *d)
{
    cr_mat3 V = cr_m3_identity();
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(A.m[0][1]) + fabs(A.m[0][2]) + fabs(A.m[1][2]);
        double diag = fabs(A.m[0][0]) + fabs(A.m[1][1]) + fabs(A.m[2][2]);
        if (!(off > 1e-17 * diag)) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                double apq = A.m[p][q];
                if (apq == 0.0) continue;
                double theta = 0.5 * (A.m[q][q] - A.m[p][p]) / apq;
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
                for (int k = 0; k < 3; ++k) { /* A <- Jᵀ A J, J the rotation in the (p, q) plane */
                    double akp = A.m[k][p], akq = A.m[k][q];
                    A.m[k][p] = c * akp - sn * akq, A.m[k][q] = sn * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = A.m[p][k], aqk = A.m[q][k];
                    A.m[p][k] = c * apk - sn * aqk, A.m[q][k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = V.m[k][p], vkq = V.m[k][q];
                    V.m[k][p] = c * vkp - sn * vkq, V.m[k][q] = sn * vkp + c * vkq;
                }
            }
    }
    *P = V;
    *d = cr_v3(A.m[0][0], A.m[1][1], A.m[2][2]);
}

static cr_mat3 diag_rotated(cr_mat3 Q, cr_vec3 d) /* Q diag(d) Qᵀ */
{
    cr_mat3 out;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out.m[i][j] = Q.m[i][0] * d.x * Q.m[j][0] + Q.m[i][1] * d.y * Q.m[j][1] + Q.m[i][2] * d.z * Q.m[j][2];
    return out;
}

static const char *joint_of_group(const asm_sim *s, int first_member, int rotational)
{
    for (int j = 0; j < s->joints; ++j)
        for (int side = 0; side < 2; ++side) {
            int m = s->jmember[4 * j + 2 * rotational + side];
            if (m >= 0 && s->mem[m].rod == s->mem[first_member].rod && s->mem[m].node == s->mem[first_member].node)
                return s->jname[j];
        }
    return "?";
}

/* Rotation unit g's increment f (its root's kernel frame; *f the guess in, the solution out)
 * under its level-k momenta and torques plus the rows' angular impulse tau (spatial, h² λ). */
static cr_status unit_solve(const asm_sim *s, int g, int chart, cr_vec3 tau, cr_vec3 *f)
{
    if (s->uheld[g]) { /* a support holds it: whatever the torques */
        *f = cr_v3(0, 0, 0);
        return CR_OK;
    }
    cr_vec3 gvec = cr_v3_add(s->ug0[g], cr_m3_tmulv(s->uR[g], tau));
    if (gvec.x == 0.0 && gvec.y == 0.0 && gvec.z == 0.0) {
        *f = cr_v3(0, 0, 0);
        return CR_OK;
    }
    const cr_mat3 P = s->uP[g], Pt = cr_m3_transpose(P);
    cr_vec3 fp = cr_m3_mulv(Pt, *f);
    cr_status st = cr_lgvi_rotation_solve(chart, s->uD[g], cr_m3_mulv(Pt, gvec), &fp, NULL, NULL);
    *f = cr_m3_mulv(P, fp);
    return st;
}

/* τ(f) as a matrix (the kernel's chart, lgvi.c chart_quat) */
static cr_mat3 chart_matrix(int chart, cr_vec3 f)
{
    const double t2 = cr_v3_dot(f, f);
    double w, sn;
    if (chart == CR_LGVI_CHART_CAYLEY)
        w = 1.0 / sqrt(1.0 + 0.25 * t2), sn = 0.5 * w;
    else if (t2 < 1e-12)
        w = 1.0 - t2 / 8.0, sn = 0.5 - t2 / 48.0;
    else {
        const double th = sqrt(t2);
        w = cos(0.5 * th), sn = sin(0.5 * th) / th;
    }
    return cr_q_exp(cr_q(w, sn * f.x, sn * f.y, sn * f.z));
}

/* translation unit g's position at t_k+1 under the rows' impulse T (spatial, Σ h² λ n) */
static cr_vec3 unit_position(const asm_sim *s, int g, double h, cr_vec3 T)
{
    if (s->theld[g]) return s->tx[g]; /* a support holds it */
    return cr_v3_madd(s->tx[g], h, cr_v3_madd(s->tv0[g], 1.0 / (h * s->tM[g]), T));
}

/* Joint c's rows at t_k+1 with its impulses y (the other rows' as they stand): the residuals
 * g_r, and the rotation units' increments (guesses in, solutions out). */
static cr_status rows_at(const asm_sim *s, const cjoint *c, int chart, double h, const double *y, double *res,
                         cr_vec3 *fa, cr_vec3 *fb)
{
    cr_vec3 dta = cr_v3(0, 0, 0), dtb = cr_v3(0, 0, 0), dT = cr_v3(0, 0, 0);
    for (int r = 0; r < c->rows; ++r) {
        const double dy = y[r] - c->y[r];
        dta = cr_v3_madd(dta, dy, c->tdir[r]);
        if (c->slide[r])
            dT = cr_v3_madd(dT, dy, c->fdir[r]);
        else
            dtb = cr_v3_madd(dtb, -dy, c->tdir[r]);
    }
    if (c->ua == c->ub) dta = cr_v3_add(dta, dtb);
    cr_status st = unit_solve(s, c->ua, chart, cr_v3_add(s->utau[c->ua], dta), fa);
    if (c->ub == c->ua)
        *fb = *fa;
    else if (st == CR_OK)
        st = unit_solve(s, c->ub, chart, cr_v3_add(s->utau[c->ub], dtb), fb);
    if (st != CR_OK) return st;
    const cr_mat3 Ra = cr_m3_mul(s->uR[c->ua], chart_matrix(chart, *fa));
    const cr_mat3 Rb = cr_m3_mul(s->uR[c->ub], chart_matrix(chart, *fb));
    cr_vec3 dx = cr_v3(0, 0, 0);
    if (c->ta >= 0 && c->tb >= 0 && c->ta != c->tb)
        dx = cr_v3_sub(unit_position(s, c->tb, h, cr_v3_add(s->timp[c->tb], dT)),
                       unit_position(s, c->ta, h, cr_v3_sub(s->timp[c->ta], dT)));
    for (int r = 0; r < c->rows; ++r)
        res[r] = c->slide[r] ? cr_v3_dot(cr_m3_mulv(Ra, c->u[r]), dx) - c->off[r]
                             : cr_v3_dot(cr_m3_mulv(Ra, c->u[r]), cr_m3_mulv(Rb, c->d[r]));
    return CR_OK;
}

/* Joint c's impulses y taken: the units' sums moved from c->y to y */
static void take(asm_sim *s, cjoint *c, const double *y)
{
    for (int r = 0; r < c->rows; ++r) {
        const double dy = y[r] - c->y[r];
        s->utau[c->ua] = cr_v3_madd(s->utau[c->ua], dy, c->tdir[r]);
        if (c->slide[r]) {
            s->timp[c->tb] = cr_v3_madd(s->timp[c->tb], dy, c->fdir[r]);
            s->timp[c->ta] = cr_v3_madd(s->timp[c->ta], -dy, c->fdir[r]);
        } else
            s->utau[c->ub] = cr_v3_madd(s->utau[c->ub], -dy, c->tdir[r]);
        c->y[r] = y[r];
    }
}

/* b <- A⁻¹ b, A n×n row-major (destroyed): Gauss with partial pivoting; 0 if singular */
static int solve_dense(int n, double *A, double *b)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        if (!(fabs(A[p * n + k]) > 0)) return 0;
        for (int j = 0; j < n; ++j) {
            double t = A[k * n + j];
            A[k * n + j] = A[p * n + j], A[p * n + j] = t;
        }
        double t = b[k];
        b[k] = b[p], b[p] = t;
        for (int i = k + 1; i < n; ++i) {
            const double f = A[i * n + k] / A[k * n + k];
            for (int j = k; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; --k) {
        for (int j = k + 1; j < n; ++j) b[k] -= A[k * n + j] * b[j];
        b[k] /= A[k * n + k];
    }
    return 1;
}

/* The joints' multipliers: SHAKE on the Lie group (the constrained discrete Lagrange-d'Alembert
 * principle of a variational integrator, as Lee, Leok & McClamroch treat constrained rigid
 * bodies): the rows' forces and torques λ_r ∇g_r act at t_k, where the discrete Euler-Lagrange
 * equations put the rods' own (in p^k = p^{k-1} + h F^k, μ^k = ν^{k-1} + h M^k), and λ is such
 * that every row holds at t_k+1. The rows' gradients are equal and opposite forces on the two
 * points plus couples that balance their moment (g is unchanged by a rigid motion of the whole),
 * so Σ p and Σ (x × p + R μ) stay exact, and the step stays variational (bounded energy error).
 * The rows by Newton with a difference Jacobian (the map is smooth: the residual's round-off is
 * far below the difference step's effect, ~1e-7 rad or 1e-7 of the longest rod), the joints
 * that share a unit together (Gauss-Seidel sweeps over them took 18-26 per step), from the
 * last step's multipliers: 1-3 iterations a step. */
static cr_status solve_rows(asm_sim *s, int chart, double h, double t, cr_error *err)
{
    for (int i = 0; i < s->ncj; ++i) {
        cjoint *c = &s->cj[i];
        const cr_mat3 Ra = s->uR[c->ua];
        cr_vec3 dx = cr_v3(0, 0, 0);
        if (c->ta >= 0 && c->tb >= 0) dx = cr_v3_sub(s->tx[c->tb], s->tx[c->ta]);
        for (int r = 0; r < c->rows; ++r) {
            const cr_vec3 A = cr_m3_mulv(Ra, c->u[r]), D = cr_m3_mulv(s->uR[c->ub], c->d[r]);
            /* rotation row: δg = w_a·(A × D) − w_b·(A × D); slide row: δg = A·(δx_b − δx_a) + w_a·(A × dx) */
            c->tdir[r] = cr_v3_cross(A, c->slide[r] ? dx : D);
            c->fdir[r] = c->slide[r] ? A : cr_v3(0, 0, 0);
        }
        double y[CR_ROWS_MAX];
        memcpy(y, c->y, sizeof y);
        for (int r = 0; r < c->rows; ++r) c->y[r] = 0.0;
        take(s, c, y);
    }
    /* each group of joints that share a unit (a node with several joints) by one Newton
     * iteration on all their rows; the joints' own guesses of the units' increments */
    for (int k = 0; k < s->ncomp; ++k) {
        const int *js = s->comp + s->comp_first[k], nj = s->comp_first[k + 1] - s->comp_first[k];
        int n = 0;
        for (int q = 0; q < nj; ++q) n += s->cj[js[q]].rows;
        double *res = s->work, *col = res + n, *Jm = col + n;
        double worst = 0;
        int it = 0;
        for (;; ++it) {
            /* the rows at the multipliers as they stand */
            worst = 0;
            int rr = 0, bad = -1;
            for (int q = 0; q < nj; ++q) {
                cjoint *c = &s->cj[js[q]];
                cr_vec3 fa = s->uf[c->ua], fb = s->uf[c->ub];
                cr_status st = rows_at(s, c, chart, h, c->y, res + rr, &fa, &fb);
                if (st != CR_OK)
                    return cr_error_set(err, st,
                                        "lgvi: rotation solve at %s in the step from t = %.9g s %s: angular momentum "
                                        "too large for the time step (try a smaller time_step)",
                                        s->jname[c->joint], t,
                                        st == CR_NONFINITE ? "is not finite" : "did not converge");
                s->uf[c->ua] = fa, s->uf[c->ub] = fb;
                for (int r = 0; r < c->rows; ++r)
                    if (fabs(res[rr + r]) / c->tol[r] > worst) worst = fabs(res[rr + r]) / c->tol[r], bad = js[q];
                rr += c->rows;
            }
            /* (tol is at round-off, 1e-14: a residual stalled in its noise at the cap is
             * accepted up to 100x, 1e-12 rad or of the longest rod; docs/lgvi.md says so) */
            if (worst <= 1.0 || it == 30) {
                if (worst > 100.0)
                    return cr_error_set(err, CR_NOT_CONVERGED,
                                        "lgvi: the rows of %s did not close in the step from t = %.9g s (residual "
                                        "%.3g of its tolerance; try a smaller time_step)",
                                        s->jname[s->cj[bad].joint], t, worst);
                break;
            }
            /* the difference Jacobian, column by column: one row's multiplier moved */
            int cc = 0;
            for (int q = 0; q < nj; ++q) {
                cjoint *c = &s->cj[js[q]];
                for (int r = 0; r < c->rows; ++r, ++cc) {
                    double y0[CR_ROWS_MAX], y1[CR_ROWS_MAX];
                    memcpy(y0, c->y, sizeof y0), memcpy(y1, c->y, sizeof y1);
                    y1[r] += c->dy[r];
                    take(s, c, y1);
                    int ro = 0;
                    cr_status st = CR_OK;
                    for (int p = 0; p < nj && st == CR_OK; ++p) {
                        const cjoint *cp = &s->cj[js[p]];
                        cr_vec3 fa = s->uf[cp->ua], fb = s->uf[cp->ub];
                        st = rows_at(s, cp, chart, h, cp->y, col + ro, &fa, &fb);
                        ro += cp->rows;
                    }
                    take(s, c, y0);
                    if (st != CR_OK)
                        return cr_error_set(err, st,
                                            "lgvi: rotation solve at %s in the step from t = %.9g s did not converge "
                                            "(try a smaller time_step)",
                                            s->jname[c->joint], t);
                    for (int p = 0; p < n; ++p) Jm[p * n + cc] = (col[p] - res[p]) / c->dy[r];
                }
            }
            if (!solve_dense(n, Jm, res))
                return cr_error_set(err, CR_NOT_CONVERGED,
                                    "lgvi: the rows of %s are singular in the step from t = %.9g s (a joint "
                                    "holding what another already holds?)",
                                    s->jname[s->cj[js[0]].joint], t);
            rr = 0;
            for (int q = 0; q < nj; ++q) {
                cjoint *c = &s->cj[js[q]];
                double y1[CR_ROWS_MAX];
                memcpy(y1, c->y, sizeof y1);
                for (int r = 0; r < c->rows; ++r) y1[r] -= res[rr + r];
                take(s, c, y1);
                rr += c->rows;
            }
        }
    }
    for (int i = 0; i < s->ncj; ++i) {
        cjoint *c = &s->cj[i];
        c->force = c->moment = cr_v3(0, 0, 0);
        for (int r = 0; r < c->rows; ++r) {
            c->moment = cr_v3_madd(c->moment, c->y[r] / (h * h), c->tdir[r]);
            c->force = cr_v3_madd(c->force, -c->y[r] / (h * h), c->fdir[r]);
        }
    }
    return CR_OK;
}

/* ---- the joints' springs, dampers and drives along their free directions ---- */

/* a rotation unit's root: its rotation (kernel frame) and its spatial angular velocity on the
 * last interval; a translation unit's root: its position and velocity on the last interval */
static cr_mat3 unit_R(const asm_sim *s, int u)
{
    const member *m = &s->mem[s->rg[u].first];
    return cr_lgvi_rotation(s->r[m->rod]->k, m->node);
}

static cr_vec3 unit_w(const asm_sim *s, int u)
{
    const member *m = &s->mem[s->rg[u].first];
    /* R^k Ω = R^{k−1} Ω: Ω = log(F)/h is F's own axis */
    return cr_m3_mulv(cr_lgvi_rotation(s->r[m->rod]->k, m->node), cr_lgvi_angular_velocity(s->r[m->rod]->k, m->node));
}

static cr_vec3 unit_x(const asm_sim *s, int t)
{
    const member *m = &s->mem[s->tg[t].first];
    return cr_lgvi_position(s->r[m->rod]->k, m->node);
}

static cr_vec3 unit_v(const asm_sim *s, int t)
{
    const member *m = &s->mem[s->tg[t].first];
    return cr_lgvi_velocity(s->r[m->rod]->k, m->node);
}

/* Joint c's free directions now: the axis H = R_a h (spatial), the turn φ about it (b's copy of
 * n0 against a's n0, n1: in (−π, π], as the mixed rod's) and the slide x = (x_b − x_a)·H, with
 * their rates on the last interval (φ̇ = (ω_b − ω_a)·H, ẋ = (v_b − v_a)·H + (x_b − x_a)·(ω_a × H)) */
typedef struct jfree {
    cr_vec3 H, dx;
    double phi, phidot, x, xdot;
} jfree;

static jfree free_dirs(const asm_sim *s, const cjoint *c)
{
    jfree f = {0};
    const cr_mat3 A = unit_R(s, c->ua);
    const cr_vec3 wa = unit_w(s, c->ua);
    f.H = cr_m3_mulv(A, c->ha);
    if (c->turn) {
        const cr_vec3 be = cr_m3_mulv(unit_R(s, c->ub), c->n0b);
        f.phi = atan2(cr_v3_dot(be, cr_m3_mulv(A, c->n1a)), cr_v3_dot(be, cr_m3_mulv(A, c->n0a)));
        f.phidot = cr_v3_dot(cr_v3_sub(unit_w(s, c->ub), wa), f.H);
    }
    if (c->slides) {
        f.dx = cr_v3_sub(unit_x(s, c->tb), unit_x(s, c->ta));
        f.x = cr_v3_dot(f.dx, f.H);
        f.xdot = cr_v3_dot(cr_v3_sub(unit_v(s, c->tb), unit_v(s, c->ta)), f.H) + cr_v3_dot(f.dx, cr_v3_cross(wa, f.H));
    }
    return f;
}

/* A ball's or universal joint's isotropic spring, the mixed rod's: D = R_aᵀ R_b C = Rot(n, ψ) the
 * relative rotation from the reference (a's frame), g = ½ (D − Dᵀ)^∨ = sin ψ n, energy ½ k |g|² =
 * ½ k sin²ψ. With spatial variations δR = ŵ R, δD = (R_aᵀ (w_b − w_a))^ D, so δg = G R_aᵀ (w_b − w_a),
 * G = ½ (tr D I − D) ((û D + Dᵀ û)^∨ = (tr D I − D) u): the couple −R_a Gᵀ (k g + c ġ) on b, its
 * opposite on a; Gᵀ g = sin ψ cos ψ n (tr D = 1 + 2 cos ψ, Dᵀ n = n), the mixed rod's moment
 * k sin ψ cos ψ about n. The rate ġ = G R_aᵀ (ω_b − ω_a) on the last interval. */
static cr_vec3 iso_measure(const asm_sim *s, const cjoint *c, cr_mat3 *RaG, cr_vec3 *gdot)
{
    const cr_mat3 Ra = unit_R(s, c->ua);
    const cr_mat3 D = cr_m3_mul(cr_m3_mul(cr_m3_transpose(Ra), unit_R(s, c->ub)), c->C0);
    const cr_vec3 g =
        cr_v3(0.5 * (D.m[2][1] - D.m[1][2]), 0.5 * (D.m[0][2] - D.m[2][0]), 0.5 * (D.m[1][0] - D.m[0][1]));
    const double tr = D.m[0][0] + D.m[1][1] + D.m[2][2];
    cr_mat3 G;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) G.m[i][j] = 0.5 * ((i == j) * tr - D.m[i][j]);
    *RaG = cr_m3_mul(Ra, cr_m3_transpose(G)); /* R_a Gᵀ */
    const cr_vec3 u = cr_m3_tmulv(Ra, cr_v3_sub(unit_w(s, c->ub), unit_w(s, c->ua)));
    *gdot = cr_m3_mulv(G, u);
    return g;
}

/* φ unwrapped: the turn nearest the last one (φ's step between two t_k is far below π) */
static double unwrap(double phi, double last) { return last + remainder(phi - last, 2 * M_PI); }

/* A stop's force on a measure m within [lo, hi] (positive pushing m up; 0: not pressing) and its
 * spring's energy ½ k p² (added to *V): the mixed rod's penalty, unilateral, no dashpot */
static double stop_force(double k, double lo, double hi, double m, double *V)
{
    if (!(k > 0)) return 0.0;
    const double p = m > hi ? m - hi : m < lo ? m - lo : 0.0;
    *V += 0.5 * k * p * p;
    return -k * p;
}

/* the joints' springs' and stops' energy now: ½ k φ² + ½ k_s x² + the stops' ½ k p² */
static double springs_energy(const asm_sim *s, int *pressing, double *fmax_)
{
    double V = 0;
    for (int i = 0; i < s->ncj; ++i) {
        const cjoint *c = &s->cj[i];
        if (c->kiso != 0) {
            cr_mat3 RaG;
            cr_vec3 gd;
            const cr_vec3 g = iso_measure(s, c, &RaG, &gd);
            V += 0.5 * c->kiso * cr_v3_dot(g, g);
        }
        if (c->k == 0 && c->ks == 0 && c->klim == 0 && c->kslim == 0) continue;
        const jfree f = free_dirs(s, c);
        V += 0.5 * c->k * f.phi * f.phi + 0.5 * c->ks * f.x * f.x;
        const double fr = stop_force(c->klim, c->lo, c->hi, unwrap(f.phi, c->phiu), &V);
        const double fs = stop_force(c->kslim, c->slo, c->shi, f.x, &V);
        if (pressing) *pressing += (fr != 0) + (fs != 0), *fmax_ = fmax(*fmax_, fmax(fabs(fr), fabs(fs)));
    }
    return V;
}

/* The springs and dampers of the step from t_k, with the units' sums of the step set (ug0, tv0
 * from the rods' own forces): the spring is a potential V = ½ k φ² + ½ k_s x² of the discrete
 * Lagrangian, its force −∇V at t_k where the rods' elastic forces act (so the step stays
 * variational and V joins the energy at t_k); its gradient is the couple k φ H on a's rotation
 * and −k φ H on b's, and the force k_s x H on a's node, −k_s x H on b's with the couple
 * k_s x (H × (x_b − x_a)) on a's rotation, equal and opposite and balancing their moment (Σ p
 * and Σ (x × p + R μ) stay exact). The damper −c φ̇ (−c_s ẋ) with the rates of the last interval
 * [t_k−1, t_k], the latest the explicit step knows (rod.damping's drag does the same): a load
 * of the step (Lagrange–d'Alembert), its dissipation counted after the step (joint_dissipation).
 * Returns V at t_k. */
static double joint_springs(asm_sim *s, double h)
{
    double V = 0;
    s->pressing = 0, s->limit_force_max = 0;
    for (int i = 0; i < s->ncj; ++i) {
        cjoint *c = &s->cj[i];
        c->sforce = c->smoment = cr_v3(0, 0, 0);
        if (c->kiso != 0 || c->ciso != 0) {
            cr_mat3 RaG;
            const cr_vec3 g = iso_measure(s, c, &RaG, &c->gdot0);
            V += 0.5 * c->kiso * cr_v3_dot(g, g);
            const cr_vec3 tb = cr_m3_mulv(RaG, cr_v3_madd(cr_v3_scale(g, -c->kiso), -c->ciso, c->gdot0));
            s->ug0[c->ua] = cr_v3_madd(s->ug0[c->ua], -h * h, cr_m3_tmulv(s->uR[c->ua], tb));
            s->ug0[c->ub] = cr_v3_madd(s->ug0[c->ub], h * h, cr_m3_tmulv(s->uR[c->ub], tb));
            c->smoment = cr_v3_scale(tb, -1.0);
            continue; /* (a ball or universal joint has no other free-direction spring nor stop) */
        }
        if (c->k == 0 && c->c == 0 && c->ks == 0 && c->cs == 0 && c->klim == 0 && c->kslim == 0) continue;
        const jfree f = free_dirs(s, c);
        V += 0.5 * c->k * f.phi * f.phi + 0.5 * c->ks * f.x * f.x;
        /* the stops: penalty springs on φ unwrapped (whole turns count) and on x, potentials as
         * the springs (their kink at the stop makes them C¹, as the obstacles' contact springs) */
        c->phiu = unwrap(f.phi, c->phiu);
        c->lim_force = stop_force(c->klim, c->lo, c->hi, c->phiu, &V);
        c->slim_force = stop_force(c->kslim, c->slo, c->shi, f.x, &V);
        s->pressing += (c->lim_force != 0) + (c->slim_force != 0);
        s->limit_force_max = fmax(s->limit_force_max, fmax(fabs(c->lim_force), fabs(c->slim_force)));
        const double T = -c->k * f.phi - c->c * f.phidot + c->lim_force; /* the moment on b about H */
        const double S = -c->ks * f.x - c->cs * f.xdot + c->slim_force;  /* the force on b along H */
        const cr_vec3 ta = cr_v3_madd(cr_v3_scale(f.H, -T), S, cr_v3_cross(f.H, f.dx)), tb = cr_v3_scale(f.H, T);
        /* ug0 = h (ν + h M) in the root's frame: a torque τ adds h² Rᵀ τ */
        s->ug0[c->ua] = cr_v3_madd(s->ug0[c->ua], h * h, cr_m3_tmulv(s->uR[c->ua], ta));
        s->ug0[c->ub] = cr_v3_madd(s->ug0[c->ub], h * h, cr_m3_tmulv(s->uR[c->ub], tb));
        if (c->slides && S != 0) { /* tv0 = (P + h F)/M */
            s->tv0[c->tb] = cr_v3_madd(s->tv0[c->tb], h * S / s->tM[c->tb], f.H);
            s->tv0[c->ta] = cr_v3_madd(s->tv0[c->ta], -h * S / s->tM[c->ta], f.H);
        }
        c->sforce = cr_v3_scale(f.H, -S), c->smoment = ta;
        c->phidot0 = f.phidot, c->xdot0 = f.xdot;
    }
    return V;
}

/* The drives' rows at t_k+1: a motor's g = (R_a m(θ))·(R_b n0_b) = sin(φ − θ), m(θ) = −sin θ n0 +
 * cos θ n1 (a's frame), θ = angle · time(t_k+1): b's copy of n0 at θ about the axis (the sine
 * holds any number of turns: it measures φ − θ, never φ); a slider's g = (x_b − x_a)·(R_a h) − X,
 * X = position · time(t_k+1). Rheonomic rows: SHAKE closes them at t_k+1 as the others. */
/* joint c's drive at t: amount · time(t) · u(t), u the input's cubic Hermite over the output
 * interval [ramp_t0, ramp_t1] (ph_assembly_formulation.c, assembly_dynamics.c) */
static double drive_at(const asm_sim *s, const cjoint *c, double t)
{
    const double f = c->drive_amount * cr_time_function_eval(&c->drive_time, t);
    return f * cr_drive_ramp(c->drive_from, c->drive_target, c->drive_rate, s->ramp_t0, s->ramp_t1, t, NULL, NULL);
}

/* before a step from t: at an output time the input's ramp moves on (from the value and the
 * secant rate reached, to the input given there); at the stage's first step a new input
 * retargets the first interval's ramp */
static void drive_ramp(asm_sim *s, double t, double h)
{
    const double H = s->ramp_t1 - s->ramp_t0;
    if (t >= s->ramp_t1 - 0.5 * h) {
        for (int i = 0; i < s->ncj; ++i) {
            cjoint *c = &s->cj[i];
            const double u0 = c->drive_from, u1 = c->drive_target, r0 = c->drive_rate;
            c->drive_rate = cr_drive_ramp_end_rate(u0, u1, r0, H);
            c->drive_from = u1, c->drive_target = c->drive_input;
        }
        s->ramp_t0 = s->ramp_t1, s->ramp_t1 += H;
    } else if (fabs(t - s->ramp_t0) < 0.5 * h) {
        for (int i = 0; i < s->ncj; ++i) s->cj[i].drive_target = s->cj[i].drive_input;
    }
}

static void drive_rows(asm_sim *s, double t1)
{
    for (int i = 0; i < s->ncj; ++i) {
        cjoint *c = &s->cj[i];
        if (!c->drive) continue;
        const int r = c->rows - 1;
        const double v = drive_at(s, c, t1);
        if (c->drive_slide)
            c->u[r] = c->ha, c->off[r] = v;
        else
            c->u[r] = cr_v3_madd(cr_v3_scale(c->n0a, -sin(v)), cos(v), c->n1a), c->d[r] = c->n0b;
    }
}

/* The power of the drives' forces of the step (their rows' λ, directions of t_k) at the units'
 * velocities on the last interval: a motor's couple λ t on a, −λ t on b; a slider's force λ n
 * on b, −λ n on a, its couple λ t on a. */
static double drives_power(const asm_sim *s, double h)
{
    double P = 0;
    for (int i = 0; i < s->ncj; ++i) {
        const cjoint *c = &s->cj[i];
        if (!c->drive) continue;
        const int r = c->rows - 1;
        const double lam = c->y[r] / (h * h);
        const cr_vec3 wa = unit_w(s, c->ua);
        if (c->drive_slide)
            P += lam *
                 (cr_v3_dot(c->fdir[r], cr_v3_sub(unit_v(s, c->tb), unit_v(s, c->ta))) + cr_v3_dot(c->tdir[r], wa));
        else
            P += lam * cr_v3_dot(c->tdir[r], cr_v3_sub(wa, unit_w(s, c->ub)));
    }
    return P;
}

/* the dampers' dissipation rate c φ̇_k φ̇ + c_s ẋ_k ẋ, φ̇_k, ẋ_k the rates their forces took in
 * the step and φ̇, ẋ the rates now */
static double dampers_power(const asm_sim *s)
{
    double D = 0;
    for (int i = 0; i < s->ncj; ++i) {
        const cjoint *c = &s->cj[i];
        if (c->ciso != 0) {
            cr_mat3 RaG;
            cr_vec3 gd;
            iso_measure(s, c, &RaG, &gd);
            D += c->ciso * cr_v3_dot(c->gdot0, gd);
        }
        if (c->c == 0 && c->cs == 0) continue;
        const jfree f = free_dirs(s, c);
        D += c->c * c->phidot0 * f.phidot + c->cs * c->xdot0 * f.xdot;
    }
    return D;
}

/* the member of rod r's node i in the translation units (its joint force lf), or -1 */
static int translation_member(const asm_sim *s, int r, int i)
{
    for (int g = 0; g < s->ntg; ++g)
        for (int m = s->tg[g].first; m < s->tg[g].first + s->tg[g].count; ++m)
            if (s->mem[m].rod == r && s->mem[m].node == i) return m;
    return -1;
}

/* Coulomb friction on a shared position (translation group G): one point of the summed mass, whose
 * trial momentum p^k = Σ p_i^{k−1} + h Σ F_i (every force of the step but the friction and the slide
 * rows' impulses) is the single node's (formulation.c, cr_lgvi_coulomb), under the members' normal
 * forces summed obstacle by obstacle: two rods welded end to end press on the ground at their joint
 * as the continuous rod's node does (half the spring each), and stick and slide as it does. Each
 * member takes the share of each obstacle's friction that its normal force has (the joint carries
 * the difference to its mass share), as a load of its node (cr_lgvi_external_add_force: its work is
 * the loads' rule); all of them slide or stick together. Returns the friction's sum. The slide
 * rows of a prismatic or cylindrical joint act after it: on such a node the stick is not exact.
 * The stick test and impulse are the centre's (the group's translation, not its contact point's
 * velocity: the shared rotation is solved after it); the moment of the friction at the contact point
 * joins a shared rotation's torque (a weld's). */
static cr_vec3 group_friction(asm_sim *s, const group *G, double M, cr_vec3 trial, double h)
{
    const cr_contact *c = NULL;
    for (int k = 0; k < s->nob; ++k) s->frN[k] = 0;
    for (int m = G->first; m < G->first + G->count; ++m) {
        const lgvi_sim *R = s->r[s->mem[m].rod];
        if (!R->sliding) continue;
        c = R->contact;
        /* (the members are one point: the same surface velocity; the poses of t_k + h are the rods'
         * own, set by their cr_lgvi_sim_friction before) */
        cr_lgvi_sim_touch(R, s->mem[m].node, cr_lgvi_position(R->k, s->mem[m].node), s->frN, s->frn, s->fru, h);
    }
    if (!c) return cr_v3(0, 0, 0);
    int sl;
    const cr_vec3 total = cr_lgvi_coulomb(c, s->frN, s->frn, s->fru, M, trial, h, s->fre, &sl);
    for (int m = G->first; m < G->first + G->count; ++m) {
        lgvi_sim *R = s->r[s->mem[m].rod];
        const int i = s->mem[m].node;
        if (!R->sliding) continue;
        R->sliding[i] = (unsigned char)sl;
        if (total.x == 0 && total.y == 0 && total.z == 0) continue;
        for (int k = 0; k < s->nob; ++k) s->frNm[k] = 0;
        cr_lgvi_sim_touch(R, i, cr_lgvi_position(R->k, i), s->frNm, s->frn, NULL, h);
        cr_vec3 share = cr_v3(0, 0, 0), moment = cr_v3(0, 0, 0);
        for (int k = 0; k < s->nob; ++k) {
            if (!(s->frNm[k] > 0)) continue;
            const cr_vec3 fk = cr_v3_scale(s->fre[k], s->frNm[k] / s->frN[k]);
            share = cr_v3_add(share, fk);
            /* its moment about the centre, acting at the contact point r − a n with contact.rolling
             * (docs/lgvi.md "Friction") */
            moment = cr_v3_add(moment, cr_v3_cross(cr_v3_scale(s->frn[k], -R->contact->radius[i]), fk));
        }
        cr_lgvi_external_add_force(R->k, i, share);
        /* on a shared rotation (a weld's) with the group's; a member whose rotation its kernel updates
         * (a hinge's) has already turned in cr_lgvi_step_begin: it keeps the friction at its centre */
        if (R->rolling && (cr_lgvi_external_flags(R->k, i) & CR_LGVI_EXTERNAL_ROTATION))
            cr_lgvi_external_add_torque(R->k, i, moment);
    }
    return total;
}

static cr_status step(cr_sim *sim, double h, cr_dynamic_report *report, cr_error *err)
{
    asm_sim *s = sim->impl;
    const double t = cr_lgvi_time(s->r[0]->k);
    if (s->segs) { /* the segments' penalty at x^k, explicit as the obstacles' springs */
        cr_lgvi_segs_gather(s->segs, s->r);
        s->seg_step_V = cr_lgvi_segs_forces(s->segs, s->segF, &s->seg_step_normal);
        s->seg_step_w = 0;
    }
    const int fric = cr_lgvi_segs_frictional(s->segs);
    if (fric) { /* contact.rods_friction: the anchors updated at x^k, the springs' forces there */
        s->fric_step_w = 0;
        if (cr_lgvi_segs_friction(s->segs, s->fricF, s->fricC, NULL) < 0)
            return cr_error_set(err, CR_NO_MEMORY, "out of memory (contact.rods_friction)");
    }
    for (int r = 0; r < s->rods; ++r) {
        lgvi_sim *R = s->r[r];
        if (R->load_count > 0) memcpy(R->input, s->inputs + s->first_load[r], (size_t)R->load_count * sizeof(double));
        cr_lgvi_sim_sample_loads(R, t);
        if (R->fc) cr_lgvi_sim_contact_loads(R); /* the obstacles' springs at x^k, as one rod's */
        for (int i = 0; s->segs && i < R->nodes; ++i) {
            const cr_vec3 F = s->segF[s->first_node[r] + i];
            R->f[i] = cr_v3_add(R->f[i], F);
            s->seg_step_w += cr_v3_dot(F, cr_lgvi_velocity(R->k, i)); /* with v^{k−1}; v^k below */
        }
        for (int i = 0; fric && i < R->nodes; ++i) {
            /* the kernel's work of a load: (h/2) F·(v^{k−1} + v^k) + ½ (Rᵀ C)·(f^{k−1} + f^k) (lgvi.c) */
            const int g = s->first_node[r] + i;
            const cr_vec3 F = s->fricF[g], Cb = cr_m3_mulv(cr_m3_transpose(cr_lgvi_rotation(R->k, i)), s->fricC[g]);
            cr_vec3 f;
            cr_lgvi_node_momenta(R->k, i, NULL, NULL, &f);
            R->f[i] = cr_v3_add(R->f[i], F), R->c[i] = cr_v3_add(R->c[i], s->fricC[g]), s->fricCb[g] = Cb;
            s->fric_step_w += 0.5 * h * cr_v3_dot(F, cr_lgvi_velocity(R->k, i)) + 0.5 * cr_v3_dot(Cb, f);
        }
        cr_status st = cr_lgvi_step_begin(R->k, R->f, R->c, err);
        if (st != CR_OK) { /* nothing has changed yet in any rod */
            char msg[CR_ERROR_MESSAGE_SIZE];
            snprintf(msg, sizeof msg, "rod %d: %.400s (the explicit lgvi step is CFL-limited: try a smaller time_step)",
                     r, err ? err->message : "");
            return cr_error_set(err, st, "%s", msg);
        }
    }
    report->rhs_evals++;
    /* the friction of the nodes each kernel updates, as one rod's; the shared nodes' below */
    for (int r = 0; s->friction && r < s->rods; ++r) {
        cr_status st = s->r[r]->sliding ? cr_lgvi_sim_friction(s->r[r], h) : CR_OK;
        if (st != CR_OK)
            return cr_error_set(err, st,
                                "rod %d: obstacles: the lgvi rod's friction at the contact point: the rotation solve "
                                "failed in the step from t = %.9g s",
                                r, cr_lgvi_time(s->r[r]->k));
    }
    /* shared positions: one point mass M = Σ m_i under F = Σ F_i (Störmer-Verlet as the
     * kernel's nodes); each member keeps its mass share of the momentum */
    for (int g = 0; g < s->ntg; ++g) {
        const group *G = &s->tg[g];
        const member *root = &s->mem[G->first];
        double M = 0;
        cr_vec3 F = cr_v3(0, 0, 0), P = cr_v3(0, 0, 0);
        if (s->theld[g]) { /* a support holds it: at rest where it is (its mass only weighs the rows) */
            s->tM[g] = 1, s->tv0[g] = s->timp[g] = cr_v3(0, 0, 0);
            s->tx[g] = cr_lgvi_position(s->r[root->rod]->k, root->node);
            continue;
        }
        for (int m = G->first; m < G->first + G->count; ++m) {
            const cr_lgvi *k = s->r[s->mem[m].rod]->k;
            cr_vec3 Fi, pi;
            cr_lgvi_external_loads(k, s->mem[m].node, &Fi, NULL, NULL);
            cr_lgvi_node_momenta(k, s->mem[m].node, &pi, NULL, NULL);
            M += cr_lgvi_node_mass(k, s->mem[m].node), F = cr_v3_add(F, Fi), P = cr_v3_add(P, pi);
        }
        if (s->friction) F = cr_v3_add(F, group_friction(s, G, M, cr_v3_madd(P, h, F), h));
        s->tM[g] = M, s->tv0[g] = cr_v3_scale(cr_v3_madd(P, h, F), 1.0 / M);
        s->tx[g] = cr_lgvi_position(s->r[root->rod]->k, root->node), s->timp[g] = cr_v3(0, 0, 0);
    }
    /* shared rotations: μ = Σ Q_i μ_i in the root's frame, the inertia Σ (c_i/ε_i) Q_i J Q_iᵀ
     * turned to its principal axes for the kernel's diagonal rotation solve */
    const int chart = cr_lgvi_get_params(s->r[0]->k)->chart;
    for (int g = 0; g < s->nrg; ++g) {
        const group *G = &s->rg[g];
        const member *root = &s->mem[G->first];
        const cr_lgvi *k0 = s->r[root->rod]->k;
        cr_vec3 Mt = cr_v3(0, 0, 0), nu = cr_v3(0, 0, 0);
        cr_mat3 J = cr_m3_identity(); /* (a held unit's: unused, unit_solve gives it f = 0) */
        for (int m = G->first; m < G->first + G->count && !s->uheld[g]; ++m) {
            const member *me = &s->mem[m];
            if (m == G->first) J = cr_m3_zero();
            const cr_lgvi *k = s->r[me->rod]->k;
            cr_vec3 Mi, nui;
            double eps;
            cr_lgvi_external_loads(k, me->node, NULL, &Mi, &eps);
            cr_lgvi_node_momenta(k, me->node, NULL, &nui, NULL);
            Mt = cr_v3_add(Mt, cr_m3_mulv(me->Q, Mi));
            nu = cr_v3_add(nu, cr_m3_mulv(me->Q, nui));
            cr_mat3 Ji = diag_rotated(me->Q, cr_v3_scale(cr_lgvi_node_inertia(k, me->node), 1.0 / eps));
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) J.m[a][b] += Ji.m[a][b];
        }
        cr_lgvi_node_momenta(k0, root->node, NULL, NULL, &s->uf[g]);
        s->ug0[g] = cr_v3_scale(cr_v3_madd(nu, h, Mt), h);
        s->uR[g] = cr_lgvi_rotation(k0, root->node);
        s->utau[g] = cr_v3(0, 0, 0);
        sym_eigen(J, &s->uP[g], &s->uD[g]);
    }
    /* the joints' springs and dampers at t_k, the drives' rows at t_k+1 */
    double V = 0, D0 = 0, P0 = 0;
    if (s->jcolumns) {
        V = joint_springs(s, h);
        if (s->drives) drive_ramp(s, t, h);
        for (int i = 0; i < s->ncj; ++i)
            D0 += s->cj[i].c * s->cj[i].phidot0 * s->cj[i].phidot0 + s->cj[i].cs * s->cj[i].xdot0 * s->cj[i].xdot0 +
                  s->cj[i].ciso * cr_v3_dot(s->cj[i].gdot0, s->cj[i].gdot0);
        drive_rows(s, t + h);
    }
    if (s->ncj > 0) {
        cr_status st = solve_rows(s, chart, h, t, err);
        if (st != CR_OK) return st;
        for (int i = 0; i < s->ncj; ++i) { /* the springs' and dampers' wrench is the joint's too */
            s->cj[i].force = cr_v3_add(s->cj[i].force, s->cj[i].sforce);
            s->cj[i].moment = cr_v3_add(s->cj[i].moment, s->cj[i].smoment);
        }
        if (s->jcolumns) P0 = drives_power(s, h);
    }
    for (int g = 0; g < s->ntg; ++g) {
        const group *G = &s->tg[g];
        cr_vec3 v = s->tv0[g];
        if (s->timp[g].x != 0.0 || s->timp[g].y != 0.0 || s->timp[g].z != 0.0)
            v = cr_v3_madd(v, 1.0 / (h * s->tM[g]), s->timp[g]); /* the rows' impulse */
        if (s->theld[g]) v = cr_v3(0, 0, 0);
        cr_vec3 x = cr_v3_madd(s->tx[g], h, v);
        if (!isfinite(x.x + x.y + x.z))
            return cr_error_set(err, CR_NONFINITE,
                                "lgvi: non-finite position of the joint node of %s in the step from t = %.9g s (the "
                                "explicit lgvi step is CFL-limited: try a smaller time_step)",
                                joint_of_group(s, G->first, 0), t);
        cr_vec3 sum = cr_v3(0, 0, 0);
        for (int m = G->first; m < G->first + G->count; ++m) {
            member *me = &s->mem[m];
            cr_lgvi *k = s->r[me->rod]->k;
            if (clamped(s, m)) continue; /* its kernel holds it */
            const double mi = cr_lgvi_node_mass(k, me->node);
            cr_vec3 Fi, pold, pi = cr_v3_scale(v, mi);
            cr_lgvi_external_loads(k, me->node, &Fi, NULL, NULL);
            cr_lgvi_node_momenta(k, me->node, &pold, NULL, NULL);
            cr_lgvi_external_set_translation(k, me->node, x, pi);
            /* p_i^k = p_i^{k-1} + h (F_i + λ_i): the joint's force on this member */
            me->lf = cr_v3_sub(cr_v3_scale(cr_v3_sub(pi, pold), 1.0 / h), Fi);
            sum = cr_v3_add(sum, me->lf);
        }
        /* a clamped member: the joint's force on it is the opposite of the others' (the support's
         * reaction is the clamp's, not the joint's) */
        for (int m = G->first; s->theld[g] && m < G->first + G->count; ++m)
            if (clamped(s, m)) s->mem[m].lf = cr_v3_scale(sum, -1.0);
    }
    for (int g = 0; g < s->nrg; ++g) {
        const group *G = &s->rg[g];
        cr_vec3 f = s->uf[g];
        cr_status st = unit_solve(s, g, chart, s->utau[g], &f);
        if (st != CR_OK)
            return cr_error_set(err, st,
                                "lgvi: rotation solve of the joint node of %s %s in the step from t = %.9g s: "
                                "angular momentum too large for the time step (try a smaller time_step)",
                                joint_of_group(s, G->first, 1),
                                st == CR_NONFINITE ? "is not finite" : "did not converge", t);
        cr_vec3 sum = cr_v3(0, 0, 0);
        for (int m = G->first; m < G->first + G->count; ++m) {
            member *me = &s->mem[m];
            cr_lgvi *k = s->r[me->rod]->k;
            if (clamped(s, m)) continue; /* its kernel holds it */
            cr_vec3 Mi, nui;
            cr_lgvi_external_loads(k, me->node, NULL, &Mi, NULL);
            cr_lgvi_node_momenta(k, me->node, NULL, &nui, NULL);
            cr_vec3 mu = cr_lgvi_external_set_rotation(k, me->node, cr_m3_mulv(cr_m3_transpose(me->Q), f));
            /* μ_i^k = ν_i^{k-1} + h (M_i + λ_i), body frame of R^k: the joint's moment */
            cr_vec3 lb = cr_v3_sub(cr_v3_scale(cr_v3_sub(mu, nui), 1.0 / h), Mi);
            me->lm = cr_m3_mulv(cr_lgvi_rotation(k, me->node), lb); /* spatial (R^k) */
            sum = cr_v3_add(sum, me->lm);
        }
        /* a clamped member: the opposite of the others' moments, about its node (a prismatic joint's
         * members are apart: their slide forces' moment about it too) */
        for (int c = G->first; s->uheld[g] && c < G->first + G->count; ++c) {
            if (!clamped(s, c)) continue;
            const cr_vec3 xc = cr_lgvi_position(s->r[s->mem[c].rod]->k, s->mem[c].node);
            cr_vec3 mc = cr_v3_scale(sum, -1.0);
            for (int m = G->first; m < G->first + G->count; ++m) {
                const member *me = &s->mem[m];
                const int tm = clamped(s, m) ? -1 : translation_member(s, me->rod, me->node);
                if (tm < 0) continue;
                const cr_vec3 xm = cr_lgvi_position(s->r[me->rod]->k, me->node);
                mc = cr_v3_sub(mc, cr_v3_cross(cr_v3_sub(xm, xc), s->mem[tm].lf));
            }
            s->mem[c].lm = mc;
        }
    }
    for (int r = 0; r < s->rods; ++r) {
        cr_lgvi_step_end(s->r[r]->k);
        if (s->r[r]->fc) cr_lgvi_sim_contact_done(s->r[r], h); /* the springs' energy and work */
        for (int i = 0; s->segs && i < s->r[r]->nodes; ++i)
            s->seg_step_w += cr_v3_dot(s->segF[s->first_node[r] + i], cr_lgvi_velocity(s->r[r]->k, i));
        for (int i = 0; fric && i < s->r[r]->nodes; ++i) {
            const int g = s->first_node[r] + i;
            cr_vec3 f;
            cr_lgvi_node_momenta(s->r[r]->k, i, NULL, NULL, &f);
            s->fric_step_w +=
                0.5 * h * cr_v3_dot(s->fricF[g], cr_lgvi_velocity(s->r[r]->k, i)) + 0.5 * cr_v3_dot(s->fricCb[g], f);
        }
    }
    if (fric) s->fric_work += s->fric_step_w, s->fric_work_last = s->fric_step_w;
    if (s->segs) { /* the kernel's discrete work of the step's forces (h/2) F·(v^{k−1} + v^k), V at t_k */
        const double w = 0.5 * h * s->seg_step_w;
        s->seg_energy = s->seg_step_V, s->seg_normal = s->seg_step_normal, s->seg_work += w, s->seg_work_last = w;
    }
    if (s->jcolumns) {
        /* the kernel's rule for the loads' work, w_k = (h/2) F·(v^{k−1} + v^k) (lgvi.c), for the
         * dampers' dissipation and the drives' work: their powers at the rates of the intervals
         * on both sides of t_k; V belongs to t_k, the energies' level */
        const double d = 0.5 * h * (D0 + dampers_power(s)), w = 0.5 * h * (P0 + drives_power(s, h));
        s->spring_energy = V;
        s->dissipated += d, s->dissipated_last = d;
        s->work_drives += w, s->work_drives_last = w;
    }
    return CR_OK;
}

static cr_status begin_stage(cr_sim *sim, int stage, double h, cr_error *err)
{
    asm_sim *s = sim->impl;
    for (int r = 0; r < s->rods; ++r) {
        lgvi_sim *R = s->r[r];
        cr_rod_def loads_only = {.load_count = R->load_count, .loads = R->loads};
        cr_rod_stage_load_factors(&loads_only, stage, R->stage_factor);
        if (cr_lgvi_set_step(R->k, h) != CR_OK) return cr_error_set(err, CR_BAD_INPUT, "time_step: %g", h);
    }
    return CR_OK;
}

/* the rods' rows summed: energies, work, momenta (about the origin) */
static void sample_row(const cr_sim *sim, cr_dynamic_sample *smp)
{
    const asm_sim *s = sim->impl;
    memset(smp, 0, sizeof *smp);
    /* one rod's four contact columns (formulation.c) over the rods: the touching nodes, the sliding
     * ones and the normal forces summed (a joint's two nodes count as two, each with its rod's share),
     * the deepest penetration */
    double ct[4] = {0, 0, 0, 0};
    for (int r = 0; r < s->rods; ++r) {
        cr_dynamic_sample one;
        cr_lgvi_sim_fill_sample(s->r[r], &one);
        if (s->r[r]->contact)
            ct[0] += one.extra[5], ct[1] += one.extra[6], ct[2] += one.extra[7], ct[3] = fmax(ct[3], one.extra[8]);
        smp->t = one.t;
        smp->kinetic += one.kinetic, smp->elastic += one.elastic, smp->work_external += one.work_external;
        smp->momentum = cr_v3_add(smp->momentum, one.momentum);
        smp->angular_momentum = cr_v3_add(smp->angular_momentum, one.angular_momentum);
    }
    smp->extra_count = 0;
    if (s->jcolumns) {
        /* the joints' springs in the elastic energy (at t_k, the energies' level, as the rods'),
         * the mixed rod's two columns with W(t_k) = Σ_{j<k} w_j + ½ w_k as the loads' work */
        const int stepped = cr_lgvi_steps(s->r[0]->k) > 0;
        int pressing = 0;
        double fm = 0;
        const double V = springs_energy(s, &pressing, &fm);
        smp->elastic += stepped ? s->spring_energy : V;
        smp->extra[0] = s->dissipated - 0.5 * s->dissipated_last;
        smp->extra[1] = s->work_drives - 0.5 * s->work_drives_last;
        smp->extra_count = 2;
        if (s->limits) { /* the stops at t_k, as the energies */
            smp->extra[2] = stepped ? s->pressing : pressing;
            smp->extra[3] = stepped ? s->limit_force_max : fm;
            smp->extra_count = 4;
        }
    }
    if (s->contact) {
        memcpy(smp->extra + smp->extra_count, ct, sizeof ct);
        smp->extra_count += 4;
    }
    if (s->segs) {
        /* the penalty is a potential of the rods (in energy_elastic at t_k) and its work leaves
         * work_external (W(t_k) = Σ_{j<k} w_j + ½ w_k, as the kernel counted it with the loads);
         * the columns at the current positions: the pairs pressing, the smallest gap (2 a_max when none
         * is nearer), and the sum of their normal forces at t_k (the energies' level) */
        cr_lgvi_segs *c = s->segs;
        cr_lgvi_segs_gather(c, s->r);
        double normal = 0;
        const double V = cr_lgvi_segs_forces(c, NULL, &normal);
        const int stepped = cr_lgvi_steps(s->r[0]->k) > 0;
        smp->elastic += stepped ? s->seg_energy : V;
        smp->work_external -= s->seg_work - 0.5 * s->seg_work_last;
        smp->extra[smp->extra_count] = cr_lgvi_segs_pairs(c);
        smp->extra[smp->extra_count + 1] = fmin(s->seg_reach, cr_lgvi_segs_min_gap(c, NULL, NULL));
        smp->extra[smp->extra_count + 2] = stepped ? s->seg_normal : normal;
        smp->extra_count += 3;
    }
    if (cr_lgvi_segs_frictional(s->segs)) {
        /* the friction's work leaves work_external (the kernel counted it with the loads) for its own
         * column: its springs store and its slip dissipates, so the balance is T + U − W − W_friction */
        const double w = s->fric_work - 0.5 * s->fric_work_last;
        smp->work_external -= w;
        smp->extra[smp->extra_count++] = w;
    }
}

/* the one rod's bands (formulation.c): the shared nodes add no dissipation nor drift */
static double energy(const cr_sim *sim, const cr_dynamic_sample *row, double *stored, double *supplied,
                     double *roundoff)
{
    const asm_sim *s = sim->impl;
    *roundoff = 0;
    *stored = row->kinetic + row->elastic; /* the joints' springs included */
    *supplied = row->work_external;
    if (s->jcolumns) *supplied += row->extra[1] - row->extra[0]; /* the drives' work, the dampers' dissipation */
    if (cr_lgvi_segs_frictional(s->segs)) *supplied += row->extra[row->extra_count - 1]; /* the friction's work */
    return s->dilatation ? 0.5 : 0.05;
}

static const cr_fixed_step_ops asm_ops = {.begin = begin_stage, .step = step, .sample = sample_row, .energy = energy};

static cr_status asm_static(cr_sim *sim, int stage, const cr_static_options *o, const cr_stage_callbacks *cb,
                            cr_static_report *report, cr_error *err)
{
    (void)sim, (void)o, (void)cb, (void)report;
    return cr_error_set(err, CR_BAD_INPUT, "stages.%d.type: the lgvi model has no static stages", stage);
}

static cr_status asm_dynamic(cr_sim *sim, int stage, double t_stage_start, double h0, double work,
                             const cr_dynamic_options *o, const cr_stage_callbacks *cb, cr_dynamic_report *report,
                             cr_error *err)
{
    (void)h0, (void)work;
    asm_sim *s = sim->impl;
    const double h = o->time_step;
    if (s->drives && h > 0) { /* the output interval as the driver rounds it (fixed_step.c) */
        const long total = lround(o->t_end / h), done = lround((cr_lgvi_time(s->r[0]->k) - t_stage_start) / h);
        const double every_d = o->output_dt / h;
        long every = every_d >= (double)total ? total : lround(every_d);
        if (every < 1) every = 1;
        if (done == 0) /* fresh: the inputs held; resumed: the checkpoint's ramp, in its interval */
            for (int i = 0; i < s->ncj; ++i)
                s->cj[i].drive_from = s->cj[i].drive_target = s->cj[i].drive_input, s->cj[i].drive_rate = 0.0;
        s->ramp_t0 = t_stage_start + (double)(done / every * every) * h, s->ramp_t1 = s->ramp_t0 + (double)every * h;
    }
    return cr_fixed_step_stage(sim, &asm_ops, stage, t_stage_start, o, cb, report, err);
}

/* ---- accessors: the rods' nodes and elements rod by rod ---- */
static int node_count(const void *impl)
{
    const asm_sim *s = impl;
    return s->first_node[s->rods];
}

static double node_s(const void *impl, int i)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    return cr_lgvi_formulation.node_s(s->r[r], i);
}

static void node_pose(const void *impl, int i, cr_vec3 *x, cr_quat *q)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    cr_lgvi_formulation.node_pose(s->r[r], i, x, q);
}

static void node_velocity(const void *impl, int i, cr_vec3 *v, cr_vec3 *w)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_node, s->rods, &i);
    cr_lgvi_formulation.node_velocity(s->r[r], i, v, w);
}

static int sample_count(const void *impl)
{
    const asm_sim *s = impl;
    return s->first_sample[s->rods];
}

static double sample_s(const void *impl, int e)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_sample, s->rods, &e);
    return cr_lgvi_formulation.sample_s(s->r[r], e);
}

static void sample(const void *impl, int e, cr_vec3 *g, cr_vec3 *k, cr_vec3 *n, cr_vec3 *m)
{
    const asm_sim *s = impl;
    int r = rod_of(s->first_sample, s->rods, &e);
    cr_lgvi_formulation.sample(s->r[r], e, g, k, n, m);
}

static double time_of(const void *impl) { return cr_lgvi_time(((const asm_sim *)impl)->r[0]->k); }
static double load_factor(const void *impl)
{
    (void)impl;
    return 0.0;
}

/* with springs, dampers or drives on the joints: the mixed rod's two columns (four with stops); with
 * obstacles one rod's four contact columns after them */
static int series_extra(const void *impl, const char *const **names)
{
    static const char *const joints[] = {"energy_dissipated_joints", "work_drives", "joint_limits_pressing",
                                         "joint_limit_force"};
    static const char *const contact[] = {"contact_active", "contact_sliding", "contact_normal_force",
                                          "contact_penetration"};
    static const char *const segs[] = {"rods_contact_pairs", "rods_contact_gap", "rods_contact_force",
                                       "rods_friction_work"};
    asm_sim *s = (asm_sim *)impl; /* (its column list, filled here) */
    if (!s) {
        *names = joints;
        return 0;
    }
    int n = 0;
    for (int k = 0; s->jcolumns && k < 2 + 2 * s->limits; ++k) s->series_names[n++] = joints[k];
    for (int k = 0; s->contact && k < 4; ++k) s->series_names[n++] = contact[k];
    for (int k = 0; s->segs && k < 3 + cr_lgvi_segs_frictional(s->segs); ++k) s->series_names[n++] = segs[k];
    *names = s->series_names;
    return n;
}

/* a node's contact with the obstacles (nodes.csv, summary.json, VTK): its rod's, as one rod's */
static int contact(const void *impl, int i, cr_contact_sample *out)
{
    const asm_sim *s = impl;
    if (!s->contact) return 0;
    const int r = rod_of(s->first_node, s->rods, &i);
    if (!s->r[r]->contact) { /* (every rod has the obstacles; kept for safety) */
        memset(out, 0, sizeof *out);
        out->gap = INFINITY;
        return 1;
    }
    return cr_lgvi_formulation.contact(s->r[r], i, out);
}

static double *load_input(void *impl) { return ((asm_sim *)impl)->inputs; }

/* checkpoints: every rod's state, the inputs, the joints' last reactions */
static int members(const asm_sim *s)
{
    if (s->nrg > 0) return s->rg[s->nrg - 1].first + s->rg[s->nrg - 1].count;
    return s->ntg > 0 ? s->tg[s->ntg - 1].first + s->tg[s->ntg - 1].count : 0;
}

static int fixed_packed_size(const void *impl)
{
    const asm_sim *s = impl;
    int n = s->first_load[s->rods] + 6 * members(s) + (CR_ROWS_MAX + 6) * s->ncj + (s->jcolumns ? 7 + 7 * s->ncj : 0) +
            (s->segs ? 4 : 0) + (cr_lgvi_segs_frictional(s->segs) ? 2 : 0);
    for (int r = 0; r < s->rods; ++r) n += cr_lgvi_formulation.packed_size(s->r[r]);
    return n;
}

/* ... and, last, the friction's anchors (contact.rods_friction): their number varies with the state */
static int packed_size(const void *impl)
{
    const asm_sim *s = impl;
    return fixed_packed_size(impl) + cr_lgvi_segs_packed_size(s->segs);
}

static long unpacked_size(const void *impl, const double *in, long n)
{
    const asm_sim *s = impl;
    const long fixed = fixed_packed_size(impl);
    if (n < fixed) return -1;
    const long tail = cr_lgvi_segs_unpacked_size(s->segs, in + fixed, n - fixed);
    return tail < 0 ? -1 : fixed + tail;
}

static void pack(const void *impl, double *out)
{
    const asm_sim *s = impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_lgvi_formulation.pack(s->r[r], out);
        out += cr_lgvi_formulation.packed_size(s->r[r]);
    }
    memcpy(out, s->inputs, (size_t)s->first_load[s->rods] * sizeof(double));
    out += s->first_load[s->rods];
    for (int m = 0; m < members(s); ++m, out += 6) {
        cr_v3_store(s->mem[m].lf, out);
        cr_v3_store(s->mem[m].lm, out + 3);
    }
    for (int i = 0; i < s->ncj; ++i, out += CR_ROWS_MAX + 6) { /* the multipliers: the next step starts from them */
        memcpy(out, s->cj[i].y, sizeof s->cj[i].y);
        cr_v3_store(s->cj[i].force, out + CR_ROWS_MAX);
        cr_v3_store(s->cj[i].moment, out + CR_ROWS_MAX + 3);
    }
    if (s->jcolumns) {
        out[0] = s->spring_energy, out[1] = s->dissipated, out[2] = s->dissipated_last;
        out[3] = s->work_drives, out[4] = s->work_drives_last;
        out[5] = s->pressing, out[6] = s->limit_force_max;
        for (int i = 0; i < s->ncj; ++i) {
            const cjoint *c = &s->cj[i];
            double *o = out + 7 + 7 * i;
            o[0] = c->phiu, o[1] = c->lim_force, o[2] = c->slim_force;
            o[3] = c->drive_input, o[4] = c->drive_from, o[5] = c->drive_rate, o[6] = c->drive_target;
        }
        out += 7 + 7 * s->ncj;
    }
    if (s->segs) out[0] = s->seg_energy, out[1] = s->seg_work, out[2] = s->seg_work_last, out[3] = s->seg_normal;
    if (cr_lgvi_segs_frictional(s->segs)) {
        out[4] = s->fric_work, out[5] = s->fric_work_last;
        cr_lgvi_segs_pack(s->segs, out + 6);
    }
}

static void unpack(void *impl, const double *in)
{
    asm_sim *s = impl;
    for (int r = 0; r < s->rods; ++r) {
        cr_lgvi_formulation.unpack(s->r[r], in);
        in += cr_lgvi_formulation.packed_size(s->r[r]);
    }
    memcpy(s->inputs, in, (size_t)s->first_load[s->rods] * sizeof(double));
    in += s->first_load[s->rods];
    for (int m = 0; m < members(s); ++m, in += 6) s->mem[m].lf = cr_v3_load(in), s->mem[m].lm = cr_v3_load(in + 3);
    for (int i = 0; i < s->ncj; ++i, in += CR_ROWS_MAX + 6) {
        memcpy(s->cj[i].y, in, sizeof s->cj[i].y);
        s->cj[i].force = cr_v3_load(in + CR_ROWS_MAX), s->cj[i].moment = cr_v3_load(in + CR_ROWS_MAX + 3);
    }
    if (s->jcolumns) {
        s->spring_energy = in[0], s->dissipated = in[1], s->dissipated_last = in[2];
        s->work_drives = in[3], s->work_drives_last = in[4];
        s->pressing = (int)in[5], s->limit_force_max = in[6];
        for (int i = 0; i < s->ncj; ++i) {
            cjoint *c = &s->cj[i];
            const double *o = in + 7 + 7 * i;
            c->phiu = o[0], c->lim_force = o[1], c->slim_force = o[2];
            c->drive_input = o[3], c->drive_from = o[4], c->drive_rate = o[5], c->drive_target = o[6];
        }
        in += 7 + 7 * s->ncj;
    }
    if (s->segs) s->seg_energy = in[0], s->seg_work = in[1], s->seg_work_last = in[2], s->seg_normal = in[3];
    if (cr_lgvi_segs_frictional(s->segs)) {
        s->fric_work = in[4], s->fric_work_last = in[5];
        (void)cr_lgvi_segs_unpack(s->segs, in + 6); /* (out of memory: the pairs anchored afresh) */
    }
}

static uint64_t fingerprint(const void *impl)
{
    const asm_sim *s = impl;
    uint64_t h = 1469598103934665603ULL;
    for (int r = 0; r < s->rods; ++r) h = (h ^ cr_lgvi_formulation.fingerprint(s->r[r])) * 1099511628211ULL;
    for (int j = 0; j < s->joints; ++j)
        for (int k = 0; k < 4; ++k)
            h = (h ^ (uint64_t)(s->jtype[j] * 131 + k * 7 + s->jmember[4 * j + k] + 1)) * 1099511628211ULL;
    if (s->segs) h = cr_lgvi_segs_hash(s->segs, h); /* (only with it: older checkpoints still resume) */
    return (h ^ s->joints_hash) * 1099511628211ULL;
}

static int rod_count(const void *impl) { return ((const asm_sim *)impl)->rods; }
static int rod_first_node(const void *impl, int r) { return ((const asm_sim *)impl)->first_node[r]; }
static int rod_first_sample(const void *impl, int r) { return ((const asm_sim *)impl)->first_sample[r]; }
static int joint_count(const void *impl) { return ((const asm_sim *)impl)->joints; }
static const char *joint_name(const void *impl, int j) { return ((const asm_sim *)impl)->jname[j]; }

static const char *rod_name(const void *impl, int r) { return ((const asm_sim *)impl)->rname[r]; }

/* The wrench the joint applies on its first node in the last step: the other members' share
 * on that node (λ from the member's momentum update). A node shared by more than two rods
 * carries several joints whose individual reactions the shared update does not separate:
 * CR_UNSUPPORTED there (the summary then omits them). */
static cr_status joint_reaction(const void *impl, int j, cr_vec3 *f, cr_vec3 *m)
{
    const asm_sim *s = impl;
    const cr_joint_type ty = s->jtype[j];
    const int slides = ty == CR_JOINT_PRISMATIC || ty == CR_JOINT_CYLINDRICAL;
    if (ty != CR_JOINT_WELD && ty != CR_JOINT_BALL && s->jcj[j] < 0)
        return CR_UNSUPPORTED; /* its rows hold identically within one unit: their reaction is any */
    int a = s->jmember[4 * j];
    for (int g = 0; !slides && g < s->ntg; ++g)
        if (a >= s->tg[g].first && a < s->tg[g].first + s->tg[g].count && s->tg[g].count != 2) return CR_UNSUPPORTED;
    int w = s->jmember[4 * j + 2];
    for (int g = 0; w >= 0 && g < s->nrg; ++g)
        if (w >= s->rg[g].first && w < s->rg[g].first + s->rg[g].count && s->rg[g].count != 2) return CR_UNSUPPORTED;
    if (a < 0) return CR_UNSUPPORTED;
    /* a shared position's force from a's momentum update, a slide's from its rows */
    *f = slides ? s->cj[s->jcj[j]].force : s->mem[a].lf;
    /* a shared rotation's moment from a's momentum update (a prismatic joint's includes its
     * slide rows' couple), the rows' moment otherwise; a ball transmits none */
    *m = w >= 0 ? s->mem[w].lm : s->jcj[j] >= 0 ? s->cj[s->jcj[j]].moment : cr_v3(0, 0, 0);
    return CR_OK;
}

/* joint j's stop `which` (0: `limit`, 1: `slide_limit`): its measure now (φ unwrapped, or x) and
 * its force at the last t_k (positive pushing the measure up) */
static int joint_limit(const void *impl, int j, int which, double *value, double *force)
{
    const asm_sim *s = impl;
    if (j < 0 || j >= s->joints || s->jcj[j] < 0) return 0;
    const cjoint *c = &s->cj[s->jcj[j]];
    const int on_slide = which == 1 || s->jtype[j] == CR_JOINT_PRISMATIC;
    if (!(on_slide ? c->kslim > 0 : c->klim > 0) || (which == 1 && s->jtype[j] != CR_JOINT_CYLINDRICAL)) return 0;
    const jfree f = free_dirs(s, c);
    if (value) *value = on_slide ? f.x : unwrap(f.phi, c->phiu);
    if (force) *force = on_slide ? c->slim_force : c->lim_force;
    return 1;
}

static cr_status set_joint_drive_input(void *impl, int j, double value)
{
    asm_sim *s = impl;
    if (j < 0 || j >= s->joints || s->jcj[j] < 0 || !s->cj[s->jcj[j]].drive) return CR_BAD_INPUT;
    s->cj[s->jcj[j]].drive_input = value;
    return CR_OK;
}

static double joint_drive_input(const void *impl, int j)
{
    const asm_sim *s = impl;
    if (j < 0 || j >= s->joints || s->jcj[j] < 0 || !s->cj[s->jcj[j]].drive) return NAN;
    return s->cj[s->jcj[j]].drive_input;
}

const cr_formulation cr_lgvi_assembly_formulation = {
    .name = "lgvi",
    .bytes_per_element_static = 1e3,
    .bytes_per_element_dynamic = 1e3,
    .check = asm_check,
    .create = NULL, /* create_assembly */
    .destroy = asm_destroy,
    .static_stage = asm_static,
    .dynamic_stage = asm_dynamic,
    .node_count = node_count,
    .node_s = node_s,
    .node_pose = node_pose,
    .node_velocity = node_velocity,
    .sample_count = sample_count,
    .sample_s = sample_s,
    .sample = sample,
    .time = time_of,
    .load_factor = load_factor,
    .reaction = NULL,
    .contact = contact,
    .body_count = NULL,
    .series_extra = series_extra,
    .load_input = load_input,
    .packed_size = packed_size,
    .pack = pack,
    .unpacked_size = unpacked_size,
    .unpack = unpack,
    .fingerprint = fingerprint,
    .assembly = &cr_lgvi_assembly_formulation,
    .create_assembly = asm_create,
    .rod_count = rod_count,
    .rod_name = rod_name,
    .rod_first_node = rod_first_node,
    .rod_first_sample = rod_first_sample,
    .joint_count = joint_count,
    .joint_name = joint_name,
    .joint_reaction = joint_reaction,
    .joint_limit = joint_limit,
    .set_joint_drive_input = set_joint_drive_input,
    .joint_drive_input = joint_drive_input,
};
