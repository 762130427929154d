package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// TestKindTables: every kind has its own name, which ParseKind reads
// back, and a sentinel error.
func TestKindTables(t *testing.T) {
	seen := map[string]Kind{}
	for k := KindNone + 1; k <= KindGoTestFail; k++ {
		name := k.String()
		if prev, dup := seen[name]; dup || name == "" || strings.HasPrefix(name, "Kind(") {
			t.Errorf("kind %d: name %q (also kind %d)", k, name, prev)
		}
		seen[name] = k
		if got, err := ParseKind(name); err != nil || got != k {
			t.Errorf("ParseKind(%q): expected %d, got %d, %v", name, k, got, err)
		}
		if k.Err() == nil {
			t.Errorf("kind %v: no sentinel error", k)
		}
	}
	if got := (KindGoTestFail + 1).String(); got != "Kind(27)" {
		t.Errorf("a kind past the table: expected \"Kind(27)\", got %q", got)
	}
	if !errors.Is(&Failure{Kind: KindRustPanic}, ErrRustPanic) || !errors.Is(&Failure{Kind: KindTimeout}, ErrHang) {
		t.Error("errors.Is does not match a failure's sentinel")
	}
}

// TestParseNames: the names the CLI's --harness and --reset take, and the
// errors for others.
func TestParseNames(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want Harness
	}{{"auto", HarnessAuto}, {"libfuzzer", HarnessLibFuzzer}, {"go", HarnessGo}, {"command", HarnessCommand}} {
		if got, err := ParseHarness(tc.s); err != nil || got != tc.want || got.String() != tc.s {
			t.Errorf("ParseHarness(%q): expected %v, got %v, %v", tc.s, tc.want, got, err)
		}
	}
	for _, tc := range []struct {
		s    string
		want Reset
	}{{"restore", Restore}, {"fresh", Fresh}, {"persistent", Persistent}} {
		if got, err := ParseReset(tc.s); err != nil || got != tc.want || got.String() != tc.s {
			t.Errorf("ParseReset(%q): expected %v, got %v, %v", tc.s, tc.want, got, err)
		}
	}
	if _, err := ParseHarness("wasi"); err == nil || err.Error() != `unknown harness "wasi": expected one of auto, libfuzzer, go, command` {
		t.Errorf("ParseHarness(\"wasi\"): got %v", err)
	}
	// ResetDefault has no name: "" is no mode.
	if _, err := ParseReset(""); err == nil || err.Error() != `unknown reset mode "": expected one of restore, fresh, persistent` {
		t.Errorf("ParseReset(\"\"): got %v", err)
	}
	if (Config{}).reset() != Restore || (Config{Reset: Fresh}).reset() != Fresh {
		t.Error("Config.reset: ResetDefault is not Restore, or another mode is not kept")
	}
}

// TestFailureidKinds: the kind names internal/failureid branches on are
// runtime's names of those kinds.
func TestFailureidKinds(t *testing.T) {
	for name, want := range map[string]Kind{
		failureid.KindStackExhausted: KindStackExhausted,
		failureid.KindOutOfMemory:    KindOutOfMemory,
		failureid.KindMallocLimit:    KindMallocLimit,
		failureid.KindFuel:           KindFuel,
		failureid.KindGoPanic:        KindGoPanic,
		failureid.KindGoFatal:        KindGoFatal,
	} {
		if got, err := ParseKind(name); err != nil || got != want {
			t.Errorf("failureid's %q: expected runtime's %v, got %v, %v", name, want, got, err)
		}
	}
}
