/* cosserat — scenario files, the "rod" section: material, reference configuration, cross-sections,
 * damping, rigid strains.
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* enum choices; index = the C enum value */
static const char *const REF_CHOICES[] = {"straight", "helix", "nodes", NULL};
static const char *const SHAPE_CHOICES[] = {"circle", "rectangle", "resultants", NULL};
static const char *const RIGID_CHOICES[] = {"gamma_x", "gamma_y", "gamma_z", "kappa_x", "kappa_y", "kappa_z", NULL};

/* Every section gives its stiffness and inertia resultants: no material is needed. */
static int sections_all_resultants(const cJSON *rod)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(rod, "sections");
    if (!cJSON_IsArray(list) || !list->child) return 0;
    for (const cJSON *c = list->child; c; c = c->next)
        if (!type_is(type_string(c, "shape"), "resultants")) return 0;
    return 1;
}

static cr_status parse_material(const cJSON *rod, const char *rp, cr_material *m, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, rp, "material");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rod, "material");
    cr_status s;
    if (!v && sections_all_resultants(rod)) return CR_OK;
    if (!v) return fail(err, "%s: missing (or give every section as shape \"resultants\")", path);
    if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_MATERIAL, err))) return s;
    if ((s = get_number(v, path, "E", 1, 0, POSITIVE, &m->E, err))) return s;
    /* the shear modulus, or Poisson's ratio for an isotropic material: G = E / (2 (1 + nu)) */
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(v, "G"), *nu = cJSON_GetObjectItemCaseSensitive(v, "nu");
    if (g && nu)
        return fail(err, "rod.material.G, rod.material.nu: give one of them, not both (G = E / (2 (1 + nu)) for an "
                         "isotropic material)");
    if (!g && !nu)
        return fail(err, "rod.material.G: missing (the shear modulus; or give Poisson's ratio rod.material.nu, and "
                         "G = E / (2 (1 + nu)))");
    if (g) {
        if ((s = get_number(v, path, "G", 1, 0, POSITIVE, &m->G, err))) return s;
    } else {
        double n;
        if ((s = get_number(v, path, "nu", 1, 0, ANY, &n, err))) return s;
        /* nu <= -1 makes G infinite or negative. nu = 0.5 is allowed: an incompressible solid
         * (rubber, the silicone of soft robots) has G = E/3, finite; the isotropic bound
         * nu < 0.5 comes from the bulk modulus E / (3 (1 - 2 nu)), which the rod's resultants
         * (EA, GA, EI, GJ) never use. Above 0.5 that modulus is negative: no stable solid. */
        if (!(n > -1 && n <= 0.5)) {
            char got[32];
            format_number(n, got, sizeof got);
            return fail(err, "rod.material.nu: Poisson's ratio must be in (-1, 0.5], got %s", got);
        }
        m->G = m->E / (2 * (1 + n));
    }
    return get_number(v, path, "rho", 0, 0.0, NONNEGATIVE, &m->rho, err);
}

static cr_status parse_frame(const cJSON *ref, const char *parent, cr_quat *out, cr_error *err)
{
    char path[PATH_SIZE], px[PATH_SIZE], py[PATH_SIZE], dot_text[32];
    path_key(path, parent, "frame");
    path_key(px, path, "e_x");
    path_key(py, path, "e_y");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(ref, "frame");
    double ex[3], ey[3];
    cr_status s;
    if ((s = expect_object(f, path, err)) || (s = check_keys(f, path, K_FRAME, err))) return s;
    if ((s = get_vector(f, path, "e_x", 3, NULL, ex, err))) return s;
    if ((s = get_vector(f, path, "e_y", 3, NULL, ey, err))) return s;
    if ((s = normalize(ex, 3, px, cJSON_GetObjectItemCaseSensitive(f, "e_x"), err))) return s;
    if ((s = normalize(ey, 3, py, cJSON_GetObjectItemCaseSensitive(f, "e_y"), err))) return s;
    cr_vec3 a = cr_v3_load(ex), b = cr_v3_load(ey);
    double d = cr_v3_dot(a, b);
    if (fabs(d) > 1e-6) {
        format_number(d, dot_text, sizeof dot_text);
        return fail(err, "%s: e_x and e_y must be orthogonal, but e_x . e_y = %s after normalization", path,
                    dot_text);
    }
    /* Remove the tolerated residual from e_y (not e_x: the first column is the
     * rod tangent, which the user specified and expects back exactly) so the
     * matrix handed to cr_q_from_matrix is a rotation to rounding. */
    b = cr_v3_normalize(cr_v3_madd(b, -d, a));
    *out = cr_q_from_matrix(cr_m3_columns(a, b, cr_v3_cross(a, b)));
    return CR_OK;
}

static cr_status parse_reference(const cJSON *rod, const char *rp, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    static const double zero3[3] = {0, 0, 0};
    char path[PATH_SIZE], qpath[PATH_SIZE], ppath[PATH_SIZE], elements[PATH_SIZE];
    path_key(path, rp, "reference");
    path_key(qpath, path, "quaternions");
    path_key(ppath, path, "positions");
    path_key(elements, rp, "elements");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rod, "reference");
    cr_reference_def *ref = &def->reference;
    double o[3];
    int type;
    cr_status s;

    ref->type = CR_REFERENCE_STRAIGHT;
    ref->origin = cr_v3(0, 0, 0);
    ref->orientation = cr_q_identity();
    ref->helix_radius = 0;
    ref->helix_pitch = 0;
    ref->node_count = 0;
    ref->node_positions = NULL;
    ref->node_orientations = NULL;
    if (!v) return CR_OK;

    if ((s = expect_object(v, path, err))) return s;
    if ((s = get_enum(v, path, "type", REF_CHOICES, CR_REFERENCE_STRAIGHT, &type, err))) return s;
    if ((s = check_keys(v, path, K_REFERENCE, err))) return s;
    ref->type = (cr_reference_type)type;

    if (type == CR_REFERENCE_STRAIGHT) {
        const cJSON *frame = cJSON_GetObjectItemCaseSensitive(v, "frame");
        const cJSON *quat = cJSON_GetObjectItemCaseSensitive(v, "quaternion");
        if ((s = get_vector(v, path, "origin", 3, zero3, o, err))) return s;
        ref->origin = cr_v3_load(o);
        if (frame && quat)
            return fail(err, "%s: give the orientation either as frame or as quaternion, not both", path);
        if (frame) return parse_frame(v, path, &ref->orientation, err);
        if (quat) {
            char one[PATH_SIZE];
            path_key(one, path, "quaternion");
            return read_unit_quat(quat, one, &ref->orientation, err);
        }
        return CR_OK;
    }
    if (type == CR_REFERENCE_HELIX) {
        if ((s = get_vector(v, path, "origin", 3, zero3, o, err))) return s;
        ref->origin = cr_v3_load(o);
        if ((s = get_number(v, path, "radius", 1, 0, POSITIVE, &ref->helix_radius, err))) return s;
        return get_number(v, path, "pitch", 0, 0.0, ANY, &ref->helix_pitch, err);
    }

    /* nodes: one pose per node */
    const cJSON *pos, *quats;
    char item[PATH_SIZE], prev[PATH_SIZE];
    int n = def->elements + 1;
    if ((s = get_array(v, path, "positions", 1, &pos, err))) return s;
    if ((s = get_array(v, path, "quaternions", 1, &quats, err))) return s;
    if (cJSON_GetArraySize(pos) != n)
        return fail(err, "%s: expected %d entries (%s + 1), got %d", ppath, n, elements, cJSON_GetArraySize(pos));
    if (cJSON_GetArraySize(quats) != n)
        return fail(err, "%s: expected %d entries (%s + 1), got %d", qpath, n, elements, cJSON_GetArraySize(quats));
    st->positions = malloc((size_t)n * sizeof *st->positions);
    st->orientations = malloc((size_t)n * sizeof *st->orientations);
    if (!st->positions || !st->orientations) return no_memory(err);
    int i = 0;
    for (const cJSON *c = pos->child; c; c = c->next, ++i) {
        path_index(item, ppath, i);
        if ((s = read_vector(c, item, 3, o, err))) return s;
        st->positions[i] = cr_v3_load(o);
        if (i > 0 && cr_v3_norm(cr_v3_sub(st->positions[i], st->positions[i - 1])) == 0) {
            path_index(prev, ppath, i - 1);
            return fail(err, "%s: coincides with %s (a zero-length element)", item, prev);
        }
    }
    i = 0;
    for (const cJSON *c = quats->child; c; c = c->next, ++i) {
        path_index(item, qpath, i);
        if ((s = read_unit_quat(c, item, &st->orientations[i], err))) return s;
    }
    ref->node_count = n;
    ref->node_positions = st->positions;
    ref->node_orientations = st->orientations;
    return CR_OK;
}

/* A section dimension: a number (constant) or a [start, end] pair (taper). */
/* A positive value, constant or tapered ([start, end]); optional ones (required = 0)
 * default to 0 and may be 0 (rule NONNEGATIVE). */
static cr_status get_profile(const cJSON *obj, const char *parent, const char *key, int required, num_rule rule,
                             double out[2], cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE], item[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_status s;
    if (!v && !required) {
        out[0] = out[1] = 0;
        return CR_OK;
    }
    if (!v) return fail(err, "%s: missing", path);
    if (cJSON_IsNumber(v)) {
        if ((s = read_number(v, path, rule, &out[0], err))) return s;
        out[1] = out[0];
        return CR_OK;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a number or a [start, end] pair, got %s", path, got);
    }
    for (int i = 0; i < 2; ++i) {
        path_index(item, path, i);
        if ((s = read_number(cJSON_GetArrayItem(v, i), item, rule, &out[i], err))) return s;
    }
    return CR_OK;
}

static cr_status get_dimension(const cJSON *obj, const char *parent, const char *key, double out[2], cr_error *err)
{
    return get_profile(obj, parent, key, 1, POSITIVE, out, err);
}

/* rod.sections[*].shear_coefficient: k in (0, 2] or "timoshenko" (Cowper's k from the
 * shape and ν = E/(2G) - 1); absent: 0 (= k 1). Not for resultants sections. */
static cr_status parse_shear_coefficient(const cJSON *c, const char *parent, int shape, double *out, cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, "shear_coefficient");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "shear_coefficient");
    *out = 0;
    if (!v) return CR_OK;
    if (shape == CR_SECTION_RESULTANTS)
        return fail(err, "%s: not for a resultants section (GA_y and GA_z are given directly; scale them instead)",
                    path);
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "timoshenko")) {
        *out = CR_SHEAR_TIMOSHENKO;
        return CR_OK;
    }
    describe(v, got, sizeof got);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: expected a number in (0, 2] or \"timoshenko\", got %s", path, got);
    cr_status s = read_number(v, path, POSITIVE, out, err);
    if (s) return s;
    if (*out > 2) return fail(err, "%s: must be <= 2, got %s", path, got);
    return CR_OK;
}

/* A number (the same for all n components) or an array of n numbers, each >= 0. */
static cr_status get_components(const cJSON *obj, const char *parent, const char *key, int n, double *out,
                                cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    for (int k = 0; k < n; ++k) out[k] = 0;
    if (!v) return CR_OK;
    if (cJSON_IsNumber(v)) {
        cr_status s = read_number(v, path, NONNEGATIVE, &out[0], err);
        for (int k = 1; k < n; ++k) out[k] = out[0];
        return s;
    }
    if (!cJSON_IsArray(v)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a number or an array of %d numbers, got %s", path, n, got);
    }
    return read_vector_rule(v, path, n, NONNEGATIVE, out, err);
}

/* rod.damping (docs/scenario.md "Damping"): Kelvin–Voigt relaxation times or viscous
 * coefficients of the six strain components, and drag per unit length. */
static cr_status parse_damping(const cJSON *rod, const char *rp, cr_damping_def *d, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, rp, "damping");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rod, "damping");
    cr_status s;
    memset(d, 0, sizeof *d);
    if (!v) return CR_OK;
    if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_DAMPING, err))) return s;
    if (cJSON_GetObjectItemCaseSensitive(v, "relaxation_time") && cJSON_GetObjectItemCaseSensitive(v, "coefficients"))
        return fail(err, "%s.coefficients: give either %s.relaxation_time or %s.coefficients, not both", path, path,
                    path);
    const cJSON *coef = cJSON_GetObjectItemCaseSensitive(v, "coefficients");
    if (coef && !cJSON_IsArray(coef)) {
        char got[VALUE_TEXT_SIZE];
        describe(coef, got, sizeof got);
        return fail(err,
                    "%s.coefficients: expected an array of 6 numbers (N s for the forces, N m^2 s for "
                    "the moments), got %s",
                    path, got);
    }
    double drag[3], rot[3];
    if ((s = get_components(v, path, "relaxation_time", 6, d->relaxation_time, err)) ||
        (s = get_components(v, path, "coefficients", 6, d->coefficients, err)) ||
        (s = get_components(v, path, "drag", 3, drag, err)) ||
        (s = get_components(v, path, "rotational_drag", 3, rot, err)))
        return s;
    d->drag = cr_v3(drag[0], drag[1], drag[2]);
    d->rotational_drag = cr_v3(rot[0], rot[1], rot[2]);
    return CR_OK;
}

static cr_status parse_sections(const cJSON *rod, const char *rp, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE], end_path[PATH_SIZE], got[VALUE_TEXT_SIZE], prev_text[32], spath[PATH_SIZE];
    cr_status s;
    path_key(spath, rp, "sections");
    if ((s = get_array(rod, rp, "sections", 1, &list, err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n < 1) return fail(err, "%s: expected at least 1 section, got []", spath);
    st->sections = calloc((size_t)n, sizeof *st->sections);
    if (!st->sections) return no_memory(err);
    double prev = 0;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_section_segment *seg = &st->sections[i];
        int shape, last = (i == n - 1);
        path_index(path, spath, i);
        if ((s = expect_object(c, path, err))) return s;
        if ((s = get_enum(c, path, "shape", SHAPE_CHOICES, -1, &shape, err))) return s;
        if ((s = parse_shear_coefficient(c, path, shape, &seg->shear_coefficient, err))) return s;
        if ((s = check_keys(c, path, K_SECTION, err))) return s;
        seg->shape = (cr_section_shape)shape;
        /* Only the last end has a natural default (the rod's end); an omitted
         * inner end would be a guess. */
        if ((s = get_number(c, path, "end", !last, 1.0, ANY, &seg->xi_end, err))) return s;
        path_key(end_path, path, "end");
        format_number(seg->xi_end, got, sizeof got);
        if (!(seg->xi_end > prev)) {
            if (i == 0) return fail(err, "%s: must be > 0, got %s", end_path, got);
            format_number(prev, prev_text, sizeof prev_text);
            return fail(err, "%s: must be > %s.%d.end = %s (ends strictly increase), got %s", end_path, spath, i - 1,
                        prev_text, got);
        }
        if (seg->xi_end > 1) return fail(err, "%s: must be <= 1, got %s", end_path, got);
        if (last && seg->xi_end != 1)
            return fail(err, "%s: the last section must end at 1 (the rod's end), got %s", end_path, got);
        prev = seg->xi_end;
        seg->radius[0] = seg->radius[1] = 0;
        seg->width[0] = seg->width[1] = 0;
        seg->height[0] = seg->height[1] = 0;
        if (shape == CR_SECTION_CIRCLE) {
            if ((s = get_dimension(c, path, "radius", seg->radius, err))) return s;
        } else if (shape == CR_SECTION_RESULTANTS) {
            /* stiffnesses required and > 0; inertias optional (0: statics only) */
            double *req[6] = {seg->EA, seg->GA_y, seg->GA_z, seg->GJ, seg->EI_y, seg->EI_z};
            static const char *req_names[6] = {"EA", "GA_y", "GA_z", "GJ", "EI_y", "EI_z"};
            double *opt[3] = {seg->rhoA, seg->rhoI_y, seg->rhoI_z};
            static const char *opt_names[3] = {"rhoA", "rhoI_y", "rhoI_z"};
            for (int q = 0; q < 6; ++q)
                if ((s = get_profile(c, path, req_names[q], 1, POSITIVE, req[q], err))) return s;
            for (int q = 0; q < 3; ++q)
                if ((s = get_profile(c, path, opt_names[q], 0, NONNEGATIVE, opt[q], err))) return s;
        } else {
            if ((s = get_dimension(c, path, "width", seg->width, err))) return s;
            if ((s = get_dimension(c, path, "height", seg->height, err))) return s;
        }
    }
    def->section_count = n;
    def->sections = st->sections;
    return CR_OK;
}

static cr_status parse_rigid(const cJSON *rod, const char *rp, unsigned *mask, cr_error *err)
{
    const cJSON *list;
    char item[PATH_SIZE], prev[PATH_SIZE], lpath[PATH_SIZE];
    cr_status s;
    *mask = 0;
    path_key(lpath, rp, "rigid_strains");
    if ((s = get_array(rod, rp, "rigid_strains", 0, &list, err)) || !list) return s;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        int k = 0;
        path_index(item, lpath, i);
        if ((s = read_enum(c, item, RIGID_CHOICES, &k, err))) return s;
        if (*mask & (1u << k)) {
            int j = 0;
            for (const cJSON *d = list->child; d != c; d = d->next, ++j)
                if (!strcmp(d->valuestring, c->valuestring)) break;
            path_index(prev, lpath, j);
            return fail(err, "%s: duplicate \"%s\" (already given as %s)", item, c->valuestring, prev);
        }
        *mask |= 1u << k;
    }
    return CR_OK;
}

cr_status parse_rod(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *rod = cJSON_GetObjectItemCaseSensitive(root, "rod");
    cr_status s;
    if (!rod) return fail(err, "rod: missing");
    if ((s = expect_object(rod, "rod", err)) || (s = check_keys(rod, "rod", K_ROD, err))) return s;
    return parse_rod_object(rod, "rod", def, st, err);
}

cr_status parse_rod_object(const cJSON *rod, const char *path, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    cr_status s;
    if ((s = get_int(rod, path, "elements", 1, 0, 1, &def->elements, err))) return s;
    if ((s = parse_material(rod, path, &def->material, err))) return s;
    if ((s = parse_reference(rod, path, def, st, err))) return s;

    if (def->reference.type != CR_REFERENCE_NODES) {
        if ((s = get_number(rod, path, "length", 1, 0, POSITIVE, &def->length, err))) return s;
    } else {
        /* The chord sum is the length (model.h); a length given as well must
         * agree, since silently ignoring it would hide a mistake. */
        double chords = 0, given;
        for (int i = 0; i < def->elements; ++i)
            chords += cr_v3_norm(cr_v3_sub(st->positions[i + 1], st->positions[i]));
        if ((s = get_number(rod, path, "length", 0, chords, POSITIVE, &given, err))) return s;
        if (fabs(given - chords) > 1e-9 * chords) {
            char a[32], b[32];
            format_number(given, a, sizeof a);
            format_number(chords, b, sizeof b);
            return fail(err,
                        "%s.length: %s disagrees with the chord length %s of %s.reference.positions "
                        "(omit %s.length for a nodes reference)",
                        path, a, b, path, path);
        }
        def->length = chords;
    }
    if ((s = parse_sections(rod, path, def, st, err))) return s;
    if ((s = parse_damping(rod, path, &def->damping, err))) return s;
    return parse_rigid(rod, path, &def->rigid_strains, err);
}
