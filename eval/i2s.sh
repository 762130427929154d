#!/bin/sh
# Issue 42: the input-to-state stage as built for it (transforms, 128-bit
# joins, each replacement's first place first, comparisons that got closer
# first) against the stage before it (build tag i2sbase,
# engine/stagebase.go), on the bundled raw-mode examples at equal
# executions: per target and seed, one campaign of each arm ("base",
# "now"), one worker each, the two arms side by side, with nice. A
# one-worker campaign of a fixed run count is a function of its seed, so
# the machine's load changes only the wall time. Each campaign's final JSON
# stats line goes to $OUT/TARGET__ARM__SEED.json for eval/evaltable. ARMS
# may add "nonear" (build tag i2snonear, engine/stagenear.go): the stage
# as now without its nearest-comparisons-first order.
#   go run ./eval/evaltable -base base -metrics coverage=branches,queue=queue $OUT
# Usage, from the repository root:
#   eval/i2s.sh                                  # seeds 1-5, the five targets
#   SEEDS="1 2" TARGETS="tlv:200000" ARMS="now nonear" OUT=/tmp/i2s eval/i2s.sh
set -eu
SEEDS=${SEEDS:-"1 2 3 4 5"}
TARGETS=${TARGETS:-"tlv:200000 rustini:100000 cexpr:200000 czstd:50000 csqlite:20000"}
ARMS=${ARMS:-"base now"}
OUT=${OUT:-eval/i2s-results}
BIN=$(mktemp -d)
mkdir -p "$OUT"
go build -o "$BIN/now" .
go build -tags i2sbase -o "$BIN/base" .
go build -tags i2snonear -o "$BIN/nonear" .
for seed in $SEEDS; do
	for tr in $TARGETS; do
		t=${tr%%:*}
		runs=${tr#*:}
		for arm in $ARMS; do
			dir=$(mktemp -d)
			(nice "$BIN/$arm" fuzz --runs "$runs" --seed "$seed" --keep-going --no-shrink \
				-o "$dir/out" "examples/$t/$t.wasm" "examples/$t/seeds" >"$dir/log" 2>&1 || true
			grep '"final":true' "$dir/log" | tail -1 >"$OUT/${t}__${arm}__${seed}.json"
			rm -rf "$dir") &
		done
		wait
	done
done
rm -rf "$BIN"
