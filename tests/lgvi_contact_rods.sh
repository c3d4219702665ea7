#!/usr/bin/env bash
# Contact between the segments of an LGVI assembly (docs/lgvi.md "Contact between rods"; scenario keys
# contact.rods and contact.self with `rods`): the single rod's self-contact law (the penalty
# max(0, -eps g) on segment-segment closest points, explicit at x^k) over every rod's segments, pairs
# adjacent across a joint excluded (src/lgvi/segcontact.c). Rods: circle r = 1 cm, rho = 1000 kg/m^3,
# the standard model (dilatation false: variational, its energy error O(h^2)).
#   crossing  two free rods, each a 0.5 m rod welded to a 0.1 m stub (every rod of an assembly must
#             be held by a support or a joint), E = 1e7 Pa, eps = 2000 N/m, crossing 3 cm apart; the
#             upper one pushed down (and spun) for 0.04 s, then free: it strikes the lower one (no
#             gravity). Sum p and Sum (x x p + R mu) constant after the push (the pair forces are
#             equal and opposite along the line of the closest points: the discrete Noether
#             theorem); energy_total - work_external within the integrator's bound, smaller at h/2
#   resting   a rod (two halves welded, 0.6 m) lying across two rods clamped at both ends (all E = 1e9),
#             gravity, midpoint strains, 0.5 s, laid at the pairs' springs' depth for half its weight
#             each: two pairs press throughout, their force averages the rod's weight (undamped, it
#             rocks on them by +-24 %, some 12 periods), and over 0.1 s against the mixed_discrete assembly on the same scenario (its dynamic
#             contact is the same penalty; Radau IIA, rtol 1e-7): momentum, gap and kinetic energy
#   self      contact.self in an assembly: a 1 m rod welded to a clamped stub of one element, curled
#             by a tip moment until it strikes itself, against the continuous single LGVI rod of 31
#             elements (contact.self): the same pairs at every output, nodes within round-off at 0.6 s
#   resume    the crossing rods falling (gravity) onto ground moving up and sideways with friction,
#             interrupted (SIGINT) and resumed: identical to the uninterrupted run
#   check     refusals naming the key: contact.rods_friction on one rod (its self-contact is frictionless;
#             an assembly's is tests/lgvi_contact_rods_friction.sh); contact.rods on one rod; a time_step
#             above the stable step with the penalty; two rods starting inside each other
# Usage: lgvi_contact_rods.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

$py - "$tmp" <<'PY' || exit 1
import json, math, sys
d = sys.argv[1]
r = 0.01
def mat(E):
    return {"material": {"E": E, "G": E / 2.5, "rho": 1000}, "sections": [{"shape": "circle", "radius": r}]}
q = [0.7071067811865476, 0, 0, 0.7071067811865476]  # the rod along y
std = {"type": "lgvi", "dilatation": False}
def save(name, sc):
    json.dump(sc, open(f"{d}/{name}.json", "w"))
push = {"type": "table", "points": [[0, 1], [0.04, 1], [0.0401, 0]]}
save("cross", {
    "model": std,
    "rods": [dict(name="a", length=0.5, elements=10, reference={"origin": [-0.3, 0.0125, 0.03]}, **mat(1e7)),
             dict(name="c", length=0.1, elements=2, reference={"origin": [0.2, 0.0125, 0.03]}, **mat(1e7)),
             dict(name="b", length=0.5, elements=10, reference={"origin": [0.0125, -0.3, 0], "quaternion": q}, **mat(1e7)),
             dict(name="d", length=0.1, elements=2, reference={"origin": [0.0125, 0.2, 0], "quaternion": q}, **mat(1e7))],
    "joints": [{"type": "weld", "a": "a:end", "b": "c:start"}, {"type": "weld", "a": "b:end", "b": "d:start"}],
    "loads": [{"type": "force_density", "rod": "a", "value": [0.2, 0.3, -4], "time": push},
              {"type": "moment", "node": "a:start", "value": [0.002, 0, 0.01], "time": push}],
    "contact": {"rods": True, "stiffness": 2000},
    "stages": [{"type": "dynamic", "t_end": 0.3, "output_dt": 0.002, "time_step": 2e-5}], "output": {"vtk": False}})
rhoA, g, eps = 1000 * math.pi * r * r, 9.81, 2000
W = 0.6 * rhoA * g
EI = 1e9 * math.pi * r ** 4 / 4
# each pair's spring holds half the weight, on the clamped rods sagging under it and their own weight
z = 2 * r - W / 2 / eps - (W / 2 / (192 * EI / 0.4 ** 3) + rhoA * g * 0.4 ** 4 / (384 * EI))
save("rest", {
    "model": dict(std, strains="midpoint"),
    "rods": [dict(name="a", length=0.3, elements=10, reference={"origin": [-0.3, 0, z]}, **mat(1e9)),
             dict(name="d", length=0.3, elements=10, reference={"origin": [0, 0, z]}, **mat(1e9)),
             dict(name="b", length=0.4, elements=9, reference={"origin": [-0.2, -0.2, 0], "quaternion": q}, **mat(1e9)),
             dict(name="c", length=0.4, elements=9, reference={"origin": [0.2, -0.2, 0], "quaternion": q}, **mat(1e9))],
    "joints": [{"type": "weld", "a": "a:end", "b": "d:start"}],
    "boundary_conditions": [{"type": "clamp", "node": n} for n in ["b:start", "b:end", "c:start", "c:end"]],
    "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
    "contact": {"rods": True, "stiffness": eps, "tolerance": 1e-3},
    "stages": [{"type": "dynamic", "t_end": 0.5, "output_dt": 0.001, "time_step": 5e-6}], "output": {"vtk": False}})
E, l = 1e6, 1 / 30
M = 2.2 * 2 * math.pi * E * math.pi * r ** 4 / 4  # 2.2 turns' worth of curvature
one = {"model": dict(std, strains="midpoint"), "rod": dict(length=31 * l, elements=31, **mat(E)),
       "boundary_conditions": [{"type": "clamp", "node": "start"}],
       "loads": [{"type": "moment", "node": "end", "value": [0, 0, M]}],
       "contact": {"self": True, "stiffness": 1000},
       "stages": [{"type": "dynamic", "t_end": 0.6, "output_dt": 0.005, "time_step": 2e-5}], "output": {"vtk": False}}
save("self1", one)
two = json.loads(json.dumps(one))
del two["rod"]
two["rods"] = [dict(name="s", length=l, elements=1, **mat(E)),
               dict(name="a", length=30 * l, elements=30, reference={"origin": [l, 0, 0]}, **mat(E))]
two["joints"] = [{"type": "weld", "a": "s:end", "b": "a:start"}]
two["boundary_conditions"] = [{"type": "clamp", "node": "s:start"}]
two["loads"][0]["node"] = "a:end"
save("self2", two)
PY

run() { timeout -k 5 300 "$cli" run "$tmp/$1.json" -o "$tmp/$2" -q "${@:3}" > "$tmp/$2.log" 2>&1 || bad "$2: $(head -c 300 "$tmp/$2.log")"; }
run cross cross
run cross cross2 --set stages.0.time_step=1e-5
run rest rest
run rest mixed --set model=null --set 'stages=[{"type": "dynamic", "t_end": 0.1, "output_dt": 0.001, "rtol": 1e-7, "atol": 1e-10}]'
run self1 self1
run self2 self2
[ $fail = 0 ] || exit 1

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
def rows(name):
    return [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(f"{d}/{name}/series.csv"))]
R = rows("cross")
after = [r for r in R if r["t"] > 0.045]
keys = ["momentum_x", "momentum_y", "momentum_z", "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"]
drift = max((max(r[k] for r in after) - min(r[k] for r in after)) / max(abs(r[k]) for r in after) for k in keys)
def balance(rr):
    b = [r["energy_total"] - r["work_external"] for r in rr]
    return max(b) - min(b)
b1, b2 = balance(R), balance(rows("cross2"))
hits = sum(1 for r in R if r["rods_contact_pairs"] > 0)
Nmax = max(r["rods_contact_force"] for r in R)
E = max(r["energy_total"] for r in R)
good = drift < 1e-8 and hits >= 10 and Nmax > 1 and b1 < 5e-7 and b2 < 0.7 * b1
open(d + "/verdict", "w").write(
    f"crossing free rods: {hits} outputs pressing (up to {Nmax:.3f} N); after the push every component of Sum p and "
    f"Sum (x x p + R mu) constant to {drift:.1g} of its size (the series' digits); energy_total - work_external within "
    f"{b1:.2g} J (h), {b2:.2g} J (h/2) of {E:.4f} J")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
def rows(name):
    return [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(f"{d}/{name}/series.csv"))]
L, M = rows("rest"), rows("mixed")  # (0.5 s and 0.1 s)
rhoA, g = 1000 * math.pi * 1e-4, 9.81
W = 0.6 * rhoA * g
T = L[-1]["t"]
# the mean of the left-rectangle samples N(t_j) over [0, T): the discrete impulse h Σ N = W T + Δp_z
N = [r["rods_contact_force"] for r in L[:-1]]
mean = sum(N) / len(N)
pairs = {r["rods_contact_pairs"] for r in L}
L = L[:len(M)]
ep = max(abs(a["momentum_z"] - b["momentum_z"]) for a, b in zip(L, M))
pz = max(abs(a["momentum_z"]) for a in L)
eg = max(abs(a["rods_contact_gap"] - b["rods_contact_gap"]) for a, b in zip(L, M))
gz = max(abs(a["rods_contact_gap"]) for a in L)
ek = max(abs(a["energy_kinetic"] - b["energy_kinetic"]) for a, b in zip(L, M))
kz = max(a["energy_kinetic"] for a in L)
lo, hi = min(N) / W, max(N) / W
good = (pairs == {2.0} and abs(mean / W - 1) < 5e-3 and len(M) == 101
        and ep < 1e-2 * pz and eg < 1e-2 * gz and ek < 1e-2 * kz)
open(d + "/verdict", "w").write(
    f"a rod resting across two clamped rods: 2 pairs pressing at every output, their force averaging {mean:.4f} N over {T:g} s "
    f"against its weight {W:.4f} N ({mean / W - 1:+.1e}; rocking between {lo:.3f} and {hi:.3f} W, undamped); "
    f"against the mixed rod (0.1 s): momentum within {ep:.2g} of {pz:.4f} kg m/s, gap within "
    f"{eg:.2g} of {gz:.2g} m, kinetic energy within {ek:.2g} of {kz:.4f} J")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
A = [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(d + "/self1/series.csv"))]
B = [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(d + "/self2/series.csv"))]
same = all(a["self_contact_pairs"] == b["rods_contact_pairs"] for a, b in zip(A, B)) and len(A) == len(B)
hits = sum(1 for a in A if a["self_contact_pairs"] > 0)
na = [r for r in csv.reader(open(d + "/self1/nodes.csv"))][1:]
nb = [r for r in csv.reader(open(d + "/self2/nodes.csv"))][1:]
nb = nb[:2] + nb[3:]  # the weld's node once
dx = max(abs(float(a[k]) - float(b[k + 1])) for a, b in zip(na, nb) for k in (1, 2, 3))
de = max(abs(a["energy_total"] - b["energy_total"]) for a, b in zip(A, B))
good = same and hits >= 5 and len(na) == len(nb) == 32 and dx < 1e-10 and de < 1e-8
open(d + "/verdict", "w").write(
    f"contact.self in an assembly (a rod welded to a clamped stub) against the continuous single rod: the same pairs at "
    f"all {len(A)} outputs ({hits} pressing), nodes within {dx:.2g} m and energies within {de:.2g} J at 0.6 s")
sys.exit(not good)
PY

# ---- SIGINT and --resume: the crossing rods, longer, on ground moving up and sideways ----
$py - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
sc = json.load(open(d + "/cross.json"))
sc["stages"][0].update(t_end=1.5, output_dt=0.002, checkpoint_interval=0.05)
sc["loads"].append({"type": "gravity", "value": [0, 0, -9.81]})
sc["obstacles"] = [{"type": "plane", "name": "ground", "normal": [0, 0, 1], "point": [0, 0, -0.05],
                    "velocity": [0.05, 0, 0.02], "friction": {"static": 0.4, "kinetic": 0.3}}]
json.dump(sc, open(d + "/res.json", "w"))
PY
run res full
if interrupt_resume "$tmp/cut" 100 400 0.01 "$cli" run "$tmp/res.json" -o "$tmp/cut" -q; then
    hits=$($py -c "
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for a in r if float(a['rods_contact_pairs']) > 0), sum(1 for a in r if float(a['contact_active']) > 0))" \
        "$tmp/full/series.csv")
    if cmp -s "$tmp/full/series.csv" "$tmp/cut/series.csv" && cmp -s "$tmp/full/nodes.csv" "$tmp/cut/nodes.csv"; then
        ok "resume: the crossing rods falling on rising ground (outputs with rods' pairs, with the ground: $hits), interrupted after $cut_rows rows and resumed: series.csv and nodes.csv identical"
    else
        bad "resume: the resumed run differs: $(diff "$tmp/full/series.csv" "$tmp/cut/series.csv" | head -3)"
    fi
fi

# ---- check ----
expect_error 1 "contact.rods_friction" check "$tmp/self1.json" --set 'contact.rods_friction={"static": 0.3}'
expect_error 1 "contact.rods" check "$tmp/self1.json" --set contact.rods=true
expect_error 1 "contact.stiffness" check "$tmp/cross.json" --set contact.stiffness=1e9
grep -q "rods.0 ('a')" "$tmp/err" && ok "the step limit names the rod" || bad "the rod not named: $(cat "$tmp/err")"
expect_error 1 "contact.rods: the segment of nodes" check "$tmp/cross.json" --set rods.0.reference.origin.2=0.005 \
    --set rods.1.reference.origin.2=0.005
grep -q "rods.2 ('b')" "$tmp/err" && ok "the start inside names both rods" || bad "rod b not named: $(cat "$tmp/err")"
exit $fail
