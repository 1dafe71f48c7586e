#!/bin/sh
# Run the host unit test programs given as arguments, show their output, and
# write "passed=N failed=N skipped=N" over all cmocka test cases to the file
# given first. cmocka reports in TAP; a case that its plan ("1..N") promised
# but that never reported (a crash) counts as failed, and so does a program
# that exits non-zero with no failed case (a leak, a crash outside a test).
# Exits 1 if anything failed.

results=$1
shift
passed=0
failed=0
skipped=0

for prog in "$@"; do
	echo "=== $prog"
	CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$prog" >"$prog.log" 2>&1
	rc=$?
	cat "$prog.log"
	counts=$(awk '
		/^1\.\.[0-9]+/ { plan += substr($1, 4) }
		/^(not )?ok / {
			if (/# *SKIP/) s++
			else if (/^ok /) p++
			else f++
		}
		END {
			if (plan > p + f + s)
				f += plan - (p + f + s)
			print p + 0, f + 0, s + 0
		}' "$prog.log")
	set -- $counts
	p=$1 f=$2 s=$3
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "=== $prog exited with status $rc"
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
