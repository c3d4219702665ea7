/* Sanity warnings (include/cosserat/warnings.h, docs/scenario.md "Warnings").
 *
 * The checks look for what a unit slip does to a scenario (a radius in mm typed
 * as m, E in MPa or GPa typed as Pa: factors of 1e3 to 1e9) and for results the
 * rod model is not meant for (strains beyond the linear elastic law's range).
 * Thresholds are chosen wide enough that no real rod material or slender rod
 * trips them, and narrow enough that a factor of 1000 does. */
#include "cosserat/warnings.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- thresholds (SI; docs/scenario.md explains each) ---- */
#define SLENDER_THICK 0.2      /* half extent / rod length: rod theory wants ≲ 0.1 */
#define SLENDER_THIN 1e-5      /* bending/axial stiffness ratio (r/2L)² below 2.5e-11 */
#define SI_HALF_EXTENT_MAX 0.5 /* "SI-looking geometry": every section at most 1 m across */
#define MODULUS_MIN 1e3        /* Pa: the softest solids (hydrogels) */
#define MODULUS_MAX 1e13       /* Pa: ten times diamond */
#define DENSE_RHO 2000.0       /* kg/m³: metals, glass, ceramics, stone ... */
#define DENSE_MODULUS_MIN 1e8  /* Pa: ... all have E above 1e10 Pa */
#define RHO_MIN 10.0           /* kg/m³: foams */
#define RHO_MAX 3e4            /* kg/m³: above osmium (22 590) */
#define SHEAR_RATIO_MIN 0.02   /* G/E: fibre composites along the fibres ≈ 0.04 */
#define SHEAR_RATIO_MAX 1.0    /* G/E = 1: ν = -0.5 */
#define GRAVITY_TOLERANCE 0.02
#define STRAIN_MAX 0.2         /* |Δγ| */
#define SURFACE_STRAIN_MAX 0.5 /* |Δκ| ρ */
#define DISPLACEMENT_MAX 10.0  /* rod lengths */
#define ENERGY_DRIFT_MAX 0.05  /* of the energy in motion (docs/scenario.md: the table next to rtol) */
#define TURN_MAX 120.0         /* degrees: one element's reference turn that the mixed rod's dynamics stand */

void cr_warning_list_free(cr_warning_list *list)
{
    if (!list) return;
    free(list->items);
    memset(list, 0, sizeof *list);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static cr_status
add(cr_warning_list *l, const char *code, const char *key, const char *fmt, ...)
{
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 8;
        cr_warning *p = realloc(l->items, cap * sizeof *p);
        if (!p) return CR_NO_MEMORY;
        l->items = p;
        l->capacity = cap;
    }
    cr_warning *w = &l->items[l->count++];
    memset(w, 0, sizeof *w);
    snprintf(w->code, sizeof w->code, "%s", code);
    snprintf(w->key, sizeof w->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->message, sizeof w->message, fmt, ap);
    va_end(ap);
    return CR_OK;
}

static int is_shape(const cr_section_segment *s) { return s->shape != CR_SECTION_RESULTANTS; }

/* One section dimension (a half extent, m) over a segment: its [start, end] values. */
static cr_status check_dimension(cr_warning_list *out, int seg, const char *name, const double v[2], double half,
                                 double length)
{
    char key[CR_WARNING_KEY_SIZE];
    snprintf(key, sizeof key, "rod.sections.%d.%s", seg, name);
    double big = fmax(v[0], v[1]) * half, small = fmin(v[0], v[1]) * half;
    const char *what = half < 1 ? "half of " : "";
    if (big / length > SLENDER_THICK)
        return add(out, "slender_thick", key,
                   "%s: %s%g m against the rod length %g m gives r/L = %.3g, above %g: rod theory needs a slender rod "
                   "(r/L up to about 0.1); is the %s in mm instead of m (or rod.length in m instead of mm)?",
                   key, what, big / half, length, big / length, SLENDER_THICK, name);
    if (small / length < SLENDER_THIN)
        return add(out, "slender_thin", key,
                   "%s: %s%g m against the rod length %g m gives r/L = %.3g, below %g: bending is then %.1e times "
                   "weaker than stretching, at the round-off of the solver; is rod.length in mm instead of m (or the "
                   "%s in m instead of mm)?",
                   key, what, small / half, length, small / length, SLENDER_THIN,
                   0.25 * (small / length) * (small / length), name);
    return CR_OK;
}

static cr_status rod_warnings(const cr_scenario *sc, cr_warning_list *out);
static cr_status turn_warning(const cr_scenario *sc, cr_warning_list *out);

/* In text, "rod.KEY" (a key path of the one-rod form) as "PREFIX.KEY" (an assembly's rod). */
static void reprefix(char *text, size_t size, const char *prefix)
{
    char buf[CR_ERROR_MESSAGE_SIZE];
    size_t k = 0;
    for (const char *p = text; *p && k + 1 < sizeof buf; ++p) {
        int word_start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
        if (word_start && !strncmp(p, "rod.", 4) && islower((unsigned char)p[4])) {
            int w = snprintf(buf + k, sizeof buf - k, "%s.", prefix);
            k = w > 0 && (size_t)w < sizeof buf - k ? k + (size_t)w : sizeof buf - 1;
            p += 3;
            continue;
        }
        buf[k++] = *p;
    }
    buf[k < sizeof buf ? k : sizeof buf - 1] = '\0';
    size_t n = strlen(buf) < size ? strlen(buf) : size - 1; /* (truncated as the warnings' own texts) */
    memcpy(text, buf, n);
    text[n] = '\0';
}

cr_status cr_scenario_warnings(const cr_scenario *sc, cr_warning_list *out)
{
    if (!cr_scenario_is_assembly(sc) || sc->rod_count < 1) return rod_warnings(sc, out);
    /* an assembly: each rod as one rod, its keys named rods.K (a gravity load on every rod
     * is said once, under "loads": the rods' lists are split from the file's) */
    for (int r = 0; r < sc->rod_count; ++r) {
        cr_scenario one = *sc;
        one.rod = sc->rods[r].rod;
        one.rod_count = 1, one.joint_count = 0;
        int before = out->count;
        cr_status st = rod_warnings(&one, out);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "rods.%d", r);
        for (int i = before; i < out->count; ++i) {
            cr_warning *w = &out->items[i];
            if (!strncmp(w->key, "loads.", 6)) {
                int seen = 0;
                for (int j = 0; j < before; ++j) seen |= !strcmp(out->items[j].code, w->code);
                size_t n = strlen(w->key);
                if (!strncmp(w->message, w->key, n)) /* the message starts with the key: "loads" too */
                    memmove(w->message + 5, w->message + n, strlen(w->message + n) + 1);
                snprintf(w->key, sizeof w->key, "loads");
                if (seen) { /* said for an earlier rod */
                    memmove(w, w + 1, (size_t)(out->count - i - 1) * sizeof *w);
                    --out->count, --i;
                    continue;
                }
            }
            reprefix(w->key, sizeof w->key, prefix);
            reprefix(w->message, sizeof w->message, prefix);
        }
        if (st != CR_OK) return st;
    }
    return CR_OK;
}

static cr_status rod_warnings(const cr_scenario *sc, cr_warning_list *out)
{
    const cr_rod_def *rod = &sc->rod;
    double L = rod->length;
    cr_status st = CR_OK;
    int shapes = 0, si = 1; /* si: every shape section at most 1 m across ("SI-looking geometry") */
    for (int k = 0; k < rod->section_count && st == CR_OK; ++k) {
        const cr_section_segment *s = &rod->sections[k];
        if (!is_shape(s)) continue;
        shapes = 1;
        if (s->shape == CR_SECTION_CIRCLE) {
            si &= fmax(s->radius[0], s->radius[1]) <= SI_HALF_EXTENT_MAX;
            if (L > 0) st = check_dimension(out, k, "radius", s->radius, 1.0, L);
        } else {
            si &= 0.5 * fmax(fmax(s->width[0], s->width[1]), fmax(s->height[0], s->height[1])) <= SI_HALF_EXTENT_MAX;
            if (L > 0) st = check_dimension(out, k, "width", s->width, 0.5, L);
            if (L > 0 && st == CR_OK) st = check_dimension(out, k, "height", s->height, 0.5, L);
        }
    }
    if (!shapes) si = L >= 1e-3 && L <= 1e3; /* resultants only: judged by the length */
    const cr_material *m = &rod->material;
    if (shapes && st == CR_OK && m->E > 0) {
        if (si && m->E < MODULUS_MIN)
            st = add(out, "modulus_low", "rod.material.E",
                     "rod.material.E: %g Pa is below the softest solids (hydrogels, about %g Pa) for a rod of SI size; "
                     "is E in MPa or GPa? (E must be in Pa: 2.1e11 for steel)",
                     m->E, MODULUS_MIN);
        else if (si && m->E > MODULUS_MAX)
            st = add(out, "modulus_high", "rod.material.E",
                     "rod.material.E: %g Pa is above any material (diamond: 1.2e12 Pa); is E in the wrong unit? "
                     "(for a rigid strain component use rod.rigid_strains instead of a huge E)",
                     m->E);
        else if (m->rho >= DENSE_RHO && m->rho <= RHO_MAX && m->E < DENSE_MODULUS_MIN)
            st = add(out, "modulus_density", "rod.material.E",
                     "rod.material.E: %g Pa with rod.material.rho = %g kg/m³: materials this dense (metals, glass, "
                     "ceramics) have E above 1e10 Pa; is E in MPa (or kPa) instead of Pa?",
                     m->E, m->rho);
    }
    if (shapes && st == CR_OK && si && m->rho > 0 && (m->rho < RHO_MIN || m->rho > RHO_MAX))
        st = add(out, "density_range", "rod.material.rho",
                 "rod.material.rho: %g kg/m³ is outside [%g, %g] kg/m³ (foams to osmium); is rho in g/cm³ or t/m³ "
                 "(x 1000 for kg/m³), or in g/m³? (ignore this if the scenario uses another consistent unit system)",
                 m->rho, RHO_MIN, RHO_MAX);
    if (shapes && st == CR_OK && m->E > 0 && m->G > 0 &&
        (m->G / m->E < SHEAR_RATIO_MIN || m->G / m->E > SHEAR_RATIO_MAX))
        st = add(out, "shear_ratio", "rod.material.G",
                 "rod.material.G: G/E = %g / %g = %.3g is outside [%g, %g] (isotropic: G = E/(2(1+ν)), 0.33 to 0.5; "
                 "fibre composites down to about 0.04); are E and G in different units (Pa, MPa, GPa)?",
                 m->G, m->E, m->G / m->E, SHEAR_RATIO_MIN, SHEAR_RATIO_MAX);
    /* gravity typed in cm/s², mm/s² or km/s² */
    static const double slips[3] = {981.0, 9810.0, 0.00981};
    static const char *const units[3] = {"cm/s²", "mm/s²", "km/s²"};
    for (int k = 0; k < rod->load_count && st == CR_OK && si; ++k) {
        const cr_load_def *ld = &rod->loads[k];
        if (ld->type != CR_LOAD_GRAVITY) continue;
        double g = sqrt(ld->value.x * ld->value.x + ld->value.y * ld->value.y + ld->value.z * ld->value.z);
        for (int j = 0; j < 3; ++j)
            if (fabs(g / slips[j] - 1) <= GRAVITY_TOLERANCE) {
                char key[CR_WARNING_KEY_SIZE];
                snprintf(key, sizeof key, "loads.%d.value", k);
                st = add(out, "gravity_units", key,
                         "%s: |g| = %g m/s² is 9.81 in %s; give it in m/s² (9.81), the unit of the rod's lengths", key,
                         g, units[j]);
                break;
            }
    }
    if (st == CR_OK) st = turn_warning(sc, out);
    return st;
}

/* The mixed rod's element moments (theory.md §4, eqs. 19–20: the midpoint rule with linearly
 * interpolated virtual rotations) are the gradient of its elastic energy only to first order in
 * the element's turn: the stiffness of a turned element is not symmetric (by 22 % at 120°, 32 %
 * at 139° of the norm), and in dynamic stages the circulatory part makes the rod flutter and blow
 * up (docs/theory.md §12: a clamped 8-element rod with one corner runs at 120° and blows up from
 * 124°). Statics are not affected. */
static cr_status turn_warning(const cr_scenario *sc, cr_warning_list *out)
{
    const cr_rod_def *rod = &sc->rod;
    const cr_reference_def *ref = &rod->reference;
    if (!strcmp(sc->model.type, "lgvi") || !strcmp(sc->model.type, "port_hamiltonian")) return CR_OK;
    if (ref->type != CR_REFERENCE_NODES || !ref->node_orientations || ref->node_count < 2) return CR_OK;
    int dynamic = 0;
    for (int k = 0; k < sc->stage_count; ++k) dynamic |= sc->stages[k].type == CR_STAGE_DYNAMIC;
    if (!dynamic) return CR_OK;
    int worst = -1, count = 0;
    double worst_deg = 0;
    for (int e = 0; e + 1 < ref->node_count; ++e) {
        cr_quat a = ref->node_orientations[e], b = ref->node_orientations[e + 1];
        double na = sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
        double nb = sqrt(b.w * b.w + b.x * b.x + b.y * b.y + b.z * b.z);
        if (!(na > 0 && nb > 0)) continue;
        double d = fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z) / (na * nb); /* ±q: one rotation */
        double deg = 2.0 * acos(fmin(1.0, d)) * 180.0 / acos(-1.0);
        if (deg <= TURN_MAX) continue;
        ++count;
        if (deg > worst_deg) worst_deg = deg, worst = e;
    }
    if (worst < 0) return CR_OK;
    return add(out, "reference_turn", "rod.reference.quaternions",
               "rod.reference.quaternions: the frames of nodes %d and %d differ by %.1f° (%d element%s of the "
               "reference turn%s by more than %g°): the mixed rod's dynamics are not conservative for such a turn "
               "within one element and can blow up (a clamped rod with one such corner does from 124°); give the "
               "corner node the frame halfway between its neighbours', or more nodes",
               worst, worst + 1, worst_deg, count, count > 1 ? "s" : "", count > 1 ? "" : "s", TURN_MAX);
}

long cr_sim_reference_size(const cr_sim *sim) { return 6L * cr_sim_sample_count(sim) + 3L * cr_sim_node_count(sim); }

void cr_sim_reference_values(const cr_sim *sim, double *out)
{
    int ns = cr_sim_sample_count(sim), nn = cr_sim_node_count(sim);
    for (int k = 0; k < ns; ++k) {
        cr_vec3 g, kap;
        cr_sim_sample(sim, k, &g, &kap, NULL, NULL);
        double v[6] = {g.x, g.y, g.z, kap.x, kap.y, kap.z};
        memcpy(out + 6 * k, v, sizeof v);
    }
    for (int i = 0; i < nn; ++i) {
        cr_vec3 x = cr_sim_position(sim, i);
        double v[3] = {x.x, x.y, x.z};
        memcpy(out + 6 * ns + 3 * i, v, sizeof v);
    }
}

/* Distance from the centreline to the section's edge at ξ: the largest half extent;
 * 0 for given resultants (no section: the papers' benchmarks give stiffness ratios no
 * solid section has, so a surface strain would mean nothing). */
static double section_reach(const cr_rod_def *rod, double xi)
{
    cr_section_props p;
    if (cr_section_eval(rod, fmin(1.0, fmax(0.0, xi)), &p) != CR_OK) return 0;
    return fmax(p.extent_y, p.extent_z);
}

static int stage_supported(const cr_rod_def *rod, int stage)
{
    for (int k = 0; k < rod->bc_count; ++k)
        if (rod->bcs[k].stages == 0 || (stage < 32 && (rod->bcs[k].stages >> stage & 1u))) return 1;
    return 0;
}

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* "" for one rod; ", rod NAME" in an assembly: the place a result warning names. */
static void rod_place(const cr_scenario *sc, int r, char *buf, size_t size)
{
    if (sc->rod_count > 1 && r < sc->rod_count)
        snprintf(buf, size, ", rod %s", sc->rods[r].name);
    else
        buf[0] = 0;
}

cr_status cr_sim_result_warnings(const cr_scenario *sc, const cr_sim *sim, const double *ref, int stage,
                                 cr_warning_list *out)
{
    int ns = cr_sim_sample_count(sim), nn = cr_sim_node_count(sim), nr = cr_sim_rod_count(sim);
    char key[CR_WARNING_KEY_SIZE], place[80];
    snprintf(key, sizeof key, "stages.%d", stage);
    /* An assembly's rods are judged each by its own sections and length; a rod counts as
     * supported when any rod of the assembly is (the joints carry the support over). */
    int supported = 0;
    for (int r = 0; r < sc->rod_count; ++r) supported |= stage_supported(&sc->rods[r].rod, stage);
    if (sc->rod_count <= 1) supported = stage_supported(&sc->rod, stage);
    cr_status st = CR_OK;
    for (int r = 0; r < nr && st == CR_OK; ++r) {
        const cr_rod_def *rod = r < sc->rod_count ? &sc->rods[r].rod : &sc->rod;
        int n0 = cr_sim_rod_first_node(sim, r), n1 = cr_sim_rod_first_node(sim, r + 1);
        int k0 = cr_sim_rod_first_sample(sim, r), k1 = cr_sim_rod_first_sample(sim, r + 1);
        double L = n1 > n0 ? cr_sim_node_s(sim, n1 - 1) - cr_sim_node_s(sim, n0) : 0;
        if (!(L > 0)) L = rod->length;
        double s0 = n1 > n0 ? cr_sim_node_s(sim, n0) : 0;
        rod_place(sc, r, place, sizeof place);
        double worst_g = 0, worst_k = 0, worst_kr = 0;
        int at_g = -1, at_k = -1;
        for (int k = k0; k < k1; ++k) {
            cr_vec3 g, kap;
            cr_sim_sample(sim, k, &g, &kap, NULL, NULL);
            const double *q = ref + 6 * k;
            double dg = sqrt((g.x - q[0]) * (g.x - q[0]) + (g.y - q[1]) * (g.y - q[1]) + (g.z - q[2]) * (g.z - q[2]));
            double dk = sqrt((kap.x - q[3]) * (kap.x - q[3]) + (kap.y - q[4]) * (kap.y - q[4]) +
                             (kap.z - q[5]) * (kap.z - q[5]));
            double s = cr_sim_sample_s(sim, k) - s0, reach = section_reach(rod, L > 0 ? s / L : 0);
            if (!(dg <= worst_g)) worst_g = dg, at_g = k; /* NaN counts as the worst */
            if (!(dk * reach <= worst_kr)) worst_kr = dk * reach, worst_k = dk, at_k = k;
        }
        if (at_g >= 0 && !(worst_g <= STRAIN_MAX))
            st = add(out, "strain_large", key,
                     "%s: at the stage's end the axial/shear strain |γ - γ_ref| reaches %.3g at s = %.4g m (sample "
                     "%d%s), above %g: beyond the small strains the rod's linear elastic law is meant for; check the "
                     "loads' magnitudes and that the stiffness is in SI units (rod.material.E in Pa, or EA in N)",
                     key, worst_g, cr_sim_sample_s(sim, at_g), at_g, place, STRAIN_MAX);
        if (st == CR_OK && at_k >= 0 && !(worst_kr <= SURFACE_STRAIN_MAX)) {
            double s = cr_sim_sample_s(sim, at_k);
            st = add(out, "curvature_large", key,
                     "%s: at the stage's end the curvature change |κ - κ_ref| = %.3g 1/m at s = %.4g m (sample %d%s) "
                     "times the section's half extent %.3g m is %.3g, above %g: the section strains far beyond the "
                     "rod model's range; check the loads' magnitudes, the section size (rod.sections, in m) and the "
                     "stiffness units",
                     key, worst_k, s, at_k, place, section_reach(rod, L > 0 ? (s - s0) / L : 0), worst_kr,
                     SURFACE_STRAIN_MAX);
        }
        if (st == CR_OK && supported && L > 0) {
            double worst = 0;
            int at = -1;
            for (int i = n0; i < n1; ++i) {
                cr_vec3 x = cr_sim_position(sim, i);
                double v[3] = {x.x, x.y, x.z}, d = dist3(v, ref + 6 * ns + 3 * i);
                if (!(d <= worst)) worst = d, at = i;
            }
            if (at >= 0 && !(worst <= DISPLACEMENT_MAX * L))
                st = add(out, "displacement_large", key,
                         "%s: at the stage's end node %d (s = %.4g m%s) has moved %.4g m, %.3g rod lengths "
                         "(rod.length = %g m), more than %g for a supported rod; check the loads' magnitudes and the "
                         "stiffness units",
                         key, at, cr_sim_node_s(sim, at), place, worst, worst / L, L, DISPLACEMENT_MAX);
        }
    }
    cr_contact_sample cs;
    /* a node deeper in an obstacle than the tolerance after a static stage (a dynamic stage's
     * contact is a penalty spring whose penetration N/ε is not held to it) */
    if (st == CR_OK && stage >= 0 && stage < sc->stage_count && sc->stages[stage].type == CR_STAGE_STATIC &&
        cr_sim_contact(sim, 0, &cs)) {
        double worst = 0;
        int at = -1;
        for (int i = 0; i < nn; ++i) {
            cr_sim_contact(sim, i, &cs);
            if (-cs.gap > worst) worst = -cs.gap, at = i;
        }
        if (at >= 0 && worst > cs.tolerance) {
            /* an assembly: the node in its own rod's numbering, and the rod named */
            int r = nr > 1 ? cr_sim_node_rod(sim, at) : 0, node = at - (nr > 1 ? cr_sim_rod_first_node(sim, r) : 0);
            rod_place(sc, nr > 1 ? r : sc->rod_count, place, sizeof place);
            /* the port-Hamiltonian rod's statics hold a penalty spring, without multiplier updates: its
               depth N/k_I is set by the stiffness alone */
            const int penalty = !strcmp(cr_sim_formulation(sim), "port_hamiltonian");
            st = add(out, "contact_penetration", key,
                     "%s: at the stage's end node %d (s = %.4g m%s) is %.3g m inside an obstacle, more than "
                     "contact.tolerance = %.3g m; %s",
                     key, node, cr_sim_node_s(sim, at), place, worst, cs.tolerance,
                     penalty ? "the port_hamiltonian model's contact is a penalty spring (depth N/k): raise "
                               "contact.stiffness, or contact.tolerance to accept it"
                             : "raise contact.max_updates or contact.stiffness");
        }
    }
    return st;
}

/* A static solve can converge on an unstable equilibrium (a straight column above its
 * buckling load, a shaft twisted beyond Greenhill's critical twist): an equilibrium
 * nothing pushed the load steps off, which a real rod leaves at the slightest
 * disturbance. The estimate (statics_stability.c) counts the modes with ω² < 0 of the
 * linearized dynamics about it; the threshold there is relative round-off, so any
 * count here is a finding. */
cr_status cr_static_stability_warnings(const cr_sim *sim, const cr_static_report *rep, int stage, cr_warning_list *out)
{
    const cr_stability_report *s = &rep->stability;
    char key[CR_WARNING_KEY_SIZE], growth[128] = "";
    snprintf(key, sizeof key, "stages.%d", stage);
    /* the twist gauge the solver fixed : said once, so that a reader of the
     * body-frame strains knows their y/z split is the gauge's */
    if (rep->twist_gauge) {
        cr_status st = add(out, "twist_gauge", key,
                           "%s: the rod is circular and held only by supports that hold no rotation (or by obstacles, "
                           "whose contact forces act at the centreline), so turning every "
                           "node about its own axis changes nothing physical (a gauge, whose tangent is singular); the "
                           "solve held the twist of node %d at its start value. Results are unaffected; hold rx at a "
                           "support to choose the twist yourself",
                           key, rep->gauge_node);
        if (st != CR_OK) return st;
    }
    if (s->checked && s->unknown)
        return add(out, "stability_unknown", key,
                   "%s: the stability of the equilibrium the static stage ended on (load factor %.4g) is unknown: %s; "
                   "the estimate says neither stable nor unstable (a dynamic stage shows what the rod does)",
                   key, rep->load_factor, s->unknown_reason);
    if (!s->checked || (s->unstable_modes <= 0 && s->flutter_modes <= 0)) return CR_OK;
    int nn = cr_sim_node_count(sim), node = s->softest_node < nn ? s->softest_node : nn - 1;
    if (s->growth_rate > 0)
        snprintf(growth, sizeof growth, "; the modes found grow e-fold in %.3g s%s", 1.0 / s->growth_rate,
                 s->unit_density ? " at ρA = 1 kg/m (no mass given)" : "");
    if (s->unstable_modes > 0)
        return add(out, "unstable_equilibrium", key,
                   "%s: the static stage ended (load factor %.4g) on an unstable equilibrium: %d mode%s with negative "
                   "stiffness, the softest %.3g %s (ω² = %.3g 1/s², largest at node %d, s = %.4g m)%s; a real rod "
                   "leaves it. It was "
                   "kept: \"stability\": \"keep\" (the default leaves it for a stable one along its mode), or its "
                   "lowest mode is complex, growing while it oscillates (follower loads; none may be stable), or no "
                   "stable one was found from it (the stage's error says why)",
                   key, rep->load_factor, s->unstable_modes, s->unstable_modes > 1 ? "s" : "", s->softest_stiffness,
                   s->softest_rotational ? "N m/rad" : "N/m", s->omega2[0], node, cr_sim_node_s(sim, node), growth);
    return add(out, "unstable_equilibrium", key,
               "%s: the static stage ended (load factor %.4g) on an equilibrium unstable by flutter: %d mode%s of the "
               "linearized "
               "dynamics grow while oscillating (complex ω², |Im ω²| up to %.3g 1/s²)%s; nonconservative (follower) "
               "loads cause this, and a real rod does not stay in this state",
               key, rep->load_factor, s->flutter_modes, s->flutter_modes > 1 ? "s" : "", s->omega2_imag_max, growth);
}

/* An adaptive integrator at a loose tolerance damps an undamped rod numerically: Radau IIA
 * is L-stable, so every step takes a little of the motion's energy, and over hundreds of
 * periods the loss adds up (docs/scenario.md, the table next to `rtol`). The balance comes
 * from the series rows alone, so every formulation is judged the same way (the fixed-step
 * ones also watch their own balance against a band and end the stage beyond it). The scale
 * is the energy in motion, not the energy total: gravity's and a prestress's energies are
 * large, and constant, in a rod that hardly moves. */
static int column(const char *const *names, int columns, const char *name)
{
    for (int k = 0; k < columns; ++k)
        if (names[k] && !strcmp(names[k], name)) return k;
    return -1;
}

/* A support moved by a time function or a motion table does work on the rod that no
 * series column holds (its reaction's power), so such a stage's balance is not formed. */
static int stage_driven(const cr_rod_def *rod, int stage)
{
    for (int k = 0; k < rod->bc_count; ++k) {
        const cr_bc_def *b = &rod->bcs[k];
        int active = b->stages == 0 || (stage < 32 && (b->stages >> stage & 1u));
        if (active && (b->motion_count > 0 || b->time.type != CR_TIME_CONSTANT)) return 1;
    }
    return 0;
}

/* The same for every rod of an assembly, and a joint's drive (a motor) acting in the stage
 * when no column holds its work (drive_column: the series has work_drives). */
static int scenario_driven(const cr_scenario *sc, int stage, int drive_column)
{
    if (stage_driven(&sc->rod, stage)) return 1;
    for (int r = 0; cr_scenario_is_assembly(sc) && r < sc->rod_count; ++r)
        if (stage_driven(&sc->rods[r].rod, stage)) return 1;
    for (int j = 0; j < sc->joint_count && !drive_column; ++j) {
        unsigned m = sc->joints[j].stages;
        if (sc->joints[j].has_drive && (m == 0 || (stage >= 0 && stage < 32 && (m >> stage & 1u)))) return 1;
    }
    return 0;
}

cr_status cr_series_energy_warnings(const cr_scenario *sc, const char *const *names, const double *rows, int columns,
                                    long rows_count, int stage, cr_warning_list *out)
{
    int kin = column(names, columns, "energy_kinetic"), ela = column(names, columns, "energy_elastic"),
        gra = column(names, columns, "energy_gravity"), wor = column(names, columns, "work_external"),
        dis = column(names, columns, "energy_dissipated"),
        /* an assembly's joints: their dampers' dissipation and their drives' work */
        djo = column(names, columns, "energy_dissipated_joints"), wdr = column(names, columns, "work_drives");
    /* obstacles: the contact springs' energy and the friction's dissipation are in no column;
     * nor is the penalty's between the rods of an assembly (contact.rods), nor the friction's
     * between them (contact.rods_friction), nor the self-contact's penalty (contact.self) */
    if (rows_count < 2 || kin < 0 || ela < 0 || gra < 0 || wor < 0 || scenario_driven(sc, stage, wdr >= 0) ||
        sc->rod.obstacle_count > 0 || sc->rod.contact.rods || sc->rod.contact.rods_mu_static > 0 ||
        sc->rod.contact.self)
        return CR_OK;
    const double *r0 = rows;
#define JOINTS(r) ((djo >= 0 ? (r)[djo] : 0.0) - (wdr >= 0 ? (r)[wdr] : 0.0))
    double d0 = dis >= 0 ? r0[dis] : 0, base = r0[kin] + r0[ela] + r0[gra] - r0[wor] + d0 + JOINTS(r0);
    double kin_max = 0, work_max = 0, dis_max = 0, worst = 0, t_worst = 0, end = 0;
    for (long i = 0; i < rows_count; ++i) {
        const double *r = rows + i * columns;
        double d = dis >= 0 ? r[dis] : 0, b = r[kin] + r[ela] + r[gra] - r[wor] + d + JOINTS(r) - base;
        if (!isfinite(b)) return CR_OK; /* a stage that failed on a non-finite state says so itself */
        kin_max = fmax(kin_max, r[kin]);
        work_max = fmax(work_max, fabs(r[wor] - r0[wor]) + (wdr >= 0 ? fabs(r[wdr] - r0[wdr]) : 0.0));
        dis_max = fmax(dis_max, fabs(d - d0) + (djo >= 0 ? fabs(r[djo] - r0[djo]) : 0.0));
        if (fabs(b) > fabs(worst)) worst = b, t_worst = r[0];
        end = b;
    }
#undef JOINTS
    double scale = kin_max + work_max + dis_max;
    if (!(scale > 0) || fabs(worst) <= ENERGY_DRIFT_MAX * scale) return CR_OK;
    const double *last = rows + (rows_count - 1) * columns;
    const cr_dynamic_options *o = stage >= 0 && stage < sc->stage_count ? &sc->stages[stage].dynamics : NULL;
    double rtol = o ? o->rtol : 0, atol = o ? o->atol : 0;
    char key[CR_WARNING_KEY_SIZE];
    snprintf(key, sizeof key, "stages.%d", stage);
    return add(out, "energy_drift", key,
               "%s: the energy balance (kinetic + elastic + gravity - work + dissipated) %s %.4g J by t = %.6g s "
               "(%+.4g J at t = %.6g s), %.3g of the energy in motion (%.4g J), above %g: energy no load or damper "
               "accounts for (an undamped rod damped numerically?). Tighten %s.atol (now %g) and rtol (now %g; "
               "time_step for a fixed-step model), see docs/scenario.md, or use the port_hamiltonian model, which "
               "conserves it",
               key, worst < 0 ? "lost" : "gained", fabs(worst), t_worst, end, last[0], fabs(worst) / scale, scale,
               ENERGY_DRIFT_MAX, key, atol, rtol);
}
