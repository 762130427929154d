// Puzzle: a weighted sum of four input bytes compared with a constant.
// The operand is computed, not copied: input-to-state cannot help; the
// distance between the operands (value profile) guides the search.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 4)
		return 0;
	uint32_t s = 40503u * d[0] + 2111u * d[1] + 97u * d[2] + 3u * d[3];
	if (s == 3782659)
		abort();
	return 0;
}
