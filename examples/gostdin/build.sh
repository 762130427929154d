#!/bin/sh
# Rebuilds gostdin.wasm: a Go WASI command (reads stdin, exits 0/1).
set -eu
cd "$(dirname "$0")"
# -trimpath -buildvcs=false: the same bytes from any checkout with the same Go;
# fixtures_test.go (TestGoFixturesRebuild) rebuilds with this line and compares.
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -o gostdin.wasm .
