package gofuzz

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFastSkips(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"statement", "func(t *testing.T, b []byte) {\n\tif len(b) == 0 {\n\t\tt.Skip()\n\t}\n}",
			"func(t *testing.T, b []byte) {\n\tif len(b) == 0 {\n\t\t{ waferFuzzSkipper{t}.Mark(); return }\n\t}\n}"},
		{"statements with arguments", "func(tt *testing.T, s string) { tt.Skip(\"x\",\n s); tt.Skipf(\"%q\", s); tt.SkipNow() }",
			"func(tt *testing.T, s string) { { waferFuzzSkipper{tt}.Mark(\"x\",\n s); return }; { waferFuzzSkipper{tt}.Markf(\"%q\", s); return }; { waferFuzzSkipper{tt}.MarkNow(); return } }"},
		{"not statements", "func(t *testing.T, b []byte) { defer t.Skip(); f := func() { t.Skipf(\"x\") }; f() }",
			"func(t *testing.T, b []byte) { defer waferFuzzSkipper{t}.Skip(); f := func() { waferFuzzSkipper{t}.Skipf(\"x\") }; f() }"},
		{"other receivers", "func(t *testing.T, b []byte) { u.Skip(); t.Log(); t.Run(\"a\", func(t *testing.T) { t.Skip() }) }",
			"func(t *testing.T, b []byte) { u.Skip(); t.Log(); t.Run(\"a\", func(t *testing.T) { t.Skip() }) }"},
		{"split over lines", "func(t *testing.T, b []byte) { t.\nSkip() }", "func(t *testing.T, b []byte) { t.\nSkip() }"},
		{"not a literal", "fuzzOne", "fuzzOne"},
		{"blank T", "func(_ *testing.T, b []byte) { t.Skip() }", "func(_ *testing.T, b []byte) { t.Skip() }"},
		{"does not parse", "func(t *testing.T { t.Skip() }", "func(t *testing.T { t.Skip() }"},
	} {
		if got := string(fastSkips([]byte(tc.in))); got != tc.want {
			t.Errorf("%s: fastSkips(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// otherSkips finds a Skip call fastSkips left (in a helper of another
// test file, or on another name in the wrapped file), and none when all
// were rewritten.
func TestOtherSkips(t *testing.T) {
	dir := t.TempDir()
	fuzz := filepath.Join(dir, "a_test.go")
	src := "package p\n\nfunc FuzzA(f *testing.F) {\n\tf.Fuzz(func(t *testing.T, b []byte) {\n\t\tt.Skip()\n\t})\n}\n"
	if err := os.WriteFile(fuzz, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	start := len("package p\n\nfunc FuzzA(f *testing.F) {\n\tf.Fuzz(")
	end := len(src) - len(")\n}\n")
	decls := []fuzzDecl{{name: "FuzzA", call: fuzzCall{file: fuzz, start: start, end: end}}}
	w, err := wrapCalls(fuzz, decls)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := map[string][]byte{fuzz: w}
	if otherSkips(dir, "FuzzA", wrapped) {
		t.Errorf("every skip rewritten, otherSkips says one is left:\n%s", w)
	}
	if !otherSkips(dir, "FuzzA", map[string][]byte{fuzz: []byte(src)}) {
		t.Errorf("the file as it is: otherSkips misses its t.Skip")
	}
	other := "package p\n\nfunc FuzzB(f *testing.F) {\n\tf.Fuzz(func(t *testing.T, b []byte) { t.Skip() })\n}\n\nfunc TestC(t *testing.T) { t.Skip() }\n"
	if err := os.WriteFile(filepath.Join(dir, "b_test.go"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if otherSkips(dir, "FuzzA", wrapped) {
		t.Errorf("skips of another fuzz test and a test only: otherSkips says the fuzz function may reach one")
	}
	helper := "package p\n\nfunc skipIf(tb testing.TB, c bool) {\n\tif c {\n\t\ttb.SkipNow()\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "h_test.go"), []byte(helper), 0o644); err != nil {
		t.Fatal(err)
	}
	if !otherSkips(dir, "FuzzA", wrapped) {
		t.Errorf("a helper's tb.SkipNow in another test file: otherSkips misses it")
	}
}
