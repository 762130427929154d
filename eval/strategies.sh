#!/bin/sh
# Evaluation of the generator-mode strategies (docs/EVALUATION.md,
# "Generator-mode strategies: BeDivFuzz, SpotOn, Zest, random"):
# zest, bedivfuzz (structure and simple), spoton and random, and the
# papers' exact baselines (zest and random without target constants or
# boundary bias), on three generator targets, SEEDS seeds each, equal
# execution budgets, one worker. Each campaign's final stats line goes to
# $OUT/TARGET__CONFIG__SEED.json; the tables come from
#   go run ./eval/evaltable -base zest $OUT
# Run from the repository root. Budgets are executions, so the machine's
# load changes the wall time, not the results.
set -eu
OUT=${OUT:-/tmp/wafer-eval-strategies}
SEEDS=${SEEDS:-"1 2 3 4 5"}
RUNS_GOJSON=${RUNS_GOJSON:-12000}
RUNS_CSQLITE=${RUNS_CSQLITE:-5000}
RUNS_CEXPR=${RUNS_CEXPR:-250000}
mkdir -p "$OUT"
go build -o "$OUT/wafer" .

# CONFIGS (NAME|FLAGS lines) and TARGETS override the defaults; the
# control of the SpotOn section is
#   CONFIGS='spoton-plain|--strategy spoton --spoton-targeted 0' TARGETS='gojson csqlite'
configs=${CONFIGS:-'zest|--strategy zest
bedivfuzz|--strategy bedivfuzz
bedivfuzz-simple|--strategy bedivfuzz --bedivfuzz-simple
spoton|--strategy spoton
random|--strategy random
zest-paper|--strategy zest --dict-prob 0 --int-bias 0
random-paper|--strategy random --dict-prob 0 --int-bias 0'}
TARGETS=${TARGETS:-"cexpr gojson csqlite"}

campaign() { # target generator runs seed extra-flags...
	t=$1 g=$2 n=$3 s=$4
	shift 4
	echo "$configs" | while IFS='|' read -r name flags; do
		f="$OUT/${t}__${name}__$s.json"
		[ -s "$f" ] && continue
		d=$(mktemp -d)
		# shellcheck disable=SC2086 # flags are words
		"$OUT/wafer" fuzz --generator "$g" $flags --runs "$n" --seed "$s" -j 1 \
			--keep-going --no-shrink --no-fsync "$@" -o "$d/out" "examples/$t/$t.wasm" \
			2>"$d/log" || true
		grep '"final":true' "$d/log" | tail -1 >"$f.tmp"
		if [ -s "$f.tmp" ]; then mv "$f.tmp" "$f"; else echo "no final stats: $t $name $s" >&2; tail -3 "$d/log" >&2; rm -f "$f.tmp"; fi
		rm -rf "$d"
	done
}

for s in $SEEDS; do
	for t in $TARGETS; do
		case $t in
		cexpr) campaign cexpr expr "$RUNS_CEXPR" "$s" ;;
		gojson) campaign gojson json "$RUNS_GOJSON" "$s" --warm-up examples/gojson/seeds ;;
		csqlite) campaign csqlite sql "$RUNS_CSQLITE" "$s" ;;
		esac
	done
done
go run ./eval/evaltable -base zest "$OUT"
