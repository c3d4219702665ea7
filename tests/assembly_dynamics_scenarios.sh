#!/bin/bash
# Dynamic stages of assemblies in scenario files through the CLI, against independent references:
#   double-pendulum.json  the angles of the two rods against the rigid double pendulum of two
#                         uniform bars (the nodes' lumped inertia), integrated here by RK4
#   energy                energy_total - work_external of series.csv stays constant: the free
#                         double pendulum (work 0), and driven by a time-varying tip force
#                         (the work of the loads accumulated by the stage)
#   a weld                a cantilever of two rods welded end to end swings as the one rod,
#                         from rest and after a static stage (released from its equilibrium)
#   --resume              a run interrupted (SIGINT) and resumed ends where the uninterrupted one does
#   a prismatic slider    falls freely along the joint's axis (x0 + g_x t^2/2)
#   a driven hinge        joints.K.drive turns an arm 5 times (10 pi, smooth step): its tip follows
#                         the drive angle and ends at 10 pi unwrapped (every turn kept)
# Usage: assembly_dynamics_scenarios.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3
dp="$src/examples/double-pendulum.json"

run() { # NAME SCENARIO [--set ...]
    local name=$1 file=$2
    shift 2
    if ! timeout -k 5 300 "$cli" run "$file" -q -o "$tmp/$name" --set output.vtk=false "$@" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 400 "$tmp/$name.log")"
    fi
}

run dp "$dp"
# driven: a vertical force at the tip, f(t) = 20 N sin(2 pi t), does work on the pendulum
run dp_driven "$dp" --set 'loads=[{"type": "gravity", "value": [0, 0, -9.81]}, {"type": "force", "node": "lower:end",
    "value": [0, 0, 20], "time": {"type": "sine", "frequency": 1}}]'

# ---- a cantilever swinging under gravity: one rod, and two halves welded ----
cat > "$tmp/one.json" <<'JSON'
{"rod": {"length": 1.0, "elements": 20, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}, {"type": "force", "node": "end", "value": [0, 0.02, 0]}],
 "output": {"track": [{"name": "tip", "node": "end"}, {"name": "mid", "node": 10}]},
 "stages": [{"type": "dynamic", "t_end": 0.6, "output_dt": 0.02, "rtol": 1e-8, "atol": 1e-10}]}
JSON
cat > "$tmp/two.json" <<'JSON'
{"rods": [
   {"name": "a", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}, {"type": "force", "node": "b:end", "value": [0, 0.02, 0]}],
 "output": {"track": [{"name": "tip", "node": "b:end"}, {"name": "mid", "node": "a:end"}]},
 "stages": [{"type": "dynamic", "t_end": 0.6, "output_dt": 0.02, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run one "$tmp/one.json"
run two "$tmp/two.json"
# a static stage, then a dynamic one from its equilibrium: the tip force held in the static stage
# only, released in the dynamic one (the cantilever swings from its bent shape); at rtol 1e-8
# the two runs' integration errors differ by 9e-9 m, at 1e-10 by 1e-11 m
sd=(--set 'stages=[{"type": "static", "load_steps": 4, "rtol": 1e-14, "atol": 1e-13}, {"type": "dynamic", "t_end": 0.3, "output_dt": 0.02,
    "rtol": 1e-10, "atol": 1e-12}]' --set 'loads.1.stages=[0]' --set 'loads.1.value=[0, 0.05, 0.2]')
run one_sd "$tmp/one.json" "${sd[@]}"
run two_sd "$tmp/two.json" "${sd[@]}"

# ---- --resume: the double pendulum with finer rods (long enough to be interrupted) ----
fine=(--set rods.0.elements=64 --set rods.1.elements=64 --set stages.0.t_end=2 --set output.vtk=false -q)
"$cli" run "$dp" -o "$tmp/full" "${fine[@]}" > "$tmp/full.log" 2>&1 || bad "resume: the uninterrupted run failed"
rows=100 code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 600 0.02 "$cli" run "$dp" -o "$tmp/cut" "${fine[@]}" > "$tmp/cut.log" 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4)) # it finished before the interrupt: interrupt earlier
done
cut_rows=0
if [ "$code" -ne 130 ]; then
    bad "resume: could not interrupt the run (exit $code)"
else
    cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
    "$cli" run "$dp" -o "$tmp/cut" "${fine[@]}" --resume > "$tmp/resume.log" 2>&1 ||
        bad "resume: the resumed run failed: $(head -c 400 "$tmp/resume.log")"
fi

# ---- a prismatic slider: a rod joined to the end of a stiff rail by a prismatic joint along the
# rail, gravity on the slider only, tilted along the axis: it falls freely along the axis ----
cat > "$tmp/slider.json" <<'JSON'
{"rods": [
   {"name": "rail", "length": 0.5, "elements": 6, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.1}]},
   {"name": "slider", "length": 0.5, "elements": 6, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.02}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "prismatic", "a": "rail:end", "b": "slider:start", "axis": [1, 0, 0]}],
 "boundary_conditions": [{"type": "clamp", "node": "rail:start"}],
 "loads": [{"type": "gravity", "rod": "slider", "value": [2, 0, -9.81]}],
 "output": {"track": [{"name": "tip", "node": "slider:end"}, {"name": "foot", "node": "slider:start"}]},
 "stages": [{"type": "dynamic", "t_end": 0.5, "output_dt": 0.05, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run slider "$tmp/slider.json"

# ---- a driven hinge: a steel arm (1 m, r = 2 cm) on a clamped stub, its hinge about z driven
# through theta(t) = 10 pi s(t/2) (the quintic smooth step) ----
cat > "$tmp/drive.json" <<'JSON'
{"rods": [
   {"name": "base", "length": 0.2, "elements": 2, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.04}]},
   {"name": "arm", "length": 1.0, "elements": 20, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.02}],
    "reference": {"origin": [0.2, 0, 0]}}],
 "joints": [{"type": "hinge", "name": "motor", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1],
             "drive": {"angle": 31.41592653589793, "time": {"type": "smooth_step", "t0": 0, "t1": 2}}}],
 "boundary_conditions": [{"type": "clamp", "node": "base:start"}],
 "output": {"track": [{"name": "tip", "node": "arm:end"}]},
 "stages": [{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run drive "$tmp/drive.json"
# statically: the drive turned with the load factor to 4.5 pi (2.25 turns: the arm along +y), under
# gravity along -x
run drive_static "$tmp/drive.json" --set 'joints.0.drive={"angle": 14.137166941154069}' \
    --set 'loads=[{"type": "gravity", "value": [-9.81, 0, 0]}]' --set 'stages=[{"type": "static", "load_steps": 20}]'

[ $fail = 0 ] || exit 1
$py - "$tmp" "$cut_rows" <<'PY' || fail=1
import csv, json, math, sys
import numpy as np
d, cut_rows = sys.argv[1], int(sys.argv[2])
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

def series(name):
    rows = list(csv.reader(open(f"{d}/{name}/series.csv")))
    return {k: np.array([float(r[i]) for r in rows[1:]]) for i, k in enumerate(rows[0])}

# -- the rigid double pendulum of two uniform bars (mass m, length L, inertia I about the
# centre), the first pinned at its top end, angles from the downward vertical; Lagrange:
#   [m L^2/4 + I + m L^2, m L^2/2 cos(t1-t2)] [t1'']   [-m L^2/2 sin(t1-t2) t2'^2 - 3/2 m g L sin t1]
#   [m L^2/2 cos(t1-t2),  m L^2/4 + I       ] [t2''] = [ m L^2/2 sin(t1-t2) t1'^2 - 1/2 m g L sin t2]
# The rods' inertia as the mixed rod lumps it: the nodes' masses (trapezoid, n elements) give
# m L^2/12 (1 + 2/n^2) about the centre, plus the sections' rotary inertia rho I L.
L, n, r, rho, g = 0.5, 8, 0.02, 7800.0, 9.81
m = rho * math.pi * r**2 * L
I = m * L**2 / 12 * (1 + 2.0 / n**2) + rho * math.pi * r**4 / 4 * L

def rhs(x):
    c, s, mL2 = math.cos(x[0] - x[1]), math.sin(x[0] - x[1]), m * L * L
    M11, M12, M22 = mL2 / 4 + I + mL2, mL2 / 2 * c, mL2 / 4 + I
    f1 = -mL2 / 2 * s * x[3] ** 2 - 1.5 * m * g * L * math.sin(x[0])
    f2 = mL2 / 2 * s * x[2] ** 2 - 0.5 * m * g * L * math.sin(x[1])
    det = M11 * M22 - M12 * M12
    return np.array([x[2], x[3], (M22 * f1 - M12 * f2) / det, (M11 * f2 - M12 * f1) / det])

def rk4(x, dt, h=2e-4):
    k = max(1, int(math.ceil(dt / h - 1e-9)))
    h = dt / k
    for _ in range(k):
        k1 = rhs(x); k2 = rhs(x + 0.5 * h * k1); k3 = rhs(x + 0.5 * h * k2); k4 = rhs(x + h * k3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x

s = series("dp")
th1 = np.arctan2(s["elbow_x"], -s["elbow_z"])
th2 = np.arctan2(s["tip_x"] - s["elbow_x"], -(s["tip_z"] - s["elbow_z"]))
x, t, worst, report = np.array([math.pi / 2, math.pi / 2, 0, 0]), 0.0, 0.0, []
for k in range(len(s["t"])):
    x = rk4(x, s["t"][k] - t)
    t = s["t"][k]
    e = max(abs(math.remainder(th1[k] - x[0], 2 * math.pi)), abs(math.remainder(th2[k] - x[1], 2 * math.pi)))
    worst = max(worst, e)
    if abs(t * 2 - round(t * 2)) < 1e-9:
        report.append(f"t = {t:.1f} s: {th1[k]:+.5f}, {th2[k]:+.5f} rad (rigid {x[0]:+.5f}, {x[1]:+.5f})")
print("       " + "\n       ".join(report))
check(len(s["t"]) == 301 and worst < 2e-3,
      f"double pendulum: the rods' angles follow the rigid double pendulum to {worst:.2e} rad over 3 s")

# -- energy: energy_total - work_external constant, against the potential energy exchanged (2 m g L)
scale = 2 * m * g * L
for name in ("dp", "dp_driven"):
    s = series(name)
    bal = s["energy_total"] - s["work_external"]
    drift = np.max(np.abs(bal - bal[0]))
    W = np.max(np.abs(s["work_external"]))
    check(drift < 1e-5 * scale and (name == "dp" or W > 0.1 * scale),
          f"{name}: energy_total - work_external constant to {drift:.2e} J ({drift / scale:.1e} of 2 m g L = "
          f"{scale:.3f} J); work of the loads up to {W:.3f} J")

# -- a weld = one rod: the tip and the weld's point row by row
a, b = series("one"), series("two")
amp = np.max(np.abs(a["tip_z"]))
diff = max(np.max(np.abs(a[k] - b[k])) for k in ("tip_x", "tip_y", "tip_z", "mid_x", "mid_y", "mid_z"))
check(len(a["t"]) == len(b["t"]) == 31 and amp > 0.1 and diff < 1e-8,
      f"weld: two welded rods swing as one rod: tip and mid differ by {diff:.2e} m over a motion of {amp:.3f} m")
a, b = series("one_sd"), series("two_sd")
amp = max(np.max(np.abs(a[k] - a[k][0])) for k in ("tip_x", "tip_y", "tip_z"))
diff = max(np.max(np.abs(a[k] - b[k])) for k in ("tip_x", "tip_y", "tip_z", "mid_x", "mid_y", "mid_z"))
check(len(a["t"]) == len(b["t"]) == 16 and a["t"][0] == 0 and amp > 0.02 and abs(a["tip_y"][0]) > 1e-3 and diff < 1e-8,
      f"weld after a static stage: released from the bent equilibrium (tip at y = {a['tip_y'][0]:.4f} m, "
      f"z = {a['tip_z'][0]:.4f} m), the two welded rods swing as the one rod: {diff:.2e} m over a motion of {amp:.3f} m")

# -- --resume: the same rows and final state, to the integrator's tolerance (this chaotic run at
# rtol 1e-9 moves the tip by ~1e-6 m), and the stage's statistics count the whole stage: the
# checkpoint's integrator memory lets the resumed run step as the uninterrupted one
full, cut = series("full"), series("cut")
sf, sc = json.load(open(f"{d}/full/summary.json")), json.load(open(f"{d}/cut/summary.json"))
same_t = len(full["t"]) == len(cut["t"]) and np.array_equal(full["t"], cut["t"])
dser = max(np.max(np.abs(full[f"{p}_{c}"] - cut[f"{p}_{c}"])) for p in ("elbow", "tip") for c in "xyz") if same_t else 1.0
dpos = max(abs(sf["track"][k]["position"][i] - sc["track"][k]["position"][i]) for k in ("elbow", "tip") for i in range(3))
steps = lambda s: s["stages"][0]["steps"]
check(0 < cut_rows < len(full["t"]) - 1 and same_t and dser < 1e-5 and dpos < 1e-5 and
      abs(steps(sc) - steps(sf)) <= steps(sf) / 20 + 3,
      f"--resume after an interrupt at row {cut_rows} of {len(full['t'])}: the points differ by {dser:.1e} m over all "
      f"rows, {dpos:.1e} m at the end; steps in all {steps(sc)} (uninterrupted {steps(sf)})")
# -- the prismatic slider: the joint's force is normal to the axis, so every point of the slider
# falls along x as x0 + g_x t^2/2 (g_x = 2); the reference holds up to the rail's end slope θ under
# the slider's weight W = 48 N (W L^2/2EI + W (L/2) L/EI ~ 8e-7 rad, twice that at the swings'
# peaks): an axial force ~ θ 2W on the 4.9 kg slider, ~4e-6 m over 0.5 s at most
s = series("slider")
ex = max(np.max(np.abs(s["tip_x"] - (1.0 + s["t"] ** 2))), np.max(np.abs(s["foot_x"] - (0.5 + s["t"] ** 2))))
ez = np.max(np.abs(s["foot_z"]))
check(len(s["t"]) == 11 and abs(s["t"][-1] - 0.5) < 1e-12 and ex < 1e-5 and ez < 1e-5,
      f"prismatic slider: slid {s['tip_x'][-1] - 1.0:.6f} m in 0.5 s (x0 + g_x t^2/2: 0.25 m), max |x - x0 - g_x t^2/2| "
      f"{ex:.1e} m; its foot drops with the rail's end by {ez:.1e} m")
# -- the driven hinge: the tip's angle about the hinge (0.2, 0), unwrapped from row to row, against
# theta(t) = 10 pi (10 u^3 - 15 u^4 + 6 u^5), u = t/2. The arm lags by its bending under its inertia
# load q = rho A x theta'' (a cantilever under a linear load: tip deflection 11 q(L) L^4/(120 EI)),
# plus the stub's end slope under the hinge moment M = rho A L^3/3 theta'' (M L_b/EI_b): the
# largest lag at theta''_max = 10 pi 10/sqrt(3)/T^2
s = series("drive")
u = s["t"] / 2
theta = 10 * np.pi * (10 * u**3 - 15 * u**4 + 6 * u**5)
phi = np.unwrap(np.arctan2(s["tip_y"], s["tip_x"] - 0.2))
lag = np.max(np.abs(phi - theta))
rhoA, EI, EIb = 7800 * np.pi * 0.02**2, 2e11 * np.pi * 0.02**4 / 4, 2e11 * np.pi * 0.04**4 / 4
acc = 10 * np.pi * 10 / np.sqrt(3) / 4
lag_ref = 11 * rhoA * acc / (120 * EI) + rhoA / 3 * acc * 0.2 / EIb
check(len(s["t"]) == 201 and abs(lag / lag_ref - 1) < 0.05 and abs(phi[-1] - 10 * np.pi) < 2e-4,
      f"driven hinge: the tip turned {phi[-1]:.6f} rad (10 pi = {10 * np.pi:.6f}), following the drive within {lag:.3e} rad "
      f"(its elastic lag at the largest acceleration: {lag_ref:.3e} rad)")
# the motor's work is in no column: its stage's energy balance is not judged (an energy_drift
# warning of 1419 J claimed the motor's work as numerical drift)
wd = [w for w in json.load(open(f"{d}/drive/summary.json")).get("warnings", []) if "energy_drift" in json.dumps(w)]
check(not wd, f"driven hinge: no energy_drift warning for the motor's work ({len(wd)})")
# statically the arm stands along +y (tip at (0.2, 1) but for its sag under gravity along -x) and
# the hinge holds the weight's moment: on the stub (node a) M_z = +W L/2 (W = rho A L g; the
# lumped weights' moment is exact for a uniform rod; the sag changes the y-lever to second order)
sm = json.load(open(f"{d}/drive_static/summary.json"))
tip = sm["track"]["tip"]["position"]
mz = sm["joints"][0]["moment"][2] if "joints" in sm else float("nan")
W = rhoA * 9.81
check(abs(tip[1] - 1) < 1e-4 and abs(tip[0] - 0.2) < 1e-2 and abs(mz / (W / 2) - 1) < 1e-4,
      f"driven hinge, statics: turned to 4.5 pi, tip at ({tip[0]:.5f}, {tip[1]:.6f}); hinge moment {mz:.4f} N m "
      f"(W L/2 = {W / 2:.4f} N m)")
sys.exit(0 if ok else 1)
PY
exit $fail
