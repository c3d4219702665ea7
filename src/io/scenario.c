/* cosserat — scenario files: JSON (cJSON) → validated cr_scenario.
 *
 * The steps, in order: parse the text into a cJSON tree, apply `PATH=VALUE`
 * overrides to the tree, then walk the tree once, validating every value while
 * filling the definition structs. Overrides act on the tree (not on the parsed
 * structs) so an overridden value goes through exactly the checks a value from
 * the file would, and one error message format covers both.
 *
 * Which keys are allowed where is written down once (allowed_keys(), scenario_schema.c); the
 * unknown-key check and the override "may this missing key be added" check both
 * use it, so they cannot drift apart. docs/scenario.md lists the same keys.
 *
 * Every failure is CR_BAD_INPUT (CR_IO for unreadable files, CR_NO_MEMORY for
 * allocation failures) with a message that starts with the JSON path.
 *
 * This file: the root object, the overrides, the entry points and cr_scenario_destroy().
 * Each section of the tree has its own file (scenario_model.c, scenario_rod.c,
 * scenario_supports.c, scenario_bodies.c, scenario_loads.c, scenario_stages.c,
 * scenario_output.c), on the helpers of scenario_common.c and the schema of
 * scenario_schema.c; scenario_internal.h declares what they share.
 */
#include "scenario_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cr_scenario_destroy(cr_scenario *scenario)
{
    if (!scenario) return;
    scenario_storage *st = scenario->internal;
    if (st) {
        storage_free(st); /* the rods and joints too (scenario_rods.c) */
        free(st);
    }
    free(scenario->stages);
    free(scenario->output.track);
    free(scenario);
}

static cr_status parse_root(const cJSON *root, const char *default_name, cr_scenario *sc, scenario_storage *st,
                            cr_error *err)
{
    const char *name = "", *desc = "";
    cr_status s;
    if ((s = check_keys(root, "", K_ROOT, err))) return s;
    if ((s = get_string(root, "", "name", default_name, &name, err))) return s;
    if (!*name) return fail(err, "name: must not be empty");
    if (strlen(name) >= sizeof sc->name)
        return fail(err, "name: longer than %d characters", (int)sizeof sc->name - 1);
    memcpy(sc->name, name, strlen(name) + 1);
    if ((s = get_string(root, "", "description", "", &desc, err))) return s;
    if ((s = parse_model(root, &sc->model, err))) return s;
    if ((s = parse_rods(root, sc, st, err))) return s; /* "rod", or "rods" (scenario_rods.c) */
    if ((s = parse_bcs(root, &sc->rod, st, err))) return s;
    if ((s = parse_rigid_bodies(root, &sc->rod, st, err))) return s;
    if ((s = parse_loads(root, &sc->rod, st, err))) return s;
    if ((s = parse_obstacles(root, &sc->rod, st, err))) return s;
    if ((s = parse_stages(root, sc, err))) return s;
    if ((s = parse_stage_masks(root, sc, st, err))) return s;
    if ((s = parse_joints(root, sc, st, err))) return s;
    if ((s = finish_rods(sc, st, err))) return s;
    if (cr_scenario_is_assembly(sc)) { /* names, references, coincident points (rods.K..., joints.K...) */
        cr_assembly_def a = {.rod_count = sc->rod_count,
                             .rods = sc->rods,
                             .joint_count = sc->joint_count,
                             .joints = sc->joints,
                             .body_count = sc->body_count,
                             .bodies = sc->bodies,
                             .body_load_count = sc->body_load_count,
                             .body_loads = sc->body_loads};
        if ((s = cr_assembly_validate(&a, err))) return s;
    }
    return parse_output(root, sc, err);
}

/* ------------------------------------------------------------------------ */
/* Overrides.                                                                 */

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    return "a value";
}

/* Applies one "PATH=VALUE" to the tree. Every PATH component but the last must
 * exist; the last may be missing only when the schema allows that key there,
 * so a typo is reported instead of silently adding an ignored key. */
/* cJSON reads a number as the longest run of [0-9+-.eE] and hands it to strtod, so it also
 * takes 0125, 125., -.5 and 1.e5, which JSON (RFC 8259) refuses: a strict parser must, or a
 * file that other tools reject (or read as octal) would pass `check`. Returns the start of
 * the first number outside strings that is not -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * or NULL; *length gets the length of its run. */
static const char *bad_json_number(const char *json, size_t *length)
{
    const char *p = json;
    while (*p) {
        if (*p == '"') { /* skip a string, escapes included */
            for (++p; *p && *p != '"'; ++p)
                if (*p == '\\' && p[1]) ++p;
            if (*p) ++p;
            continue;
        }
        if (isalpha((unsigned char)*p)) { /* true, false, null (or a syntax error cJSON reported) */
            while (isalnum((unsigned char)*p)) ++p;
            continue;
        }
        if (*p != '-' && !isdigit((unsigned char)*p)) {
            ++p;
            continue;
        }
        const char *start = p, *q = p;
        size_t n = strspn(p, "0123456789+-.eE");
        if (*q == '-') ++q;
        int ok = 1;
        if (*q == '0')
            ++q;
        else if (isdigit((unsigned char)*q))
            while (isdigit((unsigned char)*q)) ++q;
        else
            ok = 0;
        if (ok && *q == '.') {
            ++q;
            if (!isdigit((unsigned char)*q)) ok = 0;
            while (isdigit((unsigned char)*q)) ++q;
        }
        if (ok && (*q == 'e' || *q == 'E')) {
            ++q;
            if (*q == '+' || *q == '-') ++q;
            if (!isdigit((unsigned char)*q)) ok = 0;
            while (isdigit((unsigned char)*q)) ++q;
        }
        if (!ok || q != start + n) {
            *length = n;
            return start;
        }
        p = start + n;
    }
    return NULL;
}

static cr_status apply_override(cJSON *root, const char *text, cr_error *err)
{
    char path[PATH_SIZE], walked[PATH_SIZE], here[PATH_SIZE], list[256];
    const char *eq = strchr(text, '=');
    if (!eq) return fail(err, "override \"%s\": expected PATH=VALUE", text);
    size_t plen = (size_t)(eq - text);
    if (plen == 0) return fail(err, "override \"%s\": empty PATH", text);
    if (plen >= sizeof path) return fail(err, "override \"%s\": PATH longer than %d characters", text, PATH_SIZE - 1);
    memcpy(path, text, plen);
    path[plen] = '\0';
    const char *value = eq + 1;

    cJSON *node = root;
    node_kind kind = K_ROOT;
    walked[0] = '\0';
    char *comp = path;
    for (;;) {
        char *dot = strchr(comp, '.');
        int last = dot == NULL;
        if (dot) *dot = '\0';
        path_key(here, walked, comp);
        if (!*comp) return fail(err, "override \"%s\": empty component in PATH", text);

        cJSON *child = NULL;
        int index = -1;
        if (cJSON_IsObject(node)) {
            child = cJSON_GetObjectItemCaseSensitive(node, comp);
            if (!child) {
                const char *what;
                const char *const *allowed = allowed_keys(kind, node, &what);
                /* a missing object on the way is created (output.vtk=false on a scenario without
                 * "output"); a missing list is not: which entry would the index name? */
                if (!last && allowed && list_index(allowed, comp) >= 0) {
                    node_kind ck = child_kind(kind, comp);
                    const char *cwhat;
                    cJSON *made = cJSON_CreateObject();
                    if (!made) return no_memory(err);
                    if (!allowed_keys(ck, made, &cwhat)) {
                        cJSON_Delete(made);
                        return fail(err,
                                    "override \"%s\": %s does not exist in the scenario (set the whole "
                                    "value instead, e.g. %s=%s)",
                                    text, here, here, ck == K_LEAF ? "..." : "[...]");
                    }
                    if (!cJSON_AddItemToObject(node, comp, made)) {
                        cJSON_Delete(made);
                        return no_memory(err);
                    }
                    child = made;
                } else if (!last || !allowed || list_index(allowed, comp) < 0) {
                    if (allowed) {
                        list_join(allowed, list, sizeof list);
                        return fail(err, "override \"%s\": %s: unknown key%s%s (expected one of %s)", text, here,
                                    what ? " for " : "", what ? what : "", list);
                    }
                    return fail(err, "override \"%s\": %s: unknown key", text, here);
                }
            }
        } else if (cJSON_IsArray(node)) {
            int size = cJSON_GetArraySize(node);
            size_t digits = strspn(comp, "0123456789");
            if (digits != strlen(comp)) {
                if (size == 0)
                    return fail(err, "override \"%s\": %s: %s is an empty array", text, here, walked);
                return fail(err, "override \"%s\": %s: %s is an array, expected an index in [0, %d]", text, here,
                            walked, size - 1);
            }
            /* more than 9 digits cannot be an index of a parsed array (and would overflow) */
            long k = digits <= 9 ? strtol(comp, NULL, 10) : LONG_MAX;
            if (k >= size)
                return fail(err, "override \"%s\": %s: index past the end of %s (which has %d %s)", text, here,
                            walked, size, size == 1 ? "entry" : "entries");
            index = (int)k;
            child = cJSON_GetArrayItem(node, index);
        } else {
            return fail(err, "override \"%s\": %s: %s is %s, not an object or array", text, here, walked,
                        json_type_name(node));
        }

        if (last) {
            /* `PATH=null` removes an object key, so one file serves formulations whose
             * keys differ (e.g. a fixed-step formulation's time_step for the mixed rod) */
            if (!strcmp(value, "null") && index < 0) {
                if (child) cJSON_DeleteItemFromObjectCaseSensitive(node, comp);
                return CR_OK;
            }
            /* VALUE is JSON when it parses (numbers, booleans, arrays, quoted
             * strings), else the raw text, so `name=foo` needs no quotes. */
            size_t bad_length;
            cJSON *v = bad_json_number(value, &bad_length) ? NULL : cJSON_ParseWithOpts(value, NULL, 1);
            if (!v) v = cJSON_CreateString(value);
            if (!v) return no_memory(err);
            /* model=NAME on a model object switches its type and keeps its options, so that an
             * option the new formulation does not have is refused, naming it, instead of being
             * dropped with the object (replace the whole object with model={"type": NAME}) */
            if (kind == K_ROOT && !strcmp(comp, "model") && cJSON_IsObject(child) && cJSON_IsString(v)) {
                node = child;
                child = cJSON_GetObjectItemCaseSensitive(node, "type");
                strcpy(comp, "type");
            }
            cJSON_bool ok;
            if (index >= 0)
                ok = cJSON_ReplaceItemInArray(node, index, v);
            else if (child) /* (not ReplaceItemViaPointer: that leaves the new item without its key) */
                ok = cJSON_ReplaceItemInObjectCaseSensitive(node, comp, v);
            else
                ok = cJSON_AddItemToObject(node, comp, v);
            if (!ok) {
                cJSON_Delete(v);
                return no_memory(err);
            }
            return CR_OK;
        }
        kind = child_kind(kind, index >= 0 ? NULL : comp);
        node = child;
        memcpy(walked, here, sizeof walked);
        comp = dot + 1;
    }
}

/* ------------------------------------------------------------------------ */
/* Entry points.                                                              */

/* Line and column (from 1) of offset off in text. */
static void line_column(const char *text, size_t off, int *line, int *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < off && text[i]; ++i) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static cr_status load(const char *json, const char *source, const char *default_name, const char *const *overrides,
                      int override_count, cr_scenario **out, cr_error *err)
{
    cr_status s;
    if (!out) return fail(err, "cr_scenario_load: out is NULL");
    *out = NULL;
    if (!json) return fail(err, "cr_scenario_load: the scenario text is NULL");
    if (override_count < 0 || (override_count > 0 && !overrides))
        return fail(err, "cr_scenario_load: bad override list (count %d)", override_count);

    /* return_parse_end rather than cJSON_GetErrorPtr(): same position, but not
     * a global shared between threads. */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
    if (!root) {
        size_t off = end ? (size_t)(end - json) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < off && json[i]; ++i) {
            if (json[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        /* cJSON stops at CJSON_NESTING_LIMIT levels: say so rather than "syntax error" */
        int depth = 0, max_depth = 0, in_string = 0;
        for (size_t i = 0; i < off && json[i]; ++i) {
            char ch = json[i];
            if (in_string) {
                if (ch == '\\' && json[i + 1]) ++i;
                else if (ch == '"') in_string = 0;
            } else if (ch == '"') {
                in_string = 1;
            } else if (ch == '[' || ch == '{') {
                if (++depth > max_depth) max_depth = depth;
            } else if (ch == ']' || ch == '}') {
                --depth;
            }
        }
        if (max_depth >= CJSON_NESTING_LIMIT)
            return fail(err, "%s: JSON nesting deeper than %d levels at line %d, column %d (arrays and objects "
                             "nested in each other)", source, (int)CJSON_NESTING_LIMIT, line, col);
        char near[32];
        size_t k = 0;
        for (const char *p = json + off; *p && *p != '\n' && k < 20; ++p)
            near[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
        near[k] = '\0';
        if (k)
            return fail(err, "%s: JSON syntax error at line %d, column %d (near \"%s\")", source, line, col, near);
        return fail(err, "%s: JSON syntax error at line %d, column %d (at the end of the input)", source, line, col);
    }
    size_t bad_length = 0;
    const char *bad = bad_json_number(json, &bad_length);
    if (bad) {
        int line, col;
        line_column(json, (size_t)(bad - json), &line, &col);
        cJSON_Delete(root);
        return fail(err,
                    "%s: JSON syntax error at line %d, column %d: \"%.*s\" is not a JSON number (no leading "
                    "zeros, digits on both sides of the decimal point)",
                    source, line, col, (int)(bad_length < 24 ? bad_length : 24), bad);
    }
    if (!cJSON_IsObject(root)) {
        char got[VALUE_TEXT_SIZE];
        describe(root, got, sizeof got);
        cJSON_Delete(root);
        return fail(err, "%s: expected a JSON object at the top level, got %s", source, got);
    }
    for (int i = 0; i < override_count; ++i) {
        if (!overrides[i]) {
            cJSON_Delete(root);
            return fail(err, "override %d is NULL", i);
        }
        if ((s = apply_override(root, overrides[i], err))) {
            cJSON_Delete(root);
            return s;
        }
    }

    cr_scenario *sc = calloc(1, sizeof *sc);
    scenario_storage *st = calloc(1, sizeof *st);
    if (!sc || !st) {
        free(sc);
        free(st);
        cJSON_Delete(root);
        return no_memory(err);
    }
    sc->internal = st;
    s = parse_root(root, default_name, sc, st, err);
    cJSON_Delete(root);
    if (s) {
        cr_scenario_destroy(sc);
        return s;
    }
    *out = sc;
    if (err) {
        err->status = CR_OK;
        err->message[0] = '\0';
    }
    return CR_OK;
}

cr_status cr_scenario_load_string(const char *json, const char *const *overrides, int override_count,
                                  cr_scenario **out, cr_error *err)
{
    return load(json, "scenario", "scenario", overrides, override_count, out, err);
}

cr_status cr_scenario_load_file(const char *path, const char *const *overrides, int override_count,
                                cr_scenario **out, cr_error *err)
{
    if (out) *out = NULL;
    if (!path) return fail(err, "cr_scenario_load_file: path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f) return cr_error_set(err, CR_IO, "%s: cannot open scenario file: %s", path, strerror(errno));
    /* Read in chunks rather than trusting ftell, so pipes and /dev/stdin work. */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        char *grown = realloc(buf, 2 * cap + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f), saved = errno;
    fclose(f);
    if (!buf) return no_memory(err);
    if (failed) {
        free(buf);
        return cr_error_set(err, CR_IO, "%s: cannot read scenario file: %s", path, strerror(saved));
    }
    buf[len] = '\0';
    /* cJSON stops at a NUL; text after it would be silently dropped. */
    if (memchr(buf, '\0', len)) {
        size_t at = (size_t)((char *)memchr(buf, '\0', len) - buf);
        free(buf);
        return fail(err, "%s: not a text file (NUL byte at offset %zu)", path, at);
    }

    /* default name: the file name without directories and extension */
    char name[256];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(name, sizeof name, "%s", base);
    char *ext = strrchr(name, '.');
    if (ext && ext != name) *ext = '\0';
    if (!*name) snprintf(name, sizeof name, "scenario");

    cr_status s = load(buf, path, name, overrides, override_count, out, err);
    free(buf);
    return s;
}
