// ckv.c: a tiny key-value store driven by a script, as a libFuzzer-style
// wafer target (C, clang + wasi-libc, WASI reactor). A script is a list of
// statements, run one at a time as a REPL would; the first malformed or
// failing statement ends the script (the harness returns -1: "invalid"):
//
//	set NAME = INT;   set NAME = NAME;   create or update a key
//	get NAME;   incr NAME;   del NAME;   read, add one, delete
//	undo;                                revert the last set or incr
//	dump;                                read every key
//
// (grammar: KV.g4). Names are [a-z][a-z0-9_]* of at most 15 characters,
// integers are decimal, at most 16 keys live at once and the undo journal
// keeps the last 32 changes.
//
// Planted bug: del does not drop the deleted key's records from the undo
// journal, so an undo after a del can reach a record of a deleted key,
// and the journal's consistency assert fails (abort: a wasm trap). It
// takes a set and a del of one key, then an undo: "set t = 1; del t;
// undo;". The seeds have undo (seeds/counter) and del (seeds/scratch),
// never both.
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NKEYS 16
#define NJOURNAL 32
#define NAMELEN 15

struct entry {
	char name[NAMELEN + 1];
	int64_t value;
	int live;
};

enum { OP_CREATE, OP_UPDATE };

struct record {
	int slot;
	int op;
	int64_t old;
};

struct store {
	struct entry keys[NKEYS];
	struct record journal[NJOURNAL];
	int njournal;
	int64_t out; // what get and dump read, so nothing is optimised away
};

struct lexer {
	const uint8_t *p, *end;
};

static void skip_space(struct lexer *lx) {
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r'))
		lx->p++;
}

static int is_lower(int c) { return c >= 'a' && c <= 'z'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

// word reads a name or keyword into buf; 0 when there is none or it is
// too long.
static int word(struct lexer *lx, char *buf) {
	skip_space(lx);
	if (lx->p >= lx->end || !is_lower(*lx->p))
		return 0;
	size_t n = 0;
	while (lx->p < lx->end && (is_lower(*lx->p) || is_digit(*lx->p) || *lx->p == '_')) {
		if (n == NAMELEN)
			return 0;
		buf[n++] = (char)*lx->p++;
	}
	buf[n] = 0;
	return 1;
}

static int punct(struct lexer *lx, int c) {
	skip_space(lx);
	if (lx->p < lx->end && *lx->p == c) {
		lx->p++;
		return 1;
	}
	return 0;
}

static int number(struct lexer *lx, int64_t *v) {
	skip_space(lx);
	int neg = 0;
	if (lx->p < lx->end && *lx->p == '-') {
		neg = 1;
		lx->p++;
	}
	if (lx->p >= lx->end || !is_digit(*lx->p))
		return 0;
	uint64_t x = 0;
	while (lx->p < lx->end && is_digit(*lx->p))
		x = x * 10 + (uint64_t)(*lx->p++ - '0');
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 1;
}

static int find(struct store *st, const char *name) {
	for (int i = 0; i < NKEYS; i++)
		if (st->keys[i].live && strcmp(st->keys[i].name, name) == 0)
			return i;
	return -1;
}

static void remember(struct store *st, int slot, int op, int64_t old) {
	if (st->njournal == NJOURNAL) {
		memmove(st->journal, st->journal + 1, (NJOURNAL - 1) * sizeof st->journal[0]);
		st->njournal--;
	}
	st->journal[st->njournal++] = (struct record){slot, op, old};
}

static int set(struct store *st, const char *name, int64_t v) {
	int i = find(st, name);
	if (i >= 0) {
		remember(st, i, OP_UPDATE, st->keys[i].value);
		st->keys[i].value = v;
		return 0;
	}
	for (i = 0; i < NKEYS && st->keys[i].live; i++)
		;
	if (i == NKEYS)
		return -1; // full
	strcpy(st->keys[i].name, name);
	st->keys[i].value = v;
	st->keys[i].live = 1;
	remember(st, i, OP_CREATE, 0);
	return 0;
}

static int undo(struct store *st) {
	if (st->njournal == 0)
		return -1; // nothing to undo
	struct record r = st->journal[--st->njournal];
	struct entry *e = &st->keys[r.slot];
	assert(e->live && "undo journal refers to a live key");
	if (r.op == OP_CREATE)
		e->live = 0;
	else
		e->value = r.old;
	return 0;
}

// statement runs one statement: 0 when it ran, -1 when it is malformed or
// fails, 1 at the end of the script.
static int statement(struct store *st, struct lexer *lx) {
	char kw[NAMELEN + 1], name[NAMELEN + 1], other[NAMELEN + 1];
	skip_space(lx);
	if (lx->p == lx->end)
		return 1;
	if (!word(lx, kw))
		return -1;
	int rc = 0;
	if (strcmp(kw, "set") == 0) {
		int64_t v;
		if (!word(lx, name) || !punct(lx, '='))
			return -1;
		if (word(lx, other)) {
			int j = find(st, other);
			if (j < 0)
				return -1;
			v = st->keys[j].value;
		} else if (!number(lx, &v)) {
			return -1;
		}
		if (!punct(lx, ';'))
			return -1;
		return set(st, name, v);
	}
	if (strcmp(kw, "undo") == 0 || strcmp(kw, "dump") == 0) {
		if (!punct(lx, ';'))
			return -1;
		if (kw[0] == 'u')
			return undo(st);
		for (int i = 0; i < NKEYS; i++)
			if (st->keys[i].live)
				st->out += st->keys[i].value;
		return 0;
	}
	if (!word(lx, name) || !punct(lx, ';'))
		return -1;
	int i = find(st, name);
	if (i < 0)
		return -1; // no such key
	if (strcmp(kw, "get") == 0) {
		st->out ^= st->keys[i].value;
	} else if (strcmp(kw, "incr") == 0) {
		remember(st, i, OP_UPDATE, st->keys[i].value);
		st->keys[i].value++;
	} else if (strcmp(kw, "del") == 0) {
		st->keys[i].live = 0; // the bug: its journal records stay
	} else {
		rc = -1; // unknown statement
	}
	return rc;
}

volatile int64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static struct store st;
	memset(&st, 0, sizeof st);
	struct lexer lx = {data, data + size};
	int rc;
	while ((rc = statement(&st, &lx)) == 0)
		;
	sink = st.out;
	return rc < 0 ? -1 : 0;
}
