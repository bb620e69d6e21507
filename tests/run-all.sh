#!/bin/sh
# Run the whole suite: every unit-test program given as an argument, the CLI
# tests, then the NumPy cross-checks.  Ends with one line "N passed, N failed"
# counting test cases, and exits non-zero if any failed.
#
# With VALGRIND set (make valgrind: "valgrind -q --error-exitcode=99 ..."),
# every unit test, CLI run and fuzz replay runs under it (make valgrind also
# sets PE_TEST_QUICK=1: the unit tests' smaller sizes), and the two parts that never run
# posenc's code under the wrapper (the /bin/false pass and the NumPy
# cross-check, which runs posenc itself) are left out.
#
# With PE_REQUIRE_ALL=1 (CI sets it) a part skipped for want of something --
# NumPy for the cross-checks and the CLI tests' input files, GNU parallel, a
# unit test's long double -- counts as a failure instead of a quiet skip.
set -u
VALGRIND=${VALGRIND:-}
export VALGRIND
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
PYTHON=${PYTHON:-/usr/bin/python3}
POSENC=${POSENC:-$top/posenc}
case $POSENC in /*) ;; *) POSENC=$(pwd)/$POSENC ;; esac
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$@"; do
	name=$(basename "$t")
	$VALGRIND "$t" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\./\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | tail -1)
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	if [ "$f" -ne 0 ]; then
		cat "$log"
	fi
	sk=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | tail -1)
	if [ -n "$sk" ] && [ "${PE_REQUIRE_ALL:-}" = 1 ]; then
		sed -n 's/^skipped: //p' "$log" | sort -u | sed "s/^/FAIL: unit $name: skipped: /"
		f=$((f + sk))
		echo "unit $name: $p passed, $f failed ($sk skipped, counted as failures: PE_REQUIRE_ALL=1)"
	elif [ -n "$sk" ]; then
		sed -n 's/^skipped: //p' "$log" | sort -u | sed "s/^/unit $name: skipped: /"
		echo "unit $name: $p passed, $f failed, $sk skipped"
	else
		echo "unit $name: $p passed, $f failed"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done

# add_counts PREFIX RC: read "PREFIX: N passed, N failed" from $log; a
# missing line or a non-zero exit counts as a failure
add_counts() {
	p=$(sed -n "s/^$1: \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed\$/\1/p" "$log" | tail -1)
	f=$(sed -n "s/^$1: \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed\$/\2/p" "$log" | tail -1)
	p=${p:-0}
	f=${f:-1}
	[ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
}

sh "$here/cli/run.sh" "$POSENC" >"$log" 2>&1
rc=$?
cat "$log"
add_counts cli "$rc"

if [ -z "$VALGRIND" ]; then
# No check may pass against a binary that does nothing: the CLI tests run
# against /bin/false and every one of their checks must fail (each asserts
# something only a working posenc prints or writes).  One test case per
# file, so a vacuous check is found where it is.
CLI_PER_FILE=1 sh "$here/cli/run.sh" /bin/false >"$log" 2>&1
vpass=0
vfail=0
for f in "$here"/cli/t_*.sh; do
	f=$(basename "$f")
	vs=$(sed -n "s/^file $f: \([0-9][0-9]*\) passed, .*/\1/p" "$log" | tail -1)
	if [ -n "$vs" ] && [ "$vs" -eq 0 ]; then
		vpass=$((vpass + 1))
	else
		vfail=$((vfail + 1))
		echo "FAIL: vacuous: ${vs:-?} checks of $f pass against /bin/false (want 0)"
	fi
done
echo "vacuous: $vpass passed, $vfail failed"
pass=$((pass + vpass))
fail=$((fail + vfail))
fi

# The fuzz targets, built with the normal compiler and tests/fuzz/driver.c,
# replay their seed corpus and every input that once crashed them: one
# test case per input.
for f in ${FUZZ_REPLAY:-}; do
	t=${f##*/fuzz_}
	set -- "$top/tests/fuzz/corpus/$t"
	[ -d "$top/tests/fuzz/regress/$t" ] && set -- "$@" "$top/tests/fuzz/regress/$t"
	$VALGRIND "$f" "$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	add_counts "fuzz $t" "$rc"
done

if [ -n "$VALGRIND" ]; then
	echo "numpy: not run under valgrind (it runs posenc itself)"
elif "$PYTHON" -c 'import numpy' 2>/dev/null; then
	"$PYTHON" "$here/numpy/check.py" "$POSENC" >"$log" 2>&1
	rc=$?
	cat "$log"
	add_counts numpy "$rc"
elif [ "${PE_REQUIRE_ALL:-}" = 1 ]; then
	echo "FAIL: numpy: SKIPPED ($PYTHON has no numpy; 'make deps' installs python3-numpy), and PE_REQUIRE_ALL=1 counts a skip as a failure"
	fail=$((fail + 1))
else
	echo "numpy: SKIPPED ($PYTHON has no numpy; 'make deps' installs python3-numpy)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
