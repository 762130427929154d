package gofuzz

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

// IsCorpusFile reports whether b is a corpus file of go test -fuzz.
func IsCorpusFile(b []byte) bool { return corpus.IsGoCorpus(b) }

// CorpusFileName is the name go test -fuzz gives a corpus file: the first
// 16 hex digits of its SHA-256.
func CorpusFileName(file []byte) string {
	return fmt.Sprintf("%x", sha256.Sum256(file))[:16]
}

// ReadCorpusFile reads a corpus file of go test -fuzz
// (corpus.ParseGoCorpusValues) into values of the fields' types. Errors
// give the line or the value and what was expected.
func ReadCorpusFile(b []byte, fields []generators.Field) ([]any, error) {
	values, err := corpus.ParseGoCorpusValues(b)
	if err != nil {
		return nil, err
	}
	if len(values) != len(fields) {
		return nil, fmt.Errorf("%d values: expected %d (%s)", len(values), len(fields), typeList(fields))
	}
	for i, v := range values {
		if t, ok := valueType(v); !ok || t != fields[i].Type {
			return nil, fmt.Errorf("value %d (%s): %T, expected %s", i+1, fields[i].Name, v, fields[i].Type)
		}
	}
	return values, nil
}

func typeList(fields []generators.Field) string {
	var ts []string
	for _, f := range fields {
		ts = append(ts, f.Type.String())
	}
	return strings.Join(ts, ", ")
}

// valueType is the argument type of a value ParseGoCorpusValues gives.
func valueType(v any) (generators.ValueType, bool) {
	switch v.(type) {
	case []byte:
		return generators.TypeBytes, true
	case string:
		return generators.TypeString, true
	case bool:
		return generators.TypeBool, true
	case int:
		return generators.TypeInt, true
	case int8:
		return generators.TypeInt8, true
	case int16:
		return generators.TypeInt16, true
	case int32:
		return generators.TypeInt32, true
	case int64:
		return generators.TypeInt64, true
	case uint:
		return generators.TypeUint, true
	case uint8:
		return generators.TypeUint8, true
	case uint16:
		return generators.TypeUint16, true
	case uint32:
		return generators.TypeUint32, true
	case uint64:
		return generators.TypeUint64, true
	case float32:
		return generators.TypeFloat32, true
	case float64:
		return generators.TypeFloat64, true
	}
	return 0, false
}

// TestdataDir is where go test keeps t's seed corpus and findings
// (testdata/fuzz/FuzzXxx in the package's directory).
func (t *Test) TestdataDir() string { return filepath.Join(t.Dir, "testdata", "fuzz", t.Name) }

// ReadCorpusDir reads the corpus files of dir, tuple-encoded for fields,
// in name order. A missing dir has none; a file that is not a corpus
// file of these fields is left out and its error (naming the file) is in
// skipped.
func ReadCorpusDir(dir string, fields []generators.Field) (inputs [][]byte, skipped []error, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		values, err := ReadCorpusFile(b, fields)
		if err == nil {
			var in []byte
			if in, err = generators.EncodeTuple(fields, values); err == nil {
				inputs = append(inputs, in)
				continue
			}
		}
		skipped = append(skipped, fmt.Errorf("%s: %w", path, err))
	}
	return inputs, skipped, nil
}

// WriteCorpusFile writes input (tuple-encoded for fields) into dir as
// go test -fuzz writes a finding (CorpusFileName, atomically), creating
// dir, and returns the file's path.
func WriteCorpusFile(dir string, fields []generators.Field, input []byte) (string, error) {
	b := corpus.FormatGoCorpusValues(generators.DecodeTuple(fields, input))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, CorpusFileName(b))
	return path, atomicfile.Write(path, b)
}
