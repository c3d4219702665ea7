/* Partitioned block-tridiagonal LU: see blocktri_partitioned.h for the scheme and why
 * its pivoting is as safe as the serial block Thomas algorithm's. */
#include "blocktri_partitioned.h"

#include <stdlib.h>
#include <string.h>

/* Work per row of a middle chunk relative to an end chunk's (the fill-in G and the
 * corners gh, zh besides the Thomas step): middle chunks get this share fewer rows. */
#define MIDDLE_COST 2.0

struct cr_blocktri_part {
    int n, b, P;
    int *sep;        /* P - 1 separator rows */
    double *G;       /* n b×b blocks, used on the rows of middle chunks (NULL for P <= 2) */
    double *gh, *zh; /* per chunk: first row's dependence on the separators (middle chunks) */
    double *yh;      /* per chunk: first row's ŷ of the current solve */
    double *yh_many; /* per chunk: the b×CR_BLOCKTRI_MANY_MAX tile of ŷ of a solve_many */
    int *fail, *bad; /* per chunk, of the current factorization */
    cr_blocktri *R;  /* the separators' system (P - 1 blocks), NULL for P = 1 */
    /* the current job */
    cr_blocktri *m;
    double *x;
    size_t ld;
    int nrhs;
};

typedef struct chunk {
    int first, len, dir, has_far, middle;
} chunk;

static chunk chunk_of(const cr_blocktri_part *p, int k)
{
    if (p->P == 1) return (chunk){0, p->n, 1, 0, 0};
    if (k == 0) return (chunk){0, p->sep[0], 1, 1, 0};
    if (k == p->P - 1) return (chunk){p->n - 1, p->n - 1 - p->sep[p->P - 2], -1, 1, 0};
    return (chunk){p->sep[k - 1] + 1, p->sep[k] - p->sep[k - 1] - 1, 1, 1, 1};
}

void cr_blocktri_part_destroy(cr_blocktri_part *p)
{
    if (!p) return;
    free(p->sep);
    free(p->G);
    free(p->gh);
    free(p->zh);
    free(p->yh);
    free(p->yh_many);
    free(p->fail);
    free(p->bad);
    cr_blocktri_destroy(p->R);
    free(p);
}

int cr_blocktri_part_chunks(const cr_blocktri_part *p) { return p ? p->P : 0; }

cr_blocktri_part *cr_blocktri_part_create(int n, int b, int chunks, const int *sep)
{
    if (chunks < 1 || b < 1 || b > 64 || n < 2 * chunks - 1) return NULL;
    cr_blocktri_part *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    const int P = chunks;
    const size_t bb = (size_t)b * b;
    p->n = n, p->b = b, p->P = P;
    p->sep = malloc(sizeof *p->sep * (size_t)(P > 1 ? P - 1 : 1));
    p->gh = malloc(sizeof(double) * bb * P);
    p->zh = malloc(sizeof(double) * bb * P);
    p->yh = malloc(sizeof(double) * (size_t)b * P);
    p->yh_many = malloc(sizeof(double) * (size_t)b * CR_BLOCKTRI_MANY_MAX * P);
    p->fail = calloc((size_t)P, sizeof *p->fail);
    p->bad = calloc((size_t)P, sizeof *p->bad);
    if (P > 2) p->G = malloc(sizeof(double) * bb * n);
    if (P > 1) p->R = cr_blocktri_create(P - 1, b);
    if (!p->sep || !p->gh || !p->zh || !p->yh || !p->yh_many || !p->fail || !p->bad || (P > 2 && !p->G) ||
        (P > 1 && !p->R)) {
        cr_blocktri_part_destroy(p);
        return NULL;
    }
    if (sep) {
        for (int k = 0; k < P - 1; ++k) {
            int lo = k == 0 ? 1 : sep[k - 1] + 2;
            if (sep[k] < lo || sep[k] > n - 2) {
                cr_blocktri_part_destroy(p);
                return NULL;
            }
            p->sep[k] = sep[k];
        }
    } else if (P > 1) {
        /* interior rows shared in proportion to 1 / cost per row, at least one each */
        const int interior = n - (P - 1);
        double total = 2.0 + (P - 2) / MIDDLE_COST, cum = 0.0;
        int row = 0; /* first interior row of the chunk */
        for (int k = 0; k < P - 1; ++k) {
            cum += (k == 0 ? 1.0 : 1.0 / MIDDLE_COST);
            int end = (int)(interior * cum / total + 0.5); /* interior rows before this separator */
            int len = end - (row - k);
            if (len < 1) len = 1;
            int maxlen = n - row - 2 * (P - 1 - k); /* leave an interior row and a separator for each later chunk */
            if (len > maxlen) len = maxlen;
            p->sep[k] = row + len;
            row = p->sep[k] + 1;
        }
    }
    return p;
}

static void factor_task(void *arg, int k)
{
    cr_blocktri_part *p = arg;
    chunk c = chunk_of(p, k);
    const size_t bb = (size_t)p->b * p->b;
    p->fail[k] = cr_blocktri_chunk_factor(p->m, c.first, c.len, c.dir, c.has_far, c.middle ? p->G : NULL,
                                          p->gh + k * bb, p->zh + k * bb, &p->bad[k]) != CR_OK;
}

/* C -= A B, b×b row-major (the separators' system only: P - 1 blocks) */
static void mul_sub(int b, const double *A, const double *B, double *C)
{
    for (int r = 0; r < b; ++r)
        for (int k = 0; k < b; ++k) {
            double f = A[r * b + k];
            for (int c = 0; c < b; ++c) C[r * b + c] -= f * B[k * b + c];
        }
}

static void gemv_sub(int b, const double *A, const double *x, double *y)
{
    for (int r = 0; r < b; ++r) {
        double s = 0;
        for (int k = 0; k < b; ++k) s += A[r * b + k] * x[k];
        y[r] -= s;
    }
}

/* The separators' block-tridiagonal system, factored, once the chunks are eliminated:
 * separator k: L_s x_{s-1} + D_s x_s + U_s x_{s+1} = r_s with x_{s-1} and x_{s+1}
 * expressed through the separators by their chunks' eliminations */
static cr_status factor_separators(cr_blocktri_part *p, cr_blocktri *m, int *bad_block)
{
    const int P = p->P, b = p->b;
    const size_t bb = (size_t)b * b;
    cr_blocktri *R = p->R;
    cr_blocktri_zero(R);
    for (int k = 0; k < P - 1; ++k) {
        const int s = p->sep[k], a = s - 1, c = s + 1;
        const double *Ls = cr_blocktri_L(m, s), *Us = cr_blocktri_U(m, s);
        double *Rd = cr_blocktri_D(R, k);
        memcpy(Rd, cr_blocktri_D(m, s), bb * sizeof(double));
        mul_sub(b, Ls, cr_blocktri_U(m, a), Rd); /* chunk k, top-down: x_a = y_a - X_a x_s (- G_a x_{s_{k-1}}) */
        if (k >= 1) {
            double *Rl = cr_blocktri_L(R, k);
            mul_sub(b, Ls, p->G + (size_t)a * bb, Rl);
        }
        if (k + 1 == P - 1) { /* last chunk, bottom-up: x_c = y_c - X_c x_s, X_c in L_c */
            mul_sub(b, Us, cr_blocktri_L(m, c), Rd);
        } else { /* middle chunk: x_c = ŷ_c - gh x_s - zh x_{s_{k+1}} */
            mul_sub(b, Us, p->gh + (size_t)(k + 1) * bb, Rd);
            mul_sub(b, Us, p->zh + (size_t)(k + 1) * bb, cr_blocktri_U(R, k));
        }
    }
    int bad = 0;
    cr_status st = cr_blocktri_factor(R, &bad);
    if (st != CR_OK && bad_block) *bad_block = p->sep[bad];
    return st;
}

/* the chunks' failures, the first reported */
static cr_status chunk_failures(const cr_blocktri_part *p, int *bad_block)
{
    for (int k = 0; k < p->P; ++k)
        if (p->fail[k]) {
            if (bad_block) *bad_block = p->bad[k];
            return CR_SINGULAR;
        }
    return CR_OK;
}

cr_status cr_blocktri_part_factor(cr_blocktri_part *p, cr_blocktri *m, cr_pool *pool, int *bad_block)
{
    p->m = m;
    for (int k = 0; k < p->P; ++k) p->fail[k] = 0;
    cr_pool_run(pool, p->P, factor_task, p);
    cr_status st = chunk_failures(p, bad_block);
    if (st == CR_OK && p->P > 1) st = factor_separators(p, m, bad_block);
    if (st == CR_OK) m->factored = 1;
    return st;
}

static void forward_task(void *arg, int k)
{
    cr_blocktri_part *p = arg;
    chunk c = chunk_of(p, k);
    cr_blocktri_chunk_forward(p->m, c.first, c.len, c.dir, c.middle ? p->G : NULL, p->x, p->yh + (size_t)k * p->b);
}

static void backward_task(void *arg, int k)
{
    cr_blocktri_part *p = arg;
    chunk c = chunk_of(p, k);
    cr_blocktri_chunk_backward(p->m, c.first, c.len, c.dir, c.has_far, c.middle ? p->G : NULL, p->x);
}

/* the separators' right-hand sides after the chunks' forward sweeps, solved in place in x's
 * separator rows; 0 when their scratch cannot be had (more than 4096 / b chunks only) */
static int solve_separators(cr_blocktri_part *p, const cr_blocktri *m, double *x)
{
    const int P = p->P, b = p->b;
    double rr[64 * 64];
    double *r = P - 1 <= 64 * 64 / b ? rr : malloc(sizeof(double) * (size_t)(P - 1) * b);
    if (!r) return 0;
    for (int k = 0; k < P - 1; ++k) {
        const int s = p->sep[k];
        double *rk = r + (size_t)k * b;
        memcpy(rk, x + (size_t)s * b, b * sizeof(double));
        gemv_sub(b, m->lower + (size_t)s * b * b, x + (size_t)(s - 1) * b, rk);
        gemv_sub(b, m->upper + (size_t)s * b * b,
                 k + 1 == P - 1 ? x + (size_t)(s + 1) * b : p->yh + (size_t)(k + 1) * b, rk);
    }
    cr_blocktri_solve(p->R, r);
    for (int k = 0; k < P - 1; ++k) memcpy(x + (size_t)p->sep[k] * b, r + (size_t)k * b, b * sizeof(double));
    if (r != rr) free(r);
    return 1;
}

void cr_blocktri_part_solve(cr_blocktri_part *p, const cr_blocktri *m, cr_pool *pool, double *x)
{
    p->m = (cr_blocktri *)m; /* only read by the solve tasks */
    p->x = x;
    cr_pool_run(pool, p->P, forward_task, p);
    if (p->P > 1 && !solve_separators(p, m, x)) return; /* cannot happen for a pool's chunk counts (<= 64) */
    cr_pool_run(pool, p->P, backward_task, p);
}

/* an end chunk's elimination and forward sweep in one pass; a middle chunk's one after the
 * other (its fill-in G needs the spike's own sweep anyway) */
static void factor_solve_task(void *arg, int k)
{
    cr_blocktri_part *p = arg;
    chunk c = chunk_of(p, k);
    if (!c.middle) {
        p->fail[k] = cr_blocktri_chunk_factor_solve(p->m, c.first, c.len, c.dir, c.has_far, p->x, &p->bad[k]) != CR_OK;
        return;
    }
    factor_task(arg, k);
    if (!p->fail[k]) forward_task(arg, k);
}

cr_status cr_blocktri_part_factor_solve(cr_blocktri_part *p, cr_blocktri *m, cr_pool *pool, double *x, int *bad_block)
{
    p->m = m;
    p->x = x;
    for (int k = 0; k < p->P; ++k) p->fail[k] = 0;
    cr_pool_run(pool, p->P, factor_solve_task, p);
    cr_status st = chunk_failures(p, bad_block);
    if (st == CR_OK && p->P > 1) st = factor_separators(p, m, bad_block);
    if (st != CR_OK) return st;
    m->factored = 1;
    if (p->P > 1 && !solve_separators(p, m, x)) return CR_NO_MEMORY;
    cr_pool_run(pool, p->P, backward_task, p);
    return CR_OK;
}

static void forward_many_task(void *arg, int k)
{
    cr_blocktri_part *p = arg;
    chunk c = chunk_of(p, k);
    cr_blocktri_chunk_forward_many(p->m, c.first, c.len, c.dir, c.middle ? p->G : NULL, p->x, p->ld, p->nrhs,
                                   p->yh_many + (size_t)k * p->b * CR_BLOCKTRI_MANY_MAX);
}

static void backward_many_task(void *arg, int k)
{
    cr_blocktri_part *p = arg;
    chunk c = chunk_of(p, k);
    cr_blocktri_chunk_backward_many(p->m, c.first, c.len, c.dir, c.has_far, c.middle ? p->G : NULL, p->x, p->ld,
                                    p->nrhs);
}

/* cr_blocktri_part_solve's steps on a group of columns; the separators' system gets all
 * of them in one cr_blocktri_solve_many */
cr_status cr_blocktri_part_solve_many(cr_blocktri_part *p, const cr_blocktri *m, cr_pool *pool, double *x, size_t ld,
                                      int nrhs)
{
    const int P = p->P, b = p->b;
    const size_t ns = (size_t)(P - 1) * b; /* the separators' unknowns */
    double *r = NULL;
    if (nrhs <= 0) return CR_OK;
    if (P > 1 && !(r = malloc(sizeof(double) * ns * (nrhs < CR_BLOCKTRI_MANY_MAX ? nrhs : CR_BLOCKTRI_MANY_MAX))))
        return CR_NO_MEMORY; /* a few kB */
    p->m = (cr_blocktri *)m; /* only read by the solve tasks */
    p->ld = ld;
    for (int j0 = 0; j0 < nrhs; j0 += CR_BLOCKTRI_MANY_MAX) {
        const int c = nrhs - j0 < CR_BLOCKTRI_MANY_MAX ? nrhs - j0 : CR_BLOCKTRI_MANY_MAX;
        double *xg = x + (size_t)j0 * ld;
        p->x = xg;
        p->nrhs = c;
        cr_pool_run(pool, P, forward_many_task, p);
        for (int k = 0; k < P - 1; ++k) {
            const int s = p->sep[k];
            const double *Ls = m->lower + (size_t)s * b * b, *Us = m->upper + (size_t)s * b * b;
            const double *yh = p->yh_many + (size_t)(k + 1) * b * CR_BLOCKTRI_MANY_MAX; /* b×c tile */
            for (int j = 0; j < c; ++j) {
                const double *xj = xg + (size_t)j * ld;
                double *rk = r + (size_t)j * ns + (size_t)k * b, next[64];
                for (int q = 0; q < b; ++q) next[q] = k + 1 == P - 1 ? xj[(size_t)(s + 1) * b + q] : yh[q * c + j];
                memcpy(rk, xj + (size_t)s * b, b * sizeof(double));
                gemv_sub(b, Ls, xj + (size_t)(s - 1) * b, rk);
                gemv_sub(b, Us, next, rk);
            }
        }
        if (P > 1) {
            cr_blocktri_solve_many(p->R, r, c);
            for (int j = 0; j < c; ++j)
                for (int k = 0; k < P - 1; ++k)
                    memcpy(xg + (size_t)j * ld + (size_t)p->sep[k] * b, r + (size_t)j * ns + (size_t)k * b,
                           b * sizeof(double));
        }
        cr_pool_run(pool, P, backward_many_task, p);
    }
    free(r);
    return CR_OK;
}
