#!/usr/bin/env bash
# A damped mixed-rod run (examples/damped-cantilever.json) interrupted by SIGINT and
# resumed: the dissipated energy so far is part of the checkpointed integrator memory, so
# the resumed series' energy_dissipated continues where it stopped (matching the
# uninterrupted run to the integrator tolerance) instead of restarting from 0, and
# energy_total + energy_dissipated stays constant across the cut.
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$src/examples/damped-cantilever.json"
sets=(--set stages.1.checkpoint_interval=0.01 --set stages.1.t_end=20 -q)
"$cli" run "$ex" -o "$tmp/full" "${sets[@]}" > /dev/null 2>&1 || { echo "FAIL uninterrupted run"; exit 1; }
rows=4000
code=0
for attempt in 1 2 3 4; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 1000 0.005 "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 3)) # finished before the interrupt: interrupt earlier
done
if [ "$code" -ne 130 ]; then echo "FAIL could not interrupt the run (exit $code)"; exit 1; fi
cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
# the damping is part of the model's fingerprint: a checkpoint of other damping is not resumed
for change in rod.damping.drag=0.05 'rod.damping.relaxation_time=[0,0,0,0,0.01,0.0085324]'; do
    rm -rf "$tmp/other" && cp -r "$tmp/cut" "$tmp/other"
    "$cli" run "$ex" -o "$tmp/other" "${sets[@]}" --set "$change" --resume > "$tmp/other.out" 2>&1
    c=$?
    if [ "$c" -ne 1 ] || ! grep -q "does not belong to this scenario" "$tmp/other.out"; then
        echo "FAIL resume with $change: exit $c, $(cat "$tmp/other.out")"; exit 1
    fi
    echo "ok     a checkpoint is refused after $change"
done
"$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" --resume > "$tmp/res.out" 2>&1 || { echo "FAIL resume: $(cat "$tmp/res.out")"; exit 1; }
col() { head -1 "$1" | tr , '\n' | grep -n "^$2\$" | cut -d: -f1; }
D=$(col "$tmp/full/series.csv" energy_dissipated) H=$(col "$tmp/full/series.csv" energy_total)
[ -n "$D" ] && [ -n "$H" ] || { echo "FAIL no energy_dissipated / energy_total column"; exit 1; }
paste -d, <(cut -d, -f1,$H,$D "$tmp/full/series.csv") <(cut -d, -f1,$H,$D "$tmp/cut/series.csv") | tail -n +2 | awk -F, -v cut="$cut_rows" '
    NR == 1 { e0 = $5 + $6 }
    { if ($1 != $4) bad_t++; d = $3 - $6; if (d < 0) d = -d; if (d > worst) worst = d; if ($3 > dmax) dmax = $3
      b = $5 + $6 - e0; if (b < 0) b = -b; if (b > bal) bal = b; if ($6 < prev) mono = 1; prev = $6; n++ }
    END { bad = bad_t > 0 || n < 2 || cut >= n || !(dmax > 0) || worst > 1e-4 * dmax || bal > 1e-4 * e0 || mono
          printf "%s cut after %d of %d rows; resumed D(T) %.6g J; max |D_resumed - D_full| %.3g J (%.2g of D); max |E + D - E0| %.3g J\n", bad ? "FAIL  " : "ok    ", cut, n, prev, worst, worst / dmax, bal
          if (bad) exit 1 }' || { echo "FAIL resumed dissipation differs"; exit 1; }
exit 0
