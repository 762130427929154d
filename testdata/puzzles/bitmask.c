// Puzzle: a bit mask assembled from eight independent one-byte checks,
// compared with its full value. No check branches on its own.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static const char want[8] = {'W', 'a', 'f', 'e', 'r', '!', '4', '2'};

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 8)
		return 0;
	unsigned mask = 0;
	for (int i = 0; i < 8; i++)
		mask |= (unsigned)(d[i] == (uint8_t)want[i]) << i;
	if (mask == 0xff)
		abort();
	return 0;
}
