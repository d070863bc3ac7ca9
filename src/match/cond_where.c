/* cond_where.c — an op's where expressions (match.ops[i].where: one, or a
 * list that must all hold): reading them (an error at the character where
 * the text does not parse, or where its constant part can never be
 * computed), deciding each on the unit (match_where.c evaluates: false or
 * undecided is FD-NM16, cannot be evaluated FD-NM18), and their words. */
#include <string.h>
#include "match/conditions.h"
#include <stdio.h>
#include "base/text.h"
#include "match/cond_text.h"
#include "rules/rule_expr.h"
#include <stdarg.h>
#include "rules/optable.h"
#include "match/match_internal.h"

/* The first opJ.NAME of e that names op index or a later one (NULL when
 * none does); *mask gets the earlier ops e reads. */
static const fd_expr *later_op_ref(const fd_expr *e, int index, uint64_t *mask, int depth)
{
	if (!e || depth > FD_EXPR_MAX_DEPTH)
		return NULL;
	if (e->kind == EX_NAME && e->op_ref >= 0) {
		if (e->op_ref >= index)
			return e;
		*mask |= 1ull << e->op_ref;
	}
	for (int k = 0; k < e->n; k++) {
		const fd_expr *bad = later_op_ref(e->args[k], index, mask, depth + 1);
		if (bad)
			return bad;
	}
	return NULL;
}

bool cond_where_parse(fd_schema *s, fd_cond_site *at, const fd_yval *w, const char *p)
{
	fd_rule_op *op = at->op;
	char b[128];
	int before = s->errors;
	at->states = false;   /* where: null states nothing */
	if (yval_is_null(w))
		return true;
	const fd_yval *one = w;
	size_t n = w->kind == YV_SEQ ? w->n : 1;
	if (w->kind == YV_SEQ && !schema_count(s, w, p, FD_RULE_MAX_ITEMS, "expressions"))
		return false;
	if (w->kind == YV_SEQ && n == 0) {
		ERR(s, w, "%s: the list of expressions is empty", p);
		return false;
	}
	op->where_exprs = arena_array(&s->rs->arena, n, sizeof *op->where_exprs);
	op->where_src = arena_array(&s->rs->arena, n, sizeof *op->where_src);
	for (size_t i = 0; i < n; i++) {
		const fd_yval *v = w->kind == YV_SEQ ? w->items[i] : one;
		char q[300];
		if (w->kind == YV_SEQ)
			snprintf(q, sizeof q, "%.200s[%zu]", p, i);
		else
			snprintf(q, sizeof q, "%s", p);
		if (v->kind != YV_SCALAR) {
			ERR(s, v, "%s: expected an expression (a string), got %s", q, schema_describe(v, b, sizeof b));
			continue;
		}
		size_t at_char = 0;
		char err[200];
		fd_expr *e = expr_parse(&s->rs->arena, v->text, &at_char, err, sizeof err);
		if (!e) {
			schema_say_at(s, yval_text_pos(v, at_char), "%s: %s", q, err);
			continue;
		}
		if (match_where_constant_fault(e, &at_char, err, sizeof err)) {
			schema_say_at(s, yval_text_pos(v, at_char), "%s: %s (a constant part: the same on every node)", q, err);
			continue;
		}
		uint64_t reads = 0;
		const fd_expr *bad = later_op_ref(e, at->index, &reads, 0);
		if (bad) {
			int len;
			const char *t = expr_text(bad, &len);
			if (at->index == 0)
				schema_say_at(s, yval_text_pos(v, (size_t)bad->at), "%s: %.*s: op0's where has no earlier op to read "
				              "(an op reads the ops before it, matched by then)", q, len, t);
			else
				schema_say_at(s, yval_text_pos(v, (size_t)bad->at), "%s: %.*s: op%d is not an earlier op (op%d's where "
				              "reads op0..op%d, matched by then)", q, len, t, bad->op_ref, at->index, at->index - 1);
			continue;
		}
		op->where_ops |= reads;
		op->where_exprs[op->n_where] = e;
		op->where_src[op->n_where++] = v;
	}
	at->states = op->n_where > 0;
	return s->errors == before;
}

/* Expression c->sub as written. */
void cond_where_describe(const fd_cond_check *c, char *buf, size_t size)
{
	buf[0] = '\0';
	if (c->sub >= 0 && c->sub < c->op->n_where)
		text_cut(buf, size, c->op->where_src[c->sub]->text);
}

/* The ops before c's, for opJ.NAME: in a run the units bound on the
 * search's path, explaining those the event recorded (none when it did not:
 * the names are then undecided). NULL when no expression reads one. */
static const fd_where_ops *earlier_ops(const fd_cond_check *c, fd_where_ops *ops, int32_t *units, int *ids)
{
	if (!c->op->where_ops)
		return NULL;
	int n = c->op_index < MATCH_MAX_OPS ? c->op_index : 0;
	if (c->run) {
		const match_run_state *s = c->run;
		for (int j = 0; j < n; j++) {
			const fd_rule_op *oj = &s->pat->ops[j];
			int alt = s->type_alt[j];
			units[j] = s->units[j];
			ids[j] = alt >= 0 && alt < oj->n_types ? oj->ops[alt] : oj->op;
		}
	} else if (c->where_path && c->n_where_path == 2 * n) {
		for (int j = 0; j < n; j++) {
			units[j] = c->where_path[j];
			ids[j] = c->where_path[n + j];
		}
	} else {
		n = 0;
	}
	*ops = (fd_where_ops){ .units = units, .op_ids = ids, .n = n };
	return ops;
}

/* A run's events of an op reading earlier ops record their units and op
 * ids, for the words of opJ.NAME: the path's offset and length. */
static void record_path(fd_cond_check *c)
{
	match_run_state *s = c->run;
	int i = c->op_index;
	c->payload.where.path_at = c->payload.where.n_path = 0;
	if (!c->op->where_ops || i <= 0 || s->opt->no_events)
		return;
	int32_t path[2 * MATCH_MAX_OPS];
	for (int j = 0; j < i; j++) {
		const fd_rule_op *oj = &s->pat->ops[j];
		int alt = s->type_alt[j];
		path[j] = s->units[j];
		path[i + j] = alt >= 0 && alt < oj->n_types ? oj->ops[alt] : oj->op;
	}
	c->payload.where.n_path = 2 * i;
	c->payload.where.path_at = s->sink.path(s->sink.ctx, path, (uint32_t)c->payload.where.n_path);
}

/* In a run every expression in order, c->sub the first that does not hold
 * (n_where when all do); explaining, expression c->sub (the event's), with
 * the values it read. */
fd_reason cond_where_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	int from = c->run ? 0 : c->sub, to = c->run ? op->n_where : c->sub + 1;
	if (facts)
		cond_facts_clear(facts);
	int32_t units[MATCH_MAX_OPS];
	int ids[MATCH_MAX_OPS];
	fd_where_ops ops;
	const fd_where_ops *earlier = earlier_ops(c, &ops, units, ids);
	if (c->run)
		record_path(c);
	for (int w = from < 0 ? 0 : from; w < to && w < op->n_where; w++) {
		char text[256];
		int32_t fault_at = -1;
		int v = match_where_eval(c->ctx, c->graph, c->unit, c->op_id, earlier, op->where_exprs[w], facts ? text : NULL,
		                         facts ? sizeof text : 0, &fault_at);
		fd_reason r = v == 1 ? REASON_NONE : v == -2 ? REASON_NM18_WHERE_EVAL : REASON_NM16_WHERE;
		if (facts) {
			c->sub = w;
			facts->reason = r;
			facts->decided = op->where_src[w];
			facts->decided_at = fault_at;
			snprintf(facts->path, sizeof facts->path, "where");
			cond_where_describe(c, facts->expected, sizeof facts->expected);
			const char *src = op->where_src[w]->text;
			/* an expression reading shapes says whose decided: ONNX's inference */
			bool onnx = c->ctx && c->ctx->model && c->ctx->model->shapes_onnx && src
			            && (strstr(src, "rank") || strstr(src, "shape(") || strstr(src, "dim("));
			text_cutf(facts->actual, sizeof facts->actual, "%s%s",
			          v == 1 ? "true" : v == -2 ? "not evaluated" : v < 0 ? "undecided" : "false",
			          onnx ? " (shapes: onnx)" : "");
			text_cut(facts->reason_text, sizeof facts->reason_text, text);
		}
		if (r) {
			c->sub = c->held = w;
			return r;
		}
	}
	c->sub = c->held = to;
	return REASON_NONE;
}

/* ---- lint ---------------------------------------------------------------------- */

typedef struct where_ctx {
	const fd_cond_lint *l;
	const fd_rule_op *op;
	const fd_yval *src;    /* the expression's scalar */
	const char *path;
} where_ctx;

static void where_error(where_ctx *w, const fd_expr *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void where_error(where_ctx *w, const fd_expr *e, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cond_lint_say_at(w->l, DIAG_ERROR, yval_text_pos(w->src, (size_t)e->at), "%s: %s", w->path, msg);
}

static void check_name(where_ctx *w, const fd_expr *e, bool tensor_wanted)
{
	/* opJ.NAME: a name of op J, shown as written */
	const fd_rule_pattern *pat = w->l->pat;
	const fd_rule_op *op = e->op_ref >= 0 && pat && e->op_ref < pat->n_ops ? &pat->ops[e->op_ref] : w->op;
	char nm[64];
	if (e->op_ref >= 0)
		snprintf(nm, sizeof nm, "op%d.%.40s", e->op_ref, e->s);
	else
		snprintf(nm, sizeof nm, "%.60s", e->s);
	if (e->tensor) {
		if (!tensor_wanted) {
			where_error(w, e, "'%s' is a tensor, not a value: write rank(%s), shape(%s), dim(%s, i), dtype(%s), "
			            "value(%s), consumers(%s), readers(%s), producer(%s) or qmin(%s)",
			            nm, nm, nm, nm, nm, nm, nm, nm, nm, nm);
			return;
		}
		int arity = cond_op_max_inputs(op);
		char name[128];
		if (e->tensor == 'i' && arity >= 0 && e->i >= arity)
			where_error(w, e, "%s: %s takes %d input%s (input0%s%.0d)", nm, cond_op_types_name(op, name, sizeof name),
			            arity, arity == 1 ? "" : "s", arity > 1 ? "..input" : "", arity > 1 ? arity - 1 : 0);
		return;
	}
	if (tensor_wanted) {
		where_error(w, e, "'%s' is not a tensor: the function wants input0, input1, …, output0, …", nm);
		return;
	}
	if (!strcmp(e->s, "rank") || !strcmp(e->s, "op_type") || !strcmp(e->s, "domain") || !strcmp(e->s, "members") ||
	    !strcmp(e->s, "recogniser") ||
	    !strcmp(e->s, "opset") || !strcmp(e->s, "since_version"))
		return;
	for (int t = 0; t < op->n_types; t++) {
		const fd_param_def *pd = optable_param(op->ops[t], e->s);
		if (pd) {
			cond_lint_say_at(w->l, DIAG_NOTE, yval_text_pos(w->src, (size_t)e->at), "%s: '%s' is %s's param %s (%s%s%s)",
				       w->path, nm, optable_get(op->ops[t])->name, pd->name,
				       pd->attr ? "attribute " : pd->input >= 0 ? "a constant input" : "derived",
				       pd->attr ? pd->attr : "", pd->default_value ? ", else its default" : "");
			continue;
		}
		const fd_op_def *d = optable_get(op->ops[t]);
		char list[512];
		if (op->n_types > 1 && optable_param(op->ops[t ? 0 : 1], e->s))
			where_error(w, e, "'%s' is a param of %s but not of %s; with a list of types a name must be a param of "
			            "every listed type", nm, optable_get(op->ops[t ? 0 : 1])->name, d->name);
		else if (d->n_params == 0)
			where_error(w, e, "unknown name '%s': %s has no params (names are the op's params, rank, op_type, domain, "
			            "members, input0, …, output0, …)", nm, d->name);
		else
			where_error(w, e, "unknown name '%s': %s has no param '%s' (its params: %s; also rank, op_type, domain, members, input0, …)", nm,
			            d->name, e->s, optable_param_list(d, list, sizeof list));
		return;
	}
}

static void check_expr(where_ctx *w, const fd_expr *e, bool tensor_wanted, int depth)
{
	if (!e || depth > FD_EXPR_MAX_DEPTH)
		return;
	if (e->kind == EX_NAME) {
		check_name(w, e, tensor_wanted);
		return;
	}
	if (tensor_wanted) {
		int len;
		const char *t = expr_text(e, &len);
		where_error(w, e, "'%.*s' is not a tensor: the function wants input0, input1, …, output0, …", len, t);
		return;
	}
	bool tensor_first = false;
	if (e->kind == EX_CALL) {
		const fd_expr_func_def *f = expr_func(expr_func_lookup(e->s));
		tensor_first = f && f->tensor_arg;
	}
	for (int k = 0; k < e->n; k++)
		check_expr(w, e->args[k], tensor_first && k == 0, depth + 1);
}

/* Names a where expression reads: the op's params (of every listed type),
 * tensors where a function wants one, inputs the op has. */
void cond_where_lint(const fd_cond_lint *l)
{
	const fd_rule_op *op = &l->pat->ops[l->op_index];
	for (int w = 0; w < op->n_where; w++) {
		char p[200];
		const fd_yval *wv = yval_get(op->where, "where");
		if (wv && wv->kind == YV_SEQ)
			snprintf(p, sizeof p, "%s.where[%d]", l->path, w);
		else
			snprintf(p, sizeof p, "%s.where", l->path);
		where_ctx ctx = { l, op, op->where_src[w], p };
		check_expr(&ctx, op->where_exprs[w], false, 0);
	}
}
