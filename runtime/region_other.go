//go:build !linux

package runtime

// Outside Linux regions are Go slices (region.go).

func osReserve(uint64) ([]byte, bool)         { return nil, false }
func osCommit([]byte) bool                    { return false }
func osDiscard([]byte) bool                   { return false }
func osRelease([]byte)                        {}
func osTouched([]byte, []bool) ([]bool, bool) { return nil, false }
