// cexpr.c: an integer expression evaluator as a libFuzzer-style wafer target
// (C, clang + wasi-libc, WASI reactor). It accepts the JavaScript/Go-like
// expressions of wafer's "expr" generator:
//
//	expr    = unary { binop unary }            (C precedence, left assoc.)
//	binop   = || && | ^ & == != < <= > >= << >> + - * / %
//	unary   = ("-" | "+" | "!" | "^") unary | postfix
//	postfix = primary { "(" [expr {"," expr}] ")" | "[" expr "]" }
//	primary = number | string | ident {"." ident} | "(" expr ")"
//
// Values are 64-bit integers: a decimal literal "12.5" is its integer
// part, a string is its length, an identifier a fixed value derived from
// its name, a call the sum of its arguments, an index the sum of both
// sides. Malformed input, division by zero, shifts of 64 or more and
// nesting deeper than 64 are rejected (the harness returns -1: "invalid").
// Arithmetic wraps and INT64_MIN / -1 is handled, so no input traps: this
// target has no planted bug; it shows structured inputs from a generator.
#include <stddef.h>
#include <stdint.h>

struct parser {
	const uint8_t *p, *end;
	int depth;
	int err;
};

static void skip_space(struct parser *ps) {
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int peek(struct parser *ps) {
	skip_space(ps);
	return ps->p < ps->end ? *ps->p : -1;
}

static int peek2(struct parser *ps) {
	skip_space(ps);
	return ps->p + 1 < ps->end ? ps->p[1] : -1;
}

static int fail(struct parser *ps) {
	ps->err = 1;
	return 0;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c); }

static int64_t expr(struct parser *ps, int min_prec);

static int64_t primary(struct parser *ps) {
	int c = peek(ps);
	if (c == '(') {
		ps->p++;
		int64_t v = expr(ps, 1);
		if (ps->err || peek(ps) != ')')
			return fail(ps);
		ps->p++;
		return v;
	}
	if (is_digit(c)) {
		uint64_t v = 0;
		while (ps->p < ps->end && is_digit(*ps->p))
			v = v * 10 + (uint64_t)(*ps->p++ - '0');
		if (ps->p < ps->end && *ps->p == '.') {
			ps->p++;
			if (ps->p >= ps->end || !is_digit(*ps->p))
				return fail(ps);
			while (ps->p < ps->end && is_digit(*ps->p))
				ps->p++;
		}
		return (int64_t)v;
	}
	if (c == '"') {
		ps->p++;
		int64_t n = 0;
		for (;;) {
			if (ps->p >= ps->end)
				return fail(ps);
			uint8_t ch = *ps->p++;
			if (ch == '"')
				return n;
			if (ch == '\\') {
				if (ps->p >= ps->end)
					return fail(ps);
				ch = *ps->p++;
				if (ch != 'n' && ch != 't' && ch != '"' && ch != '\\')
					return fail(ps);
			} else if (ch == '\n') {
				return fail(ps);
			}
			n++;
		}
	}
	if (is_ident(c) && !is_digit(c)) {
		uint64_t h = 14695981039346656037ull; // FNV-1a of the dotted name
		for (;;) {
			while (ps->p < ps->end && is_ident(*ps->p))
				h = (h ^ *ps->p++) * 1099511628211ull;
			if (ps->p < ps->end && *ps->p == '.' && ps->p + 1 < ps->end && is_ident(ps->p[1]) && !is_digit(ps->p[1])) {
				h = (h ^ '.') * 1099511628211ull;
				ps->p++;
				continue;
			}
			return (int64_t)(h % 1000);
		}
	}
	return fail(ps);
}

static int64_t postfix(struct parser *ps) {
	int64_t v = primary(ps);
	for (;;) {
		int c = peek(ps);
		if (ps->err)
			return 0;
		if (c == '(') {
			ps->p++;
			int64_t sum = 0;
			if (peek(ps) != ')') {
				for (;;) {
					sum += expr(ps, 1);
					if (ps->err)
						return 0;
					if (peek(ps) != ',')
						break;
					ps->p++;
				}
			}
			if (peek(ps) != ')')
				return fail(ps);
			ps->p++;
			v = sum;
		} else if (c == '[') {
			ps->p++;
			int64_t i = expr(ps, 1);
			if (ps->err || peek(ps) != ']')
				return fail(ps);
			ps->p++;
			v = (int64_t)((uint64_t)v + (uint64_t)i);
		} else {
			return v;
		}
	}
}

static int64_t unary(struct parser *ps) {
	int c = peek(ps);
	if (c == '-' || c == '+' || c == '!' || c == '^') {
		ps->p++;
		if (++ps->depth > 64)
			return fail(ps);
		int64_t v = unary(ps);
		ps->depth--;
		switch (c) {
		case '-':
			return (int64_t)(0 - (uint64_t)v);
		case '!':
			return !v;
		case '^':
			return ~v;
		default:
			return v;
		}
	}
	return postfix(ps);
}

// binop reads the binary operator at the cursor without consuming it and
// returns its precedence (0: not an operator) and its length.
static int binop(struct parser *ps, int *op, int *len) {
	int c = peek(ps), d = peek2(ps);
	*len = 1;
	*op = c;
	switch (c) {
	case '|':
		if (d == '|') { *len = 2; *op = 'O'; return 1; }
		return 3;
	case '&':
		if (d == '&') { *len = 2; *op = 'A'; return 2; }
		return 5;
	case '^':
		return 4;
	case '=':
		if (d == '=') { *len = 2; *op = 'E'; return 6; }
		return 0;
	case '!':
		if (d == '=') { *len = 2; *op = 'N'; return 6; }
		return 0;
	case '<':
		if (d == '=') { *len = 2; *op = 'l'; return 7; }
		if (d == '<') { *len = 2; *op = 'L'; return 8; }
		return 7;
	case '>':
		if (d == '=') { *len = 2; *op = 'g'; return 7; }
		if (d == '>') { *len = 2; *op = 'R'; return 8; }
		return 7;
	case '+': case '-':
		return 9;
	case '*': case '/': case '%':
		return 10;
	default:
		return 0;
	}
}

static int64_t apply(struct parser *ps, int op, int64_t a, int64_t b) {
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	switch (op) {
	case 'O': return a || b;
	case 'A': return a && b;
	case '|': return a | b;
	case '^': return a ^ b;
	case '&': return a & b;
	case 'E': return a == b;
	case 'N': return a != b;
	case '<': return a < b;
	case 'l': return a <= b;
	case '>': return a > b;
	case 'g': return a >= b;
	case 'L':
		if (ub >= 64) return fail(ps);
		return (int64_t)(ua << ub);
	case 'R':
		if (ub >= 64) return fail(ps);
		return a >> ub;
	case '+': return (int64_t)(ua + ub);
	case '-': return (int64_t)(ua - ub);
	case '*': return (int64_t)(ua * ub);
	case '/': case '%':
		if (b == 0) return fail(ps);
		if (b == -1) return op == '/' ? (int64_t)(0 - ua) : 0;
		return op == '/' ? a / b : a % b;
	}
	return fail(ps);
}

// expr parses by precedence climbing: operators binding at least min_prec.
static int64_t expr(struct parser *ps, int min_prec) {
	if (++ps->depth > 64)
		return fail(ps);
	int64_t v = unary(ps);
	for (;;) {
		int op, len;
		int prec = binop(ps, &op, &len);
		if (ps->err || prec == 0 || prec < min_prec)
			break;
		ps->p += len;
		int64_t r = expr(ps, prec + 1);
		if (ps->err)
			break;
		v = apply(ps, op, v, r);
	}
	ps->depth--;
	return ps->err ? 0 : v;
}

// result keeps the last value observable, so evaluation is not optimised away.
volatile int64_t result;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct parser ps = {data, data + size, 0, 0};
	int64_t v = expr(&ps, 1);
	if (ps.err || peek(&ps) != -1)
		return -1;
	result = v;
	return 0;
}
