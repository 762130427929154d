// hostile: a libFuzzer-style C reactor that tries to escape the sandbox.
// Each first input byte selects one attempt; it prints what it achieved.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

__attribute__((import_module("wasi_snapshot_preview1"), import_name("sock_accept")))
uint16_t wasi_sock_accept(int fd, int flags, int *out);

__attribute__((import_module("wasi_snapshot_preview1"), import_name("environ_sizes_get")))
uint16_t wasi_environ_sizes_get(size_t *count, size_t *size);

static volatile int sink;
static char *volatile keep;

__attribute__((noinline)) int read_passwd(void) {
	FILE *f = fopen("/etc/passwd", "r");
	if (!f) {
		printf("read /etc/passwd: failed errno=%d\n", errno);
		return 0;
	}
	char buf[256];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	printf("read /etc/passwd: %s\n", buf);
	return 0;
}

__attribute__((noinline)) int create_files(void) {
	const char *paths[] = {"/tmp/wafer-hostile-created", "wafer-hostile-created", "/wafer-hostile-created"};
	for (int i = 0; i < 3; i++) {
		int fd = open(paths[i], O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0) {
			printf("create %s: failed errno=%d\n", paths[i], errno);
			continue;
		}
		write(fd, "pwned\n", 6);
		close(fd);
		printf("create %s: ok\n", paths[i]);
	}
	return 0;
}

__attribute__((noinline)) int open_sockets(void) {
	for (int fd = 0; fd < 8; fd++) {
		int out = -1;
		uint16_t e = wasi_sock_accept(fd, 0, &out);
		printf("sock_accept(%d): errno=%d fd=%d\n", fd, e, out);
	}
	size_t count = 99, size = 99;
	wasi_environ_sizes_get(&count, &size);
	printf("environ: %zu vars\n", count);
	return 0;
}

__attribute__((noinline)) int allocate_forever(void) {
	for (size_t total = 0;; total += 1 << 20) {
		char *p = malloc(1 << 20);
		if (!p) {
			printf("malloc failed after %zu bytes\n", total);
			abort();
		}
		memset(p, 1, 1 << 20);
		*(char **)p = keep; // keep every block reachable: no malloc elision
		keep = p;
	}
}

__attribute__((noinline)) int recurse_forever(int depth) {
	volatile char frame[128];
	frame[depth & 127] = (char)depth;
	return recurse_forever(depth + 1) + frame[(depth + 3) & 127];
}

__attribute__((noinline)) void loop_forever(void) {
	for (;;) {
		sink++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size == 0) {
		return 0;
	}
	switch (data[0]) {
	case 'R': return read_passwd();
	case 'W': return create_files();
	case 'S': return open_sockets();
	case 'A': return allocate_forever();
	case 'C': return recurse_forever(0);
	case 'L': loop_forever();
	}
	return 0;
}
