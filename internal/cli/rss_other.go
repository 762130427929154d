//go:build !unix

package cli

// peakRSSMB is not measured on this platform.
func peakRSSMB() int64 { return 0 }
