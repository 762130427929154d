// A libFuzzer-style target for the heap guard (instrument's
// Options.HeapGuard). The first input byte selects a behaviour; the
// valid ones use every allocator entry point and check what they got.
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// opaque and keep keep clang from folding the bugs, and the allocations,
// away.
__attribute__((noinline)) static size_t opaque(size_t n) { return n; }
static void *volatile kept;
__attribute__((noinline)) static void *keep(void *p) {
	kept = p;
	return kept;
}

__attribute__((noinline)) static int overflow_write(const uint8_t *data, size_t size) {
	char *p = keep(malloc(opaque(10)));
	memcpy(p, data, size < 11 ? size : 11); // 11 bytes into 10
	free(p);
	return 0;
}

__attribute__((noinline)) static int double_free(void) {
	char *p = keep(malloc(opaque(24)));
	free(p);
	free(keep(p));
	return 0;
}

__attribute__((noinline)) static int realloc_overflow(void) {
	char *p = keep(calloc(opaque(4), 4));
	p[opaque(16)] = 1;
	p = keep(realloc(p, 64));
	free(p);
	return 0;
}

__attribute__((noinline)) static int realloc_freed(void) {
	char *p = keep(malloc(opaque(8)));
	free(p);
	p = keep(realloc(keep(p), 64));
	return p != 0;
}

__attribute__((noinline)) static int aligned_overflow(void) {
	char *p = keep(aligned_alloc(64, opaque(64)));
	p[opaque(64)] = 1;
	free(p);
	return 0;
}

// workout uses every entry point correctly: 0 when each behaves.
__attribute__((noinline)) static int workout(const uint8_t *data, size_t size) {
	int bad = 0;
	char *a = keep(malloc(size + 1));
	memcpy(a, data, size);
	a[size] = 0;
	uint32_t *z = keep(calloc(opaque(16), sizeof *z));
	for (int i = 0; i < 16; i++)
		bad |= z[i] != 0;
	a = keep(realloc(a, 2 * size + 100));
	bad |= memcmp(a, data, size) != 0;
	a = keep(realloc(a, 2));
	bad |= size > 1 && memcmp(a, data, 2) != 0;
	char *al = keep(aligned_alloc(256, opaque(300)));
	bad |= ((uintptr_t)al & 255) != 0;
	memset(al, 7, 300);
	al = keep(realloc(al, 600));
	bad |= al[299] != 7 || al[0] != 7;
	void *pm = 0;
	bad |= posix_memalign(&pm, 32, opaque(40)) != 0 || ((uintptr_t)pm & 31) != 0;
	bad |= posix_memalign(&pm, 3, 40) == 0; // not a power of two: EINVAL
	void *pm2 = 0;
	bad |= posix_memalign(&pm2, 8, opaque(40)) != 0;
	bad |= malloc_usable_size(z) < 64;
	free(keep(realloc(keep(malloc(opaque(5))), 0))); // a block or null: both free
	bad |= keep(calloc(opaque((size_t)1 << 31), 4)) != 0; // overflows size_t
	bad |= keep(malloc(opaque((size_t)-8))) != 0;
	free(0);
	free(a);
	free(z);
	free(al);
	free(pm);
	free(pm2);
	return bad ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 1)
		return 0;
	switch (data[0]) {
	case 'O': return overflow_write(data, size);
	case 'D': return double_free();
	case 'R': return realloc_overflow();
	case 'F': return realloc_freed();
	case 'A': return aligned_overflow();
	case 'W': return workout(data, size);
	}
	return 0;
}
