package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
)

// TestPlotDataRSS: a campaign's plot_data rows carry the process's
// resident memory, between the heap Go has in use and the process's peak
// as the kernel counts them.
func TestPlotDataRSS(t *testing.T) {
	tg := loadTLV(t)
	out := t.TempDir()
	if _, err := tg.Fuzz(context.Background(), Options{Search: Search{Runs: 2000, KeepGoing: true}, Output: out, NoFsync: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := corpus.ParsePlot(readFile(t, filepath.Join(out, corpus.PlotFile)))
	if err != nil || len(rows) == 0 {
		t.Fatalf("plot_data: %d rows, %v", len(rows), err)
	}
	peak := vmKiB(t, "VmHWM:")
	for i, r := range rows {
		// the Go runtime alone is a few MiB resident; tlv's worker maps more
		if r.RSS < 4<<10 || r.RSS > peak {
			t.Errorf("row %d: rss_kib %d, expected at least 4 MiB and at most the peak, %d KiB", i, r.RSS, peak)
		}
	}
}

// vmKiB reads a line of /proc/self/status in KiB.
func vmKiB(t *testing.T, key string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("%s %q: %v", key, v, err)
			}
			return n
		}
	}
	t.Fatalf("no %s line in /proc/self/status", key)
	return 0
}
