"""Bad input raises CosseratError naming the JSON path; solver failures return a Result."""

import copy
import json
import math
import os

import pytest

import cosserat
from conftest import HELIX, TENDON, run_cli


@pytest.fixture
def tendon():
    return cosserat.load(TENDON)


def raises_naming(path, *args, **kwargs):
    with pytest.raises(cosserat.CosseratError) as info:
        cosserat.run(*args, **kwargs)
    e = info.value
    assert path in str(e), f"message {str(e)!r} does not name {path!r}"
    assert e.message == str(e)
    return e


def test_unknown_key_in_dict(tendon):
    tendon["rod"]["colour"] = 3
    e = raises_naming("rod.colour", tendon)
    assert e.status == cosserat.Status.BAD_INPUT


def test_unknown_key_in_overrides():
    e = raises_naming("rod.elemnts", TENDON, {"rod.elemnts": 5})
    assert e.status == cosserat.Status.BAD_INPUT


def test_nonpositive_modulus_in_dict(tendon):
    tendon["rod"]["material"]["E"] = 0.0
    raises_naming("rod.material.E", tendon)


def test_nonpositive_modulus_in_overrides():
    e = raises_naming("rod.material.E", TENDON, {"rod.material.E": -1})
    assert "-1" in str(e)
    raises_naming("rod.material.G", HELIX, {"rod.material.G": 0})


def test_other_bad_values():
    raises_naming("rod.elements", TENDON, {"rod.elements": 0})
    raises_naming("rod.elements", TENDON, {"rod.elements": "ten"})
    raises_naming("loads.0.frame", HELIX, {"loads.0.frame": "sideways"})
    raises_naming("stages.0.load_steps", HELIX, ["stages.0.load_steps=0"])


def test_nonfinite_values_name_their_path(tendon):
    bad = copy.deepcopy(tendon)
    bad["loads"][0]["tension"] = math.inf
    raises_naming("loads.0.tension", bad)
    raises_naming("loads.0.value.2", HELIX, {"loads.0.value": [0.3, 0.0, float("nan")]})
    raises_naming("loads.0.tension", TENDON, ["loads.0.tension=1e999"])  # overflow, found by the library


def test_file_errors(tmp_path):
    bad = tmp_path / "syntax.json"
    bad.write_text('{"rod": {"length": 1, "elements": 4,, }}')
    raises_naming("syntax.json", str(bad))
    e = raises_naming("nonexistent.json", str(tmp_path / "nonexistent.json"))
    assert e.status == cosserat.Status.IO
    with pytest.raises(TypeError):
        cosserat.run(42)


def test_json_text_and_numpy_values(tendon):
    import numpy as np

    text = json.dumps(tendon)
    a = cosserat.run(text, {"rod.elements": np.int64(20), "stages.0.load_steps": 2})
    tendon["rod"]["elements"] = 20
    tendon["stages"][0]["load_steps"] = 2
    tendon["rod"]["reference"]["origin"] = np.zeros(3)
    b = cosserat.run(tendon)
    assert a.converged and b.converged
    assert np.array_equal(a.positions, b.positions)


def failing(**kw):
    return cosserat.run(
        HELIX, {"stages.0.load_steps": 1, "stages.0.max_iterations": 2, "stages.0.max_halvings": 1}, **kw
    )


def test_solver_failure_returns_last_converged_state(tmp_path):
    r = failing()
    assert not r.converged
    assert r.status == cosserat.Status.NOT_CONVERGED
    assert "load step" in r.message
    assert r.load_factor < 1
    # the CLI writes the same last converged state (exit code 2)
    run_cli(HELIX, tmp_path, "stages.0.load_steps=1", "stages.0.max_iterations=2", "stages.0.max_halvings=1", expect=2)
    with open(os.path.join(tmp_path, "summary.json")) as f:
        summary = json.load(f)
    assert summary["converged"] is False
    assert r.message == summary["message"]
    assert str(r.status) == summary["status"] == "not converged"
    assert r.tip_position.tolist() == pytest.approx(summary["tip"]["position"], rel=1e-12, abs=1e-12)


def test_solver_failure_raises_with_check():
    with pytest.raises(cosserat.CosseratError) as info:
        failing(check=True)
    e = info.value
    assert e.status == cosserat.Status.NOT_CONVERGED and "load step" in str(e)
    assert e.result is not None and not e.result.converged


def test_unwritable_output_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(cosserat.CosseratError) as info:
        cosserat.run(HELIX, {"rod.elements": 5}, output_dir=str(blocker / "sub"))
    assert str(blocker) in str(info.value)
