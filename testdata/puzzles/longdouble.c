// Puzzle: long double, IEEE binary128 in software on wasm32: the
// comparisons are calls to compiler-rt's __eqtf2, __letf2, __getf2 and
// __unordtf2.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 32)
		return 0;
	long double x, y;
	memcpy(&x, d, 16);
	memcpy(&y, d + 16, 16);
	if (x == 3.25L) {
		if (y >= 1000000.5L && y <= 1000000.5L)
			abort();
	}
	return 0;
}
