/* schema.h — reading a rule document's values (fd_yval) into typed fields,
 * each reader reporting what is wrong at the value with the field's path
 * ("match.ops[0].params.groups: expected an integer, got …") and returning
 * false. The schema (ruleset/rule_schema.c) and every condition of the
 * language (match/conditions.h: its parse) read through these, so a value
 * is judged and worded the same wherever it is written.
 *
 * fd_schema is the state of one document's reading: the set whose arena
 * the typed rule lives in, the diagnostics, the errors so far, the rule. */
#ifndef FD_SCHEMA_H
#define FD_SCHEMA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rules/rules.h"

typedef struct fd_schema {
	fd_ruleset *rs;
	fd_diags *d;
	int errors;
	fd_rule *r;               /* the rule being derived */
} fd_schema;

void schema_say(fd_schema *s, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same at a position inside a value (an expression's offset). */
void schema_say_at(fd_schema *s, fd_srcpos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define ERR(s, at, ...) schema_say(s, DIAG_ERROR, at, __VA_ARGS__)
#define WARN(s, at, ...) schema_say(s, DIAG_WARNING, at, __VA_ARGS__)

/* "string 'high'", "a list", "null" — what a value is, for messages. */
const char *schema_describe(const fd_yval *v, char *buf, size_t size);
bool schema_str(fd_schema *s, const fd_yval *v, const char *path, const char **out);
bool schema_int(fd_schema *s, const fd_yval *v, const char *path, int64_t min, int64_t *out);
/* An int of at most 2^30 (an index, a count). */
bool schema_small_int(fd_schema *s, const fd_yval *v, const char *path, int64_t min, int *out);
bool schema_bool(fd_schema *s, const fd_yval *v, const char *path, bool *out);
/* A byte count >= 0: 33554432, 32MiB, 64MB. */
bool schema_bytes(fd_schema *s, const fd_yval *v, const char *path, int64_t *out);
bool schema_kind(fd_schema *s, const fd_yval *v, fd_yval_kind kind, const char *path);
/* A list no longer than max (one of the language's limits, rules.h): an
 * error naming the limit otherwise. */
bool schema_count(fd_schema *s, const fd_yval *v, const char *path, size_t max, const char *what);
/* A list of strings (a single string counts as a list of one) into the
 * set's arena; returns how many. */
int schema_strings(fd_schema *s, const fd_yval *v, const char *path, const char ***out);

#endif
