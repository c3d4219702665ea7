"""Actuator inputs and the on_sample hook (a controller in the loop), in every formulation.

References: a load's input factor u equals the same load with u × its value (bit for bit); the
energy balance E(t) − W(t) stays constant across input changes (the work of the loads follows
the inputs); the closed loop of examples/pd_tendon.py ends at rest in the static equilibrium of
its final tension; Sample arrays equal the series columns written at the same time.
"""

import copy
import importlib.util
import os
import warnings

import numpy as np
import pytest

import cosserat
from conftest import SOURCE_DIR

RESULTANTS = {"shape": "resultants", "EA": 1e4, "GA_y": 1e4, "GA_z": 1e4, "GJ": 1, "EI_y": 1, "EI_z": 1,
              "rhoA": 1, "rhoI_y": 1e-3, "rhoI_z": 1e-3}


def cantilever(model, stages):
    """A clamped 1 m cantilever (first bending frequency 3.5 rad/s) with two tip forces:
    loads.0 in stage 0 only, loads.1 in stage 1 only (or in every stage of a one-stage run)."""
    sc = {
        "model": model,
        "rod": {"length": 1, "elements": 10, "sections": [RESULTANTS]},
        "boundary_conditions": [{"type": "clamp", "node": "start"}],
        "loads": [
            {"type": "force", "node": "end", "value": [0, 0.1, 0], "stages": [0]},
            {"type": "force", "node": "end", "value": [0, 0.1, 0.05], "stages": [1]},
        ],
        "stages": stages,
        "output": {"vtk": False},
    }
    if len(stages) == 1:
        del sc["loads"][1]["stages"]
    return sc


DYNAMIC = {
    "mixed_discrete": {"type": "dynamic", "t_end": 1.0, "output_dt": 0.01},
    "port_hamiltonian": {"type": "dynamic", "t_end": 1.0, "output_dt": 0.01, "time_step": 1e-3},
    "lgvi": {"type": "dynamic", "t_end": 0.2, "output_dt": 0.01, "time_step": 2e-5},
}


def half_load_pair(model):
    """(scenario with loads.1 at its value, the same with loads.1 at half its value)."""
    dyn = DYNAMIC[model]
    stages = [dyn] if model == "lgvi" else [{"type": "static"}, dyn]
    sc = cantilever(model, stages)
    if model == "lgvi":  # no static stages: one dynamic stage with loads.1 in it
        sc["loads"] = sc["loads"][1:]
    half = copy.deepcopy(sc)
    half["loads"][-1]["value"] = [0.5 * v for v in half["loads"][-1]["value"]]
    return sc, half


@pytest.mark.parametrize("model", ["mixed_discrete", "port_hamiltonian", "lgvi"])
def test_input_half_equals_half_the_load(model):
    sc, half = half_load_pair(model)
    k = len(sc["loads"]) - 1
    # the reference with a do-nothing hook: the mixed rod then steps output interval by interval too
    ref = cosserat.run(half, on_sample=lambda s: None)
    a = cosserat.run(sc, inputs={k: 0.5})
    b = cosserat.run(sc, on_sample=lambda s: s.set_input(f"loads.{k}", 0.5))
    for r in (a, b):
        assert r.converged
        assert list(r.inputs) == [1.0] * k + [0.5]
        for col in ("tip_x", "tip_y", "tip_z", "energy_total", "work_external"):
            np.testing.assert_array_equal(r.series[col], ref.series[col], err_msg=col)
        np.testing.assert_array_equal(r.positions, ref.positions)
    # and the input did something: the full load moves the tip elsewhere
    full = cosserat.run(sc)
    assert np.abs(full.series["tip_y"] - ref.series["tip_y"]).max() > 1e-3


@pytest.mark.parametrize("model", ["mixed_discrete", "port_hamiltonian", "lgvi"])
def test_work_follows_input_changes(model):
    """Undamped: E_total − work_external is constant, with the input jumping every 0.1 s."""
    sc, _ = half_load_pair(model)
    sc["stages"] = [dict(DYNAMIC[model], t_end=0.5)]
    sc["loads"] = [{k: v for k, v in sc["loads"][-1].items() if k != "stages"}]
    if model == "mixed_discrete":
        sc["stages"][0].update(rtol=1e-8, atol=1e-11)
    rng = np.random.default_rng(7)
    changes = []

    def jump(s):
        if round(s.t / 0.01) % 10 == 0:
            u = float(rng.uniform(-1.0, 2.0))
            s.set_input(0, u)
            changes.append(u)

    r = cosserat.run(sc, on_sample=jump)
    assert r.converged and len(changes) >= 5
    S = r.series
    scale = np.ptp(S["energy_total"])
    drift = np.ptp(S["energy_total"] - S["work_external"])
    # port-Hamiltonian: exact discrete energy balance; mixed: trapezoidal work and Radau at
    # rtol 1e-8; lgvi: the explicit scheme's bounded energy error (the same without inputs)
    tol = {"port_hamiltonian": 1e-10, "mixed_discrete": 1e-4, "lgvi": 1e-3}[model]
    assert drift < tol * scale, (drift, scale)
    assert r.inputs[0] == changes[-1]


def test_sample_contents_match_series_and_snapshots(tmp_path):
    sc = cantilever("mixed_discrete", [{"type": "static"}, DYNAMIC["mixed_discrete"]])
    seen = []

    def look(s):
        seen.append(s)
        assert s.positions.shape == (11, 3) and s.quaternions.shape == (11, 4)
        assert s.velocities.shape == (11, 3) and s.angular_velocities.shape == (11, 3)
        assert s.gamma.shape == s.kappa.shape == s.n.shape == s.m.shape == (10, 3)

    r = cosserat.run(sc, output_dir=str(tmp_path), on_sample=look, keep_snapshots=True)
    S = r.series
    assert len(seen) == len(S["t"]) == len(r.snapshots.t) == 101
    np.testing.assert_array_equal([s.t for s in seen], S["t"])
    np.testing.assert_array_equal(r.snapshots.t, S["t"])
    tips = np.array([s.tip_position for s in seen])
    np.testing.assert_array_equal(tips, np.column_stack([S["tip_x"], S["tip_y"], S["tip_z"]]))
    np.testing.assert_array_equal(r.snapshots.positions[:, -1, :], tips)
    np.testing.assert_array_equal(r.snapshots.quaternions[:, -1, :],
                                  np.column_stack([S[f"tip_p{j}"] for j in range(4)]))
    # the energies of the sample are those of the series row
    np.testing.assert_array_equal([s.energy["kinetic"] for s in seen], S["energy_kinetic"])
    # tip velocity: the derivative of the tip position (central differences, O(dt²))
    dt = S["t"][1] - S["t"][0]
    vz = np.array([s.tip_velocity[2] for s in seen])
    fd = (S["tip_z"][2:] - S["tip_z"][:-2]) / (2 * dt)
    assert np.abs(vz[1:-1] - fd).max() < 0.01 * np.abs(vz).max()
    # the last snapshot is the returned state and nodes.csv
    out = cosserat.read_output(str(tmp_path))
    nodes = np.column_stack([out.nodes[c] for c in "xyz"])
    np.testing.assert_allclose(r.snapshots.positions[-1], nodes, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(r.snapshots.positions[-1], r.positions)
    # (the returned quaternions are renormalized after the last step: round-off apart)
    np.testing.assert_allclose(r.snapshots.quaternions[-1], r.quaternions, rtol=0, atol=1e-15)
    # the sample is not live after its call
    with pytest.raises(cosserat.CosseratError, match="no longer live"):
        seen[0].set_input(0, 1.0)


def test_keep_snapshots_alone_does_not_change_the_run():
    sc = cantilever("mixed_discrete", [{"type": "static"}, DYNAMIC["mixed_discrete"]])
    a = cosserat.run(sc)
    b = cosserat.run(sc, keep_snapshots=True)
    assert a.snapshots is None
    for col in a.series:
        np.testing.assert_array_equal(a.series[col], b.series[col], err_msg=col)


@pytest.mark.parametrize("model", ["mixed_discrete", "port_hamiltonian", "lgvi"])
@pytest.mark.parametrize("how", ["return", "raise"])
def test_stop_at_an_output_time(model, how):
    sc, _ = half_load_pair(model)

    def stop(s):
        if s.t >= 0.1 - 1e-12:
            if how == "raise":
                raise cosserat.StopRun()
            return True

    r = cosserat.run(sc, on_sample=stop)
    assert r.status == cosserat.Status.INTERRUPTED and not r.converged
    assert r.series["t"][-1] == pytest.approx(0.1, abs=1e-12)
    t0 = r.series["t"][0]
    assert len(r.series["t"]) == round((0.1 - t0) / 0.01) + 1


def test_errors_in_the_callback_and_in_inputs():
    sc = cantilever("mixed_discrete", [{"type": "static"}, DYNAMIC["mixed_discrete"]])

    def boom(s):
        raise ValueError("controller failed")

    with pytest.raises(ValueError, match="controller failed"):
        cosserat.run(sc, on_sample=boom)
    with pytest.raises(cosserat.CosseratError, match='load "force": 2 loads have this type'):
        cosserat.run(sc, inputs={"force": 0.5})
    with pytest.raises(cosserat.CosseratError, match='load "tendon": no load of this type'):
        cosserat.run(sc, inputs={"tendon": 0.5})
    with pytest.raises(cosserat.CosseratError, match="out of range"):
        cosserat.run(sc, on_sample=lambda s: s.set_input(2, 1.0))
    with pytest.raises(cosserat.CosseratError, match="must be finite"):
        cosserat.run(sc, on_sample=lambda s: s.set_input(-1, float("nan")))


def _example():
    path = os.path.join(SOURCE_DIR, "examples", "pd_tendon.py")
    spec = importlib.util.spec_from_file_location("pd_tendon", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pd_controller_settles_the_tip_at_the_target(tmp_path):
    """examples/pd_tendon.py: the PD loop brings the drooping tip (z = −21 mm) to z* = 0 and holds
    it; the open loop (nominal 1 N, or the feedforward tension alone) does not settle there.

    Tolerance: 0.1 mm on [1, 1.5] s, 0.5 % of the initial error of 21 mm. The closed loop's slowest
    pole decays about as exp(−ζω₁t) with ζ ≈ 0.5 of the D term, so after 1 s the transient is far
    below that (3e-6 m here); what remains is the feedforward's static error (< 1e-12 m by the
    secant iteration) and the integration error (rtol 1e-3 of the motion).
    """
    ex = _example()
    closed, pd = ex.run_closed_loop()
    t, z = closed.series["t"], closed.series["tip_z"]
    late = t >= 1.0
    assert closed.converged and t[-1] == pytest.approx(1.5)
    assert z[0] == pytest.approx(-0.021, abs=1e-3)  # the droop under gravity at the start
    assert np.abs(z[late] - ex.Z_TARGET).max() < 1e-4
    # the end state is the static equilibrium with the final tension: the input multiplied the
    # tendon's tension in the dynamics exactly as a tension of u newtons does in statics
    assert abs(ex.static_tip_z(closed.inputs[1]) - z[-1]) < 1e-5
    # without the controller the tip does not settle at z*
    nominal = ex.run_open_loop(1.0)
    assert abs(nominal.series["tip_z"][-1] - ex.Z_TARGET) > 0.01
    assert np.abs(nominal.series["tip_z"][late] - ex.Z_TARGET).max() > 0.02
    ff_only = ex.run_open_loop(pd.u_ff)  # the right tension, without feedback: still swinging
    assert np.abs(ff_only.series["tip_z"][late] - ex.Z_TARGET).max() > 5e-3
    # the example's script writes its figure
    closed2, _ = ex.main(str(tmp_path))
    assert os.path.getsize(tmp_path / "pd_tendon.png") > 10_000
    np.testing.assert_array_equal(closed2.series["tip_z"], z)


def test_plot_animate_and_html(tmp_path):
    import matplotlib.image

    sc = cantilever("mixed_discrete", [{"type": "static"}, dict(DYNAMIC["mixed_discrete"], output_dt=0.05)])
    r = cosserat.run(sc, keep_snapshots=True)
    fig = r.plot(tmp_path / "dyn.png", times=5)
    assert fig is not None and os.path.getsize(tmp_path / "dyn.png") > 10_000
    img = matplotlib.image.imread(tmp_path / "dyn.png")
    assert img.shape[0] > 200 and float(np.std(img[..., :3])) > 0
    static = cosserat.run(cantilever("mixed_discrete", [{"type": "static"}]))
    assert static.snapshots is None
    static.plot(tmp_path / "static.png")
    assert os.path.getsize(tmp_path / "static.png") > 10_000
    r.plot(tmp_path / "chosen.png", times=[0.0, 0.5, 1.0], equal=False)
    r.plot(tmp_path / "plane.png", plane="xy")
    assert os.path.getsize(tmp_path / "plane.png") > 10_000
    with pytest.raises(ValueError, match="plane"):
        r.plot(plane="xx")
    # animations: a gif (ffmpeg or Pillow), an mp4 or its HTML stand-in, and HTML for a notebook
    gif = r.animate(tmp_path / "rod.gif", max_frames=10)
    assert os.path.getsize(gif) > 1000
    with open(gif, "rb") as f:
        assert f.read(3) == b"GIF"
    # an mp4 with ffmpeg, else a gif of the same name and a warning naming it
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        mp4 = r.animate(tmp_path / "movie.mp4", max_frames=10)
    assert os.path.exists(mp4) and mp4 in (str(tmp_path / "movie.mp4"), str(tmp_path / "movie.gif"))
    assert mp4.endswith(".mp4") or any(str(w.message).find(mp4) >= 0 for w in said), [str(w.message) for w in said]
    flat = r.animate(tmp_path / "flat.gif", max_frames=5, plane="yz")
    assert os.path.getsize(flat) > 1000
    page = r.animate(max_frames=5)
    assert "<script" in str(page) and page._repr_html_() == str(page)
    with pytest.raises(ValueError, match="keep_snapshots"):
        static.animate()
    table = r._repr_html_()
    for word in ("mixed_discrete", "nodes", "stages", "converged", "tip position", "wall time", "snapshots"):
        assert word in table, word
