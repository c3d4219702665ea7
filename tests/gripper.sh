#!/usr/bin/env bash
# The soft gripper (examples/gripper.json: a palm on a clamped wrist, three fingers closed by
# tendons). References: without gravity a tendon at offset r under tension T bends its finger
# uniformly, κ = T r / EI, compresses it by T/EA, and puts its tip on the arc of that curvature
# (closed form); the tendon chords' sagitta makes the discrete moment T r cos(κh/2), an O(h²)
# error checked at 20 and 40 elements per finger. With gravity the tendons are internal: the
# palm's weld to the wrist carries the palm's and the fingers' weight, the clamp all the weight.
# ctest runs it as: bash tests/gripper.sh <path-to-build/cosserat> <source-dir>
set -u
cli="${1:?usage: tests/gripper.sh <path-to-build/cosserat> <source-dir>}"
src="${2:?usage: tests/gripper.sh <path-to-build/cosserat> <source-dir>}"
python=/usr/bin/python3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ex="$src/examples/gripper.json"
for n in 20 40; do
    "$cli" run "$ex" -o "$tmp/ng$n" --set 'loads.0.value=[0,0,0]' --set rods.1.elements=$n \
        --set rods.2.elements=$n --set rods.3.elements=$n >/dev/null || { echo "FAIL: run without gravity, $n elements"; exit 1; }
done
"$cli" run "$ex" -o "$tmp/g" >/dev/null || { echo "FAIL: run of examples/gripper.json"; exit 1; }
PYTHONDONTWRITEBYTECODE=1 "$python" - "$ex" "$tmp" <<'PY'
import csv, json, math, sys
ex, tmp = sys.argv[1], sys.argv[2]
sc = json.load(open(ex))
fails = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)

f = sc["rods"][1]
rad, E, L = f["sections"][0]["radius"], f["material"]["E"], f["length"]
A, I = math.pi * rad**2, math.pi * rad**4 / 4
tendon = [ld for ld in sc["loads"] if ld["type"] == "tendon"]
T = max(ld["tension"] for ld in tendon)
r = tendon[0]["offset"]["radius_fraction"] * rad
kappa, lam = T * r / (E * I), 1 - T / (E * A)
phi = kappa * L
errs, tips = {}, {}
for n in (20, 40):
    rows = list(csv.DictReader(open(f"{tmp}/ng{n}/elements.csv")))
    fing = [w for w in rows if w["rod"].startswith("finger")]
    errs[n] = max(abs(float(w["kappa_z"]) / kappa - 1) for w in fing)
    gam = max(abs(float(w["gamma_x"]) - lam) for w in fing)
    check(gam < 1e-12, f"{n} elements: stretch gamma_x = 1 - T/EA = {lam:.12f} to {gam:.1e}")
    s = json.load(open(f"{tmp}/ng{n}/summary.json"))
    tip = s["track"]["tip0"]["position"]
    base = sc["rods"][1]["reference"]["origin"]
    # finger0 hangs from (0, 0.05, -0.01) along -z and bends towards the axis (-y)
    ref = [0.0, base[1] - lam * (1 - math.cos(phi)) / kappa, base[2] - lam * math.sin(phi) / kappa]
    tips[n] = math.dist(tip, ref)
    print(f"{n} elements: curvature vs T r/EI = {kappa:.6f} 1/m: {errs[n]:.3e} ((kappa h)^2/8 = "
          f"{(kappa * L / n)**2 / 8:.3e}); finger0's tip vs the arc: {tips[n]:.3e} m")
check(errs[20] < 2.2e-4 and 3.9 < errs[20] / errs[40] < 4.1,
      f"curvature error {errs[20]:.3e} -> {errs[40]:.3e} (ratio {errs[20] / errs[40]:.3f}, O(h^2), below 2.2e-4)")
check(tips[20] < 1.4e-5 and 3.5 < tips[20] / tips[40] < 4.5,
      f"tip error {tips[20]:.3e} -> {tips[40]:.3e} m (ratio {tips[20] / tips[40]:.3f}, O(h^2), below 1.4e-5 m)")

s = json.load(open(f"{tmp}/g/summary.json"))
g = 9.81
rho_f = f["material"]["rho"]
w = sc["rods"][0]
W_fingers = 3 * rho_f * A * L * g
W_palm = sc["rigid_bodies"][0]["mass"] * g
W_wrist = w["material"]["rho"] * math.pi * w["sections"][0]["radius"]**2 * w["length"] * g
jf = next(j for j in s["joints"] if j["name"] == "wrist-palm")["force"]
rf = s["reactions"][0]["force"]
e1 = math.dist(jf, [0, 0, -(W_palm + W_fingers)]) / (W_palm + W_fingers)
e2 = math.dist(rf, [0, 0, W_palm + W_fingers + W_wrist]) / (W_palm + W_fingers + W_wrist)
check(e1 < 1e-10, f"wrist-palm weld force = palm + fingers' weight {W_palm + W_fingers:.6f} N to {e1:.1e}")
# the clamp's reaction is as good as the Newton residual (2e-10 RMS)
check(e2 < 1e-8, f"clamp force = the whole weight {W_palm + W_fingers + W_wrist:.6f} N to {e2:.1e}")
check(s["converged"] and len(s["stages"]) == 3, "three static stages converged")
sys.exit(1 if fails else 0)
PY
