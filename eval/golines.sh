#!/bin/sh
# Issue 45: the lines wafer cov marks on a Go target (from Go's own line
# table, golines.go, and the regions of its resume blocks, goregions.go)
# against the lines `go build -cover` marks when the same inputs replay
# natively. A campaign of TIME seconds (seed SEED, havoc, one worker) on
# testdata/goxhtml from its seeds; wafer cov writes an lcov tracefile of
# its queue; eval/golines/native (tree.RoundTrip on each queue file, as
# the reactor calls it) is built with -cover over every package and
# replays the queue; eval/golines compares the two per line, for the
# fixture's own package and for golang.org/x/net/html.
#
# Usage, from the repository root:
#   eval/golines.sh [TIME] [SEED]      # defaults: 45 1
set -eu
TIME=${1:-45}
SEED=${2:-1}
OUT=$(mktemp -d)
go build -o "$OUT/wafer" .
nice "$OUT/wafer" fuzz --max-total-time "$TIME" --seed "$SEED" --keep-going -o "$OUT/camp" \
	-i testdata/goxhtml/seeds testdata/goxhtml/goxhtml.wasm > /dev/null 2>&1 || true
nice "$OUT/wafer" cov --lcov "$OUT/wafer.info" -o "$OUT/report" testdata/goxhtml/goxhtml.wasm "$OUT/camp"
(cd eval/golines/native && go build -cover -coverpkg=all -o "$OUT/native" .)
mkdir "$OUT/covdata"
GOCOVERDIR="$OUT/covdata" "$OUT/native" "$OUT/camp/queue"
go tool covdata textfmt -i="$OUT/covdata" -o "$OUT/native.txt"
go run ./eval/golines "$OUT/wafer.info" "$OUT/native.txt" example.com/wafer.fix/goxhtml/ golang.org/x/net/html/
echo "files in $OUT"
