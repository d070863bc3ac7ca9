/* rule_check_internal.h — what the parts of `check` share: the per-rule
 * lint of the seed's fields (rule_check.c), of the language beyond the seed
 * (each condition's own, asked of its entry) and the findings across rules
 * (rule_check_across.c).
 * Only those include it. */
#ifndef FD_RULE_CHECK_INTERNAL_H
#define FD_RULE_CHECK_INTERNAL_H
#include <stddef.h>
#include "rules/optable.h"
#include "match/cond_text.h"
#include "ruleset/ruleset.h"

struct told_groups;
typedef struct checker {
	const fd_ruleset *rs;
	const fd_check_options *opt;
	fd_diags *d;
	struct told_groups *told;   /* rule_check_across.c's, while it looks across rules */
} checker;

/* A finding at a value, or at a place inside one (an expression's
 * character); a warning is an error under strict. */
void rule_check_say(checker *c, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rule_check_say_at(checker *c, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* the lint's own, in place of the schema's (rules/schema.h, through the conditions) */
#undef ERR
#undef WARN
#define ERR(c, at, ...) rule_check_say(c, DIAG_ERROR, at, __VA_ARGS__)
#define WARN(c, at, ...) rule_check_say(c, DIAG_WARNING, at, __VA_ARGS__)
#define NOTE(c, at, ...) do { if ((c)->opt && (c)->opt->verbose) rule_check_say(c, DIAG_NOTE, at, __VA_ARGS__); } while (0)

/* Duplicate names, rules of one pattern, rules of one priority on a shared
 * anchor: in groups (rule_check_across.c). */
void rule_check_across(checker *c);


#endif
