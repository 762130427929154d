// A wafer fixture for live sync (issue 27): a gate only a campaign that
// has the input can pass. The first 8 bytes must hash (FNV-1a, 32 bits)
// to the hash of "SYNCSEED": the comparison is against the hash, so
// neither the target's constants nor input-to-state mutation help, and a
// campaign without the input does not find it (2^-32 a try). Behind the
// gate, 16 cases of byte-driven coverage; "SYNCSEED!" divides by zero.
// Before it, the same on the first bytes, so every campaign keeps finding
// entries of its own.
#include <stddef.h>
#include <stdint.h>

static volatile int zero;

__attribute__((noinline)) static uint32_t fnv1a(const uint8_t *d, size_t n) {
	uint32_t h = 0x811c9dc5u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x01000193u;
	return h;
}

__attribute__((noinline)) static int open_part(const uint8_t *d, size_t n) {
	int s = 0;
	for (size_t i = 0; i < n && i < 16; i++) {
		switch (d[i] & 15) {
		case 0: s += 1; break;
		case 1: s ^= 3; break;
		case 2: s -= 5; break;
		case 3: s *= 7; break;
		case 4: s += (int)i; break;
		case 5: s |= 64; break;
		case 6: s &= 0x7f; break;
		case 7: s <<= 1; break;
		default: s += d[i]; break;
		}
	}
	return s;
}

__attribute__((noinline)) static int boom(int x) { return x / zero; }

__attribute__((noinline)) static int gated(const uint8_t *d, size_t n) {
	int s = 1;
	if (n > 0 && d[0] == '!')
		return boom(n);
	for (size_t i = 0; i < n && i < 16; i++) {
		switch (d[i] % 12) {
		case 0: s += 11; break;
		case 1: s ^= 13; break;
		case 2: s -= 17; break;
		case 3: s *= 19; break;
		case 4: s += 23 * (int)i; break;
		case 5: s |= 29; break;
		case 6: s &= 31; break;
		case 7: s <<= 2; break;
		case 8: s >>= 1; break;
		case 9: s += 37; break;
		case 10: s -= 41; break;
		default: s += d[i]; break;
		}
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
	int s = open_part(d, n);
	if (n >= 8 && fnv1a(d, 8) == 0x0e6568fbu) // fnv1a("SYNCSEED")
		s += gated(d + 8, n - 8);
	return s == 12345678 ? 1 : 0;
}
