#!/bin/sh
# Rebuilds gostdin.wasm: a Go WASI command (reads stdin, exits 0/1).
set -eu
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -o gostdin.wasm .
