#!/bin/sh
# Draw the images of docs/gallery.md again, from the commands written
# there: every line of the page that starts with "./posenc " is run, with
# ./posenc replaced by POSENC and docs/img/ by OUT.  The page is the only
# list of commands, so what it shows is what this script runs.
#
#   sh docs/make-gallery.sh [POSENC [OUT]]
#
# Run from the repository root after `make`; POSENC defaults to ./posenc,
# OUT to docs/img.  Stops at the first command that fails.
set -eu
POSENC=${1:-./posenc}
OUT=${2:-docs/img}
page=$(cd "$(dirname "$0")" && pwd)/gallery.md
case $POSENC in /*) ;; */*) POSENC=$(pwd)/$POSENC ;; esac
mkdir -p "$OUT"
grep '^\./posenc ' "$page" | while IFS= read -r line; do
	# docs/img/ becomes "$OUT"/, expanded (quoted) by eval
	args=$(printf '%s\n' "${line#./posenc }" | sed 's|docs/img/|"$OUT"/|g')
	eval "\"\$POSENC\" $args"
	echo "made: $line"
done
