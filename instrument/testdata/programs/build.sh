#!/bin/sh
# Rebuilds the checked-in .wasm programs of wafer's instrument tests.
# Needs wabt (wat2wasm), clang-14 with Debian's wasi-libc, and Go >= 1.21.
set -eu
cd "$(dirname "$0")"
wat2wasm spectest_host.wat -o spectest_host.wasm
wat2wasm --debug-names ifloop/ifloop.wat -o ifloop/ifloop.wasm
# C programs: compile with clang, link with wasm-ld directly (the clang
# driver runs wasm-opt when it is installed, which drops the name section).
clang="clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -g -fdebug-prefix-map=$(pwd)=."
rt=$(clang-14 --target=wasm32-wasi --sysroot=/usr -print-libgcc-file-name)
for p in cwords crunch; do
	$clang -c -o "$p/$p.o" "$p/$p.c"
	wasm-ld-14 -m wasm32 -L/usr/lib/wasm32-wasi /usr/lib/wasm32-wasi/crt1-command.o \
		"$p/$p.o" -lc "$rt" -o "$p/$p.wasm"
	rm "$p/$p.o"
done
# -trimpath -buildvcs=false: the same bytes from any checkout with the same Go;
# fixtures_test.go (TestGoFixturesRebuild) rebuilds with this line and compares.
for p in gocalc gobig; do
	(cd "$p" && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$p.wasm" .)
done
ls -l ./*.wasm ./*/*.wasm
