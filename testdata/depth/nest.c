// Nested elements: "<name>" opens an element, "</>" closes one. Each
// level keeps its name in a 200-byte buffer on the C stack, so about 300
// levels overflow wasm-ld's default 64 KiB stack. Its static data (the
// table of name characters) lies below the stack, as wasm-ld lays out
// C programs by default: an overflow runs into it.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct elem { char name[200]; size_t len; };

static uint8_t name_char[256] = {
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
	['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

__attribute__((noinline)) static size_t read_name(struct elem *e, const uint8_t *d, size_t n, size_t i) {
	e->len = 0;
	while (i < n && name_char[d[i]] && e->len < sizeof e->name - 1)
		e->name[e->len++] = d[i++];
	e->name[e->len] = 0;
	return i;
}

static size_t element(const uint8_t *d, size_t n, size_t i, int *count) {
	struct elem e;
	i = read_name(&e, d, n, i);
	if (e.len == 0 || i >= n || d[i] != '>')
		return n;
	i++;
	(*count)++;
	while (i < n) {
		if (d[i] == '<') {
			if (i + 2 < n && d[i + 1] == '/' && d[i + 2] == '>')
				return i + 3;
			i = element(d, n, i + 1, count);
		} else {
			i++;
		}
	}
	return i + e.name[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	int count = 0;
	if (size < 1 || data[0] != '<')
		return -1;
	element(data, size, 1, &count);
	return 0;
}
