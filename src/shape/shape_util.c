/* shape_util.c — what every shape fn needs: dims arithmetic, broadcasting,
 * reading a node's inputs / attributes / constant inputs, and writing its
 * outputs without ever replacing a declared shape by a different one.
 * All allocation is in the model arena. */
#include <string.h>
#include "shape/shape_infer.h"

bool shape_is_known(const fd_shape *s)
{
	if (!s || s->rank < 0)
		return false;
	for (int32_t i = 0; i < s->rank; i++)
		if (s->dims[i].value < 0)
			return false;
	return true;
}

int64_t shape_dims_product(const fd_dim *dims, int32_t from, int32_t to)
{
	int64_t p = 1;

	for (int32_t i = from; i < to; i++) {
		int64_t v = dims[i].value;
		if (v < 0)
			return -1;
		if (v != 0 && p > INT64_MAX / v)
			return -1;
		p *= v;
	}
	return p;
}

bool shape_axis_norm(int64_t axis, int32_t rank, int32_t *out)
{
	if (axis < 0)
		axis += rank;
	if (axis < 0 || axis >= rank)
		return false;
	*out = (int32_t)axis;
	return true;
}

static fd_dim sh_fresh(const shape_ctx *c)
{
	return dimtab_fresh(c->m->dimtab);
}

/* One broadcast dim from two: equal, or the one that is not 1. A dim whose
 * value is not known against a number above 1 must be that number in a
 * valid model; two different expressions broadcast to something no rule
 * says (unknown, so a fresh symbol); two different numbers above 1 do not
 * broadcast at all (invalid: unknown, no symbol). */
static fd_dim sh_bcast_dim(fd_dim a, fd_dim b)
{
	if (dim_equal(a, b))
		return a;
	if (a.value >= 0 && b.value >= 0) {
		if (a.value == b.value)
			return a.expr ? a : b;
		if (a.value == 1)
			return b;
		if (b.value == 1)
			return a;
		return dim_invalid();
	}
	if (a.value == 1 && !a.expr)
		return b;
	if (b.value == 1 && !b.expr)
		return a;
	if (a.value < 0 && b.value < 0)
		return dim_unknown();
	if (a.value < 0)
		return b.value > 1 ? b : dim_unknown();
	return a.value > 1 ? a : dim_unknown();
}

bool sh_broadcast(const fd_shape *const *s, int n, int32_t *rank, fd_dim *out)
{
	int32_t r = 0;

	for (int i = 0; i < n; i++) {
		if (!s[i] || s[i]->rank < 0 || s[i]->rank > SHAPE_MAX_RANK)
			return false;
		if (s[i]->rank > r)
			r = s[i]->rank;
	}
	for (int32_t k = 0; k < r; k++) {
		bool first = true;
		fd_dim d = dim_of(1);
		for (int i = 0; i < n; i++) {
			int32_t off = r - s[i]->rank;
			if (k < off)
				continue;
			fd_dim x = s[i]->dims[k - off];
			d = first ? x : sh_bcast_dim(d, x);
			first = false;
		}
		out[k] = d;
	}
	*rank = r;
	return true;
}

/* ---- inputs ---------------------------------------------------------------- */

fd_tensor *sh_in(const shape_ctx *c, int i)
{
	if (i < 0 || i >= c->n->n_inputs || c->n->inputs[i] == FD_NONE)
		return NULL;
	return &c->g->tensors[c->n->inputs[i]];
}

const fd_shape *sh_in_shape(const shape_ctx *c, int i)
{
	fd_tensor *t = sh_in(c, i);
	return t ? &t->shape : NULL;
}

int32_t sh_in_rank(const shape_ctx *c, int i)
{
	fd_tensor *t = sh_in(c, i);
	return t && t->shape.rank <= SHAPE_MAX_RANK ? t->shape.rank : -1;
}

int32_t sh_in_dtype(const shape_ctx *c, int i)
{
	fd_tensor *t = sh_in(c, i);
	return t ? t->dtype : DT_UNDEFINED;
}

const fd_const *sh_in_const(const shape_ctx *c, int i)
{
	fd_tensor *t = sh_in(c, i);
	return t ? t->value : NULL;
}

bool sh_in_ints(const shape_ctx *c, int i, const int64_t **v, int64_t *count)
{
	const fd_const *k = sh_in_const(c, i);

	if (!k || !k->i64)
		return false;
	*v = k->i64;
	*count = k->count;
	return true;
}

bool sh_in_int(const shape_ctx *c, int i, int64_t *v)
{
	const int64_t *p;
	int64_t n;

	if (!sh_in_ints(c, i, &p, &n) || n != 1)
		return false;
	*v = p[0];
	return true;
}

bool sh_in_sints(const shape_ctx *c, int i, fd_sint *out, int64_t max, int64_t *count)
{
	const fd_const *k = sh_in_const(c, i);

	if (!k || (!k->i64 && !k->sym) || k->count > max)
		return false;
	for (int64_t j = 0; j < k->count; j++)
		out[j] = const_sint(k, j);
	*count = k->count;
	return true;
}

bool sh_in_dims(const shape_ctx *c, int i, fd_dim *out, int64_t max, int64_t *count)
{
	fd_sint s[SHAPE_MAX_RANK];

	if (max > SHAPE_MAX_RANK)
		max = SHAPE_MAX_RANK;
	if (!sh_in_sints(c, i, s, max, count))
		return false;
	for (int64_t j = 0; j < *count; j++)
		out[j] = dim_of_sint(s[j]);
	return true;
}

bool sh_in_nums(const shape_ctx *c, int i, double *out, int64_t max, int64_t *count)
{
	const fd_const *k = sh_in_const(c, i);

	if (!k || (!k->i64 && !k->f64) || k->count > max)
		return false;
	for (int64_t j = 0; j < k->count; j++)
		out[j] = const_num(k, j);
	*count = k->count;
	return true;
}

/* ---- attributes -------------------------------------------------------------- */

const fd_attr *sh_attr(const shape_ctx *c, const char *name)
{
	return node_attr(c->n, name);
}

int64_t sh_attr_int(const shape_ctx *c, const char *name, int64_t def)
{
	const fd_attr *a = sh_attr(c, name);
	return a && a->type == ATTR_INT ? a->u.i : def;
}

const char *sh_attr_str(const shape_ctx *c, const char *name, const char *def)
{
	const fd_attr *a = sh_attr(c, name);
	return a && a->type == ATTR_STRING && a->u.s ? a->u.s : def;
}

/* Attribute name when it is a list of kind type (*count its length). */
static const fd_attr *attr_list(const shape_ctx *c, const char *name, fd_attr_type type, int64_t *count)
{
	const fd_attr *a = sh_attr(c, name);

	if (!a || a->type != type)
		return NULL;
	*count = a->count;
	return a;
}

const int64_t *sh_attr_ints(const shape_ctx *c, const char *name, int64_t *count)
{
	static const int64_t none[1];
	const fd_attr *a = attr_list(c, name, ATTR_INTS, count);
	return !a ? NULL : a->u.ints ? a->u.ints : none;
}

const double *sh_attr_floats(const shape_ctx *c, const char *name, int64_t *count)
{
	static const double none[1];
	const fd_attr *a = attr_list(c, name, ATTR_FLOATS, count);
	return !a ? NULL : a->u.floats ? a->u.floats : none;
}

/* ---- outputs --------------------------------------------------------------- */

fd_tensor *sh_out(const shape_ctx *c, int i)
{
	if (i < 0 || i >= c->n->n_outputs || c->n->outputs[i] == FD_NONE)
		return NULL;
	return &c->g->tensors[c->n->outputs[i]];
}

static void warn_clash(const shape_ctx *c, const fd_tensor *t, int32_t rank, const fd_dim *dims)
{
	char have[128], got[128];
	fd_shape s = { rank, (fd_dim *)dims };

	shape_format(&t->shape, have, sizeof have);
	shape_format(&s, got, sizeof got);
	diag_warning(c->d, srcpos_file(c->m->path),
	             "node %s (%s): inferred shape %s for %s, declared %s; keeping the declared shape",
	             c->n->name, c->n->op_type, got, t->name, have);
}

/* A declared dim that is only a name: a symbol nobody bound, that no graph
 * input carries ("frames" on an output, an exporter's "DynamicDimension.3"
 * in value_info). Inference knowing better replaces it; a symbol of an input
 * (what the user binds) stays. */
static bool name_only(const shape_ctx *c, fd_dim d)
{
	const char *sym;
	int64_t num, den;
	if (!d.expr || d.value >= 0 || dexpr_has_fresh(d.expr) || !dexpr_linear(d.expr, &sym, &num, &den) ||
	    num != 1 || den != 1)
		return false;
	int32_t at = dimtab_find_symbol(c->m->dimtab, sym);
	return at < 0 || !c->input_symbol || !c->input_symbol[at];
}

/* What a declared dim becomes given the inferred one; *clash when both are
 * numbers that differ. */
static fd_dim merge_declared(const shape_ctx *c, fd_dim have, fd_dim got, bool *clash)
{
	if (!dim_defined(have) || dim_equal(have, got))
		return dim_defined(have) ? have : got;
	if (have.value >= 0 && got.value >= 0) {
		if (have.value != got.value)
			*clash = true;
		return have;
	}
	if (have.value < 0 && got.value >= 0 && (!have.expr || name_only(c, have) || dexpr_has_fresh(have.expr)))
		return got;
	if (got.expr && !dexpr_has_fresh(got.expr) && have.expr && (name_only(c, have) || dexpr_has_fresh(have.expr)))
		return got;
	return have;
}

void sh_set(const shape_ctx *c, int i, int32_t dtype, int32_t rank, const fd_dim *dims)
{
	fd_tensor *t = sh_out(c, i);
	bool clash = false;
	fd_dim fresh[SHAPE_MAX_RANK];

	if (!t)
		return;
	if (dtype > DT_UNDEFINED && dtype < DT_COUNT && t->dtype == DT_UNDEFINED)
		t->dtype = dtype;
	if (rank < 0 || rank > SHAPE_MAX_RANK)
		return;
	for (int32_t k = 0; k < rank; k++)
		if (!dim_defined(dims[k])) {
			dims_copy(fresh, dims, rank);
			for (; k < rank; k++)
				if (!dim_defined(fresh[k]) && !dim_is_invalid(fresh[k]))   /* an invalid dim stays one downstream */
					fresh[k] = sh_fresh(c);
			dims = fresh;
			break;
		}
	if (t->shape.rank < 0) {
		t->shape.rank = rank;
		t->shape.dims = shape_dims_shared(c->dims, &c->m->arena, rank, dims);
		return;
	}
	if (t->shape.rank != rank) {
		warn_clash(c, t, rank, dims);
		return;
	}
	bool own = false;   /* dims may be shared: copy before the first write */
	for (int32_t k = 0; k < rank; k++) {
		fd_dim now = merge_declared(c, t->shape.dims[k], dims[k], &clash);
		if (now.value == t->shape.dims[k].value && now.expr == t->shape.dims[k].expr)
			continue;
		if (!own) {
			t->shape.dims = arena_memdup(&c->m->arena, t->shape.dims, (size_t)rank * sizeof *dims);
			own = true;
		}
		t->shape.dims[k] = now;
	}
	if (clash)
		warn_clash(c, t, rank, dims);
}

void sh_same(const shape_ctx *c, int i, int j, int32_t dt)
{
	fd_tensor *x = sh_in(c, j);

	if (!x) {
		sh_set(c, i, dt, -1, NULL);
		return;
	}
	sh_set_shape(c, i, dt != DT_UNDEFINED ? dt : x->dtype, &x->shape);
}

void sh_set_value(const shape_ctx *c, int i, fd_const *v)
{
	fd_tensor *t = sh_out(c, i);
	int64_t n;

	if (!t || !v || t->value || !const_settle(v))
		return;
	if (t->dtype == DT_UNDEFINED)
		t->dtype = v->dtype;
	/* a declared dtype or shape that disagrees with the value: keep neither */
	if (dtype_is_float(t->dtype) != dtype_is_float(v->dtype))
		return;
	if (!shape_elements(&t->shape, &n) || n != v->count)
		return;
	t->value = v;
}
