#!/usr/bin/env bash
# ParaView output (rod.pvd, rod_NNNN.vtp, bodies_NNNN.vtp) through the CLI, checked with an
# independent parse (python3 xml.etree) of the files the run wrote:
#   - encodings (output.vtk_format): binary (the default; raw appended Float64, decoded here
#     with struct, not with the package's reader), compressed (zlib blocks) and ascii; the
#     tendon run in all three has the same arrays in every file, exactly (compressed) or to
#     the 12 digits of the text (ascii, also the Wilberforce run), and its binary final
#     snapshot holds nodes.csv's and elements.csv's numbers to the last bit;
#   - every .vtp (up to its appended section) and the .pvd are well-formed XML; each rod file
#     has exactly one line cell,
#     a polyline through all nodes in order (connectivity 0..n-1, one offset n), as many
#     points as nodes.csv has rows;
#   - radius: the section radius at each node's s: linear taper of the tendon manipulator's
#     circle (0.01 -> 0.004 m), 2 sqrt(EI/EA) for the flying spaghetti's resultants, half
#     the larger side of a tapered rectangle and 2 sqrt(max(EI_y, EI_z)/EA) of tapered
#     resultants in a two-segment rod;
#   - velocity, angular_velocity in every snapshot; in dynamic ones the velocities integrate
#     (Simpson's rule over two snapshot intervals, to 10 % of max |v| 2h: the integrators'
#     own relations are not Simpson's) to the change of the positions, and for the
#     port-Hamiltonian rod (midpoint rule) x1 - x0 = h (v0 + v1) / 2 to the
#     12 digits of the positions;
#   - times: dynamic snapshots at their time in s (the series.csv times, the first at 0,
#     equal to the field data `time`), static load steps before 0 (k - d - 1 + lambda) with
#     field data `load_factor` = lambda, or at k + lambda without dynamic stages; strictly
#     increasing; a second dynamic stage does not repeat the frame at its start time;
#   - rigid bodies (Wilberforce): bodies_NNNN.vtp as part 1 at the same timestep as every
#     rod_NNNN.vtp (part 0), its point the body centre of series.csv (bob_x, bob_y, bob_z) at
#     that time, its mass the scenario's, d1..d3 orthonormal;
#   - the final snapshot's points and quaternions equal nodes.csv; sample_* field data equal
#     elements.csv; the point data gamma..moment interpolate the samples.
set -u
cli="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

run() { # dir, scenario, overrides...
    local dir="$1" file="$2"
    shift 2
    local sets=()
    for s in "$@"; do sets+=(--set "$s"); done
    if ! "$cli" run "$file" -o "$tmp/$dir" -q "${sets[@]}" >"$tmp/$dir.log" 2>&1; then
        echo "FAIL: $dir: cosserat run failed"
        cat "$tmp/$dir.log"
        fail=1
        return 1
    fi
}

# check.py DIR OPTIONS(JSON): the checks above; prints FAIL lines, exits 1 on any
cat > "$tmp/check.py" <<'PY'
import csv, json, math, os, struct, sys, zlib
import xml.etree.ElementTree as ET

d, opt = sys.argv[1], json.loads(sys.argv[2])
bad = []
def fail(msg):
    bad.append(msg)
    print("FAIL: %s: %s" % (os.path.basename(d), msg))

# The binary encodings, decoded here on their own (not with the package's reader): an
# <AppendedData encoding="raw"> section after the XML, each array at its offset (bytes after
# the '_') as a UInt64 byte count and the bytes or, with compressor="vtkZLibDataCompressor",
# UInt64 [#blocks, block size, last partial block size, compressed sizes...] and zlib blocks.
APP = {"data": None, "zlib": False}
TYPES = {"Float64": "d", "Int32": "i"}

def appended_values(a):
    data, off = APP["data"], int(a.get("offset"))
    u64 = lambda k, at: list(struct.unpack_from("<%dQ" % k, data, at))
    if APP["zlib"]:
        blocks, block, last = u64(3, off)
        sizes = u64(blocks, off + 24)
        pos, raw = off + 24 + 8 * blocks, b""
        for k, c in enumerate(sizes):
            part = zlib.decompress(data[pos:pos + c])
            if len(part) != (last if k == blocks - 1 and last else block):
                fail("array %s: block %d of %d bytes" % (a.get("Name"), k, len(part)))
            raw += part
            pos += c
    else:
        (n,) = u64(1, off)
        raw = data[off + 8:off + 8 + n]
    t = TYPES[a.get("type")]
    return list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(t), t), raw))

def arrays(parent, tuples=True):
    out = {}
    for a in parent.findall("DataArray"):
        comps = int(a.get("NumberOfComponents", "1"))
        if a.get("format") == "appended":
            v = appended_values(a)
            if opt.get("format", "binary") == "ascii":
                fail("array %s: appended in an ascii file" % a.get("Name"))
        else:
            v = [float(x) for x in (a.text or "").split()]
            if opt.get("format", "binary") != "ascii" and len(v) != 1:
                fail("array %s: text in a binary file" % a.get("Name"))
        # VTK's reader sizes field data arrays by NumberOfTuples
        if tuples and (a.get("NumberOfTuples") is None or int(a.get("NumberOfTuples")) * comps != len(v)):
            fail("array %s: NumberOfTuples %s for %d values" % (a.get("Name"), a.get("NumberOfTuples"), len(v)))
        out[a.get("Name")] = [v[k:k + comps] for k in range(0, len(v), comps)] if comps > 1 else v
    return out

def read_vtp(path):
    text = open(path, "rb").read()
    i = text.find(b"<AppendedData")
    if i >= 0:  # the raw section is not XML: parse what comes before it
        if not text[i:].startswith(b'<AppendedData encoding="raw">') or not text.rstrip().endswith(b"</VTKFile>"):
            fail("%s: appended section" % path)
        APP["data"] = text[text.index(b"_", i) + 1:]
        text = text[:i] + b"</VTKFile>"
    root = ET.fromstring(text)  # raises on malformed XML
    want = {"binary": (i >= 0, None), "compressed": (i >= 0, "vtkZLibDataCompressor"), "ascii": (i < 0, None)}
    ok, comp = want[opt.get("format", "binary")]
    if not ok or root.get("compressor") != comp or (i >= 0 and root.get("header_type") != "UInt64"):
        fail("%s: not in the %s encoding" % (path, opt.get("format", "binary")))
    APP["zlib"] = root.get("compressor") == "vtkZLibDataCompressor"
    assert root.get("type") == "PolyData", path
    poly = root.find("PolyData")
    field = arrays(poly.find("FieldData")) if poly.find("FieldData") is not None else {}
    pieces = poly.findall("Piece")
    assert len(pieces) == 1, path
    p = pieces[0]
    pts = arrays(p.find("Points"))["position"]
    lines = p.find("Lines")
    verts = p.find("Verts")
    def cells(el):
        if el is None:
            return None
        a = {k: [int(x) for x in v] for k, v in arrays(el, tuples=False).items()}
        return a["connectivity"], a["offsets"]
    return dict(n=int(p.get("NumberOfPoints")), lines_n=int(p.get("NumberOfLines", "0")),
                verts_n=int(p.get("NumberOfVerts", "0")), points=pts, lines=cells(lines), verts=cells(verts),
                point=arrays(p.find("PointData")), cell=arrays(p.find("CellData")) if p.find("CellData") is not None else {},
                field=field)

def read_csv(path):
    rows = list(csv.reader(open(path)))
    return rows[0], [[float(v) for v in r] for r in rows[1:]]

close = lambda a, b, tol: abs(a - b) <= tol

pvd = ET.parse(os.path.join(d, "rod.pvd")).getroot()
entries = [(float(e.get("timestep")), int(e.get("part", "0")), e.get("file")) for e in pvd.iter("DataSet")]
rod = [(t, f) for t, p, f in entries if p == 0]
bodies = [(t, f) for t, p, f in entries if p == 1]
if any(p not in (0, 1) for _, p, _ in entries):
    fail("parts other than 0 and 1")
if not rod:
    fail("no rod datasets")
times = [t for t, _ in rod]
if any(b <= a for a, b in zip(times, times[1:])):
    fail("rod timesteps not strictly increasing: %s" % times)
if opt.get("bodies"):
    if [t for t, _ in bodies] != times or len(bodies) != len(rod):
        fail("bodies datasets not at the rod's timesteps")
    for (t, f), (_, g) in zip(rod, bodies):
        if f.replace("rod_", "bodies_") != g:
            fail("%s paired with %s" % (f, g))
elif bodies:
    fail("bodies datasets without rigid bodies")
for f in os.listdir(d):
    if f.endswith(".vtp") and f not in [x for _, _, x in entries]:
        fail("%s not in rod.pvd" % f)

nh, nodes = read_csv(os.path.join(d, "nodes.csv"))
eh, elements = read_csv(os.path.join(d, "elements.csv"))
snaps = [(t, read_vtp(os.path.join(d, f))) for t, f in rod]
L = nodes[-1][0]
for t, s in snaps:
    n = s["n"]
    if n != len(nodes):
        fail("t=%g: %d points, nodes.csv has %d rows" % (t, n, len(nodes)))
    if s["lines_n"] != 1 or s["lines"] is None or s["lines"][0] != list(range(n)) or s["lines"][1] != [n]:
        fail("t=%g: not one polyline through all %d nodes in order" % (t, n))
    if s["cell"]:
        fail("t=%g: cell data on the polyline" % t)
    for name in ("s", "radius", "quaternion", "d1", "d2", "d3", "velocity", "angular_velocity",
                 "gamma", "kappa", "force", "moment"):
        if len(s["point"].get(name, [])) != n:
            fail("t=%g: point data %s missing or of the wrong length" % (t, name))
    for name in ("time", "load_factor", "stage", "sample_s", "sample_gamma", "sample_kappa", "sample_force",
                 "sample_moment"):
        if name not in s["field"]:
            fail("t=%g: field data %s missing" % (t, name))
    if bad:
        sys.exit(1)
    # radius: the section at the node's s
    for i, (si, r) in enumerate(zip(s["point"]["s"], s["point"]["radius"])):
        want = None
        if "taper" in opt:
            r0, r1 = opt["taper"]
            want = r0 + (r1 - r0) * si / L
        elif "resultants" in opt:
            EI, EA = opt["resultants"]
            want = 2 * math.sqrt(EI / EA)
        elif "circle" in opt:
            want = opt["circle"]
        elif "sections" in opt:  # [[end, shape, values at start and end...]]: the first with end >= xi
            xi, start = si / L, 0.0
            for seg in opt["sections"]:
                if xi <= seg[0] + 1e-12:
                    break
                start = seg[0]
            f = lambda v: v[0] + (v[1] - v[0]) * (xi - start) / (seg[0] - start)
            if seg[1] == "rectangle":  # half the larger side
                want = max(f(seg[2]), f(seg[3])) / 2
            else:  # resultants: EA, EI_y, EI_z -> 2 sqrt(max EI / EA)
                want = 2 * math.sqrt(max(f(seg[3]), f(seg[4])) / f(seg[2]))
        if not close(r, want, 1e-9 * want):
            fail("t=%g: radius %.12g at s=%g, section radius %.12g" % (t, r, si, want))
            break
    # the sample values interpolated to the nodes: between the samples a node lies between
    ss = s["field"]["sample_s"]
    g = s["field"]["sample_gamma"]
    for i, si in enumerate(s["point"]["s"]):
        k = max([j for j in range(len(ss)) if ss[j] <= si] or [0])
        if k + 1 < len(ss) and si > ss[k]:
            w = (si - ss[k]) / (ss[k + 1] - ss[k])
            want = [(1 - w) * a + w * b for a, b in zip(g[k], g[k + 1])]
        else:
            want = g[k]
        if any(not close(a, b, 1e-9 + 1e-9 * abs(b)) for a, b in zip(s["point"]["gamma"][i], want)):
            fail("t=%g: nodal gamma at s=%g is not the samples' interpolation" % (t, si))
            break

# the final snapshot is the final state: nodes.csv, elements.csv
t_last, last = snaps[-1]
for i, row in enumerate(nodes):
    scale = max(1.0, max(abs(v) for v in last["points"][i]))
    if any(not close(a, b, 1e-9 * scale) for a, b in zip(last["points"][i], row[1:4])) or \
       any(not close(a, b, 1e-9) for a, b in zip(last["point"]["quaternion"][i], row[4:8])) or \
       not close(last["point"]["s"][i], row[0], 1e-9 * L):
        fail("final snapshot node %d differs from nodes.csv" % i)
        break
# (stresses to 1e-6 of each column's largest value: the mixed rod's dynamic stage ends with
# its stresses made consistent with the final state, after the last output)
scale = [max(abs(r[c]) for r in elements) or 1.0 for c in range(len(eh))]
for k, row in enumerate(elements):
    got = [last["field"]["sample_s"][k]] + [v for q in ("gamma", "kappa", "force", "moment")
                                            for v in last["field"]["sample_" + q][k]]
    if len(got) != len(row) or any(not close(a, b, 1e-6 * sc + 1e-12) for a, b, sc in zip(got, row, scale)):
        fail("final sample %d differs from elements.csv" % k)
        break
if len(last["field"]["sample_s"]) != len(elements):
    fail("%d samples, elements.csv has %d rows" % (len(last["field"]["sample_s"]), len(elements)))

# binary files are exact: the final snapshot holds nodes.csv's and elements.csv's numbers (17
# significant digits, which round-trip) to the last bit (static runs: a dynamic stage of the
# mixed rod makes its stresses consistent after the last output)
if opt.get("exact_final"):
    for i, row in enumerate(nodes):
        if last["points"][i] + last["point"]["quaternion"][i] + [last["point"]["s"][i]] != row[1:8] + row[:1]:
            fail("final snapshot node %d is not nodes.csv's numbers exactly" % i)
            break
    for k, row in enumerate(elements):
        got = [last["field"]["sample_s"][k]] + [v for q in ("gamma", "kappa", "force", "moment")
                                                for v in last["field"]["sample_" + q][k]]
        if got != row:
            fail("final sample %d is not elements.csv's numbers exactly" % k)
            break

# the same run in another encoding: every array of every file equal, exactly (compressed) or
# to the 12 significant digits of the text (ascii: |binary - text| <= 5e-12 |binary|)
def everything(path):
    v = read_vtp(path)
    out = {"position": v["points"]}
    for group in ("point", "field"):
        for k, x in v[group].items():
            out[group + ":" + k] = x
    return {k: [y for r in x for y in (r if isinstance(r, list) else [r])] for k, x in out.items()}

for other, fmt in ((opt.get("ascii_dir"), "ascii"), (opt.get("compressed_dir"), "compressed")):
    if not other:
        continue
    for _, _, f in entries:
        a = everything(os.path.join(d, f))
        mine, opt["format"] = opt.get("format", "binary"), fmt
        b = everything(os.path.join(other, f))
        opt["format"] = mine
        if sorted(a) != sorted(b):
            fail("%s: arrays %s in %s, %s in %s" % (f, sorted(a), fmt, sorted(b), opt.get("format", "binary")))
            continue
        for k in a:
            x, y = a[k], b[k]
            if len(x) != len(y) or any(p != q if fmt == "compressed" else abs(p - q) > 5.000001e-12 * abs(p)
                                       for p, q in zip(x, y)):
                fail("%s: %s differs in the %s encoding" % (f, k, fmt))
                break

# times
dyn = [(t, s) for t, s in snaps if s["field"]["stage"][0] in opt.get("dynamic_stages", [])]
stat = [(t, s) for t, s in snaps if s["field"]["stage"][0] not in opt.get("dynamic_stages", [])]
for t, s in dyn:  # the .pvd has 12 digits, binary files the exact time
    if not close(t, s["field"]["time"][0], 1e-12 * max(1.0, abs(t))):
        fail("dynamic snapshot at timestep %r but field data time %r" % (t, s["field"]["time"][0]))
if dyn:
    if dyn[0][0] != 0.0:
        fail("first dynamic snapshot at %r, not 0" % dyn[0][0])
    sh, series = read_csv(os.path.join(d, "series.csv"))
    st = [r[0] for r in series]
    for t, _ in dyn:
        if not any(close(t, x, 1e-9 * max(1.0, abs(x))) for x in st):
            fail("dynamic snapshot time %r is not a series.csv time" % t)
    # port-Hamiltonian rod (midpoint rule, snapshots every time step): x1 - x0 = h (v0 + v1) / 2
    if opt.get("trapezoid"):
        for (ta, a), (tb, b) in zip(dyn, dyn[1:]):
            h = tb - ta
            vmax = max(math.sqrt(sum(x * x for x in v)) for v in b["point"]["velocity"])
            err = max(abs(b["points"][i][j] - a["points"][i][j]
                          - h / 2 * (a["point"]["velocity"][i][j] + b["point"]["velocity"][i][j]))
                      for i in range(b["n"]) for j in range(3))
            xmax = max(abs(x) for p in b["points"] for x in p)
            if vmax == 0 or err > 1e-8 * vmax * h + 1e-11 * xmax:  # positions have 12 digits
                fail("t=%g..%g: displacement differs from the midpoint rule's by %.3g (max |v| h %.3g)"
                     % (ta, tb, err, vmax * h))
    # velocities: the positions' change over two snapshot intervals equals Simpson's rule on
    # the velocities (exact for motions up to quartic in t: a load ramp starts cubically)
    for (ta, a), (tb, b), (tc, c) in zip(dyn, dyn[1:], dyn[2:]):
        if not close(tc - tb, tb - ta, 1e-9) or a["field"]["stage"] != c["field"]["stage"]:
            continue
        h = tb - ta
        vmax = max(math.sqrt(sum(x * x for x in v)) for v in b["point"]["velocity"] + c["point"]["velocity"])
        err = 0
        for i in range(b["n"]):
            va, vb, vc = (s["point"]["velocity"][i] for s in (a, b, c))
            dx = [c["points"][i][j] - a["points"][i][j] for j in range(3)]
            err = max(err, max(abs(dx[j] - h / 3 * (va[j] + 4 * vb[j] + vc[j])) for j in range(3)))
        if vmax < 1e-9 and err < 1e-12:
            continue
        if vmax == 0 or err > opt.get("velocity_tol", 0.1) * vmax * 2 * h:
            fail("t=%g..%g: displacement differs from Simpson's rule on the velocities by %.3g (max |v| 2h %.3g)"
                 % (ta, tc, err, vmax * 2 * h))
    # rigid bodies: the centre in series.csv at that time
    if opt.get("bodies"):
        for (t, f), (_, g) in zip(rod, bodies):
            b = read_vtp(os.path.join(d, g))
            if b["n"] != 1 or b["verts_n"] != 1 or b["verts"] != ([0], [1]):
                fail("%s: not one vertex per body" % g)
                continue
            if not close(b["point"]["mass"][0], opt["mass"], 1e-12 * opt["mass"]):
                fail("%s: mass %r" % (g, b["point"]["mass"][0]))
            ax = [b["point"]["d%d" % k][0] for k in (1, 2, 3)]
            for p in range(3):
                for q in range(3):
                    if not close(sum(x * y for x, y in zip(ax[p], ax[q])), 1.0 if p == q else 0.0, 1e-9):
                        fail("%s: body axes not orthonormal" % g)
            if b["field"]["stage"][0] not in opt["dynamic_stages"]:
                continue
            row = [r for r in series if close(r[0], t, 1e-9)]
            cols = [sh.index("bob_" + c) for c in "xyz"]
            if not row or any(not close(row[-1][c], x, 1e-8) for c, x in zip(cols, b["points"][0])):
                fail("%s: body centre %s is not series.csv's at t=%g" % (g, b["points"][0], t))
for t, s in stat:
    lam = s["field"]["load_factor"][0]
    k = int(s["field"]["stage"][0])
    d0 = opt.get("first_dynamic")
    want = (k + lam) if d0 is None else (k - d0 - 1 + lam)
    if not close(t, want, 1e-12):
        fail("static snapshot (stage %d, load factor %g) at %r, expected %r" % (k, lam, t, want))
if "load_factors" in opt:
    got = [s["field"]["load_factor"][0] for _, s in stat]
    if any(not close(a, b, 1e-12) for a, b in zip(got, opt["load_factors"])) or len(got) != len(opt["load_factors"]):
        fail("static load factors %s, expected %s" % (got, opt["load_factors"]))
if "timesteps" in opt and any(not close(a, b, 1e-12) for a, b in zip(times, opt["timesteps"])) or \
        ("timesteps" in opt and len(times) != len(opt["timesteps"])):
    fail("timesteps %s, expected %s" % (times, opt["timesteps"]))
sys.exit(1 if bad else 0)
PY

check() { # dir, options
    python3 "$tmp/check.py" "$tmp/$1" "$2" || fail=1
}

# mixed rod with a rigid body: a static stage of 2 load steps, then a short dynamic stage
wil_sets=(rod.elements=120 stages.0.load_steps=2 stages.1.t_end=0.0012 stages.1.output_dt=0.0002
    stages.1.snapshot_dt=0.0002)
if run wil "$src/examples/wilberforce.json" "${wil_sets[@]}" &&
    run wil_ascii "$src/examples/wilberforce.json" "${wil_sets[@]}" output.vtk_format=ascii; then
    check wil '{"bodies": true, "mass": 0.5240569245269474, "circle": 0.0005, "dynamic_stages": [1],
                "first_dynamic": 1, "load_factors": [0.5, 1.0],
                "timesteps": [-1.5, -1, 0, 0.0002, 0.0004, 0.0006, 0.0008, 0.001, 0.0012],
                "ascii_dir": "'"$tmp/wil_ascii"'"}'
fi

# port-Hamiltonian rod (quadratic elements: 2n + 1 nodes), resultants section, dynamic only
if run ph "$src/examples/flying-spaghetti.json" rod.elements=4 stages.0.t_end=0.02 stages.0.time_step=0.005 stages.0.output_dt=0.005 \
        stages.0.snapshot_dt=0.005; then
    check ph '{"resultants": [1000.0, 10000.0], "dynamic_stages": [0],
               "trapezoid": true,
               "timesteps": [0, 0.005, 0.01, 0.015, 0.02]}'
fi

# tapered circle, static only: load steps at k + lambda; in all three encodings (binary, the
# default, compared with the others array by array)
tendon_sets=(rod.elements=40 stages.0.load_steps=4)
if run tendon "$src/examples/tendon-manipulator.json" "${tendon_sets[@]}" &&
    run tendon_ascii "$src/examples/tendon-manipulator.json" "${tendon_sets[@]}" output.vtk_format=ascii &&
    run tendon_comp "$src/examples/tendon-manipulator.json" "${tendon_sets[@]}" output.vtk_format=compressed; then
    check tendon '{"taper": [0.01, 0.004], "load_factors": [0.25, 0.5, 0.75, 1.0],
                   "timesteps": [0.25, 0.5, 0.75, 1.0], "exact_final": true,
                   "ascii_dir": "'"$tmp/tendon_ascii"'", "compressed_dir": "'"$tmp/tendon_comp"'"}'
    check tendon_ascii '{"format": "ascii", "taper": [0.01, 0.004], "load_factors": [0.25, 0.5, 0.75, 1.0],
                         "timesteps": [0.25, 0.5, 0.75, 1.0]}'
    check tendon_comp '{"format": "compressed", "taper": [0.01, 0.004], "load_factors": [0.25, 0.5, 0.75, 1.0],
                        "timesteps": [0.25, 0.5, 0.75, 1.0], "exact_final": true}'
fi
# a bad value is refused naming the key and the choices
if msg=$("$cli" check "$src/examples/tendon-manipulator.json" --set output.vtk_format=xml 2>&1) ||
    ! printf '%s' "$msg" | grep -q 'output.vtk_format: expected one of binary, ascii, compressed, got "xml"'; then
    echo "FAIL: output.vtk_format=xml: $msg"
    fail=1
fi

# two segments: a tapered rectangle (its larger side changes within the segment) and
# tapered resultants with EI_y != EI_z; static, one load step
cat > "$tmp/sections.json" <<'JSON'
{
  "name": "vtk-sections",
  "rod": { "length": 2.0, "elements": 20,
           "material": { "E": 1e7, "G": 4e6, "rho": 1000 },
           "sections": [ { "shape": "rectangle", "end": 0.5, "width": [0.02, 0.01], "height": 0.016 },
                         { "shape": "resultants", "EA": [1e4, 2e4], "GA_y": 5e3, "GA_z": 5e3, "GJ": 1.0,
                           "EI_y": 2.0, "EI_z": [8.0, 4.0], "rhoA": 1.0, "rhoI_y": 1e-3, "rhoI_z": 1e-3 } ] },
  "boundary_conditions": [ { "type": "clamp", "node": "start" } ],
  "loads": [ { "type": "force", "node": "end", "value": [0, 0, -1e-3] } ],
  "stages": [ { "type": "static", "load_steps": 1 } ]
}
JSON
if run sections "$tmp/sections.json"; then
    check sections '{"sections": [[0.5, "rectangle", [0.02, 0.01], [0.016, 0.016]],
                                  [1.0, "resultants", [1e4, 2e4], [2.0, 2.0], [8.0, 4.0]]],
                     "load_factors": [1.0], "timesteps": [1.0]}'
fi

# static, dynamic, dynamic: the second dynamic stage starts where the first ended, at the
# same time and state; that frame is written once; times stay the simulated ones
cat > "$tmp/stages.json" <<'JSON'
{
  "name": "vtk-stages",
  "rod": { "length": 1.0, "elements": 8,
           "material": { "E": 1e7, "G": 4e6, "rho": 1000 },
           "sections": [ { "shape": "circle", "radius": 0.01 } ] },
  "boundary_conditions": [ { "type": "clamp", "node": "start" } ],
  "loads": [ { "type": "force", "node": "end", "value": [0, 0.02, -0.04], "stages": [0] } ],
  "stages": [ { "type": "static", "load_steps": 2 },
              { "type": "dynamic", "t_end": 0.02, "output_dt": 0.005, "snapshot_dt": 0.005 },
              { "type": "dynamic", "t_end": 0.02, "output_dt": 0.005, "snapshot_dt": 0.005 } ]
}
JSON
if run stages "$tmp/stages.json"; then
    check stages '{"circle": 0.01, "dynamic_stages": [1, 2], "first_dynamic": 1, "load_factors": [0.5, 1.0],
                   "timesteps": [-1.5, -1, 0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04]}'
fi

# optional: VTK's own XML reader (what ParaView uses for .vtp; VTK has no .pvd reader), when
# a python3 with the vtk module is there (Debian: python3-vtk9 for /usr/bin/python3)
vtkpy=""
for py in python3 /usr/bin/python3; do
    if "$py" -c "import vtk" >/dev/null 2>&1; then vtkpy="$py"; break; fi
done
if [ -n "$vtkpy" ] && [ -d "$tmp/wil" ] && [ -d "$tmp/ph" ] && [ -d "$tmp/tendon_comp" ]; then
    "$vtkpy" - "$tmp" <<'PY' || fail=1
import glob, os, sys, vtk
from vtk.util.numpy_support import vtk_to_numpy as np_of
bad = 0
def fail(msg):
    global bad
    bad = 1
    print("FAIL: vtk reader: " + msg)
out = vtk.vtkOutputWindow()  # reader errors go to stderr and are counted below
import numpy as np
for case in ("wil", "ph", "tendon", "tendon_comp", "tendon_ascii"):
    d = os.path.join(sys.argv[1], case)
    if case.startswith("tendon") and case != "tendon_ascii":  # exact: the final state's numbers
        last = sorted(glob.glob(d + "/rod_*.vtp"))[-1]
        r = vtk.vtkXMLPolyDataReader()
        r.SetFileName(last)
        r.Update()
        nodes = np.loadtxt(os.path.join(d, "nodes.csv"), delimiter=",", skiprows=1)
        o = r.GetOutput()
        if not (np.array_equal(np_of(o.GetPoints().GetData()), nodes[:, 1:4])
                and np.array_equal(np_of(o.GetPointData().GetArray("quaternion")), nodes[:, 4:8])):
            fail("%s: VTK reads other numbers than nodes.csv's" % last)
    for f in sorted(glob.glob(d + "/*.vtp")):
        r = vtk.vtkXMLPolyDataReader()
        r.SetFileName(f)
        r.Update()
        if r.GetErrorCode() != 0:
            fail("%s: read error" % f)
            continue
        o = r.GetOutput()
        fd = o.GetFieldData()
        for name in ("time", "load_factor", "stage"):
            a = fd.GetArray(name)
            if a is None or a.GetNumberOfTuples() != 1:
                fail("%s: field data %s" % (f, name))
        name = os.path.basename(f)
        if name.startswith("rod_"):
            n = o.GetNumberOfPoints()
            if o.GetNumberOfCells() != 1 or o.GetCellType(0) != vtk.VTK_POLY_LINE:
                fail("%s: %d cells, type %d" % (f, o.GetNumberOfCells(), o.GetCellType(0)))
            ids = o.GetCell(0).GetPointIds()
            if [ids.GetId(k) for k in range(ids.GetNumberOfIds())] != list(range(n)):
                fail("%s: polyline not through all points in order" % f)
            pd = o.GetPointData()
            for a in ("s", "radius", "quaternion", "d1", "d2", "d3", "velocity", "angular_velocity", "gamma",
                      "kappa", "force", "moment"):
                if pd.GetArray(a) is None or pd.GetArray(a).GetNumberOfTuples() != n:
                    fail("%s: point data %s" % (f, a))
            ns = fd.GetArray("sample_s")
            if ns is None or ns.GetNumberOfTuples() < 1:
                fail("%s: field data sample_s" % f)
            else:
                for a in ("sample_gamma", "sample_kappa", "sample_force", "sample_moment"):
                    x = fd.GetArray(a)
                    if x is None or x.GetNumberOfTuples() != ns.GetNumberOfTuples() or x.GetNumberOfComponents() != 3:
                        fail("%s: field data %s" % (f, a))
            if pd.GetScalars() is None or pd.GetScalars().GetName() != "radius":
                fail("%s: active scalars are not the radius" % f)
            # what ParaView's Tube filter does with it: a tube of varying radius without seams
            t = vtk.vtkTubeFilter()
            t.SetInputData(o)
            t.SetVaryRadiusToVaryRadiusByAbsoluteScalar()
            t.SetNumberOfSides(8)
            t.Update()
            if t.GetOutput().GetNumberOfPoints() != 8 * n:
                fail("%s: tube has %d points, expected %d" % (f, t.GetOutput().GetNumberOfPoints(), 8 * n))
        else:
            if o.GetNumberOfPoints() != 1 or o.GetNumberOfCells() != 1 or o.GetCellType(0) != vtk.VTK_VERTEX:
                fail("%s: not one vertex" % f)
            if o.GetPointData().GetArray("mass") is None:
                fail("%s: no mass" % f)
print("vtk reader (VTK %s):" % vtk.vtkVersion.GetVTKVersion(), "FAIL" if bad else "ok")
sys.exit(bad)
PY
else
    echo "skip: no python3 with the vtk module (VTK reader check)"
fi

[ $fail -eq 0 ] && echo "vtk_output: all checks passed"
exit $fail
