/* Shortest round-trip text of a double (internal; src/io/shortest.c). */
#ifndef COSSERAT_IO_SHORTEST_H
#define COSSERAT_IO_SHORTEST_H

/* Room cr_format_shortest needs at p: "-1.2345678901234567e-308" and a margin. */
enum { CR_SHORTEST_SIZE = 32 };

/* Writes v into p (at least CR_SHORTEST_SIZE bytes, not NUL-terminated) and returns the end:
 * the fewest significant digits that read back (strtod) as exactly v — of those, the closest
 * to v — in the layout of printf's %.17g (fixed for decimal exponents -4 ... 16, else
 * d.ddde±XX), so at most as long as %.17g. "0", "-0", and printf's text of inf and nan. */
char *cr_format_shortest(char *p, double v);

#endif
