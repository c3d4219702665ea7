"""Plots of a run's output folder, written as PNG files (headless, no display needed).

Usage::

    python3 -m cosserat.plot DIR [--out OUTDIR]

DIR is what ``cosserat run -o DIR`` (or ``cosserat.run(..., output_dir=DIR)``) wrote. Writes, into
OUTDIR (default DIR), whichever of these the folder has data for, and prints their paths:

* ``centerline.png``   3-D centerline from rod.pvd + .vtp (nodes.csv when there are none), equal
                       axis scaling, the final state highlighted: static load steps in oranges
                       with a load-factor colour bar (all of a static run, at most four before a
                       dynamic stage), at most eight evenly spaced dynamic snapshots in viridis
                       with a colour bar of their time (s); told apart by the .vtp field data
* ``strains.png``      γ and κ components along s (elements.csv) of the final state, its time or
                       load factor in the title: steps per element where the formulation's
                       strains are constant per element, Gauss-point values joined within each
                       element for the port-Hamiltonian rod
* ``stresses.png``     n and m components along s (elements.csv), the same way
* ``convergence.png``  RMS residual per Newton iteration of every load step, log scale, integer
                       load-step ticks (summary.json)
* ``load_path.png``    load factor against the coordinates of the tracked points (output.track) along
                       every arc-length path (summary.json's track_load_steps), one panel per
                       coordinate that moves (at most four), limit points marked with their load factor
* ``tube.png``         3-D view of the final snapshot of rod.pvd drawn as a tube (the .vtp's
                       radius: a circle's, half the larger side of a rectangle, the equivalent
                       circle of "resultants"; around the nodes' cross-section axes d2, d3)
                       coloured by |m| (N m, over its range along the rod; "constant |m| = …"
                       in the title when it does not vary), the first snapshot as a dashed grey
                       centerline (legend inside the axes),
                       rigid bodies (rod.pvd part 1) as a marker with arrows along d1..d3; equal
                       axis scaling; a radius too thin to see (< 0.5 % of the drawing's extent)
                       is drawn ×k and the title says so
* ``series.png``       the columns of series.csv against t (dynamic runs), with units; constant
                       columns are listed instead of drawn, and columns at the round-off level of
                       their kind are drawn as such

Uses matplotlib's object API with the Agg canvas, so it never touches the pyplot backend of
the calling program.
"""

import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np

from .output import read_output, read_vtp

DPI = 110


def _equal_axes_3d(ax, lo, hi, margin):
    """Equal scaling on the three axes of a 3-D plot around the box [lo, hi]: a cube of half-width
    margin × the box's largest side (a degenerate box gets 1 m), axes labelled in metres."""
    centre, half = 0.5 * (lo + hi), margin * float(np.max(hi - lo))
    if not np.isfinite(half) or half <= 0:
        half = 1.0
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1, 1, 1))
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):  # more numbers overlap on a cube's foreshortened sides
        axis.get_major_locator().set_params(nbins=7)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")


def _figure(width, height):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _cmap(name):
    import matplotlib

    if hasattr(matplotlib, "colormaps"):  # matplotlib >= 3.5
        return matplotlib.colormaps[name]
    from matplotlib import cm

    return cm.get_cmap(name)


def _save(fig, path):
    fig.savefig(path, dpi=DPI)
    return path


def _title(out):
    s = out.summary or {}
    parts = [s.get("scenario") or os.path.basename(os.path.normpath(out.directory))]
    if "elements" in s:
        parts.append(f"{s['elements']} elements")
    if "converged" in s:
        parts.append("converged" if s["converged"] else f"NOT converged ({s.get('status', '?')})")
    return ", ".join(str(p) for p in parts)


def _dynamic(out):
    """True when the run had a dynamic stage (snapshot times are then times in s)."""
    return any(st.get("type") == "dynamic" for st in (out.summary or {}).get("stages", []))


def _model(out):
    return (out.summary or {}).get("model", "mixed_discrete")


def _tip_index(out, count):
    """The node summary.json calls the tip: the free end (a rod clamped at its last node has
    it at node 0), or the tracked point named "tip"; the last node for older summaries."""
    node = ((out.summary or {}).get("tip") or {}).get("node")
    return int(node) if isinstance(node, (int, float)) and 0 <= node < count else count - 1


def _rod_slices(out, count):
    """Each rod's slice of the nodes (summary.json's ``rods`` of an assembly; one rod: all)."""
    rods = (out.summary or {}).get("rods") or []
    sl = [slice(int(r["first_node"]), int(r["first_node"]) + int(r["nodes"])) for r in rods]
    return sl if sl and sl[-1].stop == count else [slice(0, count)]


def _snapshot_kind(out, snap):
    """("static", stage, load factor) or ("dynamic", stage, time in s) of a rod snapshot, from its
    field data (stage, load_factor, time) and summary.json's stage types. Without field data:
    static when the pvd time is negative (load steps before a dynamic stage) or the run had no
    dynamic stage, dynamic otherwise."""
    fd = {k: float(np.ravel(v)[0]) for k, v in (snap.field_data or {}).items() if np.size(v) == 1}
    stages = (out.summary or {}).get("stages") or []
    k = int(fd["stage"]) if np.isfinite(fd.get("stage", np.nan)) else -1
    if 0 <= k < len(stages) and stages[k].get("type") in ("static", "dynamic"):
        kind = stages[k]["type"]
    else:
        kind = "dynamic" if _dynamic(out) and not snap.time < 0 else "static"
    if kind == "dynamic":
        return kind, k, fd.get("time", snap.time)
    lf = fd.get("load_factor", snap.time if not _dynamic(out) else np.nan)
    return kind, k, lf


def _spaced(items, count):
    """At most `count` of `items`, evenly spaced, the first and the last included."""
    if len(items) <= count:
        return list(items)
    pick = np.unique(np.round(np.linspace(0, len(items) - 1, count)).astype(int))
    return [items[k] for k in pick]


def plot_centerline(out, path):
    """3-D centerline of the snapshots, the final state highlighted. Static load steps and
    dynamic frames are drawn apart: load steps in shades of orange with a load-factor colour bar
    (every one in a static run, at most four before a dynamic stage), dynamic frames (at most
    eight, evenly spaced) in viridis with a colour bar of their time from the dynamic stage's
    start; never a time for a load step (rod.pvd stores those before t = 0)."""
    from matplotlib import cm, colors, ticker

    kinds = [(snap, *_snapshot_kind(out, snap)) for snap in out.snapshots]
    dyn = [(s, k, t) for s, kind, k, t in kinds if kind == "dynamic"]
    sta = [(s, k, lf) for s, kind, k, lf in kinds if kind == "static"]
    # a few evenly spaced times read better than hundreds of overlaid curves
    n_static = len(sta)
    dyn = _spaced(dyn, 8)
    if dyn:
        sta = _spaced(sta, 4)
    final = None
    if out.nodes is not None:
        final = np.column_stack([out.nodes[c] for c in "xyz"])
    elif out.snapshots:
        final = out.snapshots[-1].points
    if final is None:
        return None
    fig = _figure(8.5 if (dyn and sta) else 7.5, 6.5)
    ax = fig.add_subplot(projection="3d")
    every = [final] + [s.points for s, _, _ in sta + dyn]
    if sta:
        # several static stages each run their load factor from 0 to 1: colour by stage + λ then
        several = len({k for _, k, _ in sta}) > 1
        val = np.array([(max(k, 0) if several else 0) + lf for _, k, lf in sta], dtype=float)
        ok = np.isfinite(val)
        lo = min(0.0, float(val[ok].min())) if ok.any() else 0.0
        hi = float(val[ok].max()) if ok.any() else 1.0
        norm = colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1.0)
        base = _cmap("Oranges")
        shade = lambda v: base(0.3 + 0.7 * norm(v))  # the palest oranges vanish on white
        for (s, _, _), v in zip(sta, val):
            p = s.points
            for r in _rod_slices(out, len(p)):  # every rod of an assembly
                ax.plot(p[r, 0], p[r, 1], p[r, 2], color=shade(v if np.isfinite(v) else hi), lw=1.0, alpha=0.8)
        cmap = colors.ListedColormap(base(np.linspace(0.3, 1.0, 256)))
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        label = "static stage + load factor" if several else "load factor (static load steps)"
        cb = fig.colorbar(sm, ax=ax, shrink=0.55, pad=0.02 if dyn else 0.1, label=label)
        if several:
            cb.locator = ticker.MaxNLocator(integer=True)
            cb.update_ticks()
    if dyn:
        t = np.array([t for _, _, t in dyn], dtype=float)
        ok = np.isfinite(t)
        lo, hi = (float(t[ok].min()), float(t[ok].max())) if ok.any() else (0.0, 1.0)
        norm = colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1.0)
        cmap = _cmap("viridis")
        for (s, _, _), tk in zip(dyn, t):
            p = s.points
            for r in _rod_slices(out, len(p)):
                ax.plot(p[r, 0], p[r, 1], p[r, 2], color=cmap(norm(tk if np.isfinite(tk) else hi)), lw=1.0, alpha=0.75)
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        fig.colorbar(sm, ax=ax, shrink=0.55, pad=0.1, label="time t of the dynamic snapshot (s)")
    for k, r in enumerate(_rod_slices(out, len(final))):
        ax.plot(final[r, 0], final[r, 1], final[r, 2], color="crimson", lw=2.6, label="final state" if k == 0 else None)
    ax.scatter(*final[0], color="black", s=25, label="s = 0")
    ax.scatter(*final[_tip_index(out, len(final))], color="crimson", s=25, marker="^", label="tip")
    pts = np.vstack(every)
    _equal_axes_3d(ax, pts.min(axis=0), pts.max(axis=0), 0.5)
    what = []
    if sta:
        shown = f"{len(sta)} of {n_static}" if len(sta) < n_static else f"{len(sta)}"
        what.append(f"{shown} load step{'s' if n_static != 1 else ''}")
    if dyn:
        stages = "s" if len({k for _, k, _ in dyn}) > 1 else ""
        what.append(f"{len(dyn)} time{'s' if len(dyn) != 1 else ''} of the dynamic stage{stages}")
    ax.set_title(f"{_title(out)}\ncenterline at {' and '.join(what) or 'the final state'}", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    return _save(fig, path)


def _field_data(path):
    """The FieldData scalars of a .vtp file (time, load_factor, stage) as {name: float}."""
    try:
        fd = read_vtp(path).field_data
    except (OSError, ValueError):
        return {}
    return {name: float(v.ravel()[0]) for name, v in fd.items() if v.size == 1}


def _state_label(out, fd):
    """ "t = 0.2 s" for a snapshot of a dynamic stage, "load factor 0.1" for a static one."""
    stages = (out.summary or {}).get("stages") or []
    k = int(fd.get("stage", -1)) if np.isfinite(fd.get("stage", np.nan)) else -1
    dynamic = 0 <= k < len(stages) and stages[k].get("type") == "dynamic"
    if dynamic and "time" in fd:
        return f"t = {fd['time']:.4g} s"
    if "load_factor" in fd:
        return f"load factor {fd['load_factor']:.4g}"
    if "time" in fd:
        return f"t = {fd['time']:.4g} s"
    return "?"


def _final_state(out):
    """When the final state (nodes.csv, elements.csv) is: "t = 0.5 s" after a dynamic stage,
    "load factor 1" after a static one ("stage k, ..." when the run had several stages); from
    the last snapshot's field data, else summary.json's last stage that ran; None if unknown."""
    summary = out.summary or {}
    stages = summary.get("stages") or []
    fd = _field_data(out.snapshots[-1].path) if out.snapshots else {}
    if fd:
        label = _state_label(out, fd)
        k = int(fd["stage"]) if np.isfinite(fd.get("stage", np.nan)) else -1
    else:
        ran = [k for k, st in enumerate(stages) if st.get("ran", True)]
        k = ran[-1] if ran else -1
        st = stages[k] if ran else {}
        if st.get("type") == "dynamic" and "t_end" in st:
            label = f"t = {st['t_end']:.4g} s"
        elif "load_factor" in st or "load_factor" in summary:
            label = f"load factor {st.get('load_factor', summary.get('load_factor')):.4g}"
        else:
            return None
    return f"stage {k}, {label}" if len(stages) > 1 and k >= 0 else label


def _layout(fig, bottom=0.0):
    """tight_layout above `bottom` (a figure fraction, room for a note) and below the suptitle.
    tight_layout leaves room for the suptitle's height but not for the gap above it, 2 % of the
    figure's height by default (half an inch on a tall series.png, enough to overlap the top
    row): the suptitle is moved to a fixed 0.08 in below the top edge first."""
    st = getattr(fig, "_suptitle", None)
    if st is not None:
        st.set_y(1.0 - 0.08 / fig.get_figheight())
        st.set_verticalalignment("top")
    fig.tight_layout(rect=(0, bottom, 1, 1))


def _body_snapshots(directory):
    """The rigid-body datasets of rod.pvd (part 1), in file order; [] when there are none."""
    path = os.path.join(directory, "rod.pvd")
    if not os.path.isfile(path):
        return []
    out = []
    for ds in ET.parse(path).getroot().iter("DataSet"):
        f = ds.get("file")
        if f and ds.get("part", "0") == "1":
            out.append(read_vtp(os.path.join(directory, f), float(ds.get("timestep", "nan"))))
    return out


def _nice_factor(k):
    """The smallest of 1, 2, 5 × 10^n that is ≥ k (k ≥ 1)."""
    e = 10.0 ** math.floor(math.log10(k))
    for m in (1, 2, 5, 10):
        if m * e >= k * (1 - 1e-12):
            return int(round(m * e)) if m * e >= 1 else m * e
    return 10 * e


TUBE_SIDES = 24  # facets around the tube
TUBE_MAX_RINGS = 1500  # cross-sections drawn at most (every node up to this many)


def tube_geometry(snap, extent=None):
    """(ring points (n, TUBE_SIDES + 1, 3), nodes drawn, factor k, true max radius) of a rod
    snapshot: a circle of radius k·radius(s) in the plane of d2, d3 around every node. k = 1
    unless the largest radius is below 0.5 % of `extent` (default: the centerline's largest
    bounding-box side), then the smallest nice number (1, 2, 5 × 10^n) that makes it 0.5 %."""
    x = snap.points
    pd = snap.point_data
    n = len(x)
    if "d2" in pd and "d3" in pd:
        d2, d3 = np.asarray(pd["d2"]).reshape(n, 3), np.asarray(pd["d3"]).reshape(n, 3)
    elif "quaternion" in pd:
        from ._core import quat_to_matrix

        A = quat_to_matrix(np.asarray(pd["quaternion"]).reshape(n, 4))
        d2, d3 = A[:, :, 1], A[:, :, 2]
    else:
        raise ValueError(f"{snap.path}: no d2, d3 or quaternion point data for the cross-sections")
    r = np.asarray(pd["radius"], dtype=float).reshape(n) if "radius" in pd else np.zeros(n)
    if extent is None:
        extent = float(np.max(x.max(axis=0) - x.min(axis=0))) if n else 0.0
    rmax = float(np.max(r)) if n else 0.0
    k = 1
    if extent > 0 and rmax > 0 and rmax < 0.005 * extent:
        k = _nice_factor(0.005 * extent / rmax)
    elif rmax <= 0:  # no radius in the output: drawn as 1 % of the extent (the title says so)
        r = np.full(n, 0.01 * (extent if extent > 0 else 1.0))
    keep = np.arange(n)
    if n > TUBE_MAX_RINGS:
        keep = np.unique(np.append(np.arange(0, n, -(-n // TUBE_MAX_RINGS)), n - 1))
    th = np.linspace(0.0, 2.0 * np.pi, TUBE_SIDES + 1)
    rr = (k * r[keep])[:, None, None]
    ring = np.cos(th)[None, :, None] * d2[keep][:, None, :] + np.sin(th)[None, :, None] * d3[keep][:, None, :]
    return x[keep][:, None, :] + rr * ring, keep, k, rmax


def plot_tube(out, path):
    """Writes :func:`tube_figure` to `path`; None when the folder has no rod.pvd."""
    fig = tube_figure(out)
    return _save(fig, path) if fig is not None else None


def tube_figure(out):
    """The final snapshot as a tube coloured by |m|, the first snapshot as a grey centerline,
    rigid bodies as markers with their axes; equal axis scaling; ×k radius exaggeration when
    the true radius would be invisible (said in the title). A Figure, None without rod.pvd."""
    if not out.snapshots:
        return None
    from matplotlib import cm, colors

    final, first = out.snapshots[-1], out.snapshots[0]
    if len(final.points) < 2:
        return None
    bodies = _body_snapshots(out.directory)
    body = bodies[-1] if bodies else None
    pts = [final.points] + ([first.points] if first is not final else [])
    if body is not None and len(body.points):
        pts.append(body.points)
    allp = np.vstack(pts)
    extent = float(np.max(allp.max(axis=0) - allp.min(axis=0)))
    surf, keep, k, rmax = tube_geometry(final, extent)

    fig = _figure(8.0, 7.0)
    ax = fig.add_subplot(projection="3d")
    # draw in the order given: the reference line and the bodies stay visible over the tube
    ax.computed_zorder = False
    m = final.point_data.get("moment")
    cmap = _cmap("viridis")
    if m is not None and np.size(m) == 3 * len(final.points):
        mag = np.linalg.norm(np.asarray(m).reshape(-1, 3), axis=1)[keep]
    else:
        mag = None
    lo, hi = (float(np.min(mag)), float(np.max(mag))) if mag is not None else (0.0, 0.0)
    if hi > 0 and hi - lo > 1e-3 * hi:
        # the colours span the values along the rod (a helix's nearly constant |m| included);
        # the colour bar gives the numbers
        norm = colors.Normalize(vmin=lo, vmax=hi)
        # one colour per facet: the mean of its two nodes, the same all around
        fc = cmap(norm(0.5 * (mag[:-1] + mag[1:])))
        rod = np.zeros(len(final.points), dtype=int)  # an assembly: no facet between two rods
        for j, r in enumerate(_rod_slices(out, len(final.points))):
            rod[r] = j
        fc[rod[keep][:-1] != rod[keep][1:], 3] = 0.0
        face = np.repeat(fc[:, None, :], TUBE_SIDES, axis=1)
        face = np.concatenate([face, face[-1:]], axis=0)  # (rows, cols) like the vertices
        face = np.concatenate([face, face[:, -1:]], axis=1)
        ax.plot_surface(surf[..., 0], surf[..., 1], surf[..., 2], facecolors=face, rstride=1, cstride=1,
                        linewidth=0, antialiased=False, shade=True, zorder=1)
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        fig.colorbar(sm, ax=ax, shrink=0.6, pad=0.12, label="|m| bending and twisting moment (N m)")
        colour = f"|m| from {lo:.3g} to {hi:.3g} N m"
    else:
        ax.plot_surface(surf[..., 0], surf[..., 1], surf[..., 2], color="tab:blue", rstride=1, cstride=1,
                        linewidth=0, antialiased=False, shade=True, zorder=1)
        if mag is None:
            colour = "no moment data"
        elif hi > 0:  # one colour says nothing by itself: say the value
            colour = f"constant |m| = {0.5 * (lo + hi):.4g} N m"
        else:
            colour = "|m| = 0"
    fd_final, fd_first = _field_data(final.path), _field_data(first.path)
    if first is not final:
        p = first.points
        ax.plot(p[:, 0], p[:, 1], p[:, 2], color="0.35", lw=1.0, ls="--", zorder=2,
                label=f"first snapshot ({_state_label(out, fd_first)}), centerline")
    if body is not None:
        bpd = body.point_data
        L = 0.15 * extent if extent > 0 else 0.1
        for j, c in enumerate(body.points):
            mass = np.ravel(bpd.get("mass", [np.nan] * len(body.points)))[j]
            ax.scatter(*c, color="black", marker="s", s=40, depthshade=False, zorder=3,
                       label=f"rigid body {j + 1}, {mass:.4g} kg" if len(body.points) > 1 else f"rigid body, {mass:.4g} kg")
            for a, col in zip(("d1", "d2", "d3"), ("crimson", "forestgreen", "royalblue")):
                if a in bpd:
                    d = np.asarray(bpd[a]).reshape(-1, 3)[j]
                    ax.quiver(*c, *(L * d), color=col, lw=1.5, arrow_length_ratio=0.2, zorder=4,
                              label=f"body axis {a}" if j == 0 else None)
    # equal scaling on all three axes, the tube's radius included
    lo = np.minimum(allp.min(axis=0), surf.reshape(-1, 3).min(axis=0))
    hi = np.maximum(allp.max(axis=0), surf.reshape(-1, 3).max(axis=0))
    _equal_axes_3d(ax, lo, hi, 0.525)
    if rmax <= 0:
        rad = f"radius not in the output: drawn as {0.01 * extent:.3g} m"
    elif k != 1:
        rad = f"radius ×{k:g} (largest radius {rmax:.3g} m, too thin to see)"
    else:
        rad = "radius to scale"
    ax.set_title(f"{_title(out)}, {_model(out)}\nfinal snapshot ({_state_label(out, fd_final)}) as a tube, "
                 f"{rad}\ncolour: {colour}", fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize=7)
    return fig


def _element_curve(out, s, v):
    """x, y to draw sample values along s: steps over each element where the strains are
    constant per element (mixed, lgvi), Gauss-point pairs joined per element (port-Hamiltonian)."""
    if _model(out) == "port_hamiltonian" and s.size % 2 == 0:
        xs, ys = [], []
        for k in range(0, s.size, 2):  # two Gauss points per element, a break between elements
            xs += [s[k], s[k + 1], np.nan]
            ys += [v[k], v[k + 1], np.nan]
        return np.array(xs), np.array(ys)
    if s.size < 2:
        return s, v
    edges = np.concatenate([[s[0] - 0.5 * (s[1] - s[0])], 0.5 * (s[1:] + s[:-1]), [s[-1] + 0.5 * (s[-1] - s[-2])]])
    return np.repeat(edges, 2)[1:-1], np.repeat(v, 2)


def _component_grid(out, path, rows, heading):
    """A rows × 3 grid: one panel per (quantity, component) against the sample arc length."""
    el = out.elements
    if el is None or "s" not in el:
        return None
    s = el["s"]
    fig = _figure(12, 3.2 * len(rows) + 0.6)
    axes = fig.subplots(len(rows), 3, squeeze=False, sharex=True)
    # Components below 1e-10 of the largest value in the figure are round-off: drawn as zero.
    keys = [f"{p}_{c}" for p, _, _ in rows for c in "xyz" if f"{p}_{c}" in el and el[f"{p}_{c}"].size]
    scale = max((float(np.max(np.abs(el[k]))) for k in keys), default=0.0)
    for r, (prefix, symbol, unit) in enumerate(rows):
        for col, c in enumerate("xyz"):
            ax = axes[r][col]
            key = f"{prefix}_{c}"
            ax.grid(True, alpha=0.3)
            ax.set_title(f"{symbol}$_{c}$", fontsize=11)
            if col == 0:
                ax.set_ylabel(unit)
            if key not in el:
                ax.text(0.5, 0.5, "not in elements.csv", ha="center", transform=ax.transAxes)
                continue
            v = el[key]
            vmax = float(np.max(np.abs(v))) if v.size else 0.0
            if vmax <= 1e-10 * scale or vmax == 0.0:
                # round-off noise: draw the zero line instead of magnified noise
                ax.plot(s, np.zeros_like(s), color="C0")
                ax.set_ylim(-1, 1)
                ax.text(0.5, 0.6, f"≈ 0 (max |·| = {vmax:.1e})", ha="center", transform=ax.transAxes, fontsize=9)
            else:
                ph = _model(out) == "port_hamiltonian"  # mark the Gauss points the values belong to
                ax.plot(*_element_curve(out, s, v), color="C0", lw=1.4, marker="o" if ph else None, ms=2.5)
                ax.ticklabel_format(axis="y", useOffset=False)
                lo, hi = float(np.min(v)), float(np.max(v))
                if hi - lo < 1e-3 * vmax:  # (nearly) constant: show the value, not its last digits
                    mid, half = 0.5 * (lo + hi), 0.05 * vmax
                    ax.set_ylim(mid - half, mid + half)
            if r == len(rows) - 1:
                ax.set_xlabel("s (m)")
    state = _final_state(out)
    when = f" at {state}" if state else ""
    fig.suptitle(f"{_title(out)}: {heading}{when} (final state; body basis, x along the rod)", fontsize=11)
    _layout(fig)
    return _save(fig, path)


def plot_strains(out, path):
    """γ (row 1) and κ (row 2) components along s."""
    return _component_grid(out, path, [("gamma", r"$\gamma$", "γ (–)"), ("kappa", r"$\kappa$", "κ (1/m)")], "strains")


def plot_stresses(out, path):
    """n (row 1) and m (row 2) components along s."""
    return _component_grid(out, path, [("n", "$n$", "n (N)"), ("m", "$m$", "m (N m)")], "stress resultants")


def plot_convergence(out, path):
    """RMS residual against Newton iteration, one line per load step, log scale."""
    hist = (out.summary or {}).get("residual_history")
    if hist is None:
        return None
    from matplotlib import cm, colors

    fig = _figure(8, 5)
    ax = fig.add_subplot()
    steps = [np.asarray(h, dtype=float) for h in hist]
    if not any(h.size for h in steps):
        ax.text(0.5, 0.5, "no accepted load step", ha="center", transform=ax.transAxes)
    else:
        cmap = _cmap("plasma")
        n = len(steps)
        if n <= 20:  # a band of colour per load step, its number at its middle
            norm = colors.BoundaryNorm(np.arange(0.5, n + 1), cmap.N)
        else:
            norm = colors.Normalize(vmin=1, vmax=n)
        for k, h in enumerate(steps):
            h = np.where(h > 0, h, np.nan)  # exact zeros have no place on a log axis
            ax.semilogy(np.arange(len(h)), h, "o-", color=cmap(norm(k + 1)), ms=3.5, lw=1.2)
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        from matplotlib import ticker

        # load steps are counted: no tick between two of them
        fig.colorbar(sm, ax=ax, label="load step", ticks=ticker.MaxNLocator(integer=True, min_n_ticks=1))
        ax.xaxis.get_major_locator().set_params(integer=True)
    its = (out.summary or {}).get("newton_iterations")
    extra = f", Newton iterations {sum(its)} ({' '.join(str(i) for i in its)})" if its else ""
    ax.set_xlabel("Newton iteration")
    ax.set_ylabel("RMS residual")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"{_title(out)}\nconvergence{extra}", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plot_load_path(out, path):
    """Load factor against the coordinates of the tracked points along every arc-length path
    (summary.json: stages[k].track_load_steps), one panel per coordinate that moves; the
    stage's start (the previous stage's end, or the first point) marked, limit points (local
    extremes of the load factor) circled."""
    stages = (out.summary or {}).get("stages") or []
    paths = [(k, st["track_load_steps"]) for k, st in enumerate(stages)
             if st.get("path") == "arc_length" and len(st.get("track_load_steps") or []) >= 2]
    if not paths:
        return None
    # the coordinates that move anywhere on the paths: (point name, axis index)
    names = sorted({name for _, steps in paths for name in steps[0]["track"]})
    coords = []
    for name in names:
        for a in range(3):
            v = [e["track"][name]["position"][a] for _, steps in paths for e in steps if name in e["track"]]
            span = max(v) - min(v) if v else 0.0
            if span > 1e-9 * max(1.0, max(abs(x) for x in v)):
                coords.append((name, a, span))
    coords.sort(key=lambda c: -c[2])
    coords = coords[:4]
    if not coords:
        return None
    fig = _figure(4.6 * len(coords), 4.4)
    axes = fig.subplots(1, len(coords), squeeze=False)[0]
    colors = ["C0", "C1", "C2", "C3", "C4"]
    for ax, (name, a, _) in zip(axes, coords):
        for j, (k, steps) in enumerate(paths):
            lf = np.array([e["load_factor"] for e in steps])
            x = np.array([e["track"][name]["position"][a] for e in steps])
            start = (stages[k - 1].get("track") or {}).get(name) if k > 0 else None
            if start:  # the path starts where the previous stage ended, at load factor 0
                lf, x = np.r_[0.0, lf], np.r_[start["position"][a], x]
            c = colors[j % len(colors)]
            ax.plot(x, lf, "-", color=c, lw=1.3, label=f"stage {k}")
            ax.plot(x, lf, ".", color=c, ms=3)
            ax.plot(x[:1], lf[:1], "o", color=c, mfc="none", ms=7)
            ext = [i for i in range(1, len(lf) - 1) if (lf[i] - lf[i - 1]) * (lf[i + 1] - lf[i]) < 0]
            if ext:
                ax.plot(x[ext], lf[ext], "s", color="k", mfc="none", ms=7,
                        label="limit points" if j == 0 and ax is axes[0] else None)
                for i in ext[:3]:
                    ax.annotate(f"{lf[i]:.4g}", (x[i], lf[i]), textcoords="offset points", xytext=(5, 5), fontsize=8)
        ax.axhline(0.0, color="0.6", lw=0.6)
        ax.set_xlabel(f"{name} {'xyz'[a]} (m)")
        ax.set_ylabel("load factor")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, loc="best")
    fig.suptitle(f"{_title(out)}: arc-length path (circle: where it starts)", fontsize=11)
    _layout(fig)
    return _save(fig, path)


def series_unit(name):
    """The unit of a series.csv column (by its name)."""
    if name == "t":
        return "s"
    if name.startswith(("energy_", "work_")):
        return "J"
    if name.startswith("angular_momentum_"):
        return "kg m²/s"
    if name.startswith("momentum_"):
        return "kg m/s"
    if name == "length" or name[-2:] in ("_x", "_y", "_z"):
        return "m"
    if name.endswith(("_yaw", "_pitch", "_roll")):
        return "deg"
    return "–"


def plot_series(out, path):
    """The columns of series.csv against t: constant columns listed, round-off-level ones marked."""
    series = out.series
    if series is None or not series:
        return None
    names = list(series)
    tname = "t" if "t" in series else ("time" if "time" in series else names[0])
    t = series[tname]
    cols = [c for c in names if c != tname]
    constant = [c for c in cols if series[c].size and float(np.ptp(series[c])) == 0.0]
    cols = [c for c in cols if c not in constant]
    if not cols:
        return None
    # the magnitude of each kind of quantity (by unit), to recognise round-off-level columns
    scale = {}
    for c in cols:
        u = series_unit(c)
        scale[u] = max(scale.get(u, 0.0), float(np.nanmax(np.abs(series[c]))) if series[c].size else 0.0)
    ncol = min(3, len(cols))
    nrow = -(-len(cols) // ncol)
    fig = _figure(4.2 * ncol, 2.6 * nrow + (1.0 if constant else 0.6))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for k, c in enumerate(cols):
        ax = axes[k // ncol][k % ncol]
        v, u = series[c], series_unit(c)
        vmax = float(np.nanmax(np.abs(v))) if v.size else 0.0
        ax.grid(True, alpha=0.3)
        ax.set_title(c, fontsize=10)
        ax.set_ylabel(u)
        # dimensionless drifts and violations are relative already: below 1e-12 they are round-off
        relative = c.endswith(("_drift", "_violation")) and vmax < 1e-12
        if relative or (u != "–" and vmax <= 1e-9 * scale[u] and vmax < scale[u]):
            # round-off of a conserved or balanced quantity: show its size, not magnified noise
            ax.plot(t, v, lw=0.8, color="0.5")
            ax.set_ylim(-2 * vmax, 2 * vmax)
            ax.text(0.5, 0.85, f"round-off level: max |·| = {vmax:.1e} {u}", ha="center", transform=ax.transAxes,
                    fontsize=8)
        else:
            ax.plot(t, v, lw=1.2)
        if k + ncol >= len(cols):  # the last panel of its column
            ax.set_xlabel(f"{tname} (s)")
    for k in range(len(cols), nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    fig.suptitle(f"{_title(out)}: series.csv", fontsize=11)
    if constant:
        text = ", ".join(f"{c} = {series[c][0]:.6g} {series_unit(c)}" for c in constant)
        note = fig.text(0.5, 0.005, f"constant: {text}", ha="center", va="bottom", fontsize=8, wrap=True)
        bb = note.get_window_extent(fig.canvas.get_renderer())
        lines = math.ceil(bb.width / (0.95 * fig.bbox.width))  # it wraps only when drawn
        _layout(fig, bottom=(bb.y0 + lines * bb.height + 6.0) / fig.bbox.height)
    else:
        _layout(fig)
    return _save(fig, path)


PLOTS = [
    ("centerline.png", plot_centerline),
    ("strains.png", plot_strains),
    ("stresses.png", plot_stresses),
    ("convergence.png", plot_convergence),
    ("load_path.png", plot_load_path),
    ("tube.png", plot_tube),
    ("series.png", plot_series),
]


def plot_output(directory, out_dir=None):
    """Writes every PNG the folder has data for; returns their paths (see the module docstring)."""
    out = read_output(directory)
    out_dir = directory if out_dir is None else out_dir
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, fn in PLOTS:
        p = fn(out, os.path.join(out_dir, name))
        if p:
            written.append(p)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m cosserat.plot",
        description="Plot a cosserat output folder (nodes.csv, elements.csv, rod.pvd + .vtp, "
        "summary.json, series.csv) into PNG files.",
    )
    parser.add_argument("directory", metavar="DIR", help="output folder of a run")
    parser.add_argument("--out", "-o", metavar="OUTDIR", help="where to write the PNGs (default: DIR)")
    args = parser.parse_args(argv)
    try:
        paths = plot_output(args.directory, args.out)
    except (OSError, ValueError) as e:
        print(f"cosserat.plot: {e}", file=sys.stderr)
        return 1
    if not paths:
        print(f"cosserat.plot: {args.directory}: nothing to plot", file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
