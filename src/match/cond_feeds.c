/* cond_feeds.c — an op found as the producer of an earlier op's input
 * (match.ops[i].feeds: {op: j, input: k}): reading it, deciding it on the
 * candidate, and its words. The search's candidates for such an op are the
 * producer of that input (match.c, gather), not the consumers of the op it
 * follows: the DequantizeLinear of a Conv's weight is one, a member of the
 * match though it comes before the Conv in the graph. */
#include "match/conditions.h"
#include <stdio.h>
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"

bool cond_feeds_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	char q[320];
	if (!schema_kind(s, v, YV_MAP, path))
		return false;
	const fd_yval *op = yval_get(v, "op"), *in = yval_get(v, "input");
	if (!op || !in) {
		ERR(s, v, "%s: needs 'op' and 'input' (the producer of op j's input k: {op: j, input: k})", path);
		return false;
	}
	int j = -1, k = -1;
	snprintf(q, sizeof q, "%.200s.op", path);
	bool ok = schema_small_int(s, op, q, 0, &j);
	snprintf(q, sizeof q, "%.200s.input", path);
	ok = schema_small_int(s, in, q, 0, &k) && ok;
	if (ok && j >= at->index) {
		ERR(s, op, "%s.op: %d is not an earlier op (op%d feeds one of op0..op%d)", path, j, at->index,
		    at->index - 1);
		ok = false;
	}
	if (!ok)
		return false;
	at->op->feeds_op = j;
	at->op->feeds_input = k;
	at->op->feeds_where = v;
	return true;
}

/* "the producer of op0's input1". */
void cond_feeds_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "the producer of op%d's input%d", c->op->feeds_op, c->op->feeds_input);
}

/* c->other: the unit of op j; c->a: its input tensor (FD_NONE: absent);
 * c->b: 1 when the candidate produces it. Measured in a run, the event's
 * explaining. Op j's input is read in the rule's numbering: swapped when
 * op j matched its operands swapped. */
fd_reason cond_feeds_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	if (op->feeds_op < 0)
		return REASON_NONE;
	int32_t owner, t;
	bool produces;
	if (c->run) {
		const match_run_state *s = c->run;
		int slot = op->feeds_input;
		owner = s->units[op->feeds_op];
		if (owner != FD_NONE && s->swapped[op->feeds_op] && slot < 2)
			slot ^= 1;
		t = owner == FD_NONE ? FD_NONE : unit_input(s, owner, slot);
		produces = t != FD_NONE && unit_produces(s, c->unit, t);
	} else {
		owner = (int32_t)c->ev->other;
		t = (int32_t)c->ev->a;
		produces = c->ev->b != 0;
	}
	c->other = owner;
	c->a = t;
	c->b = produces;
	fd_reason why = produces ? REASON_NONE : REASON_NM04_SOURCE;
	if (!facts)
		return why;
	cond_facts_clear(facts);
	facts->reason = why;
	snprintf(facts->path, sizeof facts->path, "feeds.op");
	facts->decided = op->feeds_where;
	cond_feeds_describe(c, facts->expected, sizeof facts->expected);
	if (t == FD_NONE) {
		text_cutf(facts->actual, sizeof facts->actual, "op%d has no input%d", op->feeds_op, op->feeds_input);
	} else if (produces) {
		text_cutf(facts->actual, sizeof facts->actual, "produces %s", cond_tensor_name(c->g, t));
	} else {
		int32_t p = c->g->tensors[t].producer;
		if (p >= 0)
			text_cutf(facts->actual, sizeof facts->actual, "%s comes from %s (%s)", cond_tensor_name(c->g, t),
			          c->g->nodes[p].name, c->g->nodes[p].op_type);
		else
			text_cutf(facts->actual, sizeof facts->actual, "%s is no node's output", cond_tensor_name(c->g, t));
	}
	if (why)
		text_cutf(facts->reason_text, sizeof facts->reason_text, "op%d's input%d is not this op's output",
		          op->feeds_op, op->feeds_input);
	return why;
}
