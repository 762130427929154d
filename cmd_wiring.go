package main

import (
	"context"
	"errors"
)

// errNotLanded is returned by wiring whose package has not been committed
// yet; it disappears as the packages land.
var errNotLanded = errors.New("not available in this build yet")

// instrumentModule runs instrument.Instrument and serialises its site map.
func instrumentModule(wasm []byte, fuel, dirty bool, skip []string) (out, sitemap []byte, sites int, err error) {
	return nil, nil, 0, errors.New("instrumentation is " + errNotLanded.Error())
}

func (c *cli) campaign(ctx context.Context, f *fuzzFlags, wasm []byte, corpusDirs []string, out string, lf bool) error {
	return errors.New("fuzzing is " + errNotLanded.Error())
}

func (c *cli) runInputs(ctx context.Context, f *fuzzFlags, wasm []byte, files []string) error {
	return errors.New("running inputs is " + errNotLanded.Error())
}

func (c *cli) runMerge(ctx context.Context, f *fuzzFlags, wasm []byte, dirs []string) error {
	if len(dirs) < 2 {
		return usagef("-merge=1: expected OUT_DIR and at least one IN_DIR, got %d directories", len(dirs))
	}
	if err := ensureWritableDir(dirs[0]); err != nil {
		return err
	}
	return c.mergeDirs(ctx, dirs[0], &f.target, wasm, dirs[1:])
}

func (c *cli) runMinimize(ctx context.Context, f *fuzzFlags, wasm []byte, crash string) error {
	return errors.New("minimizing is " + errNotLanded.Error())
}

func (c *cli) mergeDirs(ctx context.Context, out string, t *targetFlags, wasm []byte, in []string) error {
	return errors.New("merging is " + errNotLanded.Error())
}

func (c *cli) reproInputs(ctx context.Context, f *reproFlags, wasm []byte, inputs []string) error {
	return errors.New("repro is " + errNotLanded.Error())
}

func (c *cli) minimizeInput(ctx context.Context, f *minimizeFlags, wasm []byte, crash string) error {
	return errors.New("minimizing is " + errNotLanded.Error())
}
