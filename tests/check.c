#include "check.h"

#include <string.h>
#include <time.h>

int check_failures = 0;
const char *check_current = "";

int check_run(int argc, char **argv, const check_case *cases, int count)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int ran = 0;
    for (int i = 0; i < count; ++i) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        int before = check_failures;
        check_current = cases[i].name;
        clock_t t0 = clock();
        cases[i].fn();
        double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("%-6s %s (%.2f s)\n", check_failures == before ? "ok" : "FAIL", cases[i].name, dt);
        ++ran;
    }
    printf("%d case(s), %d failure(s)\n", ran, check_failures);
    return check_failures == 0 && ran > 0 ? 0 : 1;
}
