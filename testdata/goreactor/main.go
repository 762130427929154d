// Command goreactor is a wafer fixture: a Go reactor fuzz target written with
// the harness package. The first input byte selects a behaviour.
package main

import (
	"errors"
	"runtime"

	"github.com/wafer-fuzz/wafer/harness"
)

var sink map[string]int

func init() {
	harness.Fuzz(fuzz)
}

func fuzz(data []byte) error {
	if len(data) == 0 {
		return errors.New("empty input")
	}
	switch data[0] {
	case 'P':
		panicWithMessage(data)
	case 'I':
		return indexOutOfRange(data)
	case 'M':
		nilMapWrite(data)
	case 'L':
		loopForever(data)
	case 'X':
		return errors.New("rejected")
	case 'D':
		deadlock()
	case 'C':
		return cached(data)
	case 'R':
		deep(300) // a goroutine trace of over 4 KiB: past stderr's tail
	case 'G':
		runtime.Goexit() // a fatal error with no goroutine trace
	}
	return nil
}

//go:noinline
func deep(n int) int {
	if n == 0 {
		panic("wafer fixture deep panic")
	}
	return deep(n-1) + 1
}

//go:noinline
func panicWithMessage(data []byte) {
	panic("wafer fixture panic: " + string(data[1:]))
}

//go:noinline
func indexOutOfRange(data []byte) error {
	i := int(data[0]) // 'I' = 73
	if data[i] == 0 {
		return errors.New("zero")
	}
	return nil
}

//go:noinline
func nilMapWrite(data []byte) {
	sink[string(data)] = len(data)
}

//go:noinline
func loopForever(data []byte) {
	n := 0
	for i := 0; ; i++ {
		if data[i%len(data)] == 1 {
			n++
		}
		if n < 0 {
			return
		}
	}
}

var table map[int]int

// cached builds a table on first use, as caches in real code do.
//
//go:noinline
func cached(data []byte) error {
	if table == nil {
		table = map[int]int{}
		for i := 0; i < 10000; i++ {
			table[i] = i * i
		}
	}
	if table[len(data)] == 0 {
		return errors.New("zero")
	}
	return nil
}

//go:noinline
func deadlock() {
	ch := make(chan int)
	<-ch
}

func main() {}
