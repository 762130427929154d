// A libFuzzer-style C++ target linked as a command (-nostartfiles
// -Wl,--no-entry, not -mexec-model=reactor): wasm-ld wraps each export in
// calls to the static constructors and destructors. wafer must call the
// wrapped functions, with the constructors run once per instance.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

static int constructed;
struct Counted {
	Counted() { constructed++; }
};
static Counted counted;
static std::map<std::string, int> seen = {{"ab", 1}};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (constructed != 1)
		abort(); // the constructors ran again, or never
	std::string s(reinterpret_cast<const char *>(data), size);
	if (s == "crash")
		__builtin_trap();
	// Global state a run changes and the next must not see: "ab" is
	// always invalid, every other input valid.
	return ++seen[s] > 1 ? -1 : 0;
}
