#!/usr/bin/env bash
# Turning obstacles with the port-Hamiltonian rod (docs/port-hamiltonian.md "Contact"; scenario key
# obstacles.K.angular_velocity, or a table / time function with rotations). A rubber cord (0.2 m,
# radius 5 mm, E = 5 MPa, rho = 1100 kg/m^3, 8 elements, contact stiffness 1000 N/m) lying along y
# on a board (the plane z = 0) that tilts at omega = 0.5 rad/s about y (through the board's point,
# under the cord), released at rest in contact, h = 0.5 ms:
#   - frictionless: it slides down the tilting board as a point on a plane turning at a constant
#     rate: in the board's frame r'' = omega^2 r + g sin(omega t), r(0) = 0 and r'(0) = -omega a
#     (the cord's centre line a = 5 mm above the axis, at rest in I), so
#     r(t) = g/(2 omega^2) (sinh omega t - sin omega t) - a sinh omega t: 0.814955 m at t = 1 s;
#     the cord's end within 1e-4 of it, within 1e-4 of the mixed rod on the same scenario, and
#     every step's energy balance H_{n+1} - H_n - W_n + D_n (the board's work in W) below 1e-12 J;
#   - with friction (mu_s 0.6, mu_k 0.4): every step's balance below 1e-12 J, the friction's
#     dissipation never decreasing and positive, and the cord sliding by the end (tan alpha > mu_s);
#   - with friction, laid at its weight's depth in the board (not bouncing): it sticks (none of its
#     nodes faster than contact.stick_speed relative to the surface, after the first output: the
#     board's surface under the cord's centre line moves at omega a at the start) until Coulomb's
#     angle atan mu_s = 0.5404 rad, t = 1.0808 s, and slides from the output interval (0.01 s)
#     that contains it. (Its Newton steps once ended after one small update with the residual
#     above newton_atol; the balance's error then tripped the energy watch at t = 0.08 s.)
# Usage: contact_ph_turning.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad
cord='"material": {"E": 5e6, "G": 1.7e6, "rho": 1100}, "sections": [{"shape": "circle", "radius": 0.005}]'
cat > "$tmp/board.json" <<JSON
{"model": "port_hamiltonian",
 "rod": {"length": 0.2, "elements": 8, $cord,
         "reference": {"type": "straight", "origin": [0, -0.1, 0.005],
                       "quaternion": [0.7071067811865476, 0, 0, 0.7071067811865476]}},
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "board", "point": [0, 0, 0], "normal": [0, 0, 1],
                "angular_velocity": [0, 0.5, 0]}],
 "contact": {"stiffness": 1000},
 "stages": [{"type": "dynamic", "t_end": 1, "output_dt": 0.01, "time_step": 0.0005}],
 "output": {"vtk": false}}
JSON
"$cli" run "$tmp/board.json" -o "$tmp/ph" -q > "$tmp/ph.log" 2>&1 || bad "frictionless board: $(head -c 300 "$tmp/ph.log")"
"$cli" run "$tmp/board.json" -o "$tmp/mixed" -q --set model=mixed_discrete \
    --set 'stages=[{"type": "dynamic", "t_end": 1, "output_dt": 0.01, "rtol": 1e-7, "atol": 1e-10}]' \
    > "$tmp/mixed.log" 2>&1 || bad "frictionless board, mixed rod: $(head -c 300 "$tmp/mixed.log")"
"$cli" run "$tmp/board.json" -o "$tmp/fric" -q --set stages.0.t_end=1.5 \
    --set 'obstacles.0.friction={"static": 0.6, "kinetic": 0.4}' > "$tmp/fric.log" 2>&1 ||
    bad "board with friction: $(head -c 300 "$tmp/fric.log")"
/usr/bin/python3 - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
g, w, a = 9.81, 0.5, 0.005
def rows(name):
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(f"{d}/{name}/series.csv"))]
def along(r):  # the end's coordinate along the board's x axis (R_y(w t) e_x)
    al = w * r["t"]
    return math.cos(al) * r["tip_x"] - math.sin(al) * r["tip_z"]
P, M = rows("ph"), rows("mixed")
t = P[-1]["t"]
ref = g / (2 * w * w) * (math.sinh(w * t) - math.sin(w * t)) - a * math.sinh(w * t)
rp, rm = along(P[-1]), along(M[-1])
bal = max(abs(r["energy_balance"]) for r in P)
good = abs(rp / ref - 1) < 1e-4 and abs(rp / rm - 1) < 1e-4 and bal < 1e-12 and P[-1]["work_external"] > 0.01
open(d + "/verdict", "w").write(
    f"frictionless board tilting at 0.5 rad/s: the cord's end slid {rp:.6f} m by t = {t:g} s (analytic {ref:.6f}, "
    f"{rp / ref - 1:+.1e}; mixed rod {rm:.6f}, {rp / rm - 1:+.1e}), every step's balance within {bal:.2g} J "
    f"(work in {P[-1]['work_external']:.4f} J)")
sys.exit(not good)
PY
"$cli" run "$tmp/board.json" -o "$tmp/coulomb" -q --set stages.0.t_end=1.3 --set rod.reference.origin.2=0.0049894 \
    --set contact.tolerance=2e-5 --set 'obstacles.0.friction={"static": 0.6, "kinetic": 0.4}' > "$tmp/coulomb.log" 2>&1 ||
    bad "board at rest, with friction: $(head -c 300 "$tmp/coulomb.log")"
/usr/bin/python3 - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
d = sys.argv[1]
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/coulomb/series.csv"))]
ts = math.atan(0.6) / 0.5
first = next((r["t"] for r in R if r["t"] > 0.005 and r["contact_sliding"] > 0), math.inf)
bal = max(abs(r["energy_balance"]) for r in R)
good = ts - 1e-9 <= first <= ts + 0.01 + 1e-9 and R[-1]["contact_sliding"] > 0 and bal < 1e-12
open(d + "/verdict", "w").write(
    f"board at rest on it, with friction: the cord first slides at t = {first:.2f} s, alpha = {0.5 * first:.4f} rad "
    f"(atan mu_s = {math.atan(0.6):.5f} rad at t = {ts:.4f} s; output every 0.01 s); balance within {bal:.2g} J")
sys.exit(not good)
PY
/usr/bin/python3 - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
R = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(d + "/fric/series.csv"))]
bal = max(abs(r["energy_balance"]) for r in R)
D = [r["energy_dissipated"] for r in R]
good = bal < 1e-12 and all(y >= x for x, y in zip(D, D[1:])) and D[-1] > 0 and R[-1]["contact_sliding"] > 0
open(d + "/verdict", "w").write(
    f"board with friction: every step's balance within {bal:.2g} J, the friction dissipated {D[-1]:.4g} J (never "
    f"decreasing), {R[-1]['contact_sliding']:.0f} nodes sliding at t = {R[-1]['t']:g} s")
sys.exit(not good)
PY
exit $fail
