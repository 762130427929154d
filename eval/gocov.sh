#!/bin/sh
# Issue 29, effect: campaign coverage at equal wall time and peak RSS,
# before (a base commit) and after (HEAD).
#
# Coverage: per target and seed, the base and the head campaign run at the
# same time (one worker each, TIME seconds, the target's seeds), so the
# machine's load hits both alike. Each campaign's queue is then replayed by
# the BASE binary's `wafer cov` (base and head replays at once), so both
# are counted on the same sites (a change to instrumentation, e.g. fewer
# counted sites in a Go runtime, changes edges_found's meaning, not this
# count): every counted site, but on PROG_TARGETS (the Go reactors) with
# --skip 'runtime.*': the program's own code and the rest of the standard
# library, what a Go campaign is for.
# Tables: median [min–max] over SEEDS, Â12 and Mann-Whitney U of head
# against base (eval/evaltable).
#
# Peak RSS: per RSS_TARGETS, workers 1 and 2, seed 1, TIME seconds, base
# and head at the same time; the maximum resident set of the process
# (/usr/bin/time -v; GNU time), in MiB. Campaigns keep going after a
# crash (--keep-going), so each runs its whole TIME.
#
# Runtime: TIME x (|TARGETS| x |SEEDS| + 2 x |RSS_TARGETS|) plus builds and
# the `wafer cov` replays of the coverage runs (each writes an HTML report:
# ~10 s on a C target, 30-60 s on a Go reactor; the RSS runs get none):
# with the defaults (60 s, 4 x 5 + 2 x 3 pairs) about 26 minutes of
# campaigns and 10-20 of replays.
# The load average is printed as it goes.
#
# Usage, from the repository root:
#   eval/gocov.sh [BASE]          # BASE defaults to 766bbb4
#   TIME=30 SEEDS="1 2 3" TARGETS="gojson cexpr" RSS_TARGETS= eval/gocov.sh
# HEAD_ARGS adds flags to the head campaigns only (@SEEDS@ is the target's
# seed directory), e.g. a flag's effect with BASE = HEAD:
#   HEAD_ARGS='--warm-up @SEEDS@' RSS_TARGETS= eval/gocov.sh HEAD
# Results in $OUT (default /tmp/wafer-gocov): cov/TARGET__{base,head}__SEED.json,
# rss/TARGET-jN__{base,head}__1.json, tables in cov.md and rss.md.
#
# RECOUNT=1 runs no campaign: it replays the queues of an earlier run in
# $OUT with that run's head binary instead of the base's, into
# covhead/ and covhead.md, so both sides are counted on HEAD's sites.
# For a change that drops sites: the base's own sites hold the ones its
# campaigns sought and HEAD's did not, and would favour the base.
#   OUT=/tmp/wafer-gocov RECOUNT=1 TARGETS="gojson gopng goparser" eval/gocov.sh
set -eu
BASE=${1:-766bbb4}
TIME=${TIME:-60}
SEEDS=${SEEDS:-"1 2 3 4 5"}
TARGETS=${TARGETS-"gojson gopng goparser cexpr"}
RSS_TARGETS=${RSS_TARGETS-"czstd csqlite gojson"}
PROG_TARGETS=${PROG_TARGETS-"gojson gopng goparser"}
OUT=${OUT:-/tmp/wafer-gocov}

root=$(git rev-parse --show-toplevel)
covbin=base cov=cov # the binary that replays the queues, and where the counts go
if [ "${RECOUNT:-}" ]; then
	covbin=head cov=covhead RSS_TARGETS=
	[ -x "$OUT/wafer-head" ] || { echo "gocov: RECOUNT needs an earlier run's $OUT/wafer-head" >&2; exit 1; }
fi
mkdir -p "$OUT/$cov" "$OUT/rss" "$OUT/runs"
if [ -z "${RECOUNT:-}" ]; then
	wt="$OUT/base-tree"
	if [ -d "$wt" ]; then git -C "$root" worktree remove --force "$wt"; fi
	git -C "$root" worktree add --detach "$wt" "$BASE" >/dev/null
	trap 'git -C "$root" worktree remove --force "$wt"' EXIT
	(cd "$wt" && go build -o "$OUT/wafer-base" .)
	(cd "$root" && go build -o "$OUT/wafer-head" .)
	[ -x /usr/bin/time ] || { echo "gocov: needs GNU time at /usr/bin/time for the peak RSS" >&2; exit 1; }
	echo "gocov: base $(git -C "$wt" rev-parse --short HEAD), head $(git -C "$root" rev-parse --short HEAD); $(uptime)"
fi

# campaign SIDE TARGET SEED WORKERS DIR: one campaign; its final stats line
# in DIR.json, GNU time's report in DIR.time.
campaign() {
	side=$1 t=$2 s=$3 j=$4 d=$5
	rm -rf "$d"
	extra=
	if [ "$side" = head ]; then extra=$(printf '%s' "${HEAD_ARGS:-}" | sed "s|@SEEDS@|$root/examples/$t/seeds|g"); fi
	# shellcheck disable=SC2086 # $extra is words
	/usr/bin/time -v -o "$d.time" "$OUT/wafer-$side" fuzz --max-total-time "$TIME" -j "$j" --seed "$s" --keep-going $extra \
		-o "$d" "$root/examples/$t/$t.wasm" "$root/examples/$t/seeds" >"$d.log" 2>&1 || true
	grep '"final":true' "$d.log" | tail -1 >"$d.json" || true
	[ -s "$d.json" ] || { echo "gocov: $side campaign on $t (seed $s, -j $j) left no stats line: see $d.log" >&2; exit 1; }
}

# record SIDE TARGET SEED DIR FILE [nocov]: the stats line plus the base
# binary's (with RECOUNT, the head's) coverage of the queue (on PROG_TARGETS with --skip 'runtime.*':
# the program's own code and the rest of the standard library) and the
# peak RSS, one JSON object. With nocov, the RSS only.
record() {
	side=$1 t=$2 s=$3 d=$4 f=$5
	skip=
	case " $PROG_TARGETS " in *" $t "*) skip="--skip runtime.*" ;; esac
	branches=-1
	if [ "${6:-}" != nocov ]; then
		# shellcheck disable=SC2086 # $skip is two words or none
		branches=$("$OUT/wafer-$covbin" cov $skip -o "$d.$cov" "$root/examples/$t/$t.wasm" "$d" 2>&1 | sed -n 's/.*: branches \([0-9]*\)\/.*/\1/p' | tail -1)
	fi
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$d.time")
	[ -s "$d.json" ] && [ -n "$branches" ] && [ -n "$rss" ] || { echo "gocov: no coverage or RSS for $d" >&2; exit 1; }
	sed "s/}\$/,\"cov_prog\":$branches,\"peak_rss_mb\":$((rss / 1024))}/" "$d.json" >"$f"
}

for t in $TARGETS; do
	for s in $SEEDS; do
		[ -s "$OUT/$cov/${t}__head__$s.json" ] && continue
		if [ -z "${RECOUNT:-}" ]; then
			campaign base "$t" "$s" 1 "$OUT/runs/$t-base-$s" &
			campaign head "$t" "$s" 1 "$OUT/runs/$t-head-$s" &
			wait
		fi
		# The two replays run at once too (one binary both).
		record base "$t" "$s" "$OUT/runs/$t-base-$s" "$OUT/$cov/${t}__base__$s.json" &
		record head "$t" "$s" "$OUT/runs/$t-head-$s" "$OUT/$cov/${t}__head__$s.json" &
		wait
		echo "gocov: $t seed $s done; $(uptime)"
	done
done
for t in $RSS_TARGETS; do
	for j in 1 2; do
		[ -s "$OUT/rss/$t-j${j}__head__1.json" ] && continue
		campaign base "$t" 1 "$j" "$OUT/runs/rss-$t-j$j-base" &
		campaign head "$t" 1 "$j" "$OUT/runs/rss-$t-j$j-head" &
		wait
		for side in base head; do
			record "$side" "$t" 1 "$OUT/runs/rss-$t-j$j-$side" "$OUT/rss/$t-j${j}__${side}__1.json" nocov
		done
		echo "gocov: RSS $t -j $j done; $(uptime)"
	done
done
cd "$root"
cols="cov_prog=branches ($covbin sites),coverage=edges_found,execs=execs,execs_per_sec=execs/s,peak_rss_mb=peak RSS MiB"
if [ -n "$TARGETS" ]; then go run ./eval/evaltable -base base -metrics "$cols" "$OUT/$cov" | tee "$OUT/$cov.md"; fi
if [ -n "$RSS_TARGETS" ]; then go run ./eval/evaltable -base base -metrics 'execs=execs,execs_per_sec=execs/s,peak_rss_mb=peak RSS MiB' "$OUT/rss" | tee "$OUT/rss.md"; fi
