#!/usr/bin/env bash
# The fuzzer's seed corpus (tests/fuzz-corpus/, the examples) through `cosserat check`:
# every seed is a valid scenario (exit 0, "ok"), so the fuzzer starts from inputs that
# reach the model checks, and a change that makes one invalid is caught here too.
# tests/fuzz-regress/ is replayed by fuzz_regress.sh.
set -u
cli="$1"
src="$2"
fail=0
n=0
for f in "$src"/tests/fuzz-corpus/*; do
    n=$((n + 1))
    out=$(timeout 60 "$cli" check "$f" 2>&1)
    code=$?
    if [ "$code" -ne 0 ] || ! grep -q ": ok (" <<< "$out"; then
        echo "FAIL $(basename "$f"): exit $code: ${out:0:300}"; fail=1
    else echo "ok     $(basename "$f"): $out"; fi
done
[ "$n" -ge 5 ] || { echo "FAIL only $n corpus files"; fail=1; }
exit $fail
