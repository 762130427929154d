#!/bin/sh
# Rebuilds the hand-written fixtures of instrument's own tests (Debian wabt).
set -e
cd "$(dirname "$0")"
wat2wasm --enable-all mem.wat -o mem.wasm
wat2wasm --enable-all godispatch.wat -o godispatch.wasm
wat2wasm --enable-all datamerge.wat -o datamerge.wasm
wat2wasm --enable-all datamerge-init.wat -o datamerge-init.wasm
wat2wasm --debug-names branches.wat -o branches.wasm
wat2wasm hot.wat -o hot.wasm
wat2wasm --debug-names nest.wat -o nest.wasm
wat2wasm --debug-names compare.wat -o compare.wasm
wat2wasm --enable-all marks.wat -o marks.wasm
# dw.wasm: a C function with DWARF line info (clang-14, no libc).
clang-14 --target=wasm32 -nostdlib -g -O0 -Wl,--no-entry -Wl,--export=classify -o dw.wasm dw.c
wat2wasm --enable-all --debug-names callpairs.wat -o callpairs.wasm
wat2wasm --debug-names regions.wat -o regions.wasm
wat2wasm --enable-all goframe.wat -o goframe.wasm
wat2wasm --enable-all --debug-names heaptrap.wat -o heaptrap.wasm
wat2wasm --debug-names wide.wat -o wide.wasm
