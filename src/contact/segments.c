/* Segment–segment contact geometry (segments.h). */
#include "segments.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

/* Ericson, Real-Time Collision Detection (2005) §5.1.9: the unconstrained closest pair of the
 * two lines clamped to the first segment, the second parameter recomputed and clamped, and the
 * first recomputed once more from that point. Parallel segments (a e − b² tiny against a e) have
 * an interval of closest pairs, any of which is exact: s is taken in the middle of the overlap, so
 * that a pair of side-by-side segments is not counted at a node it shares with its neighbour. */
void cr_segment_closest(cr_vec3 a0, cr_vec3 a1, cr_vec3 b0, cr_vec3 b1, cr_seg_closest *out)
{
    const cr_vec3 d1 = cr_v3_sub(a1, a0), d2 = cr_v3_sub(b1, b0), r = cr_v3_sub(a0, b0);
    const double a = cr_v3_dot(d1, d1), e = cr_v3_dot(d2, d2), f = cr_v3_dot(d2, r);
    const double tiny = 1e-300;
    double s = 0, t = 0;
    int s_free = 0, t_free = 0, parallel = 0;
    if (a <= tiny && e <= tiny) {
        s = t = 0;
    } else if (a <= tiny) {
        t = clamp01(f / e), t_free = t > 0 && t < 1;
    } else {
        const double c = cr_v3_dot(d1, r);
        if (e <= tiny) {
            s = clamp01(-c / a), s_free = s > 0 && s < 1;
        } else {
            const double b = cr_v3_dot(d1, d2), denom = a * e - b * b;
            parallel = !(denom > 1e-12 * a * e);
            if (parallel) { /* the middle of the overlap of b's projection on a (else a's end nearest b) */
                double u0 = -c / a, u1 = (b - c) / a, lo = fmax(0, fmin(u0, u1)), hi = fmin(1, fmax(u0, u1));
                s = lo <= hi ? 0.5 * (lo + hi) : clamp01(0.5 * (u0 + u1));
            } else {
                s = clamp01((b * f - c * e) / denom);
            }
            s_free = !parallel && s > 0 && s < 1;
            t = (b * s + f) / e;
            t_free = 1;
            if (t <= 0) {
                t = 0, t_free = 0, s = clamp01(-c / a), s_free = s > 0 && s < 1;
            } else if (t >= 1) {
                t = 1, t_free = 0, s = clamp01((b - c) / a), s_free = s > 0 && s < 1;
            }
        }
    }
    out->s = s, out->t = t, out->s_free = s_free, out->t_free = t_free, out->parallel = parallel;
    out->pa = cr_v3_madd(a0, s, d1);
    out->pb = cr_v3_madd(b0, t, d2);
    out->dist = cr_v3_norm(cr_v3_sub(out->pa, out->pb));
}

/* The count-once rule (segments.h; docs/theory.md "Contact of a rod with itself"). A contact is a local
 * minimum of the distance between the two polylines, over the square [0, 1]² of each pair (a, b)
 * glued to its neighbours' along the edges s = 0, 1 (node a, a + 1 shared with the pair
 * (a ∓ 1, b)), t = 0, 1 and the corners. The distance is convex on each square, so a pair's closest
 * point is the local minimum of its square, and it is a minimum of the glued squares only if it
 * is also the closest point of every square it lies on the edge (corner) of. A pair whose closest
 * point lies on its edge toward a neighbour (within AT_NODE of s or t = 0, 1: a point exactly at a
 * node may be computed a rounding off it) computes that neighbour's closest point and
 *  - drops it when the neighbour's closest point is off the shared edge: the neighbour holds the
 *    same point or a nearer one (its square holds this point), and counts it;
 *  - else both hold the same point (the node's closest point on the other segment): the smaller
 *    distance keeps it, then the smaller pair (a, b), a total order on the up to four pairs
 *    around a node, so exactly one keeps it.
 * Both pairs decide from the same two closest points, computed by the same function from the
 * same nodes, so they agree to the bit. (The rule this replaced kept a node for the pair before
 * it unless the distance's slope along the next segment was negative, and dropped it from the
 * pair after it unconditionally: where that slope is a rounding from 0, a node over a straight
 * chain, it counted the contact twice or not at all, tests/test_rodcontact.c.) Neighbours that
 * are excluded or past the rod's ends hold nothing. The force stays continuous as a contact
 * slides over a node (at the switch both pairs hold the same point, distance and weights). It
 * jumps where a local minimum is born or dies: a second minimum appears, already pressing, when
 * the distance along two nearly parallel segments pressed together changes the sign of its slope
 * (docs/lgvi.md "Self-contact"), inherent to one penalty per contact point. */
#define AT_NODE 1e-9

static int on_edge(const cr_seg_closest *cp, int i, int j)
{
    return (i == 0 || (i < 0 ? cp->s <= AT_NODE : cp->s >= 1 - AT_NODE)) &&
           (j == 0 || (j < 0 ? cp->t <= AT_NODE : cp->t >= 1 - AT_NODE));
}

int cr_segpair_counted_once(const cr_seg_closest *cp, int (*neighbour)(void *ctx, int i, int j, cr_seg_closest *q),
                            void *ctx)
{
    if (!on_edge(cp, -1, 0) && !on_edge(cp, 1, 0) && !on_edge(cp, 0, -1) && !on_edge(cp, 0, 1)) return 1;
    for (int i = -1; i <= 1; ++i)
        for (int j = -1; j <= 1; ++j) {
            cr_seg_closest q;
            if ((!i && !j) || !on_edge(cp, i, j) || !neighbour(ctx, i, j, &q)) continue;
            if (!on_edge(&q, -i, -j)) return 0; /* it holds this point or a nearer one */
            /* the same point: the smaller distance, then the smaller pair (a, b) keeps it */
            if (q.dist < cp->dist || (q.dist == cp->dist && (i < 0 || (i == 0 && j < 0)))) return 0;
        }
    return 1;
}

/* ---- broad phase ---------------------------------------------------------------------------- */

typedef struct cell_entry {
    uint64_t key; /* the cell, numbered x-major within the boxes' range of cells */
    int box;
} cell_entry;

static int push_pair(int **pairs, int *cap, int n, int a, int b)
{
    if (n >= *cap) {
        int nc = *cap > 0 ? 2 * *cap : 64;
        int *p = realloc(*pairs, (size_t)nc * 2 * sizeof *p);
        if (!p) return -1;
        *pairs = p, *cap = nc;
    }
    (*pairs)[2 * n] = a < b ? a : b, (*pairs)[2 * n + 1] = a < b ? b : a;
    return n + 1;
}

/* Stable LSD radix sort of the entries by key, a byte a pass, the bytes above the largest key
 * and those every entry shares skipped: the entries come in box order, so equal keys stay in
 * box order, as the comparison sort on (cell, box) this replaced left them, at O(m) a pass
 * instead of qsort's m log m calls of a comparison (70 % of a self-contact residual at 150
 * segments). */
static void radix_sort(cell_entry *e, cell_entry *tmp, int m, uint64_t kmax)
{
    size_t count[256];
    for (int shift = 0; shift < 64 && (kmax >> shift); shift += 8) {
        for (int b = 0; b < 256; ++b) count[b] = 0;
        for (int i = 0; i < m; ++i) ++count[(e[i].key >> shift) & 255];
        if (count[(e[0].key >> shift) & 255] == (size_t)m) continue; /* one digit for all */
        size_t sum = 0;
        for (int b = 0; b < 256; ++b) {
            size_t c = count[b];
            count[b] = sum, sum += c;
        }
        for (int i = 0; i < m; ++i) tmp[count[(e[i].key >> shift) & 255]++] = e[i];
        for (int i = 0; i < m; ++i) e[i] = tmp[i];
    }
}

int cr_broad_phase(int count, const double *lo, const double *hi, int **pairs, int *cap)
{
    if (count < 2) return 0;
    double h = 0, cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            h = fmax(h, hi[3 * i + k] - lo[3 * i + k]);
            cmin[k] = fmin(cmin[k], lo[3 * i + k]), cmax[k] = fmax(cmax[k], hi[3 * i + k]);
        }
    if (!(h > 0)) h = 1; /* points: any cell size separates the distinct ones */
    /* the cells' range; a coarser cell while their count would not fit a 62-bit key (a box is
     * still no wider than a cell, and the pairs are the same) */
    long long c0[3], span[3];
    for (;;) {
        double cells = 1;
        for (int k = 0; k < 3; ++k) {
            c0[k] = (long long)floor(cmin[k] / h);
            span[k] = (long long)floor(cmax[k] / h) - c0[k] + 1;
            cells *= (double)span[k];
        }
        if (cells < 0x1p62) break;
        h *= 2;
    }
    /* a box no wider than a cell meets at most 2 cells a direction */
    cell_entry *e = malloc((size_t)count * 16 * sizeof *e);
    if (!e) return -1;
    cell_entry *tmp = e + (size_t)count * 8;
    int m = 0;
    for (int i = 0; i < count; ++i) {
        long long a0[3], a1[3];
        for (int k = 0; k < 3; ++k)
            a0[k] = (long long)floor(lo[3 * i + k] / h) - c0[k], a1[k] = (long long)floor(hi[3 * i + k] / h) - c0[k];
        for (long long x = a0[0]; x <= a1[0]; ++x)
            for (long long y = a0[1]; y <= a1[1]; ++y)
                for (long long z = a0[2]; z <= a1[2]; ++z)
                    e[m++] = (cell_entry){
                        ((uint64_t)x * (uint64_t)span[1] + (uint64_t)y) * (uint64_t)span[2] + (uint64_t)z, i};
    }
    radix_sort(e, tmp, m, (uint64_t)span[0] * (uint64_t)span[1] * (uint64_t)span[2] - 1);
    int n = 0;
    for (int g = 0; g < m;) {
        int end = g + 1;
        while (end < m && e[end].key == e[g].key) ++end;
        for (int p = g; p < end; ++p)
            for (int q = p + 1; q < end; ++q) {
                const int a = e[p].box, b = e[q].box;
                int overlap = 1;
                long long lc[3];
                for (int k = 0; k < 3 && overlap; ++k) {
                    double l = fmax(lo[3 * a + k], lo[3 * b + k]), u = fmin(hi[3 * a + k], hi[3 * b + k]);
                    overlap = l <= u;
                    lc[k] = (long long)floor(l / h) - c0[k];
                }
                /* reported once: in the cell of the intersection's lower corner */
                if (overlap &&
                    ((uint64_t)lc[0] * (uint64_t)span[1] + (uint64_t)lc[1]) * (uint64_t)span[2] + (uint64_t)lc[2] ==
                        e[g].key &&
                    (n = push_pair(pairs, cap, n, a, b)) < 0) {
                    free(e);
                    return -1;
                }
            }
        g = end;
    }
    free(e);
    return n;
}

/* ---- the pair's force and its exact Jacobian ------------------------------------------------ */

double cr_segpair_force(const cr_vec3 x[4], double R, double lambda, double eps, const cr_seg_closest *cp, double *f,
                        double *K)
{
    const cr_vec3 d = cr_v3_sub(cp->pa, cp->pb);
    const double D = cp->dist, g = D - R, N = lambda - eps * g;
    if (f)
        for (int k = 0; k < 12; ++k) f[k] = 0;
    if (K)
        for (int k = 0; k < 144; ++k) K[k] = 0;
    if (!(N > 0) || !(D > 0)) return 0;
    const double w[4] = {1 - cp->s, cp->s, -(1 - cp->t), -cp->t};
    const double n[3] = {d.x / D, d.y / D, d.z / D}, dv[3] = {d.x, d.y, d.z};
    double gD[12]; /* ∇d = Wᵀ n (the envelope theorem: the closest points' motion does not enter) */
    for (int k = 0; k < 4; ++k)
        for (int c = 0; c < 3; ++c) gD[3 * k + c] = w[k] * n[c];
    if (f)
        for (int k = 0; k < 12; ++k) f[k] = N * gD[k];
    if (!K) return N;
    /* ∇²d = (Wᵀ P W − G A⁻¹ Gᵀ)/d, P = I − n nᵀ, over the free parameters θ_j of the closest
     * points: a_j = ∂(p_a − p_b)/∂θ_j, A_ij = a_i·a_j, G_j = Wᵀ a_j + B_jᵀ (p_a − p_b) with
     * B_j = ∂W/∂θ_j (the implicit derivative of the optimality d·a_j = 0). */
    double G[2][12];
    double a[2][3];
    int nf = 0;
    if (cp->s_free) {
        cr_vec3 as = cr_v3_sub(x[1], x[0]);
        a[nf][0] = as.x, a[nf][1] = as.y, a[nf][2] = as.z;
        for (int k = 0; k < 4; ++k)
            for (int c = 0; c < 3; ++c) G[nf][3 * k + c] = w[k] * a[nf][c];
        for (int c = 0; c < 3; ++c) G[nf][c] -= dv[c], G[nf][3 + c] += dv[c];
        ++nf;
    }
    if (cp->t_free) {
        cr_vec3 at = cr_v3_sub(x[2], x[3]);
        a[nf][0] = at.x, a[nf][1] = at.y, a[nf][2] = at.z;
        for (int k = 0; k < 4; ++k)
            for (int c = 0; c < 3; ++c) G[nf][3 * k + c] = w[k] * a[nf][c];
        for (int c = 0; c < 3; ++c) G[nf][6 + c] += dv[c], G[nf][9 + c] -= dv[c];
        ++nf;
    }
    double Ainv[2][2] = {{0, 0}, {0, 0}};
    if (nf == 1) {
        double A = a[0][0] * a[0][0] + a[0][1] * a[0][1] + a[0][2] * a[0][2];
        Ainv[0][0] = A > 0 ? 1 / A : 0;
    } else if (nf == 2) {
        double A00 = 0, A01 = 0, A11 = 0;
        for (int c = 0; c < 3; ++c) A00 += a[0][c] * a[0][c], A01 += a[0][c] * a[1][c], A11 += a[1][c] * a[1][c];
        double det = A00 * A11 - A01 * A01;
        if (det > 0) Ainv[0][0] = A11 / det, Ainv[0][1] = Ainv[1][0] = -A01 / det, Ainv[1][1] = A00 / det;
    }
    const double cN = N / D;
    for (int r = 0; r < 12; ++r)
        for (int c = 0; c < 12; ++c) {
            const int kr = r / 3, cr = r % 3, kc = c / 3, cc = c % 3;
            double P = (cr == cc ? 1.0 : 0.0) - n[cr] * n[cc];
            double h = w[kr] * w[kc] * P;
            for (int i = 0; i < nf; ++i)
                for (int j = 0; j < nf; ++j) h -= G[i][r] * Ainv[i][j] * G[j][c];
            K[12 * r + c] = cN * h - eps * gD[r] * gD[c];
        }
    return N;
}

long cr_seg_anchors_unpacked_size(const double *in, long n, int segs)
{
    enum { W = CR_SEG_ANCHOR_DOUBLES };
    if (n < 1 || !(in[0] >= 0) || in[0] != floor(in[0]) || in[0] > (double)(n - 1) / W) return -1;
    const long count = (long)in[0];
    for (long k = 0; k < count; ++k) {
        const double *v = in + 1 + W * k, *u = v - W;
        if (!(v[0] >= 0 && v[0] < v[1] && v[1] < segs) || v[0] != floor(v[0]) || v[1] != floor(v[1]) ||
            (k > 0 && (u[0] > v[0] || (u[0] == v[0] && u[1] >= v[1]))))
            return -1;
        for (int r = 2; r < W; ++r)
            if (!isfinite(v[r])) return -1;
    }
    return 1 + W * count;
}
