package heaproom

import (
	"runtime"
	"testing"
)

// FuzzHeapRoom fails when allocating half of the room to the collector's
// goal grows the heap: the warm-up before wafer's snapshot left less free
// than a run may allocate, and a run that grows memory costs a new
// instance.
func FuzzHeapRoom(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		room := int(before.NextGC) - int(before.HeapAlloc)
		var keep [][]byte
		for n := 0; n < room/2; n += 64 << 10 {
			keep = append(keep, make([]byte, 64<<10))
		}
		runtime.ReadMemStats(&after)
		if after.HeapSys > before.HeapSys {
			t.Fatalf("the heap grew by %d bytes for %d of the %d bytes to the collector's goal", after.HeapSys-before.HeapSys, room/2, room)
		}
		Keep(len(data), nil)
	})
}
