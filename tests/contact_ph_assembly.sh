#!/usr/bin/env bash
# Obstacles acting on the rods of a port_hamiltonian assembly (docs/scenario.md `obstacles`,
# docs/port-hamiltonian.md "Contact"): the contact is node-local, each rod's kernel carries its
# own penalty springs and friction (ph_contact.c) and the joints couple the rods as without them.
#   statics   a rod clamped at one end lying on a plane under gravity, lifted at the other: two
#             halves welded end to end put every node where the continuous rod does and carry the
#             same total normal force (to 1e-12, the Newton tolerance);
#   dynamics  the pair resting 1 mm above the ground, which a table of poses (docs/scenario.md
#             `obstacles.K.motion`) lifts by 0.1 m in 0.5 s, bounces as the continuous rod does
#             (momentum and the ground's work to 1e-8, the series' digits) and keeps its energy
#             balance, the ground's work in work_external, to 1e-9 of it;
#   rolling   the carried pair again with its friction at the contact points (contact.rolling): as the
#             continuous rod, its balance as above (before the coupled Newton confirmed its increment
#             test by the residual, a step was accepted at a kink 3.6e-8 J off and the run failed);
#   friction  the pair on rough ground (mu_s 0.5, mu_k 0.4) moved by a table, carried (0.15 m in 1 s,
#             4 a_max = 3.6 m/s^2 < mu_s g) and shaken into sliding: the coupled Newton clips a
#             friction reversal rod by rod as the one-rod Newton does, and the pair moves as the
#             continuous rod (momentum to 1e-8 of its largest), carried to within the regularized
#             friction's creep (1e-5 m), friction only dissipating, the balance with the ground's
#             work to 1e-9 of it (+ 1e-10 J: 1e-13 J a step, the Newton tolerance's).
# Usage: contact_ph_assembly.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
mat='"material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]'
ground='"obstacles": [{"type": "plane", "name": "ground", "normal": [0, 0, 1]}]'
cat > "$tmp/one.json" <<JSON
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1.0, "elements": 20, $mat, "reference": {"origin": [0, 0, 0.01]}},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}, {"type": "force", "node": "end", "value": [0, 0, 0.8]}],
 $ground, "stages": [{"type": "static", "load_steps": 4}], "output": {"vtk": false}}
JSON
cat > "$tmp/two.json" <<JSON
{"model": {"type": "port_hamiltonian"},
 "rods": [{"name": "a", "length": 0.5, "elements": 10, $mat, "reference": {"origin": [0, 0, 0.01]}},
          {"name": "b", "length": 0.5, "elements": 10, $mat, "reference": {"origin": [0.5, 0, 0.01]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}, {"type": "force", "node": "b:end", "value": [0, 0, 0.8]}],
 $ground, "stages": [{"type": "static", "load_steps": 4}], "output": {"vtk": false}}
JSON
for c in one two; do
    "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || bad "$c: $(head -c 300 "$tmp/$c.log")"
done
python3 - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, json, math, sys
d = sys.argv[1]
one = list(csv.DictReader(open(d + "/one/nodes.csv")))
two = list(csv.DictReader(open(d + "/two/nodes.csv")))
# the welded pair's nodes in order, the weld's second copy dropped
two = [r for k, r in enumerate(two) if not (r["rod"] == "b" and float(r["s"]) == 0)]
dx = max(math.dist([float(a[k]) for k in "xyz"], [float(b[k]) for k in "xyz"]) for a, b in zip(one, two))
N1 = json.load(open(d + "/one/summary.json"))["contact"]["normal_force"]
N2 = json.load(open(d + "/two/summary.json"))["contact"]["normal_force"]
good = len(one) == len(two) and dx < 1e-12 and abs(N2 / N1 - 1) < 1e-12 and N1 > 1
open(d + "/verdict", "w").write(
    f"statics: the welded pair on a plane, lifted at its end, where the continuous rod is ({dx:.2g} m), normal "
    f"force {N2:.12g} N against {N1:.12g} N")
sys.exit(not good)
PY
# dynamics: the pair, 1 mm above the ground, lifted by a table of positions (0 to 0.1 m in 0.5 s)
lift='"loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "ground", "normal": [0, 0, 1], "motion": [[0, 0, 0, 0], [0.5, 0, 0, 0.1]]}],
 "stages": [{"type": "dynamic", "t_end": 0.6, "output_dt": 0.01, "time_step": 2.5e-4}], "output": {"vtk": false}'
cat > "$tmp/lift1.json" <<JSON
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 10, $mat, "reference": {"origin": [0, 0, 0.011]}}, $lift}
JSON
cat > "$tmp/lift2.json" <<JSON
{"model": {"type": "port_hamiltonian"},
 "rods": [{"name": "a", "length": 0.5, "elements": 5, $mat, "reference": {"origin": [0, 0, 0.011]}},
          {"name": "b", "length": 0.5, "elements": 5, $mat, "reference": {"origin": [0.5, 0, 0.011]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}], $lift}
JSON
for c in lift1 lift2; do
    "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || bad "$c: $(head -c 300 "$tmp/$c.log")"
done
python3 - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
f = lambda r, c: float(r[c])
a = list(csv.DictReader(open(d + "/lift2/series.csv")))
b = list(csv.DictReader(open(d + "/lift1/series.csv")))
dp = max(abs(f(x, "momentum_z") - f(y, "momentum_z")) for x, y in zip(a, b))
dw = max(abs(f(x, "work_external") - f(y, "work_external")) for x, y in zip(a, b))
P, W = max(abs(f(x, "momentum_z")) for x in a), max(abs(f(x, "work_external")) for x in a)
bal = [f(r, "energy_kinetic") + f(r, "energy_elastic") - f(r, "work_external") for r in a]
db = max(abs(x - bal[0]) for x in bal)
touched = max(f(r, "contact_active") for r in a)
good = len(a) == len(b) == 61 and dp < 1e-8 * P and dw < 1e-8 * W and db < 1e-9 * W and touched == 22
open(d + "/verdict", "w").write(
    f"dynamics: the welded pair lifted by ground driven by a table moves as the continuous rod (momentum {dp:.2g} "
    f"of {P:.4g} kg m/s, work {dw:.2g} of {W:.4g} J), energy balance with the ground's work within {db:.2g} J")
sys.exit(not good)
PY
# friction: the pair and the continuous rod on rough ground driven by a table, carried and shaken
for tag in carry shake rollcarry; do
    if [ $tag = shake ]; then mot='[[0, 0, 0, 0], [0.2, 0.1, 0, 0], [0.4, -0.1, 0, 0], [0.6, 0, 0, 0]]' t_end=0.8; else
        mot='[[0, 0, 0, 0], [1, 0.15, 0, 0]]' t_end=1.2; fi
    roll=
    [ $tag = rollcarry ] && roll=', "contact": {"rolling": true}'
    rough='"loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "ground", "normal": [0, 0, 1], "friction": {"static": 0.5, "kinetic": 0.4},
                "motion": '"$mot"'}]'"$roll"',
 "stages": [{"type": "dynamic", "t_end": '$t_end', "output_dt": 0.01, "time_step": 1e-3}], "output": {"vtk": false}'
    cat > "$tmp/${tag}1.json" <<JSON
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 10, $mat, "reference": {"origin": [0, 0, 0.01]}}, $rough}
JSON
    cat > "$tmp/${tag}2.json" <<JSON
{"model": {"type": "port_hamiltonian"},
 "rods": [{"name": "a", "length": 0.5, "elements": 5, $mat, "reference": {"origin": [0, 0, 0.01]}},
          {"name": "b", "length": 0.5, "elements": 5, $mat, "reference": {"origin": [0.5, 0, 0.01]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}], $rough}
JSON
    for c in ${tag}1 ${tag}2; do
        "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || bad "$c: $(head -c 300 "$tmp/$c.log")"
    done
    python3 - "$tmp" $tag <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d, tag = sys.argv[1], sys.argv[2]
f = lambda r, c: float(r[c])
a = list(csv.DictReader(open(f"{d}/{tag}2/series.csv")))
b = list(csv.DictReader(open(f"{d}/{tag}1/series.csv")))
dp = max(abs(f(x, "momentum_x") - f(y, "momentum_x")) for x, y in zip(a, b))
P = max(abs(f(x, "momentum_x")) for x in b)
D = [f(r, "energy_dissipated") for r in a]
dD = max(abs(f(x, "energy_dissipated") - f(y, "energy_dissipated")) for x, y in zip(a, b))
E = lambda r: f(r, "energy_kinetic") + f(r, "energy_elastic") + f(r, "energy_gravity")
W = max(abs(f(r, "work_external")) for r in a)
bal = max(abs(E(r) - f(r, "work_external") + f(r, "energy_dissipated") - E(a[0])) for r in a)
rising = all(D[k + 1] >= D[k] for k in range(len(D) - 1))
nodes = list(csv.DictReader(open(f"{d}/{tag}2/nodes.csv")))
shift = [f(r, "x") - f(r, "s") - (0.5 if r["rod"] == "b" else 0) for r in nodes]
slid = max(f(r, "contact_sliding") for r in a)
good = len(a) == len(b) > 50 and dp < 1e-8 * P and dD <= 1e-8 * D[-1] and bal < 1e-9 * W + 1e-10 and rising and D[-1] > 0
if tag == "carry":
    good = good and max(abs(x - 0.15) for x in shift) < 1e-5
    what = f"carried: every node moved {min(shift):.9g}-{max(shift):.9g} m (0.15 m, creep allowed 1e-5)"
elif tag == "rollcarry":  # the friction at the contact points: its moment bends the pair a little more
    good = good and max(abs(x - 0.15) for x in shift) < 1e-4
    what = (f"carried with contact.rolling: every node moved {min(shift):.9g}-{max(shift):.9g} m (0.15 m, creep "
            f"allowed 1e-4)")
else:
    good = good and slid >= 20 and max(abs(x - 0.15) for x in shift) > 1e-2
    what = f"shaken: it slid ({slid:g} nodes at once), ended {shift[0]:.4g} m moved"
open(d + "/verdict", "w").write(
    f"friction, the welded pair on rough ground driven by a table, {what}; as the continuous rod: momentum "
    f"{dp:.2g} of {P:.4g} kg m/s, dissipated {dD:.2g} of {D[-1]:.4g} J (never decreasing); energy balance with "
    f"the ground's work within {bal:.2g} J (allowed 1e-9 of its {W:.4g} J + 1e-10 J, 1e-13 J a step)")
sys.exit(not good)
PY
done
exit $fail
