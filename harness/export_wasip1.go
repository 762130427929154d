//go:build wasip1

package harness

import "unsafe"

// buf is the input buffer handed out by malloc. Go's garbage collector does
// not move objects, and buf keeps the latest one reachable, so the pointer
// stays valid until the next malloc.
var buf []byte

// malloc returns a buffer of at least size bytes for the host to write an
// input into. wafer's runtime calls it once per instance (or again with a
// larger size); the previous buffer is released.
//
//go:wasmexport malloc
func malloc(size int32) int32 {
	if size < 1 {
		size = 1
	}
	if int(size) > cap(buf) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	return int32(uintptr(unsafe.Pointer(&buf[0])))
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
