#!/usr/bin/env python3
"""Figures of the assembly examples (docs/examples.md "Assemblies").

    /usr/bin/python3 scripts/figures_assemblies.py --build build --out docs/figures

Writes into --out:

    assembly_arch.png   three-hinged arch (examples/three-hinged-arch.json): shapes at three
                        stiffnesses, and the reactions' and hinge force's distance from the
                        equilibrium of the deformed arch over E = 2e9 ... 2e11 Pa
    assembly_ring.png   welded ring under two opposite forces (examples/ring.json): shapes at
                        three loads, and the errors of the two diameters and of the moment at the
                        load against thin-ring theory vs n = 8 ... 128 with n^-2
    assembly_ring_closing.png
                        a semicircle closed into a ring by a hinge's gap and drive
                        (examples/ring-closing.json): the shapes at the load steps, and the errors
                        of the curvature and moment against the closed ring vs n = 8 ... 128 with n^-2
    assembly_parallel_robot.png
                        parallel continuum robot (examples/parallel-robot.json): three legs welded
                        to a free platform, reference and deformed under the file's loads; and
                        the platform's sink under a central axial load P against (P/3) L/EA
    assembly_double_pendulum.png
                        double pendulum of two stiff rods joined by a hinge
                        (examples/double-pendulum.json, a dynamic stage): the paths of the elbow
                        and the tip against the rigid double pendulum of two uniform bars
                        (integrated here by RK4), the angles vs t, and the angles' difference
                        and the energy balance energy_total - work_external vs t

    ph_assembly_double_pendulum.png
                        double pendulum of port-Hamiltonian rods (examples/ph-double-pendulum.json,
                        2 s at h = 1e-3 s): the tip path against the rigid double pendulum (SciPy
                        DOP853 at 1e-12) and the mixed rod at 8 elements per bar; the tip's distance
                        to the port-Hamiltonian one of the rigid bars and of the mixed rod at 8 and
                        32 elements per bar; every step's energy balance against the kinetic energy
                        and the mixed rod's |E - W|
and prints the measured numbers (the ones docs/examples.md quotes). Every solve goes through the
Python package (cosserat.run with overrides) on BUILD/libcosserat.so. Exits with 1 when a number
leaves its tolerance.
"""

import argparse
import math
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figlib import savefig, setup  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples")
FAILED = []


def expect(cond, what):
    if not cond:
        FAILED.append(what)
        print(f"FAILED: {what}")


def arch_equilibrium(r, P):
    """The reactions at A, B and the hinge force on the left rod from the deformed geometry: the
    unloaded right rod is a two-force member (R_B along C - B), moments about A fix its size."""
    left, right = r.rods["left"], r.rods["right"]
    A, C, B, L = left.positions[0], left.positions[-1], right.positions[-1], left.positions[10]
    F = np.array([0.0, 0.0, -P])
    cy = lambda a, f: a[2] * f[0] - a[0] * f[2]
    k = -cy(L - A, F) / cy(B - A, C - B)
    RB = k * (C - B)
    return -F - RB, RB, RB


def arch(out):
    import cosserat
    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "three-hinged-arch.json")
    P = 20000.0
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(11.5, 4.6), gridspec_kw={"width_ratios": [1.25, 1]})
    # below about E = 3e10 Pa the arch snaps through (its crown ends below the springings)
    Es = [4e10, 6e10, 1e11, 2e11, 5e11, 1e12, 1e13]
    errs, moments = [], []
    for E in Es:
        # Newton to its round-off floor: the reactions are the equilibrium's up to the residual
        sets = [f"rods.{i}.material.{k}={v:g}" for i in (0, 1) for k, v in (("E", E), ("G", 0.4 * E))]
        sets += ["stages.0.rtol=1e-14", "stages.0.atol=1e-13"]
        r = cosserat.run(path, overrides=sets)
        expect(r.converged, f"arch at E = {E:g} converged")
        RA, RB, RC = arch_equilibrium(r, P)
        got = {x.node: x.force for x in r.reactions}
        e = max(np.max(np.abs(got[0] - RA)), np.max(np.abs(got[r.rod_first_node[2] - 1] - RB)),
                np.max(np.abs(r.joints[0].force - RC))) / P
        errs.append(e)
        moments.append(np.max(np.abs(r.joints[0].moment)) / (P * 1.25))
        if E in (2e11, 6e10, 4e10):
            for name, rod in r.rods.items():
                lab = f"E = {E:.3g} Pa" if name == "left" else None
                a0.plot(rod.positions[:, 0], rod.positions[:, 2], lw=2.0, label=lab,
                        color={2e11: "crimson", 6e10: "tab:orange", 4e10: "tab:blue"}[E])
        print(f"arch E = {E:.3g} Pa: crown z {r.rods['left'].positions[-1][2]:.5f} m, reactions and hinge "
              f"force vs the deformed arch's equilibrium {e:.1e} P, hinge moment {moments[-1]:.1e} P L")
    expect(max(errs) < 1e-9, "arch reactions = equilibrium to 1e-9 P")
    # reference shape, supports, hinge, load
    a0.plot([0, 1, 2], [0, 0.75, 0], color="0.5", ls="--", lw=1.0, label="reference")
    a0.plot([0, 2], [0, 0], "^", color="black", ms=10, label="supports (turn about y)")
    a0.plot([1], [0.75], "o", mfc="white", mec="black", ms=8, label="hinge (crown)")
    a0.annotate("P", xy=(0.5, 0.375), xytext=(0.5, 0.62), ha="center",
                arrowprops=dict(arrowstyle="-|>", color="black", lw=1.5))
    a0.set_aspect("equal")
    a0.set_xlabel("x (m)")
    a0.set_ylabel("z (m)")
    a0.set_title("three-hinged arch, P = 20 kN at the left rod's middle", fontsize=10)
    a0.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=3)
    a1.loglog(Es, np.maximum(errs, 1e-17), "o-", label="reactions A, B and hinge force vs equilibrium (/P)")
    a1.loglog(Es, np.maximum(moments, 1e-17), "s--", label="hinge moment (/P L)")
    a1.set_ylim(1e-17, 1e-6)
    a1.set_xlabel("Young's modulus E (Pa)")
    a1.set_ylabel("relative error")
    a1.set_title("statically determinate: exact whatever the stiffness\n(0 drawn as 1e-17)", fontsize=10)
    a1.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, out, "assembly_arch.png")


def ring_overrides(n, P):
    q, h, t = n // 4, n // 2, 3 * n // 4
    return [f"rods.0.elements={n}", f"boundary_conditions.0.node=ring:{q}", f"boundary_conditions.1.node=ring:{t}",
            f"loads.1.node=ring:{h}", f"loads.0.value=[0,{P:g},0]", f"loads.1.value=[0,{-P:g},0]",
            f"output.track.1.node=ring:{h}", f"output.track.2.node=ring:{q}", f"output.track.3.node=ring:{t}"]


def ring(out):
    import cosserat
    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "ring.json")
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(11.5, 4.8))
    th = np.linspace(0, 2 * np.pi, 200)
    a0.plot(np.cos(th), np.sin(th), color="0.5", ls="--", lw=1.0, label="reference")
    for P, c in ((0.5, "tab:blue"), (1.5, "crimson"), (3.0, "tab:orange")):
        r = cosserat.run(path, overrides=[f"loads.0.value=[0,{P:g},0]", f"loads.1.value=[0,{-P:g},0]",
                                          "stages.0.load_steps=8"])
        expect(r.converged, f"ring at P = {P:g} converged")
        x = r.positions.copy()
        x[:, 0] -= 0.5 * (x[16, 0] + x[48, 0])  # centred (the supports let the ring slide along x)
        a0.plot(np.append(x[:, 0], x[0, 0]), np.append(x[:, 1], x[0, 1]), color=c, lw=2.0,
                label=f"P R²/EI = {P:g}" + (" (ring.json)" if P == 1.5 else ""))
    a0.annotate("", xy=(0, 1.65), xytext=(0, 1.2), arrowprops=dict(arrowstyle="-|>", color="black", lw=1.5))
    a0.annotate("", xy=(0, -1.65), xytext=(0, -1.2), arrowprops=dict(arrowstyle="-|>", color="black", lw=1.5))
    a0.text(0.08, 1.4, "P", fontsize=11)
    a0.text(0.08, -1.5, "P", fontsize=11)
    a0.set_xlim(-1.8, 1.8)
    a0.set_ylim(-1.8, 1.8)
    a0.set_aspect("equal")
    a0.set_xlabel("x (m)")
    a0.set_ylabel("y (m)")
    a0.set_title("welded ring (R = 1 m, EI = 1 N m²) pulled apart (drawn centred)", fontsize=10)
    a0.legend(fontsize=8, loc="center")
    P, R, EI = 1e-5, 1.0, 1.0
    along, across, M = (math.pi / 4 - 2 / math.pi) * P * R**3 / EI, -(2 / math.pi - 0.5) * P * R**3 / EI, P * R / math.pi
    ns = [8, 16, 32, 64, 128]
    e = []
    for n in ns:
        r = cosserat.run(path, overrides=ring_overrides(n, P))
        x = r.positions
        da = x[0, 1] - x[n // 2, 1] - 2 * R
        dc = x[3 * n // 4, 0] - x[n // 4, 0] - 2 * R
        m = abs(r.joints[0].moment[2])
        e.append((abs(da / along - 1), abs(dc / across - 1), abs(m / M - 1)))
        print(f"ring n = {n}: dD along {da / (P * R**3 / EI):.6f} P R^3/EI (theory {along / P:.6f}), across "
              f"{dc / (P * R**3 / EI):.6f} (theory {across / P:.6f}), moment at the load {m / (P * R):.6f} P R "
              f"(theory {1 / math.pi:.6f}): errors {e[-1][0]:.2e}, {e[-1][1]:.2e}, {e[-1][2]:.2e}")
    e = np.array(e)
    expect(e[-1, 0] < 2e-3 and e[-1, 1] < 2e-3, "ring diameters to 2e-3 at n = 128")
    for k, lab in enumerate(("ΔD along the load", "ΔD across", "moment at the load (P R/π)")):
        a1.loglog(ns, e[:, k], "o-", label=lab)
    a1.loglog(ns, e[0, 0] * (np.array(ns) / ns[0]) ** -2.0, "k:", label="n⁻²")
    a1.set_xlabel("elements n")
    a1.set_ylabel("relative error vs thin-ring theory")
    a1.set_title("P R²/EI = 1e-5: (π/4 − 2/π), −(2/π − 1/2) P R³/EI, P R/π", fontsize=10)
    a1.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, out, "assembly_ring.png")


def ring_closing(out):
    import cosserat
    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "ring-closing.json")
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(11.5, 4.8))
    shapes = []
    r = cosserat.run(path, on_step=lambda st: shapes.append((st.load_factor, st.positions.copy())))
    expect(r.converged, "ring-closing converged")
    th = np.linspace(0, np.pi, 100)
    a0.plot(-np.sin(th), np.cos(th), color="0.5", ls="--", lw=1.0, label="reference (λ = 0): a semicircle")
    cmap = plt.get_cmap("viridis")
    for lf, x in shapes:
        a0.plot(x[:, 0], x[:, 1], color=cmap(lf), lw=2.0 if lf == 1.0 else 1.0)
        a0.plot([x[0, 0], x[-1, 0]], [x[0, 1], x[-1, 1]], "o", color=cmap(lf), ms=3)
    a0.plot([], [], color=cmap(1.0), lw=2.0, label="load steps λ = 1/8 ... 1 (colour)")
    a0.plot(-0.5 + 0.5 * np.cos(2 * th), 0.5 * np.sin(2 * th), "k:", lw=1.0, label="circle of radius L/(2π)")
    a0.plot([r.positions[16, 0]], [r.positions[16, 1]], "ks", ms=6, label="clamped node")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, 1))
    fig.colorbar(sm, ax=a0, label="load factor λ")
    a0.set_aspect("equal")
    a0.set_xlabel("x (m)")
    a0.set_ylabel("y (m)")
    a0.set_title("the ends' gap held at (1 − λ) of the reference's, drive π λ", fontsize=10)
    a0.set_xlim(-1.15, 1.75)
    a0.legend(fontsize=8, loc="center right")
    ns = [8, 16, 32, 64, 128]
    e = []
    for n in ns:
        rn = cosserat.run(path, overrides=[f"rods.0.elements={n}", f"boundary_conditions.0.node=ring:{n // 2}",
                                           "output.track=[]"])
        expect(rn.converged, f"ring-closing n = {n} converged")
        k = np.array(rn.kappa)[:, 2]
        m = np.array(rn.m)[:, 2]
        e.append((np.max(np.abs(k - 2.0)) / 2.0, np.max(np.abs(m - 1.0))))
        print(f"ring-closing n = {n}: curvature error {e[-1][0]:.3e} (of 2 1/m), moment error {e[-1][1]:.3e} "
              f"(of 1 N m)")
    e = np.array(e)
    expect(e[2, 1] < 2e-3, "ring-closing moment to 2e-3 at n = 32")
    a1.loglog(ns, e[:, 0], "o-", label="curvature (of 2π/L)")
    a1.loglog(ns, e[:, 1], "s-", label="moment (of EI π/L)")
    a1.loglog(ns, e[0, 1] * (np.array(ns) / ns[0]) ** -2.0, "k:", label="n⁻²")
    a1.set_xlabel("elements n")
    a1.set_ylabel("largest relative error vs the closed ring")
    a1.set_title("closed ring: curvature 2π/L, moment EI (2π/L − π/L)", fontsize=10)
    a1.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, out, "assembly_ring_closing.png")


def rigid_double_pendulum(m, L, I, g, x0, times, h=2e-4):
    """Angles (from the downward vertical) of two uniform bars (mass m, length L, inertia I about
    the centre), the first pinned at its top end: Lagrange's equations, classical RK4."""

    def rhs(x):
        c, s, mL2 = math.cos(x[0] - x[1]), math.sin(x[0] - x[1]), m * L * L
        M11, M12, M22 = mL2 / 4 + I + mL2, mL2 / 2 * c, mL2 / 4 + I
        f1 = -mL2 / 2 * s * x[3] ** 2 - 1.5 * m * g * L * math.sin(x[0])
        f2 = mL2 / 2 * s * x[2] ** 2 - 0.5 * m * g * L * math.sin(x[1])
        det = M11 * M22 - M12 * M12
        return np.array([x[2], x[3], (M22 * f1 - M12 * f2) / det, (M11 * f2 - M12 * f1) / det])

    x, t, out = np.array(x0, dtype=float), times[0], []
    for tk in times:
        k = max(1, int(math.ceil((tk - t) / h - 1e-9)))
        hh = (tk - t) / k
        for _ in range(k if tk > t else 0):
            k1 = rhs(x)
            k2 = rhs(x + 0.5 * hh * k1)
            k3 = rhs(x + 0.5 * hh * k2)
            k4 = rhs(x + hh * k3)
            x = x + hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = tk
        out.append(x[:2].copy())
    return np.array(out)


def double_pendulum(out):
    import cosserat
    import matplotlib.pyplot as plt

    r = cosserat.run(os.path.join(EXAMPLES, "double-pendulum.json"), overrides=["output.vtk=false"])
    expect(r.converged, "double pendulum ran")
    s = r.series
    t = s["t"]
    # the rigid bars with the rods' lumped inertia: m L^2/12 (1 + 2/n^2) from the nodes' masses,
    # plus the sections' rotary inertia rho I L (circle of radius 2 cm, steel)
    L, n, rad, rho, g = 0.5, 8, 0.02, 7800.0, 9.81
    m = rho * math.pi * rad**2 * L
    I = m * L**2 / 12 * (1 + 2.0 / n**2) + rho * math.pi * rad**4 / 4 * L
    th = rigid_double_pendulum(m, L, I, g, [math.pi / 2, math.pi / 2, 0, 0], t)
    a1 = np.arctan2(s["elbow_x"], -s["elbow_z"])
    a2 = np.arctan2(s["tip_x"] - s["elbow_x"], -(s["tip_z"] - s["elbow_z"]))
    d1 = np.abs(np.remainder(a1 - th[:, 0] + np.pi, 2 * np.pi) - np.pi)
    d2 = np.abs(np.remainder(a2 - th[:, 1] + np.pi, 2 * np.pi) - np.pi)
    bal = s["energy_total"] - s["work_external"]
    dE = np.abs(bal - bal[0]) / (2 * m * g * L)
    print(f"double pendulum: {len(t)} rows to t = {t[-1]:g} s; angles vs the rigid double pendulum: "
          f"{max(d1.max(), d2.max()):.2e} rad (at t <= 1.5 s: {max(d1[t <= 1.5].max(), d2[t <= 1.5].max()):.2e}); "
          f"energy balance {dE.max():.1e} of 2 m g L = {2 * m * g * L:.3f} J; hinge force at the end "
          f"{np.linalg.norm(r.joints[0].force):.3f} N")
    expect(max(d1.max(), d2.max()) < 2e-3, "double pendulum angles to 2e-3 rad")
    expect(dE.max() < 1e-5, "double pendulum energy to 1e-5 of 2 m g L")

    fig, ax = plt.subplots(1, 3, figsize=(14, 4.6), gridspec_kw={"width_ratios": [1.1, 1, 1]})
    ex, ez = L * np.sin(th[:, 0]), -L * np.cos(th[:, 0])
    tx, tz = ex + L * np.sin(th[:, 1]), ez - L * np.cos(th[:, 1])
    ax[0].plot(s["tip_x"], s["tip_z"], color="crimson", lw=1.4, label="tip (rods)")
    ax[0].plot(tx, tz, color="black", ls=":", lw=1.2, label="tip (rigid bars, RK4)")
    ax[0].plot(s["elbow_x"], s["elbow_z"], color="tab:blue", lw=1.4, label="elbow (rods)")
    for k in (0, 50, 100):  # the rods at t = 0, 0.5, 1 s (their end nodes)
        ax[0].plot([0, s["elbow_x"][k], s["tip_x"][k]], [0, s["elbow_z"][k], s["tip_z"][k]], "o-", color="0.4",
                   lw=2.5, ms=4)
        ax[0].annotate(f"t = {t[k]:.1f} s", (s["tip_x"][k], s["tip_z"][k]), textcoords="offset points",
                       xytext=(4, 6), fontsize=8)
    ax[0].plot([0], [0], "^", color="black", ms=10)
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("x (m)")
    ax[0].set_ylabel("z (m)")
    ax[0].set_title("paths over 3 s (released at rest, horizontal)", fontsize=10)
    ax[0].legend(fontsize=8, loc="lower left")
    ax[1].plot(t, np.unwrap(a1), color="tab:blue", lw=1.6, label="θ₁ upper rod")
    ax[1].plot(t, np.unwrap(a2), color="crimson", lw=1.6, label="θ₂ lower rod")
    ax[1].plot(t, np.unwrap(th[:, 0]), "k:", lw=1.2, label="rigid bars (RK4)")
    ax[1].plot(t, np.unwrap(th[:, 1]), "k:", lw=1.2)
    ax[1].set_xlabel("t (s)")
    ax[1].set_ylabel("angle from the downward vertical (rad)")
    ax[1].set_title("angles", fontsize=10)
    ax[1].legend(fontsize=8)
    ax[2].semilogy(t[1:], np.maximum(d1[1:], 1e-12), color="tab:blue", label="|θ₁ − θ₁,rigid| (rad)")
    ax[2].semilogy(t[1:], np.maximum(d2[1:], 1e-12), color="crimson", label="|θ₂ − θ₂,rigid| (rad)")
    ax[2].semilogy(t[1:], np.maximum(dE[1:], 1e-12), color="0.4", ls="--",
                   label="|ΔE − W| / (2 m g L) (energy balance)")
    ax[2].set_xlabel("t (s)")
    ax[2].set_ylabel("difference (rad; relative for the energy)")
    ax[2].set_title("steel rods, EI = 2.5e4 N m², 8 elements each; rtol 1e-8", fontsize=10)
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, out, "assembly_double_pendulum.png")


def _cli_run(build, path, sets, out_dir):
    import json
    import subprocess

    cmd = [os.path.join(build, "cosserat"), "run", path, "-o", out_dir]
    for x in sets:
        cmd += ["--set", x]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out_dir, "summary.json")) as f:
        summ = json.load(f)
    rows = np.genfromtxt(os.path.join(out_dir, "nodes.csv"), delimiter=",", names=True, dtype=None, encoding="utf-8")
    return summ, rows


def parallel_robot(out, build):
    import tempfile

    import matplotlib.pyplot as plt

    path = os.path.join(EXAMPLES, "parallel-robot.json")
    with open(path) as f:
        import json

        sc = json.load(f)
    L, r = sc["rods"][0]["length"], sc["rods"][0]["sections"][0]["radius"]
    EA = sc["rods"][0]["material"]["E"] * math.pi * r * r
    fig = plt.figure(figsize=(11.5, 4.8))
    a0 = fig.add_subplot(1, 2, 1, projection="3d")
    a1 = fig.add_subplot(1, 2, 2)
    with tempfile.TemporaryDirectory() as tmp:
        summ, rows = _cli_run(build, path, [], tmp)
        expect(summ["converged"], "parallel robot converged")
        tops = []
        for k, rd in enumerate(sc["rods"]):
            x = np.array([[q["x"], q["y"], q["z"]] for q in rows if q["rod"] == rd["name"]])
            o = np.array(rd["reference"]["origin"])
            a0.plot([o[0], o[0]], [o[1], o[1]], [0, L], color="0.5", ls="--", lw=1.0,
                    label="reference" if k == 0 else None)
            a0.plot(x[:, 0], x[:, 1], x[:, 2], color="crimson", lw=2.0, label="legs (loaded)" if k == 0 else None)
            tops.append(x[-1])
        tops.append(tops[0])
        tops = np.array(tops)
        a0.plot(tops[:, 0], tops[:, 1], tops[:, 2], color="black", lw=1.5, label="platform (free body)")
        b = summ["bodies"][0]["center"]
        a0.plot([b[0]], [b[1]], [b[2]], "ks", ms=6)
        print(f"parallel robot: platform centre ({b[0]:.5f}, {b[1]:.5f}, {b[2]:.5f}) m under the file's loads")
        a0.set_xlabel("x (m)")
        a0.set_ylabel("y (m)")
        a0.set_zlabel("z (m)")
        a0.set_xlim(-0.1, 0.1)
        a0.set_ylim(-0.1, 0.1)
        a0.set_zlim(0, 0.4)
        a0.set_title("three nitinol legs welded to a free platform:\ngravity, (0.4, 0.2, −0.5) N and 0.02 N m on it",
                     fontsize=10)
        a0.legend(fontsize=8, loc="upper left")
        Ps, sinks = [0.5, 1, 2, 4, 8], []
        for P in Ps:
            sets = ["loads.0.value=[0,0,0]", f"loads.1.value=[0,0,{-P}]", "loads.2.value=[0,0,0]"]
            summ, rows = _cli_run(build, path, sets, tmp)
            sinks.append(L - summ["bodies"][0]["center"][2])
        ref = np.array(Ps) / 3 * L / EA
        err = np.max(np.abs(np.array(sinks) - ref) / ref)
        print(f"parallel robot: axial sink vs (P/3) L/EA, largest relative difference {err:.1e}")
        expect(err < 1e-9, "parallel robot axial sink = (P/3) L/EA to 1e-9")
    a1.loglog(Ps, np.array(sinks) * 1e6, "o", ms=8, label="platform sink (cosserat)")
    a1.loglog(Ps, ref * 1e6, "k-", lw=1.0, label="(P/3) L / EA")
    a1.set_xlabel("central axial load P (N)")
    a1.set_ylabel("sink of the platform (µm)")
    a1.set_title(f"each leg carries P/3: exact (largest difference {err:.0e})", fontsize=10)
    a1.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, out, "assembly_parallel_robot.png")


def _series(out_dir):
    import csv

    with open(os.path.join(out_dir, "series.csv")) as f:
        rows = list(csv.reader(f))
    return {k: np.array([float(r[i]) for r in rows[1:]]) for i, k in enumerate(rows[0])}


def ph_double_pendulum(out, build):
    """The port-Hamiltonian double pendulum against the rigid bars and the mixed rod."""
    import tempfile

    import matplotlib.pyplot as plt
    from scipy.integrate import solve_ivp

    path = os.path.join(EXAMPLES, "ph-double-pendulum.json")
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        mixed = ["model=mixed_discrete",
                 'stages=[{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]',
                 "output.vtk=false"]
        for name, sets in (("ph", ["output.vtk=false"]),
                           ("mixed8", mixed),
                           ("mixed32", mixed + ["rods.1.elements=32", "rods.2.elements=32"])):
            d = os.path.join(tmp, name)
            summ, _ = _cli_run(build, path, sets, d)
            expect(summ["converged"], f"ph double pendulum: {name} ran")
            runs[name] = _series(d)
    s = runs["ph"]
    t = s["t"]
    # the rigid bars with the exact inertia (the port-Hamiltonian rod's quadratic elements integrate
    # it): m L^2/12 plus the sections' rotary inertia
    L, r, rho, g = 0.5, 0.02, 7800.0, 9.81
    m = rho * math.pi * r**2 * L
    I = m * L**2 / 12 + rho * math.pi * r**4 / 4 * L

    def rhs(_t, x):
        c, sn, mL2 = math.cos(x[0] - x[1]), math.sin(x[0] - x[1]), m * L * L
        M11, M12, M22 = mL2 / 4 + I + mL2, mL2 / 2 * c, mL2 / 4 + I
        f1 = -mL2 / 2 * sn * x[3] ** 2 - 1.5 * m * g * L * math.sin(x[0])
        f2 = mL2 / 2 * sn * x[2] ** 2 - 0.5 * m * g * L * math.sin(x[1])
        det = M11 * M22 - M12 * M12
        return [x[2], x[3], (M22 * f1 - M12 * f2) / det, (M11 * f2 - M12 * f1) / det]

    sol = solve_ivp(rhs, (0, t[-1]), [math.pi / 2, math.pi / 2, 0, 0], t_eval=t, rtol=1e-12, atol=1e-12,
                    method="DOP853")
    rx = L * np.sin(sol.y[0]) + L * np.sin(sol.y[1])
    rz = -L * np.cos(sol.y[0]) - L * np.cos(sol.y[1])
    dist = lambda x, z: np.hypot(x - s["tip_x"], z - s["tip_z"])
    d_rigid = dist(rx, rz)
    d8 = dist(runs["mixed8"]["tip_x"], runs["mixed8"]["tip_z"])
    d32 = dist(runs["mixed32"]["tip_x"], runs["mixed32"]["tip_z"])
    bal = np.abs(s["energy_balance"])
    m8 = runs["mixed8"]
    ew8 = np.abs(m8["energy_total"] - m8["work_external"] - (m8["energy_total"][0] - m8["work_external"][0]))
    print(f"ph double pendulum: tip within {d_rigid.max():.1e} m of the rigid double pendulum over {t[-1]:g} s; "
          f"mixed rod {d8.max():.1e} m (n = 8), {d32.max():.1e} m (n = 32); every step's balance within "
          f"{bal.max():.1e} J, kinetic energy up to {s['energy_kinetic'].max():.1f} J")
    expect(d_rigid.max() < 1e-3, "ph double pendulum tip within 1e-3 m of the rigid bars")
    expect(bal.max() < 1e-10, "ph double pendulum balance within 1e-10 J")
    expect(d8.max() / d32.max() > 8, "mixed rod's lumped inertia error falls with n")

    fig, ax = plt.subplots(1, 3, figsize=(14, 4.4))
    ax[0].plot(rx, rz, color="0.6", lw=3, label="rigid bars (SciPy)")
    ax[0].plot(s["tip_x"], s["tip_z"], color="tab:blue", lw=1.4, label="port-Hamiltonian, n = 8")
    ax[0].plot(m8["tip_x"], m8["tip_z"], color="tab:orange", ls="--", lw=1.0, label="mixed rod, n = 8")
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("x (m)")
    ax[0].set_ylabel("z (m)")
    ax[0].set_title(f"tip path, 0–{t[-1]:g} s (released at rest, horizontal;\nn elements per bar)", fontsize=10)
    ax[0].legend(fontsize=8, loc="center", bbox_to_anchor=(0.5, 0.55))
    ax[1].semilogy(t[1:], d_rigid[1:], color="black", label="rigid bars (exact inertia)")
    ax[1].semilogy(t[1:], d8[1:], color="tab:orange", label="mixed rod, n = 8")
    ax[1].semilogy(t[1:], d32[1:], color="tab:green", label="mixed rod, n = 32")
    ax[1].set_xlabel("t (s)")
    ax[1].set_ylabel("distance to the port-Hamiltonian tip (m)")
    ax[1].set_title("differences (mixed: lumped inertia, 1/n²)", fontsize=10)
    ax[1].legend(fontsize=8)
    ax[2].semilogy(t[1:], np.maximum(bal[1:], 1e-17), ".", ms=3, color="tab:blue",
                   label="port-Hamiltonian: |last step's balance| (J)")
    ax[2].semilogy(t[1:], s["energy_kinetic"][1:], color="tab:red", label="kinetic energy (J)")
    ax[2].semilogy(m8["t"][1:], np.maximum(ew8[1:], 1e-17), color="tab:orange", lw=1.0,
                   label="mixed rod, n = 8: |ΔE − W| (J)")
    ax[2].set_xlabel("t (s)")
    ax[2].set_ylabel("energy (J)")
    ax[2].set_title("energy balance (h = 1e-3 s; mixed: rtol 1e-8)", fontsize=10)
    ax[2].set_ylim(1e-17, 1e3)
    ax[2].legend(fontsize=8, loc="center", bbox_to_anchor=(0.5, 0.44))
    fig.tight_layout()
    savefig(fig, out, "ph_assembly_double_pendulum.png")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=os.path.join("docs", "figures"))
    a = p.parse_args(argv)
    setup(a.build, "figures_assemblies.py")
    os.makedirs(a.out, exist_ok=True)
    arch(a.out)
    ring(a.out)
    ring_closing(a.out)
    double_pendulum(a.out)
    parallel_robot(a.out, a.build)
    ph_double_pendulum(a.out, a.build)
    if FAILED:
        print("figures_assemblies.py: out of tolerance: " + "; ".join(FAILED))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
