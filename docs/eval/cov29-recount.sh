#!/bin/sh
# Recounts the coverage of a docs/eval/cov29.sh run's queues with HEAD's
# `wafer cov --skip 'runtime.*'` instead of the base's, so both sides are
# counted on HEAD's sites: when the base counts sites HEAD does not
# (a change that drops sites), the base's campaigns sought those sites
# and HEAD's did not, and the base's own sites would favour the base.
# Replays two queues at once. Tables in $OUT/covhead.md.
#
# Usage, from the repository root, after docs/eval/cov29.sh:
#   OUT=/tmp/wafer-cov29 TARGETS="gojson gopng goparser" SEEDS="1 2 3 4 5" docs/eval/cov29-recount.sh
set -eu
OUT=${OUT:-/tmp/wafer-cov29}
TARGETS=${TARGETS:-"gojson gopng goparser"}
SEEDS=${SEEDS:-"1 2 3 4 5"}
root=$(git rev-parse --show-toplevel)
mkdir -p "$OUT/covhead"
one() {
	t=$1 side=$2 s=$3
	d=$OUT/runs/$t-$side-$s
	cov=$("$OUT/wafer-head" cov --skip 'runtime.*' -o "$d.covh" "$root/examples/$t/$t.wasm" "$d" 2>&1 | sed -n 's/.*: branches \([0-9]*\)\/.*/\1/p' | tail -1)
	[ -n "$cov" ] || { echo "cov29-recount: no coverage for $d" >&2; exit 1; }
	sed "s/\"cov_prog\":[0-9-]*/\"cov_prog\":$cov/" "$OUT/cov/${t}__${side}__$s.json" >"$OUT/covhead/${t}__${side}__$s.json"
}
for t in $TARGETS; do
	for s in $SEEDS; do
		one "$t" base "$s" &
		one "$t" head "$s" &
		wait
	done
done
cd "$root"
go run ./internal/evaltable -base base -metrics 'cov_prog=branches (head sites),coverage=edges_found,execs=execs' "$OUT/covhead" | tee "$OUT/covhead.md"
