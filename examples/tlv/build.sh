#!/bin/sh
# Rebuilds tlv.wasm: a libFuzzer-style WASI reactor built with clang + wasi-libc
# (Debian: apt-get install clang-14 lld-14 wasi-libc).
#
# Compile and link are separate steps on purpose: an optimising link makes
# clang run wasm-opt (binaryen) when it is installed, which drops the "name"
# section, and with it the function names in wafer's stack traces. -g keeps
# DWARF, so stacks also show file:line.
set -eu
cd "$(dirname "$0")"
clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -g -fdebug-prefix-map="$PWD"=examples/tlv \
	-c -o tlv.o tlv.c
clang-14 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -Wl,--stack-first \
	-Wl,--export=malloc -Wl,--export=LLVMFuzzerTestOneInput \
	-o tlv.wasm tlv.o
rm -f tlv.o
