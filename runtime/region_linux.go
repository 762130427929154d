//go:build linux

package runtime

import (
	"encoding/binary"
	"math"
	"os"
	"slices"
	"syscall"
	"unsafe"
)

// osReserve reserves n bytes of address space, inaccessible until
// committed: no memory is charged for them (MAP_NORESERVE, PROT_NONE).
func osReserve(n uint64) ([]byte, bool) {
	n = (n + osPage - 1) &^ (osPage - 1)
	if n == 0 || n > math.MaxInt {
		return nil, false
	}
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return b, true
}

// osCommit makes reserved pages readable and writable (zero until written).
func osCommit(b []byte) bool {
	return len(b) == 0 || syscall.Mprotect(b, syscall.PROT_READ|syscall.PROT_WRITE) == nil
}

// osDiscard zeroes committed whole pages by handing them back to the OS.
func osDiscard(b []byte) bool {
	return len(b) == 0 || syscall.Madvise(b, syscall.MADV_DONTNEED) == nil
}

// osRelease unmaps a region.
func osRelease(b []byte) { _ = syscall.Munmap(b) }

// osTouched reports, for each 4 KiB page of b (page-aligned), whether it
// may hold a non-zero byte: it is in memory or swapped out
// (/proc/self/pagemap). A page never written (or handed back by
// osDiscard) is neither, and reads as zero. Reading it to find out
// would make it resident on kernels that map no shared zero page for
// reads. ok is false when the map cannot be read: read the bytes.
func osTouched(b []byte, touched []bool) ([]bool, bool) {
	if len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%osPage != 0 {
		return nil, false
	}
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	n := (len(b) + osPage - 1) / osPage
	buf := make([]byte, 8*n)
	at := int64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) / osPage * 8)
	if _, err := f.ReadAt(buf, at); err != nil {
		return nil, false
	}
	touched = slices.Grow(touched[:0], n)[:n]
	for i := range n {
		e := binary.LittleEndian.Uint64(buf[8*i:])
		touched[i] = e&(3<<62) != 0 // present or swapped
	}
	return touched, true
}
