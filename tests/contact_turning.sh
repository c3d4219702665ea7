#!/usr/bin/env bash
# Turning obstacles (docs/scenario.md `obstacles`, angular_velocity). A rubber cord (radius 5 mm,
# E = 5 MPa, rho = 1100 kg/m^3, mu_s = 0.6, mu_k = 0.4, contact stiffness eps = 1000 N/m, rtol 1e-7)
#   - lying radially on a turntable (a plane turning at omega = 1 rad/s about the vertical through
#     its point; the cord from r = 0.05 to 0.25 m): it is carried round. The table starts turning
#     at once, so the nodes first slide until they move with it (in the first 0.1 s); from 0.2 s
#     on none slides and the cord's end, seen in the table's frame (turned back by -omega t), stays
#     where it is within twice the stick bound 2 mu_s m_i g/eps_i = 2.0e-5 m: it moves with the
#     surface, at omega x r (having turned 1 rad, 0.21 m of arc, by 1 s). With the stick anchors
#     fixed in space the end would stay behind; without the rotation the key is refused.
#   - lying across a board that tilts at omega = 0.1 rad/s about the cord's own line (y, through
#     the board's point): it sticks while tan alpha < mu_s and slips at alpha = atan mu_s =
#     0.54042 rad, t = 5.4042 s (Coulomb): the first sliding output within one output interval
#     (0.01 s, 0.001 rad) of it, none before.
#   - lgvi takes turning obstacles (tests/lgvi_contact_moving.sh): check passes the tilting board.
# Usage: contact_turning.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad, expect_error
cord='"material": {"E": 5e6, "G": 1.7e6, "rho": 1100}, "sections": [{"shape": "circle", "radius": 0.005}]'
cat > "$tmp/turn.json" <<JSON
{"rod": {"length": 0.2, "elements": 10, $cord,
         "reference": {"type": "straight", "origin": [0.05, 0, 0.005]}},
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "turntable", "point": [0, 0, 0], "normal": [0, 0, 1],
                "friction": {"static": 0.6, "kinetic": 0.4}, "angular_velocity": [0, 0, 1]}],
 "contact": {"stiffness": 1000},
 "stages": [{"type": "static"},
            {"type": "dynamic", "t_end": 1, "output_dt": 0.05, "rtol": 1e-7, "atol": 1e-10}],
 "output": {"vtk": false}}
JSON
if "$cli" run "$tmp/turn.json" -o "$tmp/turn" -q > "$tmp/turn.log" 2>&1; then
    /usr/bin/python3 - "$tmp/turn" <<'PY' && ok "$(cat "$tmp/turn/verdict")" || bad "turntable: $(cat "$tmp/turn/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
w, g, mu_s, eps = 1.0, 9.81, 0.6, 1000.0
m_i = 1100 * math.pi * 0.005**2 * 0.02  # an interior node's mass (the end's and its eps_i both halved)
bound = 2 * mu_s * m_i * g / eps
late = [r for r in rows if r["t"] >= 0.2 - 1e-9]
body = []  # the end in the table's frame
for r in late:
    c, s = math.cos(w * r["t"]), math.sin(w * r["t"])
    body.append((c * r["tip_x"] + s * r["tip_y"], -s * r["tip_x"] + c * r["tip_y"]))
spread = max(math.dist(p, body[0]) for p in body)
slid = max(r["contact_sliding"] for r in late)
arc = math.hypot(*body[0]) * abs(math.atan2(rows[-1]["tip_y"], rows[-1]["tip_x"]))
turned = math.atan2(rows[-1]["tip_y"], rows[-1]["tip_x"])
good = slid == 0 and spread <= bound and abs(turned - 1.0) < 0.05 and rows[-1]["contact_active"] == 11
open(d + "/verdict", "w").write(
    f"turntable at 1 rad/s: the cord is carried round (its end turned {turned:.4f} rad by 1 s, {arc:.3f} m of arc); "
    f"from 0.2 s no node slides and the end moves with the surface (in the table's frame within {spread:.3g} m, "
    f"bound 2 mu_s m_i g/eps_i = {bound:.3g} m)")
sys.exit(not good)
PY
else
    bad "turntable: the run failed: $(head -c 400 "$tmp/turn.log")"
fi

cat > "$tmp/tilt.json" <<JSON
{"rod": {"length": 0.2, "elements": 8, $cord,
         "reference": {"type": "straight", "origin": [0, -0.1, 0.005],
                       "quaternion": [0.7071067811865476, 0, 0, 0.7071067811865476]}},
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "board", "point": [0, 0, 0], "normal": [0, 0, 1],
                "friction": {"static": 0.6, "kinetic": 0.4}, "angular_velocity": [0, 0.1, 0]}],
 "contact": {"stiffness": 1000},
 "stages": [{"type": "static"},
            {"type": "dynamic", "t_end": 5.6, "output_dt": 0.01, "rtol": 1e-7, "atol": 1e-10}],
 "output": {"vtk": false}}
JSON
if "$cli" run "$tmp/tilt.json" -o "$tmp/tilt" -q > "$tmp/tilt.log" 2>&1; then
    /usr/bin/python3 - "$tmp/tilt" <<'PY' && ok "$(cat "$tmp/tilt/verdict")" || bad "tilting board: $(cat "$tmp/tilt/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
w, mu_s = 0.1, 0.6
ts = math.atan(mu_s) / w
first = next((r["t"] for r in rows if r["contact_sliding"] > 0), math.inf)
good = ts - 1e-9 <= first <= ts + 0.01 + 1e-9 and rows[-1]["contact_sliding"] == 9
open(d + "/verdict", "w").write(
    f"board tilting at 0.1 rad/s: the cord first slides at t = {first:.2f} s, alpha = {w * first:.4f} rad "
    f"(atan mu_s = {math.atan(mu_s):.5f} rad at t = {ts:.4f} s; output every 0.01 s)")
sys.exit(not good)
PY
else
    bad "tilting board: the run failed: $(head -c 400 "$tmp/tilt.log")"
fi

# the rope over the pulley of examples/rope-over-pulley.json (R = 5 cm, mu_s 0.3, mu_k 0.2, contact
# radius a = 2 mm, 0.1 kg on each end), the pulley turning at 1 rad/s about its axis (y) from t = 0:
# the rope slides until it moves with the surface, then the pulley carries it (a capstan turning):
# the left mass rises and the right one sinks at the surface speed at the rope's centre line,
# omega (R + a) = 0.052 m/s (slopes of a line fit over 0.1 ... 0.2 s, within 1 %: the masses still
# oscillate a little on the elastic rope).
/usr/bin/python3 - "$src/examples/rope-over-pulley.json" "$tmp/pulley.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["loads"] = s["loads"][:1]  # gravity only: equal masses
s["stages"] = s["stages"][:2]
s["obstacles"][0]["angular_velocity"] = [0, 1.0, 0]
json.dump(s, open(sys.argv[2], "w"))
PY
if "$cli" run "$tmp/pulley.json" -o "$tmp/pulley" -q > "$tmp/pulley.log" 2>&1; then
    /usr/bin/python3 - "$tmp/pulley" <<'PY' && ok "$(cat "$tmp/pulley/verdict")" || bad "turning pulley: $(cat "$tmp/pulley/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/series.csv"))]
late = [r for r in rows if r["t"] >= 0.1 - 1e-9]
def slope(key):
    t = [r["t"] for r in late]
    z = [r[key] for r in late]
    tm, zm = sum(t) / len(t), sum(z) / len(z)
    return sum((a - tm) * (b - zm) for a, b in zip(t, z)) / sum((a - tm) ** 2 for a in t)
v_s = 1.0 * (0.05 + 0.002)
up, down = slope("left_z"), -slope("right_z")
good = abs(up / v_s - 1) < 0.01 and abs(down / v_s - 1) < 0.01
open(d + "/verdict", "w").write(
    f"pulley turning at 1 rad/s carries the rope: left mass rises at {up:.5f} m/s, right one sinks at {down:.5f} m/s "
    f"(surface speed omega (R + a) = {v_s:.3f} m/s)")
sys.exit(not good)
PY
else
    bad "turning pulley: the run failed: $(head -c 400 "$tmp/pulley.log")"
fi

if "$cli" check "$tmp/tilt.json" --set model=lgvi \
    --set 'stages=[{"type": "dynamic", "t_end": 0.1, "output_dt": 0.05, "time_step": 2e-5}]' > "$tmp/out" 2>&1; then
    ok "lgvi: check takes the turning board (obstacles.0.angular_velocity)"
else
    bad "lgvi: check refuses the turning board: $(head -c 300 "$tmp/out")"
fi
# (port_hamiltonian takes turning obstacles: tests/contact_ph_turning.sh)
exit $fail
