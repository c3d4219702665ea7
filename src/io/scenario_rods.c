/* cosserat — scenario files, assemblies: the "rods" section (named rods, each what "rod" is),
 * node references that name the rod ("arm:end", {"rod": "arm", "s": 0.2}), and the split of
 * the top-level lists (supports, loads, rigid bodies) rod by rod once they are parsed.
 *
 * The lists stay top-level, as for one rod: each entry names its rod through its node
 * reference (or "rod" for a distributed load). They are parsed in one pass into the
 * storage's arrays, with the rod of every entry on the side, and split into per-rod arrays
 * at the end (finish_rods), so the stage masks and every message keep the list's own index.
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void storage_free(scenario_storage *st)
{
    if (!st) return;
    free(st->sections);
    free(st->bcs);
    free(st->loads);
    for (int i = 0; i < st->table_count; ++i) free(st->tables[i]);
    free(st->tables);
    free(st->positions);
    free(st->orientations);
    free(st->bodies);
    for (int i = 0; i < st->time_table_count; ++i) free(st->time_tables[i]);
    free(st->time_tables);
    for (int i = 0; i < st->bc_time_table_count; ++i) free(st->bc_time_tables[i]);
    free(st->bc_time_tables);
    for (int i = 0; st->bc_motions && i < st->bc_time_table_count; ++i) free(st->bc_motions[i]);
    free(st->bc_motions);
    free(st->obstacles);
    for (int i = 0; i < st->obstacle_alloc; ++i) free(st->obstacle_motions[i]), free(st->obstacle_time_tables[i]);
    free(st->obstacle_motions), free(st->obstacle_times), free(st->obstacle_time_tables);
    for (int r = 0; st->rod_storage && r < st->rod_count; ++r) storage_free(&st->rod_storage[r]);
    free(st->rod_storage);
    free(st->rods);
    free(st->bc_rod);
    free(st->load_rod);
    free(st->body_rod);
    free(st->rod_bcs);
    free(st->rod_loads);
    free(st->rod_bodies);
    free(st->free_bodies), free(st->welded_bodies), free(st->free_loads), free(st->kept_loads);
    if (st->joint_time_tables)
        for (int i = 0; i < st->joint_count_alloc; ++i) free(st->joint_time_tables[i]);
    free(st->joint_time_tables);
    free(st->joints);
}

const cr_rod_def *rod_def_of(const cr_rod_def *def, const scenario_storage *st, int rod)
{
    return st->multi ? &st->rods[rod].rod : def;
}

static const char *rod_name(const scenario_storage *st, int rod) { return st->multi ? st->rods[rod].name : "rod"; }
static int rod_total(const scenario_storage *st) { return st->multi ? st->rod_count : 1; }

/* "a, b, c": the rods' names, for messages */
static void rod_names(const scenario_storage *st, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int r = 0; r < rod_total(st) && k + 1 < n; ++r) {
        int w = snprintf(buf + k, n - k, "%s%s", r ? ", " : "", rod_name(st, r));
        if (w < 0) break;
        k += (size_t)w;
    }
}

static cr_status find_rod(const char *name, size_t len, const char *path, const scenario_storage *st, int *out,
                          cr_error *err)
{
    char names[256];
    for (int r = 0; r < rod_total(st); ++r)
        if (strlen(rod_name(st, r)) == len && !strncmp(rod_name(st, r), name, len)) {
            *out = r;
            return CR_OK;
        }
    rod_names(st, names, sizeof names);
    return fail(err, "%s: unknown rod \"%.*s\" (expected one of %s)", path, (int)len, name, names);
}

/* The node of rod `def` nearest to the reference arc length s: nodes at s = L i / n, or at
 * the chord lengths of a nodes reference. */
static int nearest_node(const cr_rod_def *def, double s)
{
    int n = def->elements;
    if (def->reference.type != CR_REFERENCE_NODES || !def->reference.node_positions) {
        int i = (int)floor(s / def->length * n + 0.5);
        return i < 0 ? 0 : i > n ? n : i;
    }
    int best = 0;
    double at = 0, dist = fabs(s);
    for (int i = 1; i <= n; ++i) {
        at += cr_v3_norm(cr_v3_sub(def->reference.node_positions[i], def->reference.node_positions[i - 1]));
        if (fabs(at - s) < dist) dist = fabs(at - s), best = i;
    }
    return best;
}

static cr_status node_in_rod(const cJSON *v, const char *path, const cr_rod_def *def, const char *name, double d,
                             int *out, cr_error *err)
{
    char got[VALUE_TEXT_SIZE];
    int e = def->elements;
    if (isfinite(d) && d == floor(d) && d >= -(double)e - 1 && d <= e) {
        *out = (int)d;
        return CR_OK;
    }
    describe(v, got, sizeof got);
    return fail(err, "%s: node index must be in [%d, %d] (rod \"%s\" has %d nodes), got %s", path, -e - 1, e, name,
                e + 1, got);
}

cr_status get_rod_node(const cJSON *obj, const char *parent, const char *key, const cr_rod_def *def,
                       const scenario_storage *st, node_ref *out, cr_error *err)
{
    char path[PATH_SIZE], sub[PATH_SIZE], got[VALUE_TEXT_SIZE], names[256];
    path_key(path, parent, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_status s;
    out->rod = 0, out->node = 0, out->by_s = 0, out->s = 0;
    if (!v) return fail(err, "%s: missing", path);
    describe(v, got, sizeof got);
    if (cJSON_IsObject(v)) { /* {"rod": NAME, "s": S} */
        for (const cJSON *c = v->child; c; c = c->next)
            if (strcmp(c->string, "rod") && strcmp(c->string, "s")) {
                path_key(sub, path, c->string);
                return fail(err, "%s: unknown key for a node reference (expected one of rod, s)", sub);
            }
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "rod");
        path_key(sub, path, "rod");
        if (!r && st->multi) return fail(err, "%s: missing (the name of a rod)", sub);
        if (r && !cJSON_IsString(r)) {
            describe(r, got, sizeof got);
            return fail(err, "%s: expected the name of a rod (a string), got %s", sub, got);
        }
        if (r && (s = find_rod(r->valuestring, strlen(r->valuestring), sub, st, &out->rod, err))) return s;
        const cr_rod_def *rd = rod_def_of(def, st, out->rod);
        path_key(sub, path, "s");
        if ((s = get_number(v, path, "s", 1, 0, NONNEGATIVE, &out->s, err))) return s;
        if (out->s > rd->length) {
            char len_text[32];
            format_number(rd->length, len_text, sizeof len_text);
            describe(cJSON_GetObjectItemCaseSensitive(v, "s"), got, sizeof got);
            return fail(err, "%s: must be in [0, %s] (the length of rod \"%s\"), got %s", sub, len_text,
                        rod_name(st, out->rod), got);
        }
        out->by_s = 1;
        out->node = nearest_node(rd, out->s);
        return CR_OK;
    }
    if (cJSON_IsString(v) && strchr(v->valuestring, ':')) { /* "ROD:start", "ROD:end", "ROD:INDEX" */
        const char *text = v->valuestring, *colon = strrchr(text, ':');
        if ((s = find_rod(text, (size_t)(colon - text), path, st, &out->rod, err))) return s;
        const cr_rod_def *rd = rod_def_of(def, st, out->rod);
        const char *which = colon + 1;
        if (!strcmp(which, "start")) return CR_OK;
        if (!strcmp(which, "end")) {
            out->node = -1;
            return CR_OK;
        }
        char *end = NULL;
        long k = *which ? strtol(which, &end, 10) : 0;
        if (!*which || *end || strspn(which, "-0123456789") != strlen(which))
            return fail(err, "%s: expected \"ROD:start\", \"ROD:end\" or \"ROD:INDEX\" (an integer node index), got %s",
                        path, got);
        return node_in_rod(v, path, rd, rod_name(st, out->rod), k < -1000000000L || k > 1000000000L ? NAN : (double)k,
                           &out->node, err);
    }
    if (st->multi) {
        rod_names(st, names, sizeof names);
        return fail(err,
                    "%s: name the rod: \"ROD:start\", \"ROD:end\", \"ROD:INDEX\" or {\"rod\": ROD, \"s\": S} "
                    "(the rods: %s), got %s",
                    path, names, got);
    }
    if (!strcmp(key, "node")) return get_node(obj, parent, def->elements, &out->node, err);
    cJSON wrapper = {0}; /* get_node reads obj["node"]: the same forms under another key */
    cJSON copy = *v;
    copy.next = copy.prev = NULL;
    copy.string = "node";
    wrapper.type = cJSON_Object;
    wrapper.child = &copy;
    if ((s = get_node(&wrapper, parent, def->elements, &out->node, err)) != CR_OK && err) {
        /* the message names PARENT.node: name the key */
        char *at = strstr(err->message, ".node:");
        if (at && strlen(key) < 8) {
            char rest[sizeof err->message];
            snprintf(rest, sizeof rest, "%s", at + 5);
            snprintf(at, sizeof err->message - (size_t)(at - err->message), ".%s%s", key, rest);
        }
    }
    return s;
}

cr_status get_rod_name(const cJSON *obj, const char *parent, const scenario_storage *st, int dflt, int *out,
                       cr_error *err)
{
    char path[PATH_SIZE], got[VALUE_TEXT_SIZE];
    path_key(path, parent, "rod");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "rod");
    *out = dflt;
    if (!v) return CR_OK;
    if (!cJSON_IsString(v)) {
        describe(v, got, sizeof got);
        return fail(err, "%s: expected the name of a rod (a string), got %s", path, got);
    }
    return find_rod(v->valuestring, strlen(v->valuestring), path, st, out, err);
}

cr_status parse_rods(const cJSON *root, cr_scenario *sc, scenario_storage *st, cr_error *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "rods");
    cr_status s;
    if (!list) {
        if ((s = parse_rod(root, &sc->rod, st, err))) return s;
        st->rod_count = 1;
        return CR_OK;
    }
    if (cJSON_GetObjectItemCaseSensitive(root, "rod"))
        return fail(err, "rods: give either rod (one rod) or rods (an assembly of named rods), not both");
    if ((s = expect_array(list, "rods", err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n < 1) return fail(err, "rods: expected at least 1 rod, got []");
    st->multi = 1;
    st->rods = calloc((size_t)n, sizeof *st->rods);
    st->rod_storage = calloc((size_t)n, sizeof *st->rod_storage);
    if (!st->rods || !st->rod_storage) return no_memory(err);
    st->rod_count = n;
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        char path[PATH_SIZE], key[PATH_SIZE], got[VALUE_TEXT_SIZE];
        const char *name;
        path_index(path, "rods", i);
        if ((s = expect_object(c, path, err)) || (s = check_keys(c, path, K_ROD_ITEM, err))) return s;
        path_key(key, path, "name");
        if (!cJSON_GetObjectItemCaseSensitive(c, "name")) return fail(err, "%s: missing", key);
        if ((s = get_string(c, path, "name", "", &name, err))) return s;
        describe(cJSON_GetObjectItemCaseSensitive(c, "name"), got, sizeof got);
        /* a name is the part of "NAME:end" before the colon, and a column label */
        if (!*name || strlen(name) >= sizeof st->rods[i].name || strpbrk(name, ":,\"\\\n") ||
            strspn(name, " ") == strlen(name))
            return fail(err, "%s: expected 1-%d characters without ':', ',', '\"' and '\\', got %s", key,
                        (int)sizeof st->rods[i].name - 1, got);
        for (int j = 0; j < i; ++j)
            if (!strcmp(st->rods[j].name, name)) return fail(err, "%s: %s is already the name of rods.%d", key, got, j);
        memcpy(st->rods[i].name, name, strlen(name) + 1);
        st->rods[i].rod = cr_rod_default_def();
        if ((s = parse_rod_object(c, path, &st->rods[i].rod, &st->rod_storage[i], err))) return s;
        if (st->rods[i].rod.reference.type == CR_REFERENCE_NODES) {
            st->rods[i].rod.reference.node_positions = st->rod_storage[i].positions;
            st->rods[i].rod.reference.node_orientations = st->rod_storage[i].orientations;
        }
        st->rods[i].rod.bc_count = st->rods[i].rod.load_count = st->rods[i].rod.rigid_body_count = 0;
    }
    /* while the lists are parsed, `rod` is the first rod (the lists' entries find their rod
     * through st->rods) */
    sc->rod = st->rods[0].rod;
    return CR_OK;
}

/* Splits the parsed lists rod by rod (a gravity load without "rod" goes to every rod; a load
 * on a rigid body to that body's rod, with the body's index in its rod), and fills the
 * scenario's rods and joints. */
/* The free bodies (rigid_bodies without node) out of the parsed lists: into the scenario's
 * bodies, their loads and every gravity load into its body_loads (body: the free body's
 * index), the welded bodies and the rods' loads kept in the lists (bodies renumbered). */
static cr_status split_free_bodies(cr_scenario *sc, scenario_storage *st, cr_error *err)
{
    cr_rod_def *all = &sc->rod;
    const int nb = all->rigid_body_count, nl = all->load_count;
    int nfree = 0;
    for (int i = 0; i < nb; ++i) nfree += st->body_rod[i] == -1;
    sc->body_count = 0, sc->bodies = NULL, sc->body_load_count = 0, sc->body_loads = NULL;
    if (nfree == 0) return CR_OK;
    int *index = calloc((size_t)nb, sizeof *index), *rod_of = calloc((size_t)nb, sizeof *rod_of);
    st->free_bodies = calloc((size_t)nfree, sizeof *st->free_bodies);
    st->welded_bodies = calloc((size_t)nb, sizeof *st->welded_bodies);
    st->free_loads = calloc((size_t)(nl > 0 ? nl : 1), sizeof *st->free_loads);
    st->kept_loads = calloc((size_t)(nl > 0 ? nl : 1), sizeof *st->kept_loads);
    int *load_rod = calloc((size_t)(nl > 0 ? nl : 1), sizeof *load_rod);
    if (!index || !rod_of || !st->free_bodies || !st->welded_bodies || !st->free_loads || !st->kept_loads ||
        !load_rod) {
        free(index), free(rod_of), free(load_rod);
        return no_memory(err);
    }
    int nf = 0, nw = 0;
    for (int i = 0; i < nb; ++i) {
        if (st->body_rod[i] == -1) {
            int held = 0;
            for (int k = 0; k < sc->joint_count && !held; ++k)
                held = sc->joints[k].body_a == i + 1 || sc->joints[k].body_b == i + 1;
            if (!held) {
                free(index), free(rod_of), free(load_rod);
                return fail(err,
                            "rigid_bodies.%d.node: missing (give node to weld the body to a rod, or name the body "
                            "in a joint to make it a free body)",
                            i);
            }
            index[i] = nf, st->free_bodies[nf++] = all->rigid_bodies[i];
        } else
            index[i] = nw, rod_of[nw] = st->body_rod[i], st->welded_bodies[nw++] = all->rigid_bodies[i];
    }
    /* the joints' ends: the free body's index + 1 */
    for (int k = 0; k < sc->joint_count; ++k) {
        if (sc->joints[k].body_a) sc->joints[k].body_a = index[sc->joints[k].body_a - 1] + 1;
        if (sc->joints[k].body_b) sc->joints[k].body_b = index[sc->joints[k].body_b - 1] + 1;
    }
    int kf = 0, kk = 0;
    for (int i = 0; i < nl; ++i) {
        cr_load_def ld = all->loads[i];
        const int on_free = ld.body >= 0 && st->body_rod[ld.body] == -1;
        if (on_free || (ld.type == CR_LOAD_GRAVITY && (!st->multi || st->load_rod[i] == -1))) {
            cr_load_def fl = ld;
            fl.body = on_free ? index[ld.body] : -1;
            st->free_loads[kf++] = fl;
        }
        if (on_free) continue;
        if (ld.body >= 0) ld.body = index[ld.body];
        load_rod[kk] = st->load_rod[i];
        st->kept_loads[kk++] = ld;
    }
    memcpy(st->load_rod, load_rod, (size_t)kk * sizeof *load_rod);
    memcpy(st->body_rod, rod_of, (size_t)nw * sizeof *rod_of);
    free(index), free(rod_of), free(load_rod);
    all->rigid_body_count = nw, all->rigid_bodies = nw ? st->welded_bodies : NULL;
    all->load_count = kk, all->loads = kk ? st->kept_loads : NULL;
    sc->body_count = nf, sc->bodies = st->free_bodies;
    sc->body_load_count = kf, sc->body_loads = kf ? st->free_loads : NULL;
    return CR_OK;
}

cr_status finish_rods(cr_scenario *sc, scenario_storage *st, cr_error *err)
{
    cr_status sf = split_free_bodies(sc, st, err);
    if (sf != CR_OK) return sf;
    if (!st->multi) {
        if (!(sc->rods = calloc(1, sizeof *sc->rods))) return no_memory(err);
        snprintf(sc->rods[0].name, sizeof sc->rods[0].name, "rod");
        sc->rods[0].rod = sc->rod;
        sc->rod_count = 1;
        st->rods = sc->rods; /* freed with the storage */
        return CR_OK;
    }
    const cr_rod_def *all = &sc->rod; /* the whole lists, as parsed */
    int nb = all->bc_count, nl = all->load_count, nr = all->rigid_body_count, R = st->rod_count;
    st->rod_bcs = calloc((size_t)(nb > 0 ? nb : 1), sizeof *st->rod_bcs);
    st->rod_loads = calloc((size_t)(nl > 0 ? nl * R : 1), sizeof *st->rod_loads);
    st->rod_bodies = calloc((size_t)(nr > 0 ? nr : 1), sizeof *st->rod_bodies);
    int *body_index = calloc((size_t)(nr > 0 ? nr : 1), sizeof *body_index);
    if (!st->rod_bcs || !st->rod_loads || !st->rod_bodies || !body_index) {
        free(body_index);
        return no_memory(err);
    }
    int kb = 0, kl = 0, kr = 0;
    for (int r = 0; r < R; ++r) {
        cr_rod_def *d = &st->rods[r].rod;
        d->bcs = st->rod_bcs + kb;
        for (int i = 0; i < nb; ++i)
            if (st->bc_rod[i] == r) st->rod_bcs[kb++] = all->bcs[i];
        d->bc_count = (int)(st->rod_bcs + kb - d->bcs);
        d->rigid_bodies = st->rod_bodies + kr;
        for (int i = 0; i < nr; ++i)
            if (st->body_rod[i] == r) {
                body_index[i] = (int)(st->rod_bodies + kr - d->rigid_bodies);
                st->rod_bodies[kr++] = all->rigid_bodies[i];
            }
        d->rigid_body_count = (int)(st->rod_bodies + kr - d->rigid_bodies);
        d->loads = st->rod_loads + kl;
        for (int i = 0; i < nl; ++i)
            if (st->load_rod[i] == r || st->load_rod[i] == -1) {
                cr_load_def ld = all->loads[i];
                if (ld.body >= 0) ld.body = body_index[ld.body];
                st->rod_loads[kl++] = ld;
            }
        d->load_count = (int)(st->rod_loads + kl - d->loads);
        if (d->bc_count == 0) d->bcs = NULL;
        if (d->load_count == 0) d->loads = NULL;
        if (d->rigid_body_count == 0) d->rigid_bodies = NULL;
        /* the obstacles act on every rod (contact is node-local: each rod touches them on its
         * own), with the one contact section; a model that has no contact for assemblies
         * refuses them at check */
        d->obstacles = all->obstacles, d->obstacle_count = all->obstacle_count;
        d->contact = all->contact;
    }
    free(body_index);
    sc->rods = st->rods;
    sc->rod_count = R;
    sc->rod = st->rods[0].rod;
    return CR_OK;
}

int cr_scenario_is_assembly(const cr_scenario *sc) { return sc && (sc->rod_count > 1 || sc->joint_count > 0); }
