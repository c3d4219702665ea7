"""Two clamped–clamped beams crossing at their midspans, made of ONE rod (a `nodes` reference):
beam 1 along x (length L1, z = 0), a connector out and around, beam 2 along y (length L2) resting
on beam 1 at z = 2r (touching, gap 0). Clamps at the four beam ends isolate the beams from the
connector. A downward force P at beam 2's midspan presses it onto beam 1 (self-contact).

Usage: selfcontact_crossing.py OUT.json N1 N2 [P]   (writes the scenario, prints "n1 mid2")
       selfcontact_crossing.py --check DIR N1 MID2 [P] (prints N, δ1, δ2, gap, each vs the
       closed form below as relative errors, JSON)
       selfcontact_crossing.py OUT.json N1 N2 P GAP dynamic (beam 2 a cantilever GAP above beam 1,
       dropped by the tip force P and gravity); --check-dynamic DIR (gap, energy, steps, JSON)

Closed form (small deflection, Timoshenko beam clamped at both ends under a central load F):
δ = F L³/(192 EI) + F L/(4 κ G A) (κ = 1, the rod's default shear coefficient). Frictionless
contact of beams initially touching: δ1 = δ2, so the contact force shares the load by the
stiffness: N = P c2/(c1 + c2), c_i the compliances above; δ1 = N c1."""
import json, math, sys

r, E, nu = 0.005, 1e9, 0.3
L1, L2, c = 0.8, 1.0, 0.2
h = 2 * r


def closed(P):
    G = E / (2 * (1 + nu))
    A, I = math.pi * r * r, math.pi * r ** 4 / 4
    c1 = L1 ** 3 / (192 * E * I) + L1 / (4 * G * A)
    c2 = L2 ** 3 / (192 * E * I) + L2 / (4 * G * A)
    N = P * c2 / (c1 + c2)
    return N, N * c1


def lin(a, b, n, first):
    return [[a[k] + (b[k] - a[k]) * i / n for k in range(3)] for i in range(0 if first else 1, n + 1)]


def quat(t):  # a frame with its x axis along t (t never along z here)
    t = [v / math.sqrt(sum(w * w for w in t)) for v in t]
    ey = [-t[1], t[0], 0]
    ny = math.hypot(ey[0], ey[1])
    ey = [v / ny for v in ey]
    ez = [t[1] * ey[2] - t[2] * ey[1], t[2] * ey[0] - t[0] * ey[2], t[0] * ey[1] - t[1] * ey[0]]
    R = [[t[0], ey[0], ez[0]], [t[1], ey[1], ez[1]], [t[2], ey[2], ez[2]]]
    w = math.sqrt(max(0, 1 + R[0][0] + R[1][1] + R[2][2])) / 2
    return [w, (R[2][1] - R[1][2]) / (4 * w), (R[0][2] - R[2][0]) / (4 * w), (R[1][0] - R[0][1]) / (4 * w)]


def write(out, n1, n2, P, gap=0.0, dynamic=False):
    nc = 4
    pts = lin([-L1 / 2, 0, 0], [L1 / 2, 0, 0], n1, True)
    pts += lin([L1 / 2, 0, 0], [L1 / 2 + c, 0, 0], nc, False)
    pts += lin([L1 / 2 + c, 0, 0], [0, -L2 / 2 - c, h + gap], 2 * nc, False)
    pts += lin([0, -L2 / 2 - c, h + gap], [0, -L2 / 2, h + gap], nc, False)
    b2 = len(pts) - 1
    pts += lin([0, -L2 / 2, h + gap], [0, L2 / 2, h + gap], n2, False)
    n = len(pts)
    qs = [quat([pts[min(i + 1, n - 1)][k] - pts[min(i + 1, n - 1) - 1][k] for k in range(3)]) for i in range(n)]
    mid2 = b2 + n2 // 2
    sc = {"name": "crossing",
          "rod": {"elements": n - 1, "material": {"E": E, "nu": nu},
                  "reference": {"type": "nodes", "positions": pts, "quaternions": qs},
                  "sections": [{"shape": "circle", "radius": r}]},
          "boundary_conditions": [{"type": "clamp", "node": i} for i in (0, n1, b2, b2 + n2)],
          "loads": [{"type": "force", "node": mid2, "value": [0, 0, -P]}],
          "contact": {"self": True, "tolerance": 1e-10},
          "stages": [{"type": "static", "load_steps": 4}]}
    if dynamic:  # beam 2 a cantilever from its start, dropped onto beam 1 by a tip force and gravity
        sc["rod"]["material"]["rho"] = 1000
        # the connector clamped at every node: left free between its end clamps, its sharp corners
        # (130-139 degree turns over one node) blow up the undamped dynamics at small steps even
        # without contact (h_max 2e-5 s: the energy 0.019 J -> 3e6 J at t = 4 ms), which is what
        # the contact's small steps led to
        sc["boundary_conditions"] = [{"type": "clamp", "node": i} for i in [0] + list(range(n1, b2 + 1))]
        sc["loads"] = [{"type": "force", "node": b2 + n2, "value": [0, 0, -P]},
                       {"type": "gravity", "value": [0, 0, -9.81]}]
        del sc["contact"]["tolerance"]
        sc["stages"] = [{"type": "dynamic", "t_end": 0.15, "output_dt": 0.001, "rtol": 1e-6, "atol": 1e-9}]
    json.dump(sc, open(out, "w"))
    print(n1, mid2)


def check_dynamic(d):
    """The drop: the smallest gap over the outputs, the largest gain of the energy (kinetic + elastic +
    gravity - the loads' work) over its start, the outputs with a pair pressing, the steps (JSON)."""
    import csv
    rows = list(csv.DictReader(open(d + "/series.csv")))
    s = json.load(open(d + "/summary.json"))
    e = [float(r["energy_total"]) - float(r["work_external"]) for r in rows]
    st = s["stages"][0]
    print(json.dumps({"t_end": float(rows[-1]["t"]), "converged": s["converged"],
                      "min_gap": min(float(r["self_contact_gap"]) for r in rows),
                      "touching": sum(float(r["self_contact_pairs"]) > 0 for r in rows),
                      "E0": e[0], "gain": max(e) - e[0], "steps": st["steps"]}))


def check(d, n1, mid2, P):
    import csv
    rows = list(csv.DictReader(open(d + "/nodes.csv")))
    s = json.load(open(d + "/summary.json"))
    R = {x["node"]: x["force"] for x in s["reactions"]}
    N, d1ref = closed(P)
    Nb = abs(R[0][2] + R[n1][2])  # beam 1's clamps carry the contact force alone
    d1 = -float(rows[n1 // 2]["z"])
    d2 = h - float(rows[mid2]["z"])
    print(json.dumps({"N": Nb, "N_err": Nb / N - 1, "d1": d1, "d1_err": d1 / d1ref - 1,
                      "d2_err": d2 / d1ref - 1, "gap": d1 - d2, "converged": s["converged"]}))


if __name__ == "__main__":
    if sys.argv[1] == "--check-dynamic":
        check_dynamic(sys.argv[2])
    elif sys.argv[1] == "--check":
        check(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]) if len(sys.argv) > 5 else 0.014)
    else:
        write(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 0.014,
              float(sys.argv[5]) if len(sys.argv) > 5 else 0.0, len(sys.argv) > 6 and sys.argv[6] == "dynamic")
