/* Minimal test runner: CHECK / CHECK_NEAR macros, test registration and a
 * name filter (first command-line argument: substring of the test name). */
#ifndef COSSERAT_TEST_CHECK_H
#define COSSERAT_TEST_CHECK_H
#include <math.h>
#include <stdio.h>

extern int check_failures;
extern const char *check_current;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__,       \
                    check_current, #cond);                                              \
            check_failures++;                                                           \
        }                                                                               \
    } while (0)

/* |a - b| <= tol, with both values printed on failure. */
#define CHECK_NEAR(a, b, tol)                                                           \
    do {                                                                                \
        double check_a_ = (a), check_b_ = (b), check_t_ = (tol);                        \
        if (!(fabs(check_a_ - check_b_) <= check_t_)) {                                 \
            fprintf(stderr, "%s:%d: [%s] CHECK_NEAR failed: %s = %.15g, %s = %.15g, "   \
                            "|diff| = %.3g > %.3g\n",                                   \
                    __FILE__, __LINE__, check_current, #a, check_a_, #b, check_b_,      \
                    fabs(check_a_ - check_b_), check_t_);                               \
            check_failures++;                                                           \
        }                                                                               \
    } while (0)

typedef void (*check_fn)(void);
typedef struct check_case {
    const char *name;
    check_fn fn;
} check_case;

/* Runs the cases whose name contains argv[1] (all when absent); returns the
 * process exit code. */
int check_run(int argc, char **argv, const check_case *cases, int count);

#define CHECK_MAIN(...)                                                                 \
    int main(int argc, char **argv)                                                     \
    {                                                                                   \
        static const check_case cases_[] = {__VA_ARGS__};                               \
        return check_run(argc, argv, cases_, (int)(sizeof cases_ / sizeof cases_[0]));  \
    }
#define CASE(fn) {#fn, fn}

#endif
