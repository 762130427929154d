package generators

import "bytes"

// Raw is the identity generator: one variable-length value choice whose
// bytes are the input. Run(Raw, FromBytes(b), …) returns b; on the zero
// Sequence it returns 0–256 fresh PRNG bytes. Raw-byte fuzzing is generator
// fuzzing with Raw: havoc mutates used.Bytes() (or builds FromBytes /
// WithBytes of a mutant) and runs it again.
func Raw(s *Source) []byte { return bytes.Clone(s.rest()) }
