#!/usr/bin/env bash
# Driven obstacles (docs/scenario.md `obstacles`: `motion`, a table of poses; `position` and
# `rotation` scaled by a `time` function), against closed forms and the constant-rate obstacles:
#   - the cord of examples/cable-on-ground.json (mu_s 0.6, mu_k 0.4, eps = 1000 N/m, rtol 1e-7) on
#     ground moved by a two-row table [0, 0], [1, 0.15 m] along x: the spline at rest at both rows is
#     the Hermite cubic x = 0.15 (3s² − 2s³) (peak acceleration 0.9 m/s²); the cord is carried, its
#     end within the stick bound of it: a node's spring lags by at most (|a(0)| + the
#     acceleration's total variation + |a(t)|) m_i/eps_i = 4 m_i a_max/eps_i, and 4 a_max = 3.6 m/s²
#     < mu_s g, so no node can slip whatever the phase of its undamped ringing (with 0.5 m, 4 a_max =
#     12 m/s² > mu_s g: whether a node slips at the stop then depends on the ringing's phase, which
#     the integrator's step sequence decides);
#   - the same ground driven by x = A (1 − cos 2 pi f t) (a sine time function, f = 2 Hz): at
#     A w² = 0.5 mu_s g the cord is carried within 2 m_i A w²/eps_i (the nodes' own frequency, 481
#     rad/s, far above w: the lag is quasi-static plus the undamped transient of the start's jump);
#     at A w² = 2 mu_s g it slips: while every node slides its momentum changes at mu_k m g;
#   - the turntable of tests/contact_turning.sh turned by a `rotation` under a ramp and by a table
#     of rotation vectors linear in t (rows from t = −2 to 3 s, so the spline's end effect has
#     decayed, by 2 − √3 per row, to round-off within the run) instead of angular_velocity: the
#     poses agree to round-off (tests/test_contact.c), the runs to the integrator's tolerance (the
#     stick/slip start amplifies round-off: 2e-6 m allowed on 0.21 m of arc);
#   - a plate (a finite plane facing down) pressing a soft cantilever's tip, lowered by a table
#     [0, 5 mm], [1, 2 mm], [2, 1 mm]: the static stages after the dynamic ones see it at the
#     table's pose at their time, and their tip equals a static run in which a support holds the
#     tip's z where the plate holds it (a frictionless point push; to the contact tolerance), its
#     reaction the plate's force; the damped dynamic stage settles on the static solution but for
#     the dynamic penalty's penetration beyond the preload the static stage before it left,
#     (N − λ_N)/eps_i;
#   - a mixed assembly of two hinged rods on ground moved by a table is carried, every rod;
#   - port_hamiltonian: a rough ball moved by a table of positions under a rod: the energy balance
#     (kinetic + elastic + gravity − work_external + dissipated) holds to 1e-8 of the work the ball
#     does (its work over its own displacement is in work_external); a turning table is refused;
#   - a run interrupted while the cord slips on ground shaken by a table and resumed follows the
#     uninterrupted one while their nodes stick and slip alike (the stick anchors are kept in the
#     obstacle's frame), and a checkpoint of another table is refused;
#   - bad tables named at check; lgvi takes a driven obstacle (tests/lgvi_contact_moving.sh).
# Usage: contact_driven.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad, expect_error
ex="$src/examples/cable-on-ground.json"
sets=(--set 'loads=[{"type":"gravity","value":[0,0,-9.81]}]' --set stages.1.t_end=1.2 --set stages.1.rtol=1e-7
      --set stages.1.atol=1e-10 --set contact.stiffness=1000 --set output.vtk=false --set stages.1.output_dt=0.002 -q)
# --- the cord on ground driven by a table and by a time function
w=12.566370614359172 # 2 pi 2 Hz
A_stick=$(python3 -c "print(0.5 * 0.6 * 9.81 / $w**2)")
A_slip=$(python3 -c "print(2 * 0.6 * 9.81 / $w**2)")
sine='{"type":"sine","frequency":2,"phase":-1.5707963267948966,"offset":1}'
runs=("table|--set|obstacles.0.motion=[[0,0,0,0],[1,0.15,0,0]]"
      "stick|--set|obstacles.0.position=[$A_stick,0,0]|--set|obstacles.0.time=$sine"
      "slip|--set|obstacles.0.position=[$A_slip,0,0]|--set|obstacles.0.time=$sine")
for spec in "${runs[@]}"; do
    IFS='|' read -r -a args <<< "$spec"
    name=${args[0]}
    if ! "$cli" run "$ex" -o "$tmp/$name" "${sets[@]}" "${args[@]:1}" > "$tmp/$name.log" 2>&1; then
        bad "$name: the run failed: $(head -c 300 "$tmp/$name.log")"
        continue
    fi
    python3 - "$tmp/$name" "$name" "$A_stick" "$A_slip" <<'PY' && ok "$(cat "$tmp/$name/verdict")" || bad "$(cat "$tmp/$name/verdict" 2> /dev/null)"
import csv, math, sys
d, name, A_stick, A_slip = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = list(csv.DictReader(open(d + "/series.csv")))
g, mu_s, mu_k, n, w = 9.81, 0.6, 0.4, 40, 4 * math.pi
m = 1100 * math.pi * 0.005**2 * 2
eps, m_i = 1000.0, m / n
t = [float(r["t"]) for r in rows]
x = [float(r["tip_x"]) - 2 for r in rows]
p = [float(r["momentum_x"]) for r in rows]
sl = [float(r["contact_sliding"]) for r in rows]
if name == "table":
    def ground(ti):
        s = min(1.0, max(0.0, ti))
        return 0.15 * (3 * s * s - 2 * s**3)
    lag = max(abs(xi - ground(ti)) for ti, xi in zip(t, x))
    bound = 4 * m_i * 0.9 / eps
    good = lag <= bound and max(sl) == 0 and abs(x[-1] - 0.15) < bound
    msg = (f"table [0, 0], [1 s, 0.15 m]: the cord is carried, x(1.2 s) = {x[-1]:.9g} m, largest lag behind "
           f"0.15 (3s^2 - 2s^3) {lag:.3g} m (bound 4 m_i a_max/eps_i = {bound:.3g}), no node slid")
elif name == "stick":
    a = A_stick * w * w
    lag = max(abs(xi - A_stick * (1 - math.cos(w * ti))) for ti, xi in zip(t, x))
    bound = 2 * m_i * a / eps
    good = lag <= bound and max(sl) == 0
    msg = (f"ground at A (1 - cos wt), A w^2 = {a:.4g} m/s^2 < mu_s g: carried, largest lag {lag:.4g} m "
           f"(bound 2 m_i A w^2/eps_i = {bound:.4g}), no node slid")
else:
    both = [k for k in range(1, len(t)) if sl[k] == n + 1 and sl[k - 1] == n + 1]
    slopes = sorted(abs(p[k] - p[k - 1]) / (t[k] - t[k - 1]) / m for k in both)
    at_muk = sum(1 for s in slopes if abs(s - mu_k * g) <= 1e-3 * mu_k * g)
    steepest = max(abs(p[k] - p[k - 1]) / (t[k] - t[k - 1]) / m for k in range(1, len(t)))
    good = len(slopes) > 200 and at_muk >= 0.95 * len(slopes) and steepest < mu_s * g
    msg = (f"ground at A (1 - cos wt), A w^2 = {A_slip * w * w:.4g} m/s^2 > mu_s g: the cord slips; over the "
           f"{len(slopes)} output intervals in which every node slides {at_muk} change its momentum at mu_k m g "
           f"within 1e-3 (median {slopes[len(slopes) // 2] if slopes else float('nan'):.7g} m/s^2, mu_k g = "
           f"{mu_k * g:.7g}); steepest {steepest:.4g} m/s^2 < mu_s g")
open(d + "/verdict", "w").write(msg)
sys.exit(not good)
PY
done
# --- the turntable three ways
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
rows=$(python3 -c "print([[round(-2 + 0.1 * k, 10), 0, 0, 0, 0, 0, round(-2 + 0.1 * k, 10)] for k in range(51)])")
"$cli" run "$tmp/turn.json" -o "$tmp/turnw" -q > "$tmp/turnw.log" 2>&1 || bad "turntable: $(head -c 300 "$tmp/turnw.log")"
for form in ramp table; do
    if [ $form = ramp ]; then
        more=(--set 'obstacles.0.rotation=[0,0,3]' --set 'obstacles.0.time={"type":"ramp","t0":0,"t1":3}')
    else
        more=(--set "obstacles.0.motion=$rows")
    fi
    if ! "$cli" run "$tmp/turn.json" -o "$tmp/turn$form" -q --set obstacles.0.angular_velocity=null "${more[@]}" \
        > "$tmp/turn$form.log" 2>&1; then
        bad "turntable by a $form: $(head -c 300 "$tmp/turn$form.log")"
        continue
    fi
    python3 - "$tmp/turnw" "$tmp/turn$form" "$form" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
a = list(csv.DictReader(open(sys.argv[1] + "/series.csv")))
b = list(csv.DictReader(open(sys.argv[2] + "/series.csv")))
d = max(math.dist([float(x["tip_x"]), float(x["tip_y"])], [float(y["tip_x"]), float(y["tip_y"])]) for x, y in zip(a, b))
turned = math.atan2(float(b[-1]["tip_y"]), float(b[-1]["tip_x"]))
good = len(a) == len(b) == 21 and d < 2e-6 and turned > 0.95
open(sys.argv[2] + "/../verdict", "w").write(
    f"turntable turned by a {sys.argv[3]} instead of angular_velocity: the cord's end {d:.3g} m from the "
    f"constant-rate run's (allowed 2e-6), turned {turned:.7f} rad by 1 s")
sys.exit(not good)
PY
done
# --- a plate pressing a cantilever's tip, lowered by a table; static stages at its poses
cat > "$tmp/press.json" <<JSON
{"rod": {"length": 0.1, "elements": 20, $cord, "damping": {"drag": 5}},
 "boundary_conditions": [{"type": "clamp", "node": 0}],
 "obstacles": [{"type": "plane", "name": "jaw", "point": [0.1, 0, 0.005], "normal": [0, 0, -1], "e_x": [1, 0, 0],
                "half_extents": [0.004, 0.02],
                "motion": [[0, 0.1, 0, 0.005], [1, 0.1, 0, 0.002], [2, 0.1, 0, 0.001]]}],
 "stages": [{"type": "static"},
            {"type": "dynamic", "t_end": 1, "output_dt": 0.05, "rtol": 1e-6, "atol": 1e-9},
            {"type": "static"},
            {"type": "dynamic", "t_end": 2.5, "output_dt": 0.05, "rtol": 1e-6, "atol": 1e-9},
            {"type": "static"}],
 "output": {"vtk": false}}
JSON
ok_press=1
"$cli" run "$tmp/press.json" -o "$tmp/press" -q > "$tmp/press.log" 2>&1 || { ok_press=0; bad "press: $(head -c 300 "$tmp/press.log")"; }
# the references: the plate's push on a frictionless point is a support holding the tip's z where
# the plate holds it (its contact radius below the plate)
for z in 0.002 0.001; do
    tz=$(python3 -c "print($z - 0.005)")
    "$cli" run "$tmp/press.json" -o "$tmp/press$z" -q --set obstacles=null \
        --set "boundary_conditions=[{\"type\":\"clamp\",\"node\":0},{\"type\":\"support\",\"node\":-1,\"hold\":[\"z\"],\"position\":[0.1,0,$tz]}]" \
        --set 'stages=[{"type":"static"}]' > "$tmp/press$z.log" 2>&1 || { ok_press=0; bad "press at $z: $(head -c 300 "$tmp/press$z.log")"; }
done
if [ $ok_press = 1 ]; then
    python3 - "$tmp" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, json, math, sys
d = sys.argv[1]
s = json.load(open(d + "/press/summary.json"))
tip = lambda k: s["stages"][k]["track"]["tip"]["position"]
ref = {z: json.load(open(f"{d}/press{z}/summary.json")) for z in ("0.002", "0.001")}
e1 = math.dist(tip(2), ref["0.002"]["tip"]["position"])
e2 = math.dist(tip(4), ref["0.001"]["tip"]["position"])
N = abs(ref["0.001"]["reactions"][1]["force"][2])
rows = list(csv.DictReader(open(d + "/press/series.csv")))
zdyn = float(next(r for r in rows if float(r["t"]) == 3.5)["tip_z"])  # the dynamic stage's end (the static's row follows)
EA_el = 5e6 * math.pi * 0.005**2 / 0.005  # the default eps: min(EA/L_e, 12 EI/L_e^3), the tip's half
N1 = abs(ref["0.002"]["reactions"][1]["force"][2])  # the preload the static stage at 2 mm left (lambda_N)
pen = (N - N1) / (0.5 * EA_el)
zst = ref["0.001"]["tip"]["position"][2]
ed = abs((zdyn - zst) - pen)
tol = 5e-7
good = e1 < tol and e2 < tol and ed < 1e-8 and abs(zst + 0.004) < tol
open(d + "/verdict", "w").write(
    f"plate lowered by a table: the static stages at t = 1 and 3.5 s hold the tip where static runs with the plate "
    f"at 2 and 1 mm do ({e1:.2g}, {e2:.2g} m apart; tolerance {tol:g}; tip z {zst:.9g} m, N = {N:.6g} N); the "
    f"settled dynamic stage is {zdyn - zst:.6g} m above, its penalty's penetration beyond the static preload "
    f"(N(1 mm) - N(2 mm))/eps_i = {pen:.6g} ({ed:.2g} apart)")
sys.exit(not good)
PY
fi
# --- a mixed assembly (two rods hinged) on the same kind of ground moved by a table: every rod carried
# (4 a_max = 3.6 m/s² < mu_s g = 4.9 m/s², as for the cord)
mat='"material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]'
cat > "$tmp/asm.json" <<JSON
{"rods": [{"name": "a", "length": 0.5, "elements": 10, $mat, "reference": {"origin": [0, 0, 0.01]}},
          {"name": "b", "length": 0.5, "elements": 10, $mat, "reference": {"origin": [0.5, 0, 0.01]}}],
 "joints": [{"type": "hinge", "a": "a:end", "b": "b:start", "axis": [0, 0, 1]}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "obstacles": [{"type": "plane", "name": "ground", "normal": [0, 0, 1], "friction": {"static": 0.5, "kinetic": 0.4},
                "motion": [[0, 0, 0, 0], [1, 0.15, 0, 0]]}],
 "stages": [{"type": "dynamic", "t_end": 1.2, "output_dt": 0.05, "rtol": 1e-6, "atol": 1e-9}], "output": {"vtk": false}}
JSON
if "$cli" run "$tmp/asm.json" -o "$tmp/asm" -q > "$tmp/asm.log" 2>&1; then
    python3 - "$tmp/asm" <<'PY' && ok "$(cat "$tmp/asm/verdict")" || bad "$(cat "$tmp/asm/verdict" 2> /dev/null)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/nodes.csv")))
lag = max(abs(float(r["x"]) - float(r["s"]) - (0.5 if r["rod"] == "b" else 0) - 0.15) for r in rows)
slid = max(float(r["contact_sliding"]) for r in csv.DictReader(open(sys.argv[1] + "/series.csv")))
good = lag < 1e-4 and slid == 0 and {r["rod"] for r in rows} == {"a", "b"}
open(sys.argv[1] + "/verdict", "w").write(
    f"mixed assembly, two hinged rods on ground moved 0.15 m by a table: both carried, every node {lag:.2g} m "
    f"from its place moved by 0.15 m at 1.2 s, {slid:g} nodes slid on the way (allowed none)")
sys.exit(not good)
PY
else
    bad "assembly: $(head -c 300 "$tmp/asm.log")"
fi
# --- port_hamiltonian: a ball moved by a table of positions under a rod
cat > "$tmp/ball.json" << 'JSON'
{"model": {"type": "port_hamiltonian"},
 "rod": {"length": 1, "elements": 5, "material": {"E": 1e7, "G": 4e6, "rho": 1000},
         "sections": [{"shape": "circle", "radius": 0.01}]},
 "obstacles": [{"type": "sphere", "name": "ball", "center": [0.5, 0, -0.315], "radius": 0.3,
                "motion": [[0, 0.5, 0, -0.315], [0.5, 0.52, 0, -0.31], [1, 0.55, 0, -0.305]],
                "friction": {"static": 0.5, "kinetic": 0.3}}],
 "loads": [{"type": "gravity", "value": [0, 0, -9.81]}],
 "stages": [{"type": "dynamic", "t_end": 1.2, "output_dt": 0.01, "time_step": 2.5e-4}],
 "output": {"vtk": false}}
JSON
if "$cli" run "$tmp/ball.json" -o "$tmp/ball" -q > "$tmp/ball.log" 2>&1; then
    python3 - "$tmp/ball" <<'PY' && ok "$(cat "$tmp/ball/verdict")" || bad "$(cat "$tmp/ball/verdict" 2> /dev/null)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/series.csv")))
f = lambda r, c: float(r[c])
bal = [f(r, "energy_kinetic") + f(r, "energy_elastic") + f(r, "energy_gravity") - f(r, "work_external")
       + f(r, "energy_dissipated") for r in rows]
drift = max(abs(b - bal[0]) for b in bal)
work = max(abs(f(r, "work_external")) for r in rows)
good = work > 0.1 and drift < 1e-8 * work
open(sys.argv[1] + "/verdict", "w").write(
    f"port_hamiltonian, a rough ball moved by a table under the rod: it does {work:.4g} J of work on it "
    f"(work_external); the energy balance holds within {drift:.2g} J")
sys.exit(not good)
PY
else
    bad "ball: $(head -c 300 "$tmp/ball.log")"
fi
# ... and the same rough ball turned by its table about the vertical (1 rad in 1 s) as it moves:
# its surface drags the rod round as well; the balance holds as for the translating ball
if "$cli" run "$tmp/ball.json" -o "$tmp/ballt" -q \
    --set 'obstacles.0.motion=[[0,0.5,0,-0.315],[0.5,0.52,0,-0.31,0,0,0.5],[1,0.55,0,-0.305,0,0,1]]' \
    > "$tmp/ballt.log" 2>&1; then
    python3 - "$tmp/ballt" "$tmp/ball" <<'PY' && ok "$(cat "$tmp/ballt/verdict")" || bad "$(cat "$tmp/ballt/verdict" 2> /dev/null)"
import csv, sys
f = lambda r, c: float(r[c])
def rows(d):
    return list(csv.DictReader(open(d + "/series.csv")))
R, T = rows(sys.argv[1]), rows(sys.argv[2])
bal = [f(r, "energy_kinetic") + f(r, "energy_elastic") + f(r, "energy_gravity") - f(r, "work_external")
       + f(r, "energy_dissipated") for r in R]
drift = max(abs(b - bal[0]) for b in bal)
work = max(abs(f(r, "work_external")) for r in R)
turned = abs(f(R[-1], "tip_y") - f(T[-1], "tip_y"))
good = work > 0.1 and drift < 1e-8 * work and turned > 1e-3
open(sys.argv[1] + "/verdict", "w").write(
    f"port_hamiltonian, the rough ball also turned by its table: it does {work:.4g} J of work on the rod, the "
    f"balance within {drift:.2g} J; its turn carries the rod's end {turned:.3g} m sideways")
sys.exit(not good)
PY
else
    bad "turning ball: $(head -c 300 "$tmp/ballt.log")"
fi
# --- resumed: the mixed rod's checkpoint holds the stick anchors in the obstacle's own frame, and
# its fingerprint the table (a cord of 100 elements on ground shaken by a table, sticking and
# slipping by turns, cut while it slips). The resumed run follows the uninterrupted one to 1e-6 m
# for as long as the two runs' nodes stick and slip alike, at least 3 rows (a lost anchor would show at once, by
# the spring's lag, ~1e-5 m, or the obstacle's shift). Not to the end: a resumed integrator
# starts with a fresh Jacobian (radau.h, cr_radau_reinit_memory), so its Newton iterates differ
# at round-off, and each of the run's hundreds of stick/slip decisions near the threshold can
# turn such a difference into one of the integrator's tolerance; the final distance is reported
# (0 in the Release build, 9e-4 m once with the ASan build's rounding).
rsets=(--set rod.elements=100 --set "${sets[1]}" --set stages.1.t_end=2 --set stages.1.output_dt=0.002
       --set stages.1.checkpoint_interval=0.01 --set stages.1.rtol=1e-7 --set stages.1.atol=1e-10 -q
       --set 'obstacles.0.motion=[[0,0,0,0],[0.3,0.05,0,0],[0.6,-0.05,0,0],[0.9,0.05,0,0],[1.2,-0.05,0,0],[1.5,0,0,0]]')
if "$cli" run "$ex" -o "$tmp/rfull" "${rsets[@]}" > "$tmp/rfull.log" 2>&1; then
    rows=320 # t = 0.64 s: the cord slides
    code=0
    for attempt in 1 2 3 4; do
        rm -rf "$tmp/rcut"
        interrupt_run "$tmp/rcut" "$rows" 6000 0.01 "$cli" run "$ex" -o "$tmp/rcut" "${rsets[@]}" > /dev/null 2>&1
        code=$?
        [ "$code" -eq 130 ] && break
        rows=$((rows / 3))
    done
    if [ "$code" -ne 130 ]; then
        bad "resume: could not interrupt the run (exit $code)"
    else
        cut_rows=$(($(wc -l < "$tmp/rcut/series.csv") - 1))
        rm -rf "$tmp/rother" && cp -r "$tmp/rcut" "$tmp/rother"
        "$cli" run "$ex" -o "$tmp/rother" "${rsets[@]}" --set 'obstacles.0.motion.1=[0.3,0.06,0,0]' --resume \
            > "$tmp/rother.out" 2>&1
        c=$?
        if [ "$c" -ne 1 ] || ! grep -q "does not belong to this scenario" "$tmp/rother.out"; then
            bad "resume with another table row: exit $c, $(head -c 300 "$tmp/rother.out")"
        else ok "resume: a checkpoint is refused after another table row"; fi
        if ! "$cli" run "$ex" -o "$tmp/rcut" "${rsets[@]}" --resume > "$tmp/rres.out" 2>&1; then
            bad "resume: $(head -c 300 "$tmp/rres.out")"
        else
            python3 - "$tmp/rfull" "$tmp/rcut" "$cut_rows" <<'PY' && ok "$(cat "$tmp/verdict")" || bad "$(cat "$tmp/verdict" 2> /dev/null)"
import csv, math, sys
a = list(csv.DictReader(open(sys.argv[1] + "/nodes.csv")))
b = list(csv.DictReader(open(sys.argv[2] + "/nodes.csv")))
d = max(math.dist([float(x[k]) for k in ("x", "y", "z")], [float(y[k]) for k in ("x", "y", "z")]) for x, y in zip(a, b))
sa = list(csv.DictReader(open(sys.argv[1] + "/series.csv")))
sb = list(csv.DictReader(open(sys.argv[2] + "/series.csv")))
cut = int(sys.argv[3])
# rows from the cut while both runs have as many nodes sliding: the largest tip and momentum gaps
end = cut
while end < min(len(sa), len(sb)) and sa[end]["contact_sliding"] == sb[end]["contact_sliding"]:
    end += 1
gap = max((abs(float(sa[k]["tip_x"]) - float(sb[k]["tip_x"])) for k in range(cut, end)), default=math.inf)
same = len(sa) == len(sb) and all(sa[k]["t"] == sb[k]["t"] for k in range(len(sa)))
good = len(a) == len(b) == 101 and same and end - cut >= 3 and gap < 1e-6
open(sys.argv[2] + "/../verdict", "w").write(
    f"resume: cut after {cut} rows (t = {sa[cut]['t']} s, {sa[cut]['contact_sliding']} nodes sliding), the resumed "
    f"run's tip within {gap:.2g} m of the uninterrupted run's (allowed 1e-6) over the {end - cut} rows (at least 3) "
    f"in which both have as many nodes sliding; final nodes {d:.2g} m apart")
sys.exit(not good)
PY
        fi
    fi
else
    bad "resume: the uninterrupted run failed: $(head -c 300 "$tmp/rfull.log")"
fi
# --- bad input, named at check
expect_error 1 'obstacles.0.motion.2.0: t must be > 1' check "$ex" --set 'obstacles.0.motion=[[0,0,0,0],[1,0,0,0],[1,1,0,0]]'
expect_error 1 'obstacles.0.motion.1: expected [t, x, y, z] or' check "$ex" --set 'obstacles.0.motion=[[0,0,0,0],[1,0,0]]'
expect_error 1 'obstacles.0.motion.1.4' check "$ex" --set 'obstacles.0.motion=[[0,0,0,0],[1,0,0,0,1e999,0,0]]'
expect_error 1 'obstacles.0.motion: expected at least 2 rows' check "$ex" --set 'obstacles.0.motion=[[0,0,0,0]]'
expect_error 1 'obstacles.0.motion: a table of poses replaces time' check "$ex" \
    --set 'obstacles.0.motion=[[0,0,0,0],[1,0,0,0]]' --set 'obstacles.0.time={"type":"constant"}'
expect_error 1 'give either motion or velocity' check "$ex" --set 'obstacles.0.motion=[[0,0,0,0],[1,0,0,0]]' \
    --set 'obstacles.0.velocity=[1,0,0]'
expect_error 1 'obstacles.0.position: moves the obstacle with a time function' check "$ex" --set 'obstacles.0.position=[1,0,0]'
expect_error 1 'obstacles.0.time: moves nothing' check "$ex" --set 'obstacles.0.time={"type":"constant"}'
expect_error 1 'obstacles.0.time.t1' check "$ex" --set 'obstacles.0.position=[1,0,0]' \
    --set 'obstacles.0.time={"type":"ramp","t0":1,"t1":0}'
lgvi_stage=('stages=[{"type":"dynamic","t_end":0.1,"output_dt":0.1,"time_step":1e-5}]' --set "${sets[1]}")
# the lgvi model takes driven obstacles (tests/lgvi_contact_moving.sh)
if "$cli" check "$ex" --set model.type=lgvi --set 'obstacles.0.motion=[[0,0,0,0],[1,0,0,0]]' \
    --set "${lgvi_stage[@]}" > "$tmp/out" 2>&1 &&
    "$cli" check "$ex" --set model.type=lgvi --set "${lgvi_stage[@]}" --set 'obstacles.0.position=[1,0,0]' \
        --set 'obstacles.0.time={"type":"ramp","t0":0,"t1":1}' > "$tmp/out" 2>&1; then
    ok "lgvi: check takes obstacles.0.motion and obstacles.0.position with time"
else
    bad "lgvi refuses a driven obstacle: $(head -c 300 "$tmp/out")"
fi
exit $fail
