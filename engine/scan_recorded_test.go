package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recordedMaps reads testdata/counters-<name>.bin, counter maps of a
// real target's runs (written by campaign's TestRecordCounters): the
// number of counters and, per map, its hit sites as site<<8|count. A
// short or inconsistent file is an error naming the offset.
func recordedMaps(name string) (size int, maps [][]uint32, err error) {
	path := filepath.Join("testdata", "counters-"+name+".bin")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	for off := 0; off < len(b); {
		if len(b)-off < 8 {
			return 0, nil, fmt.Errorf("%s: offset %d: expected a map header of 8 bytes, %d left", path, off, len(b)-off)
		}
		n, k := int(binary.LittleEndian.Uint32(b[off:])), int(binary.LittleEndian.Uint32(b[off+4:]))
		off += 8
		if size != 0 && n != size {
			return 0, nil, fmt.Errorf("%s: offset %d: expected maps of %d counters, got %d", path, off-8, size, n)
		}
		size = n
		if k > (len(b)-off)/4 {
			return 0, nil, fmt.Errorf("%s: offset %d: expected %d entries, %d bytes left", path, off, k, len(b)-off)
		}
		m := make([]uint32, k)
		for i := range m {
			m[i] = binary.LittleEndian.Uint32(b[off+4*i:])
			if int(m[i]>>8) >= size || m[i]&0xff == 0 {
				return 0, nil, fmt.Errorf("%s: offset %d: expected a site below %d with a count, got %#x", path, off+4*i, size, m[i])
			}
		}
		off += 4 * k
		maps = append(maps, m)
	}
	return size, maps, nil
}

// recordedTargets are the targets with recorded counter maps.
var recordedTargets = []string{"gopng", "gojson"}

// TestScanMatchesReferenceRecorded: on the recorded maps of real Go
// reactors, in their campaign's order and with every outcome, the scanner
// reports exactly the reference's trace, hash and fresh decision, and the
// same hit counts.
func TestScanMatchesReferenceRecorded(t *testing.T) {
	for _, name := range recordedTargets {
		size, maps, err := recordedMaps(name)
		if err != nil {
			t.Fatal(err)
		}
		s := newScanner()
		ref := &refScanner{total: map[int]uint8{}, valid: map[int]bool{}, traces: map[uint64]bool{}, hits: map[uint32]uint32{}}
		c := make([]byte, size)
		for run := range 3 * len(maps) {
			for _, e := range maps[run%len(maps)] {
				c[e>>8] = byte(e)
			}
			o := []Outcome{Valid, Invalid, Valid, Crash, Valid, Hang}[run%6]
			wantTr, wantH, wantF := ref.scan(c, o)
			gotH, gotF := scanCopy(t, s, c, o)
			if !bytes.Equal(s.trace, wantTr) || gotH != wantH || gotF != wantF {
				t.Fatalf("%s run %d (%v): got hash %x fresh %v (%d entries), expected %x %v (%d)",
					name, run, o, gotH, gotF, len(s.trace)/traceEntry, wantH, wantF, len(wantTr)/traceEntry)
			}
			clear(c)
		}
		checkHits(t, name, s, ref.hits)
	}
}

// BenchmarkScanGoReactors scans the recorded counter maps of real Go
// reactors in a cycle (what a worker does after each run; setting the
// map's hits, a few hundred stores, is part of each op).
func BenchmarkScanGoReactors(b *testing.B) {
	for _, name := range recordedTargets {
		b.Run(name, func(b *testing.B) {
			size, maps, err := recordedMaps(name)
			if err != nil {
				b.Fatal(err)
			}
			s := newScanner()
			c := make([]byte, size)
			hits, i := 0, 0
			for b.Loop() {
				m := maps[i%len(maps)]
				for _, e := range m {
					c[e>>8] = byte(e)
				}
				hits += len(m)
				i++
				s.scan(c, Valid)
				if len(s.touched) > 1<<12 {
					s.flushHits()
				}
			}
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
	}
}

// TestScanHitCountOverflow: a site hit by more runs between two flushes
// than its 16-bit count holds is still counted exactly, and the next
// flush starts from zero.
func TestScanHitCountOverflow(t *testing.T) {
	s := newScanner()
	c := make([]byte, 70)
	const runs = 2*(1<<16) + 5
	for run := range runs {
		c[3], c[64] = 1, 2
		if run%3 == 0 {
			c[10] = 7
		}
		s.scan(c, Valid)
	}
	sites, counts := s.flushHits()
	want := map[uint32]uint32{3: runs, 64: runs, 10: (runs + 2) / 3}
	if len(sites) != len(want) {
		t.Fatalf("expected hits at %d sites, got sites %v", len(want), sites)
	}
	for i, site := range sites {
		if counts[i] != want[site] {
			t.Fatalf("site %d: expected %d hits, got %d", site, want[site], counts[i])
		}
	}
	c[3] = 1
	s.scan(c, Valid)
	if sites, counts := s.flushHits(); len(sites) != 1 || sites[0] != 3 || counts[0] != 1 {
		t.Fatalf("after a flush: expected site 3 hit once, got %v %v", sites, counts)
	}
}
