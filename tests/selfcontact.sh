#!/bin/bash
# Contact of a rod with itself (docs/scenario.md `contact.self`) through the CLI:
#   two clamped–clamped beams crossing at midspans, made of one rod (tests/selfcontact_crossing.py),
#   the upper one pressed by a central force P: the contact force N and both midspan deflections
#   against the closed form N = P c2/(c1 + c2), δ = N c1 (Timoshenko beams, c_i = L³/(192 EI) +
#   L/(4 G A)): within 0.05 % (N) and 0.1 % (δ) at 64/80 elements, the error falling as h² (32/40
#   → 64/80: Richardson's extrapolation within 5e-5 of the closed form), the gap closed to the
#   tolerance (1e-10 m);
#   a beam dropped onto the other (dynamics): it lands, the gap stays above -5 % of the radius, the
#   energy does not grow, the steps stay few;
#   a rope far from itself: self_contact_gap is 2a (it was +inf and failed the run);
#   refusals at check naming the key: contact.self in the port_hamiltonian model (the lgvi rod's:
#   tests/test_lgvi_selfcontact.c), on the
#   arc-length path, in an assembly, not a boolean, and a rod that starts
#   inside itself (naming the segments' nodes and the depth).
# Usage: selfcontact.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad, expect_error
gen="$src/tests/selfcontact_crossing.py"
for n in "32 40" "64 80"; do
    set -- $n
    ids=$(python3 "$gen" "$tmp/c$1.json" "$1" "$2")
    if ! "$cli" run "$tmp/c$1.json" -q -o "$tmp/c$1" > "$tmp/c$1.log" 2>&1; then
        bad "crossing beams ($1/$2 elements): the run failed: $(head -c 400 "$tmp/c$1.log")"
        continue
    fi
    python3 "$gen" --check "$tmp/c$1" $ids > "$tmp/r$1.json"
    echo "       crossing $1/$2: $(cat "$tmp/r$1.json")"
done
python3 - "$tmp/r32.json" "$tmp/r64.json" <<'PY' && ok "crossing beams: contact force and deflections vs the closed form, O(h²)" || bad "crossing beams"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["converged"] and b["converged"]
assert abs(b["N_err"]) < 5e-4 and abs(b["d1_err"]) < 1e-3 and abs(b["d2_err"]) < 1e-3, b
for k in ("N_err", "d1_err"):  # second order: Richardson's extrapolation hits the closed form
    assert abs((4 * b[k] - a[k]) / 3) < 5e-5, (k, a[k], b[k])
assert abs(a["gap"]) <= 1e-10 and abs(b["gap"]) <= 1e-10, (a["gap"], b["gap"])
PY

# dynamics: beam 2 as a cantilever 5 mm above beam 1, dropped by gravity and a tip force of 14 mN,
# the contact at the middle of both segments (17/21 elements) and node on node (16/20, where the
# sagging beam's concave node counts the contact twice): it lands and bounces on beam 1 for the
# last 0.1 s (measured: the smallest gap -118 µm and -64 µm, 2.4 % and 1.3 % of the radius; the
# energy (kinetic + elastic + gravity - the loads' work) at most 2.5e-7 J above its start of
# 0.0192 J (1.3e-5 of it), the penalty's energy not counted; 1955 and 3199 steps to 0.15 s)
for n in "17 21" "16 20"; do
    set -- $n
    python3 "$gen" "$tmp/d$1.json" "$1" "$2" 0.014 0.005 dynamic > /dev/null
    if ! "$cli" run "$tmp/d$1.json" -q -o "$tmp/d$1" > "$tmp/d$1.log" 2>&1; then
        bad "dropped beam ($1/$2 elements): the run failed: $(head -c 400 "$tmp/d$1.log")"
        continue
    fi
    python3 "$gen" --check-dynamic "$tmp/d$1" > "$tmp/rd$1.json"
    echo "       drop $1/$2: $(cat "$tmp/rd$1.json")"
    python3 - "$tmp/rd$1.json" <<'PY' && ok "dropped beam ($1/$2): lands, gap >= -0.05 r, energy not growing, < 10000 steps" || bad "dropped beam ($1/$2)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["converged"] and abs(d["t_end"] - 0.15) < 1e-9, d
assert d["touching"] >= 20, d  # it did land: a pair pressing at 20 of the 150 outputs at least
assert d["min_gap"] >= -0.05 * 0.005, d  # the penalty's penetration, 5 % of the radius at most
assert d["gain"] <= 1e-4 * d["E0"], d  # no energy from nowhere (a penalty is conservative; measured 1.3e-5)
assert d["steps"] < 10000, d  # the failing version took 24101 steps to t = 0.053 s
PY
done

# a rope far from itself everywhere (no segment pair within 2a): series.csv's self_contact_gap is
# 2a, not +inf (which failed the run at its first row: exit 2, "self_contact_gap is inf")
cat > "$tmp/far.json" <<'JSON'
{"rod": {"length": 1, "elements": 10, "material": {"E": 1e9, "G": 4e8, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.005}]},
 "boundary_conditions": [{"type": "clamp", "node": "start"}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "contact": {"self": true},
 "stages": [{"type": "dynamic", "t_end": 0.002, "output_dt": 0.001}],
 "output": {"vtk": false}}
JSON
if "$cli" run "$tmp/far.json" -q -o "$tmp/far" > "$tmp/far.log" 2>&1 &&
    python3 - "$tmp/far/series.csv" <<'PY'; then
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3, rows
assert all(float(r["self_contact_gap"]) == 0.01 and float(r["self_contact_pairs"]) == 0 for r in rows), rows
PY
    ok "a rope far from itself: self_contact_gap = 2a (no pair that near), the run ends"
else
    bad "a rope far from itself: $(head -c 400 "$tmp/far.log")"
fi

# refusals at check
python3 "$gen" "$tmp/c.json" 16 20 > /dev/null
expect_error 1 "contact.self: contact of a rod with itself is the mixed_discrete and lgvi models'" check "$tmp/c.json" \
    --set model=port_hamiltonian
expect_error 1 "stages.0.path: the arc-length path does not handle contact.self" check "$tmp/c.json" \
    --set 'stages=[{"type":"static","path":"arc_length"}]'
expect_error 1 "contact.self: must be true or false" check "$tmp/c.json" --set contact.self=1
python3 "$gen" "$tmp/inside.json" 16 20 0.014 -0.002 > /dev/null
expect_error 1 "contact.self: the rod starts inside itself: the segment of nodes" check "$tmp/inside.json"
exit $fail
