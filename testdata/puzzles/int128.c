// Puzzle: 128-bit integers (wasm lowers them to pairs of i64) compared
// for equality and order.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 32)
		return 0;
	unsigned __int128 x, y;
	memcpy(&x, d, 16);
	memcpy(&y, d + 16, 16);
	unsigned __int128 k = ((unsigned __int128)0x0123456789abcdefull << 64) | 0xfedcba9876543210ull;
	if (x == k) {
		__int128 lo = ((__int128)0x1000000000000000ll << 64) | 5;
		if ((__int128)y > lo && (__int128)y < lo + 2)
			abort();
	}
	return 0;
}
