#!/bin/bash
# The port-Hamiltonian and lgvi rods' clamp reactions (summary.json `reactions`, a tracked clamped
# node's reaction columns), against the balances they must satisfy (port-Hamiltonian first):
#   statics   a cantilever (0.6 m, 6 elements) under gravity, a tip force and a tip moment with
#             every component, deflected by a third of its length: the clamp's force is minus the
#             loads' sum, and its moment minus their moment about the clamp over the deformed
#             shape (the weight's by Simpson's rule on each quadratic element, exact for its
#             quadratic positions): both to 1e-9 of the loads' size (measured 5e-13 N, 6e-15 N m);
#             the mixed rod (12 elements, the same nodes) on the same scenario: the force to 1e-9,
#             the moment to 1e-2 of |F| L (measured 2.1e-3: the two discretisations of a 0.6 m
#             deflection)
#   dynamics  the cantilever released from rest under gravity with the tip force, output every
#             step: each step's momentum change is h (loads + the clamp's force of that step)
#             (the midpoint rule's balance of the clamped node's rows with their consistent
#             mass), to 1e-6 of h times the loads (measured 3e-8: the Newton tolerance and the
#             series' 10 digits; without the consistent mass's term the error is O(1)); and the
#             Kirchhoff cantilever of the paper
#             (rigid shear and extension: the reaction carries their multipliers) likewise after
#             its tip load ends
#   joints    the Y of two rods welded at a clamped root (tests/ph_assembly_scenarios.sh): the
#             clamp carries both rods' weight (the weld's force goes to it) to 1e-9, its moment
#             the mixed rod's to 1e-5; the double pendulum hinged at the clamped node: each step's
#             total momentum change h (weight + clamp force), to 1e-6 (measured 8e-8: the
#             momentum, 35 N s, printed to 10 digits)
#   lgvi      the cantilever with 12 elements, released from rest, h = 1e-4 s: each step's momentum
#             change h (loads + the clamp's force at the step's start level), to 1e-6 (measured
#             4e-8: the series' digits); the clamp moved along a ramp (a moving clamp: R = its
#             node's momentum change less its forces) likewise; with the midpoint strain frame and
#             a drag, settled for 3 s: the clamp's force and moment the mixed rod's static ones
#             (force to 1e-3 of its size, moment to 1e-2 of |F| L: measured 3e-4 and 4e-4)
#   restored  the reaction travels with the packed state: the lgvi pure-stretching example pulled
#             past what its model holds trips the energy watch (exit 2) and keeps an earlier state,
#             whose summary.json still has the clamp's reaction (before: an empty list)
# Usage: clamp_reactions.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

cat > "$tmp/cant.json" <<'JSON'
{"model": "port_hamiltonian",
 "rod": {"length": 0.6, "elements": 6, "material": {"E": 5e6, "G": 2e6, "rho": 1200},
         "sections": [{"shape": "circle", "radius": 0.01}]},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "force", "node": "end", "value": [0.05, 0.08, -0.1]},
           {"type": "moment", "node": "end", "value": [0.004, -0.003, 0.002]}],
 "output": {"vtk": false, "track": [{"name": "root", "node": "start"}, {"name": "tip", "node": "end"}]},
 "stages": [{"type": "static", "load_steps": 4}]}
JSON
run_scenario stat "$tmp/cant.json"
run_scenario stat_mixed "$tmp/cant.json" --set model=mixed_discrete --set rod.elements=12
run_scenario dyn "$tmp/cant.json" --set 'stages=[{"type": "dynamic", "t_end": 0.2, "output_dt": 0.001, "time_step": 0.001}]'
run_scenario kirch "$src/examples/cantilever-kirchhoff.json" --set output.vtk=false --set stages.0.t_end=0.12 \
    --set 'output.track=[{"name": "root", "node": "start"}]'

# the Y welded at a clamped root, and the double pendulum hinged at the clamped node
cat > "$tmp/y.json" <<'JSON'
{"model": "port_hamiltonian",
 "rods": [
   {"name": "a", "length": 0.5, "elements": 8, "material": {"E": 2e8, "G": 8e7, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.4, "elements": 8, "material": {"E": 2e8, "G": 8e7, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"frame": {"e_x": [0, 1, 0], "e_y": [-1, 0, 0]}}}],
 "joints": [{"type": "weld", "name": "root", "a": "a:start", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "output": {"vtk": false},
 "stages": [{"type": "static", "load_steps": 4}]}
JSON
run_scenario y "$tmp/y.json"
run_scenario y_mixed "$tmp/y.json" --set model=mixed_discrete --set rods.0.elements=16 --set rods.1.elements=16
run_scenario dp "$src/examples/ph-double-pendulum.json" --set output.vtk=false --set 'boundary_conditions=[{"type": "clamp", "node": "post:end"}]' \
    --set 'stages=[{"type": "dynamic", "t_end": 0.3, "output_dt": 0.001, "time_step": 0.001}]' \
    --set 'output.track=[{"name": "pivot", "node": "post:end"}]'
lg=(--set model=lgvi --set rod.elements=12 --set 'stages=[{"type": "dynamic", "t_end": 0.05, "output_dt": 1e-4, "time_step": 1e-4}]')
run_scenario lgvi "$tmp/cant.json" "${lg[@]}"
run_scenario lgvi_moving "$tmp/cant.json" "${lg[@]}" \
    --set 'boundary_conditions=[{"type": "clamp", "node": "start", "position": [0, 0, 0.01], "time": {"type": "ramp", "t0": 0, "t1": 0.05}}]'
run_scenario lgvi_settled "$tmp/cant.json" "${lg[@]}" --set 'model={"type": "lgvi", "strains": "midpoint"}' \
    --set 'rod.damping={"drag": 2.0, "rotational_drag": [1e-4, 1e-4, 1e-4]}' \
    --set 'stages=[{"type": "dynamic", "t_end": 3.0, "output_dt": 0.1, "time_step": 1e-4}]'
timeout -k 5 300 "$cli" run "$src/examples/pure-stretching.json" --set loads.0.value.2=60 --set output.vtk=false \
    -q -o "$tmp/watch" > "$tmp/watch.log" 2>&1
code=$?
if [ $code -eq 2 ] && $py -c "
import json, math, sys
s = json.load(open(sys.argv[1]))
r = s['reactions']
sys.exit(0 if len(r) == 1 and r[0]['node'] == 0 and all(map(math.isfinite, r[0]['force'] + r[0]['moment_body'])) else 1)" \
    "$tmp/watch/summary.json"; then
    ok "restored: the energy watch's kept lgvi state reports its clamp's reaction"
else
    bad "restored: exit $code (expected 2), reactions $(grep -o '"reactions"[^]]*]' "$tmp/watch/summary.json" 2>/dev/null | head -c 200)"
fi
[ $fail = 0 ] || exit 1

$py - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
import numpy as np
d = sys.argv[1]
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

def rot(q):  # the rotation matrix of the quaternion (w, x, y, z)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])

def series(name):
    rows = list(csv.reader(open(f"{d}/{name}/series.csv")))
    return {k: np.array([float(r[i]) for r in rows[1:]]) for i, k in enumerate(rows[0])}

def nodes(name):
    rows = list(csv.reader(open(f"{d}/{name}/nodes.csv")))
    return rows[0], rows[1:]

# ---- statics: the whole rod's balance ----
rho, A, L, g = 1200.0, math.pi * 1e-4, 0.6, 9.81
F, M = np.array([0.05, 0.08, -0.1]), np.array([0.004, -0.003, 0.002])
st = json.load(open(f"{d}/stat/summary.json"))
R = st["reactions"][0]
tr = st["track"]["root"]
Rf, Rm = np.array(R["force"]), rot(tr["quaternion"]) @ np.array(R["moment_body"])
h, rows = nodes("stat")
x = np.array([[float(r[h.index(c)]) for c in "xyz"] for r in rows])
s = np.array([float(r[h.index("s")]) for r in rows])
x0 = x[0]
W = np.array([0, 0, -rho * A * g])
mw = np.zeros(3)
for e in range(0, len(x) - 1, 2):  # Simpson on each quadratic element (nodes e, e+1, e+2)
    le = s[e + 2] - s[e]
    mw += le / 6 * (np.cross(x[e] - x0, W) + 4 * np.cross(x[e + 1] - x0, W) + np.cross(x[e + 2] - x0, W))
loads_F = F + W * L
loads_M = np.cross(x[-1] - x0, F) + M + mw
size = np.linalg.norm(loads_F) * L
ef, em = np.linalg.norm(Rf + loads_F), np.linalg.norm(Rm + loads_M)
check(ef < 1e-9 * np.linalg.norm(loads_F) and em < 1e-9 * size and np.linalg.norm(x[-1] - [L, 0, 0]) > 0.1,
      f"statics: the clamp's force {Rf} N is minus the loads' ({ef:.1e} N off), its moment {Rm} N m minus theirs "
      f"about the clamp ({em:.1e} N m off; tip moved {np.linalg.norm(x[-1] - [L, 0, 0]):.3f} m)")
sm = json.load(open(f"{d}/stat_mixed/summary.json"))
Rmx = sm["reactions"][0]
df = np.linalg.norm(np.array(Rmx["force"]) - Rf)
dm = np.linalg.norm(rot(sm["track"]["root"]["quaternion"]) @ np.array(Rmx["moment_body"]) - Rm)
check(df < 1e-9 * np.linalg.norm(loads_F) and dm < 1e-2 * size,
      f"statics: the mixed rod's clamp force within {df:.1e} N, its moment within {dm:.1e} N m")

# ---- dynamics: each step's momentum change h (loads + R) ----
def momentum_balance(name, col, ext, t_from=0.0):
    o = series(name)
    t, P = o["t"], np.stack([o[f"momentum_{c}"] for c in "xyz"], 1)
    Rf = np.stack([o[f"{col}_f{c}"] for c in "xyz"], 1)
    hs = np.diff(t)
    k = np.where(t[1:] > t_from + 1e-12)[0]
    err = np.max(np.linalg.norm(P[k + 1] - P[k] - hs[k, None] * (ext + Rf[k + 1]), axis=1))
    scale = np.max(hs) * max(np.linalg.norm(ext), np.max(np.linalg.norm(Rf[k + 1], axis=1)))
    return err, scale, len(k), np.max(np.linalg.norm(Rf[k + 1], axis=1))
err, scale, n, rmax = momentum_balance("dyn", "root", F + W * L)
check(err < 1e-6 * scale and n == 200, f"dynamics: over {n} steps the momentum changes by h (loads + the clamp's "
      f"force) to {err:.1e} N s (h |F| = {scale:.1e}; the clamp's force up to {rmax:.3f} N)")
err, scale, n, rmax = momentum_balance("kirch", "root", np.zeros(3), 0.05)
check(err < 1e-6 * scale and n >= 60, f"Kirchhoff cantilever (rigid shear and extension) after its load: over {n} "
      f"steps the momentum changes by h times the clamp's force to {err:.1e} N s (h |R| up to {scale:.1e})")

# ---- joints ----
Wy = 1000 * math.pi * 1e-4 * 0.9 * 9.81
ys, ym = json.load(open(f"{d}/y/summary.json")), json.load(open(f"{d}/y_mixed/summary.json"))
fy, fm = np.array(ys["reactions"][0]["force"]), np.array(ym["reactions"][0]["force"])
mdiff = np.linalg.norm(np.array(ys["reactions"][0]["moment_body"]) - np.array(ym["reactions"][0]["moment_body"]))
check(abs(fy[2] - Wy) < 1e-9 * Wy and np.linalg.norm(fy[:2]) < 1e-9 * Wy and mdiff < 1e-5 * Wy * 0.5
      and ys["reactions"][0]["rod"] == "a",
      f"Y welded at a clamped root: the clamp carries both rods' weight {fy[2]:.12f} N ({Wy:.12f}), its moment the "
      f"mixed rod's to {mdiff:.1e} N m")
m_dp = 7800 * math.pi * 0.02**2 * (0.2 + 0.5 + 0.5)
err, scale, n, rmax = momentum_balance("dp", "pivot", np.array([0, 0, -m_dp * 9.81]))
check(err < 1e-6 * scale and n == 300, f"double pendulum hinged at the clamped node: over {n} steps the momentum "
      f"changes by h (weight + the clamp's force) to {err:.1e} N s (the clamp's force up to {rmax:.1f} N)")

# ---- lgvi: the explicit step's balance p^k = p^(k-1) + h (F^k + R^k) ----
for name, what in (("lgvi", "fixed clamp"), ("lgvi_moving", "clamp moved 1 cm along a ramp")):
    err, scale, n, rmax = momentum_balance(name, "root", F + W * L)
    check(err < 1e-6 * scale and n == 500, f"lgvi, {what}: over {n} steps the momentum changes by h (loads + the "
          f"clamp's force) to {err:.1e} N s (h |F| = {scale:.1e}; the clamp's force up to {rmax:.3f} N)")
o = series("lgvi_settled")
lf = np.array([o[f"root_f{c}"][-1] for c in "xyz"])
lm = np.array([o[f"root_m{c}"][-1] for c in "xyz"])
mf, mm = np.array(Rmx["force"]), np.array(Rmx["moment_body"])  # (the clamp's node basis is I in both)
check(np.linalg.norm(lf - mf) < 1e-3 * np.linalg.norm(mf) and np.linalg.norm(lm - mm) < 1e-2 * size,
      f"lgvi (midpoint strains), settled under a drag: the clamp's force {lf} N, the mixed rod's static {mf} N "
      f"({np.linalg.norm(lf - mf):.1e}); its moment {lm} N m, the mixed rod's {mm} ({np.linalg.norm(lm - mm):.1e})")
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] || exit 1
