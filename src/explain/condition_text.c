/* condition_text.c — the checks of the language beyond the seed in words
 * (fusiondbg-rules(5), BEYOND THE SEED): an op's label by the type it
 * matched, an input that is optional or the same tensor as another op's,
 * position: fixed, the operand conditions (rank, shape, static, dtype,
 * value), the optional ops a fusion did without. (An op's type, params,
 * inputs, outputs, where and optional are worded by their entries of the
 * condition list: trace_report.c asks them.) Expected is what the rule
 * writes, actual what the graph has (recomputed), the place the key that
 * decided it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/text.h"
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

void explain_op_label(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, char *buf, size_t size)
{
	int alt = 0;
	if (op->n_types > 1 && ev->unit >= 0)   /* which of the list: the type check's answer */
		alt = match_type_alt(index_of(r, ev), ev->unit, op);
	if (alt >= 0) {
		text_cutf(buf, size, "op%d %s", ev->op, op->types[alt]);
		return;
	}
	text_cutf(buf, size, "op%d", ev->op);   /* none of the list: the expected value lists them */
}

/* The facts of an event of an input entry (SOURCE, OPERAND) or of its
 * order (ORDER): its rows asked with the check the event made. */
static bool input_facts(const fd_match_result *r, const fd_event *ev, fd_cond_facts *f)
{
	fd_cond_check c;
	uint64_t stated;
	if (!cond_event_decode(r->ctx, r->rules, &r->trace, ev, &c, &stated))
		return false;
	cond_check_event((fd_event_kind)ev->kind, stated, &c, f);
	return true;
}

void explain_describe_input_source(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	fd_cond_facts f;
	if (!input_facts(r, ev, &f))
		return;
	size_t len = strlen(o->check);
	text_cutf(o->check + len, sizeof o->check - len, " input%d", op->sources[ev->sub].input);
	memcpy(o->expected, f.expected, sizeof o->expected);
	memcpy(o->actual, f.actual, sizeof o->actual);
	if (f.reason_text[0])
		text_cutf(o->reason, sizeof o->reason, "%s", f.reason_text);
	o->where = yval_pos(f.decided);
}

void explain_describe_order(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	(void)op;
	fd_cond_facts f;
	if (!input_facts(r, ev, &f))
		return;
	text_cutf(o->expected, sizeof o->expected, "%s", f.expected);
	text_cutf(o->actual, sizeof o->actual, "%s", f.actual);
	if (f.reason_text[0])
		text_cutf(o->reason, sizeof o->reason, "%s", f.reason_text);
	if (f.decided)
		o->where = yval_pos(f.decided);
}

/* ---- operand conditions ---------------------------------------------------------------- */

void explain_describe_operand(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	const fd_input_source *src = &op->sources[ev->sub];
	fd_cond_facts f;
	if (!input_facts(r, ev, &f))
		return;
	size_t len = strlen(o->check);
	text_cutf(o->check + len, sizeof o->check - len, " input%d operand", src->input);
	memcpy(o->expected, f.expected, sizeof o->expected);
	memcpy(o->actual, f.actual, sizeof o->actual);
	if (ev->status == ST_FAIL)
		text_cutf(o->reason, sizeof o->reason, "%s", f.reason_text);
	o->where = yval_pos(f.decided);
}

/* ---- fusions ------------------------------------------------------------------------- */

void explain_absent_ops_text(const fd_match_result *r, const fd_fusion *f, char *buf, size_t size)
{
	const fd_rule *rule = &r->rules->rules[f->rule];
	const fd_rule_pattern *pat = f->branch >= 0 && f->branch < rule->n_branches ? &rule->branches[f->branch] : &rule->match;
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < f->n_ops && i < pat->n_ops; i++)
		if (match_fusion_unit(r, f, i) == FD_NONE)
			at = text_appendf(buf, size, at, "%sop%d %s", at ? ", " : "; absent: ", i, pat->ops[i].type);
}

bool explain_input_key(const fd_match_result *r, const fd_rule_op *op, const fd_event *ev, char *buf, size_t size)
{
	const fd_input_source *src = ev->sub >= 0 && ev->sub < op->n_sources ? &op->sources[ev->sub] : NULL;
	buf[0] = '\0';
	fd_cond_facts f;
	switch ((fd_event_kind)ev->kind) {
	case EV_OPERAND:
	case EV_SOURCE:
		if (!src || !input_facts(r, ev, &f))
			return false;
		text_cutf(buf, size, "%s", f.path);
		return true;
	case EV_ORDER:
		if (ev->reason != REASON_NM14_POSITION || !input_facts(r, ev, &f))
			return false;
		text_cutf(buf, size, "%s", f.path);
		return f.path[0] != '\0';
	default:
		return false;
	}
}
