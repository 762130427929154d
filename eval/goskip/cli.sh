#!/bin/sh
# Side by side, whole campaigns through the CLI: wafer before issue 29
# (WAFER_BEFORE: every dispatch arm and the Go runtime counted), and
# after (WAFER_AFTER) by default and with --instrument-go-runtime; one
# worker, --runs N executions, seeds 1..REPS, arms in rotating order.
# Prints "target arm seed execs_per_sec coverage" per campaign, from the
# final status line (execs_per_sec is wall-clock, the campaign only,
# compile excluded; coverage is each build's own counted sites).
#
#	WAFER_BEFORE=/tmp/wafer-before WAFER_AFTER=/tmp/wafer-after sh eval/goskip/cli.sh 5000 6
set -eu
runs=${1:-5000}
reps=${2:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for seed in $(seq 1 "$reps"); do
	for target in gojson gopng goparser; do
		set -- "before:$WAFER_BEFORE:" "after:$WAFER_AFTER:" "after-runtime:$WAFER_AFTER:--instrument-go-runtime"
		for k in 0 1 2; do
			j=$(( (k + seed) % 3 + 1 ))
			eval "arm=\${$j}"
			name=${arm%%:*}
			rest=${arm#*:}
			bin=${rest%%:*}
			extra=${rest#*:}
			rm -rf "$tmp/out"
			# shellcheck disable=SC2086
			"$bin" fuzz $extra --runs "$runs" --seed "$seed" --no-fsync -o "$tmp/out" \
				examples/$target/$target.wasm examples/$target/seeds 2>"$tmp/err" >/dev/null || true
			line=$(grep '"final":true' "$tmp/err" | tail -1)
			eps=$(echo "$line" | sed 's/.*"execs_per_sec":\([0-9.]*\).*/\1/')
			cov=$(echo "$line" | sed 's/.*"coverage":\([0-9]*\).*/\1/')
			echo "$target $name $seed $eps $cov"
		done
	done
done
