/* match_where.c — a `where` expression (rules/rule_expr.h) evaluated on a
 * unit: names are the op's params (through the op table, as `params` reads
 * them: attribute, constant input, derived, default), `rank` is the rank of
 * input0, `opset` the model's version of its domain, inputK / outputK are
 * tensors for rank(), shape(), dim(), dtype(), value(), consumers(),
 * readers(), producer(), outer(), qmin() and qmax(); opJ.NAME is NAME read on the
 * unit earlier pattern op J matched (null when it is absent). Values:
 * null, int, float, bool, string, list;
 * a value this run cannot know (a non-constant input, a symbolic dim) is
 * "unknown", and so is what is computed from it, except that false && x
 * and true || x are decided. Floats compare with the params' relative
 * tolerance. The matcher asks for the truth only; the trace's readers ask
 * for the words as well (the values read, or the part that is not true).
 *
 * Arithmetic is exact or a fault: an integer result beyond int64, a float
 * one beyond double's range (or float32()'s), a NaN computed or compared,
 * a division by zero, or lists past the
 * expression's budget (FD_EXPR_MAX_ITEMS items built in one evaluation,
 * counted before anything is allocated) end the evaluation there, at that
 * part's characters; the expression is then neither true nor false (-2),
 * never a wrapped value. Without a unit (match_where_constant_fault) every
 * name is unknown, so what faults is the constant part of the text. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/strbuf.h"
#include "ir/dtype.h"
#include "base/text.h"
#include "ir/onnx_ops.h"
#include "match/match_internal.h"
#include "match/param_value.h"
#include "rules/optable.h"
#include "rules/rule_expr.h"

typedef enum { XV_NULL, XV_UNKNOWN, XV_ERROR, XV_FAULT, XV_BOOL, XV_INT, XV_FLOAT, XV_STR, XV_LIST, XV_TENSOR } xv_kind;

typedef struct xval {
	xv_kind kind;
	int32_t n;          /* XV_LIST: items at pool[off] */
	int64_t i;          /* XV_BOOL, XV_INT, XV_TENSOR (the tensor), XV_LIST (off) */
	double f;
	const char *s;      /* XV_STR; XV_UNKNOWN / XV_ERROR / XV_FAULT: why */
} xval;

typedef struct env {
	const fd_match_ctx *ctx;
	int32_t gi;
	const fd_graph_index *ix;     /* NULL: no unit, every name unknown */
	const fd_model *model;        /* its opsets */
	int32_t u;
	int op;
	const fd_node *node;          /* the node params are read on (a composite's last member) */
	const fd_composite_rec *comp;
	const fd_where_ops *ops;      /* the earlier ops of the match, for opJ.NAME (NULL: none) */
	char ref_names[4][24];        /* "op0.input1", for the words of a tensor of another op */
	int next_ref;
	VEC(xval) pool;
	int64_t built;                /* list items made so far (the budget counts them) */
	const fd_expr *at;            /* the part being evaluated, for a fault's place */
	char why[160];                /* the reason of an unknown / error value */
	bool failed;                  /* a fault ended the evaluation: */
	const fd_expr *fault_part;    /*   the part that could not be computed */
	char fault_why[200];          /*   "9223372036854775807 + 1 overflows the 64-bit integers" */
} env;

static xval mk(xv_kind k) { return (xval){ .kind = k }; }
static xval mk_int(int64_t i) { return (xval){ .kind = XV_INT, .i = i }; }
static xval mk_bool(bool b) { return (xval){ .kind = XV_BOOL, .i = b }; }

/* An unknown (or error) value, why in words. */
static xval undecided_value(env *v, xv_kind kind, const char *fmt, va_list ap)
{
	vsnprintf(v->why, sizeof v->why, fmt, ap);
	return (xval){ .kind = kind, .s = v->why };
}

static xval unknown(env *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static xval unknown(env *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	xval x = undecided_value(v, XV_UNKNOWN, fmt, ap);
	va_end(ap);
	return x;
}

static xval error(env *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static xval error(env *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	xval x = undecided_value(v, XV_ERROR, fmt, ap);
	va_end(ap);
	return x;
}

/* The evaluation cannot go on: the first fault is the one told (the part
 * being evaluated, what it would have computed). */
static xval fault(env *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static xval fault(env *v, const char *fmt, ...)
{
	if (!v->failed) {
		v->failed = true;
		v->fault_part = v->at;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(v->fault_why, sizeof v->fault_why, fmt, ap);
		va_end(ap);
	}
	return (xval){ .kind = XV_FAULT, .s = v->fault_why };
}

/* The part being evaluated as written, cut to fit a message. */
static const char *part_words(env *v, char *buf, size_t size)
{
	int len;
	const char *t = v->at ? expr_text(v->at, &len) : "";
	if (!v->at)
		len = 0;
	if ((size_t)len >= size)
		snprintf(buf, size, "%.*s…", (int)size - 5, t);
	else
		snprintf(buf, size, "%.*s", len, t);
	return buf;
}

static xval overflow(env *v, const char *range)
{
	char t[80];
	return fault(v, "%s overflows %s", part_words(v, t, sizeof t), range);
}

static xval by_zero(env *v)
{
	char t[80];
	return fault(v, "%s divides by zero", part_words(v, t, sizeof t));
}

/* A list of n items, to be filled at item(v, l, k); a fault (not a list)
 * when the expression's lists would hold more than FD_EXPR_MAX_ITEMS. */
static xval mk_list(env *v, int64_t n)
{
	if (n < 0 || n > FD_EXPR_MAX_ITEMS - v->built) {
		char t[80];
		return fault(v, "%s would build more than %d list items in one evaluation (the budget)",
		             part_words(v, t, sizeof t), FD_EXPR_MAX_ITEMS);
	}
	v->built += n;
	xval l = { .kind = XV_LIST, .n = (int32_t)n, .i = (int64_t)v->pool.n };
	vec_grow(&v->pool, v->pool.n + (size_t)n + 1);
	for (int64_t k = 0; k < n; k++)
		v->pool.items[v->pool.n++] = mk(XV_NULL);
	return l;
}

static xval *item(env *v, xval l, int64_t k)
{
	return &v->pool.items[l.i + k];
}

static bool is_num(xval x) { return x.kind == XV_INT || x.kind == XV_FLOAT; }
static double num(xval x) { return x.kind == XV_INT ? (double)x.i : x.f; }
static bool undecided(xval x) { return x.kind == XV_UNKNOWN || x.kind == XV_ERROR || x.kind == XV_FAULT; }

static xval not_a_number(env *v)
{
	char t[80];
	return fault(v, "%s is not a number (NaN)", part_words(v, t, sizeof t));
}

/* A float result: beyond double's range from finite operands is a fault,
 * and so is a NaN (inf - inf, 0 * inf, or a NaN operand): no comparison
 * with one would mean what the rule says. */
static xval mk_float(env *v, double f, double x, double y)
{
	if (isnan(f))
		return not_a_number(v);
	if (!isfinite(f) && isfinite(x) && isfinite(y))
		return overflow(v, "the floating-point numbers");
	return (xval){ .kind = XV_FLOAT, .f = f };
}

/* ---- values of the unit ------------------------------------------------------------ */

static xval from_ints(env *v, const int64_t *p, int64_t n)
{
	xval l = mk_list(v, n);
	for (int64_t k = 0; l.kind == XV_LIST && k < n; k++)
		*item(v, l, k) = mk_int(p[k]);
	return l;
}

static xval from_floats(env *v, const double *p, int64_t n)
{
	xval l = mk_list(v, n);
	for (int64_t k = 0; l.kind == XV_LIST && k < n; k++)
		*item(v, l, k) = (xval){ .kind = XV_FLOAT, .f = p[k] };
	return l;
}

static xval param(env *v, const char *name)
{
	fd_pval pv;
	param_unit_value(v->ix->g, v->node, v->comp, v->ix->canon.pool, v->op, name, &pv);
	switch (pv.kind) {
	case PV_ABSENT: return mk(XV_NULL);
	case PV_NO_SUCH: return error(v, "%s has no param '%s'", optable_get(v->op) ? optable_get(v->op)->name : "op", name);
	case PV_UNKNOWN: return unknown(v, "%s is not known here", name);
	case PV_INT: return mk_int(pv.i);
	case PV_BOOL: return mk_bool(pv.i != 0);
	case PV_FLOAT: return (xval){ .kind = XV_FLOAT, .f = pv.f };
	case PV_STRING: return (xval){ .kind = XV_STR, .s = pv.s };
	case PV_INTS: return from_ints(v, pval_ints(&pv), pv.n);
	case PV_FLOATS: return from_floats(v, pval_floats(&pv), pv.n);
	}
	return mk(XV_NULL);
}

static xval raw_attr(env *v, const char *name)
{
	const fd_attr *a = node_attr(v->node, name);
	if (!a)
		return mk(XV_NULL);
	switch (a->type) {
	case ATTR_INT: return mk_int(a->u.i);
	case ATTR_FLOAT: return (xval){ .kind = XV_FLOAT, .f = a->u.f };
	case ATTR_STRING: return (xval){ .kind = XV_STR, .s = a->u.s ? a->u.s : "" };
	case ATTR_INTS: return from_ints(v, a->u.ints, a->u.ints ? a->count : 0);
	case ATTR_FLOATS: return from_floats(v, a->u.floats, a->u.floats ? a->count : 0);
	case ATTR_STRINGS: {
		xval l = mk_list(v, a->u.strings ? a->count : 0);
		for (int64_t k = 0; l.kind == XV_LIST && k < a->count; k++)
			*item(v, l, k) = (xval){ .kind = XV_STR, .s = a->u.strings[k] ? a->u.strings[k] : "" };
		return l;
	}
	default:
		return unknown(v, "attribute %s is not a number, string or list", name);
	}
}

static xval tensor_ref(env *v, const fd_expr *e)
{
	int32_t t = e->tensor == 'i' ? match_unit_input(v->ix, v->u, (int)e->i) : match_unit_output(v->ix, v->u, (int)e->i);
	if (t < 0)
		return mk(XV_NULL);
	return (xval){ .kind = XV_TENSOR, .i = t, .s = e->s };
}

static xval tensor_fn(env *v, int f, xval t, xval arg)
{
	if (t.kind == XV_NULL)
		return mk(XV_NULL);
	const fd_tensor *x = &v->ix->g->tensors[t.i];
	const fd_shape *sh = &x->shape;
	char d[64];
	switch (f) {
	case XF_RANK:
		return sh->rank >= 0 ? mk_int(sh->rank) : unknown(v, "the rank of %s is not known", t.s);
	case XF_SHAPE: {
		if (sh->rank < 0)
			return unknown(v, "the shape of %s is not known", t.s);
		xval l = mk_list(v, sh->rank);
		for (int k = 0; l.kind == XV_LIST && k < sh->rank; k++) {
			fd_dimv dv = match_dim(sh, k);
			if (dv.kind != DIMV_NUMBER)
				return unknown(v, "dim %d of %s is %s", k, t.s, match_dim_text(dv, d, sizeof d));
			*item(v, l, k) = mk_int(dv.value);
		}
		return l;
	}
	case XF_DIM: {
		if (arg.kind != XV_INT)
			return undecided(arg) ? arg : error(v, "dim() wants an integer index");
		if (sh->rank < 0)
			return unknown(v, "the rank of %s is not known", t.s);
		int64_t k = arg.i < 0 ? arg.i + sh->rank : arg.i;
		if (k < 0 || k >= sh->rank)
			return error(v, "dim %lld of %s: it has rank %d", (long long)arg.i, t.s, sh->rank);
		fd_dimv dv = match_dim(sh, (int)k);
		if (dv.kind != DIMV_NUMBER)
			return unknown(v, "dim %lld of %s is %s", (long long)k, t.s, match_dim_text(dv, d, sizeof d));
		return mk_int(dv.value);
	}
	case XF_DTYPE:
		return x->dtype != DT_UNDEFINED ? (xval){ .kind = XV_STR, .s = dtype_name(x->dtype) }
		                                : unknown(v, "the dtype of %s is not known", t.s);
	case XF_VALUE: {
		const fd_const *c = x->value;
		if (!c || (!c->i64 && !c->f64))
			return unknown(v, "%s is not a known constant", t.s);
		if (c->count == 1)   /* one element, of any rank: a number */
			return c->i64 ? mk_int(c->i64[0]) : (xval){ .kind = XV_FLOAT, .f = c->f64[0] };
		return c->i64 ? from_ints(v, c->i64, c->count) : from_floats(v, c->f64, c->count);
	}
	case XF_CONSUMERS:
		return mk_int(x->n_consumers);
	case XF_READERS: {   /* sorted once per context (match_index.c): a copy here */
		xval l = mk_list(v, x->n_consumers);
		const char *const *types = v->ix->reader_types + v->ix->reader_types_off[t.i];
		for (int32_t k = 0; l.kind == XV_LIST && k < x->n_consumers; k++)
			*item(v, l, k) = (xval){ .kind = XV_STR, .s = types[k] };
		return l;
	}
	case XF_QMIN:
	case XF_QMAX: {   /* the range a quantized value of the type holds */
		static const struct { int dt; int64_t lo, hi; } ranges[] = {
			{ DT_UINT8, 0, 255 }, { DT_INT8, -128, 127 }, { DT_UINT16, 0, 65535 }, { DT_INT16, -32768, 32767 },
			{ DT_UINT4, 0, 15 }, { DT_INT4, -8, 7 }, { DT_INT32, INT32_MIN, INT32_MAX }, { DT_UINT32, 0, UINT32_MAX },
		};
		if (x->dtype == DT_UNDEFINED)
			return unknown(v, "the dtype of %s is not known", t.s);
		for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++)
			if (ranges[k].dt == x->dtype)
				return mk_int(f == XF_QMIN ? ranges[k].lo : ranges[k].hi);
		return error(v, "%s() wants a tensor of an integer type: %s is %s", f == XF_QMIN ? "qmin" : "qmax", t.s,
		             dtype_name(x->dtype));
	}
	case XF_OUTER:   /* an outer-scope value: no input, initializer or node of this graph */
		return (xval){ .kind = XV_BOOL, .i = x->kind == TENSOR_OUTER_SCOPE };
	case XF_PRODUCER:   /* an edge from a node, as onnxruntime's graph has it */
		return x->producer != FD_NONE ? (xval){ .kind = XV_STR, .s = v->ix->g->nodes[x->producer].op_type }
		                              : mk(XV_NULL);
	}
	return error(v, "not a tensor function");
}

/* ---- operators --------------------------------------------------------------------- */

static bool values_equal(env *v, xval a, xval b);

static bool values_equal(env *v, xval a, xval b)
{
	if (is_num(a) && is_num(b))
		return a.kind == XV_INT && b.kind == XV_INT ? a.i == b.i : param_float_eq(num(a), num(b));
	if (a.kind != b.kind)
		return false;
	switch (a.kind) {
	case XV_NULL: return true;
	case XV_BOOL: return a.i == b.i;
	case XV_STR: return !strcmp(a.s, b.s);
	case XV_LIST:
		if (a.n != b.n)
			return false;
		for (int32_t k = 0; k < a.n; k++)
			if (!values_equal(v, *item(v, a, k), *item(v, b, k)))
				return false;
		return true;
	default: return false;
	}
}

/* Undecided when an item is. */
static xval list_undecided(env *v, xval l)
{
	for (int32_t k = 0; l.kind == XV_LIST && k < l.n; k++)
		if (undecided(*item(v, l, k)))
			return *item(v, l, k);
	return mk(XV_NULL);
}

/* A NaN in x, or in any item of it: no equality or order with one means
 * what the rule says. */
static bool holds_nan(env *v, xval x)
{
	if (x.kind == XV_FLOAT)
		return isnan(x.f);
	for (int32_t k = 0; x.kind == XV_LIST && k < x.n; k++)
		if (holds_nan(v, *item(v, x, k)))
			return true;
	return false;
}

static xval compare(env *v, fd_expr_op op, xval a, xval b)
{
	if (undecided(a))
		return a;
	if (undecided(b))
		return b;
	/* x == null asks whether x is there: decided, whatever x holds */
	bool asks_absent = (op == XO_EQ || op == XO_NE) && (a.kind == XV_NULL || b.kind == XV_NULL);
	if ((op == XO_EQ || op == XO_NE || op == XO_IN || op == XO_NOT_IN) && !asks_absent &&
	    (holds_nan(v, a) || holds_nan(v, b)))
		return not_a_number(v);
	if (op == XO_IN || op == XO_NOT_IN) {
		if (b.kind != XV_LIST)
			return error(v, "'in' wants a list on its right");
		bool found = false;
		for (int32_t k = 0; k < b.n && !found; k++)
			found = values_equal(v, a, *item(v, b, k));
		return mk_bool(found == (op == XO_IN));
	}
	if (op == XO_EQ || op == XO_NE)
		return mk_bool(values_equal(v, a, b) == (op == XO_EQ));
	double x, y;
	if (is_num(a) && is_num(b)) {
		x = num(a);
		y = num(b);
		if (isnan(x) || isnan(y))
			return not_a_number(v);
	} else if (a.kind == XV_STR && b.kind == XV_STR) {
		x = strcmp(a.s, b.s);
		y = 0;
	} else {
		return error(v, "'%s' compares numbers or strings", expr_op_text(op));
	}
	switch (op) {
	case XO_LT: return mk_bool(x < y);
	case XO_LE: return mk_bool(x <= y || (is_num(a) && param_float_eq(x, y)));
	case XO_GT: return mk_bool(x > y);
	case XO_GE: return mk_bool(x >= y || (is_num(a) && param_float_eq(x, y)));
	default: return error(v, "bad comparison");
	}
}

#define INT_RANGE "the 64-bit integers"

static xval arith(env *v, fd_expr_op op, xval a, xval b)
{
	if (undecided(a))
		return a;
	if (undecided(b))
		return b;
	if (op == XO_ADD && a.kind == XV_LIST && b.kind == XV_LIST) {
		xval l = mk_list(v, (int64_t)a.n + b.n);
		if (l.kind != XV_LIST)
			return l;
		for (int32_t k = 0; k < a.n; k++)
			*item(v, l, k) = *item(v, a, k);
		for (int32_t k = 0; k < b.n; k++)
			*item(v, l, a.n + k) = *item(v, b, k);
		return l;
	}
	if (!is_num(a) || !is_num(b))
		return error(v, "'%s' wants numbers", expr_op_text(op));
	if (a.kind == XV_INT && b.kind == XV_INT) {
		int64_t r;
		switch (op) {
		case XO_ADD: return __builtin_add_overflow(a.i, b.i, &r) ? overflow(v, INT_RANGE) : mk_int(r);
		case XO_SUB: return __builtin_sub_overflow(a.i, b.i, &r) ? overflow(v, INT_RANGE) : mk_int(r);
		case XO_MUL: return __builtin_mul_overflow(a.i, b.i, &r) ? overflow(v, INT_RANGE) : mk_int(r);
		case XO_MOD:
			if (!b.i)
				return by_zero(v);
			/* the sign of the divisor, as Python's; INT64_MIN % -1 is 0 (C traps) */
			r = b.i == -1 ? 0 : a.i % b.i;
			return mk_int(r && (r < 0) != (b.i < 0) ? r + b.i : r);
		case XO_DIV:
			if (!b.i)
				return by_zero(v);
			if (b.i == -1)
				return a.i == INT64_MIN ? overflow(v, INT_RANGE) : mk_int(-a.i);
			if (a.i % b.i == 0)
				return mk_int(a.i / b.i);
			break;
		default: break;
		}
	}
	double x = num(a), y = num(b);
	switch (op) {
	case XO_ADD: return mk_float(v, x + y, x, y);
	case XO_SUB: return mk_float(v, x - y, x, y);
	case XO_MUL: return mk_float(v, x * y, x, y);
	case XO_DIV: return y == 0 ? by_zero(v) : mk_float(v, x / y, x, y);
	case XO_MOD: return y == 0 ? by_zero(v) : mk_float(v, fmod(x, y), x, y);
	default: return error(v, "bad operator");
	}
}

/* Python's index rules: negative counts from the end. */
static xval index_of(env *v, xval l, xval k)
{
	if (undecided(l))
		return l;
	if (undecided(k))
		return k;
	if (l.kind != XV_LIST || k.kind != XV_INT)
		return error(v, l.kind == XV_NULL ? "indexing null (the value is absent)" : "indexing wants a list and an integer");
	int64_t i = k.i < 0 ? k.i + l.n : k.i;
	if (i < 0 || i >= l.n)
		return error(v, "index %lld is out of range (%d items)", (long long)k.i, l.n);
	return *item(v, l, i);
}

static xval slice_of(env *v, xval l, const xval *lo, const xval *hi)
{
	if (undecided(l))
		return l;
	if (l.kind != XV_LIST)
		return error(v, l.kind == XV_NULL ? "slicing null (the value is absent)" : "slicing wants a list");
	int64_t b[2] = { 0, l.n };
	const xval *x[2] = { lo, hi };
	for (int j = 0; j < 2; j++) {
		if (!x[j])
			continue;
		if (undecided(*x[j]))
			return *x[j];
		if (x[j]->kind != XV_INT)
			return error(v, "slice bounds are integers");
		b[j] = x[j]->i < 0 ? x[j]->i + l.n : x[j]->i;
		b[j] = b[j] < 0 ? 0 : b[j] > l.n ? l.n : b[j];
	}
	int64_t n = b[1] > b[0] ? b[1] - b[0] : 0;
	xval out = mk_list(v, n);
	for (int64_t k = 0; out.kind == XV_LIST && k < n; k++)
		*item(v, out, k) = *item(v, l, b[0] + k);
	return out;
}

static int cmp_items(const void *pa, const void *pb)
{
	double a = num(*(const xval *)pa), b = num(*(const xval *)pb);
	return (a > b) - (a < b);
}

static xval call(env *v, const fd_expr *e, const xval *a)
{
	int f = expr_func_lookup(e->s);
	if (f == XF_KNOWN)   /* not known this run: false; an error stays one */
		return a[0].kind == XV_UNKNOWN ? mk_bool(false) : undecided(a[0]) ? a[0] : mk_bool(true);
	for (int k = 0; k < e->n; k++)
		if (undecided(a[k]))
			return a[k];
	switch (f) {
	case XF_LEN:
		if (a[0].kind == XV_LIST)
			return mk_int(a[0].n);
		if (a[0].kind == XV_STR)
			return mk_int((int64_t)strlen(a[0].s));
		return error(v, "len() wants a list or a string");
	case XF_RANGE: {
		if (a[0].kind != XV_INT || (e->n > 1 && a[1].kind != XV_INT))
			return error(v, "range() wants integers");
		int64_t lo = e->n > 1 ? a[0].i : 0, hi = e->n > 1 ? a[1].i : a[0].i;
		/* the count in unsigned arithmetic: hi - lo may not fit an int64 */
		uint64_t count = hi > lo ? (uint64_t)hi - (uint64_t)lo : 0;
		xval l = mk_list(v, count > (uint64_t)FD_EXPR_MAX_ITEMS ? -1 : (int64_t)count);
		for (int64_t k = 0; l.kind == XV_LIST && k < l.n; k++)
			*item(v, l, k) = mk_int(lo + k);
		return l;
	}
	case XF_ABS:
		if (!is_num(a[0]))
			return error(v, "abs() wants a number");
		if (a[0].kind == XV_INT && a[0].i == INT64_MIN)
			return overflow(v, INT_RANGE);
		return a[0].kind == XV_INT ? mk_int(a[0].i < 0 ? -a[0].i : a[0].i) : (xval){ .kind = XV_FLOAT, .f = fabs(a[0].f) };
	case XF_MIN:
	case XF_MAX: {
		xval best = mk(XV_NULL);
		const xval *items = e->n == 2 ? a : a[0].kind == XV_LIST ? item(v, a[0], 0) : NULL;
		int32_t n = e->n == 2 ? 2 : a[0].kind == XV_LIST ? a[0].n : 0;
		if (!items || !n)
			return error(v, "%s() wants two numbers or a non-empty list", e->s);
		for (int32_t k = 0; k < n; k++) {
			if (!is_num(items[k]))
				return error(v, "%s() wants numbers", e->s);
			if (holds_nan(v, items[k]))
				return not_a_number(v);
			if (k == 0 || (f == XF_MIN ? num(items[k]) < num(best) : num(items[k]) > num(best)))
				best = items[k];
		}
		return best;
	}
	case XF_SORTED: {
		if (a[0].kind != XV_LIST)
			return error(v, "sorted() wants a list");
		xval l = mk_list(v, a[0].n);
		if (l.kind != XV_LIST)
			return l;
		for (int32_t k = 0; k < a[0].n; k++) {
			if (!is_num(*item(v, a[0], k)))
				return error(v, "sorted() wants a list of numbers");
			if (holds_nan(v, *item(v, a[0], k)))
				return not_a_number(v);
			*item(v, l, k) = *item(v, a[0], k);
		}
		qsort(item(v, l, 0), (size_t)l.n, sizeof(xval), cmp_items);
		return l;
	}
	case XF_FLOAT32: {
		/* what a compiler computing in float gets: onnxruntime's ClipQuantFusion
		 * compares float products (an exact double product rounded once is the
		 * float product) */
		if (!is_num(a[0]))
			return error(v, "float32() wants a number");
		double x = num(a[0]);
		if (isnan(x))
			return not_a_number(v);
		float r = (float)x;
		if (isinf(r) && !isinf(x))
			return overflow(v, "the 32-bit floats");
		return (xval){ .kind = XV_FLOAT, .f = (double)r };
	}
	case XF_ATTR:
		if (a[0].kind != XV_STR)
			return error(v, "attr() wants the attribute's name as a string");
		return v->ix ? raw_attr(v, a[0].s) : unknown(v, "no node");
	default:
		if (a[0].kind != XV_TENSOR && a[0].kind != XV_NULL)
			return error(v, "%s() wants a tensor: input0, input1, …, output0, …", e->s);
		return tensor_fn(v, f, a[0], e->n > 1 ? a[1] : mk(XV_NULL));
	}
}

static xval eval(env *v, const fd_expr *e);

static xval eval_binary(env *v, const fd_expr *e)
{
	xval a = eval(v, e->args[0]);
	if (e->op == XO_AND || e->op == XO_OR) {
		bool is_and = e->op == XO_AND;
		if ((a.kind == XV_BOOL && a.i == !is_and) || a.kind == XV_FAULT)
			return a;   /* false && x, true || x; a fault ends the evaluation */
		xval b = eval(v, e->args[1]);
		if (b.kind == XV_FAULT)
			return b;
		if (b.kind == XV_BOOL && b.i == !is_and)
			return b;
		if (undecided(a))
			return a;
		if (undecided(b))
			return b;
		if (a.kind != XV_BOOL || b.kind != XV_BOOL)
			return error(v, "'%s' wants true or false on both sides", expr_op_text(e->op));
		return mk_bool(is_and);
	}
	xval b = eval(v, e->args[1]);
	if (e->op >= XO_EQ && e->op <= XO_NOT_IN)
		return compare(v, e->op, a, b);
	return arith(v, e->op, a, b);
}

static xval eval_part(env *v, const fd_expr *e);

/* e's value, e the part a fault in it is told at (until an inner part is). */
static xval eval(env *v, const fd_expr *e)
{
	if (v->failed)
		return (xval){ .kind = XV_FAULT, .s = v->fault_why };
	const fd_expr *outer = v->at;
	v->at = e;
	xval x = eval_part(v, e);
	v->at = outer;
	return x;
}

/* The version of the node's domain the model imports (a decomposed form's:
 * ONNX's). */
static xval model_opset(env *v)
{
	const char *d = v->comp ? "" : v->node->domain;
	for (int32_t k = 0; v->model && k < v->model->n_opsets; k++)
		if (!strcmp(v->model->opsets[k].domain, d))
			return mk_int(v->model->opsets[k].version);
	return unknown(v, "the model imports no opset of domain '%s'", d);
}

/* The version of its op the node runs at the model's opset (ONNX's
 * since_version: Conv 11 from opset 11 on); null for an op ONNX does not
 * define and for a decomposed form, which is of no one op. */
static xval node_since_version(env *v)
{
	if (v->comp)
		return mk(XV_NULL);
	if (v->node->domain[0] || !onnx_op_is_standard("", v->node->op_type))
		return mk(XV_NULL);
	xval opset = model_opset(v);
	if (opset.kind != XV_INT)
		return opset;
	/* past the table (a 64-bit opset too): unknown, never read cut to an int */
	if (opset.i > ONNX_OP_VERSIONS_OPSET_MAX)
		return unknown(v, "the versions of ONNX's ops are known up to opset %d, the model imports %lld",
		               ONNX_OP_VERSIONS_OPSET_MAX, (long long)opset.i);
	int since = onnx_op_since_version("", v->node->op_type, (int)opset.i);
	return since < 0 ? mk(XV_NULL) : mk_int(since);
}

/* A name of the op: a tensor, members, recogniser, op_type, domain, opset,
 * since_version, rank, else a param. */
static xval own_name(env *v, const fd_expr *e)
{
	if (e->tensor)
		return tensor_ref(v, e);
	if (!strcmp(e->s, "members")) {
		/* the op types of a decomposed form's nodes, in order; a node's own type */
		int32_t n = v->comp ? v->comp->n_members : 1;
		xval l = mk_list(v, n);
		for (int32_t k = 0; l.kind == XV_LIST && k < n; k++) {
			const fd_node *m = v->comp ? &v->ix->g->nodes[v->ix->canon.pool[v->comp->members + k]] : v->node;
			*item(v, l, k) = (xval){ .kind = XV_STR, .s = m->op_type ? m->op_type : "" };
		}
		return l;
	}
	if (!strcmp(e->s, "recogniser"))   /* which spelling of a decomposed form; a node has none */
		return v->comp ? (xval){ .kind = XV_STR, .s = canon_recogniser_name((fd_recogniser)v->comp->recogniser) }
		               : mk(XV_NULL);
	if (!strcmp(e->s, "op_type") || !strcmp(e->s, "domain")) {
		/* the node's own: a composite is its decomposed nodes, of no one type */
		if (v->comp)
			return mk(XV_NULL);
		return (xval){ .kind = XV_STR, .s = e->s[0] == 'o' ? (v->node->op_type ? v->node->op_type : "") : v->node->domain };
	}
	if (!strcmp(e->s, "opset"))
		return model_opset(v);
	if (!strcmp(e->s, "since_version"))
		return node_since_version(v);
	if (!strcmp(e->s, "rank")) {
		int32_t t = match_unit_input(v->ix, v->u, 0);
		return t < 0 ? mk(XV_NULL) : tensor_fn(v, XF_RANK, (xval){ .kind = XV_TENSOR, .i = t, .s = "input0" },
		                                       mk(XV_NULL));
	}
	return param(v, e->s);
}

/* opJ.NAME: NAME read on the unit op J matched, as that op (its type
 * alternative, node, decomposed form); null when op J is absent. */
static xval other_op_name(env *v, const fd_expr *e)
{
	if (!v->ops || e->op_ref >= v->ops->n)
		return error(v, "op%d is not matched before this op", e->op_ref);
	int32_t u = v->ops->units[e->op_ref];
	if (u == FD_NONE)
		return mk(XV_NULL);
	int32_t own_u = v->u;
	int own_op = v->op;
	const fd_node *own_node = v->node;
	const fd_composite_rec *own_comp = v->comp;
	v->u = u;
	v->op = v->ops->op_ids[e->op_ref];
	v->comp = match_composite(v->ctx, v->gi, u);
	v->node = &v->ix->g->nodes[v->comp ? v->comp->last : u];
	xval x = own_name(v, e);
	if (x.kind == XV_TENSOR) {   /* its words say whose */
		char *name = v->ref_names[v->next_ref++ % 4];
		snprintf(name, sizeof v->ref_names[0], "op%d.%.16s", e->op_ref, e->s);
		x.s = name;
	}
	v->u = own_u;
	v->op = own_op;
	v->node = own_node;
	v->comp = own_comp;
	return x;
}

static xval eval_part(env *v, const fd_expr *e)
{
	switch (e->kind) {
	case EX_INT: return mk_int(e->i);
	case EX_FLOAT: return (xval){ .kind = XV_FLOAT, .f = e->f };
	case EX_STR: return (xval){ .kind = XV_STR, .s = e->s };
	case EX_BOOL: return mk_bool(e->i != 0);
	case EX_NULL: return mk(XV_NULL);
	case EX_NAME:
		if (!v->ix)
			return unknown(v, "%s is the unit's", e->s);
		if (e->op_ref >= 0)
			return other_op_name(v, e);
		return own_name(v, e);
	case EX_LIST: {
		xval l = mk_list(v, e->n);
		for (int k = 0; l.kind == XV_LIST && k < e->n; k++) {
			xval x = eval(v, e->args[k]);
			*item(v, l, k) = x;
		}
		xval u = list_undecided(v, l);
		return undecided(u) ? u : l;
	}
	case EX_CALL: {
		xval a[2] = { mk(XV_NULL), mk(XV_NULL) };
		for (int k = 0; k < e->n && k < 2; k++)
			a[k] = eval(v, e->args[k]);
		return call(v, e, a);
	}
	case EX_INDEX:
		return index_of(v, eval(v, e->args[0]), eval(v, e->args[1]));
	case EX_SLICE: {
		xval l = eval(v, e->args[0]), lo, hi;
		if (e->args[1])
			lo = eval(v, e->args[1]);
		if (e->args[2])
			hi = eval(v, e->args[2]);
		return slice_of(v, l, e->args[1] ? &lo : NULL, e->args[2] ? &hi : NULL);
	}
	case EX_NEG: {
		xval x = eval(v, e->args[0]);
		if (undecided(x))
			return x;
		if (!is_num(x))
			return error(v, "'-' wants a number");
		if (x.kind == XV_INT && x.i == INT64_MIN)
			return overflow(v, INT_RANGE);
		return x.kind == XV_INT ? mk_int(-x.i) : (xval){ .kind = XV_FLOAT, .f = -x.f };
	}
	case EX_NOT: {
		xval x = eval(v, e->args[0]);
		if (undecided(x))
			return x;
		if (x.kind != XV_BOOL)
			return error(v, "'!' wants true or false");
		return mk_bool(!x.i);
	}
	case EX_BINARY:
		return eval_binary(v, e);
	}
	return error(v, "bad expression");
}

/* ---- words ---------------------------------------------------------------------- */

static size_t value_text(env *v, xval x, char *buf, size_t size, size_t at)
{
	switch (x.kind) {
	case XV_NULL: return text_appendf(buf, size, at, "null");
	case XV_UNKNOWN: return text_appendf(buf, size, at, "unknown (%s)", x.s);
	case XV_ERROR: return text_appendf(buf, size, at, "error (%s)", x.s);
	case XV_FAULT: return text_appendf(buf, size, at, "not computed (%s)", x.s);
	case XV_BOOL: return text_appendf(buf, size, at, "%s", x.i ? "true" : "false");
	case XV_INT: return text_appendf(buf, size, at, "%lld", (long long)x.i);
	case XV_FLOAT: return text_appendf(buf, size, at, "%.9g", x.f);
	case XV_STR: return text_appendf(buf, size, at, "'%s'", x.s);
	case XV_TENSOR: return text_appendf(buf, size, at, "%s", v->ix->g->tensors[x.i].name);
	case XV_LIST:
		at = text_appendf(buf, size, at, "[");
		for (int32_t k = 0; k < x.n; k++) {
			if (k == 16) {
				at = text_appendf(buf, size, at, ", …");
				break;
			}
			at = value_text(v, *item(v, x, k), buf, size, k ? text_appendf(buf, size, at, ", ") : at);
		}
		return text_appendf(buf, size, at, "]");
	}
	return at;
}

static bool is_literal(const fd_expr *e)
{
	if (e->kind == EX_LIST) {
		for (int k = 0; k < e->n; k++)
			if (!is_literal(e->args[k]))
				return false;
		return true;
	}
	return e->kind <= EX_NULL;
}

/* e evaluated again for the words, a budget of its own; what it made is
 * dropped after (mark). */
static xval eval_again(env *v, const fd_expr *e, size_t *mark)
{
	*mark = v->pool.n;
	v->built = 0;
	v->failed = false;
	return eval(v, e);
}

/* "text is value" for one part, "; "-separated from the parts before. */
static size_t part_text(env *v, const fd_expr *e, char *buf, size_t size, size_t at, int *parts)
{
	int len;
	const char *t = expr_text(e, &len);
	size_t mark;
	xval x = eval_again(v, e, &mark);
	at = text_appendf(buf, size, at, "%s%.*s is ", (*parts)++ ? "; " : "", len, t);
	at = value_text(v, x, buf, size, at);
	v->pool.n = mark;
	return at;
}

/* The values of the names and calls in e (each as written), or of both
 * sides of a comparison. */
static size_t describe_parts(env *v, const fd_expr *e, char *buf, size_t size, size_t at, int *parts, int depth)
{
	if (depth > 8)
		return at;
	bool compare_op = e->kind == EX_BINARY && e->op >= XO_EQ && e->op <= XO_NOT_IN;
	bool leaf = e->kind == EX_NAME || e->kind == EX_CALL || e->kind == EX_INDEX || e->kind == EX_SLICE;
	if (leaf && !(e->kind == EX_NAME && e->tensor))
		return part_text(v, e, buf, size, at, parts);
	for (int k = 0; k < e->n; k++) {
		const fd_expr *a = e->args[k];
		if (!a || is_literal(a))
			continue;
		if (compare_op && (a->kind == EX_BINARY || a->kind == EX_LIST))
			at = part_text(v, a, buf, size, at, parts);
		else
			at = describe_parts(v, a, buf, size, at, parts, depth + 1);
	}
	return at;
}

/* The first conjunct of an && chain that is not true. */
static const fd_expr *failing_part(env *v, const fd_expr *e)
{
	while (e->kind == EX_BINARY && e->op == XO_AND) {
		size_t mark;
		xval a = eval_again(v, e->args[0], &mark);
		v->pool.n = mark;
		if (!(a.kind == XV_BOOL && a.i))
			e = e->args[0];
		else
			e = e->args[1];
	}
	return e;
}

/* "cannot be evaluated at character 5: x / 0 divides by zero". */
static void fault_text(const env *v, char *text, size_t size)
{
	text_appendf(text, size, 0, "cannot be evaluated at character %d: %s", v->fault_part ? v->fault_part->at + 1 : 1,
	           v->fault_why);
}

int match_where_eval(const fd_match_ctx *ctx, int32_t gi, int32_t u, int op, const fd_where_ops *ops, const fd_expr *e,
                     char *text, size_t size, int32_t *fault_at)
{
	const fd_graph_index *ix = &ctx->graphs[gi];
	env v = { .ctx = ctx, .gi = gi, .ix = ix, .model = ctx->model, .u = u, .op = op, .ops = ops };
	v.comp = match_composite(ctx, gi, u);
	v.node = &ix->g->nodes[v.comp ? v.comp->last : u];
	xval x = eval(&v, e);
	int res = v.failed ? -2 : x.kind == XV_BOOL ? (int)x.i : undecided(x) ? -1 : 0;
	if (fault_at)
		*fault_at = v.failed && v.fault_part ? v.fault_part->at : -1;
	if (text && size) {
		text[0] = '\0';
		size_t at = 0;
		int parts = 0;
		if (res == -2) {
			fault_text(&v, text, size);
		} else if (res == 1) {
			at = describe_parts(&v, e, text, size, 0, &parts, 0);
			if (!parts)
				text_appendf(text, size, 0, "true");
		} else if (x.kind != XV_BOOL && !undecided(x)) {
			at = text_appendf(text, size, 0, "not true or false: ");
			value_text(&v, x, text, size, at);
		} else {
			const fd_expr *part = failing_part(&v, e);
			int len;
			const char *t = expr_text(part, &len);
			if (part != e)
				at = text_appendf(text, size, at, "%.*s is %s: ", len, t, res < 0 ? "undecided" : "false");
			size_t mark;
			xval px = eval_again(&v, part, &mark);
			v.pool.n = mark;
			if (undecided(px))
				at = text_appendf(text, size, at, "%s (%s)", px.kind == XV_ERROR ? "error" : "unknown", px.s);
			else if (describe_parts(&v, part, text, size, at, &parts, 0), !parts)
				text_appendf(text, size, at, "false");
		}
	}
	vec_release(&v.pool);
	return res;
}

bool match_where_constant_fault(const fd_expr *e, size_t *at, char *text, size_t size)
{
	env v = { 0 };
	eval(&v, e);
	if (v.failed) {
		*at = v.fault_part ? (size_t)v.fault_part->at : 0;
		text_appendf(text, size, 0, "%s", v.fault_why);
	}
	vec_release(&v.pool);
	return v.failed;
}
