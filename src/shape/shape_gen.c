/* shape_gen.c — ops that make new shapes or values: Shape, Size, Constant,
 * ConstantOfShape, Range, EyeLike's kin (RandomNormal …), TopK, NonZero,
 * Compress, OneHot, the reductions and ArgMax / ArgMin, Det, Einsum.
 * Shape, Size, Constant, ConstantOfShape, Range and the integer reductions
 * fold to values: they start the shape arithmetic of real exports.
 * */
#include <math.h>
#include <string.h>
#include "shape/shape_infer.h"

static void infer_shape(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t start = sh_attr_int(c, "start", 0), end;

	if (!x || x->rank < 0) {
		sh_set(c, 0, DT_INT64, 1, (fd_dim[1]){ dim_unknown() });
		return;
	}
	end = sh_attr_int(c, "end", x->rank);
	if (start < 0)
		start += x->rank;
	if (end < 0)
		end += x->rank;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < start ? start : end > x->rank ? x->rank : end;
	sh_set(c, 0, DT_INT64, 1, (fd_dim[1]){ dim_of(end - start) });
	/* the value keeps each dim: a number, or its expression (a symbol) */
	fd_const *v = const_new(c, DT_INT64, end - start);
	if (!v)
		return;
	for (int64_t i = start; i < end; i++)
		const_store_sint(c, v, i - start, sint_of_dim(x->dims[i]));
	sh_set_value(c, 0, v);
}

static void infer_size(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t n;

	sh_set(c, 0, DT_INT64, 0, NULL);
	(void)n;
	if (!x || x->rank < 0)
		return;
	fd_dim size = dim_product(x->dims, 0, x->rank);
	if (!dim_defined(size))
		return;
	fd_const *v = const_new(c, DT_INT64, 1);
	const_store_sint(c, v, 0, sint_of_dim(size));
	sh_set_value(c, 0, v);
}

/* Shape and value of an attribute tensor (Constant, ConstantOfShape). */
static void set_from_attr_tensor(shape_ctx *c, const fd_attr_tensor *t)
{
	sh_set_shape(c, 0, t->dtype, &t->shape);
	if (t->value)
		sh_set_value(c, 0, t->value);
}

/* value_float(s) / value_int(s) of dtype dt: a scalar, or a 1-D list. */
static void constant_numbers(shape_ctx *c, const fd_attr *a, int32_t dt)
{
	bool is_float = dt == DT_FLOAT;
	bool list = a->type == (is_float ? ATTR_FLOATS : ATTR_INTS);
	fd_dim len = dim_of(a->count);

	sh_set(c, 0, dt, list, &len);
	fd_const *v = const_new(c, dt, list ? a->count : 1);
	for (int64_t k = 0; v && k < v->count; k++) {
		if (is_float)
			v->f64[k] = list ? a->u.floats[k] : a->u.f;
		else
			v->i64[k] = list ? a->u.ints[k] : a->u.i;
	}
	sh_set_value(c, 0, v);
}

/* The first value attribute decides. */
static void infer_constant(shape_ctx *c)
{
	for (int32_t i = 0; i < c->n->n_attrs; i++) {
		const fd_attr *a = &c->n->attrs[i];
		if (!strcmp(a->name, "value") || !strcmp(a->name, "sparse_value")) {
			if (a->type == ATTR_TENSOR || a->type == ATTR_SPARSE_TENSOR)
				set_from_attr_tensor(c, a->u.t);
			return;
		}
		if (!strcmp(a->name, "value_float") || !strcmp(a->name, "value_floats")) {
			constant_numbers(c, a, DT_FLOAT);
			return;
		}
		if (!strcmp(a->name, "value_int") || !strcmp(a->name, "value_ints")) {
			constant_numbers(c, a, DT_INT64);
			return;
		}
		if (!strcmp(a->name, "value_string") || !strcmp(a->name, "value_strings")) {
			fd_dim len = dim_of(a->count);
			sh_set(c, 0, DT_STRING, a->type == ATTR_STRINGS, &len);
			return;
		}
	}
}

/* A rank-1 integer input that holds a shape: its values as dims, or (when
 * only its length is known) that many unknown dims. Returns the rank. */
static int32_t shape_from_input(const shape_ctx *c, int i, fd_dim *dims)
{
	int64_t n;

	if (sh_in_dims(c, i, dims, SHAPE_MAX_RANK, &n))
		return (int32_t)n;
	const fd_shape *s = sh_in_shape(c, i);
	n = s && s->rank == 1 ? s->dims[0].value : -1;
	if (n < 0 || n > SHAPE_MAX_RANK)
		return -1;
	for (int64_t k = 0; k < n; k++)
		dims[k] = dim_unknown();
	return (int32_t)n;
}

static void infer_constant_of_shape(shape_ctx *c)
{
	const fd_attr *a = sh_attr(c, "value");
	const fd_attr_tensor *t = a && a->type == ATTR_TENSOR ? a->u.t : NULL;
	int32_t dt = t ? t->dtype : DT_FLOAT, r;
	fd_dim dims[SHAPE_MAX_RANK];

	r = shape_from_input(c, 0, dims);
	sh_set(c, 0, dt, r, dims);
	int64_t count = r >= 0 ? shape_dims_product(dims, 0, r) : -1;
	if (count < 0 || count > FD_CONST_MAX || (t && (!t->value || t->value->count < 1)))
		return;
	fd_const *v = const_new(c, dt, count);
	if (!v)
		return;
	for (int64_t k = 0; k < count; k++)
		if (t)
			const_copy_elem(c, v, k, t->value, 0);
	sh_set_value(c, 0, v);
}

/* Range over integers whose start or limit is symbolic (Range(0, seq, 1)):
 * the length ceil((limit - start) / delta) for a number delta. */
static bool range_symbolic(shape_ctx *c, int32_t dt)
{
	fd_sint s[1], l[1], d[1];
	int64_t n;
	if (!sh_in_sints(c, 0, s, 1, &n) || n != 1 || !sh_in_sints(c, 1, l, 1, &n) || n != 1 ||
	    !sh_in_sints(c, 2, d, 1, &n) || n != 1 || d[0].e || !d[0].n || d[0].n == SINT_UNKNOWN ||
	    (!s[0].e && !l[0].e))
		return false;
	int64_t step = d[0].n;
	fd_sint span = step > 0 ? sint_sub(l[0], s[0]) : sint_sub(s[0], l[0]);
	int64_t q = step > 0 ? step : -step;
	fd_sint len = sint_floordiv(sint_add(span, sint_num(q - 1)), sint_num(q));
	sh_set(c, 0, dt, 1, (fd_dim[1]){ dim_of_sint(len) });
	return true;
}

static void infer_range(shape_ctx *c)
{
	const fd_const *s = sh_in_const(c, 0), *l = sh_in_const(c, 1), *d = sh_in_const(c, 2);
	int32_t dt = sh_in_dtype(c, 0);
	int64_t n = -1;
	double span = 0, step = 0;

	if (range_symbolic(c, dt))
		return;
	if (s && l && d && s->count == 1 && l->count == 1 && d->count == 1 &&
	    !s->i64 == !l->i64 && !s->i64 == !d->i64) {
		span = const_num(l, 0) - const_num(s, 0);
		step = const_num(d, 0);
	}
	if (step != 0) {
		double q = ceil(span / step);
		n = q < 0 ? 0 : q > FD_CONST_MAX * 1024.0 * 1024.0 ? -1 : (int64_t)q;
	}
	sh_set(c, 0, dt, 1, (fd_dim[1]){ { n, NULL } });
	fd_const *v = n >= 0 ? const_new(c, dt, n) : NULL;
	if (!v)
		return;
	for (int64_t k = 0; k < n; k++)
		if (s->i64)
			const_store(v, k, 0, s->i64[0] + k * d->i64[0], true);
		else
			const_store(v, k, s->f64[0] + (double)k * d->f64[0], 0, false);
	sh_set_value(c, 0, v);
}

static void infer_topk(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t k = -1;
	int32_t ax;
	fd_dim dims[SHAPE_MAX_RANK];

	if (c->opset < 10)
		k = sh_attr_int(c, "k", -1);
	else if (!sh_in_int(c, 1, &k))
		k = -1;
	if (!x || x->rank < 1 || x->rank > SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", -1), x->rank, &ax)) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		sh_set(c, 1, DT_INT64, -1, NULL);
		return;
	}
	dims_copy(dims, x->dims, x->rank);
	dims[ax] = k >= 0 ? dim_of(k) : dim_unknown();
	sh_set(c, 0, sh_in_dtype(c, 0), x->rank, dims);
	sh_set(c, 1, DT_INT64, x->rank, dims);
}

static void infer_nonzero(shape_ctx *c)
{
	int32_t r = sh_in_rank(c, 0);
	fd_dim dims[2] = { r >= 0 ? dim_of(r) : dim_unknown(), dim_unknown() };

	sh_set(c, 0, DT_INT64, 2, dims);
}

static void infer_compress(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	const int64_t *cond;
	int64_t n, kept = -1;
	int32_t ax, dt = sh_in_dtype(c, 0);
	fd_dim dims[SHAPE_MAX_RANK];

	if (sh_in_ints(c, 1, &cond, &n)) {
		kept = 0;
		for (int64_t i = 0; i < n; i++)
			kept += cond[i] != 0;
	}
	if (!sh_attr(c, "axis")) {
		sh_set(c, 0, dt, 1, (fd_dim[1]){ { kept, NULL } });
		return;
	}
	if (!x || x->rank < 1 || x->rank > SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", 0), x->rank, &ax)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	dims_copy(dims, x->dims, x->rank);
	dims[ax] = kept >= 0 && kept <= x->dims[ax].value ? dim_of(kept) : dim_unknown();
	sh_set(c, 0, dt, x->rank, dims);
}

static void infer_onehot(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	const fd_const *dep = sh_in_const(c, 1);
	int32_t dt = sh_in_dtype(c, 2), ax;
	fd_dim dims[SHAPE_MAX_RANK];

	if (!x || x->rank < 0 || x->rank >= SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", -1), x->rank + 1, &ax)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	for (int32_t i = 0, j = 0; i <= x->rank; i++)
		dims[i] = i == ax ? (dep && dep->count == 1 ? dim_of(const_int(dep, 0)) : dim_unknown())
		                  : x->dims[j++];
	sh_set(c, 0, dt, x->rank + 1, dims);
}

/* Reductions: axes from the attribute, or from input 1 (ReduceSum from
 * opset 13, the others from 18); keepdims; noop_with_empty_axes. */
enum { R_NONE, R_SUM, R_PROD, R_MAX, R_MIN };

/* The same over symbolic elements (ReduceProd of a Shape is the element
 * count): sums and products only. */
static void fold_reduce_symbolic(shape_ctx *c, const bool *red, int32_t r, const fd_dim *od, int32_t orank)
{
	fd_tensor *x = sh_in(c, 0);
	int64_t count = shape_dims_product(od, 0, orank), idx[SHAPE_MAX_RANK] = { 0 };
	if (c->arg != R_SUM && c->arg != R_PROD)
		return;
	fd_const *v = const_new(c, x->dtype, count);
	fd_sint *acc = arena_array(&c->m->arena, (size_t)count + 1, sizeof *acc);
	bool *seen = arena_array(&c->m->arena, (size_t)count + 1, sizeof *seen);
	if (!v)
		return;
	for (int64_t k = 0; k < x->value->count; k++, shape_index_next(idx, r, x->shape.dims)) {
		int64_t o = 0;
		for (int32_t i = 0; i < r; i++)
			if (!red[i])
				o = o * x->shape.dims[i].value + idx[i];
		fd_sint e = const_sint(x->value, k);
		acc[o] = !seen[o] ? e : c->arg == R_SUM ? sint_add(acc[o], e) : sint_mul(acc[o], e);
		seen[o] = true;
	}
	for (int64_t o = 0; o < count; o++) {
		if (!seen[o])
			return;
		const_store_sint(c, v, o, acc[o]);
	}
	sh_set_value(c, 0, v);
}

static void fold_reduce(shape_ctx *c, const bool *red, int32_t r, const fd_dim *od, int32_t orank)
{
	fd_tensor *x = sh_in(c, 0);
	int64_t n_in, count = shape_dims_product(od, 0, orank), idx[SHAPE_MAX_RANK] = { 0 };

	if (c->arg == R_NONE || !x->value || !shape_elements(&x->shape, &n_in) || n_in != x->value->count ||
	    count < 0 || count > FD_CONST_MAX)
		return;
	if (x->value->sym) {
		fold_reduce_symbolic(c, red, r, od, orank);
		return;
	}
	fd_const *v = const_new(c, x->dtype, count);
	bool *seen = arena_array(&c->m->arena, (size_t)count + 1, sizeof *seen);
	if (!v)
		return;
	for (int64_t k = 0; k < n_in; k++, shape_index_next(idx, r, x->shape.dims)) {
		int64_t o = 0;
		for (int32_t i = 0; i < r; i++)
			if (!red[i])
				o = o * x->shape.dims[i].value + idx[i];
		double a = v->f64 ? v->f64[o] : 0, b = const_num(x->value, k);
		int64_t ai = v->i64 ? v->i64[o] : 0, bi = const_int(x->value, k);
		if (!seen[o]) {
			const_copy_elem(c, v, o, x->value, k);
			seen[o] = true;
			continue;
		}
		switch (c->arg) {
		case R_SUM:
			if (v->i64 && __builtin_add_overflow(ai, bi, &ai))
				return;
			a += b;
			break;
		case R_PROD:
			if (v->i64 && __builtin_mul_overflow(ai, bi, &ai))
				return;
			a *= b;
			break;
		case R_MAX: ai = ai > bi ? ai : bi; a = fmax(a, b); break;
		case R_MIN: ai = ai < bi ? ai : bi; a = fmin(a, b); break;
		}
		if (v->i64)
			v->i64[o] = ai;
		else
			v->f64[o] = a;
	}
	for (int64_t o = 0; o < count; o++)
		if (!seen[o])   /* reduction over an empty dim: leave it unfolded */
			return;
	sh_set_value(c, 0, v);
}

static void infer_reduce(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1, ax, orank = 0;
	bool keep = sh_attr_int(c, "keepdims", 1) != 0, red[SHAPE_MAX_RANK];
	bool noop = sh_attr_int(c, "noop_with_empty_axes", 0) != 0;
	const int64_t *axes = NULL;
	int64_t n = 0;
	fd_dim dims[SHAPE_MAX_RANK];

	if (r < 0 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	if (sh_in(c, 1) && !sh_in_ints(c, 1, &axes, &n)) {
		/* which axes go is not known; with keepdims the rank stays */
		for (int32_t i = 0; i < r; i++)
			dims[i] = dim_unknown();
		sh_set(c, 0, dt, keep ? r : -1, dims);
		return;
	}
	if (!sh_in(c, 1))
		axes = sh_attr_ints(c, "axes", &n);
	if (!axes || n == 0) {
		if (noop) {
			sh_same(c, 0, 0, DT_UNDEFINED);
			return;
		}
		n = 0;
	}
	for (int32_t i = 0; i < r; i++)
		red[i] = n == 0;
	for (int64_t i = 0; i < n; i++) {
		if (!shape_axis_norm(axes[i], r, &ax)) {
			sh_set(c, 0, dt, -1, NULL);
			return;
		}
		red[ax] = true;
	}
	for (int32_t i = 0; i < r; i++)
		if (!red[i])
			dims[orank++] = x->dims[i];
		else if (keep)
			dims[orank++] = dim_of(1);
	sh_set(c, 0, dt, orank, dims);
	fold_reduce(c, red, r, dims, orank);
}

static void infer_argmax(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	bool keep = sh_attr_int(c, "keepdims", 1) != 0;
	int32_t ax, r = 0;
	fd_dim dims[SHAPE_MAX_RANK];

	if (!x || x->rank < 1 || x->rank > SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", 0), x->rank, &ax)) {
		sh_set(c, 0, DT_INT64, -1, NULL);
		return;
	}
	for (int32_t i = 0; i < x->rank; i++)
		if (i != ax)
			dims[r++] = x->dims[i];
		else if (keep)
			dims[r++] = dim_of(1);
	sh_set(c, 0, DT_INT64, r, dims);
}

static void infer_random(shape_ctx *c)
{
	int64_t n = 0;
	const int64_t *sh = sh_attr_ints(c, "shape", &n);
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t dt = (int32_t)sh_attr_int(c, "dtype", DT_FLOAT);

	if (!sh || n > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		dims[i] = sh[i] >= 0 ? dim_of(sh[i]) : dim_unknown();
	sh_set(c, 0, dt, (int32_t)n, dims);
}

static void infer_multinomial(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	fd_dim dims[2] = { x && x->rank == 2 ? x->dims[0] : dim_unknown(),
	                   dim_of(sh_attr_int(c, "sample_size", 1)) };

	sh_set(c, 0, (int32_t)sh_attr_int(c, "dtype", DT_INT32), 2, dims);
}

static void infer_nms(shape_ctx *c)
{
	sh_set(c, 0, DT_INT64, 2, (fd_dim[2]){ dim_unknown(), dim_of(3) });
}

static void infer_det(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);

	if (!x || x->rank < 2)
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
	else
		sh_set(c, 0, sh_in_dtype(c, 0), x->rank - 2, x->dims);
}

/* Two dims that must broadcast together (an Einsum letter seen twice). */
static fd_dim merge_dim(fd_dim a, fd_dim b)
{
	fd_shape sa = { 1, &a }, sb = { 1, &b };
	const fd_shape *both[2] = { &sa, &sb };
	fd_dim out;
	int32_t r;

	sh_broadcast(both, 2, &r, &out);
	return out;
}

static int einsum_letter(char ch)
{
	return ch >= 'a' && ch <= 'z' ? ch - 'a' : ch >= 'A' && ch <= 'Z' ? 26 + ch - 'A' : -1;
}

/* Einsum: letters name dims; "..." is broadcast; without "->" the output is
 * the broadcast dims then the letters used once, in alphabetical order
 * (upper case first, as in ASCII). */
static void infer_einsum(shape_ctx *c)
{
	const char *eq = sh_attr_str(c, "equation", NULL), *p;
	fd_dim letter[52], ell[SHAPE_MAX_RANK], tmp[SHAPE_MAX_RANK], dims[SHAPE_MAX_RANK];
	int uses[52] = { 0 }, term = 0;
	int32_t dt = sh_in_dtype(c, 0), r = 0, n_ell = 0;

	if (!eq) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	for (p = eq; *p && *p != '-'; term++) {
		const fd_shape *s = sh_in_shape(c, term);
		int n_let = 0, at = 0;
		for (const char *q = p; *q && *q != ',' && *q != '-'; q++)
			n_let += einsum_letter(*q) >= 0;
		if (!s || s->rank < n_let || s->rank > SHAPE_MAX_RANK) {
			sh_set(c, 0, dt, -1, NULL);
			return;
		}
		for (; *p && *p != ',' && *p != '-'; p++) {
			int l = einsum_letter(*p);
			if (*p == '.' && !strncmp(p, "...", 3)) {
				fd_shape a = { n_ell, ell }, b = { s->rank - n_let, s->dims + at };
				const fd_shape *both[2] = { &a, &b };
				sh_broadcast(both, 2, &n_ell, tmp);
				dims_copy(ell, tmp, n_ell);
				at += b.rank;
				p += 2;
			} else if (l >= 0) {
				letter[l] = uses[l] ? merge_dim(letter[l], s->dims[at]) : s->dims[at];
				at++;
				uses[l]++;
			}
		}
		if (*p == ',')
			p++;
	}
	if (*p == '-' && p[1] == '>') {
		for (p += 2; *p && r < SHAPE_MAX_RANK; p++) {
			int l = einsum_letter(*p);
			if (*p == '.' && !strncmp(p, "...", 3)) {
				for (int i = 0; i < n_ell && r < SHAPE_MAX_RANK; i++)
					dims[r++] = ell[i];
				p += 2;
			} else if (l >= 0) {
				dims[r++] = uses[l] ? letter[l] : dim_unknown();
			}
		}
	} else {
		for (int i = 0; i < n_ell; i++)
			dims[r++] = ell[i];
		for (int l = 26; l < 52 && r < SHAPE_MAX_RANK; l++)
			if (uses[l] == 1)
				dims[r++] = letter[l];
		for (int l = 0; l < 26 && r < SHAPE_MAX_RANK; l++)
			if (uses[l] == 1)
				dims[r++] = letter[l];
	}
	sh_set(c, 0, dt, r, dims);
}

const shape_op shape_ops_gen[] = {
	{ "", "ArgMax", infer_argmax, 0 },
	{ "", "ArgMin", infer_argmax, 0 },
	{ "", "Compress", infer_compress, 0 },
	{ "", "Constant", infer_constant, 0 },
	{ "", "ConstantOfShape", infer_constant_of_shape, 0 },
	{ "", "Det", infer_det, 0 },
	{ "", "Einsum", infer_einsum, 0 },
	{ "", "Multinomial", infer_multinomial, 0 },
	{ "", "NonMaxSuppression", infer_nms, 0 },
	{ "", "NonZero", infer_nonzero, 0 },
	{ "", "OneHot", infer_onehot, 0 },
	{ "", "RandomNormal", infer_random, 0 },
	{ "", "RandomUniform", infer_random, 0 },
	{ "", "Range", infer_range, 0 },
	{ "", "ReduceL1", infer_reduce, R_NONE },
	{ "", "ReduceL2", infer_reduce, R_NONE },
	{ "", "ReduceLogSum", infer_reduce, R_NONE },
	{ "", "ReduceLogSumExp", infer_reduce, R_NONE },
	{ "", "ReduceMax", infer_reduce, R_MAX },
	{ "", "ReduceMean", infer_reduce, R_NONE },
	{ "", "ReduceMin", infer_reduce, R_MIN },
	{ "", "ReduceProd", infer_reduce, R_PROD },
	{ "", "ReduceSum", infer_reduce, R_SUM },
	{ "", "ReduceSumSquare", infer_reduce, R_NONE },
	{ "", "Shape", infer_shape, 0 },
	{ "", "Size", infer_size, 0 },
	{ "", "TopK", infer_topk, 0 },
	{ NULL, NULL, NULL, 0 },
};
