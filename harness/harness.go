package harness

import "errors"

// ErrInvalid is a convenience error for fuzz functions that reject an input.
// Any non-nil error has the same effect: the input is invalid.
var ErrInvalid = errors.New("invalid input")

// fuzz is the registered fuzz function. It is set once, from init or main,
// before the first input arrives; it is not meant to change afterwards.
var fuzz func([]byte) error

// Fuzz registers f as the target's fuzz function. Call it once, from an init
// function. A second call replaces the function.
func Fuzz(f func(data []byte) error) {
	fuzz = f
}

// TestOneInput runs the registered fuzz function on data, as wafer does:
// 0 for valid, -1 for invalid (f returned an error). A panic propagates.
// It returns -1 when nothing is registered.
func TestOneInput(data []byte) int32 {
	if fuzz == nil {
		return -1
	}
	if fuzz(data) != nil {
		return -1
	}
	return 0
}
