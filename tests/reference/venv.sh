#!/bin/sh
# Make (or reuse) the virtual environment of `make check-reference`:
#   sh tests/reference/venv.sh [DIR]        (default build/venv)
# It installs exactly the pinned lines of tests/reference/requirements.txt
# and stamps DIR with that file's SHA-256: a later run with the same file
# reuses DIR, a changed file recreates it.  Nothing is resolved at install
# time (pip --no-deps over a complete pin list, wheels only), so nothing
# unlisted -- torchvision, a CUDA torch -- can come in; `pip check` then
# proves the list complete.
#
# Python: the torch wheel on these machines (/opt/wheels) is for CPython
# 3.11, and any other Python would make pip fetch a multi-GB CUDA build from
# PyPI, so the first of $REF_PYTHON, /usr/bin/python3 (Debian's 3.11, with
# python3-venv from tools/deps.sh), python3.11, python3 that is a 3.11 able
# to make a venv with pip is used.  A partial environment is removed.
set -eu
venv=${1:-build/venv}
here=$(cd "$(dirname "$0")" && pwd)
req=$here/requirements.txt
stamp=$venv/.requirements.sha256
log=$venv.log
want=$(sha256sum "$req" | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$venv/bin/python" -c '' 2>/dev/null; then
	echo "venv: $venv is up to date with tests/reference/requirements.txt"
	exit 0
fi

py=
for cand in ${REF_PYTHON:-} /usr/bin/python3 python3.11 python3; do
	if "$cand" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
		py=$cand
		break
	fi
done
if [ -z "$py" ]; then
	echo "venv: no Python 3.11 with venv and ensurepip (tried ${REF_PYTHON:-} /usr/bin/python3 python3.11 python3);" >&2
	echo "venv: 'sh tools/deps.sh ref' installs Debian's python3-venv" >&2
	exit 1
fi

cleanup() {
	if [ ! -f "$stamp" ]; then
		rm -rf "$venv"
		[ -f "$log" ] && tail -n 20 "$log" >&2
		echo "venv: failed (the whole log: $log)" >&2
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

[ -e "$venv" ] && echo "venv: $venv is out of date with tests/reference/requirements.txt: recreating"
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
echo "venv: $venv from $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
"$py" -m venv "$venv"
links=
[ -d /opt/wheels ] && links="--find-links /opt/wheels"
n=$(grep -c '^[A-Za-z]' "$req")
echo "venv: installing the $n pinned packages of tests/reference/requirements.txt (about 50 s and 2.1 GB; log in $log)"
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input --no-deps \
	--only-binary :all: $links -r "$req" >"$log" 2>&1
"$venv/bin/python" -m pip check >>"$log" 2>&1
# the CPU build, and no torchvision, whatever the index offered
"$venv/bin/python" - <<'EOF' >>"$log" 2>&1
import importlib.metadata as md
import torch
assert torch.__version__ == "2.13.0+cpu", torch.__version__
names = {d.metadata["Name"].lower() for d in md.distributions()}
assert "torchvision" not in names and not any(n.startswith("nvidia") for n in names), sorted(names)
EOF
echo "$want" >"$stamp"
echo "venv: ready ($(du -sh "$venv" | cut -f1))"
