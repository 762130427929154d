package grammar_test

import (
	"fmt"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
)

// A grammar becomes a generator; with the campaign package it fuzzes a
// target: campaign.Options{Generator: gen}.
func Example() {
	g, err := grammar.Parse("Pairs.g4", []byte(`grammar Pairs;
pairs : pair (',' pair)* EOF ;
pair  : KEY '=' (NUM | 'on' | 'off') ;
KEY   : [a-z] [a-z0-9]* ;
NUM   : [1-9] [0-9]* ;
WS    : [ \t]+ -> skip ;
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	gen, err := g.Generator(grammar.Options{NoSeparator: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// An empty sequence, extended by its own PRNG: the same
	// sequence always gives the same sentence.
	in, _ := generators.Run(gen, generators.FromBytes(nil), generators.Options{})
	fmt.Printf("%s\n", in)
	_, err = grammar.Parse("Bad.g4", []byte("grammar Bad;\ns : t ;\n"))
	fmt.Println(err)
	// Output:
	// iuej=2,qk8l3=on,x=74,h32=off
	// Bad.g4:2:5: undefined rule t (referenced in rule s)
}
