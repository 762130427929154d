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

// heapHeadroom is how far malloc's first call grows Go's heap before the
// host takes its snapshot: Go's smallest GC goal (4 MiB). Go's heap grows
// linear memory (memory.grow) whenever its free pages run out, and never
// gives memory back. In wafer's restore mode every run starts from the
// snapshot, so a run that needs more heap than the snapshot had free
// grows memory every time, and a memory that grew can only be restored on
// a new instance: on examples/gojson and gopng every run did, at 0.8 ms a
// run. With the headroom allocated and collected first, runs allocate
// from free pages (runtime's TestGoHeapHeadroom).
const heapHeadroom = 4 << 20

// grown records that malloc has grown the heap.
var grown bool

// malloc returns a buffer of at least size bytes for the host to write an
// input into. wafer's runtime calls it once per instance (or again with a
// larger size); the previous buffer is released.
//
//go:wasmexport malloc
func malloc(size int32) int32 {
	if !grown {
		grown = true
		growHeap()
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

// growHeap allocates heapHeadroom bytes, drops them and collects them, so
// that Go's heap keeps them as free pages (wasm memory is never returned).
// The allocation is written to, so the compiler cannot remove it.
//
//go:noinline
func growHeap() {
	b := make([]byte, heapHeadroom)
	b[len(b)-1] = 1
	runtime.KeepAlive(b)
	runtime.GC()
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
