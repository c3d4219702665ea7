#!/bin/bash
# Joint springs, dampers and stops of port-Hamiltonian assemblies through the CLI (the physics
# against references: tests/test_ph_joint_springs.c):
#   stages   the double pendulum with springs and dampers at both hinges, the elbow's spring
#            resting at 0.3 rad behind a stop at 0.25 rad: a static stage under gravity reaches
#            the rest (rest . f) and presses the stop; a dynamic stage kicks the lower bar: every
#            step's energy_balance (the springs' and stops' energy in energy_elastic, the
#            dampers' dissipation in energy_dissipated_joints) within the Newton tolerance,
#            energy_total - work_external + energy_dissipated_joints constant, the columns
#            joint_limits_pressing and joint_limit_force, summary.json's elbow limit
#   --resume interrupted (SIGINT) and resumed, the run ends where the uninterrupted one does,
#            digit for digit (the springs' unwrapped measures, their energy, the dissipation and
#            the rest's load factor are checkpointed)
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

$py - "$src/examples/ph-double-pendulum.json" "$tmp/dp.json" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc["rods"][1]["elements"] = sc["rods"][2]["elements"] = 4
sc["joints"][0].update({"stiffness": 200, "damping": 0.1})
sc["joints"][1].update({"stiffness": 20, "damping": 0.05, "rest": 0.3, "limit": [-0.5, 0.25], "limit_stiffness": 500})
sc["loads"].append({"type": "moment", "node": "lower:end", "value": [0, 3, 0], "stages": [1],
                    "time": {"type": "sine", "frequency": 5, "amplitude": 1, "t0": 0, "t1": 0.1}})
sc["stages"] = [{"type": "static", "load_steps": 4},
                {"type": "dynamic", "t_end": 1, "output_dt": 0.01, "time_step": 0.001, "checkpoint_interval": 0.05}]
sc["output"]["vtk"] = False
json.dump(sc, open(sys.argv[2], "w"))
PY

"$cli" run "$tmp/dp.json" -q -o "$tmp/full" > "$tmp/full.log" 2>&1 || bad "the run failed: $(head -c 400 "$tmp/full.log")"
$py - "$tmp/full" <<'PY' || fail=1
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "series.csv"))))
ok = True
def check(c, m):
    global ok
    print(("ok     " if c else "FAIL   ") + m)
    ok &= bool(c)
for key in ("energy_dissipated_joints", "joint_limits_pressing", "joint_limit_force", "energy_balance"):
    check(key in rows[0], f"series.csv has {key}")
B = [float(r["energy_total"]) - float(r["work_external"]) + float(r["energy_dissipated_joints"]) for r in rows]
band = max(B) - min(B)
step = max(abs(float(r["energy_balance"])) for r in rows)
D = float(rows[-1]["energy_dissipated_joints"])
press = [float(r["joint_limits_pressing"]) for r in rows]
F = max(float(r["joint_limit_force"]) for r in rows)
# (the series' 10 digits of a 5.4 J total: 5e-10 J)
check(D > 1e-3 and band < 1e-8 and step < 1e-11,
      f"the balance with the springs' energy and the dampers' dissipation ({D:.4g} J) constant to {band:.2e} J "
      f"(the series' digits), every step's within {step:.2e} J")
F0 = float(rows[0]["joint_limit_force"])
check(press[0] == 1 and 10 < F0 < 15 and F > F0,
      f"the elbow's stop presses after statics (a preload of {F0:.4g} N m), the kick pushes it to {F:.4g} N m")
sm = json.load(open(os.path.join(d, "summary.json")))
el = [j for j in sm["joints"] if j["name"] == "elbow"][0]
check("limit" in el and abs(el["limit"]["value"]) < 1, f"summary.json reports the elbow's limit: {el.get('limit')}")
sys.exit(0 if ok else 1)
PY


rows=30 code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 600 0.02 "$cli" run "$tmp/dp.json" -q -o "$tmp/cut" > "$tmp/cut.log" 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4))
done
if [ "$code" -ne 130 ]; then
    bad "resume: could not interrupt the run (exit $code)"
else
    cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
    # another spring is another scenario (the joints' definitions are in the checkpoint's fingerprint)
    if "$cli" run "$tmp/dp.json" -q -o "$tmp/cut" --resume --set joints.1.stiffness=21 > "$tmp/re2.log" 2>&1; then
        bad "resume with another joint stiffness was accepted"
    else
        ok "resume with another joint stiffness refused: $(head -c 200 "$tmp/re2.log")"
    fi
    "$cli" run "$tmp/dp.json" -q -o "$tmp/cut" --resume > "$tmp/resume.log" 2>&1 ||
        bad "resume: the resumed run failed: $(head -c 400 "$tmp/resume.log")"
    if cmp -s <(tail -1 "$tmp/full/series.csv") <(tail -1 "$tmp/cut/series.csv"); then
        ok "resume: interrupted after $cut_rows rows and resumed, the last row equals the uninterrupted run's"
    else
        bad "resume: the resumed run ends elsewhere: $(tail -1 "$tmp/cut/series.csv" | head -c 300) vs $(tail -1 "$tmp/full/series.csv" | head -c 300)"
    fi
fi
[ $fail = 0 ] || exit 1
echo "all ph joint spring checks passed"
