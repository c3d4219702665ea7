#!/usr/bin/env bash
# Moving obstacles (docs/scenario.md `obstacles`, velocity/acceleration): the cord of
# examples/cable-on-ground.json (mu_s 0.6, mu_k 0.4, no pull) resting on ground that starts
# to accelerate along x at t = 0 (contact stiffness eps = 1000 N/m, rtol 1e-7):
#   a = 1 m/s^2 < mu_s g: the cord sticks and is carried, x(t) = x0 + a t^2/2; the friction
#     springs (stiffness eps_i, node mass m_i) load from 0 under a suddenly applied
#     acceleration, so the undamped nodes lag by at most 2 m_i a/eps_i = 8.64e-6 m
#     (measured 8.54e-6); with the anchors left in place (fixed in space) the cord stays put;
#   a = 7 m/s^2 > mu_s g: the cord slides, accelerating at mu_k g (the momentum's slope between
#     0.5 and 1 s) while the ground runs away.
# Usage: contact_moving.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash" # ok, bad, expect_error
ex="$src/examples/cable-on-ground.json"
sets=(--set 'loads=[{"type":"gravity","value":[0,0,-9.81]}]' --set stages.1.t_end=1 --set stages.1.rtol=1e-7
      --set stages.1.atol=1e-10 --set contact.stiffness=1000 --set output.vtk=false -q)
for a in 1 7; do
    if ! "$cli" run "$ex" -o "$tmp/a$a" "${sets[@]}" --set "obstacles.0.acceleration=[$a,0,0]" > "$tmp/a$a.log" 2>&1; then
        bad "a = $a: the run failed: $(head -c 300 "$tmp/a$a.log")"
        continue
    fi
    python3 - "$tmp/a$a" "$a" <<'PY' && ok "$(cat "$tmp/a$a/verdict")" || bad "$(cat "$tmp/a$a/verdict" 2> /dev/null)"
import csv, math, sys
d, a = sys.argv[1], float(sys.argv[2])
rows = list(csv.DictReader(open(d + "/series.csv")))
g, mu_s, mu_k, n = 9.81, 0.6, 0.4, 40
m = 1100 * math.pi * 0.005**2 * 2  # the cord's mass
eps, m_i = 1000.0, m / n           # an interior node's spring and mass (the ends: both halved)
t = [float(r["t"]) for r in rows]
x = [float(r["tip_x"]) - 2 for r in rows]
p = [float(r["momentum_x"]) for r in rows]
slid = max(float(r["contact_sliding"]) for r in rows)
if a < mu_s * g:
    lag = max(abs(xi - 0.5 * a * ti**2) for ti, xi in zip(t, x))
    bound = 2 * m_i * a / eps
    good = lag <= bound and slid == 0 and abs(x[-1] - 0.5 * a) < 1e-4
    msg = (f"ground at a = {a:g} m/s^2 < mu_s g: the cord is carried, x(1 s) = {x[-1]:.9g} m (a/2 = {0.5 * a:g}), "
           f"largest lag {lag:.3g} m (bound 2 m_i a/eps_i = {bound:.3g}), no node slid")
else:
    k0 = min(range(len(t)), key=lambda k: abs(t[k] - 0.5))
    acc = (p[-1] - p[k0]) / (t[-1] - t[k0]) / m
    good = abs(acc - mu_k * g) <= 1e-3 * mu_k * g and slid == n + 1 and x[-1] < 0.5 * a - 1
    msg = (f"ground at a = {a:g} m/s^2 > mu_s g: the cord slides at {acc:.6g} m/s^2 (mu_k g = {mu_k * g:.6g}), "
           f"x(1 s) = {x[-1]:.4g} m behind the ground's {0.5 * a:g} m")
open(d + "/verdict", "w").write(msg)
sys.exit(not good)
PY
done
exit $fail
