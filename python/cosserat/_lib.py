"""Locating and declaring the C library (ctypes; nothing is compiled).

Lookup order, first hit wins:

1. the environment variable ``COSSERAT_LIBRARY`` (a path to ``libcosserat.so``);
2. ``../../build/libcosserat.so`` relative to this package's source (the repository
   layout: ``python/cosserat/`` next to ``build/``);
3. ``ctypes.util.find_library("cosserat")`` (an installed library on the loader path).

The library is loaded on first use, so ``import cosserat`` and the plot command work
without it.
"""

import ctypes
import ctypes.util
import os
import threading

from ._errors import CosseratError

CR_ERROR_MESSAGE_SIZE = 512

# the library's SONAME: CMakeLists.txt's SOVERSION is the project's major version
_SONAME = "libcosserat.so.0"


class CrError(ctypes.Structure):
    """``cr_error`` (base.h)."""

    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * CR_ERROR_MESSAGE_SIZE)]

    def text(self):
        return self.message.decode("utf-8", "replace")


class CrVec3(ctypes.Structure):
    """``cr_vec3`` (math.h)."""

    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("z", ctypes.c_double)]


class CrMat3(ctypes.Structure):
    """``cr_mat3`` (m[row][col])."""

    _fields_ = [("m", (ctypes.c_double * 3) * 3)]


class CrContactSample(ctypes.Structure):
    """``cr_contact_sample`` (sim.h)."""

    _fields_ = [("force", CrVec3), ("normal", ctypes.c_double), ("gap", ctypes.c_double), ("state", ctypes.c_int),
                ("tolerance", ctypes.c_double)]


class CrLoadStepReport(ctypes.Structure):
    """``cr_load_step_report`` (statics.h)."""

    _fields_ = [
        ("load_factor", ctypes.c_double),
        ("iterations", ctypes.c_int),
        ("history_count", ctypes.c_int),
        ("residual_history", ctypes.POINTER(ctypes.c_double)),
    ]


# cr_run_step_fn: int (*)(const cr_sim *, const cr_load_step_report *, int, void *)
STEP_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(CrLoadStepReport), ctypes.c_int, ctypes.c_void_p)


# cr_progress_fn: void (*)(double t, double t_end, long steps, double wall_s, void *user)
PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_double, ctypes.c_long, ctypes.c_double, ctypes.c_void_p)


class CrDynamicSample(ctypes.Structure):
    """``cr_dynamic_sample`` (dynamics.h)."""

    _fields_ = [
        ("t", ctypes.c_double),
        ("kinetic", ctypes.c_double),
        ("elastic", ctypes.c_double),
        ("gravity", ctypes.c_double),
        ("work_external", ctypes.c_double),
        ("momentum", CrVec3),
        ("angular_momentum", CrVec3),
        ("extra_count", ctypes.c_int),
        ("extra", ctypes.c_double * 12),
    ]


# cr_run_output_fn: int (*)(cr_sim *, const cr_dynamic_sample *, void *)
OUTPUT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(CrDynamicSample), ctypes.c_void_p)


class CrRunOptions(ctypes.Structure):
    """``cr_run_options`` (output.h)."""

    _fields_ = [
        ("output_directory", ctypes.c_char_p),
        ("on_step", STEP_FN),
        ("on_progress", PROGRESS_FN),
        ("user", ctypes.c_void_p),
        ("stop", ctypes.POINTER(ctypes.c_int)),
        ("resume", ctypes.c_int),
        ("on_output", OUTPUT_FN),
        ("output_passive", ctypes.c_int),
    ]


_P = ctypes.c_void_p
_D = ctypes.c_double
_I = ctypes.c_int
_DP = ctypes.POINTER(ctypes.c_double)

# name: (restype, argtypes)
_PROTOTYPES = {
    "cr_version": (ctypes.c_char_p, []),
    "cr_status_string": (ctypes.c_char_p, [_I]),
    "cr_scenario_load_string": (
        _I,
        [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), _I, ctypes.POINTER(_P), ctypes.POINTER(CrError)],
    ),
    "cr_scenario_load_file": (
        _I,
        [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), _I, ctypes.POINTER(_P), ctypes.POINTER(CrError)],
    ),
    "cr_scenario_destroy": (None, [_P]),
    "cr_scenario_run": (_I, [_P, ctypes.POINTER(CrRunOptions), _P, ctypes.POINTER(CrError)]),
    "cr_run_result_create": (_P, []),
    "cr_run_result_destroy": (None, [_P]),
    "cr_run_result_sim": (_P, [_P]),
    "cr_run_result_stage_count": (_I, [_P]),
    "cr_run_result_warning_count": (_I, [_P]),
    "cr_run_result_warning": (ctypes.c_char_p, [_P, _I, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]),
    "cr_run_result_step_count": (_I, [_P]),
    "cr_run_result_step_iterations": (_I, [_P, _I]),
    "cr_run_result_step_load_factor": (_D, [_P, _I]),
    "cr_run_result_step_history": (_DP, [_P, _I, ctypes.POINTER(_I)]),
    "cr_run_result_final_residual": (_D, [_P]),
    "cr_run_result_failed_load_steps": (_I, [_P]),
    "cr_run_result_series_columns": (_I, [_P]),
    "cr_run_result_series_rows": (ctypes.c_long, [_P]),
    "cr_scenario_tip_node": (_I, [_P, _P]),
    "cr_run_result_series_name": (ctypes.c_char_p, [_P, _I]),
    "cr_run_result_series_data": (_DP, [_P]),
    "cr_sim_formulation": (ctypes.c_char_p, [_P]),
    "cr_sim_node_count": (_I, [_P]),
    "cr_sim_sample_count": (_I, [_P]),
    "cr_sim_get_node_s": (None, [_P, _DP]),
    "cr_sim_get_sample_s": (None, [_P, _DP]),
    "cr_sim_load_factor": (_D, [_P]),
    "cr_sim_get_positions": (None, [_P, _DP]),
    "cr_sim_get_orientations": (None, [_P, _DP]),
    "cr_sim_get_samples": (None, [_P, _DP]),
    "cr_sim_reaction": (_I, [_P, _I, ctypes.POINTER(CrVec3), ctypes.POINTER(CrVec3)]),
    "cr_sim_contact": (_I, [_P, _I, ctypes.POINTER(CrContactSample)]),
    "cr_sim_time": (_D, [_P]),
    "cr_sim_get_velocities": (None, [_P, _DP]),
    "cr_sim_load_count": (_I, [_P]),
    "cr_sim_load_type": (ctypes.c_char_p, [_P, _I]),
    "cr_sim_set_load_input": (_I, [_P, _I, _D]),
    "cr_sim_load_input": (_D, [_P, _I]),
    "cr_sim_rod_count": (_I, [_P]),
    "cr_sim_rod_name": (ctypes.c_char_p, [_P, _I]),
    "cr_sim_rod_first_node": (_I, [_P, _I]),
    "cr_sim_rod_first_sample": (_I, [_P, _I]),
    "cr_sim_joint_count": (_I, [_P]),
    "cr_sim_joint_name": (ctypes.c_char_p, [_P, _I]),
    "cr_sim_joint_reaction": (_I, [_P, _I, ctypes.POINTER(CrVec3), ctypes.POINTER(CrVec3)]),
    "cr_sim_set_joint_drive_input": (_I, [_P, _I, _D]),
    "cr_sim_joint_drive_input": (_D, [_P, _I]),
    "cr_sim_body_count": (_I, [_P]),
    "cr_sim_body_name": (ctypes.c_char_p, [_P, _I]),
    "cr_sim_body_pose": (None, [_P, _I, ctypes.POINTER(CrVec3), ctypes.POINTER(CrMat3)]),
    "cr_sim_body_mass": (_D, [_P, _I]),
    "cr_sim_body_velocity": (_I, [_P, _I, ctypes.POINTER(CrVec3), ctypes.POINTER(CrVec3)]),
}

_lock = threading.Lock()
_lib = None


def _pkg_config_libdir():
    try:
        import subprocess

        p = subprocess.run(["pkg-config", "--variable=libdir", "cosserat"], capture_output=True, text=True, timeout=10)
        return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def library_candidates():
    """The paths (or names) tried, in order, to load the library: COSSERAT_LIBRARY; next to the
    package; the repository's build/; the install prefix the package sits in (PREFIX/lib/python3/
    dist-packages/cosserat or PREFIX/lib/python3.X/site-packages/cosserat ->
    PREFIX/lib[/multiarch]/libcosserat.so[.0]); pkg-config's libdir; the system's search path."""
    out = []
    env = os.environ.get("COSSERAT_LIBRARY")
    if env:
        out.append(env)
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(os.path.join(here, "libcosserat.so"))
    out.append(os.path.normpath(os.path.join(here, "..", "..", "build", "libcosserat.so")))
    # installed with `cmake --install`: the package is below PREFIX/lib/...; the library in PREFIX/lib[/triplet]
    parts = here.split(os.sep)
    if "lib" in parts:
        prefix = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("lib")]) or os.sep
        libdir = os.path.join(prefix, "lib")
        dirs = [libdir]
        if os.path.isdir(libdir):
            dirs += [os.path.join(libdir, d) for d in sorted(os.listdir(libdir)) if d.endswith("-linux-gnu")]
        for d in dirs:
            # the .so link comes with the development files (libcosserat-dev); the runtime
            # package has only the SONAME
            out.append(os.path.join(d, "libcosserat.so"))
            out.append(os.path.join(d, _SONAME))
    pc = _pkg_config_libdir()
    if pc:
        out.append(os.path.join(pc, "libcosserat.so"))
    found = ctypes.util.find_library("cosserat")
    if found:
        out.append(found)
    return out


def _open():
    env = os.environ.get("COSSERAT_LIBRARY")
    if env:
        # An explicit choice is never silently replaced by another library.
        try:
            return ctypes.CDLL(env)
        except OSError as e:
            raise CosseratError(f"COSSERAT_LIBRARY={env}: cannot load the library ({e})") from e
    tried = []
    for cand in library_candidates():
        if os.sep in cand and not os.path.exists(cand):
            tried.append(f"{cand} (missing)")
            continue
        try:
            return ctypes.CDLL(cand)
        except OSError as e:
            tried.append(f"{cand} ({e})")
    if not ctypes.util.find_library("cosserat"):
        tried.append('find_library("cosserat") (not found)')
    raise CosseratError(
        "cannot find libcosserat.so: build it (cmake -S . -B build && cmake --build build), install it "
        "(cmake --install build), or set COSSERAT_LIBRARY to its path; tried " + "; ".join(tried)
    )


def lib():
    """The loaded library with every prototype declared (loaded once, thread-safe)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                handle = _open()
                for name, (restype, argtypes) in _PROTOTYPES.items():
                    try:
                        fn = getattr(handle, name)
                    except AttributeError as e:
                        raise CosseratError(
                            f"{handle._name}: missing symbol {name} (library too old for this package?)"
                        ) from e
                    fn.restype = restype
                    fn.argtypes = argtypes
                _lib = handle
    return _lib
