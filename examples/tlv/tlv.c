// tlv.c: a parser for "WTLV", a tiny type-length-value telemetry format,
// as a libFuzzer-style wafer target. It has one planted, realistic bug.
//
// Format:
//
//	"WTLV" version(1 byte, == 1) flags(1 byte) count(1 byte: number of records)
//	flags bit 0 MEAN: also report the mean sample value
//	record: type(1) length(1) value[length]
//	  type 1 NAME   printable string, 1..32 bytes
//	  type 2 TOTAL  precomputed sum of the samples, 16-bit big-endian
//	                (written by older loggers instead of SAMPLE records)
//	  type 3 SCALE  divisor for the reported total, 16-bit big-endian, != 0
//	  type 4 SAMPLE one or more 8-bit samples, added to the total
//
// The bug: the MEAN report divides the total by the number of samples, and
// is guarded by "have a total" instead of "have samples". A TOTAL record
// sets the total without any sample, so the header's MEAN flag plus one
// TOTAL record divides by zero, which WebAssembly traps on (i32.div_u:
// "integer divide by zero"). Reaching it takes the magic, the version, the
// flag and a well-formed TOTAL record: nested checks that coverage feedback
// walks through one branch at a time.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { FLAG_MEAN = 1 };

struct report {
	char name[33];
	uint32_t total;
	uint32_t samples;
	uint32_t scale;
	int have_total;
	uint32_t scaled;
	uint32_t mean;
};

static int parse_record(struct report *r, uint8_t type, const uint8_t *v, size_t len) {
	switch (type) {
	case 1: // NAME
		if (len == 0 || len > 32)
			return -1;
		for (size_t i = 0; i < len; i++) {
			if (v[i] < 0x20 || v[i] > 0x7e)
				return -1;
		}
		memcpy(r->name, v, len);
		r->name[len] = 0;
		return 0;
	case 2: // TOTAL
		if (len != 2)
			return -1;
		r->total = (uint32_t)v[0] << 8 | v[1];
		r->have_total = 1;
		return 0;
	case 3: // SCALE
		if (len != 2)
			return -1;
		r->scale = (uint32_t)v[0] << 8 | v[1];
		if (r->scale == 0)
			return -1;
		return 0;
	case 4: // SAMPLE
		if (len == 0)
			return -1;
		for (size_t i = 0; i < len; i++)
			r->total += v[i];
		r->samples += len;
		r->have_total = 1;
		return 0;
	default:
		return -1;
	}
}

int parse_tlv(const uint8_t *data, size_t size, struct report *r) {
	memset(r, 0, sizeof *r);
	r->scale = 1;
	if (size < 7)
		return -1;
	// Byte by byte, as many hand-written parsers do.
	for (size_t i = 0; i < 4; i++) {
		if (data[i] != "WTLV"[i])
			return -1;
	}
	if (data[4] != 1)
		return -1;
	uint8_t flags = data[5];
	size_t count = data[6];
	size_t pos = 7;
	for (size_t i = 0; i < count; i++) {
		if (size - pos < 2)
			return -1;
		uint8_t type = data[pos], len = data[pos + 1];
		pos += 2;
		if (len > size - pos)
			return -1;
		if (parse_record(r, type, data + pos, len) != 0)
			return -1;
		pos += len;
	}
	if (r->have_total) {
		r->scaled = r->total / r->scale;
		if (flags & FLAG_MEAN)
			r->mean = r->total / r->samples; // BUG: TOTAL records leave samples at 0
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct report r;
	return parse_tlv(data, size, &r) == 0 ? 0 : -1;
}
