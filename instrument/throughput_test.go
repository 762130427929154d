package instrument

import (
	"os"
	goruntime "runtime"
	"testing"
)

// BenchmarkThroughput reports Instrument's speed on the largest checked-in
// Go program as MB/s of wall time and of thread CPU time (the machine is
// shared; CPU time is the stable figure).
//
//	go test ./instrument -run '^$' -bench Throughput -count 6
func BenchmarkThroughput(b *testing.B) {
	for _, p := range []string{"testdata/programs/gocalc/gocalc.wasm", "testdata/programs/gobig/gobig.wasm", "testdata/programs/cwords/cwords.wasm"} {
		wasm, err := os.ReadFile(p)
		if err != nil {
			b.Skipf("program not built: %v", err)
		}
		for _, o := range coreOptionSets[:1] {
			b.Run(p[len("testdata/programs/"):]+"/"+o.name, func(b *testing.B) {
				goruntime.LockOSThread()
				defer goruntime.UnlockOSThread()
				b.SetBytes(int64(len(wasm)))
				b.ReportAllocs()
				cpu0 := threadCPU()
				for b.Loop() {
					if _, _, err := Instrument(wasm, o.opts); err != nil {
						b.Fatal(err)
					}
				}
				cpu := float64(threadCPU()-cpu0) / 1e9
				b.ReportMetric(float64(len(wasm))*float64(b.N)/cpu/1e6, "cpu-MB/s")
			})
		}
	}
}
