//go:build linux && (amd64 || arm64)

package cli

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// The ioctls of the inode flags (linux/fs.h) and the immutable flag.
const (
	fsIocGetFlags = 0x80086601
	fsIocSetFlags = 0x40086602
	fsImmutableFl = 0x10
)

// makeReadOnly makes dir refuse new files until the test ends: its
// permission bits, or for root (whom they do not stop) its immutable
// attribute; the test is skipped when neither is possible.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	setFlags := func(on bool) error {
		f, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer f.Close()
		var flags int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocGetFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
			return e
		}
		if on {
			flags |= fsImmutableFl
		} else {
			flags &^= fsImmutableFl
		}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocSetFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
			return e
		}
		return nil
	}
	if err := setFlags(true); err != nil {
		t.Skipf("running as root, whom permission bits do not stop, and the immutable attribute is unavailable here (%v)", err)
	}
	t.Cleanup(func() {
		if err := setFlags(false); err != nil {
			t.Errorf("%s: clearing the immutable attribute: %v", dir, err)
		}
	})
}
