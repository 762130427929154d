package runtime

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentWorkers hammers one Target from several goroutines, each
// with its own Worker: every worker must see the same results as a
// sequential reference (run it with -race).
func TestConcurrentWorkers(t *testing.T) {
	tg := loadInstrumented(t, "clib/clib.wasm", fullOpts, Config{Fuel: 1 << 16, MaxInputLen: 256})
	inputs := []string{"V", "Pa", "D", "X", "L", "O", "Pbb", ""}
	ref := map[string]outcomeKey{}
	w0 := worker(t, tg)
	for _, in := range inputs {
		ref[in] = keyOf(run(t, w0, in))
	}
	runs := 200
	if testing.Short() {
		runs = 40
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			w, err := tg.NewWorker(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer w.Close(ctx)
			for i := range runs {
				in := inputs[(i+g)%len(inputs)]
				r, err := w.Run(ctx, []byte(in))
				if err != nil {
					errs <- err
					return
				}
				if k := keyOf(r); k != ref[in] {
					errs <- fmt.Errorf("goroutine %d run %d %q: expected %s, got %s", g, i, in, describe(ref[in]), describe(k))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
