package instrument_test

// The spec testsuite runner: every .json script (wast2json output) that ships
// in wazero's module zip runs in lockstep on several "lanes" — lane 0 is the
// original module, the others are transformed copies (decode→encode,
// instrumented with counters, +fuel, +dirty pages; see spec_api_test.go) —
// and every command must give the same result on every lane: the same
// values, trap or no trap, the same trap class. Lane 0 is also checked
// against the script's expectations, so the runner itself is tested.
//
// Default `go test` runs a deterministic sample of the scripts;
// WAFER_FULL=1 runs all of them.

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wafer-fuzz/wafer/instrument"
)

// spectestHostWasm is the "spectest" module the scripts import
// (testdata/programs/spectest_host.wat, rebuilt by build.sh).
//
//go:embed testdata/programs/spectest_host.wasm
var spectestHostWasm []byte

// specDir is one directory of wazero's spectest tree and the features its
// scripts need (the same sets wazero's own runner enables).
type specDir struct {
	name     string
	features api.CoreFeatures
}

func specDirs() []specDir {
	v2 := api.CoreFeaturesV2
	return []specDir{
		{"v1", api.CoreFeaturesV1},
		{"v2", v2},
		{"threads", v2 | experimental.CoreFeaturesThreads},
		{"tail-call", v2 | experimental.CoreFeaturesTailCall},
		{"exception-handling", v2 | experimental.CoreFeaturesExceptionHandling | experimental.CoreFeaturesTailCall | experimental.CoreFeaturesTypedFunctionReferences},
		{"extended-const", v2 | experimental.CoreFeaturesExtendedConst},
		{"typed-function-references", v2 | experimental.CoreFeaturesTypedFunctionReferences | experimental.CoreFeaturesTailCall},
	}
}

// specMustRun are scripts the default (sampled) run always includes: the
// ones closest to what instrumentation rewrites (branches, memory
// addressing at the end of memory, memory.size/grow, bulk memory, fuel at
// loop headers and calls).
func specMustRun() map[string]bool {
	return map[string]bool{
		"v1/address": true, "v1/br_if": true, "v1/br_table": true, "v1/if": true,
		"v1/loop": true, "v1/memory_trap": true, "v1/memory_grow": true, "v1/fac": true,
		"v1/start": true, "v1/call_indirect": true, "v1/block": true, "v1/br": true,
		"v2/memory_size": true, "v2/memory_fill": true, "v2/memory_copy": true,
		"v2/memory_init": true, "v2/bulk": true, "v2/simd_address": true,
		"v2/simd_load_lane": true, "v2/memory_grow": true, "v2/data": true,
		"threads/atomic": true, "tail-call/return_call": true,
		"tail-call/return_call_indirect": true, "exception-handling/try_table": true,
		"exception-handling/throw": true, "extended-const/data": true,
		"extended-const/global": true, "typed-function-references/br_on_null": true,
		"typed-function-references/br_on_non_null": true,
		"typed-function-references/call_ref":       true,
	}
}

// specSampleMod: in the sampled run, a script not in specMustRun runs when
// the FNV-1a hash of "dir/name" is 0 modulo this.
const specSampleMod = 6

// specHugeFuel is the fuel given to fuel lanes: nothing in the suite runs
// out of it.
const specHugeFuel = 1 << 60

// specActionTimeout bounds one action (a runaway loop in a transformed
// module must fail the test, not hang CI).
const specActionTimeout = 60 * time.Second

// Lane results are checked with these outcome kinds.
const (
	resPass = "passed"
	resFail = "failed"
)

// specCounts aggregates results per "dir/lane": passed, failed and skipped
// by reason. Safe for concurrent use.
type specCounts struct {
	mu sync.Mutex
	m  map[string]map[string]int // key "dir/lane" → result ("passed", "failed", "skip: reason", "info: ...") → n
}

func (c *specCounts) add(dir, lane, result string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := dir + "/" + lane
	if c.m[k] == nil {
		c.m[k] = map[string]int{}
	}
	c.m[k][result]++
}

// lane sums lane's results over every directory.
func (c *specCounts) lane(lane string) specLaneFigures {
	c.mu.Lock()
	defer c.mu.Unlock()
	var f specLaneFigures
	for k, m := range c.m {
		if !strings.HasSuffix(k, "/"+lane) {
			continue
		}
		for result, n := range m {
			switch {
			case result == resPass:
				f.passed += n
			case strings.HasPrefix(result, "skip"):
				f.skipped += n
			case strings.HasPrefix(result, "info"):
				f.info += n
			}
		}
	}
	return f
}

func (c *specCounts) report(t *testing.T, dirs []specDir, lanes []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var total = map[string]int{}
	for _, d := range dirs {
		for _, l := range lanes {
			m := c.m[d.name+"/"+l]
			if m == nil {
				continue
			}
			var extra []string
			for k, n := range m {
				if k != resPass && k != resFail {
					extra = append(extra, fmt.Sprintf("%s=%d", k, n))
				}
			}
			sort.Strings(extra)
			t.Logf("spec %-26s %-10s passed=%d failed=%d %s", d.name, l, m[resPass], m[resFail], strings.Join(extra, " "))
			total[l+" passed"] += m[resPass]
			total[l+" failed"] += m[resFail]
			for k, n := range m {
				if strings.HasPrefix(k, "skip") {
					total[l+" skipped"] += n
				}
			}
		}
	}
	var parts []string
	for _, l := range lanes {
		parts = append(parts, fmt.Sprintf("%s %d/%d/%d", l, total[l+" passed"], total[l+" failed"], total[l+" skipped"]))
	}
	t.Logf("spec summary (passed/failed/skipped): %s", strings.Join(parts, ", "))
}

// The wast2json script format.
type specScript struct {
	Source   string        `json:"source_filename"`
	Commands []specCommand `json:"commands"`
}

type specCommand struct {
	Type       string      `json:"type"`
	Line       int         `json:"line"`
	Name       string      `json:"name"`
	Filename   string      `json:"filename"`
	As         string      `json:"as"`
	ModuleType string      `json:"module_type"`
	Text       string      `json:"text"`
	Action     specAction  `json:"action"`
	Expected   []specValue `json:"expected"`
}

type specAction struct {
	Type   string      `json:"type"`
	Module string      `json:"module"`
	Field  string      `json:"field"`
	Args   []specValue `json:"args"`
}

// specValue is a typed constant: Value is a string ("123", "nan:canonical",
// "null"), a list of lane strings for v128, or absent (a non-null ref).
type specValue struct {
	Type     string          `json:"type"`
	LaneType string          `json:"lane_type"`
	Value    json.RawMessage `json:"value"`
}

func (v specValue) str() (s string, ok bool) {
	if len(v.Value) == 0 {
		return "", false
	}
	if err := json.Unmarshal(v.Value, &s); err != nil {
		return "", false
	}
	return s, true
}

func (v specValue) lanes() []string {
	var ls []string
	_ = json.Unmarshal(v.Value, &ls)
	return ls
}

func (v specValue) String() string {
	if v.Type == "v128" {
		return fmt.Sprintf("v128:%s%v", v.LaneType, v.lanes())
	}
	s, ok := v.str()
	if !ok {
		return v.Type
	}
	return v.Type + ":" + s
}

// parseNum parses one number (decimal, maybe signed) of the given bit width.
func parseNum(s string, bits int) (uint64, error) {
	if strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return 0, err
		}
		if bits == 64 {
			return uint64(v), nil
		}
		return uint64(v) & (1<<bits - 1), nil
	}
	return strconv.ParseUint(s, 10, bits)
}

func laneBits(laneType string) int {
	switch laneType {
	case "i8":
		return 8
	case "i16":
		return 16
	case "i32", "f32":
		return 32
	default:
		return 64
	}
}

// words encodes an argument as wazero's uint64 stack values.
func (v specValue) words() ([]uint64, error) {
	switch v.Type {
	case "i32", "f32":
		s, _ := v.str()
		w, err := parseNum(s, 32)
		return []uint64{w}, err
	case "i64", "f64":
		s, _ := v.str()
		w, err := parseNum(s, 64)
		return []uint64{w}, err
	case "v128":
		bits := laneBits(v.LaneType)
		var lo, hi uint64
		for i, s := range v.lanes() {
			w, err := parseNum(s, bits)
			if err != nil {
				return nil, err
			}
			pos := i * bits
			if pos < 64 {
				lo |= w << pos
			} else {
				hi |= w << (pos - 64)
			}
		}
		return []uint64{lo, hi}, nil
	case "externref":
		s, ok := v.str()
		if !ok || s == "null" {
			return []uint64{0}, nil
		}
		// wazero's externref is an opaque non-zero word: shift by one so
		// the script's "externref 0" is not null.
		w, err := strconv.ParseUint(s, 10, 63)
		return []uint64{w + 1}, err
	default: // funcref, exnref, refnull...: only null appears as an argument
		return []uint64{0}, nil
	}
}

// Trap classes.

// trapClass names an error by wazero's trap message (the first line, without
// "wasm error: "), so a stack trace or function names never matter.
func trapClass(err error) string {
	if err == nil {
		return ""
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return fmt.Sprintf("exit %d", exit.ExitCode())
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if rest, ok := strings.CutPrefix(msg, "wasm error: "); ok {
		return rest
	}
	return "error: " + msg
}

// specTrapClass maps a script's assert_trap text to wazero's trap message.
func specTrapClass(text string) string {
	switch text {
	case "indirect call type mismatch", "indirect call":
		return "indirect call type mismatch"
	case "undefined element", "undefined", "out of bounds table access":
		return "invalid table access"
	case "null", "null reference", "null function reference", "null function", "null exception reference":
		return "null reference"
	case "call stack exhausted":
		return "stack overflow"
	}
	if strings.HasPrefix(text, "uninitialized") {
		return "invalid table access"
	}
	return text
}

// Comparing values.

func f32Matches(pattern string, got uint32) bool {
	switch pattern {
	case "nan:canonical":
		return got&0x7fffffff == 0x7fc00000
	case "nan:arithmetic":
		return got&0x7fc00000 == 0x7fc00000
	}
	w, err := parseNum(pattern, 32)
	return err == nil && uint32(w) == got
}

func f64Matches(pattern string, got uint64) bool {
	switch pattern {
	case "nan:canonical":
		return got&0x7fffffffffffffff == 0x7ff8000000000000
	case "nan:arithmetic":
		return got&0x7ff8000000000000 == 0x7ff8000000000000
	}
	w, err := parseNum(pattern, 64)
	return err == nil && w == got
}

// matchExpected checks one result against the script's expectation; words
// are the result's stack words (two for v128).
func matchExpected(exp specValue, words []uint64) bool {
	s, hasValue := exp.str()
	switch exp.Type {
	case "i32":
		w, err := parseNum(s, 32)
		return err == nil && uint32(words[0]) == uint32(w)
	case "i64":
		w, err := parseNum(s, 64)
		return err == nil && words[0] == w
	case "f32":
		return f32Matches(s, uint32(words[0]))
	case "f64":
		return f64Matches(s, words[0])
	case "v128":
		bits := laneBits(exp.LaneType)
		for i, ls := range exp.lanes() {
			pos := i * bits
			w := words[0]
			if pos >= 64 {
				w, pos = words[1], pos-64
			}
			lane := w >> pos
			if bits < 64 {
				lane &= 1<<bits - 1
			}
			switch exp.LaneType {
			case "f32":
				if !f32Matches(ls, uint32(lane)) {
					return false
				}
			case "f64":
				if !f64Matches(ls, lane) {
					return false
				}
			default:
				want, err := parseNum(ls, bits)
				if err != nil || want != lane {
					return false
				}
			}
		}
		return true
	case "externref":
		if !hasValue {
			return words[0] != 0
		}
		if s == "null" {
			return words[0] == 0
		}
		w, err := strconv.ParseUint(s, 10, 63)
		return err == nil && words[0] == w+1
	case "refnull":
		return words[0] == 0
	default: // funcref, exnref, (ref ...): null or "some reference"
		if hasValue && s == "null" {
			return words[0] == 0
		}
		return words[0] != 0
	}
}

// resultWords splits flat results by type (v128 takes two words).
func resultWords(types []api.ValueType, flat []uint64) ([][]uint64, bool) {
	var out [][]uint64
	i := 0
	for _, t := range types {
		n := 1
		if t == 0x7b { // v128
			n = 2
		}
		if i+n > len(flat) {
			return nil, false
		}
		out = append(out, flat[i:i+n])
		i += n
	}
	return out, i == len(flat)
}

// sameValue says whether two lanes returned the same value of type t. Floats
// compare by bits, except that any two NaNs are equal (the canonical or
// arithmetic pattern is checked against the script separately); references
// other than externref are opaque pointers, so only null-ness compares.
func sameValue(t api.ValueType, a, b []uint64) bool {
	switch t {
	case api.ValueTypeI32:
		return uint32(a[0]) == uint32(b[0])
	case api.ValueTypeI64, api.ValueTypeExternref:
		return a[0] == b[0]
	case api.ValueTypeF32:
		fa, fb := math.Float32frombits(uint32(a[0])), math.Float32frombits(uint32(b[0]))
		return uint32(a[0]) == uint32(b[0]) || (fa != fa && fb != fb)
	case api.ValueTypeF64:
		fa, fb := math.Float64frombits(a[0]), math.Float64frombits(b[0])
		return a[0] == b[0] || (fa != fa && fb != fb)
	case 0x7b:
		if a[0] == b[0] && a[1] == b[1] {
			return true
		}
		// Lane-wise NaN equality, for either float shape.
		for _, w := range [][2]uint64{{a[0], b[0]}, {a[1], b[1]}} {
			if w[0] == w[1] {
				continue
			}
			f64ok := math.IsNaN(math.Float64frombits(w[0])) && math.IsNaN(math.Float64frombits(w[1]))
			lo0, lo1 := math.Float32frombits(uint32(w[0])), math.Float32frombits(uint32(w[1]))
			hi0, hi1 := math.Float32frombits(uint32(w[0]>>32)), math.Float32frombits(uint32(w[1]>>32))
			f32ok := (uint32(w[0]) == uint32(w[1]) || (lo0 != lo0 && lo1 != lo1)) &&
				(uint32(w[0]>>32) == uint32(w[1]>>32) || (hi0 != hi0 && hi1 != hi1))
			if !f64ok && !f32ok {
				return false
			}
		}
		return true
	default:
		return (a[0] == 0) == (b[0] == 0)
	}
}

// Lanes.

// specTransform turns an original module into a lane's module. fuel names
// the exported fuel global to fill ("" when none). features are enabled on
// the lane's runtime in addition to the directory's (what the transform's
// output documents it needs).
type specTransform struct {
	name     string
	apply    func(wasm []byte) (out []byte, fuel string, err error)
	features api.CoreFeatures
}

type specLane struct {
	name  string
	tr    *specTransform // nil: the original
	rt    wazero.Runtime
	named map[string]*laneModule
	last  *laneModule
	byReg map[string]*laneModule // by registered name
	all   []*laneModule          // every instantiated module, in order
	// skippedReg: registered names whose module this lane could not run.
	skippedReg map[string]string
}

type laneModule struct {
	mod  api.Module
	skip string // non-empty: this lane cannot run the module (why)
	// diverged: the module's state (memory, table, globals) is shared with a
	// module this lane skipped but the original ran, so its results may
	// differ for that reason alone; actions on it are skipped.
	diverged string
	reg      string   // registered name, "" when none
	imports  []string // module names it imports from (spectest excluded)
}

// outcome is what one lane did for one command.
type outcome struct {
	skip  string // lane could not run it (reason)
	err   string // harness-level failure (transform error, missing export)
	trap  string // trap class, "" when it returned
	types []api.ValueType
	vals  []uint64
}

func (o outcome) String() string {
	switch {
	case o.skip != "":
		return "skipped (" + o.skip + ")"
	case o.err != "":
		return "error: " + o.err
	case o.trap != "":
		return "trap: " + o.trap
	}
	return fmt.Sprintf("returned %v", o.vals)
}

// sameOutcome compares a transformed lane's outcome with the original's.
func sameOutcome(a, b outcome) bool {
	if a.err != "" || b.err != "" {
		return false
	}
	if a.trap != b.trap {
		return false
	}
	if a.trap != "" {
		return true
	}
	if len(a.types) != len(b.types) || len(a.vals) != len(b.vals) {
		return false
	}
	wa, ok1 := resultWords(a.types, a.vals)
	wb, ok2 := resultWords(b.types, b.vals)
	if !ok1 || !ok2 {
		return false
	}
	for i, t := range a.types {
		if t != b.types[i] || !sameValue(t, wa[i], wb[i]) {
			return false
		}
	}
	return true
}

// specRun runs one script on all lanes.
type specRun struct {
	t       *testing.T
	dir     specDir
	path    string // directory holding the script's files
	script  string // "dir/name"
	lanes   []*specLane
	counts  *specCounts
	known   map[string]string // "script:line:lane" → known issue
	ctx     context.Context
	errs    int
	maxErrs int
	quiet   bool // count mismatches without failing the test (runner self-test)
}

func (r *specRun) count(l *specLane, result string) {
	r.counts.add(r.dir.name, l.name, result)
}

// fail records a mismatch, unless it is a known, named issue.
func (r *specRun) fail(l *specLane, c *specCommand, format string, args ...any) {
	key := fmt.Sprintf("%s:%d:%s", r.script, c.Line, l.name)
	if reason, ok := r.known[key]; ok {
		r.count(l, "skip: known: "+reason)
		return
	}
	r.count(l, resFail)
	r.errs++
	if !r.quiet && r.errs <= r.maxErrs {
		r.t.Errorf("%s.wast:%d %s [%s]: %s", r.script, c.Line, c.Type, l.name, fmt.Sprintf(format, args...))
	}
}

func (r *specRun) newLanes(transforms []specTransform) error {
	lanes := []*specLane{{name: "original"}}
	for i := range transforms {
		lanes = append(lanes, &specLane{name: transforms[i].name, tr: &transforms[i]})
	}
	for _, l := range lanes {
		features := r.dir.features
		if l.tr != nil {
			features |= l.tr.features
		}
		cfg := wazero.NewRuntimeConfigInterpreter().
			WithCoreFeatures(features).
			WithCloseOnContextDone(true)
		l.rt = wazero.NewRuntimeWithConfig(r.ctx, cfg)
		l.named = map[string]*laneModule{}
		l.byReg = map[string]*laneModule{}
		l.skippedReg = map[string]string{}
		if _, err := l.rt.InstantiateWithConfig(r.ctx, spectestHostWasm,
			wazero.NewModuleConfig().WithName("spectest").WithStartFunctions()); err != nil {
			return fmt.Errorf("instantiate spectest host module: %w", err)
		}
	}
	r.lanes = lanes
	return nil
}

func (r *specRun) close() {
	for _, l := range r.lanes {
		if l.rt != nil {
			_ = l.rt.Close(r.ctx)
		}
	}
}

// instantiate loads wasm on lane l (transforming it first) under name.
func (r *specRun) instantiate(l *specLane, wasm []byte, name string) (*laneModule, outcome) {
	fuel := ""
	if l.tr != nil {
		out, f, err := l.tr.apply(wasm)
		if err != nil {
			if reason, ok := specSkipReason(err); ok {
				return &laneModule{skip: reason}, outcome{skip: reason}
			}
			return &laneModule{skip: "transform failed"}, outcome{err: "transform: " + err.Error()}
		}
		wasm, fuel = out, f
	}
	ctx, cancel := context.WithTimeout(r.ctx, specActionTimeout)
	defer cancel()
	mod, err := l.rt.InstantiateWithConfig(ctx, wasm,
		wazero.NewModuleConfig().WithName(name).WithStartFunctions())
	if err != nil {
		for reg, why := range l.skippedReg {
			if strings.Contains(err.Error(), "module["+reg+"]") {
				reason := "imports from a skipped module (" + why + ")"
				return &laneModule{skip: reason}, outcome{skip: reason}
			}
		}
		return nil, outcome{trap: "instantiate: " + trapClass(err)}
	}
	if fuel != "" {
		g, ok := mod.ExportedGlobal(fuel).(api.MutableGlobal)
		if !ok {
			return nil, outcome{err: "no mutable fuel global " + fuel}
		}
		g.Set(specHugeFuel)
	}
	return &laneModule{mod: mod}, outcome{}
}

func (r *specRun) readModule(c *specCommand) ([]byte, error) {
	return os.ReadFile(filepath.Join(r.path, c.Filename))
}

// diverge marks the modules that wasm imports from as diverged on lane l:
// the lane skipped wasm (why) but the original instantiated it, and it may
// have changed their memory, tables or globals.
func (r *specRun) diverge(l *specLane, wasm []byte, why string) {
	for _, imp := range specImportModules(wasm) {
		if d := l.byReg[imp]; d != nil && d.diverged == "" {
			d.diverged = "state linked with a module the lane skipped (" + why + ")"
		}
	}
	l.spreadDivergence()
}

// spreadDivergence marks every module that imports from a diverged module
// as diverged too (it may call into it or read its memory).
func (l *specLane) spreadDivergence() {
	for changed := true; changed; {
		changed = false
		for _, m := range l.all {
			if m.diverged != "" {
				continue
			}
			for _, imp := range m.imports {
				if d := l.byReg[imp]; d != nil && d.diverged != "" {
					m.diverged = d.diverged
					changed = true
					break
				}
			}
		}
	}
}

// moduleFor picks the module an action addresses on lane l.
func (l *specLane) moduleFor(a specAction) *laneModule {
	if a.Module != "" {
		return l.named[a.Module]
	}
	return l.last
}

// act runs an action (invoke or get) on lane l.
func (r *specRun) act(l *specLane, a specAction) outcome {
	m := l.moduleFor(a)
	if m == nil {
		return outcome{err: "no module for action"}
	}
	if m.skip != "" {
		return outcome{skip: m.skip}
	}
	if m.diverged != "" {
		return outcome{skip: m.diverged}
	}
	switch a.Type {
	case "invoke":
		fn := m.mod.ExportedFunction(a.Field)
		if fn == nil {
			return outcome{err: "no exported function " + strconv.Quote(a.Field)}
		}
		var args []uint64
		for _, v := range a.Args {
			w, err := v.words()
			if err != nil {
				return outcome{err: "bad argument " + v.String()}
			}
			args = append(args, w...)
		}
		ctx, cancel := context.WithTimeout(r.ctx, specActionTimeout)
		defer cancel()
		vals, err := fn.Call(ctx, args...)
		if err != nil {
			return outcome{trap: trapClass(err)}
		}
		return outcome{types: fn.Definition().ResultTypes(), vals: vals}
	case "get":
		g := m.mod.ExportedGlobal(a.Field)
		if g == nil {
			return outcome{err: "no exported global " + strconv.Quote(a.Field)}
		}
		return outcome{types: []api.ValueType{g.Type()}, vals: []uint64{g.Get()}}
	}
	return outcome{err: "unknown action type " + a.Type}
}

// checkExpected checks the original lane against the script.
func (r *specRun) checkExpected(c *specCommand, o outcome) string {
	switch c.Type {
	case "assert_return":
		if o.trap != "" || o.err != "" {
			return "expected a return, got " + o.String()
		}
		words, ok := resultWords(o.types, o.vals)
		if !ok || len(words) != len(c.Expected) {
			return fmt.Sprintf("expected %d results, got %v", len(c.Expected), o.vals)
		}
		for i, e := range c.Expected {
			if !matchExpected(e, words[i]) {
				return fmt.Sprintf("result %d: expected %s, got %#x", i, e, words[i])
			}
		}
	case "assert_trap":
		if want := specTrapClass(c.Text); o.trap != want {
			return fmt.Sprintf("expected trap %q, got %s", want, o)
		}
	case "assert_exhaustion":
		if o.trap != "stack overflow" {
			return "expected stack overflow, got " + o.String()
		}
	case "assert_exception":
		if o.trap != "uncaught exception" {
			return "expected uncaught exception, got " + o.String()
		}
	case "action":
		if o.err != "" {
			return o.String()
		}
	}
	return ""
}

func (r *specRun) run(s *specScript) {
	cmds := s.Commands
	for i := 0; i < len(cmds); i++ {
		c := &cmds[i]
		switch c.Type {
		case "module":
			reg := ""
			if i+1 < len(cmds) && cmds[i+1].Type == "register" &&
				(cmds[i+1].Name == "" || cmds[i+1].Name == c.Name) {
				reg = cmds[i+1].As
				i++
			}
			r.module(c, reg)
		case "register":
			// Registration happens at instantiation (the module's name is
			// fixed then); a register not right after its module is not in
			// the suite.
			for _, l := range r.lanes {
				r.count(l, "skip: register of an earlier module")
			}
		case "assert_return", "assert_trap", "assert_exhaustion", "assert_exception", "action":
			r.action(c)
		case "assert_malformed", "assert_invalid":
			r.rejected(c, false)
		case "assert_unlinkable", "assert_uninstantiable":
			r.rejected(c, true)
		default:
			for _, l := range r.lanes {
				r.count(l, "skip: command "+c.Type)
			}
		}
	}
}

func (r *specRun) module(c *specCommand, reg string) {
	wasm, err := r.readModule(c)
	if err != nil {
		r.t.Fatalf("%s: %v", r.script, err)
	}
	var orig outcome
	for _, l := range r.lanes {
		m, o := r.instantiate(l, wasm, reg)
		if l.tr == nil {
			orig = o
			if o.trap != "" || o.err != "" {
				r.fail(l, c, "original module did not instantiate: %s", o)
			} else {
				r.count(l, resPass)
			}
		} else {
			switch {
			case o.skip != "":
				r.count(l, "skip: "+o.skip)
				if reg != "" {
					l.skippedReg[reg] = o.skip
				}
				if orig.trap == "" && orig.err == "" {
					r.diverge(l, wasm, o.skip)
				}
			case o.err != "" || o.trap != orig.trap:
				r.fail(l, c, "instantiate: original %s, transformed %s", orig, o)
				if m == nil {
					m = &laneModule{skip: "module failed to instantiate"}
				}
			default:
				r.count(l, resPass)
			}
		}
		if m == nil {
			m = &laneModule{skip: "module failed to instantiate"}
		}
		if m.mod != nil {
			m.reg, m.imports = reg, specImportModules(wasm)
			l.all = append(l.all, m)
			l.spreadDivergence()
		}
		l.last = m
		if c.Name != "" {
			l.named[c.Name] = m
		}
		if reg != "" {
			l.byReg[reg] = m
		}
	}
}

func (r *specRun) action(c *specCommand) {
	var orig outcome
	for _, l := range r.lanes {
		o := r.act(l, c.Action)
		if l.tr == nil {
			orig = o
			if o.skip != "" {
				r.count(l, "skip: "+o.skip)
			} else if msg := r.checkExpected(c, o); msg != "" {
				r.fail(l, c, "%s %s%v: %s", c.Action.Type, c.Action.Field, c.Action.Args, msg)
			} else {
				r.count(l, resPass)
			}
			continue
		}
		switch {
		case o.skip != "":
			r.count(l, "skip: "+o.skip)
		case orig.skip != "":
			r.count(l, "skip: original skipped")
		case !sameOutcome(orig, o):
			r.fail(l, c, "%s %s%v: original %s, transformed %s", c.Action.Type, c.Action.Field, c.Action.Args, orig, o)
		default:
			r.count(l, resPass)
		}
	}
}

// rejected handles assert_malformed/invalid (link=false: the module must
// not compile) and assert_unlinkable/uninstantiable (link=true: it must not
// instantiate). The original must be rejected. A transformed lane passes
// when it rejects too (at transform, compile or instantiation); a
// transform that turns an invalid module into a valid one is counted as
// "info", not a failure (instrument does not type-check, and adding a
// memory can make a module valid), except for unlinkable modules, which
// must stay unlinkable.
func (r *specRun) rejected(c *specCommand, link bool) {
	if c.ModuleType == "text" {
		for _, l := range r.lanes {
			r.count(l, "skip: text module")
		}
		return
	}
	wasm, err := r.readModule(c)
	if err != nil {
		r.t.Fatalf("%s: %v", r.script, err)
	}
	// wast2json's "out of bounds table access" assert_uninstantiable is a
	// trap after the instance is complete; wazero keeps the instance.
	allowOK := c.Type == "assert_uninstantiable" && c.Text == "out of bounds table access"
	for _, l := range r.lanes {
		var failed bool
		var why string
		if l.tr != nil {
			if _, _, err := l.tr.apply(wasm); err != nil {
				if reason, ok := specSkipReason(err); ok && link {
					r.count(l, "skip: "+reason)
					// The original may have written into the modules it
					// links to before it failed (data, elem segments).
					r.diverge(l, wasm, reason)
					continue
				}
				r.count(l, resPass)
				continue
			}
		}
		if link {
			m, o := r.instantiate(l, wasm, "")
			if m != nil && m.mod != nil {
				_ = m.mod.Close(r.ctx)
			}
			failed = o.trap != "" || o.err != ""
			why = o.String()
			if o.skip != "" {
				r.count(l, "skip: "+o.skip)
				continue
			}
		} else {
			// wazero checks some validity rules (constant expressions)
			// only when instantiating, as its own runner relies on.
			m, o := r.instantiate(l, wasm, "")
			if m != nil && m.mod != nil {
				_ = m.mod.Close(r.ctx)
			}
			failed = o.trap != "" || o.err != "" || o.skip != ""
		}
		switch {
		case failed || allowOK:
			r.count(l, resPass)
		case l.tr == nil:
			r.fail(l, c, "module %s was accepted (expected %q) %s", c.Filename, c.Text, why)
		case !link:
			kind := strings.TrimPrefix(c.Type, "assert_")
			r.count(l, "info: "+kind+" module accepted after transform")
			r.t.Logf("%s.wast:%d %s [%s]: %s (%q) was accepted after the transform", r.script, c.Line, c.Type, l.name, c.Filename, c.Text)
		default:
			r.fail(l, c, "module %s: original rejected, transformed accepted", c.Filename)
		}
	}
}

func specSampled(must map[string]bool, script string) bool {
	if must[script] {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(script))
	return h.Sum32()%specSampleMod == 0
}

// runSpecScript runs the script file f with r's settings.
func runSpecScript(t *testing.T, r *specRun, f string, transforms []specTransform) {
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var s specScript
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	defer r.close()
	if err := r.newLanes(transforms); err != nil {
		t.Fatal(err)
	}
	r.run(&s)
	if !r.quiet && r.errs > r.maxErrs {
		t.Errorf("%s: %d more mismatches not shown", r.script, r.errs-r.maxErrs)
	}
}

// TestSpec runs the spec testsuite in lockstep on the original and the
// transformed modules.
func TestSpec(t *testing.T) {
	root := instrument.SpecSuiteDir(t)
	full := os.Getenv("WAFER_FULL") == "1"
	transforms, note := specTransforms()
	if note != "" {
		t.Log(note)
	}
	laneNames := []string{"original"}
	for _, tr := range transforms {
		laneNames = append(laneNames, tr.name)
	}
	counts := &specCounts{m: map[string]map[string]int{}}
	known := specKnownIssues()
	dirs := specDirs()
	must := specMustRun()
	var selected int
	var ran atomic.Int64
	t.Run("scripts", func(t *testing.T) {
		for _, d := range dirs {
			path := filepath.Join(root, d.name, "testdata")
			scripts, err := filepath.Glob(filepath.Join(path, "*.json"))
			if err != nil || len(scripts) == 0 {
				t.Errorf("%s: no scripts found in %s", d.name, path)
				continue
			}
			sort.Strings(scripts)
			for _, f := range scripts {
				name := d.name + "/" + strings.TrimSuffix(filepath.Base(f), ".json")
				if !full && !specSampled(must, name) {
					continue
				}
				selected++
				t.Run(name, func(t *testing.T) {
					ran.Add(1)
					t.Parallel()
					runSpecScript(t, &specRun{t: t, dir: d, path: path, script: name, counts: counts,
						known: known, ctx: context.Background(), maxErrs: 20}, f, transforms)
				})
			}
		}
	})
	mode := "sampled (set WAFER_FULL=1 for all scripts)"
	if full {
		mode = "full"
	}
	t.Logf("spec run: %s", mode)
	counts.report(t, dirs, laneNames)
	if int(ran.Load()) < selected {
		t.Logf("%d of %d scripts ran (-run): today's figures not checked", ran.Load(), selected)
		return
	}
	figures := specFiguresSampled
	if full {
		figures = specFiguresFull
	}
	if selected < figures.scripts {
		t.Errorf("%d scripts ran, expected at least %d", selected, figures.scripts)
	}
	for _, l := range laneNames {
		got, want := counts.lane(l), figures.lanes[l]
		if got.passed < want.passed || got.skipped > want.skipped || got.info > want.info {
			t.Errorf("lane %s: %d commands passed, %d skipped, %d invalid modules accepted after the transform; expected at least %d, at most %d, at most %d",
				l, got.passed, got.skipped, got.info, want.passed, want.skipped, want.info)
		}
	}
}

// specLaneFigures are a lane's totals over the suite's directories:
// commands passed, skipped (any reason: text modules, unsupported
// features, state linked with a skipped module) and counted as info
// (an invalid module accepted after the transform).
type specLaneFigures struct{ passed, skipped, info int }

// specFigures are a TestSpec run's scripts and each lane's totals.
type specFigures struct {
	scripts int
	lanes   map[string]specLaneFigures
}

// Today's figures of TestSpec (wazero v1.12.0's suite, `go test -v -run
// TestSpec ./instrument`, the spec summary and per-directory lines, with and
// without WAFER_FULL=1). A run must pass at least as many commands per lane,
// and skip and accept no more: a loader or runner that skips everything
// fails, and so does a new unsupported feature or invalid module accepted.
var (
	specFiguresSampled = specFigures{scripts: 64, lanes: map[string]specLaneFigures{
		"original": {20681, 102, 0}, "roundtrip": {20681, 102, 0},
		"counters": {20592, 122, 69}, "fuel": {20592, 122, 69},
		"dirty": {20589, 122, 72}, "compares": {20589, 122, 72},
	}}
	specFiguresFull = specFigures{scripts: 253, lanes: map[string]specLaneFigures{
		"original": {73628, 1577, 0}, "roundtrip": {73624, 1581, 0},
		"counters": {73307, 1788, 110}, "fuel": {73307, 1788, 110},
		"dirty": {73290, 1788, 127}, "compares": {73287, 1788, 130},
	}}
)

// TestSpecRunnerDetectsMismatch checks the runner itself: a lane whose
// transform changes behaviour (every i32.const in code bumped by one) must
// be reported as failing, and an identity lane must pass everything.
func TestSpecRunnerDetectsMismatch(t *testing.T) {
	root := instrument.SpecSuiteDir(t)
	d := specDirs()[0] // v1
	counts := &specCounts{m: map[string]map[string]int{}}
	r := &specRun{t: t, dir: d, path: filepath.Join(root, d.name, "testdata"), script: "v1/if",
		counts: counts, known: map[string]string{}, ctx: context.Background(), quiet: true}
	identity := func(b []byte) ([]byte, string, error) { return b, "", nil }
	lanes := []specTransform{{name: "identity", apply: identity}, {name: "mutant", apply: specMutateConsts}}
	runSpecScript(t, r, filepath.Join(r.path, "if.json"), lanes)
	for lane, wantFail := range map[string]bool{"original": false, "identity": false, "mutant": true} {
		m := counts.m["v1/"+lane]
		if m[resPass] == 0 {
			t.Errorf("lane %s: nothing passed: %v", lane, m)
		}
		if got := m[resFail] > 0; got != wantFail {
			t.Errorf("lane %s: expected failures %v, got %d (%v)", lane, wantFail, m[resFail], m)
		}
	}
}

// TestSpecCompare pins the value comparisons: NaN patterns, v128 lanes,
// references.
func TestSpecCompare(t *testing.T) {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	lanes := func(ls ...string) json.RawMessage { b, _ := json.Marshal(ls); return b }
	for _, tc := range []struct {
		name  string
		exp   specValue
		words []uint64
		want  bool
	}{
		{"i32 signed", specValue{Type: "i32", Value: str("-1")}, []uint64{0xffffffff}, true},
		{"i32 unsigned", specValue{Type: "i32", Value: str("4294967295")}, []uint64{0xffffffff}, true},
		{"i32 mismatch", specValue{Type: "i32", Value: str("1")}, []uint64{2}, false},
		{"f32 canonical nan", specValue{Type: "f32", Value: str("nan:canonical")}, []uint64{0xffc00000}, true},
		{"f32 canonical nan rejects payload", specValue{Type: "f32", Value: str("nan:canonical")}, []uint64{0x7fc00001}, false},
		{"f32 arithmetic nan", specValue{Type: "f32", Value: str("nan:arithmetic")}, []uint64{0x7fc00001}, true},
		{"f32 arithmetic nan rejects signalling", specValue{Type: "f32", Value: str("nan:arithmetic")}, []uint64{0x7f800001}, false},
		{"f64 -0 is not +0", specValue{Type: "f64", Value: str("0")}, []uint64{1 << 63}, false},
		{"f64 canonical nan", specValue{Type: "f64", Value: str("nan:canonical")}, []uint64{0x7ff8000000000000}, true},
		{"v128 i8 lanes", specValue{Type: "v128", LaneType: "i8", Value: lanes("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "255")},
			[]uint64{0x0807060504030201, 0xff0f0e0d0c0b0a09}, true},
		{"v128 f32 nan lane", specValue{Type: "v128", LaneType: "f32", Value: lanes("nan:canonical", "0", "0", "1065353216")},
			[]uint64{0x7fc00000, 0x3f80000000000000}, true},
		{"v128 i16 lane mismatch", specValue{Type: "v128", LaneType: "i16", Value: lanes("1", "0", "0", "0", "0", "0", "0", "0")},
			[]uint64{2, 0}, false},
		{"externref 0 is not null", specValue{Type: "externref", Value: str("0")}, []uint64{1}, true},
		{"externref null", specValue{Type: "externref", Value: str("null")}, []uint64{0}, true},
		{"funcref any", specValue{Type: "funcref"}, []uint64{0xc000123456}, true},
		{"funcref any rejects null", specValue{Type: "funcref"}, []uint64{0}, false},
		{"refnull", specValue{Type: "refnull"}, []uint64{0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := matchExpected(tc.exp, tc.words); got != tc.want {
				t.Errorf("matchExpected(%s, %#x) = %v, expected %v", tc.exp, tc.words, got, tc.want)
			}
		})
	}
	nan1, nan2 := uint64(0x7fc00000), uint64(0xffc00001)
	for _, tc := range []struct {
		name string
		t    api.ValueType
		a, b []uint64
		want bool
	}{
		{"f32 nans are equal", api.ValueTypeF32, []uint64{nan1}, []uint64{nan2}, true},
		{"f32 bits differ", api.ValueTypeF32, []uint64{0}, []uint64{1 << 31}, false},
		{"i32 ignores high bits", api.ValueTypeI32, []uint64{1}, []uint64{1 | 1<<40}, true},
		{"funcref null-ness only", 0x70, []uint64{0x1234}, []uint64{0x5678}, true},
		{"funcref null vs non-null", 0x70, []uint64{0}, []uint64{0x5678}, false},
		{"v128 f32 lane nans", 0x7b, []uint64{nan1 | nan2<<32, 0}, []uint64{nan2 | nan1<<32, 0}, true},
		{"v128 differs", 0x7b, []uint64{1, 0}, []uint64{2, 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameValue(tc.t, tc.a, tc.b); got != tc.want {
				t.Errorf("sameValue(%#x, %#x) = %v, expected %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
	for text, want := range map[string]string{
		"undefined element": "invalid table access", "uninitialized element 2": "invalid table access",
		"indirect call type mismatch": "indirect call type mismatch", "call stack exhausted": "stack overflow",
		"integer divide by zero": "integer divide by zero", "null function reference": "null reference",
	} {
		if got := specTrapClass(text); got != want {
			t.Errorf("specTrapClass(%q) = %q, expected %q", text, got, want)
		}
	}
}
