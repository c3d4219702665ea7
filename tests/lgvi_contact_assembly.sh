#!/usr/bin/env bash
# Obstacles acting on the rods of an LGVI assembly (docs/lgvi.md "Contact in assemblies"): every rod
# meets the scenario's obstacles with the single rod's springs and Coulomb friction (formulation.c);
# a joint's shared node is one point of the summed mass, pressed by its members' springs and held by
# their summed friction (assembly.c group_friction). The rod: 1 m, circle r = 1 cm, E = 1e7 Pa,
# rho = 1000 (m = rhoA L = 0.3142 kg, weight 3.0819 N), lying on the plane z = delta - r at the
# springs' depth delta = rhoA g l/k_c (each node's spring holds its weight share).
#   continuous  two rods of 10 elements welded end to end against the continuous rod of 20 (LGVI,
#               the same nodes): lifted at its end by 0.8 N for 1 s (frictionless: it rocks and
#               lands), every output's momentum, energy and normal force and the final nodes equal
#               to round-off; the normal force at rest = the weight; the energy balance with the
#               springs' energy in energy_elastic stays within the integrator's bound
#   friction    the pair on rough ground (mu_s 0.5, mu_k 0.3): pulled by a force density 2 mu_s w
#               it accelerates at (2 mu_s - mu_k) g, by 0.9 mu_s w it does not move (exact stick, as
#               the single rod); pulled at b's end by F = 2 mu_s m g it accelerates at
#               (F - mu_k m g)/m, the weld's node (two members) carrying its share; by
#               F = 0.25 m g it stretches (at most 2 F L/EA, a suddenly applied load) and then
#               sticks: no creep
#   mixed       the pair, its joint a hinge, pulled at its end by 2 mu_s m g, against the
#               mixed_discrete model on the same scenario: the same acceleration after the
#               break-loose, momenta and nodes within the two friction laws' difference at it
#   check       the stable step `check` applies is every rod's with its contact springs: a coarse
#               rod a and a fine rod b with a stiff contact.stiffness: a step between their limits
#               is refused naming rods.1 and contact.stiffness; without obstacles it passes
#   resume      a run of stick-slip cycles interrupted (SIGINT) and resumed equals the uninterrupted
#               one, digit for digit (each rod's contact energy, work and sliding flags checkpointed)
# Usage: lgvi_contact_assembly.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/lib.bash"
py=/usr/bin/python3

# the scenarios: NAME.json, written by one script (the depth delta depends on the element length)
$py - "$tmp" <<'PY' || exit 1
import json, math, sys
d = sys.argv[1]
rhoA, g, mus, muk = 1000 * math.pi * 1e-4, 9.81, 0.5, 0.3
mat = {"material": {"E": 1e7, "G": 4e6, "rho": 1000}, "sections": [{"shape": "circle", "radius": 0.01}]}

def depth(l):  # the plane's z: every node's spring (k_c w_i, k_c = 12 EI/l^3) holds its weight
    kc = 12 * 1e7 * (math.pi * 1e-8 / 4) / l ** 3
    return rhoA * g * l / kc - 0.01

def ground(l, friction=True):
    o = {"type": "plane", "name": "ground", "normal": [0, 0, 1], "point": [0, 0, depth(l)]}
    if friction:
        o["friction"] = {"static": mus, "kinetic": muk}
    return [o]

def one(n, loads, obstacles, stage):
    return {"model": {"type": "lgvi"}, "rod": dict(length=1, elements=n, **mat), "loads": loads,
            "obstacles": obstacles, "contact": {"tolerance": 1e-3}, "stages": [stage], "output": {"vtk": False}}

def two(n, loads, obstacles, stage, joint="weld"):
    j = {"type": joint, "a": "a:end", "b": "b:start"}
    if joint == "hinge":
        j["axis"] = [0, 0, 1]
    return {"model": {"type": "lgvi"},
            "rods": [dict(name="a", length=0.5, elements=n, **mat),
                     dict(name="b", length=0.5, elements=n, reference={"origin": [0.5, 0, 0]}, **mat)],
            "joints": [j], "loads": loads, "obstacles": obstacles, "contact": {"tolerance": 1e-3},
            "stages": [stage], "output": {"vtk": False}}

def save(name, sc):
    json.dump(sc, open(f"{d}/{name}.json", "w"))

grav = {"type": "gravity", "value": [0, 0, -9.81]}
dyn = lambda t_end, h=5e-5, out=0.005: {"type": "dynamic", "t_end": t_end, "output_dt": out, "time_step": h}
# continuous: lifted at the end, frictionless
save("lift1", one(20, [grav, {"type": "force", "node": "end", "value": [0, 0, 0.8]}], ground(0.05, False), dyn(1, out=0.01)))
save("lift2", two(10, [grav, {"type": "force", "node": "b:end", "value": [0, 0, 0.8]}], ground(0.05, False), dyn(1, out=0.01)))
# friction: force densities and end forces
for tag, f in (("dslide", 2 * mus * rhoA * g), ("dstick", 0.9 * mus * rhoA * g)):
    fd = {"type": "force_density", "value": [f, 0, 0]}
    save(tag + "1", one(20, [grav, fd], ground(0.05), dyn(0.3)))
    save(tag + "2", two(10, [grav, dict(fd, rod="a"), dict(fd, rod="b")], ground(0.05), dyn(0.3)))
for tag, F in (("tslide", 2 * mus * rhoA * g), ("tstick", 0.5 * mus * rhoA * g)):
    save(tag + "1", one(20, [grav, {"type": "force", "node": "end", "value": [F, 0, 0]}], ground(0.05), dyn(0.5)))
    save(tag + "2", two(10, [grav, {"type": "force", "node": "b:end", "value": [F, 0, 0]}], ground(0.05), dyn(0.5)))
# mixed: a hinge, the same pull at its end, both models
F = 2 * mus * rhoA * g
sc = two(10, [grav, {"type": "force", "node": "b:end", "value": [F, 0, 0]}], ground(0.05), dyn(0.5), "hinge")
save("hinge", sc)
sc["model"] = {"type": "mixed_discrete"}
sc["contact"]["stiffness"] = 12 * 1e7 * (math.pi * 1e-8 / 4) / 0.05 ** 3  # the lgvi's default k_c
sc["stages"] = [{"type": "dynamic", "t_end": 0.5, "output_dt": 0.005, "rtol": 1e-8, "atol": 1e-11}]
save("hinge_mixed", sc)
# check: rod a of 5 elements (its contact limit 6.96e-5 s), b of 10 (5.62e-5 s, 9.1e-5 s without)
sc = two(10, [grav], ground(0.05), dyn(0.3, h=6e-5))
sc["rods"][0]["elements"], sc["contact"]["stiffness"] = 5, 1e7
save("cfl", sc)
del sc["obstacles"], sc["contact"]
save("cfl_free", sc)
# resume: pulled at its end by m g (0.2 + 0.45 sin 4 pi t): it slides, stops, sticks, breaks loose
sc = two(20, [grav, {"type": "force", "node": "b:end", "value": [0.45 * rhoA * g, 0, 0],
                     "time": {"type": "sine", "frequency": 2, "amplitude": 1, "offset": 0.444}}],
         ground(0.025), {"type": "dynamic", "t_end": 1, "output_dt": 0.005, "time_step": 2.5e-5,
                         "checkpoint_interval": 0.05})
save("res", sc)
PY

for c in lift1 lift2 dslide1 dslide2 dstick1 dstick2 tslide1 tslide2 tstick1 tstick2 hinge hinge_mixed; do
    timeout -k 5 300 "$cli" run "$tmp/$c.json" -o "$tmp/$c" -q > "$tmp/$c.log" 2>&1 || bad "$c: $(head -c 300 "$tmp/$c.log")"
done
[ $fail = 0 ] || exit 1

$py - "$tmp" <<'PY' || fail=1
import csv, math, sys
d = sys.argv[1]
rhoA, g, mus, muk, L, EA = 1000 * math.pi * 1e-4, 9.81, 0.5, 0.3, 1.0, 1e7 * math.pi * 1e-4
m = rhoA * L
ok = True

def check(cond, text):
    global ok
    print(("ok     " if cond else "FAIL   ") + text)
    ok = ok and cond

series = lambda n: list(csv.DictReader(open(f"{d}/{n}/series.csv")))
f = lambda r, c: float(r[c])

def nodes(n, drop_joint=True):
    rows = list(csv.DictReader(open(f"{d}/{n}/nodes.csv")))
    # the pair's nodes in order, the weld's second copy dropped
    return [r for r in rows if not (drop_joint and r.get("rod") == "b" and float(r["s"]) == 0)]

def node_gap(a, b):
    return max(math.dist([float(p[k]) for k in "xyz"], [float(q[k]) for k in "xyz"]) for p, q in zip(a, b))

def slope(rows, col, t0, t1):  # least squares
    pts = [(f(r, "t"), f(r, col)) for r in rows if t0 <= f(r, "t") <= t1]
    n, st, sy = len(pts), sum(t for t, _ in pts), sum(y for _, y in pts)
    stt, sty = sum(t * t for t, _ in pts), sum(t * y for t, y in pts)
    return (n * sty - st * sy) / (n * stt - st * st)

# ---- continuous: the welded pair is the continuous rod ----
a, b = series("lift2"), series("lift1")
# each column's largest difference against its largest value (the momenta against |P_z|'s)
scale = {c: max(abs(f(y, c)) for y in b) for c in ("momentum_z", "energy_total", "contact_normal_force")}
cols = {"momentum_x": "momentum_z", "momentum_z": "momentum_z", "energy_kinetic": "energy_total",
        "energy_elastic": "energy_total", "work_external": "energy_total", "contact_normal_force": "contact_normal_force"}
dev = {c: max(abs(f(x, c) - f(y, c)) for x, y in zip(a, b)) / scale[s] for c, s in cols.items()}
dx = node_gap(nodes("lift1"), nodes("lift2"))
N0 = f(a[0], "contact_normal_force")
bal = [f(r, "energy_total") - f(r, "work_external") for r in a]
W = max(abs(f(r, "work_external")) for r in a)
lifted = max(f(r, "tip_z") for r in b)
check(len(a) == len(b) == 101 and max(dev.values()) < 1e-8 and dx < 1e-11,
      f"continuous: the welded pair, lifted at its end for 1 s (tip up to {lifted:.3g} m), is the continuous rod: "
      f"series within {max(dev.values()):.2g} (relative), nodes within {dx:.2g} m")
check(abs(N0 / (m * g) - 1) < 1e-9,  # (series.csv's 10 digits)
      f"continuous: at rest the normal force {N0:.15g} N is the weight m g = {m * g:.15g} N")
check(max(abs(x - bal[0]) for x in bal) < 1e-3 * W,
      f"continuous: energy_total - work_external (the springs' energy in energy_elastic) within "
      f"{max(abs(x - bal[0]) for x in bal):.2g} J of {W:.3g} J of work")

# ---- friction ----
for tag, acc_ref in (("dslide", (2 * mus - muk) * g), ("tslide", (2 * mus * m * g - muk * m * g) / m)):
    a, b = series(tag + "2"), series(tag + "1")
    acc = slope(a, "momentum_x", 0.1, float(a[-1]["t"])) / m
    dp = max(abs(f(x, "momentum_x") - f(y, "momentum_x")) for x, y in zip(a, b))
    dx = node_gap(nodes(tag + "1"), nodes(tag + "2"))
    slid = max(f(r, "contact_sliding") for r in a)
    check(abs(acc - acc_ref) < 1e-6 * g and dx < 1e-12 and dp < 1e-12 and slid == 22,
          f"friction {tag}: the pair slides ({slid:g} nodes, the weld's two included) at {acc:.12g} m/s^2 "
          f"(reference {acc_ref:.12g}); as the continuous rod: momentum within {dp:.2g}, nodes {dx:.2g} m")
a = nodes("dstick2")
moved = max(abs(float(r["x"]) - float(r["s"]) - (0.5 if r["rod"] == "b" else 0)) for r in a)
slid = max(f(r, "contact_sliding") for r in series("dstick2"))
check(moved < 1e-12 and slid == 0, f"friction: pulled by 0.9 mu_s w it sticks: no node moved more than {moved:.2g} m")
a, b = series("tstick2"), series("tstick1")
F = 0.5 * mus * m * g
tip = [f(r, "tip_x") for r in b if f(r, "t") >= 0.1]  # (the continuous rod's: the pair's nodes are its, below)
creep = max(tip) - min(tip)
T = max(f(r, "energy_kinetic") for r in a if f(r, "t") >= 0.1)
dx = node_gap(nodes("tstick1"), nodes("tstick2"))
stretch = float(nodes("tstick2")[-1]["x"]) - 1
check(creep < 1e-12 and T < 1e-20 and 0 < stretch < 2 * F * L / EA and dx < 1e-12 and f(a[-1], "contact_sliding") == 0,
      f"friction: pulled at its end by {F / (m * g):g} m g it stretches by {stretch:.4g} m (bound 2 F L/EA = "
      f"{2 * F * L / EA:.4g} m) and sticks: after 0.1 s the tip moves {creep:.2g} m, the kinetic energy is at most "
      f"{T:.2g} J; as the continuous rod: nodes within {dx:.2g} m")

# ---- against the mixed rod ----
a, b = series("hinge"), series("hinge_mixed")
al, am = slope(a, "momentum_x", 0.1, 0.5) / m, slope(b, "momentum_x", 0.1, 0.5) / m
dp = max(abs(f(x, "momentum_x") - f(y, "momentum_x")) for x, y in zip(a, b))
dx = node_gap(nodes("hinge", False), nodes("hinge_mixed", False))
P = max(f(r, "momentum_x") for r in a)
check(len(a) == len(b) == 101 and abs(al / am - 1) < 1e-4 and dp < 2e-3 * P and dx < 2e-3,
      f"mixed: the hinged pair pulled by 2 mu_s m g accelerates at {al:.9g} m/s^2, the mixed rod at {am:.9g} "
      f"(reference {(2 * mus - muk) * g:.9g}); momenta within {dp:.2g} of {P:.3g} kg m/s (the break-loose: the "
      f"mixed rod's stick is an anchor spring), nodes within {dx:.2g} m after {float(nodes('hinge')[-1]['x']) - 1:.3g} m")
sys.exit(0 if ok else 1)
PY

# ---- check: every rod's stable step with its contact springs ----
expect_error 1 "rods.1 ('b'): stages.0.time_step: 6e-05 s exceeds the stable step of the explicit lgvi scheme with contact" \
    check "$tmp/cfl.json"
grep -qF "contact.stiffness" "$tmp/err" || bad "check: the refusal does not name contact.stiffness"
if "$cli" check "$tmp/cfl_free.json" > /dev/null 2>&1; then ok "check: the same step without obstacles passes"
else bad "check: the same step without obstacles is refused"; fi
if "$cli" check "$tmp/cfl.json" --set stages.0.time_step=5e-5 > /dev/null 2>&1; then ok "check: 5e-5 s passes"
else bad "check: 5e-5 s is refused"; fi

# ---- SIGINT and --resume ----
"$cli" run "$tmp/res.json" -o "$tmp/full" -q > /dev/null 2>&1 || bad "resume: the uninterrupted run failed"
rows=50 code=0
for attempt in 1 2 3; do
    rm -rf "$tmp/cut"
    interrupt_run "$tmp/cut" "$rows" 400 0.01 "$cli" run "$tmp/res.json" -o "$tmp/cut" -q > /dev/null 2>&1
    code=$?
    [ "$code" -eq 130 ] && break
    rows=$((rows / 4)) # it finished before the interrupt: interrupt earlier
done
if [ "$code" -ne 130 ]; then
    bad "resume: could not interrupt the run (exit $code)"
else
    cut_rows=$(($(wc -l < "$tmp/cut/series.csv") - 1))
    "$cli" run "$tmp/res.json" -o "$tmp/cut" -q --resume > "$tmp/resume.log" 2>&1 ||
        bad "resume: the resumed run failed: $(head -c 400 "$tmp/resume.log")"
    slips=$($py -c "
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for a, b in zip(r, r[1:]) if float(a['contact_sliding']) == 0 and float(b['contact_sliding']) > 0))" \
        "$tmp/full/series.csv")
    if cmp -s "$tmp/full/series.csv" "$tmp/cut/series.csv" && cmp -s "$tmp/full/nodes.csv" "$tmp/cut/nodes.csv"; then
        ok "resume: interrupted after $cut_rows rows of $slips stick-slip cycles, resumed: series.csv and nodes.csv identical to the uninterrupted run"
    else
        bad "resume: the resumed run differs: $(diff "$tmp/full/series.csv" "$tmp/cut/series.csv" | head -3)"
    fi
fi
exit $fail
