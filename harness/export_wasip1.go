//go:build wasip1

package harness

import (
	"runtime"
	"unsafe"
)

// buf is the input buffer handed out by malloc. Go's garbage collector does
// not move objects, and buf keeps the latest one reachable, so the pointer
// stays valid until the next malloc.
var buf []byte

// A Go program's first call does work that later calls do not: its heap
// grows (memory.grow) and its goroutine stack grows (a copy, which walks
// every frame's tables). In wafer's restore mode every run is such a first
// call, since each starts from the snapshot taken after malloc: on
// examples/gojson a run then cost 13,239 fuel against 5,240 for a warm
// one, and each run of gopng grew memory, which only a new instance can
// undo (0.9 ms a run). warmUp does that work once, in malloc's first
// call, before the snapshot: a gojson run then costs 10,822 fuel (the
// rest is the target's own caches, such as encoding/json's per-type
// encoders, and the allocator's spans), and neither grows memory
// (runtime's TestGoWarmSnapshot). Filling the allocator's span caches
// too (one object of every size class) took gojson to 9,174, but made
// each gopng run collect garbage (2.5 times the fuel): cached spans count
// as allocated, which brings the next collection closer.
const (
	// heapHeadroom: Go's smallest GC goal (4 MiB).
	heapHeadroom = 4 << 20
	// stackFrames of about 1 KiB each grow the goroutine stack to 64 KiB.
	stackFrames = 56
)

// warmed records that malloc has run warmUp.
var warmed bool

// malloc returns a buffer of at least size bytes for the host to write an
// input into. wafer's runtime calls it once per instance (or again with a
// larger size); the previous buffer is released.
//
//go:wasmexport malloc
func malloc(size int32) int32 {
	if !warmed {
		warmed = true
		warmUp()
	}
	if size < 1 {
		size = 1
	}
	if int(size) > cap(buf) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	return int32(uintptr(unsafe.Pointer(&buf[0])))
}

// warmUp grows the heap by heapHeadroom bytes (allocated, then collected:
// the pages stay in Go's heap, free, as wasm memory is never returned),
// then the goroutine stack (after the collection, which may shrink it).
func warmUp() {
	b := make([]byte, heapHeadroom)
	b[len(b)-1] = 1
	runtime.KeepAlive(b)
	runtime.GC()
	growStack(stackFrames)
}

// growStack recurses n frames of about 1 KiB.
//
//go:noinline
func growStack(n int) byte {
	var pad [1024]byte
	pad[n&1023] = byte(n)
	if n > 0 {
		return growStack(n-1) + pad[(n*7)&1023]
	}
	return pad[1]
}

// testOneInput runs the fuzz function on the size bytes at ptr. ptr must lie
// inside the buffer returned by malloc (any other pointer is read directly,
// which is what libFuzzer-style hosts expect, but is not kept alive).
//
//go:wasmexport LLVMFuzzerTestOneInput
func testOneInput(ptr, size int32) int32 {
	if fuzz == nil {
		// Loud rather than every input silently invalid.
		panic("harness: no fuzz function: call harness.Fuzz from an init function (main never runs in a reactor)")
	}
	if size < 0 {
		return -1
	}
	data := []byte{}
	if size > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
		if off := uintptr(ptr) - base; uintptr(ptr) >= base && off+uintptr(size) <= uintptr(cap(buf)) {
			data = buf[off : off+uintptr(size) : off+uintptr(size)]
		} else {
			// Not our buffer: trust the host, as libFuzzer hosts expect.
			data = unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), ptr)), size)
		}
	}
	return TestOneInput(data)
}
