/* The coupled system of an assembly's statics: dense (LAPACK dgesv) or sparse (KLU,
 * Davis & Palamadai Natarajan, "Algorithm 907: KLU", ACM TOMS 37, 2010). See
 * assembly_linsys.h for the rule which one runs. */
#include "mixed/assembly_linsys.h"

#include <klu.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
                   int *info);

int cr_asm_sparse_min = CR_ASM_SPARSE_MIN;

/* A singular sparse system is solved again densely to name the unknown as the dense path
 * does, up to this size (its N² doubles: 72 MB) */
enum { DENSE_DIAGNOSIS_MAX = 3000 };

struct cr_asm_sys {
    int N, sparse, cplx; /* cplx: complex entries (sparse only; values as (re, im) pairs) */
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
    free(s);
}

int cr_asm_sys_sparse(const cr_asm_sys *s) { return s->sparse; }

static int grow_vectors(cr_asm_sys *s, int N)
{
    if (N <= s->ncap) return 1;
    free(s->ipiv), free(s->sc), free(s->Ap), free(s->cnt);
    s->ipiv = malloc((size_t)N * sizeof *s->ipiv);
    s->sc = malloc(2 * (size_t)N * sizeof *s->sc);
    s->Ap = malloc(((size_t)N + 1) * sizeof *s->Ap);
    s->cnt = malloc(((size_t)N + 1) * sizeof *s->cnt);
    s->ncap = s->ipiv && s->sc && s->Ap && s->cnt ? N : 0;
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
    s->N = N, s->sparse = 1, s->cplx = cplx, s->nt = 0;
    return grow_vectors(s, N > 0 ? N : 1);
}

int cr_asm_sys_begin_sparse(cr_asm_sys *s, int N, int cplx) { return begin_sparse(s, N, cplx, 0.0); }

int cr_asm_sys_begin(cr_asm_sys *s, int N)
{
    if (N >= cr_asm_sparse_min) return begin_sparse(s, N, 0, 1e-12);
    s->N = N;
    s->sparse = 0;
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
    if (!s->sym) return -2;
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
        if (!s->num) return s->kc.status == KLU_OUT_OF_MEMORY ? -2 : 0;
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

int cr_asm_sys_factor(cr_asm_sys *s) { return sparse_factor(s); }

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

int cr_asm_sys_solve(cr_asm_sys *s, double *b)
{
    const int N = s->N;
    if (!s->sparse) return dense_solve(N, s->A, b, s->ipiv, s->sc);
    const int bad = sparse_factor(s);
    if (bad == -2) return -2;
    if (bad >= 0) {
        /* a row, a column or a pivot without support: the dense path decides (KLU's threshold
         * pivoting may meet a small pivot that LAPACK's partial pivoting avoids) and names the
         * unknown as it does */
        if (N > DENSE_DIAGNOSIS_MAX || !dense_alloc(s, N)) return bad;
        for (size_t t = 0; t < s->nt; ++t) s->A[(size_t)s->tj[t] * N + s->ti[t]] += s->tv[t];
        return dense_solve(N, s->A, b, s->ipiv, s->sc);
    }
    return cr_asm_sys_solve_factored(s, b);
}
