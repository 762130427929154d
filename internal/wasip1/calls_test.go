package wasip1

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero/sys"
)

// The unit tests call each host function through testdata/forward.wasm
// with State.Base = G, as for an instrumented module with one reserved
// page: guest address p is real address G+p, and the guest's memory is the
// 2 pages above G, so guest addresses >= guestSize fault.
const (
	G         = 65536
	guestSize = 2 * 65536
)

func TestArgsEnviron(t *testing.T) {
	for _, tc := range []struct {
		name       string
		list       []string
		getFn      string
		sizesFn    string
		vec, buf   uint32
		wantErrno  Errno
		wantCount  uint32
		wantSize   uint32
		wantStored string
	}{
		{"args", []string{"prog", "-v", "@@"}, "args_get", "args_sizes_get", 0x100, 0x200, ErrnoSuccess, 3, 11, "prog\x00-v\x00@@\x00"},
		{"env", []string{"A=1", "PATH="}, "environ_get", "environ_sizes_get", 0x100, 0x200, ErrnoSuccess, 2, 10, "A=1\x00PATH=\x00"},
		{"empty", nil, "args_get", "args_sizes_get", 0x100, 0x200, ErrnoSuccess, 0, 0, ""},
		{"vec out of range", []string{"a", "b"}, "args_get", "args_sizes_get", guestSize - 4, 0x200, ErrnoFault, 2, 4, ""},
		{"buf out of range", []string{"abc"}, "environ_get", "environ_sizes_get", 0x100, guestSize - 3, ErrnoFault, 1, 4, ""},
		{"buf wraps", []string{"abc"}, "args_get", "args_sizes_get", 0x100, 0xffffffff, ErrnoFault, 1, 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFwd(t)
			s := &State{Base: G, Args: tc.list, Env: tc.list}
			if got := f.call(s, tc.sizesFn, 0x10, 0x14); got != ErrnoSuccess {
				t.Fatalf("%s: expected success, got %v", tc.sizesFn, got)
			}
			if c, n := f.u32(G+0x10), f.u32(G+0x14); c != tc.wantCount || n != tc.wantSize {
				t.Fatalf("%s: expected (%d, %d), got (%d, %d)", tc.sizesFn, tc.wantCount, tc.wantSize, c, n)
			}
			before := f.get(0, 3*65536)
			got := f.call(s, tc.getFn, uint64(tc.vec), uint64(tc.buf))
			if got != tc.wantErrno {
				t.Fatalf("%s: expected %v, got %v", tc.getFn, tc.wantErrno, got)
			}
			if got != ErrnoSuccess {
				if !bytes.Equal(before, f.get(0, 3*65536)) {
					t.Errorf("%s: memory changed on %v", tc.getFn, got)
				}
				return
			}
			if s := string(f.get(G+tc.buf, tc.wantSize)); s != tc.wantStored {
				t.Errorf("buffer: expected %q, got %q", tc.wantStored, s)
			}
			off := tc.buf
			for i, a := range tc.list {
				if p := f.u32(G + tc.vec + 4*uint32(i)); p != off {
					t.Errorf("pointer %d: expected guest address %#x, got %#x", i, off, p)
				}
				off += uint32(len(a)) + 1
			}
			if z := f.get(0, G); bytes.ContainsFunc(z, func(r rune) bool { return r != 0 }) {
				t.Error("reserved page written")
			}
		})
	}
}

func TestClock(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G}
	const p = 0x40
	for i, tc := range []struct {
		id    uint64
		want  uint64
		errno Errno
	}{
		{clockMonotonic, 1 * DefaultClockStep, ErrnoSuccess},
		{clockMonotonic, 2 * DefaultClockStep, ErrnoSuccess},
		{clockRealtime, DefaultClockEpoch + 3*DefaultClockStep, ErrnoSuccess},
		{clockProcessCPUTime, 4 * DefaultClockStep, ErrnoSuccess},
		{4, 0, ErrnoInval},
	} {
		if got := f.call(s, "clock_time_get", tc.id, 0, p); got != tc.errno {
			t.Fatalf("call %d: expected %v, got %v", i, tc.errno, got)
		}
		if tc.errno == ErrnoSuccess {
			if got := f.u64(G + p); got != tc.want {
				t.Errorf("call %d (clock %d): expected %d, got %d", i, tc.id, tc.want, got)
			}
		}
	}
	// A faulting call does not advance the clock.
	if got := f.call(s, "clock_time_get", clockMonotonic, 0, guestSize-7); got != ErrnoFault {
		t.Fatalf("expected fault, got %v", got)
	}
	f.call(s, "clock_time_get", clockMonotonic, 0, p)
	if got := f.u64(G + p); got != 5*DefaultClockStep {
		t.Errorf("after fault: expected %d, got %d", 5*DefaultClockStep, got)
	}
	if got := f.call(s, "clock_res_get", clockRealtime, p); got != ErrnoSuccess || f.u64(G+p) != DefaultClockStep {
		t.Errorf("clock_res_get: expected success %d, got %v %d", DefaultClockStep, got, f.u64(G+p))
	}
	// Custom epoch and step; Reset restarts the clock.
	s2 := &State{Base: G, ClockEpoch: 1e18, ClockStep: 7}
	f.call(s2, "clock_time_get", clockRealtime, 0, p)
	f.call(s2, "clock_time_get", clockRealtime, 0, p)
	if got := f.u64(G + p); got != 1e18+14 {
		t.Errorf("custom clock: expected %d, got %d", uint64(1e18+14), got)
	}
	s2.Reset()
	f.call(s2, "clock_time_get", clockMonotonic, 0, p)
	if got := f.u64(G + p); got != 7 {
		t.Errorf("after Reset: expected 7, got %d", got)
	}
}

func TestRandom(t *testing.T) {
	f := newFwd(t)
	draw := func(s *State, n uint32) []byte {
		t.Helper()
		if got := f.call(s, "random_get", 0x100, uint64(n)); got != ErrnoSuccess {
			t.Fatalf("random_get: expected success, got %v", got)
		}
		return f.get(G+0x100, n)
	}
	a := &State{Base: G, Seed: 7}
	first := draw(a, 21)
	pcg := rand.NewPCG(7, 7^0x9e3779b97f4a7c15)
	var want []byte
	for range 3 {
		want = le.AppendUint64(want, pcg.Uint64())
	}
	if !bytes.Equal(first, want[:21]) {
		t.Errorf("stream: expected %x, got %x", want[:21], first)
	}
	second := draw(a, 21)
	if bytes.Equal(first, second) {
		t.Error("second draw repeats the first")
	}
	a.Reset()
	if got := draw(a, 21); !bytes.Equal(got, first) {
		t.Errorf("after Reset: expected %x, got %x", first, got)
	}
	if got := draw(&State{Base: G, Seed: 8}, 21); bytes.Equal(got, first) {
		t.Error("seed 8 gives seed 7's stream")
	}
	if got := f.call(a, "random_get", 0x100, 0); got != ErrnoSuccess {
		t.Errorf("empty: expected success, got %v", got)
	}
	if got := f.call(a, "random_get", guestSize-8, 9); got != ErrnoFault {
		t.Errorf("out of range: expected fault, got %v", got)
	}
}

func TestFdRead(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Stdin: []byte("hello, world")}
	// Two iovecs of 3 and 4 bytes.
	f.putIovecs(G+0x10, 0x100, 3, 0x200, 4)
	if got := f.call(s, "fd_read", 0, 0x10, 2, 0x20); got != ErrnoSuccess {
		t.Fatalf("expected success, got %v", got)
	}
	if n := f.u32(G + 0x20); n != 7 {
		t.Fatalf("nread: expected 7, got %d", n)
	}
	if a, b := f.get(G+0x100, 3), f.get(G+0x200, 4); string(a) != "hel" || string(b) != "lo, " {
		t.Errorf("expected %q %q, got %q %q", "hel", "lo, ", a, b)
	}
	f.call(s, "fd_read", 0, 0x10, 2, 0x20)
	if n := f.u32(G + 0x20); n != 5 || string(f.get(G+0x100, 3))+string(f.get(G+0x200, 2)) != "world" {
		t.Errorf("second read: expected 5 %q, got %d", "world", n)
	}
	f.call(s, "fd_read", 0, 0x10, 2, 0x20)
	if n := f.u32(G + 0x20); n != 0 {
		t.Errorf("at EOF: expected 0, got %d", n)
	}
	for _, tc := range []struct {
		name   string
		params []uint64
		want   Errno
	}{
		{"stdout", []uint64{1, 0x10, 2, 0x20}, ErrnoBadf},
		{"unknown fd", []uint64{9, 0x10, 2, 0x20}, ErrnoBadf},
		{"preopen absent", []uint64{3, 0x10, 2, 0x20}, ErrnoBadf},
		{"iovec array out of range", []uint64{0, guestSize - 8, 2, 0x20}, ErrnoFault},
		{"nread out of range", []uint64{0, 0x10, 2, guestSize}, ErrnoFault},
	} {
		if got := f.call(s, "fd_read", tc.params...); got != tc.want {
			t.Errorf("%s: expected %v, got %v", tc.name, tc.want, got)
		}
	}
	// An iovec whose buffer points outside memory.
	s.Reset()
	f.putIovecs(G+0x10, guestSize-2, 3)
	if got := f.call(s, "fd_read", 0, 0x10, 1, 0x20); got != ErrnoFault {
		t.Errorf("buffer out of range: expected fault, got %v", got)
	}
}

func TestFdWrite(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Stdout: NewTailBuffer(8), Stderr: NewTailBuffer(100)}
	f.put(G+0x100, []byte("abcdef"))
	f.put(G+0x200, []byte("XYZ"))
	f.putIovecs(G+0x10, 0x100, 6, 0x200, 3, 0x300, 0)
	for _, tc := range []struct {
		name   string
		params []uint64
		want   Errno
	}{
		{"stdout", []uint64{1, 0x10, 3, 0x20}, ErrnoSuccess},
		{"stderr", []uint64{2, 0x10, 2, 0x20}, ErrnoSuccess},
		{"stdin", []uint64{0, 0x10, 1, 0x20}, ErrnoBadf},
		{"fd 3", []uint64{3, 0x10, 1, 0x20}, ErrnoBadf},
		{"fd 1000", []uint64{1000, 0x10, 1, 0x20}, ErrnoBadf},
		{"iovec array out of range", []uint64{1, guestSize - 4, 1, 0x20}, ErrnoFault},
		{"nwritten out of range", []uint64{1, 0x10, 1, guestSize - 3}, ErrnoFault},
	} {
		if got := f.call(s, "fd_write", tc.params...); got != tc.want {
			t.Errorf("%s: expected %v, got %v", tc.name, tc.want, got)
		}
	}
	if got := s.Stdout.String(); got != "bcdefXYZ" || s.Stdout.Total() != 9 || !s.Stdout.Truncated() {
		t.Errorf("stdout: expected tail %q of 9, got %q of %d", "bcdefXYZ", got, s.Stdout.Total())
	}
	if got := s.Stderr.String(); got != "abcdefXYZ" {
		t.Errorf("stderr: expected %q, got %q", "abcdefXYZ", got)
	}
	if n := f.u32(G + 0x20); n != 9 {
		t.Errorf("nwritten: expected 9, got %d", n)
	}
	// nil buffers discard but succeed.
	if got := f.call(&State{Base: G}, "fd_write", 1, 0x10, 2, 0x20); got != ErrnoSuccess || f.u32(G+0x20) != 9 {
		t.Errorf("nil Stdout: expected success writing 9, got %v %d", got, f.u32(G+0x20))
	}
	// A buffer outside memory: EFAULT, and the valid iovec before it is
	// not written either.
	f.putIovecs(G+0x30, 0x100, 6, guestSize-1, 2)
	before := s.Stdout.Total()
	if got := f.call(s, "fd_write", 1, 0x30, 2, 0x20); got != ErrnoFault || s.Stdout.Total() != before {
		t.Errorf("buffer out of range: expected fault and nothing written, got %v and %d bytes", got, s.Stdout.Total()-before)
	}
	// Closed stdout: EBADF; Reset reopens it.
	f.call(s, "fd_close", 1)
	if got := f.call(s, "fd_write", 1, 0x10, 1, 0x20); got != ErrnoBadf {
		t.Errorf("closed stdout: expected badf, got %v", got)
	}
	s.Reset()
	if got := f.call(s, "fd_write", 1, 0x10, 1, 0x20); got != ErrnoSuccess {
		t.Errorf("after Reset: expected success, got %v", got)
	}
	if got := f.call(s, "fd_pwrite", 1, 0x10, 1, 0, 0x20); got != ErrnoSpipe {
		t.Errorf("fd_pwrite stdout: expected spipe, got %v", got)
	}
}

func testFiles() map[string][]byte {
	return map[string][]byte{
		"input":         []byte("0123456789"),
		"dir/a.txt":     []byte("A"),
		"dir/sub/b.txt": []byte("BB"),
		"/rooted":       []byte("R"),
	}
}

// open calls path_open on (dirfd, name) and returns the errno and fd.
func (f *fwd) open(s *State, dirfd uint32, name string, oflags, rights uint64, fdflags uint64) (Errno, uint32) {
	f.t.Helper()
	f.put(G+0x800, []byte(name))
	errno := f.call(s, "path_open", uint64(dirfd), 1, 0x800, uint64(len(name)), oflags, rights, 0, fdflags, 0x7f0)
	return errno, f.u32(G + 0x7f0)
}

func TestPathOpen(t *testing.T) {
	const read = rightFdRead | rightFdSeek
	for _, tc := range []struct {
		name    string
		path    string
		oflags  uint64
		rights  uint64
		fdflags uint64
		want    Errno
		content string
	}{
		{"file", "input", 0, read, 0, ErrnoSuccess, "0123456789"},
		{"nested", "dir/sub/b.txt", 0, read, 0, ErrnoSuccess, "BB"},
		{"key with leading slash", "rooted", 0, read, 0, ErrnoSuccess, "R"},
		{"dot segments", "./dir/../input", 0, read, 0, ErrnoSuccess, "0123456789"},
		{"cannot climb above root", "../../input", 0, read, 0, ErrnoSuccess, "0123456789"},
		{"directory", "dir", 0, read, 0, ErrnoSuccess, ""},
		{"root", ".", oflagDirectory, read, 0, ErrnoSuccess, ""},
		{"missing", "nope", 0, read, 0, ErrnoNoent, ""},
		{"etc/passwd", "etc/passwd", 0, read, 0, ErrnoNoent, ""},
		{"escape to etc/passwd", "../../../../etc/passwd", 0, read, 0, ErrnoNoent, ""},
		{"create missing", "new.txt", oflagCreat, read | rightFdWrite, 0, ErrnoRofs, ""},
		{"create existing", "input", oflagCreat, read, 0, ErrnoRofs, ""},
		{"truncate", "input", oflagTrunc, read, 0, ErrnoRofs, ""},
		{"exclusive", "input", oflagCreat | oflagExcl, read, 0, ErrnoRofs, ""},
		{"write right", "input", 0, read | rightFdWrite, 0, ErrnoRofs, ""},
		{"append", "input", 0, read, fdflagAppend, ErrnoRofs, ""},
		{"write to dir", "dir", 0, rightFdWrite, 0, ErrnoIsdir, ""},
		{"directory flag on file", "input", oflagDirectory, read, 0, ErrnoNotdir, ""},
		{"through a file", "input/x", 0, read, 0, ErrnoNoent, ""},
		{"nul in path", "in\x00put", 0, read, 0, ErrnoInval, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFwd(t)
			s := &State{Base: G, Files: testFiles()}
			errno, fd := f.open(s, fdPreopen, tc.path, tc.oflags, tc.rights, tc.fdflags)
			if errno != tc.want {
				t.Fatalf("expected %v, got %v", tc.want, errno)
			}
			if errno != ErrnoSuccess {
				return
			}
			if fd != fdFirst {
				t.Errorf("fd: expected %d, got %d", fdFirst, fd)
			}
			f.putIovecs(G+0x10, 0x100, 64)
			got := f.call(s, "fd_read", uint64(fd), 0x10, 1, 0x20)
			if tc.content == "" {
				if got != ErrnoIsdir {
					t.Errorf("read directory: expected isdir, got %v", got)
				}
				return
			}
			if n := f.u32(G + 0x20); got != ErrnoSuccess || string(f.get(G+0x100, n)) != tc.content {
				t.Errorf("read: expected %q, got %v %q", tc.content, got, f.get(G+0x100, n))
			}
		})
	}
	t.Run("no files no preopen", func(t *testing.T) {
		f := newFwd(t)
		if errno, _ := f.open(&State{Base: G}, fdPreopen, "input", 0, rightFdRead, 0); errno != ErrnoBadf {
			t.Errorf("expected badf, got %v", errno)
		}
	})
	t.Run("relative to opened dir", func(t *testing.T) {
		f := newFwd(t)
		s := &State{Base: G, Files: testFiles()}
		_, dir := f.open(s, fdPreopen, "dir", oflagDirectory, rightFdRead, 0)
		errno, fd := f.open(s, dir, "sub/b.txt", 0, rightFdRead, 0)
		if errno != ErrnoSuccess || fd != dir+1 {
			t.Fatalf("expected fd %d, got %v %d", dir+1, errno, fd)
		}
		if errno, _ := f.open(s, fd, "x", 0, rightFdRead, 0); errno != ErrnoNotdir {
			t.Errorf("open relative to a file: expected notdir, got %v", errno)
		}
		// Close frees the lowest slot for reuse.
		if got := f.call(s, "fd_close", uint64(dir)); got != ErrnoSuccess {
			t.Fatalf("close: %v", got)
		}
		if got := f.call(s, "fd_close", uint64(dir)); got != ErrnoBadf {
			t.Errorf("double close: expected badf, got %v", got)
		}
		if _, again := f.open(s, fdPreopen, "input", 0, rightFdRead, 0); again != dir {
			t.Errorf("expected reused fd %d, got %d", dir, again)
		}
	})
	t.Run("too many open files", func(t *testing.T) {
		f := newFwd(t)
		s := &State{Base: G, Files: testFiles()}
		for i := 0; i < maxOpenFiles; i++ {
			if errno, _ := f.open(s, fdPreopen, "input", 0, rightFdRead, 0); errno != ErrnoSuccess {
				t.Fatalf("open %d: %v", i, errno)
			}
		}
		if errno, _ := f.open(s, fdPreopen, "input", 0, rightFdRead, 0); errno != ErrnoMfile {
			t.Errorf("expected mfile, got %v", errno)
		}
		s.Reset()
		if errno, fd := f.open(s, fdPreopen, "input", 0, rightFdRead, 0); errno != ErrnoSuccess || fd != fdFirst {
			t.Errorf("after Reset: expected fd %d, got %v %d", fdFirst, errno, fd)
		}
	})
}

func TestSeekTellPread(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Files: testFiles()}
	_, fd := f.open(s, fdPreopen, "input", 0, rightFdRead, 0)
	for _, tc := range []struct {
		name        string
		off         int64
		whence      uint64
		want        Errno
		wantPos     uint64
		fd          uint32
		readContent string
	}{
		{"set", 3, whenceSet, ErrnoSuccess, 3, fd, "3456789"},
		{"cur back", -4, whenceCur, ErrnoSuccess, 6, fd, "6789"},
		{"end", -2, whenceEnd, ErrnoSuccess, 8, fd, "89"},
		{"past end", 5, whenceEnd, ErrnoSuccess, 15, fd, ""},
		{"negative", -1, whenceSet, ErrnoInval, 0, fd, ""},
		{"bad whence", 0, 3, ErrnoInval, 0, fd, ""},
		{"stdin", 0, whenceSet, ErrnoSpipe, 0, 0, ""},
		{"stdout", 0, whenceSet, ErrnoSpipe, 0, 1, ""},
		{"preopen", 0, whenceSet, ErrnoIsdir, 0, fdPreopen, ""},
		{"bad fd", 0, whenceSet, ErrnoBadf, 0, 77, ""},
	} {
		got := f.call(s, "fd_seek", uint64(tc.fd), uint64(tc.off), tc.whence, 0x30)
		if got != tc.want {
			t.Errorf("%s: expected %v, got %v", tc.name, tc.want, got)
			continue
		}
		if got != ErrnoSuccess {
			continue
		}
		if pos := f.u64(G + 0x30); pos != tc.wantPos {
			t.Errorf("%s: newoffset expected %d, got %d", tc.name, tc.wantPos, pos)
		}
		f.call(s, "fd_tell", uint64(fd), 0x38)
		if pos := f.u64(G + 0x38); pos != tc.wantPos {
			t.Errorf("%s: fd_tell expected %d, got %d", tc.name, tc.wantPos, pos)
		}
		f.putIovecs(G+0x10, 0x100, 64)
		f.call(s, "fd_read", uint64(fd), 0x10, 1, 0x20)
		if n := f.u32(G + 0x20); string(f.get(G+0x100, n)) != tc.readContent {
			t.Errorf("%s: read expected %q, got %q", tc.name, tc.readContent, f.get(G+0x100, n))
		}
	}
	// pread does not move the position.
	f.call(s, "fd_seek", uint64(fd), 1, whenceSet, 0x30)
	f.putIovecs(G+0x10, 0x100, 3)
	if got := f.call(s, "fd_pread", uint64(fd), 0x10, 1, 5, 0x20); got != ErrnoSuccess || string(f.get(G+0x100, f.u32(G+0x20))) != "567" {
		t.Errorf("pread: expected %q, got %v %q", "567", got, f.get(G+0x100, f.u32(G+0x20)))
	}
	f.call(s, "fd_tell", uint64(fd), 0x38)
	if pos := f.u64(G + 0x38); pos != 1 {
		t.Errorf("pread moved the position to %d", pos)
	}
	if got := f.call(s, "fd_pread", 0, 0x10, 1, 0, 0x20); got != ErrnoSpipe {
		t.Errorf("pread stdin: expected spipe, got %v", got)
	}
	if got := f.call(s, "fd_pwrite", uint64(fd), 0x10, 1, 0, 0x20); got != ErrnoBadf {
		t.Errorf("pwrite file: expected badf, got %v", got)
	}
	if got := f.call(s, "fd_write", uint64(fd), 0x10, 1, 0x20); got != ErrnoBadf {
		t.Errorf("write file: expected badf, got %v", got)
	}
}

func TestFdstatPrestat(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Files: testFiles()}
	_, file := f.open(s, fdPreopen, "input", 0, rightFdRead, 0)
	_, dir := f.open(s, fdPreopen, "dir", 0, rightFdRead, 0)
	for _, tc := range []struct {
		fd       uint32
		want     Errno
		filetype uint8
	}{
		{0, ErrnoSuccess, filetypeCharacterDevice},
		{1, ErrnoSuccess, filetypeCharacterDevice},
		{2, ErrnoSuccess, filetypeCharacterDevice},
		{fdPreopen, ErrnoSuccess, filetypeDirectory},
		{file, ErrnoSuccess, filetypeRegularFile},
		{dir, ErrnoSuccess, filetypeDirectory},
		{dir + 1, ErrnoBadf, 0},
	} {
		if got := f.call(s, "fd_fdstat_get", uint64(tc.fd), 0x40); got != tc.want {
			t.Errorf("fd %d: expected %v, got %v", tc.fd, tc.want, got)
			continue
		}
		if tc.want == ErrnoSuccess {
			if typ := f.get(G+0x40, 1)[0]; typ != tc.filetype {
				t.Errorf("fd %d: expected filetype %d, got %d", tc.fd, tc.filetype, typ)
			}
		}
	}
	// fd_fdstat_set_flags: NONBLOCK is recorded and reported back.
	if got := f.call(s, "fd_fdstat_set_flags", 0, fdflagNonblock); got != ErrnoSuccess {
		t.Fatalf("set nonblock on stdin: %v", got)
	}
	f.call(s, "fd_fdstat_get", 0, 0x40)
	if fl := le.Uint16(f.get(G+0x42, 2)); fl != fdflagNonblock {
		t.Errorf("flags: expected %d, got %d", fdflagNonblock, fl)
	}
	if got := f.call(s, "fd_fdstat_set_flags", uint64(file), fdflagAppend); got != ErrnoRofs {
		t.Errorf("append on file: expected rofs, got %v", got)
	}
	if got := f.call(s, "fd_fdstat_set_flags", 1, fdflagAppend); got != ErrnoSuccess {
		t.Errorf("append on stdout: expected success, got %v", got)
	}
	if got := f.call(s, "fd_fdstat_get", 0, guestSize-23); got != ErrnoFault {
		t.Errorf("fdstat out of range: expected fault, got %v", got)
	}

	// Prestat: fd 3 is "/", nothing else is a preopen.
	if got := f.call(s, "fd_prestat_get", fdPreopen, 0x50); got != ErrnoSuccess || f.get(G+0x50, 1)[0] != 0 || f.u32(G+0x54) != 1 {
		t.Errorf("prestat 3: expected dir of name length 1, got %v % x", got, f.get(G+0x50, 8))
	}
	if got := f.call(s, "fd_prestat_dir_name", fdPreopen, 0x60, 1); got != ErrnoSuccess || string(f.get(G+0x60, 1)) != "/" {
		t.Errorf("prestat name: expected %q, got %v %q", "/", got, f.get(G+0x60, 1))
	}
	for _, fd := range []uint32{0, 1, 2, file, dir, 99} {
		if got := f.call(s, "fd_prestat_get", uint64(fd), 0x50); got != ErrnoBadf {
			t.Errorf("prestat %d: expected badf, got %v", fd, got)
		}
	}
	if got := f.call(&State{Base: G}, "fd_prestat_get", fdPreopen, 0x50); got != ErrnoBadf {
		t.Errorf("prestat without files: expected badf, got %v", got)
	}
}

func TestFilestat(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Files: testFiles()}
	_, fd := f.open(s, fdPreopen, "dir/sub/b.txt", 0, rightFdRead, 0)
	check := func(name string, errno Errno, wantType uint8, wantSize uint64) {
		t.Helper()
		if errno != ErrnoSuccess {
			t.Errorf("%s: expected success, got %v", name, errno)
			return
		}
		if typ, size := f.get(G+0x100, 17)[16], f.u64(G+0x100+32); typ != wantType || size != wantSize {
			t.Errorf("%s: expected type %d size %d, got %d %d", name, wantType, wantSize, typ, size)
		}
		if mt := f.u64(G + 0x100 + 48); mt != DefaultClockEpoch {
			t.Errorf("%s: mtime expected %d, got %d", name, DefaultClockEpoch, mt)
		}
	}
	check("fd file", f.call(s, "fd_filestat_get", uint64(fd), 0x100), filetypeRegularFile, 2)
	check("fd stdin", f.call(s, "fd_filestat_get", 0, 0x100), filetypeCharacterDevice, 0)
	check("fd preopen", f.call(s, "fd_filestat_get", fdPreopen, 0x100), filetypeDirectory, 0)
	pathStat := func(name string) Errno {
		f.put(G+0x800, []byte(name))
		return f.call(s, "path_filestat_get", fdPreopen, 0, 0x800, uint64(len(name)), 0x100)
	}
	check("path file", pathStat("input"), filetypeRegularFile, 10)
	check("path dir", pathStat("dir/sub"), filetypeDirectory, 0)
	if got := pathStat("etc/passwd"); got != ErrnoNoent {
		t.Errorf("path missing: expected noent, got %v", got)
	}
	if got := f.call(s, "fd_filestat_get", 42, 0x100); got != ErrnoBadf {
		t.Errorf("bad fd: expected badf, got %v", got)
	}
	if got := f.call(s, "fd_filestat_get", 0, guestSize-63); got != ErrnoFault {
		t.Errorf("out of range: expected fault, got %v", got)
	}
}

// readdir decodes fd_readdir output into "name/type" strings, with the
// cookies seen.
func readdir(t *testing.T, f *fwd, s *State, fd uint32, bufLen uint32, cookie uint64) (names []string, used uint32) {
	t.Helper()
	if got := f.call(s, "fd_readdir", uint64(fd), 0x1000, uint64(bufLen), cookie, 0x20); got != ErrnoSuccess {
		t.Fatalf("fd_readdir: expected success, got %v", got)
	}
	used = f.u32(G + 0x20)
	b := f.get(G+0x1000, used)
	for len(b) >= 24 {
		n := le.Uint32(b[16:])
		if uint32(len(b)-24) < n {
			break // truncated last entry
		}
		names = append(names, string(b[24:24+n])+"/"+string('0'+b[20]))
		b = b[24+n:]
	}
	return names, used
}

func TestReaddir(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Files: testFiles()}
	root, _ := readdir(t, f, s, fdPreopen, 4096, 0)
	if want := []string{"dir/3", "input/4", "rooted/4"}; !slices.Equal(root, want) {
		t.Errorf("root: expected %v, got %v", want, root)
	}
	_, dir := f.open(s, fdPreopen, "dir", oflagDirectory, rightFdRead, 0)
	sub, _ := readdir(t, f, s, dir, 4096, 0)
	if want := []string{"a.txt/4", "sub/3"}; !slices.Equal(sub, want) {
		t.Errorf("dir: expected %v, got %v", want, sub)
	}
	// Cookie continues after the first entry.
	rest, _ := readdir(t, f, s, fdPreopen, 4096, 1)
	if want := []string{"input/4", "rooted/4"}; !slices.Equal(rest, want) {
		t.Errorf("cookie 1: expected %v, got %v", want, rest)
	}
	// A buffer too small: filled completely, the last entry cut.
	names, used := readdir(t, f, s, fdPreopen, 24+3+10, 0)
	if used != 37 || !slices.Equal(names, []string{"dir/3"}) {
		t.Errorf("small buffer: expected 37 bytes with [dir/3], got %d %v", used, names)
	}
	if got := f.call(s, "fd_readdir", 0, 0x1000, 100, 0, 0x20); got != ErrnoNotdir {
		t.Errorf("readdir stdin: expected notdir, got %v", got)
	}
	if got := f.call(s, "fd_readdir", fdPreopen, guestSize-10, 100, 0, 0x20); got != ErrnoFault {
		t.Errorf("readdir out of range: expected fault, got %v", got)
	}
}

func TestPollOneoff(t *testing.T) {
	const in, out, nev = 0x1000, 0x2000, 0x30
	type sub struct {
		userdata uint64
		tag      uint8
		clockID  uint32 // or fd
		timeout  uint64
		abs      bool
	}
	put := func(f *fwd, subs []sub) {
		b := make([]byte, subSize*len(subs))
		for i, s := range subs {
			e := b[i*subSize:]
			le.PutUint64(e, s.userdata)
			e[8] = s.tag
			le.PutUint32(e[16:], s.clockID)
			le.PutUint64(e[24:], s.timeout)
			if s.abs {
				le.PutUint16(e[40:], subclockAbstime)
			}
		}
		f.put(G+in, b)
	}
	type event struct {
		userdata uint64
		errno    Errno
		typ      uint8
		nbytes   uint64
	}
	for _, tc := range []struct {
		name    string
		subs    []sub
		want    []event
		wantNow uint64 // monotonic clock after the call
	}{
		{"sleep", []sub{{1, eventClock, clockMonotonic, 5e9, false}}, []event{{1, 0, eventClock, 0}}, 5e9},
		{"earliest of two", []sub{{1, eventClock, clockMonotonic, 5e9, false}, {2, eventClock, clockRealtime, 2e9, false}},
			[]event{{2, 0, eventClock, 0}}, 2e9},
		{"absolute realtime", []sub{{3, eventClock, clockRealtime, DefaultClockEpoch + 7e9, true}}, []event{{3, 0, eventClock, 0}}, 7e9},
		{"sleep forever saturates", []sub{{8, eventClock, clockMonotonic, 1<<64 - 1, false}}, []event{{8, 0, eventClock, 0}}, 1<<63 - 1 - DefaultClockEpoch},
		{"absolute in the past", []sub{{3, eventClock, clockMonotonic, 0, true}}, []event{{3, 0, eventClock, 0}}, 0},
		{"stdin ready beats clock", []sub{{1, eventClock, clockMonotonic, 5e9, false}, {4, eventFdRead, 0, 0, false}},
			[]event{{4, 0, eventFdRead, 6}}, 0},
		{"stdout writable", []sub{{5, eventFdWrite, 1, 0, false}}, []event{{5, 0, eventFdWrite, 0}}, 0},
		{"bad fd", []sub{{6, eventFdRead, 9, 0, false}}, []event{{6, ErrnoBadf, eventFdRead, 0}}, 0},
		{"bad clock", []sub{{7, eventClock, 9, 1, false}}, []event{{7, ErrnoInval, eventClock, 0}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFwd(t)
			s := &State{Base: G, Stdin: []byte("abcdef")}
			put(f, tc.subs)
			if got := f.call(s, "poll_oneoff", in, out, uint64(len(tc.subs)), nev); got != ErrnoSuccess {
				t.Fatalf("expected success, got %v", got)
			}
			n := f.u32(G + nev)
			var got []event
			for i := range n {
				e := f.get(G+out+i*eventSize, eventSize)
				got = append(got, event{le.Uint64(e), Errno(le.Uint16(e[8:])), e[10], le.Uint64(e[16:])})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events: expected %v, got %v", tc.want, got)
			}
			if s.now != tc.wantNow {
				t.Errorf("clock: expected %d, got %d", tc.wantNow, s.now)
			}
		})
	}
	f := newFwd(t)
	s := &State{Base: G}
	if got := f.call(s, "poll_oneoff", in, out, 0, nev); got != ErrnoInval {
		t.Errorf("no subscriptions: expected inval, got %v", got)
	}
	if got := f.call(s, "poll_oneoff", in, out, 0x10000000, nev); got != ErrnoFault {
		t.Errorf("huge count: expected fault, got %v", got)
	}
	put(f, []sub{{1, 9, 0, 0, false}})
	if got := f.call(s, "poll_oneoff", in, out, 1, nev); got != ErrnoInval {
		t.Errorf("bad tag: expected inval, got %v", got)
	}
}

// TestRefused: everything that would reach the host or modify the file
// system answers an errno.
func TestRefused(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Files: testFiles()}
	f.put(G+0x800, []byte("input"))
	for _, tc := range []struct {
		name   string
		params []uint64
		want   Errno
	}{
		{"sock_accept", []uint64{3, 0, 0x20}, ErrnoNotsup},
		{"sock_recv", []uint64{0, 0x10, 1, 0, 0x20, 0x24}, ErrnoNotsup},
		{"sock_send", []uint64{1, 0x10, 1, 0, 0x20}, ErrnoNotsup},
		{"sock_shutdown", []uint64{1, 0}, ErrnoNotsup},
		{"path_create_directory", []uint64{3, 0x800, 5}, ErrnoRofs},
		{"path_unlink_file", []uint64{3, 0x800, 5}, ErrnoRofs},
		{"path_remove_directory", []uint64{3, 0x800, 5}, ErrnoRofs},
		{"path_rename", []uint64{3, 0x800, 5, 3, 0x800, 5}, ErrnoRofs},
		{"path_link", []uint64{3, 0, 0x800, 5, 3, 0x800, 5}, ErrnoRofs},
		{"path_symlink", []uint64{0x800, 5, 3, 0x800, 5}, ErrnoRofs},
		{"path_filestat_set_times", []uint64{3, 0, 0x800, 5, 0, 0, 0}, ErrnoRofs},
		{"path_create_directory no preopen", []uint64{9, 0x800, 5}, ErrnoBadf},
		{"path_unlink_file on stdout", []uint64{1, 0x800, 5}, ErrnoNotdir},
		{"path_readlink", []uint64{3, 0x800, 5, 0x900, 16, 0x20}, ErrnoInval},
		{"fd_allocate", []uint64{3, 0, 10}, ErrnoRofs},
		{"fd_allocate", []uint64{1, 0, 10}, ErrnoBadf},
		{"fd_filestat_set_size", []uint64{3, 0}, ErrnoRofs},
		{"fd_filestat_set_times", []uint64{1, 0, 0, 0}, ErrnoBadf},
		{"fd_renumber", []uint64{1, 2}, ErrnoNotsup},
		{"fd_fdstat_set_rights", []uint64{1, 0, 0}, ErrnoNotsup},
		{"fd_sync", []uint64{1}, ErrnoSuccess},
		{"fd_datasync", []uint64{9}, ErrnoBadf},
		{"fd_advise", []uint64{0, 0, 0, 0}, ErrnoSpipe},
		{"proc_raise", []uint64{9}, ErrnoNosys},
		{"sched_yield", nil, ErrnoSuccess},
	} {
		name, _, _ := cutSpace(tc.name)
		if got := f.call(s, name, tc.params...); got != tc.want {
			t.Errorf("%s: expected %v, got %v", tc.name, tc.want, got)
		}
	}
}

func cutSpace(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestProcExit: proc_exit surfaces as *sys.ExitError from Call, records the
// code in State, and closes the module like wazero's WASI does.
func TestProcExit(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G}
	ctx := WithState(context.Background(), s)
	_, err := f.mod.ExportedFunction("proc_exit").Call(ctx, 7)
	if code := exitCode(t, err); code != 7 {
		t.Fatalf("expected exit code 7, got %d", code)
	}
	if !s.Exited || s.ExitCode != 7 {
		t.Errorf("State: expected Exited with 7, got %v %d", s.Exited, s.ExitCode)
	}
	_, err = f.mod.ExportedFunction("sched_yield").Call(ctx)
	var ee *sys.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("call after exit: expected *sys.ExitError(7), got %v", err)
	}
	s.Reset()
	if s.Exited {
		t.Error("Reset kept Exited")
	}
}

// TestPollOverlap: events written over the subscription array (out == in)
// still answer every subscription.
func TestPollOverlap(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: G, Stdin: []byte("x")}
	b := make([]byte, 2*subSize)
	for i := range 2 {
		e := b[i*subSize:]
		le.PutUint64(e, uint64(10+i))
		e[8] = eventFdRead
	}
	f.put(G+0x1000, b)
	if got := f.call(s, "poll_oneoff", 0x1000, 0x1000, 2, 0x30); got != ErrnoSuccess || f.u32(G+0x30) != 2 {
		t.Fatalf("expected success with 2 events, got %v %d", got, f.u32(G+0x30))
	}
	for i := range uint32(2) {
		e := f.get(G+0x1000+i*eventSize, eventSize)
		if ud, typ, nbytes := le.Uint64(e), e[10], le.Uint64(e[16:]); ud != uint64(10+i) || typ != eventFdRead || nbytes != 1 {
			t.Errorf("event %d: expected userdata %d fd_read nbytes 1, got %d %d %d", i, 10+i, ud, typ, nbytes)
		}
	}
}
