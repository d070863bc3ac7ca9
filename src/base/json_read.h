/* json_read.h — a small JSON reader (RFC 8259) into a tree of values, each
 * with its line and column, for the files fusiondbg compares with (CANN's
 * fusion_result.json). Bounded: depth JSON_MAX_DEPTH, JSON_MAX_VALUES values.
 * Several top-level values one after another, with or without a comma
 * between them, are read as one array (the records of several graphs or
 * processes appended to one file); n_values says how many there were. The
 * tree owns its values (arena). */
#ifndef FD_JSON_READ_H
#define FD_JSON_READ_H
#include <stdbool.h>
#include <stddef.h>
#include "base/arena.h"
#include "base/diag.h"

#define JSON_MAX_DEPTH 64
#define JSON_MAX_VALUES 1000000

typedef enum fd_jkind { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT } fd_jkind;

typedef struct fd_jval fd_jval;
struct fd_jval {
	fd_jkind kind;
	int line, col;
	bool b;
	double num;
	const char *str;           /* JV_STRING (UTF-8, NUL-terminated; \u0000 read as U+FFFD);
	                            * JV_NUMBER: the number as written */
	size_t n;                  /* JV_ARRAY items, JV_OBJECT members */
	fd_jval **items;           /* values */
	const char **keys;         /* JV_OBJECT keys */
};

typedef struct fd_jdoc {
	fd_arena arena;
	fd_jval *root;
	size_t n_values;           /* top-level values read: 1, or how many the root array joins */
} fd_jdoc;

/* Parses text (size bytes) named path in messages; -1 + one error at the
 * line and column where it went wrong (doc then holds nothing). */
int  jdoc_parse(fd_jdoc *doc, const char *path, const char *text, size_t size, fd_diags *d);
/* Reads the first value only and says in *end where it stopped (what
 * follows is not looked at), as a stream reader that takes one value does.
 * -1 + the error when the text does not start with a value. */
int  jdoc_parse_first(fd_jdoc *doc, const char *path, const char *text, size_t size, size_t *end, fd_diags *d);
void jdoc_release(fd_jdoc *doc);
const fd_jval *jval_get(const fd_jval *obj, const char *key);   /* NULL when absent or not an object */

#endif
