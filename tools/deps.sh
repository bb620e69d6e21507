#!/bin/sh
# Install the Debian packages posenc needs:  sh tools/deps.sh [SET...]
# As root: apt-get installs whatever is missing, saying what it does.
# Otherwise: prints the exact apt-get line to run and exits 1 if anything is
# missing.  SETs (default: build test, what `make` and `make check` need):
#   build: gcc make pkg-config libcjson-dev libpng-dev zlib1g-dev libopenblas-dev
#          libcairo2-dev fonts-dejavu-core (figures: cairo, DejaVu Sans)
#   test:  libcmocka-dev, libmpfr-dev (the correctly rounded reference),
#          libsleef-dev (SLEEF's vector functions: the float32 emulation's proof),
#          librsvg2-bin, poppler-utils (SVG and PDF figures rasterised by tests),
#          python3-numpy (cross-checks), bsdutils (script(1)), parallel (GNU
#          parallel: the scaling-out recipe of the README, run by a test),
#          zsh (the test checks the zsh completion script parses),
#          qemu-user (t_isa.sh runs posenc on the baseline and AVX2 paths)
#   ref:   python3-venv (make check-reference makes its virtual environment
#          with Debian's Python 3.11; the libraries themselves come from PyPI)
#   fuzz:  clang, libclang-rt-14-dev (make fuzz: libFuzzer, ASan, UBSan)
#   bench: python3-matplotlib, python3-pandas (the csv peers), time (GNU
#          time for peak memory)
#   all:   every set
set -u
build="gcc make pkg-config libcjson-dev libpng-dev zlib1g-dev libopenblas-dev libcairo2-dev fonts-dejavu-core"
test="libcmocka-dev libmpfr-dev libsleef-dev python3-numpy bsdutils parallel zsh qemu-user librsvg2-bin poppler-utils"
ref="python3-venv"
fuzz="clang libclang-rt-14-dev"
bench="python3-matplotlib python3-pandas time"

[ $# -eq 0 ] && set -- build test
sets="" pkgs=""
for s in "$@"; do
	case $s in
	build) pkgs="$pkgs $build" ;;
	test) pkgs="$pkgs $test" ;;
	ref) pkgs="$pkgs $ref" ;;
	fuzz) pkgs="$pkgs $fuzz" ;;
	bench) pkgs="$pkgs $bench" ;;
	all) pkgs="$pkgs $build $test $ref $fuzz $bench" ;;
	*)
		echo "deps: unknown set '$s' (build, test, ref, fuzz, bench, all)" >&2
		exit 2
		;;
	esac
	sets="$sets $s"
done

missing=""
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps:$sets: all present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps:$sets: missing$missing; run as root:"
	echo "  apt-get update && apt-get install -y --no-install-recommends$missing"
	exit 1
fi

log=$(mktemp /tmp/posenc-deps.XXXXXX)
export DEBIAN_FRONTEND=noninteractive
echo "deps:$sets: missing$missing"
echo "deps: apt-get update (reading the package lists, usually under a minute)"
if ! apt-get update -qq >"$log" 2>&1; then
	cat "$log"
	echo "deps: apt-get update failed (log: $log)" >&2
	exit 1
fi
n=$(echo $missing | wc -w)
echo "deps: apt-get install of $n packages and what they need (a minute or two)"
if ! apt-get install -y -qq --no-install-recommends $missing >"$log" 2>&1; then
	tail -n 30 "$log"
	echo "deps: apt-get install failed (log: $log)" >&2
	exit 1
fi
rm -f "$log"
echo "deps: installed$missing"
