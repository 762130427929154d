// Command memscale measures what the machine itself gives two threads that
// stream memory at once: per working-set size, the wall time of one
// goroutine copying between two private buffers against two goroutines
// doing the same work each, best of five rounds. A scaling of 2 means the
// cores share nothing that limits this work; below it, two fuzzing
// workers whose runs touch as much memory cannot reach twice one worker's
// speed on this machine, whatever the fuzzer does (docs/PERFORMANCE.md,
// "Two workers").
//
//	go run ./eval/memscale
package main

import (
	"fmt"
	"sync"
	"time"
)

// stream copies a buffer of n bytes into another iters times, alternating
// them, and changes one byte a round so no copy is skipped.
func stream(n, iters int) {
	a, b := make([]byte, n), make([]byte, n)
	for i := range iters {
		copy(b, a)
		a[i%n]++
		a, b = b, a
	}
}

// wall is the time k goroutines take to run f each, at once.
func wall(k int, f func()) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for range k {
		wg.Go(f)
	}
	wg.Wait()
	return time.Since(start)
}

func main() {
	for _, n := range []int{64 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20} {
		iters := (8 << 30) / n // 8 GiB copied per goroutine
		f := func() { stream(n, iters) }
		var one, two time.Duration
		for r := range 5 {
			d1, d2 := wall(1, f), wall(2, f)
			if r == 0 || d1 < one {
				one = d1
			}
			if r == 0 || d2 < two {
				two = d2
			}
		}
		fmt.Printf("2 x %4d KiB per goroutine: one alone %v, two at once %v: scaling %.2f\n",
			n>>10, one.Round(time.Millisecond), two.Round(time.Millisecond), 2*one.Seconds()/two.Seconds())
	}
}
