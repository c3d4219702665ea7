/* cosserat — scenario files, the "model" section (formulation and its options).
 * (Part of the scenario parser: see scenario.c and scenario_internal.h.) */
#include "scenario_internal.h"

#include <stdio.h>
#include <string.h>

/* enum choices; index = the C enum value */
static const char *const MODEL_CHOICES[] = {"mixed_discrete", "lgvi", "port_hamiltonian", NULL};
static const char *const CHART_CHOICES[] = {"exp", "cayley", NULL};
static const char *const STRAINS_CHOICES[] = {"left", "midpoint", NULL}; /* = CR_LGVI_STRAINS_* */
/* each formulation's own options, in the order of MODEL_CHOICES (the keys of scenario_schema.c) */
static const char *const MIXED_OPTIONS[] = {NULL};
static const char *const LGVI_OPTIONS[] = {"dilatation", "chart", "strains", NULL};
static const char *const PH_OPTIONS[] = {"viscoelastic", "newton_atol", NULL};
static const char *const *const MODEL_OPTIONS[] = {MIXED_OPTIONS, LGVI_OPTIONS, PH_OPTIONS};

/* "model": a formulation name, or an object {"type": name, options...}; the
 * plain string means the formulation's defaults. */
cr_status parse_model(const cJSON *root, cr_model_options *m, cr_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *obj = cJSON_IsObject(v) ? v : NULL;
    const char *path = obj ? "model.type" : "model";
    const cJSON *type = obj ? cJSON_GetObjectItemCaseSensitive(obj, "type") : v;
    cr_status s;
    *m = cr_model_default_options();
    if (v && !obj && !cJSON_IsString(v)) {
        char got[VALUE_TEXT_SIZE];
        describe(v, got, sizeof got);
        return fail(err, "model: expected a formulation name or an object {\"type\": ...}, got %s", got);
    }
    if (obj && !type) return fail(err, "model.type: missing");
    if (type) {
        int k;
        if ((s = read_enum(type, path, MODEL_CHOICES, &k, err))) return s;
        snprintf(m->type, sizeof m->type, "%s", MODEL_CHOICES[k]);
    }
    if (!obj) return CR_OK;
    /* an option of another formulation (left behind by a switch such as --set model=lgvi) is
     * named with its owner rather than as an unknown key */
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *key = c->string ? c->string : "", *owner = NULL;
        for (int f = 0; f < 3 && !owner; ++f)
            for (int i = 0; MODEL_OPTIONS[f][i] && !owner; ++i)
                if (!strcmp(MODEL_OPTIONS[f][i], key) && strcmp(MODEL_CHOICES[f], m->type)) owner = MODEL_CHOICES[f];
        if (owner)
            return fail(err,
                        "model.%s: an option of the %s model; the %s model has no %s: remove it (--set "
                        "model.%s=null) or choose the %s model%s",
                        key, owner, m->type, key, key, owner,
                        !strcmp(key, "viscoelastic") && !strcmp(m->type, "mixed_discrete")
                            ? " (the mixed_discrete model's material damping is rod.damping)"
                            : "");
    }
    if ((s = check_keys(obj, "model", K_MODEL, err))) return s;
    const cJSON *dil = cJSON_GetObjectItemCaseSensitive(obj, "dilatation");
    if (dil && !cJSON_IsBool(dil)) {
        char got[VALUE_TEXT_SIZE];
        describe(dil, got, sizeof got);
        return fail(err, "model.dilatation: expected true or false, got %s", got);
    }
    if (dil) m->dilatation = cJSON_IsTrue(dil);
    if ((s = get_enum(obj, "model", "chart", CHART_CHOICES, 0, &m->chart, err))) return s;
    if ((s = get_enum(obj, "model", "strains", STRAINS_CHOICES, 0, &m->strains, err))) return s;
    if ((s = get_number(obj, "model", "newton_atol", 0, 1e-10, TOLERANCE, &m->newton_atol, err))) return s;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, "viscoelastic");
    if (!list) return CR_OK;
    if ((s = expect_array(list, "model.viscoelastic", err))) return s;
    int n = cJSON_GetArraySize(list);
    if (n > 8) return fail(err, "model.viscoelastic: at most 8 branches, got %d", n);
    int i = 0;
    double total = 0;
    for (const cJSON *c = list->child; c; c = c->next, ++i) {
        char bpath[PATH_SIZE];
        path_index(bpath, "model.viscoelastic", i);
        if ((s = expect_object(c, bpath, err)) || (s = check_keys(c, bpath, K_BRANCH, err))) return s;
        if ((s = get_number(c, bpath, "tau", 1, 0, POSITIVE, &m->branch_tau[i], err))) return s;
        if ((s = get_number(c, bpath, "fraction", 1, 0, POSITIVE, &m->branch_fraction[i], err))) return s;
        const cJSON *kv = cJSON_GetObjectItemCaseSensitive(c, "kelvin_voigt");
        if (kv && !cJSON_IsBool(kv)) {
            char got[VALUE_TEXT_SIZE];
            describe(kv, got, sizeof got);
            return fail(err, "%s.kelvin_voigt: expected true or false, got %s", bpath, got);
        }
        m->branch_kelvin_voigt[i] = kv && cJSON_IsTrue(kv);
        /* a Maxwell branch takes its stiffness from the elastic one; a dashpot does not */
        if (!m->branch_kelvin_voigt[i]) total += m->branch_fraction[i];
    }
    if (total > 1 + 1e-12) {
        char got[32];
        format_number(total, got, sizeof got);
        return fail(err, "model.viscoelastic: the Maxwell branches' fractions must sum to <= 1 (the rest is the "
                         "elastic branch), got %s", got);
    }
    m->branch_count = n;
    return CR_OK;
}
