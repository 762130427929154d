#!/bin/sh
# Issue 42: the value profile's cost at equal executions, for a loaded
# machine where wall-time budgets measure the load: per seed, one campaign
# of RUNS executions without --value-profile ("off") and one with it
# ("vp"), side by side, one worker each, with nice. A one-worker campaign
# of a fixed run count is a function of its seed, so branches and queue
# are exact; the CPU seconds each process used (user + system, from
# getrusage through the shell's "times") give executions per CPU second.
# Final JSON stats go to $OUT/TARGET__ARM__SEED.json and the CPU seconds to
# $OUT/TARGET__ARM__SEED.cpu.
# Usage, from the repository root:
#   TARGET=csqlite RUNS=10000 OUT=eval/valueprofile-runs eval/valueprofile-runs.sh
set -eu
TARGET=${TARGET:-csqlite}
RUNS=${RUNS:-10000}
SEEDS=${SEEDS:-"1 2 3 4 5"}
OUT=${OUT:-eval/valueprofile-runs}
BIN=$(mktemp -d)
mkdir -p "$OUT"
go build -o "$BIN/wafer" .
for seed in $SEEDS; do
	for arm in off vp; do
		flag=""
		[ "$arm" = vp ] && flag=--value-profile
		dir=$(mktemp -d)
		(sh -c "nice '$BIN/wafer' fuzz $flag --runs '$RUNS' --seed '$seed' --keep-going --no-shrink \
			-o '$dir/out' 'examples/$TARGET/$TARGET.wasm' 'examples/$TARGET/seeds' >'$dir/log' 2>&1; times" 2>&1 |
			tail -1 | awk '{ split($1, u, "m"); split($2, s, "m"); printf "%.2f\n", u[1]*60 + u[2] + s[1]*60 + s[2] }' >"$OUT/${TARGET}__${arm}__${seed}.cpu"
		grep '"final":true' "$dir/log" | tail -1 >"$OUT/${TARGET}__${arm}__${seed}.json"
		rm -rf "$dir") &
	done
	wait
done
rm -rf "$BIN"
