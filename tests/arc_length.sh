#!/usr/bin/env bash
# Arc-length continuation of static stages ("path": "arc_length"), through the CLI:
#   1. DaDeppo & Schmidt's deep circular arch (J. Appl. Mech. 42 (1975) 894-896): opening
#      angle 215 deg, clamped at one end, hinged at the other, a vertical point load at the
#      apex; its limit load is P R^2/EI = 8.97 (quoted as 897 for EI = 1e6, R = 100 by Simo &
#      Vu-Quoc, Comput. Methods Appl. Mech. Eng. 58 (1986) 79-116, among others). The limit load found on
#      20, 40, 80, 160 elements converges at second order, its Richardson extrapolation agrees
#      with 8.97 to 0.1 %, and the path goes on past it (the load falls, the arch snaps
#      through and ends at the full load with the apex below the supports); every path point
#      is in summary.json and in rod.pvd with its load factor.
#   2. A clamped-clamped strip buckled by moving its end in by 10 % of its length, whose
#      end is then turned: it snaps at the end angle where the equilibrium path has a fold,
#      compared with an independent shooting solution of the inextensible elastica
#      (numpy, RK4, written here), to 0.1 % after Richardson extrapolation.
#   3. Without limit points (a cantilever bent by a tip force to large deflection), the
#      arc-length path ends at load factor 1 in the state load stepping reaches.
set -u
cli="$1"
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat > "$tmp/gen.py" <<'PY'
import json, math, sys

def quat(m):
    """rotation matrix (rows) -> quaternion (w, x, y, z), Shepperd's method"""
    tr = m[0][0] + m[1][1] + m[2][2]
    c = [tr, m[0][0], m[1][1], m[2][2]]
    k = max(range(4), key=lambda j: c[j])
    if k == 0:
        w = math.sqrt(1 + tr) / 2
        return [w, (m[2][1] - m[1][2]) / (4 * w), (m[0][2] - m[2][0]) / (4 * w), (m[1][0] - m[0][1]) / (4 * w)]
    if k == 1:
        x = math.sqrt(1 + m[0][0] - m[1][1] - m[2][2]) / 2
        return [(m[2][1] - m[1][2]) / (4 * x), x, (m[0][1] + m[1][0]) / (4 * x), (m[0][2] + m[2][0]) / (4 * x)]
    if k == 2:
        y = math.sqrt(1 - m[0][0] + m[1][1] - m[2][2]) / 2
        return [(m[0][2] - m[2][0]) / (4 * y), (m[0][1] + m[1][0]) / (4 * y), y, (m[1][2] + m[2][1]) / (4 * y)]
    z = math.sqrt(1 - m[0][0] - m[1][1] + m[2][2]) / 2
    return [(m[1][0] - m[0][1]) / (4 * z), (m[0][2] + m[2][0]) / (4 * z), (m[1][2] + m[2][1]) / (4 * z), z]

# in-plane bending stiffness 1 (about body z, the plane's normal); out of plane, torsion,
# stretching and shear stiff, so that the rod is the planar inextensible elastica
SECTION = {"shape": "resultants", "EA": 1e7, "GA_y": 1e7, "GA_z": 1e7, "GJ": 100.0, "EI_y": 100.0, "EI_z": 1.0}

def arch(n, vtk=False):
    """R = 1, EI = 1, opening 215 deg, apex at (0, 1); P = 10: the limit at load factor ~0.9"""
    half = math.radians(107.5)
    pos, qs = [], []
    for i in range(n + 1):
        th = -half + 2 * half * i / n
        pos.append([math.sin(th), math.cos(th), 0.0])
        ex, ey, ez = (math.cos(th), -math.sin(th), 0.0), (-math.sin(th), -math.cos(th), 0.0), (0.0, 0.0, -1.0)
        qs.append(quat([[ex[r], ey[r], ez[r]] for r in range(3)]))
    out = {"vtk": vtk, "track": [{"name": "apex", "node": n // 2}]}
    if vtk:
        out["vtk_format"] = "ascii"
    return {"name": "deep-arch",
            "rod": {"elements": n, "reference": {"type": "nodes", "positions": pos, "quaternions": qs},
                    "sections": [SECTION]},
            "boundary_conditions": [{"type": "clamp", "node": "start"},
                                    {"type": "support", "node": "end", "hold": ["x", "y", "z", "rx", "ry"]}],
            "loads": [{"type": "force", "node": n // 2, "value": [0, -10.0, 0]}],
            "stages": [{"type": "static", "stability": False, "path": "arc_length",
                        "arc_length": {"steps": 300, "initial": 0.05}}],
            "output": out}

def strip(n):
    """L = 1, EI = 1: bent up by a force at its middle (stage 0), its end moved in by 0.1 on an
    arc-length path (stage 1: load steps jump to the other side), the force taken away
    (stage 2), its end turned by up to 1 rad about z (stage 3)"""
    st = {"type": "static", "stability": False}
    return {"name": "snapping-strip",
            "rod": {"length": 1.0, "elements": n, "sections": [SECTION]},
            "boundary_conditions": [
                {"type": "clamp", "node": "start"},
                {"type": "clamp", "node": "end", "stages": [0]},
                {"type": "clamp", "node": "end", "position": [0.9, 0, 0], "stages": [1, 2]},
                {"type": "clamp", "node": "end", "position": [0.9, 0, 0], "rotation": [0, 0, 1.0], "stages": [3]}],
            "loads": [{"type": "force", "node": n // 2, "value": [0, 20.0, 0], "stages": [0, 1]}],
            "stages": [dict(st), dict(st, path="arc_length", arc_length={"initial": 0.1}), dict(st),
                       dict(st, path="arc_length", arc_length={"steps": 40, "initial": 0.05})],
            "output": {"vtk": False, "track": [{"name": "mid", "node": n // 2}]}}

def cantilever(path):
    st = {"type": "static", "stability": False, "rtol": 1e-9, "path": path}
    if path == "load_steps":
        st["load_steps"] = 10
    return {"name": "cantilever-" + path,
            "rod": {"length": 1.0, "elements": 20, "sections": [SECTION]},
            "boundary_conditions": [{"type": "clamp", "node": "start"}],
            "loads": [{"type": "force", "node": "end", "value": [0, -3.0, 0]}],
            "stages": [st], "output": {"vtk": False}}

kind, arg, out = sys.argv[1], sys.argv[2], sys.argv[3]
s = {"arch": lambda: arch(int(arg)), "arch_vtk": lambda: arch(int(arg), True), "strip": lambda: strip(int(arg)),
     "cantilever": lambda: cantilever(arg)}[kind]()
json.dump(s, open(out, "w"))
PY

# the first maximum of the load factor along a stage's path, refined by the parabola through
# the three path points around it (load factor against a tracked coordinate); then what the
# path did after it
cat > "$tmp/limit.py" <<'PY'
import json
def limit(d, stage, point, coord):
    s = json.load(open(d + "/summary.json"))
    assert s["status"] == "ok", (d, s["message"])
    st = s["stages"][stage]
    tl = st["track_load_steps"]
    assert len(tl) == st["load_steps"], (len(tl), st["load_steps"])  # every path point reported
    lf = [e["load_factor"] for e in tl]
    y = [e["track"][point]["position"][coord] for e in tl]
    k = next(i for i in range(1, len(lf) - 1) if lf[i + 1] < lf[i])
    (y0, y1, y2), (l0, l1, l2) = y[k - 1:k + 2], lf[k - 1:k + 2]
    a = ((l2 - l1) / (y2 - y1) - (l1 - l0) / (y1 - y0)) / (y2 - y0)
    b = (l1 - l0) / (y1 - y0) - a * (y0 + y1)
    ym = -b / (2 * a)
    top = l1 + a * (ym * ym - y1 * y1) + b * (ym - y1)
    assert lf[k] - 1e-12 <= top <= lf[k] + (lf[k] - min(l0, l2)), (lf[k - 1:k + 2], top)  # a refinement
    return top, lf, y, k, s
PY

echo "1. deep circular arch (DaDeppo & Schmidt 1975), limit load against the element count"
for n in 20 40 80 160; do
    $python "$tmp/gen.py" arch $n "$tmp/arch$n.json"
    "$cli" run "$tmp/arch$n.json" -o "$tmp/arch$n" > "$tmp/arch$n.log" 2>&1 || { echo "  FAIL: arch n=$n did not run"; cat "$tmp/arch$n.log"; fail=1; }
done
$python - "$tmp" <<'PY' || fail=1
import sys
sys.path.insert(0, sys.argv[1])
from limit import limit
d = sys.argv[1]
P, published = 10.0, 8.97  # P R^2/EI (DaDeppo & Schmidt 1975: 897 for EI = 1e6, R = 100)
tops = {}
for n in (20, 40, 80, 160):
    top, lf, y, k, s = limit(f"{d}/arch{n}", 0, "apex", 1)
    tops[n] = top * P
    after = lf[k + 1:]
    # the path goes on past the limit point: the load falls well below it, the arch snaps
    # through, and the path ends at the full load with the apex far below its supports (y = -0.30)
    assert min(after) < 0.5 * lf[k], (n, min(after))
    assert abs(lf[-1] - 1.0) < 1e-12 and s["load_factor"] == lf[-1], (n, lf[-1])
    assert y[-1] < -0.9, (n, y[-1])
    print(f"  n = {n:3d}: limit load P R^2/EI = {tops[n]:.5f} (path: {len(lf)} points, lowest load factor "
          f"after the limit {min(after):.4f}, apex at the end y = {y[-1]:.4f} R)")
d1, d2, d3 = tops[20] - tops[40], tops[40] - tops[80], tops[80] - tops[160]
print(f"  differences {d1:.5f} {d2:.5f} {d3:.5f}: ratios {d1 / d2:.2f} {d2 / d3:.2f} (second order: 4)")
assert 3.0 < d1 / d2 < 5.5 and 3.0 < d2 / d3 < 5.5
extrapolated = tops[160] - d3 / 3
err = extrapolated / published - 1
print(f"  Richardson extrapolation {extrapolated:.5f} against the published {published}: {100 * err:+.3f} %")
assert abs(err) < 1e-3
PY

echo "   every path point in rod.pvd with its load factor"
$python "$tmp/gen.py" arch_vtk 20 "$tmp/archv.json"
"$cli" run "$tmp/archv.json" -o "$tmp/archv" > /dev/null 2>&1 || { echo "  FAIL: arch with vtk did not run"; fail=1; }
$python - "$tmp/archv" <<'PY' || fail=1
import json, re, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
lf = [e["load_factor"] for e in s["stages"][0]["track_load_steps"]]
pvd = open(d + "/rod.pvd").read()
files = re.findall(r'file="([^"]+)"', pvd)
times = [float(t) for t in re.findall(r'timestep="([^"]+)"', pvd)]
assert len(files) == len(lf) == s["load_steps"], (len(files), len(lf), s["load_steps"])
assert all(b > a for a, b in zip(times, times[1:])), "pvd times not increasing"
for f, want in zip(files, lf):
    got = float(re.search(r'Name="load_factor"[^>]*>\s*([^<\s]+)', open(d + "/" + f).read()).group(1))
    assert abs(got - want) < 1e-9, (f, got, want)
print(f"  {len(files)} snapshots, load factors from {min(lf):.4f} to {max(lf):.4f}, as in summary.json")
PY

echo "2. buckled strip whose end turns: the snapping angle against the elastica"
for n in 20 40 80; do
    $python "$tmp/gen.py" strip $n "$tmp/strip$n.json"
    "$cli" run "$tmp/strip$n.json" -o "$tmp/strip$n" > "$tmp/strip$n.log" 2>&1 || { echo "  FAIL: strip n=$n did not run"; cat "$tmp/strip$n.log"; fail=1; }
done
$python - "$tmp" <<'PY' || fail=1
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from limit import limit
d = sys.argv[1]

# Independent reference: the planar inextensible elastica (EI = 1, L = 1) clamped at the
# origin with theta(0) = 0, theta'' = Nx sin(theta) - Ny cos(theta) for the constant internal
# force (Nx, Ny). For a start curvature k, (Nx, Ny) put the end at (1 - D, 0) (Newton on
# RK4 shooting); the end angle alpha(k) = theta(1) is then the end rotation of that
# equilibrium. From the buckled state (alpha = 0, mode 1 up) alpha grows with k to a maximum,
# the fold where the turning strip snaps.
D, N = 0.1, 200
def shoot(k, Nx, Ny):
    h, u = 1.0 / N, np.array([0.0, k, 0.0, 0.0])
    f = lambda u: np.array([u[1], np.sin(u[0]) * Nx - np.cos(u[0]) * Ny, np.cos(u[0]), np.sin(u[0])])
    for _ in range(N):
        a = f(u); b = f(u + 0.5 * h * a); c = f(u + 0.5 * h * b); e = f(u + h * c)
        u = u + h / 6 * (a + 2 * b + 2 * c + e)
    return u
def end(k, z):
    for _ in range(30):
        u = shoot(k, *z)
        g = np.array([u[2] - (1 - D), u[3]])
        if np.max(np.abs(g)) < 1e-12:
            break
        J = np.empty((2, 2))
        for j in range(2):
            dz = np.zeros(2); dz[j] = 1e-7
            uj = shoot(k, *(z + dz)); J[:, j] = (np.array([uj[2] - (1 - D), uj[3]]) - g) / 1e-7
        z = z - np.linalg.solve(J, g)
    return z, u[0]
k, z = 4 * np.pi * np.sqrt(D), np.array([-4 * np.pi ** 2, 0.0])  # Euler's clamped mode, y = A (1 - cos 2 pi s)/2
for _ in range(20):  # alpha(k) = 0: the buckled strip
    z, a0 = end(k, z)
    if abs(a0) < 1e-12:
        break
    k -= a0 / ((end(k + 1e-6, z)[1] - a0) / 1e-6)
ks, al = [k], [0.0]
while len(al) < 3 or al[-1] > al[-2]:
    z, a = end(ks[-1] + 0.05 * k, z)
    ks.append(ks[-1] + 0.05 * k); al.append(a)
lo, hi, g = ks[-3], ks[-1], (np.sqrt(5) - 1) / 2  # golden section for the largest alpha
c, e = hi - g * (hi - lo), lo + g * (hi - lo)
fc, fe = end(c, z)[1], end(e, z)[1]
while hi - lo > 1e-6 * k:
    if fc > fe:
        hi, e, fe = e, c, fc; c = hi - g * (hi - lo); fc = end(c, z)[1]
    else:
        lo, c, fc = c, e, fe; e = lo + g * (hi - lo); fe = end(e, z)[1]
reference = max(fc, fe)
print(f"  elastica (shooting, {N} RK4 steps): the strip snaps at alpha = {reference:.6f} rad")

ang = {}
for n in (20, 40, 80):
    top, lf, y, k_, s = limit(f"{d}/strip{n}", 3, "mid", 1)
    ang[n] = top * 1.0  # the target rotation is 1 rad: alpha = load factor
    assert min(lf[k_ + 1:]) < 0.5 * lf[k_], "the path does not go on past the fold"
    assert y[0] > 0.19 and min(y[k_ + 1:]) < 0.01, (y[0], min(y[k_ + 1:]))  # it snaps to the other side
    print(f"  n = {n:2d}: snaps at alpha = {ang[n]:.6f} rad (midpoint from y = {y[0]:.4f} to {min(y[k_ + 1:]):.4f})")
d1, d2 = ang[20] - ang[40], ang[40] - ang[80]
extrapolated = ang[80] - d2 / 3
err = extrapolated / reference - 1
print(f"  differences {d1:.6f} {d2:.6f} (ratio {d1 / d2:.2f}); extrapolated {extrapolated:.6f}: {100 * err:+.3f} %")
assert 3.0 < d1 / d2 < 5.5 and abs(err) < 1e-3
PY

echo "3. no limit point: arc length ends where load stepping does"
for p in load_steps arc_length; do
    $python "$tmp/gen.py" cantilever $p "$tmp/c_$p.json"
    "$cli" run "$tmp/c_$p.json" -o "$tmp/c_$p" > /dev/null 2>&1 || { echo "  FAIL: cantilever $p did not run"; fail=1; }
done
$python - "$tmp" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
rows = {}
for p in ("load_steps", "arc_length"):
    s = json.load(open(f"{d}/c_{p}/summary.json"))
    assert s["status"] == "ok" and s["load_factor"] == 1.0, (p, s["message"], s["load_factor"])
    rows[p] = [[float(v) for v in r[1:8]] for r in list(csv.reader(open(f"{d}/c_{p}/nodes.csv")))[1:]]
    print(f"  {p}: {s['load_steps']} steps, tip at ({rows[p][-1][0]:.6f}, {rows[p][-1][1]:.6f})")
dev = max(abs(a - b) for ra, rb in zip(rows["load_steps"], rows["arc_length"]) for a, b in zip(ra, rb))
print(f"  largest difference of the node poses: {dev:.2e}")
assert dev < 1e-7 and rows["arc_length"][-1][1] < -0.3  # a large deflection
PY

[ $fail -eq 0 ] && echo "arc_length: all passed" || echo "arc_length: FAILED"
exit $fail
