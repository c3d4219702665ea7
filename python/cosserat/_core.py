"""Running scenarios through the C library: load(), run(), Result."""

import ctypes
import dataclasses
import json
import math
import os
import signal
import threading
import time
from collections.abc import Mapping
from typing import Callable, List, NamedTuple, Optional

import numpy as np

from . import _lib
from ._errors import CosseratError, Status
from .output import Body, Contact, body_history, matrix_to_quat

# ---------------------------------------------------------------------------------------------
# small helpers


def quat_to_matrix(q):
    """Rotation matrices A = Exp(p) of quaternions ``p = (p0, p1, p2, p3)`` (scalar first).

    ``q`` has shape ``(..., 4)`` and need not be normalized (as in the library, ``p`` and
    ``a p`` describe the same rotation). Returns shape ``(..., 3, 3)``; ``A`` maps body
    components to inertial ones (``x_I = A x_B``), so its columns are the body axes
    e_x (the tangent of the reference), e_y, e_z in inertial components.
    """
    q = np.asarray(q, dtype=float)
    p0, p1, p2, p3 = np.moveaxis(q, -1, 0)
    s = 2.0 / np.sum(q * q, axis=-1)
    A = np.empty(q.shape[:-1] + (3, 3))
    A[..., 0, 0] = 1 - s * (p2 * p2 + p3 * p3)
    A[..., 0, 1] = s * (p1 * p2 - p0 * p3)
    A[..., 0, 2] = s * (p1 * p3 + p0 * p2)
    A[..., 1, 0] = s * (p1 * p2 + p0 * p3)
    A[..., 1, 1] = 1 - s * (p1 * p1 + p3 * p3)
    A[..., 1, 2] = s * (p2 * p3 - p0 * p1)
    A[..., 2, 0] = s * (p1 * p3 - p0 * p2)
    A[..., 2, 1] = s * (p2 * p3 + p0 * p1)
    A[..., 2, 2] = 1 - s * (p1 * p1 + p2 * p2)
    return A


def load(path):
    """Reads a scenario file into a dict (plain ``json.load``), to modify before :func:`run`.

    >>> sc = cosserat.load("examples/tendon-manipulator.json")
    >>> sc["rod"]["elements"] = 250
    """
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def library_version():
    """Version string of the loaded C library, ``"MAJOR.MINOR.PATCH"``."""
    return _lib.lib().cr_version().decode()


def _json_default(obj):
    # numpy scalars and arrays (np.float64 is a float already; np.int64, arrays are not)
    if hasattr(obj, "tolist"):
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _check_finite(obj, path):
    """Raises CosseratError naming the JSON path of the first NaN/Inf (JSON cannot hold them)."""
    if isinstance(obj, float) or (hasattr(obj, "dtype") and np.ndim(obj) == 0):
        try:
            v = float(obj)
        except (TypeError, ValueError):
            return
        if not math.isfinite(v):
            raise CosseratError(f"{path or '(root)'}: must be finite, got {v}", Status.BAD_INPUT)
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            _check_finite(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, (list, tuple)) or (hasattr(obj, "tolist") and np.ndim(obj) > 0):
        for i, v in enumerate(obj):
            _check_finite(v, f"{path}.{i}" if path else str(i))


def _to_json(obj, path=""):
    _check_finite(obj, path)
    try:
        return json.dumps(obj, default=_json_default, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise CosseratError(f"{path or 'scenario'}: cannot be written as JSON ({e})", Status.BAD_INPUT) from e


def _override_strings(overrides):
    """``{"rod.elements": 250}`` → ``["rod.elements=250"]``; strings "PATH=VALUE" pass as they are."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{path}={_to_json(value, str(path))}" for path, value in overrides.items()]
    if isinstance(overrides, str):
        return [overrides]
    out = []
    for item in overrides:
        if not isinstance(item, str):
            raise TypeError("overrides must be a dict {PATH: value} or a list of 'PATH=VALUE' strings")
        out.append(item)
    return out


# ---------------------------------------------------------------------------------------------
# results


class Reaction(NamedTuple):
    """Reaction at a constrained node: force in inertial components, moment in the node's body basis."""

    node: int
    force: np.ndarray
    moment_body: np.ndarray


class JointReaction(NamedTuple):
    """The wrench a joint of an assembly applies on its node ``a`` (``b`` receives the opposite):
    force and moment about that node, both in inertial components."""

    name: str
    force: np.ndarray
    moment: np.ndarray


class Rod(NamedTuple):
    """One rod of a :class:`Result` (``Result.rods[NAME]``): its slice of the nodes and samples
    (arrays as :class:`Result`'s, ``s`` the rod's own arc length), and ``nodes`` (a slice
    into :attr:`Result.positions` etc.)."""

    name: str
    nodes: slice
    elements: slice
    s: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray
    element_s: np.ndarray
    gamma: np.ndarray
    kappa: np.ndarray
    n: np.ndarray
    m: np.ndarray


class Step(NamedTuple):
    """What a ``run(..., on_step=f)`` callback receives after each accepted load step.

    ``positions``/``quaternions`` are copies of the converged state of that step.
    """

    index: int
    load_factor: float
    iterations: int
    residual_history: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray


class StopRun(Exception):
    """Raise in a ``run(..., on_sample=f)`` callback to stop the run at this output time, as
    returning True does: :func:`run` then returns the :class:`Result` with status
    ``Status.INTERRUPTED`` (the exception is not re-raised)."""


class RunWarning(NamedTuple):
    """A sanity warning of a run (docs/scenario.md, Warnings): never changes its status."""

    code: str     # e.g. "slender_thin", "modulus_density", "strain_large", "unstable_equilibrium"
    key: str      # the scenario key it is about, e.g. "rod.sections.0.radius"
    message: str  # starts with the key, gives the values and the likely fix


class Snapshots(NamedTuple):
    """The state at every output time of the dynamic stages (``run(..., keep_snapshots=True)``),
    row k at time ``t[k]`` — the rows of :attr:`Result.series`.

    Attributes:
        t:           (K,) times (s).
        positions:   (K, N, 3) node positions (inertial).
        quaternions: (K, N, 4) node orientations (p0, p1, p2, p3).
    """

    t: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray


def _load_index(L, sim, load):
    """The index of `load`: an int (negative counts from the end), ``"loads.N"``, or the type of
    the scenario's only load of that type (``"tendon"``, ``"force"``, ...)."""
    count = L.cr_sim_load_count(sim)
    if isinstance(load, (int, np.integer)) and not isinstance(load, bool):
        k = int(load) + (count if load < 0 else 0)
        if not 0 <= k < count:
            raise CosseratError(f"load {load}: out of range (the scenario has {count} loads)", Status.BAD_INPUT)
        return k
    if isinstance(load, str):
        if load.startswith("loads.") and load[6:].isdigit():
            return _load_index(L, sim, int(load[6:]))
        types = [L.cr_sim_load_type(sim, k).decode() for k in range(count)]
        hits = [k for k, t in enumerate(types) if t == load]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise CosseratError(
                f'load "{load}": {len(hits)} loads have this type (loads {hits}); give the index', Status.BAD_INPUT
            )
        raise CosseratError(
            f'load "{load}": no load of this type (the loads are {", ".join(types) or "none"}); '
            'give an index, "loads.N" or a load type',
            Status.BAD_INPUT,
        )
    raise TypeError(f"load must be an int index or a str, not {type(load).__name__}")


class Sample:
    """What a ``run(..., on_sample=f)`` callback receives at every output time of a dynamic stage.

    The arrays are copies of the state at time ``t`` (N nodes, E strain sample points):

    Attributes:
        t:                  time (s).
        positions:          (N, 3) node positions (inertial).
        quaternions:        (N, 4) node orientations (p0, p1, p2, p3).
        velocities:         (N, 3) node velocities (inertial).
        angular_velocities: (N, 3) node angular velocities (body basis).
        gamma, kappa, n, m: (E, 3) strains and stress resultants at the sample points (body basis).
        energy:             ``{"kinetic", "elastic", "gravity", "work_external"}`` (J), as in series.csv.
        inputs:             (loads,) the actuator input factors in force so far.

    :meth:`set_input` sets a load's input factor for the next output interval, :meth:`set_drive`
    a joint drive's (assemblies); returning True from the callback, or raising :class:`StopRun`,
    stops the run at this time.
    """

    def __init__(self, L, sim, smp):
        self._L, self._sim = L, sim
        nn, ne = L.cr_sim_node_count(sim), L.cr_sim_sample_count(sim)
        self.t = float(smp.t)
        self.positions, self.quaternions = _array(nn, 3), _array(nn, 4)
        vel, el = _array(nn, 6), _array(ne, 12)
        L.cr_sim_get_positions(sim, _ptr(self.positions))
        L.cr_sim_get_orientations(sim, _ptr(self.quaternions))
        L.cr_sim_get_velocities(sim, _ptr(vel))
        L.cr_sim_get_samples(sim, _ptr(el))
        self.velocities, self.angular_velocities = vel[:, 0:3].copy(), vel[:, 3:6].copy()
        self.gamma, self.kappa, self.n, self.m = (el[:, 3 * j : 3 * j + 3].copy() for j in range(4))
        self.energy = {"kinetic": smp.kinetic, "elastic": smp.elastic, "gravity": smp.gravity,
                       "work_external": smp.work_external}
        self.inputs = np.array([L.cr_sim_load_input(sim, k) for k in range(L.cr_sim_load_count(sim))])
        self.tip_node = -1  # set by run(): the free end (node 0 of a rod clamped at its last node only)

    @property
    def tip_position(self):
        """(3,) position of the tip node (the free end, as summary.json's tip)."""
        return self.positions[self.tip_node]

    @property
    def tip_velocity(self):
        """(3,) velocity of the tip node."""
        return self.velocities[self.tip_node]

    def set_input(self, load, value):
        """Sets the input factor of `load` (an index, ``"loads.N"``, or a load type such as
        ``"tendon"`` when the scenario has one load of that type) to `value` from this time to
        the next output time (and on, until set again): the load's magnitude in dynamic stages
        is its value × stage activity × time function × input. Only valid during the callback."""
        if self._sim is None:
            raise CosseratError("set_input: the sample is no longer live (call it inside on_sample)", Status.BAD_INPUT)
        k = _load_index(self._L, self._sim, load)
        v = float(value)
        if self._L.cr_sim_set_load_input(self._sim, k, v) != Status.OK:
            raise CosseratError(f"set_input: load {load}: the input must be finite, got {v}", Status.BAD_INPUT)
        self.inputs[k] = v

    def set_drive(self, joint, value):
        """Sets the input factor u of the drive of `joint` (an index or its name) to `value`: the
        drive holds angle × time function × u (a slider: position × time function × u). u ramps
        linearly from its value now to `value` at the next output time (a drive's position cannot
        jump), then holds until set again; default 1. Assemblies of the mixed_discrete model, dynamic
        stages; only valid during the callback."""
        if self._sim is None:
            raise CosseratError("set_drive: the sample is no longer live (call it inside on_sample)", Status.BAD_INPUT)
        L, sim = self._L, self._sim
        k = joint
        if isinstance(joint, str):
            names = [L.cr_sim_joint_name(sim, j).decode() for j in range(L.cr_sim_joint_count(sim))]
            if joint not in names:
                raise CosseratError(f"set_drive: no joint named {joint!r} (joints: {', '.join(names)})", Status.BAD_INPUT)
            k = names.index(joint)
        elif not isinstance(joint, int):
            raise TypeError(f"joint must be an int index or a str, not {type(joint).__name__}")
        v = float(value)
        if L.cr_sim_set_joint_drive_input(sim, k, v) != Status.OK:
            raise CosseratError(
                f"set_drive: joint {joint}: expected a joint with a drive and a finite value, got {v}", Status.BAD_INPUT
            )

    def __repr__(self):
        tip = ", ".join(f"{v:.6g}" for v in self.tip_position)
        return f"<cosserat.Sample t={self.t:.6g} s, tip ({tip})>"


@dataclasses.dataclass(repr=False, eq=False)
class Result:
    """The outcome of :func:`run`; every array is a copy owned by Python.

    Nodes (N) and strain sample points (E), arc lengths in the reference configuration;
    strains and stress resultants are in the body basis. For the mixed discrete and lgvi rods
    N = elements + 1 and the samples are the element midpoints; for the port-Hamiltonian rod N
    counts every finite-element node and the samples are the Gauss points.

    Attributes:
        s:           (N,) node arc lengths.
        positions:   (N, 3) node positions r_i (inertial).
        quaternions: (N, 4) node orientations (p0, p1, p2, p3), scalar first.
        element_s:   (E,) element midpoint arc lengths.
        gamma:       (E, 3) translational strains (γ_x = stretch, 1 in the reference).
        kappa:       (E, 3) curvatures and twist.
        n:           (E, 3) force resultants.
        m:           (E, 3) moment resultants.
        converged:   True when the load factor 1 was reached in every stage.
        status:      :class:`Status` of the run (``Status.OK``, ``Status.NOT_CONVERGED``, ...).
        message:     the library's message; ``""`` on success, else where the solve stopped.
        load_factor: load factor of the returned state (1 when converged).
        load_steps:  number of accepted load steps (of the last stage).
        load_factors:      load factor reached by each accepted load step.
        newton_iterations: Newton iterations of each accepted load step.
        residual_history:  per accepted load step, the RMS residual before each iteration and at the end.
        reactions:   list of :class:`Reaction` at the constrained nodes.
        wall_time_s: time spent in the library call (seconds).
        final_residual:    RMS residual of the returned state (last static stage), as in summary.json.
        failed_load_steps: load steps of the last static stage that had to be halved.
        series:      dynamic stages: ``{column: (rows,) array}`` with the columns of series.csv
                     (``t``, ``energy_kinetic``, ..., ``bob_z``, ``bob_yaw``, ...); empty for
                     purely static runs.
        snapshots:   with ``run(..., keep_snapshots=True)``, a :class:`Snapshots` (t, positions,
                     quaternions at every output time of the dynamic stages); else None.
        inputs:      (loads,) the actuator input factor of each load at the end (1 unless set).
        stage_count: the number of stages of the scenario.
        warnings:    the run's sanity warnings (docs/scenario.md, Warnings) as :class:`RunWarning`
                     tuples (code, key, message); empty when there are none.
        tip_node:    the node summary.json calls the tip: the free end (node 0 of a rod clamped
                     at its last node only), or the ``output.track`` point named ``tip``.
        rod_names:   the rods' names (``["rod"]`` for one rod); an assembly's nodes and samples
                     are numbered rod by rod (:attr:`rods` gives each rod's part).
        rod_first_node, rod_first_element: (rods + 1) lists: where each rod's nodes and samples start.
        joints:      an assembly's joints' reactions, as :class:`JointReaction` (empty for one rod).
        bodies:      ``{NAME: Body}``: the rigid bodies (welded to nodes, and an assembly's free
                     bodies) with their centre, quaternion, rotation matrix, mass, velocity and
                     angular velocity (its axes) in the returned state, and over the dynamic stages
                     their :class:`BodyHistory` (from :attr:`series`); ``{}`` without bodies.
        contact:     with obstacles, the final state's :class:`Contact` (per node the contact force,
                     normal force, gap and stick/slide state; the totals of summary.json's
                     ``contact``); None without. The series' contact columns are in :attr:`series`.

    The state is the equilibrium when converged, else the last converged load step.
    """

    s: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray
    element_s: np.ndarray
    gamma: np.ndarray
    kappa: np.ndarray
    n: np.ndarray
    m: np.ndarray
    converged: bool
    status: Status
    message: str
    load_factor: float
    load_steps: int
    load_factors: List[float]
    newton_iterations: List[int]
    residual_history: List[np.ndarray]
    reactions: List[Reaction]
    wall_time_s: float
    series: dict = None
    final_residual: float = float("nan")
    failed_load_steps: int = 0
    model: str = "mixed_discrete"
    snapshots: Optional[Snapshots] = None
    inputs: np.ndarray = None
    stage_count: int = 1
    warnings: List["RunWarning"] = dataclasses.field(default_factory=list)
    tip_node: int = -1
    rod_names: List[str] = dataclasses.field(default_factory=lambda: ["rod"])
    rod_first_node: List[int] = None
    rod_first_element: List[int] = None
    joints: List[JointReaction] = dataclasses.field(default_factory=list)
    contact: Optional["Contact"] = None
    bodies: dict = dataclasses.field(default_factory=dict)

    @property
    def rods(self):
        """``{NAME: Rod}``: each rod's nodes and samples (one entry ``"rod"`` for one rod)."""
        fn = self.rod_first_node or [0, len(self.s)]
        fe = self.rod_first_element or [0, len(self.element_s)]
        out = {}
        for k, name in enumerate(self.rod_names):
            a, b = slice(fn[k], fn[k + 1]), slice(fe[k], fe[k + 1])
            out[name] = Rod(name, a, b, self.s[a], self.positions[a], self.quaternions[a], self.element_s[b],
                            self.gamma[b], self.kappa[b], self.n[b], self.m[b])
        return out

    @property
    def node_count(self):
        """N, the number of nodes."""
        return len(self.s)

    @property
    def element_count(self):
        """E, the number of strain sample points (elements for the mixed and lgvi rods)."""
        return len(self.element_s)

    @property
    def tip_position(self):
        """(3,) position of the tip node (:attr:`tip_node`: the free end), as summary.json's tip."""
        return self.positions[self.tip_node]

    @property
    def tip_quaternion(self):
        """(4,) orientation of the tip node (:attr:`tip_node`)."""
        return self.quaternions[self.tip_node]

    @property
    def track(self):
        """``{NAME: Track(t, position, quaternion)}``: the recorded points (``output.track``;
        by default ``tip`` at the free end) over the rows of :attr:`series` (dynamic stages;
        ``{}`` for static runs, whose points are the nodes of :attr:`positions`)."""
        from .output import tracks

        return tracks(self.series)

    @property
    def frames(self):
        """(N, 3, 3) nodal rotation matrices; column k is body axis k in inertial components."""
        return quat_to_matrix(self.quaternions)

    @property
    def total_newton_iterations(self):
        """Sum of :attr:`newton_iterations`."""
        return int(sum(self.newton_iterations))

    def plot(self, path=None, *, times=8, ax=None, equal=True, plane=None):
        """Draws the centerline: with :attr:`snapshots`, at `times` evenly spaced output times
        (an int) or at the output times nearest the given times (a sequence, s), coloured by
        time with a colour bar, the final state dashed; else the final (static) shape. Axes in
        m, one scale on all three (`equal=False`: each axis fits its extent, for small
        deflections); `plane` ("xz", "xy", ...) draws the projection on that plane in 2-D instead.
        Returns the matplotlib Figure (drawn into `ax`, a 3-D Axes or with `plane` a 2-D one, when
        given); writes it to `path` when given. Needs matplotlib."""
        from ._notebook import plot_result

        return plot_result(self, path, times=times, ax=ax, equal=equal, plane=plane)

    def animate(self, path=None, *, fps=20, max_frames=200, plane=None):
        """A matplotlib animation of :attr:`snapshots` (at most `max_frames` frames, evenly spaced).
        `path` ``.gif``: written with ffmpeg when installed, else with Pillow; a video (``.mp4``,
        ``.mov``, ``.mkv``, ``.avi``, ``.webm``, ``.m4v``): with ffmpeg, and without it a ``.gif``
        of the same name with Pillow and a UserWarning naming the file written; ``.html``: a page
        with the animation (``to_jshtml``). The writer is checked before any frame is drawn: no
        writer for the file raises RuntimeError, another extension ValueError. Returns the path
        written, or, without `path`,
        an object that a notebook shows as the animation (``str()`` gives the HTML). `plane`
        ("xz", ...) animates the projection on that plane in 2-D, as in :meth:`plot`."""
        from ._notebook import animate_result

        return animate_result(self, path, fps=fps, max_frames=max_frames, plane=plane)

    def _repr_html_(self):
        from ._notebook import result_html

        return result_html(self)

    def __repr__(self):
        state = "converged" if self.converged else f"{self.status}: {self.message}"
        tip = ", ".join(f"{v:.6g}" for v in self.tip_position)
        return (
            f"<cosserat.Result {state}; {self.element_count} elements, {self.load_steps} load steps, "
            f"{self.total_newton_iterations} Newton iterations, tip ({tip})>"
        )


def _array(n, *shape):
    return np.zeros((n,) + shape, dtype=np.float64)


def _ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def _extract(L, res, status, message, wall, snapshots=None, tip_node=-1):
    """Copies everything out of a cr_run_result (which the caller frees afterwards)."""
    sim = L.cr_run_result_sim(res)
    nn = L.cr_sim_node_count(sim)
    ne = L.cr_sim_sample_count(sim)
    s, pos, quat, es, el = _array(nn), _array(nn, 3), _array(nn, 4), _array(ne), _array(ne, 12)
    L.cr_sim_get_node_s(sim, _ptr(s))
    L.cr_sim_get_sample_s(sim, _ptr(es))
    L.cr_sim_get_positions(sim, _ptr(pos))
    L.cr_sim_get_orientations(sim, _ptr(quat))
    L.cr_sim_get_samples(sim, _ptr(el))
    steps = L.cr_run_result_step_count(res)
    iterations, factors, history = [], [], []
    for k in range(steps):
        iterations.append(int(L.cr_run_result_step_iterations(res, k)))
        factors.append(float(L.cr_run_result_step_load_factor(res, k)))
        count = ctypes.c_int(0)
        h = L.cr_run_result_step_history(res, k, ctypes.byref(count))
        history.append(np.ctypeslib.as_array(h, shape=(count.value,)).copy() if count.value > 0 else np.zeros(0))
    series = {}
    ncol, nrow = L.cr_run_result_series_columns(res), L.cr_run_result_series_rows(res)
    if ncol > 0 and nrow > 0:
        data = np.ctypeslib.as_array(L.cr_run_result_series_data(res), shape=(nrow, ncol)).copy()
        for k in range(ncol):
            series[L.cr_run_result_series_name(res, k).decode()] = data[:, k].copy()
    reactions = []
    f, mo = _lib.CrVec3(), _lib.CrVec3()
    for i in range(nn):
        if L.cr_sim_reaction(sim, i, ctypes.byref(f), ctypes.byref(mo)) == Status.OK:
            reactions.append(Reaction(i, np.array([f.x, f.y, f.z]), np.array([mo.x, mo.y, mo.z])))
    nr = L.cr_sim_rod_count(sim)
    joints = []
    for j in range(L.cr_sim_joint_count(sim)):
        if L.cr_sim_joint_reaction(sim, j, ctypes.byref(f), ctypes.byref(mo)) == Status.OK:
            joints.append(JointReaction(L.cr_sim_joint_name(sim, j).decode(), np.array([f.x, f.y, f.z]),
                                        np.array([mo.x, mo.y, mo.z])))
    bodies = {}
    R = _lib.CrMat3()
    for j in range(L.cr_sim_body_count(sim)):
        L.cr_sim_body_pose(sim, j, ctypes.byref(f), ctypes.byref(R))
        name = L.cr_sim_body_name(sim, j).decode()
        rot = np.array([[R.m[i][k] for k in range(3)] for i in range(3)])
        v, w = _lib.CrVec3(), _lib.CrVec3()
        L.cr_sim_body_velocity(sim, j, ctypes.byref(v), ctypes.byref(w))
        bodies[name] = Body(name, np.array([f.x, f.y, f.z]), matrix_to_quat(rot), rot,
                            float(L.cr_sim_body_mass(sim, j)), body_history(series, name),
                            np.array([v.x, v.y, v.z]), np.array([w.x, w.y, w.z]))
    contact = None
    cs = _lib.CrContactSample()
    if L.cr_sim_contact(sim, 0, ctypes.byref(cs)):
        cf, cn, cg, cst = _array(nn, 3), _array(nn), _array(nn), np.zeros(nn, dtype=int)
        for i in range(nn):
            L.cr_sim_contact(sim, i, ctypes.byref(cs))
            cf[i] = (cs.force.x, cs.force.y, cs.force.z)
            cn[i], cg[i], cst[i] = cs.normal, cs.gap, cs.state
        contact = Contact(cf, cn, cg, cst, float(cs.tolerance))
    return Result(
        s=s,
        positions=pos,
        quaternions=quat,
        element_s=es,
        gamma=el[:, 0:3].copy(),
        kappa=el[:, 3:6].copy(),
        n=el[:, 6:9].copy(),
        m=el[:, 9:12].copy(),
        converged=status == Status.OK,
        status=Status.of(status),
        message=message,
        load_factor=float(L.cr_sim_load_factor(sim)),
        load_steps=steps,
        load_factors=factors,
        newton_iterations=iterations,
        residual_history=history,
        reactions=reactions,
        wall_time_s=wall,
        series=series,
        final_residual=L.cr_run_result_final_residual(res),
        failed_load_steps=L.cr_run_result_failed_load_steps(res),
        model=L.cr_sim_formulation(sim).decode(),
        snapshots=snapshots,
        inputs=np.array([L.cr_sim_load_input(sim, k) for k in range(L.cr_sim_load_count(sim))]),
        stage_count=int(L.cr_run_result_stage_count(res)),
        warnings=_warnings(L, res),
        tip_node=tip_node,
        rod_names=[L.cr_sim_rod_name(sim, r).decode() for r in range(nr)],
        rod_first_node=[int(L.cr_sim_rod_first_node(sim, r)) for r in range(nr + 1)],
        rod_first_element=[int(L.cr_sim_rod_first_sample(sim, r)) for r in range(nr + 1)],
        joints=joints,
        contact=contact,
        bodies=bodies,
    )


def _warnings(L, res):
    """The run's sanity warnings as RunWarning tuples."""
    out = []
    for k in range(int(L.cr_run_result_warning_count(res))):
        key, message = ctypes.c_char_p(), ctypes.c_char_p()
        code = L.cr_run_result_warning(res, k, ctypes.byref(key), ctypes.byref(message))
        if code is None:
            continue
        out.append(RunWarning(code.decode(), (key.value or b"").decode(), (message.value or b"").decode()))
    return out


def _load_scenario(L, scenario, overrides):
    """Parses `scenario` (dict, JSON text or path) with overrides; returns the cr_scenario pointer."""
    strings = [o.encode("utf-8") for o in _override_strings(overrides)]
    arr = (ctypes.c_char_p * max(len(strings), 1))(*strings)
    out = ctypes.c_void_p()
    err = _lib.CrError()
    if isinstance(scenario, Mapping):
        st = L.cr_scenario_load_string(_to_json(scenario).encode("utf-8"), arr, len(strings), ctypes.byref(out), ctypes.byref(err))
    elif isinstance(scenario, str) and scenario.lstrip().startswith("{"):
        st = L.cr_scenario_load_string(scenario.encode("utf-8"), arr, len(strings), ctypes.byref(out), ctypes.byref(err))
    elif isinstance(scenario, (str, bytes, os.PathLike)):
        st = L.cr_scenario_load_file(os.fsencode(scenario), arr, len(strings), ctypes.byref(out), ctypes.byref(err))
    else:
        raise TypeError(f"scenario must be a dict, a path or JSON text, not {type(scenario).__name__}")
    if st != Status.OK or not out.value:
        raise CosseratError(err.text() or f"scenario rejected ({Status.of(st)})", Status.of(st))
    return out.value


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`run`; ``result`` holds the partial :class:`Result` (the state and
    series up to the interruption; outputs and a checkpoint are on disk when ``output_dir`` was
    given, and a dynamic stage continues with the CLI's ``--resume``)."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


def run(
    scenario,
    overrides: Optional[Mapping] = None,
    output_dir: Optional[str] = None,
    *,
    check: bool = False,
    on_step: Optional[Callable[[Step], Optional[bool]]] = None,
    on_sample: Optional[Callable[["Sample"], Optional[bool]]] = None,
    inputs: Optional[Mapping] = None,
    keep_snapshots: bool = False,
) -> Result:
    """Solves a scenario and returns its :class:`Result`.

    Args:
        scenario:   a dict in the scenario format (docs/scenario.md), a path to a scenario file,
                    or JSON text (a str starting with ``{``).
        overrides:  ``{PATH: value}`` applied before validation, exactly like the CLI's
                    ``--set PATH=VALUE`` (values are JSON-encoded): ``{"rod.elements": 250,
                    "loads.0.value": [0, 0, -1]}``. A list of ``"PATH=VALUE"`` strings works too.
        output_dir: also write summary.json, nodes.csv, elements.csv and rod.pvd + .vtp files
                    there (created if needed), like ``cosserat run -o DIR``. Default: no files.
        check:      raise :class:`CosseratError` (with ``.result`` set) when the solver fails,
                    instead of returning a Result with ``converged == False``.
        on_step:    called with a :class:`Step` after every accepted load step; return True to
                    stop the solve (the Result then has status ``Status.INTERRUPTED``). An
                    exception raised in it stops the solve and is re-raised by ``run``.
        on_sample:  called with a :class:`Sample` at every output time of the dynamic stages
                    (``output_dt``; the stage start included): the state as numpy arrays, and
                    ``sample.set_input(load, value)`` to set a load's actuator input for the next
                    output interval (a controller in the loop). Return True, or raise
                    :class:`StopRun`, to stop the run at this time (status ``Status.INTERRUPTED``);
                    another exception stops it and is re-raised by ``run``.
        inputs:     ``{load: factor}``, the actuator inputs from the start of the first dynamic
                    stage (load: index, ``"loads.N"`` or the type of the only load of that type);
                    every input is 1 by default and multiplies the load's magnitude in dynamic
                    stages only.
        keep_snapshots: keep the node positions and quaternions at every output time of the
                    dynamic stages in :attr:`Result.snapshots` (memory: 56 bytes × nodes × rows).

    Ctrl-C (SIGINT, when ``run`` is called from the main thread) stops the run cleanly at the next
    step, within about 0.2 s in dynamic stages: every output is written (with a checkpoint in a
    dynamic stage) and :class:`RunInterrupted`, a ``KeyboardInterrupt``, is raised with the
    partial :class:`Result` in its ``result`` attribute.

    Raises:
        CosseratError: invalid scenario or override (the message starts with the JSON path of
            the offending value), unreadable file, unwritable output directory, or a solver
            failure with ``check=True``.
    """
    L = _lib.lib()
    sc = _load_scenario(L, scenario, overrides)
    res = None
    caught = []
    try:
        res = L.cr_run_result_create()
        if not res:
            raise CosseratError("out of memory", Status.NO_MEMORY)
        opts = _lib.CrRunOptions()
        opts.output_directory = b"" if output_dir is None else os.fsencode(output_dir)
        callback = None
        # Ctrl-C: the library runs without returning to Python, so a Python-level SIGINT handler
        # only sets the library's stop flag; it runs at the next callback (after each load step,
        # at least every 0.2 s of a dynamic stage), and the run ends cleanly at the next step.
        stop = ctypes.c_int(0)
        opts.stop = ctypes.pointer(stop)
        progress = _lib.PROGRESS_FN(lambda t, t_end, steps, wall_s, user: None)
        opts.on_progress = progress
        previous_handler = None
        if threading.current_thread() is threading.main_thread():

            def on_sigint(signum, frame):
                stop.value = 1

            previous_handler = signal.signal(signal.SIGINT, on_sigint)
        if on_step is None:
            callback = _lib.STEP_FN(lambda sim, step, index, user: 0)
            opts.on_step = callback
        else:

            def trampoline(sim, step, index, user):
                try:
                    rep = step.contents
                    hist = rep.residual_history
                    h = np.ctypeslib.as_array(hist, shape=(rep.history_count,)).copy() if rep.history_count > 0 else np.zeros(0)
                    nn = L.cr_sim_node_count(sim)
                    pos, quat = _array(nn, 3), _array(nn, 4)
                    L.cr_sim_get_positions(sim, _ptr(pos))
                    L.cr_sim_get_orientations(sim, _ptr(quat))
                    stop = on_step(Step(index, rep.load_factor, rep.iterations, h, pos, quat))
                    return 1 if stop else 0
                except BaseException as e:  # noqa: B036 — cannot cross the C frame; re-raised below
                    caught.append(e)
                    return 1

            callback = _lib.STEP_FN(trampoline)
            opts.on_step = callback
        snaps = {"t": [], "positions": [], "quaternions": []}
        pending = dict(inputs or {})
        output_cb = None
        if on_sample is not None or inputs or keep_snapshots:

            def output_trampoline(sim, smp, user):
                try:
                    while pending:  # the initial inputs, at the first output time
                        k, v = pending.popitem()
                        if L.cr_sim_set_load_input(sim, _load_index(L, sim, k), float(v)) != Status.OK:
                            raise CosseratError(f"inputs: load {k}: the input must be finite, got {v}", Status.BAD_INPUT)
                    if keep_snapshots:
                        nn = L.cr_sim_node_count(sim)
                        pos, quat = _array(nn, 3), _array(nn, 4)
                        L.cr_sim_get_positions(sim, _ptr(pos))
                        L.cr_sim_get_orientations(sim, _ptr(quat))
                        snaps["t"].append(smp.contents.t)
                        snaps["positions"].append(pos)
                        snaps["quaternions"].append(quat)
                    if on_sample is None:
                        return 0
                    sample = Sample(L, sim, smp.contents)
                    sample.tip_node = int(L.cr_scenario_tip_node(sc, sim))
                    try:
                        stop_now = on_sample(sample)
                    finally:
                        sample._sim = None
                    return 1 if stop_now else 0
                except StopRun:
                    return 1
                except BaseException as e:  # noqa: B036 — cannot cross the C frame; re-raised below
                    caught.append(e)
                    return 1

            output_cb = _lib.OUTPUT_FN(output_trampoline)
            opts.on_output = output_cb
            # observing only (snapshots): the mixed rod keeps its step sequence
            opts.output_passive = 1 if on_sample is None and not inputs else 0
        err = _lib.CrError()
        t0 = time.perf_counter()
        try:
            st = L.cr_scenario_run(sc, ctypes.byref(opts), res, ctypes.byref(err))
        finally:
            if previous_handler is not None:
                signal.signal(signal.SIGINT, previous_handler)
        wall = time.perf_counter() - t0
        if caught:
            raise caught[0]
        message = err.text() if st != Status.OK else ""
        if not L.cr_run_result_sim(res):
            raise CosseratError(message or f"run failed ({Status.of(st)})", Status.of(st))
        snapshots = None
        if keep_snapshots:
            nn = L.cr_sim_node_count(L.cr_run_result_sim(res))
            snapshots = Snapshots(
                np.array(snaps["t"], dtype=float),
                np.array(snaps["positions"]).reshape(-1, nn, 3),
                np.array(snaps["quaternions"]).reshape(-1, nn, 4),
            )
        tip_node = int(L.cr_scenario_tip_node(sc, L.cr_run_result_sim(res)))
        result = _extract(L, res, st, message, wall, snapshots, tip_node)
        if stop.value and st == Status.INTERRUPTED:
            raise RunInterrupted(message, result)
        if st < 0:  # fatal after the solve (e.g. the output directory is not writable)
            raise CosseratError(message, Status.of(st), result)
        if check and st != Status.OK:
            raise CosseratError(message, Status.of(st), result)
        return result
    finally:
        if res:
            L.cr_run_result_destroy(res)
        L.cr_scenario_destroy(sc)
