#!/usr/bin/env python3
"""Figure of examples/plectoneme.json (docs/examples.md "Self-contact: a twisted shaft forms a
plectoneme"):

    /usr/bin/python3 scripts/figures_plectoneme.py --build build --out docs/figures

Writes OUT/contact_plectoneme.png: the end's axial position and the writhe against the imposed
turns (one CLI run per twist, 2.6 ... 3.6 turns), with the critical twist of the straight rod from
the linearized equations (tests/plectoneme.py), and the shape at 3.3 turns seen along y and x
(the rod drawn at its contact radius). Prints the measured numbers docs/examples.md quotes.
Needs numpy and matplotlib.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import figlib

sys.path.insert(0, os.path.join(figlib.ROOT, "tests"))
import plectoneme as pl  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="docs/figures")
    a = ap.parse_args()
    cli = figlib.setup(a.build, "figures_plectoneme.py")
    import matplotlib.pyplot as plt

    ex = os.path.join(figlib.ROOT, "examples", "plectoneme.json")
    radius = 0.01
    crit = pl.critical_moment(1.0, 5.0, 1.0) / 0.5 / (2 * 3.141592653589793)
    turns = [2.6, 2.8, 2.9, 3.0, 3.05, 3.08, 3.11, 3.15, 3.2, 3.3, 3.4, 3.5, 3.6]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in turns:
            d = os.path.join(tmp, f"t{t}")
            r = subprocess.run([cli, "run", ex, "-q", "-o", d, "--set", f"boundary_conditions.1.turns={t}"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{t} turns: failed: {r.stderr[:300]}")
                continue
            m = pl.measure(d, radius)
            rows.append((t, m))
            print(f"{t} turns: tip x {m['tip'][0]:.5f} m, Tw {m['Tw']:.4f}, Wr {m['Wr']:.4f}, "
                  f"Lk - turns {m['Tw'] + m['Wr'] - t:+.4f}, min distance - 2a {m['min_distance'] - 2 * radius:+.2e} m")
            if t == 3.3:
                X = [(float(q["x"]), float(q["y"]), float(q["z"])) for q in csv.DictReader(open(d + "/nodes.csv"))]
    print(f"critical twist {crit:.4f} turns")
    fig, ax = plt.subplots(1, 3, figsize=(13, 4.2))
    tt = [t for t, _ in rows]
    ax[0].plot(tt, [m["tip"][0] for _, m in rows], "o-", label="end position x (m)")
    ax[0].plot(tt, [m["Wr"] for _, m in rows], "s-", label="writhe Wr (turns)")
    ax[0].plot(tt, [m["Tw"] for _, m in rows], "^-", label="twist Tw (turns)")
    ax[0].axvline(crit, color="k", ls="--", lw=1, label=f"critical twist {crit:.4f} turns\n(linearized, $M_{{cr}}$ = 9.7177 EI/L)")
    ax[0].set_xlabel("imposed end rotation (turns)")
    ax[0].set_ylabel("x (m); Tw, Wr (turns)")
    ax[0].set_title("Greenhill's shaft with self-contact, T L²/EI = 5")
    ax[0].set_ylim(-0.15, 4.9)  # room above the curves for the legend
    ax[0].legend(fontsize=8, loc="upper left", ncol=2)
    ax[0].grid(alpha=0.3)
    # the rod at its contact radius: a line width in points from the axes' data scale
    for k, (i, j, name) in enumerate([(0, 2, "seen along y"), (1, 2, "seen along x")]):
        axk = ax[k + 1]
        xs, ys = [p[i] for p in X], [p[j] for p in X]
        axk.plot(xs, ys, "-", color="tab:blue", lw=1)
        for p in X:
            axk.add_patch(plt.Circle((p[i], p[j]), radius, color="tab:blue", alpha=0.25, lw=0))
        axk.set_aspect("equal")
        axk.set_xlabel("xyz"[i] + " (m)")
        axk.set_ylabel("xyz"[j] + " (m)")
        axk.set_title(f"3.3 turns, {name}\n(circles: the contact radius)", fontsize=10)
        axk.grid(alpha=0.3)
    fig.tight_layout()
    figlib.savefig(fig, a.out, "contact_plectoneme.png")


if __name__ == "__main__":
    main()
