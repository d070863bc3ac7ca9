/* rule_schema_internal.h — what the files of the schema share: rule_schema.c
 * (the document: name, priority, match, rewrite, output, …) and
 * rule_schema_ext.c (an op's and an input's conditions, each read by its
 * entry of the condition list). Not for other files. */
#ifndef FD_RULE_SCHEMA_INTERNAL_H
#define FD_RULE_SCHEMA_INTERNAL_H
#include "rules/schema.h"

/* Warns about keys the section (a pattern of rule_format.h) does not have. */
void rule_schema_unknown_keys(fd_schema *s, const fd_yval *map, const char *path, const char *section);

/* rule_schema_ext.c: the extensions of an op map (type lists, optional,
 * outputs, where) and of an inputK map (operand conditions). parse_op_ext
 * runs after the seed's fields of the op; parse_source_ext fills the
 * extension fields of is from src and returns false on an error. */
void parse_op_type(fd_schema *s, fd_rule_op *op, const fd_yval *type, const char *path);
void parse_op_ext(fd_schema *s, fd_rule_op *op, const fd_yval *v, const char *path);
/* The conditions written in an inputK map (from_op, source_type, same_as,
 * position, optional, rank … value): false on an error. */
bool parse_source_conditions(fd_schema *s, fd_rule_op *op, fd_input_source *is, const fd_yval *src, const char *path,
                             int index, int n_ops);

#endif
