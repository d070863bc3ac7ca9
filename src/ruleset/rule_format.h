/* rule_format.h — the rule format's fields, one table (rule_format.c): every
 * key a rule document may have, by path, with the type a what-if value of it
 * must have and whether a what-if may set it. The schema (rule_schema.c)
 * takes the known keys of each section and the constraint types a field
 * belongs to from it; the session checks what-if paths against it (--set
 * RULE.PATH=VALUE and the TUI's e: session_path_type, which is also what
 * makes a value editable in the TUI's rule detail).
 *
 * A path is keys joined by '.': "constraints.#.max_intermediate_size".
 * In a pattern "#" is a list index (in constraints also a type name:
 * constraints.memory_limit.max_intermediate_size) and "*" any key. Fields
 * under match.branches.<b>.ops are those of match.ops. */
#ifndef FD_RULE_FORMAT_H
#define FD_RULE_FORMAT_H
#include <stdbool.h>
#include <stddef.h>
#include "ruleset/ruleset.h"

/* What a what-if value must be: X(id, the words a prompt shows). */
#define FD_FIELD_TYPES(X) \
	X(INT,    "integer") \
	X(UINT,   "integer >= 0") \
	X(POSINT, "integer >= 1") \
	X(BOOL,   "true or false") \
	X(STR,    "string")                          /* any text, even one YAML would read as a list */ \
	X(LIST,   "list, e.g. [a, b]") \
	X(BYTES,  "size (64MiB, 1.5GiB, 33554432)") \
	X(ANY,    "YAML value")                      /* the schema checks it once it is in the rule */ \
	X(OPTYPE, "op type or list (Conv2d, [Relu, Tanh])") /* names the op table knows */ \
	X(PARAM,  "param value")                     /* of a param the op has */ \
	X(SOURCE, &(FD_SOURCE_TYPES(FD_BAR_NAME))[3]) /* "const_or_param | const | …" */ \
	X(RANGE,  "[min, max]") \
	X(NUMBER, "number >= 0") \
	X(EXPR,   "expression, or a list of them (\"alpha < 0.5\")") \
	X(INTS,   "integer or list ([3, 4])") \
	X(SHAPE,  "shape ([C, 1, 1], [], scalar) or list of shapes") \
	X(DTYPES, "dtype or list ([float16, float32])") \
	X(NUMBERS, "number or list of numbers") \
	X(POSITION, "fixed | either | any") \
	X(SAMEAS, "{op: j, input: k}")

#define FD_BAR_NAME(id, name) " | " name

typedef enum fd_field_type {
#define FD_FIELD_TYPE_ENUM(id, words) FT_##id,
	FD_FIELD_TYPES(FD_FIELD_TYPE_ENUM)
#undef FD_FIELD_TYPE_ENUM
	FT_COUNT
} fd_field_type;

typedef struct fd_field {
	const char *path;          /* the pattern */
	fd_field_type type;        /* what a what-if value must be */
	bool edit;                 /* a what-if may set it (name, a constraint's type, … may not) */
	int kind;                  /* the condition it is a field of (match/conditions.h: fd_cond_kind);
	                            * COND_COUNT: no condition's (constraints.#.type, …) */
} fd_field;

/* The field a path names ("match.ops.0.params.groups",
 * "constraints.memory_limit.divisor"), or NULL. */
const fd_field *rule_field(const char *path);
/* A section is a pattern: "" (the rule), "match.ops.#", "constraints.#".
 * rule_field_key: the first field under the section's key, or NULL when the
 * section has no such key. rule_field_keys: the section's keys, ", "-joined
 * in the format's order ("type, params, inputs, …"); returns buf. */
const fd_field *rule_field_key(const char *section, const char *key);
const char *rule_field_keys(const char *section, char *buf, size_t size);
/* "'match.ops.0.params.groups'" for a path that names no editable field:
 * the editable fields with as many segments, their '#' and '*' filled from
 * path (a constraint type's own fields only), nearest to it
 * (base/nearest.h: nearest_list); "" when none is near. Returns buf. */
char *rule_field_nearest(const char *path, char *buf, size_t size);
/* The i-th field in the format's order, NULL past the last. */
const fd_field *rule_field_at(size_t i);
/* The words for a type: "integer >= 0". */
const char *rule_field_type_words(fd_field_type t);

#endif
