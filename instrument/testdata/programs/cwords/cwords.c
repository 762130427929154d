// cwords: a small WASI command for wafer's differential tests. It reads
// stdin and reports, per line, the word count and vowel count; a line
// starting with '!' makes it exit with status 3, a line "trap" makes it
// execute an out-of-bounds store (a Wasm trap), and a line "abort" calls
// abort(). Rebuild: ../build.sh
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// mark is the side effect that keeps the if-arms in count_vowels real
// branches (clang cannot turn them into a select).
__attribute__((noinline)) static void mark(int *counter) { *counter += 1; }

// count_vowels is the hand-checked function of realprog_test.go: one loop
// over s[0..n) and one if/else per character.
__attribute__((noinline)) int count_vowels(const char *s, int n, int *others) {
	int v = 0;
	for (int i = 0; i < n; i++) {
		char c = s[i] | 0x20;
		if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') {
			mark(&v);
		} else {
			mark(others);
		}
	}
	return v;
}

static int count_words(const char *s, int n) {
	int words = 0, in = 0;
	for (int i = 0; i < n; i++) {
		int sp = s[i] == ' ' || s[i] == '\t';
		if (!sp && !in) {
			words++;
		}
		in = !sp;
	}
	return words;
}

int main(void) {
	char line[256];
	int lines = 0;
	while (fgets(line, sizeof line, stdin)) {
		int n = (int)strcspn(line, "\n");
		line[n] = 0;
		lines++;
		if (line[0] == '!') {
			fprintf(stderr, "line %d: bang, exiting\n", lines);
			exit(3);
		}
		if (strcmp(line, "trap") == 0) {
			volatile int *p = (int *)0xfffffff0u;
			*p = 1;
		}
		if (strcmp(line, "abort") == 0) {
			abort();
		}
		int others = 0;
		int v = count_vowels(line, n, &others);
		switch (count_words(line, n)) {
		case 0:
			printf("%d: empty\n", lines);
			break;
		case 1:
			printf("%d: one word, %d vowels, %d others\n", lines, v, others);
			break;
		case 2:
			printf("%d: two words, %d vowels\n", lines, v);
			break;
		default:
			printf("%d: many words, %d vowels\n", lines, v);
		}
	}
	if (lines == 0) {
		fputs("no input\n", stderr);
		return 1;
	}
	return 0;
}
