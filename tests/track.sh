#!/usr/bin/env bash
# output.track (recorded points), through the CLI, checked against an independent read of
# the files the run wrote:
#   - dynamics, each formulation: the tracked columns of the last series.csv row equal the
#     rows of nodes.csv (the final state) for the matching nodes: a node reference i is the
#     row at s = i L / n, an arc length the row with the nearest s; the header has the names;
#   - default (no output.track): tip_x, tip_y, tip_z at the free end (last node for a rod
#     clamped at its start, the first node for one clamped at its end);
#   - statics: summary.json's per-stage track has the clamp's reaction balancing the tip
#     load (force -F; moment -(x_tip - x_clamp) x F, the clamp's body basis being I), and
#     after every load step -lambda F; only for a formulation that reports reactions and
#     never in a dynamic stage.
set -u
cli="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat > "$tmp/dyn.json" <<'JSON'
{
  "name": "track-dyn",
  "rod": { "length": 1.0, "elements": 8,
           "material": { "E": 1e7, "G": 4e6, "rho": 1000 },
           "sections": [ { "shape": "circle", "radius": 0.01 } ] },
  "boundary_conditions": [ { "type": "clamp", "node": "start" } ],
  "loads": [ { "type": "force", "node": "end", "value": [0, 0.02, -0.04] } ],
  "stages": [ { "type": "dynamic", "t_end": 0.02, "output_dt": 0.005, "time_step": 1e-4 } ],
  "output": { "vtk": false, "track": [ {"name": "root", "node": "start"}, {"name": "mid", "node": 4},
              {"name": "at_s", "s": 0.3}, {"name": "Tip_2", "node": -1} ] }
}
JSON

# python3 checker: series.csv's last row against nodes.csv. Arguments: dir, then
# name:node:I or name:s:S for each tracked point (n = 8 elements, L = 1).
check_series() {
    python3 - "$@" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.reader(open(d + "/series.csv")))
head, last = rows[0], [float(v) for v in rows[-1]]
assert abs(last[head.index("t")] - 0.02) < 1e-9, last[0]
nodes = [[float(v) for v in r] for r in list(csv.reader(open(d + "/nodes.csv")))[1:]]
L, n = 1.0, 8
for spec in sys.argv[2:]:
    name, kind, value = spec.split(":")
    if kind == "node":
        i = int(value) % (n + 1)
        s = i * L / n
        row = min(nodes, key=lambda r: abs(r[0] - s))
        assert abs(row[0] - s) < 1e-12, (name, row[0], s)
    else:
        row = min(nodes, key=lambda r: abs(r[0] - float(value)))
    cols = [name + "_" + c for c in ("x", "y", "z", "p0", "p1", "p2", "p3")]
    for c in cols:
        assert c in head, (c, head)
    got = [last[head.index(c)] for c in cols]
    want = row[1:8]
    for c, g, w in zip(cols, got, want):
        assert abs(g - w) <= 1e-9 * max(1.0, abs(w)), (c, g, w)
    print(f"    {name}: s = {row[0]:g}, last row = nodes.csv ({', '.join(f'{v:.6g}' for v in got[:3])})")
summary = json.load(open(d + "/summary.json"))
formulation = summary.get("model", "")
for name, p in summary["stages"][-1]["track"].items():
    # a dynamic stage reports the reactions of the supported nodes (mixed rod only),
    # and series.csv has them as NAME_fx... columns, the same as at the last row
    if "reaction" in p:
        assert p["node"] == 0, ("only the clamped node has a reaction", name)
        got = [last[head.index(name + "_f" + c)] for c in "xyz"]
        assert all(abs(g - w) <= 1e-9 * max(1.0, abs(w)) for g, w in zip(got, p["reaction"]["force"])), (name, got)
    else:
        assert (name + "_fx") not in head, (name, "a reaction column without a reaction")
PY
}

for model in mixed_discrete lgvi port_hamiltonian; do
    extra=()
    [ "$model" = mixed_discrete ] && extra=(--set stages.0.time_step=null)
    if ! "$cli" run "$tmp/dyn.json" -q -o "$tmp/$model" --set model=$model "${extra[@]}" > "$tmp/$model.log" 2>&1; then
        echo "FAIL $model: the run failed: $(cat "$tmp/$model.log")"
        fail=1
        continue
    fi
    if check_series "$tmp/$model" root:node:0 mid:node:4 at_s:s:0.3 Tip_2:node:-1; then
        echo "ok   $model: tracked columns of series.csv match nodes.csv"
    else
        echo "FAIL $model: tracked columns"
        fail=1
    fi
    # the default: one point tip at the free end, the old columns tip_x, tip_y, tip_z
    if "$cli" run "$tmp/dyn.json" -q -o "$tmp/$model-default" --set model=$model --set output.track=null \
        "${extra[@]}" > "$tmp/$model-default.log" 2>&1 &&
        check_series "$tmp/$model-default" tip:node:8 &&
        head -1 "$tmp/$model-default/series.csv" | grep -q "work_external,tip_x,tip_y,tip_z,tip_p0,tip_p1,tip_p2,tip_p3,momentum_x"; then
        echo "ok   $model: default track is tip at the last node"
    else
        echo "FAIL $model: default track: $(cat "$tmp/$model-default.log")"
        fail=1
    fi
done

# clamped at the end (as the Wilberforce spring): the default tip is the free first node
if "$cli" run "$tmp/dyn.json" -q -o "$tmp/end-clamped" --set output.track=null --set stages.0.time_step=null \
    --set boundary_conditions.0.node=end --set loads.0.node=start > "$tmp/end-clamped.log" 2>&1 &&
    check_series "$tmp/end-clamped" tip:node:0; then
    echo "ok   clamped end: default tip is the free first node"
else
    echo "FAIL clamped end: default tip: $(cat "$tmp/end-clamped.log")"
    fail=1
fi

# statics: the clamp's reaction balances the tip force F
cat > "$tmp/static.json" <<'JSON'
{
  "name": "track-static",
  "rod": { "length": 1.0, "elements": 10,
           "material": { "E": 1e7, "G": 4e6, "rho": 1000 },
           "sections": [ { "shape": "circle", "radius": 0.01 } ] },
  "boundary_conditions": [ { "type": "clamp", "node": "start" } ],
  "loads": [ { "type": "force", "node": "end", "value": [0.01, 0.02, -0.05] } ],
  "stages": [ { "type": "static", "load_steps": 4 } ],
  "output": { "vtk": false, "track": [ {"name": "clamp", "node": "start"}, {"name": "tip", "node": "end"},
              {"name": "middle", "s": 0.52} ] }
}
JSON
for model in mixed_discrete port_hamiltonian; do
    if ! "$cli" run "$tmp/static.json" -q -o "$tmp/static-$model" --set model=$model > "$tmp/static-$model.log" 2>&1; then
        echo "FAIL static $model: the run failed: $(cat "$tmp/static-$model.log")"
        fail=1
        continue
    fi
    if python3 - "$tmp/static-$model" "$model" <<'PY'
import csv, json, sys
d, model = sys.argv[1], sys.argv[2]
summary = json.load(open(d + "/summary.json"))
nodes = [[float(v) for v in r] for r in list(csv.reader(open(d + "/nodes.csv")))[1:]]
F = [0.01, 0.02, -0.05]
for track in (summary["stages"][0]["track"], summary["track"]):
    assert list(track) == ["clamp", "tip", "middle"], list(track)
    for name, s in (("clamp", 0.0), ("tip", 1.0), ("middle", 0.52)):
        row = min(nodes, key=lambda r: abs(r[0] - s))
        p = track[name]
        assert abs(p["s"] - row[0]) < 1e-12, (name, p["s"], row[0])
        assert p["position"] == row[1:4] or max(abs(a - b) for a, b in zip(p["position"], row[1:4])) < 1e-9, name
        assert max(abs(a - b) for a, b in zip(p["quaternion"], row[4:8])) < 1e-9, name
    assert "reaction" not in track["tip"] and "reaction" not in track["middle"]
    r = track["clamp"]["reaction"]  # (both models report a clamp's reaction)
    tip = nodes[-1][1:4]
    arm = [tip[k] - nodes[0][1 + k] for k in range(3)]
    moment = [arm[1] * F[2] - arm[2] * F[1], arm[2] * F[0] - arm[0] * F[2], arm[0] * F[1] - arm[1] * F[0]]
    assert max(abs(r["force"][k] + F[k]) for k in range(3)) < 1e-8, r["force"]
    assert max(abs(r["moment_body"][k] + moment[k]) for k in range(3)) < 1e-8, (r["moment_body"], moment)
    print(f"    clamp reaction {r['force']} = -F, moment {r['moment_body']} = -(x_tip - x_0) x F")
# every accepted load step (4 equal steps), the last one the stage's end; the reaction
# balances lambda F
steps = summary["stages"][0]["track_load_steps"]
assert [e["load_factor"] for e in steps] == [0.25, 0.5, 0.75, 1.0], steps
assert steps[-1]["track"] == summary["stages"][0]["track"]
for e in steps:
    lam, f = e["load_factor"], e["track"]["clamp"]["reaction"]["force"]
    assert max(abs(f[k] + lam * F[k]) for k in range(3)) < 1e-8, (lam, f)
    assert "reaction" not in e["track"]["tip"]
PY
    then
        echo "ok   static $model: per-stage track in summary.json, reaction balances the load"
    else
        echo "FAIL static $model: summary.json track"
        fail=1
    fi
done
exit $fail
