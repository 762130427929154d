package runtime

import (
	"strings"
)

// stackText renders a failure's stack as indented lines, "" without one.
func stackText(f *Failure) string {
	if f == nil || len(f.Stack) == 0 {
		return ""
	}
	var b strings.Builder
	for _, fr := range f.Stack {
		b.WriteString("\n\t")
		b.WriteString(fr.String())
	}
	return b.String()
}

// startupHint says how to fix a start-up failure wafer recognises: a Go
// program built as a command (its exports run before the runtime, which
// only _start starts, is initialised).
func startupHint(f *Failure) string {
	for _, fr := range f.Stack {
		if fr.Func == "runtime.notInitialized" {
			return "\n(a Go program's exports need the Go runtime started: build it as a reactor, GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared)"
		}
	}
	return ""
}
