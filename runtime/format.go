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
