package campaign_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/generators"
)

// Example fuzzes the tlv example from its valid seed and finds its planted
// division by zero: loading, the builds the options ask for, the search and
// shrinking all come from the package.
func Example() {
	wasm, err := os.ReadFile("../examples/tlv/tlv.wasm")
	if err != nil {
		log.Fatal(err)
	}
	seed, err := os.ReadFile("../examples/tlv/seeds/valid")
	if err != nil {
		log.Fatal(err)
	}
	target, err := campaign.Load("tlv.wasm", wasm, campaign.TargetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	sum, err := target.Fuzz(context.Background(), campaign.Options{Search: campaign.Search{Seed: 1, Runs: 20_000}, Seeds: [][]byte{seed}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stopped by", sum.Stop)
	for _, f := range sum.Findings {
		fmt.Println(f.Identity)
	}
	// Output:
	// stopped by crash
	// crash: divide-by-zero|integer divide by zero|parse_tlv
}

// jsonValue is a generator written for this example: a JSON value at most
// three levels deep, each object and array a typed frame, so zest's
// mutations know a choice's place in the document.
func jsonValue(s *generators.Source) []byte { return appendValue(nil, s, 3) }

func appendValue(b []byte, s *generators.Source, depth int) []byte {
	kinds := 4
	if depth > 0 {
		kinds = 6
	}
	switch s.Pick(kinds) {
	case 0:
		return append(b, "null"...)
	case 1:
		return strconv.AppendBool(b, s.Bool())
	case 2:
		return strconv.AppendInt(b, int64(s.Int(-1000, 1000)), 10)
	case 3:
		return strconv.AppendQuote(b, s.String("abcxyz ", 0, 8))
	case 4:
		s.Enter("array")
		defer s.Leave()
		b = append(b, '[')
		generators.Repeat(s, 0, 4, func(s *generators.Source, i int) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, s, depth-1)
		})
		return append(b, ']')
	}
	s.Enter("object")
	defer s.Leave()
	b = append(b, '{')
	generators.Repeat(s, 0, 4, func(s *generators.Source, i int) {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s.String("abcxyz", 1, 6))
		b = append(b, ':')
		b = appendValue(b, s, depth-1)
	})
	return append(b, '}')
}

// Example_generator drives zest on the gojson example (a Go reactor) with
// a generator written in Go: every input it makes is valid JSON, which the
// target's round trip accepts.
func Example_generator() {
	wasm, err := os.ReadFile("../examples/gojson/gojson.wasm")
	if err != nil {
		log.Fatal(err)
	}
	target, err := campaign.Load("gojson.wasm", wasm, campaign.TargetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	sum, err := target.Fuzz(context.Background(), campaign.Options{Search: campaign.Search{Strategy: "zest", Seed: 1, Runs: 3_000}, Generator: jsonValue})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stopped by", sum.Stop, "after", sum.Stats.Execs, "executions")
	fmt.Println("all valid:", sum.Stats.Valid == sum.Stats.Execs, "new inputs kept:", len(sum.NewInputs) > 10)
	// Output:
	// stopped by runs after 3000 executions
	// all valid: true new inputs kept: true
}
