#!/usr/bin/env bash
# The solver never reports a wrong answer as right (CLI): rigid shear / extension
# statics converge to a small residual or fail with exit 2, the fuzz input that
# once "converged" with a diverged state ends finite, and a dynamic run whose step
# size collapses (Wilberforce at 40 elements, an unstable discrete model) ends
# promptly with exit 2 and "step size too small".
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# converged with a finite residual below 1e-6, or exit 2 naming the reason
check_static() { # name, then cli arguments
    local name="$1"; shift
    "$cli" run "$@" -o "$tmp/$name" -q > "$tmp/$name.out" 2>&1
    local code=$?
    if [ "$code" -eq 0 ]; then
        python3 - "$tmp/$name/summary.json" <<'PY' || { echo "FAIL $name: exit 0 but not a verified equilibrium"; fail=1; return; }
import json, math, sys
d = json.load(open(sys.argv[1]))
r = d["final_residual"]
assert d["converged"] is True and math.isfinite(r) and r < 1e-6, r
assert all(math.isfinite(v) for v in d["tip"]["position"])
PY
        echo "ok     $name: converged, residual $(python3 -c "import json; print(json.load(open('$tmp/$name/summary.json'))['final_residual'])")"
    elif [ "$code" -eq 2 ] && grep -q "load step" "$tmp/$name.out"; then
        echo "ok     $name: exit 2: $(tail -c 300 "$tmp/$name.out")"
    else
        echo "FAIL $name: exit $code: $(cat "$tmp/$name.out")"; fail=1
    fi
}

ex="$src/examples/tendon-manipulator.json"
check_static shear "$ex" --set 'rod.rigid_strains=["gamma_y","gamma_z"]' --set output.vtk=false
check_static shear_extension "$ex" --set 'rod.rigid_strains=["gamma_x","gamma_y","gamma_z"]' --set output.vtk=false
fuzz=/work/shared/fuzz-regress/shear-rigid-false-convergence.json
[ -f "$fuzz" ] && check_static fuzz_shared "$fuzz"

# step-size collapse: must end promptly (the old behaviour sat for > 10 minutes)
timeout 120 "$cli" run "$src/examples/wilberforce.json" -o "$tmp/w40" --set rod.elements=40 \
    --set stages.1.t_end=0.05 --set output.vtk=false -q > "$tmp/w40.out" 2>&1
code=$?
if [ "$code" -eq 2 ] && grep -q "step size too small (h = .*) at t = " "$tmp/w40.out"; then
    echo "ok     wilberforce n=40: exit 2: $(grep -o 'step size too small[^;]*' "$tmp/w40.out")"
else
    echo "FAIL wilberforce n=40: exit $code (want 2 with 'step size too small'): $(cat "$tmp/w40.out")"; fail=1
fi
exit $fail
