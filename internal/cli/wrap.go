package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

const wrapHelp = `usage: wafer wrap -o OUT_DIR/NAME [flags] TARGET.wasm

Writes a libFuzzer-style fuzz target for TARGET.wasm into OUT_DIR, in the
layout OSS-Fuzz and ClusterFuzzLite read from their $OUT directory:

  NAME                  an executable: a copy of this wafer binary marked
                        as a wrapper. Run, it is 'wafer NAME.wasm ARGS...',
                        the libFuzzer-compatible invocation ('wafer help
                        libfuzzer'), on the module beside it named after it
  NAME.wasm             the module
  NAME.options          with --options/--option: an INI file whose
                        [libfuzzer] section the runners pass as -key=value
  NAME.dict             with --dict
  NAME_seed_corpus.zip  with --seed-corpus: the seed files, flat, named by
                        their SHA-1 (the runners unzip it into the corpus)

NAME is a fuzz target's name as the runners accept it: letters, digits,
'_' and '-', no extension. The executable is a whole copy of wafer (no Go
needed at run time) and contains the string LLVMFuzzerTestOneInput, which
is how the runners tell fuzz targets from other files; no other file
written here is executable. Every file is written atomically.

examples:
  wafer wrap -o $OUT/tlv_fuzzer --dict examples/tlv/tlv.dict --seed-corpus examples/tlv/seeds examples/tlv/tlv.wasm
  wafer wrap -o out/parse_fuzzer --option max_len=4096 --option fuel=1000000 parse.wasm
  out/parse_fuzzer -max_total_time=60 corpus/    (as a runner runs it)
`

type wrapFlags struct {
	fs      *pflag.FlagSet
	out     string
	options string
	option  []string
	dict    string
	seeds   []string
}

func newWrapFlags() *wrapFlags {
	f := &wrapFlags{fs: newFlagSet("wrap")}
	f.fs.StringVarP(&f.out, "output", "o", "", "the fuzz target to write, `OUT_DIR/NAME` (required)")
	f.fs.StringVar(&f.options, "options", "", "an options `FILE` (INI, [libfuzzer] key = value lines) to write as NAME.options")
	f.fs.StringArrayVar(&f.option, "option", nil, "a `KEY=VALUE` for NAME.options' [libfuzzer] section, a flag of 'wafer help libfuzzer' without its dash (repeatable; overrides --options)")
	f.fs.StringVar(&f.dict, "dict", "", "an AFL/libFuzzer dictionary `FILE` to write as NAME.dict")
	f.fs.StringArrayVar(&f.seeds, "seed-corpus", nil, "a `DIR` (read recursively) or file of seed inputs for NAME_seed_corpus.zip (repeatable)")
	return f
}

// targetNameRE is the name a fuzz target may have: OSS-Fuzz's
// infra/utils.py VALID_TARGET_NAME_REGEX (ClusterFuzz's also allows '.'
// and '@', but a '.' reads as an extension to OSS-Fuzz's check).
var targetNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func (c *cli) wrap(ctx context.Context, args []string) error {
	f := newWrapFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"wrap"})
		}
		return err
	}
	if f.fs.NArg() != 1 {
		return usagef("wrap: expected one TARGET.wasm, got %d arguments (run 'wafer help wrap')", f.fs.NArg())
	}
	if f.out == "" {
		return usagef("wrap: missing -o OUT_DIR/NAME (run 'wafer help wrap')")
	}
	name := filepath.Base(f.out)
	if err := checkTargetName(name); err != nil {
		return usagef("wrap: -o %s: %v", f.out, err)
	}
	wasm, err := readModule(f.fs.Arg(0))
	if err != nil {
		return err
	}
	if _, err := campaign.Load(f.fs.Arg(0), wasm, campaign.TargetOptions{}); err != nil {
		return err // a module wafer would refuse at run time
	}
	files, err := f.sideFiles(ctx, name)
	if err != nil {
		return err
	}
	exe, err := wrapperBinary()
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("wrap: %w", fileError(dir, err))
	}
	// The module and side files first, the executable last: a runner
	// listing the directory half-way through finds no target without its
	// module.
	files = append([]wrapFile{{name + ".wasm", wasm, 0o644}}, files...)
	files = append(files, wrapFile{name, exe, 0o755})
	for _, wf := range files {
		path := filepath.Join(dir, wf.name)
		if err := atomicfile.WriteMode(path, wf.data, wf.mode); err != nil {
			return fmt.Errorf("wrap: %w", err)
		}
		fmt.Fprintf(c.stdout, "%s (%d bytes)\n", path, len(wf.data))
	}
	return nil
}

// checkTargetName reports why the runners would not take name for a fuzz
// target: OSS-Fuzz's is_fuzz_target_local (infra/utils.py) wants
// targetNameRE and no extension; test_all.py's find_fuzz_targets skips
// afl-*, jazzer_* and llvm-symbolizer.
func checkTargetName(name string) error {
	switch {
	case !targetNameRE.MatchString(name):
		return fmt.Errorf("expected a target name of letters, digits, '_' and '-' (no extension), got %q", name)
	case strings.HasPrefix(name, "afl-"), strings.HasPrefix(name, "jazzer_"), name == "llvm-symbolizer":
		return fmt.Errorf("the runners skip files named %q (afl-*, jazzer_*, llvm-symbolizer): choose another name", name)
	}
	return nil
}

type wrapFile struct {
	name string
	data []byte
	mode os.FileMode
}

// sideFiles reads and checks the options, dictionary and seeds, and
// returns NAME.options, NAME.dict and NAME_seed_corpus.zip as asked.
func (f *wrapFlags) sideFiles(ctx context.Context, name string) ([]wrapFile, error) {
	var files []wrapFile
	if f.options != "" || len(f.option) > 0 {
		var ini iniFile
		if f.options != "" {
			b, err := os.ReadFile(f.options)
			if err != nil {
				return nil, fmt.Errorf("--options: %w", fileError(f.options, err))
			}
			if ini, err = parseINI(b); err != nil {
				return nil, fmt.Errorf("--options: %s:%w", f.options, err)
			}
		}
		known := newFuzzFlags().fs
		for _, kv := range f.option {
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
			if !ok || !iniKeyRE.MatchString(k) || strings.ContainsAny(v, "\r\n") {
				return nil, usagef("--option: expected KEY=VALUE with a flag name for KEY, got %q", kv)
			}
			ini.set("libfuzzer", k, v)
		}
		for _, kv := range ini.section("libfuzzer") {
			if !libFuzzerFlagKnown(known, "-"+kv.key) {
				return nil, usagef("options: [libfuzzer] %s: wafer has no flag -%s (run 'wafer help libfuzzer')", kv.key, kv.key)
			}
		}
		files = append(files, wrapFile{name + ".options", ini.render(), 0o644})
	}
	if f.dict != "" {
		b, err := os.ReadFile(f.dict)
		if err != nil {
			return nil, fmt.Errorf("--dict: %w", fileError(f.dict, err))
		}
		if _, err := campaign.ParseDict(b); err != nil {
			return nil, fmt.Errorf("--dict: %s: %w", f.dict, err)
		}
		files = append(files, wrapFile{name + ".dict", b, 0o644})
	}
	if len(f.seeds) > 0 {
		z, n, err := seedZip(ctx, f.seeds)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("--seed-corpus: no files in %s", strings.Join(f.seeds, ", "))
		}
		files = append(files, wrapFile{name + "_seed_corpus.zip", z, 0o644})
	}
	return files, nil
}

// seedZip zips the files under paths flat, each named by the SHA-1 of its
// content (libFuzzer's corpus file names), duplicates once, in name order
// with a fixed time, so the same seeds give the same bytes.
func seedZip(ctx context.Context, paths []string) ([]byte, int, error) {
	byName := map[string][]byte{}
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha1.Sum(b)
			byName[hex.EncodeToString(sum[:])] = b
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("--seed-corpus: %w", fileError(root, err))
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return nil, 0, err
		}
		if _, err := w.Write(byName[n]); err != nil {
			return nil, 0, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), len(names), nil
}

// wrapTrailer ends a wrapper executable: wafer with these bytes appended
// runs as 'wafer EXE.wasm ARGS...' (wrappedModule). Executable formats
// ignore bytes after their last section (ELF, PE; Mach-O's code signature
// does not cover them: see the README).
const wrapTrailer = "\x00wafer wrapped fuzz target v1\x00\n"

// wrapperBinary returns the running wafer's executable with wrapTrailer
// appended (once: a wrapper's own copy keeps one).
func wrapperBinary() ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("wrap: cannot find wafer's own executable to copy: %w", err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return nil, fmt.Errorf("wrap: reading wafer's executable: %w", fileError(exe, err))
	}
	b = bytes.TrimSuffix(b, []byte(wrapTrailer))
	return append(b, wrapTrailer...), nil
}

// wrappedModule reports whether the running executable is a wrapper
// written by 'wafer wrap', and the module it runs: EXE.wasm beside it
// (EXE without .exe on Windows).
func wrappedModule() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	return hasWrapTrailer(exe)
}

func hasWrapTrailer(exe string) (string, bool) {
	fh, err := os.Open(exe)
	if err != nil {
		return "", false
	}
	defer fh.Close()
	st, err := fh.Stat()
	n := int64(len(wrapTrailer))
	if err != nil || st.Size() < n {
		return "", false
	}
	tail := make([]byte, n)
	if _, err := fh.ReadAt(tail, st.Size()-n); err != nil || string(tail) != wrapTrailer {
		return "", false
	}
	return strings.TrimSuffix(exe, ".exe") + ".wasm", true
}
