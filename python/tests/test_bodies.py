"""Rigid bodies through the Python package: Result.bodies and RunOutput.bodies.

References: the CLI run of the same scenario (its summary.json), the static equilibrium of the
parallel robot (support reactions + platform loads + legs' weight = 0, computed here from the
scenario's data and Result's reactions), and the rigid weld of a body to its node (the body's
centre and axes keep their reference pose relative to the node's frame)."""

import json
import math
import os

import numpy as np

import cosserat
from conftest import SOURCE_DIR, run_cli

ROBOT = os.path.join(SOURCE_DIR, "examples", "parallel-robot.json")

# A cantilever along I_x clamped at its start, a body welded to its end with its centre off the
# node (offset along all three axes) and turned axes; gravity and a transverse tip force bend and
# twist the rod statically, then a short dynamic stage (the force released) lets it swing.
WELDED = {
    "name": "welded-body",
    "rod": {
        "length": 0.5,
        "elements": 12,
        "material": {"E": 2e9, "G": 0.8e9, "rho": 1200},
        "sections": [{"shape": "circle", "radius": 0.004}],
    },
    "boundary_conditions": [{"type": "clamp", "node": "start"}],
    "rigid_bodies": [
        {"name": "bob", "node": "end", "mass": 0.03, "center": [0.52, 0.015, -0.01],
         "inertia": [2e-6, 3e-6, 4e-6], "orientation": [0.9, 0.1, -0.3, 0.2]}
    ],
    "loads": [
        {"type": "gravity", "value": [0, 0, -9.81]},
        {"type": "force", "node": "end", "value": [0, 0.3, 0.1], "stages": [0]},
    ],
    "stages": [
        {"type": "static", "load_steps": 4},
        {"type": "dynamic", "t_end": 0.01, "output_dt": 0.001, "rtol": 1e-6, "atol": 1e-9},
    ],
    "output": {"track": [{"name": "end", "node": "end"}]},
}


def test_platform_matches_summary_and_cli(tmp_path):
    r = cosserat.run(ROBOT, output_dir=str(tmp_path / "py"))
    assert r.converged
    p = r.bodies["platform"]
    assert set(r.bodies) == {"platform"} and p.history is None
    assert p.mass == 0.05
    # the platform sank and moved: far from its reference centre (0, 0, 0.4) compared to round-off
    assert np.linalg.norm(p.center - [0, 0, 0.4]) > 1e-3
    assert np.allclose(p.rotation, cosserat.quat_to_matrix(p.quaternion), rtol=0, atol=1e-15)
    assert np.allclose(p.rotation.T @ p.rotation, np.eye(3), rtol=0, atol=1e-14)
    for d in (tmp_path / "py", tmp_path / "cli"):
        if d.name == "cli":
            run_cli(ROBOT, d)
        (b,) = json.load(open(d / "summary.json"))["bodies"]
        assert b["name"] == "platform"
        assert np.allclose(p.center, b["center"], rtol=0, atol=1e-15)
        assert np.allclose(p.quaternion, b["quaternion"], rtol=0, atol=1e-15)
        out = cosserat.read_output(str(d)).bodies["platform"]
        assert np.array_equal(out.center, b["center"]) and out.mass == 0.05
        assert np.allclose(out.rotation, p.rotation, rtol=0, atol=1e-14)


def test_platform_equilibrium():
    """Support reactions + the platform's force and weight + the legs' weight = 0."""
    sc = cosserat.load(ROBOT)
    r = cosserat.run(sc)
    g = np.array(next(l["value"] for l in sc["loads"] if l["type"] == "gravity"))
    force = np.array(next(l["value"] for l in sc["loads"] if l["type"] == "force"))
    legs = 0.0
    for rod in sc["rods"]:
        a = math.pi * rod["sections"][0]["radius"] ** 2
        legs += rod["material"]["rho"] * a * rod["length"]
    reactions = sum(x.force for x in r.reactions)
    assert len(r.reactions) == 3
    total = reactions + force + r.bodies["platform"].mass * g + legs * g
    scale = np.linalg.norm(force) + np.linalg.norm((0.05 + legs) * g)
    assert np.linalg.norm(total) < 1e-9 * scale, total
    # and the reactions carry the platform's load: without it the sum would miss ~0.49 N
    assert np.linalg.norm(reactions + force + legs * g) > 0.1
    # moments about the origin: the platform's centre (Result.bodies) carries its force and
    # weight; each leg's weight is taken at its elements' chord midpoints, which leaves the
    # discretization error of the legs' own weight's moment (1.7e-7 N m of 0.19 N m here)
    moment = np.array(next(l["value"] for l in sc["loads"] if l["type"] == "moment"))
    c = r.bodies["platform"].center
    total = moment + np.cross(c, force + r.bodies["platform"].mass * g)
    for x in r.reactions:
        total += np.cross(r.positions[x.node], x.force) + r.frames[x.node] @ x.moment_body
    for k, rod in enumerate(r.rods.values()):
        w = sc["rods"][k]["material"]["rho"] * math.pi * sc["rods"][k]["sections"][0]["radius"] ** 2
        mid = 0.5 * (rod.positions[1:] + rod.positions[:-1])
        total += np.cross(mid, w * np.diff(rod.s)[:, None] * g).sum(axis=0)
    scale = np.linalg.norm(np.cross(c, force))
    assert np.linalg.norm(total) < 1e-5 * scale, total


def _weld_frame(r, body, node):
    """The body's centre and axes in the node's frame."""
    A = cosserat.quat_to_matrix(r.quaternions[node])
    return A.T @ (body.center - r.positions[node]), A.T @ body.rotation


def test_welded_body_keeps_its_offset_from_its_node(tmp_path):
    sc = json.loads(json.dumps(WELDED))
    sc["stages"] = sc["stages"][:1]
    sc["loads"] = []
    ref = cosserat.run(sc, output_dir=str(tmp_path / "ref"))  # unloaded: the reference configuration
    # a static one-rod folder does not name its bodies: keyed by index, pose of the last bodies_NNNN.vtp
    (k, out0), = cosserat.read_output(str(tmp_path / "ref")).bodies.items()
    assert k == 0 and out0.mass == 0.03 and out0.history is None
    assert np.allclose(out0.center, ref.bodies["bob"].center, rtol=0, atol=1e-15)
    r = cosserat.run(WELDED, output_dir=str(tmp_path / "w"))
    assert ref.converged and r.converged
    end = r.node_count - 1
    b0, b = ref.bodies["bob"], r.bodies["bob"]
    q0 = np.array(WELDED["rigid_bodies"][0]["orientation"])
    assert np.allclose(b0.center, WELDED["rigid_bodies"][0]["center"], rtol=0, atol=1e-15)
    assert np.allclose(b0.quaternion, q0 / np.linalg.norm(q0), rtol=0, atol=1e-15)
    assert b.mass == 0.03
    # the rod bent and twisted: the end node moved and turned
    assert np.linalg.norm(r.positions[end] - ref.positions[end]) > 0.01
    assert abs(r.quaternions[end][0] - ref.quaternions[end][0]) > 1e-3
    c0, R0 = _weld_frame(ref, b0, end)
    c, R = _weld_frame(r, b, end)
    assert np.allclose(c, c0, rtol=0, atol=1e-12) and np.allclose(R, R0, rtol=0, atol=1e-12)
    # over the dynamic stage: the series' body columns follow the tracked node
    h = b.history
    assert h is not None and len(h.t) == len(r.track["end"].t) >= 10
    tr = r.track["end"]
    A = cosserat.quat_to_matrix(tr.quaternion)
    offset = np.einsum("kji,kj->ki", A, h.center - tr.position)
    assert np.allclose(offset, c0, rtol=0, atol=1e-12)
    assert np.ptp(h.center[:, 2]) > 1e-5  # it swings
    assert np.allclose(h.center[-1], b.center, rtol=0, atol=1e-15)
    # the output folder's bodies: series.csv (10 significant digits), summary.json, bodies_NNNN.vtp
    out = cosserat.read_output(str(tmp_path / "w")).bodies["bob"]
    assert out.mass == 0.03 and np.allclose(out.center, b.center, rtol=0, atol=1e-15)
    assert np.allclose(out.history.center, h.center, rtol=1e-9, atol=1e-12)
    assert np.allclose(out.history.yaw, h.yaw, rtol=1e-9, atol=1e-9)
    # yaw, pitch, roll (Z-Y-X, degrees) of the final rotation
    Rf = b.rotation
    assert math.isclose(h.yaw[-1] % 360, math.degrees(math.atan2(Rf[1, 0], Rf[0, 0])) % 360, abs_tol=1e-6)
    assert math.isclose(h.pitch[-1], math.degrees(math.asin(-Rf[2, 0])), abs_tol=1e-6)
    assert math.isclose(h.roll[-1], math.degrees(math.atan2(Rf[2, 1], Rf[2, 2])), abs_tol=1e-6)


def test_no_bodies():
    r = cosserat.run(os.path.join(SOURCE_DIR, "examples", "catenary.json"))
    assert r.bodies == {}
