/* cosserat — scenario files (JSON, parsed with cJSON). See docs/scenario.md. */
#ifndef COSSERAT_SCENARIO_H
#define COSSERAT_SCENARIO_H

#include "cosserat/assembly.h"
#include "cosserat/dynamics.h"
#include "cosserat/model.h"
#include "cosserat/sim.h"
#include "cosserat/statics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_stage_type { CR_STAGE_STATIC = 0, CR_STAGE_DYNAMIC = 1 } cr_stage_type;

typedef struct cr_stage_def {
    cr_stage_type type;
    cr_static_options statics;   /* CR_STAGE_STATIC */
    cr_dynamic_options dynamics; /* CR_STAGE_DYNAMIC */
} cr_stage_def;

/* A recorded point (output.track): its pose goes into series.csv (NAME_x/y/z, NAME_p0..p3)
 * and, at the end of every stage, into summary.json. */
enum { CR_TRACK_NAME_SIZE = 32, CR_TRACK_MAX = 256 };
typedef struct cr_track_def {
    char name[CR_TRACK_NAME_SIZE]; /* 1–31 characters of [A-Za-z0-9_], unique */
    int by_s;      /* 0: `node`; 1: the formulation's node nearest to the arc length `s` */
    int node;      /* node of the rod definition (elements + 1 nodes); negative counts from the end */
    double s;      /* reference arc length (m), in [0, rod.length] */
    int rod;       /* the rod (index into cr_scenario.rods) of `node` or `s`; 0 for one rod */
} cr_track_def;

/* Encoding of the .vtp snapshots (output.vtk_format). */
typedef enum cr_vtk_format {
    CR_VTK_BINARY = 0,    /* "binary": Float64 arrays as raw appended data (exact) */
    CR_VTK_ASCII = 1,     /* "ascii": the numbers as text with 12 significant digits */
    CR_VTK_COMPRESSED = 2 /* "compressed": as binary, in zlib-compressed blocks */
} cr_vtk_format;

typedef struct cr_output_def {
    char directory[1024];     /* default "out/<name>" */
    int vtk;                  /* write rod.pvd + .vtp files (default 1) */
    cr_vtk_format vtk_format; /* encoding of the .vtp files (default CR_VTK_BINARY) */
    /* recorded points, owned by the scenario; without "track" in the file one point "tip"
     * at the free end (the last node, or the first when only the last one is held);
     * "rod_tip" when a rigid body is called "tip" */
    int track_count;
    cr_track_def *track;
} cr_output_def;

/* A parsed, validated scenario. Owns every array its rod definition points to. */
typedef struct cr_scenario {
    char name[256];
    cr_model_options model; /* formulation and its options ("model": string or object) */
    cr_rod_def rod;
    int stage_count;
    cr_stage_def *stages;
    cr_output_def output;
    /* Limit (bytes) on the estimated memory of the model (see cr_scenario_memory_estimate);
     * cr_scenario_check and cr_scenario_run refuse a larger model naming rod.elements.
     * 0 (the parser's default): the environment variable COSSERAT_MAX_MEMORY when set,
     * else 80 % of the physical memory; INFINITY: no limit. Not part of the file. */
    double max_memory;
    void *internal;       /* parser-owned storage */
    /* An assembly ("rods" and "joints", docs/scenario.md): the named rods, each with its own
     * supports, loads and rigid bodies (a gravity load without "rod" is on every rod), and the
     * joints between their nodes. With "rod" alone: one rod named "rod" (rods[0].rod == rod)
     * and no joints. `rod` is always rods[0].rod. Owned by the scenario. */
    int rod_count;
    cr_assembly_rod_def *rods;
    int joint_count;
    cr_joint_def *joints;
    /* The free rigid bodies (entries of "rigid_bodies" without "node", held by joints) and
     * their loads (forces and moments naming them, and every gravity load), as
     * cr_assembly_def's bodies and body_loads. Owned by the scenario. */
    int body_count;
    cr_rigid_body_def *bodies;
    int body_load_count;
    cr_load_def *body_loads;
} cr_scenario;

/* 1 when the scenario is an assembly: several rods, or joints. */
int cr_scenario_is_assembly(const cr_scenario *scenario);

/* Estimated peak memory (bytes) of running `scenario`: elements × the measured bytes
 * per element of its formulation for its kinds of stages, plus the rows of series.csv
 * the run keeps in memory (docs/scenario.md, "Memory limit"). */
double cr_scenario_memory_estimate(const cr_scenario *scenario);

/* Parses a memory size: a number of bytes with an optional suffix k, M, G or T
 * (powers of 1024; "64G"); "0", "none" or "unlimited" give INFINITY (no limit).
 * CR_BAD_INPUT for anything else. */
cr_status cr_memory_size_parse(const char *text, double *bytes);

/* Parses a scenario from a file or a string. `overrides` are `PATH=VALUE`
 * strings (PATH dotted, array elements by index: "rod.elements=250",
 * "loads.0.value.2=-1"); VALUE is JSON when it parses as JSON, else a string.
 * Unknown keys, unknown override paths, wrong types, missing keys and
 * non-finite or non-physical values give CR_BAD_INPUT with a message naming the
 * JSON path and the value. On success *out must be freed with cr_scenario_destroy. */
cr_status cr_scenario_load_file(const char *path, const char *const *overrides, int override_count,
                                cr_scenario **out, cr_error *err);
cr_status cr_scenario_load_string(const char *json, const char *const *overrides, int override_count,
                                  cr_scenario **out, cr_error *err);
void cr_scenario_destroy(cr_scenario *scenario);

#ifdef __cplusplus
}
#endif
#endif
