// Package a is fuzzed with a module of its workspace, which its go.mod
// does not require.
package a
