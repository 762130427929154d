package wasip1

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestConcurrentWorkers: one host module serves several goroutines, each
// with its own instances and State; every run sees only its own args,
// stdin, seed and output. Run under -race in CI.
func TestConcurrentWorkers(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t)
	compiled, err := r.CompileModule(ctx, baseWasm)
	if err != nil {
		t.Fatal(err)
	}
	const workers, runs = 4, 50
	// Expected output of each worker, from a sequential run.
	expect := func(w int) (stdout, stderr []byte) {
		s := workerState(w)
		runCommand(t, r, compiled, s)
		return s.Stdout.Bytes(), s.Stderr.Bytes()
	}
	var wantOut, wantErr [workers][]byte
	for w := range workers {
		wantOut[w], wantErr[w] = expect(w)
		if w > 0 && bytes.Equal(wantOut[w], wantOut[0]) {
			t.Fatal("workers' expected outputs coincide; the test would prove nothing")
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := workerState(w)
			sctx := WithState(ctx, s)
			for i := range runs {
				s.Reset()
				_, err := r.InstantiateModule(sctx, compiled, wazero.NewModuleConfig().WithName(""))
				if s.ExitCode != 3 || err == nil {
					errs <- fmt.Errorf("worker %d run %d: expected exit 3, got %d (%v)", w, i, s.ExitCode, err)
					return
				}
				if !bytes.Equal(s.Stdout.Bytes(), wantOut[w]) || !bytes.Equal(s.Stderr.Bytes(), wantErr[w]) {
					errs <- fmt.Errorf("worker %d run %d: output differs from the sequential run", w, i)
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

func workerState(w int) *State {
	return &State{
		Base:   65536,
		Args:   []string{"base", fmt.Sprint("worker-", w)},
		Stdin:  []byte(fmt.Sprint("stdin of worker ", w)),
		Seed:   uint64(w),
		Stdout: NewTailBuffer(256),
		Stderr: NewTailBuffer(256),
	}
}
