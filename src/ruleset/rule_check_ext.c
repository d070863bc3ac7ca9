/* rule_check_ext.c — `check` for the language beyond the seed
 * (fusiondbg-rules(5), BEYOND THE SEED), once the op types are known: each
 * condition's own findings, asked of its entry (match/conditions.h:
 * FD_CONDITION_LINTS; their words are in its cond_*.c): where names, same_as,
 * position, value on an activation, optional ops, shape names used once,
 * input counts, the constraints that can never pass. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ruleset/rule_check_internal.h"
#include "rules/rule_expr.h"

/* ---- the conditions' own findings -------------------------------------------------- */

static void report(void *ctx, fd_severity sev, fd_srcpos pos, const char *msg)
{
	rule_check_say_at(ctx, sev, pos, "%s", msg);
}

void rule_check_condition(checker *c, fd_cond_kind kind, fd_cond_lint *site)
{
	void (*lint)(const fd_cond_lint *) = cond_lint_of(kind);
	if (!lint)
		return;
	site->verbose = c->opt && c->opt->verbose;
	site->ctx = c;
	site->say = report;
	lint(site);
}

void rule_check_conditions(checker *c, fd_cond_scope scope, fd_cond_lint *site)
{
	for (int k = 0; k < COND_COUNT; k++)
		if (cond_def((fd_cond_kind)k)->scope == scope)
			rule_check_condition(c, (fd_cond_kind)k, site);
}

void rule_check_op_ext(checker *c, const fd_rule *r, const fd_rule_pattern *pat, int i, const char *path)
{
	fd_cond_lint site = { .rule = r, .pat = pat, .op_index = i, .path = path };
	rule_check_conditions(c, SCOPE_OP_EXT, &site);
	for (int s = 0; s < pat->ops[i].n_sources; s++) {
		site.input = &pat->ops[i].sources[s];
		rule_check_conditions(c, SCOPE_INPUT, &site);
	}
}

void rule_check_dimvars(checker *c, const fd_rule *r)
{
	fd_cond_lint site = { .rule = r, .op_index = -1, .path = "" };
	rule_check_condition(c, COND_SHAPE, &site);   /* a shape name's uses are the whole rule's */
}
