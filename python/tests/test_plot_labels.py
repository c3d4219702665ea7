"""The plots say what they show: colour bars without negative times, the time or load factor of
the strain and stress figures, integer load-step ticks, legends and suptitles that stay clear of
the panels, a tube colour that varies (or says it is constant), and animations that write the
file they announce without ffmpeg.

The references are the figure objects themselves (colour-bar limits, tick values, text, the
bounding boxes of the drawn artists) and the run's summary.json (stage times, load factors)."""

import json
import os

import numpy as np
import pytest

from conftest import SOURCE_DIR, TENDON, run_cli

WILBERFORCE = os.path.join(SOURCE_DIR, "examples", "wilberforce.json")


@pytest.fixture(scope="module")
def wilberforce_run(tmp_path_factory):
    """A static stage (10 load steps, stored at negative pvd times) and a 50 ms dynamic stage."""
    d = tmp_path_factory.mktemp("wilberforce_labels")
    run_cli(WILBERFORCE, d, "rod.elements=200", "stages.1.t_end=0.05", "stages.1.snapshot_dt=0.01")
    return d


@pytest.fixture(scope="module")
def tendon_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("tendon_labels")
    run_cli(TENDON, d, "rod.elements=20")
    return d


def _read(directory):
    from cosserat.output import read_output

    return read_output(str(directory))


def _drawn(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _colorbars(fig):
    """(label, vmin, vmax, tick values) of every colour bar of the figure."""
    out = []
    for ax in fig.axes:
        cb = getattr(ax, "_colorbar", None)
        if cb is not None:
            out.append((cb.ax.get_ylabel() or cb.ax.get_xlabel(), cb.norm.vmin, cb.norm.vmax, list(cb.get_ticks())))
    return out


def _figure_of(plot_fn, out, tmp_path, monkeypatch):
    """The Figure a plot_* function saves (captured at its save)."""
    import cosserat.plot as cp

    seen = []

    def keep(fig, path):
        seen.append(fig)
        return path

    monkeypatch.setattr(cp, "_save", keep)
    assert plot_fn(out, str(tmp_path / "x.png")) is not None
    return seen[-1]


def test_centerline_of_a_static_then_dynamic_run_has_no_negative_time(wilberforce_run, tmp_path, monkeypatch):
    import cosserat.plot as cp

    out = _read(wilberforce_run)
    assert min(s.time for s in out.snapshots) < 0  # the load steps are stored at negative times
    fig = _figure_of(cp.plot_centerline, out, tmp_path, monkeypatch)
    bars = _colorbars(fig)
    timebars = [b for b in bars if "time" in b[0]]
    assert len(timebars) == 1, bars
    label, lo, hi, ticks = timebars[0]
    # the dynamic stage runs from 0 to 0.05 s (summary.json)
    stage = json.loads((wilberforce_run / "summary.json").read_text())["stages"][1]
    assert lo == pytest.approx(stage["t_start"]) and hi == pytest.approx(stage["t_end"]), (lo, hi)
    assert min(ticks) >= 0, ticks
    # the load steps are told apart by their load factor, not by a time
    lfbars = [b for b in bars if "load factor" in b[0]]
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert lfbars or any("load factor" in t for t in legend), (bars, legend)


def test_strains_and_stresses_say_when(wilberforce_run, tendon_run, tmp_path, monkeypatch):
    import cosserat.plot as cp

    for fn in (cp.plot_strains, cp.plot_stresses):
        fig = _figure_of(fn, _read(wilberforce_run), tmp_path, monkeypatch)
        assert "t = 0.05 s" in fig._suptitle.get_text(), fig._suptitle.get_text()
        fig = _figure_of(fn, _read(tendon_run), tmp_path, monkeypatch)
        assert "load factor 1" in fig._suptitle.get_text(), fig._suptitle.get_text()


def test_load_step_colour_bar_has_integer_ticks(tmp_path, monkeypatch):
    import cosserat.plot as cp
    from cosserat.output import RunOutput

    summary = {"scenario": "three steps", "residual_history": [[1e-2, 1e-5, 1e-11]] * 3, "newton_iterations": [2, 2, 2]}
    out = RunOutput(str(tmp_path), summary, None, None, [], None)
    fig = _figure_of(cp.plot_convergence, out, tmp_path, monkeypatch)
    _drawn(fig)
    (label, lo, hi, ticks), = _colorbars(fig)
    assert label == "load step"
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert {1, 2, 3} <= set(int(t) for t in ticks), ticks


def test_tube_legend_belongs_to_its_axes(wilberforce_run):
    from cosserat.plot import tube_figure

    fig = tube_figure(_read(wilberforce_run))
    renderer = _drawn(fig)
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None and not fig.legends
    bb, inside = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert inside.x0 - 1 <= bb.x0 and bb.x1 <= inside.x1 + 1, (bb, inside)
    assert inside.y0 - 1 <= bb.y0 and bb.y1 <= inside.y1 + 1, (bb, inside)
    title = ax.title.get_window_extent(renderer)
    assert title.x0 >= 0 and title.x1 <= fig.bbox.x1 and title.y1 <= fig.bbox.y1, (title, fig.bbox)


def test_tube_colour_spans_the_moment_along_the_rod(wilberforce_run):
    from cosserat.plot import tube_figure

    out = _read(wilberforce_run)
    m = np.linalg.norm(np.asarray(out.snapshots[-1].point_data["moment"]).reshape(-1, 3), axis=1)
    assert 0.05 < (m.max() - m.min()) / m.max() < 0.5  # a helix: |m| nearly constant
    fig = tube_figure(out)
    (label, lo, hi, ticks), = _colorbars(fig)
    assert "|m|" in label
    # the colour scale runs over the values along the rod: its ends are both used
    assert lo == pytest.approx(m.min(), rel=1e-9) and hi == pytest.approx(m.max(), rel=1e-9), (lo, hi)


def test_tube_of_a_constant_moment_says_so(tmp_path):
    from cosserat.output import RunOutput, Snapshot
    from cosserat.plot import tube_figure

    n = 21  # a quarter circle of radius 1 under a pure end moment: |m| = 2 N m everywhere
    th = np.linspace(0, 0.5 * np.pi, n)
    x = np.column_stack([np.sin(th), np.zeros(n), 1 - np.cos(th)])
    d2 = np.tile([0.0, 1.0, 0.0], (n, 1))
    d3 = np.column_stack([-np.sin(th), np.zeros(n), np.cos(th)])
    pd = {"d2": d2, "d3": d3, "radius": np.full(n, 0.02), "moment": np.tile([0.0, -2.0, 0.0], (n, 1))}
    snap = Snapshot(1.0, x, pd, {}, str(tmp_path / "none.vtp"))
    fig = tube_figure(RunOutput(str(tmp_path), {"scenario": "arc"}, None, None, [snap], None))
    words = fig.axes[0].get_title() + " ".join(b[0] for b in _colorbars(fig))
    assert "constant |m| = 2 N m" in words, words


def test_series_suptitle_clears_the_panels(wilberforce_run, tmp_path, monkeypatch):
    import cosserat.plot as cp

    fig = _figure_of(cp.plot_series, _read(wilberforce_run), tmp_path, monkeypatch)
    renderer = _drawn(fig)
    top = fig._suptitle.get_window_extent(renderer)
    assert top.y1 <= fig.bbox.y1 + 1
    for ax in fig.axes:
        if ax.get_visible():
            assert not top.overlaps(ax.get_tightbbox(renderer)), ax.get_title()


def _dynamic_result():
    import cosserat

    section = {"shape": "resultants", "EA": 1e4, "GA_y": 1e4, "GA_z": 1e4, "GJ": 1, "EI_y": 1, "EI_z": 1,
               "rhoA": 1, "rhoI_y": 1e-3, "rhoI_z": 1e-3}
    sc = {"rod": {"length": 1, "elements": 6, "sections": [section]},
          "boundary_conditions": [{"type": "clamp", "node": "start"}],
          "loads": [{"type": "force", "node": "end", "value": [0, 0.1, 0]}],
          "stages": [{"type": "dynamic", "t_end": 0.3, "output_dt": 0.05}], "output": {"vtk": False}}
    return cosserat.run(sc, keep_snapshots=True)


def _without_ffmpeg(monkeypatch, pillow=True):
    import shutil

    from matplotlib import animation

    real = animation.writers.is_available
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    monkeypatch.setattr(animation.writers, "is_available",
                        lambda name: False if (name != "pillow" or not pillow) else real(name))


def test_animate_mp4_without_ffmpeg_writes_a_gif_and_says_so(tmp_path, monkeypatch):
    r = _dynamic_result()
    _without_ffmpeg(monkeypatch)
    with pytest.warns(UserWarning, match="x.gif"):
        path = r.animate(tmp_path / "x.mp4", max_frames=4)
    assert path == str(tmp_path / "x.gif"), path
    with open(path, "rb") as f:
        assert f.read(6) in (b"GIF87a", b"GIF89a")
    assert sorted(os.listdir(tmp_path)) == ["x.gif"]


def test_animate_without_any_writer_refuses_before_working(tmp_path, monkeypatch):
    import cosserat._notebook as nb

    r = _dynamic_result()
    _without_ffmpeg(monkeypatch, pillow=False)
    monkeypatch.setattr(nb, "_animation", lambda *a, **k: pytest.fail("drew the frames before checking the writer"))
    with pytest.raises(RuntimeError, match="ffmpeg"):
        r.animate(tmp_path / "x.mp4")
    with pytest.raises(RuntimeError, match="Pillow"):
        r.animate(tmp_path / "x.gif")
    with pytest.raises(ValueError, match=r"\.png"):
        r.animate(tmp_path / "x.png")
    assert os.listdir(tmp_path) == []
