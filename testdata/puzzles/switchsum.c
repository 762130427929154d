// Puzzle: the sum of a switch's results over six input slots compared
// with a set of values.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) static int score(uint8_t c) {
	switch (c) {
	case 'k': return 3;
	case 'q': return 9;
	case 'r': return 5;
	case 'b': return 4;
	case 'n': return 2;
	case 'p': return 1;
	default: return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 6)
		return 0;
	int s = 0;
	for (int i = 0; i < 6; i++)
		s += score(d[i]);
	if (s == 49 || s == 50)
		abort();
	return 0;
}
