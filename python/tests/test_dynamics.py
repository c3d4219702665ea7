"""Dynamic stages through the Python API: the time series equals the CLI's series.csv,
and the Wilberforce pre-load and first turning point match the paper (spec §8.3)."""

import os

import numpy as np

from conftest import SOURCE_DIR, run_cli

import cosserat

WILBERFORCE = os.path.join(SOURCE_DIR, "examples", "wilberforce.json")
SETS = {"stages.1.t_end": 0.6, "output.vtk": False}


def test_series_matches_cli(tmp_path):
    run_cli(WILBERFORCE, tmp_path, *[f"{k}={str(v).lower()}" for k, v in SETS.items()])
    ref = np.genfromtxt(tmp_path / "series.csv", delimiter=",", names=True)
    r = cosserat.run(WILBERFORCE, overrides=SETS, check=True)
    assert list(r.series) == list(ref.dtype.names)
    for name in ref.dtype.names:
        a, b = r.series[name], ref[name]
        assert a.shape == b.shape
        scale = max(np.max(np.abs(b)), 1e-300)
        assert np.max(np.abs(a - b)) <= 1e-9 * scale, name  # CSV keeps 10 significant digits


def test_wilberforce_numbers():
    r = cosserat.run(WILBERFORCE, overrides=SETS, check=True)
    z = r.series["bob_z"]
    assert abs(z[0] - (-0.439)) < 1.5e-3  # pre-load height
    k = int(np.argmax(z))
    assert abs(z[k] - (-0.252)) < 2.5e-3  # first upper turning point
    assert 0.4 < r.series["t"][k] < 0.6
    e = r.series["energy_total"]
    assert np.ptp(e) < 1e-3 * abs(e[0])  # no dissipation: energy conserved to the tolerance


def test_static_run_has_no_series():
    r = cosserat.run(os.path.join(SOURCE_DIR, "examples", "tendon-manipulator.json"), overrides={"rod.elements": 10})
    assert r.series == {}


def test_final_residual_matches_summary(tmp_path):
    import json

    tendon = os.path.join(SOURCE_DIR, "examples", "tendon-manipulator.json")
    run_cli(tendon, tmp_path, "rod.elements=50")
    summary = json.load(open(tmp_path / "summary.json"))
    r = cosserat.run(tendon, overrides={"rod.elements": 50})
    assert r.final_residual == summary["final_residual"]
    assert r.failed_load_steps == summary["failed_load_steps"]
