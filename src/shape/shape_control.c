/* shape_control.c — shapes of If / Loop / Scan outputs, taken from what
 * their bodies produce (the driver has already walked the bodies).
 * */
#include <string.h>
#include "shape/shape_infer.h"

static const fd_graph *body(const shape_ctx *c, const char *attr)
{
	const fd_attr *a = sh_attr(c, attr);

	if (!a || a->type != ATTR_GRAPH || a->u.g <= 0 || a->u.g >= c->m->n_graphs)
		return NULL;
	return &c->m->graphs[a->u.g];
}

static const fd_tensor *body_out(const fd_graph *b, int32_t k)
{
	if (!b || k < 0 || k >= b->n_outputs || b->outputs[k] < 0 || b->outputs[k] >= b->n_tensors)
		return NULL;
	return &b->tensors[b->outputs[k]];
}

/* The shape two sources agree on: equal dims stay (the same expression, or
 * the same number at the bindings), different ones become unknown (fresh
 * symbols), different ranks give an unknown rank. */
static int32_t merge(const fd_shape *a, const fd_shape *b, fd_dim *out)
{
	if (!a || !b || a->rank < 0 || a->rank != b->rank || a->rank > SHAPE_MAX_RANK)
		return -1;
	for (int32_t k = 0; k < a->rank; k++) {
		fd_dim x = a->dims[k], y = b->dims[k];
		out[k] = dim_equal(x, y) || (x.value >= 0 && x.value == y.value) ? x : dim_unknown();
	}
	return a->rank;
}

static void infer_if(shape_ctx *c)
{
	const fd_graph *t = body(c, "then_branch"), *e = body(c, "else_branch");
	fd_dim dims[SHAPE_MAX_RANK];
	int64_t cond;

	/* a constant condition picks one branch, as the runtime would */
	if (sh_in_int(c, 0, &cond))
		e = t = cond ? t : e;
	for (int32_t k = 0; k < c->n->n_outputs; k++) {
		const fd_tensor *a = body_out(t, k), *b = body_out(e, k);
		if (!a || !b)
			continue;
		int32_t r = merge(&a->shape, &b->shape, dims);
		sh_set(c, k, a->dtype != DT_UNDEFINED ? a->dtype : b->dtype, r, dims);
		if (a == b && a->value)
			sh_set_value(c, k, a->value);
	}
}

static void infer_loop(shape_ctx *c)
{
	const fd_graph *b = body(c, "body");
	int32_t n_carried = c->n->n_inputs - 2;
	fd_dim dims[SHAPE_MAX_RANK + 1];
	int64_t trips;
	fd_dim iter = dim_unknown();

	if (!b)
		return;
	if (n_carried < 0)
		n_carried = 0;
	/* without a condition input the loop runs exactly M times */
	if (sh_in_int(c, 0, &trips) && !sh_in(c, 1) && trips >= 0)
		iter = dim_of(trips);
	for (int32_t k = 0; k < c->n->n_outputs; k++) {
		const fd_tensor *o = body_out(b, k + 1);
		if (!o)
			continue;
		if (k < n_carried) {
			const fd_shape *init = sh_in_shape(c, k + 2);
			int32_t r = init ? merge(&o->shape, init, dims) : -1;
			sh_set(c, k, o->dtype, r, dims);
		} else if (o->shape.rank >= 0 && o->shape.rank < SHAPE_MAX_RANK) {
			dims[0] = iter;
			dims_copy(dims + 1, o->shape.dims, o->shape.rank);
			sh_set(c, k, o->dtype, o->shape.rank + 1, dims);
		} else {
			sh_set(c, k, o->dtype, -1, NULL);
		}
	}
}

static void infer_scan(shape_ctx *c)
{
	const fd_graph *b = body(c, "body");
	int64_t n_scan_in = sh_attr_int(c, "num_scan_inputs", 0), n_ax = 0, n_oax = 0;
	const int64_t *in_axes = sh_attr_ints(c, "scan_input_axes", &n_ax);
	const int64_t *out_axes = sh_attr_ints(c, "scan_output_axes", &n_oax);
	int32_t n_state, ax;
	fd_dim dims[SHAPE_MAX_RANK + 1], len = dim_unknown();

	if (!b || c->opset < 9 || n_scan_in < 0 || n_scan_in > c->n->n_inputs)
		return;
	n_state = c->n->n_inputs - (int32_t)n_scan_in;
	/* the scan length: the first scan input's scanned dim */
	const fd_shape *s0 = sh_in_shape(c, n_state);
	if (s0 && s0->rank > 0 && shape_axis_norm(in_axes && n_ax ? in_axes[0] : 0, s0->rank, &ax))
		len = s0->dims[ax];
	for (int32_t k = 0; k < c->n->n_outputs; k++) {
		const fd_tensor *o = body_out(b, k);
		if (!o)
			continue;
		if (k < n_state) {
			int32_t r = merge(&o->shape, sh_in_shape(c, k), dims);
			sh_set(c, k, o->dtype, r, dims);
			continue;
		}
		int32_t j = k - n_state, r = o->shape.rank;
		if (r < 0 || r >= SHAPE_MAX_RANK ||
		    !shape_axis_norm(out_axes && j < n_oax ? out_axes[j] : 0, r + 1, &ax)) {
			sh_set(c, k, o->dtype, -1, NULL);
			continue;
		}
		for (int32_t i = 0, s = 0; i <= r; i++)
			dims[i] = i == ax ? len : o->shape.dims[s++];
		sh_set(c, k, o->dtype, r + 1, dims);
	}
}

const shape_op shape_ops_control[] = {
	{ "", "If", infer_if, 0 },
	{ "", "Loop", infer_loop, 0 },
	{ "", "Scan", infer_scan, 0 },
	{ NULL, NULL, NULL, 0 },
};
