#!/bin/sh
# Time to the planted bug of examples/ckv (issue 40), which needs a del
# (only in seeds/scratch) followed later by an undo (only in
# seeds/counter) of one key. Four arms, one worker each, stopping at the
# first crash or after $CAP executions:
#
#   seedtree    grammar/zest from the parsed seeds, tree mutations on (default share)
#   seednotree  the same with --tree-share 0
#   nothing     grammar/zest from nothing (no seeds)
#   havoc       raw havoc from the same seeds
#   seedprofile     seedtree drawing with the profile of the seeds (--grammar-profile)
#   nothingprofile  nothing drawing with the profile of the seeds
#
# Each campaign's final stats line goes to $OUT/ckv__ARM__SEED.json; its
# execs is the executions to the bug (or CAP, with unique_crashes 0):
#
#   OUT=/tmp/seedbug nice sh eval/seedbug.sh
#   go run ./eval/evaltable -base seedtree -metrics execs=execs,unique_crashes=found /tmp/seedbug
#
# SEEDS (default 1-10) and CAP (default 200000) change the budget; ARMS
# (default all six) names the arms to run.
set -eu
: "${OUT:?set OUT}"
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8 9 10"}
CAP=${CAP:-200000}
ARMS=${ARMS:-"seedtree seednotree nothing havoc seedprofile nothingprofile"}
E=examples/ckv
mkdir -p "$OUT"
go build -o "$OUT/wafer" .
run() { # arm seed flags...
	arm=$1 s=$2
	shift 2
	f="$OUT/ckv__${arm}__$s.json"
	case " $ARMS " in *" $arm "*) ;; *) return 0 ;; esac
	[ -s "$f" ] && return 0
	d=$(mktemp -d)
	"$OUT/wafer" fuzz "$@" --runs "$CAP" --seed "$s" -j 1 \
		--no-shrink --no-fsync -o "$d/out" "$E/ckv.wasm" 2>"$d/log" || true
	grep '"final":true' "$d/log" | tail -1 >"$f.tmp"
	if [ -s "$f.tmp" ]; then mv "$f.tmp" "$f"; else echo "no final stats: $arm $s" >&2; tail -3 "$d/log" >&2; rm -f "$f.tmp"; fi
	rm -rf "$d"
}
for s in $SEEDS; do
	run seedtree "$s" --grammar "$E/KV.g4" -i "$E/seeds" &
	run seednotree "$s" --grammar "$E/KV.g4" -i "$E/seeds" --tree-share 0 &
	wait
	run nothing "$s" --grammar "$E/KV.g4" &
	run havoc "$s" --strategy havoc -i "$E/seeds" &
	wait
	run seedprofile "$s" --grammar "$E/KV.g4" -i "$E/seeds" --grammar-profile "$E/seeds" &
	run nothingprofile "$s" --grammar "$E/KV.g4" --grammar-profile "$E/seeds" &
	wait
done
