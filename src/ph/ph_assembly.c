/* Assemblies of port-Hamiltonian director rods: weld, ball, hinge, prismatic, cylindrical and
 * universal joints as constraints that are linear or quadratic in the rods' coordinates, solved
 * with Lagrange multipliers coupled to every rod's own Newton system (docs/port-hamiltonian.md,
 * "Assemblies").
 *
 * The joint rows. A joint holds D_a q_a = D_b q_b between the coordinates q = (phi, d1, d2, d3) of
 * its two nodes, with constant matrices D over a step (built from the state at t_n):
 *   ball   phi_a = phi_b (3 rows);
 *   weld   the ball's rows and 1/2 sum_i e_i x (d_i,a - sum_j W_ij d_j,b) = 0 (3 rows), W_ij the
 *          reference's d_i,a . d_j,b (so d_i,a = sum_j W_ij d_j,b whenever the weld holds) and
 *          e_i = d_i,a at t_n: with orthonormal directors these three rows give the whole weld
 *          (1/2 sum e_i x (Q e_i) = sin(angle) axis of a rotation Q vanishes only for Q = I near
 *          it), where the nine linear rows d_i,a = sum W_ij d_j,b would be six times redundant;
 *   hinge  the ball's rows and p_k . (u_a - u_b) = 0, k = 1, 2, for the axis u_a = sum ha_i d_i,a
 *          and u_b = sum hb_j d_j,b (the same material line, hb_j = u_ref . d_j,b,ref) and p_1,
 *          p_2 normal to u_a at t_n (two rows: |u_a| = |u_b| = 1 leaves two);
 *   prismatic  the weld's three rotation rows (no position rows) and two coupled rows;
 *   cylindrical  the hinge's two axis rows (no position rows) and two coupled rows;
 *   universal  the ball's rows and one coupled row.
 * The coupled rows g(q_a, q_b) = 0 join both nodes and are bilinear in their coordinates (not
 * linear with constant matrices: what a slider or a universal joint holds is a product of a
 * position or direction of one node and a direction of the other):
 *   slider (prismatic, cylindrical)  g_k = n_k . (phi_b - phi_a), k = 1, 2, n_k = sum_i us_ki d_i,a
 *          the two normals of the axis fixed to a (as the mixed rod's u1, u2): b's node stays on
 *          the axis through a's, free to slide along it;
 *   universal  g = h_a . h_b, h_a = sum_i ua_i d_i,a (the axis), h_b = sum_j vb_j d_j,b (axis_b,
 *          fixed to b): the two axes stay normal, the relative turn about h_a x h_b is held.
 * Their forces are G(q_{n+1/2})^T nu (G = dg/dq at the midpoint) and their rows g(q_{n+1}) = 0. A
 * quadratic function has its midpoint gradient as an exact discrete gradient, g(q_{n+1}) - g(q_n)
 * = G(q_{n+1/2}) (q_{n+1} - q_n) (the mean value property of the PH paper's section 4.2, the one
 * that keeps the rod's own orthonormality constraints exact), so with g = 0 at t_n and t_{n+1} the
 * forces do no work, nu . G (q_{n+1} - q_n) = 0; and each g is invariant under rigid translations
 * and rotations of both nodes, so its gradient at any configuration, q_{n+1/2} included, has no net
 * force and no net moment (momenta exact). The Newton matrix of these terms: G(q_{n+1}) in the
 * rows, gam nu d2g/dq2 (gam = 1/2, statics 1) in the momentum rows, whose own-node part goes into
 * the rod's matrix and whose cross-node part sum nu d2g/dq_a dq_b = L_a^T L_b (rank 3 or 6) into the
 * dense system through the auxiliary unknowns xi = L_b dq_b, zeta = L_a dq_a: the Newton matrix
 * stays exact (quadratic convergence) while every rod keeps its own factorization. The coupled
 * rows are augmented in the Newton matrix only (a rod held in some direction only by them, an arm
 * on a driven hinge in statics, has no factorization of its own otherwise): rho G(q_{n+1/2})^T
 * G(q_{n+1}) added to the matrix, its own-node part into the rod's and its cross part through the
 * auxiliary unknowns wa = G_a dq_a, wb = G_b dq_b, changes the solution of the linear system only
 * by nu's increment, which is dnu + rho g (from G dq = -g): newton shifts it back, so the Newton
 * step is the exact one. A drive (a hinge's or cylindrical joint's motor) is a dot row
 * h_a(theta) . t_b = sin(phi - theta) (drive_ua); its forces do the motor's work (drive_work). A
 * slider drive (prismatic, cylindrical) is a third slider row t_a . (phi_b - phi_a) - x = 0, t_a =
 * sum_i ha_i d_i,a the axis fixed to a: bilinear as the other two, its midpoint gradient exact, so
 * its forces do the work nu (S(q_{n+1}) - S(q_n)), S = t_a . (phi_b - phi_a), = nu (x_{n+1} - x_n)
 * with the row held at both ends (drive_work).
 * Springs, dampers and stops (a hinge's or cylindrical joint's turn, a prismatic or cylindrical
 * joint's slide) reuse the drive's rows with the measure v an unknown of the Newton iteration
 * (theta_{n+1} in h_a(theta) . t_b = sin(phi - theta), or x_{n+1} in the third slider row), held at
 * t_{n+1} as a motor's, plus one scalar equation per spring that sets the row's multiplier: the
 * row's force does the work nu sin(theta_{n+1} - theta_n) (a motor's, drive_work, with the row held
 * at both ends; the slide's nu (x_{n+1} - x_n)), and the equation makes that work
 * -(E(v_{n+1}) - E(v_n)) - c (v_{n+1} - v_n)^2 / h: nu sinc(dv) + Ed + c dv / h = 0 with the discrete
 * gradient Ed = (E(v_{n+1}) - E(v_n)) / (v_{n+1} - v_n) (sp_Ed: the midpoint's k (v_mid - rest) for
 * the quadratic spring, exact for the piecewise-quadratic stop and the wrapped spring). So the
 * step's balance holds with E in H and the damper's c dv^2 / h in D, the rows stay invariant
 * under rigid motions (momenta as without the spring), and v is the turn unwrapped, followed
 * through any number of turns. Statics: nu + E'(v) = 0 (the stop as its penalty). In the dense
 * system v's unknown follows the block (sp_unknown): its column on the rods (the row's and the
 * forces' theta-derivative, and the augmentation's) and its equation's row.
 * Why this keeps the midpoint rule's properties exactly: the rows are linear with constant
 * matrices and hold at t_n and t_{n+1}, so the joint forces D^T mu do no work over the step,
 * mu . (D_a (q_a1 - q_a0) - D_b (q_b1 - q_b0)) = 0 (the discrete energy balance of every rod
 * sums to the assembly's with no joint term), and they are equal and opposite on coincident
 * points and directions (phi_a = phi_b, u_a = u_b, d_a = W d_b at t_{n+1/2}), so they add no
 * net force and no net moment (linear and angular momentum stay exact).
 *
 * Why multipliers and not shared coordinates: welding two kernels' nodes into one would mean a
 * new kernel topology (the node-block fronts of ph_direct.c and the band of ph_linear.c assume
 * one chain); with multipliers every rod keeps its own factorization, used as a black box
 * (ph_assemble + ph_linear_factor + ph_linear_apply: the full Newton system, multipliers of the
 * orthonormality constraints included, solved for any right side), and the joints couple the
 * rods through a small dense system: O(n) per rod plus O(k^3) for k joint rows.
 *
 * Why the interface values z and the augmentation. A rod held only by joints (a free rod welded
 * to a clamped one) has a singular static Jacobian of its own: the black-box solve of a
 * multiplier (dual Schur) method would fail on it. Each side is instead held to an interface
 * value, D_s q_s = z (both sides of a joint share z), with its own multiplier (mu on a, -mu on b:
 * the joint's balance), and its momentum rows carry the augmented-Lagrangian term
 * rho D_s^T (D_s q_s - z), which vanishes at the solution (the equations and the solution are
 * unchanged) but adds rho D_s^T D_s to the rod's Jacobian: the node is anchored to z like a
 * spring, and the rod's own factorization exists whenever the joint holds it. The small system
 * is in (dmu, dz), 2 k unknowns, and (dnu, xi, zeta) of each coupled block, built as columns (a
 * rod's right side at a node times a combination of the unknowns) and rows (a dense row reading a
 * node's increment) so that every joint type goes through the same Schur complement. */
#include "ph/ph_assembly.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A spring, damper and stop on one free direction of a joint: its measure v (the turn theta about
   the axis, unwrapped, rad; or the slide x, m) at t_n (v0) and at the iterate (v1, an unknown of
   the Newton iteration). */
typedef struct ph_spring {
    int on, rot;       /* present; on the turn (the spring on the wrapped angle) */
    double k, c, rest; /* spring, damper, rest (rest0 times the rest factor) */
    double rest0;
    int lim; /* a stop: penalty klim on the penetration beyond [lo, hi] (v unwrapped) */
    double lo, hi, klim;
    double v0, v1;
} ph_spring;

typedef struct ph_joint {
    cr_joint_type type;
    int rod[2], node[2];
    int k;               /* separable rows: 3 ball, 5 hinge, 6 weld, 3 prismatic, 2 cylindrical, 3 universal */
    int np;              /* the position rows phi_a = phi_b among them (first): 3, or 0 for a slider */
    int row0;            /* first row in mu and z */
    double W[9];         /* weld, prismatic: d_i,a = sum_j W[3 i + j] d_j,b */
    double ha[3], hb[3]; /* hinge, cylindrical: the axis' components in a's and b's directors */
    double D[2][6][12];  /* the rows of side a and side b (constant over a step) */
    double rho[2][6];    /* augmentation per side and row, divided by fac */
    /* the coupled rows g(q_a, q_b) = 0 (module comment): kc of them, multipliers nu at c0, and in
       the dense system the block [nu (kc), xi (6), zeta (6), wa (kc), wb (kc)] from u0 */
    int kc, c0, u0;
    double us[2][3];     /* slider, drive: the axis' normals u1, u2 in a's directors (n_k = sum_i us[k][i] d_i,a) */
    double ua[3], vb[3]; /* the dot row: universal h_a = sum ua_i d_i,a; h_b = sum vb_j d_j,b (a drive's: u1) */
    int drive;           /* a hinge's or cylindrical joint's motor: the last coupled row */
    int slide;           /* ... a slider drive (the third slider row, along ha) instead of an angle's */
    double th0, th1;     /* its angle (a slider drive's position) at t_n and t_{n+1} (statics: th1) */
    double rhoc[4];      /* the coupled rows' augmentation, divided by fac (set_rho) */
    /* springs, dampers and stops (module comment): sp[0] on the turn about the axis (the dot row
       with its angle an unknown), sp[1] on the slide along it (the third slider row, its position
       an unknown); the unknowns at u0 + 3 kc + 12 (+1 for the slide's when both) */
    ph_spring sp[2];
    int ns;
    /* at the iterate: g(q_{n+1}), its gradients at q_{n+1} (rows) and at q_{n+1/2} (forces), the
       factors L_a, L_b of the cross Hessian sum_m nu_m d2 g_m / dq_a dq_b = L_a^T L_b; a rotation
       spring's dg/dtheta_{n+1} of its row and d G(q_{n+1/2}) / dtheta_{n+1} of its forces */
    double gc[4], Gr[2][4][12], Gf[2][4][12], L[2][6][12], gth, Gth[2][12];
} ph_joint;

/* A column of the dense system on one rod: the rod's residual changes by v (at its node) times
   sum coef[t] du[idx[t]] for the dense unknowns du; a row: the dense row `row` reads C . dq_node. */
typedef struct ph_col {
    int rod, node, n, idx[2];
    double coef[2], v[12];
} ph_col;
typedef struct ph_row {
    int rod, node, row;
    double C[12];
} ph_row;

struct cr_ph_asm {
    int nrod, njoint, K;
    int KC, N;              /* coupled rows; unknowns of the dense system (2 K + their blocks) */
    int mode;               /* PH_DYNAMIC or PH_STATIC of the solve in progress */
    int ndrive;             /* driven joints */
    int nspring, nlimit;    /* joints with a spring, damper or stop; with a stop */
    double h;               /* the step in progress (dynamics) */
    double rest_f;          /* the springs' rest factor (cr_ph_asm_set_rest_factor) */
    double ejoint, ejoint_prev; /* the springs' and stops' energy in the state, before the last step */
    double djoint, djoint_last; /* the dampers' dissipation, cumulative and of the last step */
    double work_drive;      /* the motors' work, cumulative over the steps (J) */
    double work_drive_last; /* ... of the last step */
    cr_ph **rod;
    ph_joint *j;
    double *mu, *z;           /* K each: the joints' multipliers (on side a) and interface values */
    double *nu, *nu_save;     /* KC: the coupled rows' multipliers */
    double *mu_save, *z_save; /* restored when a solve fails */
    double *A, *rhs, *cscale; /* N x N dense system, its right side, its column scaling */
    int *piv;
    ph_col *col;
    ph_row *row;
    int ncol, nrow;
    double *Y;    /* max nx: the right side of a rod's solve */
    double *cols; /* max nred x (columns on a rod): the reduced joint columns of a rod */
    int *ipiv1;   /* max nred: the band factor's pivots, 1-based for LAPACK */
    double *dX0;  /* sum nx: each rod's increment without joint corrections */
    size_t *xoff; /* rod -> offset in dX0 */
};

static inline void skew_row(const double *e, int c, double out[3]) /* row c of [e]_x (e x v = [e]_x v) */
{
    const double M[3][3] = {{0, -e[2], e[1]}, {e[2], 0, -e[0]}, {-e[1], e[0], 0}};
    memcpy(out, M[c], sizeof(double) * 3);
}

/* the element and local node (0, 1, 2) whose Ke diagonal block is FE node I's */
static void node_block(const cr_ph *s, int I, int *e, int *a)
{
    if (I == s->nn - 1)
        *e = s->ne - 1, *a = 2;
    else if (I % 2 == 0)
        *e = I / 2, *a = 0;
    else
        *e = (I - 1) / 2, *a = 1;
}

/* the rows D of both sides from the state at t_n (module comment) */
static void rows_begin(cr_ph_asm *a)
{
    for (int jj = 0; jj < a->njoint; ++jj) {
        ph_joint *J = &a->j[jj];
        memset(J->D, 0, sizeof J->D);
        const double *qa = a->rod[J->rod[0]]->q + 12 * J->node[0];
        const int np = J->np;
        for (int side = 0; side < 2; ++side)
            for (int c = 0; c < np; ++c) J->D[side][c][c] = 1.0;
        if (J->type == CR_JOINT_WELD || J->type == CR_JOINT_PRISMATIC)
            for (int c = 0; c < 3; ++c)
                for (int i = 0; i < 3; ++i) {
                    double row[3];
                    skew_row(qa + 3 + 3 * i, c, row);
                    for (int d = 0; d < 3; ++d) {
                        J->D[0][np + c][3 + 3 * i + d] = 0.5 * row[d];
                        for (int m = 0; m < 3; ++m) J->D[1][np + c][3 + 3 * m + d] += 0.5 * J->W[3 * i + m] * row[d];
                    }
                }
        if (J->type == CR_JOINT_HINGE || J->type == CR_JOINT_CYLINDRICAL) {
            double u[3] = {0, 0, 0};
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 3; ++c) u[c] += J->ha[i] * qa[3 + 3 * i + c];
            double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int c = 0; c < 3; ++c) u[c] /= nu;
            /* p1 normal to u (from the axis farthest from it), p2 = u x p1 */
            int m = fabs(u[0]) < fabs(u[1]) ? (fabs(u[0]) < fabs(u[2]) ? 0 : 2) : (fabs(u[1]) < fabs(u[2]) ? 1 : 2);
            double p1[3] = {0, 0, 0}, p2[3];
            p1[m] = 1;
            double du = p1[0] * u[0] + p1[1] * u[1] + p1[2] * u[2];
            for (int c = 0; c < 3; ++c) p1[c] -= du * u[c];
            double n1 = sqrt(p1[0] * p1[0] + p1[1] * p1[1] + p1[2] * p1[2]);
            for (int c = 0; c < 3; ++c) p1[c] /= n1;
            p2[0] = u[1] * p1[2] - u[2] * p1[1], p2[1] = u[2] * p1[0] - u[0] * p1[2],
            p2[2] = u[0] * p1[1] - u[1] * p1[0];
            const double *p[2] = {p1, p2};
            for (int k = 0; k < 2; ++k)
                for (int i = 0; i < 3; ++i)
                    for (int c = 0; c < 3; ++c) {
                        J->D[0][np + k][3 + 3 * i + c] = J->ha[i] * p[k][c];
                        J->D[1][np + k][3 + 3 * i + c] = J->hb[i] * p[k][c];
                    }
        }
    }
}

/* J's rows: slider rows (prismatic, cylindrical: the first two, a slider drive's the third), a dot
   row (universal, an angle drive: the last) */
static int has_slider(const ph_joint *J) { return J->type == CR_JOINT_PRISMATIC || J->type == CR_JOINT_CYLINDRICAL; }
static int has_dot(const ph_joint *J)
{
    return J->type == CR_JOINT_UNIVERSAL || (J->drive && !J->slide) || J->sp[0].on;
}
/* a third slider row along the axis: a slider drive's, or a slide spring's */
static int slide3(const ph_joint *J) { return (J->drive && J->slide) || J->sp[1].on; }
static int slider_rows(const ph_joint *J) { return has_slider(J) ? 2 + slide3(J) : 0; }
/* the third slider row's position: the slide spring's unknown, or the slider drive's x_{n+1} */
static double slide_x(const ph_joint *J) { return J->sp[1].on ? J->sp[1].v1 : J->th1; }
/* the director combination of slider row k: n_k (the normals), or the axis t_a (the drive's) */
static const double *slider_dir(const ph_joint *J, int k) { return k < 2 ? J->us[k] : J->ha; }

/* ---- springs, dampers and stops (module comment) ---- */

static double wrap_pi(double x) { return x - 2 * M_PI * ceil((x - M_PI) / (2 * M_PI)); } /* into (-pi, pi] */

/* the energy E(v) of a spring and its stop */
static double sp_E(const ph_spring *p, double v)
{
    double E = 0;
    if (p->k > 0) {
        const double w = p->rot ? wrap_pi(v - p->rest) : v - p->rest;
        E += 0.5 * p->k * w * w;
    }
    if (p->lim && v > p->hi) E += 0.5 * p->klim * (v - p->hi) * (v - p->hi);
    if (p->lim && v < p->lo) E += 0.5 * p->klim * (v - p->lo) * (v - p->lo);
    return E;
}

/* E'(v) and E''(v) (d2, may be NULL) */
static double sp_dE(const ph_spring *p, double v, double *d2)
{
    double f = 0, k2 = 0;
    if (p->k > 0) f += p->k * (p->rot ? wrap_pi(v - p->rest) : v - p->rest), k2 += p->k;
    if (p->lim && v > p->hi) f += p->klim * (v - p->hi), k2 += p->klim;
    if (p->lim && v < p->lo) f += p->klim * (v - p->lo), k2 += p->klim;
    if (d2) *d2 = k2;
    return f;
}

/* the stop's force on the measure (positive pushing it up): -its part of E' */
static double sp_stop_force(const ph_spring *p, double v)
{
    if (!p->lim) return 0;
    return v > p->hi ? -p->klim * (v - p->hi) : v < p->lo ? -p->klim * (v - p->lo) : 0.0;
}

/* The discrete derivative Ed = (E(v1) - E(v0)) / (v1 - v0) (E'(v0) if equal), so that Ed (v1 - v0)
 * is the energy's change exactly: the mean of E' over [v0, v1], E' being linear between the
 * breakpoints (the stop's lo and hi, the wrapped spring's jump at rest + pi + 2 pi m) and the mean
 * over each piece its value at the piece's middle (no cancellation of the difference quotient).
 * *d: dEd/dv1, for the Newton matrix. For the quadratic spring away from the wrap this is the
 * midpoint's k ((v0 + v1) / 2 - rest). */
static double sp_Ed(const ph_spring *p, double v0, double v1, double *d)
{
    const double a = fmin(v0, v1), b = fmax(v0, v1), dv = v1 - v0;
    if (!(b - a > 1e-9 * (1 + fabs(v1)))) {
        double d2;
        const double f = sp_dE(p, 0.5 * (v0 + v1), &d2);
        *d = 0.5 * d2;
        return f;
    }
    double sum = 0, cur = a;
    for (int it = 0; cur < b && it < 4096; ++it) {
        double next = b;
        if (p->lim && p->lo > cur && p->lo < next) next = p->lo;
        if (p->lim && p->hi > cur && p->hi < next) next = p->hi;
        if (p->rot && p->k > 0) {
            double w = p->rest + M_PI + 2 * M_PI * ceil((cur - p->rest - M_PI) / (2 * M_PI));
            if (!(w > cur)) w += 2 * M_PI;
            if (w < next) next = w;
        }
        sum += (next - cur) * sp_dE(p, 0.5 * (cur + next), NULL);
        cur = next;
    }
    const double Ed = sum / (b - a);
    *d = (sp_dE(p, v1, NULL) - Ed) / dv;
    return Ed;
}

/* sin(x) / x and its derivative */
static double sinc(double x, double *d)
{
    if (fabs(x) < 1e-4) {
        *d = -x / 3;
        return 1 - x * x / 6;
    }
    *d = (x * cos(x) - sin(x)) / (x * x);
    return sin(x) / x;
}

/* the coupled row of spring p (the dot row, or the third slider row) and its unknown in the dense
   system */
static int sp_row(const ph_joint *J, int p) { return p ? 2 : J->kc - 1; }
static int sp_unknown(const ph_joint *J, int p) { return J->u0 + 3 * J->kc + 12 + (p && J->sp[0].on); }

/* the springs' and stops' energy at the measures v0 of the state */
static double joints_energy(const cr_ph_asm *a)
{
    double E = 0;
    for (int jj = 0; jj < a->njoint; ++jj)
        for (int p = 0; p < 2; ++p)
            if (a->j[jj].sp[p].on) E += sp_E(&a->j[jj].sp[p], a->j[jj].sp[p].v0);
    return E;
}

/* a drive's h_a(theta) = -sin(theta) u1 + cos(theta) u2 in a's directors: the dot row
   h_a(theta) . t_b = sin(phi - theta) for b turned by phi about the axis (t_b = u1 fixed to b) */
static void drive_ua(const ph_joint *J, double theta, double ua[3])
{
    for (int c = 0; c < 3; ++c) ua[c] = -sin(theta) * J->us[0][c] + cos(theta) * J->us[1][c];
}

/* The coupled rows of J at the nodes' coordinates qa, qb, the dot row's h_a components ua: their
   values g (may be NULL) and gradients G[side][row] (12 per node). Both kinds are bilinear in the
   two nodes' coordinates:
     slider     g_k = n_k . (phi_b - phi_a), n_k = sum_i us_ki d_i,a (k = 1, 2: the normals of the
                axis in a's directors): the relative position stays on the axis; a slider drive's
                g_3 = t_a . (phi_b - phi_a) - x, t_a = sum_i ha_i d_i,a, x its position (a slide
                spring's: an unknown);
     dot        g = h_a . h_b, h_a = sum_i ua_i d_i,a, h_b = sum_j vb_j d_j,b: a universal joint's
                axes stay normal; a drive's h_a(theta) (drive_ua) and h_b = u1 fixed to b. */
static void coupled_at(const ph_joint *J, const double *ua, double x, const double *qa, const double *qb, double *g,
                       double G[2][4][12])
{
    memset(G, 0, sizeof(double) * 96);
    if (has_slider(J)) {
        const double dl[3] = {qb[0] - qa[0], qb[1] - qa[1], qb[2] - qa[2]};
        for (int k = 0; k < slider_rows(J); ++k) {
            const double *w = slider_dir(J, k);
            double n[3] = {0, 0, 0};
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 3; ++c) n[c] += w[i] * qa[3 + 3 * i + c];
            if (g) g[k] = n[0] * dl[0] + n[1] * dl[1] + n[2] * dl[2] - (k == 2 ? x : 0.0);
            for (int c = 0; c < 3; ++c) G[0][k][c] = -n[c], G[1][k][c] = n[c];
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 3; ++c) G[0][k][3 + 3 * i + c] = w[i] * dl[c];
        }
    }
    if (has_dot(J)) {
        const int m = J->kc - 1;
        double u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 3; ++c) u[c] += ua[i] * qa[3 + 3 * i + c], v[c] += J->vb[i] * qb[3 + 3 * i + c];
        if (g) g[m] = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 3; ++c) G[0][m][3 + 3 * i + c] = ua[i] * v[c], G[1][m][3 + 3 * i + c] = J->vb[i] * u[c];
    }
}

/* The cross Hessian of J's coupled rows weighted by nu, sum_m nu_m d2 g_m / dq_a dq_b = L_a^T L_b
   (L[0] = L_a, L[1] = L_b, 6 x 12 each): a slider's d2 g_k / dd_i,a dphi_b = us_ki I (a slider
   drive's ha_i I) (rows 0-2),
   a dot row's d2 g / dd_i,a dd_j,b = ua_i vb_j I (rows 3-5). */
static void coupled_cross(const ph_joint *J, const double *ua, const double *nu, double L[2][6][12])
{
    memset(L, 0, sizeof(double) * 144);
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 3; ++i) {
            if (has_slider(J)) {
                L[0][c][3 + 3 * i + c] = nu[0] * J->us[0][i] + nu[1] * J->us[1][i] + (slide3(J) ? nu[2] * J->ha[i] : 0);
                L[1][c][c] = 1.0;
            }
            if (has_dot(J)) {
                L[0][3 + c][3 + 3 * i + c] = nu[J->kc - 1] * ua[i];
                L[1][3 + c][3 + 3 * i + c] = J->vb[i];
            }
        }
}

/* The own-node Hessian of side `side`, sum_m nu_m d2 g_m / dq_s^2 (12 x 12, row-major): a
   slider's side a has d2 g_k / dphi_a dd_i,a = -us_ki I; a slider's side b and a dot row's sides
   have none (g linear in each's own coordinates). */
static void coupled_own(const ph_joint *J, const double *nu, int side, double H[144])
{
    memset(H, 0, sizeof(double) * 144);
    if (!has_slider(J) || side == 1) return;
    for (int i = 0; i < 3; ++i) {
        const double ci = nu[0] * J->us[0][i] + nu[1] * J->us[1][i] + (slide3(J) ? nu[2] * J->ha[i] : 0);
        for (int c = 0; c < 3; ++c) H[c * 12 + 3 + 3 * i + c] = H[(3 + 3 * i + c) * 12 + c] = -ci;
    }
}

/* the dot row's h_a components in the rows (at theta_{n+1}) and in the forces (the step's mean):
   a universal joint's fixed axis, a motor's h_a(theta) at its angles, a rotation spring's at its
   unknown angle */
static void ua_of(const ph_joint *J, int mode, double uar[3], double uaf[3])
{
    const int spring = J->sp[0].on;
    if (!spring && !(J->drive && !J->slide)) {
        memcpy(uar, J->ua, sizeof(double) * 3), memcpy(uaf, J->ua, sizeof(double) * 3);
        return;
    }
    double u0[3];
    drive_ua(J, spring ? J->sp[0].v1 : J->th1, uar);
    drive_ua(J, spring ? J->sp[0].v0 : J->th0, u0);
    for (int c = 0; c < 3; ++c) uaf[c] = mode == PH_STATIC ? uar[c] : 0.5 * (u0[c] + uar[c]);
}

/* The coupled rows at the iterate (module comment), q1 of both rods unpacked: their values at
   q_{n+1}, gradients at q_{n+1} (the rows' linearization) and at q_{n+1/2} = (q_n + q_{n+1}) / 2
   (the forces; statics: q_{n+1}), and the factors of their cross Hessian weighted by nu. */
static void coupled_eval(cr_ph_asm *a, int mode)
{
    for (int jj = 0; jj < a->njoint; ++jj) {
        ph_joint *J = &a->j[jj];
        if (!J->kc) continue;
        const cr_ph *sa = a->rod[J->rod[0]], *sb = a->rod[J->rod[1]];
        const double *qa1 = sa->q1 + 12 * J->node[0], *qb1 = sb->q1 + 12 * J->node[1];
        const double *qa0 = sa->q + 12 * J->node[0], *qb0 = sb->q + 12 * J->node[1];
        double qam[12], qbm[12];
        for (int c = 0; c < 12; ++c)
            qam[c] = mode == PH_STATIC ? qa1[c] : 0.5 * (qa0[c] + qa1[c]),
            qbm[c] = mode == PH_STATIC ? qb1[c] : 0.5 * (qb0[c] + qb1[c]);
        /* a drive's h_a at theta_{n+1} in the rows (the motor's angle at the step's end), at
           (h_a(theta_n) + h_a(theta_{n+1})) / 2 in the forces (the midpoint rule's symmetric choice;
           the forces' work over the step is exact for any fixed h_a, the gradient being taken at
           q_{n+1/2}, and drive_work computes it with the same h_a) */
        double uar[3], uaf[3];
        ua_of(J, mode, uar, uaf);
        coupled_at(J, uar, slide_x(J), qa1, qb1, J->gc, J->Gr);
        coupled_at(J, uaf, slide_x(J), qam, qbm, NULL, J->Gf);
        coupled_cross(J, uaf, a->nu + J->c0, J->L);
        if (J->sp[0].on) { /* the row and its forces are linear in h_a: their theta_{n+1} derivatives */
            double dh[3], gd[4], Gd[2][4][12];
            const int m = J->kc - 1;
            const double th = J->sp[0].v1, gam = mode == PH_STATIC ? 1.0 : 0.5;
            for (int c = 0; c < 3; ++c) dh[c] = -cos(th) * J->us[0][c] - sin(th) * J->us[1][c];
            coupled_at(J, dh, 0.0, qa1, qb1, gd, Gd);
            J->gth = gd[m];
            coupled_at(J, dh, 0.0, qam, qbm, NULL, Gd);
            for (int side = 0; side < 2; ++side)
                for (int c = 0; c < 12; ++c) J->Gth[side][c] = gam * Gd[side][m][c];
        }
    }
}

/* the node's coordinates in the current iterate (q1 after ph_assemble's unpack) */
static const double *side_q(const cr_ph_asm *a, const ph_joint *J, int side)
{
    return a->rod[J->rod[side]]->q1 + 12 * J->node[side];
}

static void side_gap(const cr_ph_asm *a, const ph_joint *J, int side, double g[6])
{
    const double *q = side_q(a, J, side);
    for (int m = 0; m < J->k; ++m) {
        double v = -a->z[J->row0 + m];
        for (int c = 0; c < 12; ++c) v += J->D[side][m][c] * q[c];
        g[m] = v;
    }
}

/* The augmentation rho (per row, / fac) of each side: the node's diagonal of the rod's Jacobian,
 * positions and directors apart (their units differ), so that rho D^T D is as stiff as the rod
 * there: large enough to anchor a free rod, not so large that it swamps the rod's own terms. */
static void set_rho(cr_ph_asm *a)
{
    for (int jj = 0; jj < a->njoint; ++jj) {
        ph_joint *J = &a->j[jj];
        for (int side = 0; side < 2; ++side) {
            const cr_ph *s = a->rod[J->rod[side]];
            int e, loc;
            node_block(s, J->node[side], &e, &loc);
            const double *Ke = s->Ke + (size_t)e * 1296;
            double dp = 0, dd = 0;
            for (int c = 0; c < 3; ++c) dp += fabs(Ke[(12 * loc + c) * 36 + 12 * loc + c]) / 3;
            for (int c = 3; c < 12; ++c) dd += fabs(Ke[(12 * loc + c) * 36 + 12 * loc + c]) / 9;
            if (!(dp > 0)) dp = dd > 0 ? dd : 1;
            if (!(dd > 0)) dd = dp;
            for (int m = 0; m < J->k; ++m) J->rho[side][m] = (m < J->np ? dp : 2 * dd) / s->fac;
            /* the coupled rows' (one for both sides): a slider's are positions, a dot row directions */
            for (int m = 0; m < J->kc; ++m) {
                const double v = (m < slider_rows(J) ? dp : 2 * dd) / s->fac;
                J->rhoc[m] = side == 0 ? v : fmax(J->rhoc[m], v);
            }
        }
    }
}

cr_ph_asm *cr_ph_asm_create(int rods, cr_ph *const *kernels, int joints, const cr_ph_joint_def *defs, cr_error *err)
{
    cr_ph_asm *a = calloc(1, sizeof *a);
    if (!a) return cr_error_set(err, CR_NO_MEMORY, "out of memory"), NULL;
    a->nrod = rods, a->njoint = joints, a->rest_f = 1.0;
    a->rod = malloc(sizeof *a->rod * (size_t)rods);
    a->j = calloc((size_t)(joints > 0 ? joints : 1), sizeof *a->j);
    a->xoff = calloc((size_t)rods + 1, sizeof *a->xoff);
    if (!a->rod || !a->j || !a->xoff) goto oom;
    int maxnx = 1, maxred = 1;
    for (int r = 0; r < rods; ++r) {
        if (kernels[r]->nred > maxred) maxred = kernels[r]->nred;
        a->rod[r] = kernels[r];
        a->xoff[r + 1] = a->xoff[r] + (size_t)kernels[r]->nx;
        if (kernels[r]->nx > maxnx) maxnx = kernels[r]->nx;
    }
    for (int jj = 0; jj < joints; ++jj) {
        const cr_ph_joint_def *d = &defs[jj];
        ph_joint *J = &a->j[jj];
        J->type = d->type;
        for (int side = 0; side < 2; ++side) {
            if (d->rod[side] < 0 || d->rod[side] >= rods || d->node[side] < 0 ||
                d->node[side] >= kernels[d->rod[side]]->nn) {
                cr_error_set(err, CR_BAD_INPUT, "joints.%d.%s: no such rod node", jj, side ? "b" : "a");
                goto fail;
            }
            J->rod[side] = d->rod[side], J->node[side] = d->node[side];
        }
        /* separable rows k (np position rows) and coupled rows kc, by type (module comment) */
        static const int k_of[6] = {6, 3, 5, 3, 2, 3}, np_of[6] = {3, 3, 3, 0, 0, 3}, kc_of[6] = {0, 0, 0, 2, 2, 1};
        if ((int)d->type < 0 || (int)d->type > 5) {
            cr_error_set(err, CR_UNSUPPORTED, "joints.%d.type: unknown joint type %d", jj, (int)d->type);
            goto fail;
        }
        J->k = k_of[d->type], J->np = np_of[d->type], J->kc = kc_of[d->type];
        if (d->drive && !d->slide && d->type != CR_JOINT_HINGE && d->type != CR_JOINT_CYLINDRICAL) {
            cr_error_set(err, CR_BAD_INPUT, "joints.%d.drive: only a hinge or a cylindrical joint has a motor", jj);
            goto fail;
        }
        if (d->drive && d->slide && d->type != CR_JOINT_PRISMATIC && d->type != CR_JOINT_CYLINDRICAL) {
            cr_error_set(err, CR_BAD_INPUT,
                         "joints.%d.drive: only a prismatic or a cylindrical joint has a slider drive", jj);
            goto fail;
        }
        J->drive = d->drive != 0;
        J->slide = J->drive && d->slide;
        J->kc += J->drive;
        for (int p = 0; p < 2; ++p) { /* springs, dampers, stops: [0] the turn, [1] the slide */
            ph_spring *sp = &J->sp[p];
            if (!(d->k[p] > 0 || d->c[p] > 0 || d->limit[p])) continue;
            const int ok = p ? d->type == CR_JOINT_PRISMATIC || d->type == CR_JOINT_CYLINDRICAL
                             : d->type == CR_JOINT_HINGE || d->type == CR_JOINT_CYLINDRICAL;
            if (!ok || (J->drive && J->slide == p)) {
                cr_error_set(err, CR_BAD_INPUT,
                             "joints.%d: a %s spring, damper or stop needs a free %s (hinge, cylindrical; "
                             "prismatic, cylindrical) not held by a drive",
                             jj, p ? "slide" : "rotation", p ? "slide" : "turn");
                goto fail;
            }
            if (d->limit[p] && !(d->klim[p] > 0 && d->lo[p] <= d->hi[p])) {
                cr_error_set(err, CR_BAD_INPUT, "joints.%d: a stop needs lo <= hi and a stiffness > 0", jj);
                goto fail;
            }
            sp->on = 1, sp->rot = p == 0;
            sp->k = d->k[p], sp->c = d->c[p], sp->rest0 = sp->rest = d->rest[p];
            sp->lim = d->limit[p] != 0, sp->lo = d->lo[p], sp->hi = d->hi[p], sp->klim = d->klim[p];
            J->kc += 1, J->ns += 1; /* the dot row (a hinge's or cylindrical joint's), the third slider row */
        }
        a->nspring += J->ns > 0;
        a->nlimit += J->sp[0].lim || J->sp[1].lim;
        a->ndrive += J->drive;
        J->row0 = a->K;
        a->K += J->k;
        J->c0 = a->KC;
        a->KC += J->kc;
        /* the reference relation of the two nodes (their states now) */
        const double *qa = kernels[J->rod[0]]->q + 12 * J->node[0], *qb = kernels[J->rod[1]]->q + 12 * J->node[1];
        for (int i = 0; i < 3; ++i)
            for (int m = 0; m < 3; ++m) {
                double v = 0;
                for (int c = 0; c < 3; ++c) v += qa[3 + 3 * i + c] * qb[3 + 3 * m + c];
                J->W[3 * i + m] = v;
            }
        if (d->type != CR_JOINT_WELD && d->type != CR_JOINT_BALL) {
            double n = sqrt(d->axis[0] * d->axis[0] + d->axis[1] * d->axis[1] + d->axis[2] * d->axis[2]);
            if (!(n > 0)) {
                cr_error_set(err, CR_BAD_INPUT, "joints.%d.axis: must be nonzero", jj);
                goto fail;
            }
            for (int i = 0; i < 3; ++i) J->ha[i] = d->axis[i] / n;
            for (int m = 0; m < 3; ++m) { /* hb_m = u_ref . d_m,b = sum_i ha_i W_im */
                J->hb[m] = 0;
                for (int i = 0; i < 3; ++i) J->hb[m] += J->ha[i] * J->W[3 * i + m];
            }
        }
        if (d->type == CR_JOINT_PRISMATIC || d->type == CR_JOINT_CYLINDRICAL || J->drive || J->sp[0].on) {
            /* the two normals of the axis in a's directors (as the mixed rod's u1, u2: from the
               component farthest from the axis) */
            const double *h = J->ha;
            int m = fabs(h[0]) < fabs(h[1]) ? (fabs(h[0]) < fabs(h[2]) ? 0 : 2) : (fabs(h[1]) < fabs(h[2]) ? 1 : 2);
            double p1[3] = {0, 0, 0};
            p1[m] = 1;
            for (int c = 0; c < 3; ++c) p1[c] -= h[m] * h[c];
            double n1 = sqrt(p1[0] * p1[0] + p1[1] * p1[1] + p1[2] * p1[2]);
            for (int c = 0; c < 3; ++c) J->us[0][c] = p1[c] / n1;
            J->us[1][0] = h[1] * J->us[0][2] - h[2] * J->us[0][1];
            J->us[1][1] = h[2] * J->us[0][0] - h[0] * J->us[0][2];
            J->us[1][2] = h[0] * J->us[0][1] - h[1] * J->us[0][0];
        }
        if ((J->drive && !J->slide) || J->sp[0].on) /* t_b = u1 fixed to b: in b's reference directors */
            for (int m = 0; m < 3; ++m) {
                J->vb[m] = 0;
                for (int i = 0; i < 3; ++i) J->vb[m] += J->us[0][i] * J->W[3 * i + m];
            }
        if (d->type == CR_JOINT_UNIVERSAL) {
            /* h_b made exactly normal to h_a (g = 0 in the reference), then in b's directors */
            double hb[3], dot = 0, n = 0;
            for (int c = 0; c < 3; ++c) dot += J->ha[c] * d->axis_b[c];
            for (int c = 0; c < 3; ++c) hb[c] = d->axis_b[c] - dot * J->ha[c], n += hb[c] * hb[c];
            if (!(sqrt(n) > 1e-6)) {
                cr_error_set(err, CR_BAD_INPUT, "joints.%d.axis_b: must be nonzero and not along axis", jj);
                goto fail;
            }
            for (int c = 0; c < 3; ++c) J->ua[c] = J->ha[c], hb[c] /= sqrt(n);
            for (int m = 0; m < 3; ++m) {
                J->vb[m] = 0;
                for (int i = 0; i < 3; ++i) J->vb[m] += hb[i] * J->W[3 * i + m];
            }
        }
    }
    /* the dense system: (mu, z) of the separable rows, then each coupled block (nu, xi, zeta) */
    a->N = 2 * a->K;
    for (int jj = 0; jj < joints; ++jj)
        if (a->j[jj].kc) a->j[jj].u0 = a->N, a->N += 3 * a->j[jj].kc + 12 + a->j[jj].ns;
    int K = a->K > 0 ? a->K : 1, KC = a->KC > 0 ? a->KC : 1, N = a->N > 0 ? a->N : 1;
    a->mu = calloc((size_t)K, sizeof(double));
    a->z = calloc((size_t)K, sizeof(double));
    a->mu_save = calloc((size_t)K, sizeof(double));
    a->z_save = calloc((size_t)K, sizeof(double));
    a->nu = calloc((size_t)KC, sizeof(double));
    a->nu_save = calloc((size_t)KC, sizeof(double));
    a->A = malloc(sizeof(double) * (size_t)N * (size_t)N);
    a->rhs = malloc(sizeof(double) * (size_t)N);
    a->cscale = malloc(sizeof(double) * (size_t)N);
    a->piv = malloc(sizeof(int) * (size_t)N);
    a->Y = malloc(sizeof(double) * (size_t)maxnx);
    /* columns and rows: 2 k of the separable rows; per coupled block and side 2 kc + 6 columns (nu,
       the cross Hessian's xi or zeta, the augmentation's w) and 2 kc + 6 rows (g, zeta or xi, w) */
    int ncol = 1, nrow = 1, maxcols = 1;
    for (int jj = 0; jj < joints; ++jj) {
        const ph_joint *J = &a->j[jj];
        ncol += 2 * J->k + (J->kc ? 2 * (2 * J->kc + 6 + J->ns) : 0);
        nrow += 2 * J->k + (J->kc ? 2 * (2 * J->kc + 6) : 0);
    }
    for (int r = 0; r < rods; ++r) {
        int c = 0;
        for (int jj = 0; jj < joints; ++jj)
            for (int side = 0; side < 2; ++side)
                c += a->j[jj].rod[side] == r ? a->j[jj].k + (a->j[jj].kc ? 2 * a->j[jj].kc + 6 + a->j[jj].ns : 0) : 0;
        if (c > maxcols) maxcols = c;
    }
    a->col = malloc(sizeof *a->col * (size_t)ncol);
    a->row = malloc(sizeof *a->row * (size_t)nrow);
    a->cols = malloc(sizeof(double) * (size_t)maxred * (size_t)maxcols);
    a->ipiv1 = malloc(sizeof(int) * (size_t)maxred);
    a->dX0 = malloc(sizeof(double) * (a->xoff[rods] > 0 ? a->xoff[rods] : 1));
    if (!a->mu || !a->z || !a->mu_save || !a->z_save || !a->nu || !a->nu_save || !a->A || !a->rhs || !a->cscale ||
        !a->piv || !a->Y || !a->dX0 || !a->cols || !a->ipiv1 || !a->col || !a->row)
        goto oom;
    rows_begin(a);
    return a;
oom:
    cr_error_set(err, CR_NO_MEMORY, "out of memory");
fail:
    cr_ph_asm_destroy(a);
    return NULL;
}

void cr_ph_asm_destroy(cr_ph_asm *a)
{
    if (!a) return;
    free(a->rod), free(a->j), free(a->xoff), free(a->mu), free(a->z), free(a->mu_save), free(a->z_save);
    free(a->A), free(a->rhs), free(a->cscale), free(a->piv), free(a->Y), free(a->dX0), free(a->cols), free(a->ipiv1);
    free(a->nu), free(a->nu_save), free(a->col), free(a->row);
    free(a);
}

/* LU with partial pivoting of the n x n row-major A; 0 when singular (pivot below tol) */
static int dense_lu(int n, double *A, int *piv, double tol)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (!(fabs(A[p * n + k]) > tol)) return 0;
        if (p != k)
            for (int c = 0; c < n; ++c) {
                double t = A[k * n + c];
                A[k * n + c] = A[p * n + c], A[p * n + c] = t;
            }
        for (int i = k + 1; i < n; ++i) {
            double l = A[i * n + k] /= A[k * n + k];
            for (int c = k + 1; c < n; ++c) A[i * n + c] -= l * A[k * n + c];
        }
    }
    return 1;
}

static void dense_solve(int n, const double *A, const int *piv, double *b)
{
    for (int k = 0; k < n; ++k) { /* (dense_lu swapped whole rows, its multipliers too: P first) */
        double t = b[piv[k]];
        b[piv[k]] = b[k], b[k] = t;
    }
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) b[i] -= A[i * n + k] * b[k];
    for (int k = n - 1; k >= 0; --k) {
        for (int c = k + 1; c < n; ++c) b[k] -= A[k * n + c] * b[c];
        b[k] /= A[k * n + k];
    }
}

/* the joint terms of rod r's residual (mu and the augmentation at the iterate, module comment) and
 * rho D^T D in its Jacobian; the coupled rows' forces -G(q_{n+1/2})^T nu and their own-node
 * Hessian; returns |g|^2 of its sides */
static double add_joint_terms(cr_ph_asm *a, int r)
{
    cr_ph *s = a->rod[r];
    double g2 = 0;
    const double gam = a->mode == PH_STATIC ? 1.0 : 0.5; /* d q_{n+1/2} / d q_{n+1} */
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        for (int side = 0; side < 2; ++side) {
            if (J->rod[side] != r) continue;
            const int I = J->node[side], o = s->node_off[I];
            double g[6];
            side_gap(a, J, side, g);
            for (int m = 0; m < J->k; ++m) g2 += g[m] * g[m];
            if (o < 0) continue;
            const double sg = side ? -1.0 : 1.0;
            int e, loc;
            node_block(s, I, &e, &loc);
            double *Ke = s->Ke + (size_t)e * 1296;
            for (int m = 0; m < J->k; ++m) {
                const double w = s->fac * (J->rho[side][m] * g[m] - sg * a->mu[J->row0 + m]);
                const double kr = s->fac * J->rho[side][m];
                for (int c = 0; c < 12; ++c) {
                    const double dc = J->D[side][m][c];
                    if (dc == 0) continue;
                    s->r[o + c] += w * dc;
                    for (int d = 0; d < 12; ++d) Ke[(12 * loc + c) * 36 + 12 * loc + d] += kr * dc * J->D[side][m][d];
                }
            }
            for (int m = 0; m < J->kc; ++m)
                for (int c = 0; c < 12; ++c) s->r[o + c] -= s->fac * a->nu[J->c0 + m] * J->Gf[side][m][c];
            if (J->kc) { /* the own-node Hessian in the rod's matrix: d/dq_{n+1} of -fac G(q_{n+1/2})^T nu */
                double H[144];
                coupled_own(J, a->nu + J->c0, side, H);
                for (int c = 0; c < 12; ++c)
                    for (int d = 0; d < 12; ++d) Ke[(12 * loc + c) * 36 + 12 * loc + d] -= s->fac * gam * H[12 * c + d];
                /* the augmentation fac rho G(q_{n+1/2})^T G(q_{n+1}) in the matrix only (no residual
                   term: nu's update is shifted by rho g instead, newton), its own-node part */
                for (int m = 0; m < J->kc; ++m)
                    for (int c = 0; c < 12; ++c)
                        for (int d = 0; d < 12; ++d)
                            Ke[(12 * loc + c) * 36 + 12 * loc + d] +=
                                s->fac * J->rhoc[m] * J->Gf[side][m][c] * J->Gr[side][m][d];
            }
        }
    }
    return g2;
}

/* The dense system's columns and rows (module comment) from the joints at the iterate, and its
   fixed entries E and right side -g in A and rhs (A cleared first). */
static void build_system(cr_ph_asm *a, double *g2)
{
    const int n2 = a->N;
    memset(a->A, 0, sizeof(double) * (size_t)n2 * (size_t)n2);
    a->ncol = a->nrow = 0;
    *g2 = 0;
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        for (int side = 0; side < 2; ++side) {
            const cr_ph *s = a->rod[J->rod[side]];
            const double sg = side ? -1.0 : 1.0;
            double g[6];
            side_gap(a, J, side, g);
            for (int m = 0; m < J->k; ++m) {
                const int rw = 2 * J->row0 + side * J->k + m;
                a->rhs[rw] = -g[m];
                a->A[(size_t)rw * n2 + 2 * J->row0 + J->k + m] = -1.0;
                ph_col *c = &a->col[a->ncol++];
                c->rod = J->rod[side], c->node = J->node[side], c->n = 2;
                c->idx[0] = 2 * J->row0 + m, c->coef[0] = sg;
                c->idx[1] = 2 * J->row0 + J->k + m, c->coef[1] = J->rho[side][m];
                for (int q = 0; q < 12; ++q) c->v[q] = -s->fac * J->D[side][m][q];
                ph_row *w = &a->row[a->nrow++];
                w->rod = J->rod[side], w->node = J->node[side], w->row = rw;
                memcpy(w->C, J->D[side][m], sizeof w->C);
            }
            if (!J->kc) continue;
            const double gam = a->mode == PH_STATIC ? 1.0 : 0.5;
            for (int m = 0; m < J->kc; ++m) { /* nu: r_s -= fac G_s(q_{n+1/2})^T nu; rows G_s(q_{n+1}) */
                ph_col *c = &a->col[a->ncol++];
                c->rod = J->rod[side], c->node = J->node[side], c->n = 1;
                c->idx[0] = J->u0 + m, c->coef[0] = 1.0;
                for (int q = 0; q < 12; ++q) c->v[q] = -s->fac * J->Gf[side][m][q];
                ph_row *w = &a->row[a->nrow++];
                w->rod = J->rod[side], w->node = J->node[side], w->row = J->u0 + m;
                memcpy(w->C, J->Gr[side][m], sizeof w->C);
            }
            /* the cross Hessian: side a's residual takes -fac gam L_a^T xi with xi = L_b dq_b, side
               b's -fac gam L_b^T zeta with zeta = L_a dq_a (rows xi - L_b dq_b = 0 read on b) */
            const int mine = J->u0 + J->kc + 6 * side, other = J->u0 + J->kc + 6 * (1 - side);
            for (int k = 0; k < 6; ++k) {
                ph_col *c = &a->col[a->ncol++];
                c->rod = J->rod[side], c->node = J->node[side], c->n = 1;
                c->idx[0] = mine + k, c->coef[0] = 1.0;
                for (int q = 0; q < 12; ++q) c->v[q] = -s->fac * gam * J->L[side][k][q];
                ph_row *w = &a->row[a->nrow++];
                w->rod = J->rod[side], w->node = J->node[side], w->row = other + k;
                for (int q = 0; q < 12; ++q) w->C[q] = -J->L[side][k][q];
                a->A[(size_t)(other + k) * n2 + other + k] = 1.0;
                a->rhs[other + k] = 0;
            }
            /* the augmentation's cross part: side a's fac rho G_a(q_{n+1/2})^T wb with wb = G_b(q_{n+1})
               dq_b (rows wb - G_b dq_b = 0 read on b), b's alike */
            const int wmine = J->u0 + J->kc + 12 + J->kc * (1 - side), wother = J->u0 + J->kc + 12 + J->kc * side;
            for (int m = 0; m < J->kc; ++m) {
                ph_col *c = &a->col[a->ncol++];
                c->rod = J->rod[side], c->node = J->node[side], c->n = 1;
                c->idx[0] = wmine + m, c->coef[0] = 1.0;
                for (int q = 0; q < 12; ++q) c->v[q] = s->fac * J->rhoc[m] * J->Gf[side][m][q];
                ph_row *w = &a->row[a->nrow++];
                w->rod = J->rod[side], w->node = J->node[side], w->row = wother + m;
                for (int q = 0; q < 12; ++q) w->C[q] = -J->Gr[side][m][q];
                a->A[(size_t)(wother + m) * n2 + wother + m] = 1.0;
                a->rhs[wother + m] = 0;
            }
            /* a spring's measure v_{n+1}: its row g depends on it (dg/dv: the rotation's gth, the
               slide's -1), so do the forces through h_a (the rotation's Gth) and the augmentation
               fac rho G^T (G dq + dg/dv dv) (so that nu's shift stays exact) */
            for (int p = 0; p < 2; ++p) {
                if (!J->sp[p].on) continue;
                const int m = sp_row(J, p);
                const double gv = p ? -1.0 : J->gth, nu = a->nu[J->c0 + m];
                ph_col *c = &a->col[a->ncol++];
                c->rod = J->rod[side], c->node = J->node[side], c->n = 1;
                c->idx[0] = sp_unknown(J, p), c->coef[0] = 1.0;
                for (int q = 0; q < 12; ++q)
                    c->v[q] = s->fac * (J->rhoc[m] * J->Gf[side][m][q] * gv - (p ? 0.0 : nu * J->Gth[side][q]));
            }
        }
        /* the springs' equations (module comment), each the row of its measure's unknown: the row's
           force does the work -(E(v_{n+1}) - E(v_n)) - c (v_{n+1} - v_n)^2 / h over the step (its
           multiplier nu times sin(dv) for the turn, times dv for the slide), in statics nu = -E'(v) */
        for (int p = 0; p < 2; ++p) {
            const ph_spring *sp = &J->sp[p];
            if (!sp->on) continue;
            const int m = sp_row(J, p), iv = sp_unknown(J, p), in = J->u0 + m;
            const double nu = a->nu[J->c0 + m], fac = a->rod[J->rod[0]]->fac;
            double R, dRn, dRv;
            a->A[(size_t)in * n2 + iv] = p ? -1.0 : J->gth;
            if (a->mode == PH_STATIC) {
                R = nu + sp_dE(sp, sp->v1, &dRv), dRn = 1;
            } else {
                const double dv = sp->v1 - sp->v0;
                double dEd, ds = 0, sg = p ? 1.0 : sinc(dv, &ds);
                const double Ed = sp_Ed(sp, sp->v0, sp->v1, &dEd);
                R = nu * sg + Ed + sp->c * dv / a->h;
                dRn = sg, dRv = nu * ds + dEd + sp->c / a->h;
            }
            a->A[(size_t)iv * n2 + in] = dRn;
            a->A[(size_t)iv * n2 + iv] = dRv;
            /* (nu's Newton increment is its unknown's plus rho g: newton) */
            a->rhs[iv] = -R - dRn * J->rhoc[m] * J->gc[m];
            *g2 += fac * R * fac * R;
        }
        for (int m = 0; m < J->kc; ++m) a->rhs[J->u0 + m] = -J->gc[m], *g2 += J->gc[m] * J->gc[m];
    }
}

/* dX of rod r for the right side r + sum of its columns v times their combination of du; with
 * du = NULL: r alone */
static void rod_solve(cr_ph_asm *a, int r, const double *du, double *dX)
{
    cr_ph *s = a->rod[r];
    double *b = a->Y; /* (scratch; the caller's columns are done) */
    memcpy(b, s->r, sizeof(double) * (size_t)s->nx);
    if (du)
        for (int e = 0; e < a->ncol; ++e) {
            const ph_col *c = &a->col[e];
            if (c->rod != r) continue; /* (its node indexes its own rod) */
            const int o = s->node_off[c->node];
            if (o < 0) continue;
            double w = 0;
            for (int t = 0; t < c->n; ++t) w += c->coef[t] * du[c->idx[t]];
            for (int q = 0; q < 12; ++q) b[o + q] += c->v[q] * w;
        }
    ph_linear_apply(s, b, dX);
}

extern void dgbtrs_(const char *trans, const int *n, const int *kl, const int *ku, const int *nrhs, const double *ab,
                    const int *ldab, const int *ipiv, double *b, const int *ldb, int *info);

/* The joint columns of rod r in the dense system: for each column on the rod, the rod's response
 * Y = -J^-1 v (v nonzero in its node's q rows only), read by every row on the rod. The right side
 * has no constraint-row part, so the null-space reduction of ph_linear_apply reduces to the node's
 * reduced rows (phi, and P_m^T on the directors) and the answer to (dphi, P_n dtheta) at each node
 * (ph_linear.c): all the columns go through the rod's band factor (ph_linear_factor, LAPACK's
 * layout) in one dgbtrs call instead of a ph_linear_apply per column (its multipliers and K dq_p
 * products are not needed here). */
static void joint_columns(cr_ph_asm *a, int r, int n2)
{
    cr_ph *s = a->rod[r];
    const int nred = s->nred;
    int nc = 0;
    for (int e = 0; e < a->ncol; ++e) { /* the right sides */
        const ph_col *cl = &a->col[e];
        if (cl->rod != r) continue; /* (its node indexes its own rod) */
        const int I = cl->node, ro = s->node_roff[I];
        if (ro < 0) continue;
        const double(*Pm)[3] = (const double(*)[3])(s->Pm + 27 * I);
        double *b = a->cols + (size_t)nc * nred;
        memset(b, 0, sizeof(double) * (size_t)nred);
        for (int c = 0; c < 3; ++c) b[ro + c] = -cl->v[c];
        for (int p = 0; p < 3; ++p) {
            double w = 0;
            for (int c = 0; c < 9; ++c) w += Pm[c][p] * cl->v[3 + c];
            b[ro + 3 + p] = -w;
        }
        ++nc;
    }
    if (nc == 0) return;
    for (int i = 0; i < nred; ++i) a->ipiv1[i] = s->ripiv[i] + 1;
    const int kl = s->rkl, ku = s->rku, ldab = s->rldab;
    int info = 0;
    dgbtrs_("N", &nred, &kl, &ku, &nc, s->rband, &ldab, a->ipiv1, a->cols, &nred, &info);
    nc = 0;
    for (int e = 0; e < a->ncol; ++e) { /* C Y of every row on the rod */
        const ph_col *cl = &a->col[e];
        if (cl->rod != r || s->node_roff[cl->node] < 0) continue;
        const double *x = a->cols + (size_t)nc * nred;
        ++nc;
        for (int f = 0; f < a->nrow; ++f) {
            const ph_row *rw = &a->row[f];
            if (rw->rod != r) continue;
            const int I = rw->node, ro = s->node_roff[I];
            if (ro < 0) continue;
            const double(*Pn)[3] = (const double(*)[3])(s->Pn + 27 * I);
            double dy = 0;
            for (int c = 0; c < 3; ++c) dy += rw->C[c] * x[ro + c];
            for (int k = 0; k < 9; ++k)
                dy += rw->C[3 + k] * (Pn[k][0] * x[ro + 3] + Pn[k][1] * x[ro + 4] + Pn[k][2] * x[ro + 5]);
            double *row = a->A + (size_t)rw->row * n2;
            for (int t = 0; t < cl->n; ++t) row[cl->idx[t]] += cl->coef[t] * dy;
        }
    }
}

/* The scaled increment of ph_solve.c (positions against the rod's length, directors against 1) */
static double increment(const cr_ph *s, const double *dX)
{
    double dpos = 0, ddir = 0;
    for (int I = 0; I < s->nn; ++I) {
        int o = s->node_off[I];
        if (o < 0) continue;
        for (int c = 0; c < 3; ++c) dpos = fmax(dpos, fabs(dX[o + c]));
        for (int c = 3; c < 12; ++c) ddir = fmax(ddir, fabs(dX[o + c]));
    }
    return fmax(dpos / s->p.length, ddir);
}

/* The iterate unpacked, with its external forces (the work), as ph_solve.c's newton leaves it, and its
   residual's norm (reported by statics; Ke is not used again). add_joint_terms writes into Ke, which the
   residual-only assembly does not allocate (ph_reference_arrays): newton's assemblies with the Jacobian
   have, before any call here. */
static double final_residual(cr_ph_asm *a, int mode, const cr_ph_loads *const *loads, double *residual)
{
    double r2 = 0;
    for (int r = 0; r < a->nrod; ++r) {
        cr_ph *s = a->rod[r];
        ph_assemble(s, mode, loads ? loads[r] : NULL, s->X, s->r, 0);
    }
    coupled_eval(a, mode);
    for (int r = 0; r < a->nrod; ++r) {
        cr_ph *s = a->rod[r];
        r2 += 0.5 * add_joint_terms(a, r);
        for (int i = 0; i < s->nx; ++i) r2 += s->r[i] * s->r[i];
    }
    for (int jj = 0; jj < a->njoint; ++jj)
        for (int m = 0; m < a->j[jj].kc; ++m) r2 += a->j[jj].gc[m] * a->j[jj].gc[m];
    if (residual) *residual = sqrt(r2);
    return sqrt(r2);
}

#define PH_ASM_INCREMENT 1e-8
#define PH_ASM_NEXT 1e-15
#define PH_ASM_MAX_TURN 0.5

/* Newton on every rod's X, the joints' mu and z, from ph_begin's guesses (ph_solve.c's convergence
 * test: |r| <= atol then one more update, or an increment below 1e-8 predicted to reach 1e-15 or no
 * longer shrinking). Leaves each rod's q1/fext of the converged X (ph_assemble). */
static cr_status newton(cr_ph_asm *a, int mode, const cr_ph_loads *const *loads, int *iterations, double *residual,
                        cr_error *err)
{
    const int n2 = a->N;
    const double atol = a->rod[0]->p.newton_atol;
    int maxit = a->rod[0]->p.max_iterations;
    double dprev = 1, rn = 0, rcheck = INFINITY;
    int it = 0;
    a->mode = mode;
    for (;;) {
        double r2 = 0;
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            if (ph_assemble(s, mode, loads ? loads[r] : NULL, s->X, s->r, 1) != CR_OK)
                return cr_error_set(err, CR_NO_MEMORY,
                                    "ph assembly: out of memory for rods.%d's Jacobian (%d elements)", r, s->ne);
        }
        if (it == 0) set_rho(a);
        coupled_eval(a, mode);
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            double g2 = add_joint_terms(a, r);
            for (int i = 0; i < s->nx; ++i) r2 += s->r[i] * s->r[i];
            r2 += 0.5 * g2; /* (each joint's rows counted once per side) */
        }
        double gc2 = 0;
        build_system(a, &gc2);
        r2 += gc2;
        rn = sqrt(r2);
        if (iterations) *iterations = it;
        if (residual) *residual = rn;
        if (!isfinite(rn))
            return cr_error_set(err, CR_NONFINITE, "ph assembly: residual not finite at t = %g after %d iterations",
                                a->rod[0]->t, it);
        if (rn <= atol && it == 0) {
            final_residual(a, mode, loads, residual);
            break;
        }
        if (it >= maxit)
            return cr_error_set(err, CR_NOT_CONVERGED,
                                "ph assembly: Newton did not converge at t = %g in %d iterations, residual %.3e > "
                                "newton_atol %.3e, last increment %.2e",
                                a->rod[0]->t, it, rn, atol, dprev);
        /* each rod: factor, its own increment dX0 and the joint columns; the dense system's rows
           C dq - E du = -g, dq_s = dX0 + sum Y (the columns' combinations of du) */
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            int bad = -1;
            cr_status st = ph_linear_factor(s, &bad);
            if (st == CR_NO_MEMORY)
                return cr_error_set(err, st, "ph assembly: out of memory for rods.%d's factors (%d elements)", r,
                                    s->ne);
            if (st != CR_OK)
                return cr_error_set(err, CR_SINGULAR,
                                    "ph assembly: singular Newton matrix of rods.%d at t = %g (unknown %d), residual "
                                    "%.3e: a rod needs a clamp or a joint that holds it (statics), or inertia",
                                    r, s->t, bad, rn);
            double *dX0 = a->dX0 + a->xoff[r];
            rod_solve(a, r, NULL, dX0);
            for (int f = 0; f < a->nrow; ++f) { /* C dX0 on the right */
                const ph_row *rw = &a->row[f];
                if (rw->rod != r) continue; /* (its node indexes its own rod) */
                const int o = s->node_off[rw->node];
                if (o < 0) continue;
                double v = 0;
                for (int c = 0; c < 12; ++c) v += rw->C[c] * dX0[o + c];
                a->rhs[rw->row] -= v;
            }
            joint_columns(a, r, n2);
        }
        /* the dense system, equilibrated (rows: positions and directions; columns: the multipliers'
           D J^-1 D^T is the rods' compliance, 1e-12 for steel, against the -1 of dz) */
        for (int i = 0; i < n2; ++i) {
            double m = 0;
            for (int c = 0; c < n2; ++c) m = fmax(m, fabs(a->A[(size_t)i * n2 + c]));
            m = m > 0 ? 1 / m : 1;
            for (int c = 0; c < n2; ++c) a->A[(size_t)i * n2 + c] *= m;
            a->rhs[i] *= m;
        }
        for (int c = 0; c < n2; ++c) {
            double m = 0;
            for (int i = 0; i < n2; ++i) m = fmax(m, fabs(a->A[(size_t)i * n2 + c]));
            a->cscale[c] = m > 0 ? 1 / m : 1;
            for (int i = 0; i < n2; ++i) a->A[(size_t)i * n2 + c] *= a->cscale[c];
        }
        if (n2 > 0 && !dense_lu(n2, a->A, a->piv, 1e-12)) {
            return cr_error_set(err, CR_SINGULAR,
                                "ph assembly: the joints' system is singular at t = %g (a mechanism in statics, or "
                                "redundant joints)",
                                a->rod[0]->t);
        }
        if (n2 > 0) dense_solve(n2, a->A, a->piv, a->rhs);
        for (int c = 0; c < n2; ++c) a->rhs[c] *= a->cscale[c];
        const double *du = a->rhs; /* dmu_j at 2 row0, dz_j at 2 row0 + k, a coupled block at u0 */
        double turn = 0, dn = 0;
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            rod_solve(a, r, du, s->dX);
            for (int I = 0; I < s->nn; ++I)
                if (s->node_off[I] >= 0)
                    for (int c = 3; c < 12; ++c) turn = fmax(turn, fabs(s->dX[s->node_off[I] + c]));
        }
        /* far from the solution: no director moves by more than PH_ASM_MAX_TURN (as ph_solve.c) */
        const double sc = turn > PH_ASM_MAX_TURN ? PH_ASM_MAX_TURN / turn : 1.0;
        int clipped = 0;
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            if (sc < 1)
                for (int i = 0; i < s->nx; ++i) s->dX[i] *= sc;
            for (int i = 0; i < s->nx; ++i) s->X[i] += s->dX[i];
            dn = fmax(dn, increment(s, s->dX));
        }
        for (int jj = 0; jj < a->njoint; ++jj) {
            const ph_joint *J = &a->j[jj];
            for (int m = 0; m < J->k; ++m)
                a->mu[J->row0 + m] += sc * du[2 * J->row0 + m], a->z[J->row0 + m] += sc * du[2 * J->row0 + J->k + m];
            /* (the augmentation in the matrix shifts the multiplier: nu's Newton update is dnu + rho g) */
            for (int m = 0; m < J->kc; ++m) a->nu[J->c0 + m] += sc * (du[J->u0 + m] + J->rhoc[m] * J->gc[m]);
            for (int p = 0; p < 2; ++p)
                if (a->j[jj].sp[p].on) a->j[jj].sp[p].v1 += sc * du[sp_unknown(J, p)];
        }
        /* the directors' increment theta x d (theta: the reduced solve's rotation, ph_linear.c) to second
           order, theta x (theta x d) / 2, as ph_solve.c's newton: the linear update alone leaves an
           O(theta^2) residual whatever the Jacobian */
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            for (int I = 0; I < s->nn; ++I) {
                const int o = s->node_off[I], ro = s->node_roff[I];
                if (o < 0) continue;
                const double th[3] = {sc * s->rrhs[ro + 3], sc * s->rrhs[ro + 4], sc * s->rrhs[ro + 5]};
                for (int k = 0; k < 3; ++k) {
                    const double *d = s->q1 + 12 * I + 3 + 3 * k;
                    double u[3] = {th[1] * d[2] - th[2] * d[1], th[2] * d[0] - th[0] * d[2],
                                   th[0] * d[1] - th[1] * d[0]};
                    double *x = s->X + o + 3 + 3 * k;
                    x[0] += 0.5 * (th[1] * u[2] - th[2] * u[1]);
                    x[1] += 0.5 * (th[2] * u[0] - th[0] * u[2]);
                    x[2] += 0.5 * (th[0] * u[1] - th[1] * u[0]);
                }
            }
        }
        /* friction: the one-rod Newton's reversal clipping, rod by rod, after the directors' second-order
           term as there (it reads the directors: the contact point's slip; the joints' multipliers keep
           their update, the next iteration's coupled solve restores the rows) */
        for (int r = 0; r < a->nrod; ++r) {
            cr_ph *s = a->rod[r];
            if (mode == PH_DYNAMIC && s->cmu && ph_friction_reversals(s, s->X, s->dX)) clipped = 1;
        }
        ++it;
        for (int r = 0; r < a->nrod; ++r) a->rod[r]->iterations++;
        if (iterations) *iterations = it;
        if (clipped) { /* not Newton's update: no convergence test on it (as ph_solve.c's newton) */
            dprev = dn;
            continue;
        }
        if (rn <= atol) {
            final_residual(a, mode, loads, residual);
            break;
        }
        if (dn <= PH_ASM_INCREMENT && (dn * (dn / dprev) * (dn / dprev) <= PH_ASM_NEXT || dn >= 0.5 * dprev)) {
            /* The increment test predicts the next update from the last contraction, which a kink of the
               equations breaks (a node's friction crossing its regularization speed, a penalty opening):
               the accepted iterate's residual confirms it, as ph_solve.c's newton does (below newton_atol,
               100x below the residual before the update, or not even halved by it: the round-off floor,
               which with a node touching an obstacle a second check confirms). A welded pair carried by a
               rough table with its friction at the contact points had a step accepted at dn = 1e-9 with
               its residual at 1.6e-7, its balance 3.6e-8 J off, which tripped the energy watch. */
            const int predicted = dn < 0.5 * dprev;
            const double rf = final_residual(a, mode, loads, residual);
            int touching = 0;
            for (int r = 0; r < a->nrod && rcheck == INFINITY && !touching; ++r)
                touching = a->rod[r]->ncp > 0 && ph_contact_touching(a->rod[r]);
            const int at_floor = !(rf < 0.5 * fmin(rn, rcheck)) && (!touching || rcheck < INFINITY);
            if (!predicted || rf <= atol || rf <= 1e-2 * rn || at_floor || it >= maxit) break;
            rcheck = rf;
        }
        dprev = dn;
    }
    for (int r = 0; r < a->nrod; ++r) a->rod[r]->jacobians++, a->rod[r]->factorizations++; /* (as before: once) */
    return CR_OK;
}

static void save(cr_ph_asm *a)
{
    memcpy(a->mu_save, a->mu, sizeof(double) * (size_t)a->K);
    memcpy(a->z_save, a->z, sizeof(double) * (size_t)a->K);
    memcpy(a->nu_save, a->nu, sizeof(double) * (size_t)a->KC);
}

static void restore(cr_ph_asm *a)
{
    memcpy(a->mu, a->mu_save, sizeof(double) * (size_t)a->K);
    memcpy(a->z, a->z_save, sizeof(double) * (size_t)a->K);
    memcpy(a->nu, a->nu_save, sizeof(double) * (size_t)a->KC);
    for (int jj = 0; jj < a->njoint; ++jj)
        for (int p = 0; p < 2; ++p) a->j[jj].sp[p].v1 = a->j[jj].sp[p].v0;
    rows_begin(a);
}

/* after a converged solve: the springs' measures move on, their energy (and in dynamics the
   dampers' dissipation c (v_{n+1} - v_n)^2 / h, the midpoint rate's) with them */
/* A clamped joint node's rows are dropped (add_joint_terms skips them), so the joints' forces on it
 * go to the clamp: its reaction is the rod's own (ph_clamp_reactions) less the joints' generalized
 * forces there, (sg mu - rho g) D + nu G (add_joint_terms' terms over -fac), of the converged
 * iterate. */
static void clamp_joint_forces(cr_ph_asm *a, int r)
{
    cr_ph *s = a->rod[r];
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        for (int side = 0; side < 2; ++side) {
            const int I = J->node[side];
            if (J->rod[side] != r || s->node_off[I] >= 0) continue;
            double *R = s->react[I == 0 ? 0 : 1], g[6];
            const double sg = side ? -1.0 : 1.0;
            side_gap(a, J, side, g);
            for (int m = 0; m < J->k; ++m) {
                const double w = sg * a->mu[J->row0 + m] - J->rho[side][m] * g[m];
                for (int c = 0; c < 12; ++c) R[c] -= w * J->D[side][m][c];
            }
            for (int m = 0; m < J->kc; ++m)
                for (int c = 0; c < 12; ++c) R[c] -= a->nu[J->c0 + m] * J->Gf[side][m][c];
        }
    }
}

static void springs_finish(cr_ph_asm *a, double h)
{
    double D = 0;
    for (int jj = 0; jj < a->njoint; ++jj)
        for (int p = 0; p < 2; ++p) {
            ph_spring *sp = &a->j[jj].sp[p];
            if (!sp->on) continue;
            const double dv = sp->v1 - sp->v0;
            if (h > 0) D += sp->c * dv * dv / h;
            sp->v0 = sp->v1;
        }
    a->ejoint_prev = a->ejoint;
    a->ejoint = joints_energy(a);
    a->djoint_last = D;
    a->djoint += D;
}

/* z = D_a q_a of the state (the rows hold there) */
static void z_begin(cr_ph_asm *a)
{
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        const double *q = a->rod[J->rod[0]]->q + 12 * J->node[0];
        for (int m = 0; m < J->k; ++m) {
            double v = 0;
            for (int c = 0; c < 12; ++c) v += J->D[0][m][c] * q[c];
            a->z[J->row0 + m] = v;
        }
    }
}

/* The motors' work over the step just solved (q_n in q, q_{n+1} in q1): their dot rows' forces
   nu G(q_{n+1/2}) with h_a the step's mean (coupled_eval) do the work nu ua_f . (F(q_{n+1}) - F(q_n)),
   F_i = d_i,a . t_b, exactly (F is quadratic): what the rods' energy balances sum to. */
static double drive_work(const cr_ph_asm *a)
{
    double W = 0;
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        if (!J->drive) continue;
        if (J->slide) { /* nu (S(q_{n+1}) - S(q_n)), S = t_a . (phi_b - phi_a): the forces' exact work */
            double S[2] = {0, 0};
            const cr_ph *sa = a->rod[J->rod[0]], *sb = a->rod[J->rod[1]];
            for (int t = 0; t < 2; ++t) {
                const double *qa = (t ? sa->q1 : sa->q) + 12 * J->node[0], *qb = (t ? sb->q1 : sb->q) + 12 * J->node[1];
                for (int i = 0; i < 3; ++i)
                    for (int c = 0; c < 3; ++c) S[t] += J->ha[i] * qa[3 + 3 * i + c] * (qb[c] - qa[c]);
            }
            W += a->nu[J->c0 + 2] * (S[1] - S[0]);
            continue;
        }
        double uar[3], uaf[3], F[2][3] = {{0}};
        ua_of(J, PH_DYNAMIC, uar, uaf);
        const cr_ph *sa = a->rod[J->rod[0]], *sb = a->rod[J->rod[1]];
        for (int t = 0; t < 2; ++t) {
            const double *qa = (t ? sa->q1 : sa->q) + 12 * J->node[0], *qb = (t ? sb->q1 : sb->q) + 12 * J->node[1];
            double tb[3] = {0, 0, 0};
            for (int j = 0; j < 3; ++j)
                for (int c = 0; c < 3; ++c) tb[c] += J->vb[j] * qb[3 + 3 * j + c];
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 3; ++c) F[t][i] += qa[3 + 3 * i + c] * tb[c];
        }
        double w = 0;
        for (int i = 0; i < 3; ++i) w += uaf[i] * (F[1][i] - F[0][i]);
        W += a->nu[J->c0 + J->kc - 1] * w;
    }
    return W;
}

void cr_ph_asm_set_drive(cr_ph_asm *a, int j, double theta_n, double theta_n1)
{
    a->j[j].th0 = theta_n, a->j[j].th1 = theta_n1;
}

double cr_ph_asm_drive_work(const cr_ph_asm *a) { return a->work_drive; }
double cr_ph_asm_drive_work_last(const cr_ph_asm *a) { return a->work_drive_last; }

cr_status cr_ph_asm_step(cr_ph_asm *a, double h, const cr_ph_loads *const *loads, int *iterations, cr_error *err)
{
    if (iterations) *iterations = 0;
    if (!(h > 0) || !isfinite(h)) return cr_error_set(err, CR_BAD_INPUT, "ph assembly: step h = %g must be > 0", h);
    save(a);
    rows_begin(a);
    z_begin(a);
    a->h = h;
    double H0s[64], *H0v = a->nrod <= 64 ? H0s : malloc(sizeof(double) * (size_t)a->nrod);
    if (!H0v) return cr_error_set(err, CR_NO_MEMORY, "out of memory");
    for (int r = 0; r < a->nrod; ++r) {
        H0v[r] = ph_step_energy(a->rod[r]); /* (the last step's H_{n+1}) */
        ph_begin(a->rod[r], PH_DYNAMIC, h);
    }
    cr_status st = newton(a, PH_DYNAMIC, loads, iterations, NULL, err);
    if (st == CR_OK) {
        a->work_drive_last = drive_work(a);
        a->work_drive += a->work_drive_last;
        springs_finish(a, h);
        for (int r = 0; r < a->nrod; ++r) {
            ph_clamp_reactions(a->rod[r], PH_DYNAMIC, loads ? loads[r] : NULL);
            clamp_joint_forces(a, r);
            ph_step_finish(a->rod[r], h, loads ? loads[r] : NULL, H0v[r]);
        }
    } else
        restore(a);
    if (H0v != H0s) free(H0v);
    return st;
}

cr_status cr_ph_asm_solve_static(cr_ph_asm *a, const cr_ph_loads *const *loads, int *iterations, double *residual,
                                 cr_error *err)
{
    if (iterations) *iterations = 0;
    save(a);
    rows_begin(a);
    z_begin(a);
    for (int r = 0; r < a->nrod; ++r) ph_begin(a->rod[r], PH_STATIC, a->rod[r]->p.h);
    /* ph_begin's predictor moved the rods: z follows side a's predicted node */
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        const cr_ph *s = a->rod[J->rod[0]];
        const int o = s->node_off[J->node[0]];
        if (o < 0) continue;
        for (int m = 0; m < J->k; ++m) {
            double v = 0;
            for (int c = 0; c < 12; ++c) v += J->D[0][m][c] * s->X[o + c];
            a->z[J->row0 + m] = v;
        }
    }
    cr_status st = newton(a, PH_STATIC, loads, iterations, residual, err);
    if (st == CR_OK) {
        for (int r = 0; r < a->nrod; ++r) {
            ph_clamp_reactions(a->rod[r], PH_STATIC, loads ? loads[r] : NULL);
            clamp_joint_forces(a, r);
            ph_static_finish(a->rod[r]);
        }
        springs_finish(a, 0.0);
        a->ejoint_prev = a->ejoint, a->djoint_last = 0;
    } else
        restore(a);
    return st;
}

/* the coupled rows' values and gradients in the current state (coupled_at at q) */
static void coupled_now(const cr_ph_asm *a, const ph_joint *J, double g[4], double G[2][4][12])
{
    double ua[3], unused[3];
    ua_of(J, PH_STATIC, ua, unused); /* (a drive's at theta_{n+1}, the current state's) */
    coupled_at(J, ua, slide_x(J), a->rod[J->rod[0]]->q + 12 * J->node[0], a->rod[J->rod[1]]->q + 12 * J->node[1], g, G);
}

void cr_ph_asm_joint_reaction(const cr_ph_asm *a, int j, cr_vec3 *force, cr_vec3 *moment)
{
    const ph_joint *J = &a->j[j];
    const double *q = a->rod[J->rod[0]]->q + 12 * J->node[0];
    double f[12] = {0};
    for (int m = 0; m < J->k; ++m)
        for (int c = 0; c < 12; ++c) f[c] += J->D[0][m][c] * a->mu[J->row0 + m];
    if (J->kc) { /* the coupled rows' forces G_a^T nu on a (r_a carries -G_a^T nu) */
        double g[4], G[2][4][12];
        coupled_now(a, J, g, G);
        for (int m = 0; m < J->kc; ++m)
            for (int c = 0; c < 12; ++c) f[c] += G[0][m][c] * a->nu[J->c0 + m];
    }
    *force = cr_v3(f[0], f[1], f[2]);
    cr_vec3 M = cr_v3(0, 0, 0);
    for (int i = 0; i < 3; ++i) M = cr_v3_add(M, cr_v3_cross(cr_v3_load(q + 3 + 3 * i), cr_v3_load(f + 3 + 3 * i)));
    *moment = M;
}

double cr_ph_asm_joint_violation(const cr_ph_asm *a)
{
    double v = 0;
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        const double *qa = a->rod[J->rod[0]]->q + 12 * J->node[0], *qb = a->rod[J->rod[1]]->q + 12 * J->node[1];
        if (J->np)
            for (int c = 0; c < 3; ++c) v = fmax(v, fabs(qa[c] - qb[c]));
        if (J->type == CR_JOINT_WELD || J->type == CR_JOINT_PRISMATIC)
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 3; ++c) {
                    double x = qa[3 + 3 * i + c];
                    for (int m = 0; m < 3; ++m) x -= J->W[3 * i + m] * qb[3 + 3 * m + c];
                    v = fmax(v, fabs(x));
                }
        if (J->type == CR_JOINT_HINGE || J->type == CR_JOINT_CYLINDRICAL)
            for (int c = 0; c < 3; ++c) {
                double x = 0;
                for (int i = 0; i < 3; ++i) x += J->ha[i] * qa[3 + 3 * i + c] - J->hb[i] * qb[3 + 3 * i + c];
                v = fmax(v, fabs(x));
            }
        if (J->kc) {
            double g[4], G[2][4][12];
            coupled_now(a, J, g, G);
            for (int m = 0; m < J->kc; ++m) v = fmax(v, fabs(g[m]));
        }
    }
    return v;
}

int cr_ph_asm_coupled_rows(const cr_ph_asm *a, int j, const double *qa, const double *qb, const double *nu, double *g,
                           double *G, double *H)
{
    const ph_joint *J = &a->j[j];
    double Gs[2][4][12], L[2][6][12], Ho[144], ua[3], unused[3];
    ua_of(J, PH_STATIC, ua, unused);
    coupled_at(J, ua, slide_x(J), qa, qb, g, Gs);
    for (int m = 0; m < J->kc; ++m)
        for (int c = 0; c < 12; ++c) G[24 * m + c] = Gs[0][m][c], G[24 * m + 12 + c] = Gs[1][m][c];
    if (!J->kc) return 0;
    memset(H, 0, sizeof(double) * 576);
    for (int side = 0; side < 2; ++side) {
        coupled_own(J, nu, side, Ho);
        for (int c = 0; c < 12; ++c)
            for (int d = 0; d < 12; ++d) H[(12 * side + c) * 24 + 12 * side + d] = Ho[12 * c + d];
    }
    coupled_cross(J, ua, nu, L);
    for (int c = 0; c < 12; ++c)
        for (int d = 0; d < 12; ++d) {
            double v = 0;
            for (int k = 0; k < 6; ++k) v += L[0][k][c] * L[1][k][d];
            H[c * 24 + 12 + d] = H[(12 + d) * 24 + c] = v;
        }
    return J->kc;
}

/* (with springs: their measures, unwrapped, the energies, the dissipation and the rest factor) */
int cr_ph_asm_packed_size(const cr_ph_asm *a)
{
    return 2 * a->K + a->KC + (a->ndrive ? 2 : 0) + (a->nspring ? 2 * a->njoint + 5 : 0);
}
void cr_ph_asm_pack(const cr_ph_asm *a, double *out)
{
    memcpy(out, a->mu, sizeof(double) * (size_t)a->K);
    memcpy(out + a->K, a->z, sizeof(double) * (size_t)a->K);
    memcpy(out + 2 * a->K, a->nu, sizeof(double) * (size_t)a->KC);
    out += 2 * a->K + a->KC;
    if (a->ndrive) out[0] = a->work_drive, out[1] = a->work_drive_last, out += 2;
    if (a->nspring) {
        for (int jj = 0; jj < a->njoint; ++jj) *out++ = a->j[jj].sp[0].v0, *out++ = a->j[jj].sp[1].v0;
        out[0] = a->ejoint, out[1] = a->ejoint_prev, out[2] = a->djoint, out[3] = a->djoint_last, out[4] = a->rest_f;
    }
}
void cr_ph_asm_unpack(cr_ph_asm *a, const double *in)
{
    memcpy(a->mu, in, sizeof(double) * (size_t)a->K);
    memcpy(a->z, in + a->K, sizeof(double) * (size_t)a->K);
    memcpy(a->nu, in + 2 * a->K, sizeof(double) * (size_t)a->KC);
    in += 2 * a->K + a->KC;
    if (a->ndrive) a->work_drive = in[0], a->work_drive_last = in[1], in += 2;
    if (a->nspring) {
        for (int jj = 0; jj < a->njoint; ++jj)
            for (int p = 0; p < 2; ++p) a->j[jj].sp[p].v0 = a->j[jj].sp[p].v1 = *in++;
        a->ejoint = in[0], a->ejoint_prev = in[1], a->djoint = in[2], a->djoint_last = in[3];
        cr_ph_asm_set_rest_factor(a, in[4]);
    }
    rows_begin(a);
}

double cr_ph_asm_joint_energy(const cr_ph_asm *a) { return a->ejoint; }
double cr_ph_asm_joint_energy_change_last(const cr_ph_asm *a) { return a->ejoint - a->ejoint_prev; }
double cr_ph_asm_joint_dissipated(const cr_ph_asm *a) { return a->djoint; }
double cr_ph_asm_joint_dissipated_last(const cr_ph_asm *a) { return a->djoint_last; }
int cr_ph_asm_has_springs(const cr_ph_asm *a) { return a->nspring > 0; }
int cr_ph_asm_has_limits(const cr_ph_asm *a) { return a->nlimit > 0; }
double cr_ph_asm_rest_factor(const cr_ph_asm *a) { return a->rest_f; }

void cr_ph_asm_set_rest_factor(cr_ph_asm *a, double f)
{
    a->rest_f = f;
    for (int jj = 0; jj < a->njoint; ++jj)
        for (int p = 0; p < 2; ++p) a->j[jj].sp[p].rest = f * a->j[jj].sp[p].rest0;
}

int cr_ph_asm_joint_limit(const cr_ph_asm *a, int j, int which, double *value, double *force)
{
    if (j < 0 || j >= a->njoint) return 0;
    const ph_joint *J = &a->j[j];
    const int p = which == 1 || J->type == CR_JOINT_PRISMATIC;
    if (!J->sp[p].lim || (which == 1 && J->type != CR_JOINT_CYLINDRICAL)) return 0;
    if (value) *value = J->sp[p].v0;
    if (force) *force = sp_stop_force(&J->sp[p], J->sp[p].v0);
    return 1;
}

int cr_ph_asm_joint_measure(const cr_ph_asm *a, int j, int p, double *value)
{
    if (j < 0 || j >= a->njoint || p < 0 || p > 1 || !a->j[j].sp[p].on) return 0;
    if (value) *value = a->j[j].sp[p].v0;
    return 1;
}

uint64_t cr_ph_asm_fingerprint(const cr_ph_asm *a, uint64_t h)
{
    for (int jj = 0; jj < a->njoint; ++jj) {
        const ph_joint *J = &a->j[jj];
        const double v[] = {(double)J->type,
                            (double)J->rod[0],
                            (double)J->node[0],
                            (double)J->rod[1],
                            (double)J->node[1],
                            J->W[0],
                            J->W[1],
                            J->W[2],
                            J->W[3],
                            J->W[4],
                            J->W[5],
                            J->W[6],
                            J->W[7],
                            J->W[8],
                            J->ha[0],
                            J->ha[1],
                            J->ha[2],
                            J->hb[0],
                            J->hb[1],
                            J->hb[2],
                            J->us[0][0],
                            J->us[0][1],
                            J->us[0][2],
                            J->us[1][0],
                            J->us[1][1],
                            J->us[1][2],
                            J->vb[0],
                            J->vb[1],
                            J->vb[2],
                            (double)J->drive,
                            (double)J->slide,
                            J->sp[0].k,
                            J->sp[0].c,
                            J->sp[0].rest0,
                            J->sp[0].lim ? J->sp[0].lo : 0.0,
                            J->sp[0].lim ? J->sp[0].hi : 0.0,
                            J->sp[0].lim ? J->sp[0].klim : 0.0,
                            J->sp[1].k,
                            J->sp[1].c,
                            J->sp[1].rest0,
                            J->sp[1].lim ? J->sp[1].lo : 0.0,
                            J->sp[1].lim ? J->sp[1].hi : 0.0,
                            J->sp[1].lim ? J->sp[1].klim : 0.0};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) {
            uint64_t bits;
            memcpy(&bits, &v[k], sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
    }
    return h;
}
