// Package heaproom has 16 MiB of pointers in its globals, which Go's
// collector counts in its goal: the heap may grow that far past the live
// heap before the next collection (wafer's gofuzz tests: the warm-up must
// leave that much free).
package heaproom

// Pointers is scanned by every collection.
var Pointers [1 << 21]*byte

// Keep stores p where the collector sees it.
func Keep(i int, p *byte) { Pointers[i%len(Pointers)] = p }
