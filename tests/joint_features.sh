#!/bin/bash
# Springs, dampers, drives and stages of assembly joints (mixed_discrete) through the CLI,
# against independent references:
#   a hinge spring        an arm on a hinge with a torsional spring k, released from a static
#                         deflection: its period 2 pi sqrt(J/k), J the arm's moment of inertia
#                         about the hinge with the nodes' lumped masses (written here)
#   a hinge damper        a pendulum on a hinge damper c, released from a small deflection: its
#                         amplitude decays as exp(-c t / 2J) and its period is 2 pi / sqrt(K/J -
#                         (c/2J)^2), K = m g L/2 (the linear damped oscillator)
#   energy                kinetic + elastic (with the springs' 1/2 k phi^2) + gravity - work_external
#                         + energy_dissipated_joints - work_drives stays constant in all of them
#   a hinge motor         five turns: work_drives = the arm's kinetic energy 1/2 J theta'^2 at
#                         the fastest instant, and the balance with it closed
#   a prismatic drive     a slider lifted by drive.position = 0.3 m against gravity: it ends 0.3 m
#                         up, and work_drives = m g 0.3 (it ends at rest)
#   stages                a weld acting in stage 0 only: in the dynamic stage 1 the second rod,
#                         released, falls freely (every node at -g t^2/2, exactly)
#   errors                bad keys are named (the rest positions: tests/test_assembly.c)
# Usage: joint_features.sh CLI SOURCE_DIR
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
    if ! timeout -k 5 300 "$cli" run "$file" -q -o "$tmp/$name" --set output.vtk=false "$@" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 400 "$tmp/$name.log")"
    fi
}

# ---- a steel arm (1 m, r = 4 cm, 10 elements) on a hinge about z at the end of a clamped stub,
# with a torsional spring; a tip force in stage 0 (static) deflects it, stage 1 releases it ----
cat > "$tmp/spring.json" <<'JSON'
{"rods": [
   {"name": "base", "length": 0.2, "elements": 2, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.04}]},
   {"name": "arm", "length": 1.0, "elements": 10, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.04}],
    "reference": {"origin": [0.2, 0, 0]}}],
 "joints": [{"type": "hinge", "name": "spring", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1], "stiffness": 130}],
 "boundary_conditions": [{"type": "clamp", "node": "base:start"}],
 "loads": [{"type": "force", "node": "arm:end", "value": [0, 40, 0], "stages": [0]}],
 "output": {"track": [{"name": "tip", "node": "arm:end"}]},
 "stages": [{"type": "static", "load_steps": 4}, {"type": "dynamic", "t_end": 2.6, "output_dt": 0.005, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run spring "$tmp/spring.json"
# the same arm (r = 2 cm, 20 elements) hanging along +x under gravity along +x, on a hinge damper
run damper "$tmp/spring.json" --set 'joints.0={"type": "hinge", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1], "damping": 1.96}' \
    --set rods.1.elements=20 --set 'rods.1.sections=[{"shape": "circle", "radius": 0.02}]' \
    --set 'loads=[{"type": "force", "node": "arm:end", "value": [0, 2, 0], "stages": [0]}, {"type": "gravity", "value": [9.81, 0, 0]}]' \
    --set stages.1.t_end=5

# ---- a slider (0.5 m, r = 2 cm) on a prismatic joint at the end of a stiff rail, both along x,
# gravity along -x on the slider: the drive lifts it by 0.3 m (smooth step over 1 s) ----
cat > "$tmp/lift.json" <<'JSON'
{"rods": [
   {"name": "rail", "length": 0.5, "elements": 6, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.1}]},
   {"name": "slider", "length": 0.5, "elements": 6, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.02}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "prismatic", "name": "lift", "a": "rail:end", "b": "slider:start", "axis": [1, 0, 0],
             "drive": {"position": 0.3, "time": {"type": "smooth_step", "t0": 0, "t1": 1}}}],
 "boundary_conditions": [{"type": "clamp", "node": "rail:start"}],
 "loads": [{"type": "gravity", "rod": "slider", "value": [-9.81, 0, 0]}],
 "output": {"track": [{"name": "tip", "node": "slider:end"}, {"name": "foot", "node": "slider:start"}]},
 "stages": [{"type": "dynamic", "t_end": 1.2, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run lift "$tmp/lift.json"
# at the default tolerances the energy_drift judgement now forms the driven stage's balance
"$cli" run "$tmp/lift.json" -q -o "$tmp/lift_default" --set output.vtk=false --set stages.0.rtol=1e-6 \
    --set stages.0.atol=1e-8 > "$tmp/lift_default.log" 2>&1 || bad "lift_default: the run failed"

# a hinge motor turning the arm of spring.json (its spring off) five turns by a quintic step over
# 2 s: the motor's work, all of it kinetic at the middle of the motion, nothing at its end
run motor "$tmp/spring.json" --set 'joints.0={"type": "hinge", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1],
    "drive": {"angle": 31.41592653589793, "time": {"type": "smooth_step", "t0": 0, "t1": 2}}}' --set 'loads=[]' \
    --set 'stages=[{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]'

# ---- two rods welded end to end, the weld acting in stage 0 only; gravity in stage 1 ----
cat > "$tmp/release.json" <<'JSON'
{"rods": [
   {"name": "a", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "weld", "name": "latch", "a": "a:end", "b": "b:start", "stages": [0]}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81], "stages": [1]}],
 "output": {"track": [{"name": "foot", "node": "b:start"}, {"name": "tip", "node": "b:end"}, {"name": "latch", "node": "a:end"}]},
 "stages": [{"type": "static"}, {"type": "dynamic", "t_end": 0.3, "output_dt": 0.02, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run release "$tmp/release.json"
# kept in both stages (no "stages"): the weld holds b, which then hangs from a
run kept "$tmp/release.json" --set 'joints.0={"type": "weld", "a": "a:end", "b": "b:start"}'

# ---- errors name the key ----
expect_error 1 "joints.0.stiffness: must be >= 0" check "$tmp/spring.json" --set joints.0.stiffness=-1
expect_error 1 "joints.0.damping: a weld has no free direction" check "$tmp/release.json" --set joints.0.damping=1
expect_error 1 "joints.0.drive: only a hinge, prismatic or cylindrical joint has a drive" check "$tmp/release.json" \
    --set 'joints.0.drive={"angle": 1}'
expect_error 1 "joints.0.stages.0: no such stage" check "$tmp/release.json" --set 'joints.0.stages=[2]'
expect_error 1 "joints.0.stages: static stage 1 has nothing holding rods.1 ('b')" check "$tmp/release.json" \
    --set 'stages=[{"type": "static"}, {"type": "static"}]'
expect_error 1 "joints.0.rest: a spring's rest is reached through the load steps of a static stage" check \
    "$tmp/lift.json" --set joints.0.rest=0.1
expect_error 1 "joints.0.rest: a ball joint's spring rests at the reference" check "$tmp/spring.json" \
    --set 'joints.0={"type": "ball", "a": "base:end", "b": "arm:start", "stiffness": 1, "rest": 0.1}'
expect_error 1 "joints.0.slide_stiffness: only a cylindrical joint" check "$tmp/spring.json" --set joints.0.slide_stiffness=1
expect_error 1 "joints.0.drive.angle: a prismatic joint does not turn" check "$tmp/lift.json" \
    --set 'joints.0.drive={"angle": 1}'
expect_error 1 "joints.0.drive.position: a hinge does not slide" check "$tmp/spring.json" \
    --set 'joints.0.drive={"position": 1}'

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

def series(name):
    rows = list(csv.reader(open(f"{d}/{name}/series.csv")))
    return {k: np.array([float(r[i]) for r in rows[1:]]) for i, k in enumerate(rows[0])}

def inertia(L, n, r, rho):
    """A uniform rod's moment of inertia about its end, as the mixed rod lumps it: the nodes'
    trapezoid masses give rho A L^3 (1/3 + 1/(6 n^2)), plus the sections' rotary inertia rho I L."""
    A, I = math.pi * r * r, math.pi * r**4 / 4
    return rho * A * L**3 * (1 / 3 + 1 / (6 * n * n)) + rho * I * L

def balance(s):
    return s["energy_total"] - s["work_external"] + s["energy_dissipated_joints"] - s["work_drives"]

def crossings(t, y):
    return np.array([t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i]) for i in range(len(t) - 1) if y[i] * y[i + 1] < 0])

# -- the hinge spring: period 2 pi sqrt(J/k) (the arm is rigid to ~1e-4: its own bending and the
# stub's flexibility lengthen the period by 8e-5)
s = series("spring")
J, k = inertia(1.0, 10, 0.04, 7800), 130.0
z = crossings(s["t"], s["tip_y"])
T, Tref = 2 * np.mean(np.diff(z)), 2 * math.pi * math.sqrt(J / k)
check(len(z) == 3 and abs(T / Tref - 1) < 3e-4,
      f"hinge spring: period {T:.6f} s against 2 pi sqrt(J/k) = {Tref:.6f} s ({T / Tref - 1:+.1e}; amplitude "
      f"{np.max(np.abs(s['tip_y'])):.3f} m)")
b = balance(s)
E = s["energy_total"][0]
check(abs(s["energy_elastic"][0] - 0.5 * k * math.atan2(s["tip_y"][0], s["tip_x"][0] - 0.2) ** 2) < 1e-3 * E and
      np.max(np.abs(b - b[0])) < 3e-5 * E,
      f"hinge spring: the spring's energy 1/2 k phi^2 is the elastic energy ({s['energy_elastic'][0]:.6f} J at the "
      f"start); the balance is constant to {np.max(np.abs(b - b[0])):.2e} J of {E:.4f} J")

# -- the hinge damper: decay rate c/2J and damped period against the linear oscillator
s = series("damper")
J, c, g = inertia(1.0, 20, 0.02, 7800), 1.96, 9.81
K = g * 7800 * math.pi * 0.02**2 * 1.0**2 / 2  # g Σ m_i x_i = g rho A L^2 / 2 (trapezoid, exact)
t, y, h = s["t"], np.abs(s["tip_y"]), s["t"][1] - s["t"][0]
peaks = []
for i in range(1, len(t) - 1):
    if y[i] >= y[i - 1] and y[i] > y[i + 1]:  # parabola through three samples
        a0, a1, a2 = y[i - 1], y[i], y[i + 1]
        dx = 0.5 * (a0 - a2) / (a0 - 2 * a1 + a2)
        peaks.append((t[i] + dx * h, a1 - 0.25 * (a0 - a2) * dx))
peaks = np.array(peaks)
sigma = -np.polyfit(peaks[:, 0], np.log(peaks[:, 1]), 1)[0]
Td, Tdref = 2 * np.mean(np.diff(peaks[:, 0])), 2 * math.pi / math.sqrt(K / J - (c / (2 * J)) ** 2)
check(len(peaks) >= 5 and abs(sigma / (c / (2 * J)) - 1) < 1e-3 and abs(Td / Tdref - 1) < 1e-3,
      f"hinge damper: decay rate {sigma:.6f} 1/s against c/2J = {c / (2 * J):.6f} ({sigma / (c / (2 * J)) - 1:+.1e}), "
      f"period {Td:.6f} s against {Tdref:.6f} s ({Td / Tdref - 1:+.1e}) over {len(peaks)} peaks")
b, D = balance(s), s["energy_dissipated_joints"]
check(D[-1] > 0.9 * (s["energy_total"][0] - s["energy_total"][-1]) and np.max(np.abs(b - b[0])) < 1e-4 * D[-1],
      f"hinge damper: energy_dissipated_joints {D[-1]:.6f} J = the energy lost "
      f"({s['energy_total'][0] - s['energy_total'][-1]:.6f} J) to {np.max(np.abs(b - b[0])):.1e} J")

# -- the prismatic drive: 0.3 m up, the drive's work m g 0.3, the balance closed
s = series("lift")
m = 7800 * math.pi * 0.02**2 * 0.5
W, b = m * 9.81 * 0.3, balance(s)
check(abs(s["foot_x"][-1] - 0.8) < 1e-7 and abs(s["tip_x"][-1] - 1.3) < 1e-6,
      f"prismatic drive: the slider's foot moved {s['foot_x'][-1] - 0.5:.9f} m, its tip {s['tip_x'][-1] - 1.0:.9f} m (0.3)")
check(abs(s["work_drives"][-1] - W) < 1e-6 * W and np.max(np.abs(b - b[0])) < 1e-5 * W and abs(b[-1] - b[0]) < 1e-7 * W,
      f"prismatic drive: work_drives {s['work_drives'][-1]:.9f} J against m g 0.3 = {W:.9f} J; the balance with it "
      f"constant to {np.max(np.abs(b - b[0])):.1e} J ({abs(b[-1] - b[0]):.1e} J at the end)")
summ = json.load(open(f"{d}/lift_default/summary.json"))
codes = [w.get("code") for w in summ.get("warnings", [])]
check("energy_drift" not in codes, f"prismatic drive at rtol 1e-6: no energy_drift warning (warnings: {codes})")

# -- the hinge motor: work_drives = the kinetic energy of the turning arm, 1/2 J theta'^2 with
# theta'(1 s) = 10 pi * 15/8 / (2 s) (the quintic step's largest rate; the stiff arm's vibrations
# change its kinetic energy by ~1e-3), and the balance closed
s = series("motor")
J, b = inertia(1.0, 10, 0.04, 7800), balance(s)
i = int(np.argmin(np.abs(s["t"] - 1.0)))
Tref = 0.5 * J * (10 * math.pi * 15 / 8 / 2) ** 2
check(abs(s["work_drives"][i] / Tref - 1) < 3e-3 and abs(s["energy_kinetic"][i] / Tref - 1) < 3e-3 and
      np.max(np.abs(b - b[0])) < 1e-6 * Tref,
      f"hinge motor: work_drives {s['work_drives'][i]:.4f} J, kinetic {s['energy_kinetic'][i]:.4f} J at t = 1 s "
      f"(1/2 J theta'^2 = {Tref:.4f} J); balance constant to {np.max(np.abs(b - b[0])):.1e} J")

# -- stages: the released rod falls freely; kept, it hangs
s, k = series("release"), series("kept")
t = s["t"]
free = max(np.max(np.abs(s[p + "_z"] + 9.81 * t * t / 2)) for p in ("foot", "tip"))
check(len(t) == 16 and free < 1e-9 and abs(s["foot_z"][-1] - s["latch_z"][-1]) > 0.05 and abs(k["foot_z"][-1] - k["latch_z"][-1]) < 1e-9,
      f"weld released in stage 1: the free rod's ends at -g t^2/2 to {free:.1e} m (apart from the clamped rod's "
      f"end by {abs(s['foot_z'][-1] - s['latch_z'][-1]):.3f} m at t = 0.3 s; kept: {abs(k['foot_z'][-1] - k['latch_z'][-1]):.1e} m)")
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] || exit 1
echo "all joint feature checks passed"
