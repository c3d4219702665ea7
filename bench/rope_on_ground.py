#!/usr/bin/env python3
"""Contact cost benchmark (not a test): a rope of 10^4 elements lying on rough ground, one dynamic
step with the ground against the same step without it (the goal: at most 2x).

The rope: L = 10 m, r = 5 mm, E = 5 MPa, G = 1.7 MPa, rho = 1100 kg/m^3 (the cord of
examples/cable-on-ground.json, 10^4 elements), lying straight on a plane with Coulomb friction
(mu_s 0.6, mu_k 0.4), laid down by a static stage, then a dynamic stage whose steps are fixed
(h_init = h_max, at rtol 1e-5, atol 1e-8 as obstacles need) while a small force along the rope
pulls its end (below friction: the rope sticks). Without contact the same rope is held by a
uniform upward load equal to its weight instead (and the same pull), so that both runs integrate
a rope at rest with the same loads and steps. The cost per step is the dynamic stage's wall time
(or callgrind's instructions of the whole run, less a run of 0 steps) over its steps.

  python3 bench/rope_on_ground.py [--build build] [--elements 10000] [--steps 20] [--callgrind] [--rolling]
"""
import argparse
import json
import os
import subprocess
import tempfile

L, R, E, G, RHO, GRAV = 10.0, 0.005, 5e6, 1.7e6, 1100.0, 9.81


def scenario(n, contact, steps, h, rolling=False):
    w = RHO * 3.141592653589793 * R * R * GRAV  # weight per length (N/m)
    loads = [{"type": "gravity", "value": [0, 0, -GRAV]},
             {"type": "force", "node": "end", "value": [0.1 * 0.6 * w * L, 0, 0], "stages": [1]}]
    if not contact:  # the ground's support as a load: the same rope at rest, without contact
        loads.append({"type": "force_density", "value": [0, 0, w]})
    sc = {
        "name": "rope-on-ground",
        "rod": {"length": L, "elements": n, "material": {"E": E, "G": G, "rho": RHO},
                "reference": {"type": "straight", "origin": [0, 0, R]},
                "sections": [{"shape": "circle", "radius": R}]},
        "loads": loads,
        "stages": [{"type": "static", "stability": False},
                   {"type": "dynamic", "t_end": steps * h, "output_dt": steps * h, "rtol": 1e-5, "atol": 1e-8,
                    "h_init": h, "h_max": h}],
        "output": {"vtk": False},
    }
    if contact:
        sc["obstacles"] = [{"type": "plane", "name": "ground", "point": [0, 0, 0], "normal": [0, 0, 1],
                            "friction": {"static": 0.6, "kinetic": 0.4}}]
        if rolling:  # friction at the contact point (its moment and the surface point's slip)
            sc["contact"] = {"rolling": True}
    else:  # a clamp-free rope at rest needs its rigid motions held in statics: pin the ends' heights
        sc["boundary_conditions"] = [{"type": "support", "node": "start", "hold": ["x", "y", "z"], "stages": [0]},
                                     {"type": "support", "node": 1, "hold": ["y", "z"], "stages": [0]},
                                     {"type": "support", "node": "end", "hold": ["y", "z"], "stages": [0]}]
    return sc


def run(build, sc, callgrind, tag, out):
    path = os.path.join(out, tag + ".json")
    json.dump(sc, open(path, "w"))
    cmd = [os.path.join(build, "cosserat"), "run", path, "-o", os.path.join(out, tag), "-q"]
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/{tag}.cg"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{tag}: exit {p.returncode}\n{p.stdout[-1500:]}\n{p.stderr[-1500:]}")
    s = json.load(open(os.path.join(out, tag, "summary.json")))
    d = [st for st in s["stages"] if st["type"] == "dynamic"][0]
    res = {"steps": d["steps"], "rejected": d["rejected_steps"], "newton": d["newton_iterations"],
           "f_evals": d["function_evaluations"], "jacobians": d["jacobians"], "lu": d["lu_factorizations"],
           "wall_s": d["wall_time_s"]}
    if callgrind:
        for line in p.stderr.splitlines():
            if "Collected" in line:
                res["instructions"] = int(line.split()[-1].replace(",", ""))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--elements", type=int, default=10000)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--h", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--rolling", action="store_true", help="the ground's friction at the contact point")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    build = os.path.join(root, a.build)
    out = tempfile.mkdtemp(prefix="rope-on-ground-")
    res = {}
    for contact in (0, 1):
        tag = "ground" if contact else "free"
        best = None
        for _ in range(1 if a.callgrind else a.repeats):
            r = run(build, scenario(a.elements, contact, a.steps, a.h, a.rolling), False, tag, out)
            best = r if best is None or r["wall_s"] < best["wall_s"] else best
        res[tag] = best
        if a.callgrind:  # instructions of the steps: the run less a run of one step
            full = run(build, scenario(a.elements, contact, a.steps, a.h, a.rolling), True, tag + "_cg", out)
            one = run(build, scenario(a.elements, contact, 1, a.h, a.rolling), True, tag + "_cg1", out)
            res[tag]["instructions_per_step"] = (full["instructions"] - one["instructions"]) / (
                full["steps"] - one["steps"])
            res[tag]["f_evals_cg"] = full["f_evals"] - one["f_evals"]
    for tag, r in res.items():
        print(f"{tag:7s} n = {a.elements}: {r['steps']} steps ({r['rejected']} rejected), Newton {r['newton']}, "
              f"F {r['f_evals']}, Jacobians {r['jacobians']}, LU {r['lu']}: {1e3 * r['wall_s'] / r['steps']:.2f} ms "
              "a step" + (f", {r['instructions_per_step'] / 1e6:.1f} M instructions a step"
                          if "instructions_per_step" in r else ""))
    g, f = res["ground"], res["free"]
    print(f"ratio ground/free: wall {g['wall_s'] / g['steps'] / (f['wall_s'] / f['steps']):.2f}" +
          (f", instructions {g['instructions_per_step'] / f['instructions_per_step']:.2f}"
           if "instructions_per_step" in g else ""))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
