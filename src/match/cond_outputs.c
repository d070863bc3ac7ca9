/* cond_outputs.c — what becomes of an op's outputs (match.ops[i].outputs:
 * graph_output, min_consumers, max_consumers, not_read_by) and how many it
 * declares (count): reading them, deciding them on the unit's outputs, and
 * their words, naming the field that decided. count is a fact of the node,
 * not of its readers: a BatchNormalization that declares its training
 * outputs, a MaxPool that declares its indices, which compilers refuse to
 * fold. */
#include "match/conditions.h"
#include <stdio.h>
#include <string.h>
#include "base/arena.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"

bool cond_outputs_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *p)
{
	fd_rule_op *op = at->op;
	char q[320];
	int before = s->errors;
	op->graph_output = op->min_consumers = op->max_consumers = op->output_count = -1;   /* a field not given */
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
	if ((f = yval_get(v, "count"))) {
		snprintf(q, sizeof q, "%s.count", p);
		if (!schema_small_int(s, f, q, 1, &op->output_count))
			op->output_count = -1;
	}
	if (op->min_consumers >= 0 && op->max_consumers >= 0 && op->min_consumers > op->max_consumers)
		ERR(s, yval_get(v, "max_consumers"), "%s: min_consumers %d > max_consumers %d", p, op->min_consumers,
		    op->max_consumers);
	if ((f = yval_get(v, "not_read_by"))) {
		snprintf(q, sizeof q, "%s.not_read_by", p);
		if (schema_kind(s, f, YV_SEQ, q) && schema_count(s, f, q, FD_RULE_MAX_ITEMS, "op types")) {
			op->not_read_by = arena_array(&s->rs->arena, f->n ? f->n : 1, sizeof *op->not_read_by);
			for (size_t i = 0; i < f->n; i++) {
				char qi[352];
				snprintf(qi, sizeof qi, "%s[%zu]", q, i);
				if (schema_str(s, f->items[i], qi, &op->not_read_by[op->n_not_read_by]))
					op->n_not_read_by++;
			}
			if (!f->n)
				ERR(s, f, "%s: the list is empty", q);
		}
	}
	if (op->graph_output < 0 && op->min_consumers < 0 && op->max_consumers < 0 && !op->n_not_read_by &&
	    op->output_count < 0 && s->errors == before)
		ERR(s, v, "%s: needs graph_output, min_consumers, max_consumers, not_read_by or count", p);
	return s->errors == before;
}

/* "a graph output, consumers 1..2", "consumers <= 1", "read by no QuantizeLinear",
 * "1 output declared". */
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
			at = text_appendf(buf, size, at, "%d", op->min_consumers);
		else if (op->max_consumers < 0)
			at = text_appendf(buf, size, at, ">= %d", op->min_consumers);
		else if (op->min_consumers < 0)
			at = text_appendf(buf, size, at, "<= %d", op->max_consumers);
		else
			at = text_appendf(buf, size, at, "%d..%d", op->min_consumers, op->max_consumers);
	}
	for (int k = 0; k < op->n_not_read_by; k++)
		at = text_appendf(buf, size, at, "%s%s", k ? " | " : at ? ", read by no " : "read by no ", op->not_read_by[k]);
	if (op->output_count >= 0)
		text_appendf(buf, size, at, "%s%d output%s declared", at ? ", " : "", op->output_count,
		             op->output_count == 1 ? "" : "s");
}

/* The outputs unit u declares with a name (an output written "" is not
 * there); a decomposed form's unit has its one output. */
static int declared_outputs(const fd_graph *g, int32_t u)
{
	if (u < 0 || u >= g->n_nodes)
		return 1;
	int n = 0;
	for (int k = 0; k < g->nodes[u].n_outputs; k++)
		n += g->nodes[u].outputs[k] != FD_NONE;
	return n;
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

/* The first reader of the unit's outputs whose op type not_read_by lists,
 * or FD_NONE; read from the graph, in a run and explaining alike. */
static int32_t banned_reader(const fd_cond_check *c)
{
	const fd_rule_op *op = c->op;
	const fd_graph *g = c->g;
	for (int k = 0; op->n_not_read_by; k++) {
		int32_t t = match_unit_output(c->ix, c->unit, k);
		if (t == FD_NONE && (c->unit < g->n_nodes ? k >= g->nodes[c->unit].n_outputs : k > 0))
			break;
		if (t < 0)
			continue;
		for (int j = 0; j < g->tensors[t].n_consumers; j++) {
			const char *type = g->nodes[g->tensors[t].consumers[j]].op_type;
			for (int b = 0; type && b < op->n_not_read_by; b++)
				if (!strcmp(type, op->not_read_by[b]))
					return g->tensors[t].consumers[j];
		}
	}
	return FD_NONE;
}

/* The payload's output: the consumers and a graph output (FD_NONE),
 * measured in a run, the event's explaining. The first field that fails decides. */
fd_reason cond_outputs_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	int64_t consumers;
	int32_t gout;
	if (c->run) {
		measure(c->run, c->unit, &consumers, &gout);
	} else {
		consumers = c->payload.output.consumers;
		gout = c->payload.output.graph_output >= 0 ? (int32_t)c->payload.output.graph_output : FD_NONE;
	}
	c->payload.output.consumers = consumers;
	c->payload.output.graph_output = gout;
	const char *failed = NULL;
	if (op->graph_output >= 0 && (gout != FD_NONE) != (op->graph_output == 1))
		failed = "graph_output";
	else if (op->min_consumers >= 0 && consumers < op->min_consumers)
		failed = "min_consumers";
	else if (op->max_consumers >= 0 && consumers > op->max_consumers)
		failed = "max_consumers";
	int32_t banned = failed || !op->n_not_read_by ? FD_NONE : banned_reader(c);
	if (banned != FD_NONE)
		failed = "not_read_by";
	int declared = declared_outputs(c->g, c->unit);
	if (!failed && op->output_count >= 0 && declared != op->output_count)
		failed = "count";
	fd_reason why = !failed ? REASON_NONE : failed[0] == 'c' ? REASON_NM22_OUTPUT_COUNT : REASON_NM15_OUTPUT;
	if (!facts)
		return why;
	cond_facts_clear(facts);
	facts->reason = why;
	/* of outputs that hold, the first field written */
	const char *field = failed ? failed : op->graph_output >= 0 ? "graph_output"
	                  : op->min_consumers >= 0 ? "min_consumers" : op->max_consumers >= 0 ? "max_consumers"
	                  : op->n_not_read_by ? "not_read_by" : "count";
	snprintf(facts->path, sizeof facts->path, "outputs.%s", field);
	const fd_yval *k = failed ? yval_get(op->outputs_where, failed) : NULL;
	facts->decided = k ? k : op->outputs_where;
	cond_outputs_describe(c, facts->expected, sizeof facts->expected);
	const char *s = consumers == 1 ? "" : "s";
	/* what the graph has, of what the rule asks */
	if (op->graph_output < 0 && op->min_consumers < 0 && op->max_consumers < 0 && !op->n_not_read_by)
		facts->actual[0] = '\0';
	else if (gout != FD_NONE)
		text_cutf(facts->actual, sizeof facts->actual, "%s is a graph output, %lld consumer%s",
		          cond_tensor_name(c->g, gout), (long long)consumers, s);
	else
		text_cutf(facts->actual, sizeof facts->actual, "not a graph output, %lld consumer%s", (long long)consumers, s);
	if (op->output_count >= 0)
		text_appendf(facts->actual, sizeof facts->actual, strlen(facts->actual), "%s%d output%s declared",
		             facts->actual[0] ? ", " : "", declared, declared == 1 ? "" : "s");
	if (banned != FD_NONE)
		text_cutf(facts->actual, sizeof facts->actual, "read by %s (%s)", c->g->nodes[banned].name,
		          c->g->nodes[banned].op_type);
	if (failed == NULL)
		return why;
	if (failed[0] == 'c')
		text_cutf(facts->reason_text, sizeof facts->reason_text, "the node declares %d output%s, the rule says %d",
		          declared, declared == 1 ? "" : "s", op->output_count);
	else if (banned != FD_NONE)
		text_cutf(facts->reason_text, sizeof facts->reason_text, "the output is read by %s (%s)",
		          c->g->nodes[banned].name, c->g->nodes[banned].op_type);
	else if (op->graph_output >= 0 && failed[0] == 'g')
		text_cut(facts->reason_text, sizeof facts->reason_text,
		         op->graph_output ? "the output is not a graph output" : "the output is a graph output");
	else
		text_cut(facts->reason_text, sizeof facts->reason_text, "consumer count outside the range");
	return why;
}
