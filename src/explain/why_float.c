/* why_float.c — "why did this op stay float?" in a quantized model: of the
 * rules that would have made its integer kernel (the rules with
 * QuantizeLinear or DequantizeLinear ops), the attempt that got furthest on
 * the op, anchored on it first, and that attempt's deciding check in one
 * line, worded by the role of the pattern op it failed on: a Q the op's
 * output lacks, a DQ one of its inputs lacks, or a condition of a Q/DQ's
 * scale or zero point. Nothing here knows an op type but Q and DQ: the
 * words come from the rule's own failed check (float_ops.c says which ops
 * are left in float). */
#include <stdio.h>
#include <string.h>
#include "base/text.h"
#include "explain/explain.h"
#include "ir/dtype.h"
#include "match/conditions.h"
#include "rules/optable.h"

static bool op_is(const fd_rule_op *op, const char *type)
{
	for (int i = 0; i < op->n_types; i++)
		if (!strcmp(op->types[i], type))
			return true;
	return false;
}

static bool pattern_qdq(const fd_rule_pattern *p)
{
	for (int i = 0; i < p->n_ops; i++)
		if (op_is(&p->ops[i], "QuantizeLinear") || op_is(&p->ops[i], "DequantizeLinear"))
			return true;
	return false;
}

bool explain_rule_is_qdq(const fd_rule *rule)
{
	if (pattern_qdq(&rule->match))
		return true;
	for (int b = 0; b < rule->n_branches; b++)
		if (pattern_qdq(&rule->branches[b]))
			return true;
	return false;
}

static const fd_rule_op *event_op(const fd_rule *rule, const fd_event *ev)
{
	const fd_rule_pattern *p = ev->branch < 0 ? &rule->match
	                         : ev->branch < rule->n_branches ? &rule->branches[ev->branch] : NULL;
	return p && ev->op >= 0 && ev->op < p->n_ops ? &p->ops[ev->op] : NULL;
}

/* Which Q or DQ the op failed on, relative to the op that stayed float. */
static void role_words(const fd_rule_op *op, bool q, char *buf, size_t size)
{
	if (q)
		snprintf(buf, size, "its output's QuantizeLinear");
	else if (op->feeds_input >= 0)
		snprintf(buf, size, "its input %d's DequantizeLinear", op->feeds_input);
	else
		snprintf(buf, size, "the DequantizeLinear before it");
}

/* What a source entry asks, in words: "a constant", "a uint8", "an int8 or uint8". */
static void need_words(const fd_input_source *src, fd_reason reason, const char *expected, char *buf, size_t size)
{
	size_t at = 0;
	if (src && (reason == REASON_NM04_SOURCE || reason == REASON_NM13_OPTIONAL_INPUT) && (src->source_type == SRC_CONST || src->source_type == SRC_INITIALIZER))
		snprintf(buf, size, src->source_type == SRC_CONST ? "a constant" : "an initializer");
	else if (src && reason == REASON_NM11_DTYPE && src->n_dtypes > 0) {
		const char *first = dtype_name(src->dtypes[0]);
		at = (size_t)snprintf(buf, size, "%s %s", strchr("aeio", first[0]) ? "an" : "a", first);
		for (int i = 1; i < src->n_dtypes && at < size; i++)
			at += (size_t)snprintf(buf + at, size - at, "%s%s", i + 1 == src->n_dtypes ? " or " : ", ",
			                       dtype_name(src->dtypes[i]));
	} else
		snprintf(buf, size, "%s", expected);
}

static const fd_input_source *source_of(const fd_rule_op *op, int slot)
{
	for (int i = 0; op && i < op->n_sources; i++)
		if (op->sources[i].input == slot)
			return &op->sources[i];
	return NULL;
}

/* The deciding check in words, by the role of the pattern op it failed on:
 * a Q the output lacks, a DQ an input lacks, or what a Q/DQ's input (the
 * data, the scale, the zero point: Q and DQ read them in that order) must be. */
static void phrase(const fd_match_result *r, const fd_rule *rule, uint32_t decisive, char *buf, size_t size)
{
	fd_event ev = trace_event(&r->trace, decisive);
	fd_event_text t;
	explain_event(r, decisive, &t);
	const fd_rule_op *op = event_op(rule, &ev);
	const char *target = rule->target_op ? rule->target_op : rule->name;
	bool q = op && op_is(op, "QuantizeLinear"), dq = op && op_is(op, "DequantizeLinear");
	const fd_graph *g = &r->ctx->model->graphs[ev.graph];
	/* the input a SOURCE or OPERAND event checked, and its tensor */
	cond_event_payload p = cond_event_read(&ev);
	int slot = ev.kind == EV_SOURCE && ev.sub >= 0 ? (int)p.source.slot : ev.kind == EV_OPERAND ? p.operand.slot : -1;
	int64_t read = ev.kind == EV_SOURCE ? p.source.tensor : ev.kind == EV_OPERAND ? p.operand.tensor : -1;
	int32_t tensor = read >= 0 && read < g->n_tensors ? (int32_t)read : -1;
	if ((ev.kind == EV_TYPE || (ev.kind == EV_SOURCE && ev.sub < 0)) && q) {
		if (t.subject[0])
			text_cutf(buf, size, "its output has no QuantizeLinear (the next op, %s, is not quantized)", t.subject);
		else
			text_cutf(buf, size, "its output has no QuantizeLinear (%s)", t.actual[0] ? t.actual : t.reason);
	} else if (ev.kind == EV_FEEDS && dq && op->feeds_input >= 0) {
		text_cutf(buf, size, "its input %d has no DequantizeLinear (%s%s)", op->feeds_input,
		          t.subject[0] ? "it comes from " : "", t.subject[0] ? t.subject : t.reason);
	} else if (ev.reason == REASON_NM20_QDQ_DTYPE && source_of(op, slot)) {
		/* the data runs as another type: the check's reason says why */
		const fd_input_source *src = source_of(op, slot);
		char role[96], types[64];
		size_t at = 0;
		if (q || dq)
			role_words(op, q, role, sizeof role);
		else
			snprintf(role, sizeof role, "its input %d", slot);
		types[0] = 0;
		for (int i = 0; i < src->n_qdq_dtypes && at < sizeof types; i++)
			at += (size_t)snprintf(types + at, sizeof types - at, "%s%s", i ? " or " : "", dtype_name(src->qdq_dtypes[i]));
		text_cutf(buf, size, "%s needs the data of %s to run as %s: %s", target, role, types,
		          t.reason[0] ? t.reason : t.actual);
	} else if ((q || dq) && slot >= 0 && slot <= 2 && tensor >= 0) {
		static const char *const slot_names[] = { "input", "scale", "zero point" };
		char role[96], need[160], actual[288];
		role_words(op, q, role, sizeof role);
		need_words(source_of(op, slot), (fd_reason)ev.reason, t.expected, need, sizeof need);
		const fd_tensor *x = &g->tensors[tensor];
		if (ev.reason == REASON_NM11_DTYPE)
			snprintf(actual, sizeof actual, "%s", dtype_name(x->dtype));
		else if ((ev.reason == REASON_NM04_SOURCE || ev.reason == REASON_NM13_OPTIONAL_INPUT) && x->kind == TENSOR_GRAPH_INPUT)
			snprintf(actual, sizeof actual, "a graph input");
		else
			snprintf(actual, sizeof actual, "%s", t.actual[0] ? t.actual : t.reason);
		text_cutf(buf, size, "%s needs %s %s in %s: %s is %s", target, need, slot_names[slot], role, x->name, actual);
	} else if (t.expected[0]) {
		text_cutf(buf, size, "%s needs %s %s, actual %s", target, t.check, t.expected, t.actual[0] ? t.actual : t.reason);
	} else {
		text_cutf(buf, size, "%s: %s", t.check, t.actual[0] ? t.actual : t.reason);
	}
}

/* The rule has an op node could be (its type, in the op table). */
static bool rule_has_op_for(const fd_rule *rule, const fd_graph *g, const fd_node *node)
{
	for (int b = -1; b < rule->n_branches; b++) {
		const fd_rule_pattern *p = b < 0 ? &rule->match : &rule->branches[b];
		for (int i = 0; i < p->n_ops; i++)
			for (int k = 0; k < p->ops[i].n_types; k++)
				if (p->ops[i].ops[k] >= 0 && optable_node_matches(p->ops[i].ops[k], g, node))
					return true;
	}
	return false;
}

/* Better answer: anchored on the node, then further (score). */
static bool better(const fd_rounds *rd, const fd_rounds_why *a, const fd_rounds_why *b, int32_t graph)
{
	if (!b->round)
		return true;
	const fd_match_result *ra = rd->items[a->round - 1]->result, *rb = rd->items[b->round - 1]->result;
	const fd_attempt *x = &ra->trace.attempts[a->why.attempt], *y = &rb->trace.attempts[b->why.attempt];
	bool ax = explain_unit_covers(ra->ctx, graph, x->anchor, a->node),
	     by = explain_unit_covers(rb->ctx, graph, y->anchor, b->node);
	if (ax != by)
		return ax;
	return x->score > y->score;
}

bool explain_why_float(const fd_rounds *rd, const fd_match_result *final, int32_t graph, int32_t node, char *buf,
                       size_t size)
{
	const fd_node *n = &final->ctx->model->graphs[graph].nodes[node];
	if (!explain_left_in_float(final, graph, node)) {
		int32_t f = final->claim[graph][node];
		const fd_rule *by = f >= 0 ? &final->rules->rules[final->fusions[f].rule] : NULL;
		if (explain_is_qdq_node(n))
			text_cutf(buf, size, "%s (%s) is not an op left in float: it is a QuantizeLinear or DequantizeLinear",
			          n->name, n->op_type);
		else if (by && explain_rule_is_qdq(by))
			text_cutf(buf, size, "%s (%s) is not an op left in float: %s made it %s", n->name, n->op_type, by->name,
			          by->target_op ? by->target_op : "?");
		else if (match_node_is_constant(&final->ctx->graphs[graph], node))
			text_cutf(buf, size, "%s (%s) is not an op left in float: it computes only constants", n->name,
			          n->op_type);
		else
			text_cutf(buf, size, "%s (%s) is not an op left in float: no DequantizeLinear feeds it and no "
			          "QuantizeLinear reads it", n->name, n->op_type);
		return false;
	}
	const fd_graph *g = &final->ctx->model->graphs[graph];
	fd_rounds_why best = { 0 }, w;
	int32_t best_rule = -1, has_op = -1;
	char not_run[1024] = "";   /* a QDQ rule with an op for the node that did not run */
	for (int32_t ri = 0; ri < rd->rules->n_rules; ri++) {
		const fd_rule *rule = &rd->rules->rules[ri];
		if (!explain_rule_is_qdq(rule))
			continue;
		bool for_node = rule_has_op_for(rule, g, n);
		if (for_node && has_op < 0)
			has_op = ri;
		explain_rounds_why(rd, ri, graph, node, &w);
		if (w.why.kind == WHY_NOT_RUN && for_node && !not_run[0])
			text_cut(not_run, sizeof not_run, strncmp(w.line, "why: ", 5) ? w.line : w.line + 5);
		if (!w.round || w.fired || w.why.kind != WHY_ATTEMPT || w.why.attempt == UINT32_MAX ||
		    w.why.decisive == UINT32_MAX)
			continue;
		if (better(rd, &w, &best, graph)) {
			best = w;
			best_rule = ri;
		}
	}
	char in_fusion[256] = "";
	int32_t f = final->claim[graph][node];
	if (f >= 0) {
		const fd_rule *other = &final->rules->rules[final->fusions[f].rule];
		text_cutf(in_fusion, sizeof in_fusion, "; %s fused it into %s instead", other->name,
		          other->target_op ? other->target_op : "?");
	}
	if (best_rule < 0 && not_run[0]) {
		text_cutf(buf, size, "%s (%s) stayed float: %s%s", n->name, n->op_type, not_run, in_fusion);
		return true;
	}
	if (best_rule < 0) {
		text_cutf(buf, size, "%s (%s) stayed float: no rule with QuantizeLinear or DequantizeLinear ops tried it "
		          "(%s %s op)%s", n->name, n->op_type, has_op >= 0 ? "one has a" : "none has a", n->op_type,
		          in_fusion);
		return true;
	}
	const fd_match_result *r = rd->items[best.round - 1]->result;
	const fd_rule *rule = &rd->rules->rules[best_rule];
	const fd_attempt *at = &r->trace.attempts[best.why.attempt];
	char words[1024], where[300], round[32] = "";
	phrase(r, rule, best.why.decisive, words, sizeof words);
	fd_event_text t;
	explain_event(r, best.why.decisive, &t);
	explain_where(&t.where, where, sizeof where);
	if (rd->n > 1)
		snprintf(round, sizeof round, ", round %d", (int)best.round);
	text_cutf(buf, size, "%s (%s) stayed float: %s — %s (%s%s) [%s]%s%s%s", n->name, n->op_type, words, rule->name,
	          rule->target_op ? rule->target_op : "?", round, reason_code((fd_reason)at->reason), where[0] ? " at " : "",
	          where, in_fusion);
	return true;
}
