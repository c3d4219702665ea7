/* Port-Hamiltonian rod: one Newton iteration in a single pass over the elements (the path
 * Newton takes; ph_assemble + ph_linear_* stay as the reference the tests compare with).
 *
 * Why a single pass. The reduced system of ph_linear.c (per free node (dphi, dtheta), the
 * rigid stresses) is what gets factored; forming the 36 x 36 element blocks first, storing
 * them (10 kB per element) and reducing them afterwards made the cost per element grow
 * 3-4x from 10^2 to 10^4 elements: the blocks left the caches and were streamed three
 * times per iteration. Here every element's contribution goes straight into the reduced
 * matrix T_m^T K T_1 (the strain Jacobians are reduced first, B T, 6 x 6 per node, and the
 * geometric, mass and multiplier terms have closed forms in the directors), and each element's
 * block is eliminated (with the forward substitution) as soon as its rows are complete, in a
 * dense node-block front (block_eliminate; the banded LU where the fronts cannot start from a
 * free end): only the upper factor is kept for the back substitution.
 *
 * The multipliers are not Newton unknowns here: at every iterate lambda is the least-squares
 * solution of the director rows, lambda = -(G_m G_m^T)^-1 G_m f_d / fac, so the director rows
 * are the projection of f_d onto the null space of G_m (the same equations: at the solution
 * f_d lies in the range of G_m^T). The q and rigid-stress increments are those of the full
 * Newton system at (q, lambda(q)) (the reduction does not need dlambda), and the Jacobian with
 * lambda(q) in place of the Newton iterate differs from the exact one by O(residual): the
 * iteration stays quadratic. The particular director increment dq_p (G_d(d_{n+1}) dq_p = -r_g)
 * enters the reduced right side through K dq_p, accumulated in the same pass. */
#include "linalg/pool.h"
#include "ph/ph.h"

#include <math.h>
#include <string.h>

/* The elimination and the element pass are also built for AVX2 + FMA, chosen at load time
   (target_clones: an ifunc), as the mixed rod's kernels are (solvers/stability.c, blocktri.c). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(COSSERAT_NO_DISPATCH)
#define PH_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PH_CLONES
#endif
/* fused multiply-adds where only a factorization's rounding changes (block_eliminate) */
#if defined(__GNUC__) && !defined(__clang__)
#define PH_CONTRACT __attribute__((optimize("fp-contract=fast")))
#else
#define PH_CONTRACT
#endif

static inline void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* R += c skew(a) M (-skew(b)) for a 3x3 M (distributed and point moments); R(i, l) at R[i * ld + l] */
static void add_pmp(double *R, int ld, double c, const double *a, const double M[3][3], const double *b)
{
    double SA[3][3] = {{0, -a[2], a[1]}, {a[2], 0, -a[0]}, {-a[1], a[0], 0}};
    double SB[3][3] = {{0, -b[2], b[1]}, {b[2], 0, -b[0]}, {-b[1], b[0], 0}};
    for (int i = 0; i < 3; ++i)
        for (int l = 0; l < 3; ++l) {
            double v = 0;
            for (int m = 0; m < 3; ++m)
                for (int k = 0; k < 3; ++k) v += SA[i][m] * M[m][k] * SB[k][l];
            R[(3 + i) * ld + 3 + l] -= c * v;
        }
}

/* Frontal banded LU (the algorithm of ph_linear.c band_lu in LAPACK's column layout) over a ring of
 * band columns: a column is zeroed when it enters the window, assembled, eliminated (with the forward
 * substitution) once its rows are complete, and its U part copied out; only those copies are read
 * again (back substitution). The working set is the window, whatever the number of elements. */
typedef struct front {
    int n, kl, ku, kv, ldab, mask;
    double *ring, *b, *U;
    size_t *uoff;
    int *ipiv;
    const int *last; /* per row/column: last coupled index (cr_ph.rlast) */
    int next, ju, zeroed;
    int utop; /* first row whose U entries may reach the column being eliminated */
    int *ext; /* ring (mask): ju after the step of row i, the last column row i of U reaches */
    /* the node-block front (block_eliminate) instead of the band, when blk: the element in the front,
       its first reduced index (node 2e's, else the middle node's) and sizes of node 2e (L0), node 2e + 2
       (L2), middle node + rigid stresses (ms); rev: elements from the last to the first */
    int blk, rev, base, L0, L2, ms;
    double *M, *bl; /* BLD x BLD row-major, local order: lead node, middle node, stresses, tail node */
    int nd;         /* columns (and rows) delayed by the fronts before (block_eliminate_delay): local 0..nd-1 */
} front;

enum { BLD = 32 }; /* the largest front: 6 + 6 + 2 * 6 stresses + 6 */
#if defined(__GNUC__)
typedef double v4d __attribute__((vector_size(32), aligned(32)));
/* unaligned (the element's node blocks sit at any column of the front) */
typedef double v4du __attribute__((vector_size(32), aligned(8)));
typedef double v2du __attribute__((vector_size(16), aligned(8)));
typedef double v2d __attribute__((vector_size(16)));
#endif

static inline double *colp(front *f, int j) { return f->ring + (size_t)(j & f->mask) * f->ldab; }
static inline double *band_at(front *f, int i, int j) { return colp(f, j) + f->kv + i - j; }

/* reduced index g of the element in the front -> its place in the front (lead node first: node 2e, or
   node 2e + 2 when rev) */
static inline int loc(const front *f, int g)
{
    int r = g - f->base;
    if (!f->rev) return f->nd + r;
    if (r >= f->L0 + f->ms) return f->nd + r - f->L0 - f->ms;
    if (r >= f->L0) return f->nd + r - f->L0 + f->L2;
    return f->nd + f->L2 + f->ms + r;
}
/* the inverse: place k >= nd of the front -> reduced index */
static inline int glob(const front *f, int k)
{
    k -= f->nd;
    if (!f->rev) return f->base + k;
    if (k < f->L2) return f->base + f->L0 + f->ms + k;
    if (k < f->L2 + f->ms) return f->base + f->L0 + k - f->L2;
    return f->base + k - f->L2 - f->ms;
}
static inline double *at(front *f, int i, int j)
{
    return f->blk ? f->M + loc(f, i) * BLD + loc(f, j) : band_at(f, i, j);
}
static inline double *rhs(front *f, int i) { return f->blk ? f->bl + loc(f, i) : f->b + i; }

static void zero_upto(front *f, int c)
{
    if (c > f->n) c = f->n;
    for (; f->zeroed < c; ++f->zeroed) memset(colp(f, f->zeroed), 0, sizeof(double) * f->ldab);
}

/* eliminates columns next..end-1 (rows up to last[j] complete) and applies them to b */
PH_CLONES static int eliminate(front *f, int end)
{
    if (end > f->n) end = f->n;
    if (end <= f->next) return 0;
    zero_upto(f, end + f->kv + 1);
    const int kv = f->kv;
    double *b = f->b;
    for (int j = f->next; j < end; ++j) {
        double *cj = colp(f, j) + kv;
        /* column j is nonzero down to last[j] only (fill comes from earlier columns, whose last is
           not larger); the pivot row's entries reach last[j + p] (fill: the running ju) */
        int km = f->last[j] - j, p = 0;
        double best = fabs(cj[0]);
        for (int i = 1; i <= km; ++i)
            if (fabs(cj[i]) > best) best = fabs(cj[i]), p = i;
        f->ipiv[j] = j + p;
        if (best == 0) {
            f->next = j;
            return j + 1;
        }
        int last = f->last[j + p];
        if (last > f->ju) f->ju = last;
        const int ju = f->ju;
        if (p) {
            for (int c = j; c <= ju; ++c) {
                double *col = colp(f, c) + kv + j - c;
                double t = col[0];
                col[0] = col[p], col[p] = t;
            }
            double t = b[j];
            b[j] = b[j + p], b[j + p] = t;
        }
        /* U(i, j), i <= j, is final: copy from the first row reaching column j (the rows' reach, the
           running ju after their steps, grows with i) */
        {
            if (f->utop < j - kv) f->utop = j - kv;
            while (f->utop < j && f->ext[f->utop & f->mask] < j) ++f->utop;
            f->ext[j & f->mask] = ju;
            int cnt = j - f->utop + 1;
            size_t o = f->uoff[j];
            memcpy(f->U + o, cj - (cnt - 1), sizeof(double) * cnt);
            f->uoff[j + 1] = o + cnt;
        }
        double inv = 1.0 / cj[0];
        for (int i = 1; i <= km; ++i) cj[i] *= inv;
        for (int c = j + 1; c <= ju; ++c) {
            double *col = colp(f, c) + kv + j - c;
            double a = col[0];
            if (a == 0) continue;
            for (int i = 1; i <= km; ++i) col[i] -= cj[i] * a;
        }
        double bj = b[j];
        if (bj != 0)
            for (int i = 1; i <= km; ++i) b[j + i] -= cj[i] * bj;
    }
    f->next = end;
    return 0;
}

PH_CLONES static void back_substitute(front *f)
{
    double *b = f->b;
    for (int j = f->n - 1; j >= 0; --j) {
        const double *u = f->U + f->uoff[j];
        int cnt = (int)(f->uoff[j + 1] - f->uoff[j]), top = j - cnt + 1;
        double bj = b[j] / u[cnt - 1];
        b[j] = bj;
        if (bj != 0)
            for (int k = 0; k < cnt - 1; ++k) b[top + k] -= u[k] * bj;
    }
}

/* The node-block front. The reduced unknowns of element e (node 2e, its middle node, its rigid
 * stresses) couple only with the next element's through the shared end node 2e + 2: the reduced matrix is
 * block tridiagonal in element blocks of 12 + 2 nr, and its LU is a sequence of dense fronts of the element
 * block and the next end node (18 + 2 nr, at most BLD). Each front eliminates the element block with
 * partial pivoting among its own rows (they are complete; the end node's are not) and hands the end node's
 * Schur complement and right side to the next front, where that node leads. The band LU's pivots could
 * reach the next node's rows, and its fill made it 3-4x more arithmetic in short scalar loops; here the
 * updates (rank 2: two pivots at a time) run along rows of up to 29 contiguous entries.
 *
 * Pivoting inside the block needs every leading block to be nonsingular: the rod cut at node 2e + 2 with
 * that node held. With a rigid extension (or shear) the tension of a segment held at both ends is not
 * determined (the two Gauss points' rows of an element are proportional in its middle node): so the
 * elimination starts at a free end (rev: from the last element when only the first node is clamped), and a
 * rod clamped at both ends with rigid components keeps the band LU. A pivot below 1e-12 of its column in
 * the front (the tail rows included) hands the iteration to the band LU as well. (The two-sided pass's half
 * from a clamped end delays such pivots instead: block_eliminate_delay.)
 *
 * Returns 0, k + 1 for a zero column k, -(k + 1) for a pivot too small at k. U's rows (k..d-1) stay in
 * rows 0..m-1 of the front (and are appended at U unless it is NULL); the forward-substituted right side
 * stays in bl. */
/* pivot row k of the front: its check against the column's scale (the tail rows included), the swap with
   row p (from column c0: the columns left of it are finished); 0 or block_eliminate's code */
static inline int take_pivot(double *M, double *bl, int k, int p, int c0, int d, double best, double tail)
{
    const double cmax = tail > best ? tail : best;
    if (!(best > 1e-12 * cmax)) return cmax == 0 ? k + 1 : -(k + 1);
    if (p != k) {
        double *rk = M + k * BLD, *rp = M + p * BLD;
#if defined(__GNUC__)
        /* in aligned groups of 4: the columns left of c0 are finished (never read again) and those from d to
           the group's end zero in both rows */
        for (int j = c0 & ~3; j < d; j += 4) {
            const v4d t = *(v4d *)(rk + j);
            *(v4d *)(rk + j) = *(v4d *)(rp + j), *(v4d *)(rp + j) = t;
        }
#else
        for (int j = c0; j < d; ++j) {
            double t = rk[j];
            rk[j] = rp[j], rp[j] = t;
        }
#endif
        double t = bl[k];
        bl[k] = bl[p], bl[p] = t;
    }
    return 0;
}

/* U row k (columns k..d-1) in whole groups of 4: the few doubles past its end are overwritten by the next
   row's, or fall in the stride's padding (ph_front_stride) */
static inline void copy_urow(double *U, const double *rk, int k, int d)
{
#if defined(__GNUC__)
    for (int j = k; j < d; j += 4) *(v4du *)(U + j - k) = *(const v4du *)(rk + j);
#else
    for (int j = k; j < d; ++j) U[j - k] = rk[j];
#endif
}

/* the rows i0..d-1 below pivot rows k and k + 1 (multipliers: column k, and column k + 1 times inv1),
   in NG aligned groups of 4 from column j0, with the pivot search of column k + 2 among the rows below m
   (best, p) and the tail rows' largest entry there (tail). NG is a constant after inlining: the pivot
   rows' groups stay in registers across the rows and the group loop is unrolled. */
static inline __attribute__((always_inline)) void rank2_rows(double *M, double *bl, int k, int m, int d, int j0,
                                                             double inv1, double bk, double b1, const int NG,
                                                             double *best, int *p, double *tail)
{
#if defined(__GNUC__)
    const double *rk = M + k * BLD, *r1 = rk + BLD;
    v4d pa[8], pb[8];
#pragma GCC unroll 8
    for (int g = 0; g < NG; ++g) pa[g] = *(const v4d *)(rk + j0 + 4 * g), pb[g] = *(const v4d *)(r1 + j0 + 4 * g);
    const int k1 = k + 1, k2 = k + 2, ms = m > k2 ? (m < d ? m : d) : k2;
    double bst = -1, tl = 0;
    int pp = k2;
    /* row i's update; v: its new |M(i, k + 2)| */
#define PH_RANK2_ROW(i, v)                                                                                             \
    double *ri = M + (i)*BLD;                                                                                          \
    const double la = ri[k], lb = ri[k1] * inv1;                                                                       \
    const v4d av = {la, la, la, la}, bv = {lb, lb, lb, lb};                                                            \
    _Pragma("GCC unroll 8") for (int g = 0; g < NG; ++g)                                                               \
    {                                                                                                                  \
        v4d *x = (v4d *)(ri + j0 + 4 * g);                                                                             \
        *x = (*x - av * pa[g]) - bv * pb[g];                                                                           \
    }                                                                                                                  \
    bl[i] = (bl[i] - la * bk) - lb * b1;                                                                               \
    const double v = fabs(ri[k2])
    /* the block's rows (pivot candidates), then the tail rows (the pivot's scale only): two loops, no test per row */
    int i = k2;
    for (; i < ms; ++i) {
        PH_RANK2_ROW(i, v);
        if (v > bst) bst = v, pp = i;
    }
    for (; i < d; ++i) {
        PH_RANK2_ROW(i, v);
        if (v > tl) tl = v;
    }
#undef PH_RANK2_ROW
    *best = bst, *p = pp, *tail = tl;
#else
    (void)M, (void)bl, (void)k, (void)m, (void)d, (void)j0, (void)inv1, (void)bk, (void)b1, (void)NG, (void)best,
        (void)p, (void)tail;
#endif
}

/* The elimination takes the pivots two at a time (a rank-2 update of the rows below): the row loop's
   overhead and the rows' loads and stores are per pair, the pivot rows' groups are held in registers. Pivot
   k + 1 is searched among the rows' column k + 1 updated by pivot k alone (one pass over that column), so
   the pivots are those of the rank-one sequence. The updates use fused multiply-adds (only the
   factorization's rounding changes: the equations, residuals and their differences are computed as
   before). */
PH_CLONES PH_CONTRACT static int block_eliminate(front *f, int m, int d, double *U)
{
    double *M = f->M, *bl = f->bl;
    /* the pivot search of column k: the largest |M(i, k)| among the block's rows i >= k (best, at p) and
       among the tail rows (tail: they count in the pivot's scale, not as pivots). Column 0's here; each
       later column's in the previous step's row updates, which have its entries at hand. */
    int p = 0;
    double best = -1, tail = 0;
    for (int i = 0; i < m; ++i) {
        double v = fabs(M[i * BLD]);
        if (v > best) best = v, p = i;
    }
    for (int i = m; i < d; ++i) {
        double v = fabs(M[i * BLD]);
        if (v > tail) tail = v;
    }
    const int fw = (d + 3) & ~3;
    for (int k = 0; k < m; k += 2) {
        double *rk = M + k * BLD;
        int info = take_pivot(M, bl, k, p, k, d, best, tail);
        if (info) return info;
        if (U) copy_urow(U, rk, k, d), U += d - k;
        const double inv = 1.0 / rk[k], bk = bl[k];
        const int k1 = k + 1;
        if (k1 == m) {
            /* the last pivot alone: the tail rows' rank-one update */
            const int j0 = k1 & ~3;
            for (int i = k1; i < d; ++i) {
                double *ri = M + i * BLD, l = ri[k] * inv;
#if defined(__GNUC__)
                const v4d lv = {l, l, l, l};
                for (int j = j0; j < d; j += 4) *(v4d *)(ri + j) -= lv * *(const v4d *)(rk + j);
#else
                for (int j = j0; j < d; ++j) ri[j] -= l * rk[j];
#endif
                bl[i] -= l * bk;
            }
            break;
        }
        /* column k + 1 by pivot k (the multipliers kept in column k), and its pivot search */
        const double a1 = rk[k1];
        best = -1, tail = 0, p = k1;
        for (int i = k1; i < m; ++i) {
            double *ri = M + i * BLD;
            const double l = ri[k] * inv, v = fabs(ri[k1] -= l * a1);
            ri[k] = l;
            if (v > best) best = v, p = i;
        }
        for (int i = m; i < d; ++i) {
            double *ri = M + i * BLD;
            const double l = ri[k] * inv, v = fabs(ri[k1] -= l * a1);
            ri[k] = l;
            if (v > tail) tail = v;
        }
        /* pivot k + 1 (its swap carries the multiplier of column k), its row finished by pivot k */
        info = take_pivot(M, bl, k1, p, k, d, best, tail);
        if (info) return info;
        double *r1 = M + k1 * BLD;
        const double l1 = r1[k];
#if defined(__GNUC__)
        {
            /* in aligned groups of 4 from the one holding column k + 2, as the rows below (the same fused
               operation per entry): columns k and k + 1 (the multiplier and the pivot) kept, those right of d
               zero in both rows */
            const double sk = r1[k], s1 = r1[k1];
            const v4d lv = {l1, l1, l1, l1};
            for (int j = (k + 2) & ~3; j < fw; j += 4) *(v4d *)(r1 + j) -= lv * *(const v4d *)(rk + j);
            r1[k] = sk, r1[k1] = s1;
        }
#else
        for (int j = k1 + 1; j < d; ++j) r1[j] -= l1 * rk[j];
#endif
        bl[k1] -= l1 * bk;
        if (U) copy_urow(U, r1, k1, d), U += d - k1;
        const double inv1 = 1.0 / r1[k1], b1 = bl[k1];
        /* the rows below: whole aligned groups of 4 from the one holding column k + 2 (the columns left of
           it are finished, never read again, and those right of d are zero in the pivot rows) */
        const int j0 = (k + 2) & ~3;
#if defined(__GNUC__)
        switch ((fw - j0) >> 2) {
        case 1:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 1, &best, &p, &tail);
            break;
        case 2:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 2, &best, &p, &tail);
            break;
        case 3:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 3, &best, &p, &tail);
            break;
        case 4:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 4, &best, &p, &tail);
            break;
        case 5:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 5, &best, &p, &tail);
            break;
        case 6:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 6, &best, &p, &tail);
            break;
        case 7:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 7, &best, &p, &tail);
            break;
        default:
            rank2_rows(M, bl, k, m, d, j0, inv1, bk, b1, 8, &best, &p, &tail);
            break;
        }
#else
        (void)fw;
        best = -1, tail = 0, p = k + 2;
        for (int i = k + 2; i < d; ++i) {
            double *ri = M + i * BLD;
            const double la = ri[k], lb = ri[k1] * inv1;
            for (int j = j0; j < d; ++j) ri[j] = (ri[j] - la * rk[j]) - lb * r1[j];
            bl[i] = (bl[i] - la * bk) - lb * b1;
            const double v = fabs(ri[k + 2]);
            if (i < (m > k + 2 ? m : k + 2)) {
                if (v > best) best = v, p = i;
            } else if (v > tail) {
                tail = v;
            }
        }
#endif
    }
    return 0;
}

/* What the back substitution keeps of a front, computed while the front is in cache: the eliminated rows'
 * solution as an affine function of the tail node's unknowns (the next front's lead, solved before this
 * front in the back substitution), x_k = c_k - sum_t S(k, t) x_tail(t) for k < m, t < nt = d - m (0 for the
 * last front): c = U11^-1 y and S = U11^-1 U12 from U's rows in the front (block_eliminate) and the
 * forward-substituted right side y; Z = (c, S's columns), m (1 + nt) doubles. The U rows themselves (279
 * doubles per element with three rigid components, 150 without) were written out and read back per
 * iteration; Z is 126 (84): at 10^5 elements the stream that dominated the memory traffic. The same
 * solution to round-off (another order of the same triangular solve). */
PH_CLONES PH_CONTRACT static void block_solution(const double *M, const double *bl, int m, int d, double *Z)
{
    const int nt = d - m;
#if defined(__GNUC__)
    /* row k of z: (c_k, S(k, 0..5), 0) in two groups of 4; the sum from the last row up in two chains (the
       newest row, k + 1, enters last: the rows' sums overlap) */
    v4d z[BLD][2];
    for (int k = m - 1; k >= 0; --k) {
        const double *rk = M + k * BLD;
        /* nt is 6 (a free tail node) or 0 (the last front) */
        const double *ut = rk + m;
        v4d a = {bl[k], 0, 0, 0}, b = {0, 0, 0, 0}, a2 = b, b2 = b;
        if (nt) a = (v4d){bl[k], ut[0], ut[1], ut[2]}, b = (v4d){ut[3], ut[4], ut[5], 0};
        int j = m - 1;
        for (; j > k + 1; j -= 2) {
            const double u = rk[j], u2 = rk[j - 1];
            const v4d uv = {u, u, u, u}, uv2 = {u2, u2, u2, u2};
            a -= uv * z[j][0], b -= uv * z[j][1];
            a2 -= uv2 * z[j - 1][0], b2 -= uv2 * z[j - 1][1];
        }
        if (j == k + 1) {
            const double u = rk[j];
            const v4d uv = {u, u, u, u};
            a2 -= uv * z[j][0], b2 -= uv * z[j][1];
        }
        const double inv = 1.0 / rk[k];
        const v4d iv = {inv, inv, inv, inv};
        z[k][0] = (a + a2) * iv, z[k][1] = (b + b2) * iv;
        Z[k] = z[k][0][0];
        if (nt) {
            double *S = Z + m + k;
            S[0] = z[k][0][1], S[m] = z[k][0][2], S[2 * m] = z[k][0][3];
            S[3 * m] = z[k][1][0], S[4 * m] = z[k][1][1], S[5 * m] = z[k][1][2];
        }
    }
#else
    double z[BLD][8];
    for (int k = m - 1; k >= 0; --k) {
        const double *rk = M + k * BLD;
        double v[8] = {bl[k], 0, 0, 0, 0, 0, 0, 0};
        for (int t = 0; t < nt; ++t) v[1 + t] = rk[m + t];
        for (int j = m - 1; j > k; --j)
            for (int c = 0; c < 8; ++c) v[c] -= rk[j] * z[j][c];
        const double inv = 1.0 / rk[k];
        for (int c = 0; c < 8; ++c) z[k][c] = v[c] * inv;
        for (int c = 0; c <= nt; ++c) Z[(size_t)c * m + k] = z[k][c];
    }
#endif
}

/* The fronts from a clamped end of a rod with rigid components (the two-sided pass's side that starts there).
 * There every leading block is singular or nearly so: the chain from the clamp to the front's tail node, held at
 * both ends, carries a tension its rows do not determine (exactly when it is straight). block_eliminate_delay
 * eliminates the columns 0..m-1 with the rows 0..m-1 as pivot candidates as block_eliminate does, but a column
 * whose best pivot is below PH_DELAY of its largest entry (the tail rows included) is not taken: it is swapped
 * to the end of the columns still to eliminate and delayed, with one of the rows, to the next front (the
 * tension's column: it finds its pivot there, in the tail node's rows that the next element completes, and
 * the next element's tension takes its place). The columns' reduced indices (ids) follow the swaps. Returns
 * the columns eliminated, mc: the Schur complement (rows and columns mc..d-1) holds the delayed columns and
 * the unpivoted rows at mc..m-1, the tail node after them. Threshold partial pivoting: the Schur complement's
 * growth per pivot is at most 1 / PH_DELAY. */
#define PH_DELAY 1e-3

/* the pivot search of column k: among the rows k..mr-1 (best, at p), among the tail rows mr..d-1 (tail) */
static inline void delay_search(const double *M, int k, int mr, int d, double *best, int *p, double *tail)
{
    double b = -1, t = 0;
    int q = k;
    for (int i = k; i < mr; ++i) {
        const double v = fabs(M[i * BLD + k]);
        if (v > b) b = v, q = i;
    }
    for (int i = mr; i < d; ++i) {
        const double v = fabs(M[i * BLD + k]);
        if (v > t) t = v;
    }
    *best = b, *p = q, *tail = t;
}

/* column k delayed: swapped with column c (the last still to eliminate) in all rows (U's rows above hold
   both columns' entries as well) */
static inline void delay_column(double *M, int d, int k, int c, int *ids)
{
    if (k != c) {
        for (int i = 0; i < d; ++i) {
            double *ri = M + i * BLD, t = ri[k];
            ri[k] = ri[c], ri[c] = t;
        }
        int t = ids[k];
        ids[k] = ids[c], ids[c] = t;
    }
}

static inline int delay_ok(double best, double tail) { return best > 0 && best >= PH_DELAY * tail; }

PH_CLONES PH_CONTRACT static int block_eliminate_delay(double *M, double *bl, int m, int d, int *ids)
{
    const int mr = m, fw = (d + 3) & ~3;
    int mc = m, p, k = 0;
    double best, tail;
    if (m > 0) delay_search(M, 0, mr, d, &best, &p, &tail);
    while (k < mc) {
        double *rk = M + k * BLD;
        if (!delay_ok(best, tail)) {
            delay_column(M, d, k, --mc, ids);
            if (k < mc) delay_search(M, k, mr, d, &best, &p, &tail);
            continue;
        }
        take_pivot(M, bl, k, p, k, d, best, tail);
        const double inv = 1.0 / rk[k], bk = bl[k];
        const int k1 = k + 1;
        if (k1 == mc) {
            /* the last pivot alone: the rank-one update of the rows below */
            for (int i = k1; i < d; ++i) {
                double *ri = M + i * BLD;
                const double l = ri[k] * inv;
                for (int j = k1; j < d; ++j) ri[j] -= l * rk[j];
                bl[i] -= l * bk;
            }
            break;
        }
        /* column k + 1 by pivot k (the multipliers kept in column k), and its pivot search */
        const double a1 = rk[k1];
        best = -1, tail = 0, p = k1;
        for (int i = k1; i < mr; ++i) {
            double *ri = M + i * BLD;
            const double l = ri[k] * inv, v = fabs(ri[k1] -= l * a1);
            ri[k] = l;
            if (v > best) best = v, p = i;
        }
        for (int i = mr; i < d; ++i) {
            double *ri = M + i * BLD;
            const double l = ri[k] * inv, v = fabs(ri[k1] -= l * a1);
            ri[k] = l;
            if (v > tail) tail = v;
        }
        if (!delay_ok(best, tail)) {
            /* pivot k alone (column k + 1 has its update), column k + 1 delayed */
            for (int i = k1; i < d; ++i) {
                double *ri = M + i * BLD;
                const double l = ri[k];
                for (int j = k + 2; j < d; ++j) ri[j] -= l * rk[j];
                bl[i] -= l * bk;
            }
            k = k1;
            delay_column(M, d, k, --mc, ids);
            if (k < mc) delay_search(M, k, mr, d, &best, &p, &tail);
            continue;
        }
        take_pivot(M, bl, k1, p, k, d, best, tail);
        double *r1 = M + k1 * BLD;
        const double l1 = r1[k];
        for (int j = k1 + 1; j < d; ++j) r1[j] -= l1 * rk[j];
        bl[k1] -= l1 * bk;
        const double inv1 = 1.0 / r1[k1], b1 = bl[k1];
        const int j0 = (k + 2) & ~3;
#if defined(__GNUC__)
        switch ((fw - j0) >> 2) {
        case 1:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 1, &best, &p, &tail);
            break;
        case 2:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 2, &best, &p, &tail);
            break;
        case 3:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 3, &best, &p, &tail);
            break;
        case 4:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 4, &best, &p, &tail);
            break;
        case 5:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 5, &best, &p, &tail);
            break;
        case 6:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 6, &best, &p, &tail);
            break;
        case 7:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 7, &best, &p, &tail);
            break;
        default:
            rank2_rows(M, bl, k, mr, d, j0, inv1, bk, b1, 8, &best, &p, &tail);
            break;
        }
#else
        (void)fw;
        best = -1, tail = 0, p = k + 2;
        for (int i = k + 2; i < d; ++i) {
            double *ri = M + i * BLD;
            const double la = ri[k], lb = ri[k1] * inv1;
            for (int j = k + 2; j < d; ++j) ri[j] = (ri[j] - la * rk[j]) - lb * r1[j];
            bl[i] = (bl[i] - la * bk) - lb * b1;
            const double v = fabs(ri[k + 2]);
            if (i < (mr > k + 2 ? mr : k + 2)) {
                if (v > best) best = v, p = i;
            } else if (v > tail) {
                tail = v;
            }
        }
#endif
        k += 2;
    }
    return mc;
}

/* block_solution for any number of tail columns nt = d - m <= 15 (the delayed columns and the tail node): Z = (c,
   S's nt columns), m (1 + nt) doubles. Row k of z is (c_k, S(k, 0..nt-1)) in NG groups of 4 (a constant after
   inlining), summed from the last row up in two chains as block_solution does. */
static inline __attribute__((always_inline)) void solution_ng(const double *M, const double *bl, int m, int d,
                                                              double *Z, const int NG)
{
    const int nt = d - m;
#if defined(__GNUC__)
    v4d z[BLD][4];
    for (int k = m - 1; k >= 0; --k) {
        const double *rk = M + k * BLD;
        _Alignas(32) double v[16];
        v[0] = bl[k];
        for (int t = 0; t < nt; ++t) v[1 + t] = rk[m + t];
        for (int t = nt + 1; t < 4 * NG; ++t) v[t] = 0;
        v4d a[4], a2[4];
#pragma GCC unroll 4
        for (int g = 0; g < NG; ++g) a[g] = *(const v4d *)(v + 4 * g), a2[g] = (v4d){0, 0, 0, 0};
        int j = m - 1;
        for (; j > k + 1; j -= 2) {
            const double u = rk[j], u2 = rk[j - 1];
            const v4d uv = {u, u, u, u}, uv2 = {u2, u2, u2, u2};
#pragma GCC unroll 4
            for (int g = 0; g < NG; ++g) a[g] -= uv * z[j][g], a2[g] -= uv2 * z[j - 1][g];
        }
        if (j == k + 1) {
            const double u = rk[j];
            const v4d uv = {u, u, u, u};
#pragma GCC unroll 4
            for (int g = 0; g < NG; ++g) a2[g] -= uv * z[j][g];
        }
        const double inv = 1.0 / rk[k];
        const v4d iv = {inv, inv, inv, inv};
#pragma GCC unroll 4
        for (int g = 0; g < NG; ++g) z[k][g] = (a[g] + a2[g]) * iv, *(v4d *)(v + 4 * g) = z[k][g];
        for (int c = 0; c <= nt; ++c) Z[(size_t)c * m + k] = v[c];
    }
#else
    (void)NG;
    double z[BLD][16];
    for (int k = m - 1; k >= 0; --k) {
        const double *rk = M + k * BLD;
        double v[16];
        v[0] = bl[k];
        for (int t = 0; t < nt; ++t) v[1 + t] = rk[m + t];
        for (int j = k + 1; j < m; ++j)
            for (int c = 0; c <= nt; ++c) v[c] -= rk[j] * z[j][c];
        const double inv = 1.0 / rk[k];
        for (int c = 0; c <= nt; ++c) z[k][c] = v[c] * inv, Z[(size_t)c * m + k] = z[k][c];
    }
#endif
}

PH_CLONES PH_CONTRACT static void block_solution_any(const double *M, const double *bl, int m, int d, double *Z)
{
    switch ((d - m) >> 2) { /* (1 + nt + 3) / 4 groups */
    case 0:
        solution_ng(M, bl, m, d, Z, 1);
        break;
    case 1:
        solution_ng(M, bl, m, d, Z, 2);
        break;
    case 2:
        solution_ng(M, bl, m, d, Z, 3);
        break;
    default:
        solution_ng(M, bl, m, d, Z, 4);
        break;
    }
}

/* the next front from this one (m rows eliminated of d): the tail node's Schur complement and right side
   (rows and columns m..d-1) move to the lead's place (0..d-m-1, never overlapping: m >= d - m), the rest
   of rows 0..d-1 is zeroed, only up to their last group of 4 (as block_eliminate writes them): a memset of
   the whole rows costs more than the elimination's row updates. NG = the groups of 4 per row, a constant
   after inlining (the stores unrolled; GCC would turn the loops into memset calls, one per row, unless told
   not to). */
static inline __attribute__((always_inline)) void next_front_ng(double *M, double *bl, int m, int d, const int NG)
{
    const int nt = d - m;
#if defined(__GNUC__)
    if (nt == 6 && NG >= 2) {
        /* a node's Schur complement (the common case): each row as one group of 4 and one of 2 + 2 zeros */
        const v4d zero = {0, 0, 0, 0};
        for (int i = 0; i < 6; ++i) {
            double *dst = M + i * BLD;
            const double *src = M + (m + i) * BLD + m;
            const v4d lo = *(const v4du *)src;
            const v2d hi = *(const v2du *)(src + 4);
            *(v4d *)dst = lo;
            *(v4d *)(dst + 4) = (v4d){hi[0], hi[1], 0, 0};
#pragma GCC unroll 8
            for (int g = 2; g < NG; ++g) *(v4d *)(dst + 4 * g) = zero;
            bl[i] = bl[m + i];
        }
        for (int i = 6; i < d; ++i) {
#pragma GCC unroll 8
            for (int g = 0; g < NG; ++g) *(v4d *)(M + i * BLD + 4 * g) = zero;
            bl[i] = 0;
        }
        return;
    }
#endif
    for (int i = 0; i < nt; ++i) {
        double *dst = M + i * BLD;
        const double *src = M + (m + i) * BLD + m;
        for (int j = 0; j < nt; ++j) dst[j] = src[j];
        for (int j = nt; j < 4 * NG; ++j) dst[j] = 0;
        bl[i] = bl[m + i];
    }
#if defined(__GNUC__)
    const v4d zero = {0, 0, 0, 0};
    for (int i = nt; i < d; ++i) {
#pragma GCC unroll 8
        for (int g = 0; g < NG; ++g) *(v4d *)(M + i * BLD + 4 * g) = zero;
        bl[i] = 0;
    }
#else
    for (int i = nt; i < d; ++i) {
        for (int j = 0; j < 4 * NG; ++j) M[i * BLD + j] = 0;
        bl[i] = 0;
    }
#endif
}

#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
PH_CLONES static void
next_front(double *M, double *bl, int m, int d)
{
    switch ((d + 3) >> 2) {
    case 1:
        next_front_ng(M, bl, m, d, 1);
        break;
    case 2:
        next_front_ng(M, bl, m, d, 2);
        break;
    case 3:
        next_front_ng(M, bl, m, d, 3);
        break;
    case 4:
        next_front_ng(M, bl, m, d, 4);
        break;
    case 5:
        next_front_ng(M, bl, m, d, 5);
        break;
    case 6:
        next_front_ng(M, bl, m, d, 6);
        break;
    case 7:
        next_front_ng(M, bl, m, d, 7);
        break;
    default:
        next_front_ng(M, bl, m, d, 8);
        break;
    }
}

/* element e in the front: its reduced offsets; *m the rows it eliminates, *d the front's size */
static void block_set(front *f, const cr_ph *s, int e, int *m, int *d)
{
    int a = s->node_roff[2 * e], c = s->node_roff[2 * e + 2];
    f->L0 = a >= 0 ? 6 : 0, f->L2 = c >= 0 ? 6 : 0;
    f->base = a >= 0 ? a : s->node_roff[2 * e + 1];
    f->ms = 6 + 2 * s->nr;
    int lead = f->rev ? f->L2 : f->L0, tail = f->rev ? f->L0 : f->L2;
    int last = f->rev ? e == 0 : e == s->ne - 1;
    *d = f->nd + lead + f->ms + tail;
    *m = last ? *d : f->nd + lead + f->ms;
}

/* back substitution of the node-block fronts, in the opposite order of the elimination: the fronts t0..t1-1
   of the elimination's order (all: 0..n_e - 1), each from its tail node's solution (block_solution) */
PH_CLONES static void block_back(front *f, const cr_ph *s, size_t stride, int t0, int t1)
{
    double *b = f->b;
    for (int t = t1 - 1; t >= t0; --t) {
        int e = f->rev ? s->ne - 1 - t : t, m, d;
        block_set(f, s, e, &m, &d);
        const int nt = d - m;
        const double *Z = f->U + (size_t)e * stride;
        double x[BLD];
        for (int k = 0; k < m; ++k) x[k] = Z[k];
        /* the tail node's unknowns are contiguous (one node), and so are the front's in each of its segments
           (lead node, middle node and stresses, tail node): glob once per segment */
        const double *bt = nt ? b + glob(f, m) : NULL;
        for (int c = 0; c < nt; ++c) {
            const double xc = bt[c], *S = Z + (size_t)(1 + c) * m;
            for (int k = 0; k < m; ++k) x[k] -= S[k] * xc;
        }
        if (!f->rev) {
            for (int k = 0; k < m; ++k) b[f->base + k] = x[k];
        } else {
            const int seg[4] = {0, f->nd + f->L2, f->nd + f->L2 + f->ms, m};
            for (int q = 0; q < 3; ++q) {
                const int k0 = seg[q], k1 = seg[q + 1] < m ? seg[q + 1] : m;
                if (k0 >= k1) continue;
                const int go = glob(f, k0) - k0;
                for (int k = k0; k < k1; ++k) b[go + k] = x[k];
            }
        }
    }
}

/* adds the 6 x 6 block R at reduced (ri, ci) */
static inline void add_block(front *f, int ri, int ci, const double R[6][6])
{
    if (f->blk) {
        double *M = f->M + loc(f, ri) * BLD + loc(f, ci);
        for (int i = 0; i < 6; ++i)
            for (int l = 0; l < 6; ++l) M[i * BLD + l] += R[i][l];
        return;
    }
    for (int l = 0; l < 6; ++l) {
        double *col = band_at(f, ri, ci + l);
        for (int i = 0; i < 6; ++i) col[i] += R[i][l];
    }
}

/* node I complete (all its elements assembled): point loads, least-squares multipliers, the
   multiplier and point-moment blocks and the node's reduced right side */
/* per-node G_d blocks and Gram factors, kept for the few nodes in flight (slot I & 7) */
typedef struct node_ring {
    double gram1[8][36], gramm[8][36];
} node_ring;

/* y = G_d(d) x (6) and x = G_d(d)^T l (9) in closed form (the rows of G_d are the gradients of
   g(d) = (|d1|^2/2, |d2|^2/2, |d3|^2/2, d1.d2, d1.d3, d2.d3), spec §1): no 6 x 9 matrix is formed */
static inline void g_apply(const double *d, const double *x, double y[6])
{
    const double *a = d, *b = d + 3, *c = d + 6;
    y[0] = dot3(a, x), y[1] = dot3(b, x + 3), y[2] = dot3(c, x + 6);
    y[3] = dot3(b, x) + dot3(a, x + 3), y[4] = dot3(c, x) + dot3(a, x + 6), y[5] = dot3(c, x + 3) + dot3(b, x + 6);
}
static inline void gt_apply(const double *d, const double l[6], double x[9])
{
    const double L[3][3] = {{l[0], l[3], l[4]}, {l[3], l[1], l[5]}, {l[4], l[5], l[2]}};
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) x[3 * k + c] = L[k][0] * d[c] + L[k][1] * d[3 + c] + L[k][2] * d[6 + c];
}

/* ph_gram_apply (ph_linear.c) unrolled: the Cholesky solve with the factor of gram_factor_dirs */
static inline void gram_solve(const double Lc[36], double b[6])
{
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) {
        double v = b[i];
#pragma GCC unroll 6
        for (int k = 0; k < i; ++k) v -= Lc[6 * i + k] * b[k];
        b[i] = v * Lc[6 * i + i];
    }
#pragma GCC unroll 6
    for (int i = 5; i >= 0; --i) {
        double v = b[i];
#pragma GCC unroll 6
        for (int k = i + 1; k < 6; ++k) v -= Lc[6 * k + i] * b[k];
        b[i] = v * Lc[6 * i + i];
    }
}

/* The contact's 12 x 12 node block K (rows and columns: position, d1, d2, d3), times fac, reduced as the
 * rest: R += T_m^T K T_1 (rows: the position's and sum_k d_m,k x (row of d_k); columns: the position's and
 * dd_j = theta x d1_j) and kr += T_m^T K dq_p. Only the friction couples the directors (a frictionless
 * contact's block is the position's alone). */
static void contact_block(const double *K, double fac, const double *dm, const double *d1, const double *dqp,
                          double R[6][6], double *kr)
{
    double red[12][6], kq[12]; /* K T_1 (12 x 6) and K dq_p */
    for (int i = 0; i < 12; ++i) {
        const double *Ki = K + 12 * i;
        for (int c = 0; c < 3; ++c) red[i][c] = fac * Ki[c];
        red[i][3] = red[i][4] = red[i][5] = kq[i] = 0;
        for (int j = 0; j < 3; ++j) {
            const double *dj = d1 + 3 * j, *kj = Ki + 3 + 3 * j;
            /* kj . (theta x dj) = theta . (dj x kj) */
            red[i][3] += fac * (dj[1] * kj[2] - dj[2] * kj[1]);
            red[i][4] += fac * (dj[2] * kj[0] - dj[0] * kj[2]);
            red[i][5] += fac * (dj[0] * kj[1] - dj[1] * kj[0]);
            kq[i] += fac * dot3(kj, dqp + 3 * j);
        }
    }
    for (int c = 0; c < 3; ++c) {
        for (int l = 0; l < 6; ++l) R[c][l] += red[c][l];
        kr[c] += kq[c];
    }
    for (int k = 0; k < 3; ++k) {
        const double *a = dm + 3 * k;
        for (int l = 0; l < 6; ++l) {
            const double *b = &red[3 + 3 * k][0];
            const double v0 = b[l], v1 = b[6 + l], v2 = b[12 + l]; /* rows 3 + 3k + 0..2, column l */
            R[3][l] += a[1] * v2 - a[2] * v1;
            R[4][l] += a[2] * v0 - a[0] * v2;
            R[5][l] += a[0] * v1 - a[1] * v0;
        }
        const double *q = kq + 3 + 3 * k;
        kr[3] += a[1] * q[2] - a[2] * q[1];
        kr[4] += a[2] * q[0] - a[0] * q[2];
        kr[5] += a[0] * q[1] - a[1] * q[0];
    }
}

PH_CLONES static void finish_node(cr_ph *s, int I, int dyn, double fac, double gam, const cr_ph_loads *loads, double *X,
                                  double *r, front *f, double *kred, node_ring *nr_, int jac)
{
    const double *d1 = s->q1 + 12 * I + 3, *d0 = s->q + 12 * I + 3;
    double dm[9];
    for (int k = 0; k < 9; ++k) dm[k] = dyn ? 0.5 * (d0[k] + d1[k]) : d1[k];
    double *fe = s->fext + 12 * I;
    double mu[3] = {0, 0, 0};
    if (loads && loads->node_force) {
        cr_vec3 nu = loads->node_force[I];
        fe[0] += nu.x, fe[1] += nu.y, fe[2] += nu.z;
    }
    if (loads && loads->node_moment) {
        cr_v3_store(loads->node_moment[I], mu);
        for (int k = 0; k < 3; ++k) {
            double t[3];
            cross(mu, dm + 3 * k, t); /* T(d_{n+1/2}) mu (spec §6, §12.3) */
            for (int c = 0; c < 3; ++c) fe[3 + 3 * k + c] += 0.5 * t[c];
        }
    }
    int o = s->node_off[I], ro = s->node_roff[I];
    if (o < 0) return;
    double *ro_ = r + o;
    for (int k = 0; k < 12; ++k) ro_[k] -= fac * fe[k];
    /* contact: the discrete gradient of V_c (an internal force), the friction (at the contact point: its
       moment in the director rows, before the multipliers' projection of those rows) and their block */
    double dgc[12], Kc[144];
    int touch = s->ncp > 0 && ph_contact_force(s, I, dyn, dgc, Kc, NULL, NULL, NULL);
    if (touch)
        for (int c = 0; c < 12; ++c) ro_[c] += fac * dgc[c];
    /* lambda = -(Gm Gm^T)^-1 Gm f_d / fac */
    double lam[6], gl[9];
    g_apply(dm, ro_ + 3, lam);
    for (int k = 0; k < 6; ++k) lam[k] = -lam[k] / fac;
    gram_solve(dyn ? nr_->gramm[I & 7] : nr_->gram1[I & 7], lam);
    memcpy(X + o + 12, lam, sizeof lam);
    memcpy(s->lam1 + 6 * I, lam, sizeof lam);
    gt_apply(dm, lam, gl);
    for (int c = 0; c < 9; ++c) ro_[3 + c] += fac * gl[c];
    if (!jac) return;
    /* d (G(d_m)^T lambda) / d d_{n+1} = gam Lambda (x) I3, reduced; and the point moment's term */
    const double Lm[3][3] = {{lam[0], lam[3], lam[4]}, {lam[3], lam[1], lam[5]}, {lam[4], lam[5], lam[2]}};
    const double *dqp = s->dqp + 12 * I + 3;
    /* the theta-theta block sum_ab c_ab P(dm_a)^T P(d1_b), P(a)^T P(b) = (a . b) I - b a^T (c P(a)^T P(b) =
       c skew(a) (-skew(b)) on one director): tr(W) I - W with W = sum_a v_a dm_a^T, v_a = sum_b c_ab d1_b, as
       the element's geometric terms */
    double R[6][6] = {{0}}, *kr = kred + 6 * I, W[3][3] = {{0}}, tr = 0;
    /* kr's theta rows in a local copy across the loop (the same sums; stores to the rod's array made GCC reload
       the directors) */
    double kt[3] = {kr[3], kr[4], kr[5]};
    for (int a = 0; a < 3; ++a) {
        const double *da = dm + 3 * a, cg = fac * gam;
        const double c0 = cg * Lm[a][0], c1 = cg * Lm[a][1], c2 = cg * Lm[a][2];
        double v[3], w[3], t[3];
        for (int k = 0; k < 3; ++k) {
            v[k] = c0 * d1[k] + c1 * d1[3 + k] + c2 * d1[6 + k];
            w[k] = c0 * dqp[k] + c1 * dqp[3 + k] + c2 * dqp[6 + k];
        }
        for (int i = 0; i < 3; ++i)
            for (int l = 0; l < 3; ++l) W[i][l] += v[i] * da[l];
        tr += dot3(da, v);
        cross(da, w, t);
        for (int k = 0; k < 3; ++k) kt[k] += t[k];
    }
    kr[3] = kt[0], kr[4] = kt[1], kr[5] = kt[2];
    const int pm = mu[0] != 0 || mu[1] != 0 || mu[2] != 0;
    if (f->blk && !pm && !touch) {
        /* the block is the theta-theta part alone: added to the front without the zeros of R (the same sums) */
        double *Mt = f->M + (loc(f, ro) + 3) * BLD + loc(f, ro) + 3;
        for (int i = 0; i < 3; ++i) {
            double Ri[3] = {-W[i][0], -W[i][1], -W[i][2]};
            Ri[i] += tr;
            for (int l = 0; l < 3; ++l) Mt[i * BLD + l] += Ri[l];
        }
    } else {
        for (int i = 0; i < 3; ++i) {
            for (int l = 0; l < 3; ++l) R[3 + i][3 + l] = -W[i][l];
            R[3 + i][3 + i] += tr;
        }
    }
    if (pm) {
        const double M[3][3] = {{0, -mu[2], mu[1]}, {mu[2], 0, -mu[0]}, {-mu[1], mu[0], 0}};
        double c = -fac * gam * 0.5;
        for (int k = 0; k < 3; ++k) {
            add_pmp(&R[0][0], 6, c, dm + 3 * k, M, d1 + 3 * k);
            double w[3], t[3];
            for (int i = 0; i < 3; ++i) w[i] = c * dot3(M[i], dqp + 3 * k);
            cross(dm + 3 * k, w, t);
            for (int i = 0; i < 3; ++i) kr[3 + i] += t[i];
        }
    }
    if (touch) contact_block(Kc, fac, dm, d1, dqp, R, kr);
    if (!f->blk || pm || touch) add_block(f, ro, ro, R);
    /* reduced right side -(T_m^T (r + K dq_p)) (the node's six rows are contiguous in the front and the band) */
    double *br = rhs(f, ro);
    for (int c = 0; c < 3; ++c) br[c] -= ro_[c] + kr[c];
    double pr[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        double t[3];
        cross(dm + 3 * k, ro_ + 3 + 3 * k, t);
        for (int c = 0; c < 3; ++c) pr[c] += t[c];
    }
    for (int c = 0; c < 3; ++c) br[3 + c] -= pr[c] + kr[3 + c];
}

/* ph_gram_factor of G_d(d) from the directors' six dot products (G G^T in closed form) */
PH_CLONES static int gram_factor_dirs(const double *d, double Lc[36])
{
    const double *a = d, *b = d + 3, *c = d + 6;
    double aa = dot3(a, a), bb = dot3(b, b), cc = dot3(c, c), ab = dot3(a, b), ac = dot3(a, c), bc = dot3(b, c);
    const double A[6][6] = {{aa, 0, 0, ab, ac, 0},        {0, bb, 0, ab, 0, bc},        {0, 0, cc, 0, ac, bc},
                            {ab, ab, 0, aa + bb, bc, ac}, {ac, 0, ac, bc, aa + cc, ab}, {0, bc, bc, ac, ab, bb + cc}};
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i)
#pragma GCC unroll 6
        for (int j = 0; j <= i; ++j) {
            double v = A[i][j];
#pragma GCC unroll 6
            for (int k = 0; k < j; ++k) v -= Lc[6 * i + k] * Lc[6 * j + k];
            if (i == j) {
                if (!(v > 0)) return 0;
                Lc[6 * i + i] = 1.0 / sqrt(v);
            } else {
                Lc[6 * i + j] = v * Lc[6 * j + j];
            }
        }
    return 1;
}

/* node I: constraint rows, G_d blocks and their Gram factors, the particular increment dq_p (jac: a
   residual-only pass needs neither dq_p nor, in dynamics, the factor at d_{n+1}: they enter the Newton
   matrix's right side only) */
PH_CLONES static int prep_node(cr_ph *s, int I, int dyn, double *r, node_ring *nr_, int jac)
{
    int o = s->node_off[I];
    double *dqp = s->dqp + 12 * I;
    /* the node's accumulators start here, not in a pass over the whole rod before the elements: one
       sweep of memory less at large n_e */
    memset(s->fext + 12 * I, 0, sizeof(double) * 12);
    if (jac) {
        memset(dqp, 0, sizeof(double) * 12);
        memset(s->kdq + 6 * I, 0, sizeof(double) * 6);
    }
    if (o < 0) return 1;
    memset(r + o, 0, sizeof(double) * 12);
    const double *d1 = s->q1 + 12 * I + 3, *d0 = s->q + 12 * I + 3;
    double dm[9], g1[6];
    for (int k = 0; k < 9; ++k) dm[k] = dyn ? 0.5 * (d0[k] + d1[k]) : d1[k];
    /* statics: d_{n+1/2} is d_{n+1} (finish_node reads gram1) */
    if ((jac || !dyn) && !gram_factor_dirs(d1, nr_->gram1[I & 7])) return 0;
    if (dyn && !gram_factor_dirs(dm, nr_->gramm[I & 7])) return 0;
    ph_constraint(d1, g1);
    for (int k = 0; k < 6; ++k) r[o + 12 + k] = g1[k] - s->g0[6 * I + k];
    if (!jac) return 1;
    double b[6];
    for (int k = 0; k < 6; ++k) b[k] = -r[o + 12 + k];
    gram_solve(nr_->gram1[I & 7], b);
    double x[9]; /* (a local: GCC reloaded d1 after each store to the rod's dq_p) */
    gt_apply(d1, b, x);
    memcpy(dqp + 3, x, sizeof x);
    return 1;
}

/* The strain Jacobian of a node at a point is linear in its shape value n and derivative ns:
 * B_a = n BN + ns BS (ph_strain_jacobian). Row j is nonzero in the two fields rf[j][u] (0 = phi,
 * 1..3 = d1..d3), where BN and BS hold the 3-vectors N[j][u] and S[j][u]. They are written once per
 * point; each node's reduced Jacobian, the internal force and B dq_p follow from them, without the
 * 6 x 12 matrices (mostly zeros) per node. */
static const int rf[6][2] = {{0, 1}, {0, 2}, {0, 3}, {2, 3}, {3, 1}, {1, 2}};
typedef struct strain_parts {
    double N[6][2][3], S[6][2][3];
} strain_parts;

static inline void strain_parts_at(const double *q, const double *qs, strain_parts *P)
{
    /* (the force rows' N[k][0] and S[k][1] are zero: never read, not written) */
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) P->N[k][1][c] = qs[c], P->S[k][0][c] = q[3 + 3 * k + c];
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        for (int c = 0; c < 3; ++c) {
            P->N[3 + i][0][c] = -0.5 * qs[3 + 3 * k + c], P->N[3 + i][1][c] = 0.5 * qs[3 + 3 * j + c];
            P->S[3 + i][0][c] = 0.5 * q[3 + 3 * k + c], P->S[3 + i][1][c] = -0.5 * q[3 + 3 * j + c];
        }
    }
}

/* FN = BN^T sigma, FS = BS^T sigma (12 each) */
static inline void strain_force(const strain_parts *P, const double sig[6], double FN[12], double FS[12])
{
    for (int c = 0; c < 12; ++c) FN[c] = FS[c] = 0;
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) FS[c] += sig[k] * P->S[k][0][c], FN[3 + 3 * k + c] = sig[k] * P->N[k][1][c];
#pragma GCC unroll 3
    for (int j = 3; j < 6; ++j)
#pragma GCC unroll 2
        for (int u = 0; u < 2; ++u) {
            const int f = 3 * rf[j][u];
            for (int c = 0; c < 3; ++c) FN[f + c] += sig[j] * P->N[j][u][c], FS[f + c] += sig[j] * P->S[j][u][c];
        }
}

/* dep = sum_a B_a x_a for director-only x_a (phi part zero), from xN = sum_a n_a x_a and xS = sum_a ns_a x_a */
static inline void strain_apply(const strain_parts *P, const double xN[12], const double xS[12], double dep[6])
{
    for (int k = 0; k < 3; ++k) dep[k] = dot3(P->N[k][1], xN + 3 + 3 * k);
#pragma GCC unroll 3
    for (int j = 3; j < 6; ++j) {
        const int f0 = 3 * rf[j][0], f1 = 3 * rf[j][1];
        dep[j] = dot3(P->N[j][0], xN + f0) + dot3(P->S[j][0], xS + f0) + dot3(P->N[j][1], xN + f1) +
                 dot3(P->S[j][1], xS + f1);
    }
}

/* T = B_a P(D) (6 x 6: dphi, dtheta columns; a^T P(d) w = w . (d x a)) for the node of shape value n and
   derivative ns with directors D */
static inline void reduce_node(const strain_parts *P, double n, double ns, const double *D, double T[6][6])
{
    for (int k = 0; k < 3; ++k) {
        double b[3], t[3];
        for (int c = 0; c < 3; ++c) T[k][c] = ns * P->S[k][0][c], b[c] = n * P->N[k][1][c];
        cross(D + 3 * k, b, t);
        for (int c = 0; c < 3; ++c) T[k][3 + c] = t[c];
    }
    /* the curvature rows: row 3 + i is nonzero in the directors j = i + 1 and k = i + 2 (mod 3), its parts
       there b0 = n N + ns S = (ns q_k - n q_k') / 2 and b1 = -(ns q_j - n q_j') / 2: the same vector cv_m of
       director m (the first part of row 3 + (m + 1) % 3) up to its sign, which is exact (the products and
       sums of the negated operands are the negated results), so each is formed once */
    double cv[3][3], t0[3], t1[3];
#pragma GCC unroll 3
    for (int m = 0; m < 3; ++m) {
        const int j = 3 + (m + 1) % 3;
        for (int c = 0; c < 3; ++c) cv[m][c] = n * P->N[j][0][c] + ns * P->S[j][0][c];
    }
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        cross(D + 3 * j, cv[k], t0);
        cross(D + 3 * k, cv[j], t1);
        for (int c = 0; c < 3; ++c) T[3 + i][c] = 0, T[3 + i][3 + c] = t0[c] - t1[c];
    }
}

/* one reduced row of the material part (material_terms): the strain rows tl[0..n-1] (tl NULL: 0..n-1) */
static inline __attribute__((always_inline)) void material_row(double *row, const int pos[3], int a, int i,
                                                               const double *const *tmp, const double *const *t1p,
                                                               const int *tl, int n, const double *kf,
                                                               const double *dep, double *const *kr)
{
    double kd = 0;
#if defined(__GNUC__)
    v4d acc4[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
    v2d acc2[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int u = 0; u < n; ++u) {
        const int t = tl ? tl[u] : u;
        const double c = kf[t] * tmp[t][36 * a + i], *tb = t1p[t];
        kd += c * dep[t];
        const v4d c4 = {c, c, c, c};
        const v2d c2 = {c, c};
#pragma GCC unroll 3
        for (int b = 0; b < 3; ++b) {
            acc4[b] += c4 * *(const v4du *)(tb + 36 * b);
            acc2[b] += c2 * *(const v2du *)(tb + 36 * b + 4);
        }
    }
    for (int b = 0; b < 3; ++b) {
        if (pos[b] < 0) continue;
        *(v4du *)(row + pos[b]) += acc4[b];
        *(v2du *)(row + pos[b] + 4) += acc2[b];
    }
#else
    double acc[3][6] = {{0}};
    for (int u = 0; u < n; ++u) {
        const int t = tl ? tl[u] : u;
        const double c = kf[t] * tmp[t][36 * a + i], *tb = t1p[t];
        kd += c * dep[t];
        for (int b = 0; b < 3; ++b)
            for (int l = 0; l < 6; ++l) acc[b][l] += c * tb[36 * b + l];
    }
    for (int b = 0; b < 3; ++b)
        if (pos[b] >= 0)
            for (int l = 0; l < 6; ++l) row[pos[b] + l] += acc[b][l];
#endif
    kr[a][i] += kd;
}

/* the material part T_m^T kappa T_1 of both points (and T_m^T kappa B_1 dq_p into kr) over the element's
   free nodes: each reduced row (node a, component i) is the combination of the elastic strain rows t
   (point mg[t], row mj[t], kf[t] = fac w kappa) of T_1 with the coefficients kf[t] T_m(t, i), summed in
   registers and added to the front once (rank-one updates per strain row loaded and stored the front's
   rows 12 times); the dphi rows are skipped when only curvatures are elastic (their T_m has no dphi
   part). Only the Newton matrix and its right side's K dq_p are summed here: fused multiply-adds change
   their rounding, not the equations. */
PH_CLONES PH_CONTRACT static void material_terms(double *Mb, int ld, const int pos[3], const double Tm[2][3][6][6],
                                                 const double T1[2][3][6][6], int nm, const int *mg, const int *mj,
                                                 const double *kf, const double *dep, double *const *kr)
{
    /* the dphi rows (i < 3) only from the force rows (mj < 3, listed in tf): a curvature row of T_m has no
       dphi part, its terms there are exact zeros (skipped in the same order: the sums are unchanged) */
    const double *tmp[12], *t1p[12];
    int tf[12], nf = 0;
    for (int t = 0; t < nm; ++t) {
        tmp[t] = &Tm[mg[t]][0][mj[t]][0], t1p[t] = &T1[mg[t]][0][mj[t]][0];
        if (mj[t] < 3) tf[nf++] = t;
    }
    for (int a = 0; a < 3; ++a) {
        if (pos[a] < 0) continue;
        double *row = Mb + (size_t)pos[a] * ld;
        if (nf)
            for (int i = 0; i < 3; ++i) material_row(row + (size_t)i * ld, pos, a, i, tmp, t1p, tf, nf, kf, dep, kr);
        for (int i = 3; i < 6; ++i) material_row(row + (size_t)i * ld, pos, a, i, tmp, t1p, NULL, nm, kf, dep, kr);
    }
}

#if defined(__GNUC__)
typedef long long v4di __attribute__((vector_size(32)));
#define bc4(x) ((v4d){(x), (x), (x), (x)})
/* a's lanes (i, j, k, l) (clang, which builds the fuzz target, has __builtin_shufflevector instead) */
#if defined(__clang__)
#define shuf4(a, i, j, k, l) __builtin_shufflevector((a), (a), i, j, k, l)
#else
#define shuf4(a, i, j, k, l) __builtin_shuffle((a), (v4di){i, j, k, l})
#endif
/* the 3-vectors' cross product a x b (lane 3: 0 for zero lanes), the same operations per component as cross */
#define cross4(a, b) (shuf4(a, 1, 2, 0, 3) * shuf4(b, 2, 0, 1, 3) - shuf4(a, 2, 0, 1, 3) * shuf4(b, 1, 2, 0, 3))

/* The geometric and mass terms' reduction of the node pair (a, b) (direct_pass, where the scalar form is) with
 * the directors as groups of 4 (lane 3 zero): da (d_{n+1/2} of a), db (d_{n+1} of b), qb (dq_p's director
 * parts of b). The same operations in the same order per entry (no fused multiply-adds in the pass): the
 * same bits. */
static inline void geometric_pair(double *R, int ld, double *kr, const double h0[3], const double hx[3],
                                  const double A[3][3], const v4d da[3], const v4d db[3], const v4d qb[3])
{
    const v4d h00 = bc4(h0[0]), h01 = bc4(h0[1]), h02 = bc4(h0[2]);
    const v4d v0v = h00 * db[0] + h01 * db[1] + h02 * db[2];
    const v4d u0 = bc4(hx[0]) * da[0] + bc4(hx[1]) * da[1] + bc4(hx[2]) * da[2];
    const v4d kq = h00 * qb[0] + h01 * qb[1] + h02 * qb[2];
    kr[0] += kq[0], kr[1] += kq[1], kr[2] += kq[2];
    /* (phi, theta) = -skew(v0), (theta, phi) = skew(u0) */
    R[4] += v0v[2], R[5] -= v0v[1], R[ld + 3] -= v0v[2], R[ld + 5] += v0v[0], R[2 * ld + 3] += v0v[1],
        R[2 * ld + 4] -= v0v[0];
    R[3 * ld + 1] -= u0[2], R[3 * ld + 2] += u0[1], R[4 * ld] += u0[2], R[4 * ld + 2] -= u0[0], R[5 * ld] -= u0[1],
        R[5 * ld + 1] += u0[0];
    /* (theta, theta) = tr(W) I - W, W = sum_x v_x da_x^T, v_x = sum_y A_xy db_y */
    const v4d z = {0, 0, 0, 0};
    v4d W0 = z, W1 = z, W2 = z, kt = z;
    double tr = 0;
    for (int x = 0; x < 3; ++x) {
        const v4d a0 = bc4(A[x][0]), a1 = bc4(A[x][1]), a2 = bc4(A[x][2]), dx = da[x];
        const v4d vx = a0 * db[0] + a1 * db[1] + a2 * db[2], wx = a0 * qb[0] + a1 * qb[1] + a2 * qb[2];
        W0 += bc4(vx[0]) * dx, W1 += bc4(vx[1]) * dx, W2 += bc4(vx[2]) * dx;
        tr += dx[0] * vx[0] + dx[1] * vx[1] + dx[2] * vx[2];
        kt += cross4(dx, wx);
    }
    const v4d Wr[3] = {W0, W1, W2};
    for (int i = 0; i < 3; ++i) {
        double *Ri = R + (size_t)(3 + i) * ld + 3;
        for (int l = 0; l < 3; ++l) Ri[l] -= Wr[i][l];
        Ri[i] += tr;
        kr[3 + i] += kt[i];
    }
}
#endif

/* ph_gauss_point (ph.h) in groups of 4, the sums in registers: the same operations in the same order (the
   sums start from zero, no fused multiply-adds here), but GCC kept the scalar loop, its stores to the point's
   arrays reloaded for every node (the arrays escape to ph_strain, so they might alias the rod's) */
static inline void gauss_point(const cr_ph *s, int e, int g, int dyn, double q1[12], double q1s[12], double q0[12],
                               double q0s[12], double v0[12], double qm[12], double qms[12])
{
#if defined(__GNUC__)
    const v4d z = {0, 0, 0, 0}, half = {0.5, 0.5, 0.5, 0.5};
    v4d a1[3] = {z, z, z}, a1s[3] = {z, z, z}, a0[3] = {z, z, z}, a0s[3] = {z, z, z}, av[3] = {z, z, z};
    for (int a = 0; a < 3; ++a) {
        const double *qa = s->q1 + 12 * (2 * e + a), *pa = s->q + 12 * (2 * e + a), *va = s->v + 12 * (2 * e + a);
        const double n = s->N[g][a], ns = s->dN[g][a];
        const v4d nv = {n, n, n, n}, nsv = {ns, ns, ns, ns};
        for (int c = 0; c < 3; ++c) {
            const v4d x = *(const v4du *)(qa + 4 * c);
            a1[c] += nv * x, a1s[c] += nsv * x;
        }
        if (dyn)
            for (int c = 0; c < 3; ++c) {
                const v4d x = *(const v4du *)(pa + 4 * c), y = *(const v4du *)(va + 4 * c);
                a0[c] += nv * x, a0s[c] += nsv * x, av[c] += nv * y;
            }
    }
    for (int c = 0; c < 3; ++c) {
        *(v4du *)(q1 + 4 * c) = a1[c], *(v4du *)(q1s + 4 * c) = a1s[c];
        *(v4du *)(q0 + 4 * c) = a0[c], *(v4du *)(q0s + 4 * c) = a0s[c], *(v4du *)(v0 + 4 * c) = av[c];
        *(v4du *)(qm + 4 * c) = dyn ? half * (a0[c] + a1[c]) : a1[c];
        *(v4du *)(qms + 4 * c) = dyn ? half * (a0s[c] + a1s[c]) : a1s[c];
    }
#else
    ph_gauss_point(s, e, g, dyn, q1, q1s, q0, q0s, v0, qm, qms);
#endif
}

/* The geometric and mass terms' coefficients of the node pair (a, b) of an element (direct_pass): shape
   functions and constants only, so once per pass (the same expressions as per pair) */
typedef struct geo_coef {
    double c1[2], c2[2], cd[2], nn2, m[3];
} geo_coef;
typedef struct geo_coefs {
    geo_coef p[3][3];
} geo_coefs;
static inline geo_coefs geo_coefs_of(const cr_ph *s, double fac, double gam, int dyn)
{
    geo_coefs G;
    const double w = s->w, cg = fac * w * gam;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            geo_coef *k = &G.p[a][b];
            double nn2 = 0;
            for (int g = 0; g < 2; ++g) {
                const double na = s->N[g][a], nb = s->N[g][b], c1 = na * s->dN[g][b] * cg, c2 = s->dN[g][a] * nb * cg;
                k->c1[g] = c1, k->c2[g] = c2, k->cd[g] = 0.5 * (c1 - c2);
                nn2 += na * nb;
            }
            k->nn2 = nn2;
            const double cm = dyn ? 2.0 / s->h * w * nn2 : 0;
            for (int f = 0; f < 3; ++f) k->m[f] = cm * s->mass[f];
        }
    return G;
}

/* a pass stopped early: the rows it did not reach are zero (as a residual assembled up to there), not
   the last pass's (the nodes from `prepped` on in the pass's order, the elements from the et-th) */
static void unvisited_zero(cr_ph *s, double *r, int prepped, int rev, int et)
{
    for (int I = prepped; rev ? I >= 0 : I < s->nn; I += rev ? -1 : 1)
        if (s->node_off[I] >= 0) memset(r + s->node_off[I], 0, sizeof(double) * 18);
    for (int t = et; t < s->ne; ++t) memset(r + s->sig_off[rev ? s->ne - 1 - t : t], 0, sizeof(double) * 2 * s->nr);
}

/* the update's maxima and finiteness of a range of X (cr_ph.fuse_update) */
typedef struct ph_upd {
    double turn, dpos, dsig, sig, fin[4];
} ph_upd;

static inline double amax_(double a, double v)
{
    v = fabs(v);
    return v > a ? v : a; /* (as Newton's maxima; fmax's NaN rule is slower) */
}

/* full increments of nodes I0..I1-1 and elements e0..e1-1 from the reduced solution x: dq = (dphi, dq_p +
   P(d_{n+1}) dtheta), rigid stresses; lambda is set, not updated (its increment zero). u->turn: the largest
   |dX| of the directors (cr_ph.dturn: Newton's turn limit, without a pass of its own over dX). With
   cr_ph.fuse_update also Newton's update of X (ph_solve.c newton: the same operations, in the same order per
   entry, as its own pass with an unshortened update) and its maxima in u. */
PH_CLONES static void increments(cr_ph *s, const double *xr, double *X, double *dX, int I0, int I1, int e0, int e1,
                                 ph_upd *u)
{
    double turn = 0, dpos = 0, dsig = 0, sig = 0, fin[4] = {0, 0, 0, 0};
    const int fuse = s->fuse_update;
    for (int I = I0; I < I1; ++I) {
        int o = s->node_off[I], rr = s->node_roff[I];
        if (o < 0) continue;
        /* the node's reduced solution, directors and dq_p, and its increments, in locals (stores to the rod's
           arrays made GCC reload the others) */
        double x[6], d1[9], dqp[9], d0[18];
        memcpy(x, xr + rr, sizeof x);
        memcpy(d1, s->q1 + 12 * I + 3, sizeof d1);
        memcpy(dqp, s->dqp + 12 * I + 3, sizeof dqp);
        for (int c = 0; c < 3; ++c) d0[c] = x[c];
        for (int k = 0; k < 3; ++k) {
            double t[3];
            cross(x + 3, d1 + 3 * k, t);
            for (int c = 0; c < 3; ++c) {
                const double v = fabs(d0[3 + 3 * k + c] = dqp[3 * k + c] + t[c]);
                turn = v > turn ? v : turn;
            }
        }
        for (int k = 12; k < 18; ++k) d0[k] = 0;
        memcpy(dX + o, d0, sizeof d0);
        memcpy(s->theta + 3 * I, x + 3, sizeof(double) * 3);
        if (!fuse) continue;
        /* newton's update of the node: X += dX, the second-order term theta x (theta x d) / 2 of the directors
           (d those of q1: X's before the update), the finiteness sums */
        double *x0 = X + o;
        const double *th = x + 3;
        for (int k = 0; k < 18; ++k) x0[k] += d0[k];
        for (int c = 0; c < 3; ++c) dpos = amax_(dpos, d0[c]);
        for (int k = 0; k < 3; ++k) {
            const double *d = d1 + 3 * k;
            double a[3] = {th[1] * d[2] - th[2] * d[1], th[2] * d[0] - th[0] * d[2], th[0] * d[1] - th[1] * d[0]};
            double *xd = x0 + 3 + 3 * k;
            xd[0] += 0.5 * (th[1] * a[2] - th[2] * a[1]);
            xd[1] += 0.5 * (th[2] * a[0] - th[0] * a[2]);
            xd[2] += 0.5 * (th[0] * a[1] - th[1] * a[0]);
        }
#if defined(__GNUC__)
        {
            /* (only whether the sums are zero is read: their order does not matter) */
            v4d f4 = {fin[0], fin[1], fin[2], fin[3]};
            for (int k = 0; k < 16; k += 4) {
                const v4d xk = *(const v4du *)(x0 + k);
                f4 += xk - xk;
            }
            fin[0] = f4[0] + (x0[16] - x0[16]), fin[1] = f4[1] + (x0[17] - x0[17]), fin[2] = f4[2], fin[3] = f4[3];
        }
#else
        for (int k = 0; k < 18; ++k) fin[k & 3] += x0[k] - x0[k];
#endif
    }
    for (int e = e0; e < e1; ++e)
        for (int col = 0; col < 2 * s->nr; ++col) {
            const int i = s->sig_off[e] + col;
            dX[i] = xr[s->sig_roff[e] + col];
            if (!fuse) continue;
            X[i] += dX[i];
            fin[col & 3] += X[i] - X[i];
            dsig = amax_(dsig, dX[i]);
            sig = amax_(sig, X[i]);
        }
    u->turn = turn, u->dpos = dpos, u->dsig = dsig, u->sig = sig;
    for (int k = 0; k < 4; ++k) u->fin[k] = fin[k];
}

/* the update's maxima of the whole rod (from one or two ranges) for newton */
static void set_update(cr_ph *s, const ph_upd *a, const ph_upd *b)
{
    ph_upd u = *a;
    if (b) {
        u.turn = fmax(u.turn, b->turn), u.dpos = fmax(u.dpos, b->dpos), u.dsig = fmax(u.dsig, b->dsig);
        u.sig = fmax(u.sig, b->sig);
        for (int k = 0; k < 4; ++k) u.fin[k] += b->fin[k];
    }
    s->dturn = u.turn;
    s->upd[0] = u.dpos, s->upd[1] = u.turn, s->upd[2] = u.dsig, s->upd[3] = u.sig;
    s->upd_finite = (u.fin[0] + u.fin[1]) + (u.fin[2] + u.fin[3]) == 0;
}

/* ph_unpack of node I and of element e: done by the pass as it reaches them (prep_node, the element's
   start), while their lines are in the cache for the pass anyway (a sweep of its own over X, q1 and q
   before the pass was 48 MB of memory traffic per iteration at 10^5 elements) */
static inline void unpack_node(cr_ph *s, const double *X, int I)
{
    int o = s->node_off[I];
    memcpy(s->q1 + 12 * I, o < 0 ? s->q + 12 * I : X + o, sizeof(double) * 12);
    if (o < 0)
        memset(s->lam1 + 6 * I, 0, sizeof(double) * 6);
    else
        memcpy(s->lam1 + 6 * I, X + o + 12, sizeof(double) * 6);
}
static inline void unpack_elem(cr_ph *s, const double *X, int e)
{
    for (int g = 0; g < 2; ++g)
        for (int sl = 0; sl < s->nr; ++sl) s->sig1[(2 * e + g) * s->nr + sl] = X[s->sig_off[e] + g * s->nr + sl];
}

/* One side of the two-sided pass (two_sided_pass): `count` elements from e0 (up when !rev, down when
   rev), their fronts' last tail node xI (the node where the sides meet) kept in M, b. xI is prepared and
   finished by the caller; the side that does not own it (own = 0) puts its share of xI's momentum rows,
   external forces and reduced K dq_p in xr, xfe, xkr instead of the rod's arrays (the other side writes
   those at the same time). */
typedef struct ph_side {
    int e0, count, rev, xI, own;
    /* delay: the side starts at a clamped end of a rod with rigid components (block_eliminate_delay); nd
       columns delayed to the next front (and at the end to node xI's system), their reduced indices in ids;
       each front's solution packed in tsz from zo */
    int delay, nd, ids[BLD];
    size_t zo;
    double xr[12], xfe[12], xkr[6];
    ph_upd upd; /* the increments' maxima of this side's range */
    double rsq; /* |r|^2 of its rows (not node xI's) */
    _Alignas(32) double M[BLD * BLD];
    double b[BLD];
    cr_status st;
} ph_side;

/* sum + the squares of free node I's 18 rows of r */
static inline double row_squares(const cr_ph *s, const double *r, int I, double sum)
{
    const int o = s->node_off[I];
    if (o >= 0)
        for (int k = 0; k < 18; ++k) sum += r[o + k] * r[o + k];
    return sum;
}

/* node I's momentum rows, external forces and reduced K dq_p in the element pass */
static inline double *node_r(const cr_ph *s, const ph_side *sd, double *r, int I)
{
    return sd && !sd->own && I == sd->xI ? (double *)sd->xr : r + s->node_off[I];
}
static inline double *node_fe(const cr_ph *s, const ph_side *sd, int I)
{
    return sd && !sd->own && I == sd->xI ? (double *)sd->xfe : s->fext + 12 * I;
}
static inline double *node_kr(const cr_ph *s, const ph_side *sd, int I)
{
    return sd && !sd->own && I == sd->xI ? (double *)sd->xkr : s->kdq + 6 * I;
}

/* the element pass with the band LU (blk 0) or the node-block fronts (blk 1, rev: last element first);
   CR_NOT_CONVERGED when a front's pivot was too small (the caller repeats with the band LU). With sd: one
   side of the two-sided pass (ph_side; blk only), no back substitution. */
PH_CLONES static cr_status direct_pass(cr_ph *s, int mode, const cr_ph_loads *loads, double *X, double *r, double *dX,
                                       int *bad, int blk, int rev, int jac, ph_side *sd)
{
    const int dyn = mode == PH_DYNAMIC, nr = s->nr, n2 = 2 * nr, nn = s->nn;
    const double h = s->h, fac = dyn ? h : 1.0, gam = dyn ? 0.5 : 1.0, w = s->w;
    /* r, fext and kred are zeroed node by node (prep_node); the stress rows are set by their element */
    if (!sd) s->fac = fac; /* the two-sided pass: by its caller (and node xI's unpack and prep_node) */
    double *kred = s->kdq; /* 6 per node: T_m^T K dq_p, reduced */
    int ext[s->rW];
    front F = {s->nred,   s->rkl,    s->rku,   s->rkl + s->rku,
               s->rldab,  s->rW - 1, s->ring,  s->rrhs,
               s->ustore, s->uoff,   s->ripiv, s->rlast,
               0,         0,         0,        0,
               ext,       0,         0,        0,
               0,         0,         0,        NULL,
               NULL,      0};
    if (!sd) s->uoff[0] = 0;
    if (bad) *bad = -1;
    /* the right side is accumulated (finish_node, the stress rows) */
    _Alignas(32) double Mlocal[sd ? 1 : BLD * BLD];
    double blocal[sd ? 1 : BLD];
    double *Mfront = sd ? sd->M : Mlocal, *bfront = sd ? sd->b : blocal;
    const size_t ustride = ph_front_stride(s);
    F.blk = blk, F.rev = rev, F.M = Mfront, F.bl = bfront;
    if (blk) {
        memset(Mfront, 0, sizeof(double) * BLD * BLD);
        memset(bfront, 0, sizeof(double) * BLD);
    } else {
        memset(s->rrhs, 0, sizeof(double) * s->nred);
    }

    node_ring ring;
    int prepped = 0;
    double rsq = 0;
    const double *act = loads ? loads->actuation : NULL;
    cr_vec3 nbar = loads ? loads->force_density : cr_v3(0, 0, 0);
    cr_vec3 mbar = loads ? loads->moment_density : cr_v3(0, 0, 0);
    int has_mbar = mbar.x != 0 || mbar.y != 0 || mbar.z != 0;
    const double MB[3][3] = {{0, -mbar.z, mbar.y}, {mbar.z, 0, -mbar.x}, {-mbar.y, mbar.x, 0}};
#if defined(__GNUC__)
    /* the inertia's w m per row 0..8 (rows 8..11 of the last group: ra[8] alone), when every field has mass (the
       general loop skips a massless field's rows) */
    const double m0 = w * s->mass[0], m1 = w * s->mass[1], m2 = w * s->mass[2];
    const v4d wmv[3] = {{m0, m0, m0, m1}, {m1, m1, m2, m2}, {m2, 0, 0, 0}};
    const v4d *wm = dyn && s->mass[0] != 0 && s->mass[1] != 0 && s->mass[2] != 0 ? wmv : NULL;
#endif

    const geo_coefs G = geo_coefs_of(s, fac, gam, dyn);
    const int count = sd ? sd->count : s->ne, e0 = sd ? sd->e0 : rev ? s->ne - 1 : 0;
    prepped = rev ? 2 * e0 + 2 : 2 * e0;
    for (int et = 0; et < count; ++et) {
        const int e = rev ? e0 - et : e0 + et;
        for (; rev ? prepped >= 2 * e : prepped <= 2 * e + 2; prepped += rev ? -1 : 1)
            if (!sd || prepped != sd->xI) {
                unpack_node(s, X, prepped);
                if (!prep_node(s, prepped, dyn, r, &ring, jac)) {
                    if (bad) *bad = s->node_off[prepped] + 12;
                    if (!sd) unvisited_zero(s, r, prepped, rev, et);
                    return CR_SINGULAR;
                }
            }
        unpack_elem(s, X, e);
        int fm = 0, fd = 0;
        if (blk) block_set(&F, s, e, &fm, &fd);
        int off[3], ro[3];
        const double *d1n[3], *dmn[3];
        double dmbuf[3][9];
        for (int a = 0; a < 3; ++a) {
            int I = 2 * e + a;
            off[a] = s->node_off[I];
            ro[a] = s->node_roff[I];
            d1n[a] = s->q1 + 12 * I + 3;
            for (int k = 0; k < 9; ++k) dmbuf[a][k] = dyn ? 0.5 * (s->q[12 * I + 3 + k] + d1n[a][k]) : d1n[a][k];
            dmn[a] = dmbuf[a];
        }
        const int rs = s->sig_roff[e], R_e = rs + n2;
        if (!blk) zero_upto(&F, R_e + 6 + 1);
        /* the element's reduced rows and columns: node a at pos[a] (-1 clamped) of the front (blk) or
           of the element matrix E (band LU: added to the band at the end) */
        _Alignas(32) double E[18 * 18];
        double *Mb;
        int ld, pos[3];
        if (blk) {
            Mb = F.M, ld = BLD;
            for (int a = 0; a < 3; ++a) pos[a] = ro[a] >= 0 ? loc(&F, ro[a]) : -1;
        } else {
            memset(E, 0, sizeof E);
            Mb = E, ld = 18;
            for (int a = 0; a < 3; ++a) pos[a] = ro[a] >= 0 ? 6 * a : -1;
        }
        double sgp[2][8]; /* the points' stresses, for the geometric terms (summed over the points; 6, 7 unread) */
        /* the points' reduced strain Jacobians and their elastic strain rows (material_terms) */
        double Tm2[2][3][6][6], T1b2[2][3][6][6], mkf[12], mdep[12];
        int mg[12], mj[12], nm = 0;
        for (int g = 0; g < 2; ++g) {
            const int gp = 2 * e + g;
            double q1[12], q1s[12], q0[12], q0s[12], v0[12], qm[12], qms[12];
            gauss_point(s, e, g, dyn, q1, q1s, q0, q0s, v0, qm, qms);
            double eps1[6], kap[6], *sig = sgp[g];
            sig[6] = sig[7] = 0;
            ph_strain(q1, q1s, eps1);
            for (int j = 0; j < 6; ++j) {
                double de = eps1[j] - (dyn ? s->eps_n[6 * gp + j] : s->eps0[6 * gp + j]);
                int sl = s->rigid_slot[j];
                if (sl >= 0) {
                    sig[j] = s->sig1[gp * nr + sl];
                    kap[j] = 0;
                    r[s->sig_off[e] + g * nr + sl] = eps1[j] - s->eps0[6 * gp + j]; /* see ph_assemble */
                } else if (dyn) {
                    sig[j] = ph_mid_stress(s, gp, j, de, h, &kap[j]);
                } else {
                    sig[j] = s->k_el[j] * de;
                    kap[j] = s->k_el[j];
                }
                if (act) sig[j] += act[j];
            }
            /* the point's strain Jacobian parts (B_a = n BN + ns BS) at q_{n+1/2} and q_{n+1} */
            strain_parts Pm, P1b;
            strain_parts_at(qm, qms, &Pm);
            const strain_parts *P1 = &Pm; /* statics: q_{n+1/2} is q_{n+1} */
            if (dyn && jac) strain_parts_at(q1, q1s, &P1b), P1 = &P1b;
            /* internal force B_a(q_{n+1/2})^T sigma = n FN + ns FS; B(q_{n+1}) dq_p from dq_p interpolated
               (the Newton matrix's right side only) */
            _Alignas(32) double dqN[12] = {0}, dqS[12] = {0};
            double FN[12], FS[12], dep[6] = {0};
            strain_force(&Pm, sig, FN, FS);
            if (jac) {
#if defined(__GNUC__)
                /* in groups of 4 with the sums in registers (dq_p's position part is zero: dqN, dqS there too,
                   and unread) */
                v4d aN[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
                    aS[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
                for (int a = 0; a < 3; ++a) {
                    const double *dqp = s->dqp + 12 * (2 * e + a), n = s->N[g][a], ns = s->dN[g][a];
                    const v4d nv = {n, n, n, n}, nsv = {ns, ns, ns, ns};
                    for (int c = 0; c < 3; ++c) {
                        const v4d x = *(const v4du *)(dqp + 4 * c);
                        aN[c] += nv * x, aS[c] += nsv * x;
                    }
                }
                for (int c = 0; c < 3; ++c) *(v4d *)(dqN + 4 * c) = aN[c], *(v4d *)(dqS + 4 * c) = aS[c];
#else
                for (int a = 0; a < 3; ++a) {
                    const double *dqp = s->dqp + 12 * (2 * e + a), n = s->N[g][a], ns = s->dN[g][a];
                    for (int k = 3; k < 12; ++k) dqN[k] += n * dqp[k], dqS[k] += ns * dqp[k];
                }
#endif
                strain_apply(P1, dqN, dqS, dep);
            }
            /* reduced strain Jacobians T = B P(d) per free node (6 x 6: dphi, dtheta) */
            double(*Tm)[6][6] = Tm2[g], (*T1)[6][6] = dyn ? T1b2[g] : Tm;
            for (int a = 0; a < 3 && jac; ++a) {
                if (ro[a] < 0) { /* (read by material_terms, not added) */
                    memset(Tm[a], 0, sizeof Tm[a]), memset(T1[a], 0, sizeof T1[a]);
                    continue;
                }
                reduce_node(&Pm, s->N[g][a], s->dN[g][a], dmn[a], Tm[a]);
                if (dyn) reduce_node(P1, s->N[g][a], s->dN[g][a], d1n[a], T1[a]);
            }
            /* residual: internal forces, inertia, distributed loads (the inertia's rate, the same for the
               three nodes, once per point) */
            _Alignas(32) double irate[12] = {0};
            if (dyn)
                for (int k = 0; k < 12; ++k) irate[k] = 2 * (q1[k] - q0[k]) / h - 2 * v0[k]; /* (9..11 unread) */
            for (int a = 0; a < 3; ++a) {
                double n = w * s->N[g][a];
                double *fe = node_fe(s, sd, 2 * e + a);
                fe[0] += n * nbar.x, fe[1] += n * nbar.y, fe[2] += n * nbar.z;
                if (has_mbar)
                    for (int k = 0; k < 3; ++k) {
                        cr_vec3 t = cr_v3_scale(cr_v3_cross(mbar, cr_v3_load(qm + 3 + 3 * k)), 0.5 * n);
                        fe[3 + 3 * k] += t.x, fe[4 + 3 * k] += t.y, fe[5 + 3 * k] += t.z;
                    }
                if (off[a] < 0) continue;
                double *ra = node_r(s, sd, r, 2 * e + a);
                const double cn = s->N[g][a], cs = s->dN[g][a];
#if defined(__GNUC__)
                if (wm) {
                    /* in groups of 4 (the same operations per entry): the internal force, then the inertia of
                       the fields phi, d1, d2 (rows 0..8; d3 is massless) */
                    const v4d fw = {fac * w, fac * w, fac * w, fac * w}, cnv = {cn, cn, cn, cn}, csv = {cs, cs, cs, cs};
                    const double na = s->N[g][a];
                    const v4d nv = {na, na, na, na};
                    for (int c = 0; c < 3; ++c) {
                        v4d x = *(v4du *)(ra + 4 * c) +
                                fw * (cnv * *(const v4du *)(FN + 4 * c) + csv * *(const v4du *)(FS + 4 * c));
                        if (c < 2) x += wm[c] * nv * *(const v4d *)(irate + 4 * c);
                        *(v4du *)(ra + 4 * c) = x;
                    }
                    ra[8] += wm[2][0] * na * irate[8];
                    continue;
                }
#endif
                for (int c = 0; c < 12; ++c) ra[c] += fac * w * (cn * FN[c] + cs * FS[c]);
                if (dyn)
                    for (int fl = 0; fl < 3; ++fl) {
                        double m = s->mass[fl];
                        if (m == 0) continue;
                        for (int c = 0; c < 3; ++c) {
                            int k = 3 * fl + c;
                            ra[k] += w * m * s->N[g][a] * irate[k];
                        }
                    }
            }
            /* the material part's strain rows (added for both points at once below) */
            for (int j = 0; j < 6; ++j) {
                if (kap[j] == 0 || !jac) continue;
                mkf[nm] = fac * w * kap[j], mdep[nm] = dep[j], mg[nm] = g, mj[nm] = j, ++nm;
            }
            /* rigid stresses: momentum-row columns and constraint rows */
            for (int sl = 0; sl < nr && jac; ++sl) {
                const int j = s->rigid_comp[sl], col = rs + g * nr + sl, cp = blk ? loc(&F, col) : 0;
                for (int a = 0; a < 3; ++a) {
                    if (ro[a] < 0) continue;
                    if (blk) {
                        double *M = F.M + (size_t)pos[a] * BLD + cp, *Mt = F.M + (size_t)cp * BLD + pos[a];
                        for (int i = 0; i < 6; ++i) M[i * BLD] += fac * w * Tm[a][j][i];
#if defined(__GNUC__)
                        *(v4du *)Mt += *(const v4du *)T1[a][j], *(v2du *)(Mt + 4) += *(const v2du *)(T1[a][j] + 4);
#else
                        for (int l = 0; l < 6; ++l) Mt[l] += T1[a][j][l];
#endif
                    } else {
                        for (int i = 0; i < 6; ++i) *at(&F, ro[a] + i, col) += fac * w * Tm[a][j][i];
                        for (int l = 0; l < 6; ++l) *at(&F, col, ro[a] + l) += T1[a][j][l];
                    }
                }
                *(blk ? F.bl + cp : rhs(&F, col)) -= r[s->sig_off[e] + g * nr + sl] + dep[j];
            }
        }
        if (jac && nm) {
            double *const krn[3] = {node_kr(s, sd, 2 * e), node_kr(s, sd, 2 * e + 1), node_kr(s, sd, 2 * e + 2)};
            material_terms(Mb, ld, pos, Tm2, dyn ? T1b2 : Tm2, nm, mg, mj, mkf, mdep, krn);
        }
        /* geometric and mass terms, both points at once: between nodes a and b the Hessian of
           sigma . eps is H (x) I3 over the fields (phi, d1, d2, d3), H = sum_g c1 C_g + c2 C_g^T with
           c1 = N_a N_b', c2 = N_a' N_b (ph_stress_coupling's C). C has no phi row, its phi column is
           the force N and its director block is antisymmetric (the moment M), so H_0y = sum c2 N,
           H_x0 = sum c1 N and the director block is sum (c1 - c2) C_dd; the mass adds to the diagonal. */
        if (jac) {
#if defined(__GNUC__)
            /* the nodes' directors (d_{n+1/2}, d_{n+1}) and dq_p's director parts as groups of 4 (geometric_pair) */
            v4d dav[3][3], dbv[3][3], qbv[3][3];
            for (int a = 0; a < 3; ++a)
                for (int x = 0; x < 3; ++x) {
                    const double *pa = dmn[a] + 3 * x, *pb = d1n[a] + 3 * x,
                                 *pq = s->dqp + 12 * (2 * e + a) + 3 + 3 * x;
                    dav[a][x] = (v4d){pa[0], pa[1], pa[2], 0}, dbv[a][x] = (v4d){pb[0], pb[1], pb[2], 0};
                    qbv[a][x] = (v4d){pq[0], pq[1], pq[2], 0};
                }
#endif
            for (int a = 0; a < 3; ++a) {
                if (pos[a] < 0) continue;
                double *kr = node_kr(s, sd, 2 * e + a);
                const double *Da = dmn[a];
                for (int b = 0; b < 3; ++b) {
                    if (pos[b] < 0) continue;
                    const double *Db = d1n[b], *qb = s->dqp + 12 * (2 * e + b);
                    const geo_coef *gk = &G.p[a][b];
                    const double nn2 = gk->nn2;
#if defined(__GNUC__)
                    if (!has_mbar) {
                        /* h0, hx and the moments' sums mo as groups of 4 (lane 3 unread); A's antisymmetric part
                           from mo: A_kj = mo_i, A_jk = 0 - mo_i, which is the sum (0 - x_0) - x_1 of the scalar form
                           to the bit (zeros' signs included) */
                        const v4d s0 = *(const v4du *)sgp[0], s1 = *(const v4du *)sgp[1];
                        const v4d t0 = *(const v4du *)(sgp[0] + 3), t1 = *(const v4du *)(sgp[1] + 3), z = {0, 0, 0, 0};
                        const v4d h0v = (z + bc4(gk->c2[0]) * s0) + bc4(gk->c2[1]) * s1;
                        const v4d hxv = (z + bc4(gk->c1[0]) * s0) + bc4(gk->c1[1]) * s1;
                        const v4d mo = (z + bc4(gk->cd[0]) * t0) + bc4(gk->cd[1]) * t1;
                        const double h0[3] = {h0v[0], h0v[1], h0v[2]}, hx[3] = {hxv[0], hxv[1], hxv[2]};
                        double A[3][3] = {{0, 0 - mo[2], mo[1]}, {mo[2], 0, 0 - mo[0]}, {0 - mo[1], mo[0], 0}};
                        double *R = Mb + (size_t)pos[a] * ld + pos[b];
                        if (dyn) {
                            for (int c = 0; c < 3; ++c) R[c * ld + c] += gk->m[0];
                            A[0][0] += gk->m[1], A[1][1] += gk->m[2];
                        }
                        geometric_pair(R, ld, kr, h0, hx, A, dav[a], dbv[b], qbv[b]);
                        continue;
                    }
#endif
                    double h0[3] = {0, 0, 0}, hx[3] = {0, 0, 0}, A[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
                    for (int g = 0; g < 2; ++g) {
                        const double c1 = gk->c1[g], c2 = gk->c2[g], cd = gk->cd[g], *sg = sgp[g];
                        for (int k = 0; k < 3; ++k) h0[k] += c2 * sg[k], hx[k] += c1 * sg[k];
                        for (int i = 0; i < 3; ++i) {
                            const int j = (i + 1) % 3, k = (i + 2) % 3;
                            A[k][j] += cd * sg[3 + i], A[j][k] -= cd * sg[3 + i];
                        }
                    }
                    double *R = Mb + (size_t)pos[a] * ld + pos[b];
                    if (dyn) {
                        for (int c = 0; c < 3; ++c) R[c * ld + c] += gk->m[0];
                        A[0][0] += gk->m[1], A[1][1] += gk->m[2];
                    }
                    double v0v[3], u0[3];
                    for (int c = 0; c < 3; ++c) {
                        v0v[c] = h0[0] * Db[c] + h0[1] * Db[3 + c] + h0[2] * Db[6 + c];
                        u0[c] = hx[0] * Da[c] + hx[1] * Da[3 + c] + hx[2] * Da[6 + c];
                        kr[c] += h0[0] * qb[3 + c] + h0[1] * qb[6 + c] + h0[2] * qb[9 + c];
                    }
                    /* (phi, theta) = -skew(v0), (theta, phi) = skew(u0) */
                    R[4] += v0v[2], R[5] -= v0v[1], R[ld + 3] -= v0v[2], R[ld + 5] += v0v[0], R[2 * ld + 3] += v0v[1],
                        R[2 * ld + 4] -= v0v[0];
                    R[3 * ld + 1] -= u0[2], R[3 * ld + 2] += u0[1], R[4 * ld] += u0[2], R[4 * ld + 2] -= u0[0],
                        R[5 * ld] -= u0[1], R[5 * ld + 1] += u0[0];
                    /* (theta, theta) = sum_x,y A_xy P(da_x)^T P(db_y) = tr(W) I - W, W = sum_x v_x da_x^T,
                       v_x = sum_y A_xy db_y, P(a)^T P(b) = (a . b) I - b a^T */
                    double W[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, tr = 0, kt[3] = {0, 0, 0};
                    for (int x = 0; x < 3; ++x) {
                        double vx[3], wx[3], t[3];
                        const double *dx = Da + 3 * x;
                        for (int c = 0; c < 3; ++c) {
                            vx[c] = A[x][0] * Db[c] + A[x][1] * Db[3 + c] + A[x][2] * Db[6 + c];
                            wx[c] = A[x][0] * qb[3 + c] + A[x][1] * qb[6 + c] + A[x][2] * qb[9 + c];
                        }
                        for (int i = 0; i < 3; ++i)
                            for (int l = 0; l < 3; ++l) W[i][l] += vx[i] * dx[l];
                        tr += dot3(dx, vx);
                        cross(dx, wx, t);
                        for (int k = 0; k < 3; ++k) kt[k] += t[k];
                    }
                    for (int i = 0; i < 3; ++i) {
                        double *Ri = R + (size_t)(3 + i) * ld + 3;
                        for (int l = 0; l < 3; ++l) Ri[l] -= W[i][l];
                        Ri[i] += tr;
                        kr[3 + i] += kt[i];
                    }
                    if (has_mbar) {
                        double c = -fac * gam * 0.5 * w * nn2;
                        for (int k = 0; k < 3; ++k) {
                            add_pmp(R, ld, c, Da + 3 * k, MB, Db + 3 * k);
                            double wv[3], t[3];
                            for (int i = 0; i < 3; ++i) wv[i] = c * dot3(MB[i], qb + 3 + 3 * k);
                            cross(Da + 3 * k, wv, t);
                            for (int i = 0; i < 3; ++i) kr[3 + i] += t[i];
                        }
                    }
                }
            }
        }
        if (jac && !blk)
            for (int a = 0; a < 3; ++a) {
                if (ro[a] < 0) continue;
                for (int b = 0; b < 3; ++b) {
                    if (ro[b] < 0) continue;
                    double R6[6][6];
                    for (int i = 0; i < 6; ++i)
                        for (int l = 0; l < 6; ++l) R6[i][l] = E[(6 * a + i) * 18 + 6 * b + l];
                    add_block(&F, ro[a], ro[b], R6);
                }
            }
        const int last = et == count - 1 && !sd; /* a side keeps its tail node (the caller's) */
        finish_node(s, rev ? 2 * e + 2 : 2 * e, dyn, fac, gam, loads, X, r, &F, kred, &ring, jac);
        finish_node(s, 2 * e + 1, dyn, fac, gam, loads, X, r, &F, kred, &ring, jac);
        if (last) finish_node(s, rev ? 2 * e : 2 * e + 2, dyn, fac, gam, loads, X, r, &F, kred, &ring, jac);
        /* |r|^2 of the rows finished here (cr_ph.rsq: Newton's norm without a pass of its own over r), in X's
           order when the pass runs forward (norm2's sum) */
        rsq = row_squares(s, r, rev ? 2 * e + 2 : 2 * e, rsq);
        rsq = row_squares(s, r, 2 * e + 1, rsq);
        for (int k = 0; k < n2; ++k) rsq += r[s->sig_off[e] + k] * r[s->sig_off[e] + k];
        if (last) rsq = row_squares(s, r, rev ? 2 * e : 2 * e + 2, rsq);
        if (!jac) continue;
        if (blk && sd && sd->delay) {
            /* the front's columns' reduced indices: the delayed ones, then the element's and the tail node's */
            int *id = s->tsinfo + (size_t)e * (BLD + 2);
            for (int k = 0; k < fd; ++k) id[2 + k] = k < F.nd ? sd->ids[k] : glob(&F, k);
            const int mc = block_eliminate_delay(Mfront, bfront, fm, fd, id + 2), nd = fm - mc;
            /* the next front must hold the delayed columns (the last one: node xI's system), and this one's
               Schur complement must not overlap its rows (next_front) */
            if (nd + 6 + F.ms + 6 > BLD || 2 * mc < fd || fd - mc > 15) return CR_NOT_CONVERGED;
            id[0] = mc, id[1] = fd;
            s->tsoff[e] = sd->zo;
            block_solution_any(Mfront, bfront, mc, fd, s->tsz + sd->zo);
            sd->zo += (size_t)mc * (1 + fd - mc);
            for (int k = 0; k < nd; ++k) sd->ids[k] = id[2 + mc + k];
            next_front(Mfront, bfront, mc, fd);
            F.nd = sd->nd = nd;
        } else if (blk) {
            int info = block_eliminate(&F, fm, fd, NULL);
            if (info < 0) return CR_NOT_CONVERGED; /* repeated with the band LU */
            if (info) {
                if (bad) *bad = glob(&F, info - 1);
                if (!sd) unvisited_zero(s, r, prepped, rev, et + 1);
                return CR_SINGULAR;
            }
            block_solution(Mfront, bfront, fm, fd, s->ustore + (size_t)e * ustride);
            /* the tail node's Schur complement and right side lead the next front */
            next_front(Mfront, bfront, fm, fd);
        } else {
            int info = eliminate(&F, last ? F.n : R_e - F.kl);
            if (info) {
                if (bad) *bad = info - 1;
                if (!sd) unvisited_zero(s, r, prepped, rev, et + 1);
                return CR_SINGULAR;
            }
        }
    }
    if (sd)
        sd->rsq = rsq;
    else
        s->rsq = rsq;
    if (s->ne == 0 || !jac || sd) return CR_OK;
    if (blk)
        block_back(&F, s, ustride, 0, s->ne);
    else
        back_substitute(&F);

    ph_upd u;
    increments(s, F.b, X, dX, 0, nn, 0, s->ne, &u);
    set_update(s, &u, NULL);
    return CR_OK;
}

/* The two-sided pass (cr_ph.split = J, the middle node): the elements 0..m-1 (m = J / 2) from the first
 * one up and m..n_e-1 from the last one down, each half in its own node-block fronts (direct_pass with a
 * ph_side), on two threads. The halves meet at node J: each hands over J's Schur complement (6 x 6) and
 * right side, their sum plus J's own terms (finish_node, with both halves' shares of its rows) is J's
 * block, factored here, and each half back-substitutes from J. The same LU of the same reduced matrix in
 * another order of elimination (a twisted factorization), so the increments equal the one-sided pass's to
 * round-off; the halves share nothing but J, so the result does not depend on the threads (one or two: the
 * same operations in the same order). Both halves start at an end: with rigid components the half that
 * starts at a clamped end (ph_side.delay) delays the pivots its fronts cannot take (block_eliminate_delay),
 * and J's system holds those columns too (cr_ph_create sets split; not with both ends clamped). Any failure
 * (a small pivot, a singular node, more delayed columns than a front holds) returns CR_NOT_CONVERGED and the
 * caller repeats the one-sided pass, which reports it. */
typedef struct two_sided {
    cr_ph *s;
    int mode, jac, phase;
    const cr_ph_loads *loads;
    double *X, *r, *dX;
    ph_side side[2];
} two_sided;

static void two_sided_task(void *arg, int k)
{
    two_sided *T = arg;
    cr_ph *s = T->s;
    ph_side *sd = &T->side[k];
    const int J = s->split, m = J / 2;
    /* side 0: nodes 0..J-1 (J: the caller's) and elements 0..m-1; side 1: nodes J+1..nn-1, elements m.. */
    const int I0 = k ? J + 1 : 0, I1 = k ? s->nn : J, e0 = k ? m : 0, e1 = k ? s->ne : m;
    if (T->phase == 0) {
        sd->st = direct_pass(s, T->mode, T->loads, T->X, T->r, T->dX, NULL, 1, sd->rev, T->jac, sd);
    } else if (sd->delay) {
        /* each front's eliminated columns from its tail columns (ids: block_eliminate_delay's order) */
        double *xr = s->rrhs;
        for (int t = sd->count - 1; t >= 0; --t) {
            const int e = sd->rev ? sd->e0 - t : sd->e0 + t, *id = s->tsinfo + (size_t)e * (BLD + 2);
            const int mc = id[0], nt = id[1] - mc;
            const double *Z = s->tsz + s->tsoff[e];
            double x[BLD];
            for (int i = 0; i < mc; ++i) x[i] = Z[i];
            for (int c = 0; c < nt; ++c) {
                const double xc = xr[id[2 + mc + c]], *S = Z + (size_t)(1 + c) * mc;
                for (int i = 0; i < mc; ++i) x[i] -= S[i] * xc;
            }
            for (int i = 0; i < mc; ++i) xr[id[2 + i]] = x[i];
        }
        increments(s, s->rrhs, T->X, T->dX, k ? I0 : 0, k ? I1 : J + 1, e0, e1, &sd->upd);
    } else {
        front F = {0};
        F.blk = 1, F.rev = sd->rev, F.b = s->rrhs, F.U = s->ustore;
        block_back(&F, s, ph_front_stride(s), 0, sd->count);
        increments(s, s->rrhs, T->X, T->dX, k ? I0 : 0, k ? I1 : J + 1, e0, e1, &sd->upd);
    }
}

static cr_status two_sided_pass(cr_ph *s, int mode, const cr_ph_loads *loads, double *X, double *r, double *dX, int jac)
{
    const int J = s->split, m = J / 2, dyn = mode == PH_DYNAMIC, oJ = s->node_off[J], ro = s->node_roff[J];
    const double fac = dyn ? s->h : 1.0, gam = dyn ? 0.5 : 1.0;
    two_sided T = {.s = s, .mode = mode, .jac = jac, .loads = loads, .X = X, .r = r, .dX = dX};
    T.side[0].e0 = 0, T.side[0].count = m, T.side[0].rev = 0;
    T.side[1].e0 = s->ne - 1, T.side[1].count = s->ne - m, T.side[1].rev = 1;
    for (int k = 0; k < 2; ++k) T.side[k].xI = J, T.side[k].own = k == 0, T.side[k].nd = 0;
    /* a side from a clamped end of a rod with rigid components delays the pivots it cannot take */
    T.side[0].delay = s->nr > 0 && s->p.clamp_start, T.side[1].delay = s->nr > 0 && s->p.clamp_end;
    T.side[0].zo = 0, T.side[1].zo = T.side[0].delay ? (size_t)m * PH_TS_ZMAX : 0; /* (tsz: the delaying half's) */
    memset(T.side[1].xr, 0, sizeof T.side[1].xr);
    memset(T.side[1].xfe, 0, sizeof T.side[1].xfe);
    memset(T.side[1].xkr, 0, sizeof T.side[1].xkr);
    /* node J before the halves: both read its iterate and particular increment */
    s->fac = fac;
    unpack_node(s, X, J);
    node_ring ring;
    if (!prep_node(s, J, dyn, r, &ring, jac)) return CR_NOT_CONVERGED;
    cr_pool_run(s->pool, 2, two_sided_task, &T);
    if (T.side[0].st != CR_OK || T.side[1].st != CR_OK) return CR_NOT_CONVERGED;
    /* J's rows: the second half's share added to the first's */
    const ph_side *b = &T.side[1];
    for (int k = 0; k < 12; ++k) r[oJ + k] += b->xr[k], s->fext[12 * J + k] += b->xfe[k];
    for (int k = 0; k < 6; ++k) s->kdq[6 * J + k] += b->xkr[k];
    _Alignas(32) double M[BLD * BLD] = {0};
    double bl[BLD] = {0};
    const ph_side *a = &T.side[0];
    /* node J's system: the first side's delayed columns (a->nd), J, the second side's (b->nd); each side's
       Schur complement is ordered (its delayed columns, J) */
    const int k0 = a->nd, k1 = b->nd, n = k0 + 6 + k1;
    if (n > BLD) return CR_NOT_CONVERGED;
    int pb[BLD];
    for (int i = 0; i < k1 + 6; ++i) pb[i] = i < k1 ? k0 + 6 + i : k0 + i - k1;
    for (int i = 0; i < k0 + 6; ++i) {
        for (int l = 0; l < k0 + 6; ++l) M[i * BLD + l] = a->M[i * BLD + l];
        bl[i] = a->b[i];
    }
    for (int i = 0; i < k1 + 6; ++i) {
        for (int l = 0; l < k1 + 6; ++l) M[pb[i] * BLD + pb[l]] += b->M[i * BLD + l];
        bl[pb[i]] += b->b[i];
    }
    front F = {0};
    F.blk = 1, F.base = ro, F.L0 = 6, F.ms = 6 + 2 * s->nr, F.M = M, F.bl = bl, F.b = s->rrhs, F.nd = k0;
    finish_node(s, J, dyn, fac, gam, loads, X, r, &F, s->kdq, &ring, jac);
    s->rsq = row_squares(s, r, J, T.side[0].rsq + T.side[1].rsq);
    if (!jac) return CR_OK;
    if (n > 6) {
        double Z[BLD];
        if (block_eliminate(&F, n, n, NULL) != 0) return CR_NOT_CONVERGED;
        block_solution(M, bl, n, n, Z);
        for (int i = 0; i < n; ++i) s->rrhs[i < k0 ? a->ids[i] : i < k0 + 6 ? ro + i - k0 : b->ids[i - k0 - 6]] = Z[i];
        T.phase = 1;
        cr_pool_run(s->pool, 2, two_sided_task, &T);
        set_update(s, &T.side[0].upd, &T.side[1].upd);
        return CR_OK;
    }
    double U[32];
    if (block_eliminate(&F, 6, 6, U) != 0) return CR_NOT_CONVERGED;
    double x[6];
    for (int k = 5; k >= 0; --k) {
        const double *u = U + 6 * k - k * (k - 1) / 2;
        double v = bl[k];
        for (int j = k + 1; j < 6; ++j) v -= u[j - k] * x[j];
        x[k] = v / u[0];
        s->rrhs[ro + k] = x[k];
    }
    T.phase = 1;
    cr_pool_run(s->pool, 2, two_sided_task, &T);
    set_update(s, &T.side[0].upd, &T.side[1].upd);
    return CR_OK;
}

cr_status ph_direct_iteration(cr_ph *s, int mode, const cr_ph_loads *loads, double *X, double *r, double *dX, int *bad)
{
    if (s->split > 0) {
        cr_status st = two_sided_pass(s, mode, loads, X, r, dX, 1);
        if (st == CR_OK) return s->two_sided++, st;
    }
    /* the node-block fronts need a free end to start from (block_eliminate) */
    int clamps = s->p.clamp_start && s->p.clamp_end;
    if (!(clamps && s->nr > 0)) {
        cr_status st = direct_pass(s, mode, loads, X, r, dX, bad, 1, s->p.clamp_start && !s->p.clamp_end, 1, NULL);
        if (st != CR_NOT_CONVERGED) return st;
    }
    if (ph_reference_arrays(s, PH_REF_BAND) != CR_OK) return CR_NO_MEMORY; /* (the band LU's arrays: lazy) */
    return direct_pass(s, mode, loads, X, r, dX, bad, 0, 0, 1, NULL);
}

cr_status ph_direct_residual(cr_ph *s, int mode, const cr_ph_loads *loads, double *X, double *r)
{
    if (s->split > 0 && two_sided_pass(s, mode, loads, X, r, NULL, 0) == CR_OK) return CR_OK;
    return direct_pass(s, mode, loads, X, r, NULL, NULL, 1, 0, 0, NULL);
}
