/* The coupled system of an assembly's statics: dense (LAPACK dgesv) or sparse (KLU,
 * Davis & Palamadai Natarajan, "Algorithm 907: KLU", ACM TOMS 37, 2010). See
 * assembly_linsys.h for the rule which one runs. */
#include "mixed/assembly_linsys.h"

#include <klu.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);

int cr_asm_sparse_min = CR_ASM_SPARSE_MIN;
int cr_asm_block_elim = 1;
_Atomic long cr_asm_block_solves = 0;

/* A singular sparse system is solved again densely to name the unknown as the dense path
 * does, up to this size (its N² doubles: 72 MB) */
enum { DENSE_DIAGNOSIS_MAX = 3000 };

struct cr_asm_sys {
    int N, sparse, cplx; /* cplx: complex entries (sparse only; values as (re, im) pairs) */
    /* a system below cr_asm_sparse_min kept as triplets for the hub's block elimination (its
     * dense LU is O(N³): 0.8 M instructions at 78 unknowns, six rods on a platform), solved
     * densely from them when it has no hub or the elimination does not decide */
    int small;
    /* what counts as without support after the scaling: a row below tiny of the largest, a
     * column or pivot below tiny (the statics' 1e-12; the dynamics' 0: exact zeros only, as
     * its dense LU, whose rows mix 1/m and 1/Θ of nodes and bodies over 13 decades) */
    double tiny;
    /* dense: A (N × N column-major), its capacity, pivots, scales (2N) */
    double *A;
    size_t acap;
    int *ipiv;
    double *sc;
    int ncap;
    /* sparse: the entries as added (triplets), the previous solve's (row, col) sequence and
     * where each entry went in the compressed columns (Ap, Ai, Ax) of that pattern */
    int *ti, *tj, *pi, *pj, *slot;
    double *tv;
    size_t nt, tcap, pnt;
    int pN;
    int *Ap, *Ai, *cnt;
    double *Ax;
    size_t xcap;
    klu_common kc;
    klu_symbolic *sym;
    klu_numeric *num;
    double rgrowth; /* of the last factorization with pivoting (klu_factor) */
    int klu_status; /* KLU's status when its factorization failed (-3 from sparse_factor) */
    /* the hub's block elimination (block_solve): the hub's unknowns (hub[i]), union-find
     * parents, each unknown's group and place in it, the groups' members, starts and blocks */
    unsigned char *hub;
    int *par, *grp, *loc, *mem, *gst, *piv;
    size_t *boff;
    double *blk;
    size_t bcap;
    /* the groups' pattern of the last block elimination (bvalid): its entries' (row, col)
     * sequence, the hub as declared and as the elimination widened it, its sizes. A Newton
     * iteration's system has the last one's pattern: the union-find and the grouping are
     * skipped (the same groups, the same bits) */
    int bvalid, bN, bh, bng;
    size_t bnt, btcap;
    int *bpi, *bpj;
    unsigned char *bhub0, *bhubA;
};

cr_asm_sys *cr_asm_sys_create(void)
{
    cr_asm_sys *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    klu_defaults(&s->kc);
    s->kc.scale = 0;            /* scaled here, as the dense path (rows, then columns) */
    s->kc.halt_if_singular = 0; /* the pivots are checked here against 1e-12 */
    s->kc.tol = 0.001;
    s->pN = -1;
    return s;
}

void cr_asm_sys_destroy(cr_asm_sys *s)
{
    if (!s) return;
    if (s->num) klu_free_numeric(&s->num, &s->kc);
    if (s->sym) klu_free_symbolic(&s->sym, &s->kc);
    free(s->A), free(s->ipiv), free(s->sc);
    free(s->ti), free(s->tj), free(s->tv), free(s->pi), free(s->pj), free(s->slot);
    free(s->Ap), free(s->Ai), free(s->cnt), free(s->Ax);
    free(s->hub), free(s->par), free(s->grp), free(s->loc), free(s->mem), free(s->gst), free(s->piv), free(s->boff),
        free(s->blk);
    free(s->bpi), free(s->bpj), free(s->bhub0), free(s->bhubA);
    free(s);
}

int cr_asm_sys_sparse(const cr_asm_sys *s) { return s->sparse && !s->small; }

static int grow_vectors(cr_asm_sys *s, int N)
{
    if (N <= s->ncap) return 1;
    free(s->ipiv), free(s->sc), free(s->Ap), free(s->cnt);
    free(s->hub), free(s->par), free(s->grp), free(s->loc), free(s->mem), free(s->gst), free(s->piv), free(s->boff);
    free(s->bhub0), free(s->bhubA);
    s->bvalid = 0;
    const size_t n1 = (size_t)N + 1;
    s->ipiv = malloc((size_t)N * sizeof *s->ipiv);
    s->sc = malloc(2 * (size_t)N * sizeof *s->sc);
    s->Ap = malloc(n1 * sizeof *s->Ap);
    s->cnt = malloc(n1 * sizeof *s->cnt);
    s->hub = malloc(n1), s->par = malloc(n1 * sizeof(int)), s->grp = malloc(n1 * sizeof(int));
    s->loc = malloc(n1 * sizeof(int)), s->mem = malloc(n1 * sizeof(int)), s->gst = malloc((n1 + 1) * sizeof(int));
    s->piv = malloc(n1 * sizeof(int)), s->boff = malloc((n1 + 1) * sizeof(size_t));
    s->bhub0 = malloc(n1), s->bhubA = malloc(n1);
    s->ncap = s->ipiv && s->sc && s->Ap && s->cnt && s->hub && s->par && s->grp && s->loc && s->mem && s->gst &&
                      s->piv && s->boff && s->bhub0 && s->bhubA
                  ? N
                  : 0;
    s->pN = -1; /* Ap was the cached pattern's */
    return s->ncap > 0;
}

static int dense_alloc(cr_asm_sys *s, int N)
{
    const size_t need = (size_t)N * N;
    if (need > s->acap) {
        free(s->A);
        s->A = malloc(need * sizeof *s->A);
        s->acap = s->A ? need : 0;
        if (!s->A) return 0;
    }
    memset(s->A, 0, need * sizeof *s->A);
    return 1;
}

static int begin_sparse(cr_asm_sys *s, int N, int cplx, double tiny)
{
    s->tiny = tiny;
    if (cplx != s->cplx) { /* the cached pattern and factors were the other kind's */
        if (s->num) klu_free_numeric(&s->num, &s->kc);
        if (s->sym) klu_free_symbolic(&s->sym, &s->kc);
        free(s->tv), free(s->Ax);
        s->tv = NULL, s->Ax = NULL, s->tcap = 0, s->xcap = 0, s->pN = -1;
        free(s->ti), free(s->tj);
        s->ti = s->tj = NULL;
    }
    s->N = N, s->sparse = 1, s->cplx = cplx, s->nt = 0, s->small = 0;
    if (!grow_vectors(s, N > 0 ? N : 1)) return 0;
    memset(s->hub, 0, (size_t)(N > 0 ? N : 1));
    return 1;
}

void cr_asm_sys_hub(cr_asm_sys *s, int i)
{
    if (s->sparse && i >= 0 && i < s->N) s->hub[i] = 1;
}

int cr_asm_sys_begin_sparse(cr_asm_sys *s, int N, int cplx) { return begin_sparse(s, N, cplx, 0.0); }

int cr_asm_sys_begin(cr_asm_sys *s, int N)
{
    if (N >= cr_asm_sparse_min) return begin_sparse(s, N, 0, 1e-12);
    if (cr_asm_block_elim) {
        if (!begin_sparse(s, N, 0, 1e-12)) return 0;
        s->small = 1;
        return 1;
    }
    s->N = N;
    s->sparse = 0, s->small = 0;
    s->nt = 0;
    if (!grow_vectors(s, N > 0 ? N : 1)) return 0;
    return s->sparse ? 1 : dense_alloc(s, N > 0 ? N : 1);
}

static void add_entry(cr_asm_sys *s, int row, int col, double v, double vi)
{
    const int w = s->cplx ? 2 : 1;
    if (s->nt == s->tcap) {
        const size_t cap = s->tcap ? 2 * s->tcap : 1024;
        int *ti = realloc(s->ti, cap * sizeof *ti), *tj = ti ? realloc(s->tj, cap * sizeof *tj) : NULL;
        if (ti) s->ti = ti;
        if (tj) s->tj = tj;
        double *tv = tj ? realloc(s->tv, w * cap * sizeof *tv) : NULL;
        if (tv) s->tv = tv;
        if (!tv) { /* out of memory: the solve says so (nt beyond tcap) */
            s->nt = (size_t)-1;
            return;
        }
        s->tcap = cap;
    }
    /* exact zeros left out: a weld's H, a tail rod's Ê V, ... would give KLU's maximum
     * transversal structural pivots that are numerically zero */
    if (s->nt == (size_t)-1 || (v == 0.0 && vi == 0.0)) return;
    s->ti[s->nt] = row, s->tj[s->nt] = col, s->tv[w * s->nt] = v;
    if (s->cplx) s->tv[2 * s->nt + 1] = vi;
    ++s->nt;
}

void cr_asm_sys_add(cr_asm_sys *s, int row, int col, double v)
{
    if (!s->sparse) {
        s->A[(size_t)col * s->N + row] += v;
        return;
    }
    add_entry(s, row, col, v, 0.0);
}

void cr_asm_sys_add_complex(cr_asm_sys *s, int row, int col, double re, double im) { add_entry(s, row, col, re, im); }

/* The dense path (was assembly_statics.c's dense_solve); A is overwritten */
static int dense_solve(int N, double *A, double *b, int *ipiv, double *sc)
{
    if (N == 0) return -1;
    double *rs = sc, *cs = sc + N;
    for (int i = 0; i < N; ++i) rs[i] = 0.0;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) rs[i] = fmax(rs[i], fabs(A[(size_t)j * N + i]));
    double big = 0;
    for (int i = 0; i < N; ++i) big = fmax(big, rs[i]);
    for (int i = 0; i < N; ++i) {
        /* a row of round-off only (a moment that nothing in the system resists) */
        if (!(rs[i] >= 1e-12 * big) || !isfinite(rs[i])) return i;
        rs[i] = 1.0 / rs[i];
    }
    for (int j = 0; j < N; ++j) {
        double mx = 0;
        for (int i = 0; i < N; ++i) mx = fmax(mx, fabs(A[(size_t)j * N + i] *= rs[i]));
        if (!(mx >= 1e-12)) return j; /* an unknown that no row feels (beyond round-off) */
        cs[j] = 1.0 / mx;
        for (int i = 0; i < N; ++i) A[(size_t)j * N + i] *= cs[j];
    }
    for (int i = 0; i < N; ++i) b[i] *= rs[i];
    int info = 0, one = 1;
    dgesv_(&N, &one, A, &N, ipiv, b, &N, &info);
    for (int k = 0; k < N; ++k) /* row pivoting only: column k is unknown k */
        if (!(fabs(A[(size_t)k * N + k]) >= 1e-12)) return k;
    if (info != 0) return info - 1;
    for (int j = 0; j < N; ++j) b[j] *= cs[j];
    return -1;
}

/* The triplets in compressed columns, rows sorted and duplicates summed: through the rows
 * (a counting sort by row, then by column keeps each column's rows in order), O(N + nt).
 * slot[t]: where triplet t went. 0: no memory. */
static int compress(cr_asm_sys *s)
{
    const int N = s->N;
    const size_t nt = s->nt;
    int *rp = malloc(((size_t)N + 1) * sizeof *rp);
    size_t *byrow = malloc((nt > 0 ? nt : 1) * sizeof *byrow);
    free(s->slot), free(s->pi), free(s->pj);
    s->slot = malloc((nt > 0 ? nt : 1) * sizeof *s->slot);
    s->pi = malloc((nt > 0 ? nt : 1) * sizeof *s->pi);
    s->pj = malloc((nt > 0 ? nt : 1) * sizeof *s->pj);
    if (nt > s->xcap) {
        free(s->Ai), free(s->Ax);
        s->Ai = malloc(nt * sizeof *s->Ai), s->Ax = malloc((s->cplx ? 2 : 1) * nt * sizeof *s->Ax);
        s->xcap = s->Ai && s->Ax ? nt : 0;
    }
    if (!rp || !byrow || !s->slot || !s->pi || !s->pj || (nt > 0 && s->xcap < nt)) {
        free(rp), free(byrow);
        s->pN = -1;
        return 0;
    }
    memset(rp, 0, ((size_t)N + 1) * sizeof *rp);
    for (size_t t = 0; t < nt; ++t) ++rp[s->ti[t] + 1];
    for (int i = 0; i < N; ++i) rp[i + 1] += rp[i];
    for (size_t t = 0; t < nt; ++t) byrow[rp[s->ti[t]]++] = t;
    /* by column, visiting the triplets row by row: each column's rows come in order */
    int *cp = s->cnt;
    memset(cp, 0, ((size_t)N + 1) * sizeof *cp);
    for (size_t t = 0; t < nt; ++t) ++cp[s->tj[t] + 1];
    for (int j = 0; j < N; ++j) cp[j + 1] += cp[j];
    size_t *bycol = malloc((nt > 0 ? nt : 1) * sizeof *bycol);
    if (!bycol) {
        free(rp), free(byrow);
        s->pN = -1;
        return 0;
    }
    for (size_t q = 0; q < nt; ++q) {
        const size_t t = byrow[q];
        bycol[cp[s->tj[t]]++] = t;
    }
    /* merge equal rows within a column */
    size_t nz = 0, q = 0;
    s->Ap[0] = 0;
    for (int j = 0; j < N; ++j) {
        const size_t end = (size_t)cp[j];
        const size_t start = nz;
        for (; q < end; ++q) {
            const size_t t = bycol[q];
            if (nz > start && s->Ai[nz - 1] == s->ti[t])
                s->slot[t] = (int)(nz - 1);
            else
                s->Ai[nz] = s->ti[t], s->slot[t] = (int)nz++;
        }
        s->Ap[j + 1] = (int)nz;
    }
    memcpy(s->pi, s->ti, nt * sizeof *s->pi), memcpy(s->pj, s->tj, nt * sizeof *s->pj);
    s->pnt = nt, s->pN = N;
    free(rp), free(byrow), free(bycol);
    return 1;
}

/* |entry p| of the compressed values */
static double entry_abs(const cr_asm_sys *s, int p)
{
    return s->cplx ? hypot(s->Ax[2 * p], s->Ax[2 * p + 1]) : fabs(s->Ax[p]);
}

static void entry_scale(cr_asm_sys *s, int p, double f)
{
    if (s->cplx)
        s->Ax[2 * p] *= f, s->Ax[2 * p + 1] *= f;
    else
        s->Ax[p] *= f;
}

/* max(a, v) for a that is never NaN: fmax's result (a NaN v leaves a), without its call */
static inline double max_of(double a, double v) { return v > a ? v : a; }

/* The hub's block elimination. Many rods on one body (a brush's legs on a platform, fingers on
 * a palm) make the statics' system an arrowhead: every rod's interface unknowns and its joints'
 * multipliers (a group) touch the rest only through the body's unknowns (the hub). Eliminating
 * each group onto the hub by hand, its small block factored densely, costs O(Σ n_g³ + h³) with
 * no ordering, no symbolic analysis and no pattern to keep: KLU spent on the same system
 * several times the work (its analysis redone whenever the pattern grew from the straight
 * start's exact zeros, its refactorization, its pivot growth check). The groups are the
 * connected components of the pattern with the hub's unknowns taken out (union-find on the
 * entries), so anything that couples two rods other than through a body (a joint between
 * rods, rod–rod contact) merges their groups; a group beyond BLOCK_GROUP_MAX or a hub beyond
 * BLOCK_HUB_MAX unknowns leaves the system to KLU. The scaling is the sparse path's (rows, then
 * columns, to a largest entry of 1). Pivoting is partial within each block only, so a block's
 * pivot below BLOCK_PIVOT_MIN (or the hub's below that of its largest entry) is not trusted:
 * KLU and, when singular, the dense path decide and name the unknown as before. */
enum { BLOCK_GROUP_MAX = 48, BLOCK_HUB_MAX = 96 };
static const double BLOCK_PIVOT_MIN = 1e-10;

static int uf_find(int *p, int i)
{
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* LU with partial pivoting of the n × n column-major A in place; 0: a pivot below tol */
#define CR_INLINE static inline __attribute__((always_inline))
CR_INLINE int small_lu(int n, double *A, int *piv, double tol)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        double mx = fabs(A[k + (size_t)n * k]);
        for (int i = k + 1; i < n; ++i) {
            const double v = fabs(A[i + (size_t)n * k]);
            if (v > mx) mx = v, p = i;
        }
        if (!(mx >= tol) || !(mx > 0)) return 0;
        piv[k] = p;
        if (p != k)
            for (int j = 0; j < n; ++j) {
                const double t = A[k + (size_t)n * j];
                A[k + (size_t)n * j] = A[p + (size_t)n * j], A[p + (size_t)n * j] = t;
            }
        const double inv = 1.0 / A[k + (size_t)n * k];
        double *ck = A + (size_t)n * k;
        for (int i = k + 1; i < n; ++i) ck[i] *= inv;
        for (int j = k + 1; j < n; ++j) {
            double *cj = A + (size_t)n * j;
            const double a = cj[k];
            if (a != 0.0)
                for (int i = k + 1; i < n; ++i) cj[i] -= ck[i] * a;
        }
    }
    return 1;
}

/* X (n × ncol, column-major) ← A⁻¹ X with small_lu's factors */
CR_INLINE void small_lu_solve(int n, const double *A, const int *piv, double *X, int ncol)
{
    for (int c = 0; c < ncol; ++c) {
        double *x = X + (size_t)n * c;
        for (int k = 0; k < n; ++k)
            if (piv[k] != k) {
                const double t = x[k];
                x[k] = x[piv[k]], x[piv[k]] = t;
            }
        for (int k = 0; k < n; ++k) {
            const double v = x[k];
            if (v != 0.0)
                for (int i = k + 1; i < n; ++i) x[i] -= A[i + (size_t)n * k] * v;
        }
        for (int k = n - 1; k >= 0; --k) {
            const double v = x[k] /= A[k + (size_t)n * k];
            if (v != 0.0)
                for (int i = 0; i < k; ++i) x[i] -= A[i + (size_t)n * k] * v;
        }
    }
}

/* Group block A (n × n), then W = [B | b] (n × (h + 1)) and T (h × n) after it: W ← A⁻¹ W,
 * [D | d] −= T W; 0 when a pivot of A is below BLOCK_PIVOT_MIN */
CR_INLINE int eliminate_group(int n, int h, double *A, double *D, int *piv)
{
    double *W = A + (size_t)n * n;
    const double *T = W + (size_t)n * (h + 1);
    if (!small_lu(n, A, piv, BLOCK_PIVOT_MIN)) return 0;
    small_lu_solve(n, A, piv, W, h + 1);
    for (int c = 0; c <= h; ++c) {
        const double *wc = W + (size_t)n * c;
        double *dc = D + (size_t)h * c;
        for (int l = 0; l < n; ++l) {
            const double wv = wc[l];
            if (wv != 0.0)
                for (int r = 0; r < h; ++r) dc[r] -= T[r + (size_t)h * l] * wv;
        }
    }
    return 1;
}

/* Solves the sparse system by the hub's block elimination: -1 (b solved), -2 (no memory), or
 * 1 when the system is not for it or not decided here (b untouched: KLU goes on). */
static int block_solve(cr_asm_sys *s, double *b)
{
    const int N = s->N;
    const size_t nt = s->nt;
    if (s->cplx || N == 0 || nt == (size_t)-1) return 1;
    int *par = s->par, *grp = s->grp, *loc = s->loc, *mem = s->mem, *gst = s->gst, *cnt = s->cnt;
    unsigned char *hub = s->hub;
    int h = 0, ng = 0;
    if (s->bvalid && s->bN == N && s->bnt == nt && !memcmp(s->bhub0, hub, (size_t)N) &&
        !memcmp(s->bpi, s->ti, nt * sizeof *s->ti) && !memcmp(s->bpj, s->tj, nt * sizeof *s->tj)) {
        memcpy(hub, s->bhubA, (size_t)N); /* the last elimination's groups, still in grp, loc, mem, gst */
        h = s->bh, ng = s->bng;
    } else {
        s->bvalid = 0;
        if (nt > s->btcap) {
            free(s->bpi), free(s->bpj);
            s->bpi = malloc(nt * sizeof *s->bpi), s->bpj = malloc(nt * sizeof *s->bpj);
            s->btcap = s->bpi && s->bpj ? nt : 0;
        }
        memcpy(s->bhub0, hub, (size_t)N);
        for (int i = 0; i < N; ++i) par[i] = i, grp[i] = -2; /* -2: no entry off the hub yet */
        for (size_t t = 0; t < nt; ++t) {
            const int i = s->ti[t], j = s->tj[t];
            if (hub[i] || hub[j]) continue;
            grp[i] = grp[j] = -1;
            const int ri = uf_find(par, i), rj = uf_find(par, j);
            if (ri != rj) par[ri < rj ? rj : ri] = ri < rj ? ri : rj;
        }
        /* an unknown coupled to the hub only (a joint's row between two bodies) joins the hub: on
         * its own its block would be an exact zero */
        for (int i = 0; i < N; ++i) {
            if (!hub[i] && grp[i] == -2) hub[i] = 1;
            if (hub[i]) ++h;
        }
        if (h > BLOCK_HUB_MAX) return 1;
        for (int i = 0; i < N; ++i)
            if (!hub[i] && par[i] == i) grp[i] = ng++;
        memset(gst, 0, ((size_t)ng + 2) * sizeof *gst);
        for (int i = 0; i < N; ++i)
            if (!hub[i]) ++gst[(grp[i] = grp[uf_find(par, i)]) + 1];
        for (int g = 0; g < ng; ++g) {
            if (gst[g + 1] > BLOCK_GROUP_MAX) return 1;
            gst[g + 1] += gst[g];
        }
        gst[ng + 1] = gst[ng] + h; /* the hub's members after the groups' */
        memcpy(cnt, gst, ((size_t)ng + 1) * sizeof *cnt);
        for (int i = 0; i < N; ++i) {
            const int g = hub[i] ? ng : grp[i];
            loc[i] = cnt[g]++ - gst[g];
            mem[gst[g] + loc[i]] = i;
        }
        if (nt > 0 && s->btcap >= nt) { /* kept for the next solve (none without the memory: not an error) */
            memcpy(s->bpi, s->ti, nt * sizeof *s->ti), memcpy(s->bpj, s->tj, nt * sizeof *s->tj);
            memcpy(s->bhubA, hub, (size_t)N);
            s->bN = N, s->bnt = nt, s->bh = h, s->bng = ng, s->bvalid = 1;
        }
    }
    size_t *boff = s->boff, tot = 0;
    const size_t hs = (size_t)h, h1 = hs + 1;
    for (int g = 0; g < ng; ++g) {
        const size_t n = (size_t)(gst[g + 1] - gst[g]);
        boff[g] = tot, tot += n * n + n * h1 + hs * n;
    }
    boff[ng] = tot, tot += hs * h1;
    if (tot > s->bcap) {
        free(s->blk);
        s->blk = malloc(tot * sizeof *s->blk);
        s->bcap = s->blk ? tot : 0;
        if (!s->blk) return -2;
    }
    /* the scaling, as the sparse path's (rows, then columns, to a largest entry of 1) but
     * from the entries as added: a sum of several entries is not its terms' maximum, which
     * matters only to the equilibration (any positive factors would do) and to the rows and
     * columns without support, whose pivots the factorizations below check anyway */
    double *rs = s->sc, *cs = s->sc + N;
    for (int i = 0; i < N; ++i) rs[i] = 0.0, cs[i] = 0.0;
    for (size_t t = 0; t < nt; ++t) rs[s->ti[t]] = max_of(rs[s->ti[t]], fabs(s->tv[t]));
    double big = 0;
    for (int i = 0; i < N; ++i) big = max_of(big, rs[i]);
    for (int i = 0; i < N; ++i) {
        if (!(rs[i] > 0 && rs[i] >= s->tiny * big) || !isfinite(rs[i])) return 1;
        rs[i] = 1.0 / rs[i];
    }
    for (size_t t = 0; t < nt; ++t) cs[s->tj[t]] = max_of(cs[s->tj[t]], fabs(s->tv[t]) * rs[s->ti[t]]);
    for (int j = 0; j < N; ++j) {
        if (!(cs[j] > 0 && cs[j] >= s->tiny)) return 1;
        cs[j] = 1.0 / cs[j];
    }
    double *blk = s->blk, *D = blk + boff[ng];
    const int *hm = mem + gst[ng];
    memset(blk, 0, tot * sizeof *blk);
    /* per group: A (n × n), W = [B | b] (n × (h + 1)), T (h × n); the hub's D = [D | d] */
    for (size_t t = 0; t < nt; ++t) {
        const int i = s->ti[t], j = s->tj[t];
        const double v = s->tv[t] * rs[i] * cs[j];
        if (!hub[i]) {
            const int g = grp[i];
            const size_t n = (size_t)(gst[g + 1] - gst[g]);
            double *A = blk + boff[g];
            if (!hub[j])
                A[loc[i] + n * loc[j]] += v;
            else
                A[n * n + loc[i] + n * loc[j]] += v;
        } else if (!hub[j]) {
            const int g = grp[j];
            const size_t n = (size_t)(gst[g + 1] - gst[g]);
            blk[boff[g] + n * n + n * h1 + loc[i] + hs * loc[j]] += v;
        } else
            D[loc[i] + hs * loc[j]] += v;
    }
    for (int g = 0; g < ng; ++g) {
        const size_t n = (size_t)(gst[g + 1] - gst[g]);
        const int *m = mem + gst[g];
        double *y = blk + boff[g] + n * n + n * hs;
        for (size_t r = 0; r < n; ++r) y[r] = b[m[r]] * rs[m[r]];
    }
    for (size_t r = 0; r < hs; ++r) D[r + hs * hs] = b[hm[r]] * rs[hm[r]];
    /* each group onto the hub (the brush's sizes compiled apart: a weld's group, 12 unknowns
     * on a body's 6, and the position correction's, 6 on 3) */
    int *piv = s->piv;
    for (int g = 0; g < ng; ++g) {
        const int n = gst[g + 1] - gst[g];
        double *A = blk + boff[g];
        const int ok = n == 12 && h == 6  ? eliminate_group(12, 6, A, D, piv + gst[g])
                       : n == 6 && h == 3 ? eliminate_group(6, 3, A, D, piv + gst[g])
                                          : eliminate_group(n, h, A, D, piv + gst[g]);
        if (!ok) return 1;
    }
    double *xh = D + hs * hs;
    if (h > 0) {
        double dmax = 0;
        for (size_t k = 0; k < hs * hs; ++k) dmax = max_of(dmax, fabs(D[k]));
        if (!(dmax > 0) || !isfinite(dmax) || !small_lu(h, D, piv + gst[ng], BLOCK_PIVOT_MIN * dmax)) return 1;
        small_lu_solve(h, D, piv + gst[ng], xh, 1);
    }
    for (int g = 0; g < ng; ++g) {
        const size_t n = (size_t)(gst[g + 1] - gst[g]);
        double *W = blk + boff[g] + n * n, *y = W + n * hs;
        for (size_t c = 0; c < hs; ++c)
            for (size_t r = 0; r < n; ++r) y[r] -= W[r + n * c] * xh[c];
        for (size_t r = 0; r < n; ++r)
            if (!isfinite(y[r])) return 1;
    }
    for (int g = 0; g < ng; ++g) {
        const size_t n = (size_t)(gst[g + 1] - gst[g]);
        const int *m = mem + gst[g];
        const double *y = blk + boff[g] + n * n + n * hs;
        for (size_t r = 0; r < n; ++r) b[m[r]] = y[r] * cs[m[r]];
    }
    for (size_t r = 0; r < hs; ++r) b[hm[r]] = xh[r] * cs[hm[r]];
    atomic_fetch_add_explicit(&cr_asm_block_solves, 1, memory_order_relaxed);
    return -1;
}

/* The sparse system compressed, scaled (rows, then columns, to a largest entry of 1, as the
 * dense path) and factored: -1, the row or unknown found without support, or -2 (memory) */
static int sparse_factor(cr_asm_sys *s)
{
    const int N = s->N, w = s->cplx ? 2 : 1;
    if (N == 0) return -1;
    if (s->nt == (size_t)-1) return -2;
    const size_t nt = s->nt;
    /* the pattern of the previous factorization (same entries in the same order: the symbolic
     * analysis is kept), else compressed and analysed anew */
    int same = s->pN == N && s->pnt == nt && s->sym;
    if (same) same = !memcmp(s->pi, s->ti, nt * sizeof *s->ti) && !memcmp(s->pj, s->tj, nt * sizeof *s->tj);
    if (!same) {
        if (s->num) klu_free_numeric(&s->num, &s->kc);
        if (s->sym) klu_free_symbolic(&s->sym, &s->kc);
        if (!compress(s)) return -2;
    }
    const int nz = s->Ap[N];
    memset(s->Ax, 0, (size_t)w * nz * sizeof *s->Ax);
    for (size_t t = 0; t < nt; ++t)
        for (int c = 0; c < w; ++c) s->Ax[w * s->slot[t] + c] += s->tv[w * t + c];
    double *rs = s->sc, *cs = s->sc + N;
    for (int i = 0; i < N; ++i) rs[i] = 0.0;
    for (int p = 0; p < nz; ++p) rs[s->Ai[p]] = max_of(rs[s->Ai[p]], entry_abs(s, p));
    double big = 0;
    for (int i = 0; i < N; ++i) big = max_of(big, rs[i]);
    for (int i = 0; i < N; ++i) {
        if (!(rs[i] > 0 && rs[i] >= s->tiny * big) || !isfinite(rs[i])) return i;
        rs[i] = 1.0 / rs[i];
    }
    for (int j = 0; j < N; ++j) {
        double mx = 0;
        for (int p = s->Ap[j]; p < s->Ap[j + 1]; ++p) {
            entry_scale(s, p, rs[s->Ai[p]]);
            mx = max_of(mx, entry_abs(s, p));
        }
        if (!(mx > 0 && mx >= s->tiny)) return j;
        cs[j] = 1.0 / mx;
        for (int p = s->Ap[j]; p < s->Ap[j + 1]; ++p) entry_scale(s, p, cs[j]);
    }
    if (!s->sym) s->sym = klu_analyze(N, s->Ap, s->Ai, &s->kc);
    if (!s->sym) return s->kc.status == KLU_OUT_OF_MEMORY ? -2 : (s->klu_status = s->kc.status, -3);
    /* Why the previous pivots first: a Newton iteration's matrix differs little from the
     * last one's, and klu_refactor (no pivot search, no symbolic step) costs about half of
     * klu_factor. It is kept only while its pivot growth stays within 10× of the last
     * pivoted factorization's and no pivot falls below 1e-8 (the pivots' own check below is
     * 1e-12): otherwise the matrix is factored again with pivoting. */
    int fresh = 1;
    if (same && s->num &&
        (s->cplx ? klu_z_refactor(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->kc)
                 : klu_refactor(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->kc))) {
        const double *ud = s->num->Udiag;
        int ok = (s->cplx ? klu_z_rgrowth(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->kc)
                          : klu_rgrowth(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->kc)) &&
                 s->kc.rgrowth >= 0.1 * s->rgrowth;
        for (int k = 0; k < N && ok; ++k) ok = (s->cplx ? hypot(ud[2 * k], ud[2 * k + 1]) : fabs(ud[k])) >= 1e-8;
        fresh = !ok;
    }
    if (fresh) {
        if (s->num) klu_free_numeric(&s->num, &s->kc);
        s->num = s->cplx ? klu_z_factor(s->Ap, s->Ai, s->Ax, s->sym, &s->kc)
                         : klu_factor(s->Ap, s->Ai, s->Ax, s->sym, &s->kc);
        /* not singular (KLU goes on past a zero pivot here): out of memory, or the input
         * refused (too large for its integers): no unknown to name, -3 says so */
        if (!s->num) return s->kc.status == KLU_OUT_OF_MEMORY ? -2 : (s->klu_status = s->kc.status, -3);
        const int g = s->cplx ? klu_z_rgrowth(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->kc)
                              : klu_rgrowth(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->kc);
        s->rgrowth = g ? s->kc.rgrowth : 0.0;
    }
    /* the pivots, as the dense path's (kth pivot: column Q[k] of the scaled matrix) */
    const double *ud = s->num->Udiag;
    for (int k = 0; k < N; ++k) {
        const double u = s->cplx ? hypot(ud[2 * k], ud[2 * k + 1]) : fabs(ud[k]);
        if (!(u > 0 && u >= s->tiny)) return s->sym->Q[k];
    }
    return -1;
}

int cr_asm_sys_factor(cr_asm_sys *s)
{
    const int bad = sparse_factor(s);
    return bad == -3 ? 0 : bad; /* the dynamics' callers know -1, -2 and singular only */
}

int cr_asm_sys_klu_status(const cr_asm_sys *s) { return s->klu_status; }

int cr_asm_sys_solve_factored(cr_asm_sys *s, double *b)
{
    const int N = s->N, w = s->cplx ? 2 : 1;
    if (N == 0) return -1;
    const double *rs = s->sc, *cs = s->sc + N;
    for (int i = 0; i < N; ++i)
        for (int c = 0; c < w; ++c) b[w * i + c] *= rs[i];
    if (!(s->cplx ? klu_z_solve(s->sym, s->num, N, 1, b, &s->kc) : klu_solve(s->sym, s->num, N, 1, b, &s->kc)))
        return -2;
    for (int j = 0; j < N; ++j)
        for (int c = 0; c < w; ++c) b[w * j + c] *= cs[j];
    return -1;
}

/* The triplets into the dense matrix, in the order added (the sums of direct dense adds) */
static int dense_from_triplets(cr_asm_sys *s)
{
    const int N = s->N;
    if (s->nt == (size_t)-1 || !dense_alloc(s, N > 0 ? N : 1)) return 0;
    for (size_t t = 0; t < s->nt; ++t) s->A[(size_t)s->tj[t] * N + s->ti[t]] += s->tv[t];
    return 1;
}

int cr_asm_sys_solve(cr_asm_sys *s, double *b)
{
    const int N = s->N;
    if (!s->sparse) return dense_solve(N, s->A, b, s->ipiv, s->sc);
    if (s->small) { /* the block elimination when there is a hub, else (or undecided) the dense LU */
        int h = 0;
        for (int i = 0; i < N && !h; ++i) h = s->hub[i];
        const int r = h ? block_solve(s, b) : 1;
        if (r != 1) return r;
        if (!dense_from_triplets(s)) return -2;
        return dense_solve(N, s->A, b, s->ipiv, s->sc);
    }
    if (cr_asm_block_elim) {
        const int r = block_solve(s, b);
        if (r != 1) return r;
    }
    const int bad = sparse_factor(s);
    if (bad == -2) return -2;
    if (bad >= 0 || bad == -3) {
        /* a row, a column or a pivot without support: the dense path decides (KLU's threshold
         * pivoting may meet a small pivot that LAPACK's partial pivoting avoids) and names the
         * unknown as it does */
        if (N > DENSE_DIAGNOSIS_MAX || !dense_from_triplets(s)) return bad;
        return dense_solve(N, s->A, b, s->ipiv, s->sc);
    }
    return cr_asm_sys_solve_factored(s, b);
}
