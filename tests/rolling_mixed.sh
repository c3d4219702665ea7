#!/usr/bin/env bash
# Friction at the contact point (contact.rolling; docs/theory.md §11), the three models, against the
# analytic references of a solid circular rod (radius r = a, rho J = rho pi r^4/2, J/(A r^2) = 1/2)
# lying across a rough incline of angle theta, axis horizontal:
#   tan theta <= 3 mu_s: rolls without slipping, a_c = (2/3) g sin theta, spin acceleration a_c / r;
#   tan theta >  3 mu_s: slides and spins, a_c = g (sin theta - mu_k cos theta),
#                        spin acceleration 2 mu_k g cos theta / r.
# (The centre law held the rod still at mu_s > tan theta.) Accelerations from the positions and
# the roll angle (about -x, unwrapped) at t = 0.1, 0.25, 0.4 s (second differences of exact quadratics).
# Statics (mixed rod; the port-Hamiltonian rod's: tests/ph_rolling_statics.sh): a force density q across the axis and an axial torque density tau = q a on rough
# ground: friction = -q at every node (measured 1.5e-8 relative; asserted 1e-7); with tau = 0 the stage fails naming friction.
# The port-Hamiltonian model's assemblies: the rod as two welded halves rolls as the one rod.
# Usage: rolling_mixed.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad
sc="$src/tests/scenarios/rolling-mixed-incline.json"
# case: name, gravity (y, z), mu_s, mu_k; each model on the same scenario (the same key, the same
# physics): the mixed rod's adaptive Radau IIA, the port-Hamiltonian midpoint rule at h = 1 ms, the
# LGVI at h = 50 us (its stable step here ~1.6e-4 s)
for model in mixed_discrete port_hamiltonian lgvi; do
for c in "roll 2.4 -9.5 0.5 0.4" "slide 6.0 -7.7 0.1 0.08"; do
    set -- $c
    case $model in
    mixed_discrete) stage=(--set stages.0.output_dt=0.01) ;;
    port_hamiltonian) stage=(--set model=$model --set 'stages=[{"type":"dynamic","t_end":0.4,"output_dt":0.01,"time_step":1e-3}]') ;;
    lgvi) stage=(--set model=$model --set 'stages=[{"type":"dynamic","t_end":0.4,"output_dt":0.01,"time_step":5e-5}]') ;;
    esac
    set -- "$model-$1" "${@:2}"
    if ! "$cli" run "$sc" -o "$tmp/$1" -q "${stage[@]}" --set "loads.0.value=[0,$2,$3]" --set "obstacles.0.friction.static=$4" \
        --set "obstacles.0.friction.kinetic=$5" > "$tmp/$1.log" 2>&1; then
        bad "$1: the run failed: $(head -c 300 "$tmp/$1.log")"
        continue
    fi
    python3 - "$tmp/$1" "$1" "$2" "$3" "$4" "$5" <<'PY' && ok "$(cat "$tmp/$1/verdict")" || bad "$(cat "$tmp/$1/verdict" 2> /dev/null)"
import csv, math, sys
d, case, gy, gz, mus, muk = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
r = 0.01
g = math.hypot(gy, gz)
s, c = gy / g, -gz / g
rows = list(csv.DictReader(open(d + "/series.csv")))
t = [float(x["t"]) for x in rows]
y = [float(x["tip_y"]) for x in rows]
# roll angle about -x from the tip quaternion (it turns about the axis only)
# (unwrapped: the output every 10 ms turns it by less than a radian)
half = [math.atan2(-float(x["tip_p1"]), float(x["tip_p0"])) for x in rows]
phi = [2 * half[0]]
for h0, h1 in zip(half, half[1:]):
    dh = (h1 - h0 + math.pi / 2) % math.pi - math.pi / 2
    phi.append(phi[-1] + 2 * dh)
k = [min(range(len(t)), key=lambda j: abs(t[j] - tt)) for tt in (0.1, 0.25, 0.4)]
def acc(v):
    (t0, t1, t2), (v0, v1, v2) = (t[j] for j in k), (v[j] for j in k)
    return 2 * ((v2 - v1) / (t2 - t1) - (v1 - v0) / (t1 - t0)) / (t2 - t0)
a, w = acc(y), acc(phi)
if s / c <= 3 * mus:
    a_ref, w_ref = 2 / 3 * g * s, 2 / 3 * g * s / r
else:
    a_ref, w_ref = g * (s - muk * c), 2 * muk * g * c / r
good = abs(a / a_ref - 1) < 5e-3 and abs(w / w_ref - 1) < 5e-3
open(d + "/verdict", "w").write(
    f"{case}: tan(theta) = {s / c:.4g} vs 3 mu_s = {3 * mus:.3g}: centre acceleration {a:.6g} m/s^2 (reference {a_ref:.6g}), "
    f"spin acceleration {w:.6g} rad/s^2 (reference {w_ref:.6g})")
sys.exit(not good)
PY
done
done
# statics: q across the axis, tau = q a about it (the friction's moment -a n x (-q) balanced)
st=(--set 'stages=[{"type":"static"}]' --set 'loads=[{"type":"gravity","value":[0,0,-9.81]},{"type":"force_density","value":[0,0.5,0]},{"type":"moment_density","value":[0.005,0,0]}]' -q)
if "$cli" run "$sc" -o "$tmp/st" "${st[@]}" > "$tmp/st.log" 2>&1; then
    python3 - "$tmp/st" <<'PY' && ok "$(cat "$tmp/st/verdict")" || bad "$(cat "$tmp/st/verdict" 2> /dev/null)"
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/nodes.csv")))
n, Le, q = len(rows), 0.05, 0.5
err = max(abs(float(x["contact_fy"]) / (-q * Le * (0.5 if i in (0, n - 1) else 1.0)) - 1) for i, x in enumerate(rows))
open(d + "/verdict", "w").write(f"statics with tau = q a: friction = -q at every node to {err:.3g} (relative)")
sys.exit(not err < 1e-7)
PY
else
    bad "statics with tau = q a failed: $(head -c 300 "$tmp/st.log")"
fi
st[3]='loads=[{"type":"gravity","value":[0,0,-9.81]},{"type":"force_density","value":[0,0.5,0]}]'
if "$cli" run "$sc" -o "$tmp/st0" "${st[@]}" > "$tmp/st0.log" 2>&1; then
    bad "statics with tau = 0: converged, but the rod rolls away (no equilibrium)"
elif grep -q "friction" "$tmp/st0.log"; then
    ok "statics with tau = 0: fails naming friction"
else
    bad "statics with tau = 0: fails without naming friction: $(head -c 300 "$tmp/st0.log")"
fi
# a turning obstacle: tests/contact_ph_turning.sh's cord across a board tilting at w = 0.5 rad/s about
# an axis in its plane, laid at its springs' depth, mu_s 0.6: it rolls without slipping as the rolling
# cylinder on the turning board, (m + J/a^2) r'' = m (w^2 r + g sin wt), J/a^2 = m/2, r(0) = 0,
# r'(0) = -w a: r = A sinh kt + C sin wt, k = w sqrt(2/3), C = -2 g/(5 w^2), A = -(C + a) w/k. At 0.25 s
# the three models within 1e-3 of it (measured +3.5e-4 mixed, +1.1e-4 PH, +3.3e-4 LGVI; the LGVI's stick
# target at the centre's material point instead of the contact point's gave +2.7e-2)
cat > "$tmp/board.json" << 'JSON'
{"rod": {"length": 0.2, "elements": 8, "material": {"E": 5e6, "G": 1.7e6, "rho": 1100},
         "sections": [{"shape": "circle", "radius": 0.005}],
         "reference": {"type": "straight", "origin": [0, -0.1, 0.0049894],
                       "quaternion": [0.7071067811865476, 0, 0, 0.7071067811865476]}},
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "board", "point": [0, 0, 0], "normal": [0, 0, 1],
                "angular_velocity": [0, 0.5, 0], "friction": {"static": 0.6, "kinetic": 0.4}}],
 "contact": {"stiffness": 1000, "tolerance": 2e-5, "rolling": true},
 "stages": [{"type": "dynamic", "t_end": 0.25, "output_dt": 0.01, "rtol": 1e-7, "atol": 1e-10}],
 "output": {"vtk": false}}
JSON
for model in mixed_discrete port_hamiltonian lgvi; do
    case $model in
    mixed_discrete) stage=() ;;
    port_hamiltonian) stage=(--set 'stages=[{"type":"dynamic","t_end":0.25,"output_dt":0.01,"time_step":5e-4}]') ;;
    lgvi) stage=(--set 'stages=[{"type":"dynamic","t_end":0.25,"output_dt":0.01,"time_step":2e-5}]') ;;
    esac
    if ! "$cli" run "$tmp/board.json" -o "$tmp/board-$model" -q --set model=$model "${stage[@]}" > "$tmp/board-$model.log" 2>&1; then
        bad "board, $model: the run failed: $(head -c 300 "$tmp/board-$model.log")"
        continue
    fi
    python3 - "$tmp/board-$model" "$model" << 'PY' && ok "$(cat "$tmp/board-$model/verdict")" || bad "$(cat "$tmp/board-$model/verdict" 2> /dev/null)"
import csv, math, sys
d, model = sys.argv[1:]
g, w, a = 9.81, 0.5, 0.005
r = list(csv.DictReader(open(d + "/series.csv")))[-1]
t = float(r["t"])
along = math.cos(w * t) * float(r["tip_x"]) - math.sin(w * t) * float(r["tip_z"])
k, C = w * math.sqrt(2 / 3), -2 * g / (5 * w * w)
A = -(C + a) * w / k
ref = A * math.sinh(k * t) + C * math.sin(w * t)
open(d + "/verdict", "w").write(f"board tilting at 0.5 rad/s, {model}: the cord rolled {along:.7f} m along it by t = {t:g} s "
                                f"(the rolling cylinder: {ref:.7f}, {along / ref - 1:+.1e}), {int(float(r['contact_sliding']))} nodes sliding")
sys.exit(not (abs(along / ref - 1) < 1e-3 and float(r["contact_sliding"]) == 0))
PY
done
# SIGINT and --resume, the cord rolling on the tilting board to 1.2 s: each model's checkpoint keeps
# what the contact point's friction needs (the mixed rod's anchors' material offsets; the PH and LGVI
# rods' re-base every step). The PH and LGVI runs resume to the bit; the mixed rod's to its integrator's
# tolerance (its resumed integrator forms a fresh Jacobian, tests/contact_resume.sh): within 2e-7 m in
# the first rows after the cut, growing with the rolling's own amplification (r ~ sinh kt) to 1-2e-5 m
# of the 0.6 m travelled at 1.2 s (with the centre law, sticking: 2e-8 m); asserted: 2e-7 m over the 5
# rows after the cut, 1e-4 of the travel throughout
for model in mixed_discrete port_hamiltonian lgvi; do
    case $model in
    mixed_discrete) stage=(--set rod.elements=24 --set stages.0.t_end=1.2 --set stages.0.output_dt=0.005) ;;
    port_hamiltonian) stage=(--set 'stages=[{"type":"dynamic","t_end":1.2,"output_dt":0.005,"time_step":2e-4}]') ;;
    lgvi) stage=(--set 'stages=[{"type":"dynamic","t_end":1.2,"output_dt":0.005,"time_step":2e-5}]') ;;
    esac
    run=("$cli" run "$tmp/board.json" -q --set model=$model "${stage[@]}")
    "${run[@]}" -o "$tmp/full-$model" > "$tmp/full-$model.log" 2>&1 || bad "resume, $model: the uninterrupted run failed"
    if interrupt_resume "$tmp/cut-$model" 60 400 0.005 "${run[@]}" -o "$tmp/cut-$model"; then
        if [ $model = mixed_discrete ]; then
            python3 - "$tmp/full-$model" "$tmp/cut-$model" "$cut_rows" << 'PY' && ok "$(cat "$tmp/cut-$model.verdict")" || bad "$(cat "$tmp/cut-$model.verdict")"
import csv, sys
full, cut, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
a, b = (list(csv.DictReader(open(d + "/series.csv"))) for d in (full, cut))
na, nb = (list(csv.DictReader(open(d + "/nodes.csv"))) for d in (full, cut))
def gap(x, y):
    return max(abs(float(x[k]) - float(y[k])) for k in ("tip_x", "tip_y", "tip_z"))
d = max([gap(x, y) for x, y in zip(a, b)] + [abs(float(x[k]) - float(y[k])) for x, y in zip(na, nb) for k in ("x", "y", "z")])
d0 = max(gap(x, y) for x, y in zip(a[rows:rows + 5], b[rows:rows + 5]))
travel = max(abs(float(x["tip_x"])) for x in a)
same = len(a) == len(b)
open(cut + ".verdict", "w").write(f"resume, mixed_discrete: interrupted after {rows} rows of the rolling cord, resumed: "
                                  f"within {d0:.2g} m over the next 5 rows (bound 2e-7), {d:.2g} m at most over the "
                                  f"{travel:.3g} m travelled (bound 1e-4 of it)")
sys.exit(not (same and d0 < 2e-7 and d < 1e-4 * travel))
PY
        elif cmp -s "$tmp/full-$model/series.csv" "$tmp/cut-$model/series.csv" &&
            cmp -s "$tmp/full-$model/nodes.csv" "$tmp/cut-$model/nodes.csv"; then
            ok "resume, $model: interrupted after $cut_rows rows of the rolling cord, resumed: series.csv and nodes.csv identical"
        else
            bad "resume, $model: the resumed run differs: $(diff "$tmp/full-$model/series.csv" "$tmp/cut-$model/series.csv" | head -3)"
        fi
    fi
done
# the port-Hamiltonian model's assemblies: the rod as two welded halves (0.1 m, 2 elements each) rolls
# down the incline as the one rod does (the same nodes: an assembly's
# contact is each rod's own, node by node; the weld's two copies carry the shared node's)
python3 - "$sc" "$tmp/pair.json" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
rod = sc.pop("rod")
halves = []
for name, x0 in (("a", 0.0), ("b", 0.1)):
    h = json.loads(json.dumps(rod))
    h.update(name=name, length=0.1, elements=2)
    h["reference"]["origin"] = [x0, 0, 0.01]
    halves.append(h)
sc.update(model="port_hamiltonian", rods=halves, joints=[{"type": "weld", "a": "a:end", "b": "b:start"}])
json.dump(sc, open(sys.argv[2], "w"))
PY
php=(--set 'stages=[{"type":"dynamic","t_end":0.4,"output_dt":0.01,"time_step":1e-3}]')
for c in roll; do # (the statics: tests/ph_rolling_statics.sh)
    args=("${php[@]}" -q) one="$tmp/port_hamiltonian-roll"
    if ! "$cli" run "$tmp/pair.json" -o "$tmp/pair-$c" "${args[@]}" > "$tmp/pair-$c.log" 2>&1; then
        bad "pair $c: the welded pair's run failed: $(head -c 300 "$tmp/pair-$c.log")"
        continue
    fi
    python3 - "$tmp/pair-$c" "$one" $c <<'PY' && ok "$(cat "$tmp/pair-$c/verdict")" || bad "$(cat "$tmp/pair-$c/verdict" 2> /dev/null)"
import csv, sys
d, one, c = sys.argv[1:]
a = list(csv.DictReader(open(d + "/nodes.csv")))
b = list(csv.DictReader(open(one + "/nodes.csv")))
a = [x for k, x in enumerate(a) if not (x["rod"] == "b" and float(x["s"]) == 0)]  # the weld's second copy
dx = max(abs(float(x[k]) - float(y[k])) for x, y in zip(a, b) for k in ("x", "y", "z"))
travel = max(abs(float(y["y"])) for y in b)
what = "rolled down the incline"
open(d + "/verdict", "w").write(f"port_hamiltonian, the rod as two welded halves with contact.rolling {what}: every node "
                                f"within {dx:.2g} m of the one rod's ({travel:.3g} m from the start)")
sys.exit(not (len(a) == len(b) and dx < 1e-9))
PY
done
exit $fail
