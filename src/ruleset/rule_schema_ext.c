/* rule_schema_ext.c — the schema of the language beyond the seed
 * (fusiondbg-rules(5), BEYOND THE SEED): op type alternatives, optional ops,
 * output conditions, `where` expressions, and the operand conditions of an
 * inputK map (optional, position, same_as, rank, shape, static, dtype,
 * value). Each reads its key into the typed op or source and reports what is
 * wrong at the value, with file:line:col — inside an expression, at the
 * character where it goes wrong. Whether a name or a param exists for the
 * op is `check`'s (rule_check_ext.c). */
#include <stdio.h>
#include <string.h>
#include "ir/dtype.h"
#include "rules/optable.h"
#include "rules/rule_expr.h"
#include "match/conditions.h"
#include "ruleset/rule_schema_internal.h"

/* ---- op type ---------------------------------------------------------------- */

/* An op type's id: the op table's, else a fused op type the set already
 * knows (a what-if's rule derived again; ruleset_resolve_types settles every
 * op after a load), else -1. */
static int type_id(const fd_schema *s, const char *type)
{
	int id = optable_lookup(type);
	for (int k = 0; id < 0 && k < s->rs->n_fused_types; k++)
		if (!strcmp(s->rs->fused_types[k], type))
			id = optable_count() + k;
	return id;
}

void parse_op_type(fd_schema *s, fd_rule_op *op, const fd_yval *type, const char *path)
{
	char p[256], b[128];
	snprintf(p, sizeof p, "%.200s.type", path);
	op->type_where = type;
	if (type->kind == YV_SCALAR) {
		op->type = type->text;
		op->op = type_id(s, op->type);
		op->n_types = 1;
		op->types = &op->type;
		op->ops = &op->op;
		if (!*op->type)
			ERR(s, type, "%s: must not be empty", p);
		return;
	}
	if (type->kind != YV_SEQ) {
		ERR(s, type, "%s: expected an op type or a list of op types, got %s", p, schema_describe(type, b, sizeof b));
		return;
	}
	if (type->n == 0) {
		ERR(s, type, "%s: the list of op types is empty", p);
		return;
	}
	op->types = arena_array(&s->rs->arena, type->n, sizeof *op->types);
	op->ops = arena_array(&s->rs->arena, type->n, sizeof *op->ops);
	for (size_t i = 0; i < type->n; i++) {
		const fd_yval *t = type->items[i];
		char q[300];
		snprintf(q, sizeof q, "%.200s[%zu]", p, i);
		if (t->kind != YV_SCALAR || !*t->text) {
			ERR(s, t, "%s: expected an op type, got %s", q, schema_describe(t, b, sizeof b));
			continue;
		}
		for (int j = 0; j < op->n_types; j++)
			if (!strcmp(op->types[j], t->text))
				ERR(s, t, "%s: '%s' is listed twice", q, t->text);
		op->types[op->n_types] = t->text;
		op->ops[op->n_types++] = type_id(s, t->text);
	}
	if (op->n_types) {
		op->type = op->types[0];
		op->op = op->ops[0];
	}
}

/* ---- the op's extensions ------------------------------------------------------ */

static void parse_where(fd_schema *s, fd_rule_op *op, const fd_yval *w, const char *path)
{
	char p[256], b[128];
	snprintf(p, sizeof p, "%.200s.where", path);
	const fd_yval *one = w;
	size_t n = w->kind == YV_SEQ ? w->n : 1;
	if (w->kind == YV_SEQ && !schema_count(s, w, p, FD_RULE_MAX_ITEMS, "expressions"))
		return;
	if (w->kind == YV_SEQ && n == 0) {
		ERR(s, w, "%s: the list of expressions is empty", p);
		return;
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
		size_t at = 0;
		char err[200];
		fd_expr *e = expr_parse(&s->rs->arena, v->text, &at, err, sizeof err);
		if (!e) {
			schema_say_at(s, yval_text_pos(v, at), "%s: %s", q, err);
			continue;
		}
		op->where_exprs[op->n_where] = e;
		op->where_src[op->n_where++] = v;
	}
}

static void parse_outputs(fd_schema *s, fd_rule_op *op, const fd_yval *v, const char *path)
{
	char p[256], q[320];
	snprintf(p, sizeof p, "%.200s.outputs", path);
	if (!schema_kind(s, v, YV_MAP, p))
		return;
	rule_schema_unknown_keys(s, v, p, "match.ops.#.outputs");
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
}

void parse_op_ext(fd_schema *s, fd_rule_op *op, const fd_yval *v, const char *path)
{
	char p[256];
	const fd_yval *f;
	if ((f = yval_get(v, "optional"))) {
		snprintf(p, sizeof p, "%.200s.optional", path);
		schema_bool(s, f, p, &op->optional);
	}
	if ((f = yval_get(v, "outputs")))
		parse_outputs(s, op, f, path);
	if ((f = yval_get(v, "where")) && !yval_is_null(f))
		parse_where(s, op, f, path);
	op->has_op_conditions = op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0 || op->n_where;
	for (int k = 0; k < op->n_types; k++) {
		const fd_op_def *def = optable_get(op->ops[k]);
		if (def && def->composite != COMPOSITE_NONE)
			op->composite_mask |= 1u << def->composite;
	}
}

/* ---- an input's conditions -------------------------------------------------- */

/* Each condition of an input written in the inputK map src, by its entry
 * of the list (match/conditions.h), in the list's order. */
bool parse_source_conditions(fd_schema *s, fd_rule_op *op, fd_input_source *is, const fd_yval *src, const char *path,
                             int index, int n_ops)
{
	static const struct { const char *key; bool (*parse)(fd_schema *, fd_cond_site *, const fd_yval *, const char *); }
	entries[] = {
#define INPUT_ENTRY(id, scope, key, event, reason, fn) IF_INPUT_##scope(key, fn##_parse)
#define IF_INPUT_INPUT(key, parse) { key, parse },
#define IF_INPUT_OP(key, parse)
#define IF_INPUT_OP_EXT(key, parse)
#define IF_INPUT_CONSTRAINT(key, parse)
		FD_CONDITIONS(INPUT_ENTRY)
#undef INPUT_ENTRY
#undef IF_INPUT_INPUT
#undef IF_INPUT_OP
#undef IF_INPUT_OP_EXT
#undef IF_INPUT_CONSTRAINT
	};
	fd_cond_site at = { .op = op, .index = index, .n_ops = n_ops, .input = is, .map = src };
	bool ok = true;
	for (size_t e = 0; e < sizeof entries / sizeof *entries; e++) {
		const fd_yval *v = yval_get(src, entries[e].key);
		if (!v)
			continue;
		char q[320];
		snprintf(q, sizeof q, "%.200s.%s", path, entries[e].key);
		ok &= entries[e].parse(s, &at, v, q);
		/* a map's own keys (same_as: {op, input}) are the format's */
		if (v->kind == YV_MAP) {
			char section[96];
			snprintf(section, sizeof section, "match.ops.#.input_sources.*.%s", entries[e].key);
			rule_schema_unknown_keys(s, v, q, section);
		}
	}
	const fd_yval *f = yval_get(src, "tolerance");
	char q[320];
	snprintf(q, sizeof q, "%.200s.tolerance", path);
	if (f) {
		char b[128];
		if (!yval_float(f, &is->tolerance) || is->tolerance < 0) {
			ERR(s, f, "%s: expected a number >= 0 (relative), got %s", q, schema_describe(f, b, sizeof b));
			ok = false;
		} else if (!yval_get(src, "value")) {
			WARN(s, f, "%s: has no meaning without 'value'", q);
		}
	}
	is->has_operand = is->n_ranks || is->n_shapes || is->is_static >= 0 || is->n_dtypes || is->n_values;
	is->has_source = is->from_op >= 0 || is->source_type != SRC_UNSET || is->same_op >= 0;
	if (is->from_op < 0 && is->source_type == SRC_UNSET && is->same_op < 0 && !is->fixed && !is->either &&
	    !is->has_operand && ok) {
		ERR(s, src, "%s: needs a condition (from_op, source_type, same_as, position, rank, shape, static, dtype or "
		    "value)", path);
		ok = false;
	}
	return ok;
}
