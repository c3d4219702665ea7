#!/usr/bin/env python3
"""Figures and numbers of the LGVI rod examples (docs/lgvi.md), standard vs modified model.

    /usr/bin/python3 scripts/figures_lgvi.py --build build --out docs/figures [--only NAME]

Writes into --out:

    lgvi_paper.png                §5.1 flying beam: H_mod - H_std over time; §5.2 pure stretching:
                                  dilatation range and length difference over time
    lgvi_bending_stretching.png   §5.3 (our reconstruction): centerline snapshots, tip path,
                                  dilatation range, energy balance H - W, both models
    lgvi_convergence.png          §5.4: tip error at t = 2 s vs element length l (h fixed) and
                                  vs time step h (K = 20), both models, with slopes 1 and 2

and prints the measured numbers that docs/lgvi.md quotes. Every run goes through the CLI
(BUILD/cosserat run examples/X.json -o DIR --set ...) into a temporary folder, read back with
cosserat.read_output; the convergence study uses the Python package (cosserat.run, no files).
About 1.5 min on one core.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figlib import savefig, setup as _setup  # noqa: E402


def setup(build):
    return _setup(build, "figures_lgvi.py")
EXAMPLES = os.path.join(ROOT, "examples")
MODELS = (("modified", []), ("standard", ["model.dilatation=false"]))
COLORS = {"modified": "tab:red", "standard": "tab:blue"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="build directory with libcosserat.so and cosserat")
    p.add_argument("--out", default=os.path.join("docs", "figures"), help="output directory for the PNGs")
    p.add_argument("--only", default=None, choices=["paper", "bending", "convergence"],
                   help="regenerate one figure only")
    return p.parse_args(argv)


def run_cli(cli, example, tmp, tag, sets=()):
    import cosserat

    out = os.path.join(tmp, tag)
    cmd = [cli, "run", os.path.join(EXAMPLES, example), "-o", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return cosserat.read_output(out)


def both_models(cli, example, tmp, extra=()):
    return {name: run_cli(cli, example, tmp, f"{example}-{name}", list(sets) + list(extra)) for name, sets in MODELS}


# ---------------------------------------------------------------- §5.1 and §5.2

def paper(cli, out, tmp):
    import matplotlib.pyplot as plt

    fb = both_models(cli, "flying-beam.json", tmp, ["output.vtk=false"])
    ps = both_models(cli, "pure-stretching.json", tmp, ["output.vtk=false"])
    m, s = fb["modified"].series, fb["standard"].series
    dH = m["energy_total"] - s["energy_total"]
    i = np.argmax(np.abs(dH))
    print(f"§5.1 flying beam: max |H_mod - H_std| = {abs(dH[i]):.4f} J at t = {m['t'][i]:.2f} s (paper 1.955 J); "
          f"modified e in [{m['dilatation_min'].min():.5f}, {m['dilatation_max'].max():.5f}] (paper 0.9993-1.0059); "
          f"standard H - W after 5 s constant to {np.ptp((s['energy_total'] - s['work_external'])[s['t'] > 5.5]):.2e} J, "
          f"modified to {np.ptp((m['energy_total'] - m['work_external'])[m['t'] > 5.5]):.3f} J")
    pm, pst = ps["modified"].series, ps["standard"].series
    L = 10.0
    dL = np.abs(pm["length"] - pst["length"]) / L
    dV = max(pst["dilatation_max"].max() - 1, 1 - pst["dilatation_min"].min())
    dH2 = np.abs(pm["energy_total"] - pst["energy_total"])
    print(f"§5.2 pure stretching: modified e in [{pm['dilatation_min'].min():.5f}, {pm['dilatation_max'].max():.5f}] "
          f"(paper 0.9920-1.1408); max dL/L = {dL.max():.6f} at t = {pm['t'][np.argmax(dL)]:.2f} s (paper 0.02070); "
          f"max dV/V0 = {dV:.5f} (paper 0.1247); max |H_mod - H_std| = {dH2.max():.3f} J with T averaged over the two "
          f"intervals around t_k (paper 148.77 J with T of one interval; test_lgvi: 148.773 J); modified volume drift "
          f"{pm['volume_drift'].max():.1e}")

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    ax[0].plot(m["t"], dH, color="k")
    ax[0].axvspan(0, 5, color="0.92", label="loads on (0-5 s)")
    ax[0].set(xlabel="t [s]", ylabel="H_mod - H_std [J]", title="§5.1 flying beam: energy difference (K = 10)")
    ax[0].axhline(1.955, ls=":", color="tab:green", label="paper max |ΔH| = 1.955 J")
    ax[0].axhline(-1.955, ls=":", color="tab:green")
    ax[0].legend(loc="lower right")
    for name, r in ps.items():
        c = COLORS[name]
        ax[1].plot(r.series["t"], r.series["dilatation_max"], color=c, label=f"{name}: max e")
        ax[1].plot(r.series["t"], r.series["dilatation_min"], color=c, ls="--", label=f"{name}: min e")
    ax[1].set(xlabel="t [s]", ylabel="element stretch e = |Δx|/l [-]", title="§5.2 pure stretching: dilatation range")
    ax[1].legend()
    ax[2].plot(pm["t"], 100 * dL, color="k")
    ax[2].axhline(2.070, ls=":", color="tab:green", label="paper max = 2.070 %")
    ax[2].set(xlabel="t [s]", ylabel="|L_mod - L_std| / L [%]", title="§5.2: length difference of the models")
    ax[2].legend()
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    savefig(fig, out, "lgvi_paper.png")


# ---------------------------------------------------------------- §5.3

def bending(cli, out, tmp):
    import matplotlib.pyplot as plt

    r = both_models(cli, "lgvi-bending-stretching.json", tmp)
    m, s = r["modified"].series, r["standard"].series
    dL = np.abs(m["length"] - s["length"]) / 10.0
    dH = np.abs(m["energy_total"] - s["energy_total"])
    tip = np.hypot(m["tip_x"] - s["tip_x"], m["tip_z"] - s["tip_z"])
    late = m["t"] > 10.0
    bal_m, bal_s = m["energy_total"] - m["work_external"], s["energy_total"] - s["work_external"]
    for name, q in r.items():
        q = q.series
        b = (q["t"] > 5) & (q["t"] <= 10)
        print(f"§5.3 {name}: e in [{q['dilatation_min'].min():.5f}, {q['dilatation_max'].max():.5f}] overall, "
              f"[{q['dilatation_min'][b].min():.5f}, {q['dilatation_max'][b].max():.5f}] during the transverse load; "
              f"tip at 7.5 s ({np.interp(7.5, q['t'], q['tip_x']):.3f}, {np.interp(7.5, q['t'], q['tip_z']):.3f}) m, "
              f"at 15 s ({q['tip_x'][-1]:.3f}, {q['tip_z'][-1]:.3f}) m; work of the loads {q['work_external'][-1]:.2f} J")
    print(f"§5.3 models: max dL/L = {dL.max():.5f}, max |H_mod - H_std| = {dH.max():.2f} J at t = {m['t'][np.argmax(dH)]:.2f} s, "
          f"max tip distance {tip.max():.3f} m at t = {m['t'][np.argmax(tip)]:.2f} s; after 10 s (free) H - W varies by "
          f"{np.ptp(bal_s[late]):.1e} J (standard) and {np.ptp(bal_m[late]):.2f} J (modified)")

    fig, ax = plt.subplots(2, 2, figsize=(12, 9.5))
    times = (2.5, 5.0, 6.5, 7.5, 8.5, 10.0, 12.5)
    cmap = plt.get_cmap("viridis")
    for name, q in r.items():
        ls = "-" if name == "modified" else "--"
        snaps = {round(sn.time, 6): sn for sn in q.snapshots}
        for k, t in enumerate(times):
            sn = snaps.get(t)
            if sn is None:
                continue
            ax[0, 0].plot(sn.points[:, 0], sn.points[:, 2], ls=ls, color=cmap(k / (len(times) - 1)),
                          label=f"t = {t:g} s" if name == "modified" else None)
    ax[0, 0].plot([], [], "k-", label="modified")
    ax[0, 0].plot([], [], "k--", label="standard")
    ax[0, 0].set(xlabel="x [m]", ylabel="z [m]", title="§5.3 centerline snapshots (clamp at the origin)",
                 aspect="equal")
    ax[0, 0].legend(fontsize=8, ncol=2, loc="lower left")
    for name, q in r.items():
        q = q.series
        ax[0, 1].plot(q["t"], q["tip_x"], color=COLORS[name], label=f"{name}: tip x")
        ax[0, 1].plot(q["t"], q["tip_z"], color=COLORS[name], ls="--", label=f"{name}: tip z")
    ax[0, 1].axvspan(0, 5, color="0.93")
    ax[0, 1].axvspan(5, 10, color="0.85")
    ax[0, 1].text(0.3, 11.5, "axial 6 g(t)", fontsize=8)
    ax[0, 1].text(5.3, 11.5, "transverse q(t)", fontsize=8)
    ax[0, 1].set(xlabel="t [s]", ylabel="tip position [m]", title="tip coordinates", ylim=(-9, 12.5))
    ax[0, 1].legend(fontsize=8, loc="lower left")
    for name, q in r.items():
        q = q.series
        ax[1, 0].plot(q["t"], q["dilatation_max"], color=COLORS[name], label=f"{name}: max e")
        ax[1, 0].plot(q["t"], q["dilatation_min"], color=COLORS[name], ls="--", label=f"{name}: min e")
    ax[1, 0].set(xlabel="t [s]", ylabel="element stretch e = |Δx|/l [-]", title="dilatation range over the elements")
    ax[1, 0].legend(fontsize=8)
    ax[1, 1].plot(s["t"], bal_s, color=COLORS["standard"], label="standard: H - W")
    ax[1, 1].plot(m["t"], bal_m, color=COLORS["modified"], label="modified: H - W")
    ax[1, 1].plot(m["t"], m["energy_total"] - s["energy_total"], color="k", lw=0.8, label="H_mod - H_std")
    ax[1, 1].set(xlabel="t [s]", ylabel="energy [J]", title="energy balance (W = work of the loads)")
    ax[1, 1].legend(fontsize=8)
    for a in ax.flat:
        a.grid(alpha=0.3)
    fig.tight_layout()
    savefig(fig, out, "lgvi_bending_stretching.png")


# ---------------------------------------------------------------- §5.4

def convergence(cli, out, tmp):
    import cosserat
    import matplotlib.pyplot as plt

    ex = os.path.join(EXAMPLES, "lgvi-convergence.json")

    def tip(K, h, dil):
        r = cosserat.run(ex, {"rod.elements": K, "stages.0.time_step": h, "model.dilatation": dil,
                              "stages.0.output_dt": 0.5}, check=True)
        return r.positions[-1]

    Ks, h_space, K_ref = [10, 20, 40, 80, 160, 320], 5e-5, 1280
    K_time, hs, h_ref = 20, [2e-3 / 2 ** i for i in range(6)], 2e-3 / 256
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.8))
    for dil, name in ((True, "modified"), (False, "standard")):
        ref = tip(K_ref, h_space, dil)
        l = [10.0 / K for K in Ks]
        e = [np.linalg.norm(tip(K, h_space, dil) - ref) for K in Ks]
        ps = [np.log2(e[i] / e[i + 1]) for i in range(len(e) - 1)]
        d = [np.linalg.norm(tip(K, h_space, dil) - tip(2 * K, h_space, dil)) for K in Ks[:4]]
        pd = [np.log2(d[i] / d[i + 1]) for i in range(len(d) - 1)]
        print(f"§5.4 {name}, space (h = {h_space:g}, reference K = {K_ref}): |tip - ref| = "
              + ", ".join(f"{x:.3e}" for x in e) + " m for K = " + ", ".join(map(str, Ks))
              + "; orders " + ", ".join(f"{p:.2f}" for p in ps)
              + "; successive-difference orders (K = 10..80) " + ", ".join(f"{p:.2f}" for p in pd))
        ax[0].loglog(l, e, "o-", color=COLORS[name], label=f"{name}")
        reft = tip(K_time, h_ref, dil)
        et = [np.linalg.norm(tip(K_time, h, dil) - reft) for h in hs]
        pt = [np.log2(et[i] / et[i + 1]) for i in range(len(et) - 1)]
        print(f"§5.4 {name}, time (K = {K_time}, reference h = {h_ref:g}): |tip - ref| = "
              + ", ".join(f"{x:.3e}" for x in et) + " m for h = " + ", ".join(f"{h:g}" for h in hs)
              + "; orders " + ", ".join(f"{p:.2f}" for p in pt))
        ax[1].loglog(hs, et, "o-", color=COLORS[name], label=f"{name}")
    l = np.array([10.0 / K for K in Ks])
    ax[0].loglog(l, 0.1 * l, "k:", label="slope 1")
    ax[0].loglog(l, 0.1 * l ** 2, "k-.", label="slope 2")
    ax[0].set(xlabel="element length l = L/K [m]", ylabel="tip position error at t = 2 s [m]",
              title=f"§5.4 space: K = 10..320, h = {h_space:g} s, reference K = {K_ref}")
    h = np.array(hs)
    ax[1].loglog(h, 2e-2 * h, "k:", label="slope 1")
    ax[1].loglog(h, 20 * h ** 2, "k-.", label="slope 2")
    ax[1].set(xlabel="time step h [s]", ylabel="tip position error at t = 2 s [m]",
              title=f"§5.4 time: K = {K_time}, reference h = {h_ref:g} s")
    for a in ax:
        a.grid(alpha=0.3, which="both")
        a.legend()
    fig.tight_layout()
    savefig(fig, out, "lgvi_convergence.png")


def main(argv):
    args = parse_args(argv)
    cli = setup(args.build)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="figures_lgvi_") as tmp:
        if args.only in (None, "paper"):
            paper(cli, args.out, tmp)
        if args.only in (None, "bending"):
            bending(cli, args.out, tmp)
        if args.only in (None, "convergence"):
            convergence(cli, args.out, tmp)


if __name__ == "__main__":
    main(sys.argv[1:])
