"""The plot command on CLI output folders writes valid, non-empty PNGs."""

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import SOURCE_DIR, run_cli

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FOUR = ["centerline.png", "strains.png", "stresses.png", "convergence.png"]
STATIC = FOUR + ["tube.png"]  # what a static run with rod.pvd gets
WILBERFORCE = os.path.join(SOURCE_DIR, "examples", "wilberforce.json")


def plot(directory, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    env.pop("DISPLAY", None)  # headless, and whatever backend the environment asks for
    env.pop("MPLBACKEND", None)
    p = subprocess.run(
        [sys.executable, "-m", "cosserat.plot", str(directory), *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def check_png(path):
    import matplotlib.image

    with open(path, "rb") as f:
        assert f.read(8) == PNG_MAGIC, path
    assert os.path.getsize(path) > 10_000, f"{path}: only {os.path.getsize(path)} bytes"
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 200
    assert float(np.std(img[..., :3])) > 0, f"{path}: a single flat colour"


@pytest.mark.parametrize("fixture", ["tendon_cli", "helix_cli"])
def test_plot_writes_the_static_pngs(fixture, request, tmp_path):
    src = request.getfixturevalue(fixture)
    out = tmp_path / "png"
    printed = plot(src, "--out", str(out))
    assert printed == [str(out / name) for name in STATIC]
    for name in STATIC:
        check_png(out / name)


def test_plot_defaults_to_the_run_folder_and_plots_series(helix_cli, tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    for name in os.listdir(helix_cli):
        (d / name).write_bytes((helix_cli / name).read_bytes())
    t = np.linspace(0, 2, 201)
    cols = {"t": t, "tip_x": np.sin(3 * t), "tip_z": np.cos(t), "energy": t**2}
    with open(d / "series.csv", "w") as f:
        f.write(",".join(cols) + "\n")
        np.savetxt(f, np.column_stack(list(cols.values())), delimiter=",")
    printed = plot(d)
    assert printed == [str(d / name) for name in STATIC + ["series.png"]]
    check_png(d / "series.png")


def test_plot_reports_a_folder_without_outputs(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    p = subprocess.run([sys.executable, "-m", "cosserat.plot", str(tmp_path)], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "no run outputs" in p.stderr


@pytest.fixture(scope="module")
def wilberforce_cli(tmp_path_factory):
    """The Wilberforce pendulum (a helix of 0.5 mm wire with a rigid bob), 200 elements, its
    dynamic stage cut to 50 ms."""
    d = tmp_path_factory.mktemp("wilberforce")
    run_cli(WILBERFORCE, d, "rod.elements=200", "stages.1.t_end=0.05")
    return d


def tube_title_and_legend(directory):
    from cosserat.output import read_output
    from cosserat.plot import tube_figure

    out = read_output(str(directory))
    fig = tube_figure(out)
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    return out, ax, legend


def test_tube_of_the_wilberforce_pendulum(wilberforce_cli, tmp_path):
    printed = plot(wilberforce_cli, "--out", str(tmp_path))
    assert str(tmp_path / "tube.png") in printed
    check_png(tmp_path / "tube.png")
    out, ax, legend = tube_title_and_legend(wilberforce_cli)
    title = ax.get_title()
    # 0.5 mm wire on a ~0.1 m drawing: invisible at scale, so exaggerated and said so
    assert "radius ×" in title and "largest radius 0.0005 m" in title, title
    assert "t = 0.05 s" in title and "mixed_discrete" in title, title
    assert any(t.startswith("rigid body, 0.524") and t.endswith("kg") for t in legend), legend
    assert {"body axis d1", "body axis d2", "body axis d3"} <= set(legend), legend
    assert any(t.startswith("first snapshot (load factor 0.1)") for t in legend), legend
    assert [ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()] == ["x (m)", "y (m)", "z (m)"]
    spans = [np.ptp(lim) for lim in (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())]
    assert np.allclose(spans, spans[0], rtol=1e-9), spans  # equal axis scaling
    # the tube is drawn around the final state
    final = np.column_stack([out.nodes[c] for c in "xyz"])
    assert np.allclose(out.snapshots[-1].points, final, atol=1e-9)


def test_tube_of_the_tendon_manipulator_is_to_scale(tendon_cli, tmp_path):
    printed = plot(tendon_cli, "--out", str(tmp_path))
    assert str(tmp_path / "tube.png") in printed
    check_png(tmp_path / "tube.png")
    out, ax, legend = tube_title_and_legend(tendon_cli)
    title = ax.get_title()
    assert "radius to scale" in title and "×" not in title, title  # 4-10 mm on a 0.2 m rod
    assert "load factor 1" in title, title
    assert not any("rigid body" in t for t in legend), legend
    assert any(t.startswith("first snapshot (load factor 0.125)") for t in legend), legend
    assert fig_colorbar_label(ax) == "|m| bending and twisting moment (N m)"


def fig_colorbar_label(ax):
    cbar = [a for a in ax.figure.axes if a is not ax]
    assert len(cbar) == 1
    return cbar[0].get_ylabel()


def test_tube_geometry_follows_the_frames_and_exaggerates_thin_rods():
    from cosserat.output import Snapshot
    from cosserat.plot import TUBE_SIDES, tube_geometry

    n = 11
    x = np.column_stack([np.linspace(0, 1, n), np.zeros(n), np.zeros(n)])
    pd = {"d2": np.tile([0.0, 1.0, 0.0], (n, 1)), "d3": np.tile([0.0, 0.0, 1.0], (n, 1)), "radius": np.full(n, 0.05)}
    surf, keep, k, rmax = tube_geometry(Snapshot(0.0, x, pd, {}, "mem"))
    assert surf.shape == (n, TUBE_SIDES + 1, 3) and k == 1 and rmax == 0.05
    assert np.allclose(np.linalg.norm(surf[..., 1:], axis=-1), 0.05)  # circles in the y-z plane
    assert np.allclose(surf[..., 0], x[:, :1])
    pd["radius"] = np.full(n, 1e-4)  # 0.01 % of the length: drawn ×50 (0.5 %)
    surf, keep, k, rmax = tube_geometry(Snapshot(0.0, x, pd, {}, "mem"))
    assert k == 50 and np.allclose(np.linalg.norm(surf[..., 1:], axis=-1), 5e-3)


def test_plot_draws_an_arc_length_path(tmp_path):
    """A strip clamped at both ends, bent up by a force at its middle (stage 0), its end moved in
    by a tenth of its length (stage 1, an arc-length path), the force taken away (stage 2), its
    end turned (stage 3, an arc-length path through the snap):
    load_path.png is written, and only for the arc-length stage's path."""
    import json

    section = {"shape": "resultants", "EA": 1e7, "GA_y": 1e7, "GA_z": 1e7, "GJ": 100.0, "EI_y": 100.0, "EI_z": 1.0}
    scenario = {
        "name": "snapping-strip",
        "rod": {"length": 1.0, "elements": 20, "sections": [section]},
        "boundary_conditions": [
            {"type": "clamp", "node": "start"},
            {"type": "clamp", "node": "end", "stages": [0]},
            {"type": "clamp", "node": "end", "position": [0.9, 0, 0], "stages": [1, 2]},
            {"type": "clamp", "node": "end", "position": [0.9, 0, 0], "rotation": [0, 0, 1.0], "stages": [3]},
        ],
        "loads": [{"type": "force", "node": 10, "value": [0, 20.0, 0], "stages": [0, 1]}],
        "stages": [
            {"type": "static", "stability": False},
            {"type": "static", "stability": False, "path": "arc_length", "arc_length": {"initial": 0.1}},
            {"type": "static", "stability": False},
            {"type": "static", "stability": False, "path": "arc_length", "arc_length": {"steps": 30}},
        ],
        "output": {"vtk": False, "track": [{"name": "mid", "node": 10}]},
    }
    path = tmp_path / "strip.json"
    path.write_text(json.dumps(scenario))
    run_cli(str(path), tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert [st["path"] for st in summary["stages"]] == ["load_steps", "arc_length", "load_steps", "arc_length"]
    lf = [e["load_factor"] for e in summary["stages"][3]["track_load_steps"]]
    assert len(lf) == 30 and max(lf) > lf[-1] + 0.1  # it went past the snap
    printed = plot(tmp_path / "run", "--out", str(tmp_path / "png"))
    assert str(tmp_path / "png" / "load_path.png") in printed
    check_png(tmp_path / "png" / "load_path.png")
