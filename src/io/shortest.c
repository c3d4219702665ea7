/* Shortest round-trip formatting of doubles for the CSV outputs: Schubfach (R. Giulietti, "The
 * Schubfach way to render doubles", 2020; the skeleton of its figure 7 with the computations of
 * figure 9, as in OpenJDK's DoubleToDecimal). %.17g through printf costs about 3000
 * instructions per value in glibc (multi-precision arithmetic); this takes about 100 and prints
 * fewer digits for the same information: the text reads back as exactly the same double. */
#define _POSIX_C_SOURCE 200809L
#include "io/shortest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/shortest_table.h"

enum { P = 53, Q_MIN = -1074, K_MIN = -324 };
#define C_MIN (UINT64_C(1) << (P - 1))
#define MASK_63 ((UINT64_C(1) << 63) - 1)

/* floor(q log10 2), floor(log10(3/4 2^q)), floor(e log2 10): exact over the ranges used here
 * (checked against exact rational arithmetic for |q|, |e| <= 1100 in scripts/shortest_table.py's
 * test, tests/test_shortest.c round-trips every binade) */
static int flog10pow2(int q) { return (int)(((int64_t)q * INT64_C(661971961083)) >> 41); }
static int flog10three_quarters_pow2(int q)
{
    return (int)(((int64_t)q * INT64_C(661971961083) - INT64_C(274743187321)) >> 41);
}
static int flog2pow10(int e) { return (int)(((int64_t)e * INT64_C(913124641741)) >> 38); }

static uint64_t mul_high(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }

/* round to odd of cp g 2^-127, g = g1 2^63 + g0 (section 9.9, figure 8) */
static uint64_t rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
    uint64_t x1 = mul_high(g0, cp);
    uint64_t y0 = g1 * cp;
    uint64_t y1 = mul_high(g1, cp);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & MASK_63) + MASK_63) >> 63);
}

static void copy(char *to, const char *from, int n)
{
    for (int i = 0; i < n; ++i) to[i] = from[i];
}

/* f 10^e (f > 0, up to 17 digits, maybe trailing zeros) in the layout of %.17g */
static char *to_chars(char *p, uint64_t f, int e)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char buf[24], *d = buf + sizeof buf; /* the digits, written backwards, two at a time */
    if (f == 0) {                        /* not reached: v != 0 has s >= 1 */
        *p++ = '0';
        return p;
    }
    while (f % 10 == 0) f /= 10, ++e;
    while (f >= 100) {
        uint64_t r = f % 100;
        f /= 100;
        d -= 2;
        d[0] = pairs[2 * r], d[1] = pairs[2 * r + 1];
    }
    if (f >= 10)
        d -= 2, d[0] = pairs[2 * f], d[1] = pairs[2 * f + 1];
    else
        *--d = (char)('0' + f);
    const char *dig = d;
    int n = (int)(buf + sizeof buf - d);
    int x = e + n - 1; /* decimal exponent of the first digit */
    if (x >= -4 && x < 17) {
        if (x >= 0) {
            for (int i = 0; i <= x; ++i) *p++ = i < n ? dig[i] : '0';
            if (n > x + 1) {
                *p++ = '.';
                copy(p, dig + x + 1, n - x - 1);
                p += n - x - 1;
            }
        } else {
            *p++ = '0';
            *p++ = '.';
            for (int i = 0; i < -x - 1; ++i) *p++ = '0';
            copy(p, dig, n);
            p += n;
        }
        return p;
    }
    *p++ = dig[0];
    if (n > 1) {
        *p++ = '.';
        copy(p, dig + 1, n - 1);
        p += n - 1;
    }
    *p++ = 'e';
    *p++ = x < 0 ? '-' : '+';
    int a = x < 0 ? -x : x;
    if (a >= 100) *p++ = (char)('0' + a / 100);
    *p++ = (char)('0' + a / 10 % 10);
    *p++ = (char)('0' + a % 10);
    return p;
}

/* v = c 2^q, a normal double */
static char *to_decimal(char *p, int q, uint64_t c)
{
    uint64_t out = c & 1, cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (c != C_MIN || q == Q_MIN) {
        cbl = cb - 2;
        k = flog10pow2(q);
    } else { /* at a power of two the interval below is half as wide */
        cbl = cb - 1;
        k = flog10three_quarters_pow2(q);
    }
    int h = q + flog2pow10(-k) + 2;
    uint64_t g1 = SHORTEST_G[k - K_MIN][0], g0 = SHORTEST_G[k - K_MIN][1];
    uint64_t vb = rop(g1, g0, cb << h), vbl = rop(g1, g0, cbl << h), vbr = rop(g1, g0, cbr << h);
    uint64_t s = vb >> 2;
    if (s >= 100) { /* one digit fewer: s' 10 and t' 10, s' = floor(s / 10) */
        uint64_t sp10 = 10 * mul_high(s, UINT64_C(115292150460684698) << 4), tp10 = sp10 + 10;
        int upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) return to_chars(p, upin ? sp10 : tp10, k);
    }
    uint64_t t = s + 1;
    int uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
    if (uin != win) return to_chars(p, uin ? s : t, k);
    /* both in the rounding interval: the closer to v, the even one on a tie */
    int64_t cmp = (int64_t)(vb - ((s + t) << 1));
    return to_chars(p, cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t, k);
}

/* A subnormal a > 0. Schubfach's shortest is at least two digits long where its interval
 * arithmetic runs short of digits (the Java specification it was made for wants two), so the
 * smallest subnormals would get "4.9e-324" for "5e-324". Their spacing is uniform, so printf's
 * correctly rounded text of the fewest digits that round-trip is the shortest and closest; the
 * C library's cost is no matter for values that do not occur in practice. */
static char *subnormal(char *p, double a)
{
    char text[40];
    for (int j = 1; j <= 17; ++j) {
        snprintf(text, sizeof text, "%.*e", j - 1, a);
        /* the bits, not ==: with subnormals flushed (math/fpmode.h) every subnormal compares equal to 0 */
        const double back = strtod(text, NULL);
        if (memcmp(&back, &a, sizeof a) == 0) break;
    }
    uint64_t f = 0;
    int n = 0;
    const char *s = text;
    for (; *s != 'e'; ++s)
        if (*s >= '0' && *s <= '9') f = 10 * f + (uint64_t)(*s - '0'), ++n;
    return to_chars(p, f, atoi(s + 1) - (n - 1));
}

char *cr_format_shortest(char *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t t = bits & (C_MIN - 1);
    int bq = (int)(bits >> (P - 1)) & 0x7ff;
    if (bq == 0x7ff) return p + snprintf(p, CR_SHORTEST_SIZE, "%.17g", v); /* inf, nan: printf's text */
    if (bits >> 63) *p++ = '-';
    if (bq != 0) {
        int mq = -Q_MIN + 1 - bq; /* -q */
        uint64_t c = C_MIN | t;
        if (0 < mq && mq < P) { /* an integer below 2^53: its own digits */
            uint64_t f = c >> mq;
            if (f << mq == c) return to_chars(p, f, 0);
        }
        return to_decimal(p, -mq, c);
    }
    if (t == 0) {
        *p++ = '0';
        return p;
    }
    return subnormal(p, fabs(v));
}
