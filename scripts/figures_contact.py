#!/usr/bin/env python3
"""Figure of the contact example (docs/examples.md "Contact with obstacles"):
examples/tentacle-on-cylinder.json through the CLI.

    /usr/bin/python3 scripts/figures_contact.py --build build --out docs/figures

Writes contact_tentacle.png: the tentacle draped over the drum by its weight (stage 0) and
wrapped further by the tip pull (stage 1), with the contact force on every node (arrows,
sliding nodes in red); and contact_cable.png: examples/cable-on-ground.json, a cord on rough
ground dragged by a ramped end force (dynamics): the force, the cord's momentum against
(F - mu_k m g) once it slides, and the sliding nodes; and contact_pulley.png:
examples/rope-over-pulley.json, a rope over a rough pulley holding, then sliding at the
Euler-Eytelwein acceleration. Prints the measured numbers
docs/examples.md quotes.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figlib import savefig, setup  # noqa: E402


def run(cli, tmp, name, overrides):
    out = os.path.join(tmp, name)
    cmd = [cli, "run", os.path.join(ROOT, "examples", "tentacle-on-cylinder.json"), "-o", out]
    for o in overrides:
        cmd += ["--set", o]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "nodes.csv")) as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return rows, summary


def cable(cli, out):
    import matplotlib.pyplot as plt

    with open(os.path.join(ROOT, "examples", "cable-on-ground.json")) as f:
        sc = json.load(f)
    r = sc["rod"]
    m = r["material"]["rho"] * math.pi * r["sections"][0]["radius"] ** 2 * r["length"]
    g = 9.81
    fr = sc["obstacles"][0]["friction"]
    F1, t1 = sc["loads"][1]["value"][0], sc["loads"][1]["time"]["t1"]
    with tempfile.TemporaryDirectory() as tmp:
        o = os.path.join(tmp, "cable")
        subprocess.run([cli, "run", os.path.join(ROOT, "examples", "cable-on-ground.json"), "-o", o], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(o, "series.csv")) as f:
            rows = [{k: float(v) for k, v in x.items()} for x in csv.DictReader(f)]
    t = [x["t"] for x in rows]
    F = [F1 * min(1.0, ti / t1) for ti in t]
    P = [x["momentum_x"] for x in rows]
    sel = [i for i in range(len(t)) if t[i] >= 2.5]
    n = len(sel)
    mt, mp = sum(t[i] for i in sel) / n, sum(P[i] for i in sel) / n
    slope = sum((t[i] - mt) * (P[i] - mp) for i in sel) / sum((t[i] - mt) ** 2 for i in sel)
    ref = F1 - fr["kinetic"] * m * g
    W = max(abs(x["contact_normal_force"] / (m * g) - 1) for x in rows)
    full = next(ti for ti, x in zip(t, rows) if x["contact_sliding"] == len([0] * int(x["contact_active"])))
    print(f"cable: dP/dt over t >= 2.5 s = {slope:.8g} N against F - mu_k m g = {ref:.8g} N "
          f"({abs(slope / ref - 1):.1e}); normal force = weight to {W:.1e}; every node slides from t = {full:.2f} s "
          f"(F = {F1 * min(1, full / t1) / (m * g):.3f} m g; mu_s m g at t = {fr['static'] * m * g / F1 * t1:.3f} s, "
          f"mu_k m g at {fr['kinetic'] * m * g / F1 * t1:.3f} s)")
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True)
    a1.plot(t, [f / (m * g) for f in F], color="tab:blue", label="end force F / (m g)")
    a1.axhline(fr["static"], color="tab:blue", ls=":", label="mu_s")
    a1.axhline(fr["kinetic"], color="tab:blue", ls="--", label="mu_k")
    a1.set_ylabel("F / (m g)")
    b1 = a1.twinx()
    b1.plot(t, P, color="tab:red", label="momentum (computed)")
    b1.plot([t[sel[0]], t[-1]], [P[sel[0]], P[sel[0]] + ref * (t[-1] - t[sel[0]])], color="k", ls="--", lw=1,
            label="slope F - mu_k m g")
    b1.set_ylabel("momentum x (kg m/s)")
    h1, l1 = a1.get_legend_handles_labels()
    h2, l2 = b1.get_legend_handles_labels()
    a1.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper left")
    a1.set_title("Cord on rough ground dragged by its end (dynamics)")
    a2.plot(t, [x["contact_sliding"] for x in rows], color="tab:green")
    a2.set_ylabel("sliding nodes (of 41)")
    a2.set_xlabel("t (s)")
    savefig(fig, out, "contact_cable.png")


def pulley(cli, out):
    """examples/rope-over-pulley.json: the masses' heights (hold, then slide) against the
    Euler-Eytelwein acceleration with mu_k, and the sliding nodes."""
    import matplotlib.pyplot as plt

    with open(os.path.join(ROOT, "examples", "rope-over-pulley.json")) as f:
        sc = json.load(f)
    g = 9.81
    fr = sc["obstacles"][0]["friction"]
    m1, m2 = (b["mass"] for b in sc["rigid_bodies"])
    F2 = -sc["loads"][2]["value"][2]
    pos = sc["rod"]["reference"]["positions"]
    m_rope = sc["rod"]["sections"][0]["rhoA"] * sum(math.dist(a, b) for a, b in zip(pos, pos[1:]))
    ek = math.exp(fr["kinetic"] * math.pi)
    a_ref = (m2 * g + F2 - m1 * g * ek) / (m2 + m1 * ek + m_rope)
    t1 = sc["stages"][1]["t_end"]
    with tempfile.TemporaryDirectory() as tmp:
        o = os.path.join(tmp, "pulley")
        subprocess.run([cli, "run", os.path.join(ROOT, "examples", "rope-over-pulley.json"), "-o", o], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(o, "series.csv")) as f:
            rows = [{k: float(v) for k, v in x.items()} for x in csv.DictReader(f)]
    t = [x["t"] for x in rows]
    # the slip coordinate: how far the rope has run over the pulley (mm)
    slip = [500.0 * ((x["left_z"] - x["right_z"]) - (rows[0]["left_z"] - rows[0]["right_z"])) for x in rows]
    # the reference: from the computed slip and speed 0.05 s into the slide, accelerating at a_ref
    i0 = next(i for i, ti in enumerate(t) if ti >= t1 + 0.05)
    v0 = (slip[i0 + 1] - slip[i0 - 1]) / (t[i0 + 1] - t[i0 - 1])
    tr = [ti for ti in t if ti >= t[i0]]
    ref = [slip[i0] + v0 * (ti - t[i0]) + 500.0 * a_ref * (ti - t[i0]) ** 2 for ti in tr]
    hold = [v for ti, v in zip(t, slip) if 0.5 * t1 <= ti <= t1]
    print(f"pulley: stage 1 (T2/T1 = {(m2 * g - sc['loads'][1]['value'][2]) / (m1 * g):.3f}) holds: the slip "
          f"coordinate stays within {max(hold) - min(hold):.1e} mm over its second half; stage 2 slides, "
          f"Euler-Eytelwein a = {a_ref:.4f} m/s^2")
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    a1.plot(t, slip, color="tab:blue", label="rope run over the pulley (computed)")
    a1.plot(tr, ref, color="k", ls="--", lw=1, label="a = (W2 - m1 g e^(mu_k pi)) / (m2 + m1 e^(mu_k pi) + m_rope)")
    a1.axvline(t1, color="0.6", ls=":", lw=1)
    a1.text(0.5 * t1, 0.3 * max(slip), "stage 1: T2/T1 = 1.70\nbelow e^(mu_k pi): holds", ha="center", fontsize=8)
    a1.text(t1 + 0.01, 0.45 * max(slip), "stage 2: T2/T1 = 3\nabove e^(mu_s pi): slides", fontsize=8)
    a1.set_ylabel("slip (mm)")
    a1.set_title("Rope over a rough pulley, 0.1 kg on each end (dynamics)")
    a1.legend(fontsize=8, loc="upper left")
    a2.plot(t, [x["contact_sliding"] for x in rows], color="tab:green", label="sliding")
    a2.plot(t, [x["contact_active"] for x in rows], color="0.5", ls="--", label="touching")
    a2.set_ylabel("nodes")
    a2.set_xlabel("t (s)")
    a2.legend(fontsize=8, loc="center right")
    savefig(fig, out, "contact_pulley.png")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=os.path.join("docs", "figures"))
    a = p.parse_args(argv)
    cli = setup(a.build, "figures_contact.py")
    import matplotlib.pyplot as plt

    with open(os.path.join(ROOT, "examples", "tentacle-on-cylinder.json")) as f:
        sc = json.load(f)
    drum = sc["obstacles"][0]
    weight = sc["rod"]["material"]["rho"] * math.pi * 0.01**2 * sc["rod"]["length"] * 9.81
    pull = sc["loads"][1]["value"]
    with tempfile.TemporaryDirectory() as tmp:
        draped, s0 = run(cli, tmp, "draped", ["loads.1.value=[0,0,0]"])
        wrapped, s1 = run(cli, tmp, "wrapped", [])
    fig, ax = plt.subplots(figsize=(6.4, 5.0))
    c = drum["center"]
    ax.add_patch(plt.Circle((c[0], c[2]), drum["radius"], color="0.8", zorder=0))
    # where the centreline touches: the drum grown by the contact radius
    ax.add_patch(plt.Circle((c[0], c[2]), drum["radius"] + 0.01, fill=False, ls=":", color="0.5", zorder=0))
    scale = 0.25  # m per N
    for rows, summ, col, lab in ((draped, s0, "tab:blue", "stage 0: its weight"),
                                 (wrapped, s1, "tab:green", "stage 1: + tip pull (-0.8, -0.1) N")):
        x = [r["x"] for r in rows]
        z = [r["z"] for r in rows]
        ax.plot(x, z, color=col, lw=3.0, solid_capstyle="round", label=lab)
        for r in rows if lab.startswith("stage 1") else []:  # the wrapped state's forces only
            if r["contact_state"] > 0:
                ax.arrow(r["x"], r["z"], scale * r["contact_fx"], scale * r["contact_fz"], width=0.0008,
                         head_width=0.004, length_includes_head=True,
                         color="tab:red" if r["contact_state"] == 2 else "k", zorder=3)
        co = summ["contact"]
        reac = summ["reactions"][0]["force"]
        ext = [0.0, -weight] if lab.startswith("stage 0") else [pull[0], pull[2] - weight]
        bal = math.hypot(co["force"][0] + reac[0] + ext[0], co["force"][2] + reac[2] + ext[1])
        print(f"{lab}: {co['active']} contacts ({co['sliding']} sliding), normal force {co['normal_force']:.4f} N, "
              f"largest penetration {co['largest_penetration']:.2e} m (tolerance {co['tolerance']:.1e} m), "
              f"force balance with the clamp {bal:.1e} N")
    ax.plot([], [], color="k", label="stage 1: contact force on a node (%.2f m/N); red: sliding" % scale)
    ax.plot([], [], color="0.5", ls=":", label="drum + contact radius (where the centreline touches)")
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_title("Tentacle on a rough drum (mu_s = 0.5): statics with contact")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_xlim(-0.05, 0.35)
    ax.set_ylim(-0.3, 0.15)
    savefig(fig, a.out, "contact_tentacle.png")
    cable(cli, a.out)
    pulley(cli, a.out)


if __name__ == "__main__":
    main(sys.argv[1:])
