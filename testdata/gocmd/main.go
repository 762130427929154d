// Command gocmd is a wafer fixture: a Go WASI command reading its input from
// stdin, or from the file named by its first argument (wafer's "@@").
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	var data []byte
	var err error
	if len(os.Args) > 1 {
		data, err = os.ReadFile(os.Args[1])
	} else {
		data, err = io.ReadAll(os.Stdin)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(4)
	}
	fmt.Printf("gocmd read %d bytes\n", len(data))
	if len(data) == 0 {
		return
	}
	switch data[0] {
	case 'P':
		explode(data)
	case 'X':
		os.Exit(3) // rejected input
	case 'E':
		fmt.Fprintln(os.Stderr, "gocmd: fatal input")
		os.Exit(1)
	}
}

//go:noinline
func explode(data []byte) {
	panic(fmt.Sprintf("gocmd panic on %q", data))
}
