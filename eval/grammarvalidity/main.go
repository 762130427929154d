// Command grammarvalidity measures how many sentences of published ANTLR 4
// grammars (a checkout of github.com/antlr/grammars-v4) each format's own
// parser accepts: per grammar, N sentences from the grammar generator
// (sentence i from 512 bytes of PCG(seed, i), as `wafer gen` makes them),
// each judged by a real parser found on the machine (Go's encoding/json,
// encoding/csv and go/parser in-process; Python's expat, tomllib, sqlite3
// and ast, node's V8, javac's parser, luac, wat2wasm and clang through
// small judge programs). A grammar whose parser is missing is reported
// and skipped.
//
//	go run ./eval/grammarvalidity -root /path/to/grammars-v4 -n 1000 -o eval/grammarvalidity-results
//
// Each error is sorted as a syntax error or as the breach of a constraint
// a context-free grammar cannot state (matching XML end tags, unique keys,
// declared names, static semantics), by the judge's message. The report
// (results.md) gives per grammar the share free of syntax errors, the
// share with no error at all, and the most frequent messages with an
// example sentence each.
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
)

//go:embed judge.py
var judgePy []byte

//go:embed judge.js
var judgeJS []byte

//go:embed Judge.java
var judgeJava []byte

// format is one grammar of grammars-v4 and its judge.
type format struct {
	name    string
	grammar string // under -root
	start   string // "" : the first parser rule
	judge   string // how its parser is run (see judgeAll)
	// semantic reports whether a message is the breach of a constraint
	// the grammar cannot state rather than a syntax error.
	semantic func(msg string) bool
	// examples is the directory of its sample files under -root ("": the
	// examples directory beside the grammar)
	examples string
}

func has(subs ...string) func(string) bool {
	return func(m string) bool {
		for _, s := range subs {
			if strings.Contains(m, s) {
				return true
			}
		}
		return false
	}
}

var formats = []format{
	{"JSON", "json/JSON.g4", "", "go-json", has("cannot unmarshal number"), ""},
	{"XML", "xml/XMLParser.g4", "", "py-xml", has("mismatched tag", "duplicate attribute", "undefined entity", "reference to invalid character number", "unknown encoding"), ""},
	{"SQLite", "sql/sqlite/SQLiteParser.g4", "", "py-sqlite", has("semantic: "), ""},
	// TOML: judge.py reports a date or time out of RFC 3339's ranges
	// (5.6's comments, 5.7) as "out of range"
	{"TOML", "toml/TomlParser.g4", "", "py-toml", has("Cannot overwrite", "Cannot declare", "not a Unicode scalar", "out of range", "Invalid date", "Invalid time", "day is out of range", "must be in"), ""},
	{"CSV", "csv/CSV.g4", "", "go-csv", has(), ""},
	// Go: \U beyond Unicode (a value range, as TOML's); the rest the Go
	// specification states in prose beside its grammar (all parameters
	// named or none, ... only on the last parameter, defer's call)
	{"Go", "golang/GoParser.g4", "", "go-parser", has("invalid Unicode code point", "missing parameter name", "can only use ... with final parameter", "invalid use of ...", "must be function call"), ""},
	{"Lua", "lua/LuaParser.g4", "", "luac", has("no visible label", "jumps into the scope", "label '", "attempt to assign to const", "break outside loop", "outside a vararg function", "unknown attribute"), ""},
	{"JavaScript", "javascript/javascript/JavaScriptParser.g4", "", "node", has("already been declared", "Illegal", "outside", "only valid in", "strict mode", "Duplicate", "Undefined label", "not defined", "reserved word", "Delete of an unqualified", "Unexpected eval or arguments", "Octal", "Getter must not", "Setter must have", "Rest parameter", "Invalid left-hand side", "Invalid destructuring", "Classes may not have", "super", "new.target", "Private field", "Invalid regular expression", "Unexpected reserved word", "Unexpected strict mode", "has already been exported", "Invalid shorthand property initializer", "Cannot use"), ""},
	{"Java", "java/java/JavaParser.g4", "", "javac", has("is a restricted identifier", "not allowed here", "reserved", "repeated modifier", "illegal combination", "is not a restricted", "are not allowed"), ""},
	{"Python", "python/python3/Python3Parser.g4", "file_input", "py-python", has("cannot mix bytes and nonbytes"), "python/python3/small"},
	// WAT: the composition conditions of modules (WebAssembly 2.0
	// §6.6.13: imports before definitions, one start function) and
	// memarg's align = 2^n (§6.5.5), side conditions beside the grammar
	{"WAT", "wat/WatParser.g4", "module", "wat2wasm", has("undefined", "type mismatch", "redefinition", "duplicate", "mismatching label", "imports must occur before", "invalid utf-8 encoding", "multiple start sections", "alignment must be power-of-two"), ""},
	// C: also string literals of different encoding prefixes
	// concatenated, which C11 6.4.5p5 leaves to the implementation
	{"C", "c/CParser.g4", "", "clang", has("unsupported non-standard concatenation", "undeclared", "unknown type name", "redefinition", "conflicting types", "incompatible", "invalid operands", "not assignable", "must be", "called object", "too few", "too many", "non-object", "incomplete", "storage class", "cannot", "is not a", "requires", "declared as", "has no member", "subscripted value", "member reference", "illegal", "void", "static_assert", "initializer element", "invalid", "use of", "type specifier", "redeclaration", "address of", "duplicate", "array", "flexible", "bit-field", "_Thread_local", "function", "variable has", "parameter", "label"), ""},
}

type verdict struct {
	msg string // "" when the parser accepted the sentence
}

type result struct {
	f        format
	loadErr  error
	n        int
	ok       int
	semantic int
	byMsg    map[string]int
	example  map[string][]byte
	// with -profile: the example files the profile was learned from, of
	// how many
	learned, examples int
	genTime           time.Duration
	judgeTime         time.Duration
	avgLen            int
}

func main() {
	root := flag.String("root", "", "a checkout of antlr/grammars-v4 (required)")
	n := flag.Int("n", 1000, "sentences per grammar")
	seed := flag.Uint64("seed", 1, "the PRNG seed")
	out := flag.String("o", "", "write results.md and the sentences' misses to this directory (default: stdout only)")
	only := flag.String("only", "", "comma-separated grammar names to run (default: all)")
	wide := flag.Float64("wide-chars", 0, "grammar.Options.WideChars (0: the default; negative: printable characters only)")
	keep := flag.String("keep", "", "write each grammar's sentences and the judge's verdicts (verdicts.tsv) under this directory, for reading the misses")
	profile := flag.Bool("profile", false, "draw with the profile learned from each grammar's examples directory (grammars-v4's examples/ beside the .g4: the files that parse; grammar.Options.Profile), the grammar's limits unchanged")
	flag.Parse()
	if *root == "" {
		fmt.Fprintln(os.Stderr, "grammarvalidity: -root is required")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "grammarvalidity")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{"judge.py": judgePy, "judge.js": judgeJS, "Judge.java": judgeJava} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			fatal(err)
		}
	}
	var results []*result
	for _, f := range formats {
		if *only != "" && !strings.Contains(","+*only+",", ","+f.name+",") {
			continue
		}
		res := run(f, *root, *n, *seed, *wide, *profile, tmp, *keep)
		results = append(results, res)
		fmt.Fprintf(os.Stderr, "%s: %s\n", f.name, summary(res))
	}
	report := render(results, *n, *seed, *wide, *profile)
	fmt.Print(report)
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, "results.md"), []byte(report), 0o644); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "grammarvalidity:", err)
	os.Exit(1)
}

func summary(r *result) string {
	if r.loadErr != nil {
		return "not measured: " + r.loadErr.Error()
	}
	return fmt.Sprintf("%.1f%% free of syntax errors, %.1f%% no error (%d sentences, generated in %v, judged in %v)",
		pct(r.ok+r.semantic, r.n), pct(r.ok, r.n), r.n, r.genTime.Round(time.Millisecond), r.judgeTime.Round(time.Millisecond))
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// run generates and judges the sentences of one grammar.
func run(f format, root string, n int, seed uint64, wide float64, profile bool, tmp, keep string) *result {
	res := &result{f: f, byMsg: map[string]int{}, example: map[string][]byte{}}
	g, err := grammar.Load(filepath.Join(root, f.grammar))
	if err != nil {
		res.loadErr = err
		return res
	}
	opts := grammar.Options{Start: f.start, WideChars: wide}
	if profile {
		dir := filepath.Join(root, filepath.Dir(f.grammar), "examples")
		if f.examples != "" {
			dir = filepath.Join(root, f.examples)
		}
		if opts.Profile, res.learned, res.examples, err = learn(g, opts, dir); err != nil {
			res.loadErr = err
			return res
		}
	}
	gen, err := g.Generator(opts)
	if err != nil {
		res.loadErr = err
		return res
	}
	runner := generators.NewRunner(gen, generators.Options{})
	sentences := make([][]byte, n)
	t0 := time.Now()
	total := 0
	for i := range n {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		b := make([]byte, 512)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		sentences[i], _ = runner.Run(generators.FromBytes(b))
		total += len(sentences[i])
	}
	res.genTime = time.Since(t0)
	res.avgLen = total / max(n, 1)
	t0 = time.Now()
	verdicts, err := judgeAll(f, sentences, tmp)
	res.judgeTime = time.Since(t0)
	if err != nil {
		res.loadErr = err
		return res
	}
	res.n = n
	if keep != "" {
		if err := keepAll(filepath.Join(keep, f.name), sentences, verdicts); err != nil {
			res.loadErr = err
			return res
		}
	}
	for i, v := range verdicts {
		switch {
		case v.msg == "":
			res.ok++
			continue
		case f.semantic(v.msg):
			res.semantic++
		}
		key := normalize(v.msg)
		if f.semantic(v.msg) {
			key = "(constraint) " + key
		}
		res.byMsg[key]++
		if _, ok := res.example[key]; !ok {
			res.example[key] = sentences[i]
		}
	}
	return res
}

// maxExample is the largest example file learn reads.
const maxExample = 64 << 10

// learn returns the profile of the files under dir (up to maxExample
// bytes each) that parse with g, how many parse, and how many were read.
func learn(g *grammar.Grammar, opts grammar.Options, dir string) (*grammar.Profile, int, int, error) {
	var names []string
	var data [][]byte
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".tree") || strings.HasSuffix(path, ".errors") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > maxExample {
			return err
		}
		names, data = append(names, path), append(data, b)
		return nil
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("examples: %w", err)
	}
	ss, err := g.ReadSeeds(opts, names, data)
	if err != nil {
		return nil, 0, 0, err
	}
	if len(ss.Parsed) == 0 {
		return nil, 0, len(data), fmt.Errorf("none of the %d files under %s parse", len(data), dir)
	}
	return ss.Profile(), len(ss.Parsed), len(data), nil
}

// keepAll writes sentence i to dir/sNNNNNN and its verdict to
// dir/verdicts.tsv, one line each: the index and the message ("ok" when
// accepted).
func keepAll(dir string, sentences [][]byte, verdicts []verdict) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tsv bytes.Buffer
	for i, s := range sentences {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%06d", i)), s, 0o644); err != nil {
			return err
		}
		msg := verdicts[i].msg
		if msg == "" {
			msg = "ok"
		}
		fmt.Fprintf(&tsv, "%d\t%s\n", i, strings.ReplaceAll(msg, "\n", " "))
	}
	return os.WriteFile(filepath.Join(dir, "verdicts.tsv"), tsv.Bytes(), 0o644)
}

var (
	quoted = regexp.MustCompile(`"[^"]*"|'[^']*'|‘[^’]*’|\x60[^\x60]*\x60`)
	number = regexp.MustCompile(`[0-9]+`)
)

// normalize groups messages that differ only in names, positions and
// quoted text.
func normalize(m string) string {
	m = quoted.ReplaceAllString(m, "_")
	m = number.ReplaceAllString(m, "N")
	if len(m) > 90 {
		m = m[:90]
	}
	return m
}

// judgeAll runs a format's parser on every sentence.
func judgeAll(f format, sentences [][]byte, tmp string) ([]verdict, error) {
	out := make([]verdict, len(sentences))
	switch f.judge {
	case "go-json":
		for i, s := range sentences {
			// RawMessage: the syntax only; any: also numbers' range
			var raw json.RawMessage
			var v any
			if err := json.Unmarshal(s, &raw); err != nil {
				out[i].msg = err.Error()
			} else if err := json.Unmarshal(s, &v); err != nil {
				out[i].msg = err.Error()
			}
		}
		return out, nil
	case "go-csv":
		for i, s := range sentences {
			rd := csv.NewReader(bytes.NewReader(s))
			rd.FieldsPerRecord = -1
			if _, err := rd.ReadAll(); err != nil {
				out[i].msg = err.Error()
			}
		}
		return out, nil
	case "go-parser":
		for i, s := range sentences {
			if _, err := parser.ParseFile(token.NewFileSet(), "x.go", s, parser.SkipObjectResolution|parser.AllErrors); err != nil {
				// the first error that is not a constraint's, if any
				msgs := []string{err.Error()}
				if l, ok := err.(scanner.ErrorList); ok && len(l) > 0 {
					msgs = msgs[:0]
					for _, e := range l {
						msgs = append(msgs, e.Msg)
					}
				}
				out[i].msg = msgs[0]
				for _, m := range msgs {
					if !f.semantic(m) {
						out[i].msg = m
						break
					}
				}
			}
		}
		return out, nil
	}
	dir := filepath.Join(tmp, f.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ext := map[string]string{"node": ".js", "javac": ".java", "luac": ".lua", "wat2wasm": ".wat", "clang": ".c"}[f.judge]
	paths := make([]string, len(sentences))
	for i, s := range sentences {
		paths[i] = filepath.Join(dir, fmt.Sprintf("s%06d%s", i, ext))
		if err := os.WriteFile(paths[i], s, 0o644); err != nil {
			return nil, err
		}
	}
	var batch []string // a command that prints one line per file
	switch f.judge {
	case "py-xml", "py-sqlite", "py-toml", "py-python":
		batch = []string{"python3", filepath.Join(tmp, "judge.py"), strings.TrimPrefix(f.judge, "py-")}
	case "node":
		batch = []string{"node", "--experimental-vm-modules", "--no-warnings", filepath.Join(tmp, "judge.js")}
	case "javac":
		batch = []string{"java", filepath.Join(tmp, "Judge.java")}
	}
	if batch != nil {
		if _, err := exec.LookPath(batch[0]); err != nil {
			return nil, fmt.Errorf("%s not found: %w", batch[0], err)
		}
		lines, err := runBatch(batch, paths)
		if err != nil {
			return nil, err
		}
		for i, l := range lines {
			if l != "ok" {
				out[i].msg = l
			}
		}
		return out, nil
	}
	var tool []string // a command run once per file, the file last; exit 0 accepts
	switch f.judge {
	case "luac":
		tool = []string{"luac5.4", "-p"}
	case "wat2wasm":
		tool = []string{"wat2wasm", "--no-check", "-o", os.DevNull}
	case "clang":
		tool = []string{"clang-14", "-fsyntax-only", "-w", "-std=c11", "-ferror-limit=1", "-x", "c"}
	default:
		return nil, fmt.Errorf("unknown judge %s", f.judge)
	}
	if _, err := exec.LookPath(tool[0]); err != nil {
		return nil, fmt.Errorf("%s not found: %w", tool[0], err)
	}
	for i, p := range paths {
		cmd := exec.Command(tool[0], append(tool[1:], p)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			out[i].msg = firstError(stderr.String(), p)
			if out[i].msg == "" {
				out[i].msg = err.Error()
			}
		}
	}
	return out, nil
}

// firstError returns the first error line of a tool's output, without the
// file name and position.
func firstError(s, path string) string {
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "error") && !strings.Contains(l, path) {
			continue
		}
		l = strings.ReplaceAll(l, path, "")
		if i := strings.Index(l, "error: "); i >= 0 {
			return l[i+len("error: "):]
		}
		l = strings.TrimLeft(l, ": 0123456789")
		if l != "" {
			return l
		}
	}
	return ""
}

// runBatch runs cmd with the paths as arguments, in groups, and returns
// its output lines, one per path.
func runBatch(cmd []string, paths []string) ([]string, error) {
	var lines []string
	for start := 0; start < len(paths); start += 200 {
		group := paths[start:min(start+200, len(paths))]
		c := exec.Command(cmd[0], append(cmd[1:], group...)...)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("%s: %w: %s", strings.Join(cmd, " "), err, stderr.String())
		}
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) != len(paths) {
		return nil, fmt.Errorf("%s: %d lines for %d files", cmd[0], len(lines), len(paths))
	}
	return lines, nil
}

// render writes the report.
func render(results []*result, n int, seed uint64, wide float64, profile bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Validity of published grammars' sentences\n\n")
	flags := ""
	if profile {
		flags = " -profile"
	}
	fmt.Fprintf(&b, "%d sentences per grammar, seed %d, WideChars %v; `go run ./eval/grammarvalidity -root GRAMMARS_V4 -n %d -seed %d%s`.\n\n", n, seed, wide, n, seed, flags)
	if profile {
		fmt.Fprintf(&b, "Drawn with the profile of each grammar's examples/ (the files of at most %d bytes that parse):", maxExample)
		for _, r := range results {
			if r.loadErr == nil {
				fmt.Fprintf(&b, " %s %d of %d;", r.f.name, r.learned, r.examples)
			}
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "| grammar | judge | free of syntax errors | no error | mean bytes |\n|---|---|---|---|---|\n")
	for _, r := range results {
		if r.loadErr != nil {
			fmt.Fprintf(&b, "| %s (%s) | %s | not measured: %s | | |\n", r.f.name, r.f.grammar, r.f.judge, strings.ReplaceAll(r.loadErr.Error(), "|", "\\|"))
			continue
		}
		fmt.Fprintf(&b, "| %s (%s) | %s | %.1f %% | %.1f %% | %d |\n", r.f.name, r.f.grammar, r.f.judge, pct(r.ok+r.semantic, r.n), pct(r.ok, r.n), r.avgLen)
	}
	for _, r := range results {
		if r.loadErr != nil || len(r.byMsg) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: the most frequent messages\n\n", r.f.name)
		keys := make([]string, 0, len(r.byMsg))
		for k := range r.byMsg {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if r.byMsg[keys[i]] != r.byMsg[keys[j]] {
				return r.byMsg[keys[i]] > r.byMsg[keys[j]]
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys[:min(8, len(keys))] {
			ex := r.example[k]
			if len(ex) > 160 {
				ex = append(ex[:160:160], "..."...)
			}
			fmt.Fprintf(&b, "- %d × `%s`  \n  e.g. `%s`\n", r.byMsg[k], strings.ReplaceAll(k, "`", "'"), strings.ReplaceAll(fmt.Sprintf("%q", ex), "`", "'"))
		}
	}
	return b.String()
}
