#!/usr/bin/env bash
# CLI contract: exit codes (0 ok, 1 bad input, 2 solver failure with the last
# converged state on disk), messages naming the offending key, --set overrides,
# and the output files with their documented headers.
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, condition...
    local what="$1"
    shift
    if "$@"; then echo "ok     $what"; else echo "FAIL   $what"; fail=1; fi
}
# expect_error CODE KEY-FRAGMENT [cosserat args...]: exit code and message naming the key
expect_error() {
    local code="$1" key="$2"
    shift 2
    "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$code" ] || ! grep -qF -- "$key" "$tmp/err"; then
        echo "FAIL   $* -> exit $got (want $code), stderr: $(head -c 300 "$tmp/err")"
        fail=1
    else
        echo "ok     exit $code naming '$key': $*"
    fi
}
ex="$src/examples"

check "--version" bash -c "'$cli' --version | grep -q '^cosserat [0-9]'"
check "--help" bash -c "'$cli' --help | grep -q 'usage: cosserat run'"
check "check ok" bash -c "'$cli' check '$ex/tendon-manipulator.json' | grep -q ok"

# run with overrides: outputs and headers
"$cli" run "$ex/tendon-manipulator.json" -o "$tmp/t" --set rod.elements=50 --set stages.0.load_steps=4 >"$tmp/run.out" 2>"$tmp/run.err"
check "run exit 0" test $? -eq 0
check "stdout summary names the outputs" grep -q "$tmp/t/summary.json" "$tmp/run.out"
check "nodes.csv header" bash -c "head -1 '$tmp/t/nodes.csv' | grep -qx 's,x,y,z,p0,p1,p2,p3'"
check "nodes.csv has n+1 rows" bash -c "[ \$(wc -l < '$tmp/t/nodes.csv') -eq 52 ]"
check "elements.csv header" bash -c "head -1 '$tmp/t/elements.csv' | grep -qx 's,gamma_x,gamma_y,gamma_z,kappa_x,kappa_y,kappa_z,n_x,n_y,n_z,m_x,m_y,m_z'"
check "elements.csv has n rows" bash -c "[ \$(wc -l < '$tmp/t/elements.csv') -eq 51 ]"
check "one vtp per load step" bash -c "[ \$(ls '$tmp/t'/rod_*.vtp | wc -l) -eq 4 ] && grep -c '<DataSet' '$tmp/t/rod.pvd' | grep -qx 4"
check "summary keys" bash -c "for k in converged model nodes elements load_steps newton_iterations residual_history wall_time_s tip position quaternion; do grep -q \"\\\"\$k\\\"\" '$tmp/t/summary.json' || exit 1; done"
check "summary: converged, 51 nodes, 50 elements, 4 steps" bash -c "grep -q '\"converged\":[[:space:]]*true' '$tmp/t/summary.json' && grep -q '\"nodes\":[[:space:]]*51' '$tmp/t/summary.json' && grep -q '\"elements\":[[:space:]]*50' '$tmp/t/summary.json' && grep -q '\"load_steps\":[[:space:]]*4' '$tmp/t/summary.json'"
check "no progress line when stderr is not a terminal" test ! -s "$tmp/run.err"

# bad input: exit 1 and the key in the message
expect_error 1 "rod.elemnts" run "$ex/tendon-manipulator.json" -o "$tmp/x" --set rod.elemnts=5
expect_error 1 "rod.elements" run "$ex/tendon-manipulator.json" -o "$tmp/x" --set rod.elements=0
expect_error 1 "rod.material.E" run "$ex/tendon-manipulator.json" -o "$tmp/x" --set rod.material.E=-1
expect_error 1 "rod.material.G" check "$ex/tendon-manipulator.json" --set rod.material.G=0
expect_error 1 "rod.elements" check "$ex/tendon-manipulator.json" --set 'rod.elements="ten"'
expect_error 1 "loads.0.tension" check "$ex/tendon-manipulator.json" --set loads.0.tension=1e999
expect_error 1 "stages.0.load_steps" check "$ex/two-helical-segments.json" --set stages.0.load_steps=0
expect_error 1 "loads.0.frame" check "$ex/two-helical-segments.json" --set loads.0.frame=sideways
expect_error 1 'stages.0.stability: expected true, false or "keep"' check "$ex/euler-column.json" --set stages.0.stability=maybe
printf '{"rod": {"length": 1, "elements": 4, "material": {"E": 1, "G": 1}, "sections": [{"shape": "circle", "radius": 0.1}], "colour": 3}}' > "$tmp/unknown.json"
expect_error 1 "rod.colour" check "$tmp/unknown.json"
printf '{"rod": {"length": 1, "elements": 4, "material": {"G": 1}, "sections": [{"shape": "circle", "radius": 0.1}]}}' > "$tmp/missing.json"
expect_error 1 "rod.material.E" check "$tmp/missing.json"
printf '{"rod": {"length": 1, "elements": 4,, }}' > "$tmp/syntax.json"
expect_error 1 "syntax.json" check "$tmp/syntax.json"
expect_error 1 "nonexistent.json" run "$tmp/nonexistent.json"
expect_error 1 "boundary_conditions" run "$ex/tendon-manipulator.json" -o "$tmp/x" --set 'boundary_conditions=[]'
expect_error 1 "cannot" run "$ex/tendon-manipulator.json" -o /proc/cosserat-no-such-dir/x
expect_error 1 "unknown command" frobnicate "$ex/tendon-manipulator.json"

# derived quantities outside their documented ranges (docs/scenario.md) are refused at check
w="$ex/wilberforce.json"
expect_error 1 "rod.reference.origin.2: must be within +-1e+12 (the range of coordinates), got 1e+20" check "$w" --set 'rod.reference.origin=[0, 0, 1e20]'
expect_error 1 "rod.reference.radius: must be in [1e-12, 1e+12] (the range of lengths), got 4.94066e-324" check "$w" --set rod.reference.radius=5e-324
expect_error 1 "rod.length: must be in [1e-12, 1e+12] (the range of lengths), got 1e+308" check "$w" --set rod.length=1e308
expect_error 1 "rod.sections.0: the EA of" check "$w" --set rod.material.E=1e300 --set rod.sections.0.radius=1
expect_error 1 "rigid_bodies.0.center.0: must be within +-1e+12" check "$w" --set 'rigid_bodies.0.center=[1e13, 0, 0]'
printf '{"rod": {"elements": 2, "material": {"E": 1, "G": 1}, "reference": {"type": "nodes", "positions": [[0, 0, 0], [1e300, 0, 0], [1e300, 1, 0]], "quaternions": [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]}, "sections": [{"shape": "circle", "radius": 0.1}]}}' > "$tmp/far.json"
expect_error 1 "rod.reference.positions.1.0: must be within +-1e+12 (the range of coordinates), got 1e+300" check "$tmp/far.json"
# the memory estimate: 2e8 elements fail fast (not OOM-killed), the limit can be set
unset COSSERAT_MAX_MEMORY
expect_error 1 "rod.elements: 200000000 elements need about 600 GB" check "$w" --set rod.elements=200000000 --set 'stages=[{"type": "static"}]'
expect_error 1 "more than the limit of 0.105 GB (--max-memory)" check "$w" --set rod.elements=100000 --max-memory 100M
export COSSERAT_MAX_MEMORY=1M
expect_error 1 "(COSSERAT_MAX_MEMORY)" check "$w"
export COSSERAT_MAX_MEMORY=lots
expect_error 1 "COSSERAT_MAX_MEMORY: expected a size" check "$w"
unset COSSERAT_MAX_MEMORY
expect_error 1 "--max-memory: expected a size" check "$w" --max-memory 3Q
expect_error 1 "--threads: expected a number from 1 to 64" run "$ex/tendon-manipulator.json" --threads 0
# --threads is accepted (below 2e4 nodes the static solve stays on one thread: same output)
"$cli" run "$ex/tendon-manipulator.json" -o "$tmp/t2" --set rod.elements=50 --set stages.0.load_steps=4 --threads 2 >/dev/null 2>&1
check "--threads 2 run, same nodes.csv" cmp -s "$tmp/t/nodes.csv" "$tmp/t2/nodes.csv"
check "--max-memory none lifts the limit" bash -c "COSSERAT_MAX_MEMORY=1M '$cli' check '$w' --max-memory none | grep -q ok"
# keys and values with control characters are shown escaped; deep nesting is named
printf '{"rod": {"x\\u001b[31m\\nkey": 1}}' > "$tmp/ctl.json"
expect_error 1 'rod.x\u001b[31m\nkey: unknown key' check "$tmp/ctl.json"
python3 -c "print('[' * 5000 + ']' * 5000)" > "$tmp/deep.json"
expect_error 1 "JSON nesting deeper than 1000 levels" check "$tmp/deep.json"
# a run interrupted in its static stage lists only the files it wrote (no series.csv)
"$cli" run "$w" -o "$tmp/si" --set rod.elements=20000 --set stages.0.load_steps=200 > "$tmp/si.out" 2> "$tmp/si.err" &
pid=$!
for _ in $(seq 1 400); do [ -f "$tmp/si/rod_0001.vtp" ] && break; sleep 0.02; done
kill -INT "$pid"
wait "$pid"
code=$?
check "static-stage interrupt: exit 130" test "$code" -eq 130
check "static-stage interrupt: message says not resumable" grep -q "static stages are not resumable" "$tmp/si.err"
check "static-stage interrupt: no series.csv listed or written" bash -c "! grep -q series '$tmp/si.out' && ! grep -q series '$tmp/si/summary.json' && [ ! -e '$tmp/si/series.csv' ]"
check "static-stage interrupt: every listed output exists" bash -c "for f in \$(grep '^  outputs' '$tmp/si.out' | sed 's/^  outputs *//; s/,/ /g'); do [ -e \"\$f\" ] || exit 1; done"

# solver failure: exit 2, message says where, last converged state kept on disk
"$cli" run "$ex/two-helical-segments.json" -o "$tmp/f" --set stages.0.load_steps=1 --set stages.0.max_iterations=2 --set stages.0.max_halvings=1 >"$tmp/f.out" 2>"$tmp/f.err"
code=$?
check "solver failure exits 2" test "$code" -eq 2
check "failure message names the load step" grep -q "load step" "$tmp/f.err"
check "failure keeps nodes.csv" test -s "$tmp/f/nodes.csv"
check "failure summary says not converged" grep -q '"converged":[[:space:]]*false' "$tmp/f/summary.json"
exit $fail
