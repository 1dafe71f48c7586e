#!/bin/sh
# Run the host unit test programs given after the results file, show their
# output, and write "passed=N failed=N skipped=N" over all their cmocka test
# cases to the results file. cmocka reports in TAP: a case promised by the
# plan line ("1..N") that never reported (a crash, a hang) counts as
# failed, and so does a program that exits non-zero with no failed case (a
# leak, a crash outside a test). Each program gets HOST_TEST_TIMEOUT
# seconds (default 120). Exits 1 if anything failed.

results=$1
shift
passed=0
failed=0
skipped=0

# Prints "passed failed skipped missing" for one TAP log.
count() {
	awk '
	/^1\.\.[0-9]+/ { plan += substr($1, 4) }
	/^(not )?ok / {
		if (/# *SKIP/) s++
		else if (/^ok /) p++
		else f++
	}
	END {
		m = plan - (p + f + s)
		print p + 0, f + 0, s + 0, (m > 0 ? m : 0)
	}' "$1"
}

for prog in "$@"; do
	echo "=== $prog"
	CMOCKA_MESSAGE_OUTPUT=TAP timeout "${HOST_TEST_TIMEOUT:-120}" \
		"$prog" >"$prog.log" 2>&1
	rc=$?
	cat "$prog.log"
	read -r p f s missing <<EOF_COUNT
$(count "$prog.log")
EOF_COUNT
	[ "$rc" -eq 124 ] && echo "=== $prog: timed out"
	if [ "$missing" -gt 0 ]; then
		echo "=== $prog: $missing test(s) never reported (status $rc)"
		f=$((f + missing))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "=== $prog: exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done

mkdir -p "$(dirname "$results")"
echo "passed=$passed failed=$failed skipped=$skipped" >"$results"
echo "host tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
