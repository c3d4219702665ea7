# Shared helpers of the shell tests (sourced: . "$src/tests/lib.bash").

# interrupt_run DIR ROWS POLLS DELAY COMMAND...: runs COMMAND in the background, waits
# until DIR/series.csv has more than ROWS lines (polling at most POLLS times, DELAY
# seconds apart) or the command has ended, sends it SIGINT and returns its exit status:
# 130 when the signal interrupted it, else the status of a run that ended first (the
# caller then tries again with fewer rows). Redirections of the call apply to COMMAND.
interrupt_run() {
    local dir="$1" rows="$2" polls="$3" delay="$4"
    shift 4
    "$@" &
    local pid=$!
    for _ in $(seq 1 "$polls"); do
        [ -f "$dir/series.csv" ] && [ "$(wc -l < "$dir/series.csv")" -gt "$rows" ] && break
        kill -0 "$pid" 2> /dev/null || break
        sleep "$delay"
    done
    kill -INT "$pid" 2> /dev/null
    wait "$pid"
}

# interrupt_resume DIR ROWS POLLS DELAY COMMAND...: interrupt_run, with ROWS divided by 4 and
# tried again (3 times) while the run ends before the interrupt, then COMMAND --resume. Returns 0
# when both happened (cut_rows: the series rows written before the interrupt); otherwise calls
# bad, naming what failed, and returns 1. COMMAND writes to DIR (its -o).
interrupt_resume() {
    local dir="$1" rows="$2" polls="$3" delay="$4" code=0
    shift 4
    for _ in 1 2 3; do
        rm -rf "$dir"
        interrupt_run "$dir" "$rows" "$polls" "$delay" "$@" > /dev/null 2>&1
        code=$?
        [ "$code" -eq 130 ] && break
        rows=$((rows / 4)) # it finished before the interrupt: interrupt earlier
    done
    if [ "$code" -ne 130 ]; then
        bad "resume: could not interrupt the run (exit $code)"
        return 1
    fi
    cut_rows=$(($(wc -l < "$dir/series.csv") - 1))
    if ! "$@" --resume > "$dir.resume.log" 2>&1; then
        bad "resume: the resumed run failed: $(head -c 400 "$dir.resume.log")"
        return 1
    fi
}

# run_scenario NAME SCENARIO [cosserat run args...]: "$cli" run SCENARIO -q -o "$tmp/NAME" (300 s at
# most), its output in "$tmp/NAME.log"; a failed run is a bad line naming NAME. Uses $cli and $tmp.
run_scenario() {
    local name=$1 file=$2
    shift 2
    if ! timeout -k 5 300 "$cli" run "$file" -q -o "$tmp/$name" "$@" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 400 "$tmp/$name.log")"
    fi
}

# ok / bad MESSAGE: a check's line (bad sets the caller's fail=1).
# expect_error CODE KEY-FRAGMENT [cosserat args...]: runs "$cli" with the arguments (60 s at
# most) and checks its exit code and that stderr names the key; uses the caller's $cli and $tmp.
ok() { echo "ok     $*"; }
bad() { echo "FAIL   $*"; fail=1; }
# expect_error CODE KEY-FRAGMENT [cosserat args...]: exit code and message naming the key
expect_error() {
    local code="$1" key="$2"
    shift 2
    timeout -k 5 60 "$cli" "$@" > "$tmp/out" 2> "$tmp/err"
    local got=$?
    if [ "$got" -ne "$code" ] || ! grep -qF -- "$key" "$tmp/err"; then
        bad "$* -> exit $got (want $code naming '$key'): $(head -c 300 "$tmp/err")"
    else
        ok "exit $code naming '$key': $(head -c 200 "$tmp/err")"
    fi
}
