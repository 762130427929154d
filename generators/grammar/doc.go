// Package grammar compiles ANTLR 4 grammars (.g4 files) to generators: a
// user fuzzes a structured format by naming a grammar, without writing Go.
//
// Reading. Parse reads one file; Load and ParseFS also read the grammars it
// imports and the lexer grammar its tokenVocab option names (split
// parser/lexer grammars, as published), from the same directory. The
// notation of published grammars is read as they use it: combined, parser
// and lexer grammars; parser and lexer rules, fragments; alternatives,
// grouping, ? * + and their non-greedy forms; labels (x=, x+=, #Alt) and
// element options (<assoc=right>); string literals with escapes
// (\n \t \uXXXX \u{X…}); character sets [a-z\u0041\p{L}], ranges 'a'..'z',
// ~ negated sets, '.'; lexer commands (-> skip and -> channel(…) mark a
// token as spacing; more, type, mode commands change nothing here);
// options, tokens and channels blocks; named actions, actions, semantic
// predicates, rule arguments, returns, locals and exception handlers
// (all ignored); EOF. Lexer modes are read as one lexer: a mode changes
// how text splits into tokens, not what a token's rule derives. A token
// declared in tokens {} without a rule (INDENT, emitted by target code)
// derives nothing.
//
// Errors name the file, line and column (*Error): an undefined rule or
// token, a rule that cannot derive a finite sentence (left recursion with
// no way out, a cycle of rules), a construct the notation does not allow
// where it appears, bad escapes, sets and ranges.
//
// Generating. Grammar.Generator returns a generators.Generator, so a
// grammar works wherever a built-in generator does (engine.FromGenerator,
// wafer fuzz --grammar). One mechanism serves every grammar:
//
//   - a parser rule runs in a frame typed with its name (Source.Enter), so
//     the types of a choice are the nonterminals on the stack (SpotOn's
//     types) and its execution index the path of rule calls;
//   - the choice of an alternative and the count of ?, * and + (uniform
//     within MaxRepeat) are structural draws (Source.Pick), except a choice
//     among literals only ('+' | '-'), which fills one leaf: a value draw;
//     every element
//     of a repetition runs in its own frame (generators.Repeat), so
//     changing one element leaves the indexes of the later ones unchanged;
//   - a token runs in a frame typed with its lexer rule's name, and
//     everything inside it (alternatives, repetitions, characters) is a
//     value draw: a token is one leaf, and value mutations never change the
//     structural signature. With probability 1/4 a token whose rule
//     matches entries of the run's dictionary (the target's constants,
//     checked against the rules by a backtracking matcher) is one of them;
//     an entry goes to the rule ANTLR's lexer would give it (a parser
//     rule's literal first, then the first lexer rule that matches it
//     whole), so a keyword does not take an identifier's place;
//   - limits make every sequence yield a finite sentence: minimal
//     derivation heights and sizes are computed per rule and alternative
//     (a fixed point); an alternative or repetition that cannot end within
//     MaxDepth rule levels is not offered, and past MaxSize rule expansions
//     and tokens every choice takes its shortest derivation without a draw;
//   - a separator (" " when a skipped or hidden rule matches it) goes
//     between tokens, configurable in Options.
//
// Decision: the grammar's structure, not a hand-tuned weight table, decides
// the structural draws (uniform over the alternatives that fit the
// limits). Figures: sentences of the shipped grammars under
// generators/grammars parse with the real parsers at 100 % of 10,000
// random sequences (encoding/json; SQLite itself, cexpr and rustini through
// their examples, engine's TestGrammarValidity); 486 of the 517 combined
// and parser grammars of antlr/grammars-v4 @aca577d load and generate
// (TestPublishedGrammars; the rest are fragments of imports, or refer to
// tokens and rules their repository does not define).
//
// What it does not do: it does not lex or parse inputs with the grammar
// (sentences are valid by construction, not checked), it does not run
// actions or predicates, so grammars whose language depends on them
// (significant indentation, context-sensitive keywords) generate a
// superset, and a lexer rule's token can come out as text another, earlier
// rule would claim (a keyword as an identifier). Semantic validity
// (declared names, types) is the grammar writer's business: the shipped
// SQLite grammar shows how far a context-free grammar can go.
package grammar
