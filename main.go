// Command wafer is a coverage-guided fuzzer for WebAssembly targets.
//
// The command lives in internal/cli (one file per subcommand); the
// packages it drives are described in their own docs, starting with
// campaign, the public API.
package main

import (
	"os"

	"github.com/wafer-fuzz/wafer/internal/cli"
)

func main() { os.Exit(cli.Main()) }
