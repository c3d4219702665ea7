/* Scenario runs the C tests share: a scenario given as JSON with single quotes (easier to write in
 * C strings) checked and run in memory, and a series column looked up by name. */
#ifndef COSSERAT_TEST_SCENARIO_RUN_H
#define COSSERAT_TEST_SCENARIO_RUN_H

#include "cosserat/output.h"
#include "cosserat/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loads json_q (' for "), checks and runs it without output files; *st its status (the message on
 * stderr when not CR_OK). The result is zeroed when nothing ran. */
static inline cr_run_result scenario_run_quoted(const char *json_q, cr_status *st)
{
    char *json = strdup(json_q);
    for (char *p = json; *p; ++p)
        if (*p == '\'') *p = '"';
    cr_error err = {0};
    cr_run_result r;
    memset(&r, 0, sizeof r);
    cr_scenario *sc = NULL;
    *st = cr_scenario_load_string(json, NULL, 0, &sc, &err);
    free(json);
    if (*st == CR_OK) *st = cr_scenario_check(sc, &err);
    if (*st == CR_OK) {
        cr_run_options o = cr_run_default_options();
        o.output_directory = "";
        *st = cr_scenario_run(sc, &o, &r, &err);
    }
    if (*st != CR_OK) fprintf(stderr, "  %s\n", err.message);
    cr_scenario_destroy(sc);
    return r;
}

/* The index of the series column `name` (-1, said on stderr, when there is none). */
static inline int series_column(const cr_run_result *r, const char *name)
{
    for (int k = 0; k < cr_run_result_series_columns(r); ++k)
        if (!strcmp(cr_run_result_series_name(r, k), name)) return k;
    fprintf(stderr, "no series column %s\n", name);
    return -1;
}

#endif
