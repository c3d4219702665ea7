#!/usr/bin/env python3
"""Figure of the damped cantilever (docs/examples.md, "Damped cantilever"): the mixed rod with
Kelvin–Voigt damping and drag (rod.damping) against the single-mode prediction.

    python3 scripts/figures_damping.py [--build build] [--out docs/figures]

Runs build/cosserat on examples/damped-cantilever.json with and without its rod.damping (into a
temporary directory), prints the measured numbers and writes docs/figures/damped_cantilever.png.
Needs numpy and matplotlib (Agg)."""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cli, scenario, out, sets):
    cmd = [cli, "run", scenario, "-o", out, "-q"] + [a for s in sets for a in ("--set", s)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    import numpy as np
    return np.genfromtxt(os.path.join(out, "series.csv"), delimiter=",", names=True)


def crossings(t, y):
    i = [k for k in range(1, len(y)) if y[k - 1] < 0 <= y[k]]
    return [t[k - 1] + (t[k] - t[k - 1]) * (-y[k - 1] / (y[k] - y[k - 1])) for k in i]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=os.path.join("docs", "figures"))
    a = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    cli = os.path.join(a.build, "cosserat")
    if not os.path.exists(cli):
        sys.exit(f"figures_damping.py: {cli} not found (build first)")
    scen = os.path.join(ROOT, "examples", "damped-cantilever.json")
    damping = json.load(open(scen))["rod"]["damping"]
    tau, c, rhoA = damping["relaxation_time"][4], damping["drag"], 1.0
    with tempfile.TemporaryDirectory() as tmp:
        u = run(cli, scen, os.path.join(tmp, "u"), ["rod.damping={}", "stages.1.t_end=3.5", "stages.1.rtol=1e-7",
                                                     "stages.1.atol=1e-9"])
        d = run(cli, scen, os.path.join(tmp, "d"), [])
    cu = crossings(u["t"], u["tip_y"])
    omega = 2 * math.pi / (cu[1] - cu[0])
    zeta = tau * omega / 2 + c / (2 * rhoA * omega)
    delta = 2 * math.pi * zeta / math.sqrt(1 - zeta**2)
    cd = crossings(d["t"], d["tip_y"])
    amps = [d["tip_y"][(d["t"] > cd[k]) & (d["t"] < cd[k + 1])].max() for k in range(len(cd) - 1)]
    meas = math.log(amps[0] / amps[-1]) / (len(amps) - 1)
    y0 = d["tip_y"][0]
    E0 = d["energy_total"][0]
    bal = np.abs(d["energy_total"] + d["energy_dissipated"] - E0).max()
    print(f"damped cantilever: undamped omega {omega:.6f} rad/s; zeta = tau omega/2 + c/(2 rhoA omega) = {zeta:.6f}; "
          f"log decrement measured {meas:.6f} (maxima over {len(amps) - 1} periods), predicted {delta:.6f} "
          f"({100 * (meas - delta) / delta:+.2f} %); dissipated {d['energy_dissipated'][-1]:.4e} J of "
          f"{E0:.4e} J; max |E + D - E0| = {bal:.2e} J")

    fig, ax = plt.subplots(2, 1, figsize=(7.5, 6.5), sharex=True)
    ax[0].plot(d["t"], 1e3 * d["tip_y"], "C0-", lw=1, label="mixed rod, n = 20, damped (KV bending + drag)")
    env = 1e3 * y0 * np.exp(-zeta * omega * d["t"])
    ax[0].plot(d["t"], env, "k--", lw=1, label=r"single-mode envelope $\pm y_0 e^{-\zeta\omega t}$, $\zeta$ = %.4f" % zeta)
    ax[0].plot(d["t"], -env, "k--", lw=1)
    ax[0].plot(u["t"], 1e3 * u["tip_y"], "C1:", lw=1, label="undamped (first 3.5 s)")
    ax[0].set_ylabel("tip deflection $y$ (mm)")
    ax[0].set_ylim(-4, 6.5)  # room for the legend
    ax[0].legend(loc="upper right", fontsize=8)
    ax[0].set_title(f"log decrement: measured {meas:.4f}, Kelvin–Voigt + drag prediction {delta:.4f}", fontsize=10)
    ax[1].plot(d["t"], 1e6 * d["energy_total"], "C0-", label="kinetic + elastic $E$")
    ax[1].plot(d["t"], 1e6 * d["energy_dissipated"], "C3-", label="dissipated $D$")
    ax[1].plot(d["t"], 1e6 * (d["energy_total"] + d["energy_dissipated"]), "k--", label="$E + D$ (constant)")
    ax[1].set_xlabel("time $t$ (s)")
    ax[1].set_ylabel(r"energy ($\mu$J)")
    ax[1].legend(loc="center right", fontsize=8)
    for x in ax:
        x.grid(alpha=0.3)
    fig.tight_layout()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "damped_cantilever.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
