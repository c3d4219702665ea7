#!/usr/bin/env bash
# Moving obstacles with the LGVI rod (docs/lgvi.md "Moving obstacles"): the springs at the obstacles'
# poses of t_k, their work on the rod (h P_k, P = Σ f·u the springs' power on the surface's velocity u)
# in work_external, the exact Coulomb stick on the momentum relative to the obstacle's material point.
# The rod: 1 m, circle r = 1 cm, E = 1e7 Pa, rho = 1000 (m = rhoA L = 0.31416 kg, weight 3.0819 N),
# 10 elements, lying on the plane at its springs' depth delta = rhoA g l/k_c (k_c = 12 EI/l^3 =
# 942.48 N/m; every node's omega_c^2 = k_c/(rhoA l): omega_c = 173.2 rad/s), h = 5e-5 s.
#   lift      the plane rising at v = 0.02 m/s from t = 0 (below g/omega_c = 0.057 m/s: the rod stays
#             on it): the flat rod is a mass on its springs whose base moves at v; the Stormer-Verlet
#             solution of that oscillator, z = z0 + v t - A sin(w_d t), A = v h/sin(w_d h),
#             w_d = (2/h) asin(omega_c h/2), N = m g + m omega_c^2 A sin(w_d t): the rod rides the
#             plane (mean velocity v, mean normal force m g); the balance energy_total - work_external
#             (the plane's work in it) constant to O(h^2): at h and h/2
#   conveyor  the plane translating at v = 0.2 m/s under the rod (mu_s 0.5, mu_k 0.3): it accelerates
#             at mu_k g until it reaches v, at t = v/(mu_k g) = 0.06796 s, and is carried at v; the
#             friction's work on the rod = its kinetic energy m v^2/2; two rods welded end to end
#             (LGVI assembly) against the continuous rod of 20 elements: the same nodes
#   board     tests/contact_ph_turning.sh's cord on a board tilting at 0.5 rad/s, model lgvi:
#             frictionless, its end slides r(1 s) = g/(2 w^2)(sinh wt - sin wt) - a sinh wt =
#             0.814955 m; with friction (mu_s 0.6), laid at its springs' depth, it sticks to its
#             material points of the board (after its first steps, which slip to the speed w a of the
#             surface under it) until Coulomb's angle atan mu_s (t = 1.0808 s)
#   resume    a rope of 40 elements on a plate driven by a table of poses (turning and translating),
#             stick-slip, interrupted (SIGINT) and resumed: identical to the uninterrupted run
#   check     the lifted refusals: check accepts every kind of motion (velocity, acceleration,
#             angular_velocity, motion, position/rotation with time) for one rod and an assembly
# Usage: lgvi_contact_moving.sh CLI SOURCE_DIR
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
rhoA, g = 1000 * math.pi * 1e-4, 9.81
mat = {"material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]}
grav = {"type": "gravity", "value": [0, 0, -9.81]}

def depth(l):  # the plane's z: every node's spring (k_c w_i, k_c = 12 EI/l^3) holds its weight
    return rhoA * g * l / (12 * 1e7 * (math.pi * 1e-8 / 4) / l ** 3) - 0.01

def plane(l, **kw):
    return [dict({"type": "plane", "name": "ground", "normal": [0, 0, 1], "point": [0, 0, depth(l)]}, **kw)]

def stage(t_end, out=0.001, h=5e-5):
    return [{"type": "dynamic", "t_end": t_end, "output_dt": out, "time_step": h}]

def one(n, obstacles, st):
    return {"model": {"type": "lgvi"}, "rod": dict(length=1, elements=n, **mat), "loads": [grav],
            "obstacles": obstacles, "contact": {"tolerance": 1e-3}, "stages": st, "output": {"vtk": False}}

def save(name, sc):
    json.dump(sc, open(f"{d}/{name}.json", "w"))

belt = {"velocity": [0.2, 0, 0], "friction": {"static": 0.5, "kinetic": 0.3}}
save("lift", one(10, plane(0.1, velocity=[0, 0, 0.02]), stage(1)))
save("lift2", one(10, plane(0.1, velocity=[0, 0, 0.02]), stage(1, h=2.5e-5)))
save("belt", one(10, plane(0.1, **belt), stage(0.2)))
save("belt1", one(20, plane(0.05, **belt), stage(0.2)))
two = one(10, plane(0.05, **belt), stage(0.2))
del two["rod"]
two["rods"] = [dict(name="a", length=0.5, elements=10, **mat),
               dict(name="b", length=0.5, elements=10, reference={"origin": [0.5, 0, 0]}, **mat)]
two["joints"] = [{"type": "weld", "a": "a:end", "b": "b:start"}]
save("belt2", two)
# the board: tests/contact_ph_turning.sh's cord (its k_c = 1000 N/m per element length)
cord = {"length": 0.2, "elements": 8, "material": {"E": 5e6, "G": 1.7e6, "rho": 1100},
        "sections": [{"shape": "circle", "radius": 0.005}],
        "reference": {"type": "straight", "origin": [0, -0.1, 0.005],
                      "quaternion": [0.7071067811865476, 0, 0, 0.7071067811865476]}}
board = {"model": {"type": "lgvi"}, "rod": cord, "loads": [grav],
         "obstacles": [{"type": "plane", "name": "board", "point": [0, 0, 0], "normal": [0, 0, 1],
                        "angular_velocity": [0, 0.5, 0]}],
         "contact": {"stiffness": 1000}, "stages": stage(1, out=0.01), "output": {"vtk": False}}
save("board", board)
rest = json.loads(json.dumps(board))
rest["rod"]["reference"]["origin"][2] = 0.005 - 1100 * math.pi * 25e-6 * 0.025 * g / 1000  # its springs' depth
rest["contact"]["tolerance"] = 5e-5
rest["obstacles"][0]["friction"] = {"static": 0.6, "kinetic": 0.4}
rest["stages"][0]["t_end"] = 1.3
save("rest", rest)
# resume: a plate turning and translating along a table of poses, the rope sticking and slipping
rows = [[0, 0, 0, depth(0.025), 0, 0, 0]]
for k in range(1, 9):
    t = 0.125 * k
    rows.append([t, 0.04 * math.sin(6 * t), 0.02 * (1 - math.cos(5 * t)), depth(0.025), 0.0, 0.15 * math.sin(4 * t), 0.3 * t])
res = one(40, [{"type": "plane", "name": "plate", "normal": [0, 0, 1], "point": [0.5, 0, depth(0.025)],
                "motion": [[r[0], 0.5 + r[1]] + r[2:] for r in rows], "friction": {"static": 0.4, "kinetic": 0.3}}],
          [{"type": "dynamic", "t_end": 1, "output_dt": 0.005, "time_step": 2.5e-5, "checkpoint_interval": 0.05}])
save("res", res)
PY

for c in lift lift2 belt belt1 belt2 board rest; do
    timeout -k 5 120 "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || bad "$c: $(head -c 300 "$tmp/$c.log")"
done
[ $fail = 0 ] || exit 1

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rhoA, g, v = 1000 * math.pi * 1e-4, 9.81, 0.02
m, l = rhoA, 0.1
kc = 12 * 1e7 * (math.pi * 1e-8 / 4) / l ** 3
w = math.sqrt(kc / (rhoA * l))
def rows(name):
    return [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(f"{d}/{name}/series.csv"))]
R = rows("lift")
h = 5e-5
wd = 2 / h * math.asin(w * h / 2)
A = v * h / math.sin(wd * h)
eN = max(abs(r["contact_normal_force"] - (m * g + m * w * w * A * math.sin(wd * r["t"]))) for r in R)
z0 = R[0]["tip_z"]
ez = max(abs(r["tip_z"] - (z0 + v * r["t"] - A * math.sin(wd * r["t"]))) for r in R)
def balance(rr):
    b = [r["energy_total"] - r["work_external"] for r in rr]
    return max(abs(x - b[0]) for x in b)
b1, b2 = balance(R), balance(rows("lift2"))
W = R[-1]["work_external"]
good = eN < 1e-6 and ez < 1e-9 and b1 < 1e-7 and 3 < b1 / b2 < 5 and W > 5e-5 and R[-1]["contact_active"] == 11
open(d + "/verdict", "w").write(
    f"lift at {v} m/s: normal force within {eN:.2g} N of the Verlet oscillator's m g + m w^2 A sin(w_d t) (amplitude "
    f"{m * w * w * A:.4f} N about m g = {m * g:.4f} N), the rod's height within {ez:.2g} m of z0 + v t - A sin(w_d t) "
    f"(it rides the plane); balance within {b1:.2g} J (h) and {b2:.2g} J (h/2, ratio {b1 / b2:.2f}) of the plane's "
    f"work {W:.4g} J")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rhoA, g, v, muk = 1000 * math.pi * 1e-4, 9.81, 0.2, 0.3
m = rhoA
R = [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(d + "/belt/series.csv"))]
ts = v / (muk * g)
slide = [r for r in R if 0 < r["t"] < ts - 0.002]
acc = max(abs(r["momentum_x"] / m / r["t"] / (muk * g) - 1) for r in slide)
first = next(r["t"] for r in R if r["t"] > 0 and r["contact_sliding"] == 0)
after = [r for r in R if r["t"] >= first]
ev = max(abs(r["momentum_x"] / m - v) for r in after)
W = R[-1]["work_external"]
b = [r["energy_total"] - r["work_external"] for r in R]
bal = max(abs(x - b[0]) for x in b)
good = (acc < 1e-9 and ts <= first <= ts + 0.001 + 1e-9 and ev < 1e-9 and all(r["contact_sliding"] == 0 for r in after)
        and abs(W / (0.5 * m * v * v) - 1) < 1e-8 and bal < 1e-12 and all(r["contact_sliding"] == 11 for r in slide))
open(d + "/verdict", "w").write(
    f"conveyor at {v} m/s: the rod accelerates at mu_k g to {acc:.1g} (11 nodes sliding), stops sliding at the "
    f"output t = {first:.3f} s (v/(mu_k g) = {ts:.5f} s) and is carried at v within {ev:.1g} m/s; the friction's "
    f"work {W:.10f} J = m v^2/2 = {0.5 * m * v * v:.10f} J; balance within {bal:.1g} J")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
def last(name, skip):  # the last output's node positions
    rows = [r for r in csv.reader(open(f"{d}/{name}/nodes.csv"))][1:]
    return [[float(x) for x in r[skip:skip + 3]] for r in rows]
a, b = last("belt1", 1), last("belt2", 2)
b = b[:11] + b[12:]  # the weld's node once
dx = max(abs(p - q) for x, y in zip(a, b) for p, q in zip(x, y))
A = [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(d + "/belt1/series.csv"))]
B = [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(d + "/belt2/series.csv"))]
dp = max(abs(r["momentum_x"] - q["momentum_x"]) for r, q in zip(A, B))
good = len(a) == 21 and dx < 1e-12 and dp < 1e-12 and abs(B[-1]["momentum_x"] / (0.2 * 0.1 * 3.14159265) - 1) < 1e-6
open(d + "/verdict", "w").write(
    f"conveyor, two rods welded (assembly) against the continuous rod: nodes within {dx:.2g} m after 0.2 s, momenta "
    f"within {dp:.2g} kg m/s (carried at {B[-1]['momentum_x'] / (0.1 * 3.14159265):.9f} m/s)")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
g, w, a = 9.81, 0.5, 0.005
def rows(name):
    return [{k: float(x) for k, x in r.items()} for r in csv.DictReader(open(f"{d}/{name}/series.csv"))]
def along(r):  # the end's coordinate along the board's x axis (R_y(w t) e_x), and across it
    al = w * r["t"]
    return math.cos(al) * r["tip_x"] - math.sin(al) * r["tip_z"]
def balance(rr):
    b = [r["energy_total"] - r["work_external"] for r in rr]
    return max(abs(x - b[0]) for x in b)
P = rows("board")
t = P[-1]["t"]
ref = g / (2 * w * w) * (math.sinh(w * t) - math.sin(w * t)) - a * math.sinh(w * t)
r = along(P[-1])
S = rows("rest")
ts = math.atan(0.6) / w
first = next((q["t"] for q in S if q["t"] > 0.005 and q["contact_sliding"] > 0), math.inf)
stick = [along(q) for q in S if 0.005 < q["t"] < ts - 0.01]  # (it first slips to the surface's speed w a)
drift = max(stick) - min(stick)
good = (abs(r / ref - 1) < 1e-4 and balance(P) < 1e-7 and P[-1]["work_external"] > 0.05 and
        ts - 1e-9 <= first <= ts + 0.01 + 1e-9 and drift < 1e-9 and balance(S) < 1e-8 and S[-1]["contact_sliding"] > 0)
open(d + "/verdict", "w").write(
    f"board tilting at 0.5 rad/s: frictionless, the cord's end slid {r:.6f} m by t = {t:g} s (analytic {ref:.6f}, "
    f"{r / ref - 1:+.1e}), balance within {balance(P):.2g} J of the board's work {P[-1]['work_external']:.4f} J; with "
    f"friction it sticks (its end moves {drift:.1g} m on the board) and first slides at the output t = {first:.2f} s "
    f"(atan mu_s at {ts:.4f} s), balance within {balance(S):.2g} J")
sys.exit(not good)
PY

# ---- SIGINT and --resume ----
"$cli" run "$tmp/res.json" -o "$tmp/full" -q > "$tmp/full.log" 2>&1 || bad "resume: the uninterrupted run failed: $(head -c 300 "$tmp/full.log")"
if interrupt_resume "$tmp/cut" 50 400 0.01 "$cli" run "$tmp/res.json" -o "$tmp/cut" -q; then
    slips=$($py -c "
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for a, b in zip(r, r[1:]) if float(a['contact_sliding']) == 0 and float(b['contact_sliding']) > 0))" \
        "$tmp/full/series.csv")
    if [ "$slips" -ge 2 ] && cmp -s "$tmp/full/series.csv" "$tmp/cut/series.csv" &&
        cmp -s "$tmp/full/nodes.csv" "$tmp/cut/nodes.csv"; then
        ok "resume: interrupted after $cut_rows rows of $slips stick-slip cycles on the driven plate, resumed: series.csv and nodes.csv identical to the uninterrupted run"
    else
        bad "resume: the resumed run differs ($slips stick-slip cycles): $(diff "$tmp/full/series.csv" "$tmp/cut/series.csv" | head -3)"
    fi
fi

# ---- check: every kind of motion, one rod and an assembly ----
for m in 'velocity=[0,0,0.01]' 'acceleration=[0.5,0,0]' 'angular_velocity=[0,0.1,0]' \
    'motion=[[0,0,0,-0.0096],[1,0.1,0,-0.0096]]'; do
    if "$cli" check "$tmp/belt.json" --set obstacles.0.velocity=null --set "obstacles.0.$m" > "$tmp/out" 2>&1 &&
        "$cli" check "$tmp/belt2.json" --set obstacles.0.velocity=null --set "obstacles.0.$m" > "$tmp/out" 2>&1; then
        ok "check takes obstacles.0.$m (one rod and an assembly)"
    else
        bad "check refuses obstacles.0.$m: $(head -c 300 "$tmp/out")"
    fi
done
if "$cli" check "$tmp/belt.json" --set obstacles.0.velocity=null --set 'obstacles.0.position=[0.1,0,0]' \
    --set 'obstacles.0.rotation=[0,0,0.2]' --set 'obstacles.0.time={"type": "ramp", "t0": 0, "t1": 1}' > "$tmp/out" 2>&1; then
    ok "check takes obstacles.0.position and rotation with a time function"
else
    bad "check refuses obstacles.0.position/rotation/time: $(head -c 300 "$tmp/out")"
fi
exit $fail
