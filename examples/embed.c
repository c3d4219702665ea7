/* Embedding cosserat in C, without JSON: the tendon-driven tapered manipulator of
 * the mixed discrete rod paper (spec §8.2) built through the public API.
 *
 *   build/embed [elements]      (default 1250)
 *
 * Prints the strain ranges the paper reports and the tip position. */
#include <cosserat/cosserat.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1250;

    /* tapered circular section: radius 10 mm at the base, 4 mm at the tip */
    cr_section_segment section = cr_section_default_def();
    section.shape = CR_SECTION_CIRCLE;
    section.radius[0] = 0.010;
    section.radius[1] = 0.004;

    /* one tendon through every node on the body +y side (the inertial +x side) */
    cr_load_def tendon = cr_load_default_def();
    tendon.type = CR_LOAD_TENDON;
    tendon.tension = 4.0; /* N */
    tendon.offset.type = CR_OFFSET_RADIUS_FRACTION;
    tendon.offset.fraction = 1.0;
    tendon.offset.angle = 0.0;

    cr_bc_def clamp = cr_bc_default_def();
    clamp.type = CR_BC_CLAMP;
    clamp.node = 0;

    cr_rod_def rod = cr_rod_default_def();
    rod.length = 0.2;
    rod.elements = n;
    rod.material = (cr_material){.E = 7e5, .G = 2e5, .rho = 0};
    /* rod axis along +z: body e_x = I_z, e_y = I_x, e_z = I_y */
    rod.reference.type = CR_REFERENCE_STRAIGHT;
    rod.reference.orientation = cr_q_from_matrix(cr_m3_columns(cr_v3(0, 0, 1), cr_v3(1, 0, 0), cr_v3(0, 1, 0)));
    rod.sections = &section;
    rod.section_count = 1;
    rod.loads = &tendon;
    rod.load_count = 1;
    rod.bcs = &clamp;
    rod.bc_count = 1;

    cr_error err = {0};
    cr_model *model = cr_model_create(&rod, &err);
    if (!model) {
        fprintf(stderr, "embed: %s\n", err.message);
        return 1;
    }
    cr_state *state = cr_state_create(model);
    cr_static_options options = cr_static_default_options();
    options.load_steps = 8;
    cr_static_report report;
    cr_status status = cr_static_solve(model, state, &options, NULL, NULL, &report, &err);
    if (status != CR_OK) fprintf(stderr, "embed: %s\n", err.message);

    cr_vec3 g0, k0, g1, k1;
    cr_state_element(model, state, 0, &g0, &k0, NULL, NULL);
    cr_state_element(model, state, n - 1, &g1, &k1, NULL, NULL);
    cr_vec3 tip = cr_state_position(state, n);
    printf("tendon manipulator, n = %d: %d load steps, %d Newton iterations, %.2f ms\n", n, report.step_count,
           report.total_iterations, 1e3 * report.wall_time_s);
    printf("  gamma_x %.4f -> %.4f   (paper 0.982 -> 0.887)\n", g0.x, g1.x);
    printf("  kappa_z %.2f -> %.2f 1/m (paper 7.3 -> 113.4)\n", k0.z, k1.z);
    printf("  gamma_y %.4f -> %.4f   (paper 0.002 -> 0.014)\n", g0.y, g1.y);
    printf("  tip     (%.5f, %.5f, %.5f) m\n", tip.x, tip.y, tip.z);

    cr_static_report_free(&report);
    cr_state_destroy(state);
    cr_model_destroy(model);
    return status == CR_OK ? 0 : 2;
}
