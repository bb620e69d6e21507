#!/bin/sh
# CLI tests: run the built binary and check exit status, stderr text and
# output bytes.  Usage: run.sh PATH/TO/posenc.  Sources every t_*.sh here;
# each uses:
#   run ARGS...            posenc ARGS, stdout -> $T/out, stderr -> $T/err, $status
#   check "what" CMD...    counts a pass if CMD succeeds, else prints FAIL
#   usage_error "what" ARGS...   expects exit 2, one "posenc: CMD: " line + hint, no output
#   run_timeout S ARGS...  run, killed after S seconds (exit 124 then)
#   run_stdin FILE ARGS... run with stdin from FILE
#   ok_and CMD...          the last run exited 0 and CMD succeeds
#   same_output A B        both files exist, are not empty and hold the same bytes
#   differ_output A B      both files exist, are not empty and differ
#   fails STATUS "what" 'TEXT' ARGS...   exit STATUS (1 data, 2 usage) and stderr
#                          exactly "posenc: CMD: TEXT..." (+ hint for 2); nothing
#                          on stdout, nothing left in $T/eo (where -o may point)
#   skipped "what" "why"   a part left out for a missing dependency: prints
#                          "what SKIPPED (why)", a failure with PE_REQUIRE_ALL=1
# No check may pass against a binary that does nothing: every check tests
# something only a working posenc produces (a message, content), never just
# an exit status of 1 or the absence of a file.  `run.sh /bin/false` shows it.
# Ends with "cli: N passed, N failed"; with CLI_PER_FILE=1 also one line
# "file t_NAME.sh: N passed, N failed" per file.  CLI_TESTS=GLOB (default *)
# runs only the files t_GLOB.sh.
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

# png FILE CMD ...: decode a PNG posenc wrote (tests/cli/png.py)
png() {
	"$PYTHON" "$here/png.py" "$@" 2>/dev/null
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
	check "$what: no stdout" eval '[ "$status" -eq 2 ] && [ ! -s "$T/out" ]'
}

# a timeout that valgrind cannot trip
tmo() {
	if [ -n "$VALGRIND" ]; then echo $(($1 * 20)); else echo "$1"; fi
}

run_timeout() {
	secs=$(tmo "$1")
	shift
	timeout "$secs" $VALGRIND "$POSENC" "$@" >"$T/out" 2>"$T/err" </dev/null
	status=$?
}

run_stdin() {
	input=$1
	shift
	timeout "$(tmo 10)" $VALGRIND "$POSENC" "$@" >"$T/out" 2>"$T/err" <"$input"
	status=$?
}

# CI sets PE_REQUIRE_ALL=1: there a part the machine cannot run is a failure
skipped() {
	if [ "${PE_REQUIRE_ALL:-}" = 1 ]; then
		fail=$((fail + 1))
		echo "FAIL: $1 SKIPPED ($2), and PE_REQUIRE_ALL=1 counts a skip as a failure"
	else
		echo "$1 SKIPPED ($2)"
	fi
}

ok_and() {
	[ "$status" -eq 0 ] && "$@"
}

same_output() {
	[ -s "$1" ] && [ -s "$2" ] && cmp -s "$1" "$2"
}

differ_output() {
	[ -s "$1" ] && [ -s "$2" ] && ! cmp -s "$1" "$2"
}

# stderr of the last run: exactly N lines, and exactly one of them matches
# ^posenc: CMD: TEXT
err_is() {
	[ "$(wc -l <"$T/err")" -eq "$1" ] && [ "$(grep -c "^posenc: $2: $3" "$T/err")" -eq 1 ]
}

# exit STATUS, and the message; the message and the hint line only
status_msg() {
	[ "$status" -eq "$1" ] && grep -q "^posenc: $2: $3" "$T/err"
}

usage_lines() {
	err_is 2 "$1" "$2" && [ "$(sed -n 2p "$T/err")" = "Try 'posenc $1 --help'." ]
}

# the run printed TEXT, and left nothing on stdout nor in $T/eo
nothing_left() {
	grep -q "^posenc: $1: $2" "$T/err" && [ ! -s "$T/out" ] && [ -z "$(ls -A "$T/eo")" ]
}

fails() {
	f_want=$1 f_what=$2 f_text=$3
	shift 3
	f_cmd=$1
	rm -rf "$T/eo" && mkdir "$T/eo"
	run_timeout 10 "$@"
	check "$f_what: exit $f_want, message" status_msg "$f_want" "$f_cmd" "$f_text"
	if [ "$f_want" -eq 2 ]; then
		check "$f_what: message and hint only" usage_lines "$f_cmd" "$f_text"
	else
		check "$f_what: one stderr line" err_is 1 "$f_cmd" "$f_text"
	fi
	check "$f_what: nothing written" nothing_left "$f_cmd" "$f_text"
}

for cli_file in "$here"/t_${CLI_TESTS:-*}.sh; do
	cli_name=$(basename "$cli_file") cli_p0=$pass cli_f0=$fail
	. "$cli_file"
	if [ "${CLI_PER_FILE:-}" = 1 ]; then
		echo "file $cli_name: $((pass - cli_p0)) passed, $((fail - cli_f0)) failed"
	fi
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
