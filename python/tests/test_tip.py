""""tip" is the free end everywhere (issue: the Wilberforce spring is clamped at its last
node, and the summary's tip position, the plot's tip marker and Result.tip_position were
that clamp while series.csv's tip_* was the free end): a rod clamped at its last node has
its tip at node 0 in summary.json, the CLI summary, Result and the centerline plot's marker.
References: nodes.csv's first row (the free end) and the clamp, which stays at (L, 0, 0)."""

import json
import os

import numpy as np

import cosserat
import cosserat.output
from conftest import SOURCE_DIR, run_cli

HANGING = {
    "name": "clamped-at-the-last-node",
    "rod": {
        "length": 1.0,
        "elements": 10,
        "material": {"E": 2.1e11, "G": 8.1e10, "rho": 7850},
        "sections": [{"shape": "circle", "radius": 0.002}],
    },
    "boundary_conditions": [{"type": "clamp", "node": "end"}],
    "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
    "stages": [{"type": "static", "load_steps": 2}, {"type": "dynamic", "t_end": 0.002, "output_dt": 0.001}],
    "output": {"vtk": False},
}


def _run(tmp_path):
    path = tmp_path / "hanging.json"
    path.write_text(json.dumps(HANGING))
    out = tmp_path / "out"
    p = run_cli(str(path), str(out))
    return path, out, p.stdout


def test_the_tip_is_the_free_end_of_a_rod_clamped_at_its_last_node(tmp_path):
    path, out, printed = _run(tmp_path)
    summary = json.load(open(out / "summary.json"))
    nodes = cosserat.output.read_csv(str(out / "nodes.csv"))
    free = np.array([nodes[c][0] for c in "xyz"])
    clamp = np.array([nodes[c][-1] for c in "xyz"])
    assert np.allclose(clamp, [1, 0, 0], atol=1e-12)  # the clamp holds the reference
    assert free[2] < -1e-3  # the free end sags under its weight
    tip = summary["tip"]
    assert tip["node"] == 0 and tip["s"] == 0
    assert np.allclose(tip["position"], free, rtol=0, atol=1e-12), (tip["position"], free)
    # series.csv's tip_* (the default tracked point) is the same node
    series = cosserat.output.read_csv(str(out / "series.csv"))
    assert np.allclose([series[f"tip_{c}"][-1] for c in "xyz"], free, rtol=0, atol=1e-12)
    # the CLI summary prints the free end
    line = next(l for l in printed.splitlines() if "tip position" in l)
    got = np.array([float(v) for v in line.split("(")[1].split(")")[0].split(",")])
    assert np.allclose(got, free, rtol=1e-8, atol=1e-12), line
    assert "node 0, s = 0 m" in line, line
    # Python's Result
    tips = []
    r = cosserat.run(str(path), output_dir=str(tmp_path / "py"), on_sample=lambda smp: tips.append(smp.tip_position.copy()))
    assert r.tip_node == 0
    assert np.allclose(r.tip_position, free, rtol=0, atol=1e-12)
    # and a Sample's, at every output time, is series.csv's tip_*
    assert np.allclose(tips, np.column_stack([r.series[f"tip_{c}"] for c in "xyz"]), rtol=0, atol=1e-12)


def test_the_centerline_plot_marks_the_free_end(tmp_path, monkeypatch):
    from cosserat import plot

    _, out, _ = _run(tmp_path)
    figures = []
    monkeypatch.setattr(plot, "_save", lambda fig, path: figures.append(fig) or path)
    plot.plot_centerline(cosserat.output.read_output(str(out)), str(tmp_path / "c.png"))
    (fig,) = figures
    ax = fig.axes[0]
    (marker,) = [c for c in ax.collections if c.get_label() == "tip"]
    at = np.array([np.ravel(v)[0] for v in marker._offsets3d])
    nodes = cosserat.output.read_csv(str(out / "nodes.csv"))
    free = np.array([nodes[c][0] for c in "xyz"])
    assert np.allclose(at, free, rtol=0, atol=1e-12), (at, free)
