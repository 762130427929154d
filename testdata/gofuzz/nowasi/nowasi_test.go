//go:build !wasip1

package nowasi

import "testing"

func FuzzF(f *testing.F) { f.Fuzz(func(t *testing.T, b []byte) { F() }) }
