package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// newFlagSet returns a pflag set that reports errors instead of exiting,
// prints nothing itself (the caller prints one line), and treats '_' and
// '-' in long names alike, so libFuzzer's -max_total_time and wafer's
// --max-total-time are the same flag.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(discard{})
	fs.Usage = func() {}
	fs.SortFlags = false
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(n, "_", "-"))
	})
	return fs
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// singleDashLong matches libFuzzer's flag form: one dash, a name of two or
// more characters, optionally "=value".
var singleDashLong = regexp.MustCompile(`^-[A-Za-z][A-Za-z0-9_-]+(=.*)?$`)

// translateArgs rewrites libFuzzer-style single-dash long flags
// (-max_total_time=60) into pflag's double-dash form. One-letter shorthands
// (-o DIR, -i DIR) and everything after "--" are left alone.
func translateArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if singleDashLong.MatchString(a) {
			a = "-" + a
		}
		out = append(out, a)
	}
	return out
}

// parseFlags parses translated args into fs and turns pflag's errors into
// one-line usage errors naming the command.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	err := fs.Parse(translateArgs(args))
	if errors.Is(err, pflag.ErrHelp) {
		return err
	}
	if err != nil {
		return usagef("%s: %v (run 'wafer help %s')", fs.Name(), err, fs.Name())
	}
	return nil
}

// seconds is a duration flag that also accepts libFuzzer's plain numbers
// of seconds: "60", "0.5" and "1m30s" are all valid.
type seconds time.Duration

func (s *seconds) String() string {
	d := time.Duration(*s)
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

func (s *seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 {
			return fmt.Errorf("expected a duration >= 0, got %q", v)
		}
		*s = seconds(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("expected seconds or a duration such as 90s or 2m, got %q", v)
	}
	*s = seconds(d)
	return nil
}

func (s *seconds) Type() string { return "seconds" }

// readModule reads a .wasm file; campaign.Load (or instrument, for wafer
// instrument) checks that it is a module.
func readModule(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	return b, nil
}

// fileError shortens *fs.PathError into "PATH: reason".
func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// ensureWritableDir creates dir if needed and proves it is writable, so an
// unwritable output directory fails at start-up, not at the first finding.
func ensureWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", fileError(dir, err))
	}
	f, err := os.CreateTemp(dir, ".wafer-probe-*")
	if err != nil {
		return fmt.Errorf("output directory: %s: not writable: %w", dir, errors.Unwrap(err))
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// ensureWritableFile checks that path's directory exists so a run does not
// end with nowhere to write its result.
func ensureWritableFile(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("output %s: %w", path, fileError(dir, err))
	}
	if !st.IsDir() {
		return fmt.Errorf("output %s: %s is not a directory", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("output %s: expected a file, got a directory", path)
	}
	return nil
}
