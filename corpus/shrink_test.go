package corpus

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// Synthetic targets with known minimal failing inputs.
func containsBUG(_ context.Context, b []byte) (string, error) {
	if bytes.Contains(b, []byte("BUG")) {
		return "bug", nil
	}
	return "", nil
}

func sumAtLeast100(_ context.Context, b []byte) (string, error) {
	s := 0
	for _, c := range b {
		s += int(c)
	}
	if s >= 100 {
		return "sum", nil
	}
	return "", nil
}

// thirdByte fails when the input has at least 5 bytes and b[2] >= 7, with
// another identity when b[0] is odd (so shrinking must keep b[0] even).
func thirdByte(_ context.Context, b []byte) (string, error) {
	if len(b) >= 5 && b[2] >= 7 {
		if b[0]%2 == 1 {
			return "other", nil
		}
		return "third", nil
	}
	return "", nil
}

// listGen interprets a choice sequence as a generator would: b[0] is a
// list length, the next b[0] bytes its values (missing ones are 0); it
// fails when a value is above 50.
func listGen(_ context.Context, b []byte) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	n := int(b[0])
	for i := 1; i <= n && i < len(b); i++ {
		if b[i] > 50 {
			return "big", nil
		}
	}
	return "", nil
}

func TestShrink(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		generator bool
		run       RunFunc
		in        []byte
		identity  string
		want      []byte
	}{
		{"bug substring", false, containsBUG, []byte("xxxxxxxxxxxxBUGyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy0123456789"), "bug", []byte("BUG")},
		{"sum", false, sumAtLeast100, []byte{90, 90, 90, 3, 250, 7}, "sum", []byte{100}},
		{"third byte keeps identity", false, thirdByte, []byte{3, 9, 200, 9, 9, 9, 9, 9}, "third", []byte{0, 0, 7, 0, 0}},
		{"generator list", true, listGen, []byte{5, 1, 2, 99, 4, 5, 77, 88}, "big", []byte{1, 51}},
		{"generator bug", true, containsBUG, []byte("aBUGbBUGc"), "bug", []byte("BUG")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r1, r2 Shrunk
			var err error
			for i, r := range []*Shrunk{&r1, &r2} {
				if tc.generator {
					*r, err = ShrinkChoices(ctx, tc.in, nil, tc.identity, tc.run, ShrinkOptions{})
				} else {
					*r, err = ShrinkBytes(ctx, tc.in, tc.identity, tc.run, ShrinkOptions{})
				}
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
			}
			if !bytes.Equal(r1.Data, tc.want) || !r1.Done {
				t.Fatalf("expected %q (done), got %q after %d runs (done %v)", tc.want, r1.Data, r1.Runs, r1.Done)
			}
			if !bytes.Equal(r1.Data, r2.Data) || r1.Runs != r2.Runs {
				t.Fatalf("not deterministic: %q/%d vs %q/%d", r1.Data, r1.Runs, r2.Data, r2.Runs)
			}
			t.Logf("%d -> %d bytes in %d runs", len(tc.in), len(r1.Data), r1.Runs)
		})
	}
}

func TestShrinkKinds(t *testing.T) {
	in := []byte{5, 1, 2, 99, 4, 5, 77, 88}
	kinds := []byte{'L', 'v', 'v', 'v', 'v', 'v', 'x', 'x'}
	r, err := ShrinkChoices(context.Background(), in, kinds, "big", listGen, ShrinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The kept bytes are in[2] (now read as the length) and in[3] (the
	// big value): kinds follow the bytes they belong to.
	if !bytes.Equal(r.Data, []byte{1, 51}) || !bytes.Equal(r.Kinds, []byte{'v', 'v'}) {
		t.Fatalf("expected [1 51] with kinds vv, got %v %q", r.Data, r.Kinds)
	}
}

func TestShrinkBudget(t *testing.T) {
	in := bytes.Repeat([]byte("a"), 1000)
	in = append(in, "BUG"...)
	calls := 0
	run := func(ctx context.Context, b []byte) (string, error) {
		calls++
		return containsBUG(ctx, b)
	}
	r, err := ShrinkBytes(context.Background(), in, "bug", run, ShrinkOptions{Budget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 10 || r.Runs != 10 || r.Done {
		t.Fatalf("expected exactly 10 runs and not done, got calls %d runs %d done %v", calls, r.Runs, r.Done)
	}
	if !bytes.Contains(r.Data, []byte("BUG")) || len(r.Data) >= len(in) {
		t.Fatalf("expected a smaller failing input, got %d bytes", len(r.Data))
	}
	boom := errors.New("runtime broke")
	_, err = ShrinkBytes(context.Background(), in, "bug", func(context.Context, []byte) (string, error) { return "", boom }, ShrinkOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("expected the run error, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ShrinkBytes(ctx, in, "bug", containsBUG, ShrinkOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("expected context.Canceled, got %v", err)
	}
}
