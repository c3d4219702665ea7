"""Plots of a run's output folder, written as PNG files (headless, no display needed).

Usage::

    python3 -m cosserat.plot DIR [--out OUTDIR]

DIR is what ``cosserat run -o DIR`` (or ``cosserat.run(..., output_dir=DIR)``) wrote. Writes, into
OUTDIR (default DIR), whichever of these the folder has data for, and prints their paths:

* ``centerline.png``   3-D centerline of every load-step snapshot (rod.pvd + .vtp; nodes.csv
                       when there are none), equal axis scaling, the final state highlighted
* ``strains.png``      γ and κ components along s (elements.csv)
* ``stresses.png``     n and m components along s (elements.csv)
* ``convergence.png``  RMS residual per Newton iteration of every load step, log scale (summary.json)
* ``series.png``       every column of series.csv against t (dynamic runs)

Uses matplotlib's object API with the Agg canvas, so it never touches the pyplot backend of
the calling program.
"""

import argparse
import os
import sys

import numpy as np

from .output import read_output

DPI = 110


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


def plot_centerline(out, path):
    """3-D centerline of every snapshot; the final one highlighted."""
    from matplotlib import cm, colors

    shapes = [(snap.time, snap.points) for snap in out.snapshots]
    final = None
    if out.nodes is not None:
        final = np.column_stack([out.nodes[c] for c in "xyz"])
    elif shapes:
        final = shapes[-1][1]
    if final is None:
        return None
    fig = _figure(7.5, 6.5)
    ax = fig.add_subplot(projection="3d")
    every = [final] + [p for _, p in shapes]
    cmap = _cmap("viridis")
    if shapes:
        times = np.array([t for t, _ in shapes], dtype=float)
        finite = np.isfinite(times)
        lo, hi = (times[finite].min(), times[finite].max()) if finite.any() else (0.0, 1.0)
        norm = colors.Normalize(vmin=min(lo, 0.0), vmax=hi if hi > lo else lo + 1.0)
        for k, (t, p) in enumerate(shapes):
            c = cmap(norm(t if np.isfinite(t) else hi))
            ax.plot(p[:, 0], p[:, 1], p[:, 2], color=c, lw=1.0, alpha=0.75)
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        fig.colorbar(sm, ax=ax, shrink=0.6, pad=0.1, label="load factor of the snapshot")
    ax.plot(final[:, 0], final[:, 1], final[:, 2], color="crimson", lw=2.6, label="final state")
    ax.scatter(*final[0], color="black", s=25, label="s = 0")
    ax.scatter(*final[-1], color="crimson", s=25, marker="^", label="tip")
    pts = np.vstack(every)
    centre = 0.5 * (pts.max(axis=0) + pts.min(axis=0))
    half = 0.5 * float(np.max(pts.max(axis=0) - pts.min(axis=0)))
    if not np.isfinite(half) or half <= 0:
        half = 1.0
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1, 1, 1))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    n = len(shapes)
    ax.set_title(f"{_title(out)}\ncenterline, {n} load-step snapshot{'s' if n != 1 else ''}", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    return _save(fig, path)


def _component_grid(out, path, rows, heading):
    """A rows × 3 grid: one panel per (quantity, component) against element s."""
    el = out.elements
    if el is None or "s" not in el:
        return None
    s = el["s"]
    fig = _figure(12, 3.2 * len(rows) + 0.6)
    axes = fig.subplots(len(rows), 3, squeeze=False, sharex=True)
    # Components below 1e-10 of the largest value in the figure are round-off: drawn as zero.
    keys = [f"{p}_{c}" for p, _ in rows for c in "xyz" if f"{p}_{c}" in el and el[f"{p}_{c}"].size]
    scale = max((float(np.max(np.abs(el[k]))) for k in keys), default=0.0)
    for r, (prefix, symbol) in enumerate(rows):
        for col, c in enumerate("xyz"):
            ax = axes[r][col]
            key = f"{prefix}_{c}"
            ax.grid(True, alpha=0.3)
            ax.set_title(f"{symbol}$_{c}$", fontsize=11)
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
                ax.plot(s, v, color="C0", lw=1.4)
                ax.ticklabel_format(axis="y", useOffset=False)
                lo, hi = float(np.min(v)), float(np.max(v))
                if hi - lo < 1e-3 * vmax:  # (nearly) constant: show the value, not its last digits
                    mid, half = 0.5 * (lo + hi), 0.05 * vmax
                    ax.set_ylim(mid - half, mid + half)
            if r == len(rows) - 1:
                ax.set_xlabel("s")
    fig.suptitle(f"{_title(out)}: {heading} (element basis)", fontsize=11)
    fig.tight_layout()
    return _save(fig, path)


def plot_strains(out, path):
    """γ (row 1) and κ (row 2) components along s."""
    return _component_grid(out, path, [("gamma", r"$\gamma$"), ("kappa", r"$\kappa$")], "strains")


def plot_stresses(out, path):
    """n (row 1) and m (row 2) components along s."""
    return _component_grid(out, path, [("n", "$n$"), ("m", "$m$")], "stress resultants")


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
        norm = colors.Normalize(vmin=1, vmax=max(len(steps), 2))
        for k, h in enumerate(steps):
            h = np.where(h > 0, h, np.nan)  # exact zeros have no place on a log axis
            ax.semilogy(np.arange(len(h)), h, "o-", color=cmap(norm(k + 1)), ms=3.5, lw=1.2)
        sm = cm.ScalarMappable(norm=norm, cmap=cmap)
        sm.set_array([])
        fig.colorbar(sm, ax=ax, label="load step")
        ax.xaxis.get_major_locator().set_params(integer=True)
    its = (out.summary or {}).get("newton_iterations")
    extra = f", Newton iterations {sum(its)} ({' '.join(str(i) for i in its)})" if its else ""
    ax.set_xlabel("Newton iteration")
    ax.set_ylabel("RMS residual")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"{_title(out)}\nconvergence{extra}", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plot_series(out, path):
    """Every column of series.csv against t (or the first column when there is no ``t``)."""
    series = out.series
    if series is None or not series:
        return None
    names = list(series)
    tname = "t" if "t" in series else ("time" if "time" in series else names[0])
    t = series[tname]
    cols = [c for c in names if c != tname]
    if not cols:
        return None
    ncol = min(3, len(cols))
    nrow = -(-len(cols) // ncol)
    fig = _figure(4.2 * ncol, 2.6 * nrow + 0.6)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for k, c in enumerate(cols):
        ax = axes[k // ncol][k % ncol]
        ax.plot(t, series[c], lw=1.2)
        ax.set_title(c, fontsize=10)
        ax.grid(True, alpha=0.3)
        if k + ncol >= len(cols):  # the last panel of its column
            ax.set_xlabel(tname)
    for k in range(len(cols), nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    fig.suptitle(f"{_title(out)}: series.csv", fontsize=11)
    fig.tight_layout()
    return _save(fig, path)


PLOTS = [
    ("centerline.png", plot_centerline),
    ("strains.png", plot_strains),
    ("stresses.png", plot_stresses),
    ("convergence.png", plot_convergence),
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
