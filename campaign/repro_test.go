package campaign

import (
	"errors"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/runtime"
)

// TestCheckedAgain: the checked build runs only when the plain run says
// to look again, its result stands only when keep says so, and an error
// of either build is returned.
func TestCheckedAgain(t *testing.T) {
	errPlain, errChecked := errors.New("plain broke"), errors.New("checked broke")
	tests := []struct {
		name          string
		plain         string
		plainErr      error
		checked       string
		checkedErr    error
		want          string
		wantErr       error
		wantRanChecks bool
	}{
		{name: "plain fails", plain: "crash", checked: "heap", want: "crash"},
		{name: "plain passes, checked finds", plain: "valid", checked: "heap", want: "heap", wantRanChecks: true},
		{name: "both pass", plain: "valid", checked: "valid", want: "valid", wantRanChecks: true},
		{name: "checked fails otherwise", plain: "valid", checked: "other", want: "valid", wantRanChecks: true},
		{name: "plain error", plain: "valid", plainErr: errPlain, wantErr: errPlain, want: "valid"},
		{name: "checked error", plain: "valid", checkedErr: errChecked, wantErr: errChecked, wantRanChecks: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			got, err := checkedAgain(
				func() (string, error) { return tc.plain, tc.plainErr },
				func() (string, error) { ran = true; return tc.checked, tc.checkedErr },
				func(r string) bool { return r == "valid" },
				func(r string) bool { return r == "heap" })
			if !errors.Is(err, tc.wantErr) || ran != tc.wantRanChecks || (err == nil && got != tc.want) {
				t.Fatalf("got %q, %v, checked ran %v; expected %q, %v, %v", got, err, ran, tc.want, tc.wantErr, tc.wantRanChecks)
			}
		})
	}
}

// TestSavedIdentity: a failure as the campaign directory keeps it (kind
// name, message with the report appended, frame names) has the identity
// runtime gives the run, so a resumed campaign knows it.
func TestSavedIdentity(t *testing.T) {
	for _, hang := range []bool{false, true} {
		r := runtime.Result{Outcome: runtime.Crash, Failure: &runtime.Failure{Kind: runtime.KindDivideByZero, Message: "integer divide by zero",
			Stack: []runtime.Frame{{Func: "parse_tlv", File: "tlv.c", Line: 105}, {Func: "LLVMFuzzerTestOneInput"}}}}
		if hang {
			r.Outcome, r.Failure.Kind = runtime.Hang, runtime.KindFuel
		}
		fl := corpus.Failure{Kind: r.Failure.Kind.String(), Hang: hang, Message: r.Failure.Message + "\n\n" + runtime.Report(r), Frames: []string{"parse_tlv", "LLVMFuzzerTestOneInput"}}
		if got, want := savedIdentity(fl), r.Identity(); got != want || want == "" {
			t.Errorf("hang %v: expected %q, got %q", hang, want, got)
		}
	}
}
