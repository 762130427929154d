//go:build linux

package runtime

import (
	"math"
	"syscall"
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
