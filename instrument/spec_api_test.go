package instrument_test

// The transformed lanes of the spec runner. This file binds the runner to
// package instrument's API.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/wafer-fuzz/wafer/instrument"
)

// specTransforms returns the transformed lanes; note says why some are
// missing.
func specTransforms() (ts []specTransform, note string) {
	return []specTransform{
		{name: "roundtrip", apply: specRoundTrip},
		{name: "counters", apply: specInstrument(instrument.Options{}), features: specInstrumentFeatures},
		{name: "fuel", apply: specInstrument(instrument.Options{Fuel: true}), features: specInstrumentFeatures},
		{name: "dirty", apply: specInstrument(instrument.Options{Fuel: true, DirtyPages: true, CallPairs: true}), features: specInstrumentFeatures},
		{name: "compares", apply: specInstrument(instrument.Options{Fuel: true, DirtyPages: true, Compares: true}), features: specInstrumentFeatures},
	}, ""
}

// specInstrumentFeatures: Instrument shifts a segment offset `global.get g`
// to `global.get g; i32.const reserved; i32.add`, an extended constant
// expression, so the instrumented lanes run with extended-const enabled
// (as runtime/ must).
const specInstrumentFeatures = experimental.CoreFeaturesExtendedConst

// specImportModules lists the module names wasm imports from (nil when it
// does not decode).
func specImportModules(wasm []byte) []string {
	m, err := instrument.Decode(wasm)
	if err != nil {
		return nil
	}
	var names []string
	for _, imp := range m.Imports {
		if imp.Module != "spectest" {
			names = append(names, imp.Module)
		}
	}
	return names
}

// specInstrument is transforms (b)–(d): Instrument with opts; the fuel
// lanes get their fuel global filled after instantiation.
func specInstrument(opts instrument.Options) func([]byte) ([]byte, string, error) {
	return func(wasm []byte) ([]byte, string, error) {
		out, sm, err := instrument.Instrument(wasm, opts)
		if err != nil {
			return nil, "", err
		}
		return out, sm.Layout.FuelExport, nil
	}
}

// specRoundTrip is transform (a): decode, encode, and check that the
// encoding decodes to an equal module and re-encodes to the same bytes.
func specRoundTrip(wasm []byte) ([]byte, string, error) {
	m, err := instrument.Decode(wasm)
	if err != nil {
		return nil, "", fmt.Errorf("decode: %w", err)
	}
	out := m.Encode()
	m2, err := instrument.Decode(out)
	if err != nil {
		return nil, "", fmt.Errorf("decode of the re-encoded module: %w", err)
	}
	if !specSameModule(m, m2) {
		return nil, "", errors.New("re-encoded module decodes to a different module")
	}
	if again := m2.Encode(); !bytes.Equal(again, out) {
		return nil, "", errors.New("encoding is not stable: Encode(Decode(Encode(m))) != Encode(m)")
	}
	return out, "", nil
}

// specSameModule compares two decoded modules, ignoring where things were
// in the file (offsets and sizes), since an encoder may choose other LEB128
// widths than the input. It clears those fields in a and b.
func specSameModule(a, b *instrument.Module) bool {
	specClearPositions(reflect.ValueOf(a))
	specClearPositions(reflect.ValueOf(b))
	return reflect.DeepEqual(a, b)
}

// specClearPositions zeroes every integer field named Off, Offset, Size or
// CodeOffset reachable from v (file positions in instrument.Module).
func specClearPositions(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			specClearPositions(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := 0; i < v.Len(); i++ {
			specClearPositions(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !v.Type().Field(i).IsExported() {
				continue
			}
			switch v.Type().Field(i).Name {
			case "Off", "Offset", "Size", "CodeOffset":
				if f.CanInt() {
					f.SetInt(0)
					continue
				}
				if f.CanUint() {
					f.SetUint(0)
					continue
				}
			}
			specClearPositions(f)
		}
	}
}

// specSkipReason turns an error the scheme documents (instrument.ErrUnsupported)
// into a counted skip reason.
func specSkipReason(err error) (string, bool) {
	if !errors.Is(err, instrument.ErrUnsupported) {
		return "", false
	}
	// "instrument: module imports its memory: unsupported (why…)" → "module imports its memory"
	msg := err.Error()
	if i := strings.Index(msg, " ("); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimPrefix(msg, "instrument: ")
	msg = strings.TrimSuffix(msg, ": unsupported")
	return "unsupported: " + msg, true
}

// specKnownIssues lists mismatches that are open instrument bugs (reported in
// /work/team/instrument-bugs.md), keyed "dir/script:line:lane"; each is
// counted as a named skip instead of failing the run.
func specKnownIssues() map[string]string {
	return map[string]string{}
}

// specMutateConsts is a deliberately wrong transform for the runner's
// self-test: every i32.const in a function body gets its value plus one.
func specMutateConsts(wasm []byte) ([]byte, string, error) {
	m, err := instrument.Decode(wasm)
	if err != nil {
		return nil, "", err
	}
	for i := range m.Code {
		for _, in := range m.Code[i].Body.All() {
			if in.Op == instrument.OpI32Const {
				in.A = uint64(int64(int32(in.A + 1)))
			}
		}
	}
	return m.Encode(), "", nil
}
