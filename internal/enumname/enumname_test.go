package enumname

import (
	"errors"
	"slices"
	"testing"
)

type color uint8

const (
	unset color = iota
	red
	green
)

var colors = New[color]("color", "colour", "", "red", "green")

func TestString(t *testing.T) {
	for _, tc := range []struct {
		v    color
		want string
	}{
		{unset, ""}, {red, "red"}, {green, "green"}, {3, "color(3)"}, {255, "color(255)"},
	} {
		if got := colors.String(tc.v); got != tc.want {
			t.Errorf("String(%d): expected %q, got %q", tc.v, tc.want, got)
		}
	}
	type signed int
	neg := New[signed]("signed", "signed", "zero")
	if got := neg.String(-1); got != "signed(-1)" {
		t.Errorf("String(-1): expected \"signed(-1)\", got %q", got)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want color
		err  string
	}{
		{"red", red, ""},
		{"green", green, ""},
		{"", 0, `unknown colour "": expected one of red, green`},
		{"blue", 0, `unknown colour "blue": expected one of red, green`},
		{"Red", 0, `unknown colour "Red": expected one of red, green`},
	} {
		got, err := colors.Parse(tc.s)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("Parse(%q): expected %d, got %d, %v", tc.s, tc.want, got, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || err.Error() != tc.err || e.Name != tc.s {
			t.Errorf("Parse(%q): expected error %q, got %d, %v", tc.s, tc.err, got, err)
		}
	}
}

// TestRoundTrip: every named value parses back from its String.
func TestRoundTrip(t *testing.T) {
	for v := range color(3) {
		name := colors.String(v)
		if name == "" {
			continue
		}
		if got, err := colors.Parse(name); err != nil || got != v {
			t.Errorf("Parse(String(%d)) = %d, %v", v, got, err)
		}
	}
	if got := colors.Names(); !slices.Equal(got, []string{"red", "green"}) {
		t.Errorf("Names: expected [red green], got %q", got)
	}
}
