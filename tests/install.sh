#!/usr/bin/env bash
# shellcheck disable=SC2317  # the functions handed to check() are called through it
# An install runs as a user runs it, with no environment variables: every program below is started
# under `env -i` (no LD_LIBRARY_PATH, PYTHONPATH, PKG_CONFIG_PATH, COSSERAT_LIBRARY; compilers get
# PATH only), from a directory outside the prefix and the source tree.
#   - `cmake --install --prefix P` (a temporary P): the CLI runs a scenario (RPATH $ORIGIN/../lib),
#     a C program builds with pkg-config (the installed .pc file) and runs, and the tip position of
#     the tendon manipulator (n = 20) agrees with the build tree's CLI (same library, same numbers);
#     the install names the PYTHONPATH to set for P, and with it `import cosserat` uses P's library.
#   - into a virtual environment's prefix: its python imports cosserat with nothing set, and runs.
#   - for /usr and /usr/local the Python directory chosen is one /usr/bin/python3 searches
#     (asked of packaging/python-dir.cmake, nothing written there).
#   - the .debs (cpack): runtime and -dev content split, stripped, no RPATH, shlibs and the ldconfig
#     trigger, Python byte-code compiled and cleaned by the maintainer scripts, installable (apt-get -s), and lintian without errors or warnings (each skipped with a
#     message where dpkg-deb, apt-get or lintian is missing).
set -u
cli="$1"
src="$(cd "$2" && pwd)"
build="$(cd "$(dirname "$cli")" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { local what="$1"; shift; if "$@" > "$tmp/out" 2>&1; then echo "ok     $what"; else echo "FAIL   $what"; cat "$tmp/out"; fail=1; fi; }
skip() { echo "skip   $1"; }
python=/usr/bin/python3
scenario="$src/examples/tendon-manipulator.json"
mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1

# the reference: the build tree's CLI, tendon manipulator with 20 elements
"$cli" run "$scenario" -o "$tmp/ref" --set rod.elements=20 -q > /dev/null || { echo "FAIL the build tree's CLI"; exit 1; }
tip() { "$python" -c 'import json, sys; print(*json.load(open(sys.argv[1]))["tip"]["position"])' "$1"; }
ref=$(tip "$tmp/ref/summary.json")
# "$1" (three numbers) is the reference to $2 m: 1e-12 for the same library on the same input
# (round-off at most), 5e-6 for the 5 digits examples/embed.c prints
same() { "$python" -c 'import sys; a, b, tol = sys.argv[1].split(), sys.argv[2].split(), float(sys.argv[3])
assert len(a) == len(b) == 3 and all(abs(float(x) - float(y)) <= tol for x, y in zip(a, b)), sys.argv[1:]' \
    "$1" "$ref" "${2:-1e-12}"; }

# ---- a plain prefix ----
p="$tmp/prefix"
cmake --install "$build" --prefix "$p" > "$tmp/install.log" 2>&1 || { echo "FAIL cmake --install"; cat "$tmp/install.log"; exit 1; }
so=$(find "$p" -name 'libcosserat.so' | head -1)
libdir=$(dirname "$so")
check "library, headers, CLI, man page, licence and pkg-config file installed" \
    test -f "$so" -a -f "$p/include/cosserat/cosserat.h" -a -x "$p/bin/cosserat" -a -f "$libdir/pkgconfig/cosserat.pc" \
    -a -f "$p/share/man/man1/cosserat.1.gz" -a -f "$p/share/doc/cosserat/LICENSE" -a -f "$p/share/doc/cosserat/CITATION.cff"
installed_cli() {
    env -i "$p/bin/cosserat" run "$scenario" -o "$tmp/run" --set rod.elements=20 -q && same "$(tip "$tmp/run/summary.json")"
}
check "the installed CLI runs a scenario with no environment, at the build tree's numbers" installed_cli
pc="$libdir/pkgconfig/cosserat.pc"
c_program() {
    local pkgconfig="env -i PATH=/usr/bin:/bin pkg-config"
    # shellcheck disable=SC2046
    env -i PATH=/usr/bin:/bin cc -std=c11 "$src/examples/embed.c" $($pkgconfig --cflags --libs "$pc") \
        -Wl,-rpath,"$($pkgconfig --variable=libdir "$pc")" -o "$tmp/embed" &&
        env -i "$tmp/embed" 20 > "$tmp/embed.out" && cat "$tmp/embed.out" &&
        same "$(sed -n 's/^  tip *(\(.*\), \(.*\), \(.*\)) m$/\1 \2 \3/p' "$tmp/embed.out")" 5e-6
}
check "a C program builds with pkg-config and runs with no environment, at the build tree's numbers (5 digits printed)" c_program
pydir=$(grep -o 'PYTHONPATH=[^ ]*' "$tmp/install.log" | head -1)
pydir=${pydir#PYTHONPATH=}
check "the install names the PYTHONPATH for a prefix python3 does not search" test -n "$pydir" -a -f "$pydir/cosserat/__init__.py"
pyrun='import cosserat, cosserat._lib as L, sys
r = cosserat.run(sys.argv[1], {"rod.elements": 20})
assert r.converged
assert L.lib()._name.startswith(sys.argv[2]), L.lib()._name
print(*r.tip_position)'
python_with_pythonpath() { local t; t=$(env -i PYTHONPATH="$pydir" "$python" -c "$pyrun" "$scenario" "$p/") && same "$t"; }
have_numpy=0
"$python" -c "import numpy" 2> /dev/null && have_numpy=1
if [ $have_numpy = 1 ]; then
    check "with that PYTHONPATH the package runs on the installed library, at the build tree's numbers" python_with_pythonpath
else
    skip "Python checks (python3-numpy missing)"
fi

# ---- a virtual environment's prefix: its python finds the package with nothing set ----
python_in_venv() { local t; t=$(env -i "$tmp/venv/bin/python3" -c "$pyrun" "$scenario" "$tmp/venv/") && same "$t"; }
if [ $have_numpy = 1 ] && "$python" -m venv --system-site-packages --without-pip "$tmp/venv" > /dev/null 2>&1; then
    cmake --install "$build" --prefix "$tmp/venv" > "$tmp/install-venv.log" 2>&1 || { echo "FAIL cmake --install into a venv"; cat "$tmp/install-venv.log"; exit 1; }
    check "installed into a venv, its python imports cosserat and runs with no environment, at the build tree's numbers" python_in_venv
    check "and that install names no PYTHONPATH to set" bash -c "! grep PYTHONPATH '$tmp/install-venv.log'"
else
    skip "venv install (python3 venv or numpy missing)"
fi

# ---- /usr and /usr/local: the directory chosen is on /usr/bin/python3's path ----
for prefix in /usr /usr/local; do
    check "prefix $prefix: the Python package goes where $python looks" bash -c "
        out=\$(cmake -DPREFIX=$prefix -DPYTHON=$python -P '$src/packaging/python-dir.cmake') &&
        dir=\$(echo \"\$out\" | sed -n 1p) && test \"\$(echo \"\$out\" | sed -n 2p)\" = TRUE &&
        '$python' -c 'import sys; assert sys.argv[1] in sys.path, sys.argv[1]' $prefix/\$dir"
done

# ---- the Debian packages ----
if ! command -v dpkg-deb > /dev/null || ! command -v dpkg-shlibdeps > /dev/null; then
    skip ".deb checks (dpkg-deb/dpkg-shlibdeps missing)"
    exit $fail
fi
(cd "$build" && cpack -G DEB -B "$tmp/deb") > "$tmp/cpack.log" 2>&1 || { echo "FAIL cpack"; cat "$tmp/cpack.log"; exit 1; }
cd "$tmp/deb" || exit 1
lib=$(ls libcosserat[0-9]*_*.deb 2> /dev/null)
dev=$(ls libcosserat-dev_*.deb 2> /dev/null)
tool=$(ls cosserat_*.deb 2> /dev/null)
py=$(ls python3-cosserat_*_all.deb 2> /dev/null)
check "cpack makes four packages: library, -dev, CLI, Python" test -n "$lib" -a -n "$dev" -a -n "$tool" -a -n "$py"
[ -n "$lib" ] && [ -n "$dev" ] && [ -n "$tool" ] && [ -n "$py" ] || exit 1
for d in $lib $dev $tool $py; do dpkg-deb -c "$d" | awk '{print $6}' | sed 's|^\./||' > "$d.files"; done
check "the runtime package has the SONAME and no .so link, header or .pc file" bash -c "
    grep -q '^usr/lib/.*libcosserat\.so\.0$' $lib.files && ! grep -q -e '\.so$' -e '^usr/include' -e '\.pc$' $lib.files"
check "the -dev package has the .so link, the headers and the .pc file, and no shared object" bash -c "
    grep -q '^usr/lib/.*libcosserat\.so$' $dev.files && grep -q '^usr/include/cosserat/cosserat\.h$' $dev.files &&
    grep -q 'pkgconfig/cosserat\.pc$' $dev.files && ! grep -q '\.so\.0' $dev.files"
check "every package has its copyright file" bash -c "
    for d in $lib $dev $tool $py; do grep -q \"^usr/share/doc/\${d%%_*}/copyright\$\" \$d.files || exit 1; done"
check "the Python package is in /usr/lib/python3/dist-packages" grep -q '^usr/lib/python3/dist-packages/cosserat/__init__\.py$' "$py.files"
dpkg-deb -x "$lib" root && dpkg-deb -x "$tool" root && dpkg-deb -e "$lib" control
check "the library and the CLI are stripped (no .symtab) and the CLI has no RPATH" bash -c "
    for f in root/usr/bin/cosserat root/usr/lib/*/libcosserat.so.0.* root/usr/lib/libcosserat.so.0.*; do
        [ -e \"\$f\" ] || continue; ! readelf -S \"\$f\" | grep -q '\.symtab' || { echo \"\$f not stripped\"; exit 1; }; done
    ! readelf -d root/usr/bin/cosserat | grep -q -e RPATH -e RUNPATH"
check "the library package has a shlibs file and an ldconfig trigger, no maintainer scripts" bash -c "
    grep -q '^libcosserat 0 libcosserat0 (>= ' control/shlibs && grep -qx 'activate-noawait ldconfig' control/triggers &&
    test ! -e control/postinst -a ! -e control/postrm"
dpkg-deb -e "$py" pycontrol
check "the Python package byte-compiles on install and cleans up on removal (as dh_python3)" bash -c "
    grep -q 'py3compile -p python3-cosserat' pycontrol/postinst && grep -q 'py3clean -p python3-cosserat' pycontrol/prerm &&
    test -x pycontrol/postinst -a -x pycontrol/prerm"
check "the CLI, -dev and Python packages depend on the library" bash -c "
    for d in $dev $tool $py; do dpkg-deb -f \$d Depends | grep -q 'libcosserat0 (= ' || exit 1; done"
if command -v apt-get > /dev/null; then
    check "the packages are installable (apt-get -s)" bash -c "
        apt-get -s -o Debug::NoLocking=1 install --no-install-recommends ./$lib ./$dev ./$tool ./$py > apt.out 2>&1 || { cat apt.out; exit 1; }
        for n in libcosserat0 libcosserat-dev cosserat python3-cosserat; do grep -q \"^Inst \$n \" apt.out || { cat apt.out; exit 1; }; done"
else
    skip "installability (apt-get missing)"
fi
if command -v lintian > /dev/null; then
    check "lintian: no errors or warnings" bash -c "lintian --fail-on error,warning $lib $dev $tool $py 2>&1 | grep -v 'running with root privileges'; exit \${PIPESTATUS[0]}"
else
    skip "lintian (not installed; scripts/install-deps.sh installs it)"
fi
exit $fail
