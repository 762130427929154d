package instrument

import (
	"errors"
	"fmt"
)

// ErrUnsupported is returned (wrapped) for valid input that wafer cannot
// handle, such as an imported memory or a memory64 module.
var ErrUnsupported = errors.New("unsupported")

// FormatError is a malformed module. Offset is absolute in the file,
// Section names the section being read ("" for the header).
type FormatError struct {
	Section string
	Offset  int
	Msg     string
	Err     error // optional cause (ErrUnsupported, a leb128 error)
}

func (e *FormatError) Error() string {
	if e.Section == "" {
		return fmt.Sprintf("offset %#x: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("section %s: offset %#x: %s", e.Section, e.Offset, e.Msg)
}

// Unwrap returns the cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }
