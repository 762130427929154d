package campaign

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/instrument"
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
		if got, want := savedIdentity(fl, nil), r.Identity(); got != want || want == "" {
			t.Errorf("hang %v: expected %q, got %q", hang, want, got)
		}
	}
}

// TestSavedIdentityOldGoFrames: a Go failure saved with the frame keys of
// the name section's spelling (as wafer keyed Go frames before it read Go's
// function table) has the identity today's run of it gets.
func TestSavedIdentityOldGoFrames(t *testing.T) {
	wasm := readFile(t, "../testdata/gonames/go-names.wasm")
	tg, err := Load("go-names.wasm", wasm, TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, sm, err := tg.compile(context.Background(), buildPlain, 0, ResetDefault, true)
	if err != nil {
		t.Fatal(err)
	}
	var method instrument.Func
	for _, f := range sm.Funcs {
		if strings.HasSuffix(f.Name, "inner/pkg.(*Decoder).ReadChunk") {
			method = f
		}
	}
	if method.WasmName == "" || method.WasmName == method.Name {
		t.Fatalf("expected ReadChunk named as Go prints it, its name-section spelling apart; got %+v", method)
	}
	r := runtime.Result{Outcome: runtime.Crash, Failure: &runtime.Failure{Kind: runtime.KindGoPanic, Message: "go-names fixture: bad chunk",
		Stack: []runtime.Frame{{Func: method.Name}, {Func: "main.fuzz"}}}}
	old := corpus.Failure{Kind: r.Failure.Kind.String(), Message: r.Failure.Message, Frames: []string{runtime.FrameKey(method.WasmName), "main.fuzz"}}
	if got := savedIdentity(old, nil); got == r.Identity() {
		t.Fatalf("the fixture shows nothing: the old frame key %q gives today's identity without renames", old.Frames[0])
	}
	if got, want := savedIdentity(old, frameRenames(sm)), r.Identity(); got != want {
		t.Errorf("expected %q, got %q", want, got)
	}
}
