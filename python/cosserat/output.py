"""Reading a run's output folder (what ``cosserat run -o DIR`` or ``run(..., output_dir=DIR)`` writes).

Pure Python + numpy; does not need the C library. Files (include/cosserat/output.h):

* ``summary.json``  convergence, Newton iterations, residual history, tip pose, reactions
* ``nodes.csv``     ``s,x,y,z,p0,p1,p2,p3``, one row per node
* ``elements.csv``  ``s,gamma_x..z,kappa_x..z,n_x..z,m_x..z``, one row per element
* ``rod.pvd``       ParaView collection of ``rod_NNNN.vtp`` (VTK PolyData, binary or ASCII), one per
                    load step and snapshot time
* ``series.csv``    (dynamics) one row per time, a ``t`` column and any number of others; each
                    recorded point NAME of ``output.track`` as ``NAME_x..z, NAME_p0..p3``
"""

import base64
import dataclasses
import json
import math
import os
import struct
import zlib
import xml.etree.ElementTree as ET
from typing import Dict, List, NamedTuple, Optional

import numpy as np


def read_csv(path):
    """A CSV with one header line → ``{column name: 1-D float array}`` (in header order)."""
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip()
        if not header:
            raise ValueError(f"{path}: empty file (no header line)")
        names = [h.strip() for h in header.split(",")]
        if names and names[0] == "rod":  # an assembly's nodes.csv / elements.csv: the rod's name first
            rows = [line.rstrip("\n").split(",", 1) for line in f if line.strip()]
            rod = np.array([r[0] for r in rows], dtype=str)
            data = np.array([[float(v) for v in r[1].split(",")] for r in rows]).reshape(len(rows), len(names) - 1)
            return {"rod": rod, **{name: data[:, k].copy() for k, name in enumerate(names[1:])}}
        data = np.loadtxt(f, delimiter=",", ndmin=2)
    if data.size == 0:
        data = np.zeros((0, len(names)))
    if data.shape[1] != len(names):
        raise ValueError(f"{path}: {data.shape[1]} columns but {len(names)} names in the header")
    return {name: data[:, k].copy() for k, name in enumerate(names)}


_VTK_TYPES = {"Float64": "f8", "Float32": "f4", "Int64": "i8", "Int32": "i4", "Int16": "i2", "Int8": "i1",
              "UInt64": "u8", "UInt32": "u4", "UInt16": "u2", "UInt8": "u1"}


def _b64len(nbytes):
    return (nbytes + 2) // 3 * 4


class _VtkBinary:
    """How a VTK XML file stores binary data: byte order, header integer type, compression, and
    its appended section (bytes after the '_', raw or base64 text) when it has one."""

    def __init__(self, root, appended, encoding):
        self.order = ">" if root.get("byte_order", "LittleEndian") == "BigEndian" else "<"
        self.header = self.order + ("Q" if root.get("header_type", "UInt32") == "UInt64" else "I")
        self.hsize = struct.calcsize(self.header)
        compressor = root.get("compressor", "")
        if compressor not in ("", "vtkZLibDataCompressor"):
            raise ValueError(f"compressor '{compressor}' is not supported (only vtkZLibDataCompressor)")
        self.zlib = compressor == "vtkZLibDataCompressor"
        self.appended = appended
        self.encoding = encoding

    def _ints(self, raw, count):
        return struct.unpack(self.order + self.header[1] * count, raw[: count * self.hsize])

    def decode(self, buf, offset, b64):
        """The bytes of one array stored at `offset` of `buf`: raw bytes, or base64 text (VTK's
        writer encodes a compressed array's header apart from its blocks, and an uncompressed
        array's byte count and data as one text)."""
        h = self.hsize
        if not b64:
            get = lambda start, n: bytes(buf[offset + start: offset + start + n])
            hdr_len = lambda k: k * h
        else:
            get_text = lambda start, n: base64.b64decode(bytes(buf[offset + start: offset + start + _b64len(n)]))
        if not self.zlib:
            if not b64:
                (n,) = self._ints(get(0, h), 1)
                data = get(h, n)
            else:
                (n,) = self._ints(get_text(0, h), 1)
                if bytes(buf[offset + _b64len(h) - 1: offset + _b64len(h)]) == b"=":  # encoded apart
                    data = get_text(_b64len(h), n)
                else:  # VTK's writer encodes the count and the data as one base64 text
                    data = get_text(0, h + n)[h:]
            if len(data) != n:
                raise ValueError("binary data shorter than its header says")
            return data
        if not b64:
            blocks, _, _ = self._ints(get(0, 3 * h), 3)
            head = self._ints(get(0, hdr_len(3 + blocks)), 3 + blocks)
            start = hdr_len(3 + blocks)
            raw = get(start, sum(head[3:]))
        else:
            blocks, _, _ = self._ints(get_text(0, 3 * h), 3)
            head = self._ints(get_text(0, (3 + blocks) * h), 3 + blocks)
            raw = get_text(_b64len((3 + blocks) * h), sum(head[3:]))
        out, pos = [], 0
        for c in head[3:]:
            out.append(zlib.decompress(raw[pos:pos + c]))
            pos += c
        data = b"".join(out)
        block, last = head[1], head[2]
        want = (blocks - 1) * block + (last if last else block) if blocks else 0
        if len(data) != want:
            raise ValueError(f"compressed data of {len(data)} bytes, the header says {want}")
        return data


def _data_array(el, path, binary=None):
    fmt = el.get("format", "ascii")
    comps = int(el.get("NumberOfComponents", "1"))
    if fmt == "ascii":
        values = np.array((el.text or "").split(), dtype=float)
    elif fmt in ("appended", "binary"):
        vtype = el.get("type", "Float64")
        if vtype not in _VTK_TYPES:
            raise ValueError(f"{path}: DataArray type '{vtype}' is not supported")
        if fmt == "appended":
            if binary is None or binary.appended is None:
                raise ValueError(f"{path}: DataArray '{el.get('Name', '')}' is appended but there is no AppendedData")
            raw = binary.decode(binary.appended, int(el.get("offset", "0")), binary.encoding == "base64")
        else:
            raw = binary.decode("".join((el.text or "").split()).encode(), 0, True)
        values = np.frombuffer(raw, dtype=binary.order + _VTK_TYPES[vtype]).astype(float)
    else:
        raise ValueError(f"{path}: DataArray format '{fmt}' is not supported (ascii, binary or appended)")
    if comps > 1:
        if values.size % comps:
            raise ValueError(f"{path}: DataArray '{el.get('Name', '')}' length not a multiple of {comps}")
        values = values.reshape(-1, comps)
    return values


def _parse_vtk_xml(path):
    """The XML tree of a VTK XML file and how its binary data are stored. An appended section
    in raw encoding is not XML: the tree is parsed from the text before it."""
    with open(path, "rb") as f:
        data = f.read()
    i = data.find(b"<AppendedData")
    if i < 0:
        root = ET.fromstring(data)
        return root, _VtkBinary(root, None, None)
    j = data.index(b">", i)
    tag = ET.fromstring(data[i:j].rstrip(b"/") + b"/>")
    u = data.index(b"_", j)
    root = ET.fromstring(data[:i] + b"</VTKFile>")
    encoding = tag.get("encoding", "raw")
    if encoding not in ("raw", "base64"):
        raise ValueError(f"{path}: AppendedData encoding '{encoding}' is not supported")
    return root, _VtkBinary(root, memoryview(data)[u + 1:], encoding)


@dataclasses.dataclass
class Snapshot:
    """One VTK PolyData piece: points (N, 3) plus named point and cell arrays, and the file's
    field data (``time``, ``load_factor``, ``stage`` as 1-element arrays, ``sample_*``)."""

    time: float
    points: np.ndarray
    point_data: Dict[str, np.ndarray]
    cell_data: Dict[str, np.ndarray]
    path: str
    field_data: Dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


def read_vtp(path, time=float("nan")):
    """Reads a ``.vtp`` file (the first Piece) into a :class:`Snapshot`: ASCII, or binary in
    appended (raw or base64) or inline data, zlib-compressed or not, as VTK writes them."""
    try:
        root, binary = _parse_vtk_xml(path)
    except (ValueError, ET.ParseError) as e:
        raise ValueError(f"{path}: {e}") from None
    piece = root.find("./PolyData/Piece")
    if piece is None:
        raise ValueError(f"{path}: no PolyData/Piece element")
    pts = piece.find("./Points/DataArray")
    if pts is None:
        raise ValueError(f"{path}: no Points/DataArray element")
    arrays = lambda where: {a.get("Name", f"array{k}"): _data_array(a, path, binary)
                            for k, a in enumerate(where.findall("./DataArray"))} if where is not None else {}
    points = _data_array(pts, path, binary).reshape(-1, 3)
    n = int(piece.get("NumberOfPoints", len(points)))
    if n != len(points):
        raise ValueError(f"{path}: NumberOfPoints={n} but {len(points)} points")
    pdata = arrays(piece.find("./PointData"))
    cdata = arrays(piece.find("./CellData"))
    fdata = arrays(root.find("./PolyData/FieldData"))
    return Snapshot(time, points, pdata, cdata, path, fdata)


def read_pvd(path):
    """Reads a ParaView collection → list of :class:`Snapshot` in file order (time = ``timestep``);
    the rod's datasets only (part 0; part 1 holds the rigid bodies)."""
    root = ET.parse(path).getroot()
    base = os.path.dirname(path)
    out = []
    for ds in root.iter("DataSet"):
        f = ds.get("file")
        if not f or ds.get("part", "0") != "0":
            continue
        out.append(read_vtp(os.path.join(base, f), float(ds.get("timestep", "nan"))))
    return out


_TRACK_SUFFIXES = ("x", "y", "z", "p0", "p1", "p2", "p3")


class Track(NamedTuple):
    """A recorded point (``output.track``) over time: ``t`` (rows,), ``position`` (rows, 3) in the
    inertial frame, ``quaternion`` (rows, 4), the unit quaternion of the node's body basis,
    scalar first."""

    t: np.ndarray
    position: np.ndarray
    quaternion: np.ndarray


def tracks(series):
    """The recorded points of a ``series.csv`` table ``{column: array}``: ``{NAME: Track}`` for
    every NAME with the columns ``NAME_x, NAME_y, NAME_z, NAME_p0..p3`` (in column order;
    rigid bodies, which have no quaternion columns, are not points). ``{}`` without a series."""
    if not series or "t" not in series:
        return {}
    out = {}
    for column in series:
        if not column.endswith("_p0"):
            continue
        name = column[:-3]
        cols = [f"{name}_{c}" for c in _TRACK_SUFFIXES]
        if all(c in series for c in cols):
            out[name] = Track(
                np.asarray(series["t"]),
                np.column_stack([series[c] for c in cols[:3]]),
                np.column_stack([series[c] for c in cols[3:]]),
            )
    return out


class BodyHistory(NamedTuple):
    """A rigid body over the rows of ``series.csv`` (dynamic stages): ``t`` (rows,), ``center``
    (rows, 3) its centre of mass (inertial), and its Z-Y-X angles in degrees, each (rows,):
    ``yaw`` about I_z (unwrapped), then ``pitch``, then ``roll`` (the series' columns
    ``NAME_x, NAME_y, NAME_z, NAME_yaw, NAME_pitch, NAME_roll``)."""

    t: np.ndarray
    center: np.ndarray
    yaw: np.ndarray
    pitch: np.ndarray
    roll: np.ndarray


class Body(NamedTuple):
    """A rigid body (``rigid_bodies``: welded to a node, or an assembly's free body) in the final
    state: ``center`` (3,) its centre of mass (inertial), ``quaternion`` (4,) its axes (scalar
    first, ``p0 >= 0``, as summary.json's), ``rotation`` (3, 3) the same axes as columns in
    inertial components, ``mass`` (kg; NaN when not known, e.g. an output folder without
    ``bodies_NNNN.vtp``), ``history`` (:class:`BodyHistory`) over the dynamic stages' output
    times, or None for static runs; ``velocity`` (3,) its centre's velocity (inertial, m/s) and
    ``angular_velocity`` (3,) its angular velocity in its own axes (rad/s; as a node's), zeros in
    statics: a welded body moves rigidly with its node; a free body's are NaN when its
    formulation does not report them (the mixed assemblies' free bodies in this version), and
    both are None when not known (an output folder without ``bodies_NNNN.vtp`` velocities)."""

    name: str
    center: np.ndarray
    quaternion: np.ndarray
    rotation: np.ndarray
    mass: float
    history: Optional[BodyHistory] = None
    velocity: Optional[np.ndarray] = None
    angular_velocity: Optional[np.ndarray] = None


def matrix_to_quat(a):
    """The unit quaternion (p0, p1, p2, p3), p0 >= 0, of a rotation matrix ``a`` (3, 3) — the
    library's conversion (Shepperd's method), so the values match summary.json's to round-off."""
    a = np.asarray(a, dtype=float)
    tr = a[0, 0] + a[1, 1] + a[2, 2]
    c = [1 + tr, 1 + 2 * a[0, 0] - tr, 1 + 2 * a[1, 1] - tr, 1 + 2 * a[2, 2] - tr]
    k = int(np.argmax(c))
    s = 0.5 * math.sqrt(c[k])
    f = 0.25 / s
    if k == 0:
        q = [s, (a[2, 1] - a[1, 2]) * f, (a[0, 2] - a[2, 0]) * f, (a[1, 0] - a[0, 1]) * f]
    elif k == 1:
        q = [(a[2, 1] - a[1, 2]) * f, s, (a[0, 1] + a[1, 0]) * f, (a[0, 2] + a[2, 0]) * f]
    elif k == 2:
        q = [(a[0, 2] - a[2, 0]) * f, (a[0, 1] + a[1, 0]) * f, s, (a[1, 2] + a[2, 1]) * f]
    else:
        q = [(a[1, 0] - a[0, 1]) * f, (a[0, 2] + a[2, 0]) * f, (a[1, 2] + a[2, 1]) * f, s]
    q = np.array(q)
    if q[0] < 0:
        q = -q
    return q / np.linalg.norm(q)


def _quat_matrix(q):
    p0, p1, p2, p3 = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (p2 * p2 + p3 * p3), 2 * (p1 * p2 - p0 * p3), 2 * (p1 * p3 + p0 * p2)],
                     [2 * (p1 * p2 + p0 * p3), 1 - 2 * (p1 * p1 + p3 * p3), 2 * (p2 * p3 - p0 * p1)],
                     [2 * (p1 * p3 - p0 * p2), 2 * (p2 * p3 + p0 * p1), 1 - 2 * (p1 * p1 + p2 * p2)]])


def body_history(series, name):
    """:class:`BodyHistory` of body ``name`` from a series table, or None when it has no columns."""
    cols = [f"{name}_{c}" for c in ("x", "y", "z", "yaw", "pitch", "roll")]
    if not series or "t" not in series or not all(c in series for c in cols):
        return None
    return BodyHistory(np.asarray(series["t"]), np.column_stack([series[c] for c in cols[:3]]),
                       *(np.asarray(series[c]) for c in cols[3:]))


@dataclasses.dataclass(repr=False, eq=False)
class Contact:
    """The rod's contact with the obstacles in the final state (docs/scenario.md ``obstacles``).

    Per node (N rows): ``force`` (N, 3) the total contact force on it (N, inertial),
    ``normal`` (N,) the sum of its normal forces (N; None when read from files: nodes.csv has no
    such column, and :attr:`normal_force` is then summary.json's), ``gap`` (N,) its smallest gap φ − a to an
    obstacle (m; negative: penetration; ``inf`` when none is near), ``state`` (N,) 0 free,
    1 sticking (or frictionless), 2 sliding at the Coulomb limit; ``tolerance`` the contact
    tolerance (m). The totals are summary.json's ``contact``."""

    force: np.ndarray
    normal: np.ndarray
    gap: np.ndarray
    state: np.ndarray
    tolerance: float
    summary_normal_force: Optional[float] = None  # from files: summary.json's contact.normal_force

    @property
    def active(self):
        """Nodes touching an obstacle."""
        return int(np.count_nonzero(self.state))

    @property
    def sliding(self):
        """Touching nodes sliding at the Coulomb limit."""
        return int(np.count_nonzero(self.state == 2))

    @property
    def sticking(self):
        """Touching nodes that stick (or touch a frictionless obstacle)."""
        return self.active - self.sliding

    @property
    def normal_force(self):
        """The sum of the normal forces of the touching nodes (N)."""
        if self.normal is None:
            return float("nan") if self.summary_normal_force is None else self.summary_normal_force
        return float(np.sum(self.normal[self.state != 0]))

    @property
    def total_force(self):
        """(3,) the sum of the contact forces (N, inertial)."""
        return self.force[self.state != 0].sum(axis=0) if self.active else np.zeros(3)

    @property
    def largest_penetration(self):
        """The largest penetration of a touching node (m, >= 0)."""
        return float(max(0.0, np.max(-self.gap[self.state != 0]))) if self.active else 0.0

    @property
    def largest_penetration_node(self):
        """The node of :attr:`largest_penetration` (None when nothing penetrates)."""
        pen = np.where(self.state != 0, -self.gap, 0.0)
        return int(np.argmax(pen)) if self.active and np.max(pen) > 0 else None

    def __repr__(self):
        return (f"<cosserat.Contact {self.active} of {len(self.state)} nodes touching ({self.sliding} sliding), "
                f"normal force {self.normal_force:.6g} N, largest penetration {self.largest_penetration:.3g} m>")



@dataclasses.dataclass
class RunOutput:
    """Everything found in an output folder; entries that are absent are ``None``/empty."""

    directory: str
    summary: Optional[dict]
    nodes: Optional[Dict[str, np.ndarray]]
    elements: Optional[Dict[str, np.ndarray]]
    snapshots: List[Snapshot]
    series: Optional[Dict[str, np.ndarray]]

    @property
    def track(self):
        """``{NAME: Track}``: the recorded points of ``series.csv`` (dynamic runs; ``{}`` otherwise).
        The points at the end of each stage are in ``summary["stages"][k]["track"]``."""
        return tracks(self.series)

    @property
    def contact(self):
        """The final state's :class:`Contact` from ``nodes.csv``'s contact columns (gap as
        written: 10 significant digits; ``tolerance`` from ``summary.json``); None without
        obstacles."""
        t = self.nodes
        if not t or "contact_state" not in t:
            return None
        tol, total = float("nan"), None
        if self.summary and isinstance(self.summary.get("contact"), dict):
            tol = float(self.summary["contact"].get("tolerance", tol))
            total = self.summary["contact"].get("normal_force")
        force = np.column_stack([t[f"contact_f{c}"] for c in "xyz"])
        state = t["contact_state"].astype(int)
        gap = np.where((state == 0) & (t["contact_gap"] == 0), np.inf, t["contact_gap"])  # nodes.csv: 0 for none near
        return Contact(force, None, gap, state, tol,
                       None if total is None else float(total))

    @property
    def bodies(self):
        """``{NAME: Body}``: the rigid bodies in the final state. Pose from ``summary.json``'s
        ``bodies`` (assemblies; %.17g), else from the last ``bodies_NNNN.vtp`` (one rod: the last
        snapshot's, float64); mass from the last ``bodies_NNNN.vtp`` (NaN without one);
        :attr:`Body.history` from ``series.csv``. One rod's bodies are named by the body columns
        of ``series.csv`` (dynamic runs); a static one-rod folder does not name them, and its
        keys are the bodies' indices 0, 1, ... ``{}`` without bodies."""
        listed = (self.summary or {}).get("bodies") or []
        vtps = sorted(f for f in os.listdir(self.directory) if f.startswith("bodies_") and f.endswith(".vtp"))
        snap = read_vtp(os.path.join(self.directory, vtps[-1])) if vtps else None
        if not listed and snap is not None and "quaternion" in snap.point_data:
            names = [c[:-4] for c in (self.series or {}) if c.endswith("_yaw")]
            if len(names) != len(snap.points):
                names = list(range(len(snap.points)))
            listed = [{"name": n, "center": x, "quaternion": q}
                      for n, x, q in zip(names, snap.points, snap.point_data["quaternion"])]
        masses = snap.point_data.get("mass") if snap is not None else None
        vel = snap.point_data.get("velocity") if snap is not None else None
        omega = snap.point_data.get("angular_velocity") if snap is not None else None
        out = {}
        for k, b in enumerate(listed):
            q = np.asarray(b["quaternion"], dtype=float)
            m = float(masses[k]) if masses is not None and len(masses) == len(listed) else float("nan")
            name = b["name"]
            R = _quat_matrix(q)
            v = np.asarray(vel[k], dtype=float) if vel is not None and len(vel) == len(listed) else None
            # the VTK file holds the angular velocity in inertial components (as the nodes')
            w = R.T @ np.asarray(omega[k], dtype=float) if omega is not None and len(omega) == len(listed) else None
            out[name] = Body(name, np.asarray(b["center"], dtype=float), q, R, m,
                             body_history(self.series, name) if isinstance(name, str) else None, v, w)
        return out

    def vector(self, table, prefix):
        """(rows, 3) array from the ``prefix_x, prefix_y, prefix_z`` columns of ``nodes``/``elements``."""
        t = getattr(self, table)
        return np.column_stack([t[f"{prefix}_{c}"] for c in "xyz"])


def read_output(directory):
    """Reads the output folder of a run. Raises FileNotFoundError when it holds none of the files."""
    def path(name):
        p = os.path.join(directory, name)
        return p if os.path.isfile(p) else None

    summary = None
    if path("summary.json"):
        with open(path("summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
    nodes = read_csv(path("nodes.csv")) if path("nodes.csv") else None
    elements = read_csv(path("elements.csv")) if path("elements.csv") else None
    snapshots = read_pvd(path("rod.pvd")) if path("rod.pvd") else []
    series = read_csv(path("series.csv")) if path("series.csv") else None
    if summary is None and nodes is None and elements is None and not snapshots and series is None:
        raise FileNotFoundError(
            f"{directory}: no run outputs (summary.json, nodes.csv, elements.csv, rod.pvd, series.csv)"
        )
    return RunOutput(directory, summary, nodes, elements, snapshots, series)
