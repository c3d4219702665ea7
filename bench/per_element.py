#!/usr/bin/env python3
"""Cost per node of the three formulations side by side (not a test).

    /usr/bin/python3 bench/per_element.py [--cli build/cosserat] [--sizes 10,100,1000,10000,100000]
        [--instructions] [--instructions-max 1000] [--repeats 3] [--baseline bench/baseline.json]
        [--save FILE]

One rod for all three models: a steel cantilever (L = 1 m, circle r = 1 cm, E = 200 GPa, G = 80 GPa,
rho = 7850 kg/m^3) clamped at s = 0 with a 400 N transverse tip force (tip deflection ~8 % of L),
run through the CLI (`cosserat run`, no snapshots) with n = 10 ... 10^5 elements:

  statics   a static stage of 4 load steps (1 beyond 10^3 elements) from the straight rod (mixed_discrete, port_hamiltonian;
            lgvi has no static stages): the stage's wall time / (nodes * Newton iterations);
            (the run's wall time, setup included, less the mixed rod's stability estimate of the end
            state: at 10 elements the setup is most of it);
  dynamics  the tip force suddenly applied, a dynamic stage of a fixed length: the fixed-step models
            take `time_step` h = min(1e-4 s/m * l_e, 1e-6 s) (below lgvi's stable step; the
            port-Hamiltonian midpoint rule's conditioning also asks for h ~ l_e at fine meshes), 20 steps (10 beyond 10^3
            elements, 2 at 10^5); mixed_discrete runs adaptive Radau IIA over the same time: the stage's
            wall time / (nodes * steps).

"Nodes" are each model's own: n + 1 for mixed_discrete and lgvi, 2 n + 1 for port_hamiltonian
(quadratic elements). Wall times are the best of --repeats runs (the machine may be shared: they vary
by up to 2x between runs at a load of 4); with --instructions the same stage runs once under
valgrind --tool=callgrind, counting only the formulation's stage function (mixed_static, ph_dynamic,
...; exact and independent of the machine's load) up to --instructions-max elements.

The table ends with the ratio of each number to bench/baseline.json's "per_element" entry (the
numbers this script printed when the entry was recorded; --save FILE writes this run's numbers in
that format).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

MODELS = ["mixed_discrete", "port_hamiltonian", "lgvi"]
SHORT = {"mixed_discrete": "mixed", "port_hamiltonian": "ph", "lgvi": "lgvi"}
# the formulation's stage entry points (src/*/formulation.c); callgrind toggles collection at each, so the
# mixed rod's stability estimate of the end state (inside mixed_static) is left out, as from its time
STAGE_FUNCTION = {
    ("mixed_discrete", "static"): ["mixed_static", "cr_mixed_static_stability_mode"],
    ("mixed_discrete", "dynamic"): ["mixed_dynamic"],
    ("port_hamiltonian", "static"): ["ph_static"],
    ("port_hamiltonian", "dynamic"): ["ph_dynamic"],
    ("lgvi", "dynamic"): ["lgvi_dynamic"],
}


def dynamic_steps(n):
    return 2 if n >= 100000 else 10 if n > 1000 else 20


def scenario(model, n, kind):
    le = 1.0 / n
    h = min(1e-4 * le, 1e-6)
    if kind == "static":
        stage = {"type": "static", "load_steps": 4 if n <= 1000 else 1}
    else:
        t_end = dynamic_steps(n) * h
        stage = {"type": "dynamic", "t_end": t_end, "output_dt": t_end}
        if model != "mixed_discrete":
            stage["time_step"] = h
    return {
        "name": "bench-per-element",
        "model": model,
        "rod": {
            "length": 1,
            "elements": n,
            "material": {"E": 2e11, "G": 8e10, "rho": 7850},
            "reference": {"type": "straight"},
            "sections": [{"shape": "circle", "radius": 0.01}],
        },
        "boundary_conditions": [{"type": "clamp", "node": "start"}],
        "loads": [{"type": "force", "node": "end", "value": [0, 400, 0]}],
        "stages": [stage],
        "output": {"vtk": False},
    }


def run_once(cli, model, n, kind, callgrind=False):
    """(stage wall time s, nodes, iterations, steps, instructions or None); None when the run failed"""
    with tempfile.TemporaryDirectory(prefix="cosserat_bench_") as tmp:
        path = os.path.join(tmp, "scenario.json")
        with open(path, "w") as f:
            json.dump(scenario(model, n, kind), f)
        out = os.path.join(tmp, "out")
        cmd = [cli, "run", path, "-o", out, "-q"]
        cg = os.path.join(tmp, "callgrind.out")
        if callgrind:
            cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg] + \
                ["--toggle-collect=" + fn for fn in STAGE_FUNCTION[(model, kind)]] + cmd
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.stderr.write("%s %s n=%d: exit %d: %s\n" % (model, kind, n, p.returncode, p.stderr.strip()[-400:]))
            return None
        with open(os.path.join(out, "summary.json")) as f:
            summ = json.load(f)
        st = summ["stages"][0]
        instr = None
        if callgrind:
            with open(cg) as f:
                for line in f:
                    m = re.match(r"(summary|totals):\s*(\d+)", line)
                    if m:
                        instr = int(m.group(2))
        if kind == "static":
            # the run's wall time (a static stage reports none of its own) less the stability estimate
            its = summ.get("newton_iterations_total") or 0
            t = summ["wall_time_s"] - st.get("stability", {}).get("time_s", 0)
            return t, summ["nodes"], its, 0, instr
        return st["wall_time_s"], summ["nodes"], st["newton_iterations"], st["steps"], instr


def measure(cli, model, n, kind, repeats, want_instr):
    best = None
    for _ in range(repeats):
        r = run_once(cli, model, n, kind)
        if r is None:
            return None
        if best is None or r[0] < best[0]:
            best = r
    t, nodes, its, steps, _ = best
    res = {"nodes": nodes}
    if kind == "static":
        res["iterations"] = its
        res["us_per_node_iteration"] = 1e6 * t / (nodes * its) if its else None
    else:
        res["steps"] = steps
        res["iterations_per_step"] = its / steps if steps and its else None
        res["us_per_node_step"] = 1e6 * t / (nodes * steps) if steps else None
    if want_instr:
        r = run_once(cli, model, n, kind, callgrind=True)
        if r and r[4]:
            per = (nodes * its) if kind == "static" else (nodes * steps)
            res["instructions_per_node_iteration" if kind == "static" else "instructions_per_node_step"] = r[4] / per
    return res


def fmt(v, f="%.3g"):
    return "-" if v is None else f % v


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(here, "..", "build", "cosserat"))
    ap.add_argument("--sizes", default="10,100,1000,10000,100000")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--instructions-max", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", default=os.path.join(here, "baseline.json"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--save", help="write this run's numbers as a baseline entry (JSON)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    models = a.models.split(",")
    base = {}
    try:
        with open(a.baseline) as f:
            base = json.load(f).get("per_element", {}).get("results", {})
    except (OSError, ValueError):
        pass

    results = {}
    print("cost per node (statics: per Newton iteration; dynamics: per step); x = ratio to baseline.json per_element")
    print("%-6s %7s | %-28s | %-28s | %-28s" % ("model", "n", "statics us/(node it)", "dynamics us/(node step)",
                                                "instr/(node it) | /(node st)"))
    for n in sizes:
        for model in models:
            row = {}
            for kind in ("static", "dynamic"):
                if (model, kind) not in STAGE_FUNCTION:
                    continue
                r = measure(a.cli, model, n, kind, a.repeats, a.instructions and n <= a.instructions_max)
                if r:
                    row[kind] = r
            results.setdefault(SHORT[model], {})[str(n)] = row
            b = base.get(SHORT[model], {}).get(str(n), {})

            def cell(kind, key, f="%.3g"):
                v = row.get(kind, {}).get(key)
                bv = b.get(kind, {}).get(key)
                s = fmt(v, f)
                if v is not None and bv:
                    s += " (x%.2f)" % (v / bv)
                return s

            st = row.get("static", {})
            dy = row.get("dynamic", {})
            stat = "%s, %s it" % (cell("static", "us_per_node_iteration"), fmt(st.get("iterations"), "%d")) if st else "-"
            dyn = "%s, %s it/st" % (cell("dynamic", "us_per_node_step"), fmt(dy.get("iterations_per_step"), "%.2f")) \
                if dy else "-"
            ins = "%s | %s" % (cell("static", "instructions_per_node_iteration", "%.0f"),
                               cell("dynamic", "instructions_per_node_step", "%.0f"))
            print("%-6s %7d | %-28s | %-28s | %s" % (SHORT[model], n, stat, dyn, ins))
            sys.stdout.flush()
    if a.save:
        with open(a.save, "w") as f:
            json.dump({"results": results}, f, indent=1)


if __name__ == "__main__":
    main()
