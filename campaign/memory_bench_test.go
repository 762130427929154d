package campaign_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/generators"
)

func rssKB(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.HasPrefix(s.Text(), field) {
			v, _ := strconv.ParseInt(strings.Fields(s.Text())[1], 10, 64)
			return v
		}
	}
	return 0
}

// BenchmarkCampaignMemory runs one campaign on an example as the README's
// commands do (czstd and csqlite from their seeds, gojson with the json
// generator and its seeds as warm-up) and reports the process's peak
// resident memory (peak-rss-MB, from /proc: Linux only) and the Go heap
// in use at the end. It prints the resident memory and Go heap each
// second, and with WAFER_MEMPROF_OUT=FILE writes the heap profile (FILE)
// and /proc/self/smaps (FILE.smaps) whenever the resident memory reaches
// a new peak: where the memory goes (docs/PERFORMANCE.md,
// "Instance memories outside Go's heap"); with WAFER_MEMPROF_AT=N also FILE.N after a collection at
// second N (what the steady state holds); WAFER_MEMPROF_DIR=DIR writes
// the campaign's output directory there, as `wafer fuzz -o DIR` does. It
// runs only when
// WAFER_MEMPROF names the example:
//
//	WAFER_MEMPROF=czstd WAFER_MEMPROF_J=2 WAFER_MEMPROF_SECS=30 \
//	  go test ./campaign -run '^$' -bench CampaignMemory -benchtime 1x
func BenchmarkCampaignMemory(b *testing.B) {
	name := os.Getenv("WAFER_MEMPROF")
	if name == "" {
		b.Skip("set WAFER_MEMPROF to czstd, csqlite or gojson")
	}
	if rssKB("VmHWM") == 0 {
		b.Skip("no /proc/self/status")
	}
	t := b
	j, _ := strconv.Atoi(os.Getenv("WAFER_MEMPROF_J"))
	secs, _ := strconv.Atoi(os.Getenv("WAFER_MEMPROF_SECS"))
	secs = max(secs, 1)
	out := os.Getenv("WAFER_MEMPROF_OUT")
	at, _ := strconv.Atoi(os.Getenv("WAFER_MEMPROF_AT"))
	wasm, err := os.ReadFile(filepath.Join("../examples", name, name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	opts := campaign.Options{Search: campaign.Search{Seed: 1, Workers: max(1, j), MaxTotalTime: time.Duration(secs) * time.Second}, Output: os.Getenv("WAFER_MEMPROF_DIR")}
	var topts campaign.TargetOptions
	if name == "gojson" {
		ents, _ := os.ReadDir("../examples/gojson/seeds")
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join("../examples/gojson/seeds", e.Name()))
			topts.WarmUp = append(topts.WarmUp, b)
		}
		g, _ := generators.Lookup("json")
		opts.Generator = g
	} else {
		dir := filepath.Join("../examples", name, "seeds")
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			opts.Seeds = append(opts.Seeds, b)
		}
	}
	tg, err := campaign.Load(name+".wasm", wasm, topts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		var peak int64
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			r := rssKB("VmRSS")
			if out != "" && i+1 == at {
				goruntime.GC()
				f, _ := os.Create(fmt.Sprintf("%s.%d", out, at))
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if r > peak {
				peak = r
				if out != "" {
					f, _ := os.Create(out)
					pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
					if b, err := os.ReadFile("/proc/self/smaps"); err == nil {
						os.WriteFile(out+".smaps", b, 0o644)
					}
				}
			}
			fmt.Fprintf(os.Stderr, "t=%ds rss=%dMB heapInuse=%dMB heapSys=%dMB heapAlloc=%dMB nextGC=%dMB stackSys=%dMB otherSys=%dMB sys=%dMB\n", i+1, r>>10, ms.HeapInuse>>20, ms.HeapSys>>20, ms.HeapAlloc>>20, ms.NextGC>>20, ms.StackSys>>20, ms.OtherSys>>20, ms.Sys>>20)
		}
	}()
	var sum *campaign.Summary
	for range b.N {
		if sum, err = tg.Fuzz(ctx, opts); err != nil {
			break
		}
	}
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	b.ReportMetric(float64(rssKB("VmHWM"))/1024, "peak-rss-MB")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
	b.ReportMetric(float64(sum.Stats.Execs), "execs")
}
