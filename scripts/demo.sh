#!/usr/bin/env bash
# make demo: run the default example (the tendon-driven manipulator of the mixed
# discrete rod paper) and write its results and plots.
set -eu
build="${1:-build}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/out/tendon-manipulator"
"$root/$build/cosserat" run "$root/examples/tendon-manipulator.json" -o "$out"
if [ -f "$root/python/cosserat/plot.py" ] && /usr/bin/python3 -c "import numpy, matplotlib" 2>/dev/null; then
    PYTHONPATH="$root/python" COSSERAT_LIBRARY="$root/$build/libcosserat.so" \
        /usr/bin/python3 -m cosserat.plot "$out"
else
    echo "demo: plots skipped (needs python3-numpy and python3-matplotlib: scripts/install-deps.sh)" >&2
fi
echo
echo "Results are in $out/"
echo "  summary.json, nodes.csv, elements.csv; open rod.pvd in ParaView for the load steps."
