package runtime

import "github.com/ianlancetaylor/demangle"

// demangled is a stack frame's function name as its source language
// spells it: Itanium C++ ("_ZNSt3__16vectorIiNS_9allocatorIiEEE9push_backERKi"
// is "std::__1::vector<int, std::__1::allocator<int> >::push_back") and
// Rust, both the legacy scheme ("_ZN3std9panicking11begin_panic17h…E" is
// "std::panicking::begin_panic") and v0 ("_R…"), without parameter lists
// and at most 4 KiB long. Any other name, Go's and C's among them, is
// returned as it is. The demangler is the one Go's pprof uses.
func demangled(name string) string {
	return demangle.Filter(name, demangle.NoParams, demangle.NoClones, demangle.MaxLength(12))
}
