#!/usr/bin/env bash
# Installs the Debian packages cosserat needs, if any are missing.
# As root it uses apt-get; otherwise it only reports what is missing.
set -eu
# lintian: tests/install.sh checks the .deb packages with it (skipped without it)
packages="build-essential cmake pkg-config libcjson-dev zlib1g-dev liblapack-dev libblas-dev libsuitesparse-dev python3 python3-numpy python3-scipy python3-matplotlib python3-pytest python3-distributed clang libclang-rt-14-dev lintian"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "install-deps: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  apt-get install -y -qq $missing
else
  echo "install-deps: missing Debian packages:$missing" >&2
  echo "install-deps: run 'sudo bash scripts/install-deps.sh' or install them yourself" >&2
  exit 1
fi
