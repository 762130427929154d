// Recursion on the C stack in linear memory. The first input byte sets
// the depth: 'r' recurses 100 levels (about 26 KB of stack: legal), 'R'
// 100,000 (far past the 64 KiB stack: an overflow). Built twice:
// stack.wasm with wasm-ld's default layout (stack above the static data),
// first.wasm with --stack-first (stack at address 0: the pointer wraps).
#include <stddef.h>
#include <stdint.h>

__attribute__((noinline)) static unsigned recurse(unsigned depth, const uint8_t *data, size_t size) {
	volatile uint8_t frame[256];
	frame[depth % 256] = (uint8_t)depth;
	if (depth == 0)
		return frame[0];
	return recurse(depth - 1, data, size) + frame[depth % 256] + data[depth % size];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 1)
		return 0;
	switch (data[0]) {
	case 'r':
		return recurse(100, data, size) == 0 ? -1 : 0;
	case 'R':
		return recurse(100000, data, size) == 0 ? -1 : 0;
	}
	return -1;
}
