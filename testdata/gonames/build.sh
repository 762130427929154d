#!/bin/sh
# Rebuilds go-names.wasm: a Go reactor (-buildmode=c-shared) of its own
# module, example.com/wafer.fix/go-names, using wafer's harness package
# from this checkout (go.mod's replace). Tests never run this.
set -eu
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o go-names.wasm .
