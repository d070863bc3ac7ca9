/* cond_outputs.c — what becomes of an op's outputs (match.ops[i].outputs:
 * graph_output, min_consumers, max_consumers): reading them, deciding them
 * on the unit's outputs, and their words, naming the field that decided. */
#include "match/conditions.h"
#include <stdio.h>
#include "base/strbuf.h"
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"

bool cond_outputs_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *p)
{
	fd_rule_op *op = at->op;
	char q[320];
	int before = s->errors;
	if (!schema_kind(s, v, YV_MAP, p))
		return false;
	op->outputs_where = v;
	const fd_yval *f;
	bool b;
	if ((f = yval_get(v, "graph_output"))) {
		snprintf(q, sizeof q, "%s.graph_output", p);
		if (schema_bool(s, f, q, &b))
			op->graph_output = b;
	}
	if ((f = yval_get(v, "min_consumers"))) {
		snprintf(q, sizeof q, "%s.min_consumers", p);
		if (!schema_small_int(s, f, q, 0, &op->min_consumers))
			op->min_consumers = -1;
	}
	if ((f = yval_get(v, "max_consumers"))) {
		snprintf(q, sizeof q, "%s.max_consumers", p);
		if (!schema_small_int(s, f, q, 0, &op->max_consumers))
			op->max_consumers = -1;
	}
	if (op->min_consumers >= 0 && op->max_consumers >= 0 && op->min_consumers > op->max_consumers)
		ERR(s, f, "%s: min_consumers %d > max_consumers %d", p, op->min_consumers, op->max_consumers);
	if (op->graph_output < 0 && op->min_consumers < 0 && op->max_consumers < 0)
		ERR(s, v, "%s: needs graph_output, min_consumers or max_consumers", p);
	return s->errors == before;
}

/* "a graph output, consumers 1..2", "consumers <= 1". */
void cond_outputs_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_rule_op *op = c->op;
	size_t at = 0;
	buf[0] = '\0';
	if (op->graph_output >= 0)
		at = text_appendf(buf, size, at, "%s", op->graph_output ? "a graph output" : "not a graph output");
	if (op->min_consumers >= 0 || op->max_consumers >= 0) {
		at = text_appendf(buf, size, at, "%sconsumers ", at ? ", " : "");
		if (op->min_consumers == op->max_consumers)
			text_appendf(buf, size, at, "%d", op->min_consumers);
		else if (op->max_consumers < 0)
			text_appendf(buf, size, at, ">= %d", op->min_consumers);
		else if (op->min_consumers < 0)
			text_appendf(buf, size, at, "<= %d", op->max_consumers);
		else
			text_appendf(buf, size, at, "%d..%d", op->min_consumers, op->max_consumers);
	}
}

/* The consumers of the unit's outputs, and the first that is a graph output. */
static void measure(const match_run_state *s, int32_t u, int64_t *consumers, int32_t *graph_output)
{
	*consumers = 0;
	*graph_output = FD_NONE;
	for (int k = 0; k < unit_n_outputs(s, u); k++) {
		int32_t t = unit_output(s, u, k);
		if (t < 0)
			continue;
		*consumers += s->g->tensors[t].n_consumers;
		if (s->g->tensors[t].is_graph_output && *graph_output == FD_NONE)
			*graph_output = t;
	}
}

/* c->a, c->b: the consumers and a graph output (FD_NONE), measured in a
 * run, the event's explaining. The first field that fails decides. */
fd_reason cond_outputs_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	if (op->graph_output < 0 && op->min_consumers < 0 && op->max_consumers < 0)
		return REASON_NONE;
	int64_t consumers;
	int32_t gout;
	if (c->run) {
		measure(c->run, c->unit, &consumers, &gout);
	} else {
		consumers = c->ev->a;
		gout = c->ev->b >= 0 ? (int32_t)c->ev->b : FD_NONE;
	}
	c->a = consumers;
	c->b = gout;
	const char *failed = NULL;
	if (op->graph_output >= 0 && (gout != FD_NONE) != (op->graph_output == 1))
		failed = "graph_output";
	else if (op->min_consumers >= 0 && consumers < op->min_consumers)
		failed = "min_consumers";
	else if (op->max_consumers >= 0 && consumers > op->max_consumers)
		failed = "max_consumers";
	fd_reason why = failed ? REASON_NM15_OUTPUT : REASON_NONE;
	if (!facts)
		return why;
	cond_facts_clear(facts);
	facts->reason = why;
	/* of outputs that hold, the first field written */
	const char *field = failed ? failed : op->graph_output >= 0 ? "graph_output"
	                  : op->min_consumers >= 0 ? "min_consumers" : "max_consumers";
	snprintf(facts->path, sizeof facts->path, "outputs.%s", field);
	const fd_yval *k = failed ? yval_get(op->outputs_where, failed) : NULL;
	facts->decided = k ? k : op->outputs_where;
	cond_outputs_describe(c, facts->expected, sizeof facts->expected);
	const char *s = consumers == 1 ? "" : "s";
	if (gout != FD_NONE)
		text_cutf(facts->actual, sizeof facts->actual, "%s is a graph output, %lld consumer%s",
		          cond_tensor_name(c->g, gout), (long long)consumers, s);
	else
		text_cutf(facts->actual, sizeof facts->actual, "not a graph output, %lld consumer%s", (long long)consumers, s);
	if (failed == NULL)
		return why;
	if (op->graph_output >= 0 && failed[0] == 'g')
		text_cut(facts->reason_text, sizeof facts->reason_text,
		         op->graph_output ? "the output is not a graph output" : "the output is a graph output");
	else
		text_cut(facts->reason_text, sizeof facts->reason_text, "consumer count outside the range");
	return why;
}
