// clib: a libFuzzer-style C reactor for wafer's runtime tests. The first
// input byte selects one failure per Wasm trap kind; see build.sh.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*unary)(int);
typedef int (*binary)(int, int);

static volatile int sink;

__attribute__((noinline)) int read_bad_pointer(const uint8_t *d) {
	// There is no unmapped page 0 in Wasm, so a "null deref" of a
	// corrupted pointer is modelled as a read near the top of the 4 GiB space.
	volatile int *p = (volatile int *)(uintptr_t)(0xFFFFFFF0u - d[0]);
	return *p;
}

__attribute__((noinline)) int divide_by_zero(const uint8_t *d, size_t n) {
	volatile int num = 100, den = (int)n - (int)n;
	(void)d;
	return num / den;
}

__attribute__((noinline)) int overflow_divide(const uint8_t *d) {
	volatile int num = INT32_MIN, den = -1;
	(void)d;
	return num / den;
}

__attribute__((noinline)) int bad_conversion(const uint8_t *d) {
	volatile double x = __builtin_nan("");
	(void)d;
	return __builtin_wasm_trunc_s_i32_f64(x);
}

__attribute__((noinline)) int one_arg(int a) { return a + 1; }

__attribute__((noinline)) int call_mismatch(const uint8_t *d) {
	volatile unary u = one_arg;
	binary b = (binary)u;
	return b(d[0], 2);
}

__attribute__((noinline)) int call_bad_index(const uint8_t *d) {
	volatile uintptr_t idx = 0x7fff0 + d[0];
	unary u = (unary)idx;
	return u(1);
}

__attribute__((noinline)) void hit_trap(void) { __builtin_trap(); }

// recurse exhausts wazero's call stack: its locals live in Wasm locals.
__attribute__((noinline)) int recurse(int depth) {
	sink += depth;
	int r = recurse(depth + 1);
	return r + sink;
}

// recurse_frames exhausts the C shadow stack in linear memory first: the
// stack pointer runs below address 0 and the next store traps out of bounds.
__attribute__((noinline)) int recurse_frames(int depth) {
	volatile char frame[256];
	frame[depth & 255] = (char)depth;
	return recurse_frames(depth + 1) + frame[(depth + 1) & 255];
}

__attribute__((noinline)) void spin(const uint8_t *d, size_t n) {
	for (size_t i = 0;; i++) {
		sink += d[i % n];
	}
}

static int initialized;

// LLVMFuzzerInitialize runs once per instance, before any input.
__attribute__((export_name("LLVMFuzzerInitialize")))
// It checks libFuzzer's argc/argv convention: argc >= 1, argv[argc] == NULL.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
	initialized = *argc >= 1 && (*argv)[*argc] == NULL && (*argv)[0][0] != 0;
	return 0;
}

// checksum is a bounded loop (benchmarks: the cost of loop checks).
__attribute__((noinline)) int checksum(const uint8_t *d, size_t n) {
	unsigned h = 0;
	for (int i = 0; i < 100000; i++) {
		h = h * 31 + d[i % n];
	}
	sink = (int)h;
	return 0;
}

int heap_check(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size == 0) {
		return -1;
	}
	switch (data[0]) {
	case 'O': return read_bad_pointer(data);
	case 'D': return divide_by_zero(data, size);
	case 'F': return overflow_divide(data);
	case 'N': return bad_conversion(data);
	case 'M': return call_mismatch(data);
	case 'T': return call_bad_index(data);
	case 'U': hit_trap(); return 0;
	case 'A': fprintf(stderr, "clib: about to abort\n"); abort();
	case 'S': return recurse(0);
	case 'R': return recurse_frames(0);
	case 'L': spin(data, size); return 0;
	case 'X': return -1;
	case 'K': return checksum(data, size);
	case 'Q': return initialized ? 0 : -1;
	case 'P': printf("clib says %.*s\n", (int)(size - 1), (const char *)data + 1); return 0;
	case 'H': return heap_check(data, size);
	}
	sink += data[0];
	return 0;
}

// heap_check allocates and fills 256 KiB (more than the heap has: malloc
// grows memory), then aborts if the input changed meanwhile: the input
// buffer and the target's heap must not overlap, however wafer placed the
// buffer (nomalloc.wasm exports no allocator).
__attribute__((noinline)) int heap_check(const uint8_t *d, size_t n) {
	uint8_t before[64];
	size_t k = n < sizeof before ? n : sizeof before;
	memcpy(before, d, k);
	uint8_t *p = malloc(256 << 10);
	if (p == NULL) {
		abort();
	}
	memset(p, 0xAA, 256 << 10);
	int changed = memcmp(before, d, k) != 0;
	sink += p[n];
	free(p);
	if (changed) {
		fprintf(stderr, "clib: input overwritten by the heap\n");
		abort();
	}
	return 0;
}
