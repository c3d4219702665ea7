/* Rod definitions the C tests share: a section given by its resultants and a straight
 * rod carrying it. */
#ifndef COSSERAT_TEST_ROD_BUILDERS_H
#define COSSERAT_TEST_ROD_BUILDERS_H

#include "cosserat/mixed.h"

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

#endif
