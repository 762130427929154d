#!/bin/sh
# Rebuilds czstd.wasm: Zstandard 1.5.6's decompressor (BSD licence, the
# sources github.com/DataDog/zstd v1.5.6 vendors, fetched through the Go
# module proxy) with fuzz.c as a libFuzzer-style WASI reactor, built with
# clang + wasi-libc (Debian: apt-get install clang-14 lld-14 wasi-libc).
# Compile and link are separate steps so that clang does not run wasm-opt,
# which would drop the name section wafer's stacks use.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$(cd "$tmp" && go mod download -json github.com/DataDog/zstd@v1.5.6 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
objs=""
for f in entropy_common error_private fse_decompress huf_decompress xxhash \
	zstd_common zstd_ddict zstd_decompress zstd_decompress_block; do
	clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -g -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 \
		-fdebug-prefix-map="$src"=zstd -I"$src" -c -o "$tmp/$f.o" "$src/$f.c"
	objs="$objs $tmp/$f.o"
done
clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -g -fdebug-prefix-map="$PWD"=examples/czstd -I"$src" \
	-c -o "$tmp/fuzz.o" fuzz.c
clang-14 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -Wl,--stack-first \
	-Wl,--export=malloc -Wl,--export=LLVMFuzzerTestOneInput \
	-o czstd.wasm $objs "$tmp/fuzz.o"
