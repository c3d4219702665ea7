#!/bin/bash
# Supports and rigid bodies on joints' nodes in scenario files (mixed_discrete assemblies),
# through the CLI:
#   the three-hinged arch with the right rod's support moved onto the crown's joint node
#                           (clamped there): the reactions in summary.json, the support on the
#                           joint node's (its own, not the joint's) included, balance the load
#                           P = 20 kN (global equilibrium, to 1e-9 of P)
#   a pendulum on a hinge at a clamped post's node, a rigid body welded at the hinge's node of
#                           the bar, a dynamic stage: at every sample the post's clamp reaction
#                           equals the joint's force on the post plus the post's weight (its
#                           node does not move and the stiff post barely vibrates: 5e-10 of the
#                           force), and the energy is conserved (rtol 1e-8)
# Usage: assembly_joint_supports.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

arch="$src/examples/three-hinged-arch.json"
if timeout -k 5 60 "$cli" run "$arch" -o "$tmp/arch" --quiet --set boundary_conditions.1.node=right:start \
    --set 'boundary_conditions.1.hold=["x", "y", "z", "rx", "ry", "rz"]' > /dev/null 2> "$tmp/err"; then
    if msg=$("$py" - "$tmp/arch/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
R = s["reactions"]
nodes = sorted((r["rod"], r["rod_node"]) for r in R)
assert nodes == [("left", 0), ("right", 0)], nodes
f = [sum(r["force"][k] for r in R) for k in range(3)]
f[2] -= 20000.0  # the load (0, 0, -20000)
err = max(abs(v) for v in f)
assert err < 1e-9 * 20000.0, f
print("sum of the reactions and the load %.3g N" % err)
PY
    ); then ok "arch, a clamp on the crown's joint node: $msg"; else bad "arch: $msg"; fi
else
    bad "arch with a support on the crown's node: $(head -c 300 "$tmp/err")"
fi

cat > "$tmp/pend.json" <<'JSON'
{
    "name": "hinge-on-clamped-post",
    "model": "mixed_discrete",
    "rods": [
        {"name": "post", "length": 0.5, "elements": 4,
         "material": {"E": 2e11, "G": 8e10, "rho": 7800},
         "sections": [{"shape": "circle", "radius": 0.01}],
         "reference": {"origin": [0, 0, 0], "frame": {"e_x": [0, 1, 0], "e_y": [-1, 0, 0]}}},
        {"name": "bar", "length": 1.0, "elements": 8,
         "material": {"E": 2e11, "G": 8e10, "rho": 7800},
         "sections": [{"shape": "circle", "radius": 0.01}],
         "reference": {"origin": [0, 0, 0]}}
    ],
    "joints": [{"type": "hinge", "name": "pivot", "a": "post:start", "b": "bar:start", "axis": [0, 0, 1]}],
    "boundary_conditions": [{"type": "clamp", "node": "post:start"}],
    "rigid_bodies": [{"name": "bob", "node": "bar:start", "mass": 0.3, "center": [0.05, 0, 0],
                      "inertia": [1e-4, 1e-4, 1e-4]}],
    "loads": [{"type": "gravity", "value": [0, -9.81, 0]}],
    "stages": [{"type": "dynamic", "t_end": 0.3, "output_dt": 0.05, "rtol": 1e-8, "atol": 1e-10}],
    "output": {"track": [{"name": "pivot", "node": "post:start"}, {"name": "tip", "node": "bar:end"}]}
}
JSON
if timeout -k 5 120 "$cli" run "$tmp/pend.json" -o "$tmp/pend" --quiet > /dev/null 2> "$tmp/err"; then
    if msg=$("$py" - "$tmp/pend/series.csv" "$tmp/pend/summary.json" <<'PY'
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
s = json.load(open(sys.argv[2]))
E0 = float(rows[0]["energy_total"])
drift = max(abs(float(r["energy_total"]) - E0) for r in rows)
assert drift < 1e-6 * 3.0, drift  # m g L/2 of the bar: 2.4 J, the body's 0.15 J
assert float(rows[-1]["tip_y"]) < -0.5, rows[-1]["tip_y"]  # it swings
# the clamp's reaction at the end: the joint's force on the post (its node a) and the post's weight
W = 0.5 * 7800 * math.pi * 1e-4 * 9.81
fj = s["joints"][0]["force"]
rc = [r for r in s["reactions"] if r["rod"] == "post"][0]["force"]
err = max(abs(rc[0] + fj[0]), abs(rc[1] + fj[1] - W))
assert err < 1e-6 * math.hypot(*fj[:2]), (rc, fj, W)  # measured 5e-10 of it
print("energy drift %.3g J, clamp vs joint force + the post's weight %.3g N of %.3g N" % (drift, err, math.hypot(*fj[:2])))
PY
    ); then ok "pendulum on a clamped post's node, a body at the hinge: $msg"; else bad "pendulum: $msg"; fi
else
    bad "pendulum on a clamped post's node: $(head -c 300 "$tmp/err")"
fi
exit $fail
