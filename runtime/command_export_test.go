package runtime

import (
	"context"
	"reflect"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestCommandExports: a C++ target linked as a command has every export
// wrapped in its constructors and destructors (testdata/cxxcommand). As
// AsReactor prepares it, with or without a name section, the constructors
// run once per instance (the harness aborts otherwise), global state is
// restored between runs, and a trap is the target's.
func TestCommandExports(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"command", "stripped"} {
		t.Run(name, func(t *testing.T) {
			wasm := fixture(t, "cxxcommand/"+name+".wasm")
			cfg := testConfig(t, Config{})
			out, unwrapped, err := AsReactor(wasm, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"LLVMFuzzerTestOneInput", "malloc"}; !reflect.DeepEqual(unwrapped, want) {
				t.Fatalf("unwrapped %q, want %q", unwrapped, want)
			}
			if again, moved, _ := AsReactor(out, cfg); moved != nil || len(again) != len(out) {
				t.Errorf("a second AsReactor moved %q", moved)
			}
			inst, sm, err := instrument.Instrument(out, fullOpts)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []struct {
				name string
				wasm []byte
				sm   *instrument.SiteMap
			}{{"plain", out, nil}, {"instrumented", inst, sm}} {
				tg, err := New(ctx, m.wasm, m.sm, cfg)
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
	// aborts. This is what AsReactor is for.
	tg := load(t, "cxxcommand/command.wasm", meta{}, Config{})
	if res := run(t, worker(t, tg), "x"); res.Outcome != Crash || res.Failure.Kind != KindAbort {
		t.Errorf("the wrapped target: %v %v, want the harness's abort", res.Outcome, res.Failure)
	}
}
