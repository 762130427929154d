// A wafer fixture for issue 30 (findings a user can trust): one bug per
// behaviour, each reached by more than one path.
//
//   'A' then a path byte: a divide by zero in divide(), called through
//       three different chains (a, b, c), each above the top three frames
//       of the target's code: one crash state, one bug;
//   'T' then a path byte: an out-of-bounds table read in pick(), one
//       frame deep in step() and then through two different third frames
//       (via_x, via_y): two crash states of one crash site;
//   'L': an endless loop in spin(); 'M': another in wait_for() (two
//       hangs, each named by its loop's function).
#include <stddef.h>
#include <stdint.h>

static volatile int zero;

__attribute__((noinline)) int divide(int x) { return x / zero; }
__attribute__((noinline)) int level3(int x) { return divide(x) + 1; }
__attribute__((noinline)) int level2(int x) { return level3(x) + 2; }
__attribute__((noinline)) int level1(int x) { return level2(x) + 3; }
__attribute__((noinline)) int path_a(int x) { return level1(x) * 2; }
__attribute__((noinline)) int path_b(int x) { return level1(x) * 3; }
__attribute__((noinline)) int path_c(int x) { return path_b(x) * 5; }

static int table[4] = {1, 2, 3, 4};
__attribute__((noinline)) int pick(const uint8_t *p) {
	volatile int *t = table;
	return t[(int)p[0] * 0x1000000]; // far out of bounds for p[0] >= 128
}
__attribute__((noinline)) int step(const uint8_t *p) { return pick(p) + 1; }
__attribute__((noinline)) int via_x(const uint8_t *p) { return step(p) * 7; }
__attribute__((noinline)) int via_y(const uint8_t *p) { return step(p) * 11; }

static volatile int flag;
__attribute__((noinline)) int spin(void) {
	int n = 0;
	while (!flag) // endless: nothing sets flag
		n++;
	return n;
}
__attribute__((noinline)) int wait_for(int v) {
	int n = 0;
	for (;;) { // endless too
		n += v;
		if (flag == 42)
			break;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 2)
		return -1;
	switch (data[0]) {
	case 'A':
		switch (data[1]) {
		case 'a': return path_a(size);
		case 'b': return path_b(size);
		case 'c': return path_c(size);
		}
		return 0;
	case 'T':
		if (data[1] == 'x')
			return via_x(data + 2);
		return via_y(data + 2);
	case 'L': return spin();
	case 'M': return wait_for(size);
	}
	return 0;
}
