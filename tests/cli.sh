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

# solver failure: exit 2, message says where, last converged state kept on disk
"$cli" run "$ex/two-helical-segments.json" -o "$tmp/f" --set stages.0.load_steps=1 --set stages.0.max_iterations=2 --set stages.0.max_halvings=1 >"$tmp/f.out" 2>"$tmp/f.err"
code=$?
check "solver failure exits 2" test "$code" -eq 2
check "failure message names the load step" grep -q "load step" "$tmp/f.err"
check "failure keeps nodes.csv" test -s "$tmp/f/nodes.csv"
check "failure summary says not converged" grep -q '"converged":[[:space:]]*false' "$tmp/f/summary.json"
exit $fail
