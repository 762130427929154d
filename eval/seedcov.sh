#!/bin/sh
# Coverage of campaigns started from parsed seeds (issue 40), equal
# executions, one worker each, --keep-going. Arms per target:
#
#   seedtree    grammar/zest from the seeds parsed with the grammar, tree mutations on (default share)
#   seednotree  the same with --tree-share 0
#   nothing     grammar/zest from nothing (no seeds)
#   havoc       raw havoc (the CLI's raw default: input-to-state on) from the same seeds
#   genseed     (gojson only) --generator json from the seeds read back
#   gennothing  (gojson only) --generator json from nothing
#
# Go reactors run their seeds as warm-up in every arm (the arms without
# -i get --warm-up). The final stats line of each campaign goes to
# $OUT/TARGET__ARM__SEED.json:
#
#   OUT=/tmp/seedcov GV4=/tmp/gv4 nice sh eval/seedcov.sh
#   go run ./eval/evaltable -base seedtree -metrics coverage=coverage,valid_coverage=valid,valid_pct=valid%,queue=queue /tmp/seedcov
#
# GV4 is a checkout of antlr/grammars-v4 (its sql/sqlite and xml
# grammars; results in docs were made with @aca577d). SEEDS (default
# 1-5), TARGETS (default "ckv gojson csqlite"; gostdin too), ARMS and
# RUNS_<target> (csqlite 2000, gojson 10000, ckv 20000, gostdin 2000
# executions) change the budget; TIME (e.g. 60s) gives every campaign
# that wall time instead (--max-total-time; no execution bound). Two
# campaigns run side by side.
set -eu
: "${OUT:?set OUT}"
GV4=${GV4:-/tmp/gv4}
SEEDS=${SEEDS:-"1 2 3 4 5"}
TARGETS=${TARGETS:-"ckv gojson csqlite"}
ARMS=${ARMS:-"seedtree seednotree nothing havoc genseed gennothing"}
RUNS_csqlite=${RUNS_csqlite:-2000}
RUNS_gojson=${RUNS_gojson:-10000}
RUNS_ckv=${RUNS_ckv:-20000}
RUNS_gostdin=${RUNS_gostdin:-2000}
TIME=${TIME:-}
mkdir -p "$OUT"
go build -o "$OUT/wafer" .
. eval/campaign.sh
for s in $SEEDS; do
	for t in $TARGETS; do
		seeds=examples/$t/seeds harness= warm=
		case $t in
		csqlite) g=$GV4/sql/sqlite/SQLiteParser.g4 n=$RUNS_csqlite ;;
		gojson) g=generators/grammars/JSON.g4 n=$RUNS_gojson warm="--warm-up $seeds" ;;
		ckv) g=examples/ckv/KV.g4 n=$RUNS_ckv ;;
		gostdin) g=$GV4/xml/XMLParser.g4 n=$RUNS_gostdin harness="--harness command --invalid-exit-code 1" ;;
		*) echo "unknown target $t" >&2; exit 2 ;;
		esac
		i=0
		for arm in $ARMS; do
			case $arm in
			seedtree) set -- --grammar "$g" -i "$seeds" ;;
			seednotree) set -- --grammar "$g" -i "$seeds" --tree-share 0 ;;
			nothing) set -- --grammar "$g" $warm ;;
			havoc) set -- --strategy havoc -i "$seeds" ;;
			genseed) [ "$t" = gojson ] || continue; set -- --generator json -i "$seeds" ;;
			gennothing) [ "$t" = gojson ] || continue; set -- --generator json $warm ;;
			*) echo "unknown arm $arm" >&2; exit 2 ;;
			esac
			# shellcheck disable=SC2086
			budget="--runs $n"
			[ -n "$TIME" ] && budget="--max-total-time $TIME"
			# shellcheck disable=SC2086
			campaign "$t" "$arm" "$s" "$budget" $harness "$@" &
			i=$((i + 1))
			[ $((i % 2)) -eq 0 ] && wait
		done
		wait
	done
done
