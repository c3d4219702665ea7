"""The Python API gives the same numbers as the CLI (its CSV and JSON files are the reference)."""

import json
import os

import numpy as np
import pytest

import cosserat
from conftest import HELIX, TENDON

RTOL = 1e-12


def csv(path):
    """Header + columns, read with numpy only (independent of cosserat.output)."""
    with open(path) as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def close(actual, expected, what):
    """Relative agreement to RTOL, measured against the scale of the whole array (values that are
    round-off zeros next to O(1) ones have no meaningful relative error of their own)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} vs {expected.shape}"
    scale = max(float(np.max(np.abs(expected))), 1e-300)
    err = float(np.max(np.abs(actual - expected))) / scale if actual.size else 0.0
    assert err <= RTOL, f"{what}: max relative difference {err:.3e} > {RTOL}"


@pytest.mark.parametrize(
    "example, elements, fixture",
    [(TENDON, 50, "tendon_cli"), (HELIX, 99, "helix_cli")],
    ids=["tendon-50", "helix-99"],
)
def test_api_matches_cli(example, elements, fixture, request):
    outdir = request.getfixturevalue(fixture)
    r = cosserat.run(example, {"rod.elements": elements})
    assert r.converged and r.status == cosserat.Status.OK and r.message == ""
    assert r.node_count == elements + 1 and r.element_count == elements

    header, nodes = csv(os.path.join(outdir, "nodes.csv"))
    assert header == ["s", "x", "y", "z", "p0", "p1", "p2", "p3"]
    close(r.s, nodes[:, 0], "s")
    close(r.positions, nodes[:, 1:4], "positions")
    close(r.quaternions, nodes[:, 4:8], "quaternions")

    header, el = csv(os.path.join(outdir, "elements.csv"))
    assert header[0] == "s" and len(header) == 13
    close(r.element_s, el[:, 0], "element s")
    for name, cols in [("gamma", slice(1, 4)), ("kappa", slice(4, 7)), ("n", slice(7, 10)), ("m", slice(10, 13))]:
        close(getattr(r, name), el[:, cols], name)

    with open(os.path.join(outdir, "summary.json")) as f:
        summary = json.load(f)
    assert summary["converged"] is True
    assert r.load_steps == summary["load_steps"]
    assert r.newton_iterations == summary["newton_iterations"]
    assert r.total_newton_iterations == summary["newton_iterations_total"]
    assert len(r.residual_history) == len(summary["residual_history"])
    for k, (mine, ref) in enumerate(zip(r.residual_history, summary["residual_history"])):
        close(mine, ref, f"residual history of load step {k}")
    close(r.tip_position, summary["tip"]["position"], "tip position")
    close(r.tip_quaternion, summary["tip"]["quaternion"], "tip quaternion")
    assert [x.node for x in r.reactions] == [x["node"] for x in summary["reactions"]]
    for mine, ref in zip(r.reactions, summary["reactions"]):
        close(np.r_[mine.force, mine.moment_body], np.r_[ref["force"], ref["moment_body"]], "reaction")


def test_output_dir_writes_the_cli_files(tendon_cli, tmp_path):
    """run(..., output_dir=) writes the same CSVs and snapshots as `cosserat run -o`."""
    out = tmp_path / "api"
    r = cosserat.run(TENDON, {"rod.elements": 50}, output_dir=str(out))
    assert r.converged
    for name in ["nodes.csv", "elements.csv", "rod.pvd"] + [f"rod_{k:04d}.vtp" for k in range(r.load_steps)]:
        assert (out / name).read_bytes() == (tendon_cli / name).read_bytes(), name
    mine, ref = json.loads((out / "summary.json").read_text()), json.loads((tendon_cli / "summary.json").read_text())
    for key in ("wall_time_s", "assembly_time_s", "linear_solve_time_s"):
        mine.pop(key), ref.pop(key)
    for summary in (mine, ref):  # the stability estimate's wall time, per static stage
        for stage in summary["stages"]:
            stage.get("stability", {}).pop("time_s", None)
    assert mine == ref


def test_no_files_without_output_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cosserat.run(HELIX, {"rod.elements": 10, "stages.0.load_steps": 2})
    assert list(tmp_path.iterdir()) == []
