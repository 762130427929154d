package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

const genHelp = `usage: wafer gen (--grammar G.g4 [--grammar-start RULE] | --generator NAME) [-n N] [--seed S] [-o DIR]
       wafer gen --grammar G.g4 [--grammar-start RULE] --parse FILE...
       wafer gen --generator json --parse FILE...

Writes N sentences of a grammar or a built-in generator, to look at what a
campaign would run before spending one on it. With -n 1 (the default) and
no -o the sentence goes to stdout; otherwise each goes to its own file in
DIR, named by its number (000000, 000001, ...). Sentence i is generated
from 512 random bytes of a PCG seeded with (S, i) read as one choice
sequence: the same seed gives the same sentences.

With --parse, each FILE is read with the grammar instead, as 'wafer fuzz
--grammar G.g4 -i SEEDS' reads seeds: it prints whether the file parses,
its tree (parser rules by name, tokens by type and text, indented), and
how closely the choice sequence read from it regenerates it (the same
bytes, the same tokens with other spacing, the same token types). A file
that does not parse is an error naming its line and column and what the
grammar expects there; the exit status is then 1. A built-in generator
that reads its inputs back (json) does the same without a tree: it prints
whether the file reads back, and the bytes its choice sequence makes when
they are not the file's (the same value, written the generator's way).

examples:
  wafer gen --grammar generators/grammars/SQLite.g4
  wafer gen --grammar XMLParser.g4 -n 1000 --seed 7 -o xml-sentences
  wafer gen --generator json -n 20 -o json-sentences
  wafer gen --grammar generators/grammars/SQLite.g4 --parse examples/csqlite/seeds/functions
`

type genFlags struct {
	fs        *pflag.FlagSet
	grammar   grammarFlags
	generator string
	n         int
	seed      uint64
	out       string
	parse     []string
}

func newGenFlags() *genFlags {
	f := &genFlags{fs: newFlagSet("gen")}
	f.grammar.register(f.fs)
	f.fs.StringVar(&f.generator, "generator", "", "a built-in generator: "+strings.Join(generators.Names(), ", "))
	f.fs.IntVarP(&f.n, "n", "n", 1, "the number of sentences")
	f.fs.Uint64Var(&f.seed, "seed", 1, "the PRNG seed")
	f.fs.StringVarP(&f.out, "output", "o", "", "the `DIR` to write one file per sentence to (needed with -n > 1)")
	f.fs.StringArrayVar(&f.parse, "parse", nil, "parse `FILE` with --grammar and print its tree, or read it back with --generator json (repeatable)")
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
	case len(f.parse) > 0 && f.grammar.path == "":
		read, ok := generators.LookupReader(f.generator)
		if !ok {
			return usagef("gen: --parse needs --grammar or a generator that reads inputs back (json), got --generator %s", f.generator)
		}
		gen, _ := generators.Lookup(f.generator)
		return c.genReadBack(f, gen, read)
	case len(f.parse) > 0:
		return c.genParse(f)
	case f.n < 1:
		return usagef("gen: -n: expected at least 1, got %d", f.n)
	case f.n > 1 && f.out == "":
		return usagef("gen: -n %d needs -o DIR (one file per sentence)", f.n)
	}
	f.grammar.log = c.stderr
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

// genParse prints the tree of each --parse file and how its choice
// sequence regenerates it; the first file that does not parse is the
// error (after the others are printed).
func (c *cli) genParse(f *genFlags) error {
	f.grammar.log = c.stderr
	sr, err := f.grammar.seedReader()
	if err != nil {
		return err
	}
	return c.eachParseFile(f, "does not parse", "do not parse", func(p string, data []byte) error {
		tree, err := sr.Parse(p, data)
		if err != nil {
			return rejected{err}
		}
		// The generator's limits as a campaign would raise them for
		// this seed.
		fr, err := sr.WithOptions(sr.Fit(f.grammar.options(), []*grammar.Tree{tree}, 0))
		if err != nil {
			return err
		}
		_, m, err := fr.Sequence(tree, generators.Options{})
		how := "regenerates the same " + m.String()
		if err != nil {
			how = "does not regenerate: " + err.Error()
		}
		fmt.Fprintf(c.stdout, "%s: parses (%d tokens); its choice sequence %s\n%s", p, tree.Tokens(), how, tree)
		return nil
	})
}

// genReadBack prints, for each --parse file, whether the generator's
// reader reads it back and what its choice sequence then makes; the
// first file it cannot read is the error (after the others are
// printed).
func (c *cli) genReadBack(f *genFlags, gen generators.Generator, read generators.SeedReader) error {
	return c.eachParseFile(f, "not read back", "not read back", func(p string, data []byte) error {
		seq, err := read(data, generators.Options{})
		if err != nil {
			return rejected{fmt.Errorf("%s: %w", p, err)}
		}
		out, _ := generators.Run(gen, seq, generators.Options{})
		if bytes.Equal(out, data) {
			fmt.Fprintf(c.stdout, "%s: read back (%d choices); its choice sequence regenerates the same bytes\n", p, seq.NumChoices())
		} else {
			fmt.Fprintf(c.stdout, "%s: read back (%d choices); its choice sequence regenerates the same value as\n%s\n", p, seq.NumChoices(), out)
		}
		return nil
	})
}

// rejected is the error of a --parse file the grammar or reader refuses:
// eachParseFile goes on with the next file.
type rejected struct{ err error }

func (r rejected) Error() string { return r.err.Error() }
func (r rejected) Unwrap() error { return r.err }

// eachParseFile runs read on each --parse file. A file read rejects is
// printed as failed (one: "does not parse"; many: "do not parse") when
// there are several, and counted; the first rejection is the error after
// all are done. Any other error stops.
func (c *cli) eachParseFile(f *genFlags, one, many string, read func(path string, data []byte) error) error {
	var first error
	bad := 0
	for _, p := range f.parse {
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("gen: --parse: %w", fileError(p, err))
		}
		err = read(p, data)
		var rej rejected
		if !errors.As(err, &rej) {
			if err != nil {
				return err
			}
			continue
		}
		if len(f.parse) > 1 {
			fmt.Fprintf(c.stdout, "%s: %s: %v\n", p, one, rej.err)
		}
		bad++
		first = cmp.Or(first, rej.err)
	}
	if bad > 0 {
		if len(f.parse) > 1 {
			return fmt.Errorf("%d of %d files %s (the first: %w)", bad, len(f.parse), many, first)
		}
		return first
	}
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
