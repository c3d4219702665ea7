#!/bin/bash
# The support examples (issue 10) run through the CLI and give their documented
# numbers against independent references:
#   catenary.json     midspan sag against the extensible closed form (Irvine 1981)
#   euler-column.json midspan deflection against the elastica at P = 1.064 P_cr
#   greenhill.json    the rod's total twist equals the imposed 3 turns
# Usage: support_examples.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for ex in catenary euler-column greenhill; do
    if ! "$cli" run "$src/examples/$ex.json" -q -o "$tmp/$ex" > "$tmp/$ex.log" 2>&1; then
        echo "FAIL $ex: the run failed: $(cat "$tmp/$ex.log")"
        fail=1
    fi
done
[ $fail = 0 ] || exit 1
python3 - "$tmp" <<'PY' || fail=1
import csv, json, math, sys
d = sys.argv[1]

def nodes(name):
    return [[float(v) for v in r] for r in list(csv.reader(open(f"{d}/{name}/nodes.csv")))[1:]]

# catenary: S = 10, L0 = 10.5, w = 1 N/m, EA = 1000 N; H from the span equation
S, L0, w, EA = 10.0, 10.5, 1.0, 1000.0
lo, hi = 1e-3, 1e4
for _ in range(200):
    H = math.sqrt(lo * hi)
    if H * L0 / EA + 2 * H / w * math.asinh(0.5 * w * L0 / H) > S: hi = H
    else: lo = H
V0 = 0.5 * w * L0
sag = (math.hypot(H, V0) - H) / w + w * L0 ** 2 / (8 * EA)
got = -min(r[3] for r in nodes("catenary"))
err = abs(got - sag) / sag
print(f"    catenary: sag {got:.6f} m, closed form {sag:.6f} m (rel. {err:.1e})")
assert err < 2e-4, err

# Euler column: P/P_E = (2K(k)/pi)^2, delta/L = k/K(k) (pinned-pinned elastica); K by the AGM
EI, L, GA = 2.0, 1.0, 1e8
Pe = math.pi ** 2 * EI / L ** 2
Pcr = Pe / (1 + Pe / GA)
def K(k):
    a, b = 1.0, math.sqrt(1 - k * k)
    for _ in range(60): a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2 * a)
lo, hi = 1e-9, 0.999
for _ in range(200):
    k = 0.5 * (lo + hi)
    if (2 * K(k) / math.pi) ** 2 * Pcr > 21.0: hi = k
    else: lo = k
delta = k / K(k) * L
got = max(abs(r[3]) for r in nodes("euler-column"))
err = abs(got - delta) / delta
print(f"    euler-column: midspan deflection {got:.4f} L, elastica {delta:.4f} L (rel. {err:.1e})")
assert err < 5e-3, err

# Greenhill: the turns the rod carries
q = [r[4:8] for r in nodes("greenhill")]
tw = 0.0
for a, b in zip(q, q[1:]):
    # x and w of conj(a) * b
    rw = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
    rx = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2]
    tw += 2 * math.atan2(rx, rw)
turns = tw / (2 * math.pi)
print(f"    greenhill: total twist {turns:.7f} turns (imposed 3)")
assert abs(turns - 3) < 1e-5, turns
PY
[ $fail = 0 ] && echo "ok   support examples" || echo "FAIL support examples"
exit $fail
