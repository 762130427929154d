#!/bin/sh
# Rebuilds the checked-in test fixtures of internal/wasip1. Needs wabt
# (wat2wasm), Go (GOOS=wasip1) and clang-14 with Debian's wasi-libc.
# Tests never run this; they embed the .wasm files.
set -eu
cd "$(dirname "$0")"
for w in *.wat; do
	wat2wasm "$w" -o "${w%.wat}.wasm"
done
# -trimpath -buildvcs=false: the same bytes from any checkout with the same Go;
# fixtures_test.go (TestGoFixturesRebuild) rebuilds with this line and compares.
if [ -d gocmd ]; then
	(cd gocmd && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -ldflags="-s -w -buildid=" -o ../gocmd.wasm .)
fi
if [ -d goreactor ]; then
	(cd goreactor && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w -buildid=" -o ../goreactor.wasm .)
fi
if [ -f ccmd.c ]; then
	clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -o ccmd.wasm ccmd.c
fi
# The C program instrumented by wafer's instrument package: its memory is
# shifted up by the base offset written to ccmd.inst.base.
go run ./instrumentgen ccmd.wasm ccmd.inst.wasm
