/* condition_text.c — the checks of the language beyond the seed in words
 * (fusiondbg-rules(5), BEYOND THE SEED): a type list, an optional op, an
 * input that is optional or the same tensor as another op's, position:
 * fixed, the operand conditions (rank, shape, static, dtype, value), the
 * output conditions and where expressions. Expected is what the rule
 * writes, actual what the graph has (recomputed), the place the key that
 * decided it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "base/strbuf.h"
#include "explain/explain_internal.h"
#include "ir/dtype.h"
#include "match/conditions.h"
#include "rules/optable.h"

static const fd_graph_index *index_of(const fd_match_result *r, const fd_event *ev)
{
	return &r->ctx->graphs[ev->graph];
}

int event_op_id(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op)
{
	if (op->n_types <= 1 || ev->unit < 0)
		return op->op;
	int alt = match_type_alt(index_of(r, ev), ev->unit, op);
	return alt >= 0 ? op->ops[alt] : op->op;
}

static void types_text(const fd_rule_op *op, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	at = buf_printf(buf, size, at, "[");
	for (int t = 0; t < op->n_types; t++)
		at = buf_printf(buf, size, at, "%s%s", t ? ", " : "", op->types[t]);
	at = buf_printf(buf, size, at, "]");
}

void op_label(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, char *buf, size_t size)
{
	int alt = op->n_types > 1 && ev->unit >= 0 ? match_type_alt(index_of(r, ev), ev->unit, op) : 0;
	if (alt >= 0) {
		put(buf, size, "op%d %s", ev->op, op->types[alt]);
		return;
	}
	put(buf, size, "op%d", ev->op);   /* none of the list: the expected value lists them */
}

void describe_type_list(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	const fd_graph *g = index_of(r, ev)->g;
	size_t len = strlen(o->check);
	put(o->check + len, sizeof o->check - len, " type");
	char list[120];
	types_text(op, list, sizeof list);
	put(o->expected, sizeof o->expected, "one of %s", list);
	const fd_composite_rec *c = match_composite(r->ctx, ev->graph, ev->unit);
	if (c)
		put(o->actual, sizeof o->actual, "%s (composite %s)", explain_composite_name(c->kind),
		    canon_recogniser_name((fd_recogniser)c->recogniser));
	else
		put(o->actual, sizeof o->actual, "%s", g->nodes[ev->unit].op_type);
	int alt = match_type_alt(index_of(r, ev), ev->unit, op);
	char lab[160];
	size_t at = 0;
	if (alt >= 0)
		at = buf_printf(o->reason, sizeof o->reason, at, "type[%d] %s", alt, op->types[alt]);
	else
		at = buf_printf(o->reason, sizeof o->reason, at, "none of the listed types");
	if (ev->other >= 0) {
		explain_unit_label(r->ctx, ev->graph, ev->other, lab, sizeof lab);
		at = buf_printf(o->reason, sizeof o->reason, at, "; reads %s of %s", tensor_name(g, ev->a), lab);
	}
	const fd_yval *w = op->type_where;
	o->where = yval_pos(alt >= 0 && w && w->kind == YV_SEQ && (size_t)alt < w->n ? w->items[alt] : w);
}

/* ---- sources ----------------------------------------------------------------------- */

/* The check an event of an input_sources entry made: its conditions as
 * the matcher checked them, from the recorded event. */
static fd_cond_check input_check(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op)
{
	const fd_graph_index *ix = index_of(r, ev);
	return (fd_cond_check){
		.ctx = r->ctx, .graph = ev->graph, .g = ix->g, .ix = ix, .rule = &r->rules->rules[ev->rule], .op = op,
		.op_index = ev->op, .op_id = event_op_id(r, ev, op), .input = &op->sources[ev->sub], .source_index = ev->sub,
		.unit = ev->unit, .tensor = (int32_t)ev->a, .slot = ev->other, .bound = ev->b, .ev = ev,
	};
}

void describe_input_source(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	fd_cond_check c = input_check(r, ev, op);
	fd_cond_facts f;
	cond_source_check(&c, &f);
	size_t len = strlen(o->check);
	put(o->check + len, sizeof o->check - len, " input%d", c.input->input);
	memcpy(o->expected, f.expected, sizeof o->expected);
	memcpy(o->actual, f.actual, sizeof o->actual);
	if (f.reason_text[0])
		put(o->reason, sizeof o->reason, "%s", f.reason_text);
	o->where = yval_pos(f.decided);
}

void describe_fixed(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	fd_cond_check c = { .ctx = r->ctx, .graph = ev->graph, .g = index_of(r, ev)->g, .ix = index_of(r, ev),
	                    .rule = &r->rules->rules[ev->rule], .op = op, .op_index = ev->op, .unit = ev->unit, .ev = ev };
	fd_cond_facts f;
	cond_position_check(&c, &f);
	put(o->expected, sizeof o->expected, "%s", f.expected);
	put(o->actual, sizeof o->actual, "%s", f.actual);
	if (f.reason_text[0])
		put(o->reason, sizeof o->reason, "%s", f.reason_text);
	o->where = yval_pos(f.decided);
}

/* ---- operand conditions ---------------------------------------------------------------- */

/* An OPERAND event's facts, from the conditions themselves. */
static fd_reason operand_facts(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_cond_facts *f)
{
	fd_cond_check c = input_check(r, ev, op);
	return cond_operand_check(&c, f);
}

void describe_operand(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	const fd_input_source *src = &op->sources[ev->sub];
	fd_cond_facts f;
	operand_facts(r, ev, op, &f);
	size_t len = strlen(o->check);
	put(o->check + len, sizeof o->check - len, " input%d operand", src->input);
	memcpy(o->expected, f.expected, sizeof o->expected);
	memcpy(o->actual, f.actual, sizeof o->actual);
	if (ev->status == ST_FAIL)
		put(o->reason, sizeof o->reason, "%s", f.reason_text);
	o->where = yval_pos(f.decided);
}

/* ---- outputs, where, optional ---------------------------------------------------------- */

void describe_output(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	const fd_graph *g = index_of(r, ev)->g;
	size_t len = strlen(o->check), at = 0;
	put(o->check + len, sizeof o->check - len, " outputs");
	if (op->graph_output >= 0)
		at = buf_printf(o->expected, sizeof o->expected, at, "%s", op->graph_output ? "a graph output" : "not a graph output");
	if (op->min_consumers >= 0 || op->max_consumers >= 0) {
		at = buf_printf(o->expected, sizeof o->expected, at, "%sconsumers ", at ? ", " : "");
		if (op->min_consumers == op->max_consumers)
			at = buf_printf(o->expected, sizeof o->expected, at, "%d", op->min_consumers);
		else if (op->max_consumers < 0)
			at = buf_printf(o->expected, sizeof o->expected, at, ">= %d", op->min_consumers);
		else if (op->min_consumers < 0)
			at = buf_printf(o->expected, sizeof o->expected, at, "<= %d", op->max_consumers);
		else
			at = buf_printf(o->expected, sizeof o->expected, at, "%d..%d", op->min_consumers, op->max_consumers);
	}
	if (ev->b >= 0)
		put(o->actual, sizeof o->actual, "%s is a graph output, %lld consumer%s", tensor_name(g, ev->b),
		    (long long)ev->a, ev->a == 1 ? "" : "s");
	else
		put(o->actual, sizeof o->actual, "not a graph output, %lld consumer%s", (long long)ev->a, ev->a == 1 ? "" : "s");
	const char *key = NULL;
	if (ev->status == ST_FAIL) {
		bool gout_fails = op->graph_output >= 0 && (ev->b >= 0) != (op->graph_output == 1);
		key = gout_fails ? "graph_output" : op->min_consumers >= 0 && ev->a < op->min_consumers ? "min_consumers"
		                                                                                        : "max_consumers";
		put(o->reason, sizeof o->reason, gout_fails ? (op->graph_output ? "the output is not a graph output"
		                                                                : "the output is a graph output")
		                                            : "consumer count outside the range");
	}
	const fd_yval *k = key ? yval_get(op->outputs_where, key) : NULL;
	o->where = yval_pos(k ? k : op->outputs_where);
}

void describe_where(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	size_t len = strlen(o->check);
	put(o->check + len, sizeof o->check - len, " where");
	if (ev->sub < 0 || ev->sub >= op->n_where)
		return;
	const fd_yval *src = op->where_src[ev->sub];
	put(o->expected, sizeof o->expected, "%s", src->text);
	char text[256];
	int v = match_where_eval(r->ctx, ev->graph, ev->unit, event_op_id(r, ev, op), op->where_exprs[ev->sub], text,
	                         sizeof text);
	if (v == 1) {
		put(o->actual, sizeof o->actual, "true");
		put(o->reason, sizeof o->reason, "%s", text);
	} else {
		put(o->actual, sizeof o->actual, "%s", v < 0 ? "undecided" : "false");
		put(o->reason, sizeof o->reason, "%s", text);
	}
	o->where = yval_pos(src);
}

void describe_optional(const fd_match_result *r, const fd_event *ev, const fd_rule_pattern *pat, fd_event_text *o)
{
	const fd_rule_op *op = &pat->ops[ev->op];
	char lab[160];
	size_t len = strlen(o->check);
	put(o->check + len, sizeof o->check - len, " optional");
	explain_unit_label(r->ctx, ev->graph, ev->unit, lab, sizeof lab);
	char types[96];
	types_text(op, types, sizeof types);
	put(o->expected, sizeof o->expected, "%s reading %s, or none", op->n_types > 1 ? types : op->type, lab);
	put(o->actual, sizeof o->actual, "absent");
	put(o->reason, sizeof o->reason, "no candidate fits; the match goes on without op%d", ev->op);
	const fd_yval *k = yval_get(op->where, "optional");
	o->where = yval_pos(k ? k : op->where);
	o->subject[0] = '\0';
}

void absent_ops_text(const fd_match_result *r, const fd_fusion *f, char *buf, size_t size)
{
	const fd_rule *rule = &r->rules->rules[f->rule];
	const fd_rule_pattern *pat = f->branch >= 0 && f->branch < rule->n_branches ? &rule->branches[f->branch] : &rule->match;
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < f->n_ops && i < pat->n_ops; i++)
		if (match_fusion_unit(r, f, i) == FD_NONE)
			at = buf_printf(buf, size, at, "%sop%d %s", at ? ", " : "; absent: ", i, pat->ops[i].type);
}

bool explain_condition_key(const fd_match_result *r, const fd_rule_op *op, const fd_event *ev, char *buf, size_t size)
{
	const fd_input_source *src = ev->sub >= 0 && ev->sub < op->n_sources ? &op->sources[ev->sub] : NULL;
	buf[0] = '\0';
	switch ((fd_event_kind)ev->kind) {
	case EV_OPERAND: {
		if (!src)
			return false;
		fd_cond_facts f;
		operand_facts(r, ev, op, &f);
		put(buf, size, "%s", f.path);
		return true;
	}
	case EV_SOURCE: {
		if (!src)
			return false;
		fd_cond_check c = input_check(r, ev, op);
		fd_cond_facts f;
		cond_source_check(&c, &f);
		put(buf, size, "%s", f.path);
		return true;
	}
	case EV_ORDER: {
		if (ev->reason != REASON_NM14_POSITION)
			return false;
		fd_cond_check c = { .ctx = r->ctx, .graph = ev->graph, .g = index_of(r, ev)->g, .ix = index_of(r, ev),
		                    .rule = &r->rules->rules[ev->rule], .op = op, .op_index = ev->op, .unit = ev->unit, .ev = ev };
		fd_cond_facts f;
		cond_position_check(&c, &f);
		put(buf, size, "%s", f.path);
		return f.path[0] != '\0';
	}
	case EV_OUTPUT:
		put(buf, size, "outputs.%s", op->graph_output >= 0 ? "graph_output"
		                             : op->min_consumers >= 0 ? "min_consumers" : "max_consumers");
		return true;
	case EV_WHERE:
		put(buf, size, "where");
		return true;
	case EV_OPTIONAL:
		put(buf, size, "optional");
		return true;
	default:
		return false;
	}
}
