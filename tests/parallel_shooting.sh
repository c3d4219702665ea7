#!/usr/bin/env bash
# Parallel continuum robot (examples/parallel-robot.json) against an independent shooting
# solution of the Cosserat rod equations (tests/parallel_shooting.py, numpy), three actuation
# states, at 24 and 48 elements per leg: second-order convergence of the platform's pose.
# ctest runs it as: bash tests/parallel_shooting.sh <path-to-build/cosserat> <source-dir>
set -u
cli="${1:?usage: tests/parallel_shooting.sh <path-to-build/cosserat> <source-dir>}"
src="${2:?usage: tests/parallel_shooting.sh <path-to-build/cosserat> <source-dir>}"
python=/usr/bin/python3
if ! "$python" -c "import numpy" >/dev/null 2>&1; then
    echo "parallel_shooting.sh: $python with numpy is required (apt-get install python3-numpy)" >&2
    exit 1
fi
PYTHONDONTWRITEBYTECODE=1 exec "$python" "$src/tests/parallel_shooting.py" "$cli" "$src"
