package campaign

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestReadSeedJSON: through the API, a campaign with generators.JSON and
// its reader starts from the seeds it reads back (as JSON writes them);
// a seed it cannot read is counted in one line of Log, not fatal.
func TestReadSeedJSON(t *testing.T) {
	wasm, err := os.ReadFile("../examples/gojson/gojson.wasm")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Load("gojson.wasm", wasm, TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	read, ok := generators.LookupReader("json")
	if !ok {
		t.Fatal("no reader for json")
	}
	var log bytes.Buffer
	out := t.TempDir()
	sum, err := tg.Fuzz(context.Background(), Options{
		Search:    Search{Strategy: "zest", Seed: 1, KeepGoing: true},
		Generator: generators.JSON, ReadSeed: read, SeedsOnly: true,
		Seeds: [][]byte{[]byte(`{"k" : [1, "\u0041"]}`), []byte(`[1,`)},
		Log:   &log, Output: out, NoFsync: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 of 2 seed inputs not read back into choice sequences (the first: json: offset 3: expected a value, got end of input)"; !strings.Contains(log.String(), want) {
		t.Errorf("log: expected %q in\n%s", want, log.String())
	}
	found := false
	q := queueFiles(t, out)
	for _, in := range q {
		found = found || string(in) == `{"k":[1,"A"]}`
	}
	if !found {
		t.Errorf("the seed as JSON writes it is not in the queue: %q", q)
	}
	if sum.Stats.Execs != 1 {
		t.Errorf("SeedsOnly ran %d inputs, want the 1 seed read back", sum.Stats.Execs)
	}
}
