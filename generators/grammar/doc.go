// Package grammar compiles ANTLR 4 grammars (.g4 files) to generators: a
// user fuzzes a structured format by naming a grammar, without writing Go.
//
// Parse reads one file; Load and ParseFS also read its imports and the
// lexer grammar its tokenVocab names, from the same directory. The
// notation of published grammars is read as they use it (combined, parser
// and lexer grammars, fragments, labels, sets, ranges, non-greedy
// operators, lexer commands and modes; actions, predicates and rule
// arguments are ignored). Errors (*Error) name the file, line and column:
// an undefined rule, token or mode, a rule that cannot derive a finite
// sentence, a construct where it is not allowed, a lexer command ANTLR
// does not have.
//
// Grammar.Generator returns a generators.Generator, so a grammar works
// wherever a built-in generator does (wafer fuzz --grammar). One mechanism
// serves every grammar:
//
//   - a parser rule runs in a frame typed with its name, so a choice's
//     types are the nonterminals on the stack and its execution index the
//     path of rule calls; each repetition element has its own frame;
//   - alternatives and counts of ?, * and + are structural draws (a choice
//     among literals only is a value draw); everything inside a token is
//     a value draw, so value mutations never change the signature;
//   - a token is made as ANTLR's lexer would read it (lexer.go): from the
//     current lexer mode, zero or more "more" pieces then a rule emitting
//     its type, each rule's pushMode, popMode, mode and type applied; a
//     derivation the lexer would read otherwise (an identifier spelled
//     like a keyword) is drawn again, up to 8 times;
//   - a separator goes between two tokens only where the lexer would
//     otherwise join or split them differently, or where word characters
//     would touch, and only a text that skipped or hidden rules of the
//     current mode read, whitespace first (Options);
//   - alternatives behind a predicate or EOF are taken only when no other
//     fits; INDENT and DEDENT declared without a rule indent lines;
//   - with probability 1/4 a token whose rule matches dictionary entries
//     is one of them, each entry going to the rule ANTLR's lexer would give
//     it;
//   - characters come from the printable part of a set, and, in a share
//     of tokens (Options.WideChars), also from its graphic Unicode part
//     and from all of it; a set UTF-8 cannot write (surrogates) is never
//     taken, nor, where the rule has another way, a lexer alternative
//     behind a predicate;
//   - heights and sizes computed per rule keep every sentence finite
//     (MaxDepth, MaxSize).
//
// SeedReader (seedparse.go) reads inputs back: a seed is lexed by the
// grammar's lexer, parsed by an Earley parser over the parser rules
// (earley.go; left recursion and ambiguity need no rewriting), and its
// derivation answered, draw by draw, to the generator's own code, which
// records the choice sequence that regenerates it; ReadSeeds prepares a
// campaign from a seed corpus (wafer fuzz --grammar -i).
//
// It runs no actions or predicates, so
// grammars that depend on them generate a superset; semantic validity is
// the grammar writer's business. A grammar whose parser asks for a token
// its lexer cannot make where it is asked (a rule always beaten by an
// earlier one, a token of another mode) yields sentences its lexer reads
// otherwise; TestRetokenize measures this.
//
// Decision: the grammar's structure, not a weight table, decides the
// structural draws (uniform over the alternatives that fit the limits):
// sentences of the shipped grammars parse at 100 % of 10,000 random
// sequences (engine's TestGrammarValidity). Decision: the lexer is read,
// not approximated, because markup and island grammars (XML, HTML,
// templates) build tokens across modes and forbid separators between
// some tokens; a lazily built DFA per mode keeps it cheap.
package grammar
