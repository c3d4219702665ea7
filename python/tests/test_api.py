"""API details: quaternions against the written directors, callbacks, ownership of the arrays."""

import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import cosserat
from conftest import HELIX, SOURCE_DIR, TENDON
from cosserat.output import read_pvd


def test_frames_match_vtp_directors(helix_cli):
    """quat_to_matrix columns equal the directors d1, d2, d3 the library writes into the .vtp files."""
    snaps = read_pvd(str(helix_cli / "rod.pvd"))
    r = cosserat.run(HELIX, {"rod.elements": 99})
    final = snaps[-1]
    assert final.time == pytest.approx(1.0)
    np.testing.assert_allclose(final.points, r.positions, rtol=0, atol=1e-9 * np.abs(r.positions).max())
    A = r.frames
    for k, name in enumerate(["d1", "d2", "d3"]):
        np.testing.assert_allclose(A[:, :, k], final.point_data[name], atol=1e-9)
    assert np.allclose(np.einsum("nij,nik->njk", A, A), np.eye(3), atol=1e-12)
    # the reference frame of the tendon example: e_x = I_z, e_y = I_x
    t = cosserat.run(TENDON, {"rod.elements": 4, "loads.0.tension": 0.0, "stages.0.load_steps": 1})
    A0 = t.frames[0]
    np.testing.assert_allclose(A0[:, 0], [0, 0, 1], atol=1e-12)  # e_x, the tangent
    np.testing.assert_allclose(A0[:, 1], [1, 0, 0], atol=1e-12)  # e_y
    np.testing.assert_allclose(A0[:, 2], [0, 1, 0], atol=1e-12)  # e_z = e_x × e_y


def test_snapshots_follow_the_load_steps(helix_cli):
    snaps = read_pvd(str(helix_cli / "rod.pvd"))
    assert [s.time for s in snaps] == pytest.approx(np.linspace(0.1, 1.0, 10))
    assert all(s.points.shape == (100, 3) for s in snaps)
    assert snaps[-1].point_data["gamma"].shape == (100, 3)  # interpolated to the nodes of the polyline


def test_on_step_callback():
    steps = []
    r = cosserat.run(HELIX, {"rod.elements": 30}, on_step=steps.append)
    assert r.converged and len(steps) == r.load_steps == 10
    assert [s.index for s in steps] == list(range(10))
    assert [s.load_factor for s in steps] == pytest.approx(r.load_factors)
    assert [s.iterations for s in steps] == r.newton_iterations
    np.testing.assert_array_equal(steps[-1].positions, r.positions)
    np.testing.assert_array_equal(steps[3].residual_history, r.residual_history[3])


def test_on_step_can_stop_and_raise():
    r = cosserat.run(HELIX, {"rod.elements": 30}, on_step=lambda s: s.index == 2)
    assert not r.converged and r.status == cosserat.Status.INTERRUPTED
    assert r.load_steps == 3 and r.load_factor == pytest.approx(0.3)

    def boom(step):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        cosserat.run(HELIX, {"rod.elements": 30}, on_step=boom)


def test_result_owns_its_arrays():
    rs = [cosserat.run(HELIX, {"rod.elements": 20 + k, "stages.0.load_steps": 2}) for k in range(3)]
    gc.collect()
    for k, r in enumerate(rs):
        assert r.positions.shape == (21 + k, 3)
        for name in ("s", "positions", "quaternions", "element_s", "gamma", "kappa", "n", "m"):
            assert getattr(r, name).flags.owndata, name
        assert np.all(np.isfinite(r.positions)) and np.all(np.isfinite(r.gamma))
        r.positions[:] = 0  # writable, no C memory behind it
    assert "converged" in repr(rs[0])


def test_overrides_apply_in_order_and_as_strings():
    a = cosserat.run(HELIX, ["rod.elements=12", "rod.elements=14", "stages.0.load_steps=2"])
    assert a.element_count == 14
    b = cosserat.run(HELIX, {"rod.elements": 14, "stages.0.load_steps": 2, "name": "run2"})
    np.testing.assert_array_equal(a.positions, b.positions)


def test_library_version():
    assert cosserat.library_version().count(".") == 2


def test_library_lookup_order(monkeypatch):
    from cosserat import _lib

    monkeypatch.setenv("COSSERAT_LIBRARY", "/somewhere/libcosserat.so")
    cands = _lib.library_candidates()
    assert cands[0] == "/somewhere/libcosserat.so"
    here = os.path.dirname(cosserat.__file__)
    repo_build = os.path.normpath(os.path.join(here, "..", "..", "build", "libcosserat.so"))
    # the explicit choice, then a library shipped next to the package, then the repository's build
    assert cands[1] == os.path.join(here, "libcosserat.so")
    assert cands[2] == repo_build


def test_import_works_without_the_library(tmp_path):
    """The library is loaded lazily; a bad COSSERAT_LIBRARY is reported when it is needed."""
    code = (
        "import cosserat, cosserat.plot\n"
        "try:\n"
        "    cosserat.run({})\n"
        "except cosserat.CosseratError as e:\n"
        "    print('ERR', e)\n"
    )
    env = dict(os.environ, COSSERAT_LIBRARY=str(tmp_path / "missing.so"), PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ERR COSSERAT_LIBRARY=") and "missing.so" in p.stdout


def test_warnings_reach_python():
    """A radius typed in millimetres on a metre-scale rod (10 for 0.01 on the 0.2 m tendon rod) gives a
    thick-rod warning in Result.warnings, naming the key; a clean run has none. The paper's two helical
    segments end on an equilibrium unstable by flutter (a follower end moment): unstable_equilibrium."""
    clean = cosserat.run(TENDON, {"rod.elements": 8})
    assert clean.warnings == []
    helix = cosserat.run(HELIX, {"rod.elements": 9})
    assert [(w.code, w.key) for w in helix.warnings] == [("unstable_equilibrium", "stages.0")], helix.warnings
    assert "flutter" in helix.warnings[0].message
    thick = cosserat.run(TENDON, {"rod.elements": 8, "rod.sections.0.radius": [10.0, 10.0], "loads.0.tension": 0.0,
                                  "stages.0.load_steps": 1})
    codes = {w.code: w for w in thick.warnings}
    assert "slender_thick" in codes, thick.warnings
    w = codes["slender_thick"]
    assert isinstance(w, cosserat.RunWarning)
    assert w.key.startswith("rod.sections.0") and w.message.startswith(w.key)
