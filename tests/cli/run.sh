#!/bin/sh
# CLI tests: run the built binary and check exit status, stderr text and
# output bytes.  Usage: run.sh PATH/TO/posenc.  Sources every t_*.sh here;
# each uses:
#   run ARGS...            posenc ARGS, stdout -> $T/out, stderr -> $T/err, $status
#   check "what" CMD...    counts a pass if CMD succeeds, else prints FAIL
#   usage_error "what" ARGS...   expects exit 2, one "posenc: CMD: " line + hint, no output
# Ends with "cli: N passed, N failed".
set -u
POSENC=$1
case $POSENC in /*) ;; *) POSENC=$(pwd)/$POSENC ;; esac
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
VALGRIND=${VALGRIND:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

run() {
	$VALGRIND "$POSENC" "$@" >"$T/out" 2>"$T/err" </dev/null
	status=$?
}

check() {
	what=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $what"
		echo "  command: $*"
		echo "  stderr of last run: $(head -c 400 "$T/err" 2>/dev/null)"
	fi
}

differ() {
	! cmp -s "$1" "$2"
}

# one line "posenc: CMD: ..." then the hint line, exit 2, nothing on stdout
usage_error() {
	what=$1
	shift
	run "$@"
	check "$what: exit 2" [ "$status" -eq 2 ]
	check "$what: message" grep -q "^posenc: $1: " "$T/err"
	check "$what: hint" grep -q "^Try 'posenc $1 --help'\.$" "$T/err"
	check "$what: two stderr lines" [ "$(wc -l <"$T/err")" -eq 2 ]
	check "$what: no stdout" [ ! -s "$T/out" ]
}

for f in "$here"/t_*.sh; do
	. "$f"
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
