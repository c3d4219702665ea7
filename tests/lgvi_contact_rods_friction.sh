#!/usr/bin/env bash
# Coulomb friction between the rods of an LGVI assembly (contact.rods_friction; docs/lgvi.md "Friction
# between rods"): the mixed rod's law (a tangential spring -eps P u on the anchored surface points,
# capped at mu N) as explicit forces at x^k, against analytic references and the mixed_discrete model
# on the same scenarios (tests/contact_rods_friction.sh's rails, with E = 2e10 for the explicit step):
#   rails     a slider (steel density, r = 5 mm, 0.45 m welded to a 0.05 m tip: one 0.5 m rod of 20
#             elements, mass m) across two clamped rails under gravity, preset by its weight's
#             penetration, pulled along its axis at its end; mu_s = 0.4, mu_k = 0.3, h = 2.5e-6 s:
#     - 0.35 m g ramped over 0.2 s and held to 0.4 s: it sticks at T/(2 eps) (each rail's spring
#       T/2: the rails deflect alike), never beyond mu_s N/eps, no creep; its path is the mixed rod's
#       (compared over the ramp's first 0.15 s: the mixed rod's run costs the most under the sanitizers)
#     - 0.8 m g from the start: it slides: the momentum grows at T - mu_k m g, the friction's work
#       (the column rods_friction_work) is -mu_k m g times the distance, and T + U - W - W_friction
#       stays constant; its path is the mixed rod's
#   crossing  two free rods (each welded to a stub) struck into each other obliquely, with friction:
#             Sum p and Sum (x x p + R mu) constant after the push to the series' digits (the pair's
#             forces and moments cancel), energy lost (frictionless: kept), balance with the friction's work
#   resume    the rails pulled by 0.35 m g ramped over 0.05 s, interrupted (SIGINT) after 0.075 s while
#             the pairs stick (the checkpoint every 0.005 s) and resumed: series.csv and
#             nodes.csv identical to the uninterrupted run's (the anchors are in the checkpoint)
#   fingerprint  the checkpoints' hash differs without the friction and with another mu_k
#   check     the stable step with the tangential springs' levers: refused where the frictionless is not
# Usage: lgvi_contact_rods_friction.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

$py - "$tmp" <<'PY' || exit 1
import json, math, sys
d = sys.argv[1]
def rails(frac, ramp, t_end, out, model="lgvi"):
    rho, E, rr, rs, g, eps = 7800.0, 2e10, 0.005, 0.005, 9.81, 2000.0
    m = rho * math.pi * rs**2 * 0.5
    d0 = (m * g / 2) / eps
    q = [math.sqrt(0.5), 0, 0, math.sqrt(0.5)]
    mat = {"material": {"E": E, "G": E / 2.5, "rho": rho}, "sections": [{"shape": "circle", "radius": rr}]}
    rail = lambda name, y: dict(name=name, length=0.1, elements=5, reference={"origin": [-0.05, y, 0]}, **mat)
    time = {"type": "table", "points": [[0, 0], [ramp, 1], [100, 1]]} if ramp > 0 else {"type": "constant"}
    stage = {"type": "dynamic", "t_end": t_end, "output_dt": 0.005}
    stage.update({"time_step": 2.5e-6} if model == "lgvi" else {"rtol": 1e-6, "atol": 1e-9})
    sc = {"name": "rails", "model": model,
          "rods": [rail("r1", -0.1625), rail("r2", 0.1625),
                   dict(name="slider", length=0.45, elements=18, reference={"origin": [0, -0.25, rr + rs - d0], "quaternion": q}, **mat),
                   dict(name="tip", length=0.05, elements=2, reference={"origin": [0, 0.2, rr + rs - d0], "quaternion": q}, **mat)],
          "joints": [{"type": "weld", "a": "slider:end", "b": "tip:start"}],
          "boundary_conditions": [{"type": "clamp", "node": n} for n in ("r1:start", "r1:end", "r2:start", "r2:end")],
          "loads": [{"type": "gravity", "value": [0, 0, -g]},
                    {"type": "force", "node": "tip:end", "value": [0, frac * m * g, 0], "time": time}],
          "contact": {"rods": True, "stiffness": eps, "tolerance": 2 * d0,
                      "rods_friction": {"static": 0.4, "kinetic": 0.3}},
          "output": {"track": [{"name": "mid", "node": "slider:10"}, {"name": "ra", "node": "r1:2"},
                               {"name": "rb", "node": "r2:2"}], "vtk": False},
          "stages": [stage]}
    json.dump(sc, open(f"{d}/{out}.json", "w"))
rails(0.35, 0.2, 0.4, "stick")
rails(0.35, 0.2, 0.15, "stick_m", "mixed_discrete")  # (the first 0.15 s of the ramp: the springs loading)
rails(0.35, 0.05, 0.15, "hold")  # (the resume's: the pull ramped faster, held shorter)
rails(0.8, 0, 0.1, "slide")
rails(0.8, 0, 0.1, "slide_m", "mixed_discrete")
# the crossing rods of tests/lgvi_contact_rods.sh, pushed harder sideways (they slide on each other)
r = 0.01
mat = lambda E: {"material": {"E": E, "G": E / 2.5, "rho": 1000}, "sections": [{"shape": "circle", "radius": r}]}
q = [0.7071067811865476, 0, 0, 0.7071067811865476]
push = {"type": "table", "points": [[0, 1], [0.04, 1], [0.0401, 0]]}
cross = {
    "model": {"type": "lgvi", "dilatation": False},
    "rods": [dict(name="a", length=0.5, elements=10, reference={"origin": [-0.3, 0.0125, 0.03]}, **mat(1e7)),
             dict(name="c", length=0.1, elements=2, reference={"origin": [0.2, 0.0125, 0.03]}, **mat(1e7)),
             dict(name="b", length=0.5, elements=10, reference={"origin": [0.0125, -0.3, 0], "quaternion": q}, **mat(1e7)),
             dict(name="d", length=0.1, elements=2, reference={"origin": [0.0125, 0.2, 0], "quaternion": q}, **mat(1e7))],
    "joints": [{"type": "weld", "a": "a:end", "b": "c:start"}, {"type": "weld", "a": "b:end", "b": "d:start"}],
    "loads": [{"type": "force_density", "rod": "a", "value": [1.0, 0.5, -3], "time": push},
              {"type": "moment", "node": "a:start", "value": [0.002, 0, 0.01], "time": push}],
    "contact": {"rods": True, "stiffness": 2000, "rods_friction": {"static": 0.5, "kinetic": 0.4}},
    "output": {"track": [{"name": "bmid", "node": "b:5"}], "vtk": False},
    "stages": [{"type": "dynamic", "t_end": 0.3, "output_dt": 0.002, "time_step": 2e-5}]}
json.dump(cross, open(f"{d}/cross.json", "w"))
del cross["contact"]["rods_friction"]
json.dump(cross, open(f"{d}/cross0.json", "w"))
PY

for c in stick stick_m slide slide_m cross cross0; do run_scenario "$c" "$tmp/$c.json"; done
run_scenario cross2 "$tmp/cross.json" --set stages.0.time_step=1e-5
[ $fail = 0 ] || exit 1

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rows = lambda n: [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/{n}/series.csv"))]
R, M = rows("stick"), rows("stick_m")
m, g, eps = 7800 * math.pi * 0.005**2 * 0.5, 9.81, 2000.0
T, N = 0.35 * m * g, m * g / 2
held = [r for r in R if r["t"] >= 0.2]
y = [r["mid_y"] for r in held]
mean, half = sum(y) / len(y), len(y) // 2
drift = sum(y[half:]) / (len(y) - half) - sum(y[:half]) / half
# the rails' middle deflections (their tracked nodes at the same place on each), averaged while held
da = sum(r["ra_y"] + 0.1625 for r in held) / len(held)
db = sum(r["rb_y"] - 0.1625 for r in held) / len(held)
gap = max(abs(a["mid_y"] - b["mid_y"]) for a, b in zip(R, M))
e = [r["energy_total"] - r["work_external"] - r["rods_friction_work"] for r in R]
T_m = M[-1]["t"]
good = (abs(mean / (T / (2 * eps)) - 1) < 0.02 and max(r["mid_y"] for r in R) < 0.4 * N / eps
        and abs(drift) < 0.02 * T / (2 * eps) and all(r["rods_contact_pairs"] == 2 for r in R)
        and 0.95 < da / db < 1.05 and len(M) == 31 and T_m == 0.15 and gap < 0.01 * T / (2 * eps)
        and max(e) - min(e) < 1e-3 * max(abs(r["work_external"]) for r in R))
open(d + "/verdict", "w").write(
    f"rails at 0.35 m g: held at {mean:.5e} m (T/(2 eps) = {T / (2 * eps):.5e}), at most {max(r['mid_y'] for r in R):.4e} "
    f"(mu_s N/eps = {0.4 * N / eps:.4e}), drift {drift:.1e} m between the halves of the hold; the rails deflect "
    f"{da:.4e} and {db:.4e} m (ratio {da / db:.4f}: T/2 each); within {gap:.2g} m of the mixed rod's path over its "
    f"{len(M)} outputs to {T_m} s; T + U - W - W_friction within {max(e) - min(e):.2g} J")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rows = lambda n: [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/{n}/series.csv"))]
R, M = rows("slide"), rows("slide_m")
m, g = 7800 * math.pi * 0.005**2 * 0.5, 9.81
a, b = R[10], R[-1]  # from t = 0.05 s, well after it broke loose
rate = (b["momentum_y"] - a["momentum_y"]) / (b["t"] - a["t"])
ref = (0.8 - 0.3) * m * g
wf = b["rods_friction_work"] - a["rods_friction_work"]
lost = (a["energy_total"] - a["work_external"]) - (b["energy_total"] - b["work_external"])
work = 0.3 * m * g * (b["mid_y"] - a["mid_y"])
e = [r["energy_total"] - r["work_external"] - r["rods_friction_work"] for r in R]
gap = max(abs(x["mid_y"] - y["mid_y"]) for x, y in zip(R, M))
good = (abs(rate / ref - 1) < 1e-2 and abs(-wf / work - 1) < 1e-2 and abs(lost / work - 1) < 1e-2
        and max(e) - min(e) < 1e-5 * R[-1]["work_external"] and len(R) == len(M) and gap < 1e-3 * b["mid_y"])
open(d + "/verdict", "w").write(
    f"rails at 0.8 m g slide: momentum rate {rate:.6f} N (T - mu_k m g = {ref:.6f}, {rate / ref - 1:+.1e}), the friction's "
    f"work {wf:.6e} J (-mu_k m g dy = {-work:.6e}, {-wf / work - 1:+.1e}), T + U - W - W_friction within "
    f"{max(e) - min(e):.2g} J of W = {R[-1]['work_external']:.4f} J; {b['mid_y']:.6f} m slid, within {gap:.2g} m of the "
    f"mixed rod's path")
sys.exit(not good)
PY

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
rows = lambda n: [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/{n}/series.csv"))]
F, F0, F2 = rows("cross"), rows("cross0"), rows("cross2")
keys = ["momentum_x", "momentum_y", "momentum_z", "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"]
after = [r for r in F if r["t"] > 0.045]
drift = max((max(r[k] for r in after) - min(r[k] for r in after)) / max(abs(r[k]) for r in after) for k in keys)
hits = sum(1 for r in F if r["rods_contact_pairs"] > 0)
bal = lambda R: max(r["energy_total"] - r["work_external"] - r.get("rods_friction_work", 0) for r in R) - \
    min(r["energy_total"] - r["work_external"] - r.get("rods_friction_work", 0) for r in R)
free = lambda R: [r["energy_total"] - r["work_external"] for r in R if r["t"] > 0.045 and r["rods_contact_pairs"] == 0]
e, e0 = free(F), free(F0)
W = max(r["energy_total"] for r in F0)
b1, b2 = bal(F), bal(F2)
good = (drift < 1e-8 and hits >= 10 and e[-1] < e0[-1] - 0.005 * W and F[-1]["rods_friction_work"] < 0
        and all(y <= x + 2 * b1 for x, y in zip(e, e[1:])) and b1 < 1e-5 * W and b2 < 0.7 * b1)
open(d + "/verdict", "w").write(
    f"crossing free rods with friction: {hits} outputs pressing; after the push every component of Sum p and "
    f"Sum (x x p + R mu) constant to {drift:.1e} of its size (the series' 10 digits); out of contact the energy less the "
    f"loads' work ends {e0[-1] - e[-1]:.3e} J below the frictionless run's (of {W:.4f} J), the friction's work "
    f"{F[-1]['rods_friction_work']:.3e} J; T + U - W - W_friction within {b1:.2g} J (h), {b2:.2g} J (h/2)")
sys.exit(not good)
PY

# ---- SIGINT and --resume while the rails' pairs stick: the anchors come back from the checkpoint ----
run_scenario held "$tmp/hold.json" --set stages.0.checkpoint_interval=0.005
if interrupt_resume "$tmp/cut" 16 600 0.01 "$cli" run "$tmp/hold.json" -o "$tmp/cut" -q \
    --set stages.0.checkpoint_interval=0.005; then
    if cmp -s "$tmp/held/series.csv" "$tmp/cut/series.csv" && cmp -s "$tmp/held/nodes.csv" "$tmp/cut/nodes.csv"; then
        ok "resume: the rails held by the pairs' springs, interrupted after $cut_rows rows and resumed: series.csv and nodes.csv identical"
    else
        bad "resume: the resumed run differs: $(diff "$tmp/held/series.csv" "$tmp/cut/series.csv" | head -3)"
    fi
fi
# the checkpoints' fingerprint (summary.json's) holds mu_s and mu_k: a frictionless run's or another
# mu_k's checkpoint does not resume this scenario
run_scenario nofric "$tmp/hold.json" --set contact.rods_friction=null --set stages.0.t_end=0.01
run_scenario muk "$tmp/hold.json" --set contact.rods_friction.kinetic=0.25 --set stages.0.t_end=0.01
$py - "$tmp" <<'PY' && ok "the fingerprint holds the friction: $(cat "$tmp/verdict")" || bad "fingerprint: $(cat "$tmp/verdict")"
import json, sys
d = sys.argv[1]
f = [json.load(open(f"{d}/{n}/summary.json"))["fingerprint"] for n in ("held", "nofric", "muk")]
open(d + "/verdict", "w").write(", ".join(f))
sys.exit(not (len(set(f)) == 3))
PY
# the stable step at check counts the tangential springs' levers on the sections' rotations (1 + a^2
# rhoA/rhoJ_min = 5 times the penalty's omega^2 for a solid circle): a stiffness the frictionless rods
# take at this step is refused with the friction, naming it
"$cli" check "$tmp/cross0.json" --set contact.stiffness=1e7 > /dev/null 2>&1 || bad "check: the frictionless rods refused at contact.stiffness 1e7"
expect_error 1 "with contact.rods_friction's tangential springs" check "$tmp/cross.json" --set contact.stiffness=1e7
exit $fail
