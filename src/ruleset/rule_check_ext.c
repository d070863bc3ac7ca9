/* rule_check_ext.c — `check` for the language beyond the seed
 * (fusiondbg-rules(5), BEYOND THE SEED), once the op types are known:
 *   E a where name that is not a param of every listed type, a tensor used
 *     as a value, a tensor function without a tensor, inputK beyond the
 *     op's inputs; same_as naming the op itself, a later op, an optional op
 *     or an input beyond that op's; value on an activation
 *   W position: fixed on an op that is never swapped, either on one always
 *     swapped; a shape name used
 *     once (it constrains nothing); every op after op 0 optional (a fusion
 *     of op 0 alone); tolerance without value (schema) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ruleset/rule_check_internal.h"
#include "rules/rule_expr.h"

int rule_check_ops_arity(const fd_rule_op *op)
{
	int most = -1;
	for (int t = 0; t < op->n_types; t++) {
		int a = rule_check_op_arity(op->ops[t]);
		if (a < 0)
			return -1;
		if (a > most)
			most = a;
	}
	return most;
}

const char *rule_check_op_types_text(const fd_rule_op *op, char *buf, size_t size)
{
	if (op->n_types <= 1) {
		const fd_op_def *d = optable_get(op->op);
		snprintf(buf, size, "%s", d ? d->name : op->type ? op->type : "?");
		return buf;
	}
	size_t at = (size_t)snprintf(buf, size, "[");
	for (int t = 0; t < op->n_types && at < size; t++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", t ? ", " : "", op->types[t]);
	if (at < size)
		snprintf(buf + at, size - at, "]");
	return buf;
}

/* ---- where ---------------------------------------------------------------------- */

typedef struct where_ctx {
	checker *c;
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
	rule_check_say_at(w->c, DIAG_ERROR, yval_text_pos(w->src, (size_t)e->at), "%s: %s", w->path, msg);
}

static void check_name(where_ctx *w, const fd_expr *e, bool tensor_wanted)
{
	const fd_rule_op *op = w->op;
	if (e->tensor) {
		if (!tensor_wanted) {
			where_error(w, e, "'%s' is a tensor, not a value: write rank(%s), shape(%s), dim(%s, i), dtype(%s), "
			            "value(%s) or consumers(%s)", e->s, e->s, e->s, e->s, e->s, e->s, e->s);
			return;
		}
		int arity = rule_check_ops_arity(op);
		char name[128];
		if (e->tensor == 'i' && arity >= 0 && e->i >= arity)
			where_error(w, e, "%s: %s takes %d input%s (input0%s%.0d)", e->s, rule_check_op_types_text(op, name, sizeof name),
			            arity, arity == 1 ? "" : "s", arity > 1 ? "..input" : "", arity > 1 ? arity - 1 : 0);
		return;
	}
	if (tensor_wanted) {
		where_error(w, e, "'%s' is not a tensor: the function wants input0, input1, …, output0, …", e->s);
		return;
	}
	if (!strcmp(e->s, "rank") || !strcmp(e->s, "op_type") || !strcmp(e->s, "domain") || !strcmp(e->s, "members"))
		return;
	for (int t = 0; t < op->n_types; t++) {
		const fd_param_def *pd = optable_param(op->ops[t], e->s);
		if (pd) {
			if (w->c->opt && w->c->opt->verbose)
				rule_check_say_at(w->c, DIAG_NOTE, yval_text_pos(w->src, (size_t)e->at), "%s: '%s' is %s's param %s (%s%s%s)",
				       w->path, e->s, optable_get(op->ops[t])->name, pd->name,
				       pd->attr ? "attribute " : pd->input >= 0 ? "a constant input" : "derived",
				       pd->attr ? pd->attr : "", pd->default_value ? ", else its default" : "");
			continue;
		}
		const fd_op_def *d = optable_get(op->ops[t]);
		char list[512];
		if (op->n_types > 1 && optable_param(op->ops[t ? 0 : 1], e->s))
			where_error(w, e, "'%s' is a param of %s but not of %s; with a list of types a name must be a param of "
			            "every listed type", e->s, optable_get(op->ops[t ? 0 : 1])->name, d->name);
		else if (d->n_params == 0)
			where_error(w, e, "unknown name '%s': %s has no params (names are the op's params, rank, op_type, domain, "
			            "members, input0, …, output0, …)", e->s, d->name);
		else
			where_error(w, e, "unknown name '%s': %s has no param '%s' (its params: %s; also rank, op_type, domain, members, input0, …)", e->s,
			            d->name, e->s, rule_check_param_list(d, list, sizeof list));
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

/* ---- sources --------------------------------------------------------------------- */

static bool any_commutative(const fd_rule_op *op)
{
	for (int t = 0; t < op->n_types; t++)
		if (optable_get(op->ops[t])->commutative)
			return true;
	return false;
}

static void check_same_as(checker *c, const fd_rule_pattern *pat, int i, const fd_input_source *src,
                          const char *path)
{
	const fd_yval *sa = yval_get(src->where, "same_as");
	const fd_yval *at = yval_get(sa, "op");
	int j = src->same_op;
	if (j >= pat->n_ops)
		ERR(c, at, "%s.input_sources.input%d.same_as.op: %d is out of range (the pattern has ops 0..%d)", path,
		    src->input, j, pat->n_ops - 1);
	else if (j == i)
		ERR(c, at, "%s.input_sources.input%d.same_as.op: %d is this op; same_as names another op's input", path,
		    src->input, j);
	else if (j > i)
		ERR(c, at, "%s.input_sources.input%d.same_as.op: %d does not come before op %d (same_as must name an "
		    "earlier op)", path, src->input, j, i);
	else if (pat->ops[j].optional)
		ERR(c, at, "%s.input_sources.input%d.same_as.op: op %d is optional; same_as must name an op that is always "
		    "present", path, src->input, j);
	else {
		int arity = rule_check_ops_arity(&pat->ops[j]);
		char name[128];
		if (arity >= 0 && src->same_input >= arity)
			ERR(c, yval_get(sa, "input"), "%s.input_sources.input%d.same_as.input: %s (op %d) takes %d input%s", path,
			    src->input, rule_check_op_types_text(&pat->ops[j], name, sizeof name), j, arity, arity == 1 ? "" : "s");
	}
}

void rule_check_op_ext(checker *c, const fd_rule_pattern *pat, int i, const char *path)
{
	const fd_rule_op *op = &pat->ops[i];
	char name[128];
	bool all_optional = pat->n_ops > 1;
	for (int k = 1; k < pat->n_ops; k++)
		all_optional &= pat->ops[k].optional;
	if (i == pat->n_ops - 1 && all_optional)
		WARN(c, yval_get(op->where, "optional"), "%s.optional: every op after op 0 is optional, so the rule fuses op 0 "
		     "alone where none of them is there", path);
	for (int w = 0; w < op->n_where; w++) {
		char p[200];
		const fd_yval *wv = yval_get(op->where, "where");
		if (wv && wv->kind == YV_SEQ)
			snprintf(p, sizeof p, "%s.where[%d]", path, w);
		else
			snprintf(p, sizeof p, "%s.where", path);
		where_ctx ctx = { c, op, op->where_src[w], p };
		check_expr(&ctx, op->where_exprs[w], false, 0);
	}
	for (int s = 0; s < op->n_sources; s++) {
		const fd_input_source *src = &op->sources[s];
		if (src->same_op >= 0)
			check_same_as(c, pat, i, src, path);
		if (src->fixed && !any_commutative(op))
			WARN(c, yval_get(src->where, "position"), "%s.input_sources.input%d.position: fixed has no effect: %s is "
			     "not commutative (its inputs are never tried swapped)", path, src->input,
			     rule_check_op_types_text(op, name, sizeof name));
		if (src->either && any_commutative(op))
			WARN(c, yval_get(src->where, "position"), "%s.input_sources.input%d.position: either has no effect: %s is "
			     "commutative (its inputs are tried in both orders anyway)", path, src->input,
			     rule_check_op_types_text(op, name, sizeof name));
		if (src->n_values && src->source_type == SRC_ACTIVATION)
			ERR(c, yval_get(src->where, "value"), "%s.input_sources.input%d.value: can never hold: source_type "
			    "activation is not a constant", path, src->input);
	}
}

/* ---- shape names ------------------------------------------------------------------ */

typedef struct name_use {
	int count;
	const fd_yval *first;
} name_use;

/* A name's uses: over the operands, the most times one of an operand's
 * shapes names it ([[C], [1, C]] is one use; [N, N] two). */
static void count_pattern(const fd_rule *r, const fd_rule_pattern *pat, name_use *uses)
{
	int here[r->n_dimvars];
	for (int i = 0; i < pat->n_ops; i++)
		for (int s = 0; s < pat->ops[i].n_sources; s++) {
			const fd_input_source *src = &pat->ops[i].sources[s];
			memset(here, 0, sizeof here);
			for (int p = 0; p < src->n_shapes; p++) {
				const fd_shape_pattern *sp = &src->shapes[p];
				int in_this[r->n_dimvars];
				memset(in_this, 0, sizeof in_this);
				for (int k = 0; k < sp->n_dims; k++) {
					int v = sp->dims[k].var;
					if (sp->dims[k].kind != SDIM_VAR || v < 0 || v >= r->n_dimvars)
						continue;
					if (!uses[v].first)
						uses[v].first = sp->where && sp->where->kind == YV_SEQ && (size_t)k < sp->where->n
						                    ? sp->where->items[k] : sp->where;
					if (++in_this[v] > here[v])
						here[v] = in_this[v];
				}
			}
			for (int v = 0; v < r->n_dimvars; v++)
				uses[v].count += here[v];
		}
}

void rule_check_dimvars(checker *c, const fd_rule *r)
{
	if (!r->n_dimvars)
		return;
	name_use uses[r->n_dimvars];
	memset(uses, 0, sizeof uses);
	if (r->match.n_ops)
		count_pattern(r, &r->match, uses);
	for (int b = 0; b < r->n_branches; b++)
		count_pattern(r, &r->branches[b], uses);
	for (int v = 0; v < r->n_dimvars; v++)
		if (uses[v].count == 1 && uses[v].first)
			WARN(c, uses[v].first, "shape name '%s' is used only here, so it constrains nothing (write _ for any dim, "
			     "or use %s again where a dim must be the same)", r->dimvars[v], r->dimvars[v]);
}
