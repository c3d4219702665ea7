"""Assemblies through the Python package: Result.rods, the joints' reactions, an assembly's
output folder (the rod column of nodes.csv) and the plots drawing every rod. References: the CLI
run of the same scenario (its summary.json) and the equilibrium of the three-hinged arch."""

import json
import os

import numpy as np

import cosserat
from conftest import SOURCE_DIR, run_cli

ARCH = os.path.join(SOURCE_DIR, "examples", "three-hinged-arch.json")


def test_rods_and_joints_match_the_cli(tmp_path):
    r = cosserat.run(ARCH)
    assert r.converged
    assert r.rod_names == ["left", "right"] and r.rod_first_node == [0, 21, 42]
    left, right = r.rods["left"], r.rods["right"]
    assert left.positions.shape == (21, 3) and right.gamma.shape == (20, 3)
    assert right.s[-1] == 1.25 and left.nodes == slice(0, 21)
    run_cli(ARCH, tmp_path / "arch")
    s = json.load(open(tmp_path / "arch" / "summary.json"))
    assert np.allclose(right.positions[-1], s["track"]["B"]["position"], rtol=0, atol=1e-12)
    (j,) = r.joints
    assert j.name == "crown" and np.allclose(j.force, s["joints"][0]["force"], rtol=1e-12, atol=1e-9)
    # the hinge force on the left rod balances the right rod's support reaction (a two-force member)
    rb = next(x.force for x in r.reactions if x.node == 41)
    assert np.allclose(j.force, rb, rtol=0, atol=1e-9 * 20000)
    out = cosserat.read_output(str(tmp_path / "arch"))
    assert list(out.nodes["rod"][:1]) == ["left"] and list(out.nodes["rod"][-1:]) == ["right"]
    assert np.allclose(out.nodes["x"], r.positions[:, 0], rtol=0, atol=1e-15)


def test_one_rod_has_one_rod_named_rod():
    r = cosserat.run(os.path.join(SOURCE_DIR, "examples", "catenary.json"))
    assert r.rod_names == ["rod"] and r.joints == []
    assert np.array_equal(r.rods["rod"].positions, r.positions)


def test_plots_draw_every_rod(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from cosserat import plot

    run_cli(ARCH, tmp_path / "arch")
    out = cosserat.read_output(str(tmp_path / "arch"))
    assert plot.plot_centerline(out, str(tmp_path / "c.png"))
    fig = cosserat.run(ARCH).plot()
    # one final-state line per rod
    assert sum(1 for l in fig.axes[0].lines if l.get_color() == "crimson") == 2
