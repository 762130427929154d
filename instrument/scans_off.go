//go:build !waferscans

package instrument

// countScan counts a pass over a module's bytes in a build with the
// waferscans tag (scans_on.go); here it does nothing.
func countScan() {}
