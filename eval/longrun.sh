#!/bin/bash
# One-hour campaigns with their resident memory and CPU time sampled from
# outside (docs/EVALUATION.md, "One-hour campaigns: memory and speed over
# time"; results in eval/longrun-results/). From the repository root:
#
#   go build -o /tmp/wafer-long . && WAFER=/tmp/wafer-long eval/longrun.sh cexpr csqlite
#
# Each target runs `wafer fuzz -j 2 --max-total-time $SECS --keep-going`
# from its examples' seeds, all targets at once, under nice. Every 10 s
# $OUT/T-rss.csv gets the campaign's VmRSS (KiB), its CPU time so far
# (utime+stime from /proc/PID/stat, seconds) and the machine's 1-minute
# load average; plot_data's rss_kib has the RSS too, at every stats row.
# $OUT/T-out is the campaign directory. At the end $OUT/T-windows.csv
# gives, per window of $WINDOW seconds (600), the executions, the CPU
# seconds, executions per CPU-second, and the load average's range: on a
# shared machine wall-clock execs/s follow the load, execs per CPU-second
# follow the campaign. Draw a campaign with
#   wafer plot -o T.png $OUT/T-out
set -eu
: "${WAFER:?set WAFER to a wafer binary}"
out=${OUT:-/tmp/wafer-longrun}
secs=${SECS:-3600}
window=${WINDOW:-600}
tck=$(getconf CLK_TCK)
mkdir -p "$out"
one() {
	t=$1
	rm -rf "$out/$t-out"
	nice "$WAFER" fuzz -j 2 --max-total-time "$secs" --keep-going -o "$out/$t-out" "examples/$t/$t.wasm" "examples/$t/seeds" >"$out/$t.log" 2>&1 &
	pid=$!
	start=$(date +%s)
	echo "$start" >"$out/$t-start"
	echo "secs,rss_kib,cpu_s,load1" >"$out/$t-rss.csv"
	while kill -0 $pid 2>/dev/null; do
		r=$(awk '/VmRSS/{print $2}' /proc/$pid/status 2>/dev/null || true)
		# fields 14 and 15 (utime, stime, in clock ticks), counted after
		# the command name's closing parenthesis
		c=$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | awk -v tck="$tck" '{printf "%.2f", ($12+$13)/tck}' || true)
		l=$(cut -d' ' -f1 /proc/loadavg)
		[ -n "$r" ] && [ -n "$c" ] && echo "$(($(date +%s) - start)),$r,$c,$l" >>"$out/$t-rss.csv"
		sleep 10
	done
	wait $pid && echo "exit 0" >>"$out/$t.log" || echo "exit $?" >>"$out/$t.log"
	windows "$t" >"$out/$t-windows.csv"
}
# windows T: per window of the process's time (T-rss.csv's secs), the
# executions (plot_data's total_execs at the last stats row before each
# edge), the CPU seconds (the sample nearest below each edge), their ratio
# and the load average's range. plot_data counts from the campaign's start
# after compiling (fuzzer_stats' start_time), which a cold compile on a
# loaded machine puts minutes after the process's: off shifts it.
windows() {
	local t=$1 off
	off=$(($(awk '/^start_time/{print $3}' "$out/$t-out/fuzzer_stats") - $(cat "$out/$t-start")))
	awk -F', *' -v w="$window" -v off="$off" '
		FNR == 1 { f++ }
		f == 1 && !/^#/ { ex[$1 + off] = $12 + 0; if ($1 + off > tmax) tmax = $1 + off }
		f == 2 && FNR > 1 { cpu[$1 + 0] = $3 + 0; ld[$1 + 0] = $4 + 0 }
		function at(a, t,   k, best) { best = -1; for (k in a) if (k + 0 <= t && k + 0 > best) best = k + 0; return best < 0 ? 0 : a[best] }
		END {
			print "from_s,to_s,execs,cpu_s,execs_per_cpu_s,load_min,load_max"
			for (s = 0; s < tmax; s += w) {
				e = s + w; if (e > tmax) e = tmax
				dx = at(ex, e) - at(ex, s); dc = at(cpu, e) - at(cpu, s)
				lo = 1e9; hi = 0
				for (k in ld) if (k + 0 >= s && k + 0 < e) { if (ld[k] < lo) lo = ld[k]; if (ld[k] > hi) hi = ld[k] }
				if (hi == 0) lo = 0
				printf "%d,%d,%d,%.1f,%.0f,%.2f,%.2f\n", s, e, dx, dc, (dc > 0 ? dx / dc : 0), lo, hi
			}
		}' "$out/$t-out/plot_data" "$out/$t-rss.csv"
}
for t in "$@"; do
	one "$t" &
done
wait
