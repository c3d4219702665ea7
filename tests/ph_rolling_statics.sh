#!/usr/bin/env bash
# Static friction at the contact point of the port-Hamiltonian rod (docs/port-hamiltonian.md "Friction"):
# an unclamped rod (L = 1 m, a = 1 cm, 20 elements) lying on a rough plane (mu_s = 0.5) under its weight w
# per length, pushed sideways by q = mu_s w / 2 per length at every node. Friction acts at the contact point
# a below the centreline, so it has the moment (-a n) x (-q) per length: with the axial torque density
# tau = q a that balances it the rod holds, the plane's tangential reaction -q at every node (its sum -q L
# to 1e-9); without the torque there is no equilibrium (the rod rolls away) and the stage fails with the
# message naming the friction. (`contact.rolling`; the default centre-force law holds the rod without
# the torque.)
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad
cat > "$tmp/side.json" << 'JSON'
{"model": "port_hamiltonian",
 "rod": {"length": 1, "elements": 20, "material": {"E": 1e7, "G": 4e6, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.01}],
         "reference": {"type": "straight", "origin": [0, 0, 0.01]}},
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]},
           {"type": "force_density", "value": [0, 0.7704, 0]},
           {"type": "moment_density", "value": [0.007704, 0, 0]}],
 "obstacles": [{"type": "plane", "name": "ground", "point": [0, 0, 0], "normal": [0, 0, 1],
                "friction": {"static": 0.5, "kinetic": 0.4}}],
 "contact": {"rolling": true},
 "stages": [{"type": "static", "load_steps": 4}],
 "output": {"vtk": false}}
JSON
"$cli" run "$tmp/side.json" -o "$tmp/held" -q > "$tmp/held.log" 2>&1 || bad "sideways push with its torque: $(head -c 400 "$tmp/held.log")"
/usr/bin/python3 - "$tmp" << 'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
N = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/held/nodes.csv"))]
q, L = 0.7704, 1.0
fy = sum(r["contact_fy"] for r in N)
fx = max(abs(r["contact_fx"]) for r in N)
drift = max(abs(r["y"]) for r in N)
# every node's friction is its share of -q (the quadratic elements' Simpson weights l_e (1, 4, 1) / 6)
le, n = L / 20, len(N)
share = [le / 6 * (1 if i in (0, n - 1) else 4 if i % 2 else 2) for i in range(n)]
node = max(abs(r["contact_fy"] / (-q * w) - 1) for r, w in zip(N, share))
msg = (f"pushed sideways by q = {q} N/m with the torque q a: holds, the plane's tangential reaction {fy:.12f} N "
       f"(-q L: {fy / (-q * L) - 1:+.1e}), each node's within {node:.1e} of its share of -q, largest |contact_fx| {fx:.1e} N, largest sideways shift {drift:.2e} m")
open(f"{d}/verdict", "w").write(msg)
sys.exit(0 if abs(fy / (-q * L) - 1) < 1e-9 and node < 1e-9 and fx < 1e-9 and drift < 1e-3 else 1)
PY
if "$cli" run "$tmp/side.json" -o "$tmp/rolls" -q --set 'loads=[{"type": "gravity", "value": [0, 0, -9.81]},
        {"type": "force_density", "value": [0, 0.7704, 0]}]' > "$tmp/rolls.log" 2>&1; then
    bad "sideways push without the torque: the static stage did not fail"
elif grep -q "obstacles.0.friction" "$tmp/rolls.log"; then
    ok "sideways push without the torque: fails, $(grep -o 'obstacles.0.friction[^"]*' "$tmp/rolls.log" | head -c 300)"
else
    bad "sideways push without the torque: failed without naming the friction: $(head -c 400 "$tmp/rolls.log")"
fi
exit $fail
