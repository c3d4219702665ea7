#!/usr/bin/env bash
# The stability estimate with rigid strain components (rod.rigid_strains) is the constrained
# rod's, and never a NaN or a round-off verdict:
#  - every strain rigid, clamped or pinned at both ends (the Euler column, the tendon
#    manipulator): nothing can move; once "stable" with omega2 [null, ...] (NaN) in the
#    summary, and an unstable_equilibrium warning (omega2 = -6e20, eigen-residual 0.92);
#  - the Euler column (pinned-pinned, EI = 2 N m^2, L = 1 m) with rigid extension and shear
#    (Kirchhoff) and compliant (EA = GA = 1e8 N): omega2 of the lowest mode is linear in the
#    load P and vanishes at the buckling load; extrapolated from P = 15 and 18 N it must be
#    pi^2 EI / L^2 = 19.7392 N to the 40 elements' discretization error (2e-3), the two versions
#    within 1e-5 of each other (P/GA = 2e-7 apart);
#  - a rigid pendulum (every strain rigid, pinned with the vertical rotation held, 2 free
#    motions): omega2 = g sum(m_i z_i) / sum(m_i z_i^2 + J_i) of its lumped masses, a double value.
# And `check` refuses rigid strains in a mixed-rod dynamic stage, naming the key.
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
all='["gamma_x","gamma_y","gamma_z","kappa_x","kappa_y","kappa_z"]'
kirchhoff='["gamma_x","gamma_y","gamma_z"]'

for ex in euler-column tendon-manipulator; do
    "$cli" run "$src/examples/$ex.json" -o "$tmp/$ex" -q --set "rod.rigid_strains=$all" \
        --set output.vtk=false > "$tmp/$ex.out" 2>&1
    code=$?
    python3 - "$tmp/$ex/summary.json" "$code" <<'PY' || { echo "FAIL $ex all rigid: $(cat "$tmp/$ex.out")"; fail=1; }
import json, sys
text = open(sys.argv[1]).read()
assert "NaN" not in text and "null" not in text.split('"stability"')[1].split("}")[0], "a null in stability"
d = json.loads(text)
assert sys.argv[2] == "0", sys.argv[2]
s = d["stages"][0]["stability"]
assert s["stable"] is True and s.get("no_free_motion") is True, s
assert not any(w["code"] == "unstable_equilibrium" for w in d["warnings"]), d["warnings"]
print("ok     %s, every strain rigid: %s" % (sys.argv[1].split("/")[-2], s))
PY
done

for v in compliant kirchhoff; do
    for P in 15 18; do
        set_rigid=()
        [ "$v" = kirchhoff ] && set_rigid=(--set "rod.rigid_strains=$kirchhoff")
        "$cli" run "$src/examples/euler-column.json" -o "$tmp/ec-$v-$P" -q "${set_rigid[@]}" \
            --set loads.0.value.0=-$P --set loads.1.value.2=0 --set stages.0.load_steps=1 > /dev/null 2>&1 ||
            { echo "FAIL euler column $v P = $P: exit $?"; fail=1; }
    done
done
python3 - "$tmp" <<'PY' || fail=1
import json, math, sys
def w2(v, P):
    s = json.load(open("%s/ec-%s-%d/summary.json" % (sys.argv[1], v, P)))["stages"][0]["stability"]
    assert s["stable"] is True and s["residual"] < 1e-3, s
    return s["omega2"][0]
pcr = {}
for v in ("compliant", "kirchhoff"):
    a, b = w2(v, 15), w2(v, 18)
    pcr[v] = 18 + b * (18 - 15) / (a - b)
    print("ok     euler column %s: omega2 %.6g (P = 15 N), %.6g (18 N): P_cr %.6f N, pi^2 EI/L^2 = %.6f N"
          % (v, a, b, pcr[v], 2 * math.pi ** 2))
    assert abs(pcr[v] / (2 * math.pi ** 2) - 1) < 2e-3, pcr[v]
assert abs(pcr["kirchhoff"] / pcr["compliant"] - 1) < 1e-5, pcr
PY

# the rigid pendulum: stage 1 of the heavy pendulum (pin holding the vertical rotation), static only
"$cli" run "$src/examples/heavy-pendulum.json" -o "$tmp/hp" -q --set "rod.rigid_strains=$all" \
    --set 'stages=[{"type":"static"},{"type":"static"},{"type":"static"}]' --set loads.1.value.0=0 \
    > "$tmp/hp.out" 2>&1 || { echo "FAIL rigid pendulum: exit $?: $(cat "$tmp/hp.out")"; fail=1; }
python3 - "$tmp/hp/summary.json" <<'PY' || fail=1
import json, math, sys
s = json.load(open(sys.argv[1]))["stages"][1]["stability"]
# steel rod, r = 1 cm, L = 1 m, 40 elements, lumped: node masses rho A l (halves at the ends),
# rotational inertias rho I l about the swing axes
rho, r, L, n, g = 7800.0, 0.01, 1.0, 40, 9.81
A, I, l = math.pi * r * r, math.pi * r ** 4 / 4, L / n
w = [0.5 if i in (0, n) else 1.0 for i in range(n + 1)]
num = g * sum(wi * rho * A * l * i * l for i, wi in enumerate(w))
den = sum(wi * (rho * A * l * (i * l) ** 2 + rho * I * l) for i, wi in enumerate(w))
expect = num / den
print("ok     rigid pendulum: omega2 %s, expected %.10g (double)" % (s["omega2"], expect))
assert s["stable"] is True and len(s["omega2"]) == 2, s
assert all(abs(v / expect - 1) < 1e-9 for v in s["omega2"]), (s["omega2"], expect)
PY

# check refuses rigid strains in a mixed-rod dynamic stage (once: run failed after the statics)
out=$("$cli" check "$src/examples/damped-cantilever.json" --set 'rod.rigid_strains=["gamma_x"]' 2>&1)
code=$?
if [ "$code" -ne 1 ] || ! grep -q "rod.rigid_strains: .*dynamic stage 1.*port_hamiltonian" <<< "$out"; then
    echo "FAIL check rigid strains in dynamics: exit $code: $out"; fail=1
else
    echo "ok     check refuses rigid strains in a mixed dynamic stage"
fi
exit $fail
