#!/usr/bin/env bash
# Never a wrong answer reported as right, round two (issue 26): exit 0 only for a converged,
# finite answer, and nothing lost. Each part reproduces one finding of the issue.
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$src/examples"
fail=0
ok() { echo "ok     $*"; }
bad() { echo "FAIL   $*"; fail=1; }
# expect_error CODE KEY-FRAGMENT [cosserat args...]: exit code and message naming the key
expect_error() {
    local code="$1" key="$2"
    shift 2
    timeout 60 "$cli" "$@" > "$tmp/out" 2> "$tmp/err"
    local got=$?
    if [ "$got" -ne "$code" ] || ! grep -qF -- "$key" "$tmp/err"; then
        bad "$* -> exit $got (want $code naming '$key'): $(head -c 300 "$tmp/err")"
    else
        ok "exit $code naming '$key': $(head -c 200 "$tmp/err")"
    fi
}
# every number of a converged run's outputs is finite
all_finite() { ! grep -qiE '(^|[,[:space:]:])-?(nan|inf)' "$1"/*.csv "$1"/summary.json; }

# ---- item 3: a driven clamp with a huge rotational drag: energy_dissipated overflowed to inf
# in series.csv with exit 0 and "converged": true. The damping coefficients are range-checked
# at `check` like the section resultants (0 or [1e-150, 1e150]) and every series row is checked
# finite before it is written.
cat > "$tmp/driven.json" << 'EOF'
{ "rod": { "length": 1, "elements": 20,
    "sections": [ { "shape": "resultants", "EA": 1e4, "GA_y": 1e4, "GA_z": 1e4, "GJ": 1, "EI_y": 1, "EI_z": 1,
                    "rhoA": 1, "rhoI_y": 1e-3, "rhoI_z": 1e-3 } ],
    "damping": { "rotational_drag": 1e308 } },
  "boundary_conditions": [ { "type": "clamp", "node": "start", "axis": [1, 0, 0], "angle": 1,
                             "time": { "type": "sine", "amplitude": 1, "frequency": 4 } } ],
  "stages": [ { "type": "dynamic", "t_end": 0.1, "output_dt": 0.002 } ],
  "output": { "vtk": false } }
EOF
expect_error 1 "rod.damping.rotational_drag.0: must be 0 or in [1e-150, 1e+150]" check "$tmp/driven.json"
expect_error 1 "rod.damping.rotational_drag.0" run "$tmp/driven.json" -o "$tmp/d3" -q
expect_error 1 "rod.damping.drag.1" check "$tmp/driven.json" --set 'rod.damping={"drag":[0,1e200,0]}'
# a relaxation time is checked through the coefficient it gives, K tau (EI_y = 1: 1e151)
expect_error 1 "rod.damping.relaxation_time.4: gives the EI_y damping coefficient 1e+151" \
    check "$tmp/driven.json" --set 'rod.damping={"relaxation_time":[0,0,0,0,1e151,0]}'
# the largest drag in range runs to a finite, converged answer
timeout 60 "$cli" run "$tmp/driven.json" -o "$tmp/d3ok" -q --set rod.damping.rotational_drag=1e150 > /dev/null 2>&1
code=$?
if [ "$code" -eq 0 ] && all_finite "$tmp/d3ok" && grep -q '"converged":[[:space:]]*true' "$tmp/d3ok/summary.json"; then
    ok "rotational_drag 1e150: exit 0, every output finite (energy_dissipated $(tail -1 "$tmp/d3ok/series.csv" | awk -F, '{print $NF}'))"
elif [ "$code" -eq 2 ]; then ok "rotational_drag 1e150: exit 2"
else bad "rotational_drag 1e150: exit $code, or non-finite outputs with exit 0"; fi

# ---- item 9: the parser is strict JSON: no leading zeros, no bare decimal points
for v in 0125 125. -.5 1.e5 -01 00; do
    sed "s/\"t_end\": 0.1/\"t_end\": $v/" "$tmp/driven.json" | sed 's/1e308/1/' > "$tmp/num.json"
    expect_error 1 "line 7, column 45: \"$v\" is not a JSON number" check "$tmp/num.json"
done
for v in 0.5 1e-1 1E+0 0e0 -0.0e-0; do # valid JSON numbers still parse (t_end > 0 decides)
    sed "s/\"t_end\": 0.1/\"t_end\": $v/" "$tmp/driven.json" | sed 's/1e308/1/' > "$tmp/num.json"
    timeout 60 "$cli" check "$tmp/num.json" > /dev/null 2> "$tmp/err"
    if [ $? -eq 0 ] || grep -q "stages.0.t_end: must be > 0" "$tmp/err"; then ok "JSON number $v parses"
    else bad "JSON number $v: $(cat "$tmp/err")"; fi
done
# an override that is not strict JSON is a string, refused as such
expect_error 1 'stages.0.t_end: expected a number, got "0125"' check "$tmp/driven.json" \
    --set rod.damping.rotational_drag=1 --set stages.0.t_end=0125

exit $fail
