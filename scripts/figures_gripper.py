#!/usr/bin/env python3
"""Figure of the gripper example (docs/examples.md "A soft gripper").

    /usr/bin/python3 scripts/figures_gripper.py --build build --out docs/figures

Writes OUT/assembly_gripper.png: left, the palm and the three fingers (examples/gripper.json) in
the reference and at the end of each static stage (gravity; tendons at 2.5 N; at 5 N), seen from
the side; right, the bending curvature of finger0 along its length at 5 N, with and without
gravity, against the constant-curvature closed form T r / EI. Prints the measured numbers and
exits with 1 when one leaves its tolerance.
"""

import argparse
import copy
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figlib import savefig, setup  # noqa: E402


def run(cli, sc, tmp, tag):
    path, out = os.path.join(tmp, tag + ".json"), os.path.join(tmp, tag)
    sc = copy.deepcopy(sc)
    sc["output"] = {"directory": out}
    with open(path, "w") as f:
        json.dump(sc, f)
    subprocess.run([cli, "run", path], check=True, stdout=subprocess.DEVNULL)
    nodes = np.genfromtxt(os.path.join(out, "nodes.csv"), delimiter=",", names=True, dtype=None, encoding="utf-8")
    els = np.genfromtxt(os.path.join(out, "elements.csv"), delimiter=",", names=True, dtype=None, encoding="utf-8")
    return nodes, els


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=os.path.join("docs", "figures"))
    a = p.parse_args(argv)
    cli = setup(a.build, "figures_gripper.py")
    import matplotlib.pyplot as plt

    with open(os.path.join(ROOT, "examples", "gripper.json")) as f:
        sc = json.load(f)
    finger = sc["rods"][1]
    rad, E = finger["sections"][0]["radius"], finger["material"]["E"]
    EI = E * math.pi * rad**4 / 4
    tendons = [ld for ld in sc["loads"] if ld["type"] == "tendon"]
    T = max(ld["tension"] for ld in tendons)
    off = tendons[0]["offset"]["radius_fraction"] * rad
    kappa = T * off / EI
    fig = plt.figure(figsize=(14, 4.8))
    a0 = fig.add_subplot(1, 3, 1)
    a2 = fig.add_subplot(1, 3, 2)
    a1 = fig.add_subplot(1, 3, 3)
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        shapes = []
        for k, label in enumerate(["gravity only (stage 0)", "tendons 2.5 N (stage 1)", "tendons 5 N (stage 2)"]):
            s = copy.deepcopy(sc)
            s["stages"] = sc["stages"][:k + 1]
            s["loads"] = [ld for ld in s["loads"] if max(ld.get("stages", [0])) <= k]
            shapes.append((label, run(cli, s, tmp, f"stage{k}")))
        s = copy.deepcopy(sc)
        s["loads"][0]["value"] = [0, 0, 0]
        nodes0, els0 = run(cli, s, tmp, "nogravity")
    colours = ["0.45", "tab:blue", "crimson"]
    for (label, (nodes, _)), col in zip(shapes, colours):
        for j, rd in enumerate(sc["rods"]):
            m = nodes["rod"] == rd["name"]
            if j == 0:  # the wrist: it does not move visibly
                if col == colours[-1]:
                    a0.plot(nodes["y"][m] * 100, nodes["z"][m] * 100, color="0.2", lw=4, label="wrist (steel, clamped at top)")
                continue
            a0.plot(nodes["y"][m] * 100, nodes["z"][m] * 100, color=col, lw=2.5, label=label if j == 1 else None)
            a2.plot(nodes["x"][m] * 100, nodes["y"][m] * 100, color=col, lw=2.5, label=label if j == 1 else None)
            a2.plot(nodes["x"][m][-1:] * 100, nodes["y"][m][-1:] * 100, "o", color=col, ms=5)
    # the palm (a disk of radius 6 cm, 1 cm thick) and the reference fingers
    a0.add_patch(plt.Rectangle((-6, -1), 12, 1, color="0.2", alpha=0.35, label="palm (free rigid body)"))
    a2.add_patch(plt.Circle((0, 0), 6, color="0.2", alpha=0.2, label="palm (free rigid body)"))
    for rd in sc["rods"][1:]:
        o = rd["reference"]["origin"]
        a0.plot([o[1] * 100] * 2, [o[2] * 100, (o[2] - rd["length"]) * 100], color="0.6", ls="--", lw=1)
        a2.plot([o[0] * 100], [o[1] * 100], "x", color="k", ms=7)
    a0.plot([], [], color="0.6", ls="--", lw=1, label="reference")
    a0.set_aspect("equal")
    a0.set_xlim(-7, 23)
    a0.set_xlabel("y (cm)")
    a0.set_ylabel("z (cm)")
    a0.set_title("side view (finger0 at y = 5 cm bends in this plane)", fontsize=10)
    a0.legend(fontsize=8, loc="lower right")
    a2.set_aspect("equal")
    a2.set_xlim(-7, 7)
    a2.set_ylim(-7, 7)
    a2.set_xlabel("x (cm)")
    a2.set_ylabel("y (cm)")
    a2.set_title("seen from above, through the palm: the fingers\nclose (× bases, ● tips)", fontsize=10)
    for els, lab, st in ((els0, "without gravity", "o"), (shapes[2][1][1], "with gravity", "s")):
        m = els["rod"] == "finger0"
        a1.plot(els["s"][m] * 100, els["kappa_z"][m], st, ms=5, label=f"finger0, {lab} (cosserat)")
    a1.axhline(kappa, color="k", lw=1.2, label=f"T r / EI = {kappa:.4f} 1/m")
    m = els0["rod"] == "finger0"
    err = np.max(np.abs(els0["kappa_z"][m] - kappa)) / kappa
    h = finger["length"] / finger["elements"]
    sag = (kappa * h) ** 2 / 8
    print(f"gripper: finger0 curvature without gravity vs T r/EI = {kappa:.6f} 1/m: largest relative difference "
          f"{err:.3e} ((kappa h)^2/8 = {sag:.3e}, the tendon chords' sagitta)")
    if not err < 1.1 * sag:
        failed.append("curvature vs T r / EI")
    a1.set_xlabel("arc length s of finger0 (cm)")
    a1.set_ylabel("bending curvature κ_z (1/m)")
    a1.set_title(f"tendon T = {T:g} N at r = {off * 1e3:g} mm vs T r / EI\n"
                 f"(without gravity within {err:.1e}, the chords' (κh)²/8)", fontsize=10)
    a1.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, a.out, "assembly_gripper.png")
    if failed:
        print("figures_gripper.py: out of tolerance: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
