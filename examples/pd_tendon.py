"""A controller in the loop: a PD law on the tip height sets the tension of a tendon.

A soft silicone arm (L = 0.1 m, radius 5 mm, E = 1 MPa, ρ = 1100 kg/m³, light Kelvin–Voigt
damping τ = 1.5 ms) is clamped horizontally and droops 21 mm under gravity (static stage 0). A
tendon along its top (offset 4 mm) pulls it up in the dynamic stage 1; its tension is the
scenario's 1 N times the actuator input u that the controller sets at every output time
(every 5 ms, held in between):

    u = max(0, u_ff + Kp (z* − z_tip) − Kd ż_tip)

with the target z* = 0 (tip level with the clamp). The feedforward u_ff is the tension that
holds the tip at z* in statics (secant iteration on static runs of the same rod), so the PD
terms only have to remove the transient; Kp and Kd follow from the static gain g = dz/dT
(loop gain Kp g = 2) and the first bending frequency ω₁ ≈ 26.5 rad/s (added damping ratio
about 0.5: Kd = 2·0.5 / (g ω₁)). The tendon only pulls: u ≥ 0.

Run from the repository root (prints the numbers, writes out/pd-tendon/pd_tendon.png: tip
height and tension against time, with and without the controller, and pd_tendon_centerline.png:
the arm at a few times, from Result.plot; `... pd_tendon.py docs/figures` renews the documentation's):

    PYTHONPATH=python python3 examples/pd_tendon.py

python/tests/test_control.py runs the same functions and checks that the tip settles at z*
with the controller and does not without it.
"""

import copy
import os
import sys

import numpy as np

try:
    import cosserat
except ImportError:  # run from the repository root without PYTHONPATH
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import cosserat

ARM = {
    "name": "pd-tendon-arm",
    "description": "Soft arm clamped horizontally, drooping under gravity (stage 0); a tendon on its top, "
    "whose tension (1 N x the actuator input) a PD controller sets every output time (stage 1).",
    "model": "mixed_discrete",
    "rod": {
        "length": 0.1,
        "elements": 20,
        "material": {"E": 1.0e6, "G": 3.4e5, "rho": 1100},
        "sections": [{"shape": "circle", "radius": 0.005}],
        "damping": {"relaxation_time": [1.5e-3] * 6},
    },
    "boundary_conditions": [{"type": "clamp", "node": "start"}],
    "loads": [
        {"type": "gravity", "value": [0, 0, -9.81]},
        {"type": "tendon", "tension": 1.0, "offset": {"y": 0, "z": 0.004}, "stages": [1]},
    ],
    "stages": [
        {"type": "static", "load_steps": 2},
        {"type": "dynamic", "t_end": 1.5, "output_dt": 0.005},
    ],
    "output": {"directory": "out/pd-tendon", "vtk": False},
}

Z_TARGET = 0.0  # m, tip height to reach
OMEGA_1 = 26.5  # rad/s, first bending frequency of the arm (3.516 √(EI / ρA L⁴))


def static_tip_z(tension, scenario=ARM):
    """Tip height (m) of the arm in static equilibrium with gravity and the tendon at `tension` (N)."""
    sc = copy.deepcopy(scenario)
    sc["loads"][1]["stages"] = [0]
    sc["stages"] = [{"type": "static", "load_steps": 4}]
    return float(cosserat.run(sc, {"loads.1.tension": tension}, check=True).tip_position[2])


def feedforward(z_target=Z_TARGET, scenario=ARM):
    """(u_ff, g): the tension (N) that holds the tip at z_target in statics (secant iteration),
    and the static gain g = dz_tip/dT (m/N) there."""
    t0, t1 = 0.4, 0.6
    z0, z1 = static_tip_z(t0, scenario), static_tip_z(t1, scenario)
    for _ in range(8):
        if abs(z1 - z_target) < 1e-12:
            break
        t0, z0, t1 = t1, z1, t1 + (z_target - z1) * (t1 - t0) / (z1 - z0)
        z1 = static_tip_z(t1, scenario)
    return t1, (z1 - z0) / (t1 - t0)


class PD:
    """u = max(0, u_ff + Kp (z* − z) − Kd ż) on the tip height, applied to the tendon's input;
    records (t, z_tip, u) at every output time."""

    def __init__(self, u_ff, gain, z_target=Z_TARGET, loop_gain=2.0, damping=0.5, omega=OMEGA_1):
        self.u_ff, self.z_target = u_ff, z_target
        self.kp = loop_gain / gain
        self.kd = 2.0 * damping / (gain * omega)
        self.log = []

    def __call__(self, sample):
        z, vz = sample.tip_position[2], sample.tip_velocity[2]
        u = max(0.0, self.u_ff + self.kp * (self.z_target - z) - self.kd * vz)
        sample.set_input("tendon", u)
        self.log.append((sample.t, z, u))


def run_closed_loop(scenario=ARM, **kwargs):
    """(Result, PD): the dynamic stage with the controller in the loop."""
    u_ff, gain = feedforward(scenario=scenario)
    pd = PD(u_ff, gain)
    return cosserat.run(scenario, on_sample=pd, **kwargs), pd


def run_open_loop(tension=1.0, scenario=ARM, **kwargs):
    """The same stage with a constant tension (N): the nominal 1 N, or e.g. the feedforward alone."""
    return cosserat.run(scenario, inputs={"tendon": tension}, **kwargs)


def plot(closed, pd, opens, path):
    """Tip height and tendon tension against time: closed loop and open-loop runs."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 6.0), dpi=110)
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    t = closed.series["t"]
    ax1.plot(t, 1e3 * closed.series["tip_z"], color="tab:blue", lw=1.8, label="PD controller")
    for (label, r), c in zip(opens, ("tab:gray", "tab:orange")):
        ax1.plot(r.series["t"], 1e3 * r.series["tip_z"], color=c, lw=1.0, label=label)
        ax2.plot(r.series["t"], np.full_like(r.series["t"], r.inputs[1]), color=c, lw=1.0, label=label)
    ax1.axhline(1e3 * pd.z_target, color="black", ls=":", lw=1.0, label="target z* = 0")
    ax1.set_ylabel("tip height z (mm)")
    ax1.set_ylim(-25, 75)
    ax1.legend(fontsize=8, loc="upper right", ncol=2)
    ax1.set_title("soft arm, tendon tension set by a PD law every 5 ms", fontsize=10)
    lt, _, lu = np.array(pd.log).T
    ax2.step(lt, lu, where="post", color="tab:blue", lw=1.4, label="PD controller")
    ax2.set_ylabel("tendon tension (N)")
    ax2.set_xlabel("time t (s)")
    ax2.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
    return path


def main(out_dir="out/pd-tendon"):
    closed, pd = run_closed_loop(keep_snapshots=True)
    nominal = run_open_loop(1.0)
    ff_only = run_open_loop(pd.u_ff)
    t, z = closed.series["t"], closed.series["tip_z"]
    late = t >= 1.0
    print(f"feedforward tension u_ff = {pd.u_ff:.6g} N, Kp = {pd.kp:.4g} N/m, Kd = {pd.kd:.4g} N s/m")
    print(f"PD:                tip z at t = {t[-1]:g} s: {z[-1]:+.3e} m, max |z - z*| on [1, 1.5] s: "
          f"{np.abs(z[late] - pd.z_target).max():.3e} m, final tension {closed.inputs[1]:.6g} N")
    for name, r in (("open loop, 1 N:", nominal), ("feedforward only:", ff_only)):
        zz = r.series["tip_z"]
        print(f"{name:18s} tip z at t = {t[-1]:g} s: {zz[-1]:+.3e} m, max |z - z*| on [1, 1.5] s: "
              f"{np.abs(zz[late] - pd.z_target).max():.3e} m")
    os.makedirs(out_dir, exist_ok=True)
    path = plot(closed, pd, [("open loop, 1 N", nominal), (f"feedforward only, {pd.u_ff:.3f} N", ff_only)],
                os.path.join(out_dir, "pd_tendon.png"))
    print(path)
    path = os.path.join(out_dir, "pd_tendon_centerline.png")
    closed.plot(path, times=[0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5], plane="xz")
    print(path)
    return closed, pd


if __name__ == "__main__":
    main(*sys.argv[1:2])
