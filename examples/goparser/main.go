// Command goparser is a wafer example: a Go reactor target over the
// standard library's go/parser and go/format, written with wafer's harness
// package. It allocates heavily (a syntax tree per input, a token.FileSet,
// the printer's buffers), the shape of most Go parsers.
//
// Build (build.sh):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o goparser.wasm .
//
// Source go/parser rejects is "invalid". Accepted source is formatted by
// go/format; formatted source must parse again and be a fixed point of
// format (formatting it once more changes nothing). A violated property
// panics, which wafer reports as a crash. Inputs are capped at 64 KiB.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"

	"github.com/wafer-fuzz/wafer/harness"
)

func init() {
	harness.Fuzz(fuzz)
}

// maxSource caps the input, so that one input's tree stays small.
const maxSource = 64 << 10

func fuzz(data []byte) error {
	if len(data) > maxSource {
		return errors.New("source larger than 64 KiB")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "in.go", data, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	var once bytes.Buffer
	if err := format.Node(&once, fset, f); err != nil {
		// The printer refuses some trees the parser accepts (e.g. ones
		// with bad nodes); that is the input's fault, not a finding.
		return err
	}
	again, err := format.Source(once.Bytes())
	if err != nil {
		panic(fmt.Sprintf("formatted source does not parse: %v\n%s", err, once.Bytes()))
	}
	if !bytes.Equal(again, once.Bytes()) {
		panic(fmt.Sprintf("formatting is not a fixed point:\n%s\n---\n%s", once.Bytes(), again))
	}
	return nil
}

func main() {}
