// A libFuzzer-style harness for SQLite 3.45.1: the input is SQL, run with
// sqlite3_exec on a new in-memory database; an input SQLite rejects is
// invalid. SQLite is built with SQLITE_OS_OTHER (no OS layer) and this
// file's minimal VFS, which serves only ":memory:" (no files, a fixed
// clock, fixed "randomness"). xOpen refuses every file, and, as SQLite's
// VFS contract asks of a failed open, sets pMethods to NULL in a file
// object of szOsFile bytes (so that SQLite calls no method of it: with
// szOsFile 0 and pMethods unset, VACUUM's temporary database called a
// garbage pointer, a crash of this harness, not of SQLite).
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3-binding.h"

static int xOpen(sqlite3_vfs *v, const char *n, sqlite3_file *f, int fl, int *o) { f->pMethods = 0; return SQLITE_CANTOPEN; }
static int xDelete(sqlite3_vfs *v, const char *n, int s) { return SQLITE_OK; }
static int xAccess(sqlite3_vfs *v, const char *n, int f, int *r) { *r = 0; return SQLITE_OK; }
static int xFullPathname(sqlite3_vfs *v, const char *n, int len, char *out) { strncpy(out, n, len); out[len-1] = 0; return SQLITE_OK; }
static int xRandomness(sqlite3_vfs *v, int n, char *out) { memset(out, 0x5a, n); return n; }
static int xSleep(sqlite3_vfs *v, int us) { return 0; }
static int xCurrentTime(sqlite3_vfs *v, double *t) { *t = 2460000.5; return SQLITE_OK; }
static int xGetLastError(sqlite3_vfs *v, int n, char *b) { return 0; }
static sqlite3_vfs vfs = {1, sizeof(sqlite3_file), 512, 0, "mem", 0, xOpen, xDelete, xAccess, xFullPathname, 0, 0, 0, 0, xRandomness, xSleep, xCurrentTime, xGetLastError};
int sqlite3_os_init(void) { return sqlite3_vfs_register(&vfs, 1); }
int sqlite3_os_end(void) { return SQLITE_OK; }

static int cb(void *p, int n, char **v, char **c) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char *sql = malloc(size + 1);
	if (!sql) return -1;
	memcpy(sql, data, size);
	sql[size] = 0;
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) { free(sql); return -1; }
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
	sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 25000);
	int rc = sqlite3_exec(db, sql, cb, 0, 0);
	sqlite3_close(db);
	free(sql);
	return rc == SQLITE_OK ? 0 : -1;
}
