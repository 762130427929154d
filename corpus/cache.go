package corpus

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// maxDecoded caps what one zstd blob may expand to (1 GiB).
const maxDecoded = 1 << 30

// encoderWindow is the zstd encoder's window (zcodec).
const encoderWindow = 1 << 20

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
		// A 1 MiB window: the encoder keeps a history buffer for as long
		// as it lives, twice the window at the default 8 MiB (16 MB of a
		// campaign's heap, the coverage index's); what it compresses are
		// chunks of up to covFlushSize and SiteMaps of a few MB.
		z.enc, z.err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(encoderWindow), zstd.WithLowerEncoderMem(true))
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

// The index is an append-only log in .wafer/cache/index.log holding, for
// every queue entry saved, a copy of its sidecar, its input and its
// coverage, so Open reads one file instead of two per entry. The log is a
// sequence of chunks: uvarint(len) | zstd(records) | xxhash64 of the
// compressed bytes (little endian). A record is uvarint(len) | payload;
// payload: uvarint id | uvarint ncov+1 (0: no coverage) | ncov uvarint
// features | uvarint len | sidecar | uvarint len | input. Records are
// buffered and appended as one chunk at Checkpoint and Close (or when 1 MiB
// is buffered), and only for saves that completed; a torn tail from a kill
// is cut on the next Open. The index is a cache: an entry it lacks is read
// from its files.
const indexName = "index.log"

type covLog struct {
	raw bytes.Buffer // records not yet written
}

const covFlushSize = 1 << 20

func (d *Dir) covPath() string { return filepath.Join(d.path, waferDir, "cache", indexName) }

// indexRecord is one decoded index record.
type indexRecord struct {
	coverage []uint32
	meta     []byte
	input    []byte
}

// appendIndex buffers the record of a saved entry; d.mu is held. Errors
// are ignored here (the index is optional) and surface at syncCoverage.
func (d *Dir) appendIndex(e *Entry, meta []byte) {
	var raw []byte
	raw = binary.AppendUvarint(raw, uint64(e.ID))
	if e.Coverage == nil {
		raw = binary.AppendUvarint(raw, 0)
	} else {
		raw = binary.AppendUvarint(raw, uint64(len(e.Coverage))+1)
		for _, f := range e.Coverage {
			raw = binary.AppendUvarint(raw, uint64(f))
		}
	}
	raw = binary.AppendUvarint(raw, uint64(len(meta)))
	raw = append(raw, meta...)
	raw = binary.AppendUvarint(raw, uint64(len(e.Input)))
	raw = append(raw, e.Input...)
	d.cov.raw.Write(binary.AppendUvarint(nil, uint64(len(raw))))
	d.cov.raw.Write(raw)
	if d.cov.raw.Len() >= covFlushSize {
		_ = d.flushCoverage(false)
	}
}

// syncCoverage appends buffered records and syncs the log; d.mu is held.
func (d *Dir) syncCoverage() error { return d.flushCoverage(!d.w.noSync) }

// indexChunk frames buffered records as one chunk.
func (d *Dir) indexChunk() ([]byte, error) {
	z, err := d.z.compress(d.cov.raw.Bytes())
	if err != nil {
		return nil, err
	}
	chunk := binary.AppendUvarint(nil, uint64(len(z)))
	chunk = append(chunk, z...)
	return binary.LittleEndian.AppendUint64(chunk, xxhash.Sum64(z)), nil
}

func (d *Dir) flushCoverage(sync bool) error {
	if d.cov.raw.Len() == 0 {
		return nil
	}
	path := d.covPath()
	chunk, err := d.indexChunk()
	if err != nil {
		return err
	}
	f, err := d.fs.Append(path)
	if err != nil {
		return &WriteError{Path: path, Err: err}
	}
	if _, err := f.Write(chunk); err != nil {
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
	d.cov.raw.Reset()
	return nil
}

// decodeIndex parses an index log and returns the records by entry id (a
// later record for an id wins) and the length of the valid prefix (whole
// chunks). err describes the first bad chunk (nil if the log is clean).
func decodeIndex(data []byte, z func([]byte) ([]byte, error)) (recs map[int]indexRecord, good int, err error) {
	recs = map[int]indexRecord{}
	for good < len(data) {
		n, k := binary.Uvarint(data[good:])
		if k <= 0 || n > uint64(len(data)-good-k) || uint64(len(data)-good-k)-n < 8 {
			return recs, good, fmt.Errorf("offset %d: expected a complete chunk, got %d trailing bytes", good, len(data)-good)
		}
		zb := data[good+k : good+k+int(n)]
		sum := binary.LittleEndian.Uint64(data[good+k+int(n):])
		if xxhash.Sum64(zb) != sum {
			return recs, good, fmt.Errorf("offset %d: checksum mismatch", good)
		}
		raw, err := z(zb)
		if err != nil {
			return recs, good, fmt.Errorf("offset %d: %w", good, err)
		}
		chunk := map[int]indexRecord{}
		for len(raw) > 0 {
			rn, rk := binary.Uvarint(raw)
			if rk <= 0 || rn > uint64(len(raw)-rk) {
				return recs, good, fmt.Errorf("offset %d: bad record length", good)
			}
			id, rec, err := decodeIndexRecord(raw[rk : rk+int(rn)])
			if err != nil {
				return recs, good, fmt.Errorf("offset %d: %w", good, err)
			}
			chunk[id] = rec
			raw = raw[rk+int(rn):]
		}
		maps.Copy(recs, chunk)
		good += k + int(n) + 8
	}
	return recs, good, nil
}

func decodeIndexRecord(raw []byte) (int, indexRecord, error) {
	var rec indexRecord
	id, k := binary.Uvarint(raw)
	if k <= 0 || id > 1<<31 {
		return 0, rec, errors.New("bad entry id")
	}
	raw = raw[k:]
	n, k := binary.Uvarint(raw)
	if k <= 0 || n > uint64(len(raw)-k)+1 {
		return 0, rec, errors.New("bad feature count")
	}
	raw = raw[k:]
	if n > 0 {
		rec.coverage = make([]uint32, 0, n-1)
		for range n - 1 {
			f, k := binary.Uvarint(raw)
			if k <= 0 || f > 1<<32-1 {
				return 0, rec, errors.New("bad feature")
			}
			rec.coverage = append(rec.coverage, uint32(f))
			raw = raw[k:]
		}
	}
	for _, dst := range []*[]byte{&rec.meta, &rec.input} {
		n, k := binary.Uvarint(raw)
		if k <= 0 || n > uint64(len(raw)-k) {
			return 0, rec, errors.New("bad length")
		}
		*dst = raw[k : k+int(n) : k+int(n)]
		raw = raw[k+int(n):]
	}
	if len(raw) != 0 {
		return 0, rec, fmt.Errorf("expected end of record, got %d more bytes", len(raw))
	}
	return int(id), rec, nil
}

// loadIndex reads the index log; a torn or corrupt tail is cut by
// rewriting the good prefix. The index is a cache: its problems are not
// reported as skipped entries.
func (d *Dir) loadIndex() map[int]indexRecord {
	data, err := d.fs.ReadFile(d.covPath())
	if err != nil {
		return nil
	}
	recs, good, derr := decodeIndex(data, d.z.decompress)
	if derr != nil {
		if good == 0 {
			_ = d.fs.Remove(d.covPath())
		} else {
			_ = d.w.write(d.covPath(), data[:good])
		}
	}
	return recs
}
