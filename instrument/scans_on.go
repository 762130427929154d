//go:build waferscans

package instrument

import "sync/atomic"

// scans counts the passes over a module's bytes (a decode, or a walk of
// its section headers) in a build with the waferscans tag, which only the
// test counting them per campaign build uses (campaign's
// TestScansPerBuild); other builds count nothing.
var scans atomic.Int64

func countScan() { scans.Add(1) }

// Scans is the number of passes over a module's bytes so far, in a build
// with the waferscans tag.
func Scans() int64 { return scans.Load() }
