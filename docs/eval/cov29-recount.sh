#!/bin/sh
# recount coverage of every cov29 queue with the HEAD binary's sites
OUT=/tmp/wafer-cov29
root=/work/main
one() {
	t=$1 side=$2 s=$3
	d=$OUT/runs/$t-$side-$s
	cov=$("$OUT/wafer-head" cov --skip 'runtime.*' -o "$d.covh" "$root/examples/$t/$t.wasm" "$d" 2>&1 | sed -n 's/.*: branches \([0-9]*\)\/.*/\1/p' | tail -1)
	sed "s/\"cov_prog\":[0-9-]*/\"cov_prog\":$cov/" "$OUT/cov/${t}__${side}__$s.json" > "$OUT/covhead/${t}__${side}__$s.json"
}
for t in gojson gopng goparser; do
	for s in 1 2 3 4 5; do
		one $t base $s &
		one $t head $s &
		wait
	done
done
cd $root && go run ./internal/evaltable -base base -metrics 'cov_prog=branches (head sites),coverage=edges_found,execs=execs' "$OUT/covhead" | tee "$OUT/covhead.md"
