/* param_value.c — a rule param's value on a node or composite, and the
 * comparison with the rule's expected value (param_value.h). Lookup order is
 * the op table's: attribute, constant input, derived value, ONNX default.
 * Owned by the matcher. */
#include "match/param_value.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ir/dtype.h"

/* A small constant as a param value: one element is a scalar, more a list. */
static bool from_const(const fd_const *c, fd_param_type type, fd_pval *out)
{
	if (!c || c->count < 0)
		return false;
	bool want_list = type == PT_INTS || type == PT_FLOATS;
	if (c->i64) {
		if (c->count == 1 && !want_list) {
			out->kind = type == PT_BOOL ? PV_BOOL : type == PT_FLOAT ? PV_FLOAT : PV_INT;
			out->i = c->i64[0];
			out->f = (double)c->i64[0];
			return true;
		}
		out->kind = PV_INTS;
		out->n = c->count;
		out->ints = c->i64;
		return true;
	}
	if (c->f64) {
		if (c->count == 1 && !want_list) {
			out->kind = type == PT_BOOL ? PV_BOOL : PV_FLOAT;
			out->f = c->f64[0];
			out->i = (int64_t)c->f64[0];
			return true;
		}
		out->kind = PV_FLOATS;
		out->n = c->count;
		out->floats = c->f64;
		return true;
	}
	return false;
}

static bool from_attr(const fd_attr *a, fd_param_type type, fd_pval *out)
{
	switch (a->type) {
	case ATTR_FLOAT:
		out->kind = PV_FLOAT;
		out->f = a->u.f;
		return true;
	case ATTR_INT:
		out->kind = type == PT_BOOL ? PV_BOOL : type == PT_FLOAT ? PV_FLOAT : PV_INT;
		out->i = a->u.i;
		out->f = (double)a->u.i;
		return true;
	case ATTR_STRING:
		out->kind = PV_STRING;
		out->s = a->u.s ? a->u.s : "";
		return true;
	case ATTR_INTS:
		out->kind = PV_INTS;
		out->n = a->count;
		out->ints = a->u.ints;
		if (!out->ints)
			out->n = 0;
		return true;
	case ATTR_FLOATS:
		out->kind = PV_FLOATS;
		out->n = a->count;
		out->floats = a->u.floats;
		if (!out->floats)
			out->n = 0;
		return true;
	case ATTR_TENSOR:
		if (a->u.t && from_const(a->u.t->value, type, out))
			return true;
		out->kind = PV_UNKNOWN;
		return true;
	default:
		out->kind = PV_UNKNOWN;
		return true;
	}
}

/* Parses the op table's default text ("1", "1e-05", "[1, 1]", "NOTSET"). */
static void from_default(const char *text, fd_param_type type, fd_pval *out)
{
	out->source = PVS_DEFAULT;
	switch (type) {
	case PT_INTS:
	case PT_FLOATS: {
		const char *p = text;
		int64_t n = 0;
		while (*p && *p != ']') {
			while (*p == '[' || *p == ' ' || *p == ',')
				p++;
			if (!*p || *p == ']')
				break;
			char *end;
			double v = strtod(p, &end);
			if (end == p)
				break;
			if (n < PVAL_INLINE) {
				out->buf[n] = (int64_t)v;
				out->fbuf[n] = v;
			}
			n++;
			p = end;
		}
		out->kind = type == PT_INTS ? PV_INTS : PV_FLOATS;
		out->n = n < PVAL_INLINE ? n : PVAL_INLINE;
		out->ints = NULL;
		out->floats = NULL;
		return;
	}
	case PT_BOOL:
		out->kind = PV_BOOL;
		out->i = !strcmp(text, "1") || !strcasecmp(text, "true");
		return;
	case PT_FLOAT:
		out->kind = PV_FLOAT;
		out->f = strtod(text, NULL);
		return;
	case PT_INT:
	case PT_ANY: {
		char *end;
		long long v = strtoll(text, &end, 10);
		if (*end == '\0') {
			out->kind = PV_INT;
			out->i = v;
			out->f = (double)v;
			return;
		}
		out->kind = PV_STRING;
		out->s = text;
		return;
	}
	case PT_STRING:
		out->kind = PV_STRING;
		out->s = text;
		return;
	}
}

static const fd_tensor *input_tensor(const fd_graph *g, const fd_node *n, int slot)
{
	if (slot < 0 || slot >= n->n_inputs || n->inputs[slot] == FD_NONE)
		return NULL;
	return &g->tensors[n->inputs[slot]];
}

static bool shapes_equal(const fd_shape *a, const fd_shape *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i].value != b->dims[i].value
		    || (a->dims[i].value < 0 && !dim_equal(a->dims[i], b->dims[i])))
			return false;
	return true;
}

static void dims_of(const fd_shape *s, int from, fd_pval *out)
{
	out->kind = PV_INTS;
	out->n = 0;
	out->ints = NULL;
	if (s->rank < 0 || from > s->rank) {
		out->kind = PV_UNKNOWN;
		return;
	}
	for (int i = from; i < s->rank && out->n < PVAL_INLINE; i++)
		out->buf[out->n++] = s->dims[i].value;
}

static bool derive(const fd_graph *g, const fd_node *n, const fd_composite_rec *c,
                   const int32_t *pool, const fd_param_def *def, fd_pval *out)
{
	out->source = PVS_DERIVED;
	switch (def->derived) {
	case DERIVED_NONE:
		return false;
	case DERIVED_BROADCAST: {
		const fd_tensor *t[2] = { 0 };
		int k = 0;
		for (int i = 0; i < n->n_inputs && k < 2; i++)
			if (n->inputs[i] != FD_NONE)
				t[k++] = &g->tensors[n->inputs[i]];
		if (k < 2 || t[0]->shape.rank < 0 || t[1]->shape.rank < 0) {
			out->kind = k < 2 ? PV_BOOL : PV_UNKNOWN;
			out->i = 0;
			return true;
		}
		out->kind = PV_BOOL;
		out->i = !shapes_equal(&t[0]->shape, &t[1]->shape);
		return true;
	}
	case DERIVED_ACTIVATION_TYPE:
		out->kind = PV_STRING;
		out->s = "none";
		return true;
	case DERIVED_NORMALIZED_SHAPE: {
		const fd_tensor *scale = NULL, *x = NULL;
		int64_t axis = -1;
		if (c) {
			if (c->scale != FD_NONE)
				scale = &g->tensors[c->scale];
			if (c->n_inputs > 0)
				x = &g->tensors[pool[c->inputs]];
			axis = c->axis;
		} else {
			scale = input_tensor(g, n, 1);
			x = input_tensor(g, n, 0);
			const fd_attr *a = node_attr(n, "axis");
			if (a && a->type == ATTR_INT)
				axis = a->u.i;
		}
		if (scale) {
			dims_of(&scale->shape, 0, out);
			return true;
		}
		if (x && x->shape.rank >= 0) {
			if (axis < 0)
				axis += x->shape.rank;
			dims_of(&x->shape, (int)axis, out);
			return true;
		}
		out->kind = PV_UNKNOWN;
		return true;
	}
	case DERIVED_ELEMENTWISE_AFFINE:
		out->kind = PV_BOOL;
		out->i = c ? c->scale != FD_NONE : input_tensor(g, n, 1) != NULL;
		return true;
	case DERIVED_KERNEL_SIZE: {
		const fd_tensor *w = input_tensor(g, n, 1);
		if (!w || w->shape.rank < 3) {
			out->kind = PV_UNKNOWN;
			return true;
		}
		dims_of(&w->shape, 2, out);
		return true;
	}
	case DERIVED_FALSE:
		out->kind = PV_BOOL;
		out->i = 0;
		return true;
	case DERIVED_APPROXIMATE:
		out->kind = PV_STRING;
		out->s = "none";
		if (c && (c->recogniser == RECOG_GELU_TANH || c->recogniser == RECOG_GELU_TANH_FACTORED))
			out->s = "tanh";
		else if (!c && n->op_type && !strcmp(n->op_type, "FastGelu"))
			out->s = "tanh";
		return true;
	case DERIVED_FORM:
		out->kind = PV_STRING;
		out->s = c ? "decomposed" : "node";
		return true;
	}
	return false;
}

/* Composites have no attributes: their params come from what the recogniser
 * read (epsilon, axis) or are derived; everything else is the default. */
static void composite_value(const fd_graph *g, const fd_node *n, const fd_composite_rec *c,
                            const int32_t *pool, const fd_param_def *def, fd_pval *out)
{
	out->source = PVS_COMPOSITE;
	if (!strcmp(def->name, "epsilon") && c->recogniser == RECOG_LAYERNORM) {
		if (isnan(c->epsilon)) {
			out->kind = PV_UNKNOWN;
			return;
		}
		out->kind = PV_FLOAT;
		out->f = c->epsilon;
		return;
	}
	if (!strcmp(def->name, "axis") && c->recogniser == RECOG_LAYERNORM) {
		out->kind = PV_INT;
		out->i = c->axis;
		out->f = (double)c->axis;
		return;
	}
	if (derive(g, n, c, pool, def, out))
		return;
	if (def->default_value) {
		from_default(def->default_value, def->type, out);
		return;
	}
	out->kind = PV_ABSENT;
}

static void unit_value(const fd_graph *g, const fd_node *n, const fd_composite_rec *c,
                       const int32_t *canon_pool, const fd_param_def *def, fd_pval *out)
{
	if (c) {
		composite_value(g, n, c, canon_pool, def, out);
		return;
	}
	if (def->attr) {
		const fd_attr *a = node_attr(n, def->attr);
		if (a) {
			out->source = PVS_ATTR;
			from_attr(a, def->type, out);
			return;
		}
	}
	if (def->input >= 0) {
		const fd_tensor *t = input_tensor(g, n, def->input);
		if (t) {
			out->source = PVS_INPUT;
			if (!from_const(t->value, def->type, out))
				out->kind = PV_UNKNOWN;
			return;
		}
	}
	if (derive(g, n, NULL, NULL, def, out))
		return;
	if (def->default_value) {
		from_default(def->default_value, def->type, out);
		return;
	}
	out->source = PVS_NONE;
	out->kind = PV_ABSENT;
}

/* An axis indexes its first input: remember that input's rank so that -1 and
 * rank-1 compare equal (Softmax axis: -1 in a rule, axis: 3 in an export). */
static bool is_axis_param(const fd_param_def *def)
{
	return def && !strcmp(def->name, "axis");
}

void param_unit_value(const fd_graph *g, const fd_node *n, const fd_composite_rec *c,
                      const int32_t *canon_pool, int op, const char *name, fd_pval *out)
{
	param_def_value(g, n, c, canon_pool, op, optable_param(op, name), name, out);
}

void param_def_value(const fd_graph *g, const fd_node *n, const fd_composite_rec *c, const int32_t *canon_pool,
                     int op, const fd_param_def *def, const char *name, fd_pval *out)
{
	memset(out, 0, sizeof *out);
	if (!def && op >= optable_count()) {
		/* a fused op type (match.h): its params are the fused node's attributes, by name */
		const fd_attr *a = n ? node_attr(n, name) : NULL;
		out->kind = PV_ABSENT;
		if (a && from_attr(a, PT_ANY, out))
			out->source = PVS_ATTR;
		return;
	}
	if (!def) {
		out->kind = PV_NO_SUCH;
		return;
	}
	unit_value(g, n, c, canon_pool, def, out);
	const fd_tensor *x = input_tensor(g, n, 0);
	if (is_axis_param(def) && out->kind == PV_INT && x && x->shape.rank > 0)
		out->axis_rank = x->shape.rank;
}

bool param_float_eq(double a, double b)
{
	if (a == b)
		return true;
	if (isnan(a) || isnan(b))
		return false;
	double d = fabs(a - b), m = fmax(fabs(a), fabs(b));
	return d <= PARAM_REL_TOL * m || d < 1e-12;
}

static bool scalar_text_is(const fd_yval *v, const char *s)
{
	return v->kind == YV_SCALAR && v->text && !strcasecmp(v->text, s);
}

/* One expected scalar against one actual number. */
static bool num_eq(const fd_yval *e, bool actual_is_float, int64_t ai, double af)
{
	int64_t ei;
	double ef;
	bool eb;
	if (!actual_is_float && yval_int(e, &ei))
		return ei == ai;
	if (yval_float(e, &ef))
		return param_float_eq(ef, actual_is_float ? af : (double)ai);
	if (!actual_is_float && yval_bool(e, &eb))
		return (ai != 0) == eb;
	return false;
}

static bool list_elem_eq(const fd_yval *e, const fd_pval *a, int64_t k)
{
	if (a->kind == PV_INTS)
		return num_eq(e, false, pval_ints(a)[k], 0);
	return num_eq(e, true, 0, pval_floats(a)[k]);
}

bool param_matches(const fd_yval *e, const fd_param_def *def, const fd_pval *a)
{
	if (!e || a->kind == PV_NO_SUCH)
		return false;
	bool e_none = yval_is_null(e) || scalar_text_is(e, "none");
	if (a->kind == PV_ABSENT)
		return e_none;
	if (a->kind == PV_UNKNOWN)
		return false;
	if (e->kind == YV_SEQ) {
		if (a->kind != PV_INTS && a->kind != PV_FLOATS) {
			if (e->n != 1)
				return false;
			if (a->kind == PV_FLOAT)
				return num_eq(e->items[0], true, 0, a->f);
			return (a->kind == PV_INT || a->kind == PV_BOOL) && num_eq(e->items[0], false, a->i, 0);
		}
		if ((int64_t)e->n != a->n)
			return false;
		for (size_t k = 0; k < e->n; k++)
			if (!list_elem_eq(e->items[k], a, (int64_t)k))
				return false;
		return true;
	}
	if (e->kind != YV_SCALAR)
		return false;
	switch (a->kind) {
	case PV_STRING:
		return e->text && !strcasecmp(e->text, a->s);
	case PV_BOOL: {
		bool eb;
		int64_t ei;
		if (yval_bool(e, &eb))
			return eb == (a->i != 0);
		if (yval_int(e, &ei))
			return (ei != 0) == (a->i != 0);
		return false;
	}
	case PV_INT: {
		int64_t ei;
		if (is_axis_param(def) && a->axis_rank > 0 && yval_int(e, &ei))
			return (ei < 0 ? ei + a->axis_rank : ei) == (a->i < 0 ? a->i + a->axis_rank : a->i);
		if (num_eq(e, false, a->i, 0))
			return true;
		/* Cast's `to`: a dtype name equals its number. */
		if (def && def->type == PT_ANY && e->text && dtype_from_name(e->text) >= 0)
			return dtype_from_name(e->text) == a->i;
		return false;
	}
	case PV_FLOAT:
		return num_eq(e, true, 0, a->f);
	case PV_INTS:
	case PV_FLOATS:
		/* kernel_size: 3 means every spatial dim is 3 */
		if (a->n == 0)
			return false;
		for (int64_t k = 0; k < a->n; k++)
			if (!list_elem_eq(e, a, k))
				return false;
		return true;
	default:
		return false;
	}
}

static const char *const pv_source_names[] = {
#define NAME(id, name) [PVS_##id] = name,
	FD_PV_SOURCES(NAME)
#undef NAME
};
static_assert(sizeof pv_source_names / sizeof *pv_source_names == PVS_COUNT, "one name per source");

const char *param_source_name(fd_pv_source s)
{
	return s < PVS_COUNT ? pv_source_names[s] : "";
}
