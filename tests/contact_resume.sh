#!/usr/bin/env bash
# A dynamic contact run interrupted by SIGINT and resumed ends as the uninterrupted run does:
# examples/cable-on-ground.json (100 elements, 3 s, rtol 1e-7) is cut at t ~ 0.6 s, while a slip
# zone spreads from the pulled end through the sticking cord. The checkpoint holds the contact's
# stick anchors, multipliers and stick/slide states, so the resumed rows and final nodes equal
# the uninterrupted run's to the integrator's tolerance (measured: positions 1e-7..3e-7 m apart
# after 2.4 s of sliding, 8.19 m; bitwise equal only where the uninterrupted run happened to
# form a fresh Jacobian at the cut: the resumed integrator forms one, so Newton's iterates differ
# at its tolerance). Re-anchored at the resumed state instead (a checkpoint without the
# contact), sliding nodes stuck again and sticking ones lost their stored friction: the cord
# ended 4.7-7.0 mm behind. A checkpoint of other obstacles or contact options is refused.
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ex="$src/examples/cable-on-ground.json"
sets=(--set rod.elements=100 --set stages.1.t_end=3 --set stages.1.output_dt=0.002
      --set stages.1.checkpoint_interval=0.01 --set stages.1.rtol=${RTOL:-1e-7} --set stages.1.atol=${ATOL:-1e-10} -q)
"$cli" run "$ex" -o "$tmp/full" "${sets[@]}" > /dev/null 2>&1 || { echo "FAIL uninterrupted run"; exit 1; }
rows=300 # t = 0.6 s: part of the cord slides, the rest sticks
code=0
for attempt in 1 2 3 4; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 2000 0.002 "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 3)) # finished before the interrupt: interrupt earlier
done
if [ "$code" -ne 130 ]; then echo "FAIL could not interrupt the run (exit $code)"; exit 1; fi
cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))

# the obstacles are part of the model's fingerprint
for change in obstacles.0.friction.static=0.7 obstacles.0.point=[0,0,-0.001] contact.stiffness=1e5; do
    rm -rf "$tmp/other" && cp -r "$tmp/cut" "$tmp/other"
    "$cli" run "$ex" -o "$tmp/other" "${sets[@]}" --set "$change" --resume > "$tmp/other.out" 2>&1
    c=$?
    if [ "$c" -ne 1 ] || ! grep -q "does not belong to this scenario" "$tmp/other.out"; then
        bad "resume with $change: exit $c, $(head -c 300 "$tmp/other.out")"
    else ok "a checkpoint is refused after $change"; fi
done

"$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" --resume > "$tmp/res.out" 2>&1 || { echo "FAIL resume: $(cat "$tmp/res.out")"; exit 1; }
python3 - "$tmp/full" "$tmp/cut" "$cut_rows" <<'PY' || fail=1
import csv, sys
full, cut, cut_rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
def table(path):
    rows = list(csv.reader(open(path)))
    return rows[0], [[float(v) for v in r] for r in rows[1:]]
bad = 0
hs, a = table(f"{full}/series.csv")
hs2, b = table(f"{cut}/series.csv")
hn, na = table(f"{full}/nodes.csv")
hn2, nb = table(f"{cut}/nodes.csv")
if hs != hs2 or hn != hn2 or len(a) != len(b) or len(na) != len(nb):
    print(f"FAIL   resumed: {len(b)} series rows, uninterrupted {len(a)} (or other columns)")
    sys.exit(1)
def worst(h, x, y, cols):
    return max(abs(r[h.index(c)] - s[h.index(c)]) for c in cols for r, s in zip(x, y))
# positions: the rows' tip and the final nodes (m); contact forces: the final nodes' and the
# rows' normal total (N, against the cord's weight 1.695 N)
dpos = max(worst(hs, a, b, ["tip_x", "tip_y", "tip_z"]), worst(hn, na, nb, ["x", "y", "z"]))
dfor = max(worst(hs, a, b, ["contact_normal_force"]), worst(hn, na, nb, ["contact_fx", "contact_fy", "contact_fz"]))
ok = dpos <= 1e-5 and dfor <= 1e-6 * 1.695 and 0 < cut_rows < len(a) - 10
print(f"{'ok    ' if ok else 'FAIL  '} resumed after {cut_rows} of {len(a)} series rows: largest position difference "
      f"{dpos:.3g} m (bound 1e-5), contact force difference {dfor:.3g} N (bound 1.7e-6); end node x "
      f"{nb[-1][1]:.9g} m, uninterrupted {na[-1][1]:.9g} m")
sys.exit(not ok)
PY
exit $fail
