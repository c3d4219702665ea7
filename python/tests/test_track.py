"""Recorded points (output.track) in Python: Result.track and RunOutput.track give, per
point, t, positions and quaternions from the series columns; the last row is the final
state's node (Result.positions/quaternions, copied from the library independently)."""

import numpy as np

import cosserat

SCENARIO = {
    "name": "track",
    "rod": {
        "length": 1.0,
        "elements": 8,
        "material": {"E": 1e7, "G": 4e6, "rho": 1000},
        "sections": [{"shape": "circle", "radius": 0.01}],
    },
    "boundary_conditions": [{"type": "clamp", "node": "start"}],
    "loads": [{"type": "force", "node": "end", "value": [0, 0.02, -0.04]}],
    "stages": [{"type": "dynamic", "t_end": 0.02, "output_dt": 0.005}],
    "output": {"vtk": False, "track": [{"name": "mid", "node": 4}, {"name": "end", "s": 1.0}]},
}


def test_result_track(tmp_path):
    r = cosserat.run(SCENARIO, output_dir=str(tmp_path), check=True)
    assert list(r.track) == ["mid", "end"]
    for name, node in (("mid", 4), ("end", 8)):
        p = r.track[name]
        assert isinstance(p, cosserat.Track)
        assert p.position.shape == (len(r.series["t"]), 3) and p.quaternion.shape == (len(r.series["t"]), 4)
        assert np.array_equal(p.t, r.series["t"])
        assert np.array_equal(p.position[:, 1], r.series[f"{name}_y"])
        assert abs(p.t[-1] - 0.02) < 1e-12
        assert np.allclose(p.position[-1], r.positions[node], rtol=0, atol=1e-12)
        assert np.allclose(p.quaternion[-1], r.quaternions[node], rtol=0, atol=1e-12)
        assert np.allclose(np.linalg.norm(p.quaternion, axis=1), 1, atol=1e-12)
    # the same from the files (10 significant digits in series.csv)
    out = cosserat.read_output(str(tmp_path))
    assert list(out.track) == ["mid", "end"]
    assert np.allclose(out.track["end"].position, r.track["end"].position, rtol=1e-9, atol=1e-15)
    assert out.summary["track"]["end"]["node"] == 8
    assert out.summary["stages"][0]["track"]["mid"]["position"] == r.positions[4].tolist()


def test_default_track_is_tip():
    r = cosserat.run({**SCENARIO, "output": {"vtk": False}}, check=True)
    assert list(r.track) == ["tip"]
    assert np.allclose(r.track["tip"].position[-1], r.tip_position, rtol=0, atol=1e-12)
    # bodies' columns (no quaternion) are not points; static runs have none
    assert cosserat.output.tracks({"t": np.zeros(2), "b_x": np.zeros(2), "b_y": np.zeros(2), "b_z": np.zeros(2)}) == {}
    static = {**SCENARIO, "stages": [{"type": "static", "load_steps": 2}]}
    assert cosserat.run(static, check=True).track == {}
