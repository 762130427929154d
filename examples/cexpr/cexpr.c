// cexpr.c: an integer expression evaluator as a libFuzzer-style wafer target
// (C, clang + wasi-libc, WASI reactor).
//
// Grammar (whitespace between tokens is skipped):
//
//	expr   = term { ("+" | "-") term }
//	term   = unary { ("*" | "/" | "%") unary }
//	unary  = "-" unary | primary
//	primary = number | "(" expr ")"
//	number = digit { digit }            (decimal, wraps modulo 2^64)
//
// Malformed input, division by zero and nesting deeper than 64 are
// rejected (the harness returns -1: "invalid"). Arithmetic wraps, and
// INT64_MIN / -1 is handled, so no input traps: this target has no planted
// bug; it shows a structured input fed by wafer's "expr" generator.
#include <stddef.h>
#include <stdint.h>

struct parser {
	const uint8_t *p, *end;
	int depth;
	int err;
};

static void skip_space(struct parser *ps) {
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n'))
		ps->p++;
}

static int peek(struct parser *ps) {
	skip_space(ps);
	return ps->p < ps->end ? *ps->p : -1;
}

static int64_t expr(struct parser *ps);

static int64_t primary(struct parser *ps) {
	int c = peek(ps);
	if (c == '(') {
		ps->p++;
		if (++ps->depth > 64) {
			ps->err = 1;
			return 0;
		}
		int64_t v = expr(ps);
		ps->depth--;
		if (peek(ps) != ')') {
			ps->err = 1;
			return 0;
		}
		ps->p++;
		return v;
	}
	if (c < '0' || c > '9') {
		ps->err = 1;
		return 0;
	}
	uint64_t v = 0;
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		v = v * 10 + (uint64_t)(*ps->p++ - '0');
	return (int64_t)v;
}

static int64_t unary(struct parser *ps) {
	if (peek(ps) == '-') {
		ps->p++;
		if (++ps->depth > 64) {
			ps->err = 1;
			return 0;
		}
		int64_t v = unary(ps);
		ps->depth--;
		return (int64_t)(0 - (uint64_t)v);
	}
	return primary(ps);
}

static int64_t term(struct parser *ps) {
	int64_t v = unary(ps);
	for (;;) {
		int c = peek(ps);
		if (ps->err || (c != '*' && c != '/' && c != '%'))
			return v;
		ps->p++;
		int64_t r = unary(ps);
		if (ps->err)
			return 0;
		if (c == '*') {
			v = (int64_t)((uint64_t)v * (uint64_t)r);
		} else if (r == 0) {
			ps->err = 1;
			return 0;
		} else if (r == -1) {
			v = c == '/' ? (int64_t)(0 - (uint64_t)v) : 0;
		} else {
			v = c == '/' ? v / r : v % r;
		}
	}
}

static int64_t expr(struct parser *ps) {
	int64_t v = term(ps);
	for (;;) {
		int c = peek(ps);
		if (ps->err || (c != '+' && c != '-'))
			return v;
		ps->p++;
		int64_t r = term(ps);
		v = c == '+' ? (int64_t)((uint64_t)v + (uint64_t)r) : (int64_t)((uint64_t)v - (uint64_t)r);
	}
}

// result keeps the last value observable, so the evaluation is not optimised away.
volatile int64_t result;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct parser ps = {data, data + size, 0, 0};
	int64_t v = expr(&ps);
	if (ps.err || peek(&ps) != -1)
		return -1;
	result = v;
	return 0;
}
