#!/bin/bash
# Assemblies in scenario files ("rods", "joints"; docs/scenario.md) through the CLI, against
# independent references:
#   three-hinged-arch.json  the support and hinge reactions equal the equilibrium of the
#                           deformed arch (statically determinate: exact whatever the
#                           stiffness; checked at two stiffnesses), the hinge transmits no moment
#   ring.json               the change of the two diameters against thin-ring theory
#                           (inextensible Euler-Bernoulli ring), converging at second order
#   a weld                  two rods welded end to end = one continuous rod (to round-off)
#   the other joints        prismatic, cylindrical: no axial force, no torque passed; universal:
#                           the torque about its held axis passed whole, about a free axis not
#   outputs                 nodes.csv's rod column, one polyline per rod in the .vtp
#   parallel-robot.json     three legs welded to a free platform (rigid_bodies without node):
#                           the supports' forces balance the platform's loads (exact), a
#                           central axial load P sinks it by (P/3) L/EA (exact: straight legs),
#                           the platform in summary.json and bodies_0000.vtp; a pendulum's body
#                           on a ball joint in a dynamic stage keeps its point on the rod's end
#   bad input               unknown rod, node out of range, both rod and rods, formulations
#                           and stages that cannot run an assembly: the message names the key
# Usage: assembly_scenarios.sh CLI SOURCE_DIR
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
    if ! timeout -k 5 120 "$cli" run "$file" -q -o "$tmp/$name" "$@" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 400 "$tmp/$name.log")"
    fi
}

# ---- the three-hinged arch, at its stiffness, 5 and 100 times softer ----
# (Newton to its round-off floor: the reactions are the equilibrium's up to the residual)
tight=(--set stages.0.rtol=1e-14 --set stages.0.atol=1e-13)
run arch "$src/examples/three-hinged-arch.json" "${tight[@]}"
run arch_soft "$src/examples/three-hinged-arch.json" "${tight[@]}" --set rods.0.material.E=2e9 --set rods.1.material.E=2e9 \
    --set rods.0.material.G=8e8 --set rods.1.material.G=8e8
# a ball at the crown: the supports hold rx and rz, so the rods cannot spin and the arch is the
# same (the hinge's moment rows carry nothing in this planar problem)
run arch_ball "$src/examples/three-hinged-arch.json" "${tight[@]}" --set joints.0.type=ball --set joints.0.axis=null
run arch_5x "$src/examples/three-hinged-arch.json" "${tight[@]}" --set rods.0.material.E=4e10 --set rods.1.material.E=4e10 \
    --set rods.0.material.G=1.6e10 --set rods.1.material.G=1.6e10

# ---- the ring at a small load (geometrically linear: P R^2/EI = 1e-5) ----
for n in 16 32 64; do
    q=$((n / 4)) h=$((n / 2)) t=$((3 * n / 4))
    run "ring$n" "$src/examples/ring.json" --set rods.0.elements=$n --set boundary_conditions.0.node=ring:$q \
        --set boundary_conditions.1.node=ring:$t --set loads.1.node=ring:$h --set 'loads.0.value=[0,1e-5,0]' \
        --set 'loads.1.value=[0,-1e-5,0]' --set output.track.1.node=ring:$h --set output.track.2.node=ring:$q \
        --set output.track.3.node=ring:$t
done
run ring "$src/examples/ring.json"

# ---- a cantilever under a tip force and moment: one rod, and two halves welded ----
cat > "$tmp/one.json" <<'JSON'
{"rod": {"length": 1.0, "elements": 20, "material": {"E": 1e7, "G": 4e6}, "sections": [{"shape": "circle", "radius": 0.01}]},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "loads": [{"type": "force", "node": "end", "value": [0.1, -0.3, 0.2]}, {"type": "moment", "node": "end", "value": [0.01, 0, 0]}],
 "stages": [{"type": "static", "load_steps": 5}]}
JSON
cat > "$tmp/two.json" <<'JSON'
{"rods": [
   {"name": "a", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "loads": [{"type": "force", "node": "b:end", "value": [0.1, -0.3, 0.2]}, {"type": "moment", "node": {"rod": "b", "s": 0.5}, "value": [0.01, 0, 0]}],
 "output": {"track": [{"name": "tip", "node": "b:end"}, {"name": "mid", "rod": "a", "s": 0.5}]},
 "stages": [{"type": "static", "load_steps": 5}]}
JSON
# the same with the distributed loads and a rigid body split over the rods: gravity on every rod,
# a tendon over the second half (one rod: xi_start 0.5; two rods: all of rod b), force densities
# and a force on the body in a second static stage only
cat > "$tmp/one2.json" <<'JSON'
{"rod": {"length": 1.0, "elements": 20, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "rigid_bodies": [{"name": "bob", "node": "end", "mass": 0.05, "center": [1.0, 0, 0.02], "inertia": [1e-5, 1e-5, 1e-5]}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "tendon", "tension": 0.5, "xi_start": 0.5, "offset": {"y": 0.005, "z": 0.003}},
           {"type": "force_density", "value": [0, 0.05, 0], "stages": [1]},
           {"type": "force", "body": "bob", "value": [0, 0.1, 0], "stages": [1]}],
 "stages": [{"type": "static", "load_steps": 4}, {"type": "static", "load_steps": 4}]}
JSON
cat > "$tmp/two2.json" <<'JSON'
{"rods": [
   {"name": "a", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]},
   {"name": "b", "length": 0.5, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}],
    "reference": {"origin": [0.5, 0, 0]}}],
 "joints": [{"type": "weld", "a": "a:end", "b": "b:start"}],
 "boundary_conditions": [{"type": "clamp", "node": "a:start"}],
 "rigid_bodies": [{"name": "bob", "node": "b:end", "mass": 0.05, "center": [1.0, 0, 0.02], "inertia": [1e-5, 1e-5, 1e-5]}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "tendon", "rod": "b", "tension": 0.5, "offset": {"y": 0.005, "z": 0.003}},
           {"type": "force_density", "rod": "a", "value": [0, 0.05, 0], "stages": [1]},
           {"type": "force_density", "rod": "b", "value": [0, 0.05, 0], "stages": [1]},
           {"type": "force", "body": "bob", "value": [0, 0.1, 0], "stages": [1]}],
 "output": {"track": [{"name": "tip", "node": "b:end"}]},
 "stages": [{"type": "static", "load_steps": 4}, {"type": "static", "load_steps": 4}]}
JSON
run one "$tmp/one.json"
run two "$tmp/two.json"
run two_nt "$tmp/two.json" --set output=null
# a weld with a relative rotation, unloaded: rod b turns rigidly about z at the weld (as a
# rotation vector and as a quaternion)
run kink_v "$tmp/two.json" --set 'loads=[]' --set 'joints.0.rotation=[0, 0, 0.3]'
run kink_q "$tmp/two.json" --set 'loads=[]' --set 'joints.0.rotation=[0.9887710779360422, 0, 0, 0.14943813247359922]'
run one2 "$tmp/one2.json"
run two2 "$tmp/two2.json"
# the other joints on the two halves: a prismatic and a cylindrical joint along x (b held along x,
# and about x, at its middle) pass neither the axial force nor the torque at b's end to rod a; a
# universal joint (axis y on a, axis_b z on b: holds the rotation about x; b held about y and z
# at its end) passes a torque about x at b's middle whole, and one about y not at all
slide=(--set 'boundary_conditions=[{"type": "clamp", "node": "a:start"}, {"type": "support", "node": {"rod": "b", "s": 0.25}, "hold": ["x", "rx"]}]')
run prismatic "$tmp/two.json" --set joints.0.type=prismatic --set 'joints.0.axis=[1, 0, 0]' "${slide[@]}" \
    --set 'boundary_conditions.1.hold=["x"]' --set 'loads=[{"type": "force", "node": "b:end", "value": [0.1, 0, 0]}]'
run cylindrical "$tmp/two.json" --set joints.0.type=cylindrical --set 'joints.0.axis=[1, 0, 0]' "${slide[@]}" \
    --set 'loads=[{"type": "moment", "node": "b:end", "value": [0.01, 0, 0]}]'
uni=(--set joints.0.type=universal --set 'joints.0.axis=[0, 1, 0]' --set 'joints.0.axis_b=[0, 0, 1]'
    --set 'boundary_conditions=[{"type": "clamp", "node": "a:start"}, {"type": "support", "node": "b:end", "hold": ["ry", "rz"]}]')
run universal_x "$tmp/two.json" "${uni[@]}" --set 'loads=[{"type": "moment", "node": {"rod": "b", "s": 0.25}, "value": [0.01, 0, 0]}]'
run universal_y "$tmp/two.json" "${uni[@]}" --set 'loads=[{"type": "moment", "node": {"rod": "b", "s": 0.25}, "value": [0, 0.01, 0]}]'

[ $fail = 0 ] || exit 1
$py - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
d = sys.argv[1]
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

def summary(name):
    return json.load(open(f"{d}/{name}/summary.json"))

# -- three-hinged arch: A (left:start) and B (right:end) turn about I_y only, the crown C is a
# hinge about I_y, the load F = (0, 0, -P) acts at the left rod's node 10. The right rod carries
# no load and no moment at either end (hinge, support free about I_y): the force on it at B is
# along the chord, R_B = k (C - B), with C, B deformed. Moments about A of the whole arch (y):
#   (B - A) x R_B + (L - A) x F = 0  ->  -k [(B-A)_x (C-B)_z - (B-A)_z (C-B)_x] + (L-A)_x P ... (solved below)
# R_A = -F - R_B; the hinge's force on the left rod at C is R_B (the right rod's on it).
P = 20000.0
# (arch_soft, E 100 times smaller, snaps through: its crown ends near the springings' level)
for name in ("arch", "arch_5x", "arch_soft"):
    s = summary(name)
    t = s["track"]
    A, B, C, L = (t[k]["position"] for k in ("A", "B", "crown", "load_point"))
    F = (0.0, 0.0, -P)
    cross_y = lambda r, f: r[2] * f[0] - r[0] * f[2]
    BA = [B[i] - A[i] for i in range(3)]
    CB = [C[i] - B[i] for i in range(3)]
    LA = [L[i] - A[i] for i in range(3)]
    k = -cross_y(LA, F) / cross_y(BA, CB)
    RB = [k * c for c in CB]
    RA = [-F[i] - RB[i] for i in range(3)]
    got = {r["rod"] + ":" + str(r["rod_node"]): r for r in s["reactions"]}
    eA = max(abs(got["left:0"]["force"][i] - RA[i]) for i in range(3)) / P
    eB = max(abs(got["right:20"]["force"][i] - RB[i]) for i in range(3)) / P
    j = s["joints"][0]
    eC = max(abs(j["force"][i] - RB[i]) for i in range(3)) / P
    mC = max(abs(v) for v in j["moment"]) / (P * 1.25)
    mS = max(abs(got["left:0"]["moment_body"][1]), abs(got["right:20"]["moment_body"][1])) / (P * 1.25)
    sag = C[2] - 0.75
    check(eA < 1e-9 and eB < 1e-9 and eC < 1e-9,
          f"{name}: reactions A {got['left:0']['force'][0]:.6g}, {got['left:0']['force'][2]:.6g} N, B "
          f"{got['right:20']['force'][0]:.6g}, {got['right:20']['force'][2]:.6g} N, hinge {j['force'][0]:.6g}, "
          f"{j['force'][2]:.6g} N = the equilibrium of the deformed arch (crown moved {sag:.3g} m): rel. errors "
          f"{eA:.1e}, {eB:.1e}, {eC:.1e}")
    check(mC < 1e-9 and mS < 1e-9, f"{name}: hinge moment {mC:.1e} P L, support moments about y {mS:.1e} P L")
j1, j2 = summary("arch")["joints"][0], summary("arch_ball")["joints"][0]
e = max(abs(j1["force"][i] - j2["force"][i]) for i in range(3)) / P
check(e < 1e-9 and j2["type"] == "ball", f"arch with a ball at the crown = with the hinge: force {j2['force']} ({e:.1e} P)")
# the undeformed statics (V_A = 3P/4, V_B = P/4, H = P a / 4h = P/3) at the stiff arch within its small deformation
s = summary("arch")
got = {r["rod"] + ":" + str(r["rod_node"]): r for r in s["reactions"]}
check(abs(got["left:0"]["force"][2] / P - 0.75) < 0.02 and abs(got["right:20"]["force"][2] / P - 0.25) < 0.02,
      f"arch: V_A = {got['left:0']['force'][2] / P:.4f} P, V_B = {got['right:20']['force'][2] / P:.4f} P "
      "(undeformed 0.75 P, 0.25 P)")

# -- ring: thin-ring theory, P = 1e-5 N, R = 1 m, EI = 1 N m^2
P, R, EI = 1e-5, 1.0, 1.0
along, across = (math.pi / 4 - 2 / math.pi) * P * R**3 / EI, -(2 / math.pi - 0.5) * P * R**3 / EI
errs = []
for n in (16, 32, 64):
    t = summary(f"ring{n}")["track"]
    da = t["top"]["position"][1] - t["bottom"]["position"][1] - 2 * R
    dc = t["right"]["position"][0] - t["left"]["position"][0] - 2 * R
    # the closure weld sits at a load point: it carries half the load and the bending moment
    # there, P R / pi (Roark, the same case)
    j = summary(f"ring{n}")["joints"][0]
    e = (da / along - 1, dc / across - 1, abs(j["moment"][2]) / (P * R / math.pi) - 1)
    errs.append(e)
    print(f"       ring n = {n}: dD along {da:.6e} m (theory {along:.6e}), across {dc:.6e} m (theory {across:.6e}), "
          f"moment at the load {abs(j['moment'][2]):.6e} N m (theory {P * R / math.pi:.6e}): rel. errors "
          f"{e[0]:.2e}, {e[1]:.2e}, {e[2]:.2e}; closure force {j['force'][1] / P:.12f} P")
    # (to the residual's round-off, EA eps ~ 2e-9 N = 2e-4 P)
    check(abs(j["force"][1] / P - 0.5) < 1e-3, f"ring n = {n}: the closure weld carries P/2 (symmetry)")
for k in (0, 1):
    r1, r2 = errs[0][k] / errs[1][k], errs[1][k] / errs[2][k]
    check(3.5 < r1 < 4.5 and 3.5 < r2 < 4.5 and abs(errs[2][k]) < 0.01,
          f"ring: {('along', 'across')[k]} the load, error ratios {r1:.2f}, {r2:.2f} (second order), {abs(errs[2][k]):.1e} at n = 64")
check(abs(errs[0][2]) > abs(errs[1][2]) > abs(errs[2][2]) and abs(errs[2][2]) < 2e-3,
      f"ring: the moment at the load converges to P R / pi: {abs(errs[2][2]):.1e} at n = 64")
s = summary("ring")
check(s["converged"] and s["joints"][0]["name"] == "closure", f"ring.json (P R^2/EI = 1.5) converged; closure force "
      f"{s['joints'][0]['force']}")
# the supports react to nothing (symmetric loads): at the residual's round-off (EA eps ~ 2e-9 N)
s = summary("ring")
rmax = max(max(abs(v) for v in r["force"]) for r in s["reactions"]) / 1.5
check(rmax < 1e-7, f"ring.json: the supports' reactions {rmax:.1e} P (they only remove the rigid motions)")
jf = s["joints"][0]["force"]
check(abs(jf[1] / 1.5 - 0.5) < 1e-8 and abs(jf[0]) < 1e-7, f"ring.json: the closure weld carries P/2 at large deflection: {jf}")

# -- weld = one rod
a, b = summary("one"), summary("two")
e = max(abs(a["tip"]["position"][i] - b["track"]["tip"]["position"][i]) for i in range(3))
check(e < 1e-10, f"two rods welded end to end = one rod: tip {b['track']['tip']['position']}, |difference| {e:.1e} m")
t = summary("two_nt")["tip"]
check(max(abs(t["position"][i] - a["tip"]["position"][i]) for i in range(3)) < 1e-10 and t["node"] == 21,
      "without output.track the summary's tip is the free end of the welded pair (rod b's end, node 21)")
for name in ("kink_v", "kink_q"):
    t = summary(name)["track"]["tip"]["position"]
    ref = (0.5 + 0.5 * math.cos(0.3), 0.5 * math.sin(0.3), 0.0)
    e = max(abs(t[i] - ref[i]) for i in range(3))
    check(e < 1e-10, f"{name}: a weld rotated 0.3 rad about z turns the unloaded rod b rigidly: tip {t} ({e:.1e} m)")
ra = a["reactions"][0]["force"]
rb = b["reactions"][0]["force"]
check(max(abs(ra[i] - rb[i]) for i in range(3)) < 1e-9, "the clamp's reaction equals the one rod's")
jf = b["joints"][0]["force"]
check(max(abs(jf[i] - (0.1, -0.3, 0.2)[i]) for i in range(3)) < 1e-9, f"the weld transmits the tip force: {jf}")
a2, b2 = summary("one2"), summary("two2")
for k in (0, 1):
    e = max(abs(a2["stages"][k]["track"]["tip"]["position"][i] - b2["stages"][k]["track"]["tip"]["position"][i])
            for i in range(3))
    check(e < 1e-10, f"gravity, a tendon, force densities and a body's load split over two welded rods = one rod, "
          f"stage {k}: |tip difference| {e:.1e} m")
# the weld carries what acts beyond it: rod b's weight (rho A g L/2), the body's, the tendon's
# (self-equilibrated on rod b: nothing) and in stage 1 the density on b and the body's force
w = 1000 * math.pi * 0.01**2 * 9.81 * 0.5 + 0.05 * 9.81
jf = b2["joints"][0]["force"]
check(abs(jf[2] + w) < 1e-9 and abs(jf[1] - (0.05 * 0.5 + 0.1)) < 1e-9 and abs(jf[0]) < 1e-9,
      f"the weld carries the weight {w:.9f} N and the side loads 0.125 N beyond it: {jf}")
mid = b["track"]["mid"]["position"]
rows = list(csv.reader(open(f"{d}/one/nodes.csv")))
e = max(abs(float(rows[1 + 10][1 + i]) - mid[i]) for i in range(3))
check(e < 1e-10, f"the tracked point {{rod a, s 0.5}} = the one rod's node 10 ({e:.1e} m)")

# -- outputs of an assembly
rows = list(csv.reader(open(f"{d}/two/nodes.csv")))
check(rows[0][0] == "rod" and [r[0] for r in rows[1:]] == ["a"] * 11 + ["b"] * 11, "nodes.csv: a rod column, 11 + 11 rows")
rows = list(csv.reader(open(f"{d}/two/elements.csv")))
check(rows[0][0] == "rod" and len(rows) == 21, "elements.csv: a rod column, 20 rows")
# the new joints: what they pass to rod a (the joint's wrench on a), and where rod a's end is
for name, force, moment in (("prismatic", 0, 0), ("cylindrical", 0, 0), ("universal_x", 0, (0.01, 0, 0)),
                            ("universal_y", 0, 0)):
    s = summary(name)
    j = s["joints"][0]
    m = moment if moment else (0, 0, 0)
    ef = max(abs(v) for v in j["force"])
    em = max(abs(j["moment"][i] - m[i]) for i in range(3))
    mid = s["track"]["mid"]["position"]
    moved = max(abs(mid[i] - (0.5, 0, 0)[i]) for i in range(3))  # a's end (s = 0.5 m)
    check(ef < 1e-9 and em < 1e-11 and (moment or moved < 1e-12),
          f"{name}: joint force {ef:.1e} N, moment {j['moment']} (expected {list(m)}), a's end moved {moved:.1e} m")
    check(j.get("type") == name.split("_")[0], f"{name}: summary.json names the joint's type ({j.get('type')})")
vtp = open(f"{d}/arch/rod_0001.vtp", "rb").read()
check(b'NumberOfLines="2"' in vtp and b'<CellData Scalars="rod">' in vtp, "rod_0001.vtp: two polylines, the cell data rod")
sys.exit(0 if ok else 1)
PY

# ---- bad input names the key ----
arch="$src/examples/three-hinged-arch.json"
expect_error 1 'joints.0.a: unknown rod "lft"' check "$arch" --set joints.0.a=lft:end
expect_error 1 'boundary_conditions.1.node: node index must be in [-21, 20] (rod "right" has 21 nodes)' check "$arch" --set boundary_conditions.1.node=right:21
expect_error 1 'loads.0.node: name the rod' check "$arch" --set loads.0.node=end
expect_error 1 'rods: give either rod' check "$src/examples/ring.json" --set 'rod={"length": 1, "elements": 2}'
expect_error 1 'rods.1.name: "left" is already' check "$arch" --set rods.1.name=left
# what only the mixed rod's assemblies have is refused by the other two models, naming the key
# (before: they passed check and ran another mechanism: springs ignored, a released joint kept)
for m in port_hamiltonian lgvi; do
    expect_error 1 "rigid_bodies: a free rigid body (an entry without node, 'platform') is not available in model $m" \
        check "$src/examples/parallel-robot.json" --set model=$m
    if [ $m = port_hamiltonian ]; then # (both have hinge springs; lgvi also a ball's isotropic one)
        expect_error 1 "joints.1 ('elbow').stiffness: a ball joint's isotropic spring and damper are not available in model $m" \
            check "$src/examples/ph-double-pendulum.json" --set model=$m \
            --set 'joints.1={"type": "ball", "name": "elbow", "a": "upper:end", "b": "lower:start", "stiffness": 2}'
    fi
    expect_error 1 "joints.1 ('elbow').stages: a joint limited to stages is not available in model $m" \
        check "$src/examples/lgvi-double-pendulum.json" --set model=$m --set 'joints.1.stages=[0]'
done
# obstacles act on every rod of an assembly (tests/contact_assembly.sh): a plane through the arch
# is refused at check, naming the first rod inside it
expect_error 1 "rods.0 ('left'): obstacles.0: the rod starts inside obstacle" check "$arch" --set 'obstacles=[{"type": "plane", "normal": [0, 0, 1], "point": [0, 0, 0.5]}]'
expect_error 1 'joints.0.axis: missing' check "$arch" --set joints.0.axis=null
expect_error 1 'output.track.0.node.s: must be in [0, 1.25]' check "$arch" --set 'output.track.0.node={"rod": "left", "s": 2}'
expect_error 1 "joints.0 ('crown').rest: a spring's rest other than the reference is reached through a static stage, which model lgvi has not" \
    check "$arch" --set model=lgvi --set joints.0.stiffness=1 --set joints.0.rest=0.1
# what the assemblies' dynamics refuse (their dynamic stages: tests/assembly_dynamics_scenarios.sh)
dyn=(--set 'stages=[{"type": "dynamic", "t_end": 0.1, "output_dt": 0.01}]' --set rods.0.material.rho=7800
    --set rods.1.material.rho=7800)
expect_error 1 "rods.1 ('right').rigid_strains: an assembly with rigid strain components cannot run dynamic stage 0" \
    check "$arch" "${dyn[@]}" --set 'rods.1.rigid_strains=["gamma_x"]'
# (a rigid body on a joint's node is the dynamics' as well: tests/test_assembly_joint_supports.c)
# (the arch's supports are refused in dynamics for their frames, which check names instead)
body_msg=$("$cli" check "$arch" "${dyn[@]}" --set 'rigid_bodies=[{"name": "m", "node": "left:end", "mass": 1, "center": [1, 0, 0.75], "inertia": [1e-3, 1e-3, 1e-3]}]' 2>&1)
case "$body_msg" in
*rigid_bodies*) bad "a rigid body on a joint's node refused in a dynamic stage: $body_msg" ;;
*boundary_conditions.0.frame*) ok "a rigid body on a joint's node passes the dynamic stage's check" ;;
*) bad "unexpected: $body_msg" ;;
esac
expect_error 1 'joints.1: its constraint on translation along x repeats the constraints of joints.0' check "$arch" \
    --set 'joints=[{"type": "hinge", "a": "left:end", "b": "right:start", "axis": [0, 1, 0]}, {"type": "weld", "a": "left:end", "b": "right:start"}]'
# a support on a joint's node: the mixed rod's (tests/test_assembly_joint_supports.c); the lgvi model takes
# a clamp there (tests/lgvi_assembly_supports.sh), its only kind of support, and refuses the arch's pins
expect_error 1 "rods.0 ('left'): boundary_conditions.0.type: the lgvi model supports clamps only" \
    check "$arch" --set boundary_conditions.1.node=right:start --set model=lgvi
expect_error 1 'joints.0.axis: missing (a prismatic joint has an axis' check "$arch" --set joints.0.type=prismatic --set joints.0.axis=null
expect_error 1 'joints.0.axis_b: missing' check "$arch" --set joints.0.type=universal
expect_error 1 'joints.0.axis_b: must be perpendicular to axis' check "$arch" --set joints.0.type=universal --set 'joints.0.axis_b=[0, 1, 1]'
expect_error 1 'joints.0.axis_b: only a universal joint has an axis_b' check "$arch" --set 'joints.0.axis_b=[1, 0, 0]'
expect_error 1 'joints.0.type: ' check "$arch" --set joints.0.type=slider
# a gap between a joint's points: closed by the mixed rod's first static stage, refused by the others
# (tests/test_joint_gaps.c)
if "$cli" check "$arch" --set 'rods.1.reference.origin=[1, 0, 0.8]' > "$tmp/out" 2>&1; then
    ok "a joint's gap passes the check of a first static stage"
else
    bad "a joint's gap refused in a static first stage: $(head -c 300 "$tmp/out")"
fi
expect_error 1 "joints.0 ('crown'): its points (node 20 of rod 'left' and node 0 of rod 'right') are 0.05 m apart in the reference, and model port_hamiltonian" \
    check "$arch" --set 'rods.1.reference.origin=[1, 0, 0.8]' --set model=port_hamiltonian
# the scenario's sanity warnings look at every rod, named rods.K (a gravity load on every rod once)
expect_error 0 'warning: rods.1.material.G: G/E = 8e+12 / 2e+11' check "$arch" --set rods.1.material.G=8e12
expect_error 0 'warning: loads: |g| = 981' check "$arch" --set 'loads=[{"type": "gravity", "value": [0, 0, -981]}]' \
    --set rods.0.material.rho=7800 --set rods.1.material.rho=7800
if [ "$(grep -c gravity_units "$tmp/err")" != 1 ]; then bad "gravity_units said $(grep -c gravity_units "$tmp/err") times"; fi
# ---- a parallel robot: three legs welded to a free platform ----
robot="$src/examples/parallel-robot.json"
run robot "$robot"
run robot_axial "$robot" --set 'loads.0.value=[0,0,0]' --set 'loads.1.value=[0,0,-2]' --set 'loads.2.value=[0,0,0]'
# ball-jointed legs sway (a limit load) under the file's loads: a tenth of them
run robot_ball "$robot" --set joints.0.type=ball --set joints.1.type=ball --set joints.2.type=ball \
    --set 'loads.1.value=[0.04, 0.02, -0.05]' --set 'loads.2.value=[0, 0, 0.002]'
# a body hanging on a ball joint from a clamped leg's end, swinging: a dynamic stage from rest,
# tilted by a sideways force on the body for its first 0.05 s
cat > "$tmp/hang.json" <<'JSON'
{"rods": [{"name": "leg", "length": 0.4, "elements": 12, "material": {"E": 5.5e10, "G": 2.1e10, "rho": 6450},
           "sections": [{"shape": "circle", "radius": 0.002}], "reference": {"frame": {"e_x": [0, 0, -1], "e_y": [1, 0, 0]}}}],
 "boundary_conditions": [{"type": "clamp", "node": "leg:start"}],
 "rigid_bodies": [{"name": "bob", "mass": 0.05, "center": [0, 0, -0.5], "inertia": [2.5e-5, 2.5e-5, 5e-5]}],
 "joints": [{"type": "ball", "a": "leg:end", "b": {"body": "bob", "point": [0, 0, 0.1]}}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "force", "body": "bob", "value": [0.05, 0.02, 0], "time": {"type": "table", "points": [[0, 1], [0.05, 1], [0.051, 0], [1, 0]]}}],
 "stages": [{"type": "dynamic", "t_end": 0.3, "output_dt": 0.01, "rtol": 1e-7, "atol": 1e-10}]}
JSON
run robot_dyn "$tmp/hang.json"
$py - "$tmp" "$robot" <<'PY' || fail=1
import json, math, sys
tmp, path = sys.argv[1], sys.argv[2]
sc = json.load(open(path))
bad = []
for name in ("robot", "robot_ball"):
    s = json.load(open(f"{tmp}/{name}/summary.json"))
    m = sc["rigid_bodies"][0]["mass"]
    F = sc["loads"][1]["value"] if name == "robot" else [0.04, 0.02, -0.05]
    # the platform's load and weight, and the legs' weight (rho A L g each)
    r0 = sc["rods"][0]
    mr = 3 * r0["material"]["rho"] * math.pi * r0["sections"][0]["radius"] ** 2 * r0["length"]
    W = [F[k] + (m + mr) * sc["loads"][0]["value"][k] for k in range(3)]
    Wp = [F[k] + m * sc["loads"][0]["value"][k] for k in range(3)]
    tot = [W[k] + sum(r["force"][k] for r in s["reactions"]) for k in range(3)]
    e = math.sqrt(sum(x * x for x in tot)) / math.sqrt(sum(x * x for x in W))
    print(f"{name}: supports' forces + platform loads = {e:.2e} (relative)")
    if not e < 1e-9: bad.append(f"{name} force balance {e:.2e}")
    # the platform's balance through its joints' reactions (forces on the legs' tips)
    tj = [Wp[k] - sum(j["force"][k] for j in s["joints"]) for k in range(3)]
    ej = math.sqrt(sum(x * x for x in tj)) / math.sqrt(sum(x * x for x in Wp))
    if not ej < 1e-9: bad.append(f"{name} platform balance {ej:.2e}")
    if s["bodies"][0]["name"] != "platform": bad.append(f"{name}: summary.json bodies {s['bodies']}")
s = json.load(open(f"{tmp}/robot_axial/summary.json"))
L, r = sc["rods"][0]["length"], sc["rods"][0]["sections"][0]["radius"]
EA = sc["rods"][0]["material"]["E"] * math.pi * r * r
sink, ref = L - s["bodies"][0]["center"][2], 2.0 / 3 * L / EA
print(f"robot_axial: sink {sink:.12e} m, (P/3) L/EA = {ref:.12e} m")
if not abs(sink - ref) < 1e-8 * ref: bad.append(f"axial sink {sink} vs {ref}")
vtp = open(f"{tmp}/robot/bodies_0003.vtp", "rb").read()
if b'NumberOfPoints="1"' not in vtp: bad.append("bodies_0003.vtp: not one body")
# the dynamic run: the joint's point stays on the leg's end (the constraint held)
s = json.load(open(f"{tmp}/robot_dyn/summary.json"))
c, q = s["bodies"][0]["center"], s["bodies"][0]["quaternion"]
w, x, y, z = q
R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
X = [0, 0, 0.1]
pt = [c[i] + sum(R[i][k] * X[k] for k in range(3)) for i in range(3)]
import csv
tip = list(csv.DictReader(open(f"{tmp}/robot_dyn/nodes.csv")))[-1]
gap = math.dist(pt, [float(tip["x"]), float(tip["y"]), float(tip["z"])])
swing = math.dist(c, [0, 0, -0.5])
print(f"robot_dyn: platform moved {swing:.3e} m, its joint point {gap:.2e} m from the leg's end")
if not (gap < 1e-6 * 0.4 and swing > 1e-3): bad.append(f"dynamic platform: gap {gap}, moved {swing}")
if bad:
    print("parallel robot: " + "; ".join(bad))
    sys.exit(1)
PY
expect_error 1 'rigid_bodies.0.node: missing (give node to weld the body to a rod, or name the body in a joint' \
    check "$robot" --set 'joints=[]'
expect_error 1 'joints.0.b.body: unknown rigid body "plate"' check "$robot" --set joints.0.b.body=plate
expect_error 1 'joints.0.b.point.2: ' check "$robot" --set 'joints.0.b.point=[0, 0.06, "x"]'
# a body's point apart from the leg's end: a gap, closed by a first static stage, refused before a dynamic one
expect_error 1 "joints.0 ('top0'): its points (node 24 of rod 'leg0' and point (0, 0.07, 0) of body 'platform') are 0.01 m apart in the reference, and stage 0 is dynamic" \
    check "$robot" --set 'joints.0.b.point=[0, 0.07, 0]' --set 'stages=[{"type": "dynamic", "t_end": 0.01, "output_dt": 0.01}]'
expect_error 1 'joints.0.b.body: rigid body "platform" is welded to a node' check "$robot" --set rigid_bodies.0.node=leg1:end
exit $fail
