/* rule_schema_internal.h — what the files of the schema share: rule_schema.c
 * (the document: name, priority, match, rewrite, output, …) and
 * rule_schema_ext.c (an op's and an input's conditions, each read by its
 * entry of the condition list). Not for other files. */
#ifndef FD_RULE_SCHEMA_INTERNAL_H
#define FD_RULE_SCHEMA_INTERNAL_H
#include "rules/schema.h"
#include "match/conditions.h"

/* Warns about keys the section (a pattern of rule_format.h) does not have. */
void rule_schema_unknown_keys(fd_schema *s, const fd_yval *map, const char *path, const char *section);

/* The conditions of one scope (OP, OP_EXT) of the op map at->map, each key
 * present read by its entry's parse (match/conditions.h), in the list's
 * order; path is the op's ("match.ops[0]"). */
void rule_schema_op_conditions(fd_schema *s, fd_cond_site *at, fd_cond_scope scope, const char *path);

/* rule_schema_ext.c: rule_schema_op_ext reads the extensions of an op map
 * (optional, outputs, where: their entries, then what the matcher derives
 * from them) after the seed's fields of the op;
 * rule_schema_source_conditions the conditions written in an inputK map
 * (from_op, source_type, same_as, position, optional, rank … value): false
 * on an error. */
void rule_schema_op_ext(fd_schema *s, fd_cond_site *at, const char *path);
bool rule_schema_source_conditions(fd_schema *s, fd_rule_op *op, fd_input_source *is, const fd_yval *src, const char *path,
                             int index, int n_ops);

#endif
