#!/bin/sh
# Scale figures of live sync (docs/EVALUATION.md, "Live sync: N processes
# against N workers"): on TARGET with SEEDDIR (default examples/czstd and
# its seeds), TIME seconds each,
# per seed
#   sync2    2 processes x 1 worker, --sync every INTERVAL (-o PARENT -S a/b)
#   j2       1 process x 2 workers (-j 2)
#   nosync2  2 processes x 1 worker, no sync
# in a rotating order per seed (so the machine's load falls on all alike;
# the load average before each run goes to raw/load.txt). The two processes
# of a pair have seeds s and s+100. Every SNAPS seconds the script copies
# each campaign's queue (complete files only: peers rename into place);
# afterwards it replays each snapshot's queues together in one process
# (--runs 0) and records the coverage (edges) of that union: the distinct
# edges the pair's queues reach at that time, one measure for all three
# configurations. raw/ keeps the plot_data, final fuzzer_stats and union
# figures; the tables come from
#   go run ./eval/syncscaletable $OUT/raw
# Run from the repository root.
set -eu
OUT=${OUT:-/tmp/wafer-eval-sync}
SEEDS=${SEEDS:-"1 2 3"}
TIME=${TIME:-60}
INTERVAL=${INTERVAL:-5s}
SNAPS=${SNAPS:-"10 20 30 40 50"}
TARGET=${TARGET:-examples/czstd/czstd.wasm}
SEEDDIR=${SEEDDIR:-examples/czstd/seeds}
mkdir -p "$OUT/raw" "$OUT/run"
go build -o "$OUT/wafer" .
W="$OUT/wafer"
common="--max-total-time $TIME --keep-going --no-shrink --no-fsync -i $SEEDDIR"

snapshot() { # rundir label
	for c in "$1"/par/*/; do
		n=$(basename "$c")
		mkdir -p "$1/snap/$2/$n"
		cp "$c"queue/id:* "$1/snap/$2/$n/" 2>/dev/null || true
	done
}

run() { # config seed
	cfg=$1 s=$2 d="$OUT/run/$1-$2"
	rm -rf "$d"
	mkdir -p "$d/par"
	echo "$cfg seed $s $(date -u +%FT%TZ) $(cat /proc/loadavg 2>/dev/null || uptime)" >>"$OUT/raw/load.txt"
	# shellcheck disable=SC2086 # $common is words
	case $cfg in
	j2)
		n=1
		"$W" fuzz -j 2 --seed "$s" $common -o "$d/par/main" "$TARGET" 2>"$d/main.log" &
		;;
	sync2)
		n=2
		"$W" fuzz -j 1 --seed "$s" --sync-interval "$INTERVAL" $common -o "$d/par" -S a "$TARGET" 2>"$d/a.log" &
		"$W" fuzz -j 1 --seed $((s + 100)) --sync-interval "$INTERVAL" $common -o "$d/par" -S b "$TARGET" 2>"$d/b.log" &
		;;
	nosync2)
		n=2
		"$W" fuzz -j 1 --seed "$s" $common -o "$d/par/a" "$TARGET" 2>"$d/a.log" &
		"$W" fuzz -j 1 --seed $((s + 100)) $common -o "$d/par/b" "$TARGET" 2>"$d/b.log" &
		;;
	esac
	# the clock starts when every campaign has compiled and written its
	# first stats (the snapshots are seconds of fuzzing, not of compiling)
	until [ "$(ls "$d"/par/*/fuzzer_stats 2>/dev/null | wc -l)" -ge "$n" ]; do sleep 0.1; done
	prev=0
	for t in $SNAPS; do
		sleep $((t - prev))
		prev=$t
		snapshot "$d" "$t"
	done
	wait
	snapshot "$d" "$TIME"
	for c in "$d"/par/*/; do
		n=$(basename "$c")
		cp "$c/plot_data" "$OUT/raw/$cfg-$s-$n.plot_data"
		cp "$c/fuzzer_stats" "$OUT/raw/$cfg-$s-$n.fuzzer_stats"
	done
}

union() { # config seed: one line "config seed second edges" per snapshot
	cfg=$1 s=$2 d="$OUT/run/$1-$2"
	for t in $SNAPS $TIME; do
		ins=""
		for q in "$d/snap/$t"/*/; do ins="$ins -i $q"; done
		rm -rf "$d/replay"
		# shellcheck disable=SC2086
		"$W" fuzz --runs 0 --no-fsync --keep-going --use-cmp 0 $ins -o "$d/replay" "$TARGET" 2>"$d/replay.log" || true
		edges=$(grep '"final":true' "$d/replay.log" | tail -1 | sed 's/.*"coverage":\([0-9]*\).*/\1/')
		echo "$cfg $s $t $edges" >>"$OUT/raw/union.txt"
	done
}

i=0
for s in $SEEDS; do
	case $((i % 3)) in
	0) order="sync2 j2 nosync2" ;;
	1) order="j2 nosync2 sync2" ;;
	2) order="nosync2 sync2 j2" ;;
	esac
	i=$((i + 1))
	for cfg in $order; do run "$cfg" "$s"; done
done
rm -f "$OUT/raw/union.txt"
for s in $SEEDS; do
	for cfg in sync2 j2 nosync2; do union "$cfg" "$s"; done
done
go run ./eval/syncscaletable "$OUT/raw"
