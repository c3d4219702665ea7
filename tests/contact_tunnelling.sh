#!/usr/bin/env bash
# No tunnelling (docs/theory.md, "Contact with obstacles"): a step may not carry a node through a
# thin obstacle, where the error test sees a smooth motion on both sides and the penalty would
# push the node out of the far face. Before the step limit, both runs below went straight through.
# (a) A stiff rod (0.2 m, radius 1 mm) falls 5 m onto a 0.5 mm plate (a box): it hits at
#     sqrt(2 g h) = 9.9 m/s. Every tracked node stays above the plate at every output (before:
#     2.06 m below it), it bounces back up (the penalty is elastic) and the total energy stays
#     within 1 % (it may only decrease: the integrator's damping).
# (b) A 2 mm plate moving at 20 m/s hits the rod at rest (a rod thrown at a plate, seen from the
#     rod): the rod stays on its side and leaves at twice the plate's speed, the elastic bounce off
#     a wall moving at v: kinetic energy ½ m (2v)² within 2 %.
# (c) The same plate driven by a table of poses (docs/scenario.md `obstacles.K.motion`) that starts
#     only at t = 0.5 s, from 0.5 m below the rod at rest to 0.5 m above it at 0.55 s (the Hermite
#     cubic: 30 m/s where it meets the rod): until then nothing moves, the steps have grown long,
#     and the limit takes the speed the table will reach within the step (without that bound a
#     0.25 s step went past the whole table: the rod stayed where it was); the rod leaves at
#     twice 30 m/s, momentum 2 m v within 1 %.
set -u
cli="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
rod='"length": 0.2, "elements": 20, "material": { "E": 1e9, "G": 4e8, "rho": 1000 },
     "sections": [ { "shape": "circle", "radius": 0.001 } ]'
track='"track": [ { "name": "a", "node": 0 }, { "name": "mid", "node": 10 }, { "name": "b", "node": -1 } ]'
cat > "$tmp/fall.json" << JSON
{ "name": "fall", "rod": { $rod, "reference": { "type": "straight", "origin": [-0.1, 0, 5] } },
  "loads": [ { "type": "gravity", "value": [0, 0, -9.81] } ],
  "obstacles": [ { "type": "box", "name": "plate", "center": [0, 0, 0], "half_extents": [1, 1, 0.00025] } ],
  "stages": [ { "type": "dynamic", "t_end": 1.2, "output_dt": 0.01, "rtol": 1e-5, "atol": 1e-8 } ],
  "output": { "vtk": false, $track } }
JSON
cat > "$tmp/plate.json" << JSON
{ "name": "plate", "rod": { $rod, "reference": { "type": "straight", "origin": [-0.1, 0, 0] } },
  "obstacles": [ { "type": "box", "name": "plate", "center": [0, 0, -0.5], "half_extents": [1, 1, 0.001],
                   "velocity": [0, 0, 20] } ],
  "stages": [ { "type": "dynamic", "t_end": 0.05, "output_dt": 0.001, "rtol": 1e-5, "atol": 1e-8 } ],
  "output": { "vtk": false, $track } }
JSON
cat > "$tmp/table.json" << JSON
{ "name": "table", "rod": { $rod, "reference": { "type": "straight", "origin": [-0.1, 0, 0] } },
  "obstacles": [ { "type": "box", "name": "plate", "center": [0, 0, -0.5], "half_extents": [1, 1, 0.001],
                   "motion": [[0.5, 0, 0, -0.5], [0.55, 0, 0, 0.5]] } ],
  "stages": [ { "type": "dynamic", "t_end": 0.6, "output_dt": 0.1, "rtol": 1e-5, "atol": 1e-8 } ],
  "output": { "vtk": false, $track } }
JSON
for c in fall plate table; do
    "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || { echo "FAIL $c: $(cat "$tmp/$c.log")"; fail=1; }
done
python3 - "$tmp" << 'PY' || fail=1
import csv, math, sys

m = 1000 * math.pi * 1e-6 * 0.2
fail = 0


def rows(c):
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{sys.argv[1]}/{c}/series.csv"))]


r = rows("fall")
low = min(min(x["a_z"], x["mid_z"], x["b_z"]) for x in r)
e0, e1 = r[0]["energy_total"], r[-1]["energy_total"]
if low > 0.00025 and r[-1]["momentum_z"] > 0 and -0.01 < (e1 - e0) / e0 <= 1e-9:
    print(f"ok     fall 5 m onto a 0.5 mm plate: lowest tracked centre {low:.2e} m above the plate's middle, "
          f"bounced (p_z = {r[-1]['momentum_z']:.3e} kg m/s), energy {(e1 - e0) / e0:+.1e}")
else:
    print(f"FAIL fall: lowest tracked centre z = {low:.3g} m, final p_z {r[-1]['momentum_z']:.3g}, "
          f"energy {e0:.6g} -> {e1:.6g}")
    fail = 1
r = rows("plate")
x = r[-1]
low = min(x["a_z"], x["mid_z"], x["b_z"]) - (-0.5 + 20 * x["t"] + 0.001)
ek = 0.5 * m * 40**2
if low > 0 and abs(x["energy_kinetic"] / ek - 1) < 0.02:
    print(f"ok     plate at 20 m/s: the rod stays {low:.3g} m above it and leaves with E_k = {x['energy_kinetic']:.4g} J "
          f"(1/2 m (2v)^2 = {ek:.4g} J)")
else:
    print(f"FAIL plate: the rod's lowest tracked centre is {low:.3g} m from the plate's top, "
          f"E_k {x['energy_kinetic']:.4g} J against {ek:.4g} J")
    fail = 1
x = rows("table")[-1]
low = min(x["a_z"], x["mid_z"], x["b_z"]) - 0.501
if low > 0 and abs(x["momentum_z"] / (m * 60) - 1) < 0.01:
    print(f"ok     plate driven by a table starting at 0.5 s: the rod stays {low:.3g} m above it and leaves with "
          f"p = {x['momentum_z']:.5g} kg m/s (2 m v = {m * 60:.5g})")
else:
    print(f"FAIL table: the rod's lowest tracked centre is {low:.3g} m from the plate's top at its last pose, "
          f"p {x['momentum_z']:.5g} kg m/s against {m * 60:.5g}")
    fail = 1
sys.exit(fail)
PY
exit $fail
