#!/usr/bin/env bash
# The dynamic capstan (examples/rope-over-pulley.json): a light rope over a fixed rough pulley
# (μ_s = 0.3, μ_k = 0.2, wrap θ = π) with 0.1 kg on each end.
# - Stage 1 adds 0.8 (e^{μ_k π} − 1) m g to the right mass: T₂/T₁ = 1.70 stays below e^{μ_k π}
#   = 1.874 (and e^{μ_s π} = 2.566), so the rope holds. Stick anchors hold it without creep
#   (a regularized friction would creep at a speed ∝ the tangential force): over the stage's
#   second half the slip coordinate (left_z − right_z)/2 stays within 20 µm (measured 15 µm:
#   the masses' elastic oscillation on the rope; none of the nodes slides), where a slide at
#   even 1 % of stage 2's acceleration would move it 190 µm.
# - Stage 2 pulls with 2 m g: T₂/T₁ = 3 > e^{μ_s π}, the rope slides at the kinetic limit
#   T₂ = T₁ e^{μ_k θ} (Euler–Eytelwein), and Newton's law for the two masses gives
#   a = (W₂ − m₁ g e^{μ_k π}) / (m₂ + m₁ e^{μ_k π} + m_rope) (the light rope's inertia lumped;
#   its weight moving from side to side changes a by < 0.2 % here). Measured by a quadratic fit
#   of either mass's height over the stage's last 0.2 s (after the breakaway): within 3 %
#   (μ_s instead of μ_k would give a 3× smaller a; no friction a 2.5× larger one).
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" run "$src/examples/rope-over-pulley.json" -o "$tmp/out" -q > "$tmp/run.out" 2>&1 ||
    { echo "FAIL run: $(cat "$tmp/run.out")"; exit 1; }
python3 - "$src/examples/rope-over-pulley.json" "$tmp/out" << 'EOF'
import csv, json, math, sys

sc = json.load(open(sys.argv[1]))
rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[2] + "/series.csv"))]
g = 9.81
fr = sc["obstacles"][0]["friction"]
m1, m2 = (b["mass"] for b in sc["rigid_bodies"])
F1, F2 = -sc["loads"][1]["value"][2], -sc["loads"][2]["value"][2]
pos = sc["rod"]["reference"]["positions"]
m_rope = sc["rod"]["sections"][0]["rhoA"] * sum(math.dist(a, b) for a, b in zip(pos, pos[1:]))
t1 = sc["stages"][1]["t_end"]
t2 = t1 + sc["stages"][2]["t_end"]
ek, es = math.exp(fr["kinetic"] * math.pi), math.exp(fr["static"] * math.pi)
fail = 0


def mean(xs):
    return sum(xs) / len(xs)


# stage 1: holds
ratio1 = (m2 * g + F1) / (m1 * g)
assert ratio1 < ek < es, (ratio1, ek, es)
a_ref = (m2 * g + F2 - m1 * g * ek) / (m2 + m1 * ek + m_rope)
# the slip coordinate: half the height difference of the masses (a slide raises one, lowers the other)
half = [0.5 * (r["left_z"] - r["right_z"]) for r in rows if 0.5 * t1 <= r["t"] <= t1]
swing = max(half) - min(half)
slip_1pc = 0.5 * 0.01 * a_ref * (0.5 * t1) ** 2
sliding = max(r["contact_sliding"] for r in rows if 0.5 * t1 <= r["t"] <= t1)
if swing < 2e-5 and sliding == 0 and slip_1pc > 5 * swing:
    print(f"ok     T2/T1 = {ratio1:.3f} < e^(mu_k pi) = {ek:.3f}: holds, the slip coordinate stays within {swing:.1e} m "
          f"over the stage's second half (1 % of the slip acceleration: {slip_1pc:.1e} m), no node slides")
else:
    print(f"FAIL hold: the slip coordinate moved {swing:.2e} m, {sliding:.0f} nodes sliding")
    fail = 1


def quadratic_fit(ts, zs):
    """Least squares z = c0 + c1 t + c2 t² (normal equations, t centred)."""
    tc = mean(ts)
    ts = [t - tc for t in ts]
    S = [[sum(t ** (i + j) for t in ts) for j in range(3)] for i in range(3)]
    b = [sum(z * t**i for t, z in zip(ts, zs)) for i in range(3)]
    for i in range(3):
        for k in range(i + 1, 3):
            f = S[k][i] / S[i][i]
            S[k] = [S[k][j] - f * S[i][j] for j in range(3)]
            b[k] -= f * b[i]
    c = [0.0] * 3
    for i in (2, 1, 0):
        c[i] = (b[i] - sum(S[i][j] * c[j] for j in range(i + 1, 3))) / S[i][i]
    return c


ratio2 = (m2 * g + F2) / (m1 * g)
assert ratio2 > es
sel = [r for r in rows if t2 - 0.2 <= r["t"] <= t2]
for col, sign in (("left_z", 1), ("right_z", -1)):
    a = 2 * quadratic_fit([r["t"] for r in sel], [sign * r[col] for r in sel])[2]
    if abs(a / a_ref - 1) < 0.03:
        print(f"ok     T2/T1 = {ratio2:.2f} > e^(mu_s pi) = {es:.3f}: slides, {col[:-2]} mass a = {a:.4f} m/s^2 "
              f"against Euler-Eytelwein with mu_k {a_ref:.4f} ({a / a_ref - 1:+.1e})")
    else:
        print(f"FAIL slide: {col[:-2]} mass a = {a:.4f} m/s^2, Euler-Eytelwein with mu_k {a_ref:.4f}")
        fail = 1
if min(r["contact_sliding"] for r in sel) < max(r["contact_active"] for r in sel) - 1:
    print("FAIL slide: not every touching node slides in stage 2")
    fail = 1
sys.exit(fail)
EOF
