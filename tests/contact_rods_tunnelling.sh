#!/bin/bash
# No tunnelling between the rods of an assembly (contact.rods, dynamic stages; docs/theory.md
# "Contact between rods"): a thin rod (r = 1 mm, 0.2 m) dropped 0.2 m (held only against
# sliding sideways at one end) onto another, clamped at both ends across its path, hits it at
# sqrt(2 g h) = 2 m/s. Before the step limit the integrator took 5 steps over the whole fall
# (free fall is smooth on both sides) and the rod passed through (its middle 0.25 m below);
# now it stays on its side (the penetration within 10 % of the radius) and bounces back up.
# Usage: contact_rods_tunnelling.sh CLI SOURCE_DIR
set -u
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3
$py - "$tmp/drop.json" <<'PY'
import json, math, sys
r, rho, H, g = 0.001, 1000.0, 0.2, 9.81
rod = lambda name, origin, q: {"name": name, "length": 0.2, "elements": 20,
                               "material": {"E": 1e9, "G": 4e8, "rho": rho},
                               "sections": [{"shape": "circle", "radius": r}], "reference": {"origin": origin, "quaternion": q}}
s2 = math.sqrt(0.5)
sc = {"name": "drop", "model": "mixed_discrete",
      "rods": [rod("a", [-0.1, 0.0013, 0], [1, 0, 0, 0]), rod("b", [0.0037, -0.1, H], [s2, 0, 0, s2])],
      "boundary_conditions": [{"type": "clamp", "node": "a:start"}, {"type": "clamp", "node": "a:end"},
                              {"type": "support", "node": "b:start", "hold": ["x", "y"]}],
      # the falling rod alone under its weight (a force density): the clamped one is at rest
      "loads": [{"type": "force_density", "rod": "b", "value": [0, 0, -rho * math.pi * r * r * g]}],
      "contact": {"rods": True, "stiffness": 1e4},
      "output": {"track": [{"name": "bmid", "node": "b:10"}], "vtk": False},
      "stages": [{"type": "dynamic", "t_end": 1.5 * math.sqrt(2 * H / g), "output_dt": 0.002, "rtol": 1e-5,
                  "atol": 1e-8}]}
json.dump(sc, open(sys.argv[1], "w"))
PY
if timeout -k 5 120 "$cli" run "$tmp/drop.json" -q -o "$tmp/drop" > "$tmp/drop.log" 2>&1; then
    $py - "$tmp/drop/series.csv" <<'PY' && echo "ok     a rod dropped onto another stays on its side (penetration < 0.1 r) and bounces back" || { echo "FAIL   tunnelling"; exit 1; }
import csv, sys
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1]))]
gap = min(r["rods_contact_gap"] for r in R)
print(f"outputs touching {sum(r['rods_contact_pairs'] > 0 for r in R)}, smallest gap {gap:.3e} m, the dropped rod's middle at the end {R[-1]['bmid_z']:.4f} m")
assert any(r["rods_contact_pairs"] > 0 for r in R) and gap > -1e-4 and R[-1]["bmid_z"] > 0.01
PY
else
    echo "FAIL   the run failed: $(head -c 400 "$tmp/drop.log")"
    fail=1
fi
exit $fail
