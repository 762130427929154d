#!/bin/bash
# One-hour campaigns with their resident memory sampled from outside
# (docs/EVALUATION.md, "One-hour campaigns: memory and speed over time";
# results in eval/longrun-results/). From the repository root:
#
#   go build -o /tmp/wafer-long . && WAFER=/tmp/wafer-long eval/longrun.sh cexpr csqlite
#
# Each target runs `wafer fuzz -j 2 --max-total-time $SECS --keep-going`
# from its examples' seeds, all targets at once, under nice; $OUT/T-rss.csv
# gets VmRSS every 10 s (plot_data's rss_kib has it too, at every stats
# row), $OUT/T-out the campaign directory. Draw it with
#   wafer plot -o T.png $OUT/T-out
set -eu
: "${WAFER:?set WAFER to a wafer binary}"
out=${OUT:-/tmp/wafer-longrun}
secs=${SECS:-3600}
mkdir -p "$out"
one() {
	t=$1
	rm -rf "$out/$t-out"
	nice "$WAFER" fuzz -j 2 --max-total-time "$secs" --keep-going -o "$out/$t-out" "examples/$t/$t.wasm" "examples/$t/seeds" >"$out/$t.log" 2>&1 &
	pid=$!
	start=$(date +%s)
	echo "secs,rss_kib" >"$out/$t-rss.csv"
	while kill -0 $pid 2>/dev/null; do
		r=$(awk '/VmRSS/{print $2}' /proc/$pid/status 2>/dev/null || true)
		[ -n "$r" ] && echo "$(($(date +%s) - start)),$r" >>"$out/$t-rss.csv"
		sleep 10
	done
	wait $pid && echo "exit 0" >>"$out/$t.log" || echo "exit $?" >>"$out/$t.log"
}
for t in "$@"; do
	one "$t" &
done
wait
