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
	case 'R': // hostile: escape the in-memory file system
		for _, p := range []string{"/etc/passwd", "../../../etc/passwd", "/input/../../etc/passwd"} {
			if b, err := os.ReadFile(p); err != nil {
				fmt.Printf("read %s: failed\n", p)
			} else {
				fmt.Printf("read %s: %q\n", p, b)
			}
		}
		if err := os.WriteFile("/input", []byte("overwritten"), 0o644); err != nil {
			fmt.Println("write /input: failed")
		}
		if err := os.WriteFile("/wafer-hostile-created", nil, 0o644); err != nil {
			fmt.Println("create: failed")
		}
	}
}

//go:noinline
func explode(data []byte) {
	panic(fmt.Sprintf("gocmd panic on %q", data))
}
