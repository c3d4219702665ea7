#!/usr/bin/env python3
"""Compares two Wilberforce series.csv files (e.g. before/after a change to the integrator):
the extremes of the bob's height z and yaw, the first upper turning point, the largest
differences over the common output times, and the energy deviation.
    python3 bench/wilberforce_compare.py OLD/series.csv NEW/series.csv"""
import csv
import sys


def load(path):
    with open(path) as f:
        r = csv.reader(f)
        head = next(r)
        cols = {k: i for i, k in enumerate(head)}
        rows = [[float(v) for v in row] for row in r]
    return {k: [row[i] for row in rows] for k, i in cols.items()}


def first_max(t, z):
    for i in range(1, len(z) - 1):
        if z[i] >= z[i - 1] and z[i] > z[i + 1]:
            return t[i], z[i]
    return float("nan"), float("nan")


def summary(s):
    t, z, yaw, e = s["t"], s["bob_z"], s["bob_yaw"], s["energy_total"]
    tm, zm = first_max(t, z)
    return {"z_min": min(z), "z_max": max(z), "yaw_min": min(yaw), "yaw_max": max(yaw),
            "t_first_max": tm, "z_first_max": zm, "energy_dev": max(abs(v - e[0]) for v in e), "t_end": t[-1]}


a, b = load(sys.argv[1]), load(sys.argv[2])
sa, sb = summary(a), summary(b)
print(f"{'quantity':14s} {'old':>14s} {'new':>14s} {'new - old':>12s} {'relative':>10s}")
for k in sa:
    d = sb[k] - sa[k]
    rel = d / abs(sa[k]) if sa[k] else float("nan")
    print(f"{k:14s} {sa[k]:14.7g} {sb[k]:14.7g} {d:12.3e} {rel:10.2e}")
n = min(len(a["t"]), len(b["t"]))
dz = max(abs(a["bob_z"][i] - b["bob_z"][i]) for i in range(n))
dyaw = max(abs(a["bob_yaw"][i] - b["bob_yaw"][i]) for i in range(n))
print(f"over {n} common rows: max |dz| = {dz:.3e} m, max |dyaw| = {dyaw:.4f} deg")
worst = max(abs(sb[k] - sa[k]) / abs(sa[k]) for k in ("z_min", "z_max", "yaw_min", "yaw_max"))
print(f"largest relative change of the z and yaw extremes: {100 * worst:.4f} % (goal <= 0.1 %)")
