#!/usr/bin/env python3
"""Figure of the contact between the rods of an assembly (docs/examples.md "Contact between
rods"): examples/crossing-cables.json through the CLI.

    /usr/bin/python3 scripts/figures_contact_rods.py --build build --out docs/figures

Writes contact_crossing.png: the two crossing simply supported rods, the upper one pushed onto
the lower one by P = 1 N; left, both deflection lines against small-deflection beam theory
(Euler-Bernoulli with the shear term; the rods as two springs in series, their deflections at
the crossing equal); right, the errors of the contact force and of the deflection at the
crossing against the number of elements (second order). Prints the numbers docs/examples.md
quotes.
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

EX = os.path.join(ROOT, "examples", "crossing-cables.json")


def run(cli, tmp, n):
    out = os.path.join(tmp, f"c{n}")
    sets = [f"rods.0.elements={2 * n + 1}", f"rods.1.elements={2 * n}", f"loads.0.node=upper:{n}"]
    cmd = [cli, "run", EX, "-q", "-o", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "nodes.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return rows, summary


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "figures"))
    a = p.parse_args(argv)
    cli = setup(a.build, "figures_contact_rods.py")
    import matplotlib.pyplot as plt

    with open(EX) as f:
        sc = json.load(f)
    mat, r = sc["rods"][0]["material"], sc["rods"][0]["sections"][0]["radius"]
    E, G = mat["E"], mat["G"]
    I, A = math.pi * r**4 / 4, math.pi * r**2
    L = [x["length"] for x in sc["rods"]]
    P = -sc["loads"][0]["value"][2]
    c = [l**3 / (48 * E * I) + l / (4 * G * A) for l in L]  # midspan compliances
    F = P * c[1] / (c[0] + c[1])
    delta = F * c[0]
    loads = [F, P - F]

    def beam(x, l, f):  # simply supported, central load f: bending + shear
        x = min(x, l - x)
        return f * x * (3 * l * l - 4 * x * x) / (48 * E * I) + f * x / (2 * G * A)

    ns = [5, 10, 20, 40]
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in ns:
            res[n] = run(cli, tmp, n)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    rows = res[20][0]
    for k, (name, col) in enumerate([("lower", "tab:blue"), ("upper", "tab:orange")]):
        pts = [x for x in rows if x["rod"] == name]
        s = [float(x["s"]) for x in pts]
        z0 = 0.0 if name == "lower" else 0.02
        w = [1e3 * (z0 - float(x["z"])) for x in pts]
        ax.plot(s, w, "o", ms=3, color=col, label=f"{name} rod ({len(pts) - 1} elements), cosserat")
        ss = [L[k] * i / 200 for i in range(201)]
        ax.plot(ss, [1e3 * beam(x, L[k], loads[k]) for x in ss], "-", color=col, lw=1,
                label=f"beam theory, load {loads[k]:.4f} N")
    ax.set_ylim(1.0, -0.5)  # downwards; room above the rods for the legend
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel("arc length s (m)")
    ax.set_ylabel("deflection (mm, downwards)")
    ax.set_title("Two crossing rods, P = 1 N on the upper one")
    ax.legend(fontsize=8, loc="upper center")
    ef, ed, ne = [], [], []
    for n in ns:
        rw, s = res[n]
        Fl = sum(x["force"][2] for x in s["reactions"] if x["rod"] == "lower")
        dl = -min(float(x["z"]) for x in rw if x["rod"] == "lower")
        ef.append(abs(Fl / F - 1)), ed.append(abs(dl / delta - 1)), ne.append(2 * n + 1)
        print(f"n = {2 * n + 1}/{2 * n} elements: contact force {Fl:.6f} N (beam theory {F:.6f}, {Fl / F - 1:+.2e}), "
              f"deflection {dl * 1e3:.6f} mm ({delta * 1e3:.6f}, {dl / delta - 1:+.2e})")
    bx.loglog(ne, ef, "o-", label="contact force")
    bx.loglog(ne, ed, "s-", label="deflection at the crossing")
    bx.loglog(ne, [ed[0] * (ne[0] / x) ** 2 for x in ne], "k:", label="slope 2")
    bx.set_xlabel("elements of the lower rod")
    bx.set_ylabel("relative error against beam theory")
    bx.set_title("Convergence (contact.rods, frictionless)")
    bx.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, a.out, "contact_crossing.png")


if __name__ == "__main__":
    main(sys.argv[1:])
