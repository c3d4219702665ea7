#!/bin/bash
# Coulomb friction between the rods of an assembly in dynamic stages (contact.rods_friction;
# docs/scenario.md "contact", docs/theory.md "Contact between rods"), through the CLI, against
# analytic references:
#   a slider (steel, r = 5 mm, 0.5 m) lying across two clamped rails under gravity, preset into
#       them by its weight's penetration m g/(2 eps) (eps = contact.stiffness: no bounce), pulled
#       along its axis at its end; mu_s = 0.4, mu_k = 0.3:
#     - a pull of 0.35 m g (above mu_k m g, below mu_s m g), ramped over 0.2 s and held: it
#       sticks: the slider settles at T/(2 eps) (each rail's tangential spring carries T/2),
#       never beyond mu_s N/eps (the documented bound), and does not creep while held;
#     - a pull of 0.8 m g from the start: it slides at mu_k N: the momentum grows at
#       T - mu_k m g, and the energy lost equals mu_k m g times the distance slid;
#   two free rods (each welded to a light free body) struck into each other obliquely by a force
#       pulse: after the pulse the momentum and the angular momentum stay what the pulse gave them
#       (to 1e-5: the integrator's tolerance, frictionless as well; with the friction's moments
#       left out the angular momentum changed by 7 %), the energy (no
#       contact pressing) only decreases with friction (and stays at the pulse's work without),
#       and the friction drags the other rod along the sliding direction;
#   two thin rods thrown at each other stay on their sides (the step limit against tunnelling);
#   refusals at check: rods_friction without contact.rods, kinetic above static.
# Usage: contact_rods_friction.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

# the rails and the slider: pull (a fraction of m g), ramp time (0: constant), end time, file
$py - "$tmp" <<'PY'
import json, math, sys
def rails(frac, ramp, t_end, out):
    rho, E, G, rr, rs, L, g, eps = 7800.0, 2e11, 8e10, 0.005, 0.005, 0.5, 9.81, 2000.0
    m = rho * math.pi * rs**2 * L
    d0 = (m * g / 2) / eps
    rail = lambda name, y: {"name": name, "length": 0.1, "elements": 5, "material": {"E": E, "G": G, "rho": rho},
                            "sections": [{"shape": "circle", "radius": rr}], "reference": {"origin": [-0.05, y, 0]}}
    time = {"type": "table", "points": [[0, 0], [ramp, 1], [100, 1]]} if ramp > 0 else {"type": "constant"}
    sc = {"name": "rails", "model": "mixed_discrete",
          "rods": [rail("r1", -0.1625), rail("r2", 0.1625),
                   {"name": "slider", "length": L, "elements": 20, "material": {"E": E, "G": G, "rho": rho},
                    "sections": [{"shape": "circle", "radius": rs}],
                    "reference": {"origin": [0, -0.25, rr + rs - d0], "quaternion": [math.sqrt(0.5), 0, 0, math.sqrt(0.5)]}}],
          "boundary_conditions": [{"type": "clamp", "node": n} for n in ("r1:start", "r1:end", "r2:start", "r2:end")]
          + [{"type": "support", "node": "slider:start", "hold": ["x"]}],
          "loads": [{"type": "gravity", "value": [0, 0, -g]},
                    {"type": "force", "node": "slider:end", "value": [0, frac * m * g, 0], "time": time}],
          "contact": {"rods": True, "stiffness": eps, "tolerance": 2 * d0,
                      "rods_friction": {"static": 0.4, "kinetic": 0.3}},
          "output": {"track": [{"name": "mid", "node": "slider:10"}], "vtk": False},
          "stages": [{"type": "dynamic", "t_end": t_end, "output_dt": 0.005, "rtol": 1e-6, "atol": 1e-9}]}
    json.dump(sc, open(out, "w"))
def fly(mu, out):
    rod = lambda name, origin, q: {"name": name, "length": 0.4, "elements": 16,
                                   "material": {"E": 1e8, "G": 4e7, "rho": 1000.0},
                                   "sections": [{"shape": "circle", "radius": 0.005}],
                                   "reference": {"origin": origin, "quaternion": q}}
    s2 = math.sqrt(0.5)
    body = lambda name, c: {"name": name, "mass": 1e-3, "center": c, "inertia": [1e-8, 1e-8, 1e-8]}
    sc = {"name": "fly", "model": "mixed_discrete",
          "rods": [rod("a", [-0.2, 0.013, 0], [1, 0, 0, 0]), rod("b", [0.037, -0.2, 0.0105], [s2, 0, 0, s2])],
          "rigid_bodies": [body("ba", [-0.2, 0.013, 0]), body("bb", [0.037, -0.2, 0.0105])],
          "joints": [{"type": "weld", "a": "a:start", "b": {"body": "ba"}},
                     {"type": "weld", "a": "b:start", "b": {"body": "bb"}}],
          "loads": [{"type": "force_density", "rod": "b", "value": [1.5, 0.4, -3.0],
                     "time": {"type": "table", "points": [[0, 0], [0.005, 1], [0.01, 0]]}}],
          "contact": {"rods": True, "stiffness": 3000},
          "output": {"track": [{"name": "amid", "node": "a:8"}], "vtk": False},
          "stages": [{"type": "dynamic", "t_end": 0.08, "output_dt": 0.002, "rtol": 1e-7, "atol": 1e-10}]}
    if mu > 0:
        sc["contact"]["rods_friction"] = {"static": mu, "kinetic": 0.8 * mu}
    json.dump(sc, open(out, "w"))
d = sys.argv[1]
rails(0.35, 0.2, 0.4, d + "/stick.json")
rails(0.35, 0.05, 0.15, d + "/hold.json")  # (the resume's: the pull ramped faster, held shorter)
rails(0.8, 0, 0.1, d + "/slide.json")
fly(0.5, d + "/fly.json")
fly(0, d + "/fly0.json")
PY

for c in stick slide fly fly0; do
    timeout -k 5 300 "$cli" run "$tmp/$c.json" -q -o "$tmp/$c" > "$tmp/$c.log" 2>&1 || bad "$c: the run failed: $(head -c 400 "$tmp/$c.log")"
done

$py - "$tmp" <<'PY' && ok "rails: a pull between mu_k and mu_s sticks at T/(2 eps) within mu_s N/eps, without creep" || bad "rails: sticking"
import csv, math, sys
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1] + "/stick/series.csv"))]
m, g, eps = 7800 * math.pi * 0.005**2 * 0.5, 9.81, 2000.0
T, N = 0.35 * m * g, m * g / 2
held = [r["mid_y"] for r in R if r["t"] >= 0.2]
mean = sum(held) / len(held)
half = len(held) // 2
drift = sum(held[half:]) / (len(held) - half) - sum(held[:half]) / half
print(f"held: mean {mean:.5e} m (T/(2 eps) {T / (2 * eps):.5e}), largest {max(held):.4e} (bound mu_s N/eps {0.4 * N / eps:.4e}), drift between the halves {drift:.2e} m")
assert abs(mean / (T / (2 * eps)) - 1) < 0.02, mean
assert max(r["mid_y"] for r in R) < 0.4 * N / eps
assert abs(drift) < 0.02 * T / (2 * eps), drift
assert all(r["rods_contact_pairs"] == 2 for r in R)
PY

$py - "$tmp" <<'PY' && ok "rails: a pull above mu_s slides at mu_k N: momentum rate T - mu_k m g (1e-2), dissipation mu_k m g times the distance (1e-2)" || bad "rails: sliding"
import csv, math, sys
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1] + "/slide/series.csv"))]
m, g = 7800 * math.pi * 0.005**2 * 0.5, 9.81
a, b = R[10], R[-1]  # from t = 0.05 s, well after it broke loose
rate = (b["momentum_y"] - a["momentum_y"]) / (b["t"] - a["t"])
ref = (0.8 - 0.3) * m * g
lost = (a["energy_total"] - a["work_external"]) - (b["energy_total"] - b["work_external"])
work = 0.3 * m * g * (b["mid_y"] - a["mid_y"])
print(f"momentum rate {rate:.6f} N (T - mu_k m g = {ref:.6f}), energy lost {lost:.6e} J (mu_k m g dy = {work:.6e})")
assert abs(rate / ref - 1) < 1e-2 and abs(lost / work - 1) < 1e-2
e = [r["energy_total"] - r["work_external"] for r in R]
assert all(y <= x + 1e-9 for x, y in zip(e, e[1:])), "the energy rose"
PY

$py - "$tmp" <<'PY' && ok "free pair struck obliquely: momentum and angular momentum kept (1e-5: the integrator's tolerance, as without friction), energy only decreases with friction (kept without), the other rod dragged along" || bad "free pair with friction"
import csv, sys
def rows(name):
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1] + f"/{name}/series.csv"))]
F, F0 = rows("fly"), rows("fly0")
for R in (F, F0):
    assert max(r["rods_contact_pairs"] for r in R) > 0, "no contact"
    after = [r for r in R if r["t"] >= 0.01]
    for m in ("momentum", "angular_momentum"):
        P = max(abs(after[0][f"{m}_{k}"]) for k in "xyz")
        for k in "xyz":
            p = [r[f"{m}_{k}"] for r in after]
            print(f"{m}_{k}: {after[0][f'{m}_{k}']:.10g}, varies by {max(p) - min(p):.2e}")
            assert max(p) - min(p) <= 1e-5 * P, (m, k, max(p) - min(p))
free = lambda R: [r["energy_total"] - r["work_external"] for r in R if r["t"] >= 0.01 and r["rods_contact_pairs"] == 0 and r["rods_contact_gap"] > 0]
e, e0 = free(F), free(F0)
W = F[-1]["work_external"]
print(f"work {W:.4e} J; without friction the energy after the pulse stays within {max(abs(x) for x in e0):.2e} J, with it falls to {e[-1]:.3e} J; rod a's middle moved {F[-1]['amid_x']:.3e} m along x ({F0[-1]['amid_x']:.3e} without)")
assert max(abs(x) for x in e0) < 2e-3 * W
assert all(y <= x + 1e-6 * W for x, y in zip(e, e[1:])) and e[-1] < -0.01 * W, e
assert F[-1]["amid_x"] > 1e-3 and abs(F0[-1]["amid_x"]) < 0.1 * F[-1]["amid_x"]
PY

# --- resumed: the checkpoint holds the rods' stick anchors (a variable number of them). The rails'
# pull (ramped over 0.05 s, held to 0.15 s) is cut after t = 0.05 s (the pull at its full value,
# held by the anchors' springs at T/(2 eps)) and resumed: it follows the uninterrupted run to
# 1e-9 m (5e-13 measured). A resume that anchored the pairs afresh where they stand dropped the
# springs' stretch, and the pull (above mu_k m g) set the slider sliding for good: 1.9 mm from the
# uninterrupted run by t = 0.15 s (9.2 mm by 0.4 s in the run above; measured before the anchors were
# checkpointed).
timeout -k 5 600 "$cli" run "$tmp/hold.json" -q -o "$tmp/hold" > "$tmp/hold.log" 2>&1 || bad "hold: the run failed: $(head -c 400 "$tmp/hold.log")"
rows=20
code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 6000 0.01 "$cli" run "$tmp/hold.json" -q -o "$tmp/cut" \
        --set stages.0.checkpoint_interval=0.005 > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows - 3))
done
if [ "$code" -ne 130 ]; then
    bad "rails resumed: could not interrupt the run (exit $code)"
elif cut=$(($(wc -l < "$tmp/cut/series.csv") - 1)) &&
    ! "$cli" run "$tmp/hold.json" -q -o "$tmp/cut" --set stages.0.checkpoint_interval=0.005 --resume \
        > "$tmp/cut.log" 2>&1; then
    bad "rails resumed: $(head -c 300 "$tmp/cut.log")"
else
    $py - "$tmp" "$cut" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
a = list(csv.DictReader(open(sys.argv[1] + "/hold/series.csv")))
b = list(csv.DictReader(open(sys.argv[1] + "/cut/series.csv")))
cut = int(sys.argv[2])  # rows written before the cut (the checkpoint's is at most one interval earlier)
gap = max(abs(float(x["mid_y"]) - float(y["mid_y"])) for x, y in zip(a, b))
good = len(a) == len(b) and all(x["t"] == y["t"] for x, y in zip(a, b)) and gap < 1e-9 and float(a[cut - 1]["t"]) > 0.05
open(sys.argv[1] + "/verdict", "w").write(
    f"rails resumed (the rods' stick anchors in the checkpoint): cut at t = {a[cut - 1]['t']} s (after 0.05), the slider's "
    f"middle within {gap:.2g} m of the uninterrupted run's over its {len(b)} rows (allowed 1e-9)")
sys.exit(not good)
PY
fi

expect_error 1 "contact.rods_friction: friction between rods is an assembly" check "$tmp/fly.json" \
    --set 'contact.rods=false' --set 'obstacles=[{"type": "plane", "normal": [0, 0, 1], "point": [0, 0, -1]}]'
expect_error 1 "contact.rods_friction.kinetic" check "$tmp/fly.json" --set 'contact.rods_friction.kinetic=0.6'
exit $fail
