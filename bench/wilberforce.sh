#!/usr/bin/env bash
# Dynamics benchmark (not a test): the full Wilberforce pendulum of spec §8.3
# (n = 800, T = 20 s, Radau IIA rtol 1e-3, atol 1e-6) on one core, with the
# integrator statistics, the cost per step per node, and the ratios to the numbers
# kept in bench/baseline.json (wilberforce_*: measured before the dynamics speed
# work of issue 11 §3) against the issue's goal.
#   bash bench/wilberforce.sh [build-dir] [extra cosserat args, e.g. --set stages.1.t_end=2]
# The goal and the ratios are for the full 20 s run; with extra arguments only the
# statistics are printed.
set -eu
build="${1:-build}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# user CPU time of the whole run (less sensitive than the wall time to the other jobs on the machine)
TIMEFORMAT=%U
{ time "$root/$build/cosserat" run "$root/examples/wilberforce.json" -o "$out" --set output.vtk=false -q "$@" \
    > /dev/null 2> "$out/stderr.txt"; } 2> "$out/user.txt"
/usr/bin/python3 - "$out/summary.json" "$root/bench/baseline.json" "$#" "$out/user.txt" <<'PY'
import json, sys
user = float(open(sys.argv[4]).read().split()[-1])
s = json.load(open(sys.argv[1]))
d = [st for st in s["stages"] if st["type"] == "dynamic"][0]
nodes = s["nodes"]
lu = d["lu_factorizations"]
print(f"wilberforce n={s['elements']}: t {d['t_start']:.3g} -> {d['t_end']:.3g} s in {d['wall_time_s']:.2f} s wall")
print(f"  steps {d['steps']} (rejected {d['rejected_steps']}), Newton {d['newton_iterations']}, "
      f"F evaluations {d['function_evaluations']}, Jacobians {d['jacobians']}, LU {lu} (real and complex)")
print(f"  {d['us_per_step_per_node']:.2f} us per step per node ({nodes} nodes); the whole run {user:.2f} s user CPU")
if int(sys.argv[3]) > 0 or abs(d["t_end"] - d["t_start"] - 20) > 1e-9:
    sys.exit(0)
try:
    base = json.load(open(sys.argv[2]))
except OSError:
    base = {}
rows = [("wall time [s]", d["wall_time_s"], "wilberforce_wall_s", 7.0),
        ("user CPU time, whole run [s]", user, "wilberforce_user_s", None),
        ("steps", d["steps"], "wilberforce_steps", None),
        ("Newton iterations", d["newton_iterations"], "wilberforce_newton_iterations", None),
        ("LU factorizations", lu, "wilberforce_lu_factorizations", None),
        ("us per step per node", d["us_per_step_per_node"], "wilberforce_us_per_step_node", None)]
print(f"\n{'target':36s} {'now':>10s} {'baseline':>10s} {'ratio':>8s} {'goal':>8s}")
for label, now, key, goal in rows:
    b = base.get(key)
    ratio = f"{now / b:.2f}" if b else "-"
    g = f"{goal:8.2f} {'met' if now <= goal else 'MISSED'}" if goal else f"{'':8s}"
    print(f"{label:36s} {now:10.3f} {b if b else 0:10.3f} {ratio:>8s} {g}")
print("(wall times on a shared machine vary by up to 1.5x between runs: compare the counts, or use "
      "valgrind --tool=callgrind on a shorter run, see bench/baseline.json)")
PY
