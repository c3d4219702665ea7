/* cosserat — scenario files, the "output" section, with output.track.
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* enum choices; index = the C enum value */
static const char *const VTK_FORMAT_CHOICES[] = {"binary", "ascii", "compressed", NULL}; /* cr_vtk_format order */

/* output.track: the recorded points. Which formulation node a point is, and whether its
 * columns clash with other series.csv columns, is checked by the runner (run.c), which
 * knows the formulation's nodes and columns. */
static cr_status parse_track(const cJSON *output, cr_scenario *sc, cr_error *err)
{
    const char *path = "output.track";
    const cJSON *list = output ? cJSON_GetObjectItemCaseSensitive(output, "track") : NULL;
    const cr_rod_def *rod = &sc->rod;
    cr_status s;
    if (!list && cr_scenario_is_assembly(sc)) return CR_OK; /* several rods: no default point (docs) */
    if (!list) {
        /* the free end: the last node, unless it is held and the first one is not */
        int held_first = 0, held_last = 0;
        for (int k = 0; k < rod->bc_count; ++k) {
            int node = rod->bcs[k].node < 0 ? rod->bcs[k].node + rod->elements + 1 : rod->bcs[k].node;
            held_first |= node == 0;
            held_last |= node == rod->elements;
        }
        /* named "tip" (the columns tip_x, tip_y, tip_z series.csv always had), or "rod_tip"
         * when a rigid body called "tip" has those columns */
        int body_tip = 0;
        for (int k = 0; k < rod->rigid_body_count; ++k) body_tip |= !strcmp(rod->rigid_bodies[k].name, "tip");
        if (!(sc->output.track = calloc(1, sizeof *sc->output.track))) return no_memory(err);
        sc->output.track_count = 1;
        snprintf(sc->output.track[0].name, CR_TRACK_NAME_SIZE, "%s", body_tip ? "rod_tip" : "tip");
        sc->output.track[0].node = held_last && !held_first ? 0 : -1;
        return CR_OK;
    }
    if ((s = expect_array(list, path, err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n > CR_TRACK_MAX) return fail(err, "%s: at most %d points, got %d", path, CR_TRACK_MAX, n);
    if (n > 0 && !(sc->output.track = calloc((size_t)n, sizeof *sc->output.track))) return no_memory(err);
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        char item[PATH_SIZE], key[PATH_SIZE], got[VALUE_TEXT_SIZE];
        cr_track_def *t = &sc->output.track[i];
        path_index(item, path, i);
        if ((s = expect_object(c, item, err)) || (s = check_keys(c, item, K_TRACK, err))) return s;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
        path_key(key, item, "name");
        if (!name) return fail(err, "%s: missing", key);
        describe(name, got, sizeof got);
        if (!cJSON_IsString(name)) return fail(err, "%s: expected a string, got %s", key, got);
        size_t len = strlen(name->valuestring);
        if (len < 1 || len >= CR_TRACK_NAME_SIZE || strspn(name->valuestring,
                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                           "0123456789_") != len)
            return fail(err, "%s: expected 1-%d characters of A-Z, a-z, 0-9 and _ (it names series.csv columns), "
                             "got %s", key, CR_TRACK_NAME_SIZE - 1, got);
        for (int j = 0; j < i; ++j)
            if (!strcmp(sc->output.track[j].name, name->valuestring))
                return fail(err, "%s: %s is already the name of output.track.%d", key, got, j);
        memcpy(t->name, name->valuestring, len + 1);
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(c, "node"), *sv = cJSON_GetObjectItemCaseSensitive(c, "s");
        if (node && sv) return fail(err, "%s: give either node or s, not both", item);
        if (!node && !sv) return fail(err, "%s: missing node or s (a node reference, or an arc length in m)", item);
        if (node) {
            node_ref ref;
            if ((s = get_rod_node(c, item, "node", rod, sc->internal, &ref, err))) return s;
            t->rod = ref.rod, t->node = ref.node, t->by_s = ref.by_s, t->s = ref.s;
            if (cJSON_GetObjectItemCaseSensitive(c, "rod"))
                return fail(err, "%s.rod: the node reference names the rod", item);
            continue;
        }
        if ((s = get_rod_name(c, item, sc->internal, 0, &t->rod, err))) return s;
        if (cr_scenario_is_assembly(sc) && sc->rod_count > 1 && !cJSON_GetObjectItemCaseSensitive(c, "rod"))
            return fail(err, "%s.rod: missing (the rod of the arc length s)", item);
        rod = &sc->rods[t->rod].rod;
        path_key(key, item, "s");
        if ((s = read_number(sv, key, NONNEGATIVE, &t->s, err))) return s;
        if (t->s > rod->length) {
            char len_text[32];
            format_number(rod->length, len_text, sizeof len_text);
            describe(sv, got, sizeof got);
            if (sc->rod_count > 1)
                return fail(err, "%s: must be in [0, %s] (the length of rod \"%s\"), got %s", key, len_text,
                            sc->rods[t->rod].name, got);
            return fail(err, "%s: must be in [0, %s] (rod.length), got %s", key, len_text, got);
        }
        t->by_s = 1;
    }
    sc->output.track_count = n;
    return CR_OK;
}

cr_status parse_output(const cJSON *root, cr_scenario *sc, cr_error *err)
{
    const char *path = "output";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "output");
    const char *dir = NULL;
    cr_status s;
    sc->output.vtk = 1;
    sc->output.vtk_format = CR_VTK_BINARY;
    if (v) {
        if ((s = expect_object(v, path, err)) || (s = check_keys(v, path, K_OUTPUT, err))) return s;
        if ((s = get_string(v, path, "directory", NULL, &dir, err))) return s;
        const cJSON *vtk = cJSON_GetObjectItemCaseSensitive(v, "vtk");
        if (vtk) {
            char got[VALUE_TEXT_SIZE];
            if (!cJSON_IsBool(vtk)) {
                describe(vtk, got, sizeof got);
                return fail(err, "output.vtk: expected true or false, got %s", got);
            }
            sc->output.vtk = cJSON_IsTrue(vtk);
        }
        const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(v, "vtk_format");
        int k;
        if (fmt) {
            if ((s = read_enum(fmt, "output.vtk_format", VTK_FORMAT_CHOICES, &k, err))) return s;
            sc->output.vtk_format = (cr_vtk_format)k;
        }
    }
    if ((s = parse_track(v, sc, err))) return s;
    if (dir) {
        if (!*dir) return fail(err, "output.directory: must not be empty");
        if (strlen(dir) >= sizeof sc->output.directory)
            return fail(err, "output.directory: longer than %d characters", (int)sizeof sc->output.directory - 1);
        memcpy(sc->output.directory, dir, strlen(dir) + 1);
    } else {
        int w = snprintf(sc->output.directory, sizeof sc->output.directory, "out/%s", sc->name);
        (void)w; /* name < 256 characters always fits */
    }
    return CR_OK;
}
