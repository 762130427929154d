package corpus

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// metaVersion is the first line of every sidecar.
const metaVersion = "wafer corpus v1"

// encodeMeta renders the sidecar of e (and of f when e is a failure's
// entry): "key: value" lines after the version line, strings Go-quoted,
// bytes in hex, ending with "end" so a truncated file is recognised.
func encodeMeta(e *Entry, f *Failure) []byte {
	var b bytes.Buffer
	b.WriteString(metaVersion + "\n")
	kv := func(k, v string) {
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	kv("name", strconv.Quote(e.Name))
	kv("id", strconv.Itoa(e.ID))
	kv("size", strconv.Itoa(len(e.Input)))
	kv("hash", fmt.Sprintf("%016x", e.Hash))
	if len(e.Parents) > 0 {
		kv("parents", joinInts(e.Parents))
	}
	if e.Op != "" {
		kv("op", strconv.Quote(e.Op))
	}
	if e.NewCov {
		kv("newcov", "true")
	}
	if e.Valid {
		kv("valid", "true")
	}
	if e.Time != 0 {
		kv("time", strconv.FormatInt(int64(e.Time), 10))
	}
	if e.Execs != 0 {
		kv("execs", strconv.FormatUint(e.Execs, 10))
	}
	if len(e.Added) > 0 {
		kv("added", joinU32(e.Added))
	}
	if e.Choices != nil {
		kv("choices", hex.EncodeToString(e.Choices))
	}
	if e.Kinds != nil {
		kv("kinds", hex.EncodeToString(e.Kinds))
	}
	if f != nil {
		kv("kind", strconv.Quote(f.Kind))
		if f.Hang {
			kv("hang", "true")
		}
		kv("message", strconv.Quote(f.Message))
		for _, fr := range f.Frames {
			kv("frame", strconv.Quote(fr))
		}
		kv("identity", strconv.Quote(f.Identity))
		if f.Site != "" {
			kv("site", strconv.Quote(f.Site))
		}
		kv("hits", strconv.FormatUint(f.Hits, 10))
		if f.Shrunk {
			kv("shrunk", "true")
		}
		if f.Repro != "" {
			kv("repro", strconv.Quote(f.Repro))
		}
		// A failure's sidecar carries its input, so replacing a
		// reproducer (two renames) can be repaired from the sidecar.
		kv("input", hex.EncodeToString(e.Input))
	}
	b.WriteString("end\n")
	return b.Bytes()
}

// VersionError is a file whose version line is of a newer format than
// this wafer reads (a newer wafer wrote it).
type VersionError struct {
	Found     string // the file's version line
	Supported string // the newest this wafer reads
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("written by a newer wafer: found version line %q, this wafer reads %q", e.Found, e.Supported)
}

// cutVersion checks that data starts with the version line want ("NAME
// vN") and returns the rest. A line "NAME vM" with M > N is a
// *VersionError; anything else not want is an error saying what was
// found.
func cutVersion(data []byte, want string) ([]byte, error) {
	if rest, ok := bytes.CutPrefix(data, []byte(want+"\n")); ok {
		return rest, nil
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	prefix, wantN, _ := strings.Cut(want, " v")
	if v, ok := strings.CutPrefix(string(first), prefix+" v"); ok {
		n, err := strconv.Atoi(v)
		if have, _ := strconv.Atoi(wantN); err == nil && n > have {
			return nil, &VersionError{Found: string(first), Supported: want}
		}
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("line 1: expected version line %q, got an empty file", want)
	}
	return nil, fmt.Errorf("line 1: expected version line %q, got %.40q", want, first)
}

// meta is a decoded sidecar.
type meta struct {
	Failure      // Entry fields plus failure fields
	failure bool // failure fields present
	size    int
	input   []byte // failures: the input copy (nil if absent)
	hasIn   bool
}

// DecodeMeta parses a sidecar ("wafer corpus v1"). It is exported for
// tools and fuzzing; Open uses it on every sidecar. The returned Failure's
// Entry.Input is the input copy a failure sidecar carries (nil for queue
// sidecars).
func DecodeMeta(data []byte) (Failure, error) {
	m, err := decodeMeta(data)
	if err != nil {
		return Failure{}, err
	}
	m.Failure.Input = m.input
	return m.Failure, nil
}

func decodeMeta(data []byte) (*meta, error) {
	m := &meta{size: -1}
	rest, err := cutVersion(data, metaVersion)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	lineNo := 1
	ended := false
	for len(rest) > 0 {
		lineNo++
		var line []byte
		var found bool
		line, rest, found = bytes.Cut(rest, []byte("\n"))
		if !found {
			return nil, fmt.Errorf("line %d: expected newline, got end of file (truncated)", lineNo)
		}
		if ended {
			return nil, fmt.Errorf("line %d: expected end of file after \"end\", got %.40q", lineNo, line)
		}
		if string(line) == "end" {
			ended = true
			continue
		}
		k, v, ok := strings.Cut(string(line), ": ")
		if !ok {
			return nil, fmt.Errorf("line %d: expected \"key: value\", got %.40q", lineNo, line)
		}
		if seen[k] && k != "frame" {
			return nil, fmt.Errorf("line %d: duplicate key %q", lineNo, k)
		}
		seen[k] = true
		if err := m.set(k, v); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", lineNo, k, err)
		}
	}
	if !ended {
		return nil, fmt.Errorf("expected \"end\" line, got end of file (truncated)")
	}
	for _, k := range []string{"name", "id", "size", "hash"} {
		if !seen[k] {
			return nil, fmt.Errorf("missing key %q", k)
		}
	}
	if m.failure && (!seen["kind"] || !seen["identity"]) {
		return nil, fmt.Errorf("failure sidecar: missing key \"kind\" or \"identity\"")
	}
	if m.hasIn && len(m.input) != m.size {
		return nil, fmt.Errorf("input: expected %d bytes, got %d", m.size, len(m.input))
	}
	return m, nil
}

func (m *meta) set(k, v string) error {
	var err error
	switch k {
	case "name":
		m.Name, err = strconv.Unquote(v)
	case "id":
		m.ID, err = atoiNonNeg(v)
	case "size":
		m.size, err = atoiNonNeg(v)
	case "hash":
		if len(v) != 16 {
			return fmt.Errorf("expected 16 hex digits, got %d", len(v))
		}
		m.Hash, err = strconv.ParseUint(v, 16, 64)
	case "parents":
		m.Parents, err = splitInts(v)
	case "op":
		m.Op, err = strconv.Unquote(v)
	case "newcov":
		m.NewCov, err = strconv.ParseBool(v)
	case "valid":
		m.Valid, err = strconv.ParseBool(v)
	case "time":
		var n int64
		n, err = strconv.ParseInt(v, 10, 64)
		m.Time = time.Duration(n)
	case "execs":
		m.Execs, err = strconv.ParseUint(v, 10, 64)
	case "added":
		m.Added, err = splitU32(v)
	case "choices":
		m.Choices, err = hex.DecodeString(v)
		if m.Choices == nil {
			m.Choices = []byte{}
		}
	case "kinds":
		m.Kinds, err = hex.DecodeString(v)
		if m.Kinds == nil {
			m.Kinds = []byte{}
		}
	case "kind":
		m.failure = true
		m.Kind, err = strconv.Unquote(v)
	case "hang":
		m.failure = true
		m.Hang, err = strconv.ParseBool(v)
	case "message":
		m.failure = true
		m.Message, err = strconv.Unquote(v)
	case "frame":
		m.failure = true
		var fr string
		fr, err = strconv.Unquote(v)
		m.Frames = append(m.Frames, fr)
	case "identity":
		m.failure = true
		m.Identity, err = strconv.Unquote(v)
	case "site":
		m.failure = true
		m.Site, err = strconv.Unquote(v)
	case "hits":
		m.failure = true
		m.Hits, err = strconv.ParseUint(v, 10, 64)
	case "shrunk":
		m.failure = true
		m.Shrunk, err = strconv.ParseBool(v)
	case "repro":
		m.failure = true
		m.Repro, err = strconv.Unquote(v)
	case "input":
		m.failure = true
		m.hasIn = true
		m.input, err = hex.DecodeString(v)
		if m.input == nil {
			m.input = []byte{}
		}
	default:
		// Unknown keys are ignored: a newer writer may add some.
	}
	return err
}

func atoiNonNeg(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("expected a non-negative number, got %d", n)
	}
	return n, nil
}

func joinInts(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

func joinU32(xs []uint32) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	}
	return b.String()
}

func splitInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := atoiNonNeg(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func splitU32(s string) ([]uint32, error) {
	var out []uint32
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			return nil, err
		}
		out = append(out, uint32(n))
	}
	return out, nil
}
