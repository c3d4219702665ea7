"""Numbers against the papers' values and the analytic solution."""

import numpy as np
import pytest

import cosserat
from conftest import HELIX, TENDON


def test_tendon_manipulator_paper_values():
    """Tapered tendon-driven manipulator at 1250 elements: strains at the first/last element."""
    r = cosserat.run(TENDON, {"rod.elements": 1250})
    assert r.converged
    gx, gy, kz = r.gamma[:, 0], r.gamma[:, 1], r.kappa[:, 2]
    assert gx[0] == pytest.approx(0.982, abs=5e-4)
    assert gx[-1] == pytest.approx(0.887, abs=5e-4)
    assert kz[0] == pytest.approx(7.3, abs=0.05)
    assert kz[-1] == pytest.approx(113.4, abs=0.05)
    assert gy[0] == pytest.approx(0.002, abs=5e-4)
    assert gy[-1] == pytest.approx(0.014, abs=5e-4)
    # the tendon bends the rod in its x-z plane only
    assert np.max(np.abs(r.positions[:, 1])) < 1e-12


def test_helix_tip_converges_second_order():
    """Two helical segments: the tip approaches the analytic (0, 10, 60) as O(n^-2)."""
    exact = np.array([0.0, 10.0, 60.0])
    errors = {}
    for n in (99, 300):
        r = cosserat.run(HELIX, {"rod.elements": n})
        assert r.converged
        errors[n] = float(np.linalg.norm(r.tip_position - exact))
    order = np.log(errors[99] / errors[300]) / np.log(300 / 99)
    print(f"helix tip error: n=99 {errors[99]:.4e}, n=300 {errors[300]:.4e}, observed order {order:.3f}")
    assert errors[99] < 0.5 and errors[300] < 0.05
    assert 1.8 <= order <= 2.2
