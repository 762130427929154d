package runtime

import "github.com/wafer-fuzz/wafer/internal/failureid"

// identityFrames is how many top frames make up a failure's identity.
const identityFrames = 3

// Identity is the deduplication key of r's failure (ALGORITHMS.md §7), the
// one key wafer uses wherever it tells failures apart (a campaign's
// findings, shrinking, known failures of a resumed campaign, `wafer
// minimize`): the outcome, then the failure's kind, the class of its
// message and its top three frames, as internal/failureid computes them
// ("crash: divide-by-zero|integer divide by zero|parse_tlv;LLVMFuzzerTestOneInput").
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
			frames[i] = fr.Func
		}
	}
	return r.Outcome.String() + ": " + failureid.Key(kind, msg, frames, identityFrames)
}

// ParseKind returns the Kind whose String is s.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return KindNone, false
}
