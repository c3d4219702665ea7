/* Joints whose two points are apart in the reference (mixed_discrete): the first static stage
 * closes the gap through its load steps (the position rows hold (1 − λ) g0), against
 * independent references:
 *   two cantilevers   two equal clamped cantilevers (L, EI) facing each other tip to tip, the
 *                     tips δ apart across the axis, joined by a ball (b's clamp slides along the
 *                     axis: no axial force). Small δ: each tip moves δ/2 and the ball carries
 *                     F = 3 EI (δ/2)/L³ (Euler–Bernoulli cantilever; shear 1e-7 of it). Large δ
 *                     (0.6 L): each is a cantilever whose tip is moved by δ/2 across (x free), so
 *                     the ball's force and the tips' position are a single rod's with that
 *                     prescribed tip displacement (its support's reaction), the other route.
 *                     At every load step the tips are (1 − λ) δ apart, exactly.
 *   a ring            a semicircle (length L, stress-free reference curvature π/L) closed into
 *                     a circle by a hinge whose drive turns its end by another half turn: the
 *                     ring's curvature 2π/L and bending moment EI (2π/L − π/L) (an inextensible
 *                     ring), converging at second order in the elements.
 *   a resume          the closing stage cut at its third load step, its state packed (a
 *                     checkpoint) into a fresh simulation and the stage continued there ends
 *                     where the uninterrupted run ends.
 *   refusals          a dynamic first stage, port_hamiltonian and lgvi name the joint and the
 *                     gap at check (a dynamic stage run directly, too), as does a joint that
 *                     does not act in stage 0. */
#include "check.h"
#include "cosserat/cosserat.h"
#include "model/formulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTION                                                                                                        \
    "\"sections\": [{\"shape\": \"resultants\", \"EA\": 1e7, \"GA_y\": 1e7, \"GA_z\": 1e7, \"GJ\": 1, "                \
    "\"EI_y\": 1, \"EI_z\": 1}]"

/* the two cantilevers (L = 1 m, EI = 1 N m², 20 elements), B's tip DELTA across A's */
static const char *CANTILEVERS =
    "{\"rods\": [{\"name\": \"A\", \"length\": 1, \"elements\": 20, " SECTION "},"
    " {\"name\": \"B\", \"length\": 1, \"elements\": 20, " SECTION ","
    "  \"reference\": {\"origin\": [2, 0, 0], \"frame\": {\"e_x\": [-1, 0, 0], \"e_y\": [0, -1, 0]}}}],"
    " \"joints\": [{\"type\": \"ball\", \"name\": \"tips\", \"a\": \"A:end\", \"b\": \"B:end\"}],"
    " \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"A:start\"},"
    "  {\"type\": \"support\", \"node\": \"B:start\", \"hold\": [\"y\", \"z\", \"rx\", \"ry\", \"rz\"]}],"
    " \"stages\": [{\"type\": \"static\", \"load_steps\": 8}]}";

/* one cantilever, its tip moved across by `position` (x free) */
static const char *SINGLE = "{\"rod\": {\"length\": 1, \"elements\": 20, " SECTION "},"
                            " \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"start\"},"
                            "  {\"type\": \"support\", \"node\": \"end\", \"hold\": [\"y\", \"z\"], \"position\": [1, "
                            "0.3, 0]}],"
                            " \"stages\": [{\"type\": \"static\", \"load_steps\": 8}]}";

/* (the ring's: its closing path stretches it on the way, an easier path with EA = GA = 1e5 N;
 * the closed ring carries no force, so its moment is the inextensible ring's) */
#define RING_SECTION                                                                                                   \
    "\"sections\": [{\"shape\": \"resultants\", \"EA\": 1e5, \"GA_y\": 1e5, \"GA_z\": 1e5, \"GJ\": 1, \"EI_y\": 1, "   \
    "\"EI_z\": 1}]"

/* a semicircle of length π (radius 1, EI = 1), its middle clamped, closed by a hinge about z
 * whose drive adds half a turn */
static const char *RING =
    "{\"rods\": [{\"name\": \"rod\", \"length\": 3.141592653589793, \"elements\": 32,"
    "  \"reference\": {\"type\": \"helix\", \"radius\": 1, \"pitch\": 0}, " RING_SECTION "}],"
    " \"joints\": [{\"type\": \"hinge\", \"name\": \"closure\", \"a\": \"rod:start\", \"b\": \"rod:end\","
    "  \"axis\": [0, 0, 1], \"drive\": {\"angle\": 3.141592653589793}}],"
    " \"boundary_conditions\": [{\"type\": \"clamp\", \"node\": \"rod:16\"}],"
    " \"stages\": [{\"type\": \"static\", \"load_steps\": 8}]}";

static cr_scenario *load(const char *json, const char *const *sets, int n)
{
    cr_error err = {0};
    cr_scenario *sc = NULL;
    if (cr_scenario_load_string(json, sets, n, &sc, &err) != CR_OK) fprintf(stderr, "load: %s\n", err.message);
    return sc;
}

/* runs stage 0; NULL when it fails */
static cr_sim *solve(cr_scenario *sc, const cr_stage_callbacks *cb)
{
    cr_error err = {0};
    cr_sim *sim = sc ? cr_sim_create_scenario(sc, &err) : NULL;
    if (!sim) {
        fprintf(stderr, "create: %s\n", err.message);
        return NULL;
    }
    cr_stage_callbacks none = {0};
    cr_static_report rep = {0};
    cr_status st = sim->f->static_stage(sim, 0, &sc->stages[0].statics, cb ? cb : &none, &rep, &err);
    cr_static_report_free(&rep);
    if (st != CR_OK) {
        fprintf(stderr, "solve: %s\n", err.message);
        cr_sim_destroy(sim);
        return NULL;
    }
    return sim;
}

/* at every load step: the tips (1 − λ) δ apart, exactly (the joint's rows at λ) */
typedef struct {
    double delta, worst;
    int steps;
} step_watch;

static int watch_step(cr_sim *sim, const cr_load_step_report *step, int index, void *user)
{
    (void)step, (void)index;
    step_watch *w = user;
    const double lf = cr_sim_load_factor(sim);
    cr_vec3 a = cr_sim_position(sim, 20), b = cr_sim_position(sim, 41);
    cr_vec3 f;
    cr_sim_joint_reaction(sim, 0, &f, NULL);
    w->worst = fmax(w->worst, cr_v3_norm(cr_v3_sub(cr_v3_sub(b, a), cr_v3(0, (1 - lf) * w->delta, 0))));
    w->steps++;
    printf("  step %d: lambda %.4f, tips %.3e m apart across, ball force %.6g N\n", index, lf, b.y - a.y, f.y);
    return 0;
}

static void cantilevers(void)
{
    const double EI = 1, L = 1;
    /* small δ: the linear cantilever, each tip δ/2 */
    const double d = 1e-4;
    char set[64];
    snprintf(set, sizeof set, "rods.1.reference.origin=[2, %.17g, 0]", d);
    const char *sets[] = {set};
    cr_scenario *sc = load(CANTILEVERS, sets, 1);
    step_watch w = {d, 0, 0};
    cr_stage_callbacks cb = {.on_load_step = watch_step, .user = &w};
    cr_sim *sim = solve(sc, &cb);
    CHECK(sim != NULL);
    if (sim) {
        cr_vec3 f, ta = cr_sim_position(sim, 20), tb = cr_sim_position(sim, 41);
        CHECK(cr_sim_joint_reaction(sim, 0, &f, NULL) == CR_OK);
        const double F = 3 * EI * (d / 2) / (L * L * L);
        printf("small gap %.0e m: ball force %.9g N (3 EI delta/(2 L^3) = %.9g, %+.2e), tips at y %.9g, %.9g m "
               "(delta/2 = %.9g); the tips' worst distance from (1 - lambda) delta over %d steps %.2e m\n",
               d, f.y, F, f.y / F - 1, ta.y, tb.y, d / 2, w.steps, w.worst);
        CHECK(fabs(f.y / F - 1) < 1e-3);
        CHECK(fabs(ta.y / (d / 2) - 1) < 1e-4 && fabs(tb.y / (d / 2) - 1) < 1e-4);
        CHECK(w.steps == 8 && w.worst < 1e-12);
        cr_sim_destroy(sim);
        /* the force's error is the elements': second order (40 elements) */
        const char *fine[] = {set, "rods.0.elements=40", "rods.1.elements=40"};
        cr_scenario *s40 = load(CANTILEVERS, fine, 3);
        cr_sim *m40 = solve(s40, NULL);
        CHECK(m40 != NULL);
        if (m40) {
            cr_vec3 f40;
            cr_sim_joint_reaction(m40, 0, &f40, NULL);
            printf("  40 elements: ball force %.9g N (%+.2e; the error's ratio %.3f)\n", f40.y, f40.y / F - 1,
                   (f.y / F - 1) / (f40.y / F - 1));
            CHECK(fabs((f.y / F - 1) / (f40.y / F - 1) - 4) < 0.2);
            cr_sim_destroy(m40);
        }
        cr_scenario_destroy(s40);
    }
    cr_scenario_destroy(sc);
    /* large δ = 0.6 L: the single rod with its tip moved by δ/2 */
    const char *big[] = {"rods.1.reference.origin=[2, 0.6, 0]"};
    cr_scenario *sb = load(CANTILEVERS, big, 1), *s1 = load(SINGLE, NULL, 0);
    cr_sim *a = solve(sb, NULL), *b = solve(s1, NULL);
    CHECK(a && b);
    if (a && b) {
        cr_vec3 f, r, ta = cr_sim_position(a, 20), tb = cr_sim_position(a, 41), t1 = cr_sim_position(b, 20);
        CHECK(cr_sim_joint_reaction(a, 0, &f, NULL) == CR_OK && cr_sim_reaction(b, 20, &r, NULL) == CR_OK);
        double dr = 0;
        for (int i = 0; i <= 20; ++i) /* A's nodes and the single rod's */
            dr = fmax(dr, cr_v3_norm(cr_v3_sub(cr_sim_position(a, i), cr_sim_position(b, i))));
        printf("large gap 0.6 m: ball force (%.9g, %.9g) N, the single rod's tip reaction (%.9g, %.9g) N (%+.2e); "
               "tips (%.9g, %.9g), (%.9g, %.9g), the single rod's (%.9g, %.9g); A's nodes within %.2e m of it\n",
               f.x, f.y, r.x, r.y, f.y / r.y - 1, ta.x, ta.y, tb.x, tb.y, t1.x, t1.y, dr);
        CHECK(fabs(f.y / r.y - 1) < 1e-6 && fabs(f.x) < 1e-6 * fabs(f.y));
        CHECK(dr < 1e-8 && cr_v3_norm(cr_v3_sub(ta, tb)) < 1e-9);
        CHECK(ta.x < 0.95); /* large: the tips moved 5 cm along the axis too */
    }
    cr_sim_destroy(a), cr_sim_destroy(b);
    cr_scenario_destroy(sb), cr_scenario_destroy(s1);
}

/* the ring's largest errors in curvature and moment against 2π/L and EI π/L */
static int ring_errors(int elements, double *ek, double *em, double *eg)
{
    char set[64];
    snprintf(set, sizeof set, "rods.0.elements=%d", elements);
    char clamp[96];
    snprintf(clamp, sizeof clamp, "boundary_conditions.0.node=rod:%d", elements / 2);
    const char *sets[] = {set, clamp};
    cr_scenario *sc = load(RING, sets, 2);
    cr_sim *sim = solve(sc, NULL);
    int ok = sim != NULL;
    if (sim) {
        const double L = M_PI;
        *ek = *em = 0;
        for (int i = 0; i < cr_sim_sample_count(sim); ++i) {
            cr_vec3 g, k, n, m;
            cr_sim_sample(sim, i, &g, &k, &n, &m);
            *ek = fmax(*ek, fabs(k.z - 2 * M_PI / L));
            *em = fmax(*em, fabs(m.z - M_PI / L));
        }
        *eg = cr_v3_norm(cr_v3_sub(cr_sim_position(sim, 0), cr_sim_position(sim, elements)));
        cr_sim_destroy(sim);
    }
    cr_scenario_destroy(sc);
    return ok;
}

static void ring(void)
{
    double k32, m32, g32, k64, m64, g64;
    CHECK(ring_errors(32, &k32, &m32, &g32) && ring_errors(64, &k64, &m64, &g64));
    printf("ring (curvature 2 1/m, moment 1 N m): 32 elements |dk| %.3e, |dm| %.3e N m; 64 elements %.3e, %.3e "
           "(ratio %.2f); ends %.1e, %.1e m apart\n",
           k32, m32, k64, m64, m32 / m64, g32, g64);
    CHECK(m32 < 3e-3 && k32 < 3e-3);
    CHECK(m32 / m64 > 3.8 && m32 / m64 < 4.2); /* second order */
    CHECK(g32 < 1e-9 && g64 < 1e-9);
}

static int cut_at_3(cr_sim *sim, const cr_load_step_report *step, int index, void *user)
{
    (void)sim, (void)step, (void)user;
    return index == 2;
}

static void resume(void)
{
    const char *sets[] = {"rods.1.reference.origin=[2, 0.6, 0]"};
    cr_scenario *sc = load(CANTILEVERS, sets, 1);
    cr_sim *full = solve(sc, NULL);
    cr_error err = {0};
    cr_sim *cut = sc ? cr_sim_create_scenario(sc, &err) : NULL, *fresh = sc ? cr_sim_create_scenario(sc, &err) : NULL;
    CHECK(full && cut && fresh);
    if (full && cut && fresh) {
        cr_stage_callbacks cb = {.on_load_step = cut_at_3};
        cr_static_report rep = {0};
        CHECK(cut->f->static_stage(cut, 0, &sc->stages[0].statics, &cb, &rep, &err) == CR_INTERRUPTED);
        cr_static_report_free(&rep);
        const double lf = cr_sim_load_factor(cut);
        const int n = cut->f->packed_size(cut->impl);
        double *buf = malloc((size_t)n * sizeof *buf);
        cut->f->pack(cut->impl, buf);
        fresh->f->unpack(fresh->impl, buf);
        free(buf);
        cr_vec3 a = cr_sim_position(fresh, 20), b = cr_sim_position(fresh, 41);
        const double gap = b.y - a.y;
        cr_stage_callbacks none = {0};
        CHECK(fresh->f->static_stage(fresh, 0, &sc->stages[0].statics, &none, &rep, &err) == CR_OK);
        cr_static_report_free(&rep);
        double dr = 0;
        for (int i = 0; i < cr_sim_node_count(full); ++i)
            dr = fmax(dr, cr_v3_norm(cr_v3_sub(cr_sim_position(full, i), cr_sim_position(fresh, i))));
        cr_vec3 ff, fr;
        cr_sim_joint_reaction(full, 0, &ff, NULL), cr_sim_joint_reaction(fresh, 0, &fr, NULL);
        printf("resume: cut at lambda %.4f (tips %.9g m apart across: (1 - lambda) 0.6 = %.9g), resumed and "
               "finished: nodes within %.2e m of the uninterrupted run, ball force %.12g vs %.12g N\n",
               lf, gap, (1 - lf) * 0.6, dr, fr.y, ff.y);
        CHECK(lf > 0.3 && lf < 0.4);
        CHECK(fabs(gap - (1 - lf) * 0.6) < 1e-12);
        CHECK(dr < 1e-8 && fabs(fr.y / ff.y - 1) < 1e-7); /* Newton's tolerance */
    }
    cr_sim_destroy(full), cr_sim_destroy(cut), cr_sim_destroy(fresh);
    cr_scenario_destroy(sc);
}

static void expect_refusal(const char *const *sets, int n, const char *want)
{
    cr_scenario *sc = load(CANTILEVERS, sets, n);
    CHECK(sc != NULL);
    if (!sc) return;
    cr_error err = {0};
    cr_status st = cr_scenario_check(sc, &err);
    printf("check: %s\n", err.message);
    CHECK(st != CR_OK && strstr(err.message, want) != NULL);
    CHECK(strstr(err.message, "a first static stage of model mixed_discrete") != NULL);
    cr_scenario_destroy(sc);
}

static void refusals(void)
{
    const char *gap = "rods.1.reference.origin=[2, 0.01, 0]";
    const char *dyn[] = {gap, "stages=[{\"type\": \"dynamic\", \"t_end\": 0.1, \"output_dt\": 0.01}]",
                         "rods.0.sections.0.rhoA=1", "rods.1.sections.0.rhoA=1"};
    expect_refusal(dyn, 4,
                   "joints.0 ('tips'): its points (node 20 of rod 'A' and node 20 of rod 'B') are 0.01 m apart in the "
                   "reference, and stage 0 is dynamic");
    const char *ph[] = {gap, "model=port_hamiltonian"};
    expect_refusal(ph, 2,
                   "joints.0 ('tips'): its points (node 20 of rod 'A' and node 20 of rod 'B') are 0.01 m apart "
                   "in the reference, and model port_hamiltonian");
    const char *lg[] = {dyn[0], dyn[1], dyn[2], dyn[3], "model=lgvi", "stages.0.time_step=1e-4"};
    expect_refusal(lg, 6,
                   "joints.0 ('tips'): its points (node 20 of rod 'A' and node 20 of rod 'B') are 0.01 m apart "
                   "in the reference, and model lgvi");
    /* the C API's way in (no check): a dynamic stage before any static one refuses the gap */
    cr_scenario *sd = load(CANTILEVERS, dyn, 4);
    cr_error ed = {0};
    cr_sim *sim = sd ? cr_sim_create_scenario(sd, &ed) : NULL;
    CHECK(sim != NULL);
    if (sim) {
        cr_stage_callbacks none = {0};
        cr_dynamic_report rep = {0};
        const cr_status st = sim->f->dynamic_stage(sim, 0, 0.0, 0.0, 0.0, &sd->stages[0].dynamics, &none, &rep, &ed);
        printf("dynamic stage: %s\n", ed.message);
        CHECK(st == CR_BAD_INPUT && strstr(ed.message, "tips") && strstr(ed.message, "0.01 m apart") &&
              strstr(ed.message, "stage 0 is dynamic before a static stage closed the gap"));
        cr_sim_destroy(sim);
    }
    cr_scenario_destroy(sd);
    /* the gap is closed in stage 0: a joint acting from stage 1 on is refused */
    const char *later[] = {gap, "stages=[{\"type\": \"static\"}, {\"type\": \"static\"}]", "joints.0.stages=[1]"};
    cr_scenario *sl = load(CANTILEVERS, later, 3);
    cr_error el = {0};
    CHECK(sl && cr_scenario_check(sl, &el) != CR_OK);
    printf("check: %s\n", el.message);
    CHECK(strstr(el.message, "joints.0 ('tips').stages: its points are 0.01 m apart") != NULL);
    cr_scenario_destroy(sl);
    /* a static first stage passes */
    const char *ok[] = {gap};
    cr_scenario *sc = load(CANTILEVERS, ok, 1);
    cr_error err = {0};
    CHECK(sc && cr_scenario_check(sc, &err) == CR_OK);
    cr_scenario_destroy(sc);
}

CHECK_MAIN(CASE(cantilevers), CASE(ring), CASE(resume), CASE(refusals))
