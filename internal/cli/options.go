package cli

import (
	"fmt"
	"regexp"
	"strings"
)

// iniFile is a fuzz target's .options file: the INI dialect the runners
// read with Python's configparser (OSS-Fuzz's base-runner parse_options.py,
// ClusterFuzz's bot/fuzzers/options.py): [section] headers, "key = value"
// or "key: value" lines, keys case-insensitive (lower-cased), whole-line
// comments starting with '#' or ';'. Sections and keys keep their order.
type iniFile struct {
	sections []iniSection
}

type iniSection struct {
	name string
	kvs  []iniKV
}

type iniKV struct{ key, value string }

// iniKeyRE is a key wafer writes: a flag name (libFuzzer's use '_',
// wafer's own '-').
var iniKeyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// parseINI reads an options file. What configparser would refuse (a line
// before any section, a duplicate section or key, a line that is neither)
// and what it reads differently from a plain key = value (continuation
// lines, [DEFAULT], whose keys it copies into every section) are errors
// "LINE: expected ...".
func parseINI(b []byte) (iniFile, error) {
	var f iniFile
	var cur *iniSection
	for i, line := range strings.Split(string(b), "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
			continue
		case line[0] == ' ' || line[0] == '\t':
			return iniFile{}, fmt.Errorf("%d: expected a [section] or key = value line starting in column 1, got an indented line (a continuation of the value above, which wafer does not write)", n)
		case t[0] == '[':
			name, ok := strings.CutSuffix(t, "]")
			name = strings.TrimSpace(name[1:])
			if !ok || name == "" || strings.ContainsAny(name, "[]") {
				return iniFile{}, fmt.Errorf("%d: expected a section header [name], got %q", n, t)
			}
			if name == "DEFAULT" {
				return iniFile{}, fmt.Errorf("%d: [DEFAULT] is copied into every section by the runners' parser: expected named sections only", n)
			}
			if f.find(name) != nil {
				return iniFile{}, fmt.Errorf("%d: duplicate section [%s]", n, name)
			}
			f.sections = append(f.sections, iniSection{name: name})
			cur = &f.sections[len(f.sections)-1]
		default:
			if cur == nil {
				return iniFile{}, fmt.Errorf("%d: expected a [section] header before %q", n, t)
			}
			k, v, ok := cutDelim(t)
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok || k == "" {
				return iniFile{}, fmt.Errorf("%d: expected key = value, got %q", n, t)
			}
			for _, kv := range cur.kvs {
				if kv.key == k {
					return iniFile{}, fmt.Errorf("%d: duplicate key %q in [%s]", n, k, cur.name)
				}
			}
			cur.kvs = append(cur.kvs, iniKV{k, strings.TrimSpace(v)})
		}
	}
	return f, nil
}

// cutDelim splits at the first '=' or ':', configparser's delimiters.
func cutDelim(s string) (k, v string, ok bool) {
	i := strings.IndexAny(s, "=:")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

func (f *iniFile) find(name string) *iniSection {
	for i := range f.sections {
		if f.sections[i].name == name {
			return &f.sections[i]
		}
	}
	return nil
}

// section returns the key/value pairs of section name, nil without it.
func (f *iniFile) section(name string) []iniKV {
	if s := f.find(name); s != nil {
		return s.kvs
	}
	return nil
}

// set sets key in section, adding either at the end when missing.
func (f *iniFile) set(section, key, value string) {
	s := f.find(section)
	if s == nil {
		f.sections = append(f.sections, iniSection{name: section})
		s = &f.sections[len(f.sections)-1]
	}
	for i := range s.kvs {
		if s.kvs[i].key == key {
			s.kvs[i].value = value
			return
		}
	}
	s.kvs = append(s.kvs, iniKV{key, value})
}

// render writes f back: parseINI(f.render()) is f.
func (f *iniFile) render() []byte {
	var b strings.Builder
	for i, s := range f.sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n", s.name)
		for _, kv := range s.kvs {
			fmt.Fprintf(&b, "%s = %s\n", kv.key, kv.value)
		}
	}
	return []byte(b.String())
}
