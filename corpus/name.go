package corpus

import (
	"fmt"
	"strconv"
	"strings"
)

// entryName builds an AFL-style name:
// "id:000042,src:000017,op:zest,+cov" for the queue and
// "id:000003,kind:unreachable,src:000042,op:havoc" for failures.
func entryName(id int, kind string, parents []int, op string, newCov bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id:%06d", id)
	if kind != "" {
		b.WriteString(",kind:")
		b.WriteString(sanitize(kind, 32))
	}
	if len(parents) > 0 {
		b.WriteString(",src:")
		for i, p := range parents {
			if i > 0 {
				b.WriteByte('+')
			}
			fmt.Fprintf(&b, "%06d", p)
		}
	}
	if op != "" {
		b.WriteString(",op:")
		b.WriteString(sanitize(op, 48))
	}
	if newCov {
		b.WriteString(",+cov")
	}
	return b.String()
}

// sanitize keeps a name part safe in a file name: no separators, no
// control characters, no leading dot, bounded length.
func sanitize(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == '_', r == '-', r == '.', r == ':', r == '+':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ParseID returns the id of an AFL-style name ("id:000042,..." or AFL's
// own "id:000042,time:...,orig:x"). ok is false for other names.
func ParseID(name string) (id int, ok bool) {
	rest, found := strings.CutPrefix(name, "id:")
	if !found {
		return 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end > 9 || (end < len(rest) && rest[end] != ',') {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0, false
	}
	return n, true
}
