#!/usr/bin/env bash
# `cmake --install` into a fresh prefix gives a usable library, headers, CLI, pkg-config file and
# Python package: a C program builds against it with pkg-config, the installed CLI runs a scenario,
# and the installed Python package finds the installed library by itself (no COSSERAT_LIBRARY).
set -u
cli="$1"
src="$(cd "$2" && pwd)"
build="$(cd "$(dirname "$cli")" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { local what="$1"; shift; if "$@" > "$tmp/out" 2>&1; then echo "ok     $what"; else echo "FAIL   $what"; cat "$tmp/out"; fail=1; fi; }

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || { echo "FAIL cmake --install"; cat "$tmp/install.log"; exit 1; }
p="$tmp/prefix"
libdir=$(dirname "$(find "$p" -name 'libcosserat.so' | head -1)")
check "library, headers, CLI and pkg-config file installed" test -f "$libdir/libcosserat.so" -a -f "$p/include/cosserat/cosserat.h" -a -x "$p/bin/cosserat" -a -f "$libdir/pkgconfig/cosserat.pc"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
check "pkg-config knows it" pkg-config --exists cosserat
check "a C program builds against the installed headers and library" \
    bash -c "cc -std=c11 '$src/examples/embed.c' \$(pkg-config --cflags --libs cosserat) -lm -Wl,-rpath,'$libdir' -o '$tmp/embed' && '$tmp/embed'"
check "the installed CLI runs a scenario" bash -c "LD_LIBRARY_PATH='$libdir' '$p/bin/cosserat' run '$src/examples/tendon-manipulator.json' -o '$tmp/run' --set rod.elements=20 -q | grep -q 'tip position'"
pydir=$(find "$p" -type d -name cosserat -path '*dist-packages*' | head -1)
if [ -n "$pydir" ] && /usr/bin/python3 -c "import numpy" 2> /dev/null; then
    check "the installed Python package finds the installed library" \
        bash -c "cd '$tmp' && env -u COSSERAT_LIBRARY PYTHONPATH='$(dirname "$pydir")' /usr/bin/python3 -c 'import cosserat; r = cosserat.run(\"$src/examples/tendon-manipulator.json\", {\"rod.elements\": 20}); assert r.converged; print(cosserat.__file__)' | grep -q '$p'"
fi
exit $fail
