"""Result.plot(), Result.animate() and Result._repr_html_(): results a notebook can use without files.

matplotlib is imported only here, on first use. Figures are made with the object API on an Agg
canvas (as cosserat.plot does), so the pyplot backend of the calling program is not changed; a
notebook shows a returned Figure through IPython's display hooks.
"""

import html
import os
import shutil

import numpy as np

from .plot import _cmap, _figure

DPI = 110


def _pick(count, times, t):
    """Indices of the rows to draw: `times` evenly spaced ones (int) or the nearest to given times."""
    if count == 0:
        return np.zeros(0, dtype=int)
    if np.ndim(times) == 0:
        n = max(1, min(int(times), count))
        return np.unique(np.round(np.linspace(0, count - 1, n)).astype(int))
    want = np.asarray(times, dtype=float)
    return np.unique([int(np.argmin(np.abs(t - w))) for w in want])


def _equal_axes(ax, pts, equal=True):
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    centre = 0.5 * (lo + hi)
    span = float(np.max(hi - lo))
    if not np.isfinite(span) or span <= 0:
        span = 1.0
    # equal: one scale on all axes (true shape); else each axis fits its own extent (small
    # deflections visible), at least a tenth of the largest so round-off is not magnified
    half = 0.525 * (np.full(3, span) if equal else np.maximum(hi - lo, 0.1 * span))
    ax.set_xlim(centre[0] - half[0], centre[0] + half[0])
    ax.set_ylim(centre[1] - half[1], centre[1] + half[1])
    ax.set_zlim(centre[2] - half[2], centre[2] + half[2])
    ax.set_box_aspect((1, 1, 1))
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")


def _title(r):
    state = "converged" if r.converged else str(r.status)
    return f"{r.model}, {r.node_count} nodes, {state}"


def _plane_axes(plane):
    """[i, j]: the coordinates of `plane` ("xz", ...), or None for 3-D."""
    if plane is None:
        return None
    if not (isinstance(plane, str) and len(plane) == 2 and set(plane) <= set("xyz") and plane[0] != plane[1]):
        raise ValueError(f'plane: expected two of "x", "y", "z" such as "xz", got {plane!r}')
    return ["xyz".index(c) for c in plane]


def plot_result(r, path=None, *, times=8, ax=None, equal=True, plane=None):
    from matplotlib import cm, colors

    axes = _plane_axes(plane)
    if ax is None:
        fig = _figure(7.5, 6.5 if axes is None else 5.0)
        ax = fig.add_subplot(projection="3d") if axes is None else fig.add_subplot()
    else:
        fig = ax.figure

    fn = getattr(r, "rod_first_node", None) or [0, len(r.positions)]

    def draw(p, **kw):  # one line per rod of an assembly (its nodes are numbered rod by rod)
        for k in range(len(fn) - 1):
            q = p[fn[k]:fn[k + 1]]
            cols = [q[:, j] for j in (axes if axes is not None else range(3))]
            line = ax.plot(*cols, **kw)
            kw.pop("label", None)
        return line

    snaps = r.snapshots
    dynamic = snaps is not None and len(snaps.t) > 0
    if dynamic:
        rows = _pick(len(snaps.t), times, snaps.t)
        cmap = _cmap("viridis")
        lo, hi = float(snaps.t[0]), float(snaps.t[-1])
        norm = colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1.0)
        for k in rows:
            draw(snaps.positions[k], color=cmap(norm(snaps.t[k])), lw=1.4)
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        fig.colorbar(sm, ax=ax, shrink=0.6 if axes is None else 0.9, pad=0.12 if axes is None else 0.03,
                     label="time t (s)")
        pts = snaps.positions[rows].reshape(-1, 3)
        what = f"centerline at {len(rows)} output time{'s' if len(rows) != 1 else ''}"
    else:
        pts = r.positions
        what = "final shape"
    final = r.positions
    draw(final, color="crimson", lw=2.0 if dynamic else 2.4, ls="--" if dynamic else "-", label="final state")
    tip = getattr(r, "tip_node", -1)  # the free end, as summary.json's tip
    ends = final[[0, tip]][:, axes] if axes is not None else final[[0, tip]]
    ax.scatter(*ends[0], color="black", s=20, zorder=3, label="s = 0")
    ax.scatter(*ends[1], color="crimson", s=25, marker="^", zorder=3, label="tip")
    every = np.vstack([pts, final])
    if axes is None:
        _equal_axes(ax, every, equal)
    else:
        ax.set_xlabel(f"{plane[0]} (m)")
        ax.set_ylabel(f"{plane[1]} (m)")
        if equal:
            ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
        what += f", projected on the {plane} plane"
    if not equal and axes is None:
        what += " (axes scaled separately)"
    ax.set_title(f"{_title(r)}\n{what}", fontsize=10)
    ax.legend(loc="best" if axes is not None else "upper left", fontsize=8)
    if path is not None:
        fig.savefig(os.fspath(path), dpi=DPI)
    return fig


class AnimationHTML(str):
    """The HTML of an animation (``to_jshtml``); a notebook displays it."""

    def _repr_html_(self):
        return str(self)


def _animation(r, fps, max_frames, plane=None):
    from matplotlib import animation

    axes = _plane_axes(plane)
    snaps = r.snapshots
    if snaps is None or len(snaps.t) == 0:
        raise ValueError("animate: no snapshots; run with keep_snapshots=True (and a dynamic stage)")
    rows = _pick(len(snaps.t), max_frames, snaps.t)
    pts = snaps.positions[rows].reshape(-1, 3)
    if axes is None:
        fig = _figure(6.5, 6.0)
        ax = fig.add_subplot(projection="3d")
        _equal_axes(ax, pts)
    else:
        fig = _figure(7.0, 5.0)
        ax = fig.add_subplot()
        lo, hi = pts[:, axes].min(axis=0), pts[:, axes].max(axis=0)
        pad = 0.05 * float(np.max(hi - lo) or 1.0)
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_xlabel(f"{plane[0]} (m)")
        ax.set_ylabel(f"{plane[1]} (m)")
        ax.grid(alpha=0.3)
    cols = axes if axes is not None else [0, 1, 2]
    p0 = snaps.positions[rows[0]]
    (line,) = ax.plot(*[p0[:, c] for c in cols], color="tab:blue", lw=2.0)
    k = getattr(r, "tip_node", -1) % len(p0)  # the free end, as summary.json's tip
    (tip,) = ax.plot(*[p0[k : k + 1, c] for c in cols], "^", color="crimson")
    title = ax.set_title("", fontsize=10)

    def draw(j):
        p = snaps.positions[rows[j]]
        if axes is None:
            line.set_data_3d(p[:, 0], p[:, 1], p[:, 2])
            tip.set_data_3d(p[k : k + 1, 0], p[k : k + 1, 1], p[k : k + 1, 2])
        else:
            line.set_data(p[:, cols[0]], p[:, cols[1]])
            tip.set_data(p[k : k + 1, cols[0]], p[k : k + 1, cols[1]])
        title.set_text(f"{_title(r)}\nt = {snaps.t[rows[j]]:.4g} s")
        return line, tip, title

    draw(0)
    return animation.FuncAnimation(fig, draw, frames=len(rows), interval=1000.0 / fps, blit=False)


VIDEO = (".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm")  # what ffmpeg writes


def _writer(path):
    """(writer name, path to write, note) for an animation file, chosen before any frame is
    drawn: ffmpeg for a video (a GIF with Pillow beside it when ffmpeg is missing, the note says
    so), ffmpeg or Pillow for .gif, matplotlib's HTML for .html. Raises RuntimeError when no
    writer can make the file, ValueError for another extension."""
    from matplotlib import animation

    root, ext = os.path.splitext(path)
    ext = ext.lower()
    ffmpeg = shutil.which("ffmpeg") is not None and animation.writers.is_available("ffmpeg")
    pillow = animation.writers.is_available("pillow")
    if ext == ".html":
        return "html", path, None
    if ext in VIDEO:
        if ffmpeg:
            return "ffmpeg", path, None
        if pillow:
            gif = root + ".gif"
            return "pillow", gif, f"animate: ffmpeg not found, wrote {gif} (a GIF, Pillow) instead of {path}"
        raise RuntimeError(f"animate: {path} needs ffmpeg (Debian: apt-get install ffmpeg), and Pillow "
                           "(python3-pil) for a .gif is missing too")
    if ext == ".gif":
        if ffmpeg:
            return "ffmpeg", path, None
        if pillow:
            return "pillow", path, None
        raise RuntimeError(f"animate: {path} needs Pillow (Debian: python3-pil) or ffmpeg")
    raise ValueError(f"animate: {path}: extension '{ext}' is not one of .gif, .html, {', '.join(VIDEO)}")


def animate_result(r, path=None, *, fps=20, max_frames=200, plane=None):
    import warnings

    from matplotlib import animation

    if path is None:
        return AnimationHTML(_animation(r, fps, max_frames, plane).to_jshtml(fps=fps))
    writer, path, note = _writer(os.fspath(path))
    anim = _animation(r, fps, max_frames, plane)
    if writer == "html":
        with open(path, "w", encoding="utf-8") as f:
            f.write(anim.to_jshtml(fps=fps))
    else:
        make = animation.FFMpegWriter if writer == "ffmpeg" else animation.PillowWriter
        anim.save(path, writer=make(fps=fps), dpi=DPI)
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)
    return path


def result_html(r):
    tip = ", ".join(f"{v:.6g}" for v in r.tip_position)
    rows = [
        ("model", r.model),
        ("nodes", f"{r.node_count} ({r.element_count} sample points)"),
        ("stages", f"{r.stage_count} ({'with' if r.series else 'no'} dynamic output)"),
        ("converged", "yes" if r.converged else f"no — {r.status}: {r.message}"),
        ("tip position (m)", f"({tip})"),
        ("wall time", f"{r.wall_time_s:.3g} s"),
    ]
    if r.series and "t" in r.series and len(r.series["t"]):
        rows.insert(4, ("time", f"{r.series['t'][-1]:.6g} s ({len(r.series['t'])} output rows)"))
    if r.snapshots is not None:
        rows.append(("snapshots", f"{len(r.snapshots.t)} kept"))
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>{html.escape(str(v))}</td></tr>"
        for k, v in rows
    )
    return f"<table><caption style='text-align:left'><b>cosserat.Result</b></caption>{body}</table>"
