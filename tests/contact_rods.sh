#!/bin/bash
# Contact between the rods of an assembly (contact.rods; docs/scenario.md "contact"), through
# the CLI, against an independent reference:
#   examples/crossing-cables.json  two perpendicular simply supported rods crossing at their
#       midpoints, the upper one pushed onto the lower by P at its midpoint: small-deflection
#       beam theory makes them two springs in series, k_i = 1/(L_i^3/(48 EI) + L_i/(4 GA)),
#       compatibility delta_lower = delta_upper gives F = P k_lower/(k_lower + k_upper); the
#       contact force (the lower rod's support reactions) and both deflections converge to it
#       at second order (elements 11/10 .. 41/40: the lower rod is touched between two nodes,
#       its load shared by them), the deflections equal to the penetration tolerance;
#       Newton converges quadratically with the coupling between the rods (the Jacobian's
#       low-rank terms are exact); with the lower rod as two halves welded where the contact is,
#       the same equilibrium (the contact on the joint's nodes; welded rods do not touch at their
#       joint); in dynamics the upper rod struck onto the lower one by a force
#       pulse bounces off elastically: after the contact the energy equals the pulse's work;
#   refusals at check: a rod starting inside another (both rods' nodes and the depth), one rod,
#       another model.
# Usage: contact_rods.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3
ex="$src/examples/crossing-cables.json"

for n in 5 10 20; do
    timeout -k 5 120 "$cli" run "$ex" -q -o "$tmp/c$n" --set rods.0.elements=$((2 * n + 1)) \
        --set rods.1.elements=$((2 * n)) --set "loads.0.node=upper:$n" > "$tmp/c$n.log" 2>&1 ||
        bad "crossing n=$n: the run failed: $(head -c 400 "$tmp/c$n.log")"
done
$py - "$tmp" <<'PY' && ok "crossing rods: contact force and deflections converge to beam theory at second order" || bad "crossing rods vs beam theory"
import csv, json, math, sys
d = sys.argv[1]
E, G, r = 1e9, 4e8, 0.01
I, A = math.pi * r**4 / 4, math.pi * r**2
c = lambda L: L**3 / (48 * E * I) + L / (4 * G * A)  # compliance at midspan, shear included
cl, cu = c(1.0), c(0.8)
F = cu / (cl + cu)  # P = 1 N
delta = F * cl
errs = []
for n in (5, 10, 20):
    s = json.load(open(f"{d}/c{n}/summary.json"))
    Fl = sum(x["force"][2] for x in s["reactions"] if x["rod"] == "lower")
    Fu = sum(x["force"][2] for x in s["reactions"] if x["rod"] == "upper")
    assert abs(Fl + Fu - 1.0) < 1e-9, (Fl, Fu)  # the supports carry P
    rows = list(csv.DictReader(open(f"{d}/c{n}/nodes.csv")))
    up = [x for x in rows if x["rod"] == "upper"]
    low = [x for x in rows if x["rod"] == "lower"]
    du = 0.02 - float(up[n]["z"])
    dl = -min(float(x["z"]) for x in low)
    assert abs(du - dl) < 1e-9, (du, dl)  # touching: penetration within the tolerance 1e-10 m
    errs.append((abs(Fl / F - 1), abs(dl / delta - 1)))
    print(f"n={n}: F {Fl:.6f} N (ref {F:.6f}), deflection {dl * 1e3:.6f} mm (ref {delta * 1e3:.6f})")
for k in (0, 1):
    assert errs[0][k] / errs[1][k] > 3.0 and errs[1][k] / errs[2][k] > 3.3, errs
assert errs[2][0] < 2e-3 and errs[2][1] < 2e-3, errs
PY

# Newton with the contact's coupling between the rods: quadratic (one load step, tight tolerances)
"$cli" run "$ex" -q -o "$tmp/q" --set stages.0.load_steps=1 --set stages.0.rtol=1e-14 --set stages.0.atol=1e-14 \
    > "$tmp/q.log" 2>&1
$py - "$tmp/q" <<'PY' && ok "Newton converges quadratically with the coupling between the rods" || bad "Newton not quadratic"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["converged"], s["message"]
quad = [(a, b) for h in s["residual_history"] for a, b in zip(h, h[1:]) if 1e-7 < a < 1e-3]
assert quad and all(b < 1e2 * a * a + 1e-9 for a, b in quad), s["residual_history"]
PY

# the lower rod as two halves welded where the upper one presses (the contact on the joint's
# nodes, which go to the joints' coupled system; the welded halves do not touch each other at
# their joint): the same equilibrium as the continuous rod, to round-off
$py - "$ex" "$tmp" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["rods"][0]["elements"] = 20
json.dump(s, open(sys.argv[2] + "/whole.json", "w"))
low = s["rods"][0]
a = dict(low, name="la", length=0.5, elements=10)
b = dict(low, name="lb", length=0.5, elements=10, reference={"origin": [0.5, 0, 0]})
s["rods"] = [a, b, s["rods"][1]]
s["joints"] = [{"type": "weld", "a": "la:end", "b": "lb:start"}]
s["boundary_conditions"][0]["node"], s["boundary_conditions"][1]["node"] = "la:start", "lb:end"
json.dump(s, open(sys.argv[2] + "/halves.json", "w"))
PY
if "$cli" run "$tmp/whole.json" -q -o "$tmp/whole" --set contact.tolerance=1e-9 > /dev/null 2>&1 &&
    "$cli" run "$tmp/halves.json" -q -o "$tmp/halves" --set contact.tolerance=1e-9 > "$tmp/halves.log" 2>&1; then
    $py - "$tmp" <<'PY' && ok "contact on a weld's node: two welded halves = the continuous rod (1e-13 m)" || bad "contact on a weld's node"
import csv, sys
d = sys.argv[1]
A = list(csv.DictReader(open(d + "/whole/nodes.csv")))
B = list(csv.DictReader(open(d + "/halves/nodes.csv")))
one = [r for r in A if r["rod"] == "lower"] + [r for r in A if r["rod"] == "upper"]
two = [r for r in B if r["rod"] == "la"] + [r for r in B if r["rod"] == "lb"][1:] + [r for r in B if r["rod"] == "upper"]
assert len(one) == len(two) == 62
dx = max(abs(float(p[k]) - float(q[k])) for p, q in zip(one, two) for k in "xyz")
assert dx < 1e-13 and min(float(r["z"]) for r in one) < -8e-4, dx
PY
else
    bad "contact on a weld's node: a run failed: $(head -c 400 "$tmp/halves.log")"
fi

# dynamics: the upper rod, pinned at its ends like the lower one and 1 cm above it, struck down
# by a force pulse; the penalty between the rods is elastic (frictionless, no dashpot), so once
# they are apart again the energy is the pulse's work (to the integrator's tolerance: 1.5e-5 J
# of 0.29 J at rtol 1e-6, 4e-7 at 1e-8), and the lower rod, struck, vibrates
hit=(--set 'rods.0.material.rho=1000' --set 'rods.1.material.rho=1000' --set rods.1.elements=21
    --set 'rods.1.reference.origin=[0.5,-0.4,0.03]' --set 'loads.0.node=null' --set 'loads.0.type=force_density'
    --set 'loads.0.rod=upper' --set 'loads.0.value=[0,0,-60]'
    --set 'loads.0.time={"type": "table", "points": [[0, 0], [0.01, 1], [0.02, 0]]}'
    --set 'boundary_conditions=[{"type": "pin", "node": "lower:start"}, {"type": "pin", "node": "lower:end"}, {"type": "pin", "node": "upper:start"}, {"type": "pin", "node": "upper:end"}]'
    --set 'stages=[{"type": "dynamic", "t_end": 0.04, "output_dt": 0.001, "rtol": 1e-6, "atol": 1e-9}]')
if timeout -k 5 120 "$cli" run "$ex" -q -o "$tmp/hit" "${hit[@]}" > "$tmp/hit.log" 2>&1; then
    $py - "$tmp/hit" <<'PY' && ok "struck rod bounces off the other: energy = the pulse's work after contact (1e-4), the lower rod set vibrating" || bad "struck rods"
import csv, sys
d = sys.argv[1]
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
touch = [r["t"] for r in R if r["rods_contact_pairs"] > 0]
assert touch and min(r["rods_contact_gap"] for r in R) < 0, "no contact"
after = [r for r in R if r["t"] > max(touch) + 0.002]
W = R[-1]["work_external"]
assert after and W > 0.2, (len(after), W)
err = max(abs(r["energy_total"] - r["work_external"]) for r in after)
assert err < 1e-4 * W, (err, W)
low = [r for r in csv.DictReader(open(d + "/nodes.csv")) if r["rod"] == "lower"]
assert max(abs(float(r["z"])) for r in low) > 1e-4, "the lower rod did not move"
PY
else
    bad "struck rods: the run failed: $(head -c 400 "$tmp/hit.log")"
fi

expect_error 1 "contact.rods: rod 'lower' starts inside rod 'upper'" check "$ex" \
    --set 'rods.1.reference.origin=[0.5,-0.4,0.015]'
grep -q "its nodes 20–21 and that of nodes 19–20 of 'upper'" "$tmp/err" && grep -q "0.005 m" "$tmp/err" && ok "names both rods' nodes and the depth" ||
    bad "nodes or depth not named: $(cat "$tmp/err")"
# (the lgvi assemblies take it in dynamic stages: tests/lgvi_contact_rods.sh)
expect_error 1 "contact.rods: contact between the rods of an assembly is the mixed_discrete and lgvi models'" check \
    "$ex" --set model=port_hamiltonian
expect_error 1 "contact.rods: contact between the rods of an assembly needs several rods" check \
    "$src/examples/catenary.json" --set 'contact={"rods": true}'
exit $fail
