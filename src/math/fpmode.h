/* The floating-point mode the library's numerics run in: subnormal numbers flushed to zero.
 *
 * Why: an implicit step's Newton increments decay geometrically along a long rod away from a
 * local load, by a roughly constant factor per element, so beyond some distance they pass through
 * the subnormal range (below 2.2e-308) on their way to zero. Every arithmetic operation with a
 * subnormal operand or result then takes a microcode assist (tens to hundreds of cycles instead of
 * one). The port-Hamiltonian §9.2 cantilever at 10^5 elements (bench_ph) had 14 000 subnormal
 * multipliers after one step and a third of its velocities underflowed to zero; flushing took its
 * step from 13.4-14.5 to 11.4-12.3 us per element. A subnormal carries no information about a rod
 * (its displacements, forces and velocities are many orders of magnitude larger), so the
 * results change only where a value below 2.2e-308 becomes 0.
 *
 * The library's entry points that run a solve or a stage set this mode and restore the caller's
 * on return (cr_fpmode_flush / cr_fpmode_restore); the thread pool's workers take the caller's
 * mode with each job (linalg/pool.c), so two threads compute what one does. On x86-64 this sets
 * MXCSR's FTZ and DAZ bits, on AArch64 FPCR's FZ bit; elsewhere it does nothing. */
#ifndef COSSERAT_FPMODE_H
#define COSSERAT_FPMODE_H

#if defined(__x86_64__) || defined(__SSE2__)
#include <xmmintrin.h>
typedef unsigned int cr_fpmode;
#define CR_FPMODE_FLUSH 0x8040u /* MXCSR: FTZ (bit 15), DAZ (bit 6) */
static inline cr_fpmode cr_fpmode_get(void) { return _mm_getcsr(); }
static inline void cr_fpmode_set(cr_fpmode m) { _mm_setcsr(m); }
#elif defined(__aarch64__)
typedef unsigned long long cr_fpmode;
#define CR_FPMODE_FLUSH (1ull << 24) /* FPCR: FZ */
static inline cr_fpmode cr_fpmode_get(void)
{
    cr_fpmode m;
    __asm__ volatile("mrs %0, fpcr" : "=r"(m));
    return m;
}
static inline void cr_fpmode_set(cr_fpmode m) { __asm__ volatile("msr fpcr, %0" : : "r"(m)); }
#else
typedef unsigned int cr_fpmode;
#define CR_FPMODE_FLUSH 0u
static inline cr_fpmode cr_fpmode_get(void) { return 0; }
static inline void cr_fpmode_set(cr_fpmode m) { (void)m; }
#endif

/* Sets the library's mode on this thread and returns the caller's, for cr_fpmode_restore. */
static inline cr_fpmode cr_fpmode_flush(void)
{
    cr_fpmode old = cr_fpmode_get();
    if ((old & CR_FPMODE_FLUSH) != CR_FPMODE_FLUSH) cr_fpmode_set(old | CR_FPMODE_FLUSH);
    return old;
}

/* Restores the caller's flush bits; the exception flags raised meanwhile stay raised (fetestexcept). */
static inline void cr_fpmode_restore(cr_fpmode old)
{
    cr_fpmode now = cr_fpmode_get(), want = (now & ~(cr_fpmode)CR_FPMODE_FLUSH) | (old & CR_FPMODE_FLUSH);
    if (now != want) cr_fpmode_set(want);
}

#endif
