package corpus

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// coverByLetters: each distinct lowercase letter of the input is a
// feature.
func coverByLetters(_ context.Context, in []byte) ([]uint32, error) {
	var f []uint32
	for _, c := range in {
		if c >= 'a' && c <= 'z' {
			f = append(f, uint32(c))
		}
	}
	return f, nil
}

func seedsOf(ss ...string) []Seed {
	var out []Seed
	for _, s := range ss {
		out = append(out, Seed{Path: s, Data: []byte(s)})
	}
	return out
}

func names(ss []Seed) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Path)
	}
	return strings.Join(n, " ")
}

func TestMerge(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		base, cand []Seed
		want       string
		baseF, new int
	}{
		{"greedy picks the biggest gain", nil, seedsOf("ab", "cd", "abcd", "e", "a"), "abcd e", 0, 5},
		{"equal gain prefers the smaller input", nil, seedsOf("XXXXab", "ab", "Xab"), "ab", 0, 2},
		{"base features are covered", seedsOf("abc"), seedsOf("ab", "abd", "d", "abc"), "d", 3, 1},
		{"duplicates dropped", nil, seedsOf("q", "q"), "q", 0, 1},
		{"nothing new", seedsOf("abc"), seedsOf("a", "b"), "", 3, 0},
		{"set cover", nil, seedsOf("abcdef", "abc", "def", "g", "fg"), "abcdef g", 0, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Merge(ctx, tc.base, tc.cand, coverByLetters)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Keep); got != tc.want || res.BaseFeatures != tc.baseF || res.NewFeatures != tc.new {
				t.Fatalf("expected %q base %d new %d, got %q base %d new %d", tc.want, tc.baseF, tc.new, got, res.BaseFeatures, res.NewFeatures)
			}
		})
	}
	boom := errors.New("boom")
	_, err := Merge(ctx, nil, seedsOf("a"), func(context.Context, []byte) ([]uint32, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("expected the cover error, got %v", err)
	}
}

// TestMergeKeepsCoverage checks on many inputs that the kept set covers
// exactly the union of all features.
func TestMergeKeepsCoverage(t *testing.T) {
	var cand []Seed
	for i := range 500 {
		s := []byte{}
		for j := range i%7 + 1 {
			s = append(s, byte('a'+(i*7+j*13)%26), byte('A'+j))
		}
		cand = append(cand, Seed{Data: s})
	}
	cover := func(_ context.Context, in []byte) ([]uint32, error) {
		var f []uint32
		for i := 0; i+1 < len(in); i += 2 {
			f = append(f, uint32(in[i])<<8|uint32(in[i+1]), uint32(in[i])<<27)
		}
		return f, nil
	}
	res, err := Merge(context.Background(), nil, cand, cover)
	if err != nil {
		t.Fatal(err)
	}
	all, kept := map[uint32]bool{}, map[uint32]bool{}
	for _, c := range cand {
		f, _ := cover(nil, c.Data)
		for _, x := range f {
			all[x] = true
		}
	}
	for _, c := range res.Keep {
		f, _ := cover(nil, c.Data)
		for _, x := range f {
			kept[x] = true
		}
	}
	if len(all) != len(kept) || res.NewFeatures != len(all) || len(res.Keep) >= len(cand)/2 {
		t.Fatalf("expected all %d features from a small set, got %d features from %d inputs", len(all), len(kept), len(res.Keep))
	}
}
