/* The formulation-independent rod definition: defaults, sections (shapes and
 * direct resultants), validation, reference configuration, tendon offsets, time
 * functions and stage masks. Every formulation discretizes a validated cr_rod_def
 * through these functions, so one scenario key means the same physics everywhere. */
#include "model/rod_internal.h"

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

unsigned cr_bc_hold(const cr_bc_def *bc)
{
    switch (bc->type) {
    case CR_BC_PIN: return CR_HOLD_TRANSLATION;
    case CR_BC_SUPPORT: return bc->hold & CR_HOLD_ALL;
    default: return CR_HOLD_ALL;
    }
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

/* Segment holding ξ and the position t in [0, 1] within it. */
static const cr_section_segment *segment_at(const cr_rod_def *def, double xi, double *t)
{
    int k = 0;
    while (k < def->section_count - 1 && xi > def->sections[k].xi_end) ++k;
    const cr_section_segment *seg = &def->sections[k];
    double start = k > 0 ? def->sections[k - 1].xi_end : 0.0;
    double u = seg->xi_end > start ? (xi - start) / (seg->xi_end - start) : 0.0;
    *t = u < 0 ? 0 : (u > 1 ? 1 : u);
    return seg;
}

cr_status cr_section_eval(const cr_rod_def *def, double xi, cr_section_props *out)
{
    if (!(xi >= -1e-12 && xi <= 1 + 1e-12) || def->section_count < 1) return CR_BAD_INPUT;
    double t;
    const cr_section_segment *seg = segment_at(def, xi, &t);
    if (seg->shape == CR_SECTION_CIRCLE) {
        double r = taper(seg->radius, t), I = M_PI * r * r * r * r / 4;
        *out = (cr_section_props){M_PI * r * r, 2 * I, I, I, r, r};
    } else if (seg->shape == CR_SECTION_RECTANGLE) {
        double w = taper(seg->width, t), h = taper(seg->height, t);
        /* Saint-Venant torsion constant of a rectangle, a >= b (Roark's approximation). */
        double a = w > h ? w : h, b = w > h ? h : w;
        double J = a * b * b * b * (1.0 / 3.0 - 0.21 * (b / a) * (1 - pow(b / a, 4) / 12));
        *out = (cr_section_props){w * h, J, w * h * h * h / 12, h * w * w * w / 12, w / 2, h / 2};
    } else {
        *out = (cr_section_props){0, 0, 0, 0, 0, 0};
    }
    return CR_OK;
}

cr_status cr_section_resultants_eval(const cr_rod_def *def, double xi, cr_section_resultants *out)
{
    if (!(xi >= -1e-12 && xi <= 1 + 1e-12) || def->section_count < 1) return CR_BAD_INPUT;
    double t;
    const cr_section_segment *seg = segment_at(def, xi, &t);
    if (seg->shape == CR_SECTION_RESULTANTS) {
        double Iy = taper(seg->rhoI_y, t), Iz = taper(seg->rhoI_z, t);
        *out = (cr_section_resultants){taper(seg->EA, t),   taper(seg->GA_y, t), taper(seg->GA_z, t),
                                       taper(seg->GJ, t),   taper(seg->EI_y, t), taper(seg->EI_z, t),
                                       taper(seg->rhoA, t), Iy + Iz,             Iy,
                                       Iz};
        return CR_OK;
    }
    cr_section_props sp;
    cr_section_eval(def, xi, &sp);
    const cr_material *m = &def->material;
    /* shear correction k (default 1: none, as in the papers, spec §7.3): GA_y = GA_z = k G A */
    double k = seg->shear_coefficient > 0 ? seg->shear_coefficient : 1.0;
    if (seg->shear_coefficient == CR_SHEAR_TIMOSHENKO)
        k = cr_shear_coefficient_cowper(seg->shape, m->E / (2 * m->G) - 1);
    *out = (cr_section_resultants){m->E * sp.A,   k * m->G * sp.A, k * m->G * sp.A, m->G * sp.Jx, m->E * sp.Iy,
                                   m->E * sp.Iz,  m->rho * sp.A,  m->rho * (sp.Iy + sp.Iz), m->rho * sp.Iy,
                                   m->rho * sp.Iz};
    return CR_OK;
}

/* Cowper (1966), Table 1, from the 3-D elasticity solution of a cantilever under a
 * tip load: solid circle 6(1+ν)/(7+6ν), solid rectangle 10(1+ν)/(12+11ν). */
double cr_shear_coefficient_cowper(cr_section_shape shape, double nu)
{
    if (shape == CR_SECTION_CIRCLE) return 6 * (1 + nu) / (7 + 6 * nu);
    if (shape == CR_SECTION_RECTANGLE) return 10 * (1 + nu) / (12 + 11 * nu);
    return 1.0;
}

int cr_damping_active(const cr_damping_def *d)
{
    int on = 0;
    for (int k = 0; k < 6; ++k) on |= d->relaxation_time[k] != 0 || d->coefficients[k] != 0;
    for (int k = 0; k < 3; ++k) on |= cr_v3_get(d->drag, k) != 0 || cr_v3_get(d->rotational_drag, k) != 0;
    return on;
}

/* Damping coefficients: finite, >= 0, relaxation times and coefficients not both. */
static cr_status validate_damping(const cr_damping_def *d, cr_error *err)
{
    int tau = 0, coef = 0;
    for (int k = 0; k < 6; ++k) {
        if (!(isfinite(d->relaxation_time[k]) && d->relaxation_time[k] >= 0))
            return cr_error_set(err, CR_BAD_INPUT, "rod.damping.relaxation_time.%d: must be finite and >= 0, got %g",
                                k, d->relaxation_time[k]);
        if (!(isfinite(d->coefficients[k]) && d->coefficients[k] >= 0))
            return cr_error_set(err, CR_BAD_INPUT, "rod.damping.coefficients.%d: must be finite and >= 0, got %g", k,
                                d->coefficients[k]);
        tau |= d->relaxation_time[k] != 0;
        coef |= d->coefficients[k] != 0;
    }
    if (tau && coef)
        return cr_error_set(err, CR_BAD_INPUT, "rod.damping: give relaxation_time or coefficients, not both");
    for (int k = 0; k < 3; ++k) {
        double c = cr_v3_get(d->drag, k), r = cr_v3_get(d->rotational_drag, k);
        if (!(isfinite(c) && c >= 0))
            return cr_error_set(err, CR_BAD_INPUT, "rod.damping.drag.%d: must be finite and >= 0, got %g", k, c);
        if (!(isfinite(r) && r >= 0))
            return cr_error_set(err, CR_BAD_INPUT, "rod.damping.rotational_drag.%d: must be finite and >= 0, got %g",
                                k, r);
    }
    return CR_OK;
}

void cr_rod_stage_load_factors(const cr_rod_def *def, int stage, double *out)
{
    for (int k = 0; k < def->load_count; ++k) {
        unsigned mask = def->loads[k].stages;
        out[k] = (mask == 0 || (stage < 32 && (mask & (1u << stage)))) ? 1.0 : 0.0;
    }
}

cr_status cr_rod_reference_pose(const cr_rod_def *def, double s, cr_vec3 *position, cr_quat *orientation)
{
    const cr_reference_def *r = &def->reference;
    if (r->type == CR_REFERENCE_HELIX) {
        cr_reference_helix_pose(r, s, position, orientation);
    } else if (r->type == CR_REFERENCE_STRAIGHT) {
        cr_quat q0 = cr_q_normalize(r->orientation);
        *position = cr_v3_madd(r->origin, s, cr_m3_column(cr_q_exp(q0), 0));
        *orientation = q0;
    } else {
        return CR_BAD_INPUT;
    }
    return CR_OK;
}

/* Every section gives its resultants: the material is not needed. */
static int all_resultants(const cr_rod_def *d)
{
    for (int k = 0; k < d->section_count; ++k)
        if (d->sections[k].shape != CR_SECTION_RESULTANTS) return 0;
    return d->section_count > 0;
}

/* ---------- derived quantities ----------
 * Finite inputs can still give non-finite or meaningless derived quantities (a
 * length of 1e308 makes node coordinates overflow, a denormal helix radius an
 * infinite curvature, a section radius of 1e200 an infinite stiffness), and every
 * solver would then report NaN states. The documented ranges (docs/scenario.md,
 * "Ranges of derived quantities") are far beyond any physical rod in any consistent
 * unit system and keep squares and products of the quantities finite. */
static const double LEN_MIN = CR_ROD_LENGTH_MIN, LEN_MAX = CR_ROD_LENGTH_MAX;
static const double RES_MIN = CR_ROD_RESULTANT_MIN, RES_MAX = CR_ROD_RESULTANT_MAX;

static int in_range(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

static cr_status check_coordinates(cr_vec3 v, const char *key, cr_error *err)
{
    double c[3] = {v.x, v.y, v.z};
    for (int k = 0; k < 3; ++k)
        if (!(isfinite(c[k]) && fabs(c[k]) <= LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT, "%s.%d: must be within +-%g (the range of coordinates), got %g", key,
                                k, LEN_MAX, c[k]);
    return CR_OK;
}

static cr_status validate_derived(const cr_rod_def *d, cr_error *err)
{
    const cr_reference_def *r = &d->reference;
    int n = d->elements;
    char key[64];
    if (r->type != CR_REFERENCE_NODES) {
        if (!in_range(d->length, LEN_MIN, LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT, "rod.length: must be in [%g, %g] (the range of lengths), got %g",
                                LEN_MIN, LEN_MAX, d->length);
        if (!in_range(d->length / n, LEN_MIN, LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT,
                                "rod.elements: %d elements give an element length of %g, below %g (the range of lengths)",
                                n, d->length / n, LEN_MIN);
        if (check_coordinates(r->origin, "rod.reference.origin", err) != CR_OK) return CR_BAD_INPUT;
    }
    if (r->type == CR_REFERENCE_HELIX) {
        if (!in_range(r->helix_radius, LEN_MIN, LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT, "rod.reference.radius: must be in [%g, %g] (the range of lengths), got %g",
                                LEN_MIN, LEN_MAX, r->helix_radius);
        if (!(fabs(r->helix_pitch) <= LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT, "rod.reference.pitch: must be within +-%g (the range of lengths), got %g",
                                LEN_MAX, r->helix_pitch);
    }
    if (r->type == CR_REFERENCE_NODES) {
        double sum = 0;
        for (int i = 0; i < r->node_count; ++i) {
            snprintf(key, sizeof key, "rod.reference.positions.%d", i);
            if (check_coordinates(r->node_positions[i], key, err) != CR_OK) return CR_BAD_INPUT;
            if (i == 0) continue;
            double l = cr_v3_norm(cr_v3_sub(r->node_positions[i], r->node_positions[i - 1]));
            if (!(l >= LEN_MIN))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "rod.reference.positions.%d: %g from node %d, below %g (the range of lengths)", i, l,
                                    i - 1, LEN_MIN);
            sum += l;
        }
        if (!in_range(sum, LEN_MIN, LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT,
                                "rod.reference.positions: the rod length %g is outside [%g, %g] (the range of lengths)",
                                sum, LEN_MIN, LEN_MAX);
    } else {
        /* every node's reference pose (the discretizations use s_i = i L/n) */
        for (int i = 0; i <= n; ++i) {
            cr_vec3 x;
            cr_quat q;
            cr_rod_reference_pose(d, d->length * i / n, &x, &q);
            if (!(isfinite(x.x) && isfinite(x.y) && isfinite(x.z) && isfinite(q.w) && isfinite(q.x) && isfinite(q.y) &&
                  isfinite(q.z)))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "rod.reference: the reference pose of node %d is not finite (position %g, %g, %g); "
                                    "check rod.length, rod.reference.radius and rod.reference.pitch",
                                    i, x.x, x.y, x.z);
        }
    }
    for (int k = 0; k < d->bc_count; ++k) {
        snprintf(key, sizeof key, "boundary_conditions.%d.position", k);
        if ((d->bcs[k].type == CR_BC_POSE || d->bcs[k].has_position) &&
            check_coordinates(d->bcs[k].position, key, err) != CR_OK)
            return CR_BAD_INPUT;
    }
    for (int j = 0; j < d->rigid_body_count; ++j) {
        snprintf(key, sizeof key, "rigid_bodies.%d.center", j);
        if (check_coordinates(d->rigid_bodies[j].center, key, err) != CR_OK) return CR_BAD_INPUT;
    }
    /* section dimensions and the resultants they give, at both ends of every segment */
    for (int k = 0; k < d->section_count; ++k) {
        const cr_section_segment *sg = &d->sections[k];
        for (int j = 0; j < 2; ++j) {
            const char *dn[3] = {"radius", "width", "height"};
            double dv[3] = {sg->radius[j], sg->width[j], sg->height[j]};
            for (int q = 0; q < 3; ++q) {
                int used = (q == 0 && sg->shape == CR_SECTION_CIRCLE) || (q > 0 && sg->shape == CR_SECTION_RECTANGLE);
                if (used && !in_range(dv[q], LEN_MIN, LEN_MAX))
                    return cr_error_set(err, CR_BAD_INPUT,
                                        "rod.sections.%d.%s: must be in [%g, %g] (the range of lengths), got %g", k, dn[q],
                                        LEN_MIN, LEN_MAX, dv[q]);
            }
            double start = k > 0 ? d->sections[k - 1].xi_end : 0.0;
            double xi = j == 0 ? start : sg->xi_end;
            cr_section_resultants sr;
            cr_section_resultants_eval(d, xi, &sr);
            static const char *names[10] = {"EA", "GA_y", "GA_z", "GJ", "EI_y", "EI_z", "rhoA", "rhoJ_x", "rhoI_y", "rhoI_z"};
            double v[10] = {sr.EA, sr.GA_y, sr.GA_z, sr.GJ, sr.EI_y, sr.EI_z, sr.rhoA, sr.rhoJ_x, sr.rhoI_y, sr.rhoI_z};
            for (int q = 0; q < 10; ++q) {
                /* stiffnesses in range; inertias 0 (statics) or in range */
                int ok = q < 6 ? in_range(v[q], RES_MIN, RES_MAX) : (v[q] == 0 || in_range(v[q], RES_MIN, RES_MAX));
                if (!ok)
                    return cr_error_set(err, CR_BAD_INPUT,
                                        "rod.sections.%d: the %s of %g at xi = %g is outside [%g, %g] (the range of "
                                        "section resultants; check the dimensions and rod.material)",
                                        k, names[q], v[q], xi, RES_MIN, RES_MAX);
            }
            /* the damping coefficients the element stresses use, C_k = K_k tau_k or given: a
             * coefficient of 1e308 turns any rate into an infinite stress or dissipation */
            const cr_damping_def *dm = &d->damping;
            for (int q = 0; q < 6; ++q) {
                int given = dm->coefficients[q] != 0;
                double c = given ? dm->coefficients[q] : v[q] * dm->relaxation_time[q];
                if (!(c == 0 || in_range(c, RES_MIN, RES_MAX)))
                    return cr_error_set(err, CR_BAD_INPUT,
                                        "rod.damping.%s.%d: gives the %s damping coefficient %g at xi = %g "
                                        "(rod.sections.%d), outside 0 or [%g, %g] (the range of section resultants)",
                                        given ? "coefficients" : "relaxation_time", q, names[q], c, xi, k, RES_MIN,
                                        RES_MAX);
            }
        }
    }
    /* drag per unit length: 0 or in the range of the resultants (times a lumped length <=
     * 1e12 and a rate, still finite) */
    for (int q = 0; q < 3; ++q) {
        double c[2] = {cr_v3_get(d->damping.drag, q), cr_v3_get(d->damping.rotational_drag, q)};
        for (int j = 0; j < 2; ++j)
            if (!(c[j] == 0 || in_range(c[j], RES_MIN, RES_MAX)))
                return cr_error_set(err, CR_BAD_INPUT,
                                    "rod.damping.%s.%d: must be 0 or in [%g, %g] (the range of section resultants), "
                                    "got %g",
                                    j ? "rotational_drag" : "drag", q, RES_MIN, RES_MAX, c[j]);
    }
    return CR_OK;
}

/* ---------- validation of the definition (for C API users; the scenario parser
 * reports the same problems with JSON paths) ---------- */
/* A time function's parameters (loads and supports): table rows increasing in t,
 * ramps with t0 < t1, values in the range of load magnitudes. */
static cr_status check_time_function(const cr_time_function *tf, const char *prefix, cr_error *err)
{
    for (int j = 0; tf->type == CR_TIME_TABLE && tf->points && j < tf->point_count; ++j)
        if (!(fabs(tf->points[j].value) <= RES_MAX) || !(fabs(tf->points[j].t) <= LEN_MAX))
            return cr_error_set(err, CR_BAD_INPUT, "%s.time.points.%d: value within +-%g and t within +-%g, got %g, %g",
                                prefix, j, RES_MAX, LEN_MAX, tf->points[j].value, tf->points[j].t);
    if ((tf->type == CR_TIME_RAMP || tf->type == CR_TIME_SMOOTH_STEP) && !(tf->t0 < tf->t1))
        return cr_error_set(err, CR_BAD_INPUT, "%s.time: need t0 < t1, got %g, %g", prefix, tf->t0, tf->t1);
    if (tf->type == CR_TIME_TABLE) {
        if (tf->point_count < 2 || !tf->points)
            return cr_error_set(err, CR_BAD_INPUT, "%s.time.points: needs at least 2 rows", prefix);
        for (int j = 1; j < tf->point_count; ++j)
            if (!(tf->points[j].t > tf->points[j - 1].t))
                return cr_error_set(err, CR_BAD_INPUT, "%s.time.points.%d: t must increase", prefix, j);
    }
    return CR_OK;
}

cr_status cr_rod_validate(const cr_rod_def *d, cr_error *err)
{
    if (d->elements < 1) return cr_error_set(err, CR_BAD_INPUT, "rod.elements: must be >= 1, got %d", d->elements);
    if (d->reference.type != CR_REFERENCE_NODES && !finite_positive(d->length))
        return cr_error_set(err, CR_BAD_INPUT, "rod.length: must be > 0, got %g", d->length);
    if (!all_resultants(d) && !finite_positive(d->material.E))
        return cr_error_set(err, CR_BAD_INPUT, "rod.material.E: must be > 0, got %g", d->material.E);
    if (!all_resultants(d) && !finite_positive(d->material.G))
        return cr_error_set(err, CR_BAD_INPUT, "rod.material.G: must be > 0, got %g", d->material.G);
    if (!(isfinite(d->material.rho) && d->material.rho >= 0))
        return cr_error_set(err, CR_BAD_INPUT, "rod.material.rho: must be >= 0, got %g", d->material.rho);
    if (validate_damping(&d->damping, err)) return CR_BAD_INPUT;
    if (d->section_count < 1 || !d->sections)
        return cr_error_set(err, CR_BAD_INPUT, "rod.sections: at least one section is required");
    double prev = 0;
    for (int k = 0; k < d->section_count; ++k) {
        const cr_section_segment *s = &d->sections[k];
        if (!(s->xi_end > prev && s->xi_end <= 1))
            return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.end: must be in (%g, 1], got %g", k, prev, s->xi_end);
        prev = s->xi_end;
        if (s->shape == CR_SECTION_RESULTANTS && s->shear_coefficient != 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "rod.sections.%d.shear_coefficient: not for a resultants section (GA_y and GA_z are "
                                "given directly)", k);
        if (s->shear_coefficient != 0 && s->shear_coefficient != CR_SHEAR_TIMOSHENKO &&
            !(s->shear_coefficient > 0 && s->shear_coefficient <= 2))
            return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.shear_coefficient: must be in (0, 2], got %g", k,
                                s->shear_coefficient);
        for (int j = 0; j < 2 && s->shape == CR_SECTION_RESULTANTS; ++j) {
            const double *v[9] = {s->EA, s->GA_y, s->GA_z, s->GJ, s->EI_y, s->EI_z, s->rhoA, s->rhoI_y, s->rhoI_z};
            static const char *names[9] = {"EA", "GA_y", "GA_z", "GJ", "EI_y", "EI_z", "rhoA", "rhoI_y", "rhoI_z"};
            for (int q = 0; q < 9; ++q) {
                /* inertias may be 0 (statics only); stiffnesses must be positive */
                int ok = q < 6 ? finite_positive(v[q][j]) : (isfinite(v[q][j]) && v[q][j] >= 0);
                if (!ok)
                    return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.%s: must be %s, got %g", k, names[q],
                                        q < 6 ? "> 0" : ">= 0", v[q][j]);
            }
        }
        for (int j = 0; j < 2; ++j) {
            if (s->shape == CR_SECTION_CIRCLE && !finite_positive(s->radius[j]))
                return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.radius: must be > 0, got %g", k, s->radius[j]);
            if (s->shape == CR_SECTION_RECTANGLE && !finite_positive(s->width[j]))
                return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.width: must be > 0, got %g", k, s->width[j]);
            if (s->shape == CR_SECTION_RECTANGLE && !finite_positive(s->height[j]))
                return cr_error_set(err, CR_BAD_INPUT, "rod.sections.%d.height: must be > 0, got %g", k, s->height[j]);
        }
        if (s->shape != CR_SECTION_CIRCLE && s->shape != CR_SECTION_RECTANGLE && s->shape != CR_SECTION_RESULTANTS)
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
        const cr_bc_def *b = &d->bcs[k];
        if ((b->type == CR_BC_POSE || b->rotation_kind == CR_BC_ROTATION_QUATERNION) &&
            !(cr_q_norm2(b->orientation) > 0))
            return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.quaternion: must be nonzero", k);
        if ((unsigned)b->type > CR_BC_SUPPORT)
            return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.type: unknown type %d", k, (int)b->type);
        if (b->type == CR_BC_SUPPORT && (b->hold == 0 || (b->hold & ~(unsigned)CR_HOLD_ALL)))
            return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.hold: must hold 1 to 6 degrees of freedom", k);
        unsigned hold = cr_bc_hold(b);
        int rotations = ((hold >> 3) & 1) + ((hold >> 4) & 1) + ((hold >> 5) & 1);
        if (b->rotation_kind != CR_BC_ROTATION_NONE && rotations == 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.rotation: the support holds no rotation, so a target rotation "
                                "has no effect; remove it", k);
        if (b->has_position && (hold & CR_HOLD_TRANSLATION) == 0)
            return cr_error_set(err, CR_BAD_INPUT,
                                "boundary_conditions.%d.position: the support holds no translation; remove it", k);
        const double rv[3] = {b->rotation.x, b->rotation.y, b->rotation.z};
        for (int c = 0; c < 3; ++c)
            if (!(fabs(rv[c]) <= 1e6))
                return cr_error_set(err, CR_BAD_INPUT, "boundary_conditions.%d.rotation.%d: must be within +-1e6 rad, "
                                                       "got %g", k, c, rv[c]);
        char prefix[48];
        snprintf(prefix, sizeof prefix, "boundary_conditions.%d", k);
        if (check_time_function(&b->time, prefix, err) != CR_OK) return CR_BAD_INPUT;
        if (b->motion_count > 0) {
            if (b->motion_count < 2 || !b->motion)
                return cr_error_set(err, CR_BAD_INPUT, "%s.motion: needs at least 2 rows", prefix);
            if (b->has_position || b->rotation_kind != CR_BC_ROTATION_NONE || b->time.type != CR_TIME_CONSTANT ||
                b->type == CR_BC_POSE)
                return cr_error_set(err, CR_BAD_INPUT, "%s.motion: a table of poses replaces position, rotation and "
                                                       "time; give either", prefix);
            for (int j = 0; j < b->motion_count; ++j) {
                const cr_bc_motion_point *q = &b->motion[j];
                double v[7] = {q->t, q->position.x, q->position.y, q->position.z, q->rotation.x, q->rotation.y,
                               q->rotation.z};
                for (int c = 0; c < 7; ++c)
                    if (!(fabs(v[c]) <= (c >= 4 ? 1e6 : LEN_MAX)))
                        return cr_error_set(err, CR_BAD_INPUT, "%s.motion.%d.%d: must be within +-%g, got %g", prefix,
                                            j, c, c >= 4 ? 1e6 : LEN_MAX, v[c]);
                if (j > 0 && !(q->t > b->motion[j - 1].t))
                    return cr_error_set(err, CR_BAD_INPUT, "%s.motion.%d.0: t must increase", prefix, j);
            }
        }
        for (int j = 0; j < k; ++j) {
            int a = d->bcs[j].node < 0 ? d->bcs[j].node + nodes : d->bcs[j].node;
            int here = node < 0 ? node + nodes : node;
            unsigned both = d->bcs[j].stages == 0 || b->stages == 0 ? ~0u : d->bcs[j].stages & b->stages;
            if (a == here && both)
                return cr_error_set(err, CR_BAD_INPUT,
                                    "boundary_conditions.%d.node: node %d already has a support in the same stage "
                                    "(boundary_conditions.%d); give them disjoint stages", k, here, j);
        }
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
        /* load magnitudes, like resultants: beyond 1e150 a force times a length overflows */
        const double mag[6] = {l->value.x, l->value.y, l->value.z, l->tension, l->pressure * l->area,
                               (tf->type == CR_TIME_SINE) ? fabs(tf->amplitude) + fabs(tf->offset) : 0};
        static const char *what[6] = {"value.0", "value.1", "value.2", "tension", "pressure", "time.amplitude"};
        for (int q = 0; q < 6; ++q)
            if (!(fabs(mag[q]) <= RES_MAX))
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d.%s: must be within +-%g (the range of load "
                                                       "magnitudes), got %g", k, what[q], RES_MAX, mag[q]);
        char prefix[48];
        snprintf(prefix, sizeof prefix, "loads.%d", k);
        if (check_time_function(tf, prefix, err) != CR_OK) return CR_BAD_INPUT;
        if ((l->type == CR_LOAD_FORCE || l->type == CR_LOAD_MOMENT) && l->body >= d->rigid_body_count)
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.body: %d is not a rigid body", k, l->body);
        if ((l->type == CR_LOAD_FORCE || l->type == CR_LOAD_MOMENT) && l->body < 0 && (l->node < -nodes || l->node >= nodes))
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.node: %d is not a node (0..%d)", k, l->node, nodes - 1);
        if (l->type == CR_LOAD_GRAVITY) {
            cr_section_resultants sr;
            cr_section_resultants_eval(d, 0.5, &sr);
            if (!(sr.rhoA > 0))
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d: gravity needs a mass per length > 0 (rod.material.rho "
                                                       "or rod.sections rhoA), got %g", k, sr.rhoA);
        }
        if (l->type == CR_LOAD_TENDON) {
            if (!(isfinite(l->tension) && l->tension >= 0))
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d.tension: must be >= 0, got %g", k, l->tension);
            if (!(l->xi_start >= 0 && l->xi_start < l->xi_end && l->xi_end <= 1))
                return cr_error_set(err, CR_BAD_INPUT, "loads.%d.xi_start/xi_end: need 0 <= start < end <= 1, got %g, %g", k,
                                    l->xi_start, l->xi_end);
            if (l->offset.type == CR_OFFSET_RADIUS_FRACTION)
                for (int q = 0; q < d->section_count; ++q)
                    if (d->sections[q].shape == CR_SECTION_RESULTANTS)
                        return cr_error_set(err, CR_BAD_INPUT, "loads.%d.offset.radius_fraction: rod.sections.%d gives "
                                                               "resultants, not a shape; give the offset as {y, z}", k, q);
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
        if (l->type == CR_LOAD_CHAMBER && !(isfinite(l->pressure) && l->pressure >= 0 && finite_positive(l->area)))
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d: a chamber needs pressure >= 0 and area > 0, got %g, %g", k,
                                l->pressure, l->area);
        if (l->type < CR_LOAD_FORCE || l->type > CR_LOAD_CHAMBER)
            return cr_error_set(err, CR_BAD_INPUT, "loads.%d.type: unknown type %d", k, (int)l->type);
    }
    return validate_derived(d, err);
}

/* ---------- reference configuration ---------- */
void cr_reference_helix_pose(const cr_reference_def *r, double s, cr_vec3 *pos, cr_quat *q)
{
    double R = r->helix_radius, c = r->helix_pitch / (2 * M_PI * R), w = sqrt(1 + c * c);
    double a = s / (R * w), ca = cos(a), sa = sin(a);
    *pos = cr_v3_add(r->origin, cr_v3(-R * sa, R * ca, R * c * a));
    cr_vec3 ex = cr_v3(-ca / w, -sa / w, c / w); /* tangent */
    cr_vec3 ey = cr_v3(sa, -ca, 0);              /* principal normal, towards the axis */
    *q = cr_q_from_matrix(cr_m3_columns(ex, ey, cr_v3_cross(ex, ey)));
}

void cr_tendon_offset_eval(const cr_load_def *l, const cr_section_props *sp, double xi, cr_vec3 *d)
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
    case CR_TIME_SINE:
        if (f->t1 > f->t0 && (t < f->t0 || t > f->t1)) return 0.0; /* windowed: a pulse */
        return f->offset + f->amplitude * sin(2 * M_PI * f->frequency * t + f->phase);
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

void cr_time_function_eval_d(const cr_time_function *f, double t, double *value, double *rate, double *accel)
{
    double v = cr_time_function_eval(f, t), d1 = 0, d2 = 0;
    switch (f->type) {
    case CR_TIME_CONSTANT: break;
    case CR_TIME_RAMP:
        if (t >= f->t0 && t < f->t1) d1 = 1.0 / (f->t1 - f->t0);
        break;
    case CR_TIME_SMOOTH_STEP:
        if (t > f->t0 && t < f->t1) {
            double T = f->t1 - f->t0, u = (t - f->t0) / T;
            d1 = 30 * u * u * (1 - u) * (1 - u) / T;
            d2 = 60 * u * (1 - u) * (1 - 2 * u) / (T * T);
        }
        break;
    case CR_TIME_SINE:
        if (!(f->t1 > f->t0 && (t < f->t0 || t > f->t1))) {
            double w = 2 * M_PI * f->frequency, a = w * t + f->phase;
            d1 = f->amplitude * w * cos(a);
            d2 = -f->amplitude * w * w * sin(a);
        }
        break;
    case CR_TIME_TABLE: {
        const cr_time_point *p = f->points;
        int n = f->point_count;
        if (n < 2 || t < p[0].t || t >= p[n - 1].t) break;
        int j = 0;
        while (j < n - 2 && t >= p[j + 1].t) ++j;
        d1 = (p[j + 1].value - p[j].value) / (p[j + 1].t - p[j].t);
        break;
    }
    }
    if (value) *value = v;
    if (rate) *rate = d1;
    if (accel) *accel = d2;
}

uint64_t cr_loads_hash(uint64_t h, const cr_load_def *loads, int count)
{
    for (int k = 0; k < count; ++k) {
        const cr_load_def *l = &loads[k];
        double v[18] = {l->value.x,    l->value.y,        l->value.z,          (double)l->type,   (double)l->node,
                        (double)l->body, (double)l->frame, (double)l->stages,   (double)l->time.type, l->time.t0,
                        l->time.t1,    l->time.amplitude, l->time.frequency,  l->time.phase,     l->time.offset,
                        l->tension,    l->pressure,       l->area};
        const unsigned char *b = (const unsigned char *)v;
        for (size_t i = 0; i < sizeof v; ++i) h = (h ^ b[i]) * 1099511628211ull;
        for (int j = 0; l->time.points && j < l->time.point_count; ++j) {
            b = (const unsigned char *)&l->time.points[j];
            for (size_t i = 0; i < sizeof l->time.points[j]; ++i) h = (h ^ b[i]) * 1099511628211ull;
        }
        double o[5] = {(double)l->offset.type, l->offset.y, l->offset.z, l->offset.fraction, l->offset.angle};
        b = (const unsigned char *)o;
        for (size_t i = 0; i < sizeof o; ++i) h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}
