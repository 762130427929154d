package cli

import (
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/engine"
)

// TestGenerativeFlags: the issue-31 flags land in campaign.Options, a 0
// probability meaning none (the fields' zero values mean the defaults), and
// bad values are refused with the flag named.
func TestGenerativeFlags(t *testing.T) {
	f := newFuzzFlags()
	err := f.parse([]string{"--strategy", "bedivfuzz", "--bedivfuzz-simple", "--epsilon", "0.3", "--spoton-targeted", "0",
		"--dict-prob", "0", "--int-bias", "0.25", "--hill", "valid", "--spoton-type-draws", "5",
		"--tree-share", "0.5", "--tree-mutations", "splice,recurse", "t.wasm"})
	if err != nil {
		t.Fatal(err)
	}
	o := f.opts
	want := engine.GenerativeOptions{BeDivSimple: true, Epsilon: 0.3, Targeted: -1, MaxDistance: 1000, TypeDraws: 5, MeanMutations: 4, MeanLength: 4,
		Tree: engine.TreeOptions{Share: 0.5, Off: 1<<engine.TreeReplace | 1<<engine.TreeDuplicate}}
	if o.Generative != want || o.DictProb != -1 || o.IntBias != 0.25 || !o.ValidHill {
		t.Errorf("got %+v, DictProb %v, IntBias %v, ValidHill %v; expected %+v, -1, 0.25, true", o.Generative, o.DictProb, o.IntBias, o.ValidHill, want)
	}
	d := newFuzzFlags()
	if err := d.parse([]string{"t.wasm"}); err != nil {
		t.Fatal(err)
	}
	if d.opts.DictProb != 0 || d.opts.IntBias != 0 || d.opts.Generative.Epsilon != 0 || d.opts.ValidHill {
		t.Errorf("defaults: got %+v", d.opts)
	}
	if d.opts.Generative.Tree != (engine.TreeOptions{}) {
		t.Errorf("defaults: tree options %+v, want the zero value", d.opts.Generative.Tree)
	}
	z := newFuzzFlags()
	if err := z.parse([]string{"--tree-share", "0", "--tree-mutations", "none", "t.wasm"}); err != nil {
		t.Fatal(err)
	}
	if tr := z.opts.Generative.Tree; tr.Share != -1 || tr.Off != engine.AllTreeOps {
		t.Errorf("--tree-share 0 --tree-mutations none: got %+v", tr)
	}
	for _, bad := range [][]string{{"--dict-prob", "1.5"}, {"--epsilon", "x"}, {"--hill", "some"}, {"--tree-mutations", "graft"}} {
		err := newFuzzFlags().parse(append(bad, "t.wasm"))
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("%v: got %v, expected an error naming the flag", bad, err)
		}
	}
}
