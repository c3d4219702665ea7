#!/usr/bin/env bash
# Output folders used more than once, and the CLI summary of long static runs:
# - `--resume` of a run that completed says so, exits 0 and leaves every file as it was (it
#   re-integrated from the periodic checkpoint the run left behind, or refused with "no
#   checkpoint"); of another scenario it is refused;
# - a rerun leaves no stale snapshot: the rod_NNNN.vtp / bodies_NNNN.vtp files in the folder are
#   exactly those its rod.pvd lists (a shorter rerun left the longer run's later frames, and a
#   static-only rerun its series.csv), and nothing else of the user's is touched;
# - the Greenhill summary prints the Newton iterations as a histogram whose counts are those of
#   summary.json's per-step list (it printed 400 numbers);
# - the README's ParaView hint names the Tube filter setting that uses `radius` as the radius.
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ex="$src/examples/wilberforce.json"
sets=(--set rod.elements=100 -q)
snap_files() { (cd "$1" && ls | grep -E '^(rod|bodies)_[0-9]{4,}\.vtp$' | sort); }
pvd_files() { grep -o 'file="[^"]*"' "$1/rod.pvd" | sed 's/file="//; s/"$//' | sort; }

# --- resume of a complete run ---
"$cli" run "$ex" -o "$tmp/w" "${sets[@]}" --set stages.1.t_end=0.5 --set stages.1.checkpoint_interval=0.05 > /dev/null 2>&1 ||
    { bad "first run failed"; exit 1; }
[ -e "$tmp/w/checkpoint.bin" ] && bad "a complete run left its periodic checkpoint.bin" ||
    ok "a complete run removes its periodic checkpoint"
grep -q '"fingerprint"' "$tmp/w/summary.json" || bad "summary.json has no fingerprint"
(cd "$tmp/w" && md5sum $(ls | sort)) > "$tmp/before.md5"
"$cli" run "$ex" -o "$tmp/w" "${sets[@]}" --set stages.1.t_end=0.5 --resume > "$tmp/res.out" 2>&1
code=$?
(cd "$tmp/w" && md5sum $(ls | sort)) > "$tmp/after.md5"
if [ "$code" -ne 0 ] || ! grep -q "holds a complete run of this scenario" "$tmp/res.out"; then
    bad "--resume of a complete run: exit $code, $(head -c 300 "$tmp/res.out")"
elif ! cmp -s "$tmp/before.md5" "$tmp/after.md5"; then
    bad "--resume of a complete run changed files: $(diff "$tmp/before.md5" "$tmp/after.md5" | head -4)"
else ok "--resume of a complete run: exit 0, no file changed: $(cat "$tmp/res.out")"; fi
expect_error 1 "holds a complete run of another scenario" run "$ex" -o "$tmp/w" "${sets[@]}" \
    --set stages.1.t_end=0.6 --resume

# --- no stale snapshots ---
touch "$tmp/w/rod_notes.vtp" "$tmp/w/rod_123.vtp" "$tmp/w/notes.txt" "$tmp/w/rod_0001.vtp.bak"
n_long=$(snap_files "$tmp/w" | wc -l)
"$cli" run "$ex" -o "$tmp/w" "${sets[@]}" --set stages.1.t_end=0.2 > /dev/null 2>&1 || bad "shorter rerun failed"
n_short=$(snap_files "$tmp/w" | wc -l)
if [ "$n_short" -ge "$n_long" ] || ! diff <(snap_files "$tmp/w") <(pvd_files "$tmp/w") > /dev/null; then
    bad "after a shorter rerun $n_short snapshot files (first run $n_long), rod.pvd lists $(pvd_files "$tmp/w" | wc -l)"
else ok "shorter rerun: $n_short snapshot files, exactly those rod.pvd lists (the first run wrote $n_long)"; fi
for f in rod_notes.vtp rod_123.vtp notes.txt rod_0001.vtp.bak; do
    [ -e "$tmp/w/$f" ] || bad "the rerun removed the user's $f"
done
"$cli" run "$ex" -o "$tmp/w" --set rod.elements=100 --set 'stages=[{"type": "static"}]' -q > /dev/null 2>&1 ||
    bad "static-only rerun failed"
if [ -e "$tmp/w/series.csv" ] || ! diff <(snap_files "$tmp/w") <(pvd_files "$tmp/w") > /dev/null; then
    bad "a static-only rerun left series.csv or snapshots rod.pvd does not list"
else ok "static-only rerun: no series.csv, $(snap_files "$tmp/w" | wc -l) snapshot files as rod.pvd lists"; fi

# --- the Newton iterations of 400 load steps: totals and a histogram ---
"$cli" run "$src/examples/greenhill.json" -o "$tmp/g" --set output.vtk=false -q > "$tmp/g.out" 2>&1 ||
    { bad "greenhill failed"; exit 1; }
line=$(grep '^  Newton' "$tmp/g.out")
/usr/bin/python3 - "$tmp/g/summary.json" "$line" <<'EOF' && ok "greenhill: $line" || fail=1
import collections, json, sys
its = json.load(open(sys.argv[1]))["newton_iterations"]
counts = sorted(collections.Counter(its).items())
want = "  Newton         %d iterations: " % sum(its) + ", ".join(
    "%d%s took %d" % (n, (" load step" if n == 1 else " load steps") if k == 0 else "", it)
    for k, (it, n) in enumerate(counts)) + " (each in summary.json)"
if len(its) < 100 or sys.argv[2] != want:
    print("FAIL   %d load steps; the summary's line:\n%s\nexpected:\n%s" % (len(its), sys.argv[2], want))
    sys.exit(1)
EOF

# --- the ParaView hint: the snapshots' active scalars are the radius, used as it is ---
"$cli" run "$src/examples/two-helical-segments.json" -o "$tmp/h" --set output.vtk_format=ascii -q > /dev/null 2>&1
if grep -q 'PointData Scalars="radius"' "$tmp/h/rod_0001.vtp" && grep -q 'Vary Radius "By Absolute Scalar"' "$src/README.md" &&
   grep -q 'By Absolute Scalar' "$src/docs/scenario.md"; then
    ok "README and docs: Tube filter, Vary Radius By Absolute Scalar on the snapshots' active scalars radius"
else bad "the ParaView hint and the snapshots' active scalars disagree"; fi
exit $fail
