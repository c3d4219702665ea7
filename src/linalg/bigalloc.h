/* Zeroed solver arrays (Jacobians, work vectors) backed by transparent huge pages.
 *
 * A fresh 4 kB page costs a fault on its first write: on the development VMs about 12 µs
 * (3 ms per MB), so that faulting in the tangent of a 10⁵-node rod (118 MB) took 0.35 s, a
 * sixth of its static solve, and the faults do not run in parallel; the 1251-node tendon
 * manipulator's solve is 16 % faster with huge pages, its stability estimate twice as
 * fast (alternating runs of bench_static --tendon-only). Arrays from
 * BIGALLOC_MIN_BYTES (256 kB) on are 2 MB-aligned and advised for huge pages (madvise
 * MADV_HUGEPAGE, which the default "madvise" mode of Linux's transparent huge pages
 * honours): one fault per 2 MB, and fewer TLB misses when the solver streams them.
 * Measured there, 128 MB first written: 12 ms with huge pages (285 ms when the kernel
 * has to find fresh ones), 373–390 ms without. Elsewhere these are calloc and free. */
#ifndef COSSERAT_BIGALLOC_H
#define COSSERAT_BIGALLOC_H

#include <stddef.h>

/* count zeroed doubles, NULL when out of memory; released with free() */
double *cr_big_calloc(size_t count);

#endif
