#!/usr/bin/env bash
# kill -9 soak: a short dynamic run (Wilberforce, n = 200, 3 s) killed with SIGKILL at
# random times, three times in a row, each time continued with --resume from whatever
# checkpoint was on disk (written every 0.02 s of wall time, atomically), then resumed
# to the end. The result must equal the uninterrupted run: the same series rows at the
# same times, the bob within 2e-5 m in every row, and the stage's step count within 10 %
# (each resume evaluates a fresh Jacobian where the uninterrupted run may reuse an older
# one, see docs/radau.md; three resumes early in the run moved it by up to 7 %).
# A kill before the first checkpoint leaves nothing to resume: that run starts afresh.
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$src/examples/wilberforce.json"
sets=(--set rod.elements=200 --set stages.1.t_end=3 --set stages.1.checkpoint_interval=0.02 --set output.vtk=false -q)
steps_of() { grep -A14 '"dynamic"' "$1/summary.json" | grep '"steps"' | tr -dc 0-9; }
fail=0
"$cli" run "$ex" -o "$tmp/full" "${sets[@]}" > /dev/null 2>&1 || { echo "FAIL uninterrupted run"; exit 1; }
RANDOM=$$
resume=()
for kill in 1 2 3; do
    delay=$(printf '0.%02d' $((30 + RANDOM % 60)))
    "$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" "${resume[@]}" > /dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -KILL "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    code=$?
    t=$(tail -1 "$tmp/cut/series.csv" 2> /dev/null | cut -d, -f1)
    echo "ok     kill -9 #$kill after ${delay} s (exit $code, series up to t = ${t:-none})"
    # resume when a checkpoint exists, else start afresh (killed in the static stage)
    if [ -s "$tmp/cut/checkpoint.bin" ]; then resume=(--resume); else resume=(); fi
done
"$cli" run "$ex" -o "$tmp/cut" "${sets[@]}" "${resume[@]}" > "$tmp/res.out" 2>&1 ||
    { echo "FAIL final resume: $(cat "$tmp/res.out")"; exit 1; }
rows_full=$(($(wc -l < "$tmp/full/series.csv") - 1))
rows_res=$(($(wc -l < "$tmp/cut/series.csv") - 1))
[ "$rows_res" -eq "$rows_full" ] || { echo "FAIL resumed series has $rows_res rows, uninterrupted $rows_full"; fail=1; }
s_full=$(steps_of "$tmp/full") s_res=$(steps_of "$tmp/cut")
if [ -z "$s_res" ] || [ $((s_res - s_full)) -gt $((s_full / 10 + 3)) ] || [ $((s_full - s_res)) -gt $((s_full / 10 + 3)) ]; then
    echo "FAIL after the kills the stage took ${s_res:-?} steps, uninterrupted $s_full"; fail=1
else echo "ok     after the kills: $s_res steps in all, uninterrupted $s_full"; fi
bx=$(head -1 "$tmp/full/series.csv" | tr , '\n' | grep -n '^bob_x$' | cut -d: -f1)
cols="1,$bx-$((bx + 2))"
paste -d, <(cut -d, -f$cols "$tmp/full/series.csv") <(cut -d, -f$cols "$tmp/cut/series.csv") | tail -n +2 | awk -F, '
    { if ($1 != $5) bad_t++; d = 0; for (k = 2; k <= 4; ++k) { e = $k - $(k + 4); if (e < 0) e = -e; if (e > d) d = e } if (d > worst) worst = d }
    END { printf "ok     max bob position difference %.3g m over %d rows, %d rows at other times\n", worst, NR, bad_t; if (bad_t > 0 || worst > 2e-5) exit 1 }' || fail=1
grep -q '"converged":[[:space:]]*true' "$tmp/cut/summary.json" || { echo "FAIL summary not converged"; fail=1; }
exit $fail
