#!/usr/bin/env python3
"""Figures of the dynamic-support examples (docs/examples.md, sections 4 and 5):

    /usr/bin/python3 scripts/figures_supports_dynamic.py --build build --out docs/figures

Writes into --out:

    heavy_pendulum.png     examples/heavy-pendulum.json: tip swing against the reference mode, and the
                           first frequency of the hanging rod against EI/(rho A g L^3), chain to rigid
                           pendulum, with the mixed rod's soft and steel rods on it
    shaken_cantilever.png  examples/shaken-cantilever.json: base and tip against the modal transient,
                           the tip error at n = 20 and 40, energy against the theory and the support's work

and prints one summary line per figure (the numbers docs/examples.md quotes).

The references are computed here with numpy, independently of the C tests that check the same
examples (tests/test_heavy_pendulum.c, tests/test_shaken_cantilever.c), from the same equations:
  - hanging rod: Hermite-cubic finite elements of  EI w'''' - (T w')' = omega^2 (rho A w - rho I w''),
    T = rho A g (L - s), pinned top, free bottom; the rigid rotation about the pin an explicit unknown;
  - cantilever: Euler-Bernoulli clamped-free modes, base motion Y sin(Omega t), transient from rest
    (40 modes).
The runs go through the Python package (cosserat.run with overrides) on BUILD/libcosserat.so.
"""

import argparse
import math
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figlib import savefig, setup as _setup  # noqa: E402


def setup(build):
    return _setup(build, "figures_supports_dynamic.py")
EXAMPLES = os.path.join(ROOT, "examples")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="build directory with libcosserat.so (default: build)")
    p.add_argument("--out", default=os.path.join("docs", "figures"),
                   help="output directory for the PNGs (default: docs/figures)")
    p.add_argument("--only", default=None, choices=["pendulum", "cantilever"],
                   help="regenerate one example's figure only")
    return p.parse_args(argv)


def up_crossings(t, x, level=0.0):
    """Times of the upward crossings of `level`, linearly interpolated."""
    a, b = x[:-1] - level, x[1:] - level
    i = np.nonzero((a < 0) & (b >= 0))[0]
    return t[i] + (t[i + 1] - t[i]) * (-a[i] / (b[i] - a[i]))


# --------------------------------------------------------------------------- heavy pendulum

def hanging_modes(mu, iota=0.0, N=80):
    """omega_1 sqrt(L/g) and mode 1 at s_i = i/N (tip = 1) of the hanging rod, mu = EI/(rho A g L^3),
    iota = rho I/(rho A L^2); unknowns theta (w = theta s + v) and (v_i, v'_i), i = 1..N."""
    n = 1 + 2 * N
    K, M = np.zeros((n, n)), np.zeros((n, n))
    gx, gw = np.polynomial.legendre.leggauss(4)
    h = 1.0 / N
    for e in range(N):
        idx = [0, -1 if e == 0 else 2 * e - 1, -1 if e == 0 else 2 * e, 2 * e + 1, 2 * e + 2]
        for xq, wq in zip(gx, gw):
            x, wq = 0.5 * (xq + 1), 0.5 * wq * h
            s, T = (e + x) * h, 1 - (e + x) * h
            N0 = np.array([s, 1 - 3 * x**2 + 2 * x**3, h * (x - 2 * x**2 + x**3), 3 * x**2 - 2 * x**3, h * (x**3 - x**2)])
            D1 = np.array([1, (6 * x**2 - 6 * x) / h, 1 - 4 * x + 3 * x**2, (6 * x - 6 * x**2) / h, 3 * x**2 - 2 * x])
            D2 = np.array([0, (12 * x - 6) / h**2, (6 * x - 4) / h, (6 - 12 * x) / h**2, (6 * x - 2) / h])
            Ke = wq * (mu * np.outer(D2, D2) + T * np.outer(D1, D1))
            Me = wq * (np.outer(N0, N0) + iota * np.outer(D1, D1))
            for a in range(5):
                for b in range(5):
                    if idx[a] >= 0 and idx[b] >= 0:
                        K[idx[a], idx[b]] += Ke[a, b]
                        M[idx[a], idx[b]] += Me[a, b]
    # M phi = nu K phi: the largest nu = 1/omega_1^2, accurate for every mu (see the C test's header)
    C = np.linalg.cholesky(K)
    Ci = np.linalg.inv(C)
    nu, V = np.linalg.eigh(Ci @ M @ Ci.T)
    phi = Ci.T @ V[:, -1]
    shape = np.array([phi[0] * i * h + (phi[2 * i - 1] if i else 0.0) for i in range(N + 1)])
    return 1 / math.sqrt(nu[-1]), shape / shape[-1]


def soft_pendulum_scenario(n, mu, shape, g=9.81, eps=0.02):
    """The soft rod of tests/test_heavy_pendulum.c (resultants, L = 1 m, rho A = 1 kg/m), deflected by
    nodal forces eps m_i phi_1(s_i) g (a load shaped like the first mode)."""
    N = len(shape) - 1
    loads = [{"type": "gravity", "value": [0, 0, -g]}]
    for i in range(1, n + 1):
        phi = np.interp(i / n, np.linspace(0, 1, N + 1), shape)
        m = (0.5 if i == n else 1.0) / n
        loads.append({"type": "force", "node": i, "value": [eps * g * m * phi, 0, 0], "stages": [1]})
    EI = mu * g
    return {
        "name": "soft-pendulum",
        "rod": {"length": 1, "elements": n,
                "reference": {"type": "straight", "quaternion": [0.7071067811865476, 0, 0.7071067811865476, 0]},
                "sections": [{"shape": "resultants", "EA": 1e5, "GA_y": 1e5, "GA_z": 1e5, "GJ": EI / 1.3,
                              "EI_y": EI, "EI_z": EI, "rhoA": 1, "rhoI_y": 1e-6, "rhoI_z": 1e-6}]},
        "boundary_conditions": [{"type": "clamp", "node": "start", "stages": [0]},
                                {"type": "support", "node": "start", "hold": ["x", "y", "z", "rz"], "stages": [1]},
                                {"type": "pin", "node": "start", "stages": [2]}],
        "loads": loads,
        "stages": [{"type": "static"}, {"type": "static"},
                   {"type": "dynamic", "t_end": 10, "output_dt": 0.005, "rtol": 1e-7, "atol": 1e-10}],
    }


def figure_pendulum(out):
    import cosserat
    import matplotlib.pyplot as plt

    g, L, r, E, rho = 9.81, 1.0, 0.01, 2e11, 7800
    A, I = math.pi * r * r, math.pi * r**4 / 4
    mu_steel, iota_steel = E * I / (rho * A * g * L**3), I / (A * L * L)
    w_steel, _ = hanging_modes(mu_steel, iota_steel)
    T_steel = 2 * math.pi / (w_steel * math.sqrt(g / L))
    runs = {n: cosserat.run(os.path.join(EXAMPLES, "heavy-pendulum.json"), {"rod.elements": n}, check=True)
            for n in (20, 40)}
    T_n = {}
    for n, res in runs.items():
        tc = up_crossings(res.series["t"], res.series["tip_x"])
        T_n[n] = (tc[-1] - tc[0]) / (len(tc) - 1)
    mu_soft = 1e-3
    w_soft, shape = hanging_modes(mu_soft, 1e-6, N=160)
    T_soft = 2 * math.pi / (w_soft * math.sqrt(g))
    soft = cosserat.run(soft_pendulum_scenario(40, mu_soft, shape), check=True)
    tc = up_crossings(soft.series["t"], soft.series["tip_x"])
    T_soft_sim = (tc[-1] - tc[0]) / (len(tc) - 1)

    mus = np.logspace(-5, 3, 41)
    ws = np.array([hanging_modes(m, 0.0, N=40)[0] for m in mus])
    chain, rigid = 2.404825557695773 / 2, math.sqrt(1.5)

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1.25, 1]})
    res = runs[40]
    t, x = res.series["t"], res.series["tip_x"]
    a.plot(t, 1e3 * x, color="C0", lw=1.6, label=f"mixed rod, n = 40: T = {T_n[40]:.4f} s")
    a.plot(t, 1e3 * x[0] * np.cos(2 * math.pi * t / T_steel), "k--", lw=0.9,
           label=f"$x_0\\cos(2\\pi t/T)$, reference T = {T_steel:.4f} s")
    a.set_xlabel("t [s]")
    a.set_ylabel("tip x [mm]")
    a.set_title("steel rod (L = 1 m, r = 1 cm) pinned at the top")
    a.legend(loc="upper center", fontsize=8, ncol=2)
    a.set_ylim(-1.2e3 * abs(x[0]), 1.6e3 * abs(x[0]))

    b.semilogx(mus, ws, color="k", lw=1.2, label="reference (hanging-rod eigenproblem)")
    b.axhline(chain, color="C2", ls=":", lw=1, label=f"chain $j_{{0,1}}/2$ = {chain:.4f}")
    b.axhline(rigid, color="C3", ls=":", lw=1, label=f"rigid $\\sqrt{{3/2}}$ = {rigid:.4f}")
    b.plot([mu_soft], [2 * math.pi / (T_soft_sim * math.sqrt(g))], "o", color="C1", ms=7,
           label="mixed rod, soft (resultants), n = 40")
    b.plot([mu_steel], [2 * math.pi / (T_n[40] * math.sqrt(g / L))], "s", color="C0", ms=7,
           label="mixed rod, steel, n = 40")
    b.set_xlabel("EI / (ρA g L³)")
    b.set_ylabel("ω₁ √(L/g)")
    b.set_title("first mode: chain to rigid pendulum")
    b.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    savefig(fig, out, "heavy_pendulum.png")
    print(f"heavy pendulum: steel mu = {mu_steel:.2f}, reference T = {T_steel:.6f} s (rigid "
          f"{2 * math.pi * math.sqrt(2 * L / (3 * g)):.6f}); mixed rod n = 20: {T_n[20]:.6f} s "
          f"({(T_n[20] - T_steel) / T_steel:+.2e}), n = 40: {T_n[40]:.6f} s ({(T_n[40] - T_steel) / T_steel:+.2e}); "
          f"soft mu = 1e-3: reference {T_soft:.6f} s, n = 40: {T_soft_sim:.6f} s "
          f"({(T_soft_sim - T_soft) / T_soft:+.2e}), chain {2 * math.pi / (chain * math.sqrt(g)):.6f} s")


# --------------------------------------------------------------------------- shaken cantilever

def cantilever_theory(t, Y, Omega, EI, rhoA, L, modes=40):
    """Base Y sin(Omega t) from rest: base, tip, energy (see tests/test_shaken_cantilever.c)."""
    yb, ybd = Y * np.sin(Omega * t), Y * Omega * np.cos(Omega * t)
    tip, sg, sad2, swa2 = yb.copy(), 0 * t, 0 * t, 0 * t
    for k in range(modes):
        lo, hi = (k + 0.5) * math.pi - 0.5, (k + 0.5) * math.pi + 0.5
        f = lambda b: math.cos(b) + 1 / math.cosh(b)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if (f(mid) < 0) == (f(lo) < 0):
                lo = mid
            else:
                hi = mid
        b = 0.5 * (lo + hi)
        ch, th = math.cosh(b), math.tanh(b)
        sigma = (1 + math.cos(b) / ch) / (th + math.sin(b) / ch)
        phiL = (math.sin(b) - th * math.cos(b)) / (th + math.sin(b) / ch) - math.cos(b) + sigma * math.sin(b)
        gk, w = 2 * sigma / b, (b / L) ** 2 * math.sqrt(EI / rhoA)
        c = gk * Y * Omega / (w * w - Omega**2)
        a = c * (Omega * np.sin(Omega * t) - w * np.sin(w * t))
        ad = c * (Omega**2 * np.cos(Omega * t) - w * w * np.cos(w * t))
        tip += phiL * a
        sg += gk * ad
        sad2 += ad * ad
        swa2 += w * w * a * a
    E = 0.5 * rhoA * L * (ybd**2 + 2 * ybd * sg + sad2 + swa2)
    return yb, tip, E


def figure_cantilever(out):
    import cosserat
    import matplotlib.pyplot as plt

    sc = cosserat.load(os.path.join(EXAMPLES, "shaken-cantilever.json"))
    L, r = sc["rod"]["length"], sc["rod"]["sections"][0]["radius"]
    E, rho = sc["rod"]["material"]["E"], sc["rod"]["material"]["rho"]
    Y, F = sc["boundary_conditions"][0]["position"][1], sc["boundary_conditions"][0]["time"]["frequency"]
    EI, rhoA, Omega = E * math.pi * r**4 / 4, rho * math.pi * r * r, 2 * math.pi * F
    runs = {n: cosserat.run(os.path.join(EXAMPLES, "shaken-cantilever.json"), {"rod.elements": n}, check=True)
            for n in (20, 40)}
    s = runs[40].series
    t = s["t"]
    yb, tip, Eth = cantilever_theory(t, Y, Omega, EI, rhoA, L)
    errs = {n: np.abs(res.series["tip_y"] - tip).max() / np.abs(tip).max() for n, res in runs.items()}
    # the support's work from the run's own momentum: [P ybd] - int P ybdd dt
    P = s["momentum_y"]
    ybd, ybdd = Y * Omega * np.cos(Omega * t), -Y * Omega**2 * np.sin(Omega * t)
    integrand = P * ybdd
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(t))])
    work = P * ybd - P[0] * ybd[0] - integral
    Esim = s["energy_total"]

    fig, axs = plt.subplots(3, 1, figsize=(9, 8.2), sharex=True, gridspec_kw={"height_ratios": [2, 1, 1.2]})
    a = axs[0]
    a.plot(t, 1e3 * s["base_y"], color="0.55", lw=1.2, label="base (run's base_y; prescribed $Y\\sin\\Omega t$)")
    a.plot(t, 1e3 * s["tip_y"], color="C0", lw=1.8, label="tip, mixed rod n = 40")
    a.plot(t, 1e3 * tip, "k--", lw=0.9, label="tip, Euler–Bernoulli modal transient (40 modes)")
    a.set_ylabel("y [mm]")
    a.set_title(f"steel cantilever, L = {L:g} m, r = {1e3 * r:g} mm, base Y = {1e3 * Y:g} mm at {F:g} Hz "
                f"(f₁ = {1.875104068711961**2 * math.sqrt(EI / rhoA) / (2 * math.pi * L * L):.2f} Hz)", fontsize=10)
    a.legend(loc="upper left", fontsize=8, ncol=3)
    a.set_ylim(-1.3e3 * np.abs(tip).max(), 1.6e3 * np.abs(tip).max())
    b = axs[1]
    for n, c in ((20, "C1"), (40, "C0")):
        b.plot(t, 1e6 * (runs[n].series["tip_y"] - tip), color=c, lw=0.8,
               label=f"n = {n}: max {100 * errs[n]:.2f} % of max |tip|")
    b.set_ylabel("tip − theory [µm]")
    b.legend(loc="upper left", fontsize=8, ncol=2)
    c = axs[2]
    c.plot(t, 1e3 * Eth, "k--", lw=0.9, label="theory")
    c.plot(t, 1e3 * Esim, color="C0", lw=1.4, label="energy_total, n = 40")
    c.plot(t, 1e3 * (Esim[0] + work), color="C3", lw=1.0, ls=(0, (1, 2)), label="E(0) + work of the support (from P_y)")
    c.set_ylim(-0.05e3 * Eth.max(), 1.4e3 * Eth.max())
    c.set_ylabel("energy [mJ]")
    c.set_xlabel("t [s]")
    c.legend(loc="upper left", fontsize=8, ncol=3)
    fig.tight_layout()
    savefig(fig, out, "shaken_cantilever.png")
    print(f"shaken cantilever: max |tip| {1e3 * np.abs(tip).max():.4f} mm (theory); max |tip error| "
          f"{100 * errs[20]:.2f} % (n = 20), {100 * errs[40]:.2f} % (n = 40); energy vs theory "
          f"{100 * np.abs(Esim - Eth).max() / Eth.max():.1f} % of {1e3 * Eth.max():.3f} mJ; E - E(0) vs support "
          f"work {np.abs(Esim - Esim[0] - work).max() / Eth.max():.1e} of max E; base_y - Y sin(Omega t) "
          f"<= {np.abs(s['base_y'] - yb).max():.1e} m")


def main(argv):
    args = parse_args(argv)
    setup(args.build)
    os.makedirs(args.out, exist_ok=True)
    if args.only in (None, "pendulum"):
        figure_pendulum(args.out)
    if args.only in (None, "cantilever"):
        figure_cantilever(args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
