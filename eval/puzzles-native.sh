#!/bin/sh
# Issue 42: the comparison puzzles (testdata/puzzles) side by side, wafer
# against native libFuzzer (clang-14 -fsanitize=fuzzer,address, x86-64,
# -use_value_profile=1, its default -use_cmp=1 and -entropic=1), one core
# each, one at a time with nice, the two interleaved per puzzle and seed,
# from the same seed input (64 x 'x'), at most TIME seconds each. wafer runs
# with --value-profile. Prints one line per run: puzzle, fuzzer, seed,
# solved (1/0) and seconds to the crash (TIME when unsolved; wafer's is its
# campaign's elapsed time, compile excluded, libFuzzer's the process's wall
# time). Note: natively `long double` is x87's 80-bit format, not software
# binary128, and each puzzle's -O level applies to the native build too.
#
#   eval/puzzles-native.sh > /tmp/puzzles-native.txt
#   TIME=20 SEEDS="1 2 3" PUZZLES="hash_O0 weighted_O2" eval/puzzles-native.sh
set -eu
TIME=${TIME:-20}
SEEDS=${SEEDS:-"1 2 3"}
dir=$(mktemp -d)
go build -o "$dir/wafer" .
mkdir -p "$dir/seed"
printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' >"$dir/seed/x"
all=""
for f in testdata/puzzles/*.wasm; do all="$all $(basename "$f" .wasm)"; done
for p in ${PUZZLES:-$all}; do
	src=testdata/puzzles/${p%_O?}.c
	cc=clang-14
	case $p in *_cc_*) src=testdata/puzzles/${p%_cc_O?}.cc cc=clang++-14 ;; esac
	opt=-${p##*_}
	$cc -g "$opt" -fsanitize=fuzzer,address -o "$dir/$p.native" "$src"
	for s in $SEEDS; do
		rm -rf "$dir/out" "$dir/corpus"
		mkdir -p "$dir/corpus"
		cp "$dir/seed/x" "$dir/corpus/"
		rc=0
		nice "$dir/wafer" fuzz --value-profile --max-total-time "$TIME" --seed "$s" --no-shrink -o "$dir/out" \
			"testdata/puzzles/$p.wasm" "$dir/seed" >"$dir/log" 2>&1 || rc=$?
		secs=$(grep '"final":true' "$dir/log" | tail -1 | sed 's/.*"elapsed_ns":\([0-9]*\).*/\1/' | awk '{printf "%.2f", $1/1e9}')
		[ "$rc" = 77 ] && echo "$p wafer $s 1 $secs" || echo "$p wafer $s 0 $TIME"
		start=$(date +%s.%N)
		rc=0
		(cd "$dir" && nice "./$p.native" -use_value_profile=1 -seed="$s" -max_total_time="$TIME" \
			-artifact_prefix="$dir/" corpus >"$dir/nlog" 2>&1) || rc=$?
		end=$(date +%s.%N)
		secs=$(echo "$start $end" | awk '{printf "%.2f", $2-$1}')
		grep -q "ERROR: \(libFuzzer\|AddressSanitizer\)" "$dir/nlog" && echo "$p libfuzzer $s 1 $secs" || echo "$p libfuzzer $s 0 $TIME"
	done
done
rm -rf "$dir"
