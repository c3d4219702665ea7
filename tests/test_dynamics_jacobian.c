/* The analytic Jacobian of the dynamic residual (kinematics, momentum with
 * gyroscopic terms, stress rows, rigid bodies with offset centres, loads) against
 * central differences at random states. */
#include "check.h"
#include "fd_jacobian.h"
#include "mixed/mixed.h"
#include "mixed/supports.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

typedef struct dyn_fd {
    const cr_model *m;
    const double *scale;
} dyn_fd;

static void dyn_residual(void *ctx, const double *y, double *F, cr_blocktri *J)
{
    const dyn_fd *c = ctx;
    cr_supports_at at = {.stage = 0, .ramp = 1.0, .t = 0.3, .from = NULL, .from_blend = 1.0};
    CHECK(cr_mixed_dynamic_residual(c->m, &at, c->scale, y, F, J) == CR_OK);
}

static void test_dynamic_jacobian(void)
{
    srand(21);
    cr_section_segment sec = cr_section_default_def();
    sec.radius[0] = 0.05, sec.radius[1] = 0.03;
    cr_rod_def d = cr_rod_default_def();
    d.length = 1.3;
    d.elements = 5;
    d.material = (cr_material){2.0e3, 0.8e3, 900};
    d.sections = &sec;
    d.section_count = 1;
    d.reference.type = CR_REFERENCE_HELIX;
    d.reference.helix_radius = 0.3;
    d.reference.helix_pitch = 0.1;
    cr_rigid_body_def body = cr_rigid_body_default_def();
    body.node = 0;
    body.mass = 0.7;
    body.center = cr_v3(0.05, -0.02, 0.1);
    body.inertia = (cr_mat3){{{0.02, 0.001, 0}, {0.001, 0.03, 0.002}, {0, 0.002, 0.025}}};
    d.rigid_bodies = &body;
    d.rigid_body_count = 1;
    cr_load_def l[4] = {cr_load_default_def(), cr_load_default_def(), cr_load_default_def(), cr_load_default_def()};
    l[0].type = CR_LOAD_GRAVITY, l[0].value = cr_v3(0, 0, -9.81);
    l[1].type = CR_LOAD_FORCE, l[1].body = 0, l[1].frame = CR_FRAME_BODY, l[1].value = cr_v3(-1, 0.3, 0.2);
    l[2].type = CR_LOAD_TENDON, l[2].tension = 2.0, l[2].offset.type = CR_OFFSET_RADIUS_FRACTION;
    l[3].type = CR_LOAD_MOMENT, l[3].node = 3, l[3].value = cr_v3(0.1, 0.2, -0.3);
    d.loads = l;
    d.load_count = 4;
    /* a clamp driven by a sine (rotation of two turns), a pin, a hinge about body z
     * with partly held translations (issue 10) */
    cr_bc_def bc[3] = {cr_bc_default_def(), cr_bc_default_def(), cr_bc_default_def()};
    bc[0].node = -1;
    bc[0].has_position = 1, bc[0].position = cr_v3(0.1, 0.2, -0.3);
    bc[0].rotation_kind = CR_BC_ROTATION_VECTOR, bc[0].rotation = cr_v3(0, 4 * M_PI, 0);
    bc[0].time.type = CR_TIME_SINE, bc[0].time.amplitude = 1, bc[0].time.frequency = 0.7;
    bc[1].type = CR_BC_PIN, bc[1].node = 2;
    bc[2].type = CR_BC_SUPPORT, bc[2].node = 4, bc[2].frame = CR_FRAME_INERTIAL;
    bc[2].hold = CR_HOLD_X | CR_HOLD_Z | CR_HOLD_RX | CR_HOLD_RY;
    d.bcs = bc;
    d.bc_count = 3;
    d.reference.type = CR_REFERENCE_STRAIGHT; /* the hinge axis must be a body axis in dynamics */
    cr_error err = {0};
    cr_model *m = cr_model_create(&d, &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK(cr_supports_dynamic_check(m, 0, &err) == CR_OK);
    int nb = cr_model_node_count(m), N = nb * CR_DYN_BLOCK;
    double *y = calloc(N, sizeof *y), scale[4] = {1.0, 0.7, 1.3, 0.4};
    for (int trial = 0; trial < 3; ++trial) {
        for (int i = 0; i < nb; ++i) {
            double *yi = y + (size_t)i * CR_DYN_BLOCK;
            cr_v3_store(cr_v3_add(cr_model_reference_position(m, i), cr_v3(0.05 * urand(), 0.05 * urand(), 0.05 * urand())), yi);
            cr_quat q = cr_model_reference_orientation(m, i);
            cr_q_store(cr_q_add(q, cr_q(0.1 * urand(), 0.1 * urand(), 0.1 * urand(), 0.1 * urand())), yi + 3);
            for (int k = CR_DYN_V; k < CR_DYN_BLOCK; ++k) yi[k] = urand();
        }
        dyn_fd ctx = {m, scale};
        double e = fd_jacobian_error(nb, CR_DYN_BLOCK, dyn_residual, &ctx, y);
        printf("  dynamic Jacobian relative error %.2e\n", e);
        CHECK(e < 1e-7);
    }
    free(y);
    cr_model_destroy(m);
}

CHECK_MAIN(CASE(test_dynamic_jacobian))
