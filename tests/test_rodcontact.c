/* Contact between rod segments: closest points against a dense sampling, the broad phase against
 * all pairs, the exclusion of pairs close along the arc, a contact point counted once, and the
 * pair force's Jacobian against central differences. */
#include "check.h"
#include "contact/rodcontact.h"
#include "contact/segments.h"

#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 88172645463325252ULL;
static double urand(void) /* in [-1, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}
static cr_vec3 rvec(double s) { return cr_v3(s * urand(), s * urand(), s * urand()); }

/* distance from p to segment [b0, b1], exact */
static double point_segment(cr_vec3 p, cr_vec3 b0, cr_vec3 b1)
{
    cr_vec3 d = cr_v3_sub(b1, b0);
    double e = cr_v3_dot(d, d), t = e > 0 ? cr_v3_dot(cr_v3_sub(p, b0), d) / e : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return cr_v3_norm(cr_v3_sub(p, cr_v3_madd(b0, t, d)));
}

/* The exact distance is at most every sampled one and within the sampling's resolution of the
 * smallest: s on 4001 points, t exact for each. Random, parallel, collinear, crossing and
 * degenerate segments. */
static void test_closest_vs_sampling(void)
{
    for (int trial = 0; trial < 400; ++trial) {
        cr_vec3 a0 = rvec(1), a1 = rvec(1), b0 = rvec(1), b1 = rvec(1);
        int kind = trial % 8;
        if (kind == 1) b1 = cr_v3_add(b0, cr_v3_scale(cr_v3_sub(a1, a0), 0.7 * urand())); /* parallel */
        if (kind == 2)
            b0 = cr_v3_madd(a0, 0.3, cr_v3_sub(a1, a0)), b1 = cr_v3_madd(a0, 1.6, cr_v3_sub(a1, a0)); /* collinear */
        if (kind == 3) a1 = a0;                                                                       /* a point */
        if (kind == 4) b1 = b0;
        if (kind == 5) { /* crossing: b through a's midpoint */
            cr_vec3 m = cr_v3_madd(a0, 0.5, cr_v3_sub(a1, a0)), u = rvec(1);
            b0 = cr_v3_sub(m, u), b1 = cr_v3_add(m, u);
        }
        if (kind == 6) b1 = cr_v3_add(b0, cr_v3_scale(cr_v3_sub(a1, a0), 1 + 1e-9)); /* nearly parallel */
        cr_seg_closest cp;
        cr_segment_closest(a0, a1, b0, b1, &cp);
        double ref = INFINITY;
        const int M = 4000;
        for (int i = 0; i <= M; ++i)
            ref = fmin(ref, point_segment(cr_v3_madd(a0, (double)i / M, cr_v3_sub(a1, a0)), b0, b1));
        const double La = cr_v3_norm(cr_v3_sub(a1, a0));
        CHECK(cp.dist <= ref + 1e-12);
        CHECK(ref - cp.dist <= La / (2.0 * M) + 1e-12);
        /* the reported points are on the segments at the reported parameters */
        CHECK_NEAR(cr_v3_norm(cr_v3_sub(cp.pa, cr_v3_madd(a0, cp.s, cr_v3_sub(a1, a0)))), 0, 1e-14);
        CHECK_NEAR(cr_v3_norm(cr_v3_sub(cp.pb, cr_v3_madd(b0, cp.t, cr_v3_sub(b1, b0)))), 0, 1e-14);
        CHECK(cp.s >= 0 && cp.s <= 1 && cp.t >= 0 && cp.t <= 1);
        if (kind == 5) CHECK_NEAR(cp.dist, 0, 1e-14);
    }
    /* two parallel segments side by side, offset 0.1: the distance, and s in the middle of the overlap */
    cr_seg_closest cp;
    cr_segment_closest(cr_v3(0, 0, 0), cr_v3(1, 0, 0), cr_v3(0.5, 0.1, 0), cr_v3(2, 0.1, 0), &cp);
    CHECK_NEAR(cp.dist, 0.1, 1e-15);
    CHECK_NEAR(cp.s, 0.75, 1e-15);
    CHECK(!cp.s_free);
}

static int pair_cmp(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* The broad phase finds exactly the overlapping pairs all-pairs testing finds, each once: random
 * boxes of mixed sizes (clustered, so cells hold many), a rope of segments, and points. */
static void test_broad_phase_vs_brute(void)
{
    for (int set = 0; set < 6; ++set) {
        const int n = 300 + 100 * set;
        double *lo = malloc(3 * n * sizeof *lo), *hi = malloc(3 * n * sizeof *hi);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k) {
                double c = set % 3 == 0 ? 0.6 * urand() : (set % 3 == 1 ? 0.5 * urand() : 0.01 * i + 0.02 * urand());
                double w = set == 5 ? 0 : 0.05 + 0.05 * urand();
                lo[3 * i + k] = c - w, hi[3 * i + k] = c + w + (k == 0 && i % 7 == 0 ? 0.1 : 0);
            }
        int *pairs = NULL, cap = 0;
        int m = cr_broad_phase(n, lo, hi, &pairs, &cap);
        int *ref = malloc((size_t)n * n * sizeof *ref), r = 0;
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b) {
                int ov = 1;
                for (int k = 0; k < 3; ++k)
                    ov = ov && fmax(lo[3 * a + k], lo[3 * b + k]) <= fmin(hi[3 * a + k], hi[3 * b + k]);
                if (ov) ref[2 * r] = a, ref[2 * r + 1] = b, ++r;
            }
        if (m > 0) qsort(pairs, (size_t)m, 2 * sizeof *pairs, pair_cmp); /* none: pairs may be NULL */
        CHECK(m == r);
        if (m != r) fprintf(stderr, "broad phase set %d: %d pairs, all-pairs %d\n", set, m, r);
        CHECK(m == r && (m == 0 || memcmp(pairs, ref, (size_t)m * 2 * sizeof *pairs) == 0));
        CHECK(set == 5 || r > n / 10); /* the sets do have overlaps to find */
        free(lo), free(hi), free(pairs), free(ref);
    }
}

/* A straight rod of radius a: no pair is in contact (every pair is either excluded or apart);
 * the exclusion's reach is π a along the arc; folded into a hairpin with its legs 2a apart, the
 * legs touch and the fold's own neighbours do not. */
static void test_exclusion(void)
{
    const int n = 41; /* nodes */
    const double a = 0.01, h = 0.004;
    double radius[41], s[41];
    for (int i = 0; i < n; ++i) radius[i] = a, s[i] = h * i;
    cr_rodcontact *c = cr_rodcontact_create(n, radius, s, 1e3, 1e-6);
    CHECK(cr_rodcontact_excluded(c, 3, 4));      /* neighbours */
    CHECK(cr_rodcontact_excluded(c, 3, 3 + 8));  /* arc 7 h = 0.028 < π a = 0.0314 */
    CHECK(!cr_rodcontact_excluded(c, 3, 3 + 9)); /* arc 8 h = 0.032 > π a */
    double x[41 * 3];
    for (int i = 0; i < n; ++i) x[3 * i] = h * i, x[3 * i + 1] = x[3 * i + 2] = 0;
    CHECK(cr_rodcontact_find(c, x, 3) == 0);
    /* straight: the nearest pair not excluded is 8 elements apart, its gap 8 h − 2a */
    CHECK_NEAR(cr_rodcontact_min_gap(c, x, 3, NULL, NULL), 8 * h - 2 * a, 1e-15);
    /* hairpin: legs along x at y = 0 and y = 2a − 1e-4 (slightly pressed), joined by a half circle
     * of radius a whose arc π a is just the exclusion's */
    int k = 0;
    const int leg = 15;
    for (int i = 0; i < leg; ++i, ++k) x[3 * k] = -h * (leg - 1 - i), x[3 * k + 1] = 0, x[3 * k + 2] = 0;
    const int arcn = n - 2 * leg;
    const double R = a - 0.5e-4;
    for (int i = 1; i <= arcn; ++i, ++k) {
        double th = M_PI * i / (arcn + 1);
        x[3 * k] = R * sin(th), x[3 * k + 1] = R - R * cos(th), x[3 * k + 2] = 0;
    }
    for (int i = 0; i < leg; ++i, ++k) x[3 * k] = -h * i, x[3 * k + 1] = 2 * R, x[3 * k + 2] = 0;
    for (int i = 1; i < n; ++i) /* the arc lengths of this shape */
        c->s[i] = c->s[i - 1] + cr_v3_norm(cr_v3_sub(cr_v3_load(x + 3 * i), cr_v3_load(x + 3 * (i - 1))));
    int np = cr_rodcontact_find(c, x, 3);
    CHECK(np > 0);
    double gmin = cr_rodcontact_min_gap(c, x, 3, NULL, NULL);
    CHECK_NEAR(gmin, -1e-4, 1e-12); /* legs 2R = 2a − 1e-4 apart */
    /* the legs are parallel with their nodes facing each other: every contact point is on the legs,
     * and each leg node opposite another is reached by exactly one pair (no double counting) */
    int per_node[41] = {0};
    for (int p = 0; p < np; ++p) {
        const cr_rodpair *q = &c->pair[p];
        CHECK(q->a < leg - 1 && q->b >= n - leg);
        per_node[q->a + (q->cp.s > 0.5)]++;
    }
    for (int i = 0; i < leg - 1; ++i) CHECK(per_node[i] <= 1);
    cr_rodcontact_destroy(c);
}

/* A pair counted once where the closest point is a node shared by two segments: a segment b
 * pressed onto the kink node of a bent polyline a (its closest point is the kink). */
static void test_node_counted_once(void)
{
    double radius[8], s[8], x[8 * 3];
    for (int i = 0; i < 8; ++i) radius[i] = 0.05, s[i] = i;
    /* nodes 0..3: a V with its tip (node 1... ) at the origin; nodes 4..7 far along the arc, a
     * segment crossing above the tip */
    const double P[8][3] = {{-1, 1, 0}, {0, 0, 0},         {1, 1, 0},         {1, 3, 0},
                            {5, 3, 0},  {0.5, -0.099, -1}, {-0.5, -0.099, 1}, {-3, -3, 3}};
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 3; ++k) x[3 * i + k] = P[i][k];
    for (int i = 1; i < 8; ++i)
        s[i] = s[i - 1] + cr_v3_norm(cr_v3_sub(cr_v3_load(x + 3 * i), cr_v3_load(x + 3 * i - 3)));
    cr_rodcontact *c = cr_rodcontact_create(8, radius, s, 1e3, 1e-6);
    int np = cr_rodcontact_find(c, x, 3);
    CHECK(np == 1); /* segments 0 and 1 both reach the tip node against segment 5 */
    if (np == 1) CHECK(c->pair[0].b == 5 && (c->pair[0].a == 0 || c->pair[0].a == 1));
    cr_rodcontact_destroy(c);
}

/* One rod of 8 nodes: a chain A (nodes 0, 1, 2, kink at node 1) and a chain B (nodes 5, 6, 7, kink
 * at node 6) facing each other, joined far away (nodes 3, 4); radius r, penalty ε. Returns the
 * number of pairs counted, *F the norm of the total force on A's nodes, *dmin the smallest
 * distance of A's segments to B's (all four pairs, the independent reference) and *Fsum the norm
 * of the sum of all forces (0: action and reaction). */
static int kink_contact(const double P[8][3], double r, double eps, double *F, double *dmin, double *Fsum)
{
    double radius[8], s[8], x[8 * 3];
    for (int i = 0; i < 8; ++i) {
        radius[i] = r;
        for (int k = 0; k < 3; ++k) x[3 * i + k] = P[i][k];
    }
    s[0] = 0;
    for (int i = 1; i < 8; ++i)
        s[i] = s[i - 1] + cr_v3_norm(cr_v3_sub(cr_v3_load(x + 3 * i), cr_v3_load(x + 3 * i - 3)));
    cr_rodcontact *c = cr_rodcontact_create(8, radius, s, eps, 1e-6);
    const int np = cr_rodcontact_find(c, x, 3);
    double fa[3] = {0, 0, 0}, ft[3] = {0, 0, 0};
    for (int p = 0; p < np; ++p) {
        double f[12];
        cr_rodcontact_pair_force(c, p, x, 3, f, NULL);
        const int node[4] = {c->pair[p].a, c->pair[p].a + 1, c->pair[p].b, c->pair[p].b + 1};
        for (int m = 0; m < 4; ++m)
            for (int k = 0; k < 3; ++k) {
                ft[k] += f[3 * m + k];
                if (node[m] <= 2) fa[k] += f[3 * m + k];
            }
    }
    *F = sqrt(fa[0] * fa[0] + fa[1] * fa[1] + fa[2] * fa[2]);
    *Fsum = sqrt(ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2]);
    *dmin = INFINITY;
    for (int a = 0; a < 2; ++a)
        for (int b = 5; b < 7; ++b) {
            cr_seg_closest cp;
            cr_segment_closest(cr_v3_load(x + 3 * a), cr_v3_load(x + 3 * a + 3), cr_v3_load(x + 3 * b),
                               cr_v3_load(x + 3 * b + 3), &cp);
            *dmin = fmin(*dmin, cp.dist);
        }
    cr_rodcontact_destroy(c);
    return np;
}

/* A node pressing on a chain at its node (a corner of the discrete rod) is one contact: the total
 * normal force on either chain is the penalty of one contact, ε (2r − d_min), d_min the smallest
 * distance of the chains' segments (the distance between polylines whose kinks face each other
 * has a single local minimum), and the forces sum to zero. Cases: the nodes facing each other
 * exactly (four pairs hold the same point), chain B straight under A's kink, B's kink under A's
 * straight chain, both straight and crossing, B crossing at an angle; each exactly and turned by
 * random rotations and moved (the symmetric cases' ties then fall to rounding, e.g. the distance's
 * slope along a straight chain at the node is ±1e-17); and random moves of the nodes by up to
 * 3 cm of the kinked chains (segments 1 m long, the kinks' arms rising 0.3 m: they stay convex)
 * that slide the contact over the nodes and the segments. The rule this replaced counted no pair in some of the turned
 * straight cases. */
static void test_corner_counted_once(void)
{
    const double r = 0.05, eps = 1e3, d = 0.09; /* 1 cm deep */
    double worst = 0, worst_sum = 0;
    int bad = 0, trials = 0;
    for (int trial = 0; trial < 1000; ++trial, ++trials) {
        const int moved = trial >= 600, turned = trial >= 5 && !moved;
        /* moved: both chains kinked (a straight chain moved can turn concave: two contacts) */
        const int kind = moved ? 4 * (trial % 2) : trial % 5;
        const double riseA = kind == 2 || kind == 3 ? 0 : 0.3, riseB = kind == 1 || kind == 3 ? 0 : 0.3,
                     tilt = kind == 4 ? 0.4 : (turned ? 0.3 * urand() : 0);
        double P[8][3] = {{-1, riseA, 0},          {0, 0, 0},  {1, riseA, 0},        {3, 3, 0}, {3, -3, 2},
                          {-tilt, -d - riseB, -1}, {0, -d, 0}, {tilt, -d - riseB, 1}};
        if (turned) { /* a random rotation (unit quaternion) and shift of the whole rod */
            double q[4], n = 0;
            for (int k = 0; k < 4; ++k) q[k] = urand(), n += q[k] * q[k];
            for (int k = 0; k < 4; ++k) q[k] /= sqrt(n);
            const double w = q[0], x = q[1], y = q[2], z = q[3],
                         R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
            const double c[3] = {urand(), urand(), urand()};
            for (int i = 0; i < 8; ++i) {
                double v[3];
                for (int k = 0; k < 3; ++k) v[k] = c[k] + R[k][0] * P[i][0] + R[k][1] * P[i][1] + R[k][2] * P[i][2];
                for (int k = 0; k < 3; ++k) P[i][k] = v[k];
            }
        }
        if (moved)
            for (int i = 0; i < 8; ++i)
                if (i != 3 && i != 4)
                    for (int k = 0; k < 3; ++k) P[i][k] += 0.03 * urand();
        double F, dmin, Fsum;
        const int np = kink_contact(P, r, eps, &F, &dmin, &Fsum);
        const double ref = eps * (2 * r - dmin), err = fabs(F - ref) / ref;
        if (!(err < 1e-9) && bad < 5)
            fprintf(stderr, "corner case %d: %d pairs, |F| %.12g, ε (2r − d) %.12g\n", trial, np, F, ref);
        bad += !(err < 1e-9);
        worst = fmax(worst, err), worst_sum = fmax(worst_sum, Fsum / ref);
        if (!moved) CHECK(np == 1);
    }
    fprintf(stderr, "corner contacts: worst | |F| / ε (2r − d) − 1 | = %.3g, %d of %d off\n", worst, bad, trials);
    CHECK(bad == 0 && worst < 1e-9);
    CHECK(worst_sum < 1e-12);
}

/* A contact sliding over nodes: chain B (straight, at an angle) slides under A's kink in 3001
 * steps of 2e-4 m, its node passing under A's node at the middle (the contact goes from A's first
 * segment over its node to the second while B's contact crosses B's node: every case of the rule
 * on the way). The total force on A is ε (2r − d_min) at every position and changes by no more
 * than the motion can change it (ε Δx, the distance's slope being at most 1, plus the normal's
 * turn, far below one contact's force of 10 N: a contact dropped or doubled on the way jumps by
 * that). */
static void test_contact_slides_over_node(void)
{
    const double r = 0.05, eps = 1e3, d = 0.09, dx = 2e-4;
    double Fprev = NAN, jump = 0, worst = 0;
    for (int k = 0; k <= 3000; ++k) {
        const double x0 = -0.3 + dx * k;
        const double P[8][3] = {{-1, 0.05, 0}, {0, 0, 0},          {1, 0.05, 0}, {3, 3, 0},
                                {3, -3, 2},    {x0 - 0.6, -d, -2}, {x0, -d, 0},  {x0 + 0.6, -d, 2}};
        double F, dmin, Fsum;
        kink_contact(P, r, eps, &F, &dmin, &Fsum);
        const double ref = eps * (2 * r - dmin);
        worst = fmax(worst, fabs(F - ref) / ref);
        if (k > 0) jump = fmax(jump, fabs(F - Fprev));
        Fprev = F;
    }
    fprintf(stderr,
            "sliding over the nodes: worst | |F| / ε (2r − d) − 1 | = %.3g, largest change of |F| a step %.3g N "
            "(ε Δx = %.3g N)\n",
            worst, jump, eps * dx);
    CHECK(worst < 1e-9);
    CHECK(jump < 2 * eps * dx);
}

/* ∂f/∂x of a pressed pair against central differences of f (closest points recomputed), for
 * pairs with both parameters inside, one at an end, and penalty with and without a multiplier. */
static void test_pair_jacobian_fd(void)
{
    double worst = 0;
    for (int trial = 0; trial < 200; ++trial) {
        cr_vec3 X[4];
        const int kind = trial % 3;
        X[0] = cr_v3(-1, 0, 0), X[1] = cr_v3(1, 0, 0);
        X[2] = cr_v3(0, -1, 0.15), X[3] = cr_v3(0, 1, 0.15);
        if (kind == 1) X[2] = cr_v3(1.2, -1, 0.15), X[3] = cr_v3(1.2, 1, 0.15); /* beyond a's end */
        if (kind == 2) X[3] = cr_v3(0, 1, 0.6);                                 /* at an angle */
        for (int k = 0; k < 4; ++k) X[k] = cr_v3_add(X[k], rvec(0.2));
        const double R = 0.2, eps = 1e4, lambda = trial % 2 ? 30.0 : 0.0;
        cr_seg_closest cp;
        cr_segment_closest(X[0], X[1], X[2], X[3], &cp);
        double f[12], K[144];
        double N = cr_segpair_force(X, R, lambda, eps, &cp, f, K);
        if (!(N > 0)) continue;
        double kmax = 0, emax = 0;
        for (int c = 0; c < 12; ++c) {
            const double hstep = 1e-6;
            double fp[12], fm[12];
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                cr_vec3 Y[4] = {X[0], X[1], X[2], X[3]};
                double *v = (double *)&Y[c / 3];
                v[c % 3] += sgn * hstep;
                cr_seg_closest q;
                cr_segment_closest(Y[0], Y[1], Y[2], Y[3], &q);
                cr_segpair_force(Y, R, lambda, eps, &q, sgn > 0 ? fp : fm, NULL);
            }
            for (int r = 0; r < 12; ++r) {
                double fd = (fp[r] - fm[r]) / (2 * hstep);
                kmax = fmax(kmax, fabs(K[12 * r + c]));
                emax = fmax(emax, fabs(fd - K[12 * r + c]));
            }
        }
        worst = fmax(worst, emax / kmax);
    }
    CHECK(worst < 1e-6);
    fprintf(stderr, "pair Jacobian vs differences: worst relative error %.3g\n", worst);
}

/* cr_rodcontact_find (its Verlet list, the excluded pairs dropped from it, the boxes' gap that decides
 * far candidates without their closest points) against all the pairs: a rod crumpled into a small
 * box (a random walk of 300 segments), moved in small random steps so that the list is both reused
 * and rebuilt; at every step the same pressing pairs, in the same order, with the same closest points
 * as every non-excluded pair's closest points, gap and count-once rule give. */
typedef struct brute_ctx {
    const cr_rodcontact *c;
    const double *x;
    int a, b;
} brute_ctx;

static int brute_neighbour(void *ctx, int i, int j, cr_seg_closest *q)
{
    const brute_ctx *n = ctx;
    const int qa = n->a + i, qb = n->b + j, last = n->c->nodes - 2;
    if (qa < 0 || qb < 0 || qa > last || qb > last || cr_rodcontact_excluded(n->c, qa, qb)) return 0;
    const double *x = n->x;
    cr_segment_closest(cr_v3_load(x + 3 * qa), cr_v3_load(x + 3 * qa + 3), cr_v3_load(x + 3 * qb),
                       cr_v3_load(x + 3 * qb + 3), q);
    return 1;
}

static void test_find_vs_all_pairs(void)
{
    enum { N = 301 };
    const double a = 2.5e-3, l = 5e-3, half = 0.02;
    double radius[N], s[N], *x = malloc(3 * N * sizeof *x);
    x[0] = x[1] = x[2] = 0;
    for (int i = 0; i < N; ++i) {
        radius[i] = a, s[i] = l * i;
        if (i == 0) continue;
        for (;;) { /* a step of length l in a random direction, kept inside the box */
            cr_vec3 d = rvec(1.0);
            const double n = cr_v3_norm(d);
            if (n < 0.1 || n > 1) continue;
            d = cr_v3_scale(d, l / n);
            const cr_vec3 p = cr_v3_add(cr_v3_load(x + 3 * (i - 1)), d);
            if (fabs(p.x) > half || fabs(p.y) > half || fabs(p.z) > half) continue;
            cr_v3_store(p, x + 3 * i);
            break;
        }
    }
    cr_rodcontact *c = cr_rodcontact_create(N, radius, s, 368.0, 1e-9);
    CHECK(c != NULL);
    int total = 0, mismatches = 0;
    for (int step = 0; step < 60; ++step) {
        const int m = cr_rodcontact_find(c, x, 3);
        int r = 0;
        for (int i = 0; i + 1 < N - 1; ++i)
            for (int j = i + 2; j < N - 1; ++j) {
                if (cr_rodcontact_excluded(c, i, j)) continue;
                cr_seg_closest cp;
                cr_segment_closest(cr_v3_load(x + 3 * i), cr_v3_load(x + 3 * i + 3), cr_v3_load(x + 3 * j),
                                   cr_v3_load(x + 3 * j + 3), &cp);
                const double g = cp.dist - a - a; /* as find: d minus the two segments' radii */
                brute_ctx bc = {c, x, i, j};
                if (!(-c->eps * g > 0) || !cr_segpair_counted_once(&cp, brute_neighbour, &bc)) continue;
                /* the r-th pair found must be this one, with the same closest points */
                if (r >= m || c->pair[r].a != i || c->pair[r].b != j || c->pair[r].cp.dist != cp.dist ||
                    c->pair[r].cp.s != cp.s || c->pair[r].cp.t != cp.t)
                    ++mismatches;
                ++r;
            }
        mismatches += m != r;
        total += r;
        /* every node moves by up to a/4 per axis: the Verlet list (skin a) is reused for a few
         * steps and rebuilt */
        for (int k = 0; k < 3 * N; ++k) x[k] += 0.25 * a * urand();
    }
    CHECK(mismatches == 0);
    CHECK(total > 60 * 100); /* the crumpled rod does press on itself: some 900 pairs a step */
    fprintf(stderr, "find vs all pairs: %d pressing pairs over 60 steps, %d mismatches\n", total, mismatches);
    cr_rodcontact_destroy(c);
    free(x);
}

CHECK_MAIN(CASE(test_closest_vs_sampling), CASE(test_broad_phase_vs_brute), CASE(test_exclusion),
           CASE(test_node_counted_once), CASE(test_corner_counted_once), CASE(test_contact_slides_over_node),
           CASE(test_pair_jacobian_fd), CASE(test_find_vs_all_pairs))
