/* cond_optional_op.c — an op the chain may do without (match.ops[i].optional:
 * true): reading it, and the words of its absence. Whether to go on
 * without it is the search's (match.c: skip_optional, when no candidate
 * fits); the condition itself never fails. */
#include "match/conditions.h"
#include <stdio.h>
#include "base/text.h"
#include "match/cond_text.h"

bool cond_optional_op_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *p)
{
	if (!schema_bool(s, v, p, &at->op->optional))
		return false;
	at->states = at->op->optional;   /* optional: false is the default, stated */
	if (at->op->optional && at->index == 0) {
		ERR(s, v, "%s: op 0 is the anchor and cannot be optional", p);
		return false;
	}
	return true;
}

/* What may be there: "BatchNormalization", "[Relu, Sigmoid]". */
void cond_optional_op_describe(const fd_cond_check *c, char *buf, size_t size)
{
	if (c->op->n_types > 1) {
		char types[96];
		cond_types_text(c->op, types, sizeof types);
		text_cut(buf, size, types);
	} else {
		text_cut(buf, size, c->op->type);
	}
}

fd_reason cond_optional_op_check(fd_cond_check *c, fd_cond_facts *facts)
{
	if (!facts)
		return REASON_NONE;
	cond_facts_clear(facts);
	snprintf(facts->path, sizeof facts->path, "optional");
	const fd_yval *k = yval_get(c->op->where, "optional");
	facts->decided = k ? k : c->op->where;
	cond_optional_op_describe(c, facts->expected, sizeof facts->expected);
	text_cut(facts->actual, sizeof facts->actual, "absent");
	text_cutf(facts->reason_text, sizeof facts->reason_text, "no candidate fits; the match goes on without op%d",
	          c->op_index);
	return REASON_NONE;
}

/* ---- lint ------------------------------------------------------------------------ */

/* Every op after op 0 optional: the rule fuses op 0 alone. Said at the last op. */
void cond_optional_op_lint(const fd_cond_lint *l)
{
	const fd_rule_pattern *pat = l->pat;
	bool all_optional = pat->n_ops > 1;
	for (int k = 1; k < pat->n_ops; k++)
		all_optional &= pat->ops[k].optional;
	if (l->op_index == pat->n_ops - 1 && all_optional)
		cond_lint_say(l, DIAG_WARNING, yval_get(pat->ops[l->op_index].where, "optional"), "%s.optional: every op after "
		              "op 0 is optional, so the rule fuses op 0 alone where none of them is there", l->path);
}
