#!/usr/bin/env python3
"""Figures of the static support examples (docs/examples.md "Supports") and the
generator of examples/catenary.json.

    /usr/bin/python3 scripts/figures_supports.py --build build --out docs/figures
    /usr/bin/python3 scripts/figures_supports.py --write-catenary examples/catenary.json

Writes into --out:

    supports_catenary.png   elastic cable between two pins: shape against Irvine's extensible
                            closed form, and sag / H / node errors vs n = 8 ... 128 with n^-2
    supports_euler.png      pinned-pinned column with an imperfection: P/P_cr vs midspan
                            deflection from a sweep of P, against linear theory and the elastica
    supports_greenhill.png  clamped-clamped rod under tension twisted towards Greenhill's critical
                            twist: amplification of an imperfection, Southwell plot, turns kept

and prints one line of measured numbers per figure (the numbers docs/examples.md quotes).

Every solve goes through the Python package (cosserat.run with overrides) on BUILD/libcosserat.so,
except one CLI run of examples/greenhill.json whose nodes.csv quaternions give the turns. Needs
numpy and matplotlib (Agg); K(k) and E(k) come from the arithmetic-geometric mean (no scipy).
"""

import argparse
import cmath
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
    return _setup(build, "figures_supports.py")
EXAMPLES = os.path.join(ROOT, "examples")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build",
                   help="build directory with libcosserat.so and cosserat (default: build)")
    p.add_argument("--out", default=os.path.join("docs", "figures"),
                   help="output directory for the PNGs (default: docs/figures)")
    p.add_argument("--only", default=None, choices=["catenary", "euler", "greenhill"],
                   help="regenerate one example's figure only")
    p.add_argument("--write-catenary", metavar="PATH", default=None,
                   help="write the catenary scenario (n = %d) to PATH and exit" % 32)
    return p.parse_args(argv)


FAILED = []


def expect(ok, what):
    """Records a failed sanity check of a figure's numbers (the script then exits with 1)."""
    if not ok:
        FAILED.append(what)
        print(f"CHECK FAILED: {what}")


def observed_order(n, e):
    """Least-squares slope of log e against log n (negated: 2 means e ~ n^-2)."""
    return -np.polyfit(np.log(np.asarray(n, float)), np.log(np.asarray(e, float)), 1)[0]


def twist_sum(quaternions):
    """The rod's total twist: the sum over elements of the angle 2 atan2(x, w) of the relative
    quaternion conj(q_e) q_{e+1} (the rotation angle about the body x axis for a nearly straight
    rod; the strain kappa_x L_e = 4 tan(theta/4) is not that angle)."""
    q = np.asarray(quaternions, float)
    a, b = q[:-1], q[1:]
    w = np.sum(a * b, axis=1)  # scalar part of conj(a) b
    x = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0] - a[:, 2] * b[:, 3] + a[:, 3] * b[:, 2]
    return float(np.sum(2 * np.arctan2(x, w)))


# --------------------------------------------------------------------------- catenary

CAT_S, CAT_L0, CAT_W, CAT_EA, CAT_G = 10.0, 10.5, 1.0, 1e3, 9.81
CAT_EI = 1e-4  # EI/(H S^2) ~ 1e-8: a cable
CAT_N = 32     # elements of examples/catenary.json


def catenary_H(S, L0, w, EA):
    """Horizontal tension of the extensible catenary (Irvine 1981, eq. 2.2): bisection on
    S = H L0/EA + (2H/w) asinh(V0/H), V0 = w L0/2 (the span grows with H)."""
    lo, hi = 1e-6 * w * L0, 1e6 * w * L0
    for _ in range(200):
        H = math.sqrt(lo * hi)
        span = H * L0 / EA + 2 * H / w * math.asinh(0.5 * w * L0 / H)
        if span > S:
            hi = H
        else:
            lo = H
    return math.sqrt(lo * hi)


def catenary_closed_form(s, H, L0=CAT_L0, w=CAT_W, EA=CAT_EA):
    """Irvine's extensible catenary at unstretched arc length s from the left pin (z up, pins at
    z = 0): x(s) = H s/EA + (H/w)[asinh(V0/H) - asinh((V0 - w s)/H)],
    z(s) = (T(s) - T(0))/w - (V0 s - w s^2/2)/EA, T = sqrt(H^2 + (V0 - w s)^2)."""
    s = np.asarray(s, float)
    V0 = 0.5 * w * L0
    T = np.hypot(H, V0 - w * s)
    x = H * s / EA + H / w * (math.asinh(V0 / H) - np.arcsinh((V0 - w * s) / H))
    z = (T - math.hypot(H, V0)) / w - (V0 * s - 0.5 * w * s ** 2) / EA
    return x, z


def _r(v):
    """12 decimals (the file stays short), and 0 rather than -0.0 or 1e-15 where the value is zero."""
    v = round(v, 12)
    return 0 if v == 0 else v


def catenary_scenario(n):
    """The cable with n elements; its stress-free reference is the inextensible catenary through
    the pins (tests/test_supports.c test_catenary): nodes at equal arc length, body x along the
    tangent."""
    a = catenary_H(CAT_S, CAT_L0, CAT_W, 1e300) / CAT_W  # z = a cosh((x - S/2)/a) + c
    pos, quat = [], []
    for i in range(n + 1):
        s = CAT_L0 * i / n - 0.5 * CAT_L0  # arc length from the midpoint
        x = a * math.asinh(s / a)
        z = math.sqrt(a * a + s * s) - math.sqrt(a * a + 0.25 * CAT_L0 ** 2)
        th = math.atan(s / a)  # tangent angle; rotation about y by -th maps x to (cos th, 0, sin th)
        pos.append([_r(x + 0.5 * CAT_S), 0, _r(z)])
        quat.append([_r(math.cos(-0.5 * th)), 0, _r(math.sin(-0.5 * th)), 0])
    rhoA = CAT_W / CAT_G
    return {
        "name": "catenary",
        "description": (
            "Supports: an elastic cable hanging between two pins at the same height, span S = 10 m, "
            "unstretched length L0 = 10.5 m, weight w = 1 N/m (rhoA = w/g), EA = 1000 N; bending and torsion "
            "stiffness 1e-4 N m^2 (EI/(H S^2) ~ 1e-8: a cable). The stress-free reference is the inextensible "
            "catenary through the pins (nodes at equal arc length, body x along the tangent); gravity in 4 load "
            "steps. The start is a pin that also holds rx and rz (inertial axes: the start node turns only about y, "
            "in the cable's plane), which removes the rigid swing about the chord that two plain pins leave free; "
            "the end is a pin. Irvine's extensible closed form "
            "(Cable Structures, 1981, 2.2): H = 8.38007 N from S = H L0/EA + (2H/w) asinh(V0/H), V0 = w L0/2, "
            "midspan sag (sqrt(H^2 + V0^2) - H)/w + w L0^2/(8 EA) = 1.522497 m. Generated by "
            "scripts/figures_supports.py --write-catenary (the node lists depend on rod.elements: run other n "
            "through that script, not --set rod.elements)."),
        "model": "mixed_discrete",
        "rod": {
            "elements": n,
            "reference": {"type": "nodes", "positions": pos, "quaternions": quat},
            "sections": [{"shape": "resultants", "EA": CAT_EA, "GA_y": CAT_EA, "GA_z": CAT_EA, "GJ": CAT_EI,
                          "EI_y": CAT_EI, "EI_z": CAT_EI, "rhoA": rhoA, "rhoI_y": 1e-6 * rhoA,
                          "rhoI_z": 1e-6 * rhoA}],
        },
        "boundary_conditions": [
            {"type": "support", "node": "start", "hold": ["x", "y", "z", "rx", "rz"]},
            {"type": "pin", "node": "end"},
        ],
        "loads": [{"type": "gravity", "value": [0, 0, -CAT_G]}],
        "stages": [{"type": "static", "load_steps": 4}],
        "output": {"directory": "out/catenary", "vtk": True},
    }


def catenary_json(n=CAT_N):
    text = json.dumps(catenary_scenario(n), indent=2)
    # one node per line keeps the file readable
    import re

    num = r"(-?[0-9.e+-]+)"
    text = re.sub(r"\[\s+" + num + r",\s+" + num + r",\s+" + num + r",\s+" + num + r"\s+\]", r"[\1, \2, \3, \4]", text)
    text = re.sub(r"\[\s+" + num + r",\s+" + num + r",\s+" + num + r"\s+\]", r"[\1, \2, \3]", text)
    text = re.sub(r"\[\s+(\"[a-z]+\"(?:,\s+\"[a-z]+\")*)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]",
                  text)
    return text + "\n"


def figure_catenary(out):
    import cosserat
    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "catenary.json")
    with open(path) as f:
        if f.read() != catenary_json():
            print(f"catenary: warning: {os.path.relpath(path, ROOT)} differs from the generator's output "
                  "(rewrite it with --write-catenary)")
    H = catenary_H(CAT_S, CAT_L0, CAT_W, CAT_EA)
    V0 = 0.5 * CAT_W * CAT_L0
    sag = (math.hypot(H, V0) - H) / CAT_W + CAT_W * CAT_L0 ** 2 / (8 * CAT_EA)
    ns = [8, 16, 32, 64, 128]
    e_sag, e_H, e_V, e_node, res = [], [], [], [], {}
    for n in ns:
        sc = path if n == CAT_N else catenary_scenario(n)
        r = cosserat.run(sc, check=True)
        res[n] = r
        f0 = next(x.force for x in r.reactions if x.node == 0)
        e_sag.append(abs(-r.positions[n // 2, 2] - sag) / sag)
        e_H.append(abs(abs(f0[0]) - H) / H)
        e_V.append(abs(f0[2] - V0) / V0)
        x, z = catenary_closed_form(CAT_L0 * np.arange(n + 1) / n, H)
        e_node.append(np.max(np.hypot(r.positions[:, 0] - x, r.positions[:, 2] - z)) / sag)
    p_sag, p_H, p_node = observed_order(ns, e_sag), observed_order(ns, e_H), observed_order(ns, e_node)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.4), layout="constrained",
                                   gridspec_kw={"width_ratios": [1.35, 1]})
    s = np.linspace(0, CAT_L0, 600)
    xs, zs = catenary_closed_form(s, H)
    ref = np.array(catenary_scenario(64)["rod"]["reference"]["positions"])
    ax1.plot(ref[:, 0], ref[:, 2], ":", color="0.5", lw=1.2, label="stress-free reference (inextensible catenary)")
    ax1.plot(xs, zs, "k-", lw=1.0, label="extensible closed form (Irvine)")
    for n, m, c in ((8, "o", "C3"), (32, "s", "C0")):
        p = res[n].positions
        ax1.plot(p[:, 0], p[:, 2], m, ms=4 if n == 8 else 3, mfc="none", color=c, label=f"nodes, n = {n}")
    ax1.plot([0, CAT_S], [0, 0], "k^", ms=9, label="pins")
    ax1.annotate("", xy=(0.5 * CAT_S, -sag), xytext=(0.5 * CAT_S, 0),
                 arrowprops=dict(arrowstyle="<->", color="0.3", lw=0.8))
    ax1.text(0.5 * CAT_S + 0.15, -0.5 * sag, f"sag {sag:.4f} m", fontsize=8, color="0.3")
    ax1.set_aspect("equal")
    ax1.set_xlabel("x [m]")
    ax1.set_ylabel("z [m]")
    ax1.set_ylim(-3.5, 0.5)
    ax1.set_title(f"Elastic cable between pins: S = {CAT_S:g} m, $L_0$ = {CAT_L0:g} m, "
                  f"w = {CAT_W:g} N/m, EA = {CAT_EA:g} N", fontsize=9)
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=7.5, loc="lower center", ncol=2)
    ax2.loglog(ns, e_sag, "o-", ms=9, mfc="none", label=f"midspan sag (order {p_sag:.2f})")
    ax2.loglog(ns, e_H, "s-", label=f"horizontal tension H (order {p_H:.2f})")
    ax2.loglog(ns, e_node, "d:", ms=4, label=rf"max node error $|\mathbf{{r}}_i - \mathbf{{r}}(s_i)|$/sag (order {p_node:.2f})")
    nref = np.array([ns[0], ns[-1]], float)
    ax2.loglog(nref, 2 * e_node[0] * (nref / ns[0]) ** -2.0, "k--", lw=1, label=r"$\propto n^{-2}$")
    ax2.set_xlabel("elements $n$")
    ax2.set_ylabel("relative error to the closed form [–]")
    ax2.set_xticks(ns)
    ax2.set_xticklabels([str(n) for n in ns])
    ax2.minorticks_off()
    ax2.set_title("Convergence to Irvine's closed form", fontsize=9)
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=7.5)
    savefig(fig, out, "supports_catenary.png")

    expect(1.9 < p_sag < 2.1 and 1.9 < p_H < 2.1, f"catenary: observed orders {p_sag:.2f}, {p_H:.2f} (want 2)")
    expect(e_sag[ns.index(64)] < 2e-3 and e_H[ns.index(64)] < 2e-3, "catenary: n = 64 within 2e-3 of Irvine")
    r = res[CAT_N]
    f0 = next(x.force for x in r.reactions if x.node == 0)
    f1 = next(x.force for x in r.reactions if x.node == CAT_N)
    errs = ", ".join(f"n={n}: {a:.2e}/{b:.2e}/{c:.2e}" for n, a, b, c in zip(ns, e_sag, e_H, e_node))
    print(f"catenary: closed form H {H:.5f} N, sag {sag:.6f} m, V0 {V0:.3f} N; n={CAT_N}: sag "
          f"{-r.positions[CAT_N // 2, 2]:.6f} m, H {abs(f0[0]):.5f} N, V {f0[2]:.5f} N at the start, {f1[2]:.5f} N at "
          f"the end, {r.load_steps} load steps, {r.total_newton_iterations} Newton iterations; relative errors "
          f"sag/H/max node {errs}; observed orders (n = 8..128) sag {p_sag:.2f}, H {p_H:.2f}, nodes {p_node:.2f}; "
          f"max |V - V0|/V0 {max(e_V):.1e}")


# --------------------------------------------------------------------------- Euler column

def agm_K_E(k):
    """Complete elliptic integrals K(k), E(k) (modulus k) by the arithmetic-geometric mean."""
    a, b, c2sum, p = 1.0, math.sqrt(1 - k * k), 0.5 * k * k, 0.5
    while abs(a - b) > 1e-15 * a:
        c = 0.5 * (a - b)
        a, b = 0.5 * (a + b), math.sqrt(a * b)
        p *= 2
        c2sum += p * c * c
    K = math.pi / (2 * a)
    return K, K * (1 - c2sum)


def elastica_pinned(k, L=1.0):
    """Pinned-pinned elastica with end slope alpha, k = sin(alpha/2): with sin(theta/2) = k sin(phi),
    L/2 = K(k)/lambda, lambda^2 = P/EI, so P/P_E = (2K/pi)^2; the midspan deflection is
    (2k/lambda) int_0^{pi/2} sin(phi) dphi = 2k/lambda = k L/K(k), and the chord between the ends
    L (2E(k)/K(k) - 1)."""
    K, E = agm_K_E(k)
    return (2 * K / math.pi) ** 2, k * L / K, L * (2 * E / K - 1)


def elastica_at(p_ratio):
    """k, delta/L, chord/L of the elastica at P/P_E = p_ratio > 1 (bisection; P grows with k)."""
    lo, hi = 0.0, 0.999999
    for _ in range(100):
        k = 0.5 * (lo + hi)
        if elastica_pinned(k)[0] > p_ratio:
            hi = k
        else:
            lo = k
    k = 0.5 * (lo + hi)
    return (k,) + elastica_pinned(k)[1:]


def beam_column_midspan(P, Q, L, EI):
    """Linear theory of a pinned-pinned beam-column with a lateral point load Q at midspan
    (Timoshenko & Gere, Theory of Elastic Stability, 1.3): delta = Q L^3/(48 EI) 3(tan u - u)/u^3,
    u = (L/2) sqrt(P/EI); 3(tan u - u)/u^3 ~ 1/(1 - P/P_E) within 1.5 % below P_E."""
    d0 = Q * L ** 3 / (48 * EI)
    u = 0.5 * L * np.sqrt(np.asarray(P, float) / EI)
    with np.errstate(invalid="ignore", divide="ignore"):
        chi = np.where(u < 1e-3, 1 + 0.4 * u ** 2, 3 * (np.tan(u) - u) / u ** 3)
    return d0 * chi


def figure_euler(out):
    import cosserat
    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "euler-column.json")
    sc = cosserat.load(path)
    rod, sec = sc["rod"], sc["rod"]["sections"][0]
    L, EI, GA, n = rod["length"], sec["EI_y"], sec["GA_z"], rod["elements"]
    Pe = math.pi ** 2 * EI / L ** 2
    Pcr = Pe / (1 + Pe / GA)  # Timoshenko's shear correction (1e-7 here)
    Q = sc["loads"][1]["value"][2]
    mid = n // 2
    assert sc["loads"][1]["node"] == mid
    ratios = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 1.0, 1.01, 1.02,
              1.03, 1.05, 1.075, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5, 1.6, 1.75, 1.9, 2.0, 2.2, 2.4]
    delta, chord, steps_total, wall = [], [], 0, 0.0
    for a in ratios:
        r = cosserat.run(path, {"loads.0.value": [-a * Pcr, 0, 0]}, check=True)
        delta.append(r.positions[mid, 2])
        chord.append(r.positions[-1, 0] - r.positions[0, 0])
        steps_total += r.load_steps
        wall += r.wall_time_s
    ratios, delta, chord = np.array(ratios), np.array(delta), np.array(chord)
    d0 = Q * L ** 3 / (48 * EI)
    lin = beam_column_midspan(ratios * Pcr, Q, L, EI)
    below = (ratios > 0) & (ratios < 1)
    above = ratios > 1
    el = np.array([elastica_at(a * Pcr / Pe) if a > 1 else (np.nan, np.nan, np.nan) for a in ratios])
    rel_lin = np.abs(delta[below] / lin[below] - 1)
    rel_el = np.abs(delta[above] / (el[above, 1] * L) - 1)
    rel_chord = np.abs((L - chord[above]) / (L - el[above, 2] * L) - 1)

    kk = np.linspace(1e-4, 0.97, 400)
    ela = np.array([elastica_pinned(k, L) for k in kk])
    pl = np.linspace(0, 0.995, 400)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.6), layout="constrained")
    ax1.plot(ela[:, 1] / L, ela[:, 0] * Pe / Pcr, "k-", lw=1.2, label=r"elastica: $P/P_E = (2K(k)/\pi)^2$, $\delta/L = k/K(k)$")
    ax1.plot([0, 0], [0, 1], "k-", lw=1.2)
    ax1.plot([0, 0], [1, 2.5], "--", color="0.5", lw=1.0, label="straight column (unstable above $P_{cr}$)")
    ax1.plot(beam_column_midspan(pl * Pcr, Q, L, EI) / L, pl, "C1--", lw=1.2,
             label="linear theory with the imperfection Q")
    ax1.plot(delta / L, ratios, "o", ms=4, mfc="none", color="C0", label=f"computed, n = {n} (400 load steps each)")
    ax1.axhline(1, color="0.5", lw=0.8, ls=":")
    ax1.set_xlabel(r"midspan deflection $\delta/L$ [–]")
    ax1.set_ylabel(r"load $P/P_{cr}$ [–]")
    ax1.set_xlim(-0.01, 0.45)
    ax1.set_ylim(0, 2.5)
    ax1.set_title(rf"Pinned–pinned column: $P_{{cr}} = \pi^2 EI/L^2$ = {Pcr:.3f} N (EI = {EI:g} N m², L = {L:g} m)",
                  fontsize=9)
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=7.5, loc="lower right")
    pos = ratios > 0
    ax2.semilogx(delta[pos] / L, ratios[pos], "o", ms=4, mfc="none", color="C0", label="computed")
    ax2.semilogx(beam_column_midspan(pl[1:] * Pcr, Q, L, EI) / L, pl[1:], "C1--", lw=1.2,
                 label=r"linear: $\delta_0\,3(\tan u - u)/u^3$, $u = \frac{L}{2}\sqrt{P/EI}$")
    ax2.semilogx(d0 / (1 - pl[1:]) / L, pl[1:], ":", color="C2", lw=1.2,
                 label=r"amplification $\delta_0/(1 - P/P_{cr})$")
    ax2.semilogx(ela[:, 1] / L, ela[:, 0] * Pe / Pcr, "k-", lw=1.2, label="elastica (perfect column)")
    ax2.axhline(1, color="0.5", lw=0.8, ls=":")
    ax2.set_xlabel(r"midspan deflection $\delta/L$ [–] (log scale)")
    ax2.set_ylabel(r"load $P/P_{cr}$ [–]")
    ax2.set_xlim(1e-4, 1)
    ax2.set_ylim(0, 2.5)
    ax2.set_title(rf"Imperfection Q = {Q:g} N at midspan: $\delta_0 = QL^3/48EI$ = {d0 / L:.2e} L", fontsize=9)
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=7.5, loc="upper left")
    savefig(fig, out, "supports_euler.png")

    def at(a):
        i = int(np.argmin(np.abs(ratios - a)))
        return delta[i] / L

    # the discrete column's own critical load: the amplification of a tiny midspan force at 0.8 P_cr,
    # inverted through the beam-column factor 3(tan u - u)/u^3 (which grows with u on (0, pi/2))
    tiny = {"loads.1.value": [0, 0, 1e-6]}
    amp = (cosserat.run(path, dict(tiny, **{"loads.0.value": [-0.8 * Pcr, 0, 0]}), check=True).positions[mid, 2]
           / cosserat.run(path, dict(tiny, **{"loads.0.value": [0, 0, 0]}), check=True).positions[mid, 2])
    lo, hi = 1e-6, 0.5 * math.pi - 1e-9
    for _ in range(200):
        u = 0.5 * (lo + hi)
        if 3 * (math.tan(u) - u) / u ** 3 > amp:
            hi = u
        else:
            lo = u
    EI_h = 0.8 * Pcr * (0.5 * L / u) ** 2  # u = (L/2) sqrt(0.8 P_cr/EI_h)
    Pcr_h = math.pi ** 2 * EI_h / L ** 2
    lin_h = beam_column_midspan(ratios * Pcr, Q, L, EI_h) * EI_h / EI  # delta_0 stays Q L^3/(48 EI)
    rel_lin_h = np.abs(delta[below] / lin_h[below] - 1)
    b09 = ratios[below] <= 0.9
    expect(rel_lin[b09].max() < 0.02, "euler: linear theory within 2 % up to 0.9 P_cr")
    expect(rel_el[ratios[above] >= 1.1].max() < 0.01, "euler: elastica within 1 % from 1.1 P_cr")
    expect(abs(Pcr_h / Pcr - 1) < 2e-3, "euler: the discrete P_cr within 2e-3 of Euler's")
    k9 = int(np.argmin(np.abs(ratios - 0.9)))
    amp9 = delta[k9] / delta[0]
    s_above = [f"{a:g}: {at(a):.4f} ({elastica_at(a * Pcr / Pe)[1]:.4f})" for a in (1.01, 1.05, 1.1, 1.5, 2.0, 2.4)]
    print(f"euler: P_E {Pe:.5f} N, P_cr {Pcr:.5f} N (n = {n}), delta0 {d0 / L:.3e} L (computed at P = 0: "
          f"{delta[0] / L:.3e} L); below P_cr computed/linear theory within {100 * rel_lin[b09].max():.2f} % up to "
          f"0.9 P_cr, {100 * rel_lin.max():.1f} % up to 0.99 (the discrete column's P_cr from a tiny force's "
          f"amplification is {Pcr_h / Pcr:.5f} P_cr; with it in the linear theory: within {100 * rel_lin_h[b09].max():.2f} "
          f"% and {100 * rel_lin_h.max():.1f} %) "
          f"(amplification at 0.9 P_cr {amp9:.2f}, linear theory {lin[k9] / d0:.2f}, 1/(1 - 0.9) = 10); "
          f"delta/L at P/P_cr {'; '.join(s_above)} (elastica in parentheses); above P_cr computed/elastica "
          f"deflection within {100 * rel_el.max():.1f} % (from 1.01), {100 * rel_el[ratios[above] >= 1.1].max():.2f} % "
          f"from 1.1 P_cr; end shortening within {100 * rel_chord[ratios[above] >= 1.1].max():.2f} % from 1.1 P_cr; "
          f"{len(ratios)} solves, {steps_total} load steps, {wall:.2f} s")


# --------------------------------------------------------------------------- Greenhill

def _det4(a):
    return np.linalg.det(np.array(a, complex))


def greenhill_det(M, T, EI, L):
    """Clamped-clamped determinant of the linearized lateral equilibrium EI w'''' - i M w''' - T w'' = 0
    (tests/test_supports.c): w = A + B s + C e^{l1 s} + D e^{l2 s}, l = (iM +- sqrt(4 EI T - M^2))/(2 EI);
    det e^{-iML/(2EI)} is purely imaginary once M^2 > 4 EI T, and its imaginary part changes sign at the
    critical torque."""
    if T == 0:
        lam = 1j * M / EI
        e = cmath.exp(lam * L)
        a = [[1, 0, 0, 1], [0, 1, 0, lam], [1, L, L * L, e], [0, 1, 2 * L, lam * e]]
    else:
        root = cmath.sqrt(4 * EI * T - M * M + 0j)
        l1, l2 = (1j * M + root) / (2 * EI), (1j * M - root) / (2 * EI)
        e1, e2 = cmath.exp(l1 * L), cmath.exp(l2 * L)
        a = [[1, 0, 1, 1], [0, 1, l1, l2], [1, L, e1, e2], [0, 1, l1 * e1, l2 * e2]]
    return (_det4(a) * cmath.exp(-1j * M * L / (2 * EI))).imag


def greenhill_critical_torque(T, EI, L):
    dM = 0.01 * EI / L
    M = 2 * math.sqrt(EI * T) + 5 * dM
    f = greenhill_det(M, T, EI, L)
    while M < 100 * EI / L:
        f2 = greenhill_det(M + dM, T, EI, L)
        if f * f2 <= 0:
            break
        M, f = M + dM, f2
    lo, hi, flo = M, M + dM, greenhill_det(M, T, EI, L)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        fm = greenhill_det(mid, T, EI, L)
        if fm * flo <= 0:
            hi = mid
        else:
            lo, flo = mid, fm
    return 0.5 * (lo + hi)


def greenhill_linear_response(M, T, EI, L, F, a, s_eval):
    """|w(s)| of the linearized rod (both ends clamped) under a lateral point force F at s = a:
    EI w'''' - i M w''' - T w'' = F delta(s - a), i.e. w, w', w'' continuous at a and
    EI [w'''] = F. |w| does not depend on the sign of M or on the phase of F."""
    root = np.sqrt(complex(4 * EI * T - M * M))
    lams = [(1j * M + root) / (2 * EI), (1j * M - root) / (2 * EI)]

    def basis(s, d):  # d-th derivative of (1, s, e^{l1 s}, e^{l2 s})
        poly = [1.0 if d == 0 else 0.0, s if d == 0 else (1.0 if d == 1 else 0.0)]
        return poly + [lam ** d * np.exp(lam * s) for lam in lams]

    A = np.zeros((8, 8), complex)
    b = np.zeros(8, complex)
    A[0, :4], A[1, :4] = basis(0.0, 0), basis(0.0, 1)
    A[2, 4:], A[3, 4:] = basis(L, 0), basis(L, 1)
    for d in range(4):
        A[4 + d, :4] = [-v for v in basis(a, d)]
        A[4 + d, 4:] = basis(a, d)
    b[7] = F / EI
    c = np.linalg.solve(A, b)
    s_eval = np.asarray(s_eval, float)
    w = np.empty(s_eval.shape, complex)
    for i, s in enumerate(s_eval):
        coef = c[:4] if s <= a else c[4:]
        w[i] = np.dot(coef, basis(s, 0))
    return np.abs(w)


def figure_greenhill(out, cli):
    import cosserat
    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "greenhill.json")
    sc = cosserat.load(path)
    rod, sec = sc["rod"], sc["rod"]["sections"][0]
    L, EI, GJ, n = rod["length"], sec["EI_y"], sec["GJ"], rod["elements"]
    T = sc["loads"][0]["value"][0]
    F = sc["loads"][1]["value"][1]
    a_node = sc["loads"][1]["node"]
    Mcr = greenhill_critical_torque(T, EI, L)
    phi_cr = Mcr * L / GJ
    ratios = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99]
    delta, twist, torque = [], [], []
    for a in ratios:
        r = cosserat.run(path, {"boundary_conditions.1.turns": a * phi_cr / (2 * math.pi)}, check=True)
        delta.append(np.max(np.hypot(r.positions[:, 1], r.positions[:, 2])))
        twist.append(twist_sum(r.quaternions))
        torque.append(next(x.moment_body for x in r.reactions if x.node == n)[0])
    ratios, delta, twist, torque = map(np.array, (ratios, delta, twist, torque))
    phi = ratios * phi_cr
    s_nodes = np.linspace(0, L, n + 1)
    a_s = s_nodes[a_node]
    lin = np.array([greenhill_linear_response(p * GJ / L, T, EI, L, F, a_s, s_nodes).max() for p in phi])
    # Southwell: delta - delta(0) = delta(0) (phi/phi_cr)/(1 - phi/phi_cr) makes (delta - delta0)/phi
    # linear in delta - delta0 with slope 1/phi_cr; fit the points from 0.8 phi_cr on
    add = delta - delta[0]
    sel = ratios >= 0.8
    slope, icpt = np.polyfit(add[sel], add[sel] / phi[sel], 1)
    phi_sw = 1 / slope
    i93, i97 = int(np.argmin(np.abs(ratios - 0.93))), int(np.argmin(np.abs(ratios - 0.97)))
    phi_2pt = (delta[i97] * phi[i97] - delta[i93] * phi[i93]) / (delta[i97] - delta[i93])  # as the test

    # the example as it stands (3 turns) through the CLI: the turns from nodes.csv
    with tempfile.TemporaryDirectory(prefix="cosserat-greenhill-") as tmp:
        subprocess.run([cli, "run", path, "-o", tmp, "--quiet"], check=True, stdout=subprocess.DEVNULL)
        out_cli = cosserat.read_output(tmp)
        qn = np.column_stack([out_cli.nodes[c] for c in ("p0", "p1", "p2", "p3")])
        cli_twist = twist_sum(qn)
        pn = np.column_stack([out_cli.nodes[c] for c in ("x", "y", "z")])
        cli_delta = np.max(np.hypot(pn[:, 1], pn[:, 2]))
    turns_asked = sc["boundary_conditions"][1]["turns"]

    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(14.0, 4.4), layout="constrained")
    pf = np.linspace(0, 0.995, 300) * phi_cr
    linf = np.array([greenhill_linear_response(p * GJ / L, T, EI, L, F, a_s, s_nodes).max() for p in pf])
    ax1.semilogy(pf / phi_cr, linf / L, "C1--", lw=1.2, label="linearized equations, same force")
    ax1.semilogy(pf / phi_cr, (delta[0] + icpt * pf / (1 - pf / phi_sw)) / L, ":", color="C2", lw=1.5,
                 label=r"Southwell fit: $\delta_0 + a\,\Phi/(1 - \Phi/\Phi_{cr}^{S})$")
    ax1.semilogy(ratios, delta / L, "o", ms=4, mfc="none", color="C0", label=f"computed, n = {n}")
    ax1.axvline(1, color="0.5", lw=0.8, ls=":")
    ax1.set_xlabel(r"imposed twist $\Phi/\Phi_{cr}$ [–]")
    ax1.set_ylabel(r"largest lateral deflection $\max\sqrt{y^2 + z^2}/L$ [–]")
    ax1.set_title(rf"Greenhill: $T L^2/EI$ = {T * L * L / EI:g}, $\Phi_{{cr}} = M_{{cr}} L/GJ$ = {phi_cr:.3f} rad "
                  f"({phi_cr / (2 * math.pi):.3f} turns)", fontsize=9)
    ax1.set_xlim(0, 1.05)
    ax1.set_ylim(1e-5, 3e-3)
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=7.5, loc="upper left")

    ax2.plot(1e4 * add[1:] / L, 1e5 * add[1:] / phi[1:] / L, "o", ms=4, mfc="none", color="C0", label="computed")
    xx = np.array([0, add.max() * 1.05])
    ax2.plot(1e4 * xx / L, 1e5 * (icpt + slope * xx) / L, "k-", lw=1,
             label=rf"fit from 0.8 $\Phi_{{cr}}$: slope $1/\Phi_{{cr}}^S$, $\Phi_{{cr}}^S$ = {phi_sw:.3f} rad")
    ax2.set_xlabel(r"$(\delta - \delta_0)/L$ [$10^{-4}$]")
    ax2.set_ylabel(r"$(\delta - \delta_0)/(L\,\Phi)$ [$10^{-5}$/rad]")
    ax2.set_title(f"Southwell plot: {phi_sw:.3f} rad against {phi_cr:.3f} rad "
                  f"({100 * (phi_sw / phi_cr - 1):+.2f} %)", fontsize=9)
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=7.5, loc="upper left")

    err = twist - phi
    nz = np.abs(err) > 0
    ax3.semilogy(phi[nz] / (2 * math.pi), np.abs(err[nz]), "o", ms=4, mfc="none", color="C0",
                 label=r"$|\Sigma - \Phi|$, $\Sigma = \sum_e 2\,\mathrm{atan2}(q_x, q_w)$ of $\bar q_e q_{e+1}$")
    ax3.semilogy([turns_asked], [abs(cli_twist - 2 * math.pi * turns_asked)], "x", color="C3", ms=9, mew=1.5,
                 label=f"examples/greenhill.json, CLI nodes.csv: Σ = {cli_twist / (2 * math.pi):.7f} turns")
    ax3.set_xlabel(r"imposed end rotation $\Phi$ [turns]")
    ax3.set_ylabel(r"$|\Sigma - \Phi|$ [rad]")
    ax3.set_title(rf"Turns kept: Σ = Φ within {np.abs(err).max():.1e} rad up to {phi[-1] / (2 * math.pi):.2f} turns",
                  fontsize=9)
    ax3.grid(True, which="both", alpha=0.3)
    ax3.legend(fontsize=7.5, loc="upper left")
    savefig(fig, out, "supports_greenhill.png")

    expect(abs(phi_sw / phi_cr - 1) < 0.01, "greenhill: Southwell estimate within 1 % of the linearized theory")
    expect(np.abs(err).max() < 1e-3 and abs(cli_twist - 2 * math.pi * turns_asked) < 1e-3, "greenhill: turns kept")
    expect(abs(delta[0] / lin[0] - 1) < 0.01, "greenhill: deflection at zero twist within 1 % of the linear theory")
    i0 = 0
    rel = np.abs(delta[1:] / lin[1:] - 1)
    b9 = ratios[1:] <= 0.9
    print(f"greenhill: M_cr L/EI {Mcr * L / EI:.4f} (T L^2/EI = {T * L * L / EI:g}; 8.9868 at T = 0: "
          f"{greenhill_critical_torque(0.0, EI, L) * L / EI:.4f}), Phi_cr {phi_cr:.4f} rad = "
          f"{phi_cr / (2 * math.pi):.4f} turns; deflection at Phi = 0 {delta[i0] / L:.3e} L (linear theory "
          f"{lin[i0] / L:.3e} L), at 0.97 Phi_cr {delta[i97] / L:.3e} L (x {delta[i97] / delta[0]:.1f}; linear theory "
          f"x {lin[i97] / lin[0]:.1f}, 1/(1 - 0.97) = 33.3), at 0.99 {delta[-1] / L:.3e} L (x "
          f"{delta[-1] / delta[0]:.1f}; linear x {lin[-1] / lin[0]:.1f}); computed/linear within {100 * rel[b9].max():.2f} % "
          f"up to 0.9, {100 * rel.max():.1f} % up to 0.99; Southwell Phi_cr {phi_sw:.4f} rad ({100 * (phi_sw / phi_cr - 1):+.2f} %), two-point "
          f"(0.93, 0.97) {phi_2pt:.4f} rad ({100 * (phi_2pt / phi_cr - 1):+.2f} %); twist kept: max |Sigma - Phi| "
          f"{np.abs(err).max():.1e} rad over {len(ratios)} twists (largest at the largest deflection: "
          f"{', '.join(f'{a:g}: {e:.1e}' for a, e in zip(ratios[-4:], err[-4:]))}); end torque / (GJ Phi/L) at 0.97: "
          f"{torque[i97] / (GJ * phi[i97] / L):.5f}; CLI examples/greenhill.json ({turns_asked:g} turns): twist "
          f"{cli_twist:.9f} rad = {cli_twist / (2 * math.pi):.9f} turns, deflection {cli_delta / L:.3e} L")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.write_catenary:
        with open(args.write_catenary, "w") as f:
            f.write(catenary_json())
        print(f"wrote {args.write_catenary}")
        return
    cli = setup(args.build)
    os.makedirs(args.out, exist_ok=True)
    if args.only in (None, "catenary"):
        figure_catenary(args.out)
    if args.only in (None, "euler"):
        figure_euler(args.out)
    if args.only in (None, "greenhill"):
        figure_greenhill(args.out, cli)
    if FAILED:
        sys.exit(f"figures_supports.py: {len(FAILED)} check(s) failed: {'; '.join(FAILED)}")


if __name__ == "__main__":
    main()
