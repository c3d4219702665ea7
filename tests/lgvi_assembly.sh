#!/bin/bash
# Assemblies of LGVI rods through the CLI (examples/lgvi-double-pendulum.json):
#   against the mixed rod   the same scenario run by model mixed_discrete (Radau, rtol 1e-8): the
#                           elbow and tip positions agree within 1e-3 m at every output over 1 s of
#                           a swing of ~2 m. Both discretize the same rods on the same nodes (lumped
#                           masses) and the steel rods bend by ~1e-5 of their length, so both are the
#                           same rigid double pendulum up to their time errors and the elastic
#                           vibration each represents its own way: measured 1.6e-5 m.
#   energy                  energy_total - work_external (gravity's work) stays within 1e-6 of m g L
#   outputs                 nodes.csv's rod column, one polyline per rod and the rod cell array in the
#                           .vtp, the joints in summary.json: the shared writers, through the table
#   --resume                a run interrupted (SIGINT) and resumed equals the uninterrupted one
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

# ---- refused at check, naming the joint and the model ----
expect_error 1 "joints.1 ('elbow').type: a cylindrical joint is not available in model lgvi" check "$ex" \
    --set 'joints.1={"type": "cylindrical", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [1, 0, 0]}'
expect_error 1 "joints.1 ('elbow').drive: a hinge motor is not available in model lgvi" check "$ex" \
    --set 'joints.1={"type": "hinge", "name": "elbow", "a": "upper:end", "b": "lower:start", "axis": [0, 1, 0], "drive": {"angle": 1}}'
expect_error 1 "rods.0 ('pivot'): stages.0.type" check "$ex" --set 'stages=[{"type": "static"}]'
expect_error 1 "stages.0.time_step: 1e-05 s exceeds the stable step" check "$ex" --set stages.0.time_step=1e-5

# ---- SIGINT and --resume: the resumed series equals the uninterrupted one to every printed digit
# (every rod's kernel state, the inputs and the joints' last reactions are checkpointed) ----
sets=(--set output.vtk=false --set stages.0.output_dt=0.005 --set stages.0.checkpoint_interval=0.02 -q)
"$cli" run "$ex" -o "$tmp/full" "${sets[@]}" > /dev/null 2>&1 || bad "resume: the uninterrupted run failed"
rows=60 code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 400 0.02 "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4)) # it finished before the interrupt: interrupt earlier
done
if [ "$code" -ne 130 ]; then
    bad "resume: could not interrupt the run (exit $code)"
else
    cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
    "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" --resume > "$tmp/resume.log" 2>&1 ||
        bad "resume: the resumed run failed: $(head -c 400 "$tmp/resume.log")"
    if cmp -s "$tmp/full/series.csv" "$tmp/cut/series.csv" && cmp -s "$tmp/full/nodes.csv" "$tmp/cut/nodes.csv"; then
        ok "resume: interrupted after $cut_rows rows, resumed: series.csv and nodes.csv identical to the uninterrupted run"
    else
        bad "resume: the resumed run differs: $(diff "$tmp/full/series.csv" "$tmp/cut/series.csv" | head -3)"
    fi
fi

[ $fail = 0 ] || exit 1
exit 0
