// tlv.c: a parser for "WTLV", a tiny type-length-value telemetry format,
// as a libFuzzer-style wafer target. It has one planted, realistic bug.
//
// Format:
//
//	"WTLV" version(1 byte, == 1) count(1 byte, number of records)
//	record: type(1) length(1) value[length]
//	  type 1 NAME   printable string, 1..32 bytes
//	  type 2 TOTAL  unsigned 16-bit big-endian sum of samples
//	  type 3 SCALE  divisor: 2 bytes big-endian (checked != 0),
//	                or the short 1-byte form added in version 1.1
//	  type 4 SAMPLE one or more 8-bit samples, added into TOTAL
//
// After the records the parser reports TOTAL / SCALE when both were given.
//
// The bug: the short 1-byte SCALE form was added later and skips the zero
// check the 2-byte form has, so "SCALE len 1, value 0" followed by a use
// of the scale divides by zero, which WebAssembly traps on
// (i32.div_u: "integer divide by zero"). Reaching it needs the magic, the
// version, a TOTAL or SAMPLE record and a short SCALE record of 0: a few
// nested checks that coverage feedback walks through one at a time.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct report {
	char name[33];
	uint32_t total;
	uint32_t scale;
	int have_total;
	int have_scale;
	uint32_t average;
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
		if (len == 2) {
			uint32_t s = (uint32_t)v[0] << 8 | v[1];
			if (s == 0)
				return -1;
			r->scale = s;
		} else if (len == 1) {
			r->scale = v[0]; // BUG: the short form forgets the zero check
		} else {
			return -1;
		}
		r->have_scale = 1;
		return 0;
	case 4: // SAMPLE
		if (len == 0)
			return -1;
		for (size_t i = 0; i < len; i++)
			r->total += v[i];
		r->have_total = 1;
		return 0;
	default:
		return -1;
	}
}

int parse_tlv(const uint8_t *data, size_t size, struct report *r) {
	memset(r, 0, sizeof *r);
	if (size < 6)
		return -1;
	// Byte by byte, as many hand-written parsers do (and so each byte is a
	// branch of its own).
	for (size_t i = 0; i < 4; i++) {
		if (data[i] != "WTLV"[i])
			return -1;
	}
	if (data[4] != 1)
		return -1;
	size_t count = data[5];
	size_t pos = 6;
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
	if (r->have_total && r->have_scale)
		r->average = r->total / r->scale;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct report r;
	return parse_tlv(data, size, &r) == 0 ? 0 : -1;
}
