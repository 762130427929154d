package harness

import (
	"errors"
	"testing"
)

func TestTestOneInput(t *testing.T) {
	t.Cleanup(func() { fuzz = nil })
	if got := TestOneInput([]byte("x")); got != -1 {
		t.Fatalf("unregistered: expected -1, got %d", got)
	}
	Fuzz(func(data []byte) error {
		if len(data) == 0 {
			return errors.New("empty")
		}
		if data[0] == 'p' {
			panic("boom")
		}
		return nil
	})
	tests := []struct {
		name string
		in   []byte
		want int32
	}{
		{"valid", []byte("ok"), 0},
		{"invalid", nil, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TestOneInput(tc.in); got != tc.want {
				t.Fatalf("expected %d, got %d", tc.want, got)
			}
		})
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("expected panic boom, got %v", r)
			}
		}()
		TestOneInput([]byte("p"))
		t.Fatal("expected a panic")
	}()
}
