package corpus

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Fuzz targets for every reader. In a normal test run they only run their
// seeds; `go test -fuzz=FuzzX ./corpus` explores.

func sampleMeta() [][]byte {
	e := Entry{Input: []byte("in"), Choices: []byte{1, 2}, Kinds: []byte{3}, Parents: []int{4, 5}, Op: "zest", NewCov: true, Valid: true, Added: []uint32{7}, Time: time.Second, Execs: 9, ID: 3, Name: "id:000003,src:000004+000005,op:zest,+cov"}
	e.Hash = xxhash.Sum64(e.Input)
	f := Failure{Entry: e, Kind: "oob", Hang: true, Message: "m\nx", Frames: []string{"a", "b"}, Repro: "wafer repro x", Identity: "oob|m|a;b", Hits: 3}
	return [][]byte{encodeMeta(&e, nil), encodeMeta(&f.Entry, &f), []byte(metaVersion + "\nend\n")}
}

func FuzzDecodeMeta(f *testing.F) {
	for _, s := range sampleMeta() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMeta(data)
		if err != nil {
			return
		}
		var fp *Failure
		if m.failure {
			fp = &m.Failure
			m.Failure.Input = m.input
		}
		enc := encodeMeta(&m.Failure.Entry, fp)
		m2, err := decodeMeta(enc)
		if err != nil {
			t.Fatalf("re-encoded sidecar does not decode: %v\n%s", err, enc)
		}
		var fp2 *Failure
		if m2.failure {
			fp2 = &m2.Failure
			m2.Failure.Input = m2.input
		}
		if enc2 := encodeMeta(&m2.Failure.Entry, fp2); !bytes.Equal(enc, enc2) {
			t.Fatalf("not a fixed point:\n%s\n%s", enc, enc2)
		}
	})
}

func FuzzParseStats(f *testing.F) {
	f.Add(FormatStats(Stats{Execs: 5, Start: time.Unix(5, 0), Extra: map[string]string{"k": "v"}}))
	f.Add([]byte("start_time        : 1587211111\nbitmap_cvg        : 0.31%\nstability : 100.00%\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseStats(data)
		if err != nil {
			return
		}
		out := FormatStats(s)
		s2, err := ParseStats(out)
		if err != nil {
			t.Fatalf("formatted stats do not parse: %v\n%s", err, out)
		}
		if out2 := FormatStats(s2); !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point:\n%s\n%s", out, out2)
		}
	})
}

func FuzzParsePlot(f *testing.F) {
	f.Add([]byte(PlotHeader + "\n" + string(FormatPlotRow(PlotRow{RelTime: time.Second, MapSize: 1.5, B0: 2}))))
	f.Add([]byte(PlotHeader + ", share_a, share_b\n" + string(FormatPlotRow(PlotRow{RelTime: time.Second, Shares: []ArmShare{{"a", 0.5}, {"b", 0.5}}}))))
	f.Add([]byte("# x\n10, 0, 1, 2, 2, 1, 0.05%, 0, 0, 2, 1500.12, 15000, 12\n3, 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, _ := ParsePlot(data)
		// rows with headers where their shape changes, as AppendPlot
		format := func(rows []PlotRow) []byte {
			var out []byte
			h := ""
			for _, r := range rows {
				if ph := PlotHeaderOf(r); ph != h {
					out = append(append(out, ph...), '\n')
					h = ph
				}
				out = append(out, FormatPlotRow(r)...)
			}
			return out
		}
		out := format(rows)
		rows2, err := ParsePlot(out)
		if err != nil || len(rows2) != len(rows) {
			t.Fatalf("formatted rows do not parse: %v\n%s", err, out)
		}
		out2 := format(rows2)
		if !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point:\n%s\n%s", out, out2)
		}
	})
}

func FuzzParseGoCorpus(f *testing.F) {
	f.Add([]byte("go test fuzz v1\n[]byte(\"a\\x00b\")\n"))
	f.Add([]byte("go test fuzz v1\nstring(`raw`)\n"))
	f.Add(FormatGoCorpus([]byte{0xff, '\n', '"'}))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseGoCorpus(data)
		if err != nil {
			return
		}
		back, err := ParseGoCorpus(FormatGoCorpus(v))
		if err != nil || !bytes.Equal(back, v) {
			t.Fatalf("round trip: %q -> %q %v", v, back, err)
		}
	})
}

func FuzzDecodeCheckpoint(f *testing.F) {
	var z zcodec
	c, _ := encodeCheckpoint(Checkpoint{Execs: 5, Time: 7, State: []byte("s")}, map[string]uint64{"crashes/id:000000": 3}, &z)
	f.Add(c)
	f.Add([]byte(checkpointVersion + "\nend\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, hits, err := decodeCheckpoint(data, &z)
		if err != nil {
			return
		}
		enc, err := encodeCheckpoint(c, hits, &z)
		if err != nil {
			t.Fatal(err)
		}
		c2, hits2, err := decodeCheckpoint(enc, &z)
		if err != nil || c2.Execs != c.Execs || c2.Time != c.Time || !bytes.Equal(c2.State, c.State) || len(hits2) != len(hits) {
			t.Fatalf("round trip: %+v %+v %v", c, c2, err)
		}
	})
}

func FuzzIndexLog(f *testing.F) {
	d := &Dir{}
	e := Entry{Input: []byte("in"), Coverage: []uint32{1, 2, 1 << 31}, ID: 3}
	d.appendIndex(&e, []byte("meta"))
	e2 := Entry{ID: 4}
	d.appendIndex(&e2, nil)
	log, _ := d.indexChunk()
	log2 := append(append([]byte(nil), log...), log...)
	f.Add(log2)
	f.Add(log)
	f.Add(log[:len(log)-3])
	f.Fuzz(func(t *testing.T, data []byte) {
		_, good, err := decodeIndex(data, d.z.decompress)
		if good < 0 || good > len(data) || (err == nil) != (good == len(data)) {
			t.Fatalf("good %d of %d, err %v", good, len(data), err)
		}
	})
}

// memTree builds a directory tree in a memFS from a fuzz input: records
// "path\x00content\x01" (paths may have "/"; hostile names are fine).
func memTree(root string, data []byte) *memFS {
	m := newMemFS()
	m.MkdirAll(root, 0o755)
	for rec := range bytes.SplitSeq(data, []byte{1}) {
		p, content, ok := bytes.Cut(rec, []byte{0})
		if !ok || len(p) == 0 {
			continue
		}
		full := filepath.Join(root, string(p))
		if !strings.HasPrefix(full, root+"/") {
			continue
		}
		m.MkdirAll(filepath.Dir(full), 0o755)
		if m.dirs[full] {
			continue
		}
		m.files[full] = append([]byte(nil), content...)
	}
	return m
}

// FuzzReadSeeds reads fuzz-built flat, Go and AFL corpus directories.
func FuzzReadSeeds(f *testing.F) {
	f.Add([]byte("a\x00xx\x01sub/b\x00yy\x01.h\x00no\x01"))
	f.Add([]byte("testdata/fuzz/FuzzX/1\x00go test fuzz v1\n[]byte(\"q\")\n\x01queue/id:000000\x00z"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := memTree("/c", data)
		seeds, skipped, err := ReadSeeds(context.Background(), m, "/c")
		if err != nil {
			t.Fatal(err)
		}
		var se *SkipError
		n := len(seeds)
		if skipped != nil {
			se = skipped.(*SkipError)
			n += len(se.Files)
		}
		if n > len(m.files) {
			t.Fatalf("%d results from %d files", n, len(m.files))
		}
	})
}

// FuzzOpen opens fuzz-built campaign directories: Open never fails on
// content, and every entry it returns has the bytes its sidecar promises.
func FuzzOpen(f *testing.F) {
	var b bytes.Buffer
	for _, s := range sampleMeta()[:1] {
		fmt.Fprintf(&b, "queue/id:000003,src:000004+000005,op:zest,+cov\x00in\x01.wafer/meta/queue/id:000003,src:000004+000005,op:zest,+cov\x00%s\x01", s)
	}
	f.Add(b.Bytes())
	f.Add([]byte("crashes/id:000001\x00x\x01.wafer/checkpoint\x00wafer checkpoint v1\nexecs: 3\nend\n\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := memTree("/o", data)
		d, _, err := Open(context.Background(), "/o", Options{FS: m})
		if err != nil {
			return // e.g. a file where a directory must be
		}
		for _, e := range d.Entries() {
			if len(e.Input) > len(data) {
				t.Fatalf("entry larger than the input")
			}
		}
		for _, fl := range d.Failures() {
			if fl.Identity == "" {
				t.Fatal("failure without identity")
			}
		}
		d.Close()
	})
}

// FuzzSyncPeer reads fuzz-built sibling campaigns of "b" (queues,
// failures, sidecars) and b's .synced records of them: Poll returns only
// inputs that are files of a peer's queue, nothing again on a second Poll, and
// Failures only failures with an identity, each once.
func FuzzSyncPeer(f *testing.F) {
	var b bytes.Buffer
	s := sampleMeta()
	fmt.Fprintf(&b, "a/queue/id:000003,src:000004+000005,op:zest,+cov\x00in\x01a/.wafer/meta/queue/id:000003,src:000004+000005,op:zest,+cov\x00%s\x01", s[0])
	fmt.Fprintf(&b, "a/crashes/id:000001,kind:oob\x00in\x01a/.wafer/meta/crashes/id:000001,kind:oob\x00%s\x01", s[1])
	b.WriteString("a/queue/id:000000\x00x\x01a/queue/id:000009,op:havoc\x00y\x01b/.synced/a\x000 5 7\n\x01")
	f.Add(b.Bytes())
	f.Add([]byte("b/.synced/a\x00-1 x 3\x01a/queue/id:000001\x00q\x01a/queue/.tmp-id:000002.1\x00half\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := memTree("/r", data)
		d, _, err := Open(context.Background(), "/r/b", Options{FS: m})
		if err != nil {
			return
		}
		defer d.Close()
		queue := map[string]bool{}
		for p, content := range m.files {
			if rel, ok := strings.CutPrefix(p, "/r/"); ok && !strings.HasPrefix(rel, "b/") && strings.Contains(rel, "/queue/id:") {
				queue[string(content)] = true
			}
		}
		ctx := context.Background()
		s := d.Syncer()
		got, _, err := s.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if !queue[string(e.Input)] {
				t.Fatalf("Poll returned %q, no file of a peer's queue", e.Input)
			}
		}
		if again, _, _ := s.Poll(ctx); len(again) != 0 {
			t.Fatalf("second Poll returned %d entries again", len(again))
		}
		fails, _, err := s.Failures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, fl := range fails {
			if fl.Identity == "" {
				t.Fatal("peer failure without identity")
			}
		}
		if again, _, _ := s.Failures(ctx); len(again) != 0 {
			t.Fatalf("second Failures returned %d again", len(again))
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	})
}
