#!/bin/bash
# Joint limits (stops) of assemblies (mixed_discrete) through the CLI, against independent
# references (the solver's own tests: tests/test_assembly.c, tests/test_assembly_dynamics.c):
#   an arm on its stop    a steel arm (1 m, r = 4 cm) on a hinge whose limit [0, 1.5] has its lower
#                         stop at the reference, under gravity: nothing else holds it, so the
#                         stop's moment (summary.json joints.0.limit.force, the reaction's moment)
#                         is m g L/2 and the angle stays 0; a dynamic stage after it starts on
#                         the static stop force (the preload): the arm stays at rest, the stop
#                         pressing at every sample with the same force
#   a slider on its stop  a prismatic joint's limit [-0.1, 0] under an axial load P: the stop's
#                         force is P (pressing "upper"), the slide 0
#   errors                bad limits are named by their key
# Usage: joint_limits.sh CLI SOURCE_DIR
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

cat > "$tmp/arm.json" <<'JSON'
{"rods": [
   {"name": "base", "length": 0.2, "elements": 2, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.04}]},
   {"name": "arm", "length": 1.0, "elements": 10, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.04}],
    "reference": {"origin": [0.2, 0, 0]}}],
 "joints": [{"type": "hinge", "name": "elbow", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1], "limit": [0, 1.5]}],
 "boundary_conditions": [{"type": "clamp", "node": "base:start"}],
 "loads": [{"type": "gravity", "value": [0, -9.81, 0]}],
 "output": {"track": [{"name": "tip", "node": "arm:end"}]},
 "stages": [{"type": "static", "load_steps": 2}, {"type": "dynamic", "t_end": 0.5, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]}
JSON
run arm "$tmp/arm.json"
# the slider: the arm on a prismatic joint along x, an axial force of 50 N at its end, no gravity
run slider "$tmp/arm.json" --set 'joints.0={"type": "prismatic", "a": "base:end", "b": "arm:start", "axis": [1, 0, 0], "limit": [-0.1, 0]}' \
    --set 'loads=[{"type": "force", "node": "arm:end", "value": [50, 0, 0]}]' --set 'stages=[{"type": "static"}]'

# ---- errors name the key ----
expect_error 1 "joints.0.limit: expected [lo, hi] with lo <= hi, got [1, 0]" check "$tmp/arm.json" --set 'joints.0.limit=[1, 0]'
expect_error 1 "joints.0.limit.1: expected a number" check "$tmp/arm.json" --set 'joints.0.limit=[0, "x"]'
expect_error 1 "joints.0.limit: expected an array of 2 numbers" check "$tmp/arm.json" --set 'joints.0.limit=1'
expect_error 1 "joints.0.limit: a ball joint has no free direction to limit" check "$tmp/arm.json" \
    --set 'joints.0={"type": "ball", "a": "base:end", "b": "arm:start", "limit": [0, 1]}'
expect_error 1 "joints.0.slide_limit: only a cylindrical joint has a slide_limit (a hinge joint's is \`limit\`)" check \
    "$tmp/arm.json" --set 'joints.0.slide_limit=[0, 1]'
expect_error 1 "joints.0.limit_stiffness: given without limit" check "$tmp/arm.json" \
    --set 'joints.0={"type": "hinge", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1], "limit_stiffness": 10}'
expect_error 1 "joints.0.limit_stiffness: must be > 0" check "$tmp/arm.json" --set joints.0.limit_stiffness=0
# the port_hamiltonian model takes stops too (tests/test_ph_joint_springs.c); on a driven hinge it refuses them
expect_error 1 "joints.0 ('elbow').limit: a spring, damper or stop on the driven direction is not available in model port_hamiltonian" \
    check "$tmp/arm.json" --set model.type=port_hamiltonian --set 'stages=[{"type": "static"}]' \
    --set 'joints.0.drive={"angle": 1, "time": {"type": "ramp", "t0": 0, "t1": 1}}'

[ $fail = 0 ] || exit 1
$py - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
d = sys.argv[1]
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

rho, r, L, g = 7800, 0.04, 1.0, 9.81
mga = rho * math.pi * r * r * L * g * L / 2
j = json.load(open(f"{d}/arm/summary.json"))["joints"][0]
lim = j["limit"]
check(abs(lim["force"] - mga) < 1e-6 * mga and lim["pressing"] == "lower",
      f"arm on its stop: stop moment {lim['force']:.9f} N m (m g L/2 = {mga:.9f}), pressing {lim['pressing']}")
check(abs(abs(j["moment"][2]) - mga) < 1e-6 * mga, f"the joint's reaction moment about z {j['moment'][2]:.9f} N m")
check(abs(lim["value"]) < 1e-10, f"the arm's angle {lim['value']:.3e} rad (limit 0)")
rows = list(csv.reader(open(f"{d}/arm/series.csv")))
col = {k: i for i, k in enumerate(rows[0])}
press = [float(x[col["joint_limits_pressing"]]) for x in rows[1:]]
force = [float(x[col["joint_limit_force"]]) for x in rows[1:]]
ty = [float(x[col["tip_y"]]) for x in rows[1:]]
check(min(press) == 1 and max(abs(f - mga) for f in force) < 1e-6 * mga,
      f"dynamic stage on the preloaded stop: pressing at all {len(press)} samples, force within "
      f"{max(abs(f - mga) for f in force):.2e} N m of m g L/2")
check(max(abs(y - ty[0]) for y in ty) < 1e-9, f"the arm stays at rest: tip moved {max(abs(y - ty[0]) for y in ty):.2e} m")
s = json.load(open(f"{d}/slider/summary.json"))["joints"][0]["limit"]
check(abs(s["force"] + 50) < 1e-9 and s["pressing"] == "upper" and abs(s["value"]) < 1e-10,
      f"slider on its stop: stop force {s['force']:.12f} N (load 50), slide {s['value']:.3e} m, pressing {s['pressing']}")
sys.exit(0 if ok else 1)
PY
exit $fail
