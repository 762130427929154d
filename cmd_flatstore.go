package main

import (
	"context"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
)

// flatStore is the engine Store of the libFuzzer invocation without -o:
// like libFuzzer, it writes each new input, as it is found, into the first
// corpus directory under its SHA-1. Failures become artifacts at the end
// (after shrinking); stats live only in the process.
type flatStore struct{ dir corpus.Flat }

func (s flatStore) Load(context.Context) ([][]byte, error) { return nil, nil }

func (s flatStore) AddEntry(ctx context.Context, e *engine.Entry) error {
	if e.Op == "seed" {
		return nil
	}
	_, err := s.dir.Write(ctx, "", e.Input)
	return err
}

func (s flatStore) AddFailure(context.Context, *engine.Finding) error { return nil }

func (s flatStore) WriteStats(context.Context, *engine.Stats) error { return nil }
