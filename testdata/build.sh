#!/usr/bin/env bash
# Rebuilds the runtime fixtures. Tests never run this: the .wasm files are
# checked in beside their sources. Needs clang-14 + wasm-ld-14 (+ llvm-objcopy-14), Debian's
# wasi-libc (--sysroot=/usr), wabt (wat2wasm) and Go 1.26.
set -euo pipefail
cd "$(dirname "$0")"
CC=${CC:-clang-14}
# Compile and link in two steps: with -O at link time clang runs wasm-opt
# (when it is on PATH), which drops the name section wafer's stacks need.
reactor() { # out.wasm src.c [exports]
	local obj
	obj=$(mktemp --suffix=.o)
	$CC --target=wasm32-wasi --sysroot=/usr -O1 -g -fdebug-prefix-map="$PWD"=testdata -c -o "$obj" "$2"
	$CC --target=wasm32-wasi --sysroot=/usr -g -mexec-model=reactor \
		-Wl,"${3:---export=malloc,--export=LLVMFuzzerTestOneInput}" -o "$1" "$obj"
	rm -f "$obj"
}
reactor clib/clib.wasm clib/fuzz.c
# The same target without an allocator export (wafer exports the malloc
# its name section names).
reactor clib/nomalloc.wasm clib/fuzz.c --export=LLVMFuzzerTestOneInput
# The same target importing its memory (--import-memory): wafer defines it.
reactor clib/importmem.wasm clib/fuzz.c --export=malloc,--export=LLVMFuzzerTestOneInput,--import-memory
# The same target without its name section, DWARF kept (what wasm-opt leaves
# of a -g build): functions are named from DWARF.
llvm-objcopy-14 --remove-section=name clib/clib.wasm clib/nonames.wasm
reactor hostile/hostile.wasm hostile/hostile.c
reactor heap/heap.wasm heap/heap.c
CC="$CC -DBADFREE" reactor heap/badfree.wasm heap/heap.c
reactor stack/stack.wasm stack/stack.c
reactor depth/nest.wasm depth/nest.c
reactor heapguard/guard.wasm heapguard/guard.c
reactor heapcheck/check.wasm heapcheck/check.c
reactor findings/findings.wasm findings/findings.c
reactor sync/gate.wasm sync/gate.c
reactor heapcheck/first.wasm heapcheck/check.c --export=malloc,--export=LLVMFuzzerTestOneInput,--stack-first
CC="$CC -mbulk-memory" reactor heapcheck/bulk.wasm heapcheck/check.c
reactor stack/first.wasm stack/stack.c --export=malloc,--export=LLVMFuzzerTestOneInput,--stack-first
# A C++ target linked as a command, whose exports wasm-ld wraps in calls to
# the constructors and destructors; and the same without its name section.
obj=$(mktemp --suffix=.o)
clang++-14 --target=wasm32-wasi --sysroot=/usr -O1 -fno-exceptions -c -o "$obj" cxxcommand/fuzz.cc
clang++-14 --target=wasm32-wasi --sysroot=/usr -nostartfiles -Wl,--no-entry \
	-Wl,--export=malloc,--export=LLVMFuzzerTestOneInput -o cxxcommand/command.wasm "$obj"
rm -f "$obj"
wasm-strip -o cxxcommand/stripped.wasm cxxcommand/command.wasm
reactor hostile/initrap.wasm hostile/initrap.c
wat2wasm --enable-all -o fake/fake.wasm fake/fake.wat
wat2wasm --enable-all -o traps/traps.wasm traps/traps.wat
wat2wasm --enable-all -o fake/imports.wasm fake/imports.wat
wat2wasm --enable-all -o fake/noharness.wasm fake/noharness.wat
wat2wasm --enable-all -o fake/shared.wasm fake/shared.wat
wat2wasm --enable-all -o fake/importglobal.wasm fake/importglobal.wat
# -trimpath -buildvcs=false: the same bytes from any checkout with the same Go;
# fixtures_test.go (TestGoFixturesRebuild) rebuilds with this line and compares.
(cd gohuge && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o gohuge.wasm .)
(cd goalloc && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o goalloc.wasm .)
(cd goreactor && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o goreactor.wasm .)
(cd gocmd && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -o gocmd.wasm .)
# A module of its own (example.com/wafer.fix/go-names): Go names with dots,
# slashes and a pointer receiver.
gonames/build.sh
