"""The Python package on runs of every formulation: same Result fields, series columns and plots."""

import os

import numpy as np
import pytest

import cosserat
from conftest import SOURCE_DIR
from test_plot import check_png, plot

EX = os.path.join(SOURCE_DIR, "examples")


def test_port_hamiltonian_run():
    r = cosserat.run(os.path.join(EX, "flying-spaghetti.json"), overrides=["stages.0.t_end=6"])
    assert r.model == "port_hamiltonian" and r.converged
    # quadratic elements: every finite-element node, two Gauss points per element
    assert r.node_count == 21 and r.element_count == 20
    assert np.allclose(np.linalg.norm(r.quaternions, axis=1), 1, atol=1e-12)
    s = r.series
    after = s["t"] >= 5 - 1e-9
    # the paper's energy after loading, and its exact discrete balance in every step
    assert np.allclose(s["energy_total"][after], 606.150320665651, rtol=1e-9)
    assert np.max(np.abs(s["energy_balance"])) < 1e-10 * 606.15
    assert np.allclose(s["momentum_x"][after], 50, rtol=1e-10)


def test_lgvi_run_standard_and_modified():
    base = ["stages.0.t_end=3", "stages.0.output_dt=1e-3"]
    m = cosserat.run(os.path.join(EX, "pure-stretching.json"), overrides=base)
    s = cosserat.run(os.path.join(EX, "pure-stretching.json"), overrides=base + ["model.dilatation=false"])
    assert m.model == s.model == "lgvi" and m.node_count == 101
    # the modified model conserves every element's volume; the standard one stretches it (paper §5.2)
    assert np.max(m.series["volume_drift"]) < 1e-12
    assert np.max(s.series["dilatation_max"]) - 1 == pytest.approx(0.1247, abs=2e-4)
    assert np.max(m.series["dilatation_max"]) == pytest.approx(1.1408, abs=2e-4)


def test_plots_of_other_formulations(tmp_path):
    for name, sets in [("flying-spaghetti.json", ["stages.0.t_end=2"]), ("pure-stretching.json", ["stages.0.t_end=0.5"])]:
        out = tmp_path / name.replace(".json", "")
        cosserat.run(os.path.join(EX, name), overrides=sets + ["output.vtk=false"], output_dir=str(out))
        printed = plot(out, "--out", str(out / "png"))
        assert str(out / "png" / "series.png") in printed
        for p in printed:
            check_png(p)
