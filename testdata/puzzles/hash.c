// Puzzle: a 32-bit hash (djb2) of four input bytes compared with a
// constant.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 4)
		return 0;
	uint32_t h = 5381;
	for (int i = 0; i < 4; i++)
		h = h * 33 + d[i];
	if (h == 0x7c85773cu)
		abort();
	return 0;
}
