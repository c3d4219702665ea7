#!/usr/bin/env bash
# Output-speed benchmark (not a test; issue 11 §1): the tendon manipulator (n = 1250, 8 load
# steps: 8 .vtp snapshots, nodes.csv, elements.csv, summary.json) through the CLI, pinned to one
# core. Prints the best of N runs, wall and CPU (user + system) time, with every output, without
# the snapshots (output.vtk=false) and without any file (-o ""), the cost per snapshot, and the
# ratio to bench/baseline.json "tendon_cli" (ASCII snapshots and %.17g CSVs, before binary VTK).
# On a shared machine the CPU times are the steadier numbers; callgrind instruction counts
# (docs/scenario.md, Output files) do not depend on the load at all.
#   bash bench/tendon_cli.sh [build-dir] [runs, default 15] [extra cosserat args]
set -eu
build="${1:-build}"
runs="${2:-15}"
shift 2 || shift $# || true
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$root/$build/cosserat" "$root/examples/tendon-manipulator.json" "$out" "$runs" \
    "$root/bench/baseline.json" "$@" <<'PY'
import json, os, resource, shutil, subprocess, sys, time
cli, scenario, out, runs, baseline = sys.argv[1:6]
extra = sys.argv[6:]
env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []

def best(outdir, *sets):
    cmd = pin + [cli, "run", scenario, "-o", outdir, "-q"] + [a for s in sets for a in ("--set", s)] + extra
    wall, cpu = [], []
    for _ in range(int(runs)):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        wall.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    return 1e3 * min(wall), 1e3 * min(cpu)

on = best(out)
off = best(out, "output.vtk=false")
none = best("", "output.vtk=false")
print(f"tendon CLI n=1250, best of {runs} (wall / CPU ms):")
print(f"  every output        {on[0]:6.1f} / {on[1]:6.1f}")
print(f"  no .vtp snapshots   {off[0]:6.1f} / {off[1]:6.1f}   -> {(on[0] - off[0]) / 8:.2f} / "
      f"{(on[1] - off[1]) / 8:.2f} ms per snapshot")
print(f"  no files at all     {none[0]:6.1f} / {none[1]:6.1f}")
ref = json.load(open(baseline)).get("tendon_cli")
if ref:
    print(f"  before binary VTK (bench/baseline.json): every output {ref['all_outputs_wall_ms']:.1f} / "
          f"{ref['all_outputs_cpu_ms']:.1f} ms: now {ref['all_outputs_wall_ms'] / on[0]:.2f}x / "
          f"{ref['all_outputs_cpu_ms'] / on[1]:.2f}x faster")
PY
