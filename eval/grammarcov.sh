#!/bin/sh
# Coverage at equal wall time of a published grammar against havoc from
# the target's usual seeds (issue 44): for each seed, a campaign
# generating from the grammar (Zest, wafer's default with a generator)
# and one of havoc from the example's seed files, interleaved so that the
# machine's load falls on both alike; each campaign's final stats line
# goes to $OUT/TARGET__ARM__SEED.json for eval/evaltable:
#
#   OUT=/tmp/gcov GRAMMARS_V4=/path/to/grammars-v4 sh eval/grammarcov.sh
#   go run ./eval/evaltable -base grammar -metrics coverage=coverage,valid_coverage=valid,valid_pct=valid%,execs=execs /tmp/gcov
#
# TIME (seconds, default 60) and SEEDS (default 1 2 3 4 5) change the
# budget; TARGETS (default "gostdin gojson") the targets: gostdin (Go's
# encoding/xml; grammars-v4's XMLParser.g4 against havoc from its seed
# document) and gojson (Go's encoding/json; grammars-v4's JSON.g4 against
# havoc from its seeds, both warmed up with the seeds as its other
# campaigns are).
set -eu
: "${OUT:?set OUT}" "${GRAMMARS_V4:?set GRAMMARS_V4}"
TIME=${TIME:-60}
SEEDS=${SEEDS:-"1 2 3 4 5"}
mkdir -p "$OUT"
go build -o "$OUT/wafer" .
run() { # target arm seed flags...
	t=$1 arm=$2 s=$3
	shift 3
	f="$OUT/${t}__${arm}__$s.json"
	[ -s "$f" ] && return 0
	d=$(mktemp -d)
	"$OUT/wafer" fuzz "$@" --max-total-time "$TIME" --seed "$s" -j 1 \
		--keep-going --no-shrink --no-fsync -o "$d/out" "examples/$t/$t.wasm" 2>"$d/log" || true
	grep '"final":true' "$d/log" | tail -1 >"$f.tmp"
	if [ -s "$f.tmp" ]; then mv "$f.tmp" "$f"; else echo "no final stats: $t $arm $s" >&2; tail -3 "$d/log" >&2; rm -f "$f.tmp"; fi
	rm -rf "$d"
}
TARGETS=${TARGETS:-"gostdin gojson"}
for s in $SEEDS; do
	for t in $TARGETS; do
		case $t in
		gostdin)
			run gostdin grammar "$s" --harness command --invalid-exit-code 1 --grammar "$GRAMMARS_V4/xml/XMLParser.g4"
			run gostdin havoc "$s" --harness command --invalid-exit-code 1 -i examples/gostdin/seeds
			;;
		gojson)
			run gojson grammar "$s" --warm-up examples/gojson/seeds --grammar "$GRAMMARS_V4/json/JSON.g4"
			run gojson havoc "$s" --warm-up examples/gojson/seeds -i examples/gojson/seeds
			;;
		esac
	done
done
