package campaign

import (
	"errors"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestLoadBadModules: Load rejects bytes that are no module, and modules
// wafer cannot run, naming the file, the offset and what was expected.
func TestLoadBadModules(t *testing.T) {
	hdr := "\x00asm\x01\x00\x00\x00"
	instrumented, _, err := instrument.Instrument(readFile(t, "../examples/tlv/tlv.wasm"), instrument.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		wasm   []byte
		want   string
		format bool  // the error wraps a *instrument.FormatError
		is     error // and this sentinel, if not nil
	}{
		{"empty file", nil,
			"x.wasm: not a WebAssembly module: offset 0x0: unexpected end: expected 8-byte header, got 0 bytes", true, nil},
		{"short header", []byte("\x00asm\x01"),
			"x.wasm: not a WebAssembly module: offset 0x5: unexpected end: expected 8-byte header, got 5 bytes", true, nil},
		{"wrong magic", []byte("hello, world\n"),
			"x.wasm: not a WebAssembly module: offset 0x0: bad magic: expected 00 61 73 6d, got 68 65 6c 6c", true, nil},
		{"wrong version", []byte("\x00asm\x02\x00\x00\x00"),
			"x.wasm: not a WebAssembly module: offset 0x4: bad version: expected 01 00 00 00, got 02 00 00 00", true, nil},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"),
			"x.wasm: not a WebAssembly module: offset 0x4: bad version: expected 01 00 00 00, got 0d 00 01 00: a WebAssembly component (component model), not a core module: wafer runs core modules; build the target for wasm32-wasip1 (or fuzz the core module the component embeds)", true, nil},
		{"truncated section", []byte(hdr + "\x01\x05\x00"),
			"x.wasm: not a WebAssembly module: section type: offset 0x9: section size 5 exceeds the 1 bytes left", true, nil},
		{"truncated section size", []byte(hdr + "\x01\xff"),
			"x.wasm: not a WebAssembly module: section type: offset 0x9: unexpected end of section size", true, nil},
		{"unknown section", []byte(hdr + "\x0e\x00"),
			"x.wasm: not a WebAssembly module: offset 0x8: expected section id 0-13, got 14", true, nil},
		{"memory64", []byte(hdr + "\x05\x03\x01\x04\x01"),
			"x.wasm: section memory: offset 0xb: memory64 limits (flags 0x04) are not supported", true, instrument.ErrUnsupported},
		{"instrumented", instrumented, "x.wasm: " + instrument.ErrInstrumented.Error(), false, instrument.ErrInstrumented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := Load("x.wasm", tc.wasm, TargetOptions{})
			if err == nil {
				t.Fatalf("Load returned %v, want the error %q", tg, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tc.want)
			}
			var fe *instrument.FormatError
			if errors.As(err, &fe) != tc.format {
				t.Errorf("errors.As(*instrument.FormatError) = %v, want %v", !tc.format, tc.format)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error does not wrap %q", tc.is)
			}
		})
	}
}
