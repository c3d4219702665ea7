#!/usr/bin/env bash
# The acceptance corpus tests/fuzz-regress/ (inputs a fuzzing campaign found mishandled,
# see its README): each input ends in exit 0 with a converged, finite result, or exit 1/2
# with the message tests/fuzz-regress/expected.txt gives (naming the key and the reason);
# exit 2 also leaves "converged": false and a finite last converged state on disk.
# `check` and `run` agree: check fails exactly when run exits 1.
set -u
unset COSSERAT_MAX_MEMORY  # the elements-int-max-minus-1 message assumes the default limit
cli="$1"
src="$2"
dir="$src/tests/fuzz-regress"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
finite() { ! grep -qiE 'nan|inf' "$1"; }
count=0
while IFS=$'\t' read -r file want regex; do
    case "$file" in ''|'#'*) continue ;; esac
    count=$((count + 1))
    f="$dir/$file"
    [ -f "$f" ] || { echo "FAIL $file: missing"; fail=1; continue; }
    timeout -k 5 60 "$cli" run "$f" -o "$tmp/$file" -q > "$tmp/out" 2> "$tmp/err"
    code=$?
    msg=$(tr -d '\r' < "$tmp/err" | head -c 2000)
    timeout -k 5 60 "$cli" check "$f" > /dev/null 2> "$tmp/cerr"
    ccode=$?
    if [ "$code" -ne "$want" ]; then
        echo "FAIL $file: exit $code (want $want): $msg"; fail=1; continue
    fi
    if [ "$want" -eq 1 ] && [ "$ccode" -ne 1 ]; then echo "FAIL $file: check exits $ccode, run 1"; fail=1; fi
    if [ "$want" -ne 1 ] && [ "$ccode" -ne 0 ]; then echo "FAIL $file: check exits $ccode, run $code"; fail=1; fi
    if [ -n "$regex" ] && ! grep -qE -- "$regex" "$tmp/err"; then
        echo "FAIL $file: message does not match /$regex/: $msg"; fail=1; continue
    fi
    if [ "$want" -ne 1 ]; then
        s="$tmp/$file/summary.json"
        conv=$([ "$want" -eq 0 ] && echo true || echo false)
        if ! grep -q "\"converged\":[[:space:]]*$conv" "$s" 2> /dev/null; then
            echo "FAIL $file: summary.json does not say converged: $conv"; fail=1; continue
        fi
        for o in nodes.csv elements.csv; do
            finite "$tmp/$file/$o" || { echo "FAIL $file: $o has non-finite values"; fail=1; }
        done
    fi
    echo "ok     $file: exit $code ${msg:0:160}"
done < "$dir/expected.txt"
n=$(ls "$dir"/*.json | wc -l)
[ "$count" -eq "$n" ] || { echo "FAIL expected.txt covers $count of $n inputs"; fail=1; }
exit $fail
