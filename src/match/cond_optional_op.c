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
	return schema_bool(s, v, p, &at->op->optional);
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
