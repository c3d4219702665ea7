#!/usr/bin/env bash
# SIGINT and --resume for the fixed-step formulations: the resumed run's series equals the
# uninterrupted one row for row, to every printed digit (their states are checkpointed whole).
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
resume_case() { # name file rows-before-interrupt sets...
    local name="$1" ex="$src/examples/$2" rows="$3"
    shift 3
    local sets=("$@" --set output.vtk=false -q)
    "$cli" run "$ex" -o "$tmp/$name-full" "${sets[@]}" > /dev/null 2>&1 || { echo "FAIL $name: uninterrupted run"; fail=1; return; }
    local code=0
    for attempt in 1 2 3; do
        rm -rf "$tmp/$name-cut"
        interrupt_run "$tmp/$name-cut" "$rows" 400 0.02 "$cli" run "$ex" -o "$tmp/$name-cut" "${sets[@]}" > /dev/null 2>&1
        code=$?
        [ "$code" -eq 130 ] && break
        rows=$((rows / 4)) # finished before the interrupt: interrupt earlier
    done
    if [ "$code" -ne 130 ]; then echo "FAIL $name: could not interrupt (exit $code)"; fail=1; return; fi
    local cut_rows=$(($(wc -l < "$tmp/$name-cut/series.csv") - 1))
    "$cli" run "$ex" -o "$tmp/$name-cut" "${sets[@]}" --resume > "$tmp/$name.out" 2>&1 || { echo "FAIL $name: resume: $(cat "$tmp/$name.out")"; fail=1; return; }
    if cmp -s "$tmp/$name-full/series.csv" "$tmp/$name-cut/series.csv"; then
        echo "ok     $name: interrupted after $cut_rows rows, resumed: series identical to the uninterrupted run"
    else
        echo "FAIL $name: resumed series differs"; diff "$tmp/$name-full/series.csv" "$tmp/$name-cut/series.csv" | head -4; fail=1
    fi
}
resume_case port_hamiltonian flying-spaghetti.json 40 --set rod.elements=60 --set stages.0.time_step=0.005 \
    --set stages.0.output_dt=0.05 --set stages.0.checkpoint_interval=0.02
resume_case lgvi pure-stretching.json 60 --set rod.elements=300 --set stages.0.time_step=3e-5 --set stages.0.t_end=6 \
    --set stages.0.output_dt=0.03 --set stages.0.checkpoint_interval=0.02
exit $fail
