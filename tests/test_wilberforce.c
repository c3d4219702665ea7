/* Wilberforce pendulum (spec §8.3) from examples/wilberforce.json, first second:
 * the static pre-load bob height, the first upper turning point after release,
 * and conservation of the total energy (no dissipation, gravity only). The full
 * 20 s run is `build/cosserat run examples/wilberforce.json` (docs/examples.md). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "cosserat/cosserat.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef COSSERAT_SOURCE_DIR
#define COSSERAT_SOURCE_DIR "."
#endif

static void test_wilberforce_first_second(void)
{
    char dir[] = "/tmp/cosserat_wilberforce_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *sets[] = {"stages.1.t_end=1.0", "output.vtk=false"};
    cr_scenario *sc = NULL;
    cr_error err = {0};
    CHECK(cr_scenario_load_file(COSSERAT_SOURCE_DIR "/examples/wilberforce.json", sets, 2, &sc, &err) == CR_OK);
    if (!sc) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    cr_run_options o = cr_run_default_options();
    o.output_directory = dir;
    cr_run_result r;
    cr_status st = cr_scenario_run(sc, &o, &r, &err);
    if (st != CR_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CR_OK);
    char path[256];
    snprintf(path, sizeof path, "%s/series.csv", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[4096];
    CHECK(fgets(line, sizeof line, f) != NULL);
    CHECK(strstr(line, "bob_x,bob_y,bob_z,bob_yaw,bob_pitch,bob_roll") != NULL);
    /* columns by name: t, energy_total, bob_z, bob_yaw */
    int col[4] = {-1, -1, -1, -1}, ncol = 0;
    static const char *want[4] = {"t", "energy_total", "bob_z", "bob_yaw"};
    for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), ++ncol)
        for (int k = 0; k < 4; ++k)
            if (!strcmp(tok, want[k])) col[k] = ncol;
    CHECK(col[0] == 0 && col[1] > 0 && col[2] > 0 && col[3] > 0 && ncol <= 64);
    double z0 = 0, zmax = -1, tmax = 0, e0 = 0, emin = 1e30, emax = -1e30, yaw_min = 1e30, yaw_max = -1e30;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        double v[64];
        char *p = line;
        for (int k = 0; k < ncol && k < 64; ++k) v[k] = strtod(p, &p), p += (*p == ',');
        double t = v[col[0]], e = v[col[1]], z = v[col[2]], yaw = v[col[3]];
        if (rows == 0) z0 = z, e0 = e;
        if (z > zmax) zmax = z, tmax = t;
        emin = fmin(emin, e), emax = fmax(emax, e);
        yaw_min = fmin(yaw_min, yaw), yaw_max = fmax(yaw_max, yaw);
        ++rows;
    }
    fclose(f);
    printf("  pre-load bob z = %.4f m (paper -0.439), first upper turning point z = %.4f m at t = %.3f s "
           "(paper -0.252, about 0.5 s), energy drift %.2e J of %.3f J, yaw %.1f..%.1f deg, %d rows\n",
           z0, zmax, tmax, emax - emin, e0, yaw_min, yaw_max, rows);
    CHECK(rows == 1001);
    CHECK_NEAR(z0, -0.439, 0.0015);
    CHECK_NEAR(zmax, -0.252, 0.0025);
    CHECK(tmax > 0.4 && tmax < 0.7); /* the first maximum: z falls again before t = 1 s */
    CHECK(emax - emin < 1e-3 * fabs(e0));
    const cr_dynamic_report *d = &r.dynamics[1];
    printf("  integrator: %ld steps, %ld rejected, %ld Newton, %ld F, %ld Jacobians, %ld LU, %.2f s (%.2f us/step/node)\n",
           d->steps, d->rejected, d->newton_iterations, d->rhs_evals, d->jacobians, d->lu_real + d->lu_complex,
           d->wall_time_s, 1e6 * d->wall_time_s / (d->steps * 801.0));
    cr_run_result_free(&r);
    cr_scenario_destroy(sc);
    /* clean up */
    const char *files[] = {"series.csv", "summary.json", "nodes.csv", "elements.csv", "checkpoint.bin", "rod.pvd"};
    for (int k = 0; k < 6; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
}

CHECK_MAIN(CASE(test_wilberforce_first_second))
