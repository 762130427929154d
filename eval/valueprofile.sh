#!/bin/sh
# Issue 42: the cost of the value profile (--value-profile) on the bundled
# raw-mode examples at equal wall time: per target and seed, one campaign
# without it ("off") and one with it ("vp"), interleaved, one worker each,
# run one at a time with nice. Each campaign's final JSON stats line goes to
# $OUT/TARGET__ARM__SEED.json for eval/evaltable:
#   go run ./eval/evaltable -base off -metrics coverage=branches,execs_per_sec=execs/s,value_features=features $OUT
# Usage, from the repository root:
#   eval/valueprofile.sh                      # 30 s, seeds 1-5, tlv cexpr czstd csqlite
#   TIME=60 SEEDS="1 2 3" TARGETS="cexpr" OUT=/tmp/vp eval/valueprofile.sh
set -eu
TIME=${TIME:-30}
SEEDS=${SEEDS:-"1 2 3 4 5"}
TARGETS=${TARGETS:-"tlv cexpr czstd csqlite"}
OUT=${OUT:-eval/valueprofile-results}
mkdir -p "$OUT"
go build -o /tmp/wafer-vp-eval .
for seed in $SEEDS; do
	for t in $TARGETS; do
		for arm in off vp; do
			flag=""
			[ "$arm" = vp ] && flag=--value-profile
			dir=$(mktemp -d)
			nice /tmp/wafer-vp-eval fuzz $flag --max-total-time "$TIME" --seed "$seed" --keep-going --no-shrink \
				-o "$dir/out" "examples/$t/$t.wasm" "examples/$t/seeds" >"$dir/log" 2>&1 || true
			grep '"final":true' "$dir/log" | tail -1 >"$OUT/${t}__${arm}__${seed}.json"
			rm -rf "$dir"
		done
	done
done
