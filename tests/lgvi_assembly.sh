#!/bin/bash
# Assemblies of LGVI rods through the CLI (examples/lgvi-double-pendulum.json):
#   against the mixed rod   the same scenario run by model mixed_discrete (Radau, rtol 1e-8): the
#                           elbow and tip positions agree within 1e-3 m at every output over 1 s of
#                           a swing of ~2 m. Both discretize the same rods on the same nodes (lumped
#                           masses) and the steel rods bend by ~1e-5 of their length, so both are the
#                           same rigid double pendulum up to their time errors and the elastic
#                           vibration each represents its own way: measured 1.6e-5 m.
#   energy                  energy_total - work_external (gravity's work) stays within 1e-6 of m g L
#   hinge, universal        the elbow a hinge (axis tilted out of the swing's plane) or a universal
#                           joint (oblique axes) against the mixed rod: within 1e-3 m too (measured
#                           2.6e-5 and 8.6e-5 m), > 0.03 m away from the balls' run; their rows at
#                           1e-13 in nodes.csv; the hinge's reported moment normal to its axis, the
#                           universal joint's along the common normal of its axes
#   outputs                 nodes.csv's rod column, one polyline per rod and the rod cell array in the
#                           .vtp, the joints in summary.json: the shared writers, through the table
#   --resume                a run interrupted (SIGINT) and resumed equals the uninterrupted one (the
#                           elbow a hinge with a spring, a damper and a motor)
# Usage: lgvi_assembly.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3
ex="$src/examples/lgvi-double-pendulum.json"

run() { # NAME [--set ...]
    local name=$1
    shift
    if ! timeout -k 5 300 "$cli" run "$ex" -q -o "$tmp/$name" "$@" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 400 "$tmp/$name.log")"
    fi
}
run lgvi --set output.vtk=true
run mixed --set output.vtk=false --set model=mixed_discrete \
    --set 'stages=[{"type": "dynamic", "t_end": 1, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]'
[ $fail = 0 ] || exit 1

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

a, b = series("lgvi"), series("mixed")
check(len(a) == len(b) == 101, f"101 outputs each ({len(a)}, {len(b)})")
err = {"tip": 0.0, "elbow": 0.0}
span = 0.0
for x, y in zip(a, b):
    check_t = abs(float(x["t"]) - float(y["t"])) < 1e-12
    if not check_t:
        check(False, f"output times differ: {x['t']} {y['t']}")
        break
    for p in err:
        pa = [float(x[f"{p}_{c}"]) for c in "xyz"]
        pb = [float(y[f"{p}_{c}"]) for c in "xyz"]
        err[p] = max(err[p], math.dist(pa, pb))
    span = max(span, math.dist([float(x[f"tip_{c}"]) for c in "xyz"], [1.0, 0.0, 0.0]))
check(span > 1.5, f"the tip swings {span:.3f} m")
for p, e in err.items():
    check(e < 1e-3, f"{p}: lgvi against mixed_discrete, max distance {e:.2e} m (< 1e-3 m)")
# energy: gravity's work is in work_external; its balance is the lgvi's O(h^2) band
m = 7800 * math.pi * 0.02**2 * 1.125
E = [float(x["energy_total"]) - float(x["work_external"]) for x in a]
dE = max(abs(e - E[0]) for e in E)
check(dE < 1e-6 * m * 9.81 * 0.5, f"energy balance within {dE:.2e} J (1e-6 m g L = {1e-6 * m * 9.81 * 0.5:.2e} J)")
sa = json.load(open(f"{d}/lgvi/summary.json"))
# the shared writers' per-rod layout
rows = list(csv.reader(open(f"{d}/lgvi/nodes.csv")))
check(rows[0][0] == "rod" and [r[0] for r in rows[1:]] == ["pivot"] * 3 + ["upper"] * 9 + ["lower"] * 9,
      "nodes.csv: a rod column, 3 + 9 + 9 rows")
rows = list(csv.reader(open(f"{d}/lgvi/elements.csv")))
check(rows[0][0] == "rod" and len(rows) == 19, "elements.csv: a rod column, 18 rows")
vtp = open(f"{d}/lgvi/rod_0100.vtp", "rb").read()
check(b'NumberOfLines="3"' in vtp and b'<CellData Scalars="rod">' in vtp, "rod_0100.vtp: three polylines, the rod cells")
check([j["type"] for j in sa["joints"]] == ["ball", "ball"] and all(j["moment"] == [0, 0, 0] for j in sa["joints"]),
      "summary.json: the two ball joints, which transmit no moment")
sys.exit(0 if ok else 1)
PY

# ---- hinge and universal elbows (exact rows, src/lgvi/assembly.c) against the mixed rod ----
# The hinge's axis tilted out of the swing's plane, the universal joint's axes oblique to the rods:
# both make the motion three-dimensional and unlike the balls' (which the comparison with the ball
# run shows: > 0.03 m apart). The same tolerance as the balls' against the same reference.
hinge='joints.1={"type": "hinge", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [0, 1, 1]}'
univ='joints.1={"type": "universal", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [1, 1, 0], "axis_b": [-1, 1, 1]}'
mixed=(--set output.vtk=false --set model=mixed_discrete
    --set 'stages=[{"type": "dynamic", "t_end": 1, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]')
run lgvi_hinge --set output.vtk=false --set "$hinge"
run mixed_hinge "${mixed[@]}" --set "$hinge"
run lgvi_univ --set output.vtk=false --set "$univ"
run mixed_univ "${mixed[@]}" --set "$univ"
# slides along an axis oblique to both rods, 0.5 s (the lower rod slides ~0.5 m off the elbow)
half=(--set stages.0.t_end=0.5)
pris='joints.1={"type": "prismatic", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [1, 0.4, 0.3]}'
cyl='joints.1={"type": "cylindrical", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [1, 0.4, 0.3]}'
mixed_half=(--set output.vtk=false --set model=mixed_discrete
    --set 'stages=[{"type": "dynamic", "t_end": 0.5, "output_dt": 0.01, "rtol": 1e-8, "atol": 1e-10}]')
run lgvi_pris --set output.vtk=false "${half[@]}" --set "$pris"
run mixed_pris "${mixed_half[@]}" --set "$pris"
run lgvi_cyl --set output.vtk=false "${half[@]}" --set "$cyl"
run mixed_cyl "${mixed_half[@]}" --set "$cyl"
[ $fail = 0 ] || exit 1
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

def dist(a, b):
    e = {"tip": 0.0, "elbow": 0.0}
    for x, y in zip(a, b):
        for p in e:
            e[p] = max(e[p], math.dist([float(x[f"{p}_{c}"]) for c in "xyz"], [float(y[f"{p}_{c}"]) for c in "xyz"]))
    return e

def rot(q, v):
    w, x, y, z = q
    s = 2 / (w * w + x * x + y * y + z * z)
    R = [[1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)],
         [s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)],
         [s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)]]
    return [sum(R[i][j] * v[j] for j in range(3)) for i in range(3)]

def unit(v):
    n = math.sqrt(sum(c * c for c in v))
    return [c / n for c in v]

def final_nodes(name):  # the elbow's two nodes at the end (nodes.csv: 17 digits): positions, quaternions
    rows = list(csv.DictReader(open(f"{d}/{name}/nodes.csv")))
    up = [r for r in rows if r["rod"] == "upper"][-1]
    lo = [r for r in rows if r["rod"] == "lower"][0]
    return ([float(up[c]) for c in "xyz"], [float(lo[c]) for c in "xyz"],
            [float(up[f"p{i}"]) for i in range(4)], [float(lo[f"p{i}"]) for i in range(4)])

def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

def dot(a, b):
    return sum(x * y for x, y in zip(a, b))

def norm(a):
    return math.sqrt(dot(a, a))

m = 7800 * math.pi * 0.02**2 * 1.125
ball = series("lgvi")
cases = (("hinge", [0, 1, 1], None, 101), ("univ", [1, 1, 0], [-1, 1, 1], 101),
         ("pris", [1, 0.4, 0.3], None, 51), ("cyl", [1, 0.4, 0.3], None, 51))
for kind, ha, hb, n in cases:
    a, b = series(f"lgvi_{kind}"), series(f"mixed_{kind}")
    check(len(a) == len(b) == n, f"{kind}: {n} outputs each ({len(a)}, {len(b)})")
    for p, e in dist(a, b).items():
        check(e < 1e-3, f"{kind}: {p}: lgvi against mixed_discrete, max distance {e:.2e} m (< 1e-3 m)")
    away = dist(a, ball)["tip"]
    check(away > 0.03, f"{kind}: the tip is {away:.3f} m away from the balls' run at some output (> 0.03 m)")
    E = [float(x["energy_total"]) - float(x["work_external"]) for x in a]
    dE = max(abs(e - E[0]) for e in E)
    check(dE < 1e-6 * m * 9.81 * 0.5, f"{kind}: energy balance within {dE:.2e} J (1e-6 m g L)")
    # the rows at the end, from the nodes (both references' frames are the identity, so a vector
    # fixed to b has the components it had in a's frame)
    xa, xb, qa, qb = final_nodes(f"lgvi_{kind}")
    H, Hb = rot(qa, unit(ha)), rot(qb, unit(ha))
    viol = {"hinge": norm(cross(H, Hb)), "cyl": norm(cross(H, Hb)), "univ": abs(dot(H, rot(qb, unit(hb or ha))))}.get(kind, 0.0)
    if kind == "pris":  # the relative rotation: the reference's (none)
        rel = [qa[0] * qb[0] + dot(qa[1:], qb[1:])]
        viol = 2 * math.acos(min(1.0, abs(rel[0])))
    slide = [y - x for x, y in zip(xa, xb)]
    if kind in ("pris", "cyl"):
        off = norm(cross(slide, H))
        check(off < 1e-13 and dot(slide, H) > 0.1, f"{kind}: b's node {dot(slide, H):.3f} m along the axis, {off:.2e} m off it (< 1e-13 m)")
    check(viol < 1e-13, f"{kind}: its rotation rows at the end from nodes.csv: {viol:.2e} (< 1e-13)")
    j = json.load(open(f"{d}/lgvi_{kind}/summary.json"))["joints"][1]
    mo, fo = j["moment"], j["force"]
    # (at the step's start: the axes turn by ω h ~ 1e-5 rad in a step)
    if kind in ("hinge", "cyl"):
        along = abs(dot(mo, H)) / norm(mo)
        check(norm(mo) > 0 and along < 1e-4,
              f"{kind}: summary.json's moment {norm(mo):.3g} N m, its part along the axis {along:.2e} of it (< 1e-4)")
    if kind in ("pris", "cyl"):
        along = abs(dot(fo, H)) / norm(fo)
        check(norm(fo) > 0 and along < 1e-4,
              f"{kind}: summary.json's force {norm(fo):.3g} N, its part along the axis {along:.2e} of it (< 1e-4)")
    if kind == "univ":
        cn = unit(cross(H, rot(qb, unit(hb))))
        off = math.sqrt(max(0.0, 1 - (dot(mo, cn) / norm(mo)) ** 2))
        check(norm(mo) > 0 and off < 1e-4,
              f"universal: summary.json's moment {norm(mo):.3g} N m, off the common normal by {off:.2e} rad (< 1e-4)")
sys.exit(0 if ok else 1)
PY

# ---- refused at check, naming the joint and the model ----
expect_error 1 "joints.1 ('elbow').rest: a spring's rest other than the reference is reached through a static stage, which model lgvi has not" check "$ex" \
    --set 'joints.1={"type": "hinge", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [0, 1, 0], "stiffness": 1, "rest": 0.2}'
expect_error 1 "joints.1 ('elbow').stages: a joint limited to stages is not available in model lgvi" check "$ex" \
    --set 'joints.1={"type": "hinge", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [0, 1, 0], "stages": [0]}'
expect_error 1 "rods.0 ('pivot'): stages.0.type" check "$ex" --set 'stages=[{"type": "static"}]'
expect_error 1 "stages.0.time_step: 1e-05 s exceeds the stable step" check "$ex" --set stages.0.time_step=1e-5

# ---- SIGINT and --resume: the resumed series equals the uninterrupted one to every printed digit
# (every rod's kernel state, the inputs and the joints' last reactions are checkpointed) ----
# (the elbow a hinge: its multipliers, the next step's starting point, are checkpointed too; with a
# spring, a damper and a motor on it, their energy, dissipation and work as well)
driven='joints.1={"type": "hinge", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [0, 1, 1], "stiffness": 40, "damping": 0.5, "drive": {"angle": 0.5, "time": {"type": "sine", "frequency": 3}}}'
sets=(--set output.vtk=false --set stages.0.output_dt=0.005 --set stages.0.checkpoint_interval=0.02 -q --set "$driven")
"$cli" run "$ex" -o "$tmp/full" "${sets[@]}" > /dev/null 2>&1 || bad "resume: the uninterrupted run failed"
rows=60 code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 400 0.02 "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" > "$tmp/cut.log" 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4)) # it finished before the interrupt: interrupt earlier
done
if [ "$code" -ne 130 ]; then
    bad "resume: could not interrupt the run (exit $code): $(tail -c 300 "$tmp/cut.log")"
else
    cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
    # the joints' definitions are part of the checkpoint's fingerprint: another spring or axis is refused
    for change in joints.1.stiffness=41 'joints.1.axis=[0,1,0.9]'; do
        rm -rf "$tmp/other" && cp -r "$tmp/cut" "$tmp/other"
        "$cli" run "$ex" -o "$tmp/other" "${sets[@]}" --set "$change" --resume > "$tmp/other.log" 2>&1
        c=$?
        if [ "$c" -eq 1 ] && grep -q "does not belong to this scenario" "$tmp/other.log"; then
            ok "resume: a checkpoint is refused after $change"
        else bad "resume after $change: exit $c, $(head -c 300 "$tmp/other.log")"; fi
    done
    "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" --resume > "$tmp/resume.log" 2>&1 ||
        bad "resume: the resumed run failed: $(head -c 400 "$tmp/resume.log")"
    if cmp -s "$tmp/full/series.csv" "$tmp/cut/series.csv" && cmp -s "$tmp/full/nodes.csv" "$tmp/cut/nodes.csv"; then
        ok "resume: interrupted after $cut_rows rows, resumed: series.csv and nodes.csv identical to the uninterrupted run"
    else
        bad "resume: the resumed run (cut after $cut_rows rows) differs: $(diff "$tmp/full/series.csv" "$tmp/cut/series.csv" | head -3); the cut run: $(tail -c 300 "$tmp/cut.log"); the resumed: $(tail -c 300 "$tmp/resume.log")"
    fi
fi

[ $fail = 0 ] || exit 1
exit 0
