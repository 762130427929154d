#!/bin/sh
# Rebuilds csqlite.wasm: SQLite 3.45.1 (public domain; the amalgamation
# github.com/mattn/go-sqlite3 v1.14.22 vendors, fetched through the Go
# module proxy) with fuzz.c as a libFuzzer-style WASI reactor, built with
# clang + wasi-libc (Debian: apt-get install clang-14 lld-14 wasi-libc).
# Compile and link are separate steps so that clang does not run wasm-opt,
# which would drop the name section wafer's stacks use.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$(cd "$tmp" && go mod download -json github.com/mattn/go-sqlite3@v1.14.22 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
flags="--target=wasm32-wasi --sysroot=/usr -O1 -DSQLITE_OS_OTHER=1 -DSQLITE_THREADSAFE=0 \
	-DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OMIT_WAL -DSQLITE_OMIT_SHARED_CACHE \
	-DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_OMIT_DEPRECATED -I$src"
clang-14 $flags -Wno-everything -c -o "$tmp/sqlite3.o" "$src/sqlite3-binding.c"
clang-14 $flags -c -o "$tmp/fuzz.o" fuzz.c
clang-14 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -Wl,--stack-first \
	-Wl,--export=malloc -Wl,--export=LLVMFuzzerTestOneInput \
	-o csqlite.wasm "$tmp/sqlite3.o" "$tmp/fuzz.o"
