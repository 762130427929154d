// Command gostdin is a wafer example: a Go WASI command that reads its
// input from stdin, here an XML document checked with encoding/xml.
//
// Build (build.sh):
//
//	GOOS=wasip1 GOARCH=wasm go build -o gostdin.wasm .
//
// It exits 0 for a well-formed document, 1 when encoding/xml rejects it
// (tell wafer with --invalid-exit-code 1), and panics, exiting 2, if the
// decoder's token stream breaks its own invariants: every end element
// closes the innermost open start element. Feed it with the "xml" generator.
package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := check(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "invalid:", err)
		os.Exit(1)
	}
}

func check(r io.Reader) error {
	d := xml.NewDecoder(r)
	var open []xml.Name
	elements := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			open = append(open, t.Name)
			elements++
		case xml.EndElement:
			if len(open) == 0 || open[len(open)-1] != t.Name {
				panic(fmt.Sprintf("end element %v does not close the innermost element %v", t.Name, open))
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) != 0 {
		return fmt.Errorf("%d elements left open", len(open))
	}
	if elements == 0 {
		return errors.New("no root element")
	}
	return nil
}
