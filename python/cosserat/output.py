"""Reading a run's output folder (what ``cosserat run -o DIR`` or ``run(..., output_dir=DIR)`` writes).

Pure Python + numpy; does not need the C library. Files (include/cosserat/output.h):

* ``summary.json``  convergence, Newton iterations, residual history, tip pose, reactions
* ``nodes.csv``     ``s,x,y,z,p0,p1,p2,p3``, one row per node
* ``elements.csv``  ``s,gamma_x..z,kappa_x..z,n_x..z,m_x..z``, one row per element
* ``rod.pvd``       ParaView collection of ``rod_NNNN.vtp`` (ASCII VTK PolyData), one per load step
* ``series.csv``    (dynamics) one row per time, a ``t`` column and any number of others; each
                    recorded point NAME of ``output.track`` as ``NAME_x..z, NAME_p0..p3``
"""

import dataclasses
import json
import os
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
        data = np.loadtxt(f, delimiter=",", ndmin=2)
    if data.size == 0:
        data = np.zeros((0, len(names)))
    if data.shape[1] != len(names):
        raise ValueError(f"{path}: {data.shape[1]} columns but {len(names)} names in the header")
    return {name: data[:, k].copy() for k, name in enumerate(names)}


def _data_array(el, path):
    fmt = el.get("format", "ascii")
    if fmt != "ascii":
        raise ValueError(f"{path}: DataArray format '{fmt}' is not supported (only ascii)")
    comps = int(el.get("NumberOfComponents", "1"))
    values = np.array((el.text or "").split(), dtype=float)
    if comps > 1:
        if values.size % comps:
            raise ValueError(f"{path}: DataArray '{el.get('Name', '')}' length not a multiple of {comps}")
        values = values.reshape(-1, comps)
    return values


@dataclasses.dataclass
class Snapshot:
    """One VTK PolyData piece: points (N, 3) plus named point and cell arrays."""

    time: float
    points: np.ndarray
    point_data: Dict[str, np.ndarray]
    cell_data: Dict[str, np.ndarray]
    path: str


def read_vtp(path, time=float("nan")):
    """Reads an ASCII ``.vtp`` file (the first Piece) into a :class:`Snapshot`."""
    root = ET.parse(path).getroot()
    piece = root.find("./PolyData/Piece")
    if piece is None:
        raise ValueError(f"{path}: no PolyData/Piece element")
    pts = piece.find("./Points/DataArray")
    if pts is None:
        raise ValueError(f"{path}: no Points/DataArray element")
    points = _data_array(pts, path).reshape(-1, 3)
    n = int(piece.get("NumberOfPoints", len(points)))
    if n != len(points):
        raise ValueError(f"{path}: NumberOfPoints={n} but {len(points)} points")
    pdata = {a.get("Name", f"array{k}"): _data_array(a, path) for k, a in enumerate(piece.findall("./PointData/DataArray"))}
    cdata = {a.get("Name", f"array{k}"): _data_array(a, path) for k, a in enumerate(piece.findall("./CellData/DataArray"))}
    return Snapshot(time, points, pdata, cdata, path)


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
