/* cosserat — scenario files, the shared helpers: error messages, JSON paths, typed readers
 * (numbers, integers, enums, vectors, unit quaternions, arrays, node references).
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Messages.                                                                  */

cr_status fail(cr_error *err, const char *fmt, ...)
{
    char buf[CR_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return cr_error_set(err, CR_BAD_INPUT, "%s", buf);
}

cr_status no_memory(cr_error *err)
{
    return cr_error_set(err, CR_NO_MEMORY, "out of memory while reading the scenario");
}

/* Shortest text that reads back as the same double, so messages show the
 * value the user wrote ("0.1", not "0.10000000000000001"). */
void format_number(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
        return;
    }
    for (int p = 15; p <= 17; ++p) {
        snprintf(buf, n, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* Appends byte c to buf[*k] (capacity n, room for the final NUL kept), a control
 * byte as its JSON escape (\n, \t, \r, \u001b): a key or value with control
 * characters is shown as written, and cannot corrupt the terminal or the line. */
static void put_escaped(char *buf, size_t *k, size_t n, unsigned char c)
{
    char esc[8];
    if (c >= 0x20 && c != 0x7f)
        esc[0] = (char)c, esc[1] = '\0';
    else if (c == '\n')
        strcpy(esc, "\\n");
    else if (c == '\t')
        strcpy(esc, "\\t");
    else if (c == '\r')
        strcpy(esc, "\\r");
    else
        snprintf(esc, sizeof esc, "\\u%04x", c);
    size_t len = strlen(esc);
    if (*k + len + 1 > n) return;
    memcpy(buf + *k, esc, len);
    *k += len;
}

/* A short description of a JSON value for "got ..." in messages. */
void describe(const cJSON *v, char *buf, size_t n)
{
    if (!v) {
        snprintf(buf, n, "nothing");
    } else if (cJSON_IsNumber(v)) {
        format_number(v->valuedouble, buf, n);
    } else if (cJSON_IsTrue(v)) {
        snprintf(buf, n, "true");
    } else if (cJSON_IsFalse(v)) {
        snprintf(buf, n, "false");
    } else if (cJSON_IsNull(v)) {
        snprintf(buf, n, "null");
    } else {
        char *text = NULL;
        const char *s;
        if (cJSON_IsString(v)) {
            s = v->valuestring;
        } else {
            text = cJSON_PrintUnformatted(v);
            s = text ? text : (cJSON_IsArray(v) ? "an array" : "an object");
        }
        /* Keep messages to one readable line: truncate and escape control bytes. */
        size_t max = n > 8 ? n - 8 : 0, len = strlen(s), k = 0;
        int quote = cJSON_IsString(v);
        if (quote && k + 1 < n) buf[k++] = '"';
        size_t i = 0;
        for (; i < len && k < max; ++i) put_escaped(buf, &k, max + 1, (unsigned char)s[i]);
        if (i < len && k + 3 < n) {
            memcpy(buf + k, "...", 3);
            k += 3;
        }
        if (quote && k + 1 < n) buf[k++] = '"';
        buf[k < n ? k : n - 1] = '\0';
        cJSON_free(text);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON paths ("rod.sections.1.radius").                                      */

/* out = parent + "." + key (just key at the top level), truncated to
 * PATH_SIZE - 1 characters: a truncated path is still a useful hint. Written by
 * hand rather than with snprintf so out may alias parent. */
void path_key(char *out, const char *parent, const char *key)
{
    char buf[PATH_SIZE];
    size_t k = 0;
    for (const char *p = parent; *p && k + 1 < sizeof buf; ++p) buf[k++] = *p;
    if (*parent && k + 1 < sizeof buf) buf[k++] = '.';
    for (const char *p = key; *p && k + 1 < sizeof buf; ++p) put_escaped(buf, &k, sizeof buf, (unsigned char)*p);
    buf[k] = '\0';
    memcpy(out, buf, k + 1);
}

void path_index(char *out, const char *parent, int index)
{
    char digits[16];
    snprintf(digits, sizeof digits, "%d", index);
    path_key(out, parent, digits);
}

/* ------------------------------------------------------------------------ */
/* Typed readers. `obj` is the parent object, `parent` its path.              */

cr_status expect_object(const cJSON *v, const char *path, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    if (cJSON_IsObject(v)) return CR_OK;
    describe(v, got, sizeof got);
    return fail(err, "%s: expected an object, got %s", path, got);
}

cr_status expect_array(const cJSON *v, const char *path, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    if (cJSON_IsArray(v)) return CR_OK;
    describe(v, got, sizeof got);
    return fail(err, "%s: expected an array, got %s", path, got);
}

cr_status read_number(const cJSON *v, const char *path, num_rule rule, double *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    describe(v, got, sizeof got);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: expected a number, got %s", path, got);
    double d = v->valuedouble;
    /* JSON has no inf/nan literals, but 1e999 overflows to inf in strtod. */
    if (!isfinite(d)) return fail(err, "%s: must be finite, got %s (the number overflows a double)", path, got);
    if ((rule == POSITIVE || rule == TOLERANCE) && !(d > 0)) return fail(err, "%s: must be > 0, got %s", path, got);
    /* a subnormal is 0 to the solvers, which flush them (math/fpmode.h): a tolerance of 1e-310 would pass
       here and stop the stage as 0 (the other keys' ranges refuse subnormals with their own messages) */
    if (rule == TOLERANCE && d < DBL_MIN)
        return fail(err, "%s: must be at least 2.2e-308 (the solvers read a subnormal number as 0), got %s", path, got);
    if (rule == NONNEGATIVE && !(d >= 0)) return fail(err, "%s: must be >= 0, got %s", path, got);
    *out = d;
    return CR_OK;
}

cr_status get_number(const cJSON *obj, const char *parent, const char *key, int required, double def, num_rule rule,
                     double *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) return fail(err, "%s: missing", path);
        *out = def;
        return CR_OK;
    }
    return read_number(v, path, rule, out, err);
}

cr_status read_int(const cJSON *v, const char *path, int min, int *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    describe(v, got, sizeof got);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: expected an integer, got %s", path, got);
    double d = v->valuedouble;
    if (!isfinite(d)) return fail(err, "%s: must be finite, got %s (the number overflows a double)", path, got);
    if (d != floor(d)) return fail(err, "%s: expected an integer, got %s", path, got);
    if (d < min) return fail(err, "%s: must be >= %d, got %s", path, min, got);
    /* INT_MAX - 1 so that node counts (elements + 1) stay representable */
    if (d > INT_MAX - 1) return fail(err, "%s: must be <= %d, got %s", path, INT_MAX - 1, got);
    *out = (int)d;
    return CR_OK;
}

cr_status get_int(const cJSON *obj, const char *parent, const char *key, int required, int def, int min, int *out,
                  cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) return fail(err, "%s: missing", path);
        *out = def;
        return CR_OK;
    }
    return read_int(v, path, min, out, err);
}

cr_status get_string(const cJSON *obj, const char *parent, const char *key, const char *def, const char **out,
                     cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        *out = def;
        return CR_OK;
    }
    if (!cJSON_IsString(v)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected a string, got %s", path, got);
    }
    *out = v->valuestring;
    return CR_OK;
}

cr_status read_enum(const cJSON *v, const char *path, const char *const *choices, int *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE], list[256];
    int i = cJSON_IsString(v) ? list_index(choices, v->valuestring) : -1;
    if (i >= 0) {
        *out = i;
        return CR_OK;
    }
    describe(v, got, sizeof got);
    list_join(choices, list, sizeof list);
    return fail(err, "%s: expected one of %s, got %s", path, list, got);
}

/* def < 0: required */
cr_status get_enum(const cJSON *obj, const char *parent, const char *key, const char *const *choices, int def, int *out,
                   cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (def < 0) return fail(err, "%s: missing", path);
        *out = def;
        return CR_OK;
    }
    return read_enum(v, path, choices, out, err);
}

/* An array of exactly n finite numbers, each obeying `rule`. */
cr_status read_vector_rule(const cJSON *v, const char *path, int n, num_rule rule, double *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE], item[PATH_SIZE];
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected an array of %d numbers, got %s", path, n, got);
    }
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, ++i) {
        path_index(item, path, i);
        cr_status s = read_number(c, item, rule, &out[i], err);
        if (s) return s;
    }
    return CR_OK;
}

cr_status read_vector(const cJSON *v, const char *path, int n, double *out, cr_error *err)
{
    return read_vector_rule(v, path, n, ANY, out, err);
}

/* def NULL: required */
cr_status get_vector(const cJSON *obj, const char *parent, const char *key, int n, const double *def, double *out,
                     cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!def) return fail(err, "%s: missing", path);
        memcpy(out, def, (size_t)n * sizeof *out);
        return CR_OK;
    }
    return read_vector(v, path, n, out, err);
}

/* Scales v (n entries) to unit length. Dividing by the largest entry first
 * keeps the squared norm from overflowing (1e200) or underflowing (1e-200). */
cr_status normalize(double *v, int n, const char *path, const cJSON *src, cr_error *err)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(v[i]));
    if (m == 0) {
        char got[VALUE_TEXT_SIZE];
        describe(src, got, sizeof got);
        return fail(err, "%s: must be nonzero, got %s", path, got);
    }
    for (int i = 0; i < n; ++i) {
        v[i] /= m;
        s += v[i] * v[i];
    }
    s = sqrt(s);
    for (int i = 0; i < n; ++i) v[i] /= s;
    return CR_OK;
}

cr_status read_unit_quat(const cJSON *v, const char *path, cr_quat *out, cr_error *err)
{
    double q[4];
    cr_status s = read_vector(v, path, 4, q, err);
    if (!s) s = normalize(q, 4, path, v, err);
    if (!s) *out = cr_q_load(q);
    return s;
}

cr_status get_unit_quat(const cJSON *obj, const char *parent, const char *key, cr_quat *out, cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return fail(err, "%s: missing", path);
    return read_unit_quat(v, path, out, err);
}

/* The array at obj[key] (NULL when absent and not required). */
cr_status get_array(const cJSON *obj, const char *parent, const char *key, int required, const cJSON **out,
                    cr_error *err)
{
    char path[PATH_SIZE];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = v;
    if (!v) return required ? fail(err, "%s: missing", path) : CR_OK;
    return expect_array(v, path, err);
}

/* A node reference: "start" → 0, "end" → -1, or an index in [-(n+1), n]
 * (negative counts from the end, as cr_bc_def/cr_load_def expect). */
cr_status get_node(const cJSON *obj, const char *parent, int elements, int *out, cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, "node");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "node");
    if (!v) return fail(err, "%s: missing", path);
    describe(v, got, sizeof got);
    if (cJSON_IsString(v)) {
        if (!strcmp(v->valuestring, "start")) {
            *out = 0;
            return CR_OK;
        }
        if (!strcmp(v->valuestring, "end")) {
            *out = -1;
            return CR_OK;
        }
    } else if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble)) {
        double d = v->valuedouble;
        if (d >= -(double)elements - 1 && d <= elements) {
            *out = (int)d;
            return CR_OK;
        }
        return fail(err, "%s: node index must be in [%d, %d] (the rod has %d nodes), got %s", path, -elements - 1,
                    elements, elements + 1, got);
    }
    return fail(err, "%s: expected \"start\", \"end\" or an integer node index in [%d, %d], got %s", path,
                -elements - 1, elements, got);
}
