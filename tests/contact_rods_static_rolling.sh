#!/bin/bash
# Friction between the rods in static stages acts at the contact points, with its moments about
# the centrelines, as in dynamic stages (contact.rods_friction; docs/theory.md "Friction between
# the rods in static stages"), through the CLI, against equilibrium and the dynamics:
#   the slider of contact_rods_static_friction.sh (steel, r = a = 5 mm, 0.5 m, mu_s = 0.4) lying
#   across two clamped rails, pressed into them by its weight in a first static stage (its start
#   held), then pushed ALONG the rails (across its own axis) by a force density q = 1 N/m in a
#   second one:
#     - with the axial torque density tau = q a that balances the friction's moment about its
#       axis, its rotation about its axis held at its start (else rolling is a free motion of the
#       tangent, and the solve may stop anywhere along it or find it singular): at rest, each
#       rail carrying the friction q L/2 (its clamps' reactions against the slider's statics at
#       its resting place, (q L/2)(1 -/+ yc/b): 3e-8; measured 5e-9), that support taking nothing
#       (1e-6 of a q L);
#     - without the torque, the same support takes a q L (the friction's moment: 1e-6; with the
#       friction at the centreline it took 0), the rails together q L (3e-8);
#     - without the torque and free of every support: no equilibrium (the friction at the bottom
#       of the slider rolls it; where the friction acted at the centreline it stuck): the stage
#       fails naming contact.rods_friction;
#   the slider pulled along its axis by 0.35 m g (its start held along x and in rotation): each
#   rail's clamps take the friction's moment about the rail's axis, a T/2 (the friction acts on
#   the rail's top surface; none with the force at the centreline);
#   the same pull in a damped dynamic stage (drag; the pull ramped over 0.1 s, then held to 0.35 s):
#   its rest state is the static equilibrium once the penalty's own deflections are taken out
#   (dynamics presses the pairs by N/eps and stretches their stick springs by T/(2 eps), which
#   the static augmented Lagrangian holds at 0): within 2e-5 m (measured 8.6e-6 m; 5.4e-7 m at
#   a 100 times stiffer contact: the remainder is the penalty's compliance).
# Usage: contact_rods_static_rolling.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

$py - "$tmp" <<'PY'
import json, math, sys
rho, E, G, a, L, g, eps = 7800.0, 2e11, 8e10, 0.005, 0.5, 9.81, 2000.0
m = rho * math.pi * a**2 * L
def base(name):
    rail = lambda n, y: {"name": n, "length": 0.1, "elements": 5, "material": {"E": E, "G": G, "rho": rho},
                         "sections": [{"shape": "circle", "radius": a}], "reference": {"origin": [-0.05, y, 0]}}
    return {"name": name, "model": "mixed_discrete",
            "rods": [rail("r1", -0.1625), rail("r2", 0.1625),
                     # touching the rails to 5e-7 m (within the tolerance): pressing from the start
                     {"name": "slider", "length": L, "elements": 20, "material": {"E": E, "G": G, "rho": rho},
                      "sections": [{"shape": "circle", "radius": a}],
                      "reference": {"origin": [0, -0.25, 2 * a - 5e-7],
                                    "quaternion": [math.sqrt(0.5), 0, 0, math.sqrt(0.5)]}}],
            "boundary_conditions": [{"type": "clamp", "node": n} for n in ("r1:start", "r1:end", "r2:start", "r2:end")]
            + [{"type": "support", "node": "slider:start", "hold": ["x", "y", "rx", "ry", "rz"], "stages": [0]}],
            "loads": [{"type": "gravity", "value": [0, 0, -g]}],
            "contact": {"rods": True, "stiffness": eps, "tolerance": 1e-6,
                        "rods_friction": {"static": 0.4, "kinetic": 0.3}},
            "output": {"track": [{"name": "mid", "node": "slider:10"}], "vtk": False},
            "stages": [{"type": "static", "load_steps": 2}, {"type": "static", "load_steps": 2, "rtol": 1e-9}]}
def push(out, q, tau, held):  # along the rails (x), the slider (along y) free in the second stage but
    sc = base("push")       # (held) for its rotation about its axis at its start
    if held:
        sc["boundary_conditions"].append({"type": "support", "node": "slider:start", "hold": ["ry"], "stages": [1]})
    sc["loads"].append({"type": "force_density", "rod": "slider", "value": [q, 0, 0], "stages": [1]})
    if tau:  # the friction -q L/2 e_x at -a e_z from the centreline: its moment (a q L/2) e_y, balanced
        sc["loads"].append({"type": "moment_density", "rod": "slider", "value": [0, -tau, 0], "stages": [1]})
    json.dump(sc, open(out, "w"))
def pull(out, dynamic):  # along the slider's axis at its end, its start held along x and in rotation
    sc = base("pull")
    sc["boundary_conditions"].append({"type": "support", "node": "slider:start", "hold": ["x", "rx", "ry", "rz"],
                                      "stages": [1]})
    sc["loads"].append({"type": "force", "node": "slider:end", "value": [0, 0.35 * m * g, 0], "stages": [1]})
    if dynamic:  # drag about critical for the slider on the stick springs (omega = sqrt(2 eps/m))
        sc["rods"][2]["damping"] = {"drag": 70.0, "rotational_drag": 0.01, "relaxation_time": 1e-4}
        sc["loads"][-1]["time"] = {"type": "table", "points": [[0, 0], [0.1, 1], [100, 1]]}
        sc["stages"][1] = {"type": "dynamic", "t_end": 0.35, "output_dt": 0.05, "rtol": 1e-6, "atol": 1e-9}
    json.dump(sc, open(out, "w"))
d = sys.argv[1]
push(d + "/bal.json", 1.0, 1.0 * a, 1)
push(d + "/held.json", 1.0, 0, 1)
push(d + "/unbal.json", 1.0, 0, 0)
pull(d + "/st.json", 0)
pull(d + "/dy.json", 1)
PY

for c in bal held st dy; do
    timeout -k 5 300 "$cli" run "$tmp/$c.json" -q -o "$tmp/$c" > "$tmp/$c.log" 2>&1 || bad "$c: the run failed: $(head -c 400 "$tmp/$c.log")"
done

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import json, sys
d = sys.argv[1]
q, L, a = 1.0, 0.5, 0.005
out, good = [], True
for c, mref in (("bal", 0.0), ("held", -a * q * L)):
    s = json.load(open(d + f"/{c}/summary.json"))
    share = {r: -sum(x["force"][0] for x in s["reactions"] if x["rod"] == r) for r in ("r1", "r2")}
    # the slider's statics at its resting place (its middle at yc, within the stick tolerance of
    # 0): the moment about z splits q L as (q L/2)(1 -/+ yc/b), b = 0.1625 m the rails' offset
    yc = s["track"]["mid"]["position"][1]
    ref = {"r1": q * L / 2 * (1 - yc / 0.1625), "r2": q * L / 2 * (1 + yc / 0.1625)}
    err = max(abs(share[r] / ref[r] - 1) for r in ref)
    if c == "held":  # (the support's reaction, about its tilted axis, has a share in that moment: the sum)
        err = abs((share["r1"] + share["r2"]) / (q * L) - 1)
    # the support about the slider's axis: the body y axis of its start node is the inertial -x...
    # its reaction about the inertial y axis (the slider's axis) from the body components
    sup = [x for x in s["reactions"] if x["rod"] == "slider"]
    mom = sup[0]["moment_body"] if len(sup) == 1 else [float("nan")] * 3
    about = max(mom, key=abs)
    merr = abs(about - mref) / (a * q * L)
    good &= err < 3e-8 and merr < 1e-6
    what = "(q L/2)(1 -/+ yc/b) with q L/2 = 0.25 N," if c == "bal" else "together q L = 0.5 N,"
    out.append(f"{'with tau = q a' if c == 'bal' else 'without tau'}: the rails carry {share['r1']:.10f} N and "
               f"{share['r2']:.10f} N of friction ({what} yc = {yc:.2g} m: {err:.2g} relative, 3e-8), the support about "
               f"the axis {about:.4g} N m (reference {mref:.4g}: {merr:.2g} of a q L, 1e-6)")
open(d + "/verdict", "w").write("pushed along the rails by q, the slider's rotation about its axis held at its start: "
                                + "; ".join(out))
sys.exit(not good)
PY

timeout -k 5 120 "$cli" run "$tmp/unbal.json" -q -o "$tmp/unbal" > "$tmp/unbal.log" 2>&1
code=$?
if [ "$code" -eq 2 ] && grep -q "contact.rods_friction" "$tmp/unbal.log" && grep -q "rolls" "$tmp/unbal.log"; then
    ok "pushed along the rails without the torque: exit 2, naming contact.rods_friction (the slider rolls)"
else
    bad "pushed without the torque: exit $code, $(head -c 400 "$tmp/unbal.log")"
fi

$py - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, json, math, sys
d = sys.argv[1]
m, g, a, eps = 7800 * math.pi * 0.005**2 * 0.5, 9.81, 0.005, 2000.0
T = 0.35 * m * g
s = json.load(open(d + "/st/summary.json"))
tors = {r: sum(x["moment_body"][0] for x in s["reactions"] if x["rod"] == r) for r in ("r1", "r2")}
terr = max(abs(v / (a * T / 2) - 1) for v in tors.values())
# the dynamics' rest state against the statics' equilibrium, the penalty's deflections taken out
st = list(csv.DictReader(open(d + "/st/nodes.csv")))
dy = list(csv.DictReader(open(d + "/dy/nodes.csv")))
shift = [0.0, T / (2 * eps), -m * g / (2 * eps)]
P = lambda r: [float(r[k]) for k in "xyz"]
raw = max(math.dist(P(x), P(y)) for x, y in zip(st, dy))
dist = max(math.dist([P(x)[k] + (shift[k] if x["rod"] == "slider" else 0) for k in range(3)], P(y))
           for x, y in zip(st, dy))
good = terr < 2e-3 and len(st) == len(dy) == 33 and dist < 2e-5 and raw > 5e-4
open(d + "/verdict", "w").write(
    f"pulled along its axis by 0.35 m g: the rails' clamps take {tors['r1']:.7f} and {tors['r2']:.7f} N m about "
    f"the rails' axes (a T/2 = {a * T / 2:.7f}: {terr:.2g} relative, 2e-3); the damped dynamic run rests "
    f"{raw:.3g} m from the static equilibrium, {dist:.2g} m once the penalty's deflections "
    f"(T/(2 eps), m g/(2 eps)) are taken out (2e-5)")
sys.exit(not good)
PY
exit $fail
