#!/bin/sh
# gojson's hand-written reactor against FuzzJSONReturn (examples/gotest's
# FuzzJSON with return instead of t.Skip, noskip_test.go), side by side:
# 5 rounds, order swapped every round, 5000 executions, --seed ROUND, the
# same seed document. Rows "json-noskip ROUND arm execs/s valid%" on
# stdout (gofuzzeval speed reads them).
#   WAFER=/tmp/wafer eval/gofuzz-results/variants/noskip-campaign.sh > noskip-campaign.tsv
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
WAFER=${WAFER:-wafer}
OUT=${OUT:-/tmp/wafer-noskip}
mkdir -p "$OUT"
cd "$here"
for r in 1 2 3 4 5; do
	arms="harness gotest"
	if [ $((r % 2)) = 0 ]; then arms="gotest harness"; fi
	for a in $arms; do
		d=$OUT/$a-$r
		rm -rf "$d"
		if [ "$a" = harness ]; then
			nice "$WAFER" fuzz "$root/examples/gojson/gojson.wasm" "$root/examples/gojson/seeds" --runs 5000 --seed "$r" -o "$d" >"$d.log" 2>&1
		else
			nice "$WAFER" fuzz .:FuzzJSONReturn --go-testdata=false --runs 5000 --seed "$r" -o "$d" >"$d.log" 2>&1
		fi
		echo "json-noskip $r $a $(sed -n 's/^execs_per_sec *: //p' "$d/fuzzer_stats") $(sed -n 's/^valid_pct *: //p' "$d/fuzzer_stats")"
	done
done
