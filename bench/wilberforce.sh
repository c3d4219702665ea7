#!/usr/bin/env bash
# Dynamics benchmark (not a test): the full Wilberforce pendulum of spec §8.3
# (n = 800, T = 20 s, Radau IIA rtol 1e-3, atol 1e-6) on one core, with the
# integrator statistics and the cost per step per node.
#   bash bench/wilberforce.sh [build-dir] [extra cosserat args, e.g. --set stages.1.t_end=2]
set -eu
build="${1:-build}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$root/$build/cosserat" run "$root/examples/wilberforce.json" -o "$out" --set output.vtk=false -q "$@" > /dev/null
/usr/bin/python3 - "$out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = [st for st in s["stages"] if st["type"] == "dynamic"][0]
nodes = s["nodes"]
print(f"wilberforce n={s['elements']}: t {d['t_start']:.3g} -> {d['t_end']:.3g} s in {d['wall_time_s']:.2f} s wall")
print(f"  steps {d['steps']} (rejected {d['rejected_steps']}), Newton {d['newton_iterations']}, "
      f"F evaluations {d['function_evaluations']}, Jacobians {d['jacobians']}, LU {d['lu_factorizations']}")
print(f"  {d['us_per_step_per_node']:.2f} us per step per node ({nodes} nodes)")
PY
