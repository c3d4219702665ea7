/* cr_format_shortest (src/io/shortest.c) against the C library: every text reads back (strtod)
 * as exactly the same double; it has the fewest digits of any printf text that does (no
 * %.{n-2}e round-trips), and when printf's correctly rounded text with as many digits
 * round-trips too, the digits are the same; it is never longer than %.17g and uses an exponent
 * where %.17g does. Over random bit patterns (every binade, subnormals included), random short
 * decimals (where the shortest text is much shorter than 17 digits), the powers of ten and two
 * and their neighbours, integers and the extremes.
 *
 *   test_shortest [filter] [values per random case, default 1000000] */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/shortest.h"

static long count = 1000000;
static long checked, shorter_than_printf;

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t next_u64(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* significant digits of a decimal text (without sign, point, exponent; leading zeros dropped) */
static int digits_of(const char *s, char *dig)
{
    int n = 0, lead = 1;
    for (; *s && *s != 'e'; ++s) {
        if (*s < '0' || *s > '9') continue;
        if (lead && *s == '0') continue;
        lead = 0;
        dig[n++] = *s;
    }
    while (n > 1 && dig[n - 1] == '0') --n;
    dig[n] = 0;
    return n;
}

static int round_trips(const char *s, double v) { return same(strtod(s, NULL), v); }

static int failures_shown;

static void check_value(double v)
{
    char buf[CR_SHORTEST_SIZE + 1], ref[64], dig[32], rdig[32];
    char *end = cr_format_shortest(buf, v);
    *end = 0;
    ++checked;
    int ok = end - buf < CR_SHORTEST_SIZE;
    ok = ok && round_trips(buf, v);
    int n = digits_of(buf, dig);
    snprintf(ref, sizeof ref, "%.17g", v);
    ok = ok && strlen(buf) <= strlen(ref);
    if (ok && v != 0) {
        /* minimal: printf's text with one digit fewer does not round-trip */
        if (n > 1) {
            snprintf(ref, sizeof ref, "%.*e", n - 2, v);
            ok = !round_trips(ref, v);
        }
        /* printf's correctly rounded n digits: the same digits when they round-trip */
        snprintf(ref, sizeof ref, "%.*e", n - 1, v);
        digits_of(ref, rdig);
        if (round_trips(ref, v))
            ok = ok && strcmp(dig, rdig) == 0;
        else
            ++shorter_than_printf; /* only at a power of two (asymmetric interval) */
        /* the layout of %.17g: an exponent where it has one, when the decimal exponents agree */
        int x = atoi(strchr(ref, 'e') + 1);
        snprintf(ref, sizeof ref, "%.17e", v);
        if (atoi(strchr(ref, 'e') + 1) == x) {
            snprintf(ref, sizeof ref, "%.17g", v);
            ok = ok && (strchr(buf, 'e') != NULL) == (strchr(ref, 'e') != NULL);
        }
    }
    if (!ok && failures_shown++ < 20) fprintf(stderr, "  %a: shortest \"%s\", %%.17g \"%.17g\"\n", v, buf, v);
    CHECK(ok);
}

static void random_bit_patterns(void)
{
    for (long i = 0; i < count; ++i) {
        double v = from_bits(next_u64());
        if (v == v && v - v == 0) check_value(v); /* finite */
    }
}

static void subnormals(void)
{
    for (uint64_t b = 1; b < 5000; ++b) check_value(from_bits(b));
    for (long i = 0; i < count / 10; ++i) check_value(from_bits(next_u64() & ((UINT64_C(1) << 52) - 1)));
    for (uint64_t b = (UINT64_C(1) << 52) - 5000; b <= (UINT64_C(1) << 52) + 5000; ++b) check_value(from_bits(b));
    check_value(-DBL_TRUE_MIN);
}

static void short_decimals(void)
{
    char text[64];
    for (long i = 0; i < count; ++i) {
        int digits = 1 + (int)(next_u64() % 17), e = (int)(next_u64() % 640) - 325;
        uint64_t m = next_u64() % 100000000000000000ULL;
        snprintf(text, sizeof text, "%017llu", (unsigned long long)m);
        text[digits] = 0;
        snprintf(text + strlen(text), sizeof text - strlen(text), "e%d", e);
        double v = strtod(text, NULL);
        if (v - v == 0) check_value(next_u64() & 1 ? -v : v);
    }
}

static void powers_and_boundaries(void)
{
    char text[32];
    for (int e = -325; e <= 309; ++e) {
        snprintf(text, sizeof text, "1e%d", e);
        double v = strtod(text, NULL);
        if (v - v != 0) continue;
        check_value(v);
        for (int k = 0; k < 3; ++k) {
            v = nextafter(v, 0);
            check_value(v);
        }
        v = strtod(text, NULL);
        for (int k = 0; k < 3; ++k) {
            v = nextafter(v, INFINITY);
            if (v - v == 0) check_value(v);
        }
    }
    for (int e = -1074; e <= 1023; ++e) { /* every binade's edges */
        double v = ldexp(1.0, e);
        check_value(v), check_value(nextafter(v, 0)), check_value(nextafter(v, INFINITY));
        check_value(ldexp(1.5, e > 1022 ? 1022 : e));
    }
    double special[] = {0.0,
                        -0.0,
                        1.0,
                        -1.0,
                        0.1,
                        0.2,
                        0.3,
                        1.0 / 3,
                        2.0 / 3,
                        5e-324,
                        DBL_MIN,
                        DBL_MAX,
                        -DBL_MAX,
                        9007199254740992.0,
                        9007199254740993.0,
                        1e16,
                        1e17,
                        123456789012345678.0,
                        1e23,
                        5e-5,
                        1e-4,
                        9.9999999999999999e-5,
                        0.001,
                        100,
                        1e15,
                        1e21,
                        1e22,
                        299792458,
                        4.35,
                        0.3e-310};
    for (size_t i = 0; i < sizeof special / sizeof *special; ++i) check_value(special[i]);
    for (long i = 0; i < 200000; ++i) check_value((double)(int64_t)(next_u64() >> (next_u64() % 64)));
}

/* the texts themselves where they are known */
static void known_texts(void)
{
    struct {
        double v;
        const char *text;
    } cases[] = {{0.0, "0"},
                 {-0.0, "-0"},
                 {1.0, "1"},
                 {0.1, "0.1"},
                 {0.3, "0.3"},
                 {0.1 + 0.2, "0.30000000000000004"},
                 {1.0 / 3, "0.3333333333333333"},
                 {100, "100"},
                 {1e16, "10000000000000000"},
                 {1e17, "1e+17"},
                 {1e-4, "0.0001"},
                 {1e-5, "1e-05"},
                 {-2.5e-300, "-2.5e-300"},
                 {5e-324, "5e-324"},
                 {1e-323, "1e-323"},
                 {DBL_MAX, "1.7976931348623157e+308"},
                 {DBL_MIN, "2.2250738585072014e-308"},
                 {9007199254740993.0, "9007199254740992"},
                 {0.2, "0.2"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        char buf[CR_SHORTEST_SIZE + 1];
        *cr_format_shortest(buf, cases[i].v) = 0;
        if (strcmp(buf, cases[i].text) != 0)
            fprintf(stderr, "  %a: \"%s\", expected \"%s\"\n", cases[i].v, buf, cases[i].text);
        CHECK(strcmp(buf, cases[i].text) == 0);
    }
}

static void report(void)
{
    printf("test_shortest: %ld values round-trip with the fewest digits; %ld of them shorter than printf's "
           "correctly rounded text of as many digits (powers of two)\n",
           checked, shorter_than_printf);
}

int main(int argc, char **argv)
{
    if (argc > 2) count = atol(argv[2]);
    static const check_case cases[] = {CASE(known_texts),    CASE(powers_and_boundaries), CASE(subnormals),
                                       CASE(short_decimals), CASE(random_bit_patterns),   CASE(report)};
    return check_run(argc > 1 ? 2 : argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
