package runtime

import (
	"strconv"
	"strings"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// identityFrames is how many top frames make up a failure's identity.
const identityFrames = 3

// Identity is the deduplication key of r's failure (docs/ALGORITHMS.md §7), the
// one key wafer uses wherever it tells failures apart (a campaign's
// findings, shrinking, known failures of a resumed campaign, `wafer
// minimize`): the outcome, then the failure's kind, the class of its
// message and the top three frames of the target's own code (canonical
// names, FrameKey), as internal/failureid computes them
// ("crash: divide-by-zero|integer divide by zero|parse_tlv").
// A Crash or Hang without a Failure is keyed by its outcome alone
// ("hang: hang||"); Valid and Invalid runs have no identity ("").
func (r Result) Identity() string {
	if !r.Outcome.Failed() {
		return ""
	}
	kind, msg := r.Outcome.String(), ""
	var frames []string
	if f := r.Failure; f != nil {
		kind, msg = f.Kind.String(), f.Message
		frames = make([]string, len(f.Stack))
		for i, fr := range f.Stack {
			frames[i] = FrameKey(fr.Func)
		}
	}
	return r.Outcome.String() + ": " + failureid.Key(kind, msg, frames, identityFrames)
}

// CrashSite is r's crash site, above its identity: the failure's class
// (the kind, one class for running out of memory), the innermost frame
// of the target's own code (failureid.IsTargetFrame) and its source line
// (not for a Go frame: only a panic's trace has Go lines, so one bug's
// site would depend on how it failed). Failures of several identities
// at one site (one bug reached through different callers) are one bug
// in a campaign's summary and fuzzer_stats. "" for valid and invalid
// runs.
func (r Result) CrashSite() string {
	if !r.Outcome.Failed() {
		return ""
	}
	if r.Failure == nil {
		return r.Outcome.String()
	}
	f := r.Failure
	site := failureid.FailureClass(f.Kind.String(), f.Message) + " in "
	for _, fr := range f.Stack {
		k := FrameKey(fr.Func)
		if !failureid.IsTargetFrame(k) {
			continue
		}
		site += k
		if fr.File != "" && !strings.HasSuffix(fr.File, ".go") {
			site += " " + fr.File + ":" + strconv.Itoa(fr.Line)
		}
		return site
	}
	if len(f.Stack) > 0 {
		return site + FrameKey(f.Stack[0].Func)
	}
	return site + "?"
}

// ParseKind returns the Kind whose String is s; an unknown name is an
// error listing the kinds.
func ParseKind(s string) (Kind, error) { return kindNames.Parse(s) }
