/* The static element of the mixed rod with condensed stresses (eqs. 7, 9, 19–20): its
 * forces and the blocks its Jacobian rows are made of, written once for a number type
 * ELEM_R and included by terms.c twice: for one element (double) and for four at once
 * (a 4-wide vector of doubles, one element a lane: the AVX2 build of the element pass).
 * Every operation is the same in each lane, so an element gets the same bits in
 * whichever lane, batch or thread range it is computed.
 *
 * Before including: ELEM_R (the number type), ELEM_ZERO (its zero) and ELEM_NAME(x) (x
 * with a suffix of this type). Arguments are pointers so that no vector is passed by value (an ABI that
 * depends on the target). */

/* the forces and the distinct blocks of the rows of nodes a and b (terms.c, element_rows) */
typedef struct ELEM_NAME(elem_blocks) {
    ELEM_R f[3], S[3], mo[3]; /* A n, L/2 (γ × n + κ × m), m */
    ELEM_R Kr[3][3];          /* d(A n)/dr_b = A K_n Aᵀ / L */
    ELEM_R Sr[3][3];          /* dS/dr_b */
    ELEM_R Fp[3][4];          /* d(A n)/dp_a = d(A n)/dp_b */
    ELEM_R Qa[3][4], Qb[3][4]; /* dS/dp_a, dS/dp_b */
    ELEM_R Pa[3][4], Pb[3][4]; /* dm/dp_a = K_m dκ/dp_a, dm/dp_b */
} ELEM_NAME(elem_blocks);

/* d(Exp(p) x)/dp (sigma = +1) or d(Exp(p)ᵀ x)/dp (sigma = -1), s = 2/|p|² (quat.c's
 * exp_apply_dp with its common factors): Exp(p) x = x + s f, f = σ p0 v×x + v×(v×x);
 * d(s f)/dp = s (df/dp - s f pᵀ) with df/dp0 = σ v×x, df/dv = -σ p0 x~ + (v·x) E + v xᵀ
 * - 2 x vᵀ, so that out[i][1+j] = s v_i x_j - c_i v_j + s ((v·x) δ_ij - σ p0 x~_ij),
 * c = 2 s x + s² f */
TERMS_INLINE void ELEM_NAME(exp_x_dp)(const ELEM_R *p, const ELEM_R *s_, const ELEM_R *x, double sigma,
                                      ELEM_R out[3][4])
{
    const ELEM_R s = *s_, p0 = p[0], v[3] = {p[1], p[2], p[3]};
    const ELEM_R vx[3] = {v[1] * x[2] - v[2] * x[1], v[2] * x[0] - v[0] * x[2], v[0] * x[1] - v[1] * x[0]};
    const ELEM_R vvx[3] = {v[1] * vx[2] - v[2] * vx[1], v[2] * vx[0] - v[0] * vx[2], v[0] * vx[1] - v[1] * vx[0]};
    const ELEM_R sp0 = sigma * p0, svd = s * (v[0] * x[0] + v[1] * x[1] + v[2] * x[2]), ssp0 = s * sp0;
    for (int i = 0; i < 3; ++i) {
        const ELEM_R sf = s * (sp0 * vx[i] + vvx[i]), c = 2.0 * s * x[i] + s * sf, sv = s * v[i];
        out[i][0] = sigma * s * vx[i] - s * sf * p0;
        for (int j = 0; j < 3; ++j) out[i][j + 1] = sv * x[j] - c * v[j];
        out[i][i + 1] += svd;
    }
    /* - s σ p0 x~ */
    out[0][2] += ssp0 * x[2], out[0][3] -= ssp0 * x[1];
    out[1][1] -= ssp0 * x[2], out[1][3] += ssp0 * x[0];
    out[2][1] += ssp0 * x[1], out[2][2] -= ssp0 * x[0];
}

/* d(dExp(p) w)/dp, s = 2/|p|² (quat.c) */
TERMS_INLINE void ELEM_NAME(dexp_w_dp)(const ELEM_R *p, const ELEM_R *s_, const ELEM_R *w, ELEM_R out[3][4])
{
    const ELEM_R s = *s_, p0 = p[0], v[3] = {p[1], p[2], p[3]}, w0 = w[0], wv[3] = {w[1], w[2], w[3]};
    const ELEM_R h[3] = {-w0 * v[0] + p0 * wv[0] - (v[1] * wv[2] - v[2] * wv[1]),
                         -w0 * v[1] + p0 * wv[1] - (v[2] * wv[0] - v[0] * wv[2]),
                         -w0 * v[2] + p0 * wv[2] - (v[0] * wv[1] - v[1] * wv[0])};
    for (int i = 0; i < 3; ++i) {
        const ELEM_R sh = s * h[i];
        out[i][0] = s * (wv[i] - sh * p0);
        for (int j = 0; j < 3; ++j) out[i][j + 1] = -s * (sh * v[j]);
        out[i][i + 1] -= s * w0; /* + s (-w0 E + w~) */
    }
    out[0][2] -= s * wv[2], out[0][3] += s * wv[1];
    out[1][1] += s * wv[2], out[1][3] -= s * wv[0];
    out[2][1] -= s * wv[1], out[2][2] += s * wv[0];
}

/* Element between nodes a and b: quaternions pa, pb, positions ra, rb, reference chord L,
 * stiffnesses kn = (EA, GA, GA), km = (GJ, EI, EI), reference strains g0, k0. */
TERMS_INLINE void ELEM_NAME(element_blocks)(const ELEM_R *pa, const ELEM_R *pb, const ELEM_R *ra, const ELEM_R *rb,
                                            const ELEM_R *L_, const ELEM_R *kn, const ELEM_R *km, const ELEM_R *g0,
                                            const ELEM_R *k0, ELEM_NAME(elem_blocks) * o, int want_J)
{
    const ELEM_R L = *L_, il = 1.0 / L, h = 0.5 * L;
    const ELEM_R pe[4] = {0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2]), 0.5 * (pa[3] + pb[3])};
    const ELEM_R dp[4] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2], pb[3] - pa[3]};
    const ELEM_R dr[3] = {rb[0] - ra[0], rb[1] - ra[1], rb[2] - ra[2]};
    const ELEM_R w = pe[0], x = pe[1], y = pe[2], z = pe[3];
    const ELEM_R s = 2.0 / (w * w + x * x + y * y + z * z);
    /* A = Exp(pe) (eq. 2) */
    const ELEM_R A[3][3] = {{1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)},
                            {s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x)},
                            {s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y)}};
    /* γ = Aᵀ Δr / L, κ = dExp(pe) Δp / L (eq. 7) */
    ELEM_R g[3], k[3], nv[3], mv[3];
    const ELEM_R hk[3] = {-dp[0] * x + w * dp[1] - (y * dp[3] - z * dp[2]), -dp[0] * y + w * dp[2] - (z * dp[1] - x * dp[3]),
                          -dp[0] * z + w * dp[3] - (x * dp[2] - y * dp[1])};
    for (int i = 0; i < 3; ++i) {
        g[i] = il * (A[0][i] * dr[0] + A[1][i] * dr[1] + A[2][i] * dr[2]);
        k[i] = il * (s * hk[i]);
        nv[i] = kn[i] * (g[i] - g0[i]); /* eq. (9), spec §2 */
        mv[i] = km[i] * (k[i] - k0[i]);
    }
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        o->f[i] = A[i][0] * nv[0] + A[i][1] * nv[1] + A[i][2] * nv[2];
        o->S[i] = h * ((g[i1] * nv[i2] - g[i2] * nv[i1]) + (k[i1] * mv[i2] - k[i2] * mv[i1]));
        o->mo[i] = mv[i];
    }
    if (!want_J) return;

    /* dγ/dp_a = dγ/dp_b = Pg = d(Aᵀ Δr)/dp / (2L); dγ/dr_b = -dγ/dr_a = Aᵀ/L;
     * dκ/dp_a = Ka = (d(dExp Δp)/dp / 2 - dExp)/L, dκ/dp_b = Kb = (… + dExp)/L */
    ELEM_R Pg[3][4], Dk[3][4], Df[3][4], Ka[3][4], Kb[3][4];
    ELEM_NAME(exp_x_dp)(pe, &s, dr, -1.0, Pg);
    ELEM_NAME(dexp_w_dp)(pe, &s, dp, Dk);
    ELEM_NAME(exp_x_dp)(pe, &s, nv, 1.0, Df); /* d(A n)/dp at fixed n */
    const ELEM_R v[3] = {x, y, z};
    for (int i = 0; i < 3; ++i) {
        /* dExp = s [-v | p0 E - v~] */
        ELEM_R dE[4] = {-s * v[i], ELEM_ZERO, ELEM_ZERO, ELEM_ZERO};
        dE[1 + i] = s * w;
        dE[1 + (i + 1) % 3] = s * v[(i + 2) % 3]; /* -v~[i][(i+1)%3] = v[(i+2)%3] */
        dE[1 + (i + 2) % 3] = -s * v[(i + 1) % 3];
        for (int j = 0; j < 4; ++j) {
            Pg[i][j] *= 0.5 * il;
            Ka[i][j] = il * (0.5 * Dk[i][j] - dE[j]);
            Kb[i][j] = il * (0.5 * Dk[i][j] + dE[j]);
            o->Pa[i][j] = km[i] * Ka[i][j];
            o->Pb[i][j] = km[i] * Kb[i][j];
        }
    }
    /* force rows: d(A n)/dr_b = -d(A n)/dr_a = Kr = A K_n Aᵀ/L; d(A n)/dp_{a,b} = Fp = A K_n Pg + Df/2 */
    ELEM_R AK[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) AK[i][j] = A[i][j] * kn[j];
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j)
            o->Kr[i][j] = o->Kr[j][i] = il * (AK[i][0] * A[j][0] + AK[i][1] * A[j][1] + AK[i][2] * A[j][2]);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            o->Fp[i][j] = AK[i][0] * Pg[0][j] + AK[i][1] * Pg[1][j] + AK[i][2] * Pg[2][j] + 0.5 * Df[i][j];
    /* S = L/2 (γ × n + κ × m): dS = Mg dγ + Mk dκ with Mg = L/2 (γ~ K_n - n~), Mk = L/2 (κ~ K_m - m~)
     * (zero diagonals) */
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3; /* a~[i][i1] = -a[i2], a~[i][i2] = a[i1] */
        const ELEM_R mg1 = h * (-g[i2] * kn[i1] + nv[i2]), mg2 = h * (g[i1] * kn[i2] - nv[i1]);
        const ELEM_R mk1 = h * (-k[i2] * km[i1] + mv[i2]), mk2 = h * (k[i1] * km[i2] - mv[i1]);
        for (int j = 0; j < 3; ++j) o->Sr[i][j] = il * (mg1 * A[j][i1] + mg2 * A[j][i2]);
        for (int j = 0; j < 4; ++j) {
            const ELEM_R R = mg1 * Pg[i1][j] + mg2 * Pg[i2][j];
            o->Qa[i][j] = R + mk1 * Ka[i1][j] + mk2 * Ka[i2][j];
            o->Qb[i][j] = R + mk1 * Kb[i1][j] + mk2 * Kb[i2][j];
        }
    }
}
