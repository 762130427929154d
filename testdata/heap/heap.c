// A harness shaped like many real ones: its size check returns before it
// sets anything up, so the empty run wafer makes before the snapshot
// allocates nothing, and every other run allocates a working buffer (a
// parser's input and token buffers) and frees it. Input "B..." allocates
// 4 MiB, more than wafer's default heap reserve; others 256 KiB.
//
// Built with -DBADFREE, malloc is a bump allocator whose free traps: a
// target whose heap reserve fails must still start (without it).
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef BADFREE
extern unsigned char __heap_base;
static uintptr_t top = (uintptr_t)&__heap_base;

__attribute__((noinline)) void *malloc(size_t n) {
	uintptr_t p = (top + 15) & ~(uintptr_t)15;
	uintptr_t end = p + n;
	size_t have = __builtin_wasm_memory_size(0) * 65536;
	if (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535) / 65536) == (size_t)-1)
		return NULL;
	top = end;
	return (void *)p;
}

__attribute__((noinline)) void free(void *p) {
	if (p)
		__builtin_trap();
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 1)
		return 0;
	size_t n = data[0] == 'B' ? (size_t)4 << 20 : (size_t)256 << 10;
	uint8_t *buf = malloc(n);
	if (!buf)
		return -1;
	memset(buf, data[0], n);
	unsigned sum = 0;
	for (size_t i = 0; i < size; i++)
		sum += buf[(i * 4099) % n] ^ data[i];
	free(buf);
	return sum == 0 ? -1 : 0;
}
