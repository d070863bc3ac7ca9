/* transpose_handlers.c — the handlers of onnx_transpose_optimization.cc
 * that change more than the node's axis attribute (transpose_internal.h):
 * the broadcasting elementwise ops, whose other inputs are unsqueezed and
 * transposed with the one pushed, the reduce ops, whose axes are remapped
 * and whose output permutation loses the axes they drop, and Gather of a
 * scalar index. Each checks what onnxruntime's handler checks before it
 * changes the graph, so a false return is onnxruntime's refusal. */
#include <string.h>
#include "transpose/transpose_internal.h"

/* SqueezePerm(axes, perm): the perm of the tensor with axes removed. */
static int32_t squeeze_perm(tp_state *s, const tp_perm *p, const int64_t *axes, int32_t n_axes)
{
	bool removed[64] = { false };
	int64_t map[64], out[64];
	int32_t j = 0, m = 0;
	for (int32_t k = 0; k < n_axes; k++)
		removed[axes[k]] = true;
	for (int32_t i = 0; i < p->rank; i++)
		map[i] = removed[i] ? -1 : j++;
	for (int32_t i = 0; i < p->rank; i++)
		if (!removed[p->p[i]])
			out[m++] = map[p->p[i]];
	return transpose_add_perm(s, m, out);
}

/* SortedAxesForTransposedInput: perm[a] for each axis, sorted. */
static int32_t sorted_axes(const tp_perm *p, const int64_t *axes, int32_t n, int64_t *out)
{
	bool in[64] = { false };
	int32_t m = 0;
	for (int32_t k = 0; k < n; k++)
		in[p->p[axes[k]]] = true;
	for (int32_t a = 0; a < p->rank; a++)
		if (in[a])
			out[m++] = a;
	return m;
}

/* HandleReduceOps / HandleReduceOpWithArg: the axes (attribute before
 * opset 18, ReduceSum's before 13; else a constant input 1) remapped and
 * sorted; the output carries perm, or SqueezePerm(new axes, perm) without
 * keepdims, -2 when it carries nothing (every axis reduced away). */
bool transpose_reduce(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch, int32_t *out)
{
	const fd_attr *kd = node_attr(n, "keepdims");
	bool keepdims = !kd || kd->type != ATTR_INT || kd->u.i != 0;
	bool from_attr = node_is(n, "ReduceSum") ? s->opset < 13 : s->opset < 18;
	int64_t axes[64];
	int32_t count = -1;
	if (from_attr) {
		const fd_attr *a = node_attr(n, "axes");
		if (a && (a->type != ATTR_INTS || a->count > 64))
			return false;
		if (a) {
			count = (int32_t)a->count;
			if (count)
				memcpy(axes, a->u.ints, (size_t)count * sizeof *axes);
		}
	} else if (n->n_inputs >= 2 && n->inputs[1] >= 0) {
		const fd_const *v = transpose_int_constant(s, n->inputs[1]);
		if (!v || v->count > 64)
			return false;   /* Case 2: non-const axes */
		count = v->count ? (int32_t)v->count : -1;
		if (count > 0)
			memcpy(axes, v->i64, (size_t)count * sizeof *axes);
	}
	int32_t self = transpose_add_perm(s, p->rank, p->p);
	if (count < 0) {
		/* reduce over all axes (or, opset 18, a no-op with empty axes) */
		const fd_attr *noop = node_attr(n, "noop_with_empty_axes");
		bool keeps_rank = keepdims || (!from_attr && noop && noop->type == ATTR_INT && noop->u.i != 0);
		*out = keeps_rank ? self : -2;
		return true;
	}
	if (!transpose_normalize_axes(axes, count, p->rank))
		return false;
	int64_t *na = arena_array(s->arena, (size_t)p->rank + 1, sizeof *na);
	int32_t m = sorted_axes(p, axes, count, na);
	ch->n_axes = m;
	ch->axes = na;
	ch->axes_as_attr = from_attr;
	ch->axes_input = 1;
	ch->axes_dtype = DT_INT64;
	*out = keepdims ? self : squeeze_perm(s, p, na, m);
	return true;
}

/* HandleGather (onnxruntime 1.30): a 0-D constant index only, which makes
 * Gather a Squeeze of the gathered axis: axis becomes perm[axis], the
 * output carries SqueezePerm({perm[axis]}, perm). */
bool transpose_gather(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch, int32_t *out)
{
	int32_t idx = n->n_inputs > 1 ? n->inputs[1] : FD_NONE;
	if (idx < 0 || !tensor_is_constant(s->g, idx) || s->g->tensors[idx].shape.rank != 0)
		return false;
	const fd_attr *a = node_attr(n, "axis");
	int64_t axis = a && a->type == ATTR_INT ? a->u.i : 0;
	if (axis < 0)
		axis += p->rank;
	if (axis < 0 || axis >= p->rank)
		return false;
	ch->axis_set = true;
	ch->old_axis = a && a->type == ATTR_INT ? a->u.i : 0;
	ch->old_axis_absent = !a;
	ch->axis = p->p[axis];
	*out = squeeze_perm(s, p, &ch->axis, 1);
	return true;
}

/* NormalizeInputRanks, then TransposeInputs for a broadcasting op
 * (HandleSimpleNodeBroadcast): every transposible input needs a known rank
 * no larger than the perm's, or onnxruntime's handler declines (false).
 * An input that does not carry the perm must be a constant onnxruntime
 * can edit in place without touching other readers (UnsqueezeInput and
 * TransposeInputImpl, Case 1): its shape is unsqueezed to the perm's rank
 * and permuted (tp_state.const_user). Anything else would get a new
 * Unsqueeze or Transpose: *why says so. */
/* The other input x of a broadcast op gets a new Unsqueeze (UnsqueezeInput
 * Case 3) when its rank is below the perm's, then a new Transpose
 * (TransposeInputImpl Case 4); NULL when that is so, else what onnxruntime
 * would do instead, which fusiondbg does not model. */
static const char *new_input_nodes(tp_state *s, int32_t i, int32_t x, const tp_perm *p)
{
	const fd_tensor *t = &s->g->tensors[x];
	const fd_node *prod = t->producer >= 0 ? &s->g->nodes[t->producer] : NULL;
	if (!s->materialize)
		return "another input does not carry the same Transpose; onnxruntime would transpose it";
	if (prod && (node_is(prod, "Transpose") || node_is(prod, "Squeeze") || !strcmp(prod->op_type, "DequantizeLinear")))
		return "another input comes from a Transpose or Squeeze, which onnxruntime composes with the new one";
	if (t->shape.rank == p->rank) {
		/* Case 3: a Transpose of x with the same perm already there is reused */
		for (int32_t c = 0; c < t->n_consumers; c++)
			if (node_is(&s->g->nodes[t->consumers[c]], "Transpose"))
				return "another input already has a Transpose reader, which onnxruntime may reuse";
		if (s->in_transposed[x] >= 0 && s->in_transposed[x] != i)
			return "another input an earlier push transposed too, whose Transpose onnxruntime reuses";
		s->in_transposed[x] = i;
	}
	return NULL;
}

bool transpose_broadcast(tp_state *s, int32_t i, int32_t carried, tp_change *ch, const char **why)
{
	const fd_node *n = &s->g->nodes[i];
	const tp_perm *p = &s->perms.items[s->carry[carried]];
	*why = NULL;
	for (int32_t k = 0; k < n->n_inputs; k++) {
		int32_t t = n->inputs[k];
		if (t < 0 || !transpose_transposible(s, n, k))
			continue;
		int32_t rank = s->g->tensors[t].shape.rank;
		if (rank < 0 || rank > p->rank)
			return false;
	}
	for (int32_t k = 0; k < n->n_inputs && !*why; k++) {
		int32_t t = n->inputs[k];
		if (t < 0 || !transpose_transposible(s, n, k) || s->carry[t] == s->carry[carried])
			continue;
		const fd_tensor *x = &s->g->tensors[t];
		if (s->carry[t] >= 0) {
			*why = "another input carries another Transpose; onnxruntime would compose them";
			break;
		}
		if (!tensor_is_constant(s->g, t)) {
			if (k >= 32 || (*why = new_input_nodes(s, i, t, p)))
				break;
			ch->new_inputs |= 1u << k;
			continue;
		}
		int non_unit = 0;
		int64_t numel = 1;
		for (int32_t d = 0; d < x->shape.rank; d++) {
			if (!dim_known(x->shape.dims[d]) || dim_is_symbolic(x->shape.dims[d])) {
				non_unit = 2;
				break;
			}
			non_unit += x->shape.dims[d].value != 1;
			numel *= x->shape.dims[d].value;
		}
		bool reshaped = x->shape.rank < p->rank, permuted = numel != 1;
		if ((reshaped || permuted) && x->n_consumers != 1)
			*why = "a constant another node reads too: onnxruntime would give that node a Squeeze or "
			       "Transpose of it (constant folding makes them a copy), which fusiondbg does not add";
		else if (non_unit > 1)
			*why = "a constant with more than one dim other than 1: onnxruntime transposes its data";
		else if (reshaped || permuted)
			s->const_user[t] = i;
	}
	return true;
}
