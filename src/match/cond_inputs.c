/* cond_inputs.c — how many inputs an op is given (match.ops[i].inputs:
 * min_inputs, max_inputs): reading them, deciding them on the unit's
 * inputs that hold a tensor, and their words. */
#include "match/conditions.h"
#include <stdio.h>
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"

bool cond_inputs_parse(fd_schema *s, fd_cond_site *at, const fd_yval *inputs, const char *p)
{
	fd_rule_op *op = at->op;
	int before = s->errors;
	op->min_inputs = op->max_inputs = -1;   /* a bound not given */
	if (!schema_kind(s, inputs, YV_MAP, p))
		return false;
	op->inputs_where = inputs;
	const fd_yval *mn = yval_get(inputs, "min_inputs"), *mx = yval_get(inputs, "max_inputs");
	char q[320];
	snprintf(q, sizeof q, "%.200s.min_inputs", p);
	if (mn && !schema_small_int(s, mn, q, 0, &op->min_inputs))
		op->min_inputs = -1;
	snprintf(q, sizeof q, "%.200s.max_inputs", p);
	if (mx && !schema_small_int(s, mx, q, 0, &op->max_inputs))
		op->max_inputs = -1;
	if (op->min_inputs >= 0 && op->max_inputs >= 0 && op->min_inputs > op->max_inputs)
		ERR(s, mx, "%s: min_inputs %d > max_inputs %d", p, op->min_inputs, op->max_inputs);
	at->states = op->min_inputs >= 0 || op->max_inputs >= 0;
	return s->errors == before;
}

/* "1..3", ">= 2", "<= 3". */
void cond_inputs_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_rule_op *op = c->op;
	if (op->min_inputs >= 0 && op->max_inputs >= 0)
		text_cutf(buf, size, "%d..%d", op->min_inputs, op->max_inputs);
	else if (op->min_inputs >= 0)
		text_cutf(buf, size, ">= %d", op->min_inputs);
	else
		text_cutf(buf, size, "<= %d", op->max_inputs);
}

/* The inputs given: in a run counted on the unit, explaining the event's. */
fd_reason cond_inputs_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	int64_t n = c->run ? unit_nonempty_inputs(c->run, c->unit) : c->payload.arity.given;
	c->payload.arity.given = n;
	bool under = op->min_inputs >= 0 && n < op->min_inputs, over = op->max_inputs >= 0 && n > op->max_inputs;
	fd_reason why = under || over ? REASON_NM02_ARITY : REASON_NONE;
	if (!facts)
		return why;
	cond_facts_clear(facts);
	facts->reason = why;
	/* the bound that failed; of one that holds, the first written */
	snprintf(facts->path, sizeof facts->path, "inputs.%s", under || (!over && op->min_inputs >= 0) ? "min_inputs"
	                                                                                               : "max_inputs");
	facts->decided = op->inputs_where ? op->inputs_where : op->where;
	cond_inputs_describe(c, facts->expected, sizeof facts->expected);
	text_cutf(facts->actual, sizeof facts->actual, "%lld", (long long)n);
	if (why)
		text_cut(facts->reason_text, sizeof facts->reason_text, "input count outside the range");
	return why;
}

/* ---- lint ------------------------------------------------------------------------ */

/* min_inputs the op's types can never give, max_inputs above what they take. */
void cond_inputs_lint(const fd_cond_lint *l)
{
	const fd_rule_op *op = &l->pat->ops[l->op_index];
	int arity = cond_op_max_inputs(op);
	if (!op->inputs_where || arity < 0)
		return;
	char name[128];
	cond_op_types_name(op, name, sizeof name);
	const fd_yval *mn = yval_get(op->inputs_where, "min_inputs"), *mx = yval_get(op->inputs_where, "max_inputs");
	if (op->min_inputs > arity)
		cond_lint_say(l, DIAG_ERROR, mn, "%s.inputs.min_inputs: %s takes at most %d input%s, so min_inputs %d can never "
		              "be met", l->path, name, arity, arity == 1 ? "" : "s", op->min_inputs);
	else if (op->max_inputs > arity)
		cond_lint_say(l, DIAG_WARNING, mx, "%s.inputs.max_inputs: %s takes at most %d input%s (max_inputs %d)", l->path,
		              name, arity, arity == 1 ? "" : "s", op->max_inputs);
}
