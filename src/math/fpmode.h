/* The floating-point mode the library's numerics run in: subnormal numbers flushed to zero.
 *
 * Why: an implicit step's Newton increments decay geometrically along a long rod away from a
 * local load, by a roughly constant factor per element, so beyond some distance they pass through
 * the subnormal range (below 2.2e-308) on their way to zero. Every arithmetic operation with a
 * subnormal operand or result then takes a microcode assist (tens to hundreds of cycles instead of
 * one). The port-Hamiltonian §9.2 cantilever at 10^5 elements (bench_ph) had 14 011 subnormal
 * multipliers after one step and a third of its velocities underflowed to zero; flushing took its
 * step from 13.6-14.0 to 11.4-11.6 us per element (bench/README.md, "Subnormal numbers"). A
 * subnormal carries no information about a rod (its displacements, forces and velocities are many
 * orders of magnitude larger): results change only by what values below 2.2e-308 contributed,
 * which are read and written as 0 (a library function may still return one: exp(-710)).
 *
 * The library's entry points that run a solve or a stage set this mode and restore the caller's
 * flush bits on return (cr_fpmode_flush / cr_fpmode_restore); the thread pool's workers take the
 * caller's control bits with each job (linalg/pool.c: cr_fpmode_adopt), so two threads compute
 * what one does. On x86-64 this sets MXCSR's FTZ and DAZ bits, on AArch64 FPCR's FZ bit;
 * elsewhere (and on i386's x87 arithmetic) it does nothing. valgrind does not emulate FTZ/DAZ:
 * under it (callgrind's counts) the code runs unflushed.
 *
 * The rule for a flushed region: its arithmetic is in a call the compiler cannot see into (an
 * exported function of the shared library, a function pointer), so no floating-point operation is
 * moved across the mode switches (which are not barriers for register arithmetic). */
#ifndef COSSERAT_FPMODE_H
#define COSSERAT_FPMODE_H

#if defined(__x86_64__) || defined(__SSE2_MATH__)
#include <xmmintrin.h>
typedef unsigned int cr_fpmode;
#define CR_FPMODE_FLUSH 0x8040u /* MXCSR: FTZ (bit 15), DAZ (bit 6) */
#define CR_FPMODE_FLAGS 0x3Fu   /* MXCSR's exception flags (bits 0-5); the rest is control */
static inline cr_fpmode cr_fpmode_get(void) { return _mm_getcsr(); }
static inline void cr_fpmode_set(cr_fpmode m) { _mm_setcsr(m); }
#elif defined(__aarch64__)
typedef unsigned long long cr_fpmode;
#define CR_FPMODE_FLUSH (1ull << 24) /* FPCR: FZ */
#define CR_FPMODE_FLAGS 0ull         /* FPCR is control only (the flags are FPSR's) */
static inline cr_fpmode cr_fpmode_get(void)
{
    cr_fpmode m;
    __asm__ volatile("mrs %0, fpcr" : "=r"(m) : : "memory");
    return m;
}
static inline void cr_fpmode_set(cr_fpmode m) { __asm__ volatile("msr fpcr, %0" : : "r"(m) : "memory"); }
#else
typedef unsigned int cr_fpmode;
#define CR_FPMODE_FLUSH 0u
#define CR_FPMODE_FLAGS 0u
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

/* Takes the control bits (flush, rounding, exception masks) of m, keeping this thread's exception flags:
   a pool worker adopting its caller's mode for a task. */
static inline void cr_fpmode_adopt(cr_fpmode m)
{
    cr_fpmode now = cr_fpmode_get(), want = (now & (cr_fpmode)CR_FPMODE_FLAGS) | (m & ~(cr_fpmode)CR_FPMODE_FLAGS);
    if (now != want) cr_fpmode_set(want);
}

/* Restores the caller's flush bits; the exception flags raised meanwhile stay raised (fetestexcept). */
static inline void cr_fpmode_restore(cr_fpmode old)
{
    cr_fpmode now = cr_fpmode_get(), want = (now & ~(cr_fpmode)CR_FPMODE_FLUSH) | (old & CR_FPMODE_FLUSH);
    if (now != want) cr_fpmode_set(want);
}

#endif
