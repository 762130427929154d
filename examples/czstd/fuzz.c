// A libFuzzer-style harness for Zstandard's decompressor, as zstd's own
// simple_decompress fuzzer: one frame (or a concatenation) in, decoded
// into a fixed buffer; an input zstd rejects is invalid. The decoder
// context is made on the first call and reused, as harnesses usually do.
#include <stddef.h>
#include <stdint.h>
#include "zstd.h"

static ZSTD_DCtx *dctx;
static uint8_t out[1 << 18];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (dctx == NULL) {
		dctx = ZSTD_createDCtx();
	}
	size_t r = ZSTD_decompressDCtx(dctx, out, sizeof out, data, size);
	return ZSTD_isError(r) ? -1 : 0;
}
