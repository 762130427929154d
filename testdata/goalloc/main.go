// Command goalloc is a wafer fixture: a bug-free Go reactor with the
// libFuzzer-style exports a user writes by hand (LLVMFuzzerTestOneInput,
// and a malloc and a free written in Go that hand out Go memory), reading
// its input with io.ReadAll and making large buffers. Its name section
// names malloc and free, but they are not a C allocator: wafer must not
// wrap them (issue 30; the heap check reported a heap-buffer-overflow in
// runtime.memclrNoHeapPointers under io.ReadAll before).
package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"unsafe"
)

// malloc hands out a Go buffer for the input. Nothing keeps it but the
// pointer the caller holds: wafer allocates the input buffer once, before
// its snapshot, and each run's LLVMFuzzerTestOneInput holds it (as a
// slice, which the collector follows) until io.ReadAll has copied it; the
// collector may then reuse it for the run's own allocations, and restore
// mode brings it back for the next run. That is sound Go, and exactly what
// a C allocator's guard cannot know: a redzone it put after the block is
// Go heap memory once the block is collected.
//
//go:wasmexport malloc
func malloc(n uint32) uint32 {
	b := make([]byte, n)
	if n == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}

// free leaves the buffer to the collector.
//
//go:wasmexport free
func free(p uint32) {}

//go:wasmexport LLVMFuzzerTestOneInput
func LLVMFuzzerTestOneInput(p, n uint32) int32 {
	in := unsafe.Slice((*byte)(unsafe.Pointer(uintptr(p))), n)
	data, err := io.ReadAll(bytes.NewReader(in))
	if err != nil {
		return -1
	}
	return decode(data)
}

// decode reads records: a 4-byte buffer size (at most 4 MiB), a length
// byte and that many bytes, copied to the start of a buffer of that size.
// It returns 0 when every record fits its buffer, -1 otherwise.
func decode(data []byte) int32 {
	var out [][]byte
	for len(data) >= 5 {
		size := binary.LittleEndian.Uint32(data) % (4 << 20)
		n := int(data[4])
		data = data[5:]
		if n > len(data) || uint32(n) > size {
			return -1
		}
		buf := make([]byte, size)
		copy(buf, data[:n])
		data = data[n:]
		out = append(out, buf)
		if len(out) > 8 {
			out = out[1:] // keep the last 8
		}
	}
	if len(out) == 0 {
		return -1
	}
	return 0
}

func main() {}
