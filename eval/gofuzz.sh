#!/bin/sh
# Issue 45, "Speed and coverage": Go fuzz tests run by wafer (package
# gofuzz, wafer fuzz PKG:FuzzXxx).
#
#   eval/gofuzz.sh speed    # generated target vs hand-written reactor
#   eval/gofuzz.sh stdlib   # wafer vs go test -fuzz on standard-library fuzz tests
#   eval/gofuzz.sh try      # does wafer build and run each of TRY (300 executions)
#
# speed: per ROUND (1..ROUNDS) and target, examples/gotest's FuzzJSON,
# FuzzPNG, FuzzParse (wafer fuzz ./examples/gotest:FuzzXxx) and the
# hand-written harness.Fuzz reactors of the same properties
# (examples/gojson, gopng, goparser .wasm), one after the other, the order
# swapped every round, one worker, havoc, --seed ROUND, RUNS_x executions
# each from the same seeds: execs_per_sec of fuzzer_stats (the campaign,
# not the build or compile before it). FuzzParse takes an extra uint8
# (parser mode bits): its seeds are the hand-written reactor's files with
# mode 4 (ParseComments, the reactor's fixed mode) in go test's corpus
# format, and the reactor also gets f.Add's source. Then the same inputs
# through both: the union of every campaign's queue (for FuzzParse the
# sources, with mode 4 for the generated target), replayed as seeds only
# (--runs 0, --use-cmp 0), ROUNDS times alternating. Rows in
# $OUT/speed.tsv and $OUT/replay.tsv, tables from eval/gofuzzeval.
#
# stdlib: per TESTS entry (PKG:FuzzXxx:TYPES) and seed 1..SEEDS, wafer
# (one worker, --max-total-time TIME) and go test -fuzz (-fuzztime TIME
# -parallel 1, its test binary run directly, in a copy of the package's
# testdata) at the same time, so the machine's load hits both alike.
# Each final corpus (wafer's queue/ converted to go test corpus files by
# gofuzzeval gocorpus; go test's fuzz cache directory) is put in
# testdata/fuzz/FuzzXxx of another copy and replayed natively by a
# -cover -coverpkg=PKG test binary (-run '^FuzzXxx$' -coverprofile): the
# statements of the package's own files covered (gofuzzeval stmts). The
# f.Add seeds and the package's own testdata/fuzz files run in both.
# Crashes: a run with a crash (wafer: crashes/ not empty; go test: exit
# status 1 with a new file in testdata/fuzz/FuzzXxx). Rows in
# $OUT/stdlib.tsv, table from gofuzzeval cov.
#
# Runtime (2 cores under other load): speed about 25 min with the
# defaults; stdlib TIME x SEEDS x |TESTS| (60 s x 5 x 5 = 25 min, two
# processes at once) plus builds and replays.
#
# From the repository root; OUT defaults to /tmp/wafer-gofuzz (copy the
# .tsv and .md files into eval/gofuzz-results/); WAFER names a wafer
# binary to use instead of building one (its compilation cache is warm).
set -eu
root=$(git rev-parse --show-toplevel)
cd "$root"
OUT=${OUT:-/tmp/wafer-gofuzz}
ROUNDS=${ROUNDS:-5}
SEEDS=${SEEDS:-5}
TIME=${TIME:-60}
TESTS=${TESTS:-"encoding/csv:FuzzRoundtrip:[]byte net/netip:FuzzParse:string image/gif:FuzzDecode:[]byte image/png:FuzzDecode:[]byte archive/zip:FuzzReader:[]byte"}
TRY=${TRY:-"encoding/csv:FuzzRoundtrip encoding/pem:FuzzDecode net/netip:FuzzParse html:FuzzEscapeUnescape image/gif:FuzzDecode image/png:FuzzDecode image/jpeg:FuzzDecode archive/zip:FuzzReader archive/tar:FuzzReader compress/gzip:FuzzReader"}
TARGETS=${TARGETS:-"json png parser"}
GOROOT=$(go env GOROOT)
mkdir -p "$OUT" "$OUT/speed" "$OUT/replay-out" "$OUT/stdlib"
if [ -z "${WAFER:-}" ]; then
	WAFER=$OUT/wafer
	go build -o "$WAFER" .
fi
go build -o "$OUT/gofuzzeval" ./eval/gofuzzeval
EV=$OUT/gofuzzeval

stat() { # DIR KEY: a value of DIR/fuzzer_stats
	sed -n "s/^$2 *: //p" "$1/fuzzer_stats"
}

speed() {
	: >"$OUT/speed.tsv"
	# FuzzParse's seeds in go test's format: (src, mode 4); the reactor's
	# files plus f.Add's source.
	pseeds=$OUT/parser-seeds
	rm -rf "$pseeds" "$pseeds-go" "$pseeds-tuple"
	mkdir -p "$pseeds" "$pseeds-tuple"
	cp examples/goparser/seeds/* "$pseeds/"
	printf 'package p\n\nfunc f(x int) int { return x * 2 }\n' >"$pseeds/fadd.src"
	for f in "$pseeds"/*; do
		{ printf '\004'; cat "$f"; } >"$pseeds-tuple/$(basename "$f")"
	done
	"$EV" gocorpus -types '[]byte,uint8' -o "$pseeds-go" "$pseeds-tuple"
	echo "speed: $(uptime)"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for t in $TARGETS; do
			case $t in
			json) name=FuzzJSON runs=${RUNS_json:-5000} hseeds=examples/gojson/seeds gseeds= ;;
			png) name=FuzzPNG runs=${RUNS_png:-5000} hseeds=examples/gopng/seeds gseeds= ;;
			parser) name=FuzzParse runs=${RUNS_parser:-1000} hseeds=$pseeds gseeds=$pseeds-go ;;
			esac
			arms="harness gotest"
			if [ $((r % 2)) = 0 ]; then arms="gotest harness"; fi
			for arm in $arms; do
				d=$OUT/speed/$t-$arm-$r
				rm -rf "$d"
				if [ "$arm" = harness ]; then
					# shellcheck disable=SC2086
					nice "$WAFER" fuzz "examples/go$t/go$t.wasm" $hseeds --runs "$runs" --seed "$r" -o "$d" >"$d.log" 2>&1
				else
					# shellcheck disable=SC2086
					nice "$WAFER" fuzz "./examples/gotest:$name" $gseeds --go-testdata=false --runs "$runs" --seed "$r" -o "$d" >"$d.log" 2>&1
				fi
				echo "$t $r $arm $(stat "$d" execs_per_sec) $(stat "$d" execs_done) $(stat "$d" valid_pct)" >>"$OUT/speed.tsv"
			done
		done
		tail -n 6 "$OUT/speed.tsv"
		r=$((r + 1))
	done
	"$EV" speed "$OUT/speed.tsv" | tee "$OUT/speed.md"

	# The same inputs: every campaign's queue, seeds only.
	: >"$OUT/replay.tsv"
	for t in $TARGETS; do
		u=$OUT/replay/$t
		rm -rf "$u"
		mkdir -p "$u/harness" "$u/gotest"
		for q in "$OUT"/speed/"$t"-*-[0-9]*/queue/*; do
			case $t:$q in
			parser:*-gotest-*) tail -c +2 "$q" >"$u/harness/x" ;; # drop the mode byte
			*) cp "$q" "$u/harness/x" ;;
			esac
			mv "$u/harness/x" "$u/harness/$(sha1sum <"$u/harness/x" | cut -c1-16)"
		done
		for f in "$u/harness"/*; do
			if [ "$t" = parser ]; then
				{ printf '\004'; cat "$f"; } >"$u/gotest/$(basename "$f")"
			else
				cp "$f" "$u/gotest/"
			fi
		done
	done
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for t in $TARGETS; do
			case $t in json) name=FuzzJSON ;; png) name=FuzzPNG ;; parser) name=FuzzParse ;; esac
			u=$OUT/replay/$t
			arms="harness gotest"
			if [ $((r % 2)) = 0 ]; then arms="gotest harness"; fi
			for arm in $arms; do
				d=$OUT/replay-out/$t-$arm-$r
				rm -rf "$d"
				if [ "$arm" = harness ]; then
					nice "$WAFER" fuzz "examples/go$t/go$t.wasm" "$u/harness" --runs 0 --use-cmp 0 -o "$d" >"$d.log" 2>&1
				else
					nice "$WAFER" fuzz "./examples/gotest:$name" "$u/gotest" --go-testdata=false --runs 0 --use-cmp 0 -o "$d" >"$d.log" 2>&1
				fi
				echo "$t $r $arm $(stat "$d" execs_per_sec) $(stat "$d" execs_done) $(stat "$d" valid_pct)" >>"$OUT/replay.tsv"
			done
		done
		r=$((r + 1))
	done
	"$EV" speed "$OUT/replay.tsv" | tee "$OUT/replay.md"
	echo "speed: done, $(uptime)"
}

stdlib() {
	: >"$OUT/stdlib.tsv"
	mkdir -p "$OUT/bin"
	for spec in $TESTS; do
		pkg=${spec%%:*} rest=${spec#*:}
		name=${rest%%:*} types=${rest#*:}
		n=$(echo "$pkg-$name" | tr / _)
		# go test -fuzz accepts the standard library only as the main module.
		(cd "$GOROOT/src" && go test -c -fuzz="^$name\$" -o "$OUT/bin/$n.fuzz.test" "$pkg" &&
			go test -c -cover -coverpkg="$pkg" -o "$OUT/bin/$n.cov.test" "$pkg") ||
			{ echo "stdlib: $spec: go test -c failed" >&2; continue; }
		# wafer's build and compile, before the timed runs.
		# (a crash or hang among the seeds, 77 or 70, is a finding, not a failure)
		brc=0
		nice "$WAFER" fuzz "$pkg:$name" --go-testdata=false --runs 0 -o "$OUT/stdlib/$n-build" >"$OUT/stdlib/$n-build.log" 2>&1 || brc=$?
		if [ "$brc" != 0 ] && [ "$brc" != 70 ] && [ "$brc" != 77 ]; then
			echo "stdlib: $spec: wafer fails: $(tail -n 3 "$OUT/stdlib/$n-build.log")" >&2
			continue
		fi
		s=1
		while [ "$s" -le "$SEEDS" ]; do
			w=$OUT/stdlib/$n-wafer-$s g=$OUT/stdlib/$n-gotest-$s
			rm -rf "$w" "$g"
			layout "$pkg" "$g/tree"
			nice "$WAFER" fuzz "$pkg:$name" --go-testdata=false --max-total-time "$TIME" --seed "$s" -o "$w" >"$w.log" 2>&1 &
			wpid=$!
			grc=0
			(cd "$g/tree/$pkg" && nice "$OUT/bin/$n.fuzz.test" -test.run="^$name\$" -test.fuzz="^$name\$" \
				-test.fuzztime="${TIME}s" -test.parallel=1 -test.fuzzcachedir="$g/cache") >"$g.log" 2>&1 || grc=$?
			wrc=0
			wait "$wpid" || wrc=$?
			wcrash=0
			if [ -n "$(ls "$w/crashes" 2>/dev/null)" ]; then wcrash=1; fi
			gcrash=0
			if [ "$grc" != 0 ] && [ -d "$g/tree/$pkg/testdata/fuzz/$name" ]; then gcrash=1; fi
			mkdir -p "$w.corpus" "$g.corpus"
			"$EV" gocorpus -types "$types" -o "$w.corpus" "$w/queue"
			if [ -d "$g/cache/$name" ]; then cp "$g/cache/$name"/* "$g.corpus/" 2>/dev/null || true; fi
			echo "$n $s wafer $(replay "$pkg" "$name" "$n" "$w.corpus" "$w.cov") $wcrash" >>"$OUT/stdlib.tsv"
			echo "$n $s gotest $(replay "$pkg" "$name" "$n" "$g.corpus" "$g.cov") $gcrash" >>"$OUT/stdlib.tsv"
			echo "stdlib: wafer rc $wrc, go test rc $grc; $(tail -n 2 "$OUT/stdlib.tsv" | tr '\n' ';') $(uptime)"
			s=$((s + 1))
		done
	done
	"$EV" cov "$OUT/stdlib.tsv" | tee "$OUT/stdlib.md"
}

layout() { # PKG DIR: DIR/PKG with the package's testdata and its parent's (image/*'s seeds are ../testdata)
	mkdir -p "$2/$1"
	if [ -d "$GOROOT/src/$1/testdata" ]; then cp -r "$GOROOT/src/$1/testdata" "$2/$1/"; fi
	p=$(dirname "$1")
	if [ "$p" != . ] && [ -d "$GOROOT/src/$p/testdata" ]; then mkdir -p "$2/$p" && cp -r "$GOROOT/src/$p/testdata" "$2/$p/"; fi
}

replay() { # PKG NAME N CORPUS DIR: "covered total" of the package's statements
	layout "$1" "$5/tree"
	mkdir -p "$5/tree/$1/testdata/fuzz/$2"
	cp "$4"/* "$5/tree/$1/testdata/fuzz/$2/" 2>/dev/null || true
	(cd "$5/tree/$1" && "$OUT/bin/$3.cov.test" -test.run="^$2\$" -test.coverprofile="$5/cover.out") >"$5.log" 2>&1 || true
	"$EV" stmts -pkg "$1" "$5/cover.out"
}

try() { # one line a fuzz test: its exit status, seconds in all, wafer's summary line
	: >"$OUT/try.txt"
	for t in $TRY; do
		n=$(echo "$t" | tr '/:' '__')
		start=$(date +%s)
		rc=0
		nice "$WAFER" fuzz "$t" --runs 300 --seed 1 --go-testdata=false -o "$OUT/try/$n" >"$OUT/try/$n.log" 2>&1 || rc=$?
		echo "$t rc=$rc $(($(date +%s) - start))s: $(grep -v '^{' "$OUT/try/$n.log" | grep ' executions in ' | tail -n 1)" | tee -a "$OUT/try.txt"
	done
}

case ${1:-} in
speed) speed ;;
stdlib) stdlib ;;
try)
	mkdir -p "$OUT/try"
	try
	;;
*)
	echo "usage: eval/gofuzz.sh speed|stdlib|try" >&2
	exit 2
	;;
esac
