package campaign

import (
	"context"
	"fmt"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// Replayer runs inputs on the campaign's build (counters, fuel, dirty
// pages, the same Skip), one instance, for what a corpus covers (`wafer
// cov`). Not safe for concurrent use.
type Replayer struct {
	tgt *runtime.Target
	sm  *instrument.SiteMap
	w   *runtime.Worker
}

// Replayed is one input's run.
type Replayed struct {
	Outcome Outcome
	// Failure is set for Crash and Hang.
	Failure *Failure
	// Counters is the run's hit counters, one byte per site of SiteMap;
	// valid until the next Run.
	Counters []byte
}

// NewReplayer compiles the campaign's build for inputs of up to maxInput
// bytes. Close it when done.
func (t *Target) NewReplayer(ctx context.Context, maxInput int) (*Replayer, error) {
	tgt, sm, err := t.compile(ctx, buildCounters, maxInput, ResetDefault, false)
	if err != nil {
		return nil, err
	}
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		tgt.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return &Replayer{tgt: tgt, sm: sm, w: w}, nil
}

// SiteMap describes the counters: site id → function, offset, kind,
// file:line.
func (r *Replayer) SiteMap() *instrument.SiteMap { return r.sm }

// Run runs one input. An error means wafer itself failed.
func (r *Replayer) Run(ctx context.Context, input []byte) (Replayed, error) {
	res, err := r.w.Run(ctx, input)
	if err != nil {
		return Replayed{}, err
	}
	return Replayed{Outcome: res.Outcome, Failure: res.Failure, Counters: res.Counters}, nil
}

// Close closes the instance and the build.
func (r *Replayer) Close() {
	ctx := context.Background()
	r.w.Close(ctx)
	r.tgt.Close(ctx)
}
