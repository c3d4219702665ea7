#!/bin/bash
# A rod held by no support, only by obstacles, in static stages (docs/theory.md "A rod held by
# obstacles alone"): statics lands it where a damped rod comes to rest.
#   examples/cable-on-ground.json 1 cm above the ground: lands flat, the ground carries the weight
#     (1e-9 relative), no node deeper than contact.tolerance, every node's x and y where they
#     started (friction, landing straight down: 1e-9 m);
#   a rod 45 mm above rough ground under gravity tilted by 10 degrees: it lands along the load,
#     each node's x shifted by its fall times g_x/g_z (1e-9 m), the ground carries the weight's
#     normal component and friction its tangential one, m g sin(alpha) (1e-9 relative);
#   the same rod dropped (a dynamic stage of 3 s, which ends with it bouncing) then a static stage,
#     on flat and on tilted gravity: at rest on the ground, normal force = weight component,
#     friction = tangential component (1e-9 relative), every node's |f_t| <= mu_s N;
#   the landing against a long, heavily damped dynamic run of the same drop (isotropic drag,
#     overdamped: it comes to rest): node positions agree to 0.1 mm along the ground (the
#     slide along the fall is 7.9 mm) and to 0.25 mm across it (the dynamic contact's penalty
#     depth, 0.18 mm);
#   a frictionless ground under vertical gravity: lands, its slide a gauge that stays put;
#   a rod with no obstacle in the loads' direction: the failure names the stage and says so, also
#     as the fallback of load steps that failed (a rod lifted off the ground);
#   a rod leaning on the ground by its end falls flat: the ground carries the weight (1e-9), every
#     node's friction within mu_s N, and it lies where the same fall with heavy drag ends (0.5 mm).
# Usage: static_landing.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad, expect_error

ex="$src/examples/cable-on-ground.json"
if "$cli" run "$ex" -q -o "$tmp/above" --set 'rod.reference.origin=[0,0,0.015]' --set 'stages=[{"type":"static"}]' \
    --set 'loads=[{"type":"gravity","value":[0,0,-9.81]}]' \
    > "$tmp/above.log" 2>&1; then
    python3 - "$tmp/above" <<'PY' && ok "cable 1 cm above the ground: lands straight down, weight carried" || bad "cable above"
import csv, json, math, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
c = s["contact"]
W = 1100 * math.pi * 0.005**2 * 2 * 9.81
assert abs(c["force"][2] / W - 1) < 1e-9 and abs(c["force"][0]) < 1e-9 * W and abs(c["force"][1]) < 1e-9 * W, c
assert c["active"] == 41 and c["largest_penetration"] <= c["tolerance"], c
for r in csv.DictReader(open(d + "/nodes.csv")):
    x, y, z, s_ = (float(r[k]) for k in ("x", "y", "z", "s"))
    assert abs(x - s_) < 1e-9 and abs(y) < 1e-9, (s_, x, y)
    assert abs(float(r["contact_gap"])) <= c["tolerance"] and float(r["contact_state"]) == 1, r
PY
else
    bad "cable 1 cm above the ground: the run failed: $(head -c 600 "$tmp/above.log")"
fi

# a 1 m cord, 45 mm above rough ground (mu_s 0.6), gravity tilted by 10 degrees along x
cat > "$tmp/drop.json" <<'JSON'
{"name": "drop", "rod": {"length": 1, "elements": 20, "material": {"E": 5e6, "G": 1.7e6, "rho": 1100},
 "reference": {"type": "straight", "origin": [0, 0, 0.05]}, "sections": [{"shape": "circle", "radius": 0.005}]},
 "loads": [{"type": "gravity", "value": [-1.7035, 0, -9.661]}],
 "obstacles": [{"type": "plane", "name": "ground", "point": [0, 0, 0], "normal": [0, 0, 1],
                "friction": {"static": 0.6, "kinetic": 0.4}}],
 "stages": [{"type": "dynamic", "t_end": 3, "output_dt": 0.05, "rtol": 1e-5, "atol": 1e-8}, {"type": "static"}],
 "output": {"directory": "out", "vtk": false}}
JSON
# check DIR GX GZ [FALL]: at rest on the ground with the weight's components carried; FALL: each
# node's x moved by its fall times g_x/g_z
check_rest() {
    python3 - "$@" <<'PY'
import csv, json, math, sys
d, gx, gz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
fall = len(sys.argv) > 4
s = json.load(open(d + "/summary.json"))
assert s["converged"], s["message"]
c = s["contact"]
m = 1100 * math.pi * 0.005**2 * 1
assert abs(c["force"][2] / (-m * gz) - 1) < 1e-9, (c, -m * gz)
assert abs(c["force"][0] + m * gx) < 1e-9 * m * abs(gz) and abs(c["force"][1]) < 1e-9 * m * abs(gz), c
assert c["active"] == 21 and c["sliding"] == 0 and c["largest_penetration"] <= c["tolerance"], c
for r in csv.DictReader(open(d + "/nodes.csv")):
    fx, fy, fz = (float(r[k]) for k in ("contact_fx", "contact_fy", "contact_fz"))
    assert math.hypot(fx, fy) <= 0.6 * fz * (1 + 1e-12), r
    if fall:
        dx = float(r["x"]) - float(r["s"])
        assert abs(dx - (float(r["z"]) - 0.05) * gx / gz) < 1e-9, (r["s"], dx)
PY
}
if "$cli" run "$tmp/drop.json" -q -o "$tmp/land" --set 'stages=[{"type":"static"}]' > "$tmp/land.log" 2>&1; then
    check_rest "$tmp/land" -1.7035 -9.661 fall && ok "tilted gravity: lands along the load, friction = m g sin(alpha)" ||
        bad "tilted gravity landing"
else
    bad "tilted gravity: the static stage failed: $(head -c 600 "$tmp/land.log")"
fi
for g in "-1.7035 -9.661" "0 -9.81"; do
    set -- $g
    if "$cli" run "$tmp/drop.json" -q -o "$tmp/seq" --set "loads.0.value=[$1,0,$2]" > "$tmp/seq.log" 2>&1; then
        check_rest "$tmp/seq" "$1" "$2" && ok "dropped (g = [$1, 0, $2]), then static: at rest on the ground" ||
            bad "dropped (g = [$1, 0, $2]), then static"
    else
        bad "dropped (g = [$1, 0, $2]), then static: the run failed: $(head -c 600 "$tmp/seq.log")"
    fi
done

# the same drop in a long dynamic stage with heavy isotropic drag (terminal speed 8.5 cm/s):
# it comes to rest where the landing put it
if "$cli" run "$tmp/drop.json" -q -o "$tmp/damped" --set 'rod.damping={"drag":10,"rotational_drag":0.001}' \
    --set 'stages=[{"type":"dynamic","t_end":3,"output_dt":0.1,"rtol":1e-5,"atol":1e-8}]' > "$tmp/damped.log" 2>&1 &&
    [ -f "$tmp/land/nodes.csv" ]; then
    python3 - "$tmp/land" "$tmp/damped" <<'PY' && ok "landing = where a damped dynamic drop comes to rest (0.1 mm)" || bad "landing vs damped drop"
import csv, sys
a, b = ([{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/nodes.csv"))] for d in sys.argv[1:])
rows = list(csv.DictReader(open(sys.argv[2] + "/series.csv")))
assert float(rows[-1]["energy_kinetic"]) < 1e-12, rows[-1]["energy_kinetic"]  # at rest
for p, q in zip(a, b):
    assert abs(p["x"] - q["x"]) < 1e-4 and abs(p["y"] - q["y"]) < 1e-9 and abs(p["z"] - q["z"]) < 2.5e-4, (p, q)
PY
else
    bad "the damped drop failed: $(head -c 600 "$tmp/damped.log")"
fi

# frictionless ground, vertical gravity: the slide along the ground is a gauge (no force drives it)
if "$cli" run "$tmp/drop.json" -q -o "$tmp/smooth" --set 'loads.0.value=[0,0,-9.81]' \
    --set 'obstacles=[{"type":"plane","point":[0,0,0],"normal":[0,0,1]}]' \
    --set 'stages=[{"type":"static"}]' > "$tmp/smooth.log" 2>&1; then
    python3 - "$tmp/smooth" <<'PY' && ok "frictionless ground: lands straight down" || bad "frictionless ground"
import csv, json, math, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
W = 1100 * math.pi * 0.005**2 * 9.81
assert abs(s["contact"]["normal_force"] / W - 1) < 1e-9, s["contact"]
for r in csv.DictReader(open(sys.argv[1] + "/nodes.csv")):
    assert abs(float(r["x"]) - float(r["s"])) < 1e-9 and abs(float(r["y"])) < 1e-9, r
PY
else
    bad "frictionless ground: the run failed: $(head -c 600 "$tmp/smooth.log")"
fi

# the ground above the rod, the load pulling it away: nothing to land on
expect_error 2 "static stage 0: the rod is held by no support, only by obstacles" run "$tmp/drop.json" -q \
    -o "$tmp/none" --set 'stages=[{"type":"static"}]' --set 'loads.0.value=[0,0,9.81]'
grep -qF "no obstacle lies in that direction" "$tmp/err" && ok "... and says no obstacle lies in the loads' direction" ||
    bad "no obstacle: $(head -c 400 "$tmp/err")"
# load steps that fail on a rod lying on the ground (a pull up beyond its weight lifts it off):
# the landing is their fallback, and says where the rod went
expect_error 2 "static stage 0: the rod is held by no support, only by obstacles, and its load steps failed" run "$ex" \
    -q -o "$tmp/up" --set 'stages=[{"type":"static"}]' \
    --set 'loads=[{"type":"gravity","value":[0,0,-9.81]},{"type":"force","node":20,"value":[0,0,3.4]}]'
grep -qF "no obstacle lies in that direction" "$tmp/err" && ok "... and says no obstacle lies in the loads' direction" ||
    bad "lifted off: $(head -c 400 "$tmp/err")"

# a rod leaning on the ground by its end (5.7 degrees): it falls flat about the end, which sticks;
# against the same fall with heavy drag in a dynamic stage (the end's slide on impact is within
# the friction's indeterminacy: 0.5 mm)
lean='{"type":"straight","origin":[0,0,0.005],"frame":{"e_x":[0.9950042,0,0.0998334],"e_y":[0,1,0]}}'
if "$cli" run "$tmp/drop.json" -q -o "$tmp/lean" --set 'loads.0.value=[0,0,-9.81]' --set "rod.reference=$lean" \
    --set 'stages=[{"type":"static"}]' > "$tmp/lean.log" 2>&1 &&
    "$cli" run "$tmp/drop.json" -q -o "$tmp/leand" --set 'loads.0.value=[0,0,-9.81]' --set "rod.reference=$lean" \
        --set 'rod.damping={"drag":10,"rotational_drag":0.001}' \
        --set 'stages=[{"type":"dynamic","t_end":3,"output_dt":0.1,"rtol":1e-5,"atol":1e-8}]' > "$tmp/leand.log" 2>&1; then
    python3 - "$tmp/lean" "$tmp/leand" <<'PY' && ok "leaning rod falls flat where the damped fall ends (0.5 mm)" || bad "leaning rod"
import csv, json, math, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
c = s["contact"]
W = 1100 * math.pi * 0.005**2 * 9.81
assert s["converged"] and abs(c["force"][2] / W - 1) < 1e-9 and math.hypot(c["force"][0], c["force"][1]) < 1e-9 * W, c
assert c["active"] == 21 and c["largest_penetration"] <= c["tolerance"], c
a, b = ([{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/nodes.csv"))] for d in sys.argv[1:])
for p, q in zip(a, b):
    assert math.hypot(p["contact_fx"], p["contact_fy"]) <= 0.6 * p["contact_fz"] * (1 + 1e-9), p
    assert abs(p["x"] - q["x"]) < 5e-4 and abs(p["y"]) < 1e-9 and abs(p["z"] - q["z"]) < 2.5e-4, (p, q)
PY
else
    bad "leaning rod: a run failed: $(head -c 600 "$tmp/lean.log" "$tmp/leand.log")"
fi
exit $fail
