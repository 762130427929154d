// Puzzle (C++): a std::string compared after upper-casing, then a
// switch on a value computed from it, then a 64-bit magic.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

static int weight(char c) {
	switch (c) {
	case 'A': return 11;
	case 'E': return 23;
	case 'X': return 37;
	default: return 1;
	}
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 18)
		return 0;
	std::string s(reinterpret_cast<const char *>(d), 6);
	for (auto &ch : s)
		ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
	if (s != "EXAMPL")
		return 0;
	int w = 0;
	for (int i = 6; i < 10; i++)
		w += weight(static_cast<char>(d[i]));
	if (w != 108)
		return 0;
	uint64_t m;
	std::memcpy(&m, d + 10, 8);
	if (m == 0x0badc0ffee0ddf00ull)
		abort();
	return 0;
}
