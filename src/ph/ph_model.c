/* Port-Hamiltonian rod: parameters, creation, state access, balance quantities
 * (spec §10) and checkpoints. The assembly is in ph_assemble.c, Newton in ph_solve.c. */
#include "linalg/pool.h"
#include "ph/ph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cr_ph_params cr_ph_default_params(void)
{
    cr_ph_params p;
    memset(&p, 0, sizeof p);
    /* flying spaghetti, spec §9.1 / Table 1 */
    p.elements = 10;
    p.length = 10.0;
    p.rhoA = 1.0;
    p.M11 = p.M22 = 10.0;
    p.stiffness[0] = p.stiffness[1] = p.stiffness[2] = 1e4;
    p.stiffness[3] = p.stiffness[4] = p.stiffness[5] = 1e3;
    p.h = 0.1;
    p.newton_atol = 1e-11;
    p.max_iterations = 30;
    return p;
}

void cr_ph_actuation_chamber(double pA, double rx, double ry, double sigma_act[6])
{
    /* r x e3 = (ry, -rx, 0); the fluid column carries -pA along e3 at r (spec §8, sign settled in ph.h) */
    sigma_act[2] -= pA;
    sigma_act[3] -= pA * ry;
    sigma_act[4] += pA * rx;
}

void cr_ph_actuation_tendon(double T, double rx, double ry, double sigma_act[6])
{
    sigma_act[2] += T;
    sigma_act[3] += T * ry;
    sigma_act[4] -= T * rx;
}

static cr_status check_params(const cr_ph_params *p, cr_error *err)
{
    if (p->elements < 1) return cr_error_set(err, CR_BAD_INPUT, "ph: elements = %d must be >= 1", p->elements);
    if (!(p->length > 0) || !isfinite(p->length))
        return cr_error_set(err, CR_BAD_INPUT, "ph: length = %g must be > 0", p->length);
    if (!(p->rhoA >= 0) || !isfinite(p->rhoA)) return cr_error_set(err, CR_BAD_INPUT, "ph: rhoA = %g must be >= 0", p->rhoA);
    if (!(p->M11 >= 0) || !isfinite(p->M11)) return cr_error_set(err, CR_BAD_INPUT, "ph: M11 = %g must be >= 0", p->M11);
    if (!(p->M22 >= 0) || !isfinite(p->M22)) return cr_error_set(err, CR_BAD_INPUT, "ph: M22 = %g must be >= 0", p->M22);
    if (p->rigid & ~0x3fu)
        return cr_error_set(err, CR_BAD_INPUT, "ph: rigid = 0x%x has bits beyond the 6 stiffness components",
                            p->rigid);
    for (int j = 0; j < 6; ++j) {
        if (p->rigid & (1u << j)) continue;
        if (!(p->stiffness[j] > 0) || !isfinite(p->stiffness[j]))
            return cr_error_set(err, CR_BAD_INPUT, "ph: stiffness[%d] = %g must be > 0 (or set rigid bit %d)", j,
                                p->stiffness[j], j);
    }
    if (p->branch_count < 0 || p->branch_count > CR_PH_MAX_BRANCHES)
        return cr_error_set(err, CR_BAD_INPUT, "ph: branch_count = %d must be in 0..%d", p->branch_count,
                            CR_PH_MAX_BRANCHES);
    double sum = 0;
    for (int i = 0; i < p->branch_count; ++i) {
        if (!(p->branch_tau[i] > 0) || !isfinite(p->branch_tau[i]))
            return cr_error_set(err, CR_BAD_INPUT, "ph: branch_tau[%d] = %g must be > 0", i, p->branch_tau[i]);
        if (!(p->branch_fraction[i] > 0) || !isfinite(p->branch_fraction[i]))
            return cr_error_set(err, CR_BAD_INPUT, "ph: branch_fraction[%d] = %g must be > 0", i,
                                p->branch_fraction[i]);
        if (!p->branch_rigid_spring[i]) sum += p->branch_fraction[i];
    }
    if (sum > 1 + 1e-12)
        return cr_error_set(err, CR_BAD_INPUT, "ph: branch_fraction of the Maxwell branches sums to %g > 1", sum);
    if (!(p->h > 0) || !isfinite(p->h)) return cr_error_set(err, CR_BAD_INPUT, "ph: h = %g must be > 0", p->h);
    if (!(p->newton_atol > 0)) return cr_error_set(err, CR_BAD_INPUT, "ph: newton_atol = %g must be > 0", p->newton_atol);
    if (p->threads < 0) return cr_error_set(err, CR_BAD_INPUT, "ph: threads = %d must be >= 0", p->threads);
    if (p->max_iterations < 1)
        return cr_error_set(err, CR_BAD_INPUT, "ph: max_iterations = %d must be >= 1", p->max_iterations);
    return CR_OK;
}

static void *zalloc(size_t n, size_t size, int *fail)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) *fail = 1;
    return p;
}

/* Writes a zero into every page of a zeroed array (calloc's large arrays are mapped, not yet touched): the
   first touch of a page costs a fault and its zeroing, ~3 us per 4 kB page in the VM of bench/README.md (a
   4 kB page then costs what streaming 30 kB does), ~10^5 pages at 10^5 elements. Done here for the arrays
   every step or static solve writes, so that they are paid at the creation, once, and not by the first
   step (where bench_ph measured them as cost per element-iteration). */
static void touch_pages(void *p, size_t bytes)
{
    volatile char *c = p;
    for (size_t i = 0; i < bytes; i += 4096) c[i] = 0;
    if (bytes) c[bytes - 1] = 0;
}

cr_ph *cr_ph_create(const cr_ph_params *p, const cr_vec3 *x0, const cr_mat3 *R0, cr_error *err)
{
    if (!p) {
        cr_error_set(err, CR_BAD_INPUT, "ph: params is NULL");
        return NULL;
    }
    if (check_params(p, err) != CR_OK) return NULL;
    if (!x0 || !R0) {
        cr_error_set(err, CR_BAD_INPUT, "ph: initial positions x0 and rotations R0 are required");
        return NULL;
    }
    cr_ph *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_NO_MEMORY, "ph: out of memory");
        return NULL;
    }
    s->friction_centre = 1; /* friction at the nodes' centres unless asked (contact.rolling) */
    s->p = *p;
    s->ne = p->elements;
    s->nn = 2 * s->ne + 1;
    s->ng = 2 * s->ne;
    s->nb = p->branch_count;
    s->le = p->length / s->ne;
    s->w = 0.5 * s->le;
    /* 2-point Gauss for every integral, the mass too (spec §5) */
    const double xi[2] = {-1.0 / sqrt(3.0), 1.0 / sqrt(3.0)};
    for (int g = 0; g < 2; ++g) {
        double x = xi[g];
        s->N[g][0] = 0.5 * x * (x - 1), s->N[g][1] = 1 - x * x, s->N[g][2] = 0.5 * x * (x + 1);
        double js = 2.0 / s->le;
        s->dN[g][0] = (x - 0.5) * js, s->dN[g][1] = -2 * x * js, s->dN[g][2] = (x + 0.5) * js;
    }
    s->mass[0] = p->rhoA, s->mass[1] = p->M11, s->mass[2] = p->M22, s->mass[3] = 0; /* d3 massless, spec §3 */

    double maxwell = 0;
    for (int i = 0; i < s->nb; ++i) {
        s->kv[i] = p->branch_rigid_spring[i] != 0;
        if (!s->kv[i]) maxwell += p->branch_fraction[i];
    }
    if (maxwell > 1) maxwell = 1;
    s->nr = 0;
    for (int j = 0; j < 6; ++j) {
        if (p->rigid & (1u << j)) {
            s->rigid_slot[j] = s->nr;
            s->rigid_comp[s->nr++] = j;
            s->k_el[j] = 0;
            continue;
        }
        s->rigid_slot[j] = -1;
        s->k_el[j] = (1 - maxwell) * p->stiffness[j];
        for (int i = 0; i < s->nb; ++i) {
            /* spec §7: C^(i) = (f k)^-1, V^(i) = tau C^(i)^-1 = tau f k */
            s->k_br[i][j] = s->kv[i] ? 0 : p->branch_fraction[i] * p->stiffness[j];
            s->eta_br[i][j] = p->branch_tau[i] * p->branch_fraction[i] * p->stiffness[j];
        }
    }

    int fail = 0, nn = s->nn, ng = s->ng;
    s->q = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->v = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->lam = zalloc((size_t)nn * 6, sizeof(double), &fail);
    s->vmid = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->sig_el = zalloc((size_t)ng * 6, sizeof(double), &fail);
    s->sig_br = zalloc((size_t)ng * (s->nb ? s->nb : 1) * 6, sizeof(double), &fail);
    s->eps0 = zalloc((size_t)ng * 6, sizeof(double), &fail);
    s->node_off = zalloc((size_t)nn, sizeof(int), &fail);
    s->sig_off = zalloc((size_t)s->ne, sizeof(int), &fail);
    s->node_roff = zalloc((size_t)nn, sizeof(int), &fail);
    s->sig_roff = zalloc((size_t)s->ne, sizeof(int), &fail);
    s->q1 = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->lam1 = zalloc((size_t)nn * 6, sizeof(double), &fail);
    s->sig1 = zalloc((size_t)ng * (s->nr ? s->nr : 1), sizeof(double), &fail);
    s->eps_n = zalloc((size_t)ng * 6, sizeof(double), &fail);
    s->g0 = zalloc((size_t)nn * 6, sizeof(double), &fail);
    s->fext = zalloc((size_t)nn * 12, sizeof(double), &fail);
    if (fail) goto nomem;

    /* node-major unknowns (spec §6 "Structure"): q_I, lambda_I per free node, the element's rigid
       stresses after its middle node */
    int off = 0;
    for (int I = 0; I < nn; ++I) {
        int clamped = (I == 0 && p->clamp_start) || (I == nn - 1 && p->clamp_end);
        s->node_off[I] = clamped ? -1 : off;
        if (!clamped) off += 18;
        if (I % 2 == 1) {
            s->sig_off[I / 2] = off;
            off += 2 * s->nr;
        }
    }
    s->nx = off;
    /* reduced unknowns: 6 per free node, 2 nr per element (after its middle node) */
    off = 0;
    for (int I = 0; I < nn; ++I) {
        s->node_roff[I] = s->node_off[I] < 0 ? -1 : off;
        if (s->node_off[I] >= 0) off += 6;
        if (I % 2 == 1) {
            s->sig_roff[I / 2] = off;
            off += 2 * s->nr;
        }
    }
    s->nred = off;
    int band = 0;
    for (int e = 0; e < s->ne; ++e) {
        int lo = 1 << 30, hi = -1;
        for (int a = 0; a < 3; ++a) {
            int o = s->node_roff[2 * e + a];
            if (o < 0) continue;
            if (o < lo) lo = o;
            if (o + 5 > hi) hi = o + 5;
        }
        if (s->nr) {
            if (s->sig_roff[e] < lo) lo = s->sig_roff[e];
            if (s->sig_roff[e] + 2 * s->nr - 1 > hi) hi = s->sig_roff[e] + 2 * s->nr - 1;
        }
        if (hi - lo > band) band = hi - lo;
    }
    s->rkl = s->rku = band;
    s->rldab = 2 * s->rkl + s->rku + 1;
    s->X = zalloc((size_t)s->nx, sizeof(double), &fail);
    s->dX = zalloc((size_t)s->nx, sizeof(double), &fail);
    s->r = zalloc((size_t)s->nx, sizeof(double), &fail);
    /* (the reference path's blocks and factors and the band LU's arrays: ph_reference_arrays, on first use) */
    s->rrhs = zalloc((size_t)s->nred, sizeof(double), &fail);
    /* the window of ph_direct.c: columns from the oldest uneliminated to the fill's reach (kl + kv plus
       two element blocks), doubled */
    s->rW = 1;
    while (s->rW < 2 * (3 * s->rkl + s->rku + 2 * (12 + 2 * s->nr))) s->rW *= 2;
    s->ring = zalloc((size_t)s->rW * s->rldab, sizeof(double), &fail);
    /* the node-block fronts' U rows (ph_direct.c; the band LU's U columns need more: PH_REF_BAND) */
    s->ustore = zalloc((size_t)s->ne * ph_front_stride(s), sizeof(double), &fail);
    s->uoff = zalloc((size_t)s->nred + 1, sizeof(size_t), &fail); /* (the band LU's; every pass sets uoff[0]) */
    s->dqp = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->kdq = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->theta = zalloc((size_t)nn * 3, sizeof(double), &fail);
    s->dq_static = zalloc((size_t)nn * 12, sizeof(double), &fail);
    s->dsig_static = zalloc((size_t)s->ng * (s->nr ? s->nr : 1), sizeof(double), &fail);
    if (fail) goto nomem;
    {
        /* the step's arrays (touch_pages); the reference assembly's blocks and the band LU's arrays are not
           even allocated (ph_reference_arrays) */
        const size_t D = sizeof(double), nrs = (size_t)(s->nr ? s->nr : 1);
        touch_pages(s->v, nn * 12 * D), touch_pages(s->lam, nn * 6 * D), touch_pages(s->vmid, nn * 12 * D);
        touch_pages(s->sig_el, (size_t)ng * 6 * D), touch_pages(s->sig_br, (size_t)ng * (s->nb ? s->nb : 1) * 6 * D);
        touch_pages(s->q1, nn * 12 * D), touch_pages(s->lam1, nn * 6 * D), touch_pages(s->sig1, ng * nrs * D);
        touch_pages(s->eps_n, (size_t)ng * 6 * D), touch_pages(s->fext, nn * 12 * D);
        touch_pages(s->X, (size_t)s->nx * D), touch_pages(s->dX, (size_t)s->nx * D);
        touch_pages(s->r, (size_t)s->nx * D);
        touch_pages(s->rrhs, (size_t)s->nred * D), touch_pages(s->ustore, (size_t)s->ne * ph_front_stride(s) * D);
        touch_pages(s->dqp, nn * 12 * D), touch_pages(s->kdq, nn * 12 * D), touch_pages(s->theta, nn * 3 * D);
        touch_pages(s->dq_static, nn * 12 * D), touch_pages(s->dsig_static, ng * nrs * D);
    }

    for (int I = 0; I < nn; ++I) {
        double *q = s->q + 12 * I;
        cr_v3_store(x0[I], q);
        for (int k = 0; k < 3; ++k) cr_v3_store(cr_m3_column(R0[I], k), q + 3 + 3 * k);
        for (int k = 0; k < 12; ++k)
            if (!isfinite(q[k])) {
                cr_ph_destroy(s);
                cr_error_set(err, CR_BAD_INPUT, "ph: initial configuration of node %d is not finite", I);
                return NULL;
            }
    }
    for (int I = 0; I < nn; ++I) ph_constraint(s->q + 12 * I + 3, s->g0 + 6 * I);
    /* reference strains eps_0 at the Gauss points (stress-free reference, spec §1) */
    for (int e = 0; e < s->ne; ++e)
        for (int g = 0; g < 2; ++g) {
            double qg[12] = {0}, qs[12] = {0};
            for (int a = 0; a < 3; ++a)
                for (int k = 0; k < 12; ++k) {
                    qg[k] += s->N[g][a] * s->q[12 * (2 * e + a) + k];
                    qs[k] += s->dN[g][a] * s->q[12 * (2 * e + a) + k];
                }
            ph_strain(qg, qs, s->eps0 + 6 * (2 * e + g));
        }
    /* the state's caches (cr_ph.have_eps, have_H, have_sigmax): eps(q_0) is eps_0 (ph_begin's operations on the
       same q), and H_0 = 0 and the largest stress 0 at rest, stress-free and without obstacles (ph_energy's sums
       of zeros) */
    memcpy(s->eps_n, s->eps0, sizeof(double) * 6 * ng);
    s->have_eps = 1, s->H = 0, s->have_H = 1, s->sig_max = 0, s->have_sigmax = 1;
    /* and ph_begin's predictor of a step of p->h (at rest: q_0 plus h times zeros, the same operations) */
    {
        const int inertia = s->mass[0] > 0 || s->mass[1] > 0 || s->mass[2] > 0;
        const double h = p->h;
        for (int I = 0; I < nn; ++I) {
            const int o = s->node_off[I];
            if (o < 0) continue;
            const double *q = s->q + 12 * I, *v = s->v + 12 * I, *vm = s->vmid + 12 * I;
            for (int k = 0; k < 12; ++k) s->X[o + k] = q[k] + (inertia ? h * (2 * v[k] - vm[k]) : h * vm[k]);
            memcpy(s->X + o + 12, s->lam + 6 * I, sizeof(double) * 6);
        }
        for (int e = 0; e < s->ne; ++e)
            for (int k = 0; k < 2 * s->nr; ++k) s->X[s->sig_off[e] + k] = 0; /* sig_el's rigid components */
        s->have_pred = 1, s->pred_h = h;
    }
    /* the two-sided pass (ph_direct.c): both halves start at an end; with rigid components the half that starts
       at a clamped end delays the pivots its fronts cannot take (a segment held at both ends leaves its
       tension undetermined) to the next front and to the system where the halves meet */
    {
        int threads = p->threads > 0 ? p->threads : s->ne >= CR_PH_PARALLEL_MIN_ELEMENTS ? cr_threads_default() : 1;
        /* (both ends clamped with rigid components: the one-sided band LU, not tried in two halves) */
        if (threads > 1 && s->ne >= 2 && !(s->nr > 0 && p->clamp_start && p->clamp_end)) {
            /* the halves equal: cr_pool_run returns when both are done, and the caller's serial work
               (the step's bookkeeping) runs before or after, never beside the worker's half. (The
               caller's half was 7/16 of the elements to even the threads' total instructions: the
               worker's 9/16 then set each phase's length, the parallel part's speed-up at most 16/9.) */
            int m = s->ne / 2;
            s->split = 2 * (m > 0 ? m : 1);
            s->pool = cr_pool_create(2); /* NULL (no worker): the same two-sided pass on the caller */
            if (s->nr > 0 && (p->clamp_start || p->clamp_end)) {
                /* a half from a clamped end delays the pivots it cannot take (ph_direct.c) */
                s->tsinfo = zalloc((size_t)s->ne * (32 + 2), sizeof(int), &fail);
                s->tsoff = zalloc((size_t)s->ne, sizeof(size_t), &fail);
                /* the delaying half's fronts only (the other half keeps its solutions in ustore) */
                const int half = p->clamp_start ? s->split / 2 : s->ne - s->split / 2;
                s->tsz = zalloc((size_t)half * PH_TS_ZMAX, sizeof(double), &fail);
                if (fail) goto nomem;
                /* first touched here, not in the first step (touch_pages): tsz as far as the fronts fill it
                   with one delayed column (~144 doubles per element) */
                touch_pages(s->tsz, (size_t)half * 160 * sizeof(double));
                touch_pages(s->tsinfo, (size_t)s->ne * (32 + 2) * sizeof(int));
                touch_pages(s->tsoff, (size_t)s->ne * sizeof(size_t));
            }
        }
    }
    /* both ends clamped with rigid components: the band LU is the pass itself (the fronts cannot start) */
    if (s->nr > 0 && p->clamp_start && p->clamp_end && ph_reference_arrays(s, PH_REF_BAND) != CR_OK) goto nomem;
    return s;

nomem:
    cr_ph_destroy(s);
    cr_error_set(err, CR_NO_MEMORY, "ph: out of memory (%d elements)", p->elements);
    return NULL;
}

/* calloc of n items of `size` into the pointer p unless it is there; 0 when it fails */
#define LAZY(p, n, size) ((p) != NULL || ((p) = calloc((n) > 0 ? (n) : 1, (size))) != NULL)

cr_status ph_reference_arrays(cr_ph *s, int what)
{
    what &= ~s->ref_have;
    if (!what) return CR_OK;
    const size_t ne = (size_t)s->ne, nn = (size_t)s->nn, nred = (size_t)s->nred, D = sizeof(double);
    const size_t n2r = s->nr > 0 ? (size_t)(2 * s->nr) : 1;
    int ok = 1;
    if (what & PH_REF_BLOCKS) {
        ok &= LAZY(s->Ke, ne * 36 * 36, D) & LAZY(s->Bc, ne * 36 * n2r, D) & LAZY(s->Br, ne * 36 * n2r, D);
        ok &= LAZY(s->Kn, nn * 81, D) & LAZY(s->Gm, nn * 54, D) & LAZY(s->G1, nn * 54, D);
    }
    if (what & PH_REF_FACTOR) {
        ok &= LAZY(s->Pm, nn * 27, D) & LAZY(s->Pn, nn * 27, D) & LAZY(s->gramm, nn * 36, D);
        ok &= LAZY(s->gram1, nn * 36, D) & LAZY(s->rband, (size_t)s->rldab * nred, D);
        ok &= LAZY(s->ripiv, nred, sizeof(int));
    }
    if (what & PH_REF_BAND) {
        const int had_last = s->rlast != NULL;
        ok &= LAZY(s->ripiv, nred, sizeof(int)) & LAZY(s->rlast, nred, sizeof(int));
        if (s->rlast && !had_last)
            /* element e's block [end of e-1's, end of its rigid stresses) is coupled to rows up to its next end
               node's last (the last node's block to the end) */
            for (int e = 0, lo = 0; e < s->ne; ++e) {
                int end = s->sig_roff[e] + 2 * s->nr, last = end + 5 < s->nred - 1 ? end + 5 : s->nred - 1;
                for (int j = lo; j < end; ++j) s->rlast[j] = last;
                lo = end;
                if (e == s->ne - 1)
                    for (int j = end; j < s->nred; ++j) s->rlast[j] = s->nred - 1;
            }
        /* the band LU's U columns in place of the fronts' U rows (both scratch within one pass) */
        const size_t band_u = nred * (size_t)(s->rkl + s->rku + 1), front_u = ne * ph_front_stride(s);
        if (band_u > front_u) {
            double *u = calloc(band_u, D);
            if (u)
                free(s->ustore), s->ustore = u;
            else
                ok = 0;
        }
    }
    if (!ok) return CR_NO_MEMORY;
    s->ref_have |= what;
    return CR_OK;
}

void cr_ph_destroy(cr_ph *s)
{
    if (!s) return;
    free(s->q), free(s->v), free(s->lam), free(s->vmid), free(s->sig_el), free(s->sig_br), free(s->eps0);
    free(s->node_off), free(s->sig_off), free(s->X), free(s->dX), free(s->r);
    free(s->Ke), free(s->Bc), free(s->Br), free(s->Kn), free(s->Gm), free(s->G1);
    free(s->node_roff), free(s->sig_roff), free(s->rband), free(s->rrhs), free(s->ripiv), free(s->rlast), free(s->ring),
        free(s->ustore), free(s->uoff), free(s->tsinfo), free(s->tsoff), free(s->tsz), free(s->Pm), free(s->Pn),
        free(s->gramm), free(s->gram1), free(s->dqp), free(s->kdq), free(s->theta), free(s->dq_static),
        free(s->dsig_static);
    free(s->q1), free(s->lam1), free(s->sig1), free(s->eps_n), free(s->g0), free(s->fext);
    free(s->cp), free(s->ck), free(s->ca), free(s->cmu), free(s->cf), free(s->cob), free(s->cplane);
    free(s->cpair), free(s->cpc);
    ph_contact_free_paths(s);
    cr_pool_destroy(s->pool);
    free(s);
}

double cr_ph_time(const cr_ph *s) { return s->t; }
int cr_ph_node_count(const cr_ph *s) { return s->nn; }
double cr_ph_node_s(const cr_ph *s, int node) { return 0.5 * s->le * node; }
cr_vec3 cr_ph_position(const cr_ph *s, int node) { return cr_v3_load(s->q + 12 * node); }
cr_mat3 cr_ph_directors(const cr_ph *s, int node)
{
    const double *q = s->q + 12 * node;
    return cr_m3_columns(cr_v3_load(q + 3), cr_v3_load(q + 6), cr_v3_load(q + 9));
}
cr_vec3 cr_ph_velocity(const cr_ph *s, int node) { return cr_v3_load(s->v + 12 * node); }
int cr_ph_sample_count(const cr_ph *s) { return s->ng; }
double cr_ph_sample_s(const cr_ph *s, int g)
{
    int e = g / 2;
    double xi = (g % 2 ? 1.0 : -1.0) / sqrt(3.0);
    return s->le * (e + 0.5 * (xi + 1));
}

/* interpolated q and q_s of a state at Gauss point (e, g) */
static void interp(const cr_ph *s, const double *q, int e, int g, double *qg, double *qs)
{
    for (int k = 0; k < 12; ++k) {
        qg[k] = 0;
        if (qs) qs[k] = 0;
    }
    for (int a = 0; a < 3; ++a) {
        const double *qa = q + 12 * (2 * e + a);
        for (int k = 0; k < 12; ++k) {
            qg[k] += s->N[g][a] * qa[k];
            if (qs) qs[k] += s->dN[g][a] * qa[k];
        }
    }
}

/* total stress of component j at Gauss point gp */
static double total_stress(const cr_ph *s, int gp, int j)
{
    double t = s->sig_el[6 * gp + j];
    for (int i = 0; i < s->nb; ++i) t += s->sig_br[(gp * s->nb + i) * 6 + j];
    return t;
}

void cr_ph_sample(const cr_ph *s, int g, cr_vec3 *gamma, cr_vec3 *kappa, cr_vec3 *N, cr_vec3 *M)
{
    double qg[12], qs[12], eps[6];
    interp(s, s->q, g / 2, g % 2, qg, qs);
    ph_strain(qg, qs, eps);
    for (int j = 0; j < 6; ++j) eps[j] -= s->eps0[6 * g + j];
    if (gamma) *gamma = cr_v3_load(eps);
    if (kappa) *kappa = cr_v3_load(eps + 3);
    if (N) *N = cr_v3(total_stress(s, g, 0), total_stress(s, g, 1), total_stress(s, g, 2));
    if (M) *M = cr_v3(total_stress(s, g, 3), total_stress(s, g, 4), total_stress(s, g, 5));
}

/* H_el = 1/2 int sigma^T C sigma over the branches that store energy (spec §7, §10) */
double ph_elastic_energy(const cr_ph *s, const double *sig_el, const double *sig_br)
{
    double E = 0;
    for (int gp = 0; gp < s->ng; ++gp)
        for (int j = 0; j < 6; ++j) {
            if (s->rigid_slot[j] >= 0) continue;
            double a = sig_el[6 * gp + j];
            if (s->k_el[j] > 0) E += 0.5 * a * a / s->k_el[j];
            for (int i = 0; i < s->nb; ++i) {
                if (s->kv[i]) continue;
                double b = sig_br[(gp * s->nb + i) * 6 + j];
                E += 0.5 * b * b / s->k_br[i][j];
            }
        }
    return s->w * E;
}

double ph_kinetic_energy(const cr_ph *s, const double *v)
{
    double T = 0;
    for (int e = 0; e < s->ne; ++e)
        for (int g = 0; g < 2; ++g) {
            double vg[12];
            interp(s, v, e, g, vg, NULL);
            for (int f = 0; f < 3; ++f) T += s->mass[f] * (vg[3 * f] * vg[3 * f] + vg[3 * f + 1] * vg[3 * f + 1] +
                                                           vg[3 * f + 2] * vg[3 * f + 2]);
        }
    return 0.5 * s->w * T;
}

void cr_ph_diagnostics(const cr_ph *s, cr_ph_diag *out)
{
    memset(out, 0, sizeof *out);
    out->kinetic = ph_kinetic_energy(s, s->v);
    out->elastic = ph_elastic_energy(s, s->sig_el, s->sig_br);
    out->contact = ph_contact_energy(s, s->q);
    out->total = out->kinetic + out->elastic + out->contact;
    out->work_external = s->work_ext;
    out->dissipated = s->dissipated;
    out->energy_balance = s->energy_balance;
    out->work_roundoff = s->work_roundoff;
    /* momenta with the same 2-point mass as the residual (spec §10) */
    cr_vec3 P = {0}, L = {0}, com = {0};
    double mass = 0;
    for (int e = 0; e < s->ne; ++e)
        for (int g = 0; g < 2; ++g) {
            double qg[12], vg[12];
            interp(s, s->q, e, g, qg, NULL);
            interp(s, s->v, e, g, vg, NULL);
            cr_vec3 x = cr_v3_load(qg), vx = cr_v3_load(vg);
            P = cr_v3_madd(P, s->w * s->mass[0], vx);
            L = cr_v3_madd(L, s->w * s->mass[0], cr_v3_cross(x, vx));
            for (int a = 1; a <= 2; ++a)
                L = cr_v3_madd(L, s->w * s->mass[a], cr_v3_cross(cr_v3_load(qg + 3 * a), cr_v3_load(vg + 3 * a)));
            double mw = s->mass[0] > 0 ? s->mass[0] * s->w : s->w;
            com = cr_v3_madd(com, mw, x);
            mass += mw;
        }
    out->momentum = P;
    out->angular_momentum = L;
    out->center_of_mass = cr_v3_scale(com, 1.0 / mass);
    double viol = 0;
    for (int I = 0; I < s->nn; ++I) {
        const double *d = s->q + 12 * I + 3;
        double g[6] = {0.5 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - 1),
                       0.5 * (d[3] * d[3] + d[4] * d[4] + d[5] * d[5] - 1),
                       0.5 * (d[6] * d[6] + d[7] * d[7] + d[8] * d[8] - 1),
                       d[0] * d[3] + d[1] * d[4] + d[2] * d[5],
                       d[0] * d[6] + d[1] * d[7] + d[2] * d[8],
                       d[3] * d[6] + d[4] * d[7] + d[5] * d[8]};
        for (int k = 0; k < 6; ++k)
            if (fabs(g[k]) > viol) viol = fabs(g[k]);
    }
    out->constraint_violation = viol;
}

/* checkpoint layout: t, work, dissipated, balance, work round-off | q | v | lambda | sig_el | sig_br | vmid
   (vmid only seeds Newton, but restoring it makes a resumed run repeat the iterations exactly) */
/* (the clamps' reactions of the last step or equilibrium travel with the state: a restored state
   (the energy watch's last good one, a resumed checkpoint) reports its own) */
int cr_ph_packed_size(const cr_ph *s) { return 5 + s->nn * 42 + s->ng * 6 * (1 + s->nb) + 25; }

void cr_ph_pack(const cr_ph *s, double *out)
{
    out[0] = s->t, out[1] = s->work_ext, out[2] = s->dissipated, out[3] = s->energy_balance;
    out[4] = s->work_roundoff;
    double *o = out + 5;
    memcpy(o, s->q, sizeof(double) * 12 * s->nn), o += 12 * s->nn;
    memcpy(o, s->v, sizeof(double) * 12 * s->nn), o += 12 * s->nn;
    memcpy(o, s->lam, sizeof(double) * 6 * s->nn), o += 6 * s->nn;
    memcpy(o, s->sig_el, sizeof(double) * 6 * s->ng), o += 6 * s->ng;
    memcpy(o, s->sig_br, sizeof(double) * 6 * s->ng * s->nb), o += 6 * s->ng * s->nb;
    memcpy(o, s->vmid, sizeof(double) * 12 * s->nn), o += 12 * s->nn;
    memcpy(o, s->react, sizeof s->react), o += 24;
    o[0] = s->have_react;
}

void cr_ph_unpack(cr_ph *s, const double *in)
{
    s->have_static = 0;
    ph_state_changed(s);
    s->t = in[0], s->work_ext = in[1], s->dissipated = in[2], s->energy_balance = in[3];
    s->work_roundoff = in[4];
    const double *o = in + 5;
    memcpy(s->q, o, sizeof(double) * 12 * s->nn), o += 12 * s->nn;
    memcpy(s->v, o, sizeof(double) * 12 * s->nn), o += 12 * s->nn;
    memcpy(s->lam, o, sizeof(double) * 6 * s->nn), o += 6 * s->nn;
    memcpy(s->sig_el, o, sizeof(double) * 6 * s->ng), o += 6 * s->ng;
    memcpy(s->sig_br, o, sizeof(double) * 6 * s->ng * s->nb), o += 6 * s->ng * s->nb;
    memcpy(s->vmid, o, sizeof(double) * 12 * s->nn), o += 12 * s->nn;
    memcpy(s->react, o, sizeof s->react), o += 24;
    s->have_react = o[0] != 0;
}
