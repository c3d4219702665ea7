#!/usr/bin/env bash
# Python package tests (python/tests, pytest) against the freshly built library.
# ctest runs it as: bash tests/python.sh <path-to-build/cosserat> <source-dir>
# The library is the libcosserat.so next to the CLI; the package is imported from
# the source tree (nothing is installed).
set -u
cli="${1:?usage: tests/python.sh <path-to-build/cosserat> <source-dir>}"
src="${2:?usage: tests/python.sh <path-to-build/cosserat> <source-dir>}"
python=/usr/bin/python3
bindir="$(dirname "$cli")"
[ -d "$bindir" ] && bindir="$(cd "$bindir" && pwd)"
lib="$bindir/libcosserat.so"

if [ ! -x "$python" ]; then
    echo "python.sh: $python not found; install python3 python3-numpy python3-matplotlib python3-pytest" >&2
    echo "python.sh: (scripts/install-deps.sh does that on Debian)" >&2
    exit 1
fi
missing=""
for mod in numpy matplotlib pytest; do
    "$python" -c "import $mod" >/dev/null 2>&1 || missing="$missing python3-$mod"
done
if [ -n "$missing" ]; then
    echo "python.sh: $python lacks the Debian packages:$missing" >&2
    echo "python.sh: run 'sudo bash $src/scripts/install-deps.sh' (or apt-get install$missing)" >&2
    exit 1
fi
if [ ! -f "$lib" ]; then
    echo "python.sh: $lib not found (build the library first)" >&2
    exit 1
fi

export COSSERAT_LIBRARY="$lib"
export COSSERAT_CLI="$bindir/$(basename "$cli")"
export COSSERAT_SOURCE_DIR="$src"
export PYTHONPATH="$src/python${PYTHONPATH:+:$PYTHONPATH}"
export MPLBACKEND=Agg
export MPLCONFIGDIR="${TMPDIR:-/tmp}/cosserat-mpl-$$"
export PYTHONDONTWRITEBYTECODE=1
trap 'rm -rf "$MPLCONFIGDIR"' EXIT
# -p no:cacheprovider: no .pytest_cache in the source tree
"$python" -m pytest -q -p no:cacheprovider "$src/python/tests"
