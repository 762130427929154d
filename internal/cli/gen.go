package cli

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

const genHelp = `usage: wafer gen (--grammar G.g4 [--grammar-start RULE] | --generator NAME) [-n N] [--seed S] [-o DIR]

Writes N sentences of a grammar or a built-in generator, to look at what a
campaign would run before spending one on it. With -n 1 (the default) and
no -o the sentence goes to stdout; otherwise each goes to its own file in
DIR, named by its number (000000, 000001, ...). Sentence i is generated
from 512 random bytes of a PCG seeded with (S, i) read as one choice
sequence: the same seed gives the same sentences.

examples:
  wafer gen --grammar generators/grammars/SQLite.g4
  wafer gen --grammar XMLParser.g4 -n 1000 --seed 7 -o xml-sentences
  wafer gen --generator json -n 20 -o json-sentences
`

type genFlags struct {
	fs        *pflag.FlagSet
	grammar   grammarFlags
	generator string
	n         int
	seed      uint64
	out       string
}

func newGenFlags() *genFlags {
	f := &genFlags{fs: newFlagSet("gen")}
	f.grammar.register(f.fs)
	f.fs.StringVar(&f.generator, "generator", "", "a built-in generator: "+strings.Join(generators.Names(), ", "))
	f.fs.IntVarP(&f.n, "n", "n", 1, "the number of sentences")
	f.fs.Uint64Var(&f.seed, "seed", 1, "the PRNG seed")
	f.fs.StringVarP(&f.out, "output", "o", "", "the `DIR` to write one file per sentence to (needed with -n > 1)")
	return f
}

func (c *cli) gen(ctx context.Context, args []string) error {
	f := newGenFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"gen"})
		}
		return err
	}
	switch {
	case f.fs.NArg() != 0:
		return usagef("gen: expected no arguments, got %q (run 'wafer help gen')", f.fs.Arg(0))
	case f.grammar.path == "" && f.generator == "":
		return usagef("gen: expected --grammar FILE or --generator NAME (run 'wafer help gen')")
	case f.grammar.path != "" && f.generator != "":
		return usagef("gen: --grammar and --generator: expected one of them, got both")
	case f.n < 1:
		return usagef("gen: -n: expected at least 1, got %d", f.n)
	case f.n > 1 && f.out == "":
		return usagef("gen: -n %d needs -o DIR (one file per sentence)", f.n)
	}
	gen, ok, err := f.grammar.generator()
	if err != nil {
		return err
	}
	if !ok {
		if gen, ok = generators.Lookup(f.generator); !ok {
			return usagef("gen: --generator: expected one of %s, got %q", strings.Join(generators.Names(), ", "), f.generator)
		}
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fmt.Errorf("gen: %w", fileError(f.out, err))
		}
	}
	runner := generators.NewRunner(gen, generators.Options{})
	for i := range f.n {
		if err := ctx.Err(); err != nil {
			return err
		}
		in, _ := runner.Run(generators.FromBytes(genSeedBytes(f.seed, i)))
		if f.out == "" {
			_, err := c.stdout.Write(in)
			return err
		}
		if err := atomicfile.Write(filepath.Join(f.out, fmt.Sprintf("%06d", i)), in); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
	}
	fmt.Fprintf(c.stdout, "%d sentences in %s\n", f.n, f.out)
	return nil
}

// genSeedBytes returns the 512 bytes sentence i of seed is generated from.
func genSeedBytes(seed uint64, i int) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	b := make([]byte, 512)
	for j := range b {
		b[j] = byte(r.Uint32())
	}
	return b
}
