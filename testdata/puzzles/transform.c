// Puzzle: strings compared after a byte-wise transform of the input:
// case folding, plus a constant, xor a constant.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 24)
		return 0;
	char a[8], b[8], c[8];
	for (int i = 0; i < 8; i++) {
		a[i] = (char)tolower(d[i]);
		b[i] = (char)(d[8 + i] + 3);
		c[i] = (char)(d[16 + i] ^ 0x5a);
	}
	if (memcmp(a, "quixotic", 8) != 0)
		return 0;
	if (memcmp(b, "zephyrus", 8) != 0)
		return 0;
	if (memcmp(c, "jackdaws", 8) != 0)
		return 0;
	abort();
}
