#!/usr/bin/env python3
"""Regenerates the figures of docs/examples.md from the three paper examples (spec §8).

    /usr/bin/python3 scripts/figures.py --build build --out docs/figures
    /usr/bin/python3 scripts/figures.py --wilberforce-dir out/wilberforce-full   # reuse a 20 s run

Writes into --out:

    helix_convergence.png   two helical segments: |r - r*| at s = L1 and s = L vs n, with n^-2
    helix_shape.png         deformed centerline (4 coils) and the analytic helix
    tendon_strains.png      tendon manipulator: gamma_x, gamma_y, kappa_z along s/L, n = 10 ... 1250
    tendon_shape.png        deformed centerlines in the x-z plane for the same n
    wilberforce.png         bob height z(t) and unwrapped yaw alpha(t) over 0-20 s
    wilberforce_energy.png  vertical / torsional mode-energy proxies, energy components, drift

and prints one summary line per figure (the numbers docs/examples.md quotes).

The static examples go through the Python package (cosserat.run with overrides) on
BUILD/libcosserat.so. The Wilberforce run is the CLI: BUILD/cosserat run examples/wilberforce.json
(about 45 s, without .vtp snapshots), unless --wilberforce-dir names the output folder of an
existing full run (summary.json + series.csv). If that folder does not exist yet, the run is
written there, so the next call reuses it; an existing folder without those files is an error.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figlib import savefig, setup as _setup  # noqa: E402


def setup(build):
    return _setup(build, "figures.py")
EXAMPLES = os.path.join(ROOT, "examples")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build",
                   help="build directory with libcosserat.so and cosserat (default: build)")
    p.add_argument("--out", default=os.path.join("docs", "figures"),
                   help="output directory for the PNGs (default: docs/figures)")
    p.add_argument("--wilberforce-dir", default=None,
                   help="output folder of a full `cosserat run examples/wilberforce.json` "
                        "(reused if it holds summary.json and series.csv; a folder that does not exist is created "
                        "and the run written there)")
    p.add_argument("--only", default=None, choices=["helix", "tendon", "wilberforce"],
                   help="regenerate one example's figures only")
    return p.parse_args(argv)


def observed_order(n, e):
    """Least-squares slope of log e against log n (negated: 2 means e ~ n^-2)."""
    return -np.polyfit(np.log(np.asarray(n, float)), np.log(np.asarray(e, float)), 1)[0]


# --------------------------------------------------------------------------- helix (spec §8.1)

HELIX_R1 = 10.0
HELIX_C = 1.0 / math.pi


def helix_exact(s, L):
    """Analytic centerline r*(s) of spec §8.1 (2 coils of radius R1, then 2 of radius R1/2)."""
    s = np.atleast_1d(np.asarray(s, float))
    R1, c = HELIX_R1, HELIX_C
    out = np.empty((s.size, 3))
    first = s <= 2.0 * L / 3.0
    a = 6.0 * math.pi * s[first] / L
    out[first] = R1 * np.column_stack([-np.sin(a), np.cos(a), c * a])
    b = 12.0 * math.pi * (s[~first] / L - 2.0 / 3.0)
    out[~first] = np.array([0.0, R1 / 2, 40.0]) + (R1 / 2) * np.column_stack([-np.sin(b), np.cos(b), c * b])
    return out


def figures_helix(out):
    import cosserat
    import matplotlib.pyplot as plt

    scen = os.path.join(EXAMPLES, "two-helical-segments.json")
    sc = cosserat.load(scen)
    L = sc["rod"]["length"]
    L_expected = math.sqrt(1 + HELIX_C ** 2) * HELIX_R1 * 6 * math.pi
    if abs(L / L_expected - 1) > 1e-12:
        sys.exit(f"figures.py: {scen}: rod.length {L} is not the spec's {L_expected}")
    ns = [33, 99, 300, 999, 3000, 9999]  # multiples of 3: a node sits at s = L1 = 2L/3
    kappa1 = np.array([HELIX_C, 0.0, 1.0]) / (HELIX_R1 * (1 + HELIX_C ** 2))
    tau = np.array(sc["loads"][0]["value"])
    e_L1, e_L, strain_err, moment_err, results = [], [], 0.0, 0.0, {}
    for n in ns:
        r = cosserat.run(scen, {"rod.elements": n}, check=True)
        results[n] = r
        exact = helix_exact(r.s, L)
        i1 = 2 * n // 3
        assert abs(r.s[i1] - 2 * L / 3) < 1e-9 * L
        e_L1.append(np.linalg.norm(r.positions[i1] - exact[i1]))
        e_L.append(np.linalg.norm(r.positions[-1] - exact[-1]))
        k_exact = np.where((r.element_s < 2 * L / 3)[:, None], kappa1, 2 * kappa1)
        strain_err = max(strain_err, np.abs(r.gamma - [1.0, 0.0, 0.0]).max(), np.abs(r.kappa - k_exact).max())
        moment_err = max(moment_err, np.abs(r.m - tau).max() / np.linalg.norm(tau))
    core = [ns.index(k) for k in (99, 300, 999)]
    p_L1 = observed_order([ns[k] for k in core], [e_L1[k] for k in core])
    p_L = observed_order([ns[k] for k in core], [e_L[k] for k in core])
    p_all_L1, p_all_L = observed_order(ns, e_L1), observed_order(ns, e_L)

    fig, ax = plt.subplots(figsize=(6.0, 4.4), layout="constrained")
    ax.loglog(ns, e_L1, "o-", label=f"$s = L_1$ (order {p_all_L1:.2f})")
    ax.loglog(ns, e_L, "s-", label=f"$s = L$ (order {p_all_L:.2f})")
    nref = np.array([ns[0], ns[-1]], float)
    ax.loglog(nref, 2.0 * e_L[0] * (nref / ns[0]) ** -2.0, "k--", lw=1, label=r"$\propto n^{-2}$")
    ax.set_xlabel("elements $n$")
    ax.set_ylabel(r"centerline error $|\mathbf{r} - \mathbf{r}^*|$")
    ax.set_title("Two helical segments: convergence to the analytic helix")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    savefig(fig, out, "helix_convergence.png")

    nshow = 99
    r = results[nshow]
    fine = helix_exact(np.linspace(0, L, 2000), L)
    fig = plt.figure(figsize=(5.2, 6.4), layout="constrained")
    ax = fig.add_subplot(projection="3d")
    ax.plot(*fine.T, "k-", lw=0.8, label=r"analytic $\mathbf{r}^*(s)$")
    i1 = 2 * nshow // 3
    ax.plot(*r.positions[: i1 + 1].T, "o", ms=2.5, color="C0", label=f"nodes, segment 1 ($n$ = {nshow})")
    ax.plot(*r.positions[i1:].T, "o", ms=2.5, color="C3", label=r"nodes, segment 2 ($I_2 = I_1/2$)")
    ax.set_box_aspect((20, 20, 60))
    ax.set_xticks([-10, 0, 10])
    ax.set_yticks([-10, 0, 10])
    ax.view_init(elev=12, azim=-55)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    ax.set_title("Two helical segments: 2 + 2 coils")
    ax.legend(loc="lower left", fontsize=8)
    savefig(fig, out, "helix_shape.png")

    errs = ", ".join(f"n={n}: {a:.3e}/{b:.3e}" for n, a, b in zip(ns, e_L1, e_L))
    print(f"helix: observed order (n = 99, 300, 999) {p_L1:.3f} at s=L1, {p_L:.3f} at s=L; "
          f"over n = {ns[0]}..{ns[-1]}: {p_all_L1:.3f}, {p_all_L:.3f}; errors L1/L {errs}; "
          f"max strain error {strain_err:.1e}, max |m - tau|/|tau| {moment_err:.1e}; "
          f"tip at n=999 {np.array2string(results[999].tip_position, precision=6)}")


# --------------------------------------------------------------------------- tendon (spec §8.2)

def figures_tendon(out):
    import cosserat
    import matplotlib.pyplot as plt

    scen = os.path.join(EXAMPLES, "tendon-manipulator.json")
    ns = [10, 50, 250, 1250]
    res = {n: cosserat.run(scen, {"rod.elements": n}, check=True) for n in ns}
    L = cosserat.load(scen)["rod"]["length"]
    paper = {"gamma_x": (0.982, 0.887), "gamma_y": (0.002, 0.014), "kappa_z": (7.3, 113.4)}

    fig, axes = plt.subplots(3, 1, figsize=(6.4, 7.6), sharex=True, layout="constrained")
    comps = [("gamma_x", r"$\gamma_x$", lambda r: r.gamma[:, 0]),
             ("gamma_y", r"$\gamma_y$", lambda r: r.gamma[:, 1]),
             ("kappa_z", r"$\kappa_z$ [1/m]", lambda r: r.kappa[:, 2])]
    for ax, (key, label, get) in zip(axes, comps):
        for n in ns:
            r = res[n]
            style = "o-" if n == 10 else "-"
            ax.plot(r.element_s / L, get(r), style, ms=3, lw=1.2, label=f"n = {n}")
        ax.plot([0, 1], paper[key], "kx", ms=8, mew=1.5, label="paper, n = 1250 (ends)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[-1].set_xlabel("s / L")
    axes[0].set_title("Tendon-driven tapered manipulator: strains (element basis)")
    savefig(fig, out, "tendon_strains.png")

    fig, ax = plt.subplots(figsize=(5.6, 5.2), layout="constrained")
    for n in ns:
        p = res[n].positions
        ax.plot(p[:, 0], p[:, 2], "o-" if n == 10 else "-", ms=3, lw=1.2, label=f"n = {n}")
    ax.plot([0, 0], [0, L], "k:", lw=1, label="reference")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title("Tendon manipulator: deformed centerlines (T = 4 N)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    savefig(fig, out, "tendon_shape.png")

    parts = []
    for n in ns:
        r = res[n]
        parts.append(f"n={n}: gamma_x {r.gamma[0, 0]:.4f}->{r.gamma[-1, 0]:.4f}, "
                     f"gamma_y {r.gamma[0, 1]:.5f}->{r.gamma[-1, 1]:.5f}, "
                     f"kappa_z {r.kappa[0, 2]:.3f}->{r.kappa[-1, 2]:.2f}")
    fine = res[ns[-1]]
    conv = []
    for n in ns[:-1]:  # difference to the finest n at the coarse element midpoints, and of the tips
        r = res[n]
        dk = np.abs(r.kappa[:, 2] - np.interp(r.element_s, fine.element_s, fine.kappa[:, 2])).max()
        dtip = np.linalg.norm(r.tip_position - fine.tip_position)
        conv.append(f"n={n}: max |kappa_z - kappa_z(n={ns[-1]})| {dk:.2f} 1/m "
                    f"({100 * dk / fine.kappa[-1, 2]:.1f} % of the tip value), tip distance {1e3 * dtip:.2f} mm")
    r = res[1250]
    mono = (np.all(np.diff(r.gamma[:, 0]) < 0) and np.all(np.diff(r.gamma[:, 1]) > 0)
            and np.all(np.diff(r.kappa[:, 2]) > 0))
    tip = res[1250].tip_position
    print(f"tendon: {'; '.join(parts)}; n=1250 monotone: {mono}; "
          f"tip n=1250 ({tip[0]:.5f}, {tip[1]:.1e}, {tip[2]:.5f}) m; "
          f"max |y| {max(np.abs(res[n].positions[:, 1]).max() for n in ns):.1e} m; "
          f"Newton iterations n=1250: {r.total_newton_iterations} in {r.load_steps} load steps")
    print(f"tendon convergence: {'; '.join(conv)}")


# --------------------------------------------------------------------------- Wilberforce (spec §8.3)

def wilberforce_run(cli, wdir):
    """Returns (folder, summary dict, series dict) of a full run, running it if needed."""
    scen = os.path.join(EXAMPLES, "wilberforce.json")
    tmp = None
    if wdir and os.path.exists(os.path.join(wdir, "summary.json")) and os.path.exists(os.path.join(wdir, "series.csv")):
        print(f"wilberforce: reusing {wdir}")
    elif wdir and os.path.exists(wdir):
        sys.exit(f"figures.py: {wdir} exists but holds no summary.json and series.csv "
                 "(a run still in progress?); give a finished run or a new folder")
    else:
        if not wdir:
            tmp = tempfile.TemporaryDirectory(prefix="cosserat-wilberforce-")
            wdir = tmp.name
        print(f"wilberforce: running {os.path.relpath(scen, ROOT)} into {wdir} (about 45 s)", flush=True)
        subprocess.run([cli, "run", scen, "-o", wdir, "--set", "output.vtk=false", "--quiet"], check=True)
    with open(os.path.join(wdir, "summary.json")) as f:
        summary = json.load(f)
    data = np.genfromtxt(os.path.join(wdir, "series.csv"), delimiter=",", names=True)
    series = {k: np.asarray(data[k]) for k in data.dtype.names}
    if tmp:
        tmp.cleanup()
    if summary.get("scenario") != "wilberforce":
        print(f"wilberforce: warning: summary.json is of scenario {summary.get('scenario')!r}")
    if not summary.get("converged", False):
        print("wilberforce: warning: the run did not converge")
    if abs(series["t"][-1] - 20.0) > 1e-9:
        print(f"wilberforce: warning: the series ends at t = {series['t'][-1]} s, not 20 s")
    return summary, series


def body_pose(result, reference, center_ref):
    """Bob centre and yaw (rad) from node 0, as src/io/run.c computes them (bob axes = A_0 A_0,ref^T)."""
    R = result.frames[0] @ reference.frames[0].T
    c = result.positions[0] + R @ (np.asarray(center_ref) - reference.positions[0])
    return c, math.atan2(R[1, 0], R[0, 0])


def wilberforce_statics(scen):
    """Static equilibrium of the pendulum under gravity alone and the 2x2 stiffness of the bob
    (vertical force, vertical moment) -> (z, yaw) about it, from small extra loads on the bob."""
    import cosserat

    sc = cosserat.load(scen)
    gravity = [ld for ld in sc["loads"] if ld["type"] == "gravity"]
    body = sc["rigid_bodies"][0]
    static = [{"type": "static", "load_steps": 10}]
    ref = cosserat.run(sc, {"loads": [], "stages": [{"type": "static", "load_steps": 1}]}, check=True)

    def solve(extra):
        r = cosserat.run(sc, {"loads": gravity + extra, "stages": static}, check=True)
        c, yaw = body_pose(r, ref, body["center"])
        return np.array([c[2], yaw])

    eq = solve([])
    dF, dM = 0.02, 2e-5  # N, N m: small against the pre-load 1.54 N
    cz = (solve([{"type": "force", "body": body["name"], "frame": "inertial", "value": [0, 0, dF]}]) - eq) / dF
    ca = (solve([{"type": "moment", "body": body["name"], "frame": "inertial", "value": [0, 0, dM]}]) - eq) / dM
    C = np.column_stack([cz, ca])  # d(z, yaw)/d(F_z, M_z)
    K = np.linalg.inv(C)
    # effective (Rayleigh) inertia of the modes: bob plus a third of the spring
    rod = sc["rod"]
    wire = rod["sections"][0]["radius"]
    m_spring = rod["material"]["rho"] * math.pi * wire ** 2 * rod["length"]
    R = rod["reference"]["radius"]
    M_z = body["mass"] + m_spring / 3
    I_a = body["inertia"][2] + m_spring * R ** 2 / 3
    return eq, K, M_z, I_a, body["mass"]


def analytic_signal(x):
    """Hilbert transform by FFT (numpy only): x + i H[x]."""
    n = len(x)
    X = np.fft.fft(x)
    h = np.zeros(n)
    h[0] = 1
    if n % 2 == 0:
        h[n // 2] = 1
        h[1:n // 2] = 2
    else:
        h[1:(n + 1) // 2] = 2
    return np.fft.ifft(X * h)


def local_maxima(t, y, tmin, tmax):
    with np.errstate(invalid="ignore"):
        i = np.where((y[1:-1] > y[:-2]) & (y[1:-1] >= y[2:]))[0] + 1
    return i[(t[i] >= tmin) & (t[i] <= tmax)]


def upward_crossings(t, y):
    k = np.where((y[:-1] < 0) & (y[1:] >= 0))[0]
    return t[k] - y[k] * (t[k + 1] - t[k]) / (y[k + 1] - y[k])


def figures_wilberforce(out, cli, wdir):
    import matplotlib.pyplot as plt

    summary, s = wilberforce_run(cli, wdir)
    t, z = s["t"], s["bob_z"]
    yaw_deg = s["bob_yaw"]
    alpha = np.radians(yaw_deg)
    eq, K, M_z, I_a, m_bob = wilberforce_statics(os.path.join(EXAMPLES, "wilberforce.json"))
    z_eq, a_eq = eq
    dz, da = z - z_eq, alpha - a_eq
    dt = t[1] - t[0]
    vz, va = np.gradient(dz, dt), np.gradient(da, dt)
    # uncoupled mode energies about the gravity equilibrium, and the coupling term
    E_z = 0.5 * M_z * vz ** 2 + 0.5 * K[0, 0] * dz ** 2
    E_a = 0.5 * I_a * va ** 2 + 0.5 * K[1, 1] * da ** 2
    E_c = 0.5 * (K[0, 1] + K[1, 0]) * dz * da
    # amplitudes and carrier phases (analytic signals), away from the FFT edge effects
    zs, as_ = analytic_signal(dz), analytic_signal(da)
    A_z, A_a = np.abs(zs), np.abs(as_)
    inner = (t >= 1.0) & (t <= t[-1] - 1.0)
    dphi = np.abs(np.angle(as_ * np.conj(zs)))  # folded into [0, pi]
    w = (A_z / A_z[inner].max()) * (A_a / A_a[inner].max())
    phase_weighted = np.sum(dphi[inner] * w[inner]) / np.sum(w[inner])
    phase_median = np.median(dphi[inner])
    # carrier periods (upward zero crossings) and the lag of alpha maxima behind z maxima
    T_z = np.diff(upward_crossings(t, dz)).mean()
    T_a = np.diff(upward_crossings(t, da)).mean()
    T = 0.5 * (T_z + T_a)
    iz, ia = local_maxima(t, dz, 0.0, t[-1]), local_maxima(t, da, 0.0, t[-1])
    lags = []
    for k in iz:
        later = ia[t[ia] >= t[k]]
        if later.size:
            ph = (2 * math.pi * (t[later[0]] - t[k]) / T) % (2 * math.pi)
            lags.append(min(ph, 2 * math.pi - ph))
    lag_phase = float(np.median(lags)) if lags else float("nan")
    # energy envelopes: maxima of the (1-period smoothed) mode energies
    win = max(1, int(round(T / dt)))

    def smooth(y):  # centred moving average over one period; NaN where the window leaves [0, t_end]
        c = np.convolve(y, np.ones(win) / win, mode="same")
        c[: win // 2] = np.nan
        c[len(y) - win // 2:] = np.nan
        return c

    Ez_s, Ea_s = smooth(E_z), smooth(E_a)
    mz = local_maxima(t, Ez_s, T, t[-1] - T)
    ma = local_maxima(t, Ea_s, T, t[-1] - T)
    # keep the dominant envelope maxima (above half the largest)
    mz = mz[Ez_s[mz] > 0.5 * Ez_s[mz].max()] if mz.size else mz
    ma = ma[Ea_s[ma] > 0.5 * Ea_s[ma].max()] if ma.size else ma
    t_env_z = np.concatenate([[0.0], t[mz]])  # the vertical energy starts at its maximum (release)
    t_env_a = t[ma]
    T_beat = np.diff(np.sort(np.concatenate([t_env_z, t_env_a]))).mean() * 2 if t_env_a.size else float("nan")
    env_lags = [ta - t_env_z[t_env_z <= ta].max() for ta in t_env_a if np.any(t_env_z <= ta)]
    env_frac = np.mean(env_lags) / T_beat if env_lags else float("nan")

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7.5, 5.6), sharex=True, layout="constrained")
    ax1.plot(t, z, lw=0.6)
    for zp in (-0.252, -0.439):
        ax1.axhline(zp, color="k", ls="--", lw=0.8)
    ax1.text(t[-1], -0.252, "paper −0.252 ", ha="right", va="bottom", fontsize=8)
    ax1.text(t[-1], -0.439, "paper −0.439 ", ha="right", va="top", fontsize=8)
    ax1.set_ylabel("bob centre z [m]")
    ax1.grid(True, alpha=0.3)
    ax1.set_title("Wilberforce pendulum (n = 800, Radau IIA, rtol 1e-3, atol 1e-6)")
    ax2.plot(t, yaw_deg, lw=0.6, color="C1")
    mean_yaw = yaw_deg.mean()
    for off in (-300, 0, 300):
        ax2.axhline(mean_yaw + off, color="k", ls="--" if off else ":", lw=0.8)
    ax2.set_ylabel(r"yaw $\alpha$ [deg] (unwrapped)")
    ax2.set_xlabel("t [s]")
    ax2.grid(True, alpha=0.3)
    ax2.text(t[-1], mean_yaw + 300, "mean ± 300° ", ha="right", va="bottom", fontsize=8)
    ax2.set_xlim(t[0], t[-1])
    savefig(fig, out, "wilberforce.png")

    E0 = s["energy_total"][0]
    fig, (a1, a2, a3) = plt.subplots(3, 1, figsize=(7.5, 7.8), sharex=True, layout="constrained")
    a1.plot(t, 1e3 * E_z, lw=0.5, label=r"vertical $E_z$")
    a1.plot(t, 1e3 * E_a, lw=0.5, label=r"torsional $E_\alpha$")
    a1.plot(t, 1e3 * (E_z + E_a + E_c), "k", lw=0.7, label=r"$E_z + E_\alpha + E_{z\alpha}$")
    a1.plot(t, 1e3 * Ez_s, "C0--", lw=1.2)
    a1.plot(t, 1e3 * Ea_s, "C1--", lw=1.2)
    a1.set_ylabel("mode energy [mJ]")
    a1.legend(fontsize=8, loc="upper right", ncol=3)
    a1.grid(True, alpha=0.3)
    a1.set_title("Wilberforce pendulum: energy exchange (dashed: one-period averages)")
    V = s["energy_elastic"] + s["energy_gravity"]
    a2.plot(t, 1e3 * (s["energy_kinetic"] - s["energy_kinetic"][0]), lw=0.5, label="kinetic $T$")
    a2.plot(t, 1e3 * (V - V[0]), lw=0.5, label=r"potential $U_{el} + V_{grav}$ − its t = 0 value")
    a2.set_ylabel("energy change [mJ]")
    a2.legend(fontsize=8, loc="upper right", ncol=2)
    a2.grid(True, alpha=0.3)
    a3.plot(t, 1e3 * (s["energy_total"] - E0), "k", lw=0.7)
    a3.set_ylabel(r"$E_{tot}(t) - E_{tot}(0)$ [mJ]")
    a3.set_xlabel("t [s]")
    a3.grid(True, alpha=0.3)
    a3.set_xlim(t[0], t[-1])
    savefig(fig, out, "wilberforce_energy.png")

    i_first = local_maxima(t, z, 0.0, 2.0)
    t_first, z_first = (t[i_first[0]], z[i_first[0]]) if i_first.size else (float("nan"), float("nan"))
    stages = [st for st in summary.get("stages", []) if st.get("type") == "dynamic"]
    dyn = stages[0] if stages else {}
    drift = s["energy_total"] - E0
    exch = max(E_z.max(), E_a.max())
    dev = (E_z + E_a + E_c) - (E_z + E_a + E_c)[inner].mean()
    print(f"wilberforce: pre-load z {z[0]:.4f} m; z range [{z.min():.4f}, {z.max():.4f}] m; "
          f"first upper turning point z {z_first:.4f} m at t {t_first:.3f} s; "
          f"yaw {yaw_deg.min():.1f}..{yaw_deg.max():.1f} deg, mean {mean_yaw:.1f}, "
          f"half range {(yaw_deg.max() - yaw_deg.min()) / 2:.1f} deg, "
          f"max |yaw - mean| {np.abs(yaw_deg - mean_yaw).max():.1f} deg")
    print(f"wilberforce energy: gravity equilibrium z {z_eq:.4f} m, yaw {math.degrees(a_eq):.2f} deg; "
          f"K_zz {K[0, 0]:.3f} N/m, K_aa {K[1, 1]:.4e} N m/rad, K_za {0.5 * (K[0, 1] + K[1, 0]):.4e} N/rad; "
          f"M_z {M_z:.4f} kg, I_a {I_a:.4e} kg m^2 "
          f"(uncoupled periods {2 * math.pi * math.sqrt(M_z / K[0, 0]):.3f} s, "
          f"{2 * math.pi * math.sqrt(I_a / K[1, 1]):.3f} s); "
          f"carrier periods z {T_z:.3f} s, yaw {T_a:.3f} s; "
          f"mode energy max E_z {1e3 * E_z.max():.2f} mJ, E_a {1e3 * E_a.max():.2f} mJ, "
          f"min of E_z envelope {1e3 * np.nanmin(Ez_s[inner]):.3f} mJ, of E_a {1e3 * np.nanmin(Ea_s[inner]):.3f} mJ; "
          f"E_z+E_a+E_za within {100 * np.abs(dev[inner]).max() / exch:.1f} % of max mode energy")
    print(f"wilberforce phase: carrier |phase(alpha) - phase(z)| weighted mean {phase_weighted / math.pi:.3f} pi, "
          f"median {phase_median / math.pi:.3f} pi (t in [1, {t[-1] - 1:g}] s); "
          f"lag of alpha maxima after z maxima, folded, median {lag_phase / math.pi:.3f} pi over {len(lags)} maxima; "
          f"energy envelope maxima: vertical at {', '.join(f'{x:.2f}' for x in t_env_z)} s, "
          f"torsional at {', '.join(f'{x:.2f}' for x in t_env_a)} s, "
          f"beat period {T_beat:.2f} s, torsional lag {env_frac:.3f} beat periods "
          f"(beat phase {env_frac:.3f} pi; ideal 0.5 pi)")
    print(f"wilberforce run: total energy {E0:.6f} J, drift max |E - E0| {1e3 * np.abs(drift).max():.3f} mJ "
          f"({100 * np.abs(drift).max() / abs(E0):.3f} % of |E0|, {100 * np.abs(drift).max() / exch:.2f} % of the "
          f"exchanged mode energy), E(20) - E(0) {1e3 * drift[-1]:.4f} mJ, "
          f"peak-to-peak {1e3 * (drift.max() - drift.min()):.3f} mJ; "
          f"work_external max {np.abs(s['work_external']).max():.1e} J; "
          f"integrator: {dyn.get('steps')} steps, {dyn.get('rejected_steps')} rejected, "
          f"{dyn.get('newton_iterations')} Newton iterations, {dyn.get('function_evaluations')} F evaluations, "
          f"{dyn.get('jacobians')} Jacobians, {dyn.get('lu_factorizations')} LU, "
          f"{dyn.get('wall_time_s', float('nan')):.1f} s wall "
          f"({dyn.get('us_per_step_per_node', float('nan')):.1f} us/step/node); "
          f"static pre-load {summary.get('load_steps')} load steps, {summary.get('newton_iterations_total')} Newton; "
          f"run wall {summary.get('wall_time_s', float('nan')):.1f} s")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    cli = setup(args.build)
    os.makedirs(args.out, exist_ok=True)
    if args.only in (None, "helix"):
        figures_helix(args.out)
    if args.only in (None, "tendon"):
        figures_tendon(args.out)
    if args.only in (None, "wilberforce"):
        figures_wilberforce(args.out, cli, args.wilberforce_dir)


if __name__ == "__main__":
    main()
