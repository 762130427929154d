#!/usr/bin/env bash
# Rebuilds the comparison puzzles (docs/ALGORITHMS.md §8): each C puzzle at
# -O0 and -O2 (NAME_O0.wasm, NAME_O2.wasm), the C++ one likewise. Tests use
# the checked-in .wasm files and never run this. Needs clang-14, clang++-14,
# wasm-ld-14, Debian's wasi-libc (--sysroot=/usr) and
# libclang-rt-14-dev-wasm32 (compiler-rt's soft-float and 128-bit helpers).
# Compile and link are two steps: an optimising link runs wasm-opt, which
# drops the name section the soft-float hooks are found by.
set -euo pipefail
cd "$(dirname "$0")"
build() { # cc src out opt
	local obj
	obj=$(mktemp --suffix=.o)
	$1 --target=wasm32-wasi --sysroot=/usr "$4" -fno-exceptions -c -o "$obj" "$2"
	$1 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor \
		-Wl,--export=malloc,--export=LLVMFuzzerTestOneInput -o "$3" "$obj"
	rm -f "$obj"
}
for src in *.c; do
	for o in O0 O2; do
		build clang-14 "$src" "${src%.c}_$o.wasm" "-$o"
	done
done
for src in *.cc; do
	for o in O0 O2; do
		build clang++-14 "$src" "${src%.cc}_cc_$o.wasm" "-$o"
	done
done
