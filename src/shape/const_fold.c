/* const_fold.c — small constant values for shape inference: making them in
 * the model arena, reading and converting elements, and the index arithmetic
 * that folding elementwise, Gather, Slice and Concat needs. Values exist only
 * for tensors of at most FD_CONST_MAX elements (shapes, axes, scalars). It
 * knows nothing of nodes: giving a value to an output is sh_set_value's
 * (shape_util.c). */
#include <math.h>
#include "shape/shape_infer.h"

fd_const *const_new(const shape_ctx *c, int32_t dtype, int64_t count)
{
	fd_const *v;

	if (count < 0 || count > FD_CONST_MAX)
		return NULL;
	if (!dtype_is_integer(dtype) && !dtype_is_float(dtype))
		return NULL;
	v = arena_alloc(&c->m->arena, sizeof *v);
	v->dtype = dtype;
	v->count = count;
	/* one spare element so that a zero count still gives a valid pointer */
	if (dtype_is_integer(dtype))
		v->i64 = arena_array(&c->m->arena, (size_t)count + 1, sizeof *v->i64);
	else
		v->f64 = arena_array(&c->m->arena, (size_t)count + 1, sizeof *v->f64);
	return v;
}

double const_num(const fd_const *v, int64_t k)
{
	return v->i64 ? (double)v->i64[k] : v->f64[k];
}

/* Float to int64 the way Cast does for values in range; NaN and out-of-range
 * values, which Cast leaves undefined, become 0 and the int64 bounds. */
static int64_t to_int(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9.2233720368547758e18)
		return INT64_MAX;
	if (x <= -9.2233720368547758e18)
		return INT64_MIN;
	return (int64_t)x;
}

int64_t const_int(const fd_const *v, int64_t k)
{
	return v->i64 ? v->i64[k] : to_int(v->f64[k]);
}

/* Integers narrower than int64 wrap the way a Cast to them does. */
static int64_t wrap_int(int32_t dt, int64_t x)
{
	switch (dt) {
	case DT_BOOL:   return x != 0;
	case DT_INT8:   return (int8_t)x;
	case DT_UINT8:  return (uint8_t)x;
	case DT_INT16:  return (int16_t)x;
	case DT_UINT16: return (uint16_t)x;
	case DT_INT32:  return (int32_t)x;
	case DT_UINT32: return (uint32_t)x;
	default:        return x;
	}
}

/* x rounded to a binary float of `bits` significant bits whose smallest
 * step is 2^min_exp and whose largest finite value is max (half to even). */
static double round_to(double x, int bits, int min_exp, double max)
{
	int e;

	if (isnan(x) || isinf(x) || x == 0)
		return x;
	frexp(fabs(x), &e);
	e -= bits;
	if (e < min_exp)
		e = min_exp;
	double y = ldexp(nearbyint(ldexp(fabs(x), -e)), e);
	return copysign(y > max ? INFINITY : y, x);
}

/* What a value becomes when stored in dtype dt (Cast's rounding). */
static double round_float(int32_t dt, double y)
{
	switch (dt) {
	case DT_FLOAT:    return (double)(float)y;
	case DT_FLOAT16:  return round_to(y, 11, -24, 65504.0);
	case DT_BFLOAT16: return round_to((double)(float)y, 8, -133, 3.3895313892515355e38);
	default:          return y;
	}
}

void const_store(fd_const *v, int64_t k, double x, int64_t xi, bool from_int)
{
	if (v->i64) {
		if (v->dtype == DT_BOOL && !from_int)
			v->i64[k] = x != 0;
		else
			v->i64[k] = wrap_int(v->dtype, from_int ? xi : to_int(x));
		if (v->sym)
			v->sym[k] = sint_num(v->i64[k]);
	} else {
		v->f64[k] = round_float(v->dtype, from_int ? (double)xi : x);
	}
}

/* A float value that was asked to hold a symbolic element: unusable. */
#define CONST_SPOILED (-1)

void const_store_sint(const shape_ctx *c, fd_const *v, int64_t k, fd_sint s)
{
	if (!s.e && s.n != SINT_UNKNOWN) {
		const_store(v, k, 0, s.n, true);
		return;
	}
	int64_t x;
	if (!v->i64) {
		/* a float holds the number at the bindings, or nothing */
		if (sint_value(s, &x))
			const_store(v, k, 0, x, true);
		else
			v->count = CONST_SPOILED;
		return;
	}
	if (!v->sym) {
		/* the elements stored so far were numbers */
		v->sym = arena_array(&c->m->arena, (size_t)v->count + 1, sizeof *v->sym);
		for (int64_t i = 0; i < v->count; i++)
			v->sym[i] = sint_num(v->i64[i]);
	}
	v->sym[k] = s;
	v->i64[k] = sint_value(s, &x) ? wrap_int(v->dtype, x) : 0;
}

fd_sint const_sint(const fd_const *v, int64_t k)
{
	if (v->sym)
		return v->sym[k];
	return v->i64 ? sint_num(v->i64[k]) : sint_unknown();
}

void const_copy_elem(const shape_ctx *c, fd_const *dst, int64_t j, const fd_const *src, int64_t k)
{
	if (src->sym)
		const_store_sint(c, dst, j, src->sym[k]);
	else if (src->i64)
		const_store(dst, j, 0, src->i64[k], true);
	else
		const_store(dst, j, src->f64[k], 0, false);
}

bool const_settle(fd_const *v)
{
	if (!v || v->count == CONST_SPOILED)
		return false;
	if (!v->sym)
		return true;
	bool symbolic = false, all_numbers = true;
	for (int64_t k = 0; k < v->count; k++) {
		int64_t x;
		symbolic |= v->sym[k].e || v->sym[k].n == SINT_UNKNOWN;
		all_numbers &= sint_value(v->sym[k], &x);
	}
	if (!symbolic)
		v->sym = NULL;
	else if (!all_numbers)
		v->i64 = NULL;
	return true;
}

int64_t shape_bcast_offset(const fd_shape *s, int32_t r, const fd_dim *od, const int64_t *oi)
{
	int64_t off = 0, stride = 1;
	int32_t shift = r - s->rank;

	(void)od;
	for (int32_t k = s->rank - 1; k >= 0; k--) {
		int64_t dk = s->dims[k].value;
		if (dk != 1)
			off += oi[k + shift] * stride;
		stride *= dk;
	}
	return off;
}

bool shape_index_next(int64_t *idx, int32_t rank, const fd_dim *dims)
{
	for (int32_t k = rank - 1; k >= 0; k--) {
		if (++idx[k] < dims[k].value)
			return true;
		idx[k] = 0;
	}
	return false;
}
