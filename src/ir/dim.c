/* dim.c — the arithmetic of ir/dim.h on symbolic integers and dims, and
 * their text. Two plain numbers never leave int64; a symbolic operand takes
 * the polynomial path (dim_poly.c) in the table its expression belongs to.
 * When a result has no expression (too large, no exact quotient) but both
 * operands have values at the bindings, the result is that number: right at
 * these bindings, which is all a number ever claims. */
#include <stdio.h>
#include <string.h>
#include "ir/dim_internal.h"

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_FLOORDIV, OP_DIV_EXACT } sint_op;

bool sint_value(fd_sint s, int64_t *v)
{
	if (s.e)
		return dexpr_value(s.e, v);
	if (s.n == SINT_UNKNOWN)
		return false;
	*v = s.n;
	return true;
}

fd_sint sint_of_dim(fd_dim d)
{
	if (d.expr) {
		fd_sint s = { 0, d.expr };
		return s;
	}
	return d.value >= 0 ? sint_num(d.value) : sint_unknown();
}

fd_dim dim_of_sint(fd_sint s)
{
	if (s.e) {
		int64_t v;
		fd_dim d = { dexpr_value(s.e, &v) && v >= 0 ? v : -1, s.e };
		return d;
	}
	return s.n >= 0 ? dim_of(s.n) : dim_unknown();
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The operation on two numbers; false on overflow or no result. */
static bool num_op(sint_op op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case OP_ADD: return !__builtin_add_overflow(a, b, r);
	case OP_SUB: return !__builtin_sub_overflow(a, b, r);
	case OP_MUL: return !__builtin_mul_overflow(a, b, r);
	case OP_FLOORDIV:
		if (b <= 0)
			return false;
		*r = floor_div(a, b);
		return true;
	case OP_DIV_EXACT:
		if (b == 0 || (a == INT64_MIN && b == -1) || a % b)
			return false;
		*r = a / b;
		return true;
	}
	return false;
}

static fd_sint apply(sint_op op, fd_sint a, fd_sint b)
{
	int64_t x, y, r;
	if (!sint_defined(a) || !sint_defined(b))
		return sint_unknown();
	if (!a.e && !b.e)
		return num_op(op, a.n, b.n, &r) ? sint_num(r) : sint_unknown();
	fd_dimtab *t = a.e ? a.e->tab : b.e->tab;
	dpoly p, q;
	poly_of_sint(&p, a);
	poly_of_sint(&q, b);
	switch (op) {
	case OP_ADD: poly_add(&p, &p, &q, 1); break;
	case OP_SUB: poly_add(&p, &p, &q, -1); break;
	case OP_MUL: poly_mul(&p, &p, &q); break;
	case OP_FLOORDIV:
		if (!b.e) {
			if (b.n <= 0)
				p.bad = true;
			else
				poly_floordiv(t, &p, &p, b.n);
			break;
		}
		poly_div_exact(&p, &p, &q);
		/* a symbolic divisor: only an integral exact quotient is the floor */
		for (int i = 0; i < p.n && !p.bad; i++)
			if (p.t[i].den != 1)
				p.bad = true;
		break;
	case OP_DIV_EXACT: poly_div_exact(&p, &p, &q); break;
	}
	fd_sint res = poly_result(t, &p);
	if (sint_defined(res))
		return res;
	if (sint_value(a, &x) && sint_value(b, &y) && num_op(op, x, y, &r))
		return sint_num(r);
	return sint_unknown();
}

fd_sint sint_add(fd_sint a, fd_sint b) { return apply(OP_ADD, a, b); }
fd_sint sint_sub(fd_sint a, fd_sint b) { return apply(OP_SUB, a, b); }
fd_sint sint_mul(fd_sint a, fd_sint b) { return apply(OP_MUL, a, b); }
fd_sint sint_floordiv(fd_sint a, fd_sint b) { return apply(OP_FLOORDIV, a, b); }
fd_sint sint_div_exact(fd_sint a, fd_sint b) { return apply(OP_DIV_EXACT, a, b); }

fd_sint sint_mod(fd_sint a, fd_sint b)
{
	return sint_sub(a, sint_mul(b, sint_floordiv(a, b)));
}

int sint_cmp(fd_sint a, fd_sint b)
{
	int64_t x, y;
	if (sint_value(a, &x) && sint_value(b, &y))
		return (x > y) - (x < y);
	fd_sint d = sint_sub(a, b);
	if (!d.e && d.n != SINT_UNKNOWN)
		return (d.n > 0) - (d.n < 0);
	return 2;
}

/* ---- dims ------------------------------------------------------------------------- */

static fd_dim dim_apply(sint_op op, fd_dim a, fd_dim b)
{
	if (!a.expr && !b.expr) {
		int64_t r;
		if (a.value < 0 || b.value < 0 || !num_op(op, a.value, b.value, &r) || r < 0)
			return dim_unknown();
		return dim_of(r);
	}
	return dim_of_sint(apply(op, sint_of_dim(a), sint_of_dim(b)));
}

fd_dim dim_add(fd_dim a, fd_dim b) { return dim_apply(OP_ADD, a, b); }
fd_dim dim_sub(fd_dim a, fd_dim b) { return dim_apply(OP_SUB, a, b); }
fd_dim dim_mul(fd_dim a, fd_dim b) { return dim_apply(OP_MUL, a, b); }
fd_dim dim_div_exact(fd_dim a, fd_dim b) { return dim_apply(OP_DIV_EXACT, a, b); }

fd_dim dim_floordiv(fd_dim a, int64_t q)
{
	return dim_apply(OP_FLOORDIV, a, dim_of(q));
}

fd_dim dim_ceildiv(fd_dim a, int64_t q)
{
	if (q <= 0)
		return dim_unknown();
	if (!a.expr)   /* without the + q - 1 that could overflow */
		return a.value < 0 ? dim_unknown() : dim_of(a.value / q + (a.value % q != 0));
	return dim_floordiv(dim_add(a, dim_of(q - 1)), q);
}

fd_dim dim_product(const fd_dim *dims, int32_t from, int32_t to)
{
	int64_t p = 1;
	int32_t i = from;
	for (; i < to && !dims[i].expr; i++) {
		if (dims[i].value < 0 || __builtin_mul_overflow(p, dims[i].value, &p))
			return dim_unknown();
	}
	if (i == to)
		return dim_of(p);
	fd_dim r = dim_of(p);
	for (; i < to; i++)
		r = dim_mul(r, dims[i]);
	return r;
}
