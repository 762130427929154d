#!/bin/sh
# Rebuilds goxhtml.wasm: a Go reactor (-buildmode=c-shared) of its own
# module, example.com/wafer.fix/goxhtml, over golang.org/x/net/html (from
# the module proxy, pinned in go.mod and go.sum), using wafer's harness
# package from this checkout (go.mod's replace). Tests never run this.
set -eu
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o goxhtml.wasm .
