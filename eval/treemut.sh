#!/bin/sh
# Tree mutations against none (issue 40): for each seed and target, a
# grammar/zest campaign with the default tree mutations (arm "tree") and
# one with --tree-share 0 (arm "notree"), equal executions, one worker;
# the two arms run side by side so that the machine's load falls on both
# alike. Each campaign's final stats line goes to
# $OUT/TARGET__ARM__SEED.json for eval/evaltable:
#
#   OUT=/tmp/treemut sh eval/treemut.sh
#   go run ./eval/evaltable -base notree -metrics coverage=coverage,valid_pct=valid%,queue=queue,execs_per_sec=execs/s /tmp/treemut
#
# SEEDS (default 1 2 3 4 5), TARGETS (default "csqlite gojson"; cexpr
# too), and RUNS_csqlite / RUNS_gojson / RUNS_cexpr (default 6000 /
# 20000 / 30000 executions) change the budget; ARMS_FLAGS_tree adds flags to the tree arm (e.g.
# "--tree-share 0.5").
set -eu
: "${OUT:?set OUT}"
SEEDS=${SEEDS:-"1 2 3 4 5"}
TARGETS=${TARGETS:-"csqlite gojson"}
RUNS_csqlite=${RUNS_csqlite:-6000}
RUNS_gojson=${RUNS_gojson:-20000}
RUNS_cexpr=${RUNS_cexpr:-30000}
ARMS_FLAGS_tree=${ARMS_FLAGS_tree:-}
mkdir -p "$OUT"
go build -o "$OUT/wafer" .
. eval/campaign.sh
for s in $SEEDS; do
	for t in $TARGETS; do
		case $t in
		csqlite) g=generators/grammars/SQLite.g4 n=$RUNS_csqlite extra= ;;
		cexpr) g=generators/grammars/Expr.g4 n=$RUNS_cexpr extra= ;;
		gojson) g=generators/grammars/JSON.g4 n=$RUNS_gojson extra="--warm-up examples/gojson/seeds" ;;
		*) echo "unknown target $t" >&2; exit 2 ;;
		esac
		# shellcheck disable=SC2086
		campaign "$t" tree "$s" "--runs $n" --grammar "$g" $extra $ARMS_FLAGS_tree &
		# shellcheck disable=SC2086
		campaign "$t" notree "$s" "--runs $n" --grammar "$g" $extra --tree-share 0 &
		wait
	done
done
