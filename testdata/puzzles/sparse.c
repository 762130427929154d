// Puzzle: sparse switches nested across widths (short, int, uint64_t):
// clang lowers each to a comparison tree; only one combination of cases
// in the three input slots succeeds.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	if (n < 14)
		return 0;
	short a;
	int b;
	uint64_t c;
	memcpy(&a, d, 2);
	memcpy(&b, d + 2, 4);
	memcpy(&c, d + 6, 8);
	switch (a) {
	case -30000: return 1;
	case 1234: return 2;
	case 9999:
		switch (b) {
		case 100000: return 3;
		case 7777777: return 4;
		case -123456789:
			switch (c) {
			case 0x1122334455667788ull: return 5;
			case 0xdeadbeefcafef00dull: abort();
			case 42424242424242ull: return 6;
			}
			return 7;
		case 31337: return 8;
		}
		return 9;
	case 20000: return 10;
	}
	return 0;
}
