#!/bin/bash
# Assemblies of the port-Hamiltonian rod through the CLI, against independent references:
#   a weld         a cantilever of two rods welded end to end, statics: every node where the one
#                  rod's is (the same discrete equations: to round-off, 1e-12 m); the outputs of
#                  an assembly (nodes.csv's rod column, one polyline per rod in the .vtp)
#   double pendulum  examples/ph-double-pendulum.json (4 elements per bar, 1 s): a stub clamped at
#                  the pivot, two steel bars (0.5 m, r = 2 cm) on hinges about
#                  y, released horizontal under gravity for 1 s: (1) the discrete energy balance:
#                  energy_total - work_external constant and every step's balance at the Newton
#                  tolerance; (2) the tip against the rigid double pendulum of two uniform bars
#                  (exact inertia, as the quadratic elements integrate it), SciPy DOP853 at 1e-12:
#                  within 3e-4 m (measured 1.0e-4 m: the step's O(h^2) error, 3.6e-5 m from h to
#                  h/2, and the bars' and stub's elastic deflection); (3) against the mixed rod on
#                  the same scenario: the mixed rod lumps the bars' mass at its nodes (inertia
#                  m L^2/12 (1 + 2/n^2), an error of 1/(2 n^2): 0.8 % at n = 8), so the two differ
#                  by what that error does to the swing, which falls as 1/n^2: measured 1.9e-2 m at
#                  n = 8 and 1.2e-3 m at n = 32; checked: below 3e-3 m at n = 32 and a ratio of
#                  10..25 between n = 8 and n = 32 (16 for 1/n^2)
#   --resume       a run interrupted and resumed ends where the uninterrupted one does
#   a clamp on a joint's node  (1) the double pendulum with the stub clamped at the pivot (post:end, the
#                  hinge's node): the tip against the same rigid double pendulum within 3e-4 m, the energy
#                  balance as above; (2) statics, a Y: rod a clamped at its start and rod b welded there
#                  at right angles, under gravity: the weld carries b's weight rho A L_b g (exact: b is
#                  held by the weld alone; checked 1e-9 relative) and b's tip is the mixed rod's (its
#                  weight's deflection is resolved by both at 8 elements: measured 1.3e-9 and 8.8e-10 m
#                  at n = 8 and 32, checked 1e-8 m of a 6.3 mm deflection);
#                  (3) a weld between two clamped nodes is refused at check, naming the joint
#   prismatic, cylindrical, universal  (1) statics: two rods clamped at their far ends, joined in the
#                  middle, loaded at the joint by a force and a moment with every component: the
#                  joint node against the mixed rod's on the same scenario, which converges to it
#                  like 1/n^2 (measured 1.7e-5, 1.1e-6 m at n = 8, 32 for the prismatic and
#                  cylindrical joints, 1.1e-5, 7.0e-7 m for the universal one; checked: below
#                  2e-6 m at n = 32 and a ratio of 10..25); (2) dynamics: the double pendulum with
#                  the elbow a universal joint (axis y, axis_b z) under a skew gravity (0, 3, -9.81),
#                  swinging out of its plane: every step's energy balance at the Newton tolerance,
#                  the joint held to round-off, the tip against the mixed rod's like 1/n^2 (6.0e-3,
#                  3.6e-4 m at n = 8, 32); in the plane (gravity along z) a universal and a
#                  cylindrical elbow about y move as the hinge (the same tip to the series' digits)
#   driven hinge   a motor turns a steel arm 5 times through a smooth step in 2 s (the mixed rod's
#                  scenario in tests/assembly_dynamics_scenarios.sh): energy_total - work_external -
#                  work_drives constant and every step's balance at the Newton tolerance; the
#                  motor's work at t = 1 s (the top speed) the arm's kinetic energy I w^2 / 2 about
#                  the hinge (I = rho A L^3 / 3 + rho I_s L) within 1e-3 (measured 4.2e-4 below, the
#                  same at h / 2: the elastic arm's lag, whose speed peaks after the motor's); the
#                  tip within 1e-4 m of the mixed rod's
#                  (measured 3.4e-5 m, both 1.7e-3 m from the rigid turn); statically turned 2.25
#                  times under gravity: the tip where the mixed rod's is (1e-8 m); interrupted and
#                  resumed, the same last row (the motor's angle and work are checkpointed)
#   slider drive   two soft rods (0.5 m each, EA = pi 1e3 N) on a prismatic joint along x, its
#                  drive pushing b's node away from a's by x = 1e-4 m: (1) statics, both rods clamped
#                  at their far ends: the joint force EA x / (L_a + L_b) (the rods in series, both
#                  compressed; measured 4e-12 relative, checked 1e-9) at each load factor (x f),
#                  the slide x f to 1e-12 m, the force and nodes as the mixed rod's (1e-9); (2)
#                  dynamics, b free, the drive along y (across the rods) through x(t) = 0.05 s(t /
#                  0.5) m (quintic smooth step), 1 s at h = 1e-3: every output's slide t_a .
#                  (phi_b - phi_a) (t_a the axis turned with a's node) x(t) to the series' digits
#                  (measured 1e-11 m, checked 1e-9), energy_total - work_external - work_drives
#                  constant (measured to the series' 10 digits; checked 1e-12 J of 5e-4 J moved),
#                  every step's balance (energy_balance) below 1e-12 J; (3) the tip against the
#                  mixed rod's (rtol 1e-8): the mixed rod lumps the mass (as the double pendulum
#                  above), measured 2.1e-4 m at n = 8 and 1.35e-5 m at n = 32 (ratio 15.7: 1/n^2),
#                  checked below 3e-5 m at n = 32 and a ratio 10..25; the step's own error is
#                  smaller (8.4e-7 m from h to h/2 at n = 8); (4) interrupted and resumed, the
#                  same last row (the slide, the drive input's ramp and work_drives checkpointed)
# Usage: ph_assembly_scenarios.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

# ---- a weld: one rod and two halves (statics) ----
cat > "$tmp/one.json" <<'JSON'
{"model": "port_hamiltonian",
 "rod": {"length": 1.0, "elements": 8, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "loads": [{"type": "force", "node": "end", "value": [0, 0.3, -0.5]}, {"type": "moment", "node": "end", "value": [0.02, 0, 0]}],
 "stages": [{"type": "static", "load_steps": 4}]}
JSON
cat > "$tmp/two.json" <<'JSON'
{"model": "port_hamiltonian",
 "rods": [
   {"name": "a", "length": 0.5, "elements": 4, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 4, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "force", "node": "b:end", "value": [0, 0.3, -0.5]}, {"type": "moment", "node": "b:end", "value": [0.02, 0, 0]}],
 "stages": [{"type": "static", "load_steps": 4}]}
JSON
run_scenario one "$tmp/one.json"
run_scenario two "$tmp/two.json"

# ---- the double pendulum ----
# examples/ph-double-pendulum.json with 4 elements per bar, for 1 s
cp "$src/examples/ph-double-pendulum.json" "$tmp/ex.json"
"$cli" run "$tmp/ex.json" -q -o "$tmp/exrun" --set output.vtk=false --set stages.0.t_end=0.01 > /dev/null 2>&1 ||
    bad "examples/ph-double-pendulum.json does not run"
$py - "$tmp/ex.json" "$tmp/dp.json" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc["rods"][1]["elements"] = sc["rods"][2]["elements"] = 4
sc["stages"][0]["t_end"] = 1.0
sc["output"]["vtk"] = False
json.dump(sc, open(sys.argv[2], "w"))
PY
run_scenario dp "$tmp/dp.json"
# the stub clamped at the pivot instead: the hinge's node is the clamped one
run_scenario dpc "$tmp/dp.json" --set 'boundary_conditions=[{"type": "clamp", "node": "post:end"}]'
# a Y of two rods welded at a clamped node, under gravity (statics)
cat > "$tmp/y.json" <<'JSON'
{"model": "port_hamiltonian",
 "rods": [
   {"name": "a", "length": 0.5, "elements": 8, "material": {"E": 2e8, "G": 8e7, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.4, "elements": 8, "material": {"E": 2e8, "G": 8e7, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"frame": {"e_x": [0, 1, 0], "e_y": [-1, 0, 0]}}}],
 "joints": [{"type": "weld", "name": "root", "a": "a:start", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "output": {"vtk": false, "track": [{"name": "tb", "node": "b:end"}]},
 "stages": [{"type": "static", "load_steps": 4}]}
JSON
run_scenario y "$tmp/y.json"
for n in 8 32; do
    run_scenario "y_m$n" "$tmp/y.json" --set model=mixed_discrete --set rods.0.elements=$n --set rods.1.elements=$n
done
if "$cli" check "$tmp/y.json" --set 'boundary_conditions=[{"type": "clamp", "node": "a:start"}, {"type": "clamp", "node": "b:start"}]' \
    > "$tmp/yy.log" 2>&1; then
    bad "a weld between two clamped nodes: check accepted it"
elif grep -q "joints.0 ('root'): joins two clamped nodes" "$tmp/yy.log"; then
    ok "a weld between two clamped nodes: refused at check, naming the joint"
else
    bad "a weld between two clamped nodes: refused with another message: $(head -c 300 "$tmp/yy.log")"
fi
mixed=(--set model=mixed_discrete --set 'stages=[{"type": "dynamic", "t_end": 1.0, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]')
run_scenario mixed8 "$tmp/dp.json" "${mixed[@]}" --set rods.1.elements=8 --set rods.2.elements=8
run_scenario mixed32 "$tmp/dp.json" "${mixed[@]}" --set rods.1.elements=32 --set rods.2.elements=32

# ---- --resume: interrupted (SIGINT) and resumed, the double pendulum ends where the uninterrupted run
# does, digit for digit (the checkpoint holds every rod and the joints' multipliers) ----
long=(--set stages.0.t_end=2 --set stages.0.checkpoint_interval=0.05 --set rods.1.elements=8 --set rods.2.elements=8 -q)
"$cli" run "$tmp/dp.json" -o "$tmp/full" "${long[@]}" > "$tmp/full.log" 2>&1 || bad "resume: the uninterrupted run failed"
rows=60 code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 600 0.02 "$cli" run "$tmp/dp.json" -o "$tmp/cut" "${long[@]}" > "$tmp/cut.log" 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4)) # it finished before the interrupt: interrupt earlier
done
if [ "$code" -ne 130 ]; then
    bad "resume: could not interrupt the run (exit $code)"
else
    cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
    "$cli" run "$tmp/dp.json" -o "$tmp/cut" "${long[@]}" --resume > "$tmp/resume.log" 2>&1 ||
        bad "resume: the resumed run failed: $(head -c 400 "$tmp/resume.log")"
    if cmp -s <(tail -1 "$tmp/full/series.csv") <(tail -1 "$tmp/cut/series.csv"); then
        ok "resume: interrupted after $cut_rows rows and resumed, the last row equals the uninterrupted run's"
    else
        bad "resume: the resumed run ends elsewhere: $(tail -1 "$tmp/cut/series.csv" | head -c 200) vs $(tail -1 "$tmp/full/series.csv" | head -c 200)"
    fi
fi


# ---- a driven hinge (tests/assembly_dynamics_scenarios.sh's): a steel arm (1 m, r = 2 cm) on a
# clamped stub, its hinge about z driven through theta(t) = 10 pi s(t/2) (the quintic smooth step) ----
cat > "$tmp/drive.json" <<'JSON'
{"model": "port_hamiltonian",
 "rods": [
   {"name": "base", "length": 0.2, "elements": 2, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.04}]},
   {"name": "arm", "length": 1.0, "elements": 20, "material": {"E": 2e11, "G": 8e10, "rho": 7800}, "sections": [{"shape": "circle", "radius": 0.02}],
    "reference": {"origin": [0.2, 0, 0]}}],
 "joints": [{"type": "hinge", "name": "motor", "a": "base:end", "b": "arm:start", "axis": [0, 0, 1],
             "drive": {"angle": 31.41592653589793, "time": {"type": "smooth_step", "t0": 0, "t1": 2}}}],
 "boundary_conditions": [{"type": "clamp", "node": "base:start"}],
 "output": {"vtk": false, "track": [{"name": "tip", "node": "arm:end"}]},
 "stages": [{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "time_step": 0.001}]}
JSON
run_scenario drive "$tmp/drive.json"
run_scenario drive_mixed "$tmp/drive.json" --set model=mixed_discrete \
    --set 'stages=[{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]'
# statically: turned with the load factor to 4.5 pi (the arm along +y) under gravity along -x
drive_static=(--set 'joints.0.drive={"angle": 14.137166941154069}' --set 'loads=[{"type": "gravity", "value": [-9.81, 0, 0]}]'
    --set 'stages=[{"type": "static", "load_steps": 20}]')
# --resume with a motor (its angle and work are checkpointed): the same last row
dres=(--set 'stages=[{"type": "dynamic", "t_end": 0.3, "output_dt": 0.01, "time_step": 0.001, "checkpoint_interval": 0.02}]' -q)
"$cli" run "$tmp/drive.json" -o "$tmp/dfull" "${dres[@]}" > /dev/null 2>&1 || bad "drive resume: the uninterrupted run failed"
interrupt_run "$tmp/dcut" 8 600 0.02 "$cli" run "$tmp/drive.json" -o "$tmp/dcut" "${dres[@]}" > /dev/null 2>&1
code=$?
if [ "$code" -ne 130 ]; then
    bad "drive resume: could not interrupt the run (exit $code)"
elif "$cli" run "$tmp/drive.json" -o "$tmp/dcut" "${dres[@]}" --resume > /dev/null 2>&1 &&
    cmp -s <(tail -1 "$tmp/dfull/series.csv") <(tail -1 "$tmp/dcut/series.csv"); then
    ok "drive resume: interrupted and resumed, the driven arm's last row (work_drives included) equals the uninterrupted run's"
else
    bad "drive resume: the resumed run ends elsewhere"
fi
run_scenario drive_static "$tmp/drive.json" "${drive_static[@]}"
run_scenario drive_static_mixed "$tmp/drive.json" "${drive_static[@]}" --set model=mixed_discrete

# ---- prismatic, cylindrical and universal joints: statics against the mixed rod ----
cat > "$tmp/joint.json" <<'JSON'
{"model": "port_hamiltonian",
 "rods": [
   {"name": "a", "length": 0.5, "elements": 8, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 8, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "prismatic", "name": "j", "a": "a:end", "b": "b:start", "axis": [1, 0, 0]}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}, {"type": "clamp", "node": "b:end"}],
 "loads": [{"type": "force", "node": "a:end", "value": [0.5, 0.02, -0.01]}, {"type": "moment", "node": "a:end", "value": [0.002, 0.001, -0.0015]}],
 "stages": [{"type": "static", "load_steps": 2}],
 "output": {"vtk": false}}
JSON
for t in prismatic cylindrical universal; do
    set_t=(--set joints.0.type=$t)
    [ $t = universal ] && set_t+=(--set 'joints.0.axis=[0, 1, 0]' --set 'joints.0.axis_b=[0, 0, 1]')
    run_scenario "j_$t" "$tmp/joint.json" "${set_t[@]}"
    for n in 8 32; do
        run_scenario "j_${t}_m$n" "$tmp/joint.json" "${set_t[@]}" --set model=mixed_discrete --set rods.0.elements=$n \
            --set rods.1.elements=$n
    done
done
# ---- a universal elbow: dynamics out of the plane, and in it as the hinge ----
skew=(--set joints.1.type=universal --set 'joints.1.axis_b=[0, 0, 1]' --set 'loads.0.value=[0, 3, -9.81]'
    --set stages.0.t_end=0.5)
run_scenario du "$tmp/dp.json" "${skew[@]}"
for n in 8 32; do
    run_scenario "du_m$n" "$tmp/dp.json" "${skew[@]}" --set model=mixed_discrete --set rods.1.elements=$n \
        --set rods.2.elements=$n --set 'stages=[{"type": "dynamic", "t_end": 0.5, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]'
done
run_scenario dplane_u "$tmp/dp.json" --set joints.1.type=universal --set 'joints.1.axis_b=[0, 0, 1]' --set stages.0.t_end=0.5
run_scenario dplane_c "$tmp/dp.json" --set joints.1.type=cylindrical --set stages.0.t_end=0.5

# ---- a slider drive: statics (clamped both ends) and dynamics (b free), and the mixed rod's ----
cat > "$tmp/slide.json" <<'JSON'
{"model": "port_hamiltonian",
 "rods": [
   {"name": "a", "length": 0.5, "elements": 8, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 8, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "prismatic", "name": "j", "a": "a:end", "b": "b:start", "axis": [1, 0, 0], "drive": {"position": 1e-4}}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}, {"type": "clamp", "node": "b:end"}],
 "output": {"vtk": false, "track": [{"name": "ja", "node": "a:end"}, {"name": "jb", "node": "b:start"}, {"name": "tip", "node": "b:end"}]},
 "stages": [{"type": "static", "load_steps": 2}]}
JSON
run_scenario slide_static "$tmp/slide.json"
run_scenario slide_static_mixed "$tmp/slide.json" --set model=mixed_discrete
sdyn=(--set 'boundary_conditions=[{"type": "clamp", "node": "a:start"}]' --set 'joints.0.axis=[0, 1, 0]'
    --set 'joints.0.drive={"position": 0.05, "time": {"type": "smooth_step", "t0": 0, "t1": 0.5}}'
    --set 'stages=[{"type": "dynamic", "t_end": 1, "output_dt": 0.01, "time_step": 0.001}]')
smix=(--set model=mixed_discrete --set 'stages=[{"type": "dynamic", "t_end": 1, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]')
n32=(--set rods.0.elements=32 --set rods.1.elements=32)
run_scenario slide_dyn "$tmp/slide.json" "${sdyn[@]}"
run_scenario slide_dyn_mixed "$tmp/slide.json" "${sdyn[@]}" "${smix[@]}"
run_scenario slide_dyn32 "$tmp/slide.json" "${sdyn[@]}" "${n32[@]}"
run_scenario slide_dyn32_mixed "$tmp/slide.json" "${sdyn[@]}" "${smix[@]}" "${n32[@]}"
# --resume with a slider drive (its position, input ramp and work checkpointed): the same last row
sres=("${sdyn[@]}" --set 'stages=[{"type": "dynamic", "t_end": 0.3, "output_dt": 0.01, "time_step": 0.001, "checkpoint_interval": 0.02}]' -q)
"$cli" run "$tmp/slide.json" -o "$tmp/sfull" "${sres[@]}" > /dev/null 2>&1 || bad "slide resume: the uninterrupted run failed"
interrupt_run "$tmp/scut" 8 600 0.02 "$cli" run "$tmp/slide.json" -o "$tmp/scut" "${sres[@]}" > /dev/null 2>&1
code=$?
if [ "$code" -ne 130 ]; then
    bad "slide resume: could not interrupt the run (exit $code)"
elif "$cli" run "$tmp/slide.json" -o "$tmp/scut" "${sres[@]}" --resume > /dev/null 2>&1 &&
    cmp -s <(tail -1 "$tmp/sfull/series.csv") <(tail -1 "$tmp/scut/series.csv"); then
    ok "slide resume: interrupted and resumed, the slider's last row (work_drives included) equals the uninterrupted run's"
else
    bad "slide resume: the resumed run ends elsewhere"
fi

[ $fail = 0 ] || exit 1
$py - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
import numpy as np
from scipy.integrate import solve_ivp
d = sys.argv[1]
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

def series(name):
    rows = list(csv.reader(open(f"{d}/{name}/series.csv")))
    return {k: np.array([float(r[i]) for r in rows[1:]]) for i, k in enumerate(rows[0])}

# -- the weld: the two rods' nodes at the one rod's (same s along the whole length)
def nodes(name):
    rows = list(csv.reader(open(f"{d}/{name}/nodes.csv")))
    return rows[0], rows[1:]
h1, one = nodes("one")
h2, two = nodes("two")
check(h2[0] == "rod" and {r[0] for r in two} == {"a", "b"}, "weld: nodes.csv has the rod column, rods a and b")
pos1 = {round(float(r[h1.index("s")]), 12): [float(r[h1.index(c)]) for c in "xyz"] for r in one}
worst = 0.0
for r in two:
    s = float(r[1]) + (0.5 if r[0] == "b" else 0.0)
    worst = max(worst, max(abs(a - b) for a, b in zip([float(v) for v in r[2:5]], pos1[round(s, 12)])))
tip = pos1[1.0]
check(worst < 1e-12 and math.hypot(tip[1], tip[2]) > 0.5,
      f"weld: two welded rods' nodes where the one rod's are: max difference {worst:.2e} m (tip deflected "
      f"{math.hypot(tip[1], tip[2]):.3f} m)")
import glob
last = sorted(glob.glob(f"{d}/two/rod_*.vtp"))[-1]
vtp = open(last, "rb").read()
check(b'NumberOfLines="2"' in vtp and b'Name="rod"' in vtp, f"weld: {last.split('/')[-1]} has one polyline per rod and the rod cell array")

# -- the double pendulum
s = series("dp")
E = s["energy_total"] - s["work_external"]
scale = np.max(s["energy_kinetic"])
check(np.max(np.abs(E)) < 1e-8 * scale and np.max(np.abs(s["energy_balance"])) < 1e-9 * scale,
      f"double pendulum: energy_total - work_external within {np.max(np.abs(E)):.2e} J of 0 (series printed to 10 "
      f"digits), the steps' balances within {np.max(np.abs(s['energy_balance'])):.2e} J (kinetic energy up to "
      f"{scale:.3f} J)")
check(np.max(s["joint_violation"]) < 1e-12, f"double pendulum: hinges held to {np.max(s['joint_violation']):.2e}")

L, r, rho, g = 0.5, 0.02, 7800.0, 9.81
m = rho * math.pi * r**2 * L
I = m * L**2 / 12 + rho * math.pi * r**4 / 4 * L  # about the centre: the bar and its sections' rotary inertia

def rhs(t, x):  # angles from the downward vertical (Lagrange, two uniform bars, the first pinned at its end)
    c, sn, mL2 = math.cos(x[0] - x[1]), math.sin(x[0] - x[1]), m * L * L
    M11, M12, M22 = mL2 / 4 + I + mL2, mL2 / 2 * c, mL2 / 4 + I
    f1 = -mL2 / 2 * sn * x[3] ** 2 - 1.5 * m * g * L * math.sin(x[0])
    f2 = mL2 / 2 * sn * x[2] ** 2 - 0.5 * m * g * L * math.sin(x[1])
    det = M11 * M22 - M12 * M12
    return [x[2], x[3], (M22 * f1 - M12 * f2) / det, (M11 * f2 - M12 * f1) / det]

sol = solve_ivp(rhs, (0, s["t"][-1]), [math.pi / 2, math.pi / 2, 0, 0], t_eval=s["t"], rtol=1e-12, atol=1e-12,
                method="DOP853")
tx = L * np.sin(sol.y[0]) + L * np.sin(sol.y[1])
tz = -L * np.cos(sol.y[0]) - L * np.cos(sol.y[1])
dev = np.max(np.hypot(tx - s["tip_x"], tz - s["tip_z"]))
check(len(s["t"]) == 101 and dev < 3e-4,
      f"double pendulum: the tip within {dev:.2e} m of the rigid double pendulum's over 1 s (it ends at "
      f"({s['tip_x'][-1]:+.4f}, {s['tip_z'][-1]:+.4f}) m)")

c = series("dpc")
Ec = c["energy_total"] - c["work_external"]
devc = np.max(np.hypot(tx - c["tip_x"], tz - c["tip_z"]))
check(len(c["t"]) == 101 and devc < 3e-4 and np.max(np.abs(Ec)) < 1e-8 * scale and np.max(c["joint_violation"]) < 1e-12,
      f"double pendulum, the stub clamped at the pivot (the hinge's node): the tip within {devc:.2e} m of the rigid "
      f"double pendulum's, energy_total - work_external within {np.max(np.abs(Ec)):.2e} J, hinges held to "
      f"{np.max(c['joint_violation']):.2e}")

def tipdiff(name):
    o = series(name)
    return np.max(np.hypot(o["tip_x"] - s["tip_x"], o["tip_z"] - s["tip_z"]))
d8, d32 = tipdiff("mixed8"), tipdiff("mixed32")
check(d32 < 3e-3 and 10 < d8 / d32 < 25,
      f"double pendulum: the mixed rod's tip within {d8:.2e} m (n = 8) and {d32:.2e} m (n = 32) of this one's: "
      f"ratio {d8 / d32:.1f} (its lumped inertia's error falls as 1/n^2: 16)")

# -- the Y welded at a clamped node: the weld carries b's weight; b's tip against the mixed rod's
y = json.load(open(f"{d}/y/summary.json"))
Wb = 1000 * math.pi * 0.01**2 * 0.4 * 9.81
F = y["joints"][0]["force"]
check(abs(F[2] + Wb) < 1e-9 * Wb and abs(F[0]) + abs(F[1]) < 1e-12 * Wb,
      f"Y welded at a clamped node: the weld's force ({F[0]:.1e}, {F[1]:.1e}, {F[2]:.12f}) N on a, b's weight "
      f"{Wb:.12f} N")
def ytip(name):
    return np.array(json.load(open(f"{d}/{name}/summary.json"))["track"]["tb"]["position"])
e8, e32 = (np.max(np.abs(ytip(f"y_m{n}") - ytip("y"))) for n in (8, 32))
check(max(e8, e32) < 1e-8 and ytip("y")[2] < -5e-3,
      f"Y welded at a clamped node: b's tip at z = {ytip('y')[2]:.6f} m; the mixed rod's within {e8:.2e} m (n = 8) "
      f"and {e32:.2e} m (n = 32)")

# -- prismatic, cylindrical, universal: statics against the mixed rod
def joint_node(name):  # rod a's last node
    h, rows = nodes(name)
    r = [r for r in rows if r[0] == "a"][-1]
    return np.array([float(r[h.index(c)]) for c in "xyz"])
for t in ("prismatic", "cylindrical", "universal"):
    x = joint_node(f"j_{t}")
    e8, e32 = (np.max(np.abs(joint_node(f"j_{t}_m{n}") - x)) for n in (8, 32))
    check(e32 < 2e-6 and 10 < e8 / e32 < 25,
          f"{t} statics: the joint node at ({x[0]:.6f}, {x[1]:.6f}, {x[2]:.6f}) m; the mixed rod's within "
          f"{e8:.2e} m (n = 8) and {e32:.2e} m (n = 32): ratio {e8 / e32:.1f} (1/n^2: 16)")

# -- the universal elbow
u = series("du")
scale = np.max(u["energy_kinetic"])
E = u["energy_total"] - u["work_external"]
check(np.max(np.abs(u["energy_balance"])) < 1e-9 * scale and np.max(np.abs(E - E[0])) < 1e-8 * scale
      and np.max(u["joint_violation"]) < 1e-12 and np.max(np.abs(u["tip_y"])) > 0.01,
      f"universal elbow: the steps' balances within {np.max(np.abs(u['energy_balance'])):.2e} J (kinetic energy up to "
      f"{scale:.3f} J), energy_total - work_external within {np.max(np.abs(E - E[0])):.2e} J, the joints held to "
      f"{np.max(u['joint_violation']):.2e}, the tip {np.max(np.abs(u['tip_y'])):.3f} m out of the plane")
def tipdiff3(a, b):
    return np.max(np.sqrt(sum((a["tip_" + c] - b["tip_" + c]) ** 2 for c in "xyz")))
d8, d32 = (tipdiff3(series(f"du_m{n}"), u) for n in (8, 32))
check(d32 < 1e-3 and 10 < d8 / d32 < 25,
      f"universal elbow: the mixed rod's tip within {d8:.2e} m (n = 8) and {d32:.2e} m (n = 32): ratio {d8 / d32:.1f}")
# -- the driven hinge
dv, dm = series("drive"), series("drive_mixed")
scale = np.max(dv["energy_kinetic"])
E = dv["energy_total"] - dv["work_external"] - dv["work_drives"]
check(np.max(np.abs(E - E[0])) < 1e-9 * scale and np.max(np.abs(dv["energy_balance"])) < 1e-12 * scale
      and np.max(dv["joint_violation"]) < 1e-12,
      f"driven hinge: energy_total - work_external - work_drives within {np.max(np.abs(E - E[0])):.2e} J, the steps' "
      f"balances within {np.max(np.abs(dv['energy_balance'])):.2e} J (kinetic energy up to {scale:.2f} J), the hinge "
      f"held to {np.max(dv['joint_violation']):.2e}")
rho, r, L = 7800.0, 0.02, 1.0
I = rho * math.pi * r**2 * L**3 / 3 + rho * math.pi * r**4 / 4 * L
i1 = int(np.argmin(np.abs(dv["t"] - 1.0)))
wdot = 10 * math.pi * 30 * 0.5**2 * 0.5**2 / 2  # theta'(1) = 10 pi s'(1/2) / 2, s'(x) = 30 x^2 (1 - x)^2
kin = 0.5 * I * wdot**2
check(abs(dv["work_drives"][i1] / kin - 1) < 1e-3,
      f"driven hinge: the motor's work at t = 1 s {dv['work_drives'][i1]:.6f} J, the arm's I w^2 / 2 = {kin:.6f} J "
      f"({dv['work_drives'][i1] / kin - 1:+.1e})")
dev = np.max(np.hypot(dv["tip_x"] - dm["tip_x"], dv["tip_y"] - dm["tip_y"]))
check(len(dv["t"]) == 201 and dev < 1e-4, f"driven hinge: the tip within {dev:.2e} m of the mixed rod's over the 5 turns")
def arm_tip(name):
    h, rows = nodes(name)
    r = [r for r in rows if r[0] == "arm"][-1]
    return np.array([float(r[h.index(c)]) for c in "xyz"])
e = np.max(np.abs(arm_tip("drive_static") - arm_tip("drive_static_mixed")))
check(e < 1e-8 and arm_tip("drive_static")[1] > 0.99,
      f"driven hinge, statics: turned 2.25 times, the tip at {arm_tip('drive_static')} m, within {e:.1e} m of the "
      f"mixed rod's")

hinge = series("dp")
for name in ("dplane_u", "dplane_c"):
    o = series(name)
    k = len(o["t"])
    dev = np.max(np.sqrt(sum((o["tip_" + c] - hinge["tip_" + c][:k]) ** 2 for c in "xyz")))
    check(k == 51 and dev < 1e-9, f"{name}: a {'universal' if name.endswith('u') else 'cylindrical'} elbow in the plane "
          f"moves as the hinge: tip within {dev:.1e} m over 0.5 s")
sys.exit(0 if ok else 1)
PY

$py - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
d = sys.argv[1]
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

def series(name):
    return list(csv.DictReader(open(f"{d}/{name}/series.csv")))

def rot(q, v):  # the quaternion (w, x, y, z) applied to v
    w, x, y, z = q
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(R[i][j] * v[j] for j in range(3)) for i in range(3)]

# (1) statics: the rods in series, F = EA x / (L_a + L_b) at each load factor
EA, X, L = 1e7 * math.pi * 1e-4, 1e-4, 1.0
s = json.load(open(f"{d}/slide_static/summary.json"))
sm = json.load(open(f"{d}/slide_static_mixed/summary.json"))
F = s["joints"][0]["force"]
check(abs(F[0] + EA * X / L) < 1e-9 * EA * X / L and abs(F[1]) + abs(F[2]) < 1e-12,
      f"slider drive statics: joint force {F[0]:.12e} N on a, EA x / (L_a + L_b) = {-EA * X / L:.12e} N")
worst = 0
for st in s["stages"][0]["track_load_steps"]:
    f, tr = st["load_factor"], st["track"]
    worst = max(worst, abs(tr["jb"]["position"][0] - tr["ja"]["position"][0] - X * f))
check(worst < 1e-12, f"slider drive statics: the slide x f at every load factor (off by {worst:.2e} m)")
Fm = sm["joints"][0]["force"]
dn = max(abs(s["track"][k]["position"][0] - sm["track"][k]["position"][0]) for k in ("ja", "jb"))
check(abs(F[0] - Fm[0]) < 1e-9 * EA * X / L and dn < 1e-12,
      f"slider drive statics: force and joint nodes as the mixed rod's (force {F[0] - Fm[0]:.2e} N, nodes {dn:.2e} m)")

# (2) dynamics: the slide follows x(t), the balance with the drive's work
rows = series("slide_dyn")
es = eb = sb = 0
B0 = None
for r in rows:
    t = float(r["t"])
    tau = min(max(t / 0.5, 0), 1)
    x = 0.05 * (10 * tau**3 - 15 * tau**4 + 6 * tau**5)
    ta = rot([float(r[f"ja_p{i}"]) for i in range(4)], [0, 1, 0])
    sl = sum((float(r[f"jb_{c}"]) - float(r[f"ja_{c}"])) * ta[i] for i, c in enumerate("xyz"))
    es = max(es, abs(sl - x))
    bal = float(r["energy_total"]) - float(r["work_external"]) - float(r["work_drives"])
    B0 = bal if B0 is None else B0
    eb, sb = max(eb, abs(bal - B0)), max(sb, abs(float(r["energy_balance"])))
W = float(rows[-1]["work_drives"])
check(es < 1e-9, f"slider drive dynamics: the slide x(t) at every output (off by {es:.2e} m)")
check(W > 4e-4 and eb < 1e-12 and sb < 1e-12,
      f"slider drive dynamics: H - H0 - W_drive constant to {eb:.2e} J (W_drive = {W:.6e} J), every step's balance "
      f"within {sb:.2e} J")

# (3) the tip against the mixed rod's: its lumped mass, 1/n^2
def tipdiff(a, b):
    A, B = series(a), series(b)
    return max(max(abs(float(p["tip_x"]) - float(q["tip_x"])), abs(float(p["tip_y"]) - float(q["tip_y"])))
               for p, q in zip(A, B))
e8, e32 = tipdiff("slide_dyn", "slide_dyn_mixed"), tipdiff("slide_dyn32", "slide_dyn32_mixed")
check(e32 < 3e-5 and 10 < e8 / e32 < 25,
      f"slider drive dynamics: the tip against the mixed rod's {e8:.2e} m (n = 8), {e32:.2e} m (n = 32), ratio {e8 / e32:.1f}")
sys.exit(0 if ok else 1)
PY

[ $fail = 0 ] || exit 1
echo "all ph assembly scenario checks passed"
