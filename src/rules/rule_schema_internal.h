/* rule_schema_internal.h — what the two files of the schema share:
 * rule_schema.c (the seed's fields) and rule_schema_ext.c (the language
 * beyond the seed). The readers report their own error (at the value,
 * with the field's path) and return false. Not for other files. */
#ifndef FD_RULE_SCHEMA_INTERNAL_H
#define FD_RULE_SCHEMA_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rules/rules.h"

typedef struct schema {
	fd_ruleset *rs;
	fd_diags *d;
	int errors;
	fd_rule *r;               /* the rule being derived */
} schema;

void schema_say(schema *s, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same at a position inside a value (an expression's offset). */
void schema_say_at(schema *s, fd_srcpos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define ERR(s, at, ...) schema_say(s, DIAG_ERROR, at, __VA_ARGS__)
#define WARN(s, at, ...) schema_say(s, DIAG_WARNING, at, __VA_ARGS__)

/* "string 'high'", "a list", "null" — what a value is, for messages. */
const char *schema_describe(const fd_yval *v, char *buf, size_t size);
bool want_str(schema *s, const fd_yval *v, const char *path, const char **out);
bool want_int(schema *s, const fd_yval *v, const char *path, int64_t min, int64_t *out);
bool want_small_int(schema *s, const fd_yval *v, const char *path, int64_t min, int *out);
bool want_bool(schema *s, const fd_yval *v, const char *path, bool *out);
bool want_kind(schema *s, const fd_yval *v, fd_yval_kind kind, const char *path);
/* A list no longer than max (one of the language's limits, rules.h): an
 * error naming the limit otherwise. */
bool want_count(schema *s, const fd_yval *v, const char *path, size_t max, const char *what);
/* Warns about keys the section (a pattern of rule_format.h) does not have. */
void unknown_keys(schema *s, const fd_yval *map, const char *path, const char *section);

/* rule_schema_ext.c: the extensions of an op map (type lists, optional,
 * outputs, where) and of an inputK map (operand conditions). parse_op_ext
 * runs after the seed's fields of the op; parse_source_ext fills the
 * extension fields of is from src and returns false on an error. */
void parse_op_type(schema *s, fd_rule_op *op, const fd_yval *type, const char *path);
void parse_op_ext(schema *s, fd_rule_op *op, const fd_yval *v, const char *path);
bool parse_source_ext(schema *s, fd_input_source *is, const fd_yval *src, const char *path);

#endif
