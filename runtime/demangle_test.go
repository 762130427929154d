package runtime

import "testing"

func TestDemangled(t *testing.T) {
	tests := []struct{ in, want string }{
		{"_ZN3std9panicking11begin_panic17h0123456789abcdefE", "std::panicking::begin_panic"},
		{"_ZN3std9panicking19begin_panic_handler28_$u7b$$u7b$closure$u7d$$u7d$17h8ef066ac4d1e7406E", "std::panicking::begin_panic_handler::{{closure}}"},
		{"_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h0123456789abcdefE",
			"<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop"},
		{"_RNvCs1234_7rustini5parse", "rustini::parse"}, // Rust v0
		{"_ZNSt3__16vectorIiNS_9allocatorIiEEE9push_backERKi", "std::__1::vector<int, std::__1::allocator<int> >::push_back"},
		{"_ZN3foo3barEv", "foo::bar"},
		{"_ZN3foo9toolongE", "_ZN3foo9toolongE"}, // malformed: as it is
		{"LLVMFuzzerTestOneInput", "LLVMFuzzerTestOneInput"},
		{"main.(*T).f", "main.(*T).f"},
		{"$12", "$12"},
	}
	for _, tc := range tests {
		if got := demangled(tc.in); got != tc.want {
			t.Errorf("demangled(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRustPanic: both of Rust's panic formats give the message and the
// location, and classify keeps the target's frames, not std's.
func TestRustPanic(t *testing.T) {
	for _, stderr := range []string{
		"thread '<unnamed>' panicked at 'attempt to divide by zero', lib.rs:37:51\nnote: run with `RUST_BACKTRACE=1`\n",
		"thread '<unnamed>' panicked at lib.rs:37:51:\nattempt to divide by zero\nnote: run with `RUST_BACKTRACE=1`\n",
	} {
		msg, ok := rustPanic([]byte(stderr))
		if want := "attempt to divide by zero (lib.rs:37:51)"; !ok || msg != want {
			t.Errorf("rustPanic(%q) = %q, %v; want %q", stderr, msg, ok, want)
		}
	}
	if _, ok := rustPanic([]byte("panic: not rust\n")); ok {
		t.Error("a Go panic read as Rust's")
	}
}

// TestRustTarget: examples/rustini (a Rust cdylib, so a command whose
// exports wasm-ld wraps) runs valid, invalid and its planted panic, which
// classifies as a Rust panic at the target's own frame.
func TestRustTarget(t *testing.T) {
	p := prepare(t, fixture(t, "../examples/rustini/rustini.wasm"), Config{}, nil)
	tg, err := New(t.Context(), p, testConfig(t, Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(t.Context())
	w := worker(t, tg)
	for _, tc := range []struct {
		in   string
		want Outcome
	}{{"[a]\nk = 1\n", Valid}, {"[a\n", Invalid}, {"[scale]\nr = 6/8\n", Valid}, {"[scale]\nr = 1/0\n", Crash}} {
		res := run(t, w, tc.in)
		if res.Outcome != tc.want {
			t.Fatalf("%q: %v %v, want %v", tc.in, res.Outcome, res.Failure, tc.want)
		}
		if res.Outcome != Crash {
			continue
		}
		f := res.Failure
		if f.Kind != KindRustPanic || f.Message != "attempt to divide by zero (lib.rs:37:51)" || f.Top() != "LLVMFuzzerTestOneInput" {
			t.Errorf("%q: %v %q at %q; want a Rust panic dividing by zero at LLVMFuzzerTestOneInput", tc.in, f.Kind, f.Message, f.Top())
		}
	}
}
