/* workspace.c — workspace a node needs beyond its inputs and outputs, for the
 * workspace_size constraint and the estimates: Conv's im2col buffer, CANN's formula:
 * C_in/groups · kh · kw · H_out · W_out · N · dtype bytes
 * (all spatial dims for Conv1d/3d). Everything else needs none. */
#include <string.h>
#include "match/match.h"

static bool mul_ok(int64_t *acc, int64_t v)
{
	if (v < 0)
		return false;
	if (v && *acc > INT64_MAX / v) {
		*acc = INT64_MAX;
		return false;
	}
	*acc *= v;
	return true;
}

int64_t workspace_estimate(const fd_graph *g, const fd_node *n, bool *known)
{
	*known = true;
	if (!n->op_type || strcmp(n->op_type, "Conv") || n->n_inputs < 2 || n->n_outputs < 1)
		return 0;
	if (n->inputs[0] < 0 || n->inputs[1] < 0 || n->outputs[0] < 0) {
		*known = false;
		return 0;
	}
	const fd_tensor *x = &g->tensors[n->inputs[0]], *w = &g->tensors[n->inputs[1]],
	                *y = &g->tensors[n->outputs[0]];
	if (x->shape.rank < 3 || w->shape.rank != x->shape.rank || y->shape.rank != x->shape.rank) {
		*known = false;
		return 0;
	}
	int64_t groups = 1;
	const fd_attr *a = node_attr(n, "group");
	if (a && a->type == ATTR_INT && a->u.i > 0)
		groups = a->u.i;
	int bits = dtype_bits(x->dtype != DT_UNDEFINED ? x->dtype : y->dtype);
	int64_t cin = x->shape.dims[1].value;
	if (cin < 0 || bits <= 0) {
		*known = false;
		return 0;
	}
	int64_t bytes = cin / groups;
	bool ok = mul_ok(&bytes, y->shape.dims[0].value);  /* N */
	for (int d = 2; d < x->shape.rank && ok; d++)
		ok = mul_ok(&bytes, w->shape.dims[d].value) && mul_ok(&bytes, y->shape.dims[d].value);
	ok = ok && mul_ok(&bytes, (bits + 7) / 8);
	if (!ok) {
		*known = false;
		return 0;
	}
	return bytes;
}

fd_sint workspace_estimate_sym(const fd_graph *g, const fd_node *n)
{
	bool known;
	int64_t w = workspace_estimate(g, n, &known);
	if (known)
		return sint_num(w);
	if (n->n_inputs < 2 || n->n_outputs < 1 || n->inputs[0] < 0 || n->inputs[1] < 0 || n->outputs[0] < 0)
		return sint_unknown();
	const fd_tensor *x = &g->tensors[n->inputs[0]], *wt = &g->tensors[n->inputs[1]],
	                *y = &g->tensors[n->outputs[0]];
	int bits = dtype_bits(x->dtype != DT_UNDEFINED ? x->dtype : y->dtype);
	if (x->shape.rank < 3 || wt->shape.rank != x->shape.rank || y->shape.rank != x->shape.rank || bits <= 0)
		return sint_unknown();
	int64_t groups = 1;
	const fd_attr *a = node_attr(n, "group");
	if (a && a->type == ATTR_INT && a->u.i > 0)
		groups = a->u.i;
	/* the same formula in dims: C_in/groups · Π kernel · Π out spatial · N · bytes */
	fd_dim b = dim_mul(dim_floordiv(x->shape.dims[1], groups), y->shape.dims[0]);
	for (int d = 2; d < x->shape.rank; d++)
		b = dim_mul(b, dim_mul(wt->shape.dims[d], y->shape.dims[d]));
	return sint_mul(sint_of_dim(b), sint_num((bits + 7) / 8));
}
