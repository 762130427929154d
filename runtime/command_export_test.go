package runtime

import (
	"context"
	"reflect"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestCommandExports: a C++ target linked as a command has every export
// wrapped in its constructors and destructors (testdata/cxxcommand). As
// Preparation and instrument.Prepare make it, with or without a name section, the constructors
// run once per instance (the harness aborts otherwise), global state is
// restored between runs, and a trap is the target's.
func TestCommandExports(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"command", "stripped"} {
		t.Run(name, func(t *testing.T) {
			wasm := fixture(t, "cxxcommand/"+name+".wasm")
			cfg := testConfig(t, Config{})
			plain := prepare(t, wasm, cfg, nil)
			if want := []string{"LLVMFuzzerTestOneInput", "malloc"}; !reflect.DeepEqual(plain.Unwrapped, want) {
				t.Fatalf("unwrapped %q, want %q", plain.Unwrapped, want)
			}
			if again := prepare(t, plain.Wasm, cfg, nil); again.Unwrapped != nil {
				t.Errorf("a second preparation moved %q", again.Unwrapped)
			}
			opts := fullOpts
			inst := prepare(t, wasm, cfg, &opts)
			if want := []string{"LLVMFuzzerTestOneInput", "malloc"}; !reflect.DeepEqual(inst.Unwrapped, want) {
				t.Fatalf("instrumented: unwrapped %q, want %q", inst.Unwrapped, want)
			}
			for _, m := range []struct {
				name string
				p    *instrument.Prepared
			}{{"plain", plain}, {"instrumented", inst}} {
				tg, err := New(ctx, m.p, cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer tg.Close(ctx)
				w := worker(t, tg)
				for _, step := range []struct {
					in   string
					want Outcome
				}{{"x", Valid}, {"x", Valid}, {"ab", Invalid}, {"crash", Crash}, {"x", Valid}} {
					res := run(t, w, step.in)
					if res.Outcome != step.want {
						t.Fatalf("%s: %q: %v %v, want %v", m.name, step.in, res.Outcome, res.Failure, step.want)
					}
					if step.want == Crash && res.Failure.Kind != KindUnreachable {
						t.Errorf("%s: %q: %v, want an unreachable trap", m.name, step.in, res.Failure)
					}
				}
			}
		})
	}
	// As linked, the constructors run again on every call: the harness
	// aborts. This is what Preparation's Initialize is for.
	tg := load(t, "cxxcommand/command.wasm", meta{}, Config{})
	if res := run(t, worker(t, tg), "x"); res.Outcome != Crash || res.Failure.Kind != KindAbort {
		t.Errorf("the wrapped target: %v %v, want the harness's abort", res.Outcome, res.Failure)
	}
}
