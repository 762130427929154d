#!/bin/sh
# Rebuilds goparser.wasm: a Go reactor (-buildmode=c-shared) using wafer's harness.
set -eu
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildmode=c-shared -o goparser.wasm .
