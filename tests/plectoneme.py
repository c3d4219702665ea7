#!/usr/bin/env python3
"""Measurements of a twisted clamped rod (examples/plectoneme.json) for tests/plectoneme.sh and
scripts/figures_plectoneme.py; pure Python (no numpy).

    plectoneme.py --critical B T L GJ   prints M_cr and the critical twist Phi_cr = M_cr L / GJ
    plectoneme.py --measure DIR A       prints JSON: the smallest distance between the
                                        segments of DIR/nodes.csv that may touch (those more
                                        than pi A apart along the rod), the twist Tw, the writhe
                                        Wr and the tip's position

The critical twisting moment of a rod clamped at both ends under a dead end tension T (Greenhill
1883; the linearized equations as in Ziegler, Principles of Structural Stability, 1968, and van
der Heijden, Neukirch, Goss & Thompson, Int. J. Mech. Sci. 45 (2003) 161-196, sec. 2): with
w = y + i z the lateral deflection, B w'''' - i M w''' - T w'' = 0, w = c1 + c2 s + c3 e^(l1 s) +
c4 e^(l2 s), l1,2 = (i M +- sqrt(4 B T - M^2))/(2B), and w = w' = 0 at both ends: the smallest M
> 2 sqrt(B T) where the 4x4 determinant vanishes. (T -> 0: 2.8606 pi B/L; long rods: 2 sqrt(B T),
Greenhill's infinite rod.)

Twist and writhe (Calugareanu-White-Fuller, Lk = Tw + Wr): Tw = sum of kappa_x l_e / 2 pi over
the elements; Wr the Gauss integral of the rod's polyline closed by straight extensions of its
ends along x to +-1e3 L and a far rectangle (Klenin & Langowski, Biopolymers 54 (2000) 307-317,
the exact double sum over straight segments). With both ends clamped on the x axis the rod
cannot change its linking number without passing through itself: Lk equals the end's turns.
"""
import cmath
import csv
import json
import math
import sys


def det4(a):
    a = [row[:] for row in a]
    d = 1
    for i in range(4):
        p = max(range(i, 4), key=lambda r: abs(a[r][i]))
        if a[p][i] == 0:
            return 0
        if p != i:
            a[i], a[p] = a[p], a[i]
            d = -d
        d *= a[i][i]
        for r in range(i + 1, 4):
            f = a[r][i] / a[i][i]
            for c in range(i, 4):
                a[r][c] -= f * a[i][c]
    return d


def clamped_det(M, B, T, L):
    """The determinant times e^(-i M L / 2B), which makes it purely imaginary"""
    s = cmath.sqrt(4 * B * T - M * M)
    l1, l2 = (1j * M + s) / (2 * B), (1j * M - s) / (2 * B)
    e1, e2 = cmath.exp(l1 * L), cmath.exp(l2 * L)
    a = [[1, 0, 1, 1], [0, 1, l1, l2], [1, L, e1, e2], [0, 1, l1 * e1, l2 * e2]]
    return (det4(a) * cmath.exp(-1j * M * L / (2 * B))).imag


def critical_moment(B, T, L):
    x = max(2 * math.sqrt(B * T) * (1 + 1e-9), 1e-3 * B / L)
    fx, step = clamped_det(x, B, T, L), 0.01 * B / L
    while True:
        y = x + step
        fy = clamped_det(y, B, T, L)
        if fx * fy < 0:
            break
        x, fx = y, fy
    for _ in range(200):
        m = 0.5 * (x + y)
        fm = clamped_det(m, B, T, L)
        if fm * fx <= 0:
            y = m
        else:
            x, fx = m, fm
    return 0.5 * (x + y)


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def seg_dist(p1, q1, p2, q2):
    """Smallest distance between segments p1q1 and p2q2 (Ericson, Real-Time Collision Detection, 5.1.9)"""
    d1, d2, r = sub(q1, p1), sub(q2, p2), sub(p1, p2)
    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    c, b = dot(d1, r), dot(d1, d2)
    den = a * e - b * b
    s = min(1.0, max(0.0, (b * f - c * e) / den)) if den > 1e-300 else 0.0
    t = (b * s + f) / e
    if t < 0:
        t, s = 0.0, min(1.0, max(0.0, -c / a))
    elif t > 1:
        t, s = 1.0, min(1.0, max(0.0, (b - c) / a))
    u = [p1[k] + d1[k] * s - p2[k] - d2[k] * t for k in range(3)]
    return math.sqrt(dot(u, u))


def unit(v):
    n = math.sqrt(dot(v, v))
    return (v[0] / n, v[1] / n, v[2] / n) if n > 0 else (0.0, 0.0, 0.0)


def asin_c(x):
    return math.asin(max(-1.0, min(1.0, x)))


def writhe_closed(P):
    """Gauss integral of the closed polygon P (Klenin & Langowski 2000, eq. 13)"""
    n, w = len(P), 0.0
    for i in range(n):
        p1, p2 = P[i], P[(i + 1) % n]
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the closure
            p3, p4 = P[j], P[(j + 1) % n]
            r13, r14, r23, r24 = sub(p3, p1), sub(p4, p1), sub(p3, p2), sub(p4, p2)
            n1, n2 = unit(cross(r13, r14)), unit(cross(r14, r24))
            n3, n4 = unit(cross(r24, r23)), unit(cross(r23, r13))
            om = asin_c(dot(n1, n2)) + asin_c(dot(n2, n3)) + asin_c(dot(n3, n4)) + asin_c(dot(n4, n1))
            sgn = dot(cross(sub(p4, p3), sub(p2, p1)), r13)
            w += om if sgn > 0 else -om
    return 2 * w / (4 * math.pi)


def measure(d, a):
    nodes = [(float(r["s"]), (float(r["x"]), float(r["y"]), float(r["z"]))) for r in csv.DictReader(open(d + "/nodes.csv"))]
    s = [q[0] for q in nodes]
    X = [q[1] for q in nodes]
    n = len(X)
    dmin, where = math.inf, None
    for i in range(n - 1):
        for j in range(i + 2, n - 1):
            if s[j] - s[i + 1] < math.pi * a:  # the self-contact's exclusion along the rod (docs/scenario.md)
                continue
            dd = seg_dist(X[i], X[i + 1], X[j], X[j + 1])
            if dd < dmin:
                dmin, where = dd, (i, j)
    el = list(csv.DictReader(open(d + "/elements.csv")))
    tw = sum(float(r["kappa_x"]) * (s[k + 1] - s[k]) for k, r in enumerate(el)) / (2 * math.pi)
    L = s[-1]
    far = 1e3 * L
    closed = [(-far, 0.0, 0.0)] + X + [(X[-1][0] + far, 0.0, 0.0), (X[-1][0] + far, -10 * far, 0.0), (-far, -10 * far, 0.0)]
    return {"min_distance": dmin, "pair": where, "Tw": tw, "Wr": writhe_closed(closed), "tip": X[-1]}


if __name__ == "__main__":
    if sys.argv[1] == "--critical":
        B, T, L, GJ = map(float, sys.argv[2:6])
        M = critical_moment(B, T, L)
        print(json.dumps({"M_cr": M, "Phi_cr": M * L / GJ, "turns_cr": M * L / GJ / (2 * math.pi)}))
    elif sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], float(sys.argv[3]))))
