#!/bin/sh
# Rebuilds the hand-written fixtures of instrument's own tests (Debian wabt).
set -e
cd "$(dirname "$0")"
wat2wasm --enable-all mem.wat -o mem.wasm
wat2wasm --debug-names branches.wat -o branches.wasm
