package corpus

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// maxDecoded caps what one zstd blob may expand to (1 GiB).
const maxDecoded = 1 << 30

// zcodec holds a lazily created zstd encoder and decoder; both are safe
// for concurrent use once created.
type zcodec struct {
	once sync.Once
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	err  error
}

func (z *zcodec) init() error {
	z.once.Do(func() {
		z.enc, z.err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if z.err != nil {
			return
		}
		z.dec, z.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecoded))
	})
	return z.err
}

func (z *zcodec) compress(data []byte) ([]byte, error) {
	if err := z.init(); err != nil {
		return nil, err
	}
	return z.enc.EncodeAll(data, nil), nil
}

func (z *zcodec) decompress(data []byte) ([]byte, error) {
	if err := z.init(); err != nil {
		return nil, err
	}
	return z.dec.DecodeAll(data, nil)
}

func (z *zcodec) close() {
	if z.enc != nil {
		z.enc.Close()
	}
	if z.dec != nil {
		z.dec.Close()
	}
}

// validBlobName accepts cache names that stay inside the cache directory.
func validBlobName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\\") || name[0] == '.' {
		return fmt.Errorf("invalid cache name %q: expected a plain file name", name)
	}
	return nil
}

// PutBlob stores data (e.g. a marshalled SiteMap) zstd-compressed under
// name in the cache directory, atomically. Caches may be lost without
// harm: the engine rebuilds what is missing.
func (d *Dir) PutBlob(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validBlobName(name); err != nil {
		return err
	}
	z, err := d.z.compress(data)
	if err != nil {
		return err
	}
	return d.w.write(filepath.Join(d.path, waferDir, "cache", name+".zst"), z)
}

// Blob returns the cache blob stored by PutBlob. A missing blob is an
// error satisfying errors.Is(err, fs.ErrNotExist); a corrupt one is an
// error naming the file.
func (d *Dir) Blob(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := validBlobName(name); err != nil {
		return nil, err
	}
	path := filepath.Join(d.path, waferDir, "cache", name+".zst")
	z, err := d.fs.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data, err := d.z.decompress(z)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// The coverage cache is an append-only log in .wafer/cache/coverage.log:
// records of uvarint(len) | zstd(uvarint id, uvarint n, n uvarint
// features) | xxhash64 of the compressed bytes (little endian). Records
// are buffered and appended at Checkpoint/Close (or when the buffer is
// large); a torn tail from a kill is cut on the next Open.
const covLogName = "coverage.log"

type covLog struct {
	buf bytes.Buffer
}

const covFlushSize = 1 << 20

func (d *Dir) covPath() string { return filepath.Join(d.path, waferDir, "cache", covLogName) }

// appendCoverage buffers a record; d.mu is held. Errors are ignored here
// (the cache is optional) and surface at syncCoverage.
func (d *Dir) appendCoverage(id int, cov []uint32) {
	var raw []byte
	raw = binary.AppendUvarint(raw, uint64(id))
	raw = binary.AppendUvarint(raw, uint64(len(cov)))
	for _, f := range cov {
		raw = binary.AppendUvarint(raw, uint64(f))
	}
	z, err := d.z.compress(raw)
	if err != nil {
		return
	}
	d.cov.buf.Write(binary.AppendUvarint(nil, uint64(len(z))))
	d.cov.buf.Write(z)
	d.cov.buf.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(z)))
	if d.cov.buf.Len() >= covFlushSize {
		_ = d.flushCoverage(false)
	}
}

// syncCoverage appends buffered records and syncs the log; d.mu is held.
func (d *Dir) syncCoverage() error { return d.flushCoverage(!d.w.noSync) }

func (d *Dir) flushCoverage(sync bool) error {
	if d.cov.buf.Len() == 0 {
		return nil
	}
	path := d.covPath()
	f, err := d.fs.Append(path)
	if err != nil {
		return &WriteError{Path: path, Err: err}
	}
	if _, err := f.Write(d.cov.buf.Bytes()); err != nil {
		f.Close()
		return &WriteError{Path: path, Err: err}
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return &WriteError{Path: path, Err: err}
		}
	}
	if err := f.Close(); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	d.cov.buf.Reset()
	return nil
}

// DecodeCoverageLog parses a coverage log and returns the coverage of each
// entry id (a later record for an id wins) and the length of the valid
// prefix. err describes the first bad record (nil if the log is clean).
func DecodeCoverageLog(data []byte, z func([]byte) ([]byte, error)) (cov map[int][]uint32, good int, err error) {
	cov = map[int][]uint32{}
	for good < len(data) {
		n, k := binary.Uvarint(data[good:])
		if k <= 0 || n > uint64(len(data)-good-k) || uint64(len(data)-good-k)-n < 8 {
			return cov, good, fmt.Errorf("offset %d: expected a complete record, got %d trailing bytes", good, len(data)-good)
		}
		zb := data[good+k : good+k+int(n)]
		sum := binary.LittleEndian.Uint64(data[good+k+int(n):])
		if xxhash.Sum64(zb) != sum {
			return cov, good, fmt.Errorf("offset %d: checksum mismatch", good)
		}
		raw, err := z(zb)
		if err != nil {
			return cov, good, fmt.Errorf("offset %d: %w", good, err)
		}
		id, feats, err := decodeCovRecord(raw)
		if err != nil {
			return cov, good, fmt.Errorf("offset %d: %w", good, err)
		}
		cov[id] = feats
		good += k + int(n) + 8
	}
	return cov, good, nil
}

func decodeCovRecord(raw []byte) (int, []uint32, error) {
	id, k := binary.Uvarint(raw)
	if k <= 0 || id > 1<<31 {
		return 0, nil, errors.New("bad entry id")
	}
	raw = raw[k:]
	n, k := binary.Uvarint(raw)
	if k <= 0 || n > uint64(len(raw)-k) {
		return 0, nil, errors.New("bad feature count")
	}
	raw = raw[k:]
	feats := make([]uint32, 0, n)
	for range n {
		f, k := binary.Uvarint(raw)
		if k <= 0 || f > 1<<32-1 {
			return 0, nil, errors.New("bad feature")
		}
		feats = append(feats, uint32(f))
		raw = raw[k:]
	}
	return int(id), feats, nil
}

// loadCoverage reads the log into the loaded entries; a torn or corrupt
// tail is cut by rewriting the good prefix. The cache is optional: its
// problems are not reported as skipped entries.
func (d *Dir) loadCoverage() {
	data, err := d.fs.ReadFile(d.covPath())
	if err != nil {
		return
	}
	cov, good, derr := DecodeCoverageLog(data, d.z.decompress)
	if derr != nil {
		if good == 0 {
			_ = d.fs.Remove(d.covPath())
		} else {
			_ = d.w.write(d.covPath(), data[:good])
		}
	}
	for i := range d.entries {
		if c, ok := cov[d.entries[i].ID]; ok {
			d.entries[i].Coverage = c
		}
	}
}

var _ = fs.ErrNotExist
