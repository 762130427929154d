# Sourced by the eval scripts that run one-worker campaigns on the bundled
# examples and keep each campaign's final stats line for eval/evaltable.
#
# campaign TARGET ARM SEED BUDGET FLAGS... runs
#   $OUT/wafer fuzz FLAGS BUDGET --seed SEED -j 1 --keep-going --no-shrink --no-fsync
# on examples/TARGET/TARGET.wasm and writes the final stats line to
# $OUT/TARGET__ARM__SEED.json; a campaign whose file exists is skipped, so
# an interrupted evaluation resumes. BUDGET is flags split at spaces
# ("--runs 6000", "--max-total-time 60s").
campaign() {
	t=$1 arm=$2 s=$3 budget=$4
	shift 4
	f="$OUT/${t}__${arm}__$s.json"
	[ -s "$f" ] && return 0
	d=$(mktemp -d)
	# shellcheck disable=SC2086
	"$OUT/wafer" fuzz "$@" $budget --seed "$s" -j 1 \
		--keep-going --no-shrink --no-fsync -o "$d/out" "examples/$t/$t.wasm" 2>"$d/log" || true
	grep '"final":true' "$d/log" | tail -1 >"$f.tmp"
	if [ -s "$f.tmp" ]; then mv "$f.tmp" "$f"; else echo "no final stats: $t $arm $s" >&2; tail -3 "$d/log" >&2; rm -f "$f.tmp"; fi
	rm -rf "$d"
}
