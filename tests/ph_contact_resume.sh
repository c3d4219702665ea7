#!/usr/bin/env bash
# The port-Hamiltonian rod bouncing on a plane (docs/port-hamiltonian.md "Contact"), interrupted by
# SIGINT and resumed: its contact is a potential of the positions (no contact state), so the
# checkpointed state is the whole state and the resumed series equals the uninterrupted one row for
# row; a checkpoint of other planes or contact options is refused (the fingerprint holds them). The
# same with friction (docs/port-hamiltonian.md "Friction"): its state, the last midpoint velocity
# that chooses mu_s or mu_k, is in the checkpoint, and other coefficients or stick speed are refused.
# The same on a rough sphere moving under the rod: another radius, velocity or centre is refused;
# and on one driven by a table of poses (docs/scenario.md `obstacles.K.motion`): another row is refused.
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cat > "$tmp/drop.json" << 'JSON'
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 5, "material": {"E": 1e7, "G": 4e6, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.01}]},
 "obstacles": [{"type": "plane", "name": "floor", "point": [0, 0, -0.015], "normal": [0, 0, 1]}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "stages": [{"type": "dynamic", "t_end": 4, "output_dt": 0.01, "time_step": 2.5e-4, "checkpoint_interval": 0.05}]}
JSON
cat > "$tmp/rough.json" << 'JSON'
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 5, "material": {"E": 1e7, "G": 4e6, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.01}],
         "reference": {"type": "straight", "quaternion": [0.99995000041666, 0, -0.0099998333341667, 0]}},
 "obstacles": [{"type": "plane", "name": "floor", "point": [0, 0, -0.015], "normal": [0, 0, 1],
                "friction": {"static": 0.5, "kinetic": 0.3}}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "force_density", "value": [0, 2, 0],
            "time": {"type": "table", "points": [[0, 1], [0.05, 1], [0.05025, 0]]}}],
 "stages": [{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "time_step": 2.5e-4, "checkpoint_interval": 0.05}]}
JSON
cat > "$tmp/ball.json" << 'JSON'
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 5, "material": {"E": 1e7, "G": 4e6, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.01}]},
 "obstacles": [{"type": "sphere", "name": "ball", "center": [0.5, 0, -0.315], "radius": 0.3,
                "velocity": [0.02, 0, 0], "friction": {"static": 0.5, "kinetic": 0.3}}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "stages": [{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "time_step": 2.5e-4, "checkpoint_interval": 0.05}]}
JSON
cat > "$tmp/driven.json" << 'JSON'
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 5, "material": {"E": 1e7, "G": 4e6, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.01}]},
 "obstacles": [{"type": "sphere", "name": "ball", "center": [0.5, 0, -0.315], "radius": 0.3,
                "motion": [[0, 0.5, 0, -0.315], [0.5, 0.52, 0, -0.31], [1, 0.55, 0, -0.305]],
                "friction": {"static": 0.5, "kinetic": 0.3}}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "stages": [{"type": "dynamic", "t_end": 2, "output_dt": 0.01, "time_step": 2.5e-4, "checkpoint_interval": 0.05}]}
JSON
sets=(--set output.vtk=false -q)
run_case() {
local name="$1"
shift
"$cli" run "$tmp/$name.json" -o "$tmp/full" "${sets[@]}" > /dev/null 2>&1 || { echo "FAIL uninterrupted run"; exit 1; }
rows=150
code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 400 0.02 "$cli" run "$tmp/$name.json" -o "$tmp/cut" "${sets[@]}" > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4))
done
if [ "$code" -ne 130 ]; then echo "FAIL $name: could not interrupt the run (exit $code)"; exit 1; fi
cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
for change in "$@"; do
    rm -rf "$tmp/other" && cp -r "$tmp/cut" "$tmp/other"
    "$cli" run "$tmp/$name.json" -o "$tmp/other" "${sets[@]}" --set "$change" --resume > "$tmp/other.out" 2>&1
    c=$?
    if [ "$c" -ne 1 ] || ! grep -q "does not belong to this scenario" "$tmp/other.out"; then
        bad "$name: resume with $change: exit $c, $(head -c 300 "$tmp/other.out")"
    else ok "$name: a checkpoint is refused after $change"; fi
done
if ! "$cli" run "$tmp/$name.json" -o "$tmp/cut" "${sets[@]}" --resume > "$tmp/res.out" 2>&1; then
    bad "$name: resume: $(cat "$tmp/res.out")"
elif cmp -s "$tmp/full/series.csv" "$tmp/cut/series.csv"; then
    ok "$name: interrupted after $cut_rows rows, resumed: series identical to the uninterrupted run"
else
    bad "$name: resumed series differs"; diff "$tmp/full/series.csv" "$tmp/cut/series.csv" | head -4
fi
}
run_case drop 'obstacles.0.point=[0,0,-0.016]' contact.stiffness=2000 contact.radius=0.012
run_case rough 'obstacles.0.friction.static=0.6' 'obstacles.0.friction.kinetic=0.2' contact.stick_speed=2e-5
run_case driven 'obstacles.0.motion.1=[0.5,0.52,0,-0.309]' \
    'obstacles.0.motion=[[0,0.5,0,-0.315],[0.6,0.52,0,-0.31],[1,0.55,0,-0.305]]'
run_case ball obstacles.0.radius=0.29 'obstacles.0.velocity=[0.03,0,0]' 'obstacles.0.center=[0.5,0,-0.316]'
exit $fail
