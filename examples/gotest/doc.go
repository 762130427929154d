// Package gotest is a wafer example of Go fuzz tests run with no harness
// to write: the properties of the gojson, gopng and goparser examples as
// ordinary `func FuzzXxx(f *testing.F)` tests (roundtrip_test.go), which
// both go test -fuzz and wafer run:
//
//	wafer fuzz ./examples/gotest:FuzzJSON --max-total-time 60s
//	go test -fuzz FuzzJSON ./examples/gotest
//
// An input the code under test rejects is skipped (t.Skip), which wafer
// counts as invalid; a violated property fails the test (t.Fatalf), which
// is a crash.
package gotest
