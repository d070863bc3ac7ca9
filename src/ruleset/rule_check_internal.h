/* rule_check_internal.h — what the parts of `check` share: the per-rule
 * lint of the seed's fields (rule_check.c), of the language beyond the seed
 * (rule_check_ext.c) and the findings across rules (rule_check_across.c).
 * Only those include it. */
#ifndef FD_RULE_CHECK_INTERNAL_H
#define FD_RULE_CHECK_INTERNAL_H
#include <stddef.h>
#include "rules/optable.h"
#include "ruleset/ruleset.h"

typedef struct checker {
	const fd_ruleset *rs;
	const fd_check_options *opt;
	fd_diags *d;
} checker;

/* A finding at a value, or at a place inside one (an expression's
 * character); a warning is an error under strict. */
void rule_check_say(checker *c, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rule_check_say_at(checker *c, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define ERR(c, at, ...) rule_check_say(c, DIAG_ERROR, at, __VA_ARGS__)
#define WARN(c, at, ...) rule_check_say(c, DIAG_WARNING, at, __VA_ARGS__)
#define NOTE(c, at, ...) do { if ((c)->opt && (c)->opt->verbose) rule_check_say(c, DIAG_NOTE, at, __VA_ARGS__); } while (0)

/* Duplicate names, rules of one pattern, rules of one priority on a shared
 * anchor: in groups (rule_check_across.c). */
void rule_check_across(checker *c);

/* How many inputs op id takes at most; -1 unbounded or unknown. */
int rule_check_op_arity(int id);
/* The same over an op's type list (the most of them; -1 when one is unbounded). */
int rule_check_ops_arity(const fd_rule_op *op);
/* "Conv2d", or "[Relu, Sigmoid, Tanh]" for a list. Returns buf. */
const char *rule_check_op_types_text(const fd_rule_op *op, char *buf, size_t size);
/* "groups, kernel_size, strides" */
const char *rule_check_param_list(const fd_op_def *op, char *buf, size_t size);
/* The key of value in the op's map `section` (params, input_sources), else the value. */

/* rule_check_ext.c: the extensions of op i of pat (its types are known):
 * where names, same_as, position, optional ops, shape names. */
void rule_check_op_ext(checker *c, const fd_rule_pattern *pat, int i, const char *path);
/* Shape names used once in the whole rule (they constrain nothing). */
void rule_check_dimvars(checker *c, const fd_rule *r);

#endif
