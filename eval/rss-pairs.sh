#!/bin/bash
# Peak resident memory of 60-second campaigns (seed 1) of two wafer
# binaries run side by side, so both see the same load (docs/PERFORMANCE.md,
# "Peak memory of a campaign"). From the repository root:
#
#   go build -o /tmp/wafer-base . # at the base commit
#   go build -o /tmp/wafer-head .
#   BASE=/tmp/wafer-base HEAD=/tmp/wafer-head eval/rss-pairs.sh
#
# One line per campaign in $OUT/summary.txt (default /tmp/rss-pairs):
# target, workers, binary, peak RSS in KiB (GNU time), executions, queue.
set -eu
: "${BASE:?set BASE to a wafer binary}" "${HEAD:?set HEAD to a wafer binary}"
out=${OUT:-/tmp/rss-pairs}
secs=${SECS:-60}
mkdir -p "$out"
: > "$out/summary.txt"
for t in ${TARGETS:-csqlite czstd gojson}; do
	for j in 1 2; do
		for v in base head; do
			bin=$BASE
			[ $v = head ] && bin=$HEAD
			rm -rf "$out/$v-$t-$j.out"
			if [ "$t" = gojson ]; then
				args=(--generator json --warm-up examples/gojson/seeds examples/gojson/gojson.wasm)
			else
				args=("examples/$t/$t.wasm" "examples/$t/seeds")
			fi
			/usr/bin/time -v "$bin" fuzz --max-total-time "$secs" -j $j --seed 1 -o "$out/$v-$t-$j.out" "${args[@]}" >"$out/$v-$t-$j.log" 2>&1 &
		done
		wait
		for v in base head; do
			log=$out/$v-$t-$j.log
			echo "$t $j $v $(grep 'Maximum resident' "$log" | awk '{print $6}') $(grep -o '"execs":[0-9]*' "$log" | tail -1) $(grep -o '"queue":[0-9]*' "$log" | tail -1)" >>"$out/summary.txt"
		done
	done
done
cat "$out/summary.txt"
