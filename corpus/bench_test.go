package corpus

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func benchInput(i int) []byte {
	b := make([]byte, 256)
	binary.LittleEndian.PutUint64(b, uint64(i))
	for j := 8; j < len(b); j++ {
		b[j] = byte(i * j)
	}
	return b
}

// BenchmarkSave measures AddEntry with fsync (the default) and without,
// on the disk behind os.TempDir: 256-byte inputs with a 64-byte choice
// sequence and coverage.
func BenchmarkSave(b *testing.B) {
	for _, noSync := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync=%v", !noSync), func(b *testing.B) {
			ctx := context.Background()
			d, _, err := Open(ctx, b.TempDir(), Options{NoSync: noSync})
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				in := benchInput(i)
				if _, _, err := d.AddEntry(ctx, Entry{Input: in, Choices: in[:64], Parents: []int{max(i-1, 0)}, Op: "zest", NewCov: true, Coverage: []uint32{uint32(i), 7, 9}}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "saves/s")
			d.Close()
		})
	}
}

func fixtureEntry(i int) Entry {
	in := benchInput(i)
	e := Entry{Input: in, Choices: in[:64], Parents: []int{max(i-1, 0)}, Op: "zest", ID: i, Hash: xxhash.Sum64(in), Coverage: []uint32{uint32(i), 7, 9}}
	e.Name = entryName(i, "", e.Parents, e.Op, false)
	return e
}

// resumeFixture returns a campaign directory with n queue entries and
// their sidecars. Creating 2n files costs minutes on a slow file system,
// so it is built once per n in os.TempDir (a marker file says it is
// complete) and reused by later runs and -count repetitions.
func resumeFixture(b *testing.B, n int) string {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("wafer-corpus-bench-resume-%d-v3", n))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	for _, sub := range []string{"queue", ".wafer/meta/queue"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var cov Dir
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				e := fixtureEntry(i)
				if err := os.WriteFile(filepath.Join(dir, ".wafer/meta/queue", e.Name), encodeMeta(&e, nil), 0o644); err != nil {
					errs <- err
					return
				}
				if err := os.WriteFile(filepath.Join(dir, "queue", e.Name), e.Input, 0o644); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	cov.w.fs, cov.fs, cov.path = OS{}, OS{}, dir
	os.MkdirAll(filepath.Join(dir, ".wafer/cache"), 0o755)
	for i := range n {
		e := fixtureEntry(i)
		cov.appendIndex(&e, encodeMeta(&e, nil))
	}
	if err := cov.flushCoverage(false); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkResume measures Open of a campaign with 100,000 queue entries
// (each an input file and a sidecar, plus the index cache): "index" trusts
// the index for the entries it has (the default), "verify" reads and
// checks every file (Options.Verify).
func BenchmarkResume(b *testing.B) {
	for _, verify := range []bool{false, true} {
		name := "index"
		if verify {
			name = "verify"
		}
		b.Run(name, func(b *testing.B) { benchResume(b, verify) })
	}
}

func benchResume(b *testing.B, verify bool) {
	const n = 100_000
	ctx := context.Background()
	dir := resumeFixture(b, n)
	b.ResetTimer()
	for b.Loop() {
		d, skipped, err := Open(ctx, dir, Options{Verify: verify})
		if err != nil || skipped != nil {
			b.Fatal(err, skipped)
		}
		if es := d.Entries(); len(es) != n || es[n-1].Coverage == nil {
			b.Fatalf("expected %d entries with coverage, got %d", n, len(es))
		}
		d.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "entries/s")
}
