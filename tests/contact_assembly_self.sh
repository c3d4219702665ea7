#!/bin/bash
# A rod's contact with itself inside an assembly (contact.self with rods; docs/scenario.md
# "contact"), through the CLI, against the single rod's self-contact (src/mixed/selfcontact.c)
# as the reference: the crossing beams of tests/selfcontact_crossing.py (one rod, its upper
# beam pressed onto its lower one) as the first rod of a two-rod assembly (a short clamped rod
# far away as the second):
#   statics (32/40 elements): the same equilibrium as the single rod (1e-12 m);
#   dynamics (16/20, the upper beam a cantilever dropped onto the lower one, 0.08 s at rtol
#       1e-6): the same motion of its tip (1e-5 m of 3.3 cm) and the same smallest gap (2 %);
#   with contact.rods too, rods_friction on the self pairs: the pairs still press (friction acts
#       on a rod's own pairs as between rods), the run converges;
#   a rod starting inside itself in an assembly is refused at check naming contact.self.
# Usage: contact_assembly_self.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3
gen="$src/tests/selfcontact_crossing.py"

# the single rod's scenario as rod 'r' of an assembly with a far rod 'far'
to_assembly() {
    $py - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rod = dict(s.pop("rod"), name="r")
last = len(rod["reference"]["positions"]) - 1
far = {"name": "far", "length": 0.1, "elements": 2, "material": dict(rod["material"]),
       "sections": [{"shape": "circle", "radius": 0.005}], "reference": {"origin": [5, 5, 5]}}
s["rods"] = [rod, far]
for b in s["boundary_conditions"]:
    b["node"] = "r:%d" % b["node"]
s["boundary_conditions"].append({"type": "clamp", "node": "far:start"})
for l in s["loads"]:
    if "node" in l:
        l["node"] = "r:%d" % l["node"]
s["output"] = {"track": [{"name": "tip", "node": "r:%d" % last}], "vtk": False}
json.dump(s, open(sys.argv[2], "w"))
PY
}

$py "$gen" "$tmp/one.json" 32 40 > /dev/null
to_assembly "$tmp/one.json" "$tmp/asm.json"
if "$cli" run "$tmp/one.json" -q -o "$tmp/one" > "$tmp/one.log" 2>&1 &&
    "$cli" run "$tmp/asm.json" -q -o "$tmp/asm" > "$tmp/asm.log" 2>&1; then
    $py - "$tmp" <<'PY' && ok "statics: a rod pressing on itself in an assembly = the single rod (1e-12 m)" || bad "statics: assembly self-contact differs"
import csv, sys
d = sys.argv[1]
A = list(csv.DictReader(open(d + "/one/nodes.csv")))
B = [r for r in csv.DictReader(open(d + "/asm/nodes.csv")) if r["rod"] == "r"]
assert len(A) == len(B) == 89
dx = max(abs(float(a[k]) - float(b[k])) for a, b in zip(A, B) for k in "xyz")
sag = -min(float(a["z"]) for a in A)
print(f"largest difference {dx:.2e} m, the lower beam's deflection {sag:.4e} m")
assert dx < 1e-12 and sag > 4e-5, (dx, sag)
PY
else
    bad "statics: a run failed: $(head -c 400 "$tmp/asm.log")"
fi

$py "$gen" "$tmp/d.json" 16 20 0.014 0.005 dynamic > /dev/null
$py - "$tmp/d.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["stages"][0]["t_end"] = 0.08
s["output"] = {"vtk": False}
json.dump(s, open(sys.argv[1], "w"))
PY
to_assembly "$tmp/d.json" "$tmp/dasm.json"
if "$cli" run "$tmp/d.json" -q -o "$tmp/d" > "$tmp/d.log" 2>&1 &&
    "$cli" run "$tmp/dasm.json" -q -o "$tmp/dasm" > "$tmp/dasm.log" 2>&1; then
    $py - "$tmp" <<'PY' && ok "dynamics: a beam dropped onto itself in an assembly moves as the single rod's (tip 1e-5 m, gap 2 %)" || bad "dynamics: assembly self-contact differs"
import csv, sys
d = sys.argv[1]
A = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/d/series.csv"))]
B = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/dasm/series.csv"))]
assert len(A) == len(B) == 81
dz = max(abs(a["tip_z"] - b["tip_z"]) for a, b in zip(A, B))
ga, gb = min(a["self_contact_gap"] for a in A), min(b["rods_contact_gap"] for b in B)
na, nb = sum(a["self_contact_pairs"] > 0 for a in A), sum(b["rods_contact_pairs"] > 0 for b in B)
print(f"tip: largest difference {dz:.2e} m (drop {-min(a['tip_z'] for a in A):.4f} m); smallest gap {ga:.4e} / {gb:.4e} m; outputs touching {na} / {nb}")
assert dz < 1e-5 and abs(gb / ga - 1) < 0.02 and na > 10 and abs(na - nb) <= 2, (dz, ga, gb, na, nb)
PY
else
    bad "dynamics: a run failed: $(head -c 400 "$tmp/dasm.log")"
fi

if timeout -k 5 120 "$cli" run "$tmp/dasm.json" -q -o "$tmp/fr" --set contact.rods=true \
    --set 'contact.rods_friction={"static": 0.5}' > "$tmp/fr.log" 2>&1; then
    $py - "$tmp" <<'PY' && ok "with contact.rods and friction on the self pairs: lands and stays in contact" || bad "self pairs with friction"
import csv, sys
B = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1] + "/fr/series.csv"))]
assert sum(b["rods_contact_pairs"] > 0 for b in B) > 10 and min(b["rods_contact_gap"] for b in B) > -0.05 * 0.005
PY
else
    bad "self pairs with friction: the run failed: $(head -c 400 "$tmp/fr.log")"
fi

$py "$gen" "$tmp/inside.json" 16 20 0.014 -0.002 > /dev/null
to_assembly "$tmp/inside.json" "$tmp/inside_asm.json"
expect_error 1 "rods.0 ('r'): contact.self: the rod starts inside itself" check "$tmp/inside_asm.json"
exit $fail
