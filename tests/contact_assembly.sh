#!/bin/bash
# Obstacles acting on the rods of an assembly (model mixed_discrete; docs/scenario.md
# "obstacles"), through the CLI, against independent references:
#   statics   two rods welded end to end lying on a frictional plane under gravity: the contact
#             force equals the weight (1e-9 relative); with a lift at one end and a small
#             tangential pull in a second stage, the contact force balances the loads (the one
#             support holds only the twist) and every node is where the same continuous rod
#             puts it (1e-11 m, the multiplier updates' tolerance 1e-10 m; the weld's two nodes
#             share the continuous rod's node and its contact force);
#   dynamics  two rods hinged on a plane with gravity tilted by tan a = 0.8 > mu_s: the chain
#             slides, its momentum grows at M g (sin a - mu_k cos a) (Coulomb's kinetic
#             friction on the whole weight), as the continuous rod's (1e-5); with tan a = 0.3 <
#             mu_s it sticks: no node slides, and no node creeps further than the tangential
#             penalty spring allows, tan a times the largest penetration (the normal spring's
#             compression under the same node's weight share, overshoot included); on a ground
#             accelerating below mu_s g it is carried, within 2 m_i a/eps_i of a t^2/2;
#   outputs   nodes.csv's contact columns add up to summary.json's totals, the penetration
#             names its rod;
#   refusals  a rod starting inside the plane is named with its node; the lgvi assemblies take the
#             ground fixed and moving (tests/lgvi_contact_assembly.sh, tests/lgvi_contact_moving.sh; the
#             port_hamiltonian ones: tests/contact_ph_assembly.sh).
# Usage: contact_assembly.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

run() { # NAME SCENARIO [--set ...]
    local name=$1 file=$2
    shift 2
    if ! timeout -k 5 120 "$cli" run "$file" -q -o "$tmp/$name" "$@" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 400 "$tmp/$name.log")"
        return 1
    fi
}

# ---- statics: one rod, and two halves welded, on the plane z = 0 ----
mat='"material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]'
ground='"obstacles": [{"type": "plane", "name": "ground", "normal": [0, 0, 1], "friction": {"static": 0.5, "kinetic": 0.4}}]'
stages='"stages": [{"type": "static", "load_steps": 2}, {"type": "static", "load_steps": 4}]'
cat > "$tmp/one.json" <<JSON
{"rod": {"length": 1.0, "elements": 20, $mat, "reference": {"origin": [0, 0, 0.01]}},
 "boundary_conditions": [{"type": "support", "node": "start", "hold": ["rx"]}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "force", "node": "end", "value": [0, 0, 0.8], "stages": [1]},
           {"type": "force", "node": 5, "value": [0.02, 0.02, 0], "stages": [1]}],
 $ground, $stages}
JSON
cat > "$tmp/two.json" <<JSON
{"rods": [{"name": "a", "length": 0.5, "elements": 10, $mat, "reference": {"origin": [0, 0, 0.01]}},
          {"name": "b", "length": 0.5, "elements": 10, $mat, "reference": {"origin": [0.5, 0, 0.01]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}],
 "boundary_conditions": [{"type": "support", "node": "a:start", "hold": ["rx"]}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "force", "node": "b:end", "value": [0, 0, 0.8], "stages": [1]},
           {"type": "force", "node": "a:5", "value": [0.02, 0.02, 0], "stages": [1]}],
 $ground, $stages}
JSON
tight=(--set contact.tolerance=1e-10 --set contact.max_updates=200)
run two_weight "$tmp/two.json" --set 'loads.1.value=[0,0,0]' --set 'loads.2.value=[0,0,0]' &&
    $py - "$tmp/two_weight" <<'PY' && ok "welded pair on a plane: contact force = weight (1e-9)" || bad "welded pair: weight"
import csv, json, math, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
c, W = s["contact"], 1000 * math.pi * 0.01**2 * 1.0 * 9.81
assert abs(c["force"][2] / W - 1) < 1e-9 and abs(c["normal_force"] / W - 1) < 1e-9, (c, W)
assert abs(c["force"][0]) < 1e-9 * W and abs(c["force"][1]) < 1e-9 * W, c
assert c["active"] == 22 and c["sliding"] == 0, c  # both rods' nodes, the weld's two included
rows = list(csv.DictReader(open(d + "/nodes.csv")))
assert abs(sum(float(r["contact_fz"]) for r in rows) - c["force"][2]) < 1e-12 * W
assert {r["rod"] for r in rows if float(r["contact_state"]) == 1} == {"a", "b"}
PY
run one_lift "$tmp/one.json" "${tight[@]}" && run two_lift "$tmp/two.json" "${tight[@]}" &&
    $py - "$tmp/one_lift" "$tmp/two_lift" <<'PY' && ok "welded pair lifted at one end = one continuous rod (nodes to 1e-11 m), forces balance" || bad "welded pair lifted"
import csv, json, math, sys
one = list(csv.DictReader(open(sys.argv[1] + "/nodes.csv")))
two = list(csv.DictReader(open(sys.argv[2] + "/nodes.csv")))
two_a, two_b = [r for r in two if r["rod"] == "a"], [r for r in two if r["rod"] == "b"]
assert len(one) == 21 and len(two_a) == len(two_b) == 11
merged = two_a + two_b[1:]
dx = max(abs(float(p[k]) - float(q[k])) for p, q in zip(one, merged) for k in "xyz")
assert dx < 1e-11, dx
lifted = [float(r["z"]) for r in one]
assert lifted[-1] > 0.1 and lifted[5] < 0.0100001, lifted  # half of it off the ground
# the weld's node: the continuous rod's contact force shared by the two rods' nodes
fz = float(two_a[-1]["contact_fz"]) + float(two_b[0]["contact_fz"])
assert abs(fz - float(one[10]["contact_fz"])) < 1e-9, (fz, one[10]["contact_fz"])
s = json.load(open(sys.argv[2] + "/summary.json"))
c, W = s["contact"], 1000 * math.pi * 0.01**2 * 1.0 * 9.81
bal = [c["force"][0] + 0.02, c["force"][1] + 0.02, c["force"][2] - (W - 0.8)]
assert max(abs(b) for b in bal) < 1e-9 * W, bal
assert c["largest_penetration"] <= c["tolerance"] and c["largest_penetration_rod"] in ("a", "b"), c
assert not any(w["code"] == "contact_penetration" for w in s["warnings"]), s["warnings"]
PY

# ---- dynamics: a hinged chain, and the continuous rod, on a plane with gravity tilted ----
cat > "$tmp/chain.json" <<JSON
{"rods": [{"name": "a", "length": 0.5, "elements": 8, $mat, "reference": {"origin": [0, 0, 0.01]}},
          {"name": "b", "length": 0.5, "elements": 8, $mat, "reference": {"origin": [0.5, 0, 0.01]}}],
 "joints": [{"type": "hinge", "name": "knee", "a": "a:end", "b": "b:start", "axis": [0, 0, 1]}],
 "loads": [{"type": "gravity", "value": [7.848, 0, -5.886]}],
 $ground,
 "stages": [{"type": "dynamic", "t_end": 0.5, "output_dt": 0.01, "rtol": 1e-6, "atol": 1e-9}]}
JSON
cat > "$tmp/rod.json" <<JSON
{"rod": {"length": 1.0, "elements": 16, $mat, "reference": {"origin": [0, 0, 0.01]}},
 "loads": [{"type": "gravity", "value": [7.848, 0, -5.886]}],
 $ground,
 "stages": [{"type": "dynamic", "t_end": 0.5, "output_dt": 0.01, "rtol": 1e-6, "atol": 1e-9}]}
JSON
run chain "$tmp/chain.json" && run rod "$tmp/rod.json" &&
    $py - "$tmp/chain" "$tmp/rod" <<'PY' && ok "hinged chain sliding down a slope: dP/dt = M g (sin a - mu_k cos a) (1e-3), as one rod (1e-5)" || bad "chain sliding"
import csv, math, sys
def rows(d): return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
chain, rod = rows(sys.argv[1]), rows(sys.argv[2])
M, g, mk = 1000 * math.pi * 0.01**2 * 1.0, 9.81, 0.4
sel = [r for r in chain if r["t"] >= 0.1]
mt = sum(r["t"] for r in sel) / len(sel)
mp = sum(r["momentum_x"] for r in sel) / len(sel)
slope = sum((r["t"] - mt) * (r["momentum_x"] - mp) for r in sel) / sum((r["t"] - mt) ** 2 for r in sel)
assert abs(slope / (M * g * (0.8 - mk * 0.6)) - 1) < 1e-3, slope
assert all(r["contact_sliding"] == 18 for r in chain if r["t"] >= 0.01), [r["contact_sliding"] for r in chain]
assert len(chain) == len(rod) == 51
dp = max(abs(p["momentum_x"] - q["momentum_x"]) for p, q in zip(chain, rod))
assert dp < 1e-5 * chain[-1]["momentum_x"], dp
PY
run stick "$tmp/chain.json" --set 'loads.0.value=[2.81848,0,-9.39494]' &&
    $py - "$tmp/stick" <<'PY' && ok "hinged chain on a slope below the Coulomb limit: sticks, creep within tan a x penetration" || bad "chain sticking"
import csv, sys
d = sys.argv[1]
ser = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
assert all(r["contact_sliding"] == 0 and r["contact_active"] == 18 for r in ser), ser[-1]
pen = max(r["contact_penetration"] for r in ser)
nodes = list(csv.DictReader(open(d + "/nodes.csv")))
creep = max(abs(float(r["x"]) - float(r["s"]) - (0.5 if r["rod"] == "b" else 0.0)) for r in nodes)
assert 0 < creep <= 0.3 * pen, (creep, 0.3 * pen)
PY

# a moving obstacle: the ground accelerating at 1 m/s^2 < mu_s g under the chain carries it along;
# each node lags a t^2/2 by at most 2 m_i a/eps_i = 2 (a/g) x its penetration under its weight
run conveyor "$tmp/chain.json" --set 'loads.0.value=[0,0,-9.81]' --set 'obstacles.0.acceleration=[1,0,0]' &&
    $py - "$tmp/conveyor" <<'PY' && ok "hinged chain on an accelerating ground: carried within 2 m_i a/eps_i of a t^2/2" || bad "chain carried"
import csv, sys
d = sys.argv[1]
ser = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
assert all(r["contact_sliding"] == 0 for r in ser), ser[-1]
bound = 2 * 1.0 * max(r["contact_penetration"] for r in ser) / 9.81
nodes = list(csv.DictReader(open(d + "/nodes.csv")))
lag = max(abs(float(r["x"]) - float(r["s"]) - (0.5 if r["rod"] == "b" else 0.0) - 0.5 * 0.5**2) for r in nodes)
assert lag <= bound, (lag, bound)
PY

# ---- refusals ----
inside=(--set 'rods.0.reference.origin=[0,0,0.005]' --set 'rods.1.reference.origin=[0.5,0,0.005]')
expect_error 1 "rods.0 ('a'): obstacles.0" check "$tmp/two.json" "${inside[@]}"
grep -q "node 0" "$tmp/err" && grep -q "0.005 m" "$tmp/err" && ok "names the node and the depth" ||
    bad "the node or the depth not named: $(cat "$tmp/err")"
# the lgvi assemblies take fixed and moving obstacles (tests/lgvi_contact_assembly.sh, lgvi_contact_moving.sh), as
# one lgvi rod
fixed=(--set model.type=lgvi --set 'stages=[{"type": "dynamic", "t_end": 0.1, "output_dt": 0.01, "time_step": 5e-5}]')
if "$cli" check "$tmp/chain.json" "${fixed[@]}" --set 'obstacles.0.acceleration=[1,0,0]' > /dev/null 2>&1; then
    ok "the lgvi assembly takes the accelerating ground"
else bad "the lgvi assembly refuses the accelerating ground"; fi
if "$cli" check "$tmp/chain.json" "${fixed[@]}" > /dev/null 2>&1; then ok "the lgvi assembly takes the fixed ground"
else bad "the lgvi assembly refuses the fixed ground"; fi
exit $fail
