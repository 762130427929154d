package wasip1

import (
	"path"
	"slices"
	"strings"
)

// oflags (witx "oflags").
const (
	oflagCreat     = 1 << 0
	oflagDirectory = 1 << 1
	oflagExcl      = 1 << 2
	oflagTrunc     = 1 << 3
)

// maxOpenFiles bounds the descriptors a guest can hold open (EMFILE).
const maxOpenFiles = 1024

// cleanKey normalises a Files key or a looked-up path: slash-separated,
// relative to the root, no "." or ".." elements, "" for the root itself.
// ".." never climbs above the root.
func cleanKey(p string) string {
	return path.Clean("/" + p)[1:]
}

// lookup finds name (already cleaned) in Files: a file, an implicit
// directory (a prefix of some key), or ENOENT.
func (s *State) lookup(name string) (data []byte, dir bool, errno Errno) {
	if name == "" {
		return nil, true, ErrnoSuccess
	}
	if d, ok := s.Files[name]; ok {
		return d, false, ErrnoSuccess
	}
	found, foundKey := false, ""
	for k, v := range s.Files {
		nk := cleanKey(k)
		if nk == name {
			// A key spelled differently ("/name"); keep the
			// lexically smallest spelling so the answer is stable.
			if !found || k < foundKey {
				data, found, foundKey = v, true, k
			}
			continue
		}
		if strings.HasPrefix(nk, name) && len(nk) > len(name) && nk[len(name)] == '/' {
			dir = true
		}
	}
	switch {
	case found:
		return data, false, ErrnoSuccess
	case dir:
		return nil, true, ErrnoSuccess
	}
	return nil, false, ErrnoNoent
}

// resolve reads the path argument (ptr, n) and resolves it against the
// directory descriptor dirfd.
func (s *State) resolve(g guest, dirfd, ptr, n uint32) (name string, data []byte, dir bool, errno Errno) {
	kind, f, _ := s.fd(dirfd)
	switch kind {
	case kindDir:
	case kindBad:
		return "", nil, false, ErrnoBadf
	default:
		return "", nil, false, ErrnoNotdir
	}
	b, ok := g.bytes(ptr, n)
	if !ok {
		return "", nil, false, ErrnoFault
	}
	if slices.Contains(b, 0) {
		return "", nil, false, ErrnoInval
	}
	prefix := ""
	if f != nil {
		prefix = f.path
	}
	name = cleanKey(prefix + "/" + string(b))
	data, dir, errno = s.lookup(name)
	return name, data, dir, errno
}

// pathOpen opens a file or directory of Files read-only. Anything that
// would create, truncate or write is refused: EROFS (or EISDIR for a
// directory), or ENOENT when the path does not exist and no creation was
// asked for.
func pathOpen(s *State, g guest, p []uint64) Errno {
	dirfd, pathPtr, pathLen := uint32(p[0]), uint32(p[2]), uint32(p[3])
	oflags, rights, fdflags, resPtr := uint16(p[4]), p[5], uint16(p[7]), uint32(p[8])
	if _, ok := g.bytes(resPtr, 4); !ok {
		return ErrnoFault
	}
	name, data, dir, errno := s.resolve(g, dirfd, pathPtr, pathLen)
	wantsWrite := oflags&(oflagCreat|oflagTrunc|oflagExcl) != 0 ||
		rights&rightsWrite != 0 ||
		fdflags&(fdflagAppend|fdflagDsync|fdflagSync) != 0
	switch {
	case errno == ErrnoNoent && oflags&oflagCreat != 0:
		return ErrnoRofs
	case errno != ErrnoSuccess:
		return errno
	case wantsWrite && dir:
		return ErrnoIsdir
	case wantsWrite:
		return ErrnoRofs
	case oflags&oflagDirectory != 0 && !dir:
		return ErrnoNotdir
	}
	slot := -1
	for i := range s.files {
		if !s.files[i].used {
			slot = i
			break
		}
	}
	if slot < 0 {
		if len(s.files) >= maxOpenFiles {
			return ErrnoMfile
		}
		s.files = append(s.files, openFile{})
		slot = len(s.files) - 1
	}
	s.files[slot] = openFile{used: true, dir: dir, path: name, data: data, flags: fdflags & fdflagNonblock}
	g.putU32(resPtr, uint32(fdFirst+slot))
	return ErrnoSuccess
}

func pathFilestatGet(s *State, g guest, p []uint64) Errno {
	dirfd, pathPtr, pathLen, buf := uint32(p[0]), uint32(p[2]), uint32(p[3]), uint32(p[4])
	b, ok := g.bytes(buf, 64)
	if !ok {
		return ErrnoFault
	}
	name, data, dir, errno := s.resolve(g, dirfd, pathPtr, pathLen)
	if errno != ErrnoSuccess {
		return errno
	}
	if dir {
		putFilestat(b, s, filetypeDirectory, inode(name), 0)
	} else {
		putFilestat(b, s, filetypeRegularFile, inode(name), uint64(len(data)))
	}
	return ErrnoSuccess
}

// pathReadlink: there are no symbolic links.
func pathReadlink(s *State, g guest, p []uint64) Errno {
	if _, _, _, errno := s.resolve(g, uint32(p[0]), uint32(p[1]), uint32(p[2])); errno != ErrnoSuccess {
		return errno
	}
	return ErrnoInval
}

// pathReadOnly serves every path function that would modify the file
// system (its first parameter is the directory descriptor).
func pathReadOnly(s *State, g guest, p []uint64) Errno {
	return readOnlyDir(s, uint32(p[0]))
}

// pathSymlink has its directory descriptor third.
func pathSymlink(s *State, g guest, p []uint64) Errno {
	return readOnlyDir(s, uint32(p[2]))
}

func readOnlyDir(s *State, dirfd uint32) Errno {
	switch kind, _, _ := s.fd(dirfd); kind {
	case kindDir:
		return ErrnoRofs
	case kindBad:
		return ErrnoBadf
	default:
		return ErrnoNotdir
	}
}

// dirent is one directory entry for fd_readdir.
type dirent struct {
	name string
	dir  bool
}

// children lists the entries of directory dir ("" = root), sorted by
// name, without "." and "..".
func (s *State) children(dir string) []dirent {
	seen := map[string]bool{}
	for k := range s.Files {
		rel := cleanKey(k)
		if dir != "" {
			if !strings.HasPrefix(rel, dir) || len(rel) <= len(dir) || rel[len(dir)] != '/' {
				continue
			}
			rel = rel[len(dir)+1:]
		}
		if rel == "" {
			continue
		}
		name, _, sub := strings.Cut(rel, "/")
		seen[name] = seen[name] || sub
	}
	out := make([]dirent, 0, len(seen))
	for name, isDir := range seen {
		out = append(out, dirent{name, isDir})
	}
	slices.SortFunc(out, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	return out
}

// fdReaddir writes entries from index cookie on: each a 24-byte header
// (d_next u64 @0 = the next cookie, d_ino u64 @8, d_namlen u32 @16,
// d_type u8 @20) then the name. The last entry is cut at buf_len, as the
// ABI asks, so bufused == buf_len tells the guest to call again.
func fdReaddir(s *State, g guest, p []uint64) Errno {
	fd, buf, bufLen, cookie, resPtr := uint32(p[0]), uint32(p[1]), uint32(p[2]), p[3], uint32(p[4])
	if _, ok := g.bytes(resPtr, 4); !ok {
		return ErrnoFault
	}
	dst, ok := g.bytes(buf, bufLen)
	if !ok {
		return ErrnoFault
	}
	kind, f, _ := s.fd(fd)
	switch kind {
	case kindDir:
	case kindBad:
		return ErrnoBadf
	default:
		return ErrnoNotdir
	}
	dir := ""
	if f != nil {
		dir = f.path
	}
	ents := s.children(dir)
	used := 0
	var hdr [24]byte
	for i := cookie; i < uint64(len(ents)) && used < len(dst); i++ {
		e := ents[i]
		full := e.name
		if dir != "" {
			full = dir + "/" + e.name
		}
		clear(hdr[:])
		le.PutUint64(hdr[0:], i+1)
		le.PutUint64(hdr[8:], inode(full))
		le.PutUint32(hdr[16:], uint32(len(e.name)))
		hdr[20] = filetypeRegularFile
		if e.dir {
			hdr[20] = filetypeDirectory
		}
		used += copy(dst[used:], hdr[:])
		used += copy(dst[used:], e.name)
	}
	g.putU32(resPtr, uint32(used))
	return ErrnoSuccess
}
