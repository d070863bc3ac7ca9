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
#include "ruleset/ruleset.h"
#include "base/strbuf.h"
#include "explain/explain_internal.h"
#include "ir/dtype.h"
#include "rules/optable.h"
#include "match/conditions.h"

static const fd_graph_index *index_of(const fd_match_result *r, const fd_event *ev)
{
	return &r->ctx->graphs[ev->graph];
}

void op_label(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, char *buf, size_t size)
{
	int alt = 0;
	if (op->n_types > 1 && ev->unit >= 0) {   /* which of the list: the type check's answer */
		const fd_graph_index *ix = index_of(r, ev);
		fd_cond_check c = { .ctx = r->ctx, .graph = ev->graph, .g = ix->g, .ix = ix, .op = op, .op_index = ev->op,
		                    .unit = ev->unit, .ev = ev };
		cond_type_check(&c, NULL);
		alt = c.sub;
	}
	if (alt >= 0) {
		put(buf, size, "op%d %s", ev->op, op->types[alt]);
		return;
	}
	put(buf, size, "op%d", ev->op);   /* none of the list: the expected value lists them */
}

/* ---- sources ----------------------------------------------------------------------- */

bool describe_source_ext(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op,
                         const fd_input_source *src, fd_event_text *o)
{
	(void)op;
	if (!src->optional && src->same_op < 0)
		return false;
	const fd_graph *g = index_of(r, ev)->g;
	size_t len = strlen(o->check), at = 0;
	put(o->check + len, sizeof o->check - len, " input%d", src->input);
	if (src->from_op >= 0)
		at = buf_printf(o->expected, sizeof o->expected, at, "from op%d", src->from_op);
	if (src->source_type != SRC_UNSET)
		at = buf_printf(o->expected, sizeof o->expected, at, "%ssource_type %s", at ? ", " : "", source_type_name(src->source_type));
	if (src->same_op >= 0)
		at = buf_printf(o->expected, sizeof o->expected, at, "%sthe tensor op%d reads at input%d", at ? ", " : "", src->same_op,
		    src->same_input);
	if (src->optional)
		at = buf_printf(o->expected, sizeof o->expected, at, "%s", at ? ", when present" : "any, when present");
	char origin[160];
	if (ev->a < 0) {
		put(o->actual, sizeof o->actual, "absent");
		if (ev->status == ST_PASS)
			put(o->reason, sizeof o->reason, "optional input, absent");
	} else {
		tensor_origin(r, ev->graph, ev->a, origin, sizeof origin);
		if (ev->b != src->input)
			put(o->actual, sizeof o->actual, "%s (slot %lld, inputs swapped)", origin, (long long)ev->b);
		else
			put(o->actual, sizeof o->actual, "%s", origin);
	}
	if (ev->status == ST_FAIL) {
		if (ev->reason == REASON_NM12_SAME_AS)
			put(o->reason, sizeof o->reason, ev->other >= 0 ? "op%d reads %s there, another tensor" :
			    "op%d has no such input", src->same_op, tensor_name(g, ev->other));
		else if (ev->reason == REASON_NM13_OPTIONAL_INPUT)
			put(o->reason, sizeof o->reason, "input%d is present, and then must be as the rule says", src->input);
		else
			put(o->reason, sizeof o->reason, ev->a < 0 ? "the node has no input%d" : "input%d comes from elsewhere",
			    src->input);
	}
	const fd_yval *k = src->same_op >= 0 && ev->reason == REASON_NM12_SAME_AS ? yval_get(src->where, "same_as") : NULL;
	o->where = yval_pos(k ? k : src->where);
	return true;
}

void describe_fixed(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	(void)r;
	const fd_input_source *fixed = NULL;
	for (int k = 0; k < op->n_sources && !fixed; k++)
		if (op->sources[k].fixed)
			fixed = &op->sources[k];
	put(o->expected, sizeof o->expected, "the inputs in the order written (position: fixed)");
	put(o->actual, sizeof o->actual, "they fit only swapped");
	if (fixed)
		put(o->reason, sizeof o->reason, "what the rule wants at input%d is at input%d; position: fixed does not "
		    "try the swap", fixed->input, fixed->input < 2 ? fixed->input ^ 1 : fixed->input);
	o->where = yval_pos(fixed ? yval_get(fixed->where, "position") : op->where);
}

/* ---- operand conditions ---------------------------------------------------------------- */

static void pattern_text(const fd_rule *rule, const fd_shape_pattern *sp, char *buf, size_t size, size_t *at)
{
	if (sp->scalar) {
		*at = buf_printf(buf, size, *at, "scalar");
		return;
	}
	*at = buf_printf(buf, size, *at, "[");
	for (int k = 0; k < sp->n_dims; k++) {
		const fd_sdim *d = &sp->dims[k];
		const char *sep = k ? ", " : "";
		switch (d->kind) {
		case SDIM_EXACT: *at = buf_printf(buf, size, *at, "%s%lld", sep, (long long)d->value); break;
		case SDIM_ANY: *at = buf_printf(buf, size, *at, "%s_", sep); break;
		case SDIM_REST: *at = buf_printf(buf, size, *at, "%s...", sep); break;
		case SDIM_VAR: *at = buf_printf(buf, size, *at, "%s%s", sep, d->var < rule->n_dimvars ? rule->dimvars[d->var] : "?"); break;
		}
	}
	*at = buf_printf(buf, size, *at, "]");
}

/* The key of the condition a code is about. */
static const char *condition_key(fd_reason why)
{
	switch (why) {
	case REASON_NM08_RANK: return "rank";
	case REASON_NM09_SHAPE: return "shape";
	case REASON_NM10_STATIC: return "static";
	case REASON_NM11_DTYPE: return "dtype";
	case REASON_NM17_VALUE: return "value";
	default: return NULL;
	}
}

static void expected_text(const fd_match_result *r, const fd_event *ev, const fd_input_source *src, char *buf,
                          size_t size)
{
	const fd_rule *rule = &r->rules->rules[ev->rule];
	size_t at = 0;
	buf[0] = '\0';
	if (src->n_ranks) {
		at = buf_printf(buf, size, at, "rank ");
		for (int k = 0; k < src->n_ranks; k++)
			at = buf_printf(buf, size, at, "%s%d", k ? " | " : "", src->ranks[k]);
	}
	if (src->n_shapes) {
		at = buf_printf(buf, size, at, "%sshape ", at ? ", " : "");
		for (int p = 0; p < src->n_shapes; p++) {
			if (p)
				at = buf_printf(buf, size, at, " | ");
			pattern_text(rule, &src->shapes[p], buf, size, &at);
		}
		int32_t t;
		int var, dim;
		if (match_bound_unpack(ev->b, &t, &var, &dim)) {
			const fd_graph *g = index_of(r, ev)->g;
			char d[64];
			at = buf_printf(buf, size, at, " with %s = %s (dim %d of %s)", var < rule->n_dimvars ? rule->dimvars[var] : "?",
			    match_dim_text(match_dim(&g->tensors[t].shape, dim), d, sizeof d), dim, tensor_name(g, t));
		}
	}
	if (src->is_static >= 0)
		at = buf_printf(buf, size, at, "%s%s", at ? ", " : "", src->is_static ? "static dims" : "a dynamic dim");
	if (src->n_dtypes) {
		at = buf_printf(buf, size, at, "%sdtype ", at ? ", " : "");
		for (int k = 0; k < src->n_dtypes; k++)
			at = buf_printf(buf, size, at, "%s%s", k ? " | " : "", dtype_name(src->dtypes[k]));
	}
	if (src->n_values) {
		at = buf_printf(buf, size, at, "%svalue ", at ? ", " : "");
		for (int k = 0; k < src->n_values && k < 8; k++)
			at = buf_printf(buf, size, at, "%s%.9g", k ? ", " : "", src->values[k]);
		at = buf_printf(buf, size, at, " (±%g)", src->tolerance);
	}
}

static void actual_text(const fd_match_result *r, const fd_event *ev, const fd_input_source *src, char *buf,
                        size_t size)
{
	const fd_graph *g = index_of(r, ev)->g;
	const fd_tensor *x = &g->tensors[ev->a];
	char sh[96];
	size_t at = 0;
	buf[0] = '\0';
	at = buf_printf(buf, size, at, "%s", x->name);
	if (src->n_ranks || src->n_shapes || src->is_static >= 0) {
		if (x->shape.rank < 0)
			at = buf_printf(buf, size, at, " shape unknown");
		else
			at = buf_printf(buf, size, at, " rank %d [%s]%s", x->shape.rank, shape_format(&x->shape, sh, sizeof sh),
			    src->is_static >= 0 ? (match_shape_static(&x->shape) ? " static" : " dynamic") : "");
	}
	if (src->n_dtypes)
		at = buf_printf(buf, size, at, " %s", dtype_name(x->dtype));
	if (src->n_values) {
		const fd_const *c = x->value;
		if (!c || (!c->i64 && !c->f64)) {
			at = buf_printf(buf, size, at, " value not known");
		} else {
			at = buf_printf(buf, size, at, " value ");
			for (int64_t k = 0; k < c->count && k < 8; k++)
				at = buf_printf(buf, size, at, "%s%.9g", k ? ", " : "", c->f64 ? c->f64[k] : (double)c->i64[k]);
			if (c->count > 8)
				at = buf_printf(buf, size, at, ", … (%lld values)", (long long)c->count);
		}
	}
}

void describe_operand(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	const fd_input_source *src = &op->sources[ev->sub];
	size_t len = strlen(o->check);
	put(o->check + len, sizeof o->check - len, " input%d operand", src->input);
	expected_text(r, ev, src, o->expected, sizeof o->expected);
	actual_text(r, ev, src, o->actual, sizeof o->actual);
	if (ev->other != src->input && ev->other >= 0 && ev->other < 2) {
		len = strlen(o->actual);
		put(o->actual + len, sizeof o->actual - len, " (slot %d, inputs swapped)", ev->other);
	}
	const char *key = condition_key((fd_reason)ev->reason);
	if (ev->status == ST_FAIL) {
		const fd_reason_def *d = reason_get((fd_reason)ev->reason);
		put(o->reason, sizeof o->reason, "%s", d ? d->summary : "operand condition failed");
	}
	const fd_yval *k = key ? yval_get(src->where, key) : NULL;
	o->where = yval_pos(k ? k : src->where);
}

/* ---- fusions ------------------------------------------------------------------------- */

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

static const char *first_operand_key(const fd_input_source *src)
{
	return src->n_ranks ? "rank" : src->n_shapes ? "shape" : src->is_static >= 0 ? "static"
	     : src->n_dtypes ? "dtype" : "value";
}

bool explain_condition_key(const fd_rule_op *op, const fd_event *ev, char *buf, size_t size)
{
	const fd_input_source *src = ev->sub >= 0 && ev->sub < op->n_sources ? &op->sources[ev->sub] : NULL;
	buf[0] = '\0';
	switch ((fd_event_kind)ev->kind) {
	case EV_OPERAND: {
		if (!src)
			return false;
		const char *key = condition_key((fd_reason)ev->reason);
		put(buf, size, "input_sources.input%d.%s", src->input, key ? key : first_operand_key(src));
		return true;
	}
	case EV_SOURCE:
		if (!src)
			return false;
		put(buf, size, "input_sources.input%d.%s", src->input,
		    ev->reason == REASON_NM12_SAME_AS || (src->same_op >= 0 && src->from_op < 0 && src->source_type == SRC_UNSET)
		        ? "same_as" : src->from_op >= 0 ? "from_op" : src->source_type != SRC_UNSET ? "source_type"
		        : src->optional ? "optional" : "position");
		return true;
	case EV_ORDER:
		for (int k = 0; k < op->n_sources && ev->reason == REASON_NM14_POSITION; k++)
			if (op->sources[k].fixed) {
				put(buf, size, "input_sources.input%d.position", op->sources[k].input);
				return true;
			}
		return false;
	default:
		return false;
	}
}
