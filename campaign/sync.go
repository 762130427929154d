package campaign

import (
	"context"
	"fmt"
	"io"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
)

// syncImporter is the engine's Importer over the campaign directory's
// Syncer: the sibling campaigns' new queue entries (choice sequences with
// a Generator: entries without one are left out) and the identities of
// their saved failures. The engine never calls it twice at once.
type syncImporter struct {
	s      *corpus.Syncer
	gen    bool // Generator mode: import the sidecars' choice sequences
	maxIn  int  // raw mode: the input buffer's size; longer entries are left out
	logw   io.Writer
	output string
	polls  int
	hook   *pollHook // tests only; nil otherwise
	// renames maps old frame keys of the peers' failures to today's
	// (frameRenames).
	renames map[string]string
}

// pollHook lets a test see a sync poll begin and what it imported, so
// that it can state when an entry is imported in polls, not in wall time.
type pollHook struct {
	start func()
	done  func([]engine.Imported)
}

// Poll implements engine.Importer.
func (im *syncImporter) Poll(ctx context.Context) (engine.Import, error) {
	var out engine.Import
	if im.hook != nil {
		im.hook.start()
		defer func() { im.hook.done(out.Inputs) }()
	}
	entries, skipped, err := im.s.Poll(ctx)
	if err != nil {
		return out, err
	}
	logSkipped(im.logw, "sync: ", skipped)
	long := 0
	for _, e := range entries {
		in := engine.Imported{Choices: e.Input, Op: engine.Op(e.Op)}
		switch {
		case im.gen && e.Choices == nil:
			continue
		case im.gen:
			in.Choices = e.Choices
		case len(e.Input) > im.maxIn:
			long++
			continue
		}
		out.Inputs = append(out.Inputs, in)
	}
	fails, skipped, err := im.s.Failures(ctx)
	if err != nil {
		return out, err
	}
	logSkipped(im.logw, "sync: ", skipped)
	for _, f := range fails {
		out.KnownFailures = append(out.KnownFailures, savedIdentity(f, im.renames))
	}
	if im.polls == 0 || len(out.Inputs) > 0 || len(fails) > 0 {
		fmt.Fprintf(im.logw, "INFO: sync: %d entries and %d failures from peer campaigns next to %s\n", len(out.Inputs), len(fails), im.output)
	}
	if long > 0 {
		fmt.Fprintf(im.logw, "INFO: sync: left out %d entries longer than the input buffer (%d bytes; raise --max-len)\n", long, im.maxIn)
	}
	im.polls++
	return out, nil
}

// Commit implements engine.Importer.
func (im *syncImporter) Commit(context.Context) error { return im.s.Commit() }
