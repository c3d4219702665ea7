"""A joint drive's target set from an on_sample callback (Sample.set_drive, assemblies of the
mixed_discrete model). Reference: the target itself; a drive holds angle x time function x u, and
u set at one output time is reached at the next (a linear ramp in between), so the hinge's
measured angle at every output time equals the value the callback set at the one before."""

import json
import math

import numpy as np
import pytest

import cosserat

ARM = {
    "rods": [
        {"name": "base", "length": 0.2, "elements": 2, "material": {"E": 2e11, "G": 8e10, "rho": 7800},
         "sections": [{"shape": "circle", "radius": 0.04}]},
        {"name": "arm", "length": 1.0, "elements": 10, "material": {"E": 2e11, "G": 8e10, "rho": 7800},
         "sections": [{"shape": "circle", "radius": 0.02}], "reference": {"origin": [0.2, 0, 0]}},
    ],
    "joints": [{"type": "hinge", "name": "motor", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1],
                "drive": {"angle": 1.0}}],
    "boundary_conditions": [{"type": "clamp", "node": "base:start"}],
    "loads": [{"type": "gravity", "value": [0, -9.81, 0]}],
    "output": {"vtk": False},
    # the static stage turns the arm to the drive's angle (1 rad); the dynamic one follows u(t)
    "stages": [{"type": "static", "load_steps": 4},
               {"type": "dynamic", "t_end": 1.0, "output_dt": 0.02, "rtol": 1e-8, "atol": 1e-10}],
}


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def hinge_angle(sample):
    """The arm's rotation about z relative to the base's end (nodes 2 and 3), in (-pi, pi]."""
    qa, qb = sample.quaternions[2], sample.quaternions[3]
    rel = qmul(qa * np.array([1, -1, -1, -1]), qb)
    return 2 * math.atan2(rel[3], rel[0])


def target(t):
    return 1.0 + 0.5 * math.sin(2 * math.pi * t)


def test_drive_follows_the_callback(tmp_path):
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(ARM))
    rec = []

    def on_sample(s):
        rec.append((s.t, hinge_angle(s)))
        s.set_drive("motor", target(s.t + 0.02))  # reached at the next output time

    r = cosserat.run(str(path), on_sample=on_sample)
    assert r.converged
    t = np.array([x[0] for x in rec])
    angle = np.unwrap(np.array([x[1] for x in rec]))
    assert len(t) == 51 and abs(angle[0] - 1.0) < 1e-9  # the static stage's end
    err = np.abs(angle[1:] - np.array([target(x) for x in t[1:]]))
    print(f"drive input: {len(t)} samples, |angle - set value| at most {err.max():.3e} rad")
    assert err.max() < 1e-6
    # the arm moved with it (not held at 1 rad): the targets span 0.5 .. 1.5 rad
    assert angle.max() > 1.49 and angle.min() < 0.51


def test_set_drive_errors(tmp_path):
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(ARM))
    seen = []

    def bad_joint(s):
        with pytest.raises(cosserat.CosseratError, match="no joint named 'nope'"):
            s.set_drive("nope", 1.0)
        with pytest.raises(cosserat.CosseratError, match="finite value"):
            s.set_drive(0, float("nan"))
        seen.append(s.t)
        return True

    cosserat.run(str(path), on_sample=bad_joint)
    assert seen
