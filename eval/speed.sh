#!/bin/sh
# Issue 29, speed: per target, side by side in one run and on the same
# inputs, the bare module (ceiling), wafer's runtime replay and the engine's
# loop with 1 and 2 workers (campaign's BenchmarkReactors), for a base
# commit and HEAD: two test binaries, run interleaved (base, head, base,
# head, ...) COUNT times each so the machine's load hits both alike, then
# benchstat on execs/cpu-s (the cost per execution, which load does not
# change) and execs/s (wall clock: the 2-worker scaling, meaningful on an
# idle machine only).
#
# Runtime: about 2 min per round per binary on the default targets
# (gojson, gopng, goparser, cexpr, tlv; mostly the Go reactors' compiles
# and their 20,000 / 3,000-execution campaigns), so ~25 min with COUNT=6
# on 2 idle cores, longer under load. The load average is printed before and after.
#
# Usage, from the repository root:
#   eval/speed.sh [BASE]            # BASE defaults to 766bbb4
#   COUNT=8 TARGETS=gojson,cexpr eval/speed.sh 766bbb4
# TARGETS picks benchReactors lines (WAFER_BENCH_REACTORS; 1 = all);
# ENGINE=1 also runs engine's Loop and Replay benchmarks on tlv and cexpr
# (BENCH_ENGINE overrides their -bench pattern). BASE_ENV sets variables
# for the base's benchmarks only, e.g. a setting's effect with BASE = HEAD:
#   BASE_ENV=WAFER_BENCH_COLD=1 TARGETS=gojson,gopng eval/speed.sh HEAD
# Results: $OUT/base.txt,
# $OUT/head.txt and $OUT/benchstat.txt.
#
# The base commit may predate campaign/bench_reactors_test.go: HEAD's copy
# is put into the base tree before building (it uses campaign's unexported
# compile, buildCounters and executors; if those changed since BASE the
# base binary does not build and the script says so). Both binaries run in
# HEAD's campaign/ (and engine/) directory, so on HEAD's example modules:
# what differs is wafer's code only.
set -eu
BASE=${1:-766bbb4}
COUNT=${COUNT:-6}
TARGETS=${TARGETS:-1}
OUT=${OUT:-/tmp/wafer-speed}
BENCH_ENGINE=${BENCH_ENGINE:-'Loop/(tlv|cexpr)/havoc-(1w|2w)$|Replay(Bare)?/(tlv|cexpr)$'}
BENCHSTAT=${BENCHSTAT:-benchstat}
command -v "$BENCHSTAT" >/dev/null 2>&1 || BENCHSTAT="go run golang.org/x/perf/cmd/benchstat@latest"

root=$(git rev-parse --show-toplevel)
mkdir -p "$OUT"
wt="$OUT/base-tree"
if [ -d "$wt" ]; then git -C "$root" worktree remove --force "$wt"; fi
git -C "$root" worktree add --detach "$wt" "$BASE" >/dev/null
trap 'git -C "$root" worktree remove --force "$wt"' EXIT
cp "$root/campaign/bench_reactors_test.go" "$wt/campaign/"
# engine.Summary.Waited is newer than 766bbb4: without it the base reports
# wait% 0.
grep -q 'Waited time.Duration' "$wt/engine/config.go" || sed -i '/sum\.Waited/d' "$wt/campaign/bench_reactors_test.go"

build() { # tree name
	(cd "$1" && go test -c -o "$OUT/$2-campaign.test" ./campaign) ||
		{ echo "speed: the $2 tree ($1) does not build campaign's benchmarks" >&2; exit 1; }
	if [ "${ENGINE:-}" ]; then
		(cd "$1" && go test -c -o "$OUT/$2-engine.test" ./engine)
	fi
}
build "$wt" base
build "$root" head

run() { # name: one round of every benchmark, appended to $OUT/name.txt
	benv=
	if [ "$1" = base ]; then benv=${BASE_ENV:-}; fi
	# shellcheck disable=SC2086 # $benv is words
	(cd "$root/campaign" && env $benv WAFER_BENCH_REACTORS=$TARGETS "$OUT/$1-campaign.test" \
		-test.run '^$' -test.bench Reactors -test.benchtime 1x -test.benchmem -test.count 1) >>"$OUT/$1.txt"
	if [ "${ENGINE:-}" ]; then
		(cd "$root/engine" && "$OUT/$1-engine.test" -test.run '^$' -test.bench "$BENCH_ENGINE" -test.count 1) >>"$OUT/$1.txt"
	fi
}
: >"$OUT/base.txt"
: >"$OUT/head.txt"
echo "speed: base $(git -C "$wt" rev-parse --short HEAD), head $(git -C "$root" rev-parse --short HEAD), $COUNT rounds; $(uptime)"
i=0
while [ "$i" -lt "$COUNT" ]; do
	run base
	run head
	i=$((i + 1))
	echo "speed: round $i done; $(uptime)"
done
$BENCHSTAT base="$OUT/base.txt" head="$OUT/head.txt" | tee "$OUT/benchstat.txt"
