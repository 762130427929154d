// A libFuzzer-style target for the heap check (instrument's
// Options.HeapCheck). The first input byte selects a bug; 'W' runs a
// workout of libc's string and allocator functions on blocks of every
// length up to 40 that must pass. build.sh builds it twice: check.wasm,
// and bulk.wasm with -mbulk-memory, whose memcpy, memmove and memset of
// its own code are memory.copy and memory.fill.
#include <stdint.h>
#include <stdio.h>
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

__attribute__((noinline)) static int read_past(void) {
	char *p = keep(malloc(opaque(10)));
	memset(p, 1, 10);
	int x = p[opaque(10)]; // one byte past the end
	free(p);
	return x == 99;
}

__attribute__((noinline)) static int read_before(void) {
	char *p = keep(malloc(opaque(32)));
	int x = p[-(int)opaque(1)];
	free(p);
	return x == 99;
}

__attribute__((noinline)) static int write_past(void) {
	char *p = keep(malloc(opaque(10)));
	*(uint32_t *)(p + opaque(8)) = 1; // bytes 8..11 of 10: never freed
	return 0;
}

__attribute__((noinline)) static int read_freed(void) {
	int *p = keep(malloc(opaque(16)));
	p[1] = 5;
	free(p);
	return ((int *)keep(p))[1] == 99;
}

__attribute__((noinline)) static int write_freed(void) {
	int *p = keep(malloc(opaque(64)));
	free(p);
	((int *)keep(p))[10] = 1;
	return 0;
}

// read_reused reads a freed block after a malloc of its size, which
// dlmalloc serves with that same block unless the quarantine holds it.
__attribute__((noinline)) static int read_reused(void) {
	int *p = keep(malloc(opaque(24)));
	free(p);
	int *q = keep(malloc(opaque(24)));
	q[1] = 7;
	int x = ((int *)keep(p))[1]; // p is freed, whatever q is
	free(q);
	return x == 99;
}

struct pair {
	int a, b;
};

// null_field reads a field through a null pointer (address 4).
__attribute__((noinline)) static int null_field(void) {
	struct pair *p = keep(0);
	return p->b == 99; // null
}

__attribute__((noinline)) static int input_past(const uint8_t *data, size_t size) {
	return data[size] == 99; // the byte after the input
}

__attribute__((noinline)) static int strlen_unterminated(void) {
	char *p = keep(malloc(opaque(16)));
	memset(p, 'a', 16);
	return strlen(p) == 99;
}

// copy_past, fill_past and copy_freed go out of their blocks through
// memcpy and memset: bulk memory instructions in bulk.wasm (built with
// -mbulk-memory), libc's loops in check.wasm.
__attribute__((noinline)) static int copy_past(const uint8_t *data, size_t size) {
	char *p = keep(malloc(opaque(10)));
	memcpy(p, data, size < 11 ? size : 11); // 11 bytes into 10
	free(p);
	return 0;
}

// (sizes from the input, which clang cannot fold into stores)
__attribute__((noinline)) static int fill_past(size_t size) {
	char *p = keep(malloc(16));
	memset(p, 0, 16 + size); // 17 bytes into 16 for a 1-byte input
	free(p);
	return 0;
}

__attribute__((noinline)) static int copy_freed(size_t size) {
	char buf[8];
	char *p = keep(malloc(8));
	free(p);
	memcpy(buf, keep(p), size < 8 ? size : 8); // from the freed block
	return buf[0] == 99;
}

// workout: 0 when every function behaved.
__attribute__((noinline)) static int workout(const uint8_t *data, size_t size) {
	int bad = 0;
	for (size_t n = 1; n <= 40; n++) {
		char *s = keep(malloc(n));
		memset(s, 'x', n - 1);
		s[n - 1] = 0;
		bad |= strlen(s) != n - 1;
		bad |= strchr(s, 'y') != 0;
		bad |= memchr(s, 0, n) != s + n - 1;
		bad |= strnlen(s, n + 8) != n - 1;
		char *d = keep(strdup(s));
		bad |= strcmp(d, s) != 0 || strncmp(d, s, n + 5) != 0;
		char *c = keep(malloc(n));
		strcpy(c, s);
		bad |= memcmp(c, s, n) != 0;
		stpcpy(c, d);
		char buf[64];
		snprintf(buf, sizeof buf, "%s|%zu", c, n);
		bad |= strlen(buf) < n;
		s = keep(realloc(s, 2 * n));
		memmove(s + 1, s, n);
		bad |= s[n] != 0;
		s = keep(realloc(s, n / 2 + 1));
		free(s);
		free(d);
		free(c);
	}
	uint32_t *z = keep(calloc(opaque(7), sizeof *z));
	for (int i = 0; i < 7; i++)
		bad |= z[i] != 0;
	free(z);
	char *in = keep(malloc(size + 1));
	memcpy(in, data, size);
	in[size] = 0;
	bad |= strlen(in) > size;
	free(in);
	unsigned sum = 0;
	for (size_t i = 0; i < size; i++)
		sum += data[i];
	return bad ? -1 : (int)(sum & 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 1)
		return 0;
	switch (data[0]) {
	case 'r': return read_past();
	case 'u': return read_before();
	case 'w': return write_past();
	case 'f': return read_freed();
	case 'g': return write_freed();
	case 'i': return input_past(data, size);
	case 's': return strlen_unterminated();
	case 'c': return copy_past(data, size);
	case 'm': return fill_past(size);
	case 'C': return copy_freed(size);
	case 'a': return read_reused();
	case 'n': return null_field();
	case 'W': return workout(data, size);
	}
	return 0;
}
