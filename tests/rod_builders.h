/* Rod definitions the C tests (and bench_static) share: a section given by its
 * resultants, a straight rod carrying it, and bench_static's steel cantilever. */
#ifndef COSSERAT_TEST_ROD_BUILDERS_H
#define COSSERAT_TEST_ROD_BUILDERS_H

#include "cosserat/mixed.h"

#include <stddef.h>

/* Constant section resultants (EI_y = EI_z, GA_y = GA_z) with rotary inertia 1e-6 ρA. */
static inline cr_section_segment resultants(double EA, double GA, double GJ, double EI, double rhoA)
{
    cr_section_segment s = cr_section_default_def();
    s.shape = CR_SECTION_RESULTANTS;
    for (int k = 0; k < 2; ++k) {
        s.EA[k] = EA, s.GA_y[k] = s.GA_z[k] = GA, s.GJ[k] = GJ, s.EI_y[k] = s.EI_z[k] = EI;
        s.rhoA[k] = rhoA, s.rhoI_y[k] = s.rhoI_z[k] = 1e-6 * rhoA;
    }
    return s;
}

/* A straight rod of length L and n elements with one section (material unused). */
static inline cr_rod_def straight_rod(const cr_section_segment *sec, double L, int n)
{
    cr_rod_def d = cr_rod_default_def();
    d.length = L;
    d.elements = n;
    d.sections = sec;
    d.section_count = 1;
    d.material = (cr_material){1, 1, 1};
    return d;
}

/* Steel cantilever, 1 m, r = 5 mm, n elements, clamped at node 0, tip force (0, −50, 0) N
 * giving a large (~45°) deflection: bench_static's long-rod case. The section, load and
 * clamp are static, so one such model at a time may be created. */
static inline cr_model *steel_cantilever_model(int n)
{
    static cr_section_segment sec;
    static cr_load_def tip;
    static cr_bc_def clamp;
    sec = cr_section_default_def();
    sec.radius[0] = sec.radius[1] = 0.005;
    tip = cr_load_default_def();
    tip.type = CR_LOAD_FORCE, tip.node = -1, tip.value = cr_v3(0, -50, 0);
    clamp = cr_bc_default_def();
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.0, d.elements = n, d.material = (cr_material){2.1e11, 8.1e10, 7850};
    d.sections = &sec, d.section_count = 1, d.loads = &tip, d.load_count = 1, d.bcs = &clamp, d.bc_count = 1;
    return cr_model_create(&d, NULL);
}

#endif
