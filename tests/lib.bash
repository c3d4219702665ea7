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
