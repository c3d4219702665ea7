/* Rod–obstacle contact: the augmented-Lagrangian contact force of a node and its exact
 * Jacobian, and the multiplier updates (docs/theory.md "Contact with obstacles").
 *
 * For a node at r with contact radius a, an obstacle of signed distance φ, normal n and
 * Hessian H (obstacle.c), gap g = φ(r) − a:
 *   normal force  N = max(0, λ_N − ε g),                         f_N = N n
 *   friction      t = P λ_T − ε g_T,  g_T = P (r − X),  P = E − n nᵀ (X the stick anchor)
 *                 f_T = t                 when |t| <= μ_s N (stick)
 *                 f_T = μ_s N t/|t|       otherwise (slip, at the Coulomb limit).
 * The multipliers λ are constant during a Newton solve and updated after it (λ_N ← N,
 * λ_T ← f_T): at the fixed point of the updates g = 0 wherever N > 0 and g_T = 0 wherever the
 * node sticks, exactly (Alart & Curnier's augmented Lagrangian, solved by Uzawa's iteration).
 * Statics uses the static coefficient for the limit; the kinetic one is for sliding in time.
 * ε is a stiffness per unit length times the node's lumped length (weight): a uniformly loaded
 * rod then moves uniformly under the springs, so no node takes more than its share. */
#include "contact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cr_vec3 EZ_AXIS = {0, 0, 1};

cr_contact *cr_contact_create(int nodes, const double *radius, const double *weight, int obstacle_count,
                              const cr_obstacle_def *obstacles, double eps, double tol, int max_updates)
{
    cr_contact *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->nodes = nodes, c->obstacle_count = obstacle_count, c->eps = eps, c->tol = tol, c->max_updates = max_updates;
    c->quat_offset = -1; /* friction at the centre unless the rod says where its orientations are */
    c->obstacles = malloc((size_t)(obstacle_count > 0 ? obstacle_count : 1) * sizeof *c->obstacles);
    c->radius = malloc((size_t)nodes * sizeof *c->radius);
    c->weight = malloc((size_t)nodes * sizeof *c->weight);
    c->pair = calloc((size_t)nodes * (obstacle_count > 0 ? obstacle_count : 1), sizeof *c->pair);
    if (!c->obstacles || !c->radius || !c->weight || !c->pair) {
        cr_contact_destroy(c);
        return NULL;
    }
    memcpy(c->obstacles, obstacles, (size_t)obstacle_count * sizeof *obstacles);
    c->path = calloc((size_t)(obstacle_count > 0 ? obstacle_count : 1), sizeof *c->path);
    c->pose = calloc((size_t)(obstacle_count > 0 ? obstacle_count : 1), sizeof *c->pose);
    if (!c->path || !c->pose) {
        cr_contact_destroy(c);
        return NULL;
    }
    for (int k = 0; k < obstacle_count; ++k)
        if (cr_obstacle_path_init(&c->path[k], &obstacles[k], k, NULL) != CR_OK) {
            /* (a bad table is named by the scenario's check; here it can only be refused) */
            cr_contact_destroy(c);
            return NULL;
        }
    for (int k = 0; k < obstacle_count; ++k) { /* the pointed-to rows are the paths' own now */
        c->obstacles[k].motion = NULL, c->obstacles[k].time = NULL;
    }
    cr_contact_set_time(c, 0.0);
    memcpy(c->radius, radius, (size_t)nodes * sizeof *radius);
    for (int i = 0; i < nodes; ++i) c->weight[i] = weight ? weight[i] : 1.0;
    return c;
}

void cr_contact_destroy(cr_contact *c)
{
    if (!c) return;
    free(c->obstacles);
    free(c->radius);
    free(c->weight);
    free(c->damping);
    free(c->pair);
    for (int k = 0; c->path && k < c->obstacle_count; ++k) cr_obstacle_path_free(&c->path[k]);
    free(c->path);
    free(c->pose);
    free(c);
}

void cr_contact_set_time(cr_contact *c, double t)
{
    c->time = t;
    for (int k = 0; k < c->obstacle_count; ++k) cr_obstacle_path_at(&c->path[k], t, &c->pose[k]);
}

/* A node's position in obstacle k's own frame, the obstacle as given (turned back by Rᵀ about its
 * centre and translated back): distances, normals and the stick anchors are measured there, so an
 * anchor is a material point of the obstacle and moves (and turns) with it. */
static cr_vec3 local_at(const cr_obstacle_def *o, const cr_obstacle_pose *ps, cr_vec3 r)
{
    const cr_vec3 d = cr_v3_sub(cr_v3_sub(r, ps->shift), o->center);
    return cr_v3_add(o->center, cr_m3_tmulv(ps->R, d));
}

cr_vec3 cr_contact_local(const cr_contact *c, int k, cr_vec3 r) { return local_at(&c->obstacles[k], &c->pose[k], r); }
/* (the same, inlined: the exported one is called through the library's symbol table) */
static cr_vec3 local(const cr_contact *c, int k, cr_vec3 r) { return local_at(&c->obstacles[k], &c->pose[k], r); }

/* The velocity (I) of the obstacle's material point at r: v + ω × (r − centre(t)) */
static cr_vec3 surface_velocity(const cr_obstacle_def *o, const cr_obstacle_pose *ps, cr_vec3 r)
{
    return cr_v3_add(ps->v, cr_v3_cross(ps->w, cr_v3_sub(r, cr_v3_add(o->center, ps->shift))));
}

static int turns(const cr_contact *c, int k) { return c->path[k].turns; }

static cr_mat3 outer(cr_vec3 a, cr_vec3 b)
{
    cr_mat3 M;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) M.m[r][k] = cr_v3_get(a, r) * cr_v3_get(b, k);
    return M;
}

static void m3_add(cr_mat3 *a, double s, cr_mat3 b)
{
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) a->m[r][k] += s * b.m[r][k];
}

/* What friction at the contact point adds to one pair (pair_force_local: in the obstacle's frame;
 * pair_force: in I). The caller fills the inputs; the outputs are set when the pair has friction. */
typedef struct roll_terms {
    cr_quat p;                   /* in: the node's orientation quaternion */
    cr_mat3 A;                   /* in: Exp(p), the node's body basis in I */
    cr_mat3 Rt;                  /* in: I → the obstacle's frame (E unless it turns) */
    int jacobian;                /* in: fill the derivatives (with K) */
    int active;                  /* out: a frictional anchored pair: the outputs below are set */
    cr_vec3 m;                   /* out: the moment −a n × f_T */
    cr_mat3 m_r, m_v;            /* out: ∂m/∂r, ∂m/∂v */
    double f_p[3][4], m_p[3][4]; /* out: ∂f/∂p, ∂m/∂p */
} roll_terms;

static int stick_force(cr_vec3 n, const cr_mat3 *H, double eps, double limit, cr_vec3 dlimit, cr_vec3 d,
                       cr_vec3 lambda_t, cr_vec3 *f, cr_mat3 *K, cr_vec3 *t_out, cr_mat3 *G);

/* The force of one pair in the obstacle's own frame (r and v there: local(), the velocity relative
 * to its surface turned back), K += ∂f/∂r; returns 1 when pressing. *t_out: the trial friction
 * force, *lim: μ_s N (both when frictional and anchored). rl (optional): friction at the contact
 * point (docs/theory.md "Contact with obstacles": the moment and the material point's slip). */
static int pair_force_local(const cr_contact *c, int i, int k, cr_vec3 r, const cr_vec3 *v, cr_vec3 *f, cr_mat3 *K,
                            cr_mat3 *Kv, double *gap, cr_vec3 *t_out, double *lim, double *N_out, cr_vec3 *gT_out,
                            roll_terms *rl)
{
    const cr_obstacle_def *o = &c->obstacles[k];
    const cr_contact_pair *pr = &c->pair[(size_t)i * c->obstacle_count + k];
    const int turned = turns(c, k);
    double phi;
    cr_vec3 n;
    cr_mat3 H;
    *f = cr_v3(0, 0, 0);
    *lim = 0, *N_out = 0;
    *t_out = cr_v3(0, 0, 0), *gT_out = cr_v3(0, 0, 0);
    /* a plane's Hessian is 0 (obstacle.c): its terms below are skipped, not added as zeros (the
     * same sums: x + 0·y is x) */
    const int flat = o->type == CR_OBSTACLE_PLANE;
    if (!cr_obstacle_distance(o, r, &phi, &n, flat ? NULL : &H)) {
        *gap = INFINITY;
        return 0;
    }
    const double g = phi - c->radius[i], eps = c->eps * c->weight[i];
    *gap = g;
    /* N = 0 at the kink g = λ_N/ε counts as pressing (the semi-smooth Newton's choice of the
     * active branch there), and so does an anchored pair within the tolerance of touching
     * (force 0, the active branch's stiffness): what holds a rod laid on a surface, whose node
     * centres sit at the contact radius to round-off, at the first Newton iteration */
    double N = pr->lambda_n - eps * g;
    if (!(N >= 0)) {
        if (!(pr->anchored && pr->lambda_n == 0 && g <= c->tol)) return 0;
        N = 0;
    }
    /* dynamics: a dashpot in parallel, c_d = 2 sqrt(ε_i m_i) (critical for the node on its
     * spring), N = max(0, N − c_d n·v): it pushes, never pulls */
    const double cd = v && c->damping ? c->damping[i] : 0.0;
    cr_vec3 dN = cr_v3_scale(n, -eps); /* ∂N/∂r */
    if (cd > 0) {
        N -= cd * cr_v3_dot(n, *v);
        if (!(N > 0)) return 0; /* separating faster than the spring pushes */
        if (!flat) dN = cr_v3_madd(dN, -cd, cr_m3_mulv(H, *v));
        /* a turning obstacle's surface velocity depends on r: v_rel,l = Rᵀ (v − v_o − ω × (r − c(t)))
         * with r = c(t) + R (r_l − c), so ∂v_rel,l/∂r_l = −Rᵀ [ω×] R = −[(Rᵀω)×] */
        if (turned) dN = cr_v3_madd(dN, -cd, cr_v3_cross(cr_m3_tmulv(c->pose[k].R, c->pose[k].w), n));
        if (Kv) m3_add(Kv, -cd, outer(n, n));
    }
    *N_out = N;
    *f = cr_v3_scale(n, N);
    if (K) {
        m3_add(K, 1.0, outer(n, dN));
        if (!flat) m3_add(K, N, H);
    }
    /* the limit: μ_s, or μ_k for a pair sliding in a dynamic stage */
    const double mu = c->dynamic && pr->sliding ? o->mu_kinetic : o->mu_static;
    if (!(o->mu_static > 0) || !pr->anchored) return 1;
    /* the tangential stick spring from the anchor, at most μ N (cr_contact_stick_force); at the
     * contact point it measures the rod's material surface point there, r + A b (its offset b in
     * the node's basis, o = the same offset when anchored or re-based): d = r − X + (Rᵀ A b − o) */
    cr_vec3 d = cr_v3_sub(r, pr->anchor), arm = cr_v3(0, 0, 0);
    double Dp[3][4];
    if (rl) {
        arm = cr_m3_mulv(rl->Rt, cr_m3_mulv(rl->A, pr->body)); /* the material point's arm, Rᵀ A b */
        d = cr_v3_add(d, cr_v3_sub(arm, pr->offset));
        if (rl->jacobian) cr_q_exp_mulv_dp(rl->p, pr->body, Dp); /* ∂(A b)/∂p (I) */
    }
    const double L = mu * N;
    cr_vec3 ft, t;
    cr_mat3 Kt, G;
    const int slip = stick_force(n, flat ? NULL : &H, eps, L, cr_v3_scale(dN, mu), d, pr->lambda_t, &ft, K ? &Kt : NULL,
                                 &t, rl && rl->jacobian ? &G : NULL);
    *t_out = t, *gT_out = cr_v3_madd(d, -cr_v3_dot(n, d), n);
    *lim = L;
    *f = cr_v3_add(*f, ft);
    if (K) m3_add(K, 1.0, Kt);
    const int dashed = slip && Kv && cd > 0; /* ∂f_T/∂v: the dashpot's share of the limit while slipping */
    cr_mat3 ftv;
    if (dashed) ftv = outer(cr_v3_scale(t, -mu * cd / cr_v3_norm(t)), n), m3_add(Kv, 1.0, ftv);
    if (!rl) return 1;
    /* f_T acts at the material point that touched, A b from the centre: −a n at the anchoring and
     * after every re-base (the contact point c = r − a n), turning with the node in between. Its
     * moment (A b) × f_T is then exactly the moment of the stick spring's potential ½ ε |P d|²
     * while it sticks (a moment −a n × f_T with the arm fixed in space between re-bases would be a
     * dead moment on a turning node, not that gradient) */
    rl->active = 1;
    rl->m = cr_v3_cross(arm, ft);
    if (!rl->jacobian) return 1;
    const cr_mat3 GR = cr_m3_mul(G, rl->Rt), ax = cr_m3_skew(arm), fx = cr_m3_skew(ft); /* GR = ∂f_T/∂(A b) */
    double arm_p[3][4];                                                                 /* ∂(Rᵀ A b)/∂p */
    for (int row = 0; row < 3; ++row)
        for (int q = 0; q < 4; ++q)
            arm_p[row][q] = rl->Rt.m[row][0] * Dp[0][q] + rl->Rt.m[row][1] * Dp[1][q] + rl->Rt.m[row][2] * Dp[2][q];
    for (int row = 0; row < 3; ++row)
        for (int q = 0; q < 4; ++q)
            rl->f_p[row][q] = GR.m[row][0] * Dp[0][q] + GR.m[row][1] * Dp[1][q] + GR.m[row][2] * Dp[2][q];
    /* ∂(arm × f)/∂p = arm × ∂f/∂p − f × ∂arm/∂p */
    for (int row = 0; row < 3; ++row)
        for (int q = 0; q < 4; ++q)
            rl->m_p[row][q] = ax.m[row][0] * rl->f_p[0][q] + ax.m[row][1] * rl->f_p[1][q] +
                              ax.m[row][2] * rl->f_p[2][q] -
                              (fx.m[row][0] * arm_p[0][q] + fx.m[row][1] * arm_p[1][q] + fx.m[row][2] * arm_p[2][q]);
    rl->m_r = cr_m3_mul(ax, Kt);
    rl->m_v = dashed ? cr_m3_mul(ax, ftv) : cr_m3_zero();
    return 1;
}

/* The force of one pair (I), K += ∂f/∂r and Kv += ∂f/∂v (optional); *t_out and *gT_out stay in
 * the obstacle's frame (they become its multiplier and are measured there). A translating
 * obstacle's frame differs by a shift (∂/∂r unchanged); a turning one's by R = Exp(ω t):
 * f = R f_l, ∂f/∂r = R (∂f_l/∂r_l) Rᵀ. */
static int pair_force(const cr_contact *c, int i, int k, cr_vec3 r, const cr_vec3 *v, cr_vec3 *f, cr_mat3 *K,
                      cr_mat3 *Kv, double *gap, cr_vec3 *t_out, double *lim, double *N_out, cr_vec3 *gT_out,
                      roll_terms *rl)
{
    const cr_obstacle_def *o = &c->obstacles[k];
    const cr_obstacle_pose *ps = &c->pose[k];
    cr_vec3 vrel;
    if (rl) rl->active = 0;
    if (!turns(c, k)) {
        if (v) vrel = cr_v3_sub(*v, ps->v), v = &vrel;
        if (rl) rl->Rt = cr_m3_identity();
        return pair_force_local(c, i, k, local(c, k, r), v, f, K, Kv, gap, t_out, lim, N_out, gT_out, rl);
    }
    const cr_mat3 R = ps->R;
    const cr_mat3 Rt = cr_m3_transpose(R);
    if (v) vrel = cr_m3_tmulv(R, cr_v3_sub(*v, surface_velocity(o, ps, r))), v = &vrel;
    if (rl) rl->Rt = Rt;
    cr_mat3 Kl = cr_m3_zero(), Kvl = cr_m3_zero();
    cr_vec3 fl;
    const int on = pair_force_local(c, i, k, local(c, k, r), v, &fl, K ? &Kl : NULL, Kv ? &Kvl : NULL, gap, t_out, lim,
                                    N_out, gT_out, rl);
    *f = cr_m3_mulv(R, fl);
    if (K) m3_add(K, 1.0, cr_m3_mul(cr_m3_mul(R, Kl), Rt));
    if (Kv) m3_add(Kv, 1.0, cr_m3_mul(cr_m3_mul(R, Kvl), Rt));
    if (rl && rl->active) { /* the moment and its derivatives back in I (∂/∂p: f_p, m_p were in the frame) */
        rl->m = cr_m3_mulv(R, rl->m);
        if (rl->jacobian) {
            rl->m_r = cr_m3_mul(cr_m3_mul(R, rl->m_r), Rt);
            rl->m_v = cr_m3_mul(cr_m3_mul(R, rl->m_v), Rt);
            for (int q = 0; q < 4; ++q) {
                const cr_vec3 fp = cr_m3_mulv(R, cr_v3(rl->f_p[0][q], rl->f_p[1][q], rl->f_p[2][q]));
                const cr_vec3 mp = cr_m3_mulv(R, cr_v3(rl->m_p[0][q], rl->m_p[1][q], rl->m_p[2][q]));
                rl->f_p[0][q] = fp.x, rl->f_p[1][q] = fp.y, rl->f_p[2][q] = fp.z;
                rl->m_p[0][q] = mp.x, rl->m_p[1][q] = mp.y, rl->m_p[2][q] = mp.z;
            }
        }
    }
    return on;
}

/* pair_force for a plane that does not turn, friction at the centre (the Radau stages and
 * Jacobians of a rope lying on the ground: every node, every evaluation): the same
 * arithmetic in the same order as pair_force → pair_force_local → stick_force, with the Hessian's
 * terms (0 on a plane) and the outputs no one reads here left out, in one function. The results
 * are those of the general path to the bit (test_contact, test_plane_lean_path). Returns
 * 1 when pressing; f, K, Kv (optional) accumulate; *N_out (optional): the normal force, *t_out
 * (optional): the trial friction force of an anchored frictional pair. */
static int plane_force(const cr_contact *c, int i, int k, cr_vec3 r, const cr_vec3 *v, cr_vec3 *f, cr_mat3 *K,
                       cr_mat3 *Kv, double *N_out, cr_vec3 *t_out)
{
    const cr_obstacle_def *o = &c->obstacles[k];
    const cr_obstacle_pose *ps = &c->pose[k];
    const cr_contact_pair *pr = &c->pair[(size_t)i * c->obstacle_count + k];
    const cr_vec3 rl = local(c, k, r);
    /* cr_obstacle_distance's plane: xl = axesᵀ (x − centre), φ = xl.z inside its extents, n = axes e_z */
    const cr_vec3 xl = cr_m3_tmulv(o->axes, cr_v3_sub(rl, o->center));
    if (!(fabs(xl.x) <= o->half_extents.x && fabs(xl.y) <= o->half_extents.y) || !isfinite(xl.z)) return 0;
    const cr_vec3 n = cr_m3_mulv(o->axes, EZ_AXIS);
    const double g = xl.z - c->radius[i], eps = c->eps * c->weight[i];
    double N = pr->lambda_n - eps * g;
    if (!(N >= 0)) {
        if (!(pr->anchored && pr->lambda_n == 0 && g <= c->tol)) return 0;
        N = 0;
    }
    const double cd = v && c->damping ? c->damping[i] : 0.0;
    const cr_vec3 dN = cr_v3_scale(n, -eps);
    cr_vec3 vrel = cr_v3(0, 0, 0);
    if (v) vrel = cr_v3_sub(*v, ps->v);
    const cr_mat3 nn = outer(n, n);
    if (cd > 0) {
        N -= cd * cr_v3_dot(n, vrel);
        if (!(N > 0)) return 0;
        if (Kv) m3_add(Kv, -cd, nn);
    }
    const cr_vec3 fk = cr_v3_scale(n, N);
    if (N_out) *N_out = N;
    if (K) m3_add(K, 1.0, outer(n, dN));
    const double mu = c->dynamic && pr->sliding ? o->mu_kinetic : o->mu_static;
    if (!(o->mu_static > 0) || !pr->anchored) {
        *f = cr_v3_add(*f, fk);
        return 1;
    }
    /* stick_force without H */
    const cr_vec3 d = cr_v3_sub(rl, pr->anchor), lambda_t = pr->lambda_t;
    const double L = mu * N;
    const double dn = cr_v3_dot(n, d), ln = cr_v3_dot(n, lambda_t);
    const cr_vec3 t = cr_v3_madd(cr_v3_madd(lambda_t, -ln, n), -eps, cr_v3_madd(d, -dn, n));
    if (t_out) *t_out = t;
    cr_mat3 T = cr_m3_zero();
    if (K) m3_add(&T, -eps, cr_m3_identity()), m3_add(&T, eps, nn);
    const double tn = cr_v3_norm(t);
    cr_vec3 ft = t;
    const int slip = !(tn <= L);
    if (!slip) {
        if (K) m3_add(K, 1.0, T);
    } else {
        const cr_vec3 th = cr_v3_scale(t, 1.0 / tn);
        ft = cr_v3_scale(th, L);
        if (K) {
            cr_mat3 Pt = cr_m3_identity();
            m3_add(&Pt, -1.0, outer(th, th));
            cr_mat3 Kt = outer(th, cr_v3_scale(dN, mu));
            m3_add(&Kt, L / tn, cr_m3_mul(Pt, T));
            m3_add(K, 1.0, Kt);
        }
    }
    *f = cr_v3_add(*f, cr_v3_add(fk, ft));
    if (slip && Kv && cd > 0) m3_add(Kv, 1.0, outer(cr_v3_scale(t, -mu * cd / cr_v3_norm(t)), n));
    return 1;
}

void cr_contact_node_force(const cr_contact *c, int i, cr_vec3 r, cr_vec3 *f, cr_mat3 *K, cr_contact_info *info)
{
    cr_contact_node_force_v(c, i, r, NULL, f, K, NULL, info);
}

/* The pairs of node i summed: f, K, Kv (optional) as cr_contact_node_force_v; w (optional): the
 * contact-point friction's moment (I) and derivatives added (at the orientation p, A = Exp(p)). */
static void node_sum(const cr_contact *c, int i, cr_vec3 r, const cr_vec3 *v, cr_vec3 *f, cr_mat3 *K, cr_mat3 *Kv,
                     cr_contact_info *info, const cr_quat *p, const cr_mat3 *A, int jacobian, cr_contact_wrench *w)
{
    *f = cr_v3(0, 0, 0);
    if (K) *K = cr_m3_zero();
    if (Kv) *Kv = cr_m3_zero();
    cr_contact_info in = {0, 0, INFINITY, 0, 0};
    roll_terms rt, *rl = NULL;
    if (p) rt.p = *p, rt.A = *A, rt.jacobian = jacobian, rl = &rt;
    /* the stages' force and Jacobian at the centre: a plane that does not turn takes the lean path */
    const int lean = !info && !rl;
    for (int k = 0; k < c->obstacle_count; ++k) {
        if (lean && c->obstacles[k].type == CR_OBSTACLE_PLANE && !turns(c, k)) {
            plane_force(c, i, k, r, v, f, K, Kv, NULL, NULL);
            continue;
        }
        cr_vec3 fk, t, gT;
        double gap, lim, N;
        int on = pair_force(c, i, k, r, v, &fk, K, Kv, &gap, &t, &lim, &N, &gT, rl);
        *f = cr_v3_add(*f, fk);
        if (w && rl && rt.active) {
            w->m = cr_v3_add(w->m, rt.m);
            if (jacobian) {
                m3_add(&w->m_r, 1.0, rt.m_r);
                m3_add(&w->m_v, 1.0, rt.m_v);
                for (int a = 0; a < 3; ++a)
                    for (int q = 0; q < 4; ++q) w->f_p[a][q] += rt.f_p[a][q], w->m_p[a][q] += rt.m_p[a][q];
            }
        }
        if (!info) continue; /* the force alone (the Radau stages): no totals */
        in.gap = fmin(in.gap, gap);
        if (!on) continue;
        in.active++, in.normal += N;
        if (lim > 0) {
            double ratio = cr_v3_norm(t) / lim;
            in.ratio = fmax(in.ratio, fmin(ratio, 1.0));
            /* a pair sliding in a dynamic stage sits at |t| = μ_k N after each step (its anchor
             * trails it): its flag says it slides, also in the state a dynamic stage ended in */
            if (ratio > 1.0 || c->pair[(size_t)i * c->obstacle_count + k].sliding) in.slipping++;
        }
    }
    if (info) *info = in;
}

void cr_contact_node_force_v(const cr_contact *c, int i, cr_vec3 r, const cr_vec3 *v, cr_vec3 *f, cr_mat3 *K,
                             cr_mat3 *Kv, cr_contact_info *info)
{
    node_sum(c, i, r, v, f, K, Kv, info, NULL, NULL, 0, NULL);
}

void cr_contact_node_wrench(const cr_contact *c, int i, cr_vec3 r, cr_quat p, const cr_vec3 *v, cr_contact_wrench *w,
                            int jacobian, cr_contact_info *info)
{
    memset(w, 0, sizeof *w);
    if (c->quat_offset < 0) { /* friction at the centre: no moment, nothing depends on p */
        node_sum(c, i, r, v, &w->f, jacobian ? &w->f_r : NULL, jacobian && v ? &w->f_v : NULL, info, NULL, NULL, 0,
                 NULL);
        return;
    }
    const cr_mat3 A = cr_q_exp(p);
    node_sum(c, i, r, v, &w->f, jacobian ? &w->f_r : NULL, jacobian && v ? &w->f_v : NULL, info, &p, &A, jacobian, w);
    /* the moment rows are in the node's body basis: m_B = Aᵀ m, ∂m_B/∂p = ∂(Aᵀ m)/∂p|_m + Aᵀ ∂m/∂p */
    const cr_vec3 m = w->m;
    w->m = cr_m3_tmulv(A, m);
    if (!jacobian) return;
    const cr_mat3 At = cr_m3_transpose(A);
    w->m_r = cr_m3_mul(At, w->m_r);
    w->m_v = cr_m3_mul(At, w->m_v);
    double T[3][4], mp[3][4];
    cr_q_exp_tmulv_dp(p, m, T);
    for (int a = 0; a < 3; ++a)
        for (int q = 0; q < 4; ++q)
            mp[a][q] = T[a][q] + At.m[a][0] * w->m_p[0][q] + At.m[a][1] * w->m_p[1][q] + At.m[a][2] * w->m_p[2][q];
    for (int a = 0; a < 3; ++a)
        for (int q = 0; q < 4; ++q) w->m_p[a][q] = mp[a][q];
}

/* A node's basis in a state x (rows of 3 + quat_offset ... doubles at xi): NULL without rolling. */
static const cr_mat3 *node_basis(const cr_contact *c, const double *xi, cr_mat3 *A, cr_quat *p)
{
    if (c->quat_offset < 0) return NULL;
    *p = cr_q_load(xi + c->quat_offset);
    *A = cr_q_exp(*p);
    return A;
}

/* The material surface point of node i (basis A, NULL: the centre law) that touches obstacle k at
 * the normal n_l (its frame): offset o = −a n_l there, b = Aᵀ R o in the node's basis. */
static void set_material(const cr_contact *c, int i, int k, cr_contact_pair *pr, const cr_mat3 *A, cr_vec3 nl)
{
    if (!A) {
        pr->body = pr->offset = cr_v3(0, 0, 0);
        return;
    }
    pr->offset = cr_v3_scale(nl, -c->radius[i]);
    const cr_vec3 oI = turns(c, k) ? cr_m3_mulv(c->pose[k].R, pr->offset) : pr->offset;
    pr->body = cr_m3_tmulv(*A, oI);
}

/* The anchor re-based at the current contact point, the stored elastic slip carried over (the
 * force unchanged): X ← X − (Rᵀ A b − o), then b, o at the current normal. Without it a rod
 * rolling by φ would accumulate the material point's chord error a (φ − sin φ) and brake. */
static void rebase(const cr_contact *c, int i, int k, cr_contact_pair *pr, const cr_mat3 *A, cr_vec3 rl)
{
    double phi;
    cr_vec3 n;
    if (!A || !cr_obstacle_distance(&c->obstacles[k], rl, &phi, &n, NULL)) return;
    const cr_vec3 Ab = cr_m3_mulv(*A, pr->body);
    pr->anchor = cr_v3_sub(pr->anchor, cr_v3_sub(turns(c, k) ? cr_m3_tmulv(c->pose[k].R, Ab) : Ab, pr->offset));
    set_material(c, i, k, pr, A, n);
}

/* pair_force at a state's node: with its orientation when the contact has them */
static int pair_force_at(const cr_contact *c, int i, int k, const double *xi, const cr_mat3 *A, cr_quat p, cr_vec3 *f,
                         double *gap, cr_vec3 *t, double *lim, double *N, cr_vec3 *gT)
{
    roll_terms rt;
    if (A) rt.p = p, rt.A = *A, rt.jacobian = 0;
    return pair_force(c, i, k, cr_v3_load(xi), NULL, f, NULL, NULL, gap, t, lim, N, gT, A ? &rt : NULL);
}

/* cr_contact_begin; keep_sliding: a dynamic stage after another keeps the sliding flags (a node
 * sliding at the boundary slides on at μ_k N: re-sticking it there made a cord dragged at 1.5 μ_s m g
 * lag its single-stage run by 1.1e-5 m 0.04 s after the boundary; tests/stage_anchors.sh) */
static void begin(cr_contact *c, const double *x, int stride, int keep_sliding)
{
    for (int i = 0; i < c->nodes; ++i) {
        const cr_vec3 r = cr_v3_load(x + (size_t)i * stride);
        cr_mat3 Ab;
        cr_quat p;
        const cr_mat3 *A = node_basis(c, x + (size_t)i * stride, &Ab, &p);
        for (int k = 0; k < c->obstacle_count; ++k) {
            cr_contact_pair *pr = &c->pair[(size_t)i * c->obstacle_count + k];
            double phi;
            cr_vec3 n;
            const cr_vec3 rl = local(c, k, r);
            if (!keep_sliding) pr->sliding = 0; /* what a dynamic stage before left: statics slides by the trial force */
            if (pr->anchored || !cr_obstacle_distance(&c->obstacles[k], rl, &phi, &n, NULL)) continue;
            if (phi - c->radius[i] <= c->tol) {
                pr->anchored = 1, pr->sliding = 0, pr->anchor = rl, pr->lambda_t = cr_v3(0, 0, 0);
                set_material(c, i, k, pr, A, n);
            }
        }
    }
}

void cr_contact_begin(cr_contact *c, const double *x, int stride) { begin(c, x, stride, 0); }

/* One pass over the pairs: the convergence test, and with apply the updates. */
static int update_pass(cr_contact *c, const double *x, int stride, double *penetration, double *drift, int apply);

int cr_contact_update(cr_contact *c, const double *x, int stride, double *penetration, double *drift)
{
    /* a converged state keeps its multipliers: the forces at x are then the equilibrium's */
    if (update_pass(c, x, stride, penetration, drift, 0)) return 1;
    update_pass(c, x, stride, penetration, drift, 1);
    return 0;
}

static int update_pass(cr_contact *c, const double *x, int stride, double *penetration, double *drift, int apply)
{
    int converged = 1;
    double pen = 0, dr = 0;
    for (int i = 0; i < c->nodes; ++i) {
        const cr_vec3 r = cr_v3_load(x + (size_t)i * stride);
        cr_mat3 Ab;
        cr_quat p;
        const cr_mat3 *A = node_basis(c, x + (size_t)i * stride, &Ab, &p);
        for (int k = 0; k < c->obstacle_count; ++k) {
            cr_contact_pair *pr = &c->pair[(size_t)i * c->obstacle_count + k], scratch = *pr;
            if (!apply) pr = &scratch; /* the test alone: pair_force reads the real one */
            cr_vec3 f, t, gT;
            double gap, lim, N;
            int on = pair_force_at(c, i, k, x + (size_t)i * stride, A, p, &f, &gap, &t, &lim, &N, &gT);
            if (!on) {
                if (pr->anchored || pr->lambda_n != 0) converged = 0;
                pr->lambda_n = 0, pr->lambda_t = cr_v3(0, 0, 0), pr->anchored = 0;
                continue;
            }
            pen = fmax(pen, -gap);
            pr->lambda_n = N;
            if (!(c->obstacles[k].mu_static > 0)) continue;
            if (!pr->anchored) { /* a new contact: friction from here on */
                pr->anchored = 1, pr->anchor = local(c, k, r), pr->lambda_t = cr_v3(0, 0, 0);
                pr->body = pr->offset = cr_v3(0, 0, 0);
                rebase(c, i, k, pr, A, pr->anchor);
                converged = 0;
                continue;
            }
            dr = fmax(dr, cr_v3_norm(gT));
            rebase(c, i, k, pr, A, local(c, k, r)); /* at the contact point it has rolled to */
            const double tn = cr_v3_norm(t);
            if (tn <= lim) {
                pr->lambda_t = t;
            } else { /* sliding: the force at the limit, the anchor where the node got to */
                pr->lambda_t = cr_v3_scale(t, lim / tn);
                pr->anchor = local(c, k, r);
            }
        }
    }
    if (pen > c->tol || dr > c->tol) converged = 0;
    if (penetration) *penetration = pen;
    if (drift) *drift = dr;
    return converged;
}

void cr_contact_totals_at(const cr_contact *c, const double *x, int stride, cr_contact_totals *t)
{
    memset(t, 0, sizeof *t);
    t->first_slip = c->nodes, t->last_slip = -1;
    for (int i = 0; i < c->nodes; ++i) {
        cr_vec3 f;
        cr_contact_info in;
        cr_mat3 Ab;
        cr_quat p;
        const cr_mat3 *A = node_basis(c, x + (size_t)i * stride, &Ab, &p);
        node_sum(c, i, cr_v3_load(x + (size_t)i * stride), NULL, &f, NULL, NULL, &in, A ? &p : NULL, A, 0, NULL);
        if (!in.active) continue;
        t->active += in.active, t->slipping += in.slipping, t->normal += in.normal;
        if (-in.gap > t->penetration) t->penetration = -in.gap, t->worst_node = i;
        if (in.ratio > t->worst_ratio) t->worst_ratio = in.ratio;
        if (in.slipping) {
            if (i < t->first_slip) t->first_slip = i;
            t->last_slip = i;
        }
    }
}

void cr_contact_dynamic_begin(cr_contact *c, const double *y, int stride)
{
    /* (after a static stage every flag is 0: its begin cleared them and statics sets none) */
    begin(c, y, stride, 1);
    for (int i = 0; i < c->nodes; ++i) {
        const cr_vec3 r = cr_v3_load(y + (size_t)i * stride);
        for (int k = 0; k < c->obstacle_count; ++k) {
            cr_contact_pair *pr = &c->pair[(size_t)i * c->obstacle_count + k];
            double phi;
            cr_vec3 n;
            /* λ_N kept: the preload of the static equilibrium while the pair touches */
            if (pr->anchored && cr_obstacle_distance(&c->obstacles[k], local(c, k, r), &phi, &n, NULL)) {
                /* t = P λ_T − ε P (r − X) = −ε P (r − X') with X' = X + P λ_T/ε */
                cr_vec3 lt = cr_v3_madd(pr->lambda_t, -cr_v3_dot(n, pr->lambda_t), n);
                pr->anchor = cr_v3_madd(pr->anchor, 1.0 / (c->eps * c->weight[i]), lt);
            }
            pr->lambda_t = cr_v3(0, 0, 0);
        }
    }
    c->dynamic = 1;
}

void cr_contact_dynamic_step(cr_contact *c, const double *y, int stride)
{
    for (int i = 0; i < c->nodes; ++i) {
        const cr_vec3 r = cr_v3_load(y + (size_t)i * stride);
        const double eps = c->eps * c->weight[i];
        cr_mat3 Ab;
        cr_quat p;
        const cr_mat3 *A = node_basis(c, y + (size_t)i * stride, &Ab, &p);
        for (int k = 0; k < c->obstacle_count; ++k) {
            cr_contact_pair *pr = &c->pair[(size_t)i * c->obstacle_count + k];
            const cr_obstacle_def *o = &c->obstacles[k];
            cr_vec3 f = cr_v3(0, 0, 0), t, gT;
            double gap, lim, N;
            /* the centre law on a plane that does not turn: the lean path's N and t (the same) */
            int on = !A && o->type == CR_OBSTACLE_PLANE && !turns(c, k)
                         ? plane_force(c, i, k, r, NULL, &f, NULL, NULL, &N, &t)
                         : pair_force_at(c, i, k, y + (size_t)i * stride, A, p, &f, &gap, &t, &lim, &N, &gT);
            if (!on) { /* lifted off: released, and its preload with it */
                pr->anchored = 0, pr->sliding = 0, pr->lambda_n = 0;
                continue;
            }
            if (!(o->mu_static > 0)) continue;
            const cr_vec3 rl = local(c, k, r);
            if (!pr->anchored) { /* touched in this step: sticks from here (a continuous force: 0) */
                pr->anchored = 1, pr->sliding = 0, pr->anchor = rl;
                pr->body = pr->offset = cr_v3(0, 0, 0);
                rebase(c, i, k, pr, A, rl);
                continue;
            }
            rebase(c, i, k, pr, A, rl); /* the anchor at the contact point the rod has rolled to */
            const double tn = cr_v3_norm(t), Nk = o->mu_kinetic * N;
            if (!pr->sliding && tn > o->mu_static * N)
                pr->sliding = 1;               /* broke loose */
            else if (pr->sliding && tn < Nk) { /* came to rest: sticks */
                pr->sliding = 0;
                continue;
            }
            if (pr->sliding && tn > 0) { /* the anchor trails the node: |t| = μ_k N, along t */
                cr_vec3 th = cr_v3_scale(t, 1.0 / tn);
                double phi;
                cr_vec3 n;
                cr_obstacle_distance(o, rl, &phi, &n, NULL);
                pr->anchor = cr_v3_madd(cr_v3_madd(rl, -cr_v3_dot(n, cr_v3_sub(rl, pr->anchor)), n), Nk / eps, th);
            }
        }
    }
}

/* the sliding flags stay: the final state reports them (a pair at the kinetic limit is not
 * above the static one), an interrupted stage's checkpoint is packed after its end, a next
 * dynamic stage slides on with them and a static stage's begin clears them */
void cr_contact_dynamic_end(cr_contact *c) { c->dynamic = 0; }

void cr_contact_dynamic_resume(cr_contact *c) { c->dynamic = 1; }

enum { PAIR_DOUBLES = 15 }; /* λ_N, λ_T, anchor, anchored, sliding, body, offset */

int cr_contact_packed_size(const cr_contact *c) { return c ? c->nodes * c->obstacle_count * PAIR_DOUBLES : 0; }

void cr_contact_pack(const cr_contact *c, double *out)
{
    for (int k = 0; c && k < c->nodes * c->obstacle_count; ++k, out += PAIR_DOUBLES) {
        const cr_contact_pair *p = &c->pair[k];
        out[0] = p->lambda_n;
        cr_v3_store(p->lambda_t, out + 1);
        cr_v3_store(p->anchor, out + 4);
        out[7] = p->anchored, out[8] = p->sliding;
        cr_v3_store(p->body, out + 9);
        cr_v3_store(p->offset, out + 12);
    }
}

void cr_contact_unpack(cr_contact *c, const double *in)
{
    for (int k = 0; c && k < c->nodes * c->obstacle_count; ++k, in += PAIR_DOUBLES) {
        cr_contact_pair *p = &c->pair[k];
        p->lambda_n = in[0];
        p->lambda_t = cr_v3_load(in + 1);
        p->anchor = cr_v3_load(in + 4);
        p->anchored = in[7] != 0, p->sliding = in[8] != 0;
        p->body = cr_v3_load(in + 9);
        p->offset = cr_v3_load(in + 12);
    }
}

static unsigned long long fnv(unsigned long long h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

unsigned long long cr_contact_hash(const cr_contact *c, unsigned long long h)
{
    if (!c) return h;
    /* field by field: the structs have padding and the names bytes past their end */
    int head[4] = {c->nodes, c->obstacle_count, c->max_updates, c->quat_offset};
    double opt[2] = {c->eps, c->tol};
    h = fnv(h, head, sizeof head);
    h = fnv(h, opt, sizeof opt);
    h = fnv(h, c->radius, (size_t)c->nodes * sizeof *c->radius);
    h = fnv(h, c->weight, (size_t)c->nodes * sizeof *c->weight);
    for (int k = 0; k < c->obstacle_count; ++k) {
        const cr_obstacle_def *o = &c->obstacles[k];
        int type = (int)o->type;
        double v[13] = {o->radius,
                        o->length,
                        o->mu_static,
                        o->mu_kinetic,
                        o->velocity.x,
                        o->velocity.y,
                        o->velocity.z,
                        o->acceleration.x,
                        o->acceleration.y,
                        o->acceleration.z,
                        o->angular_velocity.x,
                        o->angular_velocity.y,
                        o->angular_velocity.z};
        h = fnv(h, &type, sizeof type);
        h = fnv(h, &o->center, sizeof o->center);
        h = fnv(h, &o->axes, sizeof o->axes);
        h = fnv(h, &o->half_extents, sizeof o->half_extents);
        h = fnv(h, v, sizeof v);
        h = cr_obstacle_path_hash(&c->path[k], h);
    }
    return h;
}

cr_status cr_contact_check_start(const cr_contact *c, cr_vec3 (*position)(const void *user, int node), const void *user,
                                 const double *s, cr_error *err)
{
    double worst = 0;
    int wi = -1, wk = -1;
    for (int i = 0; i < c->nodes; ++i)
        for (int k = 0; k < c->obstacle_count; ++k) {
            double phi;
            /* where the obstacle is at the contact's time (0 when created: a table's first pose) */
            if (!cr_obstacle_distance(&c->obstacles[k], local(c, k, position(user, i)), &phi, NULL, NULL)) continue;
            if (c->radius[i] - phi > worst) worst = c->radius[i] - phi, wi = i, wk = k;
        }
    if (wi < 0 || worst <= c->tol) return CR_OK;
    return cr_error_set(err, CR_BAD_INPUT,
                        "obstacles.%d: the rod starts inside obstacle \"%s\": node %d (s = %.6g m) is %.6g m deep "
                        "(its contact radius %.6g m included; tolerance %.3g m); move the rod or the obstacle",
                        wk, c->obstacles[wk].name, wi, s[wi], worst, c->radius[wi], c->tol);
}

double cr_contact_step_limit(const cr_contact *c, double t, const double *y, int stride, int v_offset)
{
    double limit = INFINITY;
    for (int k = 0; k < c->obstacle_count; ++k) {
        const cr_obstacle_def *o = &c->obstacles[k];
        const double thick = cr_obstacle_thickness(o);
        if (!isfinite(thick)) continue;
        cr_obstacle_pose ps;
        cr_obstacle_path_at(&c->path[k], t, &ps);
        for (int i = 0; i < c->nodes; ++i) {
            const double *p = y + (size_t)i * stride;
            const cr_vec3 r = cr_v3_load(p);
            double phi;
            if (!cr_obstacle_distance(o, local_at(o, &ps, r), &phi, NULL, NULL)) continue;
            /* the full relative speed, not only its normal part: a node passing a small sphere
             * sideways must not skip it either */
            const double v = cr_v3_norm(cr_v3_sub(cr_v3_load(p + v_offset), surface_velocity(o, &ps, r)));
            const double room = phi + thick;
            if (room > 0 && v * limit > 0.5 * room) limit = 0.5 * room / v;
        }
    }
    /* a driven obstacle's speed changes within the step, and a table may start moving later (at
     * rest until then, the speeds above all 0): the limit again with the largest speed the
     * obstacle reaches within the step so limited (within the rest of its motion when unlimited),
     * a point of it at the node's distance from its centre moving at most at v + ω ρ */
    for (int k = 0; k < c->obstacle_count; ++k) {
        const cr_obstacle_def *o = &c->obstacles[k];
        const double thick = cr_obstacle_thickness(o);
        if (!isfinite(thick) || c->path[k].kind == CR_PATH_RATES || !c->path[k].moves) continue;
        cr_obstacle_pose ps;
        cr_obstacle_path_at(&c->path[k], t, &ps);
        double vo, wo;
        cr_obstacle_path_speed(&c->path[k], t, t + limit, &vo, &wo);
        if (!(vo > 0 || wo > 0)) continue;
        const cr_vec3 centre = cr_v3_add(o->center, ps.shift);
        for (int i = 0; i < c->nodes; ++i) {
            const double *p = y + (size_t)i * stride;
            const cr_vec3 r = cr_v3_load(p);
            double phi;
            if (!cr_obstacle_distance(o, local_at(o, &ps, r), &phi, NULL, NULL)) continue;
            const double v = cr_v3_norm(cr_v3_load(p + v_offset)) + vo + wo * cr_v3_norm(cr_v3_sub(r, centre));
            const double room = phi + thick;
            if (room > 0 && v * limit > 0.5 * room) limit = 0.5 * room / v;
        }
    }
    return limit;
}

int cr_contact_stick_force(cr_vec3 n, const cr_mat3 *H, double eps, double limit, cr_vec3 dlimit, cr_vec3 d,
                           cr_vec3 lambda_t, cr_vec3 *f, cr_mat3 *K, cr_vec3 *t_out)
{
    return stick_force(n, H, eps, limit, dlimit, d, lambda_t, f, K, t_out, NULL);
}

/* cr_contact_stick_force with G = ∂f/∂d (optional) for a slip measure d that also depends on other
 * unknowns (the rod's orientation: friction at the contact point) */
static int stick_force(cr_vec3 n, const cr_mat3 *H, double eps, double limit, cr_vec3 dlimit, cr_vec3 d,
                       cr_vec3 lambda_t, cr_vec3 *f, cr_mat3 *K, cr_vec3 *t_out, cr_mat3 *G)
{
    const double dn = cr_v3_dot(n, d), ln = cr_v3_dot(n, lambda_t);
    const cr_vec3 t = cr_v3_madd(cr_v3_madd(lambda_t, -ln, n), -eps, cr_v3_madd(d, -dn, n));
    if (t_out) *t_out = t;
    /* T = ∂t/∂r = −(n (Hλ)ᵀ + (n·λ) H) − ε (P − (n·d) H − n (Hd)ᵀ); without H (a plane) its terms
     * are left out rather than added as zeros (the same T: T starts at +0, and x + 0 is x) */
    cr_mat3 T = cr_m3_zero();
    if (K && H) {
        const cr_vec3 Hd = cr_m3_mulv(*H, d), Hl = cr_m3_mulv(*H, lambda_t);
        m3_add(&T, -1.0, outer(n, Hl));
        m3_add(&T, -ln, *H);
        m3_add(&T, -eps, cr_m3_identity());
        m3_add(&T, eps, outer(n, n));
        m3_add(&T, eps * dn, *H);
        m3_add(&T, eps, outer(n, Hd));
    } else if (K) {
        m3_add(&T, -eps, cr_m3_identity());
        m3_add(&T, eps, outer(n, n));
    }
    const double tn = cr_v3_norm(t);
    cr_mat3 P; /* ∂t/∂d = −ε P (G only) */
    if (G) P = cr_m3_identity(), m3_add(&P, -1.0, outer(n, n));
    if (tn <= limit) { /* stick */
        *f = t;
        if (K) *K = T;
        if (G) *G = cr_m3_zero(), m3_add(G, -eps, P);
        return 0;
    }
    const cr_vec3 th = cr_v3_scale(t, 1.0 / tn); /* slip at the limit */
    *f = cr_v3_scale(th, limit);
    if (K || G) {
        cr_mat3 Pt = cr_m3_identity();
        m3_add(&Pt, -1.0, outer(th, th));
        if (K) {
            *K = outer(th, dlimit);
            m3_add(K, limit / tn, cr_m3_mul(Pt, T));
        }
        if (G) *G = cr_m3_zero(), m3_add(G, -eps * limit / tn, cr_m3_mul(Pt, P));
    }
    return 1;
}
