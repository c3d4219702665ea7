"""Contact in Python: Result.contact (per node the contact force, normal force, gap and
stick/slide state of the final state, with summary.json's totals), RunOutput.contact from the
files, and the series' contact columns by name. References: the cord's weight m g (the ground
carries it all at rest), and the CLI's own nodes.csv, series.csv and summary.json (a separate
process writing through output.c and run.c)."""

import json
import math
import os

import numpy as np

import cosserat
from conftest import SOURCE_DIR, run_cli

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "cable-on-ground.json")
# the example's cord: rho pi a^2 L g
WEIGHT = 1100 * math.pi * 0.005**2 * 2 * 9.81
# at 1.5 s the pull (1.14 N) exceeds mu_s m g (1.02 N): the whole cord slides
SETS = {"stages.1.t_end": 1.5, "output.vtk": False}
MU_K = 0.4


def test_contact_at_rest_carries_the_weight(tmp_path):
    """Static stage only: every node touches and sticks; the normal forces add up to m g."""
    gravity = [{"type": "gravity", "value": [0, 0, -9.81]}]
    r = cosserat.run(EXAMPLE, {"stages": [{"type": "static"}], "loads": gravity, "output.vtk": False}, check=True)
    c = r.contact
    assert isinstance(c, cosserat.Contact)
    n = r.node_count
    assert c.force.shape == (n, 3) and c.normal.shape == (n,) and c.gap.shape == (n,) and c.state.shape == (n,)
    assert c.active == n and c.sticking == n and c.sliding == 0
    assert abs(c.normal_force - WEIGHT) <= 1e-9 * WEIGHT
    assert np.allclose(c.total_force, [0, 0, WEIGHT], rtol=0, atol=1e-9 * WEIGHT)
    assert np.allclose(c.force[:, 2], c.normal, rtol=1e-12, atol=1e-15)  # a flat ground: normal = z
    assert c.tolerance > 0 and c.largest_penetration <= c.tolerance
    assert np.all(c.gap >= -c.tolerance)
    assert "41 of 41 nodes touching" in repr(c)


def test_contact_matches_the_cli_outputs(tmp_path):
    """Pulled past mu_s m g, the whole cord slides, each node with friction mu_k N against the
    motion; Result.contact and the series' contact columns equal what the CLI writes, and
    RunOutput.contact reads the same back from the files."""
    r = cosserat.run(EXAMPLE, SETS, output_dir=str(tmp_path / "py"), check=True)
    run_cli(EXAMPLE, tmp_path / "cli", *(f"{k}={json.dumps(v)}" for k, v in SETS.items()))
    out = cosserat.read_output(str(tmp_path / "cli"))
    c, f = r.contact, out.contact
    assert c.sliding == c.active == r.node_count and np.all(c.state == 2)
    assert np.allclose(c.force[:, 0], -MU_K * c.normal, rtol=1e-9, atol=0)  # sliding along +x
    assert abs(c.total_force[0] + MU_K * WEIGHT) <= 1e-6 * WEIGHT
    # per node: nodes.csv (10 significant digits)
    assert np.array_equal(f.state, c.state)
    assert np.allclose(f.force, c.force, rtol=1e-9, atol=1e-12 * WEIGHT)
    assert np.allclose(f.gap, c.gap, rtol=1e-9, atol=1e-15)
    assert f.normal is None
    # totals: summary.json's contact
    s = out.summary["contact"]
    assert (s["active"], s["sticking"], s["sliding"]) == (c.active, c.sticking, c.sliding)
    assert abs(s["normal_force"] - c.normal_force) <= 1e-12 * WEIGHT
    assert np.allclose(s["force"], c.total_force, rtol=1e-12, atol=1e-15)
    assert abs(s["largest_penetration"] - c.largest_penetration) <= 1e-15
    assert s["tolerance"] == c.tolerance == f.tolerance
    assert f.normal_force == s["normal_force"] and f.active == c.active and f.sliding == c.sliding
    # series: the contact columns by name, as series.csv has them
    for name in ("contact_active", "contact_sliding", "contact_normal_force", "contact_penetration"):
        assert name in r.series, name
        assert np.allclose(r.series[name], out.series[name], rtol=1e-9, atol=1e-15), name
    assert np.all(r.series["contact_active"] == r.node_count)
    assert r.series["contact_sliding"][0] == 0 and r.series["contact_sliding"][-1] == c.sliding
    # the ground carries the weight throughout (no lift-off, the pull is horizontal)
    assert np.allclose(r.series["contact_normal_force"], WEIGHT, rtol=1e-6)


def test_no_obstacles_no_contact():
    r = cosserat.run(os.path.join(SOURCE_DIR, "examples", "tendon-manipulator.json"), {"rod.elements": 10},
                     check=True)
    assert r.contact is None and "contact_active" not in r.series
