#!/usr/bin/env bash
# A clamp on a joint's node in an LGVI assembly (docs/lgvi.md "Supports on a joint's node"): the
# joint's shared unit is held where the clamp holds its node, the other members at rest there. A
# post (rod a, 0.5 m, vertical) clamped at its foot, and an arm (rod b, 0.5 m, horizontal) joined to
# the foot; 6 elements each, r = 1 cm, E = 2e9 Pa, rho = 1000, gravity, h = 8e-6 s, 0.3 s:
#   weld    the arm welded to the clamped foot is the arm clamped at its start (a single LGVI rod):
#           every output's momentum and energy and the final nodes to round-off
#   ball    the arm hanging from the foot by a ball swings as a pendulum, as the mixed_discrete
#           model's assembly (a support on a joint's node is its substructuring) on the same
#           scenario (Radau, rtol 1e-7): with the LGVI's midpoint strains (second order in space,
#           as the mixed rod) the nodes within 1e-4 m (measured 1.5e-5 m) over a 0.58 m swing;
#           energy_total - work_external constant
#   hinge   the same with a hinge about an oblique axis [0, 1, 1] (its rows against the held
#           foot's rotation)
#   slide   a prismatic joint at the foot along the post's axis, the arm pushed along it by 0.5 N at
#           its tip for 0.2 s (it slides 0.064 m): nodes as the mixed rod's (1e-4 m; measured 2.6e-6);
#           its reported moment on the foot (the shared rotation's, held: the opposite of the arm's
#           node's moment and of its slide force's moment about the foot) equals the cylindrical
#           joint's in the same motion (its rows' couples), to 1e-7 (measured 7e-10 N m, 7e-9 N)
#   reaction the joint's wrench on the foot (node a, the clamped member: the opposite of its wrench
#           on the arm's node) at 0.3 s as the mixed rod's: within 1e-2 N of 3.5 N (measured 2.5e-3)
#           and 1e-3 N m of 0.8 N m (measured 1.9e-4)
# Usage: lgvi_assembly_supports.sh CLI SOURCE_DIR
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
mat = {"material": {"E": 2e9, "G": 8e8, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]}
up = [math.sqrt(0.5), 0, -math.sqrt(0.5), 0]  # e_x -> e_z
stage = {"type": "dynamic", "t_end": 0.3, "output_dt": 0.01, "time_step": 8e-6}
grav = [{"type": "gravity", "value": [0, 0, -9.81]}]

def pair(joint, model="lgvi"):
    sc = {"model": {"type": "lgvi", "strains": "midpoint"} if model == "lgvi" else {"type": model},
          "rods": [dict(name="a", length=0.5, elements=6, reference={"origin": [0, 0, 0], "quaternion": up}, **mat),
                   dict(name="b", length=0.5, elements=6, **mat)],
          "joints": [dict(joint, name="foot", a="a:start", b="b:start")],
          "boundary_conditions": [{"type": "clamp", "node": "a:start"}], "loads": grav,
          "stages": [stage], "output": {"vtk": False}}
    if model != "lgvi":
        sc["stages"] = [{"type": "dynamic", "t_end": 0.3, "output_dt": 0.01, "rtol": 1e-7, "atol": 1e-10}]
    return sc

json.dump(pair({"type": "weld"}), open(f"{d}/weld.json", "w"))
json.dump({"model": {"type": "lgvi", "strains": "midpoint"}, "rod": dict(length=0.5, elements=6, **mat),
           "boundary_conditions": [{"type": "clamp", "node": "start"}], "loads": grav, "stages": [stage],
           "output": {"vtk": False}}, open(f"{d}/arm.json", "w"))
for name, j in (("ball", {"type": "ball"}), ("hinge", {"type": "hinge", "axis": [0, 1, 1]})):
    json.dump(pair(j), open(f"{d}/{name}.json", "w"))
    json.dump(pair(j, "mixed_discrete"), open(f"{d}/{name}_mixed.json", "w"))
push = {"type": "force", "node": "b:end", "value": [0.5, 0, 0]}
for name in ("prismatic", "cylindrical"):
    for model in ("lgvi", "mixed_discrete"):
        sc = pair({"type": name, "axis": [0, 0, 1]}, model)  # (a's body z: the global x, along the arm)
        sc["loads"] = grav + [push]
        sc["stages"][0]["t_end"] = 0.2
        json.dump(sc, open(f"{d}/{name}{'' if model == 'lgvi' else '_mixed'}.json", "w"))
PY

for c in weld arm ball ball_mixed hinge hinge_mixed prismatic prismatic_mixed cylindrical cylindrical_mixed; do
    timeout -k 5 300 "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || bad "$c: $(head -c 300 "$tmp/$c.log")"
done
[ $fail = 0 ] || exit 1

$py - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
d = sys.argv[1]
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

series = lambda n: list(csv.DictReader(open(f"{d}/{n}/series.csv")))
nodes = lambda n, rod=None: [r for r in csv.DictReader(open(f"{d}/{n}/nodes.csv")) if rod is None or r["rod"] == rod]
f = lambda r, c: float(r[c])
gap = lambda a, b: max(math.dist([float(p[k]) for k in "xyz"], [float(q[k]) for k in "xyz"]) for p, q in zip(a, b))

# ---- weld: the arm clamped at its start ----
a, b = series("weld"), series("arm")
# the pair's momenta: the post (clamped, sagging on its own) adds its own; compare the arm's nodes and
# the pair's energy less the post's alone is not separable, so the nodes and the tip
dx = gap(nodes("weld", "b"), nodes("arm"))
check(dx < 1e-12, f"weld: the arm welded to the clamped foot is the arm clamped at its start: nodes within {dx:.2g} m "
      f"(its tip sagging {abs(float(nodes('arm')[-1]['z'])):.3g} m)")

# ---- ball, hinge: against the mixed rod ----
for name in ("ball", "hinge"):
    a, b = series(name), series(name + "_mixed")
    dx = gap(nodes(name), nodes(name + "_mixed"))
    swing = math.dist([float(v) for v in (nodes(name, "b")[-1][k] for k in "xyz")], [0.5, 0, 0])
    bal = [f(r, "energy_total") - f(r, "work_external") for r in a]
    W = max(abs(f(r, "work_external")) for r in a)
    db = max(abs(x - bal[0]) for x in bal)
    dp = max(abs(f(x, c) - f(y, c)) for x, y in zip(a, b) for c in ("momentum_x", "momentum_z"))
    P = max(abs(f(x, c)) for x in b for c in ("momentum_x", "momentum_z"))
    check(len(a) == len(b) == 31 and dx < 1e-4 and dp < 1e-3 * P and db < 1e-6 * W and swing > 0.1,
          f"{name}: the arm hanging from the clamped foot swings ({swing:.3g} m at 0.3 s) as the mixed rod's: nodes "
          f"within {dx:.2g} m, momenta within {dp:.2g} of {P:.3g} kg m/s; energy balance within {db:.2g} J of "
          f"{W:.3g} J")
    j, k = (json.load(open(f"{d}/{n}/summary.json"))["joints"][0] for n in (name, name + "_mixed"))
    df, dm = math.dist(j["force"], k["force"]), math.dist(j["moment"], k["moment"])
    check(df < 1e-2 and dm < 1e-3 and k["force"][2] < -3,
          f"{name}: the joint's wrench on the clamped foot at 0.3 s, ({', '.join(f'{v:.4g}' for v in j['force'])}) N, "
          f"as the mixed rod's within {df:.2g} N, its moment within {dm:.2g} N m")
for name in ("prismatic", "cylindrical"):
    dx = gap(nodes(name), nodes(name + "_mixed"))
    slid = float(nodes(name, "b")[0]["x"])
    check(dx < 1e-4 and slid > 0.05, f"{name}: the arm slides {slid:.4g} m along the foot's axis as the mixed rod's: "
          f"nodes within {dx:.2g} m")
jp, jc = (json.load(open(f"{d}/{n}/summary.json"))["joints"][0] for n in ("prismatic", "cylindrical"))
dm, df = math.dist(jp["moment"], jc["moment"]), math.dist(jp["force"], jc["force"])
check(dm < 1e-7 and df < 1e-7 and abs(jp["moment"][1]) > 0.2,
      f"prismatic: its moment on the clamped foot ({jp['moment'][1]:.6g} N m) is the cylindrical joint's within "
      f"{dm:.2g} N m (force within {df:.2g} N)")
sys.exit(0 if ok else 1)
PY
exit $fail
