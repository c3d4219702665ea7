#!/bin/bash
# Stick anchors across a scenario's stage boundaries (docs/scenario.md "Multi-stage runs"): a
# boundary changes loads, supports or the step, it is no physical event, so a node (a pair) that
# sticks goes on sticking to the same material point. Every model against the same run as a
# single stage, the analytic stick bound and the other models:
#   rails     (contact.rods_friction) a slider across two clamped rails (tests/lgvi_contact_rods_friction.sh's,
#             mu_s = 0.4, mu_k = 0.3) pulled along its axis by T = 0.3 m g, ramped over 0.055 s (one
#             period of the slider on the two stick springs, 2 pi (m/(2 eps))^1/2: no swing left) and
#             held by the springs at T/(2 eps): lgvi in one dynamic stage of 0.08 s and in two of
#             0.06 + 0.02 s, identical to round-off (its anchors always carried over); mixed_discrete
#             in three stages, dynamic 0.06 s, dynamic 0.02 s, static (a support along the slider's axis
#             added there: none in dynamics): across the dynamic boundary it holds at T/(2 eps) (2 %),
#             moves less than 1e-6 m in the 5 ms after it and stays within 1e-6 m of the lgvi's single
#             stage (the mixed rod anchored its pairs afresh at a new stage before: the springs'
#             stretch was lost and the slider slid away, mm off by 0.08 s); the static stage holds it
#             at the material points it stuck to (where it stood at t = 0, within 1 % of T/(2 eps)),
#             so it moves back by the springs' stretch, less than mu_s N/eps; the three stages cut
#             in stage 0 and resumed equal the uninterrupted run (the anchors in the checkpoint
#             carry over both boundaries)
#   cord      (obstacles.friction) a cord on rough ground pulled at its end by half mu_s m g (placed
#             just touching, it bounces on its undamped contact springs and ratchets forward while the
#             bounce unloads it: docs/lgvi.md "Friction"; the check is one stage against two), the
#             same two runs in every model: mixed_discrete within 5e-6 m of its single stage (its
#             anchors were always kept), lgvi (exact stick, no anchors) and port_hamiltonian
#             (regularized, no anchors) identical to round-off
#             the cord dragged by 1.5 mu_s m g (sliding across the boundary), the same: mixed_discrete
#             within 1e-6 m (it re-stuck its sliding nodes at a new stage before: 1.1e-5 m behind by
#             0.1 s), lgvi and port_hamiltonian identical
#   static -> dynamic, dynamic -> static (cord, constant pull): mixed_discrete's static
#             multipliers move into the anchors (the same force): the cord's end holds where the
#             static stage left it to 1e-9 m; after a dynamic stage a static one holds the node at
#             its anchor: it moves less than mu_s N_i/eps_i; port_hamiltonian (anchors in statics
#             only, none in its regularized dynamics): its end jumps less than that bound into
#             the dynamic stage, then creeps (docs/port-hamiltonian.md "Friction"); after 0.05 s of
#             dynamics (the cord bouncing) its static stage anchors the nodes where they touch and
#             holds the cord (it failed before: the first multiplier update put half its nodes beyond
#             the limit) within its regularization mu_s N_I/k_I of the dynamic state and of the
#             mixed rod's move from its own; the ground carries the pull and the weight (both models),
#             no node beyond mu_s N; pulled by 1.5 mu_s m g, beyond the friction, both fail, and
#             port_hamiltonian says no load step converged from the dynamic stage's state.
# Usage: stage_anchors.sh CLI SOURCE_DIR
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
def dyn(model, t_end, out_dt, h):
    st = {"type": "dynamic", "t_end": t_end, "output_dt": out_dt}
    st.update({"time_step": h} if model != "mixed_discrete" else {"rtol": 1e-5, "atol": 1e-8})
    return st
def rails(model, ends, out):
    rho, E, rr, rs, g, eps = 7800.0, 2e10, 0.005, 0.005, 9.81, 2000.0
    m = rho * math.pi * rs**2 * 0.5
    d0 = (m * g / 2) / eps
    q = [math.sqrt(0.5), 0, 0, math.sqrt(0.5)]
    mat = {"material": {"E": E, "G": E / 2.5, "rho": rho}, "sections": [{"shape": "circle", "radius": rr}]}
    rail = lambda name, y: dict(name=name, length=0.1, elements=5, reference={"origin": [-0.05, y, 0]}, **mat)
    sc = {"name": "rails", "model": model,
          "rods": [rail("r1", -0.1625), rail("r2", 0.1625),
                   dict(name="slider", length=0.45, elements=18, reference={"origin": [0, -0.25, rr + rs - d0], "quaternion": q}, **mat),
                   dict(name="tip", length=0.05, elements=2, reference={"origin": [0, 0.2, rr + rs - d0], "quaternion": q}, **mat)],
          "joints": [{"type": "weld", "a": "slider:end", "b": "tip:start"}],
          "boundary_conditions": [{"type": "clamp", "node": n} for n in ("r1:start", "r1:end", "r2:start", "r2:end")],
          "loads": [{"type": "gravity", "value": [0, 0, -g]},
                    {"type": "force", "node": "tip:end", "value": [0, 0.3 * m * g, 0],
                     "time": {"type": "table", "points": [[0, 0], [0.055, 1], [100, 1]]}}],
          "contact": {"rods": True, "stiffness": eps, "tolerance": 2 * d0,
                      "rods_friction": {"static": 0.4, "kinetic": 0.3}},
          "output": {"track": [{"name": "mid", "node": "slider:10"}], "vtk": False},
          "stages": [dyn(model, t, 0.0025, 2.5e-6) if t != "s" else {"type": "static"} for t in ends]}
    if "s" in ends:  # a static stage needs a support: along the slider's axis and about it
        sc["boundary_conditions"].append({"type": "support", "node": "slider:start", "hold": ["x", "ry"],
                                          "stages": [ends.index("s")]})
    json.dump(sc, open(f"{d}/{out}.json", "w"))
def cord(model, stages, out, ramp=True, pull=0.5):
    rho, r, L, g = 1100.0, 0.005, 0.5, 9.81
    m = rho * math.pi * r * r * L
    h = 2e-5 if model == "lgvi" else 2.5e-4
    time = {"type": "table", "points": [[0, 0], [0.05, 1], [100, 1]]} if ramp else {"type": "constant"}
    sc = {"name": "cord", "model": model,
          "rod": {"length": L, "elements": 10, "material": {"E": 1e7, "G": 4e6, "rho": rho},
                  "reference": {"type": "straight", "origin": [0, 0, r]}, "sections": [{"shape": "circle", "radius": r}]},
          "loads": [{"type": "gravity", "value": [0, 0, -g]},
                    {"type": "force", "node": "end", "value": [pull * 0.6 * m * g, 0, 0], "time": time}],
          "obstacles": [{"type": "plane", "name": "ground", "point": [0, 0, 0], "normal": [0, 0, 1],
                         "friction": {"static": 0.6, "kinetic": 0.4}}],
          "contact": {"stiffness": 1000},
          "output": {"track": [{"name": "e", "node": "end"}, {"name": "s", "node": "start"}], "vtk": False},
          "stages": [{"type": "static"} if t == "s" else dict(dyn(model, t, 0.0025, h), rtol=1e-7, atol=1e-10)
                     if model == "mixed_discrete" else dyn(model, t, 0.0025, h) for t in stages]}
    json.dump(sc, open(f"{d}/{out}.json", "w"))
rails("lgvi", [0.08], "rails_l1")
rails("lgvi", [0.06, 0.02], "rails_l2")
rails("mixed_discrete", [0.06, 0.02, "s"], "rails_m")
for model, k in (("mixed_discrete", "m"), ("lgvi", "l"), ("port_hamiltonian", "p")):
    cord(model, [0.1], f"cord_{k}1")
    cord(model, [0.06, 0.04], f"cord_{k}2")
    cord(model, [0.1], f"slide_{k}1", pull=1.5)
    cord(model, [0.06, 0.04], f"slide_{k}2", pull=1.5)
for model, k in (("mixed_discrete", "m"), ("port_hamiltonian", "p")):
    cord(model, ["s", 0.05], f"sd_{k}", ramp=False)
for model, k in (("mixed_discrete", "m"), ("port_hamiltonian", "p")):
    cord(model, [0.05, "s"], f"ds_{k}", ramp=False)
    cord(model, [0.05, "s"], f"dx_{k}", ramp=False, pull=1.5)
PY

for c in rails_m rails_l1 rails_l2 cord_m1 cord_m2 cord_l1 cord_l2 cord_p1 cord_p2 slide_m1 slide_m2 slide_l1 slide_l2 \
    slide_p1 slide_p2 sd_m sd_p ds_m ds_p; do
    run_scenario "$c" "$tmp/$c.json"
done

# the same run as one stage and as two: the largest difference of the tracked points over the common rows
$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rows = lambda n: [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/{n}/series.csv"))]
def gap(a, b, cols):
    A, B = rows(a), rows(b)
    # the two-stage run repeats the boundary's row: match the rows by their time
    Bt = {round(r["t"], 9): r for r in B}
    common = [(r, Bt[round(r["t"], 9)]) for r in A if round(r["t"], 9) in Bt]
    assert len(common) >= len(A) - 1, (a, b, len(common), len(A))
    return max(abs(x[c] - y[c]) for x, y in common for c in cols)
res = {"rails lgvi": gap("rails_l1", "rails_l2", ["mid_y"]), "rails mixed/lgvi": gap("rails_l1", "rails_m", ["mid_y"]),
       "cord mixed": gap("cord_m1", "cord_m2", ["e_x", "s_x"]), "cord lgvi": gap("cord_l1", "cord_l2", ["e_x", "s_x"]),
       "cord port_hamiltonian": gap("cord_p1", "cord_p2", ["e_x", "s_x"]),
       "sliding cord mixed": gap("slide_m1", "slide_m2", ["e_x", "s_x"]),
       "sliding cord lgvi": gap("slide_l1", "slide_l2", ["e_x", "s_x"]),
       "sliding cord port_hamiltonian": gap("slide_p1", "slide_p2", ["e_x", "s_x"])}
allowed = {"rails lgvi": 1e-12, "rails mixed/lgvi": 1e-6, "cord mixed": 5e-6, "cord lgvi": 1e-12,
           "cord port_hamiltonian": 1e-12, "sliding cord mixed": 1e-6, "sliding cord lgvi": 1e-12,
           "sliding cord port_hamiltonian": 1e-12}
open(d + "/verdict", "w").write(
    "one dynamic stage against two (the pull held across the boundary at 0.06 s): "
    + ", ".join(f"{k} {v:.2g} m (allowed {allowed[k]:g})" for k, v in res.items()))
sys.exit(not all(res[k] <= allowed[k] for k in res))
PY

# the mixed rails at their stage boundaries: dynamic -> dynamic (held), dynamic -> static (back at the anchors)
$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, json, math, sys
d = sys.argv[1]
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/rails_m/series.csv"))]
m = 7800 * math.pi * 0.005**2 * 0.5
T, N, eps = 0.3 * m * 9.81, m * 9.81 / 2, 2000.0
held = [r["mid_y"] for r in R if r["t"] >= 0.06]
at = [r["mid_y"] for r in R if abs(r["t"] - 0.06) < 1e-9]  # the boundary's row, twice
after = next(r["mid_y"] for r in R if abs(r["t"] - 0.065) < 1e-9)
mean = sum(held) / len(held)
ends = [s["track"]["mid"]["position"][1] for s in json.load(open(f"{d}/rails_m/summary.json"))["stages"]]
back = abs(ends[2] - ends[1])
open(d + "/verdict", "w").write(
    f"mixed rails: after the dynamic boundary held at {mean:.5g} m (T/(2 eps) = {T / (2 * eps):.5g}), at most "
    f"{max(held):.4g} (mu_s N/eps = {0.4 * N / eps:.4g}), {abs(after - at[-1]):.2g} m in the 5 ms after it; the static "
    f"stage holds it {abs(ends[2]):.2g} m from where it stuck, back by {back:.4g} m (< mu_s N/eps)")
sys.exit(not (len(at) == 2 and at[0] == at[1] and abs(mean / (T / (2 * eps)) - 1) < 0.02 and max(held) < 0.4 * N / eps
              and abs(after - at[-1]) < 1e-6 and abs(ends[2]) < 0.01 * T / (2 * eps) and back < 0.4 * N / eps))
PY

# static -> dynamic and dynamic -> static (the cord, its pull constant)
$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, json, math, sys
d = sys.argv[1]
rows = lambda n: [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/{n}/series.csv"))]
ends = lambda n, c: [s["track"][c]["position"][0] for s in json.load(open(f"{d}/{n}/summary.json"))["stages"]]
rho, r, L, g, mu, eps = 1100.0, 0.005, 0.5, 9.81, 0.6, 1000.0
# a node's stick bound mu_s N_i/eps_i: N_i its weight, eps_i = eps times its share of the length (L/10)
bound = mu * rho * math.pi * r * r * (L / 10) * g / (eps * L / 10)
out, good = [], True
for k, name in (("m", "mixed_discrete"), ("p", "port_hamiltonian")):
    x0 = ends(f"sd_{k}", "e")[0]
    R = rows(f"sd_{k}")
    jump = max(abs(q["e_x"] - x0) for q in R[:3])  # (the dynamic stage's first 5 ms)
    drift = max(abs(q["e_x"] - x0) for q in R)
    out.append(f"{name} static -> dynamic: its end {jump:.2g} m from the static state in 5 ms, {drift:.2g} m in 0.05 s")
    good &= jump < (1e-9 if k == "m" else bound)
e, s = ends("ds_m", "e"), ends("ds_m", "s")
move = max(abs(e[1] - e[0]), abs(s[1] - s[0]))
out.append(f"mixed_discrete dynamic -> static: the nodes move {move:.2g} m (bound mu_s N_i/eps_i = {bound:.2g})")
good &= move < bound
# port_hamiltonian dynamic -> static: its nodes anchored where the bouncing cord touches after 0.05 s (no
# anchors in its dynamics), lambda_T from 0 under the whole pull. Its stick regularization mu_s N_I/k_I:
# k_I and N_I are the contact stiffness and the weight times the same Simpson share of l = L/20, so
# mu_s w l/eps = 1.27e-5 m. The ends stay within it of the dynamic state and of the mixed rod's moves
# from its own (2.5e-6 and 4.6e-6 m; the two models' dynamic states differ by 1.4e-4 m, the bounce).
reg = mu * rho * math.pi * r * r * g * (L / 20) / eps
ep, sp = ends("ds_p", "e"), ends("ds_p", "s")
dp, dm = (ep[1] - ep[0], sp[1] - sp[0]), (e[1] - e[0], s[1] - s[0])
gap = max(abs(a - b) for a, b in zip(dp, dm))
# the static state's contact forces: the ground carries the pull and the weight, no node beyond mu_s N
W, T = rho * math.pi * r * r * L * g, 0.5 * mu * rho * math.pi * r * r * L * g
forces = []
for k in ("m", "p"):
    N = [{c: float(v) for c, v in q.items()} for q in csv.DictReader(open(f"{d}/ds_{k}/nodes.csv"))]
    fx, fz = sum(q["contact_fx"] for q in N), sum(q["contact_fz"] for q in N)
    ratio = max(math.hypot(q["contact_fx"], q["contact_fy"]) / (mu * q["contact_fz"]) for q in N if q["contact_fz"] > 0)
    forces.append((fx, fz, ratio))
    good &= abs(-fx / T - 1) < 1e-6 and abs(fz / W - 1) < 1e-6 and ratio <= 1 + 1e-9
held = json.load(open(f"{d}/ds_p/summary.json"))["stages"][1]["load_factor"]  # (0.25 when it failed)
out.append(f"port_hamiltonian dynamic -> static (after 0.05 s, the cord bouncing): load factor {held:g}, its ends move "
           f"{abs(dp[0]):.2g} and {abs(dp[1]):.2g} m (its regularization mu_s N_I/k_I = {reg:.3g}), "
           f"{gap:.2g} m from the mixed rod's moves; the ground carries {-forces[1][0] / T:.9f} of the pull "
           f"and {forces[1][1] / W:.9f} of the weight (mixed {-forces[0][0] / T:.9f}, {forces[0][1] / W:.9f}), "
           f"friction at most {forces[1][2]:.3f} of mu_s N (mixed {forces[0][2]:.3f})")
good &= held == 1 and max(abs(x) for x in dp) < reg and gap < reg
open(d + "/verdict", "w").write("; ".join(out))
sys.exit(not good)
PY

# dynamic -> static with a pull of 1.5 mu_s m g, beyond what the ground's friction holds: no equilibrium
# (the mixed rod fails too, naming its landing), and port_hamiltonian says that no load step converged
# from the state the dynamic stage left (its loads being that state's, its load factor ramps nothing)
# rather than quote the friction "at the last equilibrium (load factor 0)" it never had
expect_error 2 "stage 1: the rod is held by no support" run "$tmp/dx_m.json" -q -o "$tmp/dx_m"
expect_error 2 "obstacles.0.friction: no static equilibrium found while 21 nodes touch obstacle \"ground\" with \
friction (mu_static 0.6); no load step converged from the state the dynamic stage left (no equilibrium; the loads \
are those it ended with, nothing to ramp)" run "$tmp/dx_p.json" -q -o "$tmp/dx_p"

# resumed: the mixed three-stage rails cut in stage 0 (the anchors in the checkpoint) and resumed
if interrupt_resume "$tmp/cut" 20 6000 0.01 "$cli" run "$tmp/rails_m.json" -q -o "$tmp/cut" \
    --set stages.0.checkpoint_interval=0.005; then
    cut=$cut_rows
    $py - "$tmp" "$cut" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, json, sys
a = list(csv.DictReader(open(sys.argv[1] + "/rails_m/series.csv")))
b = list(csv.DictReader(open(sys.argv[1] + "/cut/series.csv")))
cut = int(sys.argv[2])
gap = max(abs(float(x["mid_y"]) - float(y["mid_y"])) for x, y in zip(a, b))
end = lambda n: json.load(open(f"{sys.argv[1]}/{n}/summary.json"))["stages"][2]["track"]["mid"]["position"][1]
gap = max(gap, abs(end("rails_m") - end("cut")))
good = len(a) == len(b) and gap < 1e-9 and float(a[cut - 1]["t"]) < 0.06
open(sys.argv[1] + "/verdict", "w").write(
    f"rails resumed: cut in stage 0 at t = {a[cut - 1]['t']} s, the slider's middle across both boundaries within "
    f"{gap:.2g} m of the uninterrupted run (allowed 1e-9)")
sys.exit(not good)
PY
fi
exit $fail
