package gofuzz

import "testing"

func TestFastSkips(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no args", "func(t *testing.T, b []byte) {\n\tif len(b) == 0 {\n\t\tt.Skip()\n\t}\n}",
			"func(t *testing.T, b []byte) {\n\tif len(b) == 0 {\n\t\twaferFuzzSkipper{t}.Skip()\n\t}\n}"},
		{"args and Skipf", "func(tt *testing.T, s string) { tt.Skip(\"x\", s); tt.Skipf(\"%q\", s); tt.SkipNow() }",
			"func(tt *testing.T, s string) { waferFuzzSkipper{tt}.Skip(\"x\", s); waferFuzzSkipper{tt}.Skipf(\"%q\", s); tt.SkipNow() }"},
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
