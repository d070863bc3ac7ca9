/* rule_schema_ext.c — the schema of the language beyond the seed
 * (fusiondbg-rules(5), BEYOND THE SEED): an op's extensions (optional,
 * outputs, where: read by their entries of the condition list, cond_*.c,
 * then what the matcher derives from them), and the operand conditions of an
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
#include "ruleset/rule_schema_internal.h"

/* ---- the op's extensions ------------------------------------------------------ */

void parse_op_ext(fd_schema *s, fd_cond_site *at, const char *path)
{
	fd_rule_op *op = at->op;
	rule_schema_op_conditions(s, at, SCOPE_OP_EXT, path);
	for (int k = 0; k < op->n_sources; k++)
		op->has_fixed |= op->sources[k].fixed;
	op->has_op_conditions = op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0 || op->n_where;
	for (int k = 0; k < op->n_types; k++) {
		const fd_op_def *def = optable_get(op->ops[k]);
		if (def && def->composite != COMPOSITE_NONE)
			op->composite_mask |= 1u << def->composite;
	}
}

/* ---- operand conditions ------------------------------------------------------- */

/* The index of dim name `name` in the rule's table, added when new. */
static int dimvar(fd_schema *s, const char *name)
{
	fd_rule *r = s->r;
	for (int i = 0; i < r->n_dimvars; i++)
		if (!strcmp(r->dimvars[i], name))
			return i;
	const char **grown = arena_array(&s->rs->arena, (size_t)r->n_dimvars + 1, sizeof *grown);
	if (r->n_dimvars)
		memcpy(grown, r->dimvars, (size_t)r->n_dimvars * sizeof *grown);
	grown[r->n_dimvars] = name;
	r->dimvars = grown;
	return r->n_dimvars++;
}

static bool is_name(const char *t)
{
	if (!((t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z')))
		return false;
	for (const char *c = t; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

/* One pattern: `scalar`, or a list of dims. */
static bool parse_shape_pattern(fd_schema *s, fd_shape_pattern *sp, const fd_yval *v, const char *path)
{
	char b[128];
	memset(sp, 0, sizeof *sp);
	sp->where = v;
	/* quoted or not alike: the seed's style quotes every string */
	if (v->kind == YV_SCALAR && !strcmp(v->text, "scalar")) {
		sp->scalar = true;
		return true;
	}
	if (v->kind != YV_SEQ) {
		ERR(s, v, "%s: expected a shape ([C, 1, 1], [], scalar), got %s", path, schema_describe(v, b, sizeof b));
		return false;
	}
	if (!schema_count(s, v, path, FD_RULE_MAX_ITEMS, "dims"))
		return false;
	sp->dims = arena_array(&s->rs->arena, v->n ? v->n : 1, sizeof *sp->dims);
	bool ok = true, rest = false;
	for (size_t i = 0; i < v->n; i++) {
		const fd_yval *d = v->items[i];
		fd_sdim *sd = &sp->dims[sp->n_dims];
		int64_t x;
		if (yval_int(d, &x) && x >= 0) {
			*sd = (fd_sdim){ SDIM_EXACT, -1, x };
		} else if (d->kind == YV_SCALAR && !strcmp(d->text, "_")) {
			*sd = (fd_sdim){ SDIM_ANY, -1, 0 };
		} else if (d->kind == YV_SCALAR && !strcmp(d->text, "...")) {
			if (rest) {
				ERR(s, d, "%s[%zu]: '...' is written twice in one shape", path, i);
				ok = false;
				continue;
			}
			rest = true;
			*sd = (fd_sdim){ SDIM_REST, -1, 0 };
		} else if (d->kind == YV_SCALAR && is_name(d->text) && strcmp(d->text, "scalar")) {
			*sd = (fd_sdim){ SDIM_VAR, dimvar(s, d->text), 0 };
		} else {
			ERR(s, d, "%s[%zu]: expected a dim (an integer >= 0, _ for any, ... for any number of dims, or a name "
			    "such as C), got %s", path, i, schema_describe(d, b, sizeof b));
			ok = false;
			continue;
		}
		sp->n_dims++;
	}
	return ok;
}

/* shape: one pattern, or a list of patterns. */
static void parse_shapes(fd_schema *s, fd_input_source *is, const fd_yval *v, const char *path, bool *ok)
{
	bool list = v->kind == YV_SEQ && v->n > 0;
	size_t lists = 0;
	for (size_t i = 0; list && i < v->n; i++)
		lists += v->items[i]->kind == YV_SEQ ||
		         (v->items[i]->kind == YV_SCALAR && !strcmp(v->items[i]->text, "scalar"));
	if (list && lists && lists != v->n) {
		ERR(s, v, "%s: mixes dims and shapes; write one shape [C, 1, 1] or a list of shapes [[C, 1, 1], [1, C, 1, 1]]",
		    path);
		*ok = false;
		return;
	}
	bool alternatives = list && lists == v->n;
	if (alternatives && !schema_count(s, v, path, FD_RULE_MAX_ITEMS, "shapes")) {
		*ok = false;
		return;
	}
	size_t n = alternatives ? v->n : 1;
	is->shapes = arena_array(&s->rs->arena, n, sizeof *is->shapes);
	for (size_t i = 0; i < n; i++) {
		char q[320];
		snprintf(q, sizeof q, alternatives ? "%.200s[%zu]" : "%.200s", path, i);
		if (parse_shape_pattern(s, &is->shapes[is->n_shapes], alternatives ? v->items[i] : v, q))
			is->n_shapes++;
		else
			*ok = false;
	}
}

/* An integer, or a list of them, each >= 0: rank. */
/* A value that may be one item or a list of them: how many items (0 on an
 * error, reported). */
static size_t items_of(fd_schema *s, const fd_yval *v, const char *path, const char *what, bool *ok)
{
	size_t n = v->kind == YV_SEQ ? v->n : 1;
	if (v->kind == YV_SEQ && n == 0)
		ERR(s, v, "%s: the list is empty", path);
	if (n == 0 || (v->kind == YV_SEQ && !schema_count(s, v, path, FD_RULE_MAX_ITEMS, what))) {
		*ok = false;
		return 0;
	}
	return n;
}

/* Item i of such a value, and its path. */
static const fd_yval *item_at(const fd_yval *v, size_t i, const char *path, char *q, size_t size)
{
	snprintf(q, size, v->kind == YV_SEQ ? "%.200s[%zu]" : "%.200s", path, i);
	return v->kind == YV_SEQ ? v->items[i] : v;
}

static int parse_ints(fd_schema *s, const fd_yval *v, const char *path, int **out, bool *ok)
{
	size_t n = items_of(s, v, path, "values", ok);
	if (!n)
		return 0;
	*out = arena_array(&s->rs->arena, n, sizeof **out);
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		char q[320];
		if (schema_small_int(s, item_at(v, i, path, q, sizeof q), q, 0, &(*out)[count]))
			count++;
		else
			*ok = false;
	}
	return count;
}

static void parse_dtypes(fd_schema *s, fd_input_source *is, const fd_yval *v, const char *path, bool *ok)
{
	size_t n = items_of(s, v, path, "dtypes", ok);
	if (!n)
		return;
	is->dtypes = arena_array(&s->rs->arena, n, sizeof *is->dtypes);
	for (size_t i = 0; i < n; i++) {
		char q[320];
		const char *name;
		const fd_yval *d = item_at(v, i, path, q, sizeof q);
		if (!schema_str(s, d, q, &name)) {
			*ok = false;
			continue;
		}
		int32_t dt = dtype_from_name(name);
		if (dt < 0 || dt == DT_UNDEFINED) {
			ERR(s, d, "%s: unknown dtype '%s' (known: float32, float16, bfloat16, float64, int8, uint8, int16, int32, "
			    "int64, bool, …)", q, name);
			*ok = false;
			continue;
		}
		is->dtypes[is->n_dtypes++] = dt;
	}
}

static void parse_values(fd_schema *s, fd_input_source *is, const fd_yval *v, const char *path, bool *ok)
{
	char b[128], q[320];
	size_t n = items_of(s, v, path, "values", ok);
	if (!n)
		return;
	is->values = arena_array(&s->rs->arena, n, sizeof *is->values);
	for (size_t i = 0; i < n; i++) {
		const fd_yval *x = item_at(v, i, path, q, sizeof q);
		if (!yval_float(x, &is->values[is->n_values])) {
			ERR(s, x, "%s: expected a number, got %s", q, schema_describe(x, b, sizeof b));
			*ok = false;
			continue;
		}
		is->n_values++;
	}
}

static void parse_same_as(fd_schema *s, fd_input_source *is, const fd_yval *v, const char *path, bool *ok)
{
	char q[320];
	if (!schema_kind(s, v, YV_MAP, path)) {
		*ok = false;
		return;
	}
	rule_schema_unknown_keys(s, v, path, "match.ops.#.input_sources.*.same_as");
	const fd_yval *op = yval_get(v, "op"), *in = yval_get(v, "input");
	if (!op || !in) {
		ERR(s, v, "%s: needs 'op' and 'input' (the tensor op j reads at input k: {op: j, input: k})", path);
		*ok = false;
		return;
	}
	snprintf(q, sizeof q, "%.200s.op", path);
	*ok &= schema_small_int(s, op, q, 0, &is->same_op);
	snprintf(q, sizeof q, "%.200s.input", path);
	*ok &= schema_small_int(s, in, q, 0, &is->same_input);
}

bool parse_source_ext(fd_schema *s, fd_input_source *is, const fd_yval *src, const char *path)
{
	char q[320], b[128];
	bool ok = true, flag;
	const fd_yval *f;
	is->tolerance = 1e-5;
#define KEY(name) (snprintf(q, sizeof q, "%.200s." name, path), yval_get(src, name))
	if ((f = KEY("optional")))
		ok &= schema_bool(s, f, q, &is->optional);
	if ((f = KEY("position"))) {
		const char *pos;
		if (!schema_str(s, f, q, &pos))
			ok = false;
		else if (!strcmp(pos, "fixed"))
			is->fixed = true;
		else if (strcmp(pos, "any")) {
			ERR(s, f, "%s: expected fixed or any, got %s", q, schema_describe(f, b, sizeof b));
			ok = false;
		}
	}
	if ((f = KEY("same_as")))
		parse_same_as(s, is, f, q, &ok);
	if ((f = KEY("rank")))
		is->n_ranks = parse_ints(s, f, q, &is->ranks, &ok);
	if ((f = KEY("shape")))
		parse_shapes(s, is, f, q, &ok);
	if ((f = KEY("static"))) {
		if (schema_bool(s, f, q, &flag))
			is->is_static = flag;
		else
			ok = false;
	}
	if ((f = KEY("dtype")))
		parse_dtypes(s, is, f, q, &ok);
	if ((f = KEY("value")))
		parse_values(s, is, f, q, &ok);
	if ((f = KEY("tolerance"))) {
		if (!yval_float(f, &is->tolerance) || is->tolerance < 0) {
			ERR(s, f, "%s: expected a number >= 0 (relative), got %s", q, schema_describe(f, b, sizeof b));
			ok = false;
		} else if (!yval_get(src, "value")) {
			WARN(s, f, "%s: has no meaning without 'value'", q);
		}
	}
#undef KEY
	is->has_operand = is->n_ranks || is->n_shapes || is->is_static >= 0 || is->n_dtypes || is->n_values;
	is->has_source = is->from_op >= 0 || is->source_type != SRC_UNSET || is->same_op >= 0;
	if (is->from_op < 0 && is->source_type == SRC_UNSET && is->same_op < 0 && !is->fixed && !is->has_operand &&
	    ok) {
		ERR(s, src, "%s: needs a condition (from_op, source_type, same_as, position, rank, shape, static, dtype or "
		    "value)", path);
		ok = false;
	}
	return ok;
}
