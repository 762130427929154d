//go:build waferscans

package campaign

import (
	"context"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestScansPerBuild counts the passes over a module's bytes (decodes and
// walks of the section headers, instrument.Scans) that Load and the builds
// of a campaign make: Load reads the module once, and the runtime never
// reads it (the Summary tells it what it needs); each build decodes it
// once (instrument.Prepare), and a plain build that changes sections walks
// their headers once more to splice them in.
//
//	go test -tags waferscans ./campaign -run TestScansPerBuild -v
func TestScansPerBuild(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name                 string
		load, counted, plain int64
	}{
		{"tlv", 1, 1, 2},    // a C reactor: its plain build exports its stack pointer
		{"gojson", 1, 1, 1}, // a Go reactor
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := readFile(t, "../examples/"+tc.name+"/"+tc.name+".wasm")
			before := instrument.Scans()
			tg, err := Load(tc.name, wasm, TargetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tg.Harness()
			tg.NoNamesInfo()
			load := instrument.Scans() - before
			scans := func(b build) int64 {
				before := instrument.Scans()
				rt, _, err := tg.compile(ctx, b, 0, ResetDefault, true)
				if err != nil {
					t.Fatal(err)
				}
				rt.Close(ctx)
				return instrument.Scans() - before
			}
			counted, plain := scans(buildCounters), scans(buildPlain)
			t.Logf("passes over the bytes: Load, Harness and NoNamesInfo %d, counters build %d, plain build %d", load, counted, plain)
			if load != tc.load || counted != tc.counted || plain != tc.plain {
				t.Errorf("expected %d, %d and %d", tc.load, tc.counted, tc.plain)
			}
		})
	}
}
