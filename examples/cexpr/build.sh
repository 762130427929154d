#!/bin/sh
# Rebuilds cexpr.wasm: a libFuzzer-style WASI reactor built with clang + wasi-libc
# (Debian: apt-get install clang-14 lld-14 wasi-libc).
set -eu
cd "$(dirname "$0")"
clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -g -mexec-model=reactor \
	-Wl,--export=malloc -Wl,--export=LLVMFuzzerTestOneInput \
	-o cexpr.wasm cexpr.c
