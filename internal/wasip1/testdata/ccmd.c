// ccmd: a C (wasi-libc) WASI command for internal/wasip1's tests, built by
// build.sh into ccmd.wasm. It echoes stdin, prints argv and the file named
// by argv[1], lists "/", reads the clocks and getentropy, tries to escape
// (read /etc/passwd, create a file), and exits with status 5.
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, stdin);
	printf("stdin %zu: %.*s\n", n, (int)n, buf);
	for (int i = 0; i < argc; i++)
		printf("argv[%d] = %s\n", i, argv[i]);
	const char *home = getenv("HOME");
	printf("HOME = %s\n", home ? home : "(unset)");

	if (argc > 1) {
		FILE *f = fopen(argv[1], "rb");
		if (f) {
			n = fread(buf, 1, sizeof buf, f);
			printf("file %s %zu: %.*s\n", argv[1], n, (int)n, buf);
			fseek(f, 5, SEEK_SET);
			n = fread(buf, 1, 3, f);
			printf("seek 5: %.*s tell=%ld\n", (int)n, buf, ftell(f));
			fclose(f);
		} else {
			printf("file %s: %s\n", argv[1], strerror(errno));
		}
	}

	DIR *d = opendir("/");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL)
			printf("dirent %s type=%d\n", e->d_name, e->d_type);
		closedir(d);
	} else {
		printf("opendir: %s\n", strerror(errno));
	}

	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	printf("realtime %lld.%09ld monotonic %lld.%09ld\n",
	       (long long)rt.tv_sec, rt.tv_nsec, (long long)mt.tv_sec, mt.tv_nsec);

	unsigned char rnd[8];
	if (getentropy(rnd, sizeof rnd) == 0)
		printf("entropy %02x%02x%02x%02x%02x%02x%02x%02x\n",
		       rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);

	FILE *p = fopen("/etc/passwd", "r");
	printf("passwd: %s\n", p ? "OPENED" : strerror(errno));
	FILE *w = fopen("/created.txt", "w");
	printf("create: %s\n", w ? "CREATED" : strerror(errno));

	fprintf(stderr, "bye from C\n");
	return 5;
}
