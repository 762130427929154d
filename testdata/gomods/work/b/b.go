// Package b is the workspace's other module, which a's fuzz test imports.
package b

// Origin names the copy of this package a build used.
const Origin = "workspace module b"

// Long reports whether s is longer than 8 bytes.
func Long(s string) bool { return len(s) > 8 }
