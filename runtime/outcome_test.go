package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestKindTables: every kind has its own name and a sentinel error.
func TestKindTables(t *testing.T) {
	seen := map[string]Kind{}
	for k := KindNone + 1; k <= KindTimeout; k++ {
		name := k.String()
		if prev, dup := seen[name]; dup || name == "" || strings.HasPrefix(name, "Kind(") {
			t.Errorf("kind %d: name %q (also kind %d)", k, name, prev)
		}
		seen[name] = k
		if k.Err() == nil {
			t.Errorf("kind %v: no sentinel error", k)
		}
	}
	if !errors.Is(&Failure{Kind: KindRustPanic}, ErrRustPanic) || !errors.Is(&Failure{Kind: KindTimeout}, ErrHang) {
		t.Error("errors.Is does not match a failure's sentinel")
	}
}
