#!/usr/bin/env bash
# The energy_drift warning (docs/scenario.md, "Warnings"): an undamped steel cantilever
# (tests/scenarios/undamped-cantilever.json) released and run 60 s at the default tolerances
# (rtol 1e-3, atol 1e-6) loses 23 % of its energy to Radau IIA's numerical damping and says
# so (and 10 % after 20 s); the same rod at atol 1e-9 (20 s: about 1 %) and in the
# port-Hamiltonian model (2 s, its balance exact to 1e-9) does not, and neither does the
# damped cantilever, whose loss is its damper's (energy_dissipated). The balance is checked
# here from series.csv, independently of the library's own sum.
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
sc="$src/tests/scenarios/undamped-cantilever.json"

# name, expected warning (1/0), lower and upper bound of the drift fraction, then cli args
case_() {
    local name="$1" expect="$2" lo="$3" hi="$4"; shift 4
    "$cli" run "$@" -o "$tmp/$name" > "$tmp/$name.out" 2> "$tmp/$name.err"
    local code=$?
    if [ "$code" -ne 0 ]; then echo "FAIL $name: exit $code"; cat "$tmp/$name.err"; fail=1; return; fi
    python3 - "$tmp/$name" "$expect" "$lo" "$hi" "$tmp/$name.err" <<'PY' || { fail=1; return; }
import csv, json, sys
d, expect, lo, hi, err = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rows = list(csv.DictReader(open(d + "/series.csv")))
g = lambda r, k: float(r[k]) if r.get(k) not in (None, "", "nan") else 0.0
bal = lambda r: sum(g(r, k) for k in ("energy_kinetic", "energy_elastic", "energy_gravity", "energy_dissipated")) - g(r, "work_external")
b0 = bal(rows[0])
scale = (max(g(r, "energy_kinetic") for r in rows) + max(abs(g(r, "work_external") - g(rows[0], "work_external")) for r in rows)
         + max(abs(g(r, "energy_dissipated") - g(rows[0], "energy_dissipated")) for r in rows))
frac = max(abs(bal(r) - b0) for r in rows) / scale
warned = [w for w in json.load(open(d + "/summary.json"))["warnings"] if w["code"] == "energy_drift"]
printed = "[energy_drift]" in open(err).read()
ok = lo <= frac <= hi and len(warned) == expect and printed == bool(expect)
if warned:
    msg = warned[0]["message"]
    said = float(msg.split("s), ")[1].split(" ")[0])
    ok = ok and abs(said - frac) <= 2e-3 * frac + 1e-12 and "atol" in msg and "port_hamiltonian" in msg
print(("ok    " if ok else "FAIL  ") + " %s: drift %.3g of the energy in motion (%.4g J), warning %s" % (sys.argv[1].split("/")[-1], frac, scale, bool(warned)))
sys.exit(0 if ok else 1)
PY
}

case_ default_60s 1 0.15 0.35 "$sc"
case_ default_20s 1 0.06 0.15 "$sc" --set stages.1.t_end=20
case_ atol_1e-9_20s 0 0 0.03 "$sc" --set stages.1.t_end=20 --set stages.1.atol=1e-9
case_ port_hamiltonian_2s 0 0 1e-6 "$sc" --set model=port_hamiltonian --set stages.1.t_end=2 --set stages.1.time_step=0.002
case_ damped_cantilever 0 0 0.01 "$src/examples/damped-cantilever.json" --set stages.1.rtol=1e-3 --set stages.1.atol=1e-6
exit $fail
