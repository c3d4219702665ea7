#!/bin/bash
# Contact of a rod with itself (docs/scenario.md `contact.self`) through the CLI:
#   two clamped–clamped beams crossing at midspans, made of one rod (tests/selfcontact_crossing.py),
#   the upper one pressed by a central force P: the contact force N and both midspan deflections
#   against the closed form N = P c2/(c1 + c2), δ = N c1 (Timoshenko beams, c_i = L³/(192 EI) +
#   L/(4 G A)): within 0.05 % (N) and 0.1 % (δ) at 64/80 elements, the error falling as h² (32/40
#   → 64/80: Richardson's extrapolation within 5e-5 of the closed form), the gap closed to the
#   tolerance (1e-10 m);
#   refusals at check naming the key: contact.self in the lgvi and port_hamiltonian models, in a
#   dynamic stage, on the arc-length path, in an assembly, not a boolean, and a rod that starts
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

# refusals at check
python3 "$gen" "$tmp/c.json" 16 20 > /dev/null
expect_error 1 "contact.self: contact of a rod with itself is the mixed_discrete model's" check "$tmp/c.json" --set model=lgvi
expect_error 1 "contact.self: contact of a rod with itself is the mixed_discrete model's" check "$tmp/c.json" \
    --set model=port_hamiltonian
expect_error 1 "contact.self: self-contact is available in static stages only (stage 0 is dynamic)" check "$tmp/c.json" \
    --set 'stages=[{"type":"dynamic","t_end":0.1,"output_dt":0.01,"rtol":1e-6,"atol":1e-9}]' --set rod.material.rho=1000
expect_error 1 "stages.0.path: the arc-length path does not handle contact.self" check "$tmp/c.json" \
    --set 'stages=[{"type":"static","path":"arc_length"}]'
expect_error 1 "contact.self: must be true or false" check "$tmp/c.json" --set contact.self=1
python3 "$gen" "$tmp/inside.json" 16 20 0.014 -0.002 > /dev/null
expect_error 1 "contact.self: the rod starts inside itself: the segment of nodes" check "$tmp/inside.json"
exit $fail
