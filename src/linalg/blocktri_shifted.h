/* Shifted block-tridiagonal systems for implicit integrators:
 *
 *     E1 = s·M − J            (real shift s)
 *     E2 = (s_re + i s_im)·M − J   (complex shift)
 *
 * with M = diag(mass) constant (zeros mark algebraic rows) and J = ∂F/∂y a real
 * block-tridiagonal cr_blocktri. These are the two linear systems of every
 * simplified-Newton iteration of Radau IIA (include/cosserat/radau.h, HW IV.8
 * "The Linear System"); cr_blocktri_radau packages them as a cr_radau_linsys.
 *
 * The complex matrix type cr_blocktri_z keeps the block layout of cr_blocktri
 * (n blocks of b×b, row-major, diag/lower/upper, lower[i] couples block row i to
 * column i−1, upper[i] to column i+1) but stores every complex array as two
 * real planes, *_re and *_im, of the same shape. Split planes rather than
 * `double complex` or interleaved pairs because
 *   - the radau hook hands over right-hand sides as split re/im vectors, so the
 *     solve works on them in place with no copy;
 *   - the O(b³) kernels become plain real multiply-adds over contiguous rows,
 *     which the compiler vectorizes; `double complex` products compile to
 *     NaN-recovery branches (Annex G, __muldc3) that block vectorization unless
 *     -fcx-limited-range is given, which the build does not.
 *
 * Costs: O(n b³) to factor, O(n b²) to solve; no allocation after create.
 */
#ifndef COSSERAT_BLOCKTRI_SHIFTED_H
#define COSSERAT_BLOCKTRI_SHIFTED_H

#include "cosserat/base.h"
#include "cosserat/radau.h"
#include "linalg/blocktri.h"

#include <stddef.h>

/* ---------------------------------------------------------------------------
 * Complex block-tridiagonal matrix (split real/imaginary planes)
 * ------------------------------------------------------------------------- */

typedef struct cr_blocktri_z {
    int n, b;                     /* block count, block size */
    double *diag_re, *diag_im;    /* n blocks: D_i (row-major b×b each plane) */
    double *lower_re, *lower_im;  /* n blocks: L_i, block row i, column i−1 (L_0 unused) */
    double *upper_re, *upper_im;  /* n blocks: U_i, block row i, column i+1 (U_{n−1} unused) */
    int *pivot;                   /* n·b row pivots of the factored diagonal blocks */
    /* n·b reciprocals of the diagonal of each factored block's U, so that the
     * solves multiply instead of dividing (a complex division costs ~6 flops
     * plus a branch for scaling). Valid only when factored. */
    double *rpiv_re, *rpiv_im;
    int factored;
    /* Set by the factorization: lower_im was ignored because it is zero, as in
     * every shifted system (M is diagonal, so only diagonal blocks turn
     * complex); the Schur updates and the forward sweep then cost half. */
    int lower_real;
    /* Banded mode: factor with LAPACK zgbtrf (partial pivoting across blocks),
     * for the same reason as cr_blocktri's banded mode: a diagonal block that
     * is singular on its own (rigid strain components at a free or clamped end)
     * defeats the block Thomas algorithm even when the matrix is regular. */
    int banded;
    double *band;                 /* interleaved complex band storage, (3(2b−1)+1) × (n b) */
    int *band_pivot;
    double *band_rhs;             /* 2 n b scratch for the interleaved right-hand side */
} cr_blocktri_z;

/* Allocates an n×n-block matrix of b×b complex blocks, all zero. Returns NULL
 * when out of memory or when n < 1, b < 1 or n·b exceeds INT_MAX (LAPACK and the
 * integrator index unknowns with int). Free with cr_blocktri_z_destroy. */
cr_blocktri_z *cr_blocktri_z_create(int n, int b);
/* Same, factoring through LAPACK's banded complex LU (see `banded`). */
cr_blocktri_z *cr_blocktri_z_create_banded(int n, int b);
/* Frees the matrix (NULL allowed). */
void cr_blocktri_z_destroy(cr_blocktri_z *m);
/* Zeroes all blocks and marks the matrix unfactored. */
void cr_blocktri_z_zero(cr_blocktri_z *m);

/* Block accessors (row-major b×b planes). */
static inline double *cr_blocktri_z_D_re(cr_blocktri_z *m, int i) { return m->diag_re + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_z_D_im(cr_blocktri_z *m, int i) { return m->diag_im + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_z_L_re(cr_blocktri_z *m, int i) { return m->lower_re + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_z_L_im(cr_blocktri_z *m, int i) { return m->lower_im + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_z_U_re(cr_blocktri_z *m, int i) { return m->upper_re + (size_t)i * m->b * m->b; }
static inline double *cr_blocktri_z_U_im(cr_blocktri_z *m, int i) { return m->upper_im + (size_t)i * m->b * m->b; }

/* y = M x for split complex vectors of length n·b (only valid before
 * factoring; x and y must not overlap). */
void cr_blocktri_z_matvec(const cr_blocktri_z *m, const double *x_re, const double *x_im, double *y_re,
                          double *y_im);

/* In-place LU of the blocks as they stand: block Thomas algorithm with partial
 * pivoting by modulus inside the diagonal blocks, or zgbtrf in banded mode.
 * Returns CR_OK, or CR_SINGULAR when a pivot of block row *bad_block (may be
 * NULL) vanishes or is not finite; the matrix is then unusable until refilled.
 * In banded mode *bad_block is the block row of LAPACK's first zero pivot,
 * which row interchanges may place after the block that caused it. */
cr_status cr_blocktri_z_factor(cr_blocktri_z *m, int *bad_block);

/* Solves M x = re + i·im in place after a successful factorization (re, im:
 * length n·b each, not overlapping). In banded mode it uses m->band_rhs as scratch, so two
 * threads must not solve with the same banded matrix at once. */
void cr_blocktri_z_solve(const cr_blocktri_z *m, double *re, double *im);

/* ---------------------------------------------------------------------------
 * Shifted factorizations
 * ------------------------------------------------------------------------- */

/* work := shift·diag(mass) − J, then factored in place by cr_blocktri_factor
 * (block Thomas, or dgbtrf when work was made with cr_blocktri_create_banded).
 * work must have the n and b of J (allocated by the caller); J is only read.
 * mass has length n·b (NULL = identity). Then solve with cr_blocktri_solve(work, x).
 * Returns CR_OK, CR_BAD_INPUT on NULL or mismatched arguments, CR_SINGULAR
 * (with *bad_block, which may be NULL) when the shifted matrix is singular. */
cr_status cr_blocktri_shifted_factor_real(const cr_blocktri *J, const double *mass, double shift, cr_blocktri *work,
                                          int *bad_block);

/* work := (shift_re + i·shift_im)·diag(mass) − J, then factored in place by
 * cr_blocktri_z_factor. Same contract as the real version; solve with
 * cr_blocktri_z_solve(work, re, im). */
cr_status cr_blocktri_shifted_factor_complex(const cr_blocktri *J, const double *mass, double shift_re,
                                             double shift_im, cr_blocktri_z *work, int *bad_block);

/* ---------------------------------------------------------------------------
 * Radau IIA hook adaptor
 * ------------------------------------------------------------------------- */

/* Fills J = ∂F/∂y at (t, y) (both of length n·b; fy = F(t, y) for finite
 * differences). J arrives zeroed, so only the nonzero entries need writing.
 * Return CR_OK or a status that the integrator passes through (see
 * cr_radau_linsys.jacobian). */
typedef cr_status (*cr_blocktri_jacobian_fn)(double t, const double *y, const double *fy, cr_blocktri *J,
                                             void *user);

/* J, the mass vector and both shifted factorizations of a block-tridiagonal
 * problem with n·b unknowns, exposed as a cr_radau_linsys. Everything is owned
 * by the adaptor; the fields may be read (e.g. bad_block, the call counters)
 * but are written only by the hooks. */
typedef struct cr_blocktri_radau {
    int n, b;
    cr_blocktri_jacobian_fn jacobian;
    void *user;
    double *mass;               /* copy, length n·b */
    cr_blocktri *J;             /* the last Jacobian, never factored */
    cr_blocktri *real;          /* factored γ̂/h·M − J */
    cr_blocktri_z *cplx;        /* factored (α̂ + iβ̂)/h·M − J */
    int have_real, have_complex;  /* factorization valid for the current J */
    /* The callback writes every block the factorizations read (D_i, L_i for i > 0,
     * U_i for i < n−1), so J is not zeroed before it (cr_blocktri_radau_set_filled). */
    int filled;
    /* Condensation (cr_blocktri_radau_condense): the last `nc` unknowns of every block
     * are eliminated, the shifted systems are factored with bq = b − nc. */
    int nc, bq;
    cr_blocktri *Jc;            /* condensed Jacobian J_qq − J_qλ J_λλ⁻¹ J_λq (n blocks of bq×bq) */
    double *dinv;               /* n·nc: 1/(J_λλ)_kk */
    double *gd, *gl;            /* n·bq·nc: J_qλ(D_i) J_λλ,i⁻¹ and J_qλ(L_i) J_λλ,i−1⁻¹ */
    /* the same transposed (nc×bq), and J_λq of D_i and U_i transposed (bq×nc): the
     * right-hand side condensation and the expansion then run as column updates */
    double *gdt, *glt, *ldt, *lut;
    double *mass_q;             /* n·bq: the mass of the kept unknowns */
    double *xr, *xi;            /* n·bq scratch: condensed right-hand sides */
    double *rpiv;               /* bq = 13: reciprocal pivots of the real factorization, which
                                 * then uses the fixed-size kernels of blocktri_shifted.c */
    /* Kinematic condensation (cr_blocktri_radau_condense_kinematics): the 7 kinematic
     * unknowns of every condensed block are eliminated as well, the shifted systems are
     * factored in 6×6 blocks in the velocities whenever J_c has the kinematic pattern
     * (kin_ok, checked per Jacobian), in 13×13 blocks otherwise. */
    int kin, kin_ok;
    double *kpar;       /* n·8 per node: m_x, d_x, m_p, d_p, rotation flag, w (3) */
    double *kP;         /* n·3·4·36: per block row, block L, D, U: V, P_x, P_p, P_a (6×6 each) */
    double *kH;         /* n·24: A_j J_c,pv (4×6) of every node */
    double *kC;         /* n·3·42: J_c,va of blocks L, D, U transposed (7×6), for the solves */
    double *kG;         /* n·42: J_c,av of D transposed (6×7) */
    double *kr;         /* n·3: α, β, γ for the real shift */
    double *kcr, *kci;  /* n·3: α, β, γ for the complex shift */
    double *vr, *vi;    /* n·6 scratch: right-hand sides in the velocities */
    cr_blocktri *real6; /* factored s M_v − S(s), 6×6 blocks (private kernels, rpiv6) */
    cr_blocktri_z *cplx6;
    double *rpiv6;
    /* After each 6×6 factorization, per block row L_i, D̃_i⁻¹ and X_i = D̃_i⁻¹ U_i
     * transposed (column-major), so the solves are column updates: n·3·36 real,
     * n·3·72 complex (re plane, then im plane). */
    double *k6r, *k6z;
    int real6_used, cplx6_used; /* the current factorization is the 6×6 one */
    long kin_fallbacks;         /* Jacobians outside the kinematic pattern (13×13 systems) */
    int bad_block;              /* block row of the last singular factorization, −1 if none */
    /* Hook calls, to check that the integrator's counters (cr_radau_stats)
     * really went through this adaptor. */
    long jac_calls, factor_real_calls, factor_complex_calls, solve_real_calls, solve_complex_calls;
} cr_blocktri_radau;

/* Creates the adaptor for n blocks of size b. mass (length n·b, NULL =
 * identity) is copied; it must be the mass vector given to the integrator.
 * banded != 0 factors both shifted systems with LAPACK's banded LU instead of
 * the block Thomas algorithm (for diagonal blocks that are singular on their
 * own). jacobian is required; user is passed to it. Returns NULL with a
 * message in err (may be NULL) on bad input or out of memory. */
cr_blocktri_radau *cr_blocktri_radau_create(int n, int b, const double *mass, int banded,
                                            cr_blocktri_jacobian_fn jacobian, void *user, cr_error *err);

/* Frees the adaptor (NULL allowed). */
void cr_blocktri_radau_destroy(cr_blocktri_radau *a);

/* Declares that the Jacobian callback writes every block the factorizations read
 * (D_i, L_i for i > 0, U_i for i < n−1), so the adaptor does not zero J before
 * calling it. */
void cr_blocktri_radau_set_filled(cr_blocktri_radau *a);

/* Condenses the last nc unknowns of every block out of both shifted systems (before the
 * first Jacobian; not in banded mode). They must be algebraic (mass 0) with a diagonal
 * J_λλ, and coupled so that the condensed matrix stays block-tridiagonal: the λ
 * unknowns of block i enter the rows of blocks i (D_i) and i+1 (L_{i+1}) only, and
 * their rows depend on blocks i (D_i) and i+1 (U_i) only, as the stresses of element i
 * (stored in node i's block) in the dynamics of the mixed rod. With λ rows
 * −J_λλ x_λ − J_λq x_q = b_λ, the shifted systems (sM − J) x = b become
 *     (s M_q − J_c) x_q = b_q − J_qλ J_λλ⁻¹ b_λ,   J_c = J_qq − J_qλ J_λλ⁻¹ J_λq,
 *     x_λ = −J_λλ⁻¹ (b_λ + J_λq x_q),
 * with J_c real and computed once per Jacobian (M vanishes on the λ rows, so the shift
 * does not enter the elimination): both factorizations work on bq×bq blocks,
 * bq = b − nc. A Jacobian whose structure does not allow this (a nonzero coupling
 * outside the pattern, a zero or non-finite (J_λλ)_kk) makes the jacobian hook
 * return CR_BAD_INPUT with bad_block set. Returns CR_OK, CR_BAD_INPUT (0 < nc < b,
 * mass 0 on those rows, not banded) or CR_NO_MEMORY. */
cr_status cr_blocktri_radau_condense(cr_blocktri_radau *a, int nc, cr_error *err);

/* After cr_blocktri_radau_condense(a, nc) with b − nc = 13 (the mixed rod's dynamics):
 * also eliminates the kinematic rows q̇ = B(q) u of the condensed system (unknowns 0..2:
 * position r with ṙ = v; 3..6: quaternion p with ṗ = ½ p ⊗ (0, Ω); 7..12: v, Ω). Rows
 * a = 0..6 of a block depend on the block's own unknowns only, so with
 * K_j(s) = s M_a − J_c,aa (block diagonal)
 *     x_a = K⁻¹ (b_a + J_c,av x_v),
 *     (s M_v − J_c,vv − J_c,va K⁻¹ J_c,av) x_v = b_v + J_c,va K⁻¹ b_a
 * is exact and block-tridiagonal with 6×6 blocks. K⁻¹ is explicit: on the positions
 * J_c,rr = d_x I (0, or −1 on held rows) gives α = 1/(s m_x − d_x); on the quaternion
 * J_c,pp = A = ½ R(Ω) is skew with A² = −|Ω/2|² I, so (sI − A)⁻¹ = (sI + A)/(s² + |Ω/2|²)
 * = β I + γ A (or, held, A = d_p I: β = 1/(s m_p − d_p), γ = 0). The products
 * J_c,vx J_c,xv, J_c,vp J_c,pv and J_c,vp A J_c,pv are formed once per Jacobian, so a
 * factorization costs the 6×6 block Thomas algorithm plus 3 scalar combinations per
 * entry. A Jacobian without this pattern (other supports, a partly held quaternion)
 * uses the 13×13 systems. Returns CR_OK, CR_BAD_INPUT (not condensed to 13) or
 * CR_NO_MEMORY. */
cr_status cr_blocktri_radau_condense_kinematics(cr_blocktri_radau *a, cr_error *err);

/* The hook table for cr_radau_problem.linsys, with ctx = a:
 *   jacobian        zeroes J, calls the user callback, rejects a non-finite J
 *                   with CR_NONFINITE, invalidates both factorizations;
 *   factor_real     cr_blocktri_shifted_factor_real (CR_SINGULAR → the
 *                   integrator reduces h);
 *   factor_complex  cr_blocktri_shifted_factor_complex (likewise);
 *   solve_real / solve_complex  in place; CR_BAD_INPUT without a valid
 *                   factorization. */
cr_radau_linsys cr_blocktri_radau_linsys(cr_blocktri_radau *a);

/* After a factorization through the 6×6 kinematic path (b = 19, condensed by 6 and by the
 * kinematics; real when complex_ = 0, else complex): solves for a right-hand side that is
 * zero except in the last block, given as the last two blocks (xr, and xi when complex_;
 * 2·19 each, in place), and returns the solution's last two blocks, in O(1) (assemblies: a
 * rod's response to a load on its last node, next to that node). CR_UNSUPPORTED when the
 * factorization is another one (or n < 2): solve in full then. */
cr_status cr_blocktri_radau_solve_tail(const cr_blocktri_radau *a, int complex_, double *xr, double *xi);

/* The same path: z := K⁻¹ z (full length, re and im planes when complex_, in place) for a
 * z that is zero except in the last block, skipping the stages that would only carry zeros
 * (the condensations and the forward sweep above the last block): a rod's response to a
 * load on its last node, in the whole rod. Uses the adaptor's scratch. CR_UNSUPPORTED as
 * cr_blocktri_radau_solve_tail. */
cr_status cr_blocktri_radau_solve_last(cr_blocktri_radau *a, int complex_, double *zr, double *zi);

/* The same path: K⁻¹ (b + z) in two halves, for a load z on the last block that is known only
 * after the solution's last two blocks (an assembly's rod and its joint's multipliers):
 * _open leaves b's last two blocks at the solution's of K⁻¹ b (their right side in save, 4·19
 * doubles) and keeps the forward stages in the adaptor's scratch; _close (z: the last block,
 * 19 doubles a plane, zero in its stresses' rows) puts them back and leaves K⁻¹ (b + z) in b.
 * No other solve of the adaptor in between. CR_UNSUPPORTED as cr_blocktri_radau_solve_tail. */
cr_status cr_blocktri_radau_solve_open(cr_blocktri_radau *a, int complex_, double *br, double *bi, double *save);
cr_status cr_blocktri_radau_solve_close(cr_blocktri_radau *a, int complex_, double *br, double *bi, const double *save,
                                        const double *zr, const double *zi);

#endif
