#!/usr/bin/env bash
# Property test over mutated scenarios: small versions of the mixed-rod examples with
# one or two numbers changed at random (scaled by 10^±k, negated, zeroed, huge, tiny;
# fixed seed, so reproducible). Whatever the input, the CLI must keep its contract:
#   exit 0 => "converged": true and finite nodes.csv / elements.csv (and series.csv);
#   exit 2 => "converged": false on disk with a finite last good state;
#   exit 1 => a message that names a key path ("rod.…: …", "loads.0.…: …");
# no other exit status (a crash, an abort, a sanitizer report) and no hang (60 s each, room for the sanitizer build).
# And an honesty check of every exit 0, independent of the library's own checks: each static
# stage's final residual at its tolerance (atol, or rtol of the first residual, or a round-off
# floor the summary admits no more than 1e-6 of), and the energy balance of the conservative
# fixed-step runs rebuilt from series.csv (stored - work + dissipated against the energy that
# entered): port-Hamiltonian within 1e-6 (its balance is exact to the Newton tolerance), lgvi
# within 0.5 (the modified model's band; the papers' cases stay below 0.06).
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 > /dev/null || { echo "skipped: no python3"; exit 0; }
python3 - "$src" "$tmp" <<'PY' || exit 1
import json, random, sys, os
src, tmp = sys.argv[1], sys.argv[2]
rng = random.Random(20261201)
bases = {
    "helix": ("two-helical-segments.json", {"rod.elements": 20, "stages.0.load_steps": 4}),
    "tendon": ("tendon-manipulator.json", {"rod.elements": 30, "stages.0.load_steps": 4}),
    "wilberforce": ("wilberforce.json", {"rod.elements": 200, "stages.0.load_steps": 4, "stages.1.t_end": 0.05,
                                         "stages.1.output_dt": 0.01, "output.vtk": False}),
    # the fixed-step formulations: port-Hamiltonian (midpoint rule) and lgvi (both models)
    "spaghetti": ("flying-spaghetti.json", {"rod.elements": 6, "stages.0.t_end": 1.0, "stages.0.output_dt": 0.1,
                                            "output.vtk": False}),
    "stretching": ("pure-stretching.json", {"rod.elements": 20, "stages.0.t_end": 1.0, "stages.0.output_dt": 0.1,
                                            "stages.0.snapshot_dt": 0.5, "output.vtk": False}),
}
def leaves(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items(): yield from leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node): yield from leaves(v, f"{path}.{i}")
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path
def setp(node, path, value):
    parts = path.split(".")
    for p in parts[:-1]: node = node[int(p)] if isinstance(node, list) else node[p]
    last = parts[-1]
    if isinstance(node, list): node[int(last)] = value
    else: node[last] = value
def getp(node, path):
    for p in path.split("."): node = node[int(p)] if isinstance(node, list) else node[p]
    return node
count = 0
for name, (file, small) in bases.items():
    base = json.load(open(os.path.join(src, "examples", file)))
    for p, v in small.items(): setp(base, p, v)
    paths = [p for p in leaves(base) if not p.startswith("description")]
    for k in range(12):
        sc = json.loads(json.dumps(base))
        changed = []
        for _ in range(rng.choice([1, 1, 2])):
            p = rng.choice(paths); v = getp(sc, p)
            kind = rng.choice(["scale", "scale", "neg", "zero", "huge", "tiny", "int"])
            if kind == "scale": nv = v * 10.0 ** rng.choice([-6, -3, -1, 1, 3, 6])
            elif kind == "neg": nv = -v
            elif kind == "zero": nv = 0
            elif kind == "huge": nv = 1e300
            elif kind == "tiny": nv = 5e-324
            else: nv = rng.choice([1, 2, 1000000])
            if isinstance(v, int) and kind != "tiny" and abs(nv) < 2**31: nv = int(nv)
            setp(sc, p, nv); changed.append(f"{p}={nv}")
        sc["name"] = f"{name}-{k}"
        with open(os.path.join(tmp, f"{name}-{k}.json"), "w") as f: json.dump(sc, f)
        with open(os.path.join(tmp, f"{name}-{k}.txt"), "w") as f: f.write(" ".join(changed))
        count += 1
print(f"{count} mutated scenarios")
PY
fail=0
finite() { ! grep -qiE 'nan|inf' "$1"; }
declare -A seen
for f in "$tmp"/*.json; do
    b=$(basename "$f" .json)
    what=$(cat "$tmp/$b.txt")
    timeout 60 "$cli" run "$f" -o "$tmp/o-$b" -q > /dev/null 2> "$tmp/err"
    code=$?
    seen[$code]=$((${seen[$code]:-0} + 1))
    s="$tmp/o-$b/summary.json"
    case $code in
    0)  grep -q '"converged":[[:space:]]*true' "$s" || { echo "FAIL $b ($what): exit 0 but not converged"; fail=1; }
        for o in nodes.csv elements.csv series.csv; do
            [ -e "$tmp/o-$b/$o" ] || continue
            finite "$tmp/o-$b/$o" || { echo "FAIL $b ($what): exit 0 with non-finite $o"; fail=1; }
        done
        honest=$(python3 - "$tmp/o-$b" "$f" <<'PY'
import csv, json, math, os, sys
out, scen = sys.argv[1], json.load(open(sys.argv[2]))
d = json.load(open(os.path.join(out, "summary.json")))
model = scen["model"]["type"] if isinstance(scen.get("model"), dict) else scen.get("model", "mixed_discrete")
for k, st in enumerate(d.get("stages", [])):
    if "final_residual" in st:
        r, atol = st["final_residual"], scen["stages"][k].get("atol", 1e-10)
        hist = d["residual_history"][-1] if d.get("residual_history") else [r]
        first = max(hist) if hist else r
        ok = math.isfinite(r) and (r <= atol or r <= 1e-6 * max(first, atol) or r <= 1e-6)
        if not ok: print(f"stage {k}: final residual {r:g} (atol {atol:g}, first {first:g})"); sys.exit(0)
series = os.path.join(out, "series.csv")
if model in ("port_hamiltonian", "lgvi") and os.path.exists(series):
    rows = list(csv.DictReader(open(series)))
    g = lambda row, c: float(row[c]) if row.get(c) not in (None, "") else 0.0
    bal = lambda row: g(row, "energy_kinetic") + g(row, "energy_elastic") - g(row, "work_external") + g(row, "energy_dissipated")
    sup = lambda row: g(row, "work_external") - g(row, "energy_dissipated")
    stored0 = g(rows[0], "energy_kinetic") + g(rows[0], "energy_elastic")
    entered, worst = 0.0, 0.0
    for row in rows:
        entered = max(entered, abs(sup(row) - sup(rows[0])))
        scale = stored0 + entered
        # series.csv holds 10 significant digits: its own rounding is the floor
        floor = 1e-9 * (abs(g(row, "energy_kinetic")) + abs(g(row, "energy_elastic")) + abs(g(row, "work_external")))
        drift = abs(bal(row) - bal(rows[0]))
        if scale > 0 and drift > floor: worst = max(worst, drift / scale)
    band = 1e-6 if model == "port_hamiltonian" else 0.5
    if worst > band: print(f"{model}: energy balance drifted by {worst:.3g} of the energy that entered (band {band:g})")
PY
)
        [ -z "$honest" ] || { echo "FAIL $b ($what): exit 0 but $honest"; fail=1; } ;;
    2)  grep -q '"converged":[[:space:]]*false' "$s" || { echo "FAIL $b ($what): exit 2 without converged: false"; fail=1; }
        for o in nodes.csv elements.csv; do
            finite "$tmp/o-$b/$o" || { echo "FAIL $b ($what): exit 2 with a non-finite last state in $o"; fail=1; }
        done ;;
    1)  grep -qE '(^|: )[a-z_]+(\.[A-Za-z0-9_]+)*: ' "$tmp/err" ||
            { echo "FAIL $b ($what): exit 1 without a key: $(head -c 300 "$tmp/err")"; fail=1; } ;;
    124) echo "FAIL $b ($what): no answer in 60 s"; fail=1 ;;
    *)  echo "FAIL $b ($what): exit $code: $(head -c 300 "$tmp/err")"; fail=1 ;;
    esac
    [ "$code" -ne 0 ] && echo "ok     $b ($what): exit $code $(head -c 200 "$tmp/err" | tr '\n' ' ')"
done
echo "exit codes: $(for c in "${!seen[@]}"; do printf '%s x%s  ' "$c" "${seen[$c]}"; done)"
exit $fail
