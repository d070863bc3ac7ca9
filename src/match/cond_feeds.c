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
	int j = -1, k = -1;
	if (!cond_op_input_parse(s, v, path, "the producer of op j's input k", &j, &k))
		return false;
	bool ok = true;
	if (j >= at->index) {
		ERR(s, yval_get(v, "op"), "%s.op: %d is not an earlier op (op%d feeds one of op0..op%d)", path, j, at->index,
		    at->index - 1);
		ok = false;
	}
	const fd_yval *first = yval_get(v, "first_reader");
	bool b = false;
	snprintf(q, sizeof q, "%.200s.first_reader", path);
	if (first && !schema_bool(s, first, q, &b))
		ok = false;
	if (!ok)
		return false;
	at->op->feeds_first = b;
	at->op->feeds_op = j;
	at->op->feeds_input = k;
	at->op->feeds_where = v;
	return true;
}

/* "the producer of op0's input1", ", its first reader". */
void cond_feeds_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "the producer of op%d's input%d%s", c->op->feeds_op, c->op->feeds_input,
	         c->op->feeds_first ? ", its first reader" : "");
}

/* With first_reader, the node that keeps a producer read by several: the
 * first of t's readers in the model's order (onnxruntime's
 * EnsureUniqueDQForNodeUnit keeps a DequantizeLinear for the reader of the
 * lowest node index and gives each other one a copy), none when t is a
 * graph output (then every reader gets a copy). A reader that only
 * computes constants (a Shape) is folded away and keeps nothing. */
static int32_t first_reader(const fd_graph_index *ix, int32_t t)
{
	const fd_tensor *x = &ix->g->tensors[t];
	if (x->is_graph_output)
		return FD_NONE;
	int32_t first = FD_NONE;
	for (int k = 0; k < x->n_consumers; k++)
		if ((first == FD_NONE || x->consumers[k] < first) && !match_node_folds(ix, x->consumers[k]))
			first = x->consumers[k];
	return first;
}

/* Op j is a group of siblings (every reader of t at its input k of its
 * types: cond_siblings.c) and the first reader is one of them: the
 * producer is the group's, whichever member the attempt is from. The ops
 * of a pattern are one array, so op j is c->op's neighbour. */
static bool group_reads_first(const fd_cond_check *c, int32_t keeper, int32_t t)
{
	const fd_rule_op *group = c->op - c->op_index + c->op->feeds_op;
	return keeper != FD_NONE && group->siblings && match_unit_input(c->ix, keeper, group->siblings_input) == t
	       && match_type_alt(c->ix, keeper, group) >= 0;
}

/* The payload's feeds: the unit of op j, its input tensor (FD_NONE:
 * absent), whether the candidate produces it. Measured in a run, the
 * event's explaining. Op j's input is read in the rule's numbering: swapped when
 * op j matched its operands swapped. */
fd_reason cond_feeds_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	if (op->feeds_op < 0)
		return REASON_NONE;
	int32_t owner, t;
	bool produces;
	int taken_by = -1;   /* the producer is this earlier op of the match already */
	if (c->run) {
		const match_run_state *s = c->run;
		int slot = op->feeds_input;
		owner = s->units[op->feeds_op];
		if (owner != FD_NONE && s->swapped[op->feeds_op] && slot < 2)
			slot ^= 1;
		t = owner == FD_NONE ? FD_NONE : unit_input(s, owner, slot);
		produces = t != FD_NONE && unit_produces(s, c->unit, t);
	} else {
		owner = c->payload.feeds.owner;
		t = (int32_t)c->payload.feeds.tensor;
		produces = c->payload.feeds.produces > 0;
		if (c->payload.feeds.produces < 0)
			taken_by = (int)(-1 - c->payload.feeds.produces);
	}
	c->payload.feeds.owner = owner;
	c->payload.feeds.tensor = t;
	c->payload.feeds.produces = taken_by >= 0 ? -1 - taken_by : produces;
	/* a composite op j (a node fused in an earlier round) reads first as its members did */
	int32_t keeper = produces && op->feeds_first ? first_reader(c->ix, t) : owner;
	bool kept = keeper == owner || owner >= c->g->n_nodes || group_reads_first(c, keeper, t);
	fd_reason why = produces && kept ? REASON_NONE : REASON_NM04_SOURCE;
	if (!facts)
		return why;
	cond_facts_clear(facts);
	facts->reason = why;
	snprintf(facts->path, sizeof facts->path, "feeds.op");
	facts->decided = op->feeds_where;
	cond_feeds_describe(c, facts->expected, sizeof facts->expected);
	if (t == FD_NONE) {
		text_cutf(facts->actual, sizeof facts->actual, "op%d has no input%d", op->feeds_op, op->feeds_input);
	} else if (produces && !kept) {
		snprintf(facts->path, sizeof facts->path, "feeds.first_reader");
		if (keeper == FD_NONE)
			text_cutf(facts->actual, sizeof facts->actual, "produces %s, a graph output", cond_tensor_name(c->g, t));
		else
			text_cutf(facts->actual, sizeof facts->actual, "produces %s, read first by %s", cond_tensor_name(c->g, t),
			          c->g->nodes[keeper].name);
	} else if (produces) {
		text_cutf(facts->actual, sizeof facts->actual, "produces %s", cond_tensor_name(c->g, t));
	} else if (taken_by >= 0) {
		int32_t p = c->g->tensors[t].producer;
		text_cutf(facts->actual, sizeof facts->actual, "%s comes from %s (%s), op%d of this match already",
		          cond_tensor_name(c->g, t), c->g->nodes[p].name, c->g->nodes[p].op_type, taken_by);
	} else {
		int32_t p = c->g->tensors[t].producer;
		if (p >= 0)
			text_cutf(facts->actual, sizeof facts->actual, "%s comes from %s (%s)", cond_tensor_name(c->g, t),
			          c->g->nodes[p].name, c->g->nodes[p].op_type);
		else
			text_cutf(facts->actual, sizeof facts->actual, "%s is no node's output", cond_tensor_name(c->g, t));
	}
	if (why && produces)
		text_cutf(facts->reason_text, sizeof facts->reason_text, "op%d is not the first reader of this op's output, "
		          "which stays with %s", op->feeds_op, keeper == FD_NONE ? "the graph output" : c->g->nodes[keeper].name);
	else if (why && taken_by >= 0)
		text_cutf(facts->reason_text, sizeof facts->reason_text, "the producer of op%d's input%d is op%d of this "
		          "match: one node is not two ops", op->feeds_op, op->feeds_input, taken_by);
	else if (why)
		text_cutf(facts->reason_text, sizeof facts->reason_text, "op%d's input%d is not this op's output",
		          op->feeds_op, op->feeds_input);
	return why;
}
