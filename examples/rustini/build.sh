#!/bin/sh
# Rebuilds rustini.wasm: a libFuzzer-style Rust cdylib for wasm32-wasi
# (Debian: apt-get install rustc libstd-rust-dev-wasm32; rustc 1.63, whose
# target is still called wasm32-wasi; newer toolchains call it
# wasm32-wasip1).
#
# A Rust cdylib is linked as a command: wasm-ld wraps each export in calls
# to the constructors and destructors, which wafer undoes (it calls the
# wrapped functions and runs the constructors once per instance).
# strip=debuginfo drops the standard library's DWARF (6 MB) and keeps the
# name section wafer's stacks use; --export=malloc exports wasi-libc's
# allocator, which Rust's own allocator calls.
set -eu
cd "$(dirname "$0")"
RUSTC=${RUSTC:-/usr/bin/rustc}
"$RUSTC" --edition 2021 --target wasm32-wasi --crate-type cdylib -O \
	-C strip=debuginfo -C link-arg=--export=malloc -o rustini.wasm lib.rs
