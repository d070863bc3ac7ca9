/* rule_check_internal.h — what the two halves of `check` share: the
 * per-rule lint (rule_check.c) and the findings across rules
 * (rule_check_across.c). Only those two include it. */
#ifndef FD_RULE_CHECK_INTERNAL_H
#define FD_RULE_CHECK_INTERNAL_H
#include "rules/rules.h"

typedef struct checker {
	const fd_ruleset *rs;
	const fd_check_options *opt;
	fd_diags *d;
} checker;

/* A finding at a value; a warning is an error under strict. */
void check_say(checker *c, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define ERR(c, at, ...) check_say(c, DIAG_ERROR, at, __VA_ARGS__)
#define WARN(c, at, ...) check_say(c, DIAG_WARNING, at, __VA_ARGS__)
#define NOTE(c, at, ...) do { if ((c)->opt && (c)->opt->verbose) check_say(c, DIAG_NOTE, at, __VA_ARGS__); } while (0)

/* Duplicate names, rules of one pattern, rules of one priority on a shared
 * anchor: in groups (rule_check_across.c). */
void check_across(checker *c);

#endif
