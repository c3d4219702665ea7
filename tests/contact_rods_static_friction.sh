#!/bin/bash
# Coulomb friction between the rods of an assembly in static stages (contact.rods_friction;
# docs/scenario.md "contact", docs/theory.md "Contact between rods"), through the CLI, against
# equilibrium and Coulomb's law:
#   a slider (steel, r = 5 mm, 0.5 m) lying across two clamped rails, pressed into them by its
#   weight in a first static stage (its start held along x, y and in rotation), then pulled along
#   its axis at its end in a second one (held along x and about its axis only: nothing but the
#   friction holds it along its axis); mu_s = 0.4:
#     - a pull of 0.35 m g (each rail's pair carries 0.175 m g of its mu_s N = 0.2 m g): it
#       sticks: the slider does not move along its axis (within contact.tolerance: the
#       multipliers' updates take the stick drift there), and each rail carries T/2 (the two
#       rails' clamps' reactions; symmetric);
#     - a pull of 0.45 m g (above mu_s m g): no equilibrium; the stage fails naming
#       contact.rods_friction, its last equilibrium at a load factor within 1e-3 below the
#       friction's limit mu_s m g, at 0.4/0.45 (the load steps' halvings find it: the sticking
#       equilibria beyond it break Coulomb's law);
#   the same rails without friction and without the pull in two static stages in a row: the
#   second, which changes nothing, keeps the rods' contact multipliers and leaves the state as
#   the first left it (it diverged when the multipliers were reset at a stage's start).
# Usage: contact_rods_static_friction.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

$py - "$tmp" <<'PY'
import json, math, sys
def rails(frac, out, mu=0.4, stages=2):
    rho, E, G, rr, rs, L, g = 7800.0, 2e11, 8e10, 0.005, 0.005, 0.5, 9.81
    m = rho * math.pi * rs**2 * L
    rail = lambda name, y: {"name": name, "length": 0.1, "elements": 5, "material": {"E": E, "G": G, "rho": rho},
                            "sections": [{"shape": "circle", "radius": rr}], "reference": {"origin": [-0.05, y, 0]}}
    held = ["x", "y", "ry", "rz"]
    sc = {"name": "rails", "model": "mixed_discrete",
          "rods": [rail("r1", -0.1625), rail("r2", 0.1625),
                   # touching the rails to 5e-7 m (within the tolerance): pressing from the start
                   {"name": "slider", "length": L, "elements": 20, "material": {"E": E, "G": G, "rho": rho},
                    "sections": [{"shape": "circle", "radius": rs}],
                    "reference": {"origin": [0, -0.25, rr + rs - 5e-7],
                                  "quaternion": [math.sqrt(0.5), 0, 0, math.sqrt(0.5)]}}],
          "boundary_conditions": [{"type": "clamp", "node": n} for n in ("r1:start", "r1:end", "r2:start", "r2:end")],
          "loads": [{"type": "gravity", "value": [0, 0, -g]}],
          "contact": {"rods": True, "stiffness": 2000.0, "tolerance": 1e-6},
          "output": {"track": [{"name": "mid", "node": "slider:10"}], "vtk": False},
          "stages": [{"type": "static", "load_steps": 2}, {"type": "static", "load_steps": 4}][:stages]}
    if frac > 0:
        sc["boundary_conditions"] += [{"type": "support", "node": "slider:start", "hold": held, "stages": [0]},
                                      {"type": "support", "node": "slider:start", "hold": ["x", "ry"], "stages": [1]}]
        sc["loads"].append({"type": "force", "node": "slider:end", "value": [0, frac * m * g, 0], "stages": [1]})
    else:
        sc["boundary_conditions"].append({"type": "support", "node": "slider:start", "hold": held})
    if mu > 0:
        sc["contact"]["rods_friction"] = {"static": mu, "kinetic": 0.75 * mu}
    json.dump(sc, open(out, "w"))
d = sys.argv[1]
rails(0.35, d + "/stick.json")
rails(0.45, d + "/slip.json")
rails(0, d + "/two.json", mu=0)
rails(0, d + "/one.json", mu=0, stages=1)
PY

for c in stick two one; do
    timeout -k 5 120 "$cli" run "$tmp/$c.json" -q -o "$tmp/$c" > "$tmp/$c.log" 2>&1 || bad "$c: the run failed: $(head -c 400 "$tmp/$c.log")"
done

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import json, math, sys
d = sys.argv[1]
s = json.load(open(d + "/stick/summary.json"))
m, g = 7800 * math.pi * 0.005**2 * 0.5, 9.81
T = 0.35 * m * g
moved = abs(s["track"]["mid"]["position"][1])  # the slider's middle started at y = 0
share = {r: -sum(x["force"][1] for x in s["reactions"] if x["rod"] == r) for r in ("r1", "r2")}
good = moved < 1e-6 and all(abs(v / (T / 2) - 1) < 2e-3 for v in share.values())
open(d + "/verdict", "w").write(
    f"static friction, pull 0.35 m g: the slider moved {moved:.2g} m along its axis (tolerance 1e-6), the rails carry "
    f"{share['r1']:.6f} N and {share['r2']:.6f} N (T/2 = {T / 2:.6f} N, 2e-3)")
sys.exit(not good)
PY

timeout -k 5 120 "$cli" run "$tmp/slip.json" -q -o "$tmp/slip" > "$tmp/slip.log" 2>&1
code=$?
$py - "$tmp" "$code" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import json, re, sys
d, code = sys.argv[1], int(sys.argv[2])
log = open(d + "/slip.log").read()
lf = json.load(open(d + "/slip/summary.json"))["load_factor"]
good = code != 0 and "contact.rods_friction" in log and 0.4 / 0.45 - 1e-3 <= lf <= 0.4 / 0.45
open(d + "/verdict", "w").write(
    f"static friction, pull 0.45 m g: exit {code}, the last equilibrium at load factor {lf:.6g} (the limit "
    f"{0.4 / 0.45:.6f}, 1e-3 below at most), the message names contact.rods_friction: "
    f"{'yes' if 'contact.rods_friction' in log else 'no: ' + log[-300:]}")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
a = list(csv.DictReader(open(d + "/one/nodes.csv")))
b = list(csv.DictReader(open(d + "/two/nodes.csv")))
gap = max(math.dist([float(x[k]) for k in "xyz"], [float(y[k]) for k in "xyz"]) for x, y in zip(a, b))
good = len(a) == len(b) == 33 and gap < 1e-9
open(d + "/verdict", "w").write(
    f"two static stages in a row with contact between the rods: the second leaves the nodes within {gap:.2g} m of "
    f"the first's equilibrium (1e-9)")
sys.exit(not good)
PY
exit $fail
