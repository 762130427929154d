package runtime

import (
	"context"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// BenchmarkLoad measures a campaign's load of the largest Go example
// (gojson, 3.3 MB): the module's way from its bytes to the instrumented
// bytes ("prepare": own memory, reactor adaptation, instrumentation with
// the campaign's default options, the allocator's export) and on to a
// Target ready to run ("compiled", from a warm compilation cache, as
// every load after the first is).
//
//	go test ./runtime -run '^$' -bench Load -count 6
func BenchmarkLoad(b *testing.B) {
	wasm := fixture(b, "../examples/gojson/gojson.wasm")
	cfg := Config{CacheDir: b.TempDir()}
	b.Run("prepare", func(b *testing.B) {
		b.SetBytes(int64(len(wasm)))
		for b.Loop() {
			if _, err := loadBytes(wasm, cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compiled", func(b *testing.B) {
		ctx := context.Background()
		load := func() {
			p, err := loadBytes(wasm, cfg)
			if err != nil {
				b.Fatal(err)
			}
			tg, err := New(ctx, p, cfg)
			if err != nil {
				b.Fatal(err)
			}
			tg.Close(ctx)
		}
		load() // warm the cache
		b.ResetTimer()
		for b.Loop() {
			load()
		}
	})
}

// loadBytes is the wiring's way from a module's bytes to the bytes it
// compiles, under the campaign's default build.
func loadBytes(wasm []byte, cfg Config) (*instrument.Prepared, error) {
	s, err := instrument.Summarize(wasm)
	if err != nil {
		return nil, err
	}
	b := Preparation(s, cfg)
	b.Instrument = &instrument.Options{Fuel: true, DirtyPages: RestoresMemory(s, cfg), HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
	return instrument.Prepare(wasm, b)
}
