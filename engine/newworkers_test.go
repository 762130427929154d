package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// closingExec is a fakeExec that counts its Close calls.
type closingExec struct {
	*fakeExec
	closed *atomic.Int64
}

func (e *closingExec) Close(context.Context) error { e.closed.Add(1); return nil }

// closingComparer compares nothing and counts its Close calls.
type closingComparer struct{ closed *atomic.Int64 }

func (c *closingComparer) Compare(context.Context, []byte) ([]Operands, *Failure, error) {
	return nil, nil, nil
}
func (c *closingComparer) Close(context.Context) error { c.closed.Add(1); return nil }

// TestNewWorkersConcurrent: the workers' executors are made at the same
// time (each call waits until all have started: made one after another
// they would never all start), and when some fail, Fuzz returns the
// lowest failing worker's error with every executor and comparer it got
// closed, and nothing else.
func TestNewWorkersConcurrent(t *testing.T) {
	const workers = 4
	var started sync.WaitGroup
	started.Add(workers)
	var made, closed atomic.Int64
	exec := func(ctx context.Context, w int) (Executor, error) {
		if w < workers {
			started.Done()
			started.Wait()
		}
		made.Add(1)
		return &closingExec{fakeExec: &fakeExec{t: magicTarget, c: make(fakeCov, magicTarget.sites)}, closed: &closed}, nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 2000, Workers: workers}}, Deps{NewExecutor: exec})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the workers' executors were not made concurrently (Fuzz did not return)")
	}
	if made.Load() != closed.Load() {
		t.Fatalf("%d executors made, %d closed", made.Load(), closed.Load())
	}

	for _, failCmp := range []bool{false, true} {
		var made, closed, cmpMade, cmpClosed atomic.Int64
		exec := func(ctx context.Context, w int) (Executor, error) {
			if !failCmp && (w == 1 || w == 3) {
				return nil, errors.New("no instance")
			}
			made.Add(1)
			return &closingExec{fakeExec: &fakeExec{t: magicTarget, c: make(fakeCov, magicTarget.sites)}, closed: &closed}, nil
		}
		cmp := func(ctx context.Context, w int) (Comparer, error) {
			if failCmp && (w == 1 || w == 3) {
				return nil, errors.New("no comparer")
			}
			cmpMade.Add(1)
			return &closingComparer{closed: &cmpClosed}, nil
		}
		sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 100, Workers: workers}}, Deps{NewExecutor: exec, NewComparer: cmp})
		want := "worker 1: no instance"
		if failCmp {
			want = "worker 1: comparer: no comparer"
		}
		if sum != nil || err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("failing comparer %v: expected no summary and an error with %q, got %v, %v", failCmp, want, sum, err)
		}
		if made.Load() != closed.Load() || cmpMade.Load() != cmpClosed.Load() {
			t.Fatalf("failing comparer %v: %d executors made, %d closed; %d comparers made, %d closed",
				failCmp, made.Load(), closed.Load(), cmpMade.Load(), cmpClosed.Load())
		}
		if made.Load() == 0 {
			t.Fatalf("failing comparer %v: no executor made", failCmp)
		}
	}
}
