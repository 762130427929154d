// initrap: a reactor whose initialisation traps (a constructor run by
// _initialize), so wafer must report a start-up error, not a finding.
#include <stddef.h>
#include <stdint.h>

__attribute__((constructor)) static void boom(void) { __builtin_trap(); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	(void)data;
	(void)size;
	return 0;
}
