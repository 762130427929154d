#!/bin/sh
# Issue 29: what `go test -fuzz`'s own instrumentation costs the Go
# examples natively, as the reference for wafer's loop / bare ratio.
# For each Go example: a 30-second wafer campaign (seed 1) makes a queue
# of inputs; its test binary is built twice, plain and as `go test -fuzz`
# builds it (`-fuzz`: -d=libfuzzer, 8-bit edge counters and comparison
# hooks in every package but the runtime's); BenchmarkNative (the
# example's native_bench_test.go) runs the fuzz function over the queue,
# the two binaries interleaved COUNT times. Prints ns per pass over the
# queue and the ratio plain / fuzz (the share of the uninstrumented
# speed `go test -fuzz`'s build keeps), per round.
#
#   eval/native.sh                # from the repository root
#   COUNT=6 TARGETS="gojson" SECS=30 OUT=/tmp/wafer-native eval/native.sh
set -eu
out=${OUT:-/tmp/wafer-native}
count=${COUNT:-6}
mkdir -p "$out"
go build -o "$out/wafer" .
for t in ${TARGETS:-gojson gopng goparser}; do
	fz=$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "examples/$t/main_test.go" | head -1)
	rm -rf "$out/$t-campaign"
	"$out/wafer" fuzz --max-total-time "${SECS:-30}" --seed 1 -o "$out/$t-campaign" "examples/$t/$t.wasm" "examples/$t/seeds" >/dev/null 2>&1
	(cd "examples/$t" && go test -c -o "$out/$t-plain.test" . && go test -c -fuzz="$fz" -o "$out/$t-fuzz.test" .)
	for r in $(seq "$count"); do
		p=$(cd "$out" && WAFER_NATIVE_INPUTS="$out/$t-campaign/queue" "./$t-plain.test" -test.run '^$' -test.bench Native -test.benchtime 2s | awk '/^Benchmark/ {print $3}')
		f=$(cd "$out" && WAFER_NATIVE_INPUTS="$out/$t-campaign/queue" "./$t-fuzz.test" -test.run '^$' -test.bench Native -test.benchtime 2s | awk '/^Benchmark/ {print $3}')
		echo "$t round $r: plain $p ns, fuzz build $f ns, plain/fuzz $(echo "$p $f" | awk '{printf "%.2f", $1/$2}')"
	done
done
