/* shape_elementwise.c — unary ops (output shaped like input 0), broadcasting
 * binary and variadic ops, Where, Cast / CastLike, Dropout, quantization, and
 * the constant folding of the ones shape arithmetic uses (Add/Sub/Mul/Div on
 * integers, comparisons, Where, Cast, Identity, Neg, Floor, …).
 * */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "shape/shape_infer.h"

/* The table's arg: what to fold, and flags for the output dtype. */
enum {
	F_NONE = 0,
	/* unary */
	U_IDENT, U_NEG, U_ABS, U_FLOOR, U_CEIL, U_ROUND, U_SQRT, U_EXP, U_LOG,
	U_RECIP, U_RELU, U_SIGN, U_NOT,
	/* binary / variadic */
	B_ADD, B_SUB, B_MUL, B_DIV, B_MOD, B_POW, B_MAX, B_MIN, B_SUM, B_MEAN,
	B_EQ, B_LT, B_GT, B_LE, B_GE, B_AND, B_OR, B_XOR,
	B_WHERE,
	FOLD_MASK = 0xff,
	OUT_BOOL = 0x100,      /* output dtype is bool */
};

#define FOLD_MAX_IN 8

/* ---- folding ---------------------------------------------------------------- */

static bool unary_int(int op, int64_t a, int64_t *r)
{
	switch (op) {
	case U_IDENT: case U_FLOOR: case U_CEIL: case U_ROUND: *r = a; return true;
	case U_NEG:  if (a == INT64_MIN) return false; *r = -a; return true;
	case U_ABS:  if (a == INT64_MIN) return false; *r = a < 0 ? -a : a; return true;
	case U_RELU: *r = a > 0 ? a : 0; return true;
	case U_SIGN: *r = (a > 0) - (a < 0); return true;
	case U_NOT:  *r = !a; return true;
	default:     return false;
	}
}

static bool unary_float(int op, double a, double *r)
{
	switch (op) {
	case U_IDENT: *r = a; return true;
	case U_NEG:   *r = -a; return true;
	case U_ABS:   *r = fabs(a); return true;
	case U_FLOOR: *r = floor(a); return true;
	case U_CEIL:  *r = ceil(a); return true;
	case U_ROUND: *r = nearbyint(a); return true;   /* half to even, as ONNX */
	case U_SQRT:  *r = sqrt(a); return true;
	case U_EXP:   *r = exp(a); return true;
	case U_LOG:   *r = log(a); return true;
	case U_RECIP: if (a == 0) return false; *r = 1 / a; return true;
	case U_RELU:  *r = a > 0 ? a : 0; return true;
	case U_SIGN:  *r = (a > 0) - (a < 0); return true;
	case U_NOT:   *r = a == 0; return true;
	default:      return false;
	}
}

/* Integer binary op; false on overflow or division by zero (no fold). */
static bool binary_int(int op, int64_t a, int64_t b, int64_t *r, bool fmod_c)
{
	switch (op) {
	case B_ADD: case B_SUM: return !__builtin_add_overflow(a, b, r);
	case B_SUB: return !__builtin_sub_overflow(a, b, r);
	case B_MUL: return !__builtin_mul_overflow(a, b, r);
	case B_DIV:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		*r = a / b;    /* truncates, as the runtimes do */
		return true;
	case B_MOD:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		*r = a % b;
		if (!fmod_c && *r != 0 && ((*r < 0) != (b < 0)))
			*r += b;   /* fmod=0: the sign of the divisor, like Python */
		return true;
	case B_MAX: *r = a > b ? a : b; return true;
	case B_MIN: *r = a < b ? a : b; return true;
	case B_EQ:  *r = a == b; return true;
	case B_LT:  *r = a < b; return true;
	case B_GT:  *r = a > b; return true;
	case B_LE:  *r = a <= b; return true;
	case B_GE:  *r = a >= b; return true;
	case B_AND: *r = a && b; return true;
	case B_OR:  *r = a || b; return true;
	case B_XOR: *r = !a != !b; return true;
	default:    return false;
	}
}

static bool binary_float(int op, double a, double b, double *r, bool fmod_c)
{
	switch (op) {
	case B_ADD: case B_SUM: case B_MEAN: *r = a + b; return true;
	case B_SUB: *r = a - b; return true;
	case B_MUL: *r = a * b; return true;
	case B_DIV: *r = a / b; return true;
	case B_MOD: *r = fmod(a, b);
		if (!fmod_c && *r != 0 && ((*r < 0) != (b < 0)))
			*r += b;
		return true;
	case B_POW: *r = pow(a, b); return true;
	case B_MAX: *r = fmax(a, b); return true;
	case B_MIN: *r = fmin(a, b); return true;
	case B_EQ:  *r = a == b; return true;
	case B_LT:  *r = a < b; return true;
	case B_GT:  *r = a > b; return true;
	case B_LE:  *r = a <= b; return true;
	case B_GE:  *r = a >= b; return true;
	case B_AND: *r = a != 0 && b != 0; return true;
	case B_OR:  *r = a != 0 || b != 0; return true;
	case B_XOR: *r = (a != 0) != (b != 0); return true;
	default:    return false;
	}
}

/* One op on symbolic integers; unknown when it has no exact form. */
static fd_sint sint_op(int op, const fd_sint *a, int n)
{
	fd_sint y = a[0];
	int c;
	switch (op) {
	case U_IDENT: case U_FLOOR: case U_CEIL: case U_ROUND:
		return y;
	case U_NEG:
		return sint_sub(sint_num(0), y);
	case U_ABS: case U_RELU:
		c = sint_cmp(y, sint_num(0));
		return c == 2 ? sint_unknown() : c >= 0 ? y : op == U_RELU ? sint_num(0) : sint_sub(sint_num(0), y);
	default:
		break;
	}
	for (int i = 1; i < n; i++) {
		fd_sint b = a[i];
		switch (op) {
		case B_ADD: case B_SUM: y = sint_add(y, b); break;
		case B_SUB: y = sint_sub(y, b); break;
		case B_MUL: y = sint_mul(y, b); break;
		/* integer Div truncates; shape arithmetic divides sizes, which are >= 0 */
		case B_DIV: y = sint_floordiv(y, b); break;
		case B_MOD: y = sint_mod(y, b); break;
		case B_MAX: case B_MIN:
			c = sint_cmp(y, b);
			y = c == 2 ? sint_unknown() : (c >= 0) == (op == B_MAX) ? y : b;
			break;
		case B_EQ: case B_LT: case B_GT: case B_LE: case B_GE:
			c = sint_cmp(y, b);
			if (c == 2)
				return sint_unknown();
			y = sint_num(op == B_EQ ? c == 0 : op == B_LT ? c < 0 : op == B_GT ? c > 0 : op == B_LE ? c <= 0 : c >= 0);
			break;
		default:
			return sint_unknown();
		}
	}
	return y;
}

/* The fold of an integer elementwise node with a symbolic input (Shape →
 * Gather → Mul, Sub, Div …): element by element in symbols. */
static void fold_symbolic(const shape_ctx *c, int op, int32_t r, const fd_dim *od, const fd_const *const *v,
                          const fd_shape *const *s, int n, fd_tensor *out, int64_t count)
{
	int64_t idx[SHAPE_MAX_RANK] = { 0 };
	fd_sint a[FOLD_MAX_IN];
	if (!dtype_is_integer(out->dtype) && out->dtype != DT_UNDEFINED)
		return;
	for (int i = 0; i < n; i++)
		if (!v[i]->i64 && !v[i]->sym)
			return;
	fd_const *res = const_new(c, out->dtype != DT_UNDEFINED ? out->dtype : v[0]->dtype, count);
	if (!res)
		return;
	for (int64_t k = 0; k < count; k++, shape_index_next(idx, r, od)) {
		for (int i = 0; i < n; i++)
			a[i] = const_sint(v[i], shape_bcast_offset(s[i], r, od, idx));
		fd_sint y;
		if (op == B_WHERE) {
			int64_t pick;
			if (!sint_value(a[0], &pick))
				return;
			y = a[pick ? 1 : 2];
		} else {
			y = sint_op(op, a, n);
		}
		const_store_sint(c, res, k, y);
	}
	sh_set_value(c, 0, res);
}

/* Folds an elementwise node whose inputs all have values into output 0,
 * broadcasting by row-major index arithmetic (values are small). */
static void fold_elementwise(const shape_ctx *c, int op, int32_t r, const fd_dim *od)
{
	const fd_const *v[FOLD_MAX_IN];
	const fd_shape *s[FOLD_MAX_IN];
	int n = c->n->n_inputs;
	bool ints = true, fmod_c = sh_attr_int(c, "fmod", 0) != 0;
	fd_tensor *out = sh_out(c, 0);
	int64_t idx[SHAPE_MAX_RANK] = { 0 }, count = shape_dims_product(od, 0, r), n_el;

	if (!out || out->value || n < 1 || n > FOLD_MAX_IN || count < 0 || count > FD_CONST_MAX)
		return;
	if (op == B_WHERE && n != 3)
		return;   /* a Where with fewer inputs would read v[2] unset (found by fuzz_onnx) */
	bool symbolic = false;
	for (int i = 0; i < n; i++) {
		v[i] = sh_in_const(c, i);
		s[i] = sh_in_shape(c, i);
		if (!v[i] || !shape_is_known(s[i]) || !shape_elements(s[i], &n_el) || n_el != v[i]->count)
			return;
		symbolic |= v[i]->sym != NULL;
	}
	if (symbolic) {
		fold_symbolic(c, op, r, od, v, s, n, out, count);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (!v[i]->i64 && !v[i]->f64)
			return;
		/* Where's condition is bool whatever x and y are */
		if (!v[i]->i64 && !(op == B_WHERE && i == 0))
			ints = false;
	}
	if (op == B_POW || op == B_MEAN)
		ints = false;
	fd_const *res = const_new(c, out->dtype, count);
	if (!res)
		return;
	for (int64_t k = 0; k < count; k++, shape_index_next(idx, r, od)) {
		int64_t off[FOLD_MAX_IN];
		for (int i = 0; i < n; i++)
			off[i] = shape_bcast_offset(s[i], r, od, idx);
		if (op == B_WHERE) {
			bool pick = const_int(v[0], off[0]) != 0;
			const_copy_elem(c, res, k, v[pick ? 1 : 2], off[pick ? 1 : 2]);
		} else if (op < B_ADD && ints) {
			int64_t y;
			if (!unary_int(op, v[0]->i64[off[0]], &y))
				return;
			const_store(res, k, 0, y, true);
		} else if (op < B_ADD) {
			double y;
			if (!unary_float(op, const_num(v[0], off[0]), &y))
				return;
			const_store(res, k, y, 0, false);
		} else if (ints) {
			int64_t y = v[0]->i64[off[0]];
			for (int i = 1; i < n; i++)
				if (!binary_int(op, y, v[i]->i64[off[i]], &y, fmod_c))
					return;
			const_store(res, k, 0, y, true);
		} else {
			double y = const_num(v[0], off[0]);
			for (int i = 1; i < n; i++)
				if (!binary_float(op, y, const_num(v[i], off[i]), &y, fmod_c))
					return;
			if (op == B_MEAN)
				y /= n;
			const_store(res, k, y, 0, false);
		}
	}
	sh_set_value(c, 0, res);
}

/* ---- shapes ------------------------------------------------------------------- */

static void infer_unary(shape_ctx *c)
{
	fd_tensor *x = sh_in(c, 0);
	int op = c->arg & FOLD_MASK;

	if (!x)
		return;
	sh_same(c, 0, 0, c->arg & OUT_BOOL ? DT_BOOL : DT_UNDEFINED);
	if (op != F_NONE && x->value && x->shape.rank >= 0)
		fold_elementwise(c, op, x->shape.rank, x->shape.dims);
}

/* A dim no broadcast can make (9 against 10) where the bindings chose a
 * symbol's value: the model cannot run with them, an error naming the node,
 * the two shapes and the dims. Numbers the model itself gives that clash
 * are left to the unknown result, as a model that contradicts itself. */
static void report_binding_clash(shape_ctx *c, const fd_shape *const *s, int n, int32_t r, const fd_dim *dims)
{
	for (int32_t k = 0; k < r; k++) {
		if (!dim_is_invalid(dims[k]))
			continue;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++) {
				int32_t ki = k - (r - s[i]->rank), kj = k - (r - s[j]->rank);
				if (ki < 0 || kj < 0)
					continue;
				fd_dim a = s[i]->dims[ki], b = s[j]->dims[kj];
				if (a.value <= 1 || b.value <= 1 || a.value == b.value || (!a.expr && !b.expr))
					continue;
				char sa[256], sb[256], ea[256], eb[256];
				shape_format(s[i], sa, sizeof sa);
				shape_format(s[j], sb, sizeof sb);
				snprintf(ea, sizeof ea, "%s", a.expr ? dexpr_text(a.expr) : "a constant");
				snprintf(eb, sizeof eb, "%s", b.expr ? dexpr_text(b.expr) : "a constant");
				diag_error(c->d, srcpos_file(c->m->path),
				           "node %s (%s): the bindings make a broadcast of %s against %s, which cannot run: "
				           "dim %d is %lld (%s) against %lld (%s)",
				           c->n->name, c->n->op_type, sa, sb, k, (long long)a.value, ea, (long long)b.value, eb);
				return;
			}
	}
}

/* Binary and variadic ops: Add … Xor, Sum/Mean/Max/Min, Where, PRelu. */
static void infer_broadcast(shape_ctx *c)
{
	const fd_shape *s[FOLD_MAX_IN];
	fd_dim dims[SHAPE_MAX_RANK];
	int n = 0, op = c->arg & FOLD_MASK;
	int32_t r, dt;

	/* Where takes its dtype from x; the others from their first input */
	dt = c->arg & OUT_BOOL ? DT_BOOL : sh_in_dtype(c, op == B_WHERE ? 1 : 0);
	if (dt == DT_UNDEFINED && op == B_WHERE)
		dt = sh_in_dtype(c, 2);
	if (c->n->n_inputs > FOLD_MAX_IN) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	for (int i = 0; i < c->n->n_inputs; i++)
		if ((s[n] = sh_in_shape(c, i)))
			n++;
	/* before opset 7, broadcast=1 meant B fits into A: the result is A */
	if (c->opset < 7 && op != B_WHERE && strcmp(c->n->op_type, "PRelu") && n >= 2) {
		sh_same(c, 0, 0, dt);
		return;
	}
	if (!n || !sh_broadcast(s, n, &r, dims)) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	report_binding_clash(c, s, n, r, dims);
	sh_set(c, 0, dt, r, dims);
	if (op != F_NONE && n == c->n->n_inputs)
		fold_elementwise(c, op, r, dims);
}

static void infer_cast(shape_ctx *c)
{
	fd_tensor *x = sh_in(c, 0), *out = sh_out(c, 0);
	int32_t to = DT_UNDEFINED;

	if (!strcmp(c->n->op_type, "CastLike"))
		to = sh_in_dtype(c, 1);
	else {
		const fd_attr *a = sh_attr(c, "to");
		if (a && a->type == ATTR_INT && a->u.i > 0 && a->u.i < DT_COUNT)
			to = (int32_t)a->u.i;
		else if (a && a->type == ATTR_STRING)   /* opset 1 spelled it */
			to = dtype_from_name(a->u.s) > 0 ? dtype_from_name(a->u.s) : DT_UNDEFINED;
	}
	if (!x) {
		sh_set(c, 0, to, -1, NULL);
		return;
	}
	sh_set_shape(c, 0, to, &x->shape);
	if (!x->value || !out || out->dtype == DT_UNDEFINED)
		return;
	fd_const *v = const_new(c, out->dtype, x->value->count);
	if (!v || (!x->value->i64 && !x->value->f64 && !x->value->sym))
		return;
	for (int64_t k = 0; k < v->count; k++)
		const_copy_elem(c, v, k, x->value, k);
	sh_set_value(c, 0, v);
}

static void infer_dropout(shape_ctx *c)
{
	fd_tensor *x = sh_in(c, 0);
	int64_t training = 0;

	sh_same(c, 0, 0, DT_UNDEFINED);
	sh_same(c, 1, 0, c->opset >= 10 ? DT_BOOL : DT_UNDEFINED);
	/* only inference mode is the identity: training_mode absent or false */
	if (sh_in(c, 2) && !sh_in_int(c, 2, &training))
		return;
	if (c->opset < 7 && !sh_attr_int(c, "is_test", 0))
		return;
	if (x && x->value && !training)
		sh_set_value(c, 0, x->value);
}

/* Output shaped like X with the dtype from attribute `dtype` if present. */
static void infer_like_dtype_attr(shape_ctx *c)
{
	sh_same(c, 0, 0, (int32_t)sh_attr_int(c, "dtype", DT_UNDEFINED));
}

static void infer_quantize(shape_ctx *c)
{
	int32_t dt = (int32_t)sh_attr_int(c, "output_dtype", 0);

	if (!dt)
		dt = sh_in(c, 2) ? sh_in_dtype(c, 2) : DT_UINT8;
	sh_same(c, 0, 0, dt);
}

static void infer_dequantize(shape_ctx *c)
{
	sh_same(c, 0, 0, c->opset >= 19 ? sh_in_dtype(c, 1) : DT_FLOAT);
}

static void infer_dynamic_quantize(shape_ctx *c)
{
	sh_same(c, 0, 0, DT_UINT8);
	sh_set(c, 1, DT_FLOAT, 0, NULL);
	sh_set(c, 2, DT_UINT8, 0, NULL);
}

const shape_op shape_ops_elementwise[] = {
	/* unary, same dtype */
	{ "", "Abs", infer_unary, U_ABS },
	{ "", "Acos", infer_unary, 0 },
	{ "", "Acosh", infer_unary, 0 },
	{ "", "Asin", infer_unary, 0 },
	{ "", "Asinh", infer_unary, 0 },
	{ "", "Atan", infer_unary, 0 },
	{ "", "Atanh", infer_unary, 0 },
	{ "", "BitwiseNot", infer_unary, 0 },
	{ "", "Ceil", infer_unary, U_CEIL },
	{ "", "Celu", infer_unary, 0 },
	{ "", "Clip", infer_unary, 0 },
	{ "", "Cos", infer_unary, 0 },
	{ "", "Cosh", infer_unary, 0 },
	{ "", "CumSum", infer_unary, 0 },
	{ "", "Elu", infer_unary, 0 },
	{ "", "Erf", infer_unary, 0 },
	{ "", "Exp", infer_unary, U_EXP },
	{ "", "Floor", infer_unary, U_FLOOR },
	{ "", "Gelu", infer_unary, 0 },
	{ "", "HardSigmoid", infer_unary, 0 },
	{ "", "HardSwish", infer_unary, 0 },
	{ "", "Hardmax", infer_unary, 0 },
	{ "", "Identity", infer_unary, U_IDENT },
	{ "", "ImageScaler", infer_unary, 0 },
	{ "", "InstanceNormalization", infer_unary, 0 },
	{ "", "LRN", infer_unary, 0 },
	{ "", "LeakyRelu", infer_unary, 0 },
	{ "", "Log", infer_unary, U_LOG },
	{ "", "LogSoftmax", infer_unary, 0 },
	{ "", "LpNormalization", infer_unary, 0 },
	{ "", "MeanVarianceNormalization", infer_unary, 0 },
	{ "", "Mish", infer_unary, 0 },
	{ "", "Neg", infer_unary, U_NEG },
	{ "", "Reciprocal", infer_unary, U_RECIP },
	{ "", "Relu", infer_unary, U_RELU },
	{ "", "ReverseSequence", infer_unary, 0 },
	{ "", "Round", infer_unary, U_ROUND },
	{ "", "Scatter", infer_unary, 0 },
	{ "", "ScatterElements", infer_unary, 0 },
	{ "", "ScatterND", infer_unary, 0 },
	{ "", "Selu", infer_unary, 0 },
	{ "", "Shrink", infer_unary, 0 },
	{ "", "Sigmoid", infer_unary, 0 },
	{ "", "Sign", infer_unary, U_SIGN },
	{ "", "Sin", infer_unary, 0 },
	{ "", "Sinh", infer_unary, 0 },
	{ "", "Softmax", infer_unary, 0 },
	{ "", "Softplus", infer_unary, 0 },
	{ "", "Softsign", infer_unary, 0 },
	{ "", "Sqrt", infer_unary, U_SQRT },
	{ "", "Tan", infer_unary, 0 },
	{ "", "Tanh", infer_unary, 0 },
	{ "", "ThresholdedRelu", infer_unary, 0 },
	{ "", "Trilu", infer_unary, 0 },
	/* unary, bool result */
	{ "", "IsInf", infer_unary, OUT_BOOL },
	{ "", "IsNaN", infer_unary, OUT_BOOL },
	{ "", "Not", infer_unary, U_NOT | OUT_BOOL },
	/* broadcasting */
	{ "", "Add", infer_broadcast, B_ADD },
	{ "", "And", infer_broadcast, B_AND | OUT_BOOL },
	{ "", "BitShift", infer_broadcast, 0 },
	{ "", "BitwiseAnd", infer_broadcast, 0 },
	{ "", "BitwiseOr", infer_broadcast, 0 },
	{ "", "BitwiseXor", infer_broadcast, 0 },
	{ "", "Div", infer_broadcast, B_DIV },
	{ "", "Equal", infer_broadcast, B_EQ | OUT_BOOL },
	{ "", "Greater", infer_broadcast, B_GT | OUT_BOOL },
	{ "", "GreaterOrEqual", infer_broadcast, B_GE | OUT_BOOL },
	{ "", "Less", infer_broadcast, B_LT | OUT_BOOL },
	{ "", "LessOrEqual", infer_broadcast, B_LE | OUT_BOOL },
	{ "", "Max", infer_broadcast, B_MAX },
	{ "", "Mean", infer_broadcast, B_MEAN },
	{ "", "Min", infer_broadcast, B_MIN },
	{ "", "Mod", infer_broadcast, B_MOD },
	{ "", "Mul", infer_broadcast, B_MUL },
	{ "", "Or", infer_broadcast, B_OR | OUT_BOOL },
	{ "", "PRelu", infer_broadcast, 0 },
	{ "", "Pow", infer_broadcast, B_POW },
	{ "", "Sub", infer_broadcast, B_SUB },
	{ "", "Sum", infer_broadcast, B_SUM },
	{ "", "Where", infer_broadcast, B_WHERE },
	{ "", "Xor", infer_broadcast, B_XOR | OUT_BOOL },
	/* dtype changes */
	{ "", "Bernoulli", infer_like_dtype_attr, 0 },
	{ "", "Cast", infer_cast, 0 },
	{ "", "CastLike", infer_cast, 0 },
	{ "", "DequantizeLinear", infer_dequantize, 0 },
	{ "", "Dropout", infer_dropout, 0 },
	{ "", "DynamicQuantizeLinear", infer_dynamic_quantize, 0 },
	{ "", "EyeLike", infer_like_dtype_attr, 0 },
	{ "", "QuantizeLinear", infer_quantize, 0 },
	{ "", "RandomNormalLike", infer_like_dtype_attr, 0 },
	{ "", "RandomUniformLike", infer_like_dtype_attr, 0 },
	{ "com.microsoft", "DequantizeLinear", infer_dequantize, 0 },
	{ "com.microsoft", "QuantizeLinear", infer_quantize, 0 },
	{ NULL, NULL, NULL, 0 },
};
