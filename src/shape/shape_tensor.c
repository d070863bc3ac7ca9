/* shape_tensor.c — ops that move data without computing on it: Reshape,
 * Flatten, Transpose, Squeeze / Unsqueeze, Concat, Split, Slice, Gather*,
 * Expand, Tile, Pad. Those that carry shape arithmetic in real exports
 * (Reshape, Squeeze, Unsqueeze, Concat, Slice, Gather, Expand, Transpose)
 * also carry small constant values through.
 * */
#include <string.h>
#include "shape/shape_infer.h"

/* Integer list from input i (when present) or else attribute name. */
static bool ints_from(const shape_ctx *c, int i, const char *name, const int64_t **v, int64_t *n)
{
	if (sh_in(c, i))
		return sh_in_ints(c, i, v, n);
	*v = sh_attr_ints(c, name, n);
	return *v != NULL;
}

/* Output 0 gets input 0's value when the data is only reshaped. */
static void pass_value(const shape_ctx *c)
{
	fd_tensor *x = sh_in(c, 0);

	if (x && x->value)
		sh_set_value(c, 0, x->value);
}

/* The target shape of a Reshape: from the attribute before opset 5, else the
 * (possibly symbolic) value of input 1. False when not known. */
static bool reshape_target(const shape_ctx *c, fd_sint *sh, int64_t *n)
{
	if (c->opset >= 5)
		return sh_in_sints(c, 1, sh, SHAPE_MAX_RANK, n);
	const int64_t *a = sh_attr_ints(c, "shape", n);
	if (!a || *n > SHAPE_MAX_RANK)
		return false;
	for (int64_t i = 0; i < *n; i++)
		sh[i] = sint_num(a[i]);
	return true;
}

static void infer_reshape(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0), neg = -1;
	fd_sint sh[SHAPE_MAX_RANK];
	int64_t n;
	bool allowzero = sh_attr_int(c, "allowzero", 0) != 0;
	fd_dim dims[SHAPE_MAX_RANK];

	if (shape_onnx_mode_reads_folded_only(c, 1)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	if (!reshape_target(c, sh, &n)) {
		/* the shape's length still gives the rank */
		const fd_shape *s1 = sh_in_shape(c, 1);
		n = s1 && s1->rank == 1 ? s1->dims[0].value : -1;
		for (int64_t i = 0; i < n && i < SHAPE_MAX_RANK; i++)
			dims[i] = dim_unknown();
		sh_set(c, 0, dt, n >= 0 && n <= SHAPE_MAX_RANK ? (int32_t)n : -1, dims);
		return;
	}
	for (int32_t i = 0; i < n; i++) {
		int64_t v;
		bool num = sint_value(sh[i], &v);
		if (num && v == 0 && !allowzero && !sh[i].e)
			dims[i] = x && x->rank > i ? x->dims[i] : dim_unknown();
		else if (num && v == -1 && !sh[i].e && neg < 0)
			neg = i, dims[i] = dim_unknown();
		else
			dims[i] = dim_of_sint(sh[i]);
	}
	if (neg >= 0 && x && x->rank >= 0) {
		/* -1 = all elements / the others: exact in symbols (B*S*32 / (B*S*4) = 8) */
		fd_dim total = dim_product(x->dims, 0, x->rank);
		fd_dim rest = dim_of(1);
		for (int32_t i = 0; i < n; i++)
			if (i != neg)
				rest = dim_mul(rest, dims[i]);
		if (dim_defined(total) && dim_defined(rest) && !(rest.value == 0 && !rest.expr))
			dims[neg] = dim_div_exact(total, rest);
	}
	int64_t in_n = x && x->rank >= 0 ? shape_dims_product(x->dims, 0, x->rank) : -1;
	int64_t out_n = shape_dims_product(dims, 0, (int32_t)n);
	if (in_n >= 0 && out_n >= 0 && in_n != out_n)
		diag_warning(c->d, srcpos_file(c->m->path),
		             "node %s (Reshape): %lld elements cannot take a shape of %lld",
		             c->n->name, (long long)in_n, (long long)out_n);
	sh_set(c, 0, dt, (int32_t)n, dims);
	pass_value(c);
}

static void infer_flatten(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t axis = sh_attr_int(c, "axis", 1);
	fd_dim dims[2];

	if (!x || x->rank < 0) {
		sh_set(c, 0, sh_in_dtype(c, 0), 2, (fd_dim[2]){ dim_unknown(), dim_unknown() });
		return;
	}
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims[0] = dim_product(x->dims, 0, (int32_t)axis);
	dims[1] = dim_product(x->dims, (int32_t)axis, x->rank);
	sh_set(c, 0, sh_in_dtype(c, 0), 2, dims);
	pass_value(c);
}

static void infer_transpose(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t n = 0, perm[SHAPE_MAX_RANK];
	const int64_t *p = sh_attr_ints(c, "perm", &n);
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t r = x ? x->rank : -1, ax;

	if (r < 0 || r > SHAPE_MAX_RANK || (p && n != r)) {
		/* a perm still gives the rank */
		r = p && n <= SHAPE_MAX_RANK ? (int32_t)n : -1;
		for (int32_t i = 0; i < r; i++)
			dims[i] = dim_unknown();
		sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
		return;
	}
	bool used[SHAPE_MAX_RANK] = { false };
	for (int32_t i = 0; i < r; i++) {
		perm[i] = p ? p[i] : r - 1 - i;
		if (!shape_axis_norm(perm[i], r, &ax) || used[ax]) {
			sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
			return;
		}
		used[ax] = true;
		perm[i] = ax;
		dims[i] = x->dims[ax];
	}
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);

	/* fold: out[idx] = in[idx permuted back] */
	fd_tensor *xt = sh_in(c, 0);
	int64_t count;
	if (!xt->value || !shape_is_known(x) || !shape_elements(x, &count) || count != xt->value->count)
		return;
	fd_const *v = const_new(c, xt->dtype, count);
	int64_t idx[SHAPE_MAX_RANK] = { 0 }, stride[SHAPE_MAX_RANK];
	if (!v)
		return;
	for (int64_t i = r - 1, s = 1; i >= 0; i--) {
		stride[i] = s;
		s *= x->dims[i].value;
	}
	for (int64_t k = 0; k < count; k++, shape_index_next(idx, r, dims)) {
		int64_t off = 0;
		for (int32_t i = 0; i < r; i++)
			off += idx[i] * stride[perm[i]];
		const_copy_elem(c, v, k, xt->value, off);
	}
	sh_set_value(c, 0, v);
}

static void infer_squeeze(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	const int64_t *axes = NULL;
	int64_t n = 0;
	bool drop[SHAPE_MAX_RANK] = { false }, have;
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t r = 0, ax;

	have = c->opset >= 13 ? sh_in(c, 1) != NULL : (axes = sh_attr_ints(c, "axes", &n)) != NULL;
	if (have && c->opset >= 13 && !sh_in_ints(c, 1, &axes, &n))
		axes = NULL;
	if (!x || x->rank < 0 || x->rank > SHAPE_MAX_RANK || (have && !axes)) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	for (int64_t i = 0; have && i < n; i++) {
		if (!shape_axis_norm(axes[i], x->rank, &ax))
			return;
		drop[ax] = true;
	}
	for (int32_t i = 0; !have && i < x->rank; i++) {
		/* every 1 goes; an unknown or symbolic dim may or may not be 1 */
		if (x->dims[i].value < 0 || x->dims[i].expr) {
			sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
			return;
		}
		drop[i] = x->dims[i].value == 1;
	}
	for (int32_t i = 0; i < x->rank; i++)
		if (!drop[i])
			dims[r++] = x->dims[i];
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
	pass_value(c);
}

static void infer_unsqueeze(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	const int64_t *axes;
	int64_t n;
	bool add[SHAPE_MAX_RANK] = { false };
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t ax;

	if (!ints_from(c, 1, "axes", &axes, &n) || !x || x->rank < 0 ||
	    x->rank + n > SHAPE_MAX_RANK) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	int32_t r = x->rank + (int32_t)n;
	for (int64_t i = 0; i < n; i++) {
		if (!shape_axis_norm(axes[i], r, &ax) || add[ax])
			return;
		add[ax] = true;
	}
	for (int32_t i = 0, j = 0; i < r; i++)
		dims[i] = add[i] ? dim_of(1) : x->dims[j++];
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
	pass_value(c);
}

static void infer_concat(shape_ctx *c)
{
	int32_t r = -1, ax, dt = DT_UNDEFINED, n = c->n->n_inputs;
	fd_dim dims[SHAPE_MAX_RANK], sum = dim_of(0);
	bool all_values = true;

	for (int i = 0; i < n; i++) {
		const fd_tensor *t = sh_in(c, i);
		if (t && dt == DT_UNDEFINED)
			dt = t->dtype;
		if (t && t->shape.rank >= 0 && r < 0)
			r = t->shape.rank;
	}
	if (r < 1 || r > SHAPE_MAX_RANK || !shape_axis_norm(sh_attr_int(c, "axis", 0), r, &ax)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	for (int32_t k = 0; k < r; k++)
		dims[k] = dim_unknown();
	for (int i = 0; i < n; i++) {
		const fd_tensor *t = sh_in(c, i);
		if (!t)
			continue;
		if (t->shape.rank != r) {
			sum = dim_unknown();
			all_values = false;
			continue;
		}
		/* the other axes agree in a valid model: take the most specific */
		for (int32_t k = 0; k < r; k++) {
			fd_dim o = t->shape.dims[k];
			if (k != ax && (!dim_defined(dims[k]) || (dims[k].value < 0 && o.value >= 0) ||
			                (dims[k].expr && dexpr_has_fresh(dims[k].expr) && o.expr && !dexpr_has_fresh(o.expr))))
				dims[k] = o;
		}
		sum = dim_add(sum, t->shape.dims[ax]);
		if (!t->value || !shape_is_known(&t->shape))
			all_values = false;
	}
	dims[ax] = sum;
	sh_set(c, 0, dt, r, dims);

	/* fold: blocks of the inputs' trailing dims, outer loop over leading dims */
	int64_t count = shape_dims_product(dims, 0, r), outer = shape_dims_product(dims, 0, ax);
	fd_tensor *out = sh_out(c, 0);
	if (!all_values || !out || count < 0 || count > FD_CONST_MAX || outer < 0)
		return;
	fd_const *v = const_new(c, out->dtype, count);
	int64_t k = 0;
	if (!v)
		return;
	for (int64_t o = 0; o < outer; o++)
		for (int i = 0; i < n; i++) {
			const fd_tensor *t = sh_in(c, i);
			if (!t)
				continue;
			int64_t inner = shape_dims_product(t->shape.dims, ax, r);
			for (int64_t j = 0; j < inner && k < count; j++)
				const_copy_elem(c, v, k++, t->value, o * inner + j);
		}
	if (k == count)
		sh_set_value(c, 0, v);
}

/* Integer list from input i (when present, possibly symbolic) or else
 * attribute name. */
static bool sints_from(const shape_ctx *c, int i, const char *name, fd_sint *out, int64_t max, int64_t *n)
{
	if (sh_in(c, i))
		return sh_in_sints(c, i, out, max, n);
	const int64_t *v = sh_attr_ints(c, name, n);
	if (!v || *n > max)
		return false;
	for (int64_t k = 0; k < *n; k++)
		out[k] = sint_num(v[k]);
	return true;
}

static void infer_split(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0), ax, n_out = c->n->n_outputs;
	fd_sint split[SHAPE_MAX_RANK];
	int64_t n = 0;
	fd_dim dims[SHAPE_MAX_RANK];

	if (!x || x->rank < 1 || x->rank > SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", 0), x->rank, &ax)) {
		for (int32_t k = 0; k < n_out; k++)
			sh_set(c, k, dt, -1, NULL);
		return;
	}
	bool given = n_out <= SHAPE_MAX_RANK && sints_from(c, 1, "split", split, SHAPE_MAX_RANK, &n) && n == n_out;
	bool unknown_split = sh_in(c, 1) && !given;
	/* equal parts; from opset 18 the last one may be smaller */
	fd_dim d = x->dims[ax], chunk = n_out > 0 ? dim_ceildiv(d, n_out) : dim_unknown();
	fd_dim last = dim_sub(d, dim_mul(chunk, dim_of(n_out - 1)));
	dims_copy(dims, x->dims, x->rank);
	for (int32_t k = 0; k < n_out; k++) {
		if (given)
			dims[ax] = dim_of_sint(split[k]);
		else
			dims[ax] = unknown_split ? dim_unknown() : k < n_out - 1 ? chunk : last;
		sh_set(c, k, dt, x->rank, dims);
	}
}

/* One sliced axis: clamps start / end as the ONNX spec says and returns the
 * length; *first gets the first index taken. */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *first)
{
	if (start < 0)
		start += dim;
	if (end < 0)
		end += dim;
	if (step > 0) {
		start = start < 0 ? 0 : start > dim ? dim : start;
		end = end < 0 ? 0 : end > dim ? dim : end;
		*first = start;
		return end > start ? (end - start - 1) / step + 1 : 0;
	}
	start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
	end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
	*first = start;
	if (step == INT64_MIN)  /* -step would overflow; one element at most */
		return start > end;
	return start > end ? (start - end - 1) / -step + 1 : 0;
}

/* Exporters write "to the end" as INT64_MAX, INT32_MAX, 2^31 - 1 …: any
 * bound this large is beyond every real dim. */
#define SLICE_OPEN ((int64_t)1 << 30)

/* A start or end normalised against a symbolic dim d, assuming what a valid
 * model has: -k counts from the end, a large bound is the end (d, or -1
 * before the first element for a negative step), anything else lies within
 * the dim. */
static fd_sint slice_bound(fd_dim d, fd_sint v, bool is_end, int64_t step)
{
	fd_sint sd = sint_of_dim(d);
	if (v.e)
		return v;
	if (v.n == SINT_UNKNOWN)
		return v;
	if (v.n >= SLICE_OPEN)
		return step > 0 ? sd : sint_sub(sd, sint_num(1));
	if (v.n <= -SLICE_OPEN)
		return step > 0 ? sint_num(0) : is_end ? sint_num(-1) : sint_num(0);
	return v.n < 0 ? sint_add(sd, v) : v;
}

/* The length of axis d sliced [start, end) by step: in symbols when d,
 * start or end are, checked against the numbers when they are known (a
 * clamp that the symbols assumed away makes it the number). */
static fd_dim slice_axis(fd_dim d, fd_sint start, fd_sint end, int64_t step, int64_t *first)
{
	int64_t dv = d.value, sv, ev, num = -1;
	*first = -1;
	if (dv >= 0 && sint_value(start, &sv) && sint_value(end, &ev))
		num = slice_len(dv, sv, ev, step, first);
	if (!d.expr && !start.e && !end.e)
		return num >= 0 ? dim_of(num) : dim_unknown();
	fd_sint s = slice_bound(d, start, false, step), e = slice_bound(d, end, true, step);
	int64_t q = step > 0 ? step : -step;
	fd_sint span = step > 0 ? sint_sub(e, s) : sint_sub(s, e);
	fd_dim len = dim_of_sint(sint_floordiv(sint_add(span, sint_num(q - 1)), sint_num(q)));
	if (num >= 0 && len.value != num)
		return dim_of(num);
	return dim_defined(len) ? len : num >= 0 ? dim_of(num) : dim_unknown();
}

static void infer_slice(shape_ctx *c)
{
	fd_tensor *xt = sh_in(c, 0);
	const fd_shape *x = xt ? &xt->shape : NULL;
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1, ax;
	fd_sint starts[SHAPE_MAX_RANK], ends[SHAPE_MAX_RANK];
	const int64_t *axes = NULL, *steps = NULL;
	int64_t ns, ne, na = 0, nst = 0;
	int64_t first[SHAPE_MAX_RANK], step[SHAPE_MAX_RANK];
	fd_dim dims[SHAPE_MAX_RANK];
	bool ok, axes_ok;

	if (r < 0 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	if (c->opset < 10) {
		axes = sh_attr_ints(c, "axes", &na);
		axes_ok = true;
		ok = sints_from(c, -1, "starts", starts, SHAPE_MAX_RANK, &ns) &&
		     sints_from(c, -1, "ends", ends, SHAPE_MAX_RANK, &ne) && ns == ne;
	} else {
		axes_ok = (!sh_in(c, 3) || sh_in_ints(c, 3, &axes, &na)) &&
		          (!sh_in(c, 4) || sh_in_ints(c, 4, &steps, &nst));
		ok = axes_ok && sh_in_sints(c, 1, starts, SHAPE_MAX_RANK, &ns) &&
		     sh_in_sints(c, 2, ends, SHAPE_MAX_RANK, &ne) && ns == ne;
	}
	if (ok && ((axes && na != ns) || (steps && nst != ns)))
		ok = false;
	dims_copy(dims, x->dims, r);
	for (int32_t i = 0; i < r; i++) {
		first[i] = 0;
		step[i] = 1;
	}
	for (int64_t i = 0; ok && i < ns; i++) {
		int64_t st = steps ? steps[i] : 1;
		if (!shape_axis_norm(axes ? axes[i] : i, r, &ax) || st == 0) {
			ok = false;
			break;
		}
		step[ax] = st;
		dims[ax] = slice_axis(x->dims[ax], starts[i], ends[i], st, &first[ax]);
	}
	if (!ok) {
		/* the rank stays; with the axes known, only they change */
		bool some = axes_ok && axes;
		dims_copy(dims, x->dims, r);
		for (int32_t i = 0; i < r && !some; i++)
			dims[i] = dim_unknown();
		for (int64_t i = 0; some && i < na; i++)
			if (shape_axis_norm(axes[i], r, &ax))
				dims[ax] = dim_unknown();
		sh_set(c, 0, dt, r, dims);
		return;
	}
	sh_set(c, 0, dt, r, dims);

	int64_t count = shape_dims_product(dims, 0, r), n_in;
	if (!xt->value || count < 0 || count > FD_CONST_MAX || !shape_is_known(x) ||
	    !shape_elements(x, &n_in) || n_in != xt->value->count)
		return;
	for (int32_t i = 0; i < r; i++)
		if (first[i] < 0)
			return;
	fd_const *v = const_new(c, xt->dtype, count);
	int64_t idx[SHAPE_MAX_RANK] = { 0 };
	if (!v)
		return;
	for (int64_t k = 0; k < count; k++, shape_index_next(idx, r, dims)) {
		int64_t off = 0;
		for (int32_t i = 0; i < r; i++)
			off = off * x->dims[i].value + first[i] + idx[i] * step[i];
		const_copy_elem(c, v, k, xt->value, off);
	}
	sh_set_value(c, 0, v);
}

static void infer_gather(shape_ctx *c)
{
	fd_tensor *data = sh_in(c, 0), *ind = sh_in(c, 1);
	int32_t dt = sh_in_dtype(c, 0), ax, r;
	fd_dim dims[SHAPE_MAX_RANK];

	if (!data || !ind || data->shape.rank < 1 || ind->shape.rank < 0 ||
	    data->shape.rank + ind->shape.rank - 1 > SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", 0), data->shape.rank, &ax)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	const fd_shape *ds = &data->shape, *is = &ind->shape;
	r = 0;
	for (int32_t i = 0; i < ax; i++)
		dims[r++] = ds->dims[i];
	for (int32_t i = 0; i < is->rank; i++)
		dims[r++] = is->dims[i];
	for (int32_t i = ax + 1; i < ds->rank; i++)
		dims[r++] = ds->dims[i];
	sh_set(c, 0, dt, r, dims);

	int64_t count = shape_dims_product(dims, 0, r), n_data;
	int64_t outer = shape_dims_product(ds->dims, 0, ax), inner = shape_dims_product(ds->dims, ax + 1, ds->rank);
	int64_t dim = ds->dims[ax].value, n_idx;
	if (!data->value || !ind->value || !ind->value->i64 || count < 0 || count > FD_CONST_MAX ||
	    outer < 0 || inner < 0 || dim < 0 || !shape_elements(ds, &n_data) ||
	    n_data != data->value->count || !shape_elements(is, &n_idx) || n_idx != ind->value->count)
		return;
	fd_const *v = const_new(c, data->dtype, count);
	int64_t k = 0;
	if (!v)
		return;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < n_idx; j++) {
			int64_t at = ind->value->i64[j];
			if (at < 0)
				at += dim;
			if (at < 0 || at >= dim)
				return;
			for (int64_t i = 0; i < inner; i++)
				const_copy_elem(c, v, k++, data->value, (o * dim + at) * inner + i);
		}
	sh_set_value(c, 0, v);
}

static void infer_gather_elements(shape_ctx *c)
{
	sh_same(c, 0, 1, sh_in_dtype(c, 0));
}

static void infer_gather_nd(shape_ctx *c)
{
	const fd_shape *d = sh_in_shape(c, 0), *ix = sh_in_shape(c, 1);
	int64_t b = sh_attr_int(c, "batch_dims", 0);
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t r = 0;

	if (!d || !ix || d->rank < 0 || ix->rank < 1 || ix->dims[ix->rank - 1].value < 0) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	int64_t k = ix->dims[ix->rank - 1].value;
	if (b < 0 || b > d->rank || k > d->rank - b || ix->rank - 1 + d->rank - k - b > SHAPE_MAX_RANK) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	for (int32_t i = 0; i < ix->rank - 1; i++)
		dims[r++] = ix->dims[i];
	for (int64_t i = b + k; i < d->rank; i++)
		dims[r++] = d->dims[i];
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
}

static void infer_expand(shape_ctx *c)
{
	fd_tensor *x = sh_in(c, 0);
	int64_t n;
	fd_dim want[SHAPE_MAX_RANK], dims[SHAPE_MAX_RANK];
	int32_t dt = sh_in_dtype(c, 0), r;

	if (!x || !sh_in_dims(c, 1, want, SHAPE_MAX_RANK, &n)) {
		const fd_shape *s1 = sh_in_shape(c, 1);
		int64_t len = s1 && s1->rank == 1 ? s1->dims[0].value : -1;
		r = x && x->shape.rank >= 0 && len >= 0 ? (int32_t)(len > x->shape.rank ? len : x->shape.rank) : -1;
		for (int32_t i = 0; i < r && i < SHAPE_MAX_RANK; i++)
			dims[i] = dim_unknown();
		/* the shape's values unknown, its length known: a dim of x above 1
		 * is the output's still (ONNX: [1, 1, 768] expanded is [?, ?, 768]) */
		for (int32_t i = 0; x && r > 0 && r <= SHAPE_MAX_RANK && i < x->shape.rank; i++) {
			fd_dim d = x->shape.dims[i];
			if (d.value > 1 && !d.expr)
				dims[r - x->shape.rank + i] = d;
		}
		sh_set(c, 0, dt, r <= SHAPE_MAX_RANK ? r : -1, dims);
		return;
	}
	fd_shape ws = { (int32_t)n, want };
	const fd_shape *both[2] = { &x->shape, &ws };
	if (!sh_broadcast(both, 2, &r, dims)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	sh_set(c, 0, dt, r, dims);

	int64_t count = shape_dims_product(dims, 0, r), n_in;
	if (!x->value || count < 0 || count > FD_CONST_MAX || !shape_is_known(&x->shape) ||
	    !shape_elements(&x->shape, &n_in) || n_in != x->value->count)
		return;
	fd_const *v = const_new(c, x->dtype, count);
	int64_t idx[SHAPE_MAX_RANK] = { 0 };
	if (!v)
		return;
	for (int64_t k = 0; k < count; k++, shape_index_next(idx, r, dims))
		const_copy_elem(c, v, k, x->value, shape_bcast_offset(&x->shape, r, dims, idx));
	sh_set_value(c, 0, v);
}

static void infer_tile(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	fd_sint rep[SHAPE_MAX_RANK];
	int64_t n;
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t dt = sh_in_dtype(c, 0);

	if (!x || x->rank < 0 || x->rank > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	bool ok = sh_in_sints(c, 1, rep, SHAPE_MAX_RANK, &n) && n == x->rank;
	for (int32_t i = 0; i < x->rank; i++)
		dims[i] = !ok ? dim_unknown() : dim_mul(x->dims[i], dim_of_sint(rep[i]));
	sh_set(c, 0, dt, x->rank, dims);
}

static void infer_pad(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	const int64_t *axes = NULL;
	fd_sint pads[2 * SHAPE_MAX_RANK];
	int64_t n = 0, na = 0;
	fd_dim dims[SHAPE_MAX_RANK];
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1, ax;
	bool ok;

	if (r < 0 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	if (c->opset >= 11)
		ok = sh_in_sints(c, 1, pads, 2 * SHAPE_MAX_RANK, &n) && (!sh_in(c, 3) || sh_in_ints(c, 3, &axes, &na));
	else
		ok = sints_from(c, -1, "pads", pads, 2 * SHAPE_MAX_RANK, &n) ||
		     sints_from(c, -1, "paddings", pads, 2 * SHAPE_MAX_RANK, &n);
	int64_t k = axes ? na : r;
	if (ok && n != 2 * k)
		ok = false;
	/* an axis without pads keeps its dim as it is, symbol and all */
	dims_copy(dims, x->dims, r);
	for (int64_t i = 0; i < k; i++) {
		if (!ok || !shape_axis_norm(axes ? axes[i] : i, r, &ax)) {
			ok = false;
			break;
		}
		dims[ax] = dim_of_sint(sint_add(sint_add(sint_of_dim(x->dims[ax]), pads[i]), pads[k + i]));
	}
	if (!ok)
		for (int32_t i = 0; i < r; i++)
			dims[i] = dim_unknown();
	sh_set(c, 0, dt, r, dims);
}

const shape_op shape_ops_tensor[] = {
	{ "", "Concat", infer_concat, 0 },
	{ "", "Expand", infer_expand, 0 },
	{ "", "Flatten", infer_flatten, 0 },
	{ "", "Gather", infer_gather, 0 },
	{ "", "GatherElements", infer_gather_elements, 0 },
	{ "", "GatherND", infer_gather_nd, 0 },
	{ "", "Pad", infer_pad, 0 },
	{ "", "Reshape", infer_reshape, 0 },
	{ "", "Slice", infer_slice, 0 },
	{ "", "Split", infer_split, 0 },
	{ "", "Squeeze", infer_squeeze, 0 },
	{ "", "Tile", infer_tile, 0 },
	{ "", "Transpose", infer_transpose, 0 },
	{ "", "Unsqueeze", infer_unsqueeze, 0 },
	{ NULL, NULL, NULL, 0 },
};
