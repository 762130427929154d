package cli

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseINI: what the runners' configparser reads the same way is
// read, keys lower-cased and values trimmed; what it refuses or reads
// otherwise is an error naming the line.
func TestParseINI(t *testing.T) {
	f, err := parseINI([]byte("; comment\n# comment\n[libfuzzer]\nMax_Len = 64\ndict: x.dict\r\n\n[asan]\nallocator_may_return_null=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []iniSection{
		{"libfuzzer", []iniKV{{"max_len", "64"}, {"dict", "x.dict"}}},
		{"asan", []iniKV{{"allocator_may_return_null", "1"}}},
	}
	if !reflect.DeepEqual(f.sections, want) {
		t.Errorf("got %+v, expected %+v", f.sections, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"max_len = 5\n", "1: expected a [section] header"},
		{"[libfuzzer]\nmax_len = 5\n  6\n", "3: expected a [section] or key = value line starting in column 1"},
		{"[libfuzzer]\n[libfuzzer]\n", "2: duplicate section [libfuzzer]"},
		{"[libfuzzer]\nruns=1\nRUNS=2\n", `3: duplicate key "runs"`},
		{"[DEFAULT]\nx=1\n", "1: [DEFAULT]"},
		{"[libfuzzer]\njust a word\n", "2: expected key = value"},
		{"[libfuzzer\n", "1: expected a section header"},
		{"[libfuzzer]\n= 5\n", "2: expected key = value"},
	} {
		if _, err := parseINI([]byte(tc.in)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, expected an error starting %q", tc.in, err, tc.want)
		}
	}
}

// TestINISet: set replaces a key in place, adds a missing key at the end
// of its section and a missing section at the end.
func TestINISet(t *testing.T) {
	f, _ := parseINI([]byte("[asan]\na=1\n[libfuzzer]\nruns=1\nmax_len=2\n"))
	f.set("libfuzzer", "runs", "5")
	f.set("libfuzzer", "dict", "d")
	f.set("ubsan", "b", "2")
	want := "[asan]\na = 1\n\n[libfuzzer]\nruns = 5\nmax_len = 2\ndict = d\n\n[ubsan]\nb = 2\n"
	if got := string(f.render()); got != want {
		t.Errorf("got\n%s\nexpected\n%s", got, want)
	}
}

// FuzzParseINI: any file parseINI reads renders to one it reads back the
// same (render is what wafer wrap writes), and no input panics.
func FuzzParseINI(f *testing.F) {
	f.Add([]byte("[libfuzzer]\nmax_len = 64\ndict: x.dict\n"))
	f.Add([]byte("# c\n[a]\nk=v=w\n[b]\nx:y\n"))
	f.Add([]byte("[a ]\n k=v\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ini, err := parseINI(b)
		if err != nil {
			return
		}
		again, err := parseINI(ini.render())
		if err != nil {
			t.Fatalf("render of %q: %v\n%s", b, err, ini.render())
		}
		if !reflect.DeepEqual(again.sections, ini.sections) && !(len(again.sections) == 0 && len(ini.sections) == 0) {
			t.Fatalf("round trip of %q: got %+v, expected %+v", b, again.sections, ini.sections)
		}
	})
}
