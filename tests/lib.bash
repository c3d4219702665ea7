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
