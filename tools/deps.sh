#!/bin/sh
# Install the Debian packages posenc needs to build, test and benchmark.
# As root: apt-get installs whatever is missing.  Otherwise: prints the exact
# apt-get line to run and exits 1 if anything is missing.
#   build: gcc make pkg-config libcjson-dev libpng-dev zlib1g-dev libopenblas-dev
#   tests: libcmocka-dev, libmpfr-dev (the correctly rounded reference),
#          libsleef-dev (SLEEF's vector functions: the float32 emulation's proof),
#          python3-numpy (cross-checks), bsdutils (script(1)), parallel (GNU
#          parallel: the scaling-out recipe of the README, run by a test),
#          zsh (the test checks the zsh completion script parses),
#          qemu-user (t_isa.sh runs posenc on the baseline and AVX2 paths)
#   bench: python3-matplotlib, python3-pandas (the csv peers), time (GNU
#          time for peak memory)
set -u
pkgs="gcc make pkg-config libcjson-dev libpng-dev zlib1g-dev libopenblas-dev libcmocka-dev libcairo2-dev fonts-dejavu-core librsvg2-bin poppler-utils
libmpfr-dev libsleef-dev python3-numpy python3-matplotlib python3-pandas bsdutils parallel zsh qemu-user time"
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all present"
	exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
	exit $?
fi
echo "deps: missing$missing; run as root:"
echo "  apt-get update && apt-get install -y --no-install-recommends$missing"
exit 1
