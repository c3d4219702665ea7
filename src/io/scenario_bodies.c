/* cosserat — scenario files, the "rigid_bodies" section.
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Principal moments of a symmetric 3x3 tensor, ascending: the closed-form
 * eigenvalues of a symmetric 3x3 matrix (O. K. Smith, CACM 4(4), 1961). Exact
 * enough for the plausibility check below, which tolerates 1e-12 relative. */
static void sym3_eigenvalues(const double a[3][3], double ev[3])
{
    double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    double q = (a[0][0] + a[1][1] + a[2][2]) / 3;
    if (p1 == 0) {
        ev[0] = a[0][0];
        ev[1] = a[1][1];
        ev[2] = a[2][2];
    } else {
        double d0 = a[0][0] - q, d1 = a[1][1] - q, d2 = a[2][2] - q;
        double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2 * p1) / 6);
        /* r = det((A - qI)/p) / 2, clamped against rounding */
        double b01 = a[0][1] / p, b02 = a[0][2] / p, b12 = a[1][2] / p;
        double b00 = d0 / p, b11 = d1 / p, b22 = d2 / p;
        double r = (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02)) / 2;
        r = r < -1 ? -1 : (r > 1 ? 1 : r);
        double phi = acos(r) / 3;
        ev[2] = q + 2 * p * cos(phi);
        ev[0] = q + 2 * p * cos(phi + 2 * M_PI / 3);
        ev[1] = 3 * q - ev[0] - ev[2];
    }
    /* sort (the diagonal case is unordered) */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (ev[j] < ev[i]) {
                double t = ev[i];
                ev[i] = ev[j];
                ev[j] = t;
            }
}

/* Cholesky factorization succeeds exactly when a symmetric matrix is positive definite. */
static int positive_definite(const double a[3][3])
{
    double l[3][3] = {{0}};
    for (int j = 0; j < 3; ++j) {
        double d = a[j][j];
        for (int k = 0; k < j; ++k) d -= l[j][k] * l[j][k];
        if (!(d > 0)) return 0;
        l[j][j] = sqrt(d);
        for (int i = j + 1; i < 3; ++i) {
            double v = a[i][j];
            for (int k = 0; k < j; ++k) v -= l[i][k] * l[j][k];
            l[i][j] = v / l[j][j];
        }
    }
    return 1;
}

/* Principal moments must satisfy I_a <= I_b + I_c (a body's second moments of
 * mass are >= 0); returns the index of a violating moment, or -1. The 1e-12
 * relative slack admits flat bodies (I_z = I_x + I_y) computed with rounding. */
static int triangle_violation(const double m[3])
{
    double sum = m[0] + m[1] + m[2];
    for (int a = 0; a < 3; ++a)
        if (m[a] - (m[(a + 1) % 3] + m[(a + 2) % 3]) > 1e-12 * sum) return a;
    return -1;
}

static cr_status parse_inertia_tensor(const cJSON *v, const char *path, double t[3][3], cr_error *err)
{
    char got[VALUE_TEXT_SIZE], row[PATH_SIZE], a[32], b[32];
    cr_status s;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a 3x3 array [[Ixx, Ixy, Ixz], [Iyx, Iyy, Iyz], [Izx, Izy, Izz]], got %s",
                    path, got);
    }
    for (int i = 0; i < 3; ++i) {
        path_index(row, path, i);
        if ((s = read_vector(cJSON_GetArrayItem(v, i), row, 3, t[i], err))) return s;
    }
    double scale = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) scale = fmax(scale, fabs(t[i][j]));
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (fabs(t[i][j] - t[j][i]) > 1e-12 * scale) {
                format_number(t[i][j], a, sizeof a);
                format_number(t[j][i], b, sizeof b);
                return fail(err, "%s: must be symmetric (relative tolerance 1e-12), but entry %d.%d = %s and entry "
                                 "%d.%d = %s",
                            path, i, j, a, j, i, b);
            }
    /* store the exactly symmetric part */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) t[i][j] = t[j][i] = 0.5 * (t[i][j] + t[j][i]);
    if (!positive_definite(t)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: must be positive definite, got %s", path, got);
    }
    double ev[3];
    sym3_eigenvalues(t, ev);
    if (triangle_violation(ev) >= 0) {
        /* computed values: 12 digits hide the rounding of the eigenvalue formula */
        char c[32];
        snprintf(a, sizeof a, "%.12g", ev[0]);
        snprintf(b, sizeof b, "%.12g", ev[1]);
        snprintf(c, sizeof c, "%.12g", ev[2]);
        return fail(err, "%s: the principal moments %s, %s, %s violate the triangle inequality (the largest must "
                         "be <= the sum of the other two for a physical body)",
                    path, a, b, c);
    }
    return CR_OK;
}

cr_status parse_rigid_bodies(const cJSON *root, cr_rod_def *def, scenario_storage *st, cr_error *err)
{
    const cJSON *list;
    char path[PATH_SIZE], key[PATH_SIZE], other[PATH_SIZE], got[VALUE_TEXT_SIZE];
    cr_status s;
    def->rigid_body_count = 0;
    def->rigid_bodies = NULL;
    if ((s = get_array(root, "", "rigid_bodies", 0, &list, err)) || !list) return s;
    int n = cJSON_GetArraySize(list);
    if (n == 0) return CR_OK;
    st->bodies = calloc((size_t)n, sizeof *st->bodies);
    st->body_rod = calloc((size_t)n, sizeof *st->body_rod);
    if (!st->bodies || !st->body_rod) return no_memory(err);
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        cr_rigid_body_def *b = &st->bodies[i];
        const char *name = "";
        double v[3];
        path_index(path, "rigid_bodies", i);
        if ((s = expect_object(c, path, err)) || (s = check_keys(c, path, K_BODY, err))) return s;
        /* every field explicitly, so nothing depends on cr_rigid_body_default_def() */
        memset(b->name, 0, sizeof b->name);
        b->node = 0;
        b->mass = 0;
        b->center = cr_v3(0, 0, 0);
        b->inertia = cr_m3_zero();
        b->orientation = cr_q_identity();

        path_key(key, path, "name");
        if (!cJSON_GetObjectItemCaseSensitive(c, "name")) return fail(err, "%s: missing", key);
        if ((s = get_string(c, path, "name", "", &name, err))) return s;
        if (!*name) return fail(err, "%s: must not be empty", key);
        if (strlen(name) >= sizeof b->name) {
            describe(cJSON_GetObjectItemCaseSensitive(c, "name"), got, sizeof got);
            return fail(err, "%s: longer than %d characters, got %s", key, (int)sizeof b->name - 1, got);
        }
        for (int j = 0; j < i; ++j)
            if (!strcmp(st->bodies[j].name, name)) {
                path_index(other, "rigid_bodies", j);
                return fail(err, "%s: duplicate name \"%s\" (already used by %s)", key, name, other);
            }
        memcpy(b->name, name, strlen(name) + 1);

        /* without node: a free body, held by the joints that name it (finish_rods) */
        node_ref ref = {.rod = -1};
        if (cJSON_GetObjectItemCaseSensitive(c, "node") && (s = get_rod_node(c, path, "node", def, st, &ref, err)))
            return s;
        b->node = ref.rod >= 0 ? ref.node : 0;
        st->body_rod[i] = ref.rod;
        if ((s = get_number(c, path, "mass", 1, 0, POSITIVE, &b->mass, err))) return s;
        if ((s = get_vector(c, path, "center", 3, NULL, v, err))) return s;
        b->center = cr_v3_load(v);
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(c, "orientation");
        if (q) {
            path_key(key, path, "orientation");
            if ((s = read_unit_quat(q, key, &b->orientation, err))) return s;
        }

        const cJSON *principal = cJSON_GetObjectItemCaseSensitive(c, "inertia");
        const cJSON *tensor = cJSON_GetObjectItemCaseSensitive(c, "inertia_tensor");
        if (principal && tensor)
            return fail(err, "%s: give the inertia either as inertia (principal moments) or as inertia_tensor, "
                             "not both",
                        path);
        if (!principal && !tensor) {
            path_key(key, path, "inertia");
            return fail(err, "%s: missing (give inertia [Ixx, Iyy, Izz] or inertia_tensor [[...], [...], [...]])",
                        key);
        }
        if (tensor) {
            path_key(key, path, "inertia_tensor");
            if ((s = parse_inertia_tensor(tensor, key, b->inertia.m, err))) return s;
            continue;
        }
        double m[3];
        path_key(key, path, "inertia");
        if ((s = read_vector_rule(principal, key, 3, POSITIVE, m, err))) return s;
        int a = triangle_violation(m);
        if (a >= 0) {
            char x[32], y[32], z[32];
            format_number(m[a], x, sizeof x);
            format_number(m[(a + 1) % 3], y, sizeof y);
            format_number(m[(a + 2) % 3], z, sizeof z);
            return fail(err, "%s.%d: principal moment %s exceeds the sum %s + %s of the other two (the triangle "
                             "inequality of a physical body)",
                        key, a, x, y, z);
        }
        /* inertial components of the body-axis tensor: R diag(m) R^T, R = Exp(orientation),
         * built from one triangle so the result is exactly symmetric */
        cr_mat3 r = cr_q_exp(b->orientation);
        for (int j = 0; j < 3; ++j)
            for (int k = j; k < 3; ++k) {
                double t = 0;
                for (int l = 0; l < 3; ++l) t += r.m[j][l] * m[l] * r.m[k][l];
                b->inertia.m[j][k] = b->inertia.m[k][j] = t;
            }
    }
    def->rigid_body_count = n;
    def->rigid_bodies = st->bodies;
    return CR_OK;
}
