#!/usr/bin/env python3
"""Rope-pile benchmark (not a test): a 1.5 m rope of 150 elements fed onto a floor with
self-contact, the "pile" experiment of cosseratbench (J. Ryder, cosseratbench, experiments/pile.py
and docs/findings.md: PyElastica 34 s and MuJoCo 1107 s at 150 elements), run by the mixed rod.

The published problem, as its source defines it (defaults: speed 0.4 m/s, friction 0.3,
E = 1e6 Pa):
  rope L = 1.5 m, r = 2.5 mm, rho = 1000 kg/m^3, E = 1 MPa, G = E/3, gravity 9.81 m/s^2;
  hanging from a clamp, stretched by its weight, its free end 2 cm above a floor (plane z = 0,
  Coulomb friction 0.3), bowed sideways by 1e-3 L out of any one plane
  (x = b sin(pi s/L), y = b sin(2 pi s/L));
  the clamp descends at 0.4 m/s until it is 15 cm above the floor, then holds still 1 s more;
  self-contact on (frictionless in PyElastica, and in cosserat); "quasi-static": the solvers
  may add dissipation. PyElastica's adapter adds a uniform damping of 2 w_slowest = 5.11 1/s on
  velocities and angular velocities alike (AnalyticalLinearDamper, uniform_damping_constant):
  here rod.damping.drag = nu rho A (N s/m^2) and rotational_drag = nu rho (J, I, I) (N s), the
  same forces -nu m v and moments -nu J w.
What differs: PyElastica starts from a straight stress-free rope deformed into the bow; here the
bow is in the stress-free reference (a curvature of 7e-3 1/m, a moment of 2e-7 N m against the
weight's; the static stage 0 stretches it under its weight before the clamp moves). Its contact
is a penalty spring m (0.5/dt)^2 = 1e4 N/m at element centres with a dashpot; here the floor is
the obstacles' augmented Lagrangian with exact Coulomb stick (a penalty eps in dynamics) and the
self-contact a penalty eps g on the segments' closest points, eps = contact.stiffness.

  python3 bench/rope_pile.py [--build build] [--elements 150] [--rtol 1e-6] [--atol 1e-8]
                             [--t-end T] [--out DIR] [--write-only FILE] [--callgrind]
                             [--reference DIR] [--analyse-only] [--formulation lgvi]
                             [--ensemble N [--jobs J] [--against DIR]]

With --ensemble N, runs N members of the same problem whose sideways bows differ in shape (the
imperfection a real rope has and nobody measures) and reports each measure's mean, spread and
extremes; with --against, the distance of two ensembles' distributions (in standard errors, and
the Kolmogorov-Smirnov p-value): the heap is chaotic, so one run certifies nothing.

Prints the run's wall and CPU time, the integrator statistics and the accuracy: the largest
penetration into the floor (series.csv, every output row) and into itself (the segments' closest
points at every snapshot, pairs nearer than pi (a1 + a2)/2 along the rope excluded, as the
contact does), and the energy balance with the dissipated energy counted.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

L, R, RHO, E = 1.5, 0.0025, 1000.0, 1e6
G = E / 3.0
GRAV = 9.81
CLEARANCE, CLAMP_END, SETTLE, BOW, SPEED, MU = 0.02, 0.15, 1.0, 1e-3, 0.4, 0.3


def stretch():
    """The hanging rope's elongation: strain rho g (L - s)/E integrated over s."""
    return RHO * GRAV * L * L / (2 * E)


def descent_time():
    top = CLEARANCE + L + stretch()
    return (top - CLAMP_END) / SPEED


def quat_from_frame(t, n):
    """Unit quaternion (scalar first) of the basis (t, n, t x n) as columns."""
    b = (t[1] * n[2] - t[2] * n[1], t[2] * n[0] - t[0] * n[2], t[0] * n[1] - t[1] * n[0])
    m = [[t[0], n[0], b[0]], [t[1], n[1], b[1]], [t[2], n[2], b[2]]]
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = 2 * math.sqrt(tr + 1)
        return [0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s]
    i = max(range(3), key=lambda k: m[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2 * math.sqrt(1 + m[i][i] - m[j][j] - m[k][k])
    q = [0.0] * 4
    q[0] = (m[k][j] - m[j][k]) / s
    q[1 + i] = 0.25 * s
    q[1 + j] = (m[j][i] + m[i][j]) / s
    q[1 + k] = (m[k][i] + m[i][k]) / s
    return q


def scenario(n, rtol, atol, t_end=None, output_dt=None, lgvi_step=None, lgvi_settle=0.0, bow_phase=0.0,
             lgvi_strains="midpoint"):
    """The pile's scenario for the mixed rod with n elements (a dict for cosserat's JSON); with
    lgvi_step (s), for the explicit lgvi rod: no static stage, so a first dynamic stage of
    lgvi_settle seconds lets the rope stretch under its weight (the drag damps it) with the clamp
    at rest, and the clamp's descent starts after it. bow_phase (rad) mixes a third half-wave into
    the sideways bow, y = b (cos(phase) sin(2 pi s/L) + sin(phase) sin(3 pi s/L)) (0: the published
    problem; an ensemble's members differ by it: a turn of the whole bow would not do, the problem
    is symmetric about the vertical)."""
    top = CLEARANCE + L + stretch()
    b = BOW * L
    # the stress-free rope hangs from the clamp: s down from the top, bowed sideways
    pts = []
    for i in range(n + 1):
        s = L * i / n
        by = math.cos(bow_phase) * math.sin(2 * math.pi * s / L) + math.sin(bow_phase) * math.sin(3 * math.pi * s / L)
        pts.append((b * math.sin(math.pi * s / L), b * by, top - s))
    # the nodes' arc length must add up to L: scale the chords (the bow lengthens them by 1e-5)
    chords = [math.dist(pts[i], pts[i + 1]) for i in range(n)]
    k = L / sum(chords)
    pos = [list(pts[0])]
    for i in range(n):
        d = [(pts[i + 1][c] - pts[i][c]) * k for c in range(3)]
        pos.append([pos[-1][c] + d[c] for c in range(3)])
    quats = []
    for i in range(n + 1):  # e_x along the chords' mean, e_y the horizontal direction across it
        a, c = max(i - 1, 0), min(i + 1, n)
        t = [pos[c][q] - pos[a][q] for q in range(3)]
        tn = math.sqrt(sum(v * v for v in t))
        t = [v / tn for v in t]
        ref = (0.0, 1.0, 0.0)
        d = sum(t[q] * ref[q] for q in range(3))
        nn = [ref[q] - d * t[q] for q in range(3)]
        nl = math.sqrt(sum(v * v for v in nn))
        quats.append(quat_from_frame(t, [v / nl for v in nn]))
    nu = 2 * max(3.516 * math.sqrt(E * (R * R / 4) / RHO) / L**2, math.sqrt(GRAV / L))
    area, inertia = math.pi * R * R, math.pi * R**4 / 4
    descent = descent_time()
    t_end = t_end if t_end else descent + SETTLE
    sc = {
        "name": "rope-pile",
        "description": "A 1.5 m rope (r = 2.5 mm, E = 1 MPa) lowered from a clamp at 0.4 m/s onto a rough floor "
        "(mu = 0.3), piling up with self-contact: cosseratbench's pile experiment (bench/rope_pile.py).",
        "rod": {
            "elements": n,
            "material": {"E": E, "G": G, "rho": RHO},
            "reference": {"type": "nodes", "positions": pos, "quaternions": quats},
            "sections": [{"shape": "circle", "radius": R}],
            "damping": {"drag": nu * RHO * area, "rotational_drag": [nu * RHO * 2 * inertia, nu * RHO * inertia,
                                                                     nu * RHO * inertia]},
        },
        "boundary_conditions": [
            {"type": "clamp", "node": "start", "position": [pos[0][0], pos[0][1], CLAMP_END],
             "time": {"type": "ramp", "t0": 0, "t1": descent}}
        ],
        "loads": [{"type": "gravity", "value": [0, 0, -GRAV]}],
        "obstacles": [{"type": "plane", "name": "floor", "point": [0, 0, 0], "normal": [0, 0, 1],
                       "friction": {"static": MU, "kinetic": MU}}],
        "contact": {"self": True},
        "stages": [
            {"type": "static"},
            {"type": "dynamic", "t_end": t_end, "output_dt": output_dt if output_dt else (descent + SETTLE) / 200,
             "rtol": rtol, "atol": atol},
        ],
        "output": {"vtk": True, "track": [{"name": "tip", "node": "end"}]},
    }
    if lgvi_step:
        # the midpoint strain frame: second order in space (docs/lgvi.md), the standard (variational) model;
        # "left": the paper's first-order strains, the discrete rod PyElastica also uses
        sc["model"] = {"type": "lgvi", "dilatation": False, "strains": lgvi_strains}
        dt = sc["stages"][1]["output_dt"]
        sc["boundary_conditions"][0]["time"] = {"type": "ramp", "t0": lgvi_settle, "t1": lgvi_settle + descent}
        sc["stages"] = ([{"type": "dynamic", "t_end": lgvi_settle, "output_dt": dt, "time_step": lgvi_step}]
                        if lgvi_settle > 0 else []) + \
            [{"type": "dynamic", "t_end": t_end, "output_dt": dt, "time_step": lgvi_step}]  # a stage's duration
    return sc


def lgvi_stable_step(cli, n, strains="midpoint"):
    """The lgvi rod's stable step for the pile (cosserat check's limit, read from its refusal of a
    1 s step)."""
    import re
    sc = scenario(n, 1e-6, 1e-8, lgvi_step=1.0, lgvi_settle=0.0, lgvi_strains=strains)
    sc["stages"][0]["t_end"], sc["stages"][0]["output_dt"] = 2.0, 1.0
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sc, f)
    p = subprocess.run([cli, "check", f.name], capture_output=True, text=True)
    os.unlink(f.name)
    m = re.search(r"about ([0-9.e+-]+) s", p.stdout + p.stderr)
    if not m:
        raise SystemExit("cosserat check did not give the stable step: " + (p.stdout + p.stderr)[-800:])
    return float(m.group(1))


def seg_closest(p0, p1, q0, q1):
    """Distance of the closest points of segments [p0, p1], [q0, q1] (Ericson 5.1.9)."""
    import numpy as np
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    c, bb = d1 @ r, d1 @ d2
    den = a * e - bb * bb
    s = np.clip((bb * f - c * e) / den, 0, 1) if den > 1e-12 * a * e else 0.0
    t = (bb * s + f) / e
    if t < 0:
        t, s = 0.0, np.clip(-c / a, 0, 1)
    elif t > 1:
        t, s = 1.0, np.clip((bb - c) / a, 0, 1)
    return np.linalg.norm(p0 + s * d1 - q0 - t * d2)


def self_overlap(x, s):
    """Deepest overlap 2R - d of the rope's non-excluded segment pairs (m; <= 0: none)."""
    import numpy as np
    n = len(x) - 1
    lo, hi = np.minimum(x[:-1], x[1:]) - R, np.maximum(x[:-1], x[1:]) + R
    worst = -np.inf
    for a in range(n):
        far = np.arange(a + 2, n)
        far = far[s[far] - s[a + 1] >= 0.5 * math.pi * 2 * R]
        if not len(far):
            continue
        near = far[np.all((lo[far] <= hi[a]) & (hi[far] >= lo[a]), axis=1)]
        for b in near:
            worst = max(worst, 2 * R - seg_closest(x[a], x[a + 1], x[b], x[b + 1]))
    return worst


def analyse(out):
    import numpy as np
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from cosserat.output import read_csv, read_pvd
    summ = json.load(open(os.path.join(out, "summary.json")))
    dyn = [s for s in summ["stages"] if s["type"] == "dynamic"]
    st = dyn[0]
    ser = read_csv(os.path.join(out, "series.csv"))
    res = {"status": summ.get("status"), "t_end": dyn[-1]["t_end"], "steps": sum(s["steps"] for s in dyn),
           "rejected": st["rejected_steps"], "newton": st["newton_iterations"], "jacobians": st["jacobians"],
           "lu": st["lu_factorizations"], "wall_s": sum(s["wall_time_s"] for s in dyn)}
    if len(dyn) > 1:
        res["stage_steps"] = [s["steps"] for s in dyn]
        res["stage_wall_s"] = [s["wall_time_s"] for s in dyn]
    # the lgvi rod has no energy_gravity (gravity's work is in work_external) nor energy_dissipated
    # (the drag's negative work is in work_external too)
    for col in ("energy_gravity", "energy_dissipated"):
        if col not in ser:
            ser[col] = 0 * ser["energy_kinetic"]
    res["floor_penetration_m"] = float(np.max(ser["contact_penetration"]))
    bal = ser["energy_kinetic"] + ser["energy_elastic"] + ser["energy_gravity"] - ser["work_external"] \
        + ser["energy_dissipated"]
    res["energy_balance_drift_J"] = float(np.max(np.abs(bal - bal[0])))
    res["energy_dissipated_J"] = float(ser["energy_dissipated"][-1])
    res["kinetic_max_J"] = float(np.max(ser["energy_kinetic"]))
    worst, at = -np.inf, None
    frames = read_pvd(os.path.join(out, "rod.pvd"))
    for fr in frames:
        x = np.asarray(fr.points)
        s = np.asarray(fr.point_data["s"])
        w = self_overlap(x, s)
        if w > worst:
            worst, at = w, fr.time
    res["self_overlap_m"], res["self_overlap_at_s"] = float(worst), at
    # the pile's measures as cosseratbench defines them (experiments/pile.py): the nodes beyond
    # 2 x 0.15 m from the clamp, the highest above the floor in diameters, the furthest from
    # their centre horizontally, and the pairs of segments nearer than 1.1 diameters
    x = np.asarray(frames[-1].points)
    s = np.asarray(frames[-1].point_data["s"])
    pile = x[s >= 2 * CLAMP_END]
    res["pile_height_diameters"] = float(pile[:, 2].max() / (2 * R))
    hor = pile[:, :2]
    res["footprint_m"] = float(np.linalg.norm(hor - hor.mean(axis=0), axis=1).max())
    touching = 0
    for a in range(len(x) - 1):
        for b in range(a + 2, len(x) - 1):
            if s[b] - s[a + 1] >= 0.5 * math.pi * 2 * R and seg_closest(x[a], x[a + 1], x[b], x[b + 1]) < 1.1 * 2 * R:
                touching += 1
    res["contacts_final"] = touching
    res["snapshots"] = len(frames)
    return res


def compare(out, ref, offset=0.0):
    """The run's distance from a reference run of the same problem (a tighter tolerance): per
    snapshot the largest node distance and the centroid's distance, the first time a node is a
    radius R away, and the pile's measures side by side."""
    import numpy as np
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from cosserat.output import read_pvd
    fa, fb = read_pvd(os.path.join(out, "rod.pvd")), read_pvd(os.path.join(ref, "rod.pvd"))
    # the dynamic frames from the descent's start on: a static stage's frames have negative
    # times, and a run with a settling stage first (the lgvi rod) starts the descent at `offset`
    fa = [f for f in fa if f.time >= offset - 1e-9]
    fb = [f for f in fb if f.time >= -1e-9]
    node, cent, first_r = [], [], None
    for a, b in zip(fa, fb):
        xa, xb = np.asarray(a.points), np.asarray(b.points)
        d = float(np.max(np.linalg.norm(xa - xb, axis=1)))
        node.append(d)
        cent.append(float(np.linalg.norm(xa.mean(axis=0) - xb.mean(axis=0))))
        if first_r is None and d > R:
            first_r = a.time
    return {"node_distance_max_m": max(node), "node_distance_final_m": node[-1],
            "centroid_distance_max_m": max(cent), "first_node_R_away_s": first_r, "snapshots_compared": len(node)}


MEASURES = ("pile_height_diameters", "footprint_m", "contacts_final", "floor_penetration_m", "self_overlap_m")
HIGH_PILE = 1.58  # diameters: between the two outcomes seen (1.49-1.50 and 1.66-1.67)


def run_cli(cmd, out):
    """Runs cosserat; its own CPU time from wait4 (members may run side by side)."""
    with open(os.path.join(out, "stdout.txt"), "w") as fo, open(os.path.join(out, "stderr.txt"), "w") as fe:
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    return {"run_wall_s": time.time() - t0, "run_cpu_s": ru.ru_utime + ru.ru_stime, "exit": p.returncode}


def statistics(members):
    """Mean, standard deviation, extremes of each measure over an ensemble's members, and the
    fraction that ends in the high pile."""
    import numpy as np
    st = {"members": len(members)}
    for m in MEASURES + ("run_cpu_s",):
        v = np.array([r[m] for r in members if m in r], dtype=float)
        if len(v):
            st[m] = {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
                     "min": float(v.min()), "max": float(v.max())}
    h = np.array([r["pile_height_diameters"] for r in members])
    st["high_pile_fraction"] = float(np.mean(h > HIGH_PILE))
    return st


def compare_ensembles(a, b):
    """Two ensembles' outcome distributions: per measure the difference of the means in units of
    its standard error, and the two-sample Kolmogorov-Smirnov p-value (scipy, if installed)."""
    import numpy as np
    try:
        from scipy import stats
    except ImportError:
        stats = None
    out = {}
    for m in MEASURES:
        x = np.array([r[m] for r in a], dtype=float)
        y = np.array([r[m] for r in b], dtype=float)
        se = math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y)) if len(x) > 1 and len(y) > 1 else 0.0
        c = {"mean_difference": float(x.mean() - y.mean()),
             "in_standard_errors": float((x.mean() - y.mean()) / se) if se > 0 else None}
        if stats is not None:
            c["ks_p"] = float(stats.ks_2samp(x, y).pvalue)
            c["welch_p"] = float(stats.ttest_ind(x, y, equal_var=False).pvalue) if se > 0 else None
        out[m] = c
    return out


def member_results(out):
    """The members' results of an ensemble directory (member-*/result.json)."""
    import glob
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, "member-*", "result.json")))]


def plot_ensembles(png, dirs):
    """The members' pile height against footprint, and their touching pairs, for each ensemble
    directory (labelled by its model and elements)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5.4), gridspec_kw={"width_ratios": [1.6, 1]})
    marks = ["o", "s", "^", "D", "v"]

    def model(r, short=False):
        if r["formulation"] != "lgvi":
            return "mixed" if short else "mixed rod"
        if r.get("lgvi_strains", "midpoint") == "left":  # runs before the option were midpoint runs
            return "LGVI 1st" if short else "LGVI, paper's first-order strains (PyElastica's rod)"
        return "LGVI" if short else "LGVI, midpoint strains"

    for k, d in enumerate(dirs):
        ms = member_results(d)
        lab = f"{model(ms[0])}, {ms[0]['elements']} elements " \
              f"({len(ms)} members, {statistics(ms)['run_cpu_s']['mean']:.1f} s CPU each)"
        sc = ax.scatter([100 * r["footprint_m"] for r in ms], [r["pile_height_diameters"] for r in ms],
                        marker=marks[k % 5], alpha=0.75, label=lab)
        col = sc.get_facecolor()[0][:3]
        bx.scatter([k + 0.12 * ((i % 5) - 2) for i in range(len(ms))], [r["contacts_final"] for r in ms],
                   marker=marks[k % 5], alpha=0.75, color=col)
        ax.errorbar([100 * statistics(ms)["footprint_m"]["mean"]], [statistics(ms)["pile_height_diameters"]["mean"]],
                    xerr=[100 * statistics(ms)["footprint_m"]["sd"] / math.sqrt(len(ms))], color=col, capsize=4, lw=2, zorder=5)
    ax.set_xlabel("footprint radius (cm)")
    ax.set_ylabel("pile height (rope diameters)")
    ax.set_title("final pile of each member\n(bars: the means, footprint \u00b1 standard error)", fontsize=10)
    fig.legend(fontsize=8, loc="lower center", ncol=2)
    bx.set_xticks(range(len(dirs)))
    bx.set_xticklabels([f"{model(member_results(d)[0], True)}\n{member_results(d)[0]['elements']}" for d in dirs])
    bx.set_ylabel("touching segment pairs (nearer than 1.1 diameters)")
    bx.set_title("touching pairs, final state")
    fig.suptitle("Rope pile, 1.5 m, ensembles over the bow's shape (bench/rope_pile.py --ensemble)")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--elements", type=int, default=150)
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-8)
    ap.add_argument("--t-end", type=float, default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--write-only", default=None, help="write the scenario JSON to this file and stop")
    ap.add_argument("--callgrind", action="store_true", help="run under valgrind --tool=callgrind (slow)")
    ap.add_argument("--reference", default=None,
                    help="output directory of a reference run (a tighter rtol): report the distance from it")
    ap.add_argument("--analyse-only", action="store_true", help="do not run: analyse the run already in --out")
    ap.add_argument("--formulation", default="mixed_discrete", choices=["mixed_discrete", "lgvi"],
                    help="lgvi: the explicit rod at a fixed step (a settling stage replaces the static one)")
    ap.add_argument("--time-step", type=float, default=None,
                    help="lgvi: the step (default: the largest that divides the output interval within the stable "
                    "step cosserat check gives)")
    ap.add_argument("--lgvi-strains", default="midpoint", choices=["midpoint", "left"],
                    help="lgvi: the strains' frame (midpoint: second order in space; left: the paper's first-order "
                    "form, PyElastica's discrete rod)")
    ap.add_argument("--settle", type=float, default=2.0,
                    help="lgvi: seconds of settling under gravity with the clamp at rest before the descent (a whole "
                    "number of output intervals is used)")
    ap.add_argument("--ensemble", type=int, default=0,
                    help="run N members whose bows differ by their phase pi k / N (member 0 is the published problem; "
                    "scenario(); a phase and that plus pi are mirror images) and report the distribution of the pile's measures")
    ap.add_argument("--jobs", type=int, default=1, help="ensemble members run side by side")
    ap.add_argument("--against", default=None,
                    help="an ensemble's output directory: compare this ensemble's distribution with it")
    ap.add_argument("--plot", nargs="+", metavar=("PNG", "DIR"), default=None,
                    help="plot the ensembles in the directories DIR ... into PNG and stop")
    a = ap.parse_args()
    if a.plot:
        plot_ensembles(a.plot[0], a.plot[1:])
        return
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    cli = os.path.join(root, a.build, "cosserat")
    settle, step = 0.0, None
    if a.formulation == "lgvi":
        dt = (descent_time() + SETTLE) / 200
        settle = round(a.settle / dt) * dt
        step = a.time_step
        if not step:  # check prints its limit to 3 digits: step down until it takes the step
            n = math.ceil(dt / lgvi_stable_step(cli, a.elements, a.lgvi_strains))
            for _ in range(10):
                sc = scenario(a.elements, a.rtol, a.atol, a.t_end, lgvi_step=dt / n, lgvi_settle=settle,
                              lgvi_strains=a.lgvi_strains)
                with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                    json.dump(sc, f)
                ok = subprocess.run([cli, "check", f.name], capture_output=True).returncode == 0
                os.unlink(f.name)
                if ok:
                    break
                n += 1
            step = dt / n

    def member(out, phase):
        """One run (or its analysis) in `out`: the scenario with the bow's phase `phase`."""
        sc = scenario(a.elements, a.rtol, a.atol, a.t_end, lgvi_step=step, lgvi_settle=settle, bow_phase=phase,
                      lgvi_strains=a.lgvi_strains)
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "rope-pile.json")
        if a.analyse_only and os.path.exists(path) and sc.get("model") != json.load(open(path)).get("model"):
            raise SystemExit(f"{path}: run with model {json.load(open(path)).get('model')}, not {sc.get('model')}: "
                             "give the run's options (--formulation, --lgvi-strains)")
        json.dump(sc, open(path, "w"))
        cmd = [cli, "run", path, "-o", out, "-q"]
        if a.callgrind:
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out"] + cmd
        res = {} if a.analyse_only else run_cli(cmd, out)
        res.update(analyse(out))
        if a.reference:
            res["against_reference"] = compare(out, a.reference, settle)
        res["elements"], res["formulation"], res["bow_phase_rad"] = a.elements, a.formulation, phase
        if a.formulation == "lgvi":
            res["time_step"], res["settle_s"], res["lgvi_strains"] = step, settle, a.lgvi_strains
        else:
            res["rtol"], res["atol"] = a.rtol, a.atol
        json.dump(res, open(os.path.join(out, "result.json"), "w"), indent=1)
        return res

    if a.write_only:
        json.dump(scenario(a.elements, a.rtol, a.atol, a.t_end, lgvi_step=step, lgvi_settle=settle,
                           lgvi_strains=a.lgvi_strains),
                  open(a.write_only, "w"))
        return
    out = a.out or tempfile.mkdtemp(prefix="rope-pile-")
    if not a.ensemble:
        res = member(out, 0.0)
        if not a.analyse_only:
            print(open(os.path.join(out, "stdout.txt")).read()[-2000:], open(os.path.join(out, "stderr.txt")).read()[-2000:],
                  sep="\n")
        print(json.dumps(res, indent=1))
        return
    from concurrent.futures import ThreadPoolExecutor
    dirs = [os.path.join(out, f"member-{k:02d}") for k in range(a.ensemble)]
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        members = list(ex.map(lambda k: member(dirs[k], math.pi * k / a.ensemble), range(a.ensemble)))
    for k, r in enumerate(members):
        print(f"member {k:2d}: bow phase {r['bow_phase_rad']:.3f} rad, exit {r.get('exit', '-')}, "
              f"{r.get('run_cpu_s', float('nan')):.1f} s CPU, pile {r['pile_height_diameters']:.3f} diameters, "
              f"footprint {100 * r['footprint_m']:.2f} cm, {r['contacts_final']} touching pairs, floor "
              f"{1e3 * r['floor_penetration_m']:.3f} mm, self {1e3 * r['self_overlap_m']:.3f} mm")
    res = {"statistics": statistics(members), "elements": a.elements, "formulation": a.formulation}
    if a.formulation == "lgvi":
        res["lgvi_strains"] = a.lgvi_strains
    if a.against:
        res["against"] = {"ensemble": a.against, "statistics": statistics(member_results(a.against)),
                          "comparison": compare_ensembles(members, member_results(a.against))}
    json.dump(res, open(os.path.join(out, "ensemble.json"), "w"), indent=1)
    print(json.dumps(res, indent=1))

if __name__ == "__main__":
    main()
