// crunch: a compute-heavy WASI command (benchmarks): it reads a seed from
// stdin and runs a sieve, an insertion sort and an FNV hash loop, printing
// one checksum. Rebuild: ../build.sh
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000

static unsigned char sieve[N];
static unsigned arr[2000];

int main(void) {
	unsigned seed = 1;
	if (scanf("%u", &seed) != 1) {
		seed = 1;
	}
	unsigned primes = 0;
	memset(sieve, 1, sizeof sieve);
	for (int i = 2; i < N; i++) {
		if (sieve[i]) {
			primes++;
			for (int j = 2 * i; j < N; j += i) {
				sieve[j] = 0;
			}
		}
	}
	unsigned x = seed;
	for (int i = 0; i < 2000; i++) {
		x = x * 1103515245u + 12345u;
		arr[i] = x >> 8;
	}
	for (int i = 1; i < 2000; i++) {
		unsigned k = arr[i];
		int j = i - 1;
		while (j >= 0 && arr[j] > k) {
			arr[j + 1] = arr[j];
			j--;
		}
		arr[j + 1] = k;
	}
	unsigned h = 2166136261u;
	for (int r = 0; r < 50; r++) {
		for (int i = 0; i < 2000; i++) {
			h = (h ^ (arr[i] + r)) * 16777619u;
			if (h & 1) {
				h ^= h >> 7;
			} else {
				h += primes;
			}
		}
	}
	printf("%u %u %u\n", primes, arr[0], h);
	return 0;
}
