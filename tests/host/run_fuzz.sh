#!/bin/sh
# Run each libFuzzer target given after the results file and the time in
# seconds. Target build/fuzz/bin/fuzz_NAME keeps its corpus, log and crash
# inputs under build/fuzz/NAME/ and starts from tests/host/corpus/NAME/ too
# when that exists. Writes "passed=N failed=N skipped=0" (one per target) to
# the results file; exits 1 if a target found a crash.

results=$1
seconds=$2
shift 2
passed=0
failed=0

for prog in "$@"; do
	name=${prog##*/fuzz_}
	dir=build/fuzz/$name
	seeds=tests/host/corpus/$name
	[ -d "$seeds" ] || seeds=
	mkdir -p "$dir/corpus"
	echo "=== fuzz $name for ${seconds}s"
	if "$prog" -max_total_time="$seconds" -print_final_stats=1 \
	    -artifact_prefix="$dir/" "$dir/corpus" $seeds >"$dir/log" 2>&1
	then
		tail -n 12 "$dir/log"
		passed=$((passed + 1))
	else
		cat "$dir/log"
		echo "=== fuzz $name FAILED: see $dir/; rerun: $prog FILE"
		failed=$((failed + 1))
	fi
done

mkdir -p "$(dirname "$results")"
echo "passed=$passed failed=$failed skipped=0" >"$results"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
