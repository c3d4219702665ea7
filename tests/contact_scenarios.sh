#!/bin/bash
# Contact with obstacles through the CLI (docs/scenario.md "obstacles", "contact"):
#   examples/tentacle-on-cylinder.json runs; in each stage the contact forces, the clamp's
#     reaction, the weight and the tip pull balance (summary.json, to 1e-8 N), no node is
#     deeper than the tolerance, and nodes.csv's contact columns add up to summary's total;
#   a rod lying on a plane: the contact force equals the weight (1e-9 relative);
#   the port_hamiltonian model's check takes the cylinder;
#   refusals at check naming the key: contact.stick_speed in the mixed rod (the port-Hamiltonian
#     rod's friction regularization), loose tolerances in a dynamic stage, a rod
#     starting inside an obstacle (node and depth), bad friction (negative, kinetic above static),
#     an unknown obstacle type, contact without obstacles.
# Usage: contact_scenarios.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad, expect_error
ex="$src/examples/tentacle-on-cylinder.json"
for v in "[0,0,0]" "[-0.8,0,-0.1]"; do
    name=$([ "$v" = "[0,0,0]" ] && echo draped || echo wrapped)
    if ! "$cli" run "$ex" -q -o "$tmp/$name" --set "loads.1.value=$v" > "$tmp/$name.log" 2>&1; then
        bad "tentacle ($name): the run failed: $(head -c 400 "$tmp/$name.log")"
        continue
    fi
    python3 - "$tmp/$name" "$v" <<'PY' && ok "tentacle ($name): forces balance, penetration within the tolerance" || bad "tentacle ($name)"
import csv, json, math, sys
d, pull = sys.argv[1], json.loads(sys.argv[2])
s = json.load(open(d + "/summary.json"))
c = s["contact"]
W = 1100 * math.pi * 0.01**2 * 0.5 * 9.81
R = s["reactions"][0]["force"]
bal = [c["force"][0] + R[0] + pull[0], c["force"][1] + R[1] + pull[1], c["force"][2] + R[2] + pull[2] - W]
assert max(abs(b) for b in bal) < 1e-8, bal
assert c["active"] > 10 and c["largest_penetration"] <= c["tolerance"], c
assert not any(w["code"] == "contact_penetration" for w in s["warnings"]), s["warnings"]
rows = list(csv.DictReader(open(d + "/nodes.csv")))
fz = sum(float(r["contact_fz"]) for r in rows)
assert abs(fz - c["force"][2]) < 1e-12 * max(1, abs(fz)), (fz, c["force"])
assert sum(1 for r in rows if float(r["contact_state"]) > 0) == c["active"]
PY
done
grep -q 'Name="contact_force"' "$tmp"/wrapped/rod_*.vtp 2> /dev/null && ok "VTK has contact_force" ||
    bad "no contact_force array in the .vtp files"

# examples/cable-on-ground.json (static then dynamic): once every node slides, the cord's momentum
# grows at F - mu_k m g (Newton's law with Coulomb's kinetic friction on the whole weight); the
# ground carries the weight at every output; nothing slides at t <= 0.1 s (F < 0.07 m g) and every
# node slides after F passed mu_s m g (t > 1.34 s)
if "$cli" run "$src/examples/cable-on-ground.json" -q -o "$tmp/cable" > "$tmp/cable.log" 2>&1; then
    python3 - "$tmp/cable" <<'PY' && ok "cable dragged: dP/dt = F - mu_k m g, weight carried, stick then slide" || bad "cable dragged"
import csv, math, sys
rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1] + "/series.csv"))]
m, g, F = 1100 * math.pi * 0.005**2 * 2, 9.81, 1.5255
sel = [r for r in rows if r["t"] >= 2.5]
mt = sum(r["t"] for r in sel) / len(sel)
mp = sum(r["momentum_x"] for r in sel) / len(sel)
slope = sum((r["t"] - mt) * (r["momentum_x"] - mp) for r in sel) / sum((r["t"] - mt) ** 2 for r in sel)
assert abs(slope / (F - 0.4 * m * g) - 1) < 1e-5, slope
assert all(abs(r["contact_normal_force"] / (m * g) - 1) < 1e-6 for r in rows)
assert all(r["contact_sliding"] == 0 for r in rows if r["t"] <= 0.1)
assert all(r["contact_sliding"] == 41 for r in rows if r["t"] > 1.34)
PY
else
    bad "cable dragged: the run failed: $(head -c 400 "$tmp/cable.log")"
fi

# a rod lying on the plane z = 0 under gravity: the contact holds exactly its weight
cat > "$tmp/plane.json" <<'JSON'
{ "name": "rod-on-plane",
  "rod": { "length": 1, "elements": 20, "material": { "E": 1e7, "G": 4e6, "rho": 1000 },
           "reference": { "type": "straight", "origin": [0, 0, 0.01] },
           "sections": [ { "shape": "circle", "radius": 0.01 } ] },
  "loads": [ { "type": "gravity", "value": [0, 0, -9.81] } ],
  "obstacles": [ { "type": "plane", "name": "ground", "normal": [0, 0, 1], "friction": { "static": 0.5, "kinetic": 0.4 } } ],
  "stages": [ { "type": "static" } ] }
JSON
if "$cli" run "$tmp/plane.json" -q -o "$tmp/plane" > "$tmp/plane.log" 2>&1; then
    python3 - "$tmp/plane" <<'PY' && ok "rod on a plane: contact force = weight" || bad "rod on a plane"
import json, math, sys
c = json.load(open(sys.argv[1] + "/summary.json"))["contact"]
W = 1000 * math.pi * 1e-4 * 9.81
assert abs(c["normal_force"] / W - 1) < 1e-9 and abs(c["force"][2] / W - 1) < 1e-9, c
assert c["active"] == 21 and c["sliding"] == 0 and c["largest_penetration"] <= c["tolerance"], c
PY
else
    bad "rod on a plane: the run failed: $(head -c 400 "$tmp/plane.log")"
fi

# the multiplier updates cut short (a soft augmentation, one update): the stage fails naming
# contact, and the contact_penetration warning names the deepest node
"$cli" run "$ex" -q -o "$tmp/short" --set 'contact={"stiffness":1000,"max_updates":1}' > "$tmp/short.log" 2>&1
code=$?
if [ $code = 2 ] && grep -q "contact: 1 multiplier updates left a penetration" "$tmp/short.log" &&
    python3 -c "
import json, sys
w = json.load(open('$tmp/short/summary.json'))['warnings']
assert any(x['code'] == 'contact_penetration' and 'node 33' in x['message'] for x in w), w" 2> /dev/null; then
    ok "updates cut short: exit 2 naming contact, contact_penetration warning"
else
    bad "updates cut short: exit $code: $(head -c 300 "$tmp/short.log")"
fi

# refusals, each naming the key
# (the port_hamiltonian model takes the cylinder: tests/test_ph_obstacles.c)
if "$cli" check "$ex" --set model=port_hamiltonian > "$tmp/out" 2> "$tmp/err"; then
    ok "check accepts the cylinder in the port_hamiltonian model"
else
    bad "check refuses the cylinder in the port_hamiltonian model: $(head -c 300 "$tmp/err")"
fi
expect_error 1 "contact.stick_speed: the regularization speed of the port_hamiltonian model's friction" check \
    "$ex" --set contact.stick_speed=1e-4
expect_error 1 "stages.0.rtol: a dynamic stage with obstacles needs rtol <= 1e-5 and atol <= 1e-8" check \
    "$tmp/plane.json" --set 'stages=[{"type":"dynamic","t_end":1,"output_dt":0.1}]'
# a dynamic stage: the rod dropped 1 mm onto the plane lands and bounces (an elastic contact: no
# dashpot) without gaining energy: it never rises above where it was dropped from, and its
# penetration stays that of the contact spring at the impact speed, v sqrt(m_i/eps_i) ~ 2e-4 m
if "$cli" run "$tmp/plane.json" -q -o "$tmp/drop" --set 'rod.reference.origin=[0,0,0.011]' \
    --set 'stages=[{"type":"dynamic","t_end":1,"output_dt":0.01,"rtol":1e-5,"atol":1e-8}]' > "$tmp/drop.log" 2>&1; then
    python3 - "$tmp/drop" <<'PY' && ok "dropped rod: lands, no energy gained, series contact columns" || bad "dropped rod"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/series.csv")))
assert float(rows[0]["contact_active"]) == 0, rows[0]
assert max(float(r["contact_active"]) for r in rows) == 21
assert max(float(r["tip_z"]) for r in rows) <= 0.011 + 1e-6, max(float(r["tip_z"]) for r in rows)
assert max(float(r["contact_penetration"]) for r in rows) < 5e-4
s = json.load(open(sys.argv[1] + "/summary.json"))
assert not any(w["code"] == "energy_drift" for w in s["warnings"]), s["warnings"]
PY
else
    bad "dropped rod: the run failed: $(head -c 400 "$tmp/drop.log")"
fi
expect_error 1 'obstacles.0: the rod starts inside obstacle "drum": node 30 (s = 0.15 m) is 0.05 m deep' check "$ex" \
    --set 'obstacles.0.center=[0.15,0,0.05]'
expect_error 1 "obstacles.0.friction.static" check "$ex" --set obstacles.0.friction.static=-0.5
expect_error 1 "obstacles.0.friction.kinetic: 0.6 is above the static coefficient 0.5" check "$ex" \
    --set obstacles.0.friction.kinetic=0.6
expect_error 1 "obstacles.0.type" check "$ex" --set obstacles.0.type=cone
expect_error 1 "obstacles.0.radius" check "$ex" --set obstacles.0.radius=0
expect_error 1 "contact: given without obstacles" check "$tmp/plane.json" --set 'obstacles=[]' \
    --set 'contact={"tolerance":1e-6}'
exit $fail
