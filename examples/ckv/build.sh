#!/bin/sh
# Rebuilds ckv.wasm: a libFuzzer-style WASI reactor built with clang + wasi-libc
# (Debian: apt-get install clang-14 lld-14 wasi-libc). Compile and link are
# separate steps so that no wasm-opt run drops the name section (as cexpr).
set -eu
cd "$(dirname "$0")"
clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -g -fdebug-prefix-map="$PWD"=examples/ckv \
	-c -o ckv.o ckv.c
clang-14 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -Wl,--stack-first \
	-Wl,--export=malloc -Wl,--export=LLVMFuzzerTestOneInput \
	-o ckv.wasm ckv.o
rm -f ckv.o
