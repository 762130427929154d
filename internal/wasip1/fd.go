package wasip1

import (
	"math"
)

// File types (witx "filetype").
const (
	filetypeCharacterDevice = 2
	filetypeDirectory       = 3
	filetypeRegularFile     = 4
)

// fdflags (witx "fdflags").
const (
	fdflagAppend   = 1 << 0
	fdflagDsync    = 1 << 1
	fdflagNonblock = 1 << 2
	fdflagRsync    = 1 << 3
	fdflagSync     = 1 << 4
)

// Rights (witx "rights"), the ones this package reports or checks.
const (
	rightFdDatasync       = 1 << 0
	rightFdRead           = 1 << 1
	rightFdSeek           = 1 << 2
	rightFdFdstatSetFlags = 1 << 3
	rightFdSync           = 1 << 4
	rightFdTell           = 1 << 5
	rightFdWrite          = 1 << 6
	rightFdAdvise         = 1 << 7
	rightFdReaddir        = 1 << 14
	rightFdFilestatGet    = 1 << 21
	rightPollFdReadwrite  = 1 << 27
	rightsAll             = 1<<29 - 1 // every preview1 right except sock_accept
	rightsStdin           = rightFdRead | rightFdFdstatSetFlags | rightFdFilestatGet | rightPollFdReadwrite
	rightsStdout          = rightFdWrite | rightFdFdstatSetFlags | rightFdFilestatGet | rightPollFdReadwrite
	rightsFile            = rightFdRead | rightFdSeek | rightFdTell | rightFdAdvise | rightFdFdstatSetFlags | rightFdFilestatGet | rightPollFdReadwrite | rightFdSync | rightFdDatasync
	rightsWrite           = rightFdWrite // requested by Go and wasi-libc exactly when opening for writing
)

// fdKind classifies a descriptor.
type fdKind uint8

const (
	kindBad fdKind = iota
	kindStdin
	kindStdout // fd 1 or 2
	kindDir    // the preopen (file == nil) or an opened directory
	kindFile
)

// fd resolves a descriptor. For kindDir with a nil file it is the root
// preopen; flags points at the descriptor's fdflags.
func (s *State) fd(fd uint32) (fdKind, *openFile, *uint16) {
	switch {
	case fd < fdFirst:
		info := &s.std[fd]
		if info.closed {
			return kindBad, nil, nil
		}
		switch fd {
		case fdStdin:
			return kindStdin, nil, &info.flags
		case fdStdout, fdStderr:
			return kindStdout, nil, &info.flags
		default:
			if !s.hasPreopen() {
				return kindBad, nil, nil
			}
			return kindDir, nil, &info.flags
		}
	case uint64(fd-fdFirst) < uint64(len(s.files)):
		f := &s.files[fd-fdFirst]
		if !f.used {
			return kindBad, nil, nil
		}
		if f.dir {
			return kindDir, f, &f.flags
		}
		return kindFile, f, &f.flags
	}
	return kindBad, nil, nil
}

// fdRead reads stdin or an open file at its position.
func fdRead(s *State, g guest, p []uint64) Errno {
	fd, iovs, n, resPtr := uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
	if _, ok := g.bytes(resPtr, 4); !ok {
		return ErrnoFault
	}
	var src []byte
	var pos *uint64
	switch kind, f, _ := s.fd(fd); kind {
	case kindStdin:
		src, pos = s.Stdin, &s.stdinPos
	case kindFile:
		src, pos = f.data, &f.pos
	case kindDir:
		return ErrnoIsdir
	default:
		return ErrnoBadf
	}
	nread, errno := readv(g, iovs, n, src, pos)
	if errno != ErrnoSuccess {
		return errno
	}
	g.putU32(resPtr, nread)
	return ErrnoSuccess
}

// readv copies src[*pos:] into the iovecs, advancing *pos.
func readv(g guest, iovs, n uint32, src []byte, pos *uint64) (uint32, Errno) {
	if _, ok := g.bytes64(iovs, 8*uint64(n)); !ok {
		return 0, ErrnoFault
	}
	var nread uint64
	for i := uint32(0); i < n; i++ {
		buf, errno := g.iovec(iovs, i)
		if errno != ErrnoSuccess {
			return 0, errno
		}
		if *pos >= uint64(len(src)) || nread == math.MaxInt32 {
			break
		}
		if room := math.MaxInt32 - nread; uint64(len(buf)) > room {
			buf = buf[:room] // a short read, as readv's SSIZE_MAX limit
		}
		c := copy(buf, src[*pos:])
		*pos += uint64(c)
		nread += uint64(c)
	}
	return uint32(nread), ErrnoSuccess
}

// fdPread reads an open file at an explicit offset without moving it.
func fdPread(s *State, g guest, p []uint64) Errno {
	fd, iovs, n, off, resPtr := uint32(p[0]), uint32(p[1]), uint32(p[2]), p[3], uint32(p[4])
	if _, ok := g.bytes(resPtr, 4); !ok {
		return ErrnoFault
	}
	f, errno := s.seekable(fd)
	if errno != ErrnoSuccess {
		return errno
	}
	if int64(off) < 0 {
		return ErrnoInval
	}
	nread, errno := readv(g, iovs, n, f.data, &off)
	if errno != ErrnoSuccess {
		return errno
	}
	g.putU32(resPtr, nread)
	return ErrnoSuccess
}

// fdWrite appends to the Stdout/Stderr tail buffers, all or nothing: a
// faulting iovec writes no byte. Every other descriptor is EBADF (nothing
// is writable).
func fdWrite(s *State, g guest, p []uint64) Errno {
	fd, iovs, n, resPtr := uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
	if _, ok := g.bytes(resPtr, 4); !ok {
		return ErrnoFault
	}
	if kind, _, _ := s.fd(fd); kind != kindStdout {
		return ErrnoBadf
	}
	out := s.Stdout
	if fd == fdStderr {
		out = s.Stderr
	}
	if _, ok := g.bytes64(iovs, 8*uint64(n)); !ok {
		return ErrnoFault
	}
	// Check every buffer first so a fault writes nothing.
	for i := uint32(0); i < n; i++ {
		if _, errno := g.iovec(iovs, i); errno != ErrnoSuccess {
			return errno
		}
	}
	var total uint32
	for i := uint32(0); i < n; i++ {
		buf, _ := g.iovec(iovs, i)
		if uint64(total)+uint64(len(buf)) > math.MaxInt32 {
			break // a short write, as writev's SSIZE_MAX limit
		}
		if out != nil {
			out.Write(buf)
		}
		total += uint32(len(buf))
	}
	g.putU32(resPtr, total)
	return ErrnoSuccess
}

// fdPwrite: stdout and stderr cannot seek, nothing else is writable.
func fdPwrite(s *State, g guest, p []uint64) Errno {
	if kind, _, _ := s.fd(uint32(p[0])); kind == kindStdout {
		return ErrnoSpipe
	}
	return ErrnoBadf
}

func fdClose(s *State, g guest, p []uint64) Errno {
	fd := uint32(p[0])
	kind, f, _ := s.fd(fd)
	if kind == kindBad {
		return ErrnoBadf
	}
	if f == nil {
		s.std[fd].closed = true
		return ErrnoSuccess
	}
	*f = openFile{}
	for len(s.files) > 0 && !s.files[len(s.files)-1].used {
		s.files = s.files[:len(s.files)-1]
	}
	return ErrnoSuccess
}

// Whence values (witx "whence").
const (
	whenceSet = 0
	whenceCur = 1
	whenceEnd = 2
)

func fdSeek(s *State, g guest, p []uint64) Errno {
	fd, off, whence, resPtr := uint32(p[0]), int64(p[1]), uint32(p[2]), uint32(p[3])
	if _, ok := g.bytes(resPtr, 8); !ok {
		return ErrnoFault
	}
	f, errno := s.seekable(fd)
	if errno != ErrnoSuccess {
		return errno
	}
	var base int64
	switch whence {
	case whenceSet:
	case whenceCur:
		base = int64(f.pos)
	case whenceEnd:
		base = int64(len(f.data))
	default:
		return ErrnoInval
	}
	pos := base + off
	if (off > 0 && pos < base) || pos < 0 {
		return ErrnoInval
	}
	f.pos = uint64(pos)
	g.putU64(resPtr, f.pos)
	return ErrnoSuccess
}

// seekable returns the open regular file behind fd, for the calls that
// read or move a file position: ESPIPE for stdin/stdout/stderr, EISDIR for
// a directory, EBADF for anything not open.
func (s *State) seekable(fd uint32) (*openFile, Errno) {
	kind, f, _ := s.fd(fd)
	switch kind {
	case kindFile:
		return f, ErrnoSuccess
	case kindStdin, kindStdout:
		return nil, ErrnoSpipe
	case kindDir:
		return nil, ErrnoIsdir
	default:
		return nil, ErrnoBadf
	}
}

func fdTell(s *State, g guest, p []uint64) Errno {
	fd, resPtr := uint32(p[0]), uint32(p[1])
	if _, ok := g.bytes(resPtr, 8); !ok {
		return ErrnoFault
	}
	f, errno := s.seekable(fd)
	if errno != ErrnoSuccess {
		return errno
	}
	g.putU64(resPtr, f.pos)
	return ErrnoSuccess
}

// fdFdstatGet fills a 24-byte fdstat: filetype u8 @0, flags u16 @2,
// rights base u64 @8, rights inheriting u64 @16.
func fdFdstatGet(s *State, g guest, p []uint64) Errno {
	fd, ptr := uint32(p[0]), uint32(p[1])
	b, ok := g.bytes(ptr, 24)
	if !ok {
		return ErrnoFault
	}
	kind, _, flags := s.fd(fd)
	var typ uint8
	var base, inherit uint64
	switch kind {
	case kindStdin:
		typ, base = filetypeCharacterDevice, rightsStdin
	case kindStdout:
		typ, base = filetypeCharacterDevice, rightsStdout
	case kindDir:
		typ, base, inherit = filetypeDirectory, rightsAll, rightsAll
	case kindFile:
		typ, base = filetypeRegularFile, rightsFile
	default:
		return ErrnoBadf
	}
	clear(b)
	b[0] = typ
	le.PutUint16(b[2:], *flags)
	le.PutUint64(b[8:], base)
	le.PutUint64(b[16:], inherit)
	return ErrnoSuccess
}

// fdFdstatSetFlags accepts any valid flag on stdout/stderr and NONBLOCK
// on every descriptor (reads never block anyway); APPEND and the sync
// flags on stdin, files and directories are EROFS. fd_fdstat_get reports
// the flags back.
func fdFdstatSetFlags(s *State, g guest, p []uint64) Errno {
	fd, fl := uint32(p[0]), uint16(p[1])
	kind, _, flags := s.fd(fd)
	switch kind {
	case kindBad:
		return ErrnoBadf
	case kindStdout:
	default:
		if fl&^fdflagNonblock != 0 {
			return ErrnoRofs
		}
	}
	if fl&^(fdflagAppend|fdflagDsync|fdflagNonblock|fdflagRsync|fdflagSync) != 0 {
		return ErrnoInval
	}
	*flags = fl
	return ErrnoSuccess
}

// fdFilestatGet fills a 64-byte filestat for the descriptor.
func fdFilestatGet(s *State, g guest, p []uint64) Errno {
	fd, ptr := uint32(p[0]), uint32(p[1])
	b, ok := g.bytes(ptr, 64)
	if !ok {
		return ErrnoFault
	}
	kind, f, _ := s.fd(fd)
	switch kind {
	case kindStdin, kindStdout:
		putFilestat(b, s, filetypeCharacterDevice, uint64(fd)+1, 0)
	case kindDir:
		path := ""
		if f != nil {
			path = f.path
		}
		putFilestat(b, s, filetypeDirectory, inode(path), 0)
	case kindFile:
		putFilestat(b, s, filetypeRegularFile, inode(f.path), uint64(len(f.data)))
	default:
		return ErrnoBadf
	}
	return ErrnoSuccess
}

// putFilestat fills a filestat: dev u64 @0, ino @8, filetype u8 @16,
// nlink u64 @24, size @32, atim @40, mtim @48, ctim @56. Times are the
// clock epoch, constant for the run.
func putFilestat(b []byte, s *State, typ uint8, ino, size uint64) {
	clear(b)
	le.PutUint64(b[0:], 1)
	le.PutUint64(b[8:], ino)
	b[16] = typ
	le.PutUint64(b[24:], 1)
	le.PutUint64(b[32:], size)
	e := s.epoch()
	le.PutUint64(b[40:], e)
	le.PutUint64(b[48:], e)
	le.PutUint64(b[56:], e)
}

// inode is a stable inode number for a path: FNV-1a, never 0 or a stdio
// number.
func inode(path string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(path); i++ {
		h ^= uint64(path[i])
		h *= 1099511628211
	}
	if h < 16 {
		h += 16
	}
	return h
}

// fdPrestatGet describes the one preopen: tag 0 (dir) @0, name length
// u32 @4.
func fdPrestatGet(s *State, g guest, p []uint64) Errno {
	fd, ptr := uint32(p[0]), uint32(p[1])
	b, ok := g.bytes(ptr, 8)
	if !ok {
		return ErrnoFault
	}
	if kind, f, _ := s.fd(fd); kind != kindDir || f != nil {
		return ErrnoBadf
	}
	clear(b)
	le.PutUint32(b[4:], 1)
	return ErrnoSuccess
}

func fdPrestatDirName(s *State, g guest, p []uint64) Errno {
	fd, ptr, n := uint32(p[0]), uint32(p[1]), uint32(p[2])
	if kind, f, _ := s.fd(fd); kind != kindDir || f != nil {
		return ErrnoBadf
	}
	if n < 1 {
		return ErrnoNametoolong
	}
	b, ok := g.bytes(ptr, 1)
	if !ok {
		return ErrnoFault
	}
	b[0] = '/'
	return ErrnoSuccess
}

// fdAdvise is a valid no-op on files.
func fdAdvise(s *State, g guest, p []uint64) Errno {
	switch kind, _, _ := s.fd(uint32(p[0])); kind {
	case kindFile:
		return ErrnoSuccess
	case kindBad:
		return ErrnoBadf
	case kindDir:
		return ErrnoIsdir
	default:
		return ErrnoSpipe
	}
}

// fdSync and fd_datasync: nothing is ever dirty, so a valid no-op.
func fdSync(s *State, g guest, p []uint64) Errno {
	if kind, _, _ := s.fd(uint32(p[0])); kind == kindBad {
		return ErrnoBadf
	}
	return ErrnoSuccess
}

// fdReadOnly serves fd_allocate and fd_filestat_set_size/_times: the
// file system is read-only, stdio cannot be resized.
func fdReadOnly(s *State, g guest, p []uint64) Errno {
	switch kind, _, _ := s.fd(uint32(p[0])); kind {
	case kindBad:
		return ErrnoBadf
	case kindStdin, kindStdout:
		return ErrnoBadf
	default:
		return ErrnoRofs
	}
}
