#!/usr/bin/env bash
# A run interrupted (SIGINT) in its last stage and continued with --resume reports the
# statistics of every stage, also of those that finished before the interruption: the
# two static stages and the first dynamic stage exactly as the uninterrupted run (they
# are restored from checkpoint.bin), the interrupted dynamic stage within the tolerance
# of tests/resume.sh (its step count depends on where the integrator restarted). The
# console shows the same per-stage lines, and the warnings of the stages before the
# interruption are kept. An old checkpoint format is refused by name.
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$src/tests/scenarios/resume-stages.json"
sets=(--set output.vtk=false)
fail=0

"$cli" run "$ex" -o "$tmp/full" "${sets[@]}" -q > "$tmp/full.out" 2>&1 || { echo "FAIL uninterrupted run: $(cat "$tmp/full.out")"; exit 1; }

rows=600 # series rows before the interrupt: stage 2 writes 101, stage 3 2000 more
code=0
for attempt in 1 2 3 4; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 600 0.005 "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" -q > "$tmp/cut.out" 2> "$tmp/cut.err"
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 2 + 60)) # finished before the interrupt: interrupt earlier (still in stage 3)
done
if [ "$code" -ne 130 ]; then echo "FAIL could not interrupt the run (exit $code)"; exit 1; fi
echo "ok     interrupted: $(cat "$tmp/cut.err")"
if ! grep -q "stage 3" "$tmp/cut.err"; then echo "FAIL the interruption was not in stage 3"; exit 1; fi

"$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" -q --resume > "$tmp/res.out" 2>&1 || { echo "FAIL resume: $(cat "$tmp/res.out")"; exit 1; }

python3 - "$tmp/full/summary.json" "$tmp/cut/summary.json" << 'EOF' || fail=1
import json, sys
full, res = (json.load(open(p)) for p in sys.argv[1:3])
bad = 0
def same(what, a, b):
    global bad
    if a != b:
        print(f"FAIL {what}: resumed {b}, uninterrupted {a}")
        bad = 1
if not res.get("resumed"):
    print("FAIL the resumed summary does not say resumed"); bad = 1
# the last static stage's report at the top level
for key in ("load_steps", "load_factor", "failed_load_steps", "newton_iterations", "residual_history",
            "newton_iterations_total", "final_residual"):
    same(key, full[key], res[key])
exact = {"static": ("load_steps", "failed_load_steps", "newton_iterations", "load_factor", "final_residual"),
         "dynamic": ("t_start", "t_end", "steps", "rejected_steps", "newton_iterations", "function_evaluations",
                     "jacobians", "lu_factorizations")}
for k, (a, b) in enumerate(zip(full["stages"], res["stages"])):
    if k == 3:  # the interrupted stage: as tests/resume.sh allows
        same("stages.3.t_end", a["t_end"], b["t_end"])
        if abs(a["steps"] - b["steps"]) > a["steps"] // 20 + 3:
            print(f"FAIL stages.3.steps: resumed {b['steps']}, uninterrupted {a['steps']}"); bad = 1
        continue
    for key in exact[a["type"]]:
        same(f"stages.{k}.{key}", a.get(key), b.get(key))
    if b.get("steps", b.get("load_steps", 0)) == 0:
        print(f"FAIL stages.{k} reports no steps after the resume"); bad = 1
if not bad:
    s = res["stages"]
    print(f"ok     resumed summary: static stages {s[0]['load_steps']} and {s[1]['load_steps']} load steps, "
          f"dynamic stage 2 {s[2]['steps']} steps as uninterrupted; stage 3 {s[3]['steps']} steps "
          f"(uninterrupted {full['stages'][3]['steps']})")
sys.exit(bad)
EOF

# the console: the finished stages' lines as in the uninterrupted run (without wall times)
lines() { grep -E '^  (stage [012] |load steps|Newton|residual)' "$1" | sed -E 's/, [0-9.]+ s$//'; }
"$cli" run "$ex" -o "$tmp/full2" "${sets[@]}" -q > "$tmp/full2.out" 2>&1
if [ "$(lines "$tmp/full2.out")" != "$(lines "$tmp/res.out")" ] || [ -z "$(lines "$tmp/res.out")" ]; then
    echo "FAIL console statistics differ after the resume:"; diff <(lines "$tmp/full2.out") <(lines "$tmp/res.out"); fail=1
else
    echo "ok     console after the resume: $(lines "$tmp/res.out" | grep -c stage) stage lines as uninterrupted"
fi

# the warnings of a stage before the interruption are kept: a steel cantilever with E in MPa
# bends far beyond the model's range in its static stage (strain_large, curvature_large at
# stages.0), then holds still in a dynamic stage that is interrupted and resumed
cat > "$tmp/mpa.json" << 'JSON'
{
  "name": "mpa-cantilever",
  "rod": { "length": 0.3, "elements": 30, "material": { "E": 2.1e5, "G": 8.1e4, "rho": 7850 },
           "sections": [ { "shape": "circle", "radius": 0.005 } ] },
  "boundary_conditions": [ { "type": "clamp", "node": "start" } ],
  "loads": [ { "type": "gravity", "value": [0, 0, -9.81] },
             { "type": "force", "node": "end", "frame": "inertial", "value": [0, 0, -0.01] } ],
  "stages": [ { "type": "static", "load_steps": 10 },
              { "type": "dynamic", "t_end": 3, "output_dt": 0.001, "h_max": 0.0005, "checkpoint_interval": 0.02 } ],
  "output": { "vtk": false }
}
JSON
# code and key of each warning, and the message of those of the static stage 0 (restored from the
# checkpoint, so exact); the interrupted dynamic stage's end state agrees with the uninterrupted
# one to the integrator's tolerance only, so its messages' values may differ in the last digit
warnings_of() { python3 -c 'import json, sys
for w in json.load(open(sys.argv[1]))["warnings"]:
    print(w["code"], w["key"], w["message"] if w["key"] == "stages.0" else "")' "$1/summary.json"; }
"$cli" run "$tmp/mpa.json" -o "$tmp/mpa-full" -q > /dev/null 2>&1
rows=500
for attempt in 1 2 3 4; do
    rm -rf "$tmp/mpa-cut"
    interrupt_run "$tmp/mpa-cut" "$rows" 600 0.005 "$cli" run "$tmp/mpa.json" -o "$tmp/mpa-cut" -q > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 2))
done
"$cli" run "$tmp/mpa.json" -o "$tmp/mpa-cut" -q --resume > /dev/null 2>&1
full=$(warnings_of "$tmp/mpa-full") cut=$(warnings_of "$tmp/mpa-cut" 2> /dev/null)
if [ "$code" -ne 130 ] || [ "$full" != "$cut" ] || ! grep -q "^strain_large stages.0 " <<< "$cut"; then
    echo "FAIL warnings after the resume (interrupt exit $code):"; diff <(echo "$full") <(echo "$cut"); fail=1
else
    echo "ok     the resumed run reports the warnings of the stages before the interruption: $(cut -d' ' -f1,2 <<< "$cut" | tr '\n' ';')"
fi

# a checkpoint of the previous format (CRCKPT04) is refused with a message that says so
rm -rf "$tmp/old"
cp -r "$tmp/cut" "$tmp/old"
"$cli" run "$ex" -o "$tmp/old" "${sets[@]}" -q --set stages.3.t_end=20 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
    [ -s "$tmp/old/checkpoint.bin" ] && [ "$(wc -l < "$tmp/old/series.csv" 2> /dev/null || echo 0)" -gt 300 ] && break
    sleep 0.005
done
kill -INT "$pid" 2> /dev/null
wait "$pid"
printf 'CRCKPT04' | dd of="$tmp/old/checkpoint.bin" bs=1 seek=0 conv=notrunc 2> /dev/null
"$cli" run "$ex" -o "$tmp/old" "${sets[@]}" -q --set stages.3.t_end=20 --resume > "$tmp/old.out" 2>&1
code=$?
if [ "$code" -ne 1 ] || ! grep -q "CRCKPT04 of an older version" "$tmp/old.out"; then
    echo "FAIL an old checkpoint: exit $code, $(cat "$tmp/old.out")"; fail=1
else
    echo "ok     an old checkpoint is refused: $(cat "$tmp/old.out")"
fi
exit $fail
